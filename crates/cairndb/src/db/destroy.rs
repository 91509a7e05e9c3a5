//! Deleting a database: RocksDB's `DestroyDB`.
//!
//! Contract:
//! 1. Only a closed database is destroyed: the directory lock is taken first, so a database
//!    open in this or another process makes the call fail with [`Error::lock_held`] and deletes
//!    nothing.
//! 2. Only the engine's files go (names [`parse_file_name`] knows: logs, tables, MANIFESTs,
//!    CURRENT, OPTIONS, info logs, temporary files, LOCK); anything else a user put in the
//!    directory stays, and so does the directory then.
//! 3. A directory that does not exist is already destroyed: the call succeeds (as RocksDB's).
//! 4. Not atomic, and as thorough as it can be: the WALs go first (a database later created in
//!    the directory would otherwise replay them), then CURRENT (so the directory no longer opens
//!    as the old database), then the rest. A file that cannot be deleted does not stop the
//!    others; the first such error is returned. A crash in the middle leaves some files: at
//!    worst the old database without its unflushed writes, never another database's WAL
//!    replayed into a new one.
//! 5. As in RocksDB, the lock is released just before LOCK is unlinked: a process that opens
//!    the database in that instant locks the unlinked file. Destroy only databases nothing else
//!    is opening.

use std::path::Path;
use std::sync::Arc;

use super::Db;
use crate::error::Result;
use crate::fs::{FileSystem, RealFs};
use crate::version::filenames::{parse_file_name, FileType, LOCK_FILE_NAME};

impl Db {
    /// Deletes the database in `path` (RocksDB's `DestroyDB`); see the module contract.
    ///
    /// # Errors
    /// [`crate::Error::lock_held`] (an I/O error) when the database is open; I/O errors from listing or deleting.
    pub fn destroy(path: impl AsRef<Path>) -> Result<()> {
        Db::destroy_with_fs(RealFs::shared(), path)
    }

    /// As [`Db::destroy`] on `fs`.
    ///
    /// # Errors
    /// As [`Db::destroy`].
    pub fn destroy_with_fs(fs: Arc<dyn FileSystem>, path: impl AsRef<Path>) -> Result<()> {
        let dir = path.as_ref();
        if !fs.exists(dir)? {
            return Ok(());
        }
        let lock = fs.lock(&dir.join(LOCK_FILE_NAME))?;
        let mut names: Vec<(FileType, String)> = fs
            .list(dir)?
            .into_iter()
            .filter_map(|n| parse_file_name(&n).map(|(t, _)| (t, n)))
            .filter(|(t, _)| *t != FileType::Lock)
            .collect();
        // Contract 4: WALs, then CURRENT, then the rest.
        names.sort_by_key(|(t, _)| match t {
            FileType::Log => 0,
            FileType::Current => 1,
            _ => 2,
        });
        let mut first_error = None;
        for (_, name) in &names {
            if let Err(e) = fs.remove(&dir.join(name)) {
                first_error.get_or_insert(e);
            }
        }
        drop(lock);
        // Like RocksDB, a LOCK or directory that cannot go does not fail the call.
        let _ = fs.remove(&dir.join(LOCK_FILE_NAME));
        if fs.list(dir).is_ok_and(|n| n.is_empty()) {
            let _ = fs.remove_dir(dir);
        }
        first_error.map_or(Ok(()), Err)
    }
}
