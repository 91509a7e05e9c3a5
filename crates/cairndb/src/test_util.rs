//! Helpers shared by the unit tests of several modules (compiled only with `cfg(test)`): an
//! internal iterator over owned entries, and table metadata for synthetic versions.
//!
//! Who calls it: `#[cfg(test)]` code anywhere in the crate. A helper lives here when more than one
//! module used a copy of it; helpers of one module's tests stay with those tests. Nothing here
//! does I/O or keeps state between calls.

use std::cmp::Ordering;

use crate::comparator::{EntryOrder, KeyOrder};
use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use crate::types::{make_internal_key, ValueKind};
use crate::version::FileMetaData;

/// An [`InternalIterator`] over owned `(key, value)` entries, sorted by its comparator on
/// construction, that can be made to fail when it lands on one index.
///
/// Invariants: the entries stay sorted; positioned at index `fail_at`, it is invalid instead and
/// its status is a corruption (file `"input"`, offset 99) until the next positioning call, as the
/// iterator contract requires of an iterator that hits damaged data.
#[derive(Debug, Clone)]
pub(crate) struct VecIter {
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    cmp: EntryOrder,
    pos: Option<usize>,
    fail_at: Option<usize>,
    failed: bool,
}

impl VecIter {
    /// Over internal keys (sorted in bytewise internal-key order).
    pub(crate) fn new(entries: Vec<(Vec<u8>, Vec<u8>)>) -> Self {
        Self::with_comparator(entries, EntryOrder::Internal(KeyOrder::BYTEWISE))
    }

    /// Over keys ordered by `cmp` (for iterators over plain keys, as the merging iterator's
    /// tests use).
    pub(crate) fn with_comparator(mut entries: Vec<(Vec<u8>, Vec<u8>)>, cmp: EntryOrder) -> Self {
        entries.sort_by(|a, b| cmp.compare(&a.0, &b.0));
        VecIter {
            entries,
            cmp,
            pos: None,
            fail_at: None,
            failed: false,
        }
    }

    /// Fails (invalid, corruption status) whenever it lands on index `i`.
    pub(crate) fn failing_at(mut self, i: usize) -> Self {
        self.fail_at = Some(i);
        self
    }

    fn land(&mut self, pos: Option<usize>) {
        self.failed = false;
        self.pos = pos.filter(|&i| i < self.entries.len());
        if self.pos.is_some() && self.pos == self.fail_at {
            self.pos = None;
            self.failed = true;
        }
    }
}

impl InternalIterator for VecIter {
    fn valid(&self) -> bool {
        self.pos.is_some()
    }
    fn seek_to_first(&mut self) {
        self.land(Some(0));
    }
    fn seek_to_last(&mut self) {
        self.land(self.entries.len().checked_sub(1));
    }
    fn seek(&mut self, t: &[u8]) {
        let i = self
            .entries
            .partition_point(|e| self.cmp.compare(&e.0, t) == Ordering::Less);
        self.land(Some(i));
    }
    fn seek_for_prev(&mut self, t: &[u8]) {
        let i = self
            .entries
            .partition_point(|e| self.cmp.compare(&e.0, t) != Ordering::Greater);
        self.land(i.checked_sub(1));
    }
    fn next(&mut self) {
        let i = self.pos.expect("valid") + 1;
        self.land(Some(i));
    }
    fn prev(&mut self) {
        let i = self.pos.expect("valid").checked_sub(1);
        self.land(i);
    }
    fn key(&self) -> &[u8] {
        &self.entries[self.pos.expect("valid")].0
    }
    fn value(&self) -> &[u8] {
        &self.entries[self.pos.expect("valid")].1
    }
    fn status(&self) -> Result<()> {
        if self.failed {
            Err(Error::corruption("input", 99, "injected"))
        } else {
            Ok(())
        }
    }
}

/// The metadata of a table of `size` bytes holding user keys `lo..=hi` with sequence numbers
/// `seqs.0..=seqs.1` (smallest, largest): its smallest internal key is `lo` at the largest
/// sequence number and its largest is `hi` at the smallest, both puts. Other fields default.
pub(crate) fn file_meta(
    number: u64,
    lo: &[u8],
    hi: &[u8],
    size: u64,
    seqs: (u64, u64),
) -> FileMetaData {
    FileMetaData {
        number,
        size,
        smallest: make_internal_key(lo, seqs.1, ValueKind::Put),
        largest: make_internal_key(hi, seqs.0, ValueKind::Put),
        smallest_seqno: seqs.0,
        largest_seqno: seqs.1,
        ..FileMetaData::default()
    }
}

/// Internal-key order with bytewise user keys, for tests that need no other comparator.
pub(crate) fn compare_internal(a: &[u8], b: &[u8]) -> Ordering {
    KeyOrder::BYTEWISE.compare_internal(a, b)
}
