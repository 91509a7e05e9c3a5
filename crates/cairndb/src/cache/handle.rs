//! The handle that pins a cached value.
//!
//! Contract: a [`CacheHandle`] may be cloned, sent and dropped on any thread, without any lock
//! (unless its drop is the last one of an entry that keeps its shard over capacity; then it
//! evicts under the shard lock). It owns one pin of its entry; see `entry.rs` for the protocol.
//!
//! Invariants:
//! 1. While a handle lives, its entry is pinned: never evicted, its value readable, its charge
//!    counted in the cache usage and pinned usage.
//! 2. Each handle releases its pin exactly once, in `drop`.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::entry::Entry;
use super::CacheKey;

/// A pinned reference to a cached value.
///
/// Dereferences to the value. While any handle to an entry lives, the entry is not evicted and
/// its charge counts in [`Cache::usage`](super::Cache::usage) and
/// [`Cache::pinned_usage`](super::Cache::pinned_usage). If the entry is erased or replaced while
/// pinned, the handle keeps the value alive and readable; the value is freed when the last handle
/// drops. Handles may outlive the cache itself.
pub struct CacheHandle<V> {
    entry: Arc<Entry<V>>,
}

impl<V> CacheHandle<V> {
    /// Wraps an entry on which the caller has just taken a pin for this handle.
    pub(super) fn from_pinned(entry: Arc<Entry<V>>) -> Self {
        CacheHandle { entry }
    }

    /// The key this value was inserted under.
    pub fn key(&self) -> CacheKey {
        self.entry.key
    }

    /// The charge, in bytes, this value was inserted with.
    pub fn charge(&self) -> usize {
        self.entry.charge
    }

    /// The cached value (the same as dereferencing the handle).
    pub fn value(&self) -> &V {
        &self.entry.value
    }
}

impl<V> Deref for CacheHandle<V> {
    type Target = V;

    fn deref(&self) -> &V {
        &self.entry.value
    }
}

impl<V> Clone for CacheHandle<V> {
    /// Another pin of the same entry.
    fn clone(&self) -> Self {
        self.entry.pin();
        CacheHandle {
            entry: Arc::clone(&self.entry),
        }
    }
}

impl<V> Drop for CacheHandle<V> {
    fn drop(&mut self) {
        self.entry.release();
    }
}

impl<V> fmt::Debug for CacheHandle<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CacheHandle")
            .field("key", &self.entry.key)
            .field("charge", &self.entry.charge)
            .finish_non_exhaustive()
    }
}
