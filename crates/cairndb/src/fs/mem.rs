//! An in-memory file system that also records what is durable.
//!
//! Files are inodes (shared byte vectors) reachable through names in directories. Besides the live
//! state, the file system records for every inode how many bytes were synced, and for every
//! directory the entries as they were at its last `sync_dir`. [`CrashFs`](super::CrashFs) uses
//! those records to build the state a power cut leaves; plain users ignore them.
//!
//! Invariants:
//! 1. `synced_len <= data.len()` for every inode, except after a truncate below the synced length,
//!    which moves `synced_len` down with it.
//! 3. An inode being overwritten from its start ([`FileSystem::open_overwrite`]) keeps the
//!    durable bytes it had when the overwrite began (`Overwrite::stale`): its durable contents
//!    are `data[..synced_len]` followed by `stale[synced_len..]`, and `synced_len` never passes
//!    the end of what the overwrite wrote.
//! 2. A directory's durable entries only name inodes that exist in `inodes`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::{AccessPattern, FileLock, FileSyncer, FileSystem, RandomAccessFile, WritableFile};
use crate::error::{Error, Result};

pub(super) type InodeId = u64;

#[derive(Debug, Default, Clone)]
pub(super) struct Inode {
    pub(super) data: Vec<u8>,
    /// Bytes made durable by a sync (a prefix of `data`).
    pub(super) synced_len: usize,
    /// Set while the file is overwritten from its start (invariant 3).
    pub(super) overwrite: Option<Overwrite>,
}

/// An overwrite in progress (invariant 3).
#[derive(Debug, Clone)]
pub(super) struct Overwrite {
    /// The durable bytes of the file when the overwrite began: what a power cut shows past
    /// the synced part of the new bytes.
    pub(super) stale: Vec<u8>,
    /// Bytes written from the start so far; `data` past them holds the old bytes.
    pub(super) written: usize,
}

impl Inode {
    /// A sync: everything written so far is durable.
    fn sync(&mut self) {
        self.synced_len = match &self.overwrite {
            Some(o) => o.written,
            None => self.data.len(),
        };
    }

    /// Writes `bytes`: appended, or over the old bytes at the overwrite's position.
    fn write(&mut self, bytes: &[u8]) {
        let Some(o) = self.overwrite.as_mut() else {
            self.data.extend_from_slice(bytes);
            return;
        };
        let end = o.written + bytes.len();
        if self.data.len() < end {
            self.data.resize(end, 0);
        }
        self.data[o.written..end].copy_from_slice(bytes);
        o.written = end;
    }
}

/// Shared state of a [`MemFs`]; [`CrashFs`](super::CrashFs) reads it directly.
#[derive(Debug, Default)]
pub(super) struct MemState {
    pub(super) inodes: HashMap<InodeId, Inode>,
    pub(super) next_inode: InodeId,
    /// Live directory entries: directory path -> (name -> inode).
    pub(super) dirs: BTreeMap<PathBuf, BTreeMap<String, InodeId>>,
    /// Durable directory entries as of each directory's last `sync_dir`. A directory that was
    /// never synced has durable entries only if it is present here.
    pub(super) durable_dirs: BTreeMap<PathBuf, BTreeMap<String, InodeId>>,
    pub(super) locks: BTreeSet<PathBuf>,
}

impl MemState {
    fn split(path: &Path) -> Result<(PathBuf, String)> {
        let name = path.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
            Error::io(
                "resolve",
                path,
                io::Error::new(io::ErrorKind::InvalidInput, "no file name"),
            )
        })?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok((dir, name.to_string()))
    }

    fn lookup(&self, path: &Path, op: &'static str) -> Result<InodeId> {
        let (dir, name) = Self::split(path)?;
        self.dirs
            .get(&dir)
            .and_then(|d| d.get(&name))
            .copied()
            .ok_or_else(|| Error::io(op, path, io::Error::from(io::ErrorKind::NotFound)))
    }

    fn dir_mut(
        &mut self,
        dir: &Path,
        op: &'static str,
        path: &Path,
    ) -> Result<&mut BTreeMap<String, InodeId>> {
        self.dirs
            .get_mut(dir)
            .ok_or_else(|| Error::io(op, path, io::Error::from(io::ErrorKind::NotFound)))
    }

    fn create_file(&mut self, path: &Path) -> Result<InodeId> {
        let (dir, name) = Self::split(path)?;
        let id = self.next_inode;
        self.dir_mut(&dir, "create", path)?.insert(name, id);
        self.next_inode += 1;
        self.inodes.insert(id, Inode::default());
        Ok(id)
    }

    /// Drops inodes that no live or durable entry names any more.
    fn collect_garbage(&mut self) {
        let live: BTreeSet<InodeId> = self
            .dirs
            .values()
            .chain(self.durable_dirs.values())
            .flat_map(|d| d.values().copied())
            .collect();
        self.inodes.retain(|id, _| live.contains(id));
    }

    fn inode(&mut self, id: InodeId) -> &mut Inode {
        self.inodes.get_mut(&id).expect("a named inode exists")
    }
}

/// An in-memory file system; clones share the same files.
#[derive(Debug, Clone, Default)]
pub struct MemFs {
    pub(super) state: Arc<Mutex<MemState>>,
}

impl MemFs {
    /// An empty file system with the root directory `/` (and `.` for relative paths).
    pub fn new() -> Self {
        let fs = MemFs::default();
        {
            let mut s = fs.state.lock();
            for root in ["/", "", "."] {
                s.dirs.insert(PathBuf::from(root), BTreeMap::new());
                s.durable_dirs.insert(PathBuf::from(root), BTreeMap::new());
            }
        }
        fs
    }

    /// A shared handle, the form the engine takes.
    pub fn shared(&self) -> Arc<dyn FileSystem> {
        Arc::new(self.clone())
    }

    /// Builds a file system from given state (used by crash clones).
    pub(super) fn from_state(state: MemState) -> Self {
        MemFs {
            state: Arc::new(Mutex::new(state)),
        }
    }

    /// Overwrites the byte at `offset` of `path` with `f(byte)`, as damage would. For tests.
    pub fn corrupt_byte(&self, path: &Path, offset: u64, f: impl FnOnce(u8) -> u8) -> Result<()> {
        let mut s = self.state.lock();
        let id = s.lookup(path, "corrupt")?;
        let inode = s.inode(id);
        let b = usize::try_from(offset)
            .ok()
            .and_then(|o| inode.data.get_mut(o))
            .ok_or_else(|| {
                Error::io(
                    "corrupt",
                    path,
                    io::Error::from(io::ErrorKind::UnexpectedEof),
                )
            })?;
        *b = f(*b);
        Ok(())
    }
}

#[derive(Debug)]
struct MemWritable {
    state: Arc<Mutex<MemState>>,
    inode: InodeId,
    len: u64,
}

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let mut s = self.state.lock();
        if let Some(inode) = s.inodes.get_mut(&self.inode) {
            inode.write(data);
        }
        self.len += data.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        let mut s = self.state.lock();
        if let Some(inode) = s.inodes.get_mut(&self.inode) {
            inode.sync();
        }
        Ok(())
    }

    fn sync_data(&mut self) -> Result<()> {
        self.sync()
    }

    fn write_behind(&mut self, _offset: u64, _len: u64) -> Result<()> {
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn syncer(&self) -> Option<Arc<dyn FileSyncer>> {
        Some(Arc::new(MemSyncer {
            state: Arc::clone(&self.state),
            inode: self.inode,
        }))
    }
}

/// [`FileSyncer`] of a [`MemWritable`]: appends reach the inode at once, so a sync makes
/// everything appended so far durable.
#[derive(Debug)]
struct MemSyncer {
    state: Arc<Mutex<MemState>>,
    inode: InodeId,
}

impl FileSyncer for MemSyncer {
    fn sync_data(&self) -> Result<()> {
        let mut s = self.state.lock();
        if let Some(inode) = s.inodes.get_mut(&self.inode) {
            inode.sync();
        }
        Ok(())
    }
}

#[derive(Debug)]
struct MemRandom {
    state: Arc<Mutex<MemState>>,
    inode: InodeId,
    path: PathBuf,
}

impl RandomAccessFile for MemRandom {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let s = self.state.lock();
        let data = s
            .inodes
            .get(&self.inode)
            .map(|i| &i.data[..])
            .unwrap_or(&[]);
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        match start
            .checked_add(buf.len())
            .and_then(|end| data.get(start..end))
        {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(Error::io(
                "read",
                &self.path,
                io::Error::from(io::ErrorKind::UnexpectedEof),
            )),
        }
    }

    fn size(&self) -> Result<u64> {
        let s = self.state.lock();
        Ok(s.inodes.get(&self.inode).map_or(0, |i| i.data.len() as u64))
    }

    fn advise(&self, _pattern: AccessPattern) -> Result<()> {
        Ok(())
    }

    fn readahead(&self, _offset: u64, _len: u64) -> Result<()> {
        Ok(())
    }
}

#[derive(Debug)]
struct MemLock {
    state: Arc<Mutex<MemState>>,
    path: PathBuf,
}

impl FileLock for MemLock {}

impl Drop for MemLock {
    fn drop(&mut self) {
        self.state.lock().locks.remove(&self.path);
    }
}

impl FileSystem for MemFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let mut s = self.state.lock();
        let inode = s.create_file(path)?;
        s.collect_garbage();
        Ok(Box::new(MemWritable {
            state: self.state.clone(),
            inode,
            len: 0,
        }))
    }

    fn open_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let mut s = self.state.lock();
        let inode = s.lookup(path, "open")?;
        let len = s.inode(inode).data.len() as u64;
        Ok(Box::new(MemWritable {
            state: self.state.clone(),
            inode,
            len,
        }))
    }

    fn open_overwrite(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let mut s = self.state.lock();
        let id = s.lookup(path, "open")?;
        let inode = s.inode(id);
        // The bytes durable now stay what a power cut shows past the new synced ones.
        let durable = match inode.overwrite.take() {
            Some(o) => {
                let mut d = inode.data[..inode.synced_len].to_vec();
                d.extend_from_slice(o.stale.get(inode.synced_len..).unwrap_or_default());
                d
            }
            None => inode.data[..inode.synced_len.min(inode.data.len())].to_vec(),
        };
        inode.overwrite = Some(Overwrite {
            stale: durable,
            written: 0,
        });
        inode.synced_len = 0;
        Ok(Box::new(MemWritable {
            state: self.state.clone(),
            inode: id,
            len: 0,
        }))
    }

    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let s = self.state.lock();
        let inode = s.lookup(path, "open")?;
        Ok(Arc::new(MemRandom {
            state: self.state.clone(),
            inode,
            path: path.to_path_buf(),
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        let mut s = self.state.lock();
        let inode = s.lookup(from, "rename")?;
        let (from_dir, from_name) = MemState::split(from)?;
        let (to_dir, to_name) = MemState::split(to)?;
        s.dir_mut(&to_dir, "rename", to)?;
        s.dir_mut(&from_dir, "rename", from)?.remove(&from_name);
        s.dir_mut(&to_dir, "rename", to)?.insert(to_name, inode);
        s.collect_garbage();
        Ok(())
    }

    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        let mut s = self.state.lock();
        let inode = s.lookup(from, "link")?;
        let (to_dir, to_name) = MemState::split(to)?;
        let dir = s.dir_mut(&to_dir, "link", to)?;
        if dir.contains_key(&to_name) {
            return Err(Error::io(
                "link",
                to,
                io::Error::from(io::ErrorKind::AlreadyExists),
            ));
        }
        dir.insert(to_name, inode);
        Ok(())
    }

    fn remove(&self, path: &Path) -> Result<()> {
        let mut s = self.state.lock();
        s.lookup(path, "remove")?;
        let (dir, name) = MemState::split(path)?;
        s.dir_mut(&dir, "remove", path)?.remove(&name);
        s.collect_garbage();
        Ok(())
    }

    fn remove_dir(&self, path: &Path) -> Result<()> {
        let mut s = self.state.lock();
        match s.dirs.get(path) {
            None => Err(Error::io(
                "remove_dir",
                path,
                io::Error::from(io::ErrorKind::NotFound),
            )),
            Some(d) if !d.is_empty() => Err(Error::io(
                "remove_dir",
                path,
                io::Error::other("directory not empty"),
            )),
            Some(_) => {
                s.dirs.remove(path);
                Ok(())
            }
        }
    }

    fn create_dir_all(&self, path: &Path) -> Result<()> {
        let mut s = self.state.lock();
        for p in path.ancestors() {
            if s.lookup(p, "create_dir").is_ok() {
                return Err(Error::io(
                    "create_dir",
                    path,
                    io::Error::new(io::ErrorKind::AlreadyExists, "a file is in the way"),
                ));
            }
            s.dirs.entry(p.to_path_buf()).or_default();
        }
        Ok(())
    }

    fn list(&self, path: &Path) -> Result<Vec<String>> {
        let s = self.state.lock();
        let dir = s
            .dirs
            .get(path)
            .ok_or_else(|| Error::io("list", path, io::Error::from(io::ErrorKind::NotFound)))?;
        let mut names: Vec<String> = dir.keys().cloned().collect();
        // Subdirectories are entries too.
        names.extend(
            s.dirs
                .keys()
                .filter(|p| p.parent() == Some(path) && p.as_path() != path)
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())),
        );
        Ok(names)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        let s = self.state.lock();
        Ok(s.dirs.contains_key(path) || s.lookup(path, "stat").is_ok())
    }

    fn size(&self, path: &Path) -> Result<u64> {
        let mut s = self.state.lock();
        let id = s.lookup(path, "stat")?;
        Ok(s.inode(id).data.len() as u64)
    }

    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        let mut s = self.state.lock();
        let id = s.lookup(path, "truncate")?;
        let len = usize::try_from(len).map_err(|_| {
            Error::io(
                "truncate",
                path,
                io::Error::new(io::ErrorKind::InvalidInput, "too long"),
            )
        })?;
        let inode = s.inode(id);
        inode.data.resize(len, 0);
        // Truncate is followed by a sync in the real implementation.
        inode.synced_len = len;
        inode.overwrite = None;
        Ok(())
    }

    fn sync_dir(&self, path: &Path) -> Result<()> {
        let mut s = self.state.lock();
        let entries =
            s.dirs.get(path).cloned().ok_or_else(|| {
                Error::io("sync_dir", path, io::Error::from(io::ErrorKind::NotFound))
            })?;
        s.durable_dirs.insert(path.to_path_buf(), entries);
        s.collect_garbage();
        Ok(())
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        let mut s = self.state.lock();
        if s.lookup(path, "lock").is_err() {
            s.create_file(path)?;
        }
        if !s.locks.insert(path.to_path_buf()) {
            return Err(Error::lock_held(path, "locked by another handle"));
        }
        Ok(Box::new(MemLock {
            state: self.state.clone(),
            path: path.to_path_buf(),
        }))
    }
}
