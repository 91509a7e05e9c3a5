//! `cairn bench`: a db_bench-compatible benchmark that runs the same harness against CairnDB or
//! RocksDB.
//!
//! It takes db_bench's flag names (`--benchmarks=fillseq,readrandom --num=1000000 ...`),
//! generates keys and values exactly as db_bench does (see [`generator`]), runs each benchmark on
//! `--threads` threads seeded as db_bench seeds them (for `--duration` seconds where db_bench
//! honours it) and prints db_bench's result lines (and its histogram blocks with `--histogram`).
//! Under each result line it adds what db_bench leaves out: CPU, device I/O, write and space
//! amplification and peak RSS; the per-second throughput's median, CV and slow seconds; latency
//! percentiles to p99.99 and the maximum. `--report_json`, `--report_dir` (SVG plots),
//! `--report_interval_seconds`/`--report_file` (db_bench's CSV) record them.
//!
//! - [`engine`]: the engine abstraction the drivers use (shared by the threads of a step), and
//!   the engine-neutral options the flags map to.
//! - [`cairn_engine`]: CairnDB (`--engine cairndb`, the default).
//! - `rocksdb_engine`: RocksDB (`--engine rocksdb`), built only with the `rocksdb` feature.
//! - [`workloads`]: the run: steps in order, dispatch onto threads, printing and records.
//! - [`drivers`]: db_bench's per-thread benchmark loops, written once for any engine.
//! - [`threads`]: db_bench's `RunBenchmark` (threads, seeds, merging), `Duration`, rate limit.
//! - [`report`], [`histogram`]: results, db_bench's result line and histogram block.
//! - [`metrics`]: CPU, `/proc/self/io`, RSS, live keys; [`monitor`]: the CSV reporter, the
//!   progress line and `--stats_interval_seconds`; [`keydist`]: `--key_dist=zipfian`;
//!   [`plots`]: `--report_dir`; [`suite`]: `--suite forestdb|bluestore|sysbench|tpcc`; [`randomtxn`]:
//!   `randomtransaction` and its verification; [`bluestore`]: Ceph BlueStore's key-value
//!   traffic.
//!
//! Benchmarks and db_bench flags not taken are refused with a clear error (clap names an
//! unknown flag) rather than approximated.

mod bluestore;
mod cairn_engine;
mod device;
mod drivers;
mod engine;
mod generator;
mod histogram;
mod keydist;
mod metrics;
mod monitor;
mod plots;
mod randomtxn;
mod report;

/// The per-second statistics `cairn report` computes for db_bench's series as for its own.
pub(crate) use report::SeriesStats;
#[cfg(feature = "rocksdb")]
mod rocksdb_engine;
mod suite;
mod sysbench;
mod threads;
mod tpcc;
mod workloads;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Defaults of the flags that shape keys and batches (the bluestore benchmarks refuse any
/// other value, `bluestore::refused_flags`).
pub(crate) const DEFAULT_KEY_SIZE: usize = 16;
/// See [`DEFAULT_KEY_SIZE`].
pub(crate) const DEFAULT_VALUE_SIZE: usize = 100;
/// See [`DEFAULT_KEY_SIZE`].
pub(crate) const DEFAULT_BATCH_SIZE: u64 = 1;
/// See [`DEFAULT_KEY_SIZE`].
pub(crate) const DEFAULT_KEY_DIST: &str = "uniform";

use cairndb::options::{CpuPriority, RocksDbEnum};
use clap::{Args, ValueEnum};

pub use engine::BenchError;
use engine::{
    CacheType, CompactionStyle, Compression, EngineOptions, RateLimit, Result, TransactionDbKind,
    TxnOptions,
};

/// The engine `cairn bench` runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// CairnDB.
    Cairndb,
    /// RocksDB (needs a build with `--features rocksdb`).
    Rocksdb,
}

/// `--transaction_read_only`: what randomtransaction's transactions do (CairnDB's flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Serialize)]
#[serde(rename_all = "snake_case")]
#[clap(rename_all = "snake_case")]
pub enum TxnReadOnly {
    /// db_bench's transactions: read (half with `get_for_update`), write, prepare, commit.
    None,
    /// Read one key of every set with `get`, then commit.
    Get,
    /// Read one key of every set with `get_for_update`, then commit.
    GetForUpdate,
}

/// db_bench's flags, under db_bench's names and with its defaults, except where a flag's help
/// says otherwise.
///
/// As gflags in db_bench, a flag given twice takes its last value (scripts append overrides).
#[derive(Debug, Clone, Args, serde::Serialize)]
#[command(args_override_self = true)]
pub struct BenchArgs {
    /// The engine under test: cairndb, or rocksdb (only in a build with `--features rocksdb`).
    #[arg(long = "engine", value_enum, default_value_t = EngineKind::Cairndb)]
    pub engine: EngineKind,
    /// Comma-separated benchmarks, run in order on one database: fillseq, fillbatch, fillrandom,
    /// filluniquerandom, fillsync, overwrite, updaterandom, readrandom, readmissing,
    /// multireadrandom, readseq,
    /// readreverse, seekrandom, readwhilewriting, readrandomwriterandom, deleterandom,
    /// deleteseq, randomtransaction, bluestore_fill, bluestore_write (Ceph BlueStore's key-value
    /// traffic, see --suite bluestore), flush, compact, waitforcompaction, stats, levelstats.
    /// Fills (and bluestore_fill) start from a fresh database.
    #[arg(
        long = "benchmarks",
        default_value = "fillseq,fillrandom,readrandom,readseq,seekrandom"
    )]
    pub benchmarks: String,
    /// Threads running each benchmark, each with its own generator (readwhilewriting adds one
    /// background writer thread).
    #[arg(long = "threads", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: u32,
    /// Seconds the random-key benchmarks run for, instead of a count of operations; 0 means
    /// the counts (--num, --reads, --writes, --deletes) decide, as db_bench.
    #[arg(long = "duration", default_value_t = 0)]
    pub duration: u64,
    /// Share of reads (percent) in readrandomwriterandom.
    #[arg(long = "readwritepercent", default_value_t = 90, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub readwritepercent: u32,
    /// Bytes per second for readwhilewriting's background writer, the random writes and
    /// updaterandom; 0 for no limit.
    #[arg(long = "benchmark_write_rate_limit", default_value_t = 0)]
    pub benchmark_write_rate_limit: u64,
    /// Key distribution of random reads, seeks, multi-reads, readrandomwriterandom and
    /// updaterandom: uniform (db_bench's) or zipfian (YCSB's scrambled zipfian, with
    /// --zipf_theta; db_bench has no zipfian read distribution). Writes of the fills and
    /// overwrite stay uniform as in db_bench.
    #[arg(long = "key_dist", default_value = DEFAULT_KEY_DIST)]
    pub key_dist: String,
    /// Exponent of --key_dist=zipfian, in (0, 1).
    #[arg(long = "zipf_theta", default_value_t = 0.99)]
    pub zipf_theta: f64,
    /// Every this many seconds, write `secs_elapsed,interval_qps` to --report_file (db_bench's
    /// CSV; the file is rewritten at each benchmark, as db_bench does); 0 disables.
    #[arg(long = "report_interval_seconds", default_value_t = 0)]
    pub report_interval_seconds: u64,
    /// The CSV file of --report_interval_seconds.
    #[arg(long = "report_file", default_value = "report.csv")]
    pub report_file: PathBuf,
    /// Write every step's results (result line, efficiency, per-second series, latency
    /// percentiles), the flags, the engine and the final database size to this JSON file.
    #[arg(long = "report_json")]
    pub report_json: Option<PathBuf>,
    /// Write this run's charts (per step: throughput per second, its box plot, latency
    /// percentiles, CPU per operation, write-amp, size) as SVG files and an index.html to this
    /// directory, created when missing; `cairn report` puts several runs' side by side.
    #[arg(long = "report_dir")]
    pub report_dir: Option<PathBuf>,
    /// Compaction style: 0 level, 1 universal, 2 fifo (RocksDB's numbering, as db_bench).
    #[arg(
        long = "compaction_style",
        default_value_t = 0,
        allow_hyphen_values = true
    )]
    pub compaction_style: i32,
    /// Collect engine statistics and print them at the end (RocksDB: its Statistics object;
    /// CairnDB: the counters it keeps, and a note of what it lacks).
    #[arg(long = "statistics", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub statistics: bool,
    /// A RocksDB OPTIONS file (db_bench's --options_file). As in db_bench, the database options
    /// and the default column family's options (with its table options) come from the file
    /// instead of the option flags (--write_buffer_size, --cache_size, ...); --statistics and the
    /// benchmark flags still apply. CairnDB fails on options it does not support unless
    /// --ignore_unknown_options. With --engine rocksdb this build cannot load the file and says so.
    #[arg(long = "options_file", value_name = "PATH")]
    pub options_file: Option<std::path::PathBuf>,
    /// A RocksDB option string applied last, over the flags and --options_file, database and
    /// column-family options mixed (e.g. the MyRocks configuration). CairnDB's addition:
    /// db_bench has no such flag.
    #[arg(long = "options", value_name = "STRING")]
    pub options: Option<String>,
    /// Skip options in --options_file and --options that CairnDB does not know or support, with
    /// a warning on stderr, instead of failing (RocksDB's ignore_unknown_options).
    #[arg(long = "ignore_unknown_options")]
    pub ignore_unknown_options: bool,
    /// Background I/O limit in bytes per second (RocksDB's `rate_limiter`, a generic rate
    /// limiter with fairness 10); 0 for none.
    #[arg(long = "rate_limiter_bytes_per_sec", default_value_t = 0)]
    pub rate_limiter_bytes_per_sec: u64,
    /// The rate limiter's refill period in microseconds.
    #[arg(long = "rate_limiter_refill_period_us", default_value_t = 100_000)]
    pub rate_limiter_refill_period_us: u64,
    /// Charge compaction reads to the rate limiter instead of background writes (RocksDB's
    /// `RateLimiter::Mode::kReadsOnly`, as db_bench sets it).
    #[arg(long = "rate_limit_bg_reads", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub rate_limit_bg_reads: bool,
    /// Let CairnDB's compaction backlog controller set the rate limiter's rate, with
    /// --rate_limiter_bytes_per_sec as the ceiling (`RateLimiter::backlog_controlled`: it
    /// charges compaction reads and writes, not flushes; CairnDB only).
    #[arg(long = "rate_limiter_backlog_control", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub rate_limiter_backlog_control: bool,
    /// CPU priority of the compaction threads: normal, low (nice 19) or idle (SCHED_IDLE);
    /// RocksDB's `Env::LowerThreadPoolCPUPriority` for the LOW pool (the `rocksdb` crate offers
    /// low only). db_bench has no such flag.
    #[arg(long = "compaction_cpu_priority", default_value = "normal", value_parser = cpu_priority)]
    #[serde(serialize_with = "serialize_cpu_priority")]
    pub compaction_cpu_priority: CpuPriority,
    /// CPU priority of the flush thread(s), as --compaction_cpu_priority (RocksDB's HIGH pool).
    #[arg(long = "flush_cpu_priority", default_value = "normal", value_parser = cpu_priority)]
    #[serde(serialize_with = "serialize_cpu_priority")]
    pub flush_cpu_priority: CpuPriority,
    /// Every this many seconds, print the step's operations and rate so far to stderr
    /// (db_bench's per-interval progress lines, for all threads together); 0 disables.
    #[arg(long = "stats_interval_seconds", default_value_t = 0)]
    pub stats_interval_seconds: u64,
    /// Run a suite of steps instead of --benchmarks, ending with one table of the suite.
    /// `forestdb`: load; overwrite with sync, 1 and N threads; point queries then range
    /// queries, 1 and N threads, with a rate-limited writer; both without it; overwrite without
    /// sync, 1 and N threads. N is --threads when above 1, else 4; the writer's limit is
    /// --benchmark_write_rate_limit, else 1 MiB/s; steps after the load run for --duration
    /// seconds when set (recommended), else their counts. `bluestore`: Ceph BlueStore's
    /// key-value traffic (bluestore_fill of --num objects, then bluestore_write: synced
    /// batches, on --threads threads, --writes each or --duration seconds), once with
    /// write buffers of 32 MiB x 4 and once with 256 MiB x 4, each on a fresh database.
    /// `sysbench`: sysbench's OLTP microbenchmarks (--sysbench_tests) on the MyRocks-style row
    /// layer, --tables tables of --table_size rows. `tpcc`: sysbench-tpcc's TPC-C-like mix on
    /// the row layer, --tables sets of --warehouses warehouses, with a block-cache sweep
    /// (--cache_sizes) and the consistency conditions checked after each run.
    #[arg(long = "suite")]
    pub suite: Option<String>,
    /// Number of key/value pairs (the key space).
    #[arg(long = "num", default_value_t = 1_000_000)]
    pub num: u64,
    /// Number of read operations; -1 means `num`.
    #[arg(long = "reads", default_value_t = -1, allow_hyphen_values = true)]
    pub reads: i64,
    /// Number of write operations of the fills and overwrite; -1 means `num`.
    #[arg(long = "writes", default_value_t = -1, allow_hyphen_values = true)]
    pub writes: i64,
    /// Number of delete operations of deleterandom and deleteseq; -1 means `num`.
    #[arg(long = "deletes", default_value_t = -1, allow_hyphen_values = true)]
    pub deletes: i64,
    /// Keys per write batch (fills, overwrite, deletes) and per multi-get (multireadrandom).
    #[arg(long = "batch_size", default_value_t = DEFAULT_BATCH_SIZE)]
    pub batch_size: u64,
    /// multireadrandom through RocksDB's batched MultiGet instead of the vector MultiGet
    /// (RocksDB only; CairnDB has one multi-get).
    #[arg(long = "multiread_batched", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub multiread_batched: bool,
    /// Key size in bytes.
    #[arg(long = "key_size", default_value_t = DEFAULT_KEY_SIZE)]
    pub key_size: usize,
    /// Value size in bytes.
    #[arg(long = "value_size", default_value_t = DEFAULT_VALUE_SIZE)]
    pub value_size: usize,
    /// How compressible generated values are (fraction of the original size they compress to).
    #[arg(long = "compression_ratio", default_value_t = 0.5)]
    pub compression_ratio: f64,
    /// Block compression: none, lz4, zstd. Default none (db_bench's default, snappy, is in
    /// neither engine as built here).
    #[arg(long = "compression_type", default_value = "none")]
    pub compression_type: String,
    /// Data block size in bytes.
    #[arg(long = "block_size", default_value_t = 4096)]
    pub block_size: usize,
    /// Bloom filter bits per key; 0 or negative builds no filter. Default 10 (db_bench's default
    /// -1 means RocksDB's default, no filter).
    #[arg(
        long = "bloom_bits",
        default_value_t = 10.0,
        allow_hyphen_values = true
    )]
    pub bloom_bits: f64,
    /// Block cache capacity in bytes; 0 runs without a block cache. Default 8 MiB (db_bench's is
    /// 32 MiB).
    #[arg(long = "cache_size", default_value_t = 8 << 20)]
    pub cache_size: usize,
    /// Block cache type: lru_cache or hyper_clock_cache (CairnDB's clock cache). Default
    /// hyper_clock_cache, as db_bench's.
    #[arg(long = "cache_type", default_value = "hyper_clock_cache")]
    pub cache_type: String,
    /// Seed base of the random generators; 0 derives it from the clock, as db_bench does.
    #[arg(long = "seed", default_value_t = 0)]
    pub seed: u64,
    /// Print db_bench's histogram block ("Microseconds per write: ...") per operation type after
    /// each result line.
    #[arg(long = "histogram", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub histogram: bool,
    /// Number of next() calls after each seek in seekrandom.
    #[arg(long = "seek_nexts", default_value_t = 0)]
    pub seek_nexts: u64,
    /// Memtable size in bytes before it is switched and flushed.
    #[arg(long = "write_buffer_size", default_value_t = 64 << 20)]
    pub write_buffer_size: usize,
    /// Memtable arenas on transparent huge pages of this many bytes (RocksDB's
    /// `memtable_huge_page_size`; db_bench has only a broken boolean for it); 0 disables.
    #[arg(long = "memtable_huge_page_size", default_value_t = 0)]
    pub memtable_huge_page_size: usize,
    /// Memtables (mutable plus immutable) kept in memory.
    #[arg(long = "max_write_buffer_number", default_value_t = 2)]
    pub max_write_buffer_number: u32,
    /// Immutable memtables merged into one flush.
    #[arg(long = "min_write_buffer_number_to_merge", default_value_t = 1)]
    pub min_write_buffer_number_to_merge: u32,
    /// Background flushes and compactions at once.
    #[arg(long = "max_background_jobs", default_value_t = 2)]
    pub max_background_jobs: u32,
    /// Threads one compaction may be split into (max_subcompactions).
    #[arg(long = "subcompactions", default_value_t = 1)]
    pub subcompactions: u32,
    /// Target size of L1 compaction output files, bytes.
    #[arg(long = "target_file_size_base", default_value_t = 64 << 20)]
    pub target_file_size_base: u64,
    /// Factor between target file sizes of adjacent levels.
    #[arg(long = "target_file_size_multiplier", default_value_t = 1)]
    pub target_file_size_multiplier: u32,
    /// Target size of L1 (or the base level), bytes.
    #[arg(long = "max_bytes_for_level_base", default_value_t = 256 << 20)]
    pub max_bytes_for_level_base: u64,
    /// Size ratio between adjacent levels.
    #[arg(long = "max_bytes_for_level_multiplier", default_value_t = 10.0)]
    pub max_bytes_for_level_multiplier: f64,
    /// Size levels from the last level up. Default false, as db_bench (RocksDB's default is true).
    #[arg(long = "level_compaction_dynamic_level_bytes", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub level_compaction_dynamic_level_bytes: bool,
    /// Levels of the tree, L0 included.
    #[arg(long = "num_levels", default_value_t = 7)]
    pub num_levels: u32,
    /// L0 files that trigger an L0 compaction.
    #[arg(long = "level0_file_num_compaction_trigger", default_value_t = 4)]
    pub level0_file_num_compaction_trigger: u32,
    /// L0 files at which writes are slowed.
    #[arg(long = "level0_slowdown_writes_trigger", default_value_t = 20)]
    pub level0_slowdown_writes_trigger: u32,
    /// L0 files at which writes stop.
    #[arg(long = "level0_stop_writes_trigger", default_value_t = 36)]
    pub level0_stop_writes_trigger: u32,
    /// Pending compaction bytes at which writes are slowed.
    #[arg(long = "soft_pending_compaction_bytes_limit", default_value_t = 64 << 30)]
    pub soft_pending_compaction_bytes_limit: u64,
    /// Pending compaction bytes at which writes stop. Default 128 GiB, as db_bench (RocksDB's
    /// default is 256 GiB).
    #[arg(long = "hard_pending_compaction_bytes_limit", default_value_t = 128 << 30)]
    pub hard_pending_compaction_bytes_limit: u64,
    /// Bytes per second admitted while writes are slowed. Default 8 MiB, as db_bench.
    #[arg(long = "delayed_write_rate", default_value_t = 8 << 20)]
    pub delayed_write_rate: u64,
    /// Most files kept open (max_open_files); -1 for no limit.
    #[arg(long = "open_files", default_value_t = -1, allow_hyphen_values = true)]
    pub open_files: i32,
    /// Write-behind of table files every this many bytes; 0 disables. Default: each engine's
    /// own (RocksDB and db_bench 0, CairnDB 1 MiB).
    #[arg(long = "bytes_per_sync")]
    pub bytes_per_sync: Option<u64>,
    /// Obsolete WAL files kept for reuse (recycle_log_file_num); 0 deletes them, both
    /// engines' default.
    #[arg(long = "recycle_log_file_num", default_value_t = 0)]
    pub recycle_log_file_num: usize,
    /// Pipelined WAL and memtable writes (RocksDB only). Default true, as db_bench (RocksDB's
    /// default is false).
    #[arg(long = "enable_pipelined_write", default_value = "true", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub enable_pipelined_write: bool,
    /// Sync the WAL on every write.
    #[arg(long = "sync", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub sync: bool,
    /// Write without the WAL.
    #[arg(long = "disable_wal", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub disable_wal: bool,
    /// Keep the database in --db: it is not destroyed at the start, and the fill benchmarks
    /// (which need a fresh database) are skipped, as in db_bench.
    #[arg(long = "use_existing_db", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub use_existing_db: bool,
    /// Where the database goes; a temporary directory (removed at the end) when absent.
    #[arg(long = "db")]
    pub db: Option<PathBuf>,
    /// --suite sysbench: sysbench's `--tables`, the number of sbtest tables; --suite tpcc: the
    /// number of table sets (sysbench-tpcc's `--tables`).
    #[arg(long = "tables", default_value_t = 1)]
    pub tables: usize,
    /// --suite sysbench: sysbench's `--table_size`, rows per table.
    #[arg(long = "table_size", default_value_t = 10_000)]
    pub table_size: u64,
    /// --suite sysbench and tpcc: sysbench's `--time`, seconds each test (or run of the mix)
    /// runs.
    #[arg(long = "time", default_value_t = 10)]
    pub time: u64,
    /// --suite sysbench: sysbench's `--range_size`, ids per range query.
    #[arg(long = "range_size", default_value_t = 100)]
    pub range_size: u64,
    /// --suite sysbench: sysbench's `--random_points`, values in random_points' IN list
    /// (sysbench's default is 10; MyRocks studies run 1,000).
    #[arg(long = "random_points", default_value_t = 1000)]
    pub random_points: usize,
    /// --suite sysbench: the tests to run, in order (default: all, reads first).
    #[arg(
        long = "sysbench_tests",
        default_value = "point_select,random_points,simple_ranges,sum_ranges,order_ranges,\
distinct_ranges,read_only,scan,update_index,update_non_index,read_write,write_only,insert,delete"
    )]
    pub sysbench_tests: String,
    /// --suite tpcc: warehouses per table set (sysbench-tpcc's `--scale`).
    #[arg(long = "warehouses", default_value_t = 10)]
    pub warehouses: u32,
    /// --suite tpcc: after the main run, run the mix again with each of these block-cache
    /// sizes, as percentages of the loaded data's size (e.g. 5%,10%,25%,50%,100%), each on a
    /// fresh load of the same data.
    #[arg(long = "cache_sizes", default_value = "")]
    pub cache_sizes: String,
    /// --suite sysbench and tpcc: MySQL's `transaction_isolation` of the row layer's
    /// transactions: READ-COMMITTED or REPEATABLE-READ (a snapshot at begin).
    #[arg(long = "transaction_isolation", default_value = "READ-COMMITTED")]
    pub transaction_isolation: String,
    /// Open a TransactionDB (pessimistic transactions) for the whole run: randomtransaction runs
    /// its transactions on it, and the other benchmarks' writes lock their keys, as RocksDB's
    /// TransactionDB::Put and Write do. With --engine rocksdb, compact, waitforcompaction and
    /// --multiread_batched are refused (the rocksdb crate's TransactionDB lacks them).
    #[arg(long = "transaction_db", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub transaction_db: bool,
    /// Open an OptimisticTransactionDB for the whole run: randomtransaction runs optimistic
    /// transactions on it; the other benchmarks write to its base database. Cannot be combined
    /// with --transaction_db.
    #[arg(long = "optimistic_transaction_db", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub optimistic_transaction_db: bool,
    /// Sets of keys in randomtransaction: each transaction increments one key of every set
    /// (1 to 9999).
    #[arg(long = "transaction_sets", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=randomtxn::MAX_SETS))]
    pub transaction_sets: u64,
    /// With --transaction_db, every transaction takes a snapshot when it begins (SetSnapshot);
    /// no effect on the other databases, as in db_bench.
    #[arg(long = "transaction_set_snapshot", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub transaction_set_snapshot: bool,
    /// With --transaction_db, milliseconds a transaction waits for a lock before it is aborted
    /// (its lock_timeout).
    #[arg(long = "transaction_lock_timeout", default_value_t = 100)]
    pub transaction_lock_timeout: u64,
    /// db_bench's flag of microseconds to sleep between a read and a write of randomtransaction.
    /// db_bench 11.9 defines it but never uses it; only 0 is accepted here.
    #[arg(
        long = "transaction_sleep",
        default_value_t = 0,
        allow_hyphen_values = true
    )]
    pub transaction_sleep: i32,
    /// CairnDB's flag (db_bench has none): randomtransaction's transactions only read, one key
    /// of every set each, all with `get` or all with `get_for_update`, and commit without a
    /// prepare; what a lock adds to a read (SELECT against SELECT ... FOR UPDATE). `none`:
    /// db_bench's transactions. Needs a transaction database.
    #[arg(long = "transaction_read_only", value_enum, default_value_t = TxnReadOnly::None)]
    pub transaction_read_only: TxnReadOnly,
}

/// Parses a boolean as gflags does: true/false, 1/0, yes/no, t/f, y/n.
fn db_bench_bool(s: &str) -> std::result::Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "1" | "true" | "t" | "yes" | "y" => Ok(true),
        "0" | "false" | "f" | "no" | "n" => Ok(false),
        other => Err(format!(
            "{other:?} is not a boolean (use true/false or 1/0)"
        )),
    }
}

/// `normal`, `low` or `idle`: RocksDB's spelling of the value (`CpuPriority`'s `RocksDbEnum`
/// names) without its `k`, in lower case; the `k` spellings are accepted too.
fn cpu_priority(s: &str) -> std::result::Result<CpuPriority, String> {
    CpuPriority::NAMES
        .iter()
        .find(|(p, name)| *name == s || cpu_priority_flag(*p) == s)
        .map(|(p, _)| *p)
        .ok_or_else(|| format!("{s:?} is not a CPU priority (normal, low or idle)"))
}

/// The flag's spelling of `p` (`kLow` is `low`).
fn cpu_priority_flag(p: CpuPriority) -> String {
    p.rocksdb_name()[1..].to_ascii_lowercase()
}

/// A CPU priority in the report as its flag value.
fn serialize_cpu_priority<S: serde::Serializer>(
    p: &CpuPriority,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&cpu_priority_flag(*p))
}

/// A negative count flag means `num`, as in db_bench.
fn count_or_num(flag: i64, num: u64) -> u64 {
    u64::try_from(flag).unwrap_or(num)
}

impl BenchArgs {
    /// db_bench's `reads_`.
    fn reads(&self) -> u64 {
        count_or_num(self.reads, self.num)
    }

    /// db_bench's `writes_`.
    fn writes(&self) -> u64 {
        count_or_num(self.writes, self.num)
    }

    /// db_bench's `deletes_`.
    fn deletes(&self) -> u64 {
        count_or_num(self.deletes, self.num)
    }

    /// The database the run opens (`--transaction_db`, `--optimistic_transaction_db`; db_bench
    /// prefers the optimistic one when both are given, which [`BenchArgs::validate`] refuses).
    fn transaction_kind(&self) -> TransactionDbKind {
        if self.optimistic_transaction_db {
            TransactionDbKind::Optimistic
        } else if self.transaction_db {
            TransactionDbKind::Pessimistic
        } else {
            TransactionDbKind::None
        }
    }

    /// randomtransaction's `TransactionOptions` (pessimistic transactions).
    fn txn_options(&self) -> TxnOptions {
        TxnOptions {
            set_snapshot: self.transaction_set_snapshot,
            lock_timeout_ms: i64::try_from(self.transaction_lock_timeout).unwrap_or(i64::MAX),
        }
    }

    /// Checks the flags that do not depend on the engine; warns on stderr about transaction
    /// flags that have no effect with the database chosen.
    fn validate(&self) -> Result<()> {
        let usage = |m: &str| Err(BenchError::Usage(m.to_string()));
        if self.transaction_db && self.optimistic_transaction_db {
            return usage(
                "--transaction_db and --optimistic_transaction_db cannot be combined: choose one \
                 kind of transaction database",
            );
        }
        if self.transaction_sleep != 0 {
            return usage(
                "--transaction_sleep: db_bench 11.9 defines the flag but never uses it, so it has \
                 no meaning to reproduce; only 0 is accepted",
            );
        }
        if self.transaction_read_only != TxnReadOnly::None
            && self.transaction_kind() == TransactionDbKind::None
        {
            return usage(
                "--transaction_read_only needs --transaction_db or --optimistic_transaction_db",
            );
        }
        if !self.transaction_db {
            if self.transaction_set_snapshot {
                eprintln!(
                    "cairn bench: warning: --transaction_set_snapshot applies to --transaction_db \
                     only; it has no effect here (as in db_bench)"
                );
            }
            if self.transaction_lock_timeout != 100 {
                eprintln!(
                    "cairn bench: warning: --transaction_lock_timeout applies to \
                     --transaction_db only; it has no effect here (as in db_bench)"
                );
            }
        }
        if self.key_size == 0 || self.value_size > (1 << 20) {
            return usage("--key_size must be at least 1 and --value_size at most 1 MiB");
        }
        if self.num == 0 {
            return usage("--num must be at least 1");
        }
        if let Some(name) = &self.suite {
            if !suite::SUITES.contains(&name.as_str()) {
                return Err(suite::unknown(name));
            }
            if self.use_existing_db {
                return usage(
                    "--suite runs on fresh databases (its loads are fills): --use_existing_db \
                     cannot be combined with it",
                );
            }
            if name == "sysbench" || name == "tpcc" {
                sysbench::check_settings_carried(self, name)?;
            }
        }
        let bluestore = self.suite.as_deref() == Some("bluestore")
            || self
                .benchmarks
                .split(',')
                .any(|b| b.starts_with("bluestore_"));
        let refused = bluestore::refused_flags(self);
        if bluestore && !refused.is_empty() {
            return Err(BenchError::Usage(format!(
                "{}: the bluestore benchmarks write keys and values of their own sizes; these \
                 flags do not apply to them",
                refused.join(", ")
            )));
        }
        if self.batch_size == 0 {
            return usage("--batch_size must be at least 1");
        }
        if self.rate_limiter_backlog_control && self.rate_limiter_bytes_per_sec == 0 {
            return usage(
                "--rate_limiter_backlog_control needs --rate_limiter_bytes_per_sec (the ceiling)",
            );
        }
        if self.rate_limiter_backlog_control && self.rate_limit_bg_reads {
            return usage(
                "--rate_limit_bg_reads: a backlog-controlled limiter charges compaction reads \
                 and writes",
            );
        }
        if self.sync && self.disable_wal {
            return usage("--sync and --disable_wal cannot be combined: there is no WAL to sync");
        }
        Ok(())
    }

    /// The options both engines are opened with.
    fn engine_options(&self) -> Result<EngineOptions> {
        Ok(EngineOptions {
            write_buffer_size: self.write_buffer_size,
            memtable_huge_page_size: self.memtable_huge_page_size,
            max_write_buffer_number: self.max_write_buffer_number,
            min_write_buffer_number_to_merge: self.min_write_buffer_number_to_merge,
            max_background_jobs: self.max_background_jobs,
            max_subcompactions: self.subcompactions,
            target_file_size_base: self.target_file_size_base,
            target_file_size_multiplier: self.target_file_size_multiplier,
            max_bytes_for_level_base: self.max_bytes_for_level_base,
            max_bytes_for_level_multiplier: self.max_bytes_for_level_multiplier,
            level_compaction_dynamic_level_bytes: self.level_compaction_dynamic_level_bytes,
            num_levels: self.num_levels,
            level0_file_num_compaction_trigger: self.level0_file_num_compaction_trigger,
            level0_slowdown_writes_trigger: self.level0_slowdown_writes_trigger,
            level0_stop_writes_trigger: self.level0_stop_writes_trigger,
            soft_pending_compaction_bytes_limit: self.soft_pending_compaction_bytes_limit,
            hard_pending_compaction_bytes_limit: self.hard_pending_compaction_bytes_limit,
            delayed_write_rate: self.delayed_write_rate,
            max_open_files: self.open_files,
            bytes_per_sync: self.bytes_per_sync,
            recycle_log_file_num: self.recycle_log_file_num,
            compression: Compression::parse(&self.compression_type)?,
            block_size: self.block_size,
            bloom_bits_per_key: (self.bloom_bits > 0.0).then_some(self.bloom_bits),
            block_cache: match self.cache_size {
                0 => None,
                capacity => Some((CacheType::parse(&self.cache_type)?, capacity)),
            },
            enable_pipelined_write: self.enable_pipelined_write,
            multiread_batched: self.multiread_batched,
            compaction_style: CompactionStyle::from_db_bench(self.compaction_style)?,
            statistics: self.statistics,
            options_file: self.options_file.clone(),
            options_string: self.options.clone(),
            ignore_unknown_options: self.ignore_unknown_options,
            rate_limiter: (self.rate_limiter_bytes_per_sec > 0).then_some(RateLimit {
                bytes_per_sec: self.rate_limiter_bytes_per_sec,
                refill_period_us: self.rate_limiter_refill_period_us,
                bg_reads: self.rate_limit_bg_reads,
                backlog_control: self.rate_limiter_backlog_control,
            }),
            transaction_db: self.transaction_kind(),
            compaction_cpu_priority: self.compaction_cpu_priority,
            flush_cpu_priority: self.flush_cpu_priority,
        })
    }
}

/// Runs the benchmarks named by `--benchmarks` on the engine named by `--engine`.
///
/// # Errors
/// [`BenchError::Usage`] for flags it cannot run with (including `--engine rocksdb` in a build
/// without the `rocksdb` feature); the engine's error when an operation fails.
pub fn run(args: &BenchArgs) -> Result<ExitCode> {
    args.validate()?;
    let options = args.engine_options()?;
    check_outputs(args)?;
    let report = match (args.engine, &args.suite) {
        (_, Some(name)) if name == "sysbench" => sysbench::run(args)?,
        (_, Some(name)) if name == "tpcc" => tpcc::run(args)?,
        (EngineKind::Cairndb, Some(name)) => {
            suite::run::<cairn_engine::CairnEngine>(name, args, &options)?
        }
        (EngineKind::Cairndb, None) => workloads::run::<cairn_engine::CairnEngine>(args, &options)?,
        #[cfg(feature = "rocksdb")]
        (EngineKind::Rocksdb, Some(name)) => {
            suite::run::<rocksdb_engine::RocksDbEngine>(name, args, &options)?
        }
        #[cfg(feature = "rocksdb")]
        (EngineKind::Rocksdb, None) => {
            workloads::run::<rocksdb_engine::RocksDbEngine>(args, &options)?
        }
        #[cfg(not(feature = "rocksdb"))]
        (EngineKind::Rocksdb, _) => {
            return Err(BenchError::Usage(
                "--engine rocksdb: this cairn was built without RocksDB; rebuild with \
                 `cargo build --release -p cairn-cli --features rocksdb`"
                    .to_string(),
            ))
        }
    };
    write_reports(args, &report)?;
    if report.steps.iter().any(|s| s.verified == Some(false)) && randomtxn::check_cannot_fail(args)
    {
        // db_bench prints FAILED!! and exits 0. Where a correct engine always passes the check,
        // a failure is an engine error and fails the run.
        eprintln!(
            "cairn bench: RandomTransactionVerify FAILED: the sums of the sets differ, which \
             transactions that work cannot cause here"
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The JSON document of `--report_json`.
fn report_json(args: &BenchArgs, report: &workloads::RunReport) -> serde_json::Value {
    serde_json::json!({
        "engine": report.engine,
        "flags": args,
        "argv": std::env::args().collect::<Vec<_>>(),
        "final_db_bytes": report.final_db_bytes,
        "steps": report.steps,
    })
}

/// Checks before anything runs that the reports can be written: `--report_json`'s directory
/// exists, and `--report_dir` exists or can be created (it is created now). Otherwise a long
/// run would fail only at its end.
fn check_outputs(args: &BenchArgs) -> Result<()> {
    if let Some(path) = &args.report_json {
        let parent = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !parent.is_dir() {
            return Err(BenchError::Usage(format!(
                "--report_json {}: directory {} does not exist",
                path.display(),
                parent.display()
            )));
        }
        if path.is_dir() {
            return Err(BenchError::Usage(format!(
                "--report_json {} is a directory; give a file name",
                path.display()
            )));
        }
    }
    if let Some(dir) = &args.report_dir {
        plots::create_report_dir(dir)?;
    }
    Ok(())
}

/// Writes `--report_json` and `--report_dir`.
fn write_reports(args: &BenchArgs, report: &workloads::RunReport) -> Result<()> {
    if let Some(path) = &args.report_json {
        let text = serde_json::to_string_pretty(&report_json(args, report))
            .map_err(|e| BenchError::Usage(format!("cannot encode the JSON report: {e}")))?;
        std::fs::write(path, text)
            .map_err(|e| cairndb::Error::io("write --report_json", path, e))?;
    }
    if let Some(dir) = &args.report_dir {
        plots::write_plots(dir, report_json(args, report))?;
    }
    Ok(())
}
