//! Dynamic options: the subset of options a running database may change (RocksDB's
//! `DB::SetOptions` and `DB::SetDBOptions`).
//!
//! The names are those of RocksDB's `cf_mutable_options_type_info` and
//! `db_mutable_options_type_info` that CairnDB implements; values take the option-string syntax
//! (`parse.rs`). A change is all or nothing: every pair is checked and applied to a copy, the copy
//! is validated, and only then does the caller install it.

use super::parse::{apply_cf_pair, apply_db_pair};
use super::{CfOptions, DbOptions};
use crate::error::{Error, Result};

/// Column-family options [`crate::Db::set_options`] accepts: RocksDB's mutable ones that
/// CairnDB has. Each takes effect at the next decision that reads it: the memtable size and
/// count at the next write, triggers and limits at the next write-control check and the next
/// compaction pick, sizes and compression at the next flush or compaction job (never a job
/// already running).
pub const MUTABLE_CF_OPTIONS: &[&str] = &[
    "write_buffer_size",
    "max_write_buffer_number",
    "memtable_prefix_bloom_size_ratio",
    "memtable_huge_page_size",
    "disable_auto_compactions",
    "level0_file_num_compaction_trigger",
    "level0_slowdown_writes_trigger",
    "level0_stop_writes_trigger",
    "soft_pending_compaction_bytes_limit",
    "hard_pending_compaction_bytes_limit",
    "max_compaction_bytes",
    "target_file_size_base",
    "target_file_size_multiplier",
    "max_bytes_for_level_base",
    "max_bytes_for_level_multiplier",
    "compression",
    "compression_per_level",
    "bloom_bits_per_key_per_level",
    "optimize_filters",
    "bottommost_compression",
    "compression_opts",
    "compaction_options_fifo",
    "compaction_options_universal",
    "ttl",
    "periodic_compaction_seconds",
];

/// Database options [`crate::Db::set_db_options`] accepts: `delayed_write_rate` applies to the
/// next write-control decision, `stats_dump_period_sec` to the next wait of the stats dumper
/// (0 stops the dumps), `compaction_readahead_size` to the next compaction job. RocksDB's other
/// mutable database options (`max_background_jobs`, `bytes_per_sync`, ...) are fixed at open in
/// CairnDB and rejected. `rate_limiter_bytes_per_sec` is not
/// a RocksDB option name (RocksDB changes the rate through `RateLimiter::SetBytesPerSecond`);
/// it sets the rate of [`DbOptions::rate_limiter`] and is an error when there is none.
pub const MUTABLE_DB_OPTIONS: &[&str] = &[
    "delayed_write_rate",
    "stats_dump_period_sec",
    "compaction_readahead_size",
    "rate_limiter_bytes_per_sec",
];

/// `value` without surrounding whitespace and one pair of enclosing braces (a nested value is
/// written `{level=5}` in an option string, and callers of `set_options` often keep the
/// braces).
fn unbraced(value: &str) -> &str {
    let v = value.trim();
    v.strip_prefix('{')
        .and_then(|v| v.strip_suffix('}'))
        .unwrap_or(v)
}

/// Why `name` cannot be set: immutable (a known option) or unknown.
fn not_mutable(name: &str, known: bool) -> Error {
    if known {
        Error::InvalidArgument(format!(
            "option {name}: not a mutable option (it can only be set when the database or \
             column family is opened)"
        ))
    } else {
        Error::InvalidArgument(format!("option {name}: unknown option name"))
    }
}

impl CfOptions {
    /// A copy of these options with `pairs` applied, each name one of [`MUTABLE_CF_OPTIONS`],
    /// each value in option-string syntax; the copy is validated.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first immutable or unknown option, bad value, or
    /// a result that fails [`CfOptions::validate`]. `self` is never changed.
    pub fn with_mutable_changes(&self, pairs: &[(&str, &str)]) -> Result<CfOptions> {
        let mut copy = self.clone();
        for &(name, value) in pairs {
            let name = name.trim();
            if !MUTABLE_CF_OPTIONS.contains(&name) {
                let known = apply_cf_pair(&mut CfOptions::default(), name, value).map_or_else(
                    |e| !e.to_string().contains("unknown option name"),
                    |()| true,
                );
                return Err(not_mutable(name, known));
            }
            apply_cf_pair(&mut copy, name, unbraced(value))?;
        }
        copy.validate()?;
        Ok(copy)
    }
}

impl DbOptions {
    /// A copy of these options with `pairs` applied, each name one of [`MUTABLE_DB_OPTIONS`];
    /// the copy is validated.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first immutable or unknown option, bad value, a
    /// `rate_limiter_bytes_per_sec` without a rate limiter, or a result that fails
    /// [`DbOptions::validate`]. `self` is never changed.
    pub fn with_mutable_changes(&self, pairs: &[(&str, &str)]) -> Result<DbOptions> {
        let mut copy = self.clone();
        for &(name, value) in pairs {
            let name = name.trim();
            if !MUTABLE_DB_OPTIONS.contains(&name) {
                let known = apply_db_pair(&mut DbOptions::default(), name, value).map_or_else(
                    |e| !e.to_string().contains("unknown option name"),
                    |()| true,
                );
                return Err(not_mutable(name, known));
            }
            if name == "rate_limiter_bytes_per_sec" {
                let rate = super::parse::parse_u64(name, value.trim())?;
                if copy.rate_limiter.is_none() {
                    return Err(Error::InvalidArgument(format!(
                        "option {name}: the database has no rate limiter"
                    )));
                }
                if rate == 0 {
                    return Err(Error::InvalidArgument(format!(
                        "option {name}: must be greater than 0"
                    )));
                }
                continue;
            }
            apply_db_pair(&mut copy, name, value.trim())?;
        }
        copy.validate()?;
        Ok(copy)
    }
}

/// The `rate_limiter_bytes_per_sec` value among `pairs`, if any (already checked by
/// [`DbOptions::with_mutable_changes`]).
pub(crate) fn rate_limit_change(pairs: &[(&str, &str)]) -> Option<u64> {
    pairs
        .iter()
        .rev()
        .find(|(n, _)| n.trim() == "rate_limiter_bytes_per_sec")
        .and_then(|(_, v)| super::parse::parse_u64("rate_limiter_bytes_per_sec", v.trim()).ok())
}
