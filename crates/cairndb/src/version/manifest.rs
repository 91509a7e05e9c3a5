//! The MANIFEST log (version edits in WAL framing) and the CURRENT file that names it.
//! Specification: `docs/format/manifest.md`; framing: `docs/format/wal.md`.
//!
//! Called by the version set (one writer, under its lock), by recovery and by tools. A
//! [`ManifestWriter`] owns the open MANIFEST; a [`ManifestReader`] owns a [`LogReader`] on one.
//!
//! Invariants:
//! 1. One record holds one encoded [`VersionEdit`]; the log number of the framing is the
//!    MANIFEST's file number, so a MANIFEST renamed or copied over another is detected.
//! 2. The edits of an atomic group are written back to back, each carrying the count of edits
//!    that follow it (`n-1, ..., 0`); the reader returns a group only when it is complete, so a
//!    crash in the middle of a group applies none of it.
//! 3. Reading is strict: any damage is [`Error::Corruption`] with the file and offset, except a
//!    torn tail (including an incomplete atomic group at the end), which is returned as
//!    [`ManifestEntry::TornTail`] so recovery can decide: the edits in it were never synced, so
//!    no one was told they took effect.
//! 4. CURRENT is replaced only through [`crate::fs::write_atomic`]; [`read_current`] accepts
//!    exactly `MANIFEST-NNNNNN\n` and nothing else.

use std::path::{Path, PathBuf};

use super::edit::VersionEdit;
use super::filenames::{manifest_file_name, parse_file_name, FileType, CURRENT_FILE_NAME};
use crate::error::{Error, Result};
use crate::fs::{write_atomic, FileSystem, WritableFile};
use crate::wal::{Damage, DamageKind, LogEvent, LogReader, LogWriter};

/// A CURRENT file longer than this cannot name a MANIFEST (`MANIFEST-` + 20 digits + newline).
const MAX_CURRENT_BYTES: u64 = 64;

/// Appends version edits to a MANIFEST. See the module contract.
#[derive(Debug)]
pub struct ManifestWriter {
    log: LogWriter,
    path: PathBuf,
    buf: Vec<u8>,
}

impl ManifestWriter {
    /// Creates `dir/MANIFEST-NNNNNN` (replacing a file of that name) for writing.
    ///
    /// # Errors
    /// I/O errors creating the file.
    pub fn create(fs: &dyn FileSystem, dir: &Path, manifest_number: u64) -> Result<ManifestWriter> {
        let path = dir.join(manifest_file_name(manifest_number));
        let file = fs.create(&path)?;
        Ok(ManifestWriter::new(file, &path, manifest_number))
    }

    /// A writer appending to `file`, named `path`, the MANIFEST numbered `manifest_number`.
    pub fn new(file: Box<dyn WritableFile>, path: &Path, manifest_number: u64) -> ManifestWriter {
        ManifestWriter {
            log: LogWriter::new(file, manifest_number, 0),
            path: path.to_path_buf(),
            buf: Vec::new(),
        }
    }

    /// Appends one edit (not yet durable: call [`sync`](Self::sync) before acting on it).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if the edit breaks a rule of [`VersionEdit::validate`] or sets
    /// its atomic-group field (use [`add_atomic_group`](Self::add_atomic_group)); I/O errors, after
    /// which the writer is poisoned.
    pub fn add_edit(&mut self, edit: &VersionEdit) -> Result<()> {
        if edit.atomic_group_remaining.is_some() {
            return Err(Error::InvalidArgument(
                "use add_atomic_group for atomic groups".into(),
            ));
        }
        self.append(edit, None)
    }

    /// Appends `edits` as one atomic group: recovery applies all of them or none. The caller
    /// leaves their atomic-group fields unset; the writer fills them in.
    ///
    /// # Errors
    /// As [`add_edit`](Self::add_edit).
    pub fn add_atomic_group(&mut self, edits: &[VersionEdit]) -> Result<()> {
        if edits.iter().any(|e| e.atomic_group_remaining.is_some()) {
            return Err(Error::InvalidArgument(
                "atomic group fields are set by the writer".into(),
            ));
        }
        let n = u32::try_from(edits.len())
            .map_err(|_| Error::InvalidArgument("atomic group too large".into()))?;
        for (edit, i) in edits.iter().zip(0u32..) {
            self.append(edit, Some(n - 1 - i))?;
        }
        Ok(())
    }

    /// Makes every appended edit durable.
    ///
    /// # Errors
    /// The I/O error; the writer is poisoned afterwards and the MANIFEST must be abandoned.
    pub fn sync(&mut self) -> Result<()> {
        self.log.sync()
    }

    /// The MANIFEST's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The MANIFEST's size so far, in bytes (to decide when to start a new one).
    pub fn len(&self) -> u64 {
        self.log.len()
    }

    /// True when nothing was written yet.
    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
    }

    fn append(&mut self, edit: &VersionEdit, group: Option<u32>) -> Result<()> {
        edit.validate()
            .map_err(|why| Error::InvalidArgument(format!("version edit: {why}")))?;
        self.buf.clear();
        edit.encode_with_group(&mut self.buf, group);
        self.log.add_record(&self.buf)?;
        Ok(())
    }
}

/// What [`ManifestReader::next_entry`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestEntry {
    /// Edits to apply together: one plain edit, or every edit of a complete atomic group.
    Edits(Vec<VersionEdit>),
    /// The MANIFEST ends in a torn record or an incomplete atomic group: nothing after it was
    /// durable. The next call returns `None`.
    TornTail(Damage),
}

/// Reads the edits of one MANIFEST strictly. See the module contract.
#[derive(Debug)]
pub struct ManifestReader {
    log: LogReader,
    group: Vec<VersionEdit>,
    group_start: u64,
    /// Offset of the first record of the entry returned last.
    entry_offset: u64,
    done: bool,
}

impl ManifestReader {
    /// Opens the MANIFEST at `path`, numbered `manifest_number`.
    ///
    /// # Errors
    /// I/O errors opening the file.
    pub fn open(fs: &dyn FileSystem, path: &Path, manifest_number: u64) -> Result<ManifestReader> {
        Ok(ManifestReader::new(LogReader::open(
            fs,
            path,
            manifest_number,
        )?))
    }

    /// A reader over an open log reader positioned at the MANIFEST's start.
    pub fn new(log: LogReader) -> ManifestReader {
        ManifestReader {
            log,
            group: Vec::new(),
            group_start: 0,
            entry_offset: 0,
            done: false,
        }
    }

    /// The next edit or complete atomic group, a torn tail, or `None` at the end.
    ///
    /// # Errors
    /// [`Error::Corruption`] naming the file and offset for damage that is not a torn tail, for
    /// an undecodable edit or a malformed atomic group; [`Error::NotSupported`] for an edit from a
    /// newer version; I/O errors.
    pub fn next_entry(&mut self) -> Result<Option<ManifestEntry>> {
        let entry = self.read_entry();
        // After an error nothing more is read: entries past damage must not be applied.
        self.done |= entry.is_err();
        entry
    }

    fn read_entry(&mut self) -> Result<Option<ManifestEntry>> {
        while !self.done {
            match self.log.next_event()? {
                None => return Ok(self.at_end()),
                Some(LogEvent::Damage(d)) if d.kind == DamageKind::TornTail => {
                    return Ok(Some(self.torn(d)));
                }
                Some(LogEvent::Damage(d)) => return Err(d.to_error()),
                Some(LogEvent::Record(r)) => {
                    let edit =
                        VersionEdit::decode(&r.data).map_err(|e| self.locate(e, r.offset))?;
                    if let Some(edits) = self.feed(edit, r.offset)? {
                        return Ok(Some(ManifestEntry::Edits(edits)));
                    }
                }
            }
        }
        Ok(None)
    }

    /// Adds an edit to the group being assembled; returns the edits once they can be applied.
    fn feed(&mut self, edit: VersionEdit, offset: u64) -> Result<Option<Vec<VersionEdit>>> {
        let expected = self
            .group
            .last()
            .and_then(|e| e.atomic_group_remaining)
            .map(|r| r.checked_sub(1));
        match (edit.atomic_group_remaining, expected) {
            (None, None) => {
                self.entry_offset = offset;
                return Ok(Some(vec![edit]));
            }
            (Some(_), None) => self.group_start = offset,
            (Some(remaining), Some(Some(want))) if remaining == want => {}
            (got, _) => {
                let message = format!(
                    "edit with atomic-group count {got:?} breaks the group started at offset {}",
                    self.group_start
                );
                return Err(Error::corruption(self.log.path(), offset, message));
            }
        }
        let last = edit.atomic_group_remaining == Some(0);
        if last {
            self.entry_offset = self.group_start;
        }
        self.group.push(edit);
        Ok(last.then(|| std::mem::take(&mut self.group)))
    }

    /// The file offset where the entry returned last by [`next_entry`](Self::next_entry)
    /// starts (its first record), so that a caller that finds the edits inconsistent can name
    /// the place.
    pub fn entry_offset(&self) -> u64 {
        self.entry_offset
    }

    /// The MANIFEST's path.
    pub fn path(&self) -> &Path {
        self.log.path()
    }

    /// Clean end of file, unless an atomic group is incomplete.
    fn at_end(&mut self) -> Option<ManifestEntry> {
        self.done = true;
        if self.group.is_empty() {
            return None;
        }
        let end = self.log.file_size();
        Some(ManifestEntry::TornTail(Damage {
            kind: DamageKind::TornTail,
            file: self.log.path().to_path_buf(),
            offset: self.group_start,
            bytes_dropped: end - self.group_start,
            detected_at: end,
            reason: format!("atomic group ends after {} edits", self.group.len()),
            checksums: None,
        }))
    }

    /// A torn tail; an incomplete group before it is dropped with it.
    fn torn(&mut self, mut d: Damage) -> ManifestEntry {
        self.done = true;
        if !self.group.is_empty() {
            d.bytes_dropped += d.offset - self.group_start;
            d.offset = self.group_start;
            self.group.clear();
        }
        ManifestEntry::TornTail(d)
    }

    /// Names the file and the record's offset in a decoding error.
    fn locate(&self, e: Error, offset: u64) -> Error {
        match e.as_corruption() {
            Some(c) => {
                let message = format!("{} (byte {} of the record)", c.message, c.offset);
                Error::corruption(self.log.path(), offset, message)
            }
            None => e.context(format!(
                "edit at offset {offset} of {}",
                self.log.path().display()
            )),
        }
    }
}

/// Points CURRENT at `MANIFEST-NNNNNN`: writes a temporary file, syncs it, renames it over
/// CURRENT and syncs the directory, so a crash leaves either the old or the new CURRENT. The
/// MANIFEST itself must already be synced.
///
/// # Errors
/// I/O errors; after one, CURRENT is the old or the new one, and which is unknown until reread.
pub fn set_current(fs: &dyn FileSystem, dir: &Path, manifest_number: u64) -> Result<()> {
    let content = format!("{}\n", manifest_file_name(manifest_number));
    write_atomic(fs, &dir.join(CURRENT_FILE_NAME), content.as_bytes())
}

/// The number of the MANIFEST that `dir/CURRENT` names.
///
/// # Errors
/// [`Error::Corruption`] if CURRENT is not exactly `MANIFEST-NNNNNN\n` (torn, empty, too long,
/// a bad name); I/O errors (NotFound when there is no CURRENT).
pub fn read_current(fs: &dyn FileSystem, dir: &Path) -> Result<u64> {
    let path = dir.join(CURRENT_FILE_NAME);
    let file = fs.open_read(&path)?;
    let size = file.size()?;
    if size > MAX_CURRENT_BYTES {
        return Err(Error::corruption(
            &path,
            0,
            format!("CURRENT is {size} bytes, too long"),
        ));
    }
    let mut buf = vec![0; size as usize];
    file.read_exact_at(0, &mut buf)?;
    parse_current(&buf).ok_or_else(|| {
        let shown = String::from_utf8_lossy(&buf);
        Error::corruption(
            &path,
            0,
            format!("CURRENT does not hold \"MANIFEST-NNNNNN\\n\": {shown:?}"),
        )
    })
}

fn parse_current(content: &[u8]) -> Option<u64> {
    let name = std::str::from_utf8(content).ok()?.strip_suffix('\n')?;
    match parse_file_name(name)? {
        (FileType::Manifest, n) => Some(n),
        _ => None,
    }
}
