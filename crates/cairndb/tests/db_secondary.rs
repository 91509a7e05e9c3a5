//! Secondary instances (`db/secondary.rs`): a read-only handle that catches up with a primary
//! writing the same directory.

mod common;

use std::path::Path;
use std::sync::Arc;

use cairndb::db::ColumnFamilyDescriptor;
use cairndb::fs::{FaultFs, FaultKind, FaultRule, FileSystem, MemFs, OpKind, RealFs};
use cairndb::options::{CfOptions, ReadOptions, WriteOptions};
use cairndb::{Db, Error};
use common::{key, opts, scan, scan_cf, DIR};

const SECONDARY: &str = "/secondary";

fn primary_with_cf1(fs: &Arc<dyn FileSystem>, dir: &Path) -> Db {
    let mut o = opts();
    o.db.create_missing_column_families = true;
    Db::open_cf_with_fs(
        Arc::clone(fs),
        dir,
        o,
        vec![ColumnFamilyDescriptor::new("cf1", CfOptions::default())],
    )
    .expect("open primary")
}

fn secondary(fs: &Arc<dyn FileSystem>, dir: &Path, log_dir: &Path) -> Db {
    Db::open_cf_as_secondary_with_fs(
        Arc::clone(fs),
        dir,
        log_dir,
        opts(),
        vec![ColumnFamilyDescriptor::new("cf1", CfOptions::default())],
    )
    .expect("open secondary")
}

fn put_range(db: &Db, range: std::ops::Range<u32>, tag: u8) {
    let w = WriteOptions::default();
    for i in range {
        db.put(&w, &key(i), &[tag; 100]).expect("put");
    }
}

/// On the real file system: a table the primary deletes stays readable to a reader that has
/// it open, which MemFs does not model (it drops a file's bytes with its last name).
#[test]
fn follows_the_primary_through_writes_flushes_and_compactions() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (dir, log_dir) = (tmp.path().join("db"), tmp.path().join("secondary"));
    let fs: Arc<dyn FileSystem> = RealFs::shared();
    let primary = primary_with_cf1(&fs, &dir);
    put_range(&primary, 0..500, b'a');
    primary.flush().expect("flush");
    put_range(&primary, 500..800, b'b');
    let sec = secondary(&fs, &dir, &log_dir);
    assert!(sec.is_secondary() && sec.is_read_only());
    assert_eq!(scan(&sec), scan(&primary));

    // The primary moves on: more WAL data, flushes, a full compaction, a family write.
    put_range(&primary, 0..2000, b'c');
    primary.flush().expect("flush");
    primary.compact_range(None, None).expect("compact");
    put_range(&primary, 100..200, b'd');
    let cf1 = primary.column_family("cf1").expect("cf1");
    primary
        .put_cf(&WriteOptions::default(), &cf1, b"x", b"y")
        .expect("put");
    assert_eq!(scan(&sec).len(), 800, "nothing is seen before the catch-up");
    // An iterator positioned before the catch-up holds its tables open.
    let mut old_view = sec.iter(&ReadOptions::default()).expect("iterator");
    old_view.seek_to_first();

    sec.try_catch_up_with_primary().expect("catch up");
    assert_eq!(scan(&sec), scan(&primary));
    let sec_cf1 = sec.column_family("cf1").expect("cf1");
    assert_eq!(scan_cf(&sec, &ReadOptions::default(), &sec_cf1).len(), 1);
    assert!(sec.latest_sequence() == primary.latest_sequence());
    // It keeps its view, although the primary's compaction deleted those tables.
    let mut n = 0;
    while old_view.valid() {
        n += 1;
        old_view.next();
    }
    old_view.status().expect("old iterator");
    assert_eq!(n, 800);

    // Writes are refused; a second catch-up with nothing new changes nothing.
    let e = sec
        .put(&WriteOptions::default(), b"k", b"v")
        .expect_err("read-only");
    assert!(matches!(e.root(), Error::NotSupported(_)), "{e}");
    sec.try_catch_up_with_primary().expect("catch up again");
    assert_eq!(scan(&sec), scan(&primary));

    // The secondary's info log is in its own directory; the primary's directory has no
    // file the secondary made (it holds one LOG, the primary's).
    assert!(fs.exists(&log_dir.join("LOG")).expect("exists"));
    let names = fs.list(&dir).expect("list");
    assert_eq!(names.iter().filter(|n| n.starts_with("LOG")).count(), 1);
}

#[test]
fn a_family_the_primary_drops_is_dropped_at_the_catch_up() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let primary = primary_with_cf1(&fs, Path::new(DIR));
    let cf1 = primary.column_family("cf1").expect("cf1");
    primary
        .put_cf(&WriteOptions::default(), &cf1, b"k", b"v")
        .expect("put");
    let sec = secondary(&fs, Path::new(DIR), Path::new(SECONDARY));
    let sec_cf1 = sec.column_family("cf1").expect("cf1");
    let ro = ReadOptions::default();
    assert_eq!(
        sec.get_cf(&ro, &sec_cf1, b"k").expect("get"),
        Some(b"v".to_vec())
    );
    primary.drop_column_family(&cf1).expect("drop");
    sec.try_catch_up_with_primary().expect("catch up");
    assert!(
        sec.get_cf(&ro, &sec_cf1, b"k").is_err(),
        "a dropped family fails reads"
    );
    assert!(sec.column_family("cf1").is_none());
}

#[test]
fn a_failed_catch_up_leaves_the_handle_as_it_was() {
    let mem: Arc<dyn FileSystem> = MemFs::new().shared();
    let primary = primary_with_cf1(&mem, Path::new(DIR));
    put_range(&primary, 0..300, b'a');
    // The secondary reads through a file system that fails every WAL open: as if the primary
    // deleted the WAL between the listing and the read, at each of the catch-up's attempts.
    let faulty = FaultFs::new(Arc::clone(&mem), 7);
    let sec = secondary(&faulty.shared(), Path::new(DIR), Path::new(SECONDARY));
    let before = scan(&sec);
    put_range(&primary, 300..600, b'b');
    faulty.add_rule(FaultRule::random(&[OpKind::Open], 1.0, FaultKind::Eio).on_paths(".log"));
    let e = sec
        .try_catch_up_with_primary()
        .expect_err("the WAL read fails");
    assert!(e.is_io(), "{e}");
    assert_eq!(scan(&sec), before, "the old state is kept whole");
    faulty.clear_rules();
    sec.try_catch_up_with_primary()
        .expect("the next catch-up works");
    assert_eq!(scan(&sec), scan(&primary));
}

#[test]
fn only_a_secondary_catches_up() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    let e = db.try_catch_up_with_primary().expect_err("not a secondary");
    assert!(matches!(e.root(), Error::NotSupported(_)), "{e}");
    db.close().expect("close");
    let ro = Db::open_cf_for_read_only_with_fs(Arc::clone(&fs), DIR, opts(), Vec::new(), false)
        .expect("read-only");
    assert!(ro.try_catch_up_with_primary().is_err());
}

/// The race the catch-up must not lose: the primary flushes a WAL, records it in the MANIFEST
/// and deletes the WAL after the secondary read the MANIFEST and before it listed the WALs.
/// The old MANIFEST needs the deleted WAL; replaying only the newer one would lose its writes
/// silently. The catch-up sees the gap and reads everything again.
#[test]
fn a_wal_flushed_away_after_the_manifest_was_read_is_not_skipped() {
    let mem: Arc<dyn FileSystem> = MemFs::new().shared();
    let primary = Arc::new(primary_with_cf1(&mem, Path::new(DIR)));
    put_range(&primary, 0..300, b'a');
    let faulty = FaultFs::new(Arc::clone(&mem), 11);
    let sec = secondary(&faulty.shared(), Path::new(DIR), Path::new(SECONDARY));
    put_range(&primary, 300..600, b'b');
    let p = Arc::clone(&primary);
    // The MANIFEST is read as a log bounded by its size at open, so the flush's edit, appended
    // after the first read, is not seen by this attempt.
    faulty.after_next(OpKind::Read, "MANIFEST", move || p.flush().expect("flush"));
    sec.try_catch_up_with_primary().expect("catch up");
    assert!(faulty.hooks_ran(), "the flush ran inside the catch-up");
    assert_eq!(scan(&sec), scan(&primary));
}
