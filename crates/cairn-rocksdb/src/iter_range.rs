//! `IterateBounds`: the ranges `ReadOptions::set_iterate_range` accepts.

/// A range of keys given as iterate bounds: `..`, `a..b`, `a..`, `..b` or a [`PrefixRange`].
pub trait IterateBounds {
    /// The lower (inclusive) and upper (exclusive) bound.
    fn into_bounds(self) -> (Option<Vec<u8>>, Option<Vec<u8>>);
}

impl IterateBounds for std::ops::RangeFull {
    fn into_bounds(self) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        (None, None)
    }
}

impl<K: Into<Vec<u8>>> IterateBounds for std::ops::Range<K> {
    fn into_bounds(self) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        (Some(self.start.into()), Some(self.end.into()))
    }
}

impl<K: Into<Vec<u8>>> IterateBounds for std::ops::RangeFrom<K> {
    fn into_bounds(self) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        (Some(self.start.into()), None)
    }
}

impl<K: Into<Vec<u8>>> IterateBounds for std::ops::RangeTo<K> {
    fn into_bounds(self) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        (None, Some(self.end.into()))
    }
}

/// Every key that starts with the prefix.
#[derive(Debug, Clone, Copy)]
pub struct PrefixRange<K>(pub K);

impl<K: Into<Vec<u8>>> IterateBounds for PrefixRange<K> {
    fn into_bounds(self) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        let start: Vec<u8> = self.0.into();
        if start.is_empty() {
            return (None, None);
        }
        // The upper bound is the shortest key above every key with the prefix: drop trailing
        // 0xff bytes and increment the last; a prefix of only 0xff bytes has no upper bound.
        let mut end = start.clone();
        while end.last() == Some(&0xff) {
            end.pop();
        }
        let upper = end.last_mut().map(|b| *b += 1).map(|()| end);
        (Some(start), upper)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_range_bounds() {
        assert_eq!(PrefixRange(&b""[..]).into_bounds(), (None, None));
        assert_eq!(
            PrefixRange(&b"ab"[..]).into_bounds(),
            (Some(b"ab".to_vec()), Some(b"ac".to_vec()))
        );
        assert_eq!(
            PrefixRange(&b"a\xff\xff"[..]).into_bounds(),
            (Some(b"a\xff\xff".to_vec()), Some(b"b".to_vec()))
        );
        assert_eq!(
            PrefixRange(&b"\xff"[..]).into_bounds(),
            (Some(b"\xff".to_vec()), None)
        );
    }
}
