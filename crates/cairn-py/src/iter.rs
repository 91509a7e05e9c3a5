//! The iterators `items()`, `keys()` and `values()` return. Each holds an engine iterator with
//! the range as its bounds and reads ahead a batch of entries with the GIL released, then hands
//! them out one by one; a snapshot (or the database as it was when the iterator was made) fixes
//! what it sees.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::MutexExt;
use pyo3::types::PyTuple;

use cairndb::options::ReadOptions;
use cairndb::DbIter;

use crate::db::Handle;
use crate::errors::to_py;

/// Entries read ahead per refill: enough to amortize releasing and taking the GIL, small enough
/// that a caller who stops early wastes little.
const READ_AHEAD: usize = 128;

/// What an iterator yields.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Items,
    Keys,
    Values,
}

/// The keys an iterator visits: `[lower, upper)`, forward or backward.
#[derive(Default)]
pub(crate) struct Range {
    lower: Option<Vec<u8>>,
    upper: Option<Vec<u8>>,
    reverse: bool,
}

/// The smallest key after every key that starts with `prefix`, or `None` when there is none
/// (the prefix is all 0xff bytes).
fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last != 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

impl Range {
    pub(crate) fn new(
        handle: &Handle,
        start: Option<&Bound<'_, PyAny>>,
        end: Option<&Bound<'_, PyAny>>,
        prefix: Option<&Bound<'_, PyAny>>,
        reverse: bool,
    ) -> PyResult<Range> {
        let encode = |o: Option<&Bound<'_, PyAny>>| -> PyResult<Option<Vec<u8>>> {
            o.map(|o| handle.codec.encode(o).map(|c| c.into_owned()))
                .transpose()
        };
        if let Some(p) = prefix {
            if handle.is_pickle() {
                // A pickle ends with its STOP byte, so no other key starts with one.
                return Err(PyValueError::new_err(
                    "prefix= has no meaning in pickle mode: use start/end bounds",
                ));
            }
            if start.is_some() || end.is_some() {
                return Err(PyValueError::new_err(
                    "give either a prefix or start/end bounds, not both",
                ));
            }
            let p = handle.codec.encode(p)?.into_owned();
            return Ok(Range {
                upper: prefix_end(&p),
                lower: Some(p),
                reverse,
            });
        }
        Ok(Range {
            lower: encode(start)?,
            upper: encode(end)?,
            reverse,
        })
    }
}

struct State {
    it: DbIter,
    reverse: bool,
    started: bool,
    /// The iterator reached its end (or failed: `error`).
    done: bool,
    error: Option<cairndb::Error>,
    ahead: VecDeque<(Vec<u8>, Vec<u8>)>,
}

impl State {
    /// Reads up to `READ_AHEAD` entries (runs with the GIL released).
    fn refill(&mut self, keys: bool, values: bool) {
        if !self.started {
            if self.reverse {
                self.it.seek_to_last();
            } else {
                self.it.seek_to_first();
            }
            self.started = true;
        }
        for _ in 0..READ_AHEAD {
            if !self.it.valid() {
                self.done = true;
                self.error = self.it.status().err();
                return;
            }
            let k = if keys {
                self.it.key().to_vec()
            } else {
                Vec::new()
            };
            let v = if values {
                self.it.value().to_vec()
            } else {
                Vec::new()
            };
            self.ahead.push_back((k, v));
            if self.reverse {
                self.it.prev();
            } else {
                self.it.next();
            }
        }
    }
}

/// An iterator over a database's entries; see `Db.items`.
#[pyclass(module = "cairndb", frozen)]
pub struct Iter {
    handle: Arc<Handle>,
    mode: Mode,
    state: Mutex<State>,
}

impl Iter {
    pub(crate) fn new(
        py: Python<'_>,
        handle: &Arc<Handle>,
        cf: &cairndb::ColumnFamily,
        mut ro: ReadOptions,
        mode: Mode,
        range: Range,
    ) -> PyResult<Iter> {
        let engine = handle.engine()?;
        ro.iterate_lower_bound = range.lower;
        ro.iterate_upper_bound = range.upper;
        let it = py.detach(|| engine.db().iter_cf(&ro, cf)).map_err(to_py)?;
        Ok(Iter {
            handle: Arc::clone(handle),
            mode,
            state: Mutex::new(State {
                it,
                reverse: range.reverse,
                started: false,
                done: false,
                error: None,
                ahead: VecDeque::new(),
            }),
        })
    }
}

#[pymethods]
impl Iter {
    // Python's iterator protocol: an iterator is its own iterator.
    #[allow(clippy::self_named_constructors)]
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        // The database may have been closed since the iterator was made.
        self.handle.check_open()?;
        // Waits for another thread's refill with the GIL released (it needs the GIL back).
        let mut st = self
            .state
            .lock_py_attached(py)
            .expect("an iterator's lock is never poisoned");
        if st.ahead.is_empty() && !st.done {
            let (keys, values) = (self.mode != Mode::Values, self.mode != Mode::Keys);
            let s: &mut State = &mut st;
            py.detach(|| s.refill(keys, values));
        }
        let Some((k, v)) = st.ahead.pop_front() else {
            return match st.error.take() {
                Some(e) => Err(to_py(e)),
                None => Ok(None),
            };
        };
        drop(st);
        let codec = &self.handle.codec;
        Ok(Some(match self.mode {
            Mode::Keys => codec.decode(py, &k)?,
            Mode::Values => codec.decode(py, &v)?,
            Mode::Items => PyTuple::new(py, [codec.decode(py, &k)?, codec.decode(py, &v)?])?
                .into_any()
                .unbind(),
        }))
    }
}
