//! A database of tables over a [`KvStore`]: the data dictionary that gives every index its
//! number and column family, as MyRocks's does, and the resolved layout of each index.
//!
//! The dictionary lives in the `default` family under index numbers 1 (one entry per table: its
//! definition and index numbers, as JSON) and 2 (the next free index number). User indexes are
//! numbered from 256, as in MyRocks. Tables are given at open: a table met for the first time is
//! recorded; a table recorded before must come with the same definition, or the open fails.
//!
//! Invariants:
//! 1. Index numbers are unique over the database and never reused.
//! 2. A primary key's entry: key = number + key columns; value = the other columns
//!    (`rowcode.rs`). A secondary index's entry: key = number + its columns + the primary-key
//!    columns it does not have; value = its `include` columns (empty without).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::keycode::{self, put_index_id, put_key_column};
use crate::rowcode;
use crate::schema::{Column, TableDef, Value};
use crate::stats::{IndexLayout, IndexStats, IndexStatsFactory};
use crate::store::{CfSpec, Isolation, KvStore, KvTxn, StoreConfig};
use crate::txn::{Bound, RowTxn};

/// Index number of the dictionary's table entries.
const DICT_TABLES: u32 = 1;
/// Index number of the dictionary's next-free-number entry.
const DICT_NEXT: u32 = 2;
/// The first number a user index gets.
const FIRST_INDEX: u32 = 256;

/// What the dictionary records per table.
#[derive(Debug, Serialize, Deserialize)]
struct Recorded {
    def: TableDef,
    ids: Vec<u32>,
}

/// One index of a table, resolved against the store.
#[derive(Debug, Clone)]
pub struct IndexInfo {
    /// Its number (the first 4 bytes of its keys).
    pub id: u32,
    /// Its column family's position in the store.
    pub cf: usize,
    /// Whether that family is reverse ordered.
    pub reverse: bool,
    /// Whether it is unique.
    pub unique: bool,
    /// The columns its declaration names.
    pub declared: usize,
    /// Its key columns: the declared ones, then (secondary indexes) the primary-key columns
    /// not among them.
    pub key_cols: Vec<usize>,
    /// The columns its values hold.
    pub value_cols: Vec<usize>,
}

impl IndexInfo {
    /// The key of `row` in this index.
    pub fn key(&self, cols: &[Column], row: &[Value]) -> Vec<u8> {
        let mut k = Vec::with_capacity(32);
        put_index_id(&mut k, self.id);
        for &c in &self.key_cols {
            put_key_column(&mut k, &cols[c], &row[c]);
        }
        k
    }

    /// The key prefix of the first `values.len()` key columns.
    ///
    /// # Errors
    /// [`Error::BadValue`] for more values than key columns, or a value its column refuses.
    pub fn prefix(&self, cols: &[Column], values: &[Value]) -> Result<Vec<u8>> {
        if values.len() > self.key_cols.len() {
            return Err(Error::BadValue(format!(
                "{} values for an index of {} key columns",
                values.len(),
                self.key_cols.len()
            )));
        }
        let mut k = Vec::with_capacity(32);
        put_index_id(&mut k, self.id);
        for (&c, v) in self.key_cols.iter().zip(values) {
            let col = &cols[c];
            if v.is_null() {
                if !col.nullable {
                    return Err(Error::BadValue(format!("column {} is NOT NULL", col.name)));
                }
            } else {
                col.ty.check(&col.name, v)?;
            }
            put_key_column(&mut k, col, v);
        }
        Ok(k)
    }

    /// The value of `row` in this index.
    pub fn value(&self, cols: &[Column], row: &[Value]) -> Vec<u8> {
        let mut v = Vec::new();
        rowcode::encode(cols, &self.value_cols, row, &mut v);
        v
    }

    /// Decodes an entry's key (and value) into a row with the key columns (and the value's
    /// columns) set and every other column NULL.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a key of another index or one that does not decode.
    pub fn decode(&self, cols: &[Column], key: &[u8], value: &[u8]) -> Result<Vec<Value>> {
        if keycode::index_id(key)? != self.id {
            return Err(Error::Corrupt(format!(
                "key {key:02x?} is not of index {}",
                self.id
            )));
        }
        let mut row = vec![Value::Null; cols.len()];
        let mut rest = &key[4..];
        for &c in &self.key_cols {
            row[c] = keycode::get_key_column(&mut rest, &cols[c])?;
        }
        if !rest.is_empty() {
            return Err(Error::Corrupt(format!(
                "{} bytes after the last key column of index {}",
                rest.len(),
                self.id
            )));
        }
        rowcode::decode(cols, &self.value_cols, value, &mut row)?;
        Ok(row)
    }

    /// The bytewise range `[lo, hi)` of every key of the index.
    pub fn full_range(&self) -> (Vec<u8>, Vec<u8>) {
        let lo = self.id.to_be_bytes().to_vec();
        let hi = (self.id + 1).to_be_bytes().to_vec();
        (lo, hi)
    }
}

/// A table of an open database: its definition and resolved indexes (`indexes[0]` is the
/// primary key, then the secondary indexes in definition order).
#[derive(Debug)]
pub struct Table {
    /// The definition.
    pub def: TableDef,
    /// Every index, primary first.
    pub indexes: Vec<IndexInfo>,
}

impl Table {
    /// The index named `name` (`PRIMARY` for the primary key), by position in `indexes`.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.def.indexes().position(|ix| ix.name == name)
    }

    /// The primary-key values of a full row.
    pub fn pk_of(&self, row: &[Value]) -> Vec<Value> {
        self.def
            .primary
            .columns
            .iter()
            .map(|&c| row[c].clone())
            .collect()
    }
}

/// Tables over a store. See the module documentation.
pub struct Database<S: KvStore> {
    store: S,
    tables: Vec<Arc<Table>>,
    by_name: HashMap<String, usize>,
}

impl<S: KvStore> std::fmt::Debug for Database<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("engine", &self.store.describe())
            .field("tables", &self.by_name.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// How to open a [`Database`].
#[derive(Debug, Clone, Default)]
pub struct DatabaseOptions {
    /// The engine's options, a RocksDB option string given to every column family.
    pub engine_options: String,
    /// Sync the WAL at every commit.
    pub sync: bool,
}

/// The column families `tables` need: `default`, then each index's, in first-use order.
pub fn column_families(tables: &[TableDef]) -> Vec<CfSpec> {
    let mut cfs = vec![CfSpec::named("default")];
    for ix in tables.iter().flat_map(TableDef::indexes) {
        if !cfs.iter().any(|c| c.name == ix.cf) {
            cfs.push(CfSpec::named(&ix.cf));
        }
    }
    cfs
}

impl<S: KvStore> Database<S> {
    /// Opens the database in `dir` (creating it when missing) with `tables`.
    ///
    /// # Errors
    /// [`Error::Schema`] for an invalid definition, or one that differs from the recorded one;
    /// the engine's error.
    pub fn open(dir: &Path, tables: &[TableDef], options: &DatabaseOptions) -> Result<Self> {
        Self::open_with(tables, options, |config| S::open(dir, config))
    }

    /// [`Database::open`] with the store opened by `open` (given the store configuration).
    ///
    /// # Errors
    /// As [`Database::open`].
    pub fn open_with(
        tables: &[TableDef],
        options: &DatabaseOptions,
        open: impl FnOnce(&StoreConfig) -> Result<S>,
    ) -> Result<Self> {
        for (i, t) in tables.iter().enumerate() {
            t.validate()?;
            if tables[..i].iter().any(|o| o.name == t.name) {
                return Err(Error::Schema(format!("table {} given twice", t.name)));
            }
        }
        let cfs = column_families(tables);
        let stats = Arc::new(IndexStatsFactory::default());
        let config = StoreConfig {
            options: options.engine_options.clone(),
            cfs: cfs.clone(),
            sync: options.sync,
            collector: Some(stats.clone()),
        };
        let store = open(&config)?;
        let ids = record_tables(&store, tables)?;
        let mut resolved = Vec::new();
        let mut by_name = HashMap::new();
        for (t, ids) in tables.iter().zip(ids) {
            let table = resolve(t, &ids, &cfs);
            for ix in &table.indexes {
                stats.register(
                    ix.id,
                    IndexLayout {
                        columns: ix.key_cols.iter().map(|&c| t.columns[c].clone()).collect(),
                    },
                );
            }
            by_name.insert(t.name.clone(), resolved.len());
            resolved.push(Arc::new(table));
        }
        Ok(Database {
            store,
            tables: resolved,
            by_name,
        })
    }

    /// The table named `name`.
    pub fn table(&self, name: &str) -> Option<Arc<Table>> {
        self.by_name.get(name).map(|&i| Arc::clone(&self.tables[i]))
    }

    /// Every table, in the order given at open.
    pub fn tables(&self) -> &[Arc<Table>] {
        &self.tables
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// Begins a transaction.
    ///
    /// # Errors
    /// The engine's error.
    pub fn begin(&self, isolation: Isolation) -> Result<RowTxn<'_, S>> {
        Ok(RowTxn::new(self.store.begin(isolation)?))
    }

    /// Loads `rows` into index `index` of `table` through the engine's bulk load (MyRocks's
    /// bulk load: CairnDB writes a table file and ingests it). The index must hold none of the
    /// rows' keys yet; rows come in the index's order (descending for a `rev:` family), and only
    /// the index's key and value columns of each row are read (a secondary index is loaded on
    /// its own, after the primary key). No locks are taken: nothing else may write the table
    /// meanwhile.
    ///
    /// # Errors
    /// [`Error::BadValue`] for a value its column refuses or rows out of the index's order;
    /// the engine's error. On CairnDB nothing is loaded then; see [`KvStore::bulk_load`].
    pub fn bulk_load(
        &self,
        table: &Table,
        index: usize,
        rows: &mut dyn Iterator<Item = Vec<Value>>,
    ) -> Result<()> {
        let ix = &table.indexes[index];
        let cols = &table.def.columns;
        let mut last: Option<Vec<u8>> = None;
        let mut entries = rows.map(|row| {
            ix.key_cols
                .iter()
                .chain(&ix.value_cols)
                .try_for_each(|&c| {
                    let (col, v) = (&cols[c], &row[c]);
                    if v.is_null() && col.nullable {
                        Ok(())
                    } else {
                        col.ty.check(&col.name, v)
                    }
                })?;
            let key = ix.key(cols, &row);
            let in_order = last
                .as_ref()
                .is_none_or(|l| if ix.reverse { key < *l } else { key > *l });
            if !in_order {
                return Err(Error::BadValue(format!(
                    "bulk load of {}: rows out of the index's order at {key:02x?}",
                    table.def.name
                )));
            }
            last = Some(key.clone());
            Ok((key, ix.value(cols, &row)))
        });
        self.store.bulk_load(ix.cf, &mut entries)
    }

    /// Statistics of index `index` of `table` (rows, deletions, bytes, distinct key prefixes)
    /// summed over the tables the engine has written (memtables are not counted, as in
    /// MyRocks); `None` when the engine cannot report them.
    ///
    /// # Errors
    /// The engine's error.
    pub fn index_stats(&self, table: &Table, index: usize) -> Result<Option<IndexStats>> {
        let ix = &table.indexes[index];
        let (lo, hi) = ix.full_range();
        let Some(tables) = self.store.table_user_properties(ix.cf, &lo, &hi)? else {
            return Ok(None);
        };
        let mut total = IndexStats::default();
        for props in &tables {
            if let Some(s) = IndexStats::from_properties(props, ix.id) {
                total.merge(&s);
            }
        }
        Ok(Some(total))
    }

    /// The approximate bytes index `index` of `table` takes between `lower` and `upper`
    /// (tables and memtables), what MyRocks's `records_in_range` starts from; `None` when the
    /// engine cannot say.
    ///
    /// # Errors
    /// [`Error::BadValue`] for bound values that do not fit; the engine's error.
    pub fn approximate_size(
        &self,
        table: &Table,
        index: usize,
        lower: &Bound,
        upper: &Bound,
    ) -> Result<Option<u64>> {
        let ix = &table.indexes[index];
        let (lo, hi) = crate::txn::byte_range(ix, &table.def.columns, lower, upper)?;
        self.store.approximate_size(ix.cf, &lo, &hi)
    }

    /// Closes the database.
    ///
    /// # Errors
    /// The engine's error.
    pub fn close(self) -> Result<()> {
        self.store.close()
    }
}

/// Records the tables met for the first time, checks the others; returns each table's index
/// numbers.
fn record_tables<S: KvStore>(store: &S, tables: &[TableDef]) -> Result<Vec<Vec<u32>>> {
    let mut txn = store.begin(Isolation::ReadCommitted)?;
    let next_key = DICT_NEXT.to_be_bytes();
    let mut next = match txn.get_for_update(0, &next_key)? {
        Some(v) => u32::from_be_bytes(
            v.as_slice()
                .try_into()
                .map_err(|_| Error::Corrupt("the dictionary's next index number".into()))?,
        ),
        None => FIRST_INDEX,
    };
    let mut out = Vec::new();
    for t in tables {
        let mut key = DICT_TABLES.to_be_bytes().to_vec();
        key.extend_from_slice(t.name.as_bytes());
        match txn.get_for_update(0, &key)? {
            Some(v) => {
                let r: Recorded = serde_json::from_slice(&v).map_err(|e| {
                    Error::Corrupt(format!("dictionary entry of table {}: {e}", t.name))
                })?;
                if r.def != *t {
                    return Err(Error::Schema(format!(
                        "table {} differs from its recorded definition {:?}",
                        t.name, r.def
                    )));
                }
                out.push(r.ids);
            }
            None => {
                let n = 1 + t.secondary.len() as u32;
                let ids: Vec<u32> = (next..next + n).collect();
                next += n;
                let r = Recorded {
                    def: t.clone(),
                    ids: ids.clone(),
                };
                let v = serde_json::to_vec(&r).map_err(|e| Error::Schema(e.to_string()))?;
                txn.put(0, &key, &v)?;
                out.push(ids);
            }
        }
    }
    txn.put(0, &next_key, &next.to_be_bytes())?;
    txn.commit()?;
    Ok(out)
}

fn resolve(t: &TableDef, ids: &[u32], cfs: &[CfSpec]) -> Table {
    let pk = &t.primary.columns;
    let indexes = t
        .indexes()
        .zip(ids)
        .enumerate()
        .map(|(n, (ix, &id))| {
            let cf = cfs.iter().position(|c| c.name == ix.cf).expect("listed");
            let (key_cols, value_cols) = if n == 0 {
                let values = (0..t.columns.len()).filter(|c| !pk.contains(c)).collect();
                (pk.clone(), values)
            } else {
                let mut key = ix.columns.clone();
                key.extend(pk.iter().filter(|c| !ix.columns.contains(c)));
                (key, ix.include.clone())
            };
            IndexInfo {
                id,
                cf,
                reverse: cfs[cf].reverse,
                unique: ix.unique,
                declared: ix.columns.len(),
                key_cols,
                value_cols,
            }
        })
        .collect();
    Table {
        def: t.clone(),
        indexes,
    }
}
