//! Prefix extractors: which leading part of a user key the filter indexes for prefix lookups.
//!
//! Called by the table builder (to add prefixes to the filter) and the reader (to probe them), from
//! any thread. An extractor's [`name`](PrefixExtractor::name) is recorded in the table properties;
//! the reader uses the prefix part of a filter only when the extractor it was given has the same
//! name, because a filter built with another extractor would give false negatives.
//!
//! Contract every implementation keeps:
//! 1. `prefix(key)`, when `Some`, is a prefix of `key` (so keys sharing a prefix are contiguous in
//!    key order).
//! 2. If `prefix(key) == Some(p)`, then `prefix(p) == Some(p)` and every key `k` with
//!    `prefix(k) == Some(p)` starts with `p` (RocksDB's "in domain" rules).
//! 3. The result depends only on the key bytes; the name identifies the function exactly.

use std::fmt::Debug;

/// Maps a user key to the prefix that prefix filters and prefix seeks use.
pub trait PrefixExtractor: Send + Sync + Debug {
    /// A name that identifies this function and its parameters, stored in every table it builds
    /// (e.g. `rocksdb.FixedPrefix.8`).
    fn name(&self) -> &str;

    /// The prefix of `key`, or `None` when `key` is outside the extractor's domain (then no filter
    /// entry is made for it and lookups of it skip the prefix filter).
    fn prefix<'a>(&self, key: &'a [u8]) -> Option<&'a [u8]>;
}

/// The first `len` bytes; keys shorter than `len` are out of domain. RocksDB's
/// `NewFixedPrefixTransform`.
#[derive(Debug, Clone)]
pub struct FixedPrefix {
    len: usize,
    name: String,
}

impl FixedPrefix {
    /// An extractor of the first `len` bytes.
    pub fn new(len: usize) -> Self {
        FixedPrefix {
            len,
            name: format!("rocksdb.FixedPrefix.{len}"),
        }
    }
}

impl PrefixExtractor for FixedPrefix {
    fn name(&self) -> &str {
        &self.name
    }

    fn prefix<'a>(&self, key: &'a [u8]) -> Option<&'a [u8]> {
        key.get(..self.len)
    }
}

/// The first `len` bytes, or the whole key when it is shorter; every key is in domain. RocksDB's
/// `NewCappedPrefixTransform`.
#[derive(Debug, Clone)]
pub struct CappedPrefix {
    len: usize,
    name: String,
}

impl CappedPrefix {
    /// An extractor of at most the first `len` bytes.
    pub fn new(len: usize) -> Self {
        CappedPrefix {
            len,
            name: format!("rocksdb.CappedPrefix.{len}"),
        }
    }
}

impl PrefixExtractor for CappedPrefix {
    fn name(&self) -> &str {
        &self.name
    }

    fn prefix<'a>(&self, key: &'a [u8]) -> Option<&'a [u8]> {
        Some(&key[..key.len().min(self.len)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_and_capped() {
        let f = FixedPrefix::new(3);
        assert_eq!(f.prefix(b"abcdef"), Some(&b"abc"[..]));
        assert_eq!(f.prefix(b"ab"), None);
        assert_eq!(f.name(), "rocksdb.FixedPrefix.3");
        let c = CappedPrefix::new(3);
        assert_eq!(c.prefix(b"abcdef"), Some(&b"abc"[..]));
        assert_eq!(c.prefix(b"ab"), Some(&b"ab"[..]));
        assert_eq!(c.name(), "rocksdb.CappedPrefix.3");
    }
}
