//! Subcompactions: one compaction split into key ranges that run in parallel (RocksDB's
//! `max_subcompactions`, `CompactionJob::GenSubcompactionBoundaries`).
//!
//! Who calls it: the database's compaction executor, for a leveled compaction into a level
//! `>= 1` (Ln → Ln+1 and L0 → base), before it starts the job. [`subcompaction_ranges`] is pure;
//! [`run_subcompactions`] runs one [`CompactionJob`] per range on scoped threads, each over a
//! [`RangeLimitedIter`] of the merged inputs and the range tombstones clipped to its range.
//!
//! The split: the index separators of the input tables' data blocks are the candidate cuts, each
//! carrying its block's size (a cut at a user key keeps every version of a key in one range).
//! Walking them in key order, a cut is placed each time the bytes so far pass another `1/n` of
//! the total, so ranges carry about equal input bytes, even for L0 files that all span the
//! whole key space. A cut after key `c` is the boundary `c\0` (the smallest user key after
//! `c`): range `i` is `[c_{i-1}\0, c_i\0)`, i.e. the user keys in `(c_{i-1}, c_i]`, the first
//! unbounded below and the last unbounded above. Only column families ordered bytewise split:
//! other comparators have no key right after `c`, so their compactions run as one range.
//!
//! Invariants:
//! 1. The ranges are disjoint, adjacent and cover every user key; cuts strictly increase.
//! 2. Outputs of range `i` hold only user keys `<= c_i`, outputs of range `i + 1` only keys
//!    `> c_i`: no two outputs share a user key, so all outputs install in one edit into a
//!    level whose files stay disjoint.
//! 3. Range tombstones are clipped to each range (RocksDB gives each subcompaction the
//!    tombstones of its range through its own range-deletion aggregator). A piece clipped at
//!    `c_i\0` makes the last output of range `i` record `(c_i, 0, Delete)` as its largest key
//!    (`job.rs`, invariant 3): it covers the same user keys, those `<= c_i`, and stays below
//!    range `i + 1`, whose smallest user key is at least `c_i\0`. Together the pieces cover
//!    exactly what the tombstone covered, with no gap at a boundary (keys of deeper levels
//!    between two ranges' outputs stay covered) and no overlap.

use std::path::Path;
use std::sync::Arc;

use super::job::{CompactionInput, CompactionJob, CompactionJobResult};
use crate::error::Result;
use crate::fs::FileSystem;
use crate::iter::{BoxedIterator, InternalIterator};
use crate::sstable::Table;
use crate::types::{seek_key, user_key, RangeTombstone, MAX_SEQUENCE};
use crate::version::filenames::table_file_name;

/// One subcompaction's user-key range `[lo, hi)`; `None` is unbounded.
pub type KeyRange = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Splits inputs into at most `max` ranges of about equal bytes. `points` are `(user key,
/// bytes at or before it)` pairs in any order, e.g. each input data block's index separator and
/// size: a cut is placed after a point's key once the bytes up to it pass another `1/max` of
/// the total. One unbounded range when `max <= 1` or no point lies strictly inside the keys.
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
    ranges_after(&cuts)
}

/// The ranges that end after each of `cuts` (strictly increasing user keys): range `i` holds
/// the user keys in `(cuts[i - 1], cuts[i]]`, as `[cuts[i - 1]\0, cuts[i]\0)`; the first is
/// unbounded below, the last above.
pub fn ranges_after(cuts: &[Vec<u8>]) -> Vec<KeyRange> {
    debug_assert!(cuts.windows(2).all(|w| w[0] < w[1]), "cuts must increase");
    let mut ranges = Vec::with_capacity(cuts.len() + 1);
    let mut lo = None;
    for c in cuts {
        let mut hi = Vec::with_capacity(c.len() + 1);
        hi.extend_from_slice(c);
        hi.push(0);
        ranges.push((lo, Some(hi.clone())));
        lo = Some(hi);
    }
    ranges.push((lo, None));
    ranges
}

/// The parts of `tombstones` inside `range` (invariant 3); empty parts are left out.
pub fn clip_tombstones(tombstones: &[RangeTombstone], range: &KeyRange) -> Vec<RangeTombstone> {
    let (lo, hi) = (range.0.as_deref(), range.1.as_deref());
    tombstones
        .iter()
        .filter_map(|t| {
            let start = lo.map_or(t.begin.as_slice(), |l| l.max(t.begin.as_slice()));
            let end = hi.map_or(t.end.as_slice(), |h| h.min(t.end.as_slice()));
            (start < end).then(|| RangeTombstone::new(start, end, t.seq))
        })
        .collect()
}

/// Runs `job` once per range of `ranges` on scoped threads over `tables`, each range with its
/// clipped tombstones, and joins the results in key order (RocksDB's subcompactions). Returns
/// the combined result and the number of ranges that wrote outputs. On any failure the outputs
/// of the ranges that succeeded are removed too (those of the failed range already are).
///
/// `range_deletions_written` and `range_deletions_dropped` count tombstone pieces: a tombstone
/// spanning two ranges counts in each.
///
/// # Errors
/// The first range's error, in key order.
pub fn run_subcompactions(
    job: &CompactionJob<'_>,
    tables: &[Arc<Table>],
    ranges: Vec<KeyRange>,
    new_number: &(dyn Fn() -> u64 + Sync),
    fs: &dyn FileSystem,
    dir: &Path,
) -> Result<(CompactionJobResult, u64)> {
    let results: Vec<Result<CompactionJobResult>> = std::thread::scope(|s| {
        let handles: Vec<_> = ranges
            .into_iter()
            .map(|range| {
                s.spawn(move || {
                    let mut input =
                        CompactionInput::from_tables(tables, &job.cf_options.comparator);
                    input.range_deletions = clip_tombstones(&input.range_deletions, &range);
                    input.iter = Box::new(RangeLimitedIter::new(input.iter, range));
                    job.run(input, &mut || new_number())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(r) => r,
                // A panic in a job is a bug; re-raise it on the compaction thread.
                Err(p) => std::panic::resume_unwind(p),
            })
            .collect()
    });
    if let Some(e) = results.iter().find_map(|r| r.as_ref().err()).cloned() {
        for r in results.iter().flatten() {
            for o in &r.outputs {
                let _ = fs.remove(&dir.join(table_file_name(o.number)));
            }
        }
        return Err(e);
    }
    let mut total = CompactionJobResult::default();
    let mut with_outputs = 0;
    for r in results.into_iter().flatten() {
        with_outputs += u64::from(!r.outputs.is_empty());
        total.outputs.extend(r.outputs);
        total.bytes_written += r.bytes_written;
        total.stats.add(&r.stats);
        total.range_deletions_written += r.range_deletions_written;
        total.range_deletions_dropped += r.range_deletions_dropped;
        total.elapsed = total.elapsed.max(r.elapsed);
    }
    // Every range read from the same tables; their bytes count once.
    total.bytes_read = tables.iter().map(|t| t.file_size()).sum();
    Ok((total, with_outputs))
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
            vec![(None, Some("c\0".into())), (Some("c\0".into()), None)]
        );
        assert_eq!(ranges(&points, 4).len(), 4);
        assert_eq!(ranges(&points, 1), vec![(None, None)]);
    }

    #[test]
    fn cuts_are_strictly_increasing_and_never_at_the_last_key() {
        let points = [("a", 100), ("a", 100), ("b", 1), ("b", 1)];
        let r = ranges(&points, 8);
        assert_eq!(
            r,
            vec![(None, Some("a\0".into())), (Some("a\0".into()), None)]
        );
        assert_eq!(ranges(&[("a", 5), ("a", 5)], 4), vec![(None, None)]);
    }

    #[test]
    fn tombstones_are_clipped_to_each_range_without_gap_or_overlap() {
        let t = [
            RangeTombstone::new(b"a", b"m", 5),
            RangeTombstone::new(b"c\0", b"d", 6),
            RangeTombstone::new(b"x", b"z", 7),
        ];
        let r = ranges_after(&[b"c".to_vec(), b"q".to_vec()]);
        type Piece = (Vec<u8>, Vec<u8>, u64);
        let pieces: Vec<Vec<Piece>> = r
            .iter()
            .map(|range| {
                clip_tombstones(&t, range)
                    .into_iter()
                    .map(|t| (t.begin, t.end, t.seq))
                    .collect()
            })
            .collect();
        let p = |a: &[u8], b: &[u8], s| (a.to_vec(), b.to_vec(), s);
        assert_eq!(pieces[0], vec![p(b"a", b"c\0", 5)]);
        assert_eq!(pieces[1], vec![p(b"c\0", b"m", 5), p(b"c\0", b"d", 6)]);
        assert_eq!(pieces[2], vec![p(b"x", b"z", 7)]);
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
