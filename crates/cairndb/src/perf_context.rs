//! Per-thread operation counters (RocksDB's `PerfContext`): what the calls this thread made
//! cost, counted only while the thread's level says so.
//!
//! Contract:
//! 1. Counters and the level belong to the calling thread (thread-locals): a count is what this
//!    thread's calls did since its last [`reset`], and no thread sees another's.
//! 2. Counting happens at [`PerfLevel::EnableCount`] (each thread's default, as RocksDB's
//!    `kEnableCount`); at [`PerfLevel::Disable`] nothing is counted and the counters keep their
//!    values.
//! 3. [`PerfMetric`] lists only what CairnDB counts (a subset of RocksDB's metrics); there are
//!    no timing metrics.

use std::cell::Cell;

/// Whether this thread's calls are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PerfLevel {
    /// Nothing is counted.
    Disable,
    /// Counters are counted (the default).
    EnableCount,
}

/// A per-thread counter, with RocksDB's name in [`PerfMetric::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PerfMetric {
    /// Block cache lookups that found the block.
    BlockCacheHitCount,
    /// Blocks read from table files.
    BlockReadCount,
    /// Bytes of the blocks read from table files (trailers included).
    BlockReadByte,
}

impl PerfMetric {
    /// Every metric, in report order.
    pub const ALL: [PerfMetric; 3] = [
        PerfMetric::BlockCacheHitCount,
        PerfMetric::BlockReadCount,
        PerfMetric::BlockReadByte,
    ];

    /// RocksDB's name (`PerfContext::ToString`).
    pub fn name(self) -> &'static str {
        match self {
            PerfMetric::BlockCacheHitCount => "block_cache_hit_count",
            PerfMetric::BlockReadCount => "block_read_count",
            PerfMetric::BlockReadByte => "block_read_byte",
        }
    }
}

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(true) };
    static COUNTERS: [Cell<u64>; 3] = const { [Cell::new(0), Cell::new(0), Cell::new(0)] };
}

/// Sets this thread's level.
pub fn set_perf_level(level: PerfLevel) {
    ENABLED.with(|e| e.set(level == PerfLevel::EnableCount));
}

/// This thread's level.
pub fn perf_level() -> PerfLevel {
    if ENABLED.with(Cell::get) {
        PerfLevel::EnableCount
    } else {
        PerfLevel::Disable
    }
}

/// Adds `n` to this thread's `metric` when counting is on.
pub(crate) fn add(metric: PerfMetric, n: u64) {
    if ENABLED.with(Cell::get) {
        COUNTERS.with(|c| {
            let cell = &c[metric as usize];
            cell.set(cell.get().saturating_add(n));
        });
    }
}

/// This thread's count of `metric`.
pub fn get(metric: PerfMetric) -> u64 {
    COUNTERS.with(|c| c[metric as usize].get())
}

/// Sets this thread's counters to 0.
pub fn reset() {
    COUNTERS.with(|c| c.iter().for_each(|cell| cell.set(0)));
}

/// This thread's counters as RocksDB prints them: `name = value` pairs separated by `, `,
/// zero ones left out when `exclude_zero`.
pub fn report(exclude_zero: bool) -> String {
    PerfMetric::ALL
        .iter()
        .map(|&m| (m, get(m)))
        .filter(|&(_, v)| !exclude_zero || v > 0)
        .map(|(m, v)| format!("{} = {v}", m.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_thread_and_only_when_enabled() {
        reset();
        add(PerfMetric::BlockReadCount, 2);
        assert_eq!(get(PerfMetric::BlockReadCount), 2);
        set_perf_level(PerfLevel::Disable);
        add(PerfMetric::BlockReadCount, 5);
        assert_eq!(get(PerfMetric::BlockReadCount), 2);
        set_perf_level(PerfLevel::EnableCount);
        assert_eq!(report(true), "block_read_count = 2");
        assert_eq!(
            report(false),
            "block_cache_hit_count = 0, block_read_count = 2, block_read_byte = 0"
        );
        std::thread::spawn(|| assert_eq!(get(PerfMetric::BlockReadCount), 0))
            .join()
            .expect("other thread");
        reset();
        assert_eq!(get(PerfMetric::BlockReadCount), 0);
    }
}
