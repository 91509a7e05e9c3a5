//! The exceptions: `cairndb.Error` and one subclass per CairnDB error kind.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(cairndb, Error, PyException, "Any error CairnDB reports.");
create_exception!(
    cairndb,
    CorruptionError,
    Error,
    "Damaged persisted bytes (the message names the file and offset)."
);
create_exception!(
    cairndb,
    InvalidArgumentError,
    Error,
    "A bad argument or option: nothing was changed."
);
create_exception!(
    cairndb,
    NotSupportedError,
    Error,
    "Something CairnDB does not do."
);
create_exception!(
    cairndb,
    NotFoundError,
    Error,
    "A named thing does not exist."
);
create_exception!(
    cairndb,
    BusyError,
    Error,
    "A transaction conflicts or reached its lock limit."
);
create_exception!(
    cairndb,
    TimedOutError,
    Error,
    "A transaction's lock wait ran out."
);
create_exception!(
    cairndb,
    DeadlockError,
    BusyError,
    "Waiting for a lock would close a cycle of transactions."
);
create_exception!(
    cairndb,
    ExpiredError,
    Error,
    "A transaction ran past its expiration."
);
create_exception!(
    cairndb,
    ClosedError,
    Error,
    "The database (or the object that depends on it) is closed."
);
create_exception!(
    cairndb,
    IoError,
    Error,
    "An I/O error (another handle holding the database is one, as in RocksDB), or a write that failed and poisoned the database."
);

/// The Python exception for `e`.
pub(crate) fn to_py(e: cairndb::Error) -> PyErr {
    use cairndb::Error as E;
    let msg = e.to_string();
    // The kind of the underlying error when the engine added context to it.
    match e.root() {
        E::Corruption(_) => CorruptionError::new_err(msg),
        E::InvalidArgument(_) => InvalidArgumentError::new_err(msg),
        E::NotSupported(_) => NotSupportedError::new_err(msg),
        E::NotFound(_) => NotFoundError::new_err(msg),
        E::Busy(_) => BusyError::new_err(msg),
        E::TimedOut(_) => TimedOutError::new_err(msg),
        E::Deadlock(_) => DeadlockError::new_err(msg),
        E::Expired(_) => ExpiredError::new_err(msg),
        E::Closed => ClosedError::new_err(msg),
        _ => IoError::new_err(msg),
    }
}

/// `r` with CairnDB's error turned into its Python exception.
pub(crate) fn check<T>(r: cairndb::Result<T>) -> PyResult<T> {
    r.map_err(to_py)
}

/// The error for a call on a closed database or a finished object.
pub(crate) fn closed(what: &str) -> PyErr {
    ClosedError::new_err(format!("{what} is closed"))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("CorruptionError", py.get_type::<CorruptionError>())?;
    m.add(
        "InvalidArgumentError",
        py.get_type::<InvalidArgumentError>(),
    )?;
    m.add("NotSupportedError", py.get_type::<NotSupportedError>())?;
    m.add("NotFoundError", py.get_type::<NotFoundError>())?;
    m.add("BusyError", py.get_type::<BusyError>())?;
    m.add("TimedOutError", py.get_type::<TimedOutError>())?;
    m.add("DeadlockError", py.get_type::<DeadlockError>())?;
    m.add("ExpiredError", py.get_type::<ExpiredError>())?;
    m.add("ClosedError", py.get_type::<ClosedError>())?;
    m.add("IoError", py.get_type::<IoError>())?;
    Ok(())
}
