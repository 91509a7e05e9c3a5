//! Comparators: the order a column family keeps its keys in (RocksDB's `comparator` option).
//!
//! Every ordered structure of a column family (memtables, table blocks and their index
//! separators, file boundaries, level searches, compaction, range tombstones, iterators and
//! their bounds) orders user keys by the column family's [`KeyOrder`]. Internal keys order by
//! user key in that order, then by trailer descending (newest first), whatever the comparator.
//!
//! Two comparators are built in, under RocksDB's names so that option strings and OPTIONS files
//! carry over: [`KeyOrder::BYTEWISE`] (`leveldb.BytewiseComparator`, the default) and
//! [`KeyOrder::REVERSE_BYTEWISE`] (`rocksdb.ReverseBytewiseComparator`, what MyRocks's `rev:`
//! column families use for descending indexes). Any other order is a [`Comparator`] set in code.
//!
//! The comparator's name is recorded in the MANIFEST with its column family; opening the family
//! with a comparator of another name is refused (`Error::InvalidArgument`), because the files
//! would be read in an order they were not written in.
//!
//! Who calls it: every reader, writer and background thread, through a cloned [`KeyOrder`]; the
//! built-ins compare inline, a user comparator through one virtual call.
//!
//! Invariants every [`Comparator`] keeps (the engine relies on them; it cannot check them all):
//! 1. `compare` is a total order that depends only on its arguments, and it never changes for a
//!    name (files written under a name are read under it).
//! 2. `compare(a, b) == Equal` exactly when `a == b` byte for byte: CairnDB compares keys for
//!    equality byte for byte (finding a key's versions, Bloom filters, transactions' key locks),
//!    as RocksDB does for `CanKeysWithDifferentByteContentsBeEqual() == false`.
//! 3. A separator or successor a comparator returns lies where its method says; the table
//!    builder checks each one with `compare` and ignores one that does not, so a wrong result
//!    costs index size, never order.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::types::{trailer, user_key, TRAILER_LEN};

/// A user-defined key order. See the module contract.
pub trait Comparator: Send + Sync {
    /// The name recorded in the MANIFEST; a database is reopened only with the same name.
    fn name(&self) -> &str;

    /// Orders two user keys.
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering;

    /// A short key `s` with `start < s < limit`, to keep index blocks small, or
    /// `None` (the default) to use `start` itself. Called with `start < limit`.
    fn shortest_separator(&self, start: &[u8], limit: &[u8]) -> Option<Vec<u8>> {
        let _ = (start, limit);
        None
    }

    /// A short key `s` with `key < s`, for the index entry of a table's last block,
    /// or `None` (the default) to use `key` itself.
    fn short_successor(&self, key: &[u8]) -> Option<Vec<u8>> {
        let _ = key;
        None
    }
}

/// The name of the bytewise comparator, as RocksDB spells it.
pub const BYTEWISE_NAME: &str = "leveldb.BytewiseComparator";
/// The name of the reverse bytewise comparator, as RocksDB spells it.
pub const REVERSE_BYTEWISE_NAME: &str = "rocksdb.ReverseBytewiseComparator";

/// The order of a column family's keys: a built-in comparator or a user [`Comparator`]. Cheap to
/// clone (a user comparator is shared through an `Arc`).
#[derive(Clone)]
pub struct KeyOrder(Kind);

#[derive(Clone)]
enum Kind {
    Bytewise,
    ReverseBytewise,
    Custom(Arc<dyn Comparator>),
}

impl KeyOrder {
    /// Lexicographic byte order (`leveldb.BytewiseComparator`), the default.
    pub const BYTEWISE: KeyOrder = KeyOrder(Kind::Bytewise);
    /// Descending lexicographic byte order (`rocksdb.ReverseBytewiseComparator`).
    pub const REVERSE_BYTEWISE: KeyOrder = KeyOrder(Kind::ReverseBytewise);

    /// The order of a user comparator.
    pub fn custom(c: Arc<dyn Comparator>) -> KeyOrder {
        KeyOrder(Kind::Custom(c))
    }

    /// A built-in comparator by its RocksDB name (as option strings give it).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for any other name: a user comparator is a Rust object, set in
    /// code with [`KeyOrder::custom`].
    pub fn from_name(name: &str) -> Result<KeyOrder> {
        match name {
            BYTEWISE_NAME => Ok(KeyOrder::BYTEWISE),
            REVERSE_BYTEWISE_NAME => Ok(KeyOrder::REVERSE_BYTEWISE),
            other => Err(Error::InvalidArgument(format!(
                "comparator {other:?} is not built in (built in: {BYTEWISE_NAME}, \
                 {REVERSE_BYTEWISE_NAME}); set a user comparator in code"
            ))),
        }
    }

    /// The comparator's name.
    pub fn name(&self) -> &str {
        match &self.0 {
            Kind::Bytewise => BYTEWISE_NAME,
            Kind::ReverseBytewise => REVERSE_BYTEWISE_NAME,
            Kind::Custom(c) => c.name(),
        }
    }

    /// True for the bytewise comparator, whose order fast paths (integer key prefixes) assume.
    #[inline]
    pub fn is_bytewise(&self) -> bool {
        matches!(self.0, Kind::Bytewise)
    }

    /// True for the reverse bytewise comparator.
    #[inline]
    pub fn is_reverse_bytewise(&self) -> bool {
        matches!(self.0, Kind::ReverseBytewise)
    }

    /// Orders two user keys.
    #[inline(always)]
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        match &self.0 {
            Kind::Bytewise => a.cmp(b),
            Kind::ReverseBytewise => b.cmp(a),
            Kind::Custom(c) => c.compare(a, b),
        }
    }

    /// Orders internal keys: user key in this order, then trailer (sequence, kind) descending.
    /// Keys shorter than a trailer (only possible in damaged input) order bytewise before the
    /// rest.
    #[inline(always)]
    pub fn compare_internal(&self, a: &[u8], b: &[u8]) -> Ordering {
        if a.len() < TRAILER_LEN || b.len() < TRAILER_LEN {
            return a.cmp(b);
        }
        match self.compare(user_key(a), user_key(b)) {
            Ordering::Equal => trailer(b).cmp(&trailer(a)),
            o => o,
        }
    }

    /// The smaller of two user keys in this order (`a` when equal).
    pub fn min<'a>(&self, a: &'a [u8], b: &'a [u8]) -> &'a [u8] {
        if self.compare(b, a).is_lt() {
            b
        } else {
            a
        }
    }

    /// The larger of two user keys in this order (`a` when equal).
    pub fn max<'a>(&self, a: &'a [u8], b: &'a [u8]) -> &'a [u8] {
        if self.compare(b, a).is_gt() {
            b
        } else {
            a
        }
    }

    /// A user key `s`, meant to be short, with `start < s < limit` in this order, or `None`.
    /// Requires `start < limit`. A user comparator's answer is checked (module invariant 3).
    pub fn shortest_separator(&self, start: &[u8], limit: &[u8]) -> Option<Vec<u8>> {
        let s = match &self.0 {
            Kind::Bytewise => return bytewise_separator(start, limit),
            Kind::ReverseBytewise => return reverse_separator(start, limit),
            Kind::Custom(c) => c.shortest_separator(start, limit)?,
        };
        let ok = self.compare(start, &s).is_lt() && self.compare(&s, limit).is_lt();
        ok.then_some(s)
    }

    /// A user key `s`, meant to be short, with `key < s` in this order, or `None`. A user
    /// comparator's answer is checked (module invariant 3).
    pub fn short_successor(&self, key: &[u8]) -> Option<Vec<u8>> {
        let s = match &self.0 {
            Kind::Bytewise => return bytewise_successor(key),
            // RocksDB's reverse comparator does not shorten here either: a successor in
            // descending order is a bytewise-smaller key, and no shorter one is cheap to find
            // that keeps index separators meaningful.
            Kind::ReverseBytewise => return None,
            Kind::Custom(c) => c.short_successor(key)?,
        };
        self.compare(key, &s).is_lt().then_some(s)
    }
}

impl Default for KeyOrder {
    fn default() -> Self {
        KeyOrder::BYTEWISE
    }
}

impl fmt::Debug for KeyOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyOrder({})", self.name())
    }
}

/// Two orders are the same when their names are: the MANIFEST's rule.
impl PartialEq for KeyOrder {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for KeyOrder {}

/// How a sorted run of entries (a table block, a merging iterator's children) orders its keys.
#[derive(Debug, Clone)]
pub enum EntryOrder {
    /// Internal keys in a column family's order: data, index and range-deletion blocks, and
    /// every iterator over the tree.
    Internal(KeyOrder),
    /// Plain bytes, lexicographic: properties and metaindex blocks.
    Bytewise,
}

impl EntryOrder {
    /// Orders two keys.
    #[inline(always)]
    pub fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        match self {
            EntryOrder::Internal(o) => o.compare_internal(a, b),
            EntryOrder::Bytewise => a.cmp(b),
        }
    }

    /// True for internal keys in bytewise order, the order integer key prefixes follow (the
    /// index blocks' restart summaries).
    #[inline]
    pub fn is_bytewise_internal(&self) -> bool {
        matches!(self, EntryOrder::Internal(o) if o.is_bytewise())
    }
}

/// Length of the common prefix of `a` and `b`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Bytewise: a key strictly between `a < b`, no longer than `a`, or `None` when none is worth
/// using (one is a prefix of the other, or no byte can be bumped).
fn bytewise_separator(a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
    let diff = common_prefix(a, b);
    if diff >= a.len().min(b.len()) {
        return None;
    }
    let (x, y) = (a[diff], b[diff]);
    if x >= y {
        return None; // not ascending: leave the key alone
    }
    if x < 0xff && x + 1 < y {
        let mut s = a[..=diff].to_vec();
        s[diff] += 1;
        return Some(s);
    }
    // a[diff] + 1 == b[diff]: keep a[..=diff] and bump the first later byte of `a` that can be
    // bumped; the result is > a and, sharing a[..=diff] < b[..=diff], still < b.
    let j = (diff + 1..a.len()).find(|&j| a[j] < 0xff)?;
    if j + 1 >= a.len() {
        return None; // would not be shorter than `a`
    }
    let mut s = a[..=j].to_vec();
    s[j] += 1;
    Some(s)
}

/// Bytewise: `a` cut after its first byte below 0xff, that byte bumped; `None` when every byte
/// is 0xff.
fn bytewise_successor(a: &[u8]) -> Option<Vec<u8>> {
    let i = a.iter().position(|&b| b != 0xff)?;
    let mut s = a[..=i].to_vec();
    s[i] += 1;
    Some(s)
}

/// Reverse bytewise (`a` before `b` means `a > b` bytewise): `a` cut just after the first byte
/// where the two differ, which stays bytewise above `b` and below `a`. RocksDB's rule.
fn reverse_separator(a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
    let diff = common_prefix(a, b);
    if diff >= a.len().min(b.len()) || a[diff] <= b[diff] || diff + 1 >= a.len() {
        return None;
    }
    Some(a[..=diff].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for o in [KeyOrder::BYTEWISE, KeyOrder::REVERSE_BYTEWISE] {
            assert_eq!(KeyOrder::from_name(o.name()).unwrap(), o);
        }
        let e = KeyOrder::from_name("my.Comparator").unwrap_err();
        assert!(e.to_string().contains("not built in"), "{e}");
    }

    #[test]
    fn reverse_orders_descending_and_internal_keys_newest_first() {
        let r = KeyOrder::REVERSE_BYTEWISE;
        assert_eq!(r.compare(b"b", b"a"), Ordering::Less);
        assert_eq!(r.compare(b"a", b"ab"), Ordering::Greater);
        let ik = |k: &[u8], s| crate::types::make_internal_key(k, s, crate::types::ValueKind::Put);
        assert_eq!(
            r.compare_internal(&ik(b"b", 1), &ik(b"a", 9)),
            Ordering::Less
        );
        assert_eq!(
            r.compare_internal(&ik(b"a", 9), &ik(b"a", 1)),
            Ordering::Less
        );
        assert_eq!(r.max(b"a", b"b"), b"a");
        assert_eq!(r.min(b"a", b"b"), b"b");
    }

    struct Lying;
    impl Comparator for Lying {
        fn name(&self) -> &str {
            "test.Lying"
        }
        fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
            a.cmp(b)
        }
        fn shortest_separator(&self, _: &[u8], limit: &[u8]) -> Option<Vec<u8>> {
            Some(limit.to_vec()) // not below limit
        }
        fn short_successor(&self, _: &[u8]) -> Option<Vec<u8>> {
            Some(Vec::new()) // below the key
        }
    }

    #[test]
    fn a_user_comparators_wrong_separators_are_ignored() {
        let o = KeyOrder::custom(Arc::new(Lying));
        assert_eq!(o.shortest_separator(b"abc", b"abd"), None);
        assert_eq!(o.short_successor(b"abc"), None);
        assert_eq!(o.name(), "test.Lying");
    }

    proptest! {
        #[test]
        fn separators_lie_strictly_between(
            a in proptest::collection::vec(any::<u8>(), 0..6),
            b in proptest::collection::vec(any::<u8>(), 0..6),
        ) {
            for o in [KeyOrder::BYTEWISE, KeyOrder::REVERSE_BYTEWISE] {
                let (lo, hi) = if o.compare(&a, &b).is_lt() { (&a, &b) } else { (&b, &a) };
                prop_assume!(lo != hi);
                if let Some(s) = o.shortest_separator(lo, hi) {
                    prop_assert!(s.len() <= lo.len());
                    prop_assert!(o.compare(lo, &s).is_lt() && o.compare(&s, hi).is_lt());
                }
                if let Some(s) = o.short_successor(lo) {
                    prop_assert!(o.compare(lo, &s).is_lt());
                }
            }
        }
    }
}
