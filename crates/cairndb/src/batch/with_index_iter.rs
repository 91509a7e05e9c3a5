//! The database's iterator with a batch's writes laid over it (RocksDB's `BaseDeltaIterator`):
//! what a transaction's iterator shows, its own uncommitted writes included.
//!
//! Who calls it: [`WriteBatchWithIndex::iter_with_base`](super::WriteBatchWithIndex) and a
//! transaction's `iter`. One thread at a time; it borrows the batch, so the batch cannot change
//! while it lives.
//!
//! Invariants:
//! 1. The keys shown are the union of the base's and the batch's, in the family's order, minus those
//!    the batch deletes (point deletions, and range deletions for base keys the batch does not
//!    write again), each once, with the batch's answer where it has one (merge operands folded
//!    onto the base's value or the batch's base).
//! 2. Both sides are positioned at their first key past the current one in the direction of
//!    travel; a change of direction re-seeks both around the current key.
//! 3. The batch side keeps to the read options' bounds and, with `prefix_same_as_start`, to the
//!    seek target's prefix, as the base side does.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use super::with_index::{fold, CfIndex, Entry, MergeOnto};
use crate::comparator::KeyOrder;
use crate::db::DbIter;
use crate::error::{Error, Result};
use crate::merge::MergeOperator;
use crate::sstable::PrefixExtractor;

/// Where the current entry comes from.
#[derive(Debug)]
enum Current<'a> {
    None,
    /// The base's entry (the batch does not write this key).
    Base,
    /// The batch's put.
    Delta(&'a [u8], &'a [u8]),
    /// A value folded from merge operands, at key `.0`.
    Merged(&'a [u8], Vec<u8>),
}

/// The batch's keys of one family in the family's order.
enum DeltaKeys<'a> {
    /// Bytewise: the index's own map.
    Map(&'a BTreeMap<Vec<u8>, Entry>),
    /// Reverse bytewise: the index's own map, walked backwards.
    Reversed(&'a BTreeMap<Vec<u8>, Entry>),
    /// A user comparator: a view of the map sorted by it, built once per iterator.
    Sorted(Vec<(&'a [u8], &'a Entry)>),
}

impl<'a> DeltaKeys<'a> {
    fn new(keys: &'a BTreeMap<Vec<u8>, Entry>, order: &KeyOrder) -> Self {
        if order.is_bytewise() {
            return DeltaKeys::Map(keys);
        }
        if order.is_reverse_bytewise() {
            return DeltaKeys::Reversed(keys);
        }
        let mut v: Vec<(&[u8], &Entry)> = keys.iter().map(|(k, e)| (k.as_slice(), e)).collect();
        v.sort_by(|a, b| order.compare(a.0, b.0));
        DeltaKeys::Sorted(v)
    }

    /// The first key at or after `from` (as the bound says) in `order`.
    fn first_from(&self, order: &KeyOrder, from: Bound<&[u8]>) -> Option<(&'a [u8], &'a Entry)> {
        match self {
            DeltaKeys::Map(m) => m
                .range::<[u8], _>((from, Bound::Unbounded))
                .next()
                .map(|(k, e)| (k.as_slice(), e)),
            // Descending: the first key at or after `from` is the bytewise last at or before it.
            DeltaKeys::Reversed(m) => m
                .range::<[u8], _>((Bound::Unbounded, from))
                .next_back()
                .map(|(k, e)| (k.as_slice(), e)),
            DeltaKeys::Sorted(v) => {
                let i = match from {
                    Bound::Unbounded => 0,
                    Bound::Included(f) => v.partition_point(|e| order.compare(e.0, f).is_lt()),
                    Bound::Excluded(f) => v.partition_point(|e| order.compare(e.0, f).is_le()),
                };
                v.get(i).copied()
            }
        }
    }

    /// The last key at or before `to` (as the bound says) in `order`.
    fn last_before(&self, order: &KeyOrder, to: Bound<&[u8]>) -> Option<(&'a [u8], &'a Entry)> {
        match self {
            DeltaKeys::Map(m) => m
                .range::<[u8], _>((Bound::Unbounded, to))
                .next_back()
                .map(|(k, e)| (k.as_slice(), e)),
            DeltaKeys::Reversed(m) => m
                .range::<[u8], _>((to, Bound::Unbounded))
                .next()
                .map(|(k, e)| (k.as_slice(), e)),
            DeltaKeys::Sorted(v) => {
                let n = match to {
                    Bound::Unbounded => v.len(),
                    Bound::Included(t) => v.partition_point(|e| order.compare(e.0, t).is_le()),
                    Bound::Excluded(t) => v.partition_point(|e| order.compare(e.0, t).is_lt()),
                };
                v.get(n.checked_sub(1)?).copied()
            }
        }
    }
}

/// An iterator over the database with a batch's writes laid over it; see the module
/// documentation and [`WriteBatchWithIndex::iter_with_base`](super::WriteBatchWithIndex).
pub struct BaseDeltaIter<'a> {
    base: DbIter,
    keys: Option<&'a BTreeMap<Vec<u8>, Entry>>,
    /// The batch's keys in the family's order.
    delta_keys: Option<DeltaKeys<'a>>,
    /// The order of the family's keys.
    order: KeyOrder,
    index: Option<&'a CfIndex>,
    merge: Option<Arc<dyn MergeOperator>>,
    lower: Option<Vec<u8>>,
    upper: Option<Vec<u8>>,
    extractor: Option<Arc<dyn PrefixExtractor>>,
    /// The prefix the last seek fixed (invariant 3).
    prefix: Option<Vec<u8>>,
    /// The batch side's position: its next key in the direction of travel.
    delta: Option<(&'a [u8], &'a Entry)>,
    forward: bool,
    current: Current<'a>,
    error: Option<Error>,
}

impl std::fmt::Debug for BaseDeltaIter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BaseDeltaIter")
            .field("base", &self.base)
            .field("forward", &self.forward)
            .finish_non_exhaustive()
    }
}

impl<'a> BaseDeltaIter<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        base: DbIter,
        index: Option<&'a CfIndex>,
        order: KeyOrder,
        merge: Option<Arc<dyn MergeOperator>>,
        lower: Option<Vec<u8>>,
        upper: Option<Vec<u8>>,
        extractor: Option<Arc<dyn PrefixExtractor>>,
    ) -> Self {
        BaseDeltaIter {
            base,
            keys: index.map(|i| &i.keys),
            delta_keys: index.map(|i| DeltaKeys::new(&i.keys, &order)),
            order,
            index,
            merge,
            lower,
            upper,
            extractor,
            prefix: None,
            delta: None,
            forward: true,
            current: Current::None,
            error: None,
        }
    }

    /// True when positioned at an entry.
    pub fn valid(&self) -> bool {
        !matches!(self.current, Current::None)
    }

    /// Positions at the first key (within the bounds).
    pub fn seek_to_first(&mut self) {
        self.prefix = None;
        self.base.seek_to_first();
        self.delta = self.delta_from(Bound::Unbounded);
        self.forward = true;
        self.settle();
    }

    /// Positions at the last key (within the bounds).
    pub fn seek_to_last(&mut self) {
        self.prefix = None;
        self.base.seek_to_last();
        self.delta = self.delta_before(Bound::Unbounded);
        self.forward = false;
        self.settle();
    }

    /// Positions at the first key >= `target`.
    pub fn seek(&mut self, target: &[u8]) {
        self.fix_prefix(target);
        self.base.seek(target);
        self.delta = self.delta_from(Bound::Included(target));
        self.forward = true;
        self.settle();
    }

    /// Positions at the last key <= `target`.
    pub fn seek_for_prev(&mut self, target: &[u8]) {
        self.fix_prefix(target);
        self.base.seek_for_prev(target);
        self.delta = self.delta_before(Bound::Included(target));
        self.forward = false;
        self.settle();
    }

    /// Moves to the next key. Requires `valid()`.
    pub fn next(&mut self) {
        let key = self.key().to_vec();
        if self.forward {
            if self.base.valid() && self.base.key() == key.as_slice() {
                self.base.next();
            }
            if self.delta.is_some_and(|(k, _)| k == key.as_slice()) {
                self.delta = self.delta_from(Bound::Excluded(&key));
            }
        } else {
            // Invariant 2: both sides are behind the current key; bring them past it.
            self.base.seek(&key);
            if self.base.valid() && self.base.key() == key.as_slice() {
                self.base.next();
            }
            self.delta = self.delta_from(Bound::Excluded(&key));
            self.forward = true;
        }
        self.settle();
    }

    /// Moves to the previous key. Requires `valid()`.
    pub fn prev(&mut self) {
        let key = self.key().to_vec();
        if !self.forward {
            if self.base.valid() && self.base.key() == key.as_slice() {
                self.base.prev();
            }
            if self.delta.is_some_and(|(k, _)| k == key.as_slice()) {
                self.delta = self.delta_before(Bound::Excluded(&key));
            }
        } else {
            self.base.seek_for_prev(&key);
            if self.base.valid() && self.base.key() == key.as_slice() {
                self.base.prev();
            }
            self.delta = self.delta_before(Bound::Excluded(&key));
            self.forward = false;
        }
        self.settle();
    }

    /// The current key. Requires `valid()`.
    pub fn key(&self) -> &[u8] {
        match &self.current {
            Current::Base => self.base.key(),
            Current::Delta(k, _) | Current::Merged(k, _) => k,
            Current::None => panic!("BaseDeltaIter::key on an invalid iterator"),
        }
    }

    /// The current value. Requires `valid()`.
    pub fn value(&self) -> &[u8] {
        match &self.current {
            Current::Base => self.base.value(),
            Current::Delta(_, v) => v,
            Current::Merged(_, v) => v,
            Current::None => panic!("BaseDeltaIter::value on an invalid iterator"),
        }
    }

    /// The error that stopped the iterator, if any: the base's, or a failed merge.
    ///
    /// # Errors
    /// The I/O, corruption or merge error met while moving.
    pub fn status(&self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.base.status()
    }

    fn fix_prefix(&mut self, target: &[u8]) {
        self.prefix = self
            .extractor
            .as_ref()
            .and_then(|x| x.prefix(target))
            .map(<[u8]>::to_vec);
    }

    /// Whether the batch side may show `key` (invariant 3).
    fn in_scope(&self, key: &[u8]) -> bool {
        let o = &self.order;
        if self
            .lower
            .as_deref()
            .is_some_and(|lo| o.compare(key, lo).is_lt())
            || self
                .upper
                .as_deref()
                .is_some_and(|hi| o.compare(key, hi).is_ge())
        {
            return false;
        }
        match (&self.prefix, &self.extractor) {
            (Some(p), Some(x)) => x.prefix(key) == Some(p.as_slice()),
            _ => true,
        }
    }

    /// The batch's first key at or after `from` (as the bound says) within the lower bound,
    /// if it is in scope (keys of one prefix are contiguous, so the first one out ends the
    /// prefix).
    fn delta_from(&self, from: Bound<&[u8]>) -> Option<(&'a [u8], &'a Entry)> {
        let keys = self.delta_keys.as_ref()?;
        let o = &self.order;
        let from = match (from, self.lower.as_deref()) {
            (Bound::Unbounded, Some(lo)) => Bound::Included(lo),
            (Bound::Included(f) | Bound::Excluded(f), Some(lo)) if o.compare(f, lo).is_lt() => {
                Bound::Included(lo)
            }
            (f, _) => f,
        };
        let (k, e) = keys.first_from(o, from)?;
        self.in_scope(k).then_some((k, e))
    }

    /// The batch's last key at or before `to` (as the bound says) below the upper bound, if
    /// it is in scope.
    fn delta_before(&self, to: Bound<&[u8]>) -> Option<(&'a [u8], &'a Entry)> {
        let keys = self.delta_keys.as_ref()?;
        let o = &self.order;
        let to = match (to, self.upper.as_deref()) {
            (Bound::Unbounded, Some(hi)) => Bound::Excluded(hi),
            (Bound::Included(t) | Bound::Excluded(t), Some(hi)) if o.compare(t, hi).is_ge() => {
                Bound::Excluded(hi)
            }
            (t, _) => t,
        };
        let (k, e) = keys.last_before(o, to)?;
        self.in_scope(k).then_some((k, e))
    }

    /// Steps the batch side one key in the direction of travel.
    fn advance_delta(&mut self, key: &[u8]) {
        self.delta = if self.forward {
            self.delta_from(Bound::Excluded(key))
        } else {
            self.delta_before(Bound::Excluded(key))
        };
    }

    /// Steps the base side one key in the direction of travel.
    fn advance_base(&mut self) {
        if self.forward {
            self.base.next();
        } else {
            self.base.prev();
        }
    }

    /// Picks the current entry from the two sides' positions, skipping what the batch deletes
    /// (invariant 1).
    fn settle(&mut self) {
        self.current = Current::None;
        if self.error.is_some() {
            return;
        }
        loop {
            let base_key = self.base.valid().then(|| self.base.key());
            // A base key a batch range deletion covers and the batch does not write is hidden.
            if let Some(b) = base_key {
                // The range test first: without batch range deletions (the common case) no
                // base key pays a map lookup.
                let covered = self.index.is_some_and(|i| i.range_deleted(b));
                if covered
                    && self.delta.is_none_or(|(d, _)| d != b)
                    && self.keys.is_none_or(|k| !k.contains_key(b))
                {
                    self.advance_base();
                    continue;
                }
            }
            let order = match (base_key, self.delta) {
                (None, None) => return,
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(b), Some((d, _))) => {
                    let o = self.order.compare(b, d);
                    if self.forward {
                        o
                    } else {
                        o.reverse()
                    }
                }
            };
            if order == std::cmp::Ordering::Less {
                self.current = Current::Base;
                return;
            }
            let (key, entry) = self.delta.expect("the batch side is positioned");
            let same = order == std::cmp::Ordering::Equal;
            match entry {
                Entry::Deleted => {
                    if same {
                        self.advance_base();
                    }
                    self.advance_delta(key);
                }
                Entry::Put(v) => {
                    self.current = Current::Delta(key, v);
                    return;
                }
                Entry::Merge { onto, operands } => {
                    let base = match onto {
                        MergeOnto::Db if same => Some(self.base.value()),
                        MergeOnto::Value(v) => Some(v.as_slice()),
                        MergeOnto::Db | MergeOnto::Deleted => None,
                    };
                    let folded = match &self.merge {
                        Some(op) => fold(op, key, base, operands),
                        None => Err(Error::InvalidArgument(
                            "merge operands in a batch for a column family without a merge \
                             operator"
                                .into(),
                        )),
                    };
                    match folded {
                        Ok(Some(v)) => {
                            self.current = Current::Merged(key, v);
                            return;
                        }
                        Ok(None) => unreachable!("fold returns a value or an error"),
                        Err(e) => {
                            self.error = Some(e);
                            return;
                        }
                    }
                }
            }
        }
    }
}
