//! The FIFO compaction picker: RocksDB's `FIFOCompactionPicker`, as a pure function.
//!
//! FIFO keeps the newest data and drops the oldest files whole, without reading them, in this
//! order of preference:
//! 1. **TTL**: with `ttl > 0`, the oldest files whose data is older than `ttl` seconds.
//! 2. **Size**: while the files hold more than `max_table_files_size` bytes, the oldest files, as
//!    many as it takes to get back under the limit.
//! 3. **Merge** (`allow_compaction`): small L0 files merged into one (an intra-L0 compaction,
//!    chosen as leveled compaction chooses them, at most `write_buffer_size` per removed file).
//!
//! Files age from the deepest level up (a tree migrated from leveled compaction keeps its old
//! data at the bottom), and in L0 from the end of the level (oldest) to the front. One FIFO
//! compaction runs at a time, as in RocksDB.
//!
//! Not built: `max_data_files_size` (blob files), temperature changes.

use std::sync::Arc;

use super::picker::{cost_based_intra_l0, max_compaction_bytes, PickerInput};
use super::plan::{CompactionInputs, CompactionPlan, CompactionReason};
use super::plan_builder::build_plan;
use super::score::LevelTargets;
use crate::version::FileMetaData;

/// FIFO compaction's options. RocksDB's `CompactionOptionsFIFO` (the subset built), with its
/// defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FifoOptions {
    /// Total bytes of table files above which the oldest are dropped. Default 1 GiB.
    pub max_table_files_size: u64,
    /// Merge small L0 files into larger ones while under the size limit. Default false.
    pub allow_compaction: bool,
}

impl Default for FifoOptions {
    fn default() -> Self {
        FifoOptions {
            max_table_files_size: 1 << 30,
            allow_compaction: false,
        }
    }
}

/// The next FIFO compaction, if any. See the module contract.
pub fn pick_fifo(input: &PickerInput<'_>, options: &FifoOptions) -> Option<CompactionPlan> {
    if !input.running.is_empty() {
        return None;
    }
    pick_ttl(input)
        .or_else(|| pick_size(input, options))
        .or_else(|| pick_merge(input, options))
}

/// Every file, oldest first, with its level.
fn oldest_first(input: &PickerInput<'_>) -> Vec<(usize, Arc<FileMetaData>)> {
    let v = input.version;
    let mut out = Vec::with_capacity(v.total_files());
    for level in (1..v.num_levels()).rev() {
        out.extend(v.files(level).iter().map(|f| (level, Arc::clone(f))));
    }
    out.extend(v.files(0).iter().rev().map(|f| (0, Arc::clone(f))));
    out
}

fn pick_ttl(input: &PickerInput<'_>) -> Option<CompactionPlan> {
    // `TTL_AUTO` resolves to off with FIFO, as in RocksDB.
    let ttl = input.options.effective_ttl();
    let now = input.now_secs;
    if ttl == 0 || ttl > now {
        return None;
    }
    let deadline = now - ttl;
    let expired: Vec<_> = oldest_first(input)
        .into_iter()
        .take_while(|(_, f)| {
            // RocksDB reads the oldest ancester time (the age of the data, which a merge of
            // small files keeps), falling back to the file's creation time.
            let born = f
                .oldest_ancester_time
                .filter(|&t| t > 0)
                .or(f.creation_time);
            born.is_some_and(|t| t > 0 && t < deadline)
        })
        .collect();
    deletion_plan(input, expired, CompactionReason::FifoTtl)
}

fn pick_size(input: &PickerInput<'_>, options: &FifoOptions) -> Option<CompactionPlan> {
    let total = input.version.total_bytes();
    if total <= options.max_table_files_size {
        return None;
    }
    let mut excess = total - options.max_table_files_size;
    let mut drop = Vec::new();
    for (level, f) in oldest_first(input) {
        if excess == 0 {
            break;
        }
        excess = excess.saturating_sub(f.size);
        drop.push((level, f));
    }
    deletion_plan(input, drop, CompactionReason::FifoMaxSize)
}

fn pick_merge(input: &PickerInput<'_>, options: &FifoOptions) -> Option<CompactionPlan> {
    let o = input.options;
    if !options.allow_compaction {
        return None;
    }
    let min_files = o.level0_file_num_compaction_trigger as usize;
    let per_file = o.write_buffer_size as u64;
    let l0 = input.version.files(0);
    let files = cost_based_intra_l0(
        l0,
        input.running,
        min_files,
        per_file,
        max_compaction_bytes(o),
    )?;
    let targets = LevelTargets::compute(input.version, o);
    let inputs = vec![CompactionInputs { level: 0, files }];
    let reason = CompactionReason::FifoReduceNumFiles;
    Some(build_plan(
        input,
        &targets,
        inputs,
        0,
        Vec::new(),
        reason,
        1.0,
    ))
}

/// A plan that deletes `files` (oldest first) without reading them.
fn deletion_plan(
    input: &PickerInput<'_>,
    files: Vec<(usize, Arc<FileMetaData>)>,
    reason: CompactionReason,
) -> Option<CompactionPlan> {
    if files.is_empty() {
        return None;
    }
    let mut inputs: Vec<CompactionInputs> = Vec::new();
    for level in 0..input.version.num_levels() {
        // Keep each level's files in the level's own order.
        let mut picked: Vec<_> = files
            .iter()
            .filter(|(l, _)| *l == level)
            .map(|(_, f)| Arc::clone(f))
            .collect();
        if level == 0 {
            picked.reverse();
        }
        if !picked.is_empty() {
            inputs.push(CompactionInputs {
                level,
                files: picked,
            });
        }
    }
    let output_level = inputs.last().map_or(0, |i| i.level);
    Some(CompactionPlan {
        reason,
        inputs,
        output_level,
        target_file_size: u64::MAX,
        max_compaction_bytes: u64::MAX,
        grandparents: Vec::new(),
        is_trivial_move: false,
        is_bottommost: false,
        is_deletion: true,
        score: 1.0,
        compact_cursor: None,
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

    /// L0 files of `sizes`, newest first, created at `born` seconds.
    fn l0(sizes: &[(u64, u64)]) -> Version {
        let n = sizes.len() as u64;
        let files = sizes
            .iter()
            .enumerate()
            .map(|(i, &(size, born))| {
                let seq = 100 + n - i as u64;
                Arc::new(FileMetaData {
                    creation_time: Some(born),
                    ..file_meta(i as u64 + 1, b"a", b"z", size, (seq, seq))
                })
            })
            .collect();
        Version::new(vec![files], KeyOrder::BYTEWISE).expect("valid")
    }

    fn pick(v: &Version, o: &CfOptions, fifo: &FifoOptions) -> Option<CompactionPlan> {
        let r = RunningCompactions::new();
        let input = PickerInput {
            version: v,
            options: o,
            running: &r,
            now_secs: 1000,
        };
        let plan = pick_fifo(&input, fifo);
        if let Some(p) = &plan {
            p.check(v, &r).unwrap_or_else(|e| panic!("{e}"));
        }
        plan
    }

    fn opts(ttl: u64) -> CfOptions {
        CfOptions {
            compaction_style: CompactionStyle::Fifo,
            num_levels: 1,
            ttl,
            ..CfOptions::default()
        }
    }

    fn numbers(p: &CompactionPlan) -> Vec<u64> {
        p.input_files().map(|(_, f)| f.number).collect()
    }

    #[test]
    fn oldest_files_are_dropped_until_under_the_size_limit() {
        let v = l0(&[(100, 900), (100, 800), (100, 700), (100, 600)]);
        let fifo = FifoOptions {
            max_table_files_size: 250,
            ..FifoOptions::default()
        };
        let p = pick(&v, &opts(0), &fifo).expect("400 > 250");
        assert_eq!(p.reason, CompactionReason::FifoMaxSize);
        assert!(p.is_deletion);
        assert_eq!(numbers(&p), vec![3, 4], "the two oldest, newest first");
        let edit = p.edit(Vec::new());
        assert_eq!(edit.deleted_files.len(), 2);
        assert!(edit.new_files.is_empty());
        let under = FifoOptions {
            max_table_files_size: 400,
            ..FifoOptions::default()
        };
        assert_eq!(pick(&v, &opts(0), &under), None);
    }

    #[test]
    fn expired_files_are_dropped_oldest_first() {
        let v = l0(&[(1, 900), (1, 100), (1, 950), (1, 50)]);
        let p = pick(&v, &opts(500), &FifoOptions::default()).expect("files born before 500");
        assert_eq!(p.reason, CompactionReason::FifoTtl);
        // Oldest (last) first: file 4 (50) expired, file 3 (950) not: the run stops there.
        assert_eq!(numbers(&p), vec![4]);
        assert_eq!(
            pick(&v, &opts(crate::options::TTL_AUTO), &FifoOptions::default()),
            None
        );
    }

    #[test]
    fn allow_compaction_merges_small_l0_files() {
        let v = l0(&[(10, 900), (10, 900), (10, 900), (10, 900), (10, 900)]);
        let fifo = FifoOptions {
            allow_compaction: true,
            ..FifoOptions::default()
        };
        let p = pick(&v, &opts(0), &fifo).expect("5 small files, trigger 4");
        assert_eq!(p.reason, CompactionReason::FifoReduceNumFiles);
        assert!(!p.is_deletion);
        assert_eq!((p.output_level, p.num_input_files()), (0, 5));
        assert_eq!(pick(&v, &opts(0), &FifoOptions::default()), None);
    }
}
