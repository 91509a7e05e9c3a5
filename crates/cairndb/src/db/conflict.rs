//! Write-conflict checks for transactions: the sequence number of the newest write to a key,
//! whatever it was (a put, a deletion, a merge operand, or a range deletion covering the key).
//!
//! Who calls it: a pessimistic transaction with a snapshot, right after it locks a key (a write
//! published after its snapshot means the transaction would overwrite a value it never saw:
//! `Busy`), and an optimistic transaction at commit, for every key it read or wrote. RocksDB
//! calls this `GetLatestSequenceForKey`.
//!
//! Invariants:
//! 1. The answer is read at the largest sequence number, not at the published one: a caller
//!    that holds the key's lock knows every other writer of the key has finished, and a caller
//!    that does not must count a write still being inserted as newer than its snapshot.
//! 2. Memtables hold only sequence numbers above every table's (db contract 4), so the first
//!    memtable that knows the key has the newest write; below them, the newest point entry of
//!    the tables and the newest range tombstone of any table covering the key are compared.

use super::{CfData, ColumnFamily, Db, DbInner};
use crate::error::Result;
use crate::memtable::MemGet;
use crate::sstable::BlockReadOptions;
use crate::types::{SequenceNumber, MAX_SEQUENCE};

impl Db {
    /// The sequence number of the newest write that touched `key` in `cf` (`None`: no write
    /// the database still holds). See the module documentation.
    pub(crate) fn latest_sequence_for_key(
        &self,
        cf: Option<&ColumnFamily>,
        key: &[u8],
    ) -> Result<Option<SequenceNumber>> {
        let cf = cf.map_or(&self.inner.default_cf, |c| &c.data);
        self.inner.latest_sequence_for_key(cf, key)
    }
}

impl DbInner {
    fn latest_sequence_for_key(&self, cf: &CfData, key: &[u8]) -> Result<Option<SequenceNumber>> {
        self.check_open()?;
        cf.check_live()?;
        let view = cf.read_view();
        for mem in std::iter::once(&view.mem).chain(view.imms.iter()) {
            match mem.get(key, MAX_SEQUENCE) {
                None => {}
                Some(MemGet::Value { seq, .. })
                | Some(MemGet::Deleted { seq, .. })
                | Some(MemGet::Merge { seq, .. }) => return Ok(Some(seq)),
            }
        }
        let covering = self
            .view_tombstones(cf, &view)?
            .max_covering_seq(key, MAX_SEQUENCE);
        let ro = BlockReadOptions::default();
        for (_, file) in view.version.files_for_get(key) {
            let table = cf.table_cache.get_table(file.number, file.size)?;
            if let Some(hit) = table.get_pinned_with(key, MAX_SEQUENCE, ro)? {
                return Ok(Some(covering.map_or(hit.seq(), |t| t.max(hit.seq()))));
            }
        }
        Ok(covering)
    }
}
