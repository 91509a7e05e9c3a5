//! `rocksdb_checkpoint_*`: openable copies of a live database (hard links where possible).

use std::ffi::c_char;

use cairndb::Db;

use crate::db::rocksdb_t;
use crate::util::{cstr, drop_raw, into_raw, ok_or_report};

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

/// Writes a checkpoint into `checkpoint_dir`, which must not exist. The memtables are flushed
/// first when `log_size_for_flush` is 0 or the live WALs hold at least that many bytes;
/// otherwise their data reaches the checkpoint in its copies of the WALs (RocksDB's rule).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_checkpoint_create(
    checkpoint: *mut rocksdb_checkpoint_t,
    checkpoint_dir: *const c_char,
    log_size_for_flush: u64,
    errptr: *mut *mut c_char,
) {
    if let Some(dir) = ok_or_report(cstr(checkpoint_dir, "the checkpoint directory"), errptr) {
        ok_or_report(
            (*(*checkpoint).db).checkpoint_with_log_size(dir, log_size_for_flush),
            errptr,
        );
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_checkpoint_object_destroy(checkpoint: *mut rocksdb_checkpoint_t) {
    drop_raw(checkpoint);
}
