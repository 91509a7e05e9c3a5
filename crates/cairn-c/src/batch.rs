//! `rocksdb_writebatch_*`: building write batches. RocksDB's batch calls return nothing, so a
//! record refused (a key over 8 MiB, a batch past its `max_bytes`) is remembered and the batch's
//! writes fail with that error: a refused record never leaves the rest to be applied without it.
//!
//! Batches made with `rocksdb_writebatch_create_with_params(.., protection_bytes_per_key = 8,
//! ..)` keep an 8-byte checksum of each record (its family, kind, key and value) taken when the
//! record is added; `rocksdb_writebatch_verify_checksum` and every write of the batch check the
//! records against them, so damage to the batch in memory between building and writing is
//! reported as `Corruption` instead of written (RocksDB's per-key protection).

use std::ffi::{c_char, c_int, c_void};

use cairndb::{Error, ValueKind, WriteBatch};
use xxhash_rust::xxh3::xxh3_64;

use crate::column_family::rocksdb_column_family_handle_t;
use crate::util::{bytes, drop_raw, into_raw, ok_or_report, out_slice};

/// A write batch. Not thread-safe; a write copies it, so it can be reused.
pub struct rocksdb_writebatch_t {
    pub(crate) batch: WriteBatch,
    /// The first refused record (or bad representation, or unsupported creation parameter),
    /// reported by the writes of this batch, with the number of user save points open when it
    /// happened: rolling back past that point forgets it.
    pub(crate) refused: Option<(Error, usize)>,
    /// User save points open.
    depth: usize,
    /// The batch refuses a record that would take its size past this many bytes (0: no limit).
    max_bytes: usize,
    /// One checksum per record, when the batch is protected.
    protection: Option<Vec<u64>>,
}

/// The checksum protecting one record.
fn record_checksum(cf: u32, kind: ValueKind, key: &[u8], value: &[u8]) -> u64 {
    let mut buf = Vec::with_capacity(13 + key.len() + value.len());
    buf.extend_from_slice(&cf.to_le_bytes());
    buf.push(kind as u8);
    buf.extend_from_slice(&(key.len() as u64).to_le_bytes());
    buf.extend_from_slice(key);
    buf.extend_from_slice(value);
    xxh3_64(&buf)
}

impl rocksdb_writebatch_t {
    fn new(batch: WriteBatch) -> Self {
        rocksdb_writebatch_t {
            batch,
            refused: None,
            depth: 0,
            max_bytes: 0,
            protection: None,
        }
    }

    /// Appends one record (all or nothing), or remembers why it was refused.
    fn add(&mut self, cf: u32, kind: ValueKind, key: &[u8], value: &[u8]) {
        let limited = self.max_bytes != 0;
        if limited {
            self.batch.set_save_point();
        }
        let r = match kind {
            ValueKind::Put => self.batch.put_cf(cf, key, value),
            ValueKind::Delete => self.batch.delete_cf(cf, key),
            ValueKind::SingleDelete => self.batch.single_delete_cf(cf, key),
            ValueKind::Merge => self.batch.merge_cf(cf, key, value),
            ValueKind::RangeDelete => self.batch.delete_range_cf(cf, key, value),
        };
        let r = r.and_then(|()| {
            if limited && self.batch.data_size() > self.max_bytes {
                Err(Error::InvalidArgument(format!(
                    "the write batch would exceed its max_bytes ({})",
                    self.max_bytes
                )))
            } else {
                Ok(())
            }
        });
        if limited {
            // The save point taken above: dropped on success, rolled back to on refusal.
            let undo = if r.is_ok() {
                self.batch.pop_save_point()
            } else {
                self.batch.rollback_to_save_point()
            };
            debug_assert!(undo.is_ok(), "the save point taken above is there");
        }
        match r {
            Ok(()) => {
                if let Some(p) = &mut self.protection {
                    p.push(record_checksum(cf, kind, key, value));
                }
            }
            Err(e) => {
                self.refused.get_or_insert((e, self.depth));
            }
        }
    }

    /// Checks every record against its checksum, when the batch is protected.
    fn verify(&self) -> cairndb::Result<()> {
        let Some(p) = &self.protection else {
            return Ok(());
        };
        let mut n = 0;
        for (i, entry) in self.batch.iter().enumerate() {
            let e = entry?;
            if p.get(i) != Some(&record_checksum(e.cf, e.kind, e.key, e.value)) {
                return Err(Error::corruption(
                    "",
                    0,
                    format!("write batch record {i} does not match its protection checksum"),
                ));
            }
            n += 1;
        }
        if n != p.len() {
            return Err(Error::corruption(
                "",
                0,
                "write batch holds another number of records than it protected",
            ));
        }
        Ok(())
    }

    /// The batch to write, or the error that made it unwritable.
    pub(crate) fn to_write(&self) -> cairndb::Result<WriteBatch> {
        if let Some((e, _)) = &self.refused {
            // The refusal's own kind: a damaged representation stays `Corruption`.
            return Err(match e {
                Error::Corruption(_) | Error::NotSupported(_) => e.clone(),
                _ => Error::InvalidArgument(format!("the write batch refused a record: {e}")),
            });
        }
        self.verify()?;
        Ok(self.batch.clone())
    }
}

#[no_mangle]
pub extern "C" fn rocksdb_writebatch_create() -> *mut rocksdb_writebatch_t {
    into_raw(rocksdb_writebatch_t::new(WriteBatch::new()))
}

/// A batch with room for `reserved_bytes`, refusing records past `max_bytes` (0: no limit),
/// with per-record checksums when `protection_bytes_per_key` is 8 (0: none; RocksDB accepts
/// only these two). User-defined timestamps (`default_cf_ts_sz` other than 0) are not
/// supported: such a batch refuses every write.
#[no_mangle]
pub extern "C" fn rocksdb_writebatch_create_with_params(
    reserved_bytes: usize,
    max_bytes: usize,
    protection_bytes_per_key: usize,
    default_cf_ts_sz: usize,
) -> *mut rocksdb_writebatch_t {
    let mut b = rocksdb_writebatch_t::new(WriteBatch::with_capacity(reserved_bytes));
    b.max_bytes = max_bytes;
    match protection_bytes_per_key {
        0 => {}
        8 => b.protection = Some(Vec::new()),
        n => {
            b.refused = Some((
                Error::NotSupported(format!(
                    "protection_bytes_per_key {n} (only 0 and 8 are supported)"
                )),
                0,
            ))
        }
    }
    if default_cf_ts_sz != 0 {
        b.refused = Some((
            Error::NotSupported("user-defined timestamps (default_cf_ts_sz)".into()),
            0,
        ));
    }
    into_raw(b)
}

/// A batch from the representation `rocksdb_writebatch_data` gave. A damaged representation
/// makes an empty batch whose writes fail with the `Corruption` found.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_create_from(
    rep: *const c_char,
    size: usize,
) -> *mut rocksdb_writebatch_t {
    let mut b = rocksdb_writebatch_t::new(WriteBatch::new());
    match WriteBatch::from_bytes(bytes(rep, size).to_vec()) {
        Ok(batch) => b.batch = batch,
        Err(e) => b.refused = Some((e, 0)),
    }
    into_raw(b)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_destroy(b: *mut rocksdb_writebatch_t) {
    drop_raw(b);
}

/// Removes every record and save point, and forgets a refused record (but not a refused
/// creation parameter).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_clear(b: *mut rocksdb_writebatch_t) {
    let b = &mut *b;
    b.batch.clear();
    b.depth = 0;
    if matches!(
        b.refused,
        Some((Error::InvalidArgument(_), _)) | Some((Error::Corruption(_), _))
    ) {
        b.refused = None;
    }
    if let Some(p) = &mut b.protection {
        p.clear();
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_count(b: *mut rocksdb_writebatch_t) -> c_int {
    c_int::try_from((*b).batch.count()).unwrap_or(c_int::MAX)
}

/// Checks each record against the checksum taken when it was added (protected batches only;
/// an unprotected batch has nothing to check). `Corruption` on a mismatch.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_verify_checksum(
    b: *mut rocksdb_writebatch_t,
    errptr: *mut *mut c_char,
) {
    ok_or_report((*b).verify(), errptr);
}

unsafe fn family(cf: *mut rocksdb_column_family_handle_t) -> u32 {
    (*cf).cf.id()
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_put(
    b: *mut rocksdb_writebatch_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
) {
    (*b).add(0, ValueKind::Put, bytes(key, klen), bytes(val, vlen));
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_put_cf(
    b: *mut rocksdb_writebatch_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
) {
    (*b).add(
        family(column_family),
        ValueKind::Put,
        bytes(key, klen),
        bytes(val, vlen),
    );
}

/// The concatenation of the `n` slices `(list[i], sizes[i])` (RocksDB's `SliceParts`).
unsafe fn concat(n: c_int, list: *const *const c_char, sizes: *const usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..usize::try_from(n).unwrap_or(0) {
        out.extend_from_slice(bytes(*list.add(i), *sizes.add(i)));
    }
    out
}

/// Puts one record whose key and value are the concatenations of the given parts.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_putv(
    b: *mut rocksdb_writebatch_t,
    num_keys: c_int,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    num_values: c_int,
    values_list: *const *const c_char,
    values_list_sizes: *const usize,
) {
    let k = concat(num_keys, keys_list, keys_list_sizes);
    let v = concat(num_values, values_list, values_list_sizes);
    (*b).add(0, ValueKind::Put, &k, &v);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_putv_cf(
    b: *mut rocksdb_writebatch_t,
    column_family: *mut rocksdb_column_family_handle_t,
    num_keys: c_int,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
    num_values: c_int,
    values_list: *const *const c_char,
    values_list_sizes: *const usize,
) {
    let k = concat(num_keys, keys_list, keys_list_sizes);
    let v = concat(num_values, values_list, values_list_sizes);
    (*b).add(family(column_family), ValueKind::Put, &k, &v);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_merge(
    b: *mut rocksdb_writebatch_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
) {
    (*b).add(0, ValueKind::Merge, bytes(key, klen), bytes(val, vlen));
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_merge_cf(
    b: *mut rocksdb_writebatch_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
    val: *const c_char,
    vlen: usize,
) {
    (*b).add(
        family(column_family),
        ValueKind::Merge,
        bytes(key, klen),
        bytes(val, vlen),
    );
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_delete(
    b: *mut rocksdb_writebatch_t,
    key: *const c_char,
    klen: usize,
) {
    (*b).add(0, ValueKind::Delete, bytes(key, klen), &[]);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_delete_cf(
    b: *mut rocksdb_writebatch_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
) {
    (*b).add(
        family(column_family),
        ValueKind::Delete,
        bytes(key, klen),
        &[],
    );
}

/// Deletes one key: the concatenation of the given parts.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_deletev(
    b: *mut rocksdb_writebatch_t,
    num_keys: c_int,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
) {
    let k = concat(num_keys, keys_list, keys_list_sizes);
    (*b).add(0, ValueKind::Delete, &k, &[]);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_deletev_cf(
    b: *mut rocksdb_writebatch_t,
    column_family: *mut rocksdb_column_family_handle_t,
    num_keys: c_int,
    keys_list: *const *const c_char,
    keys_list_sizes: *const usize,
) {
    let k = concat(num_keys, keys_list, keys_list_sizes);
    (*b).add(family(column_family), ValueKind::Delete, &k, &[]);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_singledelete(
    b: *mut rocksdb_writebatch_t,
    key: *const c_char,
    klen: usize,
) {
    (*b).add(0, ValueKind::SingleDelete, bytes(key, klen), &[]);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_singledelete_cf(
    b: *mut rocksdb_writebatch_t,
    column_family: *mut rocksdb_column_family_handle_t,
    key: *const c_char,
    klen: usize,
) {
    (*b).add(
        family(column_family),
        ValueKind::SingleDelete,
        bytes(key, klen),
        &[],
    );
}

/// Deletes every key in `[start_key, end_key)`.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_delete_range(
    b: *mut rocksdb_writebatch_t,
    start_key: *const c_char,
    start_key_len: usize,
    end_key: *const c_char,
    end_key_len: usize,
) {
    let (s, e) = (bytes(start_key, start_key_len), bytes(end_key, end_key_len));
    (*b).add(0, ValueKind::RangeDelete, s, e);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_delete_range_cf(
    b: *mut rocksdb_writebatch_t,
    column_family: *mut rocksdb_column_family_handle_t,
    start_key: *const c_char,
    start_key_len: usize,
    end_key: *const c_char,
    end_key_len: usize,
) {
    let (s, e) = (bytes(start_key, start_key_len), bytes(end_key, end_key_len));
    (*b).add(family(column_family), ValueKind::RangeDelete, s, e);
}

/// Deletes one range: `[start, end)` with each bound the concatenation of its parts (RocksDB's
/// `DeleteRange(SliceParts, SliceParts)`; `num_keys` parts for each bound).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_delete_rangev(
    b: *mut rocksdb_writebatch_t,
    num_keys: c_int,
    start_keys_list: *const *const c_char,
    start_keys_list_sizes: *const usize,
    end_keys_list: *const *const c_char,
    end_keys_list_sizes: *const usize,
) {
    let s = concat(num_keys, start_keys_list, start_keys_list_sizes);
    let e = concat(num_keys, end_keys_list, end_keys_list_sizes);
    (*b).add(0, ValueKind::RangeDelete, &s, &e);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_delete_rangev_cf(
    b: *mut rocksdb_writebatch_t,
    column_family: *mut rocksdb_column_family_handle_t,
    num_keys: c_int,
    start_keys_list: *const *const c_char,
    start_keys_list_sizes: *const usize,
    end_keys_list: *const *const c_char,
    end_keys_list_sizes: *const usize,
) {
    let s = concat(num_keys, start_keys_list, start_keys_list_sizes);
    let e = concat(num_keys, end_keys_list, end_keys_list_sizes);
    (*b).add(family(column_family), ValueKind::RangeDelete, &s, &e);
}

type PutFn = unsafe extern "C" fn(*mut c_void, *const c_char, usize, *const c_char, usize);
type DeletedFn = unsafe extern "C" fn(*mut c_void, *const c_char, usize);

/// Calls `put` for each put and `deleted` for each deletion of the default column family, in
/// order (a NULL callback is not called). As RocksDB's handler does, single deletions and
/// merges are passed over, and the walk stops at the first range deletion or record of another
/// column family.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_iterate(
    b: *mut rocksdb_writebatch_t,
    state: *mut c_void,
    put: Option<PutFn>,
    deleted: Option<DeletedFn>,
) {
    for entry in (*b).batch.iter() {
        let Ok(e) = entry else { return };
        if e.cf != 0 {
            return;
        }
        match e.kind {
            ValueKind::Put => {
                if let Some(put) = put {
                    put(
                        state,
                        e.key.as_ptr().cast(),
                        e.key.len(),
                        e.value.as_ptr().cast(),
                        e.value.len(),
                    );
                }
            }
            ValueKind::Delete => {
                if let Some(deleted) = deleted {
                    deleted(state, e.key.as_ptr().cast(), e.key.len());
                }
            }
            ValueKind::SingleDelete | ValueKind::Merge => {}
            ValueKind::RangeDelete => return,
        }
    }
}

/// The batch's representation (RocksDB's layout, `docs/format/write_batch.md`), valid until
/// the batch changes.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_data(
    b: *mut rocksdb_writebatch_t,
    size: *mut usize,
) -> *const c_char {
    out_slice((*b).batch.data(), size)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_set_save_point(b: *mut rocksdb_writebatch_t) {
    (*b).batch.set_save_point();
    (*b).depth += 1;
}

/// Removes the records added since the last save point, and forgets a record refused since
/// then; `NotFound` when there is none.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_rollback_to_save_point(
    b: *mut rocksdb_writebatch_t,
    errptr: *mut *mut c_char,
) {
    let b = &mut *b;
    if ok_or_report(b.batch.rollback_to_save_point(), errptr).is_some() {
        b.depth -= 1;
        let count = b.batch.count() as usize;
        if let Some(p) = &mut b.protection {
            p.truncate(count);
        }
        if matches!(b.refused, Some((Error::InvalidArgument(_), at)) if at > b.depth) {
            b.refused = None;
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_writebatch_pop_save_point(
    b: *mut rocksdb_writebatch_t,
    errptr: *mut *mut c_char,
) {
    if ok_or_report((*b).batch.pop_save_point(), errptr).is_some() {
        (*b).depth -= 1;
        // A refusal inside the popped save point now belongs to the enclosing one.
        if let Some((_, at)) = &mut (*b).refused {
            *at = (*at).min((*b).depth);
        }
    }
}
