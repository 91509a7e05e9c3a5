//! Deleting a database: RocksDB's `DestroyDB`.
//!
//! Contract:
//! 1. Only a closed database is destroyed: the directory lock is taken first, so a database
//!    open in this or another process makes the call fail with [`Error::Busy`] and deletes
//!    nothing.
//! 2. Only the engine's files go (names [`parse_file_name`] knows: logs, tables, MANIFESTs,
//!    CURRENT, OPTIONS, info logs, temporary files, LOCK); anything else a user put in the
//!    directory stays, and so does the directory then.
//! 3. A directory that does not exist is already destroyed: the call succeeds (as RocksDB's).
//! 4. Not atomic: a crash in the middle leaves some files. CURRENT goes first, so such a
//!    directory no longer opens as a database (it reads as missing and, with
//!    `create_if_missing`, a new database is created over the remains).

use std::path::Path;
use std::sync::Arc;

use super::Db;
use crate::error::Result;
use crate::fs::{FileSystem, RealFs};
use crate::version::filenames::{parse_file_name, FileType, CURRENT_FILE_NAME, LOCK_FILE_NAME};

impl Db {
    /// Deletes the database in `path` (RocksDB's `DestroyDB`); see the module contract.
    ///
    /// # Errors
    /// [`crate::Error::Busy`] when the database is open; I/O errors from listing or deleting.
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
        let mut names = fs.list(dir)?;
        // CURRENT first (contract 4).
        names.sort_by_key(|n| n != CURRENT_FILE_NAME);
        for name in &names {
            match parse_file_name(name) {
                Some((FileType::Lock, _)) | None => {}
                Some(_) => fs.remove(&dir.join(name))?,
            }
        }
        drop(lock);
        fs.remove(&dir.join(LOCK_FILE_NAME))?;
        if fs.list(dir)?.is_empty() {
            fs.remove_dir(dir)?;
        }
        Ok(())
    }
}
