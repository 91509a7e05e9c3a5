//! Shortened index keys. The index block maps a *separator* per data block to the block's handle;
//! a short separator keeps the index small and cached. See `docs/format/sstable.md`, section
//! "Index block".
//!
//! Pure functions over internal keys, called by the table builder.
//!
//! Invariants (checked by the property tests below):
//! 1. `start <= shortest_separator(start, limit) < limit` in internal-key order, whenever
//!    `start < limit`.
//! 2. `start <= short_successor(start)` in internal-key order.
//! 3. A shortened separator's user key lies strictly between the two user keys, and it carries the
//!    trailer `(MAX_SEQUENCE, FOR_SEEK)`, the smallest internal key of that user key, so no entry
//!    of either block can share its user key.

use std::cmp::Ordering;

use crate::types::{append_internal_key, trailer, user_key, ValueKind, MAX_SEQUENCE, TRAILER_LEN};

/// A short internal key `s` with `start <= s < limit`. Requires valid internal keys with
/// `start < limit`.
pub fn shortest_separator(start: &[u8], limit: &[u8]) -> Vec<u8> {
    debug_assert!(start.len() >= TRAILER_LEN && limit.len() >= TRAILER_LEN);
    match shorten_between(user_key(start), user_key(limit)) {
        Some(u) => seek_internal_key(&u),
        None => start.to_vec(),
    }
}

/// A short internal key `s >= start`, for the last data block of a table.
pub fn short_successor(start: &[u8]) -> Vec<u8> {
    let u = user_key(start);
    match u.iter().position(|&b| b != 0xff) {
        Some(i) => {
            let mut s = u[..=i].to_vec();
            s[i] += 1;
            seek_internal_key(&s)
        }
        None => start.to_vec(),
    }
}

/// A user key strictly between `a` and `b` that is shorter than `a`, or `None` when there is none
/// worth using (one is a prefix of the other, or no byte can be bumped).
fn shorten_between(a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
    let diff = a.iter().zip(b).take_while(|(x, y)| x == y).count();
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

/// The smallest internal key with user key `u`.
fn seek_internal_key(u: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(u.len() + TRAILER_LEN);
    append_internal_key(&mut k, u, MAX_SEQUENCE, ValueKind::FOR_SEEK);
    k
}

/// True when the separator rules hold for `(start, sep, limit)`; used by tests and `invariants`.
pub fn is_valid_separator(start: &[u8], sep: &[u8], limit: Option<&[u8]>) -> bool {
    use crate::types::compare_internal;
    let lower = compare_internal(start, sep) != Ordering::Greater;
    let upper = limit.is_none_or(|l| compare_internal(sep, l) == Ordering::Less);
    let trailer_ok =
        sep.len() >= TRAILER_LEN && (sep == start || trailer(sep) >> 8 == MAX_SEQUENCE);
    lower && upper && trailer_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::make_internal_key;
    use proptest::prelude::*;

    fn ik(u: &[u8], seq: u64) -> Vec<u8> {
        make_internal_key(u, seq, ValueKind::Put)
    }

    #[test]
    fn examples() {
        let s = shortest_separator(&ik(b"abcdefg", 5), &ik(b"abzzz", 9));
        assert_eq!(user_key(&s), b"abd");
        let s = shortest_separator(&ik(b"abc1zz", 5), &ik(b"abd", 9));
        assert_eq!(user_key(&s), b"abc2");
        // Prefix: no shortening.
        let start = ik(b"abc", 5);
        assert_eq!(shortest_separator(&start, &ik(b"abcd", 9)), start);
        // Same user key: keep start.
        assert_eq!(shortest_separator(&ik(b"k", 9), &ik(b"k", 3)), ik(b"k", 9));
        assert_eq!(
            user_key(&short_successor(&ik(b"\xff\xffab", 1))),
            b"\xff\xffb"
        );
        let all_ff = ik(b"\xff\xff", 1);
        assert_eq!(short_successor(&all_ff), all_ff);
    }

    proptest! {
        #[test]
        fn separator_is_between(mut a in proptest::collection::vec(any::<u8>(), 0..12),
                                mut b in proptest::collection::vec(any::<u8>(), 0..12),
                                sa in 0u64..1000, sb in 0u64..1000) {
            if a > b { std::mem::swap(&mut a, &mut b); }
            let (start, limit) = (ik(&a, sa), ik(&b, sb));
            prop_assume!(crate::types::compare_internal(&start, &limit) == Ordering::Less);
            let sep = shortest_separator(&start, &limit);
            prop_assert!(is_valid_separator(&start, &sep, Some(&limit)));
            prop_assert!(user_key(&sep).len() <= a.len());
            let succ = short_successor(&start);
            prop_assert!(is_valid_separator(&start, &succ, None));
        }
    }
}
