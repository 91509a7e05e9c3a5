//! Runs of RocksDB's own db_bench, read from its output, so that a report can put `cairn
//! bench` beside the anchor RocksDB users run.
//!
//! What a log gives: the version (`RocksDB:    version X`), key and value sizes, every
//! result line (`name : X micros/op Y ops/sec ...`), and, with `--histogram=1`, each step's
//! percentiles (`Percentiles: P50: .. P99: .. P99.9: .. P99.99: ..` and `Max:`). With
//! `../shared/bench/measure.py` around a one-step run, its `MEASURE` line gives CPU per
//! operation and, for a write step, device write-amp. The per-second series comes from the CSV
//! that `--report_interval_seconds=1 --report_file=CSV` writes (`secs_elapsed,interval_qps`),
//! for a one-step run. The database size is not in the log and stays unknown.

use super::model::{Efficiency, Latency, ReportFile, Step, Throughput};

/// True when `text` looks like db_bench's output.
pub fn is_db_bench_log(text: &str) -> bool {
    text.lines()
        .any(|l| l.starts_with("RocksDB:") && l.contains("version"))
}

/// The number after `label` in `line` (`label` followed by spaces, then the number).
fn number_after(line: &str, label: &str) -> Option<f64> {
    let rest = &line[line.find(label)? + label.len()..];
    rest.split_whitespace()
        .next()?
        .trim_end_matches(',')
        .parse()
        .ok()
}

/// The run `log` describes, with the per-second series of `csv` when given.
///
/// # Errors
/// A log without result lines, or a CSV given for a log of several steps or in another format.
pub fn parse(log: &str, csv: Option<&str>) -> Result<ReportFile, String> {
    let version = log
        .lines()
        .find(|l| l.starts_with("RocksDB:"))
        .and_then(|l| l.split_whitespace().last())
        .unwrap_or("?");
    let size = |label: &str| {
        log.lines()
            .find(|l| l.starts_with(label))
            .and_then(|l| number_after(l, label))
    };
    let entry_bytes = size("Keys:").unwrap_or(0.0) + size("Values:").unwrap_or(0.0);
    let lines: Vec<&str> = log.lines().collect();
    let mut steps = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((name, rest)) = line.split_once(" : ") else {
            continue;
        };
        let Some(ops_per_sec) = number_after(rest, "micros/op") else {
            continue;
        };
        // The histogram block, if any, follows the result line up to the next result line.
        let block = lines[i + 1..]
            .iter()
            .take_while(|l| !l.contains(" micros/op "))
            .take(64);
        let mut latency = None;
        let mut max = None;
        let mut kind = "op".to_string();
        for l in block {
            if let Some(k) = l.strip_prefix("Microseconds per ") {
                kind = k.trim_end_matches(':').to_string();
            }
            if l.starts_with("Min:") {
                max = number_after(l, "Max:");
            }
            if l.starts_with("Percentiles:") {
                latency = Some((
                    number_after(l, "P50:"),
                    number_after(l, "P99:"),
                    number_after(l, "P99.9:"),
                    number_after(l, "P99.99:"),
                ));
                break;
            }
        }
        let latency = match (latency, max) {
            (Some((Some(p50), Some(p99), Some(p999), Some(p9999))), Some(max)) => vec![(
                kind,
                Latency {
                    p50_us: p50,
                    p99_us: p99,
                    p999_us: p999,
                    p9999_us: p9999,
                    max_us: max,
                },
            )],
            _ => Vec::new(),
        };
        steps.push(Step {
            name: name.trim().to_string(),
            ops_per_sec,
            per_second: Vec::new(),
            throughput: Throughput {
                seconds: 0,
                cv: 0.0,
            },
            latency,
            efficiency: Efficiency {
                cpu_us_per_op: None,
                write_amp_device: None,
                db_bytes: None,
            },
        });
    }
    if steps.is_empty() {
        return Err("no db_bench result lines".to_string());
    }
    if steps.len() == 1 {
        let ops = result_ops(log).unwrap_or(0.0);
        if let Some(m) = log.lines().find(|l| l.starts_with("MEASURE ")) {
            let step = &mut steps[0];
            if let (Some(cpu), true) = (number_after(m, "cpu_s="), ops > 0.0) {
                step.efficiency.cpu_us_per_op = Some(cpu * 1e6 / ops);
            }
            let writes = ["fill", "overwrite", "update"]
                .iter()
                .any(|p| step.name.starts_with(p));
            if let (Some(w), true) = (number_after(m, "write_bytes="), writes && ops > 0.0) {
                step.efficiency.write_amp_device = Some(w / (ops * entry_bytes.max(1.0)));
            }
        }
    }
    if let Some(csv) = csv {
        if steps.len() != 1 {
            return Err(format!(
                "a per-second CSV needs a one-step db_bench run; this log has {} steps",
                steps.len()
            ));
        }
        let series = per_second(csv)?;
        let step = &mut steps[0];
        let stats = crate::bench::SeriesStats::of(&series);
        step.throughput = Throughput {
            seconds: stats.seconds,
            cv: stats.cv,
        };
        step.per_second = series;
    }
    Ok(ReportFile {
        engine: format!("rocksdb (db_bench, RocksDB {version})"),
        argv: Vec::new(),
        final_db_bytes: None,
        steps,
    })
}

/// Operations of the (only) result line.
fn result_ops(log: &str) -> Option<f64> {
    let line = log.lines().find(|l| l.contains(" micros/op "))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| w.starts_with("operations"))?;
    words.get(at.checked_sub(1)?)?.parse().ok()
}

/// The `interval_qps` column of db_bench's `--report_file` CSV.
fn per_second(csv: &str) -> Result<Vec<u64>, String> {
    let mut lines = csv.lines();
    if lines.next().map(str::trim) != Some("secs_elapsed,interval_qps") {
        return Err("the CSV is not db_bench's --report_file (secs_elapsed,interval_qps)".into());
    }
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.split(',')
                .nth(1)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .ok_or_else(|| format!("bad --report_file line {l:?}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of a db_bench 11.9 run under measure.py with `--histogram=1` (trimmed).
    const LOG: &str = "RocksDB:    version 11.9.0
Date:       Thu Nov 26 15:26:25 2026
Keys:       16 bytes each (+ 0 bytes user-defined timestamp)
Values:     100 bytes each (50 bytes after compression)
Entries:    200000
DB path: [/tmp/rep/dbb]
fillrandom   :       4.259 micros/op 234768 ops/sec 0.852 seconds 200000 operations;   26.0 MB/s
Microseconds per write:
Count: 200000 Average: 4.2588  StdDev: 8.16
Min: 2  Median: 3.4451  Max: 3423
Percentiles: P50: 3.45 P75: 4.44 P99: 9.63 P99.9: 40.60 P99.99: 102.00
------------------------------------------------------
(       1,       2 ]     7773   3.887%   3.887% #
MEASURE wall_s=1.21 cpu_s=1.19 read_bytes=0 write_bytes=27840000 peak_rss_mb=41.9
";

    #[test]
    fn a_one_step_log_gives_throughput_percentiles_cpu_write_amp_and_seconds() {
        assert!(is_db_bench_log(LOG));
        let run = parse(LOG, Some("secs_elapsed,interval_qps\n1,100\n2,300\n")).expect("parse");
        assert_eq!(run.engine, "rocksdb (db_bench, RocksDB 11.9.0)");
        let s = &run.steps[0];
        assert_eq!((s.name.as_str(), s.ops_per_sec), ("fillrandom", 234_768.0));
        let (kind, l) = s.main_latency().expect("percentiles");
        assert_eq!(kind, "write");
        assert_eq!(
            (l.p50_us, l.p99_us, l.p999_us, l.p9999_us, l.max_us),
            (3.45, 9.63, 40.6, 102.0, 3423.0)
        );
        assert!((s.efficiency.cpu_us_per_op.expect("cpu") - 5.95).abs() < 1e-9);
        // 27,840,000 bytes for 200,000 writes of 116 bytes.
        assert!((s.efficiency.write_amp_device.expect("wa") - 1.2).abs() < 1e-9);
        assert_eq!(s.per_second, [100, 300]);
        assert!((s.throughput.cv - 0.5).abs() < 1e-9);
        assert_eq!(s.efficiency.db_bytes, None);
    }

    #[test]
    fn logs_and_csvs_it_cannot_use_are_refused() {
        assert!(parse("RocksDB:    version 11.9.0\n", None).is_err());
        assert!(parse(LOG, Some("time,ops\n1,2\n")).is_err());
        let two = LOG.replace(
            "DB path: [/tmp/rep/dbb]",
            "readrandom   :       1.0 micros/op 1000000 ops/sec 1.0 seconds 10 operations;",
        );
        let run = parse(&two, None).expect("two steps");
        assert_eq!(run.steps.len(), 2);
        // CPU and write-amp are per process: not given to either of two steps.
        assert!(run
            .steps
            .iter()
            .all(|s| s.efficiency.cpu_us_per_op.is_none()));
        assert!(parse(&two, Some("secs_elapsed,interval_qps\n1,5\n")).is_err());
    }
}
