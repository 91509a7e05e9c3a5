//! CairnDB as a [`BenchEngine`]: a [`Db`] opened with the [`EngineOptions`] mapped onto
//! [`Options`] field by field (CairnDB's options carry RocksDB's names, units and meanings).
//!
//! CairnDB has no compaction or write control yet. The compaction and write-control options
//! (`level0_*` triggers, level sizing, target file sizes, pending-compaction limits,
//! `delayed_write_rate`, `max_subcompactions`) are still passed into their [`Options`] fields,
//! so that they are validated as RocksDB would and take effect when those parts exist; today
//! flushes accumulate in L0. `enable_pipelined_write` and `multiread_batched` have no CairnDB
//! counterpart and are used by the RocksDB engine only.
//!
//! With `transaction_db` the database is opened as a [`TransactionDb`] (writes outside
//! transactions lock their keys, as RocksDB's `TransactionDB::Put` and `Write`) or an
//! [`OptimisticTransactionDb`] (writes go to its base database, as db_bench's `GetBaseDB`), with
//! the default transaction-database options, as db_bench opens them.

use std::path::Path;
use std::sync::Arc;

use cairndb::batch::WriteBatch;
use cairndb::cache::{Cache, CacheOptions, CachePolicy};
use cairndb::db::DbIter;
use cairndb::options::{
    CompactionStyle, Options, OptionsFile, ParseConfig, RateLimiter, RateLimiterMode, ReadOptions,
    WriteOptions,
};
use cairndb::sstable::BlockCache;
use cairndb::types::CompressionType;
use cairndb::{
    Db, OptimisticTransaction, OptimisticTransactionDb, OptimisticTransactionDbOptions,
    OptimisticTransactionOptions, Transaction, TransactionDb, TransactionDbOptions,
    TransactionOptions,
};

use super::engine::{
    BenchBatch, BenchEngine, BenchError, BenchIter, BenchTxn, CacheType,
    CompactionStyle as BenchStyle, Compression, EngineOptions, Result, TransactionDbKind,
    TxnOptions, WriteMode,
};

/// The database as opened: plain, or a transaction database ([`EngineOptions::transaction_db`]).
#[derive(Debug)]
enum Handle {
    Plain(Db),
    /// Boxed: its lock table makes it several times larger than the other two.
    Pessimistic(Box<TransactionDb>),
    Optimistic(OptimisticTransactionDb),
}

/// A CairnDB database under test.
#[derive(Debug)]
pub struct CairnEngine {
    handle: Handle,
    read_options: ReadOptions,
    /// The block cache the tables read through, kept for its statistics.
    cache: Option<Arc<BlockCache>>,
    /// The tickers and histograms (`--statistics=1`).
    statistics: Option<Arc<cairndb::options::Statistics>>,
}

/// Replaces `opts` by the options of `o.options_file` (keeping `create_if_missing` and the
/// statistics object), then applies `o.options_string`; warnings for skipped options go to
/// stderr.
fn apply_user_options(opts: &mut Options, o: &EngineOptions) -> Result<()> {
    let cfg = ParseConfig {
        ignore_unknown_options: o.ignore_unknown_options,
    };
    if let Some(path) = &o.options_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| BenchError::Usage(format!("--options_file {}: {e}", path.display())))?;
        let (file, warnings) = OptionsFile::parse(&text, &cfg)
            .map_err(|e| BenchError::Usage(format!("--options_file {}: {e}", path.display())))?;
        for w in warnings {
            eprintln!("cairn bench: warning: --options_file: {w}");
        }
        let mut from_file = file.to_options();
        from_file.db.create_if_missing = true;
        from_file.db.statistics = opts.db.statistics.take();
        *opts = from_file;
    }
    if let Some(s) = &o.options_string {
        let warnings = opts
            .apply_options_string(s, &cfg)
            .map_err(|e| BenchError::Usage(format!("--options: {e}")))?;
        for w in warnings {
            eprintln!("cairn bench: warning: --options: {w}");
        }
    }
    Ok(())
}

/// CairnDB's options for `o`.
///
/// # Errors
/// [`BenchError::Cairn`] naming the first option CairnDB's validation rejects.
pub fn cairn_options(o: &EngineOptions) -> Result<Options> {
    let mut opts = Options::default();
    let db = &mut opts.db;
    db.create_if_missing = true;
    db.max_background_jobs = o.max_background_jobs;
    db.max_subcompactions = o.max_subcompactions;
    if o.statistics {
        db.statistics = Some(Arc::new(cairndb::options::Statistics::new()));
    }
    db.max_open_files = o.max_open_files;
    db.delayed_write_rate = o.delayed_write_rate;
    db.enable_pipelined_write = o.enable_pipelined_write;
    db.compaction_cpu_priority = o.compaction_cpu_priority;
    db.flush_cpu_priority = o.flush_cpu_priority;
    db.recycle_log_file_num = o.recycle_log_file_num;
    if let Some(bytes) = o.bytes_per_sync {
        db.bytes_per_sync = bytes;
    }
    if let Some(r) = o.rate_limiter {
        let mode = if r.bg_reads {
            RateLimiterMode::ReadsOnly
        } else {
            RateLimiterMode::WritesOnly
        };
        db.rate_limiter = Some(Arc::new(if r.backlog_control {
            RateLimiter::backlog_controlled(r.bytes_per_sec, r.refill_period_us)?
        } else {
            RateLimiter::with_mode(r.bytes_per_sec, r.refill_period_us, 10, mode)?
        }));
    }
    let cf = &mut opts.cf;
    cf.write_buffer_size = o.write_buffer_size;
    cf.memtable_huge_page_size = o.memtable_huge_page_size;
    cf.max_write_buffer_number = o.max_write_buffer_number;
    cf.min_write_buffer_number_to_merge = o.min_write_buffer_number_to_merge;
    cf.target_file_size_base = o.target_file_size_base;
    cf.target_file_size_multiplier = o.target_file_size_multiplier;
    cf.max_bytes_for_level_base = o.max_bytes_for_level_base;
    cf.max_bytes_for_level_multiplier = o.max_bytes_for_level_multiplier;
    cf.level_compaction_dynamic_level_bytes = o.level_compaction_dynamic_level_bytes;
    cf.num_levels = o.num_levels;
    cf.level0_file_num_compaction_trigger = o.level0_file_num_compaction_trigger;
    cf.level0_slowdown_writes_trigger = o.level0_slowdown_writes_trigger;
    cf.level0_stop_writes_trigger = o.level0_stop_writes_trigger;
    cf.soft_pending_compaction_bytes_limit = o.soft_pending_compaction_bytes_limit;
    cf.hard_pending_compaction_bytes_limit = o.hard_pending_compaction_bytes_limit;
    cf.compaction_style = match o.compaction_style {
        BenchStyle::Level => CompactionStyle::Level,
        BenchStyle::Universal => CompactionStyle::Universal,
        BenchStyle::Fifo => CompactionStyle::Fifo,
    };
    cf.compression = match o.compression {
        Compression::None => CompressionType::None,
        Compression::Lz4 => CompressionType::Lz4,
        Compression::Zstd => CompressionType::Zstd,
        Compression::Snappy => CompressionType::Snappy,
    };
    cf.table.block_size = o.block_size;
    cf.table.bloom_bits_per_key = o.bloom_bits_per_key.unwrap_or(0.0);
    cf.table.block_cache = o.block_cache.map(|(kind, capacity)| {
        let policy = match kind {
            CacheType::Lru => CachePolicy::Lru,
            CacheType::HyperClock => CachePolicy::Clock,
        };
        Arc::new(Cache::new(CacheOptions {
            policy,
            ..CacheOptions::with_capacity(capacity)
        }))
    });
    apply_user_options(&mut opts, o)?;
    opts.validate()?;
    Ok(opts)
}

impl BenchBatch for WriteBatch {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        Ok(WriteBatch::put(self, key, value)?)
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        Ok(WriteBatch::delete(self, key)?)
    }
}

impl BenchIter for DbIter {
    fn seek_to_first(&mut self) {
        DbIter::seek_to_first(self);
    }

    fn seek_to_last(&mut self) {
        DbIter::seek_to_last(self);
    }

    fn seek(&mut self, target: &[u8]) {
        DbIter::seek(self, target);
    }

    fn next(&mut self) {
        DbIter::next(self);
    }

    fn prev(&mut self) {
        DbIter::prev(self);
    }

    fn valid(&self) -> bool {
        DbIter::valid(self)
    }

    fn key(&self) -> &[u8] {
        DbIter::key(self)
    }

    fn value(&self) -> &[u8] {
        DbIter::value(self)
    }

    fn status(&self) -> Result<()> {
        Ok(DbIter::status(self)?)
    }
}

impl CairnEngine {
    /// The database (a transaction database's base database).
    fn db(&self) -> &Db {
        match &self.handle {
            Handle::Plain(db) => db,
            Handle::Pessimistic(t) => t.db(),
            Handle::Optimistic(o) => o.db(),
        }
    }
}

/// A pessimistic transaction and the read options of its reads.
#[derive(Debug)]
struct PessimisticTxn<'a> {
    txn: Transaction<'a>,
    read: ReadOptions,
}

impl BenchTxn for PessimisticTxn<'_> {
    fn has_snapshot(&self) -> bool {
        self.txn.snapshot().is_some()
    }

    fn set_snapshot(&mut self) -> Result<()> {
        self.txn.set_snapshot()?;
        self.read.snapshot = self.txn.snapshot();
        Ok(())
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.txn.get(&self.read, key)?)
    }

    fn get_for_update(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.txn.get_for_update(&self.read, key, true)?)
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        Ok(self.txn.delete(key)?)
    }

    fn single_delete(&mut self, key: &[u8]) -> Result<()> {
        Ok(self.txn.single_delete(key)?)
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        Ok(self.txn.put(key, value)?)
    }

    fn set_name(&mut self, name: &str) -> Result<()> {
        Ok(self.txn.set_name(name)?)
    }

    fn prepare(&mut self) -> Result<()> {
        Ok(self.txn.prepare()?)
    }

    fn commit_time_put(&mut self, key: &[u8], value: &[u8]) -> Result<bool> {
        self.txn.commit_time_write_batch().put(key, value)?;
        Ok(true)
    }

    fn commit(&mut self) -> Result<()> {
        Ok(self.txn.commit()?)
    }

    fn rollback(&mut self) -> Result<()> {
        Ok(self.txn.rollback()?)
    }
}

/// An optimistic transaction and the read options of its reads.
#[derive(Debug)]
struct OptimisticTxn<'a> {
    txn: OptimisticTransaction<'a>,
    read: ReadOptions,
}

impl BenchTxn for OptimisticTxn<'_> {
    fn has_snapshot(&self) -> bool {
        self.txn.snapshot().is_some()
    }

    fn set_snapshot(&mut self) -> Result<()> {
        self.txn.set_snapshot()?;
        self.read.snapshot = self.txn.snapshot();
        Ok(())
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.txn.get(&self.read, key)?)
    }

    fn get_for_update(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.txn.get_for_update(&self.read, key)?)
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        Ok(self.txn.delete(key)?)
    }

    fn single_delete(&mut self, key: &[u8]) -> Result<()> {
        Ok(self.txn.single_delete(key)?)
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        Ok(self.txn.put(key, value)?)
    }

    fn set_name(&mut self, _name: &str) -> Result<()> {
        Err(BenchError::optimistic_has_no_2pc())
    }

    fn prepare(&mut self) -> Result<()> {
        Err(BenchError::optimistic_has_no_2pc())
    }

    fn commit_time_put(&mut self, _key: &[u8], _value: &[u8]) -> Result<bool> {
        Err(BenchError::optimistic_has_no_2pc())
    }

    fn commit(&mut self) -> Result<()> {
        Ok(self.txn.commit()?)
    }

    fn rollback(&mut self) -> Result<()> {
        Ok(self.txn.rollback()?)
    }
}

impl BenchEngine for CairnEngine {
    type Value<'a> = Vec<u8>;
    type WriteOptions = WriteOptions;
    type Batch = WriteBatch;
    type Iter<'a> = DbIter;

    fn open(dir: &Path, options: &EngineOptions) -> Result<Self> {
        let opts = cairn_options(options)?;
        let cache = opts.cf.table.block_cache.clone();
        let statistics = opts.db.statistics.clone();
        let handle =
            match options.transaction_db {
                TransactionDbKind::None => Handle::Plain(Db::open(dir, opts)?),
                TransactionDbKind::Pessimistic => Handle::Pessimistic(Box::new(
                    TransactionDb::open(dir, opts, TransactionDbOptions::default())?,
                )),
                TransactionDbKind::Optimistic => Handle::Optimistic(OptimisticTransactionDb::open(
                    dir,
                    opts,
                    OptimisticTransactionDbOptions::default(),
                )?),
            };
        Ok(CairnEngine {
            statistics,
            handle,
            read_options: ReadOptions::default(),
            cache,
        })
    }

    fn describe(&self) -> String {
        format!("cairndb (CairnDB version {})", env!("CARGO_PKG_VERSION"))
    }

    fn write_options(&self, mode: WriteMode) -> Result<WriteOptions> {
        let wo = WriteOptions {
            sync: mode.sync,
            disable_wal: mode.disable_wal,
            ..WriteOptions::default()
        };
        wo.validate()
            .map_err(|e| BenchError::Usage(format!("--sync with --disable_wal: {e}")))?;
        Ok(wo)
    }

    fn put(&self, wo: &WriteOptions, key: &[u8], value: &[u8]) -> Result<()> {
        match &self.handle {
            Handle::Pessimistic(t) => Ok(t.put(wo, key, value)?),
            _ => Ok(self.db().put(wo, key, value)?),
        }
    }

    fn delete(&self, wo: &WriteOptions, key: &[u8]) -> Result<()> {
        match &self.handle {
            Handle::Pessimistic(t) => Ok(t.delete(wo, key)?),
            _ => Ok(self.db().delete(wo, key)?),
        }
    }

    fn new_batch(&self) -> WriteBatch {
        WriteBatch::new()
    }

    fn write(&self, wo: &WriteOptions, batch: WriteBatch) -> Result<()> {
        match &self.handle {
            Handle::Pessimistic(t) => Ok(t.write(wo, batch)?),
            _ => Ok(self.db().write(wo, batch)?),
        }
    }

    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.db().get(&self.read_options, key)?)
    }

    fn multi_get(&self, keys: &[&[u8]]) -> Result<Vec<Option<Vec<u8>>>> {
        self.db()
            .multi_get(&self.read_options, keys)
            .into_iter()
            .map(|r| Ok(r?))
            .collect()
    }

    fn iter(&self) -> Result<DbIter> {
        Ok(self.db().iter(&self.read_options)?)
    }

    fn flush(&self) -> Result<()> {
        Ok(self.db().flush()?)
    }

    fn compact(&self) -> Result<()> {
        Ok(self.db().compact_range(None, None)?)
    }

    fn wait_for_compaction(&self) -> Result<()> {
        Ok(self.db().wait_for_compactions()?)
    }

    fn begin_transaction(
        &self,
        wo: &WriteOptions,
        options: &TxnOptions,
    ) -> Result<Box<dyn BenchTxn + '_>> {
        let read = self.read_options.clone();
        match &self.handle {
            Handle::Pessimistic(t) => {
                let o = TransactionOptions {
                    set_snapshot: options.set_snapshot,
                    lock_timeout: options.lock_timeout_ms,
                    ..TransactionOptions::default()
                };
                let txn = t.begin_transaction(wo, &o)?;
                Ok(Box::new(PessimisticTxn { txn, read }))
            }
            Handle::Optimistic(o) => {
                let opts = OptimisticTransactionOptions {
                    set_snapshot: options.set_snapshot,
                };
                let txn = o.begin_transaction(wo, &opts);
                Ok(Box::new(OptimisticTxn { txn, read }))
            }
            Handle::Plain(_) => Err(BenchError::Usage(
                "transactions need a transaction database: --transaction_db or \
                 --optimistic_transaction_db"
                    .to_string(),
            )),
        }
    }

    fn properties(&self) -> Vec<(String, String)> {
        let mut props = vec![
            ("L0 files".to_string(), self.db().num_l0_files().to_string()),
            (
                "immutable memtables".to_string(),
                self.db().num_immutable_memtables().to_string(),
            ),
            (
                "last sequence".to_string(),
                self.db().latest_sequence().to_string(),
            ),
        ];
        let cf = self.db().default_column_family();
        let files: Vec<String> = self
            .db()
            .level_summary_cf(&cf)
            .iter()
            .map(|l| l.files.to_string())
            .collect();
        props.push(("files per level".to_string(), files.join(",")));
        for (level, s) in self.db().compaction_stats_cf(&cf).levels.iter().enumerate() {
            if s.compactions > 0 {
                props.push((
                    format!("compactions into L{level}"),
                    format!(
                        "{} ({} moves), read {} MB, wrote {} MB, {:.1} s",
                        s.compactions,
                        s.trivial_moves,
                        s.bytes_read >> 20,
                        s.bytes_written >> 20,
                        s.seconds
                    ),
                ));
            }
        }
        for (cause, delay, delayed, stops) in self.db().write_stalls() {
            if delayed > 0 || stops > 0 {
                props.push((
                    format!("write stalls ({cause})"),
                    format!(
                        "{delayed} delayed writes, {:.3} s in total, {stops} stops",
                        delay.as_secs_f64()
                    ),
                ));
            }
        }
        if let Some(cache) = &self.cache {
            let s = cache.stats();
            props.push((
                "block cache".to_string(),
                format!(
                    "{} bytes used of {}, {} hits, {} misses",
                    cache.usage(),
                    cache.capacity(),
                    s.hits,
                    s.misses
                ),
            ));
        }
        props
    }

    /// Flushed plus compacted bytes since open, from the engine's flush and compaction
    /// statistics (trivial moves write nothing). The WAL is not counted, as in RocksDB's W-Amp.
    fn table_bytes_written(&self) -> Option<u64> {
        let cf = self.db().default_column_family();
        let compacted: u64 = self
            .db()
            .compaction_stats_cf(&cf)
            .levels
            .iter()
            .map(|l| l.bytes_written)
            .sum();
        Some(self.db().flush_stats_cf(&cf).bytes + compacted)
    }

    fn write_amp_source(&self) -> &'static str {
        "cairndb: flushed + compaction bytes written, from flush_stats_cf and compaction_stats_cf"
    }

    /// The engine's own `rocksdb.stats` / `rocksdb.levelstats` property, as db_bench prints it.
    fn stats_report(&self, which: &str) -> String {
        let property = format!("rocksdb.{which}");
        match self.db().property(&property) {
            Some(v) => v.trim_end().to_string(),
            None => format!("{property}: not available"),
        }
    }

    /// With `--statistics=1`: RocksDB's ticker and histogram lines (as db_bench prints them),
    /// then the properties.
    fn statistics(&self) -> String {
        let mut out = String::new();
        if let Some(s) = &self.statistics {
            out.push_str("STATISTICS:\n");
            out.push_str(&s.to_string());
        }
        out.push_str("CairnDB properties:\n");
        for (name, value) in self.properties() {
            out.push_str(&format!("  {name}: {value}\n"));
        }
        out
    }

    fn close(self) -> Result<()> {
        match self.handle {
            Handle::Plain(db) => Ok(db.close()?),
            Handle::Pessimistic(t) => Ok(t.close()?),
            Handle::Optimistic(o) => Ok(o.close()?),
        }
    }
}
