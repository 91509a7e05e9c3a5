//! Point lookups in a table: the newest point entry of a user key visible at a snapshot, for one
//! key ([`Table::get_pinned`]) or a batch ([`Table::multi_get`]), returned as a [`TableGet`] that
//! borrows the value from its block instead of copying it. Spec: `docs/format/sstable.md`,
//! sections "Index block" and "Filter block".
//!
//! Called from any thread on a shared [`Table`]. A [`TableGet`] pins the data block it points
//! into (an `Arc`, or a block-cache handle that keeps the block from being evicted) until it is
//! dropped, so callers should not hold results longer than they need the values.
//!
//! Invariants:
//! 1. The filter is probed before any index or data block is touched: a key the filter rules out
//!    costs no block read.
//! 2. A lookup of `(k, snapshot)` seeks the first entry `>= (k, snapshot, 0xff)`, which is the
//!    newest entry of `k` with a sequence number `<= snapshot`; it answers with that entry (of any
//!    point kind) when its user key is `k`, and with nothing otherwise. Range tombstones are not
//!    applied ([`Table::range_deletions`]), and merge operands are not folded: a caller that finds
//!    a `Merge` entry continues with an iterator.
//! 3. [`Table::multi_get`] visits its keys in user-key order with one index iterator that only
//!    moves forward and at most one open data block, so it reads each data block at most once per
//!    call, and it answers every key exactly as [`Table::get_pinned`] would.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Range;

use super::block::{BlockIter, BlockRef};
use super::format::BlockHandle;
use super::reader::{parse_data_key, BlockReadOptions, Table};
use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use crate::types::{pack_trailer, user_key, SequenceNumber, ValueKind, MAX_SEQUENCE, TRAILER_LEN};

/// An entry returned by [`Table::get`], copied out of its block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEntry {
    /// The internal key found (same user key as the lookup).
    pub key: Vec<u8>,
    /// Its value.
    pub value: Vec<u8>,
}

/// The entry a point lookup found, with its value borrowed from the data block, which stays
/// pinned (in the block cache, or held by this value) until the `TableGet` is dropped.
///
/// The key is the one decoded while searching the block (keys are prefix-compressed on disk, so
/// the internal key is not one contiguous slice of the block); no further copy is made.
pub struct TableGet {
    block: BlockRef,
    key: Vec<u8>,
    value: Range<usize>,
    seq: SequenceNumber,
    kind: ValueKind,
}

impl TableGet {
    /// The internal key found: the lookup's user key, the entry's sequence number and kind.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// The user-key part of [`TableGet::key`] (equal to the lookup's key).
    pub fn user_key(&self) -> &[u8] {
        user_key(&self.key)
    }

    /// The entry's sequence number.
    pub fn seq(&self) -> SequenceNumber {
        self.seq
    }

    /// The entry's kind: `Put`, `Delete`, `SingleDelete` or `Merge` (never `RangeDelete`).
    pub fn kind(&self) -> ValueKind {
        self.kind
    }

    /// The entry's value, borrowed from the pinned block.
    pub fn value(&self) -> &[u8] {
        self.block
            .contents()
            .get(self.value.clone())
            .unwrap_or_default()
    }

    /// Copies key and value out (what [`Table::get`] returns).
    pub fn to_entry(&self) -> TableEntry {
        TableEntry {
            key: self.key.clone(),
            value: self.value().to_vec(),
        }
    }
}

impl fmt::Debug for TableGet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableGet")
            .field("user_key", &self.user_key().escape_ascii().to_string())
            .field("seq", &self.seq)
            .field("kind", &self.kind)
            .field("value_len", &self.value.len())
            .finish()
    }
}

/// Longest seek key built without allocating.
const INLINE_SEEK_KEY_BYTES: usize = 64;

/// The seek key `(user_key, snapshot, 0xff)`, on the stack when it is short.
enum SeekKey {
    Inline([u8; INLINE_SEEK_KEY_BYTES], usize),
    Heap(Vec<u8>),
}

impl SeekKey {
    /// Snapshots above [`MAX_SEQUENCE`] see everything, as `MAX_SEQUENCE` does.
    fn new(user_key: &[u8], snapshot: SequenceNumber) -> SeekKey {
        let trailer = pack_trailer(snapshot.min(MAX_SEQUENCE), ValueKind::FOR_SEEK).to_le_bytes();
        let len = user_key.len() + TRAILER_LEN;
        if len > INLINE_SEEK_KEY_BYTES {
            let mut v = Vec::with_capacity(len);
            v.extend_from_slice(user_key);
            v.extend_from_slice(&trailer);
            return SeekKey::Heap(v);
        }
        let mut buf = [0u8; INLINE_SEEK_KEY_BYTES];
        buf[..user_key.len()].copy_from_slice(user_key);
        buf[user_key.len()..len].copy_from_slice(&trailer);
        SeekKey::Inline(buf, len)
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            SeekKey::Inline(buf, len) => &buf[..*len],
            SeekKey::Heap(v) => v,
        }
    }
}

/// The data block `multi_get` has open, or the error reading it gave.
struct OpenBlock {
    handle: BlockHandle,
    data: Result<BlockIter>,
}

impl Table {
    /// The newest point entry of `user_key` with a sequence number `<= snapshot`, with its value
    /// borrowed from the (pinned) data block; `None` when the table holds no such entry. Probes
    /// the filter first. Range tombstones are not applied and merge operands not folded (module
    /// invariant 2).
    ///
    /// # Errors
    /// [`Error::Corruption`] naming the file and the damaged block; I/O errors.
    pub fn get_pinned(
        &self,
        user_key: &[u8],
        snapshot: SequenceNumber,
    ) -> Result<Option<TableGet>> {
        self.get_pinned_with(user_key, snapshot, BlockReadOptions::default())
    }

    /// [`Table::get_pinned`] reading blocks as `ro` says: blocks read on a cache miss enter the
    /// cache only with `ro.fill_cache`, and checksums are compared only with
    /// `ro.verify_checksums` (see the reader's invariant 5).
    ///
    /// # Errors
    /// As [`Table::get_pinned`].
    pub fn get_pinned_with(
        &self,
        user_key: &[u8],
        snapshot: SequenceNumber,
        ro: BlockReadOptions,
    ) -> Result<Option<TableGet>> {
        if !self.may_contain_with(user_key, ro)? {
            return Ok(None);
        }
        let target = SeekKey::new(user_key, snapshot);
        self.find(target.as_slice(), user_key, ro)
    }

    /// The first entry `>= ikey` if it has `ikey`'s user key, copied out. Consults the filter
    /// first. With `ikey = seek_key(k, s)` this is [`Table::get_pinned`]`(k, s)` plus two copies;
    /// kept for callers that want owned bytes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `ikey` is shorter than an internal-key trailer;
    /// [`Error::Corruption`] or I/O errors from the blocks read.
    pub fn get(&self, ikey: &[u8]) -> Result<Option<TableEntry>> {
        if ikey.len() < TRAILER_LEN {
            return Err(Error::InvalidArgument(
                "lookup key is not an internal key".into(),
            ));
        }
        let ukey = user_key(ikey);
        if !self.may_contain(ukey)? {
            return Ok(None);
        }
        Ok(self
            .find(ikey, ukey, BlockReadOptions::default())?
            .map(|g| g.to_entry()))
    }

    /// [`Table::get_pinned`] for many keys at one snapshot: result `i` is what
    /// `get_pinned(user_keys[i], snapshot)` returns. Every key is first probed in the filter;
    /// the rest are looked up in user-key order with one forward walk of the index, reading each
    /// data block at most once for all the keys that fall into it (module invariant 3). Keys
    /// sorted by user key are used as given; otherwise the call sorts an index of them. Repeated
    /// keys are allowed.
    ///
    /// An error (corruption, I/O) is the result of the keys it affects: every key whose lookup
    /// needs the damaged block, or every key after a damaged index entry.
    pub fn multi_get<K: AsRef<[u8]>>(
        &self,
        user_keys: &[K],
        snapshot: SequenceNumber,
    ) -> Vec<Result<Option<TableGet>>> {
        self.multi_get_with(user_keys, snapshot, BlockReadOptions::default())
    }

    /// [`Table::multi_get`] reading blocks as `ro` says (as [`Table::get_pinned_with`]).
    pub fn multi_get_with<K: AsRef<[u8]>>(
        &self,
        user_keys: &[K],
        snapshot: SequenceNumber,
        ro: BlockReadOptions,
    ) -> Vec<Result<Option<TableGet>>> {
        let mut out: Vec<Result<Option<TableGet>>> = user_keys.iter().map(|_| Ok(None)).collect();
        let fail_all = |out: &mut Vec<Result<Option<TableGet>>>, e: Error| {
            out.iter_mut().for_each(|r| *r = Err(e.clone()));
        };
        let filter = match self.filter_block(ro) {
            Ok(f) => f,
            Err(e) => {
                fail_all(&mut out, e);
                return out;
            }
        };
        let key = |i: usize| user_keys[i].as_ref();
        let cmp = self.order();
        let mut order: Vec<usize> = (0..user_keys.len())
            .filter(|&i| self.filter_allows(filter.as_ref(), key(i)))
            .collect();
        if order
            .windows(2)
            .any(|w| cmp.compare(key(w[0]), key(w[1])).is_gt())
        {
            order.sort_by(|&a, &b| cmp.compare(key(a), key(b)));
        }
        if order.is_empty() {
            return out;
        }
        let mut index = match self.index_iter(ro) {
            Ok(it) => it,
            Err(e) => {
                fail_all(&mut out, e);
                return out;
            }
        };
        let mut open: Option<OpenBlock> = None;
        for i in order {
            let target = SeekKey::new(key(i), snapshot);
            out[i] = self.find_next(&mut index, &mut open, target.as_slice(), key(i), ro);
        }
        out
    }

    /// Seeks `target` (an internal key of user key `ukey`) through the index and the data blocks.
    fn find(&self, target: &[u8], ukey: &[u8], ro: BlockReadOptions) -> Result<Option<TableGet>> {
        let mut index = self.index_iter(ro)?;
        index.seek(target);
        while index.valid() {
            let handle = self.data_handle(index.value())?;
            let mut data = self.data_iter(handle, ro)?;
            data.seek(target);
            if data.valid() {
                return self.take_found(&mut data, handle, ukey);
            }
            data.status().map_err(|e| self.at(e, handle))?;
            // The separator can sort after the last key of its block; continue in the next one.
            index.next();
        }
        index
            .status()
            .map_err(|e| self.at(e, self.index_handle()))?;
        Ok(None)
    }

    /// [`Table::find`] for the next key of a `multi_get`, whose target is `>=` every earlier
    /// one: `index` only moves forward and `open` is reused while the key falls into it.
    fn find_next(
        &self,
        index: &mut BlockIter,
        open: &mut Option<OpenBlock>,
        target: &[u8],
        ukey: &[u8],
        ro: BlockReadOptions,
    ) -> Result<Option<TableGet>> {
        // Every entry before the current index entry's block sorts before the previous target,
        // so the current entry is still the first separator `>= target` when it is `>= target`.
        let stay =
            index.valid() && self.order().compare_internal(index.key(), target) != Ordering::Less;
        if !stay {
            index.seek(target);
        }
        loop {
            if !index.valid() {
                index
                    .status()
                    .map_err(|e| self.at(e, self.index_handle()))?;
                return Ok(None);
            }
            let handle = self.data_handle(index.value())?;
            if open.as_ref().is_some_and(|b| b.handle != handle) {
                *open = None;
            }
            let block = open.get_or_insert_with(|| OpenBlock {
                handle,
                data: self.data_iter(handle, ro),
            });
            let data = block.data.as_mut().map_err(|e| e.clone())?;
            data.seek(target);
            if data.valid() {
                return self.take_found(data, handle, ukey);
            }
            data.status().map_err(|e| self.at(e, handle))?;
            index.next();
        }
    }

    /// The entry `data` is positioned on, if it has user key `ukey`. Takes the decoded key out
    /// of `data`, which is left unpositioned.
    fn take_found(
        &self,
        data: &mut BlockIter,
        handle: BlockHandle,
        ukey: &[u8],
    ) -> Result<Option<TableGet>> {
        let p = parse_data_key(data.key()).map_err(|e| self.at(e, handle))?;
        if p.user_key != ukey {
            return Ok(None);
        }
        let (seq, kind) = (p.seq, p.kind);
        let value = data.value_range();
        let block = data.block().clone();
        Ok(Some(TableGet {
            block,
            key: data.take_key(),
            value,
            seq,
            kind,
        }))
    }
}
