//! RocksDB's `HistogramStat` (`monitoring/histogram.cc`), reproduced so that `--histogram=1`
//! prints db_bench's histogram block with the same buckets, percentile interpolation and layout.
//!
//! Values are microseconds, as db_bench records them. The buckets are 1, 2, then each previous
//! limit times 1.5 rounded down to its two most significant digits, up to `u64::MAX`.

use std::fmt::Write as _;

/// The bucket limits (`HistogramBucketMapper`): bucket `b` holds values in
/// `(limit[b - 1], limit[b]]`, bucket 0 holds `[0, 1]`. The engine's statistics use the same.
fn bucket_limits() -> &'static [u64] {
    cairndb::statistics::bucket_limits()
}

/// The index of the bucket `value` falls in (`IndexForValue`).
fn bucket_index(value: u64) -> usize {
    let limits = bucket_limits();
    let last = limits.len() - 1;
    if value >= limits[last] {
        last
    } else {
        limits.partition_point(|&l| l < value)
    }
}

/// A latency histogram in microseconds with RocksDB's buckets and statistics.
#[derive(Debug, Clone)]
pub struct DbBenchHistogram {
    min: u64,
    max: u64,
    num: u64,
    sum: u64,
    sum_squares: f64,
    buckets: Vec<u64>,
}

impl Default for DbBenchHistogram {
    fn default() -> Self {
        DbBenchHistogram {
            min: *bucket_limits().last().expect("buckets"),
            max: 0,
            num: 0,
            sum: 0,
            sum_squares: 0.0,
            buckets: vec![0; bucket_limits().len()],
        }
    }
}

impl DbBenchHistogram {
    /// Records one value (microseconds).
    pub fn add(&mut self, value: u64) {
        self.buckets[bucket_index(value)] += 1;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.num += 1;
        self.sum = self.sum.saturating_add(value);
        self.sum_squares += (value as f64) * (value as f64);
    }

    /// Adds `other`'s values to this histogram.
    pub fn merge(&mut self, other: &DbBenchHistogram) {
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.num += other.num;
        self.sum = self.sum.saturating_add(other.sum);
        self.sum_squares += other.sum_squares;
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
    }

    /// Values recorded.
    #[cfg(test)]
    pub fn count(&self) -> u64 {
        self.num
    }

    fn average(&self) -> f64 {
        if self.num == 0 {
            0.0
        } else {
            self.sum as f64 / self.num as f64
        }
    }

    fn standard_deviation(&self) -> f64 {
        if self.num == 0 {
            return 0.0;
        }
        let n = self.num as f64;
        let s = self.sum as f64;
        let variance = (self.sum_squares * n - s * s) / (n * n);
        variance.max(0.0).sqrt()
    }

    /// The `p`th percentile (`p` in 0..=100), interpolated linearly within its bucket and
    /// clamped to the recorded minimum and maximum, as `HistogramStat::Percentile`.
    pub fn percentile(&self, p: f64) -> f64 {
        let limits = bucket_limits();
        let threshold = self.num as f64 * (p / 100.0);
        let mut cumulative = 0u64;
        for (b, &count) in self.buckets.iter().enumerate() {
            cumulative += count;
            if cumulative as f64 >= threshold {
                let left = if b == 0 { 0 } else { limits[b - 1] };
                let right = limits[b];
                let left_sum = cumulative - count;
                let pos = if count != 0 {
                    (threshold - left_sum as f64) / count as f64
                } else {
                    0.0
                };
                let r = left as f64 + (right - left) as f64 * pos;
                return r.max(self.min as f64).min(self.max as f64);
            }
        }
        self.max as f64
    }

    /// `HistogramStat::ToString`: count, average and deviation, min/median/max, percentiles,
    /// a rule, then one line per non-empty bucket with its share, the cumulative share and one
    /// `#` per 5%.
    pub fn to_db_bench_string(&self) -> String {
        let mut r = String::new();
        let _ = writeln!(
            r,
            "Count: {} Average: {:.4}  StdDev: {:.2}",
            self.num,
            self.average(),
            self.standard_deviation()
        );
        let (min, max) = if self.num == 0 {
            (0, 0)
        } else {
            (self.min, self.max)
        };
        let _ = writeln!(
            r,
            "Min: {min}  Median: {:.4}  Max: {max}",
            self.percentile(50.0)
        );
        let _ = writeln!(
            r,
            "Percentiles: P50: {:.2} P75: {:.2} P99: {:.2} P99.9: {:.2} P99.99: {:.2}",
            self.percentile(50.0),
            self.percentile(75.0),
            self.percentile(99.0),
            self.percentile(99.9),
            self.percentile(99.99)
        );
        r.push_str("------------------------------------------------------\n");
        if self.num == 0 {
            return r;
        }
        let limits = bucket_limits();
        let mult = 100.0 / self.num as f64;
        let mut cumulative = 0u64;
        for (b, &count) in self.buckets.iter().enumerate() {
            if count == 0 {
                continue;
            }
            cumulative += count;
            let _ = write!(
                r,
                "{} {:>7}, {:>7} ] {:>8} {:>7.3}% {:>7.3}% ",
                if b == 0 { '[' } else { '(' },
                if b == 0 { 0 } else { limits[b - 1] },
                limits[b],
                count,
                mult * count as f64,
                mult * cumulative as f64
            );
            let marks = (mult * count as f64 / 5.0 + 0.5) as usize;
            r.push_str(&"#".repeat(marks));
            r.push('\n');
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_follow_rocksdb_mapper() {
        let l = bucket_limits();
        assert_eq!(
            &l[..16],
            &[1, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76, 110, 170, 250, 380, 580]
        );
        // RocksDB's HistogramImpl has 109 buckets.
        assert_eq!(l.len(), 109);
        assert_eq!(bucket_index(0), 0);
        assert_eq!(bucket_index(1), 0);
        assert_eq!(bucket_index(2), 1);
        assert_eq!(bucket_index(5), 4);
        assert_eq!(bucket_index(u64::MAX), l.len() - 1);
    }

    #[test]
    fn block_has_db_bench_layout() {
        let mut h = DbBenchHistogram::default();
        for v in [1, 1, 2, 5, 5, 5, 10, 100] {
            h.add(v);
        }
        let s = h.to_db_bench_string();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines[0], "Count: 8 Average: 16.1250  StdDev: 31.82");
        assert!(lines[1].starts_with("Min: 1  Median: "), "{s}");
        assert!(lines[1].ends_with("  Max: 100"), "{s}");
        assert!(lines[2].starts_with("Percentiles: P50: "), "{s}");
        assert_eq!(
            lines[3],
            "------------------------------------------------------"
        );
        // Bucket [0, 1] holds two of eight values: 25%, five marks.
        assert_eq!(
            lines[4],
            "[       0,       1 ]        2  25.000%  25.000% #####"
        );
        assert_eq!(
            lines[5],
            "(       1,       2 ]        1  12.500%  37.500% ###"
        );
        assert_eq!(
            lines[6],
            "(       4,       6 ]        3  37.500%  75.000% ########"
        );
        assert!(lines.last().expect("line").contains("100.000%"), "{s}");
        // Empty buckets are left out: 2 + 1 + 3 + one for 10 + one for 100.
        assert_eq!(lines.len(), 4 + 5);
    }

    #[test]
    fn percentiles_interpolate_within_buckets_and_clamp() {
        let mut h = DbBenchHistogram::default();
        for _ in 0..100 {
            h.add(5);
        }
        // All values in (4, 6]: clamped to min = max = 5.
        assert_eq!(h.percentile(50.0), 5.0);
        assert_eq!(h.percentile(99.99), 5.0);
        let mut g = DbBenchHistogram::default();
        for v in 1..=100 {
            g.add(v);
        }
        let median = g.percentile(50.0);
        assert!((42.0..=63.0).contains(&median), "{median}");
        let empty = DbBenchHistogram::default();
        assert!(empty.to_db_bench_string().starts_with(
            "Count: 0 Average: 0.0000  StdDev: 0.00\nMin: 0  Median: 0.0000  Max: 0\n"
        ));
        let mut m = h.clone();
        m.merge(&g);
        assert_eq!(m.count(), 200);
    }
}
