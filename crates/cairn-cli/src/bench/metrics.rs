//! Efficiency of a benchmark step, measured on the process and the database directory: CPU
//! seconds (`getrusage(RUSAGE_SELF)`, user + system, all threads including the engine's
//! background threads), bytes the process read from and wrote to the device (`read_bytes` and
//! `write_bytes` minus `cancelled_write_bytes` of `/proc/self/io`), peak resident memory (`VmHWM`
//! of `/proc/self/status`), and the database directory's size. Each probe returns `None` where the
//! system does not provide it, and the report then says "unavailable".
//!
//! Also [`KeyTracker`]: which key indexes hold a value, so that space amplification can divide
//! the bytes on disk by the live data (live keys × (key size + value size)), and the user bytes
//! each step wrote, the denominator of write amplification.

use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use serde::Serialize;

/// CPU seconds (user + system) of the whole process so far.
pub fn cpu_seconds() -> Option<f64> {
    rusage_seconds(libc::RUSAGE_SELF)
}

/// CPU seconds (user + system) of the calling thread so far.
pub fn thread_cpu_seconds() -> Option<f64> {
    rusage_seconds(libc::RUSAGE_THREAD)
}

/// User + system seconds of `getrusage(who)`.
fn rusage_seconds(who: libc::c_int) -> Option<f64> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` points to writable memory of the size getrusage fills; the callers pass
    // RUSAGE_SELF or RUSAGE_THREAD, valid `who`s on Linux. The struct is read only when the
    // call reports success.
    let rc = unsafe { libc::getrusage(who, usage.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: getrusage returned 0, so it initialized the struct (and zeroed() already had).
    let usage = unsafe { usage.assume_init() };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some(secs(usage.ru_utime) + secs(usage.ru_stime))
}

/// Bytes the process has caused to be read from and written to the device so far
/// (`/proc/self/io`: `read_bytes`, and `write_bytes` less `cancelled_write_bytes`).
pub fn device_io() -> Option<(u64, u64)> {
    parse_proc_io(&std::fs::read_to_string("/proc/self/io").ok()?)
}

fn parse_proc_io(text: &str) -> Option<(u64, u64)> {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let written = field("write_bytes")?.saturating_sub(field("cancelled_write_bytes").unwrap_or(0));
    Some((field("read_bytes")?, written))
}

/// Read and write system calls the process has made so far (`/proc/self/io`: `syscr`,
/// `syscw`), page-cache hits included.
pub fn io_syscalls() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/self/io").ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    Some((field("syscr")?, field("syscw")?))
}

/// The process's peak resident set size in bytes (`VmHWM`).
pub fn peak_rss_bytes() -> Option<u64> {
    parse_vm_hwm(&std::fs::read_to_string("/proc/self/status").ok()?)
}

fn parse_vm_hwm(text: &str) -> Option<u64> {
    let line = text.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kb: u64 = line.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kb * 1024)
}

/// Bytes of the regular files under `dir`, recursively (0 for a missing directory).
pub fn dir_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

/// The process probes and the run's counters at one instant.
#[derive(Debug, Clone, Copy)]
pub struct ProcSample {
    /// [`cpu_seconds`].
    pub cpu_seconds: Option<f64>,
    /// [`device_io`].
    pub io: Option<(u64, u64)>,
    /// The engine's table bytes written so far
    /// ([`super::engine::BenchEngine::table_bytes_written`]).
    pub engine_written: Option<u64>,
    /// Key and value bytes written by the benchmark so far ([`KeyTracker::user_bytes`]).
    pub user_bytes: u64,
}

impl ProcSample {
    /// Samples the process now.
    pub fn now(engine_written: Option<u64>, user_bytes: u64) -> Self {
        ProcSample {
            cpu_seconds: cpu_seconds(),
            io: device_io(),
            engine_written,
            user_bytes,
        }
    }
}

/// Efficiency of one step (the JSON report's `efficiency` object).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Efficiency {
    /// CPU seconds of the process during the step (all threads).
    pub cpu_seconds: Option<f64>,
    /// CPU microseconds per operation.
    pub cpu_us_per_op: Option<f64>,
    /// CPU seconds of the benchmark's own threads during the step, summed (the threads that
    /// call the engine: their writes, WAL appends and memtable inserts, or reads; not the
    /// engine's background threads).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_cpu_seconds: Option<f64>,
    /// `thread_cpu_seconds` in microseconds per operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread_cpu_us_per_op: Option<f64>,
    /// Bytes read from the device during the step.
    pub device_read_bytes: Option<u64>,
    /// Bytes written to the device during the step.
    pub device_write_bytes: Option<u64>,
    /// Key + value bytes the benchmark wrote during the step.
    pub user_bytes_written: u64,
    /// `device_write_bytes / user_bytes_written` (WAL, flushes, compactions, everything).
    pub write_amp_device: Option<f64>,
    /// Table-file bytes the engine wrote (flushes + compactions) during the step.
    pub engine_bytes_written: Option<u64>,
    /// `engine_bytes_written / user_bytes_written`.
    pub write_amp_engine: Option<f64>,
    /// Where the engine's figure comes from.
    pub engine_write_amp_source: String,
    /// Bytes of the database directory at the end of the step.
    pub db_bytes: u64,
    /// Keys holding a value at the end of the step.
    pub live_keys: u64,
    /// Their key and value bytes.
    pub live_bytes: u64,
    /// False when the live-key count assumes an existing database held all --num keys.
    pub live_keys_exact: bool,
    /// `db_bytes / live_bytes`.
    pub space_amp: Option<f64>,
    /// Peak resident set size of the process so far.
    pub peak_rss_bytes: Option<u64>,
}

impl Efficiency {
    /// The efficiency between `before` and `after`, for `ops` operations; `db_bytes` and `live`
    /// describe the database at the end.
    pub fn between(
        before: &ProcSample,
        after: &ProcSample,
        ops: u64,
        engine_source: &str,
        db_bytes: u64,
        live: Live,
    ) -> Self {
        let cpu = after
            .cpu_seconds
            .zip(before.cpu_seconds)
            .map(|(a, b)| (a - b).max(0.0));
        let io = after
            .io
            .zip(before.io)
            .map(|(a, b)| (a.0.saturating_sub(b.0), a.1.saturating_sub(b.1)));
        let user = after.user_bytes.saturating_sub(before.user_bytes);
        let ratio = |bytes: u64| (user > 0).then(|| bytes as f64 / user as f64);
        let engine = after
            .engine_written
            .zip(before.engine_written)
            .map(|(a, b)| a.saturating_sub(b));
        Efficiency {
            cpu_seconds: cpu,
            cpu_us_per_op: cpu.map(|c| c * 1e6 / ops.max(1) as f64),
            thread_cpu_seconds: None,
            thread_cpu_us_per_op: None,
            device_read_bytes: io.map(|x| x.0),
            device_write_bytes: io.map(|x| x.1),
            user_bytes_written: user,
            write_amp_device: io.and_then(|x| ratio(x.1)),
            engine_bytes_written: engine,
            write_amp_engine: engine.and_then(ratio),
            engine_write_amp_source: engine_source.to_string(),
            db_bytes,
            live_keys: live.keys,
            live_bytes: live.bytes,
            live_keys_exact: live.exact,
            space_amp: (live.bytes > 0).then(|| db_bytes as f64 / live.bytes as f64),
            peak_rss_bytes: peak_rss_bytes(),
        }
    }

    /// Adds the CPU seconds of the benchmark's threads, for `ops` operations.
    pub fn with_thread_cpu(mut self, seconds: Option<f64>, ops: u64) -> Self {
        self.thread_cpu_seconds = seconds;
        self.thread_cpu_us_per_op = seconds.map(|c| c * 1e6 / ops.max(1) as f64);
        self
    }

    /// The line printed under the result line.
    pub fn line(&self, ops: u64) -> String {
        let mb = |b: u64| format!("{:.1} MB", b as f64 / 1_048_576.0);
        let opt = |v: Option<String>| v.unwrap_or_else(|| "unavailable".to_string());
        let threads = self.thread_cpu_us_per_op.map_or(String::new(), |t| {
            format!("; benchmark threads {t:.2} us/op")
        });
        let cpu = opt(self.cpu_seconds.map(|c| {
            format!(
                "{c:.2} s ({:.2} us/op{threads})",
                c * 1e6 / ops.max(1) as f64
            )
        }));
        let io = match (self.device_read_bytes, self.device_write_bytes) {
            (Some(r), Some(w)) => format!("read {} write {}", mb(r), mb(w)),
            _ => "unavailable (no /proc/self/io)".to_string(),
        };
        let mut line = format!("  efficiency: cpu {cpu}, device {io}");
        if self.user_bytes_written > 0 {
            let wa = |v: Option<f64>| v.map_or("unavailable".to_string(), |v| format!("{v:.2}"));
            line.push_str(&format!(
                ", write-amp {} (device) {} (engine)",
                wa(self.write_amp_device),
                wa(self.write_amp_engine)
            ));
        }
        if let Some(sa) = self.space_amp {
            line.push_str(&format!(
                ", space-amp {sa:.2} ({} for {} live keys{})",
                mb(self.db_bytes),
                self.live_keys,
                if self.live_keys_exact {
                    ""
                } else {
                    ", estimated"
                }
            ));
        }
        line.push_str(&format!(", peak RSS {}", opt(self.peak_rss_bytes.map(mb))));
        line
    }
}

/// The live data of a database: entries holding a value and their key and value bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Live {
    /// Entries holding a value.
    pub keys: u64,
    /// Their key and value bytes.
    pub bytes: u64,
    /// False when the count assumes an existing database held all --num keys.
    pub exact: bool,
}

/// Which key indexes `0..num` hold a value, kept by every write and delete of the benchmark, and
/// how many entries were put, each of `entry_bytes` (key + value). Workloads with keys and
/// values of their own sizes (bluestore) record their batches with [`KeyTracker::sized`]
/// instead. Shared by the benchmark threads (atomic operations).
#[derive(Debug)]
pub struct KeyTracker {
    words: Vec<AtomicU64>,
    puts: AtomicU64,
    entry_bytes: u64,
    sized_written: AtomicU64,
    sized_live_keys: AtomicI64,
    sized_live_bytes: AtomicI64,
    exact: bool,
    /// Set when a workload finds it cannot know the live data ([`KeyTracker::mark_inexact`]).
    inexact: std::sync::atomic::AtomicBool,
}

impl KeyTracker {
    /// A tracker of `num` keys of `entry_bytes` each, all absent, or all present when
    /// `assume_full` (an existing database of unknown contents, counted as holding every key;
    /// `exact` is then false).
    pub fn new(num: u64, entry_bytes: u64, assume_full: bool) -> Self {
        let fill = if assume_full { u64::MAX } else { 0 };
        KeyTracker {
            words: (0..num.div_ceil(64))
                .map(|_| AtomicU64::new(fill))
                .collect(),
            puts: AtomicU64::new(0),
            entry_bytes,
            sized_written: AtomicU64::new(0),
            sized_live_keys: AtomicI64::new(0),
            sized_live_bytes: AtomicI64::new(0),
            exact: !assume_full,
            inexact: std::sync::atomic::AtomicBool::new(false),
        }
        .with_len(num)
    }

    fn with_len(mut self, num: u64) -> Self {
        let rem = num % 64;
        if rem != 0 {
            if let Some(last) = self.words.last_mut() {
                *last.get_mut() &= (1u64 << rem) - 1;
            }
        }
        self
    }

    /// Forgets every key (a fresh database).
    pub fn clear(&self) {
        for w in &self.words {
            w.store(0, Ordering::Relaxed);
        }
        self.sized_live_keys.store(0, Ordering::Relaxed);
        self.sized_live_bytes.store(0, Ordering::Relaxed);
    }

    /// Records a batch of entries of their own sizes: `written` key and value bytes, and the
    /// change it made to the live entries and their bytes.
    pub fn sized(&self, written: u64, live_keys: i64, live_bytes: i64) {
        self.sized_written.fetch_add(written, Ordering::Relaxed);
        self.sized_live_keys.fetch_add(live_keys, Ordering::Relaxed);
        self.sized_live_bytes
            .fetch_add(live_bytes, Ordering::Relaxed);
    }

    /// Marks the live data as an estimate from now on (a workload whose earlier contents are
    /// unknown, such as bluestore_write without bluestore_fill).
    pub fn mark_inexact(&self) {
        self.inexact.store(true, Ordering::Relaxed);
    }

    /// Key and value bytes written so far: the puts of indexed keys and the sized batches.
    pub fn user_bytes(&self) -> u64 {
        self.puts() * self.entry_bytes + self.sized_written.load(Ordering::Relaxed)
    }

    /// Records that `key` was written.
    pub fn put(&self, key: u64) {
        self.puts.fetch_add(1, Ordering::Relaxed);
        if let Some(w) = self.words.get((key / 64) as usize) {
            w.fetch_or(1 << (key % 64), Ordering::Relaxed);
        }
    }

    /// Records that `key` was deleted.
    pub fn delete(&self, key: u64) {
        if let Some(w) = self.words.get((key / 64) as usize) {
            w.fetch_and(!(1 << (key % 64)), Ordering::Relaxed);
        }
    }

    /// Entries put so far.
    pub fn puts(&self) -> u64 {
        self.puts.load(Ordering::Relaxed)
    }

    /// The entries holding a value and their bytes.
    pub fn live(&self) -> Live {
        let n: u64 = self
            .words
            .iter()
            .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
            .sum();
        let sized_keys = self.sized_live_keys.load(Ordering::Relaxed).max(0) as u64;
        let sized_bytes = self.sized_live_bytes.load(Ordering::Relaxed).max(0) as u64;
        Live {
            keys: n + sized_keys,
            bytes: n * self.entry_bytes + sized_bytes,
            exact: self.exact && !self.inexact.load(Ordering::Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_parse() {
        let io = "rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 4096\nwrite_bytes: 81920\n\
                  cancelled_write_bytes: 4096\n";
        assert_eq!(parse_proc_io(io), Some((4096, 77824)));
        assert_eq!(parse_proc_io("rchar: 1\n"), None);
        assert_eq!(
            parse_vm_hwm("Name:\tcairn\nVmHWM:\t    1888 kB\nVmRSS: 1 kB\n"),
            Some(1888 * 1024)
        );
        assert_eq!(parse_vm_hwm("Name: x\n"), None);
        // The probes work on this (Linux) system.
        assert!(cpu_seconds().is_some());
        assert!(thread_cpu_seconds().is_some());
        assert!(peak_rss_bytes().is_some_and(|b| b > 0));
    }

    #[test]
    fn key_tracker_counts_live_keys_and_puts() {
        let t = KeyTracker::new(100, 10, false);
        for k in [0, 5, 5, 63, 64, 99] {
            t.put(k);
        }
        t.delete(5);
        t.delete(7);
        let live = |keys, bytes, exact| Live { keys, bytes, exact };
        assert_eq!(t.live(), live(4, 40, true));
        assert_eq!(t.puts(), 6);
        assert_eq!(t.user_bytes(), 60);
        // Sized batches add their own bytes, written and live.
        t.sized(1000, 3, 700);
        t.sized(200, -1, -100);
        assert_eq!(t.live(), live(6, 640, true));
        assert_eq!(t.user_bytes(), 1260);
        t.clear();
        assert_eq!(t.live(), live(0, 0, true));
        let full = KeyTracker::new(100, 10, true);
        assert_eq!(full.live(), live(100, 1000, false));
    }

    #[test]
    fn efficiency_divides_by_user_bytes() {
        let before = ProcSample {
            cpu_seconds: Some(1.0),
            io: Some((0, 1000)),
            engine_written: Some(0),
            user_bytes: 0,
        };
        let after = ProcSample {
            cpu_seconds: Some(3.0),
            io: Some((500, 5000)),
            engine_written: Some(2000),
            user_bytes: 1000,
        };
        let live = Live {
            keys: 10,
            bytes: 1000,
            exact: true,
        };
        let e = Efficiency::between(&before, &after, 10, "test", 1500, live)
            .with_thread_cpu(Some(0.5), 10);
        assert_eq!(e.cpu_seconds, Some(2.0));
        assert_eq!(e.cpu_us_per_op, Some(200_000.0));
        assert_eq!(e.device_write_bytes, Some(4000));
        assert_eq!(e.write_amp_device, Some(4.0));
        assert_eq!(e.write_amp_engine, Some(2.0));
        assert_eq!(e.space_amp, Some(1.5));
        let line = e.line(10);
        assert!(
            line.contains("write-amp 4.00 (device) 2.00 (engine)"),
            "{line}"
        );
        assert!(line.contains("space-amp 1.50"), "{line}");
        assert!(
            line.contains("(200000.00 us/op; benchmark threads 50000.00 us/op)"),
            "{line}"
        );
        let no_io = ProcSample { io: None, ..before };
        let nothing = Live {
            keys: 0,
            bytes: 0,
            exact: true,
        };
        let e = Efficiency::between(&no_io, &after, 10, "test", 0, nothing);
        assert!(
            e.line(10).contains("unavailable (no /proc/self/io)"),
            "{}",
            e.line(10)
        );
        assert_eq!(e.space_amp, None);
    }
}
