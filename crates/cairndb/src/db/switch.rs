//! Making room for writes, on the commit leader's path (`write.rs`, invariants 3 and 5): the
//! write controller's delays and stops, the memtable switch when a memtable is full (and the
//! WAL roll that goes with it), the `max_total_wal_size` limit, and the sealing and syncing of
//! retired WALs (contract 5 in `mod.rs`).
//!
//! Called by the leader with the state lock held (`throttle` and `make_room` release it while
//! they wait), and by flushes, family drops and close (`switch_memtables`, `seal_wal`,
//! `sync_retired_wals`), which wait until no leader is active.

use std::time::{Duration, Instant};

use parking_lot::MutexGuard;

use super::open::{create_wal, new_memtable, reuse_wal};
use super::write_control::{memtable_stall_log_line, Admission};
use super::{DbInner, DbState, Imm};
use crate::batch::WriteBatch;
use crate::error::{Error, Result};
use crate::wal::LogWriter;

impl DbInner {
    /// Holds the leader's batch back as the write controller says (invariant 5): sleeps with
    /// the lock released while delayed, waits for compaction while stopped. With
    /// `no_slowdown` the write fails with `Busy` instead.
    pub(super) fn throttle(&self, st: &mut MutexGuard<'_, DbState>) -> Result<()> {
        let (bytes, no_slowdown) = {
            let q = &st.writers[0];
            (q.batch.data_size() as u64, q.no_slowdown)
        };
        loop {
            match st.write_control.admit(bytes, Instant::now()) {
                Admission::Now => return Ok(()),
                Admission::After(_, cause) | Admission::Stopped(cause) if no_slowdown => {
                    return Err(Error::Busy(format!(
                        "write would be delayed by compaction debt ({}) and no_slowdown is set",
                        cause.name()
                    )));
                }
                Admission::After(delay, _) => {
                    MutexGuard::unlocked(st, || std::thread::sleep(delay));
                    self.counters.record_stall(delay);
                    return self.check_writable(st);
                }
                Admission::Stopped(_) => {
                    if let Some(why) = &st.compaction_error {
                        let msg = format!("writes are stopped and compaction fails ({why})");
                        return Err(Error::io(
                            "compaction",
                            &self.dir,
                            std::io::Error::other(msg),
                        ));
                    }
                    let started = Instant::now();
                    let _ = self.cond.wait_for(st, Duration::from_millis(100));
                    self.counters.record_stall(started.elapsed());
                    self.check_writable(st)?;
                }
            }
        }
    }

    /// Switches every full memtable to a new one, waiting while a full family has too many
    /// memtables in use (invariant 3).
    pub(super) fn make_room(&self, st: &mut MutexGuard<'_, DbState>) -> Result<()> {
        self.enforce_wal_limit(st)?;
        let mut logged = false;
        loop {
            let mut full = Vec::new();
            let mut ready = Vec::new();
            for (&id, cf) in &st.cfs {
                let opts = &cf.options;
                if cf.mem.approximate_memory_usage() < opts.write_buffer_size {
                    continue;
                }
                full.push(id);
                let max_imms = (opts.max_write_buffer_number.max(2) - 1) as usize;
                if cf.imms.len() < max_imms {
                    ready.push(id);
                }
            }
            if full.is_empty() {
                return Ok(());
            }
            if !ready.is_empty() {
                self.switch_memtables(st, &ready, false)?;
                continue;
            }
            if st.versions.is_poisoned() {
                // No flush can succeed until reopen: waiting would hang the writer.
                let why = "the MANIFEST failed; flushes cannot complete until reopen";
                st.poisoned = Some(why.to_string());
                return Err(Error::Poisoned(why.to_string()));
            }
            if let Some(why) = &st.flush_error {
                // The flush thread keeps retrying; a writer must not wait for a fault that may
                // never clear. The batch is not applied and the database stays writable.
                let msg = format!("background flush failed ({why}); the write was not applied");
                return Err(Error::io("flush", &self.dir, std::io::Error::other(msg)));
            }
            if !logged {
                // Once per stalled write, not per wake-up.
                logged = true;
                let cf = st.cf(full[0]);
                let line = memtable_stall_log_line(
                    &cf.data.name,
                    cf.imms.len(),
                    cf.options.max_write_buffer_number,
                );
                self.info_log.log(crate::options::InfoLogLevel::Warn, &line);
            }
            let started = Instant::now();
            self.cond.wait(st);
            st.memtable_waits.0 += started.elapsed();
            self.counters.record_stall(started.elapsed());
            st.memtable_waits.1 += 1;
            self.check_writable(st)?;
        }
    }

    /// RocksDB's `SwitchWAL`: with several column families, once the live WALs hold more than
    /// `max_total_wal_size` bytes, the families whose memtables hold data in the oldest live WAL
    /// are switched, so the flush thread writes them out and that WAL can be deleted; once per
    /// oldest WAL. (With one family its own flushes release every WAL.)
    pub(super) fn enforce_wal_limit(&self, st: &mut DbState) -> Result<()> {
        if st.cfs.len() < 2 {
            return Ok(());
        }
        let oldest = st.versions.min_cf_log_number();
        st.retired_wal_bytes = st.retired_wal_bytes.split_off(&oldest);
        if st.wal_limit_switched == oldest {
            return Ok(());
        }
        let retired: u64 = st.retired_wal_bytes.values().sum();
        let total = retired + st.wal.as_ref().map_or(0, LogWriter::len);
        let memtable_bytes: u64 = st
            .cfs
            .values()
            .map(|cf| {
                (cf.options.write_buffer_size as u64)
                    .saturating_mul(u64::from(cf.options.max_write_buffer_number))
            })
            .sum();
        let limit = self.options.db.effective_max_total_wal_size(memtable_bytes);
        if total <= limit {
            return Ok(());
        }
        let logs = st.versions.column_families();
        let mut ids = Vec::new();
        let mut blocked = false;
        let mut forced_imms = false;
        for (&id, cf) in st.cfs.iter_mut() {
            // Immutable memtables waiting for `min_write_buffer_number_to_merge` while their
            // data lies in the oldest WAL are flushed now (RocksDB's `FlushRequested`).
            let log_number = logs.iter().find(|c| c.id == id).map(|c| c.log_number);
            if !cf.imms.is_empty() && log_number.is_some_and(|l| l <= oldest) && !cf.flush_due() {
                cf.force_flush();
                forced_imms = true;
            }
            // The mutable memtable's data lies in its first WAL and later ones.
            let first_wal = cf
                .imms
                .back()
                .map(|i| i.next_log)
                .or_else(|| logs.iter().find(|c| c.id == id).map(|c| c.log_number));
            if cf.mem.is_empty() || first_wal.is_none_or(|w| w > oldest) {
                continue;
            }
            let max_imms = (cf.options.max_write_buffer_number.max(2) - 1) as usize;
            if cf.imms.len() < max_imms {
                ids.push(id);
            } else {
                // Its memtables are all in use; a later write tries again.
                blocked = true;
            }
        }
        if forced_imms {
            self.bg_cond.notify_all();
        }
        if ids.is_empty() {
            return Ok(());
        }
        if !blocked {
            st.wal_limit_switched = oldest;
        }
        self.info_log.info(&format!(
            "Flushing {} column families with data in WAL #{oldest}. Total log size is {total} \
             while max_total_wal_size is {limit}",
            ids.len()
        ));
        self.switch_memtables(st, &ids, true)
    }

    /// Retires the mutable memtables of families `ids` to their immutable lists and starts one
    /// new WAL for all of them. The old WAL is flushed to the OS and its sync owed (contract
    /// 5). With `forced`, every immutable memtable of those families is flushed without
    /// waiting for `min_write_buffer_number_to_merge` (`CfState::flush_due`). A failure
    /// poisons: the WAL state is then unknown.
    pub(super) fn switch_memtables(
        &self,
        st: &mut DbState,
        ids: &[u32],
        forced: bool,
    ) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let result = self.roll_wal(st);
        if let Err(e) = &result {
            st.poisoned = Some(format!("WAL roll failed: {e}"));
        }
        result?;
        let next_log = st.wal_number;
        let last_seq = st.versions.last_sequence();
        for &id in ids {
            let cf = st.cf_mut(id);
            let fresh = new_memtable(&cf.options);
            // Not marked read-only yet: a pipelined group may still be inserting into it. The
            // flush marks it once every such group is published (`Imm::last_seq`).
            let old = std::mem::replace(&mut cf.mem, fresh);
            cf.imms.push_back(Imm {
                mem: old,
                next_log,
                forced,
                last_seq,
            });
            if forced {
                cf.force_flush();
            }
            self.publish_view(st, id);
        }
        self.bg_cond.notify_all();
        Ok(())
    }

    /// Seals the current WAL and starts the next one. Its name is left for a later directory
    /// sync (contract 6), unless the current WAL's name is not durable yet: then the directory
    /// is synced first, here, so that only the newest WAL can lack a durable name.
    pub(super) fn roll_wal(&self, st: &mut DbState) -> Result<()> {
        let seal = st.versions.last_sequence() + 1;
        seal_wal(st.wal.as_mut().ok_or(Error::Closed)?, seal)?;
        if st.wal_name_durable < st.wal_number {
            self.fs.sync_dir(&self.dir)?;
            st.wal_name_durable = st.wal_number;
        }
        let number = st.versions.new_file_number();
        let wal = self.start_wal(st, number)?;
        let old = st.wal.replace(wal).expect("checked above");
        st.retired_wal_bytes.insert(st.wal_number, old.len());
        st.unsynced_wals.push((st.wal_number, old));
        st.wal_number = number;
        Ok(())
    }
}

impl DbInner {
    /// WAL `number`: an obsolete WAL kept by `recycle_log_file_num`, renamed and overwritten,
    /// or a new file when none is kept or the reuse fails. A failed reuse gives that file up:
    /// a failed rename changed nothing (a sweep that listed the directory before an earlier
    /// reuse may have kept a name that is gone), and a failed open is followed by a create
    /// that truncates whatever the name holds.
    fn start_wal(&self, st: &mut DbState, number: u64) -> Result<LogWriter> {
        if let Some(kept) = st.recycled_wals.pop_front() {
            let old = kept.number();
            match reuse_wal(&*self.fs, &self.dir, old, number, &self.options) {
                Ok(wal) => {
                    self.info_log.info(&format!(
                        "reusing WAL #{old} from the recycle list as #{number}"
                    ));
                    return Ok(wal);
                }
                Err(e) => self.info_log.info(&format!(
                    "WAL #{old} kept for reuse cannot become #{number} ({e}); creating it"
                )),
            }
        }
        create_wal(&*self.fs, &self.dir, number, &self.options)
    }
}

/// Ends a WAL with its seal, an empty batch (contract 5), and hands everything to the OS.
/// Recovery replays a WAL's successors only if the WAL ends with its seal, so a retired WAL
/// whose unsynced tail a power cut lost ends the replay rather than leaving a hole.
pub(super) fn seal_wal(wal: &mut LogWriter, next_sequence: u64) -> Result<()> {
    let mut seal = WriteBatch::new();
    seal.set_sequence(next_sequence);
    wal.add_record(seal.data())?;
    wal.flush()
}

/// Syncs retired WALs (contract 5), oldest first; each synced one is dropped (closed).
pub(super) fn sync_retired_wals(wals: &mut Vec<(u64, LogWriter)>) -> Result<()> {
    for (_, wal) in wals.iter_mut() {
        wal.sync()?;
    }
    wals.clear();
    Ok(())
}
