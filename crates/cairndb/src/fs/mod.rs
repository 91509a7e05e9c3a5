//! The file-system layer. Every file and directory operation of the engine goes through
//! [`FileSystem`]; nothing else in the crate touches `std::fs`.
//!
//! Implementations:
//! - [`RealFs`]: the operating system's file system, with write-behind (`sync_file_range`),
//!   readahead hints (`posix_fadvise`) and `flock`-based lock files.
//! - [`MemFs`]: in memory, for tests and fuzzing.
//! - [`FaultFs`]: wraps another file system and injects EIO/ENOSPC or silently corrupted reads by
//!   operation kind, path pattern, probability, or exactly at the k-th operation.
//! - [`CrashFs`]: in memory, tracking what is durable; [`CrashFs::crash_clone`] returns the state a
//!   power cut would leave (synced bytes and synced directory entries, optionally plus a random part
//!   of what was not synced and torn tails).
//!
//! Contract shared by all implementations:
//! 1. Paths are absolute or relative paths as given; implementations do not canonicalize.
//! 2. [`WritableFile::append`] may buffer in user space; [`WritableFile::flush`] hands the bytes to
//!    the OS (they then survive a process crash); [`WritableFile::sync`] makes them durable (they
//!    then survive a power cut). Data is durable only after `sync`; a new or renamed *name* is durable
//!    only after [`FileSystem::sync_dir`] on its parent.
//! 3. Every error is an [`Error::Io`](crate::Error::Io) naming the operation and the path.
//! 4. Handles are `Send`; read handles are `Sync` and may be shared between threads.
//! 5. A [`FileSyncer`] taken from a writable file syncs it from another thread while the
//!    owner keeps appending: it makes durable at least every byte the owner had flushed before
//!    the call (a sync in flight covers what was flushed when it started, nothing promised
//!    after). Its errors follow contract 3; a failed sync is not retried by anyone.

mod crash;
mod fault;
mod mem;
mod real;

use std::fmt::Debug;
use std::path::Path;
use std::sync::Arc;

pub use crash::{CrashFs, CrashOptions};
pub use fault::{FaultFs, FaultKind, FaultRule, OpKind};
pub use mem::MemFs;
pub use real::RealFs;

use crate::error::Result;

/// How a file will be read, so the implementation can set readahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessPattern {
    /// Point lookups: no readahead.
    Random,
    /// Scans and compaction inputs: read ahead aggressively.
    Sequential,
    /// The pages will not be needed again soon (drop them from the page cache).
    DontNeed,
}

/// A file opened for appending.
pub trait WritableFile: Send + Debug {
    /// Appends `data`. May buffer in user space until [`flush`](Self::flush) or a sync.
    fn append(&mut self, data: &[u8]) -> Result<()>;
    /// Hands buffered bytes to the operating system (they survive a process crash).
    fn flush(&mut self) -> Result<()>;
    /// Flushes and makes data and metadata durable (fsync).
    fn sync(&mut self) -> Result<()>;
    /// Flushes and makes the data durable (fdatasync); the size is durable too when it changed.
    fn sync_data(&mut self) -> Result<()>;
    /// Starts asynchronous write-back of the byte range `[offset, offset + len)` without waiting,
    /// so that a later sync has little left to do (`sync_file_range` write-behind). Implementations
    /// without such a call do nothing. It gives no durability guarantee.
    fn write_behind(&mut self, offset: u64, len: u64) -> Result<()>;
    /// Bytes appended so far, buffered or not.
    fn len(&self) -> u64;
    /// A handle that syncs this file's data from any thread (contract 5), or `None` when the
    /// file can be synced only through itself.
    fn syncer(&self) -> Option<Arc<dyn FileSyncer>> {
        None
    }
    /// True when nothing was appended.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Syncs one writable file's data from any thread (contract 5).
pub trait FileSyncer: Send + Sync + Debug {
    /// Makes durable every byte handed to the OS before the call (fdatasync; the size too).
    fn sync_data(&self) -> Result<()>;
}

/// A file opened for positional reads; shareable between threads.
pub trait RandomAccessFile: Send + Sync + Debug {
    /// Reads exactly `buf.len()` bytes at `offset`. Reading past the end is an error of kind
    /// `UnexpectedEof`.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
    /// The file's size now.
    fn size(&self) -> Result<u64>;
    /// Advises the OS how the file will be read. Implementations without hints do nothing.
    fn advise(&self, pattern: AccessPattern) -> Result<()>;
    /// Asks the OS to read `[offset, offset + len)` into the page cache ahead of use.
    fn readahead(&self, offset: u64, len: u64) -> Result<()>;
}

/// A held exclusive lock on a file; released when dropped.
pub trait FileLock: Send + Sync + Debug {}

/// Every file and directory operation the engine needs.
pub trait FileSystem: Send + Sync + Debug + 'static {
    /// Creates `path` (truncating an existing file) for appending.
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>>;
    /// Opens an existing `path` for appending at its end (used to reuse a WAL or append to a log).
    fn open_append(&self, path: &Path) -> Result<Box<dyn WritableFile>>;
    /// Opens an existing `path` for writing from its start without truncating it (a recycled
    /// WAL, RocksDB's `ReuseWritableFile`): appends overwrite the old bytes in order, and the
    /// bytes past the last one written keep their old contents. Overwriting within the file's
    /// size changes no metadata, so a data sync has less to write than one that grows a file.
    fn open_overwrite(&self, path: &Path) -> Result<Box<dyn WritableFile>>;
    /// Opens `path` for positional reads.
    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>>;
    /// Renames `from` to `to`, replacing `to` atomically if it exists.
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;
    /// Makes `to` a second name of the file `from` (a hard link). Not every implementation has links;
    /// those return an error of kind `Unsupported`.
    fn link(&self, from: &Path, to: &Path) -> Result<()>;
    /// Removes the file `path`.
    fn remove(&self, path: &Path) -> Result<()>;
    /// Removes the empty directory `path`.
    fn remove_dir(&self, path: &Path) -> Result<()>;
    /// Creates `path` and any missing parents; an existing directory is fine.
    fn create_dir_all(&self, path: &Path) -> Result<()>;
    /// The names (not paths) of the entries of directory `path`, in no particular order.
    fn list(&self, path: &Path) -> Result<Vec<String>>;
    /// True when `path` names an existing file or directory.
    fn exists(&self, path: &Path) -> Result<bool>;
    /// The size of the file `path`.
    fn size(&self, path: &Path) -> Result<u64>;
    /// Shortens or extends the file `path` to `len` bytes.
    fn truncate(&self, path: &Path, len: u64) -> Result<()>;
    /// Makes the directory's entries (creations, renames, removals) durable.
    fn sync_dir(&self, path: &Path) -> Result<()>;
    /// Takes an exclusive lock on `path` (creating it), failing at once with
    /// [`Error::lock_held`](crate::Error::lock_held) (an I/O error, as in RocksDB) if another
    /// handle, in this process or another, holds it.
    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>>;
}

/// Reads a whole file into memory. For small files (CURRENT, OPTIONS, MANIFEST in tools).
pub fn read_all(fs: &dyn FileSystem, path: &Path) -> Result<Vec<u8>> {
    let f = fs.open_read(path)?;
    let n = f.size()?;
    let n = usize::try_from(n).map_err(|_| {
        crate::Error::InvalidArgument(format!("{} is too large to read whole", path.display()))
    })?;
    let mut buf = vec![0; n];
    f.read_exact_at(0, &mut buf)?;
    Ok(buf)
}

/// Writes `data` to `path` so that afterwards either the old content or the new one is there, never
/// a mix: write a temporary file, sync it, rename it over `path`, sync the directory.
/// Used for CURRENT; see docs/format/manifest.md.
pub fn write_atomic(fs: &dyn FileSystem, path: &Path, data: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(".dbtmp");
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = fs.create(&tmp)?;
        f.append(data)?;
        f.sync()?;
        drop(f);
        fs.rename(&tmp, path)?;
        fs.sync_dir(dir)
    })();
    if result.is_err() {
        // Best effort: a stale temporary file is harmless, recovery ignores it.
        let _ = fs.remove(&tmp);
    }
    result
}

#[cfg(test)]
mod tests;
