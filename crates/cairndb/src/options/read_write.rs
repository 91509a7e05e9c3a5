//! [`ReadOptions`] and [`WriteOptions`]: per-call options, RocksDB's names and defaults.
//!
//! Plain data passed with each read or write; any thread. `validate` is cheap and the database
//! calls it on every call that takes these options.

use crate::error::{Error, Result};
use crate::types::SequenceNumber;

/// Options of one read (get, multi_get, iterator). RocksDB's `ReadOptions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOptions {
    /// Read as of this sequence number (a snapshot); `None` reads the latest visible state.
    /// Default `None`. Becomes a snapshot handle when the database front exists.
    pub snapshot: Option<SequenceNumber>,
    /// Put blocks read by this call in the block cache. Default true. Turn off for scans that
    /// would push the working set out of the cache. Honoured by `get`, `multi_get` and
    /// iterators alike.
    pub fill_cache: bool,
    /// Verify block checksums on every block read from a file. Default true. Turning it off saves
    /// a little CPU per block read and gives up detecting media damage on that read: damage that
    /// breaks a block's structure is still `Corruption`, damage inside a key or value is returned
    /// as data (RocksDB's meaning). Blocks read unverified are not put in the block cache, and
    /// blocks read when a table is opened are always verified (`docs/design/options.md`).
    pub verify_checksums: bool,
    /// Iterators see no key below this (inclusive bound). Default `None`. Lets the iterator skip
    /// files and blocks wholly below it.
    pub iterate_lower_bound: Option<Vec<u8>>,
    /// Iterators see no key at or above this (exclusive bound). Default `None`. Lets the iterator
    /// stop early instead of reading the next block to find the end of a range.
    pub iterate_upper_bound: Option<Vec<u8>>,
    /// In prefix mode, iteration stops at the first key whose prefix differs from the seek key's.
    /// Default false.
    pub prefix_same_as_start: bool,
    /// Ignore the prefix extractor: seeks are total-order even when prefix filters exist.
    /// Default false. Overrides `prefix_same_as_start`.
    pub total_order_seek: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            snapshot: None,
            fill_cache: true,
            verify_checksums: true,
            iterate_lower_bound: None,
            iterate_upper_bound: None,
            prefix_same_as_start: false,
            total_order_seek: false,
        }
    }
}

impl ReadOptions {
    /// Checks that the bounds are ordered in `order`, the column family's comparator.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `iterate_lower_bound > iterate_upper_bound`: such a range
    /// is empty, and it is almost always swapped arguments rather than intent.
    pub fn validate(&self, order: &crate::comparator::KeyOrder) -> Result<()> {
        if let (Some(lo), Some(hi)) = (&self.iterate_lower_bound, &self.iterate_upper_bound) {
            if order.compare(lo, hi).is_gt() {
                return Err(Error::InvalidArgument(
                    "iterate_lower_bound is greater than iterate_upper_bound".to_string(),
                ));
            }
        }
        Ok(())
    }
}

/// Options of one write. RocksDB's `WriteOptions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteOptions {
    /// Sync the WAL before the write returns, so it survives power loss. Default false: the
    /// write survives a process crash only. Costs one fsync per commit group.
    pub sync: bool,
    /// Do not write the WAL: the write is lost on any crash until its memtable is flushed.
    /// Default false. For bulk loads that can be redone.
    pub disable_wal: bool,
    /// Fail with `Busy` instead of waiting when the write would be delayed or stopped by write
    /// control. Default false.
    pub no_slowdown: bool,
}

impl WriteOptions {
    /// Checks that the options do not contradict each other.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when both `sync` and `disable_wal` are set (as RocksDB: there is
    /// no log to sync).
    pub fn validate(&self) -> Result<()> {
        if self.sync && self.disable_wal {
            return Err(Error::InvalidArgument(
                "write options sync and disable_wal cannot both be set: there is no WAL to sync"
                    .to_string(),
            ));
        }
        Ok(())
    }
}
