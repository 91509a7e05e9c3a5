//! Changing options of an open database (RocksDB's `DB::SetOptions` and `DB::SetDBOptions`).
//!
//! # Design
//! A family's options in force are an `Arc<CfOptions>` held twice, both swapped together under
//! the state lock: in `CfData::current` (a small mutex, for jobs that run without the state
//! lock) and in `CfState::options` (read by the write path and the compaction picker, which
//! already hold the state lock, so a write pays no extra atomic operation). The database's are
//! an `Arc<DbOptions>` in `DbInner::db_options`.
//!
//! Invariants:
//! 1. A change is all or nothing: every pair is parsed and applied to a copy, the copy is
//!    validated, and only then installed. An immutable or unknown name, or a bad value, is
//!    `InvalidArgument` naming it, and nothing changes.
//! 2. A change never reaches a job already running: a flush or compaction takes one snapshot
//!    of the options when it starts. The next write, write-control check, compaction pick and
//!    job see the new options.
//! 3. After a change is installed, the write-control pressure is recomputed, waiting threads
//!    are woken (a raised trigger may release a stall, a re-enabled compaction may be due), the
//!    LOG records it and a new OPTIONS file is written (a failure to write the file is logged
//!    at WARN: the change is in force, and the next open writes the file again). Changes are
//!    serialized (`DbInner::options_change`), so the newest OPTIONS file holds the newest.

use std::sync::Arc;

use super::options_file::write_options_file;
use super::{ColumnFamily, Db, DbInner};
use crate::error::Result;
use crate::options::{rate_limit_change, DbOptions, InfoLogLevel};

impl DbInner {
    /// The database options in force.
    pub(super) fn current_db_options(&self) -> Arc<DbOptions> {
        Arc::clone(&self.db_options.lock())
    }

    /// Logs `what` and writes a new OPTIONS file (invariant 3).
    fn options_changed(&self, what: &str) {
        self.info_log.info(what);
        if let Err(e) = write_options_file(self) {
            self.info_log.log(
                InfoLogLevel::Warn,
                &format!("writing the OPTIONS file after SetOptions failed: {e}"),
            );
        }
    }
}

/// `name=value; ...` for the LOG.
fn describe(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(n, v)| format!("{}={}", n.trim(), v.trim()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// RocksDB refuses to set nothing (`SetOptions` with an empty map is `InvalidArgument`).
fn refuse_empty(pairs: &[(&str, &str)]) -> Result<()> {
    if pairs.is_empty() {
        return Err(crate::Error::InvalidArgument(
            "no options given to change".into(),
        ));
    }
    Ok(())
}

impl Db {
    /// Changes mutable options of `cf` (RocksDB's `DB::SetOptions`): each pair is an option
    /// name from [`crate::options::MUTABLE_CF_OPTIONS`] and a value in option-string syntax,
    /// e.g. `[("write_buffer_size", "4m"), ("disable_auto_compactions", "true")]`. The change
    /// applies from the next write, compaction pick, flush or compaction job on; jobs already
    /// running keep the options they started with. A new OPTIONS file is written and the LOG
    /// records the change.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for an empty list (as RocksDB), naming an immutable or
    /// unknown option or a bad value, or when the options would not validate, or the family was
    /// dropped; nothing changes then.
    pub fn set_options(&self, cf: &ColumnFamily, pairs: &[(&str, &str)]) -> Result<()> {
        refuse_empty(pairs)?;
        let inner = &self.inner;
        inner.refuse_if_read_only("set_options")?;
        let _call = inner.begin_call()?;
        let _order = inner.options_change.lock();
        let mut st = inner.state.lock();
        cf.data.check_live()?;
        let state = st.cf(cf.id());
        let changed = Arc::new(state.options.with_mutable_changes(pairs)?);
        *cf.data.current.lock() = Arc::clone(&changed);
        st.cf_mut(cf.id()).options = changed;
        inner.update_pressure(&mut st);
        drop(st);
        inner.cond.notify_all();
        inner.bg_cond.notify_all();
        inner.options_changed(&format!(
            "SetOptions() on column family [{}]: {}",
            cf.name(),
            describe(pairs)
        ));
        Ok(())
    }

    /// [`Db::set_options`] on the default column family.
    ///
    /// # Errors
    /// As [`Db::set_options`].
    pub fn set_options_default(&self, pairs: &[(&str, &str)]) -> Result<()> {
        self.set_options(&self.default_column_family(), pairs)
    }

    /// Changes mutable database options (RocksDB's `DB::SetDBOptions`): names from
    /// [`crate::options::MUTABLE_DB_OPTIONS`], e.g. `[("delayed_write_rate", "8m")]`. A new
    /// OPTIONS file is written and the LOG records the change.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for an empty list (as RocksDB), naming an immutable or
    /// unknown option or a bad value; nothing changes then.
    pub fn set_db_options(&self, pairs: &[(&str, &str)]) -> Result<()> {
        refuse_empty(pairs)?;
        let inner = &self.inner;
        inner.refuse_if_read_only("set_db_options")?;
        let _call = inner.begin_call()?;
        let _order = inner.options_change.lock();
        let mut st = inner.state.lock();
        let changed = inner.current_db_options().with_mutable_changes(pairs)?;
        if let (Some(rate), Some(limiter)) = (rate_limit_change(pairs), &changed.rate_limiter) {
            // With backlog control the rate given is the controller's new ceiling.
            if !inner.set_backlog_ceiling(rate) {
                limiter.set_bytes_per_second(rate)?;
            }
        }
        st.write_control
            .set_delayed_write_rate(changed.effective_delayed_write_rate());
        *inner.db_options.lock() = Arc::new(changed);
        drop(st);
        inner.cond.notify_all();
        // The stats dumper waits on `bg_cond` and re-reads its period.
        inner.bg_cond.notify_all();
        inner.options_changed(&format!("SetDBOptions(): {}", describe(pairs)));
        Ok(())
    }
}
