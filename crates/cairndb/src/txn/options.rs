//! The options of transaction databases and transactions, under RocksDB's names
//! (`TransactionDBOptions`, `TransactionOptions`, `OptimisticTransactionOptions`).
//!
//! Every field is honoured; RocksDB's options not listed here (write policies other than
//! WriteCommitted, custom lock managers, ...) are not built and have no field.

use crate::error::{Error, Result};

/// Options of a [`TransactionDb`](super::TransactionDb) (RocksDB's `TransactionDBOptions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionDbOptions {
    /// Locks one column family may hold at once; a lock past it is refused with `Busy`. Zero or
    /// negative: no limit (RocksDB's default, -1).
    pub max_num_locks: i64,
    /// How many detected deadlocks [`TransactionDb::deadlock_info_buffer`] keeps, newest last
    /// (RocksDB's default, 5).
    ///
    /// [`TransactionDb::deadlock_info_buffer`]: super::TransactionDb::deadlock_info_buffer
    pub max_num_deadlocks: usize,
    /// Lock-table stripes (each a mutex, a condition variable and a hash map); more stripes,
    /// less contention between transactions locking different keys. RocksDB's default, 16.
    pub num_stripes: usize,
    /// Milliseconds a transaction waits for a lock when its own `lock_timeout` is negative
    /// (RocksDB's default, 1000). Negative: wait forever; zero: do not wait.
    pub transaction_lock_timeout: i64,
    /// Milliseconds a write outside a transaction (`TransactionDb::put`, `write`, ...) waits for
    /// the locks of its keys (RocksDB's default, 1000). Negative: wait forever.
    pub default_lock_timeout: i64,
}

impl Default for TransactionDbOptions {
    fn default() -> Self {
        TransactionDbOptions {
            max_num_locks: -1,
            max_num_deadlocks: 5,
            num_stripes: 16,
            transaction_lock_timeout: 1000,
            default_lock_timeout: 1000,
        }
    }
}

impl TransactionDbOptions {
    /// Checks the values.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `num_stripes` is zero.
    pub fn validate(&self) -> Result<()> {
        if self.num_stripes == 0 {
            return Err(Error::InvalidArgument(
                "num_stripes must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// Options of one pessimistic transaction (RocksDB's `TransactionOptions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionOptions {
    /// Take a snapshot at begin (as `Transaction::set_snapshot`): every key the transaction
    /// locks is then checked for writes published after the snapshot (`Busy`).
    pub set_snapshot: bool,
    /// Refuse a lock wait that would close a cycle of waiting transactions (`Deadlock`)
    /// instead of waiting for the timeout. RocksDB's default, false.
    pub deadlock_detect: bool,
    /// How many waiting transactions the deadlock search follows before it gives up and
    /// reports a deadlock (RocksDB's default, 50).
    pub deadlock_detect_depth: i64,
    /// Milliseconds to wait for a lock; negative: the database's `transaction_lock_timeout`
    /// (RocksDB's default, -1); zero: do not wait.
    pub lock_timeout: i64,
    /// Milliseconds after begin at which the transaction expires: its locks may then be taken
    /// by others and its commit fails with `Expired`. Negative: never (RocksDB's default, -1);
    /// zero: at once (as in RocksDB, where any non-negative value counts from begin).
    pub expiration: i64,
    /// The largest size in bytes the transaction's write batch may reach; a write past it is
    /// refused with `InvalidArgument` and changes nothing. Zero: no limit (the default).
    pub max_write_batch_size: usize,
    /// Take no locks and check no conflicts: the caller guarantees that no other transaction
    /// writes the same keys at the same time (RocksDB's `skip_concurrency_control`).
    pub skip_concurrency_control: bool,
    /// Allow `commit` without `prepare` (RocksDB's default, true). False: a transaction must be
    /// named and prepared first, and a commit of one that was not fails with
    /// `InvalidArgument`, the transaction still open.
    pub skip_prepare: bool,
}

impl Default for TransactionOptions {
    fn default() -> Self {
        TransactionOptions {
            set_snapshot: false,
            deadlock_detect: false,
            deadlock_detect_depth: 50,
            lock_timeout: -1,
            expiration: -1,
            max_write_batch_size: 0,
            skip_concurrency_control: false,
            skip_prepare: true,
        }
    }
}

/// Options of one optimistic transaction (RocksDB's `OptimisticTransactionOptions`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OptimisticTransactionOptions {
    /// Take a snapshot at begin: conflicts are then checked against writes published after
    /// it for every key written or read for update, rather than after each key's first
    /// access.
    pub set_snapshot: bool,
}
