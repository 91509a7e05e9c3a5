//! `WriteBatch`: writes applied together by `Db.write`.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

use crate::codec::Codec;
use crate::db::{ColumnFamily, Handle};
use crate::errors::check;

/// Puts and deletes that `Db.write` applies atomically, in order. `WriteBatch(pickle=False)`:
/// keys and values are `bytes`, or any picklable objects with `pickle=True` (it must match the
/// database's mode). Column families are given as `cf=db.column_family(name)`.
#[pyclass(module = "cairndb", frozen)]
pub struct WriteBatch {
    pub(crate) pickle: bool,
    codec: Codec,
    batch: Mutex<cairndb::WriteBatch>,
    /// The databases of the column families the batch names (`cf=`), checked at write.
    databases: Mutex<Vec<Arc<Handle>>>,
}

impl WriteBatch {
    /// A copy of the batch to write (the batch stays usable).
    pub(crate) fn take_copy(&self) -> cairndb::WriteBatch {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, cairndb::WriteBatch> {
        self.batch.lock().expect("a batch's lock is never poisoned")
    }

    /// Whether every column family the batch named belongs to the database of `handle`.
    pub(crate) fn families_belong_to(&self, handle: &Arc<Handle>) -> bool {
        self.databases
            .lock()
            .expect("a batch's lock is never poisoned")
            .iter()
            .all(|h| Arc::ptr_eq(h, handle))
    }

    /// The id of `cf` (0: the default family), remembering its database.
    fn family(&self, cf: Option<PyRef<'_, ColumnFamily>>) -> u32 {
        match cf {
            Some(c) => {
                let mut d = self
                    .databases
                    .lock()
                    .expect("a batch's lock is never poisoned");
                if !d.iter().any(|h| Arc::ptr_eq(h, c.handle())) {
                    d.push(Arc::clone(c.handle()));
                }
                c.id()
            }
            None => 0,
        }
    }
}

#[pymethods]
impl WriteBatch {
    #[new]
    #[pyo3(signature = (*, pickle=false))]
    fn new(py: Python<'_>, pickle: bool) -> PyResult<WriteBatch> {
        Ok(WriteBatch {
            pickle,
            codec: Codec::new(py, pickle)?,
            batch: Mutex::new(cairndb::WriteBatch::new()),
            databases: Mutex::new(Vec::new()),
        })
    }

    /// Sets `key` to `value` (in column family `cf`).
    #[pyo3(signature = (key, value, *, cf=None))]
    fn put(
        &self,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
        cf: Option<PyRef<'_, ColumnFamily>>,
    ) -> PyResult<()> {
        let (k, v) = (self.codec.encode(key)?, self.codec.encode(value)?);
        let id = self.family(cf);
        check(self.lock().put_cf(id, &k, &v))
    }

    /// Deletes `key` (in column family `cf`).
    #[pyo3(signature = (key, *, cf=None))]
    fn delete(&self, key: &Bound<'_, PyAny>, cf: Option<PyRef<'_, ColumnFamily>>) -> PyResult<()> {
        let k = self.codec.encode(key)?;
        let id = self.family(cf);
        check(self.lock().delete_cf(id, &k))
    }

    /// Deletes every key in `[start, end)` (in column family `cf`).
    #[pyo3(signature = (start, end, *, cf=None))]
    fn delete_range(
        &self,
        start: &Bound<'_, PyAny>,
        end: &Bound<'_, PyAny>,
        cf: Option<PyRef<'_, ColumnFamily>>,
    ) -> PyResult<()> {
        let (s, e) = (self.codec.encode(start)?, self.codec.encode(end)?);
        let id = self.family(cf);
        check(self.lock().delete_range_cf(id, &s, &e))
    }

    /// Removes every record.
    fn clear(&self) {
        self.lock().clear();
        self.databases
            .lock()
            .expect("a batch's lock is never poisoned")
            .clear();
    }

    /// The number of records.
    fn __len__(&self) -> usize {
        self.lock().count() as usize
    }
}
