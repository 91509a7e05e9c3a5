//! Compaction features through the database: compaction filters, file times with TTL and
//! periodic compactions under an injected clock, deletion-triggered compaction, universal and
//! FIFO compaction end to end, the background rate limiter and subcompactions.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cairndb::compaction::{
    CompactionFilter, CompactionFilterContext, CompactionFilterFactory, FilterDecision,
};
use cairndb::fs::MemFs;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;

const DIR: &str = "/db";

fn opts() -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.write_buffer_size = 64 << 10;
    o.cf.level0_file_num_compaction_trigger = 2;
    o.cf.target_file_size_base = 64 << 10;
    o.cf.max_bytes_for_level_base = 256 << 10;
    o
}

fn scan(db: &Db, ro: &ReadOptions) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut it = db.iter(ro).expect("iter");
    let mut out = BTreeMap::new();
    it.seek_to_first();
    while it.valid() {
        out.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    it.status().expect("scan");
    out
}

fn at(snapshot: u64) -> ReadOptions {
    ReadOptions {
        snapshot: Some(snapshot),
        ..ReadOptions::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Compaction filters.

/// Removes keys starting with `tmp/`; upper-cases values of keys starting with `up/`.
#[derive(Debug, Default)]
struct PrefixFilter {
    calls: AtomicU64,
}

impl CompactionFilter for PrefixFilter {
    fn name(&self) -> &str {
        "PrefixFilter"
    }
    fn filter(&self, _level: usize, key: &[u8], value: &[u8]) -> FilterDecision {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if key.starts_with(b"tmp/") {
            FilterDecision::Remove
        } else if key.starts_with(b"up/") {
            FilterDecision::ChangeValue(value.to_ascii_uppercase())
        } else {
            FilterDecision::Keep
        }
    }
}

fn filter_workload(db: &Db) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let w = WriteOptions::default();
    let mut expected = BTreeMap::new();
    for i in 0..300u32 {
        let v = format!("value{i}");
        db.put(&w, format!("tmp/{i:04}").as_bytes(), v.as_bytes())
            .expect("put");
        db.put(&w, format!("up/{i:04}").as_bytes(), v.as_bytes())
            .expect("put");
        db.put(&w, format!("keep/{i:04}").as_bytes(), v.as_bytes())
            .expect("put");
        expected.insert(
            format!("up/{i:04}").into_bytes(),
            v.to_ascii_uppercase().into_bytes(),
        );
        expected.insert(format!("keep/{i:04}").into_bytes(), v.into_bytes());
    }
    expected
}

#[test]
fn compaction_filter_removes_and_changes_values() {
    let fs = MemFs::new().shared();
    let filter = Arc::new(PrefixFilter::default());
    let mut o = opts();
    o.cf.compaction_filter = Some(filter.clone());
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    let expected = filter_workload(&db);
    db.flush().expect("flush");
    // Flushes do not filter: everything is still there.
    let r = ReadOptions::default();
    assert_eq!(
        db.get(&r, b"tmp/0001").expect("get").as_deref(),
        Some(&b"value1"[..])
    );
    db.compact_range(None, None).expect("compact");
    assert!(filter.calls.load(Ordering::Relaxed) >= 900);
    assert_eq!(db.get(&r, b"tmp/0001").expect("get"), None);
    assert_eq!(scan(&db, &r), expected);
    db.close().expect("close");
    // The result is durable, and reopening without the filter changes nothing.
    let mut o2 = o;
    o2.cf.compaction_filter = None;
    let db = Db::open_with_fs(fs, DIR, o2).expect("reopen");
    assert_eq!(scan(&db, &r), expected);
}

/// A factory that counts the jobs it made filters for and records whether one was manual.
#[derive(Debug, Default)]
struct CountingFactory {
    created: AtomicU64,
    manual: AtomicU64,
}

impl CompactionFilterFactory for CountingFactory {
    fn name(&self) -> &str {
        "CountingFactory"
    }
    fn create(&self, context: &CompactionFilterContext) -> Option<Arc<dyn CompactionFilter>> {
        self.created.fetch_add(1, Ordering::Relaxed);
        if context.is_manual_compaction {
            self.manual.fetch_add(1, Ordering::Relaxed);
        }
        Some(Arc::new(PrefixFilter::default()))
    }
}

#[test]
fn compaction_filter_factory_makes_a_filter_per_job() {
    let factory = Arc::new(CountingFactory::default());
    let mut o = opts();
    o.cf.compaction_filter_factory = Some(factory.clone());
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let expected = filter_workload(&db);
    db.compact_range(None, None).expect("compact");
    assert!(factory.created.load(Ordering::Relaxed) >= 1);
    assert!(factory.manual.load(Ordering::Relaxed) >= 1);
    assert_eq!(scan(&db, &ReadOptions::default()), expected);
}

/// RocksDB's semantics: the filter sees the newest version of each key even when a snapshot
/// reads it, and never older versions; so a snapshot keeps an older version that a newer
/// (filtered) one hides, but loses a value whose newest version was filtered.
#[test]
fn compaction_filter_ignores_snapshots_like_rocksdb() {
    let mut o = opts();
    o.cf.compaction_filter = Some(Arc::new(PrefixFilter::default()));
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let w = WriteOptions::default();
    db.put(&w, b"tmp/old-only", b"v1").expect("put");
    db.put(&w, b"tmp/both", b"old").expect("put");
    let snap = db.snapshot().expect("snapshot");
    db.put(&w, b"tmp/both", b"new").expect("put");
    db.compact_range(None, None).expect("compact");
    let s = snap.sequence();
    assert_eq!(
        db.get(&at(s), b"tmp/both").expect("get").as_deref(),
        Some(&b"old"[..])
    );
    assert_eq!(db.get(&at(s), b"tmp/old-only").expect("get"), None);
    let r = ReadOptions::default();
    assert_eq!(db.get(&r, b"tmp/both").expect("get"), None);
    drop(snap);
    db.compact_range(None, None).expect("compact");
    assert!(scan(&db, &r).is_empty());
}
