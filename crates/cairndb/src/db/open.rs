//! Opening a database: the directory lock, creating or recovering the version set, resolving
//! the column families, replaying the WALs into their memtables, flushing what was replayed to
//! L0 and starting a new WAL.
//!
//! Runs on the opening thread before the [`Db`] exists, so nothing else can touch the state.
//!
//! Invariants:
//! 1. Every WAL numbered >= `min_log_number_to_keep()` is replayed, in number order, with the
//!    configured recovery mode; damage the mode tolerates is listed in the [`RecoveryReport`].
//!    A record for a family is applied only from WALs at or above that family's log number
//!    (older ones were flushed), and records of dropped families are skipped.
//! 2. A replayed memtable that fills is written to an L0 table during replay; every table
//!    written by the open and the new WAL as every family's log number go into one atomic
//!    MANIFEST group before any old WAL is deleted, so a crash during open loses nothing.
//! 3. Every file number seen in the directory is marked used, so a WAL created just before a
//!    crash (never recorded in the MANIFEST) is never reused.
//! 4. Nothing is written before the arguments are checked: invalid options, duplicate family
//!    names, or a missing family without `create_missing_column_families` fail with the
//!    directory unchanged (except for a database created by this open). With
//!    `paranoid_checks`, so does a live table that is missing or not of its recorded size.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::column_family::{new_cf_data, ColumnFamilyDescriptor};
use super::flush::build_l0_table;
use super::write_control::WriteController;
use super::writer;
use super::{CfState, CompactionStats, Db, DbInner, DbState, DroppedWalBytes, Imm, RecoveryReport};
use crate::batch::{MarkerKind, WriteBatch};
use crate::compaction::filter_bits::filter_bits_for;
use crate::compaction::plan::RunningCompactions;
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RealFs};
use crate::memtable::{MemTable, MemTableOptions, DEFAULT_BLOCK_SIZE};
use crate::options::{CfOptions, Options};
use crate::version::filenames::{
    log_file_name, table_file_name, temp_file_name, CURRENT_FILE_NAME, LOCK_FILE_NAME,
};
use crate::version::{
    parse_file_name, FileMetaData, FileType, PendingOutput, VersionEdit, VersionSet,
    VersionSetOptions, DEFAULT_CF_ID, DEFAULT_CF_NAME,
};
use crate::wal::{DamageAction, DamageKind, LogEvent, LogReader, LogWriter, WalRecoveryMode};

impl Db {
    /// Opens (or, with `create_if_missing`, creates) the database in directory `path` on the
    /// operating system's file system. Column families other than the default are opened with
    /// `options.cf`; use [`Db::open_cf`] to give each its own options.
    ///
    /// # Errors
    /// As [`Db::open_cf_with_fs`].
    pub fn open(path: impl AsRef<Path>, options: Options) -> Result<Db> {
        Db::open_cf_with_fs(RealFs::shared(), path, options, Vec::new())
    }

    /// As [`Db::open`] on `fs` (a `MemFs`, `FaultFs` or `CrashFs` in tests).
    ///
    /// # Errors
    /// As [`Db::open_cf_with_fs`].
    pub fn open_with_fs(
        fs: Arc<dyn FileSystem>,
        path: impl AsRef<Path>,
        options: Options,
    ) -> Result<Db> {
        Db::open_cf_with_fs(fs, path, options, Vec::new())
    }

    /// Opens the database with options for the named column families.
    ///
    /// # Errors
    /// As [`Db::open_cf_with_fs`].
    pub fn open_cf(
        path: impl AsRef<Path>,
        options: Options,
        families: Vec<ColumnFamilyDescriptor>,
    ) -> Result<Db> {
        Db::open_cf_with_fs(RealFs::shared(), path, options, families)
    }

    /// Opens the database in `path` on `fs`. `families` gives options for column families by
    /// name (a descriptor named `default` overrides `options.cf` for the default family); a
    /// named family the database lacks is created when `create_missing_column_families` is set.
    /// Families the database has but `families` does not name are opened with `options.cf`
    /// (RocksDB refuses to open then; CairnDB opens them, so a tool that knows no family
    /// names can still open any database).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for invalid options, a family named twice, a missing family
    /// without `create_missing_column_families`, a missing database without
    /// `create_if_missing`, or an existing one with `error_if_exists`; [`Error::lock_held`] (an I/O
    /// error, as RocksDB's) when another handle holds the directory; [`Error::Corruption`] for damage the recovery mode
    /// does not tolerate; I/O errors.
    pub fn open_cf_with_fs(
        fs: Arc<dyn FileSystem>,
        path: impl AsRef<Path>,
        options: Options,
        families: Vec<ColumnFamilyDescriptor>,
    ) -> Result<Db> {
        Db::open_in_mode(fs, path.as_ref(), options, families, OpenMode::ReadWrite)
    }

    /// Every open: read-write, or read-only (`read_only.rs`).
    pub(super) fn open_in_mode(
        fs: Arc<dyn FileSystem>,
        path: &Path,
        options: Options,
        families: Vec<ColumnFamilyDescriptor>,
        mode: OpenMode,
    ) -> Result<Db> {
        options.validate()?;
        check_descriptors(&families)?;
        // Read-only handles compact nothing, so they leave the limiter to a writer.
        let controlled = options
            .db
            .rate_limiter
            .clone()
            .filter(|l| l.is_backlog_controlled() && mode == OpenMode::ReadWrite);
        if let Some(limiter) = &controlled {
            if !limiter.claim_backlog_control() {
                return Err(Error::InvalidArgument(
                    "rate_limiter: a backlog-controlled rate limiter serves one open database \
                     at a time, and another database holds this one"
                        .into(),
                ));
            }
        }
        let dir = path.to_path_buf();
        let opened = if mode == OpenMode::ReadWrite {
            open_inner(fs, &dir, options, families, mode)
        } else {
            super::read_only::with_retries(|| {
                open_inner(
                    Arc::clone(&fs),
                    &dir,
                    options.clone(),
                    families.clone(),
                    mode.clone(),
                )
            })
        };
        let inner = match opened {
            Ok(inner) => Arc::new(inner),
            Err(e) => {
                if let Some(limiter) = &controlled {
                    limiter.release_backlog_control();
                }
                return Err(e);
            }
        };
        let mut workers = Vec::new();
        let spawned = (|| {
            if inner.read_only {
                // Nothing to flush, compact or log.
                return Ok(());
            }
            workers.push(super::flush::spawn_flusher(Arc::clone(&inner))?);
            workers.extend(super::compact::spawn_compactors(&inner)?);
            workers.extend(super::info_log::spawn_stats_dumper(&inner)?);
            workers.extend(super::backlog_control::spawn_backlog_controller(&inner)?);
            Ok::<_, Error>(())
        })();
        let db = Db {
            inner,
            workers: Mutex::new(workers),
        };
        if let Err(e) = spawned {
            // Close stops and joins the threads that did start, and releases the directory.
            drop(db);
            // The controller thread, which gives the limiter back at close, did not start (it
            // is the last one).
            if let Some(limiter) = &controlled {
                limiter.release_backlog_control();
            }
            return Err(e);
        }
        Ok(db)
    }
}

/// How a database is opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum OpenMode {
    ReadWrite,
    /// `Db::open_for_read_only`: fail when a live WAL exists if asked.
    ReadOnly {
        error_if_wal_file_exists: bool,
    },
    /// `Db::open_as_secondary`: read-only, with the info log in `log_dir`, and able to catch
    /// up with the primary (`secondary.rs`).
    Secondary {
        log_dir: std::path::PathBuf,
    },
}

/// Valid options and unique names (invariant 4).
fn check_descriptors(families: &[ColumnFamilyDescriptor]) -> Result<()> {
    for (i, d) in families.iter().enumerate() {
        d.options
            .validate()
            .map_err(|e| e.context(format!("options of column family {:?}", d.name)))?;
        if d.name.is_empty() {
            return Err(Error::InvalidArgument(
                "a column family name must not be empty".into(),
            ));
        }
        if families[..i].iter().any(|o| o.name == d.name) {
            return Err(Error::InvalidArgument(format!(
                "column family {:?} named twice",
                d.name
            )));
        }
    }
    Ok(())
}

/// The options of every family, by name: the caller's descriptors, `options.cf` for the rest.
pub(super) struct FamilyOptions {
    default: CfOptions,
    named: HashMap<String, CfOptions>,
    /// The caller's names other than `default`, in the caller's order (missing families are
    /// created in it, so their ids follow it).
    order: Vec<String>,
}

impl FamilyOptions {
    pub(super) fn new(options: &Options, families: Vec<ColumnFamilyDescriptor>) -> FamilyOptions {
        let order = families
            .iter()
            .filter(|d| d.name != DEFAULT_CF_NAME)
            .map(|d| d.name.clone())
            .collect();
        let mut named: HashMap<String, CfOptions> =
            families.into_iter().map(|d| (d.name, d.options)).collect();
        let default = named
            .remove(DEFAULT_CF_NAME)
            .unwrap_or_else(|| options.cf.clone());
        FamilyOptions {
            default,
            named,
            order,
        }
    }

    /// The comparator of every family given by name, the default family's included.
    fn comparators(&self) -> BTreeMap<String, KeyOrder> {
        let named = self
            .named
            .iter()
            .map(|(name, o)| (name.clone(), o.comparator.clone()));
        std::iter::once((DEFAULT_CF_NAME.to_string(), self.default.comparator.clone()))
            .chain(named)
            .collect()
    }

    fn for_family(&self, name: &str, fallback: &CfOptions) -> CfOptions {
        if name == DEFAULT_CF_NAME {
            return self.default.clone();
        }
        self.named
            .get(name)
            .cloned()
            .unwrap_or_else(|| fallback.clone())
    }
}

fn open_inner(
    fs: Arc<dyn FileSystem>,
    dir: &Path,
    options: Options,
    families: Vec<ColumnFamilyDescriptor>,
    mode: OpenMode,
) -> Result<DbInner> {
    let read_only = mode != OpenMode::ReadWrite;
    let secondary = matches!(mode, OpenMode::Secondary { .. });
    let exists = fs.exists(&dir.join(CURRENT_FILE_NAME))?;
    if !exists && read_only {
        return Err(Error::InvalidArgument(format!(
            "{} holds no database, and a read-only open creates nothing",
            dir.display()
        )));
    }
    if !exists && !options.db.create_if_missing {
        return Err(Error::InvalidArgument(format!(
            "{} holds no database and create_if_missing is false",
            dir.display()
        )));
    }
    if exists && options.db.error_if_exists && !read_only {
        return Err(Error::InvalidArgument(format!(
            "{} already holds a database and error_if_exists is true",
            dir.display()
        )));
    }
    let fam = FamilyOptions::new(&options, families);
    if !exists && !fam.named.is_empty() && !options.db.create_missing_column_families {
        return Err(missing_families(fam.order.iter()));
    }
    let lock = if read_only {
        // Readers take no lock: a read-only handle may open a database a writer holds.
        None
    } else {
        fs.create_dir_all(dir)?;
        Some(fs.lock(&dir.join(LOCK_FILE_NAME))?)
    };
    let vs_opts = version_set_options(&options, &fam);
    let mut report = RecoveryReport::default();
    let mut versions = if exists {
        let (versions, vs_report) = VersionSet::recover(Arc::clone(&fs), dir, vs_opts)?;
        // A primary may be appending the record a secondary finds torn.
        if let (Some(damage), false) = (&vs_report.torn_tail, secondary) {
            check_dropped_manifest_tail(&*fs, dir, &versions, damage)?;
        }
        if options.db.paranoid_checks {
            check_live_files(&*fs, dir, &versions)?;
        }
        versions
    } else {
        report.created = true;
        VersionSet::create(Arc::clone(&fs), dir, vs_opts)?
    };
    let missing: Vec<String> = fam
        .order
        .iter()
        .filter(|n| versions.cf_id(n).is_none())
        .cloned()
        .collect();
    if !missing.is_empty() && (read_only || !options.db.create_missing_column_families) {
        return Err(missing_families(missing.iter()));
    }
    if mode
        == (OpenMode::ReadOnly {
            error_if_wal_file_exists: true,
        })
    {
        super::read_only::refuse_live_wals(&*fs, dir, &versions)?;
    }
    let mut replayed = replay_logs(
        &fs,
        dir,
        &options,
        &fam,
        &mut versions,
        &mut report,
        read_only,
    )?;
    report.last_sequence = versions.last_sequence();
    if read_only {
        super::read_only::check_replayed_prefix(dir, &versions, &report)?;
    }
    let wal_number = versions.new_file_number();
    let wal = if read_only {
        None
    } else {
        let wal = create_wal(&*fs, dir, wal_number, &options)?;
        fs.sync_dir(dir)?;
        Some(wal)
    };
    for name in &missing {
        let order = fam.for_family(name, &options.cf).comparator;
        versions.create_cf(name, wal_number, order)?;
    }
    let mut cfs = BTreeMap::new();
    for info in versions.column_families() {
        let cf_options = fam.for_family(&info.name, &options.cf);
        let data = new_cf_data(
            &fs,
            dir,
            &options.db,
            &versions,
            info.id,
            &info.name,
            cf_options,
        );
        let (mem, imms) = if read_only {
            // What replay read stays in memory: there is nowhere to flush it.
            replayed.take_memtables(info.id, versions.last_sequence())
        } else {
            (Arc::clone(&data.read_view().mem), VecDeque::new())
        };
        let state = CfState {
            options: data.current_options(),
            data: Arc::new(data),
            mem,
            imms,
            running: RunningCompactions::new(),
            stats: CompactionStats::default(),
            last_allocated: 0,
        };
        cfs.insert(info.id, state);
    }
    let default_cf = Arc::clone(&cfs.get(&DEFAULT_CF_ID).expect("default family").data);
    let info_log = match &mode {
        OpenMode::ReadWrite => super::info_log::InfoLog::open(Arc::clone(&fs), dir, &options.db),
        OpenMode::ReadOnly { .. } => super::info_log::InfoLog::off(Arc::clone(&fs), dir),
        OpenMode::Secondary { log_dir } => {
            fs.create_dir_all(log_dir)?;
            super::info_log::InfoLog::open(Arc::clone(&fs), log_dir, &options.db)
        }
    };
    let statistics = options.db.statistics.clone();
    let backlog = options
        .db
        .rate_limiter
        .as_ref()
        .filter(|l| l.is_backlog_controlled() && !read_only)
        .map(|l| {
            Mutex::new(super::backlog_control::BacklogController::new(
                l.bytes_per_second(),
            ))
        });
    let inner = DbInner {
        db_options: Mutex::new(Arc::new(options.db.clone())),
        options_change: Mutex::new(()),
        last_sequence: super::sequence::PublishedSequence::new(versions.last_sequence()),
        closed: AtomicBool::new(false),
        state: Mutex::new(DbState {
            versions,
            wal,
            wal_number,
            wal_name_durable: wal_number,
            recycled_wals: VecDeque::new(),
            first_wal: wal_number,
            unsynced_wals: Vec::new(),
            syncing_retired_wals: false,
            leader_syncing_wals: false,
            calls_in_flight: 0,
            retired_wal_bytes: BTreeMap::new(),
            wal_limit_switched: 0,
            cfs,
            poisoned: None,
            flushing: false,
            flush_error: None,
            compaction_error: None,
            background_failures: 0,
            memtable_waits: (std::time::Duration::ZERO, 0),
            write_control: WriteController::new(&options.db),
            writers: VecDeque::new(),
            pins: super::two_phase::Pins::default(),
            leader_active: false,
            _lock: lock,
        }),
        cond: Condvar::new(),
        bg_cond: Condvar::new(),
        default_cf,
        snapshots: Arc::new(Mutex::new(BTreeMap::new())),
        range_dels: Mutex::new(HashMap::new()),
        fs,
        dir: dir.to_path_buf(),
        wait_policy: writer::WaitPolicy::from_options(&options.db),
        publish_queue: Default::default(),
        options,
        report,
        recovered_prepared: Mutex::new(Vec::new()),
        counters: super::internal_stats::DbCounters::new(statistics),
        deletions_paused: std::sync::atomic::AtomicUsize::new(0),
        user_deletion_pauses: std::sync::atomic::AtomicUsize::new(0),
        info_log,
        follower_yield: writer::YieldScore::default(),
        leader_yield: writer::YieldScore::default(),
        backlog,
        read_only,
        secondary,
    };
    if read_only {
        let st = inner.state.lock();
        for &id in st.cfs.keys() {
            inner.publish_view(&st, id);
        }
        drop(st);
        return Ok(inner);
    }
    persist_replayed(&inner, replayed, wal_number)?;
    super::options_file::write_options_file(&inner)?;
    inner.log_open();
    Ok(inner)
}

/// The version set's options for a database opened with `options` and the families of `fam`.
pub(super) fn version_set_options(options: &Options, fam: &FamilyOptions) -> VersionSetOptions {
    VersionSetOptions {
        num_levels: options.cf.num_levels as usize,
        max_manifest_file_size: options.db.max_manifest_file_size,
        comparator: options.cf.comparator.clone(),
        cf_comparators: fam.comparators(),
        ..VersionSetOptions::default()
    }
}

/// A MANIFEST whose last record is unreadable is taken as torn by a crash before that record was
/// synced, hence never acknowledged. That is only possible while the oldest WAL the recovered
/// state still needs exists: WALs are deleted only after the edit moving past them is synced. If
/// that WAL is gone while a newer one exists, the dropped record was durable and the damage is
/// corruption (a flipped bit in the last record), which must not silently lose its files.
fn check_dropped_manifest_tail(
    fs: &dyn FileSystem,
    dir: &Path,
    versions: &VersionSet,
    damage: &crate::wal::Damage,
) -> Result<()> {
    let Some(need) = first_needed_wal_gone(versions, &wal_numbers(fs, dir)?) else {
        return Ok(());
    };
    Err(damage.to_error().context(format!(
        "the MANIFEST's last record is damaged, yet WAL {need} that the state before it needs \
         was deleted, so the record had been synced"
    )))
}

/// The numbers of the WAL files in `dir`.
pub(super) fn wal_numbers(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<u64>> {
    Ok(fs
        .list(dir)?
        .iter()
        .filter_map(|name| parse_file_name(name))
        .filter(|&(kind, _)| kind == FileType::Log)
        .map(|(_, number)| number)
        .collect())
}

/// The first WAL `versions` needs, when it is missing from `logs` while a newer one is there:
/// WALs are deleted only once the state moved past them, so such a gap means the state read
/// is older than the directory (a MANIFEST record lost, or a writer that moved on meanwhile).
pub(super) fn first_needed_wal_gone(versions: &VersionSet, logs: &[u64]) -> Option<u64> {
    let need = versions.min_log_number_to_keep();
    (need != 0 && !logs.contains(&need) && logs.iter().any(|&n| n > need)).then_some(need)
}

/// `paranoid_checks` at open (RocksDB's `CheckConsistency`): every table file the recovered
/// version set names exists with the size the MANIFEST recorded. A missing or resized table is
/// [`Error::Corruption`] naming it, before anything is written (invariant 4). Without the
/// check, open proceeds and the damage surfaces when the table is read.
fn check_live_files(fs: &dyn FileSystem, dir: &Path, versions: &VersionSet) -> Result<()> {
    for cf in versions.column_families() {
        let Some(version) = versions.current(cf.id) else {
            continue;
        };
        for (level, meta) in version.all_files() {
            let path = dir.join(table_file_name(meta.number));
            let problem = if !fs.exists(&path)? {
                format!("table file of level {level} named by the MANIFEST is missing")
            } else {
                let size = fs.size(&path)?;
                if size == meta.size {
                    continue;
                }
                format!(
                    "table file of level {level} is {size} bytes; the MANIFEST recorded {}",
                    meta.size
                )
            };
            return Err(Error::corruption(path, 0, problem));
        }
    }
    Ok(())
}

fn missing_families<'a>(names: impl Iterator<Item = &'a String>) -> Error {
    let names: Vec<&String> = names.collect();
    Error::InvalidArgument(format!(
        "column families {names:?} do not exist and create_missing_column_families is false"
    ))
}

/// A fresh memtable whose arena blocks are an eighth of `write_buffer_size` (as RocksDB sizes
/// them), so that a small write buffer is not filled by its first block.
/// With `memtable_huge_page_size`, a memtable of at least 8 huge pages gets blocks of one huge
/// page each, on huge pages.
pub(super) fn new_memtable(options: &CfOptions) -> Arc<MemTable> {
    let eighth = options.write_buffer_size / 8;
    let huge = options.memtable_huge_page_size;
    let (block, huge) = if huge > 0 && huge.is_power_of_two() && eighth >= huge {
        (huge, huge)
    } else {
        (eighth.clamp(4096, DEFAULT_BLOCK_SIZE), 0)
    };
    let mem = MemTable::new(MemTableOptions {
        arena_block_size: block,
        huge_page_size: huge,
        comparator: options.comparator.clone(),
        ..MemTableOptions::default()
    });
    let bloom_bytes =
        (options.write_buffer_size as f64 * options.memtable_prefix_bloom_size_ratio) as usize;
    Arc::new(match &options.prefix_extractor {
        Some(p) if bloom_bytes > 0 => mem.with_prefix_bloom(Arc::clone(p), bloom_bytes),
        _ => mem,
    })
}

/// Creates WAL `number`. Its name is not durable until the directory is synced: open does
/// that at once, a memtable switch leaves it to the next directory sync (contract 6 in
/// `mod.rs`).
pub(super) fn create_wal(
    fs: &dyn FileSystem,
    dir: &Path,
    number: u64,
    options: &Options,
) -> Result<LogWriter> {
    let file = fs.create(&dir.join(log_file_name(number)))?;
    Ok(LogWriter::new(file, number, options.db.wal_bytes_per_sync))
}

/// Reuses an obsolete WAL kept under the temporary number `kept` as WAL `number`
/// (`recycle_log_file_num`): renamed, then overwritten from its start. Its old records, past
/// the new ones, carry another log number, which ends the log for the reader. The new name is
/// left for a later directory sync, as for [`create_wal`].
pub(super) fn reuse_wal(
    fs: &dyn FileSystem,
    dir: &Path,
    kept: u64,
    number: u64,
    options: &Options,
) -> Result<LogWriter> {
    let path = dir.join(log_file_name(number));
    fs.rename(&dir.join(temp_file_name(kept)), &path)?;
    let file = fs.open_overwrite(&path)?;
    Ok(LogWriter::new(file, number, options.db.wal_bytes_per_sync))
}

/// What replay leaves behind (invariant 2).
pub(super) struct Replayed {
    /// Per family, the memtable holding what replay did not flush yet.
    mems: Vec<(u32, Arc<MemTable>)>,
    /// Tables written during replay when a memtable filled.
    tables: Vec<(u32, FileMetaData)>,
    /// Read-only opens: memtables that filled during replay, oldest first, kept in memory
    /// instead of written.
    retired: Vec<(u32, Arc<MemTable>)>,
    /// Keeps those tables' numbers live until the edit that records them.
    pending: Vec<PendingOutput>,
    /// Prepared transactions without a commit or rollback record, by name.
    prepared: BTreeMap<Vec<u8>, WriteBatch>,
}

impl Replayed {
    /// A read-only open's memtables of family `id`: the one replay was filling, and the full
    /// ones as immutable memtables, oldest first. Nothing will ever insert into them or flush
    /// them, so each is complete as of `last_seq`.
    pub(super) fn take_memtables(
        &mut self,
        id: u32,
        last_seq: u64,
    ) -> (Arc<MemTable>, VecDeque<Imm>) {
        let imms = self
            .retired
            .iter()
            .filter(|(cf, _)| *cf == id)
            .map(|(_, mem)| Imm {
                mem: Arc::clone(mem),
                next_log: 0,
                forced: false,
                last_seq,
            })
            .collect();
        let mem = self
            .mems
            .iter()
            .find(|(cf, _)| *cf == id)
            .map(|(_, mem)| Arc::clone(mem))
            .expect("replay made a memtable for every family");
        (mem, imms)
    }
}

/// One family during replay.
struct ReplayCf {
    /// WALs below this hold nothing the family still needs (invariant 1).
    log_number: u64,
    options: CfOptions,
    mem: Arc<MemTable>,
}

/// Writes the replayed memtables (if any) to L0 and records the new WAL as every family's log
/// number, in one atomic group with the tables replay already wrote; then deletes the replayed
/// WALs (invariant 2).
fn persist_replayed(inner: &DbInner, replayed: Replayed, wal_number: u64) -> Result<()> {
    let mut st = inner.state.lock();
    // Prepared transactions outlive the replayed WALs, which go below: their prepare records
    // are written again into the new WAL, synced, and pinned there before the MANIFEST moves
    // every family past the old WALs (docs/design/transactions.md, "Two-phase commit").
    if !replayed.prepared.is_empty() {
        let records = replayed
            .prepared
            .iter()
            .map(|(xid, b)| WriteBatch::with_marker(MarkerKind::Prepare, xid, b))
            .collect::<Result<Vec<_>>>()?;
        let wal = st.wal.as_mut().ok_or(Error::Closed)?;
        for record in &records {
            wal.add_record(record.data())?;
        }
        wal.flush()?;
        wal.sync()?;
        for record in &records {
            super::two_phase::record_marker(&mut st, record, wal_number);
        }
        *inner.recovered_prepared.lock() = replayed
            .prepared
            .iter()
            .map(|(x, b)| (x.clone(), b.clone()))
            .collect();
    }
    let mut edits: BTreeMap<u32, VersionEdit> = st
        .cfs
        .keys()
        .map(|&id| {
            let edit = VersionEdit {
                log_number: Some(wal_number),
                ..VersionEdit::default()
            };
            (id, edit)
        })
        .collect();
    let mut pending = replayed.pending;
    let mut tables = replayed.tables;
    for (id, mem) in &replayed.mems {
        let Some(cf) = st.cfs.get(id) else { continue };
        let options = cf.data.options.clone();
        let filter_bits = filter_bits_for(st.versions.current(*id).as_deref(), &options, 0, false);
        let output = st.versions.new_pending_output();
        let meta = build_l0_table(
            &*inner.fs,
            &inner.dir,
            &inner.options.db,
            &options,
            filter_bits,
            std::slice::from_ref(mem),
            output.number(),
            &[],
        )?;
        pending.push(output);
        if let Some(t) = meta {
            tables.push((*id, t.meta));
        }
    }
    for (id, meta) in tables {
        if let Some(edit) = edits.get_mut(&id) {
            edit.add_file(0, meta);
        }
    }
    st.versions.log_and_apply(edits.into_iter().collect())?;
    drop(pending);
    let ids: Vec<u32> = st.cfs.keys().copied().collect();
    for id in ids {
        inner.publish_view(&st, id);
    }
    inner.delete_obsolete_files(&mut st);
    Ok(())
}

/// Replays every WAL the version set still needs into per-family memtables (invariant 1),
/// writing a memtable that fills to L0 (invariant 2), and raises the last sequence number past
/// every replayed batch.
pub(super) fn replay_logs(
    fs: &Arc<dyn FileSystem>,
    dir: &Path,
    options: &Options,
    fam: &FamilyOptions,
    versions: &mut VersionSet,
    report: &mut RecoveryReport,
    read_only: bool,
) -> Result<Replayed> {
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
    let mut cfs: BTreeMap<u32, ReplayCf> = versions
        .column_families()
        .into_iter()
        .map(|info| {
            let cf_options = fam.for_family(&info.name, &options.cf);
            let replay = ReplayCf {
                log_number: info.log_number,
                mem: new_memtable(&cf_options),
                options: cf_options,
            };
            (info.id, replay)
        })
        .collect();
    let mut out = Replayed {
        mems: Vec::new(),
        tables: Vec::new(),
        retired: Vec::new(),
        pending: Vec::new(),
        prepared: BTreeMap::new(),
    };
    let mode = options.db.wal_recovery_mode;
    let mut last = versions.last_sequence();
    let mut stop_all = false;
    let newest = logs.last().copied();
    for number in logs {
        if stop_all {
            report.logs_skipped.push(number);
            continue;
        }
        // Whether the last record read is a seal (db/mod.rs contract 5).
        let mut sealed = false;
        report.logs_replayed.push(number);
        let path = dir.join(log_file_name(number));
        let mut reader = LogReader::open(&**fs, &path, number)?;
        while let Some(event) = reader.next_event()? {
            match event {
                LogEvent::Record(rec) => {
                    let batch = WriteBatch::from_bytes(rec.data).map_err(|e| {
                        e.in_file(reader.path())
                            .context(format!("WAL record at offset {}", rec.offset))
                    })?;
                    sealed = batch.count() == 0 && batch.marker().is_none();
                    // Two-phase commit (docs/design/transactions.md): a prepare is kept aside,
                    // a rollback drops it, a commit resolves it and is applied as any batch.
                    match batch.marker() {
                        Some((MarkerKind::Prepare, xid)) => {
                            out.prepared.insert(xid.to_vec(), batch.without_marker());
                            continue;
                        }
                        Some((MarkerKind::Rollback, xid)) => {
                            out.prepared.remove(xid);
                            continue;
                        }
                        Some((MarkerKind::Commit, xid)) => {
                            out.prepared.remove(xid);
                        }
                        None => {}
                    }
                    apply_replayed(&batch, number, &cfs, &mut last)?;
                    report.batches_replayed += u64::from(!sealed);
                    if read_only {
                        retire_full(&mut cfs, &mut out);
                    } else {
                        flush_full(fs, dir, options, versions, &mut cfs, &mut out)?;
                    }
                }
                LogEvent::Damage(damage)
                    if damage.kind == DamageKind::OldLogNumber
                        || (sealed && mode != WalRecoveryMode::AbsoluteConsistency) =>
                {
                    // The old records of a recycled WAL past the last one written to it
                    // (`recycle_log_file_num`): the end of this log, not damage. The reader
                    // reports "old log number" only when no fragment of this log follows; and
                    // nothing is ever written after a seal, so whatever follows one (the new
                    // log may stop inside an old fragment, which reads as a torn tail) is
                    // not this log's either. Absolute consistency still fails on it (it
                    // refuses recycling).
                    break;
                }
                LogEvent::Damage(damage) => match mode.on_damage(&damage) {
                    DamageAction::Fail => return Err(damage.to_error()),
                    action => {
                        report.dropped.push(DroppedWalBytes {
                            file: damage.file.clone(),
                            kind: damage.kind,
                            offset: damage.offset,
                            bytes: damage.bytes_dropped,
                        });
                        if action == DamageAction::StopHere {
                            // Point-in-time recovery keeps a prefix of the history: nothing
                            // after the damage, in this WAL or later ones, is applied.
                            stop_all = mode == WalRecoveryMode::PointInTimeRecovery;
                            break;
                        }
                    }
                },
            }
        }
        // A WAL with successors that does not end with its seal lost its unsynced tail to a
        // power cut (db/mod.rs contract 5): replaying its successors would leave a hole. Only
        // salvage mode replays past it.
        if !sealed && Some(number) != newest && mode != WalRecoveryMode::SkipAnyCorruptedRecords {
            stop_all = true;
        }
    }
    versions.set_last_sequence(last);
    out.mems = cfs.into_iter().map(|(id, c)| (id, c.mem)).collect();
    Ok(out)
}

/// Writes every replayed memtable that reached its `write_buffer_size` to an L0 table.
fn flush_full(
    fs: &Arc<dyn FileSystem>,
    dir: &Path,
    options: &Options,
    versions: &mut VersionSet,
    cfs: &mut BTreeMap<u32, ReplayCf>,
    out: &mut Replayed,
) -> Result<()> {
    for (&id, cf) in cfs.iter_mut() {
        if cf.mem.approximate_memory_usage() < cf.options.write_buffer_size {
            continue;
        }
        let filter_bits = filter_bits_for(versions.current(id).as_deref(), &cf.options, 0, false);
        let output = versions.new_pending_output();
        let meta = build_l0_table(
            &**fs,
            dir,
            &options.db,
            &cf.options,
            filter_bits,
            std::slice::from_ref(&cf.mem),
            output.number(),
            &[],
        )?;
        out.pending.push(output);
        if let Some(t) = meta {
            out.tables.push((id, t.meta));
        }
        cf.mem = new_memtable(&cf.options);
    }
    Ok(())
}

/// A read-only open's [`flush_full`]: a full memtable is kept, in memory, for the read view.
fn retire_full(cfs: &mut BTreeMap<u32, ReplayCf>, out: &mut Replayed) {
    for (&id, cf) in cfs.iter_mut() {
        if cf.mem.approximate_memory_usage() >= cf.options.write_buffer_size {
            let full = std::mem::replace(&mut cf.mem, new_memtable(&cf.options));
            out.retired.push((id, full));
        }
    }
}

/// Inserts one batch replayed from WAL `log` and raises `last` past it. Records of families
/// that flushed past `log`, or were dropped, are skipped (invariant 1). No batch is skipped by
/// its sequence number: the MANIFEST's last sequence may already count writes that live only in
/// a WAL.
fn apply_replayed(
    batch: &WriteBatch,
    log: u64,
    cfs: &BTreeMap<u32, ReplayCf>,
    last: &mut u64,
) -> Result<()> {
    if batch.count() == 0 {
        return Ok(());
    }
    crate::memtable::insert_batch(batch, |id| {
        Ok(cfs
            .get(&id)
            .filter(|c| log >= c.log_number)
            .map(|c| &*c.mem))
    })?;
    *last = (*last).max(batch.sequence() + u64::from(batch.count()) - 1);
    Ok(())
}
