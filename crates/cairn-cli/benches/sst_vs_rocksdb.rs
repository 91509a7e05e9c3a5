//! The table format side by side with RocksDB's, on db_bench's keys and values.
//!
//! `cargo bench -p cairn-cli --features rocksdb --bench sst_vs_rocksdb [-- ROUNDS [NUM]]`
//!
//! For each compression (none, LZ4, Zstd), alternating CairnDB and RocksDB round by round:
//! - build: one SST of NUM entries (16-byte db_bench keys in order, 100-byte values of
//!   compression ratio 0.5), 4 KiB blocks, 10 bits/key Bloom filter, XXH3 block checksums,
//!   finished and synced; MB/s of raw key+value bytes and the file size;
//! - get: random point lookups of present keys on that table with every block in a 1 GiB
//!   cache (warmed by a full pass first). CairnDB: `Table::get`; RocksDB: `DB::get_pinned` on a
//!   database holding only that file (ingested), so RocksDB's figure includes its per-read
//!   overhead (super-version reference, empty memtable probe, file search).
//!
//! Prints medians and per-round ratios (CairnDB / RocksDB).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use cairndb::cache::{Cache, CacheOptions};
use cairndb::fs::{FileSystem, RealFs};
use cairndb::sstable::{Table, TableBuilder, TableOptions};
use cairndb::types::{append_internal_key, seek_key, CompressionType, ValueKind, MAX_SEQUENCE};
use rocksdb::{BlockBasedOptions, DBCompressionType, Options, SstFileWriter, DB};

#[path = "../src/bench/generator.rs"]
#[allow(dead_code, unused_imports)]
mod generator;
use generator::{key_from_int, Random64, ValueGenerator};

const KEY: usize = 16;
const VALUE: usize = 100;

fn cairn_options(
    c: CompressionType,
    cache: Option<Arc<cairndb::sstable::BlockCache>>,
) -> TableOptions {
    TableOptions {
        block_size: 4096,
        bloom_bits_per_key: 10.0,
        compression: c,
        block_cache: cache,
        ..TableOptions::default()
    }
}

fn rocks_options(c: CompressionType, cache_bytes: usize) -> Options {
    let mut t = BlockBasedOptions::default();
    t.set_block_size(4096);
    t.set_bloom_filter(10.0, false);
    t.set_checksum_type(rocksdb::ChecksumType::XXH3);
    t.set_block_cache(&rocksdb::Cache::new_lru_cache(cache_bytes));
    let mut o = Options::default();
    o.create_if_missing(true);
    o.set_block_based_table_factory(&t);
    o.set_compression_type(match c {
        CompressionType::None => DBCompressionType::None,
        CompressionType::Lz4 => DBCompressionType::Lz4,
        CompressionType::Zstd => DBCompressionType::Zstd,
    });
    o
}

/// Builds with CairnDB; returns (seconds, file size).
fn cairn_build(path: &Path, num: u64, c: CompressionType) -> (f64, u64) {
    let mut values = ValueGenerator::new(0.5, VALUE);
    let mut key = [0u8; KEY];
    let mut ikey = Vec::with_capacity(KEY + 8);
    let t = Instant::now();
    let file = RealFs.create(path).expect("create");
    let mut b = TableBuilder::new(file, path, &cairn_options(c, None)).expect("builder");
    for i in 0..num {
        key_from_int(i, &mut key);
        ikey.clear();
        append_internal_key(&mut ikey, &key, i + 1, ValueKind::Put as u8);
        b.add(&ikey, values.generate(VALUE)).expect("add");
    }
    let built = b.finish().expect("finish");
    (t.elapsed().as_secs_f64(), built.file_size)
}

/// Builds with RocksDB's SstFileWriter; returns (seconds, file size).
fn rocks_build(path: &Path, num: u64, c: CompressionType) -> (f64, u64) {
    let mut values = ValueGenerator::new(0.5, VALUE);
    let mut key = [0u8; KEY];
    let opts = rocks_options(c, 8 << 20);
    let t = Instant::now();
    let mut w = SstFileWriter::create(&opts);
    w.open(path).expect("open");
    for i in 0..num {
        key_from_int(i, &mut key);
        w.put(key, values.generate(VALUE)).expect("put");
    }
    w.finish().expect("finish");
    (
        t.elapsed().as_secs_f64(),
        std::fs::metadata(path).expect("stat").len(),
    )
}

/// Random gets of present keys; returns gets per second.
fn cairn_gets(path: &Path, num: u64, reads: u64, c: CompressionType) -> f64 {
    let cache = Arc::new(Cache::new(CacheOptions::with_capacity(1 << 30)));
    let size = RealFs.size(path).expect("size");
    let t = Table::open(
        RealFs.open_read(path).expect("open"),
        path,
        size,
        &cairn_options(c, Some(cache)),
    )
    .expect("table");
    let mut key = [0u8; KEY];
    for i in 0..num {
        key_from_int(i, &mut key);
        assert!(t.get(&seek_key(&key, MAX_SEQUENCE)).expect("get").is_some());
    }
    let mut rng = Random64::new(42);
    let start = Instant::now();
    for _ in 0..reads {
        key_from_int(rng.next_u64() % num, &mut key);
        assert!(t.get(&seek_key(&key, MAX_SEQUENCE)).expect("get").is_some());
    }
    reads as f64 / start.elapsed().as_secs_f64()
}

fn rocks_gets(sst: &Path, dbdir: &Path, num: u64, reads: u64, c: CompressionType) -> f64 {
    let db = DB::open(&rocks_options(c, 1 << 30), dbdir).expect("open db");
    db.ingest_external_file(vec![sst]).expect("ingest");
    let mut key = [0u8; KEY];
    for i in 0..num {
        key_from_int(i, &mut key);
        assert!(db.get_pinned(key).expect("get").is_some());
    }
    let mut rng = Random64::new(42);
    let start = Instant::now();
    for _ in 0..reads {
        key_from_int(rng.next_u64() % num, &mut key);
        assert!(db.get_pinned(key).expect("get").is_some());
    }
    reads as f64 / start.elapsed().as_secs_f64()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn report(what: &str, unit: &str, cairn: &mut [f64], rocks: &mut [f64]) {
    let ratios: Vec<String> = cairn
        .iter()
        .zip(rocks.iter())
        .map(|(c, r)| format!("{:.2}", c / r))
        .collect();
    let (mc, mr) = (median(cairn), median(rocks));
    println!("{what:<22} cairndb {mc:>12.1} {unit}  rocksdb {mr:>12.1} {unit}  ratio {:.2}  per round [{}]", mc / mr, ratios.join(", "));
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let rounds: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(3);
    let num: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let reads = num;
    let raw_mb = (num as f64) * (KEY + VALUE) as f64 / 1_048_576.0;
    println!(
        "{num} entries of {KEY}+{VALUE} bytes ({raw_mb:.1} MiB raw), {rounds} rounds, alternating"
    );
    for c in [
        CompressionType::None,
        CompressionType::Lz4,
        CompressionType::Zstd,
    ] {
        let (mut cb, mut rb, mut cg, mut rg) = (vec![], vec![], vec![], vec![]);
        let (mut csize, mut rsize) = (0, 0);
        for _ in 0..rounds {
            let dir = tempfile::tempdir().expect("tempdir");
            let (cp, rp) = (dir.path().join("c.sst"), dir.path().join("r.sst"));
            let (secs, size) = cairn_build(&cp, num, c);
            cb.push(raw_mb / secs);
            csize = size;
            let (secs, size) = rocks_build(&rp, num, c);
            rb.push(raw_mb / secs);
            rsize = size;
            cg.push(cairn_gets(&cp, num, reads, c));
            rg.push(rocks_gets(&rp, &dir.path().join("db"), num, reads, c));
        }
        println!(
            "-- compression {} (file size: cairndb {csize} bytes, rocksdb {rsize} bytes)",
            c.rocksdb_name()
        );
        report("build", "MB/s", &mut cb, &mut rb);
        report("cached point get", "ops/s", &mut cg, &mut rg);
    }
}
