//! The write-ahead log: records framed into fixed-size blocks, each fragment checksummed and
//! stamped with its log number. Byte-level specification: `docs/format/wal.md`.
//!
//! Who calls it: the database's commit pipeline writes one record per write group through a
//! [`LogWriter`]; recovery reads the logs back through a [`LogReader`]; the MANIFEST
//! ([`crate::version::manifest`]) reuses the same framing. This module owns no file names, does
//! not decide when to roll logs and assigns no sequence numbers.
//!
//! Invariants:
//! 1. A record read back is byte-identical to a record written to the same log, or it is not
//!    returned at all: damage surfaces as a [`Damage`] event or a
//!    [`Corruption`](crate::Error::Corruption) error naming the file and the offset.
//! 2. A [`DamageKind::TornTail`] has no valid fragment of the log after it, so tolerating it never
//!    drops a record that a later valid record depends on. Damage with valid data after it is
//!    always [`DamageKind::Corruption`].
//! 3. [`WalRecoveryMode::on_damage`] is a pure policy: given one damage event, it says whether to
//!    fail, stop or skip. The database applies it; the reader never decides.

mod format;
mod reader;
mod sync;
mod writer;

pub use format::{
    fragment_checksum, log_number_tag, FragmentHeader, FragmentType, BLOCK_SIZE, HEADER_SIZE,
    MAX_FRAGMENT_PAYLOAD, SAFE_IGNORE_TYPE_BIT,
};
pub use reader::{Damage, DamageKind, LogEvent, LogReader, Record};
pub use sync::LogSync;
pub use writer::{LogWriter, RecordHandle, MAX_APPEND_BYTES};

/// How recovery treats damaged logs: RocksDB's `WALRecoveryMode`, same names and meanings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WalRecoveryMode {
    /// `kTolerateCorruptedTailRecords`: a torn tail (what a crash leaves) is dropped; damage
    /// followed by valid data fails recovery. The default.
    #[default]
    TolerateCorruptedTailRecords,
    /// `kAbsoluteConsistency`: any damage fails recovery, a torn tail included.
    AbsoluteConsistency,
    /// `kPointInTimeRecovery`: recovery stops at the first damage and keeps everything before
    /// it; the database must then also ignore every later log, so the result is a prefix.
    PointInTimeRecovery,
    /// `kSkipAnyCorruptedRecords`: salvage; every damaged record is skipped and reading goes on.
    SkipAnyCorruptedRecords,
}

/// What recovery does with one [`Damage`] event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DamageAction {
    /// Recovery fails with [`Damage::to_error`].
    Fail,
    /// Keep the records read so far; read nothing more from this log.
    StopHere,
    /// Drop the damaged bytes and keep reading this log.
    Skip,
}

impl WalRecoveryMode {
    /// The action this mode takes on `damage`.
    ///
    /// An old log number ends the log in every mode but salvage, as in RocksDB: it is what a
    /// recycled log file holds after the last record written to it.
    pub fn on_damage(self, damage: &Damage) -> DamageAction {
        use DamageKind::{Corruption, OldLogNumber, TornTail};
        match (self, damage.kind) {
            (WalRecoveryMode::SkipAnyCorruptedRecords, _) => DamageAction::Skip,
            (WalRecoveryMode::PointInTimeRecovery, _) => DamageAction::StopHere,
            (_, OldLogNumber) => DamageAction::StopHere,
            (WalRecoveryMode::TolerateCorruptedTailRecords, TornTail) => DamageAction::StopHere,
            (WalRecoveryMode::TolerateCorruptedTailRecords, Corruption) => DamageAction::Fail,
            (WalRecoveryMode::AbsoluteConsistency, TornTail | Corruption) => DamageAction::Fail,
        }
    }
}

#[cfg(test)]
mod tests;
