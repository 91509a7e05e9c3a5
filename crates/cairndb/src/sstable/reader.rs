//! The table reader: opens a table file, answers point lookups, feeds iterators and verifies
//! checksums. Spec: `docs/format/sstable.md`.
//!
//! A [`Table`] is immutable after [`Table::open`] and shared between threads (`Arc<Table>`); every
//! method takes `&self`. All block reads go through `Table::block`, the one place where the block
//! cache plugs in; `BlockSource::read_block` is the one place that reads and checks a block.
//! Without a cache the table keeps its index and filter blocks; with one, they live in the cache
//! like data blocks (unpinned between uses) and memory stays within the cache's budget. The range
//! tombstones are decoded at open and always kept by the table (every point read needs them), as
//! RocksDB keeps its fragmented tombstone list. Point lookups are in `get.rs`.
//!
//! Invariants:
//! 1. A handle is read only if `offset + size + trailer` lies inside the block area (before the
//!    footer); the buffer is allocated only after that check, so its size is bounded by the file.
//! 2. A block's bytes are used only after its checksum matched and its structure parsed
//!    ([`Block::parse`]); failures are `Corruption` at the block's file offset.
//! 3. The filter is consulted only when it can give no false negative for the lookup: whole keys
//!    when the filter holds whole keys, prefixes only with an extractor of the same name. It
//!    covers point keys only; range tombstones are never filtered.
//! 4. No entry of kind `RangeDelete` is returned from a data block: one found there is corruption
//!    (format version 2 keeps tombstones in the range-deletion block only).
//! 5. A block read with `verify_checksums = false` ([`BlockReadOptions`]) skips only the checksum
//!    comparison: its compression type, decompressed length and structure are still checked, so
//!    damage there is `Corruption` and never a panic, while damage inside keys or values that
//!    leaves the structure valid is returned as data (RocksDB's `ReadOptions::verify_checksums`
//!    has the same meaning). Such a block is never inserted into the block cache, so bytes that
//!    were not verified are never served to a later read that asked for verification (RocksDB
//!    would cache it; CairnDB keeps the cache verified). Blocks read while opening a table (footer,
//!    metaindex, properties, index, filter, range deletions) are always verified.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::block::{Block, BlockCache, BlockIter, BlockKind, BlockRef};
use super::format::{block_checksum, locate, BlockHandle, Footer, BLOCK_TRAILER_LEN, FOOTER_LEN};
use super::properties::TableProperties;
use super::range_del;
use super::table_iter::TableIterator;
use super::writer::{FILTER_META_KEY, PROPERTIES_META_KEY, RANGE_DEL_META_KEY};
use super::{decompress, PrefixExtractor, TableOptions};
use crate::cache::CacheKey;
use crate::comparator::{EntryOrder, KeyOrder, BYTEWISE_NAME};
use crate::error::{Error, Result};
use crate::fs::RandomAccessFile;
use crate::iter::InternalIterator;
use crate::perf_context::{self, PerfMetric};
use crate::types::{CompressionType, ParsedKey, RangeTombstone, ValueKind};
use crate::util::coding::decode_fixed32;

/// How one read uses the block cache and checks the blocks it reads from the file: RocksDB's
/// `ReadOptions::fill_cache` and `ReadOptions::verify_checksums`, per call. See module invariant 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockReadOptions {
    /// Insert blocks read on a cache miss into the block cache. Default true.
    pub fill_cache: bool,
    /// Compare each block read from the file with its stored checksum. Default true.
    pub verify_checksums: bool,
}

impl Default for BlockReadOptions {
    fn default() -> Self {
        BlockReadOptions {
            fill_cache: true,
            verify_checksums: true,
        }
    }
}

impl From<&crate::options::ReadOptions> for BlockReadOptions {
    fn from(o: &crate::options::ReadOptions) -> Self {
        BlockReadOptions {
            fill_cache: o.fill_cache,
            verify_checksums: o.verify_checksums,
        }
    }
}

impl BlockReadOptions {
    /// Verified reads that leave the cache as it is on misses (compaction inputs, one-off scans).
    pub const NO_FILL: BlockReadOptions = BlockReadOptions {
        fill_cache: false,
        verify_checksums: true,
    };
}

/// The meta blocks named in the metaindex.
#[derive(Debug, Clone, Copy)]
struct MetaHandles {
    properties: BlockHandle,
    filter: Option<BlockHandle>,
    range_del: Option<BlockHandle>,
}

/// Reads and checks blocks of one file; everything a block read needs.
#[derive(Debug)]
struct BlockSource {
    file: Arc<dyn RandomAccessFile>,
    path: PathBuf,
    file_size: u64,
    footer: Footer,
}

/// An open table file. See the module contract.
#[derive(Debug)]
pub struct Table {
    src: BlockSource,
    properties: TableProperties,
    /// The block cache and this table's file id in it.
    cache: Option<(Arc<BlockCache>, u64)>,
    /// Opt-in statistics counting block cache hits and misses (`Table::set_statistics`).
    statistics: Option<Arc<crate::statistics::Statistics>>,
    filter_handle: Option<BlockHandle>,
    /// Index and filter blocks held by the table when there is no cache.
    index: Option<BlockRef>,
    filter: Option<BlockRef>,
    /// The reader's extractor, when it matches the one that built the filter.
    prefix_extractor: Option<Arc<dyn PrefixExtractor>>,
    /// The range tombstones, in stored order, decoded at open.
    range_deletions: Arc<[RangeTombstone]>,
    /// The order of the table's keys (checked against the properties at open).
    order: KeyOrder,
    /// Where this table's memory is counted while it lives (`Table::count_memory_in`).
    memory: Option<MemoryAccount>,
}

/// Bytes an open table holds, added to a shared total when it opens and taken back when it is
/// dropped (the last `Arc` gone, evicted or not): RocksDB's `estimate-table-readers-mem`.
#[derive(Debug)]
struct MemoryAccount {
    total: Arc<AtomicUsize>,
    bytes: usize,
}

impl Drop for MemoryAccount {
    fn drop(&mut self) {
        self.total.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

impl Table {
    /// Opens the table in `file` (named `path` in errors) of `file_size` bytes: reads and checks
    /// the footer, metaindex, properties, index, filter and range-deletion blocks.
    ///
    /// # Errors
    /// [`Error::Corruption`] naming `path` and the offset of the damaged part;
    /// [`Error::NotSupported`] for a format version this build does not read;
    /// [`Error::InvalidArgument`] when the table was written with another comparator than
    /// `options.comparator`; I/O errors from `file`.
    pub fn open(
        file: Arc<dyn RandomAccessFile>,
        path: &Path,
        file_size: u64,
        options: &TableOptions,
    ) -> Result<Table> {
        Table::open_in(file, path, file_size, options, false)
    }

    /// [`Table::open`] in the order the table was written in, when that is a built-in
    /// comparator (whatever `options.comparator` says): for tools that read any table.
    ///
    /// # Errors
    /// As [`Table::open`]; [`Error::InvalidArgument`] when the table was written with a user
    /// comparator (open it with [`Table::open`] and that comparator).
    pub fn open_recorded(
        file: Arc<dyn RandomAccessFile>,
        path: &Path,
        file_size: u64,
        options: &TableOptions,
    ) -> Result<Table> {
        Table::open_in(file, path, file_size, options, true)
    }

    fn open_in(
        file: Arc<dyn RandomAccessFile>,
        path: &Path,
        file_size: u64,
        options: &TableOptions,
        adopt_recorded: bool,
    ) -> Result<Table> {
        let footer = read_footer(&*file, path, file_size)?;
        let src = BlockSource {
            file,
            path: path.to_path_buf(),
            file_size,
            footer,
        };
        let meta = src.read_metaindex()?;
        let props_handle = meta.properties;
        let props = src.read_block(props_handle, BlockKind::Properties, true)?;
        let properties =
            TableProperties::decode(props.into()).map_err(|e| src.at(e, props_handle))?;
        if properties.checksum != footer.checksum {
            return Err(src.corrupt(
                props_handle.offset,
                "properties disagree with the footer's checksum type",
            ));
        }
        // Tables written before the comparator was recorded are all bytewise.
        let written_with = match properties.comparator.as_str() {
            "" => BYTEWISE_NAME,
            name => name,
        };
        let order = if written_with == options.comparator.name() {
            options.comparator.clone()
        } else if adopt_recorded {
            KeyOrder::from_name(written_with)
                .map_err(|e| Error::InvalidArgument(format!("{}: {e}", path.display())))?
        } else {
            return Err(Error::InvalidArgument(format!(
                "{}: the table was written with comparator {written_with:?}, not {:?}",
                path.display(),
                options.comparator.name()
            )));
        };
        let range_deletions = src
            .read_range_deletions(meta.range_del, &properties, &order)?
            .into();
        let prefix_extractor = options.prefix_extractor.clone().filter(|x| {
            !properties.prefix_extractor.is_empty() && x.name() == properties.prefix_extractor
        });
        let cache = options
            .block_cache
            .as_ref()
            .map(|c| (Arc::clone(c), c.new_file_id()));
        let mut table = Table {
            src,
            properties,
            cache,
            statistics: None,
            filter_handle: meta.filter,
            index: None,
            filter: None,
            prefix_extractor,
            range_deletions,
            order,
            memory: None,
        };
        // Read index and filter now: damage shows at open, and the first lookup does not pay for
        // them. As in RocksDB, the table holds them for its lifetime unless they are to live in the
        // block cache (`cache_index_and_filter_blocks`), where they compete with data blocks.
        let in_cache = table.cache.is_some() && options.cache_index_and_filter_blocks;
        let ro = BlockReadOptions {
            fill_cache: in_cache,
            verify_checksums: true,
        };
        let index = table.block(footer.index, BlockKind::Index, ro)?;
        let filter = meta
            .filter
            .map(|h| table.block(h, BlockKind::Filter, ro))
            .transpose()?;
        if !in_cache {
            table.index = Some(index);
            table.filter = filter;
        }
        Ok(table)
    }

    /// The order of the table's keys.
    pub fn order(&self) -> &KeyOrder {
        &self.order
    }

    /// How the table's data and index blocks order their keys.
    fn block_order(&self) -> EntryOrder {
        EntryOrder::Internal(self.order.clone())
    }

    /// The table's properties.
    pub fn properties(&self) -> &TableProperties {
        &self.properties
    }

    /// The file's path as given to [`Table::open`].
    pub fn path(&self) -> &Path {
        &self.src.path
    }

    /// The file's size in bytes.
    pub fn file_size(&self) -> u64 {
        self.src.file_size
    }

    /// The footer read at open.
    pub fn footer(&self) -> &Footer {
        &self.src.footer
    }

    /// An iterator over all entries, filling the block cache as it reads.
    pub fn iter(self: &Arc<Self>) -> TableIterator {
        TableIterator::new(Arc::clone(self), true)
    }

    /// An iterator reading blocks as `ro` says (cache fill, checksum verification).
    pub fn iter_with(self: &Arc<Self>, ro: BlockReadOptions) -> TableIterator {
        TableIterator::with_read_options(Arc::clone(self), ro)
    }

    /// An iterator that leaves the block cache as it is on misses (for compaction inputs and
    /// one-off scans that should not evict hot blocks).
    pub fn iter_without_cache_fill(self: &Arc<Self>) -> TableIterator {
        TableIterator::new(Arc::clone(self), false)
    }

    /// The table's range tombstones, sorted by their stored keys `(begin, seq, RangeDelete)` in
    /// internal-key order (begin ascending, newest first); they may overlap. Decoded once at open
    /// and kept for the table's lifetime. Empty for a table without range deletions.
    ///
    /// Point lookups ([`Table::get_pinned`], [`Table::multi_get`]) and iterators do not apply
    /// them: the caller checks whether a tombstone of this or any newer table covers what they
    /// return.
    pub fn range_deletions(&self) -> &Arc<[RangeTombstone]> {
        &self.range_deletions
    }

    /// False only when the table certainly holds no point entry with `user_key`. Says nothing
    /// about range tombstones.
    ///
    /// # Errors
    /// Errors reading the filter block.
    pub fn may_contain(&self, user_key: &[u8]) -> Result<bool> {
        self.may_contain_with(user_key, BlockReadOptions::default())
    }

    /// [`Table::may_contain`], reading the filter block (when it lives in the cache) as `ro` says.
    ///
    /// # Errors
    /// Errors reading the filter block.
    pub fn may_contain_with(&self, user_key: &[u8], ro: BlockReadOptions) -> Result<bool> {
        Ok(self.filter_allows(self.filter_block(ro)?.as_ref(), user_key))
    }

    /// [`Table::may_contain`] with the filter block already at hand (`None`: no filter).
    pub(crate) fn filter_allows(&self, block: Option<&BlockRef>, user_key: &[u8]) -> bool {
        let Some(f) = block.and_then(|b| b.filter()) else {
            return true;
        };
        if f.has_whole_keys() {
            return f.may_contain(user_key);
        }
        match (&self.prefix_extractor, f.has_prefixes()) {
            (Some(x), true) => x.prefix(user_key).is_none_or(|p| f.may_contain(p)),
            _ => true,
        }
    }

    /// False only when the table certainly holds no user key starting with `prefix`. Requires a
    /// prefix extractor matching the table's and `prefix` in its domain; otherwise answers true.
    ///
    /// # Errors
    /// Errors reading the filter block.
    pub fn prefix_may_match(&self, prefix: &[u8]) -> Result<bool> {
        let Some(x) = &self.prefix_extractor else {
            return Ok(true);
        };
        if x.prefix(prefix) != Some(prefix) {
            return Ok(true);
        }
        let Some(block) = self.filter_block(BlockReadOptions::default())? else {
            return Ok(true);
        };
        Ok(block
            .filter()
            .is_none_or(|f| !f.has_prefixes() || f.may_contain(prefix)))
    }

    /// The approximate file offset where entries `>= ikey` start (the offset of their data block,
    /// or the end of the data when `ikey` is past the last key).
    ///
    /// # Errors
    /// Errors reading the index block.
    pub fn approximate_offset_of(&self, ikey: &[u8]) -> Result<u64> {
        let mut index = self.index_iter(BlockReadOptions::default())?;
        index.seek(ikey);
        if index.valid() {
            return Ok(self.data_handle(index.value())?.offset);
        }
        index
            .status()
            .map_err(|e| self.src.at(e, self.src.footer.index))?;
        Ok(self.properties.data_bytes)
    }

    /// The index: for each data block, its separator key and handle, in order. For tools.
    ///
    /// # Errors
    /// Errors reading or decoding the index block.
    pub fn index_entries(&self) -> Result<Vec<(Vec<u8>, BlockHandle)>> {
        let mut index = self.index_iter(BlockReadOptions::default())?;
        let mut out = Vec::new();
        index.seek_to_first();
        while index.valid() {
            out.push((index.key().to_vec(), self.data_handle(index.value())?));
            index.next();
        }
        index
            .status()
            .map_err(|e| self.src.at(e, self.src.footer.index))?;
        Ok(out)
    }

    /// Reads and checks every block from the file (bypassing any cache): footer, metaindex,
    /// properties, filter, index, range-deletion and every data block with all its entries, and
    /// checks that the blocks and footer tile the file without gaps.
    ///
    /// # Errors
    /// The first [`Error::Corruption`] found (with the file path and the damaged block's offset),
    /// or an I/O error.
    pub fn verify_checksums(&self) -> Result<()> {
        let src = &self.src;
        read_footer(&*src.file, &src.path, src.file_size)?;
        let mut regions = vec![src.footer.metaindex, src.footer.index];
        let meta = src.read_metaindex()?;
        src.read_block(meta.properties, BlockKind::Properties, true)?;
        regions.push(meta.properties);
        if let Some(h) = meta.filter {
            src.read_block(h, BlockKind::Filter, true)?;
            regions.push(h);
        }
        src.read_range_deletions(meta.range_del, &self.properties, &self.order)?;
        regions.extend(meta.range_del);
        let index: BlockRef = src
            .read_block(src.footer.index, BlockKind::Index, true)?
            .into();
        let mut it =
            BlockIter::new(index, self.block_order()).map_err(|e| src.at(e, src.footer.index))?;
        it.seek_to_first();
        while it.valid() {
            let h = self.data_handle(it.value())?;
            src.verify_data_block(h, &self.order)?;
            regions.push(h);
            it.next();
        }
        it.status().map_err(|e| src.at(e, src.footer.index))?;
        src.check_tiling(regions)
    }

    /// A block, through the block cache when one is configured: the one entry point for block
    /// reads. A miss reads the file (checking the checksum if `ro.verify_checksums`) and inserts
    /// the block if `ro.fill_cache` and it was verified (module invariant 5). A hit needs no
    /// check: only verified blocks enter the cache.
    pub(crate) fn block(
        &self,
        handle: BlockHandle,
        kind: BlockKind,
        ro: BlockReadOptions,
    ) -> Result<BlockRef> {
        let verify = ro.verify_checksums;
        let Some((cache, file_id)) = &self.cache else {
            return Ok(self.src.read_block(handle, kind, verify)?.into());
        };
        let key = CacheKey {
            file_id: *file_id,
            offset: handle.offset,
        };
        let found = cache.lookup(&key);
        if let Some(s) = &self.statistics {
            crate::statistics::record_block_cache(s, kind, found.is_some());
        }
        if found.is_some() {
            perf_context::add(PerfMetric::BlockCacheHitCount, 1);
        }
        if let Some(h) = found {
            if h.kind() != kind {
                let msg = format!(
                    "{} handle points at a cached {}",
                    kind.name(),
                    h.kind().name()
                );
                return Err(self.src.corrupt(handle.offset, msg));
            }
            return Ok(BlockRef::Cached(h));
        }
        let block = self.src.read_block(handle, kind, verify)?;
        if !(ro.fill_cache && verify) {
            return Ok(block.into());
        }
        let charge = block.charge();
        match cache.insert(key, block, charge) {
            Ok(h) => Ok(BlockRef::Cached(h)),
            // A strict capacity limit refused the block (and dropped it): serve it uncached.
            Err(_) => Ok(self.src.read_block(handle, kind, verify)?.into()),
        }
    }

    /// Bytes of memory the open table holds outside the block cache: its index and filter
    /// blocks when they are not in the cache, its range tombstones and properties, and itself.
    pub fn memory_usage(&self) -> usize {
        let held = |b: &Option<BlockRef>| b.as_ref().map_or(0, |b| b.charge());
        let tombstones: usize = self
            .range_deletions
            .iter()
            .map(|t| t.begin.len() + t.end.len() + std::mem::size_of::<RangeTombstone>())
            .sum();
        let properties: usize = self
            .properties
            .user_properties
            .iter()
            .map(|(k, v)| k.len() + v.len())
            .sum();
        std::mem::size_of::<Table>()
            + held(&self.index)
            + held(&self.filter)
            + tombstones
            + properties
    }

    /// Adds this table's [`memory_usage`](Self::memory_usage) to `total`, and takes it back
    /// when the table is dropped.
    pub(crate) fn count_memory_in(&mut self, total: Arc<AtomicUsize>) {
        let bytes = self.memory_usage();
        total.fetch_add(bytes, Ordering::Relaxed);
        self.memory = Some(MemoryAccount { total, bytes });
    }

    /// Counts this table's block cache hits and misses in `statistics` from now on.
    pub(crate) fn set_statistics(
        &mut self,
        statistics: Option<Arc<crate::statistics::Statistics>>,
    ) {
        self.statistics = statistics;
    }

    /// The index block: the table's own copy, or through the cache as `ro` says.
    pub(crate) fn index_block(&self, ro: BlockReadOptions) -> Result<BlockRef> {
        match &self.index {
            Some(b) => Ok(b.clone()),
            None => self.block(self.src.footer.index, BlockKind::Index, ro),
        }
    }

    /// The filter block, if the table has one: the table's own copy, or through the cache as
    /// `ro` says.
    pub(crate) fn filter_block(&self, ro: BlockReadOptions) -> Result<Option<BlockRef>> {
        match (&self.filter, self.filter_handle) {
            (Some(b), _) => Ok(Some(b.clone())),
            (None, Some(h)) if self.cache.is_some() => {
                self.block(h, BlockKind::Filter, ro).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// An unpositioned iterator over the index block.
    pub(crate) fn index_iter(&self, ro: BlockReadOptions) -> Result<BlockIter> {
        BlockIter::new(self.index_block(ro)?, self.block_order())
            .map_err(|e| self.src.at(e, self.src.footer.index))
    }

    /// An unpositioned iterator over the data block at `handle`.
    pub(crate) fn data_iter(&self, handle: BlockHandle, ro: BlockReadOptions) -> Result<BlockIter> {
        let block = self.block(handle, BlockKind::Data, ro)?;
        BlockIter::new(block, self.block_order()).map_err(|e| self.src.at(e, handle))
    }

    /// Decodes an index entry's value.
    pub(crate) fn data_handle(&self, value: &[u8]) -> Result<BlockHandle> {
        BlockHandle::decode_exact(value).ok_or_else(|| {
            self.src.corrupt(
                self.src.footer.index.offset,
                "malformed block handle in the index",
            )
        })
    }

    /// Locates an anonymous corruption from inside the block at `h`.
    pub(crate) fn at(&self, e: Error, h: BlockHandle) -> Error {
        self.src.at(e, h)
    }

    /// The handle of the index block.
    pub(crate) fn index_handle(&self) -> BlockHandle {
        self.src.footer.index
    }
}

impl BlockSource {
    /// Where the block area ends and the footer starts.
    fn blocks_end(&self) -> u64 {
        self.file_size - FOOTER_LEN as u64
    }

    /// Reads `handle` from the file, verifies its checksum (when `verify`), decompresses and
    /// parses it. Without `verify` every other check still applies (module invariant 5).
    fn read_block(&self, handle: BlockHandle, kind: BlockKind, verify: bool) -> Result<Block> {
        let fits = handle
            .end_with_trailer()
            .is_some_and(|end| end <= self.blocks_end());
        let size = usize::try_from(handle.size)
            .ok()
            .filter(|_| fits)
            .ok_or_else(|| {
                let msg = format!(
                    "{} handle (size {}) runs past the blocks",
                    kind.name(),
                    handle.size
                );
                self.corrupt(handle.offset, msg)
            })?;
        let mut buf = vec![0; size + BLOCK_TRAILER_LEN];
        self.file.read_exact_at(handle.offset, &mut buf)?;
        perf_context::add(PerfMetric::BlockReadCount, 1);
        perf_context::add(PerfMetric::BlockReadByte, buf.len() as u64);
        let stored = decode_fixed32(&buf[size + 1..]);
        let actual = if verify {
            block_checksum(self.footer.checksum, &buf[..=size], handle.offset)
        } else {
            stored
        };
        if verify && stored != actual {
            return Err(Error::checksum_mismatch(
                &self.path,
                handle.offset,
                kind.name(),
                stored,
                actual,
            ));
        }
        let Some(compression) = CompressionType::from_u8(buf[size]) else {
            let msg = format!("{}: unknown compression type {}", kind.name(), buf[size]);
            return Err(self.corrupt(handle.offset, msg));
        };
        let contents = if compression == CompressionType::None {
            buf.truncate(size);
            buf
        } else {
            decompress(compression, &buf[..size]).map_err(|e| self.at(e, handle))?
        };
        Block::parse(contents, kind).map_err(|e| self.at(e, handle))
    }

    /// Reads the metaindex: the properties handle (required), filter and range-deletion handles.
    fn read_metaindex(&self) -> Result<MetaHandles> {
        let h = self.footer.metaindex;
        let block: BlockRef = self.read_block(h, BlockKind::Metaindex, true)?.into();
        let mut it = BlockIter::new(block, EntryOrder::Bytewise).map_err(|e| self.at(e, h))?;
        let (mut props, mut filter, mut range_del) = (None, None, None);
        it.seek_to_first();
        while it.valid() {
            let slot = match it.key() {
                PROPERTIES_META_KEY => Some(&mut props),
                FILTER_META_KEY => Some(&mut filter),
                RANGE_DEL_META_KEY => Some(&mut range_del),
                // A meta block of a newer writer that this build does not use.
                _ => None,
            };
            if let Some(slot) = slot {
                let handle = BlockHandle::decode_exact(it.value());
                *slot =
                    Some(handle.ok_or_else(|| {
                        self.corrupt(h.offset, "malformed handle in the metaindex")
                    })?);
            }
            it.next();
        }
        it.status().map_err(|e| self.at(e, h))?;
        let properties =
            props.ok_or_else(|| self.corrupt(h.offset, "metaindex names no properties block"))?;
        Ok(MetaHandles {
            properties,
            filter,
            range_del,
        })
    }

    /// Reads and decodes the range-deletion block at `handle`, which must exist exactly when the
    /// properties count range deletions, and hold that many.
    fn read_range_deletions(
        &self,
        handle: Option<BlockHandle>,
        props: &TableProperties,
        order: &KeyOrder,
    ) -> Result<Vec<RangeTombstone>> {
        let Some(h) = handle else {
            if props.num_range_deletions > 0 {
                let msg = format!(
                    "properties count {} range deletions but the metaindex names no \
                     range-deletion block",
                    props.num_range_deletions
                );
                return Err(self.corrupt(self.footer.metaindex.offset, msg));
            }
            return Ok(Vec::new());
        };
        let block = self.read_block(h, BlockKind::RangeDeletion, true)?;
        let tombstones = range_del::decode(block.into(), order).map_err(|e| self.at(e, h))?;
        if tombstones.len() as u64 != props.num_range_deletions || tombstones.is_empty() {
            let msg = format!(
                "range-deletion block holds {} tombstones, properties count {}",
                tombstones.len(),
                props.num_range_deletions
            );
            return Err(self.corrupt(h.offset, msg));
        }
        Ok(tombstones)
    }

    fn verify_data_block(&self, h: BlockHandle, order: &KeyOrder) -> Result<()> {
        let block: BlockRef = self.read_block(h, BlockKind::Data, true)?.into();
        let mut it = BlockIter::new(block, EntryOrder::Internal(order.clone()))
            .map_err(|e| self.at(e, h))?;
        it.seek_to_first();
        while it.valid() {
            parse_data_key(it.key()).map_err(|e| self.at(e, h))?;
            it.next();
        }
        it.status().map_err(|e| self.at(e, h))
    }

    /// Checks that the blocks cover `[0, footer)` exactly once, so no byte escapes the checksums.
    fn check_tiling(&self, mut regions: Vec<BlockHandle>) -> Result<()> {
        regions.sort_by_key(|h| h.offset);
        let mut expected = 0;
        for h in &regions {
            if h.offset != expected {
                return Err(self.corrupt(
                    expected,
                    "bytes not covered by any block (or blocks overlap)",
                ));
            }
            expected = h.end_with_trailer().unwrap_or(u64::MAX);
        }
        if expected != self.blocks_end() {
            return Err(self.corrupt(expected, "bytes between the last block and the footer"));
        }
        Ok(())
    }

    fn at(&self, e: Error, h: BlockHandle) -> Error {
        locate(e, &self.path, h.offset)
    }

    fn corrupt(&self, offset: u64, msg: impl Into<String>) -> Error {
        Error::corruption(&self.path, offset, msg)
    }
}

/// Reads and decodes the footer of a file of `file_size` bytes.
fn read_footer(file: &dyn RandomAccessFile, path: &Path, file_size: u64) -> Result<Footer> {
    let Some(at) = file_size.checked_sub(FOOTER_LEN as u64) else {
        return Err(Error::corruption(
            path,
            0,
            format!("file of {file_size} bytes is too short for a table"),
        ));
    };
    let mut buf = [0u8; FOOTER_LEN];
    file.read_exact_at(at, &mut buf)?;
    Footer::decode(&buf, path, at)
}

/// Parses the internal key of a data-block entry (module invariant 4).
///
/// # Errors
/// [`Error::Corruption`] (anonymous) for a malformed key or a `RangeDelete` entry.
pub(crate) fn parse_data_key(ikey: &[u8]) -> Result<ParsedKey<'_>> {
    let p = ParsedKey::parse(ikey)?;
    if p.kind == ValueKind::RangeDelete {
        return Err(Error::corruption("", 0, "range deletion in a data block"));
    }
    Ok(p)
}
