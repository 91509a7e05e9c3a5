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

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::{Db, DbState};
use crate::batch::{MarkerKind, WriteBatch};
use crate::error::{Error, Result};
use crate::options::WriteOptions;

/// The WALs prepared transactions pin (invariant 1), kept so that each marker and each
/// refresh costs a logarithm of the pins, not a pass over them: a database that commits many
/// prepared transactions between flushes holds a pin for each.
#[derive(Debug, Default)]
pub(super) struct Pins {
    /// Unresolved prepared transactions: name -> the WAL holding its prepare record.
    unresolved: HashMap<Vec<u8>, u64>,
    /// Committed ones whose commit is not durable yet: (commit record's WAL, prepare record's
    /// WAL), in commit order, so commit WALs never decrease along it.
    committed: VecDeque<(u64, u64)>,
    /// How many pins of either kind each WAL has.
    by_wal: BTreeMap<u64, usize>,
}

impl Pins {
    /// True when no WAL is pinned.
    pub(super) fn is_empty(&self) -> bool {
        self.by_wal.is_empty()
    }

    /// The smallest pinned WAL, 0 when none is.
    fn floor(&self) -> u64 {
        self.by_wal.keys().next().copied().unwrap_or(0)
    }

    /// A marker of `kind` for transaction `xid` (whose record carries data or not) was
    /// written to WAL `wal`.
    fn record(&mut self, kind: MarkerKind, xid: &[u8], has_data: bool, wal: u64) {
        match kind {
            MarkerKind::Prepare => {
                if let Some(old) = self.unresolved.insert(xid.to_vec(), wal) {
                    self.unpin(old);
                }
                self.pin(wal);
            }
            MarkerKind::Commit if has_data => {
                if let Some(prepared_in) = self.unresolved.remove(xid) {
                    self.committed.push_back((wal, prepared_in));
                }
            }
            MarkerKind::Commit | MarkerKind::Rollback => {
                if let Some(prepared_in) = self.unresolved.remove(xid) {
                    self.unpin(prepared_in);
                }
            }
        }
    }

    /// Drops the pins of commits whose record's WAL is below `cf_min`, the smallest log
    /// number of any family: their data is in tables.
    fn release_durable(&mut self, cf_min: u64) {
        while let Some(&(committed_in, prepared_in)) = self.committed.front() {
            if committed_in >= cf_min {
                break;
            }
            self.committed.pop_front();
            self.unpin(prepared_in);
        }
    }

    fn pin(&mut self, wal: u64) {
        *self.by_wal.entry(wal).or_insert(0) += 1;
    }

    fn unpin(&mut self, wal: u64) {
        if let Some(n) = self.by_wal.get_mut(&wal) {
            *n -= 1;
            if *n == 0 {
                self.by_wal.remove(&wal);
            }
        }
    }
}

/// Updates the pins after `batch`, a marked record, was written to WAL `wal_number`, and the
/// log floor with them. No commit becomes durable here (a new commit record lies in the newest
/// WAL, which no family's log number has passed): that happens when a flush installs
/// ([`refresh_log_floor`]).
pub(super) fn record_marker(st: &mut DbState, batch: &WriteBatch, wal_number: u64) {
    let Some((kind, xid)) = batch.marker() else {
        return;
    };
    st.pins.record(kind, xid, !batch.is_empty(), wal_number);
    let floor = st.pins.floor();
    st.versions.set_log_floor(floor);
}

/// Whether a prepared transaction pins a WAL below `log` (invariant 4).
pub(super) fn pinned_below(st: &DbState, log: u64) -> bool {
    st.pins.by_wal.keys().next().is_some_and(|&w| w < log)
}

/// Drops the pins of commits that became durable (their commit record's WAL below every
/// family's log number) and sets the version set's log floor to the smallest pinned WAL
/// (invariant 2).
pub(super) fn refresh_log_floor(st: &mut DbState) {
    let cf_min = st.versions.min_cf_log_number();
    st.pins.release_durable(cf_min);
    let floor = st.pins.floor();
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
        self.inner.write_wal_only(batch, opts.sync)
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
            return self.inner.write_wal_only(batch, opts.sync);
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
        self.inner.write_wal_only(batch, opts.sync)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_hold_the_oldest_prepare_until_resolved_and_durable() {
        let mut pins = Pins::default();
        pins.record(MarkerKind::Prepare, b"a", true, 3);
        pins.record(MarkerKind::Prepare, b"b", true, 5);
        assert_eq!(pins.floor(), 3);
        // Committed in WAL 6: pinned until every family's log number passes 6.
        pins.record(MarkerKind::Commit, b"a", true, 6);
        pins.release_durable(6);
        assert_eq!(pins.floor(), 3);
        // The name is used again while the old commit is not durable: both pin.
        pins.record(MarkerKind::Prepare, b"a", true, 7);
        pins.release_durable(7);
        assert_eq!(pins.floor(), 5);
        pins.record(MarkerKind::Rollback, b"b", false, 7);
        assert_eq!(pins.floor(), 7);
        // A commit without data resolves at once.
        pins.record(MarkerKind::Commit, b"a", false, 8);
        assert!(pins.is_empty());
        assert_eq!(pins.floor(), 0);
        // Markers of unknown names change nothing.
        pins.record(MarkerKind::Commit, b"zz", true, 9);
        pins.record(MarkerKind::Rollback, b"zz", false, 9);
        assert!(pins.is_empty());
    }
}
