//! The block-based table (SST) format. See docs/format/sstable.md.
