//! The resident index of one shard: key → slot → entry.
//!
//! Contract: owned by one shard table and used only under that shard's lock (shared for the
//! `&self` methods, exclusive for the `&mut self` ones). It holds two `Arc`s of each resident
//! entry, one in the key index and one in its slot; it knows nothing of pins, charges or policy.
//! The key index holds the entry itself rather than only its slot number so that a lookup goes
//! from the hash bucket straight to the entry: one dependent cache miss fewer on every block
//! cache hit than a detour through the slot array.
//!
//! Invariants:
//! 1. `map[k] == (s, e)` if and only if `slots[s]` holds `e`, the entry whose key is `k`.
//! 2. `free` lists exactly the empty slots, each once.
//! 3. Slot numbers are stable while an entry is resident, so policies may keep side arrays
//!    (LRU links) and positions (the clock hand) indexed by slot.

use std::collections::HashMap;
use std::sync::Arc;

use super::entry::Entry;
use super::hash::BuildKeyHasher;
use super::CacheKey;

/// Resident entries of one shard, addressable by key and by slot number.
pub(super) struct Slots<V> {
    map: HashMap<CacheKey, (usize, Arc<Entry<V>>), BuildKeyHasher>,
    slots: Vec<Option<Arc<Entry<V>>>>,
    /// Empty slots, reused last-freed first: an entry inserted right after an eviction takes the
    /// slot the clock hand just left, so the hand reaches it last.
    free: Vec<usize>,
}

impl<V> Slots<V> {
    pub(super) fn new() -> Self {
        Slots {
            map: HashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    /// The slot and the entry resident for `key`.
    pub(super) fn find(&self, key: &CacheKey) -> Option<(usize, &Arc<Entry<V>>)> {
        self.map.get(key).map(|(slot, entry)| (*slot, entry))
    }

    /// The entry in `slot`, if the slot is occupied.
    pub(super) fn get(&self, slot: usize) -> Option<&Arc<Entry<V>>> {
        self.slots.get(slot).and_then(Option::as_ref)
    }

    /// The entry in `slot`.
    ///
    /// # Panics
    /// If the slot is empty: callers only pass slots they found occupied under the same lock.
    pub(super) fn entry(&self, slot: usize) -> &Arc<Entry<V>> {
        self.get(slot).expect("cache slot is occupied")
    }

    /// Stores `entry` and returns its slot.
    ///
    /// # Panics
    /// If an entry with the same key is resident (callers remove it first).
    pub(super) fn add(&mut self, entry: Arc<Entry<V>>) -> usize {
        let key = entry.key;
        let indexed = Arc::clone(&entry);
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot] = Some(entry);
                slot
            }
            None => {
                self.slots.push(Some(entry));
                self.slots.len() - 1
            }
        };
        let previous = self.map.insert(key, (slot, indexed));
        assert!(previous.is_none(), "cache key {key:?} was already resident");
        slot
    }

    /// Takes the entry out of `slot`.
    ///
    /// # Panics
    /// If the slot is empty.
    pub(super) fn remove(&mut self, slot: usize) -> Arc<Entry<V>> {
        let entry = self.slots[slot]
            .take()
            .expect("removing an occupied cache slot");
        let removed = self.map.remove(&entry.key).map(|(s, _)| s);
        assert_eq!(removed, Some(slot), "cache index and slots disagree");
        self.free.push(slot);
        entry
    }

    /// Number of resident entries.
    pub(super) fn len(&self) -> usize {
        self.map.len()
    }

    /// Number of slots, occupied or not: slot numbers are below this.
    pub(super) fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// The resident entries, in slot order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Arc<Entry<V>>> {
        self.slots.iter().flatten()
    }
}
