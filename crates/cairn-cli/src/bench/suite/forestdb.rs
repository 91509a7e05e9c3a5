//! `--suite forestdb`: the sequence of the ForestDB benchmark as Mark Callaghan ran it on
//! db_bench, on one database, ending with one table of ops/sec and database size per step.
//!
//! Steps, with N = `--threads` when above 1, else 4:
//! 1. load: fillseq (`--num` keys in key order);
//! 2. overwrite with sync, 1 then N threads;
//! 3. point queries (readwhilewriting: 1 then N readers plus one background writer limited to
//!    `--benchmark_write_rate_limit` bytes/s, else 1 MiB/s);
//! 4. range queries likewise (seekrandomwhilewriting, `--seek_nexts` entries per seek, 10 when 0);
//! 5. point then range queries without the writer (readrandom, seekrandom), 1 then N threads;
//! 6. overwrite without sync, 1 then N threads.
//!
//! Every step after the load runs for `--duration` seconds when set (the way the suite is
//! meant to be run), else for its count (`--writes`, `--reads`). The other flags apply to every
//! step; `--sync`, `--threads`, `--benchmark_write_rate_limit`, `--seek_nexts` and
//! `--benchmarks` are set by the suite.

use super::{database_dir, seed_base};
use crate::bench::engine::{BenchEngine, EngineOptions, Result};
use crate::bench::workloads::{Run, RunReport};
use crate::bench::BenchArgs;

/// The suite's default thread count and writer rate when the flags leave them at 1 and 0.
const DEFAULT_THREADS: u32 = 4;
const DEFAULT_WRITER_RATE: u64 = 1 << 20;

/// One step: its label in the table, the benchmark, threads, and whether writes sync.
struct Step {
    label: String,
    benchmark: &'static str,
    threads: u32,
    sync: bool,
}

fn steps(n: u32) -> Vec<Step> {
    let mut v = vec![Step {
        label: "load (fillseq)".to_string(),
        benchmark: "fillseq",
        threads: 1,
        sync: false,
    }];
    let pairs: [(&str, &'static str, bool); 6] = [
        ("overwrite, sync", "overwrite", true),
        ("point queries + writer", "readwhilewriting", false),
        ("range queries + writer", "seekrandomwhilewriting", false),
        ("point queries", "readrandom", false),
        ("range queries", "seekrandom", false),
        ("overwrite, no sync", "overwrite", false),
    ];
    for (label, benchmark, sync) in pairs {
        for threads in [1, n] {
            v.push(Step {
                label: format!(
                    "{label}, {threads} thread{}",
                    if threads == 1 { "" } else { "s" }
                ),
                benchmark,
                threads,
                sync,
            });
        }
    }
    v
}

/// The flags of each step of the suite, derived from the user's.
fn step_args(args: &BenchArgs) -> Vec<(Step, BenchArgs)> {
    let n = if args.threads > 1 {
        args.threads
    } else {
        DEFAULT_THREADS
    };
    steps(n)
        .into_iter()
        .map(|step| {
            let mut a = args.clone();
            a.threads = step.threads;
            a.sync = step.sync;
            a.benchmarks = step.benchmark.to_string();
            if a.benchmark_write_rate_limit == 0 {
                a.benchmark_write_rate_limit = DEFAULT_WRITER_RATE;
            }
            // Only the background writer is limited; the overwrites run at full speed.
            if step.benchmark == "overwrite" {
                a.benchmark_write_rate_limit = 0;
            }
            if a.seek_nexts == 0 {
                a.seek_nexts = 10;
            }
            if step.benchmark == "fillseq" {
                a.duration = 0;
            }
            (step, a)
        })
        .collect()
}

/// The closing table: one row per step.
fn table(rows: &[(String, f64, u64)]) -> String {
    let mut out = format!(
        "{:<36} {:>14} {:>14}\n{}\n",
        "step",
        "ops/sec",
        "db size (MB)",
        "-".repeat(66)
    );
    for (label, ops, bytes) in rows {
        out.push_str(&format!(
            "{label:<36} {ops:>14.0} {:>14.1}\n",
            *bytes as f64 / 1_048_576.0
        ));
    }
    out.pop();
    out
}

/// Runs the forestdb suite on engine `E`, printing each step as `cairn bench` does and the
/// table at the end.
///
/// # Errors
/// As [`crate::bench::workloads::run`].
pub fn run<E: BenchEngine>(args: &BenchArgs, options: &EngineOptions) -> Result<RunReport> {
    let plan = step_args(args);
    let (dir, temporary) = database_dir(args);
    let seed_base = seed_base(args);
    let mut run = Run::<E>::start(&plan[0].1, options, dir.clone(), seed_base)?;
    println!("Suite forestdb on {}", run.engine().describe());
    let mut rows = Vec::new();
    for (step, a) in &plan {
        run.set_args(a);
        println!("== {} ==", step.label);
        println!("{}", run.execute(step.benchmark)?);
        let last = run.steps().last().expect("a step was recorded");
        rows.push((
            step.label.clone(),
            last.ops_per_sec,
            last.efficiency.db_bytes,
        ));
    }
    println!("{}", run.summary());
    println!("------------------------------------------------");
    println!("{}", table(&rows));
    let report = RunReport {
        steps: run.steps().to_vec(),
        final_db_bytes: crate::bench::metrics::dir_bytes(run.dir()),
        engine: run.engine().describe(),
    };
    run.finish()?;
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::suite::tests::flags;

    #[test]
    fn plan_has_the_forestdb_steps_with_one_and_n_threads() {
        let args = flags(&["bench", "--suite=forestdb", "--duration=5"]);
        let plan = step_args(&args);
        let names: Vec<(&str, u32, bool)> = plan
            .iter()
            .map(|(s, a)| (s.benchmark, a.threads, a.sync))
            .collect();
        assert_eq!(
            names,
            [
                ("fillseq", 1, false),
                ("overwrite", 1, true),
                ("overwrite", 4, true),
                ("readwhilewriting", 1, false),
                ("readwhilewriting", 4, false),
                ("seekrandomwhilewriting", 1, false),
                ("seekrandomwhilewriting", 4, false),
                ("readrandom", 1, false),
                ("readrandom", 4, false),
                ("seekrandom", 1, false),
                ("seekrandom", 4, false),
                ("overwrite", 1, false),
                ("overwrite", 4, false),
            ]
        );
        // The writer is limited, the overwrites are not; the load ignores --duration.
        assert_eq!(plan[3].1.benchmark_write_rate_limit, DEFAULT_WRITER_RATE);
        assert_eq!(plan[1].1.benchmark_write_rate_limit, 0);
        assert_eq!(plan[0].1.duration, 0);
        assert_eq!(plan[1].1.duration, 5);
        let args = flags(&["bench", "--threads=8"]);
        assert_eq!(step_args(&args)[2].1.threads, 8);
        let t = table(&[("load".to_string(), 1234.4, 3 << 20)]);
        assert!(
            t.lines()
                .nth(2)
                .expect("row")
                .ends_with("1234            3.0"),
            "{t}"
        );
    }
}
