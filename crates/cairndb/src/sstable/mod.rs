//! The block-based table (SST file): an immutable, sorted run of internal keys and values.
//! Byte-level specification: `docs/format/sstable.md`.
//!
//! A flush or compaction builds a table with one [`TableBuilder`] on its own thread; readers open it
//! once as a [`Table`] and share it (`Arc<Table>`) between threads, each with its own
//! [`TableIterator`], or look keys up with [`Table::get_pinned`] and [`Table::multi_get`]. Blocks
//! are read through one function of the reader, which consults the optional [`BlockCache`].
//!
//! Point entries live in the data blocks; range tombstones live apart in the range-deletion block
//! ([`Table::range_deletions`]), so they neither widen the data blocks' key range nor show up in
//! point iteration.
//!
//! Layout (offsets grow downwards):
//! ```text
//! data block 0 | data block 1 | ... | filter block? | index block | range-deletion block?
//! | properties block | metaindex block | footer (57 bytes, ends with the magic "CAIRNSST")
//! ```
//!
//! Invariants:
//! 1. Every block is followed by a trailer (compression type, checksum over contents and type, mixed
//!    with the block's offset); the footer has its own checksum. Blocks and footer tile the file
//!    without gaps, so every byte of a table is covered by a checksum (or is the magic number).
//! 2. Entries are stored in strictly increasing internal-key order; the builder asserts it.
//! 3. The reader never panics, hangs or allocates without bound on any file: every handle is
//!    checked against the file size before a read, every length before an allocation, and damage
//!    is reported as [`Error::Corruption`](crate::Error::Corruption) naming the file and the offset
//!    of the damaged block. Bytes that failed a check are never returned as data.

mod block;
mod block_builder;
mod collector;
mod compress;
mod filter;
mod format;
mod get;
mod prefix;
mod properties;
mod range_del;
mod readahead;
mod reader;
mod separator;
mod table_iter;
mod writer;

use std::fmt;
use std::sync::Arc;

pub use block::{Block, BlockCache, BlockIter, BlockKind, BlockRef};
pub use block_builder::BlockBuilder;
pub use collector::{
    CollectorContext, EntryType, TablePropertiesCollector, TablePropertiesCollectorFactory,
};
pub use compress::{decompress, worth_compressing, Compressor, MAX_UNCOMPRESSED_BLOCK_BYTES};
pub use filter::{
    choose_num_probes, filter_hash, standard_bloom_fpr, theoretical_fpr, FilterBuilder, FilterMeta,
    FilterView, FILTER_POLICY_NAME, LINE_BITS as FILTER_LINE_BITS,
};
pub use format::{
    block_checksum, offset_modifier, BlockHandle, Footer, BLOCK_TRAILER_LEN, FOOTER_LEN,
    FORMAT_VERSION, MAGIC, MIN_FORMAT_VERSION,
};
pub use get::{TableEntry, TableGet};
pub use prefix::{CappedPrefix, FixedPrefix, PrefixExtractor};
pub use properties::TableProperties;
pub use readahead::ReadaheadFile;
pub use reader::{BlockReadOptions, Table};
pub use separator::{short_successor, shortest_separator};
pub use table_iter::TableIterator;
pub use writer::{BuiltTable, KeyRange, TableBuilder, MAX_ENTRY_BYTES};

use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::types::CompressionType;
use crate::util::checksum::ChecksumType;

/// Largest accepted `block_size`.
pub const MAX_BLOCK_SIZE: usize = 256 << 20;
/// Largest accepted restart interval.
pub const MAX_RESTART_INTERVAL: usize = 1 << 16;
/// Largest accepted `bloom_bits_per_key`.
pub const MAX_BLOOM_BITS_PER_KEY: f64 = 100.0;

/// How tables are built and read. RocksDB's `BlockBasedTableOptions` under the same names.
#[derive(Clone)]
pub struct TableOptions {
    /// Target uncompressed size of a data block, in bytes. Default 4096 (4 KiB). A block is cut
    /// after the entry that reaches this size, so blocks are slightly larger. Larger blocks compress
    /// better and shrink the index, but a point lookup reads and decompresses more bytes.
    /// Range 1..=256 MiB.
    pub block_size: usize,
    /// Entries between restart points in data blocks. Default 16. Larger intervals save space
    /// (more keys prefix-compressed, fewer 4-byte restart offsets) but make lookups and backward
    /// steps decode more entries. Range 1..=65536.
    pub block_restart_interval: usize,
    /// Entries between restart points in the index block. Default 1 (every separator whole, so the
    /// binary search lands exactly). Larger values shrink the index at some lookup cost.
    pub index_block_restart_interval: usize,
    /// Bloom filter bits per key. Default 10.0 (about 1% false positives); 0 disables the filter.
    /// Each bit per key costs memory and cache space per key and roughly halves the false-positive
    /// rate every 1.44 bits. Range 0 or 1.0..=100.0; fractions allowed.
    pub bloom_bits_per_key: f64,
    /// Add whole user keys to the filter. Default true. Turn off when all reads are prefix seeks
    /// (with a `prefix_extractor`) to halve the filter size.
    pub whole_key_filtering: bool,
    /// Also add key prefixes to the filter, for prefix seeks. Default `None`. The reader uses the
    /// prefix part only with an extractor of the same name as the one that built the table.
    pub prefix_extractor: Option<Arc<dyn PrefixExtractor>>,
    /// Compression of data and index blocks. Default LZ4 (fast; about 2x on typical data). Zstd
    /// compresses better for more CPU. A block that compression shrinks by less than 12.5% is
    /// stored uncompressed.
    pub compression: CompressionType,
    /// Zstd compression level. Default 3. Higher levels trade build CPU for smaller files;
    /// decompression speed barely changes. Range: what the zstd library accepts (-131072..=22).
    pub zstd_level: i32,
    /// The checksum of every block and of the footer. Default XXH3 (fastest on long blocks);
    /// CRC32C for hardware-assisted compatibility with older tools.
    pub checksum: ChecksumType,
    /// Start background write-back (write-behind) of the file every this many bytes, so that the
    /// final sync has little left to write and the OS does not build up a burst of dirty pages.
    /// Default 1 MiB; 0 disables. Smaller values smooth I/O at the cost of more system calls.
    pub bytes_per_sync: u64,
    /// The block cache readers put data blocks (and, with `cache_index_and_filter_blocks`, index
    /// and filter blocks) in. Default `None`: data blocks are read from the file on every access
    /// (relying on the OS page cache).
    pub block_cache: Option<Arc<BlockCache>>,
    /// RocksDB's `cache_index_and_filter_blocks`. Default false: each open table holds its index
    /// and filter blocks in memory for its lifetime (fastest lookups; memory grows with the number
    /// of open tables, outside the cache's budget). True: they live in the block cache, so memory
    /// stays within its capacity, at the cost of re-reading them after eviction. Needs a cache.
    pub cache_index_and_filter_blocks: bool,
    /// The order of the table's keys (the column family's `comparator`). Default bytewise. The
    /// name is recorded in the table's properties (`rocksdb.comparator`) and a reader with
    /// another comparator refuses the table.
    pub comparator: KeyOrder,
    /// User table-properties collectors, one created per table built (the column family's
    /// `table_properties_collector_factories`). Default none.
    pub properties_collectors: Vec<Arc<dyn TablePropertiesCollectorFactory>>,
    /// The level a built table goes to, told to the collectors. Default 0.
    pub level_at_creation: usize,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            block_size: 4096,
            block_restart_interval: 16,
            index_block_restart_interval: 1,
            bloom_bits_per_key: 10.0,
            whole_key_filtering: true,
            prefix_extractor: None,
            compression: CompressionType::Lz4,
            zstd_level: 3,
            checksum: ChecksumType::Xxh3,
            bytes_per_sync: 1 << 20,
            block_cache: None,
            cache_index_and_filter_blocks: false,
            comparator: KeyOrder::BYTEWISE,
            properties_collectors: Vec::new(),
            level_at_creation: 0,
        }
    }
}

impl fmt::Debug for TableOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableOptions")
            .field("block_size", &self.block_size)
            .field("block_restart_interval", &self.block_restart_interval)
            .field(
                "index_block_restart_interval",
                &self.index_block_restart_interval,
            )
            .field("bloom_bits_per_key", &self.bloom_bits_per_key)
            .field("whole_key_filtering", &self.whole_key_filtering)
            .field(
                "prefix_extractor",
                &self.prefix_extractor.as_ref().map(|p| p.name().to_string()),
            )
            .field("compression", &self.compression)
            .field("zstd_level", &self.zstd_level)
            .field("checksum", &self.checksum)
            .field("bytes_per_sync", &self.bytes_per_sync)
            .field(
                "block_cache",
                &self.block_cache.as_ref().map(|c| c.capacity()),
            )
            .field(
                "cache_index_and_filter_blocks",
                &self.cache_index_and_filter_blocks,
            )
            .field("comparator", &self.comparator)
            .field("properties_collectors", &self.properties_collectors)
            .field("level_at_creation", &self.level_at_creation)
            .finish()
    }
}

impl TableOptions {
    /// Checks every field against its documented range.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        let bad = |what: String| Err(Error::InvalidArgument(what));
        if !(1..=MAX_BLOCK_SIZE).contains(&self.block_size) {
            return bad(format!(
                "block_size {} is not in 1..={MAX_BLOCK_SIZE}",
                self.block_size
            ));
        }
        for (name, v) in [
            ("block_restart_interval", self.block_restart_interval),
            (
                "index_block_restart_interval",
                self.index_block_restart_interval,
            ),
        ] {
            if !(1..=MAX_RESTART_INTERVAL).contains(&v) {
                return bad(format!("{name} {v} is not in 1..={MAX_RESTART_INTERVAL}"));
            }
        }
        let bpk = self.bloom_bits_per_key;
        if !(bpk == 0.0 || (1.0..=MAX_BLOOM_BITS_PER_KEY).contains(&bpk)) {
            return bad(format!(
                "bloom_bits_per_key {bpk} is not 0 or in 1..={MAX_BLOOM_BITS_PER_KEY}"
            ));
        }
        if !zstd::compression_level_range().contains(&self.zstd_level) {
            return bad(format!("zstd_level {} is out of range", self.zstd_level));
        }
        Ok(())
    }

    /// True when tables built with these options get a filter.
    pub fn has_filter(&self) -> bool {
        self.bloom_bits_per_key > 0.0
            && (self.whole_key_filtering || self.prefix_extractor.is_some())
    }
}

#[cfg(test)]
mod tests;
