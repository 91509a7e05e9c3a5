//! Tests of the compaction iterator: unit tests per rule, and a property test against a model
//! reader (what a reader at each snapshot sees must not change when the inputs are compacted).

use crate::comparator::KeyOrder;
use std::cmp::Ordering;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::merge::{StringAppendOperator, UInt64AddOperator};
use crate::test_util::compare_internal;
use crate::test_util::VecIter;
use crate::types::{make_internal_key, RangeTombstone};

/// A point entry `(user key, seq, kind, value)` as an owned internal entry.
pub(crate) fn entry(k: &str, seq: u64, kind: ValueKind, v: &str) -> (Vec<u8>, Vec<u8>) {
    (
        make_internal_key(k.as_bytes(), seq, kind),
        v.as_bytes().to_vec(),
    )
}

use ValueKind::{Delete as Del, Merge as Mrg, Put, SingleDelete as SD};

/// Owned internal entries `(internal key, value)`.
pub(crate) type Entries = Vec<(Vec<u8>, Vec<u8>)>;
/// A level's contents: point entries and range tombstones.
type Level = (Entries, Vec<RangeTombstone>);

/// Output entries as `(user key, seq, kind, value)` strings, for readable assertions.
type Row = (String, u64, ValueKind, String);

fn rows(out: &[(Vec<u8>, Vec<u8>)]) -> Vec<Row> {
    out.iter()
        .map(|(k, v)| {
            let p = ParsedKey::parse(k).expect("key");
            (
                String::from_utf8_lossy(p.user_key).into_owned(),
                p.seq,
                p.kind,
                String::from_utf8_lossy(v).into_owned(),
            )
        })
        .collect()
}

fn row(k: &str, seq: u64, kind: ValueKind, v: &str) -> Row {
    (k.to_string(), seq, kind, v.to_string())
}

fn run_full(
    entries: Entries,
    tombstones: &[RangeTombstone],
    options: CompactionIterOptions,
) -> (crate::error::Result<Entries>, CompactionIterStats) {
    let set = RangeDelSet::new(tombstones.to_vec(), KeyOrder::BYTEWISE);
    let mut it = CompactionIterator::new(VecIter::new(entries), set, options);
    let mut out = Vec::new();
    it.seek_to_first();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    (it.status().map(|()| out), *it.stats())
}

fn run(
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    tombstones: &[RangeTombstone],
    options: CompactionIterOptions,
) -> (Vec<Row>, CompactionIterStats) {
    let (out, stats) = run_full(entries, tombstones, options);
    (rows(&out.expect("compaction")), stats)
}

fn opts(snapshots: &[u64], bottommost: bool) -> CompactionIterOptions {
    CompactionIterOptions {
        snapshots: snapshots.to_vec(),
        bottommost,
        merge_operator: Some(Arc::new(StringAppendOperator::new(b","))),
        zero_sequence_numbers: true,
        ..CompactionIterOptions::default()
    }
}

#[test]
fn keeps_the_newest_entry_per_stripe() {
    let input = vec![
        entry("a", 9, Put, "a9"),
        entry("a", 8, Put, "a8"),
        entry("a", 5, Put, "a5"),
        entry("a", 4, Put, "a4"),
        entry("a", 2, Put, "a2"),
        entry("b", 3, Put, "b3"),
    ];
    // Stripes: [0,4] [5,7] [8..]
    let (out, stats) = run(input, &[], opts(&[7, 4], false));
    assert_eq!(
        out,
        vec![
            row("a", 9, Put, "a9"),
            row("a", 5, Put, "a5"),
            row("a", 4, Put, "a4"),
            row("b", 3, Put, "b3"),
        ]
    );
    assert_eq!(stats.keys_in, 6);
    assert_eq!(stats.keys_out, 4);
    assert_eq!(stats.dropped_hidden, 2);
}

#[test]
fn deletes_at_the_bottom() {
    let input = || {
        vec![
            entry("a", 9, Del, ""),
            entry("a", 8, Put, "a8"),
            entry("a", 3, Put, "a3"),
            entry("b", 6, Del, ""),
            entry("b", 5, Put, "b5"),
            entry("c", 2, Del, ""),
        ]
    };
    // Not bottommost: deletions stay (older levels may hold the keys).
    let (out, _) = run(input(), &[], opts(&[4], false));
    assert_eq!(
        out,
        vec![
            row("a", 9, Del, ""),
            row("a", 3, Put, "a3"),
            row("b", 6, Del, ""),
            row("c", 2, Del, ""),
        ]
    );
    // Bottommost: "a"'s delete still hides a3 from the tip; "c" has nothing older and no
    // snapshot is older than it, so it goes. "b"'s delete is newer than the snapshot at 4: it
    // stays, so that a transaction holding that snapshot still sees that "b" was written.
    let (out, stats) = run(input(), &[], opts(&[4], true));
    assert_eq!(
        out,
        vec![
            row("a", 9, Del, ""),
            row("a", 0, Put, "a3"),
            row("b", 6, Del, "")
        ]
    );
    assert_eq!(stats.dropped_tombstone_at_bottom, 1, "c");
    assert_eq!(stats.dropped_deleted, 2, "a8 and b5");
    // Without zeroing the sequence number stays.
    let mut o = opts(&[4], true);
    o.zero_sequence_numbers = false;
    let (out, _) = run(input(), &[], o);
    assert_eq!(
        out,
        vec![
            row("a", 9, Del, ""),
            row("a", 3, Put, "a3"),
            row("b", 6, Del, "")
        ]
    );
}

#[test]
fn zeroes_sequence_numbers_only_at_the_bottom_in_stripe_zero() {
    let input = || {
        vec![
            entry("a", 9, Put, "a9"),
            entry("a", 3, Put, "a3"),
            entry("b", 2, Mrg, "m2"),
            entry("b", 1, Put, "b1"),
        ]
    };
    let mut o = opts(&[5], true);
    o.zero_sequence_numbers = true;
    let (out, stats) = run(input(), &[], o.clone());
    assert_eq!(
        out,
        vec![
            row("a", 9, Put, "a9"),
            row("a", 0, Put, "a3"),
            row("b", 0, Put, "b1,m2"),
        ]
    );
    assert_eq!(stats.seqnos_zeroed, 2);
    o.bottommost = false;
    let (out, _) = run(input(), &[], o);
    assert_eq!(out[1], row("a", 3, Put, "a3"));
}

#[test]
fn single_delete_meets_its_put() {
    // Same stripe: both go, at any level.
    let (out, stats) = run(
        vec![entry("a", 5, SD, ""), entry("a", 4, Put, "a4")],
        &[],
        opts(&[], false),
    );
    assert_eq!(out, vec![]);
    assert_eq!(stats.dropped_single_delete, 2);
    // A snapshot between them: both stay.
    let (out, _) = run(
        vec![entry("a", 5, SD, ""), entry("a", 4, Put, "a4")],
        &[],
        opts(&[4], true),
    );
    assert_eq!(out, vec![row("a", 5, SD, ""), row("a", 0, Put, "a4")]);
    // Put, SD, Put, SD (valid history), no snapshot: everything cancels.
    let (out, _) = run(
        vec![
            entry("a", 8, SD, ""),
            entry("a", 7, Put, "a7"),
            entry("a", 6, SD, ""),
            entry("a", 5, Put, "a5"),
        ],
        &[],
        opts(&[], false),
    );
    assert_eq!(out, vec![]);
}

#[test]
fn single_delete_edge_cases() {
    // Nothing older: kept above the bottom, dropped at the bottom.
    let sd_alone = || vec![entry("a", 5, SD, "")];
    assert_eq!(
        run(sd_alone(), &[], opts(&[], false)).0,
        vec![row("a", 5, SD, "")]
    );
    let (out, stats) = run(sd_alone(), &[], opts(&[], true));
    assert_eq!(out, vec![]);
    assert_eq!(stats.dropped_tombstone_at_bottom, 1);

    // SD then SD: the first is redundant; the second meets the put.
    let (out, stats) = run(
        vec![
            entry("a", 6, SD, ""),
            entry("a", 5, SD, ""),
            entry("a", 4, Put, "a4"),
        ],
        &[],
        opts(&[], false),
    );
    assert_eq!(out, vec![]);
    assert_eq!(stats.dropped_single_delete, 3);

    // SD then Delete (a contract violation): the SD goes, the Delete stays (not bottommost).
    let (out, _) = run(
        vec![
            entry("a", 6, SD, ""),
            entry("a", 5, Del, ""),
            entry("a", 4, Put, "a4"),
        ],
        &[],
        opts(&[], false),
    );
    assert_eq!(out, vec![row("a", 5, Del, "")]);

    // SD under a newer Put of its stripe is not dropped as hidden: if a later SD cancels the
    // Put, this one must still hide what lies in lower levels.
    let (out, _) = run(
        vec![entry("a", 9, Put, "a9"), entry("a", 8, SD, "")],
        &[],
        opts(&[], false),
    );
    assert_eq!(out, vec![row("a", 9, Put, "a9"), row("a", 8, SD, "")]);
    // ... but at the bottom, in stripe 0, nothing lies below.
    let (out, _) = run(
        vec![entry("a", 9, Put, "a9"), entry("a", 8, SD, "")],
        &[],
        opts(&[], true),
    );
    assert_eq!(out, vec![row("a", 0, Put, "a9")]);

    // SD then Merge (contract violation): both dropped, as RocksDB does.
    let (out, _) = run(
        vec![entry("a", 6, SD, ""), entry("a", 5, Mrg, "m")],
        &[],
        opts(&[], false),
    );
    assert_eq!(out, vec![]);

    // SD whose put is in an older stripe, at the bottom: SD kept, put kept.
    let (out, _) = run(
        vec![entry("a", 6, SD, ""), entry("a", 2, Put, "a2")],
        &[],
        opts(&[3], true),
    );
    assert_eq!(out, vec![row("a", 6, SD, ""), row("a", 0, Put, "a2")]);
}

#[test]
fn merges_fold_into_their_base() {
    let input = vec![
        entry("a", 9, Mrg, "x"),
        entry("a", 8, Mrg, "y"),
        entry("a", 7, Put, "base"),
        entry("a", 6, Put, "old"),
        entry("b", 5, Mrg, "p"),
        entry("b", 4, Del, ""),
        entry("b", 3, Put, "gone"),
    ];
    let (out, stats) = run(input, &[], opts(&[], false));
    assert_eq!(
        out,
        vec![row("a", 9, Put, "base,y,x"), row("b", 5, Put, "p")]
    );
    assert_eq!(stats.merge_operands_folded, 3);
    assert_eq!(stats.merge_bases_consumed, 2);
    assert_eq!(stats.dropped_hidden, 2);
}

#[test]
fn merges_without_a_base() {
    let input = || {
        vec![
            entry("a", 9, Mrg, "x"),
            entry("a", 8, Mrg, "y"),
            entry("a", 7, Mrg, "z"),
        ]
    };
    // Not bottommost: the base may be below; partial merge combines them into one operand.
    let (out, stats) = run(input(), &[], opts(&[], false));
    assert_eq!(out, vec![row("a", 9, Mrg, "z,y,x")]);
    assert_eq!(stats.merge_operands_folded, 3);
    // An operator without partial merge: the operands stay.
    let mut o = opts(&[], false);
    o.merge_operator = Some(Arc::new(NoPartial(StringAppendOperator::new(b","))));
    let (out, _) = run(input(), &[], o);
    assert_eq!(
        out,
        vec![
            row("a", 9, Mrg, "x"),
            row("a", 8, Mrg, "y"),
            row("a", 7, Mrg, "z")
        ]
    );
    // Bottommost: nothing below, full merge with no base.
    let mut o = opts(&[], true);
    o.merge_operator = Some(Arc::new(NoPartial(StringAppendOperator::new(b","))));
    let (out, _) = run(input(), &[], o);
    assert_eq!(out, vec![row("a", 0, Put, "z,y,x")]);
}

#[test]
fn merges_respect_snapshots() {
    let input = || {
        vec![
            entry("a", 9, Mrg, "x"),
            entry("a", 8, Mrg, "y"),
            entry("a", 5, Mrg, "z"),
            entry("a", 4, Put, "base"),
            entry("a", 2, Mrg, "w"),
        ]
    };
    // Stripes [0,3] [4,8] [9..].
    let (out, _) = run(input(), &[], opts(&[8, 3], false));
    assert_eq!(
        out,
        vec![
            row("a", 9, Mrg, "x"),
            row("a", 8, Put, "base,z,y"),
            row("a", 2, Mrg, "w"),
        ]
    );
    let (out, _) = run(input(), &[], opts(&[8, 3], true));
    assert_eq!(
        out,
        vec![
            row("a", 9, Mrg, "x"),
            row("a", 8, Put, "base,z,y"),
            row("a", 0, Put, "w"),
        ]
    );
}

#[test]
fn merge_failures_are_errors() {
    let mut o = opts(&[], false);
    o.merge_operator = Some(Arc::new(UInt64AddOperator));
    let input = vec![entry("a", 9, Mrg, "bad"), entry("a", 8, Put, "also bad")];
    let (out, _) = run_full(input, &[], o);
    let e = out.expect_err("merge failure");
    assert!(e.is_corruption(), "{e}");
    assert!(e.to_string().contains("UInt64AddOperator"), "{e}");

    let mut o = opts(&[], false);
    o.merge_operator = None;
    let (out, _) = run_full(vec![entry("a", 1, Mrg, "m")], &[], o);
    assert!(matches!(out, Err(Error::InvalidArgument(_))));
}

#[test]
fn range_tombstones_drop_what_they_cover_in_their_stripe() {
    let input = || {
        vec![
            entry("a", 9, Put, "a9"),
            entry("a", 4, Put, "a4"),
            entry("b", 6, Put, "b6"),
            entry("b", 2, Put, "b2"),
            entry("c", 3, Put, "c3"),
        ]
    };
    let tombstones = [RangeTombstone::new(b"a", b"c", 7)];
    // No snapshot: a4, b6, b2 are covered.
    let (out, stats) = run(input(), &tombstones, opts(&[], false));
    assert_eq!(out, vec![row("a", 9, Put, "a9"), row("c", 3, Put, "c3")]);
    assert_eq!(stats.dropped_range_deletion, 2, "b6, b2");
    assert_eq!(
        stats.dropped_hidden, 1,
        "a4 is hidden by a9 before any tombstone matters"
    );
    // A snapshot at 5: the tombstone is in the tip stripe, a4 and b2 are in stripe 0.
    let (out, _) = run(input(), &tombstones, opts(&[5], false));
    assert_eq!(
        out,
        vec![
            row("a", 9, Put, "a9"),
            row("a", 4, Put, "a4"),
            row("b", 2, Put, "b2"),
            row("c", 3, Put, "c3"),
        ]
    );
    let (kept, dropped) =
        range_deletions_to_keep(&tombstones, &opts(&[5], true), &KeyOrder::BYTEWISE);
    assert_eq!(
        (kept.len(), dropped),
        (1, 0),
        "needed by snapshot 5's readers"
    );
    let (kept, dropped) =
        range_deletions_to_keep(&tombstones, &opts(&[8], true), &KeyOrder::BYTEWISE);
    assert_eq!((kept.len(), dropped), (0, 1), "stripe 0 at the bottom");
    let (kept, _) = range_deletions_to_keep(&tombstones, &opts(&[], false), &KeyOrder::BYTEWISE);
    assert_eq!(kept.len(), 1, "never dropped above the bottom");
}

#[test]
fn a_range_tombstone_under_merge_operands_is_their_base() {
    let input = vec![
        entry("a", 9, Mrg, "x"),
        entry("a", 5, Mrg, "y"),
        entry("a", 4, Put, "base"),
    ];
    let (out, _) = run(
        input,
        &[RangeTombstone::new(b"a", b"b", 6)],
        opts(&[], false),
    );
    assert_eq!(out, vec![row("a", 9, Put, "x")]);
}

/// Removes values that start with "drop", rewrites those that start with "edit", and counts calls.
#[derive(Debug, Default)]
struct TestFilter {
    calls: AtomicU64,
}

impl CompactionFilter for TestFilter {
    fn name(&self) -> &str {
        "TestFilter"
    }
    fn filter(&self, level: usize, key: &[u8], value: &[u8]) -> FilterDecision {
        assert_eq!(level, 3);
        assert!(!key.is_empty());
        self.calls.fetch_add(1, AtomicOrdering::Relaxed);
        if value.starts_with(b"drop") {
            FilterDecision::Remove
        } else if value.starts_with(b"edit") {
            FilterDecision::ChangeValue(b"edited".to_vec())
        } else {
            FilterDecision::Keep
        }
    }
}

#[test]
fn the_filter_sees_the_newest_version_of_each_key_even_under_a_snapshot() {
    let filter = Arc::new(TestFilter::default());
    let input = || {
        vec![
            entry("a", 9, Put, "drop me"),
            entry("a", 3, Put, "a3"),
            entry("b", 8, Put, "edit me"),
            entry("c", 7, Mrg, "x"),
            entry("c", 6, Put, "drop"),
            entry("d", 2, Put, "drop but in a snapshot"),
        ]
    };
    let mut o = opts(&[5], false);
    o.compaction_filter = Some(filter.clone());
    o.level = 3;
    let (out, stats) = run(input(), &[], o.clone());
    assert_eq!(
        out,
        vec![
            row("a", 9, Del, ""),
            row("a", 3, Put, "a3"),
            row("b", 8, Put, "edited"),
            row("c", 7, Del, ""),
            // As RocksDB: the snapshot at 5 does not protect the newest version of "d".
            row("d", 2, Del, ""),
        ]
    );
    // "a"@3 is an older version: never filtered.
    assert_eq!(filter.calls.load(AtomicOrdering::Relaxed), 4);
    assert_eq!((stats.dropped_filter, stats.filter_changed), (3, 1));
    // At the bottom without snapshots the removals vanish with everything older.
    o.snapshots.clear();
    o.bottommost = true;
    let (out, _) = run(input(), &[], o);
    assert_eq!(out, vec![row("b", 0, Put, "edited")]);
}

#[test]
fn input_errors_and_range_deletes_among_points_stop_it() {
    let input = vec![
        entry("a", 3, Put, "a"),
        entry("b", 3, Put, "b"),
        entry("c", 3, Put, "c"),
    ];
    let mut it = CompactionIterator::new(
        VecIter::new(input).failing_at(2),
        RangeDelSet::default(),
        opts(&[], false),
    );
    it.seek_to_first();
    let mut n = 0;
    while it.valid() {
        n += 1;
        it.next();
    }
    assert_eq!(n, 2);
    assert!(it.status().expect_err("input error").is_corruption());

    let (out, _) = run_full(
        vec![entry("a", 3, ValueKind::RangeDelete, "b")],
        &[],
        opts(&[], false),
    );
    assert!(out.expect_err("rejected").is_corruption());
}

/// Wraps an operator and hides its partial merge.
#[derive(Debug)]
struct NoPartial(StringAppendOperator);

impl MergeOperator for NoPartial {
    fn name(&self) -> &str {
        "NoPartial"
    }
    fn full_merge(
        &self,
        key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
    ) -> Option<Vec<u8>> {
        self.0.full_merge(key, existing, operands)
    }
}

// ---------------------------------------------------------------------------------------------
// The model: what a reader at a snapshot sees, computed from the raw entries.

/// The value of `key` a reader at `snapshot` sees in `points` (any order) and `tombstones`.
pub(crate) fn model_read(
    points: &[(Vec<u8>, Vec<u8>)],
    tombstones: &[RangeTombstone],
    key: &[u8],
    snapshot: u64,
    op: &dyn MergeOperator,
) -> Option<Vec<u8>> {
    let rd = tombstones
        .iter()
        .filter(|t| t.begin.as_slice() <= key && key < t.end.as_slice() && t.seq <= snapshot)
        .map(|t| t.seq)
        .max();
    let mut versions: Vec<(u64, ValueKind, &[u8])> = points
        .iter()
        .filter_map(|(k, v)| {
            let p = ParsedKey::parse(k).expect("key");
            (p.user_key == key && p.seq <= snapshot).then_some((p.seq, p.kind, v.as_slice()))
        })
        .collect();
    versions.sort_by_key(|v| std::cmp::Reverse(v.0));
    let mut operands: Vec<&[u8]> = Vec::new();
    let mut base = None;
    for (seq, kind, v) in versions {
        if rd.is_some_and(|t| t > seq) {
            break;
        }
        match kind {
            ValueKind::Put => {
                base = Some(v);
                break;
            }
            ValueKind::Merge => operands.push(v),
            _ => break,
        }
    }
    if operands.is_empty() {
        return base.map(<[u8]>::to_vec);
    }
    operands.reverse();
    Some(op.full_merge(key, base, &operands).expect("merge"))
}

/// One generated write.
#[derive(Debug, Clone)]
enum Op {
    Put(u8, u8),
    Delete(u8),
    Merge(u8, u8),
    SingleDelete(u8),
    RangeDelete(u8, u8),
}

/// Keys `0..4` take puts, deletes and merges; keys `4..7` only puts and single deletes that
/// keep the SingleDelete contract (at most one put since the last single delete).
fn ops_strategy() -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        4 => (0u8..4, any::<u8>()).prop_map(|(k, v)| Op::Put(k, v)),
        2 => (0u8..4).prop_map(Op::Delete),
        3 => (0u8..4, any::<u8>()).prop_map(|(k, v)| Op::Merge(k, v)),
        4 => (4u8..7, any::<u8>()).prop_map(|(k, v)| Op::Put(k, v)),
        3 => (4u8..7).prop_map(Op::SingleDelete),
        1 => (0u8..7, 1u8..4).prop_map(|(k, n)| Op::RangeDelete(k, k + n)),
    ];
    prop::collection::vec(op, 1..40).prop_map(|mut ops| {
        keep_single_delete_contract(&mut ops);
        ops
    })
}

/// Turns a second put of a single-delete key (4..7) since its last deletion into a single
/// delete. Idempotent on a prefix that already keeps the contract.
fn keep_single_delete_contract(ops: &mut [Op]) {
    let mut live = [false; 8];
    for op in ops {
        match *op {
            Op::Put(k, _) if k >= 4 && live[k as usize] => *op = Op::SingleDelete(k),
            Op::Put(k, _) => live[k as usize] = true,
            Op::SingleDelete(k) => live[k as usize] = false,
            Op::RangeDelete(a, b) => (a..b.min(8)).for_each(|k| live[k as usize] = false),
            _ => {}
        }
    }
}

fn key_of(k: u8) -> Vec<u8> {
    vec![b'k', k]
}

/// The entries and tombstones of `ops`, the i-th op at sequence number `i + 1`.
fn materialize(ops: &[Op]) -> Level {
    let mut points = Vec::new();
    let mut tombstones = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let seq = i as u64 + 1;
        let mut add = |k: u8, kind, v: &[u8]| {
            points.push((make_internal_key(&key_of(k), seq, kind), v.to_vec()));
        };
        match *op {
            Op::Put(k, v) => add(k, Put, format!("p{seq}.{v}").as_bytes()),
            Op::Delete(k) => add(k, Del, b""),
            Op::Merge(k, v) => add(k, Mrg, format!("m{seq}.{v}").as_bytes()),
            Op::SingleDelete(k) => add(k, SD, b""),
            Op::RangeDelete(a, b) => {
                tombstones.push(RangeTombstone::new(&key_of(a), &key_of(b), seq))
            }
        }
    }
    (points, tombstones)
}

fn split_at(points: &[(Vec<u8>, Vec<u8>)], tombstones: &[RangeTombstone], upto: u64) -> [Level; 2] {
    let seq = |k: &[u8]| ParsedKey::parse(k).expect("key").seq;
    let lower = (
        points
            .iter()
            .filter(|e| seq(&e.0) <= upto)
            .cloned()
            .collect(),
        tombstones
            .iter()
            .filter(|t| t.seq <= upto)
            .cloned()
            .collect(),
    );
    let upper = (
        points
            .iter()
            .filter(|e| seq(&e.0) > upto)
            .cloned()
            .collect(),
        tombstones
            .iter()
            .filter(|t| t.seq > upto)
            .cloned()
            .collect(),
    );
    [lower, upper]
}

/// Compacts `input` with `options`, checking the output order; returns the outputs.
fn compact(input: &Level, options: &CompactionIterOptions) -> Result<Level, TestCaseError> {
    let (out, _) = run_full(input.0.clone(), &input.1, options.clone());
    let out = out.map_err(|e| TestCaseError::fail(e.to_string()))?;
    for w in out.windows(2) {
        prop_assert_eq!(compare_internal(&w[0].0, &w[1].0), Ordering::Less);
    }
    let (kept, _) = range_deletions_to_keep(&input.1, options, &KeyOrder::BYTEWISE);
    Ok((out, kept))
}

/// Checks that readers at every snapshot and at the tip see the same in `before` and `after`
/// (each read together with `lower`).
fn same_reads(
    before: &Level,
    after: &Level,
    lower: &Level,
    snapshots: &[u64],
    op: &dyn MergeOperator,
) -> Result<(), TestCaseError> {
    let join = |l: &Level| {
        let mut p = l.0.clone();
        p.extend(lower.0.iter().cloned());
        let mut t = l.1.clone();
        t.extend(lower.1.iter().cloned());
        (p, t)
    };
    let (bp, bt) = join(before);
    let (ap, at) = join(after);
    for k in 0u8..8 {
        for &s in snapshots.iter().chain([&MAX_SEQUENCE]) {
            let want = model_read(&bp, &bt, &key_of(k), s, op);
            let got = model_read(&ap, &at, &key_of(k), s, op);
            prop_assert_eq!(got, want, "key {} at snapshot {}", k, s);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn compaction_preserves_every_snapshot(
        ops in ops_strategy(),
        shape in 0u8..4,
        split in 1u64..20,
        snaps in prop::collection::vec(0u64..45, 0..5),
        release in prop::collection::vec(any::<bool>(), 5),
        zero in any::<bool>(),
        partial in any::<bool>(),
    ) {
        let (points, tombstones) = materialize(&ops);
        // Half the cases compact at the bottommost level; the rest above it, with or without
        // older data (the first `split` writes) in the levels below.
        let split = if shape == 3 { split.min(ops.len() as u64) } else { 0 };
        let bottommost = shape < 2;
        let [lower, input] = split_at(&points, &tombstones, split);
        let op: Arc<dyn MergeOperator> = if partial {
            Arc::new(StringAppendOperator::new(b","))
        } else {
            Arc::new(NoPartial(StringAppendOperator::new(b",")))
        };
        let options = CompactionIterOptions {
            snapshots: snaps.clone(),
            bottommost,
            merge_operator: Some(op.clone()),
            zero_sequence_numbers: zero,
            ..CompactionIterOptions::default()
        };
        let first = compact(&input, &options)?;
        same_reads(&input, &first, &lower, &snaps, &*op)?;
        // Some snapshots are released, and the outputs are compacted again.
        let kept: Vec<u64> = snaps
            .iter()
            .zip(&release)
            .filter(|(_, &r)| !r)
            .map(|(&s, _)| s)
            .collect();
        let options = CompactionIterOptions { snapshots: kept.clone(), ..options };
        let second = compact(&first, &options)?;
        same_reads(&input, &second, &lower, &kept, &*op)?;
        // Later writes (more puts and single deletes) on top, then everything compacted again.
        let mut more = ops.clone();
        more.extend(ops.iter().filter(|o| matches!(o, Op::Put(k, _) | Op::SingleDelete(k) if *k >= 4)).cloned());
        keep_single_delete_contract(&mut more);
        let (mp, mt) = materialize(&more);
        let [_, newer] = split_at(&mp, &mt, ops.len() as u64);
        let mut stacked = second.clone();
        stacked.0.extend(newer.0.iter().cloned());
        stacked.1.extend(newer.1.iter().cloned());
        let third = compact(&stacked, &CompactionIterOptions { snapshots: Vec::new(), ..options })?;
        same_reads(&stacked, &third, &lower, &[], &*op)?;
    }
}
