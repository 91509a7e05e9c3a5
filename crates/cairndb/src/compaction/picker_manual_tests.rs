//! Manual compaction planning (`compact_range`): level-by-level moves, forced rewrites of the
//! last level, empty ranges, waits for running L0 compactions. Split out of `picker_tests.rs`,
//! whose helpers (`apply`, `run_manual`) they use.

use super::*;
use crate::comparator::KeyOrder;

#[test]
fn manual_compaction_moves_the_range_down_level_by_level() {
    let o = small_options();
    let v = version(
        4,
        vec![
            (0, file(1, "a", "c", 10, 5)),
            (1, file(2, "b", "d", 10, 3)),
            (1, file(3, "x", "z", 10, 3)),
            (2, file(4, "a", "b", 10, 1)),
            (3, file(5, "c", "c", 10, 0)),
        ],
    );
    let (after, plans) = run_manual(v, &o, Some("a"), Some("e"), BottommostLevelCompaction::Skip);
    let levels: Vec<_> = plans
        .iter()
        .map(|p| (p.start_level(), p.output_level))
        .collect();
    assert_eq!(levels, vec![(0, 1), (1, 2), (2, 3)]);
    assert_eq!(after.num_files(0), 0);
    assert_eq!(after.num_files(1), 1, "[x,z] is outside the range");
    assert_eq!(after.num_files(2), 0);
    assert_eq!(after.num_files(3), 1);
    assert!(plans.last().is_some_and(|p| p.is_bottommost));
}

#[test]
fn manual_compaction_with_force_rewrites_the_last_level_in_steps() {
    let o = small_options();
    // 30 files of 200 in L3: max_compaction_bytes 2500 allows 12 per step.
    let files: Vec<_> = (0..30u32)
        .map(|i| {
            (
                3,
                file(u64::from(i) + 1, &key(i * 10), &key(i * 10 + 5), 200, 1),
            )
        })
        .collect();
    let v = version(4, files);
    let (after, plans) = run_manual(v.clone(), &o, None, None, BottommostLevelCompaction::Force);
    assert_eq!(
        plans
            .iter()
            .map(CompactionPlan::num_input_files)
            .collect::<Vec<_>>(),
        vec![12, 12, 6]
    );
    assert!(plans
        .iter()
        .all(|p| p.start_level() == 3 && p.output_level == 3));
    assert!(plans.iter().all(|p| !p.is_trivial_move && p.is_bottommost));
    assert_eq!(after.num_files(3), 3);
    let (same, none) = run_manual(v, &o, None, None, BottommostLevelCompaction::Skip);
    assert!(none.is_empty());
    assert_eq!(same.num_files(3), 30);
}

#[test]
fn manual_compaction_of_an_empty_range_is_done_at_once() {
    let o = small_options();
    let v = version(4, vec![(1, file(1, "a", "b", 10, 1))]);
    let (_, plans) = run_manual(
        v,
        &o,
        Some("m"),
        Some("n"),
        BottommostLevelCompaction::Force,
    );
    assert!(plans.is_empty());
}

#[test]
fn manual_compaction_waits_for_running_l0_compactions() {
    let o = small_options();
    let v = version(4, (1..=5).map(|i| (0, file(i, "a", "b", 10, i))).collect());
    let mut r = RunningCompactions::new();
    let auto = pick(&v, &o, &r).expect("L0 over trigger");
    r.register(&auto, &KeyOrder::BYTEWISE);
    let mut m = ManualCompaction::new(None, None, BottommostLevelCompaction::Skip);
    assert_eq!(m.next(&input(&v, &o, &r)), ManualStep::Wait);
    r.unregister(&auto);
    assert!(matches!(m.next(&input(&v, &o, &r)), ManualStep::Run(_)));
}

#[test]
fn manual_l0_goes_to_the_base_level_with_dynamic_level_bytes() {
    let o = CfOptions {
        level_compaction_dynamic_level_bytes: true,
        ..small_options()
    };
    let v = version(
        7,
        vec![(0, file(1, "a", "c", 10, 5)), (6, file(2, "b", "d", 10, 1))],
    );
    let (_, plans) = run_manual(v, &o, None, None, BottommostLevelCompaction::Skip);
    let levels: Vec<_> = plans
        .iter()
        .map(|p| (p.start_level(), p.output_level))
        .collect();
    assert_eq!(levels, vec![(0, 6)]);
}
