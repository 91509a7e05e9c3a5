//! Tests of the write batch: the worked example of `docs/format/write_batch.md`, limits, group
//! append, strict decoding, and randomized round trips and damage.

use std::path::Path;

use proptest::prelude::*;

use super::*;

/// One operation of a randomized batch, as the model sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Op {
    cf: u32,
    kind: ValueKind,
    key: Vec<u8>,
    value: Vec<u8>,
}

fn apply(batch: &mut WriteBatch, op: &Op) -> Result<()> {
    let (cf, k, v) = (op.cf, &op.key[..], &op.value[..]);
    match op.kind {
        ValueKind::Put => batch.put_cf(cf, k, v),
        ValueKind::Delete => batch.delete_cf(cf, k),
        ValueKind::SingleDelete => batch.single_delete_cf(cf, k),
        ValueKind::Merge => batch.merge_cf(cf, k, v),
        ValueKind::RangeDelete => batch.delete_range_cf(cf, k, v),
    }
}

fn entries(batch: &WriteBatch) -> Vec<Op> {
    batch
        .iter()
        .map(|e| {
            let e = e.expect("valid batch");
            Op {
                cf: e.cf,
                kind: e.kind,
                key: e.key.to_vec(),
                value: e.value.to_vec(),
            }
        })
        .collect()
}

/// The example of `docs/format/write_batch.md`, byte for byte.
fn worked_example() -> WriteBatch {
    let mut b = WriteBatch::new();
    b.put(b"key", b"v").expect("put");
    b.delete_cf(3, b"k").expect("delete");
    b.delete_range(b"a", b"c").expect("delete_range");
    b.set_sequence(100);
    b
}

const WORKED_EXAMPLE_HEX: &str = "6400000000000000 03000000 02036b65790176 1103016b 0501610163";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn worked_example_matches_spec() {
    let b = worked_example();
    assert_eq!(hex(b.data()), WORKED_EXAMPLE_HEX.replace(' ', ""));
    assert_eq!((b.count(), b.data_size(), b.sequence()), (3, 28, 100));
    let back = WriteBatch::from_bytes(b.data().to_vec()).expect("decode");
    assert_eq!(back, b);
    let e = entries(&back);
    assert_eq!(e[1].cf, 3);
    assert_eq!(e[2].kind, ValueKind::RangeDelete);
    assert_eq!((&e[2].key[..], &e[2].value[..]), (&b"a"[..], &b"c"[..]));
}

#[test]
fn empty_batch_is_a_bare_header() {
    let mut b = WriteBatch::new();
    assert!(b.is_empty());
    assert_eq!(b.data(), &[0u8; HEADER_LEN][..]);
    b.put(b"x", b"y").expect("put");
    b.set_sequence(7);
    b.clear();
    assert!(b.is_empty());
    assert_eq!(b.sequence(), 7, "clear keeps the sequence number");
    assert_eq!(b.iter().count(), 0);
    assert_eq!(
        WriteBatch::from_bytes(b.data().to_vec()).expect("decode"),
        b
    );
}

#[test]
fn oversize_fields_are_rejected_and_leave_the_batch_unchanged() {
    let mut b = WriteBatch::new();
    b.put(b"a", b"1").expect("put");
    let before = b.clone();
    let big_key = vec![0u8; MAX_KEY_LEN + 1];
    for r in [
        b.put(&big_key, b""),
        b.delete(&big_key),
        b.single_delete_cf(2, &big_key),
        b.merge(&big_key, b""),
        b.delete_range(b"", &big_key),
    ] {
        assert!(matches!(r, Err(Error::InvalidArgument(_))), "{r:?}");
    }
    assert_eq!(b, before);
    b.put(&vec![7u8; MAX_KEY_LEN], b"")
        .expect("key at the limit");
    b.delete_range(b"same", b"same").expect("empty range");
    // Whether begin sorts after end depends on the family's comparator: the write checks it
    // (tests/db_comparator.rs), the batch takes the range as it is.
    b.delete_range(b"b", b"a").expect("a descending range");
}

#[test]
fn append_concatenates_and_keeps_the_first_sequence() {
    let mut a = WriteBatch::new();
    a.put(b"a", b"1").expect("put");
    a.set_sequence(10);
    let mut b = WriteBatch::new();
    b.merge_cf(5, b"b", b"2").expect("merge");
    b.single_delete(b"c").expect("sd");
    b.set_sequence(99);
    let mut expected = entries(&a);
    expected.extend(entries(&b));
    a.append(&b).expect("append");
    assert_eq!((a.count(), a.sequence()), (3, 10));
    assert_eq!(entries(&a), expected);
    assert_eq!(
        WriteBatch::from_bytes(a.data().to_vec()).expect("decode"),
        a
    );
}

#[test]
fn sequence_range_is_bounded_to_56_bits() {
    let mut b = WriteBatch::new();
    b.put(b"k", b"v").expect("put");
    b.set_sequence(MAX_SEQUENCE);
    assert!(
        b.put(b"k2", b"v").is_err(),
        "second record would need seq 2^56"
    );
    let mut raw = b.data().to_vec();
    raw[..8].copy_from_slice(&(MAX_SEQUENCE + 1).to_le_bytes());
    assert!(WriteBatch::from_bytes(raw).unwrap_err().is_corruption());
}

#[test]
#[should_panic(expected = "exceeds 56 bits")]
fn set_sequence_past_56_bits_panics() {
    WriteBatch::new().set_sequence(MAX_SEQUENCE + 2);
}

/// Each damaged encoding and the offset its error must name.
#[test]
fn malformed_encodings_are_corruption_with_offsets() {
    let good = worked_example().into_bytes();
    let with = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        b
    };
    let cases: Vec<(&str, Vec<u8>, u64)> = vec![
        ("short header", good[..11].to_vec(), 0),
        ("count too high", with(&|b| b[8] = 4), 8),
        ("count too low", with(&|b| b[8] = 2), 8),
        ("unknown tag", with(&|b| b[12] = 0x06), 12),
        ("zero tag", with(&|b| b[12] = 0x00), 12),
        ("explicit cf 0", with(&|b| b[20] = 0), 19),
        ("truncated record", good[..good.len() - 1].to_vec(), 23),
        (
            "non-minimal varint",
            with(&|b| {
                // Replace the put's key length 0x03 by the two-byte form 0x83 0x00.
                b.splice(13..14, [0x83, 0x00]);
            }),
            12,
        ),
    ];
    for (name, bytes, offset) in cases {
        let e = WriteBatch::from_bytes(bytes).expect_err(name);
        let c = e.as_corruption().unwrap_or_else(|| panic!("{name}: {e}"));
        assert_eq!(c.offset, offset, "{name}: {e}");
    }
}

#[test]
fn huge_length_fields_do_not_allocate() {
    // A header claiming one record whose key is 2^62 bytes long.
    let mut b = vec![0u8; HEADER_LEN];
    b[8] = 1;
    b.extend_from_slice(&[0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f]);
    assert!(WriteBatch::from_bytes(b).unwrap_err().is_corruption());
}

fn arb_kind() -> impl Strategy<Value = ValueKind> {
    prop_oneof![
        Just(ValueKind::Put),
        Just(ValueKind::Delete),
        Just(ValueKind::SingleDelete),
        Just(ValueKind::Merge),
        Just(ValueKind::RangeDelete),
    ]
}

fn arb_op() -> impl Strategy<Value = Op> {
    (
        prop_oneof![Just(0u32), 1u32..300, Just(u32::MAX)],
        arb_kind(),
        proptest::collection::vec(any::<u8>(), 0..20),
        proptest::collection::vec(any::<u8>(), 0..200),
    )
        .prop_map(|(cf, kind, key, mut value)| {
            if !has_value(kind) {
                value.clear();
            }
            let (key, value) = if kind == ValueKind::RangeDelete && key > value {
                (value, key)
            } else {
                (key, value)
            };
            Op {
                cf,
                kind,
                key,
                value,
            }
        })
}

fn build(ops: &[Op], seq: u64) -> WriteBatch {
    let mut b = WriteBatch::new();
    for op in ops {
        apply(&mut b, op).expect("valid op");
    }
    b.set_sequence(seq);
    b
}

proptest! {
    #[test]
    fn round_trip(ops in proptest::collection::vec(arb_op(), 0..40), seq in 0u64..1 << 50) {
        let b = build(&ops, seq);
        prop_assert_eq!(b.count() as usize, ops.len());
        prop_assert_eq!(&entries(&b), &ops);
        let back = WriteBatch::from_bytes(b.data().to_vec()).expect("decode");
        prop_assert_eq!(&back, &b);
        prop_assert_eq!(back.sequence(), seq);
        prop_assert_eq!(&entries(&back), &ops);
    }

    #[test]
    fn damage_gives_corruption_or_a_valid_canonical_batch(
        ops in proptest::collection::vec(arb_op(), 1..10),
        pos in any::<prop::sample::Index>(),
        xor in 1u8..,
        cut in any::<prop::sample::Index>(),
    ) {
        let good = build(&ops, 1000).into_bytes();
        let mut flipped = good.clone();
        flipped[pos.index(good.len())] ^= xor;
        let truncated = good[..cut.index(good.len())].to_vec();
        for bytes in [flipped, truncated] {
            match WriteBatch::from_bytes(bytes.clone()) {
                Ok(b) => {
                    // Canonical: rebuilding from the decoded entries gives the same bytes.
                    let rebuilt = build(&entries(&b), b.sequence());
                    prop_assert_eq!(rebuilt.data(), &bytes[..]);
                }
                Err(e) => prop_assert!(e.is_corruption(), "{}", e),
            }
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Ok(b) = WriteBatch::from_bytes(bytes.clone()) {
            let rebuilt = build(&entries(&b), b.sequence());
            prop_assert_eq!(rebuilt.data(), &bytes[..]);
        }
    }
}

/// Writes seed inputs for `fuzz/fuzz_targets/write_batch.rs` from valid batches. Run by hand:
/// `cargo test -p cairndb --lib write_batch_fuzz_seeds -- --ignored`.
#[test]
#[ignore = "writes into fuzz/corpus; run by hand"]
fn write_batch_fuzz_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/write_batch");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut every_kind = WriteBatch::new();
    for (i, kind) in [
        ValueKind::Put,
        ValueKind::Delete,
        ValueKind::SingleDelete,
        ValueKind::Merge,
        ValueKind::RangeDelete,
    ]
    .into_iter()
    .enumerate()
    {
        for cf in [0, 1, 200, u32::MAX] {
            let op = Op {
                cf,
                kind,
                key: format!("key{i}").into_bytes(),
                value: if has_value(kind) {
                    format!("value{i}").into_bytes()
                } else {
                    Vec::new()
                },
            };
            apply(&mut every_kind, &op).expect("op");
        }
    }
    every_kind.set_sequence(12345);
    let mut long = WriteBatch::new();
    long.put(&[b'k'; 300], &[b'v'; 20000]).expect("put");
    let seeds = [
        ("empty", WriteBatch::new()),
        ("worked-example", worked_example()),
        ("every-kind", every_kind),
        ("long-fields", long),
    ];
    for (name, batch) in seeds {
        std::fs::write(dir.join(name), batch.data()).expect("write seed");
    }
}

#[test]
fn save_points_nest_and_roll_back_to_record_boundaries() {
    let mut b = WriteBatch::new();
    assert!(matches!(
        b.rollback_to_save_point(),
        Err(Error::NotFound(_))
    ));
    assert!(matches!(b.pop_save_point(), Err(Error::NotFound(_))));
    b.put(b"a", b"1").expect("put");
    let after_a = b.data().to_vec();
    b.set_save_point();
    b.put_cf(7, b"b", b"2").expect("put");
    b.set_save_point();
    b.merge(b"c", b"3").expect("merge");
    b.rollback_to_save_point().expect("inner");
    assert_eq!(b.count(), 2);
    b.pop_save_point().expect("pop keeps the records");
    assert_eq!(b.count(), 2);
    b.set_save_point();
    b.delete(b"d").expect("delete");
    b.rollback_to_save_point().expect("outer");
    assert_eq!(b.count(), 2);
    assert!(matches!(
        b.rollback_to_save_point(),
        Err(Error::NotFound(_))
    ));
    // A rolled-back batch is a valid encoding of the records it kept.
    let decoded = WriteBatch::from_bytes(b.data().to_vec()).expect("valid");
    assert_eq!(decoded.count(), 2);
    assert_eq!(decoded.max_column_family(), 7);
    b.set_save_point();
    b.clear();
    assert!(matches!(
        b.rollback_to_save_point(),
        Err(Error::NotFound(_))
    ));
    let mut c = WriteBatch::from_bytes(after_a).expect("valid");
    c.set_save_point();
    c.put(b"x", b"y").expect("put");
    c.rollback_to_save_point().expect("rollback");
    assert_eq!(entries(&c).len(), 1);
}
