//! Table options: the block-based table format's options (`BlockBasedOptions`), block caches
//! (`Cache`) and the refused cuckoo table's (`CuckooTableOptions`). Setters map to CairnDB's
//! or are refused, as in `db_options/`.

use std::fmt;
use std::sync::Arc;

use cairndb::sstable::BlockCache;

/// Data block index types.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum DataBlockIndexType {
    /// Binary search over restart points (CairnDB's).
    BinarySearch = 0,
    /// Binary search plus a hash index: refused.
    BinaryAndHash = 1,
}

/// Index block types.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum BlockBasedIndexType {
    /// A binary-searched index (CairnDB's).
    BinarySearch,
    /// A hash index: refused.
    HashSearch,
    /// A partitioned index: refused.
    TwoLevelIndexSearch,
}

/// Block checksum types.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum ChecksumType {
    /// None: refused.
    NoChecksum = 0,
    /// CRC32C.
    CRC32c = 1,
    /// xxHash32: refused.
    XXHash = 2,
    /// xxHash64: refused.
    XXHash64 = 3,
    /// XXH3 (CairnDB's default).
    XXH3 = 4,
}

/// Which index and filter blocks stay pinned in the block cache.
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum BlockBasedTablePinningTier {
    /// RocksDB's older flags decide.
    Fallback,
    /// Nothing pinned.
    None,
    /// Blocks of files from flushes and similar small files.
    FlushAndSimilar,
    /// Everything.
    All,
}

/// The table format's options (RocksDB's `BlockBasedTableOptions`).
#[derive(Debug, Clone, Default)]
pub struct BlockBasedOptions {
    pub(crate) table: cairndb::sstable::TableOptions,
    pub(crate) refused: Vec<String>,
}

impl BlockBasedOptions {
    fn refuse(&mut self, setter: impl fmt::Display, why: &str) {
        self.refused
            .push(format!("BlockBasedOptions::{setter}: {why}"));
    }

    /// The size of a data block.
    pub fn set_block_size(&mut self, size: usize) {
        self.table.block_size = size;
    }

    /// The block cache (shared by every table of the families given these options).
    pub fn set_block_cache(&mut self, cache: &Cache) {
        self.table.block_cache = Some(Arc::clone(&cache.inner));
    }

    /// A Bloom filter of `bits_per_key`. `block_based` (the pre-2019 format) is refused.
    pub fn set_bloom_filter(&mut self, bits_per_key: f64, block_based: bool) {
        if block_based {
            self.refuse(
                "set_bloom_filter(_, true)",
                "the block-based filter format is obsolete; CairnDB writes full filters",
            );
        }
        self.table.bloom_bits_per_key = bits_per_key;
    }

    /// Index and filter blocks go through the block cache.
    pub fn set_cache_index_and_filter_blocks(&mut self, v: bool) {
        self.table.cache_index_and_filter_blocks = v;
    }

    /// Keys between restart points in data blocks.
    pub fn set_block_restart_interval(&mut self, interval: i32) {
        match usize::try_from(interval) {
            Ok(n) if n > 0 => self.table.block_restart_interval = n,
            _ => self.refuse(
                format!("set_block_restart_interval({interval})"),
                "must be positive",
            ),
        }
    }

    /// Keys between restart points in index blocks.
    pub fn set_index_block_restart_interval(&mut self, interval: i32) {
        match usize::try_from(interval) {
            Ok(n) if n > 0 => self.table.index_block_restart_interval = n,
            _ => self.refuse(
                format!("set_index_block_restart_interval({interval})"),
                "must be positive",
            ),
        }
    }

    /// Whole keys go into the filter (not only prefixes).
    pub fn set_whole_key_filtering(&mut self, v: bool) {
        self.table.whole_key_filtering = v;
    }

    /// The block checksum: CRC32C or XXH3; the others are refused.
    pub fn set_checksum_type(&mut self, checksum_type: ChecksumType) {
        use cairndb::util::checksum::ChecksumType as C;
        match checksum_type {
            ChecksumType::CRC32c => self.table.checksum = C::Crc32c,
            ChecksumType::XXH3 => self.table.checksum = C::Xxh3,
            other => self.refuse(
                format!("set_checksum_type({other:?})"),
                "CairnDB writes CRC32C or XXH3 checksums",
            ),
        }
    }

    /// The data block index: binary search (CairnDB's); the hash index is refused.
    pub fn set_data_block_index_type(&mut self, index_type: DataBlockIndexType) {
        if index_type != DataBlockIndexType::BinarySearch {
            self.refuse(
                format!("set_data_block_index_type({index_type:?})"),
                "CairnDB's data blocks have a binary-searched index only",
            );
        }
    }

    /// The index type: binary search (CairnDB's); the others are refused.
    pub fn set_index_type(&mut self, index_type: BlockBasedIndexType) {
        if index_type != BlockBasedIndexType::BinarySearch {
            self.refuse(
                format!("set_index_type({index_type:?})"),
                "CairnDB's tables have a single binary-searched index",
            );
        }
    }
}

/// A block cache (shared between databases and families that are given it).
#[derive(Debug, Clone)]
pub struct Cache {
    pub(crate) inner: Arc<BlockCache>,
}

impl Cache {
    /// An LRU cache of `capacity` bytes.
    pub fn new_lru_cache(capacity: usize) -> Cache {
        Cache::new_lru_cache_opts(&LruCacheOptions {
            capacity,
            num_shard_bits: None,
        })
    }

    /// An LRU cache with options.
    pub fn new_lru_cache_opts(opts: &LruCacheOptions) -> Cache {
        let mut o = cairndb::cache::CacheOptions::with_capacity(opts.capacity);
        o.policy = cairndb::cache::CachePolicy::Lru;
        o.shard_bits = opts.num_shard_bits;
        Cache {
            inner: Arc::new(BlockCache::new(o)),
        }
    }

    /// A clock cache (CairnDB's default policy; the entry charge estimate is not needed).
    pub fn new_hyper_clock_cache(capacity: usize, _estimated_entry_charge: usize) -> Cache {
        Cache {
            inner: Arc::new(BlockCache::new(
                cairndb::cache::CacheOptions::with_capacity(capacity),
            )),
        }
    }

    /// Bytes in the cache.
    pub fn get_usage(&self) -> usize {
        self.inner.usage()
    }

    /// Bytes of pinned entries.
    pub fn get_pinned_usage(&self) -> usize {
        self.inner.pinned_usage()
    }
}

/// Options of [`Cache::new_lru_cache_opts`].
#[derive(Debug, Clone, Default)]
pub struct LruCacheOptions {
    capacity: usize,
    num_shard_bits: Option<u8>,
}

impl LruCacheOptions {
    /// The capacity in bytes.
    pub fn set_capacity(&mut self, cap: usize) {
        self.capacity = cap;
    }

    /// Shards: 2^val (negative: chosen from the capacity).
    pub fn set_num_shard_bits(&mut self, val: i32) {
        self.num_shard_bits = u8::try_from(val).ok();
    }
}

/// Options of the cuckoo table format, which CairnDB does not provide: a family given them
/// (with `Options::set_cuckoo_table_factory`) fails to open.
#[derive(Debug, Clone, Default)]
pub struct CuckooTableOptions {
    _private: (),
}

/// The setters exist so that programs compile; the factory itself is refused.
impl CuckooTableOptions {
    /// Part of a refused table format.
    pub fn set_hash_ratio(&mut self, _ratio: f64) {}
    /// Part of a refused table format.
    pub fn set_max_search_depth(&mut self, _depth: u32) {}
    /// Part of a refused table format.
    pub fn set_cuckoo_block_size(&mut self, _size: u32) {}
    /// Part of a refused table format.
    pub fn set_identity_as_first_hash(&mut self, _flag: bool) {}
    /// Part of a refused table format.
    pub fn set_use_module_hash(&mut self, _flag: bool) {}
}

impl BlockBasedOptions {
    /// `Fallback` and `None` (nothing pinned: CairnDB's cache pins no blocks beyond those in
    /// use) are honoured; `FlushAndSimilar` and `All` are refused.
    fn pinning(&mut self, setter: &str, tier: BlockBasedTablePinningTier) {
        if matches!(
            tier,
            BlockBasedTablePinningTier::FlushAndSimilar | BlockBasedTablePinningTier::All
        ) {
            self.refuse(
                format!("{setter}({tier:?})"),
                "CairnDB does not pin index or filter blocks in the cache",
            );
        }
    }

    /// See [`BlockBasedTablePinningTier`].
    pub fn set_top_level_index_pinning_tier(&mut self, tier: BlockBasedTablePinningTier) {
        self.pinning("set_top_level_index_pinning_tier", tier);
    }

    /// See [`BlockBasedTablePinningTier`].
    pub fn set_partition_pinning_tier(&mut self, tier: BlockBasedTablePinningTier) {
        self.pinning("set_partition_pinning_tier", tier);
    }

    /// See [`BlockBasedTablePinningTier`].
    pub fn set_unpartitioned_pinning_tier(&mut self, tier: BlockBasedTablePinningTier) {
        self.pinning("set_unpartitioned_pinning_tier", tier);
    }

    /// Refused when true: CairnDB does not pin index or filter blocks in the cache.
    pub fn set_pin_l0_filter_and_index_blocks_in_cache(&mut self, v: bool) {
        if v {
            self.refuse(
                "set_pin_l0_filter_and_index_blocks_in_cache(true)",
                "CairnDB does not pin index or filter blocks in the cache",
            );
        }
    }

    /// Accepted with no effect: CairnDB writes its own table format (docs/format/sstable.md),
    /// which has one version; RocksDB's format versions do not apply to it.
    pub fn set_format_version(&mut self, _version: i32) {}

    /// The hash index's load factor, used only with `DataBlockIndexType::BinaryAndHash`, which
    /// is refused (as in RocksDB, where it does nothing without the hash index).
    pub fn set_data_block_hash_ratio(&mut self, _ratio: f64) {}

    /// Accepted with no effect: CairnDB's block cache has no priority pools, so index and
    /// filter blocks have the priority of every other block either way.
    pub fn set_cache_index_and_filter_blocks_with_high_priority(&mut self, _v: bool) {}
}
