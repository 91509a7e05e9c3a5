//! The published last sequence number: what a read without a snapshot of its own sees.
//!
//! Who calls it: `publish_queue.rs` publishes (under its own lock, in sequence order, after the
//! group's batches and every earlier group's are in the memtables); every read, snapshot and checkpoint loads it, from any thread,
//! without a lock.
//!
//! Invariants (with `mod.rs` invariant 1):
//! 1. A published sequence `s` is stored with Release after every entry with a sequence number
//!    up to `s` was inserted into the memtables; a load is Acquire. So a reader that loads `s`
//!    finds every one of those entries (the skiplist's links it follows were written before the
//!    Release store), and never an entry of a batch still being inserted (those have sequence
//!    numbers above `s`).
//! 2. Published values never decrease: leaders publish one at a time, in sequence order.
//!
//! The loom model `sequence_model` in `memtable/loom_models.rs` runs these two functions
//! against the real memtable; its atomics come from `util::sync` for that reason.

use crate::types::SequenceNumber;
use crate::util::sync::{AtomicU64, Ordering};

/// The published last sequence number. See the module contract.
#[derive(Debug)]
pub(crate) struct PublishedSequence(AtomicU64);

impl PublishedSequence {
    /// Starts at `recovered`, the last sequence number of the recovered state.
    pub(crate) fn new(recovered: SequenceNumber) -> Self {
        PublishedSequence(AtomicU64::new(recovered))
    }

    /// Publishes `last`. Every entry up to `last` is in the memtables, and the caller holds the
    /// publish queue's lock (invariant 2: publications are serialized).
    pub(crate) fn publish(&self, last: SequenceNumber) {
        debug_assert!(
            last >= self.0.load(Ordering::Relaxed),
            "published sequence going back to {last}"
        );
        self.0.store(last, Ordering::Release);
    }

    /// The last published sequence number; every entry up to it is visible to the caller.
    pub(crate) fn load(&self) -> SequenceNumber {
        self.0.load(Ordering::Acquire)
    }
}
