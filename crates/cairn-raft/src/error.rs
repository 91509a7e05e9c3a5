//! CairnDB and JSON errors as openraft's `StorageError`, with the subject and verb openraft
//! reports.

use openraft::{AnyError, ErrorSubject, ErrorVerb, StorageError, StorageIOError};

use crate::NodeId;

/// Wraps `e` as a storage I/O error about `subject`.
pub(crate) fn io(
    subject: ErrorSubject<NodeId>,
    verb: ErrorVerb,
    e: impl std::error::Error + 'static,
) -> StorageError<NodeId> {
    StorageIOError::new(subject, verb, AnyError::new(&e)).into()
}

/// A read of the log failed.
pub(crate) fn read_logs(e: impl std::error::Error + 'static) -> StorageError<NodeId> {
    io(ErrorSubject::Logs, ErrorVerb::Read, e)
}

/// A write of the log failed.
pub(crate) fn write_logs(e: impl std::error::Error + 'static) -> StorageError<NodeId> {
    io(ErrorSubject::Logs, ErrorVerb::Write, e)
}

/// A read of the state machine failed.
pub(crate) fn read_sm(e: impl std::error::Error + 'static) -> StorageError<NodeId> {
    io(ErrorSubject::StateMachine, ErrorVerb::Read, e)
}

/// A write of the state machine failed.
pub(crate) fn write_sm(e: impl std::error::Error + 'static) -> StorageError<NodeId> {
    io(ErrorSubject::StateMachine, ErrorVerb::Write, e)
}

/// A snapshot could not be read.
pub(crate) fn read_snapshot(e: impl std::error::Error + 'static) -> StorageError<NodeId> {
    io(ErrorSubject::Snapshot(None), ErrorVerb::Read, e)
}

/// A snapshot could not be written or installed.
pub(crate) fn write_snapshot(e: impl std::error::Error + 'static) -> StorageError<NodeId> {
    io(ErrorSubject::Snapshot(None), ErrorVerb::Write, e)
}

/// A stored record that does not decode: the database holds damaged or foreign data.
pub(crate) fn corrupt(what: &str, e: impl std::fmt::Display) -> cairndb::Error {
    cairndb::Error::corruption("", 0, format!("raft storage: {what}: {e}"))
}
