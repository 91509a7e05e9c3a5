//! Deletion-triggered compaction: [`CompactOnDeletion`] (the option) and
//! [`DeletionCollector`], which watches the entries of a table as it is built and says whether
//! the table holds so many deletions that it should be compacted soon (RocksDB's
//! `CompactOnDeletionCollector`, `utilities/table_properties_collectors/`).
//!
//! Who calls it: the flush and the compaction job, one collector per output table, fed every
//! point entry in the order the table receives them. A file it marks gets
//! `FileMetaData::marked_for_compaction`, which the MANIFEST keeps (RocksDB's `kNeedCompaction`
//! new-file field) and the leveled picker reads when no level needs compacting by size
//! (RocksDB's `PickFilesMarkedForCompaction`).
//!
//! The window, as RocksDB counts it: the last `window_size` entries are split into 128 buckets
//! of `ceil(window_size / 128)` entries; the count of deletions (`Delete` and `SingleDelete`)
//! in the buckets of the window is kept as entries arrive, and the file is marked as soon as it
//! reaches `deletion_trigger`. With `deletion_ratio > 0` the file is also marked when
//! deletions are at least that fraction of all its entries. Range deletions do not count.

use crate::error::{Error, Result};
use crate::types::ValueKind;

/// Buckets in the sliding window (RocksDB's `kNumBuckets`).
const NUM_BUCKETS: usize = 128;

/// When a table counts as full of deletions (RocksDB's `NewCompactOnDeletionCollectorFactory`
/// parameters). MyRocks' `rocksdb_compaction_sequential_deletes` settings are
/// `window_size = 200000`, `deletion_trigger = 199999`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompactOnDeletion {
    /// Entries in the sliding window; 0 disables the window test.
    pub sliding_window_size: u64,
    /// Deletions within one window that mark the file. Range 1..=sliding_window_size when the
    /// window is on.
    pub deletion_trigger: u64,
    /// Fraction of deletions among all entries that marks the file; 0 disables. Range 0..=1.
    pub deletion_ratio: f64,
}

impl CompactOnDeletion {
    /// Checks the ranges.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the bad value.
    pub fn validate(&self) -> Result<()> {
        let w = self.sliding_window_size;
        if w > 0 && !(1..=w).contains(&self.deletion_trigger) {
            return Err(Error::InvalidArgument(format!(
                "option compact_on_deletion.deletion_trigger is {}; it must be in 1..={w} \
                 (the window size)",
                self.deletion_trigger
            )));
        }
        let r = self.deletion_ratio;
        if !(r.is_finite() && (0.0..=1.0).contains(&r)) {
            return Err(Error::InvalidArgument(format!(
                "option compact_on_deletion.deletion_ratio is {r}; it must be in 0..=1"
            )));
        }
        Ok(())
    }
}

/// Counts deletions of one table under construction. See the module contract.
#[derive(Debug, Clone)]
pub struct DeletionCollector {
    trigger: u64,
    ratio: f64,
    bucket_size: u64,
    buckets: [u64; NUM_BUCKETS],
    current: usize,
    in_current: u64,
    in_window: u64,
    entries: u64,
    deletions: u64,
    marked: bool,
}

impl DeletionCollector {
    /// A collector for `options`.
    pub fn new(options: &CompactOnDeletion) -> Self {
        DeletionCollector {
            trigger: options.deletion_trigger,
            ratio: options.deletion_ratio,
            bucket_size: options.sliding_window_size.div_ceil(NUM_BUCKETS as u64),
            buckets: [0; NUM_BUCKETS],
            current: 0,
            in_current: 0,
            in_window: 0,
            entries: 0,
            deletions: 0,
            marked: false,
        }
    }

    /// Counts one point entry of kind `kind`.
    pub fn add(&mut self, kind: ValueKind) {
        let is_delete = matches!(kind, ValueKind::Delete | ValueKind::SingleDelete);
        self.entries += 1;
        self.deletions += u64::from(is_delete);
        if self.marked || self.bucket_size == 0 {
            return;
        }
        if self.in_current == self.bucket_size {
            // The oldest bucket leaves the window.
            self.current = (self.current + 1) % NUM_BUCKETS;
            self.in_window -= self.buckets[self.current];
            self.buckets[self.current] = 0;
            self.in_current = 0;
        }
        self.in_current += 1;
        if is_delete {
            self.buckets[self.current] += 1;
            self.in_window += 1;
            if self.in_window >= self.trigger {
                self.marked = true;
            }
        }
    }

    /// Whether the table should be marked for compaction.
    pub fn need_compaction(&self) -> bool {
        self.marked
            || (self.ratio > 0.0
                && self.entries > 0
                && self.deletions as f64 >= self.ratio * self.entries as f64)
    }
}

/// A collector for `options`, if deletion-triggered compaction is on.
pub fn collector_for(options: Option<&CompactOnDeletion>) -> Option<DeletionCollector> {
    options.map(DeletionCollector::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(c: &mut DeletionCollector, pattern: &[(ValueKind, usize)]) {
        for &(k, n) in pattern {
            for _ in 0..n {
                c.add(k);
            }
        }
    }

    fn opts(window: u64, trigger: u64, ratio: f64) -> CompactOnDeletion {
        CompactOnDeletion {
            sliding_window_size: window,
            deletion_trigger: trigger,
            deletion_ratio: ratio,
        }
    }

    #[test]
    fn a_dense_run_of_deletions_marks_the_file() {
        let mut c = DeletionCollector::new(&opts(1280, 1000, 0.0));
        feed(&mut c, &[(ValueKind::Put, 5000), (ValueKind::Delete, 999)]);
        assert!(!c.need_compaction());
        c.add(ValueKind::SingleDelete);
        assert!(c.need_compaction());
    }

    #[test]
    fn deletions_spread_thinner_than_the_window_do_not() {
        let mut c = DeletionCollector::new(&opts(1280, 100, 0.0));
        for _ in 0..10_000 {
            feed(&mut c, &[(ValueKind::Put, 15), (ValueKind::Delete, 1)]);
        }
        // 1280 / 16 = 80 deletions per window at most (plus one bucket of slack).
        assert!(!c.need_compaction());
    }

    #[test]
    fn the_ratio_marks_a_file_of_mostly_deletions() {
        let mut c = DeletionCollector::new(&opts(0, 0, 0.5));
        feed(&mut c, &[(ValueKind::Put, 10), (ValueKind::Delete, 9)]);
        assert!(!c.need_compaction());
        c.add(ValueKind::Delete);
        assert!(c.need_compaction());
        assert!(!DeletionCollector::new(&opts(0, 0, 0.0)).need_compaction());
    }

    #[test]
    fn options_are_checked() {
        assert!(opts(100, 0, 0.0).validate().is_err());
        assert!(opts(100, 101, 0.0).validate().is_err());
        assert!(opts(100, 100, 1.5).validate().is_err());
        assert!(opts(200_000, 199_999, 0.0).validate().is_ok());
        assert!(opts(0, 0, 0.3).validate().is_ok());
    }
}
