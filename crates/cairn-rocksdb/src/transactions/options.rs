//! Options of transaction databases and of transactions.

/// Options of a [`TransactionDB`](super::TransactionDB).
#[derive(Debug, Clone, Default)]
pub struct TransactionDBOptions {
    pub(crate) inner: cairndb::TransactionDbOptions,
}

impl TransactionDBOptions {
    /// Default options.
    pub fn new() -> TransactionDBOptions {
        TransactionDBOptions::default()
    }

    /// How long (ms) a write outside a transaction waits for a key's lock (-1: forever).
    pub fn set_default_lock_timeout(&mut self, default_lock_timeout: i64) {
        self.inner.default_lock_timeout = default_lock_timeout;
    }

    /// How long (ms) a transaction waits for a lock unless its options say otherwise.
    pub fn set_txn_lock_timeout(&mut self, txn_lock_timeout: i64) {
        self.inner.transaction_lock_timeout = txn_lock_timeout;
    }

    /// The most keys locked at once (-1 or 0: no limit).
    pub fn set_max_num_locks(&mut self, max_num_locks: i64) {
        self.inner.max_num_locks = max_num_locks;
    }

    /// The stripes of the lock table.
    pub fn set_num_stripes(&mut self, num_stripes: usize) {
        self.inner.num_stripes = num_stripes;
    }
}

/// Options of a pessimistic transaction.
#[derive(Debug, Clone, Default)]
pub struct TransactionOptions {
    pub(crate) inner: cairndb::TransactionOptions,
}

impl TransactionOptions {
    /// Default options.
    pub fn new() -> TransactionOptions {
        TransactionOptions::default()
    }

    /// Commit without a prepare step.
    pub fn set_skip_prepare(&mut self, skip_prepare: bool) {
        self.inner.skip_prepare = skip_prepare;
    }

    /// Take a snapshot when the transaction begins (its reads and conflict checks use it).
    pub fn set_snapshot(&mut self, snapshot: bool) {
        self.inner.set_snapshot = snapshot;
    }

    /// Detect deadlocks while waiting for locks.
    pub fn set_deadlock_detect(&mut self, deadlock_detect: bool) {
        self.inner.deadlock_detect = deadlock_detect;
    }

    /// How long (ms) the transaction waits for a lock (-1: the database's default).
    pub fn set_lock_timeout(&mut self, lock_timeout: i64) {
        self.inner.lock_timeout = lock_timeout;
    }

    /// Milliseconds after which the transaction expires (-1: never).
    pub fn set_expiration(&mut self, expiration: i64) {
        self.inner.expiration = expiration;
    }

    /// How far deadlock detection follows the wait-for graph.
    pub fn set_deadlock_detect_depth(&mut self, depth: i64) {
        self.inner.deadlock_detect_depth = depth;
    }

    /// The most bytes the transaction's batch may hold (0: no limit).
    pub fn set_max_write_batch_size(&mut self, size: usize) {
        self.inner.max_write_batch_size = size;
    }
}

/// Options of an optimistic transaction.
#[derive(Debug, Clone, Default)]
pub struct OptimisticTransactionOptions {
    pub(crate) inner: cairndb::OptimisticTransactionOptions,
}

impl OptimisticTransactionOptions {
    /// Default options.
    pub fn new() -> OptimisticTransactionOptions {
        OptimisticTransactionOptions::default()
    }

    /// Take a snapshot when the transaction begins: commit then fails if a key it wrote or read
    /// for update changed since.
    pub fn set_snapshot(&mut self, snapshot: bool) {
        self.inner.set_snapshot = snapshot;
    }
}
