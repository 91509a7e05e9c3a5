//! Column families: opening with several, creating, dropping and listing them, their handles,
//! and the `*_cf` variants of the database calls.

use std::ffi::{c_char, c_int, c_uchar};

use cairndb::db::{ColumnFamily, ColumnFamilyDescriptor, SizeApproximation};
use cairndb::options::ReadOptions;
use cairndb::Db;

use crate::db::{
    check_wait, key_may_exist_answer, key_slices, option_pairs, pinned_or_null,
    rocksdb_pinnableslice_t, rocksdb_t, store_multi_get, value_or_null,
};
use crate::options::rocksdb_options_t;
use crate::read_write_options::{
    rocksdb_flushoptions_t, rocksdb_readoptions_t, rocksdb_writeoptions_t,
};
use crate::util::{
    bytes, cstr, drop_raw, into_raw, malloc_array, malloc_copy, malloc_cstring, ok_or_report,
    set_error,
};

/// A handle on one column family. Destroy it with `rocksdb_column_family_handle_destroy`
/// (which does not drop the family) before the database is closed.
pub struct rocksdb_column_family_handle_t {
    pub(crate) cf: ColumnFamily,
}

pub(crate) fn default_family(db: &Db) -> ColumnFamily {
    db.default_column_family()
}

fn handle(cf: ColumnFamily) -> *mut rocksdb_column_family_handle_t {
    into_raw(rocksdb_column_family_handle_t { cf })
}

/// Opens the database with options for `num_column_families` families and stores a handle for
/// each in `column_family_handles`, in order. As in RocksDB, the list must name every family the
/// database has, `default` included (`Invalid argument: Column families not opened: ...`);
/// with `create_missing_column_families`, families it names that the database lacks are
/// created.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_open_column_families(
    options: *const rocksdb_options_t,
    name: *const c_char,
    num_column_families: c_int,
    column_family_names: *const *const c_char,
    column_family_options: *const *const rocksdb_options_t,
    column_family_handles: *mut *mut rocksdb_column_family_handle_t,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_t {
    let opened = (|| {
        let path = cstr(name, "the database path")?;
        let opts = (*options).checked()?;
        let n = usize::try_from(num_column_families).unwrap_or(0);
        let mut names = Vec::with_capacity(n);
        let mut families = Vec::with_capacity(n);
        for i in 0..n {
            let name = cstr(*column_family_names.add(i), "a column family name")?;
            let cf_opts = (**column_family_options.add(i)).checked()?;
            names.push(name);
            families.push(ColumnFamilyDescriptor::new(name, cf_opts.cf));
        }
        crate::db::check_families_listed(path, &names)?;
        let db = Db::open_cf(path, opts, families)?;
        let mut handles = Vec::with_capacity(n);
        for name in names {
            handles.push(db.column_family(name).ok_or_else(|| {
                cairndb::Error::InvalidArgument(format!("column family {name} was not opened"))
            })?);
        }
        Ok((db, handles))
    })();
    match ok_or_report(opened, errptr) {
        Some((db, handles)) => {
            for (i, cf) in handles.into_iter().enumerate() {
                *column_family_handles.add(i) = handle(cf);
            }
            into_raw(rocksdb_t { db })
        }
        None => std::ptr::null_mut(),
    }
}

/// The names of the database's column families (`default` first) as a `malloc`ed array of
/// `*lencf` `malloc`ed strings; free it with `rocksdb_list_column_families_destroy`.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_list_column_families(
    _options: *const rocksdb_options_t,
    name: *const c_char,
    lencf: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut *mut c_char {
    *lencf = 0;
    let names = cstr(name, "the database path").and_then(Db::list_column_families);
    let Some(names) = ok_or_report(names, errptr) else {
        return std::ptr::null_mut();
    };
    let list = malloc_array::<c_char>(names.len());
    for (i, n) in names.iter().enumerate() {
        *list.add(i) = malloc_cstring(n);
    }
    *lencf = names.len();
    list
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_list_column_families_destroy(list: *mut *mut c_char, len: usize) {
    if list.is_null() {
        return;
    }
    for i in 0..len {
        libc::free((*list.add(i)).cast());
    }
    libc::free(list.cast());
}

/// Creates family `column_family_name` with the column-family part of `column_family_options`.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_create_column_family(
    db: *mut rocksdb_t,
    column_family_options: *const rocksdb_options_t,
    column_family_name: *const c_char,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_column_family_handle_t {
    let created = (|| {
        let name = cstr(column_family_name, "the column family name")?;
        let opts = (*column_family_options).checked()?;
        (*db).db.create_column_family(name, opts.cf)
    })();
    ok_or_report(created, errptr).map_or(std::ptr::null_mut(), handle)
}

/// Drops the family; the handle stays valid (for destruction) but every call through it fails.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_drop_column_family(
    db: *mut rocksdb_t,
    handle: *mut rocksdb_column_family_handle_t,
    errptr: *mut *mut c_char,
) {
    ok_or_report((*db).db.drop_column_family(&(*handle).cf), errptr);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_get_default_column_family_handle(
    db: *mut rocksdb_t,
) -> *mut rocksdb_column_family_handle_t {
    handle(default_family(&(*db).db))
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_column_family_handle_destroy(
    handle: *mut rocksdb_column_family_handle_t,
) {
    drop_raw(handle);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_column_family_handle_get_id(
    handle: *mut rocksdb_column_family_handle_t,
) -> u32 {
    (*handle).cf.id()
}

/// The family's name as a `malloc`ed buffer of `*name_len` bytes (not NUL-terminated, as in
/// RocksDB); free it with `rocksdb_free`.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_column_family_handle_get_name(
    handle: *mut rocksdb_column_family_handle_t,
    name_len: *mut usize,
) -> *mut c_char {
    let name = (*handle).cf.name();
    *name_len = name.len();
    malloc_copy(name.as_bytes())
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_put_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    val: *const c_char,
    vallen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*db).db.put_cf(
            &(*options).opts,
            &(*column_family).cf,
            bytes(key, keylen),
            bytes(val, vallen),
        ),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_delete_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*db)
            .db
            .delete_cf(&(*options).opts, &(*column_family).cf, bytes(key, keylen)),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_singledelete_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*db)
            .db
            .single_delete_cf(&(*options).opts, &(*column_family).cf, bytes(key, keylen)),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_merge_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    val: *const c_char,
    vallen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*db).db.merge_cf(
            &(*options).opts,
            &(*column_family).cf,
            bytes(key, keylen),
            bytes(val, vallen),
        ),
        errptr,
    );
}

/// Deletes every key in `[start_key, end_key)` of the family (a range tombstone).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_delete_range_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_writeoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    start_key: *const c_char,
    start_key_len: usize,
    end_key: *const c_char,
    end_key_len: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*db).db.delete_range_cf(
            &(*options).opts,
            &(*column_family).cf,
            bytes(start_key, start_key_len),
            bytes(end_key, end_key_len),
        ),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_get_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    vallen: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    value_or_null(
        (*db)
            .db
            .get_cf(&(*options).opts, &(*column_family).cf, bytes(key, keylen)),
        vallen,
        errptr,
    )
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_get_pinned_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_pinnableslice_t {
    pinned_or_null(
        (*db)
            .db
            .get_pinned_cf(&(*options).opts, &(*column_family).cf, bytes(key, keylen)),
        errptr,
    )
}

/// [`rocksdb_multi_get`](crate::rocksdb_multi_get) with a family per key, every key read at one
/// snapshot.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_multi_get_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
    column_families: *const *const rocksdb_column_family_handle_t,
    num_keys: usize,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    values_list: *mut *mut c_char,
    values_list_sizes: *mut usize,
    errs: *mut *mut c_char,
) {
    multi_get_families(
        &(*db).db,
        &(*options).opts,
        column_families,
        num_keys,
        keys_list,
        keys_list_sizes,
        values_list,
        values_list_sizes,
        errs,
    );
}

/// Reads key `i` in family `column_families[i]`, every key at one snapshot.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn multi_get_families(
    db: &Db,
    options: &ReadOptions,
    column_families: *const *const rocksdb_column_family_handle_t,
    num_keys: usize,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    values_list: *mut *mut c_char,
    values_list_sizes: *mut usize,
    errs: *mut *mut c_char,
) {
    let keys = key_slices(num_keys, keys_list, keys_list_sizes);
    // Pin one snapshot for the whole call so that every family is read at the same point.
    let snapshot = match options.snapshot {
        Some(_) => None,
        None => db.snapshot().ok(),
    };
    let mut opts = options.clone();
    if let Some(s) = &snapshot {
        opts.snapshot = Some(s.sequence());
    }
    let results = (0..num_keys)
        .map(|i| {
            let cf = &(**column_families.add(i)).cf;
            db.get_cf(&opts, cf, keys[i])
        })
        .collect();
    store_multi_get(results, values_list, values_list_sizes, errs);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_key_may_exist_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    key_len: usize,
    value: *mut *mut c_char,
    val_len: *mut usize,
    _timestamp: *const c_char,
    _timestamp_len: usize,
    value_found: *mut c_uchar,
) -> c_uchar {
    let r = (*db)
        .db
        .get_cf(&(*options).opts, &(*column_family).cf, bytes(key, key_len));
    key_may_exist_answer(r, value, val_len, value_found)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_property_value_cf(
    db: *mut rocksdb_t,
    column_family: *mut rocksdb_column_family_handle_t,
    propname: *const c_char,
) -> *mut c_char {
    match cstr(propname, "the property name") {
        Ok(name) => (*db)
            .db
            .property_cf(&(*column_family).cf, name)
            .map_or(std::ptr::null_mut(), |v| malloc_cstring(&v)),
        Err(_) => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_property_int_cf(
    db: *mut rocksdb_t,
    column_family: *mut rocksdb_column_family_handle_t,
    propname: *const c_char,
    out_val: *mut u64,
) -> c_int {
    match cstr(propname, "the property name")
        .ok()
        .and_then(|n| (*db).db.property_int_cf(&(*column_family).cf, n))
    {
        Some(v) => {
            *out_val = v;
            0
        }
        None => -1,
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_set_options_cf(
    db: *mut rocksdb_t,
    handle: *mut rocksdb_column_family_handle_t,
    count: c_int,
    keys: *const *const c_char,
    values: *const *const c_char,
    errptr: *mut *mut c_char,
) {
    if let Some(pairs) = ok_or_report(option_pairs(count, keys, values), errptr) {
        ok_or_report((*db).db.set_options(&(*handle).cf, &pairs), errptr);
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_flush_cf(
    db: *mut rocksdb_t,
    options: *const rocksdb_flushoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    errptr: *mut *mut c_char,
) {
    if check_wait(options, errptr) {
        ok_or_report((*db).db.flush_cf(&(*column_family).cf), errptr);
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_compact_range_cf(
    db: *mut rocksdb_t,
    column_family: *mut rocksdb_column_family_handle_t,
    start_key: *const c_char,
    start_key_len: usize,
    limit_key: *const c_char,
    limit_key_len: usize,
) {
    let _ = (*db).db.compact_range_cf(
        &(*column_family).cf,
        (!start_key.is_null()).then(|| bytes(start_key, start_key_len)),
        (!limit_key.is_null()).then(|| bytes(limit_key, limit_key_len)),
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_approximate_sizes_cf(
    db: *mut rocksdb_t,
    column_family: *mut rocksdb_column_family_handle_t,
    num_ranges: c_int,
    range_start_key: *const *const c_char,
    range_start_key_len: *const usize,
    range_limit_key: *const *const c_char,
    range_limit_key_len: *const usize,
    sizes: *mut u64,
    errptr: *mut *mut c_char,
) {
    approximate_sizes(
        &(*db).db,
        &(*column_family).cf,
        num_ranges,
        range_start_key,
        range_start_key_len,
        range_limit_key,
        range_limit_key_len,
        sizes,
        errptr,
    );
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn approximate_sizes(
    db: &Db,
    cf: &ColumnFamily,
    num_ranges: c_int,
    range_start_key: *const *const c_char,
    range_start_key_len: *const usize,
    range_limit_key: *const *const c_char,
    range_limit_key_len: *const usize,
    sizes: *mut u64,
    errptr: *mut *mut c_char,
) {
    let n = usize::try_from(num_ranges).unwrap_or(0);
    let starts = key_slices(n, range_start_key, range_start_key_len);
    let limits = key_slices(n, range_limit_key, range_limit_key_len);
    let ranges: Vec<(&[u8], &[u8])> = starts.into_iter().zip(limits).collect();
    match db.get_approximate_sizes_cf(cf, &ranges, SizeApproximation::default()) {
        Ok(v) => {
            for (i, s) in v.into_iter().enumerate() {
                *sizes.add(i) = s;
            }
        }
        Err(e) => set_error(errptr, &e),
    }
}
