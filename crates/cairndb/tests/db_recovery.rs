//! WAL damage at open under each recovery mode, and what the recovery report says.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairndb::fs::{FileSystem, MemFs};
use cairndb::options::{Options, ReadOptions, WalRecoveryMode, WriteOptions};
use cairndb::wal::DamageKind;
use cairndb::Db;

const DIR: &str = "/db";
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
