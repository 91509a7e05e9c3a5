//! Error injection: a wrapper that makes chosen operations fail, or reads return damaged bytes.
//!
//! A [`FaultRule`] selects operations by kind and path substring and fires either with a
//! probability or exactly at the k-th operation it matches. A *sticky* rule keeps failing every
//! matching operation after it first fires, which is how a process death is simulated (together
//! with [`CrashFs`](super::CrashFs)). Every injection is counted, so a test can check that each
//! injected fault was reported to the caller.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::{AccessPattern, FileLock, FileSyncer, FileSystem, RandomAccessFile, WritableFile};
use crate::error::{Error, Result};

/// The operations a rule can select.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// `create`, `open_append`, `open_overwrite`.
    Create,
    /// `open_read`.
    Open,
    /// `append` and `flush` of a writable file.
    Write,
    /// `sync` and `sync_data` of a writable file.
    Sync,
    /// `read_exact_at`.
    Read,
    /// `rename` and `link`.
    Rename,
    /// `remove` and `remove_dir`.
    Remove,
    /// `sync_dir`.
    SyncDir,
    /// `truncate`.
    Truncate,
    /// `create_dir_all`, `list`, `exists`, `size`, `lock`, hints.
    Metadata,
}

impl OpKind {
    /// True for operations that change persisted state (the ones a crash can interrupt).
    pub fn is_mutating(self) -> bool {
        matches!(
            self,
            OpKind::Create
                | OpKind::Write
                | OpKind::Sync
                | OpKind::Rename
                | OpKind::Remove
                | OpKind::SyncDir
                | OpKind::Truncate
        )
    }
}

/// What an injected fault does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// The operation fails with EIO.
    Eio,
    /// The operation fails with ENOSPC.
    Enospc,
    /// A read succeeds but one bit of the returned bytes is flipped (only applies to reads).
    CorruptRead,
}

/// When and where a fault fires.
#[derive(Debug, Clone)]
pub struct FaultRule {
    /// Operation kinds selected; empty selects every kind. `mutating_only` narrows further.
    pub ops: Vec<OpKind>,
    /// Select only operations whose [`OpKind::is_mutating`] is true.
    pub mutating_only: bool,
    /// Select only paths containing this substring.
    pub path_contains: Option<String>,
    /// Skip paths whose file name is this (e.g. `LOG`, the best-effort info log).
    pub path_excludes_file: Option<String>,
    /// Fire at each selected operation with this probability ...
    pub probability: f64,
    /// ... or exactly at the k-th selected operation (1-based), if set.
    pub nth: Option<u64>,
    /// After firing once, fire at every later selected operation.
    pub sticky: bool,
    /// What to inject.
    pub kind: FaultKind,
}

impl FaultRule {
    /// Fails the k-th (1-based) operation of kind `op` with `kind`.
    pub fn nth(op: OpKind, k: u64, kind: FaultKind) -> Self {
        FaultRule {
            ops: vec![op],
            mutating_only: false,
            path_contains: None,
            path_excludes_file: None,
            probability: 0.0,
            nth: Some(k),
            sticky: false,
            kind,
        }
    }

    /// Fails operations of the given kinds at random with probability `p`.
    pub fn random(ops: &[OpKind], p: f64, kind: FaultKind) -> Self {
        FaultRule {
            ops: ops.to_vec(),
            mutating_only: false,
            path_contains: None,
            path_excludes_file: None,
            probability: p,
            nth: None,
            sticky: false,
            kind,
        }
    }

    /// Simulates a process death at the k-th mutating operation: it and everything after fail.
    pub fn halt_at_mutating(k: u64) -> Self {
        FaultRule {
            ops: Vec::new(),
            mutating_only: true,
            path_contains: None,
            path_excludes_file: None,
            probability: 0.0,
            nth: Some(k),
            sticky: true,
            kind: FaultKind::Eio,
        }
    }

    /// Narrows the rule to paths containing `s`.
    #[must_use]
    pub fn on_paths(mut self, s: &str) -> Self {
        self.path_contains = Some(s.to_string());
        self
    }

    /// Narrows the rule to paths whose file name is not `name`.
    #[must_use]
    pub fn except_file(mut self, name: &str) -> Self {
        self.path_excludes_file = Some(name.to_string());
        self
    }

    fn selects(&self, op: OpKind, path: &Path) -> bool {
        let excluded = self
            .path_excludes_file
            .as_deref()
            .is_some_and(|n| path.file_name().is_some_and(|f| f.to_string_lossy() == n));
        !excluded
            && (self.ops.is_empty() || self.ops.contains(&op))
            && (!self.mutating_only || op.is_mutating())
            && self
                .path_contains
                .as_deref()
                .is_none_or(|s| path.to_string_lossy().contains(s))
    }
}

#[derive(Debug)]
struct RuleState {
    rule: FaultRule,
    seen: u64,
    fired: bool,
}

/// When a hook runs, relative to the operation it is armed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    Before,
    After,
}

/// A one-shot action run just before or just after the next operation of a kind on a
/// matching path.
struct Hook {
    when: When,
    op: OpKind,
    path_contains: String,
    run: Box<dyn FnOnce() + Send>,
}

impl std::fmt::Debug for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Hook({:?} {:?} on *{}*)",
            self.when, self.op, self.path_contains
        )
    }
}

#[derive(Debug)]
struct Injector {
    rules: Mutex<(Vec<RuleState>, SmallRng)>,
    hooks: Mutex<Vec<Hook>>,
    injected: AtomicU64,
    mutating_ops: AtomicU64,
}

impl Injector {
    /// Runs (and forgets) the first hook armed for `op` on `path` at `when`, with no lock held,
    /// so the hook may use the database (in another thread) while this operation waits.
    fn run_hook(&self, when: When, op: OpKind, path: &Path) {
        let hook = {
            let mut hooks = self.hooks.lock();
            let p = path.to_string_lossy();
            let i = hooks
                .iter()
                .position(|h| h.when == when && h.op == op && p.contains(h.path_contains.as_str()));
            i.map(|i| hooks.remove(i))
        };
        if let Some(h) = hook {
            (h.run)();
        }
    }

    /// Decides whether `op` on `path` fails; returns the fault to inject.
    fn check(&self, op: OpKind, path: &Path) -> Option<FaultKind> {
        if op.is_mutating() {
            self.mutating_ops.fetch_add(1, Ordering::Relaxed);
        }
        let mut guard = self.rules.lock();
        let (rules, rng) = &mut *guard;
        let mut fault = None;
        for r in rules.iter_mut() {
            if !r.rule.selects(op, path) {
                continue;
            }
            r.seen += 1;
            let fire = (r.rule.sticky && r.fired)
                || match r.rule.nth {
                    Some(k) => r.seen == k,
                    None => r.rule.probability > 0.0 && rng.gen_bool(r.rule.probability.min(1.0)),
                };
            if fire && fault.is_none() {
                if r.rule.kind == FaultKind::CorruptRead && op != OpKind::Read {
                    continue;
                }
                r.fired = true;
                fault = Some(r.rule.kind);
            }
        }
        if fault.is_some() {
            self.injected.fetch_add(1, Ordering::Relaxed);
        }
        fault
    }

    /// Runs `f`, the operation `op` on `path`, unless a rule fails it; hooks armed for it run
    /// before and after.
    fn around<T>(
        &self,
        op: OpKind,
        opname: &'static str,
        path: &Path,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        self.fail(op, opname, path)?;
        let result = f();
        self.run_hook(When::After, op, path);
        result
    }

    fn fail(&self, op: OpKind, opname: &'static str, path: &Path) -> Result<Option<FaultKind>> {
        self.run_hook(When::Before, op, path);
        match self.check(op, path) {
            Some(FaultKind::Eio) => Err(Error::io(
                opname,
                path,
                std::io::Error::from_raw_os_error(libc::EIO),
            )),
            Some(FaultKind::Enospc) => Err(Error::io(
                opname,
                path,
                std::io::Error::from_raw_os_error(libc::ENOSPC),
            )),
            other => Ok(other),
        }
    }
}

/// A file system that injects faults into another.
#[derive(Debug, Clone)]
pub struct FaultFs {
    inner: Arc<dyn FileSystem>,
    injector: Arc<Injector>,
}

impl FaultFs {
    /// Wraps `inner`; no rule is active until [`add_rule`](Self::add_rule). `seed` drives the
    /// probabilistic rules.
    pub fn new(inner: Arc<dyn FileSystem>, seed: u64) -> Self {
        FaultFs {
            inner,
            injector: Arc::new(Injector {
                rules: Mutex::new((Vec::new(), SmallRng::seed_from_u64(seed))),
                hooks: Mutex::new(Vec::new()),
                injected: AtomicU64::new(0),
                mutating_ops: AtomicU64::new(0),
            }),
        }
    }

    /// A shared handle, the form the engine takes.
    pub fn shared(&self) -> Arc<dyn FileSystem> {
        Arc::new(self.clone())
    }

    /// Activates a rule.
    pub fn add_rule(&self, rule: FaultRule) {
        self.injector.rules.lock().0.push(RuleState {
            rule,
            seen: 0,
            fired: false,
        });
    }

    /// Arms a one-shot hook: `run` is called just before the next operation of kind `op` on a
    /// path containing `path_contains`, in the thread making it, before any rule is checked.
    /// Tests use it to act at a chosen instant of a flush or compaction (for example, write or
    /// take a checkpoint while a MANIFEST write is under way).
    pub fn before_next(
        &self,
        op: OpKind,
        path_contains: &str,
        run: impl FnOnce() + Send + 'static,
    ) {
        self.arm(When::Before, op, path_contains, Box::new(run));
    }

    /// As [`before_next`](Self::before_next), but `run` is called just after the operation
    /// (whatever its result), before it returns to the engine: for example, once a MANIFEST
    /// sync has made an edit durable and before the engine installs it.
    pub fn after_next(&self, op: OpKind, path_contains: &str, run: impl FnOnce() + Send + 'static) {
        self.arm(When::After, op, path_contains, Box::new(run));
    }

    fn arm(&self, when: When, op: OpKind, path_contains: &str, run: Box<dyn FnOnce() + Send>) {
        self.injector.hooks.lock().push(Hook {
            when,
            op,
            path_contains: path_contains.to_string(),
            run,
        });
    }

    /// Whether every hook armed with [`before_next`](Self::before_next) or
    /// [`after_next`](Self::after_next) has run.
    pub fn hooks_ran(&self) -> bool {
        self.injector.hooks.lock().is_empty()
    }

    /// Removes every rule: the fault "clears" (a transient error ends).
    pub fn clear_rules(&self) {
        self.injector.rules.lock().0.clear();
    }

    /// Faults injected so far.
    pub fn injected(&self) -> u64 {
        self.injector.injected.load(Ordering::Relaxed)
    }

    /// Mutating operations seen so far (injected or not).
    pub fn mutating_ops(&self) -> u64 {
        self.injector.mutating_ops.load(Ordering::Relaxed)
    }
}

#[derive(Debug)]
struct FaultWritable {
    inner: Box<dyn WritableFile>,
    injector: Arc<Injector>,
    path: PathBuf,
}

impl WritableFile for FaultWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.injector
            .around(OpKind::Write, "append", &self.path, || {
                self.inner.append(data)
            })
    }
    fn flush(&mut self) -> Result<()> {
        self.injector
            .around(OpKind::Write, "flush", &self.path, || self.inner.flush())
    }
    fn sync(&mut self) -> Result<()> {
        self.injector
            .around(OpKind::Sync, "sync", &self.path, || self.inner.sync())
    }
    fn sync_data(&mut self) -> Result<()> {
        self.injector
            .around(OpKind::Sync, "sync_data", &self.path, || {
                self.inner.sync_data()
            })
    }
    fn write_behind(&mut self, offset: u64, len: u64) -> Result<()> {
        self.injector
            .around(OpKind::Metadata, "write_behind", &self.path, || {
                self.inner.write_behind(offset, len)
            })
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn syncer(&self) -> Option<Arc<dyn FileSyncer>> {
        Some(Arc::new(FaultSyncer {
            inner: self.inner.syncer()?,
            injector: Arc::clone(&self.injector),
            path: self.path.clone(),
        }))
    }
}

/// [`FileSyncer`] of a [`FaultWritable`]: its syncs are sync operations like the file's own.
#[derive(Debug)]
struct FaultSyncer {
    inner: Arc<dyn FileSyncer>,
    injector: Arc<Injector>,
    path: PathBuf,
}

impl FileSyncer for FaultSyncer {
    fn sync_data(&self) -> Result<()> {
        self.injector
            .around(OpKind::Sync, "sync_data", &self.path, || {
                self.inner.sync_data()
            })
    }
}

#[derive(Debug)]
struct FaultRandom {
    inner: Arc<dyn RandomAccessFile>,
    injector: Arc<Injector>,
    path: PathBuf,
}

impl RandomAccessFile for FaultRandom {
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let fault = self.injector.fail(OpKind::Read, "read", &self.path)?;
        let result = self.inner.read_exact_at(offset, buf);
        self.injector
            .run_hook(When::After, OpKind::Read, &self.path);
        result?;
        if fault == Some(FaultKind::CorruptRead) && !buf.is_empty() {
            // Deterministic in the offset so a retry sees the same damage.
            let i = (offset as usize).wrapping_mul(31) % buf.len();
            buf[i] ^= 1 << (offset % 8);
        }
        Ok(())
    }
    fn size(&self) -> Result<u64> {
        self.injector
            .around(OpKind::Metadata, "stat", &self.path, || self.inner.size())
    }
    fn advise(&self, pattern: AccessPattern) -> Result<()> {
        self.inner.advise(pattern)
    }
    fn readahead(&self, offset: u64, len: u64) -> Result<()> {
        self.inner.readahead(offset, len)
    }
}

impl FileSystem for FaultFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let inner = self
            .injector
            .around(OpKind::Create, "create", path, || self.inner.create(path))?;
        Ok(Box::new(FaultWritable {
            inner,
            injector: self.injector.clone(),
            path: path.to_path_buf(),
        }))
    }
    fn open_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let inner = self.injector.around(OpKind::Create, "open", path, || {
            self.inner.open_append(path)
        })?;
        Ok(Box::new(FaultWritable {
            inner,
            injector: self.injector.clone(),
            path: path.to_path_buf(),
        }))
    }
    fn open_overwrite(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let inner = self.injector.around(OpKind::Create, "open", path, || {
            self.inner.open_overwrite(path)
        })?;
        Ok(Box::new(FaultWritable {
            inner,
            injector: self.injector.clone(),
            path: path.to_path_buf(),
        }))
    }
    fn open_read(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let inner = self
            .injector
            .around(OpKind::Open, "open", path, || self.inner.open_read(path))?;
        Ok(Arc::new(FaultRandom {
            inner,
            injector: self.injector.clone(),
            path: path.to_path_buf(),
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.injector.around(OpKind::Rename, "rename", from, || {
            self.inner.rename(from, to)
        })
    }
    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        self.injector
            .around(OpKind::Rename, "link", from, || self.inner.link(from, to))
    }
    fn remove(&self, path: &Path) -> Result<()> {
        self.injector
            .around(OpKind::Remove, "remove", path, || self.inner.remove(path))
    }
    fn remove_dir(&self, path: &Path) -> Result<()> {
        self.injector
            .around(OpKind::Remove, "remove_dir", path, || {
                self.inner.remove_dir(path)
            })
    }
    fn create_dir_all(&self, path: &Path) -> Result<()> {
        self.injector
            .around(OpKind::Metadata, "create_dir", path, || {
                self.inner.create_dir_all(path)
            })
    }
    fn list(&self, path: &Path) -> Result<Vec<String>> {
        self.injector
            .around(OpKind::Metadata, "list", path, || self.inner.list(path))
    }
    fn exists(&self, path: &Path) -> Result<bool> {
        self.injector
            .around(OpKind::Metadata, "stat", path, || self.inner.exists(path))
    }
    fn size(&self, path: &Path) -> Result<u64> {
        self.injector
            .around(OpKind::Metadata, "stat", path, || self.inner.size(path))
    }
    fn truncate(&self, path: &Path, len: u64) -> Result<()> {
        self.injector
            .around(OpKind::Truncate, "truncate", path, || {
                self.inner.truncate(path, len)
            })
    }
    fn sync_dir(&self, path: &Path) -> Result<()> {
        self.injector.around(OpKind::SyncDir, "sync_dir", path, || {
            self.inner.sync_dir(path)
        })
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        self.injector
            .around(OpKind::Metadata, "lock", path, || self.inner.lock(path))
    }
}
