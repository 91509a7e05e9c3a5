//! Block cache lookup throughput on hits, per policy, at 1 and 2 threads.
//!
//! Two key patterns: `uniform` spreads lookups over 16 Ki resident blocks (64 shards, so threads
//! rarely meet on a shard), `hot` sends every lookup to 8 blocks (threads meet on the same
//! shards and entries, which is where a shared-lock clock lookup and a mutex LRU lookup differ
//! most). Reported as lookups per second over all threads.
//!
//! Run with `cargo bench -p cairndb --bench cache`.

use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use cairndb::cache::{Cache, CacheKey, CacheOptions, CachePolicy};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Blocks resident in the cache.
const BLOCKS: u64 = 16 * 1024;
/// Charge of each block, as for 4 KiB data blocks.
const BLOCK_BYTES: usize = 4096;
/// Blocks the `hot` pattern looks up.
const HOT_BLOCKS: u64 = 8;

/// A cache holding all `BLOCKS` blocks of one table, with room to spare (nothing is evicted).
fn filled(policy: CachePolicy) -> (Cache<u64>, u64) {
    let opts = CacheOptions {
        policy,
        ..CacheOptions::with_capacity(2 * BLOCKS as usize * BLOCK_BYTES)
    };
    let cache = Cache::new(opts);
    let file_id = cache.new_file_id();
    for block in 0..BLOCKS {
        let key = CacheKey {
            file_id,
            offset: block * BLOCK_BYTES as u64,
        };
        drop(cache.insert(key, block, BLOCK_BYTES).expect("not strict"));
    }
    (cache, file_id)
}

/// `count` lookups of random blocks among the first `blocks`; every one must hit.
fn lookups(cache: &Cache<u64>, file_id: u64, blocks: u64, seed: u64, count: u64) {
    let mut state = seed | 1;
    for _ in 0..count {
        // xorshift64: cheap enough not to dominate a cache hit.
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let key = CacheKey {
            file_id,
            offset: (state % blocks) * BLOCK_BYTES as u64,
        };
        let handle = cache
            .lookup(black_box(&key))
            .expect("every block is resident");
        black_box(*handle);
    }
}

/// Wall time for each of `threads` threads to do `iters` lookups, started together.
fn timed(cache: &Cache<u64>, file_id: u64, blocks: u64, threads: usize, iters: u64) -> Duration {
    if threads == 1 {
        let start = Instant::now();
        lookups(cache, file_id, blocks, 0x9e37_79b9, iters);
        return start.elapsed();
    }
    let barrier = Barrier::new(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads as u64)
            .map(|t| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let start = Instant::now();
                    lookups(cache, file_id, blocks, 0x9e37_79b9 + t, iters);
                    start.elapsed()
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("bench thread"))
            .max()
            .unwrap_or_default()
    })
}

fn lookup_hits(c: &mut Criterion) {
    for (pattern, blocks) in [("uniform", BLOCKS), ("hot", HOT_BLOCKS)] {
        let mut group = c.benchmark_group(format!("cache_lookup_hit_{pattern}"));
        for policy in [CachePolicy::Clock, CachePolicy::Lru] {
            let (cache, file_id) = filled(policy);
            for threads in [1usize, 2] {
                group.throughput(Throughput::Elements(threads as u64));
                let id = BenchmarkId::new(format!("{policy:?}"), threads);
                group.bench_with_input(id, &threads, |b, &threads| {
                    b.iter_custom(|iters| timed(&cache, file_id, blocks, threads, iters));
                });
            }
        }
        group.finish();
    }
}

criterion_group!(benches, lookup_hits);
criterion_main!(benches);
