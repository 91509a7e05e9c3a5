//! The database front against its contract: a model test (random operations against a
//! `BTreeMap`, with flushes, WAL rolls and reopens), power cuts on `CrashFs`, and bad input.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use cairndb::db::Snapshot;
use cairndb::fs::{CrashOptions, FileSystem, MemFs};
use cairndb::options::{ReadOptions, WriteOptions};
use cairndb::{Db, Error};
use common::{opts, scan_both_ways, DIR};
use proptest::prelude::*;

/// Live snapshots with the model state each must see.
type Snaps = Vec<(Snapshot, BTreeMap<Vec<u8>, Vec<u8>>)>;

fn check_snapshots(db: &Db, snaps: &Snaps) {
    for (snap, expected) in snaps {
        let ro = ReadOptions {
            snapshot: Some(snap.sequence()),
            ..ReadOptions::default()
        };
        assert_eq!(
            &scan_both_ways(db, &ro),
            expected,
            "snapshot {}",
            snap.sequence()
        );
        for (k, v) in expected.iter().take(5) {
            assert_eq!(db.get(&ro, k).expect("get").as_ref(), Some(v));
        }
    }
}

#[derive(Debug, Clone)]
enum Op {
    Put(u8, usize),
    Delete(u8),
    DeleteRange(u8, u8),
    Get(u8),
    Flush,
    Reopen,
    Snapshot,
    CheckSnapshots,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (any::<u8>(), 0usize..3000).prop_map(|(k, n)| Op::Put(k, n)),
        3 => any::<u8>().prop_map(Op::Delete),
        1 => (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Op::DeleteRange(a, b)),
        4 => any::<u8>().prop_map(Op::Get),
        1 => Just(Op::Flush),
        1 => Just(Op::Reopen),
        1 => Just(Op::Snapshot),
        1 => Just(Op::CheckSnapshots),
    ]
}

/// Three digits of a `u8` (the model's key type), not [`common::key`]'s six of a `u32`.
fn key(k: u8) -> Vec<u8> {
    format!("key{k:03}").into_bytes()
}

fn apply(
    db: &mut Db,
    fs: &Arc<dyn FileSystem>,
    model: &mut BTreeMap<Vec<u8>, Vec<u8>>,
    snaps: &mut Snaps,
    op: &Op,
    i: usize,
) {
    let w = WriteOptions::default();
    match *op {
        Op::Put(k, n) => {
            let v = vec![(i % 251) as u8; n];
            db.put(&w, &key(k), &v).expect("put");
            model.insert(key(k), v);
        }
        Op::Delete(k) => {
            db.delete(&w, &key(k)).expect("delete");
            model.remove(&key(k));
        }
        Op::DeleteRange(a, b) => {
            let (a, b) = (a.min(b), a.max(b));
            db.delete_range(&w, &key(a), &key(b)).expect("delete_range");
            model.retain(|k2, _| !(key(a) <= *k2 && *k2 < key(b)));
        }
        Op::Get(k) => {
            let got = db.get(&ReadOptions::default(), &key(k)).expect("get");
            assert_eq!(got.as_ref(), model.get(&key(k)), "get of {k} at op {i}");
        }
        Op::Flush => db.flush().expect("flush"),
        Op::Snapshot => {
            if snaps.len() >= 3 {
                snaps.remove(0);
            }
            snaps.push((db.snapshot().expect("snapshot"), model.clone()));
        }
        Op::CheckSnapshots => check_snapshots(db, snaps),
        Op::Reopen => {
            // Snapshots do not survive a reopen.
            snaps.clear();
            db.close().expect("close");
            *db = Db::open_with_fs(Arc::clone(fs), DIR, opts()).expect("reopen");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn model(ops in proptest::collection::vec(op(), 1..300)) {
        let fs = MemFs::new().shared();
        let mut db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
        let mut model = BTreeMap::new();
        let mut snaps = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            apply(&mut db, &fs, &mut model, &mut snaps, op, i);
        }
        check_snapshots(&db, &snaps);
        drop(snaps);
        prop_assert_eq!(scan_both_ways(&db, &ReadOptions::default()), model.clone());
        db.close().expect("close");
        let db = Db::open_with_fs(fs, DIR, opts()).expect("final reopen");
        prop_assert_eq!(scan_both_ways(&db, &ReadOptions::default()), model);
    }
}

#[test]
fn data_survives_close_and_reopen_sync_or_not() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    let sync = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    for i in 0..500u32 {
        let w = if i % 2 == 0 {
            &sync
        } else {
            &WriteOptions::default()
        };
        db.put(w, &i.to_be_bytes(), &[i as u8; 300]).expect("put");
    }
    drop(db);
    let db = Db::open_with_fs(fs, DIR, opts()).expect("reopen");
    for i in 0..500u32 {
        let v = db
            .get(&ReadOptions::default(), &i.to_be_bytes())
            .expect("get");
        assert_eq!(v, Some(vec![i as u8; 300]), "key {i}");
    }
}

#[test]
fn power_cut_keeps_synced_writes_and_a_prefix() {
    for cut in [1usize, 7, 40, 133, 400] {
        let mem = MemFs::new();
        let db = Db::open_with_fs(mem.shared(), DIR, opts()).expect("open");
        let mut synced_upto = 0;
        for i in 0..cut {
            let sync = i % 5 == 4;
            let w = WriteOptions {
                sync,
                ..WriteOptions::default()
            };
            db.put(&w, &(i as u32).to_be_bytes(), &[1; 500])
                .expect("put");
            if sync {
                synced_upto = i + 1;
            }
        }
        let crashed = mem.crash_clone(CrashOptions::synced_only());
        drop(db);
        let db = Db::open_with_fs(crashed.shared(), DIR, opts()).expect("recover");
        let present = scan_both_ways(&db, &ReadOptions::default());
        let n = present.len();
        assert!(
            n >= synced_upto,
            "cut {cut}: {n} keys, {synced_upto} synced"
        );
        for i in 0..n {
            assert!(
                present.contains_key(&(i as u32).to_be_bytes()[..]),
                "cut {cut}: not a prefix at {i}"
            );
        }
    }
}

#[test]
fn lock_and_existence_checks() {
    let fs = MemFs::new().shared();
    let mut no_create = opts();
    no_create.db.create_if_missing = false;
    assert!(Db::open_with_fs(Arc::clone(&fs), DIR, no_create.clone()).is_err());
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    let e = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect_err("locked");
    assert!(e.is_lock_held(), "{e}");
    db.close().expect("close");
    let mut exclusive = opts();
    exclusive.db.error_if_exists = true;
    assert!(Db::open_with_fs(Arc::clone(&fs), DIR, exclusive).is_err());
    Db::open_with_fs(fs, DIR, no_create).expect("open existing");
}

#[test]
fn oversize_key_and_use_after_close() {
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, opts()).expect("open");
    let big = vec![0u8; (8 << 20) + 1];
    let e = db
        .put(&WriteOptions::default(), &big, b"v")
        .expect_err("oversize");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert_eq!(db.latest_sequence(), 0, "nothing written");
    db.put(&WriteOptions::default(), b"a", b"1").expect("put");
    db.close().expect("close");
    let w = WriteOptions::default();
    assert!(matches!(db.put(&w, b"a", b"2"), Err(Error::Closed)));
    assert!(matches!(
        db.get(&ReadOptions::default(), b"a"),
        Err(Error::Closed)
    ));
    assert!(matches!(db.flush(), Err(Error::Closed)));
    assert!(matches!(db.close(), Err(Error::Closed)));
}

#[test]
fn random_power_cuts_with_torn_tails_keep_a_prefix() {
    for seed in 0..40u64 {
        let mem = MemFs::new();
        let db = Db::open_with_fs(mem.shared(), DIR, opts()).expect("open");
        let n = 50 + (seed as usize * 37) % 400;
        let mut synced_upto = 0;
        for i in 0..n {
            let sync = i % 7 == 6;
            let w = WriteOptions {
                sync,
                ..WriteOptions::default()
            };
            db.put(&w, &(i as u32).to_be_bytes(), &[2; 700])
                .expect("put");
            if sync {
                synced_upto = i + 1;
            }
        }
        let crashed = mem.crash_clone(CrashOptions::random(seed));
        drop(db);
        let db = Db::open_with_fs(crashed.shared(), DIR, opts()).expect("recover");
        let present = scan_both_ways(&db, &ReadOptions::default());
        let got = present.len();
        assert!(
            got >= synced_upto,
            "seed {seed}: {got} keys, {synced_upto} synced"
        );
        for i in 0..got {
            let k = (i as u32).to_be_bytes();
            assert_eq!(
                present.get(&k[..]).map(Vec::len),
                Some(700),
                "seed {seed}: not a prefix at {i}"
            );
        }
    }
}

/// A flush writes what a compaction would keep (RocksDB's flush runs its compaction iterator
/// too): of a key overwritten many times, the newest version and the newest one each live
/// snapshot sees; entries under the memtable's own range deletion go; the range deletion stays.
/// Reads, at the snapshot too, are unchanged.
#[test]
fn a_flush_drops_versions_no_snapshot_can_see() {
    use cairndb::sstable::Table;
    use std::path::Path;

    let fs = MemFs::new().shared();
    let mut o = opts();
    o.cf.disable_auto_compactions = true;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o).expect("open");
    let w = WriteOptions::default();
    for i in 0..50u32 {
        db.put(&w, b"hot", &i.to_be_bytes()).expect("put");
    }
    let snap = db.snapshot().expect("snapshot");
    for i in 50..100u32 {
        db.put(&w, b"hot", &i.to_be_bytes()).expect("put");
    }
    for i in 0..20u32 {
        db.put(&w, format!("gone{i:02}").as_bytes(), b"v")
            .expect("put");
    }
    db.delete_range(&w, b"gone", b"gonf").expect("delete range");
    db.put(&w, b"cold", b"c").expect("put");
    db.flush().expect("flush");

    let levels = db.level_files_cf(&db.default_column_family());
    assert_eq!(levels[0].len(), 1, "one table flushed");
    let t = &levels[0][0];
    let path = Path::new(DIR).join(format!("{:06}.sst", t.number));
    let file = fs.open_read(&path).expect("open table");
    let table = Table::open(file, &path, t.size, &Default::default()).expect("table");
    let p = table.properties();
    assert_eq!(p.num_range_deletions, 1, "the range deletion is kept");
    assert_eq!(
        p.num_entries - p.num_range_deletions,
        3,
        "hot@99, hot@49 for the snapshot, and cold: {p:?}"
    );

    let r = ReadOptions::default();
    assert_eq!(
        db.get(&r, b"hot").expect("get"),
        Some(99u32.to_be_bytes().to_vec())
    );
    assert_eq!(db.get(&r, b"gone05").expect("get"), None);
    assert_eq!(db.get(&r, b"cold").expect("get"), Some(b"c".to_vec()));
    let at = ReadOptions {
        snapshot: Some(snap.sequence()),
        ..ReadOptions::default()
    };
    assert_eq!(
        db.get(&at, b"hot").expect("get"),
        Some(49u32.to_be_bytes().to_vec())
    );
}
