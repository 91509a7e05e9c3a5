//! The extension module `cairndb._cairndb` behind the Python package `cairndb`
//! (`python/cairndb/__init__.py` re-exports it; `python/cairndb/__init__.pyi` types it).
//!
//! Where each part lives:
//! - `errors.rs`: the exception classes and the mapping from CairnDB's error kinds.
//! - `codec.rs`: keys and values as `bytes` (the default) or as pickled objects.
//! - `db.rs`: `Db` and `ColumnFamily`, the dict-like database and its families.
//! - `iter.rs`: `items()`/`keys()`/`values()` iterators with bounds, prefixes and direction.
//! - `batch.rs`: `WriteBatch`.
//! - `snapshot.rs`: `Snapshot`.
//! - `transaction.rs`: `TransactionDb` and `Transaction`.
//!
//! # Contract
//! 1. Every call that may do I/O (reads, writes, flushes, iteration steps that refill) releases
//!    the GIL while the engine works, so Python threads using one database run in parallel.
//! 2. Errors raise a subclass of `cairndb.Error` named after CairnDB's error kind; a missing key
//!    raises `KeyError` only from `db[key]`, as a `dict` does.
//! 3. Objects that depend on a database (column families, iterators, snapshots, transactions)
//!    keep it alive; after `close()` every call on it or on them raises `cairndb.ClosedError`.
//! 4. Nothing here is unsafe except the one place that keeps a transaction together with the
//!    database it borrows (`transaction.rs`, with its argument).

// The classes are Python objects; Python shows them, not `Debug`.
#![allow(missing_debug_implementations)]

use pyo3::prelude::*;

mod batch;
mod codec;
mod db;
mod errors;
mod iter;
mod snapshot;
mod transaction;

// Declared as needing the GIL: the free-threaded build is untested.
#[pymodule(gil_used = true)]
fn _cairndb(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<db::Db>()?;
    m.add_class::<db::ColumnFamily>()?;
    m.add_class::<iter::Iter>()?;
    m.add_class::<batch::WriteBatch>()?;
    m.add_class::<snapshot::Snapshot>()?;
    m.add_class::<transaction::TransactionDb>()?;
    m.add_class::<transaction::Transaction>()?;
    errors::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
