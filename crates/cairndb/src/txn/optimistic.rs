//! Optimistic transactions (RocksDB's `OptimisticTransactionDB`): no locks while a transaction
//! runs; at commit, every key it wrote or read for update is checked for a write published after
//! the transaction first touched it (or after its snapshot), and any such write fails the commit
//! with `Busy`.
//!
//! Who calls it: any number of threads, each with its own [`OptimisticTransaction`].
//!
//! Invariants:
//! 1. Commit validates and writes while holding the commit-lock buckets of every key it
//!    tracks (RocksDB's parallel validation, `occ_lock_buckets`), taken in bucket order, so two
//!    committing transactions that share a key are serialised and the second sees the first's
//!    write; transactions without a common bucket validate in parallel.
//! 2. A key's check point is the transaction's snapshot when it has one, else the latest
//!    published sequence number when the key was first tracked.
//! 3. The check reads the memtables and, below them, the tables (`db/conflict.rs`), so it is
//!    never inconclusive. RocksDB checks the memtables only and returns `TryAgain` when they no
//!    longer reach back to the check point (`max_write_buffer_size_to_maintain`); CairnDB never
//!    does, and does not offer that option.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use parking_lot::Mutex;

use super::options::OptimisticTransactionOptions;
use crate::batch::{BaseDeltaIter, WriteBatchWithIndex};
use crate::db::{ColumnFamily, ColumnFamilyDescriptor, Db, Snapshot};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RealFs};
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::types::SequenceNumber;

/// Options of an [`OptimisticTransactionDb`] (RocksDB's `OptimisticTransactionDBOptions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptimisticTransactionDbOptions {
    /// Commit-lock buckets (invariant 1); keys hash to one. RocksDB's default, 2^20.
    pub occ_lock_buckets: usize,
}

impl Default for OptimisticTransactionDbOptions {
    fn default() -> Self {
        OptimisticTransactionDbOptions {
            occ_lock_buckets: 1 << 20,
        }
    }
}

/// A database with optimistic transactions; see the module documentation.
///
/// ```
/// use cairndb::options::{Options, ReadOptions, WriteOptions};
/// use cairndb::{OptimisticTransactionDb, OptimisticTransactionDbOptions, OptimisticTransactionOptions};
///
/// # fn main() -> cairndb::Result<()> {
/// # let dir = tempfile::tempdir().expect("temporary directory");
/// let mut options = Options::default();
/// options.db.create_if_missing = true;
/// let db = OptimisticTransactionDb::open(dir.path(), options, OptimisticTransactionDbOptions::default())?;
/// let w = WriteOptions::default();
/// let r = ReadOptions::default();
/// let mut t1 = db.begin_transaction(&w, &OptimisticTransactionOptions::default());
/// t1.get_for_update(&r, b"k")?;
/// t1.put(b"k", b"from t1")?;
/// db.db().put(&w, b"k", b"someone else")?; // after t1 read it
/// assert!(t1.commit().unwrap_err().is_busy());
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct OptimisticTransactionDb {
    db: Db,
    buckets: Box<[Mutex<()>]>,
}

impl OptimisticTransactionDb {
    /// Opens (or creates, as `options` say) the database at `path`.
    ///
    /// # Errors
    /// As [`Db::open`]; [`Error::InvalidArgument`] for zero `occ_lock_buckets`.
    pub fn open(
        path: impl AsRef<Path>,
        options: Options,
        occ_options: OptimisticTransactionDbOptions,
    ) -> Result<Self> {
        Self::open_cf_with_fs(RealFs::shared(), path, options, occ_options, Vec::new())
    }

    /// [`OptimisticTransactionDb::open`] with column families, on file system `fs`.
    ///
    /// # Errors
    /// As [`OptimisticTransactionDb::open`].
    pub fn open_cf_with_fs(
        fs: Arc<dyn FileSystem>,
        path: impl AsRef<Path>,
        options: Options,
        occ_options: OptimisticTransactionDbOptions,
        families: Vec<ColumnFamilyDescriptor>,
    ) -> Result<Self> {
        if occ_options.occ_lock_buckets == 0 {
            return Err(Error::InvalidArgument(
                "occ_lock_buckets must be at least 1".into(),
            ));
        }
        let db = Db::open_cf_with_fs(fs, path, options, families)?;
        Ok(OptimisticTransactionDb {
            db,
            buckets: (0..occ_options.occ_lock_buckets)
                .map(|_| Mutex::new(()))
                .collect(),
        })
    }

    /// The database, for reads, writes outside transactions, column families and the rest.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Begins a transaction whose commit writes with `write_options`.
    pub fn begin_transaction(
        &self,
        write_options: &WriteOptions,
        txn_options: &OptimisticTransactionOptions,
    ) -> OptimisticTransaction<'_> {
        let snapshot = if txn_options.set_snapshot {
            self.db.snapshot().ok().map(Arc::new)
        } else {
            None
        };
        OptimisticTransaction {
            otdb: self,
            write_options: *write_options,
            batch: WriteBatchWithIndex::with_comparator(
                self.db.default_column_family().options().comparator.clone(),
            ),
            snapshot,
            tracked: Vec::new(),
            ended: false,
        }
    }

    /// Closes the database (see [`Db::close`]).
    ///
    /// # Errors
    /// As [`Db::close`].
    pub fn close(&self) -> Result<()> {
        self.db.close()
    }

    fn bucket(&self, cf: u32, key: &[u8]) -> usize {
        let h = xxhash_rust::xxh3::xxh3_64_with_seed(key, u64::from(cf));
        (h % self.buckets.len() as u64) as usize
    }
}

/// Keys tracked in one column family: key -> check point (invariant 2).
type Tracked = (Option<ColumnFamily>, u32, HashMap<Vec<u8>, SequenceNumber>);

/// An optimistic transaction; see [`OptimisticTransactionDb::begin_transaction`].
#[derive(Debug)]
pub struct OptimisticTransaction<'db> {
    otdb: &'db OptimisticTransactionDb,
    write_options: WriteOptions,
    batch: WriteBatchWithIndex,
    snapshot: Option<Arc<Snapshot>>,
    tracked: Vec<Tracked>,
    ended: bool,
}

impl OptimisticTransaction<'_> {
    /// The sequence number of the transaction's snapshot, for `ReadOptions::snapshot`.
    pub fn snapshot(&self) -> Option<SequenceNumber> {
        self.snapshot.as_ref().map(|s| s.sequence())
    }

    /// Takes a snapshot now; keys tracked from here on are checked against it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on an ended transaction; [`Error::Closed`].
    pub fn set_snapshot(&mut self) -> Result<()> {
        self.check_open()?;
        self.snapshot = Some(Arc::new(self.otdb.db.snapshot()?));
        Ok(())
    }

    /// The pending writes.
    pub fn write_batch(&self) -> &WriteBatchWithIndex {
        &self.batch
    }

    /// Sets `key` to `value` in the default column family.
    ///
    /// # Errors
    /// The write batch's errors; [`Error::InvalidArgument`] on an ended transaction.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.track(None, key)?;
        self.batch.put(key, value)
    }

    /// [`OptimisticTransaction::put`] in column family `cf`.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::put`].
    pub fn put_cf(&mut self, cf: &ColumnFamily, key: &[u8], value: &[u8]) -> Result<()> {
        self.track(Some(cf), key)?;
        self.batch.put_cf(cf, key, value)
    }

    /// Deletes `key` in the default column family.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::put`].
    pub fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.track(None, key)?;
        self.batch.delete(key)
    }

    /// [`OptimisticTransaction::delete`] in column family `cf`.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::put`].
    pub fn delete_cf(&mut self, cf: &ColumnFamily, key: &[u8]) -> Result<()> {
        self.track(Some(cf), key)?;
        self.batch.delete_cf(cf, key)
    }

    /// RocksDB's `SingleDelete` of `key` in the default column family.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::put`].
    pub fn single_delete(&mut self, key: &[u8]) -> Result<()> {
        self.track(None, key)?;
        self.batch.single_delete(key)
    }

    /// [`OptimisticTransaction::single_delete`] in column family `cf`.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::put`].
    pub fn single_delete_cf(&mut self, cf: &ColumnFamily, key: &[u8]) -> Result<()> {
        self.track(Some(cf), key)?;
        self.batch.single_delete_cf(cf, key)
    }

    /// Adds merge operand `operand` for `key` in the default column family.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::put`].
    pub fn merge(&mut self, key: &[u8], operand: &[u8]) -> Result<()> {
        self.track(None, key)?;
        self.batch.merge(key, operand)
    }

    /// [`OptimisticTransaction::merge`] in column family `cf`.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::put`].
    pub fn merge_cf(&mut self, cf: &ColumnFamily, key: &[u8], operand: &[u8]) -> Result<()> {
        self.track(Some(cf), key)?;
        self.batch.merge_cf(cf, key, operand)
    }

    /// The value of `key` as this transaction sees it (its own write, else the database's at
    /// `opts.snapshot`); not checked at commit.
    ///
    /// # Errors
    /// As [`Db::get`]; [`Error::InvalidArgument`] on an ended transaction.
    pub fn get(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.check_open()?;
        self.batch.get_from_batch_and_db(&self.otdb.db, opts, key)
    }

    /// [`OptimisticTransaction::get`] in column family `cf`.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::get`].
    pub fn get_cf(
        &self,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        self.check_open()?;
        self.batch
            .get_from_batch_and_db_cf(&self.otdb.db, opts, cf, key)
    }

    /// Reads `key` as [`OptimisticTransaction::get`] and tracks it: the commit fails if another
    /// write to it is published after this call (or after the snapshot).
    ///
    /// # Errors
    /// As [`OptimisticTransaction::get`].
    pub fn get_for_update(&mut self, opts: &ReadOptions, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.track(None, key)?;
        self.get(opts, key)
    }

    /// [`OptimisticTransaction::get_for_update`] in column family `cf`.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::get`].
    pub fn get_for_update_cf(
        &mut self,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        self.track(Some(cf), key)?;
        self.get_cf(opts, cf, key)
    }

    /// An iterator over the default column family as this transaction sees it.
    ///
    /// # Errors
    /// As [`Db::iter`]; [`Error::InvalidArgument`] on an ended transaction.
    pub fn iter(&self, opts: &ReadOptions) -> Result<BaseDeltaIter<'_>> {
        self.check_open()?;
        self.batch.iter_with_base(&self.otdb.db, opts)
    }

    /// [`OptimisticTransaction::iter`] in column family `cf`.
    ///
    /// # Errors
    /// As [`OptimisticTransaction::iter`].
    pub fn iter_cf(&self, opts: &ReadOptions, cf: &ColumnFamily) -> Result<BaseDeltaIter<'_>> {
        self.check_open()?;
        self.batch.iter_with_base_cf(&self.otdb.db, opts, cf)
    }

    /// Checks every tracked key and, if none changed, writes the batch (invariant 1).
    ///
    /// # Errors
    /// [`Error::Busy`] on a conflict (nothing is written; the transaction stays open: it can be
    /// rolled back, as in RocksDB, and a second commit checks again);
    /// [`Error::InvalidArgument`] when the transaction already ended; the write's errors.
    pub fn commit(&mut self) -> Result<()> {
        self.check_open()?;
        let otdb = self.otdb;
        let mut buckets: Vec<usize> = self
            .tracked
            .iter()
            .flat_map(|(_, id, keys)| keys.keys().map(move |k| otdb.bucket(*id, k)))
            .collect();
        buckets.sort_unstable();
        buckets.dedup();
        let _held: Vec<_> = buckets.iter().map(|&b| otdb.buckets[b].lock()).collect();
        for (cf, _, keys) in &self.tracked {
            for (key, &since) in keys {
                if let Some(seq) = otdb.db.latest_sequence_for_key(cf.as_ref(), key)? {
                    if seq > since {
                        return Err(Error::Busy(format!(
                            "write conflict: a key was written at sequence {seq}, after the \
                             transaction read it at {since}"
                        )));
                    }
                }
            }
        }
        // No conflict: the transaction ends here, whatever the write's outcome.
        self.ended = true;
        let batch = std::mem::take(&mut self.batch).into_batch();
        if batch.is_empty() {
            return Ok(());
        }
        otdb.db.write(&self.write_options, batch)
    }

    /// Discards the transaction's writes, savepoints and tracked keys (RocksDB's `Rollback`,
    /// which `Clear`s an optimistic transaction): the transaction stays open, with its snapshot,
    /// and may be written and committed again.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the transaction was committed.
    pub fn rollback(&mut self) -> Result<()> {
        self.check_open()?;
        self.batch = WriteBatchWithIndex::with_comparator(
            self.otdb
                .db
                .default_column_family()
                .options()
                .comparator
                .clone(),
        );
        self.tracked.clear();
        Ok(())
    }

    /// Marks a savepoint in the transaction's writes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the transaction was committed.
    pub fn set_savepoint(&mut self) -> Result<()> {
        self.check_open()?;
        self.batch.set_savepoint();
        Ok(())
    }

    /// Discards the writes since the last savepoint, and that savepoint. Keys read for update
    /// or written since stay tracked (RocksDB untracks them): a commit may then fail with
    /// `Busy` where RocksDB's would succeed, never the other way round.
    ///
    /// # Errors
    /// [`Error::NotFound`] without a savepoint; [`Error::InvalidArgument`] when the transaction
    /// was committed.
    pub fn rollback_to_savepoint(&mut self) -> Result<()> {
        self.check_open()?;
        self.batch.rollback_to_savepoint()
    }

    /// Forgets the last savepoint, keeping its writes.
    ///
    /// # Errors
    /// [`Error::NotFound`] without a savepoint; [`Error::InvalidArgument`] when the transaction
    /// was committed.
    pub fn pop_savepoint(&mut self) -> Result<()> {
        self.check_open()?;
        self.batch.pop_savepoint()
    }

    fn check_open(&self) -> Result<()> {
        if self.ended {
            return Err(Error::InvalidArgument(
                "the optimistic transaction has already been committed".into(),
            ));
        }
        Ok(())
    }

    /// Remembers `key`'s check point the first time it is touched (invariant 2).
    fn track(&mut self, cf: Option<&ColumnFamily>, key: &[u8]) -> Result<()> {
        self.check_open()?;
        let id = cf.map_or(0, ColumnFamily::id);
        let i = match self.tracked.iter().position(|(_, c, _)| *c == id) {
            Some(i) => i,
            None => {
                self.tracked.push((cf.cloned(), id, HashMap::new()));
                self.tracked.len() - 1
            }
        };
        // A key tracked before keeps its first check point: no copy, no sequence load.
        if self.tracked[i].2.contains_key(key) {
            return Ok(());
        }
        let since = match self.snapshot() {
            Some(s) => s,
            None => self.otdb.db.latest_sequence(),
        };
        self.tracked[i].2.insert(key.to_vec(), since);
        Ok(())
    }
}
