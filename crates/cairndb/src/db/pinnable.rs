//! [`PinnableValue`]: a value read without copying it out of the table block that holds it
//! (RocksDB's `PinnableSlice`).
//!
//! A point read that finds its value in a table answers with the decoded block itself, pinned
//! (a block-cache handle, or the block read for this call), plus the value's place in it; a value
//! from a memtable or a merge is owned. Either way the value dereferences to `[u8]`.
//!
//! Invariants:
//! 1. The bytes a `PinnableValue` shows never change: a pinned block is immutable, and the cache
//!    does not evict or free a block while a handle to it lives (`cache/mod.rs`, invariant 3).
//! 2. Holding a `PinnableValue` holds its block's memory: the block stays charged to the block
//!    cache while pinned, so callers should drop values they no longer need.

use std::fmt;
use std::ops::Deref;

use crate::sstable::TableGet;

/// A value read by [`crate::Db::get_pinned`]: the bytes, borrowed from the table block that
/// holds them when they came from a table (so no copy was made), owned otherwise.
///
/// ```
/// # fn main() -> cairndb::Result<()> {
/// # let dir = tempfile::tempdir().expect("temporary directory");
/// use cairndb::options::{Options, ReadOptions, WriteOptions};
/// use cairndb::Db;
/// let mut options = Options::default();
/// options.db.create_if_missing = true;
/// let db = Db::open(dir.path(), options)?;
/// db.put(&WriteOptions::default(), b"k", b"value")?;
/// db.flush()?; // the value now lives in a table block
/// let v = db.get_pinned(&ReadOptions::default(), b"k")?.expect("present");
/// assert_eq!(&*v, b"value");
/// assert!(v.is_pinned());
/// # db.close()
/// # }
/// ```
pub struct PinnableValue(Pinned);

enum Pinned {
    Owned(Vec<u8>),
    Block(TableGet),
}

impl PinnableValue {
    /// A value that owns its bytes.
    pub(crate) fn owned(bytes: Vec<u8>) -> Self {
        PinnableValue(Pinned::Owned(bytes))
    }

    /// The value of `entry`, borrowed from its pinned block.
    pub(crate) fn pinned(entry: TableGet) -> Self {
        PinnableValue(Pinned::Block(entry))
    }

    /// True when the bytes are borrowed from a pinned table block (no copy was made).
    pub fn is_pinned(&self) -> bool {
        matches!(self.0, Pinned::Block(_))
    }

    /// The bytes as an owned vector: moved out when owned, copied when pinned (the block is
    /// released).
    pub fn into_vec(self) -> Vec<u8> {
        match self.0 {
            Pinned::Owned(v) => v,
            Pinned::Block(entry) => entry.value().to_vec(),
        }
    }
}

impl From<Vec<u8>> for PinnableValue {
    fn from(bytes: Vec<u8>) -> Self {
        PinnableValue::owned(bytes)
    }
}

impl Deref for PinnableValue {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.0 {
            Pinned::Owned(v) => v,
            Pinned::Block(entry) => entry.value(),
        }
    }
}

impl AsRef<[u8]> for PinnableValue {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl PartialEq<[u8]> for PinnableValue {
    fn eq(&self, other: &[u8]) -> bool {
        **self == *other
    }
}

impl fmt::Debug for PinnableValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnableValue")
            .field("len", &self.len())
            .field("pinned", &self.is_pinned())
            .finish()
    }
}
