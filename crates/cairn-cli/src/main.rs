//! `cairn`: benchmark, inspect and administer CairnDB databases.
//!
//! Subcommands:
//! - `cairn bench`: a db_bench-compatible benchmark (db_bench's flag names and result lines), on
//!   CairnDB or, in a build with the `rocksdb` feature, on RocksDB.
//! - `cairn report RUN.json... --out DIR`: several benchmark runs side by side, as charts and a
//!   ratio table.
//! - `cairn get|put|delete|scan --db DIR ...`: read and write a database from a terminal.
//! - `cairn sst dump FILE` / `cairn sst verify FILE`: inspect and check one SST file.
//! - `cairn compact --db DIR` / `cairn stats --db DIR`: compact a database, show its levels.
//! - `cairn lsm`, `cairn options`, `cairn checkpoint`, `cairn manifest dump`, `cairn wal dump`:
//!   inspect a database's files and options, copy it while it runs.
//! - `cairn verify --db DIR`: check every block of every live file; `cairn stress`: a db_stress-like
//!   workload with an expected-state file that survives kill -9.
//! - `cairn ldb ...`, `cairn sst_dump ...`: RocksDB's ldb and sst_dump command lines and output
//!   for the common commands, for operators' scripts.

mod admin;
mod advise;
mod bench;
mod dbopts;
mod kv;
mod ldb;
mod logdump;
mod report;
mod sst;
mod sst_dump;
mod stress;
mod verify;

use std::process::ExitCode;

#[cfg(all(feature = "mimalloc", feature = "jemalloc"))]
compile_error!("choose one global allocator: --features mimalloc or --features jemalloc");

/// mimalloc as the binary's allocator (`--features mimalloc`).
#[cfg(all(feature = "mimalloc", not(feature = "jemalloc")))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// jemalloc as the binary's allocator (`--features jemalloc`).
#[cfg(all(feature = "jemalloc", not(feature = "mimalloc")))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "cairn",
    version,
    about = "Benchmark, inspect and administer CairnDB databases"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs db_bench-style benchmarks (db_bench's flag names, result lines and defaults) on
    /// CairnDB or RocksDB.
    ///
    /// Example: cairn bench --benchmarks=fillseq,readrandom --num=1000000 --engine=cairndb
    Bench(Box<bench::BenchArgs>),
    /// Merges the JSON reports of several `cairn bench --report_json` runs into one HTML page
    /// with charts (throughput over time, per-second box plots, latency percentiles, CPU,
    /// write-amp, size) and the table of ratios between engines.
    ///
    /// Example: cairn report cairn-1.json rocks-1.json cairn-2.json rocks-2.json --out report/
    Report(report::ReportArgs),
    #[command(flatten)]
    Kv(kv::KvCommand),
    /// Inspects or verifies an SST file.
    #[command(subcommand)]
    Sst(sst::SstCommand),
    /// Compacts every level of a database (or of one column family) down to the last level.
    ///
    /// Example: cairn compact --db /data/db
    Compact(admin::CompactArgs),
    /// Prints RocksDB's "Compaction Stats" table and DB stats of every column family, then the
    /// score and target size per level; or one property with --property.
    ///
    /// Example: cairn stats --db /data/db --property rocksdb.estimate-num-keys
    Stats(admin::StatsArgs),
    /// Tuning advice from the LSM math: the levels and growth factor that minimise write
    /// amplification for the database's size, and Monkey's filter bits per level, each with
    /// its prediction and the option string (docs/design/lsm_math.md).
    ///
    /// Example: cairn advise --db /data/db   or   cairn advise --db-size 68719476736
    Advise(advise::AdviseArgs),
    /// Prints every table of every level with its size, sequence range and key range.
    ///
    /// Example: cairn lsm --db /data/db
    Lsm(admin::LsmArgs),
    /// Prints the options the database was last opened with (its newest OPTIONS file).
    ///
    /// Example: cairn options --db /data/db
    Options(admin::OptionsVerbArgs),
    /// Writes a checkpoint: a copy that opens as a database with the same data (tables
    /// hard-linked where possible).
    ///
    /// Example: cairn checkpoint --db /data/db /backup/db-2026-01-01
    Checkpoint(admin::CheckpointArgs),
    /// Dumps a MANIFEST's version edits.
    #[command(subcommand)]
    Manifest(logdump::ManifestCommand),
    /// Dumps a WAL file's write batches.
    #[command(subcommand)]
    Wal(logdump::WalCommand),
    /// Checks every block of every live file (MANIFEST, SSTs, WALs) against its checksum; exits
    /// non-zero naming the file and offset of the first corruption.
    ///
    /// Example: cairn verify --db /data/db
    Verify(verify::VerifyArgs),
    /// Runs a db_stress-like workload that keeps an expected state outside the database, and
    /// verifies every key against it at start (after a kill -9) and at the end.
    ///
    /// Example: cairn stress --db /tmp/s --threads 4 --ops 100000
    Stress(stress::StressArgs),
    /// RocksDB's ldb command lines (get, put, delete, deleterange, batchput, scan, dump,
    /// list_column_families, compact, checkpoint, manifest_dump, dump_wal) with ldb's output.
    ///
    /// Example: cairn ldb --db=/data/db --hex scan --from=0x61 --max_keys=10
    Ldb {
        /// ldb's options (`--name=value`) and command, as ldb takes them.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// RocksDB's sst_dump command lines (check, scan, verify, raw; --show_properties) with
    /// sst_dump's output.
    ///
    /// Example: cairn sst_dump --file=/data/db/000012.sst --command=scan --output_hex
    #[command(name = "sst_dump")]
    SstDump {
        /// sst_dump's options (`--name=value`), as sst_dump takes them.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result: Result<ExitCode, Box<dyn std::error::Error>> = match cli.command {
        Command::Bench(args) => bench::run(&args).map_err(Into::into),
        Command::Report(args) => report::run(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Kv(cmd) => Ok(kv::run(&cmd)),
        Command::Ldb { args } => Ok(ldb::run(&args)),
        Command::SstDump { args } => Ok(sst_dump::run(&args)),
        Command::Sst(cmd) => sst::run(&cmd).map_err(Into::into),
        Command::Compact(args) => admin::compact(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Advise(args) => advise::advise(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Stats(args) => admin::stats(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Lsm(args) => admin::lsm(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Options(args) => admin::options(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Checkpoint(args) => admin::checkpoint(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Manifest(cmd) => logdump::manifest(&cmd)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Wal(cmd) => logdump::wal(&cmd)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Verify(args) => verify::run(&args)
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
        Command::Stress(args) => stress::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cairn: {e}");
            ExitCode::FAILURE
        }
    }
}
