//! A database with pessimistic transactions (RocksDB's `TransactionDB`, WriteCommitted policy).
//!
//! Who calls it: any number of threads share one [`TransactionDb`]; each begins its own
//! [`Transaction`]s. Writes outside a transaction ([`TransactionDb::put`], [`TransactionDb::write`],
//! ...) lock their keys as a transaction would, so they never slip between a transaction's
//! lock and its commit.
//!
//! What it owns: the [`Db`], the lock table (`lock_manager.rs`) and the counter of transaction ids.
//! Reads go to the database directly ([`TransactionDb::db`]); so do writes made through it, which
//! take no locks (RocksDB's `GetBaseDB`).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::lock_manager::{DeadlockPath, LockManager, LockRequest, TransactionId, TxnShared};
use super::options::{TransactionDbOptions, TransactionOptions};
use super::transaction::{millis, PreparedTxn, Transaction};
use crate::batch::WriteBatch;
use crate::batch::WriteBatchWithIndex;
use crate::db::{ColumnFamily, ColumnFamilyDescriptor, Db};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RealFs};
use crate::options::{Options, WriteOptions};
use crate::types::ValueKind;
use parking_lot::Mutex;
use std::collections::{HashMap, HashSet};

/// A held lock, as [`TransactionDb::lock_status`] reports it (RocksDB's `KeyLockInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyLockInfo {
    /// The column family id.
    pub cf_id: u32,
    /// The locked key.
    pub key: Vec<u8>,
    /// Exclusive, or shared by `ids`.
    pub exclusive: bool,
    /// The holders.
    pub ids: Vec<TransactionId>,
}

/// A database with pessimistic transactions; see the module documentation.
///
/// ```
/// use cairndb::options::{Options, ReadOptions, WriteOptions};
/// use cairndb::{TransactionDb, TransactionDbOptions, TransactionOptions};
///
/// # fn main() -> cairndb::Result<()> {
/// # let dir = tempfile::tempdir().expect("temporary directory");
/// let mut options = Options::default();
/// options.db.create_if_missing = true;
/// let db = TransactionDb::open(dir.path(), options, TransactionDbOptions::default())?;
/// db.put(&WriteOptions::default(), b"balance", b"100")?;
///
/// let mut txn = db.begin_transaction(&WriteOptions::default(), &TransactionOptions::default())?;
/// let r = ReadOptions::default();
/// // SELECT ... FOR UPDATE: the key stays locked until commit or rollback.
/// let balance = txn.get_for_update(&r, b"balance", true)?.expect("present");
/// assert_eq!(balance, b"100");
/// txn.put(b"balance", b"90")?;
/// assert_eq!(txn.get(&r, b"balance")?.as_deref(), Some(&b"90"[..])); // its own write
/// assert_eq!(db.db().get(&r, b"balance")?.as_deref(), Some(&b"100"[..])); // not yet committed
/// txn.commit()?;
/// assert_eq!(db.db().get(&r, b"balance")?.as_deref(), Some(&b"90"[..]));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct TransactionDb {
    db: Db,
    options: TransactionDbOptions,
    locks: LockManager,
    next_id: AtomicU64,
    /// Names of live named transactions (two-phase commit), unique.
    names: Mutex<HashSet<Vec<u8>>>,
    /// Prepared transactions no handle holds: recovered at open, or whose handle was dropped.
    prepared: Mutex<Vec<PreparedTxn>>,
}

impl TransactionDb {
    /// Opens (or creates, as `options` say) the database at `path` with transactions.
    ///
    /// # Errors
    /// As [`Db::open`]; [`Error::InvalidArgument`] for bad `txn_db_options`.
    pub fn open(
        path: impl AsRef<Path>,
        options: Options,
        txn_db_options: TransactionDbOptions,
    ) -> Result<Self> {
        Self::open_cf_with_fs(RealFs::shared(), path, options, txn_db_options, Vec::new())
    }

    /// [`TransactionDb::open`] with column families, as [`Db::open_cf`].
    ///
    /// # Errors
    /// As [`TransactionDb::open`].
    pub fn open_cf(
        path: impl AsRef<Path>,
        options: Options,
        txn_db_options: TransactionDbOptions,
        families: Vec<ColumnFamilyDescriptor>,
    ) -> Result<Self> {
        Self::open_cf_with_fs(RealFs::shared(), path, options, txn_db_options, families)
    }

    /// [`TransactionDb::open_cf`] on file system `fs`.
    ///
    /// # Errors
    /// As [`TransactionDb::open`].
    pub fn open_cf_with_fs(
        fs: Arc<dyn FileSystem>,
        path: impl AsRef<Path>,
        options: Options,
        txn_db_options: TransactionDbOptions,
        families: Vec<ColumnFamilyDescriptor>,
    ) -> Result<Self> {
        txn_db_options.validate()?;
        let db = Db::open_cf_with_fs(fs, path, options, families)?;
        let txn_db = TransactionDb {
            db,
            locks: LockManager::new(
                txn_db_options.num_stripes,
                txn_db_options.max_num_locks,
                txn_db_options.max_num_deadlocks,
            ),
            options: txn_db_options,
            next_id: AtomicU64::new(1),
            names: Mutex::new(HashSet::new()),
            prepared: Mutex::new(Vec::new()),
        };
        txn_db.recover_prepared()?;
        Ok(txn_db)
    }

    /// The database, for reads, snapshots, column families, flushes and properties. Writes made
    /// through it take no locks.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// The options the database was opened with.
    pub fn options(&self) -> &TransactionDbOptions {
        &self.options
    }

    pub(super) fn locks(&self) -> &LockManager {
        &self.locks
    }

    /// Takes the prepared transactions recovery found, with their locks and names.
    fn recover_prepared(&self) -> Result<()> {
        let families = self.db.column_families();
        let order_of = |id: u32| {
            families
                .iter()
                .find(|cf| cf.id() == id)
                .map(|cf| cf.options().comparator.clone())
                .unwrap_or_default()
        };
        for (name, records) in self.db.take_recovered_prepared() {
            let shared = TxnShared::new(self.next_id.fetch_add(1, Ordering::Relaxed), None);
            let mut locks: Vec<(u32, HashMap<Vec<u8>, bool>)> = Vec::new();
            for r in records.iter() {
                let r = r?;
                let req = LockRequest {
                    cf: r.cf,
                    key: r.key,
                    exclusive: true,
                    timeout: Some(Duration::ZERO),
                    deadlock_detect_depth: None,
                };
                self.locks.lock(&shared, &req).map_err(|e| {
                    Error::corruption(
                        "",
                        0,
                        format!("two prepared transactions write the same key: {e}"),
                    )
                })?;
                let i = match locks.iter().position(|(c, _)| *c == r.cf) {
                    Some(i) => i,
                    None => {
                        locks.push((r.cf, HashMap::new()));
                        locks.len() - 1
                    }
                };
                locks[i].1.insert(r.key.to_vec(), true);
            }
            self.register_name(&name)?;
            self.prepared.lock().push(PreparedTxn {
                shared,
                name,
                batch: WriteBatchWithIndex::from_batch(records, order_of),
                locks,
                commit_time: WriteBatch::new(),
            });
        }
        Ok(())
    }

    pub(super) fn register_name(&self, name: &[u8]) -> Result<()> {
        if !self.names.lock().insert(name.to_vec()) {
            return Err(Error::InvalidArgument(format!(
                "transaction name {:?} is in use by a live transaction",
                String::from_utf8_lossy(name)
            )));
        }
        Ok(())
    }

    pub(super) fn unregister_name(&self, name: &[u8]) {
        self.names.lock().remove(name);
    }

    pub(super) fn keep_prepared(&self, p: PreparedTxn) {
        self.prepared.lock().push(p);
    }

    /// The prepared transactions no handle holds (RocksDB's `GetAllPreparedTransactions`):
    /// those recovery found, and those whose handle was dropped. Each is handed out once, in
    /// the `Prepared` state, holding its locks; commit or roll it back. Dropping it again puts
    /// it back.
    pub fn get_all_prepared_transactions(&self) -> Vec<Transaction<'_>> {
        std::mem::take(&mut *self.prepared.lock())
            .into_iter()
            .map(|p| Transaction::from_prepared(self, p))
            .collect()
    }

    /// Begins a transaction whose commit writes with `write_options`.
    ///
    /// # Errors
    /// [`Error::Closed`] when `set_snapshot` is asked of a closed database.
    pub fn begin_transaction(
        &self,
        write_options: &WriteOptions,
        txn_options: &TransactionOptions,
    ) -> Result<Transaction<'_>> {
        write_options.validate()?;
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        // RocksDB's rule: a non-negative expiration counts from begin (0 expires at once).
        let expires_at = u64::try_from(txn_options.expiration)
            .ok()
            .map(|ms| Instant::now() + Duration::from_millis(ms));
        Transaction::new(
            self,
            TxnShared::new(id, expires_at),
            write_options,
            txn_options,
        )
    }

    /// Sets `key` to `value` in the default column family, after locking it (waiting up to
    /// `default_lock_timeout`).
    ///
    /// # Errors
    /// [`Error::TimedOut`] when a transaction holds the key past the timeout; [`Db::write`]'s.
    pub fn put(&self, opts: &WriteOptions, key: &[u8], value: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(key, value)?;
        self.write(opts, b)
    }

    /// [`TransactionDb::put`] in column family `cf`.
    ///
    /// # Errors
    /// As [`TransactionDb::put`].
    pub fn put_cf(
        &self,
        opts: &WriteOptions,
        cf: &ColumnFamily,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put_cf(cf.id(), key, value)?;
        self.write(opts, b)
    }

    /// Deletes `key` in the default column family, after locking it.
    ///
    /// # Errors
    /// As [`TransactionDb::put`].
    pub fn delete(&self, opts: &WriteOptions, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete(key)?;
        self.write(opts, b)
    }

    /// [`TransactionDb::delete`] in column family `cf`.
    ///
    /// # Errors
    /// As [`TransactionDb::put`].
    pub fn delete_cf(&self, opts: &WriteOptions, cf: &ColumnFamily, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_cf(cf.id(), key)?;
        self.write(opts, b)
    }

    /// Adds merge operand `operand` for `key` in the default column family, after locking it.
    ///
    /// # Errors
    /// As [`TransactionDb::put`].
    pub fn merge(&self, opts: &WriteOptions, key: &[u8], operand: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.merge(key, operand)?;
        self.write(opts, b)
    }

    /// [`TransactionDb::merge`] in column family `cf`.
    ///
    /// # Errors
    /// As [`TransactionDb::put`].
    pub fn merge_cf(
        &self,
        opts: &WriteOptions,
        cf: &ColumnFamily,
        key: &[u8],
        operand: &[u8],
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.merge_cf(cf.id(), key, operand)?;
        self.write(opts, b)
    }

    /// Writes `batch` atomically after locking every key it writes (in key order, waiting up to
    /// `default_lock_timeout` for each), then releases the locks.
    ///
    /// # Errors
    /// [`Error::NotSupported`] for a batch with a range deletion (its keys cannot be locked);
    /// the lock errors of [`TransactionDb::put`]; [`Db::write`]'s. Nothing is written on error.
    pub fn write(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        let mut keys: Vec<(u32, Vec<u8>)> = Vec::with_capacity(batch.count() as usize);
        for record in batch.iter() {
            let r = record?;
            if r.kind == ValueKind::RangeDelete {
                return Err(Error::NotSupported(
                    "delete_range through a TransactionDb (its keys cannot be locked); write it \
                     through db()"
                        .into(),
                ));
            }
            keys.push((r.cf, r.key.to_vec()));
        }
        keys.sort_unstable();
        keys.dedup();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let me = TxnShared::new(id, None);
        let timeout = millis(self.options.default_lock_timeout);
        let mut taken = 0;
        let mut result = Ok(());
        for (cf, key) in &keys {
            let req = LockRequest {
                cf: *cf,
                key,
                exclusive: true,
                timeout,
                deadlock_detect_depth: None,
            };
            match self.locks.lock(&me, &req) {
                Ok(_) => taken += 1,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        if result.is_ok() {
            result = self.db.write(opts, batch);
        }
        for (cf, key) in &keys[..taken] {
            self.locks.unlock(id, *cf, key);
        }
        result
    }

    /// The deadlocks detected so far, oldest first; at most `max_num_deadlocks` are kept
    /// (RocksDB's `GetDeadlockInfoBuffer`).
    pub fn deadlock_info_buffer(&self) -> Vec<DeadlockPath> {
        self.locks.deadlock_info_buffer()
    }

    /// Every transaction waiting for a lock now, with the ids of the holders it waits for
    /// (RocksDB's `GetWaitingTxns`, for the whole database).
    pub fn waiting_transactions(&self) -> Vec<(TransactionId, Vec<TransactionId>)> {
        self.locks.waiting()
    }

    /// Every lock held now, by column family and key (RocksDB's `GetLockStatusData`).
    pub fn lock_status(&self) -> Vec<KeyLockInfo> {
        self.locks
            .lock_status()
            .into_iter()
            .map(|(cf_id, key, exclusive, ids)| KeyLockInfo {
                cf_id,
                key,
                exclusive,
                ids,
            })
            .collect()
    }

    /// Closes the database (see [`Db::close`]).
    ///
    /// # Errors
    /// As [`Db::close`].
    pub fn close(&self) -> Result<()> {
        self.db.close()
    }
}
