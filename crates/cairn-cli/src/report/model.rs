//! The runs a report compares, read from `cairn bench --report_json` files.
//!
//! Each file is one run of one engine. Runs are labelled by engine and round: the first word
//! of the report's `engine` (`cairndb`, `rocksdb`) and the run's place among that engine's
//! runs, in the order the files were given (`cairndb #1`, `rocksdb #1`, `cairndb #2`, ...), so
//! that alternating rounds pair up for per-round ratios.

use std::path::Path;

use serde::Deserialize;

/// One run: one JSON report.
#[derive(Debug, Clone)]
pub struct Run {
    /// The engine's short name (first word of the report's `engine`).
    pub engine: String,
    /// 1 for an engine's first run, 2 for its second, ...
    pub round: usize,
    /// The report's `engine` description.
    pub description: String,
    /// The command line that produced it.
    pub argv: Vec<String>,
    /// Bytes of the database directory after the run, when known.
    pub final_db_bytes: Option<u64>,
    /// Its steps, in order.
    pub steps: Vec<Step>,
}

impl Run {
    /// `engine #round`.
    pub fn label(&self) -> String {
        format!("{} #{}", self.engine, self.round)
    }

    /// The step called `name` (the first, if the run repeated it).
    pub fn step(&self, name: &str) -> Option<&Step> {
        self.steps.iter().find(|s| s.name == name)
    }
}

/// One step of a run, as the JSON report records it (fields this report does not use are
/// ignored; fields older reports lack are empty).
#[derive(Debug, Clone, Deserialize)]
pub struct Step {
    /// The benchmark.
    pub name: String,
    /// Operations per wall-clock second.
    pub ops_per_sec: f64,
    /// Operations finished in each second (the last may be partial).
    #[serde(default)]
    pub per_second: Vec<u64>,
    /// Statistics of the whole seconds.
    pub throughput: Throughput,
    /// Latency percentiles per operation type: `[kind, percentiles]` pairs.
    #[serde(default)]
    pub latency: Vec<(String, Latency)>,
    /// CPU, device I/O, amplification and size.
    pub efficiency: Efficiency,
}

impl Step {
    /// The per-second series without its trailing partial second.
    pub fn whole_seconds(&self) -> &[u64] {
        &self.per_second[..self.throughput.seconds.min(self.per_second.len())]
    }

    /// The percentiles of the step's main operation type (the first recorded).
    pub fn main_latency(&self) -> Option<(&str, &Latency)> {
        self.latency.first().map(|(k, l)| (k.as_str(), l))
    }
}

/// Per-second throughput statistics.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Throughput {
    /// Whole seconds in the series.
    pub seconds: usize,
    /// Coefficient of variation.
    pub cv: f64,
}

/// Latency percentiles in microseconds.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Latency {
    /// Median.
    pub p50_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// 99.99th percentile.
    pub p9999_us: f64,
    /// Maximum.
    pub max_us: f64,
}

impl Latency {
    /// Names and values of the percentiles, in order.
    pub fn points(&self) -> [(&'static str, f64); 5] {
        [
            ("p50", self.p50_us),
            ("p99", self.p99_us),
            ("p99.9", self.p999_us),
            ("p99.99", self.p9999_us),
            ("max", self.max_us),
        ]
    }
}

/// What a step cost.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct Efficiency {
    /// CPU microseconds per operation.
    pub cpu_us_per_op: Option<f64>,
    /// Device bytes written per user byte written.
    pub write_amp_device: Option<f64>,
    /// Bytes of the database directory at the end of the step (unknown for db_bench logs).
    #[serde(default)]
    pub db_bytes: Option<u64>,
}

/// One run as read from its file, before it is labelled.
#[derive(Deserialize)]
pub(super) struct ReportFile {
    pub(super) engine: String,
    #[serde(default)]
    pub(super) argv: Vec<String>,
    #[serde(default)]
    pub(super) final_db_bytes: Option<u64>,
    pub(super) steps: Vec<Step>,
}

/// Reads the runs at `paths`, labelling them (module documentation). A path is a
/// `cairn bench --report_json` file, or the output of RocksDB's db_bench (`db_bench.rs`),
/// optionally followed by a comma and the CSV its `--report_file` wrote (`LOG,CSV`).
///
/// # Errors
/// A file that cannot be read, or that is neither kind of run, naming it.
pub fn load(paths: &[impl AsRef<Path>]) -> Result<Vec<Run>, String> {
    let mut runs: Vec<Run> = Vec::new();
    for path in paths {
        let arg = path.as_ref().to_string_lossy().into_owned();
        let (path, csv) = match arg.split_once(',') {
            Some((log, csv)) => (log.to_string(), Some(csv.to_string())),
            None => (arg, None),
        };
        let read =
            |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {p}: {e}"));
        let text = read(&path)?;
        let file = if super::db_bench::is_db_bench_log(&text) {
            let csv = csv.as_deref().map(read).transpose()?;
            super::db_bench::parse(&text, csv.as_deref()).map_err(|e| format!("{path}: {e}"))?
        } else {
            if csv.is_some() {
                return Err(format!(
                    "{path}: a per-second CSV goes with a db_bench log only"
                ));
            }
            let doc = serde_json::from_str(&text).map_err(|e| {
                format!(
                    "{path} is not a `cairn bench --report_json` report nor a db_bench log: {e}"
                )
            })?;
            serde_json::from_value(doc).map_err(|e| {
                format!(
                    "{path} is not a `cairn bench --report_json` report nor a db_bench log: {e}"
                )
            })?
        };
        runs.push(run_after(&runs, file));
    }
    Ok(runs)
}

/// The run a parsed report document describes.
///
/// # Errors
/// The document is not a `cairn bench --report_json` report.
pub fn from_value(doc: serde_json::Value) -> Result<Run, String> {
    let file = serde_json::from_value(doc)
        .map_err(|e| format!("not a `cairn bench --report_json` report: {e}"))?;
    Ok(run_after(&[], file))
}

/// `file` as the run that follows `runs` (its round counts its engine's earlier runs).
fn run_after(runs: &[Run], file: ReportFile) -> Run {
    let engine = file
        .engine
        .split_whitespace()
        .next()
        .unwrap_or("engine")
        .to_string();
    let round = 1 + runs.iter().filter(|r| r.engine == engine).count();
    Run {
        engine,
        round,
        description: file.engine,
        argv: file.argv,
        final_db_bytes: file.final_db_bytes,
        steps: file.steps,
    }
}

/// Engines in order of first appearance.
pub fn engines(runs: &[Run]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        if !out.contains(&r.engine) {
            out.push(r.engine.clone());
        }
    }
    out
}

/// Step names in order of first appearance.
pub fn step_names(runs: &[Run]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in runs.iter().flat_map(|r| &r.steps) {
        if !out.contains(&s.name) {
            out.push(s.name.clone());
        }
    }
    out
}

/// The median of `values` (`None` when empty).
pub fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_of_odd_even_and_empty_lists() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN, 5.0]), Some(5.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn runs_are_numbered_per_engine_in_the_order_given() {
        let doc = |engine: &str| {
            serde_json::from_value::<ReportFile>(serde_json::json!({
                "engine": engine, "steps": []
            }))
            .expect("doc")
        };
        let mut runs = Vec::new();
        for e in [
            "cairndb (CairnDB 0.1)",
            "rocksdb (RocksDB 11)",
            "cairndb (CairnDB 0.1)",
        ] {
            let r = run_after(&runs, doc(e));
            runs.push(r);
        }
        let labels: Vec<String> = runs.iter().map(Run::label).collect();
        assert_eq!(labels, ["cairndb #1", "rocksdb #1", "cairndb #2"]);
        assert_eq!(engines(&runs), ["cairndb", "rocksdb"]);
    }
}
