//! Compaction inside the database: background compactions keep L0 small and move data down the
//! levels without changing any answer (latest state, snapshots, deletions, range deletions,
//! merges), manual compaction empties the upper levels, and the result survives reopen.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use cairndb::fs::MemFs;
use cairndb::merge::UInt64AddOperator;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;
use common::{key, scan_both_ways, DIR};
use proptest::prelude::*;

/// Tiny buffers and level targets ([`common::compaction_opts`]) so that a few hundred writes
/// compact through several levels, and a merge operator for the merges of the workloads.
fn opts() -> Options {
    let mut o = common::compaction_opts();
    o.cf.merge_operator = Some(Arc::new(UInt64AddOperator));
    o
}

#[test]
fn background_compaction_keeps_l0_small_and_answers_unchanged() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    let w = WriteOptions::default();
    let mut model = BTreeMap::new();
    let mut snapshot = None;
    for i in 0..6000u32 {
        let k = key((i * 7919) % 2000);
        let v = vec![(i % 251) as u8; 200];
        db.put(&w, &k, &v).expect("put");
        model.insert(k, v);
        if i % 97 == 0 {
            let d = key((i * 31) % 2000);
            db.delete(&w, &d).expect("delete");
            model.remove(&d);
        }
        if i == 3000 {
            snapshot = Some((db.snapshot().expect("snapshot"), model.clone()));
        }
    }
    db.flush().expect("flush");
    db.wait_for_compactions().expect("wait");
    let levels = db.level_summary_cf(&db.default_column_family());
    assert!(
        levels[0].files < 2,
        "L0 holds {} files after compactions: {levels:?}",
        levels[0].files
    );
    // With dynamic level bytes (the default) L0 compacts straight into the base level, which
    // is the last level while the data is this small.
    assert!(
        levels[1..].iter().map(|l| l.files).sum::<usize>() > 0,
        "data left L0: {levels:?}"
    );
    let stats = db.compaction_stats_cf(&db.default_column_family());
    let done: u64 = stats.levels.iter().map(|l| l.compactions).sum();
    assert!(done > 0, "{stats:?}");
    assert_eq!(scan_both_ways(&db, &ReadOptions::default()), model);
    let (snap, at_snap) = snapshot.expect("taken");
    let ro = ReadOptions {
        snapshot: Some(snap.sequence()),
        ..ReadOptions::default()
    };
    assert_eq!(
        scan_both_ways(&db, &ro),
        at_snap,
        "the snapshot survives compaction"
    );
    let mut early = db.iter(&ReadOptions::default()).expect("iter");
    early.seek_to_first();
    drop(snap);
    // More compactions while the iterator pins the current version's files.
    for i in 0..3000u32 {
        db.put(&w, &key(i % 2000), &[9; 200]).expect("put");
        model.insert(key(i % 2000), vec![9; 200]);
    }
    db.flush().expect("flush");
    db.wait_for_compactions().expect("wait");
    drop(early);
    let live: usize = db
        .level_summary_cf(&db.default_column_family())
        .iter()
        .map(|l| l.files)
        .sum();
    db.close().expect("close");
    let tables = fs
        .list(DIR.as_ref())
        .expect("list")
        .iter()
        .filter(|n| n.ends_with(".sst"))
        .count();
    assert_eq!(tables, live, "close leaves only live tables");
    let db = Db::open_with_fs(fs, DIR, opts()).expect("reopen");
    assert_eq!(scan_both_ways(&db, &ReadOptions::default()), model);
}

#[test]
fn manual_compaction_moves_everything_to_the_last_level_and_drops_tombstones() {
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, opts()).expect("open");
    let w = WriteOptions::default();
    for i in 0..3000u32 {
        db.put(&w, &key(i), &[1; 100]).expect("put");
    }
    for i in 0..1000u32 {
        db.delete(&w, &key(i)).expect("delete");
    }
    db.delete_range(&w, &key(1000), &key(2000))
        .expect("delete range");
    for _ in 0..5 {
        db.merge(&w, &key(5000), &1u64.to_le_bytes())
            .expect("merge");
    }
    db.compact_range(None, None).expect("compact");
    let levels = db.level_summary_cf(&db.default_column_family());
    let non_empty: Vec<usize> = (0..levels.len()).filter(|&l| levels[l].files > 0).collect();
    assert_eq!(non_empty.len(), 1, "one level holds everything: {levels:?}");
    let live: BTreeMap<Vec<u8>, Vec<u8>> = scan_both_ways(&db, &ReadOptions::default());
    assert_eq!(live.len(), 1001);
    assert!(live.keys().all(|k| k.as_slice() >= key(2000).as_slice()));
    // 1000 puts of ~110 bytes remain; the deleted 2000 keys and their tombstones are gone
    // from the bottom level, so it holds far less than the 3000 puts written.
    let bytes = levels[non_empty[0]].bytes;
    assert!(bytes < 200_000, "{bytes} bytes after dropping deleted data");
    let merged = db.get(&ReadOptions::default(), &key(5000)).expect("get");
    assert_eq!(
        merged,
        Some(5u64.to_le_bytes().to_vec()),
        "the operands folded"
    );
}

#[derive(Debug, Clone)]
enum Op {
    Put(u16, usize),
    Delete(u16),
    DeleteRange(u16, u16),
    Merge(u16),
    Snapshot,
    Compact,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        10 => (0u16..500, 50usize..800).prop_map(|(k, n)| Op::Put(k, n)),
        3 => (0u16..500).prop_map(Op::Delete),
        1 => (0u16..500, 0u16..500).prop_map(|(a, b)| Op::DeleteRange(a.min(b), a.max(b))),
        2 => (500u16..520).prop_map(Op::Merge),
        1 => Just(Op::Snapshot),
        1 => Just(Op::Compact),
        1 => Just(Op::Reopen),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Random writes while compactions run, checked against a model at the latest state and at
    /// every snapshot, with manual compactions and reopens.
    #[test]
    fn model_with_compactions(ops in proptest::collection::vec(op(), 50..600)) {
        let fs = MemFs::new().shared();
        let mut db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
        let w = WriteOptions::default();
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        let mut snaps = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            match *op {
                Op::Put(k, n) => {
                    let v = vec![(i % 251) as u8; n];
                    db.put(&w, &key(k.into()), &v).expect("put");
                    model.insert(key(k.into()), v);
                }
                Op::Delete(k) => {
                    db.delete(&w, &key(k.into())).expect("delete");
                    model.remove(&key(k.into()));
                }
                Op::DeleteRange(a, b) => {
                    let (a, b) = (key(a.into()), key(b.into()));
                    db.delete_range(&w, &a, &b).expect("range");
                    model.retain(|k, _| !(a <= *k && *k < b));
                }
                Op::Merge(k) => {
                    db.merge(&w, &key(k.into()), &1u64.to_le_bytes()).expect("merge");
                    let e = model.entry(key(k.into())).or_insert_with(|| 0u64.to_le_bytes().to_vec());
                    let n = u64::from_le_bytes(e.as_slice().try_into().expect("8 bytes")) + 1;
                    *e = n.to_le_bytes().to_vec();
                }
                Op::Snapshot => {
                    if snaps.len() >= 3 {
                        snaps.remove(0);
                    }
                    snaps.push((db.snapshot().expect("snapshot"), model.clone()));
                }
                Op::Compact => db.compact_range(None, None).expect("compact"),
                Op::Reopen => {
                    snaps.clear();
                    db.close().expect("close");
                    db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("reopen");
                }
            }
        }
        db.wait_for_compactions().expect("wait");
        prop_assert_eq!(&scan_both_ways(&db, &ReadOptions::default()), &model);
        for (snap, expected) in &snaps {
            let ro = ReadOptions { snapshot: Some(snap.sequence()), ..ReadOptions::default() };
            prop_assert_eq!(&scan_both_ways(&db, &ro), expected, "snapshot {}", snap.sequence());
        }
    }
}
