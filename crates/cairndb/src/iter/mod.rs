//! The one iterator contract every iterator of the engine implements, over internal keys
//! (block, table, memtable, merging, level iterators alike), and the iterators built on it:
//! [`MergingIterator`] (many sorted children as one), [`LevelIterator`] (the tables of one
//! sorted level, opened lazily), [`RangeDelSet`] (fragmented range
//! tombstones) and [`DbIterator`] (the user-facing iterator: one version per user key at a
//! snapshot, with bounds and prefix mode). Design and reasoning: `docs/design/iterators.md`; every
//! implementation is checked by `tests/iterator_conformance.rs`.
//!
//! Contract:
//! 1. A new iterator is not positioned: [`valid`](InternalIterator::valid) is false until one of the
//!    positioning calls (`seek_to_first`, `seek_to_last`, `seek`, `seek_for_prev`).
//! 2. Entries are visited in the order of the iterator's comparator (internal-key order for
//!    internal iterators: user key ascending, then sequence descending; bytewise user-key order
//!    for [`DbIterator`]). Every positioning call starts afresh: its result does not depend on
//!    where the iterator was before.
//! 3. `seek(t)` positions at the first entry with key >= t; `seek_for_prev(t)` at the last entry
//!    with key <= t; either leaves the iterator invalid when there is no such entry. An iterator
//!    with bounds treats entries outside them as absent, in every positioning and stepping call.
//! 4. `next`, `prev`, `key` and `value` require `valid()`; calling them otherwise is a bug and may
//!    panic. Direction may change at any time: `next` then `prev` returns to the same entry, and
//!    so does `prev` then `next`.
//! 5. An error (I/O, corruption) makes the iterator invalid, and [`status`](InternalIterator::status)
//!    returns it until the next positioning call. An iterator that is invalid with an Ok status has
//!    simply run off the end (or out of its bounds). Errors are never skipped silently: an
//!    iterator never returns an entry that follows damaged data without first reporting the
//!    damage, and a composite iterator (merging, user) surfaces any child's error.
//! 6. `key()` and `value()` borrow from the iterator and are valid until it moves (the borrow
//!    checker enforces this). An iterator owns or reference-counts (`Arc`) everything it reads, so
//!    it may outlive the handle that created it; what it pins (memtables, table blocks) stays
//!    in memory until it is dropped, so long-lived iterators hold memory.
//! 7. Iterators are single-threaded objects: used by one thread at a time (they are `Send` when
//!    their sources are), never shared.

mod db_iter;
mod level;
mod merging;
mod range_del;

pub use db_iter::{DbIterOptions, DbIterator};
pub use level::{LevelIterator, SortedRun, TableOpener};
pub use merging::{BoxedIterator, MergingIterator};
pub use range_del::RangeDelSet;

use crate::error::Result;

/// A bidirectional iterator over sorted key/value entries. See the module contract.
pub trait InternalIterator {
    /// True when positioned at an entry.
    fn valid(&self) -> bool;
    /// Positions at the first entry.
    fn seek_to_first(&mut self);
    /// Positions at the last entry.
    fn seek_to_last(&mut self);
    /// Positions at the first entry whose key is >= `target`.
    fn seek(&mut self, target: &[u8]);
    /// Positions at the last entry whose key is <= `target`.
    fn seek_for_prev(&mut self, target: &[u8]);
    /// Moves to the next entry. Requires `valid()`.
    fn next(&mut self);
    /// Moves to the previous entry. Requires `valid()`.
    fn prev(&mut self);
    /// The current key. Requires `valid()`.
    fn key(&self) -> &[u8];
    /// The current value. Requires `valid()`.
    fn value(&self) -> &[u8];
    /// The error that made the iterator invalid, if any.
    ///
    /// # Errors
    /// The I/O or corruption error that stopped the iterator, until the next positioning call.
    fn status(&self) -> Result<()>;
}

/// Boxed iterators are iterators, so that composite iterators can hold heterogeneous children
/// (`Box<dyn InternalIterator + Send>`) and still be handed around as one iterator.
impl<I: InternalIterator + ?Sized> InternalIterator for Box<I> {
    fn valid(&self) -> bool {
        (**self).valid()
    }
    fn seek_to_first(&mut self) {
        (**self).seek_to_first();
    }
    fn seek_to_last(&mut self) {
        (**self).seek_to_last();
    }
    fn seek(&mut self, target: &[u8]) {
        (**self).seek(target);
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        (**self).seek_for_prev(target);
    }
    fn next(&mut self) {
        (**self).next();
    }
    fn prev(&mut self) {
        (**self).prev();
    }
    fn key(&self) -> &[u8] {
        (**self).key()
    }
    fn value(&self) -> &[u8] {
        (**self).value()
    }
    fn status(&self) -> Result<()> {
        (**self).status()
    }
}
