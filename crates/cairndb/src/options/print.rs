//! RocksDB option strings, the printing direction: every option CairnDB holds as the
//! `name=value;` pairs that `parse.rs` reads back to the same value (its invariant 3; floats in
//! Rust's shortest round-trip form).

use super::parse::{checksum_name, TABLE_FACTORY};
use super::*;
use crate::compaction::picker_universal::UniversalOptions;

/// `name=value` pairs joined by `;`.
pub(super) fn join(pairs: Vec<(&str, String)>) -> String {
    let mut out = String::new();
    for (name, value) in pairs {
        out.push_str(name);
        out.push('=');
        out.push_str(&value);
        out.push(';');
    }
    out
}

pub(super) fn db_pairs(db: &DbOptions) -> Vec<(&'static str, String)> {
    vec![
        ("create_if_missing", db.create_if_missing.to_string()),
        ("error_if_exists", db.error_if_exists.to_string()),
        (
            "create_missing_column_families",
            db.create_missing_column_families.to_string(),
        ),
        ("paranoid_checks", db.paranoid_checks.to_string()),
        ("max_open_files", db.max_open_files.to_string()),
        (
            "table_cache_numshardbits",
            db.table_cache_numshardbits.to_string(),
        ),
        ("max_background_jobs", db.max_background_jobs.to_string()),
        ("max_subcompactions", db.max_subcompactions.to_string()),
        ("bytes_per_sync", db.bytes_per_sync.to_string()),
        ("wal_bytes_per_sync", db.wal_bytes_per_sync.to_string()),
        ("max_total_wal_size", db.max_total_wal_size.to_string()),
        (
            "wal_recovery_mode",
            db.wal_recovery_mode.rocksdb_name().into(),
        ),
        ("recycle_log_file_num", db.recycle_log_file_num.to_string()),
        (
            "max_manifest_file_size",
            db.max_manifest_file_size.to_string(),
        ),
        ("delayed_write_rate", db.delayed_write_rate.to_string()),
        (
            "stats_dump_period_sec",
            db.stats_dump_period_sec.to_string(),
        ),
        (
            "allow_concurrent_memtable_write",
            db.allow_concurrent_memtable_write.to_string(),
        ),
        (
            "enable_pipelined_write",
            db.enable_pipelined_write.to_string(),
        ),
        (
            "enable_write_thread_adaptive_yield",
            db.enable_write_thread_adaptive_yield.to_string(),
        ),
        (
            "write_thread_max_yield_usec",
            db.write_thread_max_yield_usec.to_string(),
        ),
        (
            "write_thread_slow_yield_usec",
            db.write_thread_slow_yield_usec.to_string(),
        ),
        ("info_log_level", db.info_log_level.rocksdb_name().into()),
        ("keep_log_file_num", db.keep_log_file_num.to_string()),
        ("max_log_file_size", db.max_log_file_size.to_string()),
        (
            "compaction_readahead_size",
            db.compaction_readahead_size.to_string(),
        ),
    ]
}

pub(super) fn cf_pairs(cf: &CfOptions) -> Vec<(&'static str, String)> {
    let per_level: Vec<&str> = cf
        .compression_per_level
        .iter()
        .map(|c| c.rocksdb_name())
        .collect();
    let mut pairs = vec![
        ("write_buffer_size", cf.write_buffer_size.to_string()),
        (
            "max_write_buffer_number",
            cf.max_write_buffer_number.to_string(),
        ),
        (
            "min_write_buffer_number_to_merge",
            cf.min_write_buffer_number_to_merge.to_string(),
        ),
        (
            "level0_file_num_compaction_trigger",
            cf.level0_file_num_compaction_trigger.to_string(),
        ),
        (
            "level0_slowdown_writes_trigger",
            cf.level0_slowdown_writes_trigger.to_string(),
        ),
        (
            "level0_stop_writes_trigger",
            cf.level0_stop_writes_trigger.to_string(),
        ),
        (
            "soft_pending_compaction_bytes_limit",
            cf.soft_pending_compaction_bytes_limit.to_string(),
        ),
        (
            "hard_pending_compaction_bytes_limit",
            cf.hard_pending_compaction_bytes_limit.to_string(),
        ),
        (
            "max_bytes_for_level_base",
            cf.max_bytes_for_level_base.to_string(),
        ),
        (
            "max_bytes_for_level_multiplier",
            cf.max_bytes_for_level_multiplier.to_string(),
        ),
        (
            "target_file_size_base",
            cf.target_file_size_base.to_string(),
        ),
        (
            "target_file_size_multiplier",
            cf.target_file_size_multiplier.to_string(),
        ),
        (
            "level_compaction_dynamic_level_bytes",
            cf.level_compaction_dynamic_level_bytes.to_string(),
        ),
        ("num_levels", cf.num_levels.to_string()),
        (
            "compaction_style",
            cf.compaction_style.rocksdb_name().into(),
        ),
        ("compaction_pri", cf.compaction_pri.rocksdb_name().into()),
        ("compression", cf.compression.rocksdb_name().into()),
        ("compression_per_level", per_level.join(":")),
        (
            "bottommost_compression",
            cf.bottommost_compression
                .map_or("kDisableCompressionOption", |c| c.rocksdb_name())
                .into(),
        ),
        (
            "compression_opts",
            format!("{{level={}}}", cf.table.zstd_level),
        ),
        ("comparator", cf.comparator.name().into()),
        (
            "prefix_extractor",
            cf.prefix_extractor
                .as_ref()
                .map_or("nullptr", |p| p.name())
                .into(),
        ),
        (
            "memtable_prefix_bloom_size_ratio",
            cf.memtable_prefix_bloom_size_ratio.to_string(),
        ),
        (
            "optimize_filters_for_hits",
            cf.optimize_filters_for_hits.to_string(),
        ),
        (
            "memtable_huge_page_size",
            cf.memtable_huge_page_size.to_string(),
        ),
        ("ttl", cf.ttl.to_string()),
        (
            "periodic_compaction_seconds",
            cf.periodic_compaction_seconds.to_string(),
        ),
        (
            "disable_auto_compactions",
            cf.disable_auto_compactions.to_string(),
        ),
        ("max_compaction_bytes", cf.max_compaction_bytes.to_string()),
        (
            "compaction_options_universal",
            universal_string(&cf.compaction_options_universal),
        ),
        (
            "compaction_options_fifo",
            format!(
                "{{max_table_files_size={};allow_compaction={}}}",
                cf.compaction_options_fifo.max_table_files_size,
                cf.compaction_options_fifo.allow_compaction
            ),
        ),
        (
            "compact_on_deletion",
            cf.compact_on_deletion.map_or("nullptr".into(), |d| {
                format!(
                    "{{window_size={};deletion_trigger={};deletion_ratio={}}}",
                    d.sliding_window_size, d.deletion_trigger, d.deletion_ratio
                )
            }),
        ),
        (
            TABLE_FACTORY,
            format!("{{{}}}", join(table_pairs(&cf.table))),
        ),
    ];
    // CairnDB options: printed only when set, so that a default OPTIONS file stays one that
    // RocksDB reads.
    if !cf.bloom_bits_per_key_per_level.is_empty() {
        let bits: Vec<String> = cf
            .bloom_bits_per_key_per_level
            .iter()
            .map(f64::to_string)
            .collect();
        pairs.push(("bloom_bits_per_key_per_level", bits.join(":")));
    }
    if cf.optimize_filters {
        pairs.push(("optimize_filters", "true".into()));
    }
    pairs
}

pub(super) fn universal_string(u: &UniversalOptions) -> String {
    format!(
        "{{size_ratio={};min_merge_width={};max_merge_width={};max_size_amplification_percent={}}}",
        u.size_ratio, u.min_merge_width, u.max_merge_width, u.max_size_amplification_percent
    )
}

pub(super) fn table_pairs(t: &TableOptions) -> Vec<(&'static str, String)> {
    let filter = if t.bloom_bits_per_key > 0.0 {
        format!("bloomfilter:{}:false", t.bloom_bits_per_key)
    } else {
        "nullptr".to_string()
    };
    vec![
        ("block_size", t.block_size.to_string()),
        (
            "block_restart_interval",
            t.block_restart_interval.to_string(),
        ),
        (
            "index_block_restart_interval",
            t.index_block_restart_interval.to_string(),
        ),
        ("filter_policy", filter),
        ("whole_key_filtering", t.whole_key_filtering.to_string()),
        (
            "cache_index_and_filter_blocks",
            t.cache_index_and_filter_blocks.to_string(),
        ),
        (
            "block_cache",
            t.block_cache
                .as_ref()
                .map_or("nullptr".to_string(), |c| c.capacity().to_string()),
        ),
        ("checksum", checksum_name(t.checksum).into()),
    ]
}
