//! The compaction backlog controller: paces compactions at the rate the write load needs, instead of letting them run in bursts that take the cores from the writers.
//!
//! Without it, compaction runs as fast as the machine allows whenever a level is over its
//! target, then idles: on a 2-core machine with four writers the per-second write throughput
//! alternated between about 420k and 240k (a coefficient of variation of 0.22), and a fixed
//! `rate_limiter_bytes_per_sec` just above the need halved that variation but must be tuned by
//! hand for every load. The controller sets the rate of the database's rate limiter once a
//! second from what it measures, in the spirit of ScyllaDB's backlog controller (compaction's
//! share follows the backlog, which then stays level rather than at zero):
//!
//! - **Demand** (feed-forward): the user bytes written per second (an exponential average over
//!   about 10 s) times the compaction bytes the limiter charged per user byte (decayed sums
//!   over about 60 s). That is the rate that keeps pace with the writes at the tree's own
//!   write amplification.
//! - **Flushes are not paced**: a controlled limiter does not charge them. A flush held at the
//!   paced rate keeps a full memtable waiting, and writes stall behind it (measured: one
//!   0.35 s memtable-limit stall in two minutes of four writers when flushes were charged).
//! - **Correction** (feedback): pending compaction bytes (averaged over about 20 s) above an
//!   allowance (each family's
//!   `write_buffer_size × level0_file_num_compaction_trigger`, one L0 compaction's worth) are
//!   paid off over 30 s. The demand estimate falls when compaction lags (less is charged), so
//!   without this term an under-paced tree would slow itself further; with it the debt settles
//!   where the rate matches the need.
//! - **Urgency**: when any family's L0 reaches twice its compaction trigger (or its slowdown
//!   trigger, if lower), or its pending bytes reach half the soft limit, the rate goes to the
//!   ceiling at once: the write controller (`write_control.rs`) would soon slow writes, which
//!   costs more than a burst.
//! - **Warm-up**: for the first 10 ticks the rate stays at the ceiling, while the averages fill
//!   (a controller that paced from the first second, on an amplification measured over a
//!   second or two, fell to the floor and then had to rush an L0 pile-up).
//! - **Smoothing**: outside urgency the rate moves at most ×1.25 up or ×0.8 down per tick, and
//!   stays between 1/20 of the ceiling (RocksDB's auto-tuned range) and the ceiling.
//!
//! Turned on per limiter: [`crate::options::RateLimiter::backlog_controlled`], which charges
//! compaction reads and writes (compaction's CPU follows both: charging writes alone left the
//! per-second write throughput varying almost as much as with no limiter, since a job that
//! drops most of what it reads costs more per byte written). The limiter's rate when the
//! database opens is the ceiling; `set_db_options("rate_limiter_bytes_per_sec")`
//! moves the ceiling. The rate the controller sets is the limiter's
//! [`crate::options::RateLimiter::bytes_per_second`]; at close the ceiling is restored.
//!
//! Each tick writes a DEBUG line to the LOG with the rate and its inputs.
//!
//! Who calls it: the `cairndb-backlog` thread, once a second, with a [`Sample`] taken under the
//! state lock (`DbInner::backlog_sample`); `dynamic_options.rs` for the ceiling.
//!
//! Invariants:
//! 1. The rate handed out is always within `[ceiling / 20, ceiling]` (at least 1).
//! 2. Under urgency and during warm-up the rate is the ceiling; otherwise it differs from the previous rate by at
//!    most the slew bounds (or by a clamp into the range of invariant 1, when the ceiling
//!    moved).
//! 3. The controller is a pure function of the samples and the times between them
//!    ([`BacklogController::tick`]); tests drive it with explicit samples.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::DbInner;
use crate::options::InfoLogLevel;
use crate::rate_limiter::IoPriority;

/// How often the controller sets the rate.
pub(super) const TICK: Duration = Duration::from_secs(1);
/// Time constant of the ingest-rate average, seconds.
const INGEST_TAU: f64 = 10.0;
/// Time constant of the amplification estimate, seconds.
const AMP_TAU: f64 = 60.0;
/// Pending bytes above the allowance are paid off over this many seconds.
const DEBT_PAYOFF_SECS: f64 = 30.0;
/// Time constant of the pending-bytes average, seconds: the estimate jumps by a whole L0
/// compaction's input each time L0 reaches its trigger and falls back when that compaction
/// installs, and a rate that followed those jumps swung by a quarter every second.
const PENDING_TAU: f64 = 20.0;
/// Headroom over the measured demand.
const HEADROOM: f64 = 1.1;
/// Largest rise and fall of the rate per tick (invariant 2).
const MAX_RISE: f64 = 1.25;
const MAX_FALL: f64 = 0.8;
/// Ticks at the ceiling before the controller paces.
const WARMUP_TICKS: u32 = 10;
/// The lowest rate is the ceiling divided by this (RocksDB's auto-tuned range factor).
const RANGE_FACTOR: u64 = 20;

/// What the controller reads at a tick: cumulative counters and the debt now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Sample {
    /// User bytes written since open.
    pub(super) ingested: u64,
    /// Bytes the rate limiter charged since the controller started (compactions: flushes are
    /// not charged to a controlled limiter).
    pub(super) charged: u64,
    /// Pending compaction bytes over every family.
    pub(super) pending: u64,
    /// Pending bytes the tree may carry without correction (see the module contract).
    pub(super) allowance: u64,
    /// Some family's L0 or pending bytes are near the point where writes slow.
    pub(super) urgent: bool,
}

/// The controller's state. See the module contract.
#[derive(Debug)]
pub(super) struct BacklogController {
    ceiling: u64,
    rate: u64,
    last: Option<Sample>,
    /// User bytes per second, averaged.
    ingest_rate: f64,
    /// Pending compaction bytes, averaged.
    pending: f64,
    /// Ticks so far.
    ticks: u32,
    /// Decayed sums of user bytes and charged bytes; their ratio is the amplification.
    decayed_ingest: f64,
    decayed_charged: f64,
}

impl BacklogController {
    /// A controller that starts at `ceiling` (at least 1).
    pub(super) fn new(ceiling: u64) -> Self {
        let ceiling = ceiling.max(1);
        BacklogController {
            ceiling,
            rate: ceiling,
            last: None,
            ingest_rate: 0.0,
            pending: 0.0,
            ticks: 0,
            decayed_ingest: 0.0,
            decayed_charged: 0.0,
        }
    }

    /// The highest rate, which the controller restores when the database closes.
    pub(super) fn ceiling(&self) -> u64 {
        self.ceiling
    }

    /// Moves the ceiling (`set_db_options`); the rate is clamped into the new range at once.
    pub(super) fn set_ceiling(&mut self, ceiling: u64) -> u64 {
        self.ceiling = ceiling.max(1);
        self.rate = self.rate.clamp(self.floor(), self.ceiling);
        self.rate
    }

    /// Compaction bytes charged per user byte, over the decayed sums (0 before any write).
    fn amp(&self) -> f64 {
        if self.decayed_ingest > 0.0 {
            self.decayed_charged / self.decayed_ingest
        } else {
            0.0
        }
    }

    /// One LOG line: the rate and what it came from.
    fn describe(&self, sample: &Sample) -> String {
        let amp = self.amp();
        format!(
            "backlog control: rate {:.1} MB/s (ceiling {:.1}); ingest {:.1} MB/s x {amp:.2} \
             charged per byte; pending {:.1} MB, averaged {:.1} (allowance {:.1}){}",
            self.rate as f64 / 1e6,
            self.ceiling as f64 / 1e6,
            self.ingest_rate / 1e6,
            sample.pending as f64 / 1e6,
            self.pending / 1e6,
            sample.allowance as f64 / 1e6,
            if sample.urgent { "; urgent" } else { "" }
        )
    }

    fn floor(&self) -> u64 {
        (self.ceiling / RANGE_FACTOR).max(1)
    }

    /// The rate to set after `elapsed` since the previous tick, given `sample` (invariants 1
    /// and 2). The first tick only records the sample.
    pub(super) fn tick(&mut self, elapsed: Duration, sample: Sample) -> u64 {
        let Some(prev) = self.last.replace(sample) else {
            return self.rate;
        };
        let dt = elapsed.as_secs_f64().max(1e-3);
        let ingested = sample.ingested.saturating_sub(prev.ingested) as f64;
        let charged = sample.charged.saturating_sub(prev.charged) as f64;
        self.ingest_rate += (ingested / dt - self.ingest_rate) * (1.0 - (-dt / INGEST_TAU).exp());
        self.pending += (sample.pending as f64 - self.pending) * (1.0 - (-dt / PENDING_TAU).exp());
        let keep = (-dt / AMP_TAU).exp();
        self.decayed_ingest = self.decayed_ingest * keep + ingested;
        self.decayed_charged = self.decayed_charged * keep + charged;
        self.ticks = self.ticks.saturating_add(1);
        if sample.urgent || self.ticks < WARMUP_TICKS {
            self.rate = self.ceiling;
            return self.rate;
        }
        let amp = self.amp();
        let excess = (self.pending - sample.allowance as f64).max(0.0);
        let target = self.ingest_rate * amp * HEADROOM + excess / DEBT_PAYOFF_SECS;
        let current = self.rate as f64;
        let next = target.clamp(current * MAX_FALL, current * MAX_RISE);
        self.rate = (next as u64).clamp(self.floor(), self.ceiling);
        self.rate
    }
}

impl DbInner {
    /// The controller's sample: the database-wide counters and every family's debt. Takes the
    /// state lock.
    fn backlog_sample(&self, charged: u64) -> Sample {
        let ingested = self.counters.snapshot(Duration::ZERO).bytes;
        let st = self.state.lock();
        let mut sample = Sample {
            ingested,
            charged,
            ..Sample::default()
        };
        for (cf, debt) in super::compact::family_debts(&st) {
            let opts = &cf.options;
            let l0 = debt.l0_files;
            let pending = debt.pending_compaction_bytes;
            let trigger = opts.level0_file_num_compaction_trigger.max(1);
            let l0_urgent_at = trigger
                .saturating_mul(2)
                .min(opts.level0_slowdown_writes_trigger.max(trigger + 1));
            let soft = opts.soft_pending_compaction_bytes_limit;
            sample.urgent |= l0 >= l0_urgent_at || (soft > 0 && pending >= soft / 2);
            sample.pending = sample.pending.saturating_add(pending);
            sample.allowance = sample
                .allowance
                .saturating_add((opts.write_buffer_size as u64).saturating_mul(u64::from(trigger)));
        }
        sample
    }

    /// Moves the controller's ceiling and sets the limiter's rate it implies.
    pub(super) fn set_backlog_ceiling(&self, ceiling: u64) -> bool {
        let (Some(control), Some(limiter)) = (&self.backlog, &self.options.db.rate_limiter) else {
            return false;
        };
        let rate = control.lock().set_ceiling(ceiling);
        // A positive rate: `set_bytes_per_second` cannot fail.
        let _ = limiter.set_bytes_per_second(rate);
        true
    }
}

/// The thread that ticks the controller until close, when the database's rate limiter asked
/// for backlog control; none otherwise. At close it restores the limiter's rate to the
/// ceiling and releases the limiter for another database.
pub(super) fn spawn_backlog_controller(
    inner: &Arc<DbInner>,
) -> crate::Result<Option<std::thread::JoinHandle<()>>> {
    let (Some(_), Some(limiter)) = (&inner.backlog, &inner.options.db.rate_limiter) else {
        return Ok(None);
    };
    let limiter = Arc::clone(limiter);
    let inner = Arc::clone(inner);
    let charged = move |l: &crate::options::RateLimiter| {
        l.total_bytes_through(IoPriority::High) + l.total_bytes_through(IoPriority::Low)
    };
    std::thread::Builder::new()
        .name("cairndb-backlog".to_string())
        .spawn(move || {
            let control = inner.backlog.as_ref().expect("checked above");
            let base = charged(&limiter);
            let mut last = Instant::now();
            loop {
                {
                    let mut st = inner.state.lock();
                    loop {
                        if inner.closed.load(Ordering::Acquire) {
                            drop(st);
                            let _ = limiter.set_bytes_per_second(control.lock().ceiling());
                            limiter.release_backlog_control();
                            return;
                        }
                        let now = Instant::now();
                        if now >= last + TICK {
                            break;
                        }
                        // Woken early by close (and by other background events, which only
                        // make it look again).
                        let _ = inner.bg_cond.wait_for(&mut st, last + TICK - now);
                    }
                }
                let now = Instant::now();
                let sample = inner.backlog_sample(charged(&limiter) - base);
                let (rate, line) = {
                    let mut c = control.lock();
                    let rate = c.tick(now - last, sample);
                    (rate, c.describe(&sample))
                };
                last = now;
                let _ = limiter.set_bytes_per_second(rate);
                inner.info_log.log(InfoLogLevel::Debug, &line);
            }
        })
        .map(Some)
        .map_err(|e| crate::Error::io("spawn", "backlog controller thread", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MB: u64 = 1 << 20;
    const SEC: Duration = Duration::from_secs(1);

    /// Feeds `secs` ticks of a steady load: `ingest` user bytes and `charged` limiter bytes per
    /// second, with the given debt; returns the rates handed out.
    fn run(
        c: &mut BacklogController,
        base: &mut Sample,
        secs: usize,
        ingest: u64,
        charged: u64,
        pending: u64,
    ) -> Vec<u64> {
        (0..secs)
            .map(|_| {
                base.ingested += ingest;
                base.charged += charged;
                base.pending = pending;
                c.tick(SEC, *base)
            })
            .collect()
    }

    fn start(ceiling: u64) -> (BacklogController, Sample) {
        let mut c = BacklogController::new(ceiling);
        let s = Sample {
            allowance: 256 * MB,
            ..Sample::default()
        };
        assert_eq!(c.tick(SEC, s), ceiling, "the first tick only records");
        (c, s)
    }

    #[test]
    fn a_steady_load_settles_near_its_demand_with_headroom() {
        let (mut c, mut s) = start(1000 * MB);
        // 40 MB/s of writes at an amplification of 3: 120 MB/s of background writes.
        let rates = run(&mut c, &mut s, 300, 40 * MB, 120 * MB, 0);
        let last = *rates.last().unwrap() as f64 / MB as f64;
        assert!((120.0..=140.0).contains(&last), "settled at {last} MB/s");
        for w in rates.windows(2) {
            let ratio = w[1] as f64 / w[0] as f64;
            assert!(
                (MAX_FALL - 1e-3..=MAX_RISE + 1e-3).contains(&ratio),
                "{ratio}"
            );
        }
    }

    #[test]
    fn debt_above_the_allowance_raises_the_rate_and_urgency_goes_to_the_ceiling() {
        let (mut c, mut s) = start(1000 * MB);
        let calm = *run(&mut c, &mut s, 300, 40 * MB, 120 * MB, 0)
            .last()
            .unwrap();
        // 3 GB above the allowance adds about 100 MB/s.
        let indebted = *run(&mut c, &mut s, 60, 40 * MB, 120 * MB, 256 * MB + 3000 * MB)
            .last()
            .unwrap();
        assert!(indebted > calm + 80 * MB, "{calm} -> {indebted}");
        s.urgent = true;
        assert_eq!(
            run(&mut c, &mut s, 1, 40 * MB, 120 * MB, 0),
            vec![1000 * MB]
        );
        s.urgent = false;
        let after = run(&mut c, &mut s, 1, 40 * MB, 120 * MB, 0)[0];
        assert!(after < 1000 * MB && after >= (1000.0 * MAX_FALL) as u64 * MB - MB);
    }

    #[test]
    fn an_idle_database_falls_to_the_floor_and_the_ceiling_bounds_every_rate() {
        let (mut c, mut s) = start(1000 * MB);
        let rates = run(&mut c, &mut s, 120, 0, 0, 0);
        assert_eq!(*rates.last().unwrap(), 50 * MB, "ceiling / 20");
        assert!(rates.iter().all(|&r| (50 * MB..=1000 * MB).contains(&r)));
        // A lower ceiling clamps the rate at once; a higher one raises it only to its floor.
        assert_eq!(c.set_ceiling(20 * MB), 20 * MB);
        assert_eq!(c.set_ceiling(2000 * MB), 100 * MB);
        let rates = run(&mut c, &mut s, 60, 0, 0, 0);
        assert_eq!(*rates.last().unwrap(), 100 * MB, "the new floor");
    }

    #[test]
    fn an_underpaced_tree_is_caught_by_its_debt() {
        // Compaction lags: the limiter charges only 1x the ingest, but pending bytes grow.
        let (mut c, mut s) = start(1000 * MB);
        let mut pending = 0;
        let mut rates = Vec::new();
        for _ in 0..180 {
            pending += 20 * MB;
            rates.extend(run(&mut c, &mut s, 1, 40 * MB, 40 * MB, pending));
        }
        // Feed-forward alone would sit near 44 MB/s; the debt pushes the rate well past it.
        assert!(*rates.last().unwrap() > 100 * MB, "{:?}", &rates[170..]);
    }
}
