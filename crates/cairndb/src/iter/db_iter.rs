//! The user iterator: turns an internal iterator (usually a [`MergingIterator`] over memtables
//! and tables) into what a user sees at one snapshot: each live user key once, with its newest
//! visible value, between optional bounds and, in prefix mode, within one key prefix.
//!
//! Who calls it: one thread at a time (contract 7 of [`crate::iter`]). It owns the internal
//! iterator and shares the range-deletion set and the operators through `Arc`.
//!
//! It implements [`InternalIterator`] with *user* keys in the column family's order: `key()` is a user key,
//! `seek(k)` and `seek_for_prev(k)` take user keys. Resolving the versions of one user key
//! (design: `docs/design/iterators.md`):
//! - An entry is *visible* when its sequence number is <= the snapshot and no visible range
//!   tombstone newer than it covers its key.
//! - Walking one key's visible entries from newest to oldest: `Put` gives the value; `Delete` and
//!   `SingleDelete` hide the key; `Merge` operands accumulate until a `Put` (the base), a deletion,
//!   a covering range tombstone or the key's end (no base), and are folded with the
//!   [`MergeOperator`].
//! - Forwards, the inner iterator meets a key's entries newest first, so the first visible entry
//!   decides, and the rest of the key is skipped. Backwards it meets them oldest first, so the
//!   iterator walks all of the key's entries, keeping the state "as of the newest entry seen so
//!   far" (a `Put` or deletion resets the operands), and decides when the user key changes. Both
//!   evaluate the same function of the key's entries, so reverse iteration is exactly the reverse
//!   of forward iteration.
//!
//! Invariants:
//! 1. Forward and valid: the inner iterator is at the current key's deciding entry (a `Put`,
//!    whose value is served from it) or, after a merge, past the operands it folded; every entry
//!    before it belongs to earlier user keys or to the current key.
//! 2. Reverse and valid: the inner iterator is at the last entry of an earlier user key, or
//!    invalid; the current value is owned by the iterator.
//! 3. A direction change re-seeks the inner iterator around the current user key, which
//!    restores invariant 1 or 2 in the new direction.
//! 4. `valid()` implies the current key is inside the bounds and, in prefix mode, has the prefix.
//! 5. An error (from the inner iterator, a malformed entry, a missing or failing merge
//!    operator) makes the iterator invalid and is reported by `status()` until the next
//!    positioning call; no key after the error is returned first.

use std::fmt;
use std::sync::Arc;

use super::merging::BoxedIterator;
use super::range_del::RangeDelSet;
use super::InternalIterator;
#[cfg(doc)]
use super::MergingIterator;
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::merge::MergeOperator;
use crate::sstable::PrefixExtractor;
use crate::types::{
    append_internal_key, seek_key, ParsedKey, SequenceNumber, ValueKind, MAX_SEQUENCE,
};

/// What a user iterator reads and how (RocksDB's `ReadOptions` fields for iterators, plus the
/// column family's prefix extractor and merge operator, which the DB front fills in).
#[derive(Debug, Clone)]
pub struct DbIterOptions {
    /// Entries with larger sequence numbers are invisible. Default: everything
    /// ([`MAX_SEQUENCE`]); the DB front pins the latest published sequence or a snapshot's.
    pub snapshot: SequenceNumber,
    /// Inclusive lower bound on user keys (`iterate_lower_bound`). Default `None`.
    pub lower_bound: Option<Vec<u8>>,
    /// Exclusive upper bound on user keys (`iterate_upper_bound`). Default `None`. Bounds let the
    /// iterator stop without reading the next key beyond them.
    pub upper_bound: Option<Vec<u8>>,
    /// After a seek, iterate only keys with the same prefix (by `prefix_extractor`) as the seek
    /// target; after `seek_to_first`/`seek_to_last`, as the first key found. Default false. Has
    /// no effect without an extractor, with `total_order_seek`, or when the target is outside the
    /// extractor's domain.
    pub prefix_same_as_start: bool,
    /// Ignore the prefix extractor: iterate in total order. Default false.
    pub total_order_seek: bool,
    /// The column family's prefix extractor. Default `None`.
    pub prefix_extractor: Option<Arc<dyn PrefixExtractor>>,
    /// The column family's merge operator. Default `None`: meeting a merge operand is an error.
    pub merge_operator: Option<Arc<dyn MergeOperator>>,
    /// The order of the column family's user keys (bounds compare in it). Default bytewise.
    pub comparator: KeyOrder,
}

impl Default for DbIterOptions {
    fn default() -> Self {
        DbIterOptions {
            snapshot: MAX_SEQUENCE,
            lower_bound: None,
            upper_bound: None,
            prefix_same_as_start: false,
            total_order_seek: false,
            prefix_extractor: None,
            merge_operator: None,
            comparator: KeyOrder::BYTEWISE,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Reverse,
}

/// How resolving one user key backwards ended.
enum Resolved {
    Found,
    Hidden,
    Failed,
}

/// The user-facing iterator. See the module contract.
pub struct DbIterator {
    inner: BoxedIterator,
    /// The range tombstones, in one or more sets (the DB front keeps the tables' set per read
    /// view and adds the memtables' per iterator); empty sets are left out, so a read without
    /// range deletions checks none.
    range_dels: Vec<Arc<RangeDelSet>>,
    opts: DbIterOptions,
    direction: Direction,
    valid: bool,
    /// The current user key (also the key being resolved or skipped while moving).
    key: Vec<u8>,
    /// The current value, unless `value_in_inner`.
    value: Vec<u8>,
    value_in_inner: bool,
    /// The prefix every returned key must have, in prefix mode.
    prefix: Option<Vec<u8>>,
    err: Option<Error>,
    /// Merge operands being collected, reused between keys.
    operands: Vec<Vec<u8>>,
    /// The internal key of the last seek into `inner`, reused between seeks.
    target: Vec<u8>,
}

impl fmt::Debug for DbIterator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DbIterator")
            .field("opts", &self.opts)
            .field("range_dels", &self.range_dels)
            .field("direction", &self.direction)
            .field("valid", &self.valid)
            .field("err", &self.err)
            .finish_non_exhaustive()
    }
}

impl DbIterator {
    /// A user iterator over `inner` (internal keys), hiding what the tombstones of `range_dels`
    /// delete. The iterator is not positioned.
    pub fn new(inner: BoxedIterator, range_dels: Arc<RangeDelSet>, opts: DbIterOptions) -> Self {
        Self::with_range_del_sets(inner, vec![range_dels], opts)
    }

    /// [`DbIterator::new`] with the range tombstones split over several sets: an entry is deleted
    /// when a tombstone of any of them covers it. Lets a caller reuse sets fragmented earlier
    /// (per table or per read view) instead of fragmenting their union per iterator.
    pub fn with_range_del_sets(
        inner: BoxedIterator,
        range_dels: Vec<Arc<RangeDelSet>>,
        opts: DbIterOptions,
    ) -> Self {
        let mut range_dels = range_dels;
        range_dels.retain(|s| !s.is_empty());
        let mut opts = opts;
        opts.snapshot = opts.snapshot.min(MAX_SEQUENCE);
        DbIterator {
            inner,
            range_dels,
            opts,
            direction: Direction::Forward,
            valid: false,
            key: Vec::new(),
            value: Vec::new(),
            value_in_inner: false,
            prefix: None,
            err: None,
            operands: Vec::new(),
            target: Vec::new(),
        }
    }

    /// The options the iterator was created with.
    pub fn options(&self) -> &DbIterOptions {
        &self.opts
    }

    fn reset(&mut self, dir: Direction) {
        self.valid = false;
        self.err = None;
        self.prefix = None;
        self.value_in_inner = false;
        self.direction = dir;
    }

    fn fail(&mut self, e: Error) {
        self.err = Some(e);
        self.valid = false;
    }

    fn prefix_mode(&self) -> bool {
        self.opts.prefix_same_as_start && !self.opts.total_order_seek
    }

    /// The prefix constraint implied by `key`, in prefix mode.
    fn prefix_of(&self, key: &[u8]) -> Option<Vec<u8>> {
        let x = self.opts.prefix_extractor.as_ref()?;
        if !self.prefix_mode() {
            return None;
        }
        x.prefix(key).map(<[u8]>::to_vec)
    }

    fn in_prefix(&self, ukey: &[u8]) -> bool {
        match (&self.prefix, &self.opts.prefix_extractor) {
            (Some(p), Some(x)) => x.prefix(ukey) == Some(p.as_slice()),
            _ => true,
        }
    }

    fn past_upper(&self, ukey: &[u8]) -> bool {
        let o = &self.opts.comparator;
        self.opts
            .upper_bound
            .as_deref()
            .is_some_and(|u| o.compare(ukey, u).is_ge())
    }

    fn below_lower(&self, ukey: &[u8]) -> bool {
        let o = &self.opts.comparator;
        self.opts
            .lower_bound
            .as_deref()
            .is_some_and(|l| o.compare(ukey, l).is_lt())
    }

    /// The largest sequence number of a range tombstone visible at the snapshot that covers
    /// `ukey`, over every set.
    fn max_covering_seq(&self, ukey: &[u8]) -> Option<SequenceNumber> {
        self.range_dels
            .iter()
            .filter_map(|s| s.max_covering_seq(ukey, self.opts.snapshot))
            .max()
    }

    /// True when a visible range tombstone newer than `seq` covers `ukey`.
    fn covered(&self, ukey: &[u8], seq: SequenceNumber) -> bool {
        self.max_covering_seq(ukey).is_some_and(|t| t > seq)
    }

    /// Positions the inner iterator at the last entry whose user key is below the upper bound
    /// (or the last entry without one).
    fn inner_seek_to_last(&mut self) {
        match &self.opts.upper_bound {
            // The smallest internal key of the bound's user key: every entry <= it has a
            // smaller user key (no real entry has the seek kind).
            Some(u) => {
                let k = seek_key(u, MAX_SEQUENCE);
                self.inner.seek_for_prev(&k);
            }
            None => self.inner.seek_to_last(),
        }
    }

    /// Forwards from the inner iterator's position to the first user key with a visible value
    /// (module doc). With `skipping`, entries of `self.key` are older versions of a key already
    /// returned or deleted.
    fn find_next(&mut self, mut skipping: bool) {
        let snapshot = self.opts.snapshot;
        loop {
            if !self.inner.valid() {
                self.valid = false;
                return;
            }
            let p = match ParsedKey::parse(self.inner.key()) {
                Ok(p) => p,
                Err(e) => return self.fail(e),
            };
            if self.past_upper(p.user_key) || !self.in_prefix(p.user_key) {
                self.valid = false;
                return;
            }
            if p.seq > snapshot || (skipping && p.user_key == self.key.as_slice()) {
                self.inner.next();
                continue;
            }
            let covered = self.covered(p.user_key, p.seq);
            self.key.clear();
            self.key.extend_from_slice(p.user_key);
            match p.kind {
                ValueKind::Put if !covered => {
                    self.value_in_inner = true;
                    self.valid = true;
                    return;
                }
                ValueKind::Merge if !covered => return self.merge_forward(),
                ValueKind::RangeDelete => return self.fail(misplaced_range_deletion()),
                // A deletion, or an entry deleted by a newer range tombstone: the older entries
                // of this key are hidden too.
                _ => {
                    skipping = true;
                    self.inner.next();
                }
            }
        }
    }

    /// Folds the merge operands starting at the inner iterator's entry (the newest visible one
    /// of `self.key`) into the value.
    fn merge_forward(&mut self) {
        let tomb = self.max_covering_seq(&self.key);
        self.operands.clear();
        self.operands.push(self.inner.value().to_vec());
        self.inner.next();
        let mut has_base = false;
        while self.inner.valid() {
            let p = match ParsedKey::parse(self.inner.key()) {
                Ok(p) => p,
                Err(e) => return self.fail(e),
            };
            // Older entries of the key all have visible sequence numbers (one newer was).
            if p.user_key != self.key.as_slice() || tomb.is_some_and(|t| t > p.seq) {
                break;
            }
            match p.kind {
                ValueKind::Put => {
                    self.value.clear();
                    self.value.extend_from_slice(self.inner.value());
                    has_base = true;
                    break;
                }
                ValueKind::Merge => {
                    self.operands.push(self.inner.value().to_vec());
                    self.inner.next();
                }
                ValueKind::Delete | ValueKind::SingleDelete => break,
                ValueKind::RangeDelete => return self.fail(misplaced_range_deletion()),
            }
        }
        if !self.inner.valid() && self.inner.status().is_err() {
            // The base may lie in the damaged part: no value rather than a wrong one.
            self.valid = false;
            return;
        }
        self.operands.reverse();
        self.finish_merge(has_base);
    }

    /// Applies the merge operator to `self.operands` (oldest first) over `self.value` when
    /// `has_base`, making the result the current value.
    fn finish_merge(&mut self, has_base: bool) {
        let operands: Vec<&[u8]> = self.operands.iter().map(Vec::as_slice).collect();
        let base = has_base.then_some(self.value.as_slice());
        let merged = match &self.opts.merge_operator {
            None => Err(Error::InvalidArgument(
                "merge operands found but no merge operator is configured".into(),
            )),
            Some(op) => op.full_merge(&self.key, base, &operands).ok_or_else(|| {
                Error::corruption(
                    "",
                    0,
                    format!(
                        "Merge operator failed: {} on key {:02x?}",
                        op.name(),
                        self.key
                    ),
                )
            }),
        };
        match merged {
            Ok(v) => {
                self.value = v;
                self.value_in_inner = false;
                self.valid = true;
            }
            Err(e) => self.fail(e),
        }
    }

    /// Backwards from the inner iterator's position to the first user key with a visible value.
    fn find_prev(&mut self) {
        loop {
            if !self.inner.valid() {
                self.valid = false;
                return;
            }
            let p = match ParsedKey::parse(self.inner.key()) {
                Ok(p) => p,
                Err(e) => return self.fail(e),
            };
            if self.below_lower(p.user_key) || !self.in_prefix(p.user_key) {
                self.valid = false;
                return;
            }
            self.key.clear();
            self.key.extend_from_slice(p.user_key);
            match self.resolve_backward() {
                Resolved::Found => {
                    self.value_in_inner = false;
                    self.valid = true;
                    return;
                }
                Resolved::Hidden => {}
                Resolved::Failed => {
                    self.valid = false;
                    return;
                }
            }
        }
    }

    /// Walks all entries of `self.key` backwards (oldest first), leaving the inner iterator at
    /// the entry before them, and resolves the key's value into `self.value` (module doc).
    fn resolve_backward(&mut self) -> Resolved {
        let snapshot = self.opts.snapshot;
        let tomb = self.max_covering_seq(&self.key);
        self.operands.clear();
        let mut has_value = false;
        loop {
            if !self.inner.valid() {
                if self.inner.status().is_err() {
                    // Newer entries of the key may lie in the damaged part.
                    return Resolved::Failed;
                }
                break;
            }
            let p = match ParsedKey::parse(self.inner.key()) {
                Ok(p) => p,
                Err(e) => {
                    self.fail(e);
                    return Resolved::Failed;
                }
            };
            if p.user_key != self.key.as_slice() {
                break;
            }
            if p.seq <= snapshot && tomb.is_none_or(|t| t <= p.seq) {
                match p.kind {
                    ValueKind::Put => {
                        self.value.clear();
                        self.value.extend_from_slice(self.inner.value());
                        has_value = true;
                        self.operands.clear();
                    }
                    ValueKind::Delete | ValueKind::SingleDelete => {
                        has_value = false;
                        self.operands.clear();
                    }
                    ValueKind::Merge => self.operands.push(self.inner.value().to_vec()),
                    ValueKind::RangeDelete => {
                        self.fail(misplaced_range_deletion());
                        return Resolved::Failed;
                    }
                }
            }
            self.inner.prev();
        }
        if !self.operands.is_empty() {
            self.finish_merge(has_value);
            return if self.valid {
                Resolved::Found
            } else {
                Resolved::Failed
            };
        }
        if has_value {
            Resolved::Found
        } else {
            Resolved::Hidden
        }
    }
}

/// Makes `buf` the internal key `(user_key, seq, kind)`, reusing its allocation.
fn set_internal_key(buf: &mut Vec<u8>, user_key: &[u8], seq: SequenceNumber, kind: u8) {
    buf.clear();
    append_internal_key(buf, user_key, seq, kind);
}

/// The largest internal key of `user_key`: every entry of the key sorts at or before it.
fn after_all_versions(user_key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(user_key.len() + 8);
    append_internal_key(&mut k, user_key, 0, 0);
    k
}

fn misplaced_range_deletion() -> Error {
    Error::corruption("", 0, "range deletion among point entries")
}

impl InternalIterator for DbIterator {
    fn valid(&self) -> bool {
        self.valid
    }

    fn seek_to_first(&mut self) {
        self.reset(Direction::Forward);
        match &self.opts.lower_bound {
            Some(l) => {
                set_internal_key(&mut self.target, l, self.opts.snapshot, ValueKind::FOR_SEEK);
                self.inner.seek(&self.target);
            }
            None => self.inner.seek_to_first(),
        }
        self.find_next(false);
        if self.valid {
            self.prefix = self.prefix_of(&self.key);
        }
    }

    fn seek_to_last(&mut self) {
        self.reset(Direction::Reverse);
        self.inner_seek_to_last();
        self.find_prev();
        if self.valid {
            self.prefix = self.prefix_of(&self.key);
        }
    }

    /// Positions at the first visible user key >= `target` (and >= the lower bound).
    fn seek(&mut self, target: &[u8]) {
        self.reset(Direction::Forward);
        self.prefix = self.prefix_of(target);
        let start = match &self.opts.lower_bound {
            Some(l) if self.opts.comparator.compare(target, l).is_lt() => l.as_slice(),
            _ => target,
        };
        let snapshot = self.opts.snapshot;
        set_internal_key(&mut self.target, start, snapshot, ValueKind::FOR_SEEK);
        self.inner.seek(&self.target);
        self.find_next(false);
    }

    /// Positions at the last visible user key <= `target` (and below the upper bound).
    fn seek_for_prev(&mut self, target: &[u8]) {
        self.reset(Direction::Reverse);
        self.prefix = self.prefix_of(target);
        if self.past_upper(target) {
            self.inner_seek_to_last();
        } else {
            self.inner.seek_for_prev(&after_all_versions(target));
        }
        self.find_prev();
    }

    /// # Panics
    /// If the iterator is not valid.
    fn next(&mut self) {
        assert!(self.valid, "DbIterator::next on an invalid iterator");
        if self.direction == Direction::Reverse {
            // Invariant 3: land on the first entry after every version of the current key.
            self.inner.seek(&after_all_versions(&self.key));
            self.direction = Direction::Forward;
        }
        self.find_next(true);
    }

    /// # Panics
    /// If the iterator is not valid.
    fn prev(&mut self) {
        assert!(self.valid, "DbIterator::prev on an invalid iterator");
        if self.direction == Direction::Forward {
            // Invariant 3: land on the last entry before every version of the current key.
            self.inner.seek_for_prev(&seek_key(&self.key, MAX_SEQUENCE));
            self.direction = Direction::Reverse;
        }
        self.find_prev();
    }

    /// The current user key.
    fn key(&self) -> &[u8] {
        assert!(self.valid, "DbIterator::key on an invalid iterator");
        &self.key
    }

    fn value(&self) -> &[u8] {
        assert!(self.valid, "DbIterator::value on an invalid iterator");
        if self.value_in_inner {
            self.inner.value()
        } else {
            &self.value
        }
    }

    fn status(&self) -> Result<()> {
        match &self.err {
            Some(e) => Err(e.clone()),
            None => self.inner.status(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comparator::KeyOrder;
    use crate::memtable::MemTable;
    use crate::merge::UInt64AddOperator;

    fn mem(entries: &[(u64, ValueKind, &str, &[u8])]) -> Arc<MemTable> {
        let m = MemTable::default();
        for &(seq, kind, k, v) in entries {
            m.add(seq, kind, k.as_bytes(), v).expect("add");
        }
        Arc::new(m)
    }

    fn scan(it: &mut DbIterator, forward: bool) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        if forward {
            it.seek_to_first();
        } else {
            it.seek_to_last();
        }
        while it.valid() {
            let k = String::from_utf8(it.key().to_vec()).expect("utf8");
            out.push((k, it.value().to_vec()));
            if forward {
                it.next();
            } else {
                it.prev();
            }
        }
        it.status().expect("no error");
        out
    }

    fn db_iter(m: &Arc<MemTable>, snapshot: SequenceNumber) -> DbIterator {
        let range_dels = RangeDelSet::read_from(&mut m.range_tombstone_iter(), KeyOrder::BYTEWISE)
            .expect("tombstones");
        let opts = DbIterOptions {
            snapshot,
            merge_operator: Some(Arc::new(UInt64AddOperator)),
            ..DbIterOptions::default()
        };
        DbIterator::new(Box::new(m.iter()), Arc::new(range_dels), opts)
    }

    #[test]
    fn snapshots_deletes_and_counters() {
        let one = 1u64.to_le_bytes();
        let m = mem(&[
            (1, ValueKind::Put, "a", b"a1"),
            (2, ValueKind::Put, "b", b"b2"),
            (3, ValueKind::Delete, "a", b""),
            (4, ValueKind::Merge, "c", &one),
            (5, ValueKind::Merge, "c", &one),
            (6, ValueKind::RangeDelete, "b", b"c"),
            (7, ValueKind::Put, "d", b"d7"),
        ]);
        let two = 2u64.to_le_bytes().to_vec();
        let all = vec![
            ("c".to_string(), two.clone()),
            ("d".to_string(), b"d7".to_vec()),
        ];
        let mut it = db_iter(&m, MAX_SEQUENCE);
        assert_eq!(scan(&mut it, true), all);
        let mut rev = scan(&mut it, false);
        rev.reverse();
        assert_eq!(rev, all);

        let mut old = db_iter(&m, 2);
        let want = vec![
            ("a".to_string(), b"a1".to_vec()),
            ("b".to_string(), b"b2".to_vec()),
        ];
        assert_eq!(scan(&mut old, true), want, "snapshot 2 sees neither delete");
        let mut mid = db_iter(&m, 4);
        assert_eq!(
            scan(&mut mid, true),
            vec![
                ("b".to_string(), b"b2".to_vec()),
                ("c".to_string(), one.to_vec())
            ]
        );
    }

    #[test]
    fn failed_merge_is_corruption() {
        let m = mem(&[
            (1, ValueKind::Put, "a", b"not a counter"),
            (2, ValueKind::Merge, "a", &[1; 8]),
        ]);
        let mut it = db_iter(&m, MAX_SEQUENCE);
        it.seek_to_first();
        assert!(!it.valid());
        assert!(it.status().expect_err("merge fails").is_corruption());
        it.seek_to_last();
        assert!(!it.valid() && it.status().is_err());
    }

    #[test]
    fn bounds_clamp_every_positioning_call() {
        let m = mem(&[
            (1, ValueKind::Put, "a", b"1"),
            (2, ValueKind::Put, "b", b"2"),
            (3, ValueKind::Put, "c", b"3"),
            (4, ValueKind::Put, "d", b"4"),
        ]);
        let opts = DbIterOptions {
            lower_bound: Some(b"b".to_vec()),
            upper_bound: Some(b"d".to_vec()),
            ..DbIterOptions::default()
        };
        let mut it = DbIterator::new(Box::new(m.iter()), Arc::default(), opts);
        it.seek_to_first();
        assert_eq!(it.key(), b"b");
        it.prev();
        assert!(!it.valid() && it.status().is_ok());
        it.seek_to_last();
        assert_eq!(it.key(), b"c");
        it.next();
        assert!(!it.valid());
        it.seek(b"a");
        assert_eq!(it.key(), b"b");
        it.seek_for_prev(b"z");
        assert_eq!(it.key(), b"c");
        it.seek(b"d");
        assert!(!it.valid());
        it.seek_for_prev(b"a");
        assert!(!it.valid());
    }
}
