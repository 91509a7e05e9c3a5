//! Transactions, with RocksDB's semantics and names: pessimistic ([`TransactionDb`], the
//! WriteCommitted policy: per-key locks, deadlock detection, snapshot checks at lock time) and
//! optimistic ([`OptimisticTransactionDb`]: no locks, conflicts checked at commit). Both keep a
//! transaction's writes in a [`WriteBatchWithIndex`](crate::WriteBatchWithIndex), so its reads and
//! iterators see them, and commit them as one atomic write. Design notes:
//! `docs/design/transactions.md`.
//!
//! - `options.rs`: the options of both databases and of their transactions.
//! - `lock_manager.rs`: the striped lock table, lock waits, expiry and deadlock detection.
//! - `transaction.rs`: a pessimistic transaction, with two-phase commit (`set_name`, `prepare`).
//! - `transaction_db.rs`: the pessimistic database, writes outside transactions, and the
//!   prepared transactions no handle holds (recovered, or whose handle was dropped).
//! - `optimistic.rs`: the optimistic database and its transactions.

mod lock_manager;
mod optimistic;
mod options;
mod transaction;
mod transaction_db;

pub use lock_manager::{DeadlockInfo, DeadlockPath, TransactionId};
pub use optimistic::{
    OptimisticTransaction, OptimisticTransactionDb, OptimisticTransactionDbOptions,
};
pub use options::{OptimisticTransactionOptions, TransactionDbOptions, TransactionOptions};
pub use transaction::{Transaction, TransactionState};
pub use transaction_db::{KeyLockInfo, TransactionDb};
