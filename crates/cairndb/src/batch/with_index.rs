//! A write batch that can be read back: RocksDB's `WriteBatchWithIndex`.
//!
//! Who calls it: a transaction keeps its pending writes in one (read-your-own-writes), and users
//! may build one on their own to read a batch before committing it. The batch itself is an
//! ordinary [`WriteBatch`] ([`WriteBatchWithIndex::batch`]) that commits as any other; next to it
//! an index keeps, per column family and key, what the batch makes of the key so far.
//!
//! Invariants:
//! 1. The index always equals a replay of the batch's records in order: for each key touched, the
//!    last put or deletion (a range deletion counts for every key it covers), with the merge
//!    operands written after it. Every mutator appends the record to the batch first and changes
//!    the index only when that succeeded, so a refused write changes neither.
//! 2. A key the batch does not name but a range deletion of the batch covers reads as deleted,
//!    whatever the database holds.
//! 3. Merge operands on top of a base the batch does not hold (`MergeOnto::Db`) are folded onto
//!    the database's value at read time; on a base the batch holds, onto that base.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;

use super::{WriteBatch, DEFAULT_CF};
use crate::comparator::KeyOrder;
use crate::db::{ColumnFamily, Db};
use crate::error::{Error, Result};
use crate::merge::MergeOperator;
use crate::options::ReadOptions;
use crate::types::ValueKind;

/// What the batch makes of one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// The last write was a put.
    Put(Vec<u8>),
    /// The last write was a deletion (point, single or range).
    Deleted,
    /// Merge operands (oldest first) on top of `onto`.
    Merge {
        onto: MergeOnto,
        operands: Vec<Vec<u8>>,
    },
}

/// What a batch's merge operands apply to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MergeOnto {
    /// The database's value (the batch holds no base).
    Db,
    /// A value the batch put.
    Value(Vec<u8>),
    /// A deletion in the batch.
    Deleted,
}

/// The index of one column family.
#[derive(Debug, Clone, Default)]
pub(crate) struct CfIndex {
    /// By key, bytewise (the map's own order); readers that need the family's order sort a view
    /// of it (`with_index_iter.rs`).
    pub(crate) keys: BTreeMap<Vec<u8>, Entry>,
    /// The batch's range deletions of this family, `[begin, end)` in `order`, in batch order.
    pub(crate) ranges: Vec<(Vec<u8>, Vec<u8>)>,
    /// The order of the family's keys.
    pub(crate) order: KeyOrder,
}

impl CfIndex {
    fn new(order: KeyOrder) -> CfIndex {
        CfIndex {
            order,
            ..CfIndex::default()
        }
    }

    /// Whether a range deletion of the batch covers `key`.
    pub(crate) fn range_deleted(&self, key: &[u8]) -> bool {
        let o = &self.order;
        self.ranges
            .iter()
            .any(|(b, e)| o.compare(b, key).is_le() && o.compare(key, e).is_lt())
    }

    /// The batch's answer for `key` (invariant 2), `None` when the batch says nothing.
    pub(crate) fn lookup(&self, key: &[u8]) -> Option<&Entry> {
        const DELETED: &Entry = &Entry::Deleted;
        match self.keys.get(key) {
            Some(e) => Some(e),
            None if self.range_deleted(key) => Some(DELETED),
            None => None,
        }
    }
}

/// What [`WriteBatchWithIndex::get_from_batch`] found in the batch alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchLookup {
    /// The batch does not write the key.
    NotFound,
    /// The batch deletes the key (a point or range deletion is its last write).
    Deleted,
    /// The key's value as the batch leaves it.
    Value(Vec<u8>),
    /// The batch holds merge operands but no base: the value depends on the database (RocksDB's
    /// `MergeInProgress`). [`WriteBatchWithIndex::get_from_batch_and_db`] folds them.
    MergeInProgress,
}

/// A [`WriteBatch`] with an index, so that it can be read back: alone
/// ([`get_from_batch`](Self::get_from_batch)), over the database
/// ([`get_from_batch_and_db`](Self::get_from_batch_and_db)), or as an iterator merged with the
/// database's ([`iter_with_base`](Self::iter_with_base)). Committing it is
/// `db.write(&opts, wbwi.into_batch())`. Writing a key twice keeps both records in the batch (both
/// are committed, as in RocksDB); reads see the last.
///
/// ```
/// use cairndb::options::{Options, ReadOptions, WriteOptions};
/// use cairndb::{BatchLookup, Db, WriteBatchWithIndex};
///
/// # fn main() -> cairndb::Result<()> {
/// # let dir = tempfile::tempdir().expect("temporary directory");
/// # let mut options = Options::default();
/// # options.db.create_if_missing = true;
/// let db = Db::open(dir.path(), options)?;
/// db.put(&WriteOptions::default(), b"a", b"1")?;
/// let mut wb = WriteBatchWithIndex::new();
/// wb.put(b"b", b"2")?;
/// wb.delete(b"a")?;
/// assert_eq!(wb.get_from_batch(&db.default_column_family(), b"b")?, BatchLookup::Value(b"2".to_vec()));
/// let r = ReadOptions::default();
/// assert_eq!(wb.get_from_batch_and_db(&db, &r, b"a")?, None);
/// let mut it = wb.iter_with_base(&db, &r)?;
/// it.seek_to_first();
/// assert_eq!((it.key(), it.value()), (&b"b"[..], &b"2"[..]));
/// drop(it);
/// db.write(&WriteOptions::default(), wb.into_batch())?;
/// assert_eq!(db.get(&r, b"a")?, None);
/// # db.close()
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct WriteBatchWithIndex {
    batch: WriteBatch,
    /// The order of the default column family's keys, for the calls that name no family
    /// (RocksDB's `backup_index_comparator`). Default bytewise.
    default_order: KeyOrder,
    /// Per column family id, sorted by id (few families, so a vector).
    index: Vec<(u32, CfIndex)>,
    /// `(data_size, count)` of the batch at each open savepoint.
    savepoints: Vec<(usize, u32)>,
}

impl WriteBatchWithIndex {
    /// An empty batch; the default column family's keys are ordered bytewise.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty batch whose calls without a column family (`put`, `delete_range`, ...) order
    /// the default family's keys by `order` (RocksDB's `backup_index_comparator`). The `_cf`
    /// calls use their family's comparator.
    pub fn with_comparator(order: KeyOrder) -> Self {
        WriteBatchWithIndex {
            default_order: order,
            ..Self::default()
        }
    }

    /// The batch of records, as it will be committed.
    pub fn batch(&self) -> &WriteBatch {
        &self.batch
    }

    /// Gives up the index and returns the batch, to be committed with [`Db::write`].
    pub fn into_batch(self) -> WriteBatch {
        self.batch
    }

    /// Number of records in the batch.
    pub fn count(&self) -> u32 {
        self.batch.count()
    }

    /// True when the batch holds no records.
    pub fn is_empty(&self) -> bool {
        self.batch.is_empty()
    }

    /// Removes every record and every savepoint.
    pub fn clear(&mut self) {
        self.batch.clear();
        self.index.clear();
        self.savepoints.clear();
    }

    /// Sets `key` to `value` in the default column family.
    ///
    /// # Errors
    /// As [`WriteBatch::put`]; nothing changes then.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.add(self.default_family(), ValueKind::Put, key, value)
    }

    /// Sets `key` to `value` in column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatch::put`].
    pub fn put_cf(&mut self, cf: &ColumnFamily, key: &[u8], value: &[u8]) -> Result<()> {
        self.add(family(cf), ValueKind::Put, key, value)
    }

    /// Deletes `key` in the default column family.
    ///
    /// # Errors
    /// As [`WriteBatch::delete`].
    pub fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.add(self.default_family(), ValueKind::Delete, key, &[])
    }

    /// Deletes `key` in column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatch::delete`].
    pub fn delete_cf(&mut self, cf: &ColumnFamily, key: &[u8]) -> Result<()> {
        self.add(family(cf), ValueKind::Delete, key, &[])
    }

    /// RocksDB's `SingleDelete` of `key` in the default column family.
    ///
    /// # Errors
    /// As [`WriteBatch::delete`].
    pub fn single_delete(&mut self, key: &[u8]) -> Result<()> {
        self.add(self.default_family(), ValueKind::SingleDelete, key, &[])
    }

    /// RocksDB's `SingleDelete` of `key` in column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatch::delete`].
    pub fn single_delete_cf(&mut self, cf: &ColumnFamily, key: &[u8]) -> Result<()> {
        self.add(family(cf), ValueKind::SingleDelete, key, &[])
    }

    /// Adds merge operand `operand` for `key` in the default column family.
    ///
    /// # Errors
    /// As [`WriteBatch::merge`].
    pub fn merge(&mut self, key: &[u8], operand: &[u8]) -> Result<()> {
        self.add(self.default_family(), ValueKind::Merge, key, operand)
    }

    /// Adds merge operand `operand` for `key` in column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatch::merge`].
    pub fn merge_cf(&mut self, cf: &ColumnFamily, key: &[u8], operand: &[u8]) -> Result<()> {
        self.add(family(cf), ValueKind::Merge, key, operand)
    }

    /// Deletes every key in `[begin, end)` of the default column family.
    ///
    /// # Errors
    /// As [`WriteBatch::delete_range`], and [`Error::InvalidArgument`] when `begin` sorts after
    /// `end` in the family's order.
    pub fn delete_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        self.add(self.default_family(), ValueKind::RangeDelete, begin, end)
    }

    /// Deletes every key in `[begin, end)` of column family `cf`.
    ///
    /// # Errors
    /// As [`WriteBatchWithIndex::delete_range`].
    pub fn delete_range_cf(&mut self, cf: &ColumnFamily, begin: &[u8], end: &[u8]) -> Result<()> {
        self.add(family(cf), ValueKind::RangeDelete, begin, end)
    }

    /// The default family and its order, for the calls that name no family.
    fn default_family(&self) -> (u32, KeyOrder) {
        (DEFAULT_CF, self.default_order.clone())
    }

    /// Remembers the current state; [`rollback_to_savepoint`](Self::rollback_to_savepoint)
    /// returns to it. Savepoints nest.
    pub fn set_savepoint(&mut self) {
        self.savepoints
            .push((self.batch.data_size(), self.batch.count()));
    }

    /// Removes every record written since the last savepoint, and that savepoint.
    ///
    /// # Errors
    /// [`Error::NotFound`] when no savepoint is open; nothing changes then.
    pub fn rollback_to_savepoint(&mut self) -> Result<()> {
        let (size, count) = self
            .savepoints
            .pop()
            .ok_or_else(|| Error::NotFound("no savepoint to roll back to".into()))?;
        self.batch.truncate(size, count);
        self.rebuild_index();
        Ok(())
    }

    /// Forgets the last savepoint, keeping its writes.
    ///
    /// # Errors
    /// [`Error::NotFound`] when no savepoint is open.
    pub fn pop_savepoint(&mut self) -> Result<()> {
        self.savepoints
            .pop()
            .map(|_| ())
            .ok_or_else(|| Error::NotFound("no savepoint to pop".into()))
    }

    /// What the batch alone says of `key` in `cf`. Merge operands on a base the batch holds are
    /// folded with `cf`'s merge operator.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for merge operands on a family without a merge operator;
    /// [`Error::Corruption`] when the operator fails.
    pub fn get_from_batch(&self, cf: &ColumnFamily, key: &[u8]) -> Result<BatchLookup> {
        let Some(entry) = self.cf_index(cf.id()).and_then(|i| i.lookup(key)) else {
            return Ok(BatchLookup::NotFound);
        };
        Ok(match entry {
            Entry::Put(v) => BatchLookup::Value(v.clone()),
            Entry::Deleted => BatchLookup::Deleted,
            Entry::Merge {
                onto: MergeOnto::Db,
                ..
            } => BatchLookup::MergeInProgress,
            Entry::Merge { onto, operands } => {
                let base = match onto {
                    MergeOnto::Value(v) => Some(v.as_slice()),
                    _ => None,
                };
                match fold(&merge_operator(cf)?, key, base, operands)? {
                    Some(v) => BatchLookup::Value(v),
                    None => BatchLookup::Deleted,
                }
            }
        })
    }

    /// The value of `key` in the default column family as it will be once this batch commits:
    /// the batch's write if it has one, else the database's at `opts` (invariant 3).
    ///
    /// # Errors
    /// As [`Db::get`], and as [`get_from_batch`](Self::get_from_batch) for merges.
    pub fn get_from_batch_and_db(
        &self,
        db: &Db,
        opts: &ReadOptions,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        self.get_from_batch_and_db_cf(db, opts, &db.default_column_family(), key)
    }

    /// [`get_from_batch_and_db`](Self::get_from_batch_and_db) in column family `cf`.
    ///
    /// # Errors
    /// As [`get_from_batch_and_db`](Self::get_from_batch_and_db).
    pub fn get_from_batch_and_db_cf(
        &self,
        db: &Db,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        let entry = self.cf_index(cf.id()).and_then(|i| i.lookup(key));
        match entry {
            None => db.get_cf(opts, cf, key),
            Some(Entry::Put(v)) => Ok(Some(v.clone())),
            Some(Entry::Deleted) => Ok(None),
            Some(Entry::Merge { onto, operands }) => {
                let from_db;
                let base = match onto {
                    MergeOnto::Db => {
                        from_db = db.get_cf(opts, cf, key)?;
                        from_db.as_deref()
                    }
                    MergeOnto::Value(v) => Some(v.as_slice()),
                    MergeOnto::Deleted => None,
                };
                fold(&merge_operator(cf)?, key, base, operands)
            }
        }
    }

    /// [`get_from_batch_and_db_cf`](Self::get_from_batch_and_db_cf) of each of `keys`, in
    /// order, with the keys the batch does not decide read from the database in one
    /// [`Db::multi_get_cf`] (RocksDB's `MultiGetFromBatchAndDB`).
    pub fn multi_get_from_batch_and_db_cf<K: AsRef<[u8]>>(
        &self,
        db: &Db,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        keys: &[K],
    ) -> Vec<Result<Option<Vec<u8>>>> {
        let index = self.cf_index(cf.id());
        // One index lookup per key; the keys whose answer needs the database (those the batch
        // does not hold, and merges onto the database's value) are read in one call.
        let entries: Vec<Option<&Entry>> = keys
            .iter()
            .map(|k| index.and_then(|x| x.lookup(k.as_ref())))
            .collect();
        let needs_db = |e: &Option<&Entry>| {
            matches!(
                e,
                None | Some(Entry::Merge {
                    onto: MergeOnto::Db,
                    ..
                })
            )
        };
        let wanted: Vec<&[u8]> = keys
            .iter()
            .zip(&entries)
            .filter(|(_, e)| needs_db(e))
            .map(|(k, _)| k.as_ref())
            .collect();
        let mut base = db.multi_get_cf(opts, cf, &wanted).into_iter();
        keys.iter()
            .zip(entries)
            .map(|(key, entry)| {
                let key = key.as_ref();
                let db_value =
                    needs_db(&entry).then(|| base.next().expect("one answer per key asked"));
                match (entry, db_value) {
                    (None, Some(v)) => v,
                    (Some(Entry::Put(v)), _) => Ok(Some(v.clone())),
                    (Some(Entry::Deleted), _) => Ok(None),
                    (Some(Entry::Merge { onto, operands }), from_db) => {
                        let from_db = from_db.transpose()?.flatten();
                        let base = match onto {
                            MergeOnto::Db => from_db.as_deref(),
                            MergeOnto::Value(v) => Some(v.as_slice()),
                            MergeOnto::Deleted => None,
                        };
                        fold(&merge_operator(cf)?, key, base, operands)
                    }
                    (None, None) => unreachable!("every key the batch lacks was read"),
                }
            })
            .collect()
    }

    /// An iterator over the default column family as it will be once this batch commits: the
    /// database's iterator at `opts` with the batch's writes laid over it. See
    /// [`BaseDeltaIter`](super::BaseDeltaIter).
    ///
    /// # Errors
    /// As [`Db::iter`].
    pub fn iter_with_base(&self, db: &Db, opts: &ReadOptions) -> Result<super::BaseDeltaIter<'_>> {
        self.iter_with_base_cf(db, opts, &db.default_column_family())
    }

    /// [`iter_with_base`](Self::iter_with_base) in column family `cf`.
    ///
    /// # Errors
    /// As [`Db::iter_cf`].
    pub fn iter_with_base_cf(
        &self,
        db: &Db,
        opts: &ReadOptions,
        cf: &ColumnFamily,
    ) -> Result<super::BaseDeltaIter<'_>> {
        let base = db.iter_cf(opts, cf)?;
        let options = cf.options();
        let prefix = (opts.prefix_same_as_start && !opts.total_order_seek)
            .then(|| options.prefix_extractor.clone())
            .flatten();
        Ok(super::BaseDeltaIter::new(
            base,
            self.cf_index(cf.id()),
            options.comparator.clone(),
            options.merge_operator.clone(),
            opts.iterate_lower_bound.clone(),
            opts.iterate_upper_bound.clone(),
            prefix,
        ))
    }

    /// The keys the batch writes in `cf` with what it makes of them, for a transaction's lock
    /// and conflict bookkeeping.
    pub(crate) fn cf_index(&self, cf: u32) -> Option<&CfIndex> {
        self.index
            .binary_search_by_key(&cf, |(id, _)| *id)
            .ok()
            .map(|i| &self.index[i].1)
    }

    fn cf_index_mut(&mut self, cf: u32, order: &KeyOrder) -> &mut CfIndex {
        let i = match self.index.binary_search_by_key(&cf, |(id, _)| *id) {
            Ok(i) => i,
            Err(i) => {
                self.index.insert(i, (cf, CfIndex::new(order.clone())));
                i
            }
        };
        &mut self.index[i].1
    }

    /// Appends one record of family `cf` (keys in `order`), then indexes it (invariant 1).
    fn add(
        &mut self,
        (cf, order): (u32, KeyOrder),
        kind: ValueKind,
        key: &[u8],
        value: &[u8],
    ) -> Result<()> {
        if kind == ValueKind::RangeDelete && order.compare(key, value).is_gt() {
            return Err(Error::InvalidArgument(format!(
                "delete_range: the end key comes before the begin key (comparator {})",
                order.name()
            )));
        }
        match kind {
            ValueKind::Put => self.batch.put_cf(cf, key, value)?,
            ValueKind::Delete => self.batch.delete_cf(cf, key)?,
            ValueKind::SingleDelete => self.batch.single_delete_cf(cf, key)?,
            ValueKind::Merge => self.batch.merge_cf(cf, key, value)?,
            ValueKind::RangeDelete => self.batch.delete_range_cf(cf, key, value)?,
        }
        self.index_record(cf, &order, kind, key, value);
        Ok(())
    }

    fn index_record(
        &mut self,
        cf: u32,
        order: &KeyOrder,
        kind: ValueKind,
        key: &[u8],
        value: &[u8],
    ) {
        let index = self.cf_index_mut(cf, order);
        match kind {
            ValueKind::Put => {
                index.keys.insert(key.to_vec(), Entry::Put(value.to_vec()));
            }
            ValueKind::Delete | ValueKind::SingleDelete => {
                index.keys.insert(key.to_vec(), Entry::Deleted);
            }
            ValueKind::Merge => {
                let covered = index.range_deleted(key);
                let entry = index
                    .keys
                    .entry(key.to_vec())
                    .or_insert_with(|| Entry::Merge {
                        onto: if covered {
                            MergeOnto::Deleted
                        } else {
                            MergeOnto::Db
                        },
                        operands: Vec::new(),
                    });
                match entry {
                    Entry::Merge { operands, .. } => operands.push(value.to_vec()),
                    Entry::Put(v) => {
                        *entry = Entry::Merge {
                            onto: MergeOnto::Value(std::mem::take(v)),
                            operands: vec![value.to_vec()],
                        }
                    }
                    Entry::Deleted => {
                        *entry = Entry::Merge {
                            onto: MergeOnto::Deleted,
                            operands: vec![value.to_vec()],
                        }
                    }
                }
            }
            ValueKind::RangeDelete => {
                if order.compare(key, value).is_lt() {
                    mark_deleted(index, key, value);
                    index.ranges.push((key.to_vec(), value.to_vec()));
                }
            }
        }
    }

    /// An indexed batch holding `batch`'s records (a prepared transaction recovered from the
    /// WAL), the keys of family `id` in `order_of(id)`.
    pub(crate) fn from_batch(batch: WriteBatch, order_of: impl Fn(u32) -> KeyOrder) -> Self {
        let mut w = WriteBatchWithIndex {
            default_order: order_of(DEFAULT_CF),
            ..WriteBatchWithIndex::default()
        };
        for record in batch.iter() {
            let r = record.expect("a recovered batch was validated when it was read");
            w.index_record(r.cf, &order_of(r.cf), r.kind, r.key, r.value);
        }
        w.batch = batch;
        w
    }

    /// Rebuilds the index from the batch (after a rollback to a savepoint), each family in the
    /// order it was indexed in.
    fn rebuild_index(&mut self) {
        let orders: Vec<(u32, KeyOrder)> =
            self.index.drain(..).map(|(id, i)| (id, i.order)).collect();
        let default_order = self.default_order.clone();
        let order_of = |cf: u32| {
            orders
                .iter()
                .find(|(id, _)| *id == cf)
                .map_or_else(|| default_order.clone(), |(_, o)| o.clone())
        };
        let batch = std::mem::take(&mut self.batch);
        for record in batch.iter() {
            let r = record.expect("a batch built through the API decodes");
            let order = order_of(r.cf);
            self.index_record(r.cf, &order, r.kind, r.key, r.value);
        }
        self.batch = batch;
    }
}

/// A family handle's id and order.
fn family(cf: &ColumnFamily) -> (u32, KeyOrder) {
    (cf.id(), cf.options().comparator.clone())
}

/// Marks every key the batch holds in `[begin, end)` (in the index's order) deleted.
fn mark_deleted(index: &mut CfIndex, begin: &[u8], end: &[u8]) {
    let o = index.order.clone();
    if o.is_bytewise() {
        let range = (Bound::Included(begin), Bound::Excluded(end));
        for (_, e) in index.keys.range_mut::<[u8], _>(range) {
            *e = Entry::Deleted;
        }
    } else if o.is_reverse_bytewise() {
        // Descending `[begin, end)` is bytewise `(end, begin]`.
        let range = (Bound::Excluded(end), Bound::Included(begin));
        for (_, e) in index.keys.range_mut::<[u8], _>(range) {
            *e = Entry::Deleted;
        }
    } else {
        for (k, e) in index.keys.iter_mut() {
            if o.compare(begin, k).is_le() && o.compare(k, end).is_lt() {
                *e = Entry::Deleted;
            }
        }
    }
}

/// `cf`'s merge operator, or the error a merge without one gets.
fn merge_operator(cf: &ColumnFamily) -> Result<Arc<dyn MergeOperator>> {
    cf.options().merge_operator.clone().ok_or_else(|| {
        Error::InvalidArgument(format!(
            "merge operands in a batch for column family {:?}, which has no merge operator",
            cf.name()
        ))
    })
}

/// Folds `operands` (oldest first) onto `base`.
pub(crate) fn fold(
    op: &Arc<dyn MergeOperator>,
    key: &[u8],
    base: Option<&[u8]>,
    operands: &[Vec<u8>],
) -> Result<Option<Vec<u8>>> {
    let refs: Vec<&[u8]> = operands.iter().map(Vec::as_slice).collect();
    match op.full_merge(key, base, &refs) {
        Some(v) => Ok(Some(v)),
        None => Err(Error::corruption(
            "",
            0,
            format!("Merge operator failed: {} for key {key:02x?}", op.name()),
        )),
    }
}
