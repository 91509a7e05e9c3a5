//! Transactions: `rocksdb_transactiondb_*` (pessimistic: locks, `get_for_update`, deadlock
//! detection), `rocksdb_optimistictransactiondb_*` (conflicts checked at commit), and the
//! `rocksdb_transaction_*` calls both kinds of transaction share.

use std::ffi::{c_char, c_int, c_uchar};

use cairndb::{
    OptimisticTransaction, OptimisticTransactionDb, OptimisticTransactionDbOptions,
    OptimisticTransactionOptions, OwnedBaseDeltaIter, Transaction, TransactionDb,
    TransactionDbOptions, TransactionOptions,
};

use cairndb::PinnableValue;

use crate::batch::rocksdb_writebatch_t;
use crate::column_family::{multi_get_families, rocksdb_column_family_handle_t};
use crate::db::{
    check_wait, key_slices, pinned_or_null, property_int, property_value, rocksdb_pinnableslice_t,
    rocksdb_snapshot_t, store_multi_get, value_or_null,
};
use crate::iterator::{rocksdb_iterator_t, wrap, wrap_transaction};
use crate::options::rocksdb_options_t;
use crate::read_write_options::{
    rocksdb_flushoptions_t, rocksdb_readoptions_t, rocksdb_writeoptions_t,
};
use crate::util::{bytes, cstr, drop_raw, into_raw, malloc_copy, ok_or_report};

// ---- Options ----

/// RocksDB's `TransactionDBOptions`.
pub struct rocksdb_transactiondb_options_t {
    opts: TransactionDbOptions,
}

#[no_mangle]
pub extern "C" fn rocksdb_transactiondb_options_create() -> *mut rocksdb_transactiondb_options_t {
    into_raw(rocksdb_transactiondb_options_t {
        opts: TransactionDbOptions::default(),
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_options_destroy(
    opt: *mut rocksdb_transactiondb_options_t,
) {
    drop_raw(opt);
}

/// RocksDB's `TransactionOptions`.
pub struct rocksdb_transaction_options_t {
    opts: TransactionOptions,
}

#[no_mangle]
pub extern "C" fn rocksdb_transaction_options_create() -> *mut rocksdb_transaction_options_t {
    into_raw(rocksdb_transaction_options_t {
        opts: TransactionOptions::default(),
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_options_destroy(
    opt: *mut rocksdb_transaction_options_t,
) {
    drop_raw(opt);
}

/// RocksDB's `OptimisticTransactionOptions`.
pub struct rocksdb_optimistictransaction_options_t {
    opts: OptimisticTransactionOptions,
}

#[no_mangle]
pub extern "C" fn rocksdb_optimistictransaction_options_create(
) -> *mut rocksdb_optimistictransaction_options_t {
    into_raw(rocksdb_optimistictransaction_options_t {
        opts: OptimisticTransactionOptions::default(),
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_optimistictransaction_options_destroy(
    opt: *mut rocksdb_optimistictransaction_options_t,
) {
    drop_raw(opt);
}

/// Setter and getter pairs of the transaction options, under RocksDB's names and units
/// (`bool` options as `unsigned char`).
macro_rules! accessors {
    ($ty:ident: $( $set:ident, $get:ident: bool => $field:ident; )*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $set(opt: *mut $ty, v: c_uchar) {
            (*opt).opts.$field = v != 0;
        }
        #[no_mangle]
        pub unsafe extern "C" fn $get(opt: *mut $ty) -> c_uchar {
            c_uchar::from((*opt).opts.$field)
        }
    )*};
    ($ty:ident: $( $set:ident, $get:ident: $cty:ty => $field:ident; )*) => {$(
        #[no_mangle]
        #[allow(clippy::unnecessary_cast)]
        pub unsafe extern "C" fn $set(opt: *mut $ty, v: $cty) {
            (*opt).opts.$field = v as _;
        }
        #[no_mangle]
        pub unsafe extern "C" fn $get(opt: *mut $ty) -> $cty {
            (*opt).opts.$field.try_into().unwrap_or(<$cty>::MAX)
        }
    )*};
}

accessors! { rocksdb_transactiondb_options_t:
    rocksdb_transactiondb_options_set_max_num_locks,
        rocksdb_transactiondb_options_get_max_num_locks: i64 => max_num_locks;
    rocksdb_transactiondb_options_set_max_num_deadlocks,
        rocksdb_transactiondb_options_get_max_num_deadlocks: u32 => max_num_deadlocks;
    rocksdb_transactiondb_options_set_num_stripes,
        rocksdb_transactiondb_options_get_num_stripes: usize => num_stripes;
    rocksdb_transactiondb_options_set_transaction_lock_timeout,
        rocksdb_transactiondb_options_get_transaction_lock_timeout: i64 => transaction_lock_timeout;
    rocksdb_transactiondb_options_set_default_lock_timeout,
        rocksdb_transactiondb_options_get_default_lock_timeout: i64 => default_lock_timeout;
}

accessors! { rocksdb_transaction_options_t:
    rocksdb_transaction_options_set_set_snapshot,
        rocksdb_transaction_options_get_set_snapshot: bool => set_snapshot;
    rocksdb_transaction_options_set_deadlock_detect,
        rocksdb_transaction_options_get_deadlock_detect: bool => deadlock_detect;
    rocksdb_transaction_options_set_skip_concurrency_control,
        rocksdb_transaction_options_get_skip_concurrency_control: bool => skip_concurrency_control;
    rocksdb_transaction_options_set_skip_prepare,
        rocksdb_transaction_options_get_skip_prepare: bool => skip_prepare;
}

// Milliseconds: lock_timeout negative means the database's transaction_lock_timeout; expiration
// zero or negative means never.
accessors! { rocksdb_transaction_options_t:
    rocksdb_transaction_options_set_lock_timeout,
        rocksdb_transaction_options_get_lock_timeout: i64 => lock_timeout;
    rocksdb_transaction_options_set_expiration,
        rocksdb_transaction_options_get_expiration: i64 => expiration;
    rocksdb_transaction_options_set_deadlock_detect_depth,
        rocksdb_transaction_options_get_deadlock_detect_depth: i64 => deadlock_detect_depth;
    rocksdb_transaction_options_set_max_write_batch_size,
        rocksdb_transaction_options_get_max_write_batch_size: usize => max_write_batch_size;
}

accessors! { rocksdb_optimistictransaction_options_t:
    rocksdb_optimistictransaction_options_set_set_snapshot,
        rocksdb_optimistictransaction_options_get_set_snapshot: bool => set_snapshot;
}

// ---- Pessimistic transaction databases ----

/// A database with pessimistic transactions. Safe to use from many threads at once.
pub struct rocksdb_transactiondb_t {
    tdb: TransactionDb,
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_open(
    options: *const rocksdb_options_t,
    txn_db_options: *const rocksdb_transactiondb_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_transactiondb_t {
    let opened = (|| {
        let path = cstr(name, "the database path")?;
        let opts = (*options).checked()?;
        crate::db::check_families_listed(path, &["default"])?;
        TransactionDb::open(path, opts, (*txn_db_options).opts.clone())
    })();
    match ok_or_report(opened, errptr) {
        Some(tdb) => into_raw(rocksdb_transactiondb_t { tdb }),
        None => std::ptr::null_mut(),
    }
}

/// Closes the database. Transactions not committed are rolled back by their destruction, which
/// must come first (contract item 3).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_close(txn_db: *mut rocksdb_transactiondb_t) {
    if txn_db.is_null() {
        return;
    }
    let b = Box::from_raw(txn_db);
    let _ = b.tdb.close();
}

/// Sets `key` outside any transaction, after taking its lock.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_put(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_writeoptions_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*txn_db)
            .tdb
            .put(&(*options).opts, bytes(key, klen), bytes(val, vlen)),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_delete(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_writeoptions_t,
    key: *const c_char,
    klen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*txn_db).tdb.delete(&(*options).opts, bytes(key, klen)),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_merge(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_writeoptions_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*txn_db)
            .tdb
            .merge(&(*options).opts, bytes(key, klen), bytes(val, vlen)),
        errptr,
    );
}

/// Applies `batch` atomically, after locking its keys.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_write(
    db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_writeoptions_t,
    batch: *mut rocksdb_writebatch_t,
    errptr: *mut *mut c_char,
) {
    let written = (*batch)
        .to_write()
        .and_then(|b| (*db).tdb.write(&(*options).opts, b));
    ok_or_report(written, errptr);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_get(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_readoptions_t,
    key: *const c_char,
    klen: usize,
    vlen: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    value_or_null(
        (*txn_db).tdb.db().get(&(*options).opts, bytes(key, klen)),
        vlen,
        errptr,
    )
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_multi_get(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_readoptions_t,
    num_keys: usize,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    values_list: *mut *mut c_char,
    values_list_sizes: *mut usize,
    errs: *mut *mut c_char,
) {
    let keys = key_slices(num_keys, keys_list, keys_list_sizes);
    let results = (*txn_db).tdb.db().multi_get(&(*options).opts, &keys);
    store_multi_get(results, values_list, values_list_sizes, errs);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_create_iterator(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_readoptions_t,
) -> *mut rocksdb_iterator_t {
    wrap((*txn_db).tdb.db().iter(&(*options).opts))
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_create_snapshot(
    txn_db: *mut rocksdb_transactiondb_t,
) -> *const rocksdb_snapshot_t {
    match (*txn_db).tdb.db().snapshot() {
        Ok(s) => rocksdb_snapshot_t::wrap(s),
        Err(_) => std::ptr::null(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_release_snapshot(
    _txn_db: *mut rocksdb_transactiondb_t,
    snapshot: *const rocksdb_snapshot_t,
) {
    drop_raw(snapshot.cast_mut());
}

// ---- Optimistic transaction databases ----

/// A database with optimistic transactions. Safe to use from many threads at once.
pub struct rocksdb_optimistictransactiondb_t {
    odb: OptimisticTransactionDb,
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_optimistictransactiondb_open(
    options: *const rocksdb_options_t,
    name: *const c_char,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_optimistictransactiondb_t {
    let opened = (|| {
        let path = cstr(name, "the database path")?;
        let opts = (*options).checked()?;
        crate::db::check_families_listed(path, &["default"])?;
        OptimisticTransactionDb::open(path, opts, OptimisticTransactionDbOptions::default())
    })();
    match ok_or_report(opened, errptr) {
        Some(odb) => into_raw(rocksdb_optimistictransactiondb_t { odb }),
        None => std::ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_optimistictransactiondb_close(
    otxn_db: *mut rocksdb_optimistictransactiondb_t,
) {
    if otxn_db.is_null() {
        return;
    }
    let b = Box::from_raw(otxn_db);
    let _ = b.odb.close();
}

/// Applies `batch` atomically (outside any transaction; no conflict check).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_optimistictransactiondb_write(
    otxn_db: *mut rocksdb_optimistictransactiondb_t,
    options: *const rocksdb_writeoptions_t,
    batch: *mut rocksdb_writebatch_t,
    errptr: *mut *mut c_char,
) {
    let written = (*batch)
        .to_write()
        .and_then(|b| (*otxn_db).odb.db().write(&(*options).opts, b));
    ok_or_report(written, errptr);
}

// ---- Transactions ----

enum Txn {
    /// The borrow of the database is erased: contract item 3 keeps it valid.
    Pessimistic(Transaction<'static>),
    Optimistic(OptimisticTransaction<'static>),
}

/// A transaction of either kind. Not thread-safe.
pub struct rocksdb_transaction_t {
    txn: Txn,
    /// The database the transaction reads, for its iterators (contract item 3 keeps it valid).
    db: *const cairndb::Db,
}

unsafe fn begin(
    txn: Txn,
    db: &cairndb::Db,
    old_txn: *mut rocksdb_transaction_t,
) -> *mut rocksdb_transaction_t {
    if old_txn.is_null() {
        into_raw(rocksdb_transaction_t {
            txn,
            db: db as *const cairndb::Db,
        })
    } else {
        // RocksDB reuses `old_txn`'s object: the old transaction ends (rolled back if open).
        (*old_txn).txn = txn;
        (*old_txn).db = db as *const cairndb::Db;
        old_txn
    }
}

/// Begins a transaction (or, with `old_txn`, reuses that object for a new one). NULL when it
/// cannot begin (a closed database); `old_txn` is then destroyed, so the usual
/// `txn = rocksdb_transaction_begin(..., txn)` leaks nothing.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_begin(
    txn_db: *mut rocksdb_transactiondb_t,
    write_options: *const rocksdb_writeoptions_t,
    txn_options: *const rocksdb_transaction_options_t,
    old_txn: *mut rocksdb_transaction_t,
) -> *mut rocksdb_transaction_t {
    let tdb: &'static TransactionDb = &*std::ptr::addr_of!((*txn_db).tdb);
    match tdb.begin_transaction(&(*write_options).opts, &(*txn_options).opts) {
        Ok(t) => begin(Txn::Pessimistic(t), tdb.db(), old_txn),
        Err(_) => {
            drop_raw(old_txn);
            std::ptr::null_mut()
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_optimistictransaction_begin(
    otxn_db: *mut rocksdb_optimistictransactiondb_t,
    write_options: *const rocksdb_writeoptions_t,
    otxn_options: *const rocksdb_optimistictransaction_options_t,
    old_txn: *mut rocksdb_transaction_t,
) -> *mut rocksdb_transaction_t {
    let odb: &'static OptimisticTransactionDb = &*std::ptr::addr_of!((*otxn_db).odb);
    let t = odb.begin_transaction(&(*write_options).opts, &(*otxn_options).opts);
    begin(Txn::Optimistic(t), odb.db(), old_txn)
}

/// Ends the object; an open transaction is rolled back.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_destroy(txn: *mut rocksdb_transaction_t) {
    drop_raw(txn);
}

macro_rules! each {
    ($txn:expr, $t:ident => $e:expr) => {
        match &mut (*$txn).txn {
            Txn::Pessimistic($t) => $e,
            Txn::Optimistic($t) => $e,
        }
    };
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_commit(
    txn: *mut rocksdb_transaction_t,
    errptr: *mut *mut c_char,
) {
    ok_or_report(each!(txn, t => t.commit()), errptr);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_rollback(
    txn: *mut rocksdb_transaction_t,
    errptr: *mut *mut c_char,
) {
    ok_or_report(each!(txn, t => t.rollback()), errptr);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_put(
    txn: *mut rocksdb_transaction_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    let (k, v) = (bytes(key, klen), bytes(val, vlen));
    ok_or_report(each!(txn, t => t.put(k, v)), errptr);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_merge(
    txn: *mut rocksdb_transaction_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    let (k, v) = (bytes(key, klen), bytes(val, vlen));
    ok_or_report(each!(txn, t => t.merge(k, v)), errptr);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_delete(
    txn: *mut rocksdb_transaction_t,
    key: *const c_char,
    klen: usize,
    errptr: *mut *mut c_char,
) {
    let k = bytes(key, klen);
    ok_or_report(each!(txn, t => t.delete(k)), errptr);
}

/// The value of `key` as the transaction sees it: its own writes over the database.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_get(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    key: *const c_char,
    klen: usize,
    vlen: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    let k = bytes(key, klen);
    let r = each!(txn, t => t.get(&(*options).opts, k));
    value_or_null(r, vlen, errptr)
}

/// Reads `key` and locks it (pessimistic: until commit or rollback, shared unless `exclusive`;
/// optimistic: the key is checked for conflicts at commit).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_get_for_update(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    key: *const c_char,
    klen: usize,
    vlen: *mut usize,
    exclusive: c_uchar,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    let k = bytes(key, klen);
    let o = &(*options).opts;
    let r = match &mut (*txn).txn {
        Txn::Pessimistic(t) => t.get_for_update(o, k, exclusive != 0),
        Txn::Optimistic(t) => t.get_for_update(o, k),
    };
    value_or_null(r, vlen, errptr)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_multi_get(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    num_keys: usize,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    values_list: *mut *mut c_char,
    values_list_sizes: *mut usize,
    errs: *mut *mut c_char,
) {
    let keys = key_slices(num_keys, keys_list, keys_list_sizes);
    let o = &(*options).opts;
    let results = match &(*txn).txn {
        Txn::Pessimistic(t) => t.multi_get(o, &keys),
        Txn::Optimistic(t) => keys.iter().map(|k| t.get(o, k)).collect(),
    };
    store_multi_get(results, values_list, values_list_sizes, errs);
}

/// An iterator over the database with the transaction's writes laid over it: the writes made
/// before the iterator (a copy of them; later writes to the transaction are not seen, unlike in
/// RocksDB). On an ended transaction it is never valid and reports the error.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_create_iterator(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
) -> *mut rocksdb_iterator_t {
    let db = &*(*txn).db;
    transaction_iterator(txn, options, &db.default_column_family())
}

unsafe fn transaction_iterator(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    cf: &cairndb::ColumnFamily,
) -> *mut rocksdb_iterator_t {
    let o = &(*options).opts;
    let db = &*(*txn).db;
    // The transaction's own iterator checks that it is still open; the copy is then iterated.
    let made = match &(*txn).txn {
        Txn::Pessimistic(t) => t.iter_cf(o, cf).map(drop).map(|()| t.write_batch().clone()),
        Txn::Optimistic(t) => t.iter_cf(o, cf).map(drop).map(|()| t.write_batch().clone()),
    };
    wrap_transaction(made.and_then(|batch| OwnedBaseDeltaIter::new(batch, db, o, cf)))
}

/// Remembers the transaction's writes so far (pessimistic and optimistic transactions).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_set_savepoint(txn: *mut rocksdb_transaction_t) {
    // It fails only on an ended transaction, whose next rollback_to_savepoint reports it.
    let _ = match &mut (*txn).txn {
        Txn::Pessimistic(t) => t.set_savepoint(),
        Txn::Optimistic(t) => t.set_savepoint(),
    };
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_rollback_to_savepoint(
    txn: *mut rocksdb_transaction_t,
    errptr: *mut *mut c_char,
) {
    let r = match &mut (*txn).txn {
        Txn::Pessimistic(t) => t.rollback_to_savepoint(),
        Txn::Optimistic(t) => t.rollback_to_savepoint(),
    };
    ok_or_report(r, errptr);
}

/// Names the transaction for two-phase commit (pessimistic transactions only).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_set_name(
    txn: *mut rocksdb_transaction_t,
    name: *const c_char,
    name_len: usize,
    errptr: *mut *mut c_char,
) {
    let r = match &mut (*txn).txn {
        Txn::Pessimistic(t) => std::str::from_utf8(bytes(name, name_len))
            .map_err(|_| cairndb::Error::InvalidArgument("a transaction name must be UTF-8".into()))
            .and_then(|n| t.set_name(n)),
        Txn::Optimistic(_) => Err(cairndb::Error::NotSupported(
            "two-phase commit of optimistic transactions".into(),
        )),
    };
    ok_or_report(r, errptr);
}

/// The transaction's name (`malloc`ed, `*name_len` bytes), or NULL when it has none.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_get_name(
    txn: *mut rocksdb_transaction_t,
    name_len: *mut usize,
) -> *mut c_char {
    *name_len = 0;
    match &(*txn).txn {
        Txn::Pessimistic(t) => match t.name() {
            Some(n) => {
                *name_len = n.len();
                malloc_copy(n)
            }
            None => std::ptr::null_mut(),
        },
        Txn::Optimistic(_) => std::ptr::null_mut(),
    }
}

/// Prepares a named pessimistic transaction (two-phase commit's first phase).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_prepare(
    txn: *mut rocksdb_transaction_t,
    errptr: *mut *mut c_char,
) {
    let r = match &mut (*txn).txn {
        Txn::Pessimistic(t) => t.prepare(),
        Txn::Optimistic(_) => Err(cairndb::Error::NotSupported(
            "two-phase commit of optimistic transactions".into(),
        )),
    };
    ok_or_report(r, errptr);
}

// ---- Column families and the rest, on transaction databases and transactions ----

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_create_column_family(
    txn_db: *mut rocksdb_transactiondb_t,
    column_family_options: *const rocksdb_options_t,
    column_family_name: *const c_char,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_column_family_handle_t {
    let created = (|| {
        let name = cstr(column_family_name, "the column family name")?;
        let opts = (*column_family_options).checked()?;
        (*txn_db).tdb.db().create_column_family(name, opts.cf)
    })();
    ok_or_report(created, errptr).map_or(std::ptr::null_mut(), |cf| {
        into_raw(rocksdb_column_family_handle_t { cf })
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_put_cf(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_writeoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    val: *const c_char,
    vallen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*txn_db).tdb.put_cf(
            &(*options).opts,
            &(*column_family).cf,
            bytes(key, keylen),
            bytes(val, vallen),
        ),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_delete_cf(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_writeoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*txn_db)
            .tdb
            .delete_cf(&(*options).opts, &(*column_family).cf, bytes(key, keylen)),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_merge_cf(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_writeoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    ok_or_report(
        (*txn_db).tdb.merge_cf(
            &(*options).opts,
            &(*column_family).cf,
            bytes(key, klen),
            bytes(val, vlen),
        ),
        errptr,
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_get_cf(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    vallen: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    value_or_null(
        (*txn_db)
            .tdb
            .db()
            .get_cf(&(*options).opts, &(*column_family).cf, bytes(key, keylen)),
        vallen,
        errptr,
    )
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_get_pinned(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_readoptions_t,
    key: *const c_char,
    klen: usize,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_pinnableslice_t {
    pinned_or_null(
        (*txn_db)
            .tdb
            .db()
            .get_pinned(&(*options).opts, bytes(key, klen)),
        errptr,
    )
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_get_pinned_cf(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    keylen: usize,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_pinnableslice_t {
    pinned_or_null(
        (*txn_db).tdb.db().get_pinned_cf(
            &(*options).opts,
            &(*column_family).cf,
            bytes(key, keylen),
        ),
        errptr,
    )
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_multi_get_cf(
    txn_db: *mut rocksdb_transactiondb_t,
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
        (*txn_db).tdb.db(),
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

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_create_iterator_cf(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
) -> *mut rocksdb_iterator_t {
    wrap(
        (*txn_db)
            .tdb
            .db()
            .iter_cf(&(*options).opts, &(*column_family).cf),
    )
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_property_value(
    db: *mut rocksdb_transactiondb_t,
    propname: *const c_char,
) -> *mut c_char {
    property_value((*db).tdb.db(), propname)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_property_int(
    db: *mut rocksdb_transactiondb_t,
    propname: *const c_char,
    out_val: *mut u64,
) -> c_int {
    property_int((*db).tdb.db(), propname, out_val)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_flush(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_flushoptions_t,
    errptr: *mut *mut c_char,
) {
    if check_wait(options, errptr) {
        ok_or_report((*txn_db).tdb.db().flush(), errptr);
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_flush_cf(
    txn_db: *mut rocksdb_transactiondb_t,
    options: *const rocksdb_flushoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    errptr: *mut *mut c_char,
) {
    if check_wait(options, errptr) {
        ok_or_report((*txn_db).tdb.db().flush_cf(&(*column_family).cf), errptr);
    }
}

/// The prepared transactions no handle holds (those recovery found and those whose handle was
/// destroyed), as a `malloc`ed array of `*cnt` transactions: commit or roll back each, destroy
/// it, and free the array with `rocksdb_free`. NULL when there are none.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transactiondb_get_prepared_transactions(
    txn_db: *mut rocksdb_transactiondb_t,
    cnt: *mut usize,
) -> *mut *mut rocksdb_transaction_t {
    let tdb: &'static TransactionDb = &*std::ptr::addr_of!((*txn_db).tdb);
    let txns = tdb.get_all_prepared_transactions();
    *cnt = txns.len();
    if txns.is_empty() {
        return std::ptr::null_mut();
    }
    let list = crate::util::malloc_array::<rocksdb_transaction_t>(txns.len());
    for (i, t) in txns.into_iter().enumerate() {
        *list.add(i) = into_raw(rocksdb_transaction_t {
            txn: Txn::Pessimistic(t),
            db: tdb.db() as *const cairndb::Db,
        });
    }
    list
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_put_cf(
    txn: *mut rocksdb_transaction_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    let (cf, k, v) = (&(*column_family).cf, bytes(key, klen), bytes(val, vlen));
    ok_or_report(each!(txn, t => t.put_cf(cf, k, v)), errptr);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_delete_cf(
    txn: *mut rocksdb_transaction_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    errptr: *mut *mut c_char,
) {
    let (cf, k) = (&(*column_family).cf, bytes(key, klen));
    ok_or_report(each!(txn, t => t.delete_cf(cf, k)), errptr);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_merge_cf(
    txn: *mut rocksdb_transaction_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
    errptr: *mut *mut c_char,
) {
    let (cf, k, v) = (&(*column_family).cf, bytes(key, klen), bytes(val, vlen));
    ok_or_report(each!(txn, t => t.merge_cf(cf, k, v)), errptr);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_get_cf(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    vlen: *mut usize,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    let (o, cf, k) = (&(*options).opts, &(*column_family).cf, bytes(key, klen));
    value_or_null(each!(txn, t => t.get_cf(o, cf, k)), vlen, errptr)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_get_pinned(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    key: *const c_char,
    klen: usize,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_pinnableslice_t {
    let (o, k) = (&(*options).opts, bytes(key, klen));
    let r = each!(txn, t => t.get(o, k));
    pinned_or_null(r.map(|v| v.map(PinnableValue::from)), errptr)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_get_pinned_cf(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    errptr: *mut *mut c_char,
) -> *mut rocksdb_pinnableslice_t {
    let (o, cf, k) = (&(*options).opts, &(*column_family).cf, bytes(key, klen));
    let r = each!(txn, t => t.get_cf(o, cf, k));
    pinned_or_null(r.map(|v| v.map(PinnableValue::from)), errptr)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_get_for_update_cf(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    vlen: *mut usize,
    exclusive: c_uchar,
    errptr: *mut *mut c_char,
) -> *mut c_char {
    let (o, cf, k) = (&(*options).opts, &(*column_family).cf, bytes(key, klen));
    let r = match &mut (*txn).txn {
        Txn::Pessimistic(t) => t.get_for_update_cf(o, cf, k, exclusive != 0),
        Txn::Optimistic(t) => t.get_for_update_cf(o, cf, k),
    };
    value_or_null(r, vlen, errptr)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_multi_get_cf(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    column_families: *const *const rocksdb_column_family_handle_t,
    num_keys: usize,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    values_list: *mut *mut c_char,
    values_list_sizes: *mut usize,
    errs: *mut *mut c_char,
) {
    let keys = key_slices(num_keys, keys_list, keys_list_sizes);
    let o = &(*options).opts;
    let results = (0..num_keys)
        .map(|i| {
            let cf = &(**column_families.add(i)).cf;
            each!(txn, t => t.get_cf(o, cf, keys[i]))
        })
        .collect();
    store_multi_get(results, values_list, values_list_sizes, errs);
}

/// `rocksdb_transaction_get_for_update` (exclusive) of each key, in order.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_multi_get_for_update(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    num_keys: usize,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    values_list: *mut *mut c_char,
    values_list_sizes: *mut usize,
    errs: *mut *mut c_char,
) {
    let keys = key_slices(num_keys, keys_list, keys_list_sizes);
    let o = &(*options).opts;
    let results = keys
        .iter()
        .map(|k| match &mut (*txn).txn {
            Txn::Pessimistic(t) => t.get_for_update(o, k, true),
            Txn::Optimistic(t) => t.get_for_update(o, k),
        })
        .collect();
    store_multi_get(results, values_list, values_list_sizes, errs);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_multi_get_for_update_cf(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    column_families: *const *const rocksdb_column_family_handle_t,
    num_keys: usize,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    values_list: *mut *mut c_char,
    values_list_sizes: *mut usize,
    errs: *mut *mut c_char,
) {
    let keys = key_slices(num_keys, keys_list, keys_list_sizes);
    let o = &(*options).opts;
    let results = (0..num_keys)
        .map(|i| {
            let cf = &(**column_families.add(i)).cf;
            match &mut (*txn).txn {
                Txn::Pessimistic(t) => t.get_for_update_cf(o, cf, keys[i], true),
                Txn::Optimistic(t) => t.get_for_update_cf(o, cf, keys[i]),
            }
        })
        .collect();
    store_multi_get(results, values_list, values_list_sizes, errs);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_transaction_create_iterator_cf(
    txn: *mut rocksdb_transaction_t,
    options: *const rocksdb_readoptions_t,
    column_family: *mut rocksdb_column_family_handle_t,
) -> *mut rocksdb_iterator_t {
    transaction_iterator(txn, options, &(*column_family).cf)
}
