//! Checkpoints: an openable copy of a database in another directory (table files hard-linked
//! where the file system allows).

use std::marker::PhantomData;
use std::path::Path;

use crate::db::{DBCommon, DBInner};
use crate::{Error, ThreadMode, TransactionDB};

/// Makes checkpoints of a database; it cannot outlive the database.
#[derive(Debug)]
pub struct Checkpoint<'db> {
    db: &'db cairndb::Db,
}

impl<'db> Checkpoint<'db> {
    /// A checkpoint maker for `db` (a plain or optimistic transaction database).
    pub fn new<T: ThreadMode, I: DBInner>(db: &'db DBCommon<T, I>) -> Result<Self, Error> {
        Ok(Checkpoint {
            db: crate::DBAccess::engine(db),
        })
    }

    /// Writes a checkpoint to `path`, which must not exist. It holds every write acknowledged
    /// before the call (the memtables are flushed first).
    pub fn create_checkpoint<P: AsRef<Path>>(&self, path: P) -> Result<(), Error> {
        self.db.checkpoint(path)?;
        Ok(())
    }

    /// [`Checkpoint::create_checkpoint`] that flushes the memtables first only when the live
    /// WALs hold at least `log_size_for_flush` bytes (0: always). Without the flush the
    /// checkpoint holds the memtables' data in its copies of the WALs, and misses writes made
    /// with the WAL disabled since the last flush, as in RocksDB.
    pub fn create_checkpoint_with_log_size<P: AsRef<Path>>(
        &self,
        path: P,
        log_size_for_flush: u64,
    ) -> Result<(), Error> {
        self.db.checkpoint_with_log_size(path, log_size_for_flush)?;
        Ok(())
    }
}

/// Makes checkpoints of a [`TransactionDB`].
#[derive(Debug)]
pub struct TransactionDBCheckpoint<'db> {
    inner: Checkpoint<'db>,
    db: PhantomData<&'db ()>,
}

impl<'db> TransactionDBCheckpoint<'db> {
    /// A checkpoint maker for `db`.
    pub fn new<T: ThreadMode>(db: &'db TransactionDB<T>) -> Result<Self, Error> {
        Ok(TransactionDBCheckpoint {
            inner: Checkpoint::new(db)?,
            db: PhantomData,
        })
    }

    /// See [`Checkpoint::create_checkpoint`].
    pub fn create_checkpoint<P: AsRef<Path>>(&self, path: P) -> Result<(), Error> {
        self.inner.create_checkpoint(path)
    }

    /// See [`Checkpoint::create_checkpoint_with_log_size`].
    pub fn create_checkpoint_with_log_size<P: AsRef<Path>>(
        &self,
        path: P,
        log_size_for_flush: u64,
    ) -> Result<(), Error> {
        self.inner
            .create_checkpoint_with_log_size(path, log_size_for_flush)
    }
}
