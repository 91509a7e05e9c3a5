//! Opening a database: the directory lock, creating or recovering the version set, replaying
//! the WALs into a memtable, flushing what was replayed to L0 and starting a new WAL.
//!
//! Runs on the opening thread before the [`Db`] exists, so nothing else can touch the state.
//!
//! Invariants:
//! 1. Every WAL numbered >= `min_log_number_to_keep()` is replayed, in number order, with the
//!    configured recovery mode; damage the mode tolerates is listed in the [`RecoveryReport`].
//! 2. The replayed data is written to an L0 table and the edit adding it records the new WAL as
//!    the log number before any old WAL is deleted, so a crash during open loses nothing.
//! 3. Every file number seen in the directory is marked used, so a WAL created just before a
//!    crash (never recorded in the MANIFEST) is never reused.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::{Db, DbInner, DbState, DroppedWalBytes, ReadView, RecoveryReport};
use crate::batch::WriteBatch;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RealFs};
use crate::memtable::{MemTable, MemTableOptions, DEFAULT_BLOCK_SIZE};
use crate::merge::MergeOperator;
use crate::options::Options;
use crate::table_cache::TableCache;
use crate::version::filenames::{log_file_name, CURRENT_FILE_NAME, LOCK_FILE_NAME};
use crate::version::{parse_file_name, FileType, VersionEdit, VersionSet, VersionSetOptions};
use crate::wal::{DamageAction, LogEvent, LogReader, LogWriter, WalRecoveryMode};

impl Db {
    /// Opens (or, with `create_if_missing`, creates) the database in directory `path` on the
    /// operating system's file system.
    ///
    /// # Errors
    /// As [`Db::open_with_fs`].
    pub fn open(path: impl AsRef<Path>, options: Options) -> Result<Db> {
        Db::open_with_fs(RealFs::shared(), path, options)
    }

    /// Opens the database in `path` on `fs` (a `MemFs`, `FaultFs` or `CrashFs` in tests).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for invalid options, a missing database without
    /// `create_if_missing`, or an existing one with `error_if_exists`; [`Error::Busy`] when
    /// another handle holds the directory; [`Error::Corruption`] for damage the recovery mode
    /// does not tolerate; I/O errors.
    pub fn open_with_fs(
        fs: Arc<dyn FileSystem>,
        path: impl AsRef<Path>,
        options: Options,
    ) -> Result<Db> {
        Db::open_with_merge_operator(fs, path, options, None)
    }

    /// As [`Db::open_with_fs`], with a merge operator that reads use to fold merge operands.
    /// Without one, reading a key that has merge operands is an `InvalidArgument` error.
    ///
    /// # Errors
    /// As [`Db::open_with_fs`].
    pub fn open_with_merge_operator(
        fs: Arc<dyn FileSystem>,
        path: impl AsRef<Path>,
        options: Options,
        merge_operator: Option<Arc<dyn MergeOperator>>,
    ) -> Result<Db> {
        options.validate()?;
        let dir = path.as_ref().to_path_buf();
        let inner = open_inner(fs, &dir, options, merge_operator)?;
        let inner = Arc::new(inner);
        let flusher = super::flush::spawn_flusher(Arc::clone(&inner))?;
        Ok(Db {
            inner,
            flusher: Mutex::new(Some(flusher)),
        })
    }
}

fn open_inner(
    fs: Arc<dyn FileSystem>,
    dir: &Path,
    options: Options,
    merge_operator: Option<Arc<dyn MergeOperator>>,
) -> Result<DbInner> {
    let exists = fs.exists(&dir.join(CURRENT_FILE_NAME))?;
    if !exists && !options.db.create_if_missing {
        return Err(Error::InvalidArgument(format!(
            "{} holds no database and create_if_missing is false",
            dir.display()
        )));
    }
    if exists && options.db.error_if_exists {
        return Err(Error::InvalidArgument(format!(
            "{} already holds a database and error_if_exists is true",
            dir.display()
        )));
    }
    fs.create_dir_all(dir)?;
    let lock = fs.lock(&dir.join(LOCK_FILE_NAME))?;
    let vs_opts = VersionSetOptions {
        num_levels: options.cf.num_levels as usize,
        max_manifest_file_size: options.db.max_manifest_file_size,
        ..VersionSetOptions::default()
    };
    let mut report = RecoveryReport::default();
    let mut versions = if exists {
        VersionSet::recover(Arc::clone(&fs), dir, vs_opts)?.0
    } else {
        report.created = true;
        VersionSet::create(Arc::clone(&fs), dir, vs_opts)?
    };
    let table_cache = TableCache::new(
        Arc::clone(&fs),
        dir,
        options.cf.table_options_for_reads(),
        options.db.table_cache_capacity(),
    );
    let mem = replay_logs(&*fs, dir, &options, &mut versions, &mut report)?;
    report.last_sequence = versions.last_sequence();
    let wal_number = versions.new_file_number();
    let wal = create_wal(&*fs, dir, wal_number, &options)?;
    let inner = DbInner {
        view: Mutex::new(Arc::new(ReadView {
            mem: new_memtable(&options),
            imms: Vec::new(),
            version: versions.current(0).expect("default column family"),
            table_tombstones: std::sync::OnceLock::new(),
        })),
        last_sequence: AtomicU64::new(versions.last_sequence()),
        closed: AtomicBool::new(false),
        state: Mutex::new(DbState {
            versions,
            wal: Some(wal),
            wal_number,
            mem: new_memtable(&options),
            imms: VecDeque::new(),
            poisoned: None,
            flushing: false,
            flush_error: None,
            writers: VecDeque::new(),
            results: HashMap::new(),
            next_writer_id: 0,
            leader_active: false,
            _lock: Some(lock),
        }),
        cond: Condvar::new(),
        snapshots: Arc::new(Mutex::new(BTreeMap::new())),
        range_dels: Mutex::new(HashMap::new()),
        fs,
        dir: dir.to_path_buf(),
        options,
        merge_operator,
        table_cache,
        report,
    };
    persist_replayed(&inner, &mem, wal_number)?;
    Ok(inner)
}

/// A fresh memtable whose arena blocks are an eighth of `write_buffer_size` (as RocksDB sizes
/// them), so that a small write buffer is not filled by its first block.
pub(super) fn new_memtable(options: &Options) -> Arc<MemTable> {
    let block = (options.cf.write_buffer_size / 8).clamp(4096, DEFAULT_BLOCK_SIZE);
    Arc::new(MemTable::new(MemTableOptions {
        arena_block_size: block,
        ..MemTableOptions::default()
    }))
}

/// Creates WAL `number`, and syncs the directory so the name survives a power cut before the
/// first synced write into it.
pub(super) fn create_wal(
    fs: &dyn FileSystem,
    dir: &Path,
    number: u64,
    options: &Options,
) -> Result<LogWriter> {
    let file = fs.create(&dir.join(log_file_name(number)))?;
    fs.sync_dir(dir)?;
    Ok(LogWriter::new(file, number, options.db.wal_bytes_per_sync))
}

/// Writes the replayed memtable (if any) to L0 and records the new WAL as the log number, then
/// deletes the replayed WALs (invariant 2).
fn persist_replayed(inner: &DbInner, mem: &Arc<MemTable>, wal_number: u64) -> Result<()> {
    let mut st = inner.state.lock();
    let pending = st.versions.new_pending_output();
    let meta = if mem.is_empty() {
        None
    } else {
        inner.write_l0_table(mem, pending.number())?
    };
    let mut edit = VersionEdit {
        log_number: Some(wal_number),
        ..VersionEdit::default()
    };
    if let Some(meta) = meta {
        edit.add_file(0, meta);
    }
    st.versions.log_and_apply(vec![(0, edit)])?;
    drop(pending);
    inner.publish_view(&st);
    inner.delete_obsolete_files(&st);
    Ok(())
}

/// Replays every WAL the version set still needs into one memtable (invariant 1) and raises
/// the last sequence number past every replayed batch.
fn replay_logs(
    fs: &dyn FileSystem,
    dir: &Path,
    options: &Options,
    versions: &mut VersionSet,
    report: &mut RecoveryReport,
) -> Result<Arc<MemTable>> {
    let mut logs = Vec::new();
    for name in fs.list(dir)? {
        if let Some((kind, number)) = parse_file_name(&name) {
            if matches!(kind, FileType::Log | FileType::Table | FileType::Manifest) {
                versions.mark_file_number_used(number);
            }
            if kind == FileType::Log && number >= versions.min_log_number_to_keep() {
                logs.push(number);
            }
        }
    }
    logs.sort_unstable();
    let mem = new_memtable(options);
    let mode = options.db.wal_recovery_mode;
    let mut last = versions.last_sequence();
    let mut stop_all = false;
    for number in logs {
        if stop_all {
            report.logs_skipped.push(number);
            continue;
        }
        report.logs_replayed.push(number);
        let path = dir.join(log_file_name(number));
        let mut reader = LogReader::open(fs, &path, number)?;
        stop_all = replay_one(&mut reader, mode, &mem, &mut last, report)?;
    }
    versions.set_last_sequence(last);
    Ok(mem)
}

/// Replays one WAL. Returns true when point-in-time recovery stopped at damage, so later logs
/// must be ignored to keep the result a prefix of the history.
fn replay_one(
    reader: &mut LogReader,
    mode: WalRecoveryMode,
    mem: &MemTable,
    last: &mut u64,
    report: &mut RecoveryReport,
) -> Result<bool> {
    while let Some(event) = reader.next_event()? {
        match event {
            LogEvent::Record(rec) => {
                let batch = WriteBatch::from_bytes(rec.data).map_err(|e| {
                    e.in_file(reader.path())
                        .context(format!("WAL record at offset {}", rec.offset))
                })?;
                apply_replayed(&batch, mem, last)?;
                report.batches_replayed += 1;
            }
            LogEvent::Damage(damage) => {
                let action = mode.on_damage(&damage);
                if action == DamageAction::Fail {
                    return Err(damage.to_error());
                }
                report.dropped.push(DroppedWalBytes {
                    file: damage.file.clone(),
                    kind: damage.kind,
                    offset: damage.offset,
                    bytes: damage.bytes_dropped,
                });
                if action == DamageAction::StopHere {
                    return Ok(mode == WalRecoveryMode::PointInTimeRecovery);
                }
            }
        }
    }
    Ok(false)
}

/// Inserts one replayed batch and raises `last` past it. No batch is skipped by its sequence
/// number: the MANIFEST's last sequence may already count writes that live only in a WAL.
fn apply_replayed(batch: &WriteBatch, mem: &MemTable, last: &mut u64) -> Result<()> {
    if batch.count() == 0 {
        return Ok(());
    }
    crate::memtable::insert_batch(batch, |_| Ok(Some(mem)))?;
    *last = (*last).max(batch.sequence() + u64::from(batch.count()) - 1);
    Ok(())
}
