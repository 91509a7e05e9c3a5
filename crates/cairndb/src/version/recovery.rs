//! Recovery of the version set: reading CURRENT and replaying the MANIFEST it names into the
//! state a [`VersionSet`] starts from, and `Replay`, the applier of version edits that recovery
//! shares with every later change. The steps and their reasons: `docs/design/version_set.md`
//! (section "Recovery"); byte format: `docs/format/manifest.md`.
//!
//! # Who calls it
//! [`VersionSet::recover`] calls `recover_state` once, at open, before any set exists, so no
//! lock is involved. [`VersionSet::create`] starts from `Replay::empty`, and
//! [`VersionSet::begin_apply`] (under the database lock) checks each change with
//! `Replay::from_state` before anything is written. Nothing here is shared between threads.
//!
//! # Ownership
//! A `Replay` owns the counters and one [`VersionBuilder`] per column family while edits are
//! applied; it shares the base versions (`Arc`) and changes none of them. `Replay::finish` turns
//! it into the set's `State`. Recovery only reads files: it never writes to the MANIFEST it
//! replayed (set invariant 4: the first change after recovery starts a new MANIFEST).
//!
//! # Invariants (set invariants are those of `docs/design/version_set.md`)
//! 1. Entries apply in MANIFEST order, an atomic group all or nothing (the reader yields only
//!    complete groups); a torn tail ends the replay, is never applied, and is reported in
//!    [`RecoveryReport::torn_tail`].
//! 2. `Replay`'s errors are corruption naming no file; recovery names the MANIFEST and the
//!    entry's offset (`relocate`), and `log_and_apply` turns them into `InvalidArgument` (set
//!    invariant 8).
//! 3. A recovered state's `next_file_number` exceeds every file and log number the MANIFEST
//!    mentions and the MANIFEST's own number (set invariant 5).
//! 4. A MANIFEST that records no `next_file_number` or no `last_sequence` is corruption: every
//!    MANIFEST this engine writes starts with both.
//! 5. A column family whose files no edit changed keeps its version (the same `Arc`), so readers
//!    and the live-file tracking see no new version.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::builder::VersionBuilder;
use super::edit::VersionEdit;
use super::filenames::{manifest_file_name, CURRENT_FILE_NAME};
use super::manifest::{read_current, ManifestEntry, ManifestReader};
use super::set::{
    ColumnFamily, State, VersionSetOptions, BYTEWISE_COMPARATOR, DEFAULT_CF_ID, DEFAULT_CF_NAME,
};
use super::version::Version;
#[cfg(doc)]
use super::VersionSet;
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::types::SequenceNumber;
use crate::wal::Damage;

/// What [`VersionSet::recover`](super::VersionSet::recover) found.
#[derive(Debug, Clone)]
pub struct RecoveryReport {
    /// The MANIFEST that CURRENT named and that was replayed.
    pub manifest_path: PathBuf,
    /// Its number.
    pub manifest_number: u64,
    /// Entries (plain edits or whole atomic groups) applied.
    pub entries_applied: u64,
    /// Edits applied, counting each edit of a group.
    pub edits_applied: u64,
    /// The torn tail that ended the MANIFEST, if any: edits that were never synced, hence never
    /// acknowledged, and are dropped. The next change goes to a new MANIFEST (set invariant 4).
    pub torn_tail: Option<Damage>,
}

/// Reads CURRENT in `dir` and replays the MANIFEST it names: the state the version set starts
/// from (its `next_file_number` raised past that MANIFEST's number, invariant 3) and the report.
/// Requires validated `opts`.
///
/// # Errors
/// As [`VersionSet::recover`], except for bad options.
pub(super) fn recover_state(
    fs: &dyn FileSystem,
    dir: &Path,
    opts: &VersionSetOptions,
) -> Result<(State, RecoveryReport)> {
    let (mut reader, path, number) = open_current_manifest(fs, dir)?;
    let mut replay = Replay::empty(opts);
    let mut report = RecoveryReport {
        manifest_path: path.clone(),
        manifest_number: number,
        entries_applied: 0,
        edits_applied: 0,
        torn_tail: None,
    };
    replay_manifest(&mut reader, &mut replay, &mut report)?;
    let mut state = finish_recovery(replay, &path)?;
    state.next_file_number = state.next_file_number.max(number + 1);
    Ok((state, report))
}

/// The MANIFEST that CURRENT in `dir` names, opened for reading, with its path and number.
///
/// # Errors
/// I/O errors; Corruption of CURRENT, or when it names a MANIFEST that does not exist.
fn open_current_manifest(
    fs: &dyn FileSystem,
    dir: &Path,
) -> Result<(ManifestReader, PathBuf, u64)> {
    let number = read_current(fs, dir)?;
    let path = dir.join(manifest_file_name(number));
    if !fs.exists(&path)? {
        let why = format!("CURRENT names {}, which does not exist", path.display());
        return Err(Error::corruption(dir.join(CURRENT_FILE_NAME), 0, why));
    }
    let reader = ManifestReader::open(fs, &path, number)?;
    Ok((reader, path, number))
}

/// The names of the column families the MANIFEST of `dir` leaves live, by id, read from its
/// edits without building versions (so whatever comparators the families use):
/// `Db::list_column_families`.
///
/// # Errors
/// As [`recover_state`] for CURRENT and the MANIFEST's records.
pub fn column_family_names(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<String>> {
    let (mut reader, _, _) = open_current_manifest(fs, dir)?;
    let mut names = BTreeMap::from([(DEFAULT_CF_ID, DEFAULT_CF_NAME.to_string())]);
    while let Some(entry) = reader.next_entry()? {
        let ManifestEntry::Edits(edits) = entry else {
            continue;
        };
        for e in edits {
            if let Some(name) = e.column_family_add {
                names.insert(e.column_family, name);
            }
            if e.column_family_drop {
                names.remove(&e.column_family);
            }
        }
    }
    Ok(names.into_values().collect())
}

/// Applies every entry of the MANIFEST; errors name the file and the entry's offset.
fn replay_manifest(
    reader: &mut ManifestReader,
    replay: &mut Replay,
    report: &mut RecoveryReport,
) -> Result<()> {
    while let Some(entry) = reader.next_entry()? {
        match entry {
            ManifestEntry::Edits(edits) => {
                for e in &edits {
                    replay
                        .apply(e)
                        .map_err(|err| relocate(err, reader.path(), reader.entry_offset()))?;
                }
                report.entries_applied += 1;
                report.edits_applied += edits.len() as u64;
            }
            ManifestEntry::TornTail(d) => report.torn_tail = Some(d),
        }
    }
    Ok(())
}

/// Checks that the MANIFEST held the counters every database records, and builds the versions.
fn finish_recovery(replay: Replay, path: &Path) -> Result<State> {
    if !replay.saw_next_file_number || !replay.saw_last_sequence {
        return Err(Error::corruption(
            path,
            0,
            "MANIFEST records no next file number or no last sequence",
        ));
    }
    replay.finish().map_err(|e| relocate(e, path, 0))
}

/// Names the MANIFEST and offset in a corruption found while applying its edits.
fn relocate(e: Error, path: &Path, offset: u64) -> Error {
    match e.as_corruption() {
        Some(c) if c.file.as_os_str().is_empty() => {
            Error::corruption(path, offset, c.message.clone())
        }
        _ => e,
    }
}

/// A column family while edits are applied to it.
#[derive(Debug)]
struct PendingCf {
    name: String,
    log_number: u64,
    builder: VersionBuilder,
    /// The comparator name the edits recorded for the family; `None` for a family created
    /// before comparator names were recorded per family (necessarily bytewise).
    recorded_comparator: Option<String>,
}

/// Applies edits to a state: used by recovery (over the whole MANIFEST) and by `log_and_apply`
/// (over one group, before anything is written). Errors are corruption without a file name;
/// each caller says where the edits came from.
#[derive(Debug)]
pub(super) struct Replay {
    num_levels: usize,
    /// The order each family's keys are read in, by name.
    orders: VersionSetOptions,
    cfs: BTreeMap<u32, PendingCf>,
    next_file_number: u64,
    max_number_seen: u64,
    last_sequence: SequenceNumber,
    prev_log_number: u64,
    log_floor: u64,
    max_column_family: u32,
    saw_next_file_number: bool,
    saw_last_sequence: bool,
}

fn inconsistent(why: String) -> Error {
    Error::corruption("", 0, format!("inconsistent version edit: {why}"))
}

impl Replay {
    /// The state of a database before its first edit: only the default column family, which
    /// exists implicitly (as in RocksDB) and is never added by an edit.
    pub(super) fn empty(opts: &VersionSetOptions) -> Replay {
        let mut cfs = BTreeMap::new();
        cfs.insert(
            DEFAULT_CF_ID,
            new_pending_cf(
                DEFAULT_CF_NAME,
                opts.num_levels,
                opts.order_for(DEFAULT_CF_NAME),
            ),
        );
        Replay {
            num_levels: opts.num_levels,
            orders: opts.clone(),
            cfs,
            next_file_number: 0,
            max_number_seen: 0,
            last_sequence: 0,
            prev_log_number: 0,
            log_floor: 0,
            max_column_family: 0,
            saw_next_file_number: false,
            saw_last_sequence: false,
        }
    }

    /// The state of a database being created: only the default column family, whose comparator
    /// is the one it is created with.
    pub(super) fn new_database(opts: &VersionSetOptions) -> Replay {
        let mut r = Replay::empty(opts);
        for cf in r.cfs.values_mut() {
            cf.recorded_comparator = Some(cf.builder.base().order().name().to_string());
        }
        r
    }

    pub(super) fn from_state(state: &State, opts: &VersionSetOptions) -> Replay {
        let cfs = state
            .cfs
            .iter()
            .map(|(&id, cf)| {
                let pending = PendingCf {
                    name: cf.name.clone(),
                    log_number: cf.log_number,
                    builder: VersionBuilder::new(Arc::clone(&cf.current)),
                    recorded_comparator: Some(cf.current.order().name().to_string()),
                };
                (id, pending)
            })
            .collect();
        Replay {
            cfs,
            next_file_number: state.next_file_number,
            last_sequence: state.last_sequence,
            prev_log_number: state.prev_log_number,
            log_floor: state.log_floor,
            max_column_family: state.max_column_family,
            ..Replay::empty(opts)
        }
    }

    pub(super) fn apply(&mut self, e: &VersionEdit) -> Result<()> {
        self.apply_counters(e);
        let id = e.column_family;
        if let Some(name) = &e.column_family_add {
            self.add_cf(id, name)?;
        }
        if let Some(name) = &e.comparator {
            let adopt = self.orders.adopt_recorded_comparators;
            let num_levels = self.num_levels;
            let cf = self.cfs.get_mut(&id).ok_or_else(|| {
                inconsistent(format!("comparator for unknown column family {id}"))
            })?;
            if adopt && cf.recorded_comparator.is_none() && cf.builder.is_unchanged() {
                let order = KeyOrder::from_name(name).map_err(|e| {
                    Error::InvalidArgument(format!("column family {:?}: {e}", cf.name))
                })?;
                cf.builder = VersionBuilder::new(Arc::new(Version::empty(num_levels, order)));
            }
            check_comparator(cf, name)?;
            cf.recorded_comparator = Some(name.clone());
        }
        if e.column_family_drop {
            return self.drop_cf(id, e);
        }
        let cf = self
            .cfs
            .get_mut(&id)
            .ok_or_else(|| inconsistent(format!("edit for unknown column family {id}")))?;
        if let Some(n) = e.log_number {
            // Log numbers only move forward; RocksDB likewise ignores a smaller one.
            cf.log_number = cf.log_number.max(n);
        }
        cf.builder.apply(e)
    }

    fn apply_counters(&mut self, e: &VersionEdit) {
        if let Some(n) = e.next_file_number {
            self.saw_next_file_number = true;
            self.next_file_number = self.next_file_number.max(n);
        }
        if let Some(s) = e.last_sequence {
            self.saw_last_sequence = true;
            self.last_sequence = self.last_sequence.max(s);
        }
        if let Some(n) = e.prev_log_number {
            self.prev_log_number = n;
        }
        if let Some(n) = e.min_log_number_to_keep {
            self.log_floor = n;
        }
        if let Some(m) = e.max_column_family {
            self.max_column_family = self.max_column_family.max(m);
        }
        let files = e.new_files.iter().map(|f| f.meta.number);
        let deleted = e.deleted_files.iter().map(|d| d.number);
        let logs = [e.log_number, e.prev_log_number].into_iter().flatten();
        let max = files.chain(deleted).chain(logs).max().unwrap_or(0);
        self.max_number_seen = self.max_number_seen.max(max);
    }

    fn add_cf(&mut self, id: u32, name: &str) -> Result<()> {
        if self.cfs.contains_key(&id) {
            return Err(inconsistent(format!("column family {id} added twice")));
        }
        if self.cfs.values().any(|cf| cf.name == name) {
            return Err(inconsistent(format!("column family name {name:?} in use")));
        }
        self.max_column_family = self.max_column_family.max(id);
        let order = self.orders.order_for(name);
        self.cfs
            .insert(id, new_pending_cf(name, self.num_levels, order));
        Ok(())
    }

    fn drop_cf(&mut self, id: u32, e: &VersionEdit) -> Result<()> {
        if id == DEFAULT_CF_ID {
            return Err(inconsistent("the default column family is dropped".into()));
        }
        if !e.new_files.is_empty() || !e.deleted_files.is_empty() {
            return Err(inconsistent(format!(
                "column family {id} dropped with file changes"
            )));
        }
        match self.cfs.remove(&id) {
            Some(_) => Ok(()),
            None => Err(inconsistent(format!("unknown column family {id} dropped"))),
        }
    }

    /// The state after every applied edit. Families whose files did not change keep their
    /// version (the same `Arc`), so readers and the live-file tracking see no new version.
    pub(super) fn finish(self) -> Result<State> {
        let mut cfs = BTreeMap::new();
        for (id, p) in self.cfs {
            if p.recorded_comparator.is_none() {
                // Created before names were recorded per family: bytewise.
                check_comparator(&p, BYTEWISE_COMPARATOR)?;
            }
            let current = if p.builder.is_unchanged() {
                Arc::clone(p.builder.base())
            } else {
                Arc::new(p.builder.build()?)
            };
            let cf = ColumnFamily {
                name: p.name,
                log_number: p.log_number,
                current,
            };
            cfs.insert(id, cf);
        }
        Ok(State {
            cfs,
            next_file_number: self.next_file_number.max(self.max_number_seen + 1),
            last_sequence: self.last_sequence,
            prev_log_number: self.prev_log_number,
            log_floor: self.log_floor,
            max_column_family: self.max_column_family,
        })
    }
}

fn new_pending_cf(name: &str, num_levels: usize, order: KeyOrder) -> PendingCf {
    PendingCf {
        name: name.to_string(),
        log_number: 0,
        builder: VersionBuilder::new(Arc::new(Version::empty(num_levels, order))),
        recorded_comparator: None,
    }
}

/// Refuses to read a family written with comparator `recorded` in another order: its files
/// would be searched in an order they were not written in.
fn check_comparator(cf: &PendingCf, recorded: &str) -> Result<()> {
    let order = cf.builder.base().order();
    if recorded == order.name() {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "column family {:?} was written with comparator {recorded:?}, not {:?}",
        cf.name,
        order.name()
    )))
}
