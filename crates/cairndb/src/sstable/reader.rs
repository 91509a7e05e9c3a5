//! The table reader: opens a table file, answers point lookups, feeds iterators and verifies
//! checksums. Spec: `docs/format/sstable.md`.
//!
//! A [`Table`] is immutable after [`Table::open`] and shared between threads (`Arc<Table>`); every
//! method takes `&self`. All block reads go through `Table::block`, the one place where the block
//! cache plugs in; `BlockSource::read_block` is the one place that reads and checks a block.
//! Without a cache the table keeps its index and filter blocks; with one, they live in the cache
//! like data blocks (unpinned between uses) and memory stays within the cache's budget.
//!
//! Invariants:
//! 1. A handle is read only if `offset + size + trailer` lies inside the block area (before the
//!    footer); the buffer is allocated only after that check, so its size is bounded by the file.
//! 2. A block's bytes are used only after its checksum matched and its structure parsed
//!    ([`Block::parse`]); failures are `Corruption` at the block's file offset.
//! 3. The filter is consulted only when it can give no false negative for the lookup: whole keys
//!    when the filter holds whole keys, prefixes only with an extractor of the same name.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::block::{bytewise, Block, BlockCache, BlockIter, BlockKind, BlockRef};
use super::format::{block_checksum, locate, BlockHandle, Footer, BLOCK_TRAILER_LEN, FOOTER_LEN};
use super::properties::TableProperties;
use super::table_iter::TableIterator;
use super::writer::{FILTER_META_KEY, PROPERTIES_META_KEY};
use super::{decompress, PrefixExtractor, TableOptions};
use crate::cache::CacheKey;
use crate::error::{Error, Result};
use crate::fs::RandomAccessFile;
use crate::iter::InternalIterator;
use crate::types::{compare_internal, user_key, CompressionType, ParsedKey, TRAILER_LEN};
use crate::util::coding::decode_fixed32;

/// An entry returned by [`Table::get`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEntry {
    /// The internal key found (same user key as the lookup).
    pub key: Vec<u8>,
    /// Its value.
    pub value: Vec<u8>,
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
    filter_handle: Option<BlockHandle>,
    /// Index and filter blocks held by the table when there is no cache.
    index: Option<BlockRef>,
    filter: Option<BlockRef>,
    /// The reader's extractor, when it matches the one that built the filter.
    prefix_extractor: Option<Arc<dyn PrefixExtractor>>,
}

impl Table {
    /// Opens the table in `file` (named `path` in errors) of `file_size` bytes: reads and checks
    /// the footer, metaindex, properties, index and filter blocks.
    ///
    /// # Errors
    /// [`Error::Corruption`] naming `path` and the offset of the damaged part;
    /// [`Error::NotSupported`] for a newer format version; I/O errors from `file`.
    pub fn open(
        file: Arc<dyn RandomAccessFile>,
        path: &Path,
        file_size: u64,
        options: &TableOptions,
    ) -> Result<Table> {
        let footer = read_footer(&*file, path, file_size)?;
        let src = BlockSource {
            file,
            path: path.to_path_buf(),
            file_size,
            footer,
        };
        let (props_handle, filter_handle) = src.read_metaindex()?;
        let props = src.read_block(props_handle, BlockKind::Properties)?;
        let properties =
            TableProperties::decode(props.into()).map_err(|e| src.at(e, props_handle))?;
        if properties.checksum != footer.checksum {
            return Err(src.corrupt(
                props_handle.offset,
                "properties disagree with the footer's checksum type",
            ));
        }
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
            filter_handle,
            index: None,
            filter: None,
            prefix_extractor,
        };
        // Read index and filter now: damage shows at open, and the first lookup does not pay for
        // them. As in RocksDB, the table holds them for its lifetime unless they are to live in the
        // block cache (`cache_index_and_filter_blocks`), where they compete with data blocks.
        let in_cache = table.cache.is_some() && options.cache_index_and_filter_blocks;
        let index = table.block(footer.index, BlockKind::Index, in_cache)?;
        let filter = filter_handle
            .map(|h| table.block(h, BlockKind::Filter, in_cache))
            .transpose()?;
        if !in_cache {
            table.index = Some(index);
            table.filter = filter;
        }
        Ok(table)
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

    /// An iterator that leaves the block cache as it is on misses (for compaction inputs and
    /// one-off scans that should not evict hot blocks).
    pub fn iter_without_cache_fill(self: &Arc<Self>) -> TableIterator {
        TableIterator::new(Arc::clone(self), false)
    }

    /// The first entry `>= ikey` if it has `ikey`'s user key. Consults the filter first.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `ikey` is shorter than an internal-key trailer;
    /// [`Error::Corruption`] or I/O errors from the blocks read.
    pub fn get(&self, ikey: &[u8]) -> Result<Option<TableEntry>> {
        if ikey.len() < TRAILER_LEN {
            return Err(Error::InvalidArgument(
                "lookup key is not an internal key".into(),
            ));
        }
        let ukey = user_key(ikey);
        if !self.may_contain(ukey)? {
            return Ok(None);
        }
        let mut index = self.index_iter()?;
        index.seek(ikey);
        while index.valid() {
            let handle = self.data_handle(index.value())?;
            let mut data = self.data_iter(handle, true)?;
            data.seek(ikey);
            if data.valid() {
                let found = ParsedKey::parse(data.key()).map_err(|e| self.at(e, handle))?;
                return Ok((found.user_key == ukey).then(|| TableEntry {
                    key: data.key().to_vec(),
                    value: data.value().to_vec(),
                }));
            }
            data.status().map_err(|e| self.at(e, handle))?;
            // The separator can sort after the last key of its block; continue in the next one.
            index.next();
        }
        index
            .status()
            .map_err(|e| self.src.at(e, self.src.footer.index))?;
        Ok(None)
    }

    /// False only when the table certainly holds no entry with `user_key`.
    ///
    /// # Errors
    /// Errors reading the filter block.
    pub fn may_contain(&self, user_key: &[u8]) -> Result<bool> {
        let Some(block) = self.filter_block()? else {
            return Ok(true);
        };
        let Some(f) = block.filter() else {
            return Ok(true);
        };
        if f.has_whole_keys() {
            return Ok(f.may_contain(user_key));
        }
        match (&self.prefix_extractor, f.has_prefixes()) {
            (Some(x), true) => Ok(x.prefix(user_key).is_none_or(|p| f.may_contain(p))),
            _ => Ok(true),
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
        let Some(block) = self.filter_block()? else {
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
        let mut index = self.index_iter()?;
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
        let mut index = self.index_iter()?;
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
    /// properties, filter, index and every data block with all its entries, and checks that the
    /// blocks and footer tile the file without gaps.
    ///
    /// # Errors
    /// The first [`Error::Corruption`] found (with the file path and the damaged block's offset),
    /// or an I/O error.
    pub fn verify_checksums(&self) -> Result<()> {
        let src = &self.src;
        read_footer(&*src.file, &src.path, src.file_size)?;
        let mut regions = vec![src.footer.metaindex, src.footer.index];
        let (props, filter) = src.read_metaindex()?;
        src.read_block(props, BlockKind::Properties)?;
        regions.push(props);
        if let Some(h) = filter {
            src.read_block(h, BlockKind::Filter)?;
            regions.push(h);
        }
        let index: BlockRef = src.read_block(src.footer.index, BlockKind::Index)?.into();
        let mut it =
            BlockIter::new(index, compare_internal).map_err(|e| src.at(e, src.footer.index))?;
        it.seek_to_first();
        while it.valid() {
            let h = self.data_handle(it.value())?;
            src.verify_data_block(h)?;
            regions.push(h);
            it.next();
        }
        it.status().map_err(|e| src.at(e, src.footer.index))?;
        src.check_tiling(regions)
    }

    /// A block, through the block cache when one is configured: the one entry point for block
    /// reads. A miss reads the file and, if `fill_cache`, inserts the block.
    pub(crate) fn block(
        &self,
        handle: BlockHandle,
        kind: BlockKind,
        fill_cache: bool,
    ) -> Result<BlockRef> {
        let Some((cache, file_id)) = &self.cache else {
            return Ok(self.src.read_block(handle, kind)?.into());
        };
        let key = CacheKey {
            file_id: *file_id,
            offset: handle.offset,
        };
        if let Some(h) = cache.lookup(&key) {
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
        let block = self.src.read_block(handle, kind)?;
        if !fill_cache {
            return Ok(block.into());
        }
        let charge = block.charge();
        match cache.insert(key, block, charge) {
            Ok(h) => Ok(BlockRef::Cached(h)),
            // A strict capacity limit refused the block (and dropped it): serve it uncached.
            Err(_) => Ok(self.src.read_block(handle, kind)?.into()),
        }
    }

    pub(crate) fn index_block(&self) -> Result<BlockRef> {
        match &self.index {
            Some(b) => Ok(b.clone()),
            None => self.block(self.src.footer.index, BlockKind::Index, true),
        }
    }

    fn filter_block(&self) -> Result<Option<BlockRef>> {
        match (&self.filter, self.filter_handle) {
            (Some(b), _) => Ok(Some(b.clone())),
            (None, Some(h)) if self.cache.is_some() => {
                self.block(h, BlockKind::Filter, true).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// An unpositioned iterator over the index block.
    pub(crate) fn index_iter(&self) -> Result<BlockIter> {
        BlockIter::new(self.index_block()?, compare_internal)
            .map_err(|e| self.src.at(e, self.src.footer.index))
    }

    /// An unpositioned iterator over the data block at `handle`.
    pub(crate) fn data_iter(&self, handle: BlockHandle, fill_cache: bool) -> Result<BlockIter> {
        let block = self.block(handle, BlockKind::Data, fill_cache)?;
        BlockIter::new(block, compare_internal).map_err(|e| self.src.at(e, handle))
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

    /// Reads `handle` from the file, verifies its checksum, decompresses and parses it.
    fn read_block(&self, handle: BlockHandle, kind: BlockKind) -> Result<Block> {
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
        let stored = decode_fixed32(&buf[size + 1..]);
        let actual = block_checksum(self.footer.checksum, &buf[..=size], handle.offset);
        if stored != actual {
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

    /// Reads the metaindex; returns the properties handle and the filter handle if any.
    fn read_metaindex(&self) -> Result<(BlockHandle, Option<BlockHandle>)> {
        let h = self.footer.metaindex;
        let block: BlockRef = self.read_block(h, BlockKind::Metaindex)?.into();
        let mut it = BlockIter::new(block, bytewise).map_err(|e| self.at(e, h))?;
        let (mut props, mut filter) = (None, None);
        it.seek_to_first();
        while it.valid() {
            let slot = match it.key() {
                PROPERTIES_META_KEY => Some(&mut props),
                FILTER_META_KEY => Some(&mut filter),
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
        let props =
            props.ok_or_else(|| self.corrupt(h.offset, "metaindex names no properties block"))?;
        Ok((props, filter))
    }

    fn verify_data_block(&self, h: BlockHandle) -> Result<()> {
        let block: BlockRef = self.read_block(h, BlockKind::Data)?.into();
        let mut it = BlockIter::new(block, compare_internal).map_err(|e| self.at(e, h))?;
        it.seek_to_first();
        while it.valid() {
            ParsedKey::parse(it.key()).map_err(|e| self.at(e, h))?;
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
