//! The plan builders: from the input files a picker chose to a full [`CompactionPlan`]. They
//! widen the choice to what a correct compaction must take (a clean cut, the overlapping files of
//! the output level), add what the job needs (grandparents, target file size) and derive the
//! flags (trivial move, bottommost). RocksDB's `SetupOtherInputs` and the `Compaction`
//! constructor's derived fields.
//!
//! Who calls it: the pickers ([`super::picker`], [`super::picker_universal`],
//! [`super::picker_fifo`], [`super::manual`]), under the database lock, after they chose what to
//! compact. Pure like the pickers: it reads the [`Version`], the options and the
//! [`RunningCompactions`](super::plan::RunningCompactions) in a [`PickerInput`], does no I/O and
//! keeps no state. Design notes: `docs/design/compaction.md` (Part 1).
//!
//! Invariants (numbered as in [`super::plan`]): `complete_plan` returns only plans that keep
//! all of them; it returns `None` rather than a plan that would take a busy file (1) or overlap a
//! running compaction's output range (6). `expand_to_clean_cut` establishes the clean cut (2),
//! `grandparents` takes files only from below the output level inside the range (4), and
//! `build_plan` sets `is_trivial_move` only when the move keeps every level disjoint (5).

use super::filter_bits::output_filter_bits;
use std::sync::Arc;

use super::picker::{max_compaction_bytes, PickerInput};
use super::plan::{key_range, ranges_overlap, CompactionInputs, CompactionPlan, CompactionReason};
use super::score::LevelTargets;
use crate::options::{CfOptions, CompactionPri};
use crate::types::user_key;
use crate::version::{FileMetaData, Version};

/// Files of one level, in level order.
pub(crate) type Files = Vec<Arc<FileMetaData>>;

/// The target size of files written to `level` (RocksDB's `MaxFileSizeForLevel`):
/// `target_file_size_base * target_file_size_multiplier^(n - 1)`, where `n` is the level, or with
/// dynamic level bytes the distance from the base level. L0 outputs (intra-L0) are one file.
pub fn target_file_size(options: &CfOptions, level: usize, base_level: usize) -> u64 {
    if level == 0 {
        return u64::MAX;
    }
    let n = if options.level_compaction_dynamic_level_bytes && level >= base_level {
        level - base_level
    } else {
        level
    };
    let mut size = options.target_file_size_base;
    for _ in 1..n {
        size = size.saturating_mul(u64::from(options.target_file_size_multiplier));
    }
    size
}

/// Expands `files` of `level` until no file left in the level shares a user key with them (for
/// L0: every L0 file overlapping their range, transitively): a clean cut (plan invariant 2), in
/// level order. Requires `files` non-empty and in `level`.
pub(crate) fn expand_to_clean_cut(version: &Version, level: usize, files: Files) -> Files {
    let mut files = files;
    loop {
        let o = version.order();
        let (lo, hi) = key_range(o, &files).expect("inputs are not empty");
        let expanded = version.overlapping_files(level, Some(lo), Some(hi));
        let same = key_range(o, &expanded) == Some((lo, hi)) && expanded.len() == files.len();
        files = expanded;
        if same {
            return files;
        }
    }
}

/// Completes a compaction from clean-cut `inputs` of `level` into `output`: the output level's
/// overlapping files, a possible growth of the start level that takes no more output files
/// ([`grow_start_level`]), the conflict check against running compactions, grandparents and the
/// derived fields ([`build_plan`]). `None` when a file it needs is busy or the range overlaps the
/// output range of a running compaction at `output`. Used by the leveled and the manual picker.
pub(crate) fn complete_plan(
    input: &PickerInput<'_>,
    targets: &LevelTargets,
    level: usize,
    output: usize,
    inputs: Files,
    reason: CompactionReason,
    score: f64,
) -> Option<CompactionPlan> {
    let v = input.version;
    let busy = |files: &[Arc<FileMetaData>]| {
        files
            .iter()
            .any(|f| input.running.is_being_compacted(f.number))
    };
    let mut inputs = if level == 0 && output != 0 {
        expand_to_clean_cut(v, 0, inputs)
    } else {
        inputs
    };
    if busy(&inputs) {
        return None;
    }
    let mut output_files = Vec::new();
    if output != level {
        let (lo, hi) = key_range(v.order(), &inputs).expect("inputs are not empty");
        output_files = v.overlapping_files(output, Some(lo), Some(hi));
        if !output_files.is_empty() {
            output_files = expand_to_clean_cut(v, output, output_files);
        }
        if busy(&output_files) {
            return None;
        }
        if !output_files.is_empty() {
            // RocksDB's `only_expand_towards_right` for round-robin size compactions: the walk
            // must not take files before its cursor.
            let only_right = input.options.compaction_pri == CompactionPri::RoundRobin
                && reason == CompactionReason::LevelMaxBytes;
            inputs = grow_start_level(input, level, output, inputs, &output_files, only_right);
        }
    }
    let mut levels = vec![CompactionInputs {
        level,
        files: inputs,
    }];
    if !output_files.is_empty() {
        levels.push(CompactionInputs {
            level: output,
            files: output_files,
        });
    }
    let all = levels.iter().flat_map(|l| l.files.iter());
    let (lo, hi) = key_range(v.order(), all).expect("inputs are not empty");
    if output != 0 && input.running.output_overlaps(v.order(), output, lo, hi) {
        return None;
    }
    let grandparents = if output == 0 {
        Vec::new()
    } else {
        grandparents(v, output, lo, hi)
    };
    Some(build_plan(
        input,
        targets,
        levels,
        output,
        grandparents,
        reason,
        score,
    ))
}

/// RocksDB's second half of `SetupOtherInputs`: take more start-level files when that does not
/// take more output-level files (less write amplification per byte moved down), within
/// `2 * max_compaction_bytes` and without splitting a user key or touching a running compaction.
/// With `only_right`, only files after the inputs are taken.
fn grow_start_level(
    input: &PickerInput<'_>,
    level: usize,
    output: usize,
    inputs: Files,
    output_files: &[Arc<FileMetaData>],
    only_right: bool,
) -> Files {
    let v = input.version;
    let busy = |files: &[Arc<FileMetaData>]| {
        files
            .iter()
            .any(|f| input.running.is_being_compacted(f.number))
    };
    let limit = max_compaction_bytes(input.options).saturating_mul(2);
    let out_bytes: u64 = output_files.iter().map(|f| f.size).sum();
    let o = v.order();
    let (mut lo, hi) = key_range(o, inputs.iter().chain(output_files)).expect("not empty");
    if only_right {
        lo = key_range(o, &inputs).expect("not empty").0;
    }
    let candidate = expand_to_clean_cut(v, level, v.overlapping_files(level, Some(lo), Some(hi)));
    let bytes: u64 = candidate.iter().map(|f| f.size).sum();
    if candidate.len() <= inputs.len() || busy(&candidate) || out_bytes + bytes >= limit {
        return inputs;
    }
    let (clo, chi) = key_range(o, &candidate).expect("not empty");
    let new_outputs =
        expand_to_clean_cut(v, output, v.overlapping_files(output, Some(clo), Some(chi)));
    if new_outputs.len() == output_files.len() && !busy(&new_outputs) {
        candidate
    } else {
        inputs
    }
}

/// The files of the first level below `output` that overlap `[lo, hi]`, in key order.
pub(crate) fn grandparents(version: &Version, output: usize, lo: &[u8], hi: &[u8]) -> Files {
    (output + 1..version.num_levels())
        .map(|l| version.overlapping_files(l, Some(lo), Some(hi)))
        .find(|files| !files.is_empty())
        .unwrap_or_default()
}

/// Fills in the derived fields of a plan: target file size, trivial move, bottommost.
pub(crate) fn build_plan(
    input: &PickerInput<'_>,
    targets: &LevelTargets,
    inputs: Vec<CompactionInputs>,
    output: usize,
    grandparents: Files,
    reason: CompactionReason,
    score: f64,
) -> CompactionPlan {
    let opts = input.options;
    let mut plan = CompactionPlan {
        reason,
        inputs,
        output_level: output,
        target_file_size: target_file_size(opts, output, targets.base_level),
        max_compaction_bytes: max_compaction_bytes(opts),
        grandparents,
        is_trivial_move: false,
        is_bottommost: false,
        is_deletion: false,
        score,
        compact_cursor: None,
    };
    plan.is_bottommost = is_bottommost(input.version, &plan);
    plan.is_trivial_move = is_trivial_move(input, &plan);
    if plan.is_trivial_move {
        plan.grandparents.clear();
    }
    plan
}

/// No data the plan does not read can be older than its inputs and share a key with them: no
/// file in a deeper level overlaps the range, and for an L0 output no older L0 file outside the
/// inputs does.
pub(crate) fn is_bottommost(version: &Version, plan: &CompactionPlan) -> bool {
    let o = version.order();
    let (lo, hi) = plan.user_key_range(o);
    let deeper_clear = (plan.output_level + 1..version.num_levels()).all(|l| {
        version
            .overlapping_files(l, Some(&lo), Some(&hi))
            .is_empty()
    });
    if !deeper_clear {
        return false;
    }
    if plan.output_level != 0 {
        return true;
    }
    let inputs: std::collections::HashSet<u64> =
        plan.input_files().map(|(_, f)| f.number).collect();
    let l0 = version.files(0);
    let oldest_input = l0.iter().rposition(|f| inputs.contains(&f.number));
    oldest_input.is_none_or(|i| {
        l0[i + 1..].iter().all(|f| {
            inputs.contains(&f.number)
                || o.compare(user_key(&f.largest), &lo).is_lt()
                || o.compare(user_key(&f.smallest), &hi).is_gt()
        })
    })
}

/// RocksDB's `Compaction::IsTrivialMove`: one input level, another output level, input files
/// disjoint from each other and from the output level, the same compression on both levels, and
/// no moved file overlapping more than `max_compaction_bytes` of the level below the output
/// (moving it would set up an oversized compaction later).
fn is_trivial_move(input: &PickerInput<'_>, plan: &CompactionPlan) -> bool {
    let v = input.version;
    if plan.inputs.len() != 1 || plan.start_level() == plan.output_level || plan.is_deletion {
        return false;
    }
    let opts = input.options;
    let filtered = opts.compaction_filter.is_some() || opts.compaction_filter_factory.is_some();
    if plan.reason == CompactionReason::Manual && filtered {
        // As RocksDB: a manual compaction runs the filter over its inputs, so it must read them.
        return false;
    }
    let last = v.num_levels() - 1;
    let start = plan.start_level();
    let out = plan.output_level;
    if opts.compression_for_level(start, start == last)
        != opts.compression_for_level(out, out == last)
        || output_filter_bits(v, opts, start, start == last)
            != output_filter_bits(v, opts, out, out == last)
    {
        return false;
    }
    let files = &plan.inputs[0].files;
    for (i, f) in files.iter().enumerate() {
        if files[i + 1..]
            .iter()
            .any(|g| ranges_overlap(v.order(), f, g))
        {
            return false;
        }
        let (lo, hi) = (user_key(&f.smallest), user_key(&f.largest));
        if !v
            .overlapping_files(plan.output_level, Some(lo), Some(hi))
            .is_empty()
        {
            return false;
        }
        if plan.output_level < last {
            let below = v.overlapping_files(plan.output_level + 1, Some(lo), Some(hi));
            let bytes: u64 = f.size + below.iter().map(|g| g.size).sum::<u64>();
            if bytes > plan.max_compaction_bytes {
                return false;
            }
        }
    }
    true
}
