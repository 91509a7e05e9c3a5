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
//!
//! # Transaction databases
//! With [`EngineOptions::transaction_db`] the database is opened as db_bench opens it: a
//! `TransactionDB` with default `TransactionDBOptions`, or an `OptimisticTransactionDB`, with the
//! same `Options` as a plain database. Writes outside transactions go, as in db_bench, through
//! the `TransactionDB` (`TransactionDB::Put`, `Delete` and `Write` lock their keys), or to an
//! `OptimisticTransactionDB`'s base database (db_bench's `GetBaseDB`): puts and deletes through
//! the crate's base-database calls; write batches through `OptimisticTransactionDB::Write`, the
//! crate's only batch write there, which refuses range deletions and otherwise passes the batch
//! to the base database unchanged. Reads, iterators, flushes and properties use the same
//! database the writes use.
//!
//! What the rocksdb crate (0.25) lacks, and what is done instead:
//! - `TransactionDB` has no `CompactRange`, `WaitForCompact`, batched `MultiGet`, nor a way to
//!   reach its base database (db_bench calls these on the `TransactionDB`, which forwards them):
//!   `compact`, `waitforcompaction` and multireadrandom with `--multiread_batched` fail with a
//!   usage error on a `TransactionDB` instead of being skipped. Its property calls exist only for
//!   the `MultiThreaded` mode, so it is opened in that mode.
//! - `Transaction` has no `SetSnapshot` (nor does RocksDB's C API): the C++ transaction is begun
//!   at the first operation, and a [`BenchTxn::set_snapshot`] before it makes that begin take the
//!   snapshot (`TransactionOptions::set_snapshot`, which RocksDB implements by calling
//!   `SetSnapshot` in `BeginTransaction`), which is `BeginTransaction` followed by `SetSnapshot`
//!   with nothing in between. randomtransaction sets its snapshot right after the begin; a
//!   `set_snapshot` after an operation is refused with a usage error.
//! - `Transaction` has no `SingleDelete` (nor has the C API): a `Delete` stands for it (the same
//!   lock or conflict tracking; the put randomtransaction makes next leaves the same value).
//! - db_bench names its transactions and prepares 9 in 10 pessimistic ones; randomtransaction
//!   here does not (see `randomtxn.rs`), and db_bench reuses one transaction object per thread,
//!   which the crate cannot (its begin passes no old transaction).

use std::path::Path;

use std::sync::Mutex;

use cairndb::options::CpuPriority;
use rocksdb::statistics::Ticker;
use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamilyDescriptor, DBCompactionStyle, DBCompressionType,
    DBPinnableSlice, DBRawIterator, DBRawIteratorWithThreadMode, MultiThreaded,
    OptimisticTransactionDB, OptimisticTransactionOptions, Options, ReadOptions, SingleThreaded,
    Transaction, TransactionDB, TransactionDBOptions, TransactionOptions, WriteBatch,
    WriteBatchWithTransaction, WriteOptions, DB, DEFAULT_COLUMN_FAMILY_NAME,
};

use super::engine::{
    BenchBatch, BenchEngine, BenchError, BenchIter, BenchTxn, CacheType, CompactionStyle,
    Compression, EngineOptions, Result, TransactionDbKind, TxnOptions, WriteMode,
};

/// A `TransactionDB`, in the thread mode whose property calls the crate provides.
type TxnDb = TransactionDB<MultiThreaded>;

/// An `OptimisticTransactionDB`, in the thread mode of the crate's `DB`.
type OptDb = OptimisticTransactionDB<SingleThreaded>;

/// The database as opened: plain, or a transaction database ([`EngineOptions::transaction_db`]).
enum Handle {
    Plain(DB),
    Pessimistic(TxnDb),
    Optimistic(OptDb),
}

impl Handle {
    fn path(&self) -> &Path {
        match self {
            Handle::Plain(db) => db.path(),
            Handle::Pessimistic(db) => db.path(),
            Handle::Optimistic(db) => db.path(),
        }
    }

    /// `GetProperty`.
    fn property_value(&self, name: &str) -> std::result::Result<Option<String>, rocksdb::Error> {
        match self {
            Handle::Plain(db) => db.property_value(name),
            Handle::Pessimistic(db) => db.property_value(name),
            Handle::Optimistic(db) => db.property_value(name),
        }
    }

    /// `GetIntProperty`.
    fn property_int_value(&self, name: &str) -> std::result::Result<Option<u64>, rocksdb::Error> {
        match self {
            Handle::Plain(db) => db.property_int_value(name),
            Handle::Pessimistic(db) => db.property_int_value(name),
            Handle::Optimistic(db) => db.property_int_value(name),
        }
    }
}

/// The usage error for an operation the crate does not offer on a `TransactionDB`.
fn not_on_transaction_db(what: &str) -> BenchError {
    BenchError::Usage(format!(
        "{what} with --transaction_db: the rocksdb crate's TransactionDB has no such call and no \
         way to reach its base database (db_bench calls it on the TransactionDB); run it without \
         --transaction_db or with --optimistic_transaction_db"
    ))
}

/// Read options shared by the benchmark threads.
struct SharedReadOptions(ReadOptions);

// SAFETY: RocksDB takes `const ReadOptions&` in Get and MultiGet and never writes through it;
// the wrapped options are built once in `open` and never changed, so concurrent reads of the
// same C++ object from several threads are data-race free.
unsafe impl Sync for SharedReadOptions {}

/// A RocksDB database under test.
pub struct RocksDbEngine {
    db: Handle,
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
            .field("kind", &self.kind())
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

/// Lowers the background pools' CPU priority on RocksDB's default environment (process-wide,
/// as in db_bench). The crate's C API lowers a pool to kLow only
/// (`rocksdb_env_lower_thread_pool_cpu_priority`), so idle is refused.
fn set_cpu_priorities(opts: &mut Options, o: &EngineOptions) -> Result<()> {
    let pools = [
        ("--compaction_cpu_priority", o.compaction_cpu_priority),
        ("--flush_cpu_priority", o.flush_cpu_priority),
    ];
    if let Some((flag, _)) = pools.iter().find(|(_, p)| *p == CpuPriority::Idle) {
        return Err(BenchError::Usage(format!(
            "{flag}=idle: the rocksdb crate lowers a thread pool to low only"
        )));
    }
    if pools.iter().all(|(_, p)| *p == CpuPriority::Normal) {
        return Ok(());
    }
    let mut env = rocksdb::Env::new()?;
    if o.compaction_cpu_priority == CpuPriority::Low {
        env.lower_thread_pool_cpu_priority();
    }
    if o.flush_cpu_priority == CpuPriority::Low {
        env.lower_high_priority_thread_pool_cpu_priority();
    }
    opts.set_env(&env);
    Ok(())
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
    opts.set_recycle_log_file_num(o.recycle_log_file_num);
    opts.set_enable_pipelined_write(o.enable_pipelined_write);
    set_cpu_priorities(&mut opts, o)?;
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
        if r.backlog_control {
            return Err(BenchError::Usage(
                "--rate_limiter_backlog_control is CairnDB's controller; RocksDB has none".into(),
            ));
        }
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
        Compression::Snappy => {
            // The feature builds librocksdb-sys with lz4 and zstd only (Cargo.toml).
            return Err(BenchError::Usage(
                "--compression_type=snappy: the rocksdb feature builds RocksDB without Snappy; \
                 compare against release db_bench instead"
                    .into(),
            ));
        }
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

/// The engine's write options: RocksDB's, and the mode they were made from (a transaction,
/// begun later, gets its own copy, as the crate's `WriteOptions` cannot be cloned).
pub struct RocksWriteOptions {
    options: WriteOptions,
    mode: WriteMode,
}

impl std::fmt::Debug for RocksWriteOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksWriteOptions")
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

/// RocksDB's write options for `mode`.
fn rocksdb_write_options(mode: WriteMode) -> WriteOptions {
    let mut wo = WriteOptions::default();
    wo.set_sync(mode.sync);
    wo.disable_wal(mode.disable_wal);
    wo
}

/// A write batch of the kind the database's `Write` takes (the crate types a transaction
/// database's batches apart; the C++ `WriteBatch` is the same).
pub enum RocksBatch {
    /// For a plain `DB`.
    Plain(WriteBatch),
    /// For a `TransactionDB` or an `OptimisticTransactionDB`.
    Txn(WriteBatchWithTransaction<true>),
}

impl std::fmt::Debug for RocksBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (kind, len) = match self {
            RocksBatch::Plain(b) => ("plain", b.len()),
            RocksBatch::Txn(b) => ("transaction", b.len()),
        };
        f.debug_struct("RocksBatch")
            .field("kind", &kind)
            .field("len", &len)
            .finish()
    }
}

impl BenchBatch for RocksBatch {
    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        match self {
            RocksBatch::Plain(b) => b.put(key, value),
            RocksBatch::Txn(b) => b.put(key, value),
        }
        Ok(())
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        match self {
            RocksBatch::Plain(b) => b.delete(key),
            RocksBatch::Txn(b) => b.delete(key),
        }
        Ok(())
    }
}

/// An iterator of the database as opened.
pub enum RocksIter<'a> {
    /// Over a plain `DB`.
    Plain(DBRawIterator<'a>),
    /// Over a `TransactionDB` (`TransactionDB::NewIterator`).
    Pessimistic(DBRawIteratorWithThreadMode<'a, TxnDb>),
    /// Over an `OptimisticTransactionDB`'s base database.
    Optimistic(DBRawIteratorWithThreadMode<'a, OptDb>),
}

impl std::fmt::Debug for RocksIter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksIter")
            .field("valid", &self.valid())
            .finish_non_exhaustive()
    }
}

/// Calls `$body` with `$it` bound to the iterator inside `$iter`, whatever the database kind.
macro_rules! on_iter {
    ($iter:expr, $it:ident => $body:expr) => {
        match $iter {
            RocksIter::Plain($it) => $body,
            RocksIter::Pessimistic($it) => $body,
            RocksIter::Optimistic($it) => $body,
        }
    };
}

impl BenchIter for RocksIter<'_> {
    fn seek_to_first(&mut self) {
        on_iter!(self, it => it.seek_to_first());
    }

    fn seek_to_last(&mut self) {
        on_iter!(self, it => it.seek_to_last());
    }

    fn seek(&mut self, target: &[u8]) {
        on_iter!(self, it => it.seek(target));
    }

    fn next(&mut self) {
        on_iter!(self, it => it.next());
    }

    fn prev(&mut self) {
        on_iter!(self, it => it.prev());
    }

    fn valid(&self) -> bool {
        on_iter!(self, it => it.valid())
    }

    fn key(&self) -> &[u8] {
        on_iter!(self, it => it.key()).expect("key() requires valid()")
    }

    fn value(&self) -> &[u8] {
        on_iter!(self, it => it.value()).expect("value() requires valid()")
    }

    fn status(&self) -> Result<()> {
        Ok(on_iter!(self, it => it.status())?)
    }
}

/// How a transaction of one kind of database is begun (the crate's two `transaction_opt`s).
trait TxnBegin<'a> {
    /// The database type the crate's `Transaction` is typed with.
    type Db: 'a;

    /// Whether its transactions have two-phase commit (pessimistic ones).
    const TWO_PHASE: bool;

    /// Begins the C++ transaction with the options given at [`BenchEngine::begin_transaction`],
    /// with a snapshot taken at the begin if `snapshot` (`set_snapshot` in its options).
    fn begin(&mut self, wo: &WriteOptions, snapshot: bool) -> Transaction<'a, Self::Db>;
}

/// A pessimistic transaction's database and `TransactionOptions`.
struct PessimisticBegin<'a> {
    db: &'a TxnDb,
    options: TransactionOptions,
}

impl<'a> TxnBegin<'a> for PessimisticBegin<'a> {
    type Db = TxnDb;
    const TWO_PHASE: bool = true;

    fn begin(&mut self, wo: &WriteOptions, snapshot: bool) -> Transaction<'a, TxnDb> {
        if snapshot {
            self.options.set_snapshot(true);
        }
        self.db.transaction_opt(wo, &self.options)
    }
}

/// An optimistic transaction's database and `OptimisticTransactionOptions`.
struct OptimisticBegin<'a> {
    db: &'a OptDb,
    options: OptimisticTransactionOptions,
}

impl<'a> TxnBegin<'a> for OptimisticBegin<'a> {
    type Db = OptDb;
    const TWO_PHASE: bool = false;

    fn begin(&mut self, wo: &WriteOptions, snapshot: bool) -> Transaction<'a, OptDb> {
        if snapshot {
            self.options.set_snapshot(true);
        }
        self.db.transaction_opt(wo, &self.options)
    }
}

/// Where a [`RocksTxn`] is.
enum TxnState<'a, D> {
    /// Not begun in RocksDB yet: begun at the first operation (see the module documentation).
    Pending,
    /// Begun.
    Live(Transaction<'a, D>),
    /// Committed or rolled back (the C++ transaction is destroyed).
    Ended,
}

/// A RocksDB transaction, pessimistic or optimistic, and the read options of its reads.
struct RocksTxn<'a, B: TxnBegin<'a>> {
    begin: B,
    /// The write options of the commit.
    write: WriteOptions,
    /// Reads at the latest state, or at the transaction's snapshot after `set_snapshot` (as
    /// db_bench sets `read_options.snapshot`); the snapshot belongs to the transaction, which
    /// outlives every read through these options.
    read: ReadOptions,
    state: TxnState<'a, B::Db>,
    /// `GetSnapshot() != nullptr`: `set_snapshot` was in the options or was called.
    has_snapshot: bool,
    /// `set_snapshot` was called before the begin: the begin takes the snapshot and the reads
    /// use it.
    snapshot_at_begin: bool,
    /// `set_name` was called before the begin: the begin names the transaction.
    name_at_begin: Option<String>,
}

impl<'a, B: TxnBegin<'a>> RocksTxn<'a, B> {
    fn new(begin: B, mode: WriteMode, set_snapshot: bool) -> Self {
        RocksTxn {
            begin,
            write: rocksdb_write_options(mode),
            read: ReadOptions::default(),
            state: TxnState::Pending,
            has_snapshot: set_snapshot,
            snapshot_at_begin: false,
            name_at_begin: None,
        }
    }

    /// The C++ transaction, begun now if it was not yet.
    fn txn(&mut self) -> Result<&Transaction<'a, B::Db>> {
        if let TxnState::Pending = self.state {
            let txn = self.begin.begin(&self.write, self.snapshot_at_begin);
            if self.snapshot_at_begin {
                // The crate's handle to the transaction's snapshot; `set_snapshot` copies the C++
                // `Snapshot*` (owned by the transaction) into the read options.
                let snapshot = txn.snapshot();
                self.read.set_snapshot(&snapshot);
            }
            if let Some(name) = self.name_at_begin.take() {
                txn.set_name(name.as_bytes())?;
            }
            self.state = TxnState::Live(txn);
        }
        match &self.state {
            TxnState::Live(txn) => Ok(txn),
            _ => Err(BenchError::Usage(
                "the transaction was already committed or rolled back".to_string(),
            )),
        }
    }
}

impl<'a, B: TxnBegin<'a>> BenchTxn for RocksTxn<'a, B> {
    fn has_snapshot(&self) -> bool {
        self.has_snapshot
    }

    fn set_snapshot(&mut self) -> Result<()> {
        match self.state {
            TxnState::Pending => {
                self.snapshot_at_begin = true;
                self.has_snapshot = true;
                Ok(())
            }
            _ => Err(BenchError::Usage(
                "set_snapshot after the transaction's first operation: the rocksdb crate's \
                 Transaction has no SetSnapshot, so a snapshot can only be taken at the begin"
                    .to_string(),
            )),
        }
    }

    fn get(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.txn()?;
        let TxnState::Live(txn) = &self.state else {
            unreachable!("txn() began it")
        };
        Ok(txn.get_opt(key, &self.read)?)
    }

    fn get_for_update(&mut self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.txn()?;
        let TxnState::Live(txn) = &self.state else {
            unreachable!("txn() began it")
        };
        Ok(txn.get_for_update_opt(key, true, &self.read)?)
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        Ok(self.txn()?.delete(key)?)
    }

    /// The crate's `Transaction` has no `SingleDelete` (RocksDB's C API has no
    /// `rocksdb_transaction_single_delete`): a `Delete`, which locks or tracks the key the same
    /// way and, followed by the put randomtransaction makes, leaves the same value.
    fn single_delete(&mut self, key: &[u8]) -> Result<()> {
        Ok(self.txn()?.delete(key)?)
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        Ok(self.txn()?.put(key, value)?)
    }

    /// Before the begin (which waits for the first operation), the name is kept for it.
    fn set_name(&mut self, name: &str) -> Result<()> {
        if !B::TWO_PHASE {
            return Err(BenchError::optimistic_has_no_2pc());
        }
        match &self.state {
            TxnState::Pending => {
                self.name_at_begin = Some(name.to_string());
                Ok(())
            }
            TxnState::Live(txn) => Ok(txn.set_name(name.as_bytes())?),
            TxnState::Ended => Err(BenchError::Usage(
                "set_name of a transaction already committed or rolled back".to_string(),
            )),
        }
    }

    fn prepare(&mut self) -> Result<()> {
        if !B::TWO_PHASE {
            return Err(BenchError::optimistic_has_no_2pc());
        }
        Ok(self.txn()?.prepare()?)
    }

    /// The crate's `Transaction` has no commit-time batch (RocksDB's C API has no
    /// `GetCommitTimeWriteBatch`): nothing is put.
    fn commit_time_put(&mut self, _key: &[u8], _value: &[u8]) -> Result<bool> {
        Ok(false)
    }

    /// A transaction without operations commits nothing and is not begun in RocksDB.
    fn commit(&mut self) -> Result<()> {
        match std::mem::replace(&mut self.state, TxnState::Ended) {
            TxnState::Live(txn) => Ok(txn.commit()?),
            TxnState::Pending => Ok(()),
            TxnState::Ended => Err(BenchError::Usage(
                "commit of a transaction already committed or rolled back".to_string(),
            )),
        }
    }

    /// A rollback after a failed commit does nothing: the failed commit destroyed the C++
    /// transaction, which releases its locks as a rollback does.
    fn rollback(&mut self) -> Result<()> {
        match std::mem::replace(&mut self.state, TxnState::Ended) {
            TxnState::Live(txn) => Ok(txn.rollback()?),
            TxnState::Pending | TxnState::Ended => Ok(()),
        }
    }
}

impl RocksDbEngine {
    /// Which database was opened.
    fn kind(&self) -> TransactionDbKind {
        match self.db {
            Handle::Plain(_) => TransactionDbKind::None,
            Handle::Pessimistic(_) => TransactionDbKind::Pessimistic,
            Handle::Optimistic(_) => TransactionDbKind::Optimistic,
        }
    }
}

impl BenchEngine for RocksDbEngine {
    type Value<'a> = RocksValue<'a>;
    type WriteOptions = RocksWriteOptions;
    type Batch = RocksBatch;
    type Iter<'a> = RocksIter<'a>;

    fn open(dir: &Path, options: &EngineOptions) -> Result<Self> {
        let opts = rocksdb_options(options)?;
        // The default column family is named so that batched MultiGet can be given its handle;
        // it gets the same options (`DB::open_cf` would give it RocksDB's defaults).
        let default_cf = ColumnFamilyDescriptor::new(DEFAULT_COLUMN_FAMILY_NAME, opts.clone());
        let db = match options.transaction_db {
            TransactionDbKind::None => {
                Handle::Plain(DB::open_cf_descriptors(&opts, dir, [default_cf])?)
            }
            // db_bench: `TransactionDB::Open(options, txn_db_options, ...)` with default
            // TransactionDBOptions.
            TransactionDbKind::Pessimistic => Handle::Pessimistic(TxnDb::open_cf_descriptors(
                &opts,
                &TransactionDBOptions::default(),
                dir,
                [default_cf],
            )?),
            TransactionDbKind::Optimistic => {
                Handle::Optimistic(OptDb::open_cf_descriptors(&opts, dir, [default_cf])?)
            }
        };
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
        let kind = match self.kind() {
            TransactionDbKind::None => String::new(),
            kind => format!(", opened as {}", kind.name()),
        };
        format!(
            "rocksdb (RocksDB version {}, bundled by the rocksdb crate{kind})",
            self.version
        )
    }

    fn write_options(&self, mode: WriteMode) -> Result<RocksWriteOptions> {
        if mode.sync && mode.disable_wal {
            return Err(BenchError::Usage(
                "--sync with --disable_wal: there is no WAL to sync".to_string(),
            ));
        }
        Ok(RocksWriteOptions {
            options: rocksdb_write_options(mode),
            mode,
        })
    }

    fn put(&self, wo: &RocksWriteOptions, key: &[u8], value: &[u8]) -> Result<()> {
        let wo = &wo.options;
        match &self.db {
            Handle::Plain(db) => db.put_opt(key, value, wo)?,
            // `TransactionDB::Put`: locks the key.
            Handle::Pessimistic(db) => db.put_opt(key, value, wo)?,
            // The base database's `Put`.
            Handle::Optimistic(db) => db.put_opt(key, value, wo)?,
        }
        Ok(())
    }

    fn delete(&self, wo: &RocksWriteOptions, key: &[u8]) -> Result<()> {
        let wo = &wo.options;
        match &self.db {
            Handle::Plain(db) => db.delete_opt(key, wo)?,
            // `TransactionDB::Delete`: locks the key.
            Handle::Pessimistic(db) => db.delete_opt(key, wo)?,
            // The base database's `Delete`.
            Handle::Optimistic(db) => db.delete_opt(key, wo)?,
        }
        Ok(())
    }

    fn new_batch(&self) -> RocksBatch {
        match self.db {
            Handle::Plain(_) => RocksBatch::Plain(WriteBatch::default()),
            Handle::Pessimistic(_) | Handle::Optimistic(_) => {
                RocksBatch::Txn(WriteBatchWithTransaction::default())
            }
        }
    }

    fn write(&self, wo: &RocksWriteOptions, batch: RocksBatch) -> Result<()> {
        let wo = &wo.options;
        match (&self.db, batch) {
            (Handle::Plain(db), RocksBatch::Plain(b)) => db.write_opt(b, wo)?,
            // `TransactionDB::Write`: locks the batch's keys.
            (Handle::Pessimistic(db), RocksBatch::Txn(b)) => db.write_opt(b, wo)?,
            // `OptimisticTransactionDB::Write`: the base database's `Write` (see the module
            // documentation).
            (Handle::Optimistic(db), RocksBatch::Txn(b)) => db.write_opt(b, wo)?,
            _ => {
                return Err(BenchError::Usage(
                    "a write batch made for another kind of database".to_string(),
                ))
            }
        }
        Ok(())
    }

    fn get(&self, key: &[u8]) -> Result<Option<RocksValue<'_>>> {
        let ro = &self.read_options.0;
        let value = match &self.db {
            Handle::Plain(db) => db.get_pinned_opt(key, ro)?,
            Handle::Pessimistic(db) => db.get_pinned_opt(key, ro)?,
            Handle::Optimistic(db) => db.get_pinned_opt(key, ro)?,
        };
        Ok(value.map(RocksValue::Pinned))
    }

    fn multi_get(&self, keys: &[&[u8]]) -> Result<Vec<Option<RocksValue<'_>>>> {
        let ro = &self.read_options.0;
        if self.multiread_batched {
            let values = match &self.db {
                Handle::Plain(db) => {
                    let cf = db
                        .cf_handle(DEFAULT_COLUMN_FAMILY_NAME)
                        .expect("opened with the default column family named");
                    db.batched_multi_get_cf_opt(cf, keys.iter().copied(), false, ro)
                }
                Handle::Optimistic(db) => {
                    let cf = db
                        .cf_handle(DEFAULT_COLUMN_FAMILY_NAME)
                        .expect("opened with the default column family named");
                    db.batched_multi_get_cf_opt(cf, keys.iter().copied(), false, ro)
                }
                Handle::Pessimistic(_) => {
                    return Err(not_on_transaction_db(
                        "--multiread_batched (batched MultiGet)",
                    ))
                }
            };
            values
                .into_iter()
                .map(|r| Ok(r?.map(RocksValue::Pinned)))
                .collect()
        } else {
            let values = match &self.db {
                Handle::Plain(db) => db.multi_get_opt(keys, ro),
                Handle::Pessimistic(db) => db.multi_get_opt(keys, ro),
                Handle::Optimistic(db) => db.multi_get_opt(keys, ro),
            };
            values
                .into_iter()
                .map(|r| Ok(r?.map(RocksValue::Owned)))
                .collect()
        }
    }

    fn iter(&self) -> Result<RocksIter<'_>> {
        Ok(match &self.db {
            Handle::Plain(db) => RocksIter::Plain(db.raw_iterator_opt(ReadOptions::default())),
            Handle::Pessimistic(db) => {
                RocksIter::Pessimistic(db.raw_iterator_opt(ReadOptions::default()))
            }
            Handle::Optimistic(db) => {
                RocksIter::Optimistic(db.raw_iterator_opt(ReadOptions::default()))
            }
        })
    }

    fn flush(&self) -> Result<()> {
        match &self.db {
            Handle::Plain(db) => db.flush()?,
            Handle::Pessimistic(db) => db.flush()?,
            Handle::Optimistic(db) => db.flush()?,
        }
        Ok(())
    }

    fn compact(&self) -> Result<()> {
        match &self.db {
            Handle::Plain(db) => db.compact_range::<&[u8], &[u8]>(None, None),
            Handle::Optimistic(db) => db.compact_range::<&[u8], &[u8]>(None, None),
            Handle::Pessimistic(_) => return Err(not_on_transaction_db("compact (CompactRange)")),
        }
        Ok(())
    }

    fn wait_for_compaction(&self) -> Result<()> {
        let o = rocksdb::WaitForCompactOptions::default();
        match &self.db {
            Handle::Plain(db) => db.wait_for_compact(&o)?,
            Handle::Optimistic(db) => db.wait_for_compact(&o)?,
            Handle::Pessimistic(_) => {
                return Err(not_on_transaction_db("waitforcompaction (WaitForCompact)"))
            }
        }
        Ok(())
    }

    fn begin_transaction(
        &self,
        wo: &RocksWriteOptions,
        options: &TxnOptions,
    ) -> Result<Box<dyn BenchTxn + '_>> {
        match &self.db {
            Handle::Pessimistic(db) => {
                let mut o = TransactionOptions::default();
                o.set_snapshot(options.set_snapshot);
                o.set_lock_timeout(options.lock_timeout_ms);
                let begin = PessimisticBegin { db, options: o };
                Ok(Box::new(RocksTxn::new(
                    begin,
                    wo.mode,
                    options.set_snapshot,
                )))
            }
            Handle::Optimistic(db) => {
                let mut o = OptimisticTransactionOptions::default();
                o.set_snapshot(options.set_snapshot);
                let begin = OptimisticBegin { db, options: o };
                Ok(Box::new(RocksTxn::new(
                    begin,
                    wo.mode,
                    options.set_snapshot,
                )))
            }
            Handle::Plain(_) => Err(BenchError::Usage(
                "transactions need a transaction database: --transaction_db or \
                 --optimistic_transaction_db"
                    .to_string(),
            )),
        }
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
