//! Snapshots: reads of the database as it was when the snapshot was taken.

use std::fmt;
use std::sync::Arc;

use crate::{
    AsColumnFamilyRef, DBAccess, DBIteratorWithThreadMode, DBPinnableSlice,
    DBRawIteratorWithThreadMode, Error, IteratorMode, ReadOptions, DB,
};

/// A snapshot of a [`DB`].
pub type Snapshot<'a> = SnapshotWithThreadMode<'a, DB>;

/// A snapshot, which cannot outlive its database. Dropping it releases it.
pub struct SnapshotWithThreadMode<'a, D: DBAccess> {
    db: &'a D,
    pub(crate) handle: SnapshotHandle,
}

/// A snapshot's sequence number and what keeps it registered: a database snapshot, or nothing
/// for a transaction's (the transaction holds it) or for a transaction without one (reads see
/// the latest data, as RocksDB's null snapshot).
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct SnapshotHandle {
    pub(crate) seq: Option<u64>,
    pub(crate) held: Option<Arc<cairndb::Snapshot>>,
}

impl<D: DBAccess> fmt::Debug for SnapshotWithThreadMode<'_, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Snapshot")
            .field("sequence", &self.handle.seq)
            .finish()
    }
}

impl<'a, D: DBAccess> SnapshotWithThreadMode<'a, D> {
    /// Takes a snapshot of `db`.
    pub fn new(db: &'a D) -> Self {
        SnapshotWithThreadMode {
            db,
            handle: db.take_snapshot(),
        }
    }

    /// The snapshot's sequence number (0 for a transaction without a snapshot).
    pub fn sequence_number(&self) -> u64 {
        self.handle.seq.unwrap_or(0)
    }

    fn at(&self, mut readopts: ReadOptions) -> ReadOptions {
        readopts.set_snapshot(self);
        readopts
    }

    /// An iterator over the snapshot.
    pub fn iterator(&self, mode: IteratorMode<'_>) -> DBIteratorWithThreadMode<'a, D> {
        self.iterator_opt(mode, ReadOptions::default())
    }

    /// An iterator over a column family of the snapshot.
    pub fn iterator_cf(
        &self,
        cf: &impl AsColumnFamilyRef,
        mode: IteratorMode<'_>,
    ) -> DBIteratorWithThreadMode<'a, D> {
        self.iterator_cf_opt(cf, ReadOptions::default(), mode)
    }

    /// An iterator over the snapshot, with read options.
    pub fn iterator_opt(
        &self,
        mode: IteratorMode<'_>,
        readopts: ReadOptions,
    ) -> DBIteratorWithThreadMode<'a, D> {
        DBIteratorWithThreadMode::new(self.db.raw_iter(None, self.at(readopts)), mode)
    }

    /// An iterator over a column family of the snapshot, with read options.
    pub fn iterator_cf_opt(
        &self,
        cf: &impl AsColumnFamilyRef,
        readopts: ReadOptions,
        mode: IteratorMode<'_>,
    ) -> DBIteratorWithThreadMode<'a, D> {
        DBIteratorWithThreadMode::new(self.db.raw_iter(Some(cf.cf()), self.at(readopts)), mode)
    }

    /// A raw iterator over the snapshot.
    pub fn raw_iterator(&self) -> DBRawIteratorWithThreadMode<'a, D> {
        self.raw_iterator_opt(ReadOptions::default())
    }

    /// A raw iterator over a column family of the snapshot.
    pub fn raw_iterator_cf(
        &self,
        cf: &impl AsColumnFamilyRef,
    ) -> DBRawIteratorWithThreadMode<'a, D> {
        self.raw_iterator_cf_opt(cf, ReadOptions::default())
    }

    /// A raw iterator over the snapshot, with read options.
    pub fn raw_iterator_opt(&self, readopts: ReadOptions) -> DBRawIteratorWithThreadMode<'a, D> {
        self.db.raw_iter(None, self.at(readopts))
    }

    /// A raw iterator over a column family of the snapshot, with read options.
    pub fn raw_iterator_cf_opt(
        &self,
        cf: &impl AsColumnFamilyRef,
        readopts: ReadOptions,
    ) -> DBRawIteratorWithThreadMode<'a, D> {
        self.db.raw_iter(Some(cf.cf()), self.at(readopts))
    }

    /// The value of `key` in the snapshot.
    pub fn get<K: AsRef<[u8]>>(&self, key: K) -> Result<Option<Vec<u8>>, Error> {
        self.get_opt(key, ReadOptions::default())
    }

    /// The value of `key` in a column family of the snapshot.
    pub fn get_cf<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
    ) -> Result<Option<Vec<u8>>, Error> {
        self.get_cf_opt(cf, key, ReadOptions::default())
    }

    /// The value of `key` in the snapshot, with read options.
    pub fn get_opt<K: AsRef<[u8]>>(
        &self,
        key: K,
        readopts: ReadOptions,
    ) -> Result<Option<Vec<u8>>, Error> {
        self.db.get_opt(key, &self.at(readopts))
    }

    /// The value of `key` in a column family of the snapshot, with read options.
    pub fn get_cf_opt<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        readopts: ReadOptions,
    ) -> Result<Option<Vec<u8>>, Error> {
        self.db.get_cf_opt(cf, key, &self.at(readopts))
    }

    /// The value of `key` in the snapshot, without a copy.
    pub fn get_pinned<K: AsRef<[u8]>>(&self, key: K) -> Result<Option<DBPinnableSlice<'a>>, Error> {
        self.db
            .get_pinned_at(None, key.as_ref(), &self.at(ReadOptions::default()))
    }

    /// The values of `keys` in the snapshot.
    pub fn multi_get<K: AsRef<[u8]>, I>(&self, keys: I) -> Vec<Result<Option<Vec<u8>>, Error>>
    where
        I: IntoIterator<Item = K>,
    {
        self.db
            .multi_get_opt(keys, &self.at(ReadOptions::default()))
    }

    /// The values of `keys` in the snapshot, with read options.
    pub fn multi_get_opt<K: AsRef<[u8]>, I>(
        &self,
        keys: I,
        readopts: ReadOptions,
    ) -> Vec<Result<Option<Vec<u8>>, Error>>
    where
        I: IntoIterator<Item = K>,
    {
        self.db.multi_get_opt(keys, &self.at(readopts))
    }
}
