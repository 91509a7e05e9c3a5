//! `TransactionDb` and `Transaction`: pessimistic transactions (locks taken as keys are
//! written or read for update; released at commit or rollback).

use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::sync::MutexExt;

use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use cairndb::{TransactionDbOptions, TransactionOptions};

use crate::db::{
    open_transaction_engine, parse_options, write_options, ColumnFamily, Db, Engine, Handle,
};
use crate::errors::{check, closed, InvalidArgumentError};

/// A `Db` with transactions. Writes outside transactions take the keys' locks too; range
/// deletions (`delete_range`, or in a batch) are refused (`NotSupportedError`), since they cannot
/// take locks.
///
/// `TransactionDb(path, options=None, *, create_if_missing=True, pickle=False,
/// lock_timeout_ms=1000)`: `lock_timeout_ms` is how long a transaction waits for a lock
/// (RocksDB's `transaction_lock_timeout`; 0: do not wait) and how long a write outside
/// transactions waits (`default_lock_timeout`).
#[pyclass(module = "cairndb", extends = Db, frozen)]
pub struct TransactionDb {}

#[pymethods]
impl TransactionDb {
    #[new]
    #[pyo3(signature = (path, options=None, *, create_if_missing=None, pickle=false, lock_timeout_ms=1000))]
    fn new(
        py: Python<'_>,
        path: std::path::PathBuf,
        options: Option<&str>,
        create_if_missing: Option<bool>,
        pickle: bool,
        lock_timeout_ms: i64,
    ) -> PyResult<PyClassInitializer<TransactionDb>> {
        let opts = parse_options(options, create_if_missing)?;
        let txn = TransactionDbOptions {
            transaction_lock_timeout: lock_timeout_ms,
            default_lock_timeout: lock_timeout_ms,
            ..TransactionDbOptions::default()
        };
        let engine = open_transaction_engine(py, &path, opts, txn)?;
        let db = Db::from_engine(py, engine, path, pickle)?;
        Ok(PyClassInitializer::from(db).add_subclass(TransactionDb {}))
    }

    /// The transactions waiting for a lock, each as `(id, [ids of the transactions it waits
    /// for])` (RocksDB's `GetWaitingTxns`); empty when none waits.
    fn waiting_transactions(slf: PyRef<'_, Self>) -> PyResult<Vec<(u64, Vec<u64>)>> {
        let Engine::Txn(tdb) = slf.as_super().handle().engine()? else {
            unreachable!("a TransactionDb's engine is a transaction database")
        };
        Ok(tdb.waiting_transactions())
    }

    /// Begins a transaction. `snapshot=True` fixes its reads at begin and makes its commit fail
    /// (`BusyError`) when a key it locked was written by someone else after that point;
    /// `lock_timeout_ms` overrides the database's wait for locks; `sync` makes the commit wait
    /// for the WAL to reach the disk. As a context manager it commits at the end of the block,
    /// or rolls back when the block raises.
    #[pyo3(signature = (*, snapshot=false, lock_timeout_ms=None, sync=false, deadlock_detect=false))]
    fn transaction(
        slf: PyRef<'_, Self>,
        snapshot: bool,
        lock_timeout_ms: Option<i64>,
        sync: bool,
        deadlock_detect: bool,
    ) -> PyResult<Transaction> {
        let handle = Arc::clone(slf.as_super().handle());
        let Engine::Txn(tdb) = handle.engine()? else {
            unreachable!("a TransactionDb's engine is a transaction database")
        };
        if lock_timeout_ms.is_some_and(|ms| ms < 0) {
            return Err(InvalidArgumentError::new_err(
                "lock_timeout_ms must be 0 or more (None: the database's)",
            ));
        }
        let opts = TransactionOptions {
            set_snapshot: snapshot,
            lock_timeout: lock_timeout_ms.unwrap_or(-1),
            deadlock_detect,
            ..TransactionOptions::default()
        };
        let txn = check(tdb.begin_transaction(&write_options(sync, false), &opts))?;
        // SAFETY: the transaction borrows the `TransactionDb` inside `tdb`'s allocation, which
        // `Transaction::keep` holds for as long as the transaction exists (fields drop in
        // declaration order: `txn` before `keep`), and nothing moves out of that allocation.
        let txn: cairndb::Transaction<'static> = unsafe { std::mem::transmute(txn) };
        Ok(Transaction {
            txn: Mutex::new(Some(txn)),
            handle,
            keep: tdb,
        })
    }
}

/// Read options that read at the transaction's snapshot, when it took one.
fn snapshot_reads(t: &cairndb::Transaction<'_>) -> cairndb::options::ReadOptions {
    cairndb::options::ReadOptions {
        snapshot: t.snapshot(),
        ..cairndb::options::ReadOptions::default()
    }
}

/// One pessimistic transaction; see `TransactionDb.transaction`. Calls from several threads are
/// serialized (a call waits, with the GIL released, for the one in progress).
#[pyclass(module = "cairndb", frozen)]
pub struct Transaction {
    /// `None` once committed or rolled back. Declared first: it borrows from `keep`.
    txn: Mutex<Option<cairndb::Transaction<'static>>>,
    handle: Arc<Handle>,
    keep: Arc<cairndb::TransactionDb>,
}

impl Transaction {
    /// The transaction's lock. Another thread may hold it while it waits in the engine with
    /// the GIL released; this waits with the GIL released too, or neither could go on.
    fn lock(
        &self,
        py: Python<'_>,
    ) -> PyResult<MutexGuard<'_, Option<cairndb::Transaction<'static>>>> {
        self.handle.engine()?;
        Ok(self
            .txn
            .lock_py_attached(py)
            .expect("a transaction's lock is never poisoned"))
    }

    /// Runs `f` on the open transaction with the GIL released.
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut cairndb::Transaction<'static>) -> cairndb::Result<T> + Send,
    ) -> PyResult<T> {
        let mut g = self.lock(py)?;
        let t = g.as_mut().ok_or_else(|| closed("the transaction"))?;
        check(py.detach(|| f(t)))
    }

    /// The engine's family for `cf` (the default family for `None`); it must belong to this
    /// transaction's database.
    fn family(&self, cf: Option<PyRef<'_, ColumnFamily>>) -> PyResult<cairndb::ColumnFamily> {
        match cf {
            Some(c) if Arc::ptr_eq(c.handle(), &self.handle) => Ok(c.cf().clone()),
            Some(_) => Err(InvalidArgumentError::new_err(
                "the column family belongs to another database",
            )),
            None => Ok(self.keep.db().default_column_family()),
        }
    }

    fn finish(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut cairndb::Transaction<'static>) -> cairndb::Result<()> + Send,
    ) -> PyResult<()> {
        let mut g = self.lock(py)?;
        let Some(mut t) = g.take() else {
            return Err(closed("the transaction"));
        };
        check(py.detach(|| f(&mut t)))
    }
}

#[pymethods]
impl Transaction {
    /// The value of `key` as the transaction sees it (its own writes over the database), or
    /// `default`.
    #[pyo3(signature = (key, default=None, *, cf=None))]
    fn get(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        default: Option<Py<PyAny>>,
        cf: Option<PyRef<'_, ColumnFamily>>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let k = self.handle.codec.encode(key)?;
        let fam = self.family(cf)?;
        let v = self.with(py, |t| t.get_cf(&snapshot_reads(t), &fam, &k))?;
        match v {
            Some(v) => Ok(Some(self.handle.codec.decode(py, &v)?)),
            None => Ok(default),
        }
    }

    /// Reads `key` and locks it until the transaction ends (shared unless `exclusive`).
    #[pyo3(signature = (key, default=None, *, exclusive=true, cf=None))]
    fn get_for_update(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        default: Option<Py<PyAny>>,
        exclusive: bool,
        cf: Option<PyRef<'_, ColumnFamily>>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let k = self.handle.codec.encode(key)?;
        let fam = self.family(cf)?;
        let v = self.with(py, |t| {
            t.get_for_update_cf(&snapshot_reads(t), &fam, &k, exclusive)
        })?;
        match v {
            Some(v) => Ok(Some(self.handle.codec.decode(py, &v)?)),
            None => Ok(default),
        }
    }

    /// The values of `keys` as the transaction sees them (`None` where a key has none).
    fn multi_get<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let ks = self.handle.codec.encode_all(keys)?;
        let results = {
            let g = self.lock(py)?;
            let t = g.as_ref().ok_or_else(|| closed("the transaction"))?;
            py.detach(|| t.multi_get(&snapshot_reads(t), &ks))
        };
        let out = PyList::empty(py);
        for r in results {
            match check(r)? {
                Some(v) => out.append(self.handle.codec.decode(py, &v)?)?,
                None => out.append(py.None())?,
            }
        }
        Ok(out)
    }

    /// Sets `key` to `value` in the transaction (taking the key's lock).
    #[pyo3(signature = (key, value, *, cf=None))]
    fn put(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        cf: Option<PyRef<'_, ColumnFamily>>,
    ) -> PyResult<()> {
        let (k, v) = (
            self.handle.codec.encode(key)?,
            self.handle.codec.encode(value)?,
        );
        let fam = self.family(cf)?;
        self.with(py, |t| t.put_cf(&fam, &k, &v))
    }

    /// Deletes `key` in the transaction (taking the key's lock).
    #[pyo3(signature = (key, *, cf=None))]
    fn delete(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        cf: Option<PyRef<'_, ColumnFamily>>,
    ) -> PyResult<()> {
        let k = self.handle.codec.encode(key)?;
        let fam = self.family(cf)?;
        self.with(py, |t| t.delete_cf(&fam, &k))
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        self.get(py, key, None, None)?
            .ok_or_else(|| PyKeyError::new_err(key.clone().unbind()))
    }

    fn __setitem__(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.put(py, key, value, None)
    }

    fn __delitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        self.delete(py, key, None)
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.get(py, key, None, None)?.is_some())
    }

    /// Remembers the transaction's writes so far; `rollback_to_savepoint` returns to them.
    fn set_savepoint(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |t| t.set_savepoint())
    }

    /// Undoes the writes since the last savepoint (`NotFoundError` when there is none).
    fn rollback_to_savepoint(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |t| t.rollback_to_savepoint())
    }

    /// Writes the transaction's changes atomically and releases its locks.
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        self.finish(py, |t| t.commit())
    }

    /// Discards the transaction's changes and releases its locks.
    fn rollback(&self, py: Python<'_>) -> PyResult<()> {
        self.finish(py, |t| t.rollback())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Commits when the block ended normally, rolls back when it raised (and lets the
    /// exception through).
    #[pyo3(signature = (exc_type, *_rest))]
    fn __exit__(
        &self,
        py: Python<'_>,
        exc_type: &Bound<'_, PyAny>,
        _rest: &Bound<'_, PyTuple>,
    ) -> PyResult<bool> {
        let open = self
            .txn
            .lock_py_attached(py)
            .expect("a transaction's lock is never poisoned")
            .is_some();
        if !open {
            return Ok(false);
        }
        if exc_type.is_none() {
            self.commit(py)?;
        } else {
            self.rollback(py)?;
        }
        Ok(false)
    }
}
