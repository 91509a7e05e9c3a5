//! The table builder: turns a sorted stream of internal keys and values, and a set of range
//! tombstones, into a table file.
//! Spec: `docs/format/sstable.md`.
//!
//! Used by one flush or compaction job on one thread. It owns the file while building; the caller
//! names the file, and after [`TableBuilder::finish`] (which syncs it) records it in the MANIFEST
//! with the key range [`BuiltTable`] reports. On any error the builder refuses further calls and
//! the caller deletes the partial file.
//!
//! Point entries ([`TableBuilder::add`]) go to the data blocks; range tombstones
//! ([`TableBuilder::add_range_deletion`]) arrive in any order, are buffered and written sorted into
//! the range-deletion block at the end. A table may hold either kind or both.
//!
//! Invariants:
//! 1. Point keys are added in strictly increasing internal-key order; a violation is a bug in the
//!    caller and panics before anything of it is written. No data block holds a `RangeDelete`
//!    entry.
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
use super::collector::{CollectorContext, EntryType, TablePropertiesCollector};
use super::compress::Compressor;
use super::filter::{FilterBuilder, FILTER_POLICY_NAME};
use super::format::{
    block_checksum, BlockHandle, Footer, BLOCK_TRAILER_LEN, FOOTER_LEN, FORMAT_VERSION,
};
use super::properties::TableProperties;
use super::range_del::{self, RangeDelCollector};
use super::separator::{is_valid_separator, short_successor, shortest_separator};
use super::TableOptions;
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::fs::WritableFile;
use crate::types::{
    CompressionType, ParsedKey, RangeTombstone, SequenceNumber, ValueKind, TRAILER_LEN,
};
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
/// Metaindex name of the range-deletion block (RocksDB's `kRangeDelBlockName`).
pub(crate) const RANGE_DEL_META_KEY: &[u8] = b"rocksdb.range_del";

/// The smallest and largest internal key of a set of keys (equal for a single key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRange {
    /// The smallest internal key.
    pub smallest: Vec<u8>,
    /// The largest internal key.
    pub largest: Vec<u8>,
}

/// What [`TableBuilder::finish`] returns.
///
/// The key range a version records for the file is [`BuiltTable::smallest`] and
/// [`BuiltTable::largest`]: the point keys' range widened by the range tombstones' extent. A
/// tombstone `[b, e)` at sequence `s` extends from its stored key `(b, s, RangeDelete)` to the
/// sentinel `(e, MAX_SEQUENCE, RangeDelete)` ([`crate::types::range_deletion_sentinel`]), which
/// sorts before every point entry of `e`, so the range never claims a point key of `e` that the
/// file does not hold and a next file may start at `e` without overlapping (RocksDB's
/// `UpdateBoundariesForRange`).
#[derive(Debug, Clone)]
pub struct BuiltTable {
    /// The properties written into the table.
    pub properties: TableProperties,
    /// The file's final size in bytes.
    pub file_size: u64,
    /// Smallest and largest point key (the first and last key of the data blocks); `None` when
    /// the table holds no point entries.
    pub point_keys: Option<KeyRange>,
    /// The range tombstones' extent: the smallest stored tombstone key `(begin, seq,
    /// RangeDelete)` and the sentinel of the largest end key; `None` without range deletions.
    pub range_deletion_keys: Option<KeyRange>,
    /// The order of the table's keys.
    pub order: KeyOrder,
}

impl BuiltTable {
    /// The file's smallest internal key: the smaller of the smallest point key and the smallest
    /// tombstone key. `None` for an empty table.
    pub fn smallest(&self) -> Option<&[u8]> {
        let p = self.point_keys.as_ref().map(|r| r.smallest.as_slice());
        let t = self
            .range_deletion_keys
            .as_ref()
            .map(|r| r.smallest.as_slice());
        match (p, t) {
            (Some(a), Some(b)) => Some(std::cmp::min_by(a, b, |x, y| {
                self.order.compare_internal(x, y)
            })),
            (a, b) => a.or(b),
        }
    }

    /// The file's largest internal key: the larger of the largest point key and the sentinel of
    /// the largest tombstone end key. `None` for an empty table.
    pub fn largest(&self) -> Option<&[u8]> {
        let p = self.point_keys.as_ref().map(|r| r.largest.as_slice());
        let t = self
            .range_deletion_keys
            .as_ref()
            .map(|r| r.largest.as_slice());
        match (p, t) {
            (Some(a), Some(b)) => Some(std::cmp::max_by(a, b, |x, y| {
                self.order.compare_internal(x, y)
            })),
            (a, b) => a.or(b),
        }
    }
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
    /// Range tombstones, written at `finish`.
    range_dels: RangeDelCollector,
    /// The first point key added (valid when `props.num_entries > 0`).
    first_key: Vec<u8>,
    /// The last point key added (valid when `props.num_entries > 0`).
    last_key: Vec<u8>,
    /// Handle of the last data block, waiting for the next key to choose its separator.
    pending_index: Option<BlockHandle>,
    props: TableProperties,
    /// The user collectors of this table, fed every entry (`collector.rs`).
    collectors: Vec<Box<dyn TablePropertiesCollector>>,
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
            range_dels: RangeDelCollector::new(options.comparator.clone()),
            first_key: Vec::new(),
            last_key: Vec::new(),
            pending_index: None,
            props: TableProperties::default(),
            collectors: options
                .properties_collectors
                .iter()
                .map(|f| {
                    f.create(CollectorContext {
                        level_at_creation: options.level_at_creation,
                    })
                })
                .collect(),
        })
    }

    /// Adds a point entry (`Put`, `Delete`, `SingleDelete` or `Merge`). `ikey` must be a valid
    /// internal key greater than every point key added before.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a malformed internal key (short, or an unknown or seek kind),
    /// a `RangeDelete` key (those go to [`TableBuilder::add_range_deletion`]) or an entry over
    /// [`MAX_ENTRY_BYTES`]; an I/O error from the file; an error if an earlier call failed.
    /// Nothing of a rejected entry is added.
    ///
    /// # Panics
    /// If `ikey` is not strictly greater than the previous point key (a bug in the caller).
    pub fn add(&mut self, ikey: &[u8], value: &[u8]) -> Result<()> {
        self.check_usable()?;
        let parsed = ParsedKey::parse(ikey)
            .map_err(|_| Error::InvalidArgument(format!("not an internal key: {ikey:02x?}")))?;
        if parsed.kind == ValueKind::RangeDelete {
            return Err(Error::InvalidArgument(format!(
                "range deletion {ikey:02x?} added as a point entry; use add_range_deletion"
            )));
        }
        assert!(
            self.props.num_entries == 0
                || self.opts.comparator.compare_internal(&self.last_key, ikey) == Ordering::Less,
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
            let order = &self.opts.comparator;
            let sep = shortest_separator(order, &self.last_key, ikey);
            debug_assert!(is_valid_separator(order, &self.last_key, &sep, Some(ikey)));
            self.add_index_entry(&sep, handle)?;
        }
        if !self.collectors.is_empty() {
            let offset = self.sink.offset;
            let entry = EntryType::of(parsed.kind);
            for c in &mut self.collectors {
                let r = c.add_user_key(parsed.user_key, value, entry, parsed.seq, offset);
                self.sink.check(r)?;
            }
        }
        if let Some(f) = &mut self.filter {
            f.add_user_key(parsed.user_key);
        }
        self.count(&parsed, ikey.len(), value.len());
        if self.props.num_entries == 1 {
            self.first_key.extend_from_slice(ikey);
        }
        self.data_block.add(ikey, value);
        self.last_key.clear();
        self.last_key.extend_from_slice(ikey);
        if self.data_block.size_estimate() >= self.opts.block_size {
            self.flush_data_block()?;
        }
        Ok(())
    }

    /// Adds the range tombstone `[begin, end)` at sequence number `seq`: user keys in the range
    /// written before `seq` are deleted. Tombstones may be added in any order, before, between or
    /// after point entries, and may overlap; they are sorted and written into the range-deletion
    /// block by [`TableBuilder::finish`]. `begin == end` deletes nothing and is accepted but not
    /// stored; two tombstones with the same `begin` and `seq` are stored as one reaching the
    /// larger end.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `begin > end` (in the comparator's order), `seq` is over
    /// [`MAX_SEQUENCE`](crate::types::MAX_SEQUENCE), the tombstone is over [`MAX_ENTRY_BYTES`] or
    /// the table's tombstones would pass 2 GiB; an error if an earlier call failed. Nothing of a
    /// rejected tombstone is kept.
    pub fn add_range_deletion(
        &mut self,
        begin: &[u8],
        end: &[u8],
        seq: SequenceNumber,
    ) -> Result<()> {
        self.check_usable()?;
        self.range_dels.add(begin, end, seq)
    }

    /// Entries added so far: point entries plus buffered range deletions (before duplicates are
    /// merged).
    pub fn num_entries(&self) -> u64 {
        self.props.num_entries + self.range_dels.len() as u64
    }

    /// The file size if the table were finished now, not counting index, filter, properties and
    /// footer; buffered range deletions count with their raw size. Compaction uses it to cut
    /// output files.
    pub fn estimated_file_size(&self) -> u64 {
        self.sink.offset + (self.data_block.size_estimate() + self.range_dels.bytes()) as u64
    }

    /// Writes the last data block, the filter, index, range-deletion, properties and metaindex
    /// blocks and the footer, and syncs the file. Returns the properties, the final size and the
    /// key ranges.
    ///
    /// # Errors
    /// An I/O error from the file (the file is then incomplete and must be deleted), or an error if
    /// an earlier call failed.
    pub fn finish(mut self) -> Result<BuiltTable> {
        self.check_usable()?;
        self.flush_data_block()?;
        if let Some(handle) = self.pending_index.take() {
            let order = &self.opts.comparator;
            let succ = short_successor(order, &self.last_key);
            debug_assert!(is_valid_separator(order, &self.last_key, &succ, None));
            self.add_index_entry(&succ, handle)?;
        }
        let point_keys = (self.props.num_entries > 0).then(|| KeyRange {
            smallest: std::mem::take(&mut self.first_key),
            largest: self.last_key.clone(),
        });
        let tombstones = self.range_dels.finish();
        self.count_range_deletions(&tombstones);
        self.finish_collectors(&tombstones)?;
        let filter = self.write_filter()?;
        let index = self.sink.write_block(self.index_block.finish(), true)?;
        self.props.index_bytes = index.size + BLOCK_TRAILER_LEN as u64;
        let range_del = if tombstones.is_empty() {
            None
        } else {
            let contents = range_del::encode(&tombstones, self.opts.block_restart_interval);
            Some(self.sink.write_block(&contents, true)?)
        };
        self.fill_option_properties();
        let properties = self.sink.write_block(&self.props.encode(), false)?;
        // Metaindex names in bytewise order.
        let mut meta = BlockBuilder::new(1);
        if let Some(h) = filter {
            meta.add(FILTER_META_KEY, &h.encode());
        }
        meta.add(PROPERTIES_META_KEY, &properties.encode());
        if let Some(h) = range_del {
            meta.add(RANGE_DEL_META_KEY, &h.encode());
        }
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
            point_keys,
            range_deletion_keys: extent(&tombstones, &self.opts.comparator),
            order: self.opts.comparator.clone(),
        })
    }

    /// Hands the range tombstones to the user collectors and stores what they collected.
    fn finish_collectors(&mut self, tombstones: &[RangeTombstone]) -> Result<()> {
        let mut collectors = std::mem::take(&mut self.collectors);
        for c in &mut collectors {
            for t in tombstones {
                let r = c.add_user_key(
                    &t.begin,
                    &t.end,
                    EntryType::RangeDeletion,
                    t.seq,
                    self.sink.offset,
                );
                self.sink.check(r)?;
            }
            let r = c.finish();
            for (name, value) in self.sink.check(r)? {
                if TableProperties::is_built_in(&name) {
                    let e = Error::InvalidArgument(format!(
                        "table properties collector {} returned the built-in property {name:?}",
                        c.name()
                    ));
                    return self.sink.check(Err(e));
                }
                self.props.user_properties.insert(name, value);
            }
        }
        Ok(())
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

    /// Counts one entry of any kind in the properties.
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

    /// Counts the (sorted, merged) tombstones as RocksDB does: entries, deletions and range
    /// deletions, raw key and value sizes, sequence numbers.
    fn count_range_deletions(&mut self, tombstones: &[RangeTombstone]) {
        for t in tombstones {
            let k = ParsedKey {
                user_key: &t.begin,
                seq: t.seq,
                kind: ValueKind::RangeDelete,
            };
            self.count(&k, t.begin.len() + TRAILER_LEN, t.end.len());
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
        p.comparator = o.comparator.name().to_string();
        p.block_size = o.block_size as u64;
        p.block_restart_interval = o.block_restart_interval as u64;
        p.index_restart_interval = o.index_block_restart_interval as u64;
        p.format_version = u64::from(FORMAT_VERSION);
        p.creation_time = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
    }
}

/// The extent of `tombstones` (in stored order): the first stored key and the sentinel of the
/// largest end key in `order`.
fn extent(tombstones: &[RangeTombstone], order: &KeyOrder) -> Option<KeyRange> {
    let first = tombstones.first()?;
    let end = tombstones
        .iter()
        .map(|t| t.end.as_slice())
        .reduce(|a, b| order.max(a, b))?;
    Some(KeyRange {
        smallest: first.begin_key(),
        largest: crate::types::range_deletion_sentinel(end),
    })
}
