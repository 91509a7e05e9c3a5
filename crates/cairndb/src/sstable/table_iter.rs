//! The two-level iterator over a table: an index-block iterator selects data blocks, a data-block
//! iterator walks their entries. Implements the [`InternalIterator`] contract.
//!
//! Owned by one thread; holds an `Arc<Table>` and pins at most the index block and one data block.
//!
//! Invariants:
//! 1. When valid, the data iterator is positioned in the block named by the index iterator's
//!    current entry, and the current key parsed as an internal key of a point kind (a
//!    `RangeDelete` entry in a data block is corruption; tombstones are read through
//!    [`Table::range_deletions`]).
//! 2. A data block that ends (forwards or backwards) moves the index iterator one entry and opens
//!    the next block, skipping empty blocks; an error from either level stops the iterator, with
//!    the error located at the damaged block's file offset, before any later entry is returned.

use std::sync::Arc;

use super::block::BlockIter;
use super::format::BlockHandle;
use super::reader::{parse_data_key, BlockReadOptions, Table};
use crate::error::{Error, Result};
use crate::iter::InternalIterator;

/// A bidirectional iterator over all entries of a [`Table`].
#[derive(Debug)]
pub struct TableIterator {
    table: Arc<Table>,
    ro: BlockReadOptions,
    /// Created at the first positioning call, so that constructing an iterator cannot fail.
    index: Option<BlockIter>,
    data: Option<BlockIter>,
    /// Handle of the block `data` iterates.
    data_handle: BlockHandle,
    err: Option<Error>,
}

/// Which way to skip exhausted data blocks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Backward,
}

impl TableIterator {
    /// An unpositioned iterator over `table`; `fill_cache` says whether blocks read on a cache miss
    /// are inserted into the block cache.
    pub fn new(table: Arc<Table>, fill_cache: bool) -> Self {
        let ro = BlockReadOptions {
            fill_cache,
            verify_checksums: true,
        };
        TableIterator::with_read_options(table, ro)
    }

    /// An unpositioned iterator over `table` that reads blocks as `ro` says (cache fill and
    /// checksum verification, `ReadOptions::fill_cache` and `verify_checksums`).
    pub fn with_read_options(table: Arc<Table>, ro: BlockReadOptions) -> Self {
        TableIterator {
            table,
            ro,
            index: None,
            data: None,
            data_handle: BlockHandle::default(),
            err: None,
        }
    }

    /// The table being iterated.
    pub fn table(&self) -> &Arc<Table> {
        &self.table
    }

    fn fail(&mut self, e: Error) {
        self.err = Some(e);
        self.data = None;
    }

    /// Clears any earlier error and returns the index iterator, creating it on first use.
    fn start(&mut self) -> Option<&mut BlockIter> {
        self.err = None;
        if self.index.is_none() {
            match self.table.index_iter(self.ro) {
                Ok(it) => self.index = Some(it),
                Err(e) => {
                    self.fail(e);
                    return None;
                }
            }
        }
        self.index.as_mut()
    }

    /// Opens the data block of the current index entry (reusing the open one when it is the same).
    /// False when the index is exhausted or on error (then `err` is set).
    fn load_data_block(&mut self) -> bool {
        let Some(index) = self.index.as_mut() else {
            return false;
        };
        if !index.valid() {
            if let Some(e) = index.take_error() {
                let e = self.table.at(e, self.table.index_handle());
                self.fail(e);
            }
            self.data = None;
            return false;
        }
        let handle = match self.table.data_handle(index.value()) {
            Ok(h) => h,
            Err(e) => {
                self.fail(e);
                return false;
            }
        };
        if self.data.is_some() && self.data_handle == handle {
            return true;
        }
        match self.table.data_iter(handle, self.ro) {
            Ok(it) => {
                self.data = Some(it);
                self.data_handle = handle;
                true
            }
            Err(e) => {
                self.fail(e);
                false
            }
        }
    }

    /// Moves across exhausted data blocks in `dir` until an entry or the end (module invariant 2).
    fn settle(&mut self, dir: Direction) {
        loop {
            let Some(data) = self.data.as_mut() else {
                return;
            };
            if let Some(e) = data.take_error() {
                let e = self.table.at(e, self.data_handle);
                self.fail(e);
                return;
            }
            if data.valid() {
                if let Err(e) = parse_data_key(data.key()) {
                    let e = self.table.at(e, self.data_handle);
                    self.fail(e);
                }
                return;
            }
            let Some(index) = self.index.as_mut() else {
                return;
            };
            match dir {
                Direction::Forward => index.next(),
                Direction::Backward => index.prev(),
            }
            if !self.load_data_block() {
                return;
            }
            if let Some(data) = self.data.as_mut() {
                match dir {
                    Direction::Forward => data.seek_to_first(),
                    Direction::Backward => data.seek_to_last(),
                }
            }
        }
    }

    /// Positions the index with `position_index`, then the data block with `position_data`, then
    /// settles in `dir`.
    fn position(
        &mut self,
        position_index: impl FnOnce(&mut BlockIter),
        position_data: impl FnOnce(&mut BlockIter),
        dir: Direction,
    ) {
        let Some(index) = self.start() else { return };
        position_index(index);
        if !self.load_data_block() {
            return;
        }
        if let Some(data) = self.data.as_mut() {
            position_data(data);
        }
        self.settle(dir);
    }
}

impl InternalIterator for TableIterator {
    fn valid(&self) -> bool {
        self.err.is_none() && self.data.as_ref().is_some_and(BlockIter::valid)
    }

    fn seek_to_first(&mut self) {
        self.position(
            |i| i.seek_to_first(),
            |d| d.seek_to_first(),
            Direction::Forward,
        );
    }

    fn seek_to_last(&mut self) {
        self.position(
            |i| i.seek_to_last(),
            |d| d.seek_to_last(),
            Direction::Backward,
        );
    }

    fn seek(&mut self, target: &[u8]) {
        self.position(|i| i.seek(target), |d| d.seek(target), Direction::Forward);
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        // The first block whose separator is >= target holds the last entry <= target, or that
        // entry is in an earlier block; past the last separator, every entry is <= target.
        let past_end = |i: &mut BlockIter| {
            i.seek(target);
            if !i.valid() && i.status().is_ok() {
                i.seek_to_last();
            }
        };
        self.position(past_end, |d| d.seek_for_prev(target), Direction::Backward);
    }

    fn next(&mut self) {
        debug_assert!(self.valid(), "next() on an unpositioned table iterator");
        if let Some(d) = self.data.as_mut().filter(|d| d.valid()) {
            d.next();
            self.settle(Direction::Forward);
        }
    }

    fn prev(&mut self) {
        debug_assert!(self.valid(), "prev() on an unpositioned table iterator");
        if let Some(d) = self.data.as_mut().filter(|d| d.valid()) {
            d.prev();
            self.settle(Direction::Backward);
        }
    }

    fn key(&self) -> &[u8] {
        self.data.as_ref().map_or(&[], |d| d.key())
    }

    fn value(&self) -> &[u8] {
        self.data.as_ref().map_or(&[], |d| d.value())
    }

    fn status(&self) -> Result<()> {
        self.err.as_ref().map_or(Ok(()), |e| Err(e.clone()))
    }
}
