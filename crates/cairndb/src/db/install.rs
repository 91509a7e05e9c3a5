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
//!    the same file is harmless (the second fails and is ignored).
//!
//! [`VersionSet::begin_apply`]: crate::version::VersionSet::begin_apply

use std::sync::atomic::Ordering;

use parking_lot::MutexGuard;

use super::{DbInner, DbState};
use crate::error::Result;
use crate::version::{parse_file_name, FileType, VersionEdit};

impl DbInner {
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
        let doomed = self.forget_obsolete_files(st, &listing);
        if !doomed.is_empty() {
            MutexGuard::unlocked(st, || self.remove_files(&doomed));
        }
    }

    /// As [`purge_obsolete_files`](Self::purge_obsolete_files), all under the lock (for
    /// callers that hold it as a plain reference: open, drop, close).
    pub(super) fn delete_obsolete_files(&self, st: &mut DbState) {
        let Ok(listing) = self.fs.list(&self.dir) else {
            return;
        };
        let doomed = self.forget_obsolete_files(st, &listing);
        self.remove_files(&doomed);
    }

    /// The obsolete names of `listing` to delete, their cached table state evicted. Obsolete
    /// WALs are kept for reuse instead while fewer than `recycle_log_file_num` are
    /// (`DbState::recycled_wals`), and those kept are not deleted.
    fn forget_obsolete_files(&self, st: &mut DbState, listing: &[String]) -> Vec<String> {
        // A checkpoint is linking or copying files (checkpoint.rs); it deletes when done.
        if self.deletions_paused.load(Ordering::Acquire) > 0 {
            return Vec::new();
        }
        let mut doomed = st.versions.obsolete_files(listing);
        let keep = self.options.db.recycle_log_file_num;
        doomed.retain(|name| match parse_file_name(name) {
            Some((FileType::Log, n)) if st.recycled_wals.contains(&n) => false,
            Some((FileType::Log, n)) if st.recycled_wals.len() < keep => {
                st.recycled_wals.push_back(n);
                false
            }
            _ => true,
        });
        for name in &doomed {
            if let Some((FileType::Table, n)) = parse_file_name(name) {
                for cf in st.cfs.values() {
                    cf.data.table_cache.evict(n);
                }
                self.range_dels.lock().remove(&n);
            }
        }
        doomed
    }

    fn remove_files(&self, names: &[String]) {
        for name in names {
            // A file that cannot be deleted now is found again by the next sweep.
            let _ = self.fs.remove(&self.dir.join(name));
        }
    }
}
