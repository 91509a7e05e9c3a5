//! Compaction: choosing what to compact (the pickers, pure functions of a version and
//! statistics), merging the inputs (the compaction iterator: snapshots, tombstones, single
//! deletes, merge operands, the compaction filter) and writing the outputs (the job).
//!
//! Design notes: `docs/design/compaction.md`.

pub mod deletion_collector;
pub mod filter;
pub mod filter_bits;
pub mod invariants;
pub mod iter;
pub mod job;
pub mod manual;
pub mod picker;
pub mod picker_fifo;
pub mod picker_universal;
pub mod plan;
pub mod plan_builder;
pub mod score;
pub mod subcompaction;

pub use deletion_collector::{CompactOnDeletion, DeletionCollector};
pub use filter::{
    CompactionFilter, CompactionFilterContext, CompactionFilterFactory, FilterDecision,
};
pub use manual::{BottommostLevelCompaction, ManualCompaction, ManualStep};
pub use picker::{pick_compaction, PickerInput};
pub use plan::{CompactionInputs, CompactionPlan, CompactionReason, RunningCompactions};
pub use score::{compaction_report, CompactionReport, LevelScore, LevelTargets};

#[cfg(test)]
mod picker_tests;
