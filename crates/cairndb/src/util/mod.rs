//! Helpers without domain logic: integer encodings, checksums, and the atomics shim that lets
//! loom check the lock-free code.

pub mod checksum;
pub mod coding;
pub(crate) mod prefetch;
pub(crate) mod sync;
