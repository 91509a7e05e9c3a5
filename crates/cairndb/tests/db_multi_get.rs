//! `Db::multi_get` against `Db::get`: the same answers key for key (values, deletions, range
//! deletions, merges, snapshots, keys in memtables and in several tables), and a data block
//! shared by several keys of one call is read once.

mod common;

use std::sync::Arc;

use cairndb::cache::CacheOptions;
use cairndb::fs::MemFs;
use cairndb::merge::UInt64AddOperator;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::sstable::BlockCache;
use cairndb::Db;
use common::DIR;
use proptest::prelude::*;

/// [`common::opts`] with a merge operator, for the merges of the workload.
fn opts() -> Options {
    let mut o = common::opts();
    o.cf.merge_operator = Some(Arc::new(UInt64AddOperator));
    o
}

/// Five digits of a `u16` (the model's key type), not [`common::key`]'s six of a `u32`.
fn key(k: u16) -> Vec<u8> {
    format!("key{k:05}").into_bytes()
}

#[derive(Debug, Clone)]
enum Op {
    Put(u16, usize),
    Delete(u16),
    DeleteRange(u16, u16),
    Merge(u16),
    Flush,
    Snapshot,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0u16..400, 1usize..600).prop_map(|(k, n)| Op::Put(k, n)),
        2 => (0u16..400).prop_map(Op::Delete),
        1 => (0u16..400, 0u16..400).prop_map(|(a, b)| Op::DeleteRange(a.min(b), a.max(b))),
        2 => (0u16..400).prop_map(Op::Merge),
        1 => Just(Op::Flush),
        1 => Just(Op::Snapshot),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn multi_get_answers_as_get(
        ops in proptest::collection::vec(op(), 1..400),
        probes in proptest::collection::vec(0u16..420, 1..80),
    ) {
        let db = Db::open_with_fs(MemFs::new().shared(), DIR, opts()).expect("open");
        let w = WriteOptions::default();
        let mut snapshots = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            match *op {
                Op::Put(k, n) => db.put(&w, &key(k), &vec![(i % 251) as u8; n]).expect("put"),
                Op::Delete(k) => db.delete(&w, &key(k)).expect("delete"),
                Op::DeleteRange(a, b) => db.delete_range(&w, &key(a), &key(b)).expect("range"),
                // A merge onto a 1..600-byte value is not a u64: the operator fails and both
                // calls must report the same error kind.
                Op::Merge(k) => db.merge(&w, &key(k), &1u64.to_le_bytes()).expect("merge"),
                Op::Flush => db.flush().expect("flush"),
                Op::Snapshot => snapshots.push(db.snapshot().expect("snapshot")),
            }
        }
        let keys: Vec<Vec<u8>> = probes.iter().map(|&k| key(k)).collect();
        let mut reads = vec![ReadOptions::default()];
        reads.extend(snapshots.iter().map(|s| ReadOptions {
            snapshot: Some(s.sequence()),
            ..ReadOptions::default()
        }));
        for ro in &reads {
            let batch = db.multi_get(ro, &keys);
            prop_assert_eq!(batch.len(), keys.len());
            for (k, got) in keys.iter().zip(batch) {
                let one = db.get(ro, k);
                match (got, one) {
                    (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "key {:?}", String::from_utf8_lossy(k)),
                    (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                    (a, b) => prop_assert!(false, "{:?} vs {:?}", a, b),
                }
            }
        }
    }
}

#[test]
fn a_block_shared_by_several_keys_is_read_once() {
    let fs = MemFs::new().shared();
    let cache = Arc::new(BlockCache::new(CacheOptions::with_capacity(64 << 20)));
    let mut o = opts();
    o.cf.table.block_cache = Some(Arc::clone(&cache));
    o.cf.table.block_size = 4096;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    for k in 0..2000u16 {
        db.put(&WriteOptions::default(), &key(k), &[7u8; 100])
            .expect("put");
    }
    db.flush().expect("flush");
    // Open every table first (opening reads footer, index, filter and properties).
    for k in (0..2000).step_by(100) {
        db.get(&ReadOptions::default(), &key(k)).expect("get");
    }
    let before = cache.stats();
    // 20 adjacent keys of ~120 bytes span one or two 4 KiB blocks.
    let keys: Vec<Vec<u8>> = (1000..1020).map(key).collect();
    let got = db.multi_get(&ReadOptions::default(), &keys);
    assert!(got
        .iter()
        .all(|r| matches!(r, Ok(Some(v)) if v == &[7u8; 100])));
    let after = cache.stats();
    let lookups = (after.hits + after.misses) - (before.hits + before.misses);
    assert!(
        (1..=2).contains(&lookups),
        "20 keys in at most 2 blocks took {lookups} block lookups"
    );
    // The same keys one get at a time look a block up per key.
    let before = cache.stats();
    for k in &keys {
        db.get(&ReadOptions::default(), k).expect("get");
    }
    let after = cache.stats();
    assert_eq!(
        (after.hits + after.misses) - (before.hits + before.misses),
        20
    );
}
