//! The commit path: sequence numbers, the WAL record, the memtable insert and publication.
//! Before a group writes, its leader makes room (`switch.rs`: write-controller delays, the
//! memtable switch and WAL roll when the memtable is full, the WAL size limit).
//!
//! Called from any writer thread. Group commit (LevelDB's scheme, RocksDB's write thread):
//! writers queue under the state mutex, each with its own [`Writer`] to wait on (`writer.rs`:
//! spin, yield, then park, so a short wait costs no system call); the writer at the head becomes
//! the leader, merges the queued batches into one WAL record (a two-phase-commit record, marked,
//! stays a record of its own, in queue order) and writes (and syncs, if any member asked) the
//! group's records with the mutex released. Then the group's batches go into the memtables:
//! with `allow_concurrent_memtable_write` (the default) and more than one member, the leader
//! hands each member its own batch and each inserts it on its own thread, at once, with the
//! sequence numbers of its place in the record (RocksDB's parallel memtable writes); without it
//! the leader inserts the whole record alone. Once every insert has finished, the group is
//! published in sequence order (`publish_queue.rs`) and the leader hands each follower its
//! result. Leadership passes to the new head of the queue when the leader's group is written
//! (`enable_pipelined_write`, the default: the next group's WAL write overlaps this group's
//! inserts) or, without pipelining, when it is published.
//!
//! Invariants (numbers refer to the module contract in `mod.rs`):
//! 1. Nothing is written for a batch that fails validation (sizes are checked when the batch
//!    is built, so a rejected put leaves the database unchanged).
//! 2. A WAL failure poisons before the error is returned (contract 2), and the memtable insert
//!    happens only after the WAL accepted the record.
//! 3. A writer that finds `max_write_buffer_number` memtables in use waits on the condition
//!    variable for the flush thread instead of growing memory without bound; if the last flush
//!    failed it gets that error instead of waiting (the flush thread retries, and writes
//!    resume once a flush succeeds).
//! 4. At most one leader at a time (`leader_active`), and only the head of the queue leads:
//!    WAL-only records (two-phase commit) queue too, so leadership is handed to a writer once
//!    per term. Groups are committed in queue order, so sequence numbers follow WAL order. While a leader is active, nothing else switches the
//!    memtable, takes the WAL or closes it.
//! 5. Under compaction debt the leader's batch waits as the write controller says
//!    (`write_control.rs`) before anything is written; a stopped database waits for compaction
//!    and, if compaction keeps failing, returns that error rather than waiting forever.
//! 6. A group member inserts its batch only after the group's WAL record was accepted, and the
//!    leader publishes the group's last sequence (mod.rs invariant 1) only after every member
//!    reported its insert finished (`group_insert.rs`, `GroupInsert::member_done`: the last of the AcqRel
//!    decrements wakes the leader, so each member's inserts happen before the publication). A
//!    member whose insert fails gets its error; the database is poisoned and the rest of the
//!    group gets `Poisoned`, as when the leader's insert fails.
//! 7. A writer's state moves only as `writer.rs` allows: the leader that ends its term moves
//!    the new head of the queue to `LEADER` (nobody else can lead or take that writer into a
//!    group until it has led); a leader moves each member of its group to `INSERT` at most once
//!    and to `DONE` once, after the member's report; the last member's report moves the leader
//!    to `GROUP_INSERTED`. So the waiter's reset to `WAITING` never overwrites a later state.
//! 8. Sequence numbers are allocated (`VersionSet::last_sequence` moves past the group) and the
//!    group registered in `publish_queue.rs` in one step under the lock; the group is published
//!    by that queue, in sequence order, after its inserts and every earlier group's. With
//!    `enable_pipelined_write` the leader's term ends once its WAL record is written, so the
//!    next group writes its record while this one inserts; a memtable retired meanwhile is
//!    flushed only after every group allocated before its retirement is published
//!    (`Imm::last_seq`), and a family with a group in flight does not count as empty
//!    (`CfState::holds_nothing`). A failed WAL write abandons the group (it inserted nothing);
//!    a failed insert stops publication for good.
//!    A group of WAL-only records (two-phase commit) alone allocates no sequence numbers and
//!    is not published; in a mixed group they take none, so the inserting records' numbers
//!    follow their WAL order.
//! 9. Sync coalescing: with `enable_pipelined_write`, a synced group that inserts (and whose
//!    WAL file has a syncer) appends and flushes its record in its term but syncs after it,
//!    through the log's [`LogSync`]: the next group appends while the sync runs, and one sync
//!    covers every group flushed before it started. The group inserts and is published only
//!    once its record is durable, so a synced write is visible only when durable, as before.
//!    Retired WALs are still synced in the term, before the append (contract 5). A failed sync
//!    poisons the database and stops publication for good, as a failed insert does (the group
//!    and every group not yet published get an error, `publish_queue.rs`); every
//!    later sync of that log fails too (`wal/sync.rs`, invariant 3).
//! 10. A synced group whose WAL's name is not durable yet (a memtable switch left it to a
//!     later directory sync, `mod.rs` contract 6) syncs the directory in its term, before its
//!     record; a failure there poisons as a failed WAL sync does.
//! 11. A synced group that inserts nothing (`Db::sync_wal`'s empty write, WAL-only records)
//!     has nothing to publish, so with `enable_pipelined_write` its sync too comes after its
//!     term, through the log's [`LogSync`]: writers behind a `sync_wal` (RocksDB's `SyncWAL`,
//!     which syncs outside its write thread too) append while it syncs. The group's writers
//!     return once the sync covers its offset; a failed sync poisons the database. Unlike
//!     invariant 9 it stops no publication: the groups written while it synced are unsynced
//!     writes (a synced one waits on the same log's sync, which then fails too), and every
//!     write after the failure is refused. `close` does not wait for such a sync; the log's
//!     `LogSync` keeps the file open until it ends.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use parking_lot::MutexGuard;

use super::deferred_sync::Syncing;
use super::group_insert::{insert_as_member, GroupInsert};
use super::publish_queue::Completion;
use super::switch::sync_retired_wals;
use super::writer::{MemberInsert, Writer, DONE, GROUP_INSERTED, INSERT, LEADER, PUBLISHED};
use super::{ColumnFamily, Db, DbInner, DbState, Queued};
use crate::batch::{WriteBatch, DEFAULT_CF};
use crate::error::{Error, Result};
use crate::memtable::{insert_batch, MemTable};
use crate::options::WriteOptions;
use crate::statistics::{micros_since, HistogramType, Statistics};
use crate::types::ValueKind;
use crate::wal::{LogSync, LogWriter};

impl Db {
    /// Applies `batch` atomically, across every column family it names.
    ///
    /// # Errors
    /// [`Error::Closed`] after close; [`Error::Poisoned`] after an earlier WAL failure; the
    /// WAL's I/O error (which poisons the database); [`Error::InvalidArgument`] for invalid
    /// write options, a batch naming a column family that does not exist, or a batch with a
    /// two-phase-commit marker (only transactions write those; nothing of the batch is
    /// applied).
    pub fn write(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        if batch.marker().is_some() {
            return Err(Error::InvalidArgument(
                "a batch with a two-phase-commit marker is written by transactions only".into(),
            ));
        }
        self.write_unchecked(opts, batch)
    }

    /// [`Db::write`] without the marker check: the commit of a prepared transaction
    /// (`two_phase.rs`).
    pub(super) fn write_unchecked(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        opts.validate()?;
        let Some(stats) = self.inner.counters.stats() else {
            return self.inner.commit(opts, batch);
        };
        let started = Instant::now();
        let result = self.inner.commit(opts, batch);
        stats.record_in_histogram(HistogramType::DbWrite, micros_since(started));
        result
    }

    /// Makes every write acknowledged so far durable (RocksDB's `SyncWAL`, and `FlushWAL(true)`):
    /// an empty synced write, which appends nothing and syncs the older live WALs, the current
    /// WAL's directory entry when it is not durable yet, and the current WAL, as any synced
    /// write does. CairnDB hands each write to the OS before acknowledging it, so there is no
    /// WAL buffer to flush first.
    ///
    /// # Errors
    /// As [`Db::write`]: a failed sync poisons the database.
    pub fn sync_wal(&self) -> Result<()> {
        let opts = WriteOptions {
            sync: true,
            ..WriteOptions::default()
        };
        self.write(&opts, WriteBatch::new())
    }

    /// Sets `key` to `value` in the default column family.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a key over 8 MiB or a value over the batch limit (nothing
    /// is written); otherwise as [`Db::write`].
    pub fn put(&self, opts: &WriteOptions, key: &[u8], value: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(key, value)?;
        self.write(opts, b)
    }

    /// Sets `key` to `value` in column family `cf`.
    ///
    /// # Errors
    /// As [`Db::put`]; [`Error::InvalidArgument`] when `cf` was dropped.
    pub fn put_cf(
        &self,
        opts: &WriteOptions,
        cf: &ColumnFamily,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put_cf(cf.id(), key, value)?;
        self.write(opts, b)
    }

    /// Deletes `key` from the default column family.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn delete(&self, opts: &WriteOptions, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete(key)?;
        self.write(opts, b)
    }

    /// Deletes `key` from column family `cf`.
    ///
    /// # Errors
    /// As [`Db::put_cf`].
    pub fn delete_cf(&self, opts: &WriteOptions, cf: &ColumnFamily, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_cf(cf.id(), key)?;
        self.write(opts, b)
    }

    /// Deletes `key`, which the caller promises was put at most once since its last deletion.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn single_delete(&self, opts: &WriteOptions, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.single_delete(key)?;
        self.write(opts, b)
    }

    /// [`Db::single_delete`] in column family `cf`.
    ///
    /// # Errors
    /// As [`Db::put_cf`].
    pub fn single_delete_cf(
        &self,
        opts: &WriteOptions,
        cf: &ColumnFamily,
        key: &[u8],
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.single_delete_cf(cf.id(), key)?;
        self.write(opts, b)
    }

    /// Adds a merge operand for `key` in the default column family.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn merge(&self, opts: &WriteOptions, key: &[u8], operand: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.merge(key, operand)?;
        self.write(opts, b)
    }

    /// Adds a merge operand for `key` in column family `cf`.
    ///
    /// # Errors
    /// As [`Db::put_cf`].
    pub fn merge_cf(
        &self,
        opts: &WriteOptions,
        cf: &ColumnFamily,
        key: &[u8],
        operand: &[u8],
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.merge_cf(cf.id(), key, operand)?;
        self.write(opts, b)
    }

    /// Deletes every key in `[begin, end)` of the default column family.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn delete_range(&self, opts: &WriteOptions, begin: &[u8], end: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_range(begin, end)?;
        self.write(opts, b)
    }

    /// Deletes every key in `[begin, end)` of column family `cf`.
    ///
    /// # Errors
    /// As [`Db::put_cf`].
    pub fn delete_range_cf(
        &self,
        opts: &WriteOptions,
        cf: &ColumnFamily,
        begin: &[u8],
        end: &[u8],
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_range_cf(cf.id(), begin, end)?;
        self.write(opts, b)
    }
}

impl DbInner {
    pub(super) fn check_writable(&self, st: &DbState) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        self.refuse_if_read_only("a write")?;
        if let Some(why) = &st.poisoned {
            return Err(Error::Poisoned(why.clone()));
        }
        // Fail-stop on a MANIFEST failure (durability.md, D5): the file set on disk is unknown,
        // so nothing more is acknowledged until a reopen recovers it.
        match st.versions.poison_reason() {
            Some(why) => Err(Error::Poisoned(format!("MANIFEST write failed: {why}"))),
            None => Ok(()),
        }
    }

    /// Queues the batch and waits until a leader has committed it, or becomes the leader
    /// (invariant 4). The wait is `writer.rs`'s: spin, yield, then park, on this call's own
    /// [`Writer`].
    fn commit(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        // An empty batch changes nothing, unless it is synced: then, as in RocksDB, it goes
        // through the commit path for its sync, which makes every earlier write durable
        // (`Db::sync_wal` relies on it); it appends no record (`append_wal`).
        if batch.count() == 0 && (!opts.sync || opts.disable_wal) {
            return self.check_writable(&self.state.lock());
        }
        self.enqueue(Queued {
            writer: Arc::new(Writer::new()),
            batch,
            sync: opts.sync,
            disable_wal: opts.disable_wal,
            no_slowdown: opts.no_slowdown,
            wal_only: false,
        })
    }

    /// Queues `q` and waits until a leader committed it or it leads (invariant 4). Every
    /// leader, a WAL-only writer's included, comes through here: leadership passes only to
    /// the head of the queue, so no writer is handed it twice.
    fn enqueue(&self, q: Queued) -> Result<()> {
        let me = Arc::clone(&q.writer);
        let mut st = self.state.lock();
        self.check_writable(&st)?;
        st.writers.push_back(q);
        if !may_lead(&st, &me) {
            drop(st);
            st = match self.wait_turn(&me) {
                Turn::Done(result) => return result,
                Turn::Lead(st) => st,
            };
        }
        st.leader_active = true;
        let (result, outcomes) = match self.lead(&mut st) {
            Stage::Finished(result, outcomes) => {
                self.end_leadership(st);
                (result, outcomes)
            }
            Stage::Written(group) if self.options.db.enable_pipelined_write => {
                // The next leader may write its record while this group syncs and inserts
                // (invariants 8 and 9).
                self.end_leadership(st);
                match self.await_durable(group) {
                    Ok(group) => self.insert_and_publish(group),
                    Err(failed) => failed,
                }
            }
            Stage::Written(group) => {
                let done = MutexGuard::unlocked(&mut st, || self.insert_and_publish(group));
                self.end_leadership(st);
                done
            }
            Stage::Syncing(group) => {
                // Nothing to publish: the next leader may write while this group syncs
                // (invariant 11).
                self.end_leadership(st);
                self.sync_after_term(group)
            }
        };
        for (writer, outcome) in outcomes {
            writer.finish(outcome);
        }
        result
    }

    /// Writes a two-phase-commit `Prepare` or `Rollback` record, or the `Commit` record of a
    /// transaction without writes (`batch`, marked), to the WAL alone: no sequence numbers, no
    /// memtable. It queues as any writer and joins a group (as a WAL record of its own, see
    /// [`take_group`]), so it follows contract 5 for a synced record; the leader updates the
    /// prepared transactions' WAL pins (`two_phase.rs`) once the group's records are written.
    pub(super) fn write_wal_only(&self, batch: WriteBatch, sync: bool) -> Result<()> {
        debug_assert!(batch.marker().is_some(), "only marked records are WAL-only");
        self.enqueue(Queued {
            writer: Arc::new(Writer::new()),
            batch,
            sync,
            disable_wal: false,
            no_slowdown: false,
            wal_only: true,
        })
    }

    /// Passes leadership to the new head of the queue (invariant 4). The wake-up happens with
    /// the mutex released, so writers queueing meanwhile do not wait for it.
    fn end_leadership(&self, mut st: MutexGuard<'_, DbState>) {
        st.leader_active = false;
        let next = st.writers.front().map(|q| Arc::clone(&q.writer));
        drop(st);
        self.cond.notify_all();
        if let Some(next) = next {
            next.set_state(LEADER);
        }
    }

    /// Waits, without the state lock, until this writer's batch was committed by a leader
    /// (inserting it itself when the leader hands it over) or it may lead.
    fn wait_turn<'a>(&'a self, me: &Writer) -> Turn<'a> {
        loop {
            let state = me.await_state(
                LEADER | INSERT | DONE,
                &self.wait_policy,
                &self.follower_yield,
            );
            match state {
                DONE => return Turn::Done(me.take_result()),
                INSERT => insert_as_member(me.take_task()),
                _ => {
                    let st = self.state.lock();
                    me.reset(LEADER);
                    if may_lead(&st, me) {
                        return Turn::Lead(st);
                    }
                }
            }
        }
    }

    /// Writes the WAL record of a group headed by this writer (synced if any member asked),
    /// with the lock released, after allocating the group's sequence numbers and registering
    /// it for publication. Returns the group for its inserts, or the results when it ends
    /// here (a refused batch, a failed WAL write).
    fn lead(&self, st: &mut MutexGuard<'_, DbState>) -> Stage {
        let checked = self
            .check_writable(st)
            .and_then(|()| check_families(st, &st.writers[0].batch))
            .and_then(|()| self.make_room(st))
            .and_then(|()| self.throttle(st));
        if let Err(e) = checked {
            st.writers.pop_front();
            return Stage::Finished(Err(e), Vec::new());
        }
        let concurrent = self.options.db.allow_concurrent_memtable_write;
        let Group {
            mut records,
            members,
            writers,
            mut outcomes,
            sync,
            disable_wal,
        } = take_group(st, concurrent);
        if sync && !disable_wal {
            // A synced record must not be acknowledged while retired WALs the flush thread is
            // syncing may still be lost (contract 5). Checked here, after every wait above and
            // with the group's members known; nothing can switch memtables meanwhile (the
            // leader is active). If that sync fails, the database is poisoned.
            while st.syncing_retired_wals {
                self.cond.wait(st);
            }
            if let Err(e) = self.check_writable(st) {
                let why = format!("{e}");
                outcomes.extend(poisoned(&writers[1..], &why));
                return Stage::Finished(Err(e), outcomes);
            }
        }
        // Sequence numbers are allocated and the group registered for publication in one
        // step under the lock, so registration follows allocation order (invariant 8). They
        // follow the records' WAL order; WAL-only records take none. A group of WAL-only
        // records alone allocates nothing and is not published.
        let first = st.versions.last_sequence() + 1;
        let mut next = first;
        let mut max_cf = 0;
        for r in &mut records {
            r.batch.set_sequence(next);
            if !r.wal_only {
                next += u64::from(r.batch.count());
                max_cf = max_cf.max(r.batch.max_column_family());
            }
        }
        let inserts = next > first;
        let last = next - 1;
        let mut mems = Vec::new();
        if inserts {
            st.versions.set_last_sequence(last);
            self.publish_queue.register(last, Arc::clone(&writers[0]));
            // Only the families the group writes (most groups: the default one alone); each
            // remembers that a group in flight writes to it (`CfState::holds_nothing`).
            for (&id, cf) in st.cfs.range_mut(..=max_cf) {
                cf.last_allocated = last;
                mems.push((id, Arc::clone(&cf.mem)));
            }
        }
        // The WAL is stable while `leader_active` is set: memtable switches, manual flushes,
        // family drops and close wait for it to clear.
        let mut wal = if disable_wal { None } else { st.wal.take() };
        // A synced record must not outlive older records (contract 5): retired WALs first.
        let mut retired = if sync && wal.is_some() {
            std::mem::take(&mut st.unsynced_wals)
        } else {
            Vec::new()
        };
        st.leader_syncing_wals = !retired.is_empty();
        // A synced record needs its WAL's name durable too (contract 6); only the current
        // WAL's may not be, once per WAL.
        let sync_dir = sync && wal.is_some() && st.wal_name_durable < st.wal_number;
        // With pipelining, a synced group syncs after its term (invariants 9 and 11), so the
        // next group appends while the sync runs and one sync covers several groups.
        let log_sync = if sync && self.options.db.enable_pipelined_write {
            wal.as_ref().and_then(LogWriter::log_sync)
        } else {
            None
        };
        let inline_sync = sync && log_sync.is_none();
        let written = MutexGuard::unlocked(st, || {
            if sync_dir {
                self.fs
                    .sync_dir(&self.dir)
                    .map_err(|e| (e, "WAL directory sync failed"))?;
            }
            sync_retired_wals(&mut retired).map_err(|e| (e, "WAL sync failed"))?;
            match wal.as_mut() {
                Some(wal) => {
                    append_wal(wal, &records, inline_sync, self.counters.stats())
                        .map_err(|e| (e, "WAL write failed"))?;
                    Ok(wal.len())
                }
                None => Ok(0),
            }
        });
        if std::mem::take(&mut st.leader_syncing_wals) {
            self.cond.notify_all();
        }
        let used_wal = wal.is_some();
        if used_wal {
            st.wal = wal;
        }
        let wal_end = match written {
            Ok(end) => {
                if sync_dir {
                    // No switch can have happened: the leader is active (invariant 4).
                    st.wal_name_durable = st.wal_number;
                }
                end
            }
            Err((e, what)) => {
                // After a failed WAL write nothing can be trusted: poison (contract 2). Followers
                // get Poisoned carrying the error. The group inserted nothing (invariant 8).
                let why = format!("{what}: {e}");
                if inserts {
                    self.publish_queue.abandon(last);
                }
                outcomes.extend(poisoned(&writers[1..], &why));
                st.poisoned = Some(why);
                return Stage::Finished(Err(e), outcomes);
            }
        };
        if used_wal {
            let wal_number = st.wal_number;
            for r in records.iter().filter(|r| r.batch.marker().is_some()) {
                super::two_phase::record_marker(st, &r.batch, wal_number);
            }
        }
        if !inserts {
            // WAL-only records, or only `Db::sync_wal`'s empty write: nothing to insert or
            // publish. A sync left for after the term runs there (invariant 11).
            if let Some(log) = log_sync {
                return Stage::Syncing(Syncing {
                    log,
                    offset: wal_end,
                    writers,
                    outcomes,
                });
            }
            outcomes.extend(writers[1..].iter().map(|w| (Arc::clone(w), Ok(()))));
            return Stage::Finished(Ok(()), outcomes);
        }
        records.retain(|r| !r.wal_only);
        Stage::Written(Written {
            records,
            members,
            writers,
            outcomes,
            first,
            mems,
            used_wal,
            syncs: u64::from(inline_sync && used_wal),
            durable: log_sync.map(|l| (l, wal_end)),
        })
    }

    /// Waits until the group's record is durable when its sync comes after its term
    /// (invariant 9). On a failed sync the database is poisoned, publication stops for good,
    /// and the leader and followers get their results.
    fn await_durable(&self, mut group: Written) -> std::result::Result<Written, Finished> {
        let Some((log, offset)) = group.durable.take() else {
            return Ok(group);
        };
        match self.sync_log(&log, offset) {
            Ok(ran) => {
                group.syncs = u64::from(ran);
                Ok(group)
            }
            Err((e, why)) => {
                let count: u64 = group
                    .records
                    .iter()
                    .map(|r| u64::from(r.batch.count()))
                    .sum();
                self.publish_queue.complete(
                    group.first + count - 1,
                    Err(why.clone()),
                    &self.last_sequence,
                );
                let mut outcomes = group.outcomes;
                outcomes.extend(poisoned(&group.writers[1..], &why));
                Err((Err(e), outcomes))
            }
        }
    }

    /// Inserts a written group into the memtables (members on their own threads, or the
    /// leader alone) and publishes it in sequence order (invariants 6 and 8). Called without
    /// the state lock. Returns the leader's result and each follower's.
    fn insert_and_publish(&self, group: Written) -> (Result<()>, Vec<Outcome>) {
        let Written {
            records,
            mut members,
            writers,
            mut outcomes,
            first,
            mems,
            used_wal,
            syncs,
            durable,
        } = group;
        debug_assert!(durable.is_none(), "awaited before the inserts");
        let count: u64 = records.iter().map(|r| u64::from(r.batch.count())).sum();
        let last = first + count - 1;
        let (inserted, mut failed_members) = if members.is_empty() {
            let all = records
                .iter()
                .try_for_each(|r| insert_into(&r.batch, &mems));
            (all, Vec::new())
        } else {
            self.insert_in_parallel(&writers, &mut members, first, mems)
        };
        let failure = match inserted {
            Err(e) => Some((e, "memtable insert failed")),
            Ok(()) => failed_members.first().map(|(_, e)| {
                (
                    Error::Poisoned(format!("memtable insert failed: {e}")),
                    "memtable insert of a group member failed",
                )
            }),
        };
        let followers = &writers[1..];
        if let Some((e, what)) = failure {
            // A partial insert: nothing can be trusted (contract 2). Publication stops here
            // (invariant 8); followers get Poisoned, a member whose own insert failed its error.
            let why = format!("{what}: {e}");
            self.state.lock().poisoned = Some(why.clone());
            self.publish_queue
                .complete(last, Err(why.clone()), &self.last_sequence);
            for (i, w) in followers.iter().enumerate() {
                let own = failed_members
                    .iter()
                    .position(|(index, _)| *index == i + 1)
                    .map(|at| failed_members.swap_remove(at).1);
                let outcome = own.unwrap_or_else(|| Error::Poisoned(why.clone()));
                outcomes.push((Arc::clone(w), Err(outcome)));
            }
            return (Err(e), outcomes);
        }
        let leader = &writers[0];
        let result = match self
            .publish_queue
            .complete(last, Ok(()), &self.last_sequence)
        {
            Completion::Published => Ok(()),
            Completion::Queued => {
                leader.await_state(PUBLISHED, &self.wait_policy, &self.leader_yield);
                leader.take_result()
            }
            Completion::Stopped(why) => Err(Error::Poisoned(why)),
        };
        match &result {
            Ok(()) => {
                self.counters.record_group(
                    writers.len() as u64,
                    count,
                    records.iter().map(|r| r.batch.data_size() as u64).sum(),
                    used_wal,
                    syncs,
                );
                outcomes.extend(followers.iter().map(|w| (Arc::clone(w), Ok(()))));
            }
            Err(e) => outcomes.extend(poisoned(followers, &format!("{e}"))),
        }
        (result, outcomes)
    }

    /// Hands each follower its own batch (sequence numbers at its place in the group's record)
    /// to insert on its own thread, inserts the leader's batch, and waits until every member
    /// finished (invariant 6). Called without the state lock. Returns the leader's own insert
    /// result and the members' failures by place in the group. `members` holds every member's
    /// batch, the leader's first, in the order of `writers`.
    fn insert_in_parallel(
        &self,
        writers: &[Arc<Writer>],
        members: &mut Vec<Option<WriteBatch>>,
        first: u64,
        mems: Vec<(u32, Arc<MemTable>)>,
    ) -> (Result<()>, Vec<(usize, Error)>) {
        debug_assert_eq!(writers.len(), members.len());
        // Sequence numbers in queue order, as the WAL records have them (`lead`); WAL-only
        // members (`None`) take none and insert nothing.
        let mut seq = first;
        for batch in members.iter_mut().flatten() {
            batch.set_sequence(seq);
            seq += u64::from(batch.count());
        }
        let inserting = members[1..].iter().filter(|m| m.is_some()).count();
        let leader = &writers[0];
        let group = Arc::new(GroupInsert::new(Arc::clone(leader), inserting, mems));
        let mut batches = members.drain(..);
        let own = batches.next().expect("the leader's batch");
        for (i, (writer, batch)) in writers[1..].iter().zip(batches).enumerate() {
            if let Some(batch) = batch {
                writer.hand_insert(MemberInsert {
                    batch,
                    index: i + 1,
                    group: Arc::clone(&group),
                });
            }
        }
        let result = own.map_or(Ok(()), |b| insert_into(&b, &group.mems));
        if inserting > 0 {
            leader.await_state(GROUP_INSERTED, &self.wait_policy, &self.leader_yield);
            leader.reset(GROUP_INSERTED);
        }
        let failures = std::mem::take(&mut *group.failures.lock());
        (result, failures)
    }
}

/// Every column family `batch` names is live, every family it merges into has a merge
/// operator (RocksDB refuses such merges at write time too: a flush or compaction could not
/// fold them), and every range deletion's begin key does not sort after its end key in its
/// family's order (RocksDB: "end key comes before start key"). Checked under the state lock by
/// the leader, before the WAL, so a family cannot be dropped between the check and the insert
/// and a refused batch leaves no trace.
fn check_families(st: &DbState, batch: &WriteBatch) -> Result<()> {
    if batch.max_column_family() == DEFAULT_CF && !batch.needs_family_check() {
        return Ok(());
    }
    for entry in batch {
        let entry = entry?;
        let Some(cf) = st.cfs.get(&entry.cf) else {
            return Err(Error::InvalidArgument(format!(
                "write batch names column family {}, which does not exist",
                entry.cf
            )));
        };
        if entry.kind == ValueKind::Merge && cf.options.merge_operator.is_none() {
            return Err(Error::InvalidArgument(format!(
                "merge into column family {:?} requires a merge_operator (none is set)",
                cf.data.name
            )));
        }
        if entry.kind == ValueKind::RangeDelete
            && cf
                .options
                .comparator
                .compare(entry.key, entry.value)
                .is_gt()
        {
            return Err(Error::InvalidArgument(format!(
                "delete_range in column family {:?}: the end key comes before the begin key \
                 (comparator {})",
                cf.data.name,
                cf.options.comparator.name()
            )));
        }
    }
    Ok(())
}

/// Whether `me` may lead now: it heads the queue and no leader is active (invariant 4).
fn may_lead(st: &DbState, me: &Writer) -> bool {
    !st.leader_active
        && st
            .writers
            .front()
            .is_some_and(|q| std::ptr::eq(&*q.writer, me))
}

/// How a queued writer's wait ended.
enum Turn<'a> {
    /// A leader committed the batch (or refused it).
    Done(Result<()>),
    /// The writer heads the queue with no leader active; the state lock is held.
    Lead(MutexGuard<'a, DbState>),
}

/// A follower and the result the leader hands it.
pub(super) type Outcome = (Arc<Writer>, Result<()>);

/// A group that ended: the leader's result and the followers' outcomes.
pub(super) type Finished = (Result<()>, Vec<Outcome>);

/// `Poisoned` outcomes carrying `why`, one for each of `writers`.
pub(super) fn poisoned(writers: &[Arc<Writer>], why: &str) -> Vec<Outcome> {
    writers
        .iter()
        .map(|w| (Arc::clone(w), Err(Error::Poisoned(why.to_string()))))
        .collect()
}

/// Where a leader's term left its group.
enum Stage {
    /// The group ended without inserting: the leader's result and the followers'.
    Finished(Result<()>, Vec<Outcome>),
    /// The group's WAL record is written; its inserts and publication come next.
    Written(Written),
    /// The group inserts nothing and its WAL sync comes after its term (invariant 11).
    Syncing(Syncing),
}

/// A group whose WAL record is written (or skipped with `disable_wal`), registered for
/// publication, waiting for its inserts.
struct Written {
    /// The records to insert (WAL-only ones removed), sequence numbers set.
    records: Vec<Record>,
    /// Each member's own batch, leader first, when they insert their own (`None`: a WAL-only
    /// member); else empty.
    members: Vec<Option<WriteBatch>>,
    writers: Vec<Arc<Writer>>,
    outcomes: Vec<Outcome>,
    first: u64,
    mems: Vec<(u32, Arc<MemTable>)>,
    used_wal: bool,
    /// WAL syncs this group's leader ran (for the statistics).
    syncs: u64,
    /// The log and offset the group's record must be durable through before its inserts,
    /// when its sync comes after the term (invariant 9).
    durable: Option<(Arc<LogSync>, u64)>,
}

/// Most bytes one group's WAL record holds: large enough to amortize a sync over many small
/// writes, small enough that a follower does not wait behind a huge record.
const MAX_GROUP_BYTES: usize = 1 << 20;

/// One WAL record of a group.
struct Record {
    batch: WriteBatch,
    /// A marked two-phase-commit record written to the WAL only: no sequence numbers, no
    /// memtable insert.
    wal_only: bool,
}

/// A commit group taken from the queue.
struct Group {
    /// The group's WAL records in queue order: each run of unmarked batches in one record,
    /// each marked batch (two-phase commit) in a record of its own.
    records: Vec<Record>,
    /// Each member's own batch, leader first, when the members insert their own (concurrent
    /// memtable writes and more than one member; `None` for a WAL-only member); empty when the
    /// leader inserts the records.
    members: Vec<Option<WriteBatch>>,
    /// The members' writers, leader first.
    writers: Vec<Arc<Writer>>,
    /// Followers refused while the group was taken (a missing column family), with their
    /// errors, to be handed out with the others' results.
    outcomes: Vec<Outcome>,
    /// Whether any member asked for sync.
    sync: bool,
    /// Whether the WAL is skipped.
    disable_wal: bool,
}

impl Group {
    /// Appends `batch` to the group's last record when both are unmarked batches that insert
    /// (one WAL record for the run); false when `batch` needs a record of its own.
    fn append_to_last(&mut self, batch: &WriteBatch, wal_only: bool) -> bool {
        if wal_only || batch.marker().is_some() {
            return false;
        }
        self.records.last_mut().is_some_and(|last| {
            !last.wal_only && last.batch.marker().is_none() && last.batch.append(batch).is_ok()
        })
    }
}

/// Pops the leader's batch and the followers' that fit into one group with it (same WAL
/// setting, at most [`MAX_GROUP_BYTES`]). Unmarked batches share a record; a two-phase-commit
/// record (a prepare, a rollback, a commit) is one of its own, written in queue order with the
/// others. A follower whose batch names a missing column family gets its error and is left
/// out. With `keep_members`, each member's own batch is kept too.
fn take_group(st: &mut DbState, keep_members: bool) -> Group {
    let lead = st.writers.pop_front().expect("the leader is queued");
    let mut group = Group {
        records: vec![Record {
            batch: lead.batch,
            wal_only: lead.wal_only,
        }],
        members: Vec::new(),
        writers: vec![lead.writer],
        outcomes: Vec::new(),
        sync: lead.sync,
        disable_wal: lead.disable_wal,
    };
    let mut bytes = group.records[0].batch.data_size();
    while let Some(next) = st.writers.front() {
        let fits = bytes + next.batch.data_size() <= MAX_GROUP_BYTES;
        if next.disable_wal != lead.disable_wal || !fits {
            break;
        }
        if let Err(e) = check_families(st, &next.batch) {
            let next = st.writers.pop_front().expect("front exists");
            group.outcomes.push((next.writer, Err(e)));
            continue;
        }
        let next = st.writers.pop_front().expect("front exists");
        if keep_members && group.members.is_empty() {
            // The leader's own batch is copied once, when the first follower joins, before a
            // follower's batch is appended to its record.
            let own = &group.records[0];
            group
                .members
                .push((!own.wal_only).then(|| own.batch.clone()));
        }
        bytes += next.batch.data_size();
        let appended = group.append_to_last(&next.batch, next.wal_only);
        if keep_members {
            if !appended {
                group.records.push(Record {
                    batch: next.batch.clone(),
                    wal_only: next.wal_only,
                });
            }
            group.members.push((!next.wal_only).then_some(next.batch));
        } else if !appended {
            group.records.push(Record {
                batch: next.batch,
                wal_only: next.wal_only,
            });
        }
        group.writers.push(next.writer);
        group.sync |= next.sync;
    }
    group
}

/// Inserts `batch` into the memtables of the group's families (`mems`).
pub(super) fn insert_into(batch: &WriteBatch, mems: &[(u32, Arc<MemTable>)]) -> Result<()> {
    insert_batch(batch, |cf| {
        Ok(mems.iter().find(|(id, _)| *id == cf).map(|(_, m)| &**m))
    })
}

/// Appends the group's records and hands them to the OS, syncing once if asked. The writer
/// poisons itself on failure; the caller poisons the database.
fn append_wal(
    wal: &mut LogWriter,
    records: &[Record],
    sync: bool,
    stats: Option<&Statistics>,
) -> Result<()> {
    for r in records {
        // An empty unmarked batch is only ever a synced write of nothing (`Db::sync_wal`): it
        // asks for the sync below and writes no record. Such a record would read as a seal
        // (`switch.rs`), which recovery takes as the log's clean end.
        if r.batch.count() == 0 && r.batch.marker().is_none() {
            continue;
        }
        wal.add_record(r.batch.data())?;
    }
    wal.flush()?;
    if sync {
        let started = Instant::now();
        wal.sync()?;
        if let Some(s) = stats {
            s.record_in_histogram(HistogramType::WalFileSync, micros_since(started));
        }
    }
    Ok(())
}
