//! User hooks made of C callbacks: comparators, merge operators, compaction filters, and prefix
//! extractors. The callbacks are called from any of the database's threads, concurrently (as
//! in RocksDB), so they must be thread-safe; `state` is passed back untouched. A comparator must
//! be a consistent total order (as RocksDB requires): one that is not can make the engine abort
//! the process where RocksDB would misorder keys.
//!
//! The destructor runs once: for the hooks options only borrow (comparators, compaction
//! filters), at their `*_destroy` call, as in RocksDB; for those options own (merge operators,
//! prefix extractors), when the last options object or database using them lets go. A create
//! call given NULL for a callback the hook cannot work without returns NULL.

use std::cmp::Ordering;
use std::ffi::{c_char, c_int, c_uchar, c_void, CStr};
use std::sync::Arc;

use cairndb::comparator::KeyOrder;
use cairndb::sstable::{FixedPrefix, PrefixExtractor};
use cairndb::{CompactionFilter, Comparator, FilterDecision, MergeOperator};

use crate::util::{bytes, drop_raw, into_raw};

type Destructor = Option<unsafe extern "C" fn(*mut c_void)>;
type NameFn = Option<unsafe extern "C" fn(*mut c_void) -> *const c_char>;

/// The opaque state and destructor every callback hook carries.
struct State {
    state: *mut c_void,
    /// Taken when it runs, so that it runs once.
    destructor: std::sync::Mutex<Destructor>,
    name: String,
}

// The C contract: callbacks and their state may be used from any thread (see the module docs).
unsafe impl Send for State {}
unsafe impl Sync for State {}

impl State {
    unsafe fn new(state: *mut c_void, destructor: Destructor, name: NameFn) -> State {
        let name = match name {
            Some(f) => {
                let p = f(state);
                if p.is_null() {
                    String::new()
                } else {
                    CStr::from_ptr(p).to_string_lossy().into_owned()
                }
            }
            None => String::new(),
        };
        State {
            state,
            destructor: std::sync::Mutex::new(destructor),
            name,
        }
    }

    /// Runs the destructor, unless it already ran.
    fn destroy(&self) {
        let d = self
            .destructor
            .lock()
            .expect("a destructor lock is never poisoned")
            .take();
        if let Some(d) = d {
            unsafe { d(self.state) };
        }
    }
}

impl Drop for State {
    fn drop(&mut self) {
        self.destroy();
    }
}

// ---- Comparators ----

type CompareFn =
    unsafe extern "C" fn(*mut c_void, *const c_char, usize, *const c_char, usize) -> c_int;

struct CComparator {
    state: State,
    compare: CompareFn,
}

impl Comparator for CComparator {
    fn name(&self) -> &str {
        &self.state.name
    }

    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        let r = unsafe {
            (self.compare)(
                self.state.state,
                a.as_ptr().cast(),
                a.len(),
                b.as_ptr().cast(),
                b.len(),
            )
        };
        r.cmp(&0)
    }
}

/// A key order made of a C compare function (negative, zero, positive as `memcmp`). Its name
/// is recorded in the database; reopening needs a comparator of the same name.
pub struct rocksdb_comparator_t {
    inner: Arc<CComparator>,
}

impl rocksdb_comparator_t {
    pub(crate) fn key_order(&self) -> KeyOrder {
        KeyOrder::custom(Arc::clone(&self.inner) as Arc<dyn Comparator>)
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_comparator_create(
    state: *mut c_void,
    destructor: Destructor,
    compare: Option<CompareFn>,
    name: NameFn,
) -> *mut rocksdb_comparator_t {
    let Some(compare) = compare else {
        return std::ptr::null_mut();
    };
    into_raw(rocksdb_comparator_t {
        inner: Arc::new(CComparator {
            state: State::new(state, destructor, name),
            compare,
        }),
    })
}

/// Runs the comparator's destructor and releases the handle. Databases opened with it must be
/// closed first (RocksDB's rule).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_comparator_destroy(cmp: *mut rocksdb_comparator_t) {
    if !cmp.is_null() {
        let handle: &rocksdb_comparator_t = &*cmp;
        handle.inner.state.destroy();
    }
    drop_raw(cmp);
}

// ---- Merge operators ----

type FullMergeFn = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    usize,
    *const c_char,
    usize,
    *const *const c_char,
    *const usize,
    c_int,
    *mut c_uchar,
    *mut usize,
) -> *mut c_char;
type PartialMergeFn = unsafe extern "C" fn(
    *mut c_void,
    *const c_char,
    usize,
    *const *const c_char,
    *const usize,
    c_int,
    *mut c_uchar,
    *mut usize,
) -> *mut c_char;
type DeleteValueFn = Option<unsafe extern "C" fn(*mut c_void, *const c_char, usize)>;

struct CMergeOperator {
    state: State,
    full_merge: FullMergeFn,
    partial_merge: Option<PartialMergeFn>,
    delete_value: DeleteValueFn,
}

impl CMergeOperator {
    /// Takes the callback's result: copies it, then hands the buffer back through
    /// `delete_value`, or frees it with `free` when there is none (RocksDB's protocol).
    unsafe fn take(&self, p: *mut c_char, len: usize, success: c_uchar) -> Option<Vec<u8>> {
        let out = (success != 0).then(|| bytes(p, len).to_vec());
        if !p.is_null() {
            match self.delete_value {
                Some(d) => d(self.state.state, p, len),
                None => libc::free(p.cast()),
            }
        }
        out
    }
}

fn operand_arrays(operands: &[&[u8]]) -> (Vec<*const c_char>, Vec<usize>) {
    (
        operands.iter().map(|o| o.as_ptr().cast()).collect(),
        operands.iter().map(|o| o.len()).collect(),
    )
}

impl MergeOperator for CMergeOperator {
    fn name(&self) -> &str {
        &self.state.name
    }

    fn full_merge(
        &self,
        key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
    ) -> Option<Vec<u8>> {
        let (ptrs, lens) = operand_arrays(operands);
        let n = c_int::try_from(operands.len()).ok()?;
        let (ev, el) = match existing {
            Some(v) => (v.as_ptr().cast(), v.len()),
            None => (std::ptr::null(), 0),
        };
        let mut success: c_uchar = 0;
        let mut len = 0usize;
        unsafe {
            let p = (self.full_merge)(
                self.state.state,
                key.as_ptr().cast(),
                key.len(),
                ev,
                el,
                ptrs.as_ptr(),
                lens.as_ptr(),
                n,
                &mut success,
                &mut len,
            );
            self.take(p, len, success)
        }
    }

    fn partial_merge(&self, key: &[u8], operands: &[&[u8]]) -> Option<Vec<u8>> {
        let f = self.partial_merge?;
        let (ptrs, lens) = operand_arrays(operands);
        let n = c_int::try_from(operands.len()).ok()?;
        let mut success: c_uchar = 0;
        let mut len = 0usize;
        unsafe {
            let p = f(
                self.state.state,
                key.as_ptr().cast(),
                key.len(),
                ptrs.as_ptr(),
                lens.as_ptr(),
                n,
                &mut success,
                &mut len,
            );
            self.take(p, len, success)
        }
    }
}

/// A merge operator made of C callbacks (RocksDB's protocol: `full_merge` and `partial_merge`
/// return a buffer and set `*success`; `delete_value`, or `free` when it is NULL, releases that
/// buffer).
pub struct rocksdb_mergeoperator_t {
    inner: Arc<CMergeOperator>,
}

impl rocksdb_mergeoperator_t {
    pub(crate) fn operator(&self) -> Arc<dyn MergeOperator> {
        Arc::clone(&self.inner) as Arc<dyn MergeOperator>
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_mergeoperator_create(
    state: *mut c_void,
    destructor: Destructor,
    full_merge: Option<FullMergeFn>,
    partial_merge: Option<PartialMergeFn>,
    delete_value: DeleteValueFn,
    name: NameFn,
) -> *mut rocksdb_mergeoperator_t {
    let Some(full_merge) = full_merge else {
        return std::ptr::null_mut();
    };
    into_raw(rocksdb_mergeoperator_t {
        inner: Arc::new(CMergeOperator {
            state: State::new(state, destructor, name),
            full_merge,
            partial_merge,
            delete_value,
        }),
    })
}

/// Destroys a merge operator that was not given to options (options own the ones set on them).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_mergeoperator_destroy(
    merge_operator: *mut rocksdb_mergeoperator_t,
) {
    drop_raw(merge_operator);
}

// ---- Compaction filters ----

type FilterFn = unsafe extern "C" fn(
    *mut c_void,
    c_int,
    *const c_char,
    usize,
    *const c_char,
    usize,
    *mut *mut c_char,
    *mut usize,
    *mut c_uchar,
) -> c_uchar;

struct CCompactionFilter {
    state: State,
    filter: FilterFn,
}

impl CompactionFilter for CCompactionFilter {
    fn name(&self) -> &str {
        &self.state.name
    }

    fn filter(&self, level: usize, key: &[u8], value: &[u8]) -> FilterDecision {
        let mut new_value: *mut c_char = std::ptr::null_mut();
        let mut new_len = 0usize;
        let mut changed: c_uchar = 0;
        let remove = unsafe {
            (self.filter)(
                self.state.state,
                c_int::try_from(level).unwrap_or(c_int::MAX),
                key.as_ptr().cast(),
                key.len(),
                value.as_ptr().cast(),
                value.len(),
                &mut new_value,
                &mut new_len,
                &mut changed,
            )
        };
        if remove != 0 {
            FilterDecision::Remove
        } else if changed != 0 {
            // The buffer stays the callback's (RocksDB copies it and frees nothing).
            FilterDecision::ChangeValue(unsafe { bytes(new_value, new_len) }.to_vec())
        } else {
            FilterDecision::Keep
        }
    }
}

/// A compaction filter made of a C callback: return 1 to remove the entry, or set
/// `*value_changed` and `*new_value`/`*new_value_length` to replace its value.
pub struct rocksdb_compactionfilter_t {
    inner: Arc<CCompactionFilter>,
}

impl rocksdb_compactionfilter_t {
    pub(crate) fn filter(&self) -> Arc<dyn CompactionFilter> {
        Arc::clone(&self.inner) as Arc<dyn CompactionFilter>
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_compactionfilter_create(
    state: *mut c_void,
    destructor: Destructor,
    filter: Option<FilterFn>,
    name: NameFn,
) -> *mut rocksdb_compactionfilter_t {
    let Some(filter) = filter else {
        return std::ptr::null_mut();
    };
    into_raw(rocksdb_compactionfilter_t {
        inner: Arc::new(CCompactionFilter {
            state: State::new(state, destructor, name),
            filter,
        }),
    })
}

/// Runs the filter's destructor and releases the handle. Databases using it must be closed
/// first (RocksDB's rule).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_compactionfilter_destroy(filter: *mut rocksdb_compactionfilter_t) {
    if !filter.is_null() {
        let handle: &rocksdb_compactionfilter_t = &*filter;
        handle.inner.state.destroy();
    }
    drop_raw(filter);
}

// ---- Prefix extractors ----

/// A prefix extractor (RocksDB's `SliceTransform`); only the built-in fixed-length one.
pub struct rocksdb_slicetransform_t {
    inner: Arc<dyn PrefixExtractor>,
}

impl rocksdb_slicetransform_t {
    pub(crate) fn extractor(&self) -> Arc<dyn PrefixExtractor> {
        Arc::clone(&self.inner)
    }
}

/// The first `len` bytes of each key; shorter keys are outside its domain.
#[no_mangle]
pub extern "C" fn rocksdb_slicetransform_create_fixed_prefix(
    len: usize,
) -> *mut rocksdb_slicetransform_t {
    into_raw(rocksdb_slicetransform_t {
        inner: Arc::new(FixedPrefix::new(len)),
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_slicetransform_destroy(st: *mut rocksdb_slicetransform_t) {
    drop_raw(st);
}
