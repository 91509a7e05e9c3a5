//! The table builder: turns a sorted stream of internal keys and values into a table file.
//! Spec: `docs/format/sstable.md`.
//!
//! Used by one flush or compaction job on one thread. It owns the file while building; the caller
//! names the file, and after [`TableBuilder::finish`] (which syncs it) records it in the MANIFEST.
//! On any error the builder refuses further calls and the caller deletes the partial file.
//!
//! Invariants:
//! 1. Keys are added in strictly increasing internal-key order; a violation is a bug in the caller
//!    and panics before anything of it is written.
//! 2. The index entry of data block `i` is a separator `s` with `last(i) <= s < first(i + 1)`
//!    (the short successor of the last key for the final block), written only once the next key is
//!    known.
//! 3. The file is written front to back in large appends (at least [`WRITE_CHUNK_BYTES`] except the
//!    last), and write-behind is started every `bytes_per_sync` bytes.
//! 4. Blocks follow each other without gaps, ending with the metaindex block and the footer.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::block_builder::BlockBuilder;
use super::compress::Compressor;
use super::filter::{FilterBuilder, FILTER_POLICY_NAME};
use super::format::{
    block_checksum, BlockHandle, Footer, BLOCK_TRAILER_LEN, FOOTER_LEN, FORMAT_VERSION,
};
use super::properties::TableProperties;
use super::separator::{is_valid_separator, short_successor, shortest_separator};
use super::TableOptions;
use crate::error::{Error, Result};
use crate::fs::WritableFile;
use crate::types::{compare_internal, CompressionType, ParsedKey, ValueKind};
use crate::util::checksum::ChecksumType;
use crate::util::coding::put_fixed32;

/// Framed blocks are collected and appended to the file in requests of at least this size.
pub const WRITE_CHUNK_BYTES: usize = 256 << 10;

/// The largest internal key plus value accepted in one entry, so that block offsets stay 32-bit.
pub const MAX_ENTRY_BYTES: usize = 1 << 30;

/// The index block may not outgrow this (32-bit offsets, with a wide margin).
const MAX_INDEX_BYTES: usize = 2 << 30;

/// Metaindex name of the filter block.
pub(crate) const FILTER_META_KEY: &[u8] = b"filter.cairndb.CacheLocalBloom";
/// Metaindex name of the properties block.
pub(crate) const PROPERTIES_META_KEY: &[u8] = b"rocksdb.properties";

/// What [`TableBuilder::finish`] returns.
#[derive(Debug, Clone)]
pub struct BuiltTable {
    /// The properties written into the table.
    pub properties: TableProperties,
    /// The file's final size in bytes.
    pub file_size: u64,
}

/// Frames blocks and writes them out in large requests.
#[derive(Debug)]
struct Sink {
    file: Box<dyn WritableFile>,
    path: PathBuf,
    checksum: ChecksumType,
    compressor: Compressor,
    /// Compression output, reused between blocks.
    scratch: Vec<u8>,
    /// Framed bytes not yet appended to the file.
    out: Vec<u8>,
    /// File offset of the next block (bytes appended plus bytes in `out`).
    offset: u64,
    /// Write-behind has been requested for `[0, behind)`.
    behind: u64,
    bytes_per_sync: u64,
    failed: bool,
}

impl Sink {
    /// Frames `raw` (compressed if asked and worth it) and queues it; returns its handle.
    fn write_block(&mut self, raw: &[u8], compress: bool) -> Result<BlockHandle> {
        let kind = if compress {
            self.compressor.compress(raw, &mut self.scratch)
        } else {
            CompressionType::None
        };
        let stored = if kind == CompressionType::None {
            raw
        } else {
            &self.scratch[..]
        };
        let handle = BlockHandle {
            offset: self.offset,
            size: stored.len() as u64,
        };
        let start = self.out.len();
        self.out.extend_from_slice(stored);
        self.out.push(kind as u8);
        let sum = block_checksum(self.checksum, &self.out[start..], handle.offset);
        put_fixed32(&mut self.out, sum);
        self.offset += (stored.len() + BLOCK_TRAILER_LEN) as u64;
        if self.out.len() >= WRITE_CHUNK_BYTES {
            self.drain()?;
        }
        Ok(handle)
    }

    /// Appends the queued bytes to the file and starts write-behind when due.
    fn drain(&mut self) -> Result<()> {
        if self.out.is_empty() {
            return Ok(());
        }
        let r = self.file.append(&self.out);
        self.check(r)?;
        self.out.clear();
        if self.bytes_per_sync > 0 && self.offset - self.behind >= self.bytes_per_sync {
            let r = self.file.flush();
            self.check(r)?;
            let r = self
                .file
                .write_behind(self.behind, self.offset - self.behind);
            self.check(r)?;
            self.behind = self.offset;
        }
        Ok(())
    }

    /// Marks the sink failed on error: a file with a missing piece must not be finished.
    fn check<T>(&mut self, r: Result<T>) -> Result<T> {
        if r.is_err() {
            self.failed = true;
        }
        r
    }
}

/// Builds one table file. See the module contract.
#[derive(Debug)]
pub struct TableBuilder {
    sink: Sink,
    opts: TableOptions,
    data_block: BlockBuilder,
    index_block: BlockBuilder,
    filter: Option<FilterBuilder>,
    /// The last key added (valid when `props.num_entries > 0`).
    last_key: Vec<u8>,
    /// Handle of the last data block, waiting for the next key to choose its separator.
    pending_index: Option<BlockHandle>,
    props: TableProperties,
}

impl TableBuilder {
    /// A builder writing to `file` (new and empty), named `path` in errors.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `options` do not validate or `file` is not empty.
    pub fn new(
        file: Box<dyn WritableFile>,
        path: &Path,
        options: &TableOptions,
    ) -> Result<TableBuilder> {
        options.validate()?;
        if !file.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "table file {} is not empty",
                path.display()
            )));
        }
        let filter = options.has_filter().then(|| {
            FilterBuilder::new(
                options.bloom_bits_per_key,
                options.whole_key_filtering,
                options.prefix_extractor.clone(),
            )
        });
        Ok(TableBuilder {
            sink: Sink {
                file,
                path: path.to_path_buf(),
                checksum: options.checksum,
                compressor: Compressor::new(options.compression, options.zstd_level),
                scratch: Vec::new(),
                out: Vec::with_capacity(
                    WRITE_CHUNK_BYTES + options.block_size.min(WRITE_CHUNK_BYTES),
                ),
                offset: 0,
                behind: 0,
                bytes_per_sync: options.bytes_per_sync,
                failed: false,
            },
            opts: options.clone(),
            data_block: BlockBuilder::new(options.block_restart_interval),
            index_block: BlockBuilder::new(options.index_block_restart_interval),
            filter,
            last_key: Vec::new(),
            pending_index: None,
            props: TableProperties::default(),
        })
    }

    /// Adds an entry. `ikey` must be a valid internal key greater than every key added before.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a malformed internal key (short, or an unknown or seek kind)
    /// or an entry over [`MAX_ENTRY_BYTES`]; an I/O error from the file; an error if an earlier call
    /// failed. Nothing of a rejected entry is added.
    ///
    /// # Panics
    /// If `ikey` is not strictly greater than the previous key (a bug in the caller).
    pub fn add(&mut self, ikey: &[u8], value: &[u8]) -> Result<()> {
        self.check_usable()?;
        let parsed = ParsedKey::parse(ikey)
            .map_err(|_| Error::InvalidArgument(format!("not an internal key: {ikey:02x?}")))?;
        assert!(
            self.props.num_entries == 0 || compare_internal(&self.last_key, ikey) == Ordering::Less,
            "TableBuilder::add: keys must be strictly increasing; {:02x?} after {:02x?}",
            ikey,
            self.last_key
        );
        if ikey.len() + value.len() > MAX_ENTRY_BYTES {
            return Err(Error::InvalidArgument(format!(
                "entry of {} bytes is over the limit of {MAX_ENTRY_BYTES}",
                ikey.len() + value.len()
            )));
        }
        if let Some(handle) = self.pending_index.take() {
            let sep = shortest_separator(&self.last_key, ikey);
            debug_assert!(is_valid_separator(&self.last_key, &sep, Some(ikey)));
            self.add_index_entry(&sep, handle)?;
        }
        if let Some(f) = &mut self.filter {
            f.add_user_key(parsed.user_key);
        }
        self.count(&parsed, ikey.len(), value.len());
        self.data_block.add(ikey, value);
        self.last_key.clear();
        self.last_key.extend_from_slice(ikey);
        if self.data_block.size_estimate() >= self.opts.block_size {
            self.flush_data_block()?;
        }
        Ok(())
    }

    /// Entries added so far.
    pub fn num_entries(&self) -> u64 {
        self.props.num_entries
    }

    /// The file size if the table were finished now, not counting index, filter and footer.
    /// Compaction uses it to cut output files.
    pub fn estimated_file_size(&self) -> u64 {
        self.sink.offset + self.data_block.size_estimate() as u64
    }

    /// Writes the last data block, the filter, index, properties, metaindex and footer, and syncs
    /// the file. Returns the properties and the final size.
    ///
    /// # Errors
    /// An I/O error from the file (the file is then incomplete and must be deleted), or an error if
    /// an earlier call failed.
    pub fn finish(mut self) -> Result<BuiltTable> {
        self.check_usable()?;
        self.flush_data_block()?;
        if let Some(handle) = self.pending_index.take() {
            let succ = short_successor(&self.last_key);
            debug_assert!(is_valid_separator(&self.last_key, &succ, None));
            self.add_index_entry(&succ, handle)?;
        }
        let filter = self.write_filter()?;
        let index = self.sink.write_block(self.index_block.finish(), true)?;
        self.props.index_bytes = index.size + BLOCK_TRAILER_LEN as u64;
        self.fill_option_properties();
        let properties = self.sink.write_block(&self.props.encode(), false)?;
        let mut meta = BlockBuilder::new(1);
        if let Some(h) = filter {
            meta.add(FILTER_META_KEY, &h.encode());
        }
        meta.add(PROPERTIES_META_KEY, &properties.encode());
        let metaindex = self.sink.write_block(meta.finish(), false)?;
        let footer = Footer {
            metaindex,
            index,
            checksum: self.opts.checksum,
            format_version: FORMAT_VERSION,
        };
        self.sink.out.extend_from_slice(&footer.encode());
        self.sink.offset += FOOTER_LEN as u64;
        self.sink.drain()?;
        let r = self.sink.file.sync_data();
        self.sink.check(r)?;
        Ok(BuiltTable {
            properties: self.props,
            file_size: self.sink.offset,
        })
    }

    fn check_usable(&self) -> Result<()> {
        if self.sink.failed {
            return Err(Error::InvalidArgument(format!(
                "table builder for {} failed earlier; the file must be discarded",
                self.sink.path.display()
            )));
        }
        Ok(())
    }

    fn count(&mut self, k: &ParsedKey<'_>, key_len: usize, value_len: usize) {
        let p = &mut self.props;
        if p.num_entries == 0 {
            p.smallest_seqno = k.seq;
            p.largest_seqno = k.seq;
        }
        p.smallest_seqno = p.smallest_seqno.min(k.seq);
        p.largest_seqno = p.largest_seqno.max(k.seq);
        p.num_entries += 1;
        p.raw_key_bytes += key_len as u64;
        p.raw_value_bytes += value_len as u64;
        match k.kind {
            ValueKind::Delete | ValueKind::SingleDelete => p.num_deletions += 1,
            ValueKind::RangeDelete => {
                p.num_deletions += 1;
                p.num_range_deletions += 1;
            }
            ValueKind::Merge => p.num_merge_operands += 1,
            ValueKind::Put => {}
        }
    }

    fn flush_data_block(&mut self) -> Result<()> {
        if self.data_block.is_empty() {
            return Ok(());
        }
        let handle = self.sink.write_block(self.data_block.finish(), true)?;
        self.data_block.reset();
        self.props.num_data_blocks += 1;
        self.props.data_bytes += handle.size + BLOCK_TRAILER_LEN as u64;
        self.pending_index = Some(handle);
        Ok(())
    }

    fn add_index_entry(&mut self, separator: &[u8], handle: BlockHandle) -> Result<()> {
        if self.index_block.size_estimate() > MAX_INDEX_BYTES {
            self.sink.failed = true;
            return Err(Error::InvalidArgument(
                "table too large: index block over 2 GiB".into(),
            ));
        }
        self.index_block.add(separator, &handle.encode());
        Ok(())
    }

    fn write_filter(&mut self) -> Result<Option<BlockHandle>> {
        let Some(block) = self.filter.as_mut().and_then(FilterBuilder::finish) else {
            return Ok(None);
        };
        let h = self.sink.write_block(&block, false)?;
        self.props.filter_bytes = h.size + BLOCK_TRAILER_LEN as u64;
        self.props.filter_policy = FILTER_POLICY_NAME.to_string();
        self.props.bloom_bits_per_key = self.opts.bloom_bits_per_key;
        self.props.whole_key_filtering = self.opts.whole_key_filtering;
        Ok(Some(h))
    }

    fn fill_option_properties(&mut self) {
        let (p, o) = (&mut self.props, &self.opts);
        p.compression = o.compression;
        p.checksum = o.checksum;
        p.prefix_extractor = o
            .prefix_extractor
            .as_ref()
            .map(|x| x.name().to_string())
            .unwrap_or_default();
        p.block_size = o.block_size as u64;
        p.block_restart_interval = o.block_restart_interval as u64;
        p.index_restart_interval = o.index_block_restart_interval as u64;
        p.format_version = u64::from(FORMAT_VERSION);
        p.creation_time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
    }
}
