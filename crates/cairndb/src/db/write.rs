//! The commit path: sequence numbers, the WAL record, the memtable insert, publication, and
//! the memtable switch (WAL roll) when the memtable is full.
//!
//! Called from any writer thread. Group commit (LevelDB's scheme): writers queue under the
//! state mutex; the writer at the head becomes the leader, merges the queued batches into one
//! WAL record, writes (and syncs, if any member asked) and inserts it with the mutex released,
//! then publishes the group's last sequence number and hands each follower its result.
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
//! 4. At most one leader at a time (`leader_active`); groups are committed in queue order, so
//!    sequence numbers follow WAL order. While a leader is active, nothing else switches the
//!    memtable, takes the WAL or closes it.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use parking_lot::MutexGuard;

use super::open::{create_wal, new_memtable};
use std::collections::VecDeque;

use super::{Db, DbInner, DbState, Imm, Queued};
use crate::batch::WriteBatch;
use crate::error::{Error, Result};
use crate::memtable::insert_batch;
use crate::options::WriteOptions;
use crate::wal::LogWriter;

impl Db {
    /// Applies `batch` atomically.
    ///
    /// # Errors
    /// [`Error::Closed`] after close; [`Error::Poisoned`] after an earlier WAL failure; the
    /// WAL's I/O error (which poisons the database); [`Error::InvalidArgument`] for invalid
    /// write options.
    pub fn write(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        opts.validate()?;
        self.inner.commit(opts, batch)
    }

    /// Sets `key` to `value`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a key over 8 MiB or a value over the batch limit (nothing
    /// is written); otherwise as [`Db::write`].
    pub fn put(&self, opts: &WriteOptions, key: &[u8], value: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(key, value)?;
        self.write(opts, b)
    }

    /// Deletes `key`.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn delete(&self, opts: &WriteOptions, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete(key)?;
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

    /// Adds a merge operand for `key`.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn merge(&self, opts: &WriteOptions, key: &[u8], operand: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.merge(key, operand)?;
        self.write(opts, b)
    }

    /// Deletes every key in `[begin, end)`.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn delete_range(&self, opts: &WriteOptions, begin: &[u8], end: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_range(begin, end)?;
        self.write(opts, b)
    }
}

impl DbInner {
    fn check_writable(&self, st: &DbState) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        match &st.poisoned {
            Some(why) => Err(Error::Poisoned(why.clone())),
            None => Ok(()),
        }
    }

    /// Queues the batch and waits until a leader has committed it, or becomes the leader
    /// (invariant 4).
    fn commit(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        let mut st = self.state.lock();
        self.check_writable(&st)?;
        if batch.count() == 0 {
            return Ok(());
        }
        let id = st.next_writer_id;
        st.next_writer_id += 1;
        st.writers.push_back(Queued {
            id,
            batch,
            sync: opts.sync,
            disable_wal: opts.disable_wal,
        });
        loop {
            if let Some(result) = st.results.remove(&id) {
                return result;
            }
            if !st.leader_active && st.writers.front().map(|q| q.id) == Some(id) {
                break;
            }
            self.cond.wait(&mut st);
        }
        st.leader_active = true;
        let result = self.lead(&mut st);
        st.leader_active = false;
        self.cond.notify_all();
        result
    }

    /// Commits a group headed by this writer: one WAL record (synced if any member asked),
    /// written and inserted without the lock, then published. Fills in the followers' results.
    fn lead(&self, st: &mut MutexGuard<'_, DbState>) -> Result<()> {
        if let Err(e) = self.check_writable(st).and_then(|()| self.make_room(st)) {
            st.writers.pop_front();
            return Err(e);
        }
        let (combined, ids, sync, disable_wal) = take_group(&mut st.writers);
        let mut combined = combined;
        let first = st.versions.last_sequence() + 1;
        combined.set_sequence(first);
        // The WAL and the memtable are stable while `leader_active` is set: memtable switches,
        // manual flushes and close wait for it to clear.
        let mut wal = if disable_wal { None } else { st.wal.take() };
        let mem = Arc::clone(&st.mem);
        let result = MutexGuard::unlocked(st, || {
            if let Some(wal) = wal.as_mut() {
                append_wal(wal, &combined, sync).map_err(|e| (e, "WAL write failed"))?;
            }
            insert_batch(&combined, |_| Ok(Some(&*mem))).map_err(|e| (e, "memtable insert failed"))
        });
        if wal.is_some() {
            st.wal = wal;
        }
        let followers = &ids[1..];
        match result {
            Ok(()) => {
                let last = first + u64::from(combined.count()) - 1;
                st.versions.set_last_sequence(last);
                self.last_sequence.store(last, Ordering::Release);
                for &id in followers {
                    st.results.insert(id, Ok(()));
                }
                Ok(())
            }
            Err((e, what)) => {
                // After a failed WAL write or partial insert nothing can be trusted: poison
                // (contract 2). Followers get Poisoned carrying the leader's error.
                let why = format!("{what}: {e}");
                for &id in followers {
                    st.results.insert(id, Err(Error::Poisoned(why.clone())));
                }
                st.poisoned = Some(why);
                Err(e)
            }
        }
    }

    /// Switches to a new memtable when the current one is full, waiting while too many
    /// memtables are in use (invariant 3).
    fn make_room(&self, st: &mut MutexGuard<'_, DbState>) -> Result<()> {
        let limit = self.options.cf.write_buffer_size;
        let max_imms = (self.options.cf.max_write_buffer_number.max(2) - 1) as usize;
        while st.mem.approximate_memory_usage() >= limit {
            if st.imms.len() < max_imms {
                return self.switch_memtable(st);
            }
            if st.versions.is_poisoned() {
                // No flush can succeed until reopen: waiting would hang the writer.
                let why = "the MANIFEST failed; flushes cannot complete until reopen";
                st.poisoned = Some(why.to_string());
                return Err(Error::Poisoned(why.to_string()));
            }
            if let Some(why) = &st.flush_error {
                // The flush thread keeps retrying; a writer must not wait for a fault that may
                // never clear. The batch is not applied and the database stays writable.
                let msg = format!("background flush failed ({why}); the write was not applied");
                return Err(Error::io("flush", &self.dir, std::io::Error::other(msg)));
            }
            self.cond.wait(st);
            self.check_writable(st)?;
        }
        Ok(())
    }

    /// Retires the mutable memtable to the immutable list and starts a new WAL. The old WAL is
    /// synced first (contract 5). A failure poisons: the WAL state is then unknown.
    pub(super) fn switch_memtable(&self, st: &mut DbState) -> Result<()> {
        let result = self.roll_wal(st);
        if let Err(e) = &result {
            st.poisoned = Some(format!("WAL roll failed: {e}"));
        }
        result?;
        let old = std::mem::replace(&mut st.mem, new_memtable(&self.options));
        old.mark_read_only();
        st.imms.push_back(Imm {
            mem: old,
            next_log: st.wal_number,
        });
        self.publish_view(st);
        self.cond.notify_all();
        Ok(())
    }

    fn roll_wal(&self, st: &mut DbState) -> Result<()> {
        st.wal.as_mut().ok_or(Error::Closed)?.sync()?;
        let number = st.versions.new_file_number();
        let wal = create_wal(&*self.fs, &self.dir, number, &self.options)?;
        st.wal = Some(wal);
        st.wal_number = number;
        Ok(())
    }
}

/// Most bytes one group's WAL record holds: large enough to amortize a sync over many small
/// writes, small enough that a follower does not wait behind a huge record.
const MAX_GROUP_BYTES: usize = 1 << 20;

/// Pops the leader's batch and the followers' that fit into one record with it (same WAL
/// setting, at most [`MAX_GROUP_BYTES`]). Returns the combined batch, the member ids (leader
/// first), whether any member asked for sync, and whether the WAL is skipped.
fn take_group(writers: &mut VecDeque<Queued>) -> (WriteBatch, Vec<u64>, bool, bool) {
    let lead = writers.pop_front().expect("the leader is queued");
    let (mut combined, mut ids, mut sync) = (lead.batch, vec![lead.id], lead.sync);
    while let Some(next) = writers.front() {
        let fits = combined.data_size() + next.batch.data_size() <= MAX_GROUP_BYTES;
        if next.disable_wal != lead.disable_wal || !fits || combined.append(&next.batch).is_err() {
            break;
        }
        let next = writers.pop_front().expect("front exists");
        ids.push(next.id);
        sync |= next.sync;
    }
    (combined, ids, sync, lead.disable_wal)
}

/// Appends the group's record and hands it to the OS, syncing if asked. The writer poisons
/// itself on failure; the caller poisons the database.
fn append_wal(wal: &mut LogWriter, batch: &WriteBatch, sync: bool) -> Result<()> {
    wal.add_record(batch.data())?;
    wal.flush()?;
    if sync {
        wal.sync()?;
    }
    Ok(())
}
