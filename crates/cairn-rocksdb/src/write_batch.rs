//! `WriteBatch`: writes applied atomically by `DB::write`.

use cairndb::ValueKind;

use crate::{AsColumnFamilyRef, Error};

/// A batch for `DB::write`.
pub type WriteBatch = WriteBatchWithTransaction<false>;

/// A batch of writes applied all or nothing. `TRANSACTION` marks batches for transaction
/// databases (as in rust-rocksdb; CairnDB's batches are the same either way).
///
/// RocksDB's binding cannot report errors from `put` and friends; a record CairnDB refuses (a key
/// or value over its size limit) is remembered, and writing the batch fails with that error,
/// writing nothing.
#[derive(Debug, Default, Clone)]
pub struct WriteBatchWithTransaction<const TRANSACTION: bool> {
    pub(crate) inner: cairndb::WriteBatch,
    /// The first refused record, and how many save points were open when it was refused:
    /// rolling back to the last of those removes it, and the refusal with it.
    pub(crate) refused: Option<Error>,
    refused_depth: usize,
}

/// Callbacks of [`WriteBatchWithTransaction::iterate`].
pub trait WriteBatchIterator {
    /// A put in the default column family.
    fn put(&mut self, key: &[u8], value: &[u8]);
    /// A deletion in the default column family.
    fn delete(&mut self, key: &[u8]);
}

/// Callbacks of [`WriteBatchWithTransaction::iterate_cf`], with the column family's id (0 is
/// the default family).
pub trait WriteBatchIteratorCf {
    /// A put.
    fn put_cf(&mut self, cf_id: u32, key: &[u8], value: &[u8]);
    /// A deletion.
    fn delete_cf(&mut self, cf_id: u32, key: &[u8]);
    /// A merge.
    fn merge_cf(&mut self, cf_id: u32, key: &[u8], value: &[u8]);
}

impl<const TRANSACTION: bool> WriteBatchWithTransaction<TRANSACTION> {
    /// A batch holding `inner`'s records.
    pub(crate) fn from_engine(inner: cairndb::WriteBatch) -> Self {
        WriteBatchWithTransaction {
            inner,
            ..Self::default()
        }
    }

    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty batch with room for `capacity_bytes`.
    pub fn with_capacity_bytes(capacity_bytes: usize) -> Self {
        WriteBatchWithTransaction {
            inner: cairndb::WriteBatch::with_capacity(capacity_bytes),
            ..Self::default()
        }
    }

    /// A batch from RocksDB's batch encoding ([`WriteBatchWithTransaction::data`]). Bytes that
    /// do not decode give a batch whose write fails with `Corruption`.
    pub fn from_data(data: &[u8]) -> Self {
        match cairndb::WriteBatch::from_bytes(data.to_vec()) {
            Ok(inner) => WriteBatchWithTransaction {
                inner,
                ..Self::default()
            },
            Err(e) => WriteBatchWithTransaction {
                refused: Some(e.into()),
                ..Self::default()
            },
        }
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.inner.count() as usize
    }

    /// The size of the encoding in bytes.
    pub fn size_in_bytes(&self) -> usize {
        self.inner.data().len()
    }

    /// RocksDB's encoding of the batch.
    pub fn data(&self) -> &[u8] {
        self.inner.data()
    }

    /// Whether the batch has no records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `callbacks` for the puts and deletions, in order (RocksDB's C `iterate`: single
    /// deletions and merges are skipped, and a range deletion ends the walk).
    pub fn iterate<T: WriteBatchIterator>(&self, callbacks: &mut T) {
        for e in self.inner.iter().map_while(Result::ok) {
            match e.kind {
                ValueKind::Put => callbacks.put(e.key, e.value),
                ValueKind::Delete => callbacks.delete(e.key),
                ValueKind::SingleDelete | ValueKind::Merge => {}
                ValueKind::RangeDelete => return,
            }
        }
    }

    /// Calls `callbacks` for the puts, deletions and merges, in order, with their families
    /// (single deletions are skipped, and a range deletion ends the walk).
    pub fn iterate_cf<T: WriteBatchIteratorCf>(&self, callbacks: &mut T) {
        for e in self.inner.iter().map_while(Result::ok) {
            match e.kind {
                ValueKind::Put => callbacks.put_cf(e.cf, e.key, e.value),
                ValueKind::Delete => callbacks.delete_cf(e.cf, e.key),
                ValueKind::Merge => callbacks.merge_cf(e.cf, e.key, e.value),
                ValueKind::SingleDelete => {}
                ValueKind::RangeDelete => return,
            }
        }
    }

    fn record(&mut self, r: cairndb::Result<()>) {
        if let Err(e) = r {
            self.refuse(e.into());
        }
    }

    fn refuse(&mut self, e: Error) {
        if self.refused.is_none() {
            self.refused = Some(e);
            self.refused_depth = self.inner.save_point_count();
        }
    }

    /// Sets `key` to `value`.
    pub fn put<K: AsRef<[u8]>, V: AsRef<[u8]>>(&mut self, key: K, value: V) {
        let r = self.inner.put(key.as_ref(), value.as_ref());
        self.record(r);
    }

    /// Sets `key` to `value` in `cf`.
    pub fn put_cf<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &mut self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        value: V,
    ) {
        let r = self
            .inner
            .put_cf(cf.cf().id(), key.as_ref(), value.as_ref());
        self.record(r);
    }

    /// Adds a merge operand for `key`.
    pub fn merge<K: AsRef<[u8]>, V: AsRef<[u8]>>(&mut self, key: K, value: V) {
        let r = self.inner.merge(key.as_ref(), value.as_ref());
        self.record(r);
    }

    /// Adds a merge operand for `key` in `cf`.
    pub fn merge_cf<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &mut self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        value: V,
    ) {
        let r = self
            .inner
            .merge_cf(cf.cf().id(), key.as_ref(), value.as_ref());
        self.record(r);
    }

    /// Deletes `key`.
    pub fn delete<K: AsRef<[u8]>>(&mut self, key: K) {
        let r = self.inner.delete(key.as_ref());
        self.record(r);
    }

    /// Deletes `key` in `cf`.
    pub fn delete_cf<K: AsRef<[u8]>>(&mut self, cf: &impl AsColumnFamilyRef, key: K) {
        let r = self.inner.delete_cf(cf.cf().id(), key.as_ref());
        self.record(r);
    }

    /// Deletes the single put of `key` (RocksDB's `SingleDelete`).
    pub fn single_delete<K: AsRef<[u8]>>(&mut self, key: K) {
        let r = self.inner.single_delete(key.as_ref());
        self.record(r);
    }

    /// Deletes the single put of `key` in `cf`.
    pub fn single_delete_cf<K: AsRef<[u8]>>(&mut self, cf: &impl AsColumnFamilyRef, key: K) {
        let r = self.inner.single_delete_cf(cf.cf().id(), key.as_ref());
        self.record(r);
    }

    /// Deletes the keys in `[from, to)`.
    pub fn delete_range<K: AsRef<[u8]>>(&mut self, from: K, to: K) {
        let r = self.inner.delete_range(from.as_ref(), to.as_ref());
        self.record(r);
    }

    /// Deletes the keys in `[from, to)` in `cf`.
    pub fn delete_range_cf<K: AsRef<[u8]>>(&mut self, cf: &impl AsColumnFamilyRef, from: K, to: K) {
        let r = self
            .inner
            .delete_range_cf(cf.cf().id(), from.as_ref(), to.as_ref());
        self.record(r);
    }

    /// Refused (the batch's write fails with `Not implemented`): CairnDB's batches have no
    /// WAL-only blobs (RocksDB's `PutLogData`) yet.
    pub fn put_log_data<V: AsRef<[u8]>>(&mut self, _log_data: V) {
        self.refuse(Error::not_supported(
            "WriteBatch::put_log_data: CairnDB's batches have no WAL-only blobs yet",
        ));
    }

    /// Removes every record (and a remembered refusal).
    pub fn clear(&mut self) {
        self.inner.clear();
        self.refused = None;
    }

    /// Marks the current end of the batch for [`WriteBatchWithTransaction::rollback_to_save_point`].
    pub fn set_save_point(&mut self) {
        self.inner.set_save_point();
    }

    /// Removes the records added since the last save point (`NotFound` without one), a
    /// refused one among them (the batch can then be written again).
    pub fn rollback_to_save_point(&mut self) -> Result<(), Error> {
        let depth = self.inner.save_point_count();
        self.inner.rollback_to_save_point()?;
        if self.refused.is_some() && self.refused_depth == depth {
            self.refused = None;
        }
        Ok(())
    }

    /// Drops the last save point without changing the batch (`NotFound` without one).
    pub fn pop_save_point(&mut self) -> Result<(), Error> {
        let depth = self.inner.save_point_count();
        self.inner.pop_save_point()?;
        if self.refused.is_some() && self.refused_depth == depth {
            self.refused_depth -= 1;
        }
        Ok(())
    }

    /// The batch to write, or the first record it refused.
    pub(crate) fn checked(&self) -> Result<&cairndb::WriteBatch, Error> {
        match &self.refused {
            Some(e) => Err(e.clone()),
            None => Ok(&self.inner),
        }
    }
}
