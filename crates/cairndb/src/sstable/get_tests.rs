//! Table tests of point lookups (`get_pinned`, `multi_get` and how they use the block cache),
//! split out of `tests.rs` (whose helpers they use).

use super::*;

#[test]
fn get_pinned_sees_the_newest_visible_version() {
    let fs = MemFs::new();
    let path = Path::new("/v.sst");
    let model = vec![
        (make_internal_key(b"k", 9, ValueKind::Merge), b"m9".to_vec()),
        (make_internal_key(b"k", 7, ValueKind::Delete), vec![]),
        (make_internal_key(b"k", 4, ValueKind::Put), b"v4".to_vec()),
        (make_internal_key(b"l", 1, ValueKind::Put), b"l1".to_vec()),
    ];
    let opts = TableOptions {
        block_size: 1,
        ..TableOptions::default()
    };
    build_table(&fs, path, &model, &opts);
    let t = open_table(&fs, path, &opts).expect("open");
    let get = |snap| {
        t.get_pinned(b"k", snap)
            .expect("get")
            .map(|g| (g.seq(), g.kind(), g.value().to_vec()))
    };
    assert_eq!(
        get(MAX_SEQUENCE),
        Some((9, ValueKind::Merge, b"m9".to_vec()))
    );
    assert_eq!(
        get(u64::MAX),
        get(MAX_SEQUENCE),
        "snapshots above the maximum see all"
    );
    assert_eq!(get(8), Some((7, ValueKind::Delete, vec![])));
    assert_eq!(get(6), Some((4, ValueKind::Put, b"v4".to_vec())));
    assert_eq!(
        get(3),
        None,
        "nothing of k is visible at 3; l is not returned"
    );
    let long = vec![b'z'; 200];
    assert!(t
        .get_pinned(&long, MAX_SEQUENCE)
        .expect("long key")
        .is_none());
}

/// A read handle that counts its reads.
#[derive(Debug)]
struct CountingFile {
    inner: Arc<dyn RandomAccessFile>,
    reads: Arc<AtomicU64>,
}

impl RandomAccessFile for CountingFile {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> crate::Result<()> {
        self.reads.fetch_add(1, AtomicOrdering::Relaxed);
        self.inner.read_exact_at(offset, buf)
    }
    fn size(&self) -> crate::Result<u64> {
        self.inner.size()
    }
    fn advise(&self, pattern: AccessPattern) -> crate::Result<()> {
        self.inner.advise(pattern)
    }
    fn readahead(&self, offset: u64, len: u64) -> crate::Result<()> {
        self.inner.readahead(offset, len)
    }
}

#[test]
fn multi_get_reads_each_data_block_once() {
    let fs = MemFs::new();
    let path = Path::new("/m.sst");
    let model: Vec<(Vec<u8>, Vec<u8>)> = (0..3000u32)
        .map(|i| {
            (
                make_internal_key(format!("k{i:06}").as_bytes(), 1, ValueKind::Put),
                vec![b'v'; 40],
            )
        })
        .collect();
    let opts = TableOptions::default();
    build_table(&fs, path, &model, &opts);
    let reads = Arc::new(AtomicU64::new(0));
    let file = CountingFile {
        inner: fs.open_read(path).expect("open"),
        reads: Arc::clone(&reads),
    };
    let size = fs.size(path).expect("size");
    let t = Table::open(Arc::new(file), path, size, &opts).expect("table");
    assert!(t.properties().num_data_blocks > 20);
    // Ten neighbouring keys (one or two blocks), ten keys spread over the table, absent keys.
    let mut keys: Vec<Vec<u8>> = (1000..1010u32)
        .chain((0..10).map(|i| i * 300 + 7))
        .map(|i| format!("k{i:06}").into_bytes())
        .collect();
    keys.extend((0..50).map(|i| format!("absent{i}").into_bytes()));
    let blocks: std::collections::BTreeSet<u64> = keys
        .iter()
        .filter(|k| k.starts_with(b"k"))
        .map(|k| t.approximate_offset_of(&seek_key(k, 1)).expect("offset"))
        .collect();
    let before = reads.load(AtomicOrdering::Relaxed);
    let got = t.multi_get(&keys, MAX_SEQUENCE);
    let batch_reads = reads.load(AtomicOrdering::Relaxed) - before;
    for (k, g) in keys.iter().zip(&got) {
        let g = g.as_ref().expect("multi_get");
        assert_eq!(g.is_some(), k.starts_with(b"k"), "{k:?}");
    }
    // Absent keys may pass the filter (about 1%); each then reads at most one more block.
    assert!(
        batch_reads >= blocks.len() as u64 && batch_reads <= blocks.len() as u64 + 2,
        "{batch_reads} reads for {} blocks",
        blocks.len()
    );
    assert!(
        blocks.len() < 20,
        "the neighbours share blocks: {}",
        blocks.len()
    );
    let before = reads.load(AtomicOrdering::Relaxed);
    for k in keys.iter().filter(|k| k.starts_with(b"k")) {
        t.get_pinned(k, MAX_SEQUENCE)
            .expect("get")
            .expect("present");
    }
    assert_eq!(
        reads.load(AtomicOrdering::Relaxed) - before,
        20,
        "one read per get without a cache"
    );
    drop(got);
}

#[test]
fn multi_get_through_the_block_cache_misses_once_per_block() {
    let fs = MemFs::new();
    let path = Path::new("/mc.sst");
    let model: Vec<(Vec<u8>, Vec<u8>)> = (0..2000u32)
        .map(|i| {
            (
                make_internal_key(format!("k{i:06}").as_bytes(), 1, ValueKind::Put),
                vec![b'v'; 40],
            )
        })
        .collect();
    let (cache, opts) = cached_options(false);
    build_table(&fs, path, &model, &opts);
    let t = open_table(&fs, path, &opts).expect("open");
    let keys: Vec<&[u8]> = model.iter().map(|(k, _)| user_key(k)).collect();
    let before = cache.stats();
    let got = t.multi_get(&keys, MAX_SEQUENCE);
    let stats = cache.stats();
    let blocks = t.properties().num_data_blocks;
    assert_eq!(stats.misses - before.misses, blocks);
    assert_eq!(stats.inserts - before.inserts, blocks);
    assert_eq!(
        stats.hits, before.hits,
        "a block is looked up once for all its keys"
    );
    assert!(cache.pinned_usage() > 0, "results pin their blocks");
    for ((k, v), g) in model.iter().zip(&got) {
        let g = g.as_ref().expect("ok").as_ref().expect("found");
        assert_eq!((g.key(), g.value()), (&k[..], &v[..]));
    }
    drop(got);
    assert_eq!(
        cache.pinned_usage(),
        0,
        "dropping the results unpins the blocks"
    );
}
