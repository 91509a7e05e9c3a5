//! User table-properties collectors (RocksDB's `TablePropertiesCollector`): user code that sees
//! every entry a flush, a compaction or an ingestion writes into a table and adds its own
//! properties to the table's properties block, which readers get back with the table's
//! properties ([`Db::get_properties_of_all_tables_cf`](crate::Db::get_properties_of_all_tables_cf)).
//! MyRocks counts rows and distinct key prefixes per index this way, for its optimizer.
//!
//! A column family's `table_properties_collector_factories` (in [`CfOptions`]) each create one
//! collector per table built; the table builder calls [`TablePropertiesCollector::add_user_key`]
//! for every point entry in key order, then for every range tombstone (after the point entries,
//! in the order the table stores them), then [`TablePropertiesCollector::finish`] once.
//!
//! Invariants:
//! 1. A collector's properties are stored under the names it returns, next to the built-in
//!    ones; a name the table format uses itself (`rocksdb.num.entries`, ...) fails the table
//!    build with `InvalidArgument` rather than shadow a built-in property.
//! 2. Collectors never change what the table holds: their errors fail the build (as a write
//!    error would), and a table is written either with all its collectors' properties or not
//!    at all.
//!
//! [`CfOptions`]: crate::options::CfOptions

use std::fmt;

use crate::error::Result;
use crate::types::{SequenceNumber, ValueKind};

/// The kind of an entry handed to a collector (RocksDB's `EntryType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryType {
    /// A value (`kEntryPut`).
    Put,
    /// A point deletion (`kEntryDelete`).
    Delete,
    /// A single deletion (`kEntrySingleDelete`).
    SingleDelete,
    /// A merge operand (`kEntryMerge`).
    Merge,
    /// A range tombstone (`kEntryRangeDeletion`): the key is its begin, the value its end.
    RangeDeletion,
}

impl EntryType {
    pub(crate) fn of(kind: ValueKind) -> EntryType {
        match kind {
            ValueKind::Put => EntryType::Put,
            ValueKind::Delete => EntryType::Delete,
            ValueKind::SingleDelete => EntryType::SingleDelete,
            ValueKind::Merge => EntryType::Merge,
            ValueKind::RangeDelete => EntryType::RangeDeletion,
        }
    }
}

/// What a factory is told about the table it makes a collector for (RocksDB's
/// `TablePropertiesCollectorFactory::Context`, without the column-family id: the factory is
/// already per column family).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CollectorContext {
    /// The level the table is written to (0 for flushes and ingested files that are rewritten,
    /// the output level for compactions; an `SstFileWriter` reports 0).
    pub level_at_creation: usize,
}

/// Collects user properties of one table while it is built. See the module documentation.
pub trait TablePropertiesCollector: Send {
    /// One entry of the table, in the table's order: its user key, value, kind and sequence
    /// number, and the file's size so far (bytes of the data blocks written before this entry).
    ///
    /// # Errors
    /// Any error fails the table build.
    fn add_user_key(
        &mut self,
        key: &[u8],
        value: &[u8],
        entry: EntryType,
        seq: SequenceNumber,
        file_size: u64,
    ) -> Result<()>;

    /// The properties to store, called once after the last entry: names and values.
    ///
    /// # Errors
    /// Any error fails the table build.
    fn finish(&mut self) -> Result<Vec<(String, Vec<u8>)>>;

    /// The collector's name, for logs.
    fn name(&self) -> &str;
}

/// Creates a [`TablePropertiesCollector`] for every table a column family builds. One factory
/// serves concurrent flushes and compactions.
pub trait TablePropertiesCollectorFactory: Send + Sync {
    /// A collector for one new table.
    fn create(&self, context: CollectorContext) -> Box<dyn TablePropertiesCollector>;

    /// The factory's name (written to the OPTIONS file's comments and logs).
    fn name(&self) -> &str;
}

impl fmt::Debug for dyn TablePropertiesCollectorFactory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TablePropertiesCollectorFactory({})", self.name())
    }
}

impl fmt::Debug for dyn TablePropertiesCollector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TablePropertiesCollector({})", self.name())
    }
}
