//! `rocksdb_checkpoint_*`: openable copies of a live database (hard links where possible).

use std::ffi::c_char;

use cairndb::Db;

use crate::db::rocksdb_t;
use crate::util::{cstr, drop_raw, into_raw, ok_or_report, set_error_message};

/// A checkpoint maker bound to one database; destroy it before closing the database.
pub struct rocksdb_checkpoint_t {
    db: *const Db,
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_checkpoint_object_create(
    db: *mut rocksdb_t,
    _errptr: *mut *mut c_char,
) -> *mut rocksdb_checkpoint_t {
    into_raw(rocksdb_checkpoint_t {
        db: &(*db).db as *const Db,
    })
}

/// Writes a checkpoint into `checkpoint_dir`, which must not exist. CairnDB's checkpoint always
/// flushes the memtables first, which is RocksDB's behaviour for `log_size_for_flush` = 0;
/// other values (RocksDB then copies small WALs instead of flushing) are refused with
/// `Not implemented`.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_checkpoint_create(
    checkpoint: *mut rocksdb_checkpoint_t,
    checkpoint_dir: *const c_char,
    log_size_for_flush: u64,
    errptr: *mut *mut c_char,
) {
    if log_size_for_flush != 0 {
        set_error_message(
            errptr,
            "Not implemented: log_size_for_flush other than 0 (CairnDB's checkpoint always flushes)",
        );
        return;
    }
    if let Some(dir) = ok_or_report(cstr(checkpoint_dir, "the checkpoint directory"), errptr) {
        ok_or_report((*(*checkpoint).db).checkpoint(dir), errptr);
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_checkpoint_object_destroy(checkpoint: *mut rocksdb_checkpoint_t) {
    drop_raw(checkpoint);
}
