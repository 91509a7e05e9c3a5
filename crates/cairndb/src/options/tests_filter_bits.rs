//! Tests of the per-level filter options: `bloom_bits_per_key_per_level` and
//! `optimize_filters` (parse, print, validate, index).

use super::tests::{cf, cf_error, validate_error};
use super::*;

#[test]
fn bloom_bits_per_level_parse_print_validate_and_index() {
    let c = cf("bloom_bits_per_key_per_level=20:16:0:9.5");
    assert_eq!(c.bloom_bits_per_key_per_level, vec![20.0, 16.0, 0.0, 9.5]);
    c.validate().expect("valid");
    let back = cf(&c.to_options_string());
    assert_eq!(
        back.bloom_bits_per_key_per_level,
        c.bloom_bits_per_key_per_level
    );
    // Indexing: L0 first, the last entry for deeper levels; optimize_filters_for_hits wins at
    // the bottom.
    let bits: Vec<f64> = (0..7).map(|l| c.bloom_bits_for_level(l, false)).collect();
    assert_eq!(bits, vec![20.0, 16.0, 0.0, 9.5, 9.5, 9.5, 9.5]);
    let d = DbOptions::default();
    assert_eq!(
        c.table_options_for_output(&d, 1, false).bloom_bits_per_key,
        16.0
    );
    let hits = cf("bloom_bits_per_key_per_level=20:16;optimize_filters_for_hits=true");
    assert_eq!(hits.bloom_bits_for_level(6, true), 0.0);
    assert_eq!(hits.bloom_bits_for_level(6, false), 16.0);
    // Empty: the table's filter_policy for every level, and nothing printed (a default OPTIONS
    // file stays one RocksDB reads).
    let plain = cf("block_based_table_factory={filter_policy=bloomfilter:7:false}");
    assert_eq!(plain.bloom_bits_for_level(3, false), 7.0);
    assert!(!CfOptions::default()
        .to_options_string()
        .contains("bloom_bits_per_key_per_level"));
    assert!(cf("bloom_bits_per_key_per_level=")
        .bloom_bits_per_key_per_level
        .is_empty());
    // Each entry as the table's bits: 0 or 1..=100; a bad number is a parse error.
    for bad in [
        "bloom_bits_per_key_per_level=10:0.5",
        "bloom_bits_per_key_per_level=101",
    ] {
        assert!(
            validate_error(bad).contains("bloom_bits_per_key_per_level"),
            "{bad}"
        );
    }
    let m = cf_error("bloom_bits_per_key_per_level=10:x");
    assert!(m.contains("bloom_bits_per_key_per_level"), "{m}");
    // Mutable, as compression_per_level.
    assert!(super::mutable::MUTABLE_CF_OPTIONS.contains(&"bloom_bits_per_key_per_level"));
}

#[test]
fn optimize_filters_parse_print_and_conflicts() {
    let c = cf("optimize_filters=true");
    assert!(c.optimize_filters && c.has_per_level_table_settings());
    c.validate().expect("valid");
    assert!(cf(&c.to_options_string()).optimize_filters);
    assert!(!CfOptions::default()
        .to_options_string()
        .contains("optimize_filters="));
    for (s, needle) in [
        (
            "optimize_filters=true;bloom_bits_per_key_per_level=10:5",
            "bloom_bits_per_key_per_level",
        ),
        (
            "optimize_filters=true;optimize_filters_for_hits=true",
            "optimize_filters_for_hits",
        ),
        (
            "optimize_filters=true;compaction_style=kCompactionStyleUniversal",
            "kCompactionStyleLevel",
        ),
        (
            "optimize_filters=true;block_based_table_factory={filter_policy=nullptr}",
            "no filter",
        ),
    ] {
        let m = validate_error(s);
        assert!(
            m.contains("optimize_filters cannot") && m.contains(needle),
            "{s}: {m}"
        );
    }
    assert!(super::mutable::MUTABLE_CF_OPTIONS.contains(&"optimize_filters"));
}
