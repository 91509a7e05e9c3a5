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
use crate::{NodeId, TypeConfig};

const VOTE: &[u8] = b"vote";
const COMMITTED: &[u8] = b"committed";
const LAST_PURGED: &[u8] = b"last_purged";

/// The Raft log of one node, and its vote and committed index. Cheap to clone: clones share
/// the database (a clone is also the log reader openraft asks for).
#[derive(Clone)]
pub struct LogStore {
    db: Arc<Db>,
    log: ColumnFamily,
    meta: ColumnFamily,
}

impl Debug for LogStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogStore").finish_non_exhaustive()
    }
}

/// The key of the entry at `index`: big-endian, so that key order is index order.
fn index_key(index: u64) -> [u8; 8] {
    index.to_be_bytes()
}

fn synced() -> WriteOptions {
    WriteOptions {
        sync: true,
        ..WriteOptions::default()
    }
}

impl LogStore {
    pub(crate) fn new(db: Arc<Db>, log: ColumnFamily, meta: ColumnFamily) -> Self {
        LogStore { db, log, meta }
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
        let index = <[u8; 8]>::try_from(key)
            .map(u64::from_be_bytes)
            .map_err(|_| corrupt("log key", format!("{} bytes, not 8", key.len())))?;
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

    /// Deletes the entries with indexes in `[from, to]` (a range deletion; `to` may be
    /// `u64::MAX`, which a half-open range cannot reach).
    fn delete_indexes(batch: &mut WriteBatch, cf: u32, from: u64, to: u64) -> cairndb::Result<()> {
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
        self.entries(start, range.end_bound().cloned())
            .map_err(read_logs)
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = Self;

    async fn get_log_state(&mut self) -> Result<LogState<TypeConfig>, StorageError<NodeId>> {
        let last_purged: Option<LogId<NodeId>> = self.get_meta(LAST_PURGED).map_err(read_logs)?;
        // The purge record and its deletion are one batch, so no entry at or below the record
        // survives; max() keeps the answer right even so.
        let last = self.last_entry_id().map_err(read_logs)?.max(last_purged);
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
        let mut batch = WriteBatch::new();
        let cf = self.log.id();
        for entry in entries {
            let bytes = serde_json::to_vec(&entry)
                .map_err(|e| write_logs(corrupt("encoding an entry", e)))?;
            batch
                .put_cf(cf, &index_key(entry.log_id.index), &bytes)
                .map_err(write_logs)?;
        }
        // Contract 1: synced before the callback; concurrent synced writes share one WAL sync.
        let result = self.db.write(&synced(), batch);
        match result {
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
        Self::delete_indexes(&mut batch, self.log.id(), log_id.index, u64::MAX)
            .map_err(write_logs)?;
        self.db.write(&synced(), batch).map_err(write_logs)
    }

    async fn purge(&mut self, log_id: LogId<NodeId>) -> Result<(), StorageError<NodeId>> {
        // The record and the deletion in one synced batch (a synced write also makes every
        // earlier state-machine write durable, contract 3).
        let mut batch = WriteBatch::new();
        let record = serde_json::to_vec(&log_id).map_err(|e| write_logs(corrupt("encoding", e)))?;
        batch
            .put_cf(self.meta.id(), LAST_PURGED, &record)
            .map_err(write_logs)?;
        Self::delete_indexes(&mut batch, self.log.id(), 0, log_id.index).map_err(write_logs)?;
        self.db.write(&synced(), batch).map_err(write_logs)
    }
}
