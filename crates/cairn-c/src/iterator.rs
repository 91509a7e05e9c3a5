//! `rocksdb_iter_*`: iterators over a database, a column family, or a transaction (its writes
//! over the database). Key and value pointers stay valid until the iterator moves or is
//! destroyed.

use std::ffi::{c_char, c_uchar};

use cairndb::{DbIter, OwnedBaseDeltaIter};

use crate::column_family::rocksdb_column_family_handle_t;
use crate::db::rocksdb_t;
use crate::read_write_options::rocksdb_readoptions_t;
use crate::util::{bytes, drop_raw, into_raw, ok_or_report, out_slice};

// Every `rocksdb_iterator_t` is one heap allocation already; boxing a variant would add another.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Source {
    Db(DbIter),
    /// A transaction's iterator: the database with a copy of the transaction's writes, taken
    /// when the iterator was made, laid over it (unlike RocksDB's, it does not see later
    /// writes to the transaction).
    Transaction(OwnedBaseDeltaIter),
    /// Making the iterator failed: it is never valid and reports this error (RocksDB's
    /// iterators never come back NULL either).
    Failed(cairndb::Error),
}

/// An iterator. Not thread-safe.
pub struct rocksdb_iterator_t {
    pub(crate) source: Source,
}

/// `$e` on the iterator, or `$failed` for a failed one.
macro_rules! each {
    ($it:expr, $i:ident => $e:expr, $failed:expr) => {
        match &mut (*$it).source {
            Source::Db($i) => $e,
            Source::Transaction($i) => $e,
            Source::Failed(_) => $failed,
        }
    };
}

macro_rules! each_ref {
    ($it:expr, $i:ident => $e:expr, $failed:expr) => {
        match &(*$it).source {
            Source::Db($i) => $e,
            Source::Transaction($i) => $e,
            Source::Failed(_) => $failed,
        }
    };
}

/// An iterator over the default column family, positioned nowhere (not valid) until a seek.
/// When it cannot be made (a closed database, a table that fails to open), it is never valid
/// and `rocksdb_iter_get_error` reports why.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_create_iterator(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
) -> *mut rocksdb_iterator_t {
    wrap((*db).db.iter(&(*options).opts))
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_create_iterator_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
) -> *mut rocksdb_iterator_t {
    wrap((*db).db.iter_cf(&(*options).opts, &(*column_family).cf))
}

pub(crate) fn wrap(r: cairndb::Result<DbIter>) -> *mut rocksdb_iterator_t {
    into_raw(rocksdb_iterator_t {
        source: match r {
            Ok(it) => Source::Db(it),
            Err(e) => Source::Failed(e),
        },
    })
}

pub(crate) fn wrap_transaction(r: cairndb::Result<OwnedBaseDeltaIter>) -> *mut rocksdb_iterator_t {
    into_raw(rocksdb_iterator_t {
        source: match r {
            Ok(it) => Source::Transaction(it),
            Err(e) => Source::Failed(e),
        },
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_destroy(it: *mut rocksdb_iterator_t) {
    drop_raw(it);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_valid(it: *const rocksdb_iterator_t) -> c_uchar {
    c_uchar::from(each_ref!(it, i => i.valid(), false))
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_seek_to_first(it: *mut rocksdb_iterator_t) {
    each!(it, i => i.seek_to_first(), ());
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_seek_to_last(it: *mut rocksdb_iterator_t) {
    each!(it, i => i.seek_to_last(), ());
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_seek(
    it: *mut rocksdb_iterator_t,
    k: *const c_char,
    klen: usize,
) {
    let target = bytes(k, klen);
    each!(it, i => i.seek(target), ());
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_seek_for_prev(
    it: *mut rocksdb_iterator_t,
    k: *const c_char,
    klen: usize,
) {
    let target = bytes(k, klen);
    each!(it, i => i.seek_for_prev(target), ());
}

/// Moves to the next key. The iterator must be valid (RocksDB's rule; CairnDB leaves an
/// invalid iterator invalid instead of crashing).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_next(it: *mut rocksdb_iterator_t) {
    each!(it, i => if i.valid() { i.next() }, ());
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_prev(it: *mut rocksdb_iterator_t) {
    each!(it, i => if i.valid() { i.prev() }, ());
}

/// The current key (`*klen` bytes); NULL with `*klen` = 0 when the iterator is not valid.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_key(
    it: *const rocksdb_iterator_t,
    klen: *mut usize,
) -> *const c_char {
    each_ref!(it, i => if i.valid() {
        out_slice(i.key(), klen)
    } else {
        *klen = 0;
        std::ptr::null()
    }, {
        *klen = 0;
        std::ptr::null()
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_value(
    it: *const rocksdb_iterator_t,
    vlen: *mut usize,
) -> *const c_char {
    each_ref!(it, i => if i.valid() {
        out_slice(i.value(), vlen)
    } else {
        *vlen = 0;
        std::ptr::null()
    }, {
        *vlen = 0;
        std::ptr::null()
    })
}

/// Stores the error that ended the iteration, if any (an iterator that is not valid either
/// reached the end or failed; this tells which).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_get_error(
    it: *const rocksdb_iterator_t,
    errptr: *mut *mut c_char,
) {
    let status = match &(*it).source {
        Source::Failed(e) => Err(e.clone()),
        _ => each_ref!(it, i => i.status(), Ok(())),
    };
    ok_or_report(status, errptr);
}

/// A key or value as RocksDB's `rocksdb_slice_t` (pointer and length, no copy).
#[repr(C)]
pub struct rocksdb_slice_t {
    pub data: *const c_char,
    pub size: usize,
}

fn slice(bytes: Option<&[u8]>) -> rocksdb_slice_t {
    match bytes {
        Some(b) => rocksdb_slice_t {
            data: b.as_ptr().cast(),
            size: b.len(),
        },
        None => rocksdb_slice_t {
            data: std::ptr::null(),
            size: 0,
        },
    }
}

/// The current key, valid until the iterator moves; `{NULL, 0}` when not valid.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_key_slice(it: *const rocksdb_iterator_t) -> rocksdb_slice_t {
    each_ref!(it, i => slice(i.valid().then(|| i.key())), slice(None))
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_iter_value_slice(
    it: *const rocksdb_iterator_t,
) -> rocksdb_slice_t {
    each_ref!(it, i => slice(i.valid().then(|| i.value())), slice(None))
}
