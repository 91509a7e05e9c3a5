//! WAL damage at open under each recovery mode, and what the recovery report says.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairndb::fs::{FileSystem, MemFs};
use cairndb::options::{Options, ReadOptions, WalRecoveryMode, WriteOptions};
use cairndb::wal::DamageKind;
use cairndb::Db;
use common::DIR;

const N: u32 = 300;

fn opts(mode: WalRecoveryMode) -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.db.wal_recovery_mode = mode;
    o
}

/// A database whose only WAL holds N records of 1 KiB (several 32 KiB blocks), with one byte
/// of the first block damaged. Returns the file system and the WAL's path.
fn damaged_db() -> (MemFs, PathBuf) {
    let mem = MemFs::new();
    let db = Db::open_with_fs(mem.shared(), DIR, opts(WalRecoveryMode::default())).expect("open");
    for i in 0..N {
        db.put(&WriteOptions::default(), &i.to_be_bytes(), &[3; 1024])
            .expect("put");
    }
    db.close().expect("close");
    let fs: Arc<dyn FileSystem> = mem.shared();
    let log = fs
        .list(Path::new(DIR))
        .expect("list")
        .into_iter()
        .find(|n| n.ends_with(".log"))
        .expect("a WAL");
    let path = Path::new(DIR).join(log);
    mem.corrupt_byte(&path, 5000, |b| b ^ 0x40)
        .expect("corrupt");
    (mem, path)
}

fn present(db: &Db) -> Vec<bool> {
    (0..N)
        .map(|i| {
            db.get(&ReadOptions::default(), &i.to_be_bytes())
                .expect("get")
                .is_some()
        })
        .collect()
}

#[test]
fn strict_modes_refuse_mid_log_corruption() {
    for mode in [
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::AbsoluteConsistency,
    ] {
        let (mem, path) = damaged_db();
        let e = Db::open_with_fs(mem.shared(), DIR, opts(mode)).expect_err("corruption");
        assert!(e.is_corruption(), "{mode:?}: {e}");
        let c = e.as_corruption().expect("details");
        assert_eq!(c.file, path, "{mode:?}: names the WAL");
    }
}

#[test]
fn point_in_time_keeps_the_prefix_before_the_damage() {
    let (mem, _) = damaged_db();
    let db = Db::open_with_fs(
        mem.shared(),
        DIR,
        opts(WalRecoveryMode::PointInTimeRecovery),
    )
    .expect("open");
    let report = db.recovery_report().clone();
    assert_eq!(report.dropped.len(), 1, "{report:?}");
    assert_eq!(report.dropped[0].kind, DamageKind::Corruption);
    let p = present(&db);
    let kept = p.iter().take_while(|&&x| x).count();
    assert!(
        kept < N as usize && p[kept..].iter().all(|&x| !x),
        "a prefix: {kept}"
    );
}

#[test]
fn salvage_skips_only_the_damaged_records() {
    let (mem, _) = damaged_db();
    let db = Db::open_with_fs(
        mem.shared(),
        DIR,
        opts(WalRecoveryMode::SkipAnyCorruptedRecords),
    )
    .expect("open");
    assert!(!db.recovery_report().dropped.is_empty());
    let p = present(&db);
    let missing = p.iter().filter(|&&x| !x).count();
    assert!(missing > 0 && missing < 40, "{missing} records lost");
    assert!(
        p[N as usize - 1],
        "records after the damaged block are kept"
    );
    // The salvaged state is now durable in a table; a strict reopen succeeds.
    drop(db);
    let db = Db::open_with_fs(
        mem.shared(),
        DIR,
        opts(WalRecoveryMode::AbsoluteConsistency),
    )
    .expect("reopen");
    assert_eq!(present(&db), p);
}

/// A power cut can leave a retired WAL (one a memtable switch closed, not yet synced) cut at
/// a record boundary while its successor's pages survived. Replaying the successor would leave
/// a hole in the history; recovery must stop at the retired WAL, which lacks its seal.
#[test]
fn retired_wal_cut_at_a_record_boundary_ends_the_replay() {
    use cairndb::fs::{FaultFs, FaultKind, FaultRule, OpKind};
    use cairndb::wal::{LogEvent, LogReader};

    let mem = MemFs::new();
    // Flushes fail, so every WAL stays live and the memtables pile up in memory.
    let fault = FaultFs::new(mem.shared(), 1);
    let mut rule = FaultRule::random(&[OpKind::Create], 1.0, FaultKind::Eio).on_paths(".sst");
    rule.sticky = true;
    fault.add_rule(rule);
    let mut o = opts(WalRecoveryMode::default());
    o.cf.write_buffer_size = 64 << 10;
    o.cf.max_write_buffer_number = 8;
    let db = Db::open_with_fs(fault.shared(), DIR, o.clone()).expect("open");
    let mut written = 0u32;
    for i in 0..150u32 {
        if db
            .put(&WriteOptions::default(), &i.to_be_bytes(), &[7; 1024])
            .is_err()
        {
            break;
        }
        written = i + 1;
    }
    drop(db);
    let fs: Arc<dyn FileSystem> = mem.shared();
    let logs = common::wal_names(&*fs);
    assert!(
        logs.len() >= 3,
        "memtable switches rolled the WAL: {logs:?}"
    );
    // Cut the oldest WAL just before its last data record (and its seal), on a boundary.
    let oldest = Path::new(DIR).join(&logs[0]);
    let number: u64 = logs[0].trim_end_matches(".log").parse().expect("number");
    let mut reader = LogReader::open(&*fs, &oldest, number).expect("reader");
    let mut offsets = Vec::new();
    while let Some(event) = reader.next_event().expect("read") {
        if let LogEvent::Record(rec) = event {
            offsets.push(rec.offset);
        }
    }
    assert!(offsets.len() >= 3, "{offsets:?}");
    let cut = offsets[offsets.len() - 2];
    let file = fs.open_read(&oldest).expect("open");
    let mut bytes = vec![0; usize::try_from(cut).expect("small")];
    file.read_exact_at(0, &mut bytes).expect("read");
    drop(file);
    let mut w = fs.create(&oldest).expect("rewrite");
    w.append(&bytes).expect("append");
    w.sync().expect("sync");
    drop(w);

    let db = Db::open_with_fs(fs, DIR, opts(WalRecoveryMode::default())).expect("reopen");
    let report = db.recovery_report().clone();
    assert!(
        !report.logs_skipped.is_empty(),
        "the WALs after the cut one are not replayed: {report:?}"
    );
    let r = ReadOptions::default();
    let mut n = 0;
    while n < written && db.get(&r, &n.to_be_bytes()).expect("get").is_some() {
        n += 1;
    }
    assert!(n < written, "the cut lost the oldest WAL's last record");
    for i in n..written {
        assert!(
            db.get(&r, &i.to_be_bytes()).expect("get").is_none(),
            "key {i} present after a hole at {n}"
        );
    }
}

/// With one column family, a flushed memtable's retired WAL is obsolete once the table is
/// installed, so the flush does not sync it (its pages are deleted before writeback, as in
/// RocksDB). When another family still has data in that WAL, the flush must sync it before
/// installing, or a power cut could keep the flushed family's later writes and lose the other
/// family's earlier ones. WAL syncs fail here, so a sync shows up as a failed flush.
#[test]
fn a_flush_syncs_retired_wals_only_when_another_family_needs_them() {
    use cairndb::fs::{FaultFs, FaultKind, FaultRule, OpKind};
    use cairndb::options::CfOptions;

    let wo = WriteOptions::default();
    for families in [1, 2] {
        let mem = MemFs::new();
        let fault = FaultFs::new(mem.shared(), 1);
        let mut rule = FaultRule::random(&[OpKind::Sync], 1.0, FaultKind::Eio).on_paths(".log");
        rule.sticky = true;
        fault.add_rule(rule);
        let db =
            Db::open_with_fs(fault.shared(), DIR, opts(WalRecoveryMode::default())).expect("open");
        let other = (families == 2).then(|| {
            db.create_column_family("other", CfOptions::default())
                .expect("create family")
        });
        db.put(&wo, b"a", b"1").expect("put");
        if let Some(cf) = &other {
            db.put_cf(&wo, cf, b"b", b"2").expect("put other");
        }
        let flushed = db.flush_cf(&db.default_column_family());
        if families == 1 {
            flushed.expect("the retired WAL is not synced");
            assert_eq!(
                db.get(&ReadOptions::default(), b"a").expect("get"),
                Some(b"1".to_vec())
            );
            db.put(&wo, b"c", b"3").expect("writes go on");
        } else {
            assert!(
                flushed.is_err(),
                "the WAL holding the other family's data was synced"
            );
        }
    }
}

/// A database on a `FaultFs` over a `MemFs` (both returned, for hooks and crash copies).
fn open_on_fault_fs() -> (MemFs, cairndb::fs::FaultFs, Arc<Db>) {
    let mem = MemFs::new();
    let fs = cairndb::fs::FaultFs::new(mem.shared(), 1);
    let db = Db::open_with_fs(fs.shared(), DIR, opts(WalRecoveryMode::default())).expect("open");
    (mem, fs, Arc::new(db))
}

/// Found by the power_cut suite (CI, cycle 0xfc48e3ce1662b1ae). With two families, a flush of
/// one starts while the other holds nothing in memory, so it leaves the retired WAL unsynced;
/// the other family is written while the table is built. The flush must still make the
/// retired WAL obsolete for both families, or recovery replays that unsynced WAL, finds its
/// tail lost, stops there, and loses a later synced write.
#[test]
fn a_family_written_during_a_flush_does_not_keep_an_unsynced_wal_alive() {
    use cairndb::fs::{CrashOptions, OpKind};
    use cairndb::options::CfOptions;

    let (mem, fs, db) = open_on_fault_fs();
    let b = db
        .create_column_family("b", CfOptions::default())
        .expect("create family");
    let wo = WriteOptions::default();
    db.put(&wo, b"a", b"1").expect("put");
    {
        // While the flush of the default family builds its table, family `b` gets a write.
        let (db, b) = (Arc::clone(&db), b.clone());
        fs.before_next(OpKind::Create, ".sst", move || {
            std::thread::spawn(move || db.put_cf(&WriteOptions::default(), &b, b"x", b"2"))
                .join()
                .expect("writer thread")
                .expect("put b");
        });
    }
    db.flush_cf(&db.default_column_family()).expect("flush");
    assert!(fs.hooks_ran(), "the flush built a table");
    let synced = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    db.put(&synced, b"c", b"3").expect("synced put");

    let cut = mem.crash_clone(CrashOptions::synced_only());
    drop(db);
    let mut o = opts(WalRecoveryMode::default());
    o.db.create_missing_column_families = true;
    let db = Db::open_cf_with_fs(
        cut.shared(),
        DIR,
        o,
        vec![cairndb::db::ColumnFamilyDescriptor::new(
            "b",
            CfOptions::default(),
        )],
    )
    .expect("reopen");
    let r = ReadOptions::default();
    assert_eq!(db.get(&r, b"a").expect("get a"), Some(b"1".to_vec()));
    assert_eq!(
        db.get(&r, b"c").expect("get c"),
        Some(b"3".to_vec()),
        "a synced write was lost"
    );
    let b = db.column_family("b").expect("family b");
    assert_eq!(db.get_cf(&r, &b, b"x").expect("get x"), Some(b"2".to_vec()));
}

/// Arms `fs` so that `tx` receives `event` once the info log of `DIR`, read through `files`
/// (the file system under `fs`), contains `needle`: the hook re-arms itself after every LOG
/// write until then.
fn on_log_line(
    fs: &cairndb::fs::FaultFs,
    files: Arc<dyn FileSystem>,
    needle: &'static str,
    tx: std::sync::mpsc::Sender<&'static str>,
    event: &'static str,
) {
    let again = fs.clone();
    fs.after_next(cairndb::fs::OpKind::Write, "LOG", move || {
        let path = Path::new(DIR).join("LOG");
        let text = files
            .open_read(&path)
            .and_then(|f| {
                let mut buf = vec![0; f.size()? as usize];
                f.read_exact_at(0, &mut buf)?;
                Ok(String::from_utf8_lossy(&buf).into_owned())
            })
            .unwrap_or_default();
        if text.contains(needle) {
            let _ = tx.send(event);
        } else {
            on_log_line(&again, files, needle, tx, event);
        }
    });
}

/// Close must not release the directory while a flush started on another thread is still
/// writing its table: the flush would install its edit (and delete files) after a reopen.
/// The flush is held inside its table creation; close is started and the test waits for the
/// first of two events, with no timing involved: close logs that it waits for the call in
/// flight (the fix: the flush is then released and close returns after it), or close returns
/// (the bug: it returned while the flush was held).
#[test]
fn close_waits_for_a_flush_running_on_another_thread() {
    use cairndb::fs::OpKind;
    use std::sync::mpsc;

    let (mem, fs, db) = open_on_fault_fs();
    db.put(&WriteOptions::default(), b"k", b"v").expect("put");
    let (inside_tx, inside_rx) = mpsc::channel::<()>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    fs.before_next(OpKind::Create, ".sst", move || {
        inside_tx.send(()).expect("signal");
        release_rx.recv().expect("release");
    });
    let flusher = {
        let db = Arc::clone(&db);
        std::thread::spawn(move || db.flush())
    };
    inside_rx.recv().expect("the flush reached its table");
    let (event_tx, event_rx) = mpsc::channel();
    on_log_line(
        &fs,
        mem.shared(),
        "close: waiting for 1 call(s)",
        event_tx.clone(),
        "close waits",
    );
    let closer = {
        let db = Arc::clone(&db);
        std::thread::spawn(move || {
            let r = db.close();
            let _ = event_tx.send("close returned");
            r
        })
    };
    let first = event_rx.recv().expect("an event");
    release_tx.send(()).expect("release the flush");
    let flushed = flusher.join().expect("flush thread");
    closer.join().expect("close thread").expect("close");
    assert_eq!(
        first, "close waits",
        "close released the directory while a flush was running"
    );
    // Whatever the flush's result, the database reopens with the write.
    assert!(
        matches!(flushed, Ok(()) | Err(cairndb::Error::Closed)),
        "{flushed:?}"
    );
    drop(db);
    let db = Db::open_with_fs(mem.shared(), DIR, opts(WalRecoveryMode::default())).expect("reopen");
    assert_eq!(
        db.get(&ReadOptions::default(), b"k").expect("get"),
        Some(b"v".to_vec())
    );
}
