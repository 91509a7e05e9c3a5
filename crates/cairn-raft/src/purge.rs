//! Log purges that never get ahead of the state machine on disk (crate contract 2).
//!
//! openraft hands a received snapshot to the state machine's task and issues the purge of the
//! log it covers at once, from its own task, without waiting for the install. Were that purge
//! durable first, a crash between the two would leave a state machine behind the purged log,
//! which openraft cannot start from (it re-applies committed entries from the log). Waiting for
//! the install inside `purge` is no answer: it blocks openraft's core task, and openraft does
//! not always follow the start of a snapshot transfer with an install (a stale or refused
//! snapshot, an abandoned transfer), so such a wait can last forever.
//!
//! So a purge is recorded at once in memory (openraft's view: `get_log_state` reports it and
//! reads no longer see the entries it covers; openraft allows a purge to finish later), and made
//! durable only up to the state machine's applied index: the `last_purged` record and the range
//! deletion in one synced batch. What remains is settled when the state machine catches up:
//! after a snapshot install, and before the next append. The synced batch also makes every
//! earlier apply durable (the WAL is one sequence and recovery keeps a prefix), and an install's
//! ingestion is durable before it returns, so the durable `last_purged` never passes the
//! durable applied index. `open` refuses a store where it does (`check_at_open`).

use std::sync::{Arc, Mutex};

use cairndb::options::ReadOptions;
use cairndb::{ColumnFamily, Db, WriteBatch};
use openraft::LogId;

use crate::error::corrupt;
use crate::state_machine::{get_json, APPLIED};
use crate::{synced, NodeId};

/// The `raft_meta` key of the durable purge record.
pub(crate) const LAST_PURGED: &[u8] = b"last_purged";

/// The purges of one store, shared by its log store and its state machine.
pub(crate) struct Purges {
    db: Arc<Db>,
    log: ColumnFamily,
    meta: ColumnFamily,
    sm: ColumnFamily,
    state: Mutex<State>,
}

#[derive(Debug, Clone, Copy, Default)]
struct State {
    /// What the `last_purged` record says.
    durable: Option<LogId<NodeId>>,
    /// The highest purge openraft asked for (at least `durable`).
    requested: Option<LogId<NodeId>>,
}

/// The key of the entry at `index`: big-endian, so that key order is index order.
pub(crate) fn index_key(index: u64) -> [u8; 8] {
    index.to_be_bytes()
}

/// The index a log key holds (the inverse of [`index_key`]).
pub(crate) fn index_of(key: &[u8]) -> cairndb::Result<u64> {
    <[u8; 8]>::try_from(key)
        .map(u64::from_be_bytes)
        .map_err(|_| corrupt("log key", format!("{} bytes, not 8", key.len())))
}

/// Adds the deletion of the entries with indexes in `[from, to]` to `batch` (a range
/// deletion; `to` may be `u64::MAX`, which a half-open range cannot reach).
pub(crate) fn delete_indexes(
    batch: &mut WriteBatch,
    cf: u32,
    from: u64,
    to: u64,
) -> cairndb::Result<()> {
    if from > to {
        return Ok(());
    }
    if to == u64::MAX {
        batch.delete_range_cf(cf, &index_key(from), &index_key(u64::MAX))?;
        batch.delete_cf(cf, &index_key(u64::MAX))
    } else {
        batch.delete_range_cf(cf, &index_key(from), &index_key(to + 1))
    }
}

impl Purges {
    /// Reads the durable record.
    pub(crate) fn open(
        db: Arc<Db>,
        log: ColumnFamily,
        meta: ColumnFamily,
        sm: ColumnFamily,
    ) -> cairndb::Result<Self> {
        let durable = get_json(&db, &meta, &ReadOptions::default(), LAST_PURGED)?;
        Ok(Purges {
            db,
            log,
            meta,
            sm,
            state: Mutex::new(State {
                durable,
                requested: durable,
            }),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The last purged log id as openraft sees it: the highest purge requested.
    pub(crate) fn last_purged(&self) -> Option<LogId<NodeId>> {
        self.state().requested
    }

    fn applied(&self) -> cairndb::Result<Option<LogId<NodeId>>> {
        Ok(get_json(&self.db, &self.sm, &ReadOptions::default(), APPLIED)?.flatten())
    }

    /// Records a purge up to `log_id` and makes as much of it durable as the state machine
    /// allows.
    pub(crate) fn request(&self, log_id: LogId<NodeId>) -> cairndb::Result<()> {
        {
            let mut s = self.state();
            s.requested = s.requested.max(Some(log_id));
        }
        self.settle()
    }

    /// Makes the requested purge durable up to the applied index (one synced batch), if that
    /// is past the durable record. Cheap when nothing is pending (every append calls it).
    pub(crate) fn settle(&self) -> cairndb::Result<()> {
        let mut s = self.state();
        let durable = s.durable.map(|l| l.index);
        let Some(requested) = s.requested.filter(|r| Some(r.index) > durable) else {
            return Ok(());
        };
        let Some(applied) = self.applied()? else {
            return Ok(());
        };
        let target = if requested.index <= applied.index {
            requested
        } else {
            applied
        };
        if Some(target.index) <= durable {
            return Ok(());
        }
        let mut batch = WriteBatch::new();
        let record = serde_json::to_vec(&target).map_err(|e| corrupt("encoding", e))?;
        batch.put_cf(self.meta.id(), LAST_PURGED, &record)?;
        delete_indexes(&mut batch, self.log.id(), 0, target.index)?;
        self.db.write(&synced(), batch)?;
        s.durable = Some(target);
        Ok(())
    }

    /// The state a store opens in: its durable purge at or below its applied index, and its log
    /// contiguous from the durable purge on. A gap can only come from the case `purge.rs`
    /// cannot cover (entries from a new leader appended past a snapshot whose install was cut
    /// short); openraft would apply across it, so open refuses it.
    pub(crate) fn check_at_open(&self) -> cairndb::Result<()> {
        let durable = self.state().durable;
        let applied = self.applied()?;
        if durable.map(|l| l.index) > applied.map(|l| l.index) {
            return Err(corrupt(
                "raft storage",
                format!(
                    "the log is purged up to {durable:?} but the state machine has only applied \
                     {applied:?}: the entries between are gone (a store written before purges \
                     waited for the state machine); remove this node's data and add it back"
                ),
            ));
        }
        let mut it = self.db.iter_cf(&ReadOptions::default(), &self.log)?;
        it.seek(&index_key(durable.map_or(0, |l| l.index.saturating_add(1))));
        // After a purge the next entry is the one above it; a log never purged starts anywhere.
        let mut previous: Option<u64> = durable.map(|l| l.index);
        while it.valid() {
            let index = index_of(it.key())?;
            if let Some(p) = previous {
                if index != p + 1 {
                    return Err(corrupt(
                        "raft storage",
                        format!(
                            "the log jumps from entry {p} to entry {index} (an install of a \
                             snapshot was cut short while later entries were written); remove \
                             this node's data and add it back"
                        ),
                    ));
                }
            }
            previous = Some(index);
            it.next();
        }
        it.status()
    }
}
