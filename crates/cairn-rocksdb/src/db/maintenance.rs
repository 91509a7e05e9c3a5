//! `DB`'s maintenance calls: flushes (waited for or not), WAL sync, file ingestion, manual
//! compaction, dynamic options, properties and the latest sequence number.

use super::*;

impl<T: ThreadMode, Inner: DBInner> DBCommon<T, Inner> {
    /// Flushes the memtables of the default column family, waiting.
    pub fn flush(&self) -> Result<(), Error> {
        self.flush_opt(&FlushOptions::default())
    }

    /// Flushes the memtables of the default column family.
    pub fn flush_opt(&self, flushopts: &FlushOptions) -> Result<(), Error> {
        self.flush_family(self.engine().default_column_family(), flushopts)
    }

    /// Flushes the memtables of `cf`, waiting.
    pub fn flush_cf(&self, cf: &impl AsColumnFamilyRef) -> Result<(), Error> {
        self.flush_cf_opt(cf, &FlushOptions::default())
    }

    /// Flushes the memtables of `cf`.
    pub fn flush_cf_opt(
        &self,
        cf: &impl AsColumnFamilyRef,
        flushopts: &FlushOptions,
    ) -> Result<(), Error> {
        self.flush_family(cf.cf().clone(), flushopts)
    }

    fn flush_family(
        &self,
        cf: cairndb::ColumnFamily,
        flushopts: &FlushOptions,
    ) -> Result<(), Error> {
        if flushopts.wait {
            return Ok(self.engine().flush_cf(&cf)?);
        }
        let inner = Arc::clone(&self.inner);
        let handle = std::thread::Builder::new()
            .name("cairn-flush-nowait".into())
            .spawn(move || {
                // Not waited for: an error is the database's background error (as in RocksDB,
                // where a flush that fails after the call returned sets it).
                let _ = inner.db().flush_cf(&cf);
            })
            .map_err(|e| Error::new(format!("IO error: spawning the flush thread: {e}")))?;
        let mut running = self.background.lock();
        running.retain(|h| !h.is_finished());
        running.push(handle);
        Ok(())
    }

    /// Makes the WAL durable when `sync` (RocksDB's `FlushWAL(true)`: `Db::sync_wal`). Without
    /// `sync` there is nothing to do: CairnDB hands each write to the OS before acknowledging
    /// it, so its WAL has no buffer in the process.
    pub fn flush_wal(&self, sync: bool) -> Result<(), Error> {
        if sync {
            self.engine().sync_wal()?;
        }
        Ok(())
    }

    /// Flushes the memtables of each of `cfs`, one family after another (RocksDB's
    /// `Flush(options, column_families)`, which without atomic flush does the same).
    pub fn flush_cfs_opt(
        &self,
        cfs: &[&impl AsColumnFamilyRef],
        opts: &FlushOptions,
    ) -> Result<(), Error> {
        for cf in cfs {
            self.flush_family(cf.cf().clone(), opts)?;
        }
        Ok(())
    }

    /// Ingests table files written by [`crate::SstFileWriter`] into the default family.
    pub fn ingest_external_file<P: AsRef<Path>>(&self, paths: Vec<P>) -> Result<(), Error> {
        self.ingest_external_file_opts(&crate::IngestExternalFileOptions::default(), paths)
    }

    /// [`DBCommon::ingest_external_file`] with options.
    pub fn ingest_external_file_opts<P: AsRef<Path>>(
        &self,
        opts: &crate::IngestExternalFileOptions,
        paths: Vec<P>,
    ) -> Result<(), Error> {
        Ok(self.engine().ingest_external_file(&paths, &opts.inner)?)
    }

    /// Ingests table files into `cf`.
    pub fn ingest_external_file_cf<P: AsRef<Path>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        paths: Vec<P>,
    ) -> Result<(), Error> {
        self.ingest_external_file_cf_opts(cf, &crate::IngestExternalFileOptions::default(), paths)
    }

    /// Ingests table files into `cf`, with options.
    pub fn ingest_external_file_cf_opts<P: AsRef<Path>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        opts: &crate::IngestExternalFileOptions,
        paths: Vec<P>,
    ) -> Result<(), Error> {
        Ok(self
            .engine()
            .ingest_external_file_cf(cf.cf(), &paths, &opts.inner)?)
    }

    fn compact(
        &self,
        cf: &cairndb::ColumnFamily,
        range: (Option<Vec<u8>>, Option<Vec<u8>>),
        opts: &CompactOptions,
    ) {
        // RocksDB's binding returns nothing from a manual compaction, and neither can this one;
        // CairnDB's manual compaction always rewrites the last level (`Force`), so `Skip` and
        // `IfHaveCompactionFilter` without a filter do more work for the same contents.
        let _ = opts
            .bottommost
            .unwrap_or(BottommostLevelCompaction::IfHaveCompactionFilter);
        if opts.full_history_ts_low.is_some() || opts.refused.is_some() {
            // RocksDB fails such a compaction on a family without timestamps (and CairnDB's
            // families have none); its binding drops the error, and so does this one.
            return;
        }
        let _ = self
            .engine()
            .compact_range_cf(cf, range.0.as_deref(), range.1.as_deref());
    }

    /// Compacts the keys of the default column family in `[start, end]` (`None`: unbounded) to
    /// the last level. Errors are not returned (as in RocksDB's binding); they become the
    /// database's background error.
    pub fn compact_range<S: AsRef<[u8]>, E: AsRef<[u8]>>(&self, start: Option<S>, end: Option<E>) {
        self.compact_range_opt(start, end, &CompactOptions::default());
    }

    /// [`DBWithThreadMode::compact_range`] with options.
    pub fn compact_range_opt<S: AsRef<[u8]>, E: AsRef<[u8]>>(
        &self,
        start: Option<S>,
        end: Option<E>,
        opts: &CompactOptions,
    ) {
        let cf = self.engine().default_column_family();
        self.compact(&cf, keys_of(&start, &end), opts);
    }

    /// [`DBWithThreadMode::compact_range`] for `cf`.
    pub fn compact_range_cf<S: AsRef<[u8]>, E: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        start: Option<S>,
        end: Option<E>,
    ) {
        self.compact_range_cf_opt(cf, start, end, &CompactOptions::default());
    }

    /// [`DBWithThreadMode::compact_range`] for `cf`, with options.
    pub fn compact_range_cf_opt<S: AsRef<[u8]>, E: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        start: Option<S>,
        end: Option<E>,
        opts: &CompactOptions,
    ) {
        self.compact(cf.cf(), keys_of(&start, &end), opts);
    }

    /// Waits until no flush or compaction is running or due.
    pub fn wait_for_compact(&self, opts: &WaitForCompactOptions) -> Result<(), Error> {
        if let Some(r) = opts.refused.first() {
            return Err(Error::not_supported(r));
        }
        if opts.flush {
            for cf in self.engine().column_families() {
                self.engine().flush_cf(&cf)?;
            }
        }
        Ok(self.engine().wait_for_compactions()?)
    }

    /// Changes dynamic options of the default column family.
    pub fn set_options(&self, opts: &[(&str, &str)]) -> Result<(), Error> {
        Ok(self.engine().set_options_default(opts)?)
    }

    /// Changes dynamic options of `cf`.
    pub fn set_options_cf(
        &self,
        cf: &impl AsColumnFamilyRef,
        opts: &[(&str, &str)],
    ) -> Result<(), Error> {
        Ok(self.engine().set_options(cf.cf(), opts)?)
    }

    /// A property of the default column family (`Ok(None)` for a name CairnDB does not know).
    pub fn property_value(&self, name: impl CStrLike) -> Result<Option<String>, Error> {
        Ok(self.engine().property(&name.into_name()?))
    }

    /// A property of `cf`.
    pub fn property_value_cf(
        &self,
        cf: &impl AsColumnFamilyRef,
        name: impl CStrLike,
    ) -> Result<Option<String>, Error> {
        Ok(self.engine().property_cf(cf.cf(), &name.into_name()?))
    }

    /// An integer property of the default column family.
    pub fn property_int_value(&self, name: impl CStrLike) -> Result<Option<u64>, Error> {
        Ok(self.engine().property_int(&name.into_name()?))
    }

    /// An integer property of `cf`.
    pub fn property_int_value_cf(
        &self,
        cf: &impl AsColumnFamilyRef,
        name: impl CStrLike,
    ) -> Result<Option<u64>, Error> {
        Ok(self.engine().property_int_cf(cf.cf(), &name.into_name()?))
    }

    /// The sequence number of the last write.
    pub fn latest_sequence_number(&self) -> u64 {
        self.engine().latest_sequence()
    }
}
