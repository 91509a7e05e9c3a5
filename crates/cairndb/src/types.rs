//! Sequence numbers, value kinds, internal keys and range tombstones: the vocabulary shared by the
//! memtable, the WAL batches, the SST files and compaction.
//!
//! An *internal key* is a user key followed by an 8-byte little-endian trailer
//! `(sequence << 8) | kind`. Internal keys order by user key in the column family's order
//! ([`crate::comparator::KeyOrder`]), then by trailer descending, so that for one user key the
//! newest entry comes first. The on-disk layout is
//! specified in `docs/format/sstable.md`.
//!
//! Invariants:
//! 1. A sequence number fits in 56 bits ([`MAX_SEQUENCE`]).
//! 2. [`ValueKind`] values are persisted; they are never renumbered and 0 is invalid.

use crate::error::{Error, Result};

/// A write's position in the total order of writes. Snapshots are sequence numbers.
pub type SequenceNumber = u64;

/// The largest sequence number an internal key can carry (56 bits).
pub const MAX_SEQUENCE: SequenceNumber = (1 << 56) - 1;

/// Length of the trailer that follows the user key in an internal key.
pub const TRAILER_LEN: usize = 8;

/// What an internal key's entry means. Persisted: values never change, 0 is reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum ValueKind {
    /// The key was deleted; hides older entries.
    Delete = 1,
    /// The key maps to the value.
    Put = 2,
    /// A delete that promises the key was put at most once since the previous delete.
    SingleDelete = 3,
    /// A merge operand to fold into older entries with the merge operator.
    Merge = 4,
    /// A range tombstone: deletes user keys in `[key, value)`.
    RangeDelete = 5,
}

impl ValueKind {
    /// The kind used to build seek keys: sorts before every real kind at the same sequence.
    pub const FOR_SEEK: u8 = 0xff;

    /// Decodes a persisted kind byte.
    pub fn from_u8(b: u8) -> Option<ValueKind> {
        Some(match b {
            1 => ValueKind::Delete,
            2 => ValueKind::Put,
            3 => ValueKind::SingleDelete,
            4 => ValueKind::Merge,
            5 => ValueKind::RangeDelete,
            _ => return None,
        })
    }
}

/// Packs a sequence number and a kind byte into a trailer.
#[inline]
pub fn pack_trailer(seq: SequenceNumber, kind: u8) -> u64 {
    debug_assert!(seq <= MAX_SEQUENCE);
    (seq << 8) | u64::from(kind)
}

/// Appends the internal key for `(user_key, seq, kind)` to `out`.
#[inline]
pub fn append_internal_key(out: &mut Vec<u8>, user_key: &[u8], seq: SequenceNumber, kind: u8) {
    out.extend_from_slice(user_key);
    out.extend_from_slice(&pack_trailer(seq, kind).to_le_bytes());
}

/// Builds an owned internal key.
pub fn make_internal_key(user_key: &[u8], seq: SequenceNumber, kind: ValueKind) -> Vec<u8> {
    let mut v = Vec::with_capacity(user_key.len() + TRAILER_LEN);
    append_internal_key(&mut v, user_key, seq, kind as u8);
    v
}

/// The internal key that positions an iterator at the newest entry of `user_key` visible at `seq`.
pub fn seek_key(user_key: &[u8], seq: SequenceNumber) -> Vec<u8> {
    let mut v = Vec::with_capacity(user_key.len() + TRAILER_LEN);
    append_internal_key(&mut v, user_key, seq, ValueKind::FOR_SEEK);
    v
}

/// The largest key of a table's range-deletion extent: `(end, MAX_SEQUENCE, RangeDelete)` for a
/// tombstone ending (exclusively) at user key `end`, RocksDB's `kMaxSequenceNumber` +
/// `kTypeRangeDeletion` sentinel.
///
/// It sorts before every point entry of `end` (no point kind has a larger trailer; only seek keys
/// at `MAX_SEQUENCE` sort before it), so a file whose largest key is this sentinel claims no point
/// entry of `end`, and a neighbouring file may start at `end` without the two overlapping in
/// internal-key order.
pub fn range_deletion_sentinel(end: &[u8]) -> Vec<u8> {
    make_internal_key(end, MAX_SEQUENCE, ValueKind::RangeDelete)
}

/// A range tombstone, owned: user keys in `[begin, end)` written at a sequence number below `seq`
/// are deleted for readers whose snapshot is at or above `seq`. Memtables and tables store it as
/// the internal key `(begin, seq, RangeDelete)` with `end` as the value.
///
/// The one owned form of a range deletion in the engine: a table's decoded range-deletion block,
/// the input of [`RangeDelSet`](crate::iter::RangeDelSet) (fragmenting), flush and compaction
/// outputs. A memtable lends borrowed ones
/// ([`RangeTombstoneRef`](crate::memtable::RangeTombstoneRef)). A tombstone with `begin >= end`
/// deletes nothing; tables never store one.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RangeTombstone {
    /// Inclusive begin user key.
    pub begin: Vec<u8>,
    /// Exclusive end user key.
    pub end: Vec<u8>,
    /// Sequence number of the deletion.
    pub seq: SequenceNumber,
}

impl RangeTombstone {
    /// The tombstone `[begin, end)` at `seq`.
    pub fn new(begin: &[u8], end: &[u8], seq: SequenceNumber) -> Self {
        RangeTombstone {
            begin: begin.to_vec(),
            end: end.to_vec(),
            seq,
        }
    }

    /// True when `user_key` lies in `[begin, end)` in `order`.
    pub fn contains(&self, order: &crate::comparator::KeyOrder, user_key: &[u8]) -> bool {
        order.compare(&self.begin, user_key).is_le() && order.compare(user_key, &self.end).is_lt()
    }

    /// The key the tombstone is stored under: `(begin, seq, RangeDelete)`. The smallest key of a
    /// table's range-deletion extent is the smallest of these.
    pub fn begin_key(&self) -> Vec<u8> {
        make_internal_key(&self.begin, self.seq, ValueKind::RangeDelete)
    }

    /// The largest key of the tombstone's extent: [`range_deletion_sentinel`] of `end`.
    pub fn end_key(&self) -> Vec<u8> {
        range_deletion_sentinel(&self.end)
    }
}

/// A borrowed, decoded internal key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedKey<'a> {
    /// The user's key.
    pub user_key: &'a [u8],
    /// The entry's sequence number.
    pub seq: SequenceNumber,
    /// The entry's kind.
    pub kind: ValueKind,
}

impl<'a> ParsedKey<'a> {
    /// Decodes an internal key; a short key or an unknown kind is corruption.
    pub fn parse(ikey: &'a [u8]) -> Result<ParsedKey<'a>> {
        if ikey.len() < TRAILER_LEN {
            return Err(Error::corruption(
                "",
                0,
                "internal key shorter than its trailer",
            ));
        }
        let trailer = trailer(ikey);
        let kind = ValueKind::from_u8(trailer as u8).ok_or_else(|| {
            Error::corruption("", 0, format!("unknown value kind {}", trailer as u8))
        })?;
        Ok(ParsedKey {
            user_key: user_key(ikey),
            seq: trailer >> 8,
            kind,
        })
    }
}

/// The user-key part of an internal key. Requires `ikey.len() >= TRAILER_LEN`.
#[inline]
pub fn user_key(ikey: &[u8]) -> &[u8] {
    &ikey[..ikey.len() - TRAILER_LEN]
}

/// The trailer of an internal key. Requires `ikey.len() >= TRAILER_LEN`.
#[inline]
pub fn trailer(ikey: &[u8]) -> u64 {
    let n = ikey.len();
    u64::from_le_bytes(ikey[n - TRAILER_LEN..].try_into().expect("8 bytes"))
}

/// Compression applied to a block. Persisted: values never change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum CompressionType {
    /// Stored as is.
    #[default]
    None = 0,
    /// LZ4 block format (lz4_flex), uncompressed length prepended as a varint.
    Lz4 = 1,
    /// Zstandard frame, uncompressed length prepended as a varint (so decompression is bounded
    /// before it allocates; see docs/format/sstable.md).
    Zstd = 2,
    /// Snappy raw format (the `snap` crate; RocksDB's `kSnappyCompression`, its default codec),
    /// uncompressed length prepended as a varint like the others.
    Snappy = 3,
}

impl CompressionType {
    /// Decodes a persisted compression byte.
    pub fn from_u8(b: u8) -> Option<CompressionType> {
        Some(match b {
            0 => CompressionType::None,
            1 => CompressionType::Lz4,
            2 => CompressionType::Zstd,
            3 => CompressionType::Snappy,
            _ => return None,
        })
    }

    /// RocksDB's spelling (`kNoCompression`, `kLZ4Compression`, `kZSTD`, `kSnappyCompression`).
    pub fn rocksdb_name(self) -> &'static str {
        match self {
            CompressionType::None => "kNoCompression",
            CompressionType::Lz4 => "kLZ4Compression",
            CompressionType::Zstd => "kZSTD",
            CompressionType::Snappy => "kSnappyCompression",
        }
    }

    /// Parses RocksDB's or db_bench's spelling (`kLZ4Compression`, `lz4`, `zstd`, `snappy`,
    /// `none`, ...).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a codec CairnDB does not build (zlib, bzip2, LZ4HC,
    /// xpress) or an unknown name.
    pub fn parse(s: &str) -> Result<CompressionType> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "none" | "knocompression" | "no" => CompressionType::None,
            "lz4" | "klz4compression" => CompressionType::Lz4,
            "zstd" | "kzstd" | "kzstdnotfinalcompression" => CompressionType::Zstd,
            "snappy" | "ksnappycompression" => CompressionType::Snappy,
            other @ ("lz4hc" | "klz4hccompression") => {
                return Err(Error::InvalidArgument(format!(
                    "compression type {other:?} (LZ4HC) is not built in CairnDB; \
                     kLZ4Compression writes the same block format at LZ4's default speed"
                )))
            }
            other => {
                return Err(Error::InvalidArgument(format!(
                    "unsupported compression type {other:?}"
                )))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn internal_key_order() {
        let compare_internal =
            |a: &[u8], b: &[u8]| crate::comparator::KeyOrder::BYTEWISE.compare_internal(a, b);
        let a1 = make_internal_key(b"a", 1, ValueKind::Put);
        let a9 = make_internal_key(b"a", 9, ValueKind::Put);
        let b0 = make_internal_key(b"b", 0, ValueKind::Put);
        assert_eq!(compare_internal(&a9, &a1), Ordering::Less, "newer first");
        assert_eq!(compare_internal(&a1, &b0), Ordering::Less);
        assert_eq!(
            compare_internal(&seek_key(b"a", 9), &a9),
            Ordering::Less,
            "seek key first"
        );
        assert_eq!(
            compare_internal(&seek_key(b"a", 5), &a9),
            Ordering::Greater,
            "hides newer"
        );
    }

    #[test]
    fn parse_round_trip_and_errors() {
        let k = make_internal_key(b"key", 42, ValueKind::Merge);
        let p = ParsedKey::parse(&k).expect("parse");
        assert_eq!(
            (p.user_key, p.seq, p.kind),
            (&b"key"[..], 42, ValueKind::Merge)
        );
        assert!(ParsedKey::parse(b"short").unwrap_err().is_corruption());
        let mut bad = k.clone();
        let n = bad.len();
        bad[n - 8] = 77;
        assert!(ParsedKey::parse(&bad).unwrap_err().is_corruption());
    }

    #[test]
    fn persisted_enums_round_trip() {
        for b in 0..=255u8 {
            if let Some(k) = ValueKind::from_u8(b) {
                assert_eq!(k as u8, b);
            }
            if let Some(c) = CompressionType::from_u8(b) {
                assert_eq!(c as u8, b);
            }
        }
        assert_eq!(ValueKind::from_u8(0), None);
        assert_eq!(
            CompressionType::parse("kLZ4Compression").ok(),
            Some(CompressionType::Lz4)
        );
        assert_eq!(
            CompressionType::parse("kSnappyCompression").ok(),
            Some(CompressionType::Snappy)
        );
        assert!(CompressionType::parse("lz4hc").is_err());
        assert!(CompressionType::parse("kZlibCompression").is_err());
    }
}
