//! `Db` and `ColumnFamily`: the dict-like database and its column families.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use cairndb::options::{Options, ParseConfig, ReadOptions, WriteOptions};
use cairndb::{TransactionDb, WriteBatch};

use crate::batch::WriteBatch as PyWriteBatch;
use crate::codec::Codec;
use crate::errors::{check, closed, InvalidArgumentError};
use crate::iter::{Iter, Mode, Range};
use crate::snapshot::Snapshot;

/// The engine behind a Python database: a plain database or a transaction database (whose
/// writes outside transactions take its locks).
#[derive(Clone)]
pub(crate) enum Engine {
    Plain(Arc<cairndb::Db>),
    Txn(Arc<TransactionDb>),
}

impl Engine {
    pub(crate) fn db(&self) -> &cairndb::Db {
        match self {
            Engine::Plain(db) => db,
            Engine::Txn(t) => t.db(),
        }
    }

    fn put(
        &self,
        w: &WriteOptions,
        cf: &cairndb::ColumnFamily,
        k: &[u8],
        v: &[u8],
    ) -> cairndb::Result<()> {
        match self {
            Engine::Plain(db) => db.put_cf(w, cf, k, v),
            Engine::Txn(t) => t.put_cf(w, cf, k, v),
        }
    }

    fn delete(
        &self,
        w: &WriteOptions,
        cf: &cairndb::ColumnFamily,
        k: &[u8],
    ) -> cairndb::Result<()> {
        match self {
            Engine::Plain(db) => db.delete_cf(w, cf, k),
            Engine::Txn(t) => t.delete_cf(w, cf, k),
        }
    }

    pub(crate) fn write(&self, w: &WriteOptions, batch: WriteBatch) -> cairndb::Result<()> {
        match self {
            Engine::Plain(db) => db.write(w, batch),
            Engine::Txn(t) => t.write(w, batch),
        }
    }

    fn close(&self) -> cairndb::Result<()> {
        match self {
            Engine::Plain(db) => db.close(),
            Engine::Txn(t) => t.close(),
        }
    }
}

/// What every object of one open database shares: the engine (gone after `close`) and the codec.
/// When the last Python object of a database that was never closed goes, the engine closes
/// with the GIL released (it waits for background work).
pub(crate) struct Handle {
    engine: RwLock<Option<Engine>>,
    pub(crate) codec: Codec,
    pub(crate) path: PathBuf,
}

impl Drop for Handle {
    fn drop(&mut self) {
        let engine = self.engine.get_mut().map(Option::take).unwrap_or_default();
        if let Some(e) = engine {
            Python::attach(|py| py.detach(|| drop(e)));
        }
    }
}

impl Handle {
    /// The engine, or `ClosedError`.
    pub(crate) fn engine(&self) -> PyResult<Engine> {
        self.engine
            .read()
            .expect("the handle's lock is never poisoned")
            .clone()
            .ok_or_else(|| closed("the database"))
    }

    /// `ClosedError` once the database is closed; no engine handle is taken (per-item checks).
    pub(crate) fn check_open(&self) -> PyResult<()> {
        match self
            .engine
            .read()
            .expect("the handle's lock is never poisoned")
            .is_some()
        {
            true => Ok(()),
            false => Err(closed("the database")),
        }
    }

    pub(crate) fn is_pickle(&self) -> bool {
        matches!(self.codec, Codec::Pickle { .. })
    }
}

/// Options from RocksDB's option string `options` (applied to CairnDB's defaults), with
/// `create_if_missing` when given (else the option string's, else true).
pub(crate) fn parse_options(
    options: Option<&str>,
    create_if_missing: Option<bool>,
) -> PyResult<Options> {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    if let Some(s) = options {
        check(o.apply_options_string(s, &ParseConfig::default()))?;
    }
    if let Some(c) = create_if_missing {
        o.db.create_if_missing = c;
    }
    Ok(o)
}

pub(crate) fn write_options(sync: bool, disable_wal: bool) -> WriteOptions {
    WriteOptions {
        sync,
        disable_wal,
        ..WriteOptions::default()
    }
}

/// Read options at `snapshot` (which must belong to the same database).
pub(crate) fn read_options(
    handle: &Arc<Handle>,
    snapshot: Option<&Snapshot>,
) -> PyResult<ReadOptions> {
    let mut ro = ReadOptions::default();
    if let Some(s) = snapshot {
        if !Arc::ptr_eq(&s.handle, handle) {
            return Err(InvalidArgumentError::new_err(
                "the snapshot belongs to another database",
            ));
        }
        ro.snapshot = Some(s.sequence()?);
    }
    Ok(ro)
}

/// A database and one of its column families: what the dict-like methods act on.
pub(crate) struct Target {
    pub(crate) handle: Arc<Handle>,
    pub(crate) cf: cairndb::ColumnFamily,
}

impl Target {
    fn get(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        snapshot: Option<&Snapshot>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let engine = self.handle.engine()?;
        let k = self.handle.codec.encode(key)?;
        let ro = read_options(&self.handle, snapshot)?;
        let cf = &self.cf;
        let v = check(py.detach(|| engine.db().get_pinned_cf(&ro, cf, &k)))?;
        v.map(|v| self.handle.codec.decode(py, &v)).transpose()
    }

    /// Whether `key` has a value (without decoding it).
    fn contains(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let engine = self.handle.engine()?;
        let k = self.handle.codec.encode(key)?;
        let ro = ReadOptions::default();
        let cf = &self.cf;
        Ok(check(py.detach(|| engine.db().get_pinned_cf(&ro, cf, &k)))?.is_some())
    }

    fn put(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        w: WriteOptions,
    ) -> PyResult<()> {
        let engine = self.handle.engine()?;
        let k = self.handle.codec.encode(key)?;
        let v = self.handle.codec.encode(value)?;
        let cf = &self.cf;
        check(py.detach(|| engine.put(&w, cf, &k, &v)))
    }

    fn delete(&self, py: Python<'_>, key: &Bound<'_, PyAny>, w: WriteOptions) -> PyResult<()> {
        let engine = self.handle.engine()?;
        let k = self.handle.codec.encode(key)?;
        let cf = &self.cf;
        check(py.detach(|| engine.delete(&w, cf, &k)))
    }

    fn delete_range(
        &self,
        py: Python<'_>,
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
        w: WriteOptions,
    ) -> PyResult<()> {
        let engine = self.handle.engine()?;
        let s = self.handle.codec.encode(start)?;
        let e = self.handle.codec.encode(end)?;
        let cf = &self.cf;
        let mut b = WriteBatch::new();
        check(b.delete_range_cf(cf.id(), &s, &e))?;
        check(py.detach(|| engine.write(&w, b)))
    }

    fn multi_get<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        snapshot: Option<&Snapshot>,
    ) -> PyResult<Bound<'py, PyList>> {
        let engine = self.handle.engine()?;
        let ks = self.handle.codec.encode_all(keys)?;
        let ro = read_options(&self.handle, snapshot)?;
        let cf = &self.cf;
        let results = py.detach(|| engine.db().multi_get_cf(&ro, cf, &ks));
        let out = PyList::empty(py);
        for r in results {
            match check(r)? {
                Some(v) => out.append(self.handle.codec.decode(py, &v)?)?,
                None => out.append(py.None())?,
            }
        }
        Ok(out)
    }

    fn iter(
        &self,
        py: Python<'_>,
        mode: Mode,
        range: Range,
        snapshot: Option<&Snapshot>,
    ) -> PyResult<Iter> {
        let ro = read_options(&self.handle, snapshot)?;
        Iter::new(py, &self.handle, &self.cf, ro, mode, range)
    }

    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let engine = self.handle.engine()?;
        let cf = &self.cf;
        check(py.detach(|| engine.db().flush_cf(cf)))
    }

    fn compact_range(
        &self,
        py: Python<'_>,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let engine = self.handle.engine()?;
        let s = start.map(|s| self.handle.codec.encode(s)).transpose()?;
        let e = end.map(|e| self.handle.codec.encode(e)).transpose()?;
        let cf = &self.cf;
        check(py.detach(|| engine.db().compact_range_cf(cf, s.as_deref(), e.as_deref())))
    }

    fn property(&self, name: &str) -> PyResult<Option<String>> {
        let engine = self.handle.engine()?;
        Ok(engine.db().property_cf(&self.cf, name))
    }
}

/// The methods `Db` and `ColumnFamily` share (one `#[pymethods]` block per class), followed by
/// the class's own.
macro_rules! mapping_methods {
    ($class:ident { $($own:tt)* }) => {
        #[pymethods]
        impl $class {
            /// The value of `key`; `KeyError` when it has none.
            fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
                self.target()?.get(py, key, None)?.ok_or_else(|| PyKeyError::new_err(key.clone().unbind()))
            }

            /// Sets `key` to `value`.
            fn __setitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>) -> PyResult<()> {
                self.target()?.put(py, key, value, WriteOptions::default())
            }

            /// Deletes `key` (a key without a value is not an error: the engine writes a
            /// deletion without reading first, as RocksDB and rocksdict do).
            fn __delitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
                self.target()?.delete(py, key, WriteOptions::default())
            }

            fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
                self.target()?.contains(py, key)
            }

            /// Iterates the keys, in order.
            fn __iter__(&self, py: Python<'_>) -> PyResult<Iter> {
                self.target()?.iter(py, Mode::Keys, Range::default(), None)
            }

            /// The value of `key`, or `default`; read at `snapshot` when given.
            #[pyo3(signature = (key, default=None, *, snapshot=None))]
            fn get(&self, py: Python<'_>, key: &Bound<'_, PyAny>, default: Option<Py<PyAny>>, snapshot: Option<PyRef<'_, Snapshot>>) -> PyResult<Option<Py<PyAny>>> {
                Ok(self.target()?.get(py, key, snapshot.as_deref())?.or(default))
            }

            /// Sets `key` to `value`; `sync` waits for the WAL to reach the disk, `disable_wal`
            /// skips the WAL (the write is lost if the process dies before a flush).
            #[pyo3(signature = (key, value, *, sync=false, disable_wal=false))]
            fn put(&self, py: Python<'_>, key: &Bound<'_, PyAny>, value: &Bound<'_, PyAny>, sync: bool, disable_wal: bool) -> PyResult<()> {
                self.target()?.put(py, key, value, write_options(sync, disable_wal))
            }

            /// Deletes `key`.
            #[pyo3(signature = (key, *, sync=false, disable_wal=false))]
            fn delete(&self, py: Python<'_>, key: &Bound<'_, PyAny>, sync: bool, disable_wal: bool) -> PyResult<()> {
                self.target()?.delete(py, key, write_options(sync, disable_wal))
            }

            /// Deletes every key in `[start, end)`.
            #[pyo3(signature = (start, end, *, sync=false, disable_wal=false))]
            fn delete_range(&self, py: Python<'_>, start: &Bound<'_, PyAny>, end: &Bound<'_, PyAny>, sync: bool, disable_wal: bool) -> PyResult<()> {
                self.target()?.delete_range(py, start, end, write_options(sync, disable_wal))
            }

            /// The values of `keys` (`None` where a key has none), all read at one snapshot.
            #[pyo3(signature = (keys, *, snapshot=None))]
            fn multi_get<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyAny>, snapshot: Option<PyRef<'_, Snapshot>>) -> PyResult<Bound<'py, PyList>> {
                self.target()?.multi_get(py, keys, snapshot.as_deref())
            }

            /// `(key, value)` pairs in key order (reversed with `reverse=True`) from `start`
            /// (inclusive) to `end` (exclusive), or of the keys that start with `prefix`.
            #[pyo3(signature = (start=None, end=None, *, prefix=None, reverse=false, snapshot=None))]
            fn items(&self, py: Python<'_>, start: Option<&Bound<'_, PyAny>>, end: Option<&Bound<'_, PyAny>>, prefix: Option<&Bound<'_, PyAny>>, reverse: bool, snapshot: Option<PyRef<'_, Snapshot>>) -> PyResult<Iter> {
                let t = self.target()?;
                let range = Range::new(&t.handle, start, end, prefix, reverse)?;
                t.iter(py, Mode::Items, range, snapshot.as_deref())
            }

            /// The keys, as `items` takes its range.
            #[pyo3(signature = (start=None, end=None, *, prefix=None, reverse=false, snapshot=None))]
            fn keys(&self, py: Python<'_>, start: Option<&Bound<'_, PyAny>>, end: Option<&Bound<'_, PyAny>>, prefix: Option<&Bound<'_, PyAny>>, reverse: bool, snapshot: Option<PyRef<'_, Snapshot>>) -> PyResult<Iter> {
                let t = self.target()?;
                let range = Range::new(&t.handle, start, end, prefix, reverse)?;
                t.iter(py, Mode::Keys, range, snapshot.as_deref())
            }

            /// The values, as `items` takes its range.
            #[pyo3(signature = (start=None, end=None, *, prefix=None, reverse=false, snapshot=None))]
            fn values(&self, py: Python<'_>, start: Option<&Bound<'_, PyAny>>, end: Option<&Bound<'_, PyAny>>, prefix: Option<&Bound<'_, PyAny>>, reverse: bool, snapshot: Option<PyRef<'_, Snapshot>>) -> PyResult<Iter> {
                let t = self.target()?;
                let range = Range::new(&t.handle, start, end, prefix, reverse)?;
                t.iter(py, Mode::Values, range, snapshot.as_deref())
            }

            /// Writes the memtables to table files and waits for it.
            fn flush(&self, py: Python<'_>) -> PyResult<()> {
                self.target()?.flush(py)
            }

            /// Compacts the keys in `[start, end]` (None: unbounded) down the tree and waits.
            #[pyo3(signature = (start=None, end=None))]
            fn compact_range(&self, py: Python<'_>, start: Option<&Bound<'_, PyAny>>, end: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
                self.target()?.compact_range(py, start, end)
            }

            /// A property under RocksDB's name (`rocksdb.stats`, `rocksdb.estimate-num-keys`,
            /// ...), or None when there is no such property.
            fn property(&self, name: &str) -> PyResult<Option<String>> {
                self.target()?.property(name)
            }

            $($own)*
        }
    };
}

/// An open database: a persistent, ordered mapping of keys to values.
///
/// `Db(path, options=None, *, create_if_missing=True, pickle=False)` opens (creating it when
/// missing) the database in directory `path`. `options` is a RocksDB option string
/// (`"write_buffer_size=64m;compression=kZSTD"`). Keys and values are `bytes`; with
/// `pickle=True` they may be any picklable objects. Every column family the database has is
/// opened; `column_family(name)` gives one.
#[pyclass(module = "cairndb", subclass, frozen)]
pub struct Db {
    pub(crate) target: Target,
}

impl Db {
    pub(crate) fn from_engine(
        py: Python<'_>,
        engine: Engine,
        path: PathBuf,
        pickle: bool,
    ) -> PyResult<Db> {
        let cf = engine.db().default_column_family();
        Ok(Db {
            target: Target {
                handle: Arc::new(Handle {
                    engine: RwLock::new(Some(engine)),
                    codec: Codec::new(py, pickle)?,
                    path,
                }),
                cf,
            },
        })
    }

    fn target(&self) -> PyResult<&Target> {
        Ok(&self.target)
    }

    pub(crate) fn handle(&self) -> &Arc<Handle> {
        &self.target.handle
    }
}

mapping_methods!(Db {
    /// With `read_only=True` the database is opened as RocksDB's `OpenForReadOnly` does: as
    /// it is at the open, without its lock (another handle may be writing it), and every
    /// write raises `NotSupportedError`.
    #[new]
    #[pyo3(signature = (path, options=None, *, create_if_missing=None, pickle=false, read_only=false))]
    fn new(py: Python<'_>, path: PathBuf, options: Option<&str>, create_if_missing: Option<bool>, pickle: bool, read_only: bool) -> PyResult<Db> {
        let opts = parse_options(options, create_if_missing)?;
        let p = path.clone();
        let db = check(py.detach(|| {
            if read_only {
                cairndb::Db::open_for_read_only(&p, opts, false)
            } else {
                cairndb::Db::open(&p, opts)
            }
        }))?;
        Db::from_engine(py, Engine::Plain(Arc::new(db)), path, pickle)
    }

    /// Closes the database: waits for background work and releases the directory. Later calls
    /// on it, its column families, iterators and snapshots raise `ClosedError`. Closing twice
    /// does nothing.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let engine = self
            .target
            .handle
            .engine
            .write()
            .expect("the handle's lock is never poisoned")
            .take();
        match engine {
            Some(e) => check(py.detach(|| e.close())),
            None => Ok(()),
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    /// True once `close` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.target.handle.engine().is_err()
    }

    /// The database's directory.
    #[getter]
    fn path(&self) -> String {
        self.target.handle.path.to_string_lossy().into_owned()
    }

    /// Applies `batch` atomically (all of it or none of it, also across a crash).
    #[pyo3(signature = (batch, *, sync=false, disable_wal=false))]
    fn write(&self, py: Python<'_>, batch: PyRef<'_, PyWriteBatch>, sync: bool, disable_wal: bool) -> PyResult<()> {
        let engine = self.target.handle.engine()?;
        if batch.pickle != self.target.handle.is_pickle() {
            return Err(PyValueError::new_err(
                "the batch and the database disagree on pickle mode",
            ));
        }
        if !batch.families_belong_to(&self.target.handle) {
            return Err(InvalidArgumentError::new_err(
                "the batch names a column family of another database",
            ));
        }
        let b = batch.take_copy();
        let w = write_options(sync, disable_wal);
        check(py.detach(|| engine.write(&w, b)))
    }

    /// A consistent view of the database now, for `snapshot=` arguments (and a context manager
    /// that releases it).
    fn snapshot(&self) -> PyResult<Snapshot> {
        Snapshot::new(&self.target.handle)
    }

    /// The column family `name`; `NotFoundError` when the database has none of that name.
    fn column_family(&self, name: &str) -> PyResult<ColumnFamily> {
        let engine = self.target.handle.engine()?;
        let cf = engine.db().column_family(name).ok_or_else(|| {
            crate::errors::NotFoundError::new_err(format!("no column family named {name:?}"))
        })?;
        Ok(ColumnFamily {
            target: Target {
                handle: Arc::clone(&self.target.handle),
                cf,
            },
        })
    }

    /// The names of the column families, `default` first.
    fn column_families(&self) -> PyResult<Vec<String>> {
        let engine = self.target.handle.engine()?;
        Ok(engine
            .db()
            .column_families()
            .iter()
            .map(|c| c.name().to_string())
            .collect())
    }

    /// Creates column family `name` with the column-family options of `options` (a RocksDB
    /// option string; CairnDB's defaults otherwise).
    #[pyo3(signature = (name, options=None))]
    fn create_column_family(&self, py: Python<'_>, name: &str, options: Option<&str>) -> PyResult<ColumnFamily> {
        let engine = self.target.handle.engine()?;
        // Column-family options only: a database option in the string is refused.
        let mut cf_opts = cairndb::options::CfOptions::default();
        if let Some(s) = options {
            check(cf_opts.apply_options_string(s, &ParseConfig::default()))?;
        }
        let cf = check(py.detach(|| engine.db().create_column_family(name, cf_opts)))?;
        Ok(ColumnFamily {
            target: Target {
                handle: Arc::clone(&self.target.handle),
                cf,
            },
        })
    }

    /// Drops column family `name` and its data.
    fn drop_column_family(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        let cf = self.column_family(name)?;
        let engine = self.target.handle.engine()?;
        check(py.detach(|| engine.db().drop_column_family(&cf.target.cf)))
    }

    /// Writes a checkpoint (an openable copy, tables hard-linked) into directory `path`, which
    /// must not exist.
    fn checkpoint(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let engine = self.target.handle.engine()?;
        check(py.detach(|| engine.db().checkpoint(&path)))?;
        Ok(())
    }

    /// The sequence number of the newest write.
    fn latest_sequence_number(&self) -> PyResult<u64> {
        Ok(self.target.handle.engine()?.db().latest_sequence())
    }
});

/// One column family of a database: the same dict-like methods as `Db`, on its own keys.
#[pyclass(module = "cairndb", frozen)]
pub struct ColumnFamily {
    target: Target,
}

impl ColumnFamily {
    fn target(&self) -> PyResult<&Target> {
        Ok(&self.target)
    }

    pub(crate) fn id(&self) -> u32 {
        self.target.cf.id()
    }

    pub(crate) fn handle(&self) -> &Arc<Handle> {
        &self.target.handle
    }

    pub(crate) fn cf(&self) -> &cairndb::ColumnFamily {
        &self.target.cf
    }
}

mapping_methods!(ColumnFamily {
    /// The family's name.
    #[getter]
    fn name(&self) -> String {
        self.target.cf.name().to_string()
    }
});

/// A `Db` whose writes go through a transaction database (its keys' locks are taken).
pub(crate) fn open_transaction_engine(
    py: Python<'_>,
    path: &std::path::Path,
    opts: Options,
    txn: cairndb::TransactionDbOptions,
) -> PyResult<Engine> {
    let t = check(py.detach(|| TransactionDb::open(path, opts, txn)))?;
    Ok(Engine::Txn(Arc::new(t)))
}
