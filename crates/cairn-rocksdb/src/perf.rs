//! The calling thread's operation counters (`PerfContext`, `set_perf_stats`) and memory usage by
//! consumer: memtables, table readers and block caches of one or more databases (RocksDB's
//! `MemoryUtil::GetApproximateMemoryUsageByType`).
//!
//! [`PerfMetric`] lists what CairnDB counts (a subset of RocksDB's metrics, and no times: a
//! program that names another metric does not compile, rather than read a count never kept).

use std::collections::HashSet;
use std::marker::PhantomData;

use crate::db::{DBCommon, DBInner};
use cairndb::perf_context::{self, PerfLevel};

use crate::{Cache, DBAccess, Error, ThreadMode, DB};

pub use cairndb::perf_context::PerfMetric;

/// How much the calling thread's operations are measured (RocksDB's `PerfLevel`).
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
#[repr(i32)]
pub enum PerfStatsLevel {
    /// Not a level (changes nothing).
    Uninitialized = 0,
    /// Nothing is counted.
    Disable,
    /// Counters are counted (the default).
    EnableCount,
    /// Counters and times except mutex waits: CairnDB keeps no times, so counters only.
    EnableTimeExceptForMutex,
    /// As `EnableTimeExceptForMutex`, with CPU times: counters only.
    EnableTimeAndCPUTimeExceptForMutex,
    /// Counters and every time: counters only.
    EnableTime,
    /// Not a level (changes nothing).
    OutOfBound,
}

/// Sets the calling thread's level. The time levels count what `EnableCount` counts (CairnDB
/// keeps no per-operation times, and [`PerfMetric`] has none to read); `Uninitialized` and
/// `OutOfBound` change nothing.
pub fn set_perf_stats(lvl: PerfStatsLevel) {
    match lvl {
        PerfStatsLevel::Disable => perf_context::set_perf_level(PerfLevel::Disable),
        PerfStatsLevel::EnableCount
        | PerfStatsLevel::EnableTimeExceptForMutex
        | PerfStatsLevel::EnableTimeAndCPUTimeExceptForMutex
        | PerfStatsLevel::EnableTime => perf_context::set_perf_level(PerfLevel::EnableCount),
        PerfStatsLevel::Uninitialized | PerfStatsLevel::OutOfBound => {}
    }
}

/// The calling thread's counters.
#[derive(Debug, Default)]
pub struct PerfContext {
    _thread: PhantomData<*const ()>,
}

impl PerfContext {
    /// Sets the calling thread's counters to 0.
    pub fn reset(&mut self) {
        perf_context::reset();
    }

    /// The counters as `name = value` pairs (RocksDB's `PerfContext::ToString`).
    pub fn report(&self, exclude_zero_counters: bool) -> String {
        perf_context::report(exclude_zero_counters)
    }

    /// One counter.
    pub fn metric(&self, id: PerfMetric) -> u64 {
        perf_context::get(id)
    }
}

/// The memory of the databases and caches given to a [`MemoryUsageBuilder`], when it was built.
#[derive(Debug, Clone, Copy, Default)]
pub struct MemoryUsage {
    mem_table_total: u64,
    mem_table_unflushed: u64,
    mem_table_readers_total: u64,
    cache_total: u64,
}

impl MemoryUsage {
    /// Bytes of every memtable, flushed ones not yet released included
    /// (`rocksdb.size-all-mem-tables`).
    pub fn approximate_mem_table_total(&self) -> u64 {
        self.mem_table_total
    }

    /// Bytes of the memtables not yet flushed (`rocksdb.cur-size-all-mem-tables`).
    pub fn approximate_mem_table_unflushed(&self) -> u64 {
        self.mem_table_unflushed
    }

    /// Bytes the open tables hold outside the block cache
    /// (`rocksdb.estimate-table-readers-mem`).
    pub fn approximate_mem_table_readers_total(&self) -> u64 {
        self.mem_table_readers_total
    }

    /// Bytes in the block caches, each counted once however many families share it.
    pub fn approximate_cache_total(&self) -> u64 {
        self.cache_total
    }
}

/// Collects databases and caches, then measures them with [`MemoryUsageBuilder::build`]. It
/// cannot outlive what it was given.
#[derive(Default)]
pub struct MemoryUsageBuilder<'a> {
    dbs: Vec<&'a cairndb::Db>,
    caches: Vec<&'a Cache>,
    _marker: PhantomData<&'a ()>,
}

impl std::fmt::Debug for MemoryUsageBuilder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryUsageBuilder")
            .field("dbs", &self.dbs.len())
            .field("caches", &self.caches.len())
            .finish()
    }
}

impl<'a> MemoryUsageBuilder<'a> {
    /// An empty builder.
    pub fn new() -> Result<Self, Error> {
        Ok(MemoryUsageBuilder::default())
    }

    /// Adds a transaction database.
    pub fn add_tx_db<T: ThreadMode>(&mut self, db: &'a crate::TransactionDB<T>) {
        self.dbs.push(db.engine());
    }

    /// Adds a database (plain or optimistic-transaction).
    pub fn add_db<T: ThreadMode, D: DBInner>(&mut self, db: &'a DBCommon<T, D>) {
        self.dbs.push(db.engine());
    }

    /// Adds a cache (counted once, even when a database given here uses it too).
    pub fn add_cache(&mut self, cache: &'a Cache) {
        self.caches.push(cache);
    }

    /// Measures the databases and caches now.
    pub fn build(&self) -> Result<MemoryUsage, Error> {
        let mut usage = MemoryUsage::default();
        let mut caches = HashSet::new();
        let mut cache_total = 0u64;
        let mut count_cache = |c: &cairndb::sstable::BlockCache| {
            if caches.insert(c as *const cairndb::sstable::BlockCache) {
                cache_total += c.usage() as u64;
            }
        };
        for db in &self.dbs {
            for cf in db.column_families() {
                let int = |name: &str| db.property_int_cf(&cf, name).unwrap_or(0);
                usage.mem_table_total += int("rocksdb.size-all-mem-tables");
                usage.mem_table_unflushed += int("rocksdb.cur-size-all-mem-tables");
                usage.mem_table_readers_total += int("rocksdb.estimate-table-readers-mem");
                if let Some(c) = &cf.options().table.block_cache {
                    count_cache(c);
                }
            }
        }
        for c in &self.caches {
            count_cache(&c.inner);
        }
        usage.cache_total = cache_total;
        Ok(usage)
    }
}

/// [`MemoryUsage`] as plain numbers.
#[derive(Debug, Clone, Copy)]
pub struct MemoryUsageStats {
    /// See [`MemoryUsage::approximate_mem_table_total`].
    pub mem_table_total: u64,
    /// See [`MemoryUsage::approximate_mem_table_unflushed`].
    pub mem_table_unflushed: u64,
    /// See [`MemoryUsage::approximate_mem_table_readers_total`].
    pub mem_table_readers_total: u64,
    /// See [`MemoryUsage::approximate_cache_total`].
    pub cache_total: u64,
}

/// The memory of `dbs` and `caches`.
pub fn get_memory_usage_stats(
    dbs: Option<&[&DB]>,
    caches: Option<&[&Cache]>,
) -> Result<MemoryUsageStats, Error> {
    let mut builder = MemoryUsageBuilder::new()?;
    for db in dbs.unwrap_or_default() {
        builder.add_db(db);
    }
    for cache in caches.unwrap_or_default() {
        builder.add_cache(cache);
    }
    let mu = builder.build()?;
    Ok(MemoryUsageStats {
        mem_table_total: mu.approximate_mem_table_total(),
        mem_table_unflushed: mu.approximate_mem_table_unflushed(),
        mem_table_readers_total: mu.approximate_mem_table_readers_total(),
        cache_total: mu.approximate_cache_total(),
    })
}
