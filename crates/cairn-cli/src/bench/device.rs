//! The device's synced-append rate, measured where the database lives: one thread appends
//! records of a WAL record's size to a scratch file, each followed by `fdatasync`, as a
//! write-ahead log synced on every write does. That rate is the ceiling of a synced workload
//! in which every write waits for its own sync; group commit passes it only by carrying
//! several writes in one sync.
//!
//! `cairn bench` probes before each synced write step and prints the rate beside the result
//! (issue 17: fillsync "within 10% of what the device allows"), so the comparison needs no
//! second tool. The probe runs before the step, on the same directory, with the machine
//! otherwise as the step will find it.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Longest time a probe runs.
pub const PROBE_TIME: Duration = Duration::from_secs(1);
/// Most synced appends a probe makes (a fast device ends the probe early).
pub const PROBE_SYNCS: u32 = 5_000;

/// What a probe measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyncRate {
    /// Synced appends per second.
    pub per_sec: f64,
    /// Bytes appended before each sync.
    pub append_bytes: usize,
    /// Synced appends made.
    pub syncs: u32,
}

impl SyncRate {
    /// The line printed under a synced step's result: the device's rate and how many writes
    /// each sync of the step must have carried on average, at least, to reach `ops_per_sec`
    /// (above 1.0 only through group commit).
    pub fn line(&self, ops_per_sec: f64) -> String {
        format!(
            "  device sync rate: {:.0} synced appends/s ({} B appends + fdatasync, 1 thread, \
             {} syncs, probed in the database directory before the step); step ops/s per \
             device sync: {:.2}",
            self.per_sec,
            self.append_bytes,
            self.syncs,
            ops_per_sec / self.per_sec.max(f64::MIN_POSITIVE)
        )
    }
}

/// Measures synced appends of `append_bytes` in a scratch file in `dir` for at most `time` or
/// `max_syncs` syncs; the file is removed afterwards.
///
/// # Errors
/// Creating, writing or syncing the scratch file.
pub fn probe_sync_rate(
    dir: &Path,
    append_bytes: usize,
    time: Duration,
    max_syncs: u32,
) -> std::io::Result<SyncRate> {
    let mut file = tempfile::Builder::new()
        .prefix(".cairn-sync-probe-")
        .tempfile_in(dir)?;
    let record = vec![0x5a; append_bytes.max(1)];
    let started = Instant::now();
    let mut syncs = 0;
    while syncs < max_syncs.max(1) && (syncs == 0 || started.elapsed() < time) {
        file.write_all(&record)?;
        file.as_file().sync_data()?;
        syncs += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    Ok(SyncRate {
        per_sec: f64::from(syncs) / secs.max(f64::EPSILON),
        append_bytes: record.len(),
        syncs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_syncs_in_the_directory_and_leaves_nothing_behind() {
        let dir = tempfile::tempdir().expect("tempdir");
        let rate = probe_sync_rate(dir.path(), 128, Duration::from_secs(5), 20).expect("probe");
        assert_eq!((rate.syncs, rate.append_bytes), (20, 128));
        assert!(rate.per_sec > 0.0);
        assert_eq!(std::fs::read_dir(dir.path()).expect("read_dir").count(), 0);
        let line = rate.line(rate.per_sec * 3.0);
        assert!(
            line.contains("128 B appends") && line.ends_with("device sync: 3.00"),
            "{line}"
        );
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let missing = dir.path().join("absent");
        assert!(probe_sync_rate(&missing, 128, PROBE_TIME, 5).is_err());
    }
}
