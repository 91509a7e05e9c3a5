//! `--suite NAME`: fixed sequences of steps on one engine, each step printed as `cairn bench`
//! prints a benchmark, ending with a table of the whole suite.
//!
//! - [`forestdb`]: the ForestDB benchmark sequence as run on db_bench (load, synced and unsynced
//!   overwrites, point and range queries with and without a writer; 1 and N threads).
//! - [`bluestore`]: Ceph BlueStore's key-value traffic under small random object writes, with
//!   32 MiB and 256 MiB write buffers.
//! - `sysbench`: sysbench's OLTP microbenchmarks on the row layer (`super::sysbench`).
//! - `tpcc`: sysbench-tpcc's TPC-C-like workload on the row layer (`super::tpcc`).

mod bluestore;
mod forestdb;

use std::path::PathBuf;

use super::engine::{BenchEngine, BenchError, EngineOptions, Result};
use super::workloads::RunReport;
use super::BenchArgs;

/// The suites `--suite` takes.
pub const SUITES: &[&str] = &["forestdb", "bluestore", "sysbench", "tpcc"];

/// Runs suite `name` on engine `E`.
///
/// # Errors
/// [`BenchError::Usage`] for an unknown suite; as [`super::workloads::run`].
pub fn run<E: BenchEngine>(
    name: &str,
    args: &BenchArgs,
    options: &EngineOptions,
) -> Result<RunReport> {
    match name {
        "forestdb" => forestdb::run::<E>(args, options),
        "bluestore" => bluestore::run::<E>(args),
        // These run on the row layer, not on a `BenchEngine`; `bench::run` sends them there.
        "sysbench" => super::sysbench::run(args),
        "tpcc" => super::tpcc::run(args),
        other => Err(unknown(other)),
    }
}

/// The error for a suite that does not exist.
pub fn unknown(name: &str) -> BenchError {
    BenchError::Usage(format!(
        "unknown --suite {name:?} (cairn bench has: {})",
        SUITES.join(", ")
    ))
}

/// The suite's database directory (`--db`, else a directory in the system's temporary
/// directory) and whether it is temporary (removed at the end).
pub(super) fn database_dir(args: &BenchArgs) -> (PathBuf, bool) {
    match &args.db {
        Some(d) => (d.clone(), false),
        None => (
            std::env::temp_dir().join(format!("cairn-bench-suite-{}", std::process::id())),
            true,
        ),
    }
}

/// `--seed`, or the current time in microseconds when it is 0 (printed, as db_bench does).
pub(super) fn seed_base(args: &BenchArgs) -> u64 {
    if args.seed != 0 {
        return args.seed;
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_micros() as u64);
    println!("Set seed to {now} because --seed was 0");
    now
}

#[cfg(test)]
pub(crate) mod tests {
    use clap::Parser;

    use crate::bench::BenchArgs;

    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        bench: BenchArgs,
    }

    /// `cairn bench`'s flags parsed from `argv` (its first element is the program name).
    pub(crate) fn flags(argv: &[&str]) -> BenchArgs {
        Flags::try_parse_from(argv).expect("flags").bench
    }

    #[test]
    fn suites_refuse_flags_they_cannot_honour() {
        let refused = |argv: &[&str]| match flags(argv).validate() {
            Err(e) => e.to_string(),
            Ok(()) => "accepted".to_string(),
        };
        assert!(refused(&["bench", "--suite=nope"]).contains("unknown --suite"));
        assert!(refused(&["bench", "--suite=forestdb", "--use_existing_db"])
            .contains("--use_existing_db cannot be combined"));
        let sizes = refused(&[
            "bench",
            "--suite=bluestore",
            "--key_size=20",
            "--batch_size=4",
        ]);
        assert!(sizes.starts_with("--key_size, --batch_size:"), "{sizes}");
        let plain = refused(&["bench", "--benchmarks=bluestore_fill", "--value_size=64"]);
        assert!(plain.starts_with("--value_size:"), "{plain}");
        assert_eq!(
            refused(&["bench", "--suite=bluestore", "--threads=4"]),
            "accepted"
        );
        // The flags stay free for the other benchmarks.
        assert_eq!(refused(&["bench", "--key_size=20"]), "accepted");
    }
}
