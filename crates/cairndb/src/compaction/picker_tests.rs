//! Tests of the leveled picker, the plan and manual compaction planning: worked examples, one
//! test per rule, and random trees on which every plan must keep the plan invariants. Manual
//! compaction's worked examples (`picker_manual_tests.rs`) and `kRoundRobin`
//! (`picker_round_robin_tests.rs`) are child modules that use the helpers here.

use crate::comparator::KeyOrder;
use std::collections::HashSet;
use std::sync::Arc;

use proptest::prelude::*;

use super::manual::{
    pick_compact_range, BottommostLevelCompaction, ManualCompaction, ManualStep, RangeStep,
};
use super::picker::*;
use super::plan::{CompactionInputs, CompactionPlan, CompactionReason, RunningCompactions};
use super::plan_builder::target_file_size;
use super::score::*;
use crate::options::{CfOptions, CompactionPri};
use crate::test_util::file_meta;
use crate::types::{make_internal_key, ValueKind};
use crate::version::{FileMetaData, Version, VersionBuilder};

const MB: u64 = 1_000_000;
const GB: u64 = 1_000_000_000;

fn meta(number: u64, lo: &str, hi: &str, size: u64, seq: u64) -> FileMetaData {
    file_meta(number, lo.as_bytes(), hi.as_bytes(), size, (seq, seq))
}

fn file(number: u64, lo: &str, hi: &str, size: u64, seq: u64) -> Arc<FileMetaData> {
    Arc::new(meta(number, lo, hi, size, seq))
}

/// A version from `(level, file)` pairs; levels are put in order here.
fn version(num_levels: usize, files: Vec<(usize, Arc<FileMetaData>)>) -> Version {
    let mut levels = vec![Vec::new(); num_levels];
    for (l, f) in files {
        levels[l].push(f);
    }
    levels[0].sort_by(|a: &Arc<FileMetaData>, b| {
        b.largest_seqno
            .cmp(&a.largest_seqno)
            .then(b.number.cmp(&a.number))
    });
    for files in levels.iter_mut().skip(1) {
        files.sort_by(|a, b| a.smallest.cmp(&b.smallest));
    }
    Version::new(levels, KeyOrder::BYTEWISE).expect("valid test version")
}

/// Small sizes so tests read in bytes: L1 target 1000, multiplier 10, files of 100.
fn small_options() -> CfOptions {
    CfOptions {
        max_bytes_for_level_base: 1000,
        target_file_size_base: 100,
        level_compaction_dynamic_level_bytes: false,
        ttl: 0,
        periodic_compaction_seconds: 0,
        ..CfOptions::default()
    }
}

fn input<'a>(v: &'a Version, o: &'a CfOptions, r: &'a RunningCompactions) -> PickerInput<'a> {
    PickerInput {
        version: v,
        options: o,
        running: r,
        now_secs: 1_000_000,
    }
}

fn pick(v: &Version, o: &CfOptions, r: &RunningCompactions) -> Option<CompactionPlan> {
    let plan = pick_compaction(&input(v, o, r));
    if let Some(p) = &plan {
        p.check(v, r).unwrap_or_else(|e| panic!("{e}: {p:#?}"));
    }
    plan
}

fn numbers(plan: &CompactionPlan, level: usize) -> Vec<u64> {
    plan.inputs
        .iter()
        .filter(|i| i.level == level)
        .flat_map(|i| i.files.iter().map(|f| f.number))
        .collect()
}

fn key(i: u32) -> String {
    format!("k{i:04}")
}

// ---- level targets ----

#[test]
fn dynamic_targets_follow_the_last_level_worked_example() {
    // The leveled-compaction wiki's shape: 300 GB in the last level, multiplier 10 → 30 GB,
    // 3 GB, 300 MB above it; 30 MB would be below max_bytes_for_level_base (256 MiB), so the
    // level holding it becomes the base level with the base size as its target.
    let o = CfOptions::default();
    let v = version(7, vec![(6, file(1, "a", "z", 300 * GB, 1))]);
    let t = LevelTargets::compute(&v, &o);
    assert_eq!(t.base_level, 2);
    assert_eq!(t.target(6), 300 * GB);
    assert_eq!(t.target(5), 30 * GB);
    assert_eq!(t.target(4), 3 * GB);
    assert_eq!(t.target(3), 300 * MB);
    assert_eq!(t.target(2), 256 << 20);
    assert_eq!(t.target(1), u64::MAX);
    assert_eq!(t.target(0), u64::MAX);
    assert_eq!(t.lowest_unnecessary_level, None);
}

#[test]
fn dynamic_targets_for_a_small_tree_put_the_base_just_above_the_data() {
    let o = CfOptions::default();
    let v = version(7, vec![(6, file(1, "a", "z", GB, 1))]);
    let t = LevelTargets::compute(&v, &o);
    assert_eq!(t.base_level, 5);
    assert_eq!(t.target(5), 256 << 20, "100 MB is raised to the base size");
    assert_eq!(t.target(6), GB);
    assert!((1..5).all(|l| t.target(l) == u64::MAX));
}

#[test]
fn dynamic_targets_of_an_empty_tree_send_l0_to_the_last_level() {
    let v = version(7, vec![(0, file(1, "a", "z", 10, 1))]);
    let t = LevelTargets::compute(&v, &CfOptions::default());
    assert_eq!(t.base_level, 6);
    assert!(t.max_bytes.iter().all(|&b| b == u64::MAX));
}

#[test]
fn dynamic_targets_mark_unnecessary_levels_and_score_them_for_draining() {
    // L1 holds data that a 300 GB tree does not need a level for.
    let o = CfOptions::default();
    let v = version(
        7,
        vec![
            (1, file(1, "a", "b", MB, 2)),
            (6, file(2, "a", "z", 300 * GB, 1)),
        ],
    );
    let t = LevelTargets::compute(&v, &o);
    assert_eq!(t.lowest_unnecessary_level, Some(1));
    assert_eq!(t.base_level, 1);
    let report = compaction_report(&v, &o, &RunningCompactions::new());
    assert!(report.levels[1].score >= 10.0 * 1.001 - 1e-9);
}

#[test]
fn static_targets_multiply_from_the_base() {
    let o = small_options();
    let v = version(5, vec![]);
    let t = LevelTargets::compute(&v, &o);
    assert_eq!(t.base_level, 1);
    assert_eq!(
        t.max_bytes,
        vec![u64::MAX, 1000, 10_000, 100_000, 1_000_000]
    );
}

#[test]
fn target_file_size_grows_with_the_multiplier() {
    let o = CfOptions {
        target_file_size_base: 64,
        target_file_size_multiplier: 2,
        level_compaction_dynamic_level_bytes: false,
        ..CfOptions::default()
    };
    assert_eq!(target_file_size(&o, 1, 1), 64);
    assert_eq!(target_file_size(&o, 2, 1), 128);
    assert_eq!(target_file_size(&o, 4, 1), 512);
    assert_eq!(target_file_size(&o, 0, 1), u64::MAX);
    let dynamic = CfOptions {
        level_compaction_dynamic_level_bytes: true,
        ..o.clone()
    };
    // Counted from the base level (RocksDB's MaxFileSizeForLevel).
    assert_eq!(target_file_size(&dynamic, 4, 4), 64);
    assert_eq!(target_file_size(&dynamic, 5, 4), 64);
    assert_eq!(target_file_size(&dynamic, 6, 4), 128);
    assert_eq!(max_compaction_bytes(&o), 25 * 64);
}

// ---- scores and pending bytes ----

#[test]
fn l0_score_is_files_over_trigger_or_bytes_over_base() {
    let o = small_options();
    let r = RunningCompactions::new();
    let l0 = |n: u64, size: u64| -> Vec<_> {
        (1..=n).map(|i| (0, file(i, "a", "b", size, i))).collect()
    };
    let s = |v: &Version| compaction_report(v, &o, &r).levels[0].score;
    assert_eq!(s(&version(4, l0(2, 10))), 0.5);
    assert_eq!(s(&version(4, l0(4, 10))), 1.0);
    assert_eq!(
        s(&version(4, l0(2, 1000))),
        2.0,
        "2000 bytes over a 1000 byte base"
    );
    // With dynamic level bytes a score above 1 is scaled by 10 and L0 at the base size counts.
    let d = CfOptions {
        level_compaction_dynamic_level_bytes: true,
        ..o.clone()
    };
    let sd = |v: &Version| compaction_report(v, &d, &r).levels[0].score;
    assert_eq!(sd(&version(4, l0(8, 1))), 20.0);
    assert_eq!(sd(&version(4, l0(1, 1000))), 1.01 * 10.0);
}

#[test]
fn files_being_compacted_do_not_count_towards_scores() {
    let o = small_options();
    let mut files: Vec<_> = (1..=4).map(|i| (0, file(i, "a", "b", 10, i))).collect();
    files.push((1, file(10, "a", "c", 1500, 0)));
    files.push((1, file(11, "d", "e", 500, 0)));
    let v = version(4, files);
    let mut r = RunningCompactions::new();
    let running = pick(&v, &o, &r).expect("L1 or L0 needs compaction");
    assert_eq!(compaction_report(&v, &o, &r).levels[1].score, 2.0);
    r.register(&running, &KeyOrder::BYTEWISE);
    let report = compaction_report(&v, &o, &r);
    assert!(report.levels[0].score < 1.0 || report.levels[1].score < 2.0);
    assert_eq!(
        report
            .levels
            .iter()
            .map(|l| l.num_files_being_compacted)
            .sum::<usize>(),
        running.num_input_files()
    );
}

#[test]
fn level_score_is_bytes_over_target_and_the_last_level_has_none() {
    let o = small_options();
    let v = version(
        4,
        vec![
            (1, file(1, "a", "b", 500, 1)),
            (2, file(2, "a", "b", 25_000, 1)),
            (3, file(3, "a", "b", 1_000_000, 1)),
        ],
    );
    let report = compaction_report(&v, &o, &RunningCompactions::new());
    assert_eq!(report.levels[1].score, 0.5);
    assert_eq!(report.levels[2].score, 2.5);
    assert_eq!(report.levels[3].score, 0.0);
    assert_eq!(report.levels_by_score()[0], (2, 2.5));
    assert_eq!(
        report.levels_by_score().len(),
        3,
        "the last level is not an input"
    );
    assert_eq!(report.max_score(), 2.5);
}

#[test]
fn pending_bytes_follow_rocksdb_estimate() {
    let o = small_options();
    // L0 below its trigger. L1: 2500 of 1000 → 1500 carried, L2 holds 5000: rewriting costs
    // 1500 * (5000 / 2500 + 1) = 4500. L2: 5000 + 1500 = 6500 <= 10000.
    let v = version(
        4,
        vec![
            (0, file(1, "a", "b", 10, 9)),
            (1, file(2, "a", "b", 2500, 5)),
            (2, file(3, "a", "b", 5000, 1)),
        ],
    );
    let report = compaction_report(&v, &o, &RunningCompactions::new());
    assert_eq!(report.pending_compaction_bytes, 4500);
    // L0 at its trigger adds L0 and the base level: 4 * 100 + 2500, and L1 carries 400 more:
    // (2900 - 1000) * (5000 / 2900 + 1).
    let mut files: Vec<_> = (1..=4)
        .map(|i| (0, file(i, "a", "b", 100, 10 + i)))
        .collect();
    files.push((1, file(5, "a", "b", 2500, 5)));
    files.push((2, file(6, "a", "b", 5000, 1)));
    let v = version(4, files);
    let report = compaction_report(&v, &o, &RunningCompactions::new());
    let carried = 1900.0_f64;
    let expect = 400 + 2500 + (carried * (5000.0 / 2900.0 + 1.0)) as u64;
    assert_eq!(report.pending_compaction_bytes, expect);
}

// ---- picking ----

#[test]
fn l0_compaction_takes_all_overlapping_l0_files_and_the_base_files_below() {
    let o = small_options();
    // L0 score 2000 / 1000 = 2 beats L1's 1300 / 1000. Per byte, file 2 overlaps least of L1.
    let v = version(
        4,
        vec![
            (0, file(1, "c", "e", 500, 1)),
            (0, file(2, "d", "g", 500, 2)),
            (0, file(3, "a", "a", 500, 3)),
            (0, file(4, "f", "h", 500, 4)),
            (1, file(9, "a", "a", 1000, 0)),
            (1, file(10, "b", "c", 100, 0)),
            (1, file(11, "d", "f", 100, 0)),
            (1, file(12, "x", "z", 100, 0)),
            (2, file(20, "a", "d", 100, 0)),
            (2, file(21, "q", "r", 100, 0)),
        ],
    );
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("4 L0 files reach the trigger");
    assert_eq!(plan.reason, CompactionReason::LevelL0FilesNum);
    assert_eq!(plan.output_level, 1);
    // File 2 starts; it overlaps files 1 and 4, and the range [c,h] takes L1 files 10 and 11.
    let mut l0 = numbers(&plan, 0);
    l0.sort_unstable();
    assert_eq!(l0, vec![1, 2, 4], "[a,a] overlaps none of them and stays");
    assert_eq!(numbers(&plan, 1), vec![10, 11]);
    assert_eq!(
        plan.grandparents
            .iter()
            .map(|f| f.number)
            .collect::<Vec<_>>(),
        vec![20]
    );
    assert!(!plan.is_trivial_move);
    assert!(!plan.is_bottommost, "L2 holds [a,d]");
    assert_eq!(plan.target_file_size, 100);
    assert_eq!(plan.max_compaction_bytes, 2500);
    assert_eq!(plan.score, 2.0);
}

fn l1_over_target(pri: CompactionPri) -> (Version, CfOptions) {
    // L1 = 1200 of 1000. File 1 [a,b] overlaps 500 bytes of L2 (ratio 2.5), file 2 [e,f]
    // overlaps 100 (ratio 0.25), file 3 [m,n] overlaps 300 (ratio 0.5).
    let o = CfOptions {
        compaction_pri: pri,
        ..small_options()
    };
    let v = version(
        4,
        vec![
            (
                1,
                Arc::new(FileMetaData {
                    largest_seqno: 50,
                    smallest_seqno: 1,
                    ..meta(1, "a", "b", 200, 1)
                }),
            ),
            (
                1,
                Arc::new(FileMetaData {
                    largest_seqno: 10,
                    smallest_seqno: 9,
                    ..meta(2, "e", "f", 400, 1)
                }),
            ),
            (
                1,
                Arc::new(FileMetaData {
                    largest_seqno: 30,
                    smallest_seqno: 2,
                    ..meta(3, "m", "n", 600, 1)
                }),
            ),
            (2, file(20, "a", "c", 500, 0)),
            (2, file(21, "e", "e", 100, 0)),
            (2, file(22, "m", "m", 300, 0)),
        ],
    );
    (v, o)
}

#[test]
fn compaction_pri_orders_the_files_of_a_level() {
    let r = RunningCompactions::new();
    let cases = [
        (CompactionPri::MinOverlappingRatio, vec![1, 2, 0]),
        (CompactionPri::ByCompensatedSize, vec![2, 1, 0]),
        (CompactionPri::OldestLargestSeqFirst, vec![1, 2, 0]),
        (CompactionPri::OldestSmallestSeqFirst, vec![0, 2, 1]),
    ];
    for (pri, order) in cases {
        let (v, o) = l1_over_target(pri);
        assert_eq!(
            files_by_compaction_pri(&input(&v, &o, &r), 1, 2),
            order,
            "{pri:?}"
        );
        let plan = pick(&v, &o, &r).expect("L1 is over its target");
        let first = v.files(1)[order[0]].number;
        assert_eq!(numbers(&plan, 1), vec![first], "{pri:?}");
        assert_eq!(plan.reason, CompactionReason::LevelMaxBytes);
    }
    let (v, _) = l1_over_target(CompactionPri::MinOverlappingRatio);
    assert_eq!(overlapping_ratio(&v, &v.files(1)[0], 2), 500 * 1024 / 200);
}

/// Six disjoint L1 files of 200 bytes (keys 0-5, 10-15, ...; L1 is over its 1000-byte target)
/// above one L2 file whose range (100-200) none of them overlaps.
fn l1_over_an_unrelated_l2() -> Version {
    let mut files: Vec<_> = (0..6u32)
        .map(|i| {
            (
                1,
                file(u64::from(i) + 1, &key(i * 10), &key(i * 10 + 5), 200, 1),
            )
        })
        .collect();
    files.push((2, file(50, &key(100), &key(200), 100, 0)));
    version(4, files)
}

#[test]
fn a_file_with_nothing_below_is_moved_trivially_and_extended_to_its_neighbours() {
    let o = small_options();
    let v = l1_over_an_unrelated_l2();
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("L1 is over its target");
    assert!(plan.is_trivial_move);
    assert_eq!(
        numbers(&plan, 1),
        vec![1, 2, 3, 4],
        "at most four files move at once"
    );
    assert!(plan.grandparents.is_empty());
    let edit = plan.trivial_move_edit();
    assert_eq!(edit.deleted_files.len(), 4);
    assert!(edit.deleted_files.iter().all(|d| d.level == 1));
    assert!(edit.new_files.iter().all(|f| f.level == 2));
    assert_eq!(edit.new_files[0].meta, *v.files(1)[0]);
    // The edit applies: the files are in L2 afterwards.
    let mut b = VersionBuilder::new(Arc::new(v.clone()));
    b.apply(&edit).expect("edit applies");
    let next = b.build().expect("valid");
    assert_eq!(next.num_files(2), 5);
}

/// A file written with one level's filter bits is rewritten, not moved, into a level whose
/// bits differ; with the same bits on both levels the move stays trivial (one file at a time,
/// as with `compression_per_level`).
#[test]
fn no_trivial_move_between_levels_of_different_filter_bits() {
    let v = l1_over_an_unrelated_l2();
    let mut o = small_options();
    o.bloom_bits_per_key_per_level = vec![10.0, 10.0, 6.0];
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("L1 is over its target");
    assert!(!plan.is_trivial_move, "L1 has 10 bits per key, L2 6");
    o.bloom_bits_per_key_per_level = vec![10.0, 8.0];
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("L1 is over its target");
    assert!(
        plan.is_trivial_move,
        "8 bits on L1 and, as the last entry, on L2"
    );
    assert_eq!(
        numbers(&plan, 1),
        vec![1],
        "a per-level setting is not extended to neighbours (as with compression_per_level)"
    );
    o.bloom_bits_per_key_per_level = Vec::new();
    o.table.bloom_bits_per_key = 7.0;
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("L1 is over its target");
    assert!(plan.is_trivial_move, "one setting for every level");
}

#[test]
fn no_trivial_move_when_the_grandparent_overlap_is_too_large() {
    let o = small_options();
    let v = version(
        4,
        vec![
            (1, file(1, "a", "b", 1100, 1)),
            (3, file(30, "a", "z", 3000, 0)),
        ],
    );
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("L1 is over its target");
    assert_eq!(numbers(&plan, 1), vec![1]);
    assert_eq!(plan.output_level, 2);
    assert!(
        !plan.is_trivial_move,
        "1100 + 3000 > max_compaction_bytes 2500"
    );
    assert_eq!(
        plan.grandparents.len(),
        1,
        "the first non-empty level below the output"
    );
    assert!(!plan.is_bottommost);
}

#[test]
fn oldest_non_overlapping_l0_files_move_down_trivially() {
    let o = small_options();
    let v = version(
        4,
        vec![
            (0, file(1, "a", "b", 100, 1)),
            (0, file(2, "c", "d", 100, 2)),
            (0, file(3, "c", "f", 100, 3)),
            (0, file(4, "a", "z", 100, 4)),
            (1, file(10, "x", "y", 100, 0)),
        ],
    );
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("L0 at its trigger");
    assert!(plan.is_trivial_move);
    assert_eq!(
        numbers(&plan, 0),
        vec![2, 1],
        "file 3 overlaps file 2 and stops the run"
    );
    assert_eq!(plan.output_level, 1);
}

#[test]
fn no_trivial_move_into_the_range_a_running_compaction_writes() {
    // A manual L1 → L1 compaction over [a,z] runs; the L0 files fit a gap of L1 but its output
    // will cover the gap.
    let o = small_options();
    let mut files: Vec<_> = (1..=4u64).map(|i| (0, file(i, "m", "m", 10, i))).collect();
    files.push((1, file(10, "a", "b", 10, 0)));
    files.push((1, file(11, "y", "z", 10, 0)));
    let v = version(4, files);
    let mut r = RunningCompactions::new();
    let RangeStep::Plan { plan: manual, .. } =
        pick_compact_range(&input(&v, &o, &r), 1, 1, None, None)
    else {
        panic!("L1 holds files")
    };
    assert!(!manual.is_trivial_move);
    r.register(&manual, &KeyOrder::BYTEWISE);
    assert_eq!(
        pick(&v, &o, &r),
        None,
        "L0 → L1 must wait for the L1 compaction"
    );
    r.unregister(&manual);
    let plan = pick(&v, &o, &r).expect("L0 at its trigger");
    assert!(plan.is_trivial_move);
}

#[test]
fn intra_l0_when_the_base_level_is_busy() {
    let o = small_options();
    let mut files: Vec<_> = (1..=7u64).map(|i| (0, file(i, "a", "m", 10, i))).collect();
    files.push((1, file(20, "a", "z", 5000, 0)));
    files.push((2, file(30, "a", "z", 100, 0)));
    let v = version(4, files);
    let mut r = RunningCompactions::new();
    let down = pick_compact_range(&input(&v, &o, &r), 1, 2, None, None);
    let RangeStep::Plan { plan: busy, .. } = down else {
        panic!("L1 → L2 plan expected, got {down:?}")
    };
    r.register(&busy, &KeyOrder::BYTEWISE);
    let plan = pick(&v, &o, &r).expect("L0 has 7 files");
    assert_eq!(plan.reason, CompactionReason::IntraL0);
    assert_eq!(plan.output_level, 0);
    assert_eq!(numbers(&plan, 0), vec![7, 6, 5, 4, 3, 2, 1]);
    assert!(plan.grandparents.is_empty());
    assert_eq!(plan.target_file_size, u64::MAX);
    assert!(!plan.is_bottommost, "L1 lies below");
}

#[test]
fn size_based_intra_l0_while_another_l0_compaction_runs() {
    // The base level is more than 20x L0: merging L0 into itself is cheaper.
    let o = CfOptions {
        max_bytes_for_level_base: 1_000_000,
        ..small_options()
    };
    let mut files: Vec<_> = (1..=8u64)
        .map(|i| {
            (
                0,
                file(i, &key(i as u32 * 10), &key(i as u32 * 10 + 5), 10, i),
            )
        })
        .collect();
    files.push((1, file(20, "a", "z", 100_000, 0)));
    let v = version(4, files);
    let mut r = RunningCompactions::new();
    let first = pick(&v, &o, &r).expect("L0 over trigger");
    assert_eq!(first.reason, CompactionReason::IntraL0);
    assert_eq!(numbers(&first, 0), vec![8, 7, 6, 5, 4, 3, 2, 1]);
    r.register(&first, &KeyOrder::BYTEWISE);
    assert_eq!(
        pick(&v, &o, &r),
        None,
        "every L0 file is busy; L1 is below its target"
    );
}

#[test]
fn concurrent_plans_never_share_files_or_output_ranges() {
    let o = small_options();
    let mut files = Vec::new();
    for i in 0..20u32 {
        files.push((
            1,
            file(u64::from(i) + 1, &key(i * 10), &key(i * 10 + 5), 300, 1),
        ));
        files.push((
            2,
            file(
                u64::from(i) + 100,
                &key(i * 10 + 3),
                &key(i * 10 + 8),
                300,
                0,
            ),
        ));
    }
    let v = version(4, files);
    let mut r = RunningCompactions::new();
    let mut plans = Vec::new();
    while let Some(plan) = pick(&v, &o, &r) {
        r.register(&plan, &KeyOrder::BYTEWISE);
        plans.push(plan);
        assert!(plans.len() < 100, "picking must end");
    }
    assert!(plans.len() > 1, "several disjoint L1 → L2 compactions fit");
    let mut seen = HashSet::new();
    for p in &plans {
        for (_, f) in p.input_files() {
            assert!(seen.insert(f.number));
        }
    }
    for (i, a) in plans.iter().enumerate() {
        for b in &plans[i + 1..] {
            let (alo, ahi) = a.user_key_range(&KeyOrder::BYTEWISE);
            let (blo, bhi) = b.user_key_range(&KeyOrder::BYTEWISE);
            assert!(a.output_level != b.output_level || ahi < blo || bhi < alo);
        }
    }
    for p in &plans {
        r.unregister(p);
    }
    assert!(r.is_empty());
}

#[test]
fn bottommost_when_nothing_lies_below_the_range() {
    let o = small_options();
    let v = version(
        4,
        vec![
            (1, file(1, "a", "b", 1100, 1)),
            (2, file(20, "a", "a", 10, 0)),
            (3, file(30, "m", "z", 10, 0)),
        ],
    );
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("L1 over target");
    assert_eq!(numbers(&plan, 2), vec![20]);
    assert!(plan.is_bottommost, "L3 holds nothing in [a,b]");
}

#[test]
fn plan_edit_deletes_inputs_and_adds_outputs() {
    let o = small_options();
    let (v, _) = l1_over_target(CompactionPri::MinOverlappingRatio);
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("picked");
    let out = meta(99, "e", "f", 450, 1);
    let edit = plan.edit(vec![out.clone()]);
    let deleted: Vec<_> = edit
        .deleted_files
        .iter()
        .map(|d| (d.level, d.number))
        .collect();
    assert_eq!(deleted, vec![(1, 2), (2, 21)]);
    assert_eq!(edit.new_files.len(), 1);
    assert_eq!(
        (edit.new_files[0].level, &edit.new_files[0].meta),
        (2, &out)
    );
    let mut b = VersionBuilder::new(Arc::new(v));
    b.apply(&edit).expect("applies");
    b.build().expect("valid");
}

#[test]
fn ttl_compacts_old_files_down_but_not_from_the_last_non_empty_level() {
    let o = CfOptions {
        ttl: 100,
        ..small_options()
    };
    let old = |n, lo, hi| {
        Arc::new(FileMetaData {
            oldest_ancester_time: Some(10),
            ..meta(n, lo, hi, 10, 1)
        })
    };
    let v = version(4, vec![(1, old(1, "a", "b")), (2, old(2, "x", "y"))]);
    let r = RunningCompactions::new();
    let plan = pick(&v, &o, &r).expect("file 1 expired");
    assert_eq!(plan.reason, CompactionReason::Ttl);
    assert_eq!((numbers(&plan, 1), plan.output_level), (vec![1], 2));
    let v = version(4, vec![(2, old(2, "x", "y"))]);
    assert_eq!(pick(&v, &o, &r), None, "L2 is the last non-empty level");
    let fresh = CfOptions {
        ttl: 10_000_000,
        ..o
    };
    let v = version(4, vec![(1, old(1, "a", "b")), (2, old(2, "x", "y"))]);
    assert_eq!(pick(&v, &fresh, &r), None);
}

#[test]
fn periodic_rewrites_old_files() {
    let o = CfOptions {
        periodic_compaction_seconds: 100,
        ..small_options()
    };
    let born = |n, lo, hi, t| {
        Arc::new(FileMetaData {
            creation_time: Some(t),
            ..meta(n, lo, hi, 10, 1)
        })
    };
    let v = version(
        4,
        vec![(3, born(1, "a", "b", 5)), (3, born(2, "c", "d", 999_999))],
    );
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("file 1 is old");
    assert_eq!(plan.reason, CompactionReason::Periodic);
    assert_eq!((numbers(&plan, 3), plan.output_level), (vec![1], 3));
    assert!(!plan.is_trivial_move);
    assert!(plan.is_bottommost);
    let dynamic = CfOptions {
        level_compaction_dynamic_level_bytes: true,
        ..o
    };
    let v = version(
        4,
        vec![(2, born(1, "a", "b", 5)), (3, born(2, "c", "d", 999_999))],
    );
    let plan = pick(&v, &dynamic, &RunningCompactions::new()).expect("file 1 is old");
    assert_eq!(
        plan.output_level, 3,
        "dynamic level bytes push it one level down"
    );
}

#[test]
fn nothing_to_do_and_disabled_auto_compactions_pick_nothing() {
    let o = small_options();
    let r = RunningCompactions::new();
    assert_eq!(pick(&version(4, vec![]), &o, &r), None);
    let v = version(4, (1..=9).map(|i| (0, file(i, "a", "b", 10, i))).collect());
    assert!(pick(&v, &o, &r).is_some());
    let off = CfOptions {
        disable_auto_compactions: true,
        ..o
    };
    assert_eq!(pick(&v, &off, &r), None);
}

// ---- manual compaction ----

/// Applies a plan's result as the job would: trivial moves move; others write one output per
/// input range (the union of the inputs, size kept).
fn apply(v: &Version, plan: &CompactionPlan, next_number: &mut u64) -> Version {
    let edit = if plan.is_trivial_move {
        plan.trivial_move_edit()
    } else {
        let (lo, hi) = plan.user_key_range(&KeyOrder::BYTEWISE);
        let seq = plan
            .input_files()
            .map(|(_, f)| f.largest_seqno)
            .max()
            .unwrap_or(0);
        *next_number += 1;
        let out = meta(
            *next_number,
            std::str::from_utf8(&lo).expect("ascii"),
            std::str::from_utf8(&hi).expect("ascii"),
            plan.input_bytes(),
            seq,
        );
        plan.edit(vec![out])
    };
    let mut b = VersionBuilder::new(Arc::new(v.clone()));
    b.apply(&edit).expect("edit applies");
    b.build().expect("valid version")
}

fn run_manual(
    v: Version,
    o: &CfOptions,
    begin: Option<&str>,
    end: Option<&str>,
    bottom: BottommostLevelCompaction,
) -> (Version, Vec<CompactionPlan>) {
    let mut m = ManualCompaction::new(begin.map(str::as_bytes), end.map(str::as_bytes), bottom);
    let r = RunningCompactions::new();
    let mut v = v;
    let mut plans = Vec::new();
    let mut next_number = 1000;
    loop {
        match m.next(&input(&v, o, &r)) {
            ManualStep::Done => return (v, plans),
            ManualStep::Wait => panic!("nothing runs"),
            ManualStep::Run(plan) => {
                plan.check(&v, &r).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(plan.reason, CompactionReason::Manual);
                v = apply(&v, &plan, &mut next_number);
                plans.push(plan);
                assert!(plans.len() < 200, "manual compaction must end");
            }
        }
    }
}

// ---- random trees ----

/// A random valid tree: L0 files with random ranges (newest first), deeper levels with disjoint
/// sorted ranges; sizes 1..=600; keys k0000..k0999.
fn arb_tree(num_levels: usize) -> impl Strategy<Value = Version> {
    let l0 = prop::collection::vec((0u32..1000, 0u32..60, 1u64..=600), 0..12);
    let deeper = prop::collection::vec(
        (prop::collection::btree_set(0u32..1000, 0..40), 1u64..=600),
        num_levels - 1,
    );
    (l0, deeper).prop_map(move |(l0, deeper)| {
        let mut number = 0;
        let mut files = Vec::new();
        let n = l0.len() as u64;
        for (i, (lo, width, size)) in l0.into_iter().enumerate() {
            number += 1;
            let seq = 10_000 + n - i as u64;
            files.push((
                0,
                file(number, &key(lo), &key((lo + width).min(999)), size, seq),
            ));
        }
        for (l, (bounds, size)) in deeper.into_iter().enumerate() {
            let bounds: Vec<u32> = bounds.into_iter().collect();
            for pair in bounds.chunks_exact(2) {
                number += 1;
                let seq = 1000 - l as u64 * 100;
                let sz = size * u64::from(pair[0] % 7 + 1);
                files.push((l + 1, file(number, &key(pair[0]), &key(pair[1]), sz, seq)));
            }
        }
        version(num_levels, files)
    })
}

fn arb_options() -> impl Strategy<Value = CfOptions> {
    (
        any::<bool>(),
        prop_oneof![
            Just(CompactionPri::MinOverlappingRatio),
            Just(CompactionPri::ByCompensatedSize),
            Just(CompactionPri::OldestLargestSeqFirst),
            Just(CompactionPri::OldestSmallestSeqFirst),
            Just(CompactionPri::RoundRobin),
        ],
        1u32..6,
        200u64..3000,
        50u64..400,
    )
        .prop_map(|(dynamic, pri, trigger, base, target)| CfOptions {
            level_compaction_dynamic_level_bytes: dynamic,
            compaction_pri: pri,
            level0_file_num_compaction_trigger: trigger,
            max_bytes_for_level_base: base,
            max_bytes_for_level_multiplier: 4.0,
            target_file_size_base: target,
            ttl: 0,
            periodic_compaction_seconds: 0,
            ..CfOptions::default()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Picking until nothing more can run: every plan keeps the plan invariants against the
    /// compactions already registered, and no two running plans share a file or an output range.
    #[test]
    fn concurrent_plans_on_random_trees_keep_the_invariants(
        v in arb_tree(5),
        o in arb_options(),
        manual in prop::option::of((0usize..4, any::<bool>(), 0u32..1000, 0u32..1000)),
    ) {
        let mut r = RunningCompactions::new();
        // Sometimes a manual compaction step (one level down, or a level into itself) runs
        // first; automatic plans must stay out of its way.
        if let Some((level, in_place, a, b)) = manual {
            let output = if in_place && level > 0 { level } else { level + 1 };
            let (lo, hi) = (key(a.min(b)), key(a.max(b)));
            let step = pick_compact_range(
                &input(&v, &o, &r), level, output, Some(lo.as_bytes()), Some(hi.as_bytes()),
            );
            if let RangeStep::Plan { plan, .. } = step {
                if let Err(e) = plan.check(&v, &r) {
                    return Err(TestCaseError::fail(format!("manual: {e}")));
                }
                r.register(&plan, &KeyOrder::BYTEWISE);
            }
        }
        let mut plans: Vec<CompactionPlan> = Vec::new();
        while let Some(plan) = pick_compaction(&input(&v, &o, &r)) {
            if let Err(e) = plan.check(&v, &r) {
                return Err(TestCaseError::fail(format!("{e}: {plan:#?}")));
            }
            let expected_output = match (plan.reason, plan.start_level()) {
                (CompactionReason::IntraL0, _) => 0,
                (_, 0) => LevelTargets::compute(&v, &o).base_level,
                (_, l) => l + 1,
            };
            prop_assert_eq!(plan.output_level, expected_output);
            prop_assert!(plan.score >= 1.0);
            r.register(&plan, &KeyOrder::BYTEWISE);
            plans.push(plan);
            prop_assert!(plans.len() <= v.total_files());
        }
        let l0_plans = plans.iter().filter(|p| p.start_level() == 0).count();
        prop_assert!(l0_plans <= 2, "one L0 → base and at most one intra-L0");
        prop_assert!(r.len() >= plans.len());
    }

    /// Running every picked plan to completion (one at a time) brings every level within its
    /// target, and manual compaction of everything then leaves one sorted run at the bottom.
    #[test]
    fn compacting_until_done_leaves_a_tree_within_targets(
        v in arb_tree(4),
        o in arb_options(),
    ) {
        let r = RunningCompactions::new();
        let mut v = v;
        let mut next = 100_000;
        let mut steps = 0;
        while let Some(plan) = pick_compaction(&input(&v, &o, &r)) {
            if let Err(e) = plan.check(&v, &r) {
                return Err(TestCaseError::fail(e));
            }
            v = apply(&v, &plan, &mut next);
            steps += 1;
            prop_assert!(steps < 500, "automatic compaction must converge");
        }
        let report = compaction_report(&v, &o, &r);
        prop_assert!(report.levels_by_score().iter().all(|(_, s)| *s < 1.0));
        let (after, _) = run_manual(v, &o, None, None, BottommostLevelCompaction::Skip);
        let deepest = (0..after.num_levels()).rev().find(|&l| after.num_files(l) > 0);
        if let Some(deepest) = deepest {
            prop_assert!((0..deepest).all(|l| after.num_files(l) == 0), "{:?}", after);
        }
    }
}

#[test]
fn deletions_weigh_extra_in_level_scores_and_file_order() {
    use crate::version::EntryStats;
    // File 1: 1000 puts of 10-byte keys and 100-byte values. File 2: 100 puts and `dels` point
    // deletions of the same shape.
    let stats = |puts: u64, dels: u64| EntryStats {
        num_entries: puts + dels,
        num_deletions: dels,
        num_range_deletions: 0,
        raw_key_bytes: 10 * (puts + dels),
        raw_value_bytes: 100 * puts,
    };
    let with = |m: FileMetaData, e: EntryStats| {
        Arc::new(FileMetaData {
            entry_stats: Some(e),
            ..m
        })
    };
    let tree = |dels: u64| {
        version(
            4,
            vec![
                (1, with(meta(1, "a", "b", 110_000, 5), stats(1000, 0))),
                (1, with(meta(2, "e", "f", 20_000, 6), stats(100, dels))),
                (2, file(20, "a", "c", 50_000, 1)),
                (2, file(21, "e", "g", 50_000, 2)),
            ],
        )
    };
    let o = CfOptions {
        max_bytes_for_level_base: 200_000,
        ..small_options()
    };
    let r = RunningCompactions::new();

    // 900 deletions of 1000 entries: 800 beyond half, each worth two average values. The
    // average value is 110,000 raw value bytes over 1,100 values, scaled by file bytes over raw
    // bytes (130,000 / 130,000): 100 bytes.
    let v = tree(900);
    assert_eq!(v.compensated_size(&v.files(1)[0]), 110_000);
    assert_eq!(v.compensated_size(&v.files(1)[1]), 20_000 + 800 * 100 * 2);
    assert_eq!(
        v.compensated_size(&v.files(2)[0]),
        50_000,
        "no counts: size"
    );
    assert_eq!(v.compensated_level_bytes(1), 290_000);
    // L1 holds 130,000 bytes of a 200,000 target, but weighs 290,000: it is compacted, the
    // file of deletions first (its overlap per compensated byte is the smallest).
    let plan = pick(&v, &o, &r).expect("L1 is over its target once deletions weigh extra");
    assert_eq!(numbers(&plan, 1), vec![2]);
    assert_eq!(plan.reason, CompactionReason::LevelMaxBytes);
    let by_size = CfOptions {
        compaction_pri: CompactionPri::ByCompensatedSize,
        ..o.clone()
    };
    assert_eq!(
        files_by_compaction_pri(&input(&v, &by_size, &r), 1, 2),
        vec![1, 0]
    );

    // 100 deletions of 200 entries: half, none beyond it, so no extra weight.
    let v = tree(100);
    assert_eq!(v.compensated_size(&v.files(1)[1]), 20_000);
    assert!(
        pick(&v, &o, &r).is_none(),
        "130,000 of 200,000: no compaction"
    );
    assert_eq!(
        files_by_compaction_pri(&input(&v, &by_size, &r), 1, 2),
        vec![0, 1]
    );
}

#[test]
fn min_overlapping_ratio_puts_marked_files_first_and_boosts_old_data_under_a_ttl() {
    let now = 1_000_000;
    let born = |m: FileMetaData, t: u64| {
        Arc::new(FileMetaData {
            oldest_ancester_time: Some(t),
            creation_time: Some(t),
            ..m
        })
    };
    // L1: file 1 overlaps 200 bytes below (ratio 2048), file 2 overlaps 1000 (ratio 10240) but
    // its data is 1000 s old; L3 is not empty, so L1 is not among the last two levels.
    let tree = |marked: bool| {
        version(
            4,
            vec![
                (1, born(meta(1, "a", "b", 100, 5), now - 10)),
                (1, born(meta(2, "e", "f", 100, 6), now - 1000)),
                (
                    1,
                    Arc::new(FileMetaData {
                        marked_for_compaction: marked,
                        ..meta(3, "m", "n", 100, 7)
                    }),
                ),
                (2, file(20, "a", "c", 200, 1)),
                (2, file(21, "e", "g", 1000, 2)),
                (2, file(22, "m", "n", 5000, 3)),
                (3, file(30, "a", "z", 10_000, 1)),
            ],
        )
    };
    let r = RunningCompactions::new();
    let order = |v: &Version, ttl: u64| {
        let o = CfOptions {
            ttl,
            ..small_options()
        };
        let i = PickerInput {
            version: v,
            options: &o,
            running: &r,
            now_secs: now,
        };
        files_by_compaction_pri(&i, 1, 2)
    };
    let v = tree(false);
    assert_eq!(order(&v, 0), vec![0, 1, 2], "by overlapping ratio");
    // TTL 1000 s: boosting starts at 500 s of age; L1, two levels above the last, starts at
    // 500 + (961 - 500) / 4 = 615 s with steps of 7 s: file 2 (1000 s) is divided by 56, to 182.
    assert_eq!(order(&v, 1000), vec![1, 0, 2], "old data first under a TTL");
    // A TTL of a day: file 2 is young, nothing is boosted.
    assert_eq!(order(&v, 86_400), vec![0, 1, 2]);
    // A marked file goes first whatever its ratio.
    assert_eq!(order(&tree(true), 0), vec![2, 0, 1]);
}

#[path = "picker_manual_tests.rs"]
mod manual;

#[path = "picker_round_robin_tests.rs"]
mod round_robin;
