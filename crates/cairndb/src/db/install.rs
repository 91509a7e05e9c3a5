//! Installing the results of background work without making writers wait on file I/O.
//!
//! Every commit takes the state mutex for a moment, so anything slow done under it is a write
//! stall. Two things a flush or compaction does at its end are slow on a loaded disk: the
//! MANIFEST append and its fsync (which on ext4 may wait for a journal commit that writes out
//! other files' dirty data), and the deletion of obsolete files (unlinking a large table frees
//! its extents). Both run here with the mutex released, as RocksDB's `LogAndApply` and
//! `PurgeObsoleteFiles` do.
//!
//! # Contract
//! 1. One MANIFEST change at a time: a caller waits (on `cond`) while another change is in
//!    flight, then begins its own under the lock ([`VersionSet::begin_apply`]), writes it
//!    unlocked, and finishes it under the lock. Readers and writers see the old versions until
//!    the finish; file numbers and sequence numbers handed out meanwhile are kept.
//! 2. A failed MANIFEST write or sync is fail-stop: the version set is poisoned before the lock
//!    is released, and every later write fails with `Error::Poisoned` (`check_writable` in
//!    write.rs), as after a WAL failure. What reached the disk is unknown (the edit may be there or
//!    not), so no later edit may be appended and no write acknowledged that a reopen might not
//!    recover in order; a reopen recovers from what the MANIFEST holds.
//! 3. Obsolete files are chosen under the lock from a directory listing taken before, so a file
//!    created after the listing is never chosen; they are unlinked unlocked. A file never comes
//!    back to life (numbers are not reused), so deleting it late is safe; two sweeps deleting
//!    the same file is harmless (the second fails and is ignored). With
//!    `recycle_log_file_num`, an obsolete WAL this process created may be renamed to a
//!    temporary name instead of unlinked, which takes it out of the logs just as a deletion
//!    does; its pending number keeps the sweeps off it until a memtable switch renames it to
//!    a new WAL's name (`switch.rs`).
//!
//! [`VersionSet::begin_apply`]: crate::version::VersionSet::begin_apply

use std::sync::atomic::Ordering;
use std::sync::Arc;

use parking_lot::MutexGuard;

use super::{Db, DbInner, DbState};
use crate::error::Result;
use crate::version::filenames::{log_file_name, temp_file_name};
use crate::version::{parse_file_name, FileType, PendingOutput, VersionEdit};

impl Db {
    /// Stops the deletion of obsolete files until as many [`Db::enable_file_deletions`] calls
    /// (RocksDB's `DisableFileDeletions`; checkpoints pause deletions the same way), so that
    /// every file a listing shows stays for copying.
    ///
    /// # Errors
    /// [`crate::Error::Closed`].
    pub fn disable_file_deletions(&self) -> Result<()> {
        let _call = self.inner.begin_call()?;
        self.inner
            .user_deletion_pauses
            .fetch_add(1, Ordering::AcqRel);
        self.inner.deletions_paused.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// Undoes one [`Db::disable_file_deletions`]; the last pause to end (checkpoints and WAL
    /// iterators pause deletions too) deletes the files that became obsolete meanwhile.
    /// Without a pause of its own it does nothing.
    ///
    /// # Errors
    /// [`crate::Error::Closed`].
    pub fn enable_file_deletions(&self) -> Result<()> {
        let _call = self.inner.begin_call()?;
        let mine = self.inner.user_deletion_pauses.fetch_update(
            Ordering::AcqRel,
            Ordering::Acquire,
            |n| n.checked_sub(1),
        );
        if mine.is_ok() && self.inner.deletions_paused.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.inner.resume_deletions();
        }
        Ok(())
    }
}

/// Keeps file deletions paused while it lives (checkpoints, WAL iterators); the last pause to
/// end deletes what became obsolete meanwhile.
pub(super) struct DeletionPause(Arc<DbInner>);

impl DeletionPause {
    pub(super) fn new(inner: &Arc<DbInner>) -> DeletionPause {
        inner.deletions_paused.fetch_add(1, Ordering::AcqRel);
        DeletionPause(Arc::clone(inner))
    }
}

impl Drop for DeletionPause {
    fn drop(&mut self) {
        if self.0.deletions_paused.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.resume_deletions();
        }
    }
}

impl DbInner {
    /// Deletes the files that became obsolete while deletions were paused (the last pause
    /// ended), unless the database is closed or its version set poisoned.
    pub(super) fn resume_deletions(&self) {
        // A pause can outlive the database (a WAL iterator kept after the `Db` was dropped):
        // once closed, its version set is stale and the directory may belong to a new open.
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        let mut st = self.state.lock();
        if !st.versions.is_poisoned() {
            self.delete_obsolete_files(&mut st);
        }
    }

    /// Writes `edits` as one atomic group to the MANIFEST and installs them (contract 1). The
    /// lock is released during the write and held again when this returns.
    ///
    /// # Errors
    /// As [`VersionSet::log_and_apply`](crate::version::VersionSet::log_and_apply).
    pub(super) fn log_and_apply(
        &self,
        st: &mut MutexGuard<'_, DbState>,
        edits: Vec<(u32, VersionEdit)>,
    ) -> Result<()> {
        while st.versions.apply_in_flight() {
            self.cond.wait(st);
        }
        let Some(mut pending) = st.versions.begin_apply(edits)? else {
            return Ok(());
        };
        let written = MutexGuard::unlocked(st, || pending.write());
        let result = st.versions.finish_apply(pending, written);
        // A flush may have made committed prepared transactions durable: their WALs are freed
        // by the next change (`two_phase.rs`, invariant 2).
        if result.is_ok() && !st.pins.is_empty() {
            super::two_phase::refresh_log_floor(st);
        }
        self.cond.notify_all();
        result
    }

    /// Deletes the files the version set reports obsolete, and forgets their cached state,
    /// with the lock released while the directory is listed and while files are unlinked
    /// (contract 3).
    pub(super) fn purge_obsolete_files(&self, st: &mut MutexGuard<'_, DbState>) {
        let Ok(listing) = MutexGuard::unlocked(st, || self.fs.list(&self.dir)) else {
            return;
        };
        let (doomed, kept) = self.forget_obsolete_files(st, &listing);
        if doomed.is_empty() && kept.is_empty() {
            return;
        }
        let kept = MutexGuard::unlocked(st, || {
            self.remove_files(&doomed);
            self.set_aside(kept)
        });
        self.keep_for_reuse(st, kept);
    }

    /// As [`purge_obsolete_files`](Self::purge_obsolete_files), all under the lock (for
    /// callers that hold it as a plain reference: open, drop, close).
    pub(super) fn delete_obsolete_files(&self, st: &mut DbState) {
        // A read-only handle deletes nothing: the files may belong to a writer's open.
        if self.read_only {
            return;
        }
        let Ok(listing) = self.fs.list(&self.dir) else {
            return;
        };
        let (doomed, kept) = self.forget_obsolete_files(st, &listing);
        self.remove_files(&doomed);
        let kept = self.set_aside(kept);
        self.keep_for_reuse(st, kept);
    }

    /// The obsolete names of `listing` to delete, their cached table state evicted, and the
    /// obsolete WALs to keep for reuse instead (`recycle_log_file_num`), each with the pending
    /// temporary number it is to be renamed to. Only WALs this process created are kept: a
    /// file left by an earlier run may share its inode with another name after a power cut
    /// (a rename whose old and new entries both survived), or hold records of a log number
    /// that a reopen hands out again, so it is deleted.
    fn forget_obsolete_files(
        &self,
        st: &mut DbState,
        listing: &[String],
    ) -> (Vec<String>, Vec<(u64, PendingOutput)>) {
        // A checkpoint is linking or copying files (checkpoint.rs); it deletes when done.
        if self.deletions_paused.load(Ordering::Acquire) > 0 {
            return (Vec::new(), Vec::new());
        }
        let mut doomed = st.versions.obsolete_files(listing);
        let mut kept = Vec::new();
        let room = if self.closed.load(Ordering::Acquire) {
            0
        } else {
            self.options
                .db
                .recycle_log_file_num
                .saturating_sub(st.recycled_wals.len())
        };
        if room > 0 {
            let mut wals: Vec<u64> = doomed
                .iter()
                .filter_map(|name| match parse_file_name(name) {
                    Some((FileType::Log, n)) if n >= st.first_wal => Some(n),
                    _ => None,
                })
                .collect();
            wals.sort_unstable();
            wals.truncate(room);
            doomed.retain(|name| !matches!(parse_file_name(name), Some((FileType::Log, n)) if wals.contains(&n)));
            kept = wals
                .into_iter()
                .map(|n| (n, st.versions.new_pending_output()))
                .collect();
        }
        for name in &doomed {
            if let Some((FileType::Table, n)) = parse_file_name(name) {
                for cf in st.cfs.values() {
                    cf.data.table_cache.evict(n);
                }
                self.range_dels.lock().remove(&n);
            }
        }
        (doomed, kept)
    }

    /// Renames each WAL to keep to its temporary name, so that it is no longer a log to
    /// recovery (as if deleted) and its pending number protects it from the sweeps. A WAL
    /// that cannot be renamed is left for the next sweep to delete.
    fn set_aside(&self, kept: Vec<(u64, PendingOutput)>) -> Vec<PendingOutput> {
        kept.into_iter()
            .filter_map(|(wal, temp)| {
                let from = self.dir.join(log_file_name(wal));
                let to = self.dir.join(temp_file_name(temp.number()));
                self.fs.rename(&from, &to).ok().map(|()| temp)
            })
            .collect()
    }

    /// Adds WALs set aside to the recycle list, oldest first, up to `recycle_log_file_num`
    /// (two sweeps at once may set aside more: the surplus is dropped, and its temporary
    /// files deleted by the next sweep).
    fn keep_for_reuse(&self, st: &mut DbState, kept: Vec<PendingOutput>) {
        for temp in kept {
            if st.recycled_wals.len() < self.options.db.recycle_log_file_num {
                st.recycled_wals.push_back(temp);
            }
        }
    }

    fn remove_files(&self, names: &[String]) {
        for name in names {
            // A file that cannot be deleted now is found again by the next sweep.
            let _ = self.fs.remove(&self.dir.join(name));
        }
    }
}
