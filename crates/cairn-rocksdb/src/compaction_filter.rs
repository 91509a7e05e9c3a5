//! Compaction filters from Rust closures.

use std::fmt;

use cairndb::FilterDecision;
use parking_lot::Mutex;

/// What a compaction filter decides for one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Keep the entry.
    Keep,
    /// Drop the entry.
    Remove,
    /// Keep the key with this value.
    Change(&'static [u8]),
}

/// A compaction filter: the level, the key and the value of each entry a compaction writes.
pub trait CompactionFilterFn: FnMut(u32, &[u8], &[u8]) -> Decision {}

impl<F> CompactionFilterFn for F where F: FnMut(u32, &[u8], &[u8]) -> Decision + Send + 'static {}

/// A `cairndb::CompactionFilter` from a closure. The closure is `FnMut` (as rust-rocksdb's), and
/// compactions may run at once on several threads, so calls are serialised.
pub(crate) struct Callback<F> {
    pub(crate) name: String,
    pub(crate) filter: Mutex<F>,
}

impl<F> fmt::Debug for Callback<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactionFilter")
            .field("name", &self.name)
            .finish()
    }
}

impl<F: CompactionFilterFn + Send + 'static> cairndb::CompactionFilter for Callback<F> {
    fn name(&self) -> &str {
        &self.name
    }

    fn filter(&self, level: usize, key: &[u8], value: &[u8]) -> FilterDecision {
        match (self.filter.lock())(level as u32, key, value) {
            Decision::Keep => FilterDecision::Keep,
            Decision::Remove => FilterDecision::Remove,
            Decision::Change(v) => FilterDecision::ChangeValue(v.to_vec()),
        }
    }
}
