//! Pessimistic transactions: each anomaly as a deterministic test (no dirty write, no dirty read,
//! no lost update with `get_for_update`, no read skew under snapshot reads; write skew possible
//! without `get_for_update` and prevented with it), deadlocks of 2, 3 and 4 transactions, lock
//! timeouts, expiry, savepoints, and the errors of bad use. Threads are ordered with channels and
//! barriers, never with sleeps; a lock wait that must end is bounded by a hang limit (a lock
//! timeout of a minute), not a speed threshold.

mod common;

use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::thread;

use cairndb::fs::MemFs;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{
    Error, StringAppendOperator, TransactionDb, TransactionDbOptions, TransactionOptions,
    TransactionState,
};

/// A lock wait that a test expects to end: if it does not within a minute, the test fails
/// instead of hanging.
const HANG_LIMIT_MS: i64 = 60_000;

fn open_with(txn_db: TransactionDbOptions) -> TransactionDb {
    let mut o: Options = common::opts();
    o.cf.merge_operator = Some(Arc::new(StringAppendOperator::new(b",")));
    TransactionDb::open_cf_with_fs(MemFs::new().shared(), common::DIR, o, txn_db, Vec::new())
        .expect("open")
}

fn open() -> TransactionDb {
    open_with(TransactionDbOptions::default())
}

fn w() -> WriteOptions {
    WriteOptions::default()
}

fn r() -> ReadOptions {
    ReadOptions::default()
}

fn no_wait() -> TransactionOptions {
    TransactionOptions {
        lock_timeout: 0,
        ..TransactionOptions::default()
    }
}

fn get(db: &TransactionDb, key: &[u8]) -> Option<Vec<u8>> {
    db.db().get(&r(), key).expect("get")
}

#[test]
fn commit_publishes_all_writes_and_rollback_none() {
    let db = open();
    db.put(&w(), b"gone", b"x").expect("put");
    let mut t = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t.put(b"a", b"1").expect("put");
    t.merge(b"a", b"2").expect("merge");
    t.delete(b"gone").expect("delete");
    assert_eq!(t.get(&r(), b"a").expect("get"), Some(b"1,2".to_vec()));
    assert_eq!(t.get(&r(), b"gone").expect("get"), None);
    assert_eq!(get(&db, b"a"), None, "not visible before commit");
    t.commit().expect("commit");
    assert_eq!(t.state(), TransactionState::Committed);
    assert_eq!(get(&db, b"a"), Some(b"1,2".to_vec()));
    assert_eq!(get(&db, b"gone"), None);

    let mut t = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t.put(b"b", b"never").expect("put");
    t.rollback().expect("rollback");
    assert_eq!(get(&db, b"b"), None);
    assert!(db.lock_status().is_empty(), "rollback releases every lock");
}

#[test]
fn no_dirty_write_a_locked_key_waits_for_its_holder() {
    let db = open();
    let mut t1 = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t1.put(b"k", b"t1").expect("put");
    // Without waiting: refused with TimedOut, nothing written.
    let mut t2 = db.begin_transaction(&w(), &no_wait()).expect("begin");
    let e = t2.put(b"k", b"t2").expect_err("locked");
    assert!(e.is_timed_out(), "{e}");
    assert_eq!(t2.write_batch().count(), 0);
    // A write outside a transaction waits too (default_lock_timeout), here refused at once.
    let db0 = open_with(TransactionDbOptions {
        default_lock_timeout: 0,
        ..TransactionDbOptions::default()
    });
    let mut holder = db0
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    holder.put(b"k", b"held").expect("put");
    assert!(db0
        .put(&w(), b"k", b"outside")
        .expect_err("locked")
        .is_timed_out());
    holder.commit().expect("commit");
    db0.put(&w(), b"k", b"outside").expect("free now");

    // With waiting: t3 blocks until t1 commits, then overwrites t1's committed value.
    let (locked_tx, locked_rx) = mpsc::channel::<()>();
    let dbr = &db;
    thread::scope(|s| {
        let waiter = s.spawn(move || {
            let db = dbr;
            let mut t3 = db
                .begin_transaction(
                    &w(),
                    &TransactionOptions {
                        lock_timeout: HANG_LIMIT_MS,
                        ..TransactionOptions::default()
                    },
                )
                .expect("begin");
            locked_rx.recv().expect("t1 is ready");
            t3.put(b"k", b"t3").expect("lock after t1 ends");
            t3.commit().expect("commit");
        });
        locked_tx.send(()).expect("send");
        // Whether t3 is already waiting or not, it cannot have written before this commit.
        assert_eq!(get(&db, b"k"), None);
        t1.commit().expect("commit");
        waiter.join().expect("waiter");
    });
    assert_eq!(get(&db, b"k"), Some(b"t3".to_vec()));
}

#[test]
fn no_dirty_read_uncommitted_writes_are_invisible_to_others() {
    let db = open();
    db.put(&w(), b"k", b"committed").expect("put");
    let mut t1 = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t1.put(b"k", b"dirty").expect("put");
    let t2 = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    assert_eq!(
        t2.get(&r(), b"k").expect("get"),
        Some(b"committed".to_vec())
    );
    let mut it = t2.iter(&r()).expect("iter");
    it.seek_to_first();
    assert_eq!(it.value(), b"committed");
    drop(it);
    t1.rollback().expect("rollback");
}

#[test]
fn no_lost_update_with_get_for_update() {
    let db = open();
    db.put(&w(), b"counter", b"0").expect("put");
    let threads = 4;
    let per_thread = 50;
    thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                for _ in 0..per_thread {
                    let mut t = db
                        .begin_transaction(
                            &w(),
                            &TransactionOptions {
                                lock_timeout: HANG_LIMIT_MS,
                                ..TransactionOptions::default()
                            },
                        )
                        .expect("begin");
                    let v = t
                        .get_for_update(&r(), b"counter", true)
                        .expect("get_for_update")
                        .expect("present");
                    let n: u64 = String::from_utf8(v).expect("utf8").parse().expect("number");
                    t.put(b"counter", (n + 1).to_string().as_bytes())
                        .expect("put");
                    t.commit().expect("commit");
                }
            });
        }
    });
    assert_eq!(
        get(&db, b"counter"),
        Some((threads * per_thread).to_string().into_bytes())
    );
}

#[test]
fn lost_update_happens_with_plain_reads() {
    // The control of the test above: two read-modify-writes that read with `get` (no lock)
    // interleave and one increment is lost. Deterministic: both read before either writes.
    let db = open();
    db.put(&w(), b"counter", b"0").expect("put");
    let mut t1 = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    let mut t2 = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    let a = t1.get(&r(), b"counter").expect("get").expect("present");
    let b = t2.get(&r(), b"counter").expect("get").expect("present");
    let inc = |v: Vec<u8>| {
        (String::from_utf8(v)
            .expect("utf8")
            .parse::<u64>()
            .expect("n")
            + 1)
        .to_string()
    };
    t1.put(b"counter", inc(a).as_bytes()).expect("put");
    t1.commit().expect("commit");
    t2.put(b"counter", inc(b).as_bytes()).expect("put");
    t2.commit().expect("commit");
    assert_eq!(
        get(&db, b"counter"),
        Some(b"1".to_vec()),
        "one increment lost"
    );
}

#[test]
fn snapshot_write_conflict_is_busy_and_releases_the_new_lock() {
    let db = open();
    db.put(&w(), b"k", b"v0").expect("put");
    let mut t = db
        .begin_transaction(
            &w(),
            &TransactionOptions {
                set_snapshot: true,
                ..TransactionOptions::default()
            },
        )
        .expect("begin");
    db.put(&w(), b"k", b"v1").expect("put after the snapshot");
    let e = t.put(b"k", b"mine").expect_err("conflict");
    assert!(e.is_busy(), "{e}");
    assert!(db.lock_status().is_empty(), "the refused lock is released");
    let e = t.get_for_update(&r(), b"k", true).expect_err("conflict");
    assert!(e.is_busy(), "{e}");
    // A key untouched since the snapshot is fine; a deletion or merge after it conflicts too.
    t.put(b"other", b"x").expect("no conflict");
    db.merge(&w(), b"m", b"1").expect("merge");
    db.delete(&w(), b"other2").expect("delete");
    t.set_snapshot().expect("new snapshot");
    t.put(b"m", b"fine")
        .expect("merge was before the new snapshot");
    db.db()
        .delete_range(&w(), b"r0", b"r9")
        .expect("range delete through the base db");
    assert!(t
        .put(b"r5", b"x")
        .expect_err("covered by a later range deletion")
        .is_busy());
    t.commit().expect("commit");
    assert_eq!(get(&db, b"k"), Some(b"v1".to_vec()));
    assert_eq!(get(&db, b"other"), Some(b"x".to_vec()));
}

#[test]
fn snapshot_conflicts_are_found_in_tables_too() {
    let db = open();
    let mut t = db
        .begin_transaction(
            &w(),
            &TransactionOptions {
                set_snapshot: true,
                ..TransactionOptions::default()
            },
        )
        .expect("begin");
    db.put(&w(), b"k", b"after").expect("put");
    db.db().flush().expect("flush");
    assert_eq!(db.db().num_immutable_memtables(), 0);
    assert!(t
        .put(b"k", b"mine")
        .expect_err("conflict from a table")
        .is_busy());
}

#[test]
fn no_read_skew_under_snapshot_reads() {
    let db = open();
    db.put(&w(), b"x", b"50").expect("put");
    db.put(&w(), b"y", b"50").expect("put");
    let reader = db
        .begin_transaction(
            &w(),
            &TransactionOptions {
                set_snapshot: true,
                ..TransactionOptions::default()
            },
        )
        .expect("begin");
    let at = ReadOptions {
        snapshot: reader.snapshot(),
        ..ReadOptions::default()
    };
    let x = reader.get(&at, b"x").expect("x").expect("present");
    // A transfer of 30 from x to y commits between the two reads.
    let mut t = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t.put(b"x", b"20").expect("put");
    t.put(b"y", b"80").expect("put");
    t.commit().expect("commit");
    let y = reader.get(&at, b"y").expect("y").expect("present");
    assert_eq!(
        (x, y),
        (b"50".to_vec(), b"50".to_vec()),
        "snapshot reads agree"
    );
    // READ COMMITTED reads (no snapshot) see the transfer: the skew snapshot reads prevent.
    assert_eq!(reader.get(&r(), b"y").expect("y"), Some(b"80".to_vec()));
}

/// Two doctors on call, x and y; each transaction goes off call if the other is on call.
fn doctors(db: &TransactionDb, for_update: bool) -> (Result<(), Error>, Result<(), Error>) {
    db.put(&w(), b"x", b"on").expect("put");
    db.put(&w(), b"y", b"on").expect("put");
    let opts = TransactionOptions {
        set_snapshot: true,
        lock_timeout: 0,
        ..TransactionOptions::default()
    };
    let mut t1 = db.begin_transaction(&w(), &opts).expect("begin");
    let mut t2 = db.begin_transaction(&w(), &opts).expect("begin");
    let check = |t: &mut cairndb::Transaction<'_>, other: &[u8]| -> Result<bool, Error> {
        let at = ReadOptions {
            snapshot: t.snapshot(),
            ..ReadOptions::default()
        };
        let v = if for_update {
            t.get_for_update(&at, b"x", false)?;
            t.get_for_update(&at, b"y", false)?;
            t.get(&at, other)?
        } else {
            t.get(&at, other)?
        };
        Ok(v.as_deref() == Some(b"on"))
    };
    let r1 = check(&mut t1, b"y").and_then(|ok| {
        assert!(ok);
        t1.put(b"x", b"off")
    });
    let r2 = check(&mut t2, b"x").and_then(|ok| {
        assert!(ok);
        t2.put(b"y", b"off")
    });
    let c1 = r1.and_then(|()| t1.commit());
    let c2 = r2.and_then(|()| t2.commit());
    (c1, c2)
}

#[test]
fn write_skew_is_possible_without_get_for_update() {
    let db = open();
    let (a, b) = doctors(&db, false);
    a.expect("t1 commits");
    b.expect("t2 commits");
    assert_eq!(
        (get(&db, b"x"), get(&db, b"y")),
        (Some(b"off".to_vec()), Some(b"off".to_vec()))
    );
}

#[test]
fn write_skew_is_prevented_with_get_for_update() {
    let db = open();
    let (a, b) = doctors(&db, true);
    assert!(a.is_ok() != b.is_ok(), "exactly one commits: {a:?} {b:?}");
    let e = a.err().or(b.err()).expect("one error");
    assert!(e.is_timed_out(), "{e}");
    let on = [get(&db, b"x"), get(&db, b"y")]
        .iter()
        .filter(|v| v.as_deref() == Some(b"on"))
        .count();
    assert_eq!(on, 1, "one doctor stays on call");
}

/// `n` transactions each lock key `i`, then all ask for key `i + 1 mod n`: a cycle.
fn deadlock_ring(n: usize) {
    let db = open();
    let key = |i: usize| format!("ring{i}").into_bytes();
    let opts = TransactionOptions {
        deadlock_detect: true,
        lock_timeout: HANG_LIMIT_MS,
        ..TransactionOptions::default()
    };
    let barrier = Barrier::new(n);
    let outcomes: Vec<Result<(), Error>> = thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                let (db, barrier, opts) = (&db, &barrier, &opts);
                s.spawn(move || {
                    let mut t = db.begin_transaction(&w(), opts).expect("begin");
                    t.put(&key(i), b"mine").expect("own key");
                    barrier.wait();
                    match t.put(&key((i + 1) % n), b"next") {
                        Ok(()) => t.commit(),
                        Err(e) => {
                            t.rollback().expect("rollback");
                            Err(e)
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    });
    let deadlocks = outcomes
        .iter()
        .filter(|o| matches!(o, Err(e) if e.is_deadlock()))
        .count();
    let commits = outcomes.iter().filter(|o| o.is_ok()).count();
    assert_eq!((deadlocks, commits), (1, n - 1), "{outcomes:?}");
    let buffer = db.deadlock_info_buffer();
    assert_eq!(buffer.len(), 1);
    let path = &buffer[0];
    assert!(!path.limit_exceeded);
    assert_eq!(path.path.len(), n, "{path:?}");
    // Each waits for the key the next one holds, and the waited keys are the whole ring.
    let mut waited: Vec<Vec<u8>> = path.path.iter().map(|d| d.waiting_key.clone()).collect();
    waited.sort();
    let mut ring: Vec<Vec<u8>> = (0..n).map(key).collect();
    ring.sort();
    assert_eq!(waited, ring);
    assert!(path.path.iter().all(|d| d.exclusive && d.cf_id == 0));
}

#[test]
fn deadlock_of_two_is_detected() {
    deadlock_ring(2);
}

#[test]
fn deadlock_of_three_is_detected() {
    deadlock_ring(3);
}

#[test]
fn deadlock_of_four_is_detected() {
    deadlock_ring(4);
}

/// Waits (yielding, no sleep) until `n` transactions wait for locks.
fn until_waiting(db: &TransactionDb, n: usize) {
    while db.waiting_transactions().len() < n {
        thread::yield_now();
    }
}

#[test]
fn deadlock_search_past_its_depth_refuses_the_wait() {
    let db = open();
    let opts = TransactionOptions {
        deadlock_detect: true,
        deadlock_detect_depth: 1,
        lock_timeout: HANG_LIMIT_MS,
        ..TransactionOptions::default()
    };
    // t2 holds b; t1 holds a and waits for b; t3 asks for a. The search from t3 meets t1,
    // then would follow t1 to t2 past depth 1: refused as a deadlock, marked limit_exceeded.
    let mut t2 = db.begin_transaction(&w(), &opts).expect("begin");
    t2.put(b"b", b"2").expect("put");
    let mut t1 = db.begin_transaction(&w(), &opts).expect("begin");
    t1.put(b"a", b"1").expect("put");
    let t1_id = t1.id();
    thread::scope(|s| {
        let t1_thread = s.spawn(move || {
            let r = t1.put(b"b", b"1");
            t1.rollback().expect("rollback");
            r
        });
        until_waiting(&db, 1);
        assert_eq!(db.waiting_transactions(), vec![(t1_id, vec![t2.id()])]);
        let mut t3 = db.begin_transaction(&w(), &opts).expect("begin");
        let e = t3.put(b"a", b"3").expect_err("past the depth");
        assert!(e.is_deadlock(), "{e}");
        assert!(db.deadlock_info_buffer()[0].limit_exceeded);
        t2.rollback().expect("rollback");
        t1_thread
            .join()
            .expect("t1")
            .expect("t1 gets b once t2 ends");
    });
}

#[test]
fn without_deadlock_detection_lock_timeouts_end_the_cycle() {
    let db = open();
    let opts = TransactionOptions {
        lock_timeout: 20,
        ..TransactionOptions::default()
    };
    let barrier = Barrier::new(2);
    let outcomes: Vec<Result<(), Error>> = thread::scope(|s| {
        let hs: Vec<_> = (0..2)
            .map(|i| {
                let (db, barrier, opts) = (&db, &barrier, &opts);
                s.spawn(move || {
                    let mut t = db.begin_transaction(&w(), opts).expect("begin");
                    t.put(if i == 0 { b"p" } else { b"q" }, b"v").expect("own");
                    barrier.wait();
                    let r = t.put(if i == 0 { b"q" } else { b"p" }, b"v");
                    t.rollback().expect("rollback");
                    r
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().expect("thread")).collect()
    });
    assert!(
        outcomes
            .iter()
            .any(|o| matches!(o, Err(e) if e.is_timed_out())),
        "{outcomes:?}"
    );
    assert!(outcomes
        .iter()
        .all(|o| o.as_ref().err().is_none_or(Error::is_timed_out)));
    assert!(db.deadlock_info_buffer().is_empty());
}

#[test]
fn an_expired_transaction_loses_its_lock_and_cannot_commit() {
    let db = open();
    let mut old = db
        .begin_transaction(
            &w(),
            &TransactionOptions {
                expiration: 1,
                ..TransactionOptions::default()
            },
        )
        .expect("begin");
    old.put(b"k", b"old").expect("put");
    // A waiter with no timeout takes the lock once the holder expires (no sleep: it waits on
    // the lock until the expiry time).
    let mut thief = db
        .begin_transaction(
            &w(),
            &TransactionOptions {
                lock_timeout: HANG_LIMIT_MS,
                ..TransactionOptions::default()
            },
        )
        .expect("begin");
    thief.put(b"k", b"thief").expect("steals the expired lock");
    thief.commit().expect("commit");
    let e = old.commit().expect_err("expired");
    assert!(matches!(e, Error::Expired(_)), "{e}");
    assert_eq!(get(&db, b"k"), Some(b"thief".to_vec()));
    old.rollback()
        .expect("an expired transaction can still be rolled back");
}

#[test]
fn savepoints_undo_writes_and_release_new_locks() {
    let db = open();
    let mut t = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t.put(b"a", b"1").expect("put");
    t.set_savepoint().expect("savepoint");
    t.put(b"a", b"2").expect("put");
    t.put(b"b", b"2").expect("put");
    t.get_for_update(&r(), b"c", true).expect("lock c");
    t.set_savepoint().expect("nested");
    t.put(b"d", b"3").expect("put");
    t.rollback_to_savepoint().expect("inner");
    assert_eq!(t.get(&r(), b"d").expect("d"), None);
    assert_eq!(t.get(&r(), b"b").expect("b"), Some(b"2".to_vec()));
    t.rollback_to_savepoint().expect("outer");
    assert_eq!(t.get(&r(), b"a").expect("a"), Some(b"1".to_vec()));
    assert_eq!(t.get(&r(), b"b").expect("b"), None);
    // b, c and d were first locked after the savepoint: free again. a stays locked.
    let mut other = db.begin_transaction(&w(), &no_wait()).expect("begin");
    for k in [&b"b"[..], b"c", b"d"] {
        other.put(k, b"other").expect("released");
    }
    assert!(other
        .put(b"a", b"other")
        .expect_err("still held")
        .is_timed_out());
    other.rollback().expect("rollback");
    assert!(matches!(t.rollback_to_savepoint(), Err(Error::NotFound(_))));
    t.commit().expect("commit");
    assert_eq!(get(&db, b"a"), Some(b"1".to_vec()));
    assert_eq!(get(&db, b"b"), None);
}

#[test]
fn shared_locks_admit_readers_and_exclude_writers() {
    let db = open();
    let mut r1 = db.begin_transaction(&w(), &no_wait()).expect("begin");
    let mut r2 = db.begin_transaction(&w(), &no_wait()).expect("begin");
    r1.get_for_update(&r(), b"k", false).expect("shared");
    r2.get_for_update(&r(), b"k", false).expect("shared too");
    let mut wr = db.begin_transaction(&w(), &no_wait()).expect("begin");
    assert!(wr
        .put(b"k", b"x")
        .expect_err("shared holders")
        .is_timed_out());
    // r1 cannot upgrade while r2 shares the lock; once r2 ends it can.
    assert!(r1.put(b"k", b"x").expect_err("r2 shares").is_timed_out());
    r2.rollback().expect("rollback");
    r1.put(b"k", b"r1").expect("upgrade");
    let status = db.lock_status();
    assert_eq!(status.len(), 1);
    assert!(status[0].exclusive);
    assert_eq!(status[0].ids, vec![r1.id()]);
    r1.commit().expect("commit");
    wr.put(b"k", b"w").expect("free");
}

#[test]
fn ended_transactions_refuse_every_call() {
    let db = open();
    let mut t = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t.put(b"k", b"v").expect("put");
    t.commit().expect("commit");
    for e in [
        t.commit().expect_err("twice"),
        t.put(b"k", b"again").expect_err("put after commit"),
        t.get(&r(), b"k").expect_err("get after commit"),
        t.rollback().expect_err("rollback after commit"),
        t.set_savepoint().expect_err("savepoint after commit"),
    ] {
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }
    assert_eq!(get(&db, b"k"), Some(b"v".to_vec()));
    let mut t = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    // Rolling back a started transaction clears it and leaves it open (RocksDB's `Rollback`):
    // it takes writes again and commits them.
    t.put(b"dropped", b"x").expect("put");
    t.rollback().expect("rollback");
    assert_eq!(t.get(&r(), b"dropped").expect("get"), None);
    assert!(db.lock_status().is_empty(), "rollback releases every lock");
    t.put(b"kept", b"y").expect("put after rollback");
    t.commit().expect("commit after rollback");
    assert_eq!(get(&db, b"dropped"), None);
    assert_eq!(get(&db, b"kept"), Some(b"y".to_vec()));
    assert!(matches!(t.rollback(), Err(Error::InvalidArgument(_))));
}

#[test]
fn the_lock_limit_refuses_with_busy_and_changes_nothing() {
    let db = open_with(TransactionDbOptions {
        max_num_locks: 2,
        ..TransactionDbOptions::default()
    });
    let mut t = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t.put(b"a", b"1").expect("put");
    t.put(b"b", b"1").expect("put");
    t.put(b"a", b"again").expect("a held lock is not a new one");
    let e = t.put(b"c", b"1").expect_err("over the limit");
    assert!(e.is_busy(), "{e}");
    assert_eq!(t.write_batch().count(), 3);
    assert_eq!(t.get(&r(), b"c").expect("c"), None);
    t.commit().expect("commit");
    let mut t = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t.put(b"c", b"1")
        .expect("locks were released by the commit");
    t.commit().expect("commit");
}

#[test]
fn max_write_batch_size_refuses_the_write_that_crosses_it() {
    let db = open();
    let mut t = db
        .begin_transaction(
            &w(),
            &TransactionOptions {
                max_write_batch_size: 64,
                ..TransactionOptions::default()
            },
        )
        .expect("begin");
    t.put(b"a", &[b'x'; 20]).expect("fits");
    let e = t.put(b"b", &[b'y'; 40]).expect_err("too big");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert_eq!(t.get(&r(), b"b").expect("b"), None);
    t.commit().expect("commit");
    assert_eq!(get(&db, b"a"), Some(vec![b'x'; 20]));
    assert_eq!(get(&db, b"b"), None);
}

#[test]
fn column_families_iterators_and_merges_work_inside_transactions() {
    let db = open();
    let o = cairndb::options::CfOptions {
        merge_operator: Some(Arc::new(StringAppendOperator::new(b"+"))),
        ..Default::default()
    };
    let other = db.db().create_column_family("other", o).expect("cf");
    db.put_cf(&w(), &other, b"m", b"base").expect("put");
    db.put(&w(), b"a", b"db").expect("put");
    db.put(&w(), b"c", b"db").expect("put");
    let mut t = db
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    t.merge_cf(&other, b"m", b"op").expect("merge");
    t.put(b"b", b"txn").expect("put");
    t.delete(b"c").expect("delete");
    assert_eq!(
        t.get_cf(&r(), &other, b"m").expect("m"),
        Some(b"base+op".to_vec())
    );
    assert_eq!(t.get(&r(), b"m").expect("m in default"), None);
    let mut it = t.iter(&r()).expect("iter");
    let mut seen = Vec::new();
    it.seek_to_first();
    while it.valid() {
        seen.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().expect("status");
    drop(it);
    assert_eq!(
        seen,
        vec![
            (b"a".to_vec(), b"db".to_vec()),
            (b"b".to_vec(), b"txn".to_vec())
        ]
    );
    // Locks are per column family: the same key in the default family is free.
    let mut other_txn = db.begin_transaction(&w(), &no_wait()).expect("begin");
    other_txn.put(b"m", b"default").expect("not locked");
    assert!(other_txn
        .merge_cf(&other, b"m", b"x")
        .expect_err("locked")
        .is_timed_out());
    other_txn.commit().expect("commit");
    t.commit().expect("commit");
    assert_eq!(
        db.db().get_cf(&r(), &other, b"m").expect("m"),
        Some(b"base+op".to_vec())
    );
}

#[test]
fn dropping_an_active_transaction_rolls_it_back() {
    let db = open();
    {
        let mut t = db
            .begin_transaction(&w(), &TransactionOptions::default())
            .expect("begin");
        t.put(b"k", b"v").expect("put");
    }
    assert!(db.lock_status().is_empty());
    assert_eq!(get(&db, b"k"), None);
    db.put(&w(), b"k", b"free").expect("unlocked");
}

#[test]
fn a_write_batch_with_a_range_deletion_is_refused_through_the_transaction_db() {
    let db = open();
    let mut b = cairndb::WriteBatch::new();
    b.put(b"a", b"1").expect("put");
    b.delete_range(b"b", b"c").expect("range");
    assert!(matches!(db.write(&w(), b), Err(Error::NotSupported(_))));
    assert_eq!(get(&db, b"a"), None, "nothing written");
}
