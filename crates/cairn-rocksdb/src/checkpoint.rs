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

    /// [`Checkpoint::create_checkpoint`]. RocksDB copies the WAL instead of flushing when it is
    /// smaller than `log_size_for_flush`; CairnDB always flushes, so only 0 (always flush) is
    /// honoured and other sizes are refused.
    pub fn create_checkpoint_with_log_size<P: AsRef<Path>>(
        &self,
        path: P,
        log_size_for_flush: u64,
    ) -> Result<(), Error> {
        if log_size_for_flush != 0 {
            return Err(Error::not_supported(format!(
                "create_checkpoint_with_log_size({log_size_for_flush}): CairnDB's checkpoints \
                 always flush the memtables"
            )));
        }
        self.create_checkpoint(path)
    }
}

/// Makes checkpoints of a [`TransactionDB`] (prepared transactions are not carried over).
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
