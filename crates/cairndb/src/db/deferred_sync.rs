//! WAL syncs that run after a leader's term (`write.rs` invariants 9 and 11): the sync of a
//! group that inserts nothing (`Db::sync_wal`'s empty write, WAL-only records), and the shared
//! step of every post-term sync: sync through an offset, time it, poison on failure.

use std::sync::Arc;

use super::write::{poisoned, Finished, Outcome};
use super::writer::Writer;
use super::DbInner;
use crate::error::Error;
use crate::statistics::HistogramType;
use crate::wal::LogSync;

/// A group that inserts nothing (WAL-only records, or `Db::sync_wal`'s empty write), written,
/// whose sync comes after its term.
pub(super) struct Syncing {
    /// The log to sync and the offset its record (or nothing) ends at.
    pub(super) log: Arc<LogSync>,
    pub(super) offset: u64,
    pub(super) writers: Vec<Arc<Writer>>,
    pub(super) outcomes: Vec<Outcome>,
}

impl DbInner {
    /// Syncs the WAL through a group's record after its term, for a group that inserts
    /// nothing (invariant 11). A failed sync poisons the database, as in `await_durable`.
    pub(super) fn sync_after_term(&self, group: Syncing) -> Finished {
        let mut outcomes = group.outcomes;
        match self.sync_log(&group.log, group.offset) {
            Ok(_) => {
                outcomes.extend(group.writers[1..].iter().map(|w| (Arc::clone(w), Ok(()))));
                (Ok(()), outcomes)
            }
            Err((e, why)) => {
                outcomes.extend(poisoned(&group.writers[1..], &why));
                (Err(e), outcomes)
            }
        }
    }

    /// Syncs `log` through `offset` after a term (invariants 9 and 11), timing the sync for the
    /// statistics. Returns the syncs it ran; a failed sync poisons the database and comes back
    /// with the reason followers are given.
    pub(super) fn sync_log(
        &self,
        log: &LogSync,
        offset: u64,
    ) -> std::result::Result<u32, (Error, String)> {
        let stats = self.counters.stats();
        let synced = log.sync_through(offset, |micros| {
            if let Some(s) = stats {
                s.record_in_histogram(HistogramType::WalFileSync, micros);
            }
        });
        synced.map_err(|e| {
            let why = format!("WAL sync failed: {e}");
            self.state
                .lock()
                .poisoned
                .get_or_insert_with(|| why.clone());
            (e, why)
        })
    }
}
