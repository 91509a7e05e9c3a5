//! The harness every reliability suite (`tests/reliability_*.rs`) shares: seeds, volumes, time
//! boxes and the one `RELIABILITY ...` line each suite prints.
//!
//! Each suite has a minimum count (cases, cycles, runs or flips) at CI volume and a time box. A
//! suite that reaches its time box before its minimum count fails, so that a slowdown cannot
//! quietly shrink coverage. Environment:
//! - `CAIRN_RELIABILITY_SCALE=N` multiplies the minimum counts and the time boxes by N (10 for the
//!   on-demand large runs).
//! - `CAIRN_RELIABILITY_SEED=0x...` sets the suite seed (default: random, printed).
//! - `CAIRN_RELIABILITY_REPLAY=0x...` runs exactly one case with that case seed: every failure
//!   message names its case seed.
//!
//! Each suite file has a small test that `cargo test` runs and an `#[ignore]`d `full` test that
//! `scripts/reliability.sh` runs at CI volume.

#![allow(dead_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// How big a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Volume {
    /// The small run of `cargo test`: a fiftieth of the CI count, at least a few cases.
    Smoke,
    /// The CI volume, times `CAIRN_RELIABILITY_SCALE`.
    Full,
}

/// One suite run: its name, seed, target count and time box.
#[derive(Debug)]
pub struct Suite {
    /// The suite's name in its `RELIABILITY` line.
    pub name: &'static str,
    /// The suite seed; case `i` uses [`Suite::case_seed`]`(i)`.
    pub seed: u64,
    /// How many cases must run.
    pub min_count: u64,
    time_box: Duration,
    start: Instant,
    replay: Option<u64>,
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    let parsed = match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={v} is not a number")))
}

/// The volume multiplier, `CAIRN_RELIABILITY_SCALE` (default 1).
pub fn scale() -> u64 {
    env_u64("CAIRN_RELIABILITY_SCALE").unwrap_or(1).max(1)
}

/// A 64-bit mix (SplitMix64's finalizer), to derive case seeds.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Suite {
    /// A suite run of `ci_count` cases within `time_box_secs` at CI volume (both times the scale),
    /// or of a smoke volume.
    pub fn new(name: &'static str, volume: Volume, ci_count: u64, time_box_secs: u64) -> Suite {
        let seed = env_u64("CAIRN_RELIABILITY_SEED").unwrap_or_else(|| {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            mix(t ^ u64::from(std::process::id()))
        });
        let (min_count, time_box) = match volume {
            Volume::Smoke => ((ci_count / 50).max(4), time_box_secs.max(60)),
            Volume::Full => (ci_count * scale(), time_box_secs * scale()),
        };
        println!(
            "RELIABILITY-START {name} min_count={min_count} time_box={time_box}s seed={seed:#x}"
        );
        Suite {
            name,
            seed,
            min_count,
            time_box: Duration::from_secs(time_box),
            start: Instant::now(),
            replay: env_u64("CAIRN_RELIABILITY_REPLAY"),
        }
    }

    /// True when this run replays one case (`CAIRN_RELIABILITY_REPLAY`).
    pub fn is_replay(&self) -> bool {
        self.replay.is_some()
    }

    /// The seed of case `i`.
    pub fn case_seed(&self, i: u64) -> u64 {
        mix(self.seed ^ mix(i))
    }

    /// Runs `case(case_seed)` for `min_count` cases (or the one replayed case), failing when the
    /// time box is reached first. A panicking case is reported with its seed and how to replay it.
    pub fn run(&self, mut case: impl FnMut(u64)) -> u64 {
        if let Some(seed) = self.replay {
            case(seed);
            return 1;
        }
        let mut done = 0;
        while done < self.min_count {
            self.check_time(done);
            let seed = self.case_seed(done);
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| case(seed))) {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_string()))
                    .unwrap_or_default();
                panic!(
                    "RELIABILITY {} FAILED at case {done}: {msg}\n  replay: \
                     CAIRN_RELIABILITY_REPLAY={seed:#x} (suite seed {:#x})",
                    self.name, self.seed
                );
            }
            done += 1;
        }
        done
    }

    /// Fails when the time box is reached before the minimum count.
    pub fn check_time(&self, done: u64) {
        assert!(
            self.start.elapsed() <= self.time_box,
            "RELIABILITY {} hit its time box of {:?} after {done} of {} cases",
            self.name,
            self.time_box,
            self.min_count
        );
    }

    /// Prints the suite's line, `RELIABILITY name k=v ... seed=0x... secs=...`, and checks that
    /// every counter named in `must_be_zero` is zero.
    pub fn finish(&self, fields: &[(&str, u64)], must_be_zero: &[&str]) {
        let mut line = format!("RELIABILITY {}", self.name);
        for (k, v) in fields {
            line.push_str(&format!(" {k}={v}"));
        }
        line.push_str(&format!(
            " seed={:#x} secs={:.1}",
            self.seed,
            self.start.elapsed().as_secs_f64()
        ));
        println!("{line}");
        for name in must_be_zero {
            let v = fields
                .iter()
                .find(|(k, _)| k == name)
                .map_or(0, |(_, v)| *v);
            assert_eq!(v, 0, "{line}: {name} must be 0");
        }
        self.check_time(self.min_count);
    }
}
