//! Bulk loading through the public API (issue 16, item 2): `SstFileWriter` builds files in a
//! column family's order and refuses keys out of it; `ingest_external_file` adds them all or
//! nothing, at sequence number 0 in the last level where nothing overlaps and no snapshot is
//! live, else at a new sequence number above everything (memtables flushed when they hold the
//! range); snapshots taken before do not see the files; the files survive reopen; a crash at
//! every file operation of an ingestion leaves it whole or absent.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairndb::fs::{CrashOptions, FaultFs, FaultRule, FileSystem, MemFs};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{Db, Error, IngestExternalFileOptions, KeyOrder, SstFileWriter};
use common::DIR;

fn w() -> WriteOptions {
    WriteOptions::default()
}

fn r() -> ReadOptions {
    ReadOptions::default()
}

fn opts() -> Options {
    let mut o = common::opts();
    o.cf.disable_auto_compactions = true;
    o
}

fn ing() -> IngestExternalFileOptions {
    IngestExternalFileOptions::default()
}

fn key(i: u32) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

/// Writes an external file at `path` putting `keys` (ascending) to `value`.
fn external(
    fs: &Arc<dyn FileSystem>,
    o: &Options,
    path: &str,
    keys: impl Iterator<Item = u32>,
    value: &[u8],
) -> PathBuf {
    let mut wr = SstFileWriter::for_family(Arc::clone(fs), &o.db, &o.cf);
    wr.open(path).expect("open");
    for k in keys {
        wr.put(&key(k), value).expect("put");
    }
    wr.finish().expect("finish").file_path
}

fn files_at(db: &Db, level: usize) -> u64 {
    db.property(&format!("rocksdb.num-files-at-level{level}"))
        .expect("property")
        .parse()
        .expect("number")
}

fn all(db: &Db, ro: &ReadOptions) -> BTreeMap<Vec<u8>, Vec<u8>> {
    common::scan_at(db, ro)
}

#[test]
fn the_writer_keeps_the_family_order_and_reports_the_file() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let o = opts();
    let mut wr = SstFileWriter::for_family(Arc::clone(&fs), &o.db, &o.cf);
    assert!(
        matches!(wr.put(b"a", b"1"), Err(Error::InvalidArgument(_))),
        "not open"
    );
    wr.open("/x.sst").expect("open");
    wr.put(b"b", b"1").expect("put");
    let e = wr.put(b"a", b"1").expect_err("out of order");
    assert!(e.to_string().contains("strictly increasing"), "{e}");
    assert!(
        matches!(wr.put(b"b", b"2"), Err(Error::InvalidArgument(_))),
        "repeated"
    );
    wr.delete(b"c").expect("delete");
    wr.merge(b"d", b"m").expect("merge");
    wr.delete_range(b"x", b"z").expect("range");
    assert!(matches!(
        wr.delete_range(b"z", b"x"),
        Err(Error::InvalidArgument(_))
    ));
    let info = wr.finish().expect("finish");
    assert_eq!(info.file_path, PathBuf::from("/x.sst"));
    assert_eq!((info.num_entries, info.num_range_del_entries), (3, 1));
    assert_eq!(
        (&info.smallest_key[..], &info.largest_key[..]),
        (&b"b"[..], &b"z"[..])
    );
    assert_eq!(info.sequence_number, 0);
    assert_eq!(info.file_size, fs.size(Path::new("/x.sst")).expect("size"));
    // An empty file is refused and not left behind; an unfinished one is removed on drop.
    wr.open("/empty.sst").expect("open");
    assert!(matches!(wr.finish(), Err(Error::InvalidArgument(_))));
    assert!(!fs.exists(Path::new("/empty.sst")).expect("exists"));
    wr.open("/dropped.sst").expect("open");
    wr.put(b"k", b"v").expect("put");
    drop(wr);
    assert!(!fs.exists(Path::new("/dropped.sst")).expect("exists"));
    // Descending order for a reverse family.
    let mut rev = opts();
    rev.cf.comparator = KeyOrder::REVERSE_BYTEWISE;
    let mut wr = SstFileWriter::for_family(Arc::clone(&fs), &rev.db, &rev.cf);
    wr.open("/rev.sst").expect("open");
    wr.put(b"b", b"1").expect("put");
    wr.put(b"a", b"1").expect("descending");
    assert!(matches!(wr.put(b"c", b"1"), Err(Error::InvalidArgument(_))));
    wr.finish().expect("finish");
}

#[test]
fn a_new_key_range_goes_to_the_last_level_as_written() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let o = opts();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    db.put(&w(), b"zzz", b"other").expect("put");
    let a = external(&fs, &o, "/a.sst", 0..500, b"va");
    let b = external(&fs, &o, "/b.sst", 500..1000, b"vb");
    let moved = IngestExternalFileOptions {
        move_files: true,
        ..ing()
    };
    db.ingest_external_file(&[&b, &a], &moved).expect("ingest");
    assert_eq!(files_at(&db, 6), 2, "both files in the last level");
    assert_eq!(files_at(&db, 0), 0);
    assert!(fs.exists(&a).expect("exists"), "the external files stay");
    let got = all(&db, &r());
    assert_eq!(got.len(), 1001);
    assert_eq!(got[&key(7)], b"va");
    assert_eq!(got[&key(700)], b"vb");
    db.close().expect("close");
    let db = Db::open_with_fs(fs, DIR, o).expect("reopen");
    assert_eq!(all(&db, &r()).len(), 1001);
    db.close().expect("close");
}

#[test]
fn overlapping_data_is_hidden_and_snapshots_do_not_see_the_files() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let o = opts();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    for i in 0..100 {
        db.put(&w(), &key(i), b"old-table").expect("put");
    }
    db.flush().expect("flush");
    for i in 50..150 {
        db.put(&w(), &key(i), b"old-mem").expect("put");
    }
    let snap = db.snapshot().expect("snapshot");
    let before = all(&db, &r());
    let f = external(&fs, &o, "/f.sst", (0..200).step_by(2), b"new");
    // Without a blocking flush the memtable's keys stand in the way.
    let no_flush = IngestExternalFileOptions {
        allow_blocking_flush: false,
        ..ing()
    };
    let e = db
        .ingest_external_file(&[&f], &no_flush)
        .expect_err("needs a flush");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let no_seq = IngestExternalFileOptions {
        allow_global_seqno: false,
        ..ing()
    };
    db.flush().expect("flush");
    let e = db
        .ingest_external_file(&[&f], &no_seq)
        .expect_err("needs a sequence number");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    db.put(&w(), &key(60), b"old-mem-again").expect("put");
    db.ingest_external_file(&[&f], &ing()).expect("ingest");
    assert_eq!(
        files_at(&db, 0),
        4,
        "three flushes (the last one the ingestion's) and the ingested file in L0"
    );
    let mut want = before.clone();
    want.insert(key(60), b"old-mem-again".to_vec());
    for i in (0..200).step_by(2) {
        want.insert(key(i), b"new".to_vec());
    }
    assert_eq!(all(&db, &r()), want, "the file is above every older write");
    let at_snap = ReadOptions {
        snapshot: Some(snap.sequence()),
        ..r()
    };
    assert_eq!(
        all(&db, &at_snap),
        before,
        "an earlier snapshot does not see it"
    );
    // Writes after the ingestion are newer than it.
    db.put(&w(), &key(2), b"after").expect("put");
    want.insert(key(2), b"after".to_vec());
    assert_eq!(all(&db, &r()), want);
    drop(snap);
    db.compact_range(None, None).expect("compact");
    assert_eq!(all(&db, &r()), want, "after a full compaction");
    db.close().expect("close");
    let db = Db::open_with_fs(fs, DIR, o).expect("reopen");
    assert_eq!(all(&db, &r()), want, "after reopen");
    db.close().expect("close");
}

#[test]
fn bad_inputs_ingest_nothing() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let o = opts();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    let good = external(&fs, &o, "/good.sst", 0..10, b"g");
    let overlapping = external(&fs, &o, "/over.sst", 5..20, b"o");
    let e = db
        .ingest_external_file(&[&good, &overlapping], &ing())
        .expect_err("overlap");
    assert!(e.to_string().contains("overlap"), "{e}");
    // Another comparator's file.
    let mut rev = o.clone();
    rev.cf.comparator = KeyOrder::REVERSE_BYTEWISE;
    let mut wr = SstFileWriter::for_family(Arc::clone(&fs), &rev.db, &rev.cf);
    wr.open("/rev.sst").expect("open");
    wr.put(b"zz", b"r").expect("put");
    wr.finish().expect("finish");
    let e = db
        .ingest_external_file(&[good.as_path(), Path::new("/rev.sst")], &ing())
        .expect_err("comparator");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    // A missing file, and a database table (its entries carry sequence numbers).
    assert!(db
        .ingest_external_file(&[good.as_path(), Path::new("/missing.sst")], &ing())
        .is_err());
    db.put(&w(), b"x", b"1").expect("put");
    db.flush().expect("flush");
    let table = fs
        .list(Path::new(DIR))
        .expect("list")
        .into_iter()
        .find(|n| n.ends_with(".sst"))
        .expect("a table");
    let e = db
        .ingest_external_file(&[Path::new(DIR).join(table)], &ing())
        .expect_err("not external");
    assert!(e.to_string().contains("not an external"), "{e}");
    let behind = IngestExternalFileOptions {
        ingest_behind: true,
        ..ing()
    };
    assert!(matches!(
        db.ingest_external_file(&[&good], &behind),
        Err(Error::NotSupported(_))
    ));
    assert_eq!(all(&db, &r()).len(), 1, "nothing was ingested");
    let ssts = |fs: &Arc<dyn FileSystem>| {
        fs.list(Path::new(DIR))
            .expect("list")
            .into_iter()
            .filter(|n| n.ends_with(".sst"))
            .count()
    };
    assert_eq!(ssts(&fs), 1, "no copies left behind");
    db.close().expect("close");
}

#[test]
fn a_reverse_family_ingests_in_its_order() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let mut o = opts();
    o.cf.comparator = KeyOrder::REVERSE_BYTEWISE;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    db.put(&w(), &key(5), b"old").expect("put");
    let f = external(&fs, &o, "/f.sst", (0..10).rev(), b"new");
    db.ingest_external_file(&[&f], &ing()).expect("ingest");
    let mut it = db.iter(&r()).expect("iter");
    it.seek_to_first();
    let mut keys = Vec::new();
    while it.valid() {
        assert_eq!(it.value(), b"new");
        keys.push(it.key().to_vec());
        it.next();
    }
    assert_eq!(keys, (0..10).rev().map(key).collect::<Vec<_>>());
    drop(it);
    db.close().expect("close");
}

/// A crash at each mutating file operation of an ingestion: after recovery the files' keys are
/// all there with their ingested values, or none is (the older values stand), and no copy is
/// left behind.
#[test]
fn a_crash_at_every_file_operation_leaves_the_ingestion_whole_or_absent() {
    let mut completed = false;
    let mut points = 0;
    for k in 1..200u64 {
        let mem = MemFs::new();
        let fault = FaultFs::new(mem.shared(), k);
        let fs = fault.shared();
        let o = opts();
        let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
        for i in 0..20 {
            db.put(&w(), &key(i), b"old").expect("put");
        }
        db.flush().expect("flush");
        db.put(&WriteOptions { sync: true, ..w() }, &key(0), b"old")
            .expect("synced put");
        let ext: Arc<dyn FileSystem> = mem.shared();
        let a = external(&ext, &o, "/a.sst", 0..10, b"new");
        let b = external(&ext, &o, "/b.sst", 10..30, b"new");
        fault.add_rule(FaultRule::halt_at_mutating(k));
        let result = db.ingest_external_file(&[&a, &b], &ing());
        drop(db);
        points += 1;
        let crashed = mem.crash_clone(CrashOptions::synced_only()).shared();
        let db = Db::open_with_fs(Arc::clone(&crashed), DIR, o).expect("recover");
        let got = all(&db, &r());
        let new = (0..30)
            .filter(|&i| got.get(&key(i)).map(Vec::as_slice) == Some(b"new"))
            .count();
        let old = (0..20)
            .filter(|&i| got.get(&key(i)).map(Vec::as_slice) == Some(b"old"))
            .count();
        assert!(
            (new == 30 && old == 0) || (new == 0 && old == 20 && got.len() == 20),
            "crash at operation {k}: {new} new and {old} old keys of {}",
            got.len()
        );
        if result.is_ok() {
            assert_eq!(
                new, 30,
                "crash at operation {k}: an acknowledged ingestion was lost"
            );
        }
        // Everything in the directory is a live file or was removed at open.
        let live: u64 = (0..7).map(|l| files_at(&db, l)).sum();
        let tables = crashed
            .list(Path::new(DIR))
            .expect("list")
            .into_iter()
            .filter(|n| n.ends_with(".sst"))
            .count() as u64;
        assert_eq!(tables, live, "crash at operation {k}: leftover tables");
        db.close().expect("close");
        if result.is_ok() {
            completed = true;
            break;
        }
    }
    assert!(
        completed,
        "the ingestion never completed within the crash points"
    );
    assert!(points > 5, "{points} crash points");
}

/// `file_size` grows while the file is written and, after `finish`, is the finished file's size
/// (RocksDB's `FileSize`); a new `open` starts counting the new file.
#[test]
fn file_size_reports_the_finished_file() {
    let mem = MemFs::new();
    let fs = mem.shared();
    let o = opts();
    let mut wr = SstFileWriter::for_family(Arc::clone(&fs), &o.db, &o.cf);
    assert_eq!(wr.file_size(), 0);
    wr.open("/ext1.sst").expect("open");
    for i in 0..2000 {
        wr.put(&key(i), &[b'v'; 100]).expect("put");
    }
    let growing = wr.file_size();
    assert!(growing > 0, "data blocks written so far");
    let info = wr.finish().expect("finish");
    assert_eq!(wr.file_size(), info.file_size);
    assert!(info.file_size >= growing);
    assert_eq!(
        fs.size(Path::new("/ext1.sst")).expect("size"),
        info.file_size
    );
    wr.open("/ext2.sst").expect("open again");
    assert!(wr.file_size() < growing);
}
