//! The row layer's errors: the engine's, classified the same way for both engines, and the
//! row layer's own (bad definitions, bad values, duplicate keys, damaged rows).

/// The result type of the row layer.
pub type Result<T> = std::result::Result<T, Error>;

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A table definition that cannot be used, or one that differs from what the database
    /// recorded for the same table.
    #[error("schema: {0}")]
    Schema(String),
    /// A value that does not fit its column, or a row of the wrong shape.
    #[error("bad value: {0}")]
    BadValue(String),
    /// An insert or update that would repeat a unique key (MySQL's `ER_DUP_ENTRY`).
    #[error("duplicate entry for key {index} of table {table}")]
    DuplicateKey {
        /// The table.
        table: String,
        /// The unique index.
        index: String,
    },
    /// A stored key or value the row layer cannot decode.
    #[error("corrupt row data: {0}")]
    Corrupt(String),
    /// A lock wait or write conflict the transaction lost: retry it (RocksDB's `Busy`,
    /// `TimedOut`, `TryAgain`, and deadlocks).
    #[error("transaction conflict: {0}")]
    Conflict(String),
    /// Another engine error.
    #[error("engine: {0}")]
    Engine(String),
}

impl Error {
    /// True for [`Error::Conflict`]: the transaction should be rolled back and retried.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::Conflict(_))
    }
}

impl From<cairndb::Error> for Error {
    fn from(e: cairndb::Error) -> Self {
        if e.is_busy() || e.is_timed_out() || e.is_deadlock() {
            Error::Conflict(e.to_string())
        } else if e.is_corruption() {
            Error::Corrupt(e.to_string())
        } else {
            Error::Engine(e.to_string())
        }
    }
}
