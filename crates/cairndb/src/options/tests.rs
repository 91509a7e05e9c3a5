//! Option tests: defaults, every kind of value, the MyRocks option string, every error path,
//! ignore-unknown mode, validation ranges, and the print/parse round trip as a property.

use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::sstable::{CappedPrefix, FixedPrefix, PrefixExtractor};
use crate::types::CompressionType;
use crate::util::checksum::ChecksumType;

/// The MyRocks column-family string, verbatim (issue 14), `compression_opts` included.
const MYROCKS: &str = "write_buffer_size=256m;target_file_size_base=32m;\
max_bytes_for_level_base=512m;max_write_buffer_number=4;level0_file_num_compaction_trigger=4;\
level0_slowdown_writes_trigger=20;level0_stop_writes_trigger=30;max_write_buffer_number=4;\
block_based_table_factory={cache_index_and_filter_blocks=1;filter_policy=bloomfilter:10:false;\
whole_key_filtering=0};level_compaction_dynamic_level_bytes=true;optimize_filters_for_hits=true;\
memtable_prefix_bloom_size_ratio=0.05;prefix_extractor=capped:12;\
compaction_pri=kMinOverlappingRatio;compression=kLZ4Compression;\
bottommost_compression=kLZ4Compression;compression_opts=-14:4:0";

/// The MyRocks database options (issue 14).
const MYROCKS_DB: &str = "max_open_files=-1;max_background_jobs=8;max_total_wal_size=4G;\
bytes_per_sync=16777216;wal_bytes_per_sync=4194304;max_subcompactions=4;\
compaction_readahead_size=16m;table_cache_numshardbits=6";

pub(super) fn cf(s: &str) -> CfOptions {
    CfOptions::from_options_string(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn db(s: &str) -> DbOptions {
    DbOptions::from_options_string(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// The message of an `InvalidArgument`, or a panic naming what came instead.
fn invalid_message<T: std::fmt::Debug>(r: Result<T>) -> String {
    match r {
        Err(Error::InvalidArgument(m)) => m,
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

pub(super) fn cf_error(s: &str) -> String {
    invalid_message(CfOptions::from_options_string(s))
}

fn prefix_name(cf: &CfOptions) -> Option<String> {
    cf.prefix_extractor.as_ref().map(|p| p.name().to_string())
}

// ---- defaults -------------------------------------------------------------------------------

#[test]
fn defaults_are_rocksdb_defaults_and_validate() {
    let d = DbOptions::default();
    assert!(!d.create_if_missing && !d.error_if_exists && d.paranoid_checks);
    assert_eq!(d.max_open_files, -1);
    assert_eq!((d.max_background_jobs, d.max_subcompactions), (2, 1));
    assert_eq!(d.max_manifest_file_size, 1 << 30);
    assert_eq!(d.stats_dump_period_sec, 600);
    assert_eq!(d.keep_log_file_num, 1000);
    assert_eq!(d.info_log_level, InfoLogLevel::Info);
    let c = CfOptions::default();
    assert_eq!(c.write_buffer_size, 64 << 20);
    assert_eq!(c.max_write_buffer_number, 2);
    assert_eq!(
        (
            c.level0_file_num_compaction_trigger,
            c.level0_slowdown_writes_trigger,
            c.level0_stop_writes_trigger
        ),
        (4, 20, 36)
    );
    assert_eq!(c.max_bytes_for_level_base, 256 << 20);
    assert_eq!(c.max_bytes_for_level_multiplier, 10.0);
    assert_eq!(c.target_file_size_base, 64 << 20);
    assert!(c.level_compaction_dynamic_level_bytes);
    assert_eq!(c.num_levels, 7);
    assert_eq!(c.compaction_pri, CompactionPri::MinOverlappingRatio);
    assert_eq!((c.ttl, c.periodic_compaction_seconds), (TTL_AUTO, TTL_AUTO));
    assert_eq!(c.soft_pending_compaction_bytes_limit, 64 << 30);
    assert_eq!(c.hard_pending_compaction_bytes_limit, 256 << 30);
    Options::default().validate().expect("defaults validate");
    ReadOptions::default()
        .validate(&crate::KeyOrder::BYTEWISE)
        .expect("read defaults");
    WriteOptions::default().validate().expect("write defaults");
    assert!(ReadOptions::default().fill_cache && ReadOptions::default().verify_checksums);
}

// ---- the MyRocks string ---------------------------------------------------------------------

#[test]
fn myrocks_string_sets_every_field() {
    let c = cf(MYROCKS);
    assert_eq!(c.write_buffer_size, 256 << 20);
    assert_eq!(c.target_file_size_base, 32 << 20);
    assert_eq!(c.max_bytes_for_level_base, 512 << 20);
    assert_eq!(c.max_write_buffer_number, 4);
    assert_eq!(c.level0_file_num_compaction_trigger, 4);
    assert_eq!(c.level0_slowdown_writes_trigger, 20);
    assert_eq!(c.level0_stop_writes_trigger, 30);
    assert!(c.table.cache_index_and_filter_blocks);
    assert_eq!(c.table.bloom_bits_per_key, 10.0);
    assert!(!c.table.whole_key_filtering);
    assert!(c.level_compaction_dynamic_level_bytes);
    assert!(c.optimize_filters_for_hits);
    assert_eq!(c.memtable_prefix_bloom_size_ratio, 0.05);
    assert_eq!(prefix_name(&c).as_deref(), Some("rocksdb.CappedPrefix.12"));
    let p = c.prefix_extractor.as_ref().expect("extractor");
    assert_eq!(p.prefix(b"0123456789abcdef"), Some(&b"0123456789ab"[..]));
    assert_eq!(c.compaction_pri, CompactionPri::MinOverlappingRatio);
    assert_eq!(c.compression, CompressionType::Lz4);
    assert_eq!(c.bottommost_compression, Some(CompressionType::Lz4));
    assert_eq!(c.table.zstd_level, 4, "compression_opts level");
    c.validate().expect("the MyRocks options are valid");
    let d = db(MYROCKS_DB);
    assert_eq!(d.max_open_files, -1);
    assert_eq!(d.table_cache_capacity(), None);
    assert_eq!(d.max_background_jobs, 8);
    assert_eq!(d.max_total_wal_size, 4 << 30);
    assert_eq!(d.bytes_per_sync, 16 << 20);
    assert_eq!(d.wal_bytes_per_sync, 4 << 20);
    assert_eq!(d.max_subcompactions, 4);
    assert_eq!(d.compaction_readahead_size, 16 << 20);
    assert_eq!(d.table_cache_numshardbits, 6);
    assert_eq!(d.table_cache_shard_bits(), Some(6));
    d.validate().expect("valid");
    // Both through the combined entry point, with the table's block size.
    let both = format!("{MYROCKS};{MYROCKS_DB};block_based_table_factory={{block_size=16384}}");
    let o = Options::from_options_string(&both).expect("combined");
    assert_eq!(o.cf.write_buffer_size, 256 << 20);
    assert_eq!(o.cf.table.block_size, 16384);
    assert!(
        o.cf.table.cache_index_and_filter_blocks,
        "a second table string adds to the first"
    );
    assert_eq!(o.db.table_cache_numshardbits, 6);
    o.validate().expect("valid");
}

#[test]
fn compression_opts_colon_and_brace_forms() {
    // RocksDB's colon form: window_bits:level:strategy[:...]; the level is the zstd level.
    assert_eq!(cf("compression_opts=-14:4:0").table.zstd_level, 4);
    assert_eq!(cf("compression_opts=-14:32767:0").table.zstd_level, 3);
    assert_eq!(cf("compression_opts=-14:-5:0").table.zstd_level, -5);
    assert_eq!(
        cf("compression_opts=-14:9:0:0:0:1:true:0:true")
            .table
            .zstd_level,
        9
    );
    // The brace form with every field name.
    let c = cf(
        "compression_opts={window_bits=-14;level=7;strategy=0;max_dict_bytes=0;\
        zstd_max_train_bytes=0;parallel_threads=1;enabled=true;max_dict_buffer_bytes=0;\
        use_zstd_dict_trainer=false}",
    );
    assert_eq!(c.table.zstd_level, 7);
    // Refused: dictionaries, parallel compression, malformed fields, wrong counts.
    for (s, name) in [
        ("compression_opts=-14:4:0:16384", "max_dict_bytes"),
        ("compression_opts=-14:4:0:0:65536", "zstd_max_train_bytes"),
        ("compression_opts=-14:4:0:0:0:4", "parallel_threads"),
        ("compression_opts={max_dict_bytes=1}", "max_dict_bytes"),
        ("compression_opts=-14:x:0", "level"),
        ("compression_opts=-14:4:0:0:0:1:maybe", "enabled"),
        ("compression_opts={no_such_field=1}", "no_such_field"),
    ] {
        let m = cf_error(s);
        assert!(m.contains(&format!("compression_opts.{name}")), "{s}: {m}");
    }
    for s in [
        "compression_opts=-14:4",
        "compression_opts=1:2:3:0:0:1:true:0:true:9",
    ] {
        let m = cf_error(s);
        assert!(m.contains("window_bits:level:strategy"), "{s}: {m}");
    }
    // All or nothing: a refused field leaves the options as they were.
    let mut c = CfOptions::default();
    assert!(c
        .apply_options_string("compression_opts=-14:9:0:1024", &ParseConfig::default())
        .is_err());
    assert_eq!(c.table.zstd_level, 3);
}

#[test]
fn table_cache_numshardbits_is_parsed_validated_and_printed() {
    assert_eq!(DbOptions::default().table_cache_numshardbits, -1);
    assert_eq!(DbOptions::default().table_cache_shard_bits(), None);
    assert_eq!(
        db("table_cache_numshardbits=0").table_cache_shard_bits(),
        Some(0)
    );
    assert!(db("table_cache_numshardbits=17").validate().is_err());
    assert!(db("table_cache_numshardbits=-2").validate().is_err());
    db("table_cache_numshardbits=16")
        .validate()
        .expect("16 is the largest");
    let d = db("table_cache_numshardbits=6");
    assert!(d
        .to_options_string()
        .contains("table_cache_numshardbits=6;"));
}

// ---- one test per kind of value -------------------------------------------------------------

#[test]
fn sizes_take_binary_suffixes() {
    for (text, want) in [
        ("0", 0u64),
        ("4096", 4096),
        ("1k", 1 << 10),
        ("1K", 1 << 10),
        ("3m", 3 << 20),
        ("3M", 3 << 20),
        ("2g", 2 << 30),
        ("2G", 2 << 30),
        ("1t", 1 << 40),
        ("5T", 5 << 40),
    ] {
        let c = cf(&format!("max_bytes_for_level_base={text}"));
        assert_eq!(c.max_bytes_for_level_base, want, "{text}");
    }
    assert_eq!(
        cf("write_buffer_size = 128k ;").write_buffer_size,
        128 << 10
    );
    assert_eq!(db("max_total_wal_size=1g").max_total_wal_size, 1 << 30);
}

#[test]
fn booleans_are_true_false_1_0() {
    for (text, want) in [("true", true), ("1", true), ("false", false), ("0", false)] {
        assert_eq!(
            cf(&format!("disable_auto_compactions={text}")).disable_auto_compactions,
            want
        );
        assert_eq!(
            db(&format!("create_if_missing={text}")).create_if_missing,
            want
        );
    }
    for bad in ["yes", "TRUE", "2", ""] {
        let m = cf_error(&format!("optimize_filters_for_hits={bad}"));
        assert!(m.contains("optimize_filters_for_hits"), "{m}");
    }
}

#[test]
fn doubles_parse_and_must_be_finite() {
    assert_eq!(
        cf("max_bytes_for_level_multiplier=8.5").max_bytes_for_level_multiplier,
        8.5
    );
    assert_eq!(
        cf("max_bytes_for_level_multiplier=10").max_bytes_for_level_multiplier,
        10.0
    );
    for bad in ["inf", "NaN", "x", ""] {
        let m = cf_error(&format!("max_bytes_for_level_multiplier={bad}"));
        assert!(m.contains("max_bytes_for_level_multiplier"), "{m}");
    }
}

#[test]
fn signed_integers_take_minus_one() {
    assert_eq!(db("max_open_files=-1").max_open_files, -1);
    assert_eq!(db("max_open_files=5000").max_open_files, 5000);
    assert_eq!(db("max_open_files=2k").max_open_files, 2048);
    let m = invalid_message(DbOptions::from_options_string("max_open_files=4g"));
    assert!(m.contains("max_open_files") && m.contains("32 bits"), "{m}");
    let m = invalid_message(DbOptions::from_options_string("max_background_jobs=-2"));
    assert!(m.contains("max_background_jobs"), "{m}");
}

#[test]
fn every_enum_value_parses_by_its_rocksdb_name() {
    for (v, name) in CompactionStyle::NAMES {
        assert_eq!(cf(&format!("compaction_style={name}")).compaction_style, *v);
    }
    for (v, name) in CompactionPri::NAMES {
        assert_eq!(cf(&format!("compaction_pri={name}")).compaction_pri, *v);
    }
    for (v, name) in InfoLogLevel::NAMES {
        assert_eq!(db(&format!("info_log_level={name}")).info_log_level, *v);
    }
    for (v, name) in WalRecoveryMode::NAMES {
        assert_eq!(
            db(&format!("wal_recovery_mode={name}")).wal_recovery_mode,
            *v
        );
    }
    assert_eq!(WalRecoveryMode::NAMES.len(), 4);
    assert_eq!(CompactionPri::NAMES.len(), 5);
    for (c, name) in [
        (CompressionType::None, "kNoCompression"),
        (CompressionType::Lz4, "kLZ4Compression"),
        (CompressionType::Zstd, "kZSTD"),
    ] {
        assert_eq!(cf(&format!("compression={name}")).compression, c);
    }
}

#[test]
fn compression_per_level_and_bottommost() {
    let c = cf("compression_per_level=kNoCompression:kLZ4Compression:kZSTD");
    use CompressionType::{Lz4, None as No, Zstd};
    assert_eq!(c.compression_per_level, vec![No, Lz4, Zstd]);
    assert_eq!(c.compression_for_level(0, false), No);
    assert_eq!(c.compression_for_level(1, false), Lz4);
    assert_eq!(
        c.compression_for_level(6, false),
        Zstd,
        "last entry repeats"
    );
    assert!(cf("compression_per_level=")
        .compression_per_level
        .is_empty());
    let c = cf("bottommost_compression=kZSTD;compression=kNoCompression");
    assert_eq!(c.compression_for_level(6, true), Zstd);
    assert_eq!(c.compression_for_level(6, false), No);
    let c = cf("bottommost_compression=kZSTD;bottommost_compression=kDisableCompressionOption");
    assert_eq!(c.bottommost_compression, None, "the last value wins");
    let m = cf_error("compression_per_level=kLZ4Compression:kZlibCompression");
    assert!(m.contains("compression_per_level"), "{m}");
}

#[test]
fn prefix_extractor_forms() {
    for (text, name) in [
        ("capped:12", "rocksdb.CappedPrefix.12"),
        ("rocksdb.CappedPrefix.3", "rocksdb.CappedPrefix.3"),
        ("fixed:8", "rocksdb.FixedPrefix.8"),
        ("rocksdb.FixedPrefix.4", "rocksdb.FixedPrefix.4"),
    ] {
        assert_eq!(
            prefix_name(&cf(&format!("prefix_extractor={text}"))).as_deref(),
            Some(name)
        );
    }
    assert!(cf("prefix_extractor=fixed:4;prefix_extractor=nullptr")
        .prefix_extractor
        .is_none());
    for bad in ["fixed:0", "fixed:x", "rocksdb.Noop", "capped:"] {
        let m = cf_error(&format!("prefix_extractor={bad}"));
        assert!(m.contains("prefix_extractor"), "{bad}: {m}");
    }
}

#[test]
fn table_factory_options() {
    let c = cf(
        "block_based_table_factory={block_size=16k;block_restart_interval=8;\
        index_block_restart_interval=4;filter_policy=bloomfilter:7.5;whole_key_filtering=false;\
        cache_index_and_filter_blocks=true;block_cache=32m;checksum=kCRC32c}",
    );
    let t = &c.table;
    assert_eq!((t.block_size, t.block_restart_interval), (16 << 10, 8));
    assert_eq!(t.index_block_restart_interval, 4);
    assert_eq!(t.bloom_bits_per_key, 7.5);
    assert!(!t.whole_key_filtering && t.cache_index_and_filter_blocks);
    assert_eq!(t.block_cache.as_ref().map(|b| b.capacity()), Some(32 << 20));
    assert_eq!(t.checksum, ChecksumType::Crc32c);
    let t = cf("block_based_table_factory={filter_policy=nullptr;checksum=kXXH3}").table;
    assert_eq!(
        (t.bloom_bits_per_key, t.checksum),
        (0.0, ChecksumType::Xxh3)
    );
    let t = cf("block_based_table_factory={filter_policy=bloomfilter:10:true}").table;
    assert_eq!(
        t.bloom_bits_per_key, 10.0,
        "the legacy block-based flag is accepted"
    );
    assert_eq!(cf("compression_opts={level=9}").table.zstd_level, 9);
    assert_eq!(cf("compression_opts={level=32767}").table.zstd_level, 3);
    let nested = cf("block_based_table_factory={ block_size = 8k ; }").table;
    assert_eq!(nested.block_size, 8 << 10, "white space inside braces");
}

#[test]
fn every_db_option_parses() {
    let d = db(
        "create_if_missing=true;error_if_exists=1;paranoid_checks=false;\
        max_open_files=1000;max_background_jobs=8;max_subcompactions=4;bytes_per_sync=2m;\
        wal_bytes_per_sync=512k;max_total_wal_size=4g;wal_recovery_mode=kAbsoluteConsistency;\
        max_manifest_file_size=64m;delayed_write_rate=8m;stats_dump_period_sec=60;\
        info_log_level=WARN_LEVEL;keep_log_file_num=10;max_log_file_size=100m;\
        compaction_readahead_size=4m;enable_pipelined_write=false",
    );
    assert!(d.create_if_missing && d.error_if_exists && !d.paranoid_checks);
    assert!(!d.enable_pipelined_write);
    assert_eq!(d.max_open_files, 1000);
    assert_eq!((d.max_background_jobs, d.max_subcompactions), (8, 4));
    assert_eq!(
        (d.bytes_per_sync, d.wal_bytes_per_sync),
        (2 << 20, 512 << 10)
    );
    assert_eq!(d.max_total_wal_size, 4 << 30);
    assert_eq!(d.wal_recovery_mode, WalRecoveryMode::AbsoluteConsistency);
    assert_eq!(d.max_manifest_file_size, 64 << 20);
    assert_eq!(d.delayed_write_rate, 8 << 20);
    assert_eq!(d.stats_dump_period_sec, 60);
    assert_eq!(d.info_log_level, InfoLogLevel::Warn);
    assert_eq!((d.keep_log_file_num, d.max_log_file_size), (10, 100 << 20));
    assert_eq!(d.compaction_readahead_size, 4 << 20);
    d.validate().expect("valid");
    assert_eq!(d.table_cache_capacity(), Some(990));
    assert_eq!(db("max_open_files=5").table_cache_capacity(), Some(10));
    assert_eq!(DbOptions::default().table_cache_capacity(), None);
    assert_eq!(
        DbOptions::default().effective_delayed_write_rate(),
        16 << 20
    );
    assert_eq!(DbOptions::default().effective_max_total_wal_size(100), 400);
}

#[test]
fn combined_options_take_db_and_cf_names() {
    let o = Options::from_options_string(
        "max_background_jobs=4;write_buffer_size=1m;block_based_table_factory={block_size=8k}",
    )
    .expect("parse");
    assert_eq!(o.db.max_background_jobs, 4);
    assert_eq!(o.cf.write_buffer_size, 1 << 20);
    assert_eq!(o.cf.table.block_size, 8 << 10);
    assert!(CfOptions::from_options_string("max_background_jobs=4").is_err());
    assert!(DbOptions::from_options_string("write_buffer_size=1m").is_err());
}

#[test]
fn empty_strings_and_stray_separators_are_fine() {
    assert_eq!(
        cf("").write_buffer_size,
        CfOptions::default().write_buffer_size
    );
    assert_eq!(cf("  ;  ").num_levels, 7);
    assert_eq!(cf(";num_levels=5;;").num_levels, 5);
}

// ---- errors ---------------------------------------------------------------------------------

#[test]
fn unknown_and_unsupported_options_are_named() {
    let m = cf_error("write_buffer_size=1m;no_such_option=3");
    assert!(m.contains("no_such_option") && m.contains("unknown"), "{m}");
    let m = cf_error("merge_operator=put");
    assert!(
        m.contains("merge_operator") && m.contains("does not support"),
        "{m}"
    );
    let m = cf_error("block_based_table_factory={block_size=4k;index_type=kHashSearch}");
    assert!(m.contains("block_based_table_factory.index_type"), "{m}");
    let m = cf_error("compression_opts={window_bits=-14;checksum=true}");
    assert!(m.contains("compression_opts.checksum"), "{m}");
    let m = invalid_message(DbOptions::from_options_string("unordered_write=true"));
    assert!(m.contains("unordered_write") && m.contains("false"), "{m}");
}

#[test]
fn bad_values_are_named() {
    for (s, option) in [
        ("write_buffer_size=abc", "write_buffer_size"),
        ("write_buffer_size=64x", "write_buffer_size"),
        ("write_buffer_size=64kb", "write_buffer_size"),
        ("write_buffer_size=-1", "write_buffer_size"),
        ("write_buffer_size=", "write_buffer_size"),
        (
            "target_file_size_base=99999999999999999999",
            "target_file_size_base",
        ),
        ("target_file_size_base=17000000t", "target_file_size_base"),
        ("num_levels=5000000000", "num_levels"),
        ("compaction_pri=kMinOverlapping", "compaction_pri"),
        ("compaction_style=level", "compaction_style"),
        ("compression=kZlibCompression", "compression"),
        ("compression=kLZ4HCCompression", "compression"),
        (
            "bottommost_compression=kBZip2Compression",
            "bottommost_compression",
        ),
        (
            "block_based_table_factory={filter_policy=ribbonfilter:10}",
            "filter_policy",
        ),
        (
            "block_based_table_factory={filter_policy=bloomfilter:ten}",
            "filter_policy",
        ),
        (
            "block_based_table_factory={filter_policy=bloomfilter:10:maybe}",
            "filter_policy",
        ),
        ("block_based_table_factory={checksum=kxxHash}", "checksum"),
        ("block_based_table_factory={block_cache=big}", "block_cache"),
    ] {
        let m = cf_error(s);
        assert!(m.contains(option), "{s}: {m}");
    }
    let m = invalid_message(DbOptions::from_options_string(
        "wal_recovery_mode=kBestEffort",
    ));
    assert!(
        m.contains("wal_recovery_mode") && m.contains("kPointInTimeRecovery"),
        "{m}"
    );
}

#[test]
fn malformed_strings_are_rejected() {
    for s in [
        "block_based_table_factory={block_size=4k",
        "block_based_table_factory={block_size=4k;x={a=1}",
        "block_based_table_factory=block_size=4k}",
        "block_based_table_factory={block_size=4k}}",
        "block_based_table_factory={block_size=4k} trailing;num_levels=3",
        "write_buffer_size",
        "write_buffer_size=1m;num_levels",
        "=5",
        "write buffer size=5",
    ] {
        let m = cf_error(s);
        assert!(!m.is_empty(), "{s}");
    }
    let m = cf_error("block_based_table_factory={block_size=4k");
    assert!(
        m.contains("unbalanced") && m.contains("block_based_table_factory"),
        "{m}"
    );
}

#[test]
fn a_failed_parse_changes_nothing() {
    let mut c = CfOptions::default();
    let before = format!("{c:?}");
    let r = c.apply_options_string("write_buffer_size=1m;num_levels=x", &ParseConfig::default());
    assert!(r.is_err());
    assert_eq!(format!("{c:?}"), before);
    let mut d = DbOptions::default();
    assert!(d
        .apply_options_string("max_background_jobs=9;bogus=1", &ParseConfig::default())
        .is_err());
    assert_eq!(d, DbOptions::default());
}

#[test]
fn ignore_unknown_options_returns_warnings() {
    let cfg = ParseConfig {
        ignore_unknown_options: true,
    };
    let mut c = CfOptions::default();
    let w = c
        .apply_options_string(
            "write_buffer_size=1m;made_up=1;merge_operator=x;\
             block_based_table_factory={format_version=5;block_size=8k}",
            &cfg,
        )
        .expect("unknown names are ignored");
    let names: Vec<&str> = w.iter().map(|w| w.option.as_str()).collect();
    assert_eq!(
        names,
        [
            "made_up",
            "merge_operator",
            "block_based_table_factory.format_version"
        ]
    );
    assert!(w[1].message.contains("does not support"));
    assert!(w[0].to_string().contains("made_up"));
    assert_eq!(
        (c.write_buffer_size, c.table.block_size),
        (1 << 20, 8 << 10)
    );
    // Bad values of known options are still errors.
    assert!(c.apply_options_string("num_levels=x", &cfg).is_err());
    let mut d = DbOptions::default();
    let w = d
        .apply_options_string("max_background_compactions=4", &cfg)
        .expect("ok");
    assert_eq!(w.len(), 1);
}

// ---- validation -----------------------------------------------------------------------------

pub(super) fn validate_error(s: &str) -> String {
    invalid_message(cf(s).validate())
}

#[test]
fn validate_catches_out_of_range_cf_options() {
    for (s, needle) in [
        ("write_buffer_size=32k", "write_buffer_size"),
        ("write_buffer_size=65g", "write_buffer_size"),
        ("max_write_buffer_number=1", "max_write_buffer_number"),
        (
            "max_write_buffer_number=3;min_write_buffer_number_to_merge=3",
            "min_write_buffer_number_to_merge",
        ),
        (
            "min_write_buffer_number_to_merge=0",
            "min_write_buffer_number_to_merge",
        ),
        (
            "level0_file_num_compaction_trigger=0",
            "level0_file_num_compaction_trigger",
        ),
        (
            "level0_file_num_compaction_trigger=21",
            "level0_slowdown_writes_trigger",
        ),
        (
            "level0_slowdown_writes_trigger=40",
            "level0_stop_writes_trigger",
        ),
        (
            "soft_pending_compaction_bytes_limit=2g;hard_pending_compaction_bytes_limit=1g",
            "soft_pending",
        ),
        ("num_levels=0", "num_levels"),
        ("num_levels=65", "num_levels"),
        ("num_levels=1", "kCompactionStyleLevel"),
        ("max_bytes_for_level_base=0", "max_bytes_for_level_base"),
        (
            "max_bytes_for_level_multiplier=1",
            "max_bytes_for_level_multiplier",
        ),
        (
            "max_bytes_for_level_multiplier=-3",
            "max_bytes_for_level_multiplier",
        ),
        ("target_file_size_base=0", "target_file_size_base"),
        (
            "target_file_size_multiplier=0",
            "target_file_size_multiplier",
        ),
        (
            "memtable_prefix_bloom_size_ratio=0.5",
            "memtable_prefix_bloom_size_ratio",
        ),
        ("block_based_table_factory={block_size=0}", "block_size"),
        (
            "block_based_table_factory={filter_policy=bloomfilter:0.5}",
            "bloom_bits_per_key",
        ),
    ] {
        let m = validate_error(s);
        assert!(m.contains(needle), "{s}: {m}");
    }
    // The limits themselves are valid.
    cf("write_buffer_size=64k;num_levels=64;level0_stop_writes_trigger=20")
        .validate()
        .expect("ok");
    cf("num_levels=1;compaction_style=kCompactionStyleUniversal")
        .validate()
        .expect("ok");
    cf("soft_pending_compaction_bytes_limit=2g;hard_pending_compaction_bytes_limit=0")
        .validate()
        .expect("0 disables the hard limit");
}

#[test]
fn validate_catches_out_of_range_db_and_call_options() {
    for (s, needle) in [
        ("max_open_files=0", "max_open_files"),
        ("max_open_files=-2", "max_open_files"),
        ("max_background_jobs=0", "max_background_jobs"),
        ("max_subcompactions=0", "max_subcompactions"),
        ("max_manifest_file_size=100", "max_manifest_file_size"),
        ("keep_log_file_num=0", "keep_log_file_num"),
    ] {
        let m = invalid_message(db(s).validate());
        assert!(m.contains(needle) && m.contains("range"), "{s}: {m}");
    }
    let w = WriteOptions {
        sync: true,
        disable_wal: true,
        no_slowdown: false,
    };
    assert!(invalid_message(w.validate()).contains("disable_wal"));
    let r = ReadOptions {
        iterate_lower_bound: Some(b"b".to_vec()),
        iterate_upper_bound: Some(b"a".to_vec()),
        ..ReadOptions::default()
    };
    assert!(invalid_message(r.validate(&crate::KeyOrder::BYTEWISE)).contains("iterate_lower_bound"));
    // The same bounds are in order for a descending family.
    r.validate(&crate::KeyOrder::REVERSE_BYTEWISE)
        .expect("descending bounds");
}

#[test]
fn output_table_options_come_from_cf_and_db() {
    let c = cf(MYROCKS);
    let d = db("bytes_per_sync=4m");
    let t = c.table_options_for_output(&d, 1, false);
    assert_eq!(t.compression, CompressionType::Lz4);
    assert_eq!(t.bytes_per_sync, 4 << 20);
    assert_eq!(t.bloom_bits_per_key, 10.0);
    assert_eq!(
        t.prefix_extractor.as_ref().map(|p| p.name()),
        Some("rocksdb.CappedPrefix.12")
    );
    let bottom = c.table_options_for_output(&d, 6, true);
    assert_eq!(bottom.bloom_bits_per_key, 0.0, "optimize_filters_for_hits");
    assert!(c.table_options_for_reads().prefix_extractor.is_some());
    assert_eq!(CfOptions::default().effective_ttl(), 30 * 24 * 3600);
    assert_eq!(
        CfOptions::default().effective_periodic_compaction_seconds(),
        0
    );
    assert_eq!(cf("ttl=0").effective_ttl(), 0);
}

#[test]
fn default_strings_use_rocksdb_spellings() {
    let s = CfOptions::default().to_options_string();
    for part in [
        "write_buffer_size=67108864;",
        "compaction_style=kCompactionStyleLevel;",
        "compaction_pri=kMinOverlappingRatio;",
        "compression=kLZ4Compression;",
        "compression_per_level=;",
        "bottommost_compression=kDisableCompressionOption;",
        "prefix_extractor=nullptr;",
        "ttl=18446744073709551614;",
        "block_based_table_factory={block_size=4096;",
        "filter_policy=bloomfilter:10:false;",
        "checksum=kXXH3;",
        "block_cache=nullptr;",
    ] {
        assert!(s.contains(part), "{part} not in {s}");
    }
    let s = DbOptions::default().to_options_string();
    for part in [
        "max_open_files=-1;",
        "wal_recovery_mode=kTolerateCorruptedTailRecords;",
        "info_log_level=INFO_LEVEL;",
    ] {
        assert!(s.contains(part), "{part} not in {s}");
    }
}

// ---- round trip -----------------------------------------------------------------------------

fn pick<T: Copy + std::fmt::Debug + 'static>(
    names: &'static [(T, &'static str)],
) -> impl Strategy<Value = T> {
    prop::sample::select(names.iter().map(|(v, _)| *v).collect::<Vec<_>>())
}

fn compression() -> impl Strategy<Value = CompressionType> {
    prop::sample::select(vec![
        CompressionType::None,
        CompressionType::Lz4,
        CompressionType::Zstd,
    ])
}

fn prefix() -> impl Strategy<Value = Option<Arc<dyn PrefixExtractor>>> {
    prop_oneof![
        Just(None),
        (1usize..64).prop_map(|n| Some(Arc::new(FixedPrefix::new(n)) as Arc<dyn PrefixExtractor>)),
        (1usize..64).prop_map(|n| Some(Arc::new(CappedPrefix::new(n)) as Arc<dyn PrefixExtractor>)),
    ]
}

fn finite_f64() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |x| x.is_finite())
}

fn table_options() -> impl Strategy<Value = TableOptions> {
    (
        (any::<usize>(), any::<usize>(), any::<usize>()),
        prop_oneof![Just(0.0), 0.001f64..1000.0],
        (any::<bool>(), any::<bool>()),
        proptest::option::of(0usize..(1 << 30)),
        prop::sample::select(vec![ChecksumType::Crc32c, ChecksumType::Xxh3]),
        -1000i32..=22,
    )
        .prop_map(
            |((bs, ri, iri), bits, (wkf, cif), cache, checksum, zstd_level)| {
                let block_cache = cache.map(|c| {
                    Arc::new(crate::sstable::BlockCache::new(
                        crate::cache::CacheOptions::with_capacity(c),
                    ))
                });
                TableOptions {
                    block_size: bs,
                    block_restart_interval: ri,
                    index_block_restart_interval: iri,
                    bloom_bits_per_key: bits,
                    whole_key_filtering: wkf,
                    cache_index_and_filter_blocks: cif,
                    block_cache,
                    checksum,
                    zstd_level,
                    ..TableOptions::default()
                }
            },
        )
}

fn cf_options() -> impl Strategy<Value = CfOptions> {
    let counts = (
        any::<usize>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
    );
    let sizes = (
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        finite_f64(),
        any::<u64>(),
        any::<u32>(),
    );
    let shape = (
        any::<bool>(),
        any::<u32>(),
        pick(CompactionStyle::NAMES),
        pick(CompactionPri::NAMES),
        any::<u64>(),
        any::<u64>(),
        any::<bool>(),
    );
    let data = (
        compression(),
        prop::collection::vec(compression(), 0..8),
        proptest::option::of(compression()),
        prefix(),
        finite_f64(),
        any::<bool>(),
        table_options(),
    );
    (counts, sizes, shape, data).prop_map(|(c, s, sh, d)| CfOptions {
        write_buffer_size: c.0,
        max_write_buffer_number: c.1,
        min_write_buffer_number_to_merge: c.2,
        level0_file_num_compaction_trigger: c.3,
        level0_slowdown_writes_trigger: c.4,
        level0_stop_writes_trigger: c.5,
        soft_pending_compaction_bytes_limit: s.0,
        hard_pending_compaction_bytes_limit: s.1,
        max_bytes_for_level_base: s.2,
        max_bytes_for_level_multiplier: s.3,
        target_file_size_base: s.4,
        target_file_size_multiplier: s.5,
        level_compaction_dynamic_level_bytes: sh.0,
        num_levels: sh.1,
        compaction_style: sh.2,
        compaction_pri: sh.3,
        ttl: sh.4,
        periodic_compaction_seconds: sh.5,
        disable_auto_compactions: sh.6,
        compression: d.0,
        compression_per_level: d.1,
        bottommost_compression: d.2,
        prefix_extractor: d.3,
        merge_operator: None,
        memtable_prefix_bloom_size_ratio: d.4,
        optimize_filters_for_hits: d.5,
        memtable_huge_page_size: (c.0 % 3) << 21,
        table: d.6,
        ..CfOptions::default()
    })
}

fn db_options() -> impl Strategy<Value = DbOptions> {
    let flags = (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<i32>(),
        any::<u32>(),
        any::<u32>(),
    );
    let io = (
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        pick(WalRecoveryMode::NAMES),
        any::<u64>(),
        any::<u64>(),
    );
    let logs = (
        any::<u32>(),
        pick(InfoLogLevel::NAMES),
        any::<usize>(),
        any::<usize>(),
        any::<u64>(),
    );
    (flags, io, logs).prop_map(|(f, i, l)| DbOptions {
        create_if_missing: f.0,
        error_if_exists: f.1,
        create_missing_column_families: f.2,
        paranoid_checks: f.3,
        max_open_files: f.4,
        max_background_jobs: f.5,
        max_subcompactions: f.6,
        bytes_per_sync: i.0,
        wal_bytes_per_sync: i.1,
        max_total_wal_size: i.2,
        wal_recovery_mode: i.3,
        max_manifest_file_size: i.4,
        delayed_write_rate: i.5,
        stats_dump_period_sec: l.0,
        info_log_level: l.1,
        keep_log_file_num: l.2,
        max_log_file_size: l.3,
        compaction_readahead_size: l.4,
        ..DbOptions::default()
    })
}

fn fail(s: &str, e: Error) -> TestCaseError {
    TestCaseError::fail(format!("{s}: {e}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn cf_options_round_trip(c in cf_options()) {
        let s = c.to_options_string();
        let back = CfOptions::from_options_string(&s).map_err(|e| fail(&s, e))?;
        prop_assert_eq!(format!("{back:?}"), format!("{c:?}"), "{}", s);
        prop_assert_eq!(back.to_options_string(), s);
    }

    #[test]
    fn db_options_round_trip(d in db_options()) {
        let s = d.to_options_string();
        let back = DbOptions::from_options_string(&s).map_err(|e| fail(&s, e))?;
        prop_assert_eq!(back, d);
    }

    #[test]
    fn combined_options_round_trip(d in db_options(), c in cf_options()) {
        let o = Options { db: d, cf: c };
        let s = o.to_options_string();
        let back = Options::from_options_string(&s).map_err(|e| fail(&s, e))?;
        prop_assert_eq!(format!("{back:?}"), format!("{o:?}"));
    }

    /// Parsing arbitrary text never panics: it yields options or an InvalidArgument.
    #[test]
    fn parsing_arbitrary_text_never_panics(s in "[a-z_=;{}:0-9kmgt.-]{0,60}") {
        match Options::from_options_string(&s) {
            Ok(_) | Err(Error::InvalidArgument(_)) => {}
            Err(e) => prop_assert!(false, "unexpected error kind {e:?}"),
        }
    }
}

// ---- compaction structs, max_compaction_bytes, deletion-triggered compaction -----------------

#[test]
fn compaction_options_universal_and_fifo_parse() {
    let c = cf("compaction_style=kCompactionStyleUniversal;\
        compaction_options_universal={size_ratio=5;min_merge_width=3;max_merge_width=8;\
        max_size_amplification_percent=150};\
        compaction_options_fifo={max_table_files_size=1g;allow_compaction=true};\
        max_compaction_bytes=512m");
    let u = &c.compaction_options_universal;
    assert_eq!(
        (u.size_ratio, u.min_merge_width, u.max_merge_width),
        (5, 3, 8)
    );
    assert_eq!(u.max_size_amplification_percent, 150);
    assert_eq!(c.compaction_options_fifo.max_table_files_size, 1 << 30);
    assert!(c.compaction_options_fifo.allow_compaction);
    assert_eq!(c.max_compaction_bytes, 512 << 20);
    assert_eq!(c.effective_max_compaction_bytes(), 512 << 20);
    assert_eq!(
        CfOptions::default().effective_max_compaction_bytes(),
        25 * (64 << 20)
    );
    c.validate().expect("valid");
}

#[test]
fn unbuilt_universal_fields_are_named_as_unsupported() {
    let m = cf_error("compaction_options_universal={stop_style=kCompactionStopStyleTotalSize}");
    assert!(
        m.contains("compaction_options_universal.stop_style") && m.contains("does not support"),
        "{m}"
    );
    let m = cf_error("compaction_options_fifo={max_table_files_sizes=1}");
    assert!(m.contains("unknown option"), "{m}");
}

#[test]
fn merge_widths_are_validated() {
    let bad = cf("compaction_options_universal={min_merge_width=1}");
    assert!(invalid_message(bad.validate()).contains("min_merge_width"));
    let bad = cf("compaction_options_universal={min_merge_width=4;max_merge_width=3}");
    assert!(invalid_message(bad.validate()).contains("max_merge_width"));
}

#[test]
fn compact_on_deletion_parses_myrocks_settings() {
    let c = cf("compact_on_deletion={window_size=200000;deletion_trigger=199999}");
    let d = c.compact_on_deletion.expect("set");
    assert_eq!(
        (d.sliding_window_size, d.deletion_trigger),
        (200_000, 199_999)
    );
    assert_eq!(d.deletion_ratio, 0.0);
    c.validate().expect("valid");
    assert!(cf("compact_on_deletion=nullptr")
        .compact_on_deletion
        .is_none());
    let bad = cf("compact_on_deletion={window_size=10;deletion_trigger=11}");
    assert!(invalid_message(bad.validate()).contains("deletion_trigger"));
    let m = cf_error("compact_on_deletion={min_file_size=1}");
    assert!(m.contains("does not support"), "{m}");
}

#[test]
fn new_compaction_options_print_and_parse_back() {
    let mut c = CfOptions {
        max_compaction_bytes: 12345,
        ..CfOptions::default()
    };
    c.compaction_options_universal.size_ratio = 7;
    c.compaction_options_fifo.allow_compaction = true;
    c.compact_on_deletion = Some(crate::compaction::CompactOnDeletion {
        sliding_window_size: 100,
        deletion_trigger: 50,
        deletion_ratio: 0.25,
    });
    let back = cf(&c.to_options_string());
    assert_eq!(back.max_compaction_bytes, 12345);
    assert_eq!(
        back.compaction_options_universal,
        c.compaction_options_universal
    );
    assert_eq!(back.compaction_options_fifo, c.compaction_options_fifo);
    assert_eq!(back.compact_on_deletion, c.compact_on_deletion);
}

#[test]
fn a_compaction_filter_enables_periodic_compaction_by_default() {
    #[derive(Debug)]
    struct Keep;
    impl crate::compaction::CompactionFilter for Keep {
        fn name(&self) -> &str {
            "Keep"
        }
        fn filter(&self, _: usize, _: &[u8], _: &[u8]) -> crate::compaction::FilterDecision {
            crate::compaction::FilterDecision::Keep
        }
    }
    let mut c = CfOptions::default();
    assert_eq!(c.effective_periodic_compaction_seconds(), 0);
    c.compaction_filter = Some(Arc::new(Keep));
    assert_eq!(c.effective_periodic_compaction_seconds(), 30 * 24 * 3600);
}
