//! Helpers without domain logic: integer encodings, checksums, the atomics shim that lets
//! loom check the lock-free code, and background threads at a lowered CPU priority.

pub mod checksum;
pub mod coding;
pub(crate) mod prefetch;
pub(crate) mod sync;
pub(crate) mod thread_priority;
