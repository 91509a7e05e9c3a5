//! The row layer's encodings (issue 16, item 3): index keys round-trip and sort as their
//! columns compare, column by column, for every column type, NULLs and all; row values
//! round-trip; damaged keys and values are errors, never wrong values.

use std::cmp::Ordering;

use cairn_rows::keycode::{get_key_column, put_key_column};
use cairn_rows::rowcode;
use cairn_rows::schema::{Column, ColumnType, Value};
use proptest::prelude::*;

fn column_type() -> impl Strategy<Value = ColumnType> {
    prop_oneof![
        (prop::sample::select(vec![1u8, 2, 4, 8]), any::<bool>())
            .prop_map(|(bytes, unsigned)| ColumnType::Int { bytes, unsigned }),
        Just(ColumnType::Double),
        (1u8..=18).prop_map(|p| ColumnType::Decimal {
            precision: p,
            scale: p / 2
        }),
        (0u16..=20).prop_map(ColumnType::Char),
        prop_oneof![0u32..=20, Just(300u32)].prop_map(ColumnType::Varchar),
        Just(ColumnType::Datetime),
    ]
}

fn column() -> impl Strategy<Value = Column> {
    (column_type(), any::<bool>()).prop_map(|(ty, nullable)| Column {
        name: "c".into(),
        ty,
        nullable,
    })
}

/// A value of `col`'s type (NULL now and then when nullable).
fn value(col: &Column) -> BoxedStrategy<Value> {
    let v: BoxedStrategy<Value> = match col.ty {
        ColumnType::Int { bytes, unsigned } => {
            let bits = u32::from(bytes) * 8;
            if unsigned && bits == 64 {
                any::<u64>()
                    .prop_map(|u| i64::try_from(u).map_or(Value::UInt(u), Value::Int))
                    .boxed()
            } else if unsigned {
                (0..(1i64 << bits)).prop_map(Value::Int).boxed()
            } else if bits == 64 {
                any::<i64>().prop_map(Value::Int).boxed()
            } else {
                (-(1i64 << (bits - 1))..(1i64 << (bits - 1)))
                    .prop_map(Value::Int)
                    .boxed()
            }
        }
        ColumnType::Double => prop_oneof![
            any::<f64>().prop_filter("not NaN", |d| !d.is_nan()),
            Just(0.0),
            Just(-0.0),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
        ]
        .prop_map(Value::Double)
        .boxed(),
        ColumnType::Decimal { precision, .. } => {
            let m = 10i64.pow(u32::from(precision));
            (-(m - 1)..m).prop_map(Value::Int).boxed()
        }
        ColumnType::Datetime => any::<i64>().prop_map(Value::Int).boxed(),
        ColumnType::Char(n) => prop::collection::vec(
            prop_oneof![Just(b' '), Just(0u8), any::<u8>()],
            0..=usize::from(n),
        )
        .prop_map(|mut b| {
            while b.last() == Some(&b' ') {
                b.pop();
            }
            Value::Bytes(b)
        })
        .boxed(),
        ColumnType::Varchar(n) => prop::collection::vec(
            prop_oneof![Just(0u8), Just(0xffu8), any::<u8>()],
            0..=(n as usize).min(40),
        )
        .prop_map(Value::Bytes)
        .boxed(),
    };
    if col.nullable {
        prop_oneof![1 => Just(Value::Null), 6 => v].boxed()
    } else {
        v
    }
}

/// How MySQL compares two values of `col` (NULL first; CHAR as if padded with spaces).
fn compare(col: &Column, a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Null, Value::Null) => Ordering::Equal,
        (Value::Null, _) => Ordering::Less,
        (_, Value::Null) => Ordering::Greater,
        (Value::Double(x), Value::Double(y)) => x.partial_cmp(y).expect("no NaN"),
        (Value::Bytes(x), Value::Bytes(y)) => match col.ty {
            ColumnType::Char(n) => {
                let pad = |v: &Vec<u8>| {
                    let mut p = v.clone();
                    p.resize(usize::from(n), b' ');
                    p
                };
                pad(x).cmp(&pad(y))
            }
            _ => x.cmp(y),
        },
        _ => {
            let wide = |v: &Value| match v {
                Value::Int(i) => i128::from(*i),
                Value::UInt(u) => i128::from(*u),
                other => panic!("not an integer: {other:?}"),
            };
            wide(a).cmp(&wide(b))
        }
    }
}

fn key_of(cols: &[Column], row: &[Value]) -> Vec<u8> {
    let mut k = Vec::new();
    for (c, v) in cols.iter().zip(row) {
        put_key_column(&mut k, c, v);
    }
    k
}

/// Columns and two rows of values for them.
fn two_rows() -> impl Strategy<Value = (Vec<Column>, Vec<Value>, Vec<Value>)> {
    prop::collection::vec(column(), 1..4).prop_flat_map(|cols| {
        let row = cols.iter().map(value).collect::<Vec<_>>();
        (Just(cols), row.clone(), row)
    })
}

fn normal(v: &Value) -> Value {
    match v {
        Value::Double(d) if *d == 0.0 => Value::Double(0.0),
        other => other.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn keys_round_trip_and_sort_as_their_columns((cols, a, b) in two_rows()) {
        for c in &cols {
            if let Some(v) = a.iter().find(|v| !v.is_null()) {
                let _ = c.ty.check("c", v);
            }
        }
        let ka = key_of(&cols, &a);
        let kb = key_of(&cols, &b);
        let mut rest = ka.as_slice();
        for (c, v) in cols.iter().zip(&a) {
            prop_assert_eq!(get_key_column(&mut rest, c).expect("decode"), normal(v));
        }
        prop_assert!(rest.is_empty());
        let expected = cols
            .iter()
            .zip(a.iter().zip(&b))
            .map(|(c, (x, y))| compare(c, x, y))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal);
        prop_assert_eq!(ka.cmp(&kb), expected, "{:?} {:?} {:?}", cols, a, b);
        // Descending order (a reverse family) is the same comparison turned around.
        prop_assert_eq!(kb.cmp(&ka), expected.reverse());
    }

    #[test]
    fn row_values_round_trip_and_damage_is_an_error((cols, a, _b) in two_rows(), cut in 0usize..64) {
        for (c, v) in cols.iter().zip(&a) {
            if !v.is_null() {
                prop_assert!(c.ty.check("c", v).is_ok(), "{:?} {:?}", c, v);
            }
        }
        let all: Vec<usize> = (0..cols.len()).collect();
        let mut enc = Vec::new();
        rowcode::encode(&cols, &all, &a, &mut enc);
        let mut back = vec![Value::Null; cols.len()];
        rowcode::decode(&cols, &all, &enc, &mut back).expect("decode");
        prop_assert_eq!(&back, &a);
        // A truncated value fails (it never decodes to other values silently), and so does one
        // with a byte too many.
        if cut < enc.len() {
            let mut out = vec![Value::Null; cols.len()];
            prop_assert!(rowcode::decode(&cols, &all, &enc[..cut], &mut out).is_err());
        }
        let mut longer = enc.clone();
        longer.push(0);
        let mut out = vec![Value::Null; cols.len()];
        prop_assert!(rowcode::decode(&cols, &all, &longer, &mut out).is_err());
    }
}

#[test]
fn values_out_of_range_are_refused() {
    let tiny = ColumnType::TINYINT;
    assert!(tiny.check("c", &Value::Int(127)).is_ok());
    assert!(tiny.check("c", &Value::Int(128)).is_err());
    assert!(tiny.check("c", &Value::Int(-129)).is_err());
    let u8_ = ColumnType::Int {
        bytes: 1,
        unsigned: true,
    };
    assert!(u8_.check("c", &Value::Int(255)).is_ok());
    assert!(u8_.check("c", &Value::Int(-1)).is_err());
    assert!(ColumnType::Char(3)
        .check("c", &Value::Bytes(b"abcd".to_vec()))
        .is_err());
    assert!(ColumnType::Double
        .check("c", &Value::Double(f64::NAN))
        .is_err());
    assert!(ColumnType::INT
        .check("c", &Value::Bytes(b"1".to_vec()))
        .is_err());
    let dec = ColumnType::Decimal {
        precision: 4,
        scale: 2,
    };
    assert!(dec.check("c", &Value::Int(9999)).is_ok());
    assert!(dec.check("c", &Value::Int(10000)).is_err());
}

#[test]
fn a_truncated_key_is_an_error() {
    let col = Column::new("c", ColumnType::Varchar(100));
    let mut k = Vec::new();
    put_key_column(
        &mut k,
        &col,
        &Value::Bytes(b"hello world, a long value".to_vec()),
    );
    for cut in 0..k.len() {
        let mut rest = &k[..cut];
        assert!(get_key_column(&mut rest, &col).is_err(), "cut at {cut}");
    }
}
