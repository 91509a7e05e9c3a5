//! `--suite bluestore`: Ceph BlueStore's key-value traffic (see [`crate::bench::bluestore`])
//! with the two write-buffer shapes the BlueStore measurements compare, each on a fresh
//! database:
//! 1. write buffers of 32 MiB, at most 4 of them;
//! 2. write buffers of 256 MiB, at most 4 of them.
//!
//! For each: `bluestore_fill` (unsynced) then `bluestore_write` (synced batches unless
//! `--disable_wal`), on `--threads` threads. The suite sets `--write_buffer_size`,
//! `--max_write_buffer_number`, `--sync` and, for the fill, `--duration`; the flags the
//! bluestore benchmarks refuse are listed in [`crate::bench::bluestore`]; every other flag
//! applies as given. The table at the
//! end gives, per shape: fill and write ops/s, the write step's p99 and p99.9 latency, its
//! write-amp (engine table bytes, and device bytes, over the batches' key and value bytes), the
//! table bytes written (flushes and compactions), CPU µs per write of the benchmark threads and
//! of the whole process, and the database size.

use crate::bench::engine::{BenchEngine, Result};
use crate::bench::report::OpKind;
use crate::bench::workloads::{Run, RunReport, StepReport};
use crate::bench::BenchArgs;

use super::{database_dir, seed_base};

/// The write-buffer shapes: label, `--write_buffer_size`, `--max_write_buffer_number`.
const SHAPES: [(&str, usize, u32); 2] =
    [("32 MiB x 4", 32 << 20, 4), ("256 MiB x 4", 256 << 20, 4)];

/// The flags of each shape's two steps.
fn plan(args: &BenchArgs) -> Vec<(&'static str, BenchArgs, BenchArgs)> {
    SHAPES
        .iter()
        .map(|&(label, size, number)| {
            let mut shape = args.clone();
            shape.write_buffer_size = size;
            shape.max_write_buffer_number = number;
            let mut fill = shape.clone();
            fill.benchmarks = "bluestore_fill".to_string();
            fill.sync = false;
            fill.duration = 0;
            let mut write = shape;
            write.benchmarks = "bluestore_write".to_string();
            write.sync = !write.disable_wal;
            (label, fill, write)
        })
        .collect()
}

/// One row of the closing table.
struct Row {
    shape: &'static str,
    fill: StepReport,
    write: StepReport,
}

fn table(rows: &[Row]) -> String {
    let mut out = format!(
        "{:<12} {:>10} {:>10} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9}\n{}\n",
        "buffers",
        "fill op/s",
        "write op/s",
        "p99 us",
        "p99.9 us",
        "WA eng",
        "WA dev",
        "tables MB",
        "thr us/op",
        "cpu us/op",
        "db MB",
        "-".repeat(113)
    );
    let f =
        |v: Option<f64>, digits: usize| v.map_or("n/a".to_string(), |v| format!("{v:.digits$}"));
    for r in rows {
        let e = &r.write.efficiency;
        let lat = r
            .write
            .latency
            .iter()
            .find(|(k, _)| *k == OpKind::Write)
            .map(|(_, l)| *l);
        out.push_str(&format!(
            "{:<12} {:>10.0} {:>10.0} {:>9} {:>9} {:>8} {:>8} {:>9} {:>9} {:>9} {:>9.1}\n",
            r.shape,
            r.fill.ops_per_sec,
            r.write.ops_per_sec,
            f(lat.map(|l| l.p99_us), 0),
            f(lat.map(|l| l.p999_us), 0),
            f(e.write_amp_engine, 2),
            f(e.write_amp_device, 2),
            f(e.engine_bytes_written.map(|b| b as f64 / 1_048_576.0), 1),
            f(e.thread_cpu_us_per_op, 1),
            f(e.cpu_us_per_op, 1),
            e.db_bytes as f64 / 1_048_576.0,
        ));
    }
    out.pop();
    out
}

/// Runs the bluestore suite on engine `E`, printing each step as `cairn bench` does and the
/// table at the end. The report's steps are named `bluestore_fill (32 MiB x 4)` and so on.
///
/// # Errors
/// As [`crate::bench::workloads::run`].
pub fn run<E: BenchEngine>(args: &BenchArgs) -> Result<RunReport> {
    let (dir, temporary) = database_dir(args);
    let seed_base = seed_base(args);
    let mut rows = Vec::new();
    let mut steps = Vec::new();
    let mut engine = String::new();
    let mut final_db_bytes = 0;
    for (shape, fill, write) in plan(args) {
        let options = fill.engine_options()?;
        let mut run = Run::<E>::start(&fill, &options, dir.clone(), seed_base)?;
        engine = run.engine().describe();
        println!("Suite bluestore on {engine}: write buffers {shape}");
        let mut reports = Vec::new();
        for (a, name) in [(&fill, "bluestore_fill"), (&write, "bluestore_write")] {
            run.set_args(a);
            println!("== {name}, write buffers {shape} ==");
            println!("{}", run.execute(name)?);
            let mut report = run.steps().last().expect("a step was recorded").clone();
            report.name = format!("{name} ({shape})");
            reports.push(report);
        }
        println!("{}", run.summary());
        final_db_bytes = crate::bench::metrics::dir_bytes(run.dir());
        run.finish()?;
        let write = reports.pop().expect("two steps");
        let fill = reports.pop().expect("two steps");
        steps.extend([fill.clone(), write.clone()]);
        rows.push(Row { shape, fill, write });
    }
    println!("------------------------------------------------");
    println!("{}", table(&rows));
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(RunReport {
        steps,
        final_db_bytes,
        engine,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::suite::tests::flags;

    #[test]
    fn plan_runs_both_buffer_shapes_with_synced_writes() {
        let args = flags(&["bench", "--threads=2", "--duration=30"]);
        let shapes_plan = plan(&args);
        let sizes: Vec<(usize, u32)> = shapes_plan
            .iter()
            .map(|(_, f, w)| {
                assert_eq!(
                    (f.write_buffer_size, f.max_write_buffer_number),
                    (w.write_buffer_size, w.max_write_buffer_number)
                );
                (f.write_buffer_size, f.max_write_buffer_number)
            })
            .collect();
        assert_eq!(sizes, [(32 << 20, 4), (256 << 20, 4)]);
        for (_, fill, write) in &shapes_plan {
            assert_eq!(
                (fill.benchmarks.as_str(), fill.sync, fill.duration),
                ("bluestore_fill", false, 0)
            );
            assert_eq!(
                (write.benchmarks.as_str(), write.sync, write.threads),
                ("bluestore_write", true, 2)
            );
        }
        assert_eq!(shapes_plan[0].2.duration, 30);
        // Without a WAL there is nothing to sync.
        let args = flags(&["bench", "--disable_wal"]);
        assert!(!plan(&args)[0].2.sync);
    }
}
