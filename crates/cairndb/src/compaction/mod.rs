//! Compaction: choosing what to compact (the pickers, pure functions of a version and
//! statistics), merging the inputs (the compaction iterator: snapshots, tombstones, single
//! deletes, merge operands, the compaction filter) and writing the outputs (the job).
//!
//! Design notes: `docs/design/compaction.md`.

pub mod manual;
pub mod picker;
pub mod picker_fifo;
pub mod picker_universal;
pub mod plan;

#[cfg(test)]
mod picker_tests;
