//! Comparators from Rust closures.

use std::cmp::Ordering;

/// A comparison of two keys, as `Options::set_comparator` takes it.
pub type CompareFn = dyn Fn(&[u8], &[u8]) -> Ordering;

/// A comparison of two keys that may carry timestamps (for the refused
/// `Options::set_comparator_with_ts`).
pub type CompareWithoutTsFn = dyn Fn(&[u8], bool, &[u8], bool) -> Ordering;

/// A `cairndb::Comparator` from a closure.
///
/// rust-rocksdb takes a `Box<dyn Fn>` that need not be `Send` or `Sync` and lets RocksDB call it
/// from its background threads; a drop-in must accept the same type. This is unsound for a
/// closure that captures thread-unsafe state (an `Rc`, a `Cell`): it is called, and finally
/// dropped, on flush and compaction threads. rust-rocksdb has the same hole; it is kept for
/// compatibility. Plain functions and closures over thread-safe data, which is what comparators
/// are, are fine.
pub(crate) struct Callback {
    pub(crate) name: String,
    pub(crate) compare: Box<CompareFn>,
}

// SAFETY: see the type's documentation: the same contract as rust-rocksdb, which hands the same
// closure to RocksDB's threads.
unsafe impl Send for Callback {}
// SAFETY: as for Send; the closure is only ever called through `&self`.
unsafe impl Sync for Callback {}

impl cairndb::Comparator for Callback {
    fn name(&self) -> &str {
        &self.name
    }

    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        (self.compare)(a, b)
    }
}
