//! Synced writes and the WAL sync that acknowledges them. With `enable_pipelined_write` (the
//! default) a synced group syncs after its leader's term, so the next group appends while the
//! sync runs and one sync covers several groups (`db/write.rs` invariant 9, `wal/sync.rs`).
//! Whatever the path, a synced write that returned Ok survives a power cut, and a failed sync
//! poisons the database without ever showing the write.
//!
//! A memtable switch creates the next WAL without syncing the directory; the name becomes
//! durable at the flush's directory sync, at the next switch, or before a synced record
//! (`db/mod.rs` contract 6).

mod common;

use std::sync::{mpsc, Arc};
use std::time::Duration;

use cairndb::fs::{CrashOptions, FaultFs, FaultKind, FaultRule, MemFs, OpKind};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{Db, Error};
use common::{fail_table_creates, opts, wal_names, DIR};

fn synced() -> WriteOptions {
    WriteOptions {
        sync: true,
        ..WriteOptions::default()
    }
}

fn pipelined(on: bool) -> Options {
    let mut o = opts();
    o.db.enable_pipelined_write = on;
    o
}

fn key(t: u32, i: u32) -> Vec<u8> {
    format!("t{t}-{i:04}").into_bytes()
}

/// `Db::sync_wal` on one thread does not hold up writers on others (invariant 11): while its
/// WAL sync is held by a file-system hook, an unsynced put on another thread completes. Once
/// released, the sync returns, and what was written before it survives a power cut. (Without
/// pipelining the sync stays in the leader's term and the put waits for it.)
#[test]
fn sync_wal_lets_writers_append_while_it_syncs() {
    let mem = MemFs::new();
    let fault = FaultFs::new(mem.shared(), 1);
    let db = Arc::new(Db::open_with_fs(fault.shared(), DIR, pipelined(true)).expect("open"));
    db.put(&WriteOptions::default(), b"before", b"1")
        .expect("put");
    let (started, sync_started) = mpsc::channel();
    let (release, released) = mpsc::channel::<()>();
    fault.before_next(OpKind::Sync, ".log", move || {
        let _ = started.send(());
        let _ = released.recv();
    });
    let syncing = {
        let db = Arc::clone(&db);
        std::thread::spawn(move || db.sync_wal())
    };
    sync_started.recv().expect("the sync starts");
    let (put_done, put_finished) = mpsc::channel();
    let writer = {
        let db = Arc::clone(&db);
        std::thread::spawn(move || {
            let r = db.put(&WriteOptions::default(), b"during", b"2");
            let _ = put_done.send(());
            r
        })
    };
    // A hang guard, not a speed limit: the put completes while the sync is held, or it
    // waits for the sync and this wait ends only at the bound.
    let while_held = put_finished.recv_timeout(Duration::from_secs(60)).is_ok();
    release.send(()).expect("release the sync");
    syncing.join().expect("sync thread").expect("sync_wal");
    writer.join().expect("writer").expect("put");
    assert!(while_held, "the put waited for sync_wal's held sync");
    let cut = mem.crash_clone(CrashOptions::synced_only());
    drop(db);
    let db = Db::open_with_fs(cut.shared(), DIR, pipelined(true)).expect("reopen");
    assert_eq!(
        db.get(&ReadOptions::default(), b"before")
            .expect("get")
            .as_deref(),
        Some(&b"1"[..]),
        "a write before sync_wal is durable after it"
    );
}

/// Four threads write synced and unsynced puts at once; after a power cut every synced put
/// that returned is there, with its value, on both commit paths.
#[test]
fn synced_writes_from_many_threads_survive_a_power_cut() {
    for on in [true, false] {
        let mem = MemFs::new();
        let db = Arc::new(Db::open_with_fs(mem.shared(), DIR, pipelined(on)).expect("open"));
        let threads: Vec<_> = (0..4u32)
            .map(|t| {
                let db = Arc::clone(&db);
                std::thread::spawn(move || {
                    for i in 0..60u32 {
                        let wo = if i % 3 == 0 {
                            synced()
                        } else {
                            WriteOptions::default()
                        };
                        db.put(&wo, &key(t, i), format!("v{t}.{i}").as_bytes())
                            .expect("put");
                    }
                })
            })
            .collect();
        for h in threads {
            h.join().expect("writer");
        }
        let cut = mem.crash_clone(CrashOptions::synced_only());
        drop(db);
        let db = Db::open_with_fs(cut.shared(), DIR, pipelined(on)).expect("reopen");
        for t in 0..4u32 {
            for i in (0..60u32).step_by(3) {
                let got = db.get(&ReadOptions::default(), &key(t, i)).expect("get");
                assert_eq!(
                    got.as_deref(),
                    Some(format!("v{t}.{i}").as_bytes()),
                    "synced put t{t} #{i} lost (pipelined {on})"
                );
            }
        }
    }
}

/// The WAL sync of a synced put fails: the put gets the I/O error, it is never visible, and
/// the database refuses later writes, on both commit paths.
#[test]
fn a_failed_wal_sync_fails_the_write_hides_it_and_poisons() {
    for on in [true, false] {
        let mem = MemFs::new();
        let fs = FaultFs::new(mem.shared(), 7);
        let db = Db::open_with_fs(fs.shared(), DIR, pipelined(on)).expect("open");
        db.put(&WriteOptions::default(), b"before", b"1")
            .expect("put");
        fs.add_rule(FaultRule::nth(OpKind::Sync, 1, FaultKind::Eio));
        let failed = db.put(&synced(), b"lost", b"2");
        assert!(
            matches!(failed, Err(Error::Io { .. })),
            "pipelined {on}: {failed:?}"
        );
        assert_eq!(fs.injected(), 1);
        fs.clear_rules();
        let ro = ReadOptions::default();
        assert_eq!(db.get(&ro, b"lost").expect("get"), None, "pipelined {on}");
        assert_eq!(
            db.get(&ro, b"before").expect("get").as_deref(),
            Some(&b"1"[..])
        );
        let after = db.put(&synced(), b"after", b"3");
        assert!(
            matches!(after, Err(Error::Poisoned(_))),
            "pipelined {on}: {after:?}"
        );
    }
}

/// The WAL files in the database directory.
fn wals(mem: &MemFs) -> usize {
    wal_names(mem).len()
}

/// Unsynced puts until the directory holds `n` WALs (a memtable switch creates one); returns
/// the puts' keys, each put with its key as the value.
fn put_until_wals(db: &Db, mem: &MemFs, n: usize, first: u32) -> Vec<Vec<u8>> {
    let mut keys = Vec::new();
    let mut i = first;
    while wals(mem) < n {
        let k = format!("k{i:08}").into_bytes();
        db.put(
            &WriteOptions::default(),
            &k,
            &[&k[..], &[b'x'; 200][..]].concat(),
        )
        .unwrap_or_else(|e| panic!("unsynced put {i}: {e}"));
        keys.push(k);
        i += 1;
        assert!(i - first < 100_000, "no memtable switch after {i} puts");
    }
    keys
}

/// Every directory sync fails from the first one after open: a memtable switch still goes
/// through (the new WAL's name is left for later) and unsynced writes go on, but a synced write
/// cannot make that name durable, so it fails and poisons, and is never visible.
#[test]
fn a_switch_does_not_sync_the_directory_but_a_synced_write_does() {
    for on in [true, false] {
        let mem = MemFs::new();
        let fs = FaultFs::new(mem.shared(), 11);
        let db = Db::open_with_fs(fs.shared(), DIR, pipelined(on)).expect("open");
        fs.add_rule(FaultRule {
            sticky: true,
            ..FaultRule::nth(OpKind::SyncDir, 1, FaultKind::Eio)
        });
        let keys = put_until_wals(&db, &mem, 2, 0);
        db.put(&WriteOptions::default(), b"unsynced", b"1")
            .expect("an unsynced put after the switch");
        let failed = db.put(&synced(), b"synced", b"2");
        assert!(
            matches!(failed, Err(Error::Io { .. })),
            "pipelined {on}: {failed:?}"
        );
        assert!(fs.injected() >= 1);
        let ro = ReadOptions::default();
        assert_eq!(db.get(&ro, b"synced").expect("get"), None);
        assert!(db.get(&ro, &keys[0]).expect("get").is_some());
        let after = db.put(&WriteOptions::default(), b"after", b"3");
        assert!(
            matches!(after, Err(Error::Poisoned(_))),
            "pipelined {on}: {after:?}"
        );
    }
}

/// Flushes cannot run (every table create fails), so nothing else syncs the directory: the
/// second switch finds the current WAL's name not durable and syncs the directory before it
/// creates the next WAL. When that sync fails, the write fails and no third WAL appears, so a
/// WAL can never vanish in a power cut while a later one survives.
#[test]
fn a_switch_syncs_the_directory_first_when_the_current_wals_name_is_not_durable() {
    let mem = MemFs::new();
    let fs = FaultFs::new(mem.shared(), 13);
    let mut o = opts();
    o.cf.max_write_buffer_number = 4;
    let db = Db::open_with_fs(fs.shared(), DIR, o).expect("open");
    fail_table_creates(&fs);
    put_until_wals(&db, &mem, 2, 0);
    fs.add_rule(FaultRule {
        sticky: true,
        ..FaultRule::nth(OpKind::SyncDir, 1, FaultKind::Eio)
    });
    let mut i = 1_000_000u32;
    let failed = loop {
        let k = format!("k{i:08}").into_bytes();
        match db.put(&WriteOptions::default(), &k, &[b'y'; 200]) {
            Ok(()) => i += 1,
            Err(e) => break e,
        }
        assert!(i < 1_100_000, "no second switch");
    };
    assert!(matches!(failed, Error::Io { .. }), "{failed:?}");
    assert_eq!(
        wals(&mem),
        2,
        "no WAL is created after a failed directory sync"
    );
}

/// Table creation fails, so no flush syncs the directory after a switch: a synced write then
/// syncs it itself, and after a power cut that keeps only synced state (every unsynced
/// directory entry lost) the synced write and every write before it are there.
#[test]
fn a_synced_write_after_a_switch_makes_the_new_wals_name_durable() {
    for on in [true, false] {
        let mem = MemFs::new();
        let fs = FaultFs::new(mem.shared(), 17);
        let db = Db::open_with_fs(fs.shared(), DIR, pipelined(on)).expect("open");
        fail_table_creates(&fs);
        let keys = put_until_wals(&db, &mem, 2, 0);
        db.put(&synced(), b"synced", b"2").expect("synced put");
        let cut = mem.crash_clone(CrashOptions::synced_only());
        drop(db);
        let db = Db::open_with_fs(cut.shared(), DIR, pipelined(on)).expect("reopen");
        let ro = ReadOptions::default();
        assert_eq!(
            db.get(&ro, b"synced").expect("get").as_deref(),
            Some(&b"2"[..]),
            "pipelined {on}"
        );
        for k in &keys {
            assert!(db.get(&ro, k).expect("get").is_some(), "pipelined {on}");
        }
    }
}

/// `sync_wal` makes unsynced writes durable: after a power cut that keeps only synced bytes,
/// every write made before it is there, across a memtable switch (older WALs are synced too).
#[test]
fn sync_wal_makes_earlier_unsynced_writes_durable() {
    let mem = MemFs::new();
    let db = Db::open_with_fs(mem.shared(), DIR, opts()).expect("open");
    let mut written = put_until_wals(&db, &mem, 2, 0);
    db.put(&WriteOptions::default(), b"last", b"unsynced")
        .expect("put");
    written.push(b"last".to_vec());
    db.sync_wal().expect("sync_wal");
    let cut = mem.crash_clone(CrashOptions::synced_only());
    drop(db);
    let db = Db::open_with_fs(cut.shared(), DIR, opts()).expect("reopen");
    for k in &written {
        assert!(
            db.get(&ReadOptions::default(), k).expect("get").is_some(),
            "{:?} lost",
            String::from_utf8_lossy(k)
        );
    }
}

/// `sync_wal` appends no record: an empty record would read as a WAL's seal, which recovery
/// takes as the log's clean end.
#[test]
fn sync_wal_appends_nothing() {
    let mem = MemFs::new();
    let db = Db::open_with_fs(mem.shared(), DIR, opts()).expect("open");
    db.put(&WriteOptions::default(), b"k", b"v").expect("put");
    let wal = wal_names(&mem).pop().expect("a WAL");
    let path = std::path::Path::new(DIR).join(&wal);
    let fs = mem.shared();
    let before = fs.size(&path).expect("size");
    db.sync_wal().expect("sync_wal");
    db.write(&synced(), cairndb::WriteBatch::new())
        .expect("an empty synced write");
    assert_eq!(fs.size(&path).expect("size"), before);
}
