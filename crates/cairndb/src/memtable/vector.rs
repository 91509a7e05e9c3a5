//! The vector rep: unsorted appends for bulk loads, sorted on demand (RocksDB's VectorRep).
//!
//! Who calls it: the memtable, from any thread. Inserts and snapshot requests serialize on one
//! mutex, which is held for an O(1) push per insert and for a sort per snapshot request after
//! new inserts; readers and writers of a vector memtable therefore *do* block each other. That
//! is the trade: a bulk load (many writes, no reads until the memtable is flushed) pays one
//! pointer push per entry instead of a skiplist search, and one O(n log n) sort at flush.
//! Reading a vector memtable while it is still being written is correct but slow (each read
//! after a write re-sorts; the stable sort is close to linear on the already sorted prefix).
//!
//! What it owns: an arena of entries (nodes of height 0, `node.rs`), and the vector of their
//! pointers, which is sorted in place whenever a snapshot is requested.
//!
//! Invariants:
//! 1. A snapshot is the sorted list of every entry inserted before it was taken; it never
//!    changes afterwards (later inserts build a new one).
//! 2. Unlike the skiplist, the vector does not detect a duplicate internal key at insert time;
//!    both copies are kept and sort next to each other.

use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::arena::Arena;
use super::node::NodePtr;
use crate::comparator::KeyOrder;

#[derive(Default)]
struct VecState {
    entries: Vec<NodePtr>,
    /// The sorted snapshot of `entries`, dropped by every insert.
    snapshot: Option<Arc<[NodePtr]>>,
}

/// Unsorted entries plus a cached sorted snapshot. See the module contract.
pub(crate) struct VectorRep {
    arena: Arena,
    state: Mutex<VecState>,
    /// Bytes held by the pointer vector and the cached snapshot, for memory accounting
    /// without taking the lock.
    index_bytes: AtomicUsize,
    /// The order snapshots are sorted in.
    order: KeyOrder,
}

impl std::fmt::Debug for VectorRep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the entries: a full memtable holds millions.
        f.debug_struct("VectorRep")
            .field("entries", &self.state.lock().entries.len())
            .field("memory_usage", &self.memory_usage())
            .finish()
    }
}

impl VectorRep {
    /// An empty rep of keys in `order`, allocating entries from blocks of `block_size` bytes.
    pub(crate) fn new(block_size: usize, order: KeyOrder) -> Self {
        VectorRep {
            arena: Arena::new(block_size),
            state: Mutex::new(VecState::default()),
            index_bytes: AtomicUsize::new(0),
            order,
        }
    }

    /// The order of the keys.
    pub(crate) fn order(&self) -> &KeyOrder {
        &self.order
    }

    /// Appends an entry. The node is built outside the lock; only the push is serialized.
    pub(crate) fn insert(&self, user_key: &[u8], trailer: u64, value: &[u8]) {
        let node = NodePtr::allocate(&self.arena, 0, user_key, trailer, value);
        let mut state = self.state.lock();
        state.entries.push(node);
        state.snapshot = None;
        self.account(&state);
    }

    /// The sorted entries as of now (invariant 1).
    pub(crate) fn snapshot(&self) -> Arc<[NodePtr]> {
        let mut state = self.state.lock();
        if let Some(s) = &state.snapshot {
            return Arc::clone(s);
        }
        let order = &self.order;
        // SAFETY: every pointer in `entries` is a fully written node of our arena, which
        // `&self` keeps alive.
        state
            .entries
            .sort_by(|a, b| unsafe { order.compare_internal(a.key(), b.key()) });
        let snapshot: Arc<[NodePtr]> = Arc::from(&state.entries[..]);
        state.snapshot = Some(Arc::clone(&snapshot));
        self.account(&state);
        snapshot
    }

    /// Bytes reserved for entries and their index.
    pub(crate) fn memory_usage(&self) -> usize {
        self.arena.memory_usage() + self.index_bytes.load(AtomicOrdering::Relaxed)
    }

    fn account(&self, state: &VecState) {
        let ptr = std::mem::size_of::<NodePtr>();
        let snap = state.snapshot.as_ref().map_or(0, |s| s.len());
        self.index_bytes.store(
            (state.entries.capacity() + snap) * ptr,
            AtomicOrdering::Relaxed,
        );
    }
}
