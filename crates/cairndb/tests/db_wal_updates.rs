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
