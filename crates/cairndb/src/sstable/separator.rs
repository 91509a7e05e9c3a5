//! Shortened index keys. The index block maps a *separator* per data block to the block's handle;
//! a short separator keeps the index small and cached. See `docs/format/sstable.md`, section
//! "Index block".
//!
//! Pure functions over internal keys, called by the table builder; the user-key shortening is
//! the column family's comparator's ([`KeyOrder::shortest_separator`]).
//!
//! Invariants (checked by the property tests below, for both built-in comparators):
//! 1. `start <= shortest_separator(start, limit) < limit` in internal-key order, whenever
//!    `start < limit`.
//! 2. `start <= short_successor(start)` in internal-key order.
//! 3. A shortened separator's user key lies strictly between the two user keys, and it carries the
//!    trailer `(MAX_SEQUENCE, FOR_SEEK)`, the smallest internal key of that user key, so no entry
//!    of either block can share its user key.

use std::cmp::Ordering;

use crate::comparator::KeyOrder;
use crate::types::{append_internal_key, trailer, user_key, ValueKind, MAX_SEQUENCE, TRAILER_LEN};

/// A short internal key `s` with `start <= s < limit` in `order`. Requires valid internal keys
/// with `start < limit`.
pub fn shortest_separator(order: &KeyOrder, start: &[u8], limit: &[u8]) -> Vec<u8> {
    debug_assert!(start.len() >= TRAILER_LEN && limit.len() >= TRAILER_LEN);
    let (a, b) = (user_key(start), user_key(limit));
    if order.compare(a, b) != Ordering::Less {
        return start.to_vec(); // same user key: nothing lies strictly between
    }
    match order.shortest_separator(a, b) {
        Some(u) if u.len() <= a.len() => seek_internal_key(&u),
        _ => start.to_vec(),
    }
}

/// A short internal key `s >= start` in `order`, for the last data block of a table.
pub fn short_successor(order: &KeyOrder, start: &[u8]) -> Vec<u8> {
    match order.short_successor(user_key(start)) {
        Some(u) if u.len() <= user_key(start).len() => seek_internal_key(&u),
        _ => start.to_vec(),
    }
}

/// The smallest internal key with user key `u`.
fn seek_internal_key(u: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(u.len() + TRAILER_LEN);
    append_internal_key(&mut k, u, MAX_SEQUENCE, ValueKind::FOR_SEEK);
    k
}

/// True when the separator rules hold for `(start, sep, limit)` in `order`; used by tests and
/// `invariants`.
pub fn is_valid_separator(
    order: &KeyOrder,
    start: &[u8],
    sep: &[u8],
    limit: Option<&[u8]>,
) -> bool {
    let lower = order.compare_internal(start, sep) != Ordering::Greater;
    let upper = limit.is_none_or(|l| order.compare_internal(sep, l) == Ordering::Less);
    let trailer_ok =
        sep.len() >= TRAILER_LEN && (sep == start || trailer(sep) >> 8 == MAX_SEQUENCE);
    lower && upper && trailer_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::make_internal_key;
    use proptest::prelude::*;

    const B: KeyOrder = KeyOrder::BYTEWISE;
    const R: KeyOrder = KeyOrder::REVERSE_BYTEWISE;

    fn ik(u: &[u8], seq: u64) -> Vec<u8> {
        make_internal_key(u, seq, ValueKind::Put)
    }

    #[test]
    fn examples() {
        let s = shortest_separator(&B, &ik(b"abcdefg", 5), &ik(b"abzzz", 9));
        assert_eq!(user_key(&s), b"abd");
        let s = shortest_separator(&B, &ik(b"abc1zz", 5), &ik(b"abd", 9));
        assert_eq!(user_key(&s), b"abc2");
        // Prefix: no shortening.
        let start = ik(b"abc", 5);
        assert_eq!(shortest_separator(&B, &start, &ik(b"abcd", 9)), start);
        // Same user key: keep start.
        assert_eq!(
            shortest_separator(&B, &ik(b"k", 9), &ik(b"k", 3)),
            ik(b"k", 9)
        );
        assert_eq!(
            user_key(&short_successor(&B, &ik(b"\xff\xffab", 1))),
            b"\xff\xffb"
        );
        let all_ff = ik(b"\xff\xff", 1);
        assert_eq!(short_successor(&B, &all_ff), all_ff);
    }

    #[test]
    fn reverse_examples() {
        // Descending: "abzzz" comes before "abcdefg"; the separator is "abz", cut after the
        // first differing byte.
        let s = shortest_separator(&R, &ik(b"abzzz", 5), &ik(b"abcdefg", 9));
        assert_eq!(user_key(&s), b"abz");
        // Prefix: no shortening ("abcd" comes before "abc" in descending order).
        let start = ik(b"abcd", 5);
        assert_eq!(shortest_separator(&R, &start, &ik(b"abc", 9)), start);
        // No successor shortening (RocksDB's rule).
        let k = ik(b"abc", 1);
        assert_eq!(short_successor(&R, &k), k);
    }

    proptest! {
        #[test]
        fn separator_is_between(a in proptest::collection::vec(any::<u8>(), 0..12),
                                b in proptest::collection::vec(any::<u8>(), 0..12),
                                sa in 0u64..1000, sb in 0u64..1000,
                                reverse: bool) {
            let order = if reverse { R } else { B };
            let (a, b) = if order.compare(&a, &b).is_gt() { (b, a) } else { (a, b) };
            let (start, limit) = (ik(&a, sa), ik(&b, sb));
            prop_assume!(order.compare_internal(&start, &limit) == Ordering::Less);
            let sep = shortest_separator(&order, &start, &limit);
            prop_assert!(is_valid_separator(&order, &start, &sep, Some(&limit)));
            prop_assert!(user_key(&sep).len() <= a.len());
            let succ = short_successor(&order, &start);
            prop_assert!(is_valid_separator(&order, &start, &succ, None));
        }
    }
}
