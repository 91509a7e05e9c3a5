//! Transaction databases: pessimistic ([`TransactionDB`]: locks, `get_for_update`, deadlock
//! detection, two-phase commit) and optimistic ([`OptimisticTransactionDB`]: conflicts checked
//! at commit), and their [`Transaction`]s.

mod optimistic_transaction_db;
mod options;
mod transaction;
mod transaction_db;

pub use optimistic_transaction_db::{OptimisticTransactionDB, OptimisticTransactionDBInner};
pub use options::{OptimisticTransactionOptions, TransactionDBOptions, TransactionOptions};
pub use transaction::Transaction;
pub use transaction_db::{TransactionDB, TransactionDBInner};
