//! The `rocksdb` crate's API (rust-rocksdb 0.25) over CairnDB.
//!
//! A program that embeds RocksDB through the `rocksdb` crate switches to CairnDB by changing one
//! line of its Cargo.toml:
//!
//! ```toml
//! rocksdb = { package = "cairn-rocksdb", path = "..." }
//! ```
//!
//! and keeps its code: `rocksdb::DB`, `Options`, `WriteBatch`, iterators, column families,
//! snapshots, merge operators and the rest keep their names, signatures and lifetimes (an
//! iterator or a snapshot cannot outlive its database).
//!
//! ```
//! use cairn_rocksdb::{IteratorMode, Options, DB};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut opts = Options::default();
//! opts.create_if_missing(true);
//! let db = DB::open(&opts, dir.path()).unwrap();
//! db.put(b"k1", b"v1").unwrap();
//! db.put(b"k2", b"v2").unwrap();
//! assert_eq!(db.get(b"k1").unwrap(), Some(b"v1".to_vec()));
//! let keys: Vec<_> = db.iterator(IteratorMode::Start).map(|kv| kv.unwrap().0).collect();
//! assert_eq!(keys, [&b"k1"[..], b"k2"].map(Box::from));
//! ```
//!
//! # What is honoured and what is refused
//! Every setter either changes what the engine does or is refused: a setter CairnDB has no
//! equivalent for is recorded on the options, and the open (or the read, for read options) that
//! uses them fails with a `Not implemented` error naming the setter and the reason. The list of
//! refused setters and missing parts is in `docs/design/rocksdb_facade.md`; rust-rocksdb's own
//! integration tests run against this crate with `scripts/rust-rocksdb-tests.sh`.

mod call_options;
pub mod checkpoint;
mod column_family;
pub mod compaction_filter;
mod comparator;
mod db;
mod db_iterator;
mod db_options;
mod db_pinnable_slice;
mod env;
mod error;
mod iter_range;
pub mod merge_operator;
mod metadata;
pub mod perf;
pub mod properties;
mod read_methods;
mod slice_transform;
mod snapshot;
mod sst_file_writer;
pub mod statistics;
mod table_options;
mod transactions;
mod write_batch;

pub use crate::column_family::{
    AsColumnFamilyRef, BoundColumnFamily, ColumnFamily, ColumnFamilyDescriptor, ColumnFamilyRef,
    ColumnFamilyTtl, DEFAULT_COLUMN_FAMILY_NAME,
};
pub use crate::compaction_filter::Decision as CompactionDecision;
pub use crate::db::{
    DBAccess, DBCommon, DBInner, DBWithThreadMode, DBWithThreadModeInner, MultiThreaded,
    SingleThreaded, ThreadMode, DB,
};

/// The thread mode of [`DB`] (`SingleThreaded`; `MultiThreaded` with the `multi-threaded-cf`
/// feature). The transaction databases default to `SingleThreaded` either way, as in
/// rust-rocksdb.
#[cfg(not(feature = "multi-threaded-cf"))]
pub type DefaultThreadMode = SingleThreaded;
/// The thread mode of [`DB`] (see the other definition).
#[cfg(feature = "multi-threaded-cf")]
pub type DefaultThreadMode = MultiThreaded;
pub use crate::call_options::{
    BottommostLevelCompaction, CompactOptions, FlushOptions, IngestExternalFileOptions,
    ReadOptions, ReadTier, WaitForCompactOptions, WriteOptions,
};
pub use crate::db_iterator::{
    DBIterator, DBIteratorWithThreadMode, DBRawIterator, DBRawIteratorWithThreadMode,
    DBWALIterator, Direction, IteratorMode,
};
pub use crate::db_options::{
    CompactionPri, DBCompactionStyle, DBCompressionType, DBPath, DBRecoveryMode,
    FifoCompactOptions, LogLevel, MemtableFactory, Options, UniversalCompactOptions,
    UniversalCompactionStopStyle,
};
pub use crate::db_pinnable_slice::{CSlice, DBPinnableSlice};
pub use crate::env::Env;
pub use crate::error::{Error, ErrorKind};
pub use crate::iter_range::{IterateBounds, PrefixRange};
pub use crate::merge_operator::MergeOperands;
pub use crate::metadata::{ColumnFamilyMetaData, LiveFile, Range};
pub use crate::perf::{PerfContext, PerfMetric, PerfStatsLevel};
pub use crate::properties::CStrLike;
pub use crate::slice_transform::SliceTransform;
pub use crate::snapshot::{Snapshot, SnapshotWithThreadMode};
pub use crate::sst_file_writer::SstFileWriter;
pub use crate::table_options::{
    BlockBasedIndexType, BlockBasedOptions, BlockBasedTablePinningTier, Cache, ChecksumType,
    CuckooTableOptions, DataBlockIndexType, LruCacheOptions,
};
pub use crate::transactions::{
    OptimisticTransactionDB, OptimisticTransactionDBInner, OptimisticTransactionOptions,
    Transaction, TransactionDB, TransactionDBInner, TransactionDBOptions, TransactionOptions,
};
pub use crate::write_batch::{
    WriteBatch, WriteBatchIterator, WriteBatchIteratorCf, WriteBatchWithTransaction,
};

#[cfg(test)]
mod tests;
