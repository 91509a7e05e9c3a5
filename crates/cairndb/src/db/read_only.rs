//! Read-only opens (RocksDB's `DB::OpenForReadOnly`): a handle that reads a database as it was
//! when it was opened, and writes nothing.
//!
//! # Contract
//! 1. The open writes nothing to the directory: no LOCK is taken (a read-only handle may open a
//!    database a writer holds, or one on a read-only mount), no WAL, MANIFEST, OPTIONS or LOG
//!    file is created, renamed or deleted. What the live WALs hold is replayed into memtables
//!    that stay in memory (a memtable that fills becomes an immutable one); nothing is flushed.
//! 2. It sees the database as recovery would have left it at that moment: the MANIFEST's
//!    tables and the WALs' records, with the options' recovery mode. A writer running beside
//!    it may replace the MANIFEST or flush and delete a WAL while the open reads them: the open
//!    accepts a replay only if it began at the first WAL the MANIFEST needs (otherwise newer
//!    writes would show without older ones), and reads everything again, up to three times,
//!    after such a race. Later changes by a writer are not seen (reopen, or use a secondary
//!    instance). The writer may delete files the handle still needs (compactions make tables
//!    obsolete): reads of such a table fail with an I/O error unless the handle has it open,
//!    as in RocksDB.
//! 3. Every call that would write fails with [`Error::NotSupported`] before touching anything:
//!    writes and batches, `sync_wal`, flushes, manual compactions, ingestion, column family
//!    creation and drops, option changes, checkpoints. Reads, iterators, snapshots, properties
//!    and the WAL iterator work.
//! 4. No background thread runs; close releases memory only.
//! 5. Families: the database's families are all opened (those not named get `options.cf`, as
//!    in a read-write open); a named family the database lacks fails the open, whatever
//!    `create_missing_column_families` says. `create_if_missing` and `error_if_exists` do not
//!    apply: a missing database fails the open.

use std::io;
use std::path::Path;
use std::sync::Arc;

use super::open::{first_needed_wal_gone, wal_numbers, OpenMode};
use super::{Db, DbInner, RecoveryReport};
use crate::db::column_family::ColumnFamilyDescriptor;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RealFs};
use crate::options::Options;
use crate::version::filenames::log_file_name;
use crate::version::VersionSet;

impl Db {
    /// Opens the database in `path` read-only (contract above). With
    /// `error_if_wal_file_exists`, the open fails when a live WAL exists (a database that was
    /// not closed after its last writes, or whose memtables were not flushed): RocksDB's flag
    /// of the same name, for callers that must see only what the tables hold.
    ///
    /// # Errors
    /// As [`Db::open_cf_for_read_only_with_fs`].
    pub fn open_for_read_only(
        path: impl AsRef<Path>,
        options: Options,
        error_if_wal_file_exists: bool,
    ) -> Result<Db> {
        Db::open_cf_for_read_only_with_fs(
            RealFs::shared(),
            path,
            options,
            Vec::new(),
            error_if_wal_file_exists,
        )
    }

    /// [`Db::open_for_read_only`] with options for named column families, on `fs`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for invalid options, a missing database, or a named family
    /// the database lacks; [`Error::Corruption`] naming the WAL when
    /// `error_if_wal_file_exists` is set and a live WAL exists (RocksDB's status), or for
    /// damage the recovery mode does not tolerate; I/O errors.
    pub fn open_cf_for_read_only_with_fs(
        fs: Arc<dyn FileSystem>,
        path: impl AsRef<Path>,
        options: Options,
        families: Vec<ColumnFamilyDescriptor>,
        error_if_wal_file_exists: bool,
    ) -> Result<Db> {
        Db::open_in_mode(
            fs,
            path.as_ref(),
            options,
            families,
            OpenMode::ReadOnly {
                error_if_wal_file_exists,
            },
        )
    }

    /// Whether this handle was opened with [`Db::open_for_read_only`].
    pub fn is_read_only(&self) -> bool {
        self.inner.read_only
    }
}

impl DbInner {
    /// [`Error::NotSupported`] for `what` on a read-only handle (contract 3).
    pub(super) fn refuse_if_read_only(&self, what: &str) -> Result<()> {
        if self.read_only {
            return Err(Error::NotSupported(format!(
                "{what}: the database was opened read-only"
            )));
        }
        Ok(())
    }
}

/// How many times a read-only open or a catch-up reads the database again when what it read
/// raced a writer (a MANIFEST replaced, a WAL deleted between its listing and its read).
const ATTEMPTS: usize = 3;

/// Runs `read` until it succeeds or has failed [`ATTEMPTS`] times, and gives its last result.
/// Only I/O errors and corruption are retried: the ones a concurrent writer can cause (a
/// replaced MANIFEST reads as a CURRENT naming a missing file, which is corruption).
pub(super) fn with_retries<T>(mut read: impl FnMut() -> Result<T>) -> Result<T> {
    let mut attempt = 1;
    loop {
        match read() {
            Err(e) if attempt < ATTEMPTS && (e.is_io() || e.is_corruption()) => attempt += 1,
            result => return result,
        }
    }
}

/// A replay beside a writer is a prefix of its history only if it began at the WAL the
/// recovered MANIFEST needs first. That WAL is missing while newer ones were read when the
/// writer flushed it, recorded the flush and deleted it after this handle read the MANIFEST:
/// the newer WALs' writes would then be visible without its writes. An I/O error (retried).
pub(super) fn check_replayed_prefix(
    dir: &Path,
    versions: &VersionSet,
    report: &RecoveryReport,
) -> Result<()> {
    let seen: Vec<u64> = report
        .logs_replayed
        .iter()
        .chain(&report.logs_skipped)
        .copied()
        .collect();
    let Some(need) = first_needed_wal_gone(versions, &seen) else {
        return Ok(());
    };
    Err(Error::io(
        "recover",
        dir.join(log_file_name(need)),
        io::Error::new(
            io::ErrorKind::NotFound,
            "the first WAL the recovered state needs was deleted while it was read (a writer \
             flushed it meanwhile)",
        ),
    ))
}

/// `error_if_wal_file_exists`: a corruption error naming the first live WAL, if there is one
/// (RocksDB reports the condition as `Corruption`).
pub(super) fn refuse_live_wals(
    fs: &dyn FileSystem,
    dir: &Path,
    versions: &VersionSet,
) -> Result<()> {
    let floor = versions.min_log_number_to_keep();
    let first = wal_numbers(fs, dir)?
        .into_iter()
        .filter(|&n| n >= floor)
        .min();
    match first {
        Some(number) => Err(Error::corruption(
            dir.join(log_file_name(number)),
            0,
            "the database was opened read-only with error_if_wal_file_exists, but a WAL file \
             exists",
        )),
        None => Ok(()),
    }
}
