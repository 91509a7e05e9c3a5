//! Table benchmarks: build throughput (MB/s of raw key+value bytes) for 16-byte keys and 100-byte
//! values with no compression, LZ4 and Zstd; point lookups per second on a 1M-entry table whose
//! blocks are all in the block cache, through the copying `get` and the zero-copy `get_pinned`;
//! batches of 32 lookups through `multi_get` against 32 `get_pinned` calls, for keys spread over
//! the table and for neighbouring keys; Bloom probe cost (ns per probe), with the measured false
//! positive rate at 10 bits/key printed.
//!
//! Run with `cargo bench -p cairndb --bench sstable`. Tables live in a `MemFs`, so the numbers are
//! CPU cost (encoding, compression, checksums, cache and block search), not device speed.

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use cairndb::cache::CacheOptions;
use cairndb::fs::{FileSystem, MemFs};
use cairndb::sstable::{
    Block, BlockCache, BlockKind, FilterBuilder, Table, TableBuilder, TableOptions,
};
use cairndb::types::{make_internal_key, seek_key, ValueKind, MAX_SEQUENCE};
use cairndb::CompressionType;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const VALUE_LEN: usize = 100;

/// db_bench-style 16-byte user key for index `i`.
fn user_key(i: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[8..].copy_from_slice(&i.to_be_bytes());
    k[..8].copy_from_slice(b"key00000");
    k
}

/// A value that compresses about 2:1, as db_bench's default compression ratio of 0.5.
fn value(i: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(VALUE_LEN);
    let mut x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    while v.len() < VALUE_LEN {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let b = (x >> 40) as u8;
        v.extend_from_slice(&[b, b]);
    }
    v.truncate(VALUE_LEN);
    v
}

fn build(fs: &MemFs, path: &Path, n: u64, opts: &TableOptions) -> u64 {
    let mut b = TableBuilder::new(fs.create(path).expect("create"), path, opts).expect("builder");
    for i in 0..n {
        b.add(
            &make_internal_key(&user_key(i), i + 1, ValueKind::Put),
            &value(i),
        )
        .expect("add");
    }
    b.finish().expect("finish").file_size
}

fn bench_build(c: &mut Criterion) {
    let n = 100_000u64;
    let mut g = c.benchmark_group("sst_build");
    g.throughput(Throughput::Bytes(n * (16 + 8 + VALUE_LEN as u64)));
    g.sample_size(10);
    for compression in [
        CompressionType::None,
        CompressionType::Lz4,
        CompressionType::Zstd,
    ] {
        let opts = TableOptions {
            compression,
            ..TableOptions::default()
        };
        g.bench_with_input(
            BenchmarkId::from_parameter(format!("{compression:?}")),
            &opts,
            |b, opts| {
                b.iter(|| {
                    let fs = MemFs::new();
                    black_box(build(&fs, Path::new("/b.sst"), n, opts))
                });
            },
        );
    }
    g.finish();
}

/// A table of `n` entries in a `MemFs` with every data block in a 1 GiB block cache.
fn cached_table(n: u64) -> Table {
    let fs = MemFs::new();
    let path = Path::new("/g.sst");
    let cache = Arc::new(BlockCache::new(CacheOptions::with_capacity(1 << 30)));
    let opts = TableOptions {
        block_cache: Some(Arc::clone(&cache)),
        ..TableOptions::default()
    };
    let size = build(&fs, path, n, &opts);
    let table = Table::open(fs.open_read(path).expect("open"), path, size, &opts).expect("table");
    // Warm: every data block into the cache, so lookups measure the in-memory path.
    for i in (0..n).step_by(10) {
        table.get_pinned(&user_key(i), MAX_SEQUENCE).expect("get");
    }
    table
}

/// Lookups in a 1M-entry table (about 130 MB of blocks: the search is bound by memory latency)
/// and in a 10K-entry table whose blocks stay in the CPU caches (the search is bound by CPU, so
/// the cost of copying key and value out shows).
fn bench_get(c: &mut Criterion) {
    for (n, name) in [
        (1_000_000u64, "sst_get_cached_1M"),
        (10_000, "sst_get_cached_10K"),
    ] {
        bench_get_in(c, n, name);
    }
}

fn bench_get_in(c: &mut Criterion, n: u64, name: &str) {
    let table = cached_table(n);
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(1));
    let mut i = 0u64;
    // `get` builds the seek key and copies key and value out (the API before `get_pinned`).
    g.bench_function("present", |b| {
        b.iter(|| {
            i = (i + 7_919) % n;
            black_box(
                table
                    .get(&seek_key(&user_key(i), MAX_SEQUENCE))
                    .expect("get"),
            )
        });
    });
    g.bench_function("present_pinned", |b| {
        b.iter(|| {
            i = (i + 7_919) % n;
            let got = table.get_pinned(&user_key(i), MAX_SEQUENCE).expect("get");
            black_box(got.map(|g| g.value().len()))
        });
    });
    g.bench_function("absent", |b| {
        b.iter(|| {
            i = (i + 7_919) % n;
            black_box(
                table
                    .get(&seek_key(&user_key(n + i), MAX_SEQUENCE))
                    .expect("get"),
            )
        });
    });
    g.bench_function("absent_pinned", |b| {
        b.iter(|| {
            i = (i + 7_919) % n;
            let got = table
                .get_pinned(&user_key(n + i), MAX_SEQUENCE)
                .expect("get");
            black_box(got.is_some())
        });
    });
    g.finish();
}

/// 32 present keys per batch, sorted: spread over the table (about one data block each), or
/// neighbours (a 4 KiB block holds about 30 entries, so they share one or two blocks).
fn bench_multi_get(c: &mut Criterion) {
    const BATCH: u64 = 32;
    let n = 1_000_000u64;
    let table = cached_table(n);
    let mut g = c.benchmark_group("sst_multi_get_32_cached_1M");
    g.throughput(Throughput::Elements(BATCH));
    let spread = |start: u64| -> Vec<[u8; 16]> {
        let mut keys: Vec<u64> = (0..BATCH).map(|j| (start + j * 31_249) % n).collect();
        keys.sort_unstable();
        keys.into_iter().map(user_key).collect()
    };
    let adjacent =
        |start: u64| -> Vec<[u8; 16]> { (0..BATCH).map(|j| user_key((start + j) % n)).collect() };
    for (name, make) in [
        ("spread", &spread as &dyn Fn(u64) -> Vec<[u8; 16]>),
        ("adjacent", &adjacent),
    ] {
        let mut i = 0u64;
        g.bench_function(format!("multi_get_{name}"), |b| {
            b.iter(|| {
                i = (i + 7_919) % (n - BATCH);
                let keys = make(i);
                let got = table.multi_get(&keys, MAX_SEQUENCE);
                black_box(got.iter().filter(|r| matches!(r, Ok(Some(_)))).count())
            });
        });
        g.bench_function(format!("get_pinned_x32_{name}"), |b| {
            b.iter(|| {
                i = (i + 7_919) % (n - BATCH);
                let keys = make(i);
                let found = keys
                    .iter()
                    .map(|k| table.get_pinned(k, MAX_SEQUENCE).expect("get"))
                    .filter(Option::is_some)
                    .count();
                black_box(found)
            });
        });
    }
    g.finish();
}

fn bench_bloom(c: &mut Criterion) {
    let n = 1_000_000u64;
    let mut fb = FilterBuilder::new(10.0, true, None);
    (0..n).for_each(|i| fb.add_user_key(&user_key(i)));
    let block = Block::parse(fb.finish().expect("keys"), BlockKind::Filter).expect("parse");
    let filter = block.filter().expect("filter");
    let fp = (n..2 * n)
        .filter(|&i| filter.may_contain(&user_key(i)))
        .count();
    println!(
        "bloom 10 bits/key: measured FPR {:.4}% over {n} absent keys",
        fp as f64 * 100.0 / n as f64
    );
    let mut g = c.benchmark_group("bloom_probe_10bpk");
    g.throughput(Throughput::Elements(1));
    let mut i = 0u64;
    g.bench_function("hash_and_probe", |b| {
        b.iter(|| {
            i = i.wrapping_add(1);
            black_box(filter.may_contain(&user_key(i % (2 * n))))
        });
    });
    g.finish();
}

criterion_group!(
    benches,
    bench_build,
    bench_get,
    bench_multi_get,
    bench_bloom
);
criterion_main!(benches);
