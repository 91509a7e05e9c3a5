//! The error convention (contract item 1), C strings, and buffers handed to the caller.

use std::ffi::{c_char, c_void, CStr};

use cairndb::Error;

/// Frees what this library returned with `malloc`: values, property strings, error strings.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_free(ptr: *mut c_void) {
    libc::free(ptr);
}

/// Stores `msg` in `*errptr` as a `malloc`ed string, freeing what was there.
pub(crate) unsafe fn set_error_message(errptr: *mut *mut c_char, msg: &str) {
    if errptr.is_null() {
        return;
    }
    if !(*errptr).is_null() {
        libc::free((*errptr).cast());
    }
    *errptr = malloc_cstring(msg);
}

/// Stores `e` in `*errptr` (contract item 1).
pub(crate) unsafe fn set_error(errptr: *mut *mut c_char, e: &Error) {
    set_error_message(errptr, &e.rocksdb_status());
}

/// `Some(v)` on success; on failure stores the error and gives `None`.
pub(crate) unsafe fn ok_or_report<T>(r: cairndb::Result<T>, errptr: *mut *mut c_char) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            set_error(errptr, &e);
            None
        }
    }
}

/// A `malloc`ed, NUL-terminated copy of `s` (interior NULs end the C string early).
pub(crate) fn malloc_cstring(s: &str) -> *mut c_char {
    let p = malloc_copy_extra(s.as_bytes(), 1);
    // malloc_copy_extra left room for the terminator.
    unsafe { *p.add(s.len()) = 0 };
    p
}

/// A `malloc`ed copy of `bytes`, never NULL (an empty value is a valid one-byte allocation, so
/// callers can tell "found, empty" from "not found").
pub(crate) fn malloc_copy(bytes: &[u8]) -> *mut c_char {
    malloc_copy_extra(bytes, 0)
}

fn malloc_copy_extra(bytes: &[u8], extra: usize) -> *mut c_char {
    let size = (bytes.len() + extra).max(1);
    let p = unsafe { libc::malloc(size) }.cast::<c_char>();
    if p.is_null() {
        std::alloc::handle_alloc_error(std::alloc::Layout::array::<u8>(size).expect("layout"));
    }
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.cast(), bytes.len()) };
    p
}

/// A `malloc`ed array of `n` pointers (at least one slot), for lists handed to the caller.
pub(crate) fn malloc_array<T>(n: usize) -> *mut *mut T {
    let size = std::mem::size_of::<*mut T>() * n.max(1);
    let p = unsafe { libc::malloc(size) }.cast::<*mut T>();
    if p.is_null() {
        std::alloc::handle_alloc_error(
            std::alloc::Layout::array::<*mut T>(n.max(1)).expect("layout"),
        );
    }
    p
}

/// The bytes `(p, len)`; NULL with length 0 is the empty slice.
pub(crate) unsafe fn bytes<'a>(p: *const c_char, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p.cast(), len)
    }
}

/// The NUL-terminated UTF-8 string at `p`.
pub(crate) unsafe fn cstr<'a>(p: *const c_char, what: &str) -> cairndb::Result<&'a str> {
    if p.is_null() {
        return Err(Error::InvalidArgument(format!("{what} is NULL")));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| Error::InvalidArgument(format!("{what} is not UTF-8")))
}

/// `(ptr, len)` of `bytes` for a `const char*` result with a `size_t*` length.
pub(crate) unsafe fn out_slice(bytes: &[u8], len: *mut usize) -> *const c_char {
    if !len.is_null() {
        *len = bytes.len();
    }
    bytes.as_ptr().cast()
}

/// Moves `v` to the heap and hands it to C.
pub(crate) fn into_raw<T>(v: T) -> *mut T {
    Box::into_raw(Box::new(v))
}

/// Takes back and drops what [`into_raw`] handed out; NULL is ignored.
pub(crate) unsafe fn drop_raw<T>(p: *mut T) {
    if !p.is_null() {
        drop(Box::from_raw(p));
    }
}
