//! Per-call options: `ReadOptions`, `WriteOptions`, `FlushOptions`, `CompactOptions`,
//! `WaitForCompactOptions` and `IngestExternalFileOptions`. A refused setter is kept on the
//! options and the call that uses them fails with `Not implemented`.

use std::fmt;
use std::sync::Arc;

use crate::snapshot::SnapshotWithThreadMode;
use crate::{DBAccess, Error, IterateBounds};

/// Which data a read may touch.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum ReadTier {
    /// Memtables, cache and files.
    All = 0,
    /// Memtables and the block cache only: refused.
    BlockCache,
    /// Persisted data only: refused.
    Persisted,
    /// Memtables only: refused.
    Memtable,
}

/// Options of a read (RocksDB's `ReadOptions`).
#[derive(Clone, Default)]
pub struct ReadOptions {
    pub(crate) inner: cairndb::options::ReadOptions,
    /// Keeps the snapshot given to `set_snapshot` registered while these options exist.
    pub(crate) snapshot: Option<Arc<cairndb::Snapshot>>,
    pub(crate) refused: Vec<String>,
}

impl fmt::Debug for ReadOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReadOptions")
            .field("inner", &self.inner)
            .field("refused", &self.refused)
            .finish()
    }
}

impl ReadOptions {
    fn refuse(&mut self, setter: impl fmt::Display, why: &str) {
        self.refused.push(format!("ReadOptions::{setter}: {why}"));
    }

    /// The options for a read, or the first refused setter.
    pub(crate) fn checked(&self) -> Result<&cairndb::options::ReadOptions, Error> {
        match self.refused.first() {
            Some(r) => Err(Error::not_supported(r)),
            None => Ok(&self.inner),
        }
    }

    /// Whether blocks read go into the block cache.
    pub fn fill_cache(&mut self, v: bool) {
        self.inner.fill_cache = v;
    }

    /// Reads see the database as of `snapshot`.
    pub fn set_snapshot<D: DBAccess>(&mut self, snapshot: &SnapshotWithThreadMode<'_, D>) {
        self.inner.snapshot = snapshot.handle.seq;
        self.snapshot = snapshot.handle.held.clone();
    }

    /// Iterators stop before `key` (exclusive).
    pub fn set_iterate_upper_bound<K: Into<Vec<u8>>>(&mut self, key: K) {
        self.inner.iterate_upper_bound = Some(key.into());
    }

    /// Iterators start at `key` (inclusive).
    pub fn set_iterate_lower_bound<K: Into<Vec<u8>>>(&mut self, key: K) {
        self.inner.iterate_lower_bound = Some(key.into());
    }

    /// Both iterate bounds from a range.
    pub fn set_iterate_range(&mut self, range: impl IterateBounds) {
        let (lower, upper) = range.into_bounds();
        self.inner.iterate_lower_bound = lower;
        self.inner.iterate_upper_bound = upper;
    }

    /// Iterators stop when the prefix changes.
    pub fn set_prefix_same_as_start(&mut self, v: bool) {
        self.inner.prefix_same_as_start = v;
    }

    /// Seeks ignore the prefix extractor.
    pub fn set_total_order_seek(&mut self, v: bool) {
        self.inner.total_order_seek = v;
    }

    /// Block checksums are verified.
    pub fn set_verify_checksums(&mut self, v: bool) {
        self.inner.verify_checksums = v;
    }

    /// Which data a read may touch: `All` is honoured; the others are refused.
    pub fn set_read_tier(&mut self, tier: ReadTier) {
        if tier != ReadTier::All {
            self.refuse(
                format!("set_read_tier({tier:?})"),
                "CairnDB reads always go to every tier",
            );
        }
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn set_timestamp<S: Into<Vec<u8>>>(&mut self, _ts: S) {
        self.refuse("set_timestamp", "CairnDB has no user-defined timestamps");
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn set_iter_start_ts<S: Into<Vec<u8>>>(&mut self, _ts: S) {
        self.refuse(
            "set_iter_start_ts",
            "CairnDB has no user-defined timestamps",
        );
    }

    /// Refused when true: CairnDB has no tailing iterators.
    pub fn set_tailing(&mut self, v: bool) {
        if v {
            self.refuse("set_tailing(true)", "CairnDB has no tailing iterators");
        }
    }

    /// Iterators keep the blocks of their current key pinned. CairnDB's iterators always do
    /// (keys and values stay valid until the iterator moves), so this is honoured either way.
    pub fn set_pin_data(&mut self, _v: bool) {}
}

/// Options of a write (RocksDB's `WriteOptions`).
#[derive(Debug, Clone, Default)]
pub struct WriteOptions {
    pub(crate) inner: cairndb::options::WriteOptions,
    pub(crate) refused: Vec<String>,
}

impl WriteOptions {
    /// Default options.
    pub fn new() -> WriteOptions {
        WriteOptions::default()
    }

    /// The options for a write, or the first refused setter.
    pub(crate) fn checked(&self) -> Result<&cairndb::options::WriteOptions, Error> {
        match self.refused.first() {
            Some(r) => Err(Error::not_supported(r)),
            None => Ok(&self.inner),
        }
    }

    /// The write is synced before it is acknowledged.
    pub fn set_sync(&mut self, sync: bool) {
        self.inner.sync = sync;
    }

    /// The write skips the WAL (lost on a crash before a flush).
    pub fn disable_wal(&mut self, disable: bool) {
        self.inner.disable_wal = disable;
    }

    /// The write fails instead of waiting when writes are slowed down or stopped: with
    /// `Resource busy` (RocksDB's is `Incomplete`).
    pub fn set_no_slowdown(&mut self, no_slowdown: bool) {
        self.inner.no_slowdown = no_slowdown;
    }

    /// Refused when true: CairnDB fails writes to dropped families.
    pub fn set_ignore_missing_column_families(&mut self, ignore: bool) {
        if ignore {
            self.refused.push(
                "WriteOptions::set_ignore_missing_column_families(true): CairnDB fails writes \
                 to dropped column families"
                    .into(),
            );
        }
    }

    /// Refused when true: CairnDB has no low-priority writes.
    pub fn set_low_pri(&mut self, v: bool) {
        if v {
            self.refused
                .push("WriteOptions::set_low_pri(true): CairnDB has no low-priority writes".into());
        }
    }
}

/// Options of a flush.
#[derive(Debug, Clone)]
pub struct FlushOptions {
    pub(crate) wait: bool,
}

impl Default for FlushOptions {
    fn default() -> Self {
        FlushOptions { wait: true }
    }
}

impl FlushOptions {
    /// Default options (the flush waits).
    pub fn new() -> FlushOptions {
        FlushOptions::default()
    }

    /// Whether the flush call waits for the flush; without waiting, the flush runs on a
    /// thread of its own and its error is not reported to the caller (as in RocksDB, where it
    /// becomes a background error).
    pub fn set_wait(&mut self, wait: bool) {
        self.wait = wait;
    }
}

/// What a manual compaction does with the last level. CairnDB's manual compaction always
/// rewrites the last level (RocksDB's `Force`): with `Skip` or `IfHaveCompactionFilter` it does
/// more work than RocksDB's for the same contents (docs/design/rocksdb_facade.md).
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum BottommostLevelCompaction {
    /// Skip it (CairnDB rewrites it anyway).
    Skip = 0,
    /// Only with a compaction filter (CairnDB rewrites it anyway).
    IfHaveCompactionFilter,
    /// Always.
    Force,
    /// Always, skipping files the compaction just wrote (CairnDB rewrites them too).
    ForceOptimized,
}

/// Options of a manual compaction.
#[derive(Debug, Clone, Default)]
pub struct CompactOptions {
    pub(crate) bottommost: Option<BottommostLevelCompaction>,
    pub(crate) full_history_ts_low: Option<Vec<u8>>,
    /// A refused setter: a compaction with these options does nothing (its error cannot be
    /// returned, as in RocksDB's binding).
    pub(crate) refused: Option<&'static str>,
}

impl CompactOptions {
    /// Whether other compactions wait: CairnDB's manual compaction runs alongside automatic
    /// ones on disjoint files either way, so both values give the same result.
    pub fn set_exclusive_manual_compaction(&mut self, _v: bool) {}

    /// The timestamp below which history may be dropped. CairnDB has no user-defined
    /// timestamps: a compaction given one does nothing (RocksDB fails it, and its binding drops
    /// the error).
    pub fn set_full_history_ts_low<S: Into<Vec<u8>>>(&mut self, ts: S) {
        self.full_history_ts_low = Some(ts.into());
    }

    /// What to do with the last level (see [`BottommostLevelCompaction`]).
    pub fn set_bottommost_level_compaction(&mut self, lvl: BottommostLevelCompaction) {
        self.bottommost = Some(lvl);
    }
}

/// Options of `wait_for_compact`.
#[derive(Debug, Clone, Default)]
pub struct WaitForCompactOptions {
    pub(crate) flush: bool,
    pub(crate) refused: Vec<String>,
}

impl WaitForCompactOptions {
    /// Refused when true: CairnDB has no pausing of background work to abort on.
    pub fn set_abort_on_pause(&mut self, v: bool) {
        if v {
            self.refused.push(
                "WaitForCompactOptions::set_abort_on_pause(true): CairnDB cannot pause \
                 background work"
                    .into(),
            );
        }
    }

    /// Flush the memtables first.
    pub fn set_flush(&mut self, v: bool) {
        self.flush = v;
    }
}

/// Options of `ingest_external_file`.
#[derive(Debug, Clone, Default)]
pub struct IngestExternalFileOptions {
    pub(crate) inner: cairndb::IngestExternalFileOptions,
}

impl IngestExternalFileOptions {
    /// Move (hard-link) the files instead of copying them.
    pub fn set_move_files(&mut self, v: bool) {
        self.inner.move_files = v;
    }

    /// Ingested keys are invisible to snapshots taken before the ingestion.
    pub fn set_snapshot_consistency(&mut self, v: bool) {
        self.inner.snapshot_consistency = v;
    }

    /// Files that overlap the database may be given a sequence number.
    pub fn set_allow_global_seqno(&mut self, v: bool) {
        self.inner.allow_global_seqno = v;
    }

    /// The ingestion may flush an overlapping memtable first.
    pub fn set_allow_blocking_flush(&mut self, v: bool) {
        self.inner.allow_blocking_flush = v;
    }

    /// The files go to the last level, below every existing key.
    pub fn set_ingest_behind(&mut self, v: bool) {
        self.inner.ingest_behind = v;
    }
}

impl ReadOptions {
    /// 0 (no deadline) is honoured; other deadlines are refused.
    pub fn set_deadline(&mut self, microseconds: u64) {
        if microseconds != 0 {
            self.refuse(
                format!("set_deadline({microseconds})"),
                "CairnDB reads have no deadline",
            );
        }
    }

    /// 0 (no timeout) is honoured; other timeouts are refused.
    pub fn set_io_timeout(&mut self, microseconds: u64) {
        if microseconds != 0 {
            self.refuse(
                format!("set_io_timeout({microseconds})"),
                "CairnDB reads have no I/O timeout",
            );
        }
    }
}

impl CompactOptions {
    /// Refused (the compaction is not run): CairnDB's manual compaction writes to the last
    /// level and cannot move the result to another.
    pub fn set_change_level(&mut self, v: bool) {
        if v {
            self.refused = Some("set_change_level(true)");
        }
    }

    /// Refused (the compaction is not run) for any level but -1 (the default).
    pub fn set_target_level(&mut self, lvl: i32) {
        if lvl != -1 {
            self.refused = Some("set_target_level");
        }
    }
}
