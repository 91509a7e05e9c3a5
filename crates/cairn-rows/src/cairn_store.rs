//! [`KvStore`] on CairnDB: a [`TransactionDb`] with one column family per [`CfSpec`], each with
//! the configured options, its order, a fixed 4-byte prefix extractor and the row layer's
//! statistics collector.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cairndb::fs::{FileSystem, RealFs};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{
    BaseDeltaIter, ColumnFamily, ColumnFamilyDescriptor, IngestExternalFileOptions, KeyOrder,
    SizeApproximation, SstFileWriter, Transaction, TransactionDb, TransactionDbOptions,
    TransactionOptions,
};

use crate::error::{Error, Result};
use crate::store::{
    BulkEntries, Cursor, CursorBounds, Isolation, KvStore, KvTxn, StoreConfig, UserProperties,
};

/// CairnDB under the row layer. See the module documentation.
pub struct CairnStore {
    db: TransactionDb,
    cfs: Vec<ColumnFamily>,
    reverse: Vec<bool>,
    options: Options,
    write_options: WriteOptions,
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    next_load: AtomicU64,
}

impl std::fmt::Debug for CairnStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CairnStore")
            .field("dir", &self.dir)
            .finish()
    }
}

impl CairnStore {
    /// [`KvStore::open`] on file system `fs` (the tests' `MemFs`).
    ///
    /// # Errors
    /// As [`KvStore::open`].
    pub fn open_with_fs(fs: Arc<dyn FileSystem>, dir: &Path, config: &StoreConfig) -> Result<Self> {
        let mut options = Options::from_options_string(&config.options)
            .map_err(|e| Error::Engine(format!("options {:?}: {e}", config.options)))?;
        options.db.create_if_missing = true;
        options.db.create_missing_column_families = true;
        options
            .cf
            .apply_options_string("prefix_extractor=fixed:4", &Default::default())?;
        if let Some(c) = &config.collector {
            options
                .cf
                .table_properties_collector_factories
                .push(Arc::clone(c));
        }
        let mut families = Vec::new();
        for spec in &config.cfs {
            let mut cf = options.cf.clone();
            if spec.reverse {
                cf.comparator = KeyOrder::REVERSE_BYTEWISE;
            }
            if spec.name == "default" {
                options.cf = cf;
            } else {
                families.push(ColumnFamilyDescriptor::new(spec.name.clone(), cf));
            }
        }
        if !config.cfs.iter().any(|s| s.name == "default") {
            return Err(Error::Schema(
                "the default column family must be listed".into(),
            ));
        }
        let db = TransactionDb::open_cf_with_fs(
            Arc::clone(&fs),
            dir,
            options.clone(),
            TransactionDbOptions::default(),
            families,
        )?;
        let cfs = config
            .cfs
            .iter()
            .map(|s| {
                db.db()
                    .column_family(&s.name)
                    .ok_or_else(|| Error::Engine(format!("column family {} not open", s.name)))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(CairnStore {
            db,
            cfs,
            reverse: config.cfs.iter().map(|s| s.reverse).collect(),
            options,
            write_options: WriteOptions {
                sync: config.sync,
                ..WriteOptions::default()
            },
            fs,
            dir: dir.to_path_buf(),
            next_load: AtomicU64::new(0),
        })
    }

    /// The CairnDB database, for properties and statistics.
    pub fn db(&self) -> &cairndb::Db {
        self.db.db()
    }

    fn cf(&self, cf: usize) -> &ColumnFamily {
        &self.cfs[cf]
    }

    /// `[lower, upper)` bytewise as a range in family `cf`'s order.
    fn family_range<'k>(
        &self,
        cf: usize,
        lower: &'k [u8],
        upper: &'k [u8],
    ) -> (&'k [u8], &'k [u8]) {
        if self.reverse[cf] {
            (upper, lower)
        } else {
            (lower, upper)
        }
    }
}

impl KvStore for CairnStore {
    type Txn<'a> = CairnTxn<'a>;

    fn open(dir: &Path, config: &StoreConfig) -> Result<Self> {
        CairnStore::open_with_fs(RealFs::shared(), dir, config)
    }

    fn describe(&self) -> String {
        format!("cairndb {}", env!("CARGO_PKG_VERSION"))
    }

    fn begin(&self, isolation: Isolation) -> Result<CairnTxn<'_>> {
        let opts = TransactionOptions {
            set_snapshot: isolation == Isolation::RepeatableRead,
            ..TransactionOptions::default()
        };
        let txn = self.db.begin_transaction(&self.write_options, &opts)?;
        let read = ReadOptions {
            snapshot: txn.snapshot(),
            ..ReadOptions::default()
        };
        Ok(CairnTxn {
            txn,
            store: self,
            read,
        })
    }

    fn bulk_load(&self, cf: usize, entries: &mut BulkEntries<'_>) -> Result<()> {
        let n = self.next_load.fetch_add(1, Ordering::Relaxed);
        let path = self.dir.join(format!("bulk-load-{n}.sst.tmp"));
        let cf_options = self.cf(cf).options();
        let mut writer =
            SstFileWriter::for_family(Arc::clone(&self.fs), &self.options.db, &cf_options);
        writer.open(&path)?;
        let mut any = false;
        for entry in entries {
            // An error drops the unfinished writer, which deletes its file.
            let (k, v) = entry?;
            writer.put(&k, &v)?;
            any = true;
        }
        if !any {
            return Ok(());
        }
        writer.finish()?;
        let opts = IngestExternalFileOptions {
            move_files: true,
            ..IngestExternalFileOptions::default()
        };
        let r = self
            .db
            .db()
            .ingest_external_file_cf(self.cf(cf), &[&path], &opts);
        // Moved into the database on success; on failure, nothing else refers to it.
        let _ = self.fs.remove(&path);
        Ok(r?)
    }

    fn flush(&self) -> Result<()> {
        Ok(self.db.db().flush()?)
    }

    fn approximate_size(&self, cf: usize, lower: &[u8], upper: &[u8]) -> Result<Option<u64>> {
        let range = self.family_range(cf, lower, upper);
        let what = SizeApproximation {
            include_files: true,
            include_memtables: true,
        };
        Ok(Some(
            self.db
                .db()
                .get_approximate_sizes_cf(self.cf(cf), &[range], what)?[0],
        ))
    }

    fn table_user_properties(
        &self,
        cf: usize,
        lower: &[u8],
        upper: &[u8],
    ) -> Result<Option<Vec<UserProperties>>> {
        let range = self.family_range(cf, lower, upper);
        let tables = self
            .db
            .db()
            .get_properties_of_tables_in_range_cf(self.cf(cf), &[range])?;
        Ok(Some(
            tables
                .into_iter()
                .map(|t| t.properties.user_properties)
                .collect(),
        ))
    }

    fn live_sst_bytes(&self) -> u64 {
        self.cfs
            .iter()
            .filter_map(|cf| {
                self.db
                    .db()
                    .property_int_cf(cf, "rocksdb.live-sst-files-size")
            })
            .sum()
    }

    fn close(self) -> Result<()> {
        Ok(self.db.close()?)
    }
}

/// A CairnDB transaction under the row layer.
pub struct CairnTxn<'a> {
    txn: Transaction<'a>,
    store: &'a CairnStore,
    read: ReadOptions,
}

impl std::fmt::Debug for CairnTxn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CairnTxn")
            .field("id", &self.txn.id())
            .finish()
    }
}

impl KvTxn for CairnTxn<'_> {
    fn get(&mut self, cf: usize, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.txn.get_cf(&self.read, self.store.cf(cf), key)?)
    }

    fn get_for_update(&mut self, cf: usize, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self
            .txn
            .get_for_update_cf(&self.read, self.store.cf(cf), key, true)?)
    }

    fn multi_get(&mut self, cf: usize, keys: &[Vec<u8>]) -> Result<Vec<Option<Vec<u8>>>> {
        self.txn
            .multi_get_cf(&self.read, self.store.cf(cf), keys)
            .into_iter()
            .map(|r| r.map_err(Error::from))
            .collect()
    }

    fn put(&mut self, cf: usize, key: &[u8], value: &[u8]) -> Result<()> {
        Ok(self.txn.put_cf(self.store.cf(cf), key, value)?)
    }

    fn delete(&mut self, cf: usize, key: &[u8]) -> Result<()> {
        Ok(self.txn.delete_cf(self.store.cf(cf), key)?)
    }

    fn cursor<'c>(&'c self, cf: usize, bounds: CursorBounds<'_>) -> Result<Box<dyn Cursor + 'c>> {
        let mut read = self.read.clone();
        read.iterate_lower_bound = bounds.lower.map(<[u8]>::to_vec);
        read.iterate_upper_bound = bounds.upper.map(<[u8]>::to_vec);
        read.total_order_seek = bounds.total_order;
        let it = self.txn.iter_cf(&read, self.store.cf(cf))?;
        Ok(Box::new(CairnCursor(it)))
    }

    fn commit(mut self) -> Result<()> {
        Ok(self.txn.commit()?)
    }

    fn rollback(mut self) -> Result<()> {
        Ok(self.txn.rollback()?)
    }
}

struct CairnCursor<'a>(BaseDeltaIter<'a>);

impl Cursor for CairnCursor<'_> {
    fn seek(&mut self, target: &[u8]) {
        self.0.seek(target);
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        self.0.seek_for_prev(target);
    }
    fn next(&mut self) {
        self.0.next();
    }
    fn prev(&mut self) {
        self.0.prev();
    }
    fn valid(&self) -> bool {
        self.0.valid()
    }
    fn key(&self) -> &[u8] {
        self.0.key()
    }
    fn value(&self) -> &[u8] {
        self.0.value()
    }
    fn status(&self) -> Result<()> {
        Ok(self.0.status()?)
    }
}
