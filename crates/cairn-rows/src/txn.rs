//! Row operations in a transaction, as MyRocks's handler performs them on RocksDB:
//!
//! - **insert**: locks and reads the primary key (`get_for_update`: a duplicate is
//!   [`Error::DuplicateKey`]); for each unique secondary index whose declared columns are not
//!   NULL, locks the key prefix of those columns and looks for an entry under it; then writes the
//!   primary entry and one entry per secondary index. Non-unique secondary indexes are written
//!   without a read.
//! - **update** (given the old row, which the statement read, as MySQL hands it to the
//!   engine): a changed primary key is a delete and an insert; otherwise the primary entry is
//!   rewritten, and each secondary index whose key changed gets a delete of the old entry and a
//!   put of the new one (unique ones checked as on insert), one whose covering columns changed a
//!   put; an unchanged index is not touched.
//! - **delete** (given the row): deletes the primary entry and every secondary entry.
//! - **reads**: point reads by primary key (plain, locking, batched), and index range scans
//!   with the engine's iterator bounds on the index's number prefix, in either direction, over
//!   forward or reverse (`rev:`) families; a secondary scan reads each row by its primary key
//!   unless asked for the index's columns only.

use crate::database::{IndexInfo, Table};
use crate::error::{Error, Result};
use crate::keycode::prefix_end;
use crate::schema::Value;
use crate::store::{CursorBounds, KvTxn};

/// One end of a scan range: a prefix of the index's key columns (given in key-column order:
/// declared columns, then for secondary indexes the primary-key columns).
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// No limit on this side.
    Unbounded,
    /// Keys whose prefix equals these values are in the range.
    Included(Vec<Value>),
    /// Keys whose prefix equals these values are not in the range.
    Excluded(Vec<Value>),
}

/// The direction of a scan, in the order of the index's columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// Ascending.
    #[default]
    Asc,
    /// Descending.
    Desc,
}

/// What a secondary-index scan hands back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fetch {
    /// The whole row, read by primary key for secondary indexes.
    #[default]
    Rows,
    /// Only the index's columns (key and included); the others are NULL.
    IndexOnly,
}

/// A transaction of row operations. See the module documentation.
#[derive(Debug)]
pub struct RowTxn<'d, S: crate::store::KvStore + 'd> {
    txn: S::Txn<'d>,
}

impl<'d, S: crate::store::KvStore + 'd> RowTxn<'d, S> {
    pub(crate) fn new(txn: S::Txn<'d>) -> Self {
        RowTxn { txn }
    }

    /// The engine's transaction, for operations outside the row layer.
    pub fn kv(&mut self) -> &mut S::Txn<'d> {
        &mut self.txn
    }

    /// Inserts `row`.
    ///
    /// # Errors
    /// [`Error::BadValue`] for a row that does not fit the table; [`Error::DuplicateKey`];
    /// [`Error::Conflict`] for a lock wait that timed out or a deadlock; the engine's error.
    pub fn insert(&mut self, table: &Table, mut row: Vec<Value>) -> Result<()> {
        let cols = &table.def.columns;
        normalize(table, &mut row)?;
        let pk = &table.indexes[0];
        let key = pk.key(cols, &row);
        if self.txn.get_for_update(pk.cf, &key)?.is_some() {
            return Err(duplicate(table, 0));
        }
        for n in 1..table.indexes.len() {
            self.check_unique(table, n, &row)?;
        }
        self.txn.put(pk.cf, &key, &pk.value(cols, &row))?;
        for ix in &table.indexes[1..] {
            self.txn
                .put(ix.cf, &ix.key(cols, &row), &ix.value(cols, &row))?;
        }
        Ok(())
    }

    /// Replaces `old` (the row as read) with `new`.
    ///
    /// # Errors
    /// As [`RowTxn::insert`].
    pub fn update(&mut self, table: &Table, old: &[Value], mut new: Vec<Value>) -> Result<()> {
        let cols = &table.def.columns;
        table.def.check_row(old)?;
        normalize(table, &mut new)?;
        let pk = &table.indexes[0];
        let old_key = pk.key(cols, old);
        let new_key = pk.key(cols, &new);
        if old_key != new_key {
            self.delete(table, old)?;
            return self.insert(table, new);
        }
        for (n, ix) in table.indexes.iter().enumerate().skip(1) {
            let ok = ix.key(cols, old);
            let nk = ix.key(cols, &new);
            if ok != nk {
                self.check_unique(table, n, &new)?;
                self.txn.delete(ix.cf, &ok)?;
                self.txn.put(ix.cf, &nk, &ix.value(cols, &new))?;
            } else if ix.value_cols.iter().any(|&c| old[c] != new[c]) {
                self.txn.put(ix.cf, &nk, &ix.value(cols, &new))?;
            }
        }
        self.txn.put(pk.cf, &new_key, &pk.value(cols, &new))
    }

    /// Deletes `row` (the row as read) and its index entries.
    ///
    /// # Errors
    /// [`Error::BadValue`] for a row that does not fit the table; the engine's error.
    pub fn delete(&mut self, table: &Table, row: &[Value]) -> Result<()> {
        let cols = &table.def.columns;
        table.def.check_row(row)?;
        for ix in &table.indexes {
            self.txn.delete(ix.cf, &ix.key(cols, row))?;
        }
        Ok(())
    }

    /// The row with primary key `pk`.
    ///
    /// # Errors
    /// [`Error::BadValue`] for key values that do not fit; [`Error::Corrupt`] for a stored row
    /// that does not decode; the engine's error.
    pub fn get(&mut self, table: &Table, pk: &[Value]) -> Result<Option<Vec<Value>>> {
        let key = full_pk(table, pk)?;
        let ix = &table.indexes[0];
        match self.txn.get(ix.cf, &key)? {
            Some(v) => Ok(Some(ix.decode(&table.def.columns, &key, &v)?)),
            None => Ok(None),
        }
    }

    /// Locks the row with primary key `pk` (exclusive) and reads it (`SELECT ... FOR UPDATE`).
    ///
    /// # Errors
    /// As [`RowTxn::get`]; [`Error::Conflict`].
    pub fn get_for_update(&mut self, table: &Table, pk: &[Value]) -> Result<Option<Vec<Value>>> {
        let key = full_pk(table, pk)?;
        let ix = &table.indexes[0];
        match self.txn.get_for_update(ix.cf, &key)? {
            Some(v) => Ok(Some(ix.decode(&table.def.columns, &key, &v)?)),
            None => Ok(None),
        }
    }

    /// The rows with primary keys `pks`, in order, in one batched read.
    ///
    /// # Errors
    /// As [`RowTxn::get`].
    pub fn multi_get(
        &mut self,
        table: &Table,
        pks: &[Vec<Value>],
    ) -> Result<Vec<Option<Vec<Value>>>> {
        let keys = pks
            .iter()
            .map(|pk| full_pk(table, pk))
            .collect::<Result<Vec<_>>>()?;
        let ix = &table.indexes[0];
        let values = self.txn.multi_get(ix.cf, &keys)?;
        keys.iter()
            .zip(values)
            .map(|(k, v)| v.map(|v| ix.decode(&table.def.columns, k, &v)).transpose())
            .collect()
    }

    /// Scans index `index` (a position in `table.indexes`) over `[lower, upper]` in
    /// `direction`, handing each row to `f` until it returns false or `limit` rows were handed
    /// over; returns the number handed over.
    ///
    /// # Errors
    /// [`Error::BadValue`] for bound values that do not fit; `f`'s error; [`Error::Corrupt`];
    /// the engine's error.
    #[allow(clippy::too_many_arguments)]
    pub fn scan(
        &mut self,
        table: &Table,
        index: usize,
        lower: &Bound,
        upper: &Bound,
        direction: Direction,
        fetch: Fetch,
        limit: Option<usize>,
        mut f: impl FnMut(Vec<Value>) -> Result<bool>,
    ) -> Result<usize> {
        let cols = &table.def.columns;
        let ix = &table.indexes[index];
        let (lo, hi) = byte_range(ix, cols, lower, upper)?;
        let mut keys = Vec::new();
        let mut handed = 0;
        let limit = limit.unwrap_or(usize::MAX);
        {
            let mut walk = Walk::start(&self.txn, ix, &lo, &hi, direction)?;
            while handed < limit {
                let Some((k, v)) = walk.current()? else {
                    break;
                };
                if index == 0 || fetch == Fetch::IndexOnly {
                    handed += 1;
                    if !f(ix.decode(cols, k, v)?)? {
                        return Ok(handed);
                    }
                } else {
                    let row = ix.decode(cols, k, v)?;
                    keys.push(table.indexes[0].key(cols, &row));
                    handed += 1;
                }
                walk.step();
            }
        }
        if keys.is_empty() {
            return Ok(handed);
        }
        // A secondary scan reads its rows by primary key after the index walk (MyRocks reads
        // each as it goes; one batch here).
        let pk = &table.indexes[0];
        let values = self.txn.multi_get(pk.cf, &keys)?;
        let mut delivered = 0;
        for (k, v) in keys.iter().zip(values) {
            let Some(v) = v else {
                return Err(Error::Corrupt(format!(
                    "index {} of table {} points at a missing row {k:02x?}",
                    table.def.secondary[index - 1].name,
                    table.def.name
                )));
            };
            delivered += 1;
            if !f(pk.decode(cols, k, &v)?)? {
                break;
            }
        }
        Ok(delivered)
    }

    /// Scans the entries of index `index` whose key starts with the values `prefix` (in
    /// key-column order): [`RowTxn::scan`] with `prefix` as both bounds.
    ///
    /// # Errors
    /// As [`RowTxn::scan`].
    #[allow(clippy::too_many_arguments)]
    pub fn scan_prefix(
        &mut self,
        table: &Table,
        index: usize,
        prefix: &[Value],
        direction: Direction,
        fetch: Fetch,
        limit: Option<usize>,
        f: impl FnMut(Vec<Value>) -> Result<bool>,
    ) -> Result<usize> {
        let b = Bound::Included(prefix.to_vec());
        self.scan(table, index, &b, &b, direction, fetch, limit, f)
    }

    /// Commits.
    ///
    /// # Errors
    /// The engine's error.
    pub fn commit(self) -> Result<()> {
        self.txn.commit()
    }

    /// Rolls back.
    ///
    /// # Errors
    /// The engine's error.
    pub fn rollback(self) -> Result<()> {
        self.txn.rollback()
    }

    /// For unique secondary index `n`: locks the prefix of its declared columns in `row` and
    /// fails if an entry with that prefix exists. NULL in a declared column skips the check
    /// (NULLs are distinct, as in MySQL).
    fn check_unique(&mut self, table: &Table, n: usize, row: &[Value]) -> Result<()> {
        let ix = &table.indexes[n];
        if !ix.unique {
            return Ok(());
        }
        let declared = &ix.key_cols[..ix.declared];
        if declared.iter().any(|&c| row[c].is_null()) {
            return Ok(());
        }
        let values: Vec<Value> = declared.iter().map(|&c| row[c].clone()).collect();
        let prefix = ix.prefix(&table.def.columns, &values)?;
        // The prefix itself is never a key (a secondary key carries the primary key too): it
        // is locked as the name of the unique value.
        self.txn.get_for_update(ix.cf, &prefix)?;
        let end = prefix_end(&prefix).expect("an index number below u32::MAX");
        let mut walk = Walk::start(&self.txn, ix, &prefix, &end, Direction::Asc)?;
        if walk.current()?.is_some() {
            return Err(duplicate(table, n));
        }
        Ok(())
    }
}

fn duplicate(table: &Table, n: usize) -> Error {
    Error::DuplicateKey {
        table: table.def.name.clone(),
        index: table
            .def
            .indexes()
            .nth(n)
            .map(|i| i.name.clone())
            .unwrap_or_default(),
    }
}

/// Checks `row` and drops the trailing spaces of its CHAR values (what a read gives back).
fn normalize(table: &Table, row: &mut [Value]) -> Result<()> {
    table.def.check_row(row)?;
    for (c, v) in table.def.columns.iter().zip(row.iter_mut()) {
        if let (crate::schema::ColumnType::Char(_), Value::Bytes(b)) = (c.ty, v) {
            while b.last() == Some(&b' ') {
                b.pop();
            }
        }
    }
    Ok(())
}

fn full_pk(table: &Table, pk: &[Value]) -> Result<Vec<u8>> {
    let ix = &table.indexes[0];
    if pk.len() != ix.key_cols.len() {
        return Err(Error::BadValue(format!(
            "table {}: {} primary-key values for {} columns",
            table.def.name,
            pk.len(),
            ix.key_cols.len()
        )));
    }
    ix.prefix(&table.def.columns, pk)
}

/// The bytewise range `[lo, hi)` of keys between `lower` and `upper`.
pub(crate) fn byte_range(
    ix: &IndexInfo,
    cols: &[crate::schema::Column],
    lower: &Bound,
    upper: &Bound,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let (all_lo, all_hi) = ix.full_range();
    let end = |p: Vec<u8>| prefix_end(&p).unwrap_or_else(|| all_hi.clone());
    let lo = match lower {
        Bound::Unbounded => all_lo,
        Bound::Included(v) => ix.prefix(cols, v)?,
        Bound::Excluded(v) => end(ix.prefix(cols, v)?),
    };
    let hi = match upper {
        Bound::Unbounded => all_hi.clone(),
        Bound::Included(v) => end(ix.prefix(cols, v)?),
        Bound::Excluded(v) => ix.prefix(cols, v)?,
    };
    Ok((lo, hi))
}

/// A walk over the bytewise range `[lo, hi)` of one index in one direction, over a forward or
/// a reverse family: the engine's bounds keep the iterator inside the index where the family's
/// order allows, and every key is checked against the range.
struct Walk<'c> {
    cursor: Box<dyn crate::store::Cursor + 'c>,
    lo: Vec<u8>,
    hi: Vec<u8>,
    /// Bytewise ascending.
    ascending: bool,
    /// The cursor moves with `next` (else `prev`).
    forward: bool,
}

impl<'c> Walk<'c> {
    fn start<T: KvTxn>(
        txn: &'c T,
        ix: &IndexInfo,
        lo: &[u8],
        hi: &[u8],
        direction: Direction,
    ) -> Result<Walk<'c>> {
        let ascending = direction == Direction::Asc;
        // Crossing into the next index number (a full-index scan) leaves the prefix.
        let total_order = lo.get(..4) != hi.get(..4) || hi.len() < 4;
        let bounds = if ix.reverse {
            // In a reverse family the lower bound (inclusive, in its order) is the largest
            // key: everything at or below `hi` bytewise; `hi` itself is skipped below.
            CursorBounds {
                lower: Some(hi),
                upper: None,
                total_order,
            }
        } else {
            CursorBounds {
                lower: Some(lo),
                upper: Some(hi),
                total_order,
            }
        };
        let mut cursor = txn.cursor(ix.cf, bounds)?;
        let forward = ascending != ix.reverse;
        match (ascending, ix.reverse) {
            (true, false) => cursor.seek(lo),
            (false, false) => cursor.seek_for_prev(hi),
            // Reverse family: the order's first key at or after `hi` is the largest <= hi.
            (false, true) => cursor.seek(hi),
            (true, true) => cursor.seek_for_prev(lo),
        }
        Ok(Walk {
            cursor,
            lo: lo.to_vec(),
            hi: hi.to_vec(),
            ascending,
            forward,
        })
    }

    /// The current entry in the range, skipping `hi` itself; `None` past the range.
    fn current(&mut self) -> Result<Option<(&[u8], &[u8])>> {
        loop {
            if !self.cursor.valid() {
                self.cursor.status()?;
                return Ok(None);
            }
            let k = self.cursor.key();
            if k >= self.hi.as_slice() {
                if self.ascending {
                    return Ok(None);
                }
                self.step();
                continue;
            }
            if k < self.lo.as_slice() {
                if !self.ascending {
                    return Ok(None);
                }
                self.step();
                continue;
            }
            break;
        }
        Ok(Some((self.cursor.key(), self.cursor.value())))
    }

    fn step(&mut self) {
        if self.forward {
            self.cursor.next();
        } else {
            self.cursor.prev();
        }
    }
}
