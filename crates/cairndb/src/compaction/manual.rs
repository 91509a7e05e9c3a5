//! Manual compaction planning: RocksDB's `CompactRange` for leveled trees, as a state machine
//! the database drives one plan at a time.
//!
//! Who calls it: the database, under its lock. It creates a [`ManualCompaction`] for a
//! `compact_range(begin, end)` call, then calls [`ManualCompaction::next`] with the current
//! version; it runs each returned plan (registering it in [`RunningCompactions`]), installs the
//! result, and calls `next` again, until [`ManualStep::Done`]. [`ManualStep::Wait`] means a
//! running compaction holds files the next step needs: call again after one finishes.
//!
//! Semantics (RocksDB's `DBImpl::CompactRange` for `kCompactionStyleLevel`):
//! 1. Start at the first level holding a file that overlaps `[begin, end]`.
//! 2. Compact that level's overlapping files into the next level (L0 into the base level with
//!    dynamic level bytes), in steps of at most `max_compaction_bytes`, then go one level down,
//!    until the output is the last level (dynamic level bytes) or the deepest non-empty level.
//! 3. Then, with [`BottommostLevelCompaction::Force`], compact that level into itself over the
//!    range, so that tombstones there are dropped.
//!
//! [`pick_compact_range`] is one step of 2 or 3 for an explicit level pair, also usable alone.

use super::picker::{max_compaction_bytes, PickerInput};
#[cfg(doc)]
use super::plan::RunningCompactions;
use super::plan::{key_range, CompactionPlan, CompactionReason};
use super::plan_builder::{complete_plan, expand_to_clean_cut};
use super::score::LevelTargets;
use crate::types::user_key;

/// Whether a manual compaction also rewrites the last level it reaches. RocksDB's
/// `BottommostLevelCompaction`, without its `kIfHaveCompactionFilter` (RocksDB's default, which
/// forces the rewrite when a compaction filter is set; here the caller picks `Skip` or `Force`)
/// and `kForceOptimized`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BottommostLevelCompaction {
    /// Stop once the data reached the last level.
    #[default]
    Skip,
    /// Also compact the last level into itself (drops tombstones and obsolete versions there).
    Force,
}

/// What to do next for a manual compaction.
#[derive(Debug, Clone, PartialEq)]
pub enum ManualStep {
    /// Run this plan, install its result, then call `next` again.
    Run(CompactionPlan),
    /// A running compaction holds needed files or output range; call again after it finished.
    Wait,
    /// The range is compacted.
    Done,
}

/// The outcome of one [`pick_compact_range`] step.
#[derive(Debug, Clone, PartialEq)]
pub enum RangeStep {
    /// Compact this; if `resume_from` is set, the range past the plan remains and the next
    /// step starts at that user key.
    Plan {
        /// The plan.
        plan: CompactionPlan,
        /// Where the next step of the same level pair starts, if the plan did not cover the
        /// whole range (it was capped at `max_compaction_bytes`).
        resume_from: Option<Vec<u8>>,
    },
    /// The input level holds nothing in the range.
    Nothing,
    /// Needed files or the output range are in a running compaction.
    Conflict,
}

/// One step of compacting `[begin, end]` (inclusive user keys; `None` unbounded) of
/// `input_level` into `output_level` (`output_level == input_level` compacts the level into
/// itself). RocksDB's `PickCompactionForCompactRange`: for levels >= 1 the inputs are capped so
/// that input and overlapping output bytes stay within `max_compaction_bytes` (at least one
/// file); L0 takes every overlapping file.
///
/// # Panics
/// If a level is out of range or `output_level < input_level`.
pub fn pick_compact_range(
    input: &PickerInput<'_>,
    input_level: usize,
    output_level: usize,
    begin: Option<&[u8]>,
    end: Option<&[u8]>,
) -> RangeStep {
    let v = input.version;
    assert!(output_level >= input_level && output_level < v.num_levels());
    let mut files = v.overlapping_files(input_level, begin, end);
    if files.is_empty() {
        return RangeStep::Nothing;
    }
    if input_level == 0 && input.running.l0_in_progress() {
        return RangeStep::Conflict;
    }
    let mut covers_range = true;
    if input_level > 0 {
        let limit = max_compaction_bytes(input.options);
        let mut total = files[0].size;
        for i in 1..files.len() {
            let (lo, hi) = key_range(v.order(), &files[..=i]).expect("not empty");
            let below: u64 = if output_level == input_level {
                0
            } else {
                v.overlapping_files(output_level, Some(lo), Some(hi))
                    .iter()
                    .map(|f| f.size)
                    .sum()
            };
            total += files[i].size;
            if total + below > limit {
                covers_range = false;
                files.truncate(i);
                break;
            }
        }
    }
    let files = expand_to_clean_cut(v, input_level, files);
    let resume_from = if covers_range {
        None
    } else {
        let (_, hi) = key_range(v.order(), &files).expect("not empty");
        v.files(input_level)
            .iter()
            .map(|f| user_key(&f.smallest))
            .find(|k| v.order().compare(k, hi).is_gt())
            .map(<[u8]>::to_vec)
    };
    let targets = LevelTargets::compute(v, input.options);
    match complete_plan(
        input,
        &targets,
        input_level,
        output_level,
        files,
        CompactionReason::Manual,
        0.0,
    ) {
        Some(mut plan) => {
            if output_level == input_level {
                plan.is_trivial_move = false;
            }
            RangeStep::Plan { plan, resume_from }
        }
        None => RangeStep::Conflict,
    }
}

/// A `compact_range` in progress. See the module contract.
#[derive(Debug, Clone)]
pub struct ManualCompaction {
    begin: Option<Vec<u8>>,
    end: Option<Vec<u8>>,
    bottommost: BottommostLevelCompaction,
    /// Where the current level pair resumes; `None` is `begin`.
    resume_from: Option<Vec<u8>>,
    phase: Phase,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The first overlapping level is not known yet.
    Start,
    /// Compacting `level` down.
    Down {
        level: usize,
    },
    /// Compacting `level` (the last one reached) into itself.
    Bottom {
        level: usize,
    },
    Done,
}

impl ManualCompaction {
    /// A compaction of user keys `[begin, end]` (inclusive; `None` unbounded).
    pub fn new(
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
        bottommost: BottommostLevelCompaction,
    ) -> ManualCompaction {
        ManualCompaction {
            begin: begin.map(<[u8]>::to_vec),
            end: end.map(<[u8]>::to_vec),
            bottommost,
            resume_from: None,
            phase: Phase::Start,
        }
    }

    /// The next step, for the version as it is now.
    pub fn next(&mut self, input: &PickerInput<'_>) -> ManualStep {
        loop {
            match self.phase {
                Phase::Done => return ManualStep::Done,
                Phase::Start => self.start(input),
                Phase::Down { level } => {
                    if self.reached_bottom(input, level) {
                        self.phase =
                            if self.bottommost == BottommostLevelCompaction::Force && level > 0 {
                                Phase::Bottom { level }
                            } else {
                                Phase::Done
                            };
                        self.resume_from = None;
                        continue;
                    }
                    let output = if level == 0 {
                        LevelTargets::compute(input.version, input.options).base_level
                    } else {
                        level + 1
                    };
                    if let Some(step) =
                        self.step(input, level, output, Phase::Down { level: output })
                    {
                        return step;
                    }
                }
                Phase::Bottom { level } => {
                    if let Some(step) = self.step(input, level, level, Phase::Done) {
                        return step;
                    }
                }
            }
        }
    }

    fn start(&mut self, input: &PickerInput<'_>) {
        let v = input.version;
        let (b, e) = (self.begin.as_deref(), self.end.as_deref());
        let first = (0..v.num_levels()).find(|&l| !v.overlapping_files(l, b, e).is_empty());
        self.phase = first.map_or(Phase::Done, |level| Phase::Down { level });
    }

    /// Whether `level` is as deep as the compaction goes. L0 always compacts down once.
    fn reached_bottom(&self, input: &PickerInput<'_>, level: usize) -> bool {
        let v = input.version;
        if level == 0 {
            return v.num_levels() == 1;
        }
        if input.options.level_compaction_dynamic_level_bytes {
            level + 1 == v.num_levels()
        } else {
            let non_empty = (0..v.num_levels()).rev().find(|&l| v.num_files(l) > 0);
            non_empty.is_none_or(|deepest| level >= deepest)
        }
    }

    /// One step of the level pair; `None` when the pair is finished (the phase then moved to
    /// `after`).
    fn step(
        &mut self,
        input: &PickerInput<'_>,
        level: usize,
        output: usize,
        after: Phase,
    ) -> Option<ManualStep> {
        let begin = self.resume_from.as_deref().or(self.begin.as_deref());
        match pick_compact_range(input, level, output, begin, self.end.as_deref()) {
            RangeStep::Conflict => Some(ManualStep::Wait),
            RangeStep::Nothing => {
                self.phase = after;
                self.resume_from = None;
                None
            }
            RangeStep::Plan { plan, resume_from } => {
                match resume_from {
                    Some(key) => self.resume_from = Some(key),
                    None => {
                        self.phase = after;
                        self.resume_from = None;
                    }
                }
                Some(ManualStep::Run(plan))
            }
        }
    }
}
