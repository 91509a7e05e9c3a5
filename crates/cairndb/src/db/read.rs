//! Point reads: the mutable memtable, the immutable ones (newest first), then the tables of
//! the read view's version (L0 newest first, then one file per deeper level).
//!
//! Called from any thread without the state lock: a read pins an `Arc<ReadView>` and the
//! sequence number it reads at, so concurrent writes and flushes do not change its answer.
//!
//! Invariants:
//! 1. Every memtable holds only sequence numbers above every table's, and newer memtables above
//!    older ones (contract 4), so the first memtable that knows the key decides (apart from
//!    merge operands, which accumulate until a base is found).
//! 2. Range tombstones stored in tables are applied across all tables: an entry with sequence
//!    number below the largest visible covering tombstone of any table is deleted.
//! 3. Merge operands are folded with the configured merge operator, oldest first; without one,
//!    a key with operands is an `InvalidArgument` error, never a wrong value.
//! 4. `multi_get` gives every key the answer `get` would give at the same snapshot and view; it
//!    only changes how the tables are probed (keys reaching the same table together).
//! 5. Every table block a read touches is read as its `ReadOptions` say: `fill_cache = false`
//!    leaves the block cache as it is on misses, `verify_checksums = false` skips the block
//!    checksum (`sstable::BlockReadOptions`), for `get`, `multi_get` and the merge-operand walk
//!    alike.

use std::sync::Arc;

use super::{CfData, ColumnFamily, Db, DbInner, PinnableValue, ReadView};
use crate::error::{Error, Result};
use crate::iter::{InternalIterator, RangeDelSet};
use crate::memtable::{MemGet, MergeBase};
use crate::options::ReadOptions;
use crate::sstable::{BlockReadOptions, Table, TableGet};
use crate::statistics::{micros_since, HistogramType, Statistics, Ticker};
use crate::types::{seek_key, user_key, ParsedKey, RangeTombstone, SequenceNumber, ValueKind};
use crate::version::FileMetaData;
use std::time::Instant;

/// What a source said about the key.
enum Found {
    /// Keep looking in older sources (possibly after collecting merge operands).
    Older,
    /// The base was found: a value, or `None` for a deletion.
    Base(Option<PinnableValue>),
}

impl Db {
    /// The value of `key` in the default column family at `opts.snapshot` (or the latest
    /// published state).
    ///
    /// # Errors
    /// [`Error::Closed`] after close; [`Error::Corruption`] naming file and offset for damaged
    /// tables; I/O errors; [`Error::InvalidArgument`] for merge operands without a merge
    /// operator.
    pub fn get(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self
            .inner
            .get(opts, &self.inner.default_cf, key)?
            .map(PinnableValue::into_vec))
    }

    /// [`Db::get`] without copying the value out of the table block that holds it
    /// (RocksDB's `Get` into a `PinnableSlice`): the value pins its block until it is dropped.
    ///
    /// # Errors
    /// As [`Db::get`].
    pub fn get_pinned(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<PinnableValue>> {
        self.inner.get(opts, &self.inner.default_cf, key)
    }

    /// [`Db::get_pinned`] in column family `cf`.
    ///
    /// # Errors
    /// As [`Db::get_cf`].
    pub fn get_pinned_cf(
        &self,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        key: &[u8],
    ) -> Result<Option<PinnableValue>> {
        self.inner.get(opts, &cf.data, key)
    }

    /// The value of `key` in column family `cf`.
    ///
    /// # Errors
    /// As [`Db::get`]; [`Error::InvalidArgument`] when `cf` was dropped.
    pub fn get_cf(
        &self,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        key: &[u8],
    ) -> Result<Option<Vec<u8>>> {
        Ok(self
            .inner
            .get(opts, &cf.data, key)?
            .map(PinnableValue::into_vec))
    }

    /// The values of `keys` in the default column family, all read at one snapshot (the same
    /// answers as [`Db::get`] per key, consistent with each other). One result per key, in
    /// order.
    pub fn multi_get<K: AsRef<[u8]>>(
        &self,
        opts: &ReadOptions,
        keys: &[K],
    ) -> Vec<Result<Option<Vec<u8>>>> {
        self.inner.multi_get(opts, &self.inner.default_cf, keys)
    }

    /// [`Db::multi_get`] in column family `cf`.
    pub fn multi_get_cf<K: AsRef<[u8]>>(
        &self,
        opts: &ReadOptions,
        cf: &ColumnFamily,
        keys: &[K],
    ) -> Vec<Result<Option<Vec<u8>>>> {
        self.inner.multi_get(opts, &cf.data, keys)
    }
}

impl DbInner {
    fn get(&self, opts: &ReadOptions, cf: &CfData, key: &[u8]) -> Result<Option<PinnableValue>> {
        let (snapshot, view) = self.begin_read(opts, cf)?;
        let ro = BlockReadOptions::from(opts);
        let Some(stats) = self.counters.stats() else {
            return self.get_at(cf, &view, key, snapshot, ro, None);
        };
        let started = Instant::now();
        let result = self.get_at(cf, &view, key, snapshot, ro, Some(stats));
        stats.record_tick(Ticker::NumberKeysRead, 1);
        if let Ok(Some(v)) = &result {
            stats.record_tick(Ticker::BytesRead, v.len() as u64);
        }
        stats.record_in_histogram(HistogramType::DbGet, micros_since(started));
        result
    }

    fn multi_get<K: AsRef<[u8]>>(
        &self,
        opts: &ReadOptions,
        cf: &CfData,
        keys: &[K],
    ) -> Vec<Result<Option<Vec<u8>>>> {
        match self.begin_read(opts, cf) {
            Ok((snapshot, view)) => {
                self.multi_get_at(cf, &view, keys, snapshot, BlockReadOptions::from(opts))
            }
            Err(e) => keys.iter().map(|_| Err(e.clone())).collect(),
        }
    }

    /// Every key's answer as `get_at` gives it, with the table probes batched (invariant 4):
    /// the memtables answer what they can; then, round after round, each open key moves to the
    /// next table of its search order, and the keys that reach the same table in a round are
    /// looked up with one `Table::multi_get`, which reads a block shared by several of them once.
    fn multi_get_at<K: AsRef<[u8]>>(
        &self,
        cf: &CfData,
        view: &ReadView,
        keys: &[K],
        snapshot: SequenceNumber,
        ro: BlockReadOptions,
    ) -> Vec<Result<Option<Vec<u8>>>> {
        let mut out: Vec<Option<Result<Option<Vec<u8>>>>> = keys.iter().map(|_| None).collect();
        let mut operands: Vec<Vec<Vec<u8>>> = keys.iter().map(|_| Vec::new()).collect();
        let mut open = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            let key = key.as_ref();
            let mut base = None;
            for mem in std::iter::once(&view.mem).chain(view.imms.iter()) {
                if let Found::Base(b) = from_memtable(mem.get(key, snapshot), &mut operands[i]) {
                    base = Some(b);
                    break;
                }
            }
            match base {
                Some(b) => {
                    out[i] = Some(finish_owned(cf, key, std::mem::take(&mut operands[i]), b))
                }
                None => open.push(i),
            }
        }
        // Each open key's tables in search order (`files[at[i]..end[i]]`; `at` advances as the
        // key moves on) and its covering tombstone.
        let mut files: Vec<&Arc<FileMetaData>> = Vec::new();
        let mut at: Vec<usize> = vec![0; keys.len()];
        let mut end: Vec<usize> = vec![0; keys.len()];
        let mut covering: Vec<Option<SequenceNumber>> = vec![None; keys.len()];
        open.retain(|&i| {
            let key = keys[i].as_ref();
            match self.table_tombstone_seq(cf, view, key, snapshot) {
                Ok(c) => {
                    covering[i] = c;
                    at[i] = files.len();
                    files.extend(view.version.files_for_get(key).map(|(_, f)| f));
                    end[i] = files.len();
                    true
                }
                Err(e) => {
                    out[i] = Some(Err(e));
                    false
                }
            }
        });
        // (file number, key) for every open key this round, grouped by sorting.
        let mut round: Vec<(u64, usize)> = Vec::with_capacity(open.len());
        let mut probe: Vec<&[u8]> = Vec::with_capacity(open.len());
        while !open.is_empty() {
            // Keys whose search order is exhausted found no base.
            open.retain(|&i| {
                if at[i] < end[i] {
                    return true;
                }
                let ops = std::mem::take(&mut operands[i]);
                out[i] = Some(finish_owned(cf, keys[i].as_ref(), ops, None));
                false
            });
            round.clear();
            round.extend(open.iter().map(|&i| (files[at[i]].number, i)));
            round.sort_unstable();
            for group in round.chunk_by(|a, b| a.0 == b.0) {
                let file = files[at[group[0].1]];
                probe.clear();
                probe.extend(group.iter().map(|&(_, i)| keys[i].as_ref()));
                let mut found = view
                    .tables
                    .get(&cf.table_cache, file)
                    .map(|table| (table.multi_get_with(&probe, snapshot, ro), table));
                for (j, &(_, i)) in group.iter().enumerate() {
                    let key = keys[i].as_ref();
                    let step = match &mut found {
                        Ok((results, table)) => {
                            match std::mem::replace(&mut results[j], Ok(None)) {
                                Ok(hit) => resolve_hit(
                                    table,
                                    hit,
                                    key,
                                    snapshot,
                                    covering[i],
                                    &mut operands[i],
                                    ro,
                                ),
                                Err(e) => Err(e),
                            }
                        }
                        Err(e) => Err(e.clone()),
                    };
                    match step {
                        Ok(Found::Older) => at[i] += 1,
                        Ok(Found::Base(b)) => {
                            let ops = std::mem::take(&mut operands[i]);
                            out[i] = Some(finish_owned(cf, key, ops, b));
                        }
                        Err(e) => out[i] = Some(Err(e)),
                    }
                }
            }
            open.retain(|&i| out[i].is_none());
        }
        out.into_iter()
            .map(|r| r.expect("every key is answered"))
            .collect()
    }

    fn get_at(
        &self,
        cf: &CfData,
        view: &ReadView,
        key: &[u8],
        snapshot: SequenceNumber,
        ro: BlockReadOptions,
        stats: Option<&Statistics>,
    ) -> Result<Option<PinnableValue>> {
        let mut operands: Vec<Vec<u8>> = Vec::new();
        for mem in std::iter::once(&view.mem).chain(view.imms.iter()) {
            if let Found::Base(base) = from_memtable(mem.get(key, snapshot), &mut operands) {
                if let Some(s) = stats {
                    s.record_tick(Ticker::MemtableHit, 1);
                }
                return finish(cf, key, operands, base);
            }
        }
        if let Some(s) = stats {
            s.record_tick(Ticker::MemtableMiss, 1);
        }
        let covering = self.table_tombstone_seq(cf, view, key, snapshot)?;
        for (level, file) in view.version.files_for_get(key) {
            let probe = Probe {
                key,
                snapshot,
                covering,
                ro,
            };
            let found = search_table(cf, view, file, &probe, &mut operands, stats)?;
            if let Found::Base(base) = found {
                if let Some(s) = stats {
                    s.record_tick(level_hit_ticker(level), 1);
                }
                return finish(cf, key, operands, base);
            }
        }
        finish(cf, key, operands, None)
    }
    /// The largest visible sequence number of a table range tombstone covering `key`
    /// (invariant 2).
    fn table_tombstone_seq(
        &self,
        cf: &CfData,
        view: &ReadView,
        key: &[u8],
        snapshot: SequenceNumber,
    ) -> Result<Option<SequenceNumber>> {
        Ok(self
            .view_tombstones(cf, view)?
            .max_covering_seq(key, snapshot))
    }

    /// The range tombstones of every table of the view, gathered once per view.
    pub(super) fn view_tombstones(&self, cf: &CfData, view: &ReadView) -> Result<Arc<RangeDelSet>> {
        if let Some(set) = view.table_tombstones.get() {
            return Ok(Arc::clone(set));
        }
        let mut all = Vec::new();
        for (_, file) in view.version.all_files() {
            all.extend(self.table_tombstones(cf, file)?.iter().cloned());
        }
        let set = Arc::new(RangeDelSet::new(all, view.version.order().clone()));
        Ok(Arc::clone(view.table_tombstones.get_or_init(|| set)))
    }

    /// The range tombstones of one table: the list the table decoded when it opened, remembered
    /// by file number (`DbInner::range_dels`) so that later views find it without the table cache.
    pub(super) fn table_tombstones(
        &self,
        cf: &CfData,
        file: &FileMetaData,
    ) -> Result<Arc<[RangeTombstone]>> {
        if let Some(ts) = self.range_dels.lock().get(&file.number) {
            return Ok(Arc::clone(ts));
        }
        let table = cf.table_cache.get_table(file.number, file.size)?;
        let ts = Arc::clone(table.range_deletions());
        self.range_dels.lock().insert(file.number, Arc::clone(&ts));
        Ok(ts)
    }
}

/// Folds `operands` (newest first) onto `base` with the family's merge operator (invariant 3).
fn finish(
    cf: &CfData,
    key: &[u8],
    mut operands: Vec<Vec<u8>>,
    base: Option<PinnableValue>,
) -> Result<Option<PinnableValue>> {
    if operands.is_empty() {
        return Ok(base);
    }
    let Some(op) = &cf.options.merge_operator else {
        return Err(Error::InvalidArgument(format!(
            "key {key:02x?} has merge operands but column family {:?} has no merge operator",
            cf.name
        )));
    };
    operands.reverse();
    let refs: Vec<&[u8]> = operands.iter().map(Vec::as_slice).collect();
    match op.full_merge(key, base.as_deref(), &refs) {
        Some(v) => Ok(Some(PinnableValue::owned(v))),
        None => Err(Error::corruption(
            "",
            0,
            format!("Merge operator failed: {} for key {key:02x?}", op.name()),
        )),
    }
}

/// [`finish`] with the value copied out at once: a multi-get answers many keys, and holding
/// each found block pinned until the last key is answered measured slower than copying.
fn finish_owned(
    cf: &CfData,
    key: &[u8],
    operands: Vec<Vec<u8>>,
    base: Option<PinnableValue>,
) -> Result<Option<Vec<u8>>> {
    Ok(finish(cf, key, operands, base)?.map(PinnableValue::into_vec))
}

/// One key's lookup in the tables: what `search_table` needs besides the table.
struct Probe<'k> {
    key: &'k [u8],
    snapshot: SequenceNumber,
    /// The largest visible covering range tombstone (invariant 2).
    covering: Option<SequenceNumber>,
    ro: BlockReadOptions,
}

/// The newest entries of `key` in one table, newest first, stopping at the base.
fn search_table(
    cf: &CfData,
    view: &ReadView,
    file: &FileMetaData,
    probe: &Probe<'_>,
    operands: &mut Vec<Vec<u8>>,
    stats: Option<&Statistics>,
) -> Result<Found> {
    let Probe {
        key,
        snapshot,
        covering,
        ro,
    } = *probe;
    let table = view.tables.get(&cf.table_cache, file)?;
    // With statistics on, the filter is asked here first so its answer can be counted
    // (`get_pinned` asks it again, a cheap repeat paid only when statistics are on).
    let filtered = match stats {
        Some(s) if table.properties().filter_bytes > 0 => {
            if !table.may_contain_with(key, ro)? {
                s.record_tick(Ticker::BloomFilterUseful, 1);
                return Ok(Found::Older);
            }
            s.record_tick(Ticker::BloomFilterFullPositive, 1);
            Some(s)
        }
        _ => None,
    };
    let hit = table.get_pinned_with(key, snapshot, ro)?;
    if let (Some(s), Some(_)) = (filtered, &hit) {
        s.record_tick(Ticker::BloomFilterFullTruePositive, 1);
    }
    resolve_hit(&table, hit, key, snapshot, covering, operands, ro)
}

/// The `rocksdb.l0.hit` / `l1.hit` / `l2andup.hit` ticker of a get answered in `level`.
fn level_hit_ticker(level: usize) -> Ticker {
    match level {
        0 => Ticker::GetHitL0,
        1 => Ticker::GetHitL1,
        _ => Ticker::GetHitL2AndUp,
    }
}

/// What a table's newest visible entry of `key` (`hit`, from `get_pinned` or `multi_get`)
/// means. The common case (a value or a deletion on top) needs nothing more; merge operands
/// fall back to an iterator that collects them down to the base.
fn resolve_hit(
    table: &Arc<Table>,
    hit: Option<TableGet>,
    key: &[u8],
    snapshot: SequenceNumber,
    covering: Option<SequenceNumber>,
    operands: &mut Vec<Vec<u8>>,
    ro: BlockReadOptions,
) -> Result<Found> {
    let Some(found) = hit else {
        return Ok(Found::Older);
    };
    if covering.is_some_and(|t| found.seq() < t) {
        return Ok(Found::Base(None));
    }
    match found.kind() {
        ValueKind::Put => return Ok(Found::Base(Some(PinnableValue::pinned(found)))),
        ValueKind::Delete | ValueKind::SingleDelete => return Ok(Found::Base(None)),
        ValueKind::Merge => {}
        ValueKind::RangeDelete => {
            return Err(Error::corruption(
                table.path(),
                0,
                "a range deletion among the point entries",
            ))
        }
    }
    let mut it = table.iter_with(ro);
    it.seek(&seek_key(key, snapshot));
    while it.valid() && user_key(it.key()) == key {
        let p = ParsedKey::parse(it.key()).map_err(|e| e.in_file(table.path()))?;
        if covering.is_some_and(|t| p.seq < t) {
            return Ok(Found::Base(None));
        }
        match p.kind {
            ValueKind::Put => {
                return Ok(Found::Base(Some(PinnableValue::owned(it.value().to_vec()))))
            }
            ValueKind::Delete | ValueKind::SingleDelete => return Ok(Found::Base(None)),
            ValueKind::Merge => operands.push(it.value().to_vec()),
            ValueKind::RangeDelete => {}
        }
        it.next();
    }
    it.status()?;
    Ok(Found::Older)
}

/// Interprets one memtable's answer, collecting merge operands (newest first).
fn from_memtable(got: Option<MemGet<'_>>, operands: &mut Vec<Vec<u8>>) -> Found {
    match got {
        None => Found::Older,
        Some(MemGet::Value { value, .. }) => {
            Found::Base(Some(PinnableValue::owned(value.to_vec())))
        }
        Some(MemGet::Deleted { .. }) => Found::Base(None),
        Some(MemGet::Merge {
            operands: ops,
            base,
            ..
        }) => {
            operands.extend(ops.iter().map(|o| o.to_vec()));
            match base {
                MergeBase::Value(v) => Found::Base(Some(PinnableValue::owned(v.to_vec()))),
                MergeBase::Deleted => Found::Base(None),
                MergeBase::SearchOlder => Found::Older,
            }
        }
    }
}
