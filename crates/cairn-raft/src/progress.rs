//! What the log store must know of the state machine: how far it has applied, and whether a
//! snapshot is being received.
//!
//! openraft hands a received snapshot to the state machine's task and issues the purge of the
//! log it covers at once, from another task. Were the purge record durable before the
//! snapshot's ingestion, a crash between the two would leave a state machine behind the purged
//! log, which openraft cannot restart from (it re-applies committed entries from the log). So a
//! purge past the applied state waits while a snapshot is being received
//! ([`crate::LogStore`]'s `purge`), and the state machine publishes here what it has applied.

use tokio::sync::watch;

/// The state machine's progress, as the log store sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    /// The index of the last applied entry (or of the installed snapshot).
    pub(crate) applied: Option<u64>,
    /// A snapshot is being received (from `begin_receiving_snapshot` to the end of
    /// `install_snapshot`).
    pub(crate) receiving: bool,
}

impl Progress {
    /// Whether the log up to `index` may be purged now.
    pub(crate) fn allows_purge_to(&self, index: u64) -> bool {
        !self.receiving || self.applied.is_some_and(|a| a >= index)
    }
}

pub(crate) type ProgressTx = watch::Sender<Progress>;
pub(crate) type ProgressRx = watch::Receiver<Progress>;

pub(crate) fn channel() -> (ProgressTx, ProgressRx) {
    watch::channel(Progress::default())
}
