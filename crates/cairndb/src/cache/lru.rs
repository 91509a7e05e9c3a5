//! The LRU policy of one shard: a doubly linked recency list through the slots.
//!
//! Contract: an [`LruTable`] lives inside its shard's `Mutex`; every method requires that lock,
//! lookups included (a hit moves the entry to the front). Links are slot numbers into a side
//! array, so the list needs no unsafe code and no allocation per hit.
//!
//! Pinned entries stay in the list (handles are released without the lock, so the list cannot
//! learn when they unpin). When the victim search meets a pinned entry at the tail it moves it
//! to the front, as if it had just been used (it is in use), so that long-pinned entries do not
//! make every later search walk past them.
//!
//! Invariants:
//! 1. Every resident entry is in the list exactly once; `head` is the most recently used,
//!    `tail` the least; both are `NIL` exactly when the shard is empty.
//! 2. `links[s]` is meaningful only while slot `s` is occupied; a removed slot is unlinked first.
//! 3. A victim search examines at most as many entries as are resident.

use std::sync::Arc;

use super::entry::Entry;
use super::shard::Table;
use super::slots::Slots;
use super::CacheKey;

/// "No slot" in links, head and tail.
const NIL: usize = usize::MAX;

/// Neighbours of a slot in the recency list.
#[derive(Clone, Copy)]
struct Link {
    /// Towards the head (more recently used).
    prev: usize,
    /// Towards the tail (less recently used).
    next: usize,
}

const UNLINKED: Link = Link {
    prev: NIL,
    next: NIL,
};

/// Resident entries of an LRU shard in recency order.
pub(super) struct LruTable<V> {
    slots: Slots<V>,
    links: Vec<Link>,
    head: usize,
    tail: usize,
}

impl<V> LruTable<V> {
    pub(super) fn new() -> Self {
        LruTable {
            slots: Slots::new(),
            links: Vec::new(),
            head: NIL,
            tail: NIL,
        }
    }

    /// Pins the entry for `key` and makes it the most recently used.
    pub(super) fn lookup(&mut self, key: &CacheKey) -> Option<Arc<Entry<V>>> {
        let (slot, entry) = self.slots.find(key)?;
        entry.pin();
        let entry = Arc::clone(entry);
        self.touch(slot);
        Some(entry)
    }

    /// Moves `slot` (linked) to the front.
    fn touch(&mut self, slot: usize) {
        if self.head != slot {
            self.unlink(slot);
            self.push_front(slot);
        }
    }

    fn unlink(&mut self, slot: usize) {
        let Link { prev, next } = self.links[slot];
        if prev == NIL {
            self.head = next;
        } else {
            self.links[prev].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.links[next].prev = prev;
        }
        self.links[slot] = UNLINKED;
    }

    fn push_front(&mut self, slot: usize) {
        self.links[slot] = Link {
            prev: NIL,
            next: self.head,
        };
        if self.head == NIL {
            self.tail = slot;
        } else {
            self.links[self.head].prev = slot;
        }
        self.head = slot;
    }

    /// The resident keys from most to least recently used (for tests).
    #[cfg(test)]
    pub(super) fn keys_by_recency(&self) -> Vec<CacheKey> {
        let mut keys = Vec::new();
        let mut slot = self.head;
        while slot != NIL {
            keys.push(self.slots.entry(slot).key);
            slot = self.links[slot].next;
        }
        keys
    }
}

impl<V> Table<V> for LruTable<V> {
    fn slots(&self) -> &Slots<V> {
        &self.slots
    }

    fn add(&mut self, entry: Arc<Entry<V>>) {
        let slot = self.slots.add(entry);
        if self.links.len() <= slot {
            self.links.resize(slot + 1, UNLINKED);
        }
        self.push_front(slot);
    }

    fn remove(&mut self, slot: usize) -> Arc<Entry<V>> {
        self.unlink(slot);
        self.slots.remove(slot)
    }

    fn sweep_budget(&self) -> usize {
        self.slots.len()
    }

    fn pick_victim(&mut self, protect: Option<usize>, budget: &mut usize) -> Option<usize> {
        while *budget > 0 && self.tail != NIL {
            *budget -= 1;
            let slot = self.tail;
            if Some(slot) == protect || self.slots.entry(slot).refs() != 0 {
                self.touch(slot);
                continue;
            }
            return Some(slot);
        }
        None
    }
}
