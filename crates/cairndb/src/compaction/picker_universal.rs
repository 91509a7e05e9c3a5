//! The universal (tiered) compaction picker: RocksDB's `UniversalCompactionPicker`, as a pure
//! function of a version, options and the running compactions.
//!
//! The tree is a list of *sorted runs*, newest first: every L0 file is one, every non-empty
//! level below is one. A compaction merges adjacent runs (adjacent in age, so that the output
//! keeps the age order) and writes the result one level above the next older run (or into the
//! last level when it merged the oldest run). In order of preference:
//! 1. **Size amplification**: when the runs newer than the oldest hold at least
//!    `max_size_amplification_percent`% of the oldest run's bytes, merge everything (a full
//!    compaction).
//! 2. **Size ratio**: from the newest run, take the following runs while the next one is at
//!    most `(100 + size_ratio)`% of everything taken so far, within
//!    `min_merge_width..=max_merge_width` runs.
//! 3. **Sorted-run count**: with more runs than `level0_file_num_compaction_trigger`, merge the
//!    newest ones to get back to the trigger.
//!
//! Nothing happens while there are fewer runs than the trigger. A run in a running compaction
//! is never taken, and a merge never reaches across it.
//!
//! Not built: periodic compaction, incremental size-amplification compaction, the
//! `kCompactionStopStyleSimilarSize` stop style, `max_read_amp`, trivial moves
//! (`allow_trivial_move`, off by default in RocksDB too), `compression_size_percent`.

use std::sync::Arc;

use super::picker::PickerInput;
use super::plan::{key_range, CompactionInputs, CompactionPlan, CompactionReason};
use super::plan_builder::build_plan;
use super::score::LevelTargets;
use crate::version::FileMetaData;

/// Universal compaction's options. RocksDB's `CompactionOptionsUniversal` (the subset built),
/// with its defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniversalOptions {
    /// Percentage by which a run may be larger than the runs picked before it and still be
    /// merged with them. Default 1.
    pub size_ratio: u32,
    /// Fewest runs a size-ratio compaction merges. Default 2.
    pub min_merge_width: u32,
    /// Most runs a size-ratio compaction merges. Default `u32::MAX`.
    pub max_merge_width: u32,
    /// Size of the newer runs, in percent of the oldest, that triggers a full compaction.
    /// Default 200.
    pub max_size_amplification_percent: u32,
}

impl Default for UniversalOptions {
    fn default() -> Self {
        UniversalOptions {
            size_ratio: 1,
            min_merge_width: 2,
            max_merge_width: u32::MAX,
            max_size_amplification_percent: 200,
        }
    }
}

/// One sorted run: an L0 file, or a whole level.
#[derive(Debug, Clone)]
struct SortedRun {
    level: usize,
    files: Vec<Arc<FileMetaData>>,
    bytes: u64,
    /// `bytes` with deletions weighed extra ([`crate::version::Version::compensated_size`]):
    /// what a run adds to a size-ratio candidate, as in RocksDB.
    compensated: u64,
    busy: bool,
}

/// The sorted runs of the version, newest first.
fn sorted_runs(input: &PickerInput<'_>) -> Vec<SortedRun> {
    let v = input.version;
    let busy = |f: &FileMetaData| input.running.is_being_compacted(f.number);
    let l0 = v.files(0).iter().map(|f| SortedRun {
        level: 0,
        files: vec![Arc::clone(f)],
        bytes: f.size,
        compensated: v.compensated_size(f),
        busy: busy(f),
    });
    let deeper = (1..v.num_levels())
        .filter(|&l| v.num_files(l) > 0)
        .map(|l| SortedRun {
            level: l,
            files: v.files(l).to_vec(),
            bytes: v.level_bytes(l),
            compensated: v.compensated_level_bytes(l),
            busy: v.files(l).iter().any(|f| busy(f)),
        });
    l0.chain(deeper).collect()
}

/// The next universal compaction, if any. See the module contract.
pub fn pick_universal(
    input: &PickerInput<'_>,
    options: &UniversalOptions,
) -> Option<CompactionPlan> {
    let runs = sorted_runs(input);
    let trigger = input.options.level0_file_num_compaction_trigger as usize;
    if runs.is_empty() || runs.len() < trigger {
        return None;
    }
    let score = runs.iter().filter(|r| !r.busy).count() as f64 / trigger.max(1) as f64;
    let pick = |range: (usize, usize), reason| plan_for_runs(input, &runs, range, reason, score);
    if let Some(range) = size_amp_range(&runs, options) {
        if let Some(plan) = pick(range, CompactionReason::UniversalSizeAmplification) {
            return Some(plan);
        }
    }
    let width = options.max_merge_width as usize;
    if let Some(range) = size_ratio_range(&runs, options.size_ratio, width, options) {
        if let Some(plan) = pick(range, CompactionReason::UniversalSizeRatio) {
            return Some(plan);
        }
    }
    let idle = runs.iter().filter(|r| !r.busy).count();
    if idle > trigger {
        let count = (idle - trigger + 1).min(width);
        if let Some(range) = size_ratio_range(&runs, u32::MAX, count, options) {
            return pick(range, CompactionReason::UniversalSortedRunNum);
        }
    }
    None
}

/// Size amplification: the runs `[start, last]` where `last` is the oldest run and `start` is
/// as far up as no busy run intervenes, if the newer ones are big enough relative to the oldest.
fn size_amp_range(runs: &[SortedRun], options: &UniversalOptions) -> Option<(usize, usize)> {
    let last = runs.len() - 1;
    if runs[last].busy {
        return None;
    }
    let mut start = last;
    let mut newer = 0u64;
    while start > 0 && !runs[start - 1].busy {
        newer = newer.saturating_add(runs[start - 1].bytes);
        start -= 1;
    }
    let ratio = u128::from(options.max_size_amplification_percent);
    let needed = start < last && u128::from(newer) * 100 >= ratio * u128::from(runs[last].bytes);
    needed.then_some((start, last + 1))
}

/// RocksDB's `PickCompactionToReduceSortedRuns`: the first (newest) idle run and as many
/// following runs as the size ratio admits, up to `max_runs`; at least `min_merge_width` (and
/// 2) runs, or the search moves on to the next run.
fn size_ratio_range(
    runs: &[SortedRun],
    ratio: u32,
    max_runs: usize,
    options: &UniversalOptions,
) -> Option<(usize, usize)> {
    let min_width = (options.min_merge_width as usize).max(2);
    let mut i = 0;
    while i < runs.len() {
        if runs[i].busy {
            i += 1;
            continue;
        }
        // The candidate's compensated bytes against the next run's real bytes (RocksDB's
        // rule): runs of deletions pull the runs below them into a merge sooner.
        let mut taken = runs[i].compensated as f64;
        let mut count = 1;
        while count < max_runs && i + count < runs.len() {
            let next = &runs[i + count];
            let admits = taken * (100.0 + f64::from(ratio)) / 100.0 >= next.bytes as f64;
            if next.busy || !admits {
                break;
            }
            taken += next.compensated as f64;
            count += 1;
        }
        if count >= min_width {
            return Some((i, i + count));
        }
        i += count;
    }
    None
}

/// The plan merging runs `[start, end)`: the output goes into the last level when the oldest
/// run is merged, else one level above the next older run (L0 if that run is an L0 file).
fn plan_for_runs(
    input: &PickerInput<'_>,
    runs: &[SortedRun],
    (start, end): (usize, usize),
    reason: CompactionReason,
    score: f64,
) -> Option<CompactionPlan> {
    let v = input.version;
    let output = match runs.get(end) {
        None => v.num_levels() - 1,
        Some(next) if next.level == 0 => 0,
        Some(next) => next.level - 1,
    };
    let mut inputs: Vec<CompactionInputs> = Vec::new();
    for run in &runs[start..end] {
        match inputs.last_mut() {
            Some(last) if last.level == run.level => last.files.extend(run.files.iter().cloned()),
            _ => inputs.push(CompactionInputs {
                level: run.level,
                files: run.files.clone(),
            }),
        }
    }
    if output != 0 {
        let all = inputs.iter().flat_map(|i| i.files.iter());
        let (lo, hi) = key_range(v.order(), all).expect("runs are not empty");
        if input.running.output_overlaps(v.order(), output, lo, hi) {
            return None;
        }
    }
    let targets = LevelTargets::compute(v, input.options);
    let mut plan = build_plan(input, &targets, inputs, output, Vec::new(), reason, score);
    // RocksDB's universal compaction moves files only with `allow_trivial_move`, off by default.
    plan.is_trivial_move = false;
    plan.target_file_size = universal_file_size(input, output);
    Some(plan)
}

/// Universal output files: one file in L0, `target_file_size_base * multiplier^(level - 1)`
/// below (RocksDB's `MaxFileSizeForLevel` without dynamic level bytes).
fn universal_file_size(input: &PickerInput<'_>, level: usize) -> u64 {
    if level == 0 {
        return u64::MAX;
    }
    let o = input.options;
    (1..level).fold(o.target_file_size_base, |size, _| {
        size.saturating_mul(u64::from(o.target_file_size_multiplier))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::plan::RunningCompactions;
    use crate::comparator::KeyOrder;
    use crate::options::{CfOptions, CompactionStyle};
    use crate::test_util::file_meta;
    use crate::version::Version;
    use proptest::prelude::*;

    fn file(number: u64, lo: u32, hi: u32, size: u64, seq: u64) -> Arc<FileMetaData> {
        let (lo, hi) = (
            format!("k{lo:04}").into_bytes(),
            format!("k{hi:04}").into_bytes(),
        );
        Arc::new(file_meta(number, &lo, &hi, size, (seq, seq)))
    }

    /// L0 files of the given sizes (newest first), then one file per deeper level given.
    fn tree(l0: &[u64], deeper: &[(usize, u64)]) -> Version {
        let mut levels = vec![Vec::new(); 7];
        let n = l0.len() as u64;
        for (i, &size) in l0.iter().enumerate() {
            levels[0].push(file(i as u64 + 1, 0, 100, size, 1000 + n - i as u64));
        }
        for (i, &(level, size)) in deeper.iter().enumerate() {
            levels[level].push(file(100 + i as u64, 0, 100, size, 100 - i as u64));
        }
        Version::new(levels, KeyOrder::BYTEWISE).expect("valid")
    }

    fn opts() -> CfOptions {
        CfOptions {
            compaction_style: CompactionStyle::Universal,
            level0_file_num_compaction_trigger: 4,
            periodic_compaction_seconds: 0,
            ..CfOptions::default()
        }
    }

    fn pick(v: &Version, r: &RunningCompactions) -> Option<CompactionPlan> {
        let o = opts();
        let input = PickerInput {
            version: v,
            options: &o,
            running: r,
            now_secs: 0,
        };
        let plan = pick_universal(&input, &UniversalOptions::default());
        if let Some(p) = &plan {
            p.check(v, r).unwrap_or_else(|e| panic!("{e}: {p:#?}"));
        }
        plan
    }

    fn levels(p: &CompactionPlan) -> Vec<(usize, usize)> {
        p.inputs.iter().map(|i| (i.level, i.files.len())).collect()
    }

    #[test]
    fn fewer_runs_than_the_trigger_wait() {
        assert_eq!(
            pick(&tree(&[1, 1], &[(6, 100)]), &RunningCompactions::new()),
            None
        );
    }

    #[test]
    fn size_amplification_merges_everything_into_the_last_level() {
        // Newer runs 300 >= 200% of the oldest 100.
        let v = tree(&[100, 100, 100], &[(6, 100)]);
        let p = pick(&v, &RunningCompactions::new()).expect("size amp");
        assert_eq!(p.reason, CompactionReason::UniversalSizeAmplification);
        assert_eq!(levels(&p), vec![(0, 3), (6, 1)]);
        assert_eq!(p.output_level, 6);
        assert!(p.is_bottommost);
    }

    #[test]
    fn size_ratio_merges_similar_newest_runs() {
        // 10, 10, 20 merge (each next run <= 101% of the sum so far); 1000 does not.
        let v = tree(&[10, 10, 20], &[(4, 1000), (6, 100_000)]);
        let p = pick(&v, &RunningCompactions::new()).expect("size ratio");
        assert_eq!(p.reason, CompactionReason::UniversalSizeRatio);
        assert_eq!(levels(&p), vec![(0, 3)]);
        assert_eq!(p.output_level, 3, "one level above the next older run (L4)");
        assert!(!p.is_bottommost);
    }

    #[test]
    fn too_many_runs_merge_the_newest_regardless_of_size() {
        // Sizes grow too fast for the ratio: 1, 10, 100, 1000, 10000 (+ a huge last run so
        // size amp does not fire): 6 runs, trigger 4 → merge 3.
        let v = tree(&[1, 10, 100, 1000, 10_000], &[(6, 10_000_000)]);
        let p = pick(&v, &RunningCompactions::new()).expect("sorted-run count");
        assert_eq!(p.reason, CompactionReason::UniversalSortedRunNum);
        assert_eq!(levels(&p), vec![(0, 3)]);
        assert_eq!(p.output_level, 0, "the next older run is an L0 file");
        assert_eq!(p.target_file_size, u64::MAX);
    }

    #[test]
    fn busy_runs_are_skipped_and_never_bridged() {
        let v = tree(&[10, 10, 10, 10, 10], &[(6, 10_000_000)]);
        let mut r = RunningCompactions::new();
        let first = pick(&v, &r).expect("size ratio over 5 runs");
        assert_eq!(levels(&first), vec![(0, 5)]);
        r.register(&first, &KeyOrder::BYTEWISE);
        assert_eq!(pick(&v, &r), None);
    }

    proptest! {
        #[test]
        fn random_universal_trees_give_valid_plans(
            l0 in prop::collection::vec(1u64..1000, 0..10),
            deeper in prop::collection::vec(1u64..10_000, 0..6),
        ) {
            let deeper: Vec<(usize, u64)> = deeper.iter().enumerate().map(|(i, &s)| (i + 1, s)).collect();
            let v = tree(&l0, &deeper);
            let mut r = RunningCompactions::new();
            let mut n = 0;
            while let Some(p) = pick(&v, &r) {
                // Merged runs are adjacent in age: the inputs are a prefix-free contiguous span.
                prop_assert!(p.output_level >= p.inputs.last().map_or(0, |i| i.level));
                r.register(&p, &KeyOrder::BYTEWISE);
                n += 1;
                prop_assert!(n <= 20);
            }
        }
    }
}
