//! One cached value and the atomic protocol that pins, unpins and detaches it.
//!
//! Contract: an [`Entry`] is shared by its shard table (one `Arc` while resident) and by every
//! [`CacheHandle`](super::CacheHandle) to it (one `Arc` each). Any thread may pin (through a
//! lookup or insert, under the shard lock), clone a handle or release one (no lock). Only a
//! thread holding the shard lock exclusively may detach (take the entry out of the table).
//!
//! The state word packs the handle count (bits 0..63) and a DETACHED flag (bit 63). It is
//! changed only by atomic read-modify-write operations, which gives:
//!
//! Invariants:
//! 1. The handle count goes from 0 to 1 only under the shard lock (lookup or insert); a handle
//!    clone starts from a count of at least 1. So a thread holding the shard lock exclusively
//!    sees a count of 0 stay 0: an entry it finds unpinned it may evict.
//! 2. DETACHED is set once, under the exclusive shard lock, when the entry leaves the table
//!    (evict, erase, replace); a detached entry is never found by a lookup again.
//! 3. Exactly one party subtracts a detached entry's charge from the shard usage: the detacher
//!    if it saw no handles, else the handle release that takes the count from 1 to 0 and sees
//!    DETACHED. Both act through one read-modify-write of the same word, so exactly one sees
//!    the other's change.
//! 4. A detached entry with handles counts in `detached_pinned` of its shard from before its
//!    DETACHED flag is visible until its last handle is released; so that counter never
//!    underflows.
//! 5. The value is dropped when the last `Arc` goes, which is never inside a shard lock: the
//!    shard drops the `Arc`s it takes out only after unlocking.

use std::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

use super::shard::Shard;
use super::CacheKey;

/// Flag in [`Entry::state`]: the entry is no longer in its shard's table.
const DETACHED: u64 = 1 << 63;
/// Mask of the handle count in [`Entry::state`].
const REFS: u64 = DETACHED - 1;

/// Accounting and statistics of one shard, shared with that shard's entries.
///
/// Kept apart from the table so that a handle can settle accounting without the shard lock, and
/// so that entries can point at it without keeping the table (and themselves) alive.
#[derive(Debug)]
pub(super) struct ShardCore {
    /// This shard's part of the cache capacity, in bytes.
    pub(super) capacity: usize,
    /// Refuse inserts that do not fit once every unpinned entry is gone.
    pub(super) strict_capacity_limit: bool,
    /// Sum of the charges of resident entries and of detached entries that still have handles.
    pub(super) usage: AtomicUsize,
    /// Sum of the charges of detached entries that still have handles (invariant 4).
    pub(super) detached_pinned: AtomicUsize,
    pub(super) hits: AtomicU64,
    pub(super) misses: AtomicU64,
    pub(super) inserts: AtomicU64,
    pub(super) evictions: AtomicU64,
}

impl ShardCore {
    pub(super) fn new(capacity: usize, strict_capacity_limit: bool) -> Self {
        ShardCore {
            capacity,
            strict_capacity_limit,
            usage: AtomicUsize::new(0),
            detached_pinned: AtomicUsize::new(0),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            inserts: AtomicU64::new(0),
            evictions: AtomicU64::new(0),
        }
    }

    /// Current usage. `SeqCst` pairs with [`Entry::release`]; see there.
    pub(super) fn usage(&self) -> usize {
        self.usage.load(Ordering::SeqCst)
    }
}

/// A cached value with its key, charge and pin state.
pub(super) struct Entry<V> {
    pub(super) key: CacheKey,
    /// Bytes this entry counts for in the shard usage; fixed for the entry's life.
    pub(super) charge: usize,
    pub(super) value: V,
    /// Handle count and DETACHED flag (see the module invariants).
    state: AtomicU64,
    /// Clock policy only: the usage counter the clock hand counts down (0..=`CLOCK_MAX`).
    pub(super) clock: AtomicU8,
    core: Arc<ShardCore>,
    /// The shard, to evict from when the last handle is released over capacity. Weak, because
    /// the shard owns its entries: a strong pointer would be a cycle that is never freed.
    shard: Weak<Shard<V>>,
}

impl<V> Entry<V> {
    /// A new entry with one handle (the one its insert will return) and the given clock count.
    pub(super) fn new_pinned(
        key: CacheKey,
        value: V,
        charge: usize,
        clock: u8,
        core: Arc<ShardCore>,
        shard: Weak<Shard<V>>,
    ) -> Self {
        Entry {
            key,
            charge,
            value,
            state: AtomicU64::new(1),
            clock: AtomicU8::new(clock),
            core,
            shard,
        }
    }

    /// Number of live handles.
    pub(super) fn refs(&self) -> u64 {
        self.state.load(Ordering::SeqCst) & REFS
    }

    /// Adds a handle. Requires the shard lock (shared suffices) or an existing handle
    /// (invariant 1); `Relaxed` suffices because that lock or handle orders it, as for `Arc`.
    pub(super) fn pin(&self) {
        self.state.fetch_add(1, Ordering::Relaxed);
    }

    /// Takes the entry out of the accounting of resident entries. Requires the exclusive shard
    /// lock and that the caller has just removed the entry from the table. Returns whether the
    /// entry still has handles (then its charge stays in usage until the last one goes).
    pub(super) fn detach(&self) -> bool {
        // Counted before the flag is visible, so a release that sees the flag never subtracts
        // what was not added (invariant 4).
        self.core
            .detached_pinned
            .fetch_add(self.charge, Ordering::SeqCst);
        let before = self.state.fetch_or(DETACHED, Ordering::SeqCst);
        assert_eq!(
            before & DETACHED,
            0,
            "cache entry {:?} detached twice",
            self.key
        );
        if before & REFS == 0 {
            self.core
                .detached_pinned
                .fetch_sub(self.charge, Ordering::SeqCst);
            self.core.usage.fetch_sub(self.charge, Ordering::SeqCst);
            false
        } else {
            true
        }
    }

    /// Drops one handle. Called without any shard lock held by this thread.
    pub(super) fn release(&self) {
        // SeqCst pairs with `insert_locked`, which adds to usage *before* it reads handle counts
        // while looking for victims. Of "this release drops the count to 0, then reads usage"
        // and "that insert raises usage, then reads this count", at least one sees the other:
        // either the insert may evict this entry, or this release sees usage over capacity and
        // evicts. So nothing unpinned is left over capacity once the dust settles.
        let before = self.state.fetch_sub(1, Ordering::SeqCst);
        debug_assert_ne!(before & REFS, 0, "cache handle released twice");
        if before & REFS != 1 {
            return;
        }
        if before & DETACHED != 0 {
            // The last handle of an entry already out of the table (invariant 3).
            self.core
                .detached_pinned
                .fetch_sub(self.charge, Ordering::SeqCst);
            self.core.usage.fetch_sub(self.charge, Ordering::SeqCst);
        } else if self.core.usage() > self.core.capacity {
            // Pinned entries held the shard over capacity (allowed without the strict limit);
            // this one is now free to go. If the cache is gone, there is nothing to evict from.
            if let Some(shard) = self.shard.upgrade() {
                shard.evict_released(self);
            }
        }
    }
}
