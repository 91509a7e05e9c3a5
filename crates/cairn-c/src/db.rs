//! The database: open, close, destroy, point reads and writes, snapshots, properties, dynamic
//! options, flush and compaction (`rocksdb_*` calls on `rocksdb_t`). The `*_cf` variants live in
//! `column_family.rs`.

use std::ffi::{c_char, c_int, c_uchar};

use cairndb::{Db, Snapshot};

use crate::batch::rocksdb_writebatch_t;
use crate::column_family::default_family;
use crate::options::rocksdb_options_t;
use crate::read_write_options::{
    rocksdb_flushoptions_t, rocksdb_readoptions_t, rocksdb_writeoptions_t,
};
use crate::util::{
    bytes, cstr, into_raw, malloc_copy, malloc_cstring, ok_or_report, set_error, set_error_message,
};

/// An open database. Safe to use from many threads at once.
pub struct rocksdb_t {
    pub(crate) db: Db,
}

/// The database path and the checked options of an open, or `None` with `errptr` set.
unsafe fn path_and_options<'a>(
    options: *const rocksdb_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) -> Option<(&'a str, cairndb::options::Options)> {
    let path = ok_or_report(cstr(name, "the database path"), errptr)?;
    Some((path, ok_or_report((*options).checked(), errptr)?))
}

pub(crate) unsafe fn open_db(
    options: *const rocksdb_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) -> Option<Db> {
    let (path, opts) = path_and_options(options, name, errptr)?;
    ok_or_report(check_families_listed(path, &["default"]), errptr)?;
    ok_or_report(Db::open(path, opts), errptr)
}

unsafe fn open_read_only_db(
    options: *const rocksdb_options_t,
    name: *const c_char,
    error_if_wal_file_exists: bool,
    errptr: *mut *mut c_char,
) -> Option<Db> {
    let (path, opts) = path_and_options(options, name, errptr)?;
    ok_or_report(
        Db::open_for_read_only(path, opts, error_if_wal_file_exists),
        errptr,
    )
}

unsafe fn open_secondary_db(
    options: *const rocksdb_options_t,
    name: *const c_char,
    secondary_path: *const c_char,
    errptr: *mut *mut c_char,
) -> Option<Db> {
    let (path, opts) = path_and_options(options, name, errptr)?;
    let secondary = ok_or_report(cstr(secondary_path, "the secondary path"), errptr)?;
    ok_or_report(Db::open_as_secondary(path, secondary, opts), errptr)
}

/// RocksDB's rule for opens: every column family the database has must be named (CairnDB's
/// own open would open the others with the default family's options). A database that does
/// not exist yet has none to name.
pub(crate) fn check_families_listed(path: &str, listed: &[&str]) -> cairndb::Result<()> {
    let Ok(existing) = Db::list_column_families(path) else {
        return Ok(());
    };
    let missing: Vec<&str> = existing
        .iter()
        .map(String::as_str)
        .filter(|f| !listed.contains(f))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(cairndb::Error::InvalidArgument(format!(
            "Column families not opened: {}",
            missing.join(", ")
        )))
    }
}

/// Opens (with `create_if_missing`, creates) the database in directory `name`; NULL on error.
/// A database with column families other than `default` must be opened with
/// `rocksdb_open_column_families` (RocksDB's rule).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_open(
    options: *const rocksdb_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_t {
    match open_db(options, name, errptr) {
        Some(db) => into_raw(rocksdb_t { db }),
        None => std::ptr::null_mut(),
    }
}

/// Opens the database in `name` read-only (RocksDB's `OpenForReadOnly`): no lock (another
/// handle may be writing it), nothing written, the database as it was at the open; writes fail
/// with `Not implemented`. Families other than default need not be named (RocksDB's rule for
/// read-only opens). `error_if_wal_file_exists` fails the open (`Corruption`) when a live WAL
/// exists.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_open_for_read_only(
    options: *const rocksdb_options_t,
    name: *const c_char,
    error_if_wal_file_exists: c_uchar,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_t {
    match open_read_only_db(options, name, error_if_wal_file_exists != 0, errptr) {
        Some(db) => into_raw(rocksdb_t { db }),
        None => std::ptr::null_mut(),
    }
}

/// Opens the database in `name` as a secondary instance (RocksDB's `OpenAsSecondary`): a
/// read-only handle whose info log goes to `secondary_path`, and which moves to the primary's
/// current state at each `rocksdb_try_catch_up_with_primary`.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_open_as_secondary(
    options: *const rocksdb_options_t,
    name: *const c_char,
    secondary_path: *const c_char,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_t {
    match open_secondary_db(options, name, secondary_path, errptr) {
        Some(db) => into_raw(rocksdb_t { db }),
        None => std::ptr::null_mut(),
    }
}

/// Moves a secondary instance to its primary's current state; `Not implemented` on a database
/// that is not a secondary.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_try_catch_up_with_primary(
    db: *mut rocksdb_t,
    errptr: *mut *mut c_char,
) {
    ok_or_report((*db).db.try_catch_up_with_primary(), errptr);
}

/// Closes the database: waits for background work, syncs what `sync` writes need, and releases
/// the directory. Errors of the close itself are not reported (RocksDB's `rocksdb_close` has no
/// `errptr` either); what was acknowledged stays as durable as its write options asked.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_close(db: *mut rocksdb_t) {
    if db.is_null() {
        return;
    }
    let b = Box::from_raw(db);
    let _ = b.db.close();
}

/// Deletes the database in `name` (RocksDB's `DestroyDB`): fails with an `IO error` (the
/// held lock) while it is open; a missing directory is not an error.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_destroy_db(
    _options: *const rocksdb_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) {
    if let Some(path) = ok_or_report(cstr(name, "the database path"), errptr) {
        ok_or_report(Db::destroy(path), errptr);
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_put(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    key: *const c_char,
    keylen: usize,
    val: *const c_char,
    vallen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*db)
            .db
            .put(&(*options).opts, bytes(key, keylen), bytes(val, vallen)),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_delete(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*db).db.delete(&(*options).opts, bytes(key, keylen)),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_singledelete(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*db).db.single_delete(&(*options).opts, bytes(key, keylen)),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_merge(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    key: *const c_char,
    keylen: usize,
    val: *const c_char,
    vallen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*db)
            .db
            .merge(&(*options).opts, bytes(key, keylen), bytes(val, vallen)),
        errptr,
    );
}

/// Applies `batch` atomically. The batch is unchanged and can be written again.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_write(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    batch: *mut rocksdb_writebatch_t,
    errptr: *mut *mut c_char,
) {
    let written = (*batch)
        .to_write()
        .and_then(|b| (*db).db.write(&(*options).opts, b));
    ok_or_report(written, errptr);
}

/// The value of `key` as a `malloc`ed buffer of `*vallen` bytes (free it with `rocksdb_free`),
/// or NULL with `*vallen` = 0 when the key has none or on error.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_get(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
    key: *const c_char,
    keylen: usize,
    vallen: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    value_or_null(
        (*db).db.get(&(*options).opts, bytes(key, keylen)),
        vallen,
        errptr,
    )
}

pub(crate) unsafe fn value_or_null(
    r: cairndb::Result<Option<Vec<u8>>>,
    vallen: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    *vallen = 0;
    match ok_or_report(r, errptr).flatten() {
        Some(v) => {
            *vallen = v.len();
            malloc_copy(&v)
        }
        None => std::ptr::null_mut(),
    }
}

/// Reads `num_keys` keys at one snapshot. For each key `i`: `values_list[i]` is a `malloc`ed
/// value of `values_list_sizes[i]` bytes or NULL when absent; `errs[i]` is NULL or a
/// `malloc`ed error string. The caller frees every non-NULL entry.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_multi_get(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
    num_keys: usize,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    values_list: *mut *mut c_char,
    values_list_sizes: *mut usize,
    errs: *mut *mut c_char,
) {
    let keys = key_slices(num_keys, keys_list, keys_list_sizes);
    let results = (*db).db.multi_get(&(*options).opts, &keys);
    store_multi_get(results, values_list, values_list_sizes, errs);
}

pub(crate) unsafe fn key_slices<'a>(
    n: usize,
    list: *const *const c_char,
    sizes: *const usize,
) -> Vec<&'a [u8]> {
    (0..n).map(|i| bytes(*list.add(i), *sizes.add(i))).collect()
}

pub(crate) unsafe fn store_multi_get(
    results: Vec<cairndb::Result<Option<Vec<u8>>>>,
    values_list: *mut *mut c_char,
    values_list_sizes: *mut usize,
    errs: *mut *mut c_char,
) {
    for (i, r) in results.into_iter().enumerate() {
        *values_list.add(i) = std::ptr::null_mut();
        *values_list_sizes.add(i) = 0;
        *errs.add(i) = std::ptr::null_mut();
        match r {
            Ok(Some(v)) => {
                *values_list_sizes.add(i) = v.len();
                *values_list.add(i) = malloc_copy(&v);
            }
            Ok(None) => {}
            Err(e) => set_error(errs.add(i), &e),
        }
    }
}

/// A value read without a copy where the engine can pin it (RocksDB's `PinnableSlice`).
pub struct rocksdb_pinnableslice_t {
    pub(crate) value: cairndb::PinnableValue,
}

/// The value of `key` pinned in place, or NULL when absent or on error. Destroy it with
/// `rocksdb_pinnableslice_destroy`.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_get_pinned(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_pinnableslice_t {
    pinned_or_null(
        (*db).db.get_pinned(&(*options).opts, bytes(key, keylen)),
        errptr,
    )
}

pub(crate) unsafe fn pinned_or_null(
    r: cairndb::Result<Option<cairndb::PinnableValue>>,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_pinnableslice_t {
    match ok_or_report(r, errptr).flatten() {
        Some(value) => into_raw(rocksdb_pinnableslice_t { value }),
        None => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_pinnableslice_value(
    v: *const rocksdb_pinnableslice_t,
    vlen: *mut usize,
) -> *const c_char {
    if v.is_null() {
        *vlen = 0;
        return std::ptr::null();
    }
    crate::util::out_slice(&(*v).value, vlen)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_pinnableslice_destroy(v: *mut rocksdb_pinnableslice_t) {
    crate::util::drop_raw(v);
}

/// A consistent read view (RocksDB's `Snapshot`); release it with `rocksdb_release_snapshot`.
pub struct rocksdb_snapshot_t {
    snapshot: Snapshot,
}

impl rocksdb_snapshot_t {
    pub(crate) fn sequence(&self) -> u64 {
        self.snapshot.sequence()
    }

    pub(crate) fn wrap(snapshot: Snapshot) -> *const rocksdb_snapshot_t {
        into_raw(rocksdb_snapshot_t { snapshot })
    }
}

/// A snapshot of the database now, or NULL when the database is closed or failed.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_create_snapshot(db: *mut rocksdb_t) -> *const rocksdb_snapshot_t {
    match (*db).db.snapshot() {
        Ok(s) => rocksdb_snapshot_t::wrap(s),
        Err(_) => std::ptr::null(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_release_snapshot(
    _db: *mut rocksdb_t,
    snapshot: *const rocksdb_snapshot_t,
) {
    crate::util::drop_raw(snapshot.cast_mut());
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_snapshot_get_sequence_number(
    snapshot: *const rocksdb_snapshot_t,
) -> u64 {
    (*snapshot).sequence()
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_get_latest_sequence_number(db: *mut rocksdb_t) -> u64 {
    (*db).db.latest_sequence()
}

/// The value of property `propname` (`rocksdb.stats`, `rocksdb.estimate-num-keys`, ...) as a
/// `malloc`ed string, or NULL when the database has no such property.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_property_value(
    db: *mut rocksdb_t,
    propname: *const c_char,
) -> *mut c_char {
    property_value(&(*db).db, propname)
}

pub(crate) unsafe fn property_value(db: &Db, propname: *const c_char) -> *mut c_char {
    match cstr(propname, "the property name") {
        Ok(name) => db
            .property(name)
            .map_or(std::ptr::null_mut(), |v| malloc_cstring(&v)),
        Err(_) => std::ptr::null_mut(),
    }
}

/// 0 with `*out_val` set when `propname` is an integer property; -1 otherwise.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_property_int(
    db: *mut rocksdb_t,
    propname: *const c_char,
    out_val: *mut u64,
) -> c_int {
    property_int(&(*db).db, propname, out_val)
}

pub(crate) unsafe fn property_int(db: &Db, propname: *const c_char, out_val: *mut u64) -> c_int {
    match cstr(propname, "the property name")
        .ok()
        .and_then(|n| db.property_int(n))
    {
        Some(v) => {
            *out_val = v;
            0
        }
        None => -1,
    }
}

pub(crate) unsafe fn option_pairs<'a>(
    count: c_int,
    keys: *const *const c_char,
    values: *const *const c_char,
) -> cairndb::Result<Vec<(&'a str, &'a str)>> {
    let n = usize::try_from(count).unwrap_or(0);
    let mut pairs = Vec::with_capacity(n);
    for i in 0..n {
        pairs.push((
            cstr(*keys.add(i), "an option name")?,
            cstr(*values.add(i), "an option value")?,
        ));
    }
    Ok(pairs)
}

/// Changes mutable options of the default column family (RocksDB's `SetOptions`), all or none.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_set_options(
    db: *mut rocksdb_t,
    count: c_int,
    keys: *const *const c_char,
    values: *const *const c_char,
    errptr: *mut *mut c_char,
) {
    if let Some(pairs) = ok_or_report(option_pairs(count, keys, values), errptr) {
        ok_or_report((*db).db.set_options_default(&pairs), errptr);
    }
}

/// Changes mutable database options (RocksDB's `SetDBOptions`), all or none.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_set_db_options(
    db: *mut rocksdb_t,
    count: c_int,
    keys: *const *const c_char,
    values: *const *const c_char,
    errptr: *mut *mut c_char,
) {
    if let Some(pairs) = ok_or_report(option_pairs(count, keys, values), errptr) {
        ok_or_report((*db).db.set_db_options(&pairs), errptr);
    }
}

pub(crate) unsafe fn check_wait(
    options: *const rocksdb_flushoptions_t,
    errptr: *mut *mut c_char,
) -> bool {
    if !options.is_null() && !(*options).wait {
        set_error_message(
            errptr,
            "Not implemented: a flush that does not wait (CairnDB's flush always waits)",
        );
        return false;
    }
    true
}

/// Flushes every column family's memtables to table files and waits for it.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_flush(
    db: *mut rocksdb_t,
    options: *const rocksdb_flushoptions_t,
    errptr: *mut *mut c_char,
) {
    if check_wait(options, errptr) {
        ok_or_report((*db).db.flush(), errptr);
    }
}

/// Compacts the keys in `[start_key, limit_key]` (NULL: unbounded) down the tree and waits for
/// it. Errors are not reported (RocksDB's signature has no `errptr`).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_compact_range(
    db: *mut rocksdb_t,
    start_key: *const c_char,
    start_key_len: usize,
    limit_key: *const c_char,
    limit_key_len: usize,
) {
    let d = &(*db).db;
    let cf = default_family(d);
    let _ = d.compact_range_cf(
        &cf,
        (!start_key.is_null()).then(|| bytes(start_key, start_key_len)),
        (!limit_key.is_null()).then(|| bytes(limit_key, limit_key_len)),
    );
}

/// Approximate bytes on disk of each range `[start, limit)` (table files only, as RocksDB's
/// default).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_approximate_sizes(
    db: *mut rocksdb_t,
    num_ranges: c_int,
    range_start_key: *const *const c_char,
    range_start_key_len: *const usize,
    range_limit_key: *const *const c_char,
    range_limit_key_len: *const usize,
    sizes: *mut u64,
    errptr: *mut *mut c_char,
) {
    let d = &(*db).db;
    crate::column_family::approximate_sizes(
        d,
        &default_family(d),
        num_ranges,
        range_start_key,
        range_start_key_len,
        range_limit_key,
        range_limit_key_len,
        sizes,
        errptr,
    );
}

/// Whether `key` may exist; RocksDB's contract: 0 means it certainly does not. CairnDB answers
/// with a full read (so `*value_found` is 1 whenever the answer is 1 and `value` is given).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_key_may_exist(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
    key: *const c_char,
    key_len: usize,
    value: *mut *mut c_char,
    val_len: *mut usize,
    _timestamp: *const c_char,
    _timestamp_len: usize,
    value_found: *mut c_uchar,
) -> c_uchar {
    let r = (*db).db.get(&(*options).opts, bytes(key, key_len));
    key_may_exist_answer(r, value, val_len, value_found)
}

pub(crate) unsafe fn key_may_exist_answer(
    r: cairndb::Result<Option<Vec<u8>>>,
    value: *mut *mut c_char,
    val_len: *mut usize,
    value_found: *mut c_uchar,
) -> c_uchar {
    if !value_found.is_null() {
        *value_found = 0;
    }
    match r {
        Ok(None) => 0,
        // An error cannot prove absence.
        Err(_) => 1,
        Ok(Some(v)) => {
            // As RocksDB: the value is handed out only to a caller that asked whether it was
            // found.
            if !value_found.is_null() && !value.is_null() && !val_len.is_null() {
                *value = malloc_copy(&v);
                *val_len = v.len();
                *value_found = 1;
            }
            1
        }
    }
}
