//! [`CompactionPlan`]: what a picker decided (which files, into which level, why), and
//! [`RunningCompactions`]: the plans the database is executing, which the pickers must respect.
//!
//! Plain data. A picker builds a plan from a [`Version`]; the database registers it in its
//! `RunningCompactions` (under its lock) before it starts the job, and unregisters it when the job
//! finished or failed. The job reads the plan (inputs, output level, file size, grandparents,
//! bottommost) and turns its outputs into a [`VersionEdit`] with [`CompactionPlan::edit`].
//!
//! Invariants of every plan a picker returns (checked by [`CompactionPlan::check`] in tests):
//! 1. No file appears twice; every input is in the version at the level the plan names, and none
//!    is in a running compaction.
//! 2. Clean cut: for every input level `>= 1`, no file left in that level shares a user key with
//!    the inputs of that level; for L0 → another level, every L0 file whose range overlaps the
//!    inputs' range is an input (so no older L0 data stays above newer data moved down).
//! 3. The output level is the input level + 1, or the base level for L0, except for intra-L0
//!    (output 0), for compactions of the last level into itself (manual, periodic, bottommost)
//!    and for universal compactions, whose inputs span several levels down to the output level.
//! 4. Every grandparent overlaps the plan's user-key range and lives in a level below the output.
//! 5. `is_trivial_move` only when there is one input level, that level is not the output level,
//!    and the output level holds nothing in the inputs' range (so moving the files keeps every
//!    level sorted and disjoint).
//! 6. The output range of the plan does not overlap the output range of a running compaction with
//!    the same output level.

use std::collections::HashSet;
use std::sync::Arc;

use crate::comparator::KeyOrder;
use crate::types::user_key;
use crate::version::{FileMetaData, Version, VersionEdit};

/// Why a compaction was picked. RocksDB's `CompactionReason` (the subset CairnDB produces).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompactionReason {
    /// L0 holds too many files (or too many bytes): L0 → base level.
    LevelL0FilesNum,
    /// A level >= 1 is above its target size: Ln → Ln+1.
    LevelMaxBytes,
    /// L0 → L0: L0 is too wide and the base level is busy or much larger than L0.
    IntraL0,
    /// Asked for by the user (`compact_range`).
    Manual,
    /// Universal: the estimated space amplification is above the limit (full compaction).
    UniversalSizeAmplification,
    /// Universal: adjacent sorted runs of similar size.
    UniversalSizeRatio,
    /// Universal: too many sorted runs; merges the oldest ones to bring the count down.
    UniversalSortedRunNum,
    /// FIFO: the files exceed `max_table_files_size`; the oldest are dropped.
    FifoMaxSize,
    /// FIFO: files older than `ttl` are dropped.
    FifoTtl,
    /// FIFO: small L0 files merged into one (`allow_compaction`).
    FifoReduceNumFiles,
    /// A file is older than `periodic_compaction_seconds`: it is rewritten.
    Periodic,
    /// A file's data is older than `ttl`: it is compacted down a level.
    Ttl,
    /// A file was marked for compaction when written (many deletions, `compact_on_deletion`).
    FilesMarkedForCompaction,
    /// `kRoundRobin` with a `ttl`: a level holds expired data, and its next file in round-robin
    /// order is compacted down (RocksDB's `kRoundRobinTtl`).
    RoundRobinTtl,
}

/// The input files of one level, in the level's order (L0 newest first, others by key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionInputs {
    /// The level the files are in.
    pub level: usize,
    /// The files.
    pub files: Vec<Arc<FileMetaData>>,
}

impl CompactionInputs {
    /// The total size of the files, in bytes.
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }
}

/// One compaction to run, as a picker decided it. See the module contract for its invariants.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionPlan {
    /// Why it was picked.
    pub reason: CompactionReason,
    /// The inputs, one entry per level, shallowest level first; no entry is empty. The first
    /// entry is the start level. For leveled compactions there are at most two entries (start
    /// level, output level); universal compactions may name every level down to the output.
    pub inputs: Vec<CompactionInputs>,
    /// The level the outputs are written to.
    pub output_level: usize,
    /// Cut output files at about this size, in bytes (`target_file_size_base *
    /// target_file_size_multiplier^(level - 1)`; with dynamic level bytes counted from the base
    /// level). `u64::MAX` means one output file.
    pub target_file_size: u64,
    /// Cut an output file early when the grandparent bytes it overlaps exceed this
    /// (`max_compaction_bytes`, RocksDB's default `25 * target_file_size_base`), so that no
    /// later compaction of that output has to rewrite too much of the next level.
    pub max_compaction_bytes: u64,
    /// The files of the first level below the output level that overlap the plan's range, in key
    /// order: where the job should cut outputs. Empty for trivial moves, intra-L0 and deletions.
    pub grandparents: Vec<Arc<FileMetaData>>,
    /// The files can be moved to the output level by an edit alone, without reading them
    /// (see [`CompactionPlan::trivial_move_edit`]).
    pub is_trivial_move: bool,
    /// No file in any level below the output level (nor, for an intra-L0 compaction, an older L0
    /// file outside the inputs) overlaps the plan's range: the job may drop tombstones and
    /// obsolete versions not visible to any snapshot.
    pub is_bottommost: bool,
    /// The inputs are deleted without being read or rewritten (FIFO's size and TTL drops).
    pub is_deletion: bool,
    /// The score of the start level when the plan was picked (`>= 1` for size-triggered
    /// compactions; 0 for manual, TTL and periodic ones).
    pub score: f64,
    /// With `compaction_pri = kRoundRobin`: the start level's new round-robin cursor (an
    /// internal key), recorded by the edit that installs the compaction, so the next pick out of
    /// the level starts after these inputs. `None` for every other plan.
    pub compact_cursor: Option<Vec<u8>>,
}

impl CompactionPlan {
    /// The level of the first input.
    pub fn start_level(&self) -> usize {
        self.inputs[0].level
    }

    /// Every input file with its level, level by level.
    pub fn input_files(&self) -> impl Iterator<Item = (usize, &Arc<FileMetaData>)> + '_ {
        self.inputs
            .iter()
            .flat_map(|i| i.files.iter().map(move |f| (i.level, f)))
    }

    /// The number of input files.
    pub fn num_input_files(&self) -> usize {
        self.inputs.iter().map(|i| i.files.len()).sum()
    }

    /// The total size of the inputs, in bytes.
    pub fn input_bytes(&self) -> u64 {
        self.inputs.iter().map(CompactionInputs::bytes).sum()
    }

    /// The smallest and largest user key of all inputs, in `order`.
    pub fn user_key_range(&self, order: &KeyOrder) -> (Vec<u8>, Vec<u8>) {
        let (lo, hi) = key_range(order, self.input_files().map(|(_, f)| f))
            .expect("a plan has at least one input file");
        (lo.to_vec(), hi.to_vec())
    }

    /// The edit that installs the compaction's result: every input deleted from its level,
    /// every output added at the output level, and the start level's round-robin cursor if the
    /// plan has one. The caller sets the column family and counters.
    pub fn edit(&self, outputs: Vec<FileMetaData>) -> VersionEdit {
        let mut edit = VersionEdit::default();
        for (level, f) in self.input_files() {
            edit.delete_file(level_u8(level), f.number);
        }
        for meta in outputs {
            edit.add_file(level_u8(self.output_level), meta);
        }
        if let Some(key) = &self.compact_cursor {
            edit.set_compact_cursor(level_u8(self.start_level()), key.clone());
        }
        edit
    }

    /// The edit of a trivial move: the input files deleted from the start level and added,
    /// unchanged, at the output level. The version set applies deletions first, so this is one
    /// edit.
    ///
    /// # Panics
    /// If the plan is not a trivial move.
    pub fn trivial_move_edit(&self) -> VersionEdit {
        assert!(self.is_trivial_move, "not a trivial move");
        let outputs = self.inputs[0].files.iter().map(|f| (**f).clone()).collect();
        self.edit(outputs)
    }

    /// Checks invariants 1, 2, 4, 5 and 6 of the module contract against `version` and the compactions
    /// that were running when the plan was picked (`running` must not yet hold this plan).
    ///
    /// # Errors
    /// A description of the first broken invariant.
    pub fn check(
        &self,
        version: &Version,
        running: &RunningCompactions,
    ) -> std::result::Result<(), String> {
        if self.inputs.is_empty() || self.inputs.iter().any(|i| i.files.is_empty()) {
            return Err("a plan has an empty input level".into());
        }
        let mut seen = HashSet::new();
        for (level, f) in self.input_files() {
            if !seen.insert(f.number) {
                return Err(format!("file {} is an input twice", f.number));
            }
            if version.level_of(f.number) != Some(level) {
                return Err(format!("file {} is not in level {level}", f.number));
            }
            if running.is_being_compacted(f.number) {
                return Err(format!("file {} is already being compacted", f.number));
            }
        }
        if self.inputs.windows(2).any(|w| w[0].level >= w[1].level) {
            return Err("input levels are not strictly increasing".into());
        }
        if self
            .inputs
            .last()
            .is_some_and(|i| i.level > self.output_level)
        {
            return Err("an input level is below the output level".into());
        }
        if self.output_level != 0 {
            let (lo, hi) = self.user_key_range(version.order());
            if running.output_overlaps(version.order(), self.output_level, &lo, &hi) {
                return Err("the output range overlaps a running compaction's".into());
            }
        }
        self.check_clean_cut(version)?;
        self.check_grandparents(version)?;
        self.check_trivial_move(version)
    }

    fn check_clean_cut(&self, version: &Version) -> std::result::Result<(), String> {
        for inputs in &self.inputs {
            let names: HashSet<u64> = inputs.files.iter().map(|f| f.number).collect();
            let intra_l0 = inputs.level == 0 && self.output_level == 0;
            if intra_l0 {
                // An intra-L0 output stays in L0 at its inputs' sequence numbers: any L0 file
                // may stay beside it, the L0 order keeps reads right.
                continue;
            }
            if inputs.level == 0 {
                check_l0_cut(version, &names)?;
                continue;
            }
            let (lo, hi) = key_range(version.order(), inputs.files.iter()).expect("not empty");
            let left_behind = version
                .overlapping_files(inputs.level, Some(lo), Some(hi))
                .into_iter()
                .find(|f| !names.contains(&f.number));
            if let Some(f) = left_behind {
                return Err(format!(
                    "level {}: file {} overlaps the inputs but is not one",
                    inputs.level, f.number
                ));
            }
        }
        Ok(())
    }

    fn check_grandparents(&self, version: &Version) -> std::result::Result<(), String> {
        let o = version.order();
        let (lo, hi) = self.user_key_range(o);
        for g in &self.grandparents {
            match version.level_of(g.number) {
                Some(l) if l > self.output_level => {}
                _ => return Err(format!("grandparent {} is not below the output", g.number)),
            }
            if o.compare(user_key(&g.largest), &lo).is_lt()
                || o.compare(user_key(&g.smallest), &hi).is_gt()
            {
                return Err(format!(
                    "grandparent {} does not overlap the plan",
                    g.number
                ));
            }
        }
        Ok(())
    }

    fn check_trivial_move(&self, version: &Version) -> std::result::Result<(), String> {
        if !self.is_trivial_move {
            return Ok(());
        }
        if self.inputs.len() != 1 || self.start_level() == self.output_level {
            return Err("a trivial move has one input level, not the output level".into());
        }
        let files = &self.inputs[0].files;
        for f in files {
            let (lo, hi) = (user_key(&f.smallest), user_key(&f.largest));
            if !version
                .overlapping_files(self.output_level, Some(lo), Some(hi))
                .is_empty()
            {
                return Err(format!(
                    "trivially moved file {} overlaps the output",
                    f.number
                ));
            }
        }
        for (i, a) in files.iter().enumerate() {
            for b in &files[i + 1..] {
                if ranges_overlap(version.order(), a, b) {
                    return Err(format!("moved files {} and {} overlap", a.number, b.number));
                }
            }
        }
        Ok(())
    }
}

/// L0 → a deeper level: an L0 file left behind must not be older than an input it overlaps,
/// or its older entries would end up above the newer ones moved down.
fn check_l0_cut(version: &Version, inputs: &HashSet<u64>) -> std::result::Result<(), String> {
    let l0 = version.files(0);
    for (i, newer) in l0.iter().enumerate() {
        if !inputs.contains(&newer.number) {
            continue;
        }
        let older_left = l0[i + 1..]
            .iter()
            .find(|f| !inputs.contains(&f.number) && ranges_overlap(version.order(), f, newer));
        if let Some(f) = older_left {
            return Err(format!(
                "L0 file {} is older than input {} and overlaps it but stays in L0",
                f.number, newer.number
            ));
        }
    }
    Ok(())
}

/// A level number as edits store it.
fn level_u8(level: usize) -> u8 {
    u8::try_from(level).expect("levels are below MAX_LEVELS (64)")
}

/// The smallest and largest user key of `files` in `order`; `None` when there are none.
pub(crate) fn key_range<'a, I>(order: &KeyOrder, files: I) -> Option<(&'a [u8], &'a [u8])>
where
    I: IntoIterator<Item = &'a Arc<FileMetaData>>,
{
    files.into_iter().fold(None, |acc, f| {
        let (lo, hi) = (user_key(&f.smallest), user_key(&f.largest));
        Some(match acc {
            None => (lo, hi),
            Some((a, b)) => (order.min(a, lo), order.max(b, hi)),
        })
    })
}

/// Whether two files share a user key (in `order`).
pub(crate) fn ranges_overlap(order: &KeyOrder, a: &FileMetaData, b: &FileMetaData) -> bool {
    order
        .compare(user_key(&a.smallest), user_key(&b.largest))
        .is_le()
        && order
            .compare(user_key(&b.smallest), user_key(&a.largest))
            .is_le()
}

/// One registered plan: what the pickers must stay away from while it runs.
#[derive(Debug, Clone)]
struct Running {
    start_level: usize,
    output_level: usize,
    smallest: Vec<u8>,
    largest: Vec<u8>,
    files: Vec<u64>,
}

/// The compactions the database is running: their input files (which no other plan may take)
/// and their output ranges (which no other plan with the same output level may overlap).
/// RocksDB's `compactions_in_progress_` and `being_compacted` flags, kept outside the version so
/// that versions stay immutable.
#[derive(Debug, Clone, Default)]
pub struct RunningCompactions {
    running: Vec<Running>,
    files: HashSet<u64>,
}

impl RunningCompactions {
    /// No compaction running.
    pub fn new() -> RunningCompactions {
        RunningCompactions::default()
    }

    /// Records that `plan` started.
    ///
    /// # Panics
    /// If one of its inputs is already registered: two jobs would rewrite the same file.
    pub fn register(&mut self, plan: &CompactionPlan, order: &KeyOrder) {
        let (smallest, largest) = plan.user_key_range(order);
        let files: Vec<u64> = plan.input_files().map(|(_, f)| f.number).collect();
        for &n in &files {
            assert!(
                self.files.insert(n),
                "file {n} registered by two compactions"
            );
        }
        self.running.push(Running {
            start_level: plan.start_level(),
            output_level: plan.output_level,
            smallest,
            largest,
            files,
        });
    }

    /// Records that `plan` finished (or failed). Unknown plans are ignored.
    pub fn unregister(&mut self, plan: &CompactionPlan) {
        let files: Vec<u64> = plan.input_files().map(|(_, f)| f.number).collect();
        if let Some(i) = self.running.iter().position(|r| r.files == files) {
            let r = self.running.swap_remove(i);
            for n in r.files {
                self.files.remove(&n);
            }
        }
    }

    /// The number of running compactions.
    pub fn len(&self) -> usize {
        self.running.len()
    }

    /// Whether no compaction runs.
    pub fn is_empty(&self) -> bool {
        self.running.is_empty()
    }

    /// Whether file `number` is an input of a running compaction.
    pub fn is_being_compacted(&self, number: u64) -> bool {
        self.files.contains(&number)
    }

    /// Whether any running compaction reads L0 (L0 → base or intra-L0). L0 files overlap, so
    /// RocksDB runs one L0 compaction at a time, and so do we.
    pub fn l0_in_progress(&self) -> bool {
        self.running.iter().any(|r| r.start_level == 0)
    }

    /// Whether a running compaction writes to `output_level` within `[smallest, largest]`
    /// (user keys in `order`).
    pub fn output_overlaps(
        &self,
        order: &KeyOrder,
        output_level: usize,
        smallest: &[u8],
        largest: &[u8],
    ) -> bool {
        self.running.iter().any(|r| {
            r.output_level == output_level
                && order.compare(smallest, &r.largest).is_le()
                && order.compare(&r.smallest, largest).is_le()
        })
    }
}
