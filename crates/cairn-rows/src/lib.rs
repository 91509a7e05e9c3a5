//! A MyRocks-style row layer: tables with typed columns stored in a key-value engine the way
//! MyRocks stores MySQL tables in RocksDB, generic over the engine so that the same tables and
//! workloads run on CairnDB and on RocksDB and a comparison measures the engine alone.
//!
//! - [`schema`]: table definitions and values;
//! - [`keycode`] and [`rowcode`]: index keys (4-byte index number, memcomparable columns) and
//!   row values (NULL bitmap, non-key columns);
//! - [`store`]: what the row layer asks of the engine; [`CairnStore`] on CairnDB and, with the
//!   `rocksdb` feature, `RocksStore` on RocksDB's `TransactionDB`;
//! - [`database`]: the data dictionary (index numbers, column families) and index layouts;
//! - [`txn`]: inserts, updates, deletes, point reads and index scans in a transaction, with
//!   unique checks through `get_for_update`;
//! - [`stats`]: per-index statistics collected while the engine writes tables;
//! - [`check`]: index consistency.
//!
//! ```
//! use cairn_rows::schema::{Column, ColumnType, IndexDef, TableDef, Value};
//! use cairn_rows::{CairnStore, Database, DatabaseOptions, Isolation};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let t = TableDef::new(
//!     "t",
//!     vec![Column::new("id", ColumnType::INT), Column::new("k", ColumnType::INT)],
//!     &[0],
//! )
//! .with_index(IndexDef::new("k_1", &[1], false).in_cf("rev:k"));
//! let db = Database::<CairnStore>::open(dir.path(), &[t], &DatabaseOptions::default()).unwrap();
//! let t = db.table("t").unwrap();
//! let mut txn = db.begin(Isolation::ReadCommitted).unwrap();
//! txn.insert(&t, vec![Value::Int(1), Value::Int(10)]).unwrap();
//! txn.commit().unwrap();
//! let mut txn = db.begin(Isolation::ReadCommitted).unwrap();
//! assert_eq!(txn.get(&t, &[Value::Int(1)]).unwrap(), Some(vec![Value::Int(1), Value::Int(10)]));
//! ```

#![warn(missing_docs)]

mod cairn_store;
pub mod check;
pub mod database;
mod error;
pub mod keycode;
#[cfg(feature = "rocksdb")]
mod rocksdb_store;
pub mod rowcode;
pub mod schema;
pub mod stats;
pub mod store;
pub mod txn;

pub use cairn_store::{CairnStore, CairnTxn};
pub use database::{Database, DatabaseOptions, Table};
pub use error::{Error, Result};
#[cfg(feature = "rocksdb")]
pub use rocksdb_store::{RocksStore, RocksTxn};
pub use store::{Isolation, KvStore, KvTxn};
pub use txn::{Bound, Direction, Fetch, RowTxn};
