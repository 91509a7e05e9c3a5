//! Read-only opens (`db/read_only.rs`): what the handle sees, that it writes nothing, and that
//! every call that would write is refused.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use cairndb::db::ColumnFamilyDescriptor;
use cairndb::fs::{read_all, FileSystem, MemFs};
use cairndb::options::{CfOptions, Options, ReadOptions, WriteOptions};
use cairndb::{Db, Error, IngestExternalFileOptions};
use common::{key, opts, scan, scan_cf, DIR};

/// Every file of the directory with its bytes.
fn snapshot_dir(fs: &dyn FileSystem) -> BTreeMap<String, Vec<u8>> {
    let dir = Path::new(DIR);
    fs.list(dir)
        .expect("list")
        .into_iter()
        .map(|name| {
            let bytes = read_all(fs, &dir.join(&name)).expect("read");
            (name, bytes)
        })
        .collect()
}

/// A database with a family `cf1`, some of its data in tables and the rest only in WALs (more
/// than one memtable's worth, so that a read-only replay fills memtables), closed.
fn build(fs: &Arc<dyn FileSystem>) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut o = opts();
    o.db.create_missing_column_families = true;
    // The writer's memtable holds everything written after its flush; the read-only opens
    // below replay it with opts()'s 64 KiB memtables.
    o.cf.write_buffer_size = 4 << 20;
    let db = Db::open_cf_with_fs(
        Arc::clone(fs),
        DIR,
        o,
        vec![ColumnFamilyDescriptor::new("cf1", CfOptions::default())],
    )
    .expect("open");
    let w = WriteOptions::default();
    for i in 0..500 {
        db.put(&w, &key(i), &[b'a'; 100]).expect("put");
    }
    db.flush().expect("flush");
    let cf1 = db.column_family("cf1").expect("cf1");
    db.put_cf(&w, &cf1, b"in-cf1", b"only in the WAL")
        .expect("put");
    db.delete(&w, &key(7)).expect("delete");
    // About 200 KB after the flush: more than two 64 KiB memtables when replayed.
    for i in 500..2000 {
        db.put(&w, &key(i), &[b'b'; 100]).expect("put");
    }
    let expected = scan(&db);
    db.close().expect("close");
    expected
}

fn read_only(fs: &Arc<dyn FileSystem>, o: Options) -> cairndb::Result<Db> {
    Db::open_cf_for_read_only_with_fs(
        Arc::clone(fs),
        DIR,
        o,
        vec![ColumnFamilyDescriptor::new("cf1", CfOptions::default())],
        false,
    )
}

#[test]
fn sees_tables_and_wals_and_writes_nothing() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let expected = build(&fs);
    let before = snapshot_dir(&*fs);

    let mut o = opts();
    o.db.create_if_missing = false;
    let db = read_only(&fs, o).expect("read-only open");
    assert!(db.is_read_only());
    assert_eq!(scan(&db), expected);
    assert!(
        db.num_immutable_memtables() > 0,
        "the WALs held more than one memtable, kept in memory"
    );
    assert_eq!(db.get(&ReadOptions::default(), &key(7)).expect("get"), None);
    let cf1 = db.column_family("cf1").expect("cf1");
    assert_eq!(
        db.get_cf(&ReadOptions::default(), &cf1, b"in-cf1")
            .expect("get"),
        Some(b"only in the WAL".to_vec())
    );
    assert_eq!(scan_cf(&db, &ReadOptions::default(), &cf1).len(), 1);
    let snap = db.snapshot().expect("snapshot");
    let at_snap = ReadOptions {
        snapshot: Some(snap.sequence()),
        ..ReadOptions::default()
    };
    assert_eq!(common::scan_at(&db, &at_snap), expected);
    drop(snap);
    db.wait_for_compactions().expect("nothing to wait for");
    db.close().expect("close");
    drop(db);

    assert_eq!(
        snapshot_dir(&*fs),
        before,
        "a read-only open, its reads and its close change no file"
    );
}

#[test]
fn every_call_that_would_write_is_refused() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let expected = build(&fs);
    let before = snapshot_dir(&*fs);
    let db = read_only(&fs, opts()).expect("read-only open");
    let w = WriteOptions::default();
    let synced = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    let cf1 = db.column_family("cf1").expect("cf1");
    let refusals: Vec<(&str, cairndb::Result<()>)> = vec![
        ("put", db.put(&w, b"k", b"v")),
        ("put_cf", db.put_cf(&w, &cf1, b"k", b"v")),
        ("delete", db.delete(&w, &key(1))),
        ("delete_range", db.delete_range(&w, &key(0), &key(9))),
        ("merge", db.merge(&w, b"k", b"v")),
        (
            "empty synced write",
            db.write(&synced, cairndb::WriteBatch::new()),
        ),
        ("sync_wal", db.sync_wal()),
        ("flush", db.flush()),
        ("compact_range", db.compact_range(None, None)),
        (
            "ingest",
            db.ingest_external_file(&["/nowhere.sst"], &IngestExternalFileOptions::default()),
        ),
        (
            "create_column_family",
            db.create_column_family("cf2", CfOptions::default())
                .map(drop),
        ),
        ("drop_column_family", db.drop_column_family(&cf1)),
        (
            "set_options",
            db.set_options(&cf1, &[("write_buffer_size", "1048576")]),
        ),
        (
            "set_db_options",
            db.set_db_options(&[("max_background_jobs", "4")]),
        ),
        ("checkpoint", db.checkpoint("/checkpoint").map(drop)),
    ];
    for (what, result) in refusals {
        let e = result.expect_err(what);
        assert!(
            matches!(e.root(), Error::NotSupported(m) if m.contains("read-only")),
            "{what}: {e}"
        );
    }
    assert_eq!(scan(&db), expected, "nothing changed what the handle sees");
    assert!(db.column_family("cf2").is_none());
    drop(db);
    assert_eq!(snapshot_dir(&*fs), before);
    assert!(!fs.exists(Path::new("/checkpoint")).expect("exists"));
}

#[test]
fn opens_beside_a_writer_and_sees_the_database_as_of_its_open() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let writer = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    let w = WriteOptions::default();
    writer.put(&w, b"before", b"1").expect("put");
    let reader = Db::open_cf_for_read_only_with_fs(Arc::clone(&fs), DIR, opts(), Vec::new(), false)
        .expect("read-only open");
    writer.put(&w, b"after", b"2").expect("put");
    writer.flush().expect("flush");
    let ro = ReadOptions::default();
    assert_eq!(
        reader.get(&ro, b"before").expect("get"),
        Some(b"1".to_vec())
    );
    assert_eq!(reader.get(&ro, b"after").expect("get"), None);
    // A second read-write open is still refused: the reader took no lock, the writer has it.
    let e = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect_err("locked");
    assert!(e.is_lock_held(), "{e}");
    drop(reader);
    writer
        .put(&w, b"later", b"3")
        .expect("the writer is unaffected");
}

#[test]
fn refusals_at_open() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    // No database: refused whatever create_if_missing says, and nothing is created.
    let e = Db::open_cf_for_read_only_with_fs(Arc::clone(&fs), DIR, opts(), Vec::new(), false)
        .expect_err("no database");
    assert!(matches!(e.root(), Error::InvalidArgument(_)), "{e}");
    assert!(!fs.exists(Path::new(DIR)).expect("exists"));

    build(&fs);
    // A named family the database lacks is refused even with create_missing_column_families.
    let mut o = opts();
    o.db.create_missing_column_families = true;
    let e = Db::open_cf_for_read_only_with_fs(
        Arc::clone(&fs),
        DIR,
        o,
        vec![ColumnFamilyDescriptor::new("nope", CfOptions::default())],
        false,
    )
    .expect_err("missing family");
    assert!(matches!(e.root(), Error::InvalidArgument(_)), "{e}");
    // error_if_wal_file_exists: the closed database kept its WAL, so the open fails as
    // RocksDB's does (Corruption naming the WAL).
    let e = Db::open_cf_for_read_only_with_fs(Arc::clone(&fs), DIR, opts(), Vec::new(), true)
        .expect_err("a live WAL exists");
    assert!(e.is_corruption(), "{e}");
    assert!(e.to_string().contains(".log"), "{e}");
}

#[test]
fn error_if_wal_file_exists_opens_a_database_whose_wals_are_gone() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    build(&fs);
    // A read-write open replays the WALs into tables and deletes them; its flush leaves its
    // own WAL empty, and that one is deleted by hand after close: every byte is in tables.
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    db.flush().expect("flush");
    let expected = scan(&db);
    db.close().expect("close");
    drop(db);
    for name in common::wal_names(&*fs) {
        fs.remove(&Path::new(DIR).join(name)).expect("remove");
    }
    let db = Db::open_cf_for_read_only_with_fs(Arc::clone(&fs), DIR, opts(), Vec::new(), true)
        .expect("no live WAL");
    assert_eq!(scan(&db), expected);
}
