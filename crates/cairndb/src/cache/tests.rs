//! Tests of the cache contract, each run under both policies (`clock::name`, `lru::name`).

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::*;

fn key(file_id: u64, offset: u64) -> CacheKey {
    CacheKey { file_id, offset }
}

fn cache<V: Send + Sync + 'static>(
    policy: CachePolicy,
    capacity_bytes: usize,
    shard_bits: u8,
    strict_capacity_limit: bool,
) -> Cache<V> {
    Cache::new(CacheOptions {
        capacity_bytes,
        shard_bits: Some(shard_bits),
        policy,
        strict_capacity_limit,
    })
}

/// Records every drop of a [`Tracked`] value by its id.
struct DropLog {
    created: AtomicU64,
    drops: Vec<AtomicU32>,
}

impl DropLog {
    fn new(max_values: usize) -> Arc<Self> {
        Arc::new(DropLog {
            created: AtomicU64::new(0),
            drops: (0..max_values).map(|_| AtomicU32::new(0)).collect(),
        })
    }

    fn dropped(&self) -> usize {
        self.drops
            .iter()
            .filter(|d| d.load(Ordering::SeqCst) > 0)
            .count()
    }

    fn created(&self) -> usize {
        self.created.load(Ordering::SeqCst) as usize
    }

    /// Every value created was dropped exactly once.
    fn assert_all_dropped_once(&self) {
        let created = self.created();
        for (id, drops) in self.drops.iter().enumerate() {
            let expected = u32::from(id < created);
            assert_eq!(
                drops.load(Ordering::SeqCst),
                expected,
                "value {id} drop count"
            );
        }
    }
}

/// A value that carries its key and reports its drop.
struct Tracked {
    key: CacheKey,
    id: usize,
    log: Arc<DropLog>,
}

impl Tracked {
    fn new(log: &Arc<DropLog>, key: CacheKey) -> Self {
        let id = log.created.fetch_add(1, Ordering::SeqCst) as usize;
        assert!(id < log.drops.len(), "DropLog too small");
        Tracked {
            key,
            id,
            log: Arc::clone(log),
        }
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let before = self.log.drops[self.id].fetch_add(1, Ordering::SeqCst);
        assert_eq!(
            before, 0,
            "value {} of {:?} dropped twice",
            self.id, self.key
        );
    }
}

/// Checks the accounting of a quiet cache (no handles, no concurrent calls).
fn assert_quiet_accounting<V: Send + Sync + 'static>(cache: &Cache<V>) {
    assert_eq!(cache.pinned_usage(), 0);
    assert!(
        cache.usage() <= cache.capacity(),
        "{} > {}",
        cache.usage(),
        cache.capacity()
    );
    assert_eq!(cache.usage(), cache.resident_charge());
}

fn insert_lookup_replace_erase(policy: CachePolicy) {
    let cache = cache::<String>(policy, 1 << 20, 2, false);
    let a = key(1, 0);
    assert!(cache.lookup(&a).is_none());
    let h = cache.insert(a, "one".to_string(), 100).expect("insert");
    assert_eq!((h.key(), h.charge(), h.as_str()), (a, 100, "one"));
    drop(h);
    assert_eq!(cache.lookup(&a).as_deref().map(String::as_str), Some("one"));
    assert_eq!(cache.usage(), 100);

    drop(cache.insert(a, "two".to_string(), 30).expect("replace"));
    assert_eq!(cache.lookup(&a).as_deref().map(String::as_str), Some("two"));
    assert_eq!((cache.usage(), cache.entry_count()), (30, 1));

    cache.erase(&a);
    cache.erase(&a);
    cache.erase(&key(9, 9));
    assert!(cache.lookup(&a).is_none());
    assert_eq!((cache.usage(), cache.entry_count()), (0, 0));
    let stats = cache.stats();
    assert_eq!((stats.inserts, stats.evictions), (2, 0));
}

fn hit_and_miss_counters(policy: CachePolicy) {
    let cache = cache::<u64>(policy, 1 << 20, 3, false);
    assert!(cache.lookup(&key(1, 0)).is_none());
    drop(cache.insert(key(1, 0), 7, 10).expect("insert"));
    for _ in 0..3 {
        assert_eq!(cache.lookup(&key(1, 0)).as_deref(), Some(&7));
    }
    assert!(cache.lookup(&key(1, 4096)).is_none());
    cache.erase(&key(1, 0));
    assert!(cache.lookup(&key(1, 0)).is_none());
    let stats = cache.stats();
    assert_eq!(
        stats,
        CacheStats {
            hits: 3,
            misses: 3,
            inserts: 1,
            evictions: 0
        }
    );
    assert!((stats.hit_ratio() - 0.5).abs() < 1e-9);
}

fn usage_stays_within_capacity(policy: CachePolicy) {
    let capacity = 10_000;
    let cache = cache::<u64>(policy, capacity, 2, false);
    for i in 0..5_000u64 {
        let charge = 50 + (i as usize * 37) % 150;
        drop(
            cache
                .insert(key(i % 7, i * 4096), i, charge)
                .expect("insert"),
        );
        assert!(
            cache.usage() <= capacity,
            "after insert {i}: {}",
            cache.usage()
        );
    }
    let stats = cache.stats();
    assert_eq!(stats.inserts, 5_000);
    assert!(stats.evictions > 4_000, "{stats:?}");
    // Most of the capacity is in use: the shards do not evict more than needed.
    assert!(cache.usage() > capacity / 2, "{}", cache.usage());
    assert_quiet_accounting(&cache);
}

fn pinned_entries_survive_pressure(policy: CachePolicy) {
    let log = DropLog::new(10_000);
    let cache = cache::<Tracked>(policy, 1_000, 0, false);
    let (a, b) = (key(1, 0), key(1, 1));
    let held_a = cache
        .insert(a, Tracked::new(&log, a), 100)
        .expect("insert a");
    let held_b = cache
        .insert(b, Tracked::new(&log, b), 200)
        .expect("insert b");
    assert_eq!(cache.pinned_usage(), 300);
    for i in 0..1_000 {
        let k = key(2, i);
        drop(cache.insert(k, Tracked::new(&log, k), 100).expect("insert"));
    }
    // Pinned entries stayed resident through the pressure, and the rest fit in what is left.
    assert_eq!(cache.lookup(&a).map(|h| h.key), Some(a));
    assert_eq!(cache.lookup(&b).map(|h| h.key), Some(b));
    assert!(cache.usage() <= 1_000);
    assert_eq!(cache.pinned_usage(), 300);

    // Erased while pinned: gone from the cache, alive for its handle, still charged.
    let usage = cache.usage();
    let held_a2 = held_a.clone();
    cache.erase(&a);
    assert!(cache.lookup(&a).is_none());
    assert_eq!((held_a.key, held_a2.key), (a, a));
    assert_eq!(cache.usage(), usage);
    assert_eq!(cache.pinned_usage(), 300);
    drop(held_a);
    assert_eq!(
        cache.pinned_usage(),
        300,
        "a clone still pins the erased entry"
    );
    drop(held_a2);
    assert_eq!(cache.usage(), usage - 100);
    assert_eq!(cache.pinned_usage(), 200);

    // Replaced while pinned: the handle keeps the old value, lookups see the new one.
    let old_id = held_b.id;
    let new = cache
        .insert(b, Tracked::new(&log, b), 50)
        .expect("replace b");
    assert_ne!(new.id, old_id);
    assert_eq!(held_b.id, old_id);
    assert_eq!(cache.lookup(&b).map(|h| h.id), Some(new.id));
    assert_eq!(cache.pinned_usage(), 250);
    drop(new);
    drop(held_b);
    assert_eq!(log.drops[old_id].load(Ordering::SeqCst), 1);
    assert_quiet_accounting(&cache);
    drop(cache);
    log.assert_all_dropped_once();
}

fn pinned_usage_tracks_handles(policy: CachePolicy) {
    let cache = cache::<u64>(policy, 1 << 20, 2, false);
    let handles: Vec<_> = (0..10u64)
        .map(|i| cache.insert(key(1, i), i, 10 + i as usize).expect("insert"))
        .collect();
    assert_eq!(cache.pinned_usage(), (10..20).sum::<usize>());
    drop(handles);
    assert_eq!(cache.pinned_usage(), 0);
    let h1 = cache.lookup(&key(1, 3)).expect("hit");
    let h2 = cache.lookup(&key(1, 3)).expect("hit");
    let h3 = h2.clone();
    assert_eq!(cache.pinned_usage(), 13);
    drop((h1, h2));
    assert_eq!(cache.pinned_usage(), 13);
    drop(h3);
    assert_eq!(cache.pinned_usage(), 0);
    assert_eq!(cache.usage(), (10..20).sum::<usize>());
}

fn strict_limit_refuses_when_all_pinned(policy: CachePolicy) {
    let log = DropLog::new(100);
    let cache = cache::<Tracked>(policy, 1_000, 0, true);
    let mut held: Vec<_> = (0..4)
        .map(|i| {
            cache
                .insert(key(1, i), Tracked::new(&log, key(1, i)), 250)
                .expect("fits")
        })
        .collect();
    let refused = cache.insert(key(1, 9), Tracked::new(&log, key(1, 9)), 1);
    assert!(matches!(refused, Err(crate::Error::Busy(_))), "{refused:?}");
    assert_eq!(log.dropped(), 1, "the refused value is dropped, not cached");
    assert!(cache.lookup(&key(1, 9)).is_none());
    assert_eq!((cache.usage(), cache.pinned_usage()), (1_000, 1_000));

    // Replacing a pinned entry needs room for both: refused, and the old entry stays.
    let refused = cache.insert(key(1, 0), Tracked::new(&log, key(1, 0)), 250);
    assert!(refused.is_err());
    assert_eq!(cache.lookup(&key(1, 0)).map(|h| h.id), Some(held[0].id));

    // Unpinned entries make room; an unpinned entry being replaced counts as room.
    drop(held.pop());
    drop(
        cache
            .insert(key(1, 2), Tracked::new(&log, key(1, 2)), 250)
            .expect("replace"),
    );
    drop(
        cache
            .insert(key(1, 9), Tracked::new(&log, key(1, 9)), 250)
            .expect("room freed"),
    );
    assert!(cache.usage() <= 1_000);
    drop(held);
    assert_quiet_accounting(&cache);
    drop(cache);
    log.assert_all_dropped_once();
}

fn over_capacity_until_pins_released(policy: CachePolicy) {
    let cache = cache::<u64>(policy, 1_000, 0, false);
    let held: Vec<_> = (0..6u64)
        .map(|i| cache.insert(key(1, i), i, 250).expect("not strict"))
        .collect();
    assert_eq!(cache.usage(), 1_500);
    assert_eq!(cache.entry_count(), 6);
    drop(held);
    // The releases evicted back down to the capacity.
    assert_quiet_accounting(&cache);
    assert_eq!(cache.usage(), 1_000);
    // A charge larger than a whole shard still goes in without the strict limit.
    let big = cache.insert(key(2, 0), 99, 5_000).expect("not strict");
    assert_eq!(cache.usage(), 5_000, "everything unpinned was evicted");
    drop(big);
    assert_quiet_accounting(&cache);
}

fn values_dropped_exactly_once(policy: CachePolicy) {
    let log = DropLog::new(10_000);
    let cache = cache::<Tracked>(policy, 2_000, 1, false);
    let mut outliving = Vec::new();
    for i in 0..3_000u64 {
        let k = key(i % 3, i % 97);
        let h = cache.insert(k, Tracked::new(&log, k), 100).expect("insert");
        match i % 5 {
            0 => cache.erase(&k),
            1 if i % 100 == 1 => outliving.push(h),
            _ => {}
        }
    }
    let strict = super::tests::cache::<Tracked>(policy, 100, 0, true);
    let pin = strict
        .insert(key(0, 0), Tracked::new(&log, key(0, 0)), 100)
        .expect("fits");
    assert!(strict
        .insert(key(0, 1), Tracked::new(&log, key(0, 1)), 100)
        .is_err());
    drop((pin, strict));
    assert!(
        log.dropped() < log.created(),
        "resident and pinned values are alive"
    );
    drop(cache);
    assert_eq!(log.dropped() + outliving.len(), log.created());
    // Handles outlive the cache and keep reading their value.
    for h in &outliving {
        assert_eq!(h.key.offset, h.key.offset % 97);
    }
    drop(outliving);
    log.assert_all_dropped_once();
}

/// Random lookups, inserts, erases and handle drops from several threads; each handle must
/// deref to the value of its own key, and the accounting must balance at the end.
fn concurrent_random_ops(policy: CachePolicy, strict: bool) {
    const THREADS: usize = 6;
    const OPS: usize = 20_000;
    const KEYS: u64 = 60;
    let log = DropLog::new(THREADS * OPS);
    // Up to 6 * 8 handles of ~110 bytes pin far more than a shard's 300 bytes: strict inserts
    // get refused, others go over capacity and releases must evict back down. Few keys keep
    // the hit rate (pins by lookup) up in so small a cache.
    let cache = Arc::new(cache::<Tracked>(policy, 1_200, 2, strict));
    let start = Arc::new(Barrier::new(THREADS));
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let (cache, log, start) = (Arc::clone(&cache), Arc::clone(&log), Arc::clone(&start));
            std::thread::spawn(move || {
                let mut rng = SmallRng::seed_from_u64(t as u64);
                let mut held: VecDeque<CacheHandle<Tracked>> = VecDeque::new();
                let mut refused = 0u64;
                start.wait();
                for _ in 0..OPS {
                    let k = key(rng.gen_range(0..3), rng.gen_range(0..KEYS / 3));
                    match rng.gen_range(0..100) {
                        0..=49 => {
                            if let Some(h) = cache.lookup(&k) {
                                assert_eq!(h.key, k);
                                assert_eq!(h.key(), k);
                                held.push_back(h);
                            }
                        }
                        50..=79 => {
                            match cache.insert(k, Tracked::new(&log, k), rng.gen_range(20..200)) {
                                Ok(h) => {
                                    assert_eq!(h.key, k);
                                    held.push_back(h);
                                }
                                Err(_) => {
                                    assert!(strict, "only a strict cache refuses");
                                    refused += 1;
                                }
                            }
                        }
                        80..=89 => cache.erase(&k),
                        _ => {
                            if let Some(h) = held.pop_front() {
                                let copy = h.clone();
                                assert_eq!(copy.key, h.key());
                            }
                        }
                    }
                    // Hold up to 8 handles for a while, checking them as they go.
                    while held.len() > rng.gen_range(0..8) {
                        let h = held.pop_front().expect("non-empty");
                        assert_eq!(h.key, h.key());
                    }
                }
                for h in &held {
                    assert_eq!(h.key, h.key());
                }
                refused
            })
        })
        .collect();
    let refused: u64 = threads
        .into_iter()
        .map(|t| t.join().expect("worker thread"))
        .sum();
    assert_eq!(refused > 0, strict, "refused inserts: {refused}");
    assert_quiet_accounting(&cache);
    let stats = cache.stats();
    assert!(
        stats.hits > 0 && stats.misses > 0 && stats.evictions > 0,
        "{stats:?}"
    );
    assert_eq!(log.created() - log.dropped(), cache.entry_count());
    drop(cache);
    log.assert_all_dropped_once();
}

fn concurrent_random_ops_not_strict(policy: CachePolicy) {
    concurrent_random_ops(policy, false);
}

fn concurrent_random_ops_strict(policy: CachePolicy) {
    concurrent_random_ops(policy, true);
}

/// Several threads hammer a few hot keys in one shard while others insert and erase them, so
/// that pins, releases, detaches and the over-capacity release path race on the same entries.
fn concurrent_hot_keys(policy: CachePolicy) {
    const THREADS: usize = 4;
    let log = DropLog::new(THREADS * 20_000);
    let cache = Arc::new(cache::<Tracked>(policy, 300, 0, false));
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let (cache, log) = (Arc::clone(&cache), Arc::clone(&log));
            std::thread::spawn(move || {
                let mut rng = SmallRng::seed_from_u64(100 + t as u64);
                for _ in 0..20_000 {
                    let k = key(0, rng.gen_range(0..4));
                    match rng.gen_range(0..10) {
                        0..=5 => {
                            if let Some(h) = cache.lookup(&k) {
                                assert_eq!(h.key, k);
                            }
                        }
                        6..=8 => {
                            let h = cache.insert(k, Tracked::new(&log, k), 100).expect("insert");
                            assert_eq!(h.key, k);
                        }
                        _ => cache.erase(&k),
                    }
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("worker thread");
    }
    assert_quiet_accounting(&cache);
    drop(cache);
    log.assert_all_dropped_once();
}

/// A few hot entries, looked up regularly, against a long scan of blocks read once. A FIFO cache
/// of the same size loses the hot entries to the scan again and again; clock (and LRU) keep them.
fn hot_entries_survive_scan_better_than_fifo(policy: CachePolicy) {
    const CAPACITY: usize = 100;
    const HOT: u64 = 10;
    let cache = cache::<u64>(policy, CAPACITY, 0, false);
    let mut fifo: VecDeque<CacheKey> = VecDeque::new();
    let fifo_insert = |fifo: &mut VecDeque<CacheKey>, k: CacheKey| {
        if fifo.len() == CAPACITY {
            fifo.pop_front();
        }
        fifo.push_back(k);
    };
    for h in 0..HOT {
        drop(cache.insert(key(0, h), h, 1).expect("insert"));
        fifo_insert(&mut fifo, key(0, h));
        for _ in 0..3 {
            assert!(cache.lookup(&key(0, h)).is_some());
        }
    }
    let (mut cache_misses, mut fifo_misses) = (0, 0);
    for i in 0..3_000u64 {
        let cold = key(1, i);
        drop(cache.insert(cold, i, 1).expect("insert"));
        fifo_insert(&mut fifo, cold);
        if i % 25 == 24 {
            for h in 0..HOT {
                let k = key(0, h);
                if cache.lookup(&k).is_none() {
                    cache_misses += 1;
                    drop(cache.insert(k, h, 1).expect("insert"));
                }
                if !fifo.contains(&k) {
                    fifo_misses += 1;
                    fifo_insert(&mut fifo, k);
                }
            }
        }
    }
    assert!(
        fifo_misses > 0,
        "the scan must be long enough to push hot entries out of a FIFO"
    );
    assert!(
        cache_misses < fifo_misses,
        "{policy:?}: {cache_misses} vs FIFO {fifo_misses}"
    );
    assert_quiet_accounting(&cache);
}

fn shard_count_follows_options(policy: CachePolicy) {
    let with = |capacity_bytes, shard_bits| {
        Cache::<u64>::new(CacheOptions {
            shard_bits,
            policy,
            ..CacheOptions::with_capacity(capacity_bytes)
        })
        .shard_count()
    };
    // Automatic: shards of at least 512 KiB, at most 64 (RocksDB's rule).
    assert_eq!(with(0, None), 1);
    assert_eq!(with(100 << 10, None), 1);
    assert_eq!(with(1 << 20, None), 2);
    assert_eq!(with(3 << 20, None), 4);
    assert_eq!(with(8 << 20, None), 16);
    assert_eq!(with(32 << 20, None), 64);
    assert_eq!(with(1 << 30, None), 64);
    assert_eq!(with(1 << 20, Some(3)), 8);
    assert_eq!(with(1 << 20, Some(40)), 1 << MAX_SHARD_BITS);
    // Shard capacities add up to the total exactly.
    let cache = cache::<u64>(policy, 1_003, 3, false);
    let total: usize = cache.shards.iter().map(|s| s.core.capacity).sum();
    assert_eq!((total, cache.capacity()), (1_003, 1_003));
    assert_eq!(cache.policy(), policy);
}

fn file_ids_are_unique(policy: CachePolicy) {
    let cache = Arc::new(cache::<u64>(policy, 1 << 20, 0, false));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let cache = Arc::clone(&cache);
            std::thread::spawn(move || (0..1_000).map(|_| cache.new_file_id()).collect::<Vec<_>>())
        })
        .collect();
    let mut ids = HashSet::new();
    for thread in threads {
        for id in thread.join().expect("worker thread") {
            assert_ne!(id, 0);
            assert!(ids.insert(id), "duplicate file id {id}");
        }
    }
}

/// Runs each named test function under both policies, as `clock::name` and `lru::name`.
macro_rules! for_both_policies {
    ($($name:ident),* $(,)?) => {
        mod clock {
            $(#[test] fn $name() { super::$name(super::CachePolicy::Clock); })*
        }
        mod lru {
            $(#[test] fn $name() { super::$name(super::CachePolicy::Lru); })*
        }
    };
}

for_both_policies!(
    insert_lookup_replace_erase,
    hit_and_miss_counters,
    usage_stays_within_capacity,
    pinned_entries_survive_pressure,
    pinned_usage_tracks_handles,
    strict_limit_refuses_when_all_pinned,
    over_capacity_until_pins_released,
    values_dropped_exactly_once,
    concurrent_random_ops_not_strict,
    concurrent_random_ops_strict,
    concurrent_hot_keys,
    hot_entries_survive_scan_better_than_fifo,
    shard_count_follows_options,
    file_ids_are_unique,
);

#[test]
fn cache_and_handles_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Cache<Vec<u8>>>();
    send_sync::<Arc<Cache<Vec<u8>>>>();
    send_sync::<CacheHandle<Vec<u8>>>();
}

#[test]
fn lru_evicts_least_recently_used_first() {
    let cache = cache::<u64>(CachePolicy::Lru, 3, 0, false);
    for i in 0..3 {
        drop(cache.insert(key(0, i), i, 1).expect("insert"));
    }
    drop(cache.lookup(&key(0, 0)));
    let order = cache.shards[0].lru_order().expect("lru shard");
    assert_eq!(order, vec![key(0, 0), key(0, 2), key(0, 1)]);
    drop(cache.insert(key(0, 3), 3, 1).expect("insert"));
    assert!(
        cache.lookup(&key(0, 1)).is_none(),
        "least recently used is evicted"
    );
    assert!(cache.lookup(&key(0, 0)).is_some());
    assert!(cache.lookup(&key(0, 2)).is_some());
}

#[test]
fn clock_gives_new_entries_one_pass() {
    // Capacity for two entries; a is hit, b is not. The hand passes both once (a: 2 -> 1,
    // b: 1 -> 0), wraps, lowers a again and evicts b.
    let cache = cache::<u64>(CachePolicy::Clock, 2, 0, false);
    drop(cache.insert(key(0, 0), 0, 1).expect("insert"));
    drop(cache.insert(key(0, 1), 1, 1).expect("insert"));
    drop(cache.lookup(&key(0, 0)));
    drop(cache.insert(key(0, 2), 2, 1).expect("insert"));
    assert!(cache.lookup(&key(0, 0)).is_some(), "the hit entry stays");
    assert!(
        cache.lookup(&key(0, 1)).is_none(),
        "the entry never hit goes"
    );
    assert_eq!(cache.stats().evictions, 1);
}
