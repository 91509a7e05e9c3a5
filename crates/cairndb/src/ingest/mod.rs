//! Bulk loading: [`SstFileWriter`] builds table files outside the database, and
//! [`Db::ingest_external_file`](crate::Db::ingest_external_file) adds them to a column family
//! (`db/ingest.rs`), RocksDB's `IngestExternalFile`.

mod sst_file_writer;

pub use sst_file_writer::{ExternalSstFileInfo, SstFileWriter};

use crate::error::{Error, Result};

/// How [`Db::ingest_external_file`](crate::Db::ingest_external_file) adds files (RocksDB's
/// `IngestExternalFileOptions` under the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IngestExternalFileOptions {
    /// Hard-link the files into the database instead of copying them, when they can be kept as
    /// written (no sequence number to assign). Default false. The external files stay where
    /// they are either way.
    pub move_files: bool,
    /// With `move_files`, copy when linking fails (another file system). Default true.
    pub failed_move_fall_back_to_copy: bool,
    /// Snapshots taken before the ingestion must not see its keys: with live snapshots the
    /// files get a sequence number above them even where nothing else would need one. Default
    /// true.
    pub snapshot_consistency: bool,
    /// Allow giving the files a sequence number (they overlap data in the column family, or
    /// `snapshot_consistency` needs one). Default true; false makes such an ingestion fail.
    pub allow_global_seqno: bool,
    /// Flush the column family's memtables when the files overlap their keys. Default true;
    /// false makes such an ingestion fail.
    pub allow_blocking_flush: bool,
    /// Check every block checksum of the files before ingesting. Default false (the footer,
    /// index, filter, properties and range-deletion blocks are checked at open either way).
    pub verify_checksums_before_ingest: bool,
    /// RocksDB's ingestion behind all data (for `allow_ingest_behind` databases). Not
    /// supported: true is refused.
    pub ingest_behind: bool,
}

impl Default for IngestExternalFileOptions {
    fn default() -> Self {
        IngestExternalFileOptions {
            move_files: false,
            failed_move_fall_back_to_copy: true,
            snapshot_consistency: true,
            allow_global_seqno: true,
            allow_blocking_flush: true,
            verify_checksums_before_ingest: false,
            ingest_behind: false,
        }
    }
}

impl IngestExternalFileOptions {
    /// Refuses what is not built.
    ///
    /// # Errors
    /// [`Error::NotSupported`] for `ingest_behind`.
    pub fn validate(&self) -> Result<()> {
        if self.ingest_behind {
            return Err(Error::NotSupported(
                "ingest_behind (ingestion below all data) is not supported".into(),
            ));
        }
        Ok(())
    }
}
