//! `rocksdb_block_based_options_*` (RocksDB's `BlockBasedTableOptions`), block caches
//! (`rocksdb_cache_*`) and Bloom filter policies (`rocksdb_filterpolicy_*`).

use std::ffi::{c_char, c_double, c_int, c_uchar};
use std::sync::Arc;

use cairndb::cache::{CacheOptions, CachePolicy};
use cairndb::options::TableOptions;
use cairndb::sstable::BlockCache;
use cairndb::util::checksum::ChecksumType;

use crate::util::{drop_raw, into_raw};

/// The cache RocksDB's table factory makes when none is set: 32 MiB.
const DEFAULT_CACHE_BYTES: usize = 32 << 20;

/// RocksDB's `BlockBasedTableOptions`. Defaults are CairnDB's table defaults
/// (`docs/design/options.md`), except the block cache, which is RocksDB's: a 32 MiB cache
/// unless one is set or `no_block_cache` is 1.
pub struct rocksdb_block_based_table_options_t {
    table: TableOptions,
    no_block_cache: bool,
    /// Setters given values CairnDB refuses; reported by the opens of options built from these.
    invalid: Vec<String>,
}

impl rocksdb_block_based_table_options_t {
    /// The table options, or the first refused setter.
    pub(crate) fn table_options(&self) -> Result<TableOptions, String> {
        if let Some(m) = self.invalid.first() {
            return Err(m.clone());
        }
        let mut t = self.table.clone();
        if self.no_block_cache {
            t.block_cache = None;
        } else if t.block_cache.is_none() {
            t.block_cache = Some(Arc::new(BlockCache::new(CacheOptions::with_capacity(
                DEFAULT_CACHE_BYTES,
            ))));
        }
        Ok(t)
    }

    fn refuse(&mut self, setter: &str, value: impl std::fmt::Display, why: &str) {
        self.invalid.push(format!("{setter}({value}): {why}"));
    }
}

#[no_mangle]
pub extern "C" fn rocksdb_block_based_options_create() -> *mut rocksdb_block_based_table_options_t {
    into_raw(rocksdb_block_based_table_options_t {
        table: TableOptions::default(),
        no_block_cache: false,
        invalid: Vec::new(),
    })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_block_based_options_destroy(
    options: *mut rocksdb_block_based_table_options_t,
) {
    drop_raw(options);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_block_based_options_set_block_size(
    opt: *mut rocksdb_block_based_table_options_t,
    v: usize,
) {
    (*opt).table.block_size = v;
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_block_based_options_get_block_size(
    opt: *mut rocksdb_block_based_table_options_t,
) -> u64 {
    (*opt).table.block_size as u64
}

macro_rules! int_accessors {
    ($( $set:ident, $get:ident => $field:ident; )*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $set(opt: *mut rocksdb_block_based_table_options_t, v: c_int) {
            let o = &mut *opt;
            match usize::try_from(v) {
                Ok(x) => o.table.$field = x,
                Err(_) => o.refuse(stringify!($set), v, "negative"),
            }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $get(opt: *mut rocksdb_block_based_table_options_t) -> c_int {
            c_int::try_from((*opt).table.$field).unwrap_or(c_int::MAX)
        }
    )*};
}

int_accessors! {
    rocksdb_block_based_options_set_block_restart_interval,
        rocksdb_block_based_options_get_block_restart_interval => block_restart_interval;
    rocksdb_block_based_options_set_index_block_restart_interval,
        rocksdb_block_based_options_get_index_block_restart_interval
        => index_block_restart_interval;
}

macro_rules! bool_accessors {
    ($( $set:ident, $get:ident => $field:ident; )*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $set(opt: *mut rocksdb_block_based_table_options_t, v: c_uchar) {
            (*opt).table.$field = v != 0;
        }
        #[no_mangle]
        pub unsafe extern "C" fn $get(opt: *mut rocksdb_block_based_table_options_t) -> c_uchar {
            c_uchar::from((*opt).table.$field)
        }
    )*};
}

bool_accessors! {
    rocksdb_block_based_options_set_whole_key_filtering,
        rocksdb_block_based_options_get_whole_key_filtering => whole_key_filtering;
    rocksdb_block_based_options_set_cache_index_and_filter_blocks,
        rocksdb_block_based_options_get_cache_index_and_filter_blocks
        => cache_index_and_filter_blocks;
}

/// RocksDB's checksum numbers: 1 is `kCRC32c`, 4 is `kXXH3`; CairnDB has no other.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_block_based_options_set_checksum(
    opt: *mut rocksdb_block_based_table_options_t,
    v: c_char,
) {
    let o = &mut *opt;
    match v {
        1 => o.table.checksum = ChecksumType::Crc32c,
        4 => o.table.checksum = ChecksumType::Xxh3,
        _ => o.refuse(
            "rocksdb_block_based_options_set_checksum",
            v,
            "only kCRC32c (1) and kXXH3 (4) are supported",
        ),
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_block_based_options_get_checksum(
    opt: *mut rocksdb_block_based_table_options_t,
) -> c_int {
    match (*opt).table.checksum {
        ChecksumType::Crc32c => 1,
        ChecksumType::Xxh3 => 4,
    }
}

/// `1`: no block cache (every data-block read goes to the file), whatever cache is set. `0`
/// (the default): the cache set with `rocksdb_block_based_options_set_block_cache`, or, as in
/// RocksDB, a new 32 MiB cache (clock eviction, like RocksDB's default HyperClockCache) when
/// none is set.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_block_based_options_set_no_block_cache(
    opt: *mut rocksdb_block_based_table_options_t,
    v: c_uchar,
) {
    (*opt).no_block_cache = v != 0;
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_block_based_options_get_no_block_cache(
    opt: *mut rocksdb_block_based_table_options_t,
) -> c_uchar {
    c_uchar::from((*opt).no_block_cache)
}

/// Shares `block_cache` (the caller still destroys its handle, as in RocksDB); NULL changes
/// nothing.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_block_based_options_set_block_cache(
    opt: *mut rocksdb_block_based_table_options_t,
    block_cache: *mut rocksdb_cache_t,
) {
    // RocksDB ignores a NULL cache.
    if !block_cache.is_null() {
        (*opt).table.block_cache = Some(Arc::clone(&(*block_cache).cache));
    }
}

/// A Bloom filter policy: bits per key.
pub struct rocksdb_filterpolicy_t {
    bits_per_key: c_double,
}

/// A Bloom filter of `bits_per_key` (RocksDB's `NewBloomFilterPolicy`; since RocksDB 7 its
/// "bloom" and "bloom_full" both build full filters, as CairnDB does).
#[no_mangle]
pub extern "C" fn rocksdb_filterpolicy_create_bloom(
    bits_per_key: c_double,
) -> *mut rocksdb_filterpolicy_t {
    into_raw(rocksdb_filterpolicy_t { bits_per_key })
}

#[no_mangle]
pub extern "C" fn rocksdb_filterpolicy_create_bloom_full(
    bits_per_key: c_double,
) -> *mut rocksdb_filterpolicy_t {
    into_raw(rocksdb_filterpolicy_t { bits_per_key })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_filterpolicy_destroy(policy: *mut rocksdb_filterpolicy_t) {
    drop_raw(policy);
}

/// Takes ownership of `filter_policy` (do not destroy it afterwards), as RocksDB does. NULL
/// removes the filter.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_block_based_options_set_filter_policy(
    opt: *mut rocksdb_block_based_table_options_t,
    filter_policy: *mut rocksdb_filterpolicy_t,
) {
    let o = &mut *opt;
    if filter_policy.is_null() {
        o.table.bloom_bits_per_key = 0.0;
        return;
    }
    let p = Box::from_raw(filter_policy);
    o.table.bloom_bits_per_key = p.bits_per_key;
}

/// A block cache shared by the tables of every database and column family given it.
pub struct rocksdb_cache_t {
    cache: Arc<BlockCache>,
}

fn new_cache(capacity: usize, strict: bool) -> *mut rocksdb_cache_t {
    let mut o = CacheOptions::with_capacity(capacity);
    o.policy = CachePolicy::Lru;
    o.strict_capacity_limit = strict;
    into_raw(rocksdb_cache_t {
        cache: Arc::new(BlockCache::new(o)),
    })
}

/// An LRU cache of `capacity` bytes (RocksDB's `NewLRUCache`, default shard count).
#[no_mangle]
pub extern "C" fn rocksdb_cache_create_lru(capacity: usize) -> *mut rocksdb_cache_t {
    new_cache(capacity, false)
}

/// An LRU cache that refuses inserts (the read then fails with `Incomplete`/busy) rather than
/// exceed `capacity` when pinned blocks fill it.
#[no_mangle]
pub extern "C" fn rocksdb_cache_create_lru_with_strict_capacity_limit(
    capacity: usize,
) -> *mut rocksdb_cache_t {
    new_cache(capacity, true)
}

/// Releases the caller's handle; databases using the cache keep it alive.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_cache_destroy(cache: *mut rocksdb_cache_t) {
    drop_raw(cache);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_cache_get_capacity(cache: *const rocksdb_cache_t) -> usize {
    (*cache).cache.capacity()
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_cache_get_usage(cache: *const rocksdb_cache_t) -> usize {
    (*cache).cache.usage()
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_cache_get_pinned_usage(cache: *const rocksdb_cache_t) -> usize {
    (*cache).cache.pinned_usage()
}
