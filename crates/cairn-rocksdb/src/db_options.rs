//! Options: the database's and column families' (`Options`), table options
//! (`BlockBasedOptions`, `Cache`), and the per-call options (`ReadOptions`, `WriteOptions`,
//! `FlushOptions`, `CompactOptions`, `WaitForCompactOptions`).
//!
//! Each setter changes the CairnDB option of the same name, or is refused: the refusal is kept on
//! the options and the open (or read) that uses them fails with `Not implemented`, naming the
//! setter and why.

use std::fmt;
use std::sync::Arc;

use cairndb::compaction::deletion_collector::CompactOnDeletion;
use cairndb::fs::FileSystem;
use cairndb::options::{
    CompactionPri as CairnCompactionPri, CompactionStyle, InfoLogLevel, RateLimiter, Statistics,
    WalRecoveryMode,
};
use cairndb::sstable::BlockCache;
use cairndb::CompressionType;
use parking_lot::Mutex;

use crate::compaction_filter::{self, CompactionFilterFn};
use crate::comparator::{self, CompareFn, CompareWithoutTsFn};
use crate::env::Env;
use crate::merge_operator::{self, MergeFn};
use crate::properties::CStrLike;
use crate::slice_transform::SliceTransform;
use crate::snapshot::SnapshotWithThreadMode;
use crate::{DBAccess, Error, IterateBounds};

/// The database's options and those of a column family (RocksDB's `Options`).
#[derive(Clone, Default)]
pub struct Options {
    pub(crate) inner: cairndb::options::Options,
    /// The `Env` of `set_env`, read when the options are used.
    pub(crate) env: Option<Env>,
    /// Setters CairnDB does not honour, with the reason; an open with these options fails.
    pub(crate) refused: Vec<String>,
    use_fsync: bool,
    write_dbid_to_manifest: bool,
    track_and_verify_wals_in_manifest: bool,
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("inner", &self.inner)
            .field("refused", &self.refused)
            .finish()
    }
}

fn nonneg<T: TryFrom<i64>>(v: impl Into<i64>) -> Option<T> {
    T::try_from(v.into()).ok()
}

/// RocksDB's `SanitizeOptions` rules for the memtable counts, which the engine would refuse
/// instead: at least two memtables, and `min_write_buffer_number_to_merge` lowered to
/// `max_write_buffer_number - 1` (and raised to 1). RocksDB programs rely on them, for example
/// by setting a merge count with the default two memtables.
fn sanitize_memtable_counts(cf: &mut cairndb::options::CfOptions) {
    cf.max_write_buffer_number = cf.max_write_buffer_number.max(2);
    cf.min_write_buffer_number_to_merge = cf
        .min_write_buffer_number_to_merge
        .min(cf.max_write_buffer_number - 1)
        .max(1);
}

impl Options {
    pub(crate) fn refuse(&mut self, setter: impl fmt::Display, why: &str) {
        self.refused.push(format!("{setter}: {why}"));
    }

    fn refuse_range(&mut self, setter: &str, value: impl fmt::Display) {
        self.refuse(format!("{setter}({value})"), "out of the option's range");
    }

    /// The options for an open, or the first refused setter.
    pub(crate) fn checked(&self) -> Result<cairndb::options::Options, Error> {
        if let Some(r) = self.refused.first() {
            return Err(Error::not_supported(r));
        }
        let mut options = self.inner.clone();
        sanitize_memtable_counts(&mut options.cf);
        if let Some(env) = &self.env {
            let settings = env.settings();
            if let Some(r) = settings.refused.first() {
                return Err(Error::not_supported(r));
            }
            if let Some(p) = settings.compaction_cpu {
                options.db.compaction_cpu_priority = p;
            }
            if let Some(p) = settings.flush_cpu {
                options.db.flush_cpu_priority = p;
            }
        }
        Ok(options)
    }

    /// The file system of [`Options::set_env`], or the real one.
    pub(crate) fn file_system(&self) -> Arc<dyn FileSystem> {
        self.env
            .as_ref()
            .map(|e| Arc::clone(&e.fs))
            .unwrap_or_else(cairndb::fs::RealFs::shared)
    }

    /// Creates the database when it does not exist.
    pub fn create_if_missing(&mut self, create_if_missing: bool) {
        self.inner.db.create_if_missing = create_if_missing;
    }

    /// Creates listed column families the database lacks.
    pub fn create_missing_column_families(&mut self, create_missing_cfs: bool) {
        self.inner.db.create_missing_column_families = create_missing_cfs;
    }

    /// Fails the open when the database exists.
    pub fn set_error_if_exists(&mut self, enabled: bool) {
        self.inner.db.error_if_exists = enabled;
    }

    /// Checks more aggressively for damage (RocksDB's `paranoid_checks`).
    pub fn set_paranoid_checks(&mut self, enabled: bool) {
        self.inner.db.paranoid_checks = enabled;
    }

    /// Runs up to `parallelism` flushes and compactions at once (`max_background_jobs`).
    pub fn increase_parallelism(&mut self, parallelism: i32) {
        match nonneg::<u32>(parallelism) {
            Some(n) if n > 0 => self.inner.db.max_background_jobs = n,
            _ => self.refuse_range("increase_parallelism", parallelism),
        }
    }

    /// RocksDB's `OptimizeLevelStyleCompaction`.
    pub fn optimize_level_style_compaction(&mut self, memtable_memory_budget: usize) {
        self.inner
            .cf
            .optimize_level_style_compaction(memtable_memory_budget as u64);
    }

    /// The merge operator: `full_merge_fn` merges operands into the existing value and, being
    /// associative, operands with each other.
    pub fn set_merge_operator_associative<F: MergeFn + Clone>(
        &mut self,
        name: impl CStrLike,
        full_merge_fn: F,
    ) {
        self.set_merge_operator(name, full_merge_fn.clone(), full_merge_fn);
    }

    /// The merge operator, with a full merge and a partial (operands only) merge.
    pub fn set_merge_operator<F: MergeFn, PF: MergeFn>(
        &mut self,
        name: impl CStrLike,
        full_merge_fn: F,
        partial_merge_fn: PF,
    ) {
        match name.into_name() {
            Ok(name) => {
                self.inner.cf.merge_operator = Some(Arc::new(merge_operator::Callbacks {
                    name,
                    full: full_merge_fn,
                    partial: partial_merge_fn,
                }))
            }
            Err(e) => self.refuse("set_merge_operator", &e.into_string()),
        }
    }

    /// The compaction filter: called with each entry a compaction writes.
    pub fn set_compaction_filter<F>(&mut self, name: impl CStrLike, filter_fn: F)
    where
        F: CompactionFilterFn + Send + 'static,
    {
        match name.into_name() {
            Ok(name) => {
                self.inner.cf.compaction_filter = Some(Arc::new(compaction_filter::Callback {
                    name,
                    filter: Mutex::new(filter_fn),
                }))
            }
            Err(e) => self.refuse("set_compaction_filter", &e.into_string()),
        }
    }

    /// The order of keys. The name is stored in the database and must be given again on open.
    pub fn set_comparator(&mut self, name: impl CStrLike, compare_fn: Box<CompareFn>) {
        match name.into_name() {
            Ok(name) => {
                let c = Arc::new(comparator::Callback {
                    name,
                    compare: compare_fn,
                });
                let order = cairndb::KeyOrder::custom(c);
                self.inner.cf.comparator = order.clone();
                self.inner.cf.table.comparator = order;
            }
            Err(e) => self.refuse("set_comparator", &e.into_string()),
        }
    }

    /// The prefix extractor (prefix Bloom filters, prefix seeks).
    pub fn set_prefix_extractor(&mut self, prefix_extractor: SliceTransform) {
        if let Some(why) = prefix_extractor.refused {
            self.refused.push(why);
        }
        self.inner.cf.prefix_extractor = Some(Arc::clone(&prefix_extractor.inner));
        self.inner.cf.table.prefix_extractor = Some(prefix_extractor.inner);
    }

    /// The table format's options.
    pub fn set_block_based_table_factory(&mut self, factory: &BlockBasedOptions) {
        let mut table = factory.table.clone();
        table.comparator = self.inner.cf.table.comparator.clone();
        table.prefix_extractor = self.inner.cf.table.prefix_extractor.clone();
        table.compression = self.inner.cf.table.compression;
        table.zstd_level = self.inner.cf.table.zstd_level;
        self.inner.cf.table = table;
        self.refused.extend(factory.refused.iter().cloned());
    }

    /// The file system and thread settings of `env` (read when the database opens).
    pub fn set_env(&mut self, env: &Env) {
        self.env = Some(env.clone());
    }

    /// Block compression for every level (unless [`Options::set_compression_per_level`] is given).
    pub fn set_compression_type(&mut self, t: DBCompressionType) {
        match t.cairn() {
            Ok(c) => {
                self.inner.cf.compression = c;
                self.inner.cf.table.compression = c;
            }
            Err(why) => self.refuse(format!("set_compression_type({t:?})"), why),
        }
    }

    /// Block compression per level.
    pub fn set_compression_per_level(&mut self, level_types: &[DBCompressionType]) {
        let mut levels = Vec::with_capacity(level_types.len());
        for t in level_types {
            match t.cairn() {
                Ok(c) => levels.push(c),
                Err(why) => return self.refuse(format!("set_compression_per_level({t:?})"), why),
            }
        }
        self.inner.cf.compression_per_level = levels;
    }

    /// Block compression of the last level.
    pub fn set_bottommost_compression_type(&mut self, t: DBCompressionType) {
        match t.cairn() {
            Ok(c) => self.inner.cf.bottommost_compression = Some(c),
            Err(why) => self.refuse(format!("set_bottommost_compression_type({t:?})"), why),
        }
    }

    /// The size of a memtable.
    pub fn set_write_buffer_size(&mut self, size: usize) {
        self.inner.cf.write_buffer_size = size;
    }

    /// The most memtables (the active one and those waiting to be flushed).
    pub fn set_max_write_buffer_number(&mut self, nbuf: i32) {
        match nonneg(nbuf) {
            Some(n) => self.inner.cf.max_write_buffer_number = n,
            None => self.refuse_range("set_max_write_buffer_number", nbuf),
        }
    }

    /// The number of memtables merged into one table by a flush.
    pub fn set_min_write_buffer_number(&mut self, nbuf: i32) {
        self.set_min_write_buffer_number_to_merge(nbuf);
    }

    /// The number of memtables merged into one table by a flush.
    pub fn set_min_write_buffer_number_to_merge(&mut self, to_merge: i32) {
        match nonneg(to_merge) {
            Some(n) => self.inner.cf.min_write_buffer_number_to_merge = n,
            None => self.refuse_range("set_min_write_buffer_number_to_merge", to_merge),
        }
    }

    /// The number of flushes and compactions that run at once.
    pub fn set_max_background_jobs(&mut self, jobs: i32) {
        match nonneg(jobs) {
            Some(n) => self.inner.db.max_background_jobs = n,
            None => self.refuse_range("set_max_background_jobs", jobs),
        }
    }

    /// The number of threads one compaction may split into.
    pub fn set_max_subcompactions(&mut self, num: u32) {
        self.inner.db.max_subcompactions = num;
    }

    /// L0 files that trigger a compaction.
    pub fn set_level_zero_file_num_compaction_trigger(&mut self, n: i32) {
        match nonneg(n) {
            Some(n) => self.inner.cf.level0_file_num_compaction_trigger = n,
            None => self.refuse_range("set_level_zero_file_num_compaction_trigger", n),
        }
    }

    /// L0 files at which writes slow down.
    pub fn set_level_zero_slowdown_writes_trigger(&mut self, n: i32) {
        match nonneg(n) {
            Some(n) => self.inner.cf.level0_slowdown_writes_trigger = n,
            None => self.refuse_range("set_level_zero_slowdown_writes_trigger", n),
        }
    }

    /// L0 files at which writes stop.
    pub fn set_level_zero_stop_writes_trigger(&mut self, n: i32) {
        match nonneg(n) {
            Some(n) => self.inner.cf.level0_stop_writes_trigger = n,
            None => self.refuse_range("set_level_zero_stop_writes_trigger", n),
        }
    }

    /// The target size of level 1.
    pub fn set_max_bytes_for_level_base(&mut self, size: u64) {
        self.inner.cf.max_bytes_for_level_base = size;
    }

    /// The growth factor between levels.
    pub fn set_max_bytes_for_level_multiplier(&mut self, mul: f64) {
        self.inner.cf.max_bytes_for_level_multiplier = mul;
    }

    /// The target size of a table file in level 1.
    pub fn set_target_file_size_base(&mut self, size: u64) {
        self.inner.cf.target_file_size_base = size;
    }

    /// The growth of table file sizes per level.
    pub fn set_target_file_size_multiplier(&mut self, multiplier: i32) {
        match nonneg(multiplier) {
            Some(n) => self.inner.cf.target_file_size_multiplier = n,
            None => self.refuse_range("set_target_file_size_multiplier", multiplier),
        }
    }

    /// Level targets computed from the last level's size.
    pub fn set_level_compaction_dynamic_level_bytes(&mut self, v: bool) {
        self.inner.cf.level_compaction_dynamic_level_bytes = v;
    }

    /// The number of levels.
    pub fn set_num_levels(&mut self, n: i32) {
        match nonneg(n) {
            Some(n) => self.inner.cf.num_levels = n,
            None => self.refuse_range("set_num_levels", n),
        }
    }

    /// The compaction style.
    pub fn set_compaction_style(&mut self, style: DBCompactionStyle) {
        self.inner.cf.compaction_style = match style {
            DBCompactionStyle::Level => CompactionStyle::Level,
            DBCompactionStyle::Universal => CompactionStyle::Universal,
            DBCompactionStyle::Fifo => CompactionStyle::Fifo,
        };
    }

    /// The order in which leveled compaction picks files.
    pub fn set_compaction_pri(&mut self, pri: CompactionPri) {
        self.inner.cf.compaction_pri = match pri {
            CompactionPri::ByCompensatedSize => CairnCompactionPri::ByCompensatedSize,
            CompactionPri::OldestLargestSeqFirst => CairnCompactionPri::OldestLargestSeqFirst,
            CompactionPri::OldestSmallestSeqFirst => CairnCompactionPri::OldestSmallestSeqFirst,
            CompactionPri::MinOverlappingRatio => CairnCompactionPri::MinOverlappingRatio,
            CompactionPri::RoundRobin => CairnCompactionPri::RoundRobin,
        };
    }

    /// Universal compaction's options.
    pub fn set_universal_compaction_options(&mut self, uco: &UniversalCompactOptions) {
        self.inner.cf.compaction_options_universal = uco.inner.clone();
        self.refused.extend(uco.refused.iter().cloned());
        if uco.stop_style == UniversalCompactionStopStyle::Similar {
            self.refuse(
                "UniversalCompactOptions::set_stop_style(Similar)",
                "CairnDB's universal picker uses the total size (kCompactionStopStyleTotalSize)",
            );
        }
        if let Some(p) = uco.compression_size_percent.filter(|&p| p >= 0) {
            self.refuse(
                format!("UniversalCompactOptions::set_compression_size_percent({p})"),
                "CairnDB compresses every universal run alike",
            );
        }
    }

    /// FIFO compaction's options.
    pub fn set_fifo_compaction_options(&mut self, fco: &FifoCompactOptions) {
        self.inner.cf.compaction_options_fifo.max_table_files_size = fco.max_table_files_size;
    }

    /// Turns automatic compactions off.
    pub fn set_disable_auto_compactions(&mut self, disable: bool) {
        self.inner.cf.disable_auto_compactions = disable;
    }

    /// The most table files kept open (-1: all).
    pub fn set_max_open_files(&mut self, nfiles: i32) {
        self.inner.db.max_open_files = nfiles;
    }

    /// Table files are synced every this many bytes as they are written.
    pub fn set_bytes_per_sync(&mut self, nbytes: u64) {
        self.inner.db.bytes_per_sync = nbytes;
    }

    /// WALs are synced every this many bytes as they are written.
    pub fn set_wal_bytes_per_sync(&mut self, nbytes: u64) {
        self.inner.db.wal_bytes_per_sync = nbytes;
    }

    /// The WAL size at which the oldest memtables are flushed.
    pub fn set_max_total_wal_size(&mut self, size: u64) {
        self.inner.db.max_total_wal_size = size;
    }

    /// What recovery does with damaged WAL records.
    pub fn set_wal_recovery_mode(&mut self, mode: DBRecoveryMode) {
        self.inner.db.wal_recovery_mode = match mode {
            DBRecoveryMode::TolerateCorruptedTailRecords => {
                WalRecoveryMode::TolerateCorruptedTailRecords
            }
            DBRecoveryMode::AbsoluteConsistency => WalRecoveryMode::AbsoluteConsistency,
            DBRecoveryMode::PointInTime => WalRecoveryMode::PointInTimeRecovery,
            DBRecoveryMode::SkipAnyCorruptedRecord => WalRecoveryMode::SkipAnyCorruptedRecords,
        };
    }

    /// Obsolete WAL files kept for reuse.
    pub fn set_recycle_log_file_num(&mut self, num: usize) {
        self.inner.db.recycle_log_file_num = num;
    }

    /// The MANIFEST size at which a new one is started.
    pub fn set_max_manifest_file_size(&mut self, size: usize) {
        self.inner.db.max_manifest_file_size = size as u64;
    }

    /// Writers of a group insert into the memtable in parallel.
    pub fn set_allow_concurrent_memtable_write(&mut self, allow: bool) {
        self.inner.db.allow_concurrent_memtable_write = allow;
    }

    /// Separate WAL and memtable stages for writer groups.
    pub fn set_enable_pipelined_write(&mut self, value: bool) {
        self.inner.db.enable_pipelined_write = value;
    }

    /// Writers spin before they block.
    pub fn set_enable_write_thread_adaptive_yield(&mut self, enabled: bool) {
        self.inner.db.enable_write_thread_adaptive_yield = enabled;
    }

    /// The write rate while writes are slowed down.
    pub fn set_delayed_write_rate(&mut self, rate: u64) {
        self.inner.db.delayed_write_rate = rate;
    }

    /// Statistics are written to the LOG this often.
    pub fn set_stats_dump_period_sec(&mut self, period: u32) {
        self.inner.db.stats_dump_period_sec = period;
    }

    /// The LOG's level.
    pub fn set_log_level(&mut self, level: LogLevel) {
        self.inner.db.info_log_level = match level {
            LogLevel::Debug => InfoLogLevel::Debug,
            LogLevel::Info => InfoLogLevel::Info,
            LogLevel::Warn => InfoLogLevel::Warn,
            LogLevel::Error => InfoLogLevel::Error,
            LogLevel::Fatal => InfoLogLevel::Fatal,
            LogLevel::Header => InfoLogLevel::Header,
        };
    }

    /// The number of old LOG files kept.
    pub fn set_keep_log_file_num(&mut self, nfiles: usize) {
        self.inner.db.keep_log_file_num = nfiles;
    }

    /// The LOG size at which a new one is started (0: never).
    pub fn set_max_log_file_size(&mut self, size: usize) {
        self.inner.db.max_log_file_size = size;
    }

    /// Compactions read their inputs in requests of this size.
    pub fn set_compaction_readahead_size(&mut self, size: usize) {
        self.inner.db.compaction_readahead_size = size as u64;
    }

    /// A rate limiter for flush and compaction writes.
    pub fn set_ratelimiter(
        &mut self,
        rate_bytes_per_sec: i64,
        refill_period_us: i64,
        fairness: i32,
    ) {
        let limiter = match (
            nonneg(rate_bytes_per_sec),
            nonneg(refill_period_us),
            nonneg(fairness),
        ) {
            (Some(r), Some(p), Some(f)) => RateLimiter::new(r, p, f).map_err(|e| e.to_string()),
            _ => Err("negative rate, period or fairness".to_string()),
        };
        match limiter {
            Ok(l) => self.inner.db.rate_limiter = Some(Arc::new(l)),
            Err(why) => self.refuse(
                format!("set_ratelimiter({rate_bytes_per_sec}, {refill_period_us}, {fairness})"),
                &why,
            ),
        }
    }

    /// Turns statistics on (see [`Options::get_statistics`]).
    pub fn enable_statistics(&mut self) {
        self.inner.db.statistics = Some(Arc::new(Statistics::new()));
    }

    /// What the statistics record (they must be on: [`Options::enable_statistics`]; without
    /// them there is nothing to set, as in RocksDB).
    pub fn set_statistics_level(&self, level: crate::statistics::StatsLevel) {
        if let Some(s) = &self.inner.db.statistics {
            s.set_level(level);
        }
    }

    /// A ticker's count (0 when statistics are off, as in RocksDB).
    pub fn get_ticker_count(&self, ticker: crate::statistics::Ticker) -> u64 {
        self.inner
            .db
            .statistics
            .as_ref()
            .map_or(0, |s| s.get_ticker_count(ticker))
    }

    /// A histogram's summary (empty when statistics are off).
    pub fn get_histogram_data(
        &self,
        histogram: crate::statistics::Histogram,
    ) -> crate::statistics::HistogramData {
        crate::statistics::HistogramData {
            inner: self
                .inner
                .db
                .statistics
                .as_ref()
                .map(|s| s.histogram_data(histogram))
                .unwrap_or_default(),
        }
    }

    /// RocksDB's statistics dump, when statistics are on.
    pub fn get_statistics(&self) -> Option<String> {
        self.inner.db.statistics.as_ref().map(|s| s.to_string())
    }

    /// The share of the memtable given to its prefix Bloom filter.
    pub fn set_memtable_prefix_bloom_ratio(&mut self, ratio: f64) {
        self.inner.cf.memtable_prefix_bloom_size_ratio = ratio;
    }

    /// No filters in the last level.
    pub fn set_optimize_filters_for_hits(&mut self, optimize_for_hits: bool) {
        self.inner.cf.optimize_filters_for_hits = optimize_for_hits;
    }

    /// Files older than this are compacted (seconds).
    pub fn set_ttl(&mut self, secs: u64) {
        self.inner.cf.ttl = secs;
    }

    /// Files are compacted at least this often (seconds).
    pub fn set_periodic_compaction_seconds(&mut self, secs: u64) {
        self.inner.cf.periodic_compaction_seconds = secs;
    }

    /// The largest compaction.
    pub fn set_max_compaction_bytes(&mut self, nbytes: u64) {
        self.inner.cf.max_compaction_bytes = nbytes;
    }

    /// Pending compaction bytes at which writes slow down.
    pub fn set_soft_pending_compaction_bytes_limit(&mut self, limit: usize) {
        self.inner.cf.soft_pending_compaction_bytes_limit = limit as u64;
    }

    /// Pending compaction bytes at which writes stop.
    pub fn set_hard_pending_compaction_bytes_limit(&mut self, limit: usize) {
        self.inner.cf.hard_pending_compaction_bytes_limit = limit as u64;
    }

    /// Marks files with many deletions for compaction (RocksDB's
    /// `NewCompactOnDeletionCollectorFactory`).
    pub fn add_compact_on_deletion_collector_factory(
        &mut self,
        window_size: usize,
        num_dels_trigger: usize,
        deletion_ratio: f64,
    ) {
        self.inner.cf.compact_on_deletion = Some(CompactOnDeletion {
            sliding_window_size: window_size as u64,
            deletion_trigger: num_dels_trigger as u64,
            deletion_ratio,
        });
    }

    /// Refused: CairnDB's memtable is a skip list (RocksDB's default, which has no
    /// `MemtableFactory` variant), and the vector and hash memtables are not built.
    pub fn set_memtable_factory(&mut self, factory: MemtableFactory) {
        self.refuse(
            format!("set_memtable_factory({factory:?})"),
            "CairnDB's memtable is a skip list",
        );
    }

    /// `fsync` instead of `fdatasync`: refused when true (CairnDB syncs data with `fdatasync`
    /// and directories with `fsync`).
    pub fn set_use_fsync(&mut self, useit: bool) {
        if useit {
            self.refuse("set_use_fsync(true)", "CairnDB syncs files with fdatasync");
        }
        self.use_fsync = useit;
    }

    /// Whether [`Options::set_use_fsync`] was set.
    pub fn get_use_fsync(&self) -> bool {
        self.use_fsync
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn set_comparator_with_ts(
        &mut self,
        _name: impl CStrLike,
        _timestamp_size: usize,
        _compare_fn: Box<CompareFn>,
        _compare_ts_fn: Box<CompareFn>,
        _compare_without_ts_fn: Box<CompareWithoutTsFn>,
    ) {
        self.refuse(
            "set_comparator_with_ts",
            "CairnDB has no user-defined timestamps",
        );
    }

    /// Options from a RocksDB option string, applied to a copy of these
    /// (RocksDB's `GetOptionsFromString`).
    pub fn get_options_from_string<S: AsRef<str>>(&mut self, opts: S) -> Result<Options, Error> {
        let s = opts.as_ref();
        if s.contains('\0') {
            return Err(Error::invalid(format!(
                "options string must not contain NUL (0x00) bytes: {s:?}"
            )));
        }
        let mut out = self.clone();
        out.inner
            .apply_options_string(s, &cairndb::options::ParseConfig::default())
            .map_err(Error::from)?;
        Ok(out)
    }
}

/// Block compression codecs.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum DBCompressionType {
    /// No compression.
    None = 0,
    /// Snappy.
    Snappy = 1,
    /// zlib: refused (not built).
    Zlib = 2,
    /// bzip2: refused (not built).
    Bz2 = 3,
    /// LZ4.
    Lz4 = 4,
    /// LZ4HC: refused (not built; LZ4 reads it, but CairnDB does not write it).
    Lz4hc = 5,
    /// Zstandard.
    Zstd = 7,
}

impl DBCompressionType {
    fn cairn(self) -> Result<CompressionType, &'static str> {
        match self {
            DBCompressionType::None => Ok(CompressionType::None),
            DBCompressionType::Snappy => Ok(CompressionType::Snappy),
            DBCompressionType::Lz4 => Ok(CompressionType::Lz4),
            DBCompressionType::Zstd => Ok(CompressionType::Zstd),
            DBCompressionType::Zlib | DBCompressionType::Bz2 | DBCompressionType::Lz4hc => {
                Err("CairnDB provides none, snappy, lz4 and zstd")
            }
        }
    }
}

/// Compaction styles.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum DBCompactionStyle {
    /// Leveled.
    Level = 0,
    /// Universal (tiered).
    Universal = 1,
    /// FIFO: the oldest files are dropped.
    Fifo = 2,
}

/// WAL recovery modes.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum DBRecoveryMode {
    /// A torn last record is dropped; damage elsewhere fails the open.
    TolerateCorruptedTailRecords = 0,
    /// Any damage fails the open.
    AbsoluteConsistency = 1,
    /// Recovery stops at the first damage.
    PointInTime = 2,
    /// Damaged records are skipped.
    SkipAnyCorruptedRecord = 3,
}

/// LOG levels.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum LogLevel {
    /// Debug.
    Debug = 0,
    /// Info.
    Info,
    /// Warn.
    Warn,
    /// Error.
    Error,
    /// Fatal.
    Fatal,
    /// Header.
    Header,
}

/// The order in which leveled compaction picks files.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum CompactionPri {
    /// Largest compensated size first.
    ByCompensatedSize = 0,
    /// Oldest largest sequence number first.
    OldestLargestSeqFirst = 1,
    /// Oldest smallest sequence number first.
    OldestSmallestSeqFirst = 2,
    /// Least overlap with the next level first (the default).
    MinOverlappingRatio = 3,
    /// Round robin through the key space.
    RoundRobin = 4,
}

/// Memtable structures other than the default skip list (all refused: see
/// [`Options::set_memtable_factory`]).
#[derive(Debug)]
pub enum MemtableFactory {
    /// A vector, sorted on flush.
    Vector,
    /// A hash of skip lists.
    HashSkipList {
        /// Buckets.
        bucket_count: usize,
        /// Skip list height.
        height: i32,
        /// Skip list branching factor.
        branching_factor: i32,
    },
    /// A hash of linked lists.
    HashLinkList {
        /// Buckets.
        bucket_count: usize,
    },
}

/// When universal compaction stops adding runs.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum UniversalCompactionStopStyle {
    /// When the next run is not similar in size (refused: see
    /// [`Options::set_universal_compaction_options`]).
    Similar = 0,
    /// When the total size is reached.
    Total = 1,
}

/// Universal compaction's options.
#[derive(Debug, Clone)]
pub struct UniversalCompactOptions {
    inner: cairndb::compaction::picker_universal::UniversalOptions,
    stop_style: UniversalCompactionStopStyle,
    compression_size_percent: Option<i32>,
    /// Negative values given to setters; the options that get these refuse to open.
    refused: Vec<String>,
}

impl Default for UniversalCompactOptions {
    fn default() -> Self {
        UniversalCompactOptions {
            inner: Default::default(),
            stop_style: UniversalCompactionStopStyle::Total,
            compression_size_percent: None,
            refused: Vec::new(),
        }
    }
}

impl UniversalCompactOptions {
    /// Percentage size difference within which runs count as similar.
    pub fn set_size_ratio(&mut self, ratio: i32) {
        match u32::try_from(ratio) {
            Ok(v) => self.inner.size_ratio = v,
            Err(_) => self.refused.push(format!(
                "UniversalCompactOptions::set_size_ratio({ratio}): negative"
            )),
        }
    }

    /// The fewest runs merged at once.
    pub fn set_min_merge_width(&mut self, num: i32) {
        match u32::try_from(num) {
            Ok(v) => self.inner.min_merge_width = v,
            Err(_) => self.refused.push(format!(
                "UniversalCompactOptions::set_min_merge_width({num}): negative"
            )),
        }
    }

    /// The most runs merged at once.
    pub fn set_max_merge_width(&mut self, num: i32) {
        match u32::try_from(num) {
            Ok(v) => self.inner.max_merge_width = v,
            Err(_) => self.refused.push(format!(
                "UniversalCompactOptions::set_max_merge_width({num}): negative"
            )),
        }
    }

    /// Space amplification (percent) that triggers a full compaction.
    pub fn set_max_size_amplification_percent(&mut self, v: i32) {
        match u32::try_from(v) {
            Ok(v) => self.inner.max_size_amplification_percent = v,
            Err(_) => self.refused.push(format!(
                "UniversalCompactOptions::set_max_size_amplification_percent({v}): negative"
            )),
        }
    }

    /// Refused unless negative (CairnDB compresses every universal run alike).
    pub fn set_compression_size_percent(&mut self, v: i32) {
        self.compression_size_percent = Some(v);
    }

    /// The stop style: `Total` is CairnDB's; `Similar` is refused.
    pub fn set_stop_style(&mut self, style: UniversalCompactionStopStyle) {
        self.stop_style = style;
    }
}

/// FIFO compaction's options.
#[derive(Debug, Clone)]
pub struct FifoCompactOptions {
    max_table_files_size: u64,
}

impl Default for FifoCompactOptions {
    fn default() -> Self {
        FifoCompactOptions {
            max_table_files_size: cairndb::compaction::picker_fifo::FifoOptions::default()
                .max_table_files_size,
        }
    }
}

impl FifoCompactOptions {
    /// The total size of table files above which the oldest are dropped.
    pub fn set_max_table_files_size(&mut self, nbytes: u64) {
        self.max_table_files_size = nbytes;
    }
}

/// Data block index types.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum DataBlockIndexType {
    /// Binary search over restart points (CairnDB's).
    BinarySearch = 0,
    /// Binary search plus a hash index: refused.
    BinaryAndHash = 1,
}

/// Index block types.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum BlockBasedIndexType {
    /// A binary-searched index (CairnDB's).
    BinarySearch,
    /// A hash index: refused.
    HashSearch,
    /// A partitioned index: refused.
    TwoLevelIndexSearch,
}

/// Block checksum types.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum ChecksumType {
    /// None: refused.
    NoChecksum = 0,
    /// CRC32C.
    CRC32c = 1,
    /// xxHash32: refused.
    XXHash = 2,
    /// xxHash64: refused.
    XXHash64 = 3,
    /// XXH3 (CairnDB's default).
    XXH3 = 4,
}

/// Which index and filter blocks stay pinned in the block cache.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum BlockBasedTablePinningTier {
    /// RocksDB's older flags decide.
    Fallback,
    /// Nothing pinned.
    None,
    /// Blocks of files from flushes and similar small files.
    FlushAndSimilar,
    /// Everything.
    All,
}

/// The table format's options (RocksDB's `BlockBasedTableOptions`).
#[derive(Debug, Clone, Default)]
pub struct BlockBasedOptions {
    table: cairndb::sstable::TableOptions,
    refused: Vec<String>,
}

impl BlockBasedOptions {
    fn refuse(&mut self, setter: impl fmt::Display, why: &str) {
        self.refused
            .push(format!("BlockBasedOptions::{setter}: {why}"));
    }

    /// The size of a data block.
    pub fn set_block_size(&mut self, size: usize) {
        self.table.block_size = size;
    }

    /// The block cache (shared by every table of the families given these options).
    pub fn set_block_cache(&mut self, cache: &Cache) {
        self.table.block_cache = Some(Arc::clone(&cache.inner));
    }

    /// A Bloom filter of `bits_per_key`. `block_based` (the pre-2019 format) is refused.
    pub fn set_bloom_filter(&mut self, bits_per_key: f64, block_based: bool) {
        if block_based {
            self.refuse(
                "set_bloom_filter(_, true)",
                "the block-based filter format is obsolete; CairnDB writes full filters",
            );
        }
        self.table.bloom_bits_per_key = bits_per_key;
    }

    /// Index and filter blocks go through the block cache.
    pub fn set_cache_index_and_filter_blocks(&mut self, v: bool) {
        self.table.cache_index_and_filter_blocks = v;
    }

    /// Keys between restart points in data blocks.
    pub fn set_block_restart_interval(&mut self, interval: i32) {
        match usize::try_from(interval) {
            Ok(n) if n > 0 => self.table.block_restart_interval = n,
            _ => self.refuse(
                format!("set_block_restart_interval({interval})"),
                "must be positive",
            ),
        }
    }

    /// Keys between restart points in index blocks.
    pub fn set_index_block_restart_interval(&mut self, interval: i32) {
        match usize::try_from(interval) {
            Ok(n) if n > 0 => self.table.index_block_restart_interval = n,
            _ => self.refuse(
                format!("set_index_block_restart_interval({interval})"),
                "must be positive",
            ),
        }
    }

    /// Whole keys go into the filter (not only prefixes).
    pub fn set_whole_key_filtering(&mut self, v: bool) {
        self.table.whole_key_filtering = v;
    }

    /// The block checksum: CRC32C or XXH3; the others are refused.
    pub fn set_checksum_type(&mut self, checksum_type: ChecksumType) {
        use cairndb::util::checksum::ChecksumType as C;
        match checksum_type {
            ChecksumType::CRC32c => self.table.checksum = C::Crc32c,
            ChecksumType::XXH3 => self.table.checksum = C::Xxh3,
            other => self.refuse(
                format!("set_checksum_type({other:?})"),
                "CairnDB writes CRC32C or XXH3 checksums",
            ),
        }
    }

    /// The data block index: binary search (CairnDB's); the hash index is refused.
    pub fn set_data_block_index_type(&mut self, index_type: DataBlockIndexType) {
        if index_type != DataBlockIndexType::BinarySearch {
            self.refuse(
                format!("set_data_block_index_type({index_type:?})"),
                "CairnDB's data blocks have a binary-searched index only",
            );
        }
    }

    /// The index type: binary search (CairnDB's); the others are refused.
    pub fn set_index_type(&mut self, index_type: BlockBasedIndexType) {
        if index_type != BlockBasedIndexType::BinarySearch {
            self.refuse(
                format!("set_index_type({index_type:?})"),
                "CairnDB's tables have a single binary-searched index",
            );
        }
    }
}

/// A block cache (shared between databases and families that are given it).
#[derive(Debug, Clone)]
pub struct Cache {
    pub(crate) inner: Arc<BlockCache>,
}

impl Cache {
    /// An LRU cache of `capacity` bytes.
    pub fn new_lru_cache(capacity: usize) -> Cache {
        Cache::new_lru_cache_opts(&LruCacheOptions {
            capacity,
            num_shard_bits: None,
        })
    }

    /// An LRU cache with options.
    pub fn new_lru_cache_opts(opts: &LruCacheOptions) -> Cache {
        let mut o = cairndb::cache::CacheOptions::with_capacity(opts.capacity);
        o.policy = cairndb::cache::CachePolicy::Lru;
        o.shard_bits = opts.num_shard_bits;
        Cache {
            inner: Arc::new(BlockCache::new(o)),
        }
    }

    /// A clock cache (CairnDB's default policy; the entry charge estimate is not needed).
    pub fn new_hyper_clock_cache(capacity: usize, _estimated_entry_charge: usize) -> Cache {
        Cache {
            inner: Arc::new(BlockCache::new(
                cairndb::cache::CacheOptions::with_capacity(capacity),
            )),
        }
    }

    /// Bytes in the cache.
    pub fn get_usage(&self) -> usize {
        self.inner.usage()
    }

    /// Bytes of pinned entries.
    pub fn get_pinned_usage(&self) -> usize {
        self.inner.pinned_usage()
    }
}

/// Options of [`Cache::new_lru_cache_opts`].
#[derive(Debug, Clone, Default)]
pub struct LruCacheOptions {
    capacity: usize,
    num_shard_bits: Option<u8>,
}

impl LruCacheOptions {
    /// The capacity in bytes.
    pub fn set_capacity(&mut self, cap: usize) {
        self.capacity = cap;
    }

    /// Shards: 2^val (negative: chosen from the capacity).
    pub fn set_num_shard_bits(&mut self, val: i32) {
        self.num_shard_bits = u8::try_from(val).ok();
    }
}

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

/// Options of the cuckoo table format, which CairnDB does not provide: a family given them
/// (with `Options::set_cuckoo_table_factory`) fails to open.
#[derive(Debug, Clone, Default)]
pub struct CuckooTableOptions {
    _private: (),
}

/// The setters exist so that programs compile; the factory itself is refused.
impl CuckooTableOptions {
    /// Part of a refused table format.
    pub fn set_hash_ratio(&mut self, _ratio: f64) {}
    /// Part of a refused table format.
    pub fn set_max_search_depth(&mut self, _depth: u32) {}
    /// Part of a refused table format.
    pub fn set_cuckoo_block_size(&mut self, _size: u32) {}
    /// Part of a refused table format.
    pub fn set_identity_as_first_hash(&mut self, _flag: bool) {}
    /// Part of a refused table format.
    pub fn set_use_module_hash(&mut self, _flag: bool) {}
}

impl Options {
    /// Refused: CairnDB has one table format (block-based).
    pub fn set_cuckoo_table_factory(&mut self, _factory: &CuckooTableOptions) {
        self.refuse(
            "set_cuckoo_table_factory",
            "CairnDB has one table format (block-based)",
        );
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

/// A directory for table files with a target size (RocksDB's `DbPath`, for `db_paths` and
/// `cf_paths`, which CairnDB refuses: every table lives in the database directory).
#[derive(Debug, Clone)]
pub struct DBPath {
    path: std::path::PathBuf,
    target_size: u64,
}

impl DBPath {
    /// A path and its target size.
    pub fn new<P: AsRef<std::path::Path>>(path: P, target_size: u64) -> Result<Self, Error> {
        Ok(DBPath {
            path: path.as_ref().to_path_buf(),
            target_size,
        })
    }
}

/// Setters that either map to CairnDB or are refused, and the few accepted with no effect
/// (each says why; `docs/design/rocksdb_facade.md` lists them).
impl Options {
    fn refuse_if(&mut self, cond: bool, setter: impl fmt::Display, why: &str) {
        if cond {
            self.refuse(setter, why);
        }
    }

    /// Refused when true: CairnDB keeps no database identity in its MANIFEST.
    pub fn set_write_dbid_to_manifest(&mut self, val: bool) {
        self.write_dbid_to_manifest = val;
        self.refuse_if(
            val,
            "set_write_dbid_to_manifest(true)",
            "CairnDB keeps no database identity in its MANIFEST",
        );
    }

    /// The value given to [`Options::set_write_dbid_to_manifest`] (false by default).
    pub fn get_write_dbid_to_manifest(&self) -> bool {
        self.write_dbid_to_manifest
    }

    /// Refused when true: CairnDB's MANIFEST does not record WAL sizes.
    pub fn set_track_and_verify_wals_in_manifest(&mut self, val: bool) {
        self.track_and_verify_wals_in_manifest = val;
        self.refuse_if(
            val,
            "set_track_and_verify_wals_in_manifest(true)",
            "CairnDB's MANIFEST does not record WAL sizes",
        );
    }

    /// The value given to [`Options::set_track_and_verify_wals_in_manifest`].
    pub fn get_track_and_verify_wals_in_manifest(&self) -> bool {
        self.track_and_verify_wals_in_manifest
    }

    /// WAL compression: `None` (CairnDB's WAL is not compressed); the others are refused.
    pub fn set_wal_compression_type(&mut self, t: DBCompressionType) {
        self.refuse_if(
            t != DBCompressionType::None,
            format!("set_wal_compression_type({t:?})"),
            "CairnDB's WAL is not compressed",
        );
    }

    /// Compression parameters: `level` is the zstd level (CairnDB's LZ4 and Snappy have no
    /// levels, as RocksDB's defaults); `w_bits` and `strategy` are zlib's, which is refused, so
    /// they change nothing; `max_dict_bytes` above 0 is refused (no compression dictionaries).
    pub fn set_compression_options(
        &mut self,
        w_bits: i32,
        level: i32,
        strategy: i32,
        max_dict_bytes: i32,
    ) {
        self.inner.cf.table.zstd_level = level;
        self.refuse_if(
            max_dict_bytes > 0,
            format!("set_compression_options({w_bits}, {level}, {strategy}, {max_dict_bytes})"),
            "compression dictionaries are not built",
        );
    }

    /// 0 is honoured; above 0 refused (compression dictionaries are not built).
    pub fn set_zstd_max_train_bytes(&mut self, value: i32) {
        self.refuse_if(
            value > 0,
            format!("set_zstd_max_train_bytes({value})"),
            "compression dictionaries are not built",
        );
    }

    /// Refused: CairnDB has no row cache.
    pub fn set_row_cache(&mut self, _cache: &Cache) {
        self.refuse("set_row_cache", "CairnDB has no row cache");
    }

    /// 0 (off) is honoured; other thresholds are refused (no memtable garbage collection).
    pub fn set_experimental_mempurge_threshold(&mut self, threshold: f64) {
        self.refuse_if(
            threshold != 0.0,
            format!("set_experimental_mempurge_threshold({threshold})"),
            "CairnDB has no memtable garbage collection (mempurge)",
        );
    }

    /// Refused when true: key-value separation (BlobDB) is not built.
    pub fn set_enable_blob_files(&mut self, val: bool) {
        self.refuse_if(
            val,
            "set_enable_blob_files(true)",
            "key-value separation (blob files) is not built",
        );
    }

    /// The value size from which values go to blob files. Blob files are refused
    /// ([`Options::set_enable_blob_files`]), and without them RocksDB does not use this size
    /// either.
    pub fn set_min_blob_size(&mut self, _val: u64) {}

    /// The cache of blob values: as [`Options::set_min_blob_size`], used only with blob files.
    pub fn set_blob_cache(&mut self, _cache: &Cache) {}

    /// Refused unless empty: every table lives in the database directory.
    pub fn set_db_paths(&mut self, paths: &[DBPath]) {
        if let Some(p) = paths.first() {
            self.refuse(
                format!("set_db_paths({}, {})", p.path.display(), p.target_size),
                "every table lives in the database directory",
            );
        }
    }

    /// Refused unless empty: every table lives in the database directory.
    pub fn set_cf_paths(&mut self, paths: &[DBPath]) {
        if let Some(p) = paths.first() {
            self.refuse(
                format!("set_cf_paths({}, {})", p.path.display(), p.target_size),
                "every table lives in the database directory",
            );
        }
    }

    /// Refused when true.
    pub fn set_avoid_unnecessary_blocking_io(&mut self, val: bool) {
        self.refuse_if(
            val,
            "set_avoid_unnecessary_blocking_io(true)",
            "CairnDB deletes obsolete files on the thread that releases them",
        );
    }

    /// Refused: the auto-tuned rate limiter is not built (the fixed one is,
    /// [`Options::set_ratelimiter`]).
    pub fn set_auto_tuned_ratelimiter(
        &mut self,
        rate_bytes_per_sec: i64,
        refill_period_us: i64,
        fairness: i32,
    ) {
        self.refuse(
            format!(
                "set_auto_tuned_ratelimiter({rate_bytes_per_sec}, {refill_period_us}, {fairness})"
            ),
            "the auto-tuned rate limiter is not built",
        );
    }

    /// Accepted with no effect: CairnDB's WAL and table writers assemble records and blocks in
    /// buffers of their own and hand each to the OS whole, so there is no file buffer to size.
    pub fn set_writable_file_max_buffer_size(&mut self, _nbytes: u64) {}

    /// Accepted with no effect: CairnDB's mutexes (parking_lot) always spin briefly before
    /// they block, which is what this option turns on in RocksDB.
    pub fn set_use_adaptive_mutex(&mut self, _enabled: bool) {}

    /// Refused when true: writes are inserted in WAL order.
    pub fn set_unordered_write(&mut self, unordered: bool) {
        self.refuse_if(
            unordered,
            "set_unordered_write(true)",
            "CairnDB inserts writes into the memtable in WAL order",
        );
    }

    /// 0 is honoured (statistics are not persisted); other periods are refused.
    pub fn set_stats_persist_period_sec(&mut self, period: u32) {
        self.refuse_if(
            period != 0,
            format!("set_stats_persist_period_sec({period})"),
            "CairnDB does not persist statistics in the database",
        );
    }

    /// Refused when true: the memtable's Bloom filter holds prefixes only.
    pub fn set_memtable_whole_key_filtering(&mut self, whole_key_filter: bool) {
        self.refuse_if(
            whole_key_filter,
            "set_memtable_whole_key_filtering(true)",
            "CairnDB's memtable Bloom filter holds prefixes only",
        );
    }

    /// Accepted with no effect: CairnDB allocates through Rust's global allocator, which keeps
    /// no statistics to dump into the LOG.
    pub fn set_dump_malloc_stats(&mut self, _enabled: bool) {}

    /// Refused: the LOG is always written in the database directory.
    pub fn set_db_log_dir<P: AsRef<std::path::Path>>(&mut self, path: P) {
        self.refuse(
            format!("set_db_log_dir({})", path.as_ref().display()),
            "the LOG is always written in the database directory",
        );
    }

    /// Refused when true: atomic flush of several families is not built.
    pub fn set_atomic_flush(&mut self, atomic_flush: bool) {
        self.refuse_if(
            atomic_flush,
            "set_atomic_flush(true)",
            "atomic flush of several column families is not built",
        );
    }

    /// The options of the database at `path` from its newest OPTIONS file, and a descriptor
    /// per column family. Unknown options fail unless `ignore_unknown_options`; every family is
    /// given `cache` as its block cache and `env` as the file system.
    pub fn load_latest<P: AsRef<std::path::Path>>(
        path: P,
        env: Env,
        ignore_unknown_options: bool,
        cache: Cache,
    ) -> Result<(Options, Vec<crate::ColumnFamilyDescriptor>), Error> {
        use cairndb::options::{OptionsFile, ParseConfig};
        let dir = path.as_ref();
        let latest = OptionsFile::latest(&*env.fs, dir)?
            .ok_or_else(|| Error::new(format!("NotFound: no OPTIONS file in {}", dir.display())))?;
        let cfg = ParseConfig {
            ignore_unknown_options,
        };
        let (file, _warnings) = OptionsFile::load(&*env.fs, &latest, &cfg)?;
        let wrap = |db: &cairndb::options::DbOptions, cf: &cairndb::options::CfOptions| {
            let mut o = Options::default();
            o.inner.db = db.clone();
            o.inner.cf = cf.clone();
            o.inner.cf.table.block_cache = Some(std::sync::Arc::clone(&cache.inner));
            o.set_env(&env);
            o
        };
        let db_opts = file.to_options();
        let options = wrap(&db_opts.db, &db_opts.cf);
        let descriptors = file
            .families
            .iter()
            .map(|(name, cf)| crate::ColumnFamilyDescriptor::new(name.clone(), wrap(&file.db, cf)))
            .collect();
        Ok((options, descriptors))
    }
}

impl BlockBasedOptions {
    /// `Fallback` and `None` (nothing pinned: CairnDB's cache pins no blocks beyond those in
    /// use) are honoured; `FlushAndSimilar` and `All` are refused.
    fn pinning(&mut self, setter: &str, tier: BlockBasedTablePinningTier) {
        if matches!(
            tier,
            BlockBasedTablePinningTier::FlushAndSimilar | BlockBasedTablePinningTier::All
        ) {
            self.refuse(
                format!("{setter}({tier:?})"),
                "CairnDB does not pin index or filter blocks in the cache",
            );
        }
    }

    /// See [`BlockBasedTablePinningTier`].
    pub fn set_top_level_index_pinning_tier(&mut self, tier: BlockBasedTablePinningTier) {
        self.pinning("set_top_level_index_pinning_tier", tier);
    }

    /// See [`BlockBasedTablePinningTier`].
    pub fn set_partition_pinning_tier(&mut self, tier: BlockBasedTablePinningTier) {
        self.pinning("set_partition_pinning_tier", tier);
    }

    /// See [`BlockBasedTablePinningTier`].
    pub fn set_unpartitioned_pinning_tier(&mut self, tier: BlockBasedTablePinningTier) {
        self.pinning("set_unpartitioned_pinning_tier", tier);
    }

    /// Refused when true: CairnDB does not pin index or filter blocks in the cache.
    pub fn set_pin_l0_filter_and_index_blocks_in_cache(&mut self, v: bool) {
        if v {
            self.refuse(
                "set_pin_l0_filter_and_index_blocks_in_cache(true)",
                "CairnDB does not pin index or filter blocks in the cache",
            );
        }
    }

    /// Accepted with no effect: CairnDB writes its own table format (docs/format/sstable.md),
    /// which has one version; RocksDB's format versions do not apply to it.
    pub fn set_format_version(&mut self, _version: i32) {}

    /// The hash index's load factor, used only with `DataBlockIndexType::BinaryAndHash`, which
    /// is refused (as in RocksDB, where it does nothing without the hash index).
    pub fn set_data_block_hash_ratio(&mut self, _ratio: f64) {}

    /// Accepted with no effect: CairnDB's block cache has no priority pools, so index and
    /// filter blocks have the priority of every other block either way.
    pub fn set_cache_index_and_filter_blocks_with_high_priority(&mut self, _v: bool) {}
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
