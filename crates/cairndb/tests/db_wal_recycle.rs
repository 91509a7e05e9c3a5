//! Recycled WALs (`recycle_log_file_num`): obsolete WAL files are kept, then renamed and
//! overwritten from their start as later WALs, instead of deleted and created. A recycled file
//! holds its old records past the new ones; they carry another log number, and recovery reads
//! them as the end of the log, in every recovery mode.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use cairndb::fs::{read_all, CrashOptions, FaultFs, FileSystem, MemFs};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::wal::WalRecoveryMode;
use cairndb::{Db, Error};
use common::{fail_table_creates, opts, wal_names, DIR};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn recycling(keep: usize, mode: WalRecoveryMode) -> Options {
    let mut o = opts();
    o.db.recycle_log_file_num = keep;
    o.db.wal_recovery_mode = mode;
    o.cf.max_write_buffer_number = 4;
    o
}

fn reuses(fs: &dyn FileSystem) -> usize {
    let log =
        String::from_utf8(read_all(fs, &Path::new(DIR).join("LOG")).expect("LOG")).expect("utf8");
    log.matches("from the recycle list").count()
}

/// Batches of 10 puts with 400-byte values (a 64 KiB memtable fills every 16 batches) until
/// `done` says stop; each key written once, so the model is exact. Every third batch synced.
fn write_until(db: &Db, model: &mut Model, mut done: impl FnMut() -> bool) {
    let mut round = model.len();
    while !done() {
        let mut b = cairndb::WriteBatch::new();
        for i in 0..10 {
            let k = format!("key{round:06}-{i}").into_bytes();
            let v = [format!("{round}.{i}-").as_bytes(), &[b'v'; 400][..]].concat();
            b.put(&k, &v).expect("put");
            model.insert(k, v);
        }
        let wo = WriteOptions {
            sync: round % 3 == 0,
            ..WriteOptions::default()
        };
        db.write(&wo, b).expect("write");
        round += 10;
        assert!(round < 200_000, "the expected WAL switches did not happen");
    }
}

fn check(db: &Db, model: &Model, what: &str) {
    let ro = ReadOptions::default();
    for (k, v) in model {
        let got = db.get(&ro, k).expect("get");
        assert_eq!(
            got.as_deref(),
            Some(&v[..]),
            "{what}: {}",
            String::from_utf8_lossy(k)
        );
    }
    let mut it = db.iter(&ro).expect("iter");
    it.seek_to_first();
    let mut n = 0;
    while it.valid() {
        n += 1;
        it.next();
    }
    it.status().expect("scan");
    assert_eq!(n, model.len(), "{what}: no key beyond the model");
}

/// Obsolete WALs are reused (the LOG says so), and after a clean close and after a process
/// crash every write is read back and nothing else: no record of a recycled file's earlier
/// life comes back.
#[test]
fn obsolete_wals_are_reused_and_their_old_records_never_come_back() {
    for mode in [
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::PointInTimeRecovery,
    ] {
        let mem = MemFs::new();
        let db = Db::open_with_fs(mem.shared(), DIR, recycling(2, mode)).expect("open");
        let mut model = Model::new();
        write_until(&db, &mut model, || reuses(&*mem.shared()) >= 6);
        let crashed = mem.process_crash_clone();
        db.close().expect("close");
        let db = Db::open_with_fs(mem.shared(), DIR, recycling(2, mode)).expect("reopen");
        check(&db, &model, &format!("{mode:?} after close"));
        drop(db);
        let db = Db::open_with_fs(crashed.shared(), DIR, recycling(2, mode)).expect("recover");
        check(&db, &model, &format!("{mode:?} after a process crash"));
    }
}

fn wals(mem: &MemFs) -> usize {
    wal_names(mem).len()
}

/// WALs of 256 KiB memtables are kept for reuse; then memtables shrink to 64 KiB and flushes
/// stop (every table create fails). The next switch reuses a long file and the one after
/// retires it, sealed, with its old records after the seal, and starts another WAL (new or
/// reused). Recovery must read past the recycled WAL into its successor; point-in-time
/// recovery used to take the old records for damage and skip every later WAL.
#[test]
fn recovery_reads_past_a_live_recycled_wal_into_its_successor() {
    for mode in [
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::PointInTimeRecovery,
        WalRecoveryMode::SkipAnyCorruptedRecords,
    ] {
        let mem = MemFs::new();
        let fs = FaultFs::new(mem.shared(), 5);
        // No compactions: the flush's sweep must not meet a MANIFEST write in flight, which
        // would leave the retired WAL for a later sweep.
        let mut o = recycling(3, mode);
        o.cf.disable_auto_compactions = true;
        o.cf.write_buffer_size = 256 << 10;
        let db = Db::open_with_fs(fs.shared(), DIR, o.clone()).expect("open");
        let mut model = Model::new();
        write_until(&db, &mut model, || reuses(&*mem.shared()) >= 2);
        db.flush().expect("flush");
        let kept = mem.list(Path::new(DIR)).expect("list");
        assert!(
            kept.iter().any(|n| n.ends_with(".dbtmp")),
            "the WAL the flush retired is kept for reuse: {kept:?}"
        );
        db.set_options_default(&[("write_buffer_size", "65536")])
            .expect("set_options");
        fail_table_creates(&fs);
        let before = reuses(&*mem.shared());
        write_until(&db, &mut model, || reuses(&*mem.shared()) > before);
        // One more switch: another kept file reused (renamed), or a new WAL.
        let (reused, live) = (reuses(&*mem.shared()), wals(&mem));
        write_until(&db, &mut model, || {
            reuses(&*mem.shared()) > reused || wals(&mem) > live
        });
        let crashed = mem.process_crash_clone();
        drop(db);
        let db = Db::open_with_fs(crashed.shared(), DIR, o).expect("recover");
        let report = db.recovery_report();
        assert!(
            report.logs_replayed.len() >= 2 && report.logs_skipped.is_empty(),
            "{mode:?}: {report:?}"
        );
        check(&db, &model, &format!("{mode:?}"));
    }
}

/// A power cut that keeps only synced state: every synced write survives, and what survives
/// is a prefix of the history (the writes are in key order, one key each).
#[test]
fn synced_writes_to_recycled_wals_survive_a_power_cut() {
    for seed in 0..8u64 {
        let mem = MemFs::new();
        let o = recycling(2, WalRecoveryMode::TolerateCorruptedTailRecords);
        let db = Db::open_with_fs(mem.shared(), DIR, o.clone()).expect("open");
        let mut model = Model::new();
        let target = 4 + seed as usize;
        write_until(&db, &mut model, || reuses(&*mem.shared()) >= target);
        let cut = mem.crash_clone(if seed % 2 == 0 {
            CrashOptions::synced_only()
        } else {
            CrashOptions::random(seed)
        });
        drop(db);
        let db = Db::open_with_fs(cut.shared(), DIR, o).expect("recover");
        let ro = ReadOptions::default();
        // Keys sort in write order; the last synced batch is the one of the largest round
        // divisible by 30 (every third batch of ten).
        let mut missing_seen = false;
        for (k, v) in &model {
            match db.get(&ro, k).expect("get") {
                Some(got) => {
                    assert_eq!(got, *v, "seed {seed}");
                    assert!(!missing_seen, "seed {seed}: a hole before {k:?}");
                }
                None => missing_seen = true,
            }
        }
        let last_synced = (model.len() / 10 - 1) / 3 * 30;
        let k = format!("key{last_synced:06}-9").into_bytes();
        assert!(
            db.get(&ro, &k).expect("get").is_some(),
            "seed {seed}: synced write lost"
        );
    }
}

#[test]
fn recycling_is_refused_with_absolute_consistency() {
    let mem = MemFs::new();
    let err = Db::open_with_fs(
        mem.shared(),
        DIR,
        recycling(1, WalRecoveryMode::AbsoluteConsistency),
    )
    .expect_err("refused");
    assert!(
        matches!(&err, Error::InvalidArgument(m) if m.contains("recycle_log_file_num")),
        "{err:?}"
    );
}

/// Files an earlier run left (WALs it kept for reuse, obsolete WALs) are deleted at open, never
/// reused: after a power cut one may share its inode with another name, or hold records of a
/// log number the reopened database hands out again.
#[test]
fn wals_kept_by_an_earlier_run_are_deleted_at_open() {
    let mem = MemFs::new();
    let o = recycling(3, WalRecoveryMode::TolerateCorruptedTailRecords);
    let db = Db::open_with_fs(mem.shared(), DIR, o.clone()).expect("open");
    let mut model = Model::new();
    write_until(&db, &mut model, || {
        let names = mem.list(Path::new(DIR)).expect("list");
        reuses(&*mem.shared()) >= 2 && names.iter().any(|n| n.ends_with(".dbtmp"))
    });
    let crashed = mem.process_crash_clone();
    drop(db);
    let db = Db::open_with_fs(crashed.shared(), DIR, o).expect("recover");
    let names = crashed.list(Path::new(DIR)).expect("list");
    assert!(
        !names.iter().any(|n| n.ends_with(".dbtmp")),
        "no kept WAL survives the open: {names:?}"
    );
    assert_eq!(wals(&crashed), 1, "only the new WAL: {names:?}");
    check(&db, &model, "after the crash");
}

/// A WAL ending with its seal is complete: whatever bytes follow the seal (a recycled file's
/// old contents that read as a torn tail, here garbage appended to a retired WAL) end that log
/// and nothing else; point-in-time recovery used to skip every later WAL. Absolute
/// consistency (which refuses recycling) still fails on them.
#[test]
fn bytes_after_a_seal_end_that_log_only() {
    for mode in [
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::PointInTimeRecovery,
        WalRecoveryMode::AbsoluteConsistency,
    ] {
        let mem = MemFs::new();
        let fs = FaultFs::new(mem.shared(), 9);
        let o = recycling(0, mode);
        let db = Db::open_with_fs(fs.shared(), DIR, o.clone()).expect("open");
        // Flushes fail from the start, so every retired WAL stays live.
        fail_table_creates(&fs);
        let mut model = Model::new();
        write_until(&db, &mut model, || wals(&mem) >= 3);
        let crashed = mem.process_crash_clone();
        drop(db);
        let logs = wal_names(&crashed);
        let mut f = crashed
            .open_append(&Path::new(DIR).join(&logs[0]))
            .expect("open the oldest WAL");
        f.append(&[0x5a; 100]).expect("append");
        f.sync().expect("sync");
        drop(f);
        if mode == WalRecoveryMode::AbsoluteConsistency {
            let err = Db::open_with_fs(crashed.shared(), DIR, o).expect_err("strict");
            assert!(err.is_corruption(), "{err:?}");
            continue;
        }
        let db = Db::open_with_fs(crashed.shared(), DIR, o).expect("recover");
        let report = db.recovery_report();
        assert!(report.logs_skipped.is_empty(), "{mode:?}: {report:?}");
        check(&db, &model, &format!("{mode:?}"));
    }
}
