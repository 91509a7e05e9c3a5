//! Version edits, the MANIFEST log and the CURRENT protocol: how the set of live files is made
//! durable. Byte-level specification: `docs/format/manifest.md`.
//!
//! Who calls it: the version set ([`set`]) writes one [`VersionEdit`] per change of the file
//! set through a [`ManifestWriter`] and points CURRENT at a new MANIFEST with [`set_current`];
//! recovery ([`recovery`]) reads CURRENT with [`read_current`] and replays the MANIFEST with a
//! [`ManifestReader`]; tools dump both. [`filenames`] names every file of a database directory.
//! This module holds no database state and starts no threads.
//!
//! Invariants:
//! 1. An edit takes effect only after the MANIFEST record holding it is synced; a torn MANIFEST
//!    tail therefore holds only edits that never took effect.
//! 2. CURRENT always names a complete, synced MANIFEST: the MANIFEST is synced before
//!    [`set_current`] runs, and CURRENT is replaced atomically (temp file, fsync, rename,
//!    directory fsync).
//! 3. Persisted tag numbers and the format version only move forward (see [`edit`]).

mod apply;
pub mod builder;
pub mod edit;
pub mod filenames;
pub mod manifest;
pub mod recovery;
pub mod set;
// The file is named as the concept (LevelDB's version_set / Pebble's version.go); the module
// path `version::version` is the price.
#[allow(clippy::module_inception)]
pub mod version;

pub use builder::VersionBuilder;
pub use edit::{
    CompactCursor, DeletedFile, EntryStats, FileChecksum, FileMetaData, NewFile, VersionEdit,
    FORMAT_VERSION, MAX_LEVELS, SAFE_IGNORE_MASK,
};
pub use filenames::{parse_file_name, FileType};
pub use manifest::{read_current, set_current, ManifestEntry, ManifestReader, ManifestWriter};
pub use recovery::{column_family_names, RecoveryReport};
pub use set::{
    ColumnFamilyInfo, PendingApply, PendingOutput, VersionSet, VersionSetOptions,
    BYTEWISE_COMPARATOR, DEFAULT_CF_ID, DEFAULT_CF_NAME,
};
pub use version::{Version, DEFAULT_NUM_LEVELS};

#[cfg(test)]
mod set_tests;
#[cfg(test)]
mod tests;
