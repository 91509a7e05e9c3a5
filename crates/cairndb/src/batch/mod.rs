//! Write batches: the atomic unit of the commit pipeline and the payload of one WAL record.
//! Byte-level specification: `docs/format/write_batch.md`.
//!
//! Who calls it: users build a [`WriteBatch`] on any thread and hand it to the database; the
//! commit pipeline's leader concatenates the group's batches with [`WriteBatch::append`], stamps
//! the first sequence number with [`WriteBatch::set_sequence`], writes [`WriteBatch::data`] to
//! the WAL, and each member applies its records to the memtables through [`WriteBatch::iter`].
//! Recovery rebuilds batches from WAL records with [`WriteBatch::from_bytes`]. A batch is a plain
//! value (`Send + Sync`, no interior mutability); sharing it between threads needs no locking.
//!
//! What it owns: one contiguous byte buffer, which *is* the encoding; nothing is kept on the side
//! except a cached record count.
//!
//! Invariants:
//! 1. `data()` is always a complete, valid encoding: header plus exactly `count()` well-formed
//!    records. Every mutator either appends a whole record or returns an error without changing
//!    the batch.
//! 2. Record `i` (0-based, in insertion order) is applied with sequence number
//!    `sequence() + i`, as in RocksDB; a batch therefore consumes `count()` sequence numbers.
//! 3. The encoding is canonical: `from_bytes(b)` succeeds only when re-encoding the decoded
//!    records reproduces `b` exactly.
//! 4. Decoding never panics and never allocates in proportion to a length field: lengths are
//!    checked against the bytes actually present and against [`MAX_KEY_LEN`]/[`MAX_VALUE_LEN`].

mod format;
mod owned_iter;
#[cfg(test)]
mod tests;
mod with_index;
mod with_index_iter;

use std::fmt;

pub use format::{
    has_value, tag_for, BatchEntry, MarkerKind, HEADER_LEN, MAX_KEY_LEN, MAX_VALUE_LEN,
    MAX_XID_LEN, TAG_CF_FLAG,
};
use format::{value_limit, RecordDecoder};
pub use owned_iter::OwnedBaseDeltaIter;
pub use with_index::{BatchLookup, WriteBatchWithIndex};
pub use with_index_iter::BaseDeltaIter;

use crate::error::{Error, Result};
use crate::types::{SequenceNumber, ValueKind, MAX_SEQUENCE};
use crate::util::coding::{decode_fixed32, decode_fixed64, put_length_prefixed, put_varint32};

/// The id of the default column family.
pub const DEFAULT_CF: u32 = 0;

/// An ordered, atomic group of updates across column families: [`Db::write`](crate::Db::write)
/// applies all of it or none of it, and a crash never recovers part of it.
///
/// ```
/// use cairndb::WriteBatch;
///
/// # fn main() -> cairndb::Result<()> {
/// let mut batch = WriteBatch::new();
/// batch.put(b"from", b"90")?;
/// batch.put(b"to", b"110")?;
/// batch.delete(b"pending")?;
/// batch.delete_range(b"tmp/", b"tmp0")?;
/// assert_eq!(batch.count(), 4);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct WriteBatch {
    /// Header followed by the records; always a valid encoding (invariant 1).
    rep: Vec<u8>,
    /// Number of records, mirrored in the header.
    count: u32,
    /// The largest column family id of any record (0 when every record is in the default
    /// family), so the commit path checks families only for batches that name others.
    max_cf: u32,
    /// Some record is a `Merge`, so the commit path checks merge operators only for batches
    /// that hold merges.
    needs_family_check: bool,
    /// Where the records start: right after the header, or after a two-phase-commit marker.
    records_start: usize,
    /// The batch at each open save point, oldest first (RocksDB's `WriteBatch::SetSavePoint`).
    /// Not part of the encoding, so not part of equality.
    save_points: Vec<SavePoint>,
}

/// Where a save point left the batch: enough to cut back to it without rescanning the records.
#[derive(Clone, Copy, Debug)]
struct SavePoint {
    data_size: usize,
    count: u32,
    max_cf: u32,
    needs_family_check: bool,
}

/// Two batches are equal when their encodings are (every other field follows from it, save
/// points aside).
impl PartialEq for WriteBatch {
    fn eq(&self, other: &Self) -> bool {
        self.rep == other.rep
    }
}

impl Eq for WriteBatch {}

impl Default for WriteBatch {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for WriteBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WriteBatch")
            .field("sequence", &self.sequence())
            .field("count", &self.count)
            .field("data_size", &self.rep.len())
            .finish()
    }
}

impl WriteBatch {
    /// An empty batch with sequence number 0.
    pub fn new() -> Self {
        WriteBatch {
            rep: vec![0; HEADER_LEN],
            count: 0,
            max_cf: DEFAULT_CF,
            needs_family_check: false,
            records_start: HEADER_LEN,
            save_points: Vec::new(),
        }
    }

    /// An empty batch whose buffer has room for `bytes` bytes of records without reallocating.
    pub fn with_capacity(bytes: usize) -> Self {
        let mut rep = Vec::with_capacity(HEADER_LEN.saturating_add(bytes));
        rep.resize(HEADER_LEN, 0);
        WriteBatch {
            rep,
            count: 0,
            max_cf: DEFAULT_CF,
            needs_family_check: false,
            records_start: HEADER_LEN,
            save_points: Vec::new(),
        }
    }

    /// Decodes and validates a whole batch (a WAL record payload).
    ///
    /// # Errors
    /// [`Error::Corruption`] (with an empty file name and the offset of the damage within
    /// `bytes`; the caller adds the file with [`Error::in_file`]) when the header is short, a
    /// record is malformed, the records do not number exactly the header's count, or the
    /// sequence numbers the batch would consume exceed the largest sequence number, 2^56 - 1.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self> {
        if bytes.len() < HEADER_LEN {
            return Err(Error::corruption(
                "",
                0,
                format!(
                    "write batch: {} bytes, shorter than its header",
                    bytes.len()
                ),
            ));
        }
        let seq = decode_fixed64(&bytes);
        let count = decode_fixed32(&bytes[8..]);
        if seq.saturating_add(u64::from(count)) > MAX_SEQUENCE + 1 {
            return Err(Error::corruption(
                "",
                0,
                format!("write batch: sequence {seq} + count {count} exceeds 56 bits"),
            ));
        }
        let mut decoder = RecordDecoder::new(&bytes, HEADER_LEN);
        let marker = decoder.marker()?;
        if marker.is_some_and(|(k, _)| k == MarkerKind::Rollback) && count != 0 {
            return Err(Error::corruption(
                "",
                HEADER_LEN as u64,
                "write batch: a rollback marker with records after it",
            ));
        }
        let records_start = decoder.position();
        let (max_cf, needs_family_check) = check_records(&bytes, records_start, count)?;
        Ok(WriteBatch {
            rep: bytes,
            count,
            max_cf,
            needs_family_check,
            records_start,
            save_points: Vec::new(),
        })
    }

    /// A batch of `records`' records behind a two-phase-commit marker of `kind` naming
    /// transaction `xid` (`docs/format/write_batch.md`, "Markers"). The marker consumes no
    /// sequence number and is not counted.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `xid` is empty or longer than [`MAX_XID_LEN`], when
    /// `records` already has a marker, or when a rollback marker is given records.
    pub fn with_marker(kind: MarkerKind, xid: &[u8], records: &WriteBatch) -> Result<Self> {
        if xid.is_empty() || xid.len() > MAX_XID_LEN {
            return Err(Error::InvalidArgument(format!(
                "a transaction name must be 1 to {MAX_XID_LEN} bytes, not {}",
                xid.len()
            )));
        }
        if records.marker().is_some() {
            return Err(Error::InvalidArgument(
                "the batch already has a two-phase-commit marker".into(),
            ));
        }
        if kind == MarkerKind::Rollback && !records.is_empty() {
            return Err(Error::InvalidArgument(
                "a rollback marker carries no records".into(),
            ));
        }
        let mut rep = Vec::with_capacity(records.rep.len() + xid.len() + 6);
        rep.extend_from_slice(&records.rep[..HEADER_LEN]);
        rep.push(kind.tag());
        put_length_prefixed(&mut rep, xid);
        let records_start = rep.len();
        rep.extend_from_slice(&records.rep[records.records_start..]);
        Ok(WriteBatch {
            rep,
            count: records.count,
            max_cf: records.max_cf,
            needs_family_check: records.needs_family_check,
            records_start,
            save_points: Vec::new(),
        })
    }

    /// The batch's two-phase-commit marker and the transaction name it carries, if it has one.
    pub fn marker(&self) -> Option<(MarkerKind, &[u8])> {
        if self.records_start == HEADER_LEN {
            return None;
        }
        let kind = MarkerKind::from_tag(self.rep[HEADER_LEN]).expect("a validated marker");
        let mut d = RecordDecoder::new(&self.rep, HEADER_LEN);
        let (_, xid) = d
            .marker()
            .expect("a validated marker")
            .expect("a marker is there");
        Some((kind, xid))
    }

    /// The records alone, without the marker (a copy; the sequence number is kept).
    pub fn without_marker(&self) -> WriteBatch {
        let mut rep = Vec::with_capacity(self.rep.len());
        rep.extend_from_slice(&self.rep[..HEADER_LEN]);
        rep.extend_from_slice(&self.rep[self.records_start..]);
        WriteBatch {
            rep,
            count: self.count,
            max_cf: self.max_cf,
            needs_family_check: self.needs_family_check,
            records_start: HEADER_LEN,
            save_points: Vec::new(),
        }
    }

    /// The encoded batch: what the WAL stores.
    pub fn data(&self) -> &[u8] {
        &self.rep
    }

    /// Gives up the encoded bytes.
    pub fn into_bytes(self) -> Vec<u8> {
        self.rep
    }

    /// Number of records.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Size of the encoding in bytes, header included.
    pub fn data_size(&self) -> usize {
        self.rep.len()
    }

    /// True when the batch has no records.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Removes every record and every save point; keeps the sequence number and the buffer's
    /// capacity.
    pub fn clear(&mut self) {
        self.save_points.clear();
        self.rep.truncate(HEADER_LEN);
        self.records_start = HEADER_LEN;
        self.set_count(0);
        self.max_cf = DEFAULT_CF;
        self.needs_family_check = false;
    }

    /// The largest column family id any record names (0: only the default family).
    pub fn max_column_family(&self) -> u32 {
        self.max_cf
    }

    /// Whether the batch is a prepared transaction's (a `Prepare` marker): logged, never applied
    /// to the memtables.
    pub fn is_prepare(&self) -> bool {
        self.marker().is_some_and(|(k, _)| k == MarkerKind::Prepare)
    }

    /// Whether some record is a `Merge` or a `RangeDelete`: the records whose validity depends
    /// on their column family (a merge operator; the comparator that orders a range's bounds).
    pub fn needs_family_check(&self) -> bool {
        self.needs_family_check
    }

    /// The sequence number of the first record.
    pub fn sequence(&self) -> SequenceNumber {
        decode_fixed64(&self.rep)
    }

    /// Sets the sequence number of the first record (the commit pipeline does this).
    ///
    /// # Panics
    /// If `seq + count()` exceeds `MAX_SEQUENCE + 1`: the pipeline must never hand out sequence
    /// numbers past 56 bits, so this is a bug in the caller.
    pub fn set_sequence(&mut self, seq: SequenceNumber) {
        assert!(
            seq.saturating_add(u64::from(self.count)) <= MAX_SEQUENCE + 1,
            "sequence number {seq} with {} records exceeds 56 bits",
            self.count
        );
        self.rep[..8].copy_from_slice(&seq.to_le_bytes());
    }

    /// Sets `key` to `value` in the default column family.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the key is longer than 8 MiB, the value longer than
    /// 1 GiB, or the batch already holds `u32::MAX` records.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.put_cf(DEFAULT_CF, key, value)
    }

    /// Sets `key` to `value` in column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatch::put`].
    pub fn put_cf(&mut self, cf: u32, key: &[u8], value: &[u8]) -> Result<()> {
        self.add_record(cf, ValueKind::Put, key, value)
    }

    /// Deletes `key` in the default column family.
    ///
    /// # Errors
    /// As [`WriteBatch::put`] (the key limit and the record count).
    pub fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.delete_cf(DEFAULT_CF, key)
    }

    /// Deletes `key` in column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatch::delete`].
    pub fn delete_cf(&mut self, cf: u32, key: &[u8]) -> Result<()> {
        self.add_record(cf, ValueKind::Delete, key, &[])
    }

    /// Deletes `key` in the default column family, promising that it was put at most once since
    /// it was last deleted (RocksDB's `SingleDelete`).
    ///
    /// # Errors
    /// As [`WriteBatch::delete`].
    pub fn single_delete(&mut self, key: &[u8]) -> Result<()> {
        self.single_delete_cf(DEFAULT_CF, key)
    }

    /// [`WriteBatch::single_delete`] in column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatch::delete`].
    pub fn single_delete_cf(&mut self, cf: u32, key: &[u8]) -> Result<()> {
        self.add_record(cf, ValueKind::SingleDelete, key, &[])
    }

    /// Deletes every key in `[begin, end)` of the default column family.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when either bound is longer than 8 MiB, or when the batch is
    /// full. `begin == end` is accepted and deletes nothing. Whether `begin` sorts after `end`
    /// depends on the column family's comparator, so that is checked when the batch is written
    /// (the write then fails with [`Error::InvalidArgument`] and nothing of it is applied).
    pub fn delete_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        self.delete_range_cf(DEFAULT_CF, begin, end)
    }

    /// [`WriteBatch::delete_range`] in column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatch::delete_range`].
    pub fn delete_range_cf(&mut self, cf: u32, begin: &[u8], end: &[u8]) -> Result<()> {
        self.add_record(cf, ValueKind::RangeDelete, begin, end)
    }

    /// Adds merge operand `value` for `key` in the default column family.
    ///
    /// # Errors
    /// As [`WriteBatch::put`].
    pub fn merge(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.merge_cf(DEFAULT_CF, key, value)
    }

    /// [`WriteBatch::merge`] in column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatch::put`].
    pub fn merge_cf(&mut self, cf: u32, key: &[u8], value: &[u8]) -> Result<()> {
        self.add_record(cf, ValueKind::Merge, key, value)
    }

    /// Appends every record of `other` after those of `self` (group commit). `self` keeps its
    /// sequence number, so `other`'s records get the numbers after `self`'s.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the combined count would exceed `u32::MAX` or the
    /// combined sequence range 56 bits, or when either batch has a two-phase-commit marker (a
    /// marked batch is a WAL record of its own); `self` is unchanged then.
    pub fn append(&mut self, other: &WriteBatch) -> Result<()> {
        if self.records_start != HEADER_LEN || other.records_start != HEADER_LEN {
            return Err(Error::InvalidArgument(
                "write batch: a batch with a two-phase-commit marker cannot be combined".into(),
            ));
        }
        let count = self
            .count
            .checked_add(other.count)
            .filter(|&c| self.sequence().saturating_add(u64::from(c)) <= MAX_SEQUENCE + 1)
            .ok_or_else(|| Error::InvalidArgument("write batch: too many records".into()))?;
        self.rep.extend_from_slice(&other.rep[HEADER_LEN..]);
        self.set_count(count);
        self.max_cf = self.max_cf.max(other.max_cf);
        self.needs_family_check |= other.needs_family_check;
        Ok(())
    }

    /// The records in order. Each item is `Ok` for a batch built through this API or decoded by
    /// [`WriteBatch::from_bytes`] (both validate); the `Result` keeps the door open for lazily
    /// validated batches and lets callers use `?`.
    pub fn iter(&self) -> BatchIter<'_> {
        BatchIter {
            decoder: RecordDecoder::new(&self.rep, self.records_start),
            remaining: self.count,
        }
    }

    /// Validates sizes, then appends one record (invariant 1: all or nothing).
    fn add_record(&mut self, cf: u32, kind: ValueKind, key: &[u8], value: &[u8]) -> Result<()> {
        check_len("key", key.len(), MAX_KEY_LEN)?;
        check_len("value", value.len(), value_limit(kind))?;
        let count = self
            .count
            .checked_add(1)
            .filter(|&c| self.sequence().saturating_add(u64::from(c)) <= MAX_SEQUENCE + 1)
            .ok_or_else(|| Error::InvalidArgument("write batch: too many records".into()))?;
        self.rep.push(tag_for(kind, cf));
        self.needs_family_check |= kind_needs_family_check(kind);
        if cf != DEFAULT_CF {
            put_varint32(&mut self.rep, cf);
            self.max_cf = self.max_cf.max(cf);
        }
        put_length_prefixed(&mut self.rep, key);
        if has_value(kind) {
            put_length_prefixed(&mut self.rep, value);
        }
        self.set_count(count);
        Ok(())
    }

    /// The number of save points open.
    pub fn save_point_count(&self) -> usize {
        self.save_points.len()
    }

    /// Remembers the batch as it is now; [`WriteBatch::rollback_to_save_point`] returns to it.
    /// Save points nest.
    pub fn set_save_point(&mut self) {
        self.save_points.push(SavePoint {
            data_size: self.rep.len(),
            count: self.count,
            max_cf: self.max_cf,
            needs_family_check: self.needs_family_check,
        });
    }

    /// Removes every record added since the last save point, and that save point. Constant
    /// time apart from the truncation.
    ///
    /// # Errors
    /// [`Error::NotFound`] when no save point is open (RocksDB's status too);
    /// [`Error::NotSupported`] for a batch with a two-phase-commit marker. Nothing changes then.
    pub fn rollback_to_save_point(&mut self) -> Result<()> {
        if self.records_start != HEADER_LEN {
            return Err(Error::NotSupported(
                "a batch with a two-phase-commit marker cannot roll back".into(),
            ));
        }
        let sp = self
            .save_points
            .pop()
            .ok_or_else(|| Error::NotFound("no save point to roll back to".into()))?;
        self.rep.truncate(sp.data_size);
        self.set_count(sp.count);
        self.max_cf = sp.max_cf;
        self.needs_family_check = sp.needs_family_check;
        Ok(())
    }

    /// Forgets the last save point and keeps its records.
    ///
    /// # Errors
    /// [`Error::NotFound`] when no save point is open.
    pub fn pop_save_point(&mut self) -> Result<()> {
        self.save_points
            .pop()
            .map(|_| ())
            .ok_or_else(|| Error::NotFound("no save point to pop".into()))
    }

    /// Cuts the batch back to its first `count` records, which end at byte `data_size` (a
    /// savepoint taken as `(data_size(), count())`). Used to roll a transaction back to a
    /// savepoint.
    ///
    /// # Panics
    /// If `(data_size, count)` is not a point this batch passed through (a bug in the caller).
    pub(crate) fn truncate(&mut self, data_size: usize, count: u32) {
        assert!(data_size >= HEADER_LEN && data_size <= self.rep.len() && count <= self.count);
        assert_eq!(
            self.records_start, HEADER_LEN,
            "a marked batch is never truncated"
        );
        self.rep.truncate(data_size);
        // Save points past the cut no longer name a point of this batch.
        self.save_points.retain(|sp| sp.data_size <= data_size);
        self.set_count(count);
        let (max_cf, needs_family_check) =
            check_records(&self.rep, HEADER_LEN, count).expect("a savepoint is a record boundary");
        self.max_cf = max_cf;
        self.needs_family_check = needs_family_check;
    }

    fn set_count(&mut self, count: u32) {
        self.count = count;
        self.rep[8..HEADER_LEN].copy_from_slice(&count.to_le_bytes());
    }
}

impl<'a> IntoIterator for &'a WriteBatch {
    type Item = Result<BatchEntry<'a>>;
    type IntoIter = BatchIter<'a>;

    fn into_iter(self) -> BatchIter<'a> {
        self.iter()
    }
}

/// Iterator over the records of a [`WriteBatch`]; see [`WriteBatch::iter`].
#[derive(Debug, Clone)]
pub struct BatchIter<'a> {
    decoder: RecordDecoder<'a>,
    remaining: u32,
}

impl<'a> Iterator for BatchIter<'a> {
    type Item = Result<BatchEntry<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        let r = self.decoder.next_record();
        // After an error there is nothing trustworthy left to decode.
        self.remaining = if r.is_ok() { self.remaining - 1 } else { 0 };
        Some(r)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.remaining as usize))
    }
}

fn check_len(what: &str, len: usize, max: usize) -> Result<()> {
    if len > max {
        return Err(Error::InvalidArgument(format!(
            "write batch: {what} of {len} bytes exceeds the limit of {max}"
        )));
    }
    Ok(())
}

/// Whether records of `kind` need their column family checked before they are written.
fn kind_needs_family_check(kind: ValueKind) -> bool {
    matches!(kind, ValueKind::Merge | ValueKind::RangeDelete)
}

/// Decodes every record after the header; the count must match `expected` exactly. Returns the
/// largest column family id named.
/// Validates the records; returns the largest column family id and whether any record needs
/// its family checked ([`WriteBatch::needs_family_check`]).
fn check_records(bytes: &[u8], start: usize, expected: u32) -> Result<(u32, bool)> {
    let mut decoder = RecordDecoder::new(bytes, start);
    let mut found: u32 = 0;
    let mut max_cf = DEFAULT_CF;
    let mut needs_family_check = false;
    while !decoder.at_end() {
        let record = decoder.next_record()?;
        max_cf = max_cf.max(record.cf);
        needs_family_check |= kind_needs_family_check(record.kind);
        found = found
            .checked_add(1)
            .filter(|&f| f <= expected)
            .ok_or_else(|| {
                Error::corruption(
                    "",
                    8,
                    format!("write batch: more records than the header's count {expected}"),
                )
            })?;
    }
    if found != expected {
        return Err(Error::corruption(
            "",
            8,
            format!("write batch: header says {expected} records, found {found}"),
        ));
    }
    Ok((max_cf, needs_family_check))
}
