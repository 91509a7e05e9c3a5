//! `cairn report`: merges several runs (`cairn bench --report_json` reports of either engine,
//! and logs of RocksDB's own db_bench: `db_bench.rs`) into one page that puts them side by side: per-second throughput over
//! time, a box plot of per-second throughput per run, latency percentiles, CPU per operation,
//! write amplification and size, and the table of ratios between engines.
//!
//! Output: `DIR/index.html` (charts inlined) and every chart as its own SVG file
//! (`DIR/NN-step-chart.svg`).

mod charts;
mod db_bench;
mod model;
mod page;

use std::path::PathBuf;

use clap::Args;

pub use model::{from_value, load, Run};

/// `cairn report` arguments.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Runs, one per argument: JSON reports written by `cairn bench --report_json`, or the
    /// output of RocksDB's db_bench (with `--histogram=1` for percentiles, run under
    /// measure.py for CPU and write-amp), optionally as `LOG,CSV` with the CSV its
    /// `--report_interval_seconds=1 --report_file=CSV` wrote. An engine's runs are its rounds
    /// in the order given, so give alternating rounds in order.
    #[arg(required = true)]
    pub runs: Vec<PathBuf>,
    /// Directory to write `index.html` and the SVG charts into (created if missing).
    #[arg(long)]
    pub out: PathBuf,
    /// Title of the page.
    #[arg(long, default_value = "CairnDB benchmark report")]
    pub title: String,
}

/// Writes the report of `args.runs` into `args.out`.
///
/// # Errors
/// A report that cannot be read or parsed, or an output that cannot be written.
pub fn run(args: &ReportArgs) -> Result<(), String> {
    let runs = load(&args.runs)?;
    write(&runs, &args.out, &args.title)
}

/// Writes the page and the charts of `runs` into `dir`.
///
/// # Errors
/// The directory or a file cannot be written.
pub fn write(runs: &[Run], dir: &std::path::Path, title: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let put = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    for (i, name) in model::step_names(runs).iter().enumerate() {
        for (chart, svg) in page::step_charts(runs, name) {
            put(&format!("{:02}-{name}-{chart}.svg", i + 1), &svg)?;
        }
    }
    put("index.html", &page::html(runs, title))
}
