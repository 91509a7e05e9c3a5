//! The write batches in the live WALs from a sequence number on (RocksDB's `GetUpdatesSince`
//! and its `TransactionLogIterator`): for replication and change capture.
//!
//! Contract:
//! 1. The iterator yields, in sequence order, every batch published before it was made whose
//!    sequence numbers reach the requested one: first the batch that holds it (or the first
//!    after it), then each later one, with its first sequence number. A prepared
//!    transaction's records come once, with its commit (the commit record carries them; its
//!    marker is taken off); prepare and rollback records, and batches of no records, are left
//!    out.
//! 2. Only the WALs in the directory are read: the live ones, and flushed ones not deleted yet
//!    (a pause of file deletions, by `Db::disable_file_deletions`, a checkpoint or another
//!    iterator, keeps them). CairnDB keeps no WAL archive, so a sequence number older than the
//!    oldest WAL's first batch is `NotFound`, as is one not yet written. Writes that skip the
//!    WAL (`disable_wal`) and ingested files take sequence numbers no WAL holds: asking for
//!    one of those, or for the one before a run of them, is `NotFound` too.
//! 3. File deletions are paused while the iterator lives, so no WAL it will read is deleted
//!    under it (a sweep that chose its files before the pause may still delete one the
//!    iterator listed: reading it then fails with the I/O error).
//! 4. Damage in a WAL is reported as an error item (`Corruption` naming the file), after which
//!    the iterator ends; the unfinished last record of the WAL being written is its end.

use std::path::PathBuf;
use std::sync::Arc;

use super::install::DeletionPause;
use super::Db;
use crate::batch::{MarkerKind, WriteBatch};
use crate::error::{Error, Result};
use crate::types::SequenceNumber;
use crate::version::filenames::log_file_name;
use crate::version::{parse_file_name, FileType};
use crate::wal::{DamageKind, LogEvent, LogReader};

/// Batches from the live WALs. See the module contract.
pub struct WalUpdates {
    /// The WALs still to read, oldest first, with their log numbers.
    logs: std::vec::IntoIter<(u64, PathBuf)>,
    reader: Option<LogReader>,
    fs: Arc<dyn crate::fs::FileSystem>,
    /// Batches whose last sequence number is below this are skipped.
    from: SequenceNumber,
    /// The last sequence number published when the iterator was made.
    last: SequenceNumber,
    done: bool,
    /// The first batch, read ahead by `get_updates_since` to check it.
    pending: Option<(SequenceNumber, WriteBatch)>,
    _pause: DeletionPause,
}

impl std::fmt::Debug for WalUpdates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalUpdates")
            .field("from", &self.from)
            .field("last", &self.last)
            .field("done", &self.done)
            .finish()
    }
}

impl Db {
    /// The write batches in the live WALs from sequence number `seq` on (see the module
    /// contract of `db/wal_updates.rs`).
    ///
    /// # Errors
    /// [`Error::NotFound`] when `seq` is above the last published sequence number, or older
    /// than the oldest batch the live WALs hold; [`Error::Closed`]; I/O errors listing the
    /// directory.
    pub fn get_updates_since(&self, seq: SequenceNumber) -> Result<WalUpdates> {
        let inner = &self.inner;
        let _call = inner.begin_call()?;
        // Taken under the state lock, where sweeps decide what to delete: every sweep that
        // starts after this sees the pause.
        let pause = {
            let _st = inner.state.lock();
            DeletionPause::new(inner)
        };
        let last = self.latest_sequence();
        if seq > last {
            return Err(Error::NotFound(format!(
                "sequence number {seq} is not written yet (the last is {last})"
            )));
        }
        let mut logs: Vec<(u64, PathBuf)> = inner
            .fs
            .list(&inner.dir)?
            .iter()
            .filter_map(|name| match parse_file_name(name) {
                Some((FileType::Log, n)) => Some((n, inner.dir.join(log_file_name(n)))),
                _ => None,
            })
            .collect();
        logs.sort_unstable();
        let mut it = WalUpdates {
            logs: logs.into_iter(),
            reader: None,
            fs: Arc::clone(&inner.fs),
            from: seq,
            last,
            done: false,
            pending: None,
            _pause: pause,
        };
        // A request older than what the WALs hold cannot be answered: its batches were flushed
        // and their WALs deleted. Peeking the first batch tells.
        let first = it.next_batch()?;
        let gone = match &first {
            Some((first_seq, _)) => *first_seq > seq.saturating_add(1),
            None => seq < last,
        };
        if gone {
            return Err(Error::NotFound(format!(
                "sequence number {seq} is no longer in the WALs: flushed writes are not kept \
                 in WAL files"
            )));
        }
        it.pending = first;
        Ok(it)
    }
}

impl WalUpdates {
    /// The next batch that reaches `from` and was published before the iterator was made.
    fn next_batch(&mut self) -> Result<Option<(SequenceNumber, WriteBatch)>> {
        while !self.done {
            let Some(reader) = self.reader.as_mut() else {
                match self.logs.next() {
                    Some((number, path)) => {
                        self.reader = Some(LogReader::open(&*self.fs, &path, number)?);
                        continue;
                    }
                    None => {
                        self.done = true;
                        break;
                    }
                }
            };
            let record = match reader.next_event()? {
                Some(LogEvent::Record(r)) => r,
                Some(LogEvent::Damage(d)) => {
                    if d.kind == DamageKind::Corruption {
                        self.done = true;
                        return Err(d.to_error());
                    }
                    // A torn tail (the record being appended) or an old log's bytes: the end
                    // of this WAL.
                    self.reader = None;
                    continue;
                }
                None => {
                    self.reader = None;
                    continue;
                }
            };
            let batch =
                WriteBatch::from_bytes(record.data).map_err(|e| e.in_file(reader.path()))?;
            // Two-phase commit: a prepared transaction's records become updates only with its
            // commit record, which carries them again; prepare and rollback records are none.
            let batch = match batch.marker() {
                None => batch,
                Some((MarkerKind::Commit, _)) => batch.without_marker(),
                Some((MarkerKind::Prepare | MarkerKind::Rollback, _)) => continue,
            };
            let (first, count) = (batch.sequence(), u64::from(batch.count()));
            if count == 0 {
                continue;
            }
            if first > self.last {
                self.done = true;
                break;
            }
            if first + count - 1 < self.from {
                continue;
            }
            return Ok(Some((first, batch)));
        }
        Ok(None)
    }
}

impl Iterator for WalUpdates {
    type Item = Result<(SequenceNumber, WriteBatch)>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(first) = self.pending.take() {
            return Some(Ok(first));
        }
        match self.next_batch() {
            Ok(b) => b.map(Ok),
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
