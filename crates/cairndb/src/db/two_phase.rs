//! Two-phase commit in the database: the WAL records of prepared transactions, the pins that
//! keep their WALs, and the prepared transactions recovery found. Design:
//! `docs/design/transactions.md`, "Two-phase commit"; record format:
//! `docs/format/write_batch.md`, "Markers".
//!
//! Who calls it: the transaction layer (`txn/`), through [`Db::write_prepare`],
//! [`Db::write_commit_prepared`], [`Db::write_rollback_prepared`] and
//! [`Db::take_recovered_prepared`]; the commit path ([`record_marker`]) and flush installs
//! ([`refresh_log_floor`]).
//!
//! Invariants:
//! 1. A prepared transaction's WAL is pinned from its prepare record until it is rolled back,
//!    or committed and its commit durable: the commit record's WAL below every family's log
//!    number (its data flushed). A transaction committed without writes is durable at once.
//! 2. The version set's log floor is the smallest pinned WAL (0: none); it holds WALs back at
//!    once and is persisted with the next MANIFEST change, before any family's log number can
//!    pass it (`VersionSet::set_log_floor`).
//! 3. Names are the caller's: the database does not check that a name is prepared once; the
//!    transaction layer does.
//! 4. The WALs recovery replays are at least as new as the tables: a flush syncs the WALs its
//!    memtable came from before installing its table whenever a prepared transaction pins one
//!    of them ([`pinned_below`]). Else a power cut could keep a prepare record (synced) and
//!    lose its commit record (not yet synced) while the table holds the commit's writes:
//!    recovery would list as prepared a transaction whose writes are visible. RocksDB syncs
//!    closed WALs before a flush's install under `allow_2pc` for the same reason.

use super::{Db, DbState};
use crate::batch::{MarkerKind, WriteBatch};
use crate::error::{Error, Result};
use crate::options::WriteOptions;

/// A prepared transaction's pin (invariant 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pin {
    /// The WAL holding its prepare record.
    pub(super) wal: u64,
    /// The WAL holding its commit record, once committed.
    pub(super) committed_in: Option<u64>,
}

/// Updates the pins after `batch`, a marked record, was written to WAL `wal_number`.
pub(super) fn record_marker(st: &mut DbState, batch: &WriteBatch, wal_number: u64) {
    let Some((kind, xid)) = batch.marker() else {
        return;
    };
    match kind {
        MarkerKind::Prepare => {
            st.prepared.insert(
                xid.to_vec(),
                Pin {
                    wal: wal_number,
                    committed_in: None,
                },
            );
        }
        MarkerKind::Commit if !batch.is_empty() => {
            if let Some(p) = st.prepared.get_mut(xid) {
                p.committed_in = Some(wal_number);
            }
        }
        MarkerKind::Commit | MarkerKind::Rollback => {
            st.prepared.remove(xid);
        }
    }
    refresh_log_floor(st);
}

/// Whether a prepared transaction pins a WAL below `log` (invariant 4).
pub(super) fn pinned_below(st: &DbState, log: u64) -> bool {
    st.prepared.values().any(|p| p.wal < log)
}

/// Drops the pins of commits that became durable and sets the version set's log floor to the
/// smallest pinned WAL (invariant 2).
pub(super) fn refresh_log_floor(st: &mut DbState) {
    let cf_min = st.versions.min_cf_log_number();
    st.prepared
        .retain(|_, p| p.committed_in.is_none_or(|c| c >= cf_min));
    let floor = st.prepared.values().map(|p| p.wal).min().unwrap_or(0);
    st.versions.set_log_floor(floor);
}

impl Db {
    /// Writes transaction `xid`'s prepare record (`Prepare(xid)` + `records`) to the WAL, synced
    /// if `opts.sync`. The records are not applied.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] with `disable_wal` (a prepare lives only in the WAL) or a bad
    /// name; the WAL's errors (the database is then poisoned).
    pub(crate) fn write_prepare(
        &self,
        opts: &WriteOptions,
        xid: &[u8],
        records: &WriteBatch,
    ) -> Result<()> {
        check_wal(opts)?;
        let batch = WriteBatch::with_marker(MarkerKind::Prepare, xid, records)?;
        self.inner.write_wal_only(&batch, opts.sync)
    }

    /// Commits prepared transaction `xid`: one atomic write of `Commit(xid)` + `records`
    /// through the commit path (applied like any batch). A transaction without writes writes
    /// its commit marker to the WAL alone.
    ///
    /// # Errors
    /// As [`Db::write`]; [`Error::InvalidArgument`] with `disable_wal`.
    pub(crate) fn write_commit_prepared(
        &self,
        opts: &WriteOptions,
        xid: &[u8],
        records: &WriteBatch,
    ) -> Result<()> {
        check_wal(opts)?;
        let batch = WriteBatch::with_marker(MarkerKind::Commit, xid, records)?;
        if batch.is_empty() {
            return self.inner.write_wal_only(&batch, opts.sync);
        }
        self.write_unchecked(opts, batch)
    }

    /// Writes prepared transaction `xid`'s rollback marker to the WAL.
    ///
    /// # Errors
    /// As [`Db::write_prepare`].
    pub(crate) fn write_rollback_prepared(&self, opts: &WriteOptions, xid: &[u8]) -> Result<()> {
        check_wal(opts)?;
        let batch = WriteBatch::with_marker(MarkerKind::Rollback, xid, &WriteBatch::new())?;
        self.inner.write_wal_only(&batch, opts.sync)
    }

    /// The prepared transactions recovery found unresolved, each with its writes; handed out
    /// once (the transaction layer takes them at open).
    pub(crate) fn take_recovered_prepared(&self) -> Vec<(Vec<u8>, WriteBatch)> {
        std::mem::take(&mut *self.inner.recovered_prepared.lock())
    }
}

fn check_wal(opts: &WriteOptions) -> Result<()> {
    if opts.disable_wal {
        return Err(Error::InvalidArgument(
            "two-phase commit needs the WAL: disable_wal is set".into(),
        ));
    }
    Ok(())
}
