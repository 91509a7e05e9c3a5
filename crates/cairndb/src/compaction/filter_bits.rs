//! Filter bits per level with `optimize_filters`: the table's `filter_policy` bits per key, as
//! a memory budget spread over the tree's runs as Monkey prescribes (`lsm_math::monkey`), so
//! that a lookup of an absent key expects the fewest false positives for that memory.
//!
//! The shape the bits are computed for (a pure function of the version and the options, so
//! that flushes and compactions of one version agree):
//! - L0: `level0_file_num_compaction_trigger` runs of `write_buffer_size` bytes (a lookup
//!   probes every L0 file, and that is about how many L0 holds);
//! - each level from 1 down to the deepest level holding data: one run, of the level's target
//!   size where it has one (`LevelTargets`: with dynamic level bytes these are sized from the
//!   last level), else of its current size; the deepest level holding data at its current
//!   size. Empty levels are not runs.
//!
//! Bytes stand for keys (the budget is bits per key times bytes, so the unit cancels when keys
//! have one size on every level). The allocation is `lsm_math::monkey::leveled_tree` on
//! CairnDB's cache-local filter's curve. A level outside the shape (a compaction into a level
//! deeper than any data) gets the deepest run's bits.

use super::score::LevelTargets;
use crate::lsm_math::monkey::leveled_tree;
use crate::options::CfOptions;
use crate::version::Version;

/// Keys (as bytes) of each level below L0 in the shape (index = level; 0 for L0 and for levels
/// that are not runs).
fn shape(version: &Version, options: &CfOptions) -> Vec<f64> {
    let n = version.num_levels();
    let targets = LevelTargets::compute(version, options);
    let deepest = (1..n).rev().find(|&l| version.level_bytes(l) > 0);
    let mut bytes = vec![0.0; n];
    if let Some(deepest) = deepest {
        for (l, b) in bytes.iter_mut().enumerate().take(deepest + 1).skip(1) {
            let target = targets.target(l);
            *b = if l < deepest && target != u64::MAX {
                target as f64
            } else {
                version.level_bytes(l) as f64
            };
        }
    }
    bytes
}

/// Bits per key for tables written to each level (index = level) under `optimize_filters`.
pub fn optimized_bits_by_level(version: &Version, options: &CfOptions) -> Vec<f64> {
    let (l0, mut by_level) = leveled_tree(
        options.level0_file_num_compaction_trigger as usize,
        options.write_buffer_size as f64,
        &shape(version, options),
        options.table.bloom_bits_per_key,
    );
    by_level[0] = l0;
    by_level
}

/// Bits per key of a table written to `level` of a family whose current version is `version`
/// (None: no version yet, the options' own bits).
pub fn filter_bits_for(
    version: Option<&Version>,
    options: &CfOptions,
    level: usize,
    is_bottommost: bool,
) -> f64 {
    match version {
        Some(v) => output_filter_bits(v, options, level, is_bottommost),
        None => options.bloom_bits_for_level(level, is_bottommost),
    }
}

/// Bits per key of a table written to `level`: [`optimized_bits_by_level`] with
/// `optimize_filters`, else the options' own ([`CfOptions::bloom_bits_for_level`]).
pub fn output_filter_bits(
    version: &Version,
    options: &CfOptions,
    level: usize,
    is_bottommost: bool,
) -> f64 {
    if options.optimize_filters {
        optimized_bits_by_level(version, options)[level]
    } else {
        options.bloom_bits_for_level(level, is_bottommost)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::comparator::KeyOrder;
    use crate::lsm_math::monkey::{cache_local_fpr, expected_false_positives};
    use crate::test_util::file_meta;

    /// A version with one file of `bytes[l]` bytes on each level that has some.
    fn version(bytes: &[u64]) -> Version {
        let levels = bytes
            .iter()
            .enumerate()
            .map(|(l, &b)| {
                if b == 0 {
                    Vec::new()
                } else {
                    vec![Arc::new(file_meta(l as u64 + 1, b"a", b"z", b, (1, 1)))]
                }
            })
            .collect();
        Version::new(levels, KeyOrder::BYTEWISE).expect("valid version")
    }

    fn options() -> CfOptions {
        let mut o = CfOptions {
            optimize_filters: true,
            level_compaction_dynamic_level_bytes: false,
            max_bytes_for_level_base: 10 << 20,
            write_buffer_size: 1 << 20,
            level0_file_num_compaction_trigger: 4,
            ..CfOptions::default()
        };
        o.table.bloom_bits_per_key = 10.0;
        o
    }

    /// Static targets 10, 100 MiB, data down to L3 (400 MiB): fewer bits per key each level
    /// down, the same total memory as 10 bits everywhere, and fewer expected false positives.
    #[test]
    fn deeper_levels_get_fewer_bits_for_the_same_memory() {
        let o = options();
        let v = version(&[1 << 20, 10 << 20, 100 << 20, 400 << 20, 0, 0, 0]);
        let bits = optimized_bits_by_level(&v, &o);
        assert!(
            bits[0] > bits[1] && bits[1] > bits[2] && bits[2] > bits[3],
            "{bits:?}"
        );
        assert_eq!(
            bits[4], bits[3],
            "levels past the data take the deepest run's bits"
        );
        // The shape: 4 L0 runs of 1 MiB, then 10, 100 (targets) and 400 MiB (L3's size).
        let sizes = [1.0, 1.0, 1.0, 1.0, 10.0, 100.0, 400.0];
        let per_run = [
            bits[0], bits[0], bits[0], bits[0], bits[1], bits[2], bits[3],
        ];
        let spent: f64 = sizes.iter().zip(&per_run).map(|(s, b)| s * b).sum();
        let total = 10.0 * sizes.iter().sum::<f64>();
        assert!(
            spent <= total * (1.0 + 1e-9) && spent > total * 0.99,
            "{spent} of {total}"
        );
        let r = expected_false_positives(&per_run, cache_local_fpr);
        let uniform = expected_false_positives(&[10.0; 7], cache_local_fpr);
        assert!(r < uniform, "{r} against {uniform} with 10 bits everywhere");
        assert_eq!(output_filter_bits(&v, &o, 2, false), bits[2]);
    }

    #[test]
    fn off_it_is_the_options_bits_and_an_empty_tree_gets_the_table_bits_everywhere() {
        let mut o = options();
        let v = version(&[0, 0, 0, 0]);
        let bits = optimized_bits_by_level(&v, &o);
        assert!(bits.iter().all(|&b| (b - bits[0]).abs() < 0.1), "{bits:?}");
        assert!((bits[0] - 10.0).abs() < 0.1, "{bits:?}");
        o.optimize_filters = false;
        o.bloom_bits_per_key_per_level = vec![3.0, 7.0];
        assert_eq!(output_filter_bits(&v, &o, 0, false), 3.0);
        assert_eq!(output_filter_bits(&v, &o, 3, false), 7.0);
    }
}
