//! The facade's own tests: what rust-rocksdb's tests do not check (refusals, the open's family
//! check, batch refusals, lifetimes of snapshots held by read options).

use crate::{
    ColumnFamilyDescriptor, DBCompressionType, ErrorKind, IteratorMode, MemtableFactory, Options,
    ReadOptions, WriteBatch, DB,
};

fn open_opts() -> Options {
    let mut o = Options::default();
    o.create_if_missing(true);
    o
}

#[test]
fn refused_setters_fail_the_open_and_name_the_setter() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open_opts();
    o.set_compression_type(DBCompressionType::Zlib);
    let e = DB::open(&o, dir.path()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotSupported);
    assert!(e.to_string().contains("set_compression_type(Zlib)"), "{e}");

    let mut o = open_opts();
    o.set_memtable_factory(MemtableFactory::Vector);
    let e = DB::open(&o, dir.path()).unwrap_err();
    assert!(
        e.to_string().contains("set_memtable_factory(Vector)"),
        "{e}"
    );
    // Nothing was created by the refused opens.
    assert!(!dir.path().join("CURRENT").exists());
}

#[test]
fn refused_read_options_fail_the_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = DB::open(&open_opts(), dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    let mut r = ReadOptions::default();
    r.set_tailing(true);
    assert_eq!(
        db.get_opt(b"k", &r).unwrap_err().kind(),
        ErrorKind::NotSupported
    );
    let mut it = db.iterator_opt(IteratorMode::Start, r);
    assert_eq!(
        it.next().unwrap().unwrap_err().kind(),
        ErrorKind::NotSupported
    );
    assert!(it.next().is_none());
}

#[test]
fn every_family_must_be_listed_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let o = open_opts();
    {
        let mut db = DB::open(&o, dir.path()).unwrap();
        db.create_cf("a", &Options::default()).unwrap();
    }
    let e = DB::open(&o, dir.path()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string().contains("Column families not opened: a"),
        "{e}"
    );
    let db = DB::open_cf_descriptors(
        &o,
        dir.path(),
        [ColumnFamilyDescriptor::new("a", Options::default())],
    )
    .unwrap();
    assert!(db.cf_handle("a").is_some());
}

#[test]
fn a_refused_record_fails_the_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    let db = DB::open(&open_opts(), dir.path()).unwrap();
    let mut b = WriteBatch::default();
    b.put(b"ok", b"1");
    b.put(vec![0u8; 9 << 20], b"key over the size limit");
    assert_eq!(b.len(), 1);
    assert!(db.write(b).is_err());
    assert_eq!(db.get(b"ok").unwrap(), None);
}

#[test]
fn read_options_keep_their_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let db = DB::open(&open_opts(), dir.path()).unwrap();
    db.put(b"k", b"old").unwrap();
    let mut r = ReadOptions::default();
    {
        let snap = db.snapshot();
        r.set_snapshot(&snap);
    }
    db.put(b"k", b"new").unwrap();
    db.flush().unwrap();
    db.compact_range(None::<&[u8]>, None::<&[u8]>);
    // The snapshot was dropped, but the read options still hold it registered, so compaction
    // kept the old version.
    assert_eq!(db.get_opt(b"k", &r).unwrap(), Some(b"old".to_vec()));
}
