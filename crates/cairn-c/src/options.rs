//! `rocksdb_options_*`: database and column-family options (RocksDB's `Options`), their setters
//! and getters, the helpers RocksDB offers on them, and `rocksdb_get_options_from_string`.

use std::ffi::{c_char, c_double, c_int, c_uchar, c_uint};
use std::sync::Arc;

use cairndb::options::{
    CompactionPri, CompactionStyle, InfoLogLevel, Options, ParseConfig, RateLimiter, RocksDbEnum,
    Statistics, WalRecoveryMode,
};
use cairndb::{CompressionType, Error, UInt64AddOperator};

use crate::callbacks::{
    rocksdb_compactionfilter_t, rocksdb_comparator_t, rocksdb_mergeoperator_t,
    rocksdb_slicetransform_t,
};
use crate::table_options::rocksdb_block_based_table_options_t;
use crate::util::{cstr, drop_raw, into_raw, malloc_cstring, ok_or_report, set_error};

/// RocksDB's `Options`: the database's and the default column family's options.
pub struct rocksdb_options_t {
    pub(crate) opts: Options,
    /// Setters given values outside their option's range (contract item 5), reported by the
    /// opens.
    invalid: Vec<String>,
}

impl rocksdb_options_t {
    fn new(opts: Options) -> Self {
        rocksdb_options_t {
            opts,
            invalid: Vec::new(),
        }
    }

    fn refuse(&mut self, setter: &str, value: impl std::fmt::Display) {
        self.invalid
            .push(format!("{setter}({value}): out of the option's range"));
    }

    fn refuse_because(&mut self, setter: &str, value: impl std::fmt::Display, why: &str) {
        self.invalid.push(format!("{setter}({value}): {why}"));
    }

    /// The options, or the first setter that was given a value out of range.
    pub(crate) fn checked(&self) -> cairndb::Result<Options> {
        match self.invalid.first() {
            Some(m) => Err(Error::InvalidArgument(m.clone())),
            None => Ok(self.opts.clone()),
        }
    }
}

#[no_mangle]
pub extern "C" fn rocksdb_options_create() -> *mut rocksdb_options_t {
    into_raw(rocksdb_options_t::new(Options::default()))
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_destroy(options: *mut rocksdb_options_t) {
    drop_raw(options);
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_create_copy(
    options: *mut rocksdb_options_t,
) -> *mut rocksdb_options_t {
    let o = &*options;
    into_raw(rocksdb_options_t {
        opts: o.opts.clone(),
        invalid: o.invalid.clone(),
    })
}

/// Setter and getter pairs of plain options. `bool` options take and give `unsigned char`;
/// numeric ones convert to the field's type and record a refusal when the value does not fit
/// (a negative count, say).
macro_rules! accessors {
    ($( $set:ident, $get:ident: bool => $($field:ident).+; )*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $set(opt: *mut rocksdb_options_t, v: c_uchar) {
            (*opt).opts.$($field).+ = v != 0;
        }
        #[no_mangle]
        pub unsafe extern "C" fn $get(opt: *mut rocksdb_options_t) -> c_uchar {
            c_uchar::from((*opt).opts.$($field).+)
        }
    )*};
    ($( $set:ident, $get:ident: $cty:ty => $($field:ident).+; )*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $set(opt: *mut rocksdb_options_t, v: $cty) {
            let o = &mut *opt;
            match v.try_into() {
                Ok(x) => o.opts.$($field).+ = x,
                Err(_) => o.refuse(stringify!($set), v),
            }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $get(opt: *mut rocksdb_options_t) -> $cty {
            (*opt).opts.$($field).+.try_into().unwrap_or(<$cty>::MAX)
        }
    )*};
}

accessors! {
    rocksdb_options_set_create_if_missing, rocksdb_options_get_create_if_missing: bool
        => db.create_if_missing;
    rocksdb_options_set_create_missing_column_families,
        rocksdb_options_get_create_missing_column_families: bool
        => db.create_missing_column_families;
    rocksdb_options_set_error_if_exists, rocksdb_options_get_error_if_exists: bool
        => db.error_if_exists;
    rocksdb_options_set_paranoid_checks, rocksdb_options_get_paranoid_checks: bool
        => db.paranoid_checks;
    rocksdb_options_set_level_compaction_dynamic_level_bytes,
        rocksdb_options_get_level_compaction_dynamic_level_bytes: bool
        => cf.level_compaction_dynamic_level_bytes;
    rocksdb_options_set_enable_pipelined_write, rocksdb_options_get_enable_pipelined_write: bool
        => db.enable_pipelined_write;
    rocksdb_options_set_allow_concurrent_memtable_write,
        rocksdb_options_get_allow_concurrent_memtable_write: bool
        => db.allow_concurrent_memtable_write;
    rocksdb_options_set_enable_write_thread_adaptive_yield,
        rocksdb_options_get_enable_write_thread_adaptive_yield: bool
        => db.enable_write_thread_adaptive_yield;
}

accessors! {
    rocksdb_options_set_max_open_files, rocksdb_options_get_max_open_files: c_int
        => db.max_open_files;
    rocksdb_options_set_table_cache_numshardbits, rocksdb_options_get_table_cache_numshardbits:
        c_int => db.table_cache_numshardbits;
    rocksdb_options_set_num_levels, rocksdb_options_get_num_levels: c_int => cf.num_levels;
    rocksdb_options_set_level0_file_num_compaction_trigger,
        rocksdb_options_get_level0_file_num_compaction_trigger: c_int
        => cf.level0_file_num_compaction_trigger;
    rocksdb_options_set_level0_slowdown_writes_trigger,
        rocksdb_options_get_level0_slowdown_writes_trigger: c_int
        => cf.level0_slowdown_writes_trigger;
    rocksdb_options_set_level0_stop_writes_trigger,
        rocksdb_options_get_level0_stop_writes_trigger: c_int => cf.level0_stop_writes_trigger;
    rocksdb_options_set_max_write_buffer_number, rocksdb_options_get_max_write_buffer_number:
        c_int => cf.max_write_buffer_number;
    rocksdb_options_set_min_write_buffer_number_to_merge,
        rocksdb_options_get_min_write_buffer_number_to_merge: c_int
        => cf.min_write_buffer_number_to_merge;
    rocksdb_options_set_max_background_jobs, rocksdb_options_get_max_background_jobs: c_int
        => db.max_background_jobs;
    rocksdb_options_set_target_file_size_multiplier,
        rocksdb_options_get_target_file_size_multiplier: c_int => cf.target_file_size_multiplier;
    rocksdb_options_set_max_subcompactions, rocksdb_options_get_max_subcompactions: u32
        => db.max_subcompactions;
    rocksdb_options_set_write_buffer_size, rocksdb_options_get_write_buffer_size: usize
        => cf.write_buffer_size;
    rocksdb_options_set_keep_log_file_num, rocksdb_options_get_keep_log_file_num: usize
        => db.keep_log_file_num;
    rocksdb_options_set_max_log_file_size, rocksdb_options_get_max_log_file_size: usize
        => db.max_log_file_size;
    rocksdb_options_set_recycle_log_file_num, rocksdb_options_get_recycle_log_file_num: usize
        => db.recycle_log_file_num;
    rocksdb_options_set_memtable_huge_page_size, rocksdb_options_get_memtable_huge_page_size:
        usize => cf.memtable_huge_page_size;
    rocksdb_options_set_soft_pending_compaction_bytes_limit,
        rocksdb_options_get_soft_pending_compaction_bytes_limit: usize
        => cf.soft_pending_compaction_bytes_limit;
    rocksdb_options_set_hard_pending_compaction_bytes_limit,
        rocksdb_options_get_hard_pending_compaction_bytes_limit: usize
        => cf.hard_pending_compaction_bytes_limit;
    rocksdb_options_set_max_manifest_file_size, rocksdb_options_get_max_manifest_file_size:
        usize => db.max_manifest_file_size;
    rocksdb_options_set_max_total_wal_size, rocksdb_options_get_max_total_wal_size: u64
        => db.max_total_wal_size;
    rocksdb_options_set_target_file_size_base, rocksdb_options_get_target_file_size_base: u64
        => cf.target_file_size_base;
    rocksdb_options_set_max_bytes_for_level_base, rocksdb_options_get_max_bytes_for_level_base:
        u64 => cf.max_bytes_for_level_base;
    rocksdb_options_set_ttl, rocksdb_options_get_ttl: u64 => cf.ttl;
    rocksdb_options_set_periodic_compaction_seconds,
        rocksdb_options_get_periodic_compaction_seconds: u64 => cf.periodic_compaction_seconds;
    rocksdb_options_set_bytes_per_sync, rocksdb_options_get_bytes_per_sync: u64
        => db.bytes_per_sync;
    rocksdb_options_set_wal_bytes_per_sync, rocksdb_options_get_wal_bytes_per_sync: u64
        => db.wal_bytes_per_sync;
    rocksdb_options_set_max_compaction_bytes, rocksdb_options_get_max_compaction_bytes: u64
        => cf.max_compaction_bytes;
    rocksdb_options_set_delayed_write_rate, rocksdb_options_get_delayed_write_rate: u64
        => db.delayed_write_rate;
    rocksdb_options_set_write_thread_max_yield_usec,
        rocksdb_options_get_write_thread_max_yield_usec: u64 => db.write_thread_max_yield_usec;
    rocksdb_options_set_write_thread_slow_yield_usec,
        rocksdb_options_get_write_thread_slow_yield_usec: u64
        => db.write_thread_slow_yield_usec;
    rocksdb_options_set_max_bytes_for_level_multiplier,
        rocksdb_options_get_max_bytes_for_level_multiplier: c_double
        => cf.max_bytes_for_level_multiplier;
    rocksdb_options_set_memtable_prefix_bloom_size_ratio,
        rocksdb_options_get_memtable_prefix_bloom_size_ratio: c_double
        => cf.memtable_prefix_bloom_size_ratio;
    rocksdb_options_set_stats_dump_period_sec, rocksdb_options_get_stats_dump_period_sec: c_uint
        => db.stats_dump_period_sec;
}

// RocksDB takes these two as `int` and gives them back as `unsigned char`.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_disable_auto_compactions(
    opt: *mut rocksdb_options_t,
    v: c_int,
) {
    (*opt).opts.cf.disable_auto_compactions = v != 0;
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_get_disable_auto_compactions(
    opt: *mut rocksdb_options_t,
) -> c_uchar {
    c_uchar::from((*opt).opts.cf.disable_auto_compactions)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_optimize_filters_for_hits(
    opt: *mut rocksdb_options_t,
    v: c_int,
) {
    (*opt).opts.cf.optimize_filters_for_hits = v != 0;
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_get_optimize_filters_for_hits(
    opt: *mut rocksdb_options_t,
) -> c_uchar {
    c_uchar::from((*opt).opts.cf.optimize_filters_for_hits)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_compaction_readahead_size(
    opt: *mut rocksdb_options_t,
    v: usize,
) {
    (*opt).opts.db.compaction_readahead_size = v as u64;
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_get_compaction_readahead_size(
    opt: *mut rocksdb_options_t,
) -> usize {
    usize::try_from((*opt).opts.db.compaction_readahead_size).unwrap_or(usize::MAX)
}

// ---- Enumerations, by RocksDB's numeric values (`rocksdb_*_compression` and the C++ enums). ----

/// RocksDB's compression numbers (`rocksdb_no_compression` = 0 ... `rocksdb_zstd_compression`
/// = 7) and what CairnDB has of them.
pub(crate) fn compression_from_c(v: c_int) -> Result<CompressionType, &'static str> {
    match v {
        0 => Ok(CompressionType::None),
        1 => Ok(CompressionType::Snappy),
        4 => Ok(CompressionType::Lz4),
        7 => Ok(CompressionType::Zstd),
        2 | 3 | 5 | 6 => Err("zlib, bzip2, LZ4HC and xpress compression are not supported"),
        _ => Err("not a compression type"),
    }
}

pub(crate) fn compression_to_c(c: CompressionType) -> c_int {
    match c {
        CompressionType::None => 0,
        CompressionType::Snappy => 1,
        CompressionType::Lz4 => 4,
        CompressionType::Zstd => 7,
    }
}

/// `names[v]` parsed as RocksDB spells it, for the C enums numbered in RocksDB's order.
fn enum_from_c<T: RocksDbEnum>(names: &[&str], v: c_int) -> Option<T> {
    let name = names.get(usize::try_from(v).ok()?)?;
    T::parse_rocksdb("", name).ok()
}

fn enum_to_c<T: RocksDbEnum>(names: &[&str], value: T) -> c_int {
    let name = value.rocksdb_name();
    names
        .iter()
        .position(|n| *n == name)
        .and_then(|i| c_int::try_from(i).ok())
        .unwrap_or(-1)
}

const COMPACTION_STYLES: &[&str] = &[
    "kCompactionStyleLevel",
    "kCompactionStyleUniversal",
    "kCompactionStyleFIFO",
];
const COMPACTION_PRIS: &[&str] = &[
    "kByCompensatedSize",
    "kOldestLargestSeqFirst",
    "kOldestSmallestSeqFirst",
    "kMinOverlappingRatio",
    "kRoundRobin",
];
const WAL_RECOVERY_MODES: &[&str] = &[
    "kTolerateCorruptedTailRecords",
    "kAbsoluteConsistency",
    "kPointInTimeRecovery",
    "kSkipAnyCorruptedRecords",
];
const INFO_LOG_LEVELS: &[&str] = &[
    "DEBUG_LEVEL",
    "INFO_LEVEL",
    "WARN_LEVEL",
    "ERROR_LEVEL",
    "FATAL_LEVEL",
    "HEADER_LEVEL",
];

macro_rules! enum_accessors {
    ($( $set:ident, $get:ident: $ty:ty, $names:expr => $($field:ident).+; )*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $set(opt: *mut rocksdb_options_t, v: c_int) {
            let o = &mut *opt;
            match enum_from_c::<$ty>($names, v) {
                Some(x) => o.opts.$($field).+ = x,
                None => o.refuse_because(stringify!($set), v, "not supported by CairnDB"),
            }
        }
        #[no_mangle]
        pub unsafe extern "C" fn $get(opt: *mut rocksdb_options_t) -> c_int {
            enum_to_c($names, (*opt).opts.$($field).+)
        }
    )*};
}

enum_accessors! {
    rocksdb_options_set_compaction_style, rocksdb_options_get_compaction_style:
        CompactionStyle, COMPACTION_STYLES => cf.compaction_style;
    rocksdb_options_set_compaction_pri, rocksdb_options_get_compaction_pri:
        CompactionPri, COMPACTION_PRIS => cf.compaction_pri;
    rocksdb_options_set_wal_recovery_mode, rocksdb_options_get_wal_recovery_mode:
        WalRecoveryMode, WAL_RECOVERY_MODES => db.wal_recovery_mode;
    rocksdb_options_set_info_log_level, rocksdb_options_get_info_log_level:
        InfoLogLevel, INFO_LOG_LEVELS => db.info_log_level;
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_compression(opt: *mut rocksdb_options_t, v: c_int) {
    let o = &mut *opt;
    match compression_from_c(v) {
        Ok(c) => o.opts.cf.compression = c,
        Err(why) => o.refuse_because("rocksdb_options_set_compression", v, why),
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_get_compression(opt: *mut rocksdb_options_t) -> c_int {
    compression_to_c((*opt).opts.cf.compression)
}

/// RocksDB's bottommost compression; `kDisableCompressionOption` (0xff) turns it off (the
/// bottom level then uses `compression` like the others).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_bottommost_compression(
    opt: *mut rocksdb_options_t,
    v: c_int,
) {
    let o = &mut *opt;
    if v == 0xff {
        o.opts.cf.bottommost_compression = None;
        return;
    }
    match compression_from_c(v) {
        Ok(c) => o.opts.cf.bottommost_compression = Some(c),
        Err(why) => o.refuse_because("rocksdb_options_set_bottommost_compression", v, why),
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_get_bottommost_compression(
    opt: *mut rocksdb_options_t,
) -> c_int {
    (*opt)
        .opts
        .cf
        .bottommost_compression
        .map_or(0xff, compression_to_c)
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_compression_per_level(
    opt: *mut rocksdb_options_t,
    level_values: *const c_int,
    num_levels: usize,
) {
    let o = &mut *opt;
    let values = if num_levels == 0 {
        &[][..]
    } else {
        std::slice::from_raw_parts(level_values, num_levels)
    };
    let mut levels = Vec::with_capacity(values.len());
    for &v in values {
        match compression_from_c(v) {
            Ok(c) => levels.push(c),
            Err(why) => {
                o.refuse_because("rocksdb_options_set_compression_per_level", v, why);
                return;
            }
        }
    }
    o.opts.cf.compression_per_level = levels;
}

// ---- Objects set on the options. ----

/// Borrows `cmp` (RocksDB's rule: the comparator must outlive every database opened with it).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_comparator(
    opt: *mut rocksdb_options_t,
    cmp: *mut rocksdb_comparator_t,
) {
    (*opt).opts.cf.comparator = (*cmp).key_order();
}

/// Takes ownership of `merge_operator` (do not destroy it afterwards), as RocksDB does.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_merge_operator(
    opt: *mut rocksdb_options_t,
    merge_operator: *mut rocksdb_mergeoperator_t,
) {
    if merge_operator.is_null() {
        (*opt).opts.cf.merge_operator = None;
        return;
    }
    let m = Box::from_raw(merge_operator);
    (*opt).opts.cf.merge_operator = Some(m.operator());
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_uint64add_merge_operator(opt: *mut rocksdb_options_t) {
    (*opt).opts.cf.merge_operator = Some(Arc::new(UInt64AddOperator));
}

/// Shares `filter` (RocksDB only borrows it: the caller destroys it after the databases using
/// it are closed, which is safe here too).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_compaction_filter(
    opt: *mut rocksdb_options_t,
    filter: *mut rocksdb_compactionfilter_t,
) {
    (*opt).opts.cf.compaction_filter = if filter.is_null() {
        None
    } else {
        Some((*filter).filter())
    };
}

/// Takes ownership of `prefix_extractor` (do not destroy it afterwards), as RocksDB does.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_prefix_extractor(
    opt: *mut rocksdb_options_t,
    prefix_extractor: *mut rocksdb_slicetransform_t,
) {
    if prefix_extractor.is_null() {
        (*opt).opts.cf.prefix_extractor = None;
        return;
    }
    let p = Box::from_raw(prefix_extractor);
    (*opt).opts.cf.prefix_extractor = Some(p.extractor());
}

/// Copies the table options (later changes to `table_options` do not reach these options).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_block_based_table_factory(
    opt: *mut rocksdb_options_t,
    table_options: *mut rocksdb_block_based_table_options_t,
) {
    if table_options.is_null() {
        return;
    }
    let o = &mut *opt;
    match (*table_options).table_options() {
        Ok(t) => o.opts.cf.table = t,
        Err(why) => o.invalid.push(why),
    }
}

/// RocksDB's `rocksdb_ratelimiter_t`: a shared byte-rate limiter for flush and compaction
/// writes.
pub struct rocksdb_ratelimiter_t {
    limiter: Result<Arc<RateLimiter>, String>,
}

/// A limiter of `rate_bytes_per_sec`, refilled every `refill_period_us`, with RocksDB's
/// `fairness`. Parameters out of range make every open with these options fail, naming them.
#[no_mangle]
pub extern "C" fn rocksdb_ratelimiter_create(
    rate_bytes_per_sec: i64,
    refill_period_us: i64,
    fairness: i32,
) -> *mut rocksdb_ratelimiter_t {
    let limiter = match (
        u64::try_from(rate_bytes_per_sec),
        u64::try_from(refill_period_us),
        u32::try_from(fairness),
    ) {
        (Ok(r), Ok(p), Ok(f)) => RateLimiter::new(r, p, f)
            .map(Arc::new)
            .map_err(|e| e.to_string()),
        _ => Err("negative rate, period or fairness".to_string()),
    };
    into_raw(rocksdb_ratelimiter_t { limiter })
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_ratelimiter_destroy(limiter: *mut rocksdb_ratelimiter_t) {
    drop_raw(limiter);
}

/// Shares `limiter` (it may be destroyed afterwards, as in RocksDB); NULL changes nothing.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_set_ratelimiter(
    opt: *mut rocksdb_options_t,
    limiter: *mut rocksdb_ratelimiter_t,
) {
    let o = &mut *opt;
    if limiter.is_null() {
        // RocksDB ignores a NULL limiter.
        return;
    }
    match &(*limiter).limiter {
        Ok(l) => o.opts.db.rate_limiter = Some(Arc::clone(l)),
        Err(why) => o.refuse_because("rocksdb_ratelimiter_create", "...", why),
    }
}

#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_enable_statistics(opt: *mut rocksdb_options_t) {
    (*opt).opts.db.statistics = Some(Arc::new(Statistics::new()));
}

/// RocksDB's `Statistics::ToString()` of the options' statistics (`malloc`ed), or NULL when
/// statistics are off.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_statistics_get_string(
    opt: *mut rocksdb_options_t,
) -> *mut c_char {
    match &(*opt).opts.db.statistics {
        Some(s) => malloc_cstring(&s.to_string()),
        None => std::ptr::null_mut(),
    }
}

/// RocksDB's `IncreaseParallelism`: `total_threads` background jobs (RocksDB also sizes its
/// thread pools; CairnDB's pool follows `max_background_jobs`).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_increase_parallelism(
    opt: *mut rocksdb_options_t,
    total_threads: c_int,
) {
    let o = &mut *opt;
    match u32::try_from(total_threads) {
        Ok(n) if n > 0 => o.opts.db.max_background_jobs = n,
        _ => o.refuse("rocksdb_options_increase_parallelism", total_threads),
    }
}

/// RocksDB's `OptimizeLevelStyleCompaction(memtable_memory_budget)`
/// ([`cairndb::options::CfOptions::optimize_level_style_compaction`]).
#[no_mangle]
pub unsafe extern "C" fn rocksdb_options_optimize_level_style_compaction(
    opt: *mut rocksdb_options_t,
    memtable_memory_budget: u64,
) {
    (*opt)
        .opts
        .cf
        .optimize_level_style_compaction(memtable_memory_budget);
}

/// Parses RocksDB option string `opts_str` on top of `base_options` into `new_options`
/// (RocksDB's `GetOptionsFromString`). On error `new_options` is unchanged.
#[no_mangle]
pub unsafe extern "C" fn rocksdb_get_options_from_string(
    base_options: *const rocksdb_options_t,
    opts_str: *const c_char,
    new_options: *mut rocksdb_options_t,
    errptr: *mut *mut c_char,
) {
    let s = match cstr(opts_str, "the option string") {
        Ok(s) => s,
        Err(e) => return set_error(errptr, &e),
    };
    // `base_options` and `new_options` may be the same object: read everything first.
    let mut opts = (*base_options).opts.clone();
    let invalid = (*base_options).invalid.clone();
    if ok_or_report(
        opts.apply_options_string(s, &ParseConfig::default()),
        errptr,
    )
    .is_some()
    {
        let n = &mut *new_options;
        n.opts = opts;
        n.invalid = invalid;
    }
}
