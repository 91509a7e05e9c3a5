//! The info log: `LOG` in the database directory, human-readable lines of what the database did
//! (RocksDB's LOG): the options at open, recovery, flushes, compactions with their inputs,
//! outputs and write amplification, background errors, and the statistics dump every
//! `stats_dump_period_sec`.
//!
//! # Contract
//! - Any thread may log; lines are appended whole under a small mutex of their own (never the
//!   state lock's), flushed to the OS at once so a crash keeps what was logged.
//! - Logging never fails the database: an I/O error writing the log is dropped (the log is for
//!   people; the database's own files are what must be durable).
//! - Rotation (RocksDB's): at open an existing `LOG` becomes `LOG.old.<micros since epoch>`;
//!   with `max_log_file_size` > 0 the log is rotated the same way when it grows past it; at most
//!   `keep_log_file_num` old logs are kept, oldest deleted first.
//! - Lines below `info_log_level` are not written.
//!
//! Line format: `2026/01/31-12:34:56.789012 <thread> [LEVEL] message` (one line per call; a
//! multi-line message is written with each line prefixed).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;

use super::DbInner;
use crate::fs::{FileSystem, WritableFile};
use crate::options::{DbOptions, InfoLogLevel, RocksDbEnum};
use crate::version::filenames::{old_info_log_name, INFO_LOG_FILE_NAME};
use crate::version::{parse_file_name, FileType};

/// The info log of one database. See the module contract.
pub(crate) struct InfoLog {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    level: InfoLogLevel,
    max_size: u64,
    keep: usize,
    file: Mutex<Option<Box<dyn WritableFile>>>,
}

impl std::fmt::Debug for InfoLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InfoLog").field("dir", &self.dir).finish()
    }
}

fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// `YYYY/MM/DD-HH:MM:SS.uuuuuu` in UTC for `micros` since the epoch.
pub(crate) fn timestamp(micros: u64) -> String {
    let secs = micros / 1_000_000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}/{month:02}/{day:02}-{:02}:{:02}:{:02}.{:06}",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        micros % 1_000_000
    )
}

impl InfoLog {
    /// Opens the info log of `dir`: rotates an existing `LOG` away and starts a new one. On
    /// an I/O error the log is off (every call does nothing), per the contract.
    pub(crate) fn open(fs: Arc<dyn FileSystem>, dir: &Path, opts: &DbOptions) -> InfoLog {
        let log = InfoLog {
            fs,
            dir: dir.to_path_buf(),
            level: opts.info_log_level,
            max_size: opts.max_log_file_size as u64,
            keep: opts.keep_log_file_num,
            file: Mutex::new(None),
        };
        let mut file = log.file.lock();
        *file = log.rotate();
        drop(file);
        log
    }

    /// A log that writes nothing: a read-only open creates no file.
    pub(crate) fn off(fs: Arc<dyn FileSystem>, dir: &Path) -> InfoLog {
        InfoLog {
            fs,
            dir: dir.to_path_buf(),
            level: InfoLogLevel::Header,
            max_size: 0,
            keep: 0,
            file: Mutex::new(None),
        }
    }

    /// Renames `LOG` (if any) to `LOG.old.<micros>`, deletes the oldest old logs past `keep`,
    /// and creates a new `LOG`.
    fn rotate(&self) -> Option<Box<dyn WritableFile>> {
        let current = self.dir.join(INFO_LOG_FILE_NAME);
        if self.fs.exists(&current).unwrap_or(false) {
            let mut stamp = now_micros();
            // Two rotations in one microsecond must not overwrite each other.
            while self
                .fs
                .exists(&self.dir.join(old_info_log_name(stamp)))
                .unwrap_or(false)
            {
                stamp += 1;
            }
            let _ = self
                .fs
                .rename(&current, &self.dir.join(old_info_log_name(stamp)));
        }
        self.prune_old_logs();
        self.fs.create(&current).ok()
    }

    fn prune_old_logs(&self) {
        let Ok(names) = self.fs.list(&self.dir) else {
            return;
        };
        let mut old: Vec<u64> = names
            .iter()
            .filter_map(|n| match parse_file_name(n) {
                Some((FileType::OldInfoLog, stamp)) => Some(stamp),
                _ => None,
            })
            .collect();
        old.sort_unstable();
        let excess = old.len().saturating_sub(self.keep);
        for stamp in &old[..excess] {
            let _ = self.fs.remove(&self.dir.join(old_info_log_name(*stamp)));
        }
    }

    /// Writes `message` at `level` (each of its lines prefixed with the time, the thread and
    /// the level).
    pub(crate) fn log(&self, level: InfoLogLevel, message: &str) {
        if level < self.level {
            return;
        }
        let prefix = format!(
            "{} {} [{}]",
            timestamp(now_micros()),
            std::thread::current().name().unwrap_or("-"),
            level.rocksdb_name().trim_end_matches("_LEVEL")
        );
        let mut text = String::with_capacity(message.len() + 64);
        for line in message.lines() {
            let _ = writeln!(text, "{prefix} {line}");
        }
        let mut file = self.file.lock();
        let Some(f) = file.as_mut() else {
            return;
        };
        if f.append(text.as_bytes()).and_then(|()| f.flush()).is_err() {
            // Off for good: a log that failed once may hold a torn line; nothing else depends
            // on it.
            *file = None;
            return;
        }
        if self.max_size > 0 && f.len() >= self.max_size {
            *file = self.rotate();
        }
    }

    /// Logs at INFO.
    pub(crate) fn info(&self, message: &str) {
        self.log(InfoLogLevel::Info, message);
    }
}

impl DbInner {
    /// Logs the options and what recovery found; called once at open.
    pub(super) fn log_open(&self) {
        let r = &self.report;
        self.info_log.log(
            InfoLogLevel::Header,
            &format!(
                "CairnDB version {}\nDB directory: {}\n{}",
                env!("CARGO_PKG_VERSION"),
                self.dir.display(),
                self.options_file().render()
            ),
        );
        self.info_log.info(&format!(
            "Recovered: created {}, WALs replayed {:?}, batches {}, damage dropped {}, WALs \
             skipped {:?}, last sequence {}",
            r.created,
            r.logs_replayed,
            r.batches_replayed,
            r.dropped.len(),
            r.logs_skipped,
            r.last_sequence
        ));
    }

    /// Logs a background job's failure at ERROR.
    pub(super) fn log_error(&self, what: &str, e: &crate::Error) {
        self.info_log
            .log(InfoLogLevel::Error, &format!("{what} failed: {e}"));
    }

    /// Logs a finished compaction (inputs, outputs, amplification) or its failure.
    pub(super) fn log_compaction(
        &self,
        cf: &str,
        plan: &crate::compaction::CompactionPlan,
        result: &crate::Result<super::compact::JobOutcome>,
        elapsed: Duration,
    ) {
        let inputs: Vec<String> = plan
            .inputs
            .iter()
            .map(|i| {
                let files: Vec<String> = i.files.iter().map(|f| f.number.to_string()).collect();
                format!("L{}: [{}] {} bytes", i.level, files.join(","), i.bytes())
            })
            .collect();
        let head = format!(
            "[{cf}] Compaction {:?} to L{} (score {:.2}): inputs {} ({} bytes in all)",
            plan.reason,
            plan.output_level,
            plan.score,
            inputs.join(" "),
            plan.input_bytes()
        );
        match result {
            Ok(_) if plan.is_trivial_move => {
                self.info_log.info(&format!("{head}: trivial move"));
            }
            Ok(o) => {
                let from_upper: u64 = plan
                    .inputs
                    .iter()
                    .filter(|i| i.level != plan.output_level)
                    .map(|i| i.bytes())
                    .sum();
                let w_amp = o.bytes_written as f64 / (from_upper.max(1)) as f64;
                let r_amp = o.bytes_read as f64 / (from_upper.max(1)) as f64;
                self.info_log.info(&format!(
                    "{head}: {} output files, {} bytes written, {} read, write-amp {w_amp:.2}, read-write-amp {:.2}, {} keys in, {} dropped, {:.3} s",
                    o.outputs,
                    o.bytes_written,
                    o.bytes_read,
                    r_amp + w_amp,
                    o.keys_in,
                    o.keys_dropped,
                    elapsed.as_secs_f64()
                ));
            }
            Err(e) => self
                .info_log
                .log(InfoLogLevel::Error, &format!("{head}: failed: {e}")),
        }
    }

    /// The periodic statistics dump: every family's compaction stats and the DB stats, then a
    /// new interval starts.
    pub(super) fn dump_stats(&self) {
        let ids: Vec<u32> = self.state.lock().cfs.keys().copied().collect();
        let mut text = String::from("------- DUMPING STATS -------");
        text.push_str(&self.db_stats());
        for id in ids {
            if let Some(s) = self.cf_stats(id) {
                text.push_str(&s);
            }
        }
        self.info_log.info(&text);
        self.counters.take_interval(self.counter_snapshot());
    }
}

/// How long the stats dumper sleeps while dumps are off (`stats_dump_period_sec=0`); a
/// `set_db_options` that turns them on wakes it at once.
const DUMPS_OFF_WAIT: Duration = Duration::from_secs(3600);

/// The thread that dumps statistics to the LOG every `stats_dump_period_sec` until close. It
/// runs also while the period is 0, since `Db::set_db_options` may set one; it re-reads the
/// period after every wake.
pub(super) fn spawn_stats_dumper(
    inner: &Arc<DbInner>,
) -> crate::Result<Option<std::thread::JoinHandle<()>>> {
    let inner = Arc::clone(inner);
    std::thread::Builder::new()
        .name("cairndb-stats".to_string())
        .spawn(move || {
            let mut last = std::time::Instant::now();
            let mut st = inner.state.lock();
            loop {
                if inner.closed.load(std::sync::atomic::Ordering::Acquire) {
                    return;
                }
                let period = Duration::from_secs(u64::from(
                    inner.current_db_options().stats_dump_period_sec,
                ));
                let now = std::time::Instant::now();
                if !period.is_zero() && now >= last + period {
                    drop(st);
                    inner.dump_stats();
                    last = std::time::Instant::now();
                    st = inner.state.lock();
                    continue;
                }
                let wait = if period.is_zero() {
                    DUMPS_OFF_WAIT
                } else {
                    last + period - now
                };
                // Woken early by close and by `set_db_options` (and by other background
                // events, which only make it look again).
                let _ = inner.bg_cond.wait_for(&mut st, wait);
            }
        })
        .map(Some)
        .map_err(|e| crate::Error::io("spawn", "stats thread", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_utc_civil_dates() {
        assert_eq!(timestamp(0), "1970/01/01-00:00:00.000000");
        // 2000-02-29T12:34:56.000007Z
        assert_eq!(timestamp(951_827_696_000_007), "2000/02/29-12:34:56.000007");
        // 2026-11-21T11:42:08Z
        assert_eq!(
            timestamp(1_795_261_328_000_000),
            "2026/11/21-11:42:08.000000"
        );
    }
}
