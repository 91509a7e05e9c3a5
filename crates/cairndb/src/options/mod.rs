//! Options under RocksDB's names, units and defaults, their validation, and RocksDB option strings.
//!
//! - [`DbOptions`] (`db.rs`): what applies to the whole database (RocksDB's `DBOptions`).
//! - [`CfOptions`] (`cf.rs`): what applies to one column family (RocksDB's
//!   `ColumnFamilyOptions`), including the block-based table options as [`CfOptions::table`].
//! - [`ReadOptions`], [`WriteOptions`] (`read_write.rs`): per call.
//! - `parse.rs`: RocksDB option strings (`write_buffer_size=256m;compression=kLZ4Compression`)
//!   read and applied; `print.rs`: the options printed back as such strings.
//! - `file.rs`: OPTIONS files (`OPTIONS-NNNNNN`, RocksDB's INI layout), written at every open.
//! - Reference for every option with its default, unit and trade-off: `docs/design/options.md`.
//!
//! # Contract
//! - Options are plain values: build them on any thread, clone them, hand them to the database.
//!   Nothing here does I/O or spawns threads.
//! - Parsing does not validate ranges; [`DbOptions::validate`] and [`CfOptions::validate`] do, and
//!   the database calls them when it opens. This is RocksDB's split too (`GetOptionsFromString`
//!   then `DB::Open`), and it lets a caller build options from several strings before checking.
//! - Parsing is all or nothing: on error the options being updated are unchanged.
//!
//! # Invariants
//! 1. Every option CairnDB accepts by a RocksDB name means what it means in RocksDB, in the same
//!    unit; where a default differs from RocksDB's, the field's rustdoc says so and why.
//! 2. `to_options_string` emits only options this module parses, so its output parses back to
//!    equal options (tested as a property). The exceptions are a custom prefix extractor (emitted
//!    by name, which only the built-in extractors parse back) and a block cache (emitted as its
//!    capacity, so parsing creates a new cache of that size).
//! 3. A RocksDB option CairnDB does not honour is never accepted silently: parsing fails naming
//!    it, or, with [`ParseConfig::ignore_unknown_options`], reports it as a [`ParseWarning`].

mod cf;
mod db;
pub(crate) mod file;
mod honoured;
mod mutable;
mod parse;
mod print;
mod read_write;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_filter_bits;

pub use crate::statistics::{HistogramData, HistogramType, Statistics, StatsLevel, Ticker};
pub use cf::{CfOptions, TTL_AUTO};
pub use db::{Clock, DbOptions, ManualClock, RateLimiter, RateLimiterMode, SystemClock};
pub use file::OptionsFile;
pub(crate) use mutable::rate_limit_change;
pub use mutable::{MUTABLE_CF_OPTIONS, MUTABLE_DB_OPTIONS};
pub use parse::{ParseConfig, ParseWarning};
pub use read_write::{ReadOptions, WriteOptions};

pub use crate::sstable::TableOptions;
pub use crate::wal::WalRecoveryMode;

use crate::error::{Error, Result};

/// Database-wide and column-family options together: what RocksDB's `Options` holds and what
/// `GetOptionsFromString` fills.
///
/// ```
/// use cairndb::options::{Options, ParseConfig};
///
/// # fn main() -> cairndb::Result<()> {
/// let mut options = Options::default();
/// options.db.create_if_missing = true;
/// // RocksDB option strings, as `GetOptionsFromString` reads them.
/// options.apply_options_string(
///     "write_buffer_size=128m;max_background_jobs=4;compression=kLZ4Compression",
///     &ParseConfig::default(),
/// )?;
/// assert_eq!(options.cf.write_buffer_size, 128 << 20);
/// assert_eq!(options.db.max_background_jobs, 4);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Options of the whole database.
    pub db: DbOptions,
    /// Options of the default column family (and the template for new ones).
    pub cf: CfOptions,
}

impl Options {
    /// Checks both parts.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first option out of range.
    pub fn validate(&self) -> Result<()> {
        self.db.validate()?;
        self.cf.validate()
    }
}

/// How compaction shapes the tree. RocksDB's `compaction_style`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CompactionStyle {
    /// `kCompactionStyleLevel`: leveled; each level below L0 is one sorted run. The default: least
    /// space amplification, most write amplification.
    #[default]
    Level,
    /// `kCompactionStyleUniversal`: tiered; sorted runs merged by size ratio. Less write
    /// amplification, up to 2x space during a full compaction.
    Universal,
    /// `kCompactionStyleFIFO`: no merging; the oldest files are dropped past a size or `ttl`.
    Fifo,
}

/// Which file of a level leveled compaction picks first. RocksDB's `compaction_pri`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CompactionPri {
    /// `kByCompensatedSize`: the largest file, with deletions weighing extra.
    ByCompensatedSize,
    /// `kOldestLargestSeqFirst`: the file whose newest entry is oldest (good for hot ranges).
    OldestLargestSeqFirst,
    /// `kOldestSmallestSeqFirst`: the file whose oldest entry is oldest (uniform updates).
    OldestSmallestSeqFirst,
    /// `kMinOverlappingRatio`: the file with the least overlap in the next level per byte, which
    /// minimizes write amplification. The default, as in RocksDB.
    #[default]
    MinOverlappingRatio,
    /// `kRoundRobin`: files in key order from a per-level cursor kept in the MANIFEST, wrapping.
    RoundRobin,
}

/// Least severity of the messages written to the info log. RocksDB's `InfoLogLevel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum InfoLogLevel {
    /// `DEBUG_LEVEL`.
    Debug,
    /// `INFO_LEVEL`: the default.
    #[default]
    Info,
    /// `WARN_LEVEL`.
    Warn,
    /// `ERROR_LEVEL`.
    Error,
    /// `FATAL_LEVEL`.
    Fatal,
    /// `HEADER_LEVEL`: only the header lines written at open.
    Header,
}

/// The CPU priority of a pool of background threads (RocksDB's `CpuPriority`, set there with
/// `Env::LowerThreadPoolCPUPriority`). On Linux, `Low` is nice 19 and `Idle` the `SCHED_IDLE`
/// policy; `Normal` leaves the threads at the priority of the thread that opened the database.
/// Other systems accept only `Normal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CpuPriority {
    /// `kIdle`: runs only when a core has nothing else to run.
    Idle,
    /// `kLow`: nice 19, about 1.5% of a core's time against one busy thread at nice 0.
    Low,
    /// `kNormal`: the default.
    #[default]
    Normal,
}

/// An option enum with RocksDB's spelling of each value, shared by parsing and printing so the
/// two can never disagree (also for tools that take RocksDB's flag values, like `cairn bench`).
pub trait RocksDbEnum: Sized + Copy + PartialEq + 'static {
    /// Every value with its RocksDB spelling.
    const NAMES: &'static [(Self, &'static str)];

    /// RocksDB's spelling of `self`.
    fn rocksdb_name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(v, _)| *v == self)
            .map(|(_, n)| *n)
            .expect("every value is listed in NAMES")
    }

    /// Parses RocksDB's spelling (exact, as RocksDB does) for the option `option`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `option` and listing the accepted spellings.
    fn parse_rocksdb(option: &str, s: &str) -> Result<Self> {
        if let Some((v, _)) = Self::NAMES.iter().find(|(_, n)| *n == s) {
            return Ok(*v);
        }
        let allowed: Vec<&str> = Self::NAMES.iter().map(|(_, n)| *n).collect();
        Err(Error::InvalidArgument(format!(
            "option {option}: unknown value {s:?}; expected one of {}",
            allowed.join(", ")
        )))
    }
}

impl RocksDbEnum for CompactionStyle {
    const NAMES: &'static [(Self, &'static str)] = &[
        (CompactionStyle::Level, "kCompactionStyleLevel"),
        (CompactionStyle::Universal, "kCompactionStyleUniversal"),
        (CompactionStyle::Fifo, "kCompactionStyleFIFO"),
    ];
}

impl RocksDbEnum for CompactionPri {
    const NAMES: &'static [(Self, &'static str)] = &[
        (CompactionPri::ByCompensatedSize, "kByCompensatedSize"),
        (
            CompactionPri::OldestLargestSeqFirst,
            "kOldestLargestSeqFirst",
        ),
        (
            CompactionPri::OldestSmallestSeqFirst,
            "kOldestSmallestSeqFirst",
        ),
        (CompactionPri::MinOverlappingRatio, "kMinOverlappingRatio"),
        (CompactionPri::RoundRobin, "kRoundRobin"),
    ];
}

impl RocksDbEnum for CpuPriority {
    const NAMES: &'static [(Self, &'static str)] = &[
        (CpuPriority::Idle, "kIdle"),
        (CpuPriority::Low, "kLow"),
        (CpuPriority::Normal, "kNormal"),
    ];
}

impl RocksDbEnum for InfoLogLevel {
    const NAMES: &'static [(Self, &'static str)] = &[
        (InfoLogLevel::Debug, "DEBUG_LEVEL"),
        (InfoLogLevel::Info, "INFO_LEVEL"),
        (InfoLogLevel::Warn, "WARN_LEVEL"),
        (InfoLogLevel::Error, "ERROR_LEVEL"),
        (InfoLogLevel::Fatal, "FATAL_LEVEL"),
        (InfoLogLevel::Header, "HEADER_LEVEL"),
    ];
}

impl RocksDbEnum for WalRecoveryMode {
    const NAMES: &'static [(Self, &'static str)] = &[
        (
            WalRecoveryMode::TolerateCorruptedTailRecords,
            "kTolerateCorruptedTailRecords",
        ),
        (WalRecoveryMode::AbsoluteConsistency, "kAbsoluteConsistency"),
        (WalRecoveryMode::PointInTimeRecovery, "kPointInTimeRecovery"),
        (
            WalRecoveryMode::SkipAnyCorruptedRecords,
            "kSkipAnyCorruptedRecords",
        ),
    ];
}

/// The error for `option` holding `value` outside `range` (described in words).
pub(crate) fn out_of_range<T: std::fmt::Display>(option: &str, value: T, range: &str) -> Error {
    Error::InvalidArgument(format!(
        "option {option} = {value} is out of range: {range}"
    ))
}

/// Checks `lo <= value <= hi` for the option `option`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the option and the range.
pub(crate) fn check_range<T: PartialOrd + Copy + std::fmt::Display>(
    option: &str,
    value: T,
    lo: T,
    hi: T,
) -> Result<()> {
    // `contains` is false for NaN, so a NaN set in code is caught too.
    if !(lo..=hi).contains(&value) {
        return Err(out_of_range(option, value, &format!("{lo}..={hi}")));
    }
    Ok(())
}
