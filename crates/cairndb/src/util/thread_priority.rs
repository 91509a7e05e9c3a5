//! Background threads at a lowered CPU priority (RocksDB's `Env::LowerThreadPoolCPUPriority`).
//!
//! On a machine with fewer cores than busy threads, a compaction thread at normal priority
//! takes its full share of a core from the writers for as long as it runs, and write
//! throughput drops for that time. At a lower priority the scheduler runs it in the time the
//! foreground threads leave. Linux keeps the nice value and the scheduling policy per thread,
//! and a thread inherits both from the thread that creates it, so a lowered compaction thread's
//! subcompaction threads run lowered too.

use std::thread::JoinHandle;

use crate::options::CpuPriority;
use crate::{Error, Result};

/// Spawns the thread `name` running `body` at `priority`, and returns once the thread has set
/// it. When the thread cannot set its priority, it ends without running `body` and the error
/// is returned: an option the engine cannot honour is refused, not ignored.
///
/// # Errors
/// The spawn's or the priority change's I/O error.
pub(crate) fn spawn_at(
    name: String,
    priority: CpuPriority,
    body: impl FnOnce() + Send + 'static,
) -> Result<JoinHandle<()>> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let what = format!("{name} thread");
    let handle = std::thread::Builder::new()
        .name(name)
        .spawn(move || {
            let set = lower_current_thread(priority);
            let ok = set.is_ok();
            // The spawner waits for this message; it is gone only if it panicked.
            let _ = tx.send(set);
            if ok {
                body();
            }
        })
        .map_err(|e| Error::io("spawn", what.clone(), e))?;
    let set = rx.recv().unwrap_or_else(|_| {
        Err(std::io::Error::other(
            "the thread ended before setting its priority",
        ))
    });
    match set {
        Ok(()) => Ok(handle),
        Err(e) => {
            let _ = handle.join();
            Err(Error::io("set CPU priority of", what, e))
        }
    }
}

/// Lowers the calling thread to `priority`, as RocksDB's `port::SetCpuPriority` does on Linux:
/// `Low` is nice 19 under the normal policy, `Idle` is the `SCHED_IDLE` policy (runs only when
/// a core has nothing else to run). `Normal` leaves the thread as created: RocksDB only ever
/// lowers a pool's priority, and raising a nice value back needs a privilege.
#[cfg(target_os = "linux")]
fn lower_current_thread(priority: CpuPriority) -> std::io::Result<()> {
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() };
    let rc = match priority {
        CpuPriority::Normal => return Ok(()),
        // SAFETY: plain system calls on this thread's id; no memory is shared.
        CpuPriority::Low => unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19) },
        CpuPriority::Idle => {
            let param = libc::sched_param { sched_priority: 0 };
            // SAFETY: `param` outlives the call, which only reads it.
            unsafe { libc::sched_setscheduler(tid, libc::SCHED_IDLE, &param) }
        }
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Only Linux sets a priority per thread: `DbOptions::validate` refuses anything but `Normal`
/// elsewhere, before any thread starts, so there is nothing to do.
#[cfg(not(target_os = "linux"))]
fn lower_current_thread(priority: CpuPriority) -> std::io::Result<()> {
    debug_assert_eq!(
        priority,
        CpuPriority::Normal,
        "refused by DbOptions::validate"
    );
    Ok(())
}
