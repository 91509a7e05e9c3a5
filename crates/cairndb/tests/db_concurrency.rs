//! Concurrent writers through group commit: every acknowledged write is present, batches are
//! atomic for concurrent readers, and the state survives a reopen.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use cairndb::batch::WriteBatch;
use cairndb::fs::MemFs;
use cairndb::options::{ReadOptions, WriteOptions};
use cairndb::Db;
use common::{count, opts, DIR};

/// Sets its flag when dropped: when the reader thread ends, also by a panic.
struct Ended(Arc<AtomicBool>);

impl Drop for Ended {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Waits until the reader has completed two more checks than now (so that one whole check ran
/// meanwhile), or has ended (a failed check: its join reports it).
fn await_two_checks(checks: &AtomicU64, reader_ended: &AtomicBool) {
    let seen = checks.load(Ordering::Acquire);
    while checks.load(Ordering::Acquire) < seen + 2 && !reader_ended.load(Ordering::Acquire) {
        std::thread::yield_now();
    }
}

#[test]
fn concurrent_writers_and_atomic_batches() {
    let fs = MemFs::new().shared();
    let db = Arc::new(Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open"));
    let stop = Arc::new(AtomicBool::new(false));
    // Completed snapshot checks. Writer 0 waits halfway for two more of them, so at least one
    // whole check runs while the batches are being written, however the threads are scheduled.
    let checks = Arc::new(AtomicU64::new(0));
    let reader_ended = Arc::new(AtomicBool::new(false));
    let reader = {
        let (db, stop, checks) = (Arc::clone(&db), Arc::clone(&stop), Arc::clone(&checks));
        let ended = Ended(Arc::clone(&reader_ended));
        std::thread::spawn(move || {
            let _ended = ended;
            while !stop.load(Ordering::Relaxed) {
                let snap = db.snapshot().expect("snapshot");
                let ro = ReadOptions {
                    snapshot: Some(snap.sequence()),
                    ..ReadOptions::default()
                };
                for t in 0..4u8 {
                    let a = db.get(&ro, &[b'a', t]).expect("get a");
                    let b = db.get(&ro, &[b'b', t]).expect("get b");
                    assert_eq!(a, b, "batch of thread {t} seen half applied");
                }
                checks.fetch_add(1, Ordering::Release);
            }
        })
    };
    let writers: Vec<_> = (0..4u8)
        .map(|t| {
            let (db, checks, ended) = (
                Arc::clone(&db),
                Arc::clone(&checks),
                Arc::clone(&reader_ended),
            );
            std::thread::spawn(move || {
                for i in 0..400u32 {
                    if t == 0 && i == 200 {
                        await_two_checks(&checks, &ended);
                    }
                    let w = WriteOptions {
                        sync: i % 10 == 0,
                        ..WriteOptions::default()
                    };
                    let mut b = WriteBatch::new();
                    let v = i.to_be_bytes();
                    b.put(&[b'a', t], &v).expect("put");
                    b.put(&[b'b', t], &v).expect("put");
                    let mut k = vec![b'k', t];
                    k.extend_from_slice(&v);
                    b.put(&k, &[t; 100]).expect("put");
                    db.write(&w, b).expect("write");
                }
            })
        })
        .collect();
    for w in writers {
        w.join().expect("writer");
    }
    stop.store(true, Ordering::Relaxed);
    reader.join().expect("reader");
    assert!(checks.load(Ordering::Acquire) >= 2);
    assert_eq!(db.latest_sequence(), 4 * 400 * 3);
    let check = |db: &Db| {
        for t in 0..4u8 {
            for i in (0..400u32).step_by(13) {
                let mut k = vec![b'k', t];
                k.extend_from_slice(&i.to_be_bytes());
                assert_eq!(
                    db.get(&ReadOptions::default(), &k).expect("get"),
                    Some(vec![t; 100])
                );
            }
            let last = db.get(&ReadOptions::default(), &[b'a', t]).expect("get");
            assert_eq!(last, Some(399u32.to_be_bytes().to_vec()));
        }
    };
    check(&db);
    db.close().expect("close");
    drop(db);
    let db = Db::open_with_fs(fs, DIR, opts()).expect("reopen");
    check(&db);
}

/// Every write is one put of a new key, so the state at sequence `s` holds exactly `s` keys:
/// a reader that sees fewer found a gap (a later write published before an earlier one), more
/// would be a write above its snapshot. An iterator opened early keeps its count while writers
/// go on and memtables are flushed under it.
#[test]
fn publication_in_sequence_order_and_iterators_stable_across_flushes() {
    let db = Arc::new(Db::open_with_fs(MemFs::new().shared(), DIR, opts()).expect("open"));
    let stop = Arc::new(AtomicBool::new(false));
    // Completed snapshot checks; writer 0 waits halfway for two more (as in the test above).
    let checks = Arc::new(AtomicU64::new(0));
    let reader_ended = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..3u8)
        .map(|t| {
            let (db, checks, ended) = (
                Arc::clone(&db),
                Arc::clone(&checks),
                Arc::clone(&reader_ended),
            );
            std::thread::spawn(move || {
                for i in 0..1500u32 {
                    if t == 0 && i == 750 {
                        await_two_checks(&checks, &ended);
                    }
                    let mut k = vec![b'w', t];
                    k.extend_from_slice(&i.to_be_bytes());
                    let w = WriteOptions {
                        sync: i % 50 == 0,
                        ..WriteOptions::default()
                    };
                    db.put(&w, &k, &[t; 200]).expect("put");
                }
            })
        })
        .collect();
    let early = {
        while db.latest_sequence() < 100 {
            std::thread::yield_now();
        }
        let before = db.latest_sequence();
        let it = db.iter(&ReadOptions::default()).expect("iter");
        (it, before, db.latest_sequence())
    };
    let reader = {
        let (db, stop, checks) = (Arc::clone(&db), Arc::clone(&stop), Arc::clone(&checks));
        let ended = Ended(Arc::clone(&reader_ended));
        std::thread::spawn(move || {
            let _ended = ended;
            while !stop.load(Ordering::Relaxed) {
                let snap = db.snapshot().expect("snapshot");
                let ro = ReadOptions {
                    snapshot: Some(snap.sequence()),
                    ..ReadOptions::default()
                };
                assert_eq!(count(&db, &ro), snap.sequence(), "a gap below the snapshot");
                checks.fetch_add(1, Ordering::Release);
            }
        })
    };
    for w in writers {
        w.join().expect("writer");
    }
    stop.store(true, Ordering::Relaxed);
    reader.join().expect("reader");
    assert!(checks.load(Ordering::Acquire) >= 2);
    let tables: usize = db
        .level_summary_cf(&db.default_column_family())
        .iter()
        .map(|l| l.files)
        .sum();
    assert!(tables > 0, "the workload flushed under the iterator");
    // The iterator reads at the sequence published when it was created: between the two
    // sequence numbers read around its creation.
    let (mut it, before, after) = early;
    let mut n = 0u64;
    it.seek_to_first();
    while it.valid() {
        n += 1;
        it.next();
    }
    it.status().expect("early iterator");
    assert!(
        (before..=after).contains(&n),
        "early iterator saw {n} keys, not in {before}..={after}"
    );
    let mut again = 0u64;
    it.seek_to_last();
    while it.valid() {
        again += 1;
        it.prev();
    }
    assert_eq!(again, n, "the early iterator is stable in both directions");
    assert_eq!(count(&db, &ReadOptions::default()), 3 * 1500);
}
