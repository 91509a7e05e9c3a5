//! Keys and values between Python and the engine: `bytes` as they are (the default), or any
//! picklable object, stored as its pickle (the opt-in `pickle=True` mode, like rocksdict's
//! default). In pickle mode keys are ordered by their pickled bytes, not by their Python order.

use std::borrow::Cow;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The pickle protocol of stored keys and values.
const PICKLE_PROTOCOL: u8 = 4;

/// How a database turns Python objects into stored bytes and back.
pub(crate) enum Codec {
    Raw,
    Pickle { dumps: Py<PyAny>, loads: Py<PyAny> },
}

impl Codec {
    pub(crate) fn new(py: Python<'_>, pickle: bool) -> PyResult<Codec> {
        if !pickle {
            return Ok(Codec::Raw);
        }
        let m = py.import("pickle")?;
        Ok(Codec::Pickle {
            dumps: m.getattr("dumps")?.unbind(),
            loads: m.getattr("loads")?.unbind(),
        })
    }

    /// The stored bytes of `obj` (borrowed from a `bytes` object in raw mode).
    pub(crate) fn encode<'a>(&self, obj: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
        match self {
            Codec::Raw => match obj.cast::<PyBytes>() {
                Ok(b) => Ok(Cow::Borrowed(b.as_bytes())),
                Err(_) => Err(PyTypeError::new_err(format!(
                    "keys and values must be bytes, not {} (open with pickle=True to store \
                     other objects)",
                    obj.get_type().name()?
                ))),
            },
            Codec::Pickle { dumps, .. } => {
                // A fixed protocol, so that a key pickles to the same bytes on every Python
                // version (the default protocol changed in 3.14).
                let b = dumps.bind(obj.py()).call1((obj, PICKLE_PROTOCOL))?;
                Ok(Cow::Owned(b.cast::<PyBytes>()?.as_bytes().to_vec()))
            }
        }
    }

    /// The Python object stored as `bytes`.
    pub(crate) fn decode(&self, py: Python<'_>, bytes: &[u8]) -> PyResult<Py<PyAny>> {
        let b = PyBytes::new(py, bytes);
        match self {
            Codec::Raw => Ok(b.into_any().unbind()),
            Codec::Pickle { loads, .. } => Ok(loads.bind(py).call1((b,))?.unbind()),
        }
    }

    /// The stored bytes of each object of `objs`.
    pub(crate) fn encode_all(&self, objs: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
        let mut out = Vec::new();
        for o in objs.try_iter()? {
            out.push(self.encode(&o?)?.into_owned());
        }
        Ok(out)
    }
}
