//! Subcompactions: one compaction split into key ranges that run in parallel (RocksDB's
//! `max_subcompactions`, `CompactionJob::GenSubcompactionBoundaries`).
//!
//! Who calls it: the database's compaction executor, for a leveled compaction into a level
//! `>= 1` (Ln → Ln+1 and L0 → base), before it starts the job. [`subcompaction_ranges`] is pure;
//! [`RangeLimitedIter`] restricts one range's merged input.
//!
//! The split: the index separators of the input tables' data blocks are the candidate cuts, each
//! carrying its block's size (a cut at a user key keeps every version of a key in one range).
//! Walking them in key order, a cut is placed each time the bytes so far pass another `1/n` of
//! the total, so ranges carry about equal input bytes, even for L0 files that all span the
//! whole key space. Ranges are `[lo, hi)` with the first unbounded
//! below and the last unbounded above.
//!
//! Invariants:
//! 1. The ranges are disjoint, adjacent and cover every user key; cuts strictly increase.
//! 2. Outputs of range `i` hold only user keys `< cut_i`, outputs of range `i + 1` only keys
//!    `>= cut_i`: no two outputs share a user key, so all outputs install in one edit into a
//!    level whose files stay disjoint.
//! 3. Inputs with range tombstones are not split: a tombstone clipped at a cut would need the
//!    outputs on both sides of the cut to share the boundary user key in their recorded ranges
//!    (see `job.rs`, invariant 3), which sorted levels forbid.

use crate::error::Result;
use crate::iter::{BoxedIterator, InternalIterator};
use crate::types::{seek_key, user_key, MAX_SEQUENCE};

/// One subcompaction's user-key range `[lo, hi)`; `None` is unbounded.
pub type KeyRange = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Splits inputs into at most `max` ranges of about equal bytes. `points` are `(user key,
/// bytes at or before it)` pairs in any order, e.g. each input data block's index separator and
/// size: a cut is placed at a point's key once the bytes up to it pass another `1/max` of the
/// total. One unbounded range when `max <= 1` or no point lies strictly inside the keys.
pub fn subcompaction_ranges(points: &[(&[u8], u64)], max: usize) -> Vec<KeyRange> {
    let mut sorted: Vec<(&[u8], u64)> = points.to_vec();
    sorted.sort_by(|a, b| a.0.cmp(b.0));
    let total: u64 = sorted.iter().map(|p| p.1).sum();
    let mut cuts: Vec<Vec<u8>> = Vec::new();
    if let (true, Some(&(last_key, _))) = (max > 1 && total > 0, sorted.last()) {
        let share = total.div_ceil(max as u64);
        let mut seen = 0u64;
        for &(key, bytes) in &sorted {
            seen += bytes;
            if cuts.len() + 1 >= max {
                break;
            }
            let due = seen >= share * (cuts.len() as u64 + 1);
            let increasing = cuts.last().is_none_or(|c| key > c.as_slice());
            // A cut at the last key would leave an empty range behind it.
            if due && increasing && key < last_key {
                cuts.push(key.to_vec());
            }
        }
    }
    let mut ranges = Vec::with_capacity(cuts.len() + 1);
    let mut lo = None;
    for c in cuts {
        ranges.push((lo, Some(c.clone())));
        lo = Some(c);
    }
    ranges.push((lo, None));
    ranges
}

/// An iterator over the entries of `inner` whose user keys lie in `[lo, hi)`. Forward use only
/// is what compaction needs; backward positioning is supported for completeness.
pub struct RangeLimitedIter {
    inner: BoxedIterator,
    lo: Option<Vec<u8>>,
    hi: Option<Vec<u8>>,
}

impl std::fmt::Debug for RangeLimitedIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeLimitedIter")
            .field("lo", &self.lo)
            .field("hi", &self.hi)
            .finish_non_exhaustive()
    }
}

impl RangeLimitedIter {
    /// `inner` restricted to `range`.
    pub fn new(inner: BoxedIterator, range: KeyRange) -> Self {
        RangeLimitedIter {
            inner,
            lo: range.0,
            hi: range.1,
        }
    }
}

impl InternalIterator for RangeLimitedIter {
    fn valid(&self) -> bool {
        if !self.inner.valid() {
            return false;
        }
        let uk = user_key(self.inner.key());
        self.lo.as_deref().is_none_or(|l| uk >= l) && self.hi.as_deref().is_none_or(|h| uk < h)
    }

    fn seek_to_first(&mut self) {
        match &self.lo {
            Some(l) => self.inner.seek(&seek_key(l, MAX_SEQUENCE)),
            None => self.inner.seek_to_first(),
        }
    }

    fn seek_to_last(&mut self) {
        match &self.hi {
            Some(h) => {
                self.inner.seek(&seek_key(h, MAX_SEQUENCE));
                if self.inner.valid() {
                    self.inner.prev();
                } else {
                    self.inner.seek_to_last();
                }
            }
            None => self.inner.seek_to_last(),
        }
    }

    fn seek(&mut self, target: &[u8]) {
        match &self.lo {
            Some(l) if user_key(target) < l.as_slice() => {
                self.inner.seek(&seek_key(l, MAX_SEQUENCE));
            }
            _ => self.inner.seek(target),
        }
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        self.inner.seek_for_prev(target);
    }

    fn next(&mut self) {
        self.inner.next();
    }

    fn prev(&mut self) {
        self.inner.prev();
    }

    fn key(&self) -> &[u8] {
        self.inner.key()
    }

    fn value(&self) -> &[u8] {
        self.inner.value()
    }

    fn status(&self) -> Result<()> {
        self.inner.status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(files: &[(&str, u64)], max: usize) -> Vec<(Option<String>, Option<String>)> {
        let f: Vec<(&[u8], u64)> = files.iter().map(|(k, s)| (k.as_bytes(), *s)).collect();
        subcompaction_ranges(&f, max)
            .into_iter()
            .map(|(l, h)| {
                let s = |v: Option<Vec<u8>>| v.map(|v| String::from_utf8(v).expect("utf8"));
                (s(l), s(h))
            })
            .collect()
    }

    #[test]
    fn equal_blocks_split_evenly() {
        let points = [("a", 10), ("c", 10), ("e", 10), ("g", 10)];
        assert_eq!(
            ranges(&points, 2),
            vec![(None, Some("c".into())), (Some("c".into()), None)]
        );
        assert_eq!(ranges(&points, 4).len(), 4);
        assert_eq!(ranges(&points, 1), vec![(None, None)]);
    }

    #[test]
    fn cuts_are_strictly_increasing_and_never_at_the_last_key() {
        let points = [("a", 100), ("a", 100), ("b", 1), ("b", 1)];
        let r = ranges(&points, 8);
        assert_eq!(r, vec![(None, Some("a".into())), (Some("a".into()), None)]);
        assert_eq!(ranges(&[("a", 5), ("a", 5)], 4), vec![(None, None)]);
    }

    #[test]
    fn a_big_file_takes_its_own_range() {
        let files = [("a", 1), ("b", 1), ("c", 100), ("d", 1)];
        let r = ranges(&files, 3);
        assert!(r.len() >= 2, "{r:?}");
        for w in r.windows(2) {
            assert_eq!(w[0].1, w[1].0, "adjacent");
        }
    }
}
