//! Block tests: round trips against a sorted model for every restart interval, and arbitrary bytes
//! that must never panic or hang.

use crate::comparator::{EntryOrder, KeyOrder};
use proptest::prelude::*;

use super::*;
use crate::sstable::block_builder::BlockBuilder;
use crate::sstable::tests::{check_ops, check_scans, Op};
use crate::test_util::compare_internal;
use crate::types::{make_internal_key, ValueKind};

fn build(model: &[(Vec<u8>, Vec<u8>)], interval: usize) -> BlockIter {
    let mut b = BlockBuilder::new(interval);
    for (k, v) in model {
        b.add(k, v);
    }
    let block = Block::parse(b.finish().to_vec(), BlockKind::Data).expect("parse");
    BlockIter::new(block.into(), EntryOrder::Bytewise).expect("entries block")
}

fn model() -> impl Strategy<Value = Vec<(Vec<u8>, Vec<u8>)>> {
    proptest::collection::btree_map(
        proptest::collection::vec(b'a'..b'd', 0..10),
        proptest::collection::vec(any::<u8>(), 0..20),
        0..200,
    )
    .prop_map(|m| m.into_iter().collect())
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let key = proptest::collection::vec(b'a'..b'e', 0..10);
    let op = prop_oneof![
        Just(Op::First),
        Just(Op::Last),
        key.clone().prop_map(Op::Seek),
        key.prop_map(Op::SeekForPrev),
        Just(Op::Next),
        Just(Op::Prev),
        Just(Op::Prev),
    ];
    proptest::collection::vec(op, 1..80)
}

/// Internal keys over user keys of `prefix` followed by up to 10 bytes of a small alphabet (so
/// that several restarts share a summary, and user keys shorter than the summary's 8 bytes
/// occur), with several versions of some user keys.
fn internal_model() -> impl Strategy<Value = Vec<(Vec<u8>, Vec<u8>)>> {
    let user = proptest::collection::vec(prop_oneof![Just(0u8), b'a'..b'd', Just(0xff)], 0..10);
    let prefix = proptest::collection::vec(b'p'..b'r', 0..12);
    (
        prefix,
        proptest::collection::btree_set((user, 1u64..4), 0..200),
    )
        .prop_map(|(prefix, set)| {
            let mut m: Vec<(Vec<u8>, Vec<u8>)> = set
                .into_iter()
                .map(|(u, seq)| {
                    let user = [prefix.as_slice(), &u].concat();
                    let value = seq.to_le_bytes().to_vec();
                    (make_internal_key(&user, seq, ValueKind::Put), value)
                })
                .collect();
            m.sort_by(|a, b| compare_internal(&a.0, &b.0));
            m
        })
}

/// Seek targets: internal keys of arbitrary user keys, some far outside the model's prefix.
fn internal_ops() -> impl Strategy<Value = Vec<Op>> {
    let user = proptest::collection::vec(prop_oneof![Just(0u8), b'a'..b'e', b'o'..b's'], 0..16);
    let key = (user, 0u64..5).prop_map(|(u, seq)| make_internal_key(&u, seq, ValueKind::Put));
    let op = prop_oneof![
        Just(Op::First),
        Just(Op::Last),
        key.clone().prop_map(Op::Seek),
        key.prop_map(Op::SeekForPrev),
        Just(Op::Next),
        Just(Op::Prev),
    ];
    proptest::collection::vec(op, 1..80)
}

fn build_index(model: &[(Vec<u8>, Vec<u8>)], interval: usize) -> BlockIter {
    let mut b = BlockBuilder::new(interval);
    for (k, v) in model {
        b.add(k, v);
    }
    let block = Block::parse(b.finish().to_vec(), BlockKind::Index).expect("parse");
    BlockIter::new(block.into(), EntryOrder::Internal(KeyOrder::BYTEWISE)).expect("entries block")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// An index block seeks through its restart summary (module invariant 4); it must find
    /// exactly what the plain search finds, for keys sharing long prefixes, short user keys and
    /// targets before, inside and after the block.
    #[test]
    fn index_block_summary_seeks_like_the_model(model in internal_model(),
                                                interval in 1usize..4,
                                                ops in internal_ops()) {
        let mut it = build_index(&model, interval);
        prop_assert_eq!(it.block().prefixes.is_some(), !model.is_empty());
        check_scans(&mut it, &model).map_err(TestCaseError::fail)?;
        check_ops(&mut it, &model, compare_internal, &ops).map_err(TestCaseError::fail)?;
        for (k, _) in &model {
            it.seek(k);
            prop_assert_eq!(it.key(), k.as_slice());
        }
    }

    #[test]
    fn damaged_index_blocks_never_panic(model in internal_model(),
                                        flips in proptest::collection::vec((any::<usize>(), 0u8..8), 1..4),
                                        ops in internal_ops()) {
        let mut b = BlockBuilder::new(1);
        model.iter().for_each(|(k, v)| b.add(k, v));
        let mut bytes = b.finish().to_vec();
        for (at, bit) in flips {
            let n = bytes.len();
            bytes[at % n] ^= 1 << bit;
        }
        let Ok(block) = Block::parse(bytes, BlockKind::Index) else {
            return Ok(());
        };
        let mut it = BlockIter::new(block.into(), EntryOrder::Internal(KeyOrder::BYTEWISE)).expect("entries block");
        for op in ops {
            match op {
                Op::First => it.seek_to_first(),
                Op::Last => it.seek_to_last(),
                Op::Seek(t) => it.seek(&t),
                Op::SeekForPrev(t) => it.seek_for_prev(&t),
                Op::Next if it.valid() => it.next(),
                Op::Prev if it.valid() => it.prev(),
                Op::Next | Op::Prev => {}
            }
        }
    }

    #[test]
    fn block_round_trip(model in model(), interval in 1usize..32, ops in ops()) {
        let mut it = build(&model, interval);
        check_scans(&mut it, &model).map_err(TestCaseError::fail)?;
        check_ops(&mut it, &model, bytewise, &ops).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300),
                                   target in proptest::collection::vec(any::<u8>(), 0..8)) {
        exercise(bytes, &target);
    }

    #[test]
    fn damaged_blocks_never_panic(model in model(), interval in 1usize..8,
                                  flips in proptest::collection::vec((any::<usize>(), 0u8..8), 1..4),
                                  target in proptest::collection::vec(b'a'..b'e', 0..8)) {
        let mut b = BlockBuilder::new(interval);
        model.iter().for_each(|(k, v)| b.add(k, v));
        let mut bytes = b.finish().to_vec();
        for (at, bit) in flips {
            let n = bytes.len();
            bytes[at % n] ^= 1 << bit;
        }
        exercise(bytes, &target);
    }
}

/// Walks a possibly damaged block every way; the only requirement is no panic and no hang.
fn exercise(bytes: Vec<u8>, target: &[u8]) {
    let Ok(block) = Block::parse(bytes, BlockKind::Data) else {
        return;
    };
    let mut it = BlockIter::new(block.into(), EntryOrder::Bytewise).expect("entries block");
    let mut steps = 0;
    it.seek_to_first();
    while it.valid() && steps < 10_000 {
        it.next();
        steps += 1;
    }
    it.seek_to_last();
    while it.valid() && steps < 20_000 {
        it.prev();
        steps += 1;
    }
    assert!(steps < 20_000, "iteration must terminate");
    it.seek(target);
    if it.valid() {
        it.prev();
    }
    it.seek_for_prev(target);
    if it.valid() {
        it.next();
    }
}

#[test]
fn index_summary_skips_the_common_prefix() {
    let users: [&[u8]; 5] = [
        b"user:000000001",
        b"user:000000002",
        b"user:000000002\0",
        b"user:0000000021",
        b"user:000000003",
    ];
    let model: Vec<(Vec<u8>, Vec<u8>)> = users
        .iter()
        .map(|u| (make_internal_key(u, 7, ValueKind::Put), u.to_vec()))
        .collect();
    let mut it = build_index(&model, 1);
    let p = it.block().prefixes.as_ref().expect("summary");
    assert_eq!(&*p.common, b"user:00000000");
    assert_eq!(
        p.prefixes[1], p.prefixes[2],
        "a zero byte pads like the end of the key"
    );
    assert!(p.prefixes.windows(2).all(|w| w[0] <= w[1]));
    let seek = |it: &mut BlockIter, u: &[u8], seq| {
        it.seek(&make_internal_key(u, seq, ValueKind::Put));
        it.valid().then(|| it.value().to_vec())
    };
    assert_eq!(
        seek(&mut it, b"a", 0).as_deref(),
        Some(users[0]),
        "before the common prefix"
    );
    assert_eq!(
        seek(&mut it, b"user:", 0).as_deref(),
        Some(users[0]),
        "a prefix of it"
    );
    assert_eq!(
        seek(&mut it, b"user:000000002", 8).as_deref(),
        Some(users[1])
    );
    assert_eq!(
        seek(&mut it, b"user:000000002", 6).as_deref(),
        Some(users[2])
    );
    assert_eq!(
        seek(&mut it, b"user:000000002\0", 6).as_deref(),
        Some(users[3])
    );
    assert_eq!(
        seek(&mut it, b"user:0000000020", 0).as_deref(),
        Some(users[3])
    );
    assert_eq!(seek(&mut it, b"user:1", 0), None, "after the common prefix");
    it.seek(b"short");
    assert_eq!(
        it.value(),
        users[0],
        "a target too short for a trailer searches plainly"
    );
    assert!(
        it.block().charge() > it.block().contents().len() + 8 * users.len(),
        "the summary is charged"
    );
}

#[test]
fn index_summary_finds_every_key_across_sample_strides() {
    // Big-endian numbers as db_bench writes them, 3 apart, with runs of equal summaries (the
    // trailing bytes past the summary's 8 differ) straddling sample boundaries.
    let user = |n: u64| {
        let mut u = (n / 4).to_be_bytes().to_vec();
        u.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, (n % 4) as u8]);
        u
    };
    let model: Vec<(Vec<u8>, Vec<u8>)> = (0..1000u64)
        .map(|i| {
            let v = (i as u32).to_le_bytes().to_vec();
            (make_internal_key(&user(3 * i + 1), 5, ValueKind::Put), v)
        })
        .collect();
    let mut it = build_index(&model, 1);
    assert!(it.block().prefixes.is_some());
    for n in 0..3002u64 {
        it.seek(&make_internal_key(&user(n), 5, ValueKind::Put));
        let want = n.saturating_sub(1).div_ceil(3);
        if want >= 1000 {
            assert!(!it.valid() && it.status().is_ok(), "seek {n}");
        } else {
            assert_eq!(it.value(), (want as u32).to_le_bytes(), "seek {n}");
        }
    }
}

#[test]
fn index_summary_needs_well_formed_restarts() {
    // Data blocks have none; an index entry whose key is shorter than a trailer disables it.
    let model = [(make_internal_key(b"k", 1, ValueKind::Put), b"v".to_vec())];
    let mut b = BlockBuilder::new(1);
    b.add(&model[0].0, &model[0].1);
    let bytes = b.finish().to_vec();
    let data = Block::parse(bytes.clone(), BlockKind::Data).expect("parse");
    assert!(data.prefixes.is_none());
    let index = Block::parse(bytes, BlockKind::Index).expect("parse");
    assert!(index.prefixes.is_some());
    let mut b = BlockBuilder::new(1);
    b.add(b"short", b"v");
    let index = Block::parse(b.finish().to_vec(), BlockKind::Index).expect("parse");
    assert!(index.prefixes.is_none());
    let empty = Block::parse(BlockBuilder::new(1).finish().to_vec(), BlockKind::Index);
    assert!(empty.expect("parse").prefixes.is_none());
}

#[test]
fn malformed_restart_arrays_are_corruption() {
    assert!(Block::parse(vec![], BlockKind::Data).is_err());
    assert!(
        Block::parse(vec![0, 0, 0, 0], BlockKind::Data).is_err(),
        "zero restarts"
    );
    assert!(
        Block::parse(vec![0, 0, 0, 0, 9, 0, 0, 0], BlockKind::Data).is_err(),
        "count too large"
    );
    // One entry "k"->"v" with the restart pointing past the entries.
    let bad = vec![0, 1, 1, b'k', b'v', 5, 0, 0, 0, 1, 0, 0, 0];
    assert!(Block::parse(bad, BlockKind::Data).is_err());
    let good = vec![0, 1, 1, b'k', b'v', 0, 0, 0, 0, 1, 0, 0, 0];
    let mut it = BlockIter::new(
        Block::parse(good, BlockKind::Data).expect("ok").into(),
        EntryOrder::Bytewise,
    )
    .expect("iter");
    it.seek_to_first();
    assert_eq!((it.key(), it.value()), (&b"k"[..], &b"v"[..]));
}

#[test]
fn entry_past_the_end_is_reported() {
    // Entry claims a 9-byte value; only 1 byte is there.
    let bytes = vec![0, 1, 9, b'k', b'v', 0, 0, 0, 0, 1, 0, 0, 0];
    let mut it = BlockIter::new(
        Block::parse(bytes, BlockKind::Data).expect("ok").into(),
        EntryOrder::Bytewise,
    )
    .expect("iter");
    it.seek_to_first();
    assert!(!it.valid());
    let e = it.status().expect_err("corruption");
    assert!(
        e.is_corruption() && e.to_string().contains("past the end"),
        "{e}"
    );
}

#[test]
fn filter_block_is_not_an_entries_block() {
    let mut f = crate::sstable::filter::FilterBuilder::new(10.0, true, None);
    f.add_user_key(b"x");
    let block = Block::parse(f.finish().expect("filter"), BlockKind::Filter).expect("parse");
    assert!(block.filter().is_some());
    assert!(BlockIter::new(block.into(), EntryOrder::Bytewise).is_err());
}

/// Plain byte order, for the blocks of names (properties, metaindex) and the model's keys.
fn bytewise(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.cmp(b)
}
