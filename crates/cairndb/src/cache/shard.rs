//! One shard of the cache: a policy table behind a lock, and the admission and eviction logic
//! shared by both policies.
//!
//! Contract: a [`Shard`] is shared (`Arc`) by the cache and reached weakly from its entries. Any
//! thread may call any method. Locking:
//! - clock lookups take the shard `RwLock` shared; LRU lookups take the shard `Mutex`;
//! - insert, erase and eviction take the lock exclusively (write lock or mutex);
//! - handle clone and release take no lock, except a last release over capacity, which evicts.
//!
//! Invariants:
//! 1. `core.usage` equals the sum of the charges of resident entries plus those of detached
//!    entries with handles, except transiently inside `insert_locked`, which adds the charge of
//!    the incoming entry first and takes it back if the insert fails.
//! 2. When the exclusive lock is released after an insert, usage <= capacity, unless every
//!    resident entry left is pinned (or is the new one); with the strict limit, the insert
//!    fails instead of exceeding. Without it, each entry that was passed over as pinned evicts
//!    itself when its last handle goes while the shard is still over capacity
//!    (`evict_released`), so a quiet shard is within capacity again.
//! 3. Entries taken out of the table are dropped only after the lock is released
//!    (`Garbage`), so a value's `Drop` never runs under a shard lock.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

use super::clock::{ClockTable, CLOCK_INITIAL};
use super::entry::{Entry, ShardCore};
use super::lru::LruTable;
use super::slots::Slots;
use super::{CacheKey, CachePolicy};
use crate::{Error, Result};

/// What a policy provides to the shared admission and eviction logic. Every method requires the
/// shard lock held exclusively, except `slots`, which a shared lock suffices for.
pub(super) trait Table<V> {
    /// The resident index.
    fn slots(&self) -> &Slots<V>;
    /// Makes `entry` resident; its key must not be.
    fn add(&mut self, entry: Arc<Entry<V>>);
    /// Takes the entry in `slot` out of the table.
    fn remove(&mut self, slot: usize) -> Arc<Entry<V>>;
    /// How many entries one eviction pass may examine, in total, so that it ends even when
    /// everything is pinned.
    fn sweep_budget(&self) -> usize;
    /// The slot of an unpinned entry to evict (never `protect`), spending `budget`; `None` when
    /// the budget runs out or there is nothing to evict.
    fn pick_victim(&mut self, protect: Option<usize>, budget: &mut usize) -> Option<usize>;
}

/// Entries taken out of a table, to be dropped after the shard lock is released.
type Garbage<V> = Vec<Arc<Entry<V>>>;

/// The policy table of a shard behind its lock.
enum Locked<V> {
    Clock(RwLock<ClockTable<V>>),
    Lru(Mutex<LruTable<V>>),
}

/// One shard: its accounting and its policy table.
pub(super) struct Shard<V> {
    pub(super) core: Arc<ShardCore>,
    table: Locked<V>,
}

impl<V> Shard<V> {
    /// An empty shard of `capacity` bytes.
    pub(super) fn new(policy: CachePolicy, capacity: usize, strict_capacity_limit: bool) -> Self {
        let table = match policy {
            CachePolicy::Clock => Locked::Clock(RwLock::new(ClockTable::new())),
            CachePolicy::Lru => Locked::Lru(Mutex::new(LruTable::new())),
        };
        Shard {
            core: Arc::new(ShardCore::new(capacity, strict_capacity_limit)),
            table,
        }
    }

    /// Runs `f` with the table under the exclusive lock.
    fn exclusive<R>(&self, f: impl FnOnce(&mut dyn Table<V>) -> R) -> R {
        match &self.table {
            Locked::Clock(table) => f(&mut *table.write()),
            Locked::Lru(table) => f(&mut *table.lock()),
        }
    }

    /// Runs `f` on the resident index under a lock that keeps the table still.
    fn resident<R>(&self, f: impl FnOnce(&Slots<V>) -> R) -> R {
        match &self.table {
            Locked::Clock(table) => f(table.read().slots()),
            Locked::Lru(table) => f(table.lock().slots()),
        }
    }

    /// Pins and returns the entry for `key`, counting a hit or a miss.
    pub(super) fn lookup(&self, key: &CacheKey) -> Option<Arc<Entry<V>>> {
        let found = match &self.table {
            Locked::Clock(table) => table.read().lookup(key),
            Locked::Lru(table) => table.lock().lookup(key),
        };
        let counter = if found.is_some() {
            &self.core.hits
        } else {
            &self.core.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Inserts `value` under `key`, replacing any resident entry, and returns it pinned.
    ///
    /// # Errors
    /// [`Error::Busy`] with the strict capacity limit when the value does not fit even after
    /// evicting every unpinned entry; then nothing changes and `value` is dropped.
    pub(super) fn insert(
        self: &Arc<Self>,
        key: CacheKey,
        value: V,
        charge: usize,
    ) -> Result<Arc<Entry<V>>> {
        let entry = Arc::new(Entry::new_pinned(
            key,
            value,
            charge,
            CLOCK_INITIAL,
            Arc::clone(&self.core),
            Arc::downgrade(self),
        ));
        let mut garbage = Garbage::new();
        let inserted =
            self.exclusive(|table| insert_locked(table, &self.core, &entry, &mut garbage));
        drop(garbage);
        inserted.map(|()| entry)
    }

    /// Removes the entry for `key`, if resident. Handles to it stay valid.
    pub(super) fn erase(&self, key: &CacheKey) {
        let mut garbage = Garbage::new();
        self.exclusive(|table| {
            if let Some((slot, _)) = table.slots().find(key) {
                let entry = table.remove(slot);
                entry.detach();
                garbage.push(entry);
            }
        });
    }

    /// Called by the release of the last handle of resident `entry` when it saw the shard over
    /// capacity: evicts `entry` if the shard is still over capacity and nothing re-pinned it.
    ///
    /// Only this entry, not a sweep: O(1) even when pins fill the shard, as in RocksDB. That is
    /// enough to end up within capacity once all pins are gone, because every entry that an
    /// over-capacity insert passed over was pinned then, and its last release comes here (or
    /// sees usage back within capacity). Checking usage under the lock, rather than trusting
    /// the caller's unlocked read, skips evictions that a concurrent insert's transient
    /// reservation would have caused.
    pub(super) fn evict_released(&self, entry: &Entry<V>) {
        let mut garbage = Garbage::new();
        self.exclusive(|table| {
            if self.core.usage() <= self.core.capacity || entry.refs() != 0 {
                return;
            }
            let Some((slot, resident)) = table.slots().find(&entry.key) else {
                return;
            };
            // The key may have been erased and inserted again since: only evict this entry.
            if !std::ptr::eq(Arc::as_ptr(resident), entry) {
                return;
            }
            let victim = table.remove(slot);
            let pinned = victim.detach();
            assert!(!pinned, "evicted a pinned cache entry {:?}", victim.key);
            self.core.evictions.fetch_add(1, Ordering::Relaxed);
            garbage.push(victim);
        });
    }

    /// Sum of the charges of entries with handles, resident or detached.
    pub(super) fn pinned_usage(&self) -> usize {
        self.resident(|slots| {
            let resident: usize = slots
                .iter()
                .filter(|entry| entry.refs() != 0)
                .map(|entry| entry.charge)
                .sum();
            resident + self.core.detached_pinned.load(Ordering::SeqCst)
        })
    }

    /// Number of resident entries.
    pub(super) fn len(&self) -> usize {
        self.resident(Slots::len)
    }

    /// Sum of the charges of resident entries (for checking invariant 1 in tests).
    #[cfg(test)]
    pub(super) fn resident_charge(&self) -> usize {
        self.resident(|slots| slots.iter().map(|entry| entry.charge).sum())
    }

    /// Resident keys from most to least recently used; `None` for a clock shard.
    #[cfg(test)]
    pub(super) fn lru_order(&self) -> Option<Vec<CacheKey>> {
        match &self.table {
            Locked::Clock(_) => None,
            Locked::Lru(table) => Some(table.lock().keys_by_recency()),
        }
    }
}

/// Admits `entry` (pinned once, for the caller's handle) into `table`.
fn insert_locked<V>(
    table: &mut dyn Table<V>,
    core: &ShardCore,
    entry: &Arc<Entry<V>>,
    garbage: &mut Garbage<V>,
) -> Result<()> {
    let charge = entry.charge;
    // Added before victims are chosen; see `Entry::release` for why this order matters.
    core.usage.fetch_add(charge, Ordering::SeqCst);
    let old = table.slots().find(&entry.key);
    // An unpinned entry being replaced frees its charge when the new one goes in: count it as
    // room, and keep the sweep off it, so a failed strict insert leaves it in place.
    let reclaim = old
        .filter(|(_, e)| e.refs() == 0)
        .map_or(0, |(_, e)| e.charge);
    let old = old.map(|(slot, _)| slot);
    evict_locked(table, core, reclaim, old, garbage);
    let usage = core.usage().saturating_sub(reclaim);
    if core.strict_capacity_limit && usage > core.capacity {
        core.usage.fetch_sub(charge, Ordering::SeqCst);
        return Err(Error::Busy(format!(
            "block cache shard full of pinned entries: {} bytes needed, {} of {} in use",
            charge,
            usage.saturating_sub(charge),
            core.capacity
        )));
    }
    if let Some(slot) = old {
        let replaced = table.remove(slot);
        replaced.detach();
        garbage.push(replaced);
    }
    table.add(Arc::clone(entry));
    core.inserts.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

/// Evicts unpinned entries other than `protect` while usage, less `reclaim`, exceeds capacity.
fn evict_locked<V>(
    table: &mut dyn Table<V>,
    core: &ShardCore,
    reclaim: usize,
    protect: Option<usize>,
    garbage: &mut Garbage<V>,
) {
    let mut budget = table.sweep_budget();
    while core.usage().saturating_sub(reclaim) > core.capacity {
        let Some(slot) = table.pick_victim(protect, &mut budget) else {
            break;
        };
        let victim = table.remove(slot);
        let pinned = victim.detach();
        assert!(!pinned, "evicted a pinned cache entry {:?}", victim.key);
        core.evictions.fetch_add(1, Ordering::Relaxed);
        garbage.push(victim);
    }
}
