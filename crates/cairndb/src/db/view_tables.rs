//! The open tables of a read view: each table of the view's version, opened by the first read
//! that needs it and then reached by every later read of the view without the table cache.
//!
//! A point read would otherwise look its table up in the table cache: a hash lookup, a pin and
//! an unpin of the cache entry and a clone and drop of the table's `Arc`, atomic operations on
//! cache lines that every reading thread shares, so that concurrent readers of the same tables
//! slow each other down. Here a read finds the table by binary search in the view's own sorted
//! list and borrows it for as long as the read holds the view: no shared write at all. (RocksDB
//! does the same by pinning table readers in the file metadata when `max_open_files = -1`.)
//!
//! Only with an unbounded table cache (`max_open_files = -1`, RocksDB's and CairnDB's
//! default): there every table stays open anyway. With a bounded cache a view keeps nothing
//! open beyond the cache's limit, and reads go through the cache as before.
//!
//! Invariants:
//! 1. A slot holds the table of its file number, as the table cache opened it (the same
//!    `Arc`), or nothing yet; once set it never changes.
//! 2. A view holds its tables open only while it lives; views are replaced on every flush and
//!    compaction, and a file made obsolete closes when the last view and reader of it are gone,
//!    as with a reader that holds the table's `Arc`.

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use crate::error::Result;
use crate::sstable::Table;
use crate::table_cache::TableCache;
use crate::version::version::Version;
use crate::version::FileMetaData;

/// The tables of one read view (module documentation).
#[derive(Debug)]
pub(super) struct ViewTables {
    /// By file number, sorted; empty when the table cache is bounded.
    slots: Vec<(u64, OnceLock<Arc<Table>>)>,
}

/// A table reached through a view: borrowed from the view, or from the table cache.
pub(super) enum ViewTable<'v> {
    /// Held open by the view.
    Pinned(&'v Arc<Table>),
    /// From the table cache (a bounded cache, or a file the view does not list).
    Cached(Arc<Table>),
}

impl Deref for ViewTable<'_> {
    type Target = Arc<Table>;

    fn deref(&self) -> &Arc<Table> {
        match self {
            ViewTable::Pinned(t) => t,
            ViewTable::Cached(t) => t,
        }
    }
}

impl ViewTables {
    /// Slots for every table of `version` when `pin` (an unbounded table cache), else none.
    pub(super) fn new(version: &Version, pin: bool) -> Self {
        let mut slots: Vec<(u64, OnceLock<Arc<Table>>)> = if pin {
            version
                .all_files()
                .map(|(_, f)| (f.number, OnceLock::new()))
                .collect()
        } else {
            Vec::new()
        };
        // File numbers are unique within a version, so sorting is all the search needs.
        slots.sort_unstable_by_key(|(n, _)| *n);
        ViewTables { slots }
    }

    /// The table of `file`: the view's own once opened, else from `cache`.
    ///
    /// # Errors
    /// As [`TableCache::get_table`].
    pub(super) fn get<'v>(
        &'v self,
        cache: &TableCache,
        file: &FileMetaData,
    ) -> Result<ViewTable<'v>> {
        let Ok(at) = self.slots.binary_search_by_key(&file.number, |(n, _)| *n) else {
            return Ok(ViewTable::Cached(cache.get_table(file.number, file.size)?));
        };
        let slot = &self.slots[at].1;
        if let Some(table) = slot.get() {
            return Ok(ViewTable::Pinned(table));
        }
        let table = cache.get_table(file.number, file.size)?;
        // Two first reads may race; both got the cache's one table, and the loser's copy drops.
        let _ = slot.set(table);
        Ok(ViewTable::Pinned(slot.get().expect("set just above")))
    }
}
