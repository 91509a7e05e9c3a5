//! A pessimistic transaction (RocksDB's `PessimisticTransaction` with the WriteCommitted
//! policy): its writes wait in a [`WriteBatchWithIndex`] that its reads see, each key it writes
//! or reads for update is locked until it ends, and commit writes the batch as one atomic write.
//!
//! Who calls it: one thread at a time (it is `Send`, not shared); many transactions run at once
//! on one [`TransactionDb`].
//!
//! Invariants:
//! 1. Every key in the write batch is locked exclusively by this transaction from before it
//!    entered the batch until the commit's write returned or the transaction rolled back, so no
//!    other transaction writes it in between.
//! 2. With a snapshot, a key is checked when this transaction first locks it: a write published
//!    after the snapshot is a conflict (`Busy`) and the new lock is released. A key locked
//!    before a later snapshot needs no check: the lock kept every other writer out since.
//! 3. A transaction that ended (committed, rolled back, failed) refuses every further call with
//!    `InvalidArgument`, and holds no lock.
//! 4. Rolling back to a savepoint removes the writes made since, releases the locks first taken
//!    since, and restores the snapshot the transaction had then.
//! 5. A prepared transaction (two-phase commit) keeps its locks and its name until its commit
//!    or rollback record is written; it accepts nothing else but additions to its commit-time
//!    batch. Its handle may be dropped: the database keeps it
//!    (`TransactionDb::get_all_prepared_transactions`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::lock_manager::{Granted, LockRequest, TransactionId, TxnShared};
use super::options::TransactionOptions;
use super::TransactionDb;
use crate::batch::{BaseDeltaIter, WriteBatch, WriteBatchWithIndex, DEFAULT_CF};
use crate::db::{ColumnFamily, Snapshot};
use crate::error::{Error, Result};
use crate::options::{ReadOptions, WriteOptions};
use crate::types::SequenceNumber;

/// Where a transaction is in its life (RocksDB's `TransactionState`, the states built).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransactionState {
    /// Begun; reads and writes are accepted.
    Started,
    /// Prepared (two-phase commit): its writes are in the WAL, its locks held; it takes no
    /// more writes and waits for `commit` or `rollback`.
    Prepared,
    /// Its batch was written.
    Committed,
    /// Rolled back, or its commit failed: nothing of it was written.
    RolledBack,
}

/// Locks first taken since a savepoint, and the snapshot then (invariant 4).
#[derive(Debug, Default)]
struct SavePoint {
    new_locks: Vec<(u32, Vec<u8>)>,
    snapshot: Option<Arc<Snapshot>>,
}

/// A pessimistic transaction; see [`TransactionDb::begin_transaction`] and the module
/// documentation.
#[derive(Debug)]
pub struct Transaction<'db> {
    txn_db: &'db TransactionDb,
    shared: Arc<TxnShared>,
    write_options: WriteOptions,
    lock_timeout: Option<Duration>,
    deadlock_detect_depth: Option<usize>,
    max_write_batch_size: usize,
    skip_concurrency_control: bool,
    skip_prepare: bool,
    batch: WriteBatchWithIndex,
    snapshot: Option<Arc<Snapshot>>,
    /// Held locks per column family: key -> exclusive.
    locks: Vec<(u32, HashMap<Vec<u8>, bool>)>,
    savepoints: Vec<SavePoint>,
    state: TransactionState,
    /// The name (XID) of a two-phase-commit transaction, registered with the database.
    name: Option<Vec<u8>>,
    /// Writes added to a prepared transaction's commit record only (RocksDB's commit-time
    /// batch): not locked, not prepared, not read back.
    commit_time: WriteBatch,
}

/// What a prepared transaction is when no handle holds it: kept by its [`TransactionDb`] with
/// its locks, and handed out by `get_all_prepared_transactions`.
#[derive(Debug)]
pub(super) struct PreparedTxn {
    pub(super) shared: Arc<TxnShared>,
    pub(super) name: Vec<u8>,
    pub(super) batch: WriteBatchWithIndex,
    pub(super) locks: Vec<(u32, HashMap<Vec<u8>, bool>)>,
    pub(super) commit_time: WriteBatch,
}

impl<'db> Transaction<'db> {
    pub(super) fn new(
        txn_db: &'db TransactionDb,
        shared: Arc<TxnShared>,
        write_options: &WriteOptions,
        options: &TransactionOptions,
    ) -> Result<Self> {
        let timeout_ms = if options.lock_timeout < 0 {
            txn_db.options().transaction_lock_timeout
        } else {
            options.lock_timeout
        };
        let mut txn = Transaction {
            txn_db,
            shared,
            write_options: *write_options,
            lock_timeout: millis(timeout_ms),
            deadlock_detect_depth: options
                .deadlock_detect
                .then(|| usize::try_from(options.deadlock_detect_depth.max(1)).unwrap_or(1)),
            max_write_batch_size: options.max_write_batch_size,
            skip_concurrency_control: options.skip_concurrency_control,
            skip_prepare: options.skip_prepare,
            batch: WriteBatchWithIndex::with_comparator(default_order(txn_db.db())),
            snapshot: None,
            locks: Vec::new(),
            savepoints: Vec::new(),
            state: TransactionState::Started,
            name: None,
            commit_time: WriteBatch::new(),
        };
        if options.set_snapshot {
            txn.set_snapshot()?;
        }
        Ok(txn)
    }

    /// A prepared transaction handed out again (`TransactionDb::get_all_prepared_transactions`).
    pub(super) fn from_prepared(txn_db: &'db TransactionDb, p: PreparedTxn) -> Self {
        Transaction {
            txn_db,
            shared: p.shared,
            write_options: WriteOptions::default(),
            lock_timeout: millis(txn_db.options().transaction_lock_timeout),
            deadlock_detect_depth: None,
            max_write_batch_size: 0,
            skip_concurrency_control: false,
            skip_prepare: true,
            batch: p.batch,
            snapshot: None,
            locks: p.locks,
            savepoints: Vec::new(),
            state: TransactionState::Prepared,
            name: Some(p.name),
            commit_time: p.commit_time,
        }
    }

    /// Names the transaction (RocksDB's `SetName`; MySQL's XID), which `prepare` needs. A name
    /// is unique among the database's live named transactions.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the transaction already has a name or ended, when the
    /// name is empty or longer than 512 bytes, or when another live transaction has it.
    pub fn set_name(&mut self, name: &str) -> Result<()> {
        self.check_started()?;
        if self.name.is_some() {
            return Err(Error::InvalidArgument(format!(
                "transaction {} already has a name",
                self.shared.id
            )));
        }
        if name.is_empty() || name.len() > crate::batch::MAX_XID_LEN {
            return Err(Error::InvalidArgument(format!(
                "a transaction name must be 1 to {} bytes",
                crate::batch::MAX_XID_LEN
            )));
        }
        self.txn_db.register_name(name.as_bytes())?;
        self.name = Some(name.as_bytes().to_vec());
        Ok(())
    }

    /// The transaction's name, if it has one.
    pub fn name(&self) -> Option<&[u8]> {
        self.name.as_deref()
    }

    /// The commit-time batch (RocksDB's `GetCommitTimeWriteBatch`): writes that a prepared
    /// transaction's commit adds to its commit record, applied before the transaction's own
    /// writes, in the same atomic write. They take no locks, are not part of the prepare
    /// record (a transaction recovered prepared starts with an empty one) and are not read
    /// back by the transaction. MySQL uses it for the binlog position. A transaction
    /// committed without `prepare` refuses a non-empty one, as RocksDB does.
    pub fn commit_time_write_batch(&mut self) -> &mut WriteBatch {
        &mut self.commit_time
    }

    /// The write options its commit (or prepare) writes with.
    pub fn set_write_options(&mut self, write_options: &WriteOptions) {
        self.write_options = *write_options;
    }

    /// First phase of two-phase commit: writes the transaction's batch to the WAL under its
    /// name (synced when its write options say so), not yet visible; the transaction keeps its
    /// locks and takes no more writes. After a crash it comes back prepared
    /// (`TransactionDb::get_all_prepared_transactions`) until `commit` or `rollback`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] without a name, with `disable_wal`, or when not started;
    /// [`Error::Expired`]; the WAL's errors.
    pub fn prepare(&mut self) -> Result<()> {
        self.check_started()?;
        let Some(name) = self.name.clone() else {
            return Err(Error::InvalidArgument(
                "cannot prepare a transaction that has not been named".into(),
            ));
        };
        if self.shared.locks_stolen()
            || self
                .shared
                .expires_at
                .is_some_and(|t| std::time::Instant::now() >= t)
        {
            return Err(Error::Expired(format!(
                "transaction {} ran past its expiration",
                self.shared.id
            )));
        }
        self.txn_db
            .db()
            .write_prepare(&self.write_options, &name, self.batch.batch())?;
        self.savepoints.clear();
        self.state = TransactionState::Prepared;
        Ok(())
    }

    /// The transaction's id (unique within its database), as deadlock reports name it.
    pub fn id(&self) -> TransactionId {
        self.shared.id
    }

    /// Where the transaction is in its life.
    pub fn state(&self) -> TransactionState {
        self.state
    }

    /// Takes a snapshot now: keys locked from here on are checked for writes published after
    /// it (invariant 2). Reads use it only when their `ReadOptions::snapshot` says so
    /// ([`Transaction::snapshot`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on an ended transaction; [`Error::Closed`].
    pub fn set_snapshot(&mut self) -> Result<()> {
        self.check_started()?;
        self.snapshot = Some(Arc::new(self.txn_db.db().snapshot()?));
        Ok(())
    }

    /// The sequence number of the transaction's snapshot, for `ReadOptions::snapshot`.
    pub fn snapshot(&self) -> Option<SequenceNumber> {
        self.snapshot.as_ref().map(|s| s.sequence())
    }

    /// Drops the transaction's snapshot: keys locked from here on are not checked.
    pub fn clear_snapshot(&mut self) {
        self.snapshot = None;
    }

    /// The pending writes.
    pub fn write_batch(&self) -> &WriteBatchWithIndex {
        &self.batch
    }

    /// Sets `key` to `value` in the default column family, after locking it.
    ///
    /// # Errors
    /// [`Error::TimedOut`], [`Error::Deadlock`], [`Error::Busy`] (a write conflict, or the lock
    /// limit), [`Error::Expired`] (the lock was lost to expiry) from the lock; the write
    /// batch's errors (sizes, `max_write_batch_size`). Nothing is written on error.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.write(None, key, |b| b.put(key, value))
    }

    /// [`Transaction::put`] in column family `cf`.
    ///
    /// # Errors
    /// As [`Transaction::put`].
    pub fn put_cf(&mut self, cf: &ColumnFamily, key: &[u8], value: &[u8]) -> Result<()> {
        self.write(Some(cf), key, |b| b.put_cf(cf, key, value))
    }

    /// Deletes `key` in the default column family, after locking it.
    ///
    /// # Errors
    /// As [`Transaction::put`].
    pub fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.write(None, key, |b| b.delete(key))
    }

    /// [`Transaction::delete`] in column family `cf`.
    ///
    /// # Errors
    /// As [`Transaction::put`].
    pub fn delete_cf(&mut self, cf: &ColumnFamily, key: &[u8]) -> Result<()> {
        self.write(Some(cf), key, |b| b.delete_cf(cf, key))
    }

    /// RocksDB's `SingleDelete` of `key` in the default column family, after locking it.
    ///
    /// # Errors
    /// As [`Transaction::put`].
    pub fn single_delete(&mut self, key: &[u8]) -> Result<()> {
        self.write(None, key, |b| b.single_delete(key))
    }

    /// [`Transaction::single_delete`] in column family `cf`.
    ///
    /// # Errors
    /// As [`Transaction::put`].
    pub fn single_delete_cf(&mut self, cf: &ColumnFamily, key: &[u8]) -> Result<()> {
        self.write(Some(cf), key, |b| b.single_delete_cf(cf, key))
    }

    /// Adds merge operand `operand` for `key` in the default column family, after locking it.
    ///
    /// # Errors
    /// As [`Transaction::put`].
    pub fn merge(&mut self, key: &[u8], operand: &[u8]) -> Result<()> {
        self.write(None, key, |b| b.merge(key, operand))
    }

    /// [`Transaction::merge`] in column family `cf`.
    ///
    /// # Errors
    /// As [`Transaction::put`].
    pub fn merge_cf(&mut self, cf: &ColumnFamily, key: &[u8], operand: &[u8]) -> Result<()> {
        self.write(Some(cf), key, |b| b.merge_cf(cf, key, operand))
    }

    /// The value of `key` in the default column family as this transaction sees it: its own
    /// write if it made one, else the database's at `opts.snapshot` (the latest committed
    /// value when `None`: READ COMMITTED; the transaction's snapshot for snapshot reads). Takes
    /// no lock.
    ///
    /// # Errors
    /// As [`Db::get`](crate::Db::get); [`Error::InvalidArgument`] on an ended transaction.
    pub fn get(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.check_started()?;
        self.batch
            .get_from_batch_and_db(self.txn_db.db(), opts, key)
    }

    /// [`Transaction::get`] in column family `cf`.
    ///
    /// # Errors
    /// As [`Transaction::get`].
    pub fn get_cf(
        &self,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        self.check_started()?;
        self.batch
            .get_from_batch_and_db_cf(self.txn_db.db(), opts, cf, key)
    }

    /// Locks `key` (exclusively, or shared when `exclusive` is false), checks it against the
    /// snapshot if the transaction has one, then reads it as [`Transaction::get`] does
    /// (RocksDB's `GetForUpdate`): `SELECT ... FOR UPDATE`.
    ///
    /// # Errors
    /// The lock's errors, as [`Transaction::put`]; the read's, as [`Transaction::get`].
    pub fn get_for_update(
        &mut self,
        opts: &ReadOptions,
        key: &[u8],
        exclusive: bool,
    ) -> Result<Option<Vec<u8>>> {
        self.check_started()?;
        self.lock(None, key, exclusive)?;
        self.get(opts, key)
    }

    /// [`Transaction::get_for_update`] in column family `cf`.
    ///
    /// # Errors
    /// As [`Transaction::get_for_update`].
    pub fn get_for_update_cf(
        &mut self,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        key: &[u8],
        exclusive: bool,
    ) -> Result<Option<Vec<u8>>> {
        self.check_started()?;
        self.lock(Some(cf), key, exclusive)?;
        self.get_cf(opts, cf, key)
    }

    /// [`Transaction::get`] of each key, in order.
    pub fn multi_get<K: AsRef<[u8]>>(
        &self,
        opts: &ReadOptions,
        keys: &[K],
    ) -> Vec<Result<Option<Vec<u8>>>> {
        self.multi_get_cf(opts, &self.txn_db.db().default_column_family(), keys)
    }

    /// [`Transaction::get_cf`] of each key, in order: the transaction's own writes, and the
    /// other keys read from the database in one batched [`Db::multi_get_cf`](crate::Db::multi_get_cf).
    pub fn multi_get_cf<K: AsRef<[u8]>>(
        &self,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        keys: &[K],
    ) -> Vec<Result<Option<Vec<u8>>>> {
        if let Err(e) = self.check_started() {
            return keys.iter().map(|_| Err(e.clone())).collect();
        }
        self.batch
            .multi_get_from_batch_and_db_cf(self.txn_db.db(), opts, cf, keys)
    }

    /// An iterator over the default column family as this transaction sees it: the database at
    /// `opts` with the transaction's writes laid over it. Takes no locks.
    ///
    /// # Errors
    /// As [`Db::iter`](crate::Db::iter); [`Error::InvalidArgument`] on an ended transaction.
    pub fn iter(&self, opts: &ReadOptions) -> Result<BaseDeltaIter<'_>> {
        self.check_started()?;
        self.batch.iter_with_base(self.txn_db.db(), opts)
    }

    /// [`Transaction::iter`] in column family `cf`.
    ///
    /// # Errors
    /// As [`Transaction::iter`].
    pub fn iter_cf(&self, opts: &ReadOptions, cf: &ColumnFamily) -> Result<BaseDeltaIter<'_>> {
        self.check_started()?;
        self.batch.iter_with_base_cf(self.txn_db.db(), opts, cf)
    }

    /// Remembers the current writes, new locks and snapshot;
    /// [`Transaction::rollback_to_savepoint`] returns to them.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on an ended transaction.
    pub fn set_savepoint(&mut self) -> Result<()> {
        self.check_started()?;
        self.batch.set_savepoint();
        self.savepoints.push(SavePoint {
            new_locks: Vec::new(),
            snapshot: self.snapshot.clone(),
        });
        Ok(())
    }

    /// Undoes every write since the last savepoint, releases the locks first taken since, and
    /// restores the snapshot of then (invariant 4). The savepoint is removed.
    ///
    /// # Errors
    /// [`Error::NotFound`] when no savepoint is open; [`Error::InvalidArgument`] on an ended
    /// transaction. Nothing changes then.
    pub fn rollback_to_savepoint(&mut self) -> Result<()> {
        self.check_started()?;
        let sp = self
            .savepoints
            .pop()
            .ok_or_else(|| Error::NotFound("no savepoint to roll back to".into()))?;
        self.batch.rollback_to_savepoint()?;
        for (cf, key) in sp.new_locks {
            if let Some(map) = self.cf_locks_mut(cf) {
                map.remove(&key);
            }
            self.txn_db.locks().unlock(self.shared.id, cf, &key);
        }
        self.snapshot = sp.snapshot;
        Ok(())
    }

    /// Forgets the last savepoint, keeping its writes and locks.
    ///
    /// # Errors
    /// [`Error::NotFound`] when no savepoint is open.
    pub fn pop_savepoint(&mut self) -> Result<()> {
        self.check_started()?;
        let sp = self
            .savepoints
            .pop()
            .ok_or_else(|| Error::NotFound("no savepoint to pop".into()))?;
        self.batch.pop_savepoint()?;
        // Locks first taken since the popped savepoint belong to the enclosing one.
        if let Some(outer) = self.savepoints.last_mut() {
            outer.new_locks.extend(sp.new_locks);
        }
        Ok(())
    }

    /// Writes the transaction's batch as one atomic write with the transaction's write
    /// options, then releases its locks.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the transaction already ended; [`Error::Expired`] when
    /// it ran past its `expiration` (nothing is written; roll it back); the write's errors
    /// (the transaction is then rolled back: nothing of it was written).
    pub fn commit(&mut self) -> Result<()> {
        if self.state == TransactionState::Prepared {
            let name = self
                .name
                .clone()
                .expect("a prepared transaction has a name");
            // On error the transaction stays prepared, its batch and locks kept.
            // The commit-time batch goes first; without one the batch is written as it is.
            let with_commit_time;
            let records = if self.commit_time.is_empty() {
                self.batch.batch()
            } else {
                let mut r = self.commit_time.clone();
                r.append(self.batch.batch())?;
                with_commit_time = r;
                &with_commit_time
            };
            self.txn_db
                .db()
                .write_commit_prepared(&self.write_options, &name, records)?;
            self.batch.clear();
            self.commit_time.clear();
            self.release_all();
            self.state = TransactionState::Committed;
            return Ok(());
        }
        self.check_started()?;
        if !self.skip_prepare {
            return Err(Error::InvalidArgument(
                "commit without prepare is not allowed (skip_prepare is false)".into(),
            ));
        }
        if !self.commit_time.is_empty() {
            return Err(Error::InvalidArgument(
                "commit-time batch contains values that will not be committed: \
                 only a prepared transaction's commit writes it"
                    .into(),
            ));
        }
        if !self.shared.begin_commit() {
            return Err(Error::Expired(format!(
                "transaction {} ran past its expiration; its locks may have been taken",
                self.shared.id
            )));
        }
        let batch = std::mem::take(&mut self.batch).into_batch();
        let written = if batch.is_empty() {
            Ok(())
        } else {
            self.txn_db.db().write(&self.write_options, batch)
        };
        self.release_all();
        self.state = if written.is_ok() {
            TransactionState::Committed
        } else {
            TransactionState::RolledBack
        };
        written
    }

    /// Discards the transaction's writes and savepoints and releases its locks. A prepared
    /// transaction is rolled back for good (its rollback marker is written) and ends; a started
    /// one stays open, with its name and snapshot, and may be written and committed again
    /// (RocksDB's `Rollback`, which `Clear`s a transaction that was not prepared).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the transaction was committed or rolled back after
    /// prepare.
    pub fn rollback(&mut self) -> Result<()> {
        if self.state == TransactionState::Prepared {
            let name = self
                .name
                .clone()
                .expect("a prepared transaction has a name");
            self.txn_db
                .db()
                .write_rollback_prepared(&self.write_options, &name)?;
            self.batch.clear();
            self.commit_time.clear();
            self.release_all();
            self.state = TransactionState::RolledBack;
            return Ok(());
        }
        self.check_started()?;
        self.batch.clear();
        self.commit_time.clear();
        self.savepoints.clear();
        self.release_locks();
        Ok(())
    }

    fn check_started(&self) -> Result<()> {
        match self.state {
            TransactionState::Started => Ok(()),
            TransactionState::Committed => Err(Error::InvalidArgument(format!(
                "transaction {} has already been committed",
                self.shared.id
            ))),
            TransactionState::RolledBack => Err(Error::InvalidArgument(format!(
                "transaction {} has already been rolled back",
                self.shared.id
            ))),
            TransactionState::Prepared => Err(Error::InvalidArgument(format!(
                "transaction {} is prepared: only commit or rollback",
                self.shared.id
            ))),
        }
    }

    /// Locks `key`, then applies `add` to the batch, within `max_write_batch_size`.
    fn write(
        &mut self,
        cf: Option<&ColumnFamily>,
        key: &[u8],
        add: impl FnOnce(&mut WriteBatchWithIndex) -> Result<()>,
    ) -> Result<()> {
        self.check_started()?;
        self.lock(cf, key, true)?;
        if self.max_write_batch_size == 0 {
            return add(&mut self.batch);
        }
        self.batch.set_savepoint();
        add(&mut self.batch)?;
        if self.batch.batch().data_size() > self.max_write_batch_size {
            self.batch.rollback_to_savepoint()?;
            return Err(Error::InvalidArgument(format!(
                "the write would grow the transaction's batch past max_write_batch_size = {}",
                self.max_write_batch_size
            )));
        }
        self.batch.pop_savepoint()
    }

    /// Takes (or strengthens) this transaction's lock on `key` and checks it against the
    /// snapshot (invariant 2).
    fn lock(&mut self, cf: Option<&ColumnFamily>, key: &[u8], exclusive: bool) -> Result<()> {
        if self.skip_concurrency_control {
            return Ok(());
        }
        if self.shared.locks_stolen() {
            return Err(Error::Expired(format!(
                "transaction {} ran past its expiration and lost its locks",
                self.shared.id
            )));
        }
        let cf_id = cf.map_or(DEFAULT_CF, ColumnFamily::id);
        let held = self.cf_locks(cf_id).and_then(|m| m.get(key).copied());
        if held == Some(true) || (held == Some(false) && !exclusive) {
            return Ok(());
        }
        let granted = self.txn_db.locks().lock(
            &self.shared,
            &LockRequest {
                cf: cf_id,
                key,
                exclusive,
                timeout: self.lock_timeout,
                deadlock_detect_depth: self.deadlock_detect_depth,
            },
        )?;
        if granted == Granted::New {
            if let Some(snapshot) = self.snapshot() {
                let latest = self.txn_db.db().latest_sequence_for_key(cf, key);
                let conflict = match latest {
                    Ok(Some(seq)) if seq > snapshot => Err(Error::Busy(format!(
                        "write conflict: the key was written at sequence {seq}, after the \
                         transaction's snapshot {snapshot}"
                    ))),
                    Ok(_) => Ok(()),
                    Err(e) => Err(e),
                };
                if let Err(e) = conflict {
                    self.txn_db.locks().unlock(self.shared.id, cf_id, key);
                    return Err(e);
                }
            }
            if let Some(sp) = self.savepoints.last_mut() {
                sp.new_locks.push((cf_id, key.to_vec()));
            }
        }
        self.cf_locks_insert(cf_id).insert(key.to_vec(), exclusive);
        Ok(())
    }

    fn cf_locks(&self, cf: u32) -> Option<&HashMap<Vec<u8>, bool>> {
        self.locks.iter().find(|(id, _)| *id == cf).map(|(_, m)| m)
    }

    fn cf_locks_mut(&mut self, cf: u32) -> Option<&mut HashMap<Vec<u8>, bool>> {
        self.locks
            .iter_mut()
            .find(|(id, _)| *id == cf)
            .map(|(_, m)| m)
    }

    fn cf_locks_insert(&mut self, cf: u32) -> &mut HashMap<Vec<u8>, bool> {
        let i = match self.locks.iter().position(|(id, _)| *id == cf) {
            Some(i) => i,
            None => {
                self.locks.push((cf, HashMap::new()));
                self.locks.len() - 1
            }
        };
        &mut self.locks[i].1
    }

    fn release_locks(&mut self) {
        let locks = self.txn_db.locks();
        for (cf, map) in self.locks.drain(..) {
            for key in map.into_keys() {
                locks.unlock(self.shared.id, cf, &key);
            }
        }
    }

    fn release_all(&mut self) {
        self.release_locks();
        self.savepoints.clear();
        self.snapshot = None;
        if let Some(name) = self.name.take() {
            self.txn_db.unregister_name(&name);
        }
    }
}

impl Drop for Transaction<'_> {
    /// An unfinished transaction is rolled back: its locks are released, nothing is written.
    fn drop(&mut self) {
        match self.state {
            TransactionState::Started => self.release_all(),
            // A prepared transaction outlives its handle: the database keeps it, locks held,
            // until a handle from `get_all_prepared_transactions` commits or rolls it back.
            TransactionState::Prepared => {
                let name = self.name.take().expect("a prepared transaction has a name");
                self.txn_db.keep_prepared(PreparedTxn {
                    shared: Arc::clone(&self.shared),
                    name,
                    batch: std::mem::take(&mut self.batch),
                    locks: std::mem::take(&mut self.locks),
                    commit_time: std::mem::take(&mut self.commit_time),
                });
            }
            TransactionState::Committed | TransactionState::RolledBack => {}
        }
    }
}

/// A lock timeout in milliseconds as a wait: negative is forever (`None`).
pub(super) fn millis(ms: i64) -> Option<Duration> {
    u64::try_from(ms).ok().map(Duration::from_millis)
}

/// The order of `db`'s default column family, for a transaction's calls that name no family.
fn default_order(db: &crate::Db) -> crate::KeyOrder {
    db.default_column_family().options().comparator.clone()
}
