//! Unit tests of the database front on `MemFs`/`FaultFs`.

use std::sync::Arc;

use crate::batch::WriteBatch;
use crate::fs::{FaultFs, FaultKind, FaultRule, MemFs, OpKind};
use crate::merge::UInt64AddOperator;
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::{Db, Error};

const DIR: &str = "/db";

fn opts() -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o
}

fn small_opts() -> Options {
    let mut o = opts();
    o.cf.write_buffer_size = 64 << 10;
    o
}

fn w() -> WriteOptions {
    WriteOptions::default()
}

fn r() -> ReadOptions {
    ReadOptions::default()
}

fn get(db: &Db, k: &[u8]) -> Option<Vec<u8>> {
    db.get(&r(), k).expect("get")
}

#[test]
fn put_get_delete_and_reopen() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    assert!(db.recovery_report().created);
    db.put(&w(), b"a", b"1").expect("put");
    db.put(&w(), b"b", b"2").expect("put");
    db.delete(&w(), b"a").expect("delete");
    assert_eq!(get(&db, b"a"), None);
    assert_eq!(get(&db, b"b").as_deref(), Some(&b"2"[..]));
    drop(db);
    let db = Db::open_with_fs(fs, DIR, opts()).expect("reopen");
    assert!(!db.recovery_report().created);
    assert_eq!(db.recovery_report().batches_replayed, 3);
    assert_eq!(get(&db, b"a"), None);
    assert_eq!(get(&db, b"b").as_deref(), Some(&b"2"[..]));
    assert_eq!(db.num_l0_files(), 1, "replayed data is flushed at open");
}

#[test]
fn flush_moves_data_to_l0_and_deletes_old_wals() {
    let mem = MemFs::new();
    let fs = mem.shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    for i in 0..100u32 {
        db.put(&w(), &i.to_be_bytes(), &[7; 10]).expect("put");
    }
    db.flush().expect("flush");
    assert_eq!(db.num_l0_files(), 1);
    let logs = fs
        .list(std::path::Path::new(DIR))
        .expect("list")
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .count();
    assert_eq!(logs, 1, "only the live WAL is left");
    assert_eq!(get(&db, &5u32.to_be_bytes()).as_deref(), Some(&[7; 10][..]));
}

#[test]
fn range_deletion_survives_flush_and_covers_older_tables() {
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, opts()).expect("open");
    for k in [b"a", b"b", b"c", b"d"] {
        db.put(&w(), k, b"v").expect("put");
    }
    db.flush().expect("flush");
    db.delete_range(&w(), b"b", b"d").expect("delete_range");
    db.flush().expect("flush");
    db.put(&w(), b"e", b"v").expect("put");
    db.flush().expect("flush");
    assert_eq!(db.num_l0_files(), 3);
    let got: Vec<_> = [b"a", b"b", b"c", b"d"]
        .iter()
        .map(|k| get(&db, *k).is_some())
        .collect();
    assert_eq!(got, [true, false, false, true]);
    let mut it = db.iter(&r()).expect("iter");
    it.seek_to_first();
    let mut keys = Vec::new();
    while it.valid() {
        keys.push(it.key().to_vec());
        it.next();
    }
    it.status().expect("status");
    assert_eq!(keys, [b"a".to_vec(), b"d".to_vec(), b"e".to_vec()]);
}

#[test]
fn merge_needs_an_operator_and_folds_across_flushes() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    // Refused when written (RocksDB too), so no flush or compaction meets an operand it
    // cannot fold.
    let e = db
        .merge(&w(), b"n", &1u64.to_le_bytes())
        .expect_err("no operator");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert_eq!(get(&db, b"n"), None);
    drop(db);
    let mut o = opts();
    o.cf.merge_operator = Some(Arc::new(UInt64AddOperator));
    let db = Db::open_with_fs(fs, DIR, o).expect("open");
    db.merge(&w(), b"n", &2u64.to_le_bytes()).expect("merge");
    db.flush().expect("flush");
    db.merge(&w(), b"n", &4u64.to_le_bytes()).expect("merge");
    assert_eq!(get(&db, b"n"), Some(6u64.to_le_bytes().to_vec()));
}

#[test]
fn wal_append_error_poisons() {
    let fault = FaultFs::new(MemFs::new().shared(), 1);
    let db = Db::open_with_fs(fault.shared(), DIR, opts()).expect("open");
    db.put(&w(), b"a", b"1").expect("put");
    fault.add_rule(FaultRule::nth(OpKind::Write, 1, FaultKind::Eio).on_paths(".log"));
    let e = db.put(&w(), b"b", &[1; 300 << 10]).expect_err("injected");
    assert!(e.is_io(), "{e}");
    fault.clear_rules();
    let e = db.put(&w(), b"c", b"3").expect_err("poisoned");
    assert!(matches!(e, Error::Poisoned(_)), "{e}");
    assert_eq!(get(&db, b"a").as_deref(), Some(&b"1"[..]));
    assert_eq!(get(&db, b"b"), None);
}

#[test]
fn snapshot_isolation_for_get_and_iter_across_flush() {
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, small_opts()).expect("open");
    db.put(&w(), b"k", b"old").expect("put");
    let snap = db.snapshot().expect("snapshot");
    let ro = ReadOptions {
        snapshot: Some(snap.sequence()),
        ..ReadOptions::default()
    };
    let mut it = db.iter(&ro).expect("iter");
    db.put(&w(), b"k", b"new").expect("put");
    db.put(&w(), b"k2", b"x").expect("put");
    db.flush().expect("flush");
    assert_eq!(
        db.get(&ro, b"k").expect("get").as_deref(),
        Some(&b"old"[..])
    );
    assert_eq!(get(&db, b"k").as_deref(), Some(&b"new"[..]));
    it.seek_to_first();
    assert!(it.valid());
    assert_eq!((it.key(), it.value()), (&b"k"[..], &b"old"[..]));
    it.next();
    assert!(!it.valid());
    it.status().expect("status");
    assert_eq!(db.live_snapshots(), vec![snap.sequence()]);
    drop(snap);
    assert!(db.live_snapshots().is_empty());
}

#[test]
fn memtable_switches_under_small_write_buffer() {
    // Without compactions, so that the L0 count shows every switch.
    let mut o = small_opts();
    o.cf.disable_auto_compactions = true;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let mut batch = WriteBatch::new();
    for i in 0..2000u32 {
        batch.put(&i.to_be_bytes(), &[1; 100]).expect("put");
        if i % 50 == 49 {
            db.write(&w(), std::mem::take(&mut batch)).expect("write");
        }
    }
    db.flush().expect("flush");
    assert!(db.num_l0_files() >= 2, "{}", db.num_l0_files());
    for i in (0..2000u32).step_by(97) {
        assert_eq!(get(&db, &i.to_be_bytes()).as_deref(), Some(&[1; 100][..]));
    }
}

#[test]
fn failed_flush_keeps_data_and_is_retried() {
    let fault = FaultFs::new(MemFs::new().shared(), 2);
    let db = Db::open_with_fs(fault.shared(), DIR, opts()).expect("open");
    db.put(&w(), b"a", b"1").expect("put");
    fault.add_rule(FaultRule::nth(OpKind::Write, 1, FaultKind::Eio).on_paths(".sst"));
    let e = db.flush().expect_err("injected");
    assert!(e.is_io(), "{e}");
    assert_eq!(get(&db, b"a").as_deref(), Some(&b"1"[..]));
    db.put(&w(), b"b", b"2")
        .expect("writes go on after a failed flush");
    db.flush().expect("retry succeeds");
    assert!(db.background_error().is_none());
    assert_eq!(db.num_immutable_memtables(), 0);
    drop(db);
    let db = Db::open_with_fs(fault.shared(), DIR, opts()).expect("reopen");
    assert_eq!(get(&db, b"a").as_deref(), Some(&b"1"[..]));
    assert_eq!(get(&db, b"b").as_deref(), Some(&b"2"[..]));
}

#[test]
fn a_failed_manifest_sync_stops_writes_at_once_until_reopen() {
    // durability.md D5: a failed MANIFEST write is fail-stop like a failed WAL write. The very
    // next write is refused, although the memtables have room (before, writes were acknowledged
    // until the memtables filled).
    let fault = FaultFs::new(MemFs::new().shared(), 5);
    let db = Db::open_with_fs(fault.shared(), DIR, opts()).expect("open");
    db.put(&w(), b"a", b"1").expect("put");
    fault.add_rule(FaultRule::nth(OpKind::Sync, 1, FaultKind::Eio).on_paths("MANIFEST"));
    let e = db.flush().expect_err("the flush's MANIFEST sync fails");
    assert!(e.is_io(), "{e}");
    fault.clear_rules();
    let e = db.put(&w(), b"b", b"2").expect_err("fail-stop");
    assert!(
        matches!(e, Error::Poisoned(ref m) if m.contains("MANIFEST")),
        "{e}"
    );
    let mut batch = WriteBatch::new();
    batch.put(b"c", b"3").expect("put");
    assert!(matches!(db.write(&w(), batch), Err(Error::Poisoned(_))));
    // Reads still answer from what is in memory.
    assert_eq!(get(&db, b"a").as_deref(), Some(&b"1"[..]));
    drop(db);
    let db = Db::open_with_fs(fault.shared(), DIR, opts()).expect("reopen");
    assert_eq!(get(&db, b"a").as_deref(), Some(&b"1"[..]));
    assert_eq!(get(&db, b"b"), None);
    db.put(&w(), b"b", b"2").expect("writable after reopen");
}

#[test]
fn failed_manifest_write_refuses_writes_instead_of_hanging() {
    let fault = FaultFs::new(MemFs::new().shared(), 3);
    let db = Db::open_with_fs(fault.shared(), DIR, small_opts()).expect("open");
    fault.add_rule(FaultRule::nth(OpKind::Sync, 1, FaultKind::Eio).on_paths("MANIFEST"));
    let mut failed = None;
    for i in 0..5000u32 {
        if let Err(e) = db.put(&w(), &i.to_be_bytes(), &[0; 200]) {
            failed = Some(e);
            break;
        }
    }
    let e = failed.expect("writes stop once flushes cannot finish");
    assert!(matches!(e, Error::Poisoned(_)), "{e}");
    assert!(db.flush().is_err());
}

/// A prefix extractor that records which thread asked for the prefix of which key: the
/// memtable's prefix Bloom filter asks on the thread that inserts the key.
#[derive(Debug, Default)]
struct ThreadRecorder {
    calls: parking_lot::Mutex<Vec<(Vec<u8>, std::thread::ThreadId)>>,
}

impl crate::sstable::PrefixExtractor for ThreadRecorder {
    fn name(&self) -> &str {
        "test.ThreadRecorder"
    }
    fn prefix<'a>(&self, key: &'a [u8]) -> Option<&'a [u8]> {
        self.calls
            .lock()
            .push((key.to_vec(), std::thread::current().id()));
        Some(key)
    }
}

/// Commits a group of two followers behind a leader held in its WAL write, and returns the
/// threads that inserted the second follower's key, with the thread ids of the two followers.
fn inserting_threads(concurrent: bool) -> (Vec<std::thread::ThreadId>, [std::thread::ThreadId; 2]) {
    let fault = FaultFs::new(MemFs::new().shared(), 7);
    let recorder = Arc::new(ThreadRecorder::default());
    let mut o = opts();
    o.db.allow_concurrent_memtable_write = concurrent;
    o.cf.prefix_extractor = Some(Arc::clone(&recorder) as _);
    o.cf.memtable_prefix_bloom_size_ratio = 0.01;
    let db = Arc::new(Db::open_with_fs(fault.shared(), DIR, o).expect("open"));
    let (release, wait) = std::sync::mpsc::channel::<()>();
    fault.before_next(OpKind::Write, ".log", move || {
        let _ = wait.recv();
    });
    let spawn_put = |key: &'static [u8]| {
        let db = Arc::clone(&db);
        std::thread::spawn(move || {
            db.put(&w(), key, b"v").expect("put");
            std::thread::current().id()
        })
    };
    // The first writer leads alone and stops in its WAL write, holding the leader role.
    let first = spawn_put(b"first");
    while !fault.hooks_ran() {
        std::thread::yield_now();
    }
    // Then b queues, then c: the next group is the two of them, led by b.
    let b = spawn_put(b"member-b");
    while db.inner.state.lock().writers.is_empty() {
        std::thread::yield_now();
    }
    let c = spawn_put(b"member-c");
    while db.inner.state.lock().writers.len() < 2 {
        std::thread::yield_now();
    }
    release.send(()).expect("release the leader");
    first.join().expect("first writer");
    let ids = [b.join().expect("b"), c.join().expect("c")];
    assert_eq!(get(&db, b"member-b"), Some(b"v".to_vec()));
    assert_eq!(get(&db, b"member-c"), Some(b"v".to_vec()));
    let calls = recorder.calls.lock();
    let c_inserters = calls
        .iter()
        .filter(|(k, _)| k == b"member-c")
        .map(|&(_, t)| t)
        .collect();
    (c_inserters, ids)
}

/// With `allow_concurrent_memtable_write`, a follower inserts its own batch on its own thread;
/// without it, the leader of its group inserts it.
#[test]
fn group_members_insert_their_own_batches_when_concurrent_writes_are_allowed() {
    let (inserters, [b, c]) = inserting_threads(true);
    assert!(inserters.contains(&c), "member c inserted its own batch");
    assert!(!inserters.contains(&b), "leader b did not insert c's batch");
    let (inserters, [b, c]) = inserting_threads(false);
    assert!(inserters.contains(&b), "leader b inserted the whole group");
    assert!(!inserters.contains(&c), "member c did not insert");
}

/// Table-cache lookups (hits and misses) of the default family since it was opened.
fn table_cache_lookups(db: &Db) -> u64 {
    let s = db.inner.default_cf.table_cache.stats();
    s.hits + s.misses
}

#[test]
fn reads_reach_tables_through_the_view_when_the_table_cache_is_unbounded() {
    for max_open_files in [-1, 100] {
        let mut o = small_opts();
        o.db.max_open_files = max_open_files;
        let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
        for k in 0..100u32 {
            db.put(&w(), format!("k{k:04}").as_bytes(), b"v")
                .expect("put");
        }
        db.flush().expect("flush");
        assert_eq!(get(&db, b"k0007").as_deref(), Some(&b"v"[..]));
        let before = table_cache_lookups(&db);
        for k in 0..100u32 {
            assert_eq!(
                get(&db, format!("k{k:04}").as_bytes()).as_deref(),
                Some(&b"v"[..])
            );
        }
        let lookups = table_cache_lookups(&db) - before;
        if max_open_files == -1 {
            // The view opened the table on the first read and keeps it (view_tables.rs).
            assert_eq!(lookups, 0, "unbounded cache: reads bypass the table cache");
        } else {
            assert_eq!(
                lookups, 100,
                "bounded cache: every read asks the table cache"
            );
        }
        db.close().expect("close");
    }
}
