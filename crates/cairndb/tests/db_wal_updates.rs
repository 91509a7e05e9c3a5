//! `Db::get_updates_since`: the batches of the live WALs from a sequence number on, in order,
//! across WAL switches; `NotFound` for what is not written yet or was flushed away; WALs kept
//! while an iterator reads them.

mod common;

use cairndb::fs::MemFs;
use cairndb::options::{ReadOptions, WriteOptions};
use cairndb::{Db, Error, WriteBatch};
use common::{opts_no_auto_compactions, wal_names, DIR};

fn w() -> WriteOptions {
    WriteOptions::default()
}

fn open() -> Db {
    Db::open_with_fs(MemFs::new().shared(), DIR, opts_no_auto_compactions()).expect("open")
}

/// (first sequence number, keys) of each batch from `seq`.
fn updates(db: &Db, seq: u64) -> Vec<(u64, Vec<Vec<u8>>)> {
    db.get_updates_since(seq)
        .expect("updates")
        .map(|b| {
            let (s, batch) = b.expect("batch");
            let keys = batch
                .iter()
                .map(|e| e.expect("entry").key.to_vec())
                .collect();
            (s, keys)
        })
        .collect()
}

#[test]
fn batches_from_the_one_holding_the_sequence_number() {
    let db = open();
    assert!(updates(&db, 0).is_empty(), "nothing written");
    for k in [b"a", b"b"] {
        db.put(&w(), k, b"v").expect("put");
    }
    let mut b = WriteBatch::new();
    b.put(b"c", b"v").expect("put");
    b.delete(b"a").expect("delete");
    db.write(&w(), b).expect("write");
    db.put(&w(), b"d", b"v").expect("put");
    assert_eq!(db.latest_sequence(), 5);
    let all = updates(&db, 0);
    let firsts: Vec<u64> = all.iter().map(|(s, _)| *s).collect();
    assert_eq!(firsts, [1, 2, 3, 5]);
    assert_eq!(all[2].1, [b"c".to_vec(), b"a".to_vec()]);
    // Sequence 4 is inside the batch at 3: that batch comes first.
    let from4: Vec<u64> = updates(&db, 4).iter().map(|(s, _)| *s).collect();
    assert_eq!(from4, [3, 5]);
    assert_eq!(updates(&db, 5).len(), 1);
    assert!(matches!(db.get_updates_since(6), Err(Error::NotFound(_))));
    // An empty synced write (sync_wal) is not a batch of updates.
    db.sync_wal().expect("sync_wal");
    assert_eq!(updates(&db, 0).len(), 4);
}

#[test]
fn flushed_writes_are_not_found_and_an_iterator_keeps_its_wals() {
    let db = open();
    db.put(&w(), b"a", b"1").expect("put");
    db.put(&w(), b"b", b"2").expect("put");
    let mut it = db.get_updates_since(0).expect("updates");
    db.flush().expect("flush");
    // The flushed WAL is kept while the iterator reads it.
    let seen: Vec<u64> = it.by_ref().map(|b| b.expect("batch").0).collect();
    assert_eq!(seen, [1, 2]);
    drop(it);
    assert!(matches!(db.get_updates_since(0), Err(Error::NotFound(_))));
    assert!(matches!(db.get_updates_since(1), Err(Error::NotFound(_))));
    db.put(&w(), b"c", b"3").expect("put");
    // From the last flushed sequence number on, the live WAL has everything.
    let after: Vec<u64> = updates(&db, 2).iter().map(|(s, _)| *s).collect();
    assert_eq!(after, [3]);
    assert_eq!(
        db.get(&ReadOptions::default(), b"a").expect("get"),
        Some(b"1".to_vec())
    );
}

#[test]
fn batches_in_order_across_wal_switches() {
    let mut o = opts_no_auto_compactions();
    o.cf.write_buffer_size = 64 << 10;
    o.cf.max_write_buffer_number = 8;
    let mem = MemFs::new();
    let db = Db::open_with_fs(mem.shared(), DIR, o).expect("open");
    let mut first = None;
    for i in 0..2000u32 {
        db.put(&w(), format!("k{i:05}").as_bytes(), &[b'v'; 100])
            .expect("put");
        if i == 0 {
            // Made before the switches: while it lives no WAL is deleted, flushed or not.
            first = Some(db.get_updates_since(0).expect("updates"));
        }
    }
    assert!(wal_names(&mem).len() > 2, "{:?}", wal_names(&mem));
    let seqs: Vec<u64> = updates(&db, 0).iter().map(|(s, _)| *s).collect();
    assert_eq!(seqs, (1..=2000).collect::<Vec<_>>());
    // The first iterator sees only what was published before it was made.
    assert_eq!(first.expect("made").count(), 1);
}

/// An unmatched `enable_file_deletions` does not end the pause a WAL iterator holds, and an
/// iterator kept after its database was closed deletes nothing when it is dropped, even once
/// the directory was opened again.
#[test]
fn an_iterators_pause_survives_unmatched_enables_and_its_database() {
    let mem = MemFs::new();
    let db = Db::open_with_fs(mem.shared(), DIR, opts_no_auto_compactions()).expect("open");
    db.put(&w(), b"a", b"1").expect("put");
    let it = db.get_updates_since(0).expect("updates");
    let wal = wal_names(&mem);
    db.enable_file_deletions().expect("unmatched enable");
    db.flush().expect("flush");
    assert!(
        wal.iter().all(|n| wal_names(&mem).contains(n)),
        "the flushed WAL is kept while the iterator lives"
    );
    drop(db);
    let db = Db::open_with_fs(mem.shared(), DIR, opts_no_auto_compactions()).expect("reopen");
    db.put(&w(), b"b", b"2").expect("put");
    db.flush().expect("flush");
    let files = mem.shared().list(std::path::Path::new(DIR)).expect("list");
    drop(it);
    assert_eq!(
        mem.shared().list(std::path::Path::new(DIR)).expect("list"),
        files,
        "the old iterator's pause deleted nothing of the new open"
    );
    let r = ReadOptions::default();
    assert_eq!(db.get(&r, b"a").expect("get"), Some(b"1".to_vec()));
    assert_eq!(db.get(&r, b"b").expect("get"), Some(b"2".to_vec()));
}

/// Two-phase commit: a prepared transaction's records come once, with its commit, at the
/// sequence number the commit took; a prepared transaction rolled back gives nothing.
#[test]
fn prepared_transactions_show_at_their_commit_only() {
    use cairndb::{TransactionDb, TransactionDbOptions, TransactionOptions};
    let tdb = TransactionDb::open_cf_with_fs(
        MemFs::new().shared(),
        DIR,
        opts_no_auto_compactions(),
        TransactionDbOptions::default(),
        Vec::new(),
    )
    .expect("open");
    let begin = || {
        tdb.begin_transaction(&w(), &TransactionOptions::default())
            .expect("begin")
    };
    let mut t = begin();
    t.set_name("committed").expect("name");
    t.put(b"x", b"1").expect("put");
    t.put(b"y", b"2").expect("put");
    t.prepare().expect("prepare");
    let mut u = begin();
    u.set_name("rolled-back").expect("name");
    u.put(b"z", b"3").expect("put");
    u.prepare().expect("prepare");
    u.rollback().expect("rollback");
    t.commit().expect("commit");
    tdb.put(&w(), b"after", b"4").expect("put");
    let got = updates(tdb.db(), 0);
    assert_eq!(
        got,
        [
            (1, vec![b"x".to_vec(), b"y".to_vec()]),
            (3, vec![b"after".to_vec()])
        ]
    );
}
