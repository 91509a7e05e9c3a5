//! Optimistic transactions: no locks while they run; at commit, a key written or read for update
//! that another writer changed after the transaction first touched it (or after its snapshot)
//! fails the commit with `Busy` and writes nothing.

mod common;

use std::sync::Arc;
use std::thread;

use cairndb::fs::MemFs;
use cairndb::options::{ReadOptions, WriteOptions};
use cairndb::{
    Error, OptimisticTransactionDb, OptimisticTransactionDbOptions, OptimisticTransactionOptions,
    UInt64AddOperator,
};

fn open() -> OptimisticTransactionDb {
    let mut o = common::opts();
    o.cf.merge_operator = Some(Arc::new(UInt64AddOperator));
    OptimisticTransactionDb::open_cf_with_fs(
        MemFs::new().shared(),
        common::DIR,
        o,
        OptimisticTransactionDbOptions {
            occ_lock_buckets: 64,
        },
        Vec::new(),
    )
    .expect("open")
}

fn w() -> WriteOptions {
    WriteOptions::default()
}

fn r() -> ReadOptions {
    ReadOptions::default()
}

#[test]
fn a_write_after_the_first_access_fails_the_commit() {
    let db = open();
    let mut t = db.begin_transaction(&w(), &OptimisticTransactionOptions::default());
    t.put(b"k", b"mine").expect("put");
    t.put(b"other", b"x").expect("put");
    db.db().put(&w(), b"k", b"theirs").expect("put");
    let e = t.commit().expect_err("conflict");
    assert!(e.is_busy(), "{e}");
    assert_eq!(
        db.db().get(&r(), b"k").expect("get"),
        Some(b"theirs".to_vec())
    );
    assert_eq!(
        db.db().get(&r(), b"other").expect("get"),
        None,
        "nothing written"
    );
    // The transaction stays open after the conflict: committing again checks again (and
    // fails again), and a rollback clears it.
    assert!(t.commit().expect_err("still a conflict").is_busy());
    t.rollback().expect("rollback after a failed commit");
}

#[test]
fn a_write_before_the_first_access_is_no_conflict_without_a_snapshot() {
    let db = open();
    let mut t = db.begin_transaction(&w(), &OptimisticTransactionOptions::default());
    db.db().put(&w(), b"k", b"before").expect("put");
    assert_eq!(
        t.get_for_update(&r(), b"k").expect("get"),
        Some(b"before".to_vec())
    );
    t.put(b"k", b"mine").expect("put");
    t.commit().expect("no conflict");
    assert_eq!(
        db.db().get(&r(), b"k").expect("get"),
        Some(b"mine".to_vec())
    );
}

#[test]
fn with_a_snapshot_any_write_after_it_conflicts() {
    let db = open();
    let mut t = db.begin_transaction(&w(), &OptimisticTransactionOptions { set_snapshot: true });
    db.db()
        .delete(&w(), b"k")
        .expect("a deletion is a write too");
    db.db()
        .flush()
        .expect("flush: the check reads the tables as well");
    t.put(b"k", b"mine").expect("put");
    assert!(t.commit().expect_err("conflict").is_busy());
}

#[test]
fn plain_reads_are_not_checked_but_reads_for_update_are() {
    let db = open();
    db.db().put(&w(), b"a", b"1").expect("put");
    let mut t = db.begin_transaction(&w(), &OptimisticTransactionOptions::default());
    t.get(&r(), b"a").expect("plain read");
    t.put(b"b", b"x").expect("put");
    db.db().put(&w(), b"a", b"2").expect("put");
    t.commit().expect("a plain read is not validated");

    let mut t = db.begin_transaction(&w(), &OptimisticTransactionOptions::default());
    t.get_for_update(&r(), b"a").expect("read for update");
    t.put(b"b", b"y").expect("put");
    db.db().put(&w(), b"a", b"3").expect("put");
    assert!(t.commit().expect_err("validated").is_busy());
    assert_eq!(db.db().get(&r(), b"b").expect("get"), Some(b"x".to_vec()));
}

#[test]
fn concurrent_increments_with_retries_lose_nothing() {
    let db = open();
    db.db().put(&w(), b"n", &0u64.to_le_bytes()).expect("put");
    let threads = 4;
    let per_thread = 100;
    let retries: u64 = thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|_| {
                let db = &db;
                s.spawn(move || {
                    let mut retries = 0;
                    for _ in 0..per_thread {
                        loop {
                            let mut t = db
                                .begin_transaction(&w(), &OptimisticTransactionOptions::default());
                            let v = t.get_for_update(&r(), b"n").expect("get").expect("n");
                            let n = u64::from_le_bytes(v.try_into().expect("8 bytes"));
                            t.put(b"n", &(n + 1).to_le_bytes()).expect("put");
                            match t.commit() {
                                Ok(()) => break,
                                Err(e) if e.is_busy() => retries += 1,
                                Err(e) => panic!("{e}"),
                            }
                        }
                    }
                    retries
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().expect("thread")).sum()
    });
    let v = db.db().get(&r(), b"n").expect("get").expect("n");
    assert_eq!(
        u64::from_le_bytes(v.try_into().expect("8")),
        (threads * per_thread) as u64
    );
    // Retries depend on scheduling; they are reported, not asserted.
    println!("retries: {retries}");
}

#[test]
fn merges_and_iterators_see_the_transactions_writes() {
    let db = open();
    db.db()
        .merge(&w(), b"c", &5u64.to_le_bytes())
        .expect("merge");
    let mut t = db.begin_transaction(&w(), &OptimisticTransactionOptions::default());
    t.merge(b"c", &2u64.to_le_bytes()).expect("merge");
    t.put(b"d", b"x").expect("put");
    assert_eq!(
        t.get(&r(), b"c").expect("get"),
        Some(7u64.to_le_bytes().to_vec())
    );
    let mut it = t.iter(&r()).expect("iter");
    it.seek_to_first();
    assert_eq!(it.key(), b"c");
    it.next();
    assert_eq!(it.key(), b"d");
    drop(it);
    t.commit().expect("commit");
    assert_eq!(
        db.db().get(&r(), b"c").expect("get"),
        Some(7u64.to_le_bytes().to_vec())
    );
}

#[test]
fn savepoints_roll_back_the_writes_since_them() {
    let db = open();
    let mut t = db.begin_transaction(&w(), &OptimisticTransactionOptions::default());
    t.put(b"a", b"1").expect("put");
    t.set_savepoint().expect("savepoint");
    t.put(b"b", b"2").expect("put");
    t.set_savepoint().expect("savepoint");
    t.delete(b"a").expect("delete");
    t.rollback_to_savepoint().expect("to the second");
    assert_eq!(t.get(&r(), b"a").expect("get"), Some(b"1".to_vec()));
    t.rollback_to_savepoint().expect("to the first");
    assert_eq!(t.get(&r(), b"b").expect("get"), None);
    assert!(matches!(t.rollback_to_savepoint(), Err(Error::NotFound(_))));
    t.set_savepoint().expect("savepoint");
    t.put(b"c", b"3").expect("put");
    t.pop_savepoint().expect("pop keeps the writes");
    t.commit().expect("commit");
    let db = db.db();
    assert_eq!(db.get(&r(), b"a").expect("get"), Some(b"1".to_vec()));
    assert_eq!(db.get(&r(), b"b").expect("get"), None);
    assert_eq!(db.get(&r(), b"c").expect("get"), Some(b"3".to_vec()));
}

#[test]
fn rollback_clears_the_transaction_and_leaves_it_open() {
    let db = open();
    let mut t = db.begin_transaction(&w(), &OptimisticTransactionOptions::default());
    t.put(b"k", b"mine").expect("put");
    // Another writer changes the tracked key: committing now would conflict.
    db.db().put(&w(), b"k", b"theirs").expect("put");
    t.rollback().expect("rollback");
    assert_eq!(t.get(&r(), b"k").expect("get"), Some(b"theirs".to_vec()));
    // The rollback dropped the write and its tracking; the transaction goes on.
    t.put(b"j", b"after").expect("put after rollback");
    t.commit().expect("no conflict left");
    assert_eq!(
        db.db().get(&r(), b"j").expect("get"),
        Some(b"after".to_vec())
    );
    assert_eq!(
        db.db().get(&r(), b"k").expect("get"),
        Some(b"theirs".to_vec())
    );
    assert!(matches!(t.rollback(), Err(Error::InvalidArgument(_))));
}
