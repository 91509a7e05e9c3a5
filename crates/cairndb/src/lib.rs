//! CairnDB: an embedded, persistent key-value storage engine built as a log-structured merge tree.
//!
//! This crate is being built bottom-up. What exists today:
//! - [`fs`]: the file-system layer every file operation goes through, with in-memory,
//!   error-injecting and crash-simulating implementations for tests.
//! - [`wal`]: the write-ahead log format (writer and reader), `docs/format/wal.md`.
//! - [`sstable`]: the block-based table format (builder and reader), `docs/format/sstable.md`.
//! - [`version`]: the MANIFEST encoding of version edits and the CURRENT protocol,
//!   `docs/format/manifest.md`.
//! - [`cache`]: the sharded block cache (clock or LRU).
//! - [`batch`]: write batches, the atomic unit of writes and the WAL payload,
//!   `docs/format/write_batch.md`.
//! - [`memtable`]: the in-memory write buffer (concurrent arena skiplist, or a vector for bulk
//!   loads).
//!
//! The database front (open, write, read, flush, recovery) is not built yet.
//!
//! Errors: every fallible function returns [`Error`]; damaged persisted bytes are reported as
//! [`Error::Corruption`] naming the file and offset, never as wrong data or a panic.

pub mod batch;
pub mod cache;
pub mod error;
pub mod fs;
pub mod iter;
pub mod memtable;
pub mod options;
pub mod sstable;
pub mod table_cache;
pub mod types;
pub mod util;
pub mod version;
pub mod wal;

pub use error::{Corruption, Error, Result};
pub use types::{CompressionType, SequenceNumber, ValueKind};
