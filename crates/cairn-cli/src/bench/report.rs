//! Results of one benchmark step: per-thread counters merged as db_bench merges them, printed as
//! db_bench prints them (the result line, and with `--histogram` its histogram block per operation
//! type), plus what db_bench leaves out: latency percentiles up to p99.99 and the maximum, and the
//! per-second throughput series with its coefficient of variation and slow seconds.
//!
//! # Contract
//! - Each benchmark thread owns one [`Stats`]; no [`Stats`] is shared between threads. The
//!   threads of one step share only the step's `origin` instant (so their per-second series line
//!   up) and an optional [`AtomicU64`] counting finished operations for the interval reporter and
//!   the progress bar.
//! - [`Stats::merge`] follows db_bench's `Stats::Merge`: counts and bytes add, the step spans the
//!   earliest start to the latest finish, thread seconds add (for micros/op), the first non-empty
//!   message is kept, histograms and per-second series add.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;

use super::histogram::DbBenchHistogram;

/// db_bench's `OperationType`, whose name labels the histogram ("Microseconds per read:").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    /// `kRead`.
    Read,
    /// `kWrite`.
    Write,
    /// `kDelete`.
    Delete,
    /// `kSeek`.
    Seek,
    /// `kUpdate`.
    Update,
    /// `kOthers` (randomtransaction's transactions).
    Others,
}

impl OpKind {
    /// db_bench's name of the operation type.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Delete => "delete",
            OpKind::Seek => "seek",
            OpKind::Update => "update",
            OpKind::Others => "op",
        }
    }
}

/// Latencies of one operation type: nanoseconds to 3 significant digits for the percentiles,
/// and db_bench's microsecond histogram for its block.
#[derive(Debug, Clone)]
struct Latency {
    ns: Histogram<u64>,
    db_bench: DbBenchHistogram,
}

impl Latency {
    fn new() -> Self {
        Latency {
            ns: Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds"),
            db_bench: DbBenchHistogram::default(),
        }
    }

    fn record(&mut self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.ns.saturating_record(ns);
        self.db_bench
            .add(u64::try_from(latency.as_micros()).unwrap_or(u64::MAX));
    }

    fn merge(&mut self, other: &Latency) {
        // Both have the same bounds, so adding cannot fail.
        let _ = self.ns.add(&other.ns);
        self.db_bench.merge(&other.db_bench);
    }

    fn percentiles(&self) -> LatencyPercentiles {
        let us = |q: f64| self.ns.value_at_quantile(q) as f64 / 1000.0;
        LatencyPercentiles {
            count: self.ns.len(),
            mean_us: self.ns.mean() / 1000.0,
            p50_us: us(0.5),
            p95_us: us(0.95),
            p99_us: us(0.99),
            p999_us: us(0.999),
            p9999_us: us(0.9999),
            max_us: self.ns.max() as f64 / 1000.0,
        }
    }
}

/// Latency percentiles of one operation type, in microseconds (one sample per call: per batch
/// for batched writes, per multi-get for multireadrandom, as db_bench).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LatencyPercentiles {
    /// Samples.
    pub count: u64,
    /// Mean.
    pub mean_us: f64,
    /// Median.
    pub p50_us: f64,
    /// 95th percentile (sysbench's default percentile).
    pub p95_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// 99.9th percentile.
    pub p999_us: f64,
    /// 99.99th percentile.
    pub p9999_us: f64,
    /// Maximum.
    pub max_us: f64,
}

/// Counters and per-operation latencies of one benchmark thread, or of a step once merged.
#[derive(Debug)]
pub struct Stats {
    /// The step's start, shared by its threads: second `i` of the per-second series is
    /// `[origin + i s, origin + (i + 1) s)`.
    origin: Instant,
    start: Instant,
    finish: Option<Instant>,
    /// Seconds the thread ran; the sum over threads once merged (db_bench's `seconds_`).
    seconds: f64,
    done: u64,
    bytes: u64,
    /// Notes appended to the result line, as db_bench's `AddMessage`.
    message: String,
    latency: BTreeMap<OpKind, Latency>,
    /// Operations finished in each second since `origin`.
    per_second: Vec<u64>,
    /// Finished operations of the step, for the interval reporter and the progress bar.
    counter: Option<Arc<AtomicU64>>,
    /// CPU seconds the thread used between its start and stop; the sum once merged (`None`
    /// when not measured).
    cpu_seconds: Option<f64>,
}

impl Stats {
    /// Starts the clock of a single-threaded step.
    pub fn start() -> Self {
        Self::start_at(Instant::now(), None)
    }

    /// Starts the clock of one thread of a step that began at `origin`; finished operations are
    /// also added to `counter` when given.
    pub fn start_at(origin: Instant, counter: Option<Arc<AtomicU64>>) -> Self {
        Stats {
            origin,
            start: Instant::now(),
            finish: None,
            seconds: 0.0,
            done: 0,
            bytes: 0,
            message: String::new(),
            latency: BTreeMap::new(),
            per_second: Vec::new(),
            counter,
            cpu_seconds: None,
        }
    }

    /// Records one operation of type `kind` begun at `started` and finished now, which moved
    /// `bytes`.
    pub fn finished_op(&mut self, kind: OpKind, started: Instant, bytes: u64) {
        self.finished_ops(kind, started, 1, bytes);
    }

    /// Records one call of type `kind` begun at `started` and finished now that did `ops`
    /// operations (a write batch, a multi-get) and moved `bytes`. As in db_bench, the call is one
    /// latency sample and `ops` operations.
    pub fn finished_ops(&mut self, kind: OpKind, started: Instant, ops: u64, bytes: u64) {
        let now = Instant::now();
        self.record(
            kind,
            now,
            now.saturating_duration_since(started),
            ops,
            bytes,
        );
    }

    /// [`Stats::finished_ops`] with the clock read by the caller (tests use it to place
    /// operations in given seconds).
    pub fn record(&mut self, kind: OpKind, now: Instant, latency: Duration, ops: u64, bytes: u64) {
        self.done += ops;
        self.bytes += bytes;
        self.latency
            .entry(kind)
            .or_insert_with(Latency::new)
            .record(latency);
        let second = now.saturating_duration_since(self.origin).as_secs() as usize;
        if self.per_second.len() <= second {
            self.per_second.resize(second + 1, 0);
        }
        self.per_second[second] += ops;
        if let Some(c) = &self.counter {
            c.fetch_add(ops, Ordering::Relaxed);
        }
    }

    /// Adds `bytes` moved outside any operation record (db_bench's `AddBytes`).
    pub fn add_bytes(&mut self, bytes: u64) {
        self.bytes += bytes;
    }

    /// Appends a note to the result line (db_bench's `AddMessage`).
    pub fn add_message(&mut self, message: &str) {
        if !self.message.is_empty() {
            self.message.push(' ');
        }
        self.message.push_str(message);
    }

    /// Records how many of the looked-up keys were found, shown as `(found of total found)`.
    pub fn set_found(&mut self, found: u64, total: u64) {
        self.add_message(&format!("({found} of {total} found)"));
    }

    /// Stops the clock.
    pub fn stop(&mut self) {
        self.stop_at(Instant::now());
    }

    /// Stops the clock at `now`.
    pub fn stop_at(&mut self, now: Instant) {
        self.finish = Some(now);
        self.seconds = now.saturating_duration_since(self.start).as_secs_f64();
    }

    /// Records the CPU seconds the thread used.
    pub fn set_cpu_seconds(&mut self, seconds: f64) {
        self.cpu_seconds = Some(seconds);
    }

    /// The CPU seconds of the thread, or of the merged threads.
    pub fn cpu_seconds(&self) -> Option<f64> {
        self.cpu_seconds
    }

    /// Adds another thread's results (db_bench's `Stats::Merge`).
    pub fn merge(&mut self, other: &Stats) {
        for (kind, lat) in &other.latency {
            match self.latency.get_mut(kind) {
                Some(l) => l.merge(lat),
                None => {
                    self.latency.insert(*kind, lat.clone());
                }
            }
        }
        self.done += other.done;
        self.bytes += other.bytes;
        self.seconds += other.seconds;
        self.cpu_seconds = match (self.cpu_seconds, other.cpu_seconds) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.start = self.start.min(other.start);
        self.finish = match (self.finish, other.finish) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if self.message.is_empty() {
            self.message.clone_from(&other.message);
        }
        if self.per_second.len() < other.per_second.len() {
            self.per_second.resize(other.per_second.len(), 0);
        }
        for (a, b) in self.per_second.iter_mut().zip(&other.per_second) {
            *a += b;
        }
    }

    /// Operations done.
    pub fn done(&self) -> u64 {
        self.done
    }

    /// Bytes moved.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Wall-clock seconds from the earliest start to the latest finish.
    pub fn elapsed_secs(&self) -> f64 {
        self.finish
            .unwrap_or_else(Instant::now)
            .saturating_duration_since(self.start)
            .as_secs_f64()
            .max(1e-9)
    }

    /// db_bench's result line:
    /// `name : X micros/op Y ops/sec Z seconds N operations; M MB/s (notes)`, where micros/op
    /// is thread seconds per operation and ops/sec is operations per wall-clock second.
    pub fn result_line(&self, name: &str) -> String {
        let done = self.done.max(1);
        let elapsed = self.elapsed_secs();
        let seconds = if self.seconds > 0.0 {
            self.seconds
        } else {
            elapsed
        };
        let mut extra = String::new();
        if self.bytes > 0 {
            extra = format!("{:6.1} MB/s", self.bytes as f64 / 1_048_576.0 / elapsed);
        }
        if !self.message.is_empty() {
            if !extra.is_empty() {
                extra.push(' ');
            }
            extra.push_str(&self.message);
        }
        format!(
            "{:<12} : {:>11.3} micros/op {} ops/sec {:.3} seconds {} operations;{}{}",
            name,
            seconds * 1e6 / done as f64,
            (done as f64 / elapsed) as u64,
            elapsed,
            done,
            if extra.is_empty() { "" } else { " " },
            extra
        )
    }

    /// db_bench's `--histogram` output: per operation type, `Microseconds per <type>:` and
    /// RocksDB's histogram block.
    pub fn histogram_blocks(&self) -> String {
        let mut out = String::new();
        for (kind, lat) in &self.latency {
            let _ = writeln!(
                out,
                "Microseconds per {}:\n{}",
                kind.name(),
                lat.db_bench.to_db_bench_string()
            );
        }
        out
    }

    /// Latency percentiles per operation type.
    pub fn percentiles(&self) -> BTreeMap<OpKind, LatencyPercentiles> {
        self.latency
            .iter()
            .map(|(k, l)| (*k, l.percentiles()))
            .collect()
    }

    /// One line of latency percentiles per operation type, in microseconds.
    pub fn percentile_lines(&self) -> Vec<String> {
        self.percentiles()
            .iter()
            .map(|(kind, p)| {
                format!(
                    "  latency {} (us): P50: {:.2} P99: {:.2} P99.9: {:.2} P99.99: {:.2} Max: {:.2}",
                    kind.name(),
                    p.p50_us,
                    p.p99_us,
                    p.p999_us,
                    p.p9999_us,
                    p.max_us
                )
            })
            .collect()
    }

    /// The per-second series: operations finished in each second since the step's start. The
    /// last entry is a partial second unless the step ended on a second boundary.
    pub fn per_second(&self) -> &[u64] {
        &self.per_second
    }

    /// The per-second series without its trailing partial second.
    pub fn full_seconds(&self) -> &[u64] {
        let end = self.finish.unwrap_or_else(Instant::now);
        let whole = end.saturating_duration_since(self.origin).as_secs() as usize;
        &self.per_second[..whole.min(self.per_second.len())]
    }
}

/// Quality of service of a per-second throughput series.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SeriesStats {
    /// Whole seconds in the series.
    pub seconds: usize,
    /// Median operations per second.
    pub median: f64,
    /// Mean operations per second.
    pub mean: f64,
    /// Coefficient of variation: population standard deviation over the mean (0 for an empty
    /// or all-zero series).
    pub cv: f64,
    /// Seconds whose count is below half the median.
    pub seconds_below_half_median: usize,
}

impl SeriesStats {
    /// The statistics of `series` (whole seconds only).
    pub fn of(series: &[u64]) -> Self {
        let n = series.len();
        if n == 0 {
            return SeriesStats {
                seconds: 0,
                median: 0.0,
                mean: 0.0,
                cv: 0.0,
                seconds_below_half_median: 0,
            };
        }
        let mut sorted = series.to_vec();
        sorted.sort_unstable();
        let median = if n % 2 == 1 {
            sorted[n / 2] as f64
        } else {
            (sorted[n / 2 - 1] as f64 + sorted[n / 2] as f64) / 2.0
        };
        let mean = series.iter().sum::<u64>() as f64 / n as f64;
        let variance = series
            .iter()
            .map(|&x| (x as f64 - mean).powi(2))
            .sum::<f64>()
            / n as f64;
        let cv = if mean > 0.0 {
            variance.sqrt() / mean
        } else {
            0.0
        };
        let seconds_below_half_median = series
            .iter()
            .filter(|&&x| (x as f64) < median / 2.0)
            .count();
        SeriesStats {
            seconds: n,
            median,
            mean,
            cv,
            seconds_below_half_median,
        }
    }

    /// The line printed under the result line.
    pub fn line(&self) -> String {
        if self.seconds == 0 {
            return "  throughput: under one whole second, no per-second series".to_string();
        }
        format!(
            "  throughput per second: median {:.0} mean {:.0} ops/s, CV {:.3}, {} of {} s below \
             half the median",
            self.median, self.mean, self.cv, self.seconds_below_half_median, self.seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_line_has_db_bench_shape() {
        let mut s = Stats::start();
        let now = Instant::now();
        for _ in 0..10 {
            s.record(OpKind::Read, now, Duration::from_micros(3), 1, 116);
        }
        s.set_found(7, 10);
        s.stop();
        let line = s.result_line("readrandom");
        assert!(line.starts_with("readrandom   :"), "{line}");
        assert!(
            line.contains(" micros/op ") && line.contains(" ops/sec "),
            "{line}"
        );
        assert!(line.ends_with("(7 of 10 found)"), "{line}");
        assert!(line.contains(" 10 operations;"), "{line}");
        let p = s.percentile_lines();
        assert_eq!(p.len(), 1);
        assert!(
            p[0].contains("latency read (us)") && p[0].contains("P99.9: 3.00"),
            "{p:?}"
        );
    }

    #[test]
    fn batched_calls_count_every_operation_and_notes_follow_the_rate() {
        let mut s = Stats::start();
        let now = Instant::now();
        for _ in 0..3 {
            s.record(OpKind::Write, now, Duration::from_micros(40), 8, 8 * 116);
        }
        s.add_message("(20 ops)");
        s.set_found(5, 24);
        s.stop();
        let line = s.result_line("fillsync");
        assert!(line.contains(" 24 operations; "), "{line}");
        assert!(line.ends_with(" MB/s (20 ops) (5 of 24 found)"), "{line}");
        // One latency sample per call, not per operation.
        let p = s.percentiles()[&OpKind::Write];
        assert_eq!(p.count, 3);
        assert!((p.p50_us - 40.0).abs() < 0.1, "{p:?}");
    }

    #[test]
    fn merge_adds_counts_series_and_histograms_and_spans_threads() {
        let origin = Instant::now();
        let counter = Arc::new(AtomicU64::new(0));
        let mut a = Stats::start_at(origin, Some(counter.clone()));
        let mut b = Stats::start_at(origin, Some(counter.clone()));
        let at = |s: u64| origin + Duration::from_millis(s * 1000 + 500);
        a.record(OpKind::Read, at(0), Duration::from_micros(5), 1, 10);
        a.record(OpKind::Read, at(2), Duration::from_micros(5), 1, 10);
        b.record(OpKind::Read, at(0), Duration::from_micros(7), 3, 30);
        b.record(OpKind::Write, at(1), Duration::from_micros(9), 1, 10);
        a.add_message("(a)");
        b.add_message("(b)");
        a.stop_at(origin + Duration::from_secs(3));
        b.stop_at(origin + Duration::from_secs(2));
        assert_eq!(counter.load(Ordering::Relaxed), 6);
        a.merge(&b);
        assert_eq!(a.done(), 6);
        assert_eq!(a.bytes(), 60);
        assert_eq!(a.per_second(), &[4, 1, 1]);
        assert_eq!(a.full_seconds(), &[4, 1, 1]);
        let p = a.percentiles();
        assert_eq!(p[&OpKind::Read].count, 3);
        assert_eq!(p[&OpKind::Write].count, 1);
        assert!(
            a.result_line("x").ends_with("(a)"),
            "{}",
            a.result_line("x")
        );
        let blocks = a.histogram_blocks();
        assert!(
            blocks.starts_with("Microseconds per read:\nCount: 3 "),
            "{blocks}"
        );
        assert!(
            blocks.contains("Microseconds per write:\nCount: 1 "),
            "{blocks}"
        );
        // The step spans the earliest start to the latest finish, about 3 s.
        assert!((a.elapsed_secs() - 3.0).abs() < 0.1, "{}", a.elapsed_secs());
    }

    #[test]
    fn partial_trailing_second_is_left_out_of_the_series_statistics() {
        let origin = Instant::now();
        let mut s = Stats::start_at(origin, None);
        for sec in 0..3 {
            s.record(
                OpKind::Write,
                origin + Duration::from_millis(sec * 1000 + 10),
                Duration::from_micros(1),
                100,
                0,
            );
        }
        s.stop_at(origin + Duration::from_millis(2500));
        assert_eq!(s.per_second(), &[100, 100, 100]);
        assert_eq!(s.full_seconds(), &[100, 100]);
    }

    #[test]
    fn series_statistics_on_known_series() {
        let s = SeriesStats::of(&[100, 100, 100, 100]);
        assert_eq!(s.median, 100.0);
        assert_eq!(s.cv, 0.0);
        assert_eq!(s.seconds_below_half_median, 0);
        // Mean 50, deviations ±50: population sd 50, CV 1.
        let s = SeriesStats::of(&[0, 100, 0, 100]);
        assert_eq!(s.mean, 50.0);
        assert!((s.cv - 1.0).abs() < 1e-12, "{s:?}");
        assert_eq!(s.median, 50.0);
        assert_eq!(s.seconds_below_half_median, 2);
        // Median 100 (odd count); 40 and 49 are below 50, 50 is not.
        let s = SeriesStats::of(&[100, 40, 120, 49, 50, 100, 110]);
        assert_eq!(s.median, 100.0);
        assert_eq!(s.seconds_below_half_median, 2);
        let empty = SeriesStats::of(&[]);
        assert_eq!(empty.seconds, 0);
        assert!(empty.line().contains("under one whole second"));
    }
}
