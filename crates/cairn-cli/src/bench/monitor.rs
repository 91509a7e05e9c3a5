//! A thread that watches a running step's operation counter: db_bench's `ReporterAgent` (every
//! `--report_interval_seconds`, a `secs_elapsed,interval_qps` line in `--report_file`) and a
//! progress line on stderr when stderr is a terminal.
//!
//! # Contract
//! - One [`Monitor`] per step; the step's threads add finished operations to
//!   [`Monitor::counter`], the monitor thread only reads it.
//! - As in db_bench, the report file is created (truncated) at the start of each step with the
//!   header `secs_elapsed,interval_qps`; `secs_elapsed` is the step's elapsed time rounded to
//!   whole seconds, `interval_qps` the operations finished since the previous line.
//! - [`Monitor::stop`] wakes the thread, joins it and clears the progress line.

use std::fs::File;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::engine::{BenchError, Result};

/// The CSV header of db_bench's report file.
pub const REPORT_HEADER: &str = "secs_elapsed,interval_qps";

/// One report line: `secs_elapsed` rounded to the nearest second, as db_bench.
pub fn report_line(elapsed: Duration, interval_ops: u64) -> String {
    let secs = (elapsed.as_micros() + 500_000) / 1_000_000;
    format!("{secs},{interval_ops}")
}

/// What to watch a step for.
#[derive(Debug, Clone)]
pub struct MonitorConfig {
    /// `--report_file` and `--report_interval_seconds` when the interval is positive.
    pub report: Option<(PathBuf, u64)>,
    /// The step's name and its expected operations (0 when it runs for a duration), for a
    /// progress line; `None` for no progress line.
    pub progress: Option<(String, u64)>,
    /// Every this many seconds (0: never), a db_bench-style progress line on stderr with the
    /// operations and rates of the interval and of the step so far, all threads together.
    pub stats_interval_seconds: u64,
}

/// The watching thread of one step.
#[derive(Debug)]
pub struct Monitor {
    /// Finished operations of the step.
    pub counter: Arc<AtomicU64>,
    stop: Arc<(Mutex<bool>, Condvar)>,
    handle: Option<JoinHandle<()>>,
}

impl Monitor {
    /// Starts watching, or returns `None` when there is nothing to do: no report interval, and
    /// no progress line (or stderr is not a terminal).
    ///
    /// # Errors
    /// The report file cannot be created.
    pub fn start(config: MonitorConfig) -> Result<Option<Monitor>> {
        let progress = config.progress.filter(|_| std::io::stderr().is_terminal());
        let stats_every = config.stats_interval_seconds;
        if config.report.is_none() && progress.is_none() && stats_every == 0 {
            return Ok(None);
        }
        let report = match config.report {
            Some((path, secs)) => Some((create_report(&path)?, path, secs)),
            None => None,
        };
        let counter = Arc::new(AtomicU64::new(0));
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let handle = {
            let (counter, stop) = (counter.clone(), stop.clone());
            std::thread::Builder::new()
                .name("bench-monitor".to_string())
                .spawn(move || watch(&counter, &stop, report, progress, stats_every))
                .map_err(|e| BenchError::Usage(format!("cannot start the reporting thread: {e}")))?
        };
        Ok(Some(Monitor {
            counter,
            stop,
            handle: Some(handle),
        }))
    }

    /// Stops the thread and waits for it.
    pub fn stop(mut self) {
        self.halt();
    }

    fn halt(&mut self) {
        {
            let (lock, cv) = &*self.stop;
            *lock.lock().expect("monitor lock") = true;
            cv.notify_all();
        }
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.halt();
    }
}

fn create_report(path: &Path) -> Result<File> {
    let mut f =
        File::create(path).map_err(|e| cairndb::Error::io("create report file", path, e))?;
    writeln!(f, "{REPORT_HEADER}")
        .and_then(|()| f.flush())
        .map_err(|e| cairndb::Error::io("write report file", path, e))?;
    Ok(f)
}

fn watch(
    counter: &AtomicU64,
    stop: &(Mutex<bool>, Condvar),
    mut report: Option<(File, PathBuf, u64)>,
    progress: Option<(String, u64)>,
    stats_every: u64,
) {
    let started = Instant::now();
    let mut next_stats = (stats_every > 0).then(|| started + Duration::from_secs(stats_every));
    let (mut stats_last_at, mut stats_last_done) = (started, 0u64);
    let tick = Duration::from_millis(if progress.is_some() { 500 } else { 1000 });
    let mut next_report = report.as_ref().map(|r| started + Duration::from_secs(r.2));
    let mut last_reported = 0;
    let (lock, cv) = stop;
    let mut stopped = lock.lock().expect("monitor lock");
    loop {
        let now = Instant::now();
        let wake = [next_report, next_stats]
            .into_iter()
            .flatten()
            .fold(now + tick, Instant::min);
        let (guard, _) = cv
            .wait_timeout(stopped, wake.saturating_duration_since(now))
            .expect("monitor lock");
        stopped = guard;
        if *stopped {
            break;
        }
        let done = counter.load(Ordering::Relaxed);
        let now = Instant::now();
        if let (Some((file, path, secs)), Some(due)) = (&mut report, next_report) {
            if now >= due {
                let line = report_line(now - started, done - last_reported);
                if writeln!(file, "{line}")
                    .and_then(|()| file.flush())
                    .is_err()
                {
                    eprintln!(
                        "Can't write to report file {}, stopping the reporting",
                        path.display()
                    );
                    report = None;
                    next_report = None;
                } else {
                    last_reported = done;
                    next_report = Some(due + Duration::from_secs(*secs));
                }
            }
        }
        if let Some(due) = next_stats {
            if now >= due {
                let interval = (now - stats_last_at).as_secs_f64().max(1e-9);
                let total = (now - started).as_secs_f64().max(1e-9);
                eprintln!(
                    "... all threads: ({},{}) ops and ({:.1},{:.1}) ops/second in ({:.6},{:.6}) \
                     seconds",
                    done - stats_last_done,
                    done,
                    (done - stats_last_done) as f64 / interval,
                    done as f64 / total,
                    interval,
                    total
                );
                (stats_last_at, stats_last_done) = (now, done);
                next_stats = Some(due + Duration::from_secs(stats_every));
            }
        }
        if let Some((name, expected)) = &progress {
            let secs = started.elapsed().as_secs_f64().max(1e-9);
            let share = if *expected > 0 {
                format!(" ({:.0}%)", done as f64 * 100.0 / *expected as f64)
            } else {
                String::new()
            };
            eprint!(
                "\r{name}: {done} ops{share}, {:.0} ops/s, {secs:.0} s   ",
                done as f64 / secs
            );
        }
    }
    if progress.is_some() {
        eprint!("\r{:70}\r", "");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_round_seconds_like_db_bench() {
        assert_eq!(report_line(Duration::from_millis(1499), 10), "1,10");
        assert_eq!(report_line(Duration::from_millis(1500), 7), "2,7");
        assert_eq!(report_line(Duration::from_secs(10), 0), "10,0");
    }

    #[test]
    fn report_file_gets_the_header_and_interval_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("report.csv");
        let m = Monitor::start(MonitorConfig {
            report: Some((path.clone(), 1)),
            progress: None,
            stats_interval_seconds: 0,
        })
        .expect("start")
        .expect("a monitor for the report");
        m.counter.fetch_add(5, Ordering::Relaxed);
        // Wait (bounded) for the first interval line rather than sleeping a fixed time.
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::fs::read_to_string(&path)
            .expect("read")
            .lines()
            .count()
            < 2
        {
            assert!(Instant::now() < deadline, "no report line");
            std::thread::sleep(Duration::from_millis(50));
        }
        m.stop();
        let text = std::fs::read_to_string(&path).expect("read");
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(REPORT_HEADER));
        let first: Vec<&str> = lines.next().expect("line").split(',').collect();
        assert_eq!(first.len(), 2);
        assert!(first[0].parse::<u64>().expect("secs") >= 1);
        assert_eq!(first[1], "5");
        assert!(Monitor::start(MonitorConfig {
            report: None,
            progress: None,
            stats_interval_seconds: 0,
        })
        .expect("start")
        .is_none());
        let bad = Monitor::start(MonitorConfig {
            report: Some((dir.path().join("missing/dir/report.csv"), 1)),
            progress: None,
            stats_interval_seconds: 0,
        });
        assert!(bad.is_err());
    }
}
