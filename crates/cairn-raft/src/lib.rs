//! openraft's storage on CairnDB: a Raft log store ([`LogStore`], openraft's
//! `RaftLogStorage`) and a key-value state machine ([`StateMachine`], `RaftStateMachine`) that
//! share one database. Built for openraft 0.9.25 (its `storage-v2` traits) and checked by
//! openraft's own storage suite (`tests/openraft_suite.rs`).
//!
//! # Layout
//!
//! One CairnDB database in `<dir>/db`, three column families:
//!
//! | family | keys | values |
//! |---|---|---|
//! | `raft_log` | the entry's index, 8 bytes big-endian (so key order is index order) | the entry, JSON |
//! | `raft_meta` | `vote`, `committed`, `last_purged` | JSON |
//! | `raft_sm` | `d` ++ user key (the data); `m` ++ `applied`, `membership`, `snapshot` | user value; JSON |
//!
//! and the current snapshot's table file in `<dir>/snapshots/`.
//!
//! # Contract
//!
//! 1. An append is one write batch synced to the WAL before openraft's flush callback fires.
//!    openraft 0.9 waits for that callback before it handles the next client write
//!    (`RaftCore::append_to_log`), so a leader's appends cannot share syncs whatever the
//!    storage does (docs/design/raft.md). Votes and truncations are synced writes too.
//! 2. Truncate and purge are range deletions. A purge is openraft's at once (reads and
//!    `get_log_state` reflect it) but made durable only up to the state machine's applied
//!    index: the `last_purged` record and the deletion in one synced batch; the rest follows
//!    when the state machine catches up (after a snapshot install, or at the next append).
//!    openraft issues the purge that follows a received snapshot without waiting for its
//!    install, so this keeps a crash from leaving the state machine behind the purged log
//!    (`purge.rs`); [`open`] refuses a store in that state, or with a gap in its log after
//!    the durable purge.
//! 3. `apply` writes the data, the last applied log id and the membership in one batch, so the
//!    state machine is always a state the log produced. It is not synced on its own: the WAL is
//!    one sequence and recovery keeps a prefix of it, so it becomes durable with the next synced
//!    write (the next append or purge). So a purge, a synced write, makes every apply before it
//!    durable. [`open`] refuses the salvage recovery mode (`SkipAnyCorruptedRecords`), which would not
//!    keep a prefix.
//! 4. A snapshot is a CairnDB table file built from an iterator over a database snapshot: a
//!    range deletion over all data, the data, and the `m` keys (applied id, membership, and the
//!    snapshot's own meta). Installing one is a single ingestion (one MANIFEST edit), so data,
//!    applied id, membership and the current-snapshot record change together or not at all.
//! 5. `committed` is written without a sync (openraft treats it as a hint); it is durable with
//!    the next synced write.
//!
//! The calls are synchronous CairnDB calls inside `async fn`s: a synced append blocks the
//! calling task for its fsync.

mod error;
mod log_store;
mod purge;
mod snapshot;
mod state_machine;

use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cairndb::fs::{FileSystem, RealFs};
use cairndb::options::Options;
use cairndb::{ColumnFamilyDescriptor, Db};
use serde::{Deserialize, Serialize};

pub use log_store::LogStore;
pub use state_machine::StateMachine;

/// A write to the replicated key-value state machine (openraft's application data).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// Sets `key` to `value`.
    Put {
        /// The key.
        key: String,
        /// The value.
        value: String,
    },
    /// Removes `key`.
    Delete {
        /// The key.
        key: String,
    },
    /// Several writes applied in order, all in one entry: how a service lets concurrent
    /// clients share a log append and its syncs (`cairn_kv::batcher`).
    Batch {
        /// The writes, applied first to last.
        writes: Vec<Request>,
    },
}

/// What applying an entry returned: the value a `Put` wrote; `None` for deletes and for
/// openraft's blank and membership entries; for a `Batch`, one reply per write in `batch`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    /// The value written, if any.
    pub value: Option<String>,
    /// A batch's replies, in the order of its writes (empty for other requests).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batch: Vec<Response>,
}

openraft::declare_raft_types!(
    /// openraft's type configuration of a CairnDB-backed key-value node.
    pub TypeConfig:
        D = Request,
        R = Response,
        NodeId = u64,
        Node = openraft::BasicNode,
        Entry = openraft::Entry<TypeConfig>,
        SnapshotData = Cursor<Vec<u8>>,
        AsyncRuntime = openraft::TokioRuntime,
);

/// The node id type.
pub type NodeId = u64;

/// Write options of a synced write.
pub(crate) fn synced() -> cairndb::options::WriteOptions {
    cairndb::options::WriteOptions {
        sync: true,
        ..cairndb::options::WriteOptions::default()
    }
}

pub(crate) const LOG_CF: &str = "raft_log";
pub(crate) const META_CF: &str = "raft_meta";
pub(crate) const SM_CF: &str = "raft_sm";

/// Opens (creating if missing) the Raft storage in `dir`: the database in `dir/db`, snapshots in
/// `dir/snapshots`. `options` tunes the database; `create_if_missing` and
/// `create_missing_column_families` are set here. Snapshot files that no record names (left
/// by a crash while building or installing one) are removed.
///
/// ```
/// # fn main() -> cairndb::Result<()> {
/// let dir = tempfile::tempdir().unwrap();
/// let (log_store, state_machine) = cairn_raft::open(dir.path(), cairndb::options::Options::default())?;
/// // Hand both to openraft: Raft::new(id, config, network, log_store, state_machine).
/// # drop((log_store, state_machine));
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// [`cairndb::Error::InvalidArgument`] for `wal_recovery_mode` `SkipAnyCorruptedRecords`;
/// [`cairndb::Error::Corruption`] when the log is purged past the state machine's applied
/// index (contract 2); the database's open errors; I/O errors creating the snapshot
/// directory.
pub fn open(dir: impl AsRef<Path>, options: Options) -> cairndb::Result<(LogStore, StateMachine)> {
    open_with_fs(RealFs::shared(), dir, options)
}

/// As [`open`], with every file (the database's and the snapshots') on `fs`: a
/// `cairndb::fs::MemFs` to simulate power cuts, a `FaultFs` to inject errors or count syncs.
///
/// # Errors
/// As [`open`].
pub fn open_with_fs(
    fs: Arc<dyn FileSystem>,
    dir: impl AsRef<Path>,
    mut options: Options,
) -> cairndb::Result<(LogStore, StateMachine)> {
    let dir = dir.as_ref();
    if options.db.wal_recovery_mode == cairndb::options::WalRecoveryMode::SkipAnyCorruptedRecords {
        return Err(cairndb::Error::InvalidArgument(
            "raft storage: wal_recovery_mode kSkipAnyCorruptedRecords may recover a state that \
             is not a prefix of the acknowledged writes; use another mode"
                .into(),
        ));
    }
    options.db.create_if_missing = true;
    options.db.create_missing_column_families = true;
    let families = [LOG_CF, META_CF, SM_CF]
        .iter()
        .map(|name| ColumnFamilyDescriptor::new(*name, options.cf.clone()))
        .collect::<Vec<_>>();
    fs.create_dir_all(dir)?;
    let db = Arc::new(Db::open_cf_with_fs(
        fs.clone(),
        dir.join("db"),
        options,
        families,
    )?);
    let snapshots: PathBuf = dir.join("snapshots");
    fs.create_dir_all(&snapshots)?;
    let family = |name: &str| {
        db.column_family(name)
            .ok_or_else(|| cairndb::Error::InvalidArgument(format!("column family {name} missing")))
    };
    let purges = Arc::new(purge::Purges::open(
        db.clone(),
        family(LOG_CF)?,
        family(META_CF)?,
        family(SM_CF)?,
    )?);
    purges.check_at_open()?;
    let sm = StateMachine::new(db.clone(), family(SM_CF)?, fs, snapshots, purges.clone())?;
    let log = LogStore::new(db.clone(), family(LOG_CF)?, family(META_CF)?, purges);
    Ok((log, sm))
}
