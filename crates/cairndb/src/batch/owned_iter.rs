//! [`OwnedBaseDeltaIter`]: a [`BaseDeltaIter`] that owns the batch it lays over the database.
//!
//! Who uses it: the bindings (the C library and the `rocksdb`-crate facade), whose transaction
//! iterators must not borrow the transaction (a C handle or a `&self` API cannot express the
//! borrow). The iterator takes a copy of the transaction's writes when it is made, so later
//! writes to the transaction are not seen (RocksDB's iterator sees them).

use std::mem::ManuallyDrop;
use std::ptr::NonNull;

use super::{BaseDeltaIter, WriteBatchWithIndex};
use crate::db::{ColumnFamily, Db};
use crate::error::Result;
use crate::options::ReadOptions;

/// A batch (owned) laid over the database's iterator.
pub struct OwnedBaseDeltaIter {
    /// Borrows `*batch`; dropped before it (`Drop`). Never handed out by value or by `&mut`
    /// (which would let it be moved out past the batch's life): only the cursor methods below
    /// reach it.
    it: ManuallyDrop<BaseDeltaIter<'static>>,
    /// The batch, leaked from its `Box` so that moving this struct moves no unique owner of
    /// the memory `it` borrows (a moved `Box` would assert unique access to it).
    batch: NonNull<WriteBatchWithIndex>,
}

impl Drop for OwnedBaseDeltaIter {
    fn drop(&mut self) {
        // SAFETY: `it` is dropped once, here, before the batch it borrows; `batch` came from
        // `Box::into_raw` in `new` and is freed once, here, after nothing borrows it.
        unsafe {
            ManuallyDrop::drop(&mut self.it);
            drop(Box::from_raw(self.batch.as_ptr()));
        }
    }
}

// SAFETY: the struct owns the batch (as a `Box` would) and the iterator over it, and nothing
// else refers to the batch: sending it is sending a `Box<WriteBatchWithIndex>` and the
// iterator, which is what the bounds require.
unsafe impl Send for OwnedBaseDeltaIter
where
    WriteBatchWithIndex: Send,
    BaseDeltaIter<'static>: Send,
{
}

impl std::fmt::Debug for OwnedBaseDeltaIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedBaseDeltaIter")
            .field("valid", &self.it.valid())
            .finish()
    }
}

impl OwnedBaseDeltaIter {
    /// An iterator over `db` in `cf` with `batch` laid over it.
    ///
    /// # Errors
    /// As [`Db::iter_cf`].
    pub fn new(
        batch: WriteBatchWithIndex,
        db: &Db,
        opts: &ReadOptions,
        cf: &ColumnFamily,
    ) -> Result<OwnedBaseDeltaIter> {
        let batch = NonNull::from(Box::leak(Box::new(batch)));
        // SAFETY: `batch` is valid (just leaked) and lives until `Drop` frees it, after `it`.
        let made = unsafe { batch.as_ref() }.iter_with_base_cf(db, opts, cf);
        let it = match made {
            Ok(it) => it,
            Err(e) => {
                // SAFETY: nothing borrows the batch: the iterator was not made.
                drop(unsafe { Box::from_raw(batch.as_ptr()) });
                return Err(e);
            }
        };
        // SAFETY: `it` borrows the batch's heap allocation, which this struct owns through a
        // raw pointer (never moved or changed) and frees after dropping `it`; `it` itself
        // never leaves the struct (see the field's comment).
        let it = unsafe { std::mem::transmute::<BaseDeltaIter<'_>, BaseDeltaIter<'static>>(it) };
        Ok(OwnedBaseDeltaIter {
            it: ManuallyDrop::new(it),
            batch,
        })
    }

    /// See [`BaseDeltaIter::valid`].
    pub fn valid(&self) -> bool {
        self.it.valid()
    }

    /// See [`BaseDeltaIter::seek_to_first`].
    pub fn seek_to_first(&mut self) {
        self.it.seek_to_first();
    }

    /// See [`BaseDeltaIter::seek_to_last`].
    pub fn seek_to_last(&mut self) {
        self.it.seek_to_last();
    }

    /// See [`BaseDeltaIter::seek`].
    pub fn seek(&mut self, target: &[u8]) {
        self.it.seek(target);
    }

    /// See [`BaseDeltaIter::seek_for_prev`].
    pub fn seek_for_prev(&mut self, target: &[u8]) {
        self.it.seek_for_prev(target);
    }

    /// See [`BaseDeltaIter::next`].
    pub fn next(&mut self) {
        self.it.next();
    }

    /// See [`BaseDeltaIter::prev`].
    pub fn prev(&mut self) {
        self.it.prev();
    }

    /// See [`BaseDeltaIter::key`].
    pub fn key(&self) -> &[u8] {
        self.it.key()
    }

    /// See [`BaseDeltaIter::value`].
    pub fn value(&self) -> &[u8] {
        self.it.value()
    }

    /// See [`BaseDeltaIter::status`].
    ///
    /// # Errors
    /// As [`BaseDeltaIter::status`].
    pub fn status(&self) -> Result<()> {
        self.it.status()
    }
}
