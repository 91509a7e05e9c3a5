//! [`LogStore`]: openraft's `RaftLogStorage` and `RaftLogReader` on the `raft_log` and
//! `raft_meta` column families (the crate documentation gives the layout and the contract).

use std::fmt::Debug;
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

use cairndb::options::{ReadOptions, WriteOptions};
use cairndb::{ColumnFamily, Db, WriteBatch};
use openraft::storage::{LogFlushed, LogState, RaftLogReader, RaftLogStorage};
use openraft::{Entry, LogId, OptionalSend, RaftLogId, StorageError, Vote};
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{corrupt, read_logs, write_logs};
use crate::purge::{delete_indexes, index_key, index_of, Purges};
use crate::{synced, NodeId, TypeConfig};

const VOTE: &[u8] = b"vote";
const COMMITTED: &[u8] = b"committed";

/// The Raft log of one node, and its vote and committed index. Cheap to clone: clones share
/// the database (a clone is also the log reader openraft asks for).
#[derive(Clone)]
pub struct LogStore {
    db: Arc<Db>,
    log: ColumnFamily,
    meta: ColumnFamily,
    /// Purges requested and made durable (`purge.rs`).
    purges: Arc<Purges>,
}

impl Debug for LogStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogStore").finish_non_exhaustive()
    }
}

impl LogStore {
    pub(crate) fn new(
        db: Arc<Db>,
        log: ColumnFamily,
        meta: ColumnFamily,
        purges: Arc<Purges>,
    ) -> Self {
        LogStore {
            db,
            log,
            meta,
            purges,
        }
    }

    /// The database under this store (shared with the state machine).
    pub fn db(&self) -> &Arc<Db> {
        &self.db
    }

    fn get_meta<T: DeserializeOwned>(&self, key: &[u8]) -> cairndb::Result<Option<T>> {
        match self.db.get_cf(&ReadOptions::default(), &self.meta, key)? {
            None => Ok(None),
            Some(v) => serde_json::from_slice(&v)
                .map(Some)
                .map_err(|e| corrupt(&format!("{}", String::from_utf8_lossy(key)), e)),
        }
    }

    fn put_meta<T: Serialize>(&self, key: &[u8], value: &T, sync: bool) -> cairndb::Result<()> {
        let bytes = serde_json::to_vec(value).map_err(|e| corrupt("encoding", e))?;
        let opts = if sync {
            synced()
        } else {
            WriteOptions::default()
        };
        self.db.put_cf(&opts, &self.meta, key, &bytes)
    }

    /// The entry at the iterator's position, checked against its key.
    fn decode(key: &[u8], value: &[u8]) -> cairndb::Result<Entry<TypeConfig>> {
        let index = index_of(key)?;
        let entry: Entry<TypeConfig> =
            serde_json::from_slice(value).map_err(|e| corrupt("log entry", e))?;
        if entry.log_id.index != index {
            return Err(corrupt(
                "log entry",
                format!("entry {} stored under index {index}", entry.log_id.index),
            ));
        }
        Ok(entry)
    }

    fn entries(&self, start: u64, end: Bound<u64>) -> cairndb::Result<Vec<Entry<TypeConfig>>> {
        let mut opts = ReadOptions::default();
        match end {
            Bound::Included(e) if e < u64::MAX => {
                opts.iterate_upper_bound = Some(index_key(e + 1).to_vec())
            }
            Bound::Excluded(e) => opts.iterate_upper_bound = Some(index_key(e).to_vec()),
            _ => {}
        }
        if let Bound::Excluded(e) = end {
            if e <= start {
                return Ok(Vec::new());
            }
        }
        let mut it = self.db.iter_cf(&opts, &self.log)?;
        it.seek(&index_key(start));
        let mut out = Vec::new();
        while it.valid() {
            out.push(Self::decode(it.key(), it.value())?);
            it.next();
        }
        it.status()?;
        Ok(out)
    }

    fn last_entry_id(&self) -> cairndb::Result<Option<LogId<NodeId>>> {
        let mut it = self.db.iter_cf(&ReadOptions::default(), &self.log)?;
        it.seek_to_last();
        let last = if it.valid() {
            Some(*Self::decode(it.key(), it.value())?.get_log_id())
        } else {
            None
        };
        it.status()?;
        Ok(last)
    }
}

impl RaftLogReader<TypeConfig> for LogStore {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + OptionalSend>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Entry<TypeConfig>>, StorageError<NodeId>> {
        let start = match range.start_bound() {
            Bound::Included(s) => *s,
            Bound::Excluded(s) => match s.checked_add(1) {
                Some(s) => s,
                None => return Ok(Vec::new()),
            },
            Bound::Unbounded => 0,
        };
        // Entries a purge covers stay on disk until the purge is durable (purge.rs); openraft
        // never sees them again.
        let first_kept = self
            .purges
            .last_purged()
            .map_or(0, |p| p.index.saturating_add(1));
        self.entries(start.max(first_kept), range.end_bound().cloned())
            .map_err(read_logs)
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = Self;

    async fn get_log_state(&mut self) -> Result<LogState<TypeConfig>, StorageError<NodeId>> {
        // A purge is openraft's as soon as it is requested, durable or not (purge.rs).
        let last_purged = self.purges.last_purged();
        let last_entry = self.last_entry_id().map_err(read_logs)?;
        let last = match (last_entry, last_purged) {
            (Some(e), Some(p)) if e.index <= p.index => Some(p),
            (Some(e), _) => Some(e),
            (None, p) => p,
        };
        Ok(LogState {
            last_purged_log_id: last_purged,
            last_log_id: last,
        })
    }

    async fn get_log_reader(&mut self) -> Self::LogReader {
        self.clone()
    }

    async fn save_vote(&mut self, vote: &Vote<NodeId>) -> Result<(), StorageError<NodeId>> {
        self.put_meta(VOTE, vote, true).map_err(|e| {
            crate::error::io(openraft::ErrorSubject::Vote, openraft::ErrorVerb::Write, e)
        })
    }

    async fn read_vote(&mut self) -> Result<Option<Vote<NodeId>>, StorageError<NodeId>> {
        self.get_meta(VOTE).map_err(|e| {
            crate::error::io(openraft::ErrorSubject::Vote, openraft::ErrorVerb::Read, e)
        })
    }

    async fn save_committed(
        &mut self,
        committed: Option<LogId<NodeId>>,
    ) -> Result<(), StorageError<NodeId>> {
        // A hint to openraft (contract 5): durable with the next synced write.
        self.put_meta(COMMITTED, &committed, false)
            .map_err(write_logs)
    }

    async fn read_committed(&mut self) -> Result<Option<LogId<NodeId>>, StorageError<NodeId>> {
        Ok(self
            .get_meta::<Option<LogId<NodeId>>>(COMMITTED)
            .map_err(read_logs)?
            .flatten())
    }

    async fn append<I>(
        &mut self,
        entries: I,
        callback: LogFlushed<TypeConfig>,
    ) -> Result<(), StorageError<NodeId>>
    where
        I: IntoIterator<Item = Entry<TypeConfig>> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        // The state machine may have caught up with a purge since (purge.rs).
        self.purges.settle().map_err(write_logs)?;
        let mut batch = WriteBatch::new();
        let cf = self.log.id();
        for entry in entries {
            let bytes = serde_json::to_vec(&entry)
                .map_err(|e| write_logs(corrupt("encoding an entry", e)))?;
            batch
                .put_cf(cf, &index_key(entry.log_id.index), &bytes)
                .map_err(write_logs)?;
        }
        // Contract 1: synced before the callback.
        match self.db.write(&synced(), batch) {
            Ok(()) => {
                callback.log_io_completed(Ok(()));
                Ok(())
            }
            Err(e) => {
                callback.log_io_completed(Err(std::io::Error::other(e.to_string())));
                Err(write_logs(e))
            }
        }
    }

    async fn truncate(&mut self, log_id: LogId<NodeId>) -> Result<(), StorageError<NodeId>> {
        let mut batch = WriteBatch::new();
        delete_indexes(&mut batch, self.log.id(), log_id.index, u64::MAX).map_err(write_logs)?;
        self.db.write(&synced(), batch).map_err(write_logs)
    }

    async fn purge(&mut self, log_id: LogId<NodeId>) -> Result<(), StorageError<NodeId>> {
        // Contract 2: openraft's at once, durable as far as the state machine has applied.
        self.purges.request(log_id).map_err(write_logs)
    }
}
