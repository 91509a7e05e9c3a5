//! Helpers without domain logic: integer encodings and checksums.

pub mod checksum;
pub mod coding;
