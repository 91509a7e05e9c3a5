//! Statistics: tickers and histograms by RocksDB's names (`Options::enable_statistics`).
//!
//! [`Ticker`] and [`Histogram`] list what CairnDB counts (a subset of RocksDB's: a program that
//! names a ticker CairnDB does not keep does not compile, rather than read a count of 0 that
//! was never measured).

pub use cairndb::options::{HistogramType as Histogram, StatsLevel, Ticker};

/// A histogram's summary.
#[derive(Debug, Clone, Copy, Default)]
pub struct HistogramData {
    pub(crate) inner: cairndb::options::HistogramData,
}

impl HistogramData {
    /// An empty summary.
    pub fn new() -> HistogramData {
        HistogramData::default()
    }

    /// The 50th percentile.
    pub fn median(&self) -> f64 {
        self.inner.median
    }

    /// The mean.
    pub fn average(&self) -> f64 {
        self.inner.average
    }

    /// The 95th percentile.
    pub fn p95(&self) -> f64 {
        self.inner.percentile95
    }

    /// The 99th percentile.
    pub fn p99(&self) -> f64 {
        self.inner.percentile99
    }

    /// The largest value.
    pub fn max(&self) -> f64 {
        self.inner.max as f64
    }

    /// The smallest value.
    pub fn min(&self) -> f64 {
        self.inner.min as f64
    }

    /// The sum of the values.
    pub fn sum(&self) -> u64 {
        self.inner.sum
    }

    /// The number of values.
    pub fn count(&self) -> u64 {
        self.inner.count
    }
}
