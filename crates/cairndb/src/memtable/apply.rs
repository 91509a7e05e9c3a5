//! Applying a write batch to the memtables of its column families.
//!
//! Who calls it: the commit path after a group's WAL record is written (`db/write.rs`): with
//! `allow_concurrent_memtable_write` (the default) each member of a group of several applies its
//! own batch on its own thread, concurrently with the others (their sequence numbers are
//! distinct, and the skiplist takes concurrent inserts); otherwise, and for a group of one, the
//! leader applies the group's combined batch alone. Recovery calls it for every replayed batch.
//!
//! Invariant: record `i` of the batch is inserted with sequence number `batch.sequence() + i`
//! (batch invariant 2), records of one column family go through one [`MemTableInserter`], so a
//! batch of ascending keys reuses its search path from record to record.

use super::{MemTable, MemTableInserter};
use crate::batch::WriteBatch;
use crate::error::Result;

/// Inserts every record of `batch` into the memtable that `memtable_for` returns for the
/// record's column family; `Ok(None)` skips the family's records (RocksDB's
/// `ignore_missing_column_families`).
///
/// # Errors
/// The first error of `memtable_for` or of [`MemTable::add`] (a read-only memtable, or an entry
/// already present: both bugs of the caller, since a batch's sizes were validated when it was
/// built or decoded). Records before the failing one stay inserted, so the caller must treat
/// the error as fatal for the database (it never acknowledges the write).
pub fn insert_batch<'m>(
    batch: &WriteBatch,
    mut memtable_for: impl FnMut(u32) -> Result<Option<&'m MemTable>>,
) -> Result<()> {
    // Batches rarely touch more than a few column families: a vector beats a map here.
    let mut inserters: Vec<(u32, Option<MemTableInserter<'m>>)> = Vec::new();
    for (i, entry) in batch.iter().enumerate() {
        let e = entry?;
        let slot = match inserters.iter().position(|(cf, _)| *cf == e.cf) {
            Some(slot) => slot,
            None => {
                let inserter = memtable_for(e.cf)?.map(MemTable::inserter);
                inserters.push((e.cf, inserter));
                inserters.len() - 1
            }
        };
        if let Some(ins) = &mut inserters[slot].1 {
            ins.add(batch.sequence() + i as u64, e.kind, e.key, e.value)?;
        }
    }
    Ok(())
}
