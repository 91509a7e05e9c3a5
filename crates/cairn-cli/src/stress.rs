//! `cairn stress`: a db_stress-like workload whose expected state lives outside the database and
//! survives `kill -9`, so that a driver can kill it at any instant, restart it, and have every key
//! verified (docs/design/durability.md, D1).
//!
//! The expected-state file holds, for each key, two 8-byte slots: the state the database must
//! hold, and a *pending* state. A writer first records the pending state of every key of its
//! batch, then writes the batch, then (after the write returned Ok) makes the pending state the
//! current one and clears the marker. The expected file is written with `pwrite`, so its bytes are
//! in the kernel as soon as the call returns and survive a `kill -9` of this process. After a kill
//! a key with a marker may hold its old or its new state, and nothing else; a key without one must
//! hold exactly its state.
//!
//! A state is `version << 1 | exists`; version 0 with exists 0 is a key never written. The value
//! of (key, version) is derived from both, so a value from another key or another version is seen.
//! Key `k` belongs to thread `k % threads`, so the expected state of a key has one writer.
//!
//! At start the tool verifies every key against the expected file, resolves the markers to what
//! the database holds, and only then writes. `--kill-at-fs-op K` arms a fail point: the process
//! SIGKILLs itself at the K-th mutating file-system operation of the engine (inside a WAL append,
//! a flush, a compaction, a MANIFEST write ...).

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cairndb::batch::WriteBatch;
use cairndb::fs::{FileLock, FileSyncer, FileSystem, RandomAccessFile, RealFs, WritableFile};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// Arguments of `cairn stress`.
#[derive(Debug, clap::Args)]
pub struct StressArgs {
    /// The database directory (created if missing).
    #[arg(long)]
    pub db: PathBuf,
    /// The expected-state file, outside the database directory [default: DB.expected].
    #[arg(long)]
    pub expected: Option<PathBuf>,
    /// Writer threads.
    #[arg(long, default_value_t = 4)]
    pub threads: u64,
    /// Keys in the key space.
    #[arg(long, default_value_t = 10_000)]
    pub keys: u64,
    /// Operations per thread; 0 runs until killed or until --seconds.
    #[arg(long, default_value_t = 10_000)]
    pub ops: u64,
    /// Stop after this many seconds (0: no limit).
    #[arg(long, default_value_t = 0)]
    pub seconds: u64,
    /// Percent of operations that are reads (the rest write).
    #[arg(long, default_value_t = 30)]
    pub read_percent: u32,
    /// Percent of writes that delete instead of put.
    #[arg(long, default_value_t = 20)]
    pub delete_percent: u32,
    /// Keys per write batch, at most (1: single-key writes).
    #[arg(long, default_value_t = 8)]
    pub batch_max: u64,
    /// Fraction of writes made with sync=true.
    #[arg(long, default_value_t = 0.05)]
    pub sync_ratio: f64,
    /// Thread 0 flushes every this many of its operations (0: never).
    #[arg(long, default_value_t = 2_000)]
    pub flush_every: u64,
    /// Thread 0 compacts everything every this many of its operations (0: never).
    #[arg(long, default_value_t = 10_000)]
    pub compact_every: u64,
    /// Value bytes.
    #[arg(long, default_value_t = 100)]
    pub value_size: usize,
    /// The memtable size in bytes (small values flush and compact often).
    #[arg(long, default_value_t = 256 << 10)]
    pub write_buffer_size: usize,
    /// Seed of the random choices (0: from the clock).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Only verify (and resolve pending markers), then exit.
    #[arg(long)]
    pub verify_only: bool,
    /// Fail point: SIGKILL this process at the K-th mutating file-system operation.
    #[arg(long)]
    pub kill_at_fs_op: Option<u64>,
}

const SLOT_BYTES: u64 = 16;

/// The expected state of every key, in a file that survives the process.
#[derive(Debug)]
struct Expected {
    file: File,
}

impl Expected {
    fn open(path: &Path, keys: u64) -> std::io::Result<Expected> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let want = keys * SLOT_BYTES;
        let have = file.metadata()?.len();
        if have != 0 && have != want {
            return Err(std::io::Error::other(format!(
                "{} holds {have} bytes, not {want}: it was made for another --keys",
                path.display()
            )));
        }
        file.set_len(want)?;
        Ok(Expected { file })
    }

    fn read(&self, key: u64) -> std::io::Result<(u64, u64)> {
        let mut b = [0u8; 16];
        self.file.read_exact_at(&mut b, key * SLOT_BYTES)?;
        let cur = u64::from_le_bytes(b[..8].try_into().unwrap_or_default());
        let pending = u64::from_le_bytes(b[8..].try_into().unwrap_or_default());
        Ok((cur, pending))
    }

    fn set_pending(&self, key: u64, state: u64) -> std::io::Result<()> {
        self.file
            .write_all_at(&state.to_le_bytes(), key * SLOT_BYTES + 8)
    }

    /// Makes `state` current and clears the marker (one write of both slots).
    fn commit(&self, key: u64, state: u64) -> std::io::Result<()> {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&state.to_le_bytes());
        self.file.write_all_at(&b, key * SLOT_BYTES)
    }
}

fn key_bytes(key: u64) -> Vec<u8> {
    format!("stress{key:010}").into_bytes()
}

fn value_bytes(key: u64, version: u64, size: usize) -> Vec<u8> {
    let mut v = format!("{key}:{version}:").into_bytes();
    let fill = (key.wrapping_mul(31).wrapping_add(version) % 26) as u8 + b'a';
    v.resize(size.max(v.len()), fill);
    v
}

/// The state the database shows for `key` given the value it returned, if it is one the tool
/// could have written.
fn observed_state(key: u64, got: Option<&[u8]>, size: usize) -> Option<u64> {
    let Some(v) = got else {
        return Some(0);
    };
    let mut parts = v.splitn(3, |&b| b == b':');
    let k: u64 = std::str::from_utf8(parts.next()?).ok()?.parse().ok()?;
    let version: u64 = std::str::from_utf8(parts.next()?).ok()?.parse().ok()?;
    (k == key && value_bytes(key, version, size) == v).then_some(version << 1 | 1)
}

/// Checks every key; resolves markers to what the database holds. Returns (keys, markers).
fn verify(db: &Db, exp: &Expected, args: &StressArgs) -> Result<(u64, u64), String> {
    let r = ReadOptions::default();
    let mut resolved = 0;
    for key in 0..args.keys {
        let (cur, pending) = exp.read(key).map_err(|e| e.to_string())?;
        let got = db
            .get(&r, &key_bytes(key))
            .map_err(|e| format!("get of key {key}: {e}"))?;
        let seen = observed_state(key, got.as_deref(), args.value_size);
        // A deleted key shows as absent: compare "exists" states by version only when present.
        let matches = |want: u64| match seen {
            Some(0) => want & 1 == 0,
            Some(s) => s == want,
            None => false,
        };
        // Prefer the pending state when both fit (two deletions): versions are never reused.
        if pending != 0 && matches(pending) {
            exp.commit(key, pending).map_err(|e| e.to_string())?;
            resolved += 1;
            continue;
        }
        if matches(cur) {
            if pending != 0 {
                exp.commit(key, cur).map_err(|e| e.to_string())?;
                resolved += 1;
            }
            continue;
        }
        return Err(format!(
            "MISMATCH key {key}: expected state {cur:#x} (pending {pending:#x}), database holds \
             {:?}",
            got.map(|v| String::from_utf8_lossy(&v[..v.len().min(40)]).into_owned())
        ));
    }
    Ok((args.keys, resolved))
}

fn options(args: &StressArgs) -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.write_buffer_size = args.write_buffer_size;
    o.cf.target_file_size_base = (args.write_buffer_size as u64).max(64 << 10);
    o.cf.max_bytes_for_level_base = 4 * o.cf.target_file_size_base;
    o.cf.level0_file_num_compaction_trigger = 2;
    o
}

/// Runs `cairn stress`.
///
/// # Errors
/// Bad arguments, I/O errors on the expected file, or an engine error at open.
pub fn run(args: &StressArgs) -> Result<ExitCode, Box<dyn std::error::Error>> {
    if args.threads == 0 || args.keys == 0 || args.batch_max == 0 {
        return Err("--threads, --keys and --batch-max must be positive".into());
    }
    if !(0.0..=1.0).contains(&args.sync_ratio) {
        return Err("--sync-ratio must be within 0..=1".into());
    }
    let expected_path = args.expected.clone().unwrap_or_else(|| {
        let mut p = args.db.clone().into_os_string();
        p.push(".expected");
        PathBuf::from(p)
    });
    if expected_path.starts_with(&args.db) {
        return Err("the expected-state file must be outside the database directory".into());
    }
    let exp = Arc::new(Expected::open(&expected_path, args.keys)?);
    let fs: Arc<dyn FileSystem> = match args.kill_at_fs_op {
        Some(k) => Arc::new(KillFs {
            inner: RealFs::shared(),
            ops: Arc::new(AtomicU64::new(0)),
            kill_at: k,
        }),
        None => RealFs::shared(),
    };
    let db = Arc::new(Db::open_with_fs(fs, &args.db, options(args))?);
    match verify(&db, &exp, args) {
        Ok((keys, resolved)) => {
            println!("stress: verified {keys} keys ({resolved} pending markers resolved)")
        }
        Err(e) => {
            eprintln!("stress: {e}");
            return Ok(ExitCode::from(3));
        }
    }
    if args.verify_only {
        return Ok(ExitCode::SUCCESS);
    }
    let seed = if args.seed == 0 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    } else {
        args.seed
    };
    println!("stress: seed {seed:#x}");
    let stop = Arc::new(AtomicBool::new(false));
    let deadline = (args.seconds > 0).then(|| Instant::now() + Duration::from_secs(args.seconds));
    let failed = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| {
        for t in 0..args.threads {
            let (db, exp, stop, failed) = (&db, &exp, &stop, &failed);
            s.spawn(move || {
                if let Err(e) = worker(t, seed, db, exp, args, stop, deadline) {
                    eprintln!("stress: thread {t}: {e}");
                    failed.store(true, Ordering::SeqCst);
                    stop.store(true, Ordering::SeqCst);
                }
            });
        }
    });
    if failed.load(Ordering::SeqCst) {
        return Ok(ExitCode::from(3));
    }
    db.close()?;
    let db = Db::open(&args.db, options(args))?;
    match verify(&db, &exp, args) {
        Ok((keys, _)) => {
            println!("stress: done; verified {keys} keys after reopen");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("stress: {e}");
            Ok(ExitCode::from(3))
        }
    }
}

/// One writer: its keys are those with `key % threads == t`.
fn worker(
    t: u64,
    seed: u64,
    db: &Db,
    exp: &Expected,
    args: &StressArgs,
    stop: &AtomicBool,
    deadline: Option<Instant>,
) -> Result<(), String> {
    let mut rng = SmallRng::seed_from_u64(seed ^ (t + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mine = (args.keys - t).div_ceil(args.threads);
    if mine == 0 {
        return Ok(());
    }
    let pick = |rng: &mut SmallRng| t + rng.gen_range(0..mine) * args.threads;
    let r = ReadOptions::default();
    let mut i = 0u64;
    while (args.ops == 0 || i < args.ops) && !stop.load(Ordering::Relaxed) {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        i += 1;
        if rng.gen_range(0..100) < args.read_percent {
            let key = pick(&mut rng);
            let got = db
                .get(&r, &key_bytes(key))
                .map_err(|e| format!("get: {e}"))?;
            // Only this thread writes the key, so its expected state is exact.
            let (cur, _) = exp.read(key).map_err(|e| e.to_string())?;
            let seen = observed_state(key, got.as_deref(), args.value_size);
            let ok = match seen {
                Some(0) => cur & 1 == 0,
                Some(s) => s == cur,
                None => false,
            };
            if !ok {
                return Err(format!(
                    "MISMATCH on read of key {key}: expected {cur:#x}, got {seen:?}"
                ));
            }
            continue;
        }
        let n = rng.gen_range(1..=args.batch_max);
        let mut keys: Vec<u64> = (0..n).map(|_| pick(&mut rng)).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut batch = WriteBatch::new();
        let mut states = Vec::with_capacity(keys.len());
        for &key in &keys {
            let (cur, _) = exp.read(key).map_err(|e| e.to_string())?;
            let version = (cur >> 1) + 1;
            let exists = rng.gen_range(0..100) >= args.delete_percent;
            let state = version << 1 | u64::from(exists);
            exp.set_pending(key, state).map_err(|e| e.to_string())?;
            if exists {
                batch
                    .put(&key_bytes(key), &value_bytes(key, version, args.value_size))
                    .map_err(|e| e.to_string())?;
            } else {
                batch.delete(&key_bytes(key)).map_err(|e| e.to_string())?;
            }
            states.push((key, state));
        }
        let w = WriteOptions {
            sync: rng.gen_bool(args.sync_ratio),
            ..WriteOptions::default()
        };
        db.write(&w, batch).map_err(|e| format!("write: {e}"))?;
        for (key, state) in states {
            exp.commit(key, state).map_err(|e| e.to_string())?;
        }
        if t == 0 && args.flush_every > 0 && i % args.flush_every == 0 {
            db.flush().map_err(|e| format!("flush: {e}"))?;
        }
        if t == 0 && args.compact_every > 0 && i % args.compact_every == 0 {
            db.compact_range(None, None)
                .map_err(|e| format!("compact: {e}"))?;
        }
    }
    Ok(())
}

/// The fail point: a file system that SIGKILLs the process at its K-th mutating operation.
#[derive(Debug)]
struct KillFs {
    inner: Arc<dyn FileSystem>,
    ops: Arc<AtomicU64>,
    kill_at: u64,
}

fn count(ops: &AtomicU64, kill_at: u64) {
    if ops.fetch_add(1, Ordering::SeqCst) + 1 == kill_at {
        // SAFETY: kill(2) and getpid(2) have no memory-safety preconditions.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
    }
}

#[derive(Debug)]
struct KillFile {
    inner: Box<dyn WritableFile>,
    ops: Arc<AtomicU64>,
    kill_at: u64,
}

impl WritableFile for KillFile {
    fn append(&mut self, data: &[u8]) -> cairndb::Result<()> {
        count(&self.ops, self.kill_at);
        self.inner.append(data)
    }
    fn flush(&mut self) -> cairndb::Result<()> {
        count(&self.ops, self.kill_at);
        self.inner.flush()
    }
    fn sync(&mut self) -> cairndb::Result<()> {
        count(&self.ops, self.kill_at);
        self.inner.sync()
    }
    fn sync_data(&mut self) -> cairndb::Result<()> {
        count(&self.ops, self.kill_at);
        self.inner.sync_data()
    }
    fn write_behind(&mut self, offset: u64, len: u64) -> cairndb::Result<()> {
        self.inner.write_behind(offset, len)
    }
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn syncer(&self) -> Option<Arc<dyn FileSyncer>> {
        Some(Arc::new(KillSyncer {
            inner: self.inner.syncer()?,
            ops: Arc::clone(&self.ops),
            kill_at: self.kill_at,
        }))
    }
}

/// A [`KillFile`]'s syncer: its syncs count as mutating operations too.
#[derive(Debug)]
struct KillSyncer {
    inner: Arc<dyn FileSyncer>,
    ops: Arc<AtomicU64>,
    kill_at: u64,
}

impl FileSyncer for KillSyncer {
    fn sync_data(&self) -> cairndb::Result<()> {
        count(&self.ops, self.kill_at);
        self.inner.sync_data()
    }
}

impl KillFs {
    fn wrap(&self, f: Box<dyn WritableFile>) -> Box<dyn WritableFile> {
        Box::new(KillFile {
            inner: f,
            ops: Arc::clone(&self.ops),
            kill_at: self.kill_at,
        })
    }
    fn tick(&self) {
        count(&self.ops, self.kill_at);
    }
}

impl FileSystem for KillFs {
    fn create(&self, path: &Path) -> cairndb::Result<Box<dyn WritableFile>> {
        self.tick();
        Ok(self.wrap(self.inner.create(path)?))
    }
    fn open_append(&self, path: &Path) -> cairndb::Result<Box<dyn WritableFile>> {
        self.tick();
        Ok(self.wrap(self.inner.open_append(path)?))
    }
    fn open_overwrite(&self, path: &Path) -> cairndb::Result<Box<dyn WritableFile>> {
        self.tick();
        Ok(self.wrap(self.inner.open_overwrite(path)?))
    }
    fn open_read(&self, path: &Path) -> cairndb::Result<Arc<dyn RandomAccessFile>> {
        self.inner.open_read(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> cairndb::Result<()> {
        self.tick();
        self.inner.rename(from, to)
    }
    fn link(&self, from: &Path, to: &Path) -> cairndb::Result<()> {
        self.tick();
        self.inner.link(from, to)
    }
    fn remove(&self, path: &Path) -> cairndb::Result<()> {
        self.tick();
        self.inner.remove(path)
    }
    fn remove_dir(&self, path: &Path) -> cairndb::Result<()> {
        self.tick();
        self.inner.remove_dir(path)
    }
    fn create_dir_all(&self, path: &Path) -> cairndb::Result<()> {
        self.inner.create_dir_all(path)
    }
    fn list(&self, path: &Path) -> cairndb::Result<Vec<String>> {
        self.inner.list(path)
    }
    fn exists(&self, path: &Path) -> cairndb::Result<bool> {
        self.inner.exists(path)
    }
    fn size(&self, path: &Path) -> cairndb::Result<u64> {
        self.inner.size(path)
    }
    fn truncate(&self, path: &Path, len: u64) -> cairndb::Result<()> {
        self.tick();
        self.inner.truncate(path, len)
    }
    fn sync_dir(&self, path: &Path) -> cairndb::Result<()> {
        self.tick();
        self.inner.sync_dir(path)
    }
    fn lock(&self, path: &Path) -> cairndb::Result<Box<dyn FileLock>> {
        self.inner.lock(path)
    }
}
