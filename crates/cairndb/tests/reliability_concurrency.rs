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
//! At the end of a round every acknowledged batch is there, before and after a reopen. The
//! existing `db_concurrency.rs` tests stay as focused regression tests. The loom models of the
//! skiplist and of the commit pipeline's sequence publication are in
//! `src/memtable/loom_models.rs`.
//!
//! CI volume: 200 rounds.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use cairndb::batch::WriteBatch;
use cairndb::fs::MemFs;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;
use common::{Suite, Volume};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const DIR: &str = "/db";

fn opts() -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.write_buffer_size = 64 << 10;
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

fn round(seed: u64, c: &Counts) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let writers = rng.gen_range(2..=5u64);
    let m = rng.gen_range(2..=12u64);
    let per = rng.gen_range(100..=400u64);
    let value_len = rng.gen_range(10..=600usize);
    let fs = MemFs::new();
    let db = Arc::new(Db::open_with_fs(fs.shared(), DIR, opts()).expect("open"));
    let stop = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..writers)
            .map(|t| {
                let db = &db;
                let sync_every = rng.gen_range(5..50u64);
                s.spawn(move || {
                    for i in 0..per {
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
                    }
                })
            })
            .collect();
        let background = {
            let (db, stop) = (&db, &stop);
            s.spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(3));
                    if n % 3 == 2 {
                        db.compact_range(None, None).expect("compact");
                    } else {
                        db.flush().expect("flush");
                    }
                    n += 1;
                }
            })
        };
        for _ in 0..2 {
            let (db, stop) = (&db, &stop);
            s.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
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
                }
            });
        }
        for h in handles {
            h.join().expect("writer");
        }
        stop.store(true, Ordering::Relaxed);
        background.join().expect("background");
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
    let suite = Suite::new("concurrency", volume, 200, 600);
    let c = Counts::default();
    let rounds = suite.run(|seed| round(seed, &c));
    suite.finish(
        &[
            ("rounds", rounds),
            ("batches", c.batches.load(Ordering::Relaxed)),
            ("reader_checks", c.checks.load(Ordering::Relaxed)),
            ("torn_batches", c.torn_batches.load(Ordering::Relaxed)),
            (
                "snapshot_changes",
                c.snapshot_changes.load(Ordering::Relaxed),
            ),
            (
                "publication_gaps",
                c.publication_gaps.load(Ordering::Relaxed),
            ),
        ],
        &["torn_batches", "snapshot_changes", "publication_gaps"],
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
