//! The block cache: sharded, charged in bytes, with handles that pin what they point at.
//!
//! A [`Cache`] maps a [`CacheKey`] (table file id, block offset) to a value charged a number of
//! bytes. Keys are spread over `2^shard_bits` shards by an XXH3 hash; each shard owns an equal
//! part of the capacity and evicts on its own, by one of two policies:
//! - [`CachePolicy::Clock`] (default), in the spirit of RocksDB's HyperClockCache: lookups take
//!   only a shared lock and touch nothing but atomics of the entry found, so readers of one shard
//!   do not serialize; a clock hand evicts entries whose usage counter has run down.
//! - [`CachePolicy::Lru`]: classic least-recently-used under a per-shard mutex.
//!
//! # Contract
//! - Callers: any thread. `Cache<V>` is `Send + Sync` and meant to be shared as `Arc<Cache<V>>`;
//!   every method takes `&self`. [`CacheHandle`]s may move to and drop on any thread, and may
//!   outlive the cache.
//! - Ownership: the cache owns the values of resident entries together with the handles to them;
//!   a value is dropped when it is neither resident nor referenced by a handle, outside any cache
//!   lock, so a value's `Drop` may use the cache.
//! - Locks: see `shard.rs`. No call holds more than one shard lock at a time.
//!
//! # Invariants
//! 1. A key has at most one resident entry, in the shard its hash selects.
//! 2. `usage()` is the sum of the charges of resident entries and of erased, replaced or evicted
//!    entries that handles still pin. `pinned_usage()` is the part of it with live handles.
//! 3. A pinned entry is never evicted; a handle always dereferences to the value that was
//!    inserted under its key, even after erase, replace or eviction pressure.
//! 4. Unpinned entries are evicted to keep each shard's usage within its capacity. With
//!    `strict_capacity_limit`, an insert that cannot fit once every unpinned entry of the shard
//!    is gone fails and caches nothing; without it, the insert goes in over capacity (as in
//!    RocksDB), and the shard evicts back down when the pins that prevented it are released.
//! 5. Each value is dropped exactly once.
//!
//! Hit, miss, insert and eviction counts are relaxed counters: exact once the cache is quiet,
//! approximate while it is in use.

mod clock;
mod entry;
mod handle;
mod hash;
mod lru;
mod shard;
mod slots;

#[cfg(test)]
mod tests;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use handle::CacheHandle;
use shard::Shard;

/// Shards are at least this large when their number is chosen automatically (as in RocksDB).
const MIN_AUTO_SHARD_BYTES: usize = 512 * 1024;
/// Most shard bits chosen automatically: 64 shards.
const MAX_AUTO_SHARD_BITS: u8 = 6;
/// Most shard bits accepted at all; larger requests are reduced to this.
pub const MAX_SHARD_BITS: u8 = 16;

/// How a shard chooses what to evict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CachePolicy {
    /// Clock eviction with per-entry usage counters (HyperClockCache-like); lookups do not take
    /// an exclusive lock. The default.
    #[default]
    Clock,
    /// Least recently used, under a mutex per shard.
    Lru,
}

/// How a [`Cache`] is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheOptions {
    /// Total capacity in bytes, split evenly over the shards.
    pub capacity_bytes: usize,
    /// Number of shards as a power of two. `None` chooses it from the capacity as RocksDB does:
    /// as many shards of at least 512 KiB as fit, at most 64. Values above [`MAX_SHARD_BITS`]
    /// are reduced to it.
    pub shard_bits: Option<u8>,
    /// The eviction policy.
    pub policy: CachePolicy,
    /// Refuse an insert rather than exceed the capacity when pinned entries fill a shard.
    pub strict_capacity_limit: bool,
}

impl CacheOptions {
    /// `bytes` of capacity, clock policy, automatic shard count, no strict limit.
    pub fn with_capacity(bytes: usize) -> Self {
        CacheOptions {
            capacity_bytes: bytes,
            shard_bits: None,
            policy: CachePolicy::Clock,
            strict_capacity_limit: false,
        }
    }

    /// The shard bits these options give: `shard_bits`, or the automatic choice.
    pub fn effective_shard_bits(&self) -> u8 {
        match self.shard_bits {
            Some(bits) => bits.min(MAX_SHARD_BITS),
            None => auto_shard_bits(self.capacity_bytes),
        }
    }
}

/// RocksDB's `GetDefaultCacheShardBits`: shards of at least 512 KiB, at most 64 of them.
fn auto_shard_bits(capacity_bytes: usize) -> u8 {
    let mut shards = capacity_bytes / MIN_AUTO_SHARD_BYTES;
    let mut bits = 0;
    while shards > 1 && bits < MAX_AUTO_SHARD_BITS {
        shards >>= 1;
        bits += 1;
    }
    bits
}

/// Identifies a cached block: the table it belongs to and its offset in that table's file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey {
    /// An id from [`Cache::new_file_id`], unique per opened table.
    pub file_id: u64,
    /// The block's offset in the file.
    pub offset: u64,
}

/// Counters of cache activity since the cache was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that found an entry.
    pub hits: u64,
    /// Lookups that found nothing.
    pub misses: u64,
    /// Successful inserts (including replacements).
    pub inserts: u64,
    /// Entries evicted to make room (not counting erased or replaced ones).
    pub evictions: u64,
}

impl CacheStats {
    /// Hits over lookups, or 0 when there were no lookups.
    pub fn hit_ratio(&self) -> f64 {
        let lookups = self.hits + self.misses;
        if lookups == 0 {
            0.0
        } else {
            self.hits as f64 / lookups as f64
        }
    }
}

/// A sharded block cache charged in bytes. See the [module documentation](self).
pub struct Cache<V: Send + Sync + 'static> {
    shards: Box<[Arc<Shard<V>>]>,
    shard_bits: u8,
    capacity: usize,
    policy: CachePolicy,
    next_file_id: AtomicU64,
}

impl<V: Send + Sync + 'static> Cache<V> {
    /// An empty cache. The capacity is split over the shards so that their capacities add up to
    /// exactly `opts.capacity_bytes`.
    pub fn new(opts: CacheOptions) -> Self {
        let shard_bits = opts.effective_shard_bits();
        let count = 1usize << shard_bits;
        let (base, extra) = (opts.capacity_bytes / count, opts.capacity_bytes % count);
        let shards = (0..count)
            .map(|i| {
                let capacity = base + usize::from(i < extra);
                Arc::new(Shard::new(
                    opts.policy,
                    capacity,
                    opts.strict_capacity_limit,
                ))
            })
            .collect();
        Cache {
            shards,
            shard_bits,
            capacity: opts.capacity_bytes,
            policy: opts.policy,
            next_file_id: AtomicU64::new(1),
        }
    }

    /// A new id for [`CacheKey::file_id`], unique among the ids of this cache (never 0).
    pub fn new_file_id(&self) -> u64 {
        self.next_file_id.fetch_add(1, Ordering::Relaxed)
    }

    fn shard(&self, key: &CacheKey) -> &Arc<Shard<V>> {
        &self.shards[hash::shard_index(key, self.shard_bits)]
    }

    /// The value cached under `key`, pinned for as long as the handle lives. Counts a hit or a
    /// miss. Under the clock policy this takes only a shared lock of the key's shard.
    pub fn lookup(&self, key: &CacheKey) -> Option<CacheHandle<V>> {
        self.shard(key).lookup(key).map(CacheHandle::from_pinned)
    }

    /// Caches `value` under `key`, charged `charge` bytes, and returns it pinned. An entry
    /// already cached under `key` is replaced (its handles keep the old value). Unpinned entries
    /// of the key's shard are evicted to make room.
    ///
    /// # Errors
    /// Only with `strict_capacity_limit`: [`Error::Busy`](crate::Error::Busy) when the value does
    /// not fit in its shard even after evicting every unpinned entry. Then nothing is cached, an
    /// entry already under `key` stays, and `value` is dropped.
    pub fn insert(&self, key: CacheKey, value: V, charge: usize) -> crate::Result<CacheHandle<V>> {
        self.shard(&key)
            .insert(key, value, charge)
            .map(CacheHandle::from_pinned)
    }

    /// Removes the entry for `key`, if any. Handles to it stay valid; its charge leaves the usage
    /// when the last of them drops.
    pub fn erase(&self, key: &CacheKey) {
        self.shard(key).erase(key);
    }

    /// The total capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes charged by cached entries, including pinned ones and erased ones still pinned.
    pub fn usage(&self) -> usize {
        self.shards.iter().map(|shard| shard.core.usage()).sum()
    }

    /// Bytes charged by entries that handles pin. Walks every shard: meant for statistics, not
    /// for hot paths.
    pub fn pinned_usage(&self) -> usize {
        self.shards.iter().map(|shard| shard.pinned_usage()).sum()
    }

    /// Number of resident entries (not counting erased entries that are still pinned).
    pub fn entry_count(&self) -> usize {
        self.shards.iter().map(|shard| shard.len()).sum()
    }

    /// Activity counters summed over the shards.
    pub fn stats(&self) -> CacheStats {
        let mut stats = CacheStats::default();
        for shard in self.shards.iter() {
            let core = &shard.core;
            stats.hits += core.hits.load(Ordering::Relaxed);
            stats.misses += core.misses.load(Ordering::Relaxed);
            stats.inserts += core.inserts.load(Ordering::Relaxed);
            stats.evictions += core.evictions.load(Ordering::Relaxed);
        }
        stats
    }

    /// The eviction policy.
    pub fn policy(&self) -> CachePolicy {
        self.policy
    }

    /// Number of shards (a power of two).
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// Sum of the charges of resident entries, for checking the usage accounting.
    #[cfg(test)]
    fn resident_charge(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| shard.resident_charge())
            .sum()
    }
}

impl<V: Send + Sync + 'static> fmt::Debug for Cache<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cache")
            .field("policy", &self.policy)
            .field("shards", &self.shards.len())
            .field("capacity", &self.capacity)
            .field("usage", &self.usage())
            .finish_non_exhaustive()
    }
}
