//! The range-deletion block: a table's range tombstones, kept apart from its point entries as
//! RocksDB keeps them (meta block `rocksdb.range_del`). Spec: `docs/format/sstable.md`, section
//! "Range-deletion block".
//!
//! The table builder collects tombstones, in any order, in a [`RangeDelCollector`] and writes them
//! sorted when it finishes; the reader decodes the block once when the table is opened into
//! [`RangeTombstone`]s (the engine's one owned tombstone type) that the table keeps for its
//! lifetime (every point read needs them). Plain data, no threads.
//!
//! Invariants:
//! 1. The block is an entries block of `(begin, seq, RangeDelete)` internal keys mapped to end
//!    user keys, strictly increasing in internal-key order, every range non-empty
//!    (`begin < end` in the table's comparator order).
//! 2. A tombstone with `begin == end` deletes nothing and is never stored. Two tombstones with
//!    the same begin key and sequence number are stored as one ending at the larger end key: at
//!    one sequence number, `[b, e1)` and `[b, e2)` delete exactly what `[b, max(e1, e2))` deletes.
//! 3. The decoder accepts nothing else: another kind, an empty or inverted range, or keys out of
//!    order are corruption.

use std::cmp::Ordering;

use super::block::{BlockIter, BlockRef};
use super::block_builder::BlockBuilder;
use super::writer::MAX_ENTRY_BYTES;
use crate::comparator::{EntryOrder, KeyOrder};
use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use crate::types::{
    ParsedKey, RangeTombstone, SequenceNumber, ValueKind, MAX_SEQUENCE, TRAILER_LEN,
};

/// The most bytes of tombstones (begin keys with trailers plus end keys) one table may buffer, so
/// that the block's offsets stay 32-bit with a wide margin.
const MAX_RANGE_DEL_BYTES: usize = 2 << 30;

/// Internal-key order of the stored keys `(begin, seq, RangeDelete)`: begin ascending in
/// `order`, then newest first.
fn cmp_stored(order: &KeyOrder, a: &RangeTombstone, b: &RangeTombstone) -> Ordering {
    order
        .compare(&a.begin, &b.begin)
        .then_with(|| b.seq.cmp(&a.seq))
}

/// The builder's buffer of tombstones, sorted and written at the end.
#[derive(Debug, Default)]
pub(crate) struct RangeDelCollector {
    order: KeyOrder,
    items: Vec<RangeTombstone>,
    /// Bytes the buffered tombstones will take as entries (keys with trailers plus end keys).
    bytes: usize,
}

impl RangeDelCollector {
    /// An empty buffer for tombstones ordered by `order`.
    pub(crate) fn new(order: KeyOrder) -> RangeDelCollector {
        RangeDelCollector {
            order,
            ..RangeDelCollector::default()
        }
    }

    /// Buffers the tombstone `[begin, end)` at `seq`; a tombstone with `begin == end` is accepted
    /// and dropped (invariant 2).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `begin > end`, `seq` is over [`MAX_SEQUENCE`], the entry is
    /// over [`MAX_ENTRY_BYTES`] or the table's tombstones would exceed 2 GiB. Nothing of a
    /// rejected tombstone is kept.
    pub(crate) fn add(&mut self, begin: &[u8], end: &[u8], seq: SequenceNumber) -> Result<()> {
        let bad = |msg: String| Err(Error::InvalidArgument(msg));
        if self.order.compare(begin, end).is_gt() {
            return bad(format!(
                "range deletion begin {begin:02x?} sorts after its end {end:02x?}"
            ));
        }
        if seq > MAX_SEQUENCE {
            return bad(format!(
                "range deletion sequence number {seq} is over {MAX_SEQUENCE}"
            ));
        }
        let len = begin.len() + TRAILER_LEN + end.len();
        if len > MAX_ENTRY_BYTES {
            return bad(format!(
                "range deletion of {len} bytes is over the limit of {MAX_ENTRY_BYTES}"
            ));
        }
        if self.bytes + len > MAX_RANGE_DEL_BYTES {
            return bad("table too large: range deletions over 2 GiB".into());
        }
        if begin == end {
            return Ok(());
        }
        self.items.push(RangeTombstone::new(begin, end, seq));
        self.bytes += len;
        Ok(())
    }

    /// Tombstones buffered (before merging duplicates).
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Bytes of the buffered tombstones as entries.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// The tombstones in stored order, duplicates merged (invariant 2). Empties the buffer.
    pub(crate) fn finish(&mut self) -> Vec<RangeTombstone> {
        let mut items = std::mem::take(&mut self.items);
        self.bytes = 0;
        let order = &self.order;
        items.sort_by(|a, b| cmp_stored(order, a, b));
        // `dedup_by` passes the later element first and keeps the earlier one.
        items.dedup_by(|later, kept| {
            let same = later.begin == kept.begin && later.seq == kept.seq;
            if same && order.compare(&later.end, &kept.end).is_gt() {
                std::mem::swap(&mut kept.end, &mut later.end);
            }
            same
        });
        items
    }
}

/// The contents of a range-deletion block holding `tombstones` (in stored order, invariant 1).
pub(crate) fn encode(tombstones: &[RangeTombstone], restart_interval: usize) -> Vec<u8> {
    let mut b = BlockBuilder::new(restart_interval);
    let mut key = Vec::new();
    for t in tombstones {
        key.clear();
        crate::types::append_internal_key(&mut key, &t.begin, t.seq, ValueKind::RangeDelete as u8);
        b.add(&key, &t.end);
    }
    b.finish().to_vec()
}

/// Decodes a parsed range-deletion block of a table ordered by `order` (invariant 3).
///
/// # Errors
/// [`Error::Corruption`] (anonymous: file "", offset inside the block) for a malformed entry.
pub(crate) fn decode(block: BlockRef, order: &KeyOrder) -> Result<Vec<RangeTombstone>> {
    let mut it = BlockIter::new(block, EntryOrder::Internal(order.clone()))?;
    let mut out: Vec<RangeTombstone> = Vec::new();
    let mut prev: Option<Vec<u8>> = None;
    it.seek_to_first();
    while it.valid() {
        let at = it.entry_offset() as u64;
        let bad = |msg: &str| Error::corruption("", at, format!("range deletion: {msg}"));
        let p = ParsedKey::parse(it.key()).map_err(|_| bad("malformed internal key"))?;
        if p.kind != ValueKind::RangeDelete {
            return Err(bad(&format!(
                "{:?} entry in the range-deletion block",
                p.kind
            )));
        }
        if order.compare(p.user_key, it.value()).is_ge() {
            return Err(bad("empty or inverted range"));
        }
        if prev
            .as_deref()
            .is_some_and(|k| order.compare_internal(k, it.key()) != Ordering::Less)
        {
            return Err(bad("keys out of order"));
        }
        prev = Some(it.key().to_vec());
        out.push(RangeTombstone::new(p.user_key, it.value(), p.seq));
        it.next();
    }
    it.status()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sstable::block::{Block, BlockKind};
    use crate::types::make_internal_key;

    fn decode_contents(contents: Vec<u8>) -> Result<Vec<RangeTombstone>> {
        decode(
            Block::parse(contents, BlockKind::RangeDeletion)?.into(),
            &KeyOrder::BYTEWISE,
        )
    }

    #[test]
    fn collector_sorts_merges_and_drops_empty_ranges() {
        let mut c = RangeDelCollector::default();
        c.add(b"m", b"p", 3).expect("add");
        c.add(b"a", b"c", 5).expect("add");
        c.add(b"a", b"z", 9).expect("add");
        c.add(b"a", b"d", 5).expect("same begin and seq: merged");
        c.add(b"k", b"k", 7).expect("empty range is accepted");
        c.add(b"a", b"c", 5).expect("exact duplicate");
        assert_eq!(c.len(), 5, "the empty range is not buffered");
        let got = c.finish();
        assert_eq!(
            got,
            vec![
                RangeTombstone::new(b"a", b"z", 9),
                RangeTombstone::new(b"a", b"d", 5),
                RangeTombstone::new(b"m", b"p", 3),
            ]
        );
        assert_eq!((c.len(), c.bytes()), (0, 0));
    }

    #[test]
    fn collector_rejects_inverted_ranges_and_oversized_sequence_numbers() {
        let mut c = RangeDelCollector::default();
        assert!(matches!(
            c.add(b"b", b"a", 1),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            c.add(b"a", b"b", MAX_SEQUENCE + 1),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(c.len(), 0);
    }

    #[test]
    fn round_trip() {
        let ts = vec![
            RangeTombstone::new(b"", b"\x00", 1),
            RangeTombstone::new(b"abc", b"abd", 99),
            RangeTombstone::new(b"abc", b"b", 42),
            RangeTombstone::new(b"abcd", b"zzzz", MAX_SEQUENCE),
        ];
        for interval in [1, 2, 16] {
            assert_eq!(decode_contents(encode(&ts, interval)).expect("decode"), ts);
        }
        assert_eq!(decode_contents(encode(&[], 16)).expect("empty"), vec![]);
    }

    #[test]
    fn decoder_rejects_what_the_writer_never_stores() {
        let block = |entries: &[(Vec<u8>, &[u8])]| {
            let mut b = BlockBuilder::new(1);
            for (k, v) in entries {
                b.add(k, v);
            }
            b.finish().to_vec()
        };
        let rd = |k: &[u8], s| make_internal_key(k, s, ValueKind::RangeDelete);
        let cases = [
            block(&[(make_internal_key(b"a", 1, ValueKind::Put), b"b")]),
            block(&[(rd(b"b", 1), b"a")]),
            block(&[(rd(b"b", 1), b"b")]),
            block(&[(rd(b"b", 1), b"c"), (rd(b"a", 1), b"c")]),
            block(&[(rd(b"a", 1), b"c"), (rd(b"a", 1), b"d")]),
            block(&[(b"short".to_vec(), b"z")]),
        ];
        for (i, contents) in cases.into_iter().enumerate() {
            let e = decode_contents(contents).expect_err("malformed");
            assert!(e.is_corruption(), "case {i}: {e}");
        }
    }

    #[test]
    fn reverse_order_sorts_descending_and_rejects_ascending_ranges() {
        let mut c = RangeDelCollector::new(KeyOrder::REVERSE_BYTEWISE);
        c.add(b"c", b"a", 5).expect("descending range");
        c.add(b"z", b"m", 3).expect("descending range");
        assert!(matches!(
            c.add(b"a", b"b", 1),
            Err(Error::InvalidArgument(_))
        ));
        let got = c.finish();
        assert_eq!(
            got,
            vec![
                RangeTombstone::new(b"z", b"m", 3),
                RangeTombstone::new(b"c", b"a", 5),
            ]
        );
        let r = KeyOrder::REVERSE_BYTEWISE;
        let block = Block::parse(encode(&got, 1), BlockKind::RangeDeletion).expect("parse");
        assert_eq!(decode(block.into(), &r).expect("decode"), got);
        assert!(got[1].contains(&r, b"b") && !got[1].contains(&r, b"a"));
    }

    #[test]
    fn extent_keys() {
        let t = RangeTombstone::new(b"b", b"d", 7);
        assert_eq!(
            t.begin_key(),
            make_internal_key(b"b", 7, ValueKind::RangeDelete)
        );
        assert_eq!(
            t.end_key(),
            make_internal_key(b"d", MAX_SEQUENCE, ValueKind::RangeDelete)
        );
        let b = KeyOrder::BYTEWISE;
        assert!(t.contains(&b, b"b") && t.contains(&b, b"c\xff") && !t.contains(&b, b"d"));
        // The sentinel sorts before every point entry of the end key.
        let point = make_internal_key(b"d", MAX_SEQUENCE, ValueKind::Merge);
        assert_eq!(b.compare_internal(&t.end_key(), &point), Ordering::Less);
    }
}
