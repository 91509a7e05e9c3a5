//! User iterators: a [`DbIterator`] over a [`MergingIterator`] of the read view's memtables, its
//! L0 tables (one child each: they overlap) and one [`LevelIterator`] per non-empty deeper level
//! (its files are disjoint, so a seek binary-searches the file list and opens one table, lazily,
//! through the table cache), with the range tombstones of all of them.
//!
//! An iterator is created on any thread and used by one thread at a time. It holds the read
//! view (memtables and version by `Arc`), so flushes, memtable switches and obsolete-file
//! deletion never disturb it: a version a reader holds keeps its files live. Creating one is
//! meant to be cheap (db_bench's seekrandom creates one per seek): it opens only the L0 tables,
//! copies no file list, and reuses the view's fragmented table tombstones.
//!
//! Invariants:
//! 1. The iterator reads at one sequence number fixed at creation (a snapshot's or the latest
//!    published one).
//! 2. Range tombstones come from each memtable's tombstone list (fragmented per iterator, as the
//!    active memtable changes) and from the view's set of every table's tombstones (fragmented
//!    once per view); the point iterators never yield them.

use std::sync::Arc;

use super::{CfData, ColumnFamily, Db, DbInner, ReadView};
use crate::error::Result;
use crate::iter::{
    BoxedIterator, DbIterOptions, DbIterator, InternalIterator, LevelIterator, MergingIterator,
    RangeDelSet, SortedRun, TableOpener,
};
use crate::options::ReadOptions;
use crate::sstable::BlockReadOptions;
use crate::statistics::{micros_since, HistogramType, Statistics, Ticker};
use crate::types::{RangeTombstone, MAX_SEQUENCE};
use crate::version::edit::FileMetaData;
use crate::version::Version;
use std::time::Instant;

/// A user iterator over the database; see [`Db::iter`]. Keys are user keys in bytewise order.
/// It reads a consistent view (the snapshot in its `ReadOptions`, or the state when it was
/// created); after the last entry `valid()` is false and `status()` tells an end from an error.
///
/// ```
/// use cairndb::options::{Options, ReadOptions, WriteOptions};
/// use cairndb::Db;
///
/// # fn main() -> cairndb::Result<()> {
/// # let dir = tempfile::tempdir().expect("temporary directory");
/// # let mut options = Options::default();
/// # options.db.create_if_missing = true;
/// let db = Db::open(dir.path(), options)?;
/// for k in [&b"a"[..], b"b", b"c"] {
///     db.put(&WriteOptions::default(), k, b"v")?;
/// }
/// let mut it = db.iter(&ReadOptions::default())?;
/// let mut keys = Vec::new();
/// it.seek(b"b");
/// while it.valid() {
///     keys.push(it.key().to_vec());
///     it.next();
/// }
/// it.status()?; // the scan ended at the last key, not at an error
/// assert_eq!(keys, [b"b".to_vec(), b"c".to_vec()]);
/// # Ok(())
/// # }
/// ```
pub struct DbIter {
    inner: DbIterator,
    /// Keeps the memtables and the version (and so the table files) alive.
    _view: Arc<ReadView>,
    /// The database's opt-in statistics (seeks are counted and timed).
    stats: Option<Arc<Statistics>>,
}

impl std::fmt::Debug for DbIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DbIter")
            .field("inner", &self.inner)
            .finish()
    }
}

impl DbIter {
    /// Counts a seek that started at `started` (`None`: statistics are off).
    fn seeked(&self, started: Option<Instant>) {
        if let (Some(s), Some(t)) = (&self.stats, started) {
            s.record_tick(Ticker::NumberDbSeek, 1);
            s.record_in_histogram(HistogramType::DbSeek, micros_since(t));
        }
    }

    /// True when positioned at an entry.
    pub fn valid(&self) -> bool {
        self.inner.valid()
    }
    /// Positions at the first key (within the bounds).
    pub fn seek_to_first(&mut self) {
        let started = self.stats.is_some().then(Instant::now);
        self.inner.seek_to_first();
        self.seeked(started);
    }
    /// Positions at the last key (within the bounds).
    pub fn seek_to_last(&mut self) {
        let started = self.stats.is_some().then(Instant::now);
        self.inner.seek_to_last();
        self.seeked(started);
    }
    /// Positions at the first key >= `target`.
    pub fn seek(&mut self, target: &[u8]) {
        let started = self.stats.is_some().then(Instant::now);
        self.inner.seek(target);
        self.seeked(started);
    }
    /// Positions at the last key <= `target`.
    pub fn seek_for_prev(&mut self, target: &[u8]) {
        let started = self.stats.is_some().then(Instant::now);
        self.inner.seek_for_prev(target);
        self.seeked(started);
    }
    /// Moves to the next key. Requires `valid()`.
    pub fn next(&mut self) {
        self.inner.next();
    }
    /// Moves to the previous key. Requires `valid()`.
    pub fn prev(&mut self) {
        self.inner.prev();
    }
    /// The current user key. Requires `valid()`.
    pub fn key(&self) -> &[u8] {
        self.inner.key()
    }
    /// The current value. Requires `valid()`.
    pub fn value(&self) -> &[u8] {
        self.inner.value()
    }
    /// The error that stopped the iterator, if any.
    ///
    /// # Errors
    /// The I/O or corruption error met while moving.
    pub fn status(&self) -> Result<()> {
        self.inner.status()
    }
}

impl Db {
    /// A user iterator reading at `opts.snapshot` (or the latest published state), honouring
    /// `iterate_lower_bound`, `iterate_upper_bound`, `prefix_same_as_start` and
    /// `total_order_seek`. The iterator starts unpositioned.
    ///
    /// # Errors
    /// [`Error::Closed`](crate::Error::Closed) after close; errors opening tables or reading
    /// their range tombstones.
    pub fn iter(&self, opts: &ReadOptions) -> Result<DbIter> {
        self.inner.iter(opts, &self.inner.default_cf)
    }

    /// [`Db::iter`] over column family `cf`, with its prefix extractor and merge operator.
    ///
    /// # Errors
    /// As [`Db::iter`]; [`Error::InvalidArgument`](crate::Error::InvalidArgument) when `cf` was
    /// dropped.
    pub fn iter_cf(&self, opts: &ReadOptions, cf: &ColumnFamily) -> Result<DbIter> {
        self.inner.iter(opts, &cf.data)
    }
}

impl DbInner {
    fn iter(&self, opts: &ReadOptions, cf: &Arc<CfData>) -> Result<DbIter> {
        let (snapshot, view) = self.begin_read(opts, cf)?;
        let order = view.version.order().clone();
        let children = iter_children(cf, &view, BlockReadOptions::from(opts))?;
        let mut range_dels = vec![self.view_tombstones(cf, &view)?];
        let mem_tombstones: Vec<RangeTombstone> = std::iter::once(&view.mem)
            .chain(view.imms.iter())
            .flat_map(|mem| mem.range_tombstones(MAX_SEQUENCE))
            .map(RangeTombstone::from)
            .collect();
        if !mem_tombstones.is_empty() {
            range_dels.push(Arc::new(RangeDelSet::new(mem_tombstones, order.clone())));
        }
        let iopts = DbIterOptions {
            snapshot,
            lower_bound: opts.iterate_lower_bound.clone(),
            upper_bound: opts.iterate_upper_bound.clone(),
            prefix_same_as_start: opts.prefix_same_as_start,
            total_order_seek: opts.total_order_seek,
            prefix_extractor: cf.options.prefix_extractor.clone(),
            merge_operator: cf.options.merge_operator.clone(),
            comparator: order.clone(),
        };
        let merged: BoxedIterator = Box::new(MergingIterator::new(children, order));
        let inner = DbIterator::with_range_del_sets(merged, range_dels, iopts);
        Ok(DbIter {
            inner,
            _view: view,
            stats: self.options.db.statistics.clone(),
        })
    }
}

/// The child iterators: memtables newest first, then each L0 table (newest first), then one level
/// iterator per non-empty level below L0.
fn iter_children(
    cf: &Arc<CfData>,
    view: &ReadView,
    ro: BlockReadOptions,
) -> Result<Vec<BoxedIterator>> {
    let version = &view.version;
    let mut children: Vec<BoxedIterator> =
        Vec::with_capacity(1 + view.imms.len() + version.num_files(0) + version.num_levels());
    for mem in std::iter::once(&view.mem).chain(view.imms.iter()) {
        children.push(Box::new(mem.iter()));
    }
    let opener = Arc::new(CfTableOpener {
        cf: Arc::clone(cf),
        ro,
    });
    for file in version.files(0) {
        children.push(opener.open(file)?);
    }
    let opener: Arc<dyn TableOpener> = opener;
    for level in 1..version.num_levels() {
        if version.num_files(level) > 0 {
            let run = VersionLevel {
                version: Arc::clone(version),
                level,
            };
            children.push(Box::new(LevelIterator::new(
                run,
                Arc::clone(&opener),
                version.order().clone(),
            )));
        }
    }
    Ok(children)
}

/// One level of a version, read in place by a [`LevelIterator`] (the `Arc` keeps the version,
/// and so the file list, alive without copying it). A `Version`'s levels above 0 are sorted and
/// disjoint (its invariant 3).
struct VersionLevel {
    version: Arc<Version>,
    level: usize,
}

impl SortedRun for VersionLevel {
    fn len(&self) -> usize {
        self.version.num_files(self.level)
    }

    fn file(&self, i: usize) -> &FileMetaData {
        &self.version.files(self.level)[i]
    }
}

/// Opens a family's tables through its table cache for a level iterator.
struct CfTableOpener {
    cf: Arc<CfData>,
    /// `ReadOptions::fill_cache` and `verify_checksums`: whether blocks read on a miss enter the
    /// block cache, and whether their checksums are compared.
    ro: BlockReadOptions,
}

impl TableOpener for CfTableOpener {
    fn open(&self, file: &FileMetaData) -> Result<BoxedIterator> {
        let table = self.cf.table_cache.get_table(file.number, file.size)?;
        Ok(Box::new(table.iter_with(self.ro)))
    }
}
