//! [`CfOptions`]: options of one column family, RocksDB's `ColumnFamilyOptions` under the same
//! names, with the block-based table options in [`CfOptions::table`].
//!
//! Plain data; see the module contract in `options/mod.rs`.
//!
//! [`TableOptions`] has fields that RocksDB keeps outside `BlockBasedTableOptions`:
//! `compression`, `prefix_extractor` and `comparator` (column-family options) and `bytes_per_sync`
//! (a database option). In `CfOptions::table` those four are ignored;
//! [`CfOptions::table_options_for_output`] and [`CfOptions::table_options_for_reads`] fill them
//! from the column family and database options, so each fact has one home.

use std::sync::Arc;

use super::{check_range, out_of_range, CompactionPri, CompactionStyle, DbOptions, TableOptions};
use crate::compaction::deletion_collector::CompactOnDeletion;
use crate::compaction::filter::{CompactionFilter, CompactionFilterFactory};
use crate::compaction::picker_fifo::FifoOptions;
use crate::compaction::picker_universal::UniversalOptions;
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::merge::MergeOperator;
use crate::sstable::PrefixExtractor;
use crate::types::CompressionType;

/// RocksDB's "pick the default" value of `ttl` and `periodic_compaction_seconds`
/// (`0xfffffffffffffffe`), kept so RocksDB option strings mean the same here.
pub const TTL_AUTO: u64 = u64::MAX - 1;
/// 30 days in seconds: what [`TTL_AUTO`] resolves to where it enables anything.
const THIRTY_DAYS_SECS: u64 = 30 * 24 * 60 * 60;
/// Smallest and largest `write_buffer_size` (RocksDB clips to the same range).
const MIN_WRITE_BUFFER: usize = 64 << 10;
const MAX_WRITE_BUFFER: usize = 64 << 30;
/// Most levels a tree may have.
pub const MAX_NUM_LEVELS: u32 = 64;

/// Options of one column family. RocksDB's `ColumnFamilyOptions`; field names are RocksDB's.
///
/// The merge operator is a Rust object (`merge_operator`), so option strings do not set it (a
/// RocksDB `merge_operator=` in an option string is reported as unsupported).
#[derive(Debug, Clone)]
pub struct CfOptions {
    /// Bytes of user data a memtable holds before it becomes immutable and is flushed. Default
    /// 64 MiB. Larger memtables mean fewer, larger L0 files and less write amplification, at the
    /// cost of memory and recovery time (the WAL to replay grows with it). Range 64 KiB..=64 GiB.
    pub write_buffer_size: usize,
    /// Memtables (active plus immutable) kept in memory before writes stop waiting for a flush.
    /// Default 2. More absorbs flush hiccups, at `write_buffer_size` of memory each. Range
    /// 2..=256 (RocksDB silently raises 1 to 2; CairnDB says so instead).
    pub max_write_buffer_number: u32,
    /// Immutable memtables queued before the background flush starts; it then writes every
    /// queued one into a single L0 file, dropping versions no snapshot needs. Default 1. More
    /// makes fewer, larger L0 files (and drops overwritten keys before they reach L0) but keeps
    /// more memtables for reads to search and old WALs alive longer. As in RocksDB, a manual
    /// flush, the `max_total_wal_size` switch and a writer stalled on `max_write_buffer_number`
    /// flush whatever is queued, however few. Range 1..max_write_buffer_number.
    pub min_write_buffer_number_to_merge: u32,
    /// L0 files that trigger an L0 compaction. Default 4. Higher lowers write amplification and
    /// raises read amplification (every L0 file is searched). Range 1..=slowdown trigger.
    pub level0_file_num_compaction_trigger: u32,
    /// L0 files at which writes start being slowed (the admission rate starts falling). Default
    /// 20. Range file_num_compaction_trigger..=stop trigger.
    pub level0_slowdown_writes_trigger: u32,
    /// L0 files at which writes stop until compaction catches up. Default 36. Range
    /// slowdown trigger..=u32::MAX.
    pub level0_stop_writes_trigger: u32,
    /// Estimated bytes compaction owes at which writes start slowing; 0 disables. Default
    /// 64 GiB. Range: at most `hard_pending_compaction_bytes_limit` when both are non-zero.
    pub soft_pending_compaction_bytes_limit: u64,
    /// Estimated bytes compaction owes at which writes stop; 0 disables. Default 256 GiB.
    pub hard_pending_compaction_bytes_limit: u64,
    /// Target size of the level L0 compacts into (L1, or the base level with dynamic level
    /// bytes), in bytes. Default 256 MiB. Keep it near the size of L0 at the compaction trigger,
    /// so L0->base compactions are not lopsided. Range 1..=u64::MAX.
    pub max_bytes_for_level_base: u64,
    /// Size ratio between adjacent levels. Default 10. A larger ratio means fewer levels (less
    /// space and read amplification) and more write amplification. Range >1.0, finite.
    pub max_bytes_for_level_multiplier: f64,
    /// Target size of a compaction output file in L1, in bytes. Default 64 MiB. Smaller files give
    /// finer compactions and more files (handles, index and filter memory). Range 1..=u64::MAX.
    pub target_file_size_base: u64,
    /// Factor between target file sizes of adjacent levels. Default 1 (same size everywhere).
    /// Range 1..=u32::MAX.
    pub target_file_size_multiplier: u32,
    /// Size levels from the last level up (each level is the next one's size divided by the
    /// multiplier), so space amplification stays near 1.1 whatever the data size. Default true
    /// (RocksDB >= 8.4). False sizes levels from `max_bytes_for_level_base` down.
    pub level_compaction_dynamic_level_bytes: bool,
    /// Levels of the tree, L0 included. Default 7. Range 1..=64; leveled compaction needs 2.
    pub num_levels: u32,
    /// How compaction shapes the tree. Default `kCompactionStyleLevel`.
    pub compaction_style: CompactionStyle,
    /// Which file leveled compaction picks first. Default `kMinOverlappingRatio`.
    pub compaction_pri: CompactionPri,
    /// Compression of table blocks. Default LZ4 (`kLZ4Compression`). **RocksDB's default is Snappy
    /// when built with it**; CairnDB has Snappy too (`kSnappyCompression`), but keeps LZ4, the
    /// comparable fast codec that decodes faster.
    pub compression: CompressionType,
    /// Compression per level, L0 first; overrides `compression` when not empty. Levels past the end
    /// use the last entry. Default empty. The usual choice: none or LZ4 on upper levels (written
    /// often, read through the cache), Zstd at the bottom (most of the data).
    pub compression_per_level: Vec<CompressionType>,
    /// Bloom filter bits per key of tables written to each level, L0 first; overrides the
    /// table's `filter_policy` bits when not empty. Levels past the end use the last entry; 0
    /// means no filter for that level; each entry is 0 or in 1..=100. A CairnDB option (RocksDB
    /// has one rate for every level). Deeper levels hold more keys, so fewer bits per key there
    /// and more above spend the same memory for fewer false positives (Monkey; the allocation
    /// is `lsm_math::monkey`, docs/design/lsm_math.md). Indexed by absolute level, as CairnDB
    /// indexes `compression_per_level` (RocksDB indexes that one from the base level under
    /// dynamic level bytes). A file keeps the bits it was written with: a level change between
    /// two settings is not a trivial move. Files an ingestion rewrites take L0's entry whatever
    /// level they land on. Default empty.
    pub bloom_bits_per_key_per_level: Vec<f64>,
    /// Spreads the table's `filter_policy` bits per key over the levels as Monkey prescribes
    /// (fewer bits per key on the large deep levels, more above), so that a lookup of an absent
    /// key expects the fewest false positives for the same filter memory
    /// (`compaction::filter_bits` gives the shape it assumes; docs/design/lsm_math.md the
    /// math). A CairnDB option; leveled compaction only; refused together with
    /// `bloom_bits_per_key_per_level` or `optimize_filters_for_hits`, and without filter bits.
    /// A file moves between levels without a rewrite only when both levels get the same bits
    /// (rare: levels past the deepest data). Default false.
    pub optimize_filters: bool,
    /// Compression of the bottommost level, overriding both of the above; `None` is RocksDB's
    /// `kDisableCompressionOption` (do not override). Default `None`.
    pub bottommost_compression: Option<CompressionType>,
    /// The order of the column family's keys (RocksDB's `comparator`). Default bytewise
    /// (`leveldb.BytewiseComparator`); `rocksdb.ReverseBytewiseComparator` orders descending (what
    /// MyRocks's `rev:` column families use); a user [`Comparator`](crate::Comparator) through
    /// [`KeyOrder::custom`]. Recorded in the MANIFEST: reopening with another name is refused.
    /// Option strings accept the two built-in names. Not changeable after creation.
    pub comparator: KeyOrder,
    /// Extracts the key prefix that prefix filters and prefix seeks use. Default `None` (whole-key
    /// filtering only). Built-in: `capped:N`/`fixed:N` in option strings.
    pub prefix_extractor: Option<Arc<dyn PrefixExtractor>>,
    /// Folds merge operands (`Db::merge`) into values on reads, flushes and compactions.
    /// Default none: reading a key that has merge operands is then an `InvalidArgument` error,
    /// never a half-merged value. Not part of option strings (RocksDB's are names of built-in
    /// operators; CairnDB takes the object).
    pub merge_operator: Option<Arc<dyn MergeOperator>>,
    /// Drops or rewrites values during compaction (RocksDB's `compaction_filter`). Default none.
    /// It sees the newest version of each key in a compaction's inputs (whatever snapshots
    /// exist, as RocksDB: a snapshot may lose a value the filter removes), never merge operands,
    /// and never runs on flush. One object serves every job concurrently. Takes precedence over
    /// `compaction_filter_factory`. Not part of option strings (a Rust object).
    pub compaction_filter: Option<Arc<dyn CompactionFilter>>,
    /// Creates a compaction filter per compaction job (RocksDB's `compaction_filter_factory`),
    /// when `compaction_filter` is none. Default none. Not part of option strings.
    pub compaction_filter_factory: Option<Arc<dyn CompactionFilterFactory>>,
    /// User table-properties collectors (RocksDB's `table_properties_collector_factories`):
    /// each factory makes a collector for every table a flush, compaction or ingestion builds,
    /// which sees every entry and adds its own properties to the table (read back with
    /// [`Db::get_properties_of_all_tables_cf`](crate::Db::get_properties_of_all_tables_cf)).
    /// Default none. Not part of option strings (Rust objects).
    pub table_properties_collector_factories:
        Vec<Arc<dyn crate::sstable::TablePropertiesCollectorFactory>>,
    /// Size of the memtable's prefix Bloom filter as a fraction of `write_buffer_size`; 0
    /// disables. Default 0. Lets lookups of absent prefixes skip the memtable search, for that
    /// much extra memory. Needs a `prefix_extractor`. Range 0.0..=0.25.
    pub memtable_prefix_bloom_size_ratio: f64,
    /// Build no filter for the last level, where most keys live, when reads mostly find their key.
    /// Default false. Saves about 90% of filter memory; costs a block read for every lookup of an
    /// absent key that reaches the last level.
    pub optimize_filters_for_hits: bool,
    /// Back memtable arenas with transparent huge pages of this many bytes (a power of two, in
    /// practice 2 MiB); 0 disables. Used only when a memtable is at least 8 huge pages
    /// (`write_buffer_size` >= 16 MiB with 2 MiB pages). Default 0, as RocksDB. Huge pages
    /// cut TLB misses of random inserts into large memtables; where the kernel has no
    /// transparent huge pages the setting has no effect.
    pub memtable_huge_page_size: usize,
    /// Seconds after which data is compacted (leveled: files older than this are compacted down;
    /// FIFO: files older than this are deleted); 0 disables. Default [`TTL_AUTO`]: 30 days with
    /// leveled compaction, 0 otherwise.
    pub ttl: u64,
    /// Seconds after which a file is rewritten by compaction even if nothing else would pick it;
    /// 0 disables. Default [`TTL_AUTO`]: 30 days with universal compaction, with leveled
    /// compaction when a compaction filter is set (as RocksDB), 0 otherwise.
    pub periodic_compaction_seconds: u64,
    /// Most bytes one compaction reads (inputs plus overlapping output files) when the leveled
    /// picker expands it, and the grandparent overlap at which an output file is cut; 0 means
    /// 25 × `target_file_size_base` (RocksDB's default). Larger compactions are more efficient
    /// but hold their files (and write debt) longer.
    pub max_compaction_bytes: u64,
    /// Universal compaction's options (RocksDB's `compaction_options_universal`); used with
    /// `compaction_style = kCompactionStyleUniversal`.
    pub compaction_options_universal: UniversalOptions,
    /// FIFO compaction's options (RocksDB's `compaction_options_fifo`); used with
    /// `compaction_style = kCompactionStyleFIFO`.
    pub compaction_options_fifo: FifoOptions,
    /// Mark a table for compaction when it holds many deletions (RocksDB's
    /// `CompactOnDeletionCollector` table-properties collector). Default `None` (off). Option
    /// string: `compact_on_deletion={window_size=N;deletion_trigger=N;deletion_ratio=F}`.
    pub compact_on_deletion: Option<CompactOnDeletion>,
    /// Run no automatic compactions; only manual ones. Default false. For bulk loads followed by
    /// one manual compaction; writes stall once L0 reaches the stop trigger.
    pub disable_auto_compactions: bool,
    /// Block-based table options (RocksDB's `block_based_table_factory`). Its `compression`,
    /// `prefix_extractor`, `comparator` and `bytes_per_sync` are ignored; see the module
    /// documentation.
    pub table: TableOptions,
}

impl Default for CfOptions {
    fn default() -> Self {
        CfOptions {
            write_buffer_size: 64 << 20,
            max_write_buffer_number: 2,
            min_write_buffer_number_to_merge: 1,
            level0_file_num_compaction_trigger: 4,
            level0_slowdown_writes_trigger: 20,
            level0_stop_writes_trigger: 36,
            soft_pending_compaction_bytes_limit: 64 << 30,
            hard_pending_compaction_bytes_limit: 256 << 30,
            max_bytes_for_level_base: 256 << 20,
            max_bytes_for_level_multiplier: 10.0,
            target_file_size_base: 64 << 20,
            target_file_size_multiplier: 1,
            level_compaction_dynamic_level_bytes: true,
            num_levels: 7,
            compaction_style: CompactionStyle::Level,
            compaction_pri: CompactionPri::MinOverlappingRatio,
            compression: CompressionType::Lz4,
            compression_per_level: Vec::new(),
            bloom_bits_per_key_per_level: Vec::new(),
            optimize_filters: false,
            bottommost_compression: None,
            comparator: KeyOrder::BYTEWISE,
            prefix_extractor: None,
            merge_operator: None,
            compaction_filter: None,
            compaction_filter_factory: None,
            table_properties_collector_factories: Vec::new(),
            memtable_prefix_bloom_size_ratio: 0.0,
            optimize_filters_for_hits: false,
            memtable_huge_page_size: 0,
            ttl: TTL_AUTO,
            periodic_compaction_seconds: TTL_AUTO,
            max_compaction_bytes: 0,
            compaction_options_universal: UniversalOptions::default(),
            compaction_options_fifo: FifoOptions::default(),
            compact_on_deletion: None,
            disable_auto_compactions: false,
            table: TableOptions::default(),
        }
    }
}

impl CfOptions {
    /// RocksDB's `OptimizeLevelStyleCompaction(memtable_memory_budget)`, with its formulas:
    /// memtables of a quarter of the budget, up to six of them, merged two at a time; L0
    /// compaction after two files; the whole budget for level 1 and an eighth of it per file; no
    /// compression in levels 0 and 1, LZ4 below.
    pub fn optimize_level_style_compaction(&mut self, memtable_memory_budget: u64) {
        let write_buffer = memtable_memory_budget / 4;
        self.write_buffer_size = usize::try_from(write_buffer).unwrap_or(usize::MAX);
        self.min_write_buffer_number_to_merge = 2;
        self.max_write_buffer_number = 6;
        self.level0_file_num_compaction_trigger = 2;
        self.target_file_size_base = memtable_memory_budget / 8;
        self.max_bytes_for_level_base = memtable_memory_budget;
        self.compaction_style = CompactionStyle::Level;
        self.compression_per_level = (0..self.num_levels as usize)
            .map(|l| {
                if l < 2 {
                    CompressionType::None
                } else {
                    CompressionType::Lz4
                }
            })
            .collect();
    }

    /// Checks every option against its documented range, and the table options.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first option out of range and the allowed range.
    pub fn validate(&self) -> Result<()> {
        self.validate_memtables()?;
        self.validate_triggers()?;
        self.validate_levels()?;
        check_range(
            "memtable_prefix_bloom_size_ratio",
            self.memtable_prefix_bloom_size_ratio,
            0.0,
            0.25,
        )?;
        let u = &self.compaction_options_universal;
        check_range(
            "compaction_options_universal.min_merge_width",
            u.min_merge_width,
            2,
            u32::MAX,
        )?;
        check_range(
            "compaction_options_universal.max_merge_width",
            u.max_merge_width,
            u.min_merge_width,
            u32::MAX,
        )?;
        if let Some(d) = &self.compact_on_deletion {
            d.validate()?;
        }
        if self.optimize_filters {
            let conflict = if !self.bloom_bits_per_key_per_level.is_empty() {
                Some("bloom_bits_per_key_per_level")
            } else if self.optimize_filters_for_hits {
                Some("optimize_filters_for_hits")
            } else if self.compaction_style != CompactionStyle::Level {
                Some("a compaction style other than kCompactionStyleLevel")
            } else if self.table.bloom_bits_per_key == 0.0 {
                Some("no filter (filter_policy bits per key 0: no memory to spread)")
            } else {
                None
            };
            if let Some(other) = conflict {
                return Err(Error::InvalidArgument(format!(
                    "optimize_filters cannot be combined with {other}"
                )));
            }
        }
        for &bits in &self.bloom_bits_per_key_per_level {
            if !(bits == 0.0 || (1.0..=crate::sstable::MAX_BLOOM_BITS_PER_KEY).contains(&bits)) {
                return Err(Error::InvalidArgument(format!(
                    "bloom_bits_per_key_per_level: {bits} is not 0 or in 1..={}",
                    crate::sstable::MAX_BLOOM_BITS_PER_KEY
                )));
            }
        }
        // Name the table options as RocksDB users write them, keeping the error's kind.
        self.table.validate().map_err(|e| match e {
            Error::InvalidArgument(m) => {
                Error::InvalidArgument(format!("block_based_table_factory: {m}"))
            }
            other => other,
        })
    }

    fn validate_memtables(&self) -> Result<()> {
        check_range(
            "write_buffer_size",
            self.write_buffer_size,
            MIN_WRITE_BUFFER,
            MAX_WRITE_BUFFER,
        )?;
        check_range(
            "max_write_buffer_number",
            self.max_write_buffer_number,
            2,
            256,
        )?;
        check_range(
            "min_write_buffer_number_to_merge",
            self.min_write_buffer_number_to_merge,
            1,
            self.max_write_buffer_number - 1,
        )?;
        let huge = self.memtable_huge_page_size;
        if huge != 0 && (!huge.is_power_of_two() || huge > 1 << 30) {
            return Err(Error::InvalidArgument(format!(
                "memtable_huge_page_size is {huge}; it must be 0 or a power of two up to 1 GiB"
            )));
        }
        Ok(())
    }

    /// The L0 triggers must be ordered, or the slowdown would start after the stop (RocksDB
    /// silently raises the later ones; CairnDB reports the inconsistency).
    fn validate_triggers(&self) -> Result<()> {
        let (start, slow, stop) = (
            self.level0_file_num_compaction_trigger,
            self.level0_slowdown_writes_trigger,
            self.level0_stop_writes_trigger,
        );
        if start == 0 || start > slow || slow > stop {
            return Err(Error::InvalidArgument(format!(
                "options level0_file_num_compaction_trigger ({start}), \
                 level0_slowdown_writes_trigger ({slow}) and level0_stop_writes_trigger ({stop}) \
                 must satisfy 1 <= compaction trigger <= slowdown trigger <= stop trigger"
            )));
        }
        let (soft, hard) = (
            self.soft_pending_compaction_bytes_limit,
            self.hard_pending_compaction_bytes_limit,
        );
        if soft != 0 && hard != 0 && soft > hard {
            return Err(Error::InvalidArgument(format!(
                "option soft_pending_compaction_bytes_limit ({soft}) must not exceed \
                 hard_pending_compaction_bytes_limit ({hard}) unless one of them is 0"
            )));
        }
        Ok(())
    }

    fn validate_levels(&self) -> Result<()> {
        check_range("num_levels", self.num_levels, 1, MAX_NUM_LEVELS)?;
        if self.compaction_style == CompactionStyle::Level && self.num_levels < 2 {
            return Err(out_of_range(
                "num_levels",
                self.num_levels,
                "2..=64 with kCompactionStyleLevel",
            ));
        }
        check_range(
            "max_bytes_for_level_base",
            self.max_bytes_for_level_base,
            1,
            u64::MAX,
        )?;
        let m = self.max_bytes_for_level_multiplier;
        if !(m.is_finite() && m > 1.0) {
            return Err(out_of_range(
                "max_bytes_for_level_multiplier",
                m,
                "finite and > 1.0",
            ));
        }
        check_range(
            "target_file_size_base",
            self.target_file_size_base,
            1,
            u64::MAX,
        )?;
        check_range(
            "target_file_size_multiplier",
            self.target_file_size_multiplier,
            1,
            u32::MAX,
        )
    }

    /// The compression of files written to `level`: `bottommost_compression` for the last level
    /// when set, else `compression_per_level` (the last entry for levels past its end), else
    /// `compression`. With dynamic level bytes, RocksDB indexes `compression_per_level` from the
    /// base level; the caller passes the level index it wants looked up.
    pub fn compression_for_level(&self, level: usize, is_bottommost: bool) -> CompressionType {
        if let (true, Some(c)) = (is_bottommost, self.bottommost_compression) {
            return c;
        }
        match self.compression_per_level.as_slice() {
            [] => self.compression,
            per_level => per_level[level.min(per_level.len() - 1)],
        }
    }

    /// Bloom bits per key of files written to `level`: 0 for the bottommost level with
    /// `optimize_filters_for_hits`, else `bloom_bits_per_key_per_level` (the last entry for
    /// levels past its end), else the table's `filter_policy` bits. With `optimize_filters`
    /// flushes and compactions take theirs from `compaction::filter_bits` instead; this is
    /// then the table's bits, which ingestion and `SstFileWriter` use.
    pub fn bloom_bits_for_level(&self, level: usize, is_bottommost: bool) -> f64 {
        if self.optimize_filters_for_hits && is_bottommost {
            return 0.0;
        }
        match self.bloom_bits_per_key_per_level.as_slice() {
            [] => self.table.bloom_bits_per_key,
            per_level => per_level[level.min(per_level.len() - 1)],
        }
    }

    /// True when tables of different levels may be written differently (per-level compression
    /// or filter bits), so that moving a file between levels may need a rewrite.
    pub fn has_per_level_table_settings(&self) -> bool {
        !self.compression_per_level.is_empty()
            || !self.bloom_bits_per_key_per_level.is_empty()
            || self.optimize_filters
    }

    /// The table options for a file written to `level`: `table` with the compression, prefix
    /// extractor and write-behind filled in from these and `db`'s options, and no filter for the
    /// bottommost level with `optimize_filters_for_hits`.
    pub fn table_options_for_output(
        &self,
        db: &DbOptions,
        level: usize,
        is_bottommost: bool,
    ) -> TableOptions {
        let mut t = self.table.clone();
        t.compression = self.compression_for_level(level, is_bottommost);
        t.prefix_extractor = self.prefix_extractor.clone();
        t.comparator = self.comparator.clone();
        t.properties_collectors = self.table_properties_collector_factories.clone();
        t.level_at_creation = level;
        t.bytes_per_sync = db.bytes_per_sync;
        t.bloom_bits_per_key = self.bloom_bits_for_level(level, is_bottommost);
        t
    }

    /// The table options readers open tables with: `table` with this column family's prefix
    /// extractor (so prefix filters are used when the names match) and comparator.
    pub fn table_options_for_reads(&self) -> TableOptions {
        let mut t = self.table.clone();
        t.prefix_extractor = self.prefix_extractor.clone();
        t.comparator = self.comparator.clone();
        t
    }

    /// `max_compaction_bytes` with 0 resolved to 25 × `target_file_size_base`.
    pub fn effective_max_compaction_bytes(&self) -> u64 {
        match self.max_compaction_bytes {
            0 => self.target_file_size_base.saturating_mul(25),
            n => n,
        }
    }

    /// `ttl` with [`TTL_AUTO`] resolved: 30 days with leveled compaction, else 0 (off).
    pub fn effective_ttl(&self) -> u64 {
        match (self.ttl, self.compaction_style) {
            (TTL_AUTO, CompactionStyle::Level) => THIRTY_DAYS_SECS,
            (TTL_AUTO, _) => 0,
            (ttl, _) => ttl,
        }
    }

    /// `periodic_compaction_seconds` with [`TTL_AUTO`] resolved: 30 days with universal
    /// compaction, and with leveled compaction when a compaction filter (or factory) is set
    /// (so the filter eventually sees every file, as in RocksDB), else 0 (off).
    pub fn effective_periodic_compaction_seconds(&self) -> u64 {
        let filtered = self.compaction_filter.is_some() || self.compaction_filter_factory.is_some();
        match (self.periodic_compaction_seconds, self.compaction_style) {
            (TTL_AUTO, CompactionStyle::Universal) => THIRTY_DAYS_SECS,
            (TTL_AUTO, CompactionStyle::Level) if filtered => THIRTY_DAYS_SECS,
            (TTL_AUTO, _) => 0,
            (secs, _) => secs,
        }
    }
}
