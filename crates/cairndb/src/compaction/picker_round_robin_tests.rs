//! `compaction_pri = kRoundRobin`: the cursor, wrap-around, busy files, expansion over the
//! following files, and round-robin TTL picks. Split out of `picker_tests.rs`, whose helpers
//! they use.

use super::*;
use crate::comparator::KeyOrder;

/// `v` with `cursor` (a user key, made an internal key) as the cursor of `level`.
fn with_cursor(v: Version, level: usize, cursor: &str) -> Version {
    let mut cursors = vec![None; v.num_levels()];
    cursors[level] = Some(make_internal_key(cursor.as_bytes(), 7, ValueKind::Put));
    v.with_compact_cursors(cursors)
}

fn cursor_key(plan: &CompactionPlan) -> String {
    let c = plan
        .compact_cursor
        .as_ref()
        .expect("a round-robin plan sets the cursor");
    String::from_utf8(crate::types::user_key(c).to_vec()).expect("ascii")
}

/// Running compactions holding L1's file at `index` (a compaction of it into L2).
fn busy_l1_file(v: &Version, index: usize) -> RunningCompactions {
    let busy = CompactionPlan {
        reason: CompactionReason::LevelMaxBytes,
        inputs: vec![CompactionInputs {
            level: 1,
            files: vec![Arc::clone(&v.files(1)[index])],
        }],
        output_level: 2,
        target_file_size: 100,
        max_compaction_bytes: 2500,
        grandparents: Vec::new(),
        is_trivial_move: false,
        is_bottommost: false,
        is_deletion: false,
        score: 1.5,
        compact_cursor: None,
    };
    let mut r = RunningCompactions::new();
    r.register(&busy, &KeyOrder::BYTEWISE);
    r
}

/// L1 has four files of `size` bytes, [a,b] [d,e] [g,h] [j,k] (numbers 1..=4), each over one
/// 100-byte L2 file, so none moves trivially and every overlapping ratio is the same.
fn round_robin_tree(size: u64, base: u64) -> (Version, CfOptions) {
    let o = CfOptions {
        compaction_pri: CompactionPri::RoundRobin,
        max_bytes_for_level_base: base,
        ..small_options()
    };
    let ranges = [("a", "b"), ("d", "e"), ("g", "h"), ("j", "k")];
    let mut files = Vec::new();
    for (i, (lo, hi)) in ranges.into_iter().enumerate() {
        let n = i as u64 + 1;
        files.push((1, file(n, lo, hi, size, 1)));
        files.push((2, file(10 + n, lo, lo, 100, 0)));
    }
    (version(4, files), o)
}

#[test]
fn round_robin_starts_at_the_cursor_and_wraps_around() {
    let r = RunningCompactions::new();
    // L1 is 1200 of 1000: one file is enough, so nothing expands.
    let (v, o) = round_robin_tree(300, 1000);
    let cases = [
        (None, 1, "d"),
        (Some("d"), 2, "g"),
        (Some("g"), 3, "j"),
        // A cursor in a gap starts at the next file; after the last file the cursor wraps.
        (Some("i"), 4, "a"),
        // A cursor past every file starts over at the first.
        (Some("z"), 1, "d"),
    ];
    for (cursor, first, next) in cases {
        let v = match cursor {
            Some(c) => with_cursor(v.clone(), 1, c),
            None => v.clone(),
        };
        let plan = pick(&v, &o, &r).expect("L1 is over its target");
        assert_eq!(numbers(&plan, 1), vec![first], "cursor {cursor:?}");
        assert_eq!(plan.reason, CompactionReason::LevelMaxBytes);
        assert_eq!(cursor_key(&plan), next, "cursor {cursor:?}");
        // The edit that installs the compaction carries the cursor into the next version.
        let mut b = VersionBuilder::new(Arc::new(v.clone()));
        b.apply(&plan.edit(Vec::new())).expect("edit applies");
        let after = b.build().expect("valid");
        assert_eq!(after.compact_cursor(1), plan.compact_cursor.as_deref());
    }
    let v = with_cursor(v, 1, "g");
    assert_eq!(
        files_by_compaction_pri(&input(&v, &o, &r), 1, 2),
        vec![2, 3, 0, 1],
        "from the cursor to the end, then from the start"
    );
    // Other priorities ignore the cursor and leave it alone.
    let other = CfOptions {
        compaction_pri: CompactionPri::MinOverlappingRatio,
        ..o
    };
    let plan = pick(&v, &other, &r).expect("over target");
    assert_eq!(plan.compact_cursor, None);
    assert!(plan.edit(Vec::new()).compact_cursors.is_empty());
}

#[test]
fn round_robin_walks_the_level_in_key_order_compaction_after_compaction() {
    // Six L1 files over six L2 files; every step compacts what the picker chose (as the job
    // would) and the next pick must go on with the next file in key order, whatever the
    // overlaps below.
    let o = CfOptions {
        compaction_pri: CompactionPri::RoundRobin,
        max_bytes_for_level_base: 100,
        ..small_options()
    };
    let mut files = Vec::new();
    for i in 0..6u32 {
        let n = u64::from(i) + 1;
        files.push((1, file(n, &key(i * 10), &key(i * 10 + 5), 120, 1)));
        // Decreasing overlaps: kMinOverlappingRatio would walk from the end.
        files.push((
            2,
            file(10 + n, &key(i * 10), &key(i * 10), 700 - 100 * n, 0),
        ));
    }
    let mut v = version(4, files);
    let r = RunningCompactions::new();
    let mut next = 1000;
    let mut order = Vec::new();
    while let Some(plan) = pick(&v, &o, &r) {
        if plan.start_level() == 1 {
            order.extend(numbers(&plan, 1));
        }
        v = apply(&v, &plan, &mut next);
    }
    assert_eq!(order, vec![1, 2, 3, 4, 5, 6]);
}

#[test]
fn round_robin_skips_files_being_compacted() {
    // The cursor's file (3) is in a running compaction: the walk goes on with file 4, and the
    // cursor wraps past the level's end.
    let (v, o) = round_robin_tree(300, 800);
    let v = with_cursor(v, 1, "g");
    let r = busy_l1_file(&v, 2);
    let plan = pick(&v, &o, &r).expect("L1 is still over its target");
    assert_eq!(numbers(&plan, 1), vec![4]);
    assert_eq!(cursor_key(&plan), "a");
}

/// L1 has six files of 100 bytes ([a,b] [d,e] ... [p,q], numbers 1..=6), each over one
/// 100-byte L2 file; L1's target is 250, so 350 bytes are in excess.
fn expansion_tree() -> (Version, CfOptions) {
    let o = CfOptions {
        compaction_pri: CompactionPri::RoundRobin,
        max_bytes_for_level_base: 250,
        ..small_options()
    };
    let ranges = [
        ("a", "b"),
        ("d", "e"),
        ("g", "h"),
        ("j", "k"),
        ("m", "n"),
        ("p", "q"),
    ];
    let mut files = Vec::new();
    for (i, (lo, hi)) in ranges.into_iter().enumerate() {
        let n = i as u64 + 1;
        files.push((1, file(n, lo, hi, 100, 1)));
        files.push((2, file(10 + n, lo, lo, 100, 0)));
    }
    (version(4, files), o)
}

#[test]
fn round_robin_expands_over_the_following_files_until_the_excess_is_covered() {
    let (v, o) = expansion_tree();
    let r = RunningCompactions::new();
    // 100, 200, 300 bytes do not cover the 350 in excess; the fourth file does.
    let plan = pick(&v, &o, &r).expect("over target");
    assert_eq!(numbers(&plan, 1), vec![1, 2, 3, 4]);
    assert_eq!(numbers(&plan, 2), vec![11, 12, 13, 14]);
    assert_eq!(cursor_key(&plan), "m");
    // Never past the level's end: from file 5 only files 5 and 6, and the cursor wraps.
    let at_five = with_cursor(v.clone(), 1, "m");
    let plan = pick(&at_five, &o, &r).expect("over target");
    assert_eq!(numbers(&plan, 1), vec![5, 6]);
    assert_eq!(cursor_key(&plan), "a");
}

#[test]
fn round_robin_expansion_stays_within_max_compaction_bytes_and_stops_at_a_busy_file() {
    let (v, o) = expansion_tree();
    let v = with_cursor(v, 1, "d");
    // Two start files and their two L2 files are 400 bytes; a third would make 600.
    let tight = CfOptions {
        max_compaction_bytes: 500,
        ..o.clone()
    };
    let r = RunningCompactions::new();
    let plan = pick(&v, &tight, &r).expect("over target");
    assert_eq!(numbers(&plan, 1), vec![2, 3]);
    assert!(plan.input_bytes() <= 500);
    assert_eq!(cursor_key(&plan), "j");
    // File 4 busy: the expansion stops before it (and does not jump over it).
    let r = busy_l1_file(&v, 3);
    let plan = pick(&v, &o, &r).expect("over target");
    assert_eq!(numbers(&plan, 1), vec![2, 3]);
    assert_eq!(cursor_key(&plan), "j");
}

#[test]
fn round_robin_ttl_compacts_the_next_file_of_the_level_holding_expired_data() {
    // L1 is within its target; file 4 holds data older than the TTL. Round robin compacts the
    // level's next file in cursor order (file 2) and moves the cursor on.
    let (v, mut o) = round_robin_tree(300, 10_000);
    o.ttl = 1000;
    let now = 1_000_000;
    let mut files: Vec<(usize, Arc<FileMetaData>)> = v
        .all_files()
        .map(|(l, f)| {
            let born = if f.number == 4 { 10 } else { now - 10 };
            let f = FileMetaData {
                oldest_ancester_time: Some(born),
                ..FileMetaData::clone(f)
            };
            (l, Arc::new(f))
        })
        .collect();
    files.sort_by_key(|(l, _)| *l);
    let v = with_cursor(version(4, files), 1, "d");
    let plan = pick(&v, &o, &RunningCompactions::new()).expect("expired data");
    assert_eq!(plan.reason, CompactionReason::RoundRobinTtl);
    assert_eq!(numbers(&plan, 1), vec![2]);
    assert_eq!(cursor_key(&plan), "g");
}
