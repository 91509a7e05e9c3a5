//! The harness every reliability suite (`tests/reliability_*.rs`) shares: seeds, volumes, the
//! hang limit, and the one `RELIABILITY ...` line each suite prints. The suites of this crate
//! reach it as `common::reliability`; cairn-cli's `reliability_kill9` includes this file alone
//! (with `#[path]`) as its `common`.
//!
//! Each suite has a minimum count (cases, cycles, runs or flips) and always runs all of it:
//! time is measured and printed as a rate (`secs=`, `rate=` cases per second), never asserted.
//! The only time limit is a hang limit: a watchdog thread ends the test process (exit code 101,
//! with the suite, the case number and the case seed on stderr) when no case finishes and the
//! suite reports no progress ([`Suite::progress`]) for `CAIRN_RELIABILITY_HANG_SECS` (default
//! 600 s, hundreds of times longer than any case takes). It is not a speed check.
//!
//! [`Suite::finish`] prints the line: every field is a count the suite made (a suite that stops at
//! its first failure does not print a zero for the failures it cannot count, and says so in its
//! header comment); each `must_be_zero` name must be a field (an unknown name panics, so that a
//! typo cannot disable a check) and be 0; each floor `(name, minimum)` is printed as
//! `floor_name>=minimum` and fails the suite when the field is below it. Floors prove that the
//! suite checked something (batches made durable, reads checked, faults that fired); every suite
//! has at least one. `scripts/reliability.sh` fails on a `RELIABILITY` line without floors.
//!
//! Environment:
//! - `CAIRN_RELIABILITY_SCALE=N` multiplies the minimum counts (and so the floors derived from
//!   them) by N (10 for the on-demand large runs).
//! - `CAIRN_RELIABILITY_SEED=0x...` sets the suite seed (default: random, printed).
//! - `CAIRN_RELIABILITY_REPLAY=0x...` runs exactly one case with that case seed: every failure
//!   message names its case seed. Floors are printed but not enforced in a replay.
//! - `CAIRN_RELIABILITY_HANG_SECS=N` sets the hang limit.
//!
//! Each suite file has a small test that `cargo test` runs (the smoke volume, a fiftieth of the
//! CI count) and an `#[ignore]`d `full` test that `scripts/reliability.sh` runs at CI volume.

#![allow(dead_code)]

use std::io::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How big a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Volume {
    /// The small run of `cargo test`: a fiftieth of the CI count, at least a few cases.
    Smoke,
    /// The CI volume, times `CAIRN_RELIABILITY_SCALE`.
    Full,
}

/// The default hang limit: no progress for this long ends the run.
const DEFAULT_HANG_SECS: u64 = 600;

/// One suite run: its name, seed, target count and watchdog.
#[derive(Debug)]
pub struct Suite {
    /// The suite's name in its `RELIABILITY` line.
    pub name: &'static str,
    /// The suite seed; case `i` uses [`Suite::case_seed`]`(i)`.
    pub seed: u64,
    /// How many cases must run.
    pub min_count: u64,
    start: Instant,
    replay: Option<u64>,
    /// Ticks the watchdog; dropped with the suite, which ends the watchdog thread.
    progress: mpsc::Sender<()>,
    /// The case running now and its seed, for the watchdog's message.
    current: Arc<(AtomicU64, AtomicU64)>,
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

/// The hang limit, `CAIRN_RELIABILITY_HANG_SECS` (default 600 s).
pub fn hang_limit() -> Duration {
    Duration::from_secs(
        env_u64("CAIRN_RELIABILITY_HANG_SECS")
            .unwrap_or(DEFAULT_HANG_SECS)
            .max(1),
    )
}

/// A 64-bit mix (SplitMix64's finalizer), to derive case seeds.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The message of a caught panic.
pub fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_string()))
        .unwrap_or_default()
}

/// Runs `f`, turning a panic into `Err(message)`, for suites that count failures (a panic is
/// one) and go on.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|e| panic_message(&*e))
}

/// Starts the watchdog of suite `name`: ends the process when `rx` receives nothing for the
/// hang limit; ends itself when the suite is dropped.
fn watchdog(name: &'static str, rx: mpsc::Receiver<()>, current: Arc<(AtomicU64, AtomicU64)>) {
    let limit = hang_limit();
    std::thread::spawn(move || loop {
        match rx.recv_timeout(limit) {
            Ok(()) => {}
            Err(RecvTimeoutError::Disconnected) => return,
            Err(RecvTimeoutError::Timeout) => {
                let (case, seed) = (
                    current.0.load(Ordering::SeqCst),
                    current.1.load(Ordering::SeqCst),
                );
                // Straight to stderr: the test harness's capture would lose a print! here.
                let _ = writeln!(
                    std::io::stderr(),
                    "RELIABILITY {name} HANG: no progress for {limit:?} (the hang limit, \
                     CAIRN_RELIABILITY_HANG_SECS) in case {case}\n  replay: \
                     CAIRN_RELIABILITY_REPLAY={seed:#x}"
                );
                std::process::exit(101);
            }
        }
    });
}

impl Suite {
    /// A suite run of `ci_count` cases at CI volume (times the scale), or of a smoke volume.
    pub fn new(name: &'static str, volume: Volume, ci_count: u64) -> Suite {
        let seed = env_u64("CAIRN_RELIABILITY_SEED").unwrap_or_else(|| {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            mix(t ^ u64::from(std::process::id()))
        });
        let min_count = match volume {
            Volume::Smoke => (ci_count / 50).max(4),
            Volume::Full => ci_count * scale(),
        };
        println!(
            "RELIABILITY-START {name} min_count={min_count} hang_limit={}s seed={seed:#x}",
            hang_limit().as_secs()
        );
        let (progress, rx) = mpsc::channel();
        let current = Arc::new((AtomicU64::new(0), AtomicU64::new(0)));
        watchdog(name, rx, Arc::clone(&current));
        Suite {
            name,
            seed,
            min_count,
            start: Instant::now(),
            replay: env_u64("CAIRN_RELIABILITY_REPLAY"),
            progress,
            current,
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

    /// Tells the watchdog that the suite is making progress (a long case calls it at each of
    /// its steps; [`Suite::run`] calls it at each case).
    pub fn progress(&self) {
        let _ = self.progress.send(());
    }

    fn start_case(&self, i: u64, seed: u64) {
        self.current.0.store(i, Ordering::SeqCst);
        self.current.1.store(seed, Ordering::SeqCst);
        self.progress();
    }

    /// Runs `case(case_seed)` for `min_count` cases (or the one replayed case). A panicking case
    /// ends the suite, reported with its seed and how to replay it.
    pub fn run(&self, mut case: impl FnMut(u64)) -> u64 {
        if let Some(seed) = self.replay {
            self.start_case(0, seed);
            case(seed);
            return 1;
        }
        let mut done = 0;
        while done < self.min_count {
            let seed = self.case_seed(done);
            self.start_case(done, seed);
            if let Err(e) = catch_unwind(AssertUnwindSafe(|| case(seed))) {
                panic!(
                    "RELIABILITY {} FAILED at case {done}: {}\n  replay: \
                     CAIRN_RELIABILITY_REPLAY={seed:#x} (suite seed {:#x})",
                    self.name,
                    panic_message(&*e),
                    self.seed
                );
            }
            done += 1;
        }
        done
    }

    /// Prints the suite's line, `RELIABILITY name k=v ... floor_k>=n ... seed=0x... secs=...
    /// rate=.../s`, then fails when a counter named in `must_be_zero` is not zero or a field
    /// named in `floors` is below its minimum (floors are not enforced in a replay). `cases` is
    /// the number of cases run, for the rate.
    ///
    /// # Panics
    /// On a violation or a floor not reached; when a name in `must_be_zero` or `floors` is not
    /// a field (a typo must not disable a check); when `floors` is empty.
    pub fn finish(
        &self,
        cases: u64,
        fields: &[(&str, u64)],
        must_be_zero: &[&str],
        floors: &[(&str, u64)],
    ) {
        assert!(
            !floors.is_empty(),
            "RELIABILITY {}: a suite needs floors that prove it checked something",
            self.name
        );
        let field = |name: &str| {
            fields
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| *v)
                .unwrap_or_else(|| {
                    panic!(
                        "RELIABILITY {}: {name} is not one of the fields {:?}",
                        self.name,
                        fields.iter().map(|(k, _)| *k).collect::<Vec<_>>()
                    )
                })
        };
        // Checked before printing: a line is printed only for a suite whose checks all exist.
        for name in must_be_zero {
            field(name);
        }
        for (name, _) in floors {
            field(name);
        }
        let secs = self.start.elapsed().as_secs_f64();
        let mut line = format!("RELIABILITY {}", self.name);
        for (k, v) in fields {
            line.push_str(&format!(" {k}={v}"));
        }
        for (k, min) in floors {
            line.push_str(&format!(" floor_{k}>={min}"));
        }
        line.push_str(&format!(
            " seed={:#x} secs={secs:.1} rate={:.2}/s",
            self.seed,
            cases as f64 / secs.max(1e-9)
        ));
        println!("{line}");
        let mut failed = Vec::new();
        for name in must_be_zero {
            let v = field(name);
            if v != 0 {
                failed.push(format!("{name}={v} must be 0"));
            }
        }
        if self.is_replay() {
            println!("RELIABILITY {}: floors not enforced in a replay", self.name);
        } else {
            for (name, min) in floors {
                let v = field(name);
                if v < *min {
                    failed.push(format!("{name}={v} is below its floor {min}"));
                }
            }
        }
        assert!(failed.is_empty(), "{line}\n  FAILED: {}", failed.join("; "));
    }
}
