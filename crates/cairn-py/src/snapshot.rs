//! `Snapshot`: a consistent view of a database, passed as `snapshot=` to reads.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::db::Handle;
use crate::errors::{check, closed};

/// A consistent view of the database as it was when `Db.snapshot()` was called. Reads given
/// `snapshot=` see exactly that state. Release it (or leave its `with` block) so that
/// compaction may drop the old versions it keeps.
#[pyclass(module = "cairndb", frozen)]
pub struct Snapshot {
    pub(crate) handle: Arc<Handle>,
    snapshot: Mutex<Option<cairndb::Snapshot>>,
}

impl Snapshot {
    pub(crate) fn new(handle: &Arc<Handle>) -> PyResult<Snapshot> {
        let s = check(handle.engine()?.db().snapshot())?;
        Ok(Snapshot {
            handle: Arc::clone(handle),
            snapshot: Mutex::new(Some(s)),
        })
    }

    /// The snapshot's sequence number, or `ClosedError` once released.
    pub(crate) fn sequence(&self) -> PyResult<u64> {
        self.snapshot
            .lock()
            .expect("a snapshot's lock is never poisoned")
            .as_ref()
            .map(cairndb::Snapshot::sequence)
            .ok_or_else(|| closed("the snapshot"))
    }
}

#[pymethods]
impl Snapshot {
    /// The sequence number of the newest write the snapshot sees.
    #[getter]
    fn sequence_number(&self) -> PyResult<u64> {
        self.sequence()
    }

    /// Releases the snapshot; reads given it afterwards raise `ClosedError`.
    fn release(&self) {
        self.snapshot
            .lock()
            .expect("a snapshot's lock is never poisoned")
            .take();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) -> bool {
        self.release();
        false
    }
}
