//! Compaction features through the database: compaction filters, file times with TTL and
//! periodic compactions under an injected clock, deletion-triggered compaction, universal and
//! FIFO compaction end to end, the background rate limiter, subcompactions and filter bits per
//! level.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cairndb::compaction::{
    CompactionFilter, CompactionFilterContext, CompactionFilterFactory, FilterDecision,
};
use cairndb::fs::MemFs;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;
use common::{compaction_opts, key, scan_at, DIR};

/// Asserts that `key` reads as `want` through `ro`.
#[track_caller]
fn assert_value(db: &Db, ro: &ReadOptions, key: &[u8], want: &[u8]) {
    assert_eq!(db.get(ro, key).expect("get").as_deref(), Some(want));
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
    let mut o = compaction_opts();
    // Only the manual compaction below runs, so the flush's output can be checked first.
    o.cf.disable_auto_compactions = true;
    o.cf.compaction_filter = Some(filter.clone());
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    let expected = filter_workload(&db);
    db.flush().expect("flush");
    // Flushes do not filter: everything is still there.
    let r = ReadOptions::default();
    assert_value(&db, &r, b"tmp/0001", b"value1");
    db.compact_range(None, None).expect("compact");
    assert!(filter.calls.load(Ordering::Relaxed) >= 900);
    assert_eq!(db.get(&r, b"tmp/0001").expect("get"), None);
    assert_eq!(scan_at(&db, &r), expected);
    db.close().expect("close");
    // The result is durable, and reopening without the filter changes nothing.
    let mut o2 = o;
    o2.cf.compaction_filter = None;
    let db = Db::open_with_fs(fs, DIR, o2).expect("reopen");
    assert_eq!(scan_at(&db, &r), expected);
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
    let mut o = compaction_opts();
    o.cf.disable_auto_compactions = true;
    o.cf.compaction_filter_factory = Some(factory.clone());
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let expected = filter_workload(&db);
    db.compact_range(None, None).expect("compact");
    assert!(factory.created.load(Ordering::Relaxed) >= 1);
    assert!(factory.manual.load(Ordering::Relaxed) >= 1);
    assert_eq!(scan_at(&db, &ReadOptions::default()), expected);
}

/// RocksDB's semantics: the filter sees the newest version of each key even when a snapshot
/// reads it, and never older versions; so a snapshot keeps an older version that a newer
/// (filtered) one hides, but loses a value whose newest version was filtered.
#[test]
fn compaction_filter_ignores_snapshots_like_rocksdb() {
    let mut o = compaction_opts();
    o.cf.compaction_filter = Some(Arc::new(PrefixFilter::default()));
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let w = WriteOptions::default();
    db.put(&w, b"tmp/old-only", b"v1").expect("put");
    db.put(&w, b"tmp/both", b"old").expect("put");
    let snap = db.snapshot().expect("snapshot");
    db.put(&w, b"tmp/both", b"new").expect("put");
    db.compact_range(None, None).expect("compact");
    let s = snap.sequence();
    assert_value(&db, &at(s), b"tmp/both", b"old");
    assert_eq!(db.get(&at(s), b"tmp/old-only").expect("get"), None);
    let r = ReadOptions::default();
    assert_eq!(db.get(&r, b"tmp/both").expect("get"), None);
    drop(snap);
    db.compact_range(None, None).expect("compact");
    assert!(scan_at(&db, &r).is_empty());
}

// ---------------------------------------------------------------------------------------------
// File times: TTL and periodic compaction under a manual clock.

use cairndb::options::{CompactionStyle, ManualClock};
use std::time::Duration;

const T0: u64 = 1_700_000_000;
const HOUR: Duration = Duration::from_secs(3600);

fn clocked(clock: &Arc<ManualClock>) -> Options {
    let mut o = compaction_opts();
    o.db.clock = Some(clock.clone());
    o
}

fn put_range(db: &Db, lo: u32, hi: u32, tag: &str) {
    let w = WriteOptions::default();
    for i in lo..hi {
        db.put(&w, &key(i), format!("{tag}{i}").as_bytes())
            .expect("put");
    }
}

fn files(db: &Db) -> Vec<usize> {
    db.level_summary_cf(&db.default_column_family())
        .iter()
        .map(|l| l.files)
        .collect()
}

#[test]
fn ttl_compaction_moves_old_data_down_when_the_clock_passes_ttl() {
    let clock = Arc::new(ManualClock::new(T0));
    let mut o = clocked(&clock);
    o.cf.ttl = 3600;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    put_range(&db, 0, 500, "a");
    db.compact_range(None, None).expect("compact");
    put_range(&db, 100, 120, "b");
    db.flush().expect("flush");
    db.wait_for_compactions().expect("wait");
    assert_eq!(
        files(&db)[0],
        1,
        "one L0 file, below the trigger: {:?}",
        files(&db)
    );
    clock.advance(HOUR / 2);
    db.wait_for_compactions().expect("wait");
    assert_eq!(files(&db)[0], 1, "not expired yet");
    clock.advance(HOUR);
    db.wait_for_compactions().expect("wait");
    assert_eq!(
        files(&db)[0],
        0,
        "the expired L0 file was compacted down: {:?}",
        files(&db)
    );
    let r = ReadOptions::default();
    assert_value(&db, &r, b"key000105", b"b105");
    assert_value(&db, &r, b"key000205", b"a205");
}

#[test]
fn periodic_compaction_rewrites_files_older_than_the_period() {
    let clock = Arc::new(ManualClock::new(T0));
    let mut o = clocked(&clock);
    o.cf.ttl = 0;
    o.cf.periodic_compaction_seconds = 3600;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    put_range(&db, 0, 500, "a");
    db.compact_range(None, None).expect("compact");
    db.wait_for_compactions().expect("wait");
    let cf = db.default_column_family();
    let count = |db: &Db| -> u64 {
        db.compaction_stats_cf(&cf)
            .levels
            .iter()
            .map(|l| l.compactions)
            .sum()
    };
    let before = count(&db);
    clock.advance(HOUR / 2);
    db.wait_for_compactions().expect("wait");
    assert_eq!(count(&db), before, "nothing is due before the period");
    clock.advance(HOUR);
    db.wait_for_compactions().expect("wait");
    let after = count(&db);
    assert!(
        after > before,
        "periodic compaction ran: {before} -> {after}"
    );
    // The rewritten files are new: nothing more is due until another period passes.
    db.wait_for_compactions().expect("wait");
    assert_eq!(count(&db), after);
    let r = ReadOptions::default();
    assert_value(&db, &r, b"key000042", b"a42");
}

#[test]
fn fifo_drops_files_older_than_ttl() {
    let clock = Arc::new(ManualClock::new(T0));
    let mut o = clocked(&clock);
    o.cf.compaction_style = CompactionStyle::Fifo;
    o.cf.ttl = 3600;
    o.cf.level0_file_num_compaction_trigger = 100;
    o.cf.level0_slowdown_writes_trigger = 200;
    o.cf.level0_stop_writes_trigger = 300;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    put_range(&db, 0, 100, "old");
    db.flush().expect("flush");
    clock.advance(HOUR / 2);
    put_range(&db, 100, 200, "new");
    db.flush().expect("flush");
    db.wait_for_compactions().expect("wait");
    assert_eq!(files(&db)[0], 2);
    clock.advance(HOUR * 3 / 4);
    db.wait_for_compactions().expect("wait");
    assert_eq!(files(&db)[0], 1, "only the expired file was dropped");
    let r = ReadOptions::default();
    assert_eq!(db.get(&r, b"key000050").expect("get"), None);
    assert_value(&db, &r, b"key000150", b"new150");
}

// ---------------------------------------------------------------------------------------------
// Deletion-triggered compaction.

use cairndb::compaction::CompactOnDeletion;

fn total_bytes(db: &Db) -> u64 {
    db.level_summary_cf(&db.default_column_family())
        .iter()
        .map(|l| l.bytes)
        .sum()
}

/// Writes 5000 keys, pushes them to the bottom, deletes 2000 in a run and flushes; returns the
/// bytes on disk before the deletions.
fn delete_a_long_run(db: &Db) -> u64 {
    let w = WriteOptions::default();
    for i in 0..5000u32 {
        db.put(&w, &key(i), &[b'v'; 100]).expect("put");
    }
    db.compact_range(None, None).expect("compact");
    let before = total_bytes(db);
    for i in 1000..3000u32 {
        db.delete(&w, &key(i)).expect("delete");
    }
    db.flush().expect("flush");
    db.wait_for_compactions().expect("wait");
    before
}

#[test]
fn a_file_full_of_deletions_is_compacted_down_and_its_tombstones_dropped() {
    let mut o = compaction_opts();
    o.cf.write_buffer_size = 4 << 20;
    o.cf.compact_on_deletion = Some(CompactOnDeletion {
        sliding_window_size: 1000,
        deletion_trigger: 500,
        deletion_ratio: 0.0,
    });
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let before = delete_a_long_run(&db);
    assert_eq!(
        files(&db)[0],
        0,
        "the marked L0 file was compacted: {:?}",
        files(&db)
    );
    let after = total_bytes(&db);
    // 40% of the keys are gone, and so are the tombstones: well under 70% of the bytes.
    assert!(after * 10 < before * 7, "{before} -> {after} bytes");
    let r = ReadOptions::default();
    assert_eq!(db.get(&r, b"key001500").expect("get"), None);
    assert!(db.get(&r, b"key003500").expect("get").is_some());
    assert_eq!(scan_at(&db, &r).len(), 3000);
}

#[test]
fn without_the_collector_the_deletions_stay_in_l0() {
    let mut o = compaction_opts();
    o.cf.write_buffer_size = 4 << 20;
    // Large enough that even weighed as deletions (see the next test) the file stays under it.
    o.cf.max_bytes_for_level_base = 64 << 20;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    delete_a_long_run(&db);
    assert_eq!(files(&db)[0], 1, "{:?}", files(&db));
}

/// RocksDB's compensated file size: a file of deletions weighs two average values per deletion
/// beyond half its entries, so this 2000-tombstone L0 file (about 40 KB) counts as about
/// 420 KB, past `max_bytes_for_level_base` (256 KB): L0 is compacted down although it holds one
/// file, under its trigger, and the deleted values are dropped with the tombstones. (The average
/// value counts its bytes on disk: uncompressed here, so a value weighs about 100 bytes.)
#[test]
fn deletions_weigh_extra_so_a_file_of_them_is_compacted_down() {
    let mut o = compaction_opts();
    o.cf.write_buffer_size = 4 << 20;
    o.cf.compression = cairndb::CompressionType::None;
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    let before = delete_a_long_run(&db);
    assert_eq!(files(&db)[0], 0, "{:?}", files(&db));
    let after = total_bytes(&db);
    assert!(after * 10 < before * 7, "{before} -> {after} bytes");
    let r = ReadOptions::default();
    assert_eq!(db.get(&r, b"key001500").expect("get"), None);
    assert_eq!(scan_at(&db, &r).len(), 3000);
    // The counts that weigh a file are kept in the MANIFEST.
    let stats = |db: &Db| -> Vec<Option<cairndb::version::EntryStats>> {
        db.level_files_cf(&db.default_column_family())
            .iter()
            .flatten()
            .map(|f| f.entry_stats)
            .collect()
    };
    let written = stats(&db);
    assert!(
        !written.is_empty() && written.iter().all(Option::is_some),
        "{written:?}"
    );
    db.close().expect("close");
    let db = Db::open_with_fs(fs, DIR, o).expect("reopen");
    assert_eq!(stats(&db), written);
}

#[test]
fn the_mark_survives_reopen() {
    let fs = MemFs::new().shared();
    let mut o = compaction_opts();
    o.cf.write_buffer_size = 4 << 20;
    // So that only the mark, not the deletions' weight, can make the file due.
    o.cf.max_bytes_for_level_base = 64 << 20;
    o.cf.compact_on_deletion = Some(CompactOnDeletion {
        sliding_window_size: 1000,
        deletion_trigger: 500,
        deletion_ratio: 0.0,
    });
    let mut off = o.clone();
    off.cf.disable_auto_compactions = true;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, off).expect("open");
    delete_a_long_run(&db);
    assert_eq!(files(&db)[0], 1);
    db.close().expect("close");
    // Reopened with compactions on: the MANIFEST remembers the mark.
    let db = Db::open_with_fs(fs, DIR, o).expect("reopen");
    db.wait_for_compactions().expect("wait");
    assert_eq!(files(&db)[0], 0, "{:?}", files(&db));
}

// ---------------------------------------------------------------------------------------------
// Universal and FIFO through the database.

/// A deterministic pseudo-random sequence (64-bit LCG).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn random_history(db: &Db, model: &mut BTreeMap<Vec<u8>, Vec<u8>>, seed: u64, ops: u32) {
    let w = WriteOptions::default();
    let mut rng = Lcg(seed);
    for i in 0..ops {
        let k = format!("key{:06}", rng.next() % 1500).into_bytes();
        if rng.next() % 5 == 0 {
            db.delete(&w, &k).expect("delete");
            model.remove(&k);
        } else {
            let v = format!("{i:0>120}").into_bytes();
            db.put(&w, &k, &v).expect("put");
            model.insert(k, v);
        }
        if i % 1000 == 999 {
            assert_eq!(
                &scan_at(db, &ReadOptions::default()),
                model,
                "after {i} ops"
            );
        }
    }
}

#[test]
fn universal_compaction_keeps_answers_and_bounds_space_amplification() {
    let fs = MemFs::new().shared();
    let mut o = compaction_opts();
    o.cf.compaction_style = CompactionStyle::Universal;
    o.cf.level0_file_num_compaction_trigger = 4;
    o.cf.compaction_options_universal
        .max_size_amplification_percent = 100;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    let mut model = BTreeMap::new();
    random_history(&db, &mut model, 7, 8000);
    db.flush().expect("flush");
    db.wait_for_compactions().expect("wait");
    assert_eq!(scan_at(&db, &ReadOptions::default()), model);
    // Sorted runs: every L0 file, every non-empty deeper level; oldest last.
    let levels = db.level_summary_cf(&db.default_column_family());
    let mut runs: Vec<u64> = Vec::new();
    let l0 = db.level_summary_cf(&db.default_column_family())[0];
    runs.extend(std::iter::repeat_n(
        l0.bytes / l0.files.max(1) as u64,
        l0.files,
    ));
    runs.extend(levels[1..].iter().filter(|l| l.files > 0).map(|l| l.bytes));
    let stats = db.compaction_stats_cf(&db.default_column_family());
    assert!(stats.levels.iter().map(|l| l.compactions).sum::<u64>() > 0);
    if runs.len() >= 4 {
        let oldest = *runs.last().expect("runs");
        let newer: u64 = runs[..runs.len() - 1].iter().sum();
        assert!(
            newer * 100 < 100 * oldest,
            "space amplification above 100%: runs {runs:?}"
        );
    }
    db.close().expect("close");
    let db = Db::open_with_fs(fs, DIR, o).expect("reopen");
    assert_eq!(scan_at(&db, &ReadOptions::default()), model);
}

#[test]
fn fifo_drops_the_oldest_files_over_the_size_limit() {
    let mut o = compaction_opts();
    o.cf.compaction_style = CompactionStyle::Fifo;
    o.cf.compression = cairndb::CompressionType::None;
    o.cf.compaction_options_fifo.max_table_files_size = 200 << 10;
    o.cf.level0_file_num_compaction_trigger = 100;
    o.cf.level0_slowdown_writes_trigger = 200;
    o.cf.level0_stop_writes_trigger = 300;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let w = WriteOptions::default();
    for batch in 0..20u32 {
        for i in 0..200u32 {
            let k = format!("key{:06}", batch * 200 + i);
            db.put(&w, k.as_bytes(), &[b'x'; 150]).expect("put");
        }
        db.flush().expect("flush");
    }
    db.wait_for_compactions().expect("wait");
    assert!(total_bytes(&db) <= 200 << 10, "{} bytes", total_bytes(&db));
    let r = ReadOptions::default();
    assert_eq!(
        db.get(&r, b"key000000").expect("get"),
        None,
        "oldest dropped"
    );
    assert!(
        db.get(&r, b"key003999").expect("get").is_some(),
        "newest kept"
    );
}

// ---------------------------------------------------------------------------------------------
// Subcompactions.

/// The same history, compacted with `subs` subcompactions: the answers and what the
/// compactions did, by output level (files written, subcompactions with outputs).
fn compact_with_subcompactions(subs: u32) -> (BTreeMap<Vec<u8>, Vec<u8>>, u64, u64) {
    let mut o = compaction_opts();
    o.db.max_subcompactions = subs;
    o.cf.disable_auto_compactions = true;
    o.cf.target_file_size_base = 16 << 10;
    o.cf.compression = cairndb::CompressionType::None;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let mut model = BTreeMap::new();
    random_history(&db, &mut model, 11, 6000);
    let snap = db.snapshot().expect("snapshot");
    let at_snap = scan_at(&db, &at(snap.sequence()));
    random_history(&db, &mut model, 12, 2000);
    db.compact_range(None, None).expect("compact");
    assert_eq!(scan_at(&db, &ReadOptions::default()), model, "subs {subs}");
    assert_eq!(
        scan_at(&db, &at(snap.sequence())),
        at_snap,
        "subs {subs} at the snapshot"
    );
    drop(snap);
    db.compact_range(None, None).expect("compact");
    assert_eq!(scan_at(&db, &ReadOptions::default()), model, "subs {subs}");
    let stats = db.compaction_stats_cf(&db.default_column_family());
    let with_files: u64 = stats
        .levels
        .iter()
        .map(|l| l.compactions - l.trivial_moves)
        .sum();
    let subcompactions: u64 = stats.levels.iter().map(|l| l.subcompactions).sum();
    (model, with_files, subcompactions)
}

#[test]
fn subcompactions_give_the_answers_of_one_job_and_split_the_work() {
    let (one, jobs1, subs1) = compact_with_subcompactions(1);
    assert_eq!(jobs1, subs1, "without splitting, one range per job");
    let (four, jobs4, subs4) = compact_with_subcompactions(4);
    assert_eq!(one, four);
    assert!(
        subs4 > jobs4,
        "some job ran several ranges that each wrote files: {jobs4} jobs, {subs4} ranges"
    );
}

// ---------------------------------------------------------------------------------------------
// Rate limiter.

use cairndb::options::RateLimiter;
use cairndb::rate_limiter::IoPriority;

#[test]
fn a_tiny_rate_limit_still_completes_a_small_compaction() {
    // 200 KiB/s: a burst of 20 KiB per 100 ms.
    let limiter = Arc::new(RateLimiter::with_rate(200 << 10).expect("limiter"));
    let mut o = compaction_opts();
    o.db.rate_limiter = Some(limiter.clone());
    o.cf.compression = cairndb::CompressionType::None;
    o.cf.disable_auto_compactions = true;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let w = WriteOptions::default();
    for i in 0..300u32 {
        db.put(&w, &key(i), &[b'r'; 100]).expect("put");
    }
    db.flush().expect("flush");
    put_range(&db, 0, 300, "again");
    db.compact_range(None, None).expect("compact");
    assert!(limiter.total_bytes_through(IoPriority::High) > 30_000);
    // Every byte of every compaction output went through the limiter at low priority.
    let stats = db.compaction_stats_cf(&db.default_column_family());
    let written: u64 = stats.levels.iter().map(|l| l.bytes_written).sum();
    assert!(written > 0);
    assert_eq!(limiter.total_bytes_through(IoPriority::Low), written);
    limiter.set_bytes_per_second(1 << 30).expect("set");
    assert_eq!(limiter.bytes_per_second(), 1 << 30);
    assert_eq!(scan_at(&db, &ReadOptions::default()).len(), 300);
}

/// Opens a database with `limiter`, writes two overlapping flushed files and compacts them;
/// returns the bytes the compaction read and wrote.
fn compact_through(limiter: &Arc<RateLimiter>) -> (u64, u64) {
    let mut o = compaction_opts();
    o.db.rate_limiter = Some(limiter.clone());
    o.cf.compression = cairndb::CompressionType::None;
    o.cf.disable_auto_compactions = true;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    put_range(&db, 0, 300, "first");
    db.flush().expect("flush");
    put_range(&db, 0, 300, "again");
    db.compact_range(None, None).expect("compact");
    assert_eq!(scan_at(&db, &ReadOptions::default()).len(), 300);
    let stats = db.compaction_stats_cf(&db.default_column_family());
    let read: u64 = stats.levels.iter().map(|l| l.bytes_read).sum();
    let written: u64 = stats.levels.iter().map(|l| l.bytes_written).sum();
    assert!(read > 0 && written > 0);
    (read, written)
}

#[test]
fn reads_only_mode_charges_compaction_reads_and_not_writes() {
    use cairndb::rate_limiter::RateLimiterMode;
    let limiter = Arc::new(
        RateLimiter::with_mode(200 << 10, 100_000, 10, RateLimiterMode::ReadsOnly)
            .expect("limiter"),
    );
    let (read, _) = compact_through(&limiter);
    // Every input byte went through the limiter (the footer, index and filter are read on open
    // and count too); flushes and compaction outputs were not charged.
    let low = limiter.total_bytes_through(IoPriority::Low);
    assert!(low >= read, "charged {low} of {read} input bytes");
    assert_eq!(limiter.total_bytes_through(IoPriority::High), 0);
}

#[test]
fn all_io_mode_charges_compaction_reads_and_writes_and_flush_writes() {
    use cairndb::rate_limiter::RateLimiterMode;
    let limiter = Arc::new(
        RateLimiter::with_mode(200 << 10, 100_000, 10, RateLimiterMode::AllIo).expect("limiter"),
    );
    let (read, written) = compact_through(&limiter);
    let low = limiter.total_bytes_through(IoPriority::Low);
    assert!(
        low >= read + written,
        "charged {low}, read {read} + wrote {written}"
    );
    assert!(
        limiter.total_bytes_through(IoPriority::High) > 0,
        "flush writes are charged"
    );
}

#[test]
fn writes_only_mode_does_not_charge_compaction_reads() {
    // The default mode, RocksDB's kWritesOnly: exactly the output bytes at low priority.
    let limiter = Arc::new(RateLimiter::with_rate(200 << 10).expect("limiter"));
    let (_, written) = compact_through(&limiter);
    assert_eq!(limiter.total_bytes_through(IoPriority::Low), written);
}

#[test]
fn flushes_complete_while_a_rate_limited_compaction_reads() {
    use cairndb::rate_limiter::RateLimiterMode;
    // 100 KiB/s: compacting ~200 KiB of input takes seconds of low-priority reads and writes.
    let limiter = Arc::new(
        RateLimiter::with_mode(100 << 10, 100_000, 10, RateLimiterMode::AllIo).expect("limiter"),
    );
    let mut o = compaction_opts();
    o.db.rate_limiter = Some(limiter.clone());
    o.cf.compression = cairndb::CompressionType::None;
    o.cf.disable_auto_compactions = true;
    let db = Arc::new(Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open"));
    put_range(&db, 0, 1000, "first");
    db.flush().expect("flush");
    put_range(&db, 0, 1000, "second");
    db.flush().expect("flush");
    let compacting = {
        let db = Arc::clone(&db);
        std::thread::spawn(move || db.compact_range(None, None))
    };
    // Flushes run while the compaction waits for its low-priority tokens; each must finish.
    let high_before = limiter.total_bytes_through(IoPriority::High);
    for round in 0..3u32 {
        put_range(&db, 2000 + round * 10, 2010 + round * 10, "late");
        db.flush().expect("flush during compaction");
    }
    assert!(limiter.total_bytes_through(IoPriority::High) > high_before);
    compacting.join().expect("join").expect("compact");
    assert_eq!(scan_at(&db, &ReadOptions::default()).len(), 1030);
}

/// A history with range deletions and snapshots compacted with `subs` subcompactions; returns
/// what readers see at each snapshot and at the tip, and the ranges that wrote files.
type View = BTreeMap<Vec<u8>, Vec<u8>>;

fn compact_range_deletions_with_subcompactions(subs: u32) -> (Vec<View>, u64) {
    let mut o = compaction_opts();
    o.db.max_subcompactions = subs;
    o.cf.disable_auto_compactions = true;
    o.cf.target_file_size_base = 16 << 10;
    o.cf.compression = cairndb::CompressionType::None;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let w = WriteOptions::default();
    let mut model = BTreeMap::new();
    let mut rng = Lcg(21);
    let mut snaps = Vec::new();
    for round in 0..4u64 {
        random_history(&db, &mut model, 30 + round, 1500);
        for _ in 0..6 {
            let a = rng.next() % 1500;
            let b = a + 1 + rng.next() % 200;
            let (a, b) = (format!("key{a:06}"), format!("key{b:06}"));
            db.delete_range(&w, a.as_bytes(), b.as_bytes())
                .expect("delete_range");
            model.retain(|k: &Vec<u8>, _| {
                k.as_slice() < a.as_bytes() || k.as_slice() >= b.as_bytes()
            });
        }
        db.flush().expect("flush");
        let s = db.snapshot().expect("snapshot");
        snaps.push((scan_at(&db, &at(s.sequence())), s));
    }
    db.compact_range(None, None).expect("compact");
    let mut seen: Vec<_> = snaps
        .iter()
        .map(|(_, s)| scan_at(&db, &at(s.sequence())))
        .collect();
    for ((want, _), got) in snaps.iter().zip(&seen) {
        assert_eq!(got, want, "subs {subs}: a snapshot's view changed");
    }
    assert_eq!(scan_at(&db, &ReadOptions::default()), model, "subs {subs}");
    seen.push(model);
    let stats = db.compaction_stats_cf(&db.default_column_family());
    (seen, stats.levels.iter().map(|l| l.subcompactions).sum())
}

#[test]
fn subcompactions_split_inputs_with_range_deletions_and_keep_every_snapshot() {
    let (one, subs1) = compact_range_deletions_with_subcompactions(1);
    let (four, subs4) = compact_range_deletions_with_subcompactions(4);
    assert_eq!(one, four);
    // Every input holds range tombstones, so these ranges could not be split before.
    assert!(subs4 > subs1, "split: {subs4} ranges vs {subs1}");
}

// ---------------------------------------------------------------------------------------------
// compaction_pri = kRoundRobin.

use cairndb::options::CompactionPri;

/// Three levels, static sizing, L0 compacted at once, 16 KiB files; L1's target so large that
/// nothing leaves L1 until a test lowers it.
fn round_robin_opts(pri: CompactionPri) -> Options {
    let mut o = compaction_opts();
    o.cf.compaction_pri = pri;
    o.cf.num_levels = 3;
    o.cf.level_compaction_dynamic_level_bytes = false;
    o.cf.level0_file_num_compaction_trigger = 1;
    o.cf.target_file_size_base = 16 << 10;
    o.cf.max_bytes_for_level_base = 64 << 20;
    o
}

/// `len` bytes that do not compress, different for every `(seed, tag)`.
fn noise(seed: u32, tag: u64, len: usize) -> Vec<u8> {
    let mut x = (u64::from(seed) << 8 | tag).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b'a' + (x % 26) as u8
        })
        .collect()
}

fn l1_files(db: &Db) -> Vec<(u64, u64)> {
    db.level_files_cf(&db.default_column_family())[1]
        .iter()
        .map(|f| (f.number, f.size))
        .collect()
}

/// Lowers L1's target to one byte below its size, so one compaction out of L1 is due, waits
/// for it, and returns the L1 files (by number) it removed, in key order.
fn one_l1_compaction(db: &Db) -> Vec<u64> {
    let before = l1_files(db);
    let bytes: u64 = before.iter().map(|(_, size)| size).sum();
    db.set_options_default(&[("max_bytes_for_level_base", &(bytes - 1).to_string())])
        .expect("lower the target");
    db.wait_for_compactions().expect("wait");
    let after: Vec<u64> = l1_files(db).iter().map(|(n, _)| *n).collect();
    db.set_options_default(&[("max_bytes_for_level_base", &(64u64 << 20).to_string())])
        .expect("raise the target");
    before
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| !after.contains(n))
        .collect()
}

#[test]
fn round_robin_walks_the_level_in_key_order_and_its_cursor_survives_reopen() {
    let fs = MemFs::new().shared();
    let w = WriteOptions::default();
    // L2: large values under the lower half of the key space, put there with the default
    // priority (so no cursor exists yet): compacting a low L1 file is expensive, a high one free.
    {
        let mut o = round_robin_opts(CompactionPri::MinOverlappingRatio);
        o.cf.max_bytes_for_level_base = 1024;
        let db = Db::open_with_fs(fs.clone(), DIR, o).expect("open");
        for i in 0..1000 {
            db.put(&w, &key(i), &noise(i, 1, 1000)).expect("put");
        }
        db.flush().expect("flush");
        db.wait_for_compactions().expect("wait");
        let levels = files(&db);
        assert_eq!((levels[0], levels[1]), (0, 0), "all in L2: {levels:?}");
    }
    // L1: small values over the whole key space, written out of order so every flush spans it
    // and L1 ends up as a run of 16 KiB files.
    let db = Db::open_with_fs(fs.clone(), DIR, round_robin_opts(CompactionPri::RoundRobin))
        .expect("open");
    for j in 0..2000u32 {
        let i = j * 7 % 2000;
        db.put(&w, &key(i), &noise(i, 2, 100)).expect("put");
    }
    db.flush().expect("flush");
    db.wait_for_compactions().expect("wait");
    let l1: Vec<u64> = l1_files(&db).iter().map(|(n, _)| *n).collect();
    assert!(
        l1.len() >= 8,
        "L1 holds a run of files: {:?} {:?}",
        l1_files(&db),
        files(&db)
    );

    // Each compaction out of L1 takes the files that follow the previous one's, from the start
    // of the key space (kMinOverlappingRatio would take the free files of the upper half).
    let mut walked = Vec::new();
    for _ in 0..3 {
        let removed = one_l1_compaction(&db);
        assert!(!removed.is_empty(), "a compaction left L1");
        walked.extend(removed);
    }
    assert_eq!(
        walked,
        l1[..walked.len()].to_vec(),
        "L1 walked in key order from the start"
    );
    let next = l1[walked.len()];
    drop(db);

    // New data behind the cursor: an L0 file under the walked range moves into L1's gap.
    let db = Db::open_with_fs(fs.clone(), DIR, round_robin_opts(CompactionPri::RoundRobin))
        .expect("reopen (cursor from the MANIFEST's edits)");
    for i in 0..50 {
        db.put(&w, &key(i), b"new").expect("put");
    }
    db.flush().expect("flush");
    db.wait_for_compactions().expect("wait");
    let l1_now = l1_files(&db);
    assert_ne!(l1_now[0].0, next, "a file before the cursor: {l1_now:?}");
    drop(db);

    // After another reopen (the cursor now comes from the snapshot that starts the MANIFEST
    // written since) the walk goes on at the cursor, not at the level's first file.
    let db = Db::open_with_fs(fs.clone(), DIR, round_robin_opts(CompactionPri::RoundRobin))
        .expect("reopen (cursor from the snapshot)");
    let removed = one_l1_compaction(&db);
    assert_eq!(
        removed.first(),
        Some(&next),
        "the walk resumes at the cursor"
    );
    let r = ReadOptions::default();
    assert_value(&db, &r, &key(10), b"new");
    assert_value(&db, &r, &key(1500), &noise(1500, 2, 100));
    assert_value(&db, &r, &key(700), &noise(700, 2, 100));
}

// ---------------------------------------------------------------------------------------------
// Filter bits per level.

/// A database of [`compaction_opts`] with four statically sized levels, no compression and
/// `configure`'s changes, holding keys 0..8000 (values of 100 bytes) written in order, flushed
/// and compacted.
fn ordered_keys_in_four_levels(configure: impl FnOnce(&mut Options)) -> Db {
    let mut o = compaction_opts();
    o.cf.level_compaction_dynamic_level_bytes = false;
    o.cf.num_levels = 4;
    o.cf.compression = cairndb::CompressionType::None;
    configure(&mut o);
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    let w = WriteOptions::default();
    for i in 0..8000u32 {
        db.put(&w, &key(i), &[b'v'; 100]).expect("put");
    }
    db.flush().expect("flush");
    db.wait_for_compactions().expect("compactions");
    db
}

/// `bloom_bits_per_key_per_level`: every table carries the bits of the level it was written to
/// (none on L0, 20 on L1, 6 from L2 down), its filter is there exactly when it has bits, and
/// every key reads back. The keys arrive in order, so without the setting the files would move
/// down without a rewrite.
#[test]
fn every_table_has_the_filter_bits_of_its_level() {
    let db =
        ordered_keys_in_four_levels(|o| o.cf.bloom_bits_per_key_per_level = vec![0.0, 20.0, 6.0]);
    let tables = db.get_properties_of_all_tables().expect("properties");
    let want = |level: usize| [0.0, 20.0, 6.0, 6.0][level];
    let mut levels = std::collections::BTreeSet::new();
    for t in &tables {
        levels.insert(t.level);
        assert_eq!(
            t.properties.bloom_bits_per_key,
            want(t.level),
            "{} in L{}",
            t.file_name,
            t.level
        );
        assert_eq!(
            t.properties.filter_bytes == 0,
            want(t.level) == 0.0,
            "{} in L{}: {} filter bytes",
            t.file_name,
            t.level,
            t.properties.filter_bytes
        );
    }
    assert!(
        levels.contains(&1) && levels.contains(&2),
        "the workload reaches L1 and L2: {levels:?}"
    );
    for i in (0..8000u32).step_by(7) {
        assert_value(&db, &ReadOptions::default(), &key(i), &[b'v'; 100]);
    }
    assert_eq!(
        db.get(&ReadOptions::default(), b"absent").expect("get"),
        None
    );
}

/// `optimize_filters`: the same memory as 10 bits per key everywhere, spread as Monkey says
/// for the tree's shape when each table is written. Once the deepest level is the largest, the
/// tables written to it get fewer than 10 bits (those written while it was still small may have
/// more: a file keeps its bits), and a table flushed to L0 then gets more; every key reads back.
#[test]
fn optimize_filters_gives_the_small_upper_runs_more_bits() {
    let db = ordered_keys_in_four_levels(|o| o.cf.optimize_filters = true);
    // No compaction may move the next L0 table away before it is looked at.
    db.set_options_default(&[("disable_auto_compactions", "true")])
        .expect("set_options");
    let w = WriteOptions::default();
    db.put(&w, b"late", b"value").expect("put");
    db.flush().expect("flush");
    let tables = db.get_properties_of_all_tables().expect("properties");
    let deepest = tables.iter().map(|t| t.level).max().expect("tables");
    assert!(deepest >= 2, "the workload reaches L2");
    for t in &tables {
        let bits = t.properties.bloom_bits_per_key;
        assert!(
            (1.0..=100.0).contains(&bits),
            "{} in L{}: {bits}",
            t.file_name,
            t.level
        );
    }
    let bottom: Vec<f64> = tables
        .iter()
        .filter(|t| t.level == deepest)
        .map(|t| t.properties.bloom_bits_per_key)
        .collect();
    assert!(bottom.iter().any(|&b| b < 10.0), "L{deepest}: {bottom:?}");
    let l0: Vec<f64> = tables
        .iter()
        .filter(|t| t.level == 0)
        .map(|t| t.properties.bloom_bits_per_key)
        .collect();
    assert!(!l0.is_empty() && l0.iter().all(|&b| b > 10.0), "L0: {l0:?}");
    for i in (0..8000u32).step_by(7) {
        assert_value(&db, &ReadOptions::default(), &key(i), &[b'v'; 100]);
    }
    assert_value(&db, &ReadOptions::default(), b"late", b"value");
}

/// The predicted false positives of a lookup of an absent key: one per L0 table and one per
/// level below without filters; the same count times the filter's rate with 10 bits per key
/// everywhere (every table then has one rate).
#[test]
fn predicted_false_positives_count_l0_tables_and_levels() {
    for bits in [0.0, 10.0] {
        let mut o = compaction_opts();
        o.cf.table.bloom_bits_per_key = bits;
        o.cf.compression = cairndb::CompressionType::None;
        let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
        let w = WriteOptions::default();
        for i in 0..6000u32 {
            db.put(&w, &key((i * 7919) % 6000), &[b'v'; 100])
                .expect("put");
        }
        db.flush().expect("flush");
        db.wait_for_compactions().expect("compactions");
        // The shape must hold still between the count below and the prediction.
        db.set_options_default(&[("disable_auto_compactions", "true")])
            .expect("set_options");
        db.put(&w, b"late", b"value").expect("put");
        db.flush().expect("flush");
        let tables = db.get_properties_of_all_tables().expect("properties");
        let l0 = tables.iter().filter(|t| t.level == 0).count();
        let levels: std::collections::BTreeSet<usize> = tables
            .iter()
            .filter(|t| t.level > 0)
            .map(|t| t.level)
            .collect();
        assert!(
            l0 >= 1 && !levels.is_empty(),
            "{l0} L0 tables, levels {levels:?}"
        );
        let rate = if bits == 0.0 {
            1.0
        } else {
            cairndb::lsm_math::monkey::cache_local_fpr(10.0)
        };
        let want = (l0 + levels.len()) as f64 * rate;
        let got = db
            .expected_filter_false_positives_cf(&db.default_column_family())
            .expect("prediction");
        assert!((got - want).abs() < 1e-9, "{bits} bits: {got}, want {want}");
        let shown = db
            .property("cairndb.filter-false-positives-per-lookup")
            .expect("property");
        assert_eq!(shown, format!("{want:.6}"));
    }
}
