//! The clock policy of one shard, in the spirit of RocksDB's HyperClockCache.
//!
//! Contract: a [`ClockTable`] lives inside its shard's `RwLock`. [`ClockTable::lookup`] needs
//! only the shared (read) lock, so lookups on one shard run in parallel: they pin the entry and
//! raise its clock counter with atomic operations on the entry and change nothing in the table.
//! Insert, erase and eviction take the exclusive (write) lock.
//!
//! Each entry has a small usage counter (`Entry::clock`, 0..=[`CLOCK_MAX`]). A new entry starts
//! at [`CLOCK_INITIAL`]; every hit raises it by one, saturating. To find a victim the hand sweeps
//! the slots: a pinned entry is passed over untouched, an unpinned entry with a positive counter
//! has it lowered by one, an unpinned entry at zero is the victim. Entries that are hit between
//! two passes of the hand therefore stay, while entries used once (a scan) leave after at most
//! two passes, without a list to reorder on every hit.
//!
//! Invariants:
//! 1. `hand < slots.slot_count()` whenever there is a slot (it is reduced modulo that count on
//!    use, since the slot count only grows).
//! 2. The table never changes under the shared lock; only entry atomics do.
//! 3. A sweep visits at most `(CLOCK_MAX + 1) * slot_count` slots, which is enough to evict every
//!    unpinned entry: the counters cannot rise during a sweep because lookups need the shared
//!    lock, which the sweeping thread excludes.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::entry::Entry;
use super::shard::Table;
use super::slots::Slots;
use super::CacheKey;

/// Highest value of an entry's clock counter: an entry can survive this many passes of the
/// hand without being hit (plus the pass that finds it at zero).
pub(super) const CLOCK_MAX: u8 = 3;
/// Counter of a newly inserted entry: low, so a value read once leaves soon, but not zero, so it
/// survives one pass and a second read in the meantime marks it as worth keeping.
pub(super) const CLOCK_INITIAL: u8 = 1;

/// Resident entries of a clock shard and its hand.
pub(super) struct ClockTable<V> {
    slots: Slots<V>,
    /// The next slot the hand examines.
    hand: usize,
}

impl<V> ClockTable<V> {
    pub(super) fn new() -> Self {
        ClockTable {
            slots: Slots::new(),
            hand: 0,
        }
    }

    /// Pins the entry for `key` and records the hit. Requires the shared lock (or better).
    pub(super) fn lookup(&self, key: &CacheKey) -> Option<Arc<Entry<V>>> {
        let (_, entry) = self.slots.find(key)?;
        entry.pin();
        // Load before store: a hot entry already at the maximum costs no write, so readers of
        // one popular block do not bounce its cache line. A lost increment between two racing
        // readers is harmless.
        let count = entry.clock.load(Ordering::Relaxed);
        if count < CLOCK_MAX {
            entry.clock.store(count + 1, Ordering::Relaxed);
        }
        Some(Arc::clone(entry))
    }
}

impl<V> Table<V> for ClockTable<V> {
    fn slots(&self) -> &Slots<V> {
        &self.slots
    }

    fn add(&mut self, entry: Arc<Entry<V>>) {
        self.slots.add(entry);
    }

    fn remove(&mut self, slot: usize) -> Arc<Entry<V>> {
        self.slots.remove(slot)
    }

    fn sweep_budget(&self) -> usize {
        (usize::from(CLOCK_MAX) + 1) * self.slots.slot_count()
    }

    fn pick_victim(&mut self, protect: Option<usize>, budget: &mut usize) -> Option<usize> {
        let slot_count = self.slots.slot_count();
        while *budget > 0 && slot_count > 0 {
            *budget -= 1;
            let slot = self.hand % slot_count;
            self.hand = (slot + 1) % slot_count;
            let Some(entry) = self.slots.get(slot) else {
                continue;
            };
            if Some(slot) == protect || entry.refs() != 0 {
                continue;
            }
            let count = entry.clock.load(Ordering::Relaxed);
            if count == 0 {
                return Some(slot);
            }
            entry.clock.store(count - 1, Ordering::Relaxed);
        }
        None
    }
}
