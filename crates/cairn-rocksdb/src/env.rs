//! `Env`: the file system a database lives on, and its background threads.

use std::sync::Arc;

use cairndb::fs::{FileSystem, MemFs, RealFs};
use cairndb::options::CpuPriority;
use parking_lot::Mutex;

use crate::Error;

/// RocksDB's `Env`: the real file system ([`Env::new`]) or an in-memory one ([`Env::mem_env`]),
/// and settings of the background thread pools.
///
/// CairnDB runs flushes and compactions on one pool of `max_background_jobs` threads. Of the
/// pool settings, the CPU priorities are honoured (`lower_thread_pool_cpu_priority` lowers
/// compactions, `lower_high_priority_thread_pool_cpu_priority` flushes) and a bottom-priority
/// pool of 0 threads is what CairnDB has; the others are refused by the open that uses this
/// `Env`.
///
/// Clones share their settings (as RocksDB's `Env` is shared): options given an `Env` read its
/// settings when the database opens, so changes made after `Options::set_env` count.
#[derive(Debug, Clone)]
pub struct Env {
    pub(crate) fs: Arc<dyn FileSystem>,
    settings: Arc<Mutex<EnvSettings>>,
}

/// The thread settings of an [`Env`], read by the opens that use it.
#[derive(Debug, Default)]
pub(crate) struct EnvSettings {
    pub(crate) compaction_cpu: Option<CpuPriority>,
    pub(crate) flush_cpu: Option<CpuPriority>,
    pub(crate) refused: Vec<String>,
}

impl Env {
    /// The real file system.
    pub fn new() -> Result<Env, Error> {
        Ok(Env::with_fs(RealFs::shared()))
    }

    /// A file system in memory, private to this `Env` (and the databases opened with it).
    pub fn mem_env() -> Result<Env, Error> {
        Ok(Env::with_fs(MemFs::new().shared()))
    }

    fn with_fs(fs: Arc<dyn FileSystem>) -> Env {
        Env {
            fs,
            settings: Arc::new(Mutex::new(EnvSettings::default())),
        }
    }

    /// The settings as they are now.
    pub(crate) fn settings(&self) -> parking_lot::MutexGuard<'_, EnvSettings> {
        self.settings.lock()
    }

    fn refuse(&mut self, what: String) {
        self.settings.lock().refused.push(format!(
            "Env::{what}: CairnDB runs flushes and compactions on one pool sized by \
             max_background_jobs"
        ));
    }

    /// Refused: CairnDB has one pool, sized by `max_background_jobs`.
    pub fn set_background_threads(&mut self, num_threads: i32) {
        self.refuse(format!("set_background_threads({num_threads})"));
    }

    /// Refused, as [`Env::set_background_threads`].
    pub fn set_high_priority_background_threads(&mut self, n: i32) {
        self.refuse(format!("set_high_priority_background_threads({n})"));
    }

    /// Refused, as [`Env::set_background_threads`].
    pub fn set_low_priority_background_threads(&mut self, n: i32) {
        self.refuse(format!("set_low_priority_background_threads({n})"));
    }

    /// 0 is honoured (CairnDB has no bottom-priority pool); other sizes are refused.
    pub fn set_bottom_priority_background_threads(&mut self, n: i32) {
        if n != 0 {
            self.refuse(format!("set_bottom_priority_background_threads({n})"));
        }
    }

    /// Nothing to wait for: a database's threads end when it is dropped.
    pub fn join_all_threads(&mut self) {}

    /// Refused: CairnDB does not set I/O priorities.
    pub fn lower_thread_pool_io_priority(&mut self) {
        self.settings
            .lock()
            .refused
            .push("Env::lower_thread_pool_io_priority: CairnDB does not set I/O priorities".into());
    }

    /// Refused: CairnDB does not set I/O priorities.
    pub fn lower_high_priority_thread_pool_io_priority(&mut self) {
        self.settings.lock().refused.push(
            "Env::lower_high_priority_thread_pool_io_priority: CairnDB does not set I/O \
             priorities"
                .into(),
        );
    }

    /// Compactions run at a lower CPU priority (`compaction_cpu_priority=kLow`).
    pub fn lower_thread_pool_cpu_priority(&mut self) {
        self.settings.lock().compaction_cpu = Some(CpuPriority::Low);
    }

    /// Flushes run at a lower CPU priority (`flush_cpu_priority=kLow`).
    pub fn lower_high_priority_thread_pool_cpu_priority(&mut self) {
        self.settings.lock().flush_cpu = Some(CpuPriority::Low);
    }
}
