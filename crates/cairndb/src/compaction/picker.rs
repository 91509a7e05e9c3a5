//! The leveled compaction picker: the choice of the next compaction, by the scores of
//! [`super::score`]. RocksDB's `LevelCompactionPicker`, as a pure function.
//!
//! Who calls it: the database, under its lock, with the current [`Version`] of a column family,
//! its options, the [`RunningCompactions`] and the wall clock (for TTL and periodic compaction).
//! Nothing here does I/O, keeps state or starts threads; the same inputs give the same plan.
//! Design notes: `docs/design/compaction.md`.
//!
//! This file chooses what to compact; [`super::plan_builder`] turns the chosen files into a full
//! plan (clean cut, output-level files, grandparents, flags).
//!
//! Invariants: every plan returned satisfies the contract of [`super::plan`] (checked by
//! [`CompactionPlan::check`] in the tests, on random trees).

use std::sync::Arc;

use super::plan::RunningCompactions;
use super::plan::{key_range, ranges_overlap, CompactionInputs, CompactionPlan, CompactionReason};
use super::plan_builder::{build_plan, complete_plan, expand_to_clean_cut, Files};
use super::score::{compaction_report, multiply, CompactionReport, LevelTargets};
use crate::options::{CfOptions, CompactionPri, CompactionStyle};
use crate::types::user_key;
use crate::version::{FileMetaData, Version};

/// Fewest L0 files an intra-L0 compaction merges (RocksDB's `kMinFilesForIntraL0Compaction`).
const MIN_FILES_FOR_INTRA_L0: usize = 4;
/// Most files a trivial move out of a level >= 1 is extended to.
const MAX_MULTI_TRIVIAL_MOVE: usize = 4;

/// What the pickers look at.
#[derive(Debug, Clone, Copy)]
pub struct PickerInput<'a> {
    /// The column family's current file set.
    pub version: &'a Version,
    /// The column family's options.
    pub options: &'a CfOptions,
    /// The compactions running now; their inputs and output ranges are off limits.
    pub running: &'a RunningCompactions,
    /// Now, in seconds since the Unix epoch (for `ttl` and `periodic_compaction_seconds`).
    pub now_secs: u64,
}

/// The next compaction to run for the column family, if any is needed and possible: dispatches on
/// `compaction_style`, with `compaction_options_universal` / `compaction_options_fifo`. `None`
/// with `disable_auto_compactions`.
pub fn pick_compaction(input: &PickerInput<'_>) -> Option<CompactionPlan> {
    if input.options.disable_auto_compactions {
        return None;
    }
    match input.options.compaction_style {
        CompactionStyle::Level => pick_leveled(input),
        CompactionStyle::Universal => super::picker_universal::pick_universal(
            input,
            &input.options.compaction_options_universal,
        ),
        CompactionStyle::Fifo => {
            super::picker_fifo::pick_fifo(input, &input.options.compaction_options_fifo)
        }
    }
}

/// `max_compaction_bytes`, 0 resolved to RocksDB's default, 25 target files.
pub fn max_compaction_bytes(options: &CfOptions) -> u64 {
    options.effective_max_compaction_bytes()
}

/// The leveled picker (RocksDB's `LevelCompactionBuilder::PickCompaction`): size-triggered
/// compactions by score, intra-L0 when L0 → base is blocked, then files marked for compaction,
/// then TTL, then periodic.
pub fn pick_leveled(input: &PickerInput<'_>) -> Option<CompactionPlan> {
    let report = compaction_report(input.version, input.options, input.running);
    let p = LevelPicker {
        input,
        targets: &report.targets,
        l0_score: report.levels[0].score,
    };
    p.pick_by_score(&report)
        .or_else(|| p.pick_marked())
        .or_else(|| p.pick_ttl())
        .or_else(|| p.pick_periodic())
}

/// One picking pass: the inputs and the targets they were computed for.
struct LevelPicker<'a, 'b> {
    input: &'a PickerInput<'b>,
    targets: &'a LevelTargets,
    /// L0's score, which intra-L0 plans report.
    l0_score: f64,
}

impl LevelPicker<'_, '_> {
    fn version(&self) -> &Version {
        self.input.version
    }

    fn busy(&self, f: &FileMetaData) -> bool {
        self.input.running.is_being_compacted(f.number)
    }

    fn any_busy(&self, files: &[Arc<FileMetaData>]) -> bool {
        files.iter().any(|f| self.busy(f))
    }

    fn last_level(&self) -> usize {
        self.version().num_levels() - 1
    }

    fn num_non_empty_levels(&self) -> usize {
        num_non_empty_levels(self.version())
    }

    fn output_level_for(&self, start_level: usize) -> usize {
        if start_level == 0 {
            self.targets.base_level
        } else {
            start_level + 1
        }
    }

    fn pick_by_score(&self, report: &CompactionReport) -> Option<CompactionPlan> {
        let mut skipped_l0_to_base = false;
        for (level, score) in report.levels_by_score() {
            if score < 1.0 {
                break;
            }
            if skipped_l0_to_base && level == self.targets.base_level {
                // L0 → base is waiting: base → base+1 now would starve it.
                continue;
            }
            let reason = if level == 0 {
                CompactionReason::LevelL0FilesNum
            } else {
                CompactionReason::LevelMaxBytes
            };
            if let Some(plan) = self.pick_from_level(level, reason, score) {
                return Some(plan);
            }
            if level == 0 {
                skipped_l0_to_base = true;
                if let Some(plan) = self.pick_intra_l0() {
                    return Some(plan);
                }
            }
        }
        None
    }

    /// A size-triggered compaction out of `level`: the first file in `compaction_pri` order that
    /// can be compacted with everything it drags in.
    fn pick_from_level(
        &self,
        level: usize,
        reason: CompactionReason,
        score: f64,
    ) -> Option<CompactionPlan> {
        let output = self.output_level_for(level);
        if level == 0 && self.input.running.l0_in_progress() {
            return self.pick_size_based_intra_l0();
        }
        if level == 0 {
            if let Some(files) = self.l0_trivial_move_files(output) {
                let inputs = vec![CompactionInputs { level: 0, files }];
                return Some(self.plan(inputs, output, Vec::new(), reason, score));
            }
            if let Some(plan) = self.pick_size_based_intra_l0() {
                return Some(plan);
            }
        }
        self.pick_in_pri_order(level, output, reason, score)
    }

    /// The first file of `level` in `compaction_pri` order that can be compacted into `output`
    /// with everything it drags in. With `kRoundRobin` out of a level >= 1, a size-triggered
    /// plan is expanded over the following files ([`Self::round_robin_expand`]) and every plan
    /// carries the level's next cursor.
    fn pick_in_pri_order(
        &self,
        level: usize,
        output: usize,
        reason: CompactionReason,
        score: f64,
    ) -> Option<CompactionPlan> {
        let round_robin = self.input.options.compaction_pri == CompactionPri::RoundRobin;
        let files = self.version().files(level);
        for index in files_by_compaction_pri(self.input, level, output) {
            let f = &files[index];
            if self.busy(f) {
                // RocksDB stops at a busy file under round robin (a TODO there); a busy file is
                // in a compaction that will rewrite or move it, so the walk goes on past it and
                // the file's range comes up again in the next round.
                continue;
            }
            let Some(mut inputs) = self.clean_cut(level, vec![Arc::clone(f)]) else {
                continue;
            };
            let moves = level > 0 && self.next_level_overlap(output, &inputs).is_empty();
            if moves {
                inputs = self.extend_trivial_move(level, output, index, inputs, round_robin);
            } else if round_robin && level > 0 && reason == CompactionReason::LevelMaxBytes {
                inputs = self.round_robin_expand(level, output, inputs);
            }
            if let Some(mut plan) = self.finish(level, output, inputs, reason, score) {
                if round_robin && level > 0 {
                    plan.compact_cursor = Some(next_compact_cursor(files, &plan.inputs[0].files));
                }
                return Some(plan);
            }
        }
        None
    }

    /// RocksDB's `SetupOtherFilesWithRoundRobinExpansion`: a round-robin compaction out of
    /// `level` takes the files that follow its first one in key order (never wrapping to the
    /// level's start), while none is busy or collides with a running compaction's output range,
    /// the start and output files together stay within `max_compaction_bytes`, and the start
    /// level still exceeds its target by more than the bytes taken so far. Not called for a
    /// trivial move, which RocksDB does not expand either (its "constraint 4").
    fn round_robin_expand(&self, level: usize, output: usize, inputs: Files) -> Files {
        let v = self.version();
        let files = v.files(level);
        let idle_bytes: u64 = files.iter().filter(|f| !self.busy(f)).map(|f| f.size).sum();
        let excess = idle_bytes.saturating_sub(self.targets.target(level));
        if inputs[0].size >= excess {
            return inputs;
        }
        let limit = max_compaction_bytes(self.input.options);
        let last = inputs.last().expect("inputs are not empty").number;
        let next = files
            .iter()
            .position(|f| f.number == last)
            .map_or(files.len(), |i| i + 1);
        let mut picked = inputs;
        for f in &files[next..] {
            if self.busy(f) {
                break;
            }
            let mut candidate = picked.clone();
            candidate.push(Arc::clone(f));
            let candidate = expand_to_clean_cut(v, level, candidate);
            let (lo, hi) = key_range(v.order(), &candidate).expect("not empty");
            if self.any_busy(&candidate)
                || self
                    .input
                    .running
                    .output_overlaps(v.order(), output, lo, hi)
            {
                break;
            }
            let mut below = v.overlapping_files(output, Some(lo), Some(hi));
            if !below.is_empty() {
                below = expand_to_clean_cut(v, output, below);
            }
            if self.any_busy(&below) {
                break;
            }
            let start_bytes: u64 = candidate.iter().map(|f| f.size).sum();
            let below_bytes: u64 = below.iter().map(|f| f.size).sum();
            if start_bytes.saturating_add(below_bytes) > limit {
                break;
            }
            picked = candidate;
            if start_bytes > excess {
                break;
            }
        }
        picked
    }

    /// Expands `files` of `level` until no file left in the level shares a user key with them
    /// (for L0: every L0 file overlapping their range, transitively). `None` if that pulls in a
    /// file of a running compaction.
    fn clean_cut(&self, level: usize, files: Files) -> Option<Files> {
        let expanded = expand_to_clean_cut(self.version(), level, files);
        (!self.any_busy(&expanded)).then_some(expanded)
    }

    fn next_level_overlap(&self, output: usize, inputs: &[Arc<FileMetaData>]) -> Files {
        let v = self.version();
        let (lo, hi) = key_range(v.order(), inputs).expect("inputs are not empty");
        v.overlapping_files(output, Some(lo), Some(hi))
    }

    /// RocksDB's `TryPickL0TrivialMove`: the oldest L0 files, as long as they overlap neither
    /// each other nor the (non-empty) output level, move down without a rewrite.
    fn l0_trivial_move_files(&self, output: usize) -> Option<Files> {
        let v = self.version();
        if output == 0
            || v.num_files(output) == 0
            || self.input.options.has_per_level_table_settings()
        {
            return None;
        }
        let mut picked: Files = Vec::new();
        for f in v.files(0).iter().rev() {
            if self.busy(f) || picked.iter().any(|p| ranges_overlap(v.order(), p, f)) {
                break;
            }
            let mut candidate = picked.clone();
            candidate.push(Arc::clone(f));
            let (lo, hi) = key_range(v.order(), &candidate).expect("not empty");
            // A running compaction writing into this range of the output level (a manual
            // compaction of the level into itself) would collide with the moved files.
            if !v.overlapping_files(output, Some(lo), Some(hi)).is_empty()
                || self
                    .input
                    .running
                    .output_overlaps(v.order(), output, lo, hi)
            {
                break;
            }
            picked = candidate;
        }
        if picked.is_empty() {
            return None;
        }
        // Back to the L0 order (newest first), which every plan uses for L0 inputs.
        picked.reverse();
        Some(picked)
    }

    /// RocksDB's `TryExtendNonL0TrivialMove`: grows a one-file trivial move out of a level >= 1
    /// to up to 4 neighbouring files that also overlap nothing below, within
    /// `max_compaction_bytes`; towards larger keys only when `only_right` (round robin, whose
    /// walk goes that way).
    fn extend_trivial_move(
        &self,
        level: usize,
        output: usize,
        index: usize,
        inputs: Files,
        only_right: bool,
    ) -> Files {
        if inputs.len() != 1 || self.input.options.has_per_level_table_settings() {
            return inputs;
        }
        let files = self.version().files(level);
        let limit = max_compaction_bytes(self.input.options);
        let (mut first, mut last) = (index, index);
        let mut total = files[index].size;
        let fits = |first: usize, last: usize, total: u64| {
            let run = &files[first..=last];
            total <= limit
                && !self.any_busy(run)
                && self.next_level_overlap(output, run).is_empty()
                && expand_to_clean_cut(self.version(), level, run.to_vec()).len() == run.len()
        };
        while last + 1 < files.len() && last - first + 1 < MAX_MULTI_TRIVIAL_MOVE {
            if !fits(first, last + 1, total + files[last + 1].size) {
                break;
            }
            last += 1;
            total += files[last].size;
        }
        while !only_right && first > 0 && last - first + 1 < MAX_MULTI_TRIVIAL_MOVE {
            if !fits(first - 1, last, total + files[first - 1].size) {
                break;
            }
            first -= 1;
            total += files[first].size;
        }
        files[first..=last].to_vec()
    }

    /// RocksDB's `PickIntraL0Compaction`, when L0 → base could not be picked: the newest L0
    /// files, while merging one more still lowers the bytes written per file removed.
    fn pick_intra_l0(&self) -> Option<CompactionPlan> {
        let l0 = self.version().files(0);
        let trigger = self.input.options.level0_file_num_compaction_trigger as usize;
        if l0.len() < trigger + 2 || self.busy(&l0[0]) {
            return None;
        }
        let limit = max_compaction_bytes(self.input.options);
        let files = cost_based_intra_l0(
            l0,
            self.input.running,
            MIN_FILES_FOR_INTRA_L0,
            u64::MAX,
            limit,
        )?;
        self.intra_l0_plan(files)
    }

    /// RocksDB's `PickSizeBasedIntraL0Compaction`: when the base level is so much larger than
    /// L0 that L0 → base would mostly rewrite base data, merge L0 into itself instead.
    fn pick_size_based_intra_l0(&self) -> Option<CompactionPlan> {
        let v = self.version();
        let base = self.targets.base_level;
        if base == 0 {
            return None;
        }
        let opts = self.input.options;
        let min_files = (opts.level0_file_num_compaction_trigger as usize).max(2);
        let l0 = v.files(0);
        if l0.len() < min_files {
            return None;
        }
        let factor = opts.max_bytes_for_level_multiplier.max(10.0) * 2.0;
        let min_base = multiply(v.level_bytes(0), factor);
        if v.level_bytes(base) <= min_base {
            return None;
        }
        let files: Files = l0.iter().take_while(|f| !self.busy(f)).cloned().collect();
        if files.len() < min_files {
            return None;
        }
        self.intra_l0_plan(files)
    }

    fn intra_l0_plan(&self, files: Files) -> Option<CompactionPlan> {
        let inputs = vec![CompactionInputs { level: 0, files }];
        Some(self.plan(
            inputs,
            0,
            Vec::new(),
            CompactionReason::IntraL0,
            self.l0_score,
        ))
    }

    /// RocksDB's `PickFilesMarkedForCompaction`: a file marked for compaction (many
    /// deletions), not in the last non-empty level (where compacting it down would only move
    /// it), compacted one level down (L0: into the base level).
    fn pick_marked(&self) -> Option<CompactionPlan> {
        let last_qualifying = self.num_non_empty_levels().saturating_sub(2);
        for level in 0..=last_qualifying {
            if level == 0 && self.input.running.l0_in_progress() {
                continue;
            }
            for f in self.version().files(level) {
                if !f.marked_for_compaction || self.busy(f) {
                    continue;
                }
                let output = self.output_level_for(level);
                let reason = CompactionReason::FilesMarkedForCompaction;
                if let Some(plan) = self.try_file(level, output, f, reason) {
                    return Some(plan);
                }
            }
        }
        None
    }

    /// TTL: a file (not in the last non-empty level) whose oldest data is older than `ttl` is
    /// compacted one level down.
    fn pick_ttl(&self) -> Option<CompactionPlan> {
        let ttl = self.input.options.effective_ttl();
        let now = self.input.now_secs;
        if ttl == 0 || ttl > now {
            return None;
        }
        let deadline = now - ttl;
        if let Some(plan) = self.pick_round_robin_ttl(deadline) {
            return Some(plan);
        }
        let skip_level = self.num_non_empty_levels().saturating_sub(1);
        for level in 0..self.last_level() {
            if level == skip_level {
                continue;
            }
            for f in self.version().files(level) {
                let expired = f
                    .oldest_ancester_time
                    .is_some_and(|t| t > 0 && t < deadline);
                if !expired || self.busy(f) {
                    continue;
                }
                let output = self.output_level_for(level);
                if let Some(plan) = self.try_file(level, output, f, CompactionReason::Ttl) {
                    return Some(plan);
                }
            }
        }
        None
    }

    /// RocksDB's round-robin TTL pick: with `kRoundRobin`, when the shallowest level (above the
    /// last) holding an expired file that is not being compacted is a level >= 1, that level's
    /// next file in round-robin order is compacted down and the cursor moves on, rather than
    /// the expired file itself: the walk reaches every file of the level in turn.
    fn pick_round_robin_ttl(&self, deadline: u64) -> Option<CompactionPlan> {
        if self.input.options.compaction_pri != CompactionPri::RoundRobin {
            return None;
        }
        let expired = |f: &FileMetaData| {
            f.oldest_ancester_time
                .is_some_and(|t| t > 0 && t < deadline)
                && !self.busy(f)
        };
        let level =
            (0..self.last_level()).find(|&l| self.version().files(l).iter().any(|f| expired(f)))?;
        if level == 0 {
            return None;
        }
        let output = self.output_level_for(level);
        self.pick_in_pri_order(level, output, CompactionReason::RoundRobinTtl, 0.0)
    }

    /// Periodic: a file created longer than `periodic_compaction_seconds` ago is rewritten, one
    /// level down with dynamic level bytes (in place in the last non-empty level), in place
    /// otherwise.
    fn pick_periodic(&self) -> Option<CompactionPlan> {
        let period = self.input.options.effective_periodic_compaction_seconds();
        let now = self.input.now_secs;
        if period == 0 || period > now {
            return None;
        }
        let deadline = now - period;
        let last_non_empty = self.num_non_empty_levels().saturating_sub(1);
        for level in 0..=self.last_level() {
            for f in self.version().files(level) {
                let born = f
                    .creation_time
                    .filter(|&t| t > 0)
                    .or(f.oldest_ancester_time);
                if !born.is_some_and(|t| t > 0 && t < deadline) || self.busy(f) {
                    continue;
                }
                let output = if self.input.options.level_compaction_dynamic_level_bytes
                    && level < last_non_empty
                {
                    self.output_level_for(level)
                } else {
                    level
                };
                if let Some(plan) = self.try_file(level, output, f, CompactionReason::Periodic) {
                    return Some(plan);
                }
            }
        }
        None
    }

    fn try_file(
        &self,
        level: usize,
        output: usize,
        f: &Arc<FileMetaData>,
        reason: CompactionReason,
    ) -> Option<CompactionPlan> {
        let inputs = self.clean_cut(level, vec![Arc::clone(f)])?;
        self.finish(level, output, inputs, reason, 0.0)
    }

    /// Completes a compaction from clean-cut `inputs` of `level` into `output`: the output
    /// level's overlapping files, a possible growth of the start level that takes no more output
    /// files, the conflict check against running compactions, grandparents and flags.
    fn finish(
        &self,
        level: usize,
        output: usize,
        inputs: Files,
        reason: CompactionReason,
        score: f64,
    ) -> Option<CompactionPlan> {
        complete_plan(
            self.input,
            self.targets,
            level,
            output,
            inputs,
            reason,
            score,
        )
    }

    fn plan(
        &self,
        inputs: Vec<CompactionInputs>,
        output: usize,
        grandparents: Files,
        reason: CompactionReason,
        score: f64,
    ) -> CompactionPlan {
        build_plan(
            self.input,
            self.targets,
            inputs,
            output,
            grandparents,
            reason,
            score,
        )
    }
}

/// RocksDB's `PickCostBasedIntraL0Compaction`: the newest L0 files (`l0` in L0 order), while
/// merging one more lowers the bytes written per file removed, none is busy and the total stays
/// within `max_compaction_bytes`. At least `min_files`, and fewer bytes per removed file than
/// `max_bytes_per_deleted_file`.
pub(crate) fn cost_based_intra_l0(
    l0: &[Arc<FileMetaData>],
    running: &RunningCompactions,
    min_files: usize,
    max_bytes_per_deleted_file: u64,
    max_compaction_bytes: u64,
) -> Option<Files> {
    let busy = |f: &FileMetaData| running.is_being_compacted(f.number);
    if l0.is_empty() || busy(&l0[0]) {
        return None;
    }
    let mut bytes = l0[0].size;
    let mut per_deleted_file = u64::MAX;
    let mut end = 1;
    while end < l0.len() {
        let next_bytes = bytes + l0[end].size;
        let next_per_file = next_bytes / end as u64;
        if busy(&l0[end]) || next_per_file > per_deleted_file || next_bytes > max_compaction_bytes {
            break;
        }
        bytes = next_bytes;
        per_deleted_file = next_per_file;
        end += 1;
    }
    (end >= min_files && per_deleted_file < max_bytes_per_deleted_file).then(|| l0[..end].to_vec())
}

/// The indexes of `level`'s files in the order `compaction_pri` tries them. Ties go to the file
/// with the smaller keys (RocksDB does the same for `kMinOverlappingRatio`; it helps trivial
/// moves extend).
pub fn files_by_compaction_pri(input: &PickerInput<'_>, level: usize, output: usize) -> Vec<usize> {
    let v = input.version;
    let files = v.files(level);
    let mut order: Vec<usize> = (0..files.len()).collect();
    let by_key =
        |a: &usize, b: &usize| user_key(&files[*a].smallest).cmp(user_key(&files[*b].smallest));
    match input.options.compaction_pri {
        CompactionPri::ByCompensatedSize => {
            let size: Vec<u64> = files.iter().map(|f| v.compensated_size(f)).collect();
            order.sort_by(|a, b| size[*b].cmp(&size[*a]).then(by_key(a, b)));
        }
        CompactionPri::OldestLargestSeqFirst => {
            order.sort_by(|a, b| {
                files[*a]
                    .largest_seqno
                    .cmp(&files[*b].largest_seqno)
                    .then(by_key(a, b))
            });
        }
        CompactionPri::OldestSmallestSeqFirst => {
            order.sort_by(|a, b| {
                files[*a]
                    .smallest_seqno
                    .cmp(&files[*b].smallest_seqno)
                    .then(by_key(a, b))
            });
        }
        CompactionPri::RoundRobin => return round_robin_order(v, level),
        CompactionPri::MinOverlappingRatio => {
            let booster = TtlBooster::new(
                input.now_secs,
                input.options.effective_ttl(),
                num_non_empty_levels(v),
                level,
            );
            let ratio: Vec<u128> = files
                .iter()
                .map(|f| overlapping_ratio(v, f, output) / u128::from(booster.boost(f)))
                .collect();
            // Files marked for compaction go first (RocksDB's `SortFileByOverlappingRatio`).
            order.sort_by(|a, b| {
                (files[*b]
                    .marked_for_compaction
                    .cmp(&files[*a].marked_for_compaction))
                .then(ratio[*a].cmp(&ratio[*b]))
                .then(by_key(a, b))
            });
        }
    }
    order
}

/// RocksDB's `SortFileByRoundRobin`: the files of a level >= 1 from the first one whose
/// smallest user key is not below the level's cursor, to the level's end, then from the level's
/// start (wrapping); in key order when the level has no cursor or no file at or after it. L0
/// files overlap, so L0 goes oldest first (by smallest sequence number), as RocksDB does.
fn round_robin_order(v: &Version, level: usize) -> Vec<usize> {
    let files = v.files(level);
    let n = files.len();
    if level == 0 {
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| (files[i].smallest_seqno, files[i].number));
        return order;
    }
    let start = v.compact_cursor(level).map_or(0, |cursor| {
        let cursor = user_key(cursor);
        let o = v.order();
        let i = files.partition_point(|f| o.compare(user_key(&f.smallest), cursor).is_lt());
        if i == n {
            0
        } else {
            i
        }
    });
    (start..n).chain(0..start).collect()
}

/// The cursor a round-robin compaction of `inputs` (a run of consecutive files of `files`, a
/// level >= 1) leaves: the smallest key of the file after the run, wrapping to the level's first
/// file (RocksDB's `GetNextCompactCursor`).
fn next_compact_cursor(files: &[Arc<FileMetaData>], inputs: &[Arc<FileMetaData>]) -> Vec<u8> {
    let last = inputs.last().expect("inputs are not empty").number;
    let next = files
        .iter()
        .position(|f| f.number == last)
        .map_or(0, |i| i + 1);
    files.get(next).unwrap_or(&files[0]).smallest.clone()
}

/// The deepest level holding files, plus one (RocksDB's `num_non_empty_levels`).
fn num_non_empty_levels(v: &Version) -> usize {
    (0..v.num_levels())
        .rev()
        .find(|&l| v.num_files(l) > 0)
        .map_or(0, |l| l + 1)
}

/// RocksDB's `FileTtlBooster`: with a `ttl`, `kMinOverlappingRatio` divides the overlapping
/// ratio of a file whose data passed a level-dependent age by a growing factor, so old data moves
/// down before the TTL compaction itself must force it. Nothing is boosted before half the TTL;
/// each level's boost starts later the deeper the level (the range halves per level from the
/// second-to-last non-empty level up), reaching 16 when the next level's begins. L0 and the last
/// two non-empty levels are never boosted.
#[derive(Debug)]
struct TtlBooster {
    now: u64,
    /// `None`: disabled; else (age where boosting starts, age per boost step).
    start_and_step: Option<(u64, u64)>,
}

impl TtlBooster {
    fn new(now: u64, ttl: u64, num_non_empty_levels: usize, level: usize) -> TtlBooster {
        let start_and_step =
            (ttl > 0 && level > 0 && level + 1 < num_non_empty_levels).then(|| {
                let all_start = ttl / 2;
                let all_range = (ttl / 32 * 31).saturating_sub(all_start);
                let shift = (num_non_empty_levels - level - 1).min(63) as u32;
                let range = all_range >> shift;
                (all_start + range, (range / 16).max(1))
            });
        TtlBooster {
            now,
            start_and_step,
        }
    }

    /// The factor `f`'s overlapping ratio is divided by: 1, or more once its oldest data is older
    /// than the start age. Files without a known data age are not boosted.
    fn boost(&self, f: &FileMetaData) -> u64 {
        let Some((start, step)) = self.start_and_step else {
            return 1;
        };
        match f.oldest_ancester_time.or(f.creation_time) {
            Some(born) if born > 0 && born < self.now && self.now - born > start => {
                (self.now - born - start) / step + 1
            }
            _ => 1,
        }
    }
}

/// Bytes of `output` overlapping `f`, per KiB of `f` (RocksDB's `overlapping_bytes * 1024 /
/// compensated_file_size`): the write amplification of compacting `f` down, made smaller for a
/// file of deletions, whose compaction frees space below.
pub fn overlapping_ratio(version: &Version, f: &FileMetaData, output: usize) -> u128 {
    if output >= version.num_levels() || output == 0 {
        return 0;
    }
    let (lo, hi) = (user_key(&f.smallest), user_key(&f.largest));
    let overlap: u64 = version
        .overlapping_files(output, Some(lo), Some(hi))
        .iter()
        .map(|g| g.size)
        .sum();
    u128::from(overlap) * 1024 / u128::from(version.compensated_size(f).max(1))
}
