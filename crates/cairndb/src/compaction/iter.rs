//! The compaction iterator: reads the merged entries of a compaction's inputs and yields the
//! entries its outputs must keep, dropping what no reader can see any more. RocksDB's
//! `CompactionIterator` and `MergeHelper::MergeUntil`, reduced to the cases CairnDB has (no
//! transactions, timestamps or blobs). Design notes: `docs/design/compaction.md`, section
//! "Merging and outputs".
//!
//! Who calls it: one compaction job on one thread. It owns its input (any [`InternalIterator`]
//! over point entries in internal-key order, usually a [`MergingIterator`](crate::iter::MergingIterator)
//! of the input tables) and the [`RangeDelSet`] of every input's range tombstones. It is
//! forward-only: `seek_to_first`, then `next` until `valid` is false, then `status`.
//!
//! Snapshot stripes. The live snapshots `s_0 < s_1 < ... < s_{n-1}` cut the sequence numbers
//! into stripes: stripe `i` holds `(s_{i-1}, s_i]` (stripe 0 starts at 0), and stripe `n` (the
//! *tip*) holds everything newer than every snapshot. A reader at any snapshot (or at the tip)
//! sees, of the entries of one user key that lie in one stripe, at most the newest; so per user
//! key and stripe only the newest entry needs to survive, with these refinements:
//!
//! 1. An entry covered by a range tombstone of the same stripe (a tombstone newer than it, and
//!    visible at the stripe's snapshot) is dropped, and so is everything older in that stripe.
//! 2. Merge operands at the top of a stripe are folded: into the `Put` below them in the stripe
//!    (`full_merge` with the value), into a `Delete`, `SingleDelete` or range-deleted entry
//!    (`full_merge` with no value), or, at the bottommost level, into the end of the key's
//!    history (no value). The result is a `Put` at the newest operand's sequence number. When
//!    the stripe ends first, the operands are combined with `partial_merge` if the operator can,
//!    else kept as they are. A failed `full_merge` is [`Error::Corruption`]; nothing is written.
//! 3. At the bottommost level a `Delete` of stripe 0 (no snapshot is older) hides nothing when
//!    the key has no older entry: it is dropped (with its stripe), else kept. A `Delete` newer
//!    than a snapshot is kept even then, although no read at any snapshot would miss it: a
//!    transaction holding that snapshot checks the key's newest sequence number for a write
//!    conflict (`db/conflict.rs`), and the deletion is such a write. (RocksDB drops it whatever
//!    its stripe, and its transactions then miss that conflict.)
//! 4. A `SingleDelete` looks at the next entry of its key. In the same stripe: a `Put` (or, a
//!    contract violation, a `Merge`) is dropped together with it; another `SingleDelete` or a
//!    `Delete` makes the first `SingleDelete` redundant, and it is dropped while the next entry
//!    is decided on its own. In an older stripe it is kept. With no older entry it is dropped at
//!    the bottommost level and kept elsewhere. A `SingleDelete` below a newer entry of its stripe
//!    is *not* dropped as hidden (except at the bottommost level in stripe 0): the newer entry
//!    may itself be a `Put` that a later `SingleDelete` cancels, and this one must then still
//!    hide what lies below (RocksDB's reasoning; see the design notes).
//! 5. The [`CompactionFilter`] sees the newest entry of each user key in the input when it is a
//!    `Put` (or a merge run folded into a `Put`), whatever snapshots exist: RocksDB's semantics
//!    since `IgnoreSnapshots` became always true (`CompactionIterator::InvokeFilterIfNeeded` runs
//!    on the first committed version of a user key only). So a value visible to a snapshot may
//!    be removed or changed under it; older versions are never filtered. `Remove` turns the
//!    entry into a `Delete` at the same sequence number (so older versions of its stripe stay
//!    hidden; older stripes stay for their snapshots), `ChangeValue` replaces the value.
//! 6. With `zero_sequence_numbers`, at the bottommost level a kept `Put` of stripe 0 gets sequence
//!    number 0 (it is visible to every snapshot and nothing older exists), which compresses
//!    better. Safe because range tombstones of stripe 0 are dropped at the bottommost level too
//!    ([`range_deletions_to_keep`]): no kept tombstone is older than a zeroed entry.
//!
//! Invariants:
//! 1. Output keys are strictly increasing in internal-key order, and all output entries of one
//!    user key are consecutive.
//! 2. For every live snapshot and for the tip, reading the outputs plus the kept range tombstones
//!    (plus, when not bottommost, the levels below) gives what reading the inputs gave. The tests
//!    check this against a model.
//! 3. An error (input, corruption, merge failure) makes the iterator invalid; `status` returns it.
//!
//! Memory: one entry (key and value) is copied at a time, plus the operands of one merge run.

use std::collections::VecDeque;
use std::fmt;
use std::sync::Arc;

use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::iter::{InternalIterator, RangeDelSet};
use crate::merge::MergeOperator;
use crate::types::{
    append_internal_key, ParsedKey, RangeTombstone, SequenceNumber, ValueKind, MAX_SEQUENCE,
};

/// What a [`CompactionFilter`] decides for one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterDecision {
    /// Keep the value.
    Keep,
    /// Remove it: the entry becomes a deletion at the same sequence number.
    Remove,
    /// Replace the value with this one.
    ChangeValue(Vec<u8>),
}

/// A user hook that drops or rewrites values during compaction (RocksDB's `CompactionFilter`,
/// `Filter` only). Called from compaction threads, concurrently: implementations are
/// `Send + Sync`. It sees the newest version of each key in a compaction (module rule 5), even
/// one an open snapshot reads: as in RocksDB, snapshots do not protect values from the filter.
pub trait CompactionFilter: Send + Sync {
    /// A name for logs and statistics.
    fn name(&self) -> &str;

    /// Decides about `value` of user key `key`. `level` is the compaction's input level
    /// (the output level of the compaction). `value` is a stored `Put` value or a merge result.
    fn filter(&self, level: usize, key: &[u8], value: &[u8]) -> FilterDecision;
}

impl fmt::Debug for dyn CompactionFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactionFilter")
            .field("name", &self.name())
            .finish()
    }
}

/// How a [`CompactionIterator`] decides what to keep.
#[derive(Clone, Default)]
pub struct CompactionIterOptions {
    /// The live snapshots' sequence numbers, in any order (duplicates allowed).
    pub snapshots: Vec<SequenceNumber>,
    /// True when no level below the output holds data for the compacted key range: deletions
    /// and range tombstones that no snapshot needs can go, and merges can fold into nothing.
    pub bottommost: bool,
    /// The column family's merge operator. A `Merge` entry without one is an error.
    pub merge_operator: Option<Arc<dyn MergeOperator>>,
    /// The compaction filter, if any.
    pub compaction_filter: Option<Arc<dyn CompactionFilter>>,
    /// The compaction's input level, passed to the filter.
    pub level: usize,
    /// Give kept `Put`s of stripe 0 sequence number 0 at the bottommost level (module rule 6).
    pub zero_sequence_numbers: bool,
}

impl fmt::Debug for CompactionIterOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactionIterOptions")
            .field("snapshots", &self.snapshots.len())
            .field("bottommost", &self.bottommost)
            .field("merge_operator", &self.merge_operator)
            .field("compaction_filter", &self.compaction_filter)
            .field("level", &self.level)
            .field("zero_sequence_numbers", &self.zero_sequence_numbers)
            .finish()
    }
}

/// What the compaction iterator did, by reason. Dropped counts are input entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompactionIterStats {
    /// Entries read from the input.
    pub keys_in: u64,
    /// Entries yielded.
    pub keys_out: u64,
    /// Hidden by a newer value (or merge result) of the same key in the same stripe.
    pub dropped_hidden: u64,
    /// Hidden by a newer `Delete` or `SingleDelete` of the same key in the same stripe.
    pub dropped_deleted: u64,
    /// `Delete` and `SingleDelete` markers dropped at the bottommost level (nothing left to hide).
    pub dropped_tombstone_at_bottom: u64,
    /// `SingleDelete`s and the values they met, dropped together (or redundant ones).
    pub dropped_single_delete: u64,
    /// Values the compaction filter removed (each then became a deletion).
    pub dropped_filter: u64,
    /// Covered by a range tombstone of the same stripe.
    pub dropped_range_deletion: u64,
    /// Values the compaction filter changed.
    pub filter_changed: u64,
    /// Merge operands folded by `full_merge` or `partial_merge`.
    pub merge_operands_folded: u64,
    /// Bases (`Put`, `Delete`, `SingleDelete`) consumed by a `full_merge`.
    pub merge_bases_consumed: u64,
    /// Kept `Put`s whose sequence number was zeroed.
    pub seqnos_zeroed: u64,
}

impl CompactionIterStats {
    /// Every dropped input entry, whatever the reason.
    pub fn dropped(&self) -> u64 {
        self.dropped_hidden
            + self.dropped_deleted
            + self.dropped_tombstone_at_bottom
            + self.dropped_single_delete
            + self.dropped_range_deletion
    }

    /// Adds `other` into `self` (for subcompactions or a report over several jobs).
    pub fn add(&mut self, other: &CompactionIterStats) {
        self.keys_in += other.keys_in;
        self.keys_out += other.keys_out;
        self.dropped_hidden += other.dropped_hidden;
        self.dropped_deleted += other.dropped_deleted;
        self.dropped_tombstone_at_bottom += other.dropped_tombstone_at_bottom;
        self.dropped_single_delete += other.dropped_single_delete;
        self.dropped_filter += other.dropped_filter;
        self.dropped_range_deletion += other.dropped_range_deletion;
        self.filter_changed += other.filter_changed;
        self.merge_operands_folded += other.merge_operands_folded;
        self.merge_bases_consumed += other.merge_bases_consumed;
        self.seqnos_zeroed += other.seqnos_zeroed;
    }
}

/// Sorted, unique snapshots and the stripes they define (module doc).
#[derive(Debug, Clone, Default)]
struct Stripes {
    snapshots: Vec<SequenceNumber>,
}

impl Stripes {
    fn new(snapshots: &[SequenceNumber]) -> Self {
        let mut snapshots = snapshots.to_vec();
        snapshots.sort_unstable();
        snapshots.dedup();
        Stripes { snapshots }
    }

    /// The stripe of `seq`: the index of the earliest snapshot that sees it, or the number of
    /// snapshots (the tip) when none does.
    fn of(&self, seq: SequenceNumber) -> usize {
        self.snapshots.partition_point(|&s| s < seq)
    }

    /// The newest sequence number a reader of stripe `stripe` sees.
    fn top(&self, stripe: usize) -> SequenceNumber {
        self.snapshots.get(stripe).copied().unwrap_or(MAX_SEQUENCE)
    }
}

/// The range tombstones a compaction's outputs must carry: all of `tombstones` except, at the
/// bottommost level, those of stripe 0 (visible to every snapshot; every entry they cover lies in
/// stripe 0 too and is dropped by the iterator, and nothing lies below). Returns the kept
/// tombstones (in the given order, empty ranges left out) and the number dropped.
pub fn range_deletions_to_keep(
    tombstones: &[RangeTombstone],
    options: &CompactionIterOptions,
    order: &KeyOrder,
) -> (Vec<RangeTombstone>, u64) {
    let stripes = Stripes::new(&options.snapshots);
    let mut kept = Vec::with_capacity(tombstones.len());
    let mut dropped = 0;
    for t in tombstones {
        let empty = order.compare(&t.begin, &t.end).is_ge();
        if empty || (options.bottommost && stripes.of(t.seq) == 0) {
            dropped += 1;
        } else {
            kept.push(t.clone());
        }
    }
    (kept, dropped)
}

/// What decided the current stripe of the current user key (so older entries of the stripe are
/// counted under the right reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DecidedBy {
    Value,
    Deletion,
    RangeDeletion,
}

/// The input's current entry, relative to the current user key.
#[derive(Debug, Clone, Copy)]
struct Peek {
    same_key: bool,
    seq: SequenceNumber,
    kind: ValueKind,
}

/// Yields the entries a compaction keeps. See the module contract.
pub struct CompactionIterator<I: InternalIterator> {
    input: I,
    range_dels: RangeDelSet,
    stripes: Stripes,
    options: CompactionIterOptions,
    /// The user key of the entries being decided.
    user_key: Vec<u8>,
    has_user_key: bool,
    /// The stripe of the current user key whose newest entry was already decided, and how.
    decided: Option<(usize, DecidedBy)>,
    /// The current output entry.
    key: Vec<u8>,
    value: Vec<u8>,
    valid: bool,
    /// The entry being decided is the first of its user key in the input (the only one the
    /// compaction filter sees, rule 5).
    newest_of_key: bool,
    /// Further outputs already decided (kept merge operands).
    pending: VecDeque<(Vec<u8>, Vec<u8>)>,
    /// Merge operands of the current run, newest first.
    operands: Vec<(SequenceNumber, Vec<u8>)>,
    err: Option<Error>,
    stats: CompactionIterStats,
}

impl<I: InternalIterator> fmt::Debug for CompactionIterator<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactionIterator")
            .field("options", &self.options)
            .field("range_dels", &self.range_dels)
            .field("valid", &self.valid)
            .field("err", &self.err)
            .field("stats", &self.stats)
            .finish()
    }
}

impl<I: InternalIterator> CompactionIterator<I> {
    /// A compaction iterator over `input` (point entries in internal-key order, range deletions
    /// excluded) whose inputs' range tombstones are `range_dels`. Unpositioned.
    pub fn new(input: I, range_dels: RangeDelSet, options: CompactionIterOptions) -> Self {
        CompactionIterator {
            input,
            range_dels,
            stripes: Stripes::new(&options.snapshots),
            options,
            user_key: Vec::new(),
            has_user_key: false,
            decided: None,
            key: Vec::new(),
            value: Vec::new(),
            valid: false,
            newest_of_key: false,
            pending: VecDeque::new(),
            operands: Vec::new(),
            err: None,
            stats: CompactionIterStats::default(),
        }
    }

    /// Positions at the first kept entry (restarting from the input's first entry).
    pub fn seek_to_first(&mut self) {
        self.err = None;
        self.has_user_key = false;
        self.decided = None;
        self.pending.clear();
        self.input.seek_to_first();
        self.advance();
    }

    /// True when positioned at a kept entry.
    pub fn valid(&self) -> bool {
        self.valid
    }

    /// Moves to the next kept entry. Requires `valid()`.
    ///
    /// # Panics
    /// If the iterator is not valid.
    pub fn next(&mut self) {
        assert!(
            self.valid,
            "CompactionIterator::next on an invalid iterator"
        );
        self.advance();
    }

    /// The current entry's internal key. Requires `valid()`.
    pub fn key(&self) -> &[u8] {
        debug_assert!(self.valid);
        &self.key
    }

    /// The current entry's value. Requires `valid()`.
    pub fn value(&self) -> &[u8] {
        debug_assert!(self.valid);
        &self.value
    }

    /// The error that stopped the iterator, if any.
    ///
    /// # Errors
    /// The input's error; [`Error::Corruption`] for a malformed key, a range deletion among the
    /// point entries or a failed merge; [`Error::InvalidArgument`] for a merge operand without a
    /// merge operator.
    pub fn status(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// What the iterator did so far.
    pub fn stats(&self) -> &CompactionIterStats {
        &self.stats
    }

    /// The input iterator (e.g. to read its own counters).
    pub fn input(&self) -> &I {
        &self.input
    }

    fn advance(&mut self) {
        self.valid = false;
        if self.err.is_some() {
            return;
        }
        match self.produce() {
            Ok(found) => self.valid = found,
            Err(e) => self.err = Some(e),
        }
        if self.valid {
            self.stats.keys_out += 1;
        }
    }

    /// Decides input entries until one output entry is in `key`/`value`; false at the end.
    fn produce(&mut self) -> Result<bool> {
        if let Some((k, v)) = self.pending.pop_front() {
            self.key = k;
            self.value = v;
            return Ok(true);
        }
        loop {
            let Some(head) = self.peek()? else {
                return Ok(false);
            };
            if !head.same_key {
                self.start_user_key();
            }
            self.newest_of_key = !head.same_key;
            let stripe = self.stripes.of(head.seq);
            if let Some((d, by)) = self.decided {
                // Rule 4: a SingleDelete is not dropped as hidden, except where nothing can
                // resurface (bottommost, stripe 0).
                let bottom_zero = self.options.bottommost && stripe == 0;
                if d == stripe && (head.kind != ValueKind::SingleDelete || bottom_zero) {
                    self.drop_hidden(by);
                    continue;
                }
            }
            if self.covered(head.seq, stripe) {
                self.decided = Some((stripe, DecidedBy::RangeDeletion));
                self.stats.dropped_range_deletion += 1;
                self.consume();
                continue;
            }
            let emitted = match head.kind {
                ValueKind::Put => {
                    self.value.clear();
                    self.value.extend_from_slice(self.input.value());
                    self.consume();
                    self.decided = Some((stripe, DecidedBy::Value));
                    self.emit_value(head.seq, stripe)?
                }
                ValueKind::Delete => {
                    self.consume();
                    self.decided = Some((stripe, DecidedBy::Deletion));
                    self.emit_deletion(head.seq, stripe, ValueKind::Delete)?
                }
                ValueKind::SingleDelete => self.single_delete(head.seq, stripe)?,
                ValueKind::Merge => self.merge(head.seq, stripe)?,
                ValueKind::RangeDelete => return Err(range_delete_among_points()),
            };
            if emitted {
                return Ok(true);
            }
        }
    }

    /// Parses the input's current entry; `None` at the end of the input.
    fn peek(&self) -> Result<Option<Peek>> {
        if !self.input.valid() {
            self.input.status()?;
            return Ok(None);
        }
        let p = ParsedKey::parse(self.input.key())?;
        Ok(Some(Peek {
            same_key: self.has_user_key && p.user_key == self.user_key.as_slice(),
            seq: p.seq,
            kind: p.kind,
        }))
    }

    /// Makes the input's current entry's user key the current one.
    fn start_user_key(&mut self) {
        let uk = crate::types::user_key(self.input.key());
        self.user_key.clear();
        self.user_key.extend_from_slice(uk);
        self.has_user_key = true;
        self.decided = None;
    }

    /// Steps past the input's current entry, counting it.
    fn consume(&mut self) {
        self.stats.keys_in += 1;
        self.input.next();
    }

    fn drop_hidden(&mut self, by: DecidedBy) {
        match by {
            DecidedBy::Value => self.stats.dropped_hidden += 1,
            DecidedBy::Deletion => self.stats.dropped_deleted += 1,
            DecidedBy::RangeDeletion => self.stats.dropped_range_deletion += 1,
        }
        self.consume();
    }

    /// True when a range tombstone of `stripe` covers the current user key at `seq`.
    fn covered(&self, seq: SequenceNumber, stripe: usize) -> bool {
        self.range_dels
            .max_covering_seq(&self.user_key, self.stripes.top(stripe))
            .is_some_and(|t| t > seq)
    }

    fn set_output(&mut self, seq: SequenceNumber, kind: ValueKind) {
        self.key.clear();
        append_internal_key(&mut self.key, &self.user_key, seq, kind as u8);
    }

    /// Outputs the value in `self.value` as a `Put` at `seq` after the filter (rule 5) and
    /// sequence zeroing (rule 6). False when the filter turned it into a deletion that was
    /// dropped.
    fn emit_value(&mut self, seq: SequenceNumber, stripe: usize) -> Result<bool> {
        if self.newest_of_key {
            if let Some(filter) = &self.options.compaction_filter {
                match filter.filter(self.options.level, &self.user_key, &self.value) {
                    FilterDecision::Keep => {}
                    FilterDecision::ChangeValue(v) => {
                        self.stats.filter_changed += 1;
                        self.value = v;
                    }
                    FilterDecision::Remove => {
                        self.stats.dropped_filter += 1;
                        self.decided = Some((stripe, DecidedBy::Deletion));
                        return self.emit_deletion(seq, stripe, ValueKind::Delete);
                    }
                }
            }
        }
        let seq = if self.options.bottommost && self.options.zero_sequence_numbers && stripe == 0 {
            self.stats.seqnos_zeroed += u64::from(seq != 0);
            0
        } else {
            seq
        };
        self.set_output(seq, ValueKind::Put);
        Ok(true)
    }

    /// Outputs a deletion marker (`kind`) at `seq` whose entry was consumed (rule 3). At the
    /// bottommost level the rest of its stripe is dropped first, and the marker too when no older
    /// entry of the key follows.
    fn emit_deletion(
        &mut self,
        seq: SequenceNumber,
        stripe: usize,
        kind: ValueKind,
    ) -> Result<bool> {
        if self.options.bottommost && stripe == 0 {
            while let Some(p) = self.peek()? {
                if !p.same_key || self.stripes.of(p.seq) != stripe {
                    break;
                }
                self.stats.dropped_deleted += 1;
                self.consume();
            }
            if !self.peek()?.is_some_and(|p| p.same_key) {
                self.stats.dropped_tombstone_at_bottom += 1;
                return Ok(false);
            }
        }
        self.value.clear();
        self.set_output(seq, kind);
        Ok(true)
    }

    /// Decides a `SingleDelete` at `seq` (the input's current entry) by its next entry (rule 4).
    fn single_delete(&mut self, seq: SequenceNumber, stripe: usize) -> Result<bool> {
        self.consume();
        match self.peek()? {
            Some(p) if p.same_key && self.stripes.of(p.seq) == stripe => match p.kind {
                ValueKind::SingleDelete | ValueKind::Delete => {
                    // Redundant: the next deletion does its job; decide it on its own.
                    self.stats.dropped_single_delete += 1;
                    Ok(false)
                }
                ValueKind::Put | ValueKind::Merge => {
                    self.stats.dropped_single_delete += 2;
                    self.consume();
                    Ok(false)
                }
                ValueKind::RangeDelete => Err(range_delete_among_points()),
            },
            Some(p) if p.same_key => {
                self.decided = Some((stripe, DecidedBy::Deletion));
                self.value.clear();
                self.set_output(seq, ValueKind::SingleDelete);
                Ok(true)
            }
            _ if self.options.bottommost => {
                self.stats.dropped_tombstone_at_bottom += 1;
                Ok(false)
            }
            _ => {
                self.decided = Some((stripe, DecidedBy::Deletion));
                self.value.clear();
                self.set_output(seq, ValueKind::SingleDelete);
                Ok(true)
            }
        }
    }

    /// Folds the merge run that starts at the input's current entry, a `Merge` at `seq` (rule 2).
    fn merge(&mut self, seq: SequenceNumber, stripe: usize) -> Result<bool> {
        let Some(op) = self.options.merge_operator.clone() else {
            return Err(Error::InvalidArgument(
                "a merge operand needs a merge operator, and the column family has none".into(),
            ));
        };
        self.operands.clear();
        self.operands.push((seq, self.input.value().to_vec()));
        self.consume();
        self.decided = Some((stripe, DecidedBy::Value));
        // `Some(base)` once the bottom of the key's history in this stripe is known.
        let base: Option<Option<Vec<u8>>> = loop {
            let p = match self.peek()? {
                Some(p) if p.same_key => p,
                _ if self.options.bottommost => break Some(None),
                _ => break None,
            };
            if self.stripes.of(p.seq) != stripe {
                break None;
            }
            if self.covered(p.seq, stripe) {
                // Everything older in the stripe is deleted; it is dropped as hidden next.
                break Some(None);
            }
            match p.kind {
                ValueKind::Merge => {
                    self.operands.push((p.seq, self.input.value().to_vec()));
                    self.consume();
                }
                ValueKind::Put => {
                    let v = self.input.value().to_vec();
                    self.stats.merge_bases_consumed += 1;
                    self.consume();
                    break Some(Some(v));
                }
                ValueKind::Delete | ValueKind::SingleDelete => {
                    self.stats.merge_bases_consumed += 1;
                    self.consume();
                    break Some(None);
                }
                ValueKind::RangeDelete => return Err(range_delete_among_points()),
            }
        };
        let ops: Vec<&[u8]> = self
            .operands
            .iter()
            .rev()
            .map(|(_, v)| v.as_slice())
            .collect();
        if let Some(base) = base {
            let merged = op
                .full_merge(&self.user_key, base.as_deref(), &ops)
                .ok_or_else(|| self.merge_failure(op.name(), "full_merge"))?;
            self.stats.merge_operands_folded += ops.len() as u64;
            self.value = merged;
            return self.emit_value(seq, stripe);
        }
        if ops.len() >= 2 {
            if let Some(combined) = op.partial_merge(&self.user_key, &ops) {
                self.stats.merge_operands_folded += ops.len() as u64;
                self.value = combined;
                self.set_output(seq, ValueKind::Merge);
                return Ok(true);
            }
        }
        // Kept as they are, newest first; the first is the current output.
        let mut operands = std::mem::take(&mut self.operands).into_iter();
        if let Some((s, v)) = operands.next() {
            self.value = v;
            self.set_output(s, ValueKind::Merge);
        }
        for (s, v) in operands {
            let mut k = Vec::with_capacity(self.user_key.len() + 8);
            append_internal_key(&mut k, &self.user_key, s, ValueKind::Merge as u8);
            self.pending.push_back((k, v));
        }
        Ok(true)
    }

    fn merge_failure(&self, operator: &str, call: &str) -> Error {
        let (newest, oldest) = (
            self.operands.first().map_or(0, |o| o.0),
            self.operands.last().map_or(0, |o| o.0),
        );
        Error::corruption(
            "",
            0,
            format!(
                "Merge operator failed: {operator} ({call}) on key {:02x?}, operands at \
                 sequence numbers {oldest}..={newest}",
                self.user_key
            ),
        )
    }
}

fn range_delete_among_points() -> Error {
    Error::corruption(
        "",
        0,
        "range deletion among the point entries of a compaction input",
    )
}

#[cfg(test)]
#[path = "iter_tests.rs"]
pub(crate) mod tests;
