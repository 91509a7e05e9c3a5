//! `Error` and `ErrorKind`: RocksDB's status as a message whose first word names the kind.

use std::fmt;

/// The kind of an [`Error`], read from the status name its message starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// `NotFound`.
    NotFound,
    /// `Corruption`: damaged persisted bytes.
    Corruption,
    /// `Not implemented`: CairnDB does not provide what was asked for.
    NotSupported,
    /// `Invalid argument`.
    InvalidArgument,
    /// `IO error`, and CairnDB errors without a RocksDB equivalent (a poisoned or closed database).
    IOError,
    /// `Merge in progress`.
    MergeInProgress,
    /// `Result incomplete`.
    Incomplete,
    /// `Shutdown in progress`.
    ShutdownInProgress,
    /// `Operation timed out`.
    TimedOut,
    /// `Operation aborted`.
    Aborted,
    /// `Resource busy`: a conflicting transaction or a deadlock.
    Busy,
    /// `Operation expired`.
    Expired,
    /// `Operation failed. Try again.`.
    TryAgain,
    /// `Compaction too large`.
    CompactionTooLarge,
    /// `Column family dropped`.
    ColumnFamilyDropped,
    /// Any other message.
    Unknown,
}

/// An error: RocksDB's status string (`"<kind>: <message>"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    pub(crate) fn new(message: String) -> Error {
        Error { message }
    }

    /// A `Not implemented` error.
    pub(crate) fn not_supported(what: impl fmt::Display) -> Error {
        Error::new(format!("Not implemented: {what}"))
    }

    /// An `Invalid argument` error.
    pub(crate) fn invalid(what: impl fmt::Display) -> Error {
        Error::new(format!("Invalid argument: {what}"))
    }

    /// The message.
    pub fn into_string(self) -> String {
        self.into()
    }

    /// The kind, from the status name the message starts with.
    pub fn kind(&self) -> ErrorKind {
        match self.message.split(':').next().unwrap_or("") {
            "NotFound" => ErrorKind::NotFound,
            "Corruption" => ErrorKind::Corruption,
            "Not implemented" => ErrorKind::NotSupported,
            "Invalid argument" => ErrorKind::InvalidArgument,
            "IO error" => ErrorKind::IOError,
            "Merge in progress" => ErrorKind::MergeInProgress,
            "Result incomplete" => ErrorKind::Incomplete,
            "Shutdown in progress" => ErrorKind::ShutdownInProgress,
            "Operation timed out" => ErrorKind::TimedOut,
            "Operation aborted" => ErrorKind::Aborted,
            "Resource busy" => ErrorKind::Busy,
            "Operation expired" => ErrorKind::Expired,
            "Operation failed. Try again." => ErrorKind::TryAgain,
            "Compaction too large" => ErrorKind::CompactionTooLarge,
            "Column family dropped" => ErrorKind::ColumnFamilyDropped,
            _ => ErrorKind::Unknown,
        }
    }
}

impl From<cairndb::Error> for Error {
    fn from(e: cairndb::Error) -> Error {
        Error::new(e.rocksdb_status())
    }
}

impl AsRef<str> for Error {
    fn as_ref(&self) -> &str {
        &self.message
    }
}

impl From<Error> for String {
    fn from(e: Error) -> String {
        e.message
    }
}

impl std::error::Error for Error {}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.message.fmt(f)
    }
}
