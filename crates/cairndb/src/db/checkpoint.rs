//! Checkpoints: a copy of the database in another directory that opens as a database with the
//! same data, taken while the database runs (RocksDB's `Checkpoint::CreateCheckpoint`).
//!
//! Protocol (`docs/design/operability.md`):
//! 1. Flush every column family's memtables, so writes made with `disable_wal` are in tables.
//!    With a `log_size_for_flush` above 0 ([`Db::checkpoint_with_log_size`], RocksDB's
//!    parameter of the same name), only when the live WALs hold at least that many bytes:
//!    otherwise the memtables' data reaches the checkpoint through its WAL copies (step 3),
//!    and writes made with `disable_wal` since the last flush are not in it.
//! 2. Disable obsolete-file deletion (a counter, so checkpoints may overlap), then, under the
//!    state lock with no commit leader active and no MANIFEST change in flight: flush the WAL writer to the OS and note the live
//!    WAL's length, the MANIFEST's number and length, the WALs recovery would replay, and the
//!    tables of every family's current version. This is the cut: the MANIFEST prefix describes
//!    exactly these tables, and the WAL prefixes hold every write published before it (whole
//!    records only, since no leader is appending).
//! 3. Without the lock, into `<dir>.tmp`: hard-link each table (copy when linking fails, e.g.
//!    across file systems), copy each older WAL whole and the live one up to the noted length,
//!    copy the MANIFEST up to the noted length, write the OPTIONS file and CURRENT; sync
//!    everything; rename `<dir>.tmp` to `<dir>`; sync the parent directory.
//! 4. Re-enable deletion and delete what became obsolete meanwhile.
//!
//! Writes after the cut are not in the checkpoint; writes before it all are. Tables are
//! immutable, so a hard link shares blocks safely; WALs and the MANIFEST are appended to, so they
//! are copied. On error the temporary directory is removed (best effort) and the database is
//! unchanged.

use std::path::{Path, PathBuf};

use super::install::DeletionPause;
use super::{Db, DbInner};
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::options::file::options_file_numbers;
use crate::version::filenames::{log_file_name, manifest_file_name, table_file_name};
use crate::version::{parse_file_name, set_current, FileType};

/// What a checkpoint copied, for callers and `cairn checkpoint`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckpointReport {
    /// The checkpoint directory.
    pub dir: PathBuf,
    /// Tables hard-linked.
    pub tables_linked: usize,
    /// Tables copied because linking failed.
    pub tables_copied: usize,
    /// WAL files copied.
    pub wals_copied: usize,
    /// Bytes copied (WALs, MANIFEST, copied tables).
    pub bytes_copied: u64,
    /// The last sequence number the checkpoint holds (at least).
    pub sequence: u64,
}

/// The cut taken under the lock (protocol step 2).
struct Cut {
    tables: Vec<(u64, u64)>,
    /// `(number, bytes to copy)`.
    wals: Vec<(u64, u64)>,
    manifest: (u64, u64),
    options_number: Option<u64>,
    sequence: u64,
}

impl Db {
    /// Writes a checkpoint of the database into `dir`, which must not exist (its parent must).
    /// See the module doc for the protocol; the checkpoint holds every write published before
    /// the call began.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `dir` exists; [`Error::Closed`]; the flush's error; I/O
    /// errors (the partial checkpoint is removed).
    pub fn checkpoint(&self, dir: impl AsRef<Path>) -> Result<CheckpointReport> {
        self.checkpoint_with_log_size(dir, 0)
    }

    /// [`Db::checkpoint`] that flushes the memtables first only when the live WALs hold at
    /// least `log_size_for_flush` bytes (0: always, as [`Db::checkpoint`]). Without the flush,
    /// the checkpoint holds the memtables' data in its copies of the WALs, and misses writes
    /// made with `disable_wal` since the last flush (protocol step 1).
    ///
    /// # Errors
    /// As [`Db::checkpoint`].
    pub fn checkpoint_with_log_size(
        &self,
        dir: impl AsRef<Path>,
        log_size_for_flush: u64,
    ) -> Result<CheckpointReport> {
        let dir = dir.as_ref();
        let inner = &*self.inner;
        let fs = &*inner.fs;
        inner.refuse_if_read_only("a checkpoint")?;
        // Declared first, so it ends last: resuming deletions deletes in the database directory.
        let _call = inner.begin_call()?;
        if fs.exists(dir)? {
            return Err(Error::InvalidArgument(format!(
                "checkpoint directory {} already exists",
                dir.display()
            )));
        }
        if log_size_for_flush == 0 || inner.live_wal_bytes() >= log_size_for_flush {
            self.flush()?;
        }
        // Deletions resume when this is dropped (protocol step 4), also on errors.
        let _paused = DeletionPause::new(&self.inner);
        let cut = inner.checkpoint_cut()?;
        let mut tmp_name = dir.file_name().unwrap_or_default().to_os_string();
        tmp_name.push(".tmp");
        let tmp = dir.with_file_name(tmp_name);
        if fs.exists(&tmp)? {
            remove_tree(fs, &tmp);
        }
        let result = inner.write_checkpoint(&cut, &tmp).and_then(|mut report| {
            fs.rename(&tmp, dir)?;
            let parent = dir
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or_else(|| Path::new("."));
            fs.sync_dir(parent)?;
            report.dir = dir.to_path_buf();
            Ok(report)
        });
        if result.is_err() {
            remove_tree(fs, &tmp);
        }
        result
    }
}

impl DbInner {
    /// The bytes of the WALs recovery would replay: the current one and the retired ones still
    /// live.
    fn live_wal_bytes(&self) -> u64 {
        let st = self.state.lock();
        let floor = st.versions.min_log_number_to_keep();
        let retired: u64 = st.retired_wal_bytes.range(floor..).map(|(_, b)| b).sum();
        retired + st.wal.as_ref().map_or(0, crate::wal::LogWriter::len)
    }

    /// Protocol step 2.
    fn checkpoint_cut(&self) -> Result<Cut> {
        let mut st = self.state.lock();
        self.check_open()?;
        // No MANIFEST change in flight either: its edit may already be in the file while the
        // current versions, whose tables the cut links, do not have it yet.
        if st.versions.apply_in_flight() {
            self.info_log
                .info("checkpoint: waiting for the MANIFEST change in flight to be installed");
        }
        while st.leader_active || st.versions.apply_in_flight() {
            self.cond.wait(&mut st);
        }
        if let Some(why) = &st.poisoned {
            return Err(Error::Poisoned(why.clone()));
        }
        let live_wal = st.wal_number;
        let live_len = match st.wal.as_mut() {
            Some(w) => {
                w.flush()?;
                w.len()
            }
            None => return Err(Error::Closed),
        };
        let mut tables = Vec::new();
        for &id in st.cfs.keys() {
            if let Some(v) = st.versions.current(id) {
                tables.extend(v.all_files().map(|(_, f)| (f.number, f.size)));
            }
        }
        let manifest_number = st.versions.manifest_number();
        let manifest_path = self.dir.join(manifest_file_name(manifest_number));
        let manifest_len = match st.versions.manifest_size() {
            0 => self.fs.size(&manifest_path)?,
            n => n,
        };
        let min_log = st.versions.min_log_number_to_keep();
        let prev_log = st.versions.prev_log_number();
        let mut wals = Vec::new();
        for name in self.fs.list(&self.dir)? {
            if let Some((FileType::Log, n)) = parse_file_name(&name) {
                if n == live_wal {
                    wals.push((n, live_len));
                } else if (n >= min_log || n == prev_log) && n < live_wal {
                    wals.push((n, self.fs.size(&self.dir.join(&name))?));
                }
            }
        }
        wals.sort_unstable();
        Ok(Cut {
            tables,
            wals,
            manifest: (manifest_number, manifest_len),
            options_number: options_file_numbers(&*self.fs, &self.dir)?.last().copied(),
            sequence: self.last_sequence.load(),
        })
    }

    /// Protocol step 3, into `tmp`.
    fn write_checkpoint(&self, cut: &Cut, tmp: &Path) -> Result<CheckpointReport> {
        let fs = &*self.fs;
        fs.create_dir_all(tmp)?;
        let mut report = CheckpointReport {
            sequence: cut.sequence,
            ..CheckpointReport::default()
        };
        for &(number, size) in &cut.tables {
            let name = table_file_name(number);
            let (from, to) = (self.dir.join(&name), tmp.join(&name));
            if fs.link(&from, &to).is_ok() {
                report.tables_linked += 1;
            } else {
                copy_prefix(fs, &from, &to, size)?;
                report.tables_copied += 1;
                report.bytes_copied += size;
            }
        }
        for &(number, len) in &cut.wals {
            let name = log_file_name(number);
            copy_prefix(fs, &self.dir.join(&name), &tmp.join(&name), len)?;
            report.wals_copied += 1;
            report.bytes_copied += len;
        }
        let (m, len) = cut.manifest;
        let name = manifest_file_name(m);
        copy_prefix(fs, &self.dir.join(&name), &tmp.join(&name), len)?;
        report.bytes_copied += len;
        self.options_file()
            .write(fs, tmp, cut.options_number.unwrap_or(m + 1))?;
        set_current(fs, tmp, m)?;
        fs.sync_dir(tmp)?;
        Ok(report)
    }
}

/// Copies the first `len` bytes of `from` to a new file `to`, synced.
pub(super) fn copy_prefix(fs: &dyn FileSystem, from: &Path, to: &Path, len: u64) -> Result<()> {
    const CHUNK: u64 = 1 << 20;
    let src = fs.open_read(from)?;
    let available = src.size()?;
    if available < len {
        return Err(Error::InvalidArgument(format!(
            "{} has {available} bytes, fewer than the {len} the checkpoint needs",
            from.display()
        )));
    }
    let mut dst = fs.create(to)?;
    let mut buf = vec![0u8; CHUNK.min(len.max(1)) as usize];
    let mut offset = 0;
    while offset < len {
        let n = CHUNK.min(len - offset) as usize;
        src.read_exact_at(offset, &mut buf[..n])?;
        dst.append(&buf[..n])?;
        offset += n as u64;
    }
    dst.flush()?;
    dst.sync()
}

/// Removes `dir` and the files in it (best effort).
fn remove_tree(fs: &dyn FileSystem, dir: &Path) {
    if let Ok(names) = fs.list(dir) {
        for n in names {
            let _ = fs.remove(&dir.join(n));
        }
    }
    let _ = fs.remove_dir(dir);
}
