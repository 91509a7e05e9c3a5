//! `--report_dir`: the run's charts and page as `cairn report` draws them (`report/`), for this
//! one run: per step, throughput per second over the step, a box plot of it, latency
//! percentiles, CPU per operation, write amplification and size (`NN-<step>-<chart>.svg`), and
//! `index.html` with all of them. `cairn report` puts several runs side by side.

use std::path::Path;

use super::engine::{BenchError, Result};

/// Writes the charts of the run `doc` (the `--report_json` document) into `dir` (made by
/// [`create_report_dir`] before the run).
pub fn write_plots(dir: &Path, doc: serde_json::Value) -> Result<()> {
    let run = crate::report::from_value(doc).map_err(BenchError::Usage)?;
    crate::report::write(&[run], dir, "cairn bench run").map_err(BenchError::Usage)
}

/// Creates `--report_dir` (and its parents) if missing; called before the run, so that a
/// directory that cannot be made fails the command before any benchmark runs.
pub fn create_report_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| cairndb::Error::io("create --report_dir", dir, e))?;
    Ok(())
}
