//! Memtable tests: point semantics, a randomized model test of `get` and of the iterator
//! contract for both reps, and concurrency tests of the skiplist's publication protocol.
//!
//! The concurrency tests are also meant to run under ThreadSanitizer, which checks the
//! memory orderings of the publication protocol (the node bytes are plain memory that only the
//! Release CAS / Acquire load pair orders):
//!
//! ```text
//! RUSTFLAGS="-Zsanitizer=thread -Cunsafe-allow-abi-mismatch=sanitizer" \
//!   cargo +nightly test --target x86_64-unknown-linux-gnu -p cairndb --lib memtable::tests::con
//! ```
//!
//! With the standard library uninstrumented, TSan reports a few races inside std's own `Arc`
//! and thread-packet drops; any report naming `cairndb::memtable` is real. Weakening the
//! publishing CAS to Relaxed makes TSan report over a hundred races in `NodePtr::cmp`; with the
//! orderings as written it reports none in this module. `.ci/run` runs these tests under TSan
//! (and the arena and skiplist tests under Miri) when a nightly toolchain is present.
//!
//! The loom models in `loom_models.rs` check the same protocol exhaustively on the real skiplist
//! (every interleaving up to a bound, every outcome the orderings allow) through the nodes'
//! atomic links; they cannot see the arena's plain key and value bytes, which is what TSan
//! checks here.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering as AtomicOrdering};

use proptest::prelude::*;

use super::*;
use crate::iter::InternalIterator;
use crate::test_util::compare_internal;
use crate::types::{make_internal_key, ParsedKey};

fn small_blocks(rep: MemTableRep) -> MemTableOptions {
    MemTableOptions {
        rep,
        arena_block_size: 4096,
        ..MemTableOptions::default()
    }
}

const REPS: [MemTableRep; 2] = [MemTableRep::SkipList, MemTableRep::Vector];

/// Every point entry in iteration order, as (user key, seq, kind, value).
fn scan(mem: &Arc<MemTable>) -> Vec<(Vec<u8>, u64, ValueKind, Vec<u8>)> {
    let mut it = mem.iter();
    let mut out = Vec::new();
    it.seek_to_first();
    while it.valid() {
        let k = ParsedKey::parse(it.key()).expect("valid key");
        out.push((k.user_key.to_vec(), k.seq, k.kind, it.value().to_vec()));
        it.next();
    }
    assert!(it.status().is_ok());
    out
}

#[test]
fn get_returns_the_newest_visible_entry() {
    for rep in REPS {
        let mem = MemTable::new(small_blocks(rep));
        mem.add(1, ValueKind::Put, b"k", b"v1").expect("add");
        mem.add(3, ValueKind::Delete, b"k", b"").expect("add");
        mem.add(5, ValueKind::Put, b"k", b"v5").expect("add");
        mem.add(7, ValueKind::SingleDelete, b"k", b"").expect("add");
        assert_eq!(mem.get(b"k", 0), None);
        assert_eq!(
            mem.get(b"k", 2),
            Some(MemGet::Value {
                seq: 1,
                value: b"v1"
            })
        );
        assert_eq!(
            mem.get(b"k", 4),
            Some(MemGet::Deleted {
                seq: 3,
                kind: ValueKind::Delete
            })
        );
        assert_eq!(
            mem.get(b"k", 6),
            Some(MemGet::Value {
                seq: 5,
                value: b"v5"
            })
        );
        assert_eq!(
            mem.get(b"k", u64::MAX),
            Some(MemGet::Deleted {
                seq: 7,
                kind: ValueKind::SingleDelete
            })
        );
        assert_eq!(mem.get(b"j", 100), None);
        assert_eq!(mem.get(b"k\0", 100), None);
    }
}

#[test]
fn long_keys_take_the_allocating_seek_path() {
    let mem = MemTable::default();
    let long = vec![b'x'; 100];
    mem.add(4, ValueKind::Put, &long, b"long").expect("add");
    assert_eq!(
        mem.get(&long, 9),
        Some(MemGet::Value {
            seq: 4,
            value: b"long"
        })
    );
    assert_eq!(mem.get(&long[..99], 9), None);
}

#[test]
fn batches_apply_per_column_family_with_consecutive_sequences() {
    let mut batch = crate::batch::WriteBatch::new();
    batch.put(b"a", b"1").expect("put");
    batch.put_cf(7, b"a", b"2").expect("put");
    batch.merge_cf(9, b"skipped", b"x").expect("merge");
    batch.delete(b"b").expect("delete");
    batch.delete_range_cf(7, b"b", b"c").expect("range");
    batch.set_sequence(100);
    let (default, seven) = (MemTable::default(), MemTable::default());
    insert_batch(&batch, |cf| {
        Ok(match cf {
            0 => Some(&default),
            7 => Some(&seven),
            _ => None,
        })
    })
    .expect("apply");
    let value = |seq, value| Some(MemGet::Value { seq, value });
    assert_eq!(default.get(b"a", 200), value(100, &b"1"[..]));
    assert_eq!(seven.get(b"a", 200), value(101, &b"2"[..]));
    assert_eq!(
        default.get(b"b", 200),
        Some(MemGet::Deleted {
            seq: 103,
            kind: ValueKind::Delete
        })
    );
    assert_eq!(seven.max_covering_tombstone_seq(b"b", 200), Some(104));
    assert_eq!((default.num_entries(), seven.num_entries()), (2, 2));
    let refused = insert_batch(&batch, |_| Ok(Some(&default)));
    assert!(
        refused.is_err(),
        "re-applying the same sequence numbers is refused"
    );
}

#[test]
fn merge_operands_are_collected_newest_first() {
    let mem = MemTable::default();
    mem.add(1, ValueKind::Merge, b"m", b"a").expect("add");
    mem.add(2, ValueKind::Merge, b"m", b"b").expect("add");
    assert_eq!(
        mem.get(b"m", 10),
        Some(MemGet::Merge {
            seq: 2,
            operands: vec![b"b", b"a"],
            base: MergeBase::SearchOlder
        })
    );
    mem.add(3, ValueKind::Put, b"m", b"base").expect("add");
    mem.add(4, ValueKind::Merge, b"m", b"c").expect("add");
    assert_eq!(
        mem.get(b"m", 10),
        Some(MemGet::Merge {
            seq: 4,
            operands: vec![b"c"],
            base: MergeBase::Value(b"base")
        })
    );
    mem.add(5, ValueKind::Delete, b"m", b"").expect("add");
    mem.add(6, ValueKind::Merge, b"m", b"d").expect("add");
    assert_eq!(
        mem.get(b"m", 6),
        Some(MemGet::Merge {
            seq: 6,
            operands: vec![b"d"],
            base: MergeBase::Deleted
        })
    );
}

#[test]
fn range_deletions_hide_older_entries_only() {
    let mem = Arc::new(MemTable::default());
    mem.add(1, ValueKind::Put, b"b", b"old").expect("add");
    mem.add(2, ValueKind::RangeDelete, b"a", b"c").expect("add");
    mem.add(3, ValueKind::Put, b"b2", b"new").expect("add");
    mem.add(4, ValueKind::Merge, b"bb", b"op").expect("add");
    assert_eq!(
        mem.get(b"b", 1),
        Some(MemGet::Value {
            seq: 1,
            value: b"old"
        })
    );
    let by_range = Some(MemGet::Deleted {
        seq: 2,
        kind: ValueKind::RangeDelete,
    });
    assert_eq!(mem.get(b"b", 2), by_range);
    assert_eq!(mem.get(b"a", 9), by_range, "no entry, but covered");
    assert_eq!(mem.get(b"c", 9), None, "end is exclusive");
    assert_eq!(
        mem.get(b"b2", 9),
        Some(MemGet::Value {
            seq: 3,
            value: b"new"
        })
    );
    assert_eq!(
        mem.get(b"bb", 9),
        Some(MemGet::Merge {
            seq: 4,
            operands: vec![b"op"],
            base: MergeBase::Deleted
        })
    );
    assert_eq!(mem.max_covering_tombstone_seq(b"zz", 9), None);
    assert_eq!(mem.max_covering_tombstone_seq(b"b", 1), None);
    assert_eq!(
        mem.range_tombstones(9),
        vec![RangeTombstoneRef {
            begin: b"a",
            end: b"c",
            seq: 2
        }]
    );
    // Point iteration does not show tombstones; the tombstone iterator does.
    assert_eq!(scan(&mem).len(), 3);
    let mut it = mem.range_tombstone_iter();
    it.seek_to_first();
    assert_eq!(
        it.key(),
        &make_internal_key(b"a", 2, ValueKind::RangeDelete)[..]
    );
    assert_eq!(it.value(), b"c");
    it.next();
    assert!(!it.valid());
    assert_eq!((mem.num_entries(), mem.num_range_deletes()), (4, 1));
}

#[test]
fn bad_adds_are_refused_without_effect() {
    let mem = MemTable::default();
    mem.add(9, ValueKind::Put, b"k", b"v").expect("add");
    let big = vec![0u8; MAX_KEY_LEN + 1];
    let refused = [
        mem.add(9, ValueKind::Put, b"k", b"other"),
        mem.add(MAX_SEQUENCE + 1, ValueKind::Put, b"k", b""),
        mem.add(10, ValueKind::Put, &big, b""),
        mem.add(10, ValueKind::RangeDelete, b"a", &big),
        mem.add(10, ValueKind::RangeDelete, b"b", b"a"),
    ];
    for r in refused {
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    }
    assert_eq!(mem.num_entries(), 1);
    mem.add(9, ValueKind::Delete, b"k", b"")
        .expect("same seq, other kind");
    mem.mark_read_only();
    assert!(mem.is_read_only());
    assert!(mem.add(11, ValueKind::Put, b"x", b"").is_err());
    assert_eq!(mem.num_entries(), 2);
}

#[test]
fn counters_and_sequence_range() {
    let mem = MemTable::default();
    assert!(mem.is_empty());
    assert_eq!((mem.first_seq(), mem.largest_seq()), (None, None));
    let base = mem.approximate_memory_usage();
    mem.add(20, ValueKind::Put, b"a", b"").expect("add");
    mem.add(10, ValueKind::Delete, b"b", b"").expect("add");
    mem.add(30, ValueKind::SingleDelete, b"c", b"")
        .expect("add");
    assert_eq!((mem.first_seq(), mem.largest_seq()), (Some(10), Some(30)));
    assert_eq!((mem.num_entries(), mem.num_deletes()), (3, 2));
    // A value larger than a quarter block gets its own block and is accounted for.
    mem.add(31, ValueKind::Put, b"big", &vec![1u8; 3 << 20])
        .expect("add");
    assert!(mem.approximate_memory_usage() >= base + (3 << 20));
    match mem.get(b"big", 31) {
        Some(MemGet::Value { value, .. }) => assert_eq!(value.len(), 3 << 20),
        other => panic!("{other:?}"),
    }
}

#[test]
fn inserter_handles_sequential_and_random_streams() {
    for rep in REPS {
        let mem = Arc::new(MemTable::new(small_blocks(rep)));
        let mut ins = mem.inserter();
        let mut expected = Vec::new();
        // Under Miri, a tenth (the stride stays coprime to the count).
        let n = if cfg!(miri) { 200 } else { 2000 };
        let keys = (0..n).chain((0..n).map(|i| (i * 7919) % n + 5000));
        for (seq, k) in keys.enumerate() {
            let key = format!("user{k:08}").into_bytes();
            ins.add(seq as u64, ValueKind::Put, &key, b"v")
                .expect("add");
            expected.push((key, seq as u64));
        }
        expected.sort();
        let got: Vec<_> = scan(&mem).into_iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(got, expected, "{rep:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Model test

#[derive(Debug, Clone)]
enum Op {
    Add(ValueKind, Vec<u8>, Vec<u8>),
    Get(Vec<u8>, u64),
}

#[derive(Debug, Clone)]
enum IterOp {
    First,
    Last,
    Seek(Vec<u8>, u64),
    SeekForPrev(Vec<u8>, u64),
    Next,
    Prev,
}

/// Short keys over a tiny alphabet (many collisions), and long keys sharing an 8-byte prefix
/// (the prefix comparison ties and falls back to the full key).
fn arb_key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(b'a'..b'd', 0..3),
        (b'a'..b'd').prop_map(|c| vec![b'p', b'r', b'e', b'f', b'i', b'x', b'0', b'0', c]),
        Just(b"prefix00".to_vec()),
    ]
}

fn arb_op() -> impl Strategy<Value = Op> {
    let kind = prop_oneof![
        4 => Just(ValueKind::Put),
        2 => Just(ValueKind::Delete),
        1 => Just(ValueKind::SingleDelete),
        3 => Just(ValueKind::Merge),
        1 => Just(ValueKind::RangeDelete),
    ];
    prop_oneof![
        3 => (kind, arb_key(), arb_key()).prop_map(|(k, a, b)| Op::Add(k, a, b)),
        1 => (arb_key(), 0u64..60).prop_map(|(k, s)| Op::Get(k, s)),
    ]
}

fn arb_iter_op() -> impl Strategy<Value = IterOp> {
    prop_oneof![
        1 => Just(IterOp::First),
        1 => Just(IterOp::Last),
        1 => (arb_key(), 0u64..60).prop_map(|(k, s)| IterOp::Seek(k, s)),
        1 => (arb_key(), 0u64..60).prop_map(|(k, s)| IterOp::SeekForPrev(k, s)),
        4 => Just(IterOp::Next),
        4 => Just(IterOp::Prev),
    ]
}

/// Point entries keyed as the memtable orders them (seqs are distinct).
type Model = BTreeMap<(Vec<u8>, Reverse<u64>), (ValueKind, Vec<u8>)>;

/// What `get` must answer, computed from the model by the documented rules.
fn model_get<'m>(
    model: &'m Model,
    tombs: &[(Vec<u8>, Vec<u8>, u64)],
    key: &[u8],
    snap: u64,
) -> Option<MemGet<'m>> {
    let covering = tombs
        .iter()
        .filter(|(b, e, s)| *s <= snap && &b[..] <= key && key < &e[..])
        .map(|t| t.2)
        .max();
    let mut operands = Vec::new();
    let mut newest = None;
    let mut base = None;
    for ((_, Reverse(seq)), (kind, value)) in
        model.range((key.to_vec(), Reverse(snap))..=(key.to_vec(), Reverse(0)))
    {
        if covering.is_some_and(|t| *seq < t) {
            break;
        }
        newest.get_or_insert(*seq);
        match kind {
            ValueKind::Merge => operands.push(&value[..]),
            ValueKind::Put => {
                base = Some(MemGet::Value {
                    seq: *seq,
                    value: &value[..],
                });
                break;
            }
            _ => {
                base = Some(MemGet::Deleted {
                    seq: *seq,
                    kind: *kind,
                });
                break;
            }
        }
    }
    let base = base.or(covering.map(|seq| MemGet::Deleted {
        seq,
        kind: ValueKind::RangeDelete,
    }));
    fold_operands(newest, operands, base)
}

/// A reference cursor over the model's entries in order.
fn model_iter(entries: &[(Vec<u8>, Vec<u8>)], pos: Option<usize>, op: &IterOp) -> Option<usize> {
    let ikey = |k: &[u8], s| make_internal_key(k, s, ValueKind::Put);
    let before = |t: &[u8]| entries.partition_point(|e| compare_internal(&e.0, t).is_lt());
    let at_most = |t: &[u8]| entries.partition_point(|e| compare_internal(&e.0, t).is_le());
    let n = entries.len();
    match op {
        IterOp::First => (n > 0).then_some(0),
        IterOp::Last => n.checked_sub(1),
        IterOp::Seek(k, s) => Some(before(&ikey(k, *s))).filter(|&i| i < n),
        IterOp::SeekForPrev(k, s) => at_most(&ikey(k, *s)).checked_sub(1),
        IterOp::Next => pos.map(|i| i + 1).filter(|&i| i < n),
        IterOp::Prev => pos.and_then(|i| i.checked_sub(1)),
    }
}

fn run_model(rep: MemTableRep, ops: &[Op], iter_ops: &[IterOp], seqs: &[u64]) {
    let mem = Arc::new(MemTable::new(small_blocks(rep)));
    let mut model = Model::new();
    let mut tombs = Vec::new();
    let mut seqs = seqs.iter().copied();
    for op in ops {
        match op {
            Op::Add(kind, key, value) => {
                let seq = seqs.next().expect("enough sequence numbers");
                let mut value = value.clone();
                if *kind == ValueKind::RangeDelete {
                    let (b, e) = if *key <= value {
                        (key.clone(), value)
                    } else {
                        (value, key.clone())
                    };
                    mem.add(seq, *kind, &b, &e).expect("add");
                    tombs.push((b, e, seq));
                    continue;
                }
                if matches!(kind, ValueKind::Delete | ValueKind::SingleDelete) {
                    value.clear();
                }
                mem.add(seq, *kind, key, &value).expect("add");
                model.insert((key.clone(), Reverse(seq)), (*kind, value));
            }
            Op::Get(key, snap) => {
                assert_eq!(mem.get(key, *snap), model_get(&model, &tombs, key, *snap));
            }
        }
    }
    let entries: Vec<(Vec<u8>, Vec<u8>)> = model
        .iter()
        .map(|((k, Reverse(s)), (kind, v))| (make_internal_key(k, *s, *kind), v.clone()))
        .collect();
    let mut it = mem.iter();
    let mut pos = None;
    for op in iter_ops {
        if matches!(op, IterOp::Next | IterOp::Prev) && pos.is_none() {
            continue; // moving an invalid iterator is outside the contract
        }
        pos = model_iter(&entries, pos, op);
        match op {
            IterOp::First => it.seek_to_first(),
            IterOp::Last => it.seek_to_last(),
            IterOp::Seek(k, s) => it.seek(&make_internal_key(k, *s, ValueKind::Put)),
            IterOp::SeekForPrev(k, s) => {
                it.seek_for_prev(&make_internal_key(k, *s, ValueKind::Put))
            }
            IterOp::Next => it.next(),
            IterOp::Prev => it.prev(),
        }
        assert_eq!(it.valid(), pos.is_some(), "{op:?}");
        if let Some(i) = pos {
            assert_eq!(
                (it.key(), it.value()),
                (&entries[i].0[..], &entries[i].1[..])
            );
        }
    }
    let scanned = scan(&mem);
    assert_eq!(scanned.len(), entries.len());
    let counted_tombs = mem.range_tombstones(u64::MAX).len();
    assert_eq!(counted_tombs, tombs.len());
    assert_eq!(mem.num_entries() as usize, entries.len() + tombs.len());
}

proptest! {
    // Under Miri (see the module doc) a few cases check the unsafe code on every path.
    #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 4 } else { 200 }))]

    #[test]
    fn memtable_matches_model(
        ops in proptest::collection::vec(arb_op(), 0..if cfg!(miri) { 40 } else { 150 }),
        iter_ops in proptest::collection::vec(arb_iter_op(), 0..if cfg!(miri) { 20 } else { 60 }),
        seqs in Just((1..=200u64).collect::<Vec<_>>()).prop_shuffle(),
    ) {
        for rep in REPS {
            run_model(rep, &ops, &iter_ops, &seqs);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Concurrency

/// Checks that the point entries are strictly increasing in both directions, and returns the
/// forward count.
fn check_sorted(mem: &Arc<MemTable>) -> usize {
    let mut it = mem.iter();
    it.seek_to_first();
    let mut prev: Option<Vec<u8>> = None;
    let mut n = 0;
    while it.valid() {
        if let Some(p) = &prev {
            assert!(compare_internal(p, it.key()).is_lt(), "out of order");
        }
        prev = Some(it.key().to_vec());
        n += 1;
        it.next();
    }
    // Walk the last few entries backwards: prev() searches from the head every time.
    it.seek_to_last();
    for _ in 0..50 {
        if !it.valid() {
            break;
        }
        let k = it.key().to_vec();
        it.prev();
        if it.valid() {
            assert!(compare_internal(it.key(), &k).is_lt(), "prev out of order");
        }
    }
    n
}

/// Four writers insert disjoint keys (two through `add` and its shared splice, two through
/// their own inserters, in scattered orders) while two readers scan, look up already-published
/// keys and check order; afterwards every key is present exactly once, in order.
#[test]
fn concurrent_writers_and_readers() {
    // Under Miri, which interprets every access, a two-hundredth of the inserts (CI time:
    // this test took 80 of the Miri step's 420 s at 120).
    const PER_WRITER: u64 = if cfg!(miri) { 60 } else { 12_000 };
    const WRITERS: u64 = 4;
    let mem = Arc::new(MemTable::new(small_blocks(MemTableRep::SkipList)));
    let done = AtomicBool::new(false);
    // Highest index each writer has finished inserting, published with Release.
    let progress: Vec<AtomicU64> = (0..WRITERS).map(|_| AtomicU64::new(0)).collect();
    let key = |w: u64, i: u64| {
        // Scatter each writer's keys over the whole key space, interleaved with the others.
        let k = (i * 7919 % PER_WRITER) * WRITERS + w;
        format!("key{k:012}").into_bytes()
    };
    std::thread::scope(|s| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (mem, progress, key) = (&mem, &progress, &key);
                s.spawn(move || {
                    let mut ins = mem.inserter();
                    for i in 0..PER_WRITER {
                        let seq = 1 + i * WRITERS + w;
                        let (k, v) = (key(w, i), seq.to_le_bytes());
                        let r = if w % 2 == 0 {
                            mem.add(seq, ValueKind::Put, &k, &v)
                        } else {
                            ins.add(seq, ValueKind::Put, &k, &v)
                        };
                        r.expect("add");
                        progress[w as usize].store(i + 1, AtomicOrdering::Release);
                    }
                })
            })
            .collect();
        for r in 0..2u64 {
            let (mem, done, progress, key) = (&mem, &done, &progress, &key);
            s.spawn(move || {
                let mut last_count = 0;
                let mut probe = r;
                loop {
                    // Read `done` before the pass, so one more full pass runs after it is set.
                    let finished = done.load(AtomicOrdering::Acquire);
                    let n = check_sorted(mem);
                    assert!(n >= last_count, "a reader lost entries");
                    last_count = n;
                    for _ in 0..200 {
                        probe = probe.wrapping_mul(6364136223846793005).wrapping_add(1);
                        let w = probe % WRITERS;
                        let published = progress[w as usize].load(AtomicOrdering::Acquire);
                        if published == 0 {
                            continue;
                        }
                        let i = (probe >> 8) % published;
                        let seq = 1 + i * WRITERS + w;
                        let want = MemGet::Value {
                            seq,
                            value: &seq.to_le_bytes(),
                        };
                        assert_eq!(mem.get(&key(w, i), u64::MAX), Some(want));
                    }
                    if finished {
                        break;
                    }
                }
            });
        }
        for h in writers {
            h.join().expect("writer");
        }
        done.store(true, AtomicOrdering::Release);
    });
    let all = scan(&mem);
    assert_eq!(all.len() as u64, WRITERS * PER_WRITER);
    let mut expected: Vec<Vec<u8>> = (0..WRITERS)
        .flat_map(|w| (0..PER_WRITER).map(move |i| (w, i)))
        .map(|(w, i)| key(w, i))
        .collect();
    expected.sort();
    let got: Vec<Vec<u8>> = all.into_iter().map(|e| e.0).collect();
    assert_eq!(got, expected, "every key exactly once, in order");
    assert_eq!(mem.num_entries(), WRITERS * PER_WRITER);
}

/// Many writers racing on the *same* small key range with distinct sequence numbers: the CAS
/// retry path at every level, and duplicate detection under races.
#[test]
fn contended_inserts_and_racing_duplicates() {
    // Under Miri, a twentieth.
    const CONTENDED_INSERTS: u64 = if cfg!(miri) { 150 } else { 3000 };
    let mem = Arc::new(MemTable::new(small_blocks(MemTableRep::SkipList)));
    let accepted = AtomicU64::new(0);
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let (mem, accepted) = (&mem, &accepted);
            s.spawn(move || {
                for i in 0..CONTENDED_INSERTS {
                    let key = [(i % 16) as u8];
                    // Every thread also tries the same (key, seq) as the others: exactly one
                    // of the four attempts may succeed.
                    let seq = if i % 3 == 0 { i } else { 10_000 + i * 4 + t };
                    if mem.add(seq, ValueKind::Put, &key, b"").is_ok() {
                        accepted.fetch_add(1, AtomicOrdering::Relaxed);
                    }
                }
            });
        }
    });
    let dup_slots = (0..CONTENDED_INSERTS).filter(|i| i % 3 == 0).count() as u64;
    let unique = (0..CONTENDED_INSERTS).filter(|i| i % 3 != 0).count() as u64 * 4;
    assert_eq!(accepted.load(AtomicOrdering::Relaxed), dup_slots + unique);
    assert_eq!(check_sorted(&mem) as u64, dup_slots + unique);
}

#[test]
fn memtable_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<MemTable>();
    assert_send_sync::<Arc<MemTable>>();
    fn assert_send<T: Send>() {}
    assert_send::<MemTableIter>();
    assert_send::<MemTableInserter<'static>>();
}
