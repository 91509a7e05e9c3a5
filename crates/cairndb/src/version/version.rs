//! A `Version`: the immutable set of live table files of one column family, level by level.
//!
//! Who uses it: the version set builds one per change of a column family's file set (through
//! [`VersionBuilder`](super::builder::VersionBuilder)) and hands it out as `Arc<Version>`.
//! Readers (gets, iterators) and, later, the compaction picker hold that `Arc` without any lock;
//! a `Version` never changes after it is built, so sharing it between threads is free. Holding
//! the `Arc` keeps its files live: the version set tracks every version still held (see
//! `VersionSet::live_files`).
//!
//! Invariants (established by [`Version::new`], which refuses anything else, and rechecked in
//! full by [`Version::check_invariants`]):
//! 1. There are exactly `num_levels` levels (`1..=MAX_LEVELS`); levels are a `Vec`, nothing
//!    assumes that only L0 holds files.
//! 2. L0 is ordered newest first: by largest sequence number descending, then by file number
//!    descending. A lookup searches L0 in this order and stops at the first file that decides.
//! 3. In every level `>= 1`, files are sorted by smallest key and their user-key ranges
//!    `[user_key(smallest), user_key(largest)]` do not overlap (not even at a shared boundary
//!    key), so a key is in at most one file per level and binary search finds it.
//! 4. A file number appears at most once in the whole version (never in two levels, never twice
//!    in one).
//! 5. `level_bytes(l)` is the sum of the sizes of the files in level `l`.
//!
//! Beside the files, a version carries each level's round-robin compaction cursor
//! ([`Version::compact_cursor`]): advisory state that edits set and the builder carries from one
//! version to the next, read only by the `kRoundRobin` picker. Any key is valid: a cursor need
//! not be a bound of a file still in the level.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::edit::{FileMetaData, MAX_LEVELS};
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::types::{user_key, TRAILER_LEN};

/// The number of levels RocksDB and CairnDB use unless configured otherwise.
pub const DEFAULT_NUM_LEVELS: usize = 7;

/// The live table files of one column family. See the module contract.
#[derive(Clone)]
pub struct Version {
    levels: Vec<Vec<Arc<FileMetaData>>>,
    level_bytes: Vec<u64>,
    /// Per level, the sum of [`Version::compensated_size`].
    compensated_level_bytes: Vec<u64>,
    /// The average value's share of file bytes, for weighing deletions (see
    /// [`Version::compensated_size`]).
    average_value_size: u64,
    /// File number -> level, for the builder's "is this file here?" checks in O(1).
    locations: HashMap<u64, usize>,
    /// Per level, where the next round-robin compaction out of it starts (an internal key).
    compact_cursors: Vec<Option<Vec<u8>>>,
    /// The order of the column family's keys.
    order: KeyOrder,
}

impl fmt::Debug for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Bounded: a version can hold a hundred thousand files; show the shape, not the files.
        let counts: Vec<usize> = self.levels.iter().map(Vec::len).collect();
        f.debug_struct("Version")
            .field("files_per_level", &counts)
            .field("bytes_per_level", &self.level_bytes)
            .finish()
    }
}

/// The L0 order (invariant 2): newest first.
pub(crate) fn l0_order(a: &FileMetaData, b: &FileMetaData) -> Ordering {
    b.largest_seqno
        .cmp(&a.largest_seqno)
        .then(b.number.cmp(&a.number))
}

/// The order of levels >= 1 (invariant 3): by smallest internal key in `order`, file number as
/// tiebreak so that sorting is deterministic even for (invalid) equal keys, which the check then
/// rejects.
pub(crate) fn sorted_level_order(order: &KeyOrder, a: &FileMetaData, b: &FileMetaData) -> Ordering {
    order
        .compare_internal(&a.smallest, &b.smallest)
        .then(a.number.cmp(&b.number))
}

/// How many average values a point deletion beyond half a file's entries weighs.
const DELETION_WEIGHT: u64 = 2;

fn compensated_size(f: &FileMetaData, average_value_size: u64) -> u64 {
    let Some(e) = &f.entry_stats else {
        return f.size;
    };
    let twice = e.point_deletions().saturating_mul(2);
    if twice < e.num_entries {
        return f.size;
    }
    let extra = (twice - e.num_entries)
        .saturating_mul(average_value_size)
        .saturating_mul(DELETION_WEIGHT);
    f.size.saturating_add(extra)
}

/// RocksDB's `GetAverageValueSize`: the raw bytes of a value, scaled by how much of the raw
/// key and value bytes the files hold on disk (compression), over files with entry counts.
fn average_value_size<'a>(files: impl Iterator<Item = &'a Arc<FileMetaData>>) -> u64 {
    let (mut keys, mut values, mut non_deletions, mut bytes) = (0u128, 0u128, 0u128, 0u128);
    for f in files {
        if let Some(e) = &f.entry_stats {
            keys += u128::from(e.raw_key_bytes);
            values += u128::from(e.raw_value_bytes);
            non_deletions += u128::from(e.non_deletions());
            bytes += u128::from(f.size);
        }
    }
    if non_deletions == 0 || keys + values == 0 {
        return 0;
    }
    u64::try_from(values / non_deletions * bytes / (keys + values)).unwrap_or(u64::MAX)
}

fn smallest_user_key(f: &FileMetaData) -> &[u8] {
    user_key(&f.smallest)
}

fn largest_user_key(f: &FileMetaData) -> &[u8] {
    user_key(&f.largest)
}

impl Version {
    /// A version with `num_levels` empty levels, for keys in `order`.
    ///
    /// # Panics
    /// If `num_levels` is 0 or above [`MAX_LEVELS`]; options validation rejects such values first.
    pub fn empty(num_levels: usize, order: KeyOrder) -> Version {
        assert!(
            (1..=usize::from(MAX_LEVELS)).contains(&num_levels),
            "num_levels {num_levels} out of range"
        );
        Version {
            levels: vec![Vec::new(); num_levels],
            level_bytes: vec![0; num_levels],
            compensated_level_bytes: vec![0; num_levels],
            average_value_size: 0,
            locations: HashMap::new(),
            compact_cursors: vec![None; num_levels],
            order,
        }
    }

    /// Builds a version from files already in level order (invariants 2 and 3), for keys in
    /// `order`.
    ///
    /// # Errors
    /// [`Error::Corruption`] (without a file name: the caller knows where the files came from)
    /// if the levels break an invariant: the files came from an inconsistent MANIFEST or a
    /// wrong edit, and installing them would make reads return wrong answers.
    ///
    /// # Panics
    /// If `levels` is empty or longer than [`MAX_LEVELS`].
    pub fn new(levels: Vec<Vec<Arc<FileMetaData>>>, order: KeyOrder) -> Result<Version> {
        let mut v = Version::empty(levels.len(), order);
        for (level, files) in levels.into_iter().enumerate() {
            check_level_order(&v.order, level, &files).map_err(inconsistent)?;
            for f in &files {
                check_bounds(&v.order, f).map_err(inconsistent)?;
                if let Some(other) = v.locations.insert(f.number, level) {
                    let why = format!("file {} is in level {other} and level {level}", f.number);
                    return Err(inconsistent(why));
                }
            }
            v.level_bytes[level] = files.iter().map(|f| f.size).sum();
            v.levels[level] = files;
        }
        v.average_value_size = average_value_size(v.levels.iter().flatten());
        for level in 0..v.levels.len() {
            v.compensated_level_bytes[level] = v.levels[level]
                .iter()
                .map(|f| compensated_size(f, v.average_value_size))
                .sum();
        }
        #[cfg(any(test, feature = "invariants"))]
        v.assert_invariants();
        Ok(v)
    }

    /// This version with `cursors` (one entry per level, `None`: no cursor) as its round-robin
    /// compaction cursors.
    ///
    /// # Panics
    /// If `cursors` does not have one entry per level.
    pub fn with_compact_cursors(mut self, cursors: Vec<Option<Vec<u8>>>) -> Version {
        assert_eq!(
            cursors.len(),
            self.levels.len(),
            "one cursor slot per level"
        );
        self.compact_cursors = cursors;
        self
    }

    /// Where the next round-robin compaction out of `level` starts: an internal key; the
    /// picker starts at the first file whose smallest user key is not below the cursor's user
    /// key (RocksDB's `compact_cursor_`). `None` when no round-robin compaction left the level
    /// yet.
    ///
    /// # Panics
    /// If `level >= num_levels()`.
    pub fn compact_cursor(&self, level: usize) -> Option<&[u8]> {
        self.compact_cursors[level].as_deref()
    }

    /// Every level's cursor (see [`Version::compact_cursor`]), L0 first.
    pub fn compact_cursors(&self) -> &[Option<Vec<u8>>] {
        &self.compact_cursors
    }

    /// The number of levels.
    pub fn num_levels(&self) -> usize {
        self.levels.len()
    }

    /// The order of the column family's keys.
    pub fn order(&self) -> &KeyOrder {
        &self.order
    }

    /// The files of `level` in search order (L0 newest first, others by key).
    ///
    /// # Panics
    /// If `level >= num_levels()`.
    pub fn files(&self, level: usize) -> &[Arc<FileMetaData>] {
        &self.levels[level]
    }

    /// The number of files in `level`.
    ///
    /// # Panics
    /// If `level >= num_levels()`.
    pub fn num_files(&self, level: usize) -> usize {
        self.levels[level].len()
    }

    /// The total size of the files in `level`, in bytes.
    ///
    /// # Panics
    /// If `level >= num_levels()`.
    pub fn level_bytes(&self, level: usize) -> u64 {
        self.level_bytes[level]
    }

    /// The sum of [`Version::compensated_size`] over the files of `level`: what a level's
    /// compaction score weighs.
    ///
    /// # Panics
    /// If `level >= num_levels()`.
    pub fn compensated_level_bytes(&self, level: usize) -> u64 {
        self.compensated_level_bytes[level]
    }

    /// `f`'s size with its deletions weighed extra (RocksDB's `compensated_file_size`), so
    /// compaction moves tombstones down sooner, where they free the space of the values they
    /// hide. A file whose point deletions are at least half its entries counts each deletion
    /// beyond that as two average values (RocksDB's `kDeletionWeightOnCompaction`); below
    /// half, as in a steady workload that deletes what it wrote, the size alone counts.
    /// Files without entry counts count their size.
    pub fn compensated_size(&self, f: &FileMetaData) -> u64 {
        compensated_size(f, self.average_value_size)
    }

    /// The total size of all files, in bytes.
    pub fn total_bytes(&self) -> u64 {
        self.level_bytes.iter().sum()
    }

    /// The total number of files.
    pub fn total_files(&self) -> usize {
        self.locations.len()
    }

    /// The level holding file `number`, if it is in this version.
    pub fn level_of(&self, number: u64) -> Option<usize> {
        self.locations.get(&number).copied()
    }

    /// Every file with its level, level by level in search order.
    pub fn all_files(&self) -> impl Iterator<Item = (usize, &Arc<FileMetaData>)> + '_ {
        self.levels
            .iter()
            .enumerate()
            .flat_map(|(l, files)| files.iter().map(move |f| (l, f)))
    }

    /// The files of `level` whose user-key range intersects `[smallest, largest]` (inclusive;
    /// `None` is unbounded), in the level's order. For L0 this is exactly the intersecting files;
    /// widening the range to the files those overlap (LevelDB's L0 expansion for compaction
    /// inputs) is the compaction picker's job and can be built on this.
    ///
    /// # Panics
    /// If `level >= num_levels()`.
    pub fn overlapping_files(
        &self,
        level: usize,
        smallest: Option<&[u8]>,
        largest: Option<&[u8]>,
    ) -> Vec<Arc<FileMetaData>> {
        let files = &self.levels[level];
        let o = &self.order;
        let before =
            |f: &FileMetaData| smallest.is_some_and(|s| o.compare(largest_user_key(f), s).is_lt());
        let after =
            |f: &FileMetaData| largest.is_some_and(|l| o.compare(smallest_user_key(f), l).is_gt());
        if level == 0 {
            return files
                .iter()
                .filter(|f| !before(f) && !after(f))
                .cloned()
                .collect();
        }
        // Invariant 3: both key bounds grow along the level, so the overlap is a contiguous run.
        let start = files.partition_point(|f| before(f));
        files[start..]
            .iter()
            .take_while(|f| !after(f))
            .cloned()
            .collect()
    }

    /// The files a point lookup of `key` must consult, in search order: every L0 file whose range
    /// holds the key, newest first, then at most one file per deeper level (found by binary
    /// search). The caller stops at the first file that has an entry for the key.
    pub fn files_for_get<'a>(
        &'a self,
        key: &'a [u8],
    ) -> impl Iterator<Item = (usize, &'a Arc<FileMetaData>)> + 'a {
        let o = &self.order;
        let l0 = self.levels[0]
            .iter()
            .filter(move |f| {
                o.compare(smallest_user_key(f), key).is_le()
                    && o.compare(key, largest_user_key(f)).is_le()
            })
            .map(|f| (0, f));
        let deeper =
            (1..self.levels.len()).filter_map(move |l| self.file_in_level(l, key).map(|f| (l, f)));
        l0.chain(deeper)
    }

    /// The one file of sorted `level` (>= 1) whose range holds `key`, by binary search.
    fn file_in_level(&self, level: usize, key: &[u8]) -> Option<&Arc<FileMetaData>> {
        let (files, o) = (&self.levels[level], &self.order);
        let i = files.partition_point(|f| o.compare(largest_user_key(f), key).is_lt());
        files
            .get(i)
            .filter(|f| o.compare(smallest_user_key(f), key).is_le())
    }

    /// Rechecks every invariant of the module contract from scratch.
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        if self.levels.is_empty() || self.levels.len() > usize::from(MAX_LEVELS) {
            return Err(format!("{} levels", self.levels.len()));
        }
        let mut seen = HashMap::new();
        for (level, files) in self.levels.iter().enumerate() {
            check_level_order(&self.order, level, files)?;
            for f in files {
                check_bounds(&self.order, f)?;
                if let Some(other) = seen.insert(f.number, level) {
                    return Err(format!("file {} in levels {other} and {level}", f.number));
                }
            }
            let bytes: u64 = files.iter().map(|f| f.size).sum();
            if bytes != self.level_bytes[level] {
                return Err(format!("level {level} bytes {bytes} != cached value"));
            }
        }
        if seen != self.locations {
            return Err("file location index does not match the levels".into());
        }
        Ok(())
    }

    /// Panics if an invariant is broken: a bug in whoever built the version.
    #[cfg(any(test, feature = "invariants"))]
    pub(crate) fn assert_invariants(&self) {
        if let Err(why) = self.check_invariants() {
            panic!("version invariant broken: {why}");
        }
    }
}

fn inconsistent(why: String) -> Error {
    Error::corruption("", 0, format!("inconsistent file set: {why}"))
}

/// Invariants 2 and 3 for one level, in O(files).
fn check_level_order(
    order: &KeyOrder,
    level: usize,
    files: &[Arc<FileMetaData>],
) -> std::result::Result<(), String> {
    for pair in files.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let ordered = if level == 0 {
            l0_order(a, b).is_lt()
        } else {
            order
                .compare(largest_user_key(a), smallest_user_key(b))
                .is_lt()
        };
        if !ordered {
            return Err(format!(
                "level {level}: file {} must not come before file {}",
                a.number, b.number
            ));
        }
    }
    Ok(())
}

/// The per-file rules: those the edit decoder already enforces (rechecked because a version can
/// also be built from files that never went through the decoder), and `smallest <= largest` in
/// the column family's order, which only the version knows.
fn check_bounds(order: &KeyOrder, f: &FileMetaData) -> std::result::Result<(), String> {
    let ok = f.number != 0
        && f.smallest.len() >= TRAILER_LEN
        && f.largest.len() >= TRAILER_LEN
        && order.compare_internal(&f.smallest, &f.largest).is_le();
    if ok {
        Ok(())
    } else {
        Err(format!("file {} has invalid bounds", f.number))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comparator::KeyOrder;
    use crate::test_util::file_meta;

    fn file(number: u64, lo: &str, hi: &str, seq: u64) -> Arc<FileMetaData> {
        let (lo, hi) = (lo.as_bytes(), hi.as_bytes());
        Arc::new(file_meta(number, lo, hi, number * 100, (seq, seq)))
    }

    /// L0: 3 files newest first; L1: [b,d] [f,h] [k,m]; L2: [a,z].
    fn sample() -> Version {
        let mut levels = vec![Vec::new(); DEFAULT_NUM_LEVELS];
        levels[0] = vec![
            file(9, "c", "g", 30),
            file(8, "a", "c", 20),
            file(7, "x", "y", 10),
        ];
        levels[1] = vec![
            file(4, "b", "d", 5),
            file(5, "f", "h", 5),
            file(6, "k", "m", 5),
        ];
        levels[2] = vec![file(1, "a", "z", 1)];
        Version::new(levels, KeyOrder::BYTEWISE).expect("valid version")
    }

    fn numbers(files: &[Arc<FileMetaData>]) -> Vec<u64> {
        files.iter().map(|f| f.number).collect()
    }

    fn get_path(v: &Version, key: &str) -> Vec<(usize, u64)> {
        v.files_for_get(key.as_bytes())
            .map(|(l, f)| (l, f.number))
            .collect()
    }

    #[test]
    fn queries_on_a_sample_version() {
        let v = sample();
        v.assert_invariants();
        assert_eq!(v.num_files(0), 3);
        assert_eq!(v.level_bytes(1), 1500);
        assert_eq!(v.total_bytes(), 900 + 800 + 700 + 1500 + 100);
        assert_eq!(v.total_files(), 7);
        assert_eq!(v.level_of(5), Some(1));
        assert_eq!(v.level_of(99), None);
        assert_eq!(v.all_files().count(), 7);
        assert_eq!(numbers(v.files(0)), vec![9, 8, 7]);
    }

    #[test]
    fn files_for_get_searches_l0_newest_first_then_one_file_per_level() {
        let v = sample();
        assert_eq!(get_path(&v, "c"), vec![(0, 9), (0, 8), (1, 4), (2, 1)]);
        // Boundaries of L1 files are inclusive on both sides.
        assert_eq!(get_path(&v, "b"), vec![(0, 8), (1, 4), (2, 1)]);
        assert_eq!(get_path(&v, "d"), vec![(0, 9), (1, 4), (2, 1)]);
        assert_eq!(get_path(&v, "f"), vec![(0, 9), (1, 5), (2, 1)]);
        assert_eq!(get_path(&v, "m"), vec![(1, 6), (2, 1)]);
        // Gaps between L1 files, and keys before the first and after the last.
        assert_eq!(get_path(&v, "e"), vec![(0, 9), (2, 1)]);
        assert_eq!(get_path(&v, "i"), vec![(2, 1)]);
        assert_eq!(get_path(&v, "0"), Vec::<(usize, u64)>::new());
        assert_eq!(get_path(&v, "zz"), Vec::<(usize, u64)>::new());
        assert_eq!(get_path(&v, "x"), vec![(0, 7), (2, 1)]);
    }

    #[test]
    fn overlapping_files_per_level() {
        let v = sample();
        let over = |l, lo: Option<&str>, hi: Option<&str>| {
            numbers(&v.overlapping_files(l, lo.map(str::as_bytes), hi.map(str::as_bytes)))
        };
        assert_eq!(over(1, Some("d"), Some("f")), vec![4, 5]);
        assert_eq!(over(1, Some("e"), Some("e")), Vec::<u64>::new());
        assert_eq!(over(1, Some("h"), Some("k")), vec![5, 6]);
        assert_eq!(over(1, None, Some("b")), vec![4]);
        assert_eq!(over(1, Some("n"), None), Vec::<u64>::new());
        assert_eq!(over(1, None, None), vec![4, 5, 6]);
        assert_eq!(over(0, Some("c"), Some("c")), vec![9, 8]);
        assert_eq!(over(0, Some("h"), Some("w")), Vec::<u64>::new());
        assert_eq!(over(0, None, None), vec![9, 8, 7]);
        assert_eq!(over(3, None, None), Vec::<u64>::new());
    }

    #[test]
    fn binary_search_edges_on_a_long_level() {
        // 100 files [k000a, k000b], [k001a, k001b], ...: every key inside, on and between bounds.
        let files: Vec<_> = (0..100u64)
            .map(|i| file(i + 1, &format!("k{i:03}a"), &format!("k{i:03}b"), 1))
            .collect();
        let mut levels = vec![Vec::new(); 3];
        levels[2] = files;
        let v = Version::new(levels, KeyOrder::BYTEWISE).expect("valid");
        for i in 0..100u64 {
            for (suffix, want) in [
                ("a", Some(i + 1)),
                ("b", Some(i + 1)),
                ("c", None),
                ("", None),
            ] {
                let key = format!("k{i:03}{suffix}");
                let got = v
                    .files_for_get(key.as_bytes())
                    .map(|(_, f)| f.number)
                    .next();
                assert_eq!(got, want, "{key}");
            }
        }
    }

    #[test]
    fn broken_invariants_are_refused() {
        let overlapping = vec![vec![], vec![file(1, "a", "c", 1), file(2, "c", "d", 1)]];
        assert!(Version::new(overlapping, KeyOrder::BYTEWISE)
            .unwrap_err()
            .is_corruption());
        let unsorted = vec![vec![], vec![file(1, "e", "f", 1), file(2, "a", "b", 1)]];
        assert!(Version::new(unsorted, KeyOrder::BYTEWISE)
            .unwrap_err()
            .is_corruption());
        let l0_oldest_first = vec![vec![file(1, "a", "b", 1), file(2, "a", "b", 2)]];
        assert!(Version::new(l0_oldest_first, KeyOrder::BYTEWISE)
            .unwrap_err()
            .is_corruption());
        let twice = vec![vec![file(1, "a", "b", 1)], vec![file(1, "a", "b", 1)]];
        assert!(Version::new(twice, KeyOrder::BYTEWISE)
            .unwrap_err()
            .is_corruption());
    }

    #[test]
    fn l0_ties_on_sequence_order_by_file_number() {
        let levels = vec![vec![file(5, "a", "b", 3), file(4, "a", "b", 3)]];
        let v = Version::new(levels, KeyOrder::BYTEWISE).expect("valid");
        assert_eq!(get_path(&v, "a"), vec![(0, 5), (0, 4)]);
    }
}
