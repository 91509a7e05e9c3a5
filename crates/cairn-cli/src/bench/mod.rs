//! `cairn bench`: a db_bench-compatible benchmark.
//!
//! It takes db_bench's flag names (`--benchmarks=fillseq,readrandom --num=1000000 ...`), generates
//! keys and values exactly as db_bench does (see [`generator`]) and prints db_bench's result lines,
//! followed by latency percentiles that db_bench leaves out.
//!
//! The engine under test is the database ([`db_engine`]). Benchmarks not built yet (multi-threaded
//! and mixed workloads, multireadrandom, ...) are refused with a clear error rather than
//! approximated.

mod db_engine;
mod generator;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;

use cairndb::types::CompressionType;
use clap::Args;

/// db_bench's flags, under db_bench's names and with its defaults where they apply.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Comma-separated benchmarks, run in order on one database: fillseq, fillrandom, overwrite,
    /// readrandom, readseq, readreverse, seekrandom, flush. Fills start from a fresh database.
    #[arg(
        long = "benchmarks",
        default_value = "fillseq,fillrandom,readrandom,readseq,seekrandom"
    )]
    pub benchmarks: String,
    /// Number of key/value pairs.
    #[arg(long = "num", default_value_t = 1_000_000)]
    pub num: u64,
    /// Number of read operations; -1 means `num`.
    #[arg(long = "reads", default_value_t = -1, allow_hyphen_values = true)]
    pub reads: i64,
    /// Key size in bytes.
    #[arg(long = "key_size", default_value_t = 16)]
    pub key_size: usize,
    /// Value size in bytes.
    #[arg(long = "value_size", default_value_t = 100)]
    pub value_size: usize,
    /// How compressible generated values are (fraction of the original size they compress to).
    #[arg(long = "compression_ratio", default_value_t = 0.5)]
    pub compression_ratio: f64,
    /// Block compression: none, lz4, zstd (RocksDB spellings accepted).
    #[arg(long = "compression_type", default_value = "none")]
    pub compression_type: String,
    /// Data block size in bytes.
    #[arg(long = "block_size", default_value_t = 4096)]
    pub block_size: usize,
    /// Bloom filter bits per key; 0 disables the filter.
    #[arg(long = "bloom_bits", default_value_t = 10.0)]
    pub bloom_bits: f64,
    /// Block cache capacity in bytes.
    #[arg(long = "cache_size", default_value_t = 8 << 20)]
    pub cache_size: usize,
    /// Seed base of the random generators; 0 derives it from the clock, as db_bench does.
    #[arg(long = "seed", default_value_t = 0)]
    pub seed: u64,
    /// Print latency histograms.
    #[arg(long = "histogram", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub histogram: bool,
    /// Number of next() calls after each seek in seekrandom.
    #[arg(long = "seek_nexts", default_value_t = 0)]
    pub seek_nexts: u64,
    /// Memtable size in bytes before it is switched and flushed.
    #[arg(long = "write_buffer_size", default_value_t = 64 << 20)]
    pub write_buffer_size: usize,
    /// Sync the WAL on every write.
    #[arg(long = "sync", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub sync: bool,
    /// Write without the WAL.
    #[arg(long = "disable_wal", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub disable_wal: bool,
    /// Keep the database in --db instead of starting the fills from a fresh one.
    #[arg(long = "use_existing_db", default_value = "false", value_parser = db_bench_bool, num_args = 0..=1, default_missing_value = "true")]
    pub use_existing_db: bool,
    /// Where the database goes; a temporary directory (removed at the end) when absent.
    #[arg(long = "db")]
    pub db: Option<PathBuf>,
}

/// Parses a boolean as gflags does: true/false, 1/0, yes/no, t/f, y/n.
fn db_bench_bool(s: &str) -> Result<bool, String> {
    match s.to_ascii_lowercase().as_str() {
        "1" | "true" | "t" | "yes" | "y" => Ok(true),
        "0" | "false" | "f" | "no" | "n" => Ok(false),
        other => Err(format!(
            "{other:?} is not a boolean (use true/false or 1/0)"
        )),
    }
}

impl BenchArgs {
    fn reads(&self) -> u64 {
        u64::try_from(self.reads).unwrap_or(self.num)
    }

    fn compression(&self) -> cairndb::Result<CompressionType> {
        CompressionType::parse(&self.compression_type)
    }
}

/// Runs the benchmarks named by `--benchmarks`.
pub fn run(args: &BenchArgs) -> cairndb::Result<ExitCode> {
    if args.key_size == 0 || args.value_size > (1 << 20) {
        return Err(cairndb::Error::InvalidArgument(
            "--key_size must be at least 1 and --value_size at most 1 MiB".into(),
        ));
    }
    db_engine::run(args)?;
    Ok(ExitCode::SUCCESS)
}
