//! Table definitions: typed columns, the primary key, secondary indexes and the column family
//! each index lives in, as a MySQL `CREATE TABLE` on MyRocks declares them; and [`Value`], one
//! column's value in a row.
//!
//! Invariants a [`TableDef`] is checked for ([`TableDef::validate`]):
//! 1. Column names are unique; every index names existing columns, at least one, each once.
//! 2. Primary-key columns are `NOT NULL` (as MySQL makes them).
//! 3. Index names are unique in the table; `include` (covering) columns are not key columns of
//!    the same index.
//! 4. Types are in range: integer widths 1, 2, 4 or 8 bytes; `DECIMAL` precision 1..=18;
//!    `CHAR(n)` with n ≤ 255 and `VARCHAR(n)` with n ≤ 65,535 bytes.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// A column's SQL type. Strings are binary (bytes compared as bytes, MySQL's `_bin` collations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ColumnType {
    /// `TINYINT`, `SMALLINT`, `INT`, `BIGINT`: `bytes` 1, 2, 4 or 8, signed or `UNSIGNED`.
    Int {
        /// Width in bytes.
        bytes: u8,
        /// `UNSIGNED`.
        unsigned: bool,
    },
    /// `DOUBLE`: IEEE-754 binary64; NaN is refused.
    Double,
    /// `DECIMAL(precision, scale)`: a fixed-point number held as an integer count of
    /// `10^-scale` units (precision ≤ 18 digits, so it fits an `i64`).
    Decimal {
        /// Total digits.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// `CHAR(n)`: exactly `n` bytes, padded with spaces; trailing spaces are not part of the
    /// value (MySQL's `PAD SPACE` retrieval).
    Char(u16),
    /// `VARCHAR(n)`: up to `n` bytes.
    Varchar(u32),
    /// `DATETIME(6)`: microseconds since 1970-01-01 00:00:00, as a signed integer.
    Datetime,
}

impl ColumnType {
    /// `INT` (4 bytes, signed).
    pub const INT: ColumnType = ColumnType::Int {
        bytes: 4,
        unsigned: false,
    };
    /// `BIGINT` (8 bytes, signed).
    pub const BIGINT: ColumnType = ColumnType::Int {
        bytes: 8,
        unsigned: false,
    };
    /// `SMALLINT` (2 bytes, signed).
    pub const SMALLINT: ColumnType = ColumnType::Int {
        bytes: 2,
        unsigned: false,
    };
    /// `TINYINT` (1 byte, signed).
    pub const TINYINT: ColumnType = ColumnType::Int {
        bytes: 1,
        unsigned: false,
    };

    fn validate(self) -> Result<()> {
        match self {
            ColumnType::Int { bytes, .. } if ![1, 2, 4, 8].contains(&bytes) => Err(Error::Schema(
                format!("integer width {bytes} is not 1, 2, 4 or 8 bytes"),
            )),
            ColumnType::Decimal { precision, scale } if precision == 0 || precision > 18 => {
                Err(Error::Schema(format!(
                    "DECIMAL({precision},{scale}): precision must be 1..=18"
                )))
            }
            ColumnType::Decimal { precision, scale } if scale > precision => Err(Error::Schema(
                format!("DECIMAL({precision},{scale}): scale above precision"),
            )),
            ColumnType::Char(n) if n > 255 => {
                Err(Error::Schema(format!("CHAR({n}): at most 255 bytes")))
            }
            ColumnType::Varchar(n) if n > 65_535 => {
                Err(Error::Schema(format!("VARCHAR({n}): at most 65535 bytes")))
            }
            _ => Ok(()),
        }
    }

    /// Checks that `v` (not NULL) is a value of this type.
    ///
    /// # Errors
    /// [`Error::BadValue`] naming the column for a value of another kind or out of range.
    pub fn check(self, column: &str, v: &Value) -> Result<()> {
        let bad = |why: String| Err(Error::BadValue(format!("column {column}: {why}")));
        match (self, v) {
            (ColumnType::Int { bytes, unsigned }, Value::Int(i)) => {
                let bits = u32::from(bytes) * 8;
                let ok = if unsigned {
                    *i >= 0 && (bits == 64 || (*i as u64) < (1u64 << bits))
                } else {
                    bits == 64 || (*i >= -(1i64 << (bits - 1)) && *i < (1i64 << (bits - 1)))
                };
                if ok {
                    Ok(())
                } else {
                    bad(format!("{i} is out of range for {self:?}"))
                }
            }
            (
                ColumnType::Int {
                    bytes: 8,
                    unsigned: true,
                },
                Value::UInt(_),
            ) => Ok(()),
            (ColumnType::Double, Value::Double(d)) if d.is_nan() => bad("NaN".into()),
            (ColumnType::Double, Value::Double(_)) => Ok(()),
            (ColumnType::Decimal { precision, .. }, Value::Int(i)) => {
                if i.unsigned_abs() < 10u64.pow(u32::from(precision)) {
                    Ok(())
                } else {
                    bad(format!("{i} has more than {precision} digits"))
                }
            }
            (ColumnType::Datetime, Value::Int(_)) => Ok(()),
            (ColumnType::Char(n), Value::Bytes(b)) if b.len() > usize::from(n) => {
                bad(format!("{} bytes do not fit CHAR({n})", b.len()))
            }
            (ColumnType::Varchar(n), Value::Bytes(b)) if b.len() > n as usize => {
                bad(format!("{} bytes do not fit VARCHAR({n})", b.len()))
            }
            (ColumnType::Char(_) | ColumnType::Varchar(_), Value::Bytes(_)) => Ok(()),
            (t, v) => bad(format!("{v:?} is not a {t:?} value")),
        }
    }
}

/// One column's value. Integers, `DECIMAL` (scaled) and `DATETIME` are [`Value::Int`];
/// `BIGINT UNSIGNED` above `i64::MAX` is [`Value::UInt`].
#[derive(Debug, Clone, PartialEq, PartialOrd)]
pub enum Value {
    /// SQL NULL.
    Null,
    /// An integer, a scaled decimal or a datetime.
    Int(i64),
    /// A `BIGINT UNSIGNED` value.
    UInt(u64),
    /// A `DOUBLE`.
    Double(f64),
    /// A `CHAR` or `VARCHAR` value.
    Bytes(Vec<u8>),
}

impl Value {
    /// The integer, for integer-like values.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            Value::UInt(u) => i64::try_from(*u).ok(),
            _ => None,
        }
    }

    /// The bytes of a string value.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// True for NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
}

/// A column of a table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
    /// Whether it may be NULL.
    pub nullable: bool,
}

impl Column {
    /// A `NOT NULL` column.
    pub fn new(name: &str, ty: ColumnType) -> Self {
        Column {
            name: name.to_string(),
            ty,
            nullable: false,
        }
    }

    /// A column that may be NULL.
    pub fn nullable(name: &str, ty: ColumnType) -> Self {
        Column {
            nullable: true,
            ..Column::new(name, ty)
        }
    }
}

/// An index: the primary key or a secondary index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexDef {
    /// Its name (`PRIMARY` for the primary key).
    pub name: String,
    /// Key columns, by position in the table.
    pub columns: Vec<usize>,
    /// `UNIQUE` (the primary key always is).
    pub unique: bool,
    /// Non-key columns a secondary index carries in its values (a covering index); empty: the
    /// value is empty, as MyRocks writes it.
    pub include: Vec<usize>,
    /// The column family the index lives in, as MyRocks's `COMMENT 'cfname'`: a name starting
    /// with `rev:` is a reverse-ordered family (descending scans run forward). Default
    /// `default`.
    pub cf: String,
}

impl IndexDef {
    /// An index on `columns` in the `default` family.
    pub fn new(name: &str, columns: &[usize], unique: bool) -> Self {
        IndexDef {
            name: name.to_string(),
            columns: columns.to_vec(),
            unique,
            include: Vec::new(),
            cf: "default".to_string(),
        }
    }

    /// The same index in column family `cf`.
    #[must_use]
    pub fn in_cf(mut self, cf: &str) -> Self {
        self.cf = cf.to_string();
        self
    }

    /// The same index carrying `columns` in its values.
    #[must_use]
    pub fn including(mut self, columns: &[usize]) -> Self {
        self.include = columns.to_vec();
        self
    }

    /// True when the index's column family is reverse ordered (`rev:` names).
    pub fn is_reverse(&self) -> bool {
        self.cf.starts_with("rev:")
    }
}

/// A table: columns, a primary key and secondary indexes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableDef {
    /// Its name.
    pub name: String,
    /// Its columns, in order.
    pub columns: Vec<Column>,
    /// The primary key (`unique` is forced true).
    pub primary: IndexDef,
    /// Secondary indexes.
    pub secondary: Vec<IndexDef>,
}

impl TableDef {
    /// A table with `columns` and a primary key on `pk` (column positions) in the `default`
    /// family, without secondary indexes.
    pub fn new(name: &str, columns: Vec<Column>, pk: &[usize]) -> Self {
        TableDef {
            name: name.to_string(),
            columns,
            primary: IndexDef::new("PRIMARY", pk, true),
            secondary: Vec::new(),
        }
    }

    /// The same table with secondary index `index`.
    #[must_use]
    pub fn with_index(mut self, index: IndexDef) -> Self {
        self.secondary.push(index);
        self
    }

    /// The position of column `name`.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// Every index: the primary key first, then the secondary indexes in order.
    pub fn indexes(&self) -> impl Iterator<Item = &IndexDef> {
        std::iter::once(&self.primary).chain(self.secondary.iter())
    }

    /// Checks the module invariants.
    ///
    /// # Errors
    /// [`Error::Schema`] naming the first violation.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Schema(format!("table {}: {m}", self.name)));
        if self.columns.is_empty() {
            return bad("no columns".into());
        }
        for (i, c) in self.columns.iter().enumerate() {
            c.ty.validate()
                .map_err(|e| Error::Schema(format!("table {}: {}: {e}", self.name, c.name)))?;
            if self.columns[..i].iter().any(|d| d.name == c.name) {
                return bad(format!("column {} twice", c.name));
            }
        }
        if !self.primary.unique {
            return bad("the primary key must be unique".into());
        }
        for (n, ix) in self.indexes().enumerate() {
            if self.indexes().take(n).any(|o| o.name == ix.name) {
                return bad(format!("index {} twice", ix.name));
            }
            if ix.columns.is_empty() {
                return bad(format!("index {} has no columns", ix.name));
            }
            for (k, &c) in ix.columns.iter().chain(ix.include.iter()).enumerate() {
                if c >= self.columns.len() {
                    return bad(format!("index {} names column {c}, past the last", ix.name));
                }
                if ix
                    .columns
                    .iter()
                    .chain(ix.include.iter())
                    .take(k)
                    .any(|&d| d == c)
                {
                    return bad(format!(
                        "index {} names column {} twice",
                        ix.name, self.columns[c].name
                    ));
                }
            }
            if ix.cf.is_empty() || ix.cf == "rev:" {
                return bad(format!("index {} has an empty column family name", ix.name));
            }
        }
        if let Some(&c) = self
            .primary
            .columns
            .iter()
            .find(|&&c| self.columns[c].nullable)
        {
            return bad(format!(
                "primary key column {} is nullable",
                self.columns[c].name
            ));
        }
        if !self.primary.include.is_empty() {
            return bad("the primary key carries every column already".into());
        }
        Ok(())
    }

    /// Checks `row` against the columns: its length, NULLs only where allowed, each value of
    /// its column's type.
    ///
    /// # Errors
    /// [`Error::BadValue`] naming the column.
    pub fn check_row(&self, row: &[Value]) -> Result<()> {
        if row.len() != self.columns.len() {
            return Err(Error::BadValue(format!(
                "table {}: a row of {} values for {} columns",
                self.name,
                row.len(),
                self.columns.len()
            )));
        }
        for (c, v) in self.columns.iter().zip(row) {
            if v.is_null() {
                if !c.nullable {
                    return Err(Error::BadValue(format!("column {} is NOT NULL", c.name)));
                }
            } else {
                c.ty.check(&c.name, v)?;
            }
        }
        Ok(())
    }
}
