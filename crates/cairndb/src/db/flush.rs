//! Flush: writing immutable memtables to L0 tables, on the background flush thread or on the
//! thread of a caller of [`Db::flush`].
//!
//! Who runs it: one job at a time (`DbState::flushing`), always for every immutable memtable of
//! one family queued when it starts, oldest first (contract 4), merged into one table. The
//! background thread starts a job only when the family's flush is due (`CfState::flush_due`:
//! `min_write_buffer_number_to_merge` memtables queued, a forced flush, or all memtables in
//! use); [`Db::flush`] forces it. The table is built without the state lock; the lock is taken
//! to get the output number and to `log_and_apply` the edit.
//!
//! Invariants:
//! 1. The memtables leave the immutable list only after the edit adding their table (and
//!    moving the log number past the WALs of the newest of them) is durable; until then readers
//!    keep finding them there.
//! 2. A failed flush deletes its partial output, keeps the memtables and their WALs, reports
//!    the error to `flush()` callers, and is retried by the background thread after a pause.
//!    With `paranoid_checks`, a flush that finds corruption poisons writes instead (RocksDB's
//!    unrecoverable background error): it is not retried.
//! 3. Obsolete files are deleted only after `log_and_apply` returned (the version set's rule).

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::MutexGuard;

use super::switch::sync_retired_wals;
use super::{catch_job_panic, ColumnFamily, Db, DbInner, DbState};
use crate::compaction::deletion_collector::collector_for;
use crate::compaction::filter_bits::filter_bits_for;
use crate::compaction::iter::{CompactionIterOptions, CompactionIterator};
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::iter::{BoxedIterator, InternalIterator, MergingIterator, RangeDelSet};
use crate::memtable::MemTable;
use crate::options::{CfOptions, DbOptions};
use crate::rate_limiter::{IoPriority, RateLimitedFile};
use crate::sstable::TableBuilder;
use crate::types::{ParsedKey, RangeTombstone, SequenceNumber};
use crate::version::filenames::table_file_name;
use crate::version::{EntryStats, FileMetaData, VersionEdit};

/// Pause before the background thread retries a failed flush.
const RETRY_PAUSE: Duration = Duration::from_millis(100);

impl Db {
    /// Flushes the mutable and immutable memtables of every column family to L0 and waits for
    /// it. (RocksDB's `Flush` flushes one family; flushing all of them lets every WAL go.)
    ///
    /// # Errors
    /// [`Error::Closed`] after close; [`Error::Poisoned`] after a WAL failure; the flush's I/O
    /// error (the data stays in the memtable and its WAL, and a later flush retries).
    pub fn flush(&self) -> Result<()> {
        self.inner.flush_families(None)
    }

    /// Flushes the memtables of column family `cf` to L0 and waits for it.
    ///
    /// # Errors
    /// As [`Db::flush`]; [`Error::InvalidArgument`] when `cf` was dropped.
    pub fn flush_cf(&self, cf: &ColumnFamily) -> Result<()> {
        cf.data.check_live()?;
        self.inner.flush_families(Some(cf.id()))
    }
}

/// Starts the background flush thread.
pub(super) fn spawn_flusher(inner: Arc<DbInner>) -> Result<JoinHandle<()>> {
    let priority = inner.options.db.flush_cpu_priority;
    crate::util::thread_priority::spawn_at("cairndb-flush".into(), priority, move || {
        flush_loop(&inner);
    })
}

fn flush_loop(inner: &DbInner) {
    let mut st = inner.state.lock();
    loop {
        if inner.closed.load(Ordering::Acquire) {
            return;
        }
        // A poisoned version set or database fails every flush: wait for close instead of
        // spinning.
        let next = oldest_due(&st);
        let Some(id) =
            next.filter(|_| !st.flushing && !st.versions.is_poisoned() && st.poisoned.is_none())
        else {
            inner.bg_cond.wait(&mut st);
            continue;
        };
        if inner.flush_oldest(&mut st, id).is_err() {
            // Already recorded in `flush_error`; pause so a persistent fault does not spin.
            let _ = inner.bg_cond.wait_for(&mut st, RETRY_PAUSE);
        }
    }
}

/// Of the families whose flush is due, the one whose oldest immutable memtable retired first
/// (the one pinning the oldest WAL).
fn oldest_due(st: &DbState) -> Option<u32> {
    st.cfs
        .iter()
        .filter(|(_, cf)| cf.flush_due())
        .filter_map(|(&id, cf)| cf.imms.front().map(|imm| (imm.next_log, id)))
        .min()
        .map(|(_, id)| id)
}

impl DbInner {
    /// Flushes family `only` (or every family) and waits until the memtables that held data
    /// when called are in tables.
    pub(super) fn flush_families(&self, only: Option<u32>) -> Result<()> {
        self.refuse_if_read_only("a flush")?;
        let _call = self.begin_call()?;
        let mut st = self.state.lock();
        self.check_open()?;
        // A leader may be writing into a memtable with the mutex released (write.rs).
        while st.leader_active {
            self.cond.wait(&mut st);
        }
        let ids: Vec<u32> = match only {
            Some(id) if !st.cfs.contains_key(&id) => {
                return Err(Error::InvalidArgument(format!(
                    "column family {id} does not exist"
                )))
            }
            Some(id) => vec![id],
            None => st.cfs.keys().copied().collect(),
        };
        let non_empty: Vec<u32> = ids
            .iter()
            .copied()
            .filter(|&id| !st.cf(id).mem.is_empty())
            .collect();
        if !non_empty.is_empty() {
            if let Some(why) = &st.poisoned {
                return Err(Error::Poisoned(why.clone()));
            }
            self.switch_memtables(&mut st, &non_empty, true)?;
        }
        // A manual flush writes whatever is queued, however few (RocksDB's `FlushRequested`).
        for &id in &ids {
            st.cf_mut(id).force_flush();
        }
        let targets: Vec<(u32, Arc<MemTable>)> = ids
            .iter()
            .filter_map(|&id| st.cf(id).imms.back().map(|i| (id, Arc::clone(&i.mem))))
            .collect();
        for (id, target) in targets {
            // Until the target leaves the immutable list (or its family is dropped).
            while st
                .cfs
                .get(&id)
                .is_some_and(|cf| cf.imms.iter().any(|i| Arc::ptr_eq(&i.mem, &target)))
            {
                if st.flushing {
                    self.cond.wait(&mut st);
                    continue;
                }
                self.check_open()?;
                self.flush_oldest(&mut st, id)?;
            }
        }
        Ok(())
    }

    /// Flushes every immutable memtable family `id` has queued into one table. Called with the
    /// lock held and no flush running; releases the lock while the table is written.
    fn flush_oldest(&self, st: &mut MutexGuard<'_, DbState>, id: u32) -> Result<()> {
        // A pipelined commit group given sequence numbers before the newest memtable was
        // retired may still be inserting into it: wait until every such group is published
        // (or publication stopped after a failure, which poisons), then close the memtables
        // to further inserts (contract 4).
        loop {
            let newest = st.cfs.get(&id).and_then(|cf| cf.imms.back());
            match newest.map(|imm| imm.last_seq) {
                Some(seq) if self.last_sequence.load() < seq => {
                    MutexGuard::unlocked(st, || self.publish_queue.wait_through(seq));
                    if st.poisoned.is_some() {
                        break;
                    }
                }
                _ => break,
            }
        }
        // Retired WALs a commit leader is syncing are owed until that sync ends: wait, so the
        // decision below sees them synced or (after a failure) the database poisoned.
        while st.leader_syncing_wals {
            self.cond.wait(st);
        }
        if st.flushing || !st.cfs.contains_key(&id) {
            // Another flush began (or the family went) while this one waited: the callers
            // look again.
            return Ok(());
        }
        if let Some(why) = &st.poisoned {
            // A failed WAL write or sync left the WALs' contents unknown: a table made now
            // could hold writes whose predecessors are lost (contract 5).
            return Err(Error::Poisoned(why.clone()));
        }
        let cf = st.cf(id);
        let Some(newest) = cf.imms.back() else {
            return Ok(());
        };
        if self.last_sequence.load() < newest.last_seq {
            // A memtable retired while this job waited above is not complete yet: the
            // callers look again (and wait for its publication first).
            return Ok(());
        }
        // Every memtable queued now, newest first; their data lies in WALs below the newest
        // one's `next_log`, which becomes the family's log number.
        let next_log = newest.next_log;
        let mems: Vec<Arc<MemTable>> = cf.imms.iter().rev().map(|i| Arc::clone(&i.mem)).collect();
        for mem in &mems {
            // Complete (every group that could insert is published): no insert may follow.
            mem.mark_read_only();
        }
        let data = Arc::clone(&cf.data);
        let pending = st.versions.new_pending_output();
        // The memtable's WALs are synced before its table is installed when another family
        // still has data in them (contract 5), or when a prepared transaction pins one of them
        // (two_phase.rs invariant 4: recovery replays them for its prepare record, and must
        // find there the commit records of what the table holds). Otherwise the installed
        // table makes them obsolete: they are deleted unsynced, as RocksDB does with one
        // family, and their dirty pages are never written back.
        let owed = st
            .unsynced_wals
            .iter()
            .take_while(|(n, _)| *n < next_log)
            .count();
        let published = self.last_sequence.load();
        let shared = owed > 0
            && (others_need_wals_below(st, id, next_log, published)
                || super::two_phase::pinned_below(st, next_log));
        // Families holding nothing in memory now write only to the current WAL or later ones
        // while the table is built: the flush's edit raises their log numbers to it, so the
        // unsynced WALs stay obsolete even if those families are written meanwhile.
        let quiet = Quiet {
            families: other_quiet_families(st, id, published),
            wal: st.wal_number,
        };
        let mut retired: Vec<_> = if shared {
            st.unsynced_wals.drain(..owed).collect()
        } else {
            Vec::new()
        };
        st.flushing = true;
        st.syncing_retired_wals = !retired.is_empty();
        let synced = MutexGuard::unlocked(st, || sync_retired_wals(&mut retired));
        st.syncing_retired_wals = false;
        self.cond.notify_all();
        if let Err(e) = synced {
            // As a failed WAL write: what the OS kept of the file is unknown.
            st.poisoned = Some(format!("WAL sync failed: {e}"));
            st.flushing = false;
            st.flush_error = Some(e.to_string());
            st.background_failures += 1;
            return Err(e);
        }
        let started = std::time::Instant::now();
        // Snapshots taken later see the whole memtable as it is (it is immutable and older).
        let snapshots: Vec<SequenceNumber> = self.snapshots.lock().keys().copied().collect();
        let options = data.current_options();
        let filter_bits = filter_bits_for(st.versions.current(id).as_deref(), &options, 0, false);
        let built = MutexGuard::unlocked(st, || {
            catch_job_panic("flush", || {
                build_l0_table(
                    &*self.fs,
                    &self.dir,
                    &self.options.db,
                    &options,
                    filter_bits,
                    &mems,
                    pending.number(),
                    &snapshots,
                )
            })
        });
        let result = built.and_then(|table| {
            if table.is_some() {
                // The table's directory sync began after the WAL current at the flush's start
                // was created: that WAL's name, and every older one's, is durable (contract 6).
                st.wal_name_durable = st.wal_name_durable.max(quiet.wal);
            }
            let written = table
                .as_ref()
                .map(|t| (t.meta.number, t.meta.size, t.entries));
            self.install_flush(st, id, table.map(|t| t.meta), &mems, next_log, &quiet)?;
            if let Some((number, bytes, entries)) = written {
                let keys: u64 = mems.iter().map(|m| m.num_entries()).sum();
                self.counters
                    .record_flush(id, bytes, keys, started.elapsed());
                self.info_log.info(&format!(
                    "[{}] Flush: table #{number}, {bytes} bytes, {} memtables, {keys} entries \
                     in, {entries} written, {:.3} s",
                    data.name,
                    mems.len(),
                    started.elapsed().as_secs_f64()
                ));
            }
            Ok(())
        });
        st.flushing = false;
        drop(pending);
        match &result {
            Ok(()) => st.flush_error = None,
            // The partial table was removed by `build_l0_table` or `install_flush`.
            Err(e) => {
                self.log_error("flush", e);
                st.flush_error = Some(e.to_string());
                st.background_failures += 1;
                self.stop_on_fatal_error(st, "flush", e);
            }
        }
        self.cond.notify_all();
        // The flush thread and the compaction threads (a new L0 file may need compacting).
        self.bg_cond.notify_all();
        result
    }

    /// Records the flushed table and the new log number, then drops the flushed memtables
    /// (`mems`, newest first: the oldest `mems.len()` of the immutable list) and deletes what
    /// became obsolete (invariants 1 and 3). Families with
    /// nothing in memory move their log number to the current WAL in the same group (contract
    /// 3), so they do not keep old WALs alive; families that had nothing in memory when the
    /// flush started (`quiet`) move theirs to the WAL that was current then.
    fn install_flush(
        &self,
        st: &mut MutexGuard<'_, DbState>,
        id: u32,
        meta: Option<FileMetaData>,
        mems: &[Arc<MemTable>],
        next_log: u64,
        quiet: &Quiet,
    ) -> Result<()> {
        let mut edit = VersionEdit {
            log_number: Some(next_log),
            ..VersionEdit::default()
        };
        let number = meta.as_ref().map(|m| m.number);
        if let Some(meta) = meta {
            edit.add_file(0, meta);
        }
        let mut edits = vec![(id, edit)];
        let published = self.last_sequence.load();
        for (&other, cf) in &st.cfs {
            let log_number = if other == id {
                continue;
            } else if cf.holds_nothing(published) {
                st.wal_number
            } else if quiet.families.contains(&other) {
                quiet.wal
            } else {
                continue;
            };
            let bump = VersionEdit {
                log_number: Some(log_number),
                ..VersionEdit::default()
            };
            edits.push((other, bump));
        }
        if let Err(e) = self.log_and_apply(st, edits) {
            // Delete the table only if the edit surely is not in the MANIFEST: after a failed
            // MANIFEST write or sync (the set is poisoned) the edit may be there, and the next
            // open may find the table named; it deletes it then if it is not.
            if let Some(n) = number.filter(|_| !st.versions.is_poisoned()) {
                let _ = self.fs.remove(&self.dir.join(table_file_name(n)));
            }
            return Err(e);
        }
        let imms = &mut st.cf_mut(id).imms;
        for flushed in mems.iter().rev() {
            // Only this job removes immutable memtables, and writers only append to the list.
            let imm = imms
                .pop_front()
                .expect("the flushed memtables are still queued");
            assert!(
                Arc::ptr_eq(&imm.mem, flushed),
                "flushed memtables are the oldest"
            );
        }
        // WALs left unsynced because only this family needed them are obsolete now.
        st.unsynced_wals.retain(|(n, _)| *n >= next_log);
        self.publish_view(st, id);
        self.update_pressure(st);
        self.purge_obsolete_files(st);
        Ok(())
    }
}

impl DbInner {
    /// Stops the database on the background errors that retrying cannot cure. A job that
    /// panicked ([`catch_job_panic`]: a user comparator, merge operator or compaction filter
    /// that panicked or broke its contract, or an engine bug) would panic again. With
    /// `paranoid_checks`, corruption of a file met by a flush or a compaction is an
    /// unrecoverable background error (RocksDB's `ErrorHandler` severity for corruption under
    /// paranoid checks). Either way writes are refused with [`Error::Poisoned`] until reopen,
    /// and the background threads stop retrying. Without either, the job is retried like any
    /// other failure. A failing merge operator is reported as a corruption naming no file; it
    /// damages nothing stored, so it is retried either way (reads report it; `db.md`, Flush).
    pub(super) fn stop_on_fatal_error(&self, st: &mut DbState, job: &str, e: &Error) {
        if let Error::Poisoned(why) = e {
            if st.poisoned.is_none() {
                st.poisoned = Some(why.clone());
            }
            return;
        }
        let damaged_file = e
            .as_corruption()
            .is_some_and(|c| !c.file.as_os_str().is_empty());
        if self.options.db.paranoid_checks && damaged_file && st.poisoned.is_none() {
            st.poisoned = Some(format!(
                "{job} found corruption and paranoid_checks is set: {e}"
            ));
        }
    }
}

/// Families other than the flushed one that held nothing in memory when its flush started, and
/// the WAL that was current then: everything they were written since is in that WAL or later.
struct Quiet {
    families: Vec<u32>,
    wal: u64,
}

fn other_quiet_families(st: &DbState, id: u32, published: SequenceNumber) -> Vec<u32> {
    st.cfs
        .iter()
        .filter(|&(&other, cf)| other != id && cf.holds_nothing(published))
        .map(|(&other, _)| other)
        .collect()
}

/// Whether a family other than `id` may still need WALs numbered below `next_log`: it has data
/// in memory and its log number is below `next_log`. A family that holds nothing in memory has
/// its log number raised in the flush's own edit (`install_flush`).
fn others_need_wals_below(st: &DbState, id: u32, next_log: u64, published: SequenceNumber) -> bool {
    let logs = st.versions.column_families();
    st.cfs.iter().any(|(&other, cf)| {
        other != id
            && !cf.holds_nothing(published)
            && logs
                .iter()
                .find(|c| c.id == other)
                .is_none_or(|c| c.log_number < next_log)
    })
}

/// A table a flush wrote, returned only once the directory was synced after it was created
/// (the flush counts on that for the WALs' names too, `mod.rs` contract 6).
#[derive(Debug)]
pub(super) struct FlushedTable {
    pub meta: FileMetaData,
    /// Point entries written (the memtable's, less those the flush dropped).
    pub entries: u64,
}

/// Writes the memtables `mems` (newest first; one for a replayed memtable, several for a
/// merged flush) to table `number`, synced, with the family's output options for L0: their
/// point entries through a merging iterator and the [`CompactionIterator`] (as RocksDB's flush),
/// so versions no snapshot in `snapshots` can see (across memtables too) and entries hidden by
/// the memtables' range deletions are dropped; then every range deletion. Nothing is
/// bottommost and no compaction filter runs (RocksDB's default for flushes). Memtables holding
/// merge operands are written as they are (a failing merge operator must not stop flushes).
/// `Ok(None)` when nothing is left. On error the partial file is deleted.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_l0_table(
    fs: &dyn FileSystem,
    dir: &Path,
    db: &DbOptions,
    cf: &CfOptions,
    filter_bits: f64,
    mems: &[Arc<MemTable>],
    number: u64,
    snapshots: &[SequenceNumber],
) -> Result<Option<FlushedTable>> {
    if mems
        .iter()
        .all(|m| m.is_empty() && m.num_range_deletes() == 0)
    {
        return Ok(None);
    }
    let result = write_table(fs, dir, db, cf, filter_bits, mems, number, snapshots);
    if result.is_err() {
        // Best effort: an unreferenced table is also found obsolete later.
        let _ = fs.remove(&dir.join(table_file_name(number)));
    }
    result
}

/// The point entries of `mems` in internal-key order: the memtable's own iterator for one, a
/// merging iterator for several (their internal keys are disjoint: distinct sequence numbers).
fn point_entries(mems: &[Arc<MemTable>], order: &KeyOrder) -> BoxedIterator {
    match mems {
        [one] => Box::new(one.iter()),
        _ => Box::new(MergingIterator::new(
            mems.iter()
                .map(|m| Box::new(m.iter()) as BoxedIterator)
                .collect(),
            order.clone(),
        )),
    }
}

#[allow(clippy::too_many_arguments)]
fn write_table(
    fs: &dyn FileSystem,
    dir: &Path,
    db: &DbOptions,
    cf: &CfOptions,
    filter_bits: f64,
    mems: &[Arc<MemTable>],
    number: u64,
    snapshots: &[SequenceNumber],
) -> Result<Option<FlushedTable>> {
    let path = dir.join(table_file_name(number));
    let now = db.now_secs();
    let mut topts = cf.table_options_for_output(db, 0, false);
    topts.bloom_bits_per_key = filter_bits;
    let file = RateLimitedFile::wrap(
        fs.create(&path)?,
        db.rate_limiter.as_ref(),
        IoPriority::High,
    );
    let mut builder = TableBuilder::new(file, &path, &topts)?;
    let mut ranges = Vec::new();
    for mem in mems {
        let mut tombstones = mem.range_tombstone_iter();
        tombstones.seek_to_first();
        while tombstones.valid() {
            let p = ParsedKey::parse(tombstones.key())?;
            ranges.push(RangeTombstone::new(p.user_key, tombstones.value(), p.seq));
            tombstones.next();
        }
        tombstones.status()?;
    }
    let mut deletions = collector_for(cf.compact_on_deletion.as_ref());
    let mut entries = 0;
    let mut add = |key: &[u8], value: &[u8]| -> Result<()> {
        builder.add(key, value)?;
        if let Some(c) = &mut deletions {
            c.add(ParsedKey::parse(key)?.kind);
        }
        entries += 1;
        Ok(())
    };
    if mems.iter().all(|m| m.num_merges() == 0) {
        let mut points = CompactionIterator::new(
            point_entries(mems, &cf.comparator),
            RangeDelSet::new(ranges.iter().cloned(), cf.comparator.clone()),
            CompactionIterOptions {
                snapshots: snapshots.to_vec(),
                bottommost: false,
                merge_operator: None,
                compaction_filter: None,
                level: 0,
                zero_sequence_numbers: false,
            },
        );
        points.seek_to_first();
        while points.valid() {
            add(points.key(), points.value())?;
            points.next();
        }
        points.status()?;
    } else {
        // A merge operator may fail on these operands, and RocksDB's flush then fails and
        // stops the database. They are written as they are: reads report such a failure, and
        // compaction folds the operands later.
        let mut points = point_entries(mems, &cf.comparator);
        points.seek_to_first();
        while points.valid() {
            add(points.key(), points.value())?;
            points.next();
        }
        points.status()?;
    }
    for t in &ranges {
        builder.add_range_deletion(&t.begin, &t.end, t.seq)?;
    }
    let built = builder.finish()?;
    fs.sync_dir(dir)?;
    // The recorded range covers the tombstones too (RocksDB's rule; see `BuiltTable`).
    let (Some(smallest), Some(largest)) = (built.smallest(), built.largest()) else {
        // Only empty ranges: nothing worth a file.
        fs.remove(&path)?;
        return Ok(None);
    };
    let meta = FileMetaData {
        number,
        size: built.file_size,
        smallest: smallest.to_vec(),
        largest: largest.to_vec(),
        smallest_seqno: built.properties.smallest_seqno,
        largest_seqno: built.properties.largest_seqno,
        // RocksDB's flush: the file and its data are born now (TTL and periodic compaction
        // count from here).
        creation_time: Some(now),
        oldest_ancester_time: Some(now),
        marked_for_compaction: deletions.is_some_and(|c| c.need_compaction()),
        entry_stats: Some(EntryStats::of(&built.properties)),
        ..FileMetaData::default()
    };
    Ok(Some(FlushedTable { meta, entries }))
}
