//! The byte layout of a write batch: header, record tags, size limits, and the decoder of one
//! record. Specification: `docs/format/write_batch.md` (keep the two in step).
//!
//! Decoding is strict so that the encoding is canonical: a byte string that decodes at all
//! re-encodes to exactly the same bytes. That is what lets the fuzz target compare bytes, and it
//! means any bit flip that still decodes changes the batch in a way a checksum upstream (the WAL
//! fragment's) is needed to catch; this decoder only guarantees "well-formed or Corruption".

use crate::error::{Error, Result};
use crate::types::ValueKind;
use crate::util::coding::{get_varint64, varint_len};

/// Bytes before the first record: fixed64 LE starting sequence number, fixed32 LE record count.
pub const HEADER_LEN: usize = 12;

/// The largest user key a batch accepts, in bytes (8 MiB). Applies to range-deletion bounds too.
pub const MAX_KEY_LEN: usize = 8 << 20;

/// The largest value or merge operand a batch accepts, in bytes (1 GiB). Values this large
/// belong in blob storage; the limit keeps every length well inside `u32` in the memtable and
/// bounds what a damaged length field can make a reader believe.
pub const MAX_VALUE_LEN: usize = 1 << 30;

/// The largest name (XID) of a two-phase-commit transaction a marker accepts, in bytes.
pub const MAX_XID_LEN: usize = 512;

/// The tags of the two-phase-commit markers (`docs/format/write_batch.md`, "Markers"). A marker
/// is at most one, right after the header, and is not a record: it is not counted and consumes
/// no sequence number.
pub const TAG_PREPARE: u8 = 0x30;
/// See [`TAG_PREPARE`].
pub const TAG_COMMIT: u8 = 0x31;
/// See [`TAG_PREPARE`].
pub const TAG_ROLLBACK: u8 = 0x32;

/// What a two-phase-commit marker says of the records after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerKind {
    /// The records are a prepared transaction's writes: logged, not applied.
    Prepare,
    /// The records are a prepared transaction's writes, committed: applied as any batch's.
    Commit,
    /// The prepared transaction is rolled back; no records follow.
    Rollback,
}

impl MarkerKind {
    /// The marker's tag.
    pub fn tag(self) -> u8 {
        match self {
            MarkerKind::Prepare => TAG_PREPARE,
            MarkerKind::Commit => TAG_COMMIT,
            MarkerKind::Rollback => TAG_ROLLBACK,
        }
    }

    /// The marker a tag stands for, if it is one.
    pub fn from_tag(tag: u8) -> Option<Self> {
        match tag {
            TAG_PREPARE => Some(MarkerKind::Prepare),
            TAG_COMMIT => Some(MarkerKind::Commit),
            TAG_ROLLBACK => Some(MarkerKind::Rollback),
            _ => None,
        }
    }
}

/// Set in a tag when a column-family id (varint32) follows the tag.
pub const TAG_CF_FLAG: u8 = 0x10;

/// The tag of a record: the [`ValueKind`] byte, plus [`TAG_CF_FLAG`] when the record names a
/// column family other than the default one (id 0). Persisted; never renumbered; 0 is invalid.
#[inline]
pub fn tag_for(kind: ValueKind, cf: u32) -> u8 {
    if cf == 0 {
        kind as u8
    } else {
        kind as u8 | TAG_CF_FLAG
    }
}

/// Whether records of `kind` carry a second length-prefixed field (value, operand, end key).
#[inline]
pub fn has_value(kind: ValueKind) -> bool {
    matches!(
        kind,
        ValueKind::Put | ValueKind::Merge | ValueKind::RangeDelete
    )
}

/// The limit that applies to the second field of a record of `kind`.
#[inline]
pub fn value_limit(kind: ValueKind) -> usize {
    if kind == ValueKind::RangeDelete {
        MAX_KEY_LEN
    } else {
        MAX_VALUE_LEN
    }
}

/// One record of a batch, borrowed from the batch's bytes.
///
/// For `Delete` and `SingleDelete` the value is empty; for `RangeDelete` `key` is the inclusive
/// begin key and `value` the exclusive end key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchEntry<'a> {
    /// Column family id; 0 is the default column family.
    pub cf: u32,
    /// What the record does.
    pub kind: ValueKind,
    /// The user key (the begin key of a range deletion).
    pub key: &'a [u8],
    /// The value, merge operand or range-deletion end key; empty for point deletions.
    pub value: &'a [u8],
}

/// A decoding cursor over the records of a batch (the bytes after the header). `offset` counts
/// from the start of the whole batch so that errors name the byte where the bad record starts.
#[derive(Debug, Clone)]
pub struct RecordDecoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> RecordDecoder<'a> {
    /// Starts at byte `pos` of `buf` (normally [`HEADER_LEN`]).
    pub fn new(buf: &'a [u8], pos: usize) -> Self {
        RecordDecoder { buf, pos }
    }

    /// Where the decoder is (bytes from the start of the batch).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Decodes a two-phase-commit marker (tag and XID) at the decoder's position, if the byte
    /// there is a marker tag; leaves the position unchanged otherwise.
    ///
    /// # Errors
    /// Corruption when the XID is cut short, empty, or longer than [`MAX_XID_LEN`].
    pub fn marker(&mut self) -> Result<Option<(MarkerKind, &'a [u8])>> {
        let start = self.pos;
        let Some(kind) = self.buf.get(start).copied().and_then(MarkerKind::from_tag) else {
            return Ok(None);
        };
        let bad = |msg: &str| Error::corruption("", start as u64, format!("write batch: {msg}"));
        self.pos += 1;
        let xid = self.field(MAX_XID_LEN).map_err(&bad)?;
        if xid.is_empty() {
            return Err(bad("empty transaction name in a two-phase-commit marker"));
        }
        Ok(Some((kind, xid)))
    }

    /// True when every byte was consumed.
    pub fn at_end(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// Decodes the next record.
    ///
    /// # Errors
    /// Corruption (file name empty, offset of the record's tag) when the record is cut short,
    /// has an unknown tag, a non-minimal varint, an explicit column family 0, a field above its
    /// size limit, or a range deletion whose begin key sorts after its end key.
    pub fn next_record(&mut self) -> Result<BatchEntry<'a>> {
        let start = self.pos;
        let bad = |msg: &str| Error::corruption("", start as u64, format!("write batch: {msg}"));
        let tag = self.byte().ok_or_else(|| bad("record cut short"))?;
        let kind = ValueKind::from_u8(tag & !TAG_CF_FLAG)
            .ok_or_else(|| bad(&format!("unknown record tag {tag:#04x}")))?;
        let cf = if tag & TAG_CF_FLAG != 0 {
            let cf = self.varint(u64::from(u32::MAX)).map_err(&bad)?;
            if cf == 0 {
                return Err(bad("explicit column family 0 (must use the default tag)"));
            }
            cf as u32
        } else {
            0
        };
        let key = self.field(MAX_KEY_LEN).map_err(&bad)?;
        let value = if has_value(kind) {
            self.field(value_limit(kind)).map_err(&bad)?
        } else {
            &[]
        };
        // A range's bounds are ordered by its column family's comparator, which the batch
        // does not know: the write path checks them (db/write.rs, `check_families`).
        Ok(BatchEntry {
            cf,
            kind,
            key,
            value,
        })
    }

    fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// A minimal varint no larger than `max`.
    fn varint(&mut self, max: u64) -> Result<u64, &'static str> {
        let (v, n) = get_varint64(&self.buf[self.pos.min(self.buf.len())..])
            .ok_or("truncated or overlong varint")?;
        if n != varint_len(v) {
            return Err("non-minimal varint");
        }
        if v > max {
            return Err("length or id above its limit");
        }
        self.pos += n;
        Ok(v)
    }

    /// A varint length no larger than `max`, then that many bytes.
    fn field(&mut self, max: usize) -> Result<&'a [u8], &'static str> {
        let n = self.varint(max as u64)? as usize;
        let end = self.pos.checked_add(n).ok_or("field cut short")?;
        let bytes = self.buf.get(self.pos..end).ok_or("field cut short")?;
        self.pos = end;
        Ok(bytes)
    }
}
