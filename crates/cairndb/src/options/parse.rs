//! RocksDB option strings read and applied: `name=value;name=value;nested={name=value}` (the
//! printers that write them are in `print.rs`).
//!
//! Grammar, as RocksDB's `StringToMap` reads it: pairs separated by `;` (a trailing `;` is
//! fine); names and values trimmed of white space; a value that starts with `{` runs to its
//! matching `}` (braces nest) and is itself an option string. Values:
//! - sizes and counts: decimal digits with an optional `k`/`m`/`g`/`t` suffix (powers of 1024);
//!   unlike RocksDB, which ignores trailing garbage, anything else after the digits is an error;
//! - booleans: `true`, `false`, `1`, `0` (exactly, as RocksDB);
//! - enums: RocksDB's spelling (`kMinOverlappingRatio`, `kLZ4Compression`);
//! - `prefix_extractor`: `capped:N`, `fixed:N`, `rocksdb.CappedPrefix.N`, `rocksdb.FixedPrefix.N`,
//!   or `nullptr`;
//! - `filter_policy`: `bloomfilter:BITS[:USE_BLOCK_BASED]` or `nullptr` (RocksDB >= 7 builds a
//!   full filter whatever USE_BLOCK_BASED says, and so does CairnDB);
//! - `compression_per_level`: compression names separated by `:`;
//! - `bloom_bits_per_key_per_level`: numbers separated by `:` (a CairnDB option).
//!
//! Invariants:
//! 1. Parsing works on a copy; the caller's options change only when the whole string parsed.
//! 2. An option that is not applied is an error naming it (nested ones as `outer.inner`), or,
//!    with [`ParseConfig::ignore_unknown_options`], a [`ParseWarning`]. Bad values of known
//!    options are always errors, as in RocksDB.
//! 3. The printers emit exactly the names the setters accept, with values the value parsers read
//!    back to the same value (floats in Rust's shortest round-trip form).

use std::fmt;
use std::sync::Arc;

use super::print::{cf_pairs, db_pairs, join};
use super::{CfOptions, DbOptions, Options, RocksDbEnum, TableOptions};
use crate::cache::CacheOptions;
use crate::compaction::deletion_collector::CompactOnDeletion;
use crate::compaction::picker_fifo::FifoOptions;
use crate::compaction::picker_universal::UniversalOptions;
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::sstable::{BlockCache, CappedPrefix, FixedPrefix, PrefixExtractor};
use crate::types::CompressionType;
use crate::util::checksum::ChecksumType;

/// How an option string is applied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseConfig {
    /// Report unknown and unsupported option names as [`ParseWarning`]s instead of failing.
    /// Default false. RocksDB's `ConfigOptions::ignore_unknown_options`; useful to read an option
    /// string written for RocksDB, where options CairnDB lacks should not stop the program.
    pub ignore_unknown_options: bool,
}

/// An option that was skipped because [`ParseConfig::ignore_unknown_options`] was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseWarning {
    /// The option's name; nested options as `outer.inner`.
    pub option: String,
    /// Why it was skipped.
    pub message: String,
}

impl fmt::Display for ParseWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option {} ignored: {}", self.option, self.message)
    }
}

/// RocksDB options CairnDB knows of but does not honour yet. They get a clearer message than an
/// unknown name (a typo); `docs/design/options.md` lists them too.
pub(crate) const UNSUPPORTED_ROCKSDB_OPTIONS: &[&str] = &[
    // Database options.
    "max_background_compactions",
    "max_background_flushes",
    "use_direct_reads",
    "use_direct_io_for_flush_and_compaction",
    "allow_mmap_reads",
    "allow_mmap_writes",
    "use_fsync",
    "db_write_buffer_size",
    "write_buffer_manager",
    "rate_limiter",
    "wal_dir",
    "db_log_dir",
    "WAL_ttl_seconds",
    "WAL_size_limit_MB",
    "manual_wal_flush",
    "two_write_queues",
    "atomic_flush",
    "avoid_flush_during_recovery",
    "avoid_flush_during_shutdown",
    "strict_bytes_per_sync",
    "max_file_opening_threads",
    "skip_stats_update_on_db_open",
    "statistics",
    "row_cache",
    "persist_stats_to_disk",
    "stats_persist_period_sec",
    // Column-family options.
    "merge_operator",
    "compaction_filter",
    "compaction_filter_factory",
    "table_properties_collectors",
    "memtable_factory",
    "memtable_whole_key_filtering",
    "arena_block_size",
    "max_bytes_for_level_multiplier_additional",
    "bottommost_compression_opts",
    "inplace_update_support",
    "max_sequential_skip_in_iterations",
    "bloom_locality",
    "report_bg_io_stats",
    "sample_for_compression",
    "enable_blob_files",
    "min_blob_size",
    "blob_file_size",
    "blob_compression_type",
    "max_write_buffer_size_to_maintain",
    // Universal and FIFO options not built.
    "compression_size_percent",
    "stop_style",
    "allow_trivial_move",
    "incremental",
    "max_read_amp",
    "reduce_file_locking",
    "age_for_warm",
    "file_temperature_age_thresholds",
    "max_data_files_size",
    "use_kv_ratio_compaction",
    "allow_trivial_copy_when_change_temperature",
    "trivial_copy_buffer_size",
    // Deletion-triggered compaction.
    "min_file_size",
    // Block-based table options.
    "index_type",
    "format_version",
    "partition_filters",
    "pin_l0_filter_and_index_blocks_in_cache",
    "pin_top_level_index_and_filter",
    "cache_index_and_filter_blocks_with_high_priority",
    "metadata_block_size",
    "data_block_index_type",
    "data_block_hash_table_util_ratio",
    "block_size_deviation",
    "no_block_cache",
    "optimize_filters_for_memory",
    "enable_index_compression",
    "block_align",
    "read_amp_bytes_per_bit",
];

/// RocksDB options accepted only with the value that describes what CairnDB always does.
const FIXED_ROCKSDB_OPTIONS: &[(&str, &[&str])] = &[("unordered_write", &["false", "0"])];

/// The name of the nested block-based table options.
pub(super) const TABLE_FACTORY: &str = "block_based_table_factory";
/// RocksDB's spelling of "use the library's default level" in `compression_opts`.
const ROCKSDB_DEFAULT_COMPRESSION_LEVEL: i64 = 32767;
/// The zstd level that stands for the library default.
const ZSTD_DEFAULT_LEVEL: i32 = 3;

/// Parsing state: the configuration and the warnings collected so far.
struct Ctx<'c> {
    cfg: &'c ParseConfig,
    warnings: Vec<ParseWarning>,
}

impl Ctx<'_> {
    /// Deals with an option no setter took: an error, or a warning when unknown options are
    /// ignored.
    fn not_applied(&mut self, option: &str, name: &str) -> Result<()> {
        let message = if UNSUPPORTED_ROCKSDB_OPTIONS.contains(&name) {
            "a RocksDB option CairnDB does not support yet (docs/design/options.md)"
        } else {
            "unknown option name"
        };
        if !self.cfg.ignore_unknown_options {
            return Err(Error::InvalidArgument(format!(
                "option {option}: {message}"
            )));
        }
        self.warnings.push(ParseWarning {
            option: option.to_string(),
            message: message.to_string(),
        });
        Ok(())
    }
}

/// A setter: applies the option `name` (qualified as `option` in messages) with `value`;
/// `Ok(false)` when it does not know the name.
type Setter<'s> = dyn FnMut(&str, &str, &str, &mut Ctx<'_>) -> Result<bool> + 's;

/// Applies every pair of the option string `s` with `set`; `scope` prefixes nested names.
fn apply_string(s: &str, scope: &str, ctx: &mut Ctx<'_>, set: &mut Setter<'_>) -> Result<()> {
    for (name, value) in split_options(s, scope)? {
        let option = qualified(scope, name);
        if !set(name, &option, value, ctx)? {
            ctx.not_applied(&option, name)?;
        }
    }
    Ok(())
}

fn qualified(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}.{name}")
    }
}

fn invalid(option: &str, message: impl fmt::Display) -> Error {
    Error::InvalidArgument(format!("option {option}: {message}"))
}

// ---------------------------------------------------------------------------------------------
// Splitting a string into pairs.

/// Splits an option string into trimmed `(name, value)` pairs, in order; braces of a nested value
/// are removed. `scope` names the enclosing option in messages.
///
/// # Errors
/// [`Error::InvalidArgument`] for a pair without `=`, an empty or malformed name, unbalanced
/// braces, or text between a closing brace and the next `;`.
pub(crate) fn split_options<'s>(s: &'s str, scope: &str) -> Result<Vec<(&'s str, &'s str)>> {
    let mut pairs = Vec::new();
    let mut rest = s.trim_start_matches(|c: char| c.is_whitespace() || c == ';');
    while !rest.is_empty() {
        let eq = rest.find('=').ok_or_else(|| {
            invalid(
                &qualified(scope, rest.trim()),
                "expected name=value (missing '=')",
            )
        })?;
        let name = rest[..eq].trim();
        if name.is_empty() || name.contains([';', '{', '}']) || name.contains(char::is_whitespace) {
            return Err(invalid(
                &qualified(scope, name),
                "malformed option name (missing ';' before it?)",
            ));
        }
        let option = qualified(scope, name);
        let (value, after) = split_value(rest[eq + 1..].trim_start(), &option)?;
        pairs.push((name, value));
        rest = after.trim_start_matches(|c: char| c.is_whitespace() || c == ';');
    }
    Ok(pairs)
}

/// Splits `s` (starting at a value) into the value and what follows its terminating `;`.
fn split_value<'s>(s: &'s str, option: &str) -> Result<(&'s str, &'s str)> {
    if s.starts_with('{') {
        let close =
            matching_brace(s).ok_or_else(|| invalid(option, "unbalanced braces in the value"))?;
        let after = s[close + 1..].trim_start();
        if !(after.is_empty() || after.starts_with(';')) {
            return Err(invalid(option, "unexpected text after the closing brace"));
        }
        return Ok((s[1..close].trim(), after));
    }
    let end = s.find(';').unwrap_or(s.len());
    let value = s[..end].trim();
    if value.contains(['{', '}']) {
        return Err(invalid(option, "unbalanced braces in the value"));
    }
    Ok((value, &s[end..]))
}

/// The index of the `}` that closes the `{` at `s[0]`.
fn matching_brace(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Values.

/// A size or count: digits with an optional k/m/g/t suffix (binary multiples).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `option` for anything else, or a value above `u64::MAX`.
pub(crate) fn parse_u64(option: &str, v: &str) -> Result<u64> {
    let shift = match v.bytes().last() {
        Some(b'k' | b'K') => 10,
        Some(b'm' | b'M') => 20,
        Some(b'g' | b'G') => 30,
        Some(b't' | b'T') => 40,
        _ => 0,
    };
    let digits = if shift == 0 { v } else { &v[..v.len() - 1] };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid(
            option,
            format!("{v:?} is not a non-negative integer with an optional k/m/g/t suffix"),
        ));
    }
    let too_large = || invalid(option, format!("{v:?} does not fit in 64 bits"));
    let n: u64 = digits.parse().map_err(|_| too_large())?;
    n.checked_mul(1 << shift).ok_or_else(too_large)
}

fn parse_usize(option: &str, v: &str) -> Result<usize> {
    let n = parse_u64(option, v)?;
    usize::try_from(n).map_err(|_| invalid(option, format!("{v:?} is too large")))
}

fn parse_u32(option: &str, v: &str) -> Result<u32> {
    let n = parse_u64(option, v)?;
    u32::try_from(n).map_err(|_| invalid(option, format!("{v:?} does not fit in 32 bits")))
}

/// A signed integer: an optional `-` before what [`parse_u64`] accepts.
fn parse_i64(option: &str, v: &str) -> Result<i64> {
    let (negative, magnitude) = match v.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, v),
    };
    let m = i128::from(parse_u64(option, magnitude)?);
    let n = if negative { -m } else { m };
    i64::try_from(n).map_err(|_| invalid(option, format!("{v:?} does not fit in 64 bits")))
}

fn parse_i32(option: &str, v: &str) -> Result<i32> {
    let n = parse_i64(option, v)?;
    i32::try_from(n).map_err(|_| invalid(option, format!("{v:?} does not fit in 32 bits")))
}

/// A finite decimal number.
fn parse_f64(option: &str, v: &str) -> Result<f64> {
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(invalid(option, format!("{v:?} is not a finite number"))),
    }
}

/// `true`/`1` or `false`/`0`, exactly.
fn parse_bool(option: &str, v: &str) -> Result<bool> {
    match v {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(invalid(
            option,
            format!("{v:?} is not a boolean (true, false, 1, 0)"),
        )),
    }
}

fn parse_compression(option: &str, v: &str) -> Result<CompressionType> {
    CompressionType::parse(v).map_err(|e| invalid(option, e))
}

fn parse_compression_per_level(option: &str, v: &str) -> Result<Vec<CompressionType>> {
    if v.is_empty() {
        return Ok(Vec::new());
    }
    v.split(':').map(|c| parse_compression(option, c)).collect()
}

/// `kDisableCompressionOption` means "do not override", everything else a compression type.
fn parse_bottommost(option: &str, v: &str) -> Result<Option<CompressionType>> {
    match v {
        "kDisableCompressionOption" => Ok(None),
        _ => parse_compression(option, v).map(Some),
    }
}

/// A built-in comparator by RocksDB's name, or `current` when it is a user comparator of that
/// name already set in code (an OPTIONS file written for it names it).
fn parse_comparator(current: &KeyOrder, option: &str, v: &str) -> Result<KeyOrder> {
    if v == current.name() {
        return Ok(current.clone());
    }
    KeyOrder::from_name(v).map_err(|e| match e {
        Error::InvalidArgument(m) => invalid(option, m),
        e => e,
    })
}

fn parse_prefix_extractor(option: &str, v: &str) -> Result<Option<Arc<dyn PrefixExtractor>>> {
    if v.is_empty() || v == "nullptr" {
        return Ok(None);
    }
    let (capped, len) = if let Some(n) = v.strip_prefix("capped:") {
        (true, n)
    } else if let Some(n) = v.strip_prefix("rocksdb.CappedPrefix.") {
        (true, n)
    } else if let Some(n) = v.strip_prefix("fixed:") {
        (false, n)
    } else if let Some(n) = v.strip_prefix("rocksdb.FixedPrefix.") {
        (false, n)
    } else {
        return Err(invalid(
            option,
            format!(
                "{v:?} is not capped:N, fixed:N, rocksdb.CappedPrefix.N, \
                 rocksdb.FixedPrefix.N or nullptr"
            ),
        ));
    };
    let len = parse_usize(option, len)?;
    if len == 0 {
        return Err(invalid(option, "the prefix length must be at least 1"));
    }
    Ok(Some(if capped {
        Arc::new(CappedPrefix::new(len))
    } else {
        Arc::new(FixedPrefix::new(len))
    }))
}

/// Bloom bits per key from `bloomfilter:BITS[:USE_BLOCK_BASED]`; 0 for `nullptr`.
fn parse_filter_policy(option: &str, v: &str) -> Result<f64> {
    if v.is_empty() || v == "nullptr" {
        return Ok(0.0);
    }
    let mut parts = v.split(':');
    let (Some("bloomfilter"), Some(bits)) = (parts.next(), parts.next()) else {
        return Err(invalid(
            option,
            format!(
                "{v:?} is not bloomfilter:BITS[:USE_BLOCK_BASED] or nullptr \
                 (only Bloom filters are supported)"
            ),
        ));
    };
    let bits = parse_f64(option, bits)?;
    // The block-based filter flag is read for RocksDB compatibility; RocksDB >= 7 ignores it too.
    if let Some(flag) = parts.next() {
        parse_bool(option, flag)?;
    }
    if parts.next().is_some() {
        return Err(invalid(option, format!("{v:?} has too many ':' fields")));
    }
    Ok(bits)
}

fn parse_block_cache(option: &str, v: &str) -> Result<Option<Arc<BlockCache>>> {
    if v.is_empty() || v == "nullptr" {
        return Ok(None);
    }
    let capacity = parse_usize(option, v)?;
    Ok(Some(Arc::new(BlockCache::new(
        CacheOptions::with_capacity(capacity),
    ))))
}

fn parse_checksum(option: &str, v: &str) -> Result<ChecksumType> {
    ChecksumType::parse(v).map_err(|e| invalid(option, e))
}

pub(super) fn checksum_name(c: ChecksumType) -> &'static str {
    match c {
        ChecksumType::Crc32c => "kCRC32c",
        ChecksumType::Xxh3 => "kXXH3",
    }
}

// ---------------------------------------------------------------------------------------------
// Setters.

/// Applies one database option. `Ok(false)` when `name` is not one.
fn set_db(db: &mut DbOptions, name: &str, option: &str, v: &str) -> Result<bool> {
    use super::{InfoLogLevel, WalRecoveryMode};
    match name {
        "create_if_missing" => db.create_if_missing = parse_bool(option, v)?,
        "error_if_exists" => db.error_if_exists = parse_bool(option, v)?,
        "create_missing_column_families" => {
            db.create_missing_column_families = parse_bool(option, v)?;
        }
        "paranoid_checks" => db.paranoid_checks = parse_bool(option, v)?,
        "max_open_files" => db.max_open_files = parse_i32(option, v)?,
        "table_cache_numshardbits" => db.table_cache_numshardbits = parse_i32(option, v)?,
        "max_background_jobs" => db.max_background_jobs = parse_u32(option, v)?,
        "max_subcompactions" => db.max_subcompactions = parse_u32(option, v)?,
        "bytes_per_sync" => db.bytes_per_sync = parse_u64(option, v)?,
        "wal_bytes_per_sync" => db.wal_bytes_per_sync = parse_u64(option, v)?,
        "max_total_wal_size" => db.max_total_wal_size = parse_u64(option, v)?,
        "wal_recovery_mode" => db.wal_recovery_mode = WalRecoveryMode::parse_rocksdb(option, v)?,
        "recycle_log_file_num" => db.recycle_log_file_num = parse_usize(option, v)?,
        "max_manifest_file_size" => db.max_manifest_file_size = parse_u64(option, v)?,
        "delayed_write_rate" => db.delayed_write_rate = parse_u64(option, v)?,
        "stats_dump_period_sec" => db.stats_dump_period_sec = parse_u32(option, v)?,
        "allow_concurrent_memtable_write" => {
            db.allow_concurrent_memtable_write = parse_bool(option, v)?;
        }
        "enable_pipelined_write" => db.enable_pipelined_write = parse_bool(option, v)?,
        "enable_write_thread_adaptive_yield" => {
            db.enable_write_thread_adaptive_yield = parse_bool(option, v)?;
        }
        "write_thread_max_yield_usec" => db.write_thread_max_yield_usec = parse_u64(option, v)?,
        "write_thread_slow_yield_usec" => {
            db.write_thread_slow_yield_usec = parse_u64(option, v)?;
        }
        "info_log_level" => db.info_log_level = InfoLogLevel::parse_rocksdb(option, v)?,
        "keep_log_file_num" => db.keep_log_file_num = parse_usize(option, v)?,
        "max_log_file_size" => db.max_log_file_size = parse_usize(option, v)?,
        "compaction_readahead_size" => db.compaction_readahead_size = parse_u64(option, v)?,
        _ => return check_fixed(name, option, v),
    }
    Ok(true)
}

/// Accepts a [`FIXED_ROCKSDB_OPTIONS`] option with its one accepted value.
fn check_fixed(name: &str, option: &str, v: &str) -> Result<bool> {
    let Some((_, accepted)) = FIXED_ROCKSDB_OPTIONS.iter().find(|(n, _)| *n == name) else {
        return Ok(false);
    };
    if accepted.contains(&v) {
        return Ok(true);
    }
    Err(invalid(
        option,
        format!("CairnDB supports only {} (got {v:?})", accepted[0]),
    ))
}

/// Applies one column-family option. `Ok(false)` when `name` is not one.
fn set_cf(
    cf: &mut CfOptions,
    name: &str,
    option: &str,
    v: &str,
    ctx: &mut Ctx<'_>,
) -> Result<bool> {
    if name == TABLE_FACTORY {
        let table = &mut cf.table;
        apply_string(v, option, ctx, &mut |n, o, v, _| set_table(table, n, o, v))?;
        return Ok(true);
    }
    if name == "compression_opts" {
        set_compression_opts(&mut cf.table, option, v, ctx)?;
        return Ok(true);
    }
    if name == "compaction_options_universal" {
        let u = &mut cf.compaction_options_universal;
        apply_string(v, option, ctx, &mut |n, o, v, _| set_universal(u, n, o, v))?;
        return Ok(true);
    }
    if name == "compaction_options_fifo" {
        let f = &mut cf.compaction_options_fifo;
        apply_string(v, option, ctx, &mut |n, o, v, _| set_fifo(f, n, o, v))?;
        return Ok(true);
    }
    if name == "compact_on_deletion" {
        if v.is_empty() || v == "nullptr" {
            cf.compact_on_deletion = None;
            return Ok(true);
        }
        let mut d = cf.compact_on_deletion.unwrap_or(CompactOnDeletion {
            sliding_window_size: 0,
            deletion_trigger: 0,
            deletion_ratio: 0.0,
        });
        apply_string(v, option, ctx, &mut |n, o, v, _| {
            set_compact_on_deletion(&mut d, n, o, v)
        })?;
        cf.compact_on_deletion = Some(d);
        return Ok(true);
    }
    Ok(set_cf_write(cf, name, option, v)?
        || set_cf_shape(cf, name, option, v)?
        || set_cf_data(cf, name, option, v)?)
}

/// Memtable, write-control and automatic-compaction options.
fn set_cf_write(cf: &mut CfOptions, name: &str, option: &str, v: &str) -> Result<bool> {
    match name {
        "write_buffer_size" => cf.write_buffer_size = parse_usize(option, v)?,
        "max_write_buffer_number" => cf.max_write_buffer_number = parse_u32(option, v)?,
        "min_write_buffer_number_to_merge" => {
            cf.min_write_buffer_number_to_merge = parse_u32(option, v)?;
        }
        "level0_file_num_compaction_trigger" => {
            cf.level0_file_num_compaction_trigger = parse_u32(option, v)?;
        }
        "level0_slowdown_writes_trigger" => {
            cf.level0_slowdown_writes_trigger = parse_u32(option, v)?;
        }
        "level0_stop_writes_trigger" => cf.level0_stop_writes_trigger = parse_u32(option, v)?,
        "soft_pending_compaction_bytes_limit" => {
            cf.soft_pending_compaction_bytes_limit = parse_u64(option, v)?;
        }
        "hard_pending_compaction_bytes_limit" => {
            cf.hard_pending_compaction_bytes_limit = parse_u64(option, v)?;
        }
        "disable_auto_compactions" => cf.disable_auto_compactions = parse_bool(option, v)?,
        "memtable_prefix_bloom_size_ratio" => {
            cf.memtable_prefix_bloom_size_ratio = parse_f64(option, v)?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Options that shape the tree: levels, sizes, compaction style and priority, ages.
fn set_cf_shape(cf: &mut CfOptions, name: &str, option: &str, v: &str) -> Result<bool> {
    use super::{CompactionPri, CompactionStyle};
    match name {
        "max_bytes_for_level_base" => cf.max_bytes_for_level_base = parse_u64(option, v)?,
        "max_bytes_for_level_multiplier" => {
            cf.max_bytes_for_level_multiplier = parse_f64(option, v)?;
        }
        "target_file_size_base" => cf.target_file_size_base = parse_u64(option, v)?,
        "target_file_size_multiplier" => cf.target_file_size_multiplier = parse_u32(option, v)?,
        "level_compaction_dynamic_level_bytes" => {
            cf.level_compaction_dynamic_level_bytes = parse_bool(option, v)?;
        }
        "num_levels" => cf.num_levels = parse_u32(option, v)?,
        "compaction_style" => cf.compaction_style = CompactionStyle::parse_rocksdb(option, v)?,
        "compaction_pri" => cf.compaction_pri = CompactionPri::parse_rocksdb(option, v)?,
        "ttl" => cf.ttl = parse_u64(option, v)?,
        "max_compaction_bytes" => cf.max_compaction_bytes = parse_u64(option, v)?,
        "periodic_compaction_seconds" => cf.periodic_compaction_seconds = parse_u64(option, v)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Options about how data is stored: compression, prefixes, filters.
fn set_cf_data(cf: &mut CfOptions, name: &str, option: &str, v: &str) -> Result<bool> {
    match name {
        "compression" => cf.compression = parse_compression(option, v)?,
        "compression_per_level" => {
            cf.compression_per_level = parse_compression_per_level(option, v)?;
        }
        "bloom_bits_per_key_per_level" => {
            cf.bloom_bits_per_key_per_level = if v.is_empty() {
                Vec::new()
            } else {
                v.split(':')
                    .map(|b| parse_f64(option, b))
                    .collect::<Result<_>>()?
            };
        }
        "bottommost_compression" => cf.bottommost_compression = parse_bottommost(option, v)?,
        "prefix_extractor" => cf.prefix_extractor = parse_prefix_extractor(option, v)?,
        "comparator" => cf.comparator = parse_comparator(&cf.comparator, option, v)?,
        "optimize_filters_for_hits" => cf.optimize_filters_for_hits = parse_bool(option, v)?,
        "optimize_filters" => cf.optimize_filters = parse_bool(option, v)?,
        "memtable_huge_page_size" => cf.memtable_huge_page_size = parse_usize(option, v)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Applies one option of `compaction_options_universal={...}`.
fn set_universal(u: &mut UniversalOptions, name: &str, option: &str, v: &str) -> Result<bool> {
    match name {
        "size_ratio" => u.size_ratio = parse_u32(option, v)?,
        "min_merge_width" => u.min_merge_width = parse_u32(option, v)?,
        "max_merge_width" => u.max_merge_width = parse_u32(option, v)?,
        "max_size_amplification_percent" => {
            u.max_size_amplification_percent = parse_u32(option, v)?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Applies one option of `compaction_options_fifo={...}`.
fn set_fifo(f: &mut FifoOptions, name: &str, option: &str, v: &str) -> Result<bool> {
    match name {
        "max_table_files_size" => f.max_table_files_size = parse_u64(option, v)?,
        "allow_compaction" => f.allow_compaction = parse_bool(option, v)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Applies one option of `compact_on_deletion={...}` (the parameter names of RocksDB's
/// `CompactOnDeletionCollectorFactory`).
fn set_compact_on_deletion(
    d: &mut CompactOnDeletion,
    name: &str,
    option: &str,
    v: &str,
) -> Result<bool> {
    match name {
        "window_size" => d.sliding_window_size = parse_u64(option, v)?,
        "deletion_trigger" => d.deletion_trigger = parse_u64(option, v)?,
        "deletion_ratio" => d.deletion_ratio = parse_f64(option, v)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Applies one option of `block_based_table_factory={...}`.
fn set_table(t: &mut TableOptions, name: &str, option: &str, v: &str) -> Result<bool> {
    match name {
        "block_size" => t.block_size = parse_usize(option, v)?,
        "block_restart_interval" => t.block_restart_interval = parse_usize(option, v)?,
        "index_block_restart_interval" => {
            t.index_block_restart_interval = parse_usize(option, v)?;
        }
        "filter_policy" => t.bloom_bits_per_key = parse_filter_policy(option, v)?,
        "whole_key_filtering" => t.whole_key_filtering = parse_bool(option, v)?,
        "cache_index_and_filter_blocks" => {
            t.cache_index_and_filter_blocks = parse_bool(option, v)?;
        }
        "block_cache" => t.block_cache = parse_block_cache(option, v)?,
        "checksum" => t.checksum = parse_checksum(option, v)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// The fields of RocksDB's colon form of `compression_opts`, in order
/// (`window_bits:level:strategy[:max_dict_bytes[:zstd_max_train_bytes[:parallel_threads[:enabled[:max_dict_buffer_bytes[:use_zstd_dict_trainer]]]]]]`,
/// RocksDB's `ParseCompressionOptions`); the brace form uses the same names.
const COMPRESSION_OPTS_FIELDS: &[&str] = &[
    "window_bits",
    "level",
    "strategy",
    "max_dict_bytes",
    "zstd_max_train_bytes",
    "parallel_threads",
    "enabled",
    "max_dict_buffer_bytes",
    "use_zstd_dict_trainer",
];

/// Applies `compression_opts` in either of RocksDB's forms: `{level=4;...}` (an option string,
/// with the braces already removed) or `W:L:S[:...]` (colon form, at least the first three
/// fields). Each field goes through [`set_compression_opt`].
fn set_compression_opts(
    t: &mut TableOptions,
    option: &str,
    v: &str,
    ctx: &mut Ctx<'_>,
) -> Result<()> {
    if v.contains('=') || v.is_empty() {
        return apply_string(v, option, ctx, &mut |n, o, v, _| {
            set_compression_opt(t, n, o, v)
        });
    }
    let fields: Vec<&str> = v.split(':').map(str::trim).collect();
    if fields.len() < 3 || fields.len() > COMPRESSION_OPTS_FIELDS.len() {
        return Err(invalid(
            option,
            format!(
                "{v:?} is not window_bits:level:strategy[:max_dict_bytes[:zstd_max_train_bytes\
                 [:parallel_threads[:enabled[:max_dict_buffer_bytes[:use_zstd_dict_trainer]]]]]] \
                 or {{name=value;...}}"
            ),
        ));
    }
    for (name, value) in COMPRESSION_OPTS_FIELDS.iter().zip(fields) {
        set_compression_opt(t, name, &qualified(option, name), value)?;
    }
    Ok(())
}

/// Applies one field of `compression_opts`. What each field does here, and why:
/// - `level`: the zstd level ([`TableOptions::zstd_level`]; RocksDB's 32767 means the library
///   default, 3). RocksDB passes `level` to zstd, zlib and LZ4HC only: its `kLZ4Compression`
///   calls `LZ4_compress_fast_continue` with acceleration 1 whatever the level, so with LZ4 the
///   level has no effect there either. CairnDB builds no zlib and no LZ4HC.
/// - `window_bits`, `strategy`: zlib parameters. RocksDB reads them only for
///   `kZlibCompression`, which CairnDB does not build (it refuses the codec), so any integer is
///   accepted with the effect it has in RocksDB for LZ4 and zstd: none.
/// - `enabled`: RocksDB reads it only in `bottommost_compression_opts`; for `compression_opts` it
///   has no effect in RocksDB either, so any boolean is accepted.
/// - `max_dict_bytes`, `zstd_max_train_bytes`: compression dictionaries, not built: only 0.
/// - `max_dict_buffer_bytes`, `use_zstd_dict_trainer`: used by RocksDB only when a dictionary
///   is built (`max_dict_bytes > 0`), which is refused above, so any value has no effect, as in
///   RocksDB with dictionaries off.
/// - `parallel_threads`: parallel block compression, not built: only 1 (RocksDB's default).
fn set_compression_opt(t: &mut TableOptions, name: &str, option: &str, v: &str) -> Result<bool> {
    match name {
        "level" => {
            let level = parse_i64(option, v)?;
            t.zstd_level = if level == ROCKSDB_DEFAULT_COMPRESSION_LEVEL {
                ZSTD_DEFAULT_LEVEL
            } else {
                i32::try_from(level)
                    .map_err(|_| invalid(option, format!("{v:?} is out of range")))?
            };
        }
        "window_bits" | "strategy" => {
            parse_i32(option, v)?;
        }
        "enabled" | "use_zstd_dict_trainer" => {
            parse_bool(option, v)?;
        }
        "max_dict_buffer_bytes" => {
            parse_u64(option, v)?;
        }
        "max_dict_bytes" | "zstd_max_train_bytes" => {
            if parse_u64(option, v)? != 0 {
                return Err(invalid(
                    option,
                    "compression dictionaries are not built in CairnDB; only 0 is accepted",
                ));
            }
        }
        "parallel_threads" => {
            if parse_u32(option, v)? != 1 {
                return Err(invalid(
                    option,
                    "parallel block compression is not built in CairnDB; only 1 is accepted",
                ));
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

// ---------------------------------------------------------------------------------------------
// Public entry points.

/// Applies the one column-family option `name=value` (nested values in braces, as in a string).
pub(crate) fn apply_cf_pair(cf: &mut CfOptions, name: &str, value: &str) -> Result<()> {
    let mut ctx = Ctx {
        cfg: &ParseConfig::default(),
        warnings: Vec::new(),
    };
    if !set_cf(cf, name, name, value, &mut ctx)? {
        ctx.not_applied(name, name)?;
    }
    Ok(())
}

/// Applies the one database option `name=value`.
pub(crate) fn apply_db_pair(db: &mut DbOptions, name: &str, value: &str) -> Result<()> {
    if !set_db(db, name, name, value)? {
        let mut ctx = Ctx {
            cfg: &ParseConfig::default(),
            warnings: Vec::new(),
        };
        ctx.not_applied(name, name)?;
    }
    Ok(())
}

/// Runs `f` on a copy of `target` with a fresh context; stores the copy only on success.
fn transactionally<T: Clone>(
    target: &mut T,
    cfg: &ParseConfig,
    f: impl FnOnce(&mut T, &mut Ctx<'_>) -> Result<()>,
) -> Result<Vec<ParseWarning>> {
    let mut copy = target.clone();
    let mut ctx = Ctx {
        cfg,
        warnings: Vec::new(),
    };
    f(&mut copy, &mut ctx)?;
    *target = copy;
    Ok(ctx.warnings)
}

impl DbOptions {
    /// Default options updated by the RocksDB option string `s`. Does not validate ranges.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first malformed pair, unknown or unsupported option,
    /// or bad value.
    pub fn from_options_string(s: &str) -> Result<DbOptions> {
        let mut db = DbOptions::default();
        db.apply_options_string(s, &ParseConfig::default())?;
        Ok(db)
    }

    /// Updates these options with the RocksDB option string `s`; returns the options skipped
    /// under `cfg.ignore_unknown_options`. On error nothing changes.
    ///
    /// # Errors
    /// As [`DbOptions::from_options_string`]; unknown names only without
    /// `ignore_unknown_options`.
    pub fn apply_options_string(
        &mut self,
        s: &str,
        cfg: &ParseConfig,
    ) -> Result<Vec<ParseWarning>> {
        transactionally(self, cfg, |db, ctx| {
            apply_string(s, "", ctx, &mut |n, o, v, _| set_db(db, n, o, v))
        })
    }

    /// Every option as a RocksDB option string that parses back to equal options.
    pub fn to_options_string(&self) -> String {
        join(db_pairs(self))
    }
}

impl CfOptions {
    /// Default options updated by the RocksDB option string `s`, e.g.
    /// `write_buffer_size=256m;block_based_table_factory={filter_policy=bloomfilter:10:false}`.
    /// Does not validate ranges.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first malformed pair, unknown or unsupported option,
    /// or bad value.
    pub fn from_options_string(s: &str) -> Result<CfOptions> {
        let mut cf = CfOptions::default();
        cf.apply_options_string(s, &ParseConfig::default())?;
        Ok(cf)
    }

    /// Updates these options with the RocksDB option string `s`; returns the options skipped
    /// under `cfg.ignore_unknown_options`. On error nothing changes.
    ///
    /// # Errors
    /// As [`CfOptions::from_options_string`]; unknown names only without
    /// `ignore_unknown_options`.
    pub fn apply_options_string(
        &mut self,
        s: &str,
        cfg: &ParseConfig,
    ) -> Result<Vec<ParseWarning>> {
        transactionally(self, cfg, |cf, ctx| {
            apply_string(s, "", ctx, &mut |n, o, v, ctx| set_cf(cf, n, o, v, ctx))
        })
    }

    /// Every option as a RocksDB option string that parses back to equal options (see the
    /// module contract for the prefix extractor and the block cache).
    pub fn to_options_string(&self) -> String {
        join(cf_pairs(self))
    }
}

impl Options {
    /// Default options updated by `s`, which may mix database and column-family options (as
    /// RocksDB's `GetOptionsFromString`). Does not validate ranges.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first malformed pair, unknown or unsupported option,
    /// or bad value.
    pub fn from_options_string(s: &str) -> Result<Options> {
        let mut o = Options::default();
        o.apply_options_string(s, &ParseConfig::default())?;
        Ok(o)
    }

    /// Updates these options with `s`; each name is looked up among the database options, then
    /// the column-family options. On error nothing changes.
    ///
    /// # Errors
    /// As [`Options::from_options_string`]; unknown names only without `ignore_unknown_options`.
    pub fn apply_options_string(
        &mut self,
        s: &str,
        cfg: &ParseConfig,
    ) -> Result<Vec<ParseWarning>> {
        transactionally(self, cfg, |o, ctx| {
            apply_string(s, "", ctx, &mut |n, opt, v, ctx| {
                Ok(set_db(&mut o.db, n, opt, v)? || set_cf(&mut o.cf, n, opt, v, ctx)?)
            })
        })
    }

    /// Database options, then column-family options, as one option string.
    pub fn to_options_string(&self) -> String {
        let mut s = self.db.to_options_string();
        s.push_str(&self.cf.to_options_string());
        s
    }
}
