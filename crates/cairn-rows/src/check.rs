//! Index consistency, checked from the data alone: every row has exactly its entries in every
//! secondary index (same key, same covering values), and every secondary entry points at a row
//! that produces it. What tests run after random DML, crashes and reopen.

use crate::database::{Database, Table};
use crate::error::{Error, Result};
use crate::store::{Isolation, KvStore};
use crate::txn::{Bound, Direction, Fetch};

/// What [`check_table`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Rows in the primary key.
    pub rows: u64,
    /// Secondary entries over all secondary indexes.
    pub entries: u64,
}

/// Checks `table` in one snapshot.
///
/// # Errors
/// [`Error::Corrupt`] describing the first inconsistency; the engine's error.
pub fn check_table<S: KvStore>(db: &Database<S>, table: &Table) -> Result<CheckReport> {
    let mut txn = db.begin(Isolation::RepeatableRead)?;
    let cols = &table.def.columns;
    let mut rows = Vec::new();
    txn.scan(
        table,
        0,
        &Bound::Unbounded,
        &Bound::Unbounded,
        Direction::Asc,
        Fetch::Rows,
        None,
        |r| {
            rows.push(r);
            Ok(true)
        },
    )?;
    let mut report = CheckReport {
        rows: rows.len() as u64,
        entries: 0,
    };
    for (n, ix) in table.indexes.iter().enumerate().skip(1) {
        let name = &table.def.secondary[n - 1].name;
        let mut expected: Vec<(Vec<u8>, Vec<u8>)> = rows
            .iter()
            .map(|r| (ix.key(cols, r), ix.value(cols, r)))
            .collect();
        expected.sort();
        let mut found = Vec::new();
        txn.scan(
            table,
            n,
            &Bound::Unbounded,
            &Bound::Unbounded,
            Direction::Asc,
            Fetch::IndexOnly,
            None,
            |r| {
                found.push((ix.key(cols, &r), ix.value(cols, &r)));
                Ok(true)
            },
        )?;
        if found != expected {
            let missing = expected.iter().find(|e| !found.contains(e));
            let extra = found.iter().find(|e| !expected.contains(e));
            return Err(Error::Corrupt(format!(
                "table {} index {name}: {} entries for {} rows; first missing {missing:02x?}, \
                 first stray {extra:02x?}",
                table.def.name,
                found.len(),
                rows.len()
            )));
        }
        report.entries += found.len() as u64;
    }
    txn.rollback()?;
    Ok(report)
}
