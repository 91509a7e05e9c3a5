//! CairnDB: an embedded, persistent key-value storage engine built as a log-structured merge tree.
//!
//! This crate is being built bottom-up. What exists today:
//! - [`fs`]: the file-system layer every file operation goes through, with in-memory,
//!   error-injecting and crash-simulating implementations for tests.
//! - [`wal`]: the write-ahead log format (writer and reader), `docs/format/wal.md`.
//! - [`batch`]: the atomic write batch, the payload of WAL records, `docs/format/write_batch.md`.
//! - [`memtable`]: the concurrent arena skiplist (and a vector memtable for bulk loads).
//! - [`sstable`]: the block-based table format (builder and reader), `docs/format/sstable.md`.
//! - [`version`]: version edits, the MANIFEST, the CURRENT protocol (`docs/format/manifest.md`)
//!   and the version set that recovers and changes the file set (`docs/design/version_set.md`).
//! - [`iter`]: the one iterator contract and the merging, level and user-facing iterators
//!   (`docs/design/iterators.md`); [`merge`]: merge operators.
//! - [`cache`]: the sharded block cache (clock or LRU); [`table_cache`]: open table files.
//! - [`options`]: database, column-family, read and write options under RocksDB's names, and
//!   RocksDB option strings (`docs/design/options.md`).
//!
//! - [`db`]: the database front that ties these together: open and WAL recovery, the commit
//!   path, point reads, flush, snapshots and iterators (`docs/design/db.md`).
//! - [`verify`]: offline check of every block of every live file (`cairn verify`).
//!
//! Durability guarantees (D1-D6) and the suites that test them: `docs/design/durability.md`.
//!
//! Errors: every fallible function returns [`Error`]; damaged persisted bytes are reported as
//! [`Error::Corruption`] naming the file and offset, never as wrong data or a panic.

pub mod batch;
pub mod cache;
pub mod compaction;
pub mod db;
pub mod error;
pub mod fs;
pub mod iter;
pub mod memtable;
pub mod merge;
pub mod options;
pub mod sstable;
pub mod table_cache;
pub mod types;
pub mod util;
pub mod verify;
pub mod version;
pub mod wal;

pub use db::Db;
pub use error::{Corruption, Error, Result};
pub use types::{CompressionType, SequenceNumber, ValueKind};
