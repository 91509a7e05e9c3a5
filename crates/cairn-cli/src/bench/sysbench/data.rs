//! sysbench's `sbtest` tables as `oltp_common.lua` creates and fills them, on the row layer:
//!
//! ```sql
//! CREATE TABLE sbtestN (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL,
//!   c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id));
//! CREATE INDEX k_N ON sbtestN(k);
//! ```
//!
//! Rows `id = 1..=table_size`, `k` uniform in `1..=table_size`, `c` ten and `pad` five groups of
//! eleven random digits joined by dashes (119 and 59 characters). Both indexes are in the
//! `default` column family, as MyRocks puts them without a `COMMENT`. The prepare step loads
//! each table the way MyRocks's bulk load does: the primary key in key order, then the
//! secondary index sorted, each through the engine's bulk load (CairnDB: a table file ingested).

use std::sync::Arc;

use cairn_rows::schema::{Column, ColumnType, IndexDef, TableDef, Value};
use cairn_rows::{Database, KvStore, Table};

use crate::bench::generator::Random64;

/// Column positions.
pub const ID: usize = 0;
/// `k`.
pub const K: usize = 1;
/// `c` (`pad` is column 3).
pub const C: usize = 2;

/// The definition of `sbtest<n>`.
pub fn table_def(n: usize) -> TableDef {
    TableDef::new(
        &format!("sbtest{n}"),
        vec![
            Column::new("id", ColumnType::INT),
            Column::new("k", ColumnType::INT),
            Column::new("c", ColumnType::Char(120)),
            Column::new("pad", ColumnType::Char(60)),
        ],
        &[ID],
    )
    .with_index(IndexDef::new(&format!("k_{n}"), &[K], false))
}

/// `sysbench.rand.string` of `groups` groups of 11 digits joined by dashes.
fn digits(rng: &mut Random64, groups: usize) -> Vec<u8> {
    let mut s = Vec::with_capacity(groups * 12);
    for g in 0..groups {
        if g > 0 {
            s.push(b'-');
        }
        for _ in 0..11 {
            s.push(b'0' + rng.uniform(10) as u8);
        }
    }
    s
}

/// `get_c_value()`: 119 characters.
pub fn c_value(rng: &mut Random64) -> Value {
    Value::Bytes(digits(rng, 10))
}

/// `get_pad_value()`: 59 characters.
pub fn pad_value(rng: &mut Random64) -> Value {
    Value::Bytes(digits(rng, 5))
}

/// `sysbench.rand.default(1, n)` (uniform here; sysbench's default distribution is set by
/// `--rand-type`, uniform in the runs this suite is compared with).
pub fn rand_id(rng: &mut Random64, n: u64) -> i64 {
    1 + rng.uniform(n.max(1)) as i64
}

/// Row `id` of a table of `table_size` rows, from `rng`.
pub fn row(rng: &mut Random64, id: i64, table_size: u64) -> Vec<Value> {
    vec![
        Value::Int(id),
        Value::Int(rand_id(rng, table_size)),
        c_value(rng),
        pad_value(rng),
    ]
}

/// Loads `table_size` rows into `table` (empty) through the engine's bulk load: the primary
/// key in id order, then the `k` index sorted by `(k, id)`. Rows come from a generator seeded
/// `seed`, so the same seed loads the same data on every engine.
///
/// # Errors
/// The row layer's error.
pub fn load<S: KvStore>(
    db: &Database<S>,
    table: &Arc<Table>,
    table_size: u64,
    seed: u64,
) -> cairn_rows::Result<()> {
    let mut rng = Random64::new(seed);
    let mut ks: Vec<(i64, i64)> = Vec::with_capacity(table_size as usize);
    {
        let mut rows = (1..=table_size as i64).map(|id| {
            let r = row(&mut rng, id, table_size);
            ks.push((r[K].as_i64().unwrap_or_default(), id));
            r
        });
        db.bulk_load(table, 0, &mut rows)?;
    }
    ks.sort_unstable();
    let blank = Value::Bytes(Vec::new());
    let mut entries = ks
        .into_iter()
        .map(|(k, id)| vec![Value::Int(id), Value::Int(k), blank.clone(), blank.clone()]);
    db.bulk_load(table, 1, &mut entries)
}
