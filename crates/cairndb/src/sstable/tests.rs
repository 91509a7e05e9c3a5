//! Table-level tests: round trips (points, range deletions, lookups, batched lookups, scans)
//! against a sorted model under many option sets, and the iterator model checker shared with the
//! block tests. Point lookups (`get_tests.rs`) and per-read options (`read_options_tests.rs`)
//! are child modules that use these helpers.

use std::cmp::{Ordering, Reverse};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::fs::{AccessPattern, FileSystem, MemFs, RandomAccessFile};
use crate::iter::InternalIterator;
use crate::test_util::compare_internal;
use crate::types::{
    make_internal_key, range_deletion_sentinel, seek_key, user_key, RangeTombstone, SequenceNumber,
    ValueKind, MAX_SEQUENCE,
};

/// A range tombstone as the tests generate it: `(begin, end, seq)`.
type Tomb = (Vec<u8>, Vec<u8>, SequenceNumber);

/// One step of a randomized iterator test.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    First,
    Last,
    Seek(Vec<u8>),
    SeekForPrev(Vec<u8>),
    Next,
    Prev,
}

/// Applies `ops` to `it` and to a sorted `model` in parallel and compares position, key and value
/// after every step. `Next`/`Prev` on an unpositioned iterator are skipped (the contract forbids
/// them).
pub(crate) fn check_ops(
    it: &mut dyn InternalIterator,
    model: &[(Vec<u8>, Vec<u8>)],
    cmp: fn(&[u8], &[u8]) -> Ordering,
    ops: &[Op],
) -> std::result::Result<(), String> {
    let mut pos: Option<usize> = None;
    for (step, op) in ops.iter().enumerate() {
        pos = match op {
            Op::First => {
                it.seek_to_first();
                (!model.is_empty()).then_some(0)
            }
            Op::Last => {
                it.seek_to_last();
                model.len().checked_sub(1)
            }
            Op::Seek(t) => {
                it.seek(t);
                let i = model.partition_point(|(k, _)| cmp(k, t) == Ordering::Less);
                (i < model.len()).then_some(i)
            }
            Op::SeekForPrev(t) => {
                it.seek_for_prev(t);
                model
                    .partition_point(|(k, _)| cmp(k, t) != Ordering::Greater)
                    .checked_sub(1)
            }
            Op::Next | Op::Prev if pos.is_none() => continue,
            Op::Next => {
                it.next();
                pos.map(|p| p + 1).filter(|&p| p < model.len())
            }
            Op::Prev => {
                it.prev();
                pos.and_then(|p| p.checked_sub(1))
            }
        };
        it.status()
            .map_err(|e| format!("step {step} {op:?}: error {e}"))?;
        match pos {
            None if it.valid() => {
                return Err(format!("step {step} {op:?}: valid at {:02x?}", it.key()))
            }
            None => {}
            Some(p) => {
                if !it.valid() {
                    return Err(format!("step {step} {op:?}: invalid, expected entry {p}"));
                }
                if it.key() != model[p].0.as_slice() || it.value() != model[p].1.as_slice() {
                    return Err(format!("step {step} {op:?}: wrong entry, expected {p}"));
                }
            }
        }
    }
    Ok(())
}

/// A full forward and a full backward scan must equal the model.
pub(crate) fn check_scans(
    it: &mut dyn InternalIterator,
    model: &[(Vec<u8>, Vec<u8>)],
) -> std::result::Result<(), String> {
    let mut fwd = Vec::new();
    it.seek_to_first();
    while it.valid() {
        fwd.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().map_err(|e| e.to_string())?;
    let mut back = Vec::new();
    it.seek_to_last();
    while it.valid() {
        back.push((it.key().to_vec(), it.value().to_vec()));
        it.prev();
    }
    it.status().map_err(|e| e.to_string())?;
    back.reverse();
    if fwd != model || back != model {
        return Err(format!(
            "scan mismatch: {} forward, {} backward, {} expected",
            fwd.len(),
            back.len(),
            model.len()
        ));
    }
    Ok(())
}

/// Builds a table of `model` (sorted internal keys) in `fs` at `path`.
pub(crate) fn build_table(
    fs: &MemFs,
    path: &Path,
    model: &[(Vec<u8>, Vec<u8>)],
    opts: &TableOptions,
) -> BuiltTable {
    build_table_with(fs, path, model, &[], opts)
}

/// Builds a table of `model` plus the range deletions `tombs`, which are added interleaved with
/// the point entries, in the order given.
fn build_table_with(
    fs: &MemFs,
    path: &Path,
    model: &[(Vec<u8>, Vec<u8>)],
    tombs: &[Tomb],
    opts: &TableOptions,
) -> BuiltTable {
    let file = fs.create(path).expect("create");
    let mut b = TableBuilder::new(file, path, opts).expect("builder");
    // Tombstone j goes in after point entry (7 * j) % (n + 1): before, between and after.
    let slot = |j: usize| (7 * j) % (model.len() + 1);
    for i in 0..=model.len() {
        for (j, (begin, end, seq)) in tombs.iter().enumerate() {
            if slot(j) == i {
                b.add_range_deletion(begin, end, *seq)
                    .expect("range deletion");
            }
        }
        if let Some((k, v)) = model.get(i) {
            b.add(k, v).expect("add");
        }
    }
    b.finish().expect("finish")
}

/// What `Table::range_deletions` must return for `tombs`: sorted by `(begin, seq descending)`,
/// empty ranges dropped, equal `(begin, seq)` merged to the larger end.
fn expected_range_deletions(tombs: &[Tomb]) -> Vec<RangeTombstone> {
    let mut m: BTreeMap<(Vec<u8>, Reverse<SequenceNumber>), Vec<u8>> = BTreeMap::new();
    for (begin, end, seq) in tombs.iter().filter(|(b, e, _)| b < e) {
        let slot = m.entry((begin.clone(), Reverse(*seq))).or_default();
        *slot = slot.clone().max(end.clone());
    }
    m.into_iter()
        .map(|((begin, Reverse(seq)), end)| RangeTombstone { begin, end, seq })
        .collect()
}

/// Strategy: range tombstones over a small alphabet (so they overlap and share begin keys), some
/// empty (`begin == end`), in arbitrary order.
fn tombstones(max: usize) -> impl Strategy<Value = Vec<Tomb>> {
    let t = (
        proptest::collection::vec(b'a'..b'e', 0..5),
        proptest::collection::vec(b'a'..b'f', 0..5),
        0u64..60,
    )
        .prop_map(|(a, b, seq)| if a <= b { (a, b, seq) } else { (b, a, seq) });
    proptest::collection::vec(t, 0..max)
}

pub(crate) fn open_table(
    fs: &MemFs,
    path: &Path,
    opts: &TableOptions,
) -> crate::Result<Arc<Table>> {
    let file = fs.open_read(path)?;
    let size = file.size()?;
    Table::open(file, path, size, opts).map(Arc::new)
}

/// Strategy: a sorted, de-duplicated list of internal keys with few distinct bytes (so prefixes
/// are shared and user keys repeat with several sequence numbers) and compressible values.
fn entries(max: usize) -> impl Strategy<Value = Vec<(Vec<u8>, Vec<u8>)>> {
    let entry = (
        proptest::collection::vec(b'a'..b'e', 0..12),
        0u64..50,
        prop_oneof![
            Just(ValueKind::Put),
            Just(ValueKind::Delete),
            Just(ValueKind::Merge)
        ],
        proptest::collection::vec(0u8..3, 0..120),
    );
    proptest::collection::vec(entry, 0..max).prop_map(|v| {
        let mut m: Vec<(Vec<u8>, Vec<u8>)> = v
            .into_iter()
            .map(|(u, s, k, val)| (make_internal_key(&u, s, k), val))
            .collect();
        m.sort_by(|a, b| compare_internal(&a.0, &b.0));
        m.dedup_by(|a, b| a.0 == b.0);
        m
    })
}

fn target() -> impl Strategy<Value = Vec<u8>> {
    (proptest::collection::vec(b'a'..b'f', 0..12), 0u64..60).prop_map(|(u, s)| seek_key(&u, s))
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        Just(Op::First),
        Just(Op::Last),
        target().prop_map(Op::Seek),
        target().prop_map(Op::SeekForPrev),
        Just(Op::Next),
        Just(Op::Next),
        Just(Op::Prev),
        Just(Op::Prev),
    ];
    proptest::collection::vec(op, 1..60)
}

fn options() -> impl Strategy<Value = TableOptions> {
    (
        prop_oneof![Just(1usize), Just(64), Just(256), Just(1024), Just(4096)],
        1usize..32,
        1usize..4,
        prop_oneof![
            Just(CompressionType::None),
            Just(CompressionType::Lz4),
            Just(CompressionType::Zstd),
            Just(CompressionType::Snappy)
        ],
        prop_oneof![Just(ChecksumType::Crc32c), Just(ChecksumType::Xxh3)],
        prop_oneof![Just(0.0), Just(10.0), Just(3.5)],
        any::<bool>(),
        prop_oneof![
            Just(None),
            Just(Some((2048usize, false))),
            Just(Some((2048usize, true))),
            Just(Some((1 << 20, false))),
            Just(Some((1 << 20, true)))
        ],
    )
        .prop_map(
            |(block_size, restart, index_restart, compression, checksum, bpk, prefix, cache)| {
                TableOptions {
                    block_size,
                    block_restart_interval: restart,
                    index_block_restart_interval: index_restart,
                    compression,
                    checksum,
                    bloom_bits_per_key: bpk,
                    whole_key_filtering: !prefix,
                    prefix_extractor: prefix
                        .then(|| Arc::new(FixedPrefix::new(2)) as Arc<dyn PrefixExtractor>),
                    bytes_per_sync: 512,
                    block_cache: cache
                        .map(|(bytes, _)| Arc::new(BlockCache::new(small_cache(bytes)))),
                    cache_index_and_filter_blocks: cache.is_some_and(|(_, meta)| meta),
                    ..TableOptions::default()
                }
            },
        )
}

fn small_cache(bytes: usize) -> crate::cache::CacheOptions {
    crate::cache::CacheOptions {
        shard_bits: Some(0),
        ..crate::cache::CacheOptions::with_capacity(bytes)
    }
}

/// A 16 MiB single-shard block cache and table options that use it, with index and filter
/// blocks in the cache when `index_and_filter`.
fn cached_options(index_and_filter: bool) -> (Arc<BlockCache>, TableOptions) {
    let cache = Arc::new(BlockCache::new(small_cache(16 << 20)));
    let opts = TableOptions {
        block_cache: Some(Arc::clone(&cache)),
        cache_index_and_filter_blocks: index_and_filter,
        ..TableOptions::default()
    };
    (cache, opts)
}

/// The model's answer to `Table::get(ikey)`.
fn model_get<'a>(model: &'a [(Vec<u8>, Vec<u8>)], ikey: &[u8]) -> Option<&'a (Vec<u8>, Vec<u8>)> {
    let i = model.partition_point(|(k, _)| compare_internal(k, ikey) == Ordering::Less);
    model.get(i).filter(|(k, _)| user_key(k) == user_key(ikey))
}

/// The file's key range by brute force: every point key, every stored tombstone key and every
/// tombstone end sentinel.
fn expected_extent(
    model: &[(Vec<u8>, Vec<u8>)],
    ts: &[RangeTombstone],
) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    let mut all: Vec<Vec<u8>> = model.iter().map(|(k, _)| k.clone()).collect();
    for t in ts {
        all.push(t.begin_key());
        all.push(range_deletion_sentinel(&t.end));
    }
    all.sort_by(|a, b| compare_internal(a, b));
    (all.first().cloned(), all.last().cloned())
}

fn fail(e: crate::Error) -> TestCaseError {
    TestCaseError::fail(e.to_string())
}

/// `get_pinned` and `multi_get` answer `(user_key, snapshot)` lookups as the model does.
fn check_point_lookups(
    table: &Table,
    model: &[(Vec<u8>, Vec<u8>)],
    keys: &[Vec<u8>],
    snapshot: SequenceNumber,
) -> std::result::Result<(), TestCaseError> {
    let batch = table.multi_get(keys, snapshot);
    prop_assert_eq!(batch.len(), keys.len());
    for (k, got) in keys.iter().zip(batch) {
        let single = table.get_pinned(k, snapshot).map_err(fail)?;
        let got = got.map_err(fail)?;
        let want = model_get(model, &seek_key(k, snapshot));
        let view =
            |g: &Option<TableGet>| g.as_ref().map(|g| (g.key().to_vec(), g.value().to_vec()));
        prop_assert_eq!(
            view(&got),
            view(&single),
            "multi_get differs from get_pinned"
        );
        prop_assert_eq!(view(&single), want.cloned());
        if let Some(g) = &single {
            let p = crate::types::ParsedKey::parse(g.key()).map_err(fail)?;
            prop_assert_eq!((g.user_key(), g.seq(), g.kind()), (&k[..], p.seq, p.kind));
        }
    }
    Ok(())
}

fn check_table(
    model: &[(Vec<u8>, Vec<u8>)],
    opts: &TableOptions,
    ops: &[Op],
    lookups: &[Vec<u8>],
) -> std::result::Result<(), TestCaseError> {
    check_table_with(model, &[], opts, ops, lookups)
}

fn check_table_with(
    model: &[(Vec<u8>, Vec<u8>)],
    tombs: &[Tomb],
    opts: &TableOptions,
    ops: &[Op],
    lookups: &[Vec<u8>],
) -> std::result::Result<(), TestCaseError> {
    let fs = MemFs::new();
    let path = Path::new("/t.sst");
    let built = build_table_with(&fs, path, model, tombs, opts);
    let want_ts = expected_range_deletions(tombs);
    prop_assert_eq!(
        built.properties.num_entries,
        (model.len() + want_ts.len()) as u64
    );
    prop_assert_eq!(built.properties.num_range_deletions, want_ts.len() as u64);
    prop_assert_eq!(built.file_size, fs.size(path).expect("size"));
    let (smallest, largest) = expected_extent(model, &want_ts);
    prop_assert_eq!(built.smallest().map(<[u8]>::to_vec), smallest);
    prop_assert_eq!(built.largest().map(<[u8]>::to_vec), largest);
    prop_assert_eq!(
        built.point_keys.clone().map(|r| (r.smallest, r.largest)),
        model
            .first()
            .zip(model.last())
            .map(|(a, b)| (a.0.clone(), b.0.clone()))
    );
    let table = open_table(&fs, path, opts).map_err(fail)?;
    prop_assert_eq!(
        &table.properties().num_entries,
        &built.properties.num_entries
    );
    prop_assert_eq!(&table.range_deletions()[..], &want_ts[..]);
    table.verify_checksums().map_err(fail)?;
    for (k, v) in model {
        // The newest visible version of this user key at this entry's sequence is this entry.
        let got = table
            .get(k)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(
            got,
            Some(TableEntry {
                key: k.clone(),
                value: v.clone()
            })
        );
    }
    for t in lookups {
        let got = table
            .get(t)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let want = model_get(model, t).map(|(k, v)| TableEntry {
            key: k.clone(),
            value: v.clone(),
        });
        prop_assert_eq!(got, want);
    }
    // The same lookups as (user key, snapshot) pairs, one by one and batched per snapshot, in
    // the given (unsorted) order and sorted.
    let mut by_snapshot: BTreeMap<SequenceNumber, Vec<Vec<u8>>> = BTreeMap::new();
    for t in lookups {
        let snapshot = crate::types::trailer(t) >> 8;
        by_snapshot
            .entry(snapshot)
            .or_default()
            .push(user_key(t).to_vec());
    }
    let model_keys: Vec<Vec<u8>> = model.iter().map(|(k, _)| user_key(k).to_vec()).collect();
    by_snapshot.insert(MAX_SEQUENCE, model_keys.clone());
    by_snapshot.insert(25, model_keys);
    for (snapshot, mut keys) in by_snapshot {
        check_point_lookups(&table, model, &keys, snapshot)?;
        keys.sort();
        check_point_lookups(&table, model, &keys, snapshot)?;
    }
    let mut it = table.iter();
    check_scans(&mut it, model).map_err(TestCaseError::fail)?;
    check_ops(&mut it, model, compare_internal, ops).map_err(TestCaseError::fail)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn table_round_trip(model in entries(300), tombs in tombstones(12), opts in options(),
                        ops in ops(), lookups in proptest::collection::vec(target(), 0..40)) {
        check_table_with(&model, &tombs, &opts, &ops, &lookups)?;
    }
}

#[test]
fn empty_table() {
    check_table(
        &[],
        &TableOptions::default(),
        &[Op::First, Op::Last, Op::Seek(seek_key(b"a", 1))],
        &[seek_key(b"a", 5)],
    )
    .expect("empty table");
}

#[test]
fn large_table_many_blocks() {
    let model: Vec<(Vec<u8>, Vec<u8>)> = (0..20_000u32)
        .map(|i| {
            (
                make_internal_key(
                    format!("key{i:08}").as_bytes(),
                    u64::from(i),
                    ValueKind::Put,
                ),
                vec![i as u8; 100],
            )
        })
        .collect();
    for compression in [
        CompressionType::None,
        CompressionType::Lz4,
        CompressionType::Zstd,
        CompressionType::Snappy,
    ] {
        let opts = TableOptions {
            compression,
            ..TableOptions::default()
        };
        let ops = [
            Op::Last,
            Op::Prev,
            Op::Seek(seek_key(b"key00010000", MAX_SEQUENCE)),
            Op::Prev,
            Op::Next,
        ];
        check_table(
            &model,
            &opts,
            &ops,
            &[seek_key(b"key", 1), seek_key(b"zzz", 1)],
        )
        .expect("large");
        let fs = MemFs::new();
        let built = build_table(&fs, Path::new("/x"), &model, &opts);
        assert!(built.properties.num_data_blocks > 100);
        if compression != CompressionType::None {
            assert!(
                built.properties.data_bytes < built.properties.raw_value_bytes / 2,
                "{compression:?}"
            );
        }
    }
}

#[test]
fn properties_are_recorded() {
    let model = vec![
        (make_internal_key(b"a", 7, ValueKind::Put), b"1".to_vec()),
        (make_internal_key(b"b", 9, ValueKind::Delete), vec![]),
        (make_internal_key(b"c", 3, ValueKind::Merge), b"m".to_vec()),
        (make_internal_key(b"e", 5, ValueKind::SingleDelete), vec![]),
    ];
    let fs = MemFs::new();
    let opts = TableOptions {
        prefix_extractor: Some(Arc::new(CappedPrefix::new(4))),
        ..TableOptions::default()
    };
    build_table_with(
        &fs,
        Path::new("/p"),
        &model,
        &[(b"d".to_vec(), b"e".to_vec(), 4)],
        &opts,
    );
    let t = open_table(&fs, Path::new("/p"), &opts).expect("open");
    let p = t.properties();
    assert_eq!(
        (
            p.num_entries,
            p.num_deletions,
            p.num_range_deletions,
            p.num_merge_operands
        ),
        (5, 3, 1, 1)
    );
    assert_eq!((p.smallest_seqno, p.largest_seqno), (3, 9));
    assert_eq!(p.raw_key_bytes, 5 * 9);
    assert_eq!(p.raw_value_bytes, 3);
    assert_eq!(p.num_data_blocks, 1);
    assert_eq!(p.filter_policy, FILTER_POLICY_NAME);
    assert_eq!(p.prefix_extractor, "rocksdb.CappedPrefix.4");
    assert_eq!(
        (
            p.block_size,
            p.block_restart_interval,
            p.index_restart_interval
        ),
        (4096, 16, 1)
    );
    assert!(p.creation_time > 1_600_000_000);
    assert_eq!(p.format_version, u64::from(FORMAT_VERSION));
}

#[test]
fn prefix_filter_is_used_only_with_matching_extractor() {
    let keys: Vec<(Vec<u8>, Vec<u8>)> = (0..1000u32)
        .map(|i| {
            (
                make_internal_key(
                    format!("p{:03}-{i:05}", i % 100).as_bytes(),
                    1,
                    ValueKind::Put,
                ),
                vec![],
            )
        })
        .collect();
    let mut sorted = keys;
    sorted.sort_by(|a, b| compare_internal(&a.0, &b.0));
    let fs = MemFs::new();
    let extractor: Arc<dyn PrefixExtractor> = Arc::new(FixedPrefix::new(4));
    let opts = TableOptions {
        whole_key_filtering: false,
        prefix_extractor: Some(extractor),
        ..TableOptions::default()
    };
    build_table(&fs, Path::new("/f"), &sorted, &opts);
    let t = open_table(&fs, Path::new("/f"), &opts).expect("open");
    assert!(t.prefix_may_match(b"p042").expect("probe"));
    let absent = (0..1000)
        .filter(|i| {
            !t.prefix_may_match(format!("q{i:03}").as_bytes())
                .expect("probe")
        })
        .count();
    assert!(
        absent > 950,
        "prefix filter rejects most absent prefixes: {absent}"
    );
    // A reader with another extractor must not trust the filter.
    let other = TableOptions {
        prefix_extractor: Some(Arc::new(FixedPrefix::new(3))),
        ..opts.clone()
    };
    let t2 = open_table(&fs, Path::new("/f"), &other).expect("open");
    assert!((0..100).all(|i| t2
        .prefix_may_match(format!("q{i:02}").as_bytes())
        .expect("probe")));
    assert!(t2.may_contain(b"q000-00000").expect("probe"));
}

#[test]
#[should_panic(expected = "strictly increasing")]
fn out_of_order_add_panics() {
    let fs = MemFs::new();
    let file = fs.create(Path::new("/o")).expect("create");
    let mut b =
        TableBuilder::new(file, Path::new("/o"), &TableOptions::default()).expect("builder");
    b.add(&make_internal_key(b"b", 1, ValueKind::Put), b"")
        .expect("add");
    let _ = b.add(&make_internal_key(b"a", 1, ValueKind::Put), b"");
}

#[test]
fn bad_arguments_are_rejected() {
    let fs = MemFs::new();
    let file = fs.create(Path::new("/o")).expect("create");
    let mut b =
        TableBuilder::new(file, Path::new("/o"), &TableOptions::default()).expect("builder");
    assert!(matches!(
        b.add(b"short", b""),
        Err(crate::Error::InvalidArgument(_))
    ));
    assert!(matches!(
        b.add(&seek_key(b"k", 1), b""),
        Err(crate::Error::InvalidArgument(_))
    ));
    for bad in [
        TableOptions {
            block_size: 0,
            ..TableOptions::default()
        },
        TableOptions {
            block_restart_interval: 0,
            ..TableOptions::default()
        },
        TableOptions {
            bloom_bits_per_key: f64::NAN,
            ..TableOptions::default()
        },
        TableOptions {
            bloom_bits_per_key: 0.5,
            ..TableOptions::default()
        },
        TableOptions {
            zstd_level: 1000,
            ..TableOptions::default()
        },
    ] {
        assert!(bad.validate().is_err(), "{bad:?}");
    }
}

#[test]
fn block_cache_serves_repeated_reads() {
    let model: Vec<(Vec<u8>, Vec<u8>)> = (0..2000u32)
        .map(|i| {
            (
                make_internal_key(format!("k{i:06}").as_bytes(), 1, ValueKind::Put),
                vec![b'v'; 50],
            )
        })
        .collect();
    let (cache, opts) = cached_options(true);
    let fs = MemFs::new();
    build_table(&fs, Path::new("/c"), &model, &opts);
    // By default the table holds index and filter itself: only data blocks enter the cache.
    let (held, held_opts) = cached_options(false);
    let t = open_table(&fs, Path::new("/c"), &held_opts).expect("open");
    assert_eq!(
        held.stats().inserts,
        0,
        "index and filter stay with the table"
    );
    t.get(&model[0].0).expect("get").expect("present");
    assert_eq!(held.stats().inserts, 1, "one data block");
    let t = open_table(&fs, Path::new("/c"), &opts).expect("open");
    let after_open = cache.stats();
    assert_eq!(
        after_open.inserts, 2,
        "index and filter go through the cache at open"
    );
    for (k, _) in &model {
        t.get(k).expect("get").expect("present");
    }
    let first = cache.stats();
    for (k, _) in &model {
        t.get(k).expect("get").expect("present");
    }
    let second = cache.stats();
    assert_eq!(
        second.inserts, first.inserts,
        "second pass reads nothing new"
    );
    assert_eq!(
        first.inserts - after_open.inserts,
        t.properties().num_data_blocks
    );
    assert!(
        second.hits - first.hits >= 3 * model.len() as u64,
        "filter, index and data hit"
    );
    // A scan that does not fill the cache leaves it alone, on a fresh table.
    let cold = Arc::new(BlockCache::new(small_cache(16 << 20)));
    let t = open_table(
        &fs,
        Path::new("/c"),
        &TableOptions {
            block_cache: Some(Arc::clone(&cold)),
            ..opts
        },
    )
    .expect("open");
    let mut it = t.iter_without_cache_fill();
    check_scans(&mut it, &model).expect("scan");
    assert_eq!(cold.stats().inserts, 2);
    drop(it);
    assert_eq!(cold.pinned_usage(), 0, "no pins outlive the iterator");
}

/// A file that records how it is written to.
#[derive(Debug, Default)]
struct RecordingFile {
    appends: Arc<parking_lot::Mutex<Vec<usize>>>,
    behind: Arc<parking_lot::Mutex<Vec<(u64, u64)>>>,
    synced_at: Arc<parking_lot::Mutex<Option<u64>>>,
    len: u64,
}

impl crate::fs::WritableFile for RecordingFile {
    fn append(&mut self, data: &[u8]) -> crate::Result<()> {
        self.appends.lock().push(data.len());
        self.len += data.len() as u64;
        Ok(())
    }
    fn flush(&mut self) -> crate::Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> crate::Result<()> {
        self.sync_data()
    }
    fn sync_data(&mut self) -> crate::Result<()> {
        *self.synced_at.lock() = Some(self.len);
        Ok(())
    }
    fn write_behind(&mut self, offset: u64, len: u64) -> crate::Result<()> {
        self.behind.lock().push((offset, len));
        Ok(())
    }
    fn len(&self) -> u64 {
        self.len
    }
}

#[test]
fn writes_are_large_sequential_with_write_behind() {
    let file = RecordingFile::default();
    let (appends, behind, synced) = (
        file.appends.clone(),
        file.behind.clone(),
        file.synced_at.clone(),
    );
    let opts = TableOptions {
        compression: CompressionType::None,
        bytes_per_sync: 1 << 20,
        ..TableOptions::default()
    };
    let mut b = TableBuilder::new(Box::new(file), Path::new("/w"), &opts).expect("builder");
    for i in 0..40_000u32 {
        b.add(
            &make_internal_key(format!("key{i:012}").as_bytes(), 1, ValueKind::Put),
            &[7u8; 100],
        )
        .expect("add");
    }
    let built = b.finish().expect("finish");
    let appends = appends.lock().clone();
    assert_eq!(appends.iter().sum::<usize>() as u64, built.file_size);
    let (last, full) = appends.split_last().expect("appends");
    assert!(
        *last > 0 && full.iter().all(|&n| n >= super::writer::WRITE_CHUNK_BYTES),
        "{appends:?}"
    );
    let behind = behind.lock().clone();
    assert!(
        behind.len() >= 3,
        "write-behind every MiB of a {} byte file: {behind:?}",
        built.file_size
    );
    let mut next = 0;
    for &(offset, len) in &behind {
        assert_eq!(offset, next, "write-behind ranges are contiguous");
        assert!(len >= 1 << 20);
        next = offset + len;
    }
    assert_eq!(
        *synced.lock(),
        Some(built.file_size),
        "finish syncs the whole file"
    );
}

#[test]
fn range_deletion_only_table() {
    let fs = MemFs::new();
    let path = Path::new("/rd.sst");
    let opts = TableOptions::default();
    let tombs = vec![
        (b"m".to_vec(), b"q".to_vec(), 8),
        (b"c".to_vec(), b"f".to_vec(), 3),
        (b"c".to_vec(), b"z".to_vec(), 9),
    ];
    let built = build_table_with(&fs, path, &[], &tombs, &opts);
    assert_eq!(built.point_keys, None);
    assert_eq!(
        built.range_deletion_keys,
        Some(KeyRange {
            smallest: make_internal_key(b"c", 9, ValueKind::RangeDelete),
            largest: range_deletion_sentinel(b"z"),
        })
    );
    assert_eq!(
        built.smallest(),
        Some(&make_internal_key(b"c", 9, ValueKind::RangeDelete)[..])
    );
    assert_eq!(built.largest(), Some(&range_deletion_sentinel(b"z")[..]));
    let p = &built.properties;
    assert_eq!(
        (p.num_entries, p.num_deletions, p.num_range_deletions),
        (3, 3, 3)
    );
    assert_eq!((p.num_data_blocks, p.data_bytes, p.filter_bytes), (0, 0, 0));
    assert_eq!((p.smallest_seqno, p.largest_seqno), (3, 9));
    let t = open_table(&fs, path, &opts).expect("open");
    t.verify_checksums().expect("verify");
    assert_eq!(
        &t.range_deletions()[..],
        &[
            RangeTombstone::new(b"c", b"z", 9),
            RangeTombstone::new(b"c", b"f", 3),
            RangeTombstone::new(b"m", b"q", 8),
        ]
    );
    let mut it = t.iter();
    it.seek_to_first();
    assert!(!it.valid(), "range deletions are not point entries");
    it.status().expect("no error");
    assert!(t.get_pinned(b"d", MAX_SEQUENCE).expect("get").is_none());
    assert!(t
        .multi_get(&[b"c", b"m"], MAX_SEQUENCE)
        .into_iter()
        .all(|r| r.expect("multi_get").is_none()));
}

#[test]
fn range_deletions_do_not_widen_point_range() {
    let fs = MemFs::new();
    let path = Path::new("/w.sst");
    let model = vec![
        (make_internal_key(b"k", 5, ValueKind::Put), b"v".to_vec()),
        (make_internal_key(b"p", 6, ValueKind::Put), b"w".to_vec()),
    ];
    let tombs = vec![
        (b"a".to_vec(), b"m".to_vec(), 2),
        (b"n".to_vec(), b"p".to_vec(), 7),
    ];
    let built = build_table_with(&fs, path, &model, &tombs, &TableOptions::default());
    let point = built.point_keys.clone().expect("points");
    assert_eq!(
        (point.smallest, point.largest),
        (model[0].0.clone(), model[1].0.clone())
    );
    assert_eq!(
        built.smallest(),
        Some(&make_internal_key(b"a", 2, ValueKind::RangeDelete)[..]),
        "a tombstone begin below the points lowers the smallest key"
    );
    assert_eq!(
        built.largest(),
        Some(&model[1].0[..]),
        "the sentinel (p, MAX, RangeDelete) sorts before the point entry (p, 6, Put)"
    );
    let t = open_table(&fs, path, &TableOptions::default()).expect("open");
    let entries = t.index_entries().expect("index");
    assert_eq!(entries.len(), 1);
    assert!(t
        .get(&make_internal_key(b"a", 2, ValueKind::RangeDelete))
        .expect("get")
        .is_none());
}

#[test]
fn point_add_of_a_range_deletion_is_rejected() {
    let fs = MemFs::new();
    let path = Path::new("/r.sst");
    let mut b = TableBuilder::new(
        fs.create(path).expect("create"),
        path,
        &TableOptions::default(),
    )
    .expect("builder");
    let e = b
        .add(&make_internal_key(b"a", 1, ValueKind::RangeDelete), b"b")
        .expect_err("range deletion as a point entry");
    assert!(matches!(e, crate::Error::InvalidArgument(_)), "{e}");
    let e = b.add_range_deletion(b"b", b"a", 1).expect_err("inverted");
    assert!(matches!(e, crate::Error::InvalidArgument(_)), "{e}");
    b.add_range_deletion(b"c", b"c", 1)
        .expect("empty range is accepted");
    assert_eq!(b.num_entries(), 0, "and not stored");
    b.add(&make_internal_key(b"a", 1, ValueKind::Put), b"x")
        .expect("the builder is still usable");
    let built = b.finish().expect("finish");
    assert_eq!(
        (
            built.properties.num_entries,
            built.properties.num_range_deletions
        ),
        (1, 0)
    );
    assert_eq!(built.range_deletion_keys, None);
}

/// Point lookups: `get_pinned` and `multi_get`.
#[path = "get_tests.rs"]
mod get;

/// Per-read options: `fill_cache` and `verify_checksums` (reader invariant 5).
#[path = "read_options_tests.rs"]
mod read_options;
