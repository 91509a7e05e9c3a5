//! The atomics and the lock of the lock-free memtable and of sequence publication, behind one
//! switch so that the loom models (`memtable/loom_models.rs`) check the real code.
//!
//! In an ordinary build these are `std`'s atomics and `parking_lot`'s mutex. Built with
//! `RUSTFLAGS="--cfg loom"` they are [loom](https://docs.rs/loom)'s, which record every access so
//! that a model can run the skiplist, the arena and the published sequence number under every
//! interleaving and every weak-memory outcome the orderings used allow. Code under that switch
//! only works inside `loom::model` (a loom atomic created outside a model panics), which is why
//! such a build runs only the `loom_` tests (`scripts/reliability.sh concurrency_models`).
//!
//! Who uses it: `memtable/arena.rs`, `memtable/node.rs`, `memtable/skiplist.rs` and the published
//! sequence number in `db/`. Everything else keeps `std::sync::atomic` directly: statistics
//! counters and flags whose orderings no model checks.

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};

#[cfg(not(loom))]
pub(crate) use parking_lot::Mutex;

/// `parking_lot::Mutex`'s interface over loom's mutex, so that a model sees the arena's block
/// lock (a `parking_lot` lock held across a loom atomic would block the one OS thread loom runs
/// its threads on).
#[cfg(loom)]
#[derive(Debug)]
pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);

#[cfg(loom)]
impl<T> Mutex<T> {
    pub(crate) fn new(value: T) -> Self {
        Mutex(loom::sync::Mutex::new(value))
    }

    /// Locks; a poisoned lock (a panicking model) is taken as is, as `parking_lot` does.
    pub(crate) fn lock(&self) -> loom::sync::MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn get_mut(&mut self) -> &mut T {
        self.0.get_mut().unwrap_or_else(|e| e.into_inner())
    }
}
