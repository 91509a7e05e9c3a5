//! CairnDB: an embedded, persistent key-value storage engine built as a log-structured merge tree
//! (write-ahead log, memtables, sorted table files, background compaction), with RocksDB's
//! options, option strings and semantics.
//!
//! # Example
//!
//! ```
//! use cairndb::options::{Options, ReadOptions, WriteOptions};
//! use cairndb::{Db, WriteBatch};
//!
//! # fn main() -> cairndb::Result<()> {
//! let dir = tempfile::tempdir().expect("temporary directory");
//! let mut options = Options::default();
//! options.db.create_if_missing = true;
//! let db = Db::open(dir.path(), options)?;
//!
//! let w = WriteOptions::default();
//! db.put(&w, b"apple", b"red")?;
//! let mut batch = WriteBatch::new();
//! batch.put(b"banana", b"yellow")?;
//! batch.delete(b"apple")?;
//! db.write(&w, batch)?; // all or nothing
//!
//! let r = ReadOptions::default();
//! assert_eq!(db.get(&r, b"apple")?, None);
//! let mut it = db.iter(&r)?;
//! it.seek_to_first();
//! assert_eq!((it.key(), it.value()), (&b"banana"[..], &b"yellow"[..]));
//! db.close()
//! # }
//! ```
//!
//! # What the crate offers
//! - [`Db`]: open (and recover), [`Db::put`], [`Db::get`] (or [`Db::get_pinned`], without a
//!   copy), [`Db::write`] of a [`WriteBatch`],
//!   [`Db::iter`] ([`DbIter`]), [`Db::snapshot`] ([`Snapshot`]), column families
//!   ([`ColumnFamily`], [`Db::create_column_family`]), [`Db::flush`], [`Db::compact_range`],
//!   [`Db::checkpoint`], properties ([`Db::property`]) and dynamic options ([`Db::set_options`]).
//! - [`options`]: database, column-family, table, read and write options under RocksDB's names,
//!   RocksDB option strings and OPTIONS files, and [`options::Statistics`].
//! - [`fs`]: the file-system interface every file operation goes through (RocksDB's `Env`), with
//!   the real file system, an in-memory one, and error-injecting and power-cut-simulating ones
//!   for testing programs built on CairnDB.
//! - Transactions: [`TransactionDb`] (pessimistic: locks, `get_for_update`, deadlock detection,
//!   savepoints) and [`OptimisticTransactionDb`] (conflicts checked at commit), both reading
//!   their own writes through a [`WriteBatchWithIndex`].
//! - [`MergeOperator`]s and [`CompactionFilter`]s, the user hooks of reads and compactions.
//! - [`Error`]: one error type; damaged persisted bytes are reported as [`Error::Corruption`]
//!   naming the file and offset, never as wrong data or a panic.
//!
//! # Guarantees
//! Durability guarantees D1-D6 (what survives a process crash and a power cut, atomic batches,
//! no wrong answers, errors that surface, liveness under transient faults) are stated in
//! `docs/design/durability.md` and tested by the reliability suites.
//!
//! # Internals
//! The engine's modules (memtable, sstable, version, compaction, ...) are not part of the API.
//! The `internals` feature makes them public, hidden from the documentation, for the `cairn`
//! tool, the fuzz targets, benchmarks and tests; they follow no stability promise.

#![warn(missing_docs)]
// Without `internals`, helpers and re-exports used only by the tool, fuzzers and benches are
// unreachable.
#![cfg_attr(not(feature = "internals"), allow(dead_code, unused_imports))]

/// Declares the engine's internal modules: public (and hidden from the documentation) with the
/// `internals` feature, private to the crate without it.
macro_rules! internal_modules {
    ($($name:ident),* $(,)?) => {$(
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        #[cfg(not(feature = "internals"))]
        mod $name;
    )*};
}

internal_modules!(
    batch,
    cache,
    compaction,
    db,
    error,
    iter,
    memtable,
    merge,
    rate_limiter,
    sstable,
    statistics,
    table_cache,
    types,
    util,
    verify,
    version,
    wal,
);

pub mod comparator;
pub mod fs;
pub mod ingest;
pub mod lsm_math;
pub mod options;
pub mod perf_context;
#[cfg(test)]
pub(crate) mod test_util;
mod txn;

pub use batch::{BaseDeltaIter, BatchLookup, OwnedBaseDeltaIter, WriteBatch, WriteBatchWithIndex};
pub use compaction::{
    CompactionFilter, CompactionFilterContext, CompactionFilterFactory, FilterDecision,
};
pub use comparator::{Comparator, KeyOrder};
pub use db::internal_stats::FlushStats;
pub use db::{
    CheckpointReport, ColumnFamily, ColumnFamilyDescriptor, CompactionStats, Db, DbIter,
    DroppedWalBytes, LevelStats, LevelSummary, LiveTableProperties, PinnableValue, RecoveryReport,
    SizeApproximation, Snapshot, WalUpdates, PROPERTY_NAMES,
};
pub use error::{Corruption, Error, Result};
pub use ingest::{ExternalSstFileInfo, IngestExternalFileOptions, SstFileWriter};
pub use merge::{MergeOperator, StringAppendOperator, UInt64AddOperator};
pub use sstable::{
    CollectorContext, EntryType, TableProperties, TablePropertiesCollector,
    TablePropertiesCollectorFactory,
};
pub use txn::{
    DeadlockInfo, DeadlockPath, KeyLockInfo, OptimisticTransaction, OptimisticTransactionDb,
    OptimisticTransactionDbOptions, OptimisticTransactionOptions, Transaction, TransactionDb,
    TransactionDbOptions, TransactionId, TransactionOptions, TransactionState,
};
pub use types::{CompressionType, SequenceNumber, ValueKind};
