//! The write-ahead log: record framing in fixed-size blocks. See docs/format/wal.md.
