//! Write control: how fast writes are admitted while compaction owes work.
//!
//! RocksDB slows writes in steps (full speed, then `delayed_write_rate` the moment L0 reaches
//! `level0_slowdown_writes_trigger` or pending compaction bytes reach the soft limit, then a hard
//! stop) and its users see the steps as stalls of seconds to minutes. CairnDB keeps RocksDB's
//! option names but reads them as points on one continuous curve:
//!
//! - **Pressure** `x` is how far the worst cause has gone from where slowing starts (`x = 0`)
//!   to where writes stop (`x = 1`): L0 files between `level0_slowdown_writes_trigger` and
//!   `level0_stop_writes_trigger`, pending compaction bytes between
//!   `soft_pending_compaction_bytes_limit` and `hard_pending_compaction_bytes_limit`.
//! - **Admitted rate** `r(x) = delayed_write_rate · (1 − x) / x`: unbounded as `x → 0` (no
//!   step when slowing starts), exactly `delayed_write_rate` half way, falling to zero at the
//!   stop point. One more L0 file moves the rate by a factor near `1 ± 1/span`, not from
//!   "unlimited" to 16 MiB/s.
//! - Writes are admitted through a token bucket at that rate: a write of `n` bytes may start
//!   once the bucket has paid for the writes before it, so a burst is spread out instead of
//!   stopped, and the delay each write sees is small and smooth.
//!
//! Who calls it: the commit leader, under the state lock, with the debt of every column family;
//! it sleeps the returned delay with the lock released. Pure apart from the clock it is handed.
//!
//! Invariants:
//! 1. `pressure` is 0 below both start points and 1 at or past either stop point, and never
//!    decreases when any debt grows.
//! 2. The admitted rate is unbounded at zero pressure, zero at full pressure, and strictly
//!    decreasing in between.
//! 3. The delays handed out add up to at most the bytes admitted divided by the rate in force
//!    when each was admitted (no write waits for another write's share twice).

use std::time::{Duration, Instant};

use crate::options::{CfOptions, DbOptions};

/// What compaction owes in one column family.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Debt {
    /// Files in L0.
    pub l0_files: u32,
    /// Estimated bytes compaction must rewrite to bring every level within its target.
    pub pending_compaction_bytes: u64,
}

/// Why writes are slowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cause {
    /// Too many L0 files.
    L0Files,
    /// Too many pending compaction bytes.
    PendingCompactionBytes,
}

impl Cause {
    /// The name used in statistics.
    pub fn name(self) -> &'static str {
        match self {
            Cause::L0Files => "l0-files",
            Cause::PendingCompactionBytes => "pending-compaction-bytes",
        }
    }
}

/// The thresholds of one column family, from its options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// `level0_slowdown_writes_trigger`.
    pub l0_slowdown: u32,
    /// `level0_stop_writes_trigger`.
    pub l0_stop: u32,
    /// `soft_pending_compaction_bytes_limit` (0: no limit).
    pub soft_pending: u64,
    /// `hard_pending_compaction_bytes_limit` (0: no limit).
    pub hard_pending: u64,
}

impl Thresholds {
    /// The thresholds `cf` sets.
    pub fn of(cf: &CfOptions) -> Thresholds {
        Thresholds {
            l0_slowdown: cf.level0_slowdown_writes_trigger,
            l0_stop: cf.level0_stop_writes_trigger,
            soft_pending: cf.soft_pending_compaction_bytes_limit,
            hard_pending: cf.hard_pending_compaction_bytes_limit,
        }
    }
}

/// How close a column family is to stopping writes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pressure {
    /// 0: no slowing; 1: writes stop.
    pub x: f64,
    /// The cause with the highest pressure, when `x > 0`.
    pub cause: Option<Cause>,
}

impl Pressure {
    /// No pressure.
    pub const NONE: Pressure = Pressure {
        x: 0.0,
        cause: None,
    };

    /// The larger of two pressures.
    #[must_use]
    pub fn max(self, other: Pressure) -> Pressure {
        if other.x > self.x {
            other
        } else {
            self
        }
    }
}

/// The pressure `debt` puts on writes under `t` (invariant 1). L0 counts from the slowdown
/// trigger (one file at the trigger already slows a little) to the stop trigger; pending bytes
/// from the soft to the hard limit (a hard limit of 0 means none: the pressure then approaches
/// but never reaches 1 as the debt doubles and doubles again past the soft limit).
pub fn pressure(debt: Debt, t: Thresholds) -> Pressure {
    let l0 = if debt.l0_files >= t.l0_stop {
        1.0
    } else if debt.l0_files >= t.l0_slowdown {
        let span = f64::from(t.l0_stop - t.l0_slowdown) + 1.0;
        (f64::from(debt.l0_files - t.l0_slowdown) + 1.0) / span
    } else {
        0.0
    };
    let pending = debt.pending_compaction_bytes;
    let bytes = match (t.soft_pending, t.hard_pending) {
        (_, hard) if hard > 0 && pending >= hard => 1.0,
        (soft, _) if soft == 0 || pending <= soft => 0.0,
        (soft, 0) => 1.0 - soft as f64 / pending as f64,
        (soft, hard) => (pending - soft) as f64 / (hard - soft) as f64,
    };
    let l0 = Pressure {
        x: l0,
        cause: (l0 > 0.0).then_some(Cause::L0Files),
    };
    let bytes = Pressure {
        x: bytes,
        cause: (bytes > 0.0).then_some(Cause::PendingCompactionBytes),
    };
    l0.max(bytes)
}

/// Bytes per second admitted at pressure `x` (invariant 2): `None` for no limit, `Some(0.0)`
/// for stopped.
pub fn admitted_rate(x: f64, delayed_write_rate: u64) -> Option<f64> {
    if x <= 0.0 {
        None
    } else if x >= 1.0 {
        Some(0.0)
    } else {
        Some(delayed_write_rate as f64 * (1.0 - x) / x)
    }
}

/// What the controller decided for one write.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Admission {
    /// Write now.
    Now,
    /// Sleep this long, then write.
    After(Duration, Cause),
    /// Writes are stopped: wait for compaction to reduce the debt, then ask again.
    Stopped(Cause),
}

/// Longest single delay handed out; a write that would wait longer asks again after it, so a
/// debt that clears early lets it go early.
const MAX_DELAY: Duration = Duration::from_millis(100);

/// The token bucket and its statistics. One per database (writes of every family share the
/// WAL and the commit queue, so they share the admission rate, set by the family under the
/// most pressure).
#[derive(Debug)]
pub struct WriteController {
    delayed_write_rate: u64,
    pressure: Pressure,
    /// When the bucket has paid for every write admitted so far.
    paid_until: Option<Instant>,
    /// Total delay and stop counts by cause, for statistics.
    delayed: [(Duration, u64); 2],
    stopped: [u64; 2],
}

fn slot(c: Cause) -> usize {
    match c {
        Cause::L0Files => 0,
        Cause::PendingCompactionBytes => 1,
    }
}

impl WriteController {
    /// A controller for `db`'s `delayed_write_rate`, with no pressure.
    pub fn new(db: &DbOptions) -> WriteController {
        WriteController {
            delayed_write_rate: db.effective_delayed_write_rate(),
            pressure: Pressure::NONE,
            paid_until: None,
            delayed: [(Duration::ZERO, 0); 2],
            stopped: [0; 2],
        }
    }

    /// Changes `delayed_write_rate` (`Db::set_db_options`), from the next admission on.
    pub fn set_delayed_write_rate(&mut self, rate: u64) {
        self.delayed_write_rate = rate;
    }

    /// Sets the pressure (recomputed when a flush or compaction changes a version).
    pub fn set_pressure(&mut self, p: Pressure) {
        if p.x <= 0.0 {
            self.paid_until = None;
        }
        self.pressure = p;
    }

    /// The pressure in force.
    pub fn pressure(&self) -> Pressure {
        self.pressure
    }

    /// The rate in force, `None` when unlimited.
    pub fn rate(&self) -> Option<f64> {
        admitted_rate(self.pressure.x, self.delayed_write_rate)
    }

    /// Decides when a write of `bytes` may go, at time `now` (invariant 3).
    pub fn admit(&mut self, bytes: u64, now: Instant) -> Admission {
        let Some(cause) = self.pressure.cause else {
            return Admission::Now;
        };
        let rate = self.rate().unwrap_or(f64::INFINITY);
        if rate <= 0.0 {
            self.stopped[slot(cause)] += 1;
            return Admission::Stopped(cause);
        }
        let start = self.paid_until.map_or(now, |p| p.max(now));
        let cost = Duration::from_secs_f64(bytes as f64 / rate);
        let delay = start.saturating_duration_since(now);
        if delay > MAX_DELAY {
            // Do not reserve: ask again after waiting.
            self.record(cause, MAX_DELAY);
            return Admission::After(MAX_DELAY, cause);
        }
        self.paid_until = Some(start + cost);
        if delay.is_zero() {
            return Admission::Now;
        }
        self.record(cause, delay);
        Admission::After(delay, cause)
    }

    fn record(&mut self, cause: Cause, d: Duration) {
        let s = &mut self.delayed[slot(cause)];
        s.0 += d;
        s.1 += 1;
    }

    /// Total delay handed out and the number of delayed writes, for `cause`.
    pub fn delayed(&self, cause: Cause) -> (Duration, u64) {
        self.delayed[slot(cause)]
    }

    /// Times a write found writes stopped, for `cause`.
    pub fn stops(&self, cause: Cause) -> u64 {
        self.stopped[slot(cause)]
    }
}

/// The LOG line for a change of the write-control state from `old` to `new` pressure, in
/// RocksDB's words ("Stalling writes because we have 22 level-0 files rate 16777216"); `None`
/// when nothing a reader of the LOG would care about changed (same cause, same rate). `cf` and
/// `debt` are the family under the most pressure, `rate` the admitted bytes per second.
pub fn stall_log_line(
    old: Pressure,
    new: Pressure,
    cf: &str,
    debt: Debt,
    rate: Option<f64>,
) -> Option<String> {
    if old.cause == new.cause && (old.x - new.x).abs() < f64::EPSILON {
        return None;
    }
    let Some(cause) = new.cause else {
        return Some("Write stall cleared: writes run at full speed again".to_string());
    };
    let what = match cause {
        Cause::L0Files => format!("we have {} level-0 files", debt.l0_files),
        Cause::PendingCompactionBytes => format!(
            "of estimated pending compaction bytes {}",
            debt.pending_compaction_bytes
        ),
    };
    Some(match rate {
        Some(r) if r > 0.0 => {
            format!("[{cf}] Stalling writes because {what} rate {}", r as u64)
        }
        _ => format!("[{cf}] Stopping writes because {what}"),
    })
}

/// The LOG line for a writer that waits because every memtable of `cf` is in use (RocksDB's
/// memtable-limit stop).
pub fn memtable_stall_log_line(cf: &str, immutable: usize, max_write_buffer_number: u32) -> String {
    format!(
        "[{cf}] Stopping writes because we have {immutable} immutable memtables (waiting for \
         flush), max_write_buffer_number is set to {max_write_buffer_number}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn defaults() -> Thresholds {
        Thresholds::of(&CfOptions::default())
    }

    #[test]
    fn pressure_starts_at_the_slowdown_trigger_and_is_full_at_the_stop_trigger() {
        let t = defaults();
        let at = |l0| {
            pressure(
                Debt {
                    l0_files: l0,
                    pending_compaction_bytes: 0,
                },
                t,
            )
        };
        assert_eq!(at(0), Pressure::NONE);
        assert_eq!(at(t.l0_slowdown - 1), Pressure::NONE);
        let first = at(t.l0_slowdown);
        assert!(first.x > 0.0 && first.x < 0.1, "{first:?}");
        assert_eq!(first.cause, Some(Cause::L0Files));
        assert_eq!(at(t.l0_stop).x, 1.0);
        assert_eq!(at(t.l0_stop + 5).x, 1.0);
    }

    #[test]
    fn pending_bytes_pressure_between_soft_and_hard_and_without_a_hard_limit() {
        let t = defaults();
        let at = |b| {
            pressure(
                Debt {
                    l0_files: 0,
                    pending_compaction_bytes: b,
                },
                t,
            )
        };
        assert_eq!(at(t.soft_pending), Pressure::NONE);
        let mid = at((t.soft_pending + t.hard_pending) / 2);
        assert!((mid.x - 0.5).abs() < 1e-9);
        assert_eq!(mid.cause, Some(Cause::PendingCompactionBytes));
        assert_eq!(at(t.hard_pending).x, 1.0);
        let open = Thresholds {
            hard_pending: 0,
            ..t
        };
        let p = |b| {
            pressure(
                Debt {
                    l0_files: 0,
                    pending_compaction_bytes: b,
                },
                open,
            )
            .x
        };
        assert!((p(2 * t.soft_pending) - 0.5).abs() < 1e-9);
        assert!(p(1000 * t.soft_pending) < 1.0);
        let off = Thresholds {
            soft_pending: 0,
            hard_pending: 0,
            ..t
        };
        assert_eq!(
            pressure(
                Debt {
                    l0_files: 0,
                    pending_compaction_bytes: u64::MAX
                },
                off
            ),
            Pressure::NONE
        );
    }

    #[test]
    fn stall_lines_name_the_cause_and_the_rate() {
        let debt = Debt {
            l0_files: 22,
            pending_compaction_bytes: 5 << 30,
        };
        let l0 = Pressure {
            x: 0.5,
            cause: Some(Cause::L0Files),
        };
        let line = stall_log_line(Pressure::NONE, l0, "default", debt, Some(16e6)).unwrap();
        assert_eq!(
            line,
            "[default] Stalling writes because we have 22 level-0 files rate 16000000"
        );
        assert_eq!(stall_log_line(l0, l0, "default", debt, Some(16e6)), None);
        let stop = Pressure {
            x: 1.0,
            cause: Some(Cause::PendingCompactionBytes),
        };
        let line = stall_log_line(l0, stop, "cf1", debt, Some(0.0)).unwrap();
        assert_eq!(
            line,
            "[cf1] Stopping writes because of estimated pending compaction bytes 5368709120"
        );
        let cleared = stall_log_line(stop, Pressure::NONE, "cf1", debt, None).unwrap();
        assert!(cleared.contains("cleared"), "{cleared}");
        assert!(memtable_stall_log_line("default", 3, 4).contains("3 immutable memtables"));
    }

    #[test]
    fn the_rate_has_no_step_where_slowing_starts() {
        let dwr = 16 << 20;
        assert_eq!(admitted_rate(0.0, dwr), None);
        assert_eq!(admitted_rate(1.0, dwr), Some(0.0));
        assert_eq!(admitted_rate(0.5, dwr), Some(dwr as f64));
        // Just past the start the limit is far above any disk's write rate.
        assert!(admitted_rate(0.001, dwr).expect("limited") > 900.0 * dwr as f64);
        // RocksDB's first step goes from unlimited to `delayed_write_rate`; one more L0 file
        // past the trigger here changes the rate by at most a factor of 2.2 (the largest step is the
        // last one before the stop).
        let t = defaults();
        let rate = |l0| {
            let x = pressure(
                Debt {
                    l0_files: l0,
                    pending_compaction_bytes: 0,
                },
                t,
            )
            .x;
            admitted_rate(x, dwr).expect("limited")
        };
        for l0 in t.l0_slowdown + 1..t.l0_stop - 1 {
            let (a, b) = (rate(l0), rate(l0 + 1));
            assert!(b < a && a / b < 2.2, "{l0}: {a} -> {b}");
        }
    }

    #[test]
    fn the_bucket_spreads_a_burst_at_the_rate() {
        let mut c = WriteController::new(&DbOptions {
            delayed_write_rate: 1 << 20,
            ..DbOptions::default()
        });
        let now = Instant::now();
        assert_eq!(c.admit(1 << 20, now), Admission::Now);
        c.set_pressure(Pressure {
            x: 0.5,
            cause: Some(Cause::L0Files),
        });
        // 1 MiB/s: the first 64 KiB goes now, each next one 62.5 ms after the previous.
        assert_eq!(c.admit(64 << 10, now), Admission::Now);
        match c.admit(64 << 10, now) {
            Admission::After(d, Cause::L0Files) => {
                assert!((d.as_secs_f64() - 0.0625).abs() < 1e-6, "{d:?}")
            }
            other => panic!("{other:?}"),
        }
        // A write that would wait past the cap waits the cap and asks again.
        match c.admit(64 << 10, now) {
            Admission::After(d, _) => assert!(d <= MAX_DELAY),
            other => panic!("{other:?}"),
        }
        let (total, n) = c.delayed(Cause::L0Files);
        assert_eq!(n, 2);
        assert!(total > Duration::ZERO);
        c.set_pressure(Pressure {
            x: 1.0,
            cause: Some(Cause::L0Files),
        });
        assert_eq!(c.admit(1, now), Admission::Stopped(Cause::L0Files));
        assert_eq!(c.stops(Cause::L0Files), 1);
        c.set_pressure(Pressure::NONE);
        assert_eq!(c.admit(1 << 30, now), Admission::Now);
    }

    proptest! {
        /// Invariant 1: more debt never means less pressure.
        #[test]
        fn pressure_is_monotone(
            l0 in 0u32..60, more_l0 in 0u32..10,
            bytes in 0u64..(400u64 << 30), more_bytes in 0u64..(100u64 << 30),
        ) {
            let t = defaults();
            let a = pressure(Debt { l0_files: l0, pending_compaction_bytes: bytes }, t).x;
            let b = pressure(Debt {
                l0_files: l0 + more_l0,
                pending_compaction_bytes: bytes + more_bytes,
            }, t).x;
            prop_assert!((0.0..=1.0).contains(&a));
            prop_assert!(b >= a);
        }

        /// Invariant 3: back-to-back writes at a steady pressure start exactly when the bucket
        /// has paid for the ones before them: the last starts after (all but its bytes) / rate.
        #[test]
        fn delays_pay_for_the_bytes(sizes in proptest::collection::vec(1u64..2_000_000, 1..50)) {
            let mut c = WriteController::new(&DbOptions::default());
            c.set_pressure(Pressure { x: 0.5, cause: Some(Cause::L0Files) });
            let rate = c.rate().expect("limited");
            let start = Instant::now();
            let mut now = start;
            for &n in &sizes {
                loop {
                    match c.admit(n, now) {
                        Admission::Now => break,
                        Admission::After(d, _) => {
                            now += d;
                            if d < MAX_DELAY {
                                break;
                            }
                        }
                        Admission::Stopped(_) => prop_assert!(false, "stopped at x = 0.5"),
                    }
                }
            }
            let before_last: u64 = sizes[..sizes.len() - 1].iter().sum();
            let expected = before_last as f64 / rate;
            let waited = (now - start).as_secs_f64();
            prop_assert!((waited - expected).abs() < 1e-3, "waited {waited}, expected {expected}");
        }
    }
}
