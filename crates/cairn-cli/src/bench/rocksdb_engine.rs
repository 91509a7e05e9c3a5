//! RocksDB as a [`BenchEngine`] (the `rocksdb` feature: the `rocksdb` crate with its bundled
//! RocksDB), opened as db_bench opens it for the same flags.
//!
//! Options follow db_bench's `InitializeOptionsFromFlags`: each [`EngineOptions`] field goes to
//! the RocksDB option of the same name, everything else keeps RocksDB's default, as in db_bench.
//! Three things db_bench sets away from RocksDB's defaults are set here too:
//! `enable_pipelined_write` (db_bench's default true), `delayed_write_rate` (8 MiB/s) and
//! `hard_pending_compaction_bytes_limit` (128 GiB), the last two from their flags.
//!
//! Not reproduced: db_bench's `--index_shortening_mode` default of 2
//! (`kShortenSeparatorsAndSuccessor`; the crate has no setter, so RocksDB's default
//! `kShortenSeparators` applies, which changes only the last index key of each file).

use std::path::Path;

use std::sync::Mutex;

use rocksdb::statistics::Ticker;
use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamilyDescriptor, DBCompactionStyle, DBCompressionType,
    DBPinnableSlice, DBRawIterator, Options, ReadOptions, WriteBatch, WriteOptions, DB,
    DEFAULT_COLUMN_FAMILY_NAME,
};

use super::engine::{
    BenchBatch, BenchEngine, BenchError, BenchIter, CacheType, CompactionStyle, Compression,
    EngineOptions, Result, WriteMode,
};

/// Read options shared by the benchmark threads.
struct SharedReadOptions(ReadOptions);

// SAFETY: RocksDB takes `const ReadOptions&` in Get and MultiGet and never writes through it;
// the wrapped options are built once in `open` and never changed, so concurrent reads of the
// same C++ object from several threads are data-race free.
unsafe impl Sync for SharedReadOptions {}

/// A RocksDB database under test.
pub struct RocksDbEngine {
    db: DB,
    read_options: SharedReadOptions,
    /// The options the database was opened with, kept for their `Statistics` (`--statistics`);
    /// in a mutex because `Options` is not `Sync`.
    options: Mutex<Options>,
    statistics: bool,
    multiread_batched: bool,
    num_levels: u32,
    /// RocksDB's version, from the OPTIONS file it wrote when opening.
    version: String,
}

impl std::fmt::Debug for RocksDbEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksDbEngine")
            .field("path", &self.db.path())
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// A value RocksDB returned: pinned in its block cache or memtable (`Get`, batched `MultiGet`),
/// or copied out (the vector `MultiGet`).
pub enum RocksValue<'a> {
    /// Pinned by RocksDB until dropped.
    Pinned(DBPinnableSlice<'a>),
    /// Copied out.
    Owned(Vec<u8>),
}

impl AsRef<[u8]> for RocksValue<'_> {
    fn as_ref(&self) -> &[u8] {
        match self {
            RocksValue::Pinned(v) => v.as_ref(),
            RocksValue::Owned(v) => v,
        }
    }
}

fn to_i32(flag: &str, v: u32) -> Result<i32> {
    i32::try_from(v).map_err(|_| BenchError::Usage(format!("--{flag}={v} is out of range")))
}

fn to_usize(flag: &str, v: u64) -> Result<usize> {
    usize::try_from(v).map_err(|_| BenchError::Usage(format!("--{flag}={v} is out of range")))
}

fn to_i64(flag: &str, v: u64) -> Result<i64> {
    i64::try_from(v).map_err(|_| BenchError::Usage(format!("--{flag}={v} is out of range")))
}

/// RocksDB's options for `o`, as db_bench sets them.
///
/// # Errors
/// [`BenchError::Usage`] for values out of RocksDB's integer ranges; RocksDB's error for an
/// option string it rejects.
pub fn rocksdb_options(o: &EngineOptions) -> Result<Options> {
    // The crate has no setter for delayed_write_rate; RocksDB's option-string parser sets it.
    let mut opts = Options::default()
        .get_options_from_string(format!("delayed_write_rate={}", o.delayed_write_rate))?;
    opts.create_if_missing(true);
    opts.create_missing_column_families(true);
    opts.set_max_background_jobs(to_i32("max_background_jobs", o.max_background_jobs)?);
    opts.set_max_subcompactions(o.max_subcompactions);
    opts.set_max_open_files(o.max_open_files);
    if let Some(bytes) = o.bytes_per_sync {
        opts.set_bytes_per_sync(bytes);
    }
    opts.set_enable_pipelined_write(o.enable_pipelined_write);
    opts.set_write_buffer_size(o.write_buffer_size);
    opts.set_memtable_huge_page_size(o.memtable_huge_page_size);
    opts.set_max_write_buffer_number(to_i32(
        "max_write_buffer_number",
        o.max_write_buffer_number,
    )?);
    opts.set_min_write_buffer_number_to_merge(to_i32(
        "min_write_buffer_number_to_merge",
        o.min_write_buffer_number_to_merge,
    )?);
    opts.set_target_file_size_base(o.target_file_size_base);
    opts.set_target_file_size_multiplier(to_i32(
        "target_file_size_multiplier",
        o.target_file_size_multiplier,
    )?);
    opts.set_max_bytes_for_level_base(o.max_bytes_for_level_base);
    opts.set_max_bytes_for_level_multiplier(o.max_bytes_for_level_multiplier);
    opts.set_level_compaction_dynamic_level_bytes(o.level_compaction_dynamic_level_bytes);
    opts.set_num_levels(to_i32("num_levels", o.num_levels)?);
    opts.set_level_zero_file_num_compaction_trigger(to_i32(
        "level0_file_num_compaction_trigger",
        o.level0_file_num_compaction_trigger,
    )?);
    opts.set_level_zero_slowdown_writes_trigger(to_i32(
        "level0_slowdown_writes_trigger",
        o.level0_slowdown_writes_trigger,
    )?);
    opts.set_level_zero_stop_writes_trigger(to_i32(
        "level0_stop_writes_trigger",
        o.level0_stop_writes_trigger,
    )?);
    opts.set_soft_pending_compaction_bytes_limit(to_usize(
        "soft_pending_compaction_bytes_limit",
        o.soft_pending_compaction_bytes_limit,
    )?);
    opts.set_hard_pending_compaction_bytes_limit(to_usize(
        "hard_pending_compaction_bytes_limit",
        o.hard_pending_compaction_bytes_limit,
    )?);
    opts.set_compaction_style(match o.compaction_style {
        CompactionStyle::Level => DBCompactionStyle::Level,
        CompactionStyle::Universal => DBCompactionStyle::Universal,
        CompactionStyle::Fifo => DBCompactionStyle::Fifo,
    });
    if o.statistics {
        opts.enable_statistics();
    }
    if let Some(r) = o.rate_limiter {
        // The crate makes only kWritesOnly limiters (rocksdb_ratelimiter_create).
        if r.bg_reads {
            return Err(BenchError::Usage(
                "--rate_limit_bg_reads: the rocksdb crate cannot set a rate limiter's mode".into(),
            ));
        }
        opts.set_ratelimiter(
            to_i64("rate_limiter_bytes_per_sec", r.bytes_per_sec)?,
            to_i64("rate_limiter_refill_period_us", r.refill_period_us)?,
            10,
        );
    }
    opts.set_compression_type(match o.compression {
        Compression::None => DBCompressionType::None,
        Compression::Lz4 => DBCompressionType::Lz4,
        Compression::Zstd => DBCompressionType::Zstd,
    });
    let mut table = BlockBasedOptions::default();
    table.set_block_size(o.block_size);
    // Without bits per key, RocksDB's default applies: no filter (db_bench's --bloom_bits=-1).
    if let Some(bits) = o.bloom_bits_per_key {
        table.set_bloom_filter(bits, false);
    }
    match o.block_cache {
        Some((CacheType::Lru, capacity)) => table.set_block_cache(&Cache::new_lru_cache(capacity)),
        // Estimated entry charge 0: the automatic HyperClockCache, as db_bench's
        // hyper_clock_cache.
        Some((CacheType::HyperClock, capacity)) => {
            table.set_block_cache(&Cache::new_hyper_clock_cache(capacity, 0));
        }
        None => table.disable_cache(),
    }
    opts.set_block_based_table_factory(&table);
    if let Some(path) = &o.options_file {
        return Err(BenchError::Usage(format!(
            "--options_file {} with --engine rocksdb: the rocksdb crate this cairn is built with \
             has no call that loads an OPTIONS file into its Options; pass the options with \
             --options instead",
            path.display()
        )));
    }
    if let Some(s) = &o.options_string {
        // RocksDB's own parser, over the options set from the flags (it has no
        // ignore-unknown mode in the crate's API, so --ignore_unknown_options does not apply).
        opts = opts.get_options_from_string(s.clone())?;
    }
    Ok(opts)
}

/// The `rocksdb_version` recorded in the newest OPTIONS file of `dir`.
fn rocksdb_version(dir: &Path) -> Option<String> {
    let newest = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let number: u64 = name.strip_prefix("OPTIONS-")?.parse().ok()?;
            Some((number, e.path()))
        })
        .max()?;
    let text = std::fs::read_to_string(newest.1).ok()?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("rocksdb_version="))
        .map(str::to_string)
}

impl BenchBatch for WriteBatch {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        WriteBatch::put(self, key, value);
        Ok(())
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        WriteBatch::delete(self, key);
        Ok(())
    }
}

impl BenchIter for DBRawIterator<'_> {
    fn seek_to_first(&mut self) {
        DBRawIterator::seek_to_first(self);
    }

    fn seek_to_last(&mut self) {
        DBRawIterator::seek_to_last(self);
    }

    fn seek(&mut self, target: &[u8]) {
        DBRawIterator::seek(self, target);
    }

    fn next(&mut self) {
        DBRawIterator::next(self);
    }

    fn prev(&mut self) {
        DBRawIterator::prev(self);
    }

    fn valid(&self) -> bool {
        DBRawIterator::valid(self)
    }

    fn key(&self) -> &[u8] {
        DBRawIterator::key(self).expect("key() requires valid()")
    }

    fn value(&self) -> &[u8] {
        DBRawIterator::value(self).expect("value() requires valid()")
    }

    fn status(&self) -> Result<()> {
        Ok(DBRawIterator::status(self)?)
    }
}

impl BenchEngine for RocksDbEngine {
    type Value<'a> = RocksValue<'a>;
    type WriteOptions = WriteOptions;
    type Batch = WriteBatch;
    type Iter<'a> = DBRawIterator<'a>;

    fn open(dir: &Path, options: &EngineOptions) -> Result<Self> {
        let opts = rocksdb_options(options)?;
        // The default column family is named so that batched MultiGet can be given its handle;
        // it gets the same options (`DB::open_cf` would give it RocksDB's defaults).
        let default_cf = ColumnFamilyDescriptor::new(DEFAULT_COLUMN_FAMILY_NAME, opts.clone());
        let db = DB::open_cf_descriptors(&opts, dir, [default_cf])?;
        Ok(RocksDbEngine {
            db,
            read_options: SharedReadOptions(ReadOptions::default()),
            options: Mutex::new(opts),
            statistics: options.statistics,
            multiread_batched: options.multiread_batched,
            num_levels: options.num_levels,
            version: rocksdb_version(dir).unwrap_or_else(|| "unknown".to_string()),
        })
    }

    fn describe(&self) -> String {
        format!(
            "rocksdb (RocksDB version {}, bundled by the rocksdb crate)",
            self.version
        )
    }

    fn write_options(&self, mode: WriteMode) -> Result<WriteOptions> {
        if mode.sync && mode.disable_wal {
            return Err(BenchError::Usage(
                "--sync with --disable_wal: there is no WAL to sync".to_string(),
            ));
        }
        let mut wo = WriteOptions::default();
        wo.set_sync(mode.sync);
        wo.disable_wal(mode.disable_wal);
        Ok(wo)
    }

    fn put(&self, wo: &WriteOptions, key: &[u8], value: &[u8]) -> Result<()> {
        Ok(self.db.put_opt(key, value, wo)?)
    }

    fn delete(&self, wo: &WriteOptions, key: &[u8]) -> Result<()> {
        Ok(self.db.delete_opt(key, wo)?)
    }

    fn new_batch(&self) -> WriteBatch {
        WriteBatch::default()
    }

    fn write(&self, wo: &WriteOptions, batch: WriteBatch) -> Result<()> {
        Ok(self.db.write_opt(batch, wo)?)
    }

    fn get(&self, key: &[u8]) -> Result<Option<RocksValue<'_>>> {
        Ok(self
            .db
            .get_pinned_opt(key, &self.read_options.0)?
            .map(RocksValue::Pinned))
    }

    fn multi_get(&self, keys: &[&[u8]]) -> Result<Vec<Option<RocksValue<'_>>>> {
        if self.multiread_batched {
            let cf = self
                .db
                .cf_handle(DEFAULT_COLUMN_FAMILY_NAME)
                .expect("opened with the default column family named");
            self.db
                .batched_multi_get_cf_opt(cf, keys.iter().copied(), false, &self.read_options.0)
                .into_iter()
                .map(|r| Ok(r?.map(RocksValue::Pinned)))
                .collect()
        } else {
            self.db
                .multi_get_opt(keys, &self.read_options.0)
                .into_iter()
                .map(|r| Ok(r?.map(RocksValue::Owned)))
                .collect()
        }
    }

    fn iter(&self) -> Result<DBRawIterator<'_>> {
        Ok(self.db.raw_iterator_opt(ReadOptions::default()))
    }

    fn flush(&self) -> Result<()> {
        Ok(self.db.flush()?)
    }

    fn compact(&self) -> Result<()> {
        self.db.compact_range::<&[u8], &[u8]>(None, None);
        Ok(())
    }

    fn wait_for_compaction(&self) -> Result<()> {
        Ok(self
            .db
            .wait_for_compact(&rocksdb::WaitForCompactOptions::default())?)
    }

    fn properties(&self) -> Vec<(String, String)> {
        let int = |name: &str| self.db.property_int_value(name).ok().flatten();
        let files: Vec<String> = (0..self.num_levels)
            .map(|l| {
                let n = int(&format!("rocksdb.num-files-at-level{l}"));
                format!("L{l}={}", n.map_or("?".to_string(), |n| n.to_string()))
            })
            .collect();
        let mut props = vec![("files per level".to_string(), files.join(" "))];
        for (label, name) in [
            ("immutable memtables", "rocksdb.num-immutable-mem-table"),
            ("estimated keys", "rocksdb.estimate-num-keys"),
            ("live SST bytes", "rocksdb.live-sst-files-size"),
            ("running compactions", "rocksdb.num-running-compactions"),
            ("block cache bytes used", "rocksdb.block-cache-usage"),
            ("block cache capacity", "rocksdb.block-cache-capacity"),
        ] {
            if let Some(v) = int(name) {
                props.push((label.to_string(), v.to_string()));
            }
        }
        props
    }

    /// With `--statistics`, RocksDB's `rocksdb.flush.write.bytes` + `rocksdb.compact.write.bytes`
    /// tickers (exact); otherwise the "Cumulative compaction: X GB write" line of the
    /// `rocksdb.stats` property (flushes included, as they are L0's compaction stats), which
    /// RocksDB prints to 0.01 GB.
    fn table_bytes_written(&self) -> Option<u64> {
        if self.statistics {
            let o = self.options.lock().expect("options lock");
            return Some(
                o.get_ticker_count(Ticker::FlushWriteBytes)
                    + o.get_ticker_count(Ticker::CompactWriteBytes),
            );
        }
        let stats = self.db.property_value("rocksdb.stats").ok()??;
        let gb: f64 = stats
            .lines()
            .find_map(|l| l.strip_prefix("Cumulative compaction: "))?
            .split_whitespace()
            .next()?
            .parse()
            .ok()?;
        Some((gb * (1u64 << 30) as f64) as u64)
    }

    fn write_amp_source(&self) -> &'static str {
        if self.statistics {
            "rocksdb: flush.write.bytes + compact.write.bytes tickers (--statistics)"
        } else {
            "rocksdb: rocksdb.stats 'Cumulative compaction: GB write' (0.01 GB resolution; \
             --statistics for exact tickers)"
        }
    }

    fn stats_report(&self, which: &str) -> String {
        let property = format!("rocksdb.{which}");
        match self.db.property_value(&property) {
            Ok(Some(v)) => v.trim_end().to_string(),
            Ok(None) => format!("{property}: not available"),
            Err(e) => format!("{property}: {e}"),
        }
    }

    fn statistics(&self) -> String {
        if !self.statistics {
            return "statistics: run with --statistics=1 to collect RocksDB's".to_string();
        }
        let o = self.options.lock().expect("options lock");
        o.get_statistics()
            .unwrap_or_else(|| "statistics: none collected".to_string())
    }

    fn close(self) -> Result<()> {
        // Dropping the handle closes the database; RocksDB waits for running background jobs.
        drop(self.db);
        Ok(())
    }
}
