//! Secondary instances (RocksDB's `OpenAsSecondary` and `TryCatchUpWithPrimary`): a read-only
//! handle on a database that another handle, in this process or another, keeps writing, which
//! moves forward to the writer's current state when asked.
//!
//! # Contract
//! 1. A secondary is a read-only open (`read_only.rs`, whose contract applies) with two
//!    differences: its info log goes to the secondary directory given at open (created if
//!    missing), never to the primary's; and [`Db::try_catch_up_with_primary`] replaces what it
//!    sees with the primary's state at the call: the MANIFEST named by CURRENT read again, and
//!    every live WAL replayed into new memtables. A torn last MANIFEST record is taken as one
//!    the primary is still writing.
//! 2. A catch-up is all or nothing. The new state is built beside the old one and swapped in
//!    under the state lock; a read sees the old state or the new one (the new sequence number
//!    is published before the views are swapped, and a read-only handle's read takes its view
//!    before the sequence). Iterators keep the view they started with.
//! 3. The primary does not know its secondaries: it may replace the MANIFEST or delete a WAL
//!    while a catch-up reads them, and delete a table after a catch-up. A replay is accepted
//!    only if it began at the first WAL the recovered MANIFEST needs (`check_replayed_prefix`:
//!    otherwise newer writes would show without older ones); a catch-up that raced the
//!    primary reads everything again, up to three times, then fails with the error and leaves
//!    the handle as it was (call it again). A read of a table the primary deleted fails with
//!    an I/O error unless the table was already open (an open descriptor keeps the file
//!    readable). Snapshots are not protected from the primary's compactions. With
//!    `WalRecoveryMode::AbsoluteConsistency`, the WAL the primary is appending to can end in a
//!    partial record, which fails the catch-up. RocksDB's secondaries have the same limits.
//! 4. Families: those open in the secondary follow the primary. One the primary dropped is
//!    dropped at the next catch-up (its handle then fails as after `drop_column_family`);
//!    families the primary created after the secondary opened are not seen (reopen to see
//!    them). As at any open, a family the secondary does not name gets `options.cf`'s
//!    comparator: one the primary creates with another comparator fails the catch-ups.
//! 5. Tables that left the primary's version are evicted from the table caches at the
//!    catch-up that sees them go.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::column_family::ColumnFamilyDescriptor;
use super::open::{replay_logs, version_set_options, FamilyOptions, OpenMode};
use super::read_only::{check_replayed_prefix, with_retries};
use super::{Db, RecoveryReport};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RealFs};
use crate::options::Options;
use crate::version::{VersionSet, DEFAULT_CF_NAME};

impl Db {
    /// Opens the database in `primary` as a secondary instance (contract above), with its info
    /// log in `secondary`.
    ///
    /// # Errors
    /// As [`Db::open_cf_as_secondary_with_fs`].
    pub fn open_as_secondary(
        primary: impl AsRef<Path>,
        secondary: impl AsRef<Path>,
        options: Options,
    ) -> Result<Db> {
        Db::open_cf_as_secondary_with_fs(RealFs::shared(), primary, secondary, options, Vec::new())
    }

    /// [`Db::open_as_secondary`] with options for named column families, on `fs`.
    ///
    /// # Errors
    /// As a read-only open ([`Db::open_cf_for_read_only_with_fs`]); I/O errors creating the
    /// secondary directory.
    pub fn open_cf_as_secondary_with_fs(
        fs: Arc<dyn FileSystem>,
        primary: impl AsRef<Path>,
        secondary: impl AsRef<Path>,
        options: Options,
        families: Vec<ColumnFamilyDescriptor>,
    ) -> Result<Db> {
        Db::open_in_mode(
            fs,
            primary.as_ref(),
            options,
            families,
            OpenMode::Secondary {
                log_dir: secondary.as_ref().to_path_buf(),
            },
        )
    }

    /// Whether this handle was opened with [`Db::open_as_secondary`].
    pub fn is_secondary(&self) -> bool {
        self.inner.secondary
    }

    /// Moves a secondary instance to the primary's current state (contract 1-5).
    ///
    /// # Errors
    /// [`Error::NotSupported`] on a handle that is not a secondary; [`Error::Closed`]; I/O
    /// errors (a file the primary deleted meanwhile: the handle is unchanged, try again);
    /// [`Error::Corruption`] for damage the recovery mode does not tolerate.
    pub fn try_catch_up_with_primary(&self) -> Result<()> {
        let inner = &*self.inner;
        if !inner.secondary {
            return Err(Error::NotSupported(
                "try_catch_up_with_primary: the handle is not a secondary instance \
                 (Db::open_as_secondary)"
                    .into(),
            ));
        }
        let _call = inner.begin_call()?;
        // One catch-up at a time: two could swap their states in the wrong order. (A
        // secondary changes no options, so this lock is otherwise unused.)
        let _order = inner.options_change.lock();
        let mut options = inner.options.clone();
        let descriptors: Vec<ColumnFamilyDescriptor> = {
            let st = inner.state.lock();
            st.cfs
                .values()
                .map(|cf| ColumnFamilyDescriptor::new(&cf.data.name, (*cf.options).clone()))
                .collect()
        };
        if let Some(d) = descriptors.iter().find(|d| d.name == DEFAULT_CF_NAME) {
            options.cf = d.options.clone();
        }
        let fam = FamilyOptions::new(&options, descriptors);
        let (versions, mut replayed, report) = with_retries(|| {
            let (mut versions, _) = VersionSet::recover(
                Arc::clone(&inner.fs),
                &inner.dir,
                version_set_options(&options, &fam),
            )?;
            let mut report = RecoveryReport::default();
            let replayed = replay_logs(
                &inner.fs,
                &inner.dir,
                &options,
                &fam,
                &mut versions,
                &mut report,
                true,
            )?;
            check_replayed_prefix(&inner.dir, &versions, &report)?;
            Ok((versions, replayed, report))
        })?;
        let last = versions.last_sequence();

        let mut st = inner.state.lock();
        inner.check_open()?;
        let before = live_tables(&st.versions);
        let ids: Vec<u32> = st.cfs.keys().copied().collect();
        for id in ids {
            if versions.current(id).is_none() {
                // Dropped by the primary (contract 4).
                if let Some(cf) = st.cfs.remove(&id) {
                    cf.data.dropped.store(true, Ordering::Release);
                }
                continue;
            }
            let (mem, imms) = replayed.take_memtables(id, last);
            let cf = st.cfs.get_mut(&id).expect("listed above");
            cf.mem = mem;
            cf.imms = imms;
        }
        st.versions = versions;
        let after = live_tables(&st.versions);
        for gone in before.difference(&after) {
            for cf in st.cfs.values() {
                cf.data.table_cache.evict(*gone);
            }
            inner.range_dels.lock().remove(gone);
        }
        // The sequence first, then the views: a read-only handle's read takes its view before the
        // sequence (`DbInner::begin_read`), so a new view always comes with the new sequence (an
        // old view read at the new sequence shows the old state, which is consistent).
        inner
            .last_sequence
            .publish(last.max(inner.last_sequence.load()));
        let ids: Vec<u32> = st.cfs.keys().copied().collect();
        for id in ids {
            inner.publish_view(&st, id);
        }
        drop(st);
        inner.info_log.info(&format!(
            "caught up with the primary: last sequence {last}, {} WAL(s) replayed",
            report.logs_replayed.len()
        ));
        Ok(())
    }
}

/// The numbers of every table in a live version of `versions`.
fn live_tables(versions: &VersionSet) -> BTreeSet<u64> {
    versions
        .column_families()
        .into_iter()
        .filter_map(|cf| versions.current(cf.id))
        .flat_map(|v| v.all_files().map(|(_, f)| f.number).collect::<Vec<_>>())
        .collect()
}
