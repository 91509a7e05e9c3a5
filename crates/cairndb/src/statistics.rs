//! Opt-in statistics under RocksDB's ticker and histogram names (RocksDB's `Statistics`,
//! `DBOptions::statistics`): counters of what the database did and latency histograms, for
//! operators and `cairn bench --statistics=1`.
//!
//! # Contract
//! - Off by default: with `DbOptions::statistics == None` every hook is one `Option` check.
//! - One [`Statistics`] may be shared by several databases (as in RocksDB); every counter is a
//!   relaxed atomic, so any thread records and reads at any time. A reader may see one event's
//!   tickers partly updated: the numbers are statistics, not a consistent cut.
//! - Names and printed format are RocksDB's (`monitoring/statistics.cc`), so scripts that read
//!   db_bench's `--statistics` output read CairnDB's.
//!
//! Histograms use RocksDB's bucket layout (`HistogramBucketMapper`): limits 1, 2, then each
//! about 1.5 times the previous rounded to two significant digits, up to `u64::MAX`;
//! percentiles interpolate linearly inside a bucket and are clamped to the observed min and max.

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::OnceLock;

macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident => $s:literal,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name { $($(#[$vm])* $v,)* }

        impl $name {
            /// Every value, in printing order.
            pub const ALL: &'static [$name] = &[$($name::$v,)*];

            /// RocksDB's name, e.g. `rocksdb.block.cache.miss`.
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s,)* }
            }

            /// The value named `name` (RocksDB's name).
            pub fn from_name(name: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|t| t.name() == name)
            }
        }
    };
}

named_enum! {
    /// A counter (RocksDB's `Tickers`).
    Ticker {
        /// Block cache lookups that missed (all block kinds).
        BlockCacheMiss => "rocksdb.block.cache.miss",
        /// Block cache lookups that hit.
        BlockCacheHit => "rocksdb.block.cache.hit",
        /// Blocks inserted into the block cache.
        BlockCacheAdd => "rocksdb.block.cache.add",
        /// Index block misses.
        BlockCacheIndexMiss => "rocksdb.block.cache.index.miss",
        /// Index block hits.
        BlockCacheIndexHit => "rocksdb.block.cache.index.hit",
        /// Filter block misses.
        BlockCacheFilterMiss => "rocksdb.block.cache.filter.miss",
        /// Filter block hits.
        BlockCacheFilterHit => "rocksdb.block.cache.filter.hit",
        /// Data block misses.
        BlockCacheDataMiss => "rocksdb.block.cache.data.miss",
        /// Data block hits.
        BlockCacheDataHit => "rocksdb.block.cache.data.hit",
        /// Point lookups a table's Bloom filter answered "absent" (no data block read).
        BloomFilterUseful => "rocksdb.bloom.filter.useful",
        /// Point lookups a table's filter let through.
        BloomFilterFullPositive => "rocksdb.bloom.filter.full.positive",
        /// Lookups the filter let through that found the key in the table.
        BloomFilterFullTruePositive => "rocksdb.bloom.filter.full.true.positive",
        /// Gets answered by a memtable.
        MemtableHit => "rocksdb.memtable.hit",
        /// Gets not answered by the memtables.
        MemtableMiss => "rocksdb.memtable.miss",
        /// Gets answered by an L0 table.
        GetHitL0 => "rocksdb.l0.hit",
        /// Gets answered by an L1 table.
        GetHitL1 => "rocksdb.l1.hit",
        /// Gets answered by a table in L2 or below.
        GetHitL2AndUp => "rocksdb.l2andup.hit",
        /// Keys written (batch entries).
        NumberKeysWritten => "rocksdb.number.keys.written",
        /// Keys looked up by gets.
        NumberKeysRead => "rocksdb.number.keys.read",
        /// Bytes of batches written.
        BytesWritten => "rocksdb.bytes.written",
        /// Bytes of values returned by gets.
        BytesRead => "rocksdb.bytes.read",
        /// Iterator seeks (`seek`, `seek_for_prev`, `seek_to_first`, `seek_to_last`).
        NumberDbSeek => "rocksdb.number.db.seek",
        /// Microseconds writes were delayed or stopped by write control or full memtables.
        StallMicros => "rocksdb.stall.micros",
        /// Writes committed by their own thread as leader of a group.
        WriteDoneBySelf => "rocksdb.write.self",
        /// Writes committed by another thread's group.
        WriteDoneByOther => "rocksdb.write.other",
        /// Groups written to the WAL.
        WriteWithWal => "rocksdb.write.wal",
        /// Bytes compactions read from their input tables.
        CompactReadBytes => "rocksdb.compact.read.bytes",
        /// Bytes compactions wrote.
        CompactWriteBytes => "rocksdb.compact.write.bytes",
        /// Bytes flushes wrote.
        FlushWriteBytes => "rocksdb.flush.write.bytes",
        /// Bytes appended to the WAL.
        WalFileBytes => "rocksdb.wal.bytes",
        /// WAL syncs.
        WalFileSynced => "rocksdb.wal.synced",
    }
}

named_enum! {
    /// A latency or size histogram (RocksDB's `Histograms`).
    HistogramType {
        /// `get` latency, microseconds.
        DbGet => "rocksdb.db.get.micros",
        /// `write` latency (including waits), microseconds.
        DbWrite => "rocksdb.db.write.micros",
        /// Iterator seek latency, microseconds.
        DbSeek => "rocksdb.db.seek.micros",
        /// Compaction job time, microseconds.
        CompactionTime => "rocksdb.compaction.times.micros",
        /// Flush job time, microseconds.
        FlushTime => "rocksdb.db.flush.micros",
        /// WAL sync time, microseconds.
        WalFileSync => "rocksdb.wal.file.sync.micros",
        /// Time a write waited for write control, microseconds.
        WriteStall => "rocksdb.db.write.stall",
    }
}

/// The bucket limits (inclusive upper bounds) of RocksDB's `HistogramBucketMapper`: bucket `b`
/// holds values in `(limit[b - 1], limit[b]]`, bucket 0 holds `[0, 1]`. Shared with the bench's
/// latency histograms.
pub fn bucket_limits() -> &'static [u64] {
    static LIMITS: OnceLock<Vec<u64>> = OnceLock::new();
    LIMITS.get_or_init(|| {
        let mut limits = vec![1u64, 2];
        let mut v = 2.0f64;
        loop {
            v *= 1.5;
            if v > u64::MAX as f64 {
                break;
            }
            // Keep two significant digits (172 becomes 170), as RocksDB does.
            let mut b = v as u64;
            let mut scale = 1u64;
            while b / 10 > 10 {
                b /= 10;
                scale *= 10;
            }
            limits.push(b * scale);
        }
        limits
    })
}

/// The bucket of `value`: the first whose limit is at least `value`, the last for anything
/// past it.
fn bucket_index(value: u64) -> usize {
    let limits = bucket_limits();
    limits.partition_point(|&l| l < value).min(limits.len() - 1)
}

/// A summary of one histogram (RocksDB's `HistogramData`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HistogramData {
    /// The 50th percentile.
    pub median: f64,
    /// The 95th percentile.
    pub percentile95: f64,
    /// The 99th percentile.
    pub percentile99: f64,
    /// The mean.
    pub average: f64,
    /// The smallest value recorded (0 when empty).
    pub min: u64,
    /// The largest value recorded.
    pub max: u64,
    /// Values recorded.
    pub count: u64,
    /// Their sum.
    pub sum: u64,
}

/// A concurrent histogram with RocksDB's buckets.
struct Histogram {
    buckets: Box<[AtomicU64]>,
    min: AtomicU64,
    max: AtomicU64,
    count: AtomicU64,
    sum: AtomicU64,
}

impl Histogram {
    fn new() -> Histogram {
        Histogram {
            buckets: bucket_limits().iter().map(|_| AtomicU64::new(0)).collect(),
            min: AtomicU64::new(u64::MAX),
            max: AtomicU64::new(0),
            count: AtomicU64::new(0),
            sum: AtomicU64::new(0),
        }
    }

    fn add(&self, value: u64) {
        self.buckets[bucket_index(value)].fetch_add(1, Ordering::Relaxed);
        self.min.fetch_min(value, Ordering::Relaxed);
        self.max.fetch_max(value, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum.fetch_add(value, Ordering::Relaxed);
    }

    fn clear(&self) {
        for b in self.buckets.iter() {
            b.store(0, Ordering::Relaxed);
        }
        self.min.store(u64::MAX, Ordering::Relaxed);
        self.max.store(0, Ordering::Relaxed);
        self.count.store(0, Ordering::Relaxed);
        self.sum.store(0, Ordering::Relaxed);
    }

    fn data(&self) -> HistogramData {
        let counts: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        let count: u64 = counts.iter().sum();
        let sum = self.sum.load(Ordering::Relaxed);
        let (min, max) = if count == 0 {
            (0, 0)
        } else {
            (
                self.min.load(Ordering::Relaxed),
                self.max.load(Ordering::Relaxed),
            )
        };
        let percentile = |p: f64| percentile(&counts, count, min, max, p);
        HistogramData {
            median: percentile(50.0),
            percentile95: percentile(95.0),
            percentile99: percentile(99.0),
            average: if count == 0 {
                0.0
            } else {
                sum as f64 / count as f64
            },
            min,
            max,
            count,
            sum,
        }
    }
}

/// The `p`th percentile of bucket `counts` (RocksDB's `HistogramStat::Percentile`).
fn percentile(counts: &[u64], count: u64, min: u64, max: u64, p: f64) -> f64 {
    let limits = bucket_limits();
    let threshold = count as f64 * (p / 100.0);
    let mut cumulative = 0u64;
    for (b, &n) in counts.iter().enumerate() {
        cumulative += n;
        if cumulative as f64 >= threshold {
            let left = if b == 0 { 0 } else { limits[b - 1] } as f64;
            let right = limits[b] as f64;
            let left_sum = cumulative - n;
            let pos = if n == 0 {
                0.0
            } else {
                (threshold - left_sum as f64) / n as f64
            };
            let r = left + (right - left) * pos;
            return r.clamp(min as f64, max as f64);
        }
    }
    max as f64
}

/// What a [`Statistics`] records (RocksDB's `StatsLevel`), from least to most. CairnDB measures
/// no mutex waits and no compression times (RocksDB's "detailed timers"), so the last three
/// levels record the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StatsLevel {
    /// Nothing.
    DisableAll,
    /// Tickers only.
    ExceptHistogramOrTimers,
    /// Tickers and the histograms that are not times; every histogram CairnDB keeps is a time,
    /// so tickers only.
    ExceptTimers,
    /// Everything CairnDB measures (RocksDB's default level).
    ExceptDetailedTimers,
    /// Everything CairnDB measures.
    ExceptTimeForMutex,
    /// Everything CairnDB measures.
    All,
}

impl StatsLevel {
    const ALL: [StatsLevel; 6] = [
        StatsLevel::DisableAll,
        StatsLevel::ExceptHistogramOrTimers,
        StatsLevel::ExceptTimers,
        StatsLevel::ExceptDetailedTimers,
        StatsLevel::ExceptTimeForMutex,
        StatsLevel::All,
    ];
}

/// Tickers and histograms of one or more databases (RocksDB's `Statistics`). Create one, put
/// it in `DbOptions::statistics`, open, and read it at any time.
pub struct Statistics {
    tickers: Box<[AtomicU64]>,
    histograms: Box<[Histogram]>,
    /// A [`StatsLevel`] as its index in `StatsLevel::ALL`.
    level: AtomicU8,
}

impl Default for Statistics {
    fn default() -> Self {
        Statistics::new()
    }
}

impl fmt::Debug for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Statistics").finish_non_exhaustive()
    }
}

/// Two statistics objects are equal only when they are the same object (options compare by
/// identity, as the rate limiter and the block cache do).
impl PartialEq for Statistics {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Statistics {
    /// Every ticker at 0 and every histogram empty.
    pub fn new() -> Statistics {
        Statistics {
            tickers: Ticker::ALL.iter().map(|_| AtomicU64::new(0)).collect(),
            histograms: HistogramType::ALL
                .iter()
                .map(|_| Histogram::new())
                .collect(),
            level: AtomicU8::new(StatsLevel::ExceptDetailedTimers as u8),
        }
    }

    /// What is recorded from now on (RocksDB's `set_stats_level`).
    pub fn set_level(&self, level: StatsLevel) {
        self.level.store(level as u8, Ordering::Relaxed);
    }

    /// What is recorded.
    pub fn level(&self) -> StatsLevel {
        StatsLevel::ALL[usize::from(self.level.load(Ordering::Relaxed))]
    }

    /// Adds `n` to `ticker`.
    pub fn record_tick(&self, ticker: Ticker, n: u64) {
        if self.level() == StatsLevel::DisableAll {
            return;
        }
        self.tickers[ticker as usize].fetch_add(n, Ordering::Relaxed);
    }

    /// The value of `ticker` (RocksDB's `getTickerCount`).
    pub fn get_ticker_count(&self, ticker: Ticker) -> u64 {
        self.tickers[ticker as usize].load(Ordering::Relaxed)
    }

    /// The value of the ticker RocksDB names `name`; `None` for a name CairnDB does not count.
    pub fn get_ticker_count_by_name(&self, name: &str) -> Option<u64> {
        Ticker::from_name(name).map(|t| self.get_ticker_count(t))
    }

    /// Records `value` in `histogram` (RocksDB's `measureTime`/`reportTimeToHistogram`).
    pub fn record_in_histogram(&self, histogram: HistogramType, value: u64) {
        let level = self.level();
        // Every histogram CairnDB keeps is a time (`ExceptTimers` skips them too).
        if level <= StatsLevel::ExceptTimers {
            return;
        }
        self.histograms[histogram as usize].add(value);
    }

    /// The summary of `histogram` (RocksDB's `histogramData`).
    pub fn histogram_data(&self, histogram: HistogramType) -> HistogramData {
        self.histograms[histogram as usize].data()
    }

    /// Sets every ticker to 0 and empties every histogram (RocksDB's `Reset`).
    pub fn reset(&self) {
        for t in self.tickers.iter() {
            t.store(0, Ordering::Relaxed);
        }
        for h in self.histograms.iter() {
            h.clear();
        }
    }
}

/// RocksDB's `Statistics::ToString`: one `NAME COUNT : n` line per ticker, then one
/// `NAME P50 : .. P95 : .. P99 : .. P100 : .. COUNT : .. SUM : ..` line per histogram.
impl fmt::Display for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &t in Ticker::ALL {
            writeln!(f, "{} COUNT : {}", t.name(), self.get_ticker_count(t))?;
        }
        for &h in HistogramType::ALL {
            let d = self.histogram_data(h);
            writeln!(
                f,
                "{} P50 : {:.6} P95 : {:.6} P99 : {:.6} P100 : {:.6} COUNT : {} SUM : {}",
                h.name(),
                d.median,
                d.percentile95,
                d.percentile99,
                d.max as f64,
                d.count,
                d.sum
            )?;
        }
        Ok(())
    }
}

/// Counts one block cache lookup of a `kind` block: the total and the per-kind ticker.
pub(crate) fn record_block_cache(s: &Statistics, kind: crate::sstable::BlockKind, hit: bool) {
    use crate::sstable::BlockKind;
    let (total, by_kind) = match (kind, hit) {
        (BlockKind::Data, true) => (Ticker::BlockCacheHit, Some(Ticker::BlockCacheDataHit)),
        (BlockKind::Data, false) => (Ticker::BlockCacheMiss, Some(Ticker::BlockCacheDataMiss)),
        (BlockKind::Index, true) => (Ticker::BlockCacheHit, Some(Ticker::BlockCacheIndexHit)),
        (BlockKind::Index, false) => (Ticker::BlockCacheMiss, Some(Ticker::BlockCacheIndexMiss)),
        (BlockKind::Filter, true) => (Ticker::BlockCacheHit, Some(Ticker::BlockCacheFilterHit)),
        (BlockKind::Filter, false) => (Ticker::BlockCacheMiss, Some(Ticker::BlockCacheFilterMiss)),
        (_, true) => (Ticker::BlockCacheHit, None),
        (_, false) => (Ticker::BlockCacheMiss, None),
    };
    s.record_tick(total, 1);
    if let Some(t) = by_kind {
        s.record_tick(t, 1);
    }
}

/// Microseconds since `start`, saturating.
pub(crate) fn micros_since(start: std::time::Instant) -> u64 {
    u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_rocksdbs_mapper() {
        let l = bucket_limits();
        assert_eq!(&l[..13], &[1, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76, 110, 170]);
        assert!(l.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(bucket_index(0), 0);
        assert_eq!(bucket_index(5), 4);
        assert_eq!(bucket_index(u64::MAX), l.len() - 1);
    }

    #[test]
    fn percentiles_interpolate_and_clamp() {
        let s = Statistics::new();
        for v in 1..=100 {
            s.record_in_histogram(HistogramType::DbGet, v);
        }
        let d = s.histogram_data(HistogramType::DbGet);
        assert_eq!((d.count, d.sum, d.min, d.max), (100, 5050, 1, 100));
        assert!((40.0..=60.0).contains(&d.median), "{d:?}");
        assert!(d.percentile99 <= 100.0 && d.percentile99 >= d.percentile95);
        let empty = s.histogram_data(HistogramType::DbWrite);
        assert_eq!(empty, HistogramData::default());
    }

    #[test]
    fn levels_decide_what_is_recorded() {
        let s = Statistics::new();
        assert_eq!(s.level(), StatsLevel::ExceptDetailedTimers);
        let record = |s: &Statistics| {
            s.record_tick(Ticker::BytesWritten, 1);
            s.record_in_histogram(HistogramType::DbWrite, 5);
        };
        let counts = |s: &Statistics| {
            (
                s.get_ticker_count(Ticker::BytesWritten),
                s.histogram_data(HistogramType::DbWrite).count,
            )
        };
        for (level, want) in [
            (StatsLevel::DisableAll, (0, 0)),
            (StatsLevel::ExceptHistogramOrTimers, (1, 0)),
            (StatsLevel::ExceptTimers, (1, 0)),
            (StatsLevel::ExceptDetailedTimers, (1, 1)),
            (StatsLevel::All, (1, 1)),
        ] {
            s.reset();
            s.set_level(level);
            assert_eq!(s.level(), level);
            record(&s);
            assert_eq!(counts(&s), want, "{level:?}");
        }
    }

    #[test]
    fn printed_as_rocksdb_prints_it() {
        let s = Statistics::new();
        s.record_tick(Ticker::BlockCacheMiss, 5);
        s.record_in_histogram(HistogramType::DbGet, 7);
        let text = s.to_string();
        assert!(
            text.contains("rocksdb.block.cache.miss COUNT : 5\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "rocksdb.db.get.micros P50 : 7.000000 P95 : 7.000000 P99 : 7.000000 \
                 P100 : 7.000000 COUNT : 1 SUM : 7\n"
            ),
            "{text}"
        );
        s.reset();
        assert_eq!(s.get_ticker_count(Ticker::BlockCacheMiss), 0);
        assert_eq!(
            s.get_ticker_count_by_name("rocksdb.block.cache.miss"),
            Some(0)
        );
        assert_eq!(s.get_ticker_count_by_name("rocksdb.nope"), None);
    }
}
