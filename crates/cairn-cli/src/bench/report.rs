//! Results of one benchmark step, printed as db_bench prints them, plus the latency percentiles
//! db_bench leaves out.

use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

/// Counters and per-operation latencies of one benchmark step.
#[derive(Debug)]
pub struct Stats {
    start: Instant,
    elapsed: Option<Duration>,
    done: u64,
    bytes: u64,
    /// Notes appended to the result line, as db_bench's `AddMessage`.
    message: String,
    /// Latency of each operation in nanoseconds.
    latency_ns: Histogram<u64>,
}

impl Stats {
    /// Starts the clock.
    pub fn start() -> Self {
        Stats {
            start: Instant::now(),
            elapsed: None,
            done: 0,
            bytes: 0,
            message: String::new(),
            latency_ns: Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds"),
        }
    }

    /// Records one finished operation that took `latency` and moved `bytes`.
    pub fn finished_op(&mut self, latency: Duration, bytes: u64) {
        self.finished_ops(latency, 1, bytes);
    }

    /// Records one call that did `ops` operations (a write batch, a multi-get) in `latency` and
    /// moved `bytes`. As in db_bench, the call is one latency sample and `ops` operations.
    pub fn finished_ops(&mut self, latency: Duration, ops: u64, bytes: u64) {
        self.done += ops;
        self.bytes += bytes;
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX).max(1);
        self.latency_ns.saturating_record(ns);
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
        self.elapsed = Some(self.start.elapsed());
    }

    fn elapsed_secs(&self) -> f64 {
        self.elapsed
            .unwrap_or_else(|| self.start.elapsed())
            .as_secs_f64()
            .max(1e-9)
    }

    /// db_bench's result line:
    /// `name : X micros/op Y ops/sec Z seconds N operations; M MB/s (found of total found)`.
    pub fn result_line(&self, name: &str) -> String {
        let done = self.done.max(1);
        let elapsed = self.elapsed_secs();
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
            elapsed * 1e6 / done as f64,
            (done as f64 / elapsed) as u64,
            elapsed,
            done,
            if extra.is_empty() { "" } else { " " },
            extra
        )
    }

    /// Latency percentiles in microseconds, a line db_bench prints only with --histogram. One
    /// sample per call: per batch for batched writes, per multi-get for multireadrandom.
    pub fn percentile_line(&self) -> String {
        let us = |q: f64| self.latency_ns.value_at_quantile(q) as f64 / 1000.0;
        format!(
            "Percentiles (us): P50: {:.2} P99: {:.2} P99.9: {:.2} P99.99: {:.2} Max: {:.2}",
            us(0.5),
            us(0.99),
            us(0.999),
            us(0.9999),
            self.latency_ns.max() as f64 / 1000.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_line_has_db_bench_shape() {
        let mut s = Stats::start();
        for _ in 0..10 {
            s.finished_op(Duration::from_micros(3), 116);
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
        assert!(
            s.percentile_line().contains("P99.9: 3.00"),
            "{}",
            s.percentile_line()
        );
    }

    #[test]
    fn batched_calls_count_every_operation_and_notes_follow_the_rate() {
        let mut s = Stats::start();
        for _ in 0..3 {
            s.finished_ops(Duration::from_micros(40), 8, 8 * 116);
        }
        s.add_message("(20 ops)");
        s.set_found(5, 24);
        s.stop();
        let line = s.result_line("fillsync");
        assert!(line.contains(" 24 operations; "), "{line}");
        assert!(line.ends_with(" MB/s (20 ops) (5 of 24 found)"), "{line}");
        // One latency sample per call, not per operation.
        assert_eq!(s.latency_ns.len(), 3);
        assert!(
            s.percentile_line().contains("P50: 40.0"),
            "{}",
            s.percentile_line()
        );
    }
}
