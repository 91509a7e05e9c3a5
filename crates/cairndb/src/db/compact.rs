//! Compaction inside the database: background threads pick a plan per column family
//! (`compaction::picker`), run it without the state lock (`compaction::job`), and install the
//! result with one MANIFEST edit; a trivial move is the edit alone. Manual compaction
//! (`compact_range`) runs the same jobs on the caller's thread. After every install the write
//! controller's pressure is recomputed from the new versions.
//!
//! Threads: `max(1, max_background_jobs − 1)` compaction threads beside the one flush thread, so
//! a flush never waits behind a compaction. They sleep on `bg_cond`, which flushes, installs and
//! close signal.
//!
//! Invariants:
//! 1. A plan's input files are registered in its family's `RunningCompactions` from the pick
//!    (under the lock) until its edit is installed or it failed, so no two jobs take the same
//!    file and no two outputs overlap on a level.
//! 2. Output files are protected by pending-output guards from their creation until the edit
//!    that adds them is durable; a failed job deletes its outputs.
//! 3. A family is dropped only while none of its compactions runs (drop waits), so every edit
//!    names a live family.
//! 4. The snapshots a job must respect are read after its inputs were fixed (under the lock, at
//!    pick time); a snapshot taken later is above every input's sequence numbers, so it needs
//!    nothing the job drops.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard};

use super::write_control::{pressure, stall_log_line, Cause, Debt, Pressure, Thresholds};
use super::{catch_job_panic, CfData, ColumnFamily, Db, DbInner, DbState};
use crate::compaction::filter::{CompactionFilter, CompactionFilterContext};
use crate::compaction::filter_bits::filter_bits_for;
use crate::compaction::iter::CompactionIterOptions;
use crate::compaction::job::{open_input_table, CompactionInput, CompactionJob};
use crate::compaction::manual::{BottommostLevelCompaction, ManualCompaction, ManualStep};
use crate::compaction::plan::{CompactionPlan, CompactionReason};
use crate::compaction::subcompaction::{run_subcompactions, subcompaction_ranges, KeyRange};
use crate::compaction::{compaction_report, pick_compaction, PickerInput};
use crate::error::{Error, Result};
use crate::options::{CfOptions, CompactionStyle};
use crate::sstable::Table;
use crate::types::user_key;
use crate::types::SequenceNumber;
use crate::util::thread_priority::spawn_at;
use crate::version::filenames::table_file_name;
use crate::version::{FileMetaData, PendingOutput};

/// How often an idle compaction thread looks for compactions that time made due.
const TIME_TRIGGER_RECHECK: Duration = Duration::from_secs(60);
/// Pause before a compaction thread retries after a failed job.
const RETRY_PAUSE: Duration = Duration::from_millis(200);

/// Every family that compacts automatically, with what compaction owes in it now. A family
/// with automatic compactions off owes nothing, as in RocksDB: no compaction will pay its debt.
/// Read by the write controller (`update_pressure`) and the backlog controller.
pub(super) fn family_debts(st: &DbState) -> Vec<(&super::CfState, Debt)> {
    st.cfs
        .iter()
        .filter(|(_, cf)| !cf.options.disable_auto_compactions)
        .filter_map(|(&id, cf)| {
            let version = st.versions.current(id)?;
            let report = compaction_report(&version, &cf.options, &cf.running);
            let debt = Debt {
                l0_files: u32::try_from(version.num_files(0)).unwrap_or(u32::MAX),
                pending_compaction_bytes: report.pending_compaction_bytes,
            };
            Some((cf, debt))
        })
        .collect()
}

/// Starts the background compaction threads.
pub(super) fn spawn_compactors(inner: &Arc<DbInner>) -> Result<Vec<JoinHandle<()>>> {
    let n = inner
        .options
        .db
        .max_background_jobs
        .saturating_sub(1)
        .max(1);
    let priority = inner.options.db.compaction_cpu_priority;
    (0..n)
        .map(|i| {
            let inner = Arc::clone(inner);
            spawn_at(format!("cairndb-compact-{i}"), priority, move || {
                compaction_loop(&inner);
            })
        })
        .collect()
}

fn compaction_loop(inner: &DbInner) {
    let mut st = inner.state.lock();
    loop {
        if inner.closed.load(Ordering::Acquire) {
            return;
        }
        // A poisoned database (a WAL failure, or corruption under `paranoid_checks`) stops
        // background compactions until reopen, as RocksDB's background error does.
        let picked = if st.versions.is_poisoned() || st.poisoned.is_some() {
            None
        } else {
            inner.pick(&mut st)
        };
        let Some((id, plan)) = picked else {
            // Time alone can make a compaction due (`ttl`, `periodic_compaction_seconds`):
            // look again after a while even when nothing signals.
            let _ = inner.bg_cond.wait_for(&mut st, TIME_TRIGGER_RECHECK);
            continue;
        };
        if inner.run_plan(&mut st, id, &plan).is_err() {
            // Recorded in `compaction_error`; pause so a persistent fault does not spin.
            let _ = inner.bg_cond.wait_for(&mut st, RETRY_PAUSE);
        }
    }
}

/// The plan the picker would start now for the first family that has one (not registered).
fn next_plan(st: &DbState, now: u64) -> Option<(u32, CompactionPlan)> {
    st.cfs.iter().find_map(|(&id, cf)| {
        let version = st.versions.current(id)?;
        let plan = pick_compaction(&PickerInput {
            version: &version,
            options: &cf.options,
            running: &cf.running,
            now_secs: now,
        })?;
        Some((id, plan))
    })
}

impl DbInner {
    /// The first family with a compaction to run, its plan registered (invariant 1).
    fn pick(&self, st: &mut DbState) -> Option<(u32, CompactionPlan)> {
        let (id, plan) = next_plan(st, self.options.db.now_secs())?;
        let state = st.cf_mut(id);
        let order = state.options.comparator.clone();
        state.running.register(&plan, &order);
        Some((id, plan))
    }

    /// Runs a registered plan and installs its result; unregisters it either way.
    fn run_plan(
        &self,
        st: &mut MutexGuard<'_, DbState>,
        id: u32,
        plan: &CompactionPlan,
    ) -> Result<()> {
        let started = Instant::now();
        let result = if plan.is_trivial_move {
            self.log_and_apply(st, vec![(id, plan.trivial_move_edit())])
                .map(|()| JobOutcome::default())
        } else if plan.is_deletion {
            // FIFO's drops: the inputs leave the version unread; nothing is written.
            self.log_and_apply(st, vec![(id, plan.edit(Vec::new()))])
                .map(|()| JobOutcome::default())
        } else {
            let data = Arc::clone(&st.cf(id).data);
            let snapshots: Vec<SequenceNumber> = self.snapshots.lock().keys().copied().collect();
            let filter_context = CompactionFilterContext {
                is_full_compaction: st
                    .versions
                    .current(id)
                    .is_some_and(|v| v.total_files() == plan.num_input_files()),
                is_manual_compaction: plan.reason == CompactionReason::Manual,
                column_family_id: id,
                output_level: plan.output_level,
            };
            // The options in force when the job starts, kept to its end (`Db::set_options`).
            let options = data.current_options();
            let filter_bits = filter_bits_for(
                st.versions.current(id).as_deref(),
                &options,
                plan.output_level,
                plan.is_bottommost,
            );
            let ran = MutexGuard::unlocked(st, || {
                catch_job_panic("compaction", || {
                    self.run_job(
                        &data,
                        &options,
                        filter_bits,
                        plan,
                        &snapshots,
                        &filter_context,
                    )
                })
            });
            ran.and_then(|(outcome, outputs, guards)| {
                let numbers: Vec<u64> = outputs.iter().map(|m| m.number).collect();
                let installed = self.log_and_apply(st, vec![(id, plan.edit(outputs))]);
                drop(guards);
                // As for flushes: after a failed MANIFEST write or sync the edit may be in the
                // MANIFEST, so the outputs stay for the next open to keep or delete.
                if installed.is_err() && !st.versions.is_poisoned() {
                    for n in numbers {
                        let _ = self.fs.remove(&self.dir.join(table_file_name(n)));
                    }
                }
                installed.map(|()| outcome)
            })
        };
        let cf = st.cf_mut(id);
        cf.running.unregister(plan);
        match &result {
            Ok(outcome) => {
                cf.stats.record(plan, outcome, started.elapsed());
                let (read, written) = (outcome.bytes_read, outcome.bytes_written);
                self.counters
                    .record_compaction(read, written, started.elapsed());
                st.compaction_error = None;
            }
            Err(e) => {
                st.compaction_error = Some(e.to_string());
                st.background_failures += 1;
                self.stop_on_fatal_error(st, "compaction", e);
            }
        }
        let name = st.cf(id).data.name.clone();
        self.log_compaction(&name, plan, &result, started.elapsed());
        self.publish_view(st, id);
        self.update_pressure(st);
        self.cond.notify_all();
        self.purge_obsolete_files(st);
        self.bg_cond.notify_all();
        result.map(|_| ())
    }

    /// Recomputes the write controller's pressure from every family's current version.
    pub(super) fn update_pressure(&self, st: &mut DbState) {
        let mut p = Pressure::NONE;
        let mut worst = (String::new(), Debt::default());
        for (cf, debt) in family_debts(st) {
            let this = pressure(debt, Thresholds::of(&cf.options));
            if this.x > p.x {
                worst = (cf.data.name.clone(), debt);
            }
            p = p.max(this);
        }
        let old = st.write_control.pressure();
        st.write_control.set_pressure(p);
        let rate = st.write_control.rate();
        if let Some(line) = stall_log_line(old, p, &worst.0, worst.1, rate) {
            self.info_log.log(crate::options::InfoLogLevel::Warn, &line);
        }
    }

    /// Allocates an output file number protected until the install (invariant 2).
    fn new_output(&self) -> PendingOutput {
        self.state.lock().versions.new_pending_output()
    }

    /// Merges the plan's inputs into new tables at its output level. Runs without the state
    /// lock. Returns what it did, the outputs, and the guards protecting their numbers.
    #[allow(clippy::too_many_arguments)]
    fn run_job(
        &self,
        cf: &CfData,
        options: &CfOptions,
        filter_bits: f64,
        plan: &CompactionPlan,
        snapshots: &[SequenceNumber],
        filter_context: &CompactionFilterContext,
    ) -> Result<(JobOutcome, Vec<FileMetaData>, Vec<PendingOutput>)> {
        let read_options = options.table_options_for_reads();
        let mut tables = Vec::with_capacity(plan.num_input_files());
        for (_, f) in plan.input_files() {
            let path = self.dir.join(table_file_name(f.number));
            tables.push(open_input_table(
                &*self.fs,
                &path,
                f.size,
                &read_options,
                self.current_db_options().compaction_readahead_size,
                self.options.db.rate_limiter.as_ref(),
            )?);
        }
        let grandparents: Vec<FileMetaData> =
            plan.grandparents.iter().map(|f| (**f).clone()).collect();
        let job = CompactionJob {
            fs: &*self.fs,
            dir: &self.dir,
            db_options: &self.options.db,
            cf_options: options,
            output_level: plan.output_level,
            target_file_size: plan.target_file_size,
            max_grandparent_overlap_bytes: plan.max_compaction_bytes,
            grandparents: &grandparents,
            iter_options: CompactionIterOptions {
                snapshots: snapshots.to_vec(),
                bottommost: plan.is_bottommost,
                merge_operator: options.merge_operator.clone(),
                compaction_filter: compaction_filter_for(options, filter_context),
                level: plan.start_level(),
                zero_sequence_numbers: false,
            },
            filter_bits,
        };
        let ranges = self.subcompaction_ranges(cf, plan, &tables);
        let guards = Mutex::new(Vec::new());
        let new_number = || {
            let guard = self.new_output();
            let number = guard.number();
            guards.lock().push(guard);
            number
        };
        let (result, subcompactions) = if ranges.len() <= 1 {
            let input = CompactionInput::from_tables(&tables, &options.comparator);
            let result = job.run(input, &mut || new_number())?;
            let with_outputs = u64::from(!result.outputs.is_empty());
            (result, with_outputs)
        } else {
            run_subcompactions(&job, &tables, ranges, &new_number, &*self.fs, &self.dir)?
        };
        let guards = guards.into_inner();
        let now = self.options.db.now_secs();
        let oldest_ancester = plan
            .input_files()
            .filter_map(|(_, f)| f.oldest_ancester_time.or(f.creation_time))
            .filter(|&t| t > 0)
            .min()
            .unwrap_or(now);
        let mut outputs = result.outputs;
        for meta in &mut outputs {
            // RocksDB: a compaction output is created now, and its data is as old as the
            // oldest input's (`MinInputFileOldestAncesterTime`), so TTL keeps counting.
            meta.creation_time = Some(now);
            meta.oldest_ancester_time = Some(oldest_ancester.min(now));
        }
        let outcome = JobOutcome {
            bytes_read: result.bytes_read,
            bytes_written: result.bytes_written,
            keys_in: result.stats.keys_in,
            keys_dropped: result.stats.dropped(),
            outputs: outputs.len() as u64,
            subcompactions,
        };
        Ok((outcome, outputs, guards))
    }

    /// The key ranges to split `plan` into: more than one only with `max_subcompactions > 1`,
    /// for a leveled compaction into a level `>= 1` (`compaction::subcompaction`).
    fn subcompaction_ranges(
        &self,
        cf: &CfData,
        plan: &CompactionPlan,
        tables: &[Arc<Table>],
    ) -> Vec<KeyRange> {
        let max = self.options.db.max_subcompactions as usize;
        // The ranges end at `c\0`, the first key after a cut in bytewise order; other orders have
        // no such key (see `TombstoneSplitter::can_cut_between` in compaction/job.rs).
        let eligible = max > 1
            && cf.options.compaction_style == CompactionStyle::Level
            && plan.output_level > 0
            && cf.options.comparator.is_bytewise();
        if !eligible {
            return vec![(None, None)];
        }
        let mut blocks = Vec::new();
        for t in tables {
            match t.index_entries() {
                Ok(entries) => blocks.extend(entries.into_iter().map(|(k, h)| (k, h.size))),
                // Splitting is an optimization: without the index, run as one range.
                Err(_) => return vec![(None, None)],
            }
        }
        let points: Vec<(&[u8], u64)> = blocks
            .iter()
            .map(|(k, size)| (user_key(k), *size))
            .collect();
        subcompaction_ranges(&points, max)
    }
}

/// The family's compaction filter for one job: `compaction_filter`, else what
/// `compaction_filter_factory` creates for the job (RocksDB's precedence).
fn compaction_filter_for(
    options: &CfOptions,
    context: &CompactionFilterContext,
) -> Option<Arc<dyn CompactionFilter>> {
    options.compaction_filter.clone().or_else(|| {
        options
            .compaction_filter_factory
            .as_ref()
            .and_then(|f| f.create(context))
    })
}

/// One level of a column family, as [`Db::level_summary_cf`] reports it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelSummary {
    /// Files in the level.
    pub files: usize,
    /// Their total size.
    pub bytes: u64,
    /// The compaction score (>= 1: the level needs compacting).
    pub score: f64,
    /// The level's target size (0 when it has none: L0, levels above the base level).
    pub target_bytes: u64,
}

/// What a job did, for the statistics.
#[derive(Debug, Clone, Default)]
pub(super) struct JobOutcome {
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub keys_in: u64,
    pub keys_dropped: u64,
    pub outputs: u64,
    /// Key ranges of the job that wrote outputs (1 without subcompactions).
    pub subcompactions: u64,
}

impl Db {
    /// Compacts every level of the default column family that holds keys in `[begin, end]`
    /// (`None`: unbounded) down to the last level, after flushing its memtables (RocksDB's
    /// `CompactRange`). Waits for the work.
    ///
    /// # Errors
    /// [`Error::Closed`]; the flush's or a job's error.
    pub fn compact_range(&self, begin: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
        self.compact_range_cf(&self.default_column_family(), begin, end)
    }

    /// [`Db::compact_range`] for column family `cf`.
    ///
    /// # Errors
    /// As [`Db::compact_range`]; [`Error::InvalidArgument`] when `cf` was dropped.
    pub fn compact_range_cf(
        &self,
        cf: &ColumnFamily,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Result<()> {
        cf.data.check_live()?;
        self.flush_cf(cf)?;
        self.inner.manual_compaction(&cf.data, begin, end)
    }
}

impl Db {
    /// Waits until no flush or compaction is running or due in any column family (db_bench's
    /// `waitforcompaction`).
    ///
    /// # Errors
    /// [`Error::Closed`]; the last background error if flushes or compactions keep failing.
    pub fn wait_for_compactions(&self) -> Result<()> {
        let inner = &self.inner;
        if inner.read_only {
            // Nothing flushes or compacts a read-only handle.
            return inner.check_open();
        }
        let mut st = inner.state.lock();
        loop {
            inner.check_open()?;
            if let Some(why) = st.compaction_error.as_ref().or(st.flush_error.as_ref()) {
                let msg = format!("background work fails: {why}");
                return Err(Error::io(
                    "compaction",
                    &inner.dir,
                    std::io::Error::other(msg),
                ));
            }
            // Immutable memtables waiting for `min_write_buffer_number_to_merge` are not due.
            let busy = st.flushing
                || st
                    .cfs
                    .values()
                    .any(|c| c.flush_due() || !c.running.is_empty());
            if !busy && !inner.compaction_due(&st) {
                return Ok(());
            }
            inner.bg_cond.notify_all();
            let _ = inner.cond.wait_for(&mut st, RETRY_PAUSE);
        }
    }

    /// What compactions of column family `cf` did, by output level.
    pub fn compaction_stats_cf(&self, cf: &ColumnFamily) -> CompactionStats {
        let st = self.inner.state.lock();
        st.cfs
            .get(&cf.id())
            .map(|c| c.stats.clone())
            .unwrap_or_default()
    }

    /// What flushes of column family `cf` wrote since open (RocksDB counts them as L0's writes).
    pub fn flush_stats_cf(&self, cf: &ColumnFamily) -> super::internal_stats::FlushStats {
        self.inner.counters.flush_stats(cf.id())
    }

    /// Files, bytes, compaction score and target size per level of `cf`'s current version.
    pub fn level_summary_cf(&self, cf: &ColumnFamily) -> Vec<LevelSummary> {
        let st = self.inner.state.lock();
        let Some(state) = st.cfs.get(&cf.id()) else {
            return Vec::new();
        };
        let Some(version) = st.versions.current(cf.id()) else {
            return Vec::new();
        };
        let report = compaction_report(&version, &state.options, &state.running);
        report
            .levels
            .iter()
            .map(|l| LevelSummary {
                files: l.num_files,
                bytes: l.bytes,
                score: l.score,
                // The picker's "no target" is u64::MAX (L0, levels above the base level).
                target_bytes: if l.target_bytes == u64::MAX {
                    0
                } else {
                    l.target_bytes
                },
            })
            .collect()
    }

    /// Estimated bytes compaction must rewrite to bring every level of `cf` within its target.
    pub fn pending_compaction_bytes_cf(&self, cf: &ColumnFamily) -> u64 {
        let st = self.inner.state.lock();
        match (st.cfs.get(&cf.id()), st.versions.current(cf.id())) {
            (Some(state), Some(version)) => {
                compaction_report(&version, &state.options, &state.running).pending_compaction_bytes
            }
            _ => 0,
        }
    }

    /// Total write delay and delayed writes, and stops, by cause: `(cause, delay, delayed,
    /// stops)`. The causes are compaction debt (L0 files, pending compaction bytes) and
    /// `memtable-limit`: a leader waiting because every memtable `max_write_buffer_number`
    /// allows is full (counted as delays, with their total wait).
    pub fn write_stalls(&self) -> Vec<(&'static str, Duration, u64, u64)> {
        let st = self.inner.state.lock();
        let mut out: Vec<_> = [Cause::L0Files, Cause::PendingCompactionBytes]
            .into_iter()
            .map(|c| {
                let (d, n) = st.write_control.delayed(c);
                (c.name(), d, n, st.write_control.stops(c))
            })
            .collect();
        let (d, n) = st.memtable_waits;
        out.push(("memtable-limit", d, n, 0));
        out
    }
}

impl DbInner {
    /// True when some family has a compaction the picker would start now.
    fn compaction_due(&self, st: &DbState) -> bool {
        next_plan(st, self.options.db.now_secs()).is_some()
    }

    /// Drives a [`ManualCompaction`] to the end on the caller's thread, waiting for background
    /// compactions that hold files it needs.
    fn manual_compaction(
        &self,
        cf: &CfData,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Result<()> {
        self.refuse_if_read_only("a manual compaction")?;
        let _call = self.begin_call()?;
        let mut manual = ManualCompaction::new(begin, end, BottommostLevelCompaction::Skip);
        let mut st = self.state.lock();
        loop {
            self.check_open()?;
            cf.check_live()?;
            let version = st
                .versions
                .current(cf.id)
                .ok_or_else(|| Error::InvalidArgument(format!("column family {:?}", cf.name)))?;
            let step = {
                let state = st.cf(cf.id);
                manual.next(&PickerInput {
                    version: &version,
                    options: &state.options,
                    running: &state.running,
                    now_secs: self.options.db.now_secs(),
                })
            };
            match step {
                ManualStep::Done => return Ok(()),
                ManualStep::Wait => {
                    let _ = self.cond.wait_for(&mut st, RETRY_PAUSE);
                }
                ManualStep::Run(plan) => {
                    let state = st.cf_mut(cf.id);
                    let order = state.options.comparator.clone();
                    state.running.register(&plan, &order);
                    self.run_plan(&mut st, cf.id, &plan)?;
                }
            }
        }
    }
}

/// Per-level compaction statistics of one column family (the rows of RocksDB's "Compaction
/// Stats" table), by output level.
#[derive(Debug, Clone, Default)]
pub struct CompactionStats {
    /// Indexed by output level.
    pub levels: Vec<LevelStats>,
}

/// One output level's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LevelStats {
    /// Compactions that wrote into the level (trivial moves included).
    pub compactions: u64,
    /// Of those, trivial moves.
    pub trivial_moves: u64,
    /// Bytes read from the input levels.
    pub bytes_read: u64,
    /// Of `bytes_read`, bytes read from the output level itself (RocksDB's Rnp1).
    pub bytes_read_output_level: u64,
    /// Bytes written to the level.
    pub bytes_written: u64,
    /// Bytes moved into the level by trivial moves.
    pub bytes_moved: u64,
    /// Files written into the level.
    pub files_written: u64,
    /// Entries read.
    pub keys_in: u64,
    /// Entries dropped (hidden, deleted, filtered).
    pub keys_dropped: u64,
    /// Seconds spent.
    pub seconds: f64,
    /// Subcompactions (key ranges run in parallel) that wrote files; equals the number of
    /// compactions that wrote files when nothing was split (`max_subcompactions`).
    pub subcompactions: u64,
}

impl CompactionStats {
    fn record(&mut self, plan: &CompactionPlan, outcome: &JobOutcome, elapsed: Duration) {
        let level = plan.output_level;
        if self.levels.len() <= level {
            self.levels.resize(level + 1, LevelStats::default());
        }
        let s = &mut self.levels[level];
        s.compactions += 1;
        if plan.is_trivial_move {
            s.trivial_moves += 1;
            s.bytes_moved += plan.input_bytes();
        }
        s.bytes_read += outcome.bytes_read;
        if !plan.is_trivial_move {
            s.bytes_read_output_level += plan
                .inputs
                .iter()
                .filter(|i| i.level == level)
                .map(|i| i.bytes())
                .sum::<u64>();
        }
        s.bytes_written += outcome.bytes_written;
        s.files_written += outcome.outputs;
        s.keys_in += outcome.keys_in;
        s.keys_dropped += outcome.keys_dropped;
        s.subcompactions += outcome.subcompactions;
        s.seconds += elapsed.as_secs_f64();
    }
}
