//! The one iterator contract every iterator of the engine implements, over internal keys
//! (block, table, memtable, merging, level iterators alike).
//!
//! Contract (see also docs/design/iterators.md when it exists):
//! 1. A new iterator is not positioned: [`valid`](InternalIterator::valid) is false until one of the
//!    positioning calls (`seek_to_first`, `seek_to_last`, `seek`, `seek_for_prev`).
//! 2. Entries are visited in the order of the iterator's comparator (internal-key order for
//!    internal iterators: user key ascending, then sequence descending).
//! 3. `seek(t)` positions at the first entry with key >= t; `seek_for_prev(t)` at the last entry
//!    with key <= t; either leaves the iterator invalid when there is no such entry.
//! 4. `next`, `prev`, `key` and `value` require `valid()`; calling them otherwise is a bug and may
//!    panic. Direction may change at any time: `next` then `prev` returns to the same entry.
//! 5. An error (I/O, corruption) makes the iterator invalid, and [`status`](InternalIterator::status)
//!    returns it until the next positioning call. An iterator that is invalid with an Ok status has
//!    simply run off the end. Errors are never skipped silently: an iterator never returns an entry
//!    that follows damaged data without first reporting the damage.
//! 6. `key()` and `value()` borrow from the iterator and are valid until it moves.

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
    fn status(&self) -> Result<()>;
}
