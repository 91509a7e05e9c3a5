//! [`KvStore`] on RocksDB's `TransactionDB` through the `rocksdb` crate (feature `rocksdb`):
//! the same column families, options string, orders and prefix extractor as
//! [`CairnStore`](crate::CairnStore), so the row layer runs unchanged on either engine.
//!
//! What the crate does not expose on a `TransactionDB`, and what this store does instead:
//! - no table-properties collectors and no `GetPropertiesOfTablesInRange`:
//!   [`KvStore::table_user_properties`] is `None` (index statistics are unavailable);
//! - no `GetApproximateSizes`: [`KvStore::approximate_size`] is `None`;
//! - no `IngestExternalFile`: [`KvStore::bulk_load`] writes batches of 10,000 entries without the
//!   WAL, then flushes the family (the data is durable when the call returns, as after an
//!   ingestion, but it passes through the memtable; batches written before a bad entry stay);
//! - per-family properties: [`KvStore::live_sst_bytes`] sums the sizes of the `.sst` files in
//!   the database directory.

use std::path::{Path, PathBuf};

use rocksdb::{
    ColumnFamilyDescriptor, DBRawIteratorWithThreadMode, Options, ReadOptions, SingleThreaded,
    SliceTransform, SnapshotWithThreadMode, Transaction, TransactionDB, TransactionDBOptions,
    TransactionOptions, WriteBatchWithTransaction, WriteOptions,
};

use crate::error::{Error, Result};
use crate::store::{
    BulkEntries, Cursor, CursorBounds, Isolation, KvStore, KvTxn, StoreConfig, UserProperties,
};

type Db = TransactionDB<SingleThreaded>;

/// RocksDB under the row layer. See the module documentation.
pub struct RocksStore {
    db: Db,
    names: Vec<String>,
    sync: bool,
    dir: PathBuf,
}

impl std::fmt::Debug for RocksStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksStore")
            .field("dir", &self.dir)
            .finish()
    }
}

fn engine(e: rocksdb::Error) -> Error {
    use rocksdb::ErrorKind;
    match e.kind() {
        ErrorKind::Busy | ErrorKind::TimedOut | ErrorKind::TryAgain => {
            Error::Conflict(e.to_string())
        }
        ErrorKind::Corruption => Error::Corrupt(e.to_string()),
        _ => Error::Engine(e.to_string()),
    }
}

impl RocksStore {
    fn cf(&self, cf: usize) -> &rocksdb::ColumnFamily {
        self.db
            .cf_handle(&self.names[cf])
            .expect("every family was opened")
    }

    fn write_options(&self, disable_wal: bool) -> WriteOptions {
        let mut wo = WriteOptions::default();
        wo.set_sync(self.sync && !disable_wal);
        wo.disable_wal(disable_wal);
        wo
    }
}

impl KvStore for RocksStore {
    type Txn<'a> = RocksTxn<'a>;

    fn open(dir: &Path, config: &StoreConfig) -> Result<Self> {
        let mut base = Options::default();
        base.create_if_missing(true);
        base.create_missing_column_families(true);
        let mut db_opts = base
            .get_options_from_string(&config.options)
            .map_err(|e| Error::Engine(format!("options {:?}: {e}", config.options)))?;
        db_opts.create_if_missing(true);
        db_opts.create_missing_column_families(true);
        let mut families = Vec::new();
        for spec in &config.cfs {
            let mut cf = if spec.reverse {
                db_opts
                    .get_options_from_string("comparator=rocksdb.ReverseBytewiseComparator")
                    .map_err(engine)?
            } else {
                db_opts.clone()
            };
            cf.set_prefix_extractor(SliceTransform::create_fixed_prefix(4));
            families.push(ColumnFamilyDescriptor::new(spec.name.clone(), cf));
        }
        let db = Db::open_cf_descriptors(&db_opts, &TransactionDBOptions::default(), dir, families)
            .map_err(engine)?;
        Ok(RocksStore {
            db,
            names: config.cfs.iter().map(|s| s.name.clone()).collect(),
            sync: config.sync,
            dir: dir.to_path_buf(),
        })
    }

    fn describe(&self) -> String {
        "rocksdb (the rocksdb crate 0.25, TransactionDB)".to_string()
    }

    fn begin(&self, isolation: Isolation) -> Result<RocksTxn<'_>> {
        let mut opts = TransactionOptions::default();
        opts.set_snapshot(isolation == Isolation::RepeatableRead);
        let txn = self.db.transaction_opt(&self.write_options(false), &opts);
        Ok(RocksTxn {
            txn,
            store: self,
            snapshot: isolation == Isolation::RepeatableRead,
        })
    }

    fn bulk_load(&self, cf: usize, entries: &mut BulkEntries<'_>) -> Result<()> {
        let handle = self.cf(cf);
        let mut batch = WriteBatchWithTransaction::<true>::default();
        for entry in entries {
            // Batches written before an error stay written.
            let (k, v) = entry?;
            batch.put_cf(handle, &k, &v);
            if batch.len() >= 10_000 {
                let full = std::mem::take(&mut batch);
                self.db
                    .write_opt(full, &self.write_options(true))
                    .map_err(engine)?;
            }
        }
        if !batch.is_empty() {
            self.db
                .write_opt(batch, &self.write_options(true))
                .map_err(engine)?;
        }
        self.db.flush_cf(handle).map_err(engine)
    }

    fn flush(&self) -> Result<()> {
        for n in 0..self.names.len() {
            self.db.flush_cf(self.cf(n)).map_err(engine)?;
        }
        Ok(())
    }

    fn approximate_size(&self, _cf: usize, _lower: &[u8], _upper: &[u8]) -> Result<Option<u64>> {
        Ok(None)
    }

    fn table_user_properties(
        &self,
        _cf: usize,
        _lower: &[u8],
        _upper: &[u8],
    ) -> Result<Option<Vec<UserProperties>>> {
        Ok(None)
    }

    fn live_sst_bytes(&self) -> u64 {
        std::fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .filter_map(std::result::Result::ok)
                    .filter(|e| e.path().extension().is_some_and(|x| x == "sst"))
                    .filter_map(|e| e.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    }

    fn close(self) -> Result<()> {
        drop(self.db);
        Ok(())
    }
}

/// A RocksDB transaction under the row layer.
pub struct RocksTxn<'a> {
    txn: Transaction<'a, Db>,
    store: &'a RocksStore,
    snapshot: bool,
}

impl std::fmt::Debug for RocksTxn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksTxn").finish()
    }
}

impl<'a> RocksTxn<'a> {
    /// Runs `f` with read options at the transaction's snapshot (REPEATABLE READ) or at the
    /// latest data; the snapshot handle lives until `f` returns.
    fn read<R>(&self, f: impl FnOnce(&ReadOptions) -> R) -> R {
        let mut ro = ReadOptions::default();
        if self.snapshot {
            let snap = self.txn.snapshot();
            ro.set_snapshot(&snap);
            f(&ro)
        } else {
            f(&ro)
        }
    }
}

impl KvTxn for RocksTxn<'_> {
    fn get(&mut self, cf: usize, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.read(|ro| self.txn.get_cf_opt(self.store.cf(cf), key, ro))
            .map_err(engine)
    }

    fn get_for_update(&mut self, cf: usize, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.read(|ro| {
            self.txn
                .get_for_update_cf_opt(self.store.cf(cf), key, true, ro)
        })
        .map_err(engine)
    }

    fn multi_get(&mut self, cf: usize, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        let handle = self.store.cf(cf);
        self.read(|ro| {
            self.txn
                .multi_get_cf_opt(keys.iter().map(|k| (handle, k)), ro)
        })
        .into_iter()
        .map(|r| r.map_err(engine))
        .collect()
    }

    fn put(&mut self, cf: usize, key: &[u8], value: &[u8]) -> Result<()> {
        self.txn
            .put_cf(self.store.cf(cf), key, value)
            .map_err(engine)
    }

    fn delete(&mut self, cf: usize, key: &[u8]) -> Result<()> {
        self.txn.delete_cf(self.store.cf(cf), key).map_err(engine)
    }

    fn cursor<'c>(&'c self, cf: usize, bounds: CursorBounds<'_>) -> Result<Box<dyn Cursor + 'c>> {
        let mut ro = ReadOptions::default();
        let snapshot = self.snapshot.then(|| self.txn.snapshot());
        if let Some(s) = &snapshot {
            ro.set_snapshot(s);
        }
        if let Some(l) = bounds.lower {
            ro.set_iterate_lower_bound(l.to_vec());
        }
        if let Some(u) = bounds.upper {
            ro.set_iterate_upper_bound(u.to_vec());
        }
        ro.set_total_order_seek(bounds.total_order);
        let it = self.txn.raw_iterator_cf_opt(self.store.cf(cf), ro);
        Ok(Box::new(RocksCursor {
            it,
            _snapshot: snapshot,
        }))
    }

    fn commit(self) -> Result<()> {
        self.txn.commit().map_err(engine)
    }

    fn rollback(self) -> Result<()> {
        self.txn.rollback().map_err(engine)
    }
}

/// An iterator and the snapshot handle its read options point at (dropped after it).
struct RocksCursor<'a> {
    it: DBRawIteratorWithThreadMode<'a, Transaction<'a, Db>>,
    _snapshot: Option<SnapshotWithThreadMode<'a, Transaction<'a, Db>>>,
}

impl Cursor for RocksCursor<'_> {
    fn seek(&mut self, target: &[u8]) {
        self.it.seek(target);
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        self.it.seek_for_prev(target);
    }
    fn next(&mut self) {
        self.it.next();
    }
    fn prev(&mut self) {
        self.it.prev();
    }
    fn valid(&self) -> bool {
        self.it.valid()
    }
    fn key(&self) -> &[u8] {
        self.it.key().unwrap_or_default()
    }
    fn value(&self) -> &[u8] {
        self.it.value().unwrap_or_default()
    }
    fn status(&self) -> Result<()> {
        self.it.status().map_err(engine)
    }
}
