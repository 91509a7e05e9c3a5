//! Running one benchmark step on several threads, as db_bench's `RunBenchmark` does, and the
//! pieces each thread's loop uses: db_bench's `Duration` ([`OpBudget`]) and a write rate limiter.
//!
//! # Contract
//! - [`run_threads`] starts `n` threads in a [`std::thread::scope`], thread `i` (its `tid`)
//!   with its own [`Random64`] seeded `first_seed + i` (db_bench: `seed_base` plus the running
//!   count of benchmark threads, incremented before each thread is made). All threads wait on
//!   a barrier and start together; the step's origin instant is taken after it.
//! - Every thread's loop is independent; they share only what `ctx` shares (the engine, which
//!   is `Sync`) and a [`Shared`] with the number of finished threads (db_bench's `num_done`,
//!   which its background writer polls to stop with the readers).
//! - Each thread's CPU time (user + system) from its start to its stop is measured and summed
//!   into the step's results.
//! - A thread that fails still counts as finished, so a background writer cannot wait forever;
//!   the first error (in thread order) is returned after all threads have stopped.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use super::engine::Result;
use super::generator::Random64;
use super::metrics::thread_cpu_seconds;
use super::report::Stats;

/// db_bench's `--ops_between_duration_checks`: the clock is read once per this many operations.
const OPS_BETWEEN_DURATION_CHECKS: u64 = 1000;

/// db_bench's `Duration`: a loop runs until `max_seconds` have passed when it is non-zero (read
/// every [`OPS_BETWEEN_DURATION_CHECKS`] operations), otherwise for `max_ops` operations.
#[derive(Debug)]
pub struct OpBudget {
    max_seconds: u64,
    max_ops: u64,
    ops: u64,
    start: Instant,
}

impl OpBudget {
    /// A budget of `max_seconds` (0: none) or else `max_ops` operations.
    pub fn new(max_seconds: u64, max_ops: u64) -> Self {
        OpBudget {
            max_seconds,
            max_ops,
            ops: 0,
            start: Instant::now(),
        }
    }

    /// Counts `increment` operations about to be done (at least 1) and says whether the loop
    /// must stop instead (`Duration::Done`).
    pub fn done(&mut self, increment: u64) -> bool {
        let increment = increment.max(1);
        let prev = self.ops;
        self.ops += increment;
        if self.max_seconds > 0 {
            let crossed =
                self.ops / OPS_BETWEEN_DURATION_CHECKS != prev / OPS_BETWEEN_DURATION_CHECKS;
            if crossed && self.start.elapsed().as_secs() >= self.max_seconds {
                return true;
            }
            return false;
        }
        self.ops > self.max_ops
    }
}

/// A write rate limit in bytes per second (db_bench's `--benchmark_write_rate_limit`): each
/// request waits until the bytes granted so far fit the rate since the start. Unused rate is
/// kept for at most 100 ms (RocksDB's limiter refills every 100 ms), so a pause does not buy a
/// burst.
#[derive(Debug)]
pub struct RateLimiter {
    bytes_per_sec: u64,
    start: Instant,
    granted: u64,
}

impl RateLimiter {
    /// A limiter of `bytes_per_sec` (> 0).
    pub fn new(bytes_per_sec: u64) -> Self {
        RateLimiter {
            bytes_per_sec: bytes_per_sec.max(1),
            start: Instant::now(),
            granted: 0,
        }
    }

    /// Waits until `bytes` more may be written.
    pub fn request(&mut self, bytes: u64) {
        let elapsed = self.start.elapsed();
        let due = Duration::from_secs_f64(self.granted as f64 / self.bytes_per_sec as f64);
        if elapsed > due + Duration::from_millis(100) {
            // Idle for longer than a refill period: start over rather than burst.
            self.start = Instant::now() - Duration::from_millis(100);
            self.granted = self.bytes_per_sec / 10;
        }
        self.granted += bytes;
        let due = Duration::from_secs_f64(self.granted as f64 / self.bytes_per_sec as f64);
        let elapsed = self.start.elapsed();
        if due > elapsed {
            std::thread::sleep(due - elapsed);
        }
    }
}

/// What the threads of one step share besides the benchmark's own context.
#[derive(Debug)]
pub struct Shared {
    /// Threads in the step.
    pub threads: usize,
    /// Threads that have finished their loop (db_bench's `num_done`).
    pub done: AtomicUsize,
}

impl Shared {
    /// True when every other thread has finished (db_bench's background writer stops then).
    pub fn others_done(&self) -> bool {
        self.done.load(Ordering::Acquire) + 1 >= self.threads
    }
}

/// One benchmark thread (db_bench's `ThreadState`).
#[derive(Debug)]
pub struct ThreadState {
    /// Index in the step, from 0.
    pub tid: usize,
    /// The thread's generator.
    pub rng: Random64,
    /// The thread's results.
    pub stats: Stats,
    /// Kept out of the step's merged results (db_bench's `SetExcludeFromMerge`, used by the
    /// background writer of readwhilewriting).
    pub exclude_from_merge: bool,
}

/// The results of the threads of one step.
#[derive(Debug)]
pub struct StepStats {
    /// The merged results of the threads not excluded.
    pub merged: Stats,
    /// The merged results of the excluded threads (the background writer), if any.
    pub excluded: Option<Stats>,
    /// Threads run.
    pub threads: usize,
}

/// Runs `body` on `n` threads seeded `first_seed`, `first_seed + 1`, ... and merges their
/// results. `counter` receives every finished operation (for the reporter and progress bar).
///
/// # Errors
/// The first error a thread returned.
pub fn run_threads<F>(
    n: usize,
    first_seed: u64,
    counter: Option<Arc<AtomicU64>>,
    body: F,
) -> Result<StepStats>
where
    F: Fn(&mut ThreadState, &Shared) -> Result<()> + Sync,
{
    let n = n.max(1);
    let shared = Shared {
        threads: n,
        done: AtomicUsize::new(0),
    };
    let barrier = Barrier::new(n);
    let origin = Mutex::new(None::<Instant>);
    let results: Vec<(Result<()>, ThreadState)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .map(|tid| {
                let (shared, barrier, origin, body, counter) =
                    (&shared, &barrier, &origin, &body, counter.clone());
                let rng = Random64::new(first_seed.wrapping_add(tid as u64));
                scope.spawn(move || {
                    barrier.wait();
                    let start = *origin
                        .lock()
                        .expect("origin lock")
                        .get_or_insert_with(Instant::now);
                    let mut thread = ThreadState {
                        tid,
                        rng,
                        stats: Stats::start_at(start, counter),
                        exclude_from_merge: false,
                    };
                    let cpu_start = thread_cpu_seconds();
                    let result = body(&mut thread, shared);
                    thread.stats.stop();
                    if let Some((end, start)) = thread_cpu_seconds().zip(cpu_start) {
                        thread.stats.set_cpu_seconds((end - start).max(0.0));
                    }
                    shared.done.fetch_add(1, Ordering::AcqRel);
                    (result, thread)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut merged: Option<Stats> = None;
    let mut excluded: Option<Stats> = None;
    let mut first_error = None;
    for (result, thread) in results {
        if let Err(e) = result {
            first_error.get_or_insert(e);
        }
        let slot = if thread.exclude_from_merge {
            &mut excluded
        } else {
            &mut merged
        };
        match slot {
            Some(s) => s.merge(&thread.stats),
            None => *slot = Some(thread.stats),
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    Ok(StepStats {
        merged: merged.unwrap_or_else(|| {
            let mut s = Stats::start();
            s.stop();
            s
        }),
        excluded,
        threads: n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::report::OpKind;

    #[test]
    fn budget_counts_ops_or_runs_for_the_duration() {
        let mut b = OpBudget::new(0, 3);
        let runs = std::iter::from_fn(|| (!b.done(1)).then_some(())).count();
        assert_eq!(runs, 3);
        // Batches: Done(batch) stops once ops would pass max_ops: 10 ops in calls of 3 -> 3.
        let mut b = OpBudget::new(0, 10);
        let runs = std::iter::from_fn(|| (!b.done(3)).then_some(())).count();
        assert_eq!(runs, 3);
        // With a duration, the count is ignored and the clock decides.
        let mut b = OpBudget::new(1, 5);
        b.start -= Duration::from_secs(2);
        let runs = std::iter::from_fn(|| (!b.done(1)).then_some(())).count();
        assert_eq!(runs, 999, "stops at the first clock check, after 1000 ops");
        let mut b = OpBudget::new(3600, 5);
        assert!((0..5000).all(|_| !b.done(1)), "an hour has not passed");
    }

    #[test]
    fn threads_are_seeded_in_order_and_results_merge() {
        let step = run_threads(4, 100, None, |t, shared| {
            assert_eq!(shared.threads, 4);
            let expected = Random64::new(100 + t.tid as u64).next_u64();
            assert_eq!(t.rng.next_u64(), expected);
            for _ in 0..=t.tid {
                t.stats.finished_op(OpKind::Write, Instant::now(), 10);
            }
            Ok(())
        })
        .expect("run");
        assert_eq!(step.threads, 4);
        assert_eq!(step.merged.done(), 1 + 2 + 3 + 4);
        assert_eq!(step.merged.bytes(), 100);
        assert_eq!(step.merged.per_second().iter().sum::<u64>(), 10);
        assert!(step.excluded.is_none());
        assert!(
            step.merged.cpu_seconds().is_some(),
            "the threads' CPU was measured"
        );
    }

    #[test]
    fn excluded_thread_runs_until_the_others_finish_and_errors_surface() {
        let counter = Arc::new(AtomicU64::new(0));
        // The readers start once the writer has written, so that it has results to report.
        let wrote = std::sync::atomic::AtomicBool::new(false);
        let step = run_threads(3, 1, Some(counter.clone()), |t, shared| {
            if t.tid == 0 {
                t.exclude_from_merge = true;
                while !shared.others_done() {
                    t.stats.finished_op(OpKind::Write, Instant::now(), 0);
                    wrote.store(true, Ordering::Release);
                    std::thread::yield_now();
                }
            } else {
                while !wrote.load(Ordering::Acquire) {
                    std::thread::yield_now();
                }
                for _ in 0..50 {
                    t.stats.finished_op(OpKind::Read, Instant::now(), 0);
                }
            }
            Ok(())
        })
        .expect("run");
        assert_eq!(step.merged.done(), 100);
        let writer = step.excluded.expect("writer stats");
        assert!(writer.percentiles().contains_key(&OpKind::Write));
        assert!(!step.merged.percentiles().contains_key(&OpKind::Write));
        assert_eq!(counter.load(Ordering::Relaxed), 100 + writer.done());

        let err = run_threads(2, 1, None, |t, _| {
            if t.tid == 1 {
                Err(crate::bench::BenchError::Usage("boom".to_string()))
            } else {
                Ok(())
            }
        });
        assert!(matches!(err, Err(e) if e.to_string() == "boom"));
    }

    #[test]
    fn rate_limiter_spaces_requests() {
        let mut r = RateLimiter::new(1000);
        let t = Instant::now();
        for _ in 0..3 {
            r.request(100);
        }
        // 300 bytes at 1000 B/s take about 0.3 s; a behaviour check, not a timing threshold:
        // the limiter must have slept rather than returned at once.
        assert!(
            t.elapsed() >= Duration::from_millis(250),
            "{:?}",
            t.elapsed()
        );
    }
}
