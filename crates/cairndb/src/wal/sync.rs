//! Coalesced syncs of one log file from any thread (Pebble's `LogWriter` sync queue): a writer
//! that needs the log durable through an offset waits for a sync that started after that offset
//! was flushed, or starts one itself. One sync covers every writer whose bytes it found flushed,
//! and the log's owner keeps appending while it runs.
//!
//! Invariants:
//! 1. `synced` only grows, and only to an offset `flushed` had reached before the sync that
//!    set it started (the offset is read before the file's sync call, and bytes are flushed
//!    before `flushed` moves past them), so every byte below `synced` is durable.
//! 2. At most one sync is in flight. A writer arriving meanwhile records the offset it needs
//!    and waits, then returns if the sync covered it or starts the next one. The writer running
//!    a sync runs the next one too while a waiter needs bytes it did not cover (a few times at
//!    most), so back-to-back syncs do not each wait for a thread to wake up.
//! 3. A failed sync is sticky (the log writer's contract 3): every later
//!    [`LogSync::sync_through`] fails, and so does every later call of the [`LogWriter`] that
//!    owns the log. Every sync of the file goes through [`LogSync::sync_through`], the
//!    owner's included, so two syncs never run at once: with two at once the kernel may
//!    report a write-back error to only one of them, and the other would count as durable.
//!
//! [`LogWriter`]: super::LogWriter

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::fs::FileSyncer;

/// Most syncs one [`LogSync::sync_through`] call runs: its own, then others for the writers
/// waiting meanwhile (the rest wait for the next caller).
pub const MAX_SYNCS_PER_CALL: u32 = 3;

/// The sync state of one log file, shared by its [`LogWriter`](super::LogWriter) and the
/// writers waiting for durability. See the module contract.
#[derive(Debug)]
pub struct LogSync {
    file: Arc<dyn FileSyncer>,
    /// Bytes handed to the OS so far.
    flushed: AtomicU64,
    /// Set with `SyncState::failed`, read without the lock by the log's writer.
    failed: AtomicBool,
    state: Mutex<SyncState>,
    done: Condvar,
}

#[derive(Debug)]
struct SyncState {
    /// Every byte below this offset is durable.
    synced: u64,
    in_flight: bool,
    /// The highest offset a caller waiting for the sync in flight needs durable.
    wanted: u64,
    failed: Option<String>,
}

impl LogSync {
    /// The sync state of a log syncing through `file`; nothing is known durable yet.
    pub(super) fn new(file: Arc<dyn FileSyncer>, flushed: u64) -> Self {
        LogSync {
            file,
            flushed: AtomicU64::new(flushed),
            failed: AtomicBool::new(false),
            state: Mutex::new(SyncState {
                synced: 0,
                in_flight: false,
                wanted: 0,
                failed: None,
            }),
            done: Condvar::new(),
        }
    }

    /// Records that the bytes below `len` were handed to the OS.
    pub(super) fn flushed(&self, len: u64) {
        self.flushed.fetch_max(len, Ordering::AcqRel);
    }

    /// The failure that made the log unusable, if any.
    pub(super) fn failure(&self) -> Option<String> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        self.state.lock().failed.clone()
    }

    /// Returns once every byte below `offset` is durable, which the caller must have flushed
    /// (through the log's writer) before the call. Every sync of the file goes through here,
    /// its owner's included, so no two run at once and each failure is seen (invariant 3).
    /// Returns how many syncs this call ran (0: an earlier or concurrent sync covered it);
    /// `synced_in` receives the microseconds of each.
    ///
    /// The caller that runs a sync goes on with another, up to [`MAX_SYNCS_PER_CALL`] in all,
    /// while a waiting writer needs bytes the last one did not cover: the next sync then
    /// starts at once instead of after a waiter wakes up (invariant 2).
    ///
    /// # Errors
    /// The file's sync error, for the call whose sync failed and, as [`Error::Poisoned`], for
    /// every call after it. A call whose own bytes a sync already covered returns Ok even if a
    /// later sync it ran for the waiters failed: they get the error.
    pub fn sync_through(&self, offset: u64, mut synced_in: impl FnMut(u64)) -> Result<u32> {
        debug_assert!(
            offset <= self.flushed.load(Ordering::Acquire),
            "bytes are flushed before they are synced"
        );
        let mut s = self.state.lock();
        loop {
            if let Some(why) = &s.failed {
                return Err(Error::Poisoned(why.clone()));
            }
            if s.synced >= offset {
                return Ok(0);
            }
            if s.in_flight {
                s.wanted = s.wanted.max(offset);
                self.done.wait(&mut s);
                continue;
            }
            s.in_flight = true;
            let mut syncs = 0;
            loop {
                // Read before the sync starts: only bytes flushed by now are covered
                // (invariant 1).
                let target = self.flushed.load(Ordering::Acquire);
                let started = std::time::Instant::now();
                let result = parking_lot::MutexGuard::unlocked(&mut s, || self.file.sync_data());
                syncs += 1;
                self.done.notify_all();
                if let Err(e) = result {
                    s.in_flight = false;
                    s.failed = Some(format!("log sync failed: {e}"));
                    self.failed.store(true, Ordering::Release);
                    return if s.synced >= offset {
                        Ok(syncs - 1)
                    } else {
                        Err(e)
                    };
                }
                s.synced = s.synced.max(target);
                synced_in(crate::statistics::micros_since(started));
                // The sync covered `offset` (it was flushed before `target` was read); go on
                // only for a waiter that needs more.
                if s.wanted <= s.synced || syncs >= MAX_SYNCS_PER_CALL {
                    s.in_flight = false;
                    return Ok(syncs);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{FileSystem, MemFs, WritableFile};
    use std::path::Path;

    fn log(fs: &MemFs) -> (Box<dyn WritableFile>, LogSync) {
        let file = fs.create(Path::new("/log")).expect("create");
        let sync = LogSync::new(file.syncer().expect("MemFs files have syncers"), 0);
        (file, sync)
    }

    #[test]
    fn a_sync_covers_what_was_flushed_before_it_and_is_shared() {
        let fs = MemFs::new();
        let (mut file, sync) = log(&fs);
        file.append(b"0123456789").expect("append");
        sync.flushed(10);
        let mut took = 0;
        assert_eq!(sync.sync_through(4, |_| took += 1).expect("sync"), 1);
        // The sync covered all 10 bytes: a writer at 10 needs no sync of its own.
        assert_eq!(sync.sync_through(10, |_| took += 1).expect("covered"), 0);
        assert_eq!(took, 1);
        file.append(b"abc").expect("append");
        sync.flushed(13);
        assert_eq!(sync.sync_through(13, |_| ()).expect("sync"), 1);
        // Covered offsets need no sync.
        assert_eq!(sync.sync_through(13, |_| ()).expect("covered"), 0);
    }

    #[test]
    fn a_failed_sync_is_sticky() {
        use crate::fs::{FaultFs, FaultKind, FaultRule, OpKind};
        let fault = FaultFs::new(Arc::new(MemFs::new()), 1);
        let file = fault.create(Path::new("/log")).expect("create");
        let sync = LogSync::new(file.syncer().expect("syncer"), 0);
        sync.flushed(1);
        fault.add_rule(FaultRule::nth(OpKind::Sync, 1, FaultKind::Eio));
        let first = sync.sync_through(1, |_| ());
        assert!(matches!(first, Err(Error::Io { .. })), "{first:?}");
        fault.clear_rules();
        let again = sync.sync_through(1, |_| ());
        assert!(matches!(again, Err(Error::Poisoned(_))), "{again:?}");
        assert!(sync.failure().is_some());
    }
}
