//! A MANIFEST change in three steps, so that its file I/O can run with the database's lock
//! released: [`VersionSet::begin_apply`](super::VersionSet::begin_apply) prepares it under the
//! lock, [`PendingApply::write`] writes and syncs it without, and
//! [`VersionSet::finish_apply`](super::VersionSet::finish_apply) installs it. Also the writing of
//! a new MANIFEST (snapshot, edits, CURRENT switch), shared with database creation.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::edit::VersionEdit;
use super::manifest::{set_current, ManifestWriter};
use super::set::{PendingOutput, State};
use crate::error::{Error, Result};
use crate::fs::FileSystem;

/// A MANIFEST change whose file I/O runs while the caller's lock on the set is released:
/// [`VersionSet::begin_apply`] prepares it, [`PendingApply::write`] writes and syncs it,
/// [`VersionSet::finish_apply`] installs it (or poisons the set).
///
/// The write needs nothing of the set: the edits, the snapshot that starts a new MANIFEST and the
/// writer of the open one are all carried here. The set refuses a second change while one is in
/// flight, and lists no obsolete files then (a new MANIFEST and CURRENT's temporary file exist
/// before the set knows them).
#[must_use = "a begun change must be finished with VersionSet::finish_apply"]
pub struct PendingApply {
    pub(super) fs: Arc<dyn FileSystem>,
    pub(super) dir: PathBuf,
    pub(super) edits: Vec<VersionEdit>,
    pub(super) next: State,
    /// Appending to the open MANIFEST: its writer, taken from the set until the change finishes.
    pub(super) writer: Option<ManifestWriter>,
    /// Starting a new MANIFEST: its number (protected while the change is in flight), the
    /// snapshot of the state before the change, and, once written, its writer.
    pub(super) roll: Option<(PendingOutput, Vec<VersionEdit>, Option<ManifestWriter>)>,
}

impl fmt::Debug for PendingApply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingApply")
            .field("edits", &self.edits.len())
            .field("roll", &self.roll.as_ref().map(|r| r.0.number()))
            .finish_non_exhaustive()
    }
}

impl PendingApply {
    /// Writes and syncs the change: appended to the open MANIFEST, or as a new MANIFEST (the
    /// snapshot, then the change) that CURRENT is then switched to. Needs no lock.
    ///
    /// # Errors
    /// I/O errors; pass the result to [`VersionSet::finish_apply`], which poisons the set.
    pub fn write(&mut self) -> Result<()> {
        match &mut self.roll {
            Some((number, snapshot, written)) => {
                let writer = write_new_manifest(
                    &*self.fs,
                    &self.dir,
                    number.number(),
                    snapshot,
                    &self.edits,
                )?;
                *written = Some(writer);
                Ok(())
            }
            None => {
                let writer = self
                    .writer
                    .as_mut()
                    .ok_or_else(|| Error::Poisoned("no MANIFEST is open".into()))?;
                add_group(writer, &self.edits)?;
                writer.sync()
            }
        }
    }
}

/// Writes MANIFEST-`number`: `snapshot` (the whole state), then `edits`; syncs it and its
/// directory entry, then points CURRENT at it. The snapshot makes the new MANIFEST complete on
/// its own, so the old one (and any torn tail in it) is never read again.
pub(super) fn write_new_manifest(
    fs: &dyn FileSystem,
    dir: &Path,
    number: u64,
    snapshot: &[VersionEdit],
    edits: &[VersionEdit],
) -> Result<ManifestWriter> {
    let mut writer = ManifestWriter::create(fs, dir, number)?;
    writer.add_atomic_group(snapshot)?;
    if !edits.is_empty() {
        add_group(&mut writer, edits)?;
    }
    writer.sync()?;
    // The new MANIFEST's name must be durable before CURRENT can name it: otherwise a power cut
    // could keep the renamed CURRENT but lose the MANIFEST's directory entry.
    fs.sync_dir(dir)?;
    set_current(fs, dir, number)?;
    Ok(writer)
}

fn add_group(writer: &mut ManifestWriter, edits: &[VersionEdit]) -> Result<()> {
    match edits {
        [one] => writer.add_edit(one),
        many => writer.add_atomic_group(many),
    }
}
