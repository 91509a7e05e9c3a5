//! The engine under the row layer: what a MyRocks-style storage engine asks of RocksDB, as a
//! trait both CairnDB ([`crate::CairnStore`]) and RocksDB (`RocksStore`, feature `rocksdb`)
//! implement, so that the same tables, indexes and workloads run on either and a comparison
//! measures the engine alone.
//!
//! # Contract
//! - A store is a transaction database (RocksDB's `TransactionDB`: pessimistic locking) over
//!   the column families it was opened with; families are named by their position in
//!   [`StoreConfig::cfs`].
//! - Every family gets the same options ([`StoreConfig::options`], a RocksDB option string)
//!   plus its order (`rev:` families are reverse bytewise) and a fixed prefix extractor on the
//!   4-byte index number.
//! - A transaction is used by one thread. Writes lock their keys; [`KvTxn::get_for_update`]
//!   locks and reads (exclusive). Reads see the transaction's own writes. At
//!   [`Isolation::ReadCommitted`] each read sees the latest committed data; at
//!   [`Isolation::RepeatableRead`] every read sees the snapshot taken at begin. Lock timeouts,
//!   deadlocks and conflicts are [`Error::Conflict`](crate::Error::Conflict).
//! - A transaction dropped without commit is rolled back.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::Result;

/// The entries of a bulk load (`KvStore::bulk_load`).
pub type BulkEntries<'a> = dyn Iterator<Item = Result<(Vec<u8>, Vec<u8>)>> + 'a;

/// One table's user properties: name → value.
pub type UserProperties = BTreeMap<String, Vec<u8>>;

/// A column family to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CfSpec {
    /// Its name (`default`, or an index's `cf`).
    pub name: String,
    /// Reverse bytewise order (MyRocks's `rev:` families).
    pub reverse: bool,
}

impl CfSpec {
    /// The family `name`, reverse ordered when it starts with `rev:`.
    pub fn named(name: &str) -> Self {
        CfSpec {
            name: name.to_string(),
            reverse: name.starts_with("rev:"),
        }
    }
}

/// How to open a store.
#[derive(Clone, Default)]
pub struct StoreConfig {
    /// A RocksDB option string (database and column-family options, as `cairn bench --options`
    /// and RocksDB's `GetOptionsFromString` take) applied to the database and every family.
    pub options: String,
    /// The column families; `default` must be one of them.
    pub cfs: Vec<CfSpec>,
    /// Sync the WAL at every commit.
    pub sync: bool,
    /// A table-properties collector for every family, where the engine can run one (CairnDB;
    /// the `rocksdb` crate has no collector API).
    pub collector: Option<std::sync::Arc<dyn cairndb::TablePropertiesCollectorFactory>>,
}

impl std::fmt::Debug for StoreConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreConfig")
            .field("options", &self.options)
            .field("cfs", &self.cfs)
            .field("sync", &self.sync)
            .field("collector", &self.collector.is_some())
            .finish()
    }
}

/// What a transaction's reads see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    /// Each read sees the latest committed data (MySQL's READ COMMITTED).
    #[default]
    ReadCommitted,
    /// Every read sees the snapshot taken at begin (REPEATABLE READ).
    RepeatableRead,
}

/// A position in a column family, with RocksDB's iterator contract: `key` and `value` need
/// `valid`; an iterator stopped by an error is invalid and says so in `status`.
pub trait Cursor {
    /// The first key at or after `target` in the family's order.
    fn seek(&mut self, target: &[u8]);
    /// The last key at or before `target` in the family's order.
    fn seek_for_prev(&mut self, target: &[u8]);
    /// The next key.
    fn next(&mut self);
    /// The previous key.
    fn prev(&mut self);
    /// True when positioned at a key.
    fn valid(&self) -> bool;
    /// The current key.
    fn key(&self) -> &[u8];
    /// The current value.
    fn value(&self) -> &[u8];
    /// The error that stopped the cursor, if any.
    ///
    /// # Errors
    /// That error.
    fn status(&self) -> Result<()>;
}

/// Bounds and mode of a cursor, in the family's order: `lower` inclusive, `upper` exclusive.
#[derive(Debug, Clone, Copy, Default)]
pub struct CursorBounds<'a> {
    /// `iterate_lower_bound`.
    pub lower: Option<&'a [u8]>,
    /// `iterate_upper_bound`.
    pub upper: Option<&'a [u8]>,
    /// `total_order_seek`: the cursor crosses index numbers (prefixes).
    pub total_order: bool,
}

/// A transaction. See the module contract.
pub trait KvTxn {
    /// The value of `key` in family `cf`.
    ///
    /// # Errors
    /// The engine's read error.
    fn get(&mut self, cf: usize, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// Locks `key` (exclusive) and reads it.
    ///
    /// # Errors
    /// [`Error::Conflict`](crate::Error::Conflict) for a lock timeout, deadlock or conflict;
    /// the engine's read error.
    fn get_for_update(&mut self, cf: usize, key: &[u8]) -> Result<Option<Vec<u8>>>;

    /// The values of `keys` in family `cf`, in order, read in one call where the engine has a
    /// batched read.
    ///
    /// # Errors
    /// The first read error.
    fn multi_get(&mut self, cf: usize, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>>;

    /// Writes `key` = `value` (locking `key`).
    ///
    /// # Errors
    /// As [`KvTxn::get_for_update`].
    fn put(&mut self, cf: usize, key: &[u8], value: &[u8]) -> Result<()>;

    /// Deletes `key` (locking it).
    ///
    /// # Errors
    /// As [`KvTxn::get_for_update`].
    fn delete(&mut self, cf: usize, key: &[u8]) -> Result<()>;

    /// A cursor over family `cf` as the transaction sees it.
    ///
    /// # Errors
    /// The engine's error creating it.
    fn cursor<'c>(&'c self, cf: usize, bounds: CursorBounds<'_>) -> Result<Box<dyn Cursor + 'c>>;

    /// Commits.
    ///
    /// # Errors
    /// The engine's write error; a conflict.
    fn commit(self) -> Result<()>;

    /// Rolls back.
    ///
    /// # Errors
    /// The engine's error.
    fn rollback(self) -> Result<()>;
}

/// A transaction database. See the module contract.
pub trait KvStore: Send + Sync + Sized {
    /// Its transaction.
    type Txn<'a>: KvTxn
    where
        Self: 'a;

    /// Opens (creating when missing) the database in `dir` with `config`.
    ///
    /// # Errors
    /// Options the engine refuses; a database with other families or orders; I/O errors.
    fn open(dir: &Path, config: &StoreConfig) -> Result<Self>;

    /// The engine's name and version, for reports.
    fn describe(&self) -> String;

    /// Begins a transaction.
    ///
    /// # Errors
    /// The engine's error.
    fn begin(&self, isolation: Isolation) -> Result<Self::Txn<'_>>;

    /// Loads `entries` (sorted in family `cf`'s order, keys unique, none present yet) the way
    /// the engine loads fastest: CairnDB writes a table file and ingests it, as MyRocks's bulk
    /// load does. The first `Err` entry stops the load and is returned; whether the entries
    /// before it were loaded depends on the engine (CairnDB: none are).
    ///
    /// # Errors
    /// An `Err` entry; entries out of order; the engine's error.
    fn bulk_load(&self, cf: usize, entries: &mut BulkEntries<'_>) -> Result<()>;

    /// Flushes every family's memtables.
    ///
    /// # Errors
    /// The flush's error.
    fn flush(&self) -> Result<()>;

    /// The approximate bytes of `[lower, upper)` (bytewise-ascending bounds, turned into the
    /// family's order) in family `cf`'s tables and memtables; `None` when the engine cannot say
    /// through its API here.
    ///
    /// # Errors
    /// The engine's error.
    fn approximate_size(&self, cf: usize, lower: &[u8], upper: &[u8]) -> Result<Option<u64>>;

    /// The user properties of family `cf`'s tables that overlap `[lower, upper)` (bounds as in
    /// [`KvStore::approximate_size`]); `None` when the engine cannot say through its API here.
    ///
    /// # Errors
    /// The engine's error.
    fn table_user_properties(
        &self,
        cf: usize,
        lower: &[u8],
        upper: &[u8],
    ) -> Result<Option<Vec<UserProperties>>>;

    /// Bytes of live table files over all families (the data size).
    fn live_sst_bytes(&self) -> u64;

    /// Closes the database, waiting for background work.
    ///
    /// # Errors
    /// The engine's error.
    fn close(self) -> Result<()>;
}
