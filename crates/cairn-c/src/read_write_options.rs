//! Per-call options: `rocksdb_readoptions_*`, `rocksdb_writeoptions_*`, `rocksdb_flushoptions_*`.

use std::ffi::{c_char, c_int, c_uchar};

use cairndb::options::{ReadOptions, WriteOptions};

use crate::db::rocksdb_snapshot_t;
use crate::util::{bytes, drop_raw, into_raw};

/// RocksDB's `ReadOptions`. The bounds are copied when set (RocksDB keeps the caller's pointer;
/// copying is the stricter reading of its rule that the bytes stay valid).
pub struct rocksdb_readoptions_t {
    pub(crate) opts: ReadOptions,
}

#[no_mangle]
pub extern "C" fn rocksdb_readoptions_create() -> *mut rocksdb_readoptions_t {
    into_raw(rocksdb_readoptions_t {
        opts: ReadOptions::default(),
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_readoptions_destroy(opt: *mut rocksdb_readoptions_t) {
    drop_raw(opt);
}

macro_rules! bool_accessors {
    ($ty:ident: $( $set:ident, $get:ident => $field:ident; )*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $set(opt: *mut $ty, v: c_uchar) {
            (*opt).opts.$field = v != 0;
        }
        #[no_mangle]
        pub unsafe extern "C" fn $get(opt: *mut $ty) -> c_uchar {
            c_uchar::from((*opt).opts.$field)
        }
    )*};
}

bool_accessors! { rocksdb_readoptions_t:
    rocksdb_readoptions_set_verify_checksums, rocksdb_readoptions_get_verify_checksums
        => verify_checksums;
    rocksdb_readoptions_set_fill_cache, rocksdb_readoptions_get_fill_cache => fill_cache;
    rocksdb_readoptions_set_total_order_seek, rocksdb_readoptions_get_total_order_seek
        => total_order_seek;
    rocksdb_readoptions_set_prefix_same_as_start, rocksdb_readoptions_get_prefix_same_as_start
        => prefix_same_as_start;
}

/// Reads at `snapshot`; NULL reads the latest state.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_readoptions_set_snapshot(
    opt: *mut rocksdb_readoptions_t,
    snapshot: *const rocksdb_snapshot_t,
) {
    (*opt).opts.snapshot = if snapshot.is_null() {
        None
    } else {
        Some((*snapshot).sequence())
    };
}

/// Iterators stop before `key` (exclusive); NULL removes the bound.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_readoptions_set_iterate_upper_bound(
    opt: *mut rocksdb_readoptions_t,
    key: *const c_char,
    keylen: usize,
) {
    (*opt).opts.iterate_upper_bound = (!key.is_null()).then(|| bytes(key, keylen).to_vec());
}

/// Iterators start at `key` (inclusive); NULL removes the bound.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_readoptions_set_iterate_lower_bound(
    opt: *mut rocksdb_readoptions_t,
    key: *const c_char,
    keylen: usize,
) {
    (*opt).opts.iterate_lower_bound = (!key.is_null()).then(|| bytes(key, keylen).to_vec());
}

/// RocksDB's `WriteOptions`.
pub struct rocksdb_writeoptions_t {
    pub(crate) opts: WriteOptions,
}

#[no_mangle]
pub extern "C" fn rocksdb_writeoptions_create() -> *mut rocksdb_writeoptions_t {
    into_raw(rocksdb_writeoptions_t {
        opts: WriteOptions::default(),
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writeoptions_destroy(opt: *mut rocksdb_writeoptions_t) {
    drop_raw(opt);
}

bool_accessors! { rocksdb_writeoptions_t:
    rocksdb_writeoptions_set_sync, rocksdb_writeoptions_get_sync => sync;
    rocksdb_writeoptions_set_no_slowdown, rocksdb_writeoptions_get_no_slowdown => no_slowdown;
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writeoptions_disable_WAL(
    opt: *mut rocksdb_writeoptions_t,
    disable: c_int,
) {
    (*opt).opts.disable_wal = disable != 0;
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writeoptions_get_disable_WAL(
    opt: *mut rocksdb_writeoptions_t,
) -> c_uchar {
    c_uchar::from((*opt).opts.disable_wal)
}

/// RocksDB's `FlushOptions`. CairnDB's flush always waits for the memtables to reach L0, so a
/// flush with `wait` = 0 is refused (`Not implemented`) instead of waiting anyway.
pub struct rocksdb_flushoptions_t {
    pub(crate) wait: bool,
}

#[no_mangle]
pub extern "C" fn rocksdb_flushoptions_create() -> *mut rocksdb_flushoptions_t {
    into_raw(rocksdb_flushoptions_t { wait: true })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_flushoptions_destroy(opt: *mut rocksdb_flushoptions_t) {
    drop_raw(opt);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_flushoptions_set_wait(
    opt: *mut rocksdb_flushoptions_t,
    v: c_uchar,
) {
    (*opt).wait = v != 0;
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_flushoptions_get_wait(
    opt: *mut rocksdb_flushoptions_t,
) -> c_uchar {
    c_uchar::from((*opt).wait)
}
