//! `Options` setters that map to a CairnDB option only in part, or not at all: each either
//! honours what CairnDB can, or is refused (the open fails, naming the setter and why), or is
//! one of the few accepted with no effect, each with its reason
//! (`docs/design/rocksdb_facade.md` lists them).

use std::fmt;

use super::*;

/// Setters that either map to CairnDB or are refused, and the few accepted with no effect
/// (each says why; `docs/design/rocksdb_facade.md` lists them).
impl Options {
    fn refuse_if(&mut self, cond: bool, setter: impl fmt::Display, why: &str) {
        if cond {
            self.refuse(setter, why);
        }
    }

    /// Refused when true: CairnDB keeps no database identity in its MANIFEST.
    pub fn set_write_dbid_to_manifest(&mut self, val: bool) {
        self.write_dbid_to_manifest = val;
        self.refuse_if(
            val,
            "set_write_dbid_to_manifest(true)",
            "CairnDB keeps no database identity in its MANIFEST",
        );
    }

    /// The value given to [`Options::set_write_dbid_to_manifest`] (false by default).
    pub fn get_write_dbid_to_manifest(&self) -> bool {
        self.write_dbid_to_manifest
    }

    /// Refused when true: CairnDB's MANIFEST does not record WAL sizes.
    pub fn set_track_and_verify_wals_in_manifest(&mut self, val: bool) {
        self.track_and_verify_wals_in_manifest = val;
        self.refuse_if(
            val,
            "set_track_and_verify_wals_in_manifest(true)",
            "CairnDB's MANIFEST does not record WAL sizes",
        );
    }

    /// The value given to [`Options::set_track_and_verify_wals_in_manifest`].
    pub fn get_track_and_verify_wals_in_manifest(&self) -> bool {
        self.track_and_verify_wals_in_manifest
    }

    /// WAL compression: `None` (CairnDB's WAL is not compressed); the others are refused.
    pub fn set_wal_compression_type(&mut self, t: DBCompressionType) {
        self.refuse_if(
            t != DBCompressionType::None,
            format!("set_wal_compression_type({t:?})"),
            "CairnDB's WAL is not compressed",
        );
    }

    /// Compression parameters: `level` is the zstd level (CairnDB's LZ4 and Snappy have no
    /// levels, as RocksDB's defaults); `w_bits` and `strategy` are zlib's, which is refused, so
    /// they change nothing; `max_dict_bytes` above 0 is refused (no compression dictionaries).
    pub fn set_compression_options(
        &mut self,
        w_bits: i32,
        level: i32,
        strategy: i32,
        max_dict_bytes: i32,
    ) {
        self.inner.cf.table.zstd_level = level;
        self.refuse_if(
            max_dict_bytes > 0,
            format!("set_compression_options({w_bits}, {level}, {strategy}, {max_dict_bytes})"),
            "compression dictionaries are not built",
        );
    }

    /// 0 is honoured; above 0 refused (compression dictionaries are not built).
    pub fn set_zstd_max_train_bytes(&mut self, value: i32) {
        self.refuse_if(
            value > 0,
            format!("set_zstd_max_train_bytes({value})"),
            "compression dictionaries are not built",
        );
    }

    /// Refused: CairnDB has no row cache.
    pub fn set_row_cache(&mut self, _cache: &Cache) {
        self.refuse("set_row_cache", "CairnDB has no row cache");
    }

    /// 0 (off) is honoured; other thresholds are refused (no memtable garbage collection).
    pub fn set_experimental_mempurge_threshold(&mut self, threshold: f64) {
        self.refuse_if(
            threshold != 0.0,
            format!("set_experimental_mempurge_threshold({threshold})"),
            "CairnDB has no memtable garbage collection (mempurge)",
        );
    }

    /// Refused when true: key-value separation (BlobDB) is not built.
    pub fn set_enable_blob_files(&mut self, val: bool) {
        self.refuse_if(
            val,
            "set_enable_blob_files(true)",
            "key-value separation (blob files) is not built",
        );
    }

    /// The value size from which values go to blob files. Blob files are refused
    /// ([`Options::set_enable_blob_files`]), and without them RocksDB does not use this size
    /// either.
    pub fn set_min_blob_size(&mut self, _val: u64) {}

    /// The cache of blob values: as [`Options::set_min_blob_size`], used only with blob files.
    pub fn set_blob_cache(&mut self, _cache: &Cache) {}

    /// Refused unless empty: every table lives in the database directory.
    pub fn set_db_paths(&mut self, paths: &[DBPath]) {
        if let Some(p) = paths.first() {
            self.refuse(
                format!("set_db_paths({}, {})", p.path.display(), p.target_size),
                "every table lives in the database directory",
            );
        }
    }

    /// Refused unless empty: every table lives in the database directory.
    pub fn set_cf_paths(&mut self, paths: &[DBPath]) {
        if let Some(p) = paths.first() {
            self.refuse(
                format!("set_cf_paths({}, {})", p.path.display(), p.target_size),
                "every table lives in the database directory",
            );
        }
    }

    /// Refused when true.
    pub fn set_avoid_unnecessary_blocking_io(&mut self, val: bool) {
        self.refuse_if(
            val,
            "set_avoid_unnecessary_blocking_io(true)",
            "CairnDB deletes obsolete files on the thread that releases them",
        );
    }

    /// Refused: the auto-tuned rate limiter is not built (the fixed one is,
    /// [`Options::set_ratelimiter`]).
    pub fn set_auto_tuned_ratelimiter(
        &mut self,
        rate_bytes_per_sec: i64,
        refill_period_us: i64,
        fairness: i32,
    ) {
        self.refuse(
            format!(
                "set_auto_tuned_ratelimiter({rate_bytes_per_sec}, {refill_period_us}, {fairness})"
            ),
            "the auto-tuned rate limiter is not built",
        );
    }

    /// Accepted with no effect: CairnDB's WAL and table writers assemble records and blocks in
    /// buffers of their own and hand each to the OS whole, so there is no file buffer to size.
    pub fn set_writable_file_max_buffer_size(&mut self, _nbytes: u64) {}

    /// Accepted with no effect: CairnDB's mutexes (parking_lot) always spin briefly before
    /// they block, which is what this option turns on in RocksDB.
    pub fn set_use_adaptive_mutex(&mut self, _enabled: bool) {}

    /// Refused when true: writes are inserted in WAL order.
    pub fn set_unordered_write(&mut self, unordered: bool) {
        self.refuse_if(
            unordered,
            "set_unordered_write(true)",
            "CairnDB inserts writes into the memtable in WAL order",
        );
    }

    /// 0 is honoured (statistics are not persisted); other periods are refused.
    pub fn set_stats_persist_period_sec(&mut self, period: u32) {
        self.refuse_if(
            period != 0,
            format!("set_stats_persist_period_sec({period})"),
            "CairnDB does not persist statistics in the database",
        );
    }

    /// Refused when true: the memtable's Bloom filter holds prefixes only.
    pub fn set_memtable_whole_key_filtering(&mut self, whole_key_filter: bool) {
        self.refuse_if(
            whole_key_filter,
            "set_memtable_whole_key_filtering(true)",
            "CairnDB's memtable Bloom filter holds prefixes only",
        );
    }

    /// Accepted with no effect: CairnDB allocates through Rust's global allocator, which keeps
    /// no statistics to dump into the LOG.
    pub fn set_dump_malloc_stats(&mut self, _enabled: bool) {}

    /// Refused: the LOG is always written in the database directory.
    pub fn set_db_log_dir<P: AsRef<std::path::Path>>(&mut self, path: P) {
        self.refuse(
            format!("set_db_log_dir({})", path.as_ref().display()),
            "the LOG is always written in the database directory",
        );
    }

    /// Refused when true: atomic flush of several families is not built.
    pub fn set_atomic_flush(&mut self, atomic_flush: bool) {
        self.refuse_if(
            atomic_flush,
            "set_atomic_flush(true)",
            "atomic flush of several column families is not built",
        );
    }

    /// The options of the database at `path` from its newest OPTIONS file, and a descriptor
    /// per column family. Unknown options fail unless `ignore_unknown_options`; every family is
    /// given `cache` as its block cache and `env` as the file system.
    pub fn load_latest<P: AsRef<std::path::Path>>(
        path: P,
        env: Env,
        ignore_unknown_options: bool,
        cache: Cache,
    ) -> Result<(Options, Vec<crate::ColumnFamilyDescriptor>), Error> {
        use cairndb::options::{OptionsFile, ParseConfig};
        let dir = path.as_ref();
        let latest = OptionsFile::latest(&*env.fs, dir)?
            .ok_or_else(|| Error::new(format!("NotFound: no OPTIONS file in {}", dir.display())))?;
        let cfg = ParseConfig {
            ignore_unknown_options,
        };
        let (file, _warnings) = OptionsFile::load(&*env.fs, &latest, &cfg)?;
        let wrap = |db: &cairndb::options::DbOptions, cf: &cairndb::options::CfOptions| {
            let mut o = Options::default();
            o.inner.db = db.clone();
            o.inner.cf = cf.clone();
            o.inner.cf.table.block_cache = Some(std::sync::Arc::clone(&cache.inner));
            o.set_env(&env);
            o
        };
        let db_opts = file.to_options();
        let options = wrap(&db_opts.db, &db_opts.cf);
        let descriptors = file
            .families
            .iter()
            .map(|(name, cf)| crate::ColumnFamilyDescriptor::new(name.clone(), wrap(&file.db, cf)))
            .collect();
        Ok((options, descriptors))
    }
}
