//! The commit path: sequence numbers, the WAL record, the memtable insert, publication, and
//! the memtable switch (WAL roll) when the memtable is full.
//!
//! Called from any writer thread; the whole commit of one batch runs under the state mutex
//! (group commit is not built yet), so batches are applied in WAL order.
//!
//! Invariants (numbers refer to the module contract in `mod.rs`):
//! 1. Nothing is written for a batch that fails validation (sizes are checked when the batch
//!    is built, so a rejected put leaves the database unchanged).
//! 2. A WAL failure poisons before the error is returned (contract 2), and the memtable insert
//!    happens only after the WAL accepted the record.
//! 3. A writer that finds `max_write_buffer_number` memtables in use waits on the condition
//!    variable for the flush thread instead of growing memory without bound.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use parking_lot::MutexGuard;

use super::open::{create_wal, new_memtable};
use super::{Db, DbInner, DbState, Imm};
use crate::batch::WriteBatch;
use crate::error::{Error, Result};
use crate::memtable::insert_batch;
use crate::options::WriteOptions;

impl Db {
    /// Applies `batch` atomically.
    ///
    /// # Errors
    /// [`Error::Closed`] after close; [`Error::Poisoned`] after an earlier WAL failure; the
    /// WAL's I/O error (which poisons the database); [`Error::InvalidArgument`] for invalid
    /// write options.
    pub fn write(&self, opts: &WriteOptions, mut batch: WriteBatch) -> Result<()> {
        opts.validate()?;
        self.inner.commit(opts, &mut batch)
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

    fn commit(&self, opts: &WriteOptions, batch: &mut WriteBatch) -> Result<()> {
        let mut st = self.state.lock();
        self.check_writable(&st)?;
        if batch.count() == 0 {
            return Ok(());
        }
        self.make_room(&mut st)?;
        let first = st.versions.last_sequence() + 1;
        batch.set_sequence(first);
        if !opts.disable_wal {
            self.append_wal(&mut st, batch, opts.sync)?;
        }
        let mem = Arc::clone(&st.mem);
        if let Err(e) = insert_batch(batch, |_| Ok(Some(&*mem))) {
            // Part of the batch may be visible to no one yet but is in the memtable: nothing
            // after this can be trusted to be atomic.
            st.poisoned = Some(format!("memtable insert failed: {e}"));
            return Err(e);
        }
        let last = first + u64::from(batch.count()) - 1;
        st.versions.set_last_sequence(last);
        self.last_sequence.store(last, Ordering::Release);
        Ok(())
    }

    /// Appends the batch as one WAL record and hands it to the OS (and syncs it if asked);
    /// any failure poisons the database.
    fn append_wal(&self, st: &mut DbState, batch: &WriteBatch, sync: bool) -> Result<()> {
        let wal = st.wal.as_mut().ok_or(Error::Closed)?;
        let result = wal
            .add_record(batch.data())
            .and_then(|_| wal.flush())
            .and_then(|()| if sync { wal.sync() } else { Ok(()) });
        if let Err(e) = &result {
            st.poisoned = Some(format!("WAL write failed: {e}"));
        }
        result
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
