//! Index values: the primary key's value holds the row's non-key columns, a covering secondary
//! index's value its included columns, as MyRocks lays out its records: a NULL bitmap (one bit
//! per nullable column stored, in column order, set for NULL), then each non-NULL column in a
//! fixed or length-prefixed form:
//! - integers: little-endian of the column's width; `DOUBLE`, `DECIMAL`, `DATETIME`: 8 bytes
//!   little-endian;
//! - `CHAR(n)`: `n` bytes, space padded (MySQL's fixed-width field);
//! - `VARCHAR(n)`: a 1-byte length when `n < 256`, else 2 bytes little-endian, then the bytes.
//!
//! Decoding checks lengths and consumes the value exactly: anything left over, or missing, is
//! [`Error::Corrupt`].

use crate::error::{Error, Result};
use crate::schema::{Column, ColumnType, Value};

/// Encodes the values of `columns` (positions in `cols`) of `row`.
pub fn encode(cols: &[Column], columns: &[usize], row: &[Value], out: &mut Vec<u8>) {
    let nullable = columns.iter().filter(|&&c| cols[c].nullable).count();
    let bitmap_at = out.len();
    out.resize(bitmap_at + nullable.div_ceil(8), 0);
    let mut bit = 0;
    for &c in columns {
        let col = &cols[c];
        let v = &row[c];
        if col.nullable {
            if v.is_null() {
                out[bitmap_at + bit / 8] |= 1 << (bit % 8);
            }
            bit += 1;
        }
        if v.is_null() {
            continue;
        }
        match (col.ty, v) {
            (ColumnType::Int { bytes, .. }, _) => {
                let raw = match v {
                    Value::UInt(u) => *u,
                    _ => v.as_i64().unwrap_or_default() as u64,
                };
                out.extend_from_slice(&raw.to_le_bytes()[..usize::from(bytes)]);
            }
            (ColumnType::Decimal { .. } | ColumnType::Datetime, _) => {
                out.extend_from_slice(&v.as_i64().unwrap_or_default().to_le_bytes());
            }
            (ColumnType::Double, Value::Double(d)) => out.extend_from_slice(&d.to_le_bytes()),
            (ColumnType::Char(n), Value::Bytes(b)) => {
                out.extend_from_slice(b);
                out.resize(out.len() + usize::from(n) - b.len(), b' ');
            }
            (ColumnType::Varchar(n), Value::Bytes(b)) => {
                if n < 256 {
                    out.push(b.len() as u8);
                } else {
                    out.extend_from_slice(&(b.len() as u16).to_le_bytes());
                }
                out.extend_from_slice(b);
            }
            // `check` refuses other pairs before anything is encoded.
            (t, v) => unreachable!("value {v:?} was not checked against {t:?}"),
        }
    }
}

/// Decodes a value written by [`encode`] for `columns`, storing each column into `row` (which
/// has one slot per table column).
///
/// # Errors
/// [`Error::Corrupt`] for a value that is truncated, too long, or has a length out of range.
pub fn decode(
    cols: &[Column],
    columns: &[usize],
    mut input: &[u8],
    row: &mut [Value],
) -> Result<()> {
    let corrupt = |what: String| Error::Corrupt(format!("row value: {what}"));
    let nullable = columns.iter().filter(|&&c| cols[c].nullable).count();
    let bitmap_len = nullable.div_ceil(8);
    if input.len() < bitmap_len {
        return Err(corrupt("truncated NULL bitmap".into()));
    }
    let (bitmap, rest) = input.split_at(bitmap_len);
    input = rest;
    let mut take = |n: usize, name: &str| -> Result<&[u8]> {
        if input.len() < n {
            return Err(corrupt(format!("column {name} truncated")));
        }
        let (a, b) = input.split_at(n);
        input = b;
        Ok(a)
    };
    let mut bit = 0;
    for &c in columns {
        let col = &cols[c];
        if col.nullable {
            let null = bitmap[bit / 8] & (1 << (bit % 8)) != 0;
            bit += 1;
            if null {
                row[c] = Value::Null;
                continue;
            }
        }
        row[c] = match col.ty {
            ColumnType::Int { bytes, unsigned } => {
                let width = usize::from(bytes);
                let b = take(width, &col.name)?;
                let negative = !unsigned && b[width - 1] & 0x80 != 0;
                let mut le = if negative { [0xff; 8] } else { [0; 8] };
                le[..width].copy_from_slice(b);
                let raw = u64::from_le_bytes(le);
                if unsigned && width == 8 && raw > i64::MAX as u64 {
                    Value::UInt(raw)
                } else {
                    Value::Int(raw as i64)
                }
            }
            ColumnType::Decimal { .. } | ColumnType::Datetime => Value::Int(i64::from_le_bytes(
                take(8, &col.name)?.try_into().expect("8 bytes"),
            )),
            ColumnType::Double => Value::Double(f64::from_le_bytes(
                take(8, &col.name)?.try_into().expect("8 bytes"),
            )),
            ColumnType::Char(n) => {
                let mut b = take(usize::from(n), &col.name)?.to_vec();
                while b.last() == Some(&b' ') {
                    b.pop();
                }
                Value::Bytes(b)
            }
            ColumnType::Varchar(n) => {
                let len = if n < 256 {
                    usize::from(take(1, &col.name)?[0])
                } else {
                    let l = take(2, &col.name)?;
                    usize::from(u16::from_le_bytes([l[0], l[1]]))
                };
                if len > n as usize {
                    return Err(corrupt(format!(
                        "column {}: length {len} over {n}",
                        col.name
                    )));
                }
                Value::Bytes(take(len, &col.name)?.to_vec())
            }
        };
    }
    if !input.is_empty() {
        return Err(corrupt(format!(
            "{} bytes after the last column",
            input.len()
        )));
    }
    Ok(())
}
