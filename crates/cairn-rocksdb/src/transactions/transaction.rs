//! `Transaction`: reads that see the transaction's own writes, writes that become visible at
//! commit, savepoints, two-phase commit (pessimistic only).

use std::fmt;
use std::marker::PhantomData;

use parking_lot::Mutex;

use crate::db_iterator::Cursor;
use crate::snapshot::SnapshotHandle;
use crate::{
    AsColumnFamilyRef, DBAccess, DBPinnableSlice, DBRawIteratorWithThreadMode, Error, ReadOptions,
    WriteBatchWithTransaction,
};

/// The engine's transaction.
enum Txn<'db> {
    Pessimistic(cairndb::Transaction<'db>),
    Optimistic(cairndb::OptimisticTransaction<'db>),
    /// The transaction could not begin; every operation reports why.
    Failed(Error),
}

/// `$e` on the engine's transaction as `$t`, or the failure.
macro_rules! with_txn {
    ($txn:expr, $t:ident => $e:expr) => {
        match $txn {
            Txn::Pessimistic($t) => $e.map_err(Error::from),
            Txn::Optimistic($t) => $e.map_err(Error::from),
            Txn::Failed(e) => Err(e.clone()),
        }
    };
}

/// A transaction of a [`crate::TransactionDB`] or an [`crate::OptimisticTransactionDB`], which
/// cannot outlive its database. Dropping it without `commit` rolls it back.
///
/// Its methods take `&self` (as rust-rocksdb's); calls from several threads are serialised.
/// Its iterators see the transaction's writes made before the iterator was created (a copy of
/// them), not later ones (RocksDB's see later writes too).
pub struct Transaction<'db, DB: DBAccess> {
    db: &'db DB,
    txn: Mutex<Txn<'db>>,
}

impl<DB: DBAccess> fmt::Debug for Transaction<'_, DB> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match &*self.txn.lock() {
            Txn::Pessimistic(_) => "pessimistic",
            Txn::Optimistic(_) => "optimistic",
            Txn::Failed(_) => "failed",
        };
        f.debug_struct("Transaction").field("kind", &kind).finish()
    }
}

fn not_optimistic(call: &str) -> Error {
    Error::not_supported(format!(
        "{call}: optimistic transactions have no names or prepare step"
    ))
}

impl<'db, DB: DBAccess> Transaction<'db, DB> {
    pub(crate) fn pessimistic(db: &'db DB, t: cairndb::Transaction<'db>) -> Self {
        Transaction {
            db,
            txn: Mutex::new(Txn::Pessimistic(t)),
        }
    }

    pub(crate) fn optimistic(db: &'db DB, t: cairndb::OptimisticTransaction<'db>) -> Self {
        Transaction {
            db,
            txn: Mutex::new(Txn::Optimistic(t)),
        }
    }

    pub(crate) fn failed(db: &'db DB, e: Error) -> Self {
        Transaction {
            db,
            txn: Mutex::new(Txn::Failed(e)),
        }
    }

    /// Commits: the writes become visible atomically (`Busy` on a conflict).
    pub fn commit(self) -> Result<(), Error> {
        with_txn!(&mut *self.txn.lock(), t => t.commit())
    }

    /// Names the transaction (needed before `prepare`; pessimistic only).
    pub fn set_name(&self, name: &[u8]) -> Result<(), Error> {
        let name = std::str::from_utf8(name)
            .map_err(|_| Error::invalid("CairnDB's transaction names are UTF-8"))?;
        match &mut *self.txn.lock() {
            Txn::Pessimistic(t) => Ok(t.set_name(name)?),
            Txn::Optimistic(_) => Err(not_optimistic("set_name")),
            Txn::Failed(e) => Err(e.clone()),
        }
    }

    /// The transaction's name.
    pub fn get_name(&self) -> Option<Vec<u8>> {
        match &*self.txn.lock() {
            Txn::Pessimistic(t) => t.name().map(<[u8]>::to_vec),
            _ => None,
        }
    }

    /// Prepares the transaction (two-phase commit; pessimistic only).
    pub fn prepare(&self) -> Result<(), Error> {
        match &mut *self.txn.lock() {
            Txn::Pessimistic(t) => Ok(t.prepare()?),
            Txn::Optimistic(_) => Err(not_optimistic("prepare")),
            Txn::Failed(e) => Err(e.clone()),
        }
    }

    /// Discards the transaction's writes (and releases its locks).
    pub fn rollback(&self) -> Result<(), Error> {
        with_txn!(&mut *self.txn.lock(), t => t.rollback())
    }

    /// Marks a savepoint.
    pub fn set_savepoint(&self) {
        // It fails only on an ended transaction, whose next rollback_to_savepoint reports it.
        let _: Result<(), Error> = with_txn!(&mut *self.txn.lock(), t => t.set_savepoint());
    }

    /// Discards the writes since the last savepoint (`NotFound` without one).
    pub fn rollback_to_savepoint(&self) -> Result<(), Error> {
        with_txn!(&mut *self.txn.lock(), t => t.rollback_to_savepoint())
    }

    // `snapshot()` comes with the read methods: for a transaction it reads as of the
    // transaction's snapshot, or the latest data when the transaction has none.
    crate::read_methods::read_methods!();

    /// Reads `key` and locks it (pessimistic) or tracks it for the commit check (optimistic).
    pub fn get_for_update<K: AsRef<[u8]>>(
        &self,
        key: K,
        exclusive: bool,
    ) -> Result<Option<Vec<u8>>, Error> {
        self.get_for_update_opt(key, exclusive, &ReadOptions::default())
    }

    /// [`Transaction::get_for_update`] with read options.
    pub fn get_for_update_opt<K: AsRef<[u8]>>(
        &self,
        key: K,
        exclusive: bool,
        readopts: &ReadOptions,
    ) -> Result<Option<Vec<u8>>, Error> {
        let cf = self.db.engine().default_column_family();
        self.get_for_update_cf_opt(&crate::column_family::Handle(cf), key, exclusive, readopts)
    }

    /// [`Transaction::get_for_update`] in `cf`.
    pub fn get_for_update_cf<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        exclusive: bool,
    ) -> Result<Option<Vec<u8>>, Error> {
        self.get_for_update_cf_opt(cf, key, exclusive, &ReadOptions::default())
    }

    /// [`Transaction::get_for_update`] in `cf`, with read options.
    pub fn get_for_update_cf_opt<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        exclusive: bool,
        readopts: &ReadOptions,
    ) -> Result<Option<Vec<u8>>, Error> {
        let o = readopts.checked()?;
        let (cf, key) = (cf.cf(), key.as_ref());
        match &mut *self.txn.lock() {
            Txn::Pessimistic(t) => Ok(t.get_for_update_cf(o, cf, key, exclusive)?),
            Txn::Optimistic(t) => Ok(t.get_for_update_cf(o, cf, key)?),
            Txn::Failed(e) => Err(e.clone()),
        }
    }

    fn write_with(&self, f: impl FnOnce(&mut Txn<'db>) -> Result<(), Error>) -> Result<(), Error> {
        f(&mut self.txn.lock())
    }

    /// Sets `key` to `value` in the transaction.
    pub fn put<K: AsRef<[u8]>, V: AsRef<[u8]>>(&self, key: K, value: V) -> Result<(), Error> {
        self.write_with(|t| with_txn!(t, t => t.put(key.as_ref(), value.as_ref())))
    }

    /// Sets `key` to `value` in `cf` in the transaction.
    pub fn put_cf<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        value: V,
    ) -> Result<(), Error> {
        self.write_with(|t| with_txn!(t, t => t.put_cf(cf.cf(), key.as_ref(), value.as_ref())))
    }

    /// Adds a merge operand for `key` in the transaction.
    pub fn merge<K: AsRef<[u8]>, V: AsRef<[u8]>>(&self, key: K, value: V) -> Result<(), Error> {
        self.write_with(|t| with_txn!(t, t => t.merge(key.as_ref(), value.as_ref())))
    }

    /// Adds a merge operand for `key` in `cf` in the transaction.
    pub fn merge_cf<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        value: V,
    ) -> Result<(), Error> {
        self.write_with(|t| with_txn!(t, t => t.merge_cf(cf.cf(), key.as_ref(), value.as_ref())))
    }

    /// Deletes `key` in the transaction.
    pub fn delete<K: AsRef<[u8]>>(&self, key: K) -> Result<(), Error> {
        self.write_with(|t| with_txn!(t, t => t.delete(key.as_ref())))
    }

    /// Deletes `key` in `cf` in the transaction.
    pub fn delete_cf<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
    ) -> Result<(), Error> {
        self.write_with(|t| with_txn!(t, t => t.delete_cf(cf.cf(), key.as_ref())))
    }

    /// A copy of the transaction's writes, as a batch.
    pub fn get_writebatch(&self) -> WriteBatchWithTransaction<true> {
        let batch = match &*self.txn.lock() {
            Txn::Pessimistic(t) => t.write_batch().batch().clone(),
            Txn::Optimistic(t) => t.write_batch().batch().clone(),
            Txn::Failed(_) => cairndb::WriteBatch::new(),
        };
        WriteBatchWithTransaction::from_engine(batch)
    }
}

impl<DB: DBAccess> DBAccess for Transaction<'_, DB> {
    fn engine(&self) -> &cairndb::Db {
        self.db.engine()
    }

    fn take_snapshot(&self) -> SnapshotHandle {
        let seq = match &*self.txn.lock() {
            Txn::Pessimistic(t) => t.snapshot(),
            Txn::Optimistic(t) => t.snapshot(),
            Txn::Failed(_) => None,
        };
        // The transaction keeps its snapshot registered, and the snapshot cannot outlive it.
        SnapshotHandle { seq, held: None }
    }

    fn raw_iter(
        &self,
        cf: Option<&cairndb::ColumnFamily>,
        readopts: ReadOptions,
    ) -> DBRawIteratorWithThreadMode<'_, Self> {
        let cf = cf.cloned();
        DBRawIteratorWithThreadMode::new(
            Box::new(move |o: &ReadOptions| {
                let o = o.checked()?;
                let db = self.engine();
                let cf = cf.clone().unwrap_or_else(|| db.default_column_family());
                // The transaction's own iterator checks that it is still open; its writes are
                // then copied and laid over the database.
                let batch = match &*self.txn.lock() {
                    Txn::Pessimistic(t) => t
                        .iter_cf(o, &cf)
                        .map(drop)
                        .map(|()| t.write_batch().clone()),
                    Txn::Optimistic(t) => t
                        .iter_cf(o, &cf)
                        .map(drop)
                        .map(|()| t.write_batch().clone()),
                    Txn::Failed(e) => return Err(e.clone()),
                }?;
                Ok(Cursor::Txn(cairndb::OwnedBaseDeltaIter::new(
                    batch, db, o, &cf,
                )?))
            }),
            readopts,
        )
    }

    fn get_pinned_at(
        &self,
        cf: Option<&cairndb::ColumnFamily>,
        key: &[u8],
        readopts: &ReadOptions,
    ) -> Result<Option<DBPinnableSlice<'_>>, Error> {
        let v = match cf {
            Some(cf) => {
                self.get_cf_opt(&crate::column_family::Handle(cf.clone()), key, readopts)?
            }
            None => DBAccess::get_opt(self, key, readopts)?,
        };
        Ok(v.map(|v| DBPinnableSlice {
            inner: cairndb::PinnableValue::from(v),
            db: PhantomData,
        }))
    }

    fn get_opt<K: AsRef<[u8]>>(
        &self,
        key: K,
        readopts: &ReadOptions,
    ) -> Result<Option<Vec<u8>>, Error> {
        let o = readopts.checked()?;
        with_txn!(&*self.txn.lock(), t => t.get(o, key.as_ref()))
    }

    fn get_cf_opt<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        readopts: &ReadOptions,
    ) -> Result<Option<Vec<u8>>, Error> {
        let o = readopts.checked()?;
        with_txn!(&*self.txn.lock(), t => t.get_cf(o, cf.cf(), key.as_ref()))
    }
}
