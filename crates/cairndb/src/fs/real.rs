//! The operating system's file system. The only place in the engine that calls `std::fs`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{AccessPattern, FileLock, FileSyncer, FileSystem, RandomAccessFile, WritableFile};
use crate::error::{Error, Result};

/// User-space buffer of a writable file: appends smaller than this are coalesced into one write.
const WRITE_BUFFER_BYTES: usize = 64 * 1024;

/// The real file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct RealFs;

impl RealFs {
    /// A handle on the real file system.
    pub fn new() -> Self {
        RealFs
    }

    /// A shared handle, the form the engine takes.
    pub fn shared() -> Arc<dyn FileSystem> {
        Arc::new(RealFs)
    }
}

fn io_err<'a>(op: &'static str, path: &'a Path) -> impl FnOnce(io::Error) -> Error + 'a {
    move |e| Error::io(op, path, e)
}

fn check_rc(op: &'static str, path: &Path, rc: libc::c_int) -> Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(Error::io(op, path, io::Error::last_os_error()))
    }
}

/// [`FileSyncer`] of a [`RealWritable`]: a duplicate of its descriptor.
#[derive(Debug)]
struct RealSyncer {
    path: PathBuf,
    file: File,
}

impl FileSyncer for RealSyncer {
    fn sync_data(&self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(io_err("sync_data", &self.path))
    }
}

#[derive(Debug)]
struct RealWritable {
    path: PathBuf,
    file: File,
    buf: Vec<u8>,
    /// Bytes handed to the OS so far.
    written: u64,
}

impl RealWritable {
    fn new(path: &Path, file: File, written: u64) -> Self {
        RealWritable {
            path: path.to_path_buf(),
            file,
            buf: Vec::with_capacity(WRITE_BUFFER_BYTES),
            written,
        }
    }
}

impl WritableFile for RealWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if self.buf.len() + data.len() > WRITE_BUFFER_BYTES {
            self.flush()?;
        }
        if data.len() >= WRITE_BUFFER_BYTES {
            // Large requests go straight to the OS without a copy.
            self.file
                .write_all(data)
                .map_err(io_err("append", &self.path))?;
            self.written += data.len() as u64;
        } else {
            self.buf.extend_from_slice(data);
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            let r = self
                .file
                .write_all(&self.buf)
                .map_err(io_err("append", &self.path));
            // On error the file may hold a prefix of the buffer; the caller treats the file as
            // failed (the WAL poisons the database), so the buffer is not replayed.
            self.written += self.buf.len() as u64;
            self.buf.clear();
            r?;
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        self.flush()?;
        self.file.sync_all().map_err(io_err("sync", &self.path))
    }

    fn sync_data(&mut self) -> Result<()> {
        self.flush()?;
        self.file
            .sync_data()
            .map_err(io_err("sync_data", &self.path))
    }

    fn write_behind(&mut self, offset: u64, len: u64) -> Result<()> {
        #[cfg(target_os = "linux")]
        {
            let (Ok(off), Ok(n)) = (i64::try_from(offset), i64::try_from(len)) else {
                return Ok(());
            };
            // SAFETY: the descriptor is owned by `self.file` and open for the duration of the call;
            // sync_file_range reads no memory of ours.
            let rc = unsafe {
                libc::sync_file_range(self.file.as_raw_fd(), off, n, libc::SYNC_FILE_RANGE_WRITE)
            };
            check_rc("write_behind", &self.path, rc)?;
        }
        let _ = (offset, len);
        Ok(())
    }

    fn len(&self) -> u64 {
        self.written + self.buf.len() as u64
    }

    fn syncer(&self) -> Option<Arc<dyn FileSyncer>> {
        // A second descriptor of the same open file: fdatasync on it syncs the file.
        let file = self.file.try_clone().ok()?;
        Some(Arc::new(RealSyncer {
            path: self.path.clone(),
            file,
        }))
    }
}

impl Drop for RealWritable {
    fn drop(&mut self) {
        // Buffered bytes are handed to the OS so that dropping a file loses nothing a process crash
        // would not also lose. Errors cannot be reported here; callers that care flush or sync.
        let _ = self.flush();
    }
}

#[derive(Debug)]
struct RealRandom {
    path: PathBuf,
    file: File,
}

impl RandomAccessFile for RealRandom {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.file
            .read_exact_at(buf, offset)
            .map_err(io_err("read", &self.path))
    }

    fn size(&self) -> Result<u64> {
        Ok(self
            .file
            .metadata()
            .map_err(io_err("stat", &self.path))?
            .len())
    }

    fn advise(&self, pattern: AccessPattern) -> Result<()> {
        let advice = match pattern {
            AccessPattern::Random => libc::POSIX_FADV_RANDOM,
            AccessPattern::Sequential => libc::POSIX_FADV_SEQUENTIAL,
            AccessPattern::DontNeed => libc::POSIX_FADV_DONTNEED,
        };
        // SAFETY: valid descriptor owned by `self.file`; no memory is passed.
        let rc = unsafe { libc::posix_fadvise(self.file.as_raw_fd(), 0, 0, advice) };
        if rc != 0 {
            return Err(Error::io(
                "fadvise",
                &self.path,
                io::Error::from_raw_os_error(rc),
            ));
        }
        Ok(())
    }

    fn readahead(&self, offset: u64, len: u64) -> Result<()> {
        let (Ok(off), Ok(n)) = (i64::try_from(offset), i64::try_from(len)) else {
            return Ok(());
        };
        // SAFETY: valid descriptor owned by `self.file`; no memory is passed.
        let rc = unsafe {
            libc::posix_fadvise(self.file.as_raw_fd(), off, n, libc::POSIX_FADV_WILLNEED)
        };
        if rc != 0 {
            return Err(Error::io(
                "readahead",
                &self.path,
                io::Error::from_raw_os_error(rc),
            ));
        }
        Ok(())
    }
}

/// The lock files this process holds, by device and inode. A POSIX record lock belongs to the
/// process, so a second lock of the same file from this process would succeed; this set makes
/// it fail as a lock held by another process does (RocksDB's `locked_files`).
static LOCKED_FILES: std::sync::Mutex<Vec<(u64, u64)>> = std::sync::Mutex::new(Vec::new());

/// A lock held through a POSIX record lock (`fcntl(F_SETLK)`) on the whole file, as RocksDB's
/// `PosixEnv::LockFile` takes it. Unlike `flock(2)`, a record lock is not inherited by a forked
/// child: a program that spawns a process while it closes a database does not keep the
/// database locked through the child. Dropping it closes the descriptor, which releases the
/// lock, and only then leaves the process's set, so a new lock of the file never shares a
/// moment with the old descriptor (closing any descriptor of a file releases every record lock
/// the process holds on it).
#[derive(Debug)]
struct RealLock {
    file: Option<File>,
    /// Device and inode, the key in [`LOCKED_FILES`].
    id: (u64, u64),
}

impl FileLock for RealLock {}

impl Drop for RealLock {
    fn drop(&mut self) {
        drop(self.file.take());
        let mut locked = LOCKED_FILES.lock().unwrap_or_else(|p| p.into_inner());
        locked.retain(|id| *id != self.id);
    }
}

impl FileSystem for RealFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let file = File::create(path).map_err(io_err("create", path))?;
        Ok(Box::new(RealWritable::new(path, file, 0)))
    }

    fn open_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(io_err("open", path))?;
        let len = file.metadata().map_err(io_err("stat", path))?.len();
        Ok(Box::new(RealWritable::new(path, file, len)))
    }

    fn open_overwrite(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io_err("open", path))?;
        Ok(Box::new(RealWritable::new(path, file, 0)))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let file = File::open(path).map_err(io_err("open", path))?;
        Ok(Arc::new(RealRandom {
            path: path.to_path_buf(),
            file,
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        std::fs::rename(from, to).map_err(io_err("rename", from))
    }

    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        std::fs::hard_link(from, to).map_err(io_err("link", from))
    }

    fn remove(&self, path: &Path) -> Result<()> {
        std::fs::remove_file(path).map_err(io_err("remove", path))
    }

    fn remove_dir(&self, path: &Path) -> Result<()> {
        std::fs::remove_dir(path).map_err(io_err("remove_dir", path))
    }

    fn create_dir_all(&self, path: &Path) -> Result<()> {
        std::fs::create_dir_all(path).map_err(io_err("create_dir", path))
    }

    fn list(&self, path: &Path) -> Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(path).map_err(io_err("list", path))? {
            let entry = entry.map_err(io_err("list", path))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        Ok(names)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        path.try_exists().map_err(io_err("stat", path))
    }

    fn size(&self, path: &Path) -> Result<u64> {
        Ok(std::fs::metadata(path).map_err(io_err("stat", path))?.len())
    }

    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        let f = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(io_err("open", path))?;
        f.set_len(len).map_err(io_err("truncate", path))?;
        f.sync_all().map_err(io_err("sync", path))
    }

    fn sync_dir(&self, path: &Path) -> Result<()> {
        let dir = File::open(path).map_err(io_err("open_dir", path))?;
        dir.sync_all().map_err(io_err("sync_dir", path))
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        // Files are known by device and inode, so that another name of the same file (a link,
        // a bind mount) is the same lock. The set is checked before the file is opened: a
        // descriptor of a file this process holds a record lock on must not be closed, since
        // closing it releases that lock.
        let mut locked = LOCKED_FILES.lock().unwrap_or_else(|p| p.into_inner());
        match std::fs::metadata(path) {
            Ok(m) if locked.contains(&(m.dev(), m.ino())) => {
                return Err(Error::lock_held(
                    path,
                    "lock held by this process (another open handle of the database)",
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("lock", path, e)),
        }
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(io_err("lock", path))?;
        let meta = file.metadata().map_err(io_err("lock", path))?;
        let id = (meta.dev(), meta.ino());
        if locked.contains(&id) {
            // Created or renamed into place since the check, by this process, as a name of a
            // file it holds locked: closing this descriptor would release that lock.
            std::mem::forget(file);
            return Err(Error::lock_held(
                path,
                "lock held by this process (another open handle of the database)",
            ));
        }
        // SAFETY: an all-zero `flock` is a valid value of the C struct; the fields that matter
        // are set below. fcntl reads the struct only for the call's duration.
        let mut request: libc::flock = unsafe { std::mem::zeroed() };
        request.l_type = libc::F_WRLCK as libc::c_short;
        request.l_whence = libc::SEEK_SET as libc::c_short;
        request.l_start = 0;
        request.l_len = 0;
        // SAFETY: valid descriptor owned by `file`; `request` outlives the call.
        let rc = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &request) };
        if rc != 0 {
            let e = io::Error::last_os_error();
            if matches!(e.raw_os_error(), Some(libc::EACCES | libc::EAGAIN)) {
                return Err(Error::lock_held(
                    path,
                    "Resource temporarily unavailable (held by another process)",
                ));
            }
            return Err(Error::io("lock", path, e));
        }
        locked.push(id);
        Ok(Box::new(RealLock {
            file: Some(file),
            id,
        }))
    }
}
