//! Bad input to the database: every case gets a clear error and leaves the directory exactly as
//! it was (same files, same bytes). Keys and values over the limits, a closed database, invalid
//! options, a directory that is not a database, damaged CURRENT, a MANIFEST written by a newer
//! format version, and invalid read options.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use cairndb::batch::{MAX_KEY_LEN, MAX_VALUE_LEN};
use cairndb::fs::{read_all, write_atomic, FileSystem, MemFs};
use cairndb::options::{ReadOptions, WriteOptions};
use cairndb::version::{set_current, ManifestWriter, VersionEdit, FORMAT_VERSION};
use cairndb::{Db, Error};
use common::{opts, DIR};

/// Every file of the directory with its bytes.
fn contents(fs: &Arc<dyn FileSystem>) -> BTreeMap<String, Vec<u8>> {
    let dir = Path::new(DIR);
    fs.list(dir)
        .unwrap_or_default()
        .into_iter()
        .map(|name| {
            let bytes = read_all(&**fs, &dir.join(&name)).expect("read");
            (name, bytes)
        })
        .collect()
}

/// A closed database holding one key.
fn existing() -> Arc<dyn FileSystem> {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    db.put(&WriteOptions::default(), b"k", b"v").expect("put");
    db.close().expect("close");
    fs
}

fn assert_invalid(e: &Error, needle: &str) {
    assert!(
        matches!(e.root(), Error::InvalidArgument(m) if m.contains(needle)),
        "expected InvalidArgument mentioning {needle:?}, got: {e}"
    );
}

#[test]
fn oversize_keys_and_values_change_nothing() {
    let fs = existing();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    let before = contents(&fs);
    let seq = db.latest_sequence();
    let w = WriteOptions::default();
    let big_key = vec![1u8; MAX_KEY_LEN + 1];
    let big_value = vec![2u8; MAX_VALUE_LEN + 1];
    assert_invalid(&db.put(&w, &big_key, b"v").expect_err("key"), "key");
    assert_invalid(&db.put(&w, b"k", &big_value).expect_err("value"), "value");
    assert_invalid(&db.delete(&w, &big_key).expect_err("delete key"), "key");
    assert_invalid(&db.merge(&w, &big_key, b"x").expect_err("merge key"), "key");
    assert_invalid(
        &db.delete_range(&w, b"a", &big_key).expect_err("range end"),
        "",
    );
    assert_eq!(db.latest_sequence(), seq, "no sequence number consumed");
    assert_eq!(contents(&fs), before, "nothing written");
    assert_eq!(
        db.get(&ReadOptions::default(), b"k").expect("get"),
        Some(b"v".to_vec())
    );
}

#[test]
fn a_closed_database_refuses_everything() {
    let fs = existing();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    db.close().expect("close");
    let before = contents(&fs);
    let (w, r) = (WriteOptions::default(), ReadOptions::default());
    let cf = db.default_column_family();
    let errors = [
        db.put(&w, b"a", b"1").expect_err("put"),
        db.get(&r, b"k").expect_err("get"),
        db.iter(&r).map(|_| ()).expect_err("iter"),
        db.flush().expect_err("flush"),
        db.snapshot().map(|_| ()).expect_err("snapshot"),
        db.create_column_family("x", Default::default())
            .map(|_| ())
            .expect_err("create cf"),
        db.drop_column_family(&cf).expect_err("drop default"),
        db.close().expect_err("close twice"),
    ];
    for e in &errors[..6] {
        assert!(matches!(e, Error::Closed), "{e}");
    }
    assert!(db.multi_get(&r, &[b"k"])[0].is_err());
    assert_eq!(contents(&fs), before);
}

#[test]
fn invalid_options_are_refused_before_anything_is_created() {
    let fs = MemFs::new().shared();
    let mut o = opts();
    o.cf.write_buffer_size = 1;
    assert_invalid(
        &Db::open_with_fs(Arc::clone(&fs), DIR, o).expect_err("tiny buffer"),
        "write_buffer_size",
    );
    let mut o = opts();
    o.db.max_background_jobs = 0;
    assert_invalid(
        &Db::open_with_fs(Arc::clone(&fs), DIR, o).expect_err("no jobs"),
        "max_background_jobs",
    );
    assert!(
        !fs.exists(Path::new(DIR)).expect("exists"),
        "no directory made"
    );

    let fs = existing();
    let before = contents(&fs);
    let mut o = opts();
    o.cf.max_write_buffer_number = 0;
    assert!(Db::open_with_fs(Arc::clone(&fs), DIR, o).is_err());
    assert_eq!(contents(&fs), before);
}

#[test]
fn invalid_read_options_are_refused() {
    let fs = existing();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    let r = ReadOptions {
        iterate_lower_bound: Some(b"z".to_vec()),
        iterate_upper_bound: Some(b"a".to_vec()),
        ..ReadOptions::default()
    };
    assert!(matches!(db.iter(&r), Err(Error::InvalidArgument(_))));
    let future = ReadOptions {
        snapshot: Some(db.latest_sequence() + 1000),
        ..ReadOptions::default()
    };
    // A sequence number past the published one reads the published state: never a batch
    // that a leader is still inserting.
    assert_eq!(db.get(&future, b"k").expect("get"), Some(b"v".to_vec()));
    let before = contents(&fs);
    let w = WriteOptions {
        sync: true,
        disable_wal: true,
        ..WriteOptions::default()
    };
    assert_invalid(
        &db.put(&w, b"k", b"x").expect_err("sync without WAL"),
        "disable_wal",
    );
    assert_eq!(contents(&fs), before);
    assert_eq!(
        db.get(&ReadOptions::default(), b"k").expect("get"),
        Some(b"v".to_vec())
    );
}

#[test]
fn a_directory_that_is_not_a_database() {
    let fs = MemFs::new().shared();
    let dir = Path::new(DIR);
    fs.create_dir_all(dir).expect("mkdir");
    write_atomic(&*fs, &dir.join("notes.txt"), b"my files").expect("write");
    let before = contents(&fs);
    let mut o = opts();
    o.db.create_if_missing = false;
    let e = Db::open_with_fs(Arc::clone(&fs), DIR, o).expect_err("not a database");
    assert_invalid(&e, "no database");
    assert_eq!(contents(&fs), before, "nothing written");
    let e = Db::list_column_families_with_fs(Arc::clone(&fs), DIR).expect_err("list");
    assert!(!e.to_string().is_empty());
    assert_eq!(contents(&fs), before);
}

#[test]
fn damaged_current_is_corruption_and_changes_nothing() {
    let fs = existing();
    let dir = Path::new(DIR);
    for bad in [&b"garbage"[..], b"MANIFEST-000999\n", b""] {
        write_atomic(&*fs, &dir.join("CURRENT"), bad).expect("write");
        let before = contents(&fs);
        let e = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect_err("bad CURRENT");
        assert!(e.is_corruption(), "{bad:?}: {e}");
        assert_eq!(contents(&fs), before, "{bad:?}");
    }
}

#[test]
fn a_manifest_from_a_newer_format_version_is_refused() {
    let fs = existing();
    let dir = Path::new(DIR);
    let mut writer = ManifestWriter::create(&*fs, dir, 999).expect("create");
    let edit = VersionEdit {
        format_version: Some(FORMAT_VERSION + 1),
        next_file_number: Some(1000),
        last_sequence: Some(1),
        ..VersionEdit::default()
    };
    writer.add_edit(&edit).expect("edit");
    writer.sync().expect("sync");
    drop(writer);
    set_current(&*fs, dir, 999).expect("current");
    let before = contents(&fs);
    let e = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect_err("newer format");
    let msg = e.to_string();
    assert!(
        msg.contains("format") || msg.contains("newer"),
        "the error says why: {msg}"
    );
    assert_eq!(contents(&fs), before, "nothing written");
}
