//! Synced writes and the WAL sync that acknowledges them. With `enable_pipelined_write` (the
//! default) a synced group syncs after its leader's term, so the next group appends while the
//! sync runs and one sync covers several groups (`db/write.rs` invariant 9, `wal/sync.rs`).
//! Whatever the path, a synced write that returned Ok survives a power cut, and a failed sync
//! poisons the database without ever showing the write.

mod common;

use std::sync::Arc;

use cairndb::fs::{CrashOptions, FaultFs, FaultKind, FaultRule, MemFs, OpKind};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{Db, Error};
use common::{opts, DIR};

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
