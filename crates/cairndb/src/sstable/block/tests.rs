//! Block tests: round trips against a sorted model for every restart interval, and arbitrary bytes
//! that must never panic or hang.

use proptest::prelude::*;

use super::*;
use crate::sstable::block_builder::BlockBuilder;
use crate::sstable::tests::{check_ops, check_scans, Op};

fn build(model: &[(Vec<u8>, Vec<u8>)], interval: usize) -> BlockIter {
    let mut b = BlockBuilder::new(interval);
    for (k, v) in model {
        b.add(k, v);
    }
    let block = Block::parse(b.finish().to_vec(), BlockKind::Data).expect("parse");
    BlockIter::new(block.into(), bytewise).expect("entries block")
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

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
    let mut it = BlockIter::new(block.into(), bytewise).expect("entries block");
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
        bytewise,
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
        bytewise,
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
    assert!(BlockIter::new(block.into(), bytewise).is_err());
}
