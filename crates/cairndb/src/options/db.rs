//! [`DbOptions`]: options of the whole database, RocksDB's `DBOptions` under the same names.
//!
//! Plain data; see the module contract in `options/mod.rs`. RocksDB `DBOptions` not listed here
//! are not accepted (listed in `docs/design/options.md`).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{check_range, out_of_range, CpuPriority, InfoLogLevel, WalRecoveryMode};
use crate::error::Result;

pub use crate::rate_limiter::{RateLimiter, RateLimiterMode};

/// Files RocksDB keeps open besides tables (WAL, MANIFEST, info log, ...), subtracted from
/// `max_open_files` to size the table cache.
const NON_TABLE_FILES: usize = 10;
/// Smallest table cache RocksDB sizes from `max_open_files` (it raises smaller values to 20).
const MIN_MAX_OPEN_FILES: usize = 20;
/// The write rate used when `delayed_write_rate` is 0, as in RocksDB without a rate limiter.
pub const DEFAULT_DELAYED_WRITE_RATE: u64 = 16 << 20;

/// Options of the whole database. RocksDB's `DBOptions`; field names are RocksDB's.
#[derive(Debug, Clone, PartialEq)]
pub struct DbOptions {
    /// Create the database if the directory holds none. Default false, so that a mistyped path
    /// is an error instead of a new empty database.
    pub create_if_missing: bool,
    /// Fail to open if a database already exists. Default false.
    pub error_if_exists: bool,
    /// Create the column families named at open that the database does not have. Default
    /// false, as RocksDB: a mistyped family name is an error instead of a new empty family.
    pub create_missing_column_families: bool,
    /// Check aggressively and stop on any inconsistency (RocksDB's meaning): at open, every live
    /// table file must exist with the size the MANIFEST recorded, or open fails with a
    /// Corruption naming it; a flush or compaction that meets corruption stops writes (they
    /// return `Poisoned` until reopen) instead of being retried. Default true. With false, open
    /// skips the file check (a damaged table then fails the reads that reach it) and corrupt
    /// background work is retried while writes go on: availability on damaged media at the
    /// cost of safety. Reads verify block checksums either way.
    pub paranoid_checks: bool,
    /// Most files kept open, or -1 for no limit. Default -1. Each open table holds a file handle
    /// and (unless `cache_index_and_filter_blocks`) its index and filter blocks in memory, so a
    /// limit bounds memory and descriptors at the cost of reopening evicted tables (a footer,
    /// index and filter read each). As in RocksDB, 10 handles are reserved for other files and
    /// values below 20 count as 20. Range: -1 or 1..=i32::MAX.
    pub max_open_files: i32,
    /// Shards of the table cache as a power of two (RocksDB's `table_cache_numshardbits`): an
    /// open-table lookup locks one shard, so more shards mean less contention between reading
    /// threads; the capacity is divided evenly between them, so a small `max_open_files` over
    /// many shards evicts early. -1 (the default) picks automatically: shards of at least 16
    /// tables, at most 64. **RocksDB's default is 6** (64 shards whatever the capacity); CairnDB
    /// picks fewer for small capacities for the eviction reason above. Range -1 or 0..=16.
    pub table_cache_numshardbits: i32,
    /// Background flushes and compactions that may run at once. Default 2. More jobs keep
    /// compaction debt (and write stalls) lower at the cost of CPU and I/O bandwidth taken from
    /// the foreground. Range 1..=1024.
    pub max_background_jobs: u32,
    /// Threads one compaction job may be split into (by key range). Default 1 (no splitting).
    /// More lets a large L0->L1 compaction finish sooner. Range 1..=256. Only column families
    /// with the bytewise comparator split; others run each compaction as one range (the split
    /// needs the key right after a cut, which only bytewise order has).
    pub max_subcompactions: u32,
    /// Start write-behind of table files every this many bytes (`sync_file_range`), so the final
    /// sync has little left to write and the OS does not build bursts of dirty pages. 0 disables.
    /// Default 1 MiB. **RocksDB's default is 0**; RocksDB recommends 1 MiB and CairnDB's write
    /// path is tuned for it (design brief, "I/O").
    pub bytes_per_sync: u64,
    /// The same for WAL files. Default 0 (off), as RocksDB: the commit pipeline syncs the WAL
    /// when writers ask for it, and write-behind would add system calls to the commit path.
    pub wal_bytes_per_sync: u64,
    /// Total size of live WAL files that forces the column families holding the oldest WAL's data
    /// to flush, so the log can be deleted. 0 means automatic: 4 x the sum over column families
    /// of `write_buffer_size x max_write_buffer_number`. Default 0. A small limit bounds recovery
    /// time and disk use at the cost of flushing small memtables.
    pub max_total_wal_size: u64,
    /// How recovery treats damaged WAL records. Default `kTolerateCorruptedTailRecords`.
    /// **RocksDB's default is `kPointInTimeRecovery`**, which stops silently at damage in the
    /// middle of a log and so can drop writes acknowledged with `sync=true`; CairnDB's durability
    /// contract forbids that, so by default only a torn tail (what a crash leaves) is dropped and
    /// damage before valid data fails recovery.
    pub wal_recovery_mode: WalRecoveryMode,
    /// How many obsolete WAL files are kept to be reused as later WALs instead of deleted
    /// (RocksDB's `recycle_log_file_num`). A reused file is renamed and overwritten from its
    /// start, so a synced write that stays within its old size changes no file metadata and its
    /// `fdatasync` writes the data alone. The old contents past the last record are stamped
    /// with another log number, which recovery reads as the end of the log. Default 0 (off).
    /// Refused with `kAbsoluteConsistency`, which must fail on anything past the last record
    /// (RocksDB turns recycling off there).
    pub recycle_log_file_num: usize,
    /// Size at which the MANIFEST is rewritten as a fresh snapshot of the file set. Default
    /// 1 GiB. Smaller files open faster; rewriting costs a write of the whole current file set.
    /// Range 1 KiB..=u64::MAX.
    pub max_manifest_file_size: u64,
    /// Lets the members of a commit group insert their own batches into the memtables, each on
    /// its own thread and at once, after the group's leader has written the group's WAL record
    /// (RocksDB's parallel memtable writes); the group's writes become visible together once
    /// every member has inserted. Default true. False makes the leader insert the whole group
    /// alone, which costs less synchronisation when batches are tiny and the writers few. Every
    /// memtable CairnDB builds (the concurrent skiplist; `memtable_factory` is not supported)
    /// takes concurrent inserts, so no memtable choice conflicts with it.
    pub allow_concurrent_memtable_write: bool,
    /// Lets the next commit group write its WAL record while the previous groups are still
    /// inserting into the memtables (RocksDB's pipelined write: the WAL stage and the memtable
    /// stage of consecutive groups overlap), so the serialized part of a commit is the WAL
    /// write alone; groups still become visible in sequence order. Default **true**, unlike
    /// RocksDB's false: with many writers and small batches it is what lets commit groups of
    /// one writer run concurrently (measured in `docs/design/db.md`, "Commit groups"). False
    /// keeps each group's inserts inside its leader's term.
    pub enable_pipelined_write: bool,
    /// How a writer queued behind a commit group waits for its turn: after about a microsecond
    /// of spinning it yields its core for up to `write_thread_max_yield_usec` before it sleeps
    /// in the kernel, while yielding has been seen to pay (RocksDB's adaptive yield; see
    /// `docs/design/db.md`, "Commit groups"). Default true. False sleeps right after the spin:
    /// less CPU spent waiting, more futex wake-ups per commit group.
    pub enable_write_thread_adaptive_yield: bool,
    /// Longest a queued writer yields before it sleeps, in microseconds; 0 disables the yielding
    /// phase. Default 100 (RocksDB's). Range 0..=1,000,000.
    pub write_thread_max_yield_usec: u64,
    /// A yield that takes at least this many microseconds counts as slow (another thread had the
    /// core); three slow yields end the yielding phase early and teach the writer not to yield.
    /// Default 3 (RocksDB's). Range 0..=1,000,000.
    pub write_thread_slow_yield_usec: u64,
    /// Bytes per second admitted when compaction debt reaches the slowdown thresholds
    /// (`level0_slowdown_writes_trigger`, `soft_pending_compaction_bytes_limit`); the admission
    /// rate falls smoothly from unlimited to this rate and below as debt grows. 0 means 16 MiB/s.
    /// Default 0.
    pub delayed_write_rate: u64,
    /// Seconds between statistics dumps to the info log; 0 disables. Default 600.
    pub stats_dump_period_sec: u32,
    /// Least severity written to the info log. Default `INFO_LEVEL`.
    pub info_log_level: InfoLogLevel,
    /// Old info log files kept. Default 1000. Range 1..=usize::MAX.
    pub keep_log_file_num: usize,
    /// Size in bytes at which the info log is rotated; 0 means never by size. Default 0.
    pub max_log_file_size: usize,
    /// Readahead for compaction inputs, in bytes; 0 disables. Default 2 MiB (RocksDB >= 8.x).
    /// Larger reads fewer, bigger requests on disks where seeks cost; more memory per input.
    pub compaction_readahead_size: u64,
    /// CPU priority of the compaction threads (RocksDB's
    /// `Env::LowerThreadPoolCPUPriority(Env::LOW, priority)`; their subcompaction threads
    /// inherit it). Default `Normal`. `Low` lets writers run first on a machine with fewer cores
    /// than busy threads; compaction then runs in the time they leave, and if that is too little
    /// its debt grows until the write controller slows the writers. Not part of option strings
    /// or OPTIONS files (RocksDB sets it on the `Env`, not in options). A compaction started by
    /// `compact_range` runs on the calling thread, at its priority.
    pub compaction_cpu_priority: CpuPriority,
    /// CPU priority of the flush thread (RocksDB's `Env::HIGH` pool). Default `Normal`. A
    /// lowered flush thread can leave a full memtable waiting, which stalls writes.
    pub flush_cpu_priority: CpuPriority,
    /// Where the database reads wall-clock time (file creation times, `ttl`,
    /// `periodic_compaction_seconds`). Default `None`: the system clock. RocksDB's `Env` clock;
    /// tests pass a [`ManualClock`] to make time-triggered compactions happen on demand.
    pub clock: Option<Arc<dyn Clock>>,
    /// Limits the bytes per second that flushes and compactions write (RocksDB's
    /// `rate_limiter`, made by `NewGenericRateLimiter`). Default `None` (unlimited). Flushes ask
    /// at high priority, compactions at low. Shared: one limiter may serve several databases.
    pub rate_limiter: Option<Arc<RateLimiter>>,
    /// Collects RocksDB's tickers and histograms (RocksDB's `statistics`,
    /// `CreateDBStatistics()`). Default `None`: nothing is collected and every hook costs one
    /// `Option` check. Shared: one object may serve several databases. Not part of option
    /// strings or OPTIONS files (RocksDB does not serialize it either).
    pub statistics: Option<Arc<crate::statistics::Statistics>>,
}

/// A source of wall-clock time (RocksDB's `SystemClock`). Implementations are shared between
/// threads. Two `dyn Clock`s are equal when they are the same object.
pub trait Clock: Send + Sync + fmt::Debug {
    /// Microseconds since the Unix epoch.
    fn now_micros(&self) -> u64;

    /// Seconds since the Unix epoch.
    fn now_secs(&self) -> u64 {
        self.now_micros() / 1_000_000
    }
}

impl PartialEq for dyn Clock {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::addr_eq(self, other)
    }
}

/// The operating system's wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_micros(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
    }
}

/// A clock that moves only when told to, for tests of time-triggered behaviour.
#[derive(Debug, Default)]
pub struct ManualClock {
    micros: AtomicU64,
}

impl ManualClock {
    /// A clock standing at `secs` seconds since the Unix epoch.
    pub fn new(secs: u64) -> Self {
        ManualClock {
            micros: AtomicU64::new(secs.saturating_mul(1_000_000)),
        }
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        let us = u64::try_from(by.as_micros()).unwrap_or(u64::MAX);
        self.micros.fetch_add(us, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_micros(&self) -> u64 {
        self.micros.load(Ordering::SeqCst)
    }
}

impl Default for DbOptions {
    fn default() -> Self {
        DbOptions {
            create_if_missing: false,
            create_missing_column_families: false,
            error_if_exists: false,
            paranoid_checks: true,
            max_open_files: -1,
            table_cache_numshardbits: -1,
            max_background_jobs: 2,
            max_subcompactions: 1,
            bytes_per_sync: 1 << 20,
            wal_bytes_per_sync: 0,
            max_total_wal_size: 0,
            wal_recovery_mode: WalRecoveryMode::TolerateCorruptedTailRecords,
            recycle_log_file_num: 0,
            max_manifest_file_size: 1 << 30,
            allow_concurrent_memtable_write: true,
            enable_pipelined_write: true,
            enable_write_thread_adaptive_yield: true,
            write_thread_max_yield_usec: 100,
            write_thread_slow_yield_usec: 3,
            delayed_write_rate: 0,
            stats_dump_period_sec: 600,
            info_log_level: InfoLogLevel::Info,
            keep_log_file_num: 1000,
            max_log_file_size: 0,
            compaction_readahead_size: 2 << 20,
            compaction_cpu_priority: CpuPriority::Normal,
            flush_cpu_priority: CpuPriority::Normal,
            clock: None,
            rate_limiter: None,
            statistics: None,
        }
    }
}

impl DbOptions {
    /// Checks every option against its documented range.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the first option out of
    /// range and the allowed range.
    pub fn validate(&self) -> Result<()> {
        if self.max_open_files == 0 || self.max_open_files < -1 {
            return Err(out_of_range(
                "max_open_files",
                self.max_open_files,
                "-1 (unlimited) or 1..=2147483647",
            ));
        }
        check_range(
            "table_cache_numshardbits",
            self.table_cache_numshardbits,
            -1,
            i32::from(crate::cache::MAX_SHARD_BITS),
        )?;
        check_range("max_background_jobs", self.max_background_jobs, 1, 1024)?;
        check_range("max_subcompactions", self.max_subcompactions, 1, 256)?;
        check_range(
            "max_manifest_file_size",
            self.max_manifest_file_size,
            1 << 10,
            u64::MAX,
        )?;
        check_range("keep_log_file_num", self.keep_log_file_num, 1, usize::MAX)?;
        check_range(
            "recycle_log_file_num",
            self.recycle_log_file_num,
            0,
            1 << 10,
        )?;
        if self.recycle_log_file_num > 0
            && self.wal_recovery_mode == WalRecoveryMode::AbsoluteConsistency
        {
            return Err(crate::Error::InvalidArgument(
                "recycle_log_file_num > 0 cannot be combined with \
                 wal_recovery_mode=kAbsoluteConsistency: a recycled WAL holds old bytes past its \
                 last record, which that mode would have to reject"
                    .into(),
            ));
        }
        for (name, priority) in [
            ("compaction_cpu_priority", self.compaction_cpu_priority),
            ("flush_cpu_priority", self.flush_cpu_priority),
        ] {
            if cfg!(not(target_os = "linux")) && priority != CpuPriority::Normal {
                return Err(crate::Error::InvalidArgument(format!(
                    "{name}: a lowered thread priority is built for Linux only"
                )));
            }
        }
        check_range(
            "write_thread_max_yield_usec",
            self.write_thread_max_yield_usec,
            0,
            1_000_000,
        )?;
        check_range(
            "write_thread_slow_yield_usec",
            self.write_thread_slow_yield_usec,
            0,
            1_000_000,
        )?;
        Ok(())
    }

    /// How many tables the table cache may hold open: `None` for no limit, else
    /// `max(max_open_files, 20) - 10`, as RocksDB sizes it.
    pub fn table_cache_capacity(&self) -> Option<usize> {
        let n = usize::try_from(self.max_open_files).ok()?;
        Some(n.max(MIN_MAX_OPEN_FILES) - NON_TABLE_FILES)
    }

    /// The table cache's shard bits: `None` for the automatic choice
    /// (`table_cache_numshardbits = -1`).
    pub fn table_cache_shard_bits(&self) -> Option<u8> {
        u8::try_from(self.table_cache_numshardbits).ok()
    }

    /// Now, in seconds since the Unix epoch, by [`DbOptions::clock`] (the system clock when
    /// none is set).
    pub fn now_secs(&self) -> u64 {
        match &self.clock {
            Some(c) => c.now_secs(),
            None => SystemClock.now_secs(),
        }
    }

    /// `delayed_write_rate` with 0 resolved to its automatic value.
    pub fn effective_delayed_write_rate(&self) -> u64 {
        match self.delayed_write_rate {
            0 => DEFAULT_DELAYED_WRITE_RATE,
            rate => rate,
        }
    }

    /// `max_total_wal_size` with 0 resolved: 4 x `memtable_bytes`, the sum over column families of
    /// `write_buffer_size x max_write_buffer_number`.
    pub fn effective_max_total_wal_size(&self, memtable_bytes: u64) -> u64 {
        match self.max_total_wal_size {
            0 => memtable_bytes.saturating_mul(4),
            limit => limit,
        }
    }
}
