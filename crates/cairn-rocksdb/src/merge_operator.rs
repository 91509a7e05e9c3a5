//! Merge operators from Rust closures (RocksDB's associative and full merge operators).

use std::fmt;

/// A merge function: the key, the existing value (if any) and the operands, oldest first; `None`
/// fails the read or compaction that merged (RocksDB's `Corruption: Merge operator failed`).
pub trait MergeFn:
    Fn(&[u8], Option<&[u8]>, &MergeOperands) -> Option<Vec<u8>> + Send + Sync + 'static
{
}

impl<F> MergeFn for F where
    F: Fn(&[u8], Option<&[u8]>, &MergeOperands) -> Option<Vec<u8>> + Send + Sync + 'static
{
}

/// The operands of one merge, oldest first.
pub struct MergeOperands {
    operands: Vec<*const [u8]>,
}

impl fmt::Debug for MergeOperands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl MergeOperands {
    /// The number of operands.
    pub fn len(&self) -> usize {
        self.operands.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.operands.is_empty()
    }

    /// The operands, oldest first.
    pub fn iter(&self) -> MergeOperandsIter<'_> {
        MergeOperandsIter {
            operands: self,
            next: 0,
        }
    }

    fn get(&self, i: usize) -> Option<&[u8]> {
        // SAFETY: `MergeOperands` is only built by `with_operands`, which borrows the slices for
        // longer than the value lives (it is dropped before `with_operands` returns), and the
        // returned reference is tied to `&self`.
        self.operands.get(i).map(|p| unsafe { &**p })
    }
}

/// Calls `f` with the operands as a [`MergeOperands`] (which cannot escape `f`).
pub(crate) fn with_operands<R>(operands: &[&[u8]], f: impl FnOnce(&MergeOperands) -> R) -> R {
    let ops = MergeOperands {
        operands: operands.iter().map(|o| *o as *const [u8]).collect(),
    };
    f(&ops)
}

/// An iterator over [`MergeOperands`].
#[derive(Debug)]
pub struct MergeOperandsIter<'a> {
    operands: &'a MergeOperands,
    next: usize,
}

impl<'a> Iterator for MergeOperandsIter<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let op = self.operands.get(self.next)?;
        self.next += 1;
        Some(op)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.operands.len() - self.next;
        (n, Some(n))
    }
}

impl<'a> IntoIterator for &'a MergeOperands {
    type Item = &'a [u8];
    type IntoIter = MergeOperandsIter<'a>;

    fn into_iter(self) -> MergeOperandsIter<'a> {
        self.iter()
    }
}

/// A `cairndb::MergeOperator` from a full merge function and a partial one (for the
/// associative form, the full function again: RocksDB's binding passes it as both).
pub(crate) struct Callbacks<F: MergeFn, PF: MergeFn> {
    pub(crate) name: String,
    pub(crate) full: F,
    pub(crate) partial: PF,
}

impl<F: MergeFn, PF: MergeFn> cairndb::MergeOperator for Callbacks<F, PF> {
    fn name(&self) -> &str {
        &self.name
    }

    fn full_merge(
        &self,
        key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
    ) -> Option<Vec<u8>> {
        with_operands(operands, |ops| (self.full)(key, existing, ops))
    }

    fn partial_merge(&self, key: &[u8], operands: &[&[u8]]) -> Option<Vec<u8>> {
        with_operands(operands, |ops| (self.partial)(key, None, ops))
    }
}
