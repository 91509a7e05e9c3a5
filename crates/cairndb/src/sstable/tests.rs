//! Table-level tests: round trips against a sorted model under many option sets, and the iterator
//! model checker shared with the block tests.

use std::cmp::Ordering;
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::fs::{FileSystem, MemFs};
use crate::iter::InternalIterator;
use crate::types::{
    compare_internal, make_internal_key, seek_key, user_key, ValueKind, MAX_SEQUENCE,
};

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
    cmp: KeyComparator,
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
    let file = fs.create(path).expect("create");
    let mut b = TableBuilder::new(file, path, opts).expect("builder");
    for (k, v) in model {
        b.add(k, v).expect("add");
    }
    b.finish().expect("finish")
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
            Just(CompressionType::Zstd)
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

/// The model's answer to `Table::get(ikey)`.
fn model_get<'a>(model: &'a [(Vec<u8>, Vec<u8>)], ikey: &[u8]) -> Option<&'a (Vec<u8>, Vec<u8>)> {
    let i = model.partition_point(|(k, _)| compare_internal(k, ikey) == Ordering::Less);
    model.get(i).filter(|(k, _)| user_key(k) == user_key(ikey))
}

fn check_table(
    model: &[(Vec<u8>, Vec<u8>)],
    opts: &TableOptions,
    ops: &[Op],
    lookups: &[Vec<u8>],
) -> std::result::Result<(), TestCaseError> {
    let fs = MemFs::new();
    let path = Path::new("/t.sst");
    let built = build_table(&fs, path, model, opts);
    prop_assert_eq!(built.properties.num_entries, model.len() as u64);
    prop_assert_eq!(built.file_size, fs.size(path).expect("size"));
    let table = open_table(&fs, path, opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(
        &table.properties().num_entries,
        &built.properties.num_entries
    );
    table
        .verify_checksums()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
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
    let mut it = table.iter();
    check_scans(&mut it, model).map_err(TestCaseError::fail)?;
    check_ops(&mut it, model, compare_internal, ops).map_err(TestCaseError::fail)?;
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn table_round_trip(model in entries(300), opts in options(), ops in ops(),
                        lookups in proptest::collection::vec(target(), 0..40)) {
        check_table(&model, &opts, &ops, &lookups)?;
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
        (
            make_internal_key(b"d", 4, ValueKind::RangeDelete),
            b"e".to_vec(),
        ),
        (make_internal_key(b"e", 5, ValueKind::SingleDelete), vec![]),
    ];
    let fs = MemFs::new();
    let opts = TableOptions {
        prefix_extractor: Some(Arc::new(CappedPrefix::new(4))),
        ..TableOptions::default()
    };
    build_table(&fs, Path::new("/p"), &model, &opts);
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
    let cache = Arc::new(BlockCache::new(small_cache(16 << 20)));
    let opts = TableOptions {
        block_cache: Some(Arc::clone(&cache)),
        cache_index_and_filter_blocks: true,
        ..TableOptions::default()
    };
    let fs = MemFs::new();
    build_table(&fs, Path::new("/c"), &model, &opts);
    // By default the table holds index and filter itself: only data blocks enter the cache.
    let held = Arc::new(BlockCache::new(small_cache(16 << 20)));
    let held_opts = TableOptions {
        block_cache: Some(Arc::clone(&held)),
        ..TableOptions::default()
    };
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
