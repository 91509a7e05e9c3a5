//! The version set: the durable file set of every column family, the database's counters, and
//! the MANIFEST that makes them durable. This file is the live, writing side (creation, changes,
//! MANIFEST rolls, file numbers, live and obsolete files); reading a MANIFEST back at open, and
//! the edit replay that recovery and every change share, are in [`recovery`](super::recovery).
//! Design and numbered invariants: `docs/design/version_set.md`; byte format:
//! `docs/format/manifest.md`.
//!
//! # Thread contract
//! The database keeps its `VersionSet` inside its `Mutex<DbState>`: every method runs under that
//! lock, and mutations take `&mut self`, so there is exactly one MANIFEST writer and no internal
//! locking. What escapes the lock is `Arc<Version>` ([`VersionSet::current`]): readers use it
//! without any lock, because a [`Version`] never changes. The only state shared outside the
//! lock is the registry behind [`PendingOutput`] guards, which a flush or compaction may drop on
//! any thread; it has its own small mutex. The database writes MANIFEST changes with its lock
//! released, as RocksDB's `LogAndApply` does: [`VersionSet::begin_apply`] (under the lock)
//! prepares the records, [`PendingApply::write`] appends and syncs them with no lock held, and
//! [`VersionSet::finish_apply`] (under the lock again) installs them; one change is in flight at
//! a time (`db/install.rs`). [`VersionSet::log_and_apply`] does all three under the caller's
//! lock, for open and for column-family creation and drop, which are rare.
//!
//! # Ownership
//! The set owns the open MANIFEST writer, the counters (`next_file_number`, `last_sequence`,
//! `prev_log_number`, `max_column_family`), every column family (id, name, log number, current
//! version) and weak references to every version it ever installed, so it can tell which files
//! a reader still uses.
//!
//! # Invariants (numbered as in `docs/design/version_set.md`)
//! 1. A change takes effect in memory only after the MANIFEST records holding it are synced
//!    (and, when it started a new MANIFEST, after CURRENT names that MANIFEST durably). A failed
//!    `log_and_apply` therefore leaves the in-memory state as it was.
//! 2. The edits of one `log_and_apply` call are one atomic group on disk: recovery applies all
//!    of them or none.
//! 3. After any failed MANIFEST or CURRENT write the set is poisoned: what reached the disk is
//!    unknown, so every later `log_and_apply` fails with [`Error::Poisoned`] and no file is
//!    reported obsolete until the database is reopened (never retry an fsync and hope).
//! 4. Nothing is ever appended to a MANIFEST this process did not create: after recovery, the
//!    first `log_and_apply` starts a new MANIFEST holding a full snapshot. A torn tail is never
//!    written after.
//! 5. `next_file_number` exceeds every file number in any MANIFEST edit, every log number and
//!    every MANIFEST number; a number handed out is never handed out again.
//! 6. A file is live while the current version of some column family, or any version a reader
//!    still holds, contains it, or while a [`PendingOutput`] guard protects its number; only
//!    files that are not live are reported obsolete.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

use super::apply::write_new_manifest;
pub use super::apply::PendingApply;
use super::edit::{FileMetaData, VersionEdit, FORMAT_VERSION, MAX_LEVELS};
use super::filenames::{parse_file_name, FileType, CURRENT_FILE_NAME};
use super::manifest::ManifestWriter;
use super::recovery::{recover_state, RecoveryReport, Replay};
use super::version::{Version, DEFAULT_NUM_LEVELS};
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::types::SequenceNumber;

/// The id of the default column family, which always exists and cannot be dropped.
pub const DEFAULT_CF_ID: u32 = 0;
/// The name of the default column family.
pub const DEFAULT_CF_NAME: &str = "default";
/// The name of the bytewise comparator, as RocksDB spells it.
pub const BYTEWISE_COMPARATOR: &str = crate::comparator::BYTEWISE_NAME;

/// Options of the version set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionSetOptions {
    /// Levels per column family (RocksDB's `num_levels`). Default 7; `1..=64`.
    pub num_levels: usize,
    /// When the MANIFEST reaches this many bytes (and the space-amplification limit below), the
    /// next change starts a new one holding a snapshot (RocksDB's `max_manifest_file_size`).
    /// Default 1 GiB. Smaller values bound recovery time and disk use at the cost of writing
    /// snapshots more often.
    pub max_manifest_file_size: u64,
    /// A MANIFEST also rolls only once it exceeds its size right after the last roll (the
    /// snapshot) by this percentage (RocksDB's `max_manifest_space_amp_pct`, default 500). It
    /// keeps a large state from being rewritten on every change when
    /// `max_manifest_file_size` is smaller than a snapshot; 0 rolls as soon as the size limit
    /// is reached.
    pub max_manifest_space_amp_pct: u32,
    /// The order of the keys of column families not in `cf_comparators`. Default bytewise.
    pub comparator: KeyOrder,
    /// The order of each named column family's keys. Each family's comparator name is
    /// persisted in the MANIFEST with the family and checked on recovery.
    pub cf_comparators: BTreeMap<String, KeyOrder>,
    /// For tools that read any database: each family takes the built-in comparator the
    /// MANIFEST names instead of the two fields above (a user comparator's name is refused).
    /// Default false.
    pub adopt_recorded_comparators: bool,
}

impl Default for VersionSetOptions {
    fn default() -> Self {
        VersionSetOptions {
            num_levels: DEFAULT_NUM_LEVELS,
            max_manifest_file_size: 1 << 30,
            max_manifest_space_amp_pct: 500,
            comparator: KeyOrder::BYTEWISE,
            cf_comparators: BTreeMap::new(),
            adopt_recorded_comparators: false,
        }
    }
}

impl VersionSetOptions {
    /// The order of the keys of column family `name`.
    pub fn order_for(&self, name: &str) -> KeyOrder {
        self.cf_comparators
            .get(name)
            .unwrap_or(&self.comparator)
            .clone()
    }

    fn validate(&self) -> Result<()> {
        if !(1..=usize::from(MAX_LEVELS)).contains(&self.num_levels) {
            return Err(Error::InvalidArgument(format!(
                "num_levels {} is not in 1..={MAX_LEVELS}",
                self.num_levels
            )));
        }
        if self.max_manifest_file_size == 0 {
            return Err(Error::InvalidArgument(
                "max_manifest_file_size must be positive".into(),
            ));
        }
        Ok(())
    }
}

/// A column family as [`VersionSet::column_families`] describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnFamilyInfo {
    /// The id, persisted in edits; never reused.
    pub id: u32,
    /// The unique name.
    pub name: String,
    /// WALs numbered below this hold nothing this family still needs.
    pub log_number: u64,
}

/// One column family's durable state.
#[derive(Debug, Clone)]
pub(super) struct ColumnFamily {
    pub(super) name: String,
    pub(super) log_number: u64,
    pub(super) current: Arc<Version>,
}

/// Everything a MANIFEST describes. Replaced as a whole when a change is installed; built by a
/// [`Replay`] (at creation, at recovery, and for every change before it is written).
#[derive(Debug, Clone)]
pub(super) struct State {
    pub(super) cfs: BTreeMap<u32, ColumnFamily>,
    pub(super) next_file_number: u64,
    pub(super) last_sequence: SequenceNumber,
    pub(super) prev_log_number: u64,
    /// The persisted floor of two-phase commit (`VersionEdit::min_log_number_to_keep`); 0 for
    /// none.
    pub(super) log_floor: u64,
    pub(super) max_column_family: u32,
}

/// Protects a file number handed out for a file being written (flush or compaction output)
/// from being reported obsolete before the edit that adds the file is installed. Drop it after
/// `log_and_apply` returned (or when the job gives up). May be dropped on any thread.
#[derive(Debug)]
pub struct PendingOutput {
    number: u64,
    registry: Arc<Mutex<BTreeMap<u64, usize>>>,
}

impl PendingOutput {
    /// The protected file number.
    pub fn number(&self) -> u64 {
        self.number
    }
}

impl Drop for PendingOutput {
    fn drop(&mut self) {
        let mut reg = self.registry.lock();
        if let Some(count) = reg.get_mut(&self.number) {
            *count -= 1;
            if *count == 0 {
                reg.remove(&self.number);
            }
        }
    }
}

/// The version set. See the module contract.
#[derive(Debug)]
pub struct VersionSet {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    opts: VersionSetOptions,
    state: State,
    /// The MANIFEST being appended to; `None` after recovery, so that the first change starts
    /// a new one (invariant 4).
    manifest: Option<ManifestWriter>,
    /// The MANIFEST that CURRENT names.
    manifest_number: u64,
    /// The size at which the open MANIFEST rolls: the larger of `max_manifest_file_size` and
    /// its size after the snapshot grown by `max_manifest_space_amp_pct`.
    roll_at_bytes: u64,
    /// Why the set refuses changes (invariant 3).
    poisoned: Option<String>,
    /// Every version installed and possibly still held by a reader (invariant 6).
    installed: Vec<Weak<Version>>,
    pending_outputs: Arc<Mutex<BTreeMap<u64, usize>>>,
    /// A change is between [`begin_apply`](Self::begin_apply) and
    /// [`finish_apply`](Self::finish_apply): its MANIFEST write may be running.
    apply_in_flight: bool,
    /// The floor of two-phase commit the database asked for ([`VersionSet::set_log_floor`]),
    /// written with the next change; `state.log_floor` is the one written.
    pending_log_floor: u64,
}

impl VersionSet {
    /// Creates a new database's version set in `dir`: writes `MANIFEST-000001` with a full
    /// snapshot (the default column family with its comparator, counters, format version), syncs it and
    /// points CURRENT at it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for bad options or when `dir` already holds a CURRENT (a
    /// database exists; recover it instead); I/O errors, after which CURRENT may or may not
    /// exist and calling `create` again is safe.
    pub fn create(
        fs: Arc<dyn FileSystem>,
        dir: &Path,
        opts: VersionSetOptions,
    ) -> Result<VersionSet> {
        opts.validate()?;
        fs.create_dir_all(dir)?;
        if fs.exists(&dir.join(CURRENT_FILE_NAME))? {
            return Err(Error::InvalidArgument(format!(
                "{} already holds a database",
                dir.display()
            )));
        }
        let state = Replay::new_database(&opts).finish()?;
        let mut set = VersionSet::with_state(fs, dir, opts, state, 0);
        let number = set.new_file_number();
        let writer = write_new_manifest(&*set.fs, &set.dir, number, &set.snapshot_edits(), &[])?;
        set.use_manifest(writer, number);
        Ok(set)
    }

    /// Recovers the version set of the database in `dir`: reads CURRENT, replays every edit of
    /// the MANIFEST it names (atomic groups all or nothing), rebuilds every column family's
    /// version and the counters. A torn final record is tolerated and reported; the next change
    /// then starts a new MANIFEST, as every first change after recovery does.
    ///
    /// # Errors
    /// I/O errors (NotFound when there is no CURRENT: no database); [`Error::Corruption`] naming
    /// the file and offset for a damaged CURRENT or MANIFEST, a missing MANIFEST, or edits that
    /// contradict each other; [`Error::NotSupported`] for a MANIFEST written by a newer format;
    /// [`Error::InvalidArgument`] for bad options, a different comparator, or files on more
    /// levels than `num_levels`.
    pub fn recover(
        fs: Arc<dyn FileSystem>,
        dir: &Path,
        opts: VersionSetOptions,
    ) -> Result<(VersionSet, RecoveryReport)> {
        opts.validate()?;
        let (state, report) = recover_state(&*fs, dir, &opts)?;
        let set = VersionSet::with_state(fs, dir, opts, state, report.manifest_number);
        Ok((set, report))
    }

    fn with_state(
        fs: Arc<dyn FileSystem>,
        dir: &Path,
        opts: VersionSetOptions,
        state: State,
        manifest_number: u64,
    ) -> VersionSet {
        let pending_log_floor = state.log_floor;
        let mut set = VersionSet {
            fs,
            dir: dir.to_path_buf(),
            opts,
            state,
            pending_log_floor,
            manifest: None,
            manifest_number,
            roll_at_bytes: 0,
            poisoned: None,
            installed: Vec::new(),
            apply_in_flight: false,
            pending_outputs: Arc::default(),
        };
        set.track_versions();
        set
    }

    /// Writes `edits` (as one atomic group) to the MANIFEST, syncs it, and only then installs
    /// the resulting versions and counters. Each pair names the column family the edit applies
    /// to (it overrides the edit's own `column_family`). The set's `next_file_number` and
    /// `last_sequence` are recorded with the group. When the MANIFEST has reached its roll size
    /// (`max_manifest_file_size`, `max_manifest_space_amp_pct`), or after recovery, the group goes to a new MANIFEST that starts
    /// with a snapshot of the whole state, and CURRENT is switched to it before anything is
    /// installed. An empty `edits` does nothing.
    ///
    /// # Errors
    /// [`Error::Poisoned`] after an earlier failure; [`Error::InvalidArgument`] for edits that
    /// contradict the current state or set fields the set owns (nothing is written then, and the
    /// set stays usable); I/O errors writing the MANIFEST or CURRENT, after which the in-memory
    /// state is unchanged and the set is poisoned (invariant 3).
    pub fn log_and_apply(&mut self, edits: Vec<(u32, VersionEdit)>) -> Result<()> {
        let Some(mut pending) = self.begin_apply(edits)? else {
            return Ok(());
        };
        let written = pending.write();
        self.finish_apply(pending, written)
    }

    /// The first step of [`log_and_apply`](Self::log_and_apply) for a caller that releases its
    /// lock on the set during the MANIFEST write: checks and stamps `edits` and computes the
    /// state they lead to. `Ok(None)` for empty `edits`. Until
    /// [`finish_apply`](Self::finish_apply), the set refuses other changes, lists no obsolete
    /// files, and may still hand out file numbers and advance the last sequence (the larger
    /// counters win at the install).
    ///
    /// # Errors
    /// As `log_and_apply` before anything is written; [`Error::InvalidArgument`] while another
    /// change is in flight (a caller's bug: changes must be serialized).
    pub fn begin_apply(&mut self, edits: Vec<(u32, VersionEdit)>) -> Result<Option<PendingApply>> {
        if let Some(why) = &self.poisoned {
            return Err(Error::Poisoned(why.clone()));
        }
        if self.apply_in_flight {
            return Err(Error::InvalidArgument(
                "a MANIFEST change is already in flight".into(),
            ));
        }
        if edits.is_empty() {
            return Ok(None);
        }
        // The new MANIFEST's number is taken before the counters are stamped, so that the
        // recorded next_file_number already exceeds it (invariant 5).
        let roll = self.needs_new_manifest().then(|| self.new_pending_output());
        let edits = self.prepare(edits)?;
        let next = self.replay_onto_current(&edits)?;
        // Unit tests and `invariants` builds: every version the engine makes passes the LSM
        // checks (gated like `Version::new`'s own check).
        #[cfg(any(test, feature = "invariants"))]
        for cf in next.cfs.values() {
            crate::compaction::invariants::assert_lsm_invariants(&cf.current);
        }
        let (writer, roll) = match roll {
            Some(number) => (None, Some((number, self.snapshot_edits(), None))),
            None => {
                let writer = self
                    .manifest
                    .take()
                    .ok_or_else(|| Error::Poisoned("no MANIFEST is open".into()))?;
                (Some(writer), None)
            }
        };
        self.apply_in_flight = true;
        Ok(Some(PendingApply {
            fs: Arc::clone(&self.fs),
            dir: self.dir.clone(),
            edits,
            next,
            writer,
            roll,
        }))
    }

    /// The last step of a change begun with [`begin_apply`](Self::begin_apply): with `written`
    /// Ok, installs the new versions (counters advanced meanwhile are kept); otherwise the
    /// in-memory state is unchanged and the set is poisoned (invariant 3).
    ///
    /// # Errors
    /// `written`'s error.
    pub fn finish_apply(&mut self, pending: PendingApply, written: Result<()>) -> Result<()> {
        self.apply_in_flight = false;
        let PendingApply {
            mut next,
            writer,
            roll,
            ..
        } = pending;
        if let Err(e) = written {
            self.manifest = writer;
            self.poisoned = Some(e.to_string());
            return Err(e);
        }
        match roll {
            Some((number, _, Some(new_writer))) => self.use_manifest(new_writer, number.number()),
            Some((_, _, None)) => {
                let e = Error::Poisoned("the new MANIFEST was not written".into());
                self.poisoned = Some(e.to_string());
                return Err(e);
            }
            None => self.manifest = writer,
        }
        next.next_file_number = next.next_file_number.max(self.state.next_file_number);
        next.last_sequence = next.last_sequence.max(self.state.last_sequence);
        self.install(next);
        Ok(())
    }

    /// A change is between [`begin_apply`](Self::begin_apply) and
    /// [`finish_apply`](Self::finish_apply).
    pub fn apply_in_flight(&self) -> bool {
        self.apply_in_flight
    }

    fn needs_new_manifest(&self) -> bool {
        self.manifest
            .as_ref()
            .is_none_or(|m| m.len() >= self.roll_at_bytes)
    }

    /// Switches to a MANIFEST that CURRENT now names, and sets when it will roll.
    fn use_manifest(&mut self, writer: ManifestWriter, number: u64) {
        let pct = u64::from(self.opts.max_manifest_space_amp_pct);
        let grown = writer.len().saturating_mul(100 + pct) / 100;
        self.roll_at_bytes = grown.max(self.opts.max_manifest_file_size);
        self.manifest = Some(writer);
        self.manifest_number = number;
    }

    /// Checks the caller's edits and stamps the fields the set owns.
    fn prepare(&self, edits: Vec<(u32, VersionEdit)>) -> Result<Vec<VersionEdit>> {
        let mut out = Vec::with_capacity(edits.len());
        for (cf, mut e) in edits {
            e.column_family = cf;
            if e.atomic_group_remaining.is_some() || e.format_version.is_some() {
                return Err(Error::InvalidArgument(
                    "atomic-group and format-version fields are set by the version set".into(),
                ));
            }
            e.validate()
                .map_err(|why| Error::InvalidArgument(format!("version edit: {why}")))?;
            if e.column_family_add.is_some() {
                e.max_column_family = Some(self.state.max_column_family.max(cf));
            }
            out.push(e);
        }
        if let Some(last) = out.last_mut() {
            let next = self.state.next_file_number;
            last.next_file_number = Some(last.next_file_number.map_or(next, |n| n.max(next)));
            let seq = self.state.last_sequence;
            last.last_sequence = Some(last.last_sequence.map_or(seq, |s| s.max(seq)));
            if self.pending_log_floor != self.state.log_floor {
                last.min_log_number_to_keep = Some(self.pending_log_floor);
            }
        }
        Ok(out)
    }

    /// The state the edits lead to, computed before anything is written so that an inconsistent
    /// edit is refused without touching the MANIFEST.
    fn replay_onto_current(&self, edits: &[VersionEdit]) -> Result<State> {
        let mut replay = Replay::from_state(&self.state, &self.opts);
        let rejected = |e: Error| match e.as_corruption() {
            Some(c) => Error::InvalidArgument(format!("version edit rejected: {}", c.message)),
            None => e,
        };
        for e in edits {
            replay.apply(e).map_err(rejected)?;
        }
        replay.finish().map_err(rejected)
    }

    /// The whole state as edits: counters first, then one edit per column family with all its
    /// files and compaction cursors. Written as one atomic group at the start of every MANIFEST.
    fn snapshot_edits(&self) -> Vec<VersionEdit> {
        let s = &self.state;
        let mut edits = vec![VersionEdit {
            format_version: Some(FORMAT_VERSION),
            next_file_number: Some(s.next_file_number),
            last_sequence: Some(s.last_sequence),
            prev_log_number: Some(s.prev_log_number),
            // Only a database with prepared transactions carries the field (manifest.md).
            min_log_number_to_keep: (s.log_floor != 0).then_some(s.log_floor),
            max_column_family: Some(s.max_column_family),
            ..VersionEdit::default()
        }];
        for (&id, cf) in &s.cfs {
            let mut e = VersionEdit {
                column_family: id,
                column_family_add: (id != DEFAULT_CF_ID).then(|| cf.name.clone()),
                comparator: Some(cf.current.order().name().to_string()),
                log_number: Some(cf.log_number),
                ..VersionEdit::default()
            };
            for (level, f) in cf.current.all_files() {
                e.add_file(level as u8, FileMetaData::clone(f));
            }
            for (level, key) in cf.current.compact_cursors().iter().enumerate() {
                if let Some(key) = key {
                    e.set_compact_cursor(level as u8, key.clone());
                }
            }
            edits.push(e);
        }
        edits
    }

    fn install(&mut self, next: State) {
        self.state = next;
        self.track_versions();
    }

    /// Remembers the current versions and forgets versions no one holds any more.
    fn track_versions(&mut self) {
        for cf in self.state.cfs.values() {
            let known = self
                .installed
                .iter()
                .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&cf.current)));
            if !known {
                self.installed.push(Arc::downgrade(&cf.current));
            }
        }
        self.installed.retain(|w| w.strong_count() > 0);
    }

    /// Hands out a new file number (for a WAL, a table, a MANIFEST). Not durable by itself: the
    /// next `log_and_apply` records the counter; recovery also raises it past every number it
    /// sees in the MANIFEST, and the database must raise it past the WALs it finds
    /// ([`mark_file_number_used`](Self::mark_file_number_used)).
    pub fn new_file_number(&mut self) -> u64 {
        let n = self.state.next_file_number;
        self.state.next_file_number += 1;
        n
    }

    /// A new file number protected as a pending output until the guard is dropped.
    pub fn new_pending_output(&mut self) -> PendingOutput {
        let number = self.new_file_number();
        *self.pending_outputs.lock().entry(number).or_insert(0) += 1;
        PendingOutput {
            number,
            registry: Arc::clone(&self.pending_outputs),
        }
    }

    /// Makes sure `number` is never handed out (a file with that number exists).
    pub fn mark_file_number_used(&mut self, number: u64) {
        self.state.next_file_number = self.state.next_file_number.max(number + 1);
    }

    /// The next file number [`new_file_number`](Self::new_file_number) will return.
    pub fn next_file_number(&self) -> u64 {
        self.state.next_file_number
    }

    /// The last sequence number used (recorded with every `log_and_apply`).
    pub fn last_sequence(&self) -> SequenceNumber {
        self.state.last_sequence
    }

    /// Sets the last sequence number used; it becomes durable with the next `log_and_apply`.
    ///
    /// # Panics
    /// If `seq` is smaller than the current value: sequence numbers never go back (a bug).
    pub fn set_last_sequence(&mut self, seq: SequenceNumber) {
        assert!(
            seq >= self.state.last_sequence,
            "last sequence moves back from {} to {seq}",
            self.state.last_sequence
        );
        self.state.last_sequence = seq;
    }

    /// The previous log number (kept for RocksDB compatibility; such a WAL is never obsolete).
    pub fn prev_log_number(&self) -> u64 {
        self.state.prev_log_number
    }

    /// The smallest log number any live column family still needs: WALs numbered below it are
    /// obsolete. It is 0 while some family has never recorded a log number.
    pub fn min_log_number_to_keep(&self) -> u64 {
        let mut min = self.min_cf_log_number();
        // Both the persisted floor and one not yet persisted hold WALs back (the lower wins):
        // a raised floor frees WALs only once the MANIFEST says so.
        for floor in [self.state.log_floor, self.pending_log_floor] {
            if floor != 0 {
                min = min.min(floor);
            }
        }
        min
    }

    /// The smallest log number of any column family: WALs below it hold no data any family
    /// still needs (prepared transactions aside, see [`min_log_number_to_keep`](Self::min_log_number_to_keep)).
    pub fn min_cf_log_number(&self) -> u64 {
        self.state
            .cfs
            .values()
            .map(|cf| cf.log_number)
            .min()
            .unwrap_or(0)
    }

    /// Sets the floor of two-phase commit (0: none): the smallest WAL holding a prepared
    /// transaction not durably resolved. It holds WALs back at once and is written with the
    /// next change (`log_and_apply`), which is what lets the column families' log numbers pass
    /// it.
    pub fn set_log_floor(&mut self, floor: u64) {
        self.pending_log_floor = floor;
    }

    /// The current version of column family `cf`, or `None` if there is no such family.
    pub fn current(&self, cf: u32) -> Option<Arc<Version>> {
        self.state.cfs.get(&cf).map(|c| Arc::clone(&c.current))
    }

    /// The live column families, by id.
    pub fn column_families(&self) -> Vec<ColumnFamilyInfo> {
        self.state
            .cfs
            .iter()
            .map(|(&id, cf)| ColumnFamilyInfo {
                id,
                name: cf.name.clone(),
                log_number: cf.log_number,
            })
            .collect()
    }

    /// The id of the live column family called `name`.
    pub fn cf_id(&self, name: &str) -> Option<u32> {
        self.state
            .cfs
            .iter()
            .find(|(_, cf)| cf.name == name)
            .map(|(&id, _)| id)
    }

    /// Creates a column family of keys in `order` through a durable edit (which records the
    /// comparator's name) and returns its id (ids are never reused). `log_number` is the WAL the database writes now: older WALs hold nothing for the
    /// new family, so replaying them must skip it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the name is in use or the ids are exhausted; as
    /// [`log_and_apply`](Self::log_and_apply).
    pub fn create_cf(&mut self, name: &str, log_number: u64, order: KeyOrder) -> Result<u32> {
        if self.cf_id(name).is_some() {
            return Err(Error::InvalidArgument(format!(
                "column family {name:?} exists"
            )));
        }
        let comparator = Some(order.name().to_string());
        self.opts.cf_comparators.insert(name.to_string(), order);
        let id = self
            .state
            .max_column_family
            .checked_add(1)
            .ok_or_else(|| Error::InvalidArgument("column family ids exhausted".into()))?;
        let edit = VersionEdit {
            column_family_add: Some(name.to_string()),
            comparator,
            log_number: Some(log_number),
            ..VersionEdit::default()
        };
        self.log_and_apply(vec![(id, edit)])?;
        Ok(id)
    }

    /// Drops column family `id` through a durable edit. Its files stay live while a reader holds
    /// one of its versions.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for the default family or an unknown id; as
    /// [`log_and_apply`](Self::log_and_apply).
    pub fn drop_cf(&mut self, id: u32) -> Result<()> {
        if id == DEFAULT_CF_ID || !self.state.cfs.contains_key(&id) {
            return Err(Error::InvalidArgument(format!(
                "column family {id} cannot be dropped"
            )));
        }
        let edit = VersionEdit {
            column_family_drop: true,
            ..VersionEdit::default()
        };
        self.log_and_apply(vec![(id, edit)])
    }

    /// The number of the MANIFEST that CURRENT names.
    pub fn manifest_number(&self) -> u64 {
        self.manifest_number
    }

    /// The size of the MANIFEST being appended to, 0 when none is open (after recovery).
    pub fn manifest_size(&self) -> u64 {
        self.manifest.as_ref().map_or(0, ManifestWriter::len)
    }

    /// True after a failed MANIFEST write (invariant 3).
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.is_some()
    }

    /// Why the set is poisoned (the failed MANIFEST or CURRENT write's error), if it is.
    pub fn poison_reason(&self) -> Option<&str> {
        self.poisoned.as_deref()
    }

    /// Numbers of the table files that are live (invariant 6): in a current version, in a
    /// version still held by a reader, or protected by a [`PendingOutput`].
    pub fn live_files(&self) -> BTreeSet<u64> {
        let mut live: BTreeSet<u64> = self.pending_outputs.lock().keys().copied().collect();
        let held = self.installed.iter().filter_map(Weak::upgrade);
        let current = self.state.cfs.values().map(|cf| Arc::clone(&cf.current));
        for v in held.chain(current) {
            live.extend(v.all_files().map(|(_, f)| f.number));
        }
        live
    }

    /// The names in `listing` (a listing of the database directory) that are the engine's and
    /// may be deleted now: tables that are not live, WALs below
    /// [`min_log_number_to_keep`](Self::min_log_number_to_keep) (except `prev_log_number`),
    /// MANIFESTs other than the one CURRENT names, and temporary files not protected by a
    /// pending output. CURRENT, LOCK, OPTIONS, info logs and foreign names are never listed.
    /// Poisoned, it lists nothing: which MANIFEST CURRENT names is then unknown (invariant 3).
    /// Call it under the database lock after `log_and_apply` returned: the edits that dropped
    /// these files are durable by then.
    pub fn obsolete_files(&self, listing: &[String]) -> Vec<String> {
        if self.is_poisoned() || self.apply_in_flight {
            return Vec::new();
        }
        let live = self.live_files();
        let min_log = self.min_log_number_to_keep();
        let pending = self.pending_outputs.lock().clone();
        let obsolete = |name: &String| match parse_file_name(name) {
            Some((FileType::Table, n)) => !live.contains(&n),
            Some((FileType::Log, n)) => n < min_log && n != self.state.prev_log_number,
            Some((FileType::Manifest, n)) => n != self.manifest_number,
            Some((FileType::Temp, n)) => !pending.contains_key(&n),
            _ => false,
        };
        listing.iter().filter(|n| obsolete(n)).cloned().collect()
    }

    /// A canonical text of the durable logical state: counters except `next_file_number` (which
    /// recovery may legitimately raise), every column family, its log number, files and compaction cursors. Two
    /// sets with the same dump hold the same data. For tests and tools; one line per file.
    pub fn dump(&self) -> String {
        let s = &self.state;
        let mut out = format!(
            "last_sequence {} prev_log_number {} max_column_family {}\n",
            s.last_sequence, s.prev_log_number, s.max_column_family
        );
        for (id, cf) in &s.cfs {
            out += &format!("cf {id} {:?} log_number {}\n", cf.name, cf.log_number);
            for (level, f) in cf.current.all_files() {
                out += &format!("  L{level} {f:?}\n");
            }
            for (level, key) in cf.current.compact_cursors().iter().enumerate() {
                if let Some(key) = key {
                    out += &format!("  L{level} compact_cursor {key:?}\n");
                }
            }
        }
        out
    }
}
