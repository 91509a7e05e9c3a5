//! The one error type of the library.
//!
//! Operating errors (I/O failures, damaged files, bad arguments) are returned as [`Error`]; bugs
//! (broken invariants) panic. Corruption is its own variant and carries the file, the offset and,
//! where a checksum was compared, the expected and actual values. [`Error::is_corruption`] looks
//! through [`Error::Context`] wrapping, so a caller several layers up can still tell damage apart
//! from an operating error.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Shorthand for results whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Details of a detected corruption: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corruption {
    /// The damaged file; empty when the bytes did not come from a file (fuzzing, a buffer).
    pub file: PathBuf,
    /// Byte offset in the file where the damaged unit (block, record, fragment) starts.
    pub offset: u64,
    /// What is wrong, in words.
    pub message: String,
    /// The checksum stored in the file, when a checksum mismatch was the symptom.
    pub expected_checksum: Option<u32>,
    /// The checksum computed over the bytes read.
    pub actual_checksum: Option<u32>,
}

impl fmt::Display for Corruption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.message, self.offset)?;
        if !self.file.as_os_str().is_empty() {
            write!(f, " of {}", self.file.display())?;
        }
        if let (Some(e), Some(a)) = (self.expected_checksum, self.actual_checksum) {
            write!(f, " (checksum expected {e:#010x}, actual {a:#010x})")?;
        }
        Ok(())
    }
}

/// Every error the library returns.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system I/O error, with the operation and path it happened on.
    #[error("I/O error in {op} on {}: {source}", path.display())]
    Io {
        /// The file-system operation that failed (`"append"`, `"sync"`, `"rename"`, ...).
        op: &'static str,
        /// The path the operation was applied to.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Persisted bytes failed a checksum or a structural check.
    #[error("corruption: {0}")]
    Corruption(Box<Corruption>),
    /// The caller passed something the library cannot accept (bad option, oversize key, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A feature or format version this build does not support.
    #[error("not supported: {0}")]
    NotSupported(String),
    /// A file, key or object that was required does not exist.
    #[error("not found: {0}")]
    NotFound(String),
    /// A write conflict or a lock limit in a transaction. (A database directory locked by
    /// another handle is an I/O error, as in RocksDB: see [`Error::is_lock_held`].)
    #[error("busy: {0}")]
    Busy(String),
    /// An earlier write or fsync failed; the database refuses writes until it is reopened.
    #[error("database is poisoned by an earlier failed write or sync; reopen it: {0}")]
    Poisoned(String),
    /// The handle was used after it was closed.
    #[error("the database is closed")]
    Closed,
    /// A lock wait ran past its timeout (RocksDB's `TimedOut` with sub-code `LockTimeout`): a
    /// transaction's `lock_timeout`, or a non-transactional write's `default_lock_timeout`.
    #[error("timed out: {0}")]
    TimedOut(String),
    /// Waiting for a lock would close a cycle of transactions waiting on each other (RocksDB's
    /// `Busy` with sub-code `Deadlock`); the waiter is refused and keeps its other locks. The
    /// cycle is recorded in the transaction database's deadlock buffer.
    #[error("deadlock: {0}")]
    Deadlock(String),
    /// The transaction ran past its `expiration` and its locks may have been taken by others.
    #[error("expired: {0}")]
    Expired(String),
    /// Another error with a description of what was being done.
    #[error("{context}: {source}")]
    Context {
        /// What was being done.
        context: String,
        /// What went wrong.
        #[source]
        source: Box<Error>,
    },
}

/// A copy that answers every question (`is_corruption`, `is_io`, `raw_os_error`, the message) as
/// the original does. Iterators hand out the error that stopped them on every `status()` call;
/// `std::io::Error` is not `Clone`, so an I/O error is rebuilt from its OS code, or from its kind
/// and message.
impl Clone for Error {
    fn clone(&self) -> Self {
        match self {
            Error::Io { op, path, source } => {
                let source = match source.raw_os_error() {
                    Some(code) => io::Error::from_raw_os_error(code),
                    None => io::Error::new(source.kind(), source.to_string()),
                };
                Error::Io {
                    op,
                    path: path.clone(),
                    source,
                }
            }
            Error::Corruption(c) => Error::Corruption(c.clone()),
            Error::InvalidArgument(s) => Error::InvalidArgument(s.clone()),
            Error::NotSupported(s) => Error::NotSupported(s.clone()),
            Error::NotFound(s) => Error::NotFound(s.clone()),
            Error::Busy(s) => Error::Busy(s.clone()),
            Error::Poisoned(s) => Error::Poisoned(s.clone()),
            Error::Closed => Error::Closed,
            Error::TimedOut(s) => Error::TimedOut(s.clone()),
            Error::Deadlock(s) => Error::Deadlock(s.clone()),
            Error::Expired(s) => Error::Expired(s.clone()),
            Error::Context { context, source } => Error::Context {
                context: context.clone(),
                source: source.clone(),
            },
        }
    }
}

impl Error {
    /// A corruption error at `offset` of `file`.
    pub fn corruption(file: impl Into<PathBuf>, offset: u64, message: impl Into<String>) -> Self {
        Error::Corruption(Box::new(Corruption {
            file: file.into(),
            offset,
            message: message.into(),
            expected_checksum: None,
            actual_checksum: None,
        }))
    }

    /// A checksum mismatch at `offset` of `file`.
    pub fn checksum_mismatch(
        file: impl Into<PathBuf>,
        offset: u64,
        what: &str,
        expected: u32,
        actual: u32,
    ) -> Self {
        Error::Corruption(Box::new(Corruption {
            file: file.into(),
            offset,
            message: format!("checksum mismatch in {what}"),
            expected_checksum: Some(expected),
            actual_checksum: Some(actual),
        }))
    }

    /// An I/O error of `op` on `path`.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            op,
            path: path.into(),
            source,
        }
    }

    /// Wraps `self` with a description of what was being done.
    #[must_use]
    pub fn context(self, context: impl Into<String>) -> Self {
        Error::Context {
            context: context.into(),
            source: Box::new(self),
        }
    }

    /// RocksDB's `Status::ToString()` for this error: the status name RocksDB would give (that of
    /// the underlying error when the engine added context), a colon, then the message. The C
    /// library and the `rocksdb`-crate facade report errors this way, and RocksDB's bindings read
    /// the kind back from the name.
    pub fn rocksdb_status(&self) -> String {
        let code = match self.root() {
            Error::Corruption(_) => "Corruption",
            Error::InvalidArgument(_) => "Invalid argument",
            Error::NotSupported(_) => "Not implemented",
            Error::NotFound(_) => "NotFound",
            Error::Busy(_) | Error::Deadlock(_) => "Resource busy",
            Error::TimedOut(_) => "Operation timed out",
            Error::Expired(_) => "Operation expired",
            _ => "IO error",
        };
        let detail = match self {
            Error::Corruption(c) => c.to_string(),
            Error::InvalidArgument(m)
            | Error::NotSupported(m)
            | Error::NotFound(m)
            | Error::Busy(m)
            | Error::TimedOut(m)
            | Error::Expired(m) => m.clone(),
            Error::Deadlock(m) => format!("deadlock: {m}"),
            _ => self.to_string(),
        };
        format!("{code}: {detail}")
    }

    /// The innermost error, past any [`Error::Context`] wrapping.
    pub fn root(&self) -> &Error {
        let mut e = self;
        while let Error::Context { source, .. } = e {
            e = source;
        }
        e
    }

    /// True when this error, or the error it wraps, reports damaged persisted data.
    pub fn is_corruption(&self) -> bool {
        matches!(self.root(), Error::Corruption(_))
    }

    /// The corruption details, if this is (or wraps) a corruption error.
    pub fn as_corruption(&self) -> Option<&Corruption> {
        match self.root() {
            Error::Corruption(c) => Some(c),
            _ => None,
        }
    }

    /// True for [`Error::Busy`]: a write conflict in a transaction (another writer changed the
    /// key after the transaction's snapshot), or a lock refused at its limit.
    pub fn is_busy(&self) -> bool {
        matches!(self.root(), Error::Busy(_))
    }

    /// True for [`Error::TimedOut`]: a lock wait ran past its timeout.
    pub fn is_timed_out(&self) -> bool {
        matches!(self.root(), Error::TimedOut(_))
    }

    /// True for [`Error::Deadlock`].
    pub fn is_deadlock(&self) -> bool {
        matches!(self.root(), Error::Deadlock(_))
    }

    /// The error of a lock file held by another handle, in this process or another: an I/O
    /// error of operation `lock` whose kind is `WouldBlock`, as RocksDB reports a locked
    /// database (`IOError`, "Resource temporarily unavailable" or "lock hold by current
    /// process").
    pub fn lock_held(path: impl Into<PathBuf>, detail: &str) -> Self {
        Error::io(
            "lock",
            path,
            io::Error::new(io::ErrorKind::WouldBlock, detail.to_string()),
        )
    }

    /// True for [`Error::lock_held`]: the database directory is locked by another handle.
    pub fn is_lock_held(&self) -> bool {
        matches!(self.root(), Error::Io { op: "lock", source, .. }
            if source.kind() == io::ErrorKind::WouldBlock)
    }

    /// True when this error, or the error it wraps, is an I/O error.
    pub fn is_io(&self) -> bool {
        matches!(self.root(), Error::Io { .. })
    }

    /// The raw OS error code of an I/O error (e.g. `libc::ENOSPC`), if there is one.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self.root() {
            Error::Io { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }

    /// Fills in the file name of a corruption that was detected on bytes without a known origin.
    #[must_use]
    pub fn in_file(mut self, file: &std::path::Path) -> Self {
        if let Error::Corruption(c) = &mut self {
            if c.file.as_os_str().is_empty() {
                c.file = file.to_path_buf();
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corruption_is_seen_through_context() {
        let e = Error::checksum_mismatch("000001.sst", 4096, "data block", 1, 2)
            .context("reading table")
            .context("get");
        assert!(e.is_corruption());
        let c = e.as_corruption().expect("corruption");
        assert_eq!(c.offset, 4096);
        assert_eq!(c.expected_checksum, Some(1));
        let text = e.to_string();
        assert!(
            text.contains("000001.sst") && text.contains("4096"),
            "{text}"
        );
    }

    #[test]
    fn clones_keep_their_kind() {
        let io = Error::io("read", "/x.sst", io::Error::from_raw_os_error(libc::EIO))
            .context("iterating");
        assert!(io.clone().is_io());
        assert_eq!(io.clone().raw_os_error(), Some(libc::EIO));
        let c = Error::corruption("/x.sst", 9, "bad");
        assert_eq!(c.clone().as_corruption().map(|c| c.offset), Some(9));
    }

    #[test]
    fn io_is_not_corruption() {
        let e = Error::io("sync", "x", io::Error::from_raw_os_error(libc::EIO)).context("flush");
        assert!(!e.is_corruption());
        assert!(e.is_io());
        assert_eq!(e.raw_os_error(), Some(libc::EIO));
    }

    #[test]
    fn in_file_names_anonymous_corruption_only() {
        let e = Error::corruption("", 7, "bad").in_file(std::path::Path::new("a.log"));
        assert_eq!(
            e.as_corruption().map(|c| c.file.clone()),
            Some(PathBuf::from("a.log"))
        );
        let e = Error::corruption("b.log", 7, "bad").in_file(std::path::Path::new("a.log"));
        assert_eq!(
            e.as_corruption().map(|c| c.file.clone()),
            Some(PathBuf::from("b.log"))
        );
    }
}
