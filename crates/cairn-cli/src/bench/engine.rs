//! The engine under test, as the benchmark drivers see it: [`BenchEngine`] (open, writes, point
//! reads, multi-reads, iterators, flush, close, a few properties), the engine-neutral options the
//! db_bench flags map to ([`EngineOptions`]) and the benchmark's error type.
//!
//! # Contract
//! - An engine is shared by the benchmark threads of a step (`BenchEngine: Sync`; the
//!   threads run in a `std::thread::scope` and borrow it): `put`, `delete`, `write`, `get`,
//!   `multi_get`, `iter`, `flush`, `compact` and `wait_for_compaction` may be called from several
//!   threads at once. Write options, batches, iterators and values are per thread. `open` and
//!   `close` are called on the main thread between steps, with no benchmark thread running.
//! - Every engine receives the same [`EngineOptions`] and maps each field onto its own option of
//!   the same name and meaning (`cairn_engine.rs`, `rocksdb_engine.rs`); a field an engine has no
//!   option for is documented at the place where that engine ignores it.
//! - The drivers (`workloads.rs`) use nothing engine-specific, so both engines run exactly the
//!   same operations on the same keys and values.
//! - Transactions ([`BenchTxn`], begun by [`BenchEngine::begin_transaction`]) exist only when the
//!   engine was opened as a transaction database ([`EngineOptions::transaction_db`]); a
//!   transaction is used by the thread that began it and ended (commit or rollback) or dropped
//!   there.

use std::fmt;
use std::path::Path;

use cairndb::options::CpuPriority;

/// The result type of the benchmark.
pub type Result<T> = std::result::Result<T, BenchError>;

/// What can stop a benchmark run.
#[derive(Debug)]
#[non_exhaustive]
pub enum BenchError {
    /// A flag value or combination the benchmark cannot run with.
    Usage(String),
    /// A value the benchmark read back that it cannot have written (randomtransaction's
    /// counters), as db_bench's "unexpected value".
    Inconsistent(String),
    /// An error returned by CairnDB.
    Cairn(cairndb::Error),
    /// An error of the row layer (`--suite sysbench`), on either engine.
    Rows(cairn_rows::Error),
    /// An error returned by RocksDB.
    #[cfg(feature = "rocksdb")]
    RocksDb(rocksdb::Error),
    /// Another error with a description of what was being done.
    Context {
        /// What was being done.
        context: String,
        /// What went wrong.
        source: Box<BenchError>,
    },
}

impl BenchError {
    /// Wraps `self` with a description of what was being done.
    #[must_use]
    pub fn context(self, context: impl Into<String>) -> Self {
        BenchError::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// Two-phase commit asked of an optimistic transaction, which has none (as in RocksDB).
    pub fn optimistic_has_no_2pc() -> Self {
        BenchError::Usage("optimistic transactions have no two-phase commit".to_string())
    }
}

impl BenchError {
    /// The engine's error under the context wrappers, if the error came from CairnDB.
    fn engine_error(&self) -> Option<&cairndb::Error> {
        match self {
            BenchError::Cairn(e) => Some(e),
            BenchError::Context { source, .. } => source.engine_error(),
            _ => None,
        }
    }

    /// True when the error (under the context wrappers) came from RocksDB with the status code
    /// `kind` (the crate parses the code from the message's `Status::ToString` prefix).
    #[cfg(feature = "rocksdb")]
    fn is_rocksdb(&self, kind: RocksStatus) -> bool {
        use rocksdb::ErrorKind;
        match self {
            BenchError::RocksDb(e) => matches!(
                (kind, e.kind()),
                (RocksStatus::Busy, ErrorKind::Busy)
                    | (RocksStatus::TimedOut, ErrorKind::TimedOut)
                    | (RocksStatus::TryAgain, ErrorKind::TryAgain)
                    | (RocksStatus::Expired, ErrorKind::Expired)
            ),
            BenchError::Context { source, .. } => source.is_rocksdb(kind),
            _ => false,
        }
    }

    /// Without the `rocksdb` feature no error comes from RocksDB.
    #[cfg(not(feature = "rocksdb"))]
    fn is_rocksdb(&self, kind: RocksStatus) -> bool {
        let _ = kind;
        false
    }

    /// RocksDB's `Status::IsBusy`: a write conflict, or a lock past `max_num_locks`. A deadlock
    /// counts too: RocksDB reports one as `Busy` (sub-code `kDeadlock`).
    pub fn is_busy(&self) -> bool {
        self.engine_error()
            .is_some_and(|e| e.is_busy() || e.is_deadlock())
            || self.is_rocksdb(RocksStatus::Busy)
    }

    /// RocksDB's `Status::IsTimedOut`: a lock wait ran past its timeout.
    pub fn is_timed_out(&self) -> bool {
        self.engine_error()
            .is_some_and(cairndb::Error::is_timed_out)
            || self.is_rocksdb(RocksStatus::TimedOut)
    }

    /// RocksDB's `Status::IsTryAgain`: an optimistic commit that could not check for conflicts
    /// (RocksDB's memtable history was too short). CairnDB always can (its conflict check reads
    /// the tables), so only for RocksDB.
    pub fn is_try_again(&self) -> bool {
        self.is_rocksdb(RocksStatus::TryAgain)
    }

    /// RocksDB's `Status::IsExpired`: a transaction ran past its expiration.
    pub fn is_expired(&self) -> bool {
        self.engine_error()
            .is_some_and(|e| matches!(e.root(), cairndb::Error::Expired(_)))
            || self.is_rocksdb(RocksStatus::Expired)
    }
}

/// The RocksDB status codes [`BenchError`]'s classification looks for.
#[derive(Debug, Clone, Copy)]
enum RocksStatus {
    Busy,
    TimedOut,
    TryAgain,
    Expired,
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::Usage(m) | BenchError::Inconsistent(m) => write!(f, "{m}"),
            BenchError::Cairn(e) => write!(f, "{e}"),
            BenchError::Rows(e) => write!(f, "{e}"),
            #[cfg(feature = "rocksdb")]
            BenchError::RocksDb(e) => write!(f, "rocksdb: {e}"),
            BenchError::Context { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

impl std::error::Error for BenchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BenchError::Usage(_) | BenchError::Inconsistent(_) => None,
            BenchError::Cairn(e) => Some(e),
            BenchError::Rows(e) => Some(e),
            #[cfg(feature = "rocksdb")]
            BenchError::RocksDb(e) => Some(e),
            BenchError::Context { source, .. } => Some(source.as_ref()),
        }
    }
}

impl From<cairn_rows::Error> for BenchError {
    fn from(e: cairn_rows::Error) -> Self {
        BenchError::Rows(e)
    }
}

impl From<cairndb::Error> for BenchError {
    fn from(e: cairndb::Error) -> Self {
        BenchError::Cairn(e)
    }
}

#[cfg(feature = "rocksdb")]
impl From<rocksdb::Error> for BenchError {
    fn from(e: rocksdb::Error) -> Self {
        BenchError::RocksDb(e)
    }
}

/// Block compression, limited to what CairnDB builds (the `rocksdb` feature's RocksDB has no
/// Snappy: `--engine rocksdb` refuses it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// `kNoCompression`.
    None,
    /// `kLZ4Compression`.
    Lz4,
    /// `kZSTD`.
    Zstd,
    /// `kSnappyCompression`, db_bench's default.
    Snappy,
}

impl Compression {
    /// Parses db_bench's `--compression_type` values (and RocksDB's enum names).
    ///
    /// # Errors
    /// [`BenchError::Usage`] for a compression CairnDB is not built with (`zlib`, `bzip2`,
    /// `lz4hc`, `xpress`) or an unknown name.
    pub fn parse(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "none" | "no" | "knocompression" => Ok(Compression::None),
            "lz4" | "klz4compression" => Ok(Compression::Lz4),
            "zstd" | "kzstd" => Ok(Compression::Zstd),
            "snappy" | "ksnappycompression" => Ok(Compression::Snappy),
            other @ ("zlib" | "kzlibcompression" | "bzip2" | "kbzip2compression" | "lz4hc"
            | "klz4hccompression" | "xpress" | "kxpresscompression") => {
                Err(BenchError::Usage(format!(
                    "--compression_type={other} is not available: CairnDB compresses with lz4, \
                     zstd or snappy (or none)"
                )))
            }
            other => Err(BenchError::Usage(format!(
                "unknown --compression_type {other:?} (use none, lz4, zstd or snappy)"
            ))),
        }
    }

    /// RocksDB's name of the compression, as db_bench prints it.
    pub fn rocksdb_name(self) -> &'static str {
        match self {
            Compression::None => "kNoCompression",
            Compression::Lz4 => "kLZ4Compression",
            Compression::Zstd => "kZSTD",
            Compression::Snappy => "kSnappyCompression",
        }
    }
}

/// The block cache's eviction policy (db_bench's `--cache_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheType {
    /// `lru_cache`: least recently used, a mutex per shard (RocksDB `LRUCache`, CairnDB `Lru`).
    Lru,
    /// `hyper_clock_cache`: clock eviction without an exclusive lock on lookups (RocksDB
    /// `HyperClockCache`, CairnDB `Clock`).
    HyperClock,
}

impl CacheType {
    /// Parses db_bench's `--cache_type` values.
    ///
    /// # Errors
    /// [`BenchError::Usage`] for other cache types (db_bench's `fixed_hyper_clock_cache`,
    /// tiered caches, ...).
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "lru_cache" => Ok(CacheType::Lru),
            "hyper_clock_cache" | "auto_hyper_clock_cache" => Ok(CacheType::HyperClock),
            other => Err(BenchError::Usage(format!(
                "unsupported --cache_type {other:?} (use lru_cache or hyper_clock_cache)"
            ))),
        }
    }

    /// db_bench's name of the cache type.
    pub fn name(self) -> &'static str {
        match self {
            CacheType::Lru => "lru_cache",
            CacheType::HyperClock => "hyper_clock_cache",
        }
    }
}

/// The options both engines are opened with, under RocksDB's names and units, derived from the
/// db_bench flags by `BenchArgs::engine_options`.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineOptions {
    /// `write_buffer_size`: bytes a memtable holds before it is switched and flushed.
    pub write_buffer_size: usize,
    /// `memtable_huge_page_size`: huge pages for memtable arenas, 0 for none.
    pub memtable_huge_page_size: usize,
    /// `max_write_buffer_number`: memtables (mutable plus immutable) kept in memory.
    pub max_write_buffer_number: u32,
    /// `min_write_buffer_number_to_merge`: immutable memtables merged into one flush.
    pub min_write_buffer_number_to_merge: u32,
    /// `max_background_jobs`: background flushes and compactions at once.
    pub max_background_jobs: u32,
    /// `max_subcompactions` (db_bench's `--subcompactions`).
    pub max_subcompactions: u32,
    /// `target_file_size_base`: target size of compaction output files in L1, bytes.
    pub target_file_size_base: u64,
    /// `target_file_size_multiplier`: factor between target file sizes of adjacent levels.
    pub target_file_size_multiplier: u32,
    /// `max_bytes_for_level_base`: target size of L1 (or the base level), bytes.
    pub max_bytes_for_level_base: u64,
    /// `max_bytes_for_level_multiplier`: size ratio between adjacent levels.
    pub max_bytes_for_level_multiplier: f64,
    /// `level_compaction_dynamic_level_bytes`.
    pub level_compaction_dynamic_level_bytes: bool,
    /// `num_levels`.
    pub num_levels: u32,
    /// `level0_file_num_compaction_trigger`.
    pub level0_file_num_compaction_trigger: u32,
    /// `level0_slowdown_writes_trigger`.
    pub level0_slowdown_writes_trigger: u32,
    /// `level0_stop_writes_trigger`.
    pub level0_stop_writes_trigger: u32,
    /// `soft_pending_compaction_bytes_limit`, bytes.
    pub soft_pending_compaction_bytes_limit: u64,
    /// `hard_pending_compaction_bytes_limit`, bytes.
    pub hard_pending_compaction_bytes_limit: u64,
    /// `delayed_write_rate`: bytes per second admitted while writes are slowed down.
    pub delayed_write_rate: u64,
    /// `max_open_files` (db_bench's `--open_files`); -1 for no limit.
    pub max_open_files: i32,
    /// `bytes_per_sync`; `None` keeps each engine's default (RocksDB 0, CairnDB 1 MiB).
    pub bytes_per_sync: Option<u64>,
    /// `recycle_log_file_num`: obsolete WALs kept for reuse.
    pub recycle_log_file_num: usize,
    /// `compression`: block compression of every level.
    pub compression: Compression,
    /// `block_size`: target uncompressed data block size, bytes.
    pub block_size: usize,
    /// Bits per key of a full-key Bloom filter in every table; `None` builds no filter.
    pub bloom_bits_per_key: Option<f64>,
    /// The block cache: its policy and capacity in bytes; `None` runs without a block cache.
    pub block_cache: Option<(CacheType, usize)>,
    /// `enable_pipelined_write` (db_bench's default true, RocksDB's false, CairnDB's true),
    /// given to both engines.
    pub enable_pipelined_write: bool,
    /// multireadrandom through RocksDB's batched `MultiGet` (db_bench's `--multiread_batched`)
    /// instead of the vector `MultiGet`; CairnDB has one multi-get and ignores it.
    pub multiread_batched: bool,
    /// `compaction_style` (db_bench's `--compaction_style`: 0 level, 1 universal, 2 fifo).
    pub compaction_style: CompactionStyle,
    /// Collect engine statistics (db_bench's `--statistics`): RocksDB's `Statistics` object,
    /// CairnDB's `DbOptions::statistics`; printed at the end of the run.
    pub statistics: bool,
    /// A RocksDB OPTIONS file whose database and default-family options replace the option
    /// fields above (db_bench's `--options_file`); `statistics` still applies.
    pub options_file: Option<std::path::PathBuf>,
    /// A RocksDB option string applied last (`cairn bench --options`).
    pub options_string: Option<String>,
    /// Skip unknown or unsupported options in `options_file` and `options_string`.
    pub ignore_unknown_options: bool,
    /// The background I/O rate limiter (db_bench's `--rate_limiter_bytes_per_sec`), `None`
    /// for none.
    pub rate_limiter: Option<RateLimit>,
    /// Open a transaction database (db_bench's `--transaction_db` and
    /// `--optimistic_transaction_db`), with RocksDB's default database-wide transaction options,
    /// as db_bench does.
    pub transaction_db: TransactionDbKind,
    /// CPU priority of the compaction threads (CairnDB's `DbOptions::compaction_cpu_priority`,
    /// RocksDB's `Env::LowerThreadPoolCPUPriority(LOW)`).
    pub compaction_cpu_priority: CpuPriority,
    /// CPU priority of the flush threads (RocksDB's HIGH pool).
    pub flush_cpu_priority: CpuPriority,
}

/// Which database db_bench opens: a plain one, a `TransactionDB` or an
/// `OptimisticTransactionDB`.
///
/// As in db_bench, every benchmark of the run uses it: with a `TransactionDB`, writes outside
/// transactions (the fills, overwrite, deletes) lock their keys as RocksDB's `TransactionDB::Put`
/// and `Write` do; an `OptimisticTransactionDB`'s writes outside transactions go to its base
/// database (db_bench's `GetBaseDB`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TransactionDbKind {
    /// A plain database (no transaction flag).
    #[default]
    None,
    /// `TransactionDB`: pessimistic transactions (`--transaction_db`).
    Pessimistic,
    /// `OptimisticTransactionDB` (`--optimistic_transaction_db`).
    Optimistic,
}

impl TransactionDbKind {
    /// RocksDB's class name, for the header.
    pub fn name(self) -> &'static str {
        match self {
            TransactionDbKind::None => "none",
            TransactionDbKind::Pessimistic => "TransactionDB",
            TransactionDbKind::Optimistic => "OptimisticTransactionDB",
        }
    }
}

/// The options of one transaction (RocksDB's `TransactionOptions` as db_bench's
/// randomtransaction sets them). An optimistic database uses only `set_snapshot`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TxnOptions {
    /// `set_snapshot`: take a snapshot at begin.
    pub set_snapshot: bool,
    /// `lock_timeout` in milliseconds (pessimistic only; negative: the database's default).
    pub lock_timeout_ms: i64,
}

/// A transaction as randomtransaction uses it (RocksDB's `Transaction`, pessimistic or
/// optimistic). Reads see the transaction's own writes; they read the latest committed state
/// until [`BenchTxn::set_snapshot`], then the snapshot.
///
/// Errors are the engine's, classified by [`BenchError::is_busy`], [`BenchError::is_timed_out`],
/// [`BenchError::is_try_again`] and [`BenchError::is_expired`].
pub trait BenchTxn {
    /// True when the transaction has a snapshot (`GetSnapshot() != nullptr`).
    fn has_snapshot(&self) -> bool;

    /// Takes a new snapshot (`SetSnapshot()`) and reads at it from now on (db_bench sets
    /// `read_options.snapshot` to it).
    ///
    /// # Errors
    /// The engine's error taking it.
    fn set_snapshot(&mut self) -> Result<()>;

    /// `Get`: the value of `key` as the transaction sees it.
    ///
    /// # Errors
    /// The engine's read error.
    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// `GetForUpdate` (exclusive): locks `key` (pessimistic) or tracks it for the commit's
    /// conflict check (optimistic), then reads it as [`BenchTxn::get`].
    ///
    /// # Errors
    /// A lock timeout, a write conflict with the snapshot, the read's error.
    fn get_for_update(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// `Delete` of `key` in the transaction.
    ///
    /// # Errors
    /// As [`BenchTxn::get_for_update`] when the key was not locked yet.
    fn delete(&mut self, key: &[u8]) -> Result<()>;

    /// `SingleDelete` of `key` in the transaction.
    ///
    /// # Errors
    /// As [`BenchTxn::delete`].
    fn single_delete(&mut self, key: &[u8]) -> Result<()>;

    /// `Put` of `key` = `value` in the transaction.
    ///
    /// # Errors
    /// As [`BenchTxn::delete`].
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()>;

    /// `SetName` (pessimistic transactions): the name `prepare` needs.
    ///
    /// # Errors
    /// A name in use, an optimistic transaction.
    fn set_name(&mut self, name: &str) -> Result<()>;

    /// `Prepare` (pessimistic transactions): the first phase of two-phase commit.
    ///
    /// # Errors
    /// An expired transaction, the WAL write's error, an optimistic transaction.
    fn prepare(&mut self) -> Result<()>;

    /// A `Put` into the commit-time batch (`GetCommitTimeWriteBatch()->Put`), which a prepared
    /// transaction's commit writes. `Ok(false)` when the engine has no commit-time batch
    /// (nothing happened).
    ///
    /// # Errors
    /// The batch's error.
    fn commit_time_put(&mut self, key: &[u8], value: &[u8]) -> Result<bool>;

    /// `Commit`.
    ///
    /// # Errors
    /// An optimistic conflict (`Busy`), an expired transaction, the write's error.
    fn commit(&mut self) -> Result<()>;

    /// `Rollback`.
    ///
    /// # Errors
    /// The engine's error.
    fn rollback(&mut self) -> Result<()>;
}

/// db_bench's rate-limiter flags: `NewGenericRateLimiter(bytes_per_sec, refill_period_us,
/// fairness 10, mode)`, where `--rate_limit_bg_reads` picks kReadsOnly, else kWritesOnly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// `--rate_limiter_bytes_per_sec`.
    pub bytes_per_sec: u64,
    /// `--rate_limiter_refill_period_us`.
    pub refill_period_us: u64,
    /// `--rate_limit_bg_reads`: charge compaction reads instead of flush and compaction writes.
    pub bg_reads: bool,
    /// `--rate_limiter_backlog_control`: CairnDB's backlog controller sets the rate, with
    /// `bytes_per_sec` as the ceiling.
    pub backlog_control: bool,
}

/// How compaction shapes the tree (RocksDB's `CompactionStyle`, numbered as db_bench's
/// `--compaction_style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionStyle {
    /// 0: `kCompactionStyleLevel`.
    Level,
    /// 1: `kCompactionStyleUniversal`.
    Universal,
    /// 2: `kCompactionStyleFIFO`.
    Fifo,
}

impl CompactionStyle {
    /// db_bench's number of the style.
    ///
    /// # Errors
    /// [`BenchError::Usage`] for another number (3, `kCompactionStyleNone`, is manual-only and
    /// not run here).
    pub fn from_db_bench(v: i32) -> Result<Self> {
        match v {
            0 => Ok(CompactionStyle::Level),
            1 => Ok(CompactionStyle::Universal),
            2 => Ok(CompactionStyle::Fifo),
            other => Err(BenchError::Usage(format!(
                "--compaction_style={other}: use 0 (level), 1 (universal) or 2 (fifo)"
            ))),
        }
    }
}

/// Durability of one write (RocksDB's `WriteOptions.sync` and `disableWAL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteMode {
    /// Sync the WAL before the write returns.
    pub sync: bool,
    /// Do not write the WAL.
    pub disable_wal: bool,
}

/// A write batch being filled: puts and deletes applied atomically by [`BenchEngine::write`].
pub trait BenchBatch {
    /// Adds a put of `key` with `value`.
    ///
    /// # Errors
    /// The engine's error for a key or value it cannot accept.
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()>;

    /// Adds a delete of `key`.
    ///
    /// # Errors
    /// The engine's error for a key it cannot accept.
    fn delete(&mut self, key: &[u8]) -> Result<()>;
}

/// A forward and backward iterator over the engine's latest state, with RocksDB's iterator
/// contract: `key` and `value` require `valid`; an iterator that stops on an error becomes
/// invalid and reports the error from `status`.
pub trait BenchIter {
    /// Positions at the first key.
    fn seek_to_first(&mut self);
    /// Positions at the last key.
    fn seek_to_last(&mut self);
    /// Positions at the first key at or after `target`.
    fn seek(&mut self, target: &[u8]);
    /// Moves to the next key. Requires `valid`.
    fn next(&mut self);
    /// Moves to the previous key. Requires `valid`.
    fn prev(&mut self);
    /// True when positioned at a key.
    fn valid(&self) -> bool;
    /// The current key. Requires `valid`.
    fn key(&self) -> &[u8];
    /// The current value. Requires `valid`.
    fn value(&self) -> &[u8];
    /// The error that stopped the iterator, if any.
    ///
    /// # Errors
    /// That error.
    fn status(&self) -> Result<()>;
}

/// A key-value engine the benchmark drivers run against.
pub trait BenchEngine: Sized + Sync {
    /// A value read by `get` or `multi_get` (borrowed from the engine where it can pin it).
    type Value<'a>: AsRef<[u8]>
    where
        Self: 'a;
    /// Write options prepared once per benchmark (building them may allocate).
    type WriteOptions;
    /// A write batch.
    type Batch: BenchBatch;
    /// An iterator.
    type Iter<'a>: BenchIter
    where
        Self: 'a;

    /// Opens the database in `dir`, creating it when missing (db_bench always sets
    /// `create_if_missing`), with `options`.
    ///
    /// # Errors
    /// Options the engine rejects, a directory holding another engine's or a damaged database,
    /// I/O errors.
    fn open(dir: &Path, options: &EngineOptions) -> Result<Self>;

    /// One line naming the engine and its version, for the benchmark header.
    fn describe(&self) -> String;

    /// The engine's write options for `mode`.
    ///
    /// # Errors
    /// [`BenchError::Usage`] for `sync` together with `disable_wal` (there is no WAL to sync).
    fn write_options(&self, mode: WriteMode) -> Result<Self::WriteOptions>;

    /// Writes `key` = `value`.
    ///
    /// # Errors
    /// The engine's write error.
    fn put(&self, wo: &Self::WriteOptions, key: &[u8], value: &[u8]) -> Result<()>;

    /// Deletes `key`.
    ///
    /// # Errors
    /// The engine's write error.
    fn delete(&self, wo: &Self::WriteOptions, key: &[u8]) -> Result<()>;

    /// An empty write batch.
    fn new_batch(&self) -> Self::Batch;

    /// Applies `batch` atomically.
    ///
    /// # Errors
    /// The engine's write error.
    fn write(&self, wo: &Self::WriteOptions, batch: Self::Batch) -> Result<()>;

    /// The value of `key`, or `None` when it has none.
    ///
    /// # Errors
    /// The engine's read error.
    fn get(&self, key: &[u8]) -> Result<Option<Self::Value<'_>>>;

    /// The values of `keys`, in order, read in one call where the engine has a multi-key read.
    ///
    /// # Errors
    /// The first read error of any key.
    fn multi_get(&self, keys: &[&[u8]]) -> Result<Vec<Option<Self::Value<'_>>>>;

    /// A new iterator over the latest state, not yet positioned.
    ///
    /// # Errors
    /// The engine's error creating it.
    fn iter(&self) -> Result<Self::Iter<'_>>;

    /// Flushes the memtables to table files and waits for the flush.
    ///
    /// # Errors
    /// The flush's error.
    fn flush(&self) -> Result<()>;

    /// Compacts the whole key range down to the last level and waits (db_bench's `compact`).
    ///
    /// # Errors
    /// The compaction's error.
    fn compact(&self) -> Result<()>;

    /// Waits until no flush or compaction is running or due (db_bench's `waitforcompaction`).
    ///
    /// # Errors
    /// The engine's background error.
    fn wait_for_compaction(&self) -> Result<()>;

    /// Begins a transaction whose commit writes with `wo`, on a database opened as a
    /// transaction database ([`EngineOptions::transaction_db`]).
    ///
    /// # Errors
    /// [`BenchError::Usage`] when the engine was opened without transactions or cannot run
    /// them (the default); the engine's error beginning one.
    fn begin_transaction(
        &self,
        wo: &Self::WriteOptions,
        options: &TxnOptions,
    ) -> Result<Box<dyn BenchTxn + '_>> {
        let _ = (wo, options);
        Err(BenchError::Usage(format!(
            "{}: transactions are not available for this engine",
            self.describe()
        )))
    }

    /// A few engine-specific facts for the summary (files per level, memtables, cache use).
    fn properties(&self) -> Vec<(String, String)>;

    /// Bytes the engine has written to table files (flushes and compactions) since it was
    /// opened, from its own statistics; `None` when it does not say.
    fn table_bytes_written(&self) -> Option<u64> {
        None
    }

    /// Where [`BenchEngine::table_bytes_written`] comes from, for the report.
    fn write_amp_source(&self) -> &'static str {
        "unavailable"
    }

    /// What db_bench's `stats` (`"stats"`) or `levelstats` (`"levelstats"`) benchmark prints
    /// for this engine.
    fn stats_report(&self, which: &str) -> String {
        format!("{which}: not available for this engine")
    }

    /// The engine's statistics at the end of the run (db_bench's `--statistics`), or a note of
    /// what it lacks.
    fn statistics(&self) -> String {
        "statistics: not available for this engine".to_string()
    }

    /// Closes the database, waiting for background work.
    ///
    /// # Errors
    /// The engine's error closing it.
    fn close(self) -> Result<()>;
}
