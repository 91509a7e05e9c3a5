//! A fragmented set of range tombstones: answers "which is the newest range deletion visible at
//! snapshot S that covers user key K?" in O(log n), for user iterators, point reads (of the
//! tables' tombstones), flush and compaction.
//!
//! Who calls it: built from owned [`RangeTombstone`]s, on any thread, by the read view (every
//! table's tombstones, once per view, `db/read.rs`), by each user iterator (its memtables'
//! tombstones), and by each flush and compaction job (its inputs' tombstones); immutable
//! afterwards and shared through `Arc` between threads.
//!
//! Representation: tombstones `[begin, end) @ seq` overlap arbitrarily. They are cut at every
//! begin and end key into *fragments*: non-overlapping, sorted, each `[start, end)` with the
//! sequence numbers of every tombstone that covers it. RocksDB's `FragmentedRangeTombstoneList`
//! does the same. A lookup binary-searches the fragment holding the key, then its sequence list
//! for the largest sequence <= the snapshot. Fragmenting costs O(n log n + output); the output is
//! O(n²) in the worst case (n tombstones all nested), as in RocksDB, and O(n) for the usual
//! disjoint or lightly overlapping deletions.
//!
//! Invariants:
//! 1. Fragments are sorted by start, non-empty (`start < end`) and do not overlap: each fragment's
//!    end is <= the next fragment's start.
//! 2. Each fragment's `seqs` is non-empty, strictly descending, and holds exactly the sequence
//!    numbers of the input tombstones whose range contains the whole fragment.

use std::fmt;

use super::InternalIterator;
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::types::{ParsedKey, RangeTombstone, SequenceNumber, ValueKind};

/// One piece of the key space with the tombstones covering it (invariants 1 and 2).
#[derive(Clone, PartialEq, Eq)]
struct Fragment {
    start: Vec<u8>,
    end: Vec<u8>,
    /// Strictly descending.
    seqs: Vec<SequenceNumber>,
}

/// Non-overlapping fragments of a set of range tombstones. See the module contract.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct RangeDelSet {
    fragments: Vec<Fragment>,
    /// The order of the user keys.
    order: KeyOrder,
}

impl fmt::Debug for RangeDelSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Bounded: a set can hold many fragments.
        f.debug_struct("RangeDelSet")
            .field("fragments", &self.fragments.len())
            .finish()
    }
}

impl RangeDelSet {
    /// Fragments `tombstones` (any order, overlaps allowed) over user keys in `order`. Empty
    /// ranges (`begin >= end`) delete nothing and are dropped.
    pub fn new(tombstones: impl IntoIterator<Item = RangeTombstone>, order: KeyOrder) -> Self {
        let o = &order;
        let mut ts: Vec<RangeTombstone> = tombstones
            .into_iter()
            .filter(|t| o.compare(&t.begin, &t.end).is_lt())
            .collect();
        ts.sort_by(|a, b| o.compare(&a.begin, &b.begin));
        let mut bounds: Vec<&[u8]> = ts
            .iter()
            .flat_map(|t| [t.begin.as_slice(), t.end.as_slice()])
            .collect();
        bounds.sort_unstable_by(|a, b| o.compare(a, b));
        bounds.dedup();
        let fragments = sweep(o, &ts, &bounds);
        RangeDelSet { fragments, order }
    }

    /// Reads every range tombstone of `it` (an iterator over range deletions, such as
    /// [`MemTable::range_tombstone_iter`](crate::memtable::MemTable::range_tombstone_iter): keys
    /// `(begin, seq, RangeDelete)`, values the end keys) and fragments them.
    ///
    /// # Errors
    /// The iterator's error, or [`Error::Corruption`] for a key that is not a range deletion.
    pub fn read_from(it: &mut dyn InternalIterator, order: KeyOrder) -> Result<Self> {
        let mut ts = Vec::new();
        it.seek_to_first();
        while it.valid() {
            let p = ParsedKey::parse(it.key())?;
            if p.kind != ValueKind::RangeDelete {
                return Err(Error::corruption(
                    "",
                    0,
                    format!("{:?} entry among range deletions", p.kind),
                ));
            }
            ts.push(RangeTombstone::new(p.user_key, it.value(), p.seq));
            it.next();
        }
        it.status()?;
        Ok(RangeDelSet::new(ts, order))
    }

    /// True when no tombstone covers any key.
    pub fn is_empty(&self) -> bool {
        self.fragments.is_empty()
    }

    /// Number of fragments.
    pub fn num_fragments(&self) -> usize {
        self.fragments.len()
    }

    /// The fragments as `(start, end, seqs newest first)`, in key order. For tests and tools.
    pub fn fragments(&self) -> impl Iterator<Item = (&[u8], &[u8], &[SequenceNumber])> + '_ {
        self.fragments
            .iter()
            .map(|f| (f.start.as_slice(), f.end.as_slice(), f.seqs.as_slice()))
    }

    /// The largest sequence number <= `snapshot` of a tombstone covering `user_key`, if any.
    /// Entries of the key with smaller sequence numbers are deleted as of `snapshot`. O(log n).
    pub fn max_covering_seq(
        &self,
        user_key: &[u8],
        snapshot: SequenceNumber,
    ) -> Option<SequenceNumber> {
        // Fragments at or before the key: the last of them is the only one that can hold it
        // (invariant 1).
        let o = &self.order;
        let i = self
            .fragments
            .partition_point(|f| o.compare(&f.start, user_key).is_le());
        let f = &self.fragments[i.checked_sub(1)?];
        if o.compare(user_key, &f.end).is_ge() {
            return None;
        }
        let newer = f.seqs.partition_point(|&s| s > snapshot);
        f.seqs.get(newer).copied()
    }
}

/// Cuts the tombstones `ts` (sorted by begin key) at every key of `bounds` (sorted, unique),
/// keeping the pieces that some tombstone covers; keys in `order`.
fn sweep(order: &KeyOrder, ts: &[RangeTombstone], bounds: &[&[u8]]) -> Vec<Fragment> {
    let mut fragments = Vec::new();
    // Tombstones covering the current piece, as (end, seq).
    let mut active: Vec<(&[u8], SequenceNumber)> = Vec::new();
    let mut next = 0;
    for w in bounds.windows(2) {
        let (lo, hi) = (w[0], w[1]);
        active.retain(|&(end, _)| order.compare(end, lo).is_gt());
        while next < ts.len() && ts[next].begin.as_slice() == lo {
            active.push((ts[next].end.as_slice(), ts[next].seq));
            next += 1;
        }
        if active.is_empty() {
            continue;
        }
        let mut seqs: Vec<SequenceNumber> = active.iter().map(|&(_, s)| s).collect();
        seqs.sort_unstable_by(|a, b| b.cmp(a));
        seqs.dedup();
        fragments.push(Fragment {
            start: lo.to_vec(),
            end: hi.to_vec(),
            seqs,
        });
    }
    fragments
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The answer by brute force over the unfragmented tombstones.
    fn brute(
        order: &KeyOrder,
        ts: &[RangeTombstone],
        key: &[u8],
        snapshot: SequenceNumber,
    ) -> Option<SequenceNumber> {
        ts.iter()
            .filter(|t| t.contains(order, key) && t.seq <= snapshot)
            .map(|t| t.seq)
            .max()
    }

    #[test]
    fn fragments_overlapping_ranges() {
        let set = RangeDelSet::new(
            [
                RangeTombstone::new(b"a", b"e", 10),
                RangeTombstone::new(b"c", b"g", 20),
                RangeTombstone::new(b"x", b"x", 30),
            ],
            KeyOrder::BYTEWISE,
        );
        let got: Vec<_> = set.fragments().collect();
        let want: Vec<(&[u8], &[u8], &[u64])> = vec![
            (&b"a"[..], &b"c"[..], &[10][..]),
            (&b"c"[..], &b"e"[..], &[20, 10][..]),
            (&b"e"[..], &b"g"[..], &[20][..]),
        ];
        assert_eq!(got, want);
        assert_eq!(set.max_covering_seq(b"d", 100), Some(20));
        assert_eq!(set.max_covering_seq(b"d", 15), Some(10));
        assert_eq!(set.max_covering_seq(b"d", 5), None);
        assert_eq!(set.max_covering_seq(b"g", 100), None, "end is exclusive");
        assert_eq!(set.max_covering_seq(b"x", 100), None, "empty range");
        assert_eq!(set.max_covering_seq(b"", 100), None);
    }

    #[test]
    fn reads_a_memtable_range_deletion_iterator() {
        let mem = std::sync::Arc::new(crate::memtable::MemTable::default());
        mem.add(5, ValueKind::RangeDelete, b"b", b"d").expect("add");
        mem.add(7, ValueKind::RangeDelete, b"a", b"c").expect("add");
        let set = RangeDelSet::read_from(&mut mem.range_tombstone_iter(), KeyOrder::BYTEWISE)
            .expect("read");
        assert_eq!(set.max_covering_seq(b"b", 100), Some(7));
        assert_eq!(set.max_covering_seq(b"c", 100), Some(5));
        assert_eq!(set.max_covering_seq(b"b", 6), Some(5));
    }

    proptest! {
        #[test]
        fn matches_brute_force(
            raw in prop::collection::vec((0u8..12, 0u8..12, 1u64..40), 0..12),
            probes in prop::collection::vec((0u8..13, 0u64..45), 1..40),
            reverse: bool,
        ) {
            let order = if reverse { KeyOrder::REVERSE_BYTEWISE } else { KeyOrder::BYTEWISE };
            let ts: Vec<RangeTombstone> =
                raw.iter().map(|&(a, b, s)| RangeTombstone::new(&[a], &[b], s)).collect();
            let set = RangeDelSet::new(ts.clone(), order.clone());
            let frags: Vec<_> = set.fragments().collect();
            for w in frags.windows(2) {
                prop_assert!(order.compare(w[0].1, w[1].0).is_le(), "invariant 1");
            }
            for (_, _, seqs) in &frags {
                prop_assert!(!seqs.is_empty() && seqs.windows(2).all(|w| w[0] > w[1]));
            }
            for (k, snap) in probes {
                prop_assert_eq!(set.max_covering_seq(&[k], snap), brute(&order, &ts, &[k], snap));
            }
        }
    }
}
