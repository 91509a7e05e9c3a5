//! The database's and column families' options (`Options`) and the enums and compaction
//! options they take. Table options are in `table_options.rs`, per-call options in
//! `call_options.rs`; the setters CairnDB refuses, or accepts without effect, in `refused.rs`.
//!
//! Each setter changes the CairnDB option of the same name, or is refused: the refusal is kept on
//! the options and the open (or read) that uses them fails with `Not implemented`, naming the
//! setter and why.

mod refused;

use std::fmt;
use std::sync::Arc;

use cairndb::compaction::deletion_collector::CompactOnDeletion;
use cairndb::fs::FileSystem;
use cairndb::options::{
    CompactionPri as CairnCompactionPri, CompactionStyle, InfoLogLevel, RateLimiter, Statistics,
    WalRecoveryMode,
};
use cairndb::CompressionType;
use parking_lot::Mutex;

use crate::compaction_filter::{self, CompactionFilterFn};
use crate::comparator::{self, CompareFn, CompareWithoutTsFn};
use crate::env::Env;
use crate::merge_operator::{self, MergeFn};
use crate::properties::CStrLike;
use crate::slice_transform::SliceTransform;
use crate::table_options::{BlockBasedOptions, Cache, CuckooTableOptions};
use crate::Error;

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

impl Options {
    /// Refused: CairnDB has one table format (block-based).
    pub fn set_cuckoo_table_factory(&mut self, _factory: &CuckooTableOptions) {
        self.refuse(
            "set_cuckoo_table_factory",
            "CairnDB has one table format (block-based)",
        );
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
