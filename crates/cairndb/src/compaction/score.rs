//! Level targets, compaction scores and the compaction-debt estimate of a tree: RocksDB's
//! `VersionStorageInfo::{CalculateBaseBytes, ComputeCompactionScore,
//! EstimateCompactionBytesNeeded}`, as pure functions.
//!
//! Who calls it: the leveled picker (to choose a level), and the database (for write control and
//! the "Compaction Stats" table), under its lock or not: everything here is a function of a
//! [`Version`], the options and the [`RunningCompactions`]. Design notes:
//! `docs/design/compaction.md`.
//!
//! Invariants:
//! 1. A level's score is `>= 1` exactly when it needs a compaction; the last level has none.
//! 2. With dynamic level bytes, levels between L0 and the base level have no target
//!    (`u64::MAX`), and no target is below `max_bytes_for_level_base`.

use super::plan::RunningCompactions;
use crate::options::{CfOptions, CompactionStyle};
use crate::version::Version;

/// Scores are scaled by this above 1.0 with dynamic level bytes, so that a level can be made less
/// urgent while staying eligible (RocksDB's `kScoreScale`).
const SCORE_SCALE: f64 = 10.0;

/// `a * m` as RocksDB's `MultiplyCheckOverflow`: saturating at `u64::MAX`.
pub(crate) fn multiply(a: u64, m: f64) -> u64 {
    let product = a as f64 * m;
    if product >= u64::MAX as f64 {
        u64::MAX
    } else {
        product as u64
    }
}

/// The target size of every level. RocksDB's `CalculateBaseBytes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LevelTargets {
    /// The level L0 compacts into: 1 with static sizing; with dynamic level bytes the first
    /// level with a target (levels between L0 and it stay empty).
    pub base_level: usize,
    /// Target bytes per level; `u64::MAX` for L0 and for levels above the base level (no
    /// size-triggered compaction out of them).
    pub max_bytes: Vec<u64>,
    /// With dynamic level bytes: the deepest level that holds data but is not needed (the tree
    /// has more non-empty levels than its size calls for, e.g. after data was deleted). Levels
    /// up to it are drained into the base level's direction with a low priority.
    pub lowest_unnecessary_level: Option<usize>,
}

impl LevelTargets {
    /// The targets for `version` under `options`.
    pub fn compute(version: &Version, options: &CfOptions) -> LevelTargets {
        if options.level_compaction_dynamic_level_bytes
            && options.compaction_style == CompactionStyle::Level
        {
            dynamic_targets(version, options)
        } else {
            static_targets(version.num_levels(), options)
        }
    }

    /// The target of `level` (`u64::MAX`: none).
    pub fn target(&self, level: usize) -> u64 {
        self.max_bytes[level]
    }
}

/// Static sizing: L1 = base, each level `multiplier` times the one above.
fn static_targets(num_levels: usize, options: &CfOptions) -> LevelTargets {
    let base = options.max_bytes_for_level_base;
    let mut max_bytes = vec![base; num_levels];
    for l in 2..num_levels {
        max_bytes[l] = multiply(max_bytes[l - 1], options.max_bytes_for_level_multiplier);
    }
    if options.compaction_style == CompactionStyle::Level {
        max_bytes[0] = u64::MAX;
    }
    LevelTargets {
        base_level: 1,
        max_bytes,
        lowest_unnecessary_level: None,
    }
}

/// Dynamic sizing: the largest level's size is the last level's target; each level above is
/// `multiplier` times smaller; the base level is the first whose target would not fall below
/// `max_bytes_for_level_base`, and no target is set below `max_bytes_for_level_base`.
fn dynamic_targets(version: &Version, options: &CfOptions) -> LevelTargets {
    let n = version.num_levels();
    let mult = options.max_bytes_for_level_multiplier;
    let mut max_bytes = vec![u64::MAX; n];
    let first_non_empty = (1..n).find(|&l| version.level_bytes(l) > 0);
    let max_level_size = (1..n).map(|l| version.level_bytes(l)).max().unwrap_or(0);
    let Some(first_non_empty) = first_non_empty else {
        // Nothing below L0: L0 compacts straight into the last level.
        return LevelTargets {
            base_level: n - 1,
            max_bytes,
            lowest_unnecessary_level: None,
        };
    };
    let base_bytes_max = options.max_bytes_for_level_base;
    let base_bytes_min = (base_bytes_max as f64 / mult) as u64;

    let mut cur = max_level_size;
    let mut lowest_unnecessary_level = None;
    for l in (first_non_empty..n - 1).rev() {
        cur = (cur as f64 / mult) as u64;
        if lowest_unnecessary_level.is_none() && cur <= base_bytes_min {
            lowest_unnecessary_level = Some(l);
        }
    }
    let (base_level, base_level_size) = if cur <= base_bytes_min {
        // Sizing the last level by the data leaves the first non-empty level below the
        // minimum: it keeps its place, with the smallest target that is still useful.
        (first_non_empty, base_bytes_min + 1)
    } else {
        let mut base = first_non_empty;
        while base > 1 && cur > base_bytes_max {
            base -= 1;
            cur = (cur as f64 / mult) as u64;
        }
        (
            base,
            if cur > base_bytes_max {
                base_bytes_max
            } else {
                cur.max(1)
            },
        )
    };
    let mut size = base_level_size;
    for (l, target) in max_bytes.iter_mut().enumerate().skip(base_level) {
        if l > base_level {
            size = multiply(size, mult);
        }
        // A target below the base size would make levels smaller than L0 (an hourglass) and
        // starve L0 compactions.
        *target = size.max(base_bytes_max);
    }
    LevelTargets {
        base_level,
        max_bytes,
        lowest_unnecessary_level,
    }
}

/// The compaction state of one level, for scheduling and for the "Compaction Stats" table.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelScore {
    /// The level.
    pub level: usize,
    /// Urgency: `>= 1` means the level needs compaction; higher is picked first. 0 for the last
    /// level, which size-triggered compaction never reads.
    pub score: f64,
    /// Files in the level.
    pub num_files: usize,
    /// Files of the level in running compactions.
    pub num_files_being_compacted: usize,
    /// Bytes in the level.
    pub bytes: u64,
    /// Bytes of the level not in running compactions, deletions weighed extra
    /// ([`Version::compensated_size`]): what the score divides, as in RocksDB.
    pub bytes_not_being_compacted: u64,
    /// The level's target size (`u64::MAX`: none).
    pub target_bytes: u64,
}

/// What the database needs to know about compaction debt: per-level scores, targets and the
/// estimate of bytes compaction still has to rewrite (for write control and statistics).
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionReport {
    /// The level targets the scores were computed with.
    pub targets: LevelTargets,
    /// One entry per level, L0 first.
    pub levels: Vec<LevelScore>,
    /// RocksDB's `estimated_compaction_needed_bytes`: the bytes compactions must rewrite to
    /// bring every level within its target (leveled only; 0 for the other styles).
    pub pending_compaction_bytes: u64,
}

impl CompactionReport {
    /// Levels that may start a size-triggered compaction (`0..=num_levels - 2`), highest score
    /// first; equal scores keep the shallower level first.
    pub fn levels_by_score(&self) -> Vec<(usize, f64)> {
        let n = self.levels.len();
        let mut v: Vec<(usize, f64)> = self.levels[..n.saturating_sub(1).max(1)]
            .iter()
            .map(|s| (s.level, s.score))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1));
        v
    }

    /// The highest score of any level.
    pub fn max_score(&self) -> f64 {
        self.levels.iter().map(|s| s.score).fold(0.0, f64::max)
    }
}

/// Scores, targets and pending bytes of a leveled tree.
pub fn compaction_report(
    version: &Version,
    options: &CfOptions,
    running: &RunningCompactions,
) -> CompactionReport {
    let targets = LevelTargets::compute(version, options);
    let mut levels: Vec<LevelScore> = (0..version.num_levels())
        .map(|l| level_state(version, running, &targets, l))
        .collect();
    score_levels(&mut levels, version, options, &targets);
    let pending_compaction_bytes = if options.compaction_style == CompactionStyle::Level {
        estimate_pending_bytes(version, options, &targets)
    } else {
        0
    };
    CompactionReport {
        targets,
        levels,
        pending_compaction_bytes,
    }
}

fn level_state(
    version: &Version,
    running: &RunningCompactions,
    targets: &LevelTargets,
    level: usize,
) -> LevelScore {
    let files = version.files(level);
    let busy = files
        .iter()
        .filter(|f| running.is_being_compacted(f.number));
    let (busy_files, busy_bytes) =
        busy.fold((0, 0), |(n, b), f| (n + 1, b + version.compensated_size(f)));
    LevelScore {
        level,
        score: 0.0,
        num_files: files.len(),
        num_files_being_compacted: busy_files,
        bytes: version.level_bytes(level),
        bytes_not_being_compacted: version.compensated_level_bytes(level) - busy_bytes,
        target_bytes: targets.target(level),
    }
}

/// RocksDB's `ComputeCompactionScore` for leveled trees (and the L0 count score for others).
fn score_levels(
    levels: &mut [LevelScore],
    version: &Version,
    options: &CfOptions,
    targets: &LevelTargets,
) {
    let dynamic = options.level_compaction_dynamic_level_bytes
        && options.compaction_style == CompactionStyle::Level;
    let trigger = f64::from(options.level0_file_num_compaction_trigger.max(1));
    let l0_bytes = levels[0].bytes_not_being_compacted;
    let l0_files = levels[0].num_files - levels[0].num_files_being_compacted;
    let mut runs = l0_files;
    if options.compaction_style == CompactionStyle::Universal {
        // Universal: every non-empty level is one more sorted run, as if it were an L0 file.
        runs += (1..levels.len())
            .filter(|&l| levels[l].num_files > 0 && levels[l].num_files_being_compacted == 0)
            .count();
    }
    let mut score = runs as f64 / trigger;
    if options.compaction_style == CompactionStyle::Level && levels.len() > 1 {
        if dynamic {
            if l0_bytes >= options.max_bytes_for_level_base {
                // L0 at the base size must qualify, or pending bytes could stop writes with no
                // compaction scheduled.
                score = score.max(1.01);
            }
            let base = targets.base_level;
            if l0_bytes > targets.target(base) {
                // L0 larger than the base level's target: L0 → base goes before base → base+1.
                let base_bytes = version
                    .compensated_level_bytes(base)
                    .max(targets.target(base));
                score = score.max(l0_bytes as f64 / base_bytes as f64);
            }
            if score > 1.0 {
                score *= SCORE_SCALE;
            }
        } else {
            score = score.max(l0_bytes as f64 / options.max_bytes_for_level_base as f64);
        }
    }
    levels[0].score = score;
    if options.compaction_style != CompactionStyle::Level {
        return;
    }
    // Bytes on their way down: they will land on deeper levels soon, so a level about to
    // receive much is made less urgent than one that is not.
    let mut downcompact = version.level_bytes(0) as f64;
    let last_input = levels.len().saturating_sub(2);
    for s in levels.iter_mut().take(last_input + 1).skip(1) {
        let l = s.level;
        let target = targets.target(l);
        let live = s.bytes_not_being_compacted;
        let mut score = if !dynamic || live < target {
            live as f64 / target as f64
        } else {
            live as f64 / (target as f64 + downcompact) * SCORE_SCALE
        };
        if let (true, Some(lowest)) = (dynamic, targets.lowest_unnecessary_level) {
            if live > 0 && l <= lowest {
                score = score.max(SCORE_SCALE * (1.001 + 0.001 * (lowest - l) as f64));
            }
        }
        if dynamic
            && targets
                .lowest_unnecessary_level
                .is_some_and(|lowest| l <= lowest)
        {
            downcompact += s.bytes as f64;
        } else if s.bytes > target {
            downcompact += (s.bytes - target) as f64;
        }
        s.score = score;
    }
}

/// RocksDB's `EstimateCompactionBytesNeeded`: walks the levels down, each carrying its excess
/// over its target into the next and paying for rewriting the overlapping part of that level
/// (estimated with the size ratio of the two levels).
fn estimate_pending_bytes(version: &Version, options: &CfOptions, targets: &LevelTargets) -> u64 {
    let n = version.num_levels();
    let l0 = version.level_bytes(0);
    let l0_triggered = version.num_files(0) >= options.level0_file_num_compaction_trigger as usize
        || l0 >= options.max_bytes_for_level_base;
    let mut pending = if l0_triggered { l0 } else { 0 };
    let mut carried = if l0_triggered { l0 } else { 0 };
    let last_input = n.saturating_sub(2);
    for level in targets.base_level..=last_input {
        let mut size = version.level_bytes(level);
        if level == targets.base_level && l0_triggered {
            pending = pending.saturating_add(size);
        }
        size = size.saturating_add(carried);
        carried = 0;
        let target = targets.target(level);
        if size > target {
            carried = size - target;
            let next = version.level_bytes(level + 1);
            if next > 0 {
                let fanout = next as f64 / size as f64 + 1.0;
                pending = pending.saturating_add((carried as f64 * fanout) as u64);
            }
        }
    }
    pending
}
