//! A decoded block and the iterator over an entries block. Spec: `docs/format/sstable.md`,
//! sections "Entries block" and "Filter block".
//!
//! A [`Block`] is what the reader keeps (and the block cache holds) after a block's checksum passed
//! and it was decompressed: the uncompressed contents plus the structure parsed from them. Blocks are
//! immutable and shared between threads; each [`BlockIter`] belongs to one thread.
//!
//! Invariants:
//! 1. A `Block` of an entries kind has a restart array that was checked when the block was parsed:
//!    at least one restart, the first at offset 0, strictly increasing, all inside the entry area
//!    (an empty block has the single restart 0). So the iterator can binary-search restarts without
//!    further range checks.
//! 2. Entry headers are checked as they are decoded: a header or an entry that runs past the entry
//!    area, a shared prefix longer than the previous key, or a restart entry with a shared prefix
//!    makes the iterator invalid with a Corruption status (at the byte offset inside the block); it
//!    never yields bytes from past the damage.
//! 3. Every iterator step advances by at least one entry header (3 bytes) or ends, so no input makes
//!    an iterator loop forever.
//! 4. An index block (internal keys) whose restart keys all parse
//!    carries a `RestartPrefixes` summary built at parse: for each restart, 8 bytes of its user
//!    key after the prefix common to the block, as a big-endian `u64`, plus every 8th of those
//!    as samples. The map is monotone (user-key order implies summary order, not strictly), so a
//!    seek narrows its binary search to the restarts whose summary equals the target's by
//!    searching the samples (small enough to stay in the CPU cache between seeks) and one line of
//!    the summary before it touches any entry; only those restarts are decoded and compared in
//!    full. An index block of a large table has tens of thousands of restarts (interval 1), and
//!    the plain search's two cache misses per probe (restart offset, then the entry) were the
//!    largest cost of a seek. Any other block, or an index block with a
//!    malformed restart entry, has no summary and is searched as before (reporting the damage).
//!    The summary follows bytewise order, so only an iterator in bytewise internal-key order
//!    ([`EntryOrder::is_bytewise_internal`]) uses it; other comparators search the plain way.

use std::cmp::Ordering;
use std::ops::Deref;
use std::sync::Arc;

use super::filter::{FilterMeta, FilterView};
use crate::cache::{Cache, CacheHandle};
use crate::comparator::EntryOrder;
use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use crate::types::TRAILER_LEN;
use crate::util::coding::{decode_fixed32, Decoder};
use crate::util::prefetch::prefetch_region;

/// What a block holds; decides how its contents are parsed and names it in errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// Key/value entries of the table (internal keys).
    Data,
    /// Separators (internal keys) to data-block handles.
    Index,
    /// The Bloom filter.
    Filter,
    /// Table properties (names to values, bytewise).
    Properties,
    /// Meta-block names to handles (bytewise).
    Metaindex,
    /// Range tombstones: `(begin, seq, RangeDelete)` internal keys to end user keys.
    RangeDeletion,
}

impl BlockKind {
    /// The name used in error messages ("data block", ...).
    pub fn name(self) -> &'static str {
        match self {
            BlockKind::Data => "data block",
            BlockKind::Index => "index block",
            BlockKind::Filter => "filter block",
            BlockKind::Properties => "properties block",
            BlockKind::Metaindex => "metaindex block",
            BlockKind::RangeDeletion => "range-deletion block",
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Layout {
    /// Entries end where the restart array starts.
    Entries {
        restarts_at: u32,
        num_restarts: u32,
    },
    Filter(FilterMeta),
}

/// A checksum-verified, uncompressed block with its parsed structure; the value type of the block
/// cache.
#[derive(Debug)]
pub struct Block {
    contents: Box<[u8]>,
    kind: BlockKind,
    layout: Layout,
    /// Index blocks only (module invariant 4).
    prefixes: Option<RestartPrefixes>,
}

/// The dense summary of an index block's restart keys (module invariant 4).
#[derive(Debug)]
struct RestartPrefixes {
    /// The bytes that begin the user key of every restart entry (the common prefix of the first
    /// and the last, which the sorted ones in between share).
    common: Box<[u8]>,
    /// For restart `i`: [`prefix_after`] its user key and `common.len()`.
    prefixes: Box<[u64]>,
    /// Every [`SAMPLE_STRIDE`]-th entry of `prefixes`: a seek binary-searches this small array
    /// (it stays in the CPU cache between seeks), then scans one stride of `prefixes`, so a
    /// seek misses the cache about once in the summary instead of at every deep probe.
    samples: Box<[u64]>,
}

/// Restarts per sample of [`RestartPrefixes::samples`]: one 64-byte cache line of `u64`s.
const SAMPLE_STRIDE: usize = 8;

/// Most cache lines a seek prefetches of the restart interval it scans (2 KiB: a default
/// interval of 16 entries of about 128 bytes).
const PREFETCH_LINES: usize = 32;

/// The 8 bytes of `user_key` after its first `skip`, zero-padded, as a big-endian number: for
/// keys that share their first `skip` bytes, `a < b` implies `prefix_after(a) <=
/// prefix_after(b)`.
#[inline]
fn prefix_after(user_key: &[u8], skip: usize) -> u64 {
    let rest = user_key.get(skip..).unwrap_or_default();
    let mut b = [0u8; 8];
    let n = rest.len().min(8);
    b[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(b)
}

impl RestartPrefixes {
    /// Builds the summary of the entries block `c` (internal keys) with `num` restarts whose
    /// array starts at `restarts_at`; `None` if a restart entry is malformed or holds a key too
    /// short to be an internal key, or the block is empty.
    fn build(c: &[u8], restarts_at: usize, num: usize) -> Option<RestartPrefixes> {
        let key_at = |i: usize| -> Option<&[u8]> {
            let at = decode_fixed32(c.get(restarts_at + 4 * i..restarts_at + 4 * i + 4)?) as usize;
            let region = c.get(at..restarts_at)?;
            let h = EntryHeader::decode(region)?;
            let key = region.get(h.header_len..h.header_len + h.unshared)?;
            (h.shared == 0 && key.len() >= TRAILER_LEN).then(|| &key[..key.len() - TRAILER_LEN])
        };
        if restarts_at == 0 {
            return None;
        }
        let (first, last) = (key_at(0)?, key_at(num - 1)?);
        let common_len = first.iter().zip(last).take_while(|(a, b)| a == b).count();
        let mut prefixes = Vec::with_capacity(num);
        for i in 0..num {
            let k = key_at(i)?;
            // A damaged but checksum-valid block could break the common prefix; then the
            // summary would not be monotone, so there is none.
            if k.get(..common_len) != Some(&first[..common_len]) {
                return None;
            }
            prefixes.push(prefix_after(k, common_len));
        }
        let samples = prefixes.iter().step_by(SAMPLE_STRIDE).copied().collect();
        Some(RestartPrefixes {
            common: first[..common_len].into(),
            prefixes: prefixes.into_boxed_slice(),
            samples,
        })
    }

    /// The range `(left, right)` of restarts that can be the last one whose key is < `target`
    /// (an internal key), or restart 0 when none is: every restart before `left` has a smaller
    /// key, every one after `right` a larger one. `None` when `target` is too short to be an
    /// internal key.
    fn narrow(&self, target: &[u8]) -> Option<(usize, usize)> {
        let t = target.get(..target.len().checked_sub(TRAILER_LEN)?)?;
        let last = self.prefixes.len() - 1;
        let head = &t[..t.len().min(self.common.len())];
        match head.cmp(&self.common) {
            // Every restart's user key begins with `common`: all sort after the target's.
            Ordering::Less => return Some((0, 0)),
            Ordering::Greater => return Some((last, last)),
            Ordering::Equal => {}
        }
        let p = prefix_after(t, self.common.len());
        // The first restart whose prefix is >= p: after every sample below p, at or before the
        // first sample that is not.
        let j = self.samples.partition_point(|&x| x < p);
        let end = (j * SAMPLE_STRIDE).min(self.prefixes.len());
        let start = (j * SAMPLE_STRIDE)
            .saturating_sub(SAMPLE_STRIDE - 1)
            .min(end);
        let lo = start + self.prefixes[start..end].partition_point(|&x| x < p);
        // The run of restarts whose prefix equals p, by binary search: the prefixes are sorted,
        // and when the common part is short (a last separator shortened to one byte, say) the
        // run can be most of the block, which a linear count would walk on every seek.
        let hi = lo + self.prefixes[lo..].partition_point(|&x| x == p);
        let left = lo.saturating_sub(1);
        Some((left, hi.saturating_sub(1).max(left)))
    }

    fn charge(&self) -> usize {
        let words = self.prefixes.len() + self.samples.len();
        self.common.len() + 8 * words + std::mem::size_of::<RestartPrefixes>()
    }
}

impl Block {
    /// Parses uncompressed `contents` as a block of `kind`.
    ///
    /// # Errors
    /// [`Error::Corruption`] (anonymous: file "", offset inside the block) when the restart array
    /// or the filter layout is malformed.
    pub fn parse(contents: Vec<u8>, kind: BlockKind) -> Result<Block> {
        let layout = match kind {
            BlockKind::Filter => Layout::Filter(FilterMeta::parse(&contents)?),
            _ => entries_layout(&contents)?,
        };
        let prefixes = match (kind, layout) {
            (
                BlockKind::Index,
                Layout::Entries {
                    restarts_at,
                    num_restarts,
                },
            ) => RestartPrefixes::build(&contents, restarts_at as usize, num_restarts as usize),
            _ => None,
        };
        Ok(Block {
            contents: contents.into_boxed_slice(),
            kind,
            layout,
            prefixes,
        })
    }

    /// The uncompressed contents.
    pub fn contents(&self) -> &[u8] {
        &self.contents
    }

    /// What the block holds.
    pub fn kind(&self) -> BlockKind {
        self.kind
    }

    /// Bytes of memory this block holds, its charge in the block cache.
    pub fn charge(&self) -> usize {
        let prefixes = self.prefixes.as_ref().map_or(0, RestartPrefixes::charge);
        self.contents.len() + prefixes + std::mem::size_of::<Block>()
    }

    /// The filter view of a filter block; `None` for other kinds.
    pub fn filter(&self) -> Option<FilterView<'_>> {
        match self.layout {
            Layout::Filter(meta) => Some(FilterView::new(meta, &self.contents)),
            Layout::Entries { .. } => None,
        }
    }

    /// Fixed32 at `at`; 0 if out of range (impossible for validated restart arrays).
    fn fixed32_at(&self, at: usize) -> usize {
        self.contents
            .get(at..at + 4)
            .map_or(0, |b| decode_fixed32(b) as usize)
    }
}

/// Checks the restart array (module invariant 1) and returns where it starts.
fn entries_layout(c: &[u8]) -> Result<Layout> {
    let bad = |at: usize, msg: &str| Err(Error::corruption("", at as u64, msg.to_string()));
    if c.len() < 4 {
        return bad(0, "block shorter than its restart count");
    }
    let num = decode_fixed32(&c[c.len() - 4..]) as usize;
    let restarts_at = num
        .checked_mul(4)
        .and_then(|a| (c.len() - 4).checked_sub(a));
    let Some(restarts_at) = restarts_at.filter(|_| num >= 1) else {
        return bad(c.len() - 4, "bad restart count");
    };
    let mut prev = None;
    for i in 0..num {
        let at = restarts_at + 4 * i;
        let r = decode_fixed32(&c[at..at + 4]) as usize;
        let ordered = match prev {
            None => r == 0,
            Some(p) => r > p,
        };
        if !ordered || (r >= restarts_at && restarts_at > 0) {
            return bad(at, "restart offset out of order or out of range");
        }
        prev = Some(r);
    }
    Ok(Layout::Entries {
        restarts_at: restarts_at as u32,
        num_restarts: num as u32,
    })
}

/// The block cache of tables: checksum-verified, uncompressed, parsed blocks of every kind, keyed
/// by (table file id, block offset) and charged [`Block::charge`] bytes.
pub type BlockCache = Cache<Block>;

/// A shared reference to a block: owned by the table (no cache) or pinned in the block cache.
#[derive(Debug, Clone)]
pub enum BlockRef {
    /// A block held outside any cache.
    Owned(Arc<Block>),
    /// A block pinned in the block cache for as long as this reference lives.
    Cached(CacheHandle<Block>),
}

impl Deref for BlockRef {
    type Target = Block;

    fn deref(&self) -> &Block {
        match self {
            BlockRef::Owned(b) => b,
            BlockRef::Cached(h) => h,
        }
    }
}

impl From<Block> for BlockRef {
    fn from(b: Block) -> Self {
        BlockRef::Owned(Arc::new(b))
    }
}

/// The header of one entry: lengths and where its key delta starts.
struct EntryHeader {
    shared: usize,
    unshared: usize,
    value_len: usize,
    header_len: usize,
}

impl EntryHeader {
    /// Decodes a header from the front of `region`; `None` if it or its entry does not fit.
    #[inline]
    fn decode(region: &[u8]) -> Option<EntryHeader> {
        // Fast path (LevelDB's): all three lengths below 128 take one byte each, which is every
        // entry with a key suffix and value under 128 bytes.
        if let [a, b, c, ..] = *region {
            if (a | b | c) < 0x80 {
                let (shared, unshared, value_len) = (a as usize, b as usize, c as usize);
                return (3 + unshared + value_len <= region.len()).then_some(EntryHeader {
                    shared,
                    unshared,
                    value_len,
                    header_len: 3,
                });
            }
        }
        let mut d = Decoder::new(region);
        let shared = d.varint32()? as usize;
        let unshared = d.varint32()? as usize;
        let value_len = d.varint32()? as usize;
        let header_len = d.position();
        let end = header_len.checked_add(unshared)?.checked_add(value_len)?;
        (end <= region.len()).then_some(EntryHeader {
            shared,
            unshared,
            value_len,
            header_len,
        })
    }

    fn len(&self) -> usize {
        self.header_len + self.unshared + self.value_len
    }
}

/// A bidirectional iterator over an entries block, implementing the [`InternalIterator`] contract
/// for the block's comparator. Errors carry file "" and the offset inside the block; the table
/// reader relocates them to the file.
#[derive(Debug)]
pub struct BlockIter {
    block: BlockRef,
    cmp: EntryOrder,
    /// End of the entry area (start of the restart array).
    restarts_at: usize,
    num_restarts: usize,
    /// Offset of the current entry; `restarts_at` when not positioned.
    current: usize,
    /// Offset just past the current entry.
    next: usize,
    /// The restart segment containing `current`.
    restart_index: usize,
    key: Vec<u8>,
    value: (usize, usize),
    err: Option<Error>,
}

impl BlockIter {
    /// An unpositioned iterator over `block`, ordered by `cmp`. An index block's restart
    /// summary narrows seeks only when `cmp` is internal keys in bytewise order (module
    /// invariant 4); in any other order the block is searched without it.
    ///
    /// # Errors
    /// [`Error::Corruption`] if `block` is a filter block.
    pub fn new(block: BlockRef, cmp: EntryOrder) -> Result<BlockIter> {
        let Layout::Entries {
            restarts_at,
            num_restarts,
        } = block.layout
        else {
            return Err(Error::corruption(
                "",
                0,
                "expected an entries block, found a filter block",
            ));
        };
        let restarts_at = restarts_at as usize;
        Ok(BlockIter {
            block,
            cmp,
            restarts_at,
            num_restarts: num_restarts as usize,
            current: restarts_at,
            next: restarts_at,
            restart_index: 0,
            key: Vec::new(),
            value: (0, 0),
            err: None,
        })
    }

    /// The block being iterated.
    pub fn block(&self) -> &BlockRef {
        &self.block
    }

    /// Takes the error that stopped the iterator, leaving it unpositioned without error.
    pub fn take_error(&mut self) -> Option<Error> {
        self.err.take()
    }

    /// Offset inside the block of the current entry (for error messages). Requires `valid()`.
    pub(crate) fn entry_offset(&self) -> usize {
        self.current
    }

    /// Where the current entry's value lies in [`Block::contents`]. Requires `valid()`.
    pub(crate) fn value_range(&self) -> std::ops::Range<usize> {
        self.value.0..self.value.1
    }

    /// Moves the current (decoded) key out and leaves the iterator unpositioned, for a caller that
    /// keeps the key and repositions (or drops) the iterator. Requires `valid()`.
    pub(crate) fn take_key(&mut self) -> Vec<u8> {
        let key = std::mem::take(&mut self.key);
        self.invalidate();
        key
    }

    fn restart_point(&self, i: usize) -> usize {
        self.block.fixed32_at(self.restarts_at + 4 * i)
    }

    fn invalidate(&mut self) {
        self.current = self.restarts_at;
        self.next = self.restarts_at;
        self.key.clear();
    }

    fn corrupt(&mut self, at: usize, msg: &str) {
        self.err = Some(Error::corruption(
            "",
            at as u64,
            format!("block entry: {msg}"),
        ));
        self.invalidate();
    }

    /// Starts loading the entries of restart interval `i` (up to [`PREFETCH_LINES`] cache lines)
    /// all at once: a seek scans them in order, and each entry's header says where the next one
    /// starts, so without the hint every line would be a cache miss waited for in turn.
    fn prefetch_interval(&self, i: usize) {
        let from = self.restart_point(i);
        let to = if i + 1 < self.num_restarts {
            self.restart_point(i + 1)
        } else {
            self.restarts_at
        };
        if let Some(region) = self.block.contents().get(from..to) {
            prefetch_region(region, PREFETCH_LINES);
        }
    }

    fn seek_to_restart(&mut self, i: usize) {
        self.key.clear();
        self.restart_index = i;
        self.next = self.restart_point(i);
    }

    /// Decodes the entry at `self.next`. False at the end of the entries or on damage.
    fn parse_next(&mut self) -> bool {
        let at = self.next;
        if at >= self.restarts_at {
            self.invalidate();
            return false;
        }
        let region = self
            .block
            .contents()
            .get(at..self.restarts_at)
            .unwrap_or_default();
        let Some(h) = EntryHeader::decode(region) else {
            self.corrupt(at, "entry runs past the end of the entries");
            return false;
        };
        while self.restart_index + 1 < self.num_restarts
            && self.restart_point(self.restart_index + 1) <= at
        {
            self.restart_index += 1;
        }
        let at_restart = self.restart_point(self.restart_index) == at;
        if h.shared > self.key.len() || (at_restart && h.shared != 0) {
            self.corrupt(at, "shared prefix longer than the previous key");
            return false;
        }
        let delta_at = at + h.header_len;
        let delta = self
            .block
            .contents()
            .get(delta_at..delta_at + h.unshared)
            .unwrap_or_default();
        self.key.truncate(h.shared);
        self.key.extend_from_slice(delta);
        self.current = at;
        self.value = (delta_at + h.unshared, delta_at + h.unshared + h.value_len);
        self.next = at + h.len();
        true
    }

    /// The whole key stored at restart `i`; `None` if the entry there is malformed.
    fn restart_key(&self, i: usize) -> Option<&[u8]> {
        let at = self.restart_point(i);
        let region = self.block.contents().get(at..self.restarts_at)?;
        let h = EntryHeader::decode(region)?;
        if h.shared != 0 {
            return None;
        }
        region.get(h.header_len..h.header_len + h.unshared)
    }

    /// The last restart whose key is < `target` (0 if none), by binary search, first over the
    /// restart summary when the block has one (module invariant 4).
    fn find_restart_before(&mut self, target: &[u8]) -> Option<usize> {
        let narrowed = match &self.block.prefixes {
            Some(p) if self.cmp.is_bytewise_internal() => p.narrow(target),
            _ => None,
        };
        let (mut left, mut right) = narrowed.unwrap_or((0, self.num_restarts - 1));
        while left < right {
            let mid = left + (right - left).div_ceil(2);
            let Some(k) = self.restart_key(mid) else {
                let at = self.restart_point(mid);
                self.corrupt(at, "malformed restart entry");
                return None;
            };
            if self.cmp.compare(k, target) == Ordering::Less {
                left = mid;
            } else {
                right = mid - 1;
            }
        }
        Some(left)
    }
}

impl InternalIterator for BlockIter {
    fn valid(&self) -> bool {
        self.err.is_none() && self.current < self.restarts_at
    }

    fn seek_to_first(&mut self) {
        self.err = None;
        self.seek_to_restart(0);
        self.parse_next();
    }

    fn seek_to_last(&mut self) {
        self.err = None;
        self.seek_to_restart(self.num_restarts - 1);
        if !self.parse_next() {
            return;
        }
        while self.next < self.restarts_at {
            if !self.parse_next() {
                return;
            }
        }
    }

    fn seek(&mut self, target: &[u8]) {
        self.err = None;
        let Some(start) = self.find_restart_before(target) else {
            return;
        };
        self.seek_to_restart(start);
        self.prefetch_interval(start);
        while self.parse_next() {
            if self.cmp.compare(&self.key, target) != Ordering::Less {
                return;
            }
        }
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        self.seek(target);
        if self.err.is_some() {
            return;
        }
        if !self.valid() {
            self.seek_to_last();
            return;
        }
        // Keys are unique within a block, so this steps back at most once in a valid block.
        while self.valid() && self.cmp.compare(&self.key, target) == Ordering::Greater {
            self.prev();
        }
    }

    fn next(&mut self) {
        debug_assert!(self.valid(), "next() on an unpositioned block iterator");
        if self.valid() {
            self.parse_next();
        }
    }

    fn prev(&mut self) {
        debug_assert!(self.valid(), "prev() on an unpositioned block iterator");
        if !self.valid() {
            return;
        }
        let original = self.current;
        // Back up to the last restart point strictly before the current entry, then scan forward.
        while self.restart_point(self.restart_index) >= original {
            if self.restart_index == 0 {
                self.invalidate();
                return;
            }
            self.restart_index -= 1;
        }
        self.seek_to_restart(self.restart_index);
        loop {
            if !self.parse_next() {
                if self.err.is_none() {
                    self.corrupt(original, "entries do not line up with restart points");
                }
                return;
            }
            if self.next >= original {
                break;
            }
        }
        if self.next != original {
            self.corrupt(original, "entries do not line up with restart points");
        }
    }

    fn key(&self) -> &[u8] {
        &self.key
    }

    fn value(&self) -> &[u8] {
        self.block
            .contents()
            .get(self.value.0..self.value.1)
            .unwrap_or_default()
    }

    fn status(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests;
