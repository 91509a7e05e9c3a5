//! `SliceTransform`: the prefix extractor (RocksDB's `SliceTransform`).

use std::fmt;
use std::sync::Arc;

use cairndb::sstable::{FixedPrefix, PrefixExtractor};

use crate::properties::CStrLike;

/// The prefix of a key (the key must be in the extractor's domain). Unlike rust-rocksdb's, whose
/// alias carries a lifetime, this is the higher-ranked function type: every function item that
/// rust-rocksdb accepts is one.
pub type TransformFn = fn(&[u8]) -> &[u8];
/// Whether a key is in the extractor's domain (has a prefix).
pub type InDomainFn = fn(&[u8]) -> bool;

/// A prefix extractor, given to `Options::set_prefix_extractor`.
#[derive(Debug, Clone)]
pub struct SliceTransform {
    pub(crate) inner: Arc<dyn PrefixExtractor>,
    /// Why the extractor cannot be used (a name with a NUL byte); the options it is given to
    /// refuse to open.
    pub(crate) refused: Option<String>,
}

impl SliceTransform {
    /// An extractor from two functions. Without `in_domain_fn` every key is in the domain.
    pub fn create(
        name: impl CStrLike,
        transform_fn: TransformFn,
        in_domain_fn: Option<InDomainFn>,
    ) -> SliceTransform {
        let (name, refused) = match name.into_name() {
            Ok(n) => (n, None),
            Err(e) => (String::new(), Some(format!("SliceTransform::create: {e}"))),
        };
        SliceTransform {
            refused,
            inner: Arc::new(Callback {
                name,
                transform: transform_fn,
                in_domain: in_domain_fn,
            }),
        }
    }

    /// The first `len` bytes of keys at least `len` long.
    pub fn create_fixed_prefix(len: usize) -> SliceTransform {
        SliceTransform {
            inner: Arc::new(FixedPrefix::new(len)),
            refused: None,
        }
    }

    /// The whole key.
    pub fn create_noop() -> SliceTransform {
        SliceTransform {
            inner: Arc::new(Noop),
            refused: None,
        }
    }
}

struct Callback {
    name: String,
    transform: fn(&[u8]) -> &[u8],
    in_domain: Option<InDomainFn>,
}

impl fmt::Debug for Callback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SliceTransform")
            .field("name", &self.name)
            .finish()
    }
}

impl PrefixExtractor for Callback {
    fn name(&self) -> &str {
        &self.name
    }

    fn prefix<'a>(&self, key: &'a [u8]) -> Option<&'a [u8]> {
        match self.in_domain {
            Some(in_domain) if !in_domain(key) => None,
            _ => Some((self.transform)(key)),
        }
    }
}

#[derive(Debug)]
struct Noop;

impl PrefixExtractor for Noop {
    fn name(&self) -> &str {
        "rocksdb.Noop"
    }

    fn prefix<'a>(&self, key: &'a [u8]) -> Option<&'a [u8]> {
        Some(key)
    }
}
