//! Database-wide counters behind the `rocksdb.stats` property and the periodic LOG dump
//! (RocksDB's `InternalStats` DB stats): writes, commit groups, keys, ingested bytes, WAL
//! records, syncs and bytes, and flushes per column family.
//!
//! # Contract
//! - Always on, as RocksDB's internal stats are: the commit leader adds to a handful of relaxed
//!   atomics once per commit group (not per write), and a flush adds once per table, so the
//!   hot path pays a few uncontended atomic adds per group.
//! - Readers ([`DbCounters::snapshot`]) may see counters of one group partly updated; the
//!   numbers are statistics, not a consistent cut.
//! - The interval lines of the stats dump are the difference to the snapshot taken by the last
//!   *periodic* dump (`DbCounters::take_interval`), as in RocksDB: reading the property does not
//!   reset the interval.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::statistics::{HistogramType, Statistics, Ticker};

/// One family's flush totals (the flush part of L0's row in the compaction-stats table).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FlushStats {
    /// Flushes that wrote a table.
    pub count: u64,
    /// Bytes of the tables written.
    pub bytes: u64,
    /// Entries written.
    pub keys: u64,
    /// Time spent writing tables.
    pub seconds: f64,
}

/// A copy of the database-wide counters at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CounterSnapshot {
    /// Seconds since open.
    pub uptime_secs: f64,
    /// Writes committed by a leader for itself (one per commit group).
    pub writes_self: u64,
    /// Writes committed by another writer's group.
    pub writes_other: u64,
    /// Keys (batch entries) written.
    pub keys: u64,
    /// Bytes of user batches written (RocksDB's ingest).
    pub bytes: u64,
    /// Commit groups written to the WAL (one record each).
    pub wal_writes: u64,
    /// WAL syncs.
    pub wal_syncs: u64,
    /// Bytes appended to the WAL (record payloads).
    pub wal_bytes: u64,
    /// Time writes were delayed or stopped, in microseconds.
    pub stall_micros: u64,
}

impl CounterSnapshot {
    /// Every write, own and others'.
    pub fn writes(&self) -> u64 {
        self.writes_self + self.writes_other
    }

    /// `self - earlier`, field by field (uptime too).
    pub fn since(&self, earlier: &CounterSnapshot) -> CounterSnapshot {
        CounterSnapshot {
            uptime_secs: self.uptime_secs - earlier.uptime_secs,
            writes_self: self.writes_self.saturating_sub(earlier.writes_self),
            writes_other: self.writes_other.saturating_sub(earlier.writes_other),
            keys: self.keys.saturating_sub(earlier.keys),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            wal_writes: self.wal_writes.saturating_sub(earlier.wal_writes),
            wal_syncs: self.wal_syncs.saturating_sub(earlier.wal_syncs),
            wal_bytes: self.wal_bytes.saturating_sub(earlier.wal_bytes),
            stall_micros: self.stall_micros.saturating_sub(earlier.stall_micros),
        }
    }
}

/// The database-wide counters. See the module contract.
#[derive(Debug)]
pub(crate) struct DbCounters {
    started: Instant,
    writes_self: AtomicU64,
    writes_other: AtomicU64,
    keys: AtomicU64,
    bytes: AtomicU64,
    wal_writes: AtomicU64,
    wal_syncs: AtomicU64,
    wal_bytes: AtomicU64,
    /// Flush totals by column family id.
    flushes: Mutex<BTreeMap<u32, FlushStats>>,
    /// The counters at the last periodic dump.
    interval_base: Mutex<CounterSnapshot>,
    /// The opt-in tickers and histograms (`DbOptions::statistics`), fed from the same hooks.
    stats: Option<Arc<Statistics>>,
}

impl DbCounters {
    pub(crate) fn new(stats: Option<Arc<Statistics>>) -> DbCounters {
        DbCounters {
            started: Instant::now(),
            writes_self: AtomicU64::new(0),
            writes_other: AtomicU64::new(0),
            keys: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            wal_writes: AtomicU64::new(0),
            wal_syncs: AtomicU64::new(0),
            wal_bytes: AtomicU64::new(0),
            flushes: Mutex::new(BTreeMap::new()),
            interval_base: Mutex::new(CounterSnapshot::default()),
            stats,
        }
    }

    /// Records one committed group of `writers` writes holding `keys` entries and `bytes` of
    /// batch data; `wal` when it went to the WAL; `syncs`: the WAL syncs its leader ran.
    pub(crate) fn record_group(&self, writers: u64, keys: u64, bytes: u64, wal: bool, syncs: u64) {
        self.writes_self.fetch_add(1, Ordering::Relaxed);
        self.writes_other
            .fetch_add(writers.saturating_sub(1), Ordering::Relaxed);
        self.keys.fetch_add(keys, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
        if wal {
            self.wal_writes.fetch_add(1, Ordering::Relaxed);
            self.wal_bytes.fetch_add(bytes, Ordering::Relaxed);
            self.wal_syncs.fetch_add(syncs, Ordering::Relaxed);
        }
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::WriteDoneBySelf, 1);
            s.record_tick(Ticker::WriteDoneByOther, writers.saturating_sub(1));
            s.record_tick(Ticker::NumberKeysWritten, keys);
            s.record_tick(Ticker::BytesWritten, bytes);
            if wal {
                s.record_tick(Ticker::WriteWithWal, 1);
                s.record_tick(Ticker::WalFileBytes, bytes);
                s.record_tick(Ticker::WalFileSynced, syncs);
            }
        }
    }

    /// The opt-in statistics, when the database has them.
    pub(crate) fn stats(&self) -> Option<&Statistics> {
        self.stats.as_deref()
    }

    /// Records time a write waited for write control or a free memtable.
    pub(crate) fn record_stall(&self, waited: Duration) {
        if let Some(s) = &self.stats {
            let micros = u64::try_from(waited.as_micros()).unwrap_or(u64::MAX);
            s.record_tick(Ticker::StallMicros, micros);
            s.record_in_histogram(HistogramType::WriteStall, micros);
        }
    }

    /// Records a finished compaction job.
    pub(crate) fn record_compaction(&self, read: u64, written: u64, elapsed: Duration) {
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::CompactReadBytes, read);
            s.record_tick(Ticker::CompactWriteBytes, written);
            let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
            s.record_in_histogram(HistogramType::CompactionTime, micros);
        }
    }

    /// Records a flush of column family `cf` that wrote a table of `bytes` with `keys` entries.
    pub(crate) fn record_flush(&self, cf: u32, bytes: u64, keys: u64, elapsed: Duration) {
        let mut f = self.flushes.lock();
        let s = f.entry(cf).or_default();
        s.count += 1;
        s.bytes += bytes;
        s.keys += keys;
        s.seconds += elapsed.as_secs_f64();
        drop(f);
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::FlushWriteBytes, bytes);
            let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
            s.record_in_histogram(HistogramType::FlushTime, micros);
        }
    }

    /// Flush totals of column family `cf`.
    pub(crate) fn flush_stats(&self, cf: u32) -> FlushStats {
        self.flushes.lock().get(&cf).copied().unwrap_or_default()
    }

    /// Seconds since open.
    pub(crate) fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// The counters now; `stall` is the total write delay so far (kept by the write
    /// controller, passed in so this module needs no lock).
    pub(crate) fn snapshot(&self, stall: Duration) -> CounterSnapshot {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        CounterSnapshot {
            uptime_secs: self.uptime().as_secs_f64(),
            writes_self: get(&self.writes_self),
            writes_other: get(&self.writes_other),
            keys: get(&self.keys),
            bytes: get(&self.bytes),
            wal_writes: get(&self.wal_writes),
            wal_syncs: get(&self.wal_syncs),
            wal_bytes: get(&self.wal_bytes),
            stall_micros: u64::try_from(stall.as_micros()).unwrap_or(u64::MAX),
        }
    }

    /// The snapshot the interval lines are measured from.
    pub(crate) fn interval_base(&self) -> CounterSnapshot {
        *self.interval_base.lock()
    }

    /// Starts a new interval at `now` (called by the periodic dump).
    pub(crate) fn take_interval(&self, now: CounterSnapshot) {
        *self.interval_base.lock() = now;
    }
}
