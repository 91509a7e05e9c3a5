//! The database front: open and recovery, the commit path, point reads, flush, snapshots and
//! iterators. Design notes: `docs/design/db.md`.
//!
//! # Contract
//! - Callers: any number of threads share one [`Db`] (`Send + Sync`). Writers queue under the
//!   state mutex and are committed in groups by a leader (`write.rs`); readers take only their
//!   column family's small `view` mutex for the instant it takes to clone an `Arc<ReadView>`, so
//!   they never wait for WAL I/O. One background thread flushes immutable memtables.
//! - Column families (`column_family.rs`) share one WAL, one sequence and one commit queue; each
//!   has its own options, memtables, version and read view. A batch is atomic across families.
//! - `Mutex<DbState>` guards the version set, the WAL writer, every family's mutable and
//!   immutable memtables, and the poisoned/closed/flush flags. Lock order: `state`, then a
//!   family's `view`, then `snapshots`/`range_dels` (leaves, never held across I/O except
//!   `range_dels`, which only reads a table already opened).
//!
//! # Invariants
//! 1. Sequence numbers are assigned under the state lock in WAL order; `last_sequence` (the
//!    published, atomic copy) is stored only after the batch is in the memtables, so a reader
//!    never sees a partially applied batch or a gap.
//! 2. A write returns Ok only after its WAL record was handed to the OS (`flush`), and synced when
//!    `WriteOptions::sync`; a failed WAL append/flush/sync poisons the database for good.
//! 3. Every memtable's data lives in WALs numbered below the `next_log` recorded with it; a flush
//!    records that number as the column family's log number only in the edit that adds the
//!    table, so a WAL is deleted only after every family's data in it is in a durable table. A
//!    family whose memtables are all empty has its log number raised to the current WAL in the
//!    same edit, so an idle family does not pin old WALs; one whose memtables were all empty
//!    when the flush began has it raised to the WAL current then (it may have been written
//!    meanwhile, but only into that WAL or later ones).
//! 4. Each family's immutable memtables are flushed oldest first, one flush at a time, so its L0
//!    files are ordered by sequence numbers and its memtables hold only sequence numbers above
//!    its tables'. A flush takes every immutable memtable queued when it starts (a prefix of
//!    the list, oldest first) and writes them to one table; the background thread starts one
//!    only when `min_write_buffer_number_to_merge` are queued or a flush was forced
//!    ([`CfState::flush_due`]).
//! 5. Losing unsynced data on power loss only ever loses a suffix of the history. A WAL retired
//!    by a memtable switch is flushed to the OS at once, but its sync is owed (`unsynced_wals`)
//!    rather than done on the switching writer's path (an fsync of a whole memtable's WAL stalls
//!    that write for tens of milliseconds on a busy disk). The debt is paid before anything
//!    could depend on it: a synced write syncs every retired WAL before its own record, and a
//!    flush syncs the WALs of the memtable it writes before the table is installed if another
//!    family still has data in them. If none has, the installed table makes those WALs
//!    obsolete for every family (invariant 3 raises the others' log numbers past them in the
//!    same edit) and they are deleted unsynced (a power cut before the install loses at most a
//!    suffix, by the seal rule below; after it, the table holds their data). A retired
//!    (or cleanly closed) WAL ends with a seal record, an empty batch; recovery replays the
//!    WALs after one only if it is intact and sealed (`open.rs`), and reads nothing of a WAL
//!    past its seal (a recycled file's old bytes follow it). A retired WAL can lose its
//!    tail only if nothing later was synced, so stopping there keeps a prefix and loses no
//!    synced write.
//! 6. A WAL's name becomes durable only through a directory sync begun after its creation
//!    (`wal_name_durable`), and only the current WAL may lack one. A memtable switch creates the
//!    next WAL without syncing the directory (an fsync of a directory waits for the journal,
//!    which on a busy ext4 took 0.1-1.4 s on the switching writer's path); the flush of the
//!    retired memtable syncs the directory for its table anyway, and that covers every WAL
//!    created before the flush began. A switch that finds the current WAL's name still not
//!    durable syncs the directory before creating the next one, so no WAL can vanish in a power
//!    cut while a later one survives (recovery would replay across the gap). A synced write
//!    syncs the directory before its record when the current WAL's name is not durable (as
//!    RocksDB's `log_dir_synced_`). Losing the current WAL's name therefore loses only
//!    unsynced writes, a suffix of the history.

mod backlog_control;
mod checkpoint;
mod column_family;
mod compact;
mod conflict;
mod deferred_sync;
mod destroy;
mod dynamic_options;
mod flush;
mod group_insert;
mod info_log;
mod ingest;
mod install;
pub mod internal_stats;
mod iter;
mod open;
mod options_file;
mod pinnable;
mod properties;
mod publish_queue;
mod read;
mod read_only;
mod secondary;
pub(crate) mod sequence;
mod switch;
mod table_properties;
mod two_phase;
mod view_tables;
mod wal_updates;
mod write;
pub mod write_control;
mod writer;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex, MutexGuard};

pub use checkpoint::CheckpointReport;
pub use column_family::{ColumnFamily, ColumnFamilyDescriptor};
pub use iter::DbIter;
pub use pinnable::PinnableValue;
pub use properties::PROPERTY_NAMES;
pub use table_properties::{LiveTableProperties, SizeApproximation};
pub use wal_updates::WalUpdates;

use crate::compaction::plan::RunningCompactions;
use column_family::CfData;
pub use compact::{CompactionStats, LevelStats, LevelSummary};
use write_control::WriteController;

use crate::batch::WriteBatch;
use crate::error::{Error, Result};
use crate::fs::{FileLock, FileSystem};
use crate::iter::RangeDelSet;
use crate::memtable::MemTable;
use crate::options::{CfOptions, Options, ReadOptions};
use crate::types::{RangeTombstone, SequenceNumber};
use crate::version::{Version, VersionSet};
use crate::wal::{DamageKind, LogWriter};

/// One damaged stretch of a WAL that recovery dropped (as the recovery mode allowed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedWalBytes {
    /// The log file.
    pub file: PathBuf,
    /// How the reader classified the damage.
    pub kind: DamageKind,
    /// Offset of the first dropped byte.
    pub offset: u64,
    /// Number of bytes dropped from `offset`.
    pub bytes: u64,
}

/// What opening the database found and replayed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// True when the database was created by this open.
    pub created: bool,
    /// The WAL numbers replayed, in order.
    pub logs_replayed: Vec<u64>,
    /// Batches replayed from the WALs.
    pub batches_replayed: u64,
    /// Damage dropped from the WALs.
    pub dropped: Vec<DroppedWalBytes>,
    /// WALs not read at all because point-in-time recovery stopped at earlier damage.
    pub logs_skipped: Vec<u64>,
    /// The last sequence number after recovery.
    pub last_sequence: SequenceNumber,
}

/// An immutable memtable waiting for its flush.
#[derive(Debug)]
struct Imm {
    mem: Arc<MemTable>,
    /// The WAL started when this memtable was retired: its data lives in older WALs only.
    next_log: u64,
    /// Flush it without waiting for `min_write_buffer_number_to_merge` memtables (RocksDB's
    /// `flush_requested`): set by [`Db::flush`] and by the `max_total_wal_size` switch. Kept
    /// per memtable, so a failed forced flush is retried as forced.
    forced: bool,
    /// The last sequence number allocated when it was retired: every group that may insert
    /// into it has numbers up to this one, so it is complete once this is published (a
    /// pipelined group may still be inserting into it after the switch; `publish_queue.rs`).
    last_seq: SequenceNumber,
}

/// What readers of one column family need, swapped as a whole (RocksDB's SuperVersion).
#[derive(Debug)]
struct ReadView {
    mem: Arc<MemTable>,
    /// Immutable memtables, newest first.
    imms: Vec<Arc<MemTable>>,
    version: Arc<Version>,
    /// The range tombstones of every table of `version`, gathered by the first point read that
    /// needs them and shared by every later read of this view, so a get does not visit every
    /// table's tombstone list.
    table_tombstones: OnceLock<Arc<RangeDelSet>>,
    /// The tables of `version`, kept open for the view's reads (`view_tables.rs`).
    tables: view_tables::ViewTables,
}

/// A write waiting in the commit queue.
struct Queued {
    /// The waiting call; the leader moves its state (`writer.rs`).
    writer: Arc<writer::Writer>,
    batch: WriteBatch,
    sync: bool,
    disable_wal: bool,
    no_slowdown: bool,
    /// A marked two-phase-commit record written to the WAL alone
    /// (`DbInner::write_wal_only`): it leads alone and joins no group.
    wal_only: bool,
}

/// One column family's write side, guarded by the state mutex.
struct CfState {
    data: Arc<CfData>,
    /// The options in force (the same `Arc` as `data.current`), read by the write path and the
    /// compaction picker under the state lock without another lock.
    options: Arc<CfOptions>,
    mem: Arc<MemTable>,
    /// Oldest first.
    imms: VecDeque<Imm>,
    /// The family's compactions in progress (their inputs and output ranges).
    running: RunningCompactions,
    /// What its compactions did, by output level.
    stats: CompactionStats,
    /// The last sequence number of the newest commit group that may write to the family
    /// (set when the group's numbers are allocated; `publish_queue.rs`).
    last_allocated: SequenceNumber,
}

impl CfState {
    /// Nothing of the family is in memory (its mutable and immutable memtables are empty) and
    /// no commit group in flight writes to it (every group given sequence numbers for it is
    /// published, `published` being the published sequence), so it needs no WAL older than
    /// the current one.
    fn holds_nothing(&self, published: SequenceNumber) -> bool {
        self.mem.is_empty() && self.imms.is_empty() && self.last_allocated <= published
    }

    /// Whether the background flush thread should flush this family's immutable memtables now
    /// (RocksDB's `IsFlushPending`): `min_write_buffer_number_to_merge` of them are queued, one
    /// of them was forced (manual flush, WAL limit), or every memtable slot is in use (a full
    /// stall flushes whatever is there, even after `max_write_buffer_number` was lowered).
    fn flush_due(&self) -> bool {
        let n = self.imms.len();
        let min = self.options.min_write_buffer_number_to_merge.max(1) as usize;
        let max_imms = (self.options.max_write_buffer_number.max(2) - 1) as usize;
        n > 0 && (n >= min || n >= max_imms || self.imms.iter().any(|i| i.forced))
    }

    /// Forces the flush of every immutable memtable queued now (see [`Imm::forced`]).
    fn force_flush(&mut self) {
        for imm in &mut self.imms {
            imm.forced = true;
        }
    }
}

/// Everything the state mutex guards.
struct DbState {
    versions: VersionSet,
    /// The WALs prepared transactions pin (`two_phase.rs`).
    pins: two_phase::Pins,
    /// `None` only after close.
    wal: Option<LogWriter>,
    wal_number: u64,
    /// The newest WAL whose name is known durable: a directory sync began after it was
    /// created. Only the current WAL may be newer (contract 6).
    wal_name_durable: u64,
    /// Obsolete WAL files kept for reuse (`recycle_log_file_num`), oldest first, by the
    /// pending temporary number each was renamed to (`install.rs`): the next memtable switch
    /// renames one to the new WAL's name and overwrites it (`switch.rs`).
    recycled_wals: VecDeque<crate::version::PendingOutput>,
    /// The WAL this open created: only WALs numbered from it on are kept for reuse.
    first_wal: u64,
    /// WALs retired by a memtable switch whose sync is still owed (contract 5), oldest first:
    /// the flush of their memtables or the next synced write syncs them, off the switching
    /// writer's path.
    unsynced_wals: Vec<(u64, LogWriter)>,
    /// Sizes of the WALs retired since open, by number (pruned below the oldest live one): with
    /// the current WAL's length, the live WAL bytes `max_total_wal_size` bounds.
    retired_wal_bytes: BTreeMap<u64, u64>,
    /// The oldest live WAL whose families were last switched for `max_total_wal_size` (0: none),
    /// so one WAL triggers that once (RocksDB's `getting_flushed`).
    wal_limit_switched: u64,
    /// The flush thread is syncing retired WALs it took from `unsynced_wals`; a synced write
    /// waits for it.
    syncing_retired_wals: bool,
    /// A commit leader is syncing retired WALs it took from `unsynced_wals`; a flush waits for
    /// it before deciding which WALs it must sync (they are owed until the sync ends).
    leader_syncing_wals: bool,
    /// The live column families by id.
    cfs: BTreeMap<u32, CfState>,
    /// Why writes are refused (invariant 2).
    poisoned: Option<String>,
    /// A flush job runs (one at a time, invariant 4).
    flushing: bool,
    /// The last background flush error, cleared by the next successful flush.
    flush_error: Option<String>,
    /// The last compaction error, cleared by the next successful compaction.
    compaction_error: Option<String>,
    /// Background flushes and compactions that failed since open (each is retried).
    background_failures: u64,
    /// Time writers waited for a free memtable (all `max_write_buffer_number` in use), and
    /// how many waits.
    memtable_waits: (std::time::Duration, u64),
    /// The admission rate of writes under compaction debt.
    write_control: WriteController,
    /// The commit queue; its head is or becomes the leader.
    writers: VecDeque<Queued>,
    /// A leader is committing a group, possibly with the mutex released.
    leader_active: bool,
    /// User calls that may write or delete files with the mutex released (`CallGuard`):
    /// close waits for them before it releases the directory.
    calls_in_flight: usize,
    /// Kept until close: dropping it releases the directory.
    _lock: Option<Box<dyn FileLock>>,
}

impl DbState {
    fn cf(&self, id: u32) -> &CfState {
        self.cfs.get(&id).expect("a live column family")
    }
    fn cf_mut(&mut self, id: u32) -> &mut CfState {
        self.cfs.get_mut(&id).expect("a live column family")
    }
}

/// Shared by the handle and the flush thread.
struct DbInner {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    /// The options the database was opened with; the mutable database options in force are in
    /// `db_options` (`dynamic_options.rs`).
    options: Options,
    /// The database options in force, swapped whole by `Db::set_db_options`.
    db_options: Mutex<Arc<crate::options::DbOptions>>,
    /// Held by `set_options` and `set_db_options` from the change to the OPTIONS file written
    /// after it, so concurrent changes write their files in the order they were installed.
    options_change: Mutex<()>,
    state: Mutex<DbState>,
    /// Commit groups between their WAL write and their publication (`publish_queue.rs`).
    publish_queue: publish_queue::PublishQueue,
    /// How queued writers wait for their turn (`writer.rs`), from the database options.
    wait_policy: writer::WaitPolicy,
    /// Whether yielding pays for followers waiting for their group's result.
    follower_yield: writer::YieldScore,
    /// Whether yielding pays for a leader waiting for its members' inserts.
    leader_yield: writer::YieldScore,
    /// Wakes the leader, flush callers and drops: signalled when a commit group ends, an immutable
    /// list shrinks, a flush ends or the database closes.
    cond: Condvar,
    /// Wakes the background flush thread, and only it: signalled when there is a memtable to
    /// flush, a flush ends or the database closes. Apart from `cond` so that the commit of
    /// every write does not wake the flush thread (a futex wake and a context switch per
    /// write, a third of a single writer's time when measured).
    bg_cond: Condvar,
    /// The default column family, which always exists.
    default_cf: Arc<CfData>,
    /// The published last sequence number (invariant 1).
    last_sequence: sequence::PublishedSequence,
    /// Set once, under the state lock, by close.
    closed: AtomicBool,
    /// Live snapshots: sequence number → count. Kept for compaction, which must not drop
    /// versions a snapshot can see.
    snapshots: Arc<Mutex<BTreeMap<SequenceNumber, usize>>>,
    /// Range tombstones of each table file that a read view gathered: the list the table decoded
    /// from its range-deletion block when it opened (the same `Arc`, not a copy), kept by file
    /// number so that building the next view's set needs no table-cache lookup (nor a reopen of
    /// an evicted table). Entries go when their file is deleted (`install.rs`). File numbers are
    /// unique across column families.
    range_dels: Mutex<HashMap<u64, Arc<[RangeTombstone]>>>,
    report: RecoveryReport,
    /// Prepared transactions recovery left unresolved, until the transaction layer takes them.
    recovered_prepared: Mutex<Vec<(Vec<u8>, WriteBatch)>>,
    /// Database-wide write, WAL and flush counters (`internal_stats.rs`).
    counters: internal_stats::DbCounters,
    /// While non-zero, obsolete files are kept (a checkpoint is linking and copying them, a
    /// WAL iterator reading them, or `Db::disable_file_deletions` asked).
    deletions_paused: std::sync::atomic::AtomicUsize,
    /// The pauses of `deletions_paused` taken by `Db::disable_file_deletions`, so that an
    /// unmatched `enable_file_deletions` cannot end a checkpoint's or an iterator's pause.
    user_deletion_pauses: std::sync::atomic::AtomicUsize,
    /// The `LOG` file (`info_log.rs`).
    info_log: info_log::InfoLog,
    /// The compaction backlog controller, when the rate limiter asked for one
    /// (`backlog_control.rs`).
    backlog: Option<Mutex<backlog_control::BacklogController>>,
    /// Opened by [`Db::open_for_read_only`]: no lock, no WAL, no background threads, and every
    /// call that would write refused (`read_only.rs`).
    read_only: bool,
    /// Opened by [`Db::open_as_secondary`] (read-only too): `try_catch_up_with_primary` works.
    secondary: bool,
}

/// An open database: cheap to clone (clones share one database) and safe to use from many
/// threads at once. Dropping the last clone closes it; [`Db::close`] closes it explicitly and
/// reports the error of the final WAL sync.
///
/// ```
/// use cairndb::options::{Options, ReadOptions, WriteOptions};
/// use cairndb::Db;
///
/// # fn main() -> cairndb::Result<()> {
/// let dir = tempfile::tempdir().expect("temporary directory");
/// let mut options = Options::default();
/// options.db.create_if_missing = true;
/// let db = Db::open(dir.path(), options.clone())?;
/// db.put(&WriteOptions { sync: true, ..WriteOptions::default() }, b"k", b"v")?;
/// db.close()?;
///
/// // A reopen recovers every acknowledged write.
/// let db = Db::open(dir.path(), options)?;
/// assert_eq!(db.get(&ReadOptions::default(), b"k")?.as_deref(), Some(&b"v"[..]));
/// # Ok(())
/// # }
/// ```
pub struct Db {
    inner: Arc<DbInner>,
    /// The flush thread and the compaction threads, joined by close.
    workers: Mutex<Vec<JoinHandle<()>>>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db")
            .field("dir", &self.inner.dir)
            .finish_non_exhaustive()
    }
}

/// A consistent point in the history: reads with `ReadOptions::snapshot =
/// Some(snapshot.sequence())` see exactly the writes published before it was taken. Released
/// when dropped.
///
/// ```
/// use cairndb::options::{Options, ReadOptions, WriteOptions};
/// use cairndb::Db;
///
/// # fn main() -> cairndb::Result<()> {
/// # let dir = tempfile::tempdir().expect("temporary directory");
/// # let mut options = Options::default();
/// # options.db.create_if_missing = true;
/// let db = Db::open(dir.path(), options)?;
/// let w = WriteOptions::default();
/// db.put(&w, b"k", b"old")?;
/// let snapshot = db.snapshot()?;
/// db.put(&w, b"k", b"new")?;
/// let at_snapshot = ReadOptions { snapshot: Some(snapshot.sequence()), ..ReadOptions::default() };
/// assert_eq!(db.get(&at_snapshot, b"k")?.as_deref(), Some(&b"old"[..]));
/// assert_eq!(db.get(&ReadOptions::default(), b"k")?.as_deref(), Some(&b"new"[..]));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Snapshot {
    seq: SequenceNumber,
    registry: Arc<Mutex<BTreeMap<SequenceNumber, usize>>>,
}

impl Snapshot {
    /// The snapshot's sequence number.
    pub fn sequence(&self) -> SequenceNumber {
        self.seq
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        let mut reg = self.registry.lock();
        if let Some(n) = reg.get_mut(&self.seq) {
            *n -= 1;
            if *n == 0 {
                reg.remove(&self.seq);
            }
        }
    }
}

impl Db {
    /// What opening found: created or recovered, WALs replayed, damage dropped.
    pub fn recovery_report(&self) -> &RecoveryReport {
        &self.inner.report
    }

    /// The last published sequence number.
    pub fn latest_sequence(&self) -> SequenceNumber {
        self.inner.last_sequence.load()
    }

    /// Takes a snapshot of the published state.
    ///
    /// # Errors
    /// [`Error::Closed`] after close.
    pub fn snapshot(&self) -> Result<Snapshot> {
        self.inner.check_open()?;
        let mut reg = self.inner.snapshots.lock();
        // Loaded under the registry lock so a future compaction that reads the registry sees
        // every snapshot it could have to respect.
        let seq = self.latest_sequence();
        *reg.entry(seq).or_insert(0) += 1;
        Ok(Snapshot {
            seq,
            registry: Arc::clone(&self.inner.snapshots),
        })
    }

    /// Sequence numbers of the live snapshots, oldest first (for tests and compaction).
    pub fn live_snapshots(&self) -> Vec<SequenceNumber> {
        self.inner.snapshots.lock().keys().copied().collect()
    }

    /// The error of the last failed background flush (until a flush succeeds) or, failing that,
    /// of the last failed compaction (until a compaction succeeds).
    pub fn background_error(&self) -> Option<String> {
        let st = self.inner.state.lock();
        st.flush_error
            .clone()
            .or_else(|| st.compaction_error.clone())
    }

    /// How many background flushes and compactions failed since open. Failed jobs are retried,
    /// so a count that grows while writes succeed means the file system fails intermittently.
    pub fn background_error_count(&self) -> u64 {
        self.inner.state.lock().background_failures
    }

    /// Number of immutable memtables of every column family waiting for a flush.
    pub fn num_immutable_memtables(&self) -> usize {
        let st = self.inner.state.lock();
        st.cfs.values().map(|c| c.imms.len()).sum()
    }

    /// Number of L0 files in the current version of the default column family.
    pub fn num_l0_files(&self) -> usize {
        self.num_l0_files_cf(&self.default_column_family())
    }

    /// Number of L0 files in the current version of `cf`.
    pub fn num_l0_files_cf(&self, cf: &ColumnFamily) -> usize {
        cf.data.read_view().version.num_files(0)
    }

    /// Closes the database: stops the flush thread (waiting for a running flush) and releases
    /// the directory lock. Memtable contents stay in the WALs (already handed to the OS), so
    /// nothing acknowledged is lost. Every later call returns [`Error::Closed`].
    ///
    /// # Errors
    /// [`Error::Closed`] if already closed; the error of the final WAL flush, if it fails.
    pub fn close(&self) -> Result<()> {
        let result = {
            let mut st = self.inner.state.lock();
            if self.inner.closed.swap(true, Ordering::AcqRel) {
                return Err(Error::Closed);
            }
            // The leader holds the WAL while it writes with the mutex released.
            while st.leader_active {
                self.inner.cond.wait(&mut st);
            }
            // No call can begin from here on, so this is every call close will wait for below.
            if st.calls_in_flight > 0 {
                self.inner.info_log.info(&format!(
                    "close: waiting for {} call(s) running on other threads (flush, \
                     compact_range, checkpoint, column family or option change)",
                    st.calls_in_flight
                ));
            }
            // Pipelined groups whose records are written may still be inserting: their
            // writers get their results before close goes on (the WAL already holds them).
            let allocated = st.versions.last_sequence();
            MutexGuard::unlocked(&mut st, || {
                self.inner.publish_queue.wait_through(allocated);
            });
            while st.leader_active {
                self.inner.cond.wait(&mut st);
            }
            let next_sequence = st.versions.last_sequence() + 1;
            let result = match (st.wal.take(), &st.poisoned) {
                (Some(mut wal), None) => switch::seal_wal(&mut wal, next_sequence),
                _ => Ok(()),
            };
            self.inner.cond.notify_all();
            self.inner.bg_cond.notify_all();
            result
        };
        for handle in std::mem::take(&mut *self.workers.lock()) {
            // A panicking background thread is a bug; it already left the state consistent.
            let _ = handle.join();
        }
        // Files that readers kept alive past the last install are obsolete once those readers
        // are gone; the handle's own views are dropped with it, so only live files stay.
        {
            let mut st = self.inner.state.lock();
            // A flush, compact_range, checkpoint or option change another thread started
            // before close may still be writing a table or installing an edit with the mutex
            // released. It ends (or fails with Closed at its next check) before the directory
            // is released: otherwise a database reopened here could see its files deleted by
            // the closed one.
            while st.calls_in_flight > 0 {
                self.inner.cond.wait(&mut st);
            }
            if !st.versions.is_poisoned() {
                // WALs kept for reuse are deleted with the other obsolete files.
                st.recycled_wals.clear();
                self.inner.delete_obsolete_files(&mut st);
            }
        }
        self.inner.state.lock()._lock = None;
        result
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        // Nothing to report from drop; an explicit close returns the error.
        let _ = self.close();
    }
}

/// A user call in flight (see [`DbInner::begin_call`]); ends when dropped.
#[must_use = "the call ends when the guard drops"]
struct CallGuard<'a> {
    inner: &'a DbInner,
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        let mut st = self.inner.state.lock();
        st.calls_in_flight -= 1;
        if st.calls_in_flight == 0 {
            self.inner.cond.notify_all();
        }
    }
}

/// Runs a background job's work (a flush or a compaction), turning a panic into
/// [`Error::Poisoned`]: user code runs inside these jobs (comparators, merge operators, compaction
/// filters), and a panic there, or a comparator that breaks its contract (table keys then arrive
/// out of order), must stop the database with a reason instead of killing the job's thread and
/// leaving writers waiting for a flush that never comes. Files the job created are left for the
/// next open's cleanup.
pub(super) fn catch_job_panic<T>(job: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into());
        Err(Error::Poisoned(format!("background {job} panicked: {why}")))
    })
}

impl DbInner {
    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed);
        }
        Ok(())
    }

    /// Registers a user call that may write or delete files with the mutex released (flush,
    /// compact_range, checkpoint, column family and option changes), so close waits for it.
    /// Take it before locking the state: the guard locks it when dropped.
    ///
    /// # Errors
    /// [`Error::Closed`] once close has begun.
    fn begin_call(&self) -> Result<CallGuard<'_>> {
        let mut st = self.state.lock();
        self.check_open()?;
        st.calls_in_flight += 1;
        Ok(CallGuard { inner: self })
    }

    /// What every read starts from: the options checked, the database open, the family not
    /// dropped, the snapshot sequence (the caller's, or the latest published one) and the
    /// family's current read view.
    fn begin_read(
        &self,
        opts: &ReadOptions,
        cf: &CfData,
    ) -> Result<(SequenceNumber, Arc<ReadView>)> {
        opts.validate(&cf.options.comparator)?;
        self.check_open()?;
        cf.check_live()?;
        if self.read_only {
            // No writer inserts here; a secondary's catch-up publishes its sequence before it
            // swaps the views, so the view is taken first (secondary.rs, contract 2).
            let view = cf.read_view();
            let published = self.last_sequence.load();
            return Ok((opts.snapshot.map_or(published, |s| s.min(published)), view));
        }
        // A caller's sequence number above the published one is clamped to it: entries above
        // it may belong to a batch a leader is still inserting (invariant 1).
        let published = self.last_sequence.load();
        let snapshot = opts.snapshot.map_or(published, |s| s.min(published));
        Ok((snapshot, cf.read_view()))
    }

    /// Rebuilds column family `id`'s read view from the state; called after every memtable
    /// switch or flush of that family.
    fn publish_view(&self, st: &DbState, id: u32) {
        let cf = st.cf(id);
        let version = st
            .versions
            .current(id)
            .expect("a live column family has a version");
        let pin = cf.data.table_cache.capacity().is_none();
        let view = ReadView {
            mem: Arc::clone(&cf.mem),
            imms: cf.imms.iter().rev().map(|i| Arc::clone(&i.mem)).collect(),
            tables: view_tables::ViewTables::new(&version, pin),
            version,
            table_tombstones: OnceLock::new(),
        };
        *cf.data.view.lock() = Arc::new(view);
    }
}
