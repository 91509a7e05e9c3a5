//! A queued writer and how it waits for its turn: RocksDB's `WriteThread::Writer` and its
//! adaptive `AwaitState`.
//!
//! Who calls it: `write.rs`. Each call of `Db::write` makes one [`Writer`] and queues it under
//! the state mutex; from then on the writer's own thread waits on the writer's `state`, and the
//! commit leader (another writer's thread) moves it: to [`LEADER`] when it reaches the head of
//! the queue with no leader active, to [`INSERT`] when the leader hands it its batch to insert
//! into the memtables itself, to [`DONE`] when its result is in. A leader waiting for its group's
//! members to finish their inserts waits on its own writer for [`GROUP_INSERTED`].
//!
//! Waiting does not go through the kernel when it need not. A commit group takes a few
//! microseconds, and a thread woken through a futex costs about as much again on each side
//! (a profile of four writers put 40% of the time in futex waits and wake-ups when every
//! follower slept on one condition variable). So a waiter first spins on its state for about a
//! microsecond, then yields its core for up to `write_thread_max_yield_usec`, and only then
//! parks. The yielding phase pays only when the state tends to change within it: as RocksDB
//! does, each wait site keeps a score of whether yielding reached the state, sampled on one wait
//! in 256 and whenever a yield was slow (the core was busy: more runnable threads than cores),
//! and skips the phase while the score is negative. `enable_write_thread_adaptive_yield = false`
//! skips it always.
//!
//! Invariants:
//! 1. A state is set by a thread other than the waiter, with Release, after everything the
//!    waiter will read (its task, its result) was written; the waiter reads it with Acquire.
//! 2. A setter unparks the waiter after the store, so a waiter that parks after its last check
//!    of the state is woken (`Thread::unpark` before `park` makes that `park` return at once).
//! 3. The waiter alone moves its state back to [`WAITING`], and only from a state it has just
//!    acted on; no setter can have moved it further meanwhile (`write.rs` invariant 7).

use std::sync::atomic::{AtomicI32, AtomicU8, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::batch::WriteBatch;
use crate::error::Result;

/// Queued, nothing to do.
pub(super) const WAITING: u8 = 1;
/// At the head of the queue with no leader active: take the state lock and lead.
pub(super) const LEADER: u8 = 2;
/// A task is in `task`: insert it into the memtables, then report to the group.
pub(super) const INSERT: u8 = 4;
/// The result is in `result`.
pub(super) const DONE: u8 = 8;
/// (A leader's own writer.) Every member of its group finished its insert.
pub(super) const GROUP_INSERTED: u8 = 16;
/// (A leader's own writer, pipelined writes.) Another group's leader published this group (or
/// refused to, after a failure); the outcome is in `result` (`publish_queue.rs`).
pub(super) const PUBLISHED: u8 = 32;

/// Spins of the first phase; each is a `spin_loop` hint (tens of cycles), so about a
/// microsecond in all, RocksDB's 200 pauses.
const SPINS: u32 = 200;
/// Slow yields (longer than `write_thread_slow_yield_usec`) that end the yielding phase.
const MAX_SLOW_YIELDS: u32 = 3;
/// One wait in this many updates the score even while the score says not to yield.
const SAMPLING_BASE: u32 = 256;

/// How waiters wait: `enable_write_thread_adaptive_yield`, `write_thread_max_yield_usec` and
/// `write_thread_slow_yield_usec` (RocksDB's names and defaults: true, 100, 3).
#[derive(Debug, Clone, Copy)]
pub(super) struct WaitPolicy {
    pub(super) adaptive_yield: bool,
    pub(super) max_yield: Duration,
    pub(super) slow_yield: Duration,
}

impl WaitPolicy {
    /// The policy the database options set.
    pub(super) fn from_options(db: &crate::options::DbOptions) -> Self {
        WaitPolicy {
            adaptive_yield: db.enable_write_thread_adaptive_yield,
            max_yield: Duration::from_micros(db.write_thread_max_yield_usec),
            slow_yield: Duration::from_micros(db.write_thread_slow_yield_usec),
        }
    }
}

/// Whether yielding tends to pay at one wait site (RocksDB's `AdaptationContext`): a decaying
/// sum, positive while yields reached the state.
#[derive(Debug, Default)]
pub(super) struct YieldScore(AtomicI32);

/// One queued call of `Db::write`.
#[derive(Debug)]
pub(super) struct Writer {
    state: AtomicU8,
    thread: Thread,
    /// Set by the leader before [`INSERT`].
    task: Mutex<Option<MemberInsert>>,
    /// Set by the leader (or by whoever refuses the batch) before [`DONE`].
    result: Mutex<Option<Result<()>>>,
}

/// A follower's part of a group insert: its own batch (sequence numbers at its place in the
/// group's record) and the group it reports to.
#[derive(Debug)]
pub(super) struct MemberInsert {
    pub(super) batch: WriteBatch,
    /// The member's place in the group, leader 0.
    pub(super) index: usize,
    pub(super) group: std::sync::Arc<super::group_insert::GroupInsert>,
}

impl Writer {
    /// A writer owned by the calling thread, in state [`WAITING`].
    pub(super) fn new() -> Self {
        Writer {
            state: AtomicU8::new(WAITING),
            thread: std::thread::current(),
            task: Mutex::new(None),
            result: Mutex::new(None),
        }
    }

    /// Moves the writer to `state` and wakes its thread (invariants 1 and 2).
    pub(super) fn set_state(&self, state: u8) {
        self.state.store(state, Ordering::Release);
        self.thread.unpark();
    }

    /// Gives the writer its result and wakes it.
    pub(super) fn finish(&self, result: Result<()>) {
        *self.result.lock() = Some(result);
        self.set_state(DONE);
    }

    /// Gives a waiting leader the outcome of its group's publication and wakes it.
    pub(super) fn publish_outcome(&self, result: Result<()>) {
        *self.result.lock() = Some(result);
        self.set_state(PUBLISHED);
    }

    /// Gives a follower its batch to insert and wakes it.
    pub(super) fn hand_insert(&self, task: MemberInsert) {
        *self.task.lock() = Some(task);
        self.set_state(INSERT);
    }

    /// The result [`Writer::finish`] or [`Writer::publish_outcome`] left. Called by the
    /// writer's thread after [`DONE`] or [`PUBLISHED`].
    pub(super) fn take_result(&self) -> Result<()> {
        self.result
            .lock()
            .take()
            .expect("DONE and PUBLISHED are set after the result")
    }

    /// The task [`Writer::hand_insert`] left, with the state moved back to [`WAITING`]
    /// (invariant 3). Called by the writer's thread after [`INSERT`].
    pub(super) fn take_task(&self) -> MemberInsert {
        self.reset(INSERT);
        self.task
            .lock()
            .take()
            .expect("INSERT is set after the task")
    }

    /// The current state (tests only).
    #[cfg(test)]
    pub(super) fn state_for_tests(&self) -> u8 {
        self.state.load(Ordering::Acquire)
    }

    /// Moves the state from `from` back to [`WAITING`] (invariant 3). Called by the writer's
    /// thread only.
    pub(super) fn reset(&self, from: u8) {
        let moved = self
            .state
            .compare_exchange(from, WAITING, Ordering::AcqRel, Ordering::Acquire);
        debug_assert!(
            moved.is_ok(),
            "writer state moved on from {from}: {moved:?}"
        );
    }

    /// Waits until the state is one of `goal` (a mask) and returns it: spins, then yields while
    /// `score` says yielding pays, then parks. Called by the writer's own thread.
    pub(super) fn await_state(&self, goal: u8, policy: &WaitPolicy, score: &YieldScore) -> u8 {
        for _ in 0..SPINS {
            let s = self.state.load(Ordering::Acquire);
            if s & goal != 0 {
                return s;
            }
            std::hint::spin_loop();
        }
        if policy.adaptive_yield && !policy.max_yield.is_zero() {
            let sample = sample_one_in(SAMPLING_BASE);
            if sample || score.0.load(Ordering::Relaxed) >= 0 {
                let (reached, update) = self.yield_phase(goal, policy);
                if sample || update {
                    score.update(reached.is_some());
                }
                if let Some(s) = reached {
                    return s;
                }
            }
        }
        loop {
            let s = self.state.load(Ordering::Acquire);
            if s & goal != 0 {
                return s;
            }
            std::thread::park();
        }
    }

    /// Yields until the state reaches `goal`, `max_yield` passes or the yields turn slow.
    /// Returns the state reached, and whether the score should learn from this wait (slow
    /// yields always teach it).
    fn yield_phase(&self, goal: u8, policy: &WaitPolicy) -> (Option<u8>, bool) {
        let start = Instant::now();
        let mut slow = 0;
        loop {
            let before = Instant::now();
            if before.duration_since(start) > policy.max_yield {
                return (None, false);
            }
            std::thread::yield_now();
            let s = self.state.load(Ordering::Acquire);
            if s & goal != 0 {
                return (Some(s), false);
            }
            if before.elapsed() >= policy.slow_yield {
                slow += 1;
                if slow >= MAX_SLOW_YIELDS {
                    return (None, true);
                }
            }
        }
    }
}

impl YieldScore {
    /// A decaying sum: each update keeps 1023/1024 of the old value and adds or takes
    /// 2^17, so a run of failures turns it negative within a few samples.
    fn update(&self, reached: bool) {
        let v = self.0.load(Ordering::Relaxed);
        let step: i32 = if reached { 1 << 17 } else { -(1 << 17) };
        let next = (v - v / 1024).saturating_add(step);
        self.0.store(next, Ordering::Relaxed);
    }
}

/// True once in `n` calls on average, from a per-thread xorshift (no lock, no syscall).
fn sample_one_in(n: u32) -> bool {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u32> = const { Cell::new(0) };
    }
    STATE.with(|s| {
        let mut x = s.get();
        if x == 0 {
            // Seeded from the address of the thread-local, distinct per thread.
            x = (s as *const Cell<u32> as usize as u32) | 1;
        }
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        s.set(x);
        x % n == 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{mpsc, Arc};

    fn policy(adaptive_yield: bool) -> WaitPolicy {
        WaitPolicy {
            adaptive_yield,
            max_yield: Duration::from_micros(100),
            slow_yield: Duration::from_micros(3),
        }
    }

    /// A waiter on its own thread, in whichever phase (spinning, yielding, parked) the setter's
    /// store finds it: it must return the goal state, never a state outside the goal, and never
    /// miss the wake-up (a missed one hangs). Many rounds cover both orders of store and park.
    #[test]
    fn the_setter_wakes_a_waiter_in_any_phase_and_only_for_its_goal() {
        for adaptive in [true, false] {
            for round in 0..500 {
                let (tx, rx) = mpsc::channel::<Arc<Writer>>();
                let waiter = std::thread::spawn(move || {
                    let w = Arc::new(Writer::new());
                    tx.send(Arc::clone(&w)).unwrap();
                    let score = YieldScore::default();
                    let s = w.await_state(INSERT | DONE, &policy(adaptive), &score);
                    assert_eq!(s, INSERT, "the first state set in the goal");
                    let task = w.take_task();
                    assert_eq!(task.batch.count(), 1);
                    let s = w.await_state(DONE, &policy(adaptive), &score);
                    assert_eq!(s, DONE);
                    w.take_result()
                });
                let w = rx.recv().unwrap();
                // LEADER is outside the waiter's goal: it must keep waiting.
                w.set_state(LEADER);
                w.reset(LEADER);
                let mut batch = WriteBatch::new();
                batch.put(b"k", b"v").unwrap();
                let group = Arc::new(super::super::group_insert::GroupInsert::new(
                    Arc::clone(&w),
                    1,
                    Vec::new(),
                ));
                w.hand_insert(MemberInsert {
                    batch,
                    index: 1,
                    group,
                });
                // The waiter moves the state back to WAITING before waiting for DONE.
                while w.state.load(Ordering::Acquire) != WAITING {
                    std::thread::yield_now();
                }
                w.finish(Ok(()));
                waiter
                    .join()
                    .unwrap()
                    .unwrap_or_else(|e| panic!("round {round}: {e}"));
            }
        }
    }

    #[test]
    fn the_yield_score_turns_negative_after_failed_yields_and_back_after_successes() {
        let score = YieldScore::default();
        for _ in 0..4 {
            score.update(false);
        }
        assert!(score.0.load(Ordering::Relaxed) < 0);
        for _ in 0..8 {
            score.update(true);
        }
        assert!(score.0.load(Ordering::Relaxed) > 0);
    }

    #[test]
    fn sampling_picks_about_one_in_n() {
        let hits = (0..256 * 1000).filter(|_| sample_one_in(256)).count();
        assert!((500..2000).contains(&hits), "{hits} hits in 256000 calls");
    }
}
