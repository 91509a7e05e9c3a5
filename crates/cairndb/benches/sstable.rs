//! Table benchmarks: build throughput (MB/s of raw key+value bytes) for 16-byte keys and 100-byte
//! values with no compression, LZ4 and Zstd; point lookups per second on a 1M-entry table whose
//! blocks are all in the block cache; Bloom probe cost (ns per probe), with the measured false
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

fn bench_get(c: &mut Criterion) {
    let n = 1_000_000u64;
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
        table
            .get(&seek_key(&user_key(i), MAX_SEQUENCE))
            .expect("get");
    }
    let mut g = c.benchmark_group("sst_get_cached_1M");
    g.throughput(Throughput::Elements(1));
    let mut i = 0u64;
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

criterion_group!(benches, bench_build, bench_get, bench_bloom);
criterion_main!(benches);
