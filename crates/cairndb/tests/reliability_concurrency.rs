//! Reliability suite `concurrency` (docs/design/durability.md, D3 under threads): rounds of
//! concurrent batch writers (random thread counts, batch sizes and sync flags), a thread that
//! flushes and compacts under them, and readers that check:
//! - batch atomicity: writer `t` always writes its `m` keys in one batch with one value, so any
//!   read view (a snapshot's gets, or an iterator) must see all `m` equal (`torn_batches`);
//! - snapshot stability: the same snapshot read twice, with writes, flushes and compactions in
//!   between, gives the same answers (`snapshot_changes`);
//! - publication order: every batch also puts a new unique key, so a snapshot at sequence `s`
//!   must hold exactly as many unique keys as batches at or below `s` (`publication_gaps`).
//!
//! Reads provably overlap writes, with no timing involved: readers and writers start together at
//! a barrier, and each writer waits before its last batch until every reader has finished a
//! check of a non-empty snapshot (`overlapping_checks` counts the checks that ended before the
//! last writer was done). Writers ask a background thread for a flush or a compaction every 10 to
//! 60 batches, over a channel with room for one request, so these run while batches are written.
//!
//! Violations are counted and the suite fails at the end; a failed call (an `expect`) ends the
//! suite at that round. Floors: batches written, reader checks and overlapping checks (each
//! reader, every round), flushes.
//!
//! At the end of a round every acknowledged batch is there, before and after a reopen. The
//! existing `db_concurrency.rs` tests stay as focused regression tests. The loom models of the
//! skiplist and of the commit pipeline's sequence publication are in
//! `src/memtable/loom_models.rs`.
//!
//! CI volume: 200 rounds.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Barrier, Condvar, Mutex};

use cairndb::batch::WriteBatch;
use cairndb::fs::MemFs;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;
use common::reliability::{Suite, Volume};
use common::DIR;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// [`common::opts`] with compactions from 2 L0 files and 32 KiB tables, but the default level
/// sizes (not [`common::compaction_opts`]' 256 KiB base level): the sizes this suite's rounds were
/// set with.
fn opts() -> Options {
    let mut o = common::opts();
    o.cf.level0_file_num_compaction_trigger = 2;
    o.cf.target_file_size_base = 32 << 10;
    o
}

fn group_key(t: u64, j: u64) -> Vec<u8> {
    format!("g{t:02}-{j:03}").into_bytes()
}

fn unique_key(t: u64, i: u64) -> Vec<u8> {
    format!("u{t:02}-{i:08}").into_bytes()
}

#[derive(Default)]
struct Counts {
    batches: AtomicU64,
    checks: AtomicU64,
    /// Reader checks that ended before the last writer's last batch.
    overlapping_checks: AtomicU64,
    flushes: AtomicU64,
    compactions: AtomicU64,
    torn_batches: AtomicU64,
    snapshot_changes: AtomicU64,
    publication_gaps: AtomicU64,
}

/// What a read view at `ro` holds: per writer, the set of values of its group keys, and the
/// number of unique keys.
fn view(db: &Db, ro: &ReadOptions, writers: u64, m: u64) -> (Vec<Vec<Option<Vec<u8>>>>, u64) {
    let groups = (0..writers)
        .map(|t| {
            (0..m)
                .map(|j| db.get(ro, &group_key(t, j)).expect("get"))
                .collect()
        })
        .collect();
    let mut it = db.iter(ro).expect("iter");
    it.seek(b"u");
    let mut uniques = 0;
    while it.valid() && it.key().starts_with(b"u") {
        uniques += 1;
        it.next();
    }
    it.status().expect("scan");
    (groups, uniques)
}

/// Readers per round.
const READERS: u64 = 2;

/// Holds each writer back before its last batch until every reader has finished a check of a
/// non-empty snapshot while the writers were running, so that reads provably overlap writes
/// (no timing involved).
#[derive(Default)]
struct Gate {
    /// (readers that finished an overlapping check, a reader failed).
    state: Mutex<(u64, bool)>,
    cond: Condvar,
}

impl Gate {
    fn reader_ready(&self) {
        self.state.lock().expect("gate").0 += 1;
        self.cond.notify_all();
    }

    fn reader_failed(&self) {
        self.state.lock().expect("gate").1 = true;
        self.cond.notify_all();
    }

    /// Waits until every reader is ready (or one failed: its panic ends the round).
    fn wait_for_readers(&self) {
        let mut st = self.state.lock().expect("gate");
        while st.0 < READERS && !st.1 {
            st = self.cond.wait(st).expect("gate");
        }
    }
}

/// Tells the writers when its reader panics, so that they are not held forever.
struct FailOnPanic<'a>(&'a Gate);

impl Drop for FailOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.reader_failed();
        }
    }
}

fn round(seed: u64, c: &Counts) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let writers = rng.gen_range(2..=5u64);
    let m = rng.gen_range(2..=12u64);
    let per = rng.gen_range(100..=400u64);
    let value_len = rng.gen_range(10..=600usize);
    let fs = MemFs::new();
    let db = Arc::new(Db::open_with_fs(fs.shared(), DIR, opts()).expect("open"));
    let stop = AtomicBool::new(false);
    let writers_done = AtomicU64::new(0);
    let gate = Gate::default();
    // Everyone starts together: the readers are running before the first batch is written.
    let start = Barrier::new((writers + READERS) as usize);
    // Writers ask the background thread for a flush or a compaction every few batches, so that
    // these run while batches are written.
    let (jobs_tx, jobs_rx) = mpsc::sync_channel::<()>(1);
    std::thread::scope(|s| {
        for _ in 0..READERS {
            let (db, stop, writers_done, gate, start) = (&db, &stop, &writers_done, &gate, &start);
            s.spawn(move || {
                let _guard = FailOnPanic(gate);
                start.wait();
                let mut ready = false;
                while !stop.load(Ordering::SeqCst) {
                    let snap = db.snapshot().expect("snapshot");
                    let ro = ReadOptions {
                        snapshot: Some(snap.sequence()),
                        ..ReadOptions::default()
                    };
                    let first = view(db, &ro, writers, m);
                    for vals in &first.0 {
                        if vals.iter().any(|v| v != &vals[0]) {
                            c.torn_batches.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    // Each batch has m + 1 entries.
                    if first.1 * (m + 1) != snap.sequence() {
                        c.publication_gaps.fetch_add(1, Ordering::Relaxed);
                    }
                    std::thread::yield_now();
                    if view(db, &ro, writers, m) != first {
                        c.snapshot_changes.fetch_add(1, Ordering::Relaxed);
                    }
                    c.checks.fetch_add(1, Ordering::Relaxed);
                    // Read after the check: if a writer is still not done, the whole check
                    // ran while writes were going on.
                    if writers_done.load(Ordering::SeqCst) < writers {
                        c.overlapping_checks.fetch_add(1, Ordering::Relaxed);
                        if !ready && snap.sequence() > 0 {
                            ready = true;
                            gate.reader_ready();
                        }
                    }
                }
            });
        }
        for t in 0..writers {
            let (db, writers_done, gate, start) = (&db, &writers_done, &gate, &start);
            let jobs = jobs_tx.clone();
            let sync_every = rng.gen_range(5..50u64);
            let job_every = rng.gen_range(10..60u64);
            s.spawn(move || {
                start.wait();
                for i in 0..per {
                    if i == per - 1 {
                        gate.wait_for_readers();
                    }
                    let mut b = WriteBatch::new();
                    let mut v = format!("{t}:{i}:").into_bytes();
                    v.resize(value_len.max(v.len()), b'x');
                    for j in 0..m {
                        b.put(&group_key(t, j), &v).expect("put");
                    }
                    b.put(&unique_key(t, i), b"1").expect("put");
                    let w = WriteOptions {
                        sync: i % sync_every == 0,
                        ..WriteOptions::default()
                    };
                    db.write(&w, b).expect("write");
                    c.batches.fetch_add(1, Ordering::Relaxed);
                    if i % job_every == job_every - 1 {
                        jobs.send(()).expect("background thread");
                    }
                }
                writers_done.fetch_add(1, Ordering::SeqCst);
            });
        }
        drop(jobs_tx);
        let background = {
            let db = &db;
            s.spawn(move || {
                // Ends when every writer has dropped its sender.
                let mut n = 0u64;
                while jobs_rx.recv().is_ok() {
                    if n % 3 == 2 {
                        db.compact_range(None, None).expect("compact");
                        c.compactions.fetch_add(1, Ordering::Relaxed);
                    } else {
                        db.flush().expect("flush");
                        c.flushes.fetch_add(1, Ordering::Relaxed);
                    }
                    n += 1;
                }
            })
        };
        background.join().expect("background");
        // The background thread ends only after the last writer.
        stop.store(true, Ordering::SeqCst);
    });
    let check = |db: &Db| {
        let r = ReadOptions::default();
        let (groups, uniques) = view(db, &r, writers, m);
        assert_eq!(
            uniques,
            writers * per,
            "round {seed:#x}: acknowledged batches missing"
        );
        for (t, vals) in groups.iter().enumerate() {
            let want = format!("{t}:{}:", per - 1).into_bytes();
            for v in vals {
                let v = v.as_ref().expect("group key present");
                assert!(
                    v.starts_with(&want),
                    "round {seed:#x}: writer {t}'s last batch"
                );
            }
        }
    };
    check(&db);
    db.close().expect("close");
    drop(db);
    let db = Db::open_with_fs(fs.shared(), DIR, opts()).expect("reopen");
    check(&db);
}

fn suite(volume: Volume) {
    let suite = Suite::new("concurrency", volume, 200);
    let c = Counts::default();
    let rounds = suite.run(|seed| round(seed, &c));
    let n = |a: &AtomicU64| a.load(Ordering::Relaxed);
    suite.finish(
        rounds,
        &[
            ("rounds", rounds),
            ("batches", n(&c.batches)),
            ("reader_checks", n(&c.checks)),
            ("overlapping_checks", n(&c.overlapping_checks)),
            ("flushes", n(&c.flushes)),
            ("compactions", n(&c.compactions)),
            ("torn_batches", n(&c.torn_batches)),
            ("snapshot_changes", n(&c.snapshot_changes)),
            ("publication_gaps", n(&c.publication_gaps)),
        ],
        &["torn_batches", "snapshot_changes", "publication_gaps"],
        &[
            // Every writer writes at least 100 batches.
            ("batches", rounds * 200),
            // The gate makes each reader finish a check while writes go on, every round.
            ("overlapping_checks", rounds * READERS),
            ("reader_checks", rounds * READERS),
            // At least one flush or compaction per writer (every 10 to 60 of 100+ batches).
            ("flushes", rounds),
        ],
    );
}

#[test]
fn concurrency_smoke() {
    suite(Volume::Smoke);
}

#[test]
#[ignore = "CI volume: run by scripts/reliability.sh"]
fn concurrency_full() {
    suite(Volume::Full);
}
