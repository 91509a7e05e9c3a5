//! Compaction filters as column-family options: [`CompactionFilterFactory`] and the context a
//! factory is asked with. The [`CompactionFilter`] trait itself lives with the compaction
//! iterator that calls it (`iter.rs`, rule 5).
//!
//! A family's filter is `CfOptions::compaction_filter` (one object shared by every compaction
//! job, so it must be `Send + Sync` and keep no per-job state) or, when that is `None`, the
//! filter `CfOptions::compaction_filter_factory` creates for each job (RocksDB's
//! `CompactionFilterFactory::CreateCompactionFilter`). Flushes never filter (RocksDB's default,
//! `CompactionFilterFactory::ShouldFilterTableFileCreation` returning false for flushes).

use std::fmt;
use std::sync::Arc;

pub use super::iter::{CompactionFilter, FilterDecision};

/// What a [`CompactionFilterFactory`] is told about the compaction it makes a filter for
/// (RocksDB's `CompactionFilter::Context`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionFilterContext {
    /// The compaction reads every file of the column family.
    pub is_full_compaction: bool,
    /// The compaction was asked for by `compact_range`.
    pub is_manual_compaction: bool,
    /// The column family's id.
    pub column_family_id: u32,
    /// The compaction's output level.
    pub output_level: usize,
}

/// Creates a [`CompactionFilter`] for each compaction job (RocksDB's
/// `CompactionFilterFactory`). Called from compaction threads, concurrently.
pub trait CompactionFilterFactory: Send + Sync {
    /// A name for logs.
    fn name(&self) -> &str;

    /// The filter for one compaction, or `None` to filter nothing in it.
    fn create(&self, context: &CompactionFilterContext) -> Option<Arc<dyn CompactionFilter>>;
}

impl fmt::Debug for dyn CompactionFilterFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactionFilterFactory")
            .field("name", &self.name())
            .finish()
    }
}
