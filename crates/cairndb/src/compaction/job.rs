//! The compaction job: runs the merged inputs through the [`CompactionIterator`] and writes what
//! it keeps into new tables of the output level, cut by size and at grandparent boundaries. The I/O
//! half of compaction; what to compact (the picker) and installing the result (a version edit
//! that adds the outputs and deletes the inputs) are the caller's. Design notes:
//! `docs/design/compaction.md`, section "Merging and outputs".
//!
//! Who calls it: a compaction thread, without the database lock. The job owns its input iterator
//! and the files it creates; it takes output file numbers from the caller's function (which must
//! keep them from being deleted as obsolete until the edit is installed, e.g. by holding the
//! version set's pending-output guards).
//!
//! Invariants:
//! 1. All entries of one user key go to one output: a cut happens only between user keys.
//! 2. Outputs are sorted and do not overlap, not even at a boundary user key: output `i` holds
//!    user keys `<= x_i` (its last point key) and output `i + 1` keys `> x_i`. Range tombstones
//!    are clipped to each output's share of the key space: output `i` gets `[lo_i, x_i\0)`, where
//!    `x_i\0` (the user key followed by a zero byte) is the smallest user key after `x_i` and
//!    `lo_i = x_{i-1}\0` (unbounded for the first output; the last is unbounded above). A
//!    tombstone that spans a cut is thus split between the outputs without a gap or an overlap.
//! 3. Each output's [`FileMetaData`] range covers its point keys and its clipped tombstones. When
//!    a clipped tombstone reaches `x_i\0`, the recorded largest key is `(x_i, 0, Delete)`, the
//!    largest internal key of user key `x_i` (covering every version of `x_i` and nothing after
//!    it), instead of the range-deletion sentinel at `x_i\0`, whose user key would equal the next
//!    output's smallest user key (the version forbids even a shared boundary user key). Otherwise
//!    the range is the table's own (`BuiltTable::smallest/largest`, sentinel included), as flush
//!    records it.
//! 4. Every output is synced when finished, and the directory is synced once after the last one,
//!    before the job returns. On any error every file the job created is deleted (best effort;
//!    an unreferenced table is also found obsolete later) and the error is returned.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::deletion_collector::{collector_for, DeletionCollector};
use super::iter::{
    range_deletions_to_keep, CompactionIterOptions, CompactionIterStats, CompactionIterator,
};
use crate::comparator::KeyOrder;
use crate::error::Result;
use crate::fs::{AccessPattern, FileSystem};
use crate::iter::{BoxedIterator, MergingIterator, RangeDelSet};
use crate::options::{CfOptions, CompactionStyle, DbOptions};
use crate::rate_limiter::{IoPriority, RateLimitedFile, RateLimitedReader, RateLimiter};
use crate::sstable::{ReadaheadFile, Table, TableBuilder, TableOptions};
use crate::types::{
    make_internal_key, user_key, ParsedKey, RangeTombstone, ValueKind, MAX_SEQUENCE,
};
use crate::version::filenames::table_file_name;
use crate::version::{EntryStats, FileMetaData};

/// The merged inputs of a compaction.
pub struct CompactionInput {
    /// Every input's point entries, merged in internal-key order (no range deletions).
    pub iter: BoxedIterator,
    /// Every input's range tombstones.
    pub range_deletions: Vec<RangeTombstone>,
    /// Total size of the input files in bytes (reported as bytes read).
    pub bytes: u64,
}

impl fmt::Debug for CompactionInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactionInput")
            .field("range_deletions", &self.range_deletions.len())
            .field("bytes", &self.bytes)
            .finish()
    }
}

impl CompactionInput {
    /// The inputs of `tables`: their entries through iterators that do not fill the block cache
    /// (compaction reads each block once and should not evict hot ones), merged; their range
    /// tombstones; their sizes.
    pub fn from_tables(tables: &[Arc<Table>], order: &KeyOrder) -> Self {
        let children: Vec<BoxedIterator> = tables
            .iter()
            .map(|t| Box::new(t.iter_without_cache_fill()) as BoxedIterator)
            .collect();
        let range_deletions = tables
            .iter()
            .flat_map(|t| t.range_deletions().iter().cloned())
            .collect();
        CompactionInput {
            iter: Box::new(MergingIterator::new(children, order.clone())),
            range_deletions,
            bytes: tables.iter().map(|t| t.file_size()).sum(),
        }
    }
}

/// Opens table `path` (`file_size` bytes) as a compaction input: advises the OS that it will be
/// read sequentially and, with `readahead_bytes > 0` (`DbOptions::compaction_readahead_size`),
/// reads it through a [`ReadaheadFile`] that loads `readahead_bytes` at a time, so the blocks
/// of a window cost one file read instead of one each (RocksDB's compaction readahead).
/// Every read of the table (opening it included) first asks `limiter` for its bytes at low
/// priority when the limiter's mode charges reads (`RateLimiterMode::ReadsOnly` or `AllIo`).
///
/// # Errors
/// Errors opening the file or from [`Table::open`]. Failed hints are not errors: they change
/// nothing that is read.
pub fn open_input_table(
    fs: &dyn FileSystem,
    path: &Path,
    file_size: u64,
    options: &TableOptions,
    readahead_bytes: u64,
    limiter: Option<&Arc<RateLimiter>>,
) -> Result<Arc<Table>> {
    let mut file = RateLimitedReader::wrap(fs.open_read(path)?, limiter, IoPriority::Low);
    let _ = file.advise(AccessPattern::Sequential);
    if readahead_bytes > 0 {
        file = Arc::new(ReadaheadFile::new(file, file_size, readahead_bytes));
    }
    Ok(Arc::new(Table::open(file, path, file_size, options)?))
}

/// One compaction's output settings. See the module contract.
pub struct CompactionJob<'a> {
    /// The file system the outputs are written through.
    pub fs: &'a dyn FileSystem,
    /// The database directory the outputs go to.
    pub dir: &'a Path,
    /// The database options (write-behind for the outputs).
    pub db_options: &'a DbOptions,
    /// The column family's options (table options, compression per level).
    pub cf_options: &'a CfOptions,
    /// The level the outputs are written to.
    pub output_level: usize,
    /// The size an output aims at (RocksDB's `target_file_size_base` scaled for the level). An
    /// output is cut at the first user-key boundary after its estimated size reaches it, except
    /// in leveled compaction above the bottommost level with grandparents to align to: there
    /// the output is cut where a grandparent file starts or ends once past half of it (see
    /// `cut_at_boundary`), and by size only at twice it (RocksDB's `max_output_file_size`).
    /// 0 cuts at every user key.
    pub target_file_size: u64,
    /// An output is cut before it overlaps more than this many bytes of grandparent files
    /// (RocksDB's `max_compaction_bytes`), so that compacting it later into the next level stays
    /// bounded. 0 disables the limit.
    pub max_grandparent_overlap_bytes: u64,
    /// The files of level `output_level + 1`, sorted by key (empty for the last level).
    pub grandparents: &'a [FileMetaData],
    /// What to keep: snapshots, bottommost, merge operator, compaction filter.
    pub iter_options: CompactionIterOptions,
    /// Bloom bits per key of the outputs (`filter_bits::output_filter_bits` for the version
    /// the plan was made on).
    pub filter_bits: f64,
}

impl fmt::Debug for CompactionJob<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactionJob")
            .field("dir", &self.dir)
            .field("output_level", &self.output_level)
            .field("target_file_size", &self.target_file_size)
            .field(
                "max_grandparent_overlap_bytes",
                &self.max_grandparent_overlap_bytes,
            )
            .field("grandparents", &self.grandparents.len())
            .field("iter_options", &self.iter_options)
            .finish()
    }
}

/// What a finished compaction job produced.
#[derive(Debug, Clone, Default)]
pub struct CompactionJobResult {
    /// The output files, in key order, synced and named in a synced directory.
    pub outputs: Vec<FileMetaData>,
    /// Total size of the input files.
    pub bytes_read: u64,
    /// Total size of the output files.
    pub bytes_written: u64,
    /// What the compaction iterator kept and dropped.
    pub stats: CompactionIterStats,
    /// Range tombstones written (after clipping; one spanning a cut counts once per output).
    pub range_deletions_written: u64,
    /// Input range tombstones dropped (obsolete at the bottommost level).
    pub range_deletions_dropped: u64,
    /// Wall time of the job.
    pub elapsed: Duration,
}

impl CompactionJob<'_> {
    /// Runs the compaction of `input`, naming outputs with numbers from `new_file_number`.
    ///
    /// # Errors
    /// Any input error (I/O, corruption), merge failure or output I/O error. Every file the job
    /// created has then been deleted.
    pub fn run(
        &self,
        input: CompactionInput,
        new_file_number: &mut dyn FnMut() -> u64,
    ) -> Result<CompactionJobResult> {
        let start = Instant::now();
        let mut created = Vec::new();
        match self.write_outputs(input, new_file_number, &mut created) {
            Ok(mut r) => {
                r.elapsed = start.elapsed();
                Ok(r)
            }
            Err(e) => {
                for path in &created {
                    let _ = self.fs.remove(path);
                }
                Err(e)
            }
        }
    }

    fn write_outputs(
        &self,
        input: CompactionInput,
        new_file_number: &mut dyn FnMut() -> u64,
        created: &mut Vec<PathBuf>,
    ) -> Result<CompactionJobResult> {
        let CompactionInput {
            iter,
            range_deletions,
            bytes,
        } = input;
        let order = &self.cf_options.comparator;
        let (kept, dropped) = range_deletions_to_keep(&range_deletions, &self.iter_options, order);
        let mut result = CompactionJobResult {
            bytes_read: bytes,
            range_deletions_dropped: dropped,
            ..CompactionJobResult::default()
        };
        let mut topts = self.cf_options.table_options_for_output(
            self.db_options,
            self.output_level,
            self.iter_options.bottommost,
        );
        topts.bloom_bits_per_key = self.filter_bits;
        let mut splitter = TombstoneSplitter::new(kept, order.clone());
        let mut grandparents = GrandparentTracker::new(self.grandparents, order);
        let leveled = self.cf_options.compaction_style == CompactionStyle::Level;
        // Room to reach a grandparent boundary: cutting there keeps the output from straddling
        // two files of the next level, so moving it down later rewrites less.
        let max_output_size =
            if leveled && !self.iter_options.bottommost && !self.grandparents.is_empty() {
                self.target_file_size.saturating_mul(2)
            } else {
                self.target_file_size
            };
        let mut citer = CompactionIterator::new(
            iter,
            RangeDelSet::new(range_deletions, order.clone()),
            self.iter_options.clone(),
        );
        let mut out: Option<Output> = None;
        // Where the next output's share of the key space starts (invariant 2).
        let mut lower: Option<Vec<u8>> = None;
        citer.seek_to_first();
        while citer.valid() {
            let key = citer.key();
            let uk = user_key(key);
            let new_user_key = out.as_ref().is_none_or(|o| o.last_user_key != uk);
            if new_user_key {
                let crossed = grandparents.advance(uk);
                let cut = out.as_ref().is_some_and(|o| {
                    let size = o.builder.estimated_file_size();
                    let wanted = size >= max_output_size
                        || (crossed.boundaries > 0
                            && self.cut_at_boundary(&grandparents, &crossed, size, leveled));
                    wanted && splitter.can_cut_between(&o.last_user_key, uk)
                });
                if let Some(o) = out.take_if(|_| cut) {
                    grandparents.start_output();
                    let upper = splitter.cut_key(&o.last_user_key, uk);
                    self.finish_output(
                        o,
                        lower.as_deref(),
                        Some(&upper),
                        &mut splitter,
                        &mut result,
                    )?;
                    lower = Some(upper);
                }
            }
            if out.is_none() {
                out = Some(self.open_output(new_file_number(), &topts, created)?);
            }
            let o = out.as_mut().expect("an output is open");
            o.builder.add(key, citer.value())?;
            if let Some(c) = &mut o.deletions {
                c.add(ParsedKey::parse(key)?.kind);
            }
            if new_user_key {
                o.last_user_key.clear();
                o.last_user_key.extend_from_slice(uk);
            }
            citer.next();
        }
        citer.status()?;
        if out.is_none() && splitter.has_remaining() {
            // Only range tombstones survive: one output holds them.
            out = Some(self.open_output(new_file_number(), &topts, created)?);
        }
        if let Some(o) = out {
            self.finish_output(o, lower.as_deref(), None, &mut splitter, &mut result)?;
        }
        if !created.is_empty() {
            self.fs.sync_dir(self.dir)?;
        }
        result.stats = *citer.stats();
        result.bytes_written = result.outputs.iter().map(|m| m.size).sum();
        Ok(result)
    }

    fn open_output(
        &self,
        number: u64,
        options: &TableOptions,
        created: &mut Vec<PathBuf>,
    ) -> Result<Output> {
        let path = self.dir.join(table_file_name(number));
        // Recorded before the create, so that a half-created file is removed on error too.
        created.push(path.clone());
        let file = RateLimitedFile::wrap(
            self.fs.create(&path)?,
            self.db_options.rate_limiter.as_ref(),
            IoPriority::Low,
        );
        let builder = TableBuilder::new(file, &path, options)?;
        Ok(Output {
            number,
            path,
            builder,
            deletions: collector_for(self.cf_options.compact_on_deletion.as_ref()),
            last_user_key: Vec::new(),
        })
    }

    /// Adds the output's share of the tombstones (`[lower, upper)`), finishes (and syncs) it and
    /// records its metadata in `result` (invariant 3).
    fn finish_output(
        &self,
        mut o: Output,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
        splitter: &mut TombstoneSplitter,
        result: &mut CompactionJobResult,
    ) -> Result<()> {
        let tombstones = splitter.take(lower, upper);
        let reaches_upper = upper.is_some_and(|u| tombstones.iter().any(|t| t.end == u));
        for t in &tombstones {
            o.builder.add_range_deletion(&t.begin, &t.end, t.seq)?;
        }
        result.range_deletions_written += tombstones.len() as u64;
        let built = o.builder.finish()?;
        let (Some(smallest), Some(largest)) = (built.smallest(), built.largest()) else {
            // Cannot happen (an output is opened for an entry or a tombstone); nothing to record.
            self.fs.remove(&o.path)?;
            return Ok(());
        };
        let largest = if reaches_upper {
            make_internal_key(&o.last_user_key, 0, ValueKind::Delete)
        } else if self.cf_options.comparator.is_bytewise() {
            tighten_sentinel(largest)
        } else {
            // Only bytewise cuts end tombstones at `k\0` (TombstoneSplitter::cut_key).
            largest.to_vec()
        };
        debug_assert!(self
            .cf_options
            .comparator
            .compare_internal(smallest, &largest)
            .is_le());
        result.outputs.push(FileMetaData {
            number: o.number,
            size: built.file_size,
            smallest: smallest.to_vec(),
            largest,
            smallest_seqno: built.properties.smallest_seqno,
            largest_seqno: built.properties.largest_seqno,
            marked_for_compaction: o.deletions.is_some_and(|c| c.need_compaction()),
            entry_stats: Some(EntryStats::of(&built.properties)),
            ..FileMetaData::default()
        });
        Ok(())
    }
}

/// An output table being written.
struct Output {
    number: u64,
    path: PathBuf,
    builder: TableBuilder,
    /// Counts deletions for deletion-triggered compaction (`compact_on_deletion`).
    deletions: Option<DeletionCollector>,
    /// The user key of the last point entry added (empty before the first).
    last_user_key: Vec<u8>,
}

/// An output's largest key when the table's own is the sentinel of a tombstone ending at `k\0`
/// (a piece clipped at an earlier cut, invariant 2, reaching an output the job does not cut
/// above): `(k, 0, Delete)`, which covers exactly the same user keys (those `<= k`), instead
/// of the sentinel at `k\0`, the smallest user key of the neighbour that holds the rest of
/// the tombstone (invariant 3). Any other key is returned as it is.
fn tighten_sentinel(largest: &[u8]) -> Vec<u8> {
    if let Ok(p) = ParsedKey::parse(largest) {
        if p.seq == MAX_SEQUENCE && p.kind == ValueKind::RangeDelete {
            if let Some((&0, k)) = p.user_key.split_last() {
                return make_internal_key(k, 0, ValueKind::Delete);
            }
        }
    }
    largest.to_vec()
}

/// The smallest user key after `k` in bytewise order: `k` followed by a zero byte.
fn successor(k: &[u8]) -> Vec<u8> {
    let mut s = Vec::with_capacity(k.len() + 1);
    s.extend_from_slice(k);
    s.push(0);
    s
}

/// Hands each output its share of the kept range tombstones (invariant 2). Outputs ask in key
/// order with adjacent `[lower, upper)` ranges.
#[derive(Debug)]
struct TombstoneSplitter {
    /// The order of the user keys.
    order: KeyOrder,
    /// Sorted by start.
    tombstones: Vec<RangeTombstone>,
    /// Index of the first tombstone not yet handed to any output.
    next: usize,
    /// Tombstones handed out that reach past the last `upper`.
    spanning: Vec<RangeTombstone>,
}

impl TombstoneSplitter {
    fn new(mut tombstones: Vec<RangeTombstone>, order: KeyOrder) -> Self {
        tombstones.sort_by(|a, b| order.compare(&a.begin, &b.begin));
        TombstoneSplitter {
            order,
            tombstones,
            next: 0,
            spanning: Vec::new(),
        }
    }

    fn has_remaining(&self) -> bool {
        self.next < self.tombstones.len() || !self.spanning.is_empty()
    }

    /// Whether outputs may be cut between user keys `last` and `next` (adjacent in the
    /// compaction's output). In bytewise order always: the cut lies at `last\0`, the first key
    /// after `last` ([`TombstoneSplitter::cut_key`]). Other orders have no such key, so the cut
    /// lies at `next`, and only where no tombstone covers a key after `last` and before `next`
    /// (the gap no output's key range would hold: a tombstone piece there would delete keys of
    /// deeper levels that no file's range admits to, and could be dropped at the bottom while
    /// they live). Long tombstones of such orders therefore make larger outputs.
    fn can_cut_between(&self, last: &[u8], next: &[u8]) -> bool {
        if self.order.is_bytewise() {
            return true;
        }
        let o = &self.order;
        let reaches_past_last = |t: &RangeTombstone| o.compare(&t.end, last).is_gt();
        let spanning = self.spanning.iter().any(reaches_past_last);
        let pending = self.tombstones[self.next..]
            .iter()
            .take_while(|t| o.compare(&t.begin, next).is_lt())
            .any(reaches_past_last);
        !spanning && !pending
    }

    /// Where an output ending at user key `last` ends its share of the tombstones, when the next
    /// output starts at `next` (see [`TombstoneSplitter::can_cut_between`]).
    fn cut_key(&self, last: &[u8], next: &[u8]) -> Vec<u8> {
        if self.order.is_bytewise() {
            successor(last)
        } else {
            next.to_vec()
        }
    }

    /// The tombstones' parts inside `[lower, upper)` (`None` is unbounded). Requires `lower` to
    /// be the previous call's `upper`.
    fn take(&mut self, lower: Option<&[u8]>, upper: Option<&[u8]>) -> Vec<RangeTombstone> {
        let o = &self.order;
        while let Some(t) = self.tombstones.get(self.next) {
            if upper.is_some_and(|u| o.compare(&t.begin, u).is_ge()) {
                break;
            }
            self.spanning.push(t.clone());
            self.next += 1;
        }
        let mut out = Vec::new();
        for t in &self.spanning {
            let start = match lower {
                Some(l) => o.max(l, &t.begin),
                None => t.begin.as_slice(),
            };
            let end = match upper {
                Some(u) => o.min(u, &t.end),
                None => t.end.as_slice(),
            };
            if o.compare(start, end).is_lt() {
                out.push(RangeTombstone::new(start, end, t.seq));
            }
        }
        self.spanning
            .retain(|t| upper.is_some_and(|u| o.compare(&t.end, u).is_gt()));
        out
    }
}

impl CompactionJob<'_> {
    /// Whether the output of `size` bytes ends before a user key that just crossed grandparent
    /// file boundaries (RocksDB's `CompactionOutputs::ShouldStopBefore`):
    /// - its grandparent overlap plus its size would pass `max_compaction_bytes`, so compacting
    ///   it one level down later stays bounded;
    /// - leveled only: the key jumped over a whole grandparent file of more than 1/8 of the
    ///   target size, which the output then need not overlap;
    /// - leveled only: the output has reached 50% of the target size, plus 5% per boundary it
    ///   crossed (at most 90%): cutting where a grandparent file starts or ends makes the output
    ///   overlap fewer grandparent files, so moving it down later rewrites less of the next
    ///   level. Without this rule an output of L(n) straddles two L(n+1) files about every time.
    fn cut_at_boundary(
        &self,
        g: &GrandparentTracker<'_>,
        crossed: &Crossed,
        size: u64,
        leveled: bool,
    ) -> bool {
        let limit = self.max_grandparent_overlap_bytes;
        if limit > 0 && g.overlapped_bytes + size > limit {
            return true;
        }
        if !leveled {
            return false;
        }
        // Entering and leaving a file (and entering the next, when the key is inside one).
        let skipped_whole_file = if g.in_gap { 2 } else { 3 };
        if crossed.boundaries >= skipped_whole_file
            && crossed.added_bytes > self.target_file_size / 8
        {
            return true;
        }
        let percent = 50 + (g.boundaries_since_cut * 5).min(40) as u64;
        size >= self.target_file_size.div_ceil(100) * percent
    }
}

/// Where the output's keys stand among the grandparent files (the level below the output
/// level): which file the last key is in, or the gap before it; the bytes of grandparent files
/// the current output overlaps; and how many file boundaries it crossed. Levels below L0 never
/// share a user key between files, so user keys place a key exactly.
#[derive(Debug)]
struct GrandparentTracker<'a> {
    files: &'a [FileMetaData],
    order: &'a KeyOrder,
    /// The file the last key is in, or (when `in_gap`) the first file after it.
    index: usize,
    /// The last key lies between files (or before the first, or after the last).
    in_gap: bool,
    seen_key: bool,
    /// Bytes of the grandparent files the current output overlaps.
    overlapped_bytes: u64,
    /// File boundaries (a start or an end) the current output's keys crossed.
    boundaries_since_cut: usize,
}

/// What one key's move crossed.
#[derive(Debug, Default)]
struct Crossed {
    /// File boundaries crossed.
    boundaries: usize,
    /// Bytes of the files entered.
    added_bytes: u64,
}

impl<'a> GrandparentTracker<'a> {
    fn new(files: &'a [FileMetaData], order: &'a KeyOrder) -> Self {
        GrandparentTracker {
            files,
            order,
            index: 0,
            in_gap: true,
            seen_key: false,
            overlapped_bytes: 0,
            boundaries_since_cut: 0,
        }
    }

    /// Moves to user key `uk` (keys arrive in increasing order) and reports the boundaries the
    /// move crossed. The first key crosses none; the file it lands in counts as overlapped.
    fn advance(&mut self, uk: &[u8]) -> Crossed {
        let mut crossed = Crossed::default();
        while let Some(f) = self.files.get(self.index) {
            if self.in_gap {
                if self.order.compare(uk, user_key(&f.smallest)).is_lt() {
                    break;
                }
                self.in_gap = false;
                if self.seen_key {
                    crossed.boundaries += 1;
                    crossed.added_bytes += f.size;
                }
            } else {
                if self.order.compare(uk, user_key(&f.largest)).is_le() {
                    break;
                }
                self.in_gap = true;
                self.index += 1;
                if self.seen_key {
                    crossed.boundaries += 1;
                }
            }
        }
        if !self.seen_key {
            self.seen_key = true;
            self.start_output();
        }
        self.overlapped_bytes += crossed.added_bytes;
        self.boundaries_since_cut += crossed.boundaries;
        crossed
    }

    /// A new output begins at the last key: it overlaps the file that key is in, if any.
    fn start_output(&mut self) {
        self.boundaries_since_cut = 0;
        self.overlapped_bytes = match (self.in_gap, self.files.get(self.index)) {
            (false, Some(f)) => f.size,
            _ => 0,
        };
    }
}

#[cfg(test)]
#[path = "job_tests.rs"]
mod tests;
