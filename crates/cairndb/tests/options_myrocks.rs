//! The MyRocks configuration, verbatim, applied to a database: each part is checked by its
//! effect on what the database does, not only by the parse (issue 14).
//!
//! Every test opens a database with the MyRocks column-family string, the MyRocks database
//! options and `block_size=16384`, then overrides only what it must to stay small (memtable size,
//! automatic compactions), never the option it checks. Effects are observed through table
//! properties, database properties, compaction statistics and a file system that counts
//! `open_read`, `read_exact_at` and `write_behind` calls per file kind.
//!
//! Not asserted here: `max_background_jobs` and `max_total_wal_size` (their effects are timing
//! and multi-gigabyte WAL volumes), `write_buffer_size`/`target_file_size_base`/
//! `max_bytes_for_level_base` at their MyRocks sizes (hundreds of MiB); their parse is checked in
//! `options::tests::myrocks_string_sets_every_field` and their behaviour by the compaction tests.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairndb::fs::{AccessPattern, FileLock, FileSystem, MemFs, RandomAccessFile, WritableFile};
use cairndb::options::{Options, ReadOptions, TableOptions, WriteOptions};
use cairndb::sstable::{Table, TableProperties};
use cairndb::{CompressionType, Db, Result};
use common::DIR;
use parking_lot::Mutex;

const MYROCKS_CF: &str = "write_buffer_size=256m;target_file_size_base=32m;\
max_bytes_for_level_base=512m;max_write_buffer_number=4;level0_file_num_compaction_trigger=4;\
level0_slowdown_writes_trigger=20;level0_stop_writes_trigger=30;max_write_buffer_number=4;\
block_based_table_factory={cache_index_and_filter_blocks=1;filter_policy=bloomfilter:10:false;\
whole_key_filtering=0};level_compaction_dynamic_level_bytes=true;optimize_filters_for_hits=true;\
memtable_prefix_bloom_size_ratio=0.05;prefix_extractor=capped:12;\
compaction_pri=kMinOverlappingRatio;compression=kLZ4Compression;\
bottommost_compression=kLZ4Compression;compression_opts=-14:4:0";

const MYROCKS_DB: &str = "max_open_files=-1;max_background_jobs=8;max_total_wal_size=4G;\
bytes_per_sync=16777216;wal_bytes_per_sync=4194304;max_subcompactions=4;\
compaction_readahead_size=16m;table_cache_numshardbits=6";

/// The MyRocks options, then `extra` (later values win), with `create_if_missing`.
fn myrocks(extra: &str) -> Options {
    let s =
        format!("{MYROCKS_CF};{MYROCKS_DB};block_based_table_factory={{block_size=16384}};{extra}");
    let mut o = Options::from_options_string(&s).unwrap_or_else(|e| panic!("{e}"));
    o.db.create_if_missing = true;
    o
}

// ---- a file system that counts ----------------------------------------------------------------

/// Counts per file kind (the extension: "sst", "log", ...).
#[derive(Debug, Default)]
struct Counts {
    open_reads: Mutex<HashMap<PathBuf, u64>>,
    reads: Mutex<HashMap<String, u64>>,
    write_behinds: Mutex<HashMap<String, u64>>,
}

fn kind(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Counts {
    fn reads(&self, k: &str) -> u64 {
        self.reads.lock().get(k).copied().unwrap_or(0)
    }
    fn write_behinds(&self, k: &str) -> u64 {
        self.write_behinds.lock().get(k).copied().unwrap_or(0)
    }
}

#[derive(Debug)]
struct CountingFs {
    inner: Arc<MemFs>,
    counts: Arc<Counts>,
}

#[derive(Debug)]
struct CountingReader {
    inner: Arc<dyn RandomAccessFile>,
    kind: String,
    counts: Arc<Counts>,
}

impl RandomAccessFile for CountingReader {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        *self
            .counts
            .reads
            .lock()
            .entry(self.kind.clone())
            .or_default() += 1;
        self.inner.read_exact_at(offset, buf)
    }
    fn size(&self) -> Result<u64> {
        self.inner.size()
    }
    fn advise(&self, p: AccessPattern) -> Result<()> {
        self.inner.advise(p)
    }
    fn readahead(&self, o: u64, l: u64) -> Result<()> {
        self.inner.readahead(o, l)
    }
}

#[derive(Debug)]
struct CountingWriter {
    inner: Box<dyn WritableFile>,
    kind: String,
    counts: Arc<Counts>,
}

impl WritableFile for CountingWriter {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.inner.append(data)
    }
    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }
    fn sync(&mut self) -> Result<()> {
        self.inner.sync()
    }
    fn sync_data(&mut self) -> Result<()> {
        self.inner.sync_data()
    }
    fn write_behind(&mut self, offset: u64, len: u64) -> Result<()> {
        *self
            .counts
            .write_behinds
            .lock()
            .entry(self.kind.clone())
            .or_default() += 1;
        self.inner.write_behind(offset, len)
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
}

impl CountingFs {
    fn writer(&self, path: &Path, inner: Box<dyn WritableFile>) -> Box<dyn WritableFile> {
        Box::new(CountingWriter {
            inner,
            kind: kind(path),
            counts: Arc::clone(&self.counts),
        })
    }
}

impl FileSystem for CountingFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        Ok(self.writer(path, self.inner.create(path)?))
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        Ok(self.writer(path, self.inner.open_append(path)?))
    }
    fn open_overwrite(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        Ok(self.writer(path, self.inner.open_overwrite(path)?))
    }
    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        *self
            .counts
            .open_reads
            .lock()
            .entry(path.to_path_buf())
            .or_default() += 1;
        Ok(Arc::new(CountingReader {
            inner: self.inner.open_read(path)?,
            kind: kind(path),
            counts: Arc::clone(&self.counts),
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.rename(from, to)
    }
    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        self.inner.link(from, to)
    }
    fn remove(&self, path: &Path) -> Result<()> {
        self.inner.remove(path)
    }
    fn remove_dir(&self, path: &Path) -> Result<()> {
        self.inner.remove_dir(path)
    }
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        self.inner.create_dir_all(path)
    }
    fn list(&self, path: &Path) -> Result<Vec<String>> {
        self.inner.list(path)
    }
    fn exists(&self, path: &Path) -> Result<bool> {
        self.inner.exists(path)
    }
    fn size(&self, path: &Path) -> Result<u64> {
        self.inner.size(path)
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        self.inner.truncate(path, len)
    }
    fn sync_dir(&self, path: &Path) -> Result<()> {
        self.inner.sync_dir(path)
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        self.inner.lock(path)
    }
}

/// A database on a fresh counting file system.
fn open(o: Options) -> (Db, Arc<MemFs>, Arc<Counts>) {
    let mem = Arc::new(MemFs::new());
    let counts = Arc::new(Counts::default());
    let fs = Arc::new(CountingFs {
        inner: Arc::clone(&mem),
        counts: Arc::clone(&counts),
    });
    let db = Db::open_with_fs(fs, DIR, o).expect("open");
    (db, mem, counts)
}

// ---- data ---------------------------------------------------------------------------------

/// Keys with 12-byte prefixes `pfx-NNNNNNN-` (the capped:12 extractor's domain), 20 per prefix.
fn key(i: u32) -> Vec<u8> {
    format!("pfx-{:07}-{:04}", i / 20, i % 20).into_bytes()
}

/// `len` bytes that compress poorly (xorshift), different for every `seed`.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Text-like values that compress, differently at different zstd levels.
fn text(i: u32) -> Vec<u8> {
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
    ];
    let mut v = Vec::new();
    let mut x = u64::from(i) * 2_654_435_761 + 7;
    for _ in 0..40 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        v.extend_from_slice(words[(x >> 61) as usize].as_bytes());
        v.push(b' ');
    }
    v
}

fn put_all(db: &Db, n: u32, value: impl Fn(u32) -> Vec<u8>) {
    for i in 0..n {
        db.put(&WriteOptions::default(), &key(i), &value(i))
            .expect("put");
    }
}

/// The properties of every table of the default family, level by level.
fn table_properties(db: &Db, fs: &MemFs) -> Vec<Vec<TableProperties>> {
    db.level_files_cf(&db.default_column_family())
        .iter()
        .map(|files| {
            files
                .iter()
                .map(|f| {
                    let path = Path::new(DIR).join(format!("{:06}.sst", f.number));
                    let file = fs.open_read(&path).expect("open");
                    Table::open(file, &path, f.size, &TableOptions::default())
                        .expect("table")
                        .properties()
                        .clone()
                })
                .collect()
        })
        .collect()
}

// ---- the tests ----------------------------------------------------------------------------

#[test]
fn tables_get_16k_blocks_lz4_and_prefix_only_filters() {
    let (db, fs, _) = open(myrocks("disable_auto_compactions=true"));
    put_all(&db, 4000, text);
    db.flush().expect("flush");
    let props = table_properties(&db, &fs);
    let l0 = &props[0][0];
    assert_eq!(l0.block_size, 16384, "block_size=16384");
    assert!(
        l0.num_data_blocks < l0.raw_value_bytes / 8192,
        "blocks of ~16 KiB"
    );
    assert_eq!(
        l0.compression,
        CompressionType::Lz4,
        "compression=kLZ4Compression"
    );
    assert!(!l0.whole_key_filtering, "whole_key_filtering=0");
    assert_eq!(l0.prefix_extractor, "rocksdb.CappedPrefix.12");
    assert!(l0.filter_bytes > 0, "a prefix filter is built");
    assert_eq!(l0.bloom_bits_per_key, 10.0, "bloomfilter:10");
    // 200 prefixes in the filter, not 4000 keys: a prefix-only filter is far smaller than
    // 10 bits per key would make a whole-key one.
    assert!(
        l0.filter_bytes < 4000 * 10 / 8 / 4,
        "filter of {} bytes",
        l0.filter_bytes
    );
}

#[test]
fn bottommost_files_have_no_filter_and_the_bottommost_compression() {
    let (db, fs, _) = open(myrocks(
        "disable_auto_compactions=true;bottommost_compression=kZSTD",
    ));
    put_all(&db, 3000, text);
    db.flush().expect("flush");
    put_all(&db, 3000, |i| text(i + 1));
    db.flush().expect("flush");
    db.compact_range(None, None).expect("compact");
    let props = table_properties(&db, &fs);
    let (last, files) = props
        .iter()
        .enumerate()
        .rev()
        .find(|(_, f)| !f.is_empty())
        .expect("files");
    assert!(last > 0, "compacted below L0");
    for p in files {
        assert_eq!(
            p.filter_bytes, 0,
            "optimize_filters_for_hits: no filter at the last level"
        );
        assert_eq!(
            p.compression,
            CompressionType::Zstd,
            "bottommost_compression"
        );
    }
    // And the MyRocks value itself (LZ4 at the bottom). Two overlapping tables, so the
    // compaction rewrites them (a single file could be moved down as it is, filter and all,
    // as in RocksDB).
    let (db, fs, _) = open(myrocks("disable_auto_compactions=true"));
    put_all(&db, 3000, text);
    db.flush().expect("flush");
    put_all(&db, 3000, |i| text(i + 1));
    db.flush().expect("flush");
    db.compact_range(None, None).expect("compact");
    let props = table_properties(&db, &fs);
    let bottom = props.iter().rev().find(|f| !f.is_empty()).expect("files");
    assert!(bottom
        .iter()
        .all(|p| p.compression == CompressionType::Lz4 && p.filter_bytes == 0));
}

#[test]
fn compression_opts_level_sets_the_zstd_level() {
    let size = |level: u32| {
        let (db, fs, _) = open(myrocks(&format!(
            "disable_auto_compactions=true;compression=kZSTD;compression_opts=-14:{level}:0"
        )));
        put_all(&db, 3000, text);
        db.flush().expect("flush");
        table_properties(&db, &fs)[0][0].data_bytes
    };
    let (fast, strong) = (size(1), size(19));
    assert!(
        strong < fast,
        "level 19 {strong} bytes, level 1 {fast} bytes"
    );
}

#[test]
fn index_and_filter_blocks_live_in_the_block_cache() {
    let usage_after_open = |cache_them: u8| {
        let o = myrocks(&format!(
            "disable_auto_compactions=true;\
             block_based_table_factory={{cache_index_and_filter_blocks={cache_them}}}"
        ));
        let (db, _, _) = open(o);
        put_all(&db, 2000, text);
        db.flush().expect("flush");
        // A prefix the filter rules out: the table is opened, no data block is read.
        let got = db
            .get(&ReadOptions::default(), b"zzz-nothing-here")
            .expect("get");
        assert!(got.is_none());
        db.property_int("rocksdb.block-cache-usage")
    };
    let cached = usage_after_open(1).expect("a block cache is made for cached index blocks");
    assert!(
        cached > 0,
        "index and filter blocks are charged to the cache"
    );
    assert_eq!(
        usage_after_open(0).unwrap_or(0),
        0,
        "held by the table instead"
    );
}

#[test]
fn memtable_prefix_bloom_answers_absent_prefixes() {
    let (db, _, _) = open(myrocks("disable_auto_compactions=true"));
    put_all(&db, 500, text);
    for i in 0..100 {
        let k = format!("nop-{i:07}-0000");
        assert!(db
            .get(&ReadOptions::default(), k.as_bytes())
            .expect("get")
            .is_none());
    }
    let useful = db
        .property_int("rocksdb.memtable-prefix-bloom-useful")
        .expect("property");
    assert!(
        useful >= 90,
        "memtable_prefix_bloom_size_ratio=0.05: {useful} of 100 answered"
    );
    let (db, _, _) = open(myrocks(
        "disable_auto_compactions=true;memtable_prefix_bloom_size_ratio=0",
    ));
    put_all(&db, 500, text);
    db.get(&ReadOptions::default(), b"nop-0000001-0000")
        .expect("get");
    assert_eq!(
        db.property_int("rocksdb.memtable-prefix-bloom-useful"),
        Some(0)
    );
}

#[test]
fn the_table_cache_is_unlimited_with_64_shards() {
    let (db, _, counts) = open(myrocks(
        "disable_auto_compactions=true;write_buffer_size=64k",
    ));
    assert_eq!(
        db.property_int("cairndb.table-cache-capacity"),
        Some(0),
        "max_open_files=-1"
    );
    assert_eq!(
        db.property_int("cairndb.table-cache-shards"),
        Some(64),
        "numshardbits=6"
    );
    for round in 0..40u32 {
        for i in 0..30 {
            db.put(&WriteOptions::default(), &key(round * 30 + i), &text(i))
                .expect("put");
        }
        db.flush().expect("flush");
    }
    assert!(db.num_l0_files() >= 40);
    for _ in 0..2 {
        for i in 0..1200 {
            db.get(&ReadOptions::default(), &key(i)).expect("get");
        }
    }
    let opens = counts.open_reads.lock();
    let tables: Vec<_> = opens.iter().filter(|(p, _)| kind(p) == "sst").collect();
    assert!(tables.len() >= 40);
    for (p, n) in tables {
        assert_eq!(*n, 1, "{} opened once: nothing is evicted", p.display());
    }
}

#[test]
fn write_behind_follows_bytes_per_sync_and_wal_bytes_per_sync() {
    // About 6 MiB of values that do not compress: a 6 MiB WAL and a 6 MiB table.
    let load = |extra: &str| {
        let (db, fs, counts) = open(myrocks(&format!("disable_auto_compactions=true;{extra}")));
        put_all(&db, 6000, |i| noise(u64::from(i), 1000));
        let wal_bytes: u64 = fs
            .list(Path::new(DIR))
            .expect("list")
            .iter()
            .filter(|n| n.ends_with(".log"))
            .map(|n| fs.size(&Path::new(DIR).join(n)).expect("size"))
            .sum();
        db.flush().expect("flush");
        (
            wal_bytes,
            counts.write_behinds("log"),
            counts.write_behinds("sst"),
        )
    };
    let (wal, wal_calls, sst_calls) = load("");
    assert!(wal > 5 << 20, "{wal}");
    // wal_bytes_per_sync=4 MiB: one write-behind per 4 MiB of log.
    assert_eq!(wal_calls, wal / (4 << 20), "WAL of {wal} bytes");
    assert_eq!(
        sst_calls, 0,
        "bytes_per_sync=16 MiB: a 6 MiB table needs none"
    );
    // Against the defaults (WAL off, tables every 1 MiB), the options changed both.
    let (_, wal_calls, sst_calls) = load("wal_bytes_per_sync=0;bytes_per_sync=1m");
    assert_eq!(wal_calls, 0);
    assert!(sst_calls >= 5, "{sst_calls}");
}

/// Compacts a history of small L0 files into L1; returns (compactions that wrote files,
/// subcompactions that wrote files, reads of table files during the compaction).
fn compact_history(extra: &str) -> (u64, u64, u64) {
    let (db, _, counts) = open(myrocks(&format!(
        "disable_auto_compactions=true;write_buffer_size=256k;target_file_size_base=64k;{extra}"
    )));
    for round in 0..8u32 {
        for i in 0..1500u32 {
            let k = (i * 7 + round * 13) % 3000;
            db.put(&WriteOptions::default(), &key(k), &text(k + round))
                .expect("put");
        }
        db.flush().expect("flush");
    }
    let before = counts.reads("sst");
    db.compact_range(None, None).expect("compact");
    let reads = counts.reads("sst") - before;
    let stats = db.compaction_stats_cf(&db.default_column_family());
    let jobs: u64 = stats
        .levels
        .iter()
        .map(|l| l.compactions - l.trivial_moves)
        .sum();
    let subs: u64 = stats.levels.iter().map(|l| l.subcompactions).sum();
    (jobs, subs, reads)
}

#[test]
fn compactions_split_into_subcompactions_and_read_ahead() {
    let (jobs, subs, _) = compact_history("");
    assert!(jobs >= 1);
    assert!(
        subs > jobs,
        "max_subcompactions=4: {jobs} jobs ran {subs} ranges"
    );
    let (jobs1, subs1, _) = compact_history("max_subcompactions=1");
    assert_eq!(jobs1, subs1, "one range per job without subcompactions");
    // One reader per input table (no subcompactions, whose parallel ranges share a table's
    // window): with readahead, each table costs its open (footer, metaindex, properties, index,
    // filter) and one window; block by block, one read per data block besides.
    let (_, _, reads) = compact_history("max_subcompactions=1");
    let (_, _, block_by_block) =
        compact_history("max_subcompactions=1;compaction_readahead_size=0");
    println!("compaction reads: {reads} with 16 MiB readahead, {block_by_block} without");
    assert!(
        reads * 2 < block_by_block,
        "compaction_readahead_size=16m: {reads} reads, {block_by_block} block by block"
    );
}
