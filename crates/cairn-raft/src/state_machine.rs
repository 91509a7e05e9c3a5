//! [`StateMachine`]: openraft's `RaftStateMachine` and `RaftSnapshotBuilder` on the `raft_sm`
//! column family: the key-value data under `d`, the applied log id and membership under `m`
//! (the crate documentation gives the contract; `snapshot.rs` the snapshot files).

use std::fmt::Debug;
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cairndb::fs::FileSystem;
use cairndb::options::{ReadOptions, WriteOptions};
use cairndb::{ColumnFamily, Db, WriteBatch};
use openraft::storage::{RaftStateMachine, Snapshot};
use openraft::{
    BasicNode, Entry, EntryPayload, LogId, OptionalSend, RaftSnapshotBuilder, SnapshotMeta,
    StorageError, StoredMembership,
};
use serde::de::DeserializeOwned;

use crate::error::{corrupt, read_sm, read_snapshot, write_sm, write_snapshot};
use crate::purge::Purges;
use crate::{snapshot, NodeId, Request, Response, TypeConfig};

/// The key of user key `key` in the state machine's family.
pub(crate) fn data_key(key: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(key.len() + 1);
    k.push(DATA_PREFIX);
    k.extend_from_slice(key);
    k
}

pub(crate) const DATA_PREFIX: u8 = b'd';
/// The first key after every data key.
pub(crate) const DATA_END: &[u8] = b"e";
pub(crate) const APPLIED: &[u8] = b"mapplied";
pub(crate) const MEMBERSHIP: &[u8] = b"mmembership";
pub(crate) const CURRENT_SNAPSHOT: &[u8] = b"msnapshot";

pub(crate) struct Shared {
    pub(crate) db: Arc<Db>,
    pub(crate) cf: ColumnFamily,
    /// The file system of the database and the snapshot files.
    pub(crate) fs: Arc<dyn FileSystem>,
    /// The snapshot directory.
    pub(crate) dir: PathBuf,
    /// Held while a snapshot is built or installed, so that the current-snapshot record and
    /// the files in `dir` change one snapshot at a time.
    pub(crate) snapshot_lock: Mutex<()>,
    pub(crate) builds: AtomicU64,
    /// Snapshots installed since open.
    pub(crate) installs: AtomicU64,
    /// The log's purges, settled after an install (`purge.rs`).
    pub(crate) purges: Arc<Purges>,
}

/// The replicated key-value state of one node. Cheap to clone: clones share the database (a
/// clone is also the snapshot builder openraft asks for).
#[derive(Clone)]
pub struct StateMachine {
    pub(crate) shared: Arc<Shared>,
}

impl Debug for StateMachine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateMachine")
            .field("snapshots", &self.shared.dir)
            .finish_non_exhaustive()
    }
}

pub(crate) fn get_json<T: DeserializeOwned>(
    db: &Db,
    cf: &ColumnFamily,
    opts: &ReadOptions,
    key: &[u8],
) -> cairndb::Result<Option<T>> {
    match db.get_cf(opts, cf, key)? {
        None => Ok(None),
        Some(v) => serde_json::from_slice(&v)
            .map(Some)
            .map_err(|e| corrupt(&String::from_utf8_lossy(key), e)),
    }
}

pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> cairndb::Result<Vec<u8>> {
    serde_json::to_vec(value).map_err(|e| corrupt("encoding", e))
}

/// The applied log id and membership as of `opts`' view.
pub(crate) type AppliedState = (Option<LogId<NodeId>>, StoredMembership<NodeId, BasicNode>);

impl StateMachine {
    pub(crate) fn new(
        db: Arc<Db>,
        cf: ColumnFamily,
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        purges: Arc<Purges>,
    ) -> cairndb::Result<Self> {
        let shared = Shared {
            db,
            cf,
            fs,
            dir,
            snapshot_lock: Mutex::new(()),
            builds: AtomicU64::new(0),
            installs: AtomicU64::new(0),
            purges,
        };
        snapshot::remove_unrecorded(&shared)?;
        Ok(StateMachine {
            shared: Arc::new(shared),
        })
    }

    /// Snapshots this state machine installed since it was opened.
    pub fn snapshot_installs(&self) -> u64 {
        self.shared.installs.load(Ordering::Relaxed)
    }

    /// The value of `key`, as of the last applied entry (a local read: not linearizable by
    /// itself).
    ///
    /// # Errors
    /// The database's read errors.
    pub fn get(&self, key: &str) -> cairndb::Result<Option<String>> {
        let s = &self.shared;
        match s
            .db
            .get_cf(&ReadOptions::default(), &s.cf, &data_key(key.as_bytes()))?
        {
            None => Ok(None),
            Some(v) => String::from_utf8(v)
                .map(Some)
                .map_err(|e| corrupt("value", e)),
        }
    }

    /// Every key and value with `from <= key < to` (`to` None: to the end), at most `limit`.
    ///
    /// # Errors
    /// The database's read errors.
    pub fn scan(
        &self,
        from: &str,
        to: Option<&str>,
        limit: usize,
    ) -> cairndb::Result<Vec<(String, String)>> {
        let s = &self.shared;
        let opts = ReadOptions {
            iterate_upper_bound: Some(to.map_or(DATA_END.to_vec(), |t| data_key(t.as_bytes()))),
            ..ReadOptions::default()
        };
        let mut it = s.db.iter_cf(&opts, &s.cf)?;
        it.seek(&data_key(from.as_bytes()));
        let mut out = Vec::new();
        while it.valid() && out.len() < limit {
            let k = String::from_utf8(it.key()[1..].to_vec()).map_err(|e| corrupt("key", e))?;
            let v = String::from_utf8(it.value().to_vec()).map_err(|e| corrupt("value", e))?;
            out.push((k, v));
            it.next();
        }
        it.status()?;
        Ok(out)
    }

    pub(crate) fn applied(&self, opts: &ReadOptions) -> cairndb::Result<AppliedState> {
        let s = &self.shared;
        let applied = get_json::<Option<LogId<NodeId>>>(&s.db, &s.cf, opts, APPLIED)?.flatten();
        let membership = get_json(&s.db, &s.cf, opts, MEMBERSHIP)?.unwrap_or_default();
        Ok((applied, membership))
    }
}

impl RaftSnapshotBuilder<TypeConfig> for StateMachine {
    async fn build_snapshot(&mut self) -> Result<Snapshot<TypeConfig>, StorageError<NodeId>> {
        snapshot::build(&self.shared).map_err(write_snapshot)
    }
}

/// Adds the writes of `request` to `batch`; the reply applying them gives.
fn add_request(batch: &mut WriteBatch, cf: u32, request: Request) -> cairndb::Result<Response> {
    Ok(match request {
        Request::Put { key, value } => {
            batch.put_cf(cf, &data_key(key.as_bytes()), value.as_bytes())?;
            Response {
                value: Some(value),
                batch: Vec::new(),
            }
        }
        Request::Delete { key } => {
            batch.delete_cf(cf, &data_key(key.as_bytes()))?;
            Response::default()
        }
        Request::Batch { writes } => Response {
            value: None,
            batch: writes
                .into_iter()
                .map(|w| add_request(batch, cf, w))
                .collect::<cairndb::Result<_>>()?,
        },
    })
}

impl RaftStateMachine<TypeConfig> for StateMachine {
    type SnapshotBuilder = Self;

    async fn applied_state(&mut self) -> Result<AppliedState, StorageError<NodeId>> {
        self.applied(&ReadOptions::default()).map_err(read_sm)
    }

    async fn apply<I>(&mut self, entries: I) -> Result<Vec<Response>, StorageError<NodeId>>
    where
        I: IntoIterator<Item = Entry<TypeConfig>> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        let s = &self.shared;
        let cf = s.cf.id();
        let mut batch = WriteBatch::new();
        let mut replies = Vec::new();
        let mut last = None;
        for entry in entries {
            last = Some(entry.log_id);
            let reply = match entry.payload {
                EntryPayload::Blank => Response::default(),
                EntryPayload::Normal(request) => {
                    add_request(&mut batch, cf, request).map_err(write_sm)?
                }
                EntryPayload::Membership(m) => {
                    let stored = StoredMembership::new(Some(entry.log_id), m);
                    batch
                        .put_cf(cf, MEMBERSHIP, &to_json(&stored).map_err(write_sm)?)
                        .map_err(write_sm)?;
                    Response::default()
                }
            };
            replies.push(reply);
        }
        if let Some(last) = last {
            batch
                .put_cf(cf, APPLIED, &to_json(&Some(last)).map_err(write_sm)?)
                .map_err(write_sm)?;
            // Contract 3: one batch, durable with the next synced write.
            s.db.write(&WriteOptions::default(), batch)
                .map_err(write_sm)?;
        }
        Ok(replies)
    }

    async fn get_snapshot_builder(&mut self) -> Self::SnapshotBuilder {
        self.clone()
    }

    async fn begin_receiving_snapshot(
        &mut self,
    ) -> Result<Box<Cursor<Vec<u8>>>, StorageError<NodeId>> {
        Ok(Box::new(Cursor::new(Vec::new())))
    }

    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta<NodeId, BasicNode>,
        snapshot: Box<Cursor<Vec<u8>>>,
    ) -> Result<(), StorageError<NodeId>> {
        let s = &self.shared;
        snapshot::install(s, meta, snapshot.into_inner()).map_err(write_snapshot)?;
        s.installs.fetch_add(1, Ordering::Relaxed);
        // The purge openraft issued with this install can be durable now (purge.rs).
        s.purges.settle().map_err(write_snapshot)
    }

    async fn get_current_snapshot(
        &mut self,
    ) -> Result<Option<Snapshot<TypeConfig>>, StorageError<NodeId>> {
        snapshot::current(&self.shared).map_err(read_snapshot)
    }
}
