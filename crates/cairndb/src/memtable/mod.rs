//! The memtable: the in-memory, sorted write buffer of one column family.
//!
//! Who calls it: the commit pipeline inserts with [`MemTable::add`] (or a per-writer
//! [`MemTableInserter`]) from several threads at once, each record with a distinct sequence
//! number; readers call [`MemTable::get`] and [`MemTable::iter`] from any thread at the same
//! time; the flush job iterates an immutable memtable. A memtable is `Send + Sync` and is
//! shared through `Arc`. It does not assign sequence numbers, decide when it is full (the DB
//! compares [`MemTable::approximate_memory_usage`] with `write_buffer_size`), or apply merges.
//!
//! What it owns: the point entries in one rep, the range deletions in a separate small
//! skiplist, and counters. Memory is released only when the memtable is dropped.
//!
//! Reps (chosen at creation with [`MemTableRep`]):
//! - `SkipList` (default): an arena-backed concurrent skiplist (`skiplist.rs`). Readers never
//!   take a lock or wait; writers take no global lock (a CAS per tower level). Insert cost grows
//!   with log₄ n, and sequential keys are inserted in O(1) comparisons through the search-path
//!   cache ([`MemTableInserter`] keeps one per writer; `add` borrows a shared one when it is
//!   free). Keys compare on a cached 8-byte prefix first.
//! - `Vector`: unsorted appends under a mutex, sorted once when read or flushed (`vector.rs`);
//!   for bulk loads that do not read their own writes.
//!
//! Range deletions live in their own skiplist, keyed like point entries by
//! `(begin key, seq, RangeDelete)` with the end key as value, because point lookups must not
//! step over them and flush writes them to a separate SST block. [`MemTable::get`] applies them
//! itself: an entry of the key older than a visible covering tombstone counts as deleted, and a
//! key with no newer entry reports [`MemGet::Deleted`] with kind `RangeDelete` and the
//! tombstone's sequence number. The DB layer must still apply this memtable's tombstones to
//! *older* memtables and SSTs: [`MemTable::max_covering_tombstone_seq`] gives the number to
//! compare with, [`MemTable::range_tombstones`] the visible tombstones, and
//! [`MemTable::range_tombstone_iter`] all of them for flush. Finding the covering tombstones
//! scans every tombstone whose begin key is <= the key: cheap for the few range deletions
//! workloads issue, linear for a memtable holding thousands (RocksDB caches a fragmented list
//! for that case; we do not yet).
//!
//! Invariants:
//! 1. No two entries of the skiplist rep share an internal key: `add` of an existing
//!    `(user key, seq, kind)` fails with `InvalidArgument` and changes nothing visible.
//! 2. An entry is visible to readers exactly from the moment its level-0 link is published; the
//!    counters are updated after that, so they may briefly lag what readers can see.
//! 3. After [`MemTable::mark_read_only`], `add` fails; the contents never change again.

mod apply;
mod arena;
mod iter;
#[cfg(all(test, loom))]
mod loom_models;
mod node;
mod prefix_bloom;
mod skiplist;
#[cfg(test)]
mod tests;
mod vector;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

use parking_lot::Mutex;

pub use apply::insert_batch;
pub use arena::DEFAULT_BLOCK_SIZE;
pub use iter::MemTableIter;
pub use prefix_bloom::PrefixBloom;
pub use skiplist::MAX_HEIGHT;

use iter::{Pos, Source, Table};
use skiplist::{SkipList, Splice};
use vector::VectorRep;

use crate::batch::{MAX_KEY_LEN, MAX_VALUE_LEN};
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::sstable::PrefixExtractor;
use crate::types::{
    pack_trailer, seek_key, trailer, user_key, RangeTombstone, SequenceNumber, ValueKind,
    MAX_SEQUENCE, TRAILER_LEN,
};

/// Block size of the range-deletion arena: tombstones are few, so small blocks.
const RANGE_DEL_BLOCK_SIZE: usize = 16 * 1024;

/// How a memtable stores its point entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemTableRep {
    /// Concurrent skiplist: lock-free reads, concurrent inserts (RocksDB's default).
    #[default]
    SkipList,
    /// Append-only vector sorted on read (RocksDB's `VectorRepFactory`), for bulk loads.
    Vector,
}

/// Options of one memtable.
#[derive(Debug, Clone, PartialEq)]
pub struct MemTableOptions {
    /// How point entries are stored. Default: [`MemTableRep::SkipList`].
    pub rep: MemTableRep,
    /// Bytes per arena block (RocksDB's `arena_block_size`). Default 1 MiB; at least 4 KiB.
    /// Larger blocks mean fewer allocator calls; smaller blocks mean finer memory accounting.
    pub arena_block_size: usize,
    /// Back the skiplist's arena with transparent huge pages of this size (RocksDB's
    /// `memtable_huge_page_size`); 0 disables. Default 0.
    pub huge_page_size: usize,
    /// The order of the keys (the column family's `comparator`). Default bytewise.
    pub comparator: KeyOrder,
}

impl Default for MemTableOptions {
    fn default() -> Self {
        MemTableOptions {
            rep: MemTableRep::SkipList,
            arena_block_size: DEFAULT_BLOCK_SIZE,
            huge_page_size: 0,
            comparator: KeyOrder::BYTEWISE,
        }
    }
}

/// The result of a point lookup: the newest entry of the key visible at the snapshot, with any
/// merge operands above it. Slices borrow from the memtable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemGet<'a> {
    /// The newest visible entry is a Put.
    Value {
        /// Its sequence number.
        seq: SequenceNumber,
        /// Its value.
        value: &'a [u8],
    },
    /// The key is deleted as of the snapshot; older sources must not be consulted.
    Deleted {
        /// Sequence number of the deletion (of the range tombstone, for `RangeDelete`).
        seq: SequenceNumber,
        /// `Delete`, `SingleDelete` or `RangeDelete`.
        kind: ValueKind,
    },
    /// One or more merge operands are the newest visible entries.
    Merge {
        /// Sequence number of the newest operand.
        seq: SequenceNumber,
        /// The operands, newest first.
        operands: Vec<&'a [u8]>,
        /// What lies below the operands.
        base: MergeBase<'a>,
    },
}

/// What a run of merge operands applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeBase<'a> {
    /// A Put in this memtable: fold the operands into this value.
    Value(&'a [u8]),
    /// A point or range deletion in this memtable: fold the operands into nothing.
    Deleted,
    /// Nothing below the operands in this memtable: keep collecting from older sources.
    SearchOlder,
}

/// A range deletion visible in this memtable, borrowing its keys from the memtable's arena: user
/// keys in `[begin, end)` written before `seq` are deleted. The owned form is
/// [`RangeTombstone`] (`From` this).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RangeTombstoneRef<'a> {
    /// Inclusive begin key.
    pub begin: &'a [u8],
    /// Exclusive end key.
    pub end: &'a [u8],
    /// Sequence number of the deletion.
    pub seq: SequenceNumber,
}

impl From<RangeTombstoneRef<'_>> for RangeTombstone {
    fn from(t: RangeTombstoneRef<'_>) -> Self {
        RangeTombstone::new(t.begin, t.end, t.seq)
    }
}

/// The point-entry storage.
#[derive(Debug)]
enum Rep {
    SkipList(SkipList),
    Vector(VectorRep),
}

/// Counters, updated after each insert (invariant 2).
#[derive(Debug)]
struct Stats {
    entries: AtomicU64,
    deletes: AtomicU64,
    range_deletes: AtomicU64,
    merges: AtomicU64,
    /// Smallest sequence number added; `u64::MAX` while empty.
    first_seq: AtomicU64,
    /// Largest sequence number added; meaningful once `entries > 0`.
    largest_seq: AtomicU64,
}

/// An in-memory sorted buffer of writes. See the module contract.
#[derive(Debug)]
pub struct MemTable {
    points: Rep,
    range_dels: SkipList,
    /// Search-path cache for `add` on the skiplist rep: taken with `try_lock`, so concurrent
    /// writers never wait for it (a writer that finds it busy searches from the head).
    points_splice: Mutex<Splice>,
    range_dels_splice: Mutex<Splice>,
    stats: Stats,
    read_only: AtomicBool,
    /// The prefix Bloom filter, when the column family has one
    /// (`memtable_prefix_bloom_size_ratio`); see [`MemTable::with_prefix_bloom`].
    prefix_bloom: Option<PrefixBloom>,
    /// The order of the keys (both lists).
    order: KeyOrder,
}

impl Default for MemTable {
    fn default() -> Self {
        MemTable::new(MemTableOptions::default())
    }
}

impl MemTable {
    /// An empty memtable.
    pub fn new(options: MemTableOptions) -> Self {
        let points = match options.rep {
            MemTableRep::SkipList => Rep::SkipList(SkipList::with_huge_pages(
                options.arena_block_size,
                options.huge_page_size,
                options.comparator.clone(),
            )),
            MemTableRep::Vector => Rep::Vector(VectorRep::new(
                options.arena_block_size,
                options.comparator.clone(),
            )),
        };
        MemTable {
            points,
            range_dels: SkipList::new(RANGE_DEL_BLOCK_SIZE, options.comparator.clone()),
            points_splice: Mutex::new(Splice::default()),
            range_dels_splice: Mutex::new(Splice::default()),
            stats: Stats {
                entries: AtomicU64::new(0),
                deletes: AtomicU64::new(0),
                range_deletes: AtomicU64::new(0),
                merges: AtomicU64::new(0),
                first_seq: AtomicU64::new(u64::MAX),
                largest_seq: AtomicU64::new(0),
            },
            read_only: AtomicBool::new(false),
            prefix_bloom: None,
            order: options.comparator,
        }
    }

    /// This (empty) memtable with a prefix Bloom filter of `bytes` bytes over the prefixes
    /// `extractor` takes: point lookups of a prefix never inserted skip the search.
    pub fn with_prefix_bloom(mut self, extractor: Arc<dyn PrefixExtractor>, bytes: usize) -> Self {
        self.prefix_bloom = Some(PrefixBloom::new(extractor, bytes));
        self
    }

    /// The prefix Bloom filter, if any (for its statistics).
    pub fn prefix_bloom(&self) -> Option<&PrefixBloom> {
        self.prefix_bloom.as_ref()
    }

    /// The order of the memtable's keys.
    pub fn order(&self) -> &KeyOrder {
        &self.order
    }

    /// The rep this memtable was created with.
    pub fn rep(&self) -> MemTableRep {
        match self.points {
            Rep::SkipList(_) => MemTableRep::SkipList,
            Rep::Vector(_) => MemTableRep::Vector,
        }
    }

    /// Inserts one entry. For `RangeDelete`, `user_key` is the begin key and `value` the end
    /// key. Safe to call from several threads at once; each call must use a distinct sequence
    /// number (or a distinct kind). Uses a shared search-path cache when no other writer holds
    /// it; a writer applying a whole batch should prefer [`MemTable::inserter`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `seq` exceeds 56 bits, the key or value exceeds the
    /// batch limits ([`MAX_KEY_LEN`], [`MAX_VALUE_LEN`]), a range deletion's begin key sorts
    /// after its end key, the memtable is read-only, or (skiplist rep) the same
    /// `(user_key, seq, kind)` is already present.
    pub fn add(
        &self,
        seq: SequenceNumber,
        kind: ValueKind,
        user_key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        self.insert(None, seq, kind, user_key, value)
    }

    /// A writer handle with its own search-path cache, for inserting many entries (a batch)
    /// from one thread: consecutive keys in ascending order then cost O(1) comparisons each.
    pub fn inserter(&self) -> MemTableInserter<'_> {
        MemTableInserter {
            mem: self,
            points: Splice::default(),
            range_dels: Splice::default(),
        }
    }

    fn insert(
        &self,
        splices: Option<(&mut Splice, &mut Splice)>,
        seq: SequenceNumber,
        kind: ValueKind,
        user_key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        self.check(seq, kind, user_key, value)?;
        // Before the entry is published, so a reader that finds the entry also finds its bits.
        if let (Some(b), false) = (&self.prefix_bloom, kind == ValueKind::RangeDelete) {
            b.add(user_key);
        }
        let trailer = pack_trailer(seq, kind as u8);
        let (own_points, own_range_dels) = match splices {
            Some((p, r)) => (Some(p), Some(r)),
            None => (None, None),
        };
        let inserted = match (kind, &self.points) {
            (ValueKind::RangeDelete, _) => insert_with(
                &self.range_dels,
                own_range_dels,
                &self.range_dels_splice,
                user_key,
                trailer,
                value,
            ),
            (_, Rep::SkipList(list)) => insert_with(
                list,
                own_points,
                &self.points_splice,
                user_key,
                trailer,
                value,
            ),
            (_, Rep::Vector(v)) => {
                v.insert(user_key, trailer, value);
                true
            }
        };
        if !inserted {
            return Err(Error::InvalidArgument(format!(
                "memtable: entry with sequence {seq} and kind {kind:?} already present"
            )));
        }
        self.count(seq, kind);
        Ok(())
    }

    fn check(
        &self,
        seq: SequenceNumber,
        kind: ValueKind,
        user_key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let problem = if self.read_only.load(AtomicOrdering::Relaxed) {
            "the memtable is read-only"
        } else if seq > MAX_SEQUENCE {
            "sequence number exceeds 56 bits"
        } else if user_key.len() > MAX_KEY_LEN {
            "key too long"
        } else if kind == ValueKind::RangeDelete && value.len() > MAX_KEY_LEN {
            "range end key too long"
        } else if value.len() > MAX_VALUE_LEN {
            "value too long"
        } else if kind == ValueKind::RangeDelete && self.order.compare(user_key, value).is_gt() {
            "range deletion begin key after its end key"
        } else {
            return Ok(());
        };
        Err(Error::InvalidArgument(format!("memtable: {problem}")))
    }

    fn count(&self, seq: SequenceNumber, kind: ValueKind) {
        let s = &self.stats;
        // Relaxed: counters are statistics, read approximately (invariant 2).
        s.entries.fetch_add(1, AtomicOrdering::Relaxed);
        match kind {
            ValueKind::Delete | ValueKind::SingleDelete => {
                s.deletes.fetch_add(1, AtomicOrdering::Relaxed);
            }
            ValueKind::RangeDelete => {
                s.range_deletes.fetch_add(1, AtomicOrdering::Relaxed);
            }
            ValueKind::Merge => {
                s.merges.fetch_add(1, AtomicOrdering::Relaxed);
            }
            ValueKind::Put => {}
        }
        s.first_seq.fetch_min(seq, AtomicOrdering::Relaxed);
        s.largest_seq.fetch_max(seq, AtomicOrdering::Relaxed);
    }

    /// The newest entry of `user_key` with a sequence number <= `snapshot`, folding this
    /// memtable's range deletions in (see the module doc). `None` when this memtable knows
    /// nothing about the key at that snapshot: look in older sources.
    pub fn get(&self, user_key: &[u8], snapshot: SequenceNumber) -> Option<MemGet<'_>> {
        // The filter covers point entries only: with range deletions the search must run.
        if let Some(b) = &self.prefix_bloom {
            if self.stats.range_deletes.load(AtomicOrdering::Acquire) == 0
                && !b.may_contain(user_key)
            {
                return None;
            }
        }
        let snapshot = snapshot.min(MAX_SEQUENCE);
        let tombstone = self.max_covering_tombstone_seq(user_key, snapshot);
        let sorted;
        let source = match &self.points {
            Rep::SkipList(l) => Source::List(l),
            Rep::Vector(v) => {
                sorted = v.snapshot();
                Source::Sorted(&sorted, v.order())
            }
        };
        let pos = with_seek_key(user_key, snapshot, |target| source.seek(target));
        let (newest, operands, base) = self.versions(source, pos, user_key, tombstone);
        let base = base.or_else(|| tombstone.map(deleted_by_range));
        fold_operands(newest, operands, base)
    }

    /// Walks the entries of `user_key` from `pos` (newest first): returns the newest sequence
    /// seen, the merge operands above the first non-merge entry, and that entry's answer (a
    /// Put, a deletion, or the covering range tombstone if it is newer than the entry).
    fn versions<'a>(
        &'a self,
        source: Source<'_>,
        mut pos: Pos,
        user_key: &[u8],
        tombstone: Option<SequenceNumber>,
    ) -> (Option<SequenceNumber>, Vec<&'a [u8]>, Option<MemGet<'a>>) {
        let mut operands = Vec::new();
        let mut newest = None;
        while let Some(node) = source.node(pos) {
            // SAFETY: the node lives in one of `self`'s arenas (a vector snapshot holds only
            // pointers), so its bytes live as long as the `&'a self` borrow.
            let (ikey, value) = unsafe { (node.key(), node.value()) };
            if self::user_key(ikey) != user_key {
                break;
            }
            let t = trailer(ikey);
            let seq = t >> 8;
            if let Some(ts) = tombstone.filter(|&ts| seq < ts) {
                return (newest, operands, Some(deleted_by_range(ts)));
            }
            newest.get_or_insert(seq);
            let answer = match ValueKind::from_u8(t as u8) {
                Some(ValueKind::Put) => MemGet::Value { seq, value },
                Some(ValueKind::Merge) => {
                    operands.push(value);
                    pos = source.next(pos);
                    continue;
                }
                Some(kind) => MemGet::Deleted { seq, kind },
                None => unreachable!("the memtable stores only valid kinds"),
            };
            return (newest, operands, Some(answer));
        }
        (newest, operands, None)
    }

    /// The largest sequence number <= `snapshot` of a range deletion in this memtable that
    /// covers `user_key`, if any. Entries of the key with smaller sequence numbers, in this
    /// memtable or in older sources, are deleted.
    pub fn max_covering_tombstone_seq(
        &self,
        user_key: &[u8],
        snapshot: SequenceNumber,
    ) -> Option<SequenceNumber> {
        let order = &self.order;
        self.visible_tombstones(snapshot)
            .take_while(|t| order.compare(t.begin, user_key).is_le())
            .filter(|t| order.compare(user_key, t.end).is_lt())
            .map(|t| t.seq)
            .max()
    }

    /// The range deletions visible at `snapshot`, ordered by begin key, then newest first.
    pub fn range_tombstones(&self, snapshot: SequenceNumber) -> Vec<RangeTombstoneRef<'_>> {
        self.visible_tombstones(snapshot).collect()
    }

    /// Walks the range-deletion list lazily. An empty list costs one Acquire load of the head's
    /// link, so point lookups in memtables without range deletions pay almost nothing.
    fn visible_tombstones(
        &self,
        snapshot: SequenceNumber,
    ) -> impl Iterator<Item = RangeTombstoneRef<'_>> + '_ {
        let source = Source::List(&self.range_dels);
        let mut pos = source.first();
        std::iter::from_fn(move || loop {
            let (ikey, end) = source.entry(pos)?;
            pos = source.next(pos);
            let seq = trailer(ikey) >> 8;
            if seq <= snapshot {
                return Some(RangeTombstoneRef {
                    begin: user_key(ikey),
                    end,
                    seq,
                });
            }
        })
    }

    /// An iterator over the point entries (internal keys, values), in internal-key order.
    pub fn iter(self: &Arc<Self>) -> MemTableIter {
        MemTableIter::new(Arc::clone(self), Table::Points)
    }

    /// An iterator over the range deletions: keys `(begin, seq, RangeDelete)` as internal keys,
    /// values the end keys. Flush writes these to the table's range-deletion block.
    pub fn range_tombstone_iter(self: &Arc<Self>) -> MemTableIter {
        MemTableIter::new(Arc::clone(self), Table::RangeDeletions)
    }

    /// Refuses further `add`s (invariant 3). For the vector rep, also sorts now, so that the
    /// flush's iterator does not pay for it.
    pub fn mark_read_only(&self) {
        self.read_only.store(true, AtomicOrdering::Relaxed);
        if let Rep::Vector(v) = &self.points {
            v.snapshot();
        }
    }

    /// True after [`MemTable::mark_read_only`].
    pub fn is_read_only(&self) -> bool {
        self.read_only.load(AtomicOrdering::Relaxed)
    }

    /// Bytes of memory the memtable holds (arena blocks, indexes, bookkeeping): what
    /// `write_buffer_size` is compared with. An empty skiplist memtable already holds its first
    /// arena block (the skiplist's head lives there) plus the range-deletion list's first block.
    pub fn approximate_memory_usage(&self) -> usize {
        let points = match &self.points {
            Rep::SkipList(l) => l.memory_usage(),
            Rep::Vector(v) => v.memory_usage(),
        };
        points + self.range_dels.memory_usage() + std::mem::size_of::<MemTable>()
    }

    /// Entries added, range deletions included.
    pub fn num_entries(&self) -> u64 {
        self.stats.entries.load(AtomicOrdering::Relaxed)
    }

    /// Point deletions (`Delete` and `SingleDelete`) added.
    pub fn num_deletes(&self) -> u64 {
        self.stats.deletes.load(AtomicOrdering::Relaxed)
    }

    /// Range deletions added.
    pub fn num_range_deletes(&self) -> u64 {
        self.stats.range_deletes.load(AtomicOrdering::Relaxed)
    }

    /// `Merge` entries added.
    pub fn num_merges(&self) -> u64 {
        self.stats.merges.load(AtomicOrdering::Relaxed)
    }

    /// The smallest sequence number added, or `None` while empty.
    pub fn first_seq(&self) -> Option<SequenceNumber> {
        let s = self.stats.first_seq.load(AtomicOrdering::Relaxed);
        (s != u64::MAX).then_some(s)
    }

    /// The largest sequence number added, or `None` while empty.
    pub fn largest_seq(&self) -> Option<SequenceNumber> {
        (!self.is_empty()).then(|| self.stats.largest_seq.load(AtomicOrdering::Relaxed))
    }

    /// True when nothing was added.
    pub fn is_empty(&self) -> bool {
        self.num_entries() == 0
    }
}

/// The answer for a key hidden by a range deletion with sequence number `seq`.
fn deleted_by_range<'a>(seq: SequenceNumber) -> MemGet<'a> {
    MemGet::Deleted {
        seq,
        kind: ValueKind::RangeDelete,
    }
}

/// Calls `f` with the seek key of `(user_key, seq)`, built on the stack for keys of up to 56
/// bytes so that a point lookup does not allocate.
fn with_seek_key<R>(user_key: &[u8], seq: SequenceNumber, f: impl FnOnce(&[u8]) -> R) -> R {
    let mut stack = [0u8; 64];
    let n = user_key.len() + TRAILER_LEN;
    if n > stack.len() {
        return f(&seek_key(user_key, seq));
    }
    stack[..user_key.len()].copy_from_slice(user_key);
    let trailer = pack_trailer(seq, ValueKind::FOR_SEEK);
    stack[user_key.len()..n].copy_from_slice(&trailer.to_le_bytes());
    f(&stack[..n])
}

/// Builds the answer of `get` from the newest visible sequence, the operands collected (newest
/// first) and what stopped the walk.
fn fold_operands<'a>(
    newest: Option<SequenceNumber>,
    operands: Vec<&'a [u8]>,
    base: Option<MemGet<'a>>,
) -> Option<MemGet<'a>> {
    if operands.is_empty() {
        return base;
    }
    let base = match base {
        None => MergeBase::SearchOlder,
        Some(MemGet::Value { value, .. }) => MergeBase::Value(value),
        Some(_) => MergeBase::Deleted,
    };
    Some(MemGet::Merge {
        seq: newest.expect("operands imply a newest entry"),
        operands,
        base,
    })
}

/// Inserts with the caller's splice, or the shared one if it is free, or a fresh one.
fn insert_with(
    list: &SkipList,
    own: Option<&mut Splice>,
    shared: &Mutex<Splice>,
    user_key: &[u8],
    trailer: u64,
    value: &[u8],
) -> bool {
    if let Some(splice) = own {
        return list.insert(splice, user_key, trailer, value);
    }
    match shared.try_lock() {
        Some(mut splice) => list.insert(&mut splice, user_key, trailer, value),
        None => list.insert(&mut Splice::default(), user_key, trailer, value),
    }
}

/// A writer's handle on a memtable with its own search-path cache; see
/// [`MemTable::inserter`]. Not shared between threads (it is `Send`, so it may move).
#[derive(Debug)]
pub struct MemTableInserter<'a> {
    mem: &'a MemTable,
    points: Splice,
    range_dels: Splice,
}

impl MemTableInserter<'_> {
    /// As [`MemTable::add`], using this handle's search-path cache.
    ///
    /// # Errors
    /// As [`MemTable::add`].
    pub fn add(
        &mut self,
        seq: SequenceNumber,
        kind: ValueKind,
        user_key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let splices = Some((&mut self.points, &mut self.range_dels));
        self.mem.insert(splices, seq, kind, user_key, value)
    }
}
