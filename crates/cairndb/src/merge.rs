//! Merge operators: user-defined read-modify-write folded in at read time and in compaction.
//!
//! A `Merge` entry stores an *operand*, not a value. Readers (the user iterator, point lookups)
//! and compaction fold a key's operands into the newest base value below them (a `Put`), or into
//! nothing when a deletion or the end of the history lies below, with the column family's
//! [`MergeOperator`]. This is RocksDB's `MergeOperator` with `FullMergeV2` reduced to its core.
//!
//! Who calls it: any reader or compaction thread, concurrently, through an `Arc<dyn
//! MergeOperator>`; implementations are therefore `Send + Sync` and must be pure functions of their
//! inputs (the same operands must give the same result on every read and in every compaction, or
//! the database would change its answers as it compacts).
//!
//! Invariants every implementation keeps:
//! 1. `full_merge` and `partial_merge` depend only on their arguments.
//! 2. When `partial_merge(k, ops)` returns `Some(p)`, `full_merge(k, base, [..before, p, ..after])`
//!    equals `full_merge(k, base, [..before, ops.., ..after])` for every base: combining operands
//!    early (in compaction) never changes what a reader sees.
//! 3. `name` identifies the function; a database opened with an operator of another name than the
//!    one that wrote its operands is refused by the front (as in RocksDB).

use std::fmt;

/// Folds merge operands into a value. See the module contract.
pub trait MergeOperator: Send + Sync {
    /// A name that identifies the operator (e.g. `UInt64AddOperator`).
    fn name(&self) -> &str;

    /// The value of `key` after applying `operands` (oldest first) to `existing` (the base value,
    /// or `None` when a deletion or nothing lies below the operands). `None` means the operands
    /// cannot be applied (malformed operand or base); the reader then reports an error for the key
    /// instead of a value.
    fn full_merge(
        &self,
        key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
    ) -> Option<Vec<u8>>;

    /// Combines consecutive `operands` (oldest first, at least two) into one operand, or `None`
    /// when they cannot be combined without the base (the default). Compaction uses it to shrink
    /// operand stacks; readers never depend on it (invariant 2).
    fn partial_merge(&self, key: &[u8], operands: &[&[u8]]) -> Option<Vec<u8>> {
        let _ = (key, operands);
        None
    }
}

impl fmt::Debug for dyn MergeOperator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MergeOperator")
            .field("name", &self.name())
            .finish()
    }
}

/// Counters: values and operands are 8-byte little-endian unsigned integers, merged by wrapping
/// addition. RocksDB's `UInt64AddOperator` (which reads malformed values as 0; this one refuses
/// them, so a damaged or foreign value is reported instead of silently reset).
#[derive(Debug, Clone, Copy, Default)]
pub struct UInt64AddOperator;

impl UInt64AddOperator {
    /// Decodes a value or operand; `None` unless it is exactly 8 bytes.
    fn decode(b: &[u8]) -> Option<u64> {
        Some(u64::from_le_bytes(b.try_into().ok()?))
    }

    fn sum<'a>(start: u64, operands: impl IntoIterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
        let mut total = start;
        for op in operands {
            total = total.wrapping_add(Self::decode(op)?);
        }
        Some(total.to_le_bytes().to_vec())
    }
}

impl MergeOperator for UInt64AddOperator {
    fn name(&self) -> &str {
        "UInt64AddOperator"
    }

    fn full_merge(
        &self,
        _key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
    ) -> Option<Vec<u8>> {
        let base = match existing {
            Some(v) => Self::decode(v)?,
            None => 0,
        };
        Self::sum(base, operands.iter().copied())
    }

    fn partial_merge(&self, _key: &[u8], operands: &[&[u8]]) -> Option<Vec<u8>> {
        Self::sum(0, operands.iter().copied())
    }
}

/// Lists: each operand is appended to the value with a delimiter between elements. RocksDB's
/// `StringAppendOperator`. Never fails.
#[derive(Debug, Clone)]
pub struct StringAppendOperator {
    delimiter: Vec<u8>,
}

impl StringAppendOperator {
    /// An operator that separates elements with `delimiter` (RocksDB's default is `,`).
    pub fn new(delimiter: &[u8]) -> Self {
        StringAppendOperator {
            delimiter: delimiter.to_vec(),
        }
    }

    fn join<'a>(&self, parts: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, p) in parts.into_iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.delimiter);
            }
            out.extend_from_slice(p);
        }
        out
    }
}

impl MergeOperator for StringAppendOperator {
    fn name(&self) -> &str {
        "StringAppendOperator"
    }

    fn full_merge(
        &self,
        _key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
    ) -> Option<Vec<u8>> {
        Some(self.join(existing.into_iter().chain(operands.iter().copied())))
    }

    fn partial_merge(&self, _key: &[u8], operands: &[&[u8]]) -> Option<Vec<u8>> {
        Some(self.join(operands.iter().copied()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uint64_add() {
        let op = UInt64AddOperator;
        let one = 1u64.to_le_bytes();
        let five = 5u64.to_le_bytes();
        let got = op.full_merge(b"k", Some(&five), &[&one, &one]);
        assert_eq!(got, Some(7u64.to_le_bytes().to_vec()));
        assert_eq!(
            op.full_merge(b"k", None, &[&one]),
            Some(one.to_vec()),
            "no base counts from zero"
        );
        assert_eq!(op.full_merge(b"k", Some(b"bad"), &[&one]), None);
        assert_eq!(op.full_merge(b"k", None, &[b"short"]), None);
        let partial = op.partial_merge(b"k", &[&one, &five]).expect("partial");
        assert_eq!(
            op.full_merge(b"k", Some(&one), &[&partial]),
            op.full_merge(b"k", Some(&one), &[&one, &five]),
            "invariant 2"
        );
        let max = u64::MAX.to_le_bytes();
        assert_eq!(
            op.full_merge(b"k", Some(&max), &[&one]),
            Some(0u64.to_le_bytes().to_vec()),
            "wraps"
        );
    }

    #[test]
    fn string_append() {
        let op = StringAppendOperator::new(b",");
        assert_eq!(
            op.full_merge(b"k", Some(b"a"), &[b"b", b"c"]),
            Some(b"a,b,c".to_vec())
        );
        assert_eq!(op.full_merge(b"k", None, &[b"b"]), Some(b"b".to_vec()));
        assert_eq!(op.partial_merge(b"k", &[b"x", b"y"]), Some(b"x,y".to_vec()));
        let d: &dyn MergeOperator = &op;
        assert!(format!("{d:?}").contains("StringAppendOperator"));
    }
}
