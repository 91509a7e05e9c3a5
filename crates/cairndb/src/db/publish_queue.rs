//! Commit groups between their WAL write and their publication, published in sequence order.
//!
//! With `enable_pipelined_write` a leader ends its term as soon as its group's WAL record is
//! written: the next leader writes the next record while this group is still inserting into the
//! memtables, so consecutive groups insert at once and the serialized part of a commit is the
//! WAL write alone. Visibility must still follow sequence order (`mod.rs` invariant 1): a group
//! whose inserts finish first cannot be published before an earlier group, since publishing its
//! last sequence number would show the earlier group half inserted. This queue holds every
//! group from the allocation of its sequence numbers to its publication. Whichever group
//! finishes its inserts publishes every finished group at the head of the queue, in order, and
//! wakes the leaders of the groups it published; a leader whose group is not at the head waits
//! on its own writer for `PUBLISHED` (`writer.rs`).
//!
//! Who calls it: the commit leader registers its group under the state lock, when it allocates
//! the group's sequence numbers (so registration follows allocation order); the same thread
//! reports the group's inserts done, without the state lock. A flush waits here until the
//! memtables it is about to write hold every group that was given sequence numbers in them;
//! close waits until nothing is in flight.
//!
//! Invariants:
//! 1. Groups are registered in ascending sequence order and published in that order; the
//!    published sequence number is stored only under this queue's lock, so publications are
//!    serialized (`sequence.rs` invariant 2).
//! 2. A group is published only after its own inserts and those of every earlier group are
//!    done, so a reader that loads a published sequence finds every entry up to it.
//! 3. After a group fails (its WAL write or an insert), no later group is published: its
//!    entries may be partly inserted, and publishing a later sequence would show them. Every
//!    waiting leader gets `Poisoned`, and waiters for publication are released.
//!
//! Lock order: the state lock, then this queue's lock; nothing is taken while holding it
//! except the writers' result slots (leaves).

use std::collections::VecDeque;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::sequence::PublishedSequence;
use super::writer::Writer;
use crate::error::Error;
use crate::types::SequenceNumber;

/// The groups in flight. See the module contract.
#[derive(Debug, Default)]
pub(super) struct PublishQueue {
    queue: Mutex<Queue>,
    /// Wakes flushes and close waiting for a publication (only while `waiters > 0`).
    published: Condvar,
}

#[derive(Debug, Default)]
struct Queue {
    /// Registered groups, in sequence order.
    groups: VecDeque<InFlight>,
    /// Threads waiting in [`PublishQueue::wait_through`].
    waiters: usize,
    /// Why publication stopped (invariant 3).
    stopped: Option<String>,
}

#[derive(Debug)]
struct InFlight {
    /// The group's last sequence number.
    last: SequenceNumber,
    /// The group's leader, woken when another group publishes this one.
    leader: Arc<Writer>,
    /// Its inserts are done (successfully: a failure stops the queue instead).
    inserted: bool,
}

/// What [`PublishQueue::complete`] did with the caller's group.
#[derive(Debug)]
pub(super) enum Completion {
    /// Published (by this call).
    Published,
    /// An earlier group is still inserting; its leader will publish this one and move this
    /// leader's writer to `PUBLISHED` (`writer.rs`), with the outcome in its result.
    Queued,
    /// Publication stopped at an earlier failure (invariant 3).
    Stopped(String),
}

impl PublishQueue {
    /// Registers a group whose sequence numbers end at `last`. Called under the state lock,
    /// right after the allocation (invariant 1).
    pub(super) fn register(&self, last: SequenceNumber, leader: Arc<Writer>) {
        let mut q = self.queue.lock();
        debug_assert!(q.groups.back().is_none_or(|g| g.last < last));
        q.groups.push_back(InFlight {
            last,
            leader,
            inserted: false,
        });
    }

    /// Reports the inserts of the group ending at `last` done (`Ok`) or failed, and publishes
    /// every group at the head of the queue whose inserts are done (invariant 2).
    pub(super) fn complete(
        &self,
        last: SequenceNumber,
        inserted: std::result::Result<(), String>,
        published: &PublishedSequence,
    ) -> Completion {
        let mut q = self.queue.lock();
        if let Err(why) = inserted {
            return self.stop(&mut q, last, why);
        }
        if let Some(why) = &q.stopped {
            return Completion::Stopped(why.clone());
        }
        let own = q
            .groups
            .iter_mut()
            .find(|g| g.last == last)
            .expect("a completed group was registered");
        own.inserted = true;
        let mut completion = Completion::Queued;
        let mut newest = None;
        let mut woken = Vec::new();
        while q.groups.front().is_some_and(|g| g.inserted) {
            let g = q.groups.pop_front().expect("front exists");
            newest = Some(g.last);
            if g.last == last {
                completion = Completion::Published;
            } else {
                woken.push(g.leader);
            }
        }
        if let Some(newest) = newest {
            // Stored before any leader it covers is woken: a leader returns Ok to its callers,
            // who must then read their own writes.
            published.publish(newest);
            if q.waiters > 0 {
                self.published.notify_all();
            }
        }
        for leader in woken {
            leader.publish_outcome(Ok(()));
        }
        completion
    }

    /// Stops publication (invariant 3) after the inserts of the group ending at `own` failed:
    /// the leaders waiting for publication get `Poisoned`; groups still inserting find the
    /// queue stopped when they complete; waiters are released.
    fn stop(&self, q: &mut Queue, own: SequenceNumber, why: String) -> Completion {
        q.stopped.get_or_insert_with(|| why.clone());
        for g in std::mem::take(&mut q.groups) {
            if g.inserted && g.last != own {
                let e = Error::Poisoned(format!("an earlier write failed: {why}"));
                g.leader.publish_outcome(Err(e));
            }
        }
        if q.waiters > 0 {
            self.published.notify_all();
        }
        Completion::Stopped(why)
    }

    /// Removes the group ending at `last`, whose WAL write failed: it inserted nothing, and it
    /// is the newest group (the database is poisoned, so none follows), so the groups before it
    /// are still published as their inserts finish.
    pub(super) fn abandon(&self, last: SequenceNumber) {
        let mut q = self.queue.lock();
        debug_assert!(q.groups.back().is_some_and(|g| g.last == last));
        q.groups.retain(|g| g.last != last);
        if q.waiters > 0 {
            self.published.notify_all();
        }
    }

    /// Waits until no group with sequence numbers up to `seq` is in flight: each was published
    /// or abandoned, or publication stopped. Called without the state lock. After it, `seq` is
    /// published unless the database is poisoned (an abandoned or failed group poisons).
    pub(super) fn wait_through(&self, seq: SequenceNumber) {
        let mut q = self.queue.lock();
        while q.stopped.is_none() && q.groups.front().is_some_and(|g| g.last <= seq) {
            q.waiters += 1;
            self.published.wait(&mut q);
            q.waiters -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::writer::{PUBLISHED, WAITING};

    fn leader() -> Arc<Writer> {
        Arc::new(Writer::new())
    }

    /// Groups that finish out of order are published in order: a later group that finishes
    /// first stays queued (nothing published), and the earlier one's completion publishes both
    /// and hands the later leader its outcome.
    #[test]
    fn groups_finishing_out_of_order_are_published_in_sequence_order() {
        let q = PublishQueue::default();
        let published = PublishedSequence::new(10);
        let (a, b, c) = (leader(), leader(), leader());
        q.register(12, Arc::clone(&a));
        q.register(13, Arc::clone(&b));
        q.register(20, Arc::clone(&c));
        assert!(matches!(
            q.complete(20, Ok(()), &published),
            Completion::Queued
        ));
        assert!(matches!(
            q.complete(13, Ok(()), &published),
            Completion::Queued
        ));
        assert_eq!(published.load(), 10, "nothing before group 12 is done");
        assert!(matches!(
            q.complete(12, Ok(()), &published),
            Completion::Published
        ));
        assert_eq!(published.load(), 20);
        for w in [&b, &c] {
            assert_eq!(
                w.await_state(PUBLISHED, &policy(), &Default::default()),
                PUBLISHED
            );
            w.take_result().expect("published");
        }
        q.wait_through(20);
    }

    /// Regression (found by the kill9 suite as a stale read of a thread's own write): a leader
    /// woken because another group published its group must find the published sequence
    /// already covering its group, since it returns Ok to callers who then read their writes.
    #[test]
    fn a_leader_woken_by_another_groups_publication_finds_its_group_published() {
        for _ in 0..300 {
            let q = Arc::new(PublishQueue::default());
            let published = Arc::new(PublishedSequence::new(0));
            let a = leader();
            q.register(1, Arc::clone(&a));
            let (tx, rx) = std::sync::mpsc::channel();
            let waiter = {
                let (q, published) = (Arc::clone(&q), Arc::clone(&published));
                std::thread::spawn(move || {
                    let b = leader();
                    q.register(2, Arc::clone(&b));
                    assert!(matches!(
                        q.complete(2, Ok(()), &published),
                        Completion::Queued
                    ));
                    tx.send(()).unwrap();
                    b.await_state(PUBLISHED, &policy(), &Default::default());
                    b.take_result().expect("published");
                    published.load()
                })
            };
            rx.recv().unwrap();
            assert!(matches!(
                q.complete(1, Ok(()), &published),
                Completion::Published
            ));
            assert!(
                waiter.join().unwrap() >= 2,
                "woken before its group was published"
            );
        }
    }

    /// A failed insert stops publication: the queued leaders get `Poisoned`, groups still
    /// inserting find the queue stopped, and nothing after the failure is published.
    #[test]
    fn a_failed_insert_stops_publication_for_every_later_group() {
        let q = PublishQueue::default();
        let published = PublishedSequence::new(0);
        let (a, b, c) = (leader(), leader(), leader());
        q.register(1, Arc::clone(&a));
        q.register(2, Arc::clone(&b));
        q.register(3, Arc::clone(&c));
        assert!(matches!(
            q.complete(3, Ok(()), &published),
            Completion::Queued
        ));
        assert!(matches!(
            q.complete(1, Err("insert failed".into()), &published),
            Completion::Stopped(_)
        ));
        assert_eq!(
            c.await_state(PUBLISHED, &policy(), &Default::default()),
            PUBLISHED
        );
        let e = c.take_result().expect_err("poisoned");
        assert!(format!("{e}").contains("insert failed"), "{e}");
        assert!(matches!(
            q.complete(2, Ok(()), &published),
            Completion::Stopped(_)
        ));
        assert_eq!(published.load(), 0);
        // Waiters are released rather than left waiting for a publication that never comes.
        q.wait_through(3);
    }

    /// A group abandoned after a failed WAL write does not hold up the groups before it, and
    /// waiters for it are released.
    #[test]
    fn an_abandoned_group_releases_waiters_and_earlier_groups_still_publish() {
        let q = PublishQueue::default();
        let published = PublishedSequence::new(0);
        let (a, b) = (leader(), leader());
        q.register(4, Arc::clone(&a));
        q.register(9, Arc::clone(&b));
        q.abandon(9);
        assert!(matches!(
            q.complete(4, Ok(()), &published),
            Completion::Published
        ));
        assert_eq!(published.load(), 4);
        q.wait_through(9);
        assert_eq!(
            b.state_for_tests(),
            WAITING,
            "the abandoned leader is not woken"
        );
    }

    fn policy() -> crate::db::writer::WaitPolicy {
        crate::db::writer::WaitPolicy {
            adaptive_yield: true,
            max_yield: std::time::Duration::from_micros(100),
            slow_yield: std::time::Duration::from_micros(3),
        }
    }
}
