//! Reliability suite `kill9` (docs/design/durability.md, D1): runs `cairn stress` as a child
//! process, kills it with SIGKILL at a random instant or lets it kill itself at an armed fail
//! point (the K-th mutating file-system operation of the engine), restarts it, and lets it verify
//! every key against its expected-state file (two-phase pending markers: a key written at the
//! moment of the kill may hold its old or its new value, nothing else).
//!
//! The random kill comes 30 to 400 ms after the child printed that it starts writing (the sleep
//! picks the kill instant; it orders nothing the checks depend on). The suite stops at its
//! first failure (a restart that finds a mismatch, or a failed final verification), so it
//! prints no count of lost writes. Floors, read from the expected-state file after each kill:
//! key writes the killed process had acknowledged (`acked_key_writes`), cycles in which it had
//! acknowledged any (`cycles_with_acked_writes`), and restarts that verified every key.
//!
//! CI volume: 200 kill cycles, then a final verification.

#[path = "../../cairndb/tests/common/reliability.rs"]
mod common;

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Suite, Volume};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn stress(db: &Path, seed: u64) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cairn"));
    c.arg("stress")
        .arg("--db")
        .arg(db)
        .args([
            "--threads",
            "3",
            "--keys",
            "2000",
            "--ops",
            "0",
            "--seconds",
            "20",
        ])
        .args(["--value-size", "64", "--write-buffer-size", "65536"])
        .args([
            "--flush-every",
            "400",
            "--compact-every",
            "1500",
            "--sync-ratio",
            "0.05",
        ])
        .args(["--seed", &seed.max(1).to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

#[derive(Default)]
struct Counts {
    cycles: u64,
    random_kills: u64,
    fail_point_kills: u64,
    verified_starts: u64,
    markers_resolved: u64,
    acked_key_writes: u64,
    cycles_with_acked_writes: u64,
}

/// The key writes the stress tool has recorded as acknowledged in its expected-state file: the
/// sum of the committed versions of every key (a version grows by one per acknowledged write).
fn committed_versions(expected: &Path) -> u64 {
    let bytes = std::fs::read(expected).unwrap_or_default();
    bytes
        .chunks_exact(16)
        .map(|slot| {
            let cur = u64::from_le_bytes(slot[..8].try_into().expect("8 bytes"));
            cur >> 1
        })
        .sum()
}

fn output(child: &mut std::process::Child) -> String {
    let mut s = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut s);
    }
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut s);
    }
    s
}

fn suite(volume: Volume) {
    let suite = Suite::new("kill9", volume, 200);
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let expected = dir.path().join("db.expected");
    let mut c = Counts::default();
    let mut rng = SmallRng::seed_from_u64(suite.seed);
    let cycles = suite.run(|seed| {
        let mut child_rng = SmallRng::seed_from_u64(seed);
        let mut cmd = stress(&db, seed);
        let fail_point = rng.gen_ratio(1, 3);
        if fail_point {
            cmd.args([
                "--kill-at-fs-op",
                &child_rng.gen_range(1..3000u64).to_string(),
            ]);
        }
        let before = committed_versions(&expected);
        let mut child = cmd.spawn().expect("spawn cairn stress");
        // Waits until the child has verified the previous state and starts writing (or died).
        let mut head = String::new();
        if let Some(stdout) = child.stdout.as_mut() {
            let mut lines = BufReader::new(stdout);
            let mut line = String::new();
            while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
                head.push_str(&line);
                if line.starts_with("stress: seed") {
                    break;
                }
                line.clear();
            }
        }
        std::thread::sleep(Duration::from_millis(child_rng.gen_range(30..400)));
        let _ = child.kill();
        let status = child.wait().expect("wait");
        let out = head + &output(&mut child);
        let acked = committed_versions(&expected).saturating_sub(before);
        c.acked_key_writes += acked;
        c.cycles_with_acked_writes += u64::from(acked > 0);
        assert!(
            status.code() != Some(3),
            "cairn stress found a mismatch after a kill:\n{out}"
        );
        assert!(
            status.code().is_none() || status.success(),
            "cairn stress failed ({status}):\n{out}"
        );
        if out.contains("stress: verified") {
            c.verified_starts += 1;
        }
        if let Some(n) = out
            .split("keys (")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
        {
            c.markers_resolved += n;
        }
        c.cycles += 1;
        if fail_point {
            c.fail_point_kills += 1;
        } else {
            c.random_kills += 1;
        }
    });
    let mut last = stress(&db, 1);
    last.arg("--verify-only");
    let out = last.output().expect("run the final verification");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "final verification failed:\n{text}");
    c.verified_starts += 1;
    suite.finish(
        cycles,
        &[
            ("cycles", c.cycles),
            ("random_kills", c.random_kills),
            ("fail_point_kills", c.fail_point_kills),
            ("verified_restarts", c.verified_starts),
            ("pending_markers_resolved", c.markers_resolved),
            ("acked_key_writes", c.acked_key_writes),
            ("cycles_with_acked_writes", c.cycles_with_acked_writes),
        ],
        &[],
        &[
            ("verified_restarts", cycles / 2 + 1),
            ("cycles_with_acked_writes", cycles / 2),
            ("acked_key_writes", cycles * 1000),
        ],
    );
}

#[test]
fn kill9_smoke() {
    suite(Volume::Smoke);
}

#[test]
#[ignore = "CI volume: run by scripts/reliability.sh"]
fn kill9_full() {
    suite(Volume::Full);
}
