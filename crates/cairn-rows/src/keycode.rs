//! Index keys as MyRocks encodes them: a 4-byte big-endian index number, then each key column
//! in a memcomparable form, so that comparing two keys as bytes orders them as their columns
//! compare, column by column (a reverse-ordered column family then orders them descending).
//!
//! Column forms (MyRocks's `Rdb_key_def` packing for binary collations):
//! - a nullable column starts with one byte: 0 for NULL (nothing follows: NULL sorts first),
//!   1 for a value;
//! - signed integers: big-endian two's complement of the column's width with the sign bit
//!   flipped; unsigned integers: big-endian of the width;
//! - `DOUBLE`: the IEEE bits big-endian, all bits flipped for negative numbers and only the
//!   sign bit for the others (-0.0 is stored as 0.0);
//! - `DECIMAL` and `DATETIME`: as a signed 8-byte integer (MySQL packs decimals in a
//!   variable-width form; this layer uses the scaled integer, which sorts the same);
//! - `CHAR(n)`: the value padded with spaces to `n` bytes;
//! - `VARCHAR`: groups of 8 bytes, the last padded with zeros, each followed by a marker byte:
//!   9 when more groups follow, else the number of value bytes in the group (0..=8), so that a
//!   prefix sorts before its extensions (MyRocks's variable-length format).
//!
//! A key column read back is the value written, except that `CHAR` loses trailing spaces.

use crate::error::{Error, Result};
use crate::schema::{Column, ColumnType, Value};

/// Bytes of a VARCHAR group, and the marker that says another group follows.
const GROUP: usize = 8;
const MORE: u8 = 9;

/// Appends index number `id`.
pub fn put_index_id(out: &mut Vec<u8>, id: u32) {
    out.extend_from_slice(&id.to_be_bytes());
}

/// The index number a key starts with.
///
/// # Errors
/// [`Error::Corrupt`] for a key shorter than 4 bytes.
pub fn index_id(key: &[u8]) -> Result<u32> {
    let b: [u8; 4] = key
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| Error::Corrupt(format!("index key {key:02x?} is shorter than 4 bytes")))?;
    Ok(u32::from_be_bytes(b))
}

/// Appends `v` (already checked against `col`) in `col`'s memcomparable form.
pub fn put_key_column(out: &mut Vec<u8>, col: &Column, v: &Value) {
    if col.nullable {
        if v.is_null() {
            out.push(0);
            return;
        }
        out.push(1);
    }
    match (col.ty, v) {
        (ColumnType::Int { bytes, unsigned }, _) => {
            let width = usize::from(bytes);
            let raw: u64 = match v {
                Value::UInt(u) => *u,
                _ => v.as_i64().unwrap_or_default() as u64,
            };
            let mut be = raw.to_be_bytes();
            if !unsigned {
                be[8 - width] ^= 0x80;
            }
            out.extend_from_slice(&be[8 - width..]);
        }
        (ColumnType::Decimal { .. } | ColumnType::Datetime, _) => {
            let mut be = (v.as_i64().unwrap_or_default() as u64).to_be_bytes();
            be[0] ^= 0x80;
            out.extend_from_slice(&be);
        }
        (ColumnType::Double, Value::Double(d)) => {
            let d = if *d == 0.0 { 0.0 } else { *d };
            let bits = d.to_bits();
            let bits = if bits >> 63 == 1 {
                !bits
            } else {
                bits ^ (1 << 63)
            };
            out.extend_from_slice(&bits.to_be_bytes());
        }
        (ColumnType::Char(n), Value::Bytes(b)) => {
            out.extend_from_slice(b);
            out.resize(out.len() + usize::from(n) - b.len(), b' ');
        }
        (ColumnType::Varchar(_), Value::Bytes(b)) => {
            let mut chunks = b.chunks(GROUP).peekable();
            if chunks.peek().is_none() {
                out.extend_from_slice(&[0; GROUP]);
                out.push(0);
            }
            while let Some(c) = chunks.next() {
                out.extend_from_slice(c);
                out.resize(out.len() + GROUP - c.len(), 0);
                if chunks.peek().is_some() {
                    out.push(MORE);
                } else {
                    out.push(c.len() as u8);
                }
            }
        }
        // `check` refuses other pairs before anything is encoded.
        (_, _) => unreachable!("value {v:?} was not checked against {:?}", col.ty),
    }
}

/// Reads one column in `col`'s form from the front of `input`, advancing it.
///
/// # Errors
/// [`Error::Corrupt`] when `input` ends early or holds a byte the form cannot have.
pub fn get_key_column(input: &mut &[u8], col: &Column) -> Result<Value> {
    let corrupt = |what: &str| Error::Corrupt(format!("key column {}: {what}", col.name));
    let take = |n: usize, input: &mut &[u8]| -> Result<Vec<u8>> {
        if input.len() < n {
            return Err(corrupt("truncated"));
        }
        let (a, b) = input.split_at(n);
        *input = b;
        Ok(a.to_vec())
    };
    if col.nullable {
        match take(1, input)?[0] {
            0 => return Ok(Value::Null),
            1 => {}
            _ => return Err(corrupt("bad NULL marker")),
        }
    }
    Ok(match col.ty {
        ColumnType::Int { bytes, unsigned } => {
            let width = usize::from(bytes);
            let mut b = take(width, input)?;
            if !unsigned {
                b[0] ^= 0x80;
            }
            let mut be = if !unsigned && b[0] & 0x80 != 0 {
                [0xff; 8]
            } else {
                [0; 8]
            };
            be[8 - width..].copy_from_slice(&b);
            let raw = u64::from_be_bytes(be);
            if unsigned && width == 8 && raw > i64::MAX as u64 {
                Value::UInt(raw)
            } else {
                Value::Int(raw as i64)
            }
        }
        ColumnType::Decimal { .. } | ColumnType::Datetime => {
            let mut b = take(8, input)?;
            b[0] ^= 0x80;
            Value::Int(i64::from_be_bytes(b.try_into().expect("8 bytes")))
        }
        ColumnType::Double => {
            let b = take(8, input)?;
            let bits = u64::from_be_bytes(b.try_into().expect("8 bytes"));
            let bits = if bits >> 63 == 1 {
                bits ^ (1 << 63)
            } else {
                !bits
            };
            Value::Double(f64::from_bits(bits))
        }
        ColumnType::Char(n) => {
            let mut b = take(usize::from(n), input)?;
            while b.last() == Some(&b' ') {
                b.pop();
            }
            Value::Bytes(b)
        }
        ColumnType::Varchar(max) => {
            let mut out = Vec::new();
            loop {
                let g = take(GROUP + 1, input)?;
                let marker = g[GROUP];
                if marker == MORE {
                    out.extend_from_slice(&g[..GROUP]);
                    continue;
                }
                let used = usize::from(marker);
                if used > GROUP || g[used..GROUP].iter().any(|&x| x != 0) {
                    return Err(corrupt("bad VARCHAR group"));
                }
                out.extend_from_slice(&g[..used]);
                break;
            }
            if out.len() > max as usize {
                return Err(corrupt("VARCHAR longer than its column"));
            }
            Value::Bytes(out)
        }
    })
}

/// The smallest key greater than every key that starts with `prefix` (bytewise), or `None`
/// when `prefix` is all 0xff bytes (no such key).
pub fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last != 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}
