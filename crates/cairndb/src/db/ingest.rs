//! Ingesting external table files into a column family (RocksDB's `IngestExternalFile`): the
//! files [`SstFileWriter`](crate::SstFileWriter) builds join the tree in one MANIFEST edit.
//!
//! 1. Prepare, without the state lock: open each file with the family's table options (its
//!    comparator must be the family's; every entry must carry sequence number 0, as the writer
//!    leaves them), find its key range, refuse files that overlap each other, and bring each
//!    into the directory under a new file number (a hard link with `move_files`, else a copy),
//!    synced.
//! 2. Decide, under the state lock. When nothing of the family (memtables, tables, running
//!    compactions' outputs) overlaps the files' keys and no snapshot is live (or
//!    `snapshot_consistency` is off), the files keep sequence number 0 and go to the last
//!    level, as written: they are older than nothing they could hide. Otherwise they get new
//!    sequence numbers, one per file in key order (`s`, `s + 1`, ...: L0 files hold disjoint,
//!    ordered sequence ranges), and go to L0, above everything, where the newest data lives:
//!    - the numbers are allocated as a commit group's are and registered in the publish queue
//!      as one group, so no later write becomes visible before the files do, and no reader sees
//!      them before the files are installed;
//!    - the memtables must hold no entry below `s` in the files' range (a reader searches them
//!      first and would find the older value): they are flushed first when they do
//!      (`allow_blocking_flush`), and the check runs again once every group below `s` is
//!      published;
//!    - each file is rewritten with its entries at its number (the format has no per-file
//!      global sequence number); writes made meanwhile are acknowledged only once the files
//!      are installed, since their publication waits for the ingestion's group.
//! 3. Install: one edit adds every file, so the ingestion is all or nothing. A crash before the
//!    edit leaves files no version names, which the next open deletes; after it, the files
//!    are part of the tree (their sequence number is at or below the recorded last sequence).
//!
//! Not built: placing files with a new sequence number below L0 (RocksDB puts them in the
//! lowest level where nothing above overlaps; here compaction moves them down), ingestion
//! behind all data, and files that overlap each other in one call.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::MutexGuard;

use super::checkpoint::copy_prefix;
use super::writer::Writer;
use super::{ColumnFamily, Db, DbInner, DbState};
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::ingest::IngestExternalFileOptions;
use crate::iter::InternalIterator;
use crate::options::CfOptions;
use crate::sstable::{Table, TableBuilder};
use crate::types::{
    make_internal_key, range_deletion_sentinel, seek_key, user_key, ParsedKey, SequenceNumber,
    MAX_SEQUENCE,
};
use crate::version::filenames::table_file_name;
use crate::version::{EntryStats, FileMetaData, PendingOutput, VersionEdit};

/// How many times an ingestion flushes memtables that a racing write keeps refilling in its
/// range before it gives up with `Busy`.
const MAX_FLUSH_ROUNDS: usize = 3;

/// One external file, opened and checked.
struct External {
    path: PathBuf,
    table: Arc<Table>,
    /// Smallest and largest internal keys (points and tombstone extents).
    smallest: Vec<u8>,
    largest: Vec<u8>,
}

impl External {
    fn lo(&self) -> &[u8] {
        user_key(&self.smallest)
    }
    fn hi(&self) -> &[u8] {
        user_key(&self.largest)
    }
}

/// A file brought into the directory under a new number.
struct Placed {
    guard: PendingOutput,
    external: External,
}

impl Db {
    /// Adds the table files at `paths` (built by [`SstFileWriter`](crate::SstFileWriter) with
    /// the same comparator) to the default column family, all or nothing. See
    /// [`Db::ingest_external_file_cf`].
    ///
    /// # Errors
    /// As [`Db::ingest_external_file_cf`].
    pub fn ingest_external_file<P: AsRef<Path>>(
        &self,
        paths: &[P],
        opts: &IngestExternalFileOptions,
    ) -> Result<()> {
        self.ingest_external_file_cf(&self.default_column_family(), paths, opts)
    }

    /// Adds the table files at `paths` to column family `cf` in one MANIFEST edit (the module
    /// documentation of `db/ingest.rs` says where they go and with which sequence number).
    /// Snapshots taken before the call do not see the files' keys (with the default
    /// `snapshot_consistency`); reads after it do, above every earlier write of those keys.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no paths, a file that is not an external table (entries
    /// with sequence numbers) or was written with another comparator, files overlapping each
    /// other, or when the options forbid what the ingestion needs (`allow_global_seqno`,
    /// `allow_blocking_flush`); [`Error::NotSupported`] for `ingest_behind`;
    /// [`Error::Busy`] when writes keep filling the memtables in the files' range; Corruption
    /// and I/O errors from the files. Nothing is ingested on error.
    pub fn ingest_external_file_cf<P: AsRef<Path>>(
        &self,
        cf: &ColumnFamily,
        paths: &[P],
        opts: &IngestExternalFileOptions,
    ) -> Result<()> {
        opts.validate()?;
        let inner = &*self.inner;
        inner.refuse_if_read_only("ingest_external_file")?;
        let _call = inner.begin_call()?;
        cf.data.check_live()?;
        if paths.is_empty() {
            return Err(Error::InvalidArgument(
                "ingest_external_file: no files given".into(),
            ));
        }
        let options = cf.options();
        let mut externals = paths
            .iter()
            .map(|p| open_external(inner, p.as_ref(), &options, opts))
            .collect::<Result<Vec<_>>>()?;
        let order = options.comparator.clone();
        externals.sort_by(|a, b| order.compare_internal(&a.smallest, &b.smallest));
        for w in externals.windows(2) {
            if order.compare(w[0].hi(), w[1].lo()).is_ge() {
                return Err(Error::InvalidArgument(format!(
                    "ingest_external_file: {} and {} overlap; ingest them in separate calls",
                    w[0].path.display(),
                    w[1].path.display()
                )));
            }
        }
        let placed = inner.bring_in(externals, opts)?;
        let result = inner.place(cf, &options, &placed, opts);
        // After a failed MANIFEST write the edit may be in the MANIFEST: the files stay for the
        // next open to keep or delete, as a flush's do.
        if result.is_err() && !inner.state.lock().versions.is_poisoned() {
            for p in &placed {
                let _ = inner
                    .fs
                    .remove(&inner.dir.join(table_file_name(p.guard.number())));
            }
        }
        result
    }
}

/// Opens external file `path` and checks it (module step 1).
fn open_external(
    inner: &DbInner,
    path: &Path,
    cf: &CfOptions,
    opts: &IngestExternalFileOptions,
) -> Result<External> {
    let file = inner.fs.open_read(path)?;
    let size = file.size()?;
    let table = Arc::new(Table::open(
        file,
        path,
        size,
        &cf.table_options_for_reads(),
    )?);
    if opts.verify_checksums_before_ingest {
        table.verify_checksums()?;
    }
    let p = table.properties();
    if p.smallest_seqno != 0 || p.largest_seqno != 0 {
        return Err(Error::InvalidArgument(format!(
            "{}: not an external table file (its entries carry sequence numbers {}..={})",
            path.display(),
            p.smallest_seqno,
            p.largest_seqno
        )));
    }
    let order = &cf.comparator;
    let mut it = table.iter();
    it.seek_to_first();
    let first = it.valid().then(|| it.key().to_vec());
    it.seek_to_last();
    let last = it.valid().then(|| it.key().to_vec());
    it.status()?;
    let ts = table.range_deletions();
    let t_first = ts.first().map(|t| t.begin_key());
    let t_last = ts
        .iter()
        .map(|t| t.end.as_slice())
        .reduce(|a, b| order.max(a, b))
        .map(range_deletion_sentinel);
    let pick = |a: Option<Vec<u8>>, b: Option<Vec<u8>>, smaller: bool| match (a, b) {
        (Some(a), Some(b)) => {
            let a_first = order.compare_internal(&a, &b).is_le();
            Some(if a_first == smaller { a } else { b })
        }
        (a, b) => a.or(b),
    };
    let (Some(smallest), Some(largest)) = (pick(first, t_first, true), pick(last, t_last, false))
    else {
        return Err(Error::InvalidArgument(format!(
            "{}: the file holds no entries",
            path.display()
        )));
    };
    Ok(External {
        path: path.to_path_buf(),
        table,
        smallest,
        largest,
    })
}

impl DbInner {
    /// Module step 1: each file under a new number in the directory, synced.
    fn bring_in(
        &self,
        externals: Vec<External>,
        opts: &IngestExternalFileOptions,
    ) -> Result<Vec<Placed>> {
        let mut placed: Vec<Placed> = Vec::with_capacity(externals.len());
        let mut bring = |e: External| -> Result<()> {
            let guard = self.state.lock().versions.new_pending_output();
            let to = self.dir.join(table_file_name(guard.number()));
            let linked = opts.move_files && self.fs.link(&e.path, &to).is_ok();
            if !linked {
                if opts.move_files && !opts.failed_move_fall_back_to_copy {
                    return Err(Error::InvalidArgument(format!(
                        "ingest_external_file: cannot link {} into the database and \
                         failed_move_fall_back_to_copy is false",
                        e.path.display()
                    )));
                }
                copy_prefix(&*self.fs, &e.path, &to, e.table.file_size())?;
            }
            placed.push(Placed { guard, external: e });
            Ok(())
        };
        let mut result = Ok(());
        for e in externals {
            result = bring(e);
            if result.is_err() {
                break;
            }
        }
        let result = result.and_then(|()| self.fs.sync_dir(&self.dir));
        if let Err(e) = result {
            for p in &placed {
                let _ = self
                    .fs
                    .remove(&self.dir.join(table_file_name(p.guard.number())));
            }
            return Err(e);
        }
        Ok(placed)
    }

    /// Module steps 2 and 3.
    fn place(
        &self,
        cf: &ColumnFamily,
        options: &CfOptions,
        placed: &[Placed],
        opts: &IngestExternalFileOptions,
    ) -> Result<()> {
        let id = cf.id();
        let order = &options.comparator;
        let (lo, hi) = span(order, placed);
        let mut st = self.state.lock();
        for round in 0.. {
            self.check_open()?;
            cf.data.check_live()?;
            let in_memory = memtables_overlap(&st, id, order, lo, hi, MAX_SEQUENCE);
            if !in_memory {
                let snapshots = !self.snapshots.lock().is_empty();
                let needs_seq = (snapshots && opts.snapshot_consistency)
                    || tables_overlap(&st, id, order, lo, hi);
                if !needs_seq {
                    return self.install(&mut st, id, options, placed, 0);
                }
                if !opts.allow_global_seqno {
                    return Err(Error::InvalidArgument(
                        "ingest_external_file: the files need a sequence number (they overlap \
                         the column family's data, or snapshot_consistency with live \
                         snapshots) and allow_global_seqno is false"
                            .into(),
                    ));
                }
                if let Some(done) = self.ingest_at_new_sequence(&mut st, id, options, placed) {
                    return done;
                }
            }
            if !opts.allow_blocking_flush {
                return Err(Error::InvalidArgument(
                    "ingest_external_file: the memtables hold keys of the files' range and \
                     allow_blocking_flush is false"
                        .into(),
                ));
            }
            if round == MAX_FLUSH_ROUNDS {
                return Err(Error::Busy(
                    "ingest_external_file: writes keep filling the memtables in the files' \
                     range; retry"
                        .into(),
                ));
            }
            drop(st);
            self.flush_families(Some(id))?;
            st = self.state.lock();
        }
        unreachable!("the loop returns")
    }

    /// The files at new sequence numbers `s..s + n` in L0, one per file in key order (module
    /// step 2). `None` when the memtables turned out to hold older keys of the range (a write
    /// raced the first check): flush and try again.
    fn ingest_at_new_sequence(
        &self,
        st: &mut MutexGuard<'_, DbState>,
        id: u32,
        options: &CfOptions,
        placed: &[Placed],
    ) -> Option<Result<()>> {
        let order = &options.comparator;
        let (lo, hi) = span(order, placed);
        // Allocated and registered as a commit group's numbers are (write.rs, invariant 8).
        let s = st.versions.last_sequence() + 1;
        let last = s + placed.len() as u64 - 1;
        st.versions.set_last_sequence(last);
        self.publish_queue.register(last, Arc::new(Writer::new()));
        let _published_on_exit = Registered { inner: self, last };
        MutexGuard::unlocked(st, || self.publish_queue.wait_through(s - 1));
        let result = if memtables_overlap(st, id, order, lo, hi, s) {
            None
        } else {
            let rewritten = MutexGuard::unlocked(st, || self.rewrite_all(options, placed, s));
            Some(rewritten.and_then(|files| {
                let done = self.install_files(st, id, files.iter().map(|(g, m)| (0, g, m)), s);
                if done.is_err() && !st.versions.is_poisoned() {
                    for (g, _) in &files {
                        let _ = self.fs.remove(&self.dir.join(table_file_name(g.number())));
                    }
                }
                done
            }))
        };
        result
    }

    /// Placed file `i` rewritten with its entries at sequence number `s + i`, under new file
    /// numbers.
    fn rewrite_all(
        &self,
        options: &CfOptions,
        placed: &[Placed],
        s: SequenceNumber,
    ) -> Result<Vec<(PendingOutput, FileMetaData)>> {
        let topts = options.table_options_for_output(&self.options.db, 0, false);
        let mut out = Vec::with_capacity(placed.len());
        for (i, p) in placed.iter().enumerate() {
            let s = s + i as u64;
            let guard = self.state.lock().versions.new_pending_output();
            let path = self.dir.join(table_file_name(guard.number()));
            let written = (|| {
                let mut b = TableBuilder::new(self.fs.create(&path)?, &path, &topts)?;
                let table = &p.external.table;
                let mut it = table.iter();
                it.seek_to_first();
                while it.valid() {
                    let k = ParsedKey::parse(it.key())?;
                    b.add(&make_internal_key(k.user_key, s, k.kind), it.value())?;
                    it.next();
                }
                it.status()?;
                for t in table.range_deletions().iter() {
                    b.add_range_deletion(&t.begin, &t.end, s)?;
                }
                b.finish()
            })();
            let built = match written {
                Ok(b) => b,
                Err(e) => {
                    let _ = self.fs.remove(&path);
                    for (g, _) in &out {
                        let g: &PendingOutput = g;
                        let _ = self.fs.remove(&self.dir.join(table_file_name(g.number())));
                    }
                    return Err(e);
                }
            };
            let (Some(smallest), Some(largest)) = (built.smallest(), built.largest()) else {
                return Err(Error::InvalidArgument("ingested file became empty".into()));
            };
            let meta = FileMetaData {
                number: guard.number(),
                size: built.file_size,
                smallest: smallest.to_vec(),
                largest: largest.to_vec(),
                smallest_seqno: s,
                largest_seqno: s,
                entry_stats: Some(EntryStats::of(&built.properties)),
                ..FileMetaData::default()
            };
            out.push((guard, meta));
        }
        self.fs.sync_dir(&self.dir)?;
        // The copies are no longer needed; the rewritten files replace them.
        for p in placed {
            let _ = self
                .fs
                .remove(&self.dir.join(table_file_name(p.guard.number())));
        }
        Ok(out)
    }

    /// The files as they were brought in, at sequence number 0 in the last level.
    fn install(
        &self,
        st: &mut MutexGuard<'_, DbState>,
        id: u32,
        options: &CfOptions,
        placed: &[Placed],
        seq: SequenceNumber,
    ) -> Result<()> {
        let last_level = options.num_levels as usize - 1;
        let metas: Vec<FileMetaData> = placed
            .iter()
            .map(|p| FileMetaData {
                number: p.guard.number(),
                size: p.external.table.file_size(),
                smallest: p.external.smallest.clone(),
                largest: p.external.largest.clone(),
                smallest_seqno: seq,
                largest_seqno: seq,
                entry_stats: Some(EntryStats::of(p.external.table.properties())),
                ..FileMetaData::default()
            })
            .collect();
        let files = placed
            .iter()
            .zip(&metas)
            .map(|(p, m)| (last_level, &p.guard, m));
        self.install_files(st, id, files, seq)
    }

    /// One edit adding every file at its level (module step 3).
    fn install_files<'a>(
        &self,
        st: &mut MutexGuard<'_, DbState>,
        id: u32,
        files: impl Iterator<Item = (usize, &'a PendingOutput, &'a FileMetaData)>,
        seq: SequenceNumber,
    ) -> Result<()> {
        let now = self.options.db.now_secs();
        let mut edit = VersionEdit::default();
        let mut count = 0;
        for (level, _guard, meta) in files {
            let mut meta = meta.clone();
            meta.creation_time = Some(now);
            meta.oldest_ancester_time = Some(now);
            edit.add_file(level as u8, meta);
            count += 1;
        }
        self.log_and_apply(st, vec![(id, edit)])?;
        let name = st.cf(id).data.name.clone();
        self.info_log.info(&format!(
            "[{name}] Ingested {count} external files from sequence number {seq}"
        ));
        self.publish_view(st, id);
        self.update_pressure(st);
        self.bg_cond.notify_all();
        Ok(())
    }
}

/// The ingestion's group in the publish queue, published when it goes out of scope, whatever
/// happened (an install, a retry, an error, a panic): publishing numbers with nothing at them
/// only leaves a gap, and it must not stop the queue as a failed insert would; a group left
/// registered would stop every later publication, and close.
struct Registered<'a> {
    inner: &'a DbInner,
    last: SequenceNumber,
}

impl Drop for Registered<'_> {
    fn drop(&mut self) {
        let inner = self.inner;
        inner
            .publish_queue
            .complete(self.last, Ok(()), &inner.last_sequence);
    }
}

/// The user-key span of every placed file.
fn span<'a>(order: &KeyOrder, placed: &'a [Placed]) -> (&'a [u8], &'a [u8]) {
    let mut lo = placed[0].external.lo();
    let mut hi = placed[0].external.hi();
    for p in &placed[1..] {
        lo = order.min(lo, p.external.lo());
        hi = order.max(hi, p.external.hi());
    }
    (lo, hi)
}

/// Whether family `id`'s memtables hold an entry or range deletion below sequence number
/// `below` with a user key in `[lo, hi]`.
fn memtables_overlap(
    st: &DbState,
    id: u32,
    order: &KeyOrder,
    lo: &[u8],
    hi: &[u8],
    below: SequenceNumber,
) -> bool {
    let cf = st.cf(id);
    let mems = std::iter::once(&cf.mem).chain(cf.imms.iter().map(|i| &i.mem));
    for mem in mems {
        let mut it = mem.iter();
        it.seek(&seek_key(lo, MAX_SEQUENCE));
        while it.valid() && order.compare(user_key(it.key()), hi).is_le() {
            let seq = ParsedKey::parse(it.key()).map_or(0, |k| k.seq);
            if seq < below {
                return true;
            }
            it.next();
        }
        let tombstones = mem.range_tombstones(MAX_SEQUENCE);
        if tombstones.iter().any(|t| {
            t.seq < below && order.compare(t.begin, hi).is_le() && order.compare(t.end, lo).is_gt()
        }) {
            return true;
        }
    }
    false
}

/// Whether family `id`'s tables, or a running compaction's outputs, overlap `[lo, hi]`.
fn tables_overlap(st: &DbState, id: u32, order: &KeyOrder, lo: &[u8], hi: &[u8]) -> bool {
    let Some(version) = st.versions.current(id) else {
        return true;
    };
    let cf = st.cf(id);
    (0..version.num_levels()).any(|level| {
        !version
            .overlapping_files(level, Some(lo), Some(hi))
            .is_empty()
            || cf.running.output_overlaps(order, level, lo, hi)
    })
}
