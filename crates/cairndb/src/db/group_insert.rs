//! A concurrent group insert (`write.rs` invariant 6): with `allow_concurrent_memtable_write`,
//! each member of a commit group inserts its own batch on its own thread, and the last to
//! finish wakes the leader, which then publishes the group.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::write::insert_into;
use super::writer::{MemberInsert, Writer, GROUP_INSERTED};
use crate::error::Error;
use crate::memtable::MemTable;

/// A group whose members insert their own batches (invariant 6): the memtables they insert
/// into (fixed while the leader is active), the members still inserting, and their failures.
#[derive(Debug)]
pub(super) struct GroupInsert {
    leader: Arc<Writer>,
    remaining: AtomicUsize,
    pub(super) failures: Mutex<Vec<(usize, Error)>>,
    pub(super) mems: Vec<(u32, Arc<MemTable>)>,
}

impl GroupInsert {
    /// A group of `followers` members besides `leader`, inserting into `mems`.
    pub(super) fn new(
        leader: Arc<Writer>,
        followers: usize,
        mems: Vec<(u32, Arc<MemTable>)>,
    ) -> Self {
        GroupInsert {
            leader,
            remaining: AtomicUsize::new(followers),
            failures: Mutex::new(Vec::new()),
            mems,
        }
    }

    /// Reports one member's insert finished; the last report wakes the leader. The AcqRel
    /// decrement orders every member's inserts before the leader's wake-up (invariant 6).
    fn member_done(&self, failure: Option<(usize, Error)>) {
        if let Some(f) = failure {
            self.failures.lock().push(f);
        }
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.leader.set_state(GROUP_INSERTED);
        }
    }
}

/// A follower's part of a concurrent group insert: inserts its own batch, then reports to the
/// group (invariant 6). A panic in the insert (a bug) is reported as a failure before it
/// continues unwinding, so the leader never waits for ever.
pub(super) fn insert_as_member(task: MemberInsert) {
    let MemberInsert {
        batch,
        index,
        group,
    } = task;
    let inserted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        insert_into(&batch, &group.mems)
    }));
    match inserted {
        Ok(result) => group.member_done(result.err().map(|e| (index, e))),
        Err(panic) => {
            let e = Error::Poisoned("a group member's memtable insert panicked".into());
            group.member_done(Some((index, e)));
            std::panic::resume_unwind(panic);
        }
    }
}
