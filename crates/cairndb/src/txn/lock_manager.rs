//! The point-lock table of pessimistic transactions (RocksDB's `PointLockManager`): per-key
//! shared and exclusive locks in a striped hash table, lock waits with timeouts, lock stealing
//! from expired transactions, and deadlock detection over a wait-for graph.
//!
//! Who calls it: transactions, when they write a key or read it for update, and writes outside
//! a transaction; both release their locks when they end. Any number of threads.
//!
//! What it owns: `stripes` (each a mutex over `cf -> key -> lock`, with a condition variable
//! that every release on the stripe notifies), the wait-for graph (`waits`: a waiting
//! transaction, the holders it waits for, and the key), the deadlock buffer, and the lock count
//! of each column family when `max_num_locks` is set.
//!
//! Invariants:
//! 1. A key's lock is held either exclusively by one transaction or shared by one or more; a
//!    transaction holding it shared alone may upgrade it to exclusive.
//! 2. A waiter registers in the wait-for graph before it sleeps and leaves it when it wakes;
//!    registration and the cycle search (with deadlock detection) run under the graph's mutex,
//!    so of two transactions that start waiting on each other, the second finds the cycle.
//! 3. A lock whose every holder has expired may be taken: the holders are first marked as
//!    having lost their locks (a compare-and-swap that fails if their commit has begun), so an
//!    expired transaction never commits over a stolen lock.
//! 4. Lock order: a stripe, then the wait graph or the deadlock buffer or the lock counts; never
//!    two stripes at once.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use parking_lot::{Condvar, Mutex};

use crate::error::{Error, Result};

/// A transaction's id, unique within one transaction database.
pub type TransactionId = u64;

/// State shared between a transaction and the locks it holds (for stealing, invariant 3).
#[derive(Debug)]
pub(crate) struct TxnShared {
    pub(crate) id: TransactionId,
    /// When the transaction expires, if it can.
    pub(crate) expires_at: Option<Instant>,
    state: AtomicU8,
}

const ACTIVE: u8 = 0;
const COMMITTING: u8 = 1;
const LOCKS_STOLEN: u8 = 2;

impl TxnShared {
    pub(crate) fn new(id: TransactionId, expires_at: Option<Instant>) -> Arc<Self> {
        Arc::new(TxnShared {
            id,
            expires_at,
            state: AtomicU8::new(ACTIVE),
        })
    }

    fn expired(&self, now: Instant) -> bool {
        self.expires_at.is_some_and(|t| now >= t)
    }

    /// Called at commit: false when the transaction expired (its locks may be gone).
    pub(crate) fn begin_commit(&self) -> bool {
        if self.expired(Instant::now()) {
            // Expired but not yet stolen from: still refuse, as RocksDB does.
            let _ = self.state.compare_exchange(
                ACTIVE,
                LOCKS_STOLEN,
                Ordering::AcqRel,
                Ordering::Acquire,
            );
            return false;
        }
        self.state
            .compare_exchange(ACTIVE, COMMITTING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    fn steal(&self) -> bool {
        match self
            .state
            .compare_exchange(ACTIVE, LOCKS_STOLEN, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(s) => s == LOCKS_STOLEN,
        }
    }

    /// Whether another transaction took (or may take) this one's locks.
    pub(crate) fn locks_stolen(&self) -> bool {
        self.state.load(Ordering::Acquire) == LOCKS_STOLEN
    }
}

/// One lock request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LockRequest<'k> {
    pub(crate) cf: u32,
    pub(crate) key: &'k [u8],
    pub(crate) exclusive: bool,
    /// How long to wait; `None`: forever.
    pub(crate) timeout: Option<Duration>,
    /// Search for deadlocks before waiting, following at most this many waiters.
    pub(crate) deadlock_detect_depth: Option<usize>,
}

/// What a granted lock request changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Granted {
    /// The transaction already held the lock in a mode at least as strong.
    AlreadyHeld,
    /// A shared lock the transaction held alone became exclusive.
    Upgraded,
    /// The lock is new to the transaction.
    New,
}

/// One transaction in a detected deadlock: what it was waiting for (RocksDB's `DeadlockInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadlockInfo {
    /// The waiting transaction.
    pub txn_id: TransactionId,
    /// The column family of the key it waited for.
    pub cf_id: u32,
    /// Whether it wanted the lock exclusively.
    pub exclusive: bool,
    /// The key it waited for.
    pub waiting_key: Vec<u8>,
}

/// A detected deadlock (RocksDB's `DeadlockPath`): the cycle of waits, starting with the
/// transaction that was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadlockPath {
    /// The transactions of the cycle, each waiting for the next (the last for the first).
    pub path: Vec<DeadlockInfo>,
    /// True when the search gave up at `deadlock_detect_depth` (the path is then empty and
    /// the refusal is a precaution).
    pub limit_exceeded: bool,
    /// When it was detected, in seconds since the Unix epoch.
    pub deadlock_time: u64,
}

#[derive(Debug)]
struct LockInfo {
    exclusive: bool,
    holders: Vec<Arc<TxnShared>>,
}

#[derive(Debug, Default)]
struct Stripe {
    locks: Mutex<HashMap<u32, HashMap<Vec<u8>, LockInfo>>>,
    released: Condvar,
}

/// A waiting transaction in the wait-for graph.
#[derive(Debug)]
struct Waiting {
    for_ids: Vec<TransactionId>,
    cf: u32,
    key: Vec<u8>,
    exclusive: bool,
}

/// The lock table; see the module documentation.
#[derive(Debug)]
pub(crate) struct LockManager {
    stripes: Box<[Stripe]>,
    max_num_locks: Option<usize>,
    counts: Mutex<HashMap<u32, usize>>,
    waits: Mutex<HashMap<TransactionId, Waiting>>,
    deadlocks: Mutex<VecDeque<DeadlockPath>>,
    max_num_deadlocks: usize,
}

impl LockManager {
    pub(crate) fn new(num_stripes: usize, max_num_locks: i64, max_num_deadlocks: usize) -> Self {
        LockManager {
            stripes: (0..num_stripes.max(1)).map(|_| Stripe::default()).collect(),
            max_num_locks: usize::try_from(max_num_locks).ok().filter(|&n| n > 0),
            counts: Mutex::new(HashMap::new()),
            waits: Mutex::new(HashMap::new()),
            deadlocks: Mutex::new(VecDeque::new()),
            max_num_deadlocks,
        }
    }

    fn stripe(&self, cf: u32, key: &[u8]) -> &Stripe {
        let h = xxhash_rust::xxh3::xxh3_64_with_seed(key, u64::from(cf));
        &self.stripes[(h % self.stripes.len() as u64) as usize]
    }

    /// Takes `req`'s lock for `txn`, waiting as the request allows.
    ///
    /// # Errors
    /// [`Error::TimedOut`] when the wait ran out; [`Error::Deadlock`] when waiting would close a
    /// cycle (or the search went past its depth); [`Error::Busy`] at `max_num_locks`.
    pub(crate) fn lock(&self, txn: &Arc<TxnShared>, req: &LockRequest<'_>) -> Result<Granted> {
        let stripe = self.stripe(req.cf, req.key);
        let deadline = req.timeout.map(|t| Instant::now() + t);
        let mut locks = stripe.locks.lock();
        loop {
            let now = Instant::now();
            let map = locks.entry(req.cf).or_default();
            let blockers = match map.get_mut(req.key) {
                None => {
                    self.count_new_lock(req.cf)?;
                    map.insert(
                        req.key.to_vec(),
                        LockInfo {
                            exclusive: req.exclusive,
                            holders: vec![Arc::clone(txn)],
                        },
                    );
                    return Ok(Granted::New);
                }
                Some(info) => {
                    let mine = info.holders.iter().any(|h| h.id == txn.id);
                    let is_other = |h: &&Arc<TxnShared>| h.id != txn.id;
                    if !info.holders.iter().any(|h| is_other(&h)) {
                        // Held by this transaction alone (invariant 1).
                        return Ok(if req.exclusive && !info.exclusive {
                            info.exclusive = true;
                            Granted::Upgraded
                        } else {
                            Granted::AlreadyHeld
                        });
                    }
                    if !req.exclusive && !info.exclusive {
                        if mine {
                            return Ok(Granted::AlreadyHeld);
                        }
                        info.holders.push(Arc::clone(txn));
                        return Ok(Granted::New);
                    }
                    // Invariant 3: take the lock from holders that all expired.
                    if info.holders.iter().filter(is_other).all(|h| h.expired(now))
                        && info.holders.iter().filter(is_other).all(|h| h.steal())
                    {
                        info.holders.retain(|h| h.id == txn.id);
                        let granted = if info.holders.is_empty() {
                            info.holders.push(Arc::clone(txn));
                            Granted::New
                        } else {
                            Granted::Upgraded
                        };
                        info.exclusive = req.exclusive;
                        return Ok(granted);
                    }
                    let earliest_expiry = info
                        .holders
                        .iter()
                        .filter(is_other)
                        .filter_map(|h| h.expires_at)
                        .min();
                    let ids: Vec<TransactionId> =
                        info.holders.iter().filter(is_other).map(|h| h.id).collect();
                    (ids, earliest_expiry)
                }
            };
            let (ids, earliest_expiry) = blockers;
            if deadline.is_some_and(|d| now >= d) {
                return Err(Error::TimedOut(format!(
                    "lock wait on a key of column family {} by transaction {}",
                    req.cf, txn.id
                )));
            }
            self.register_wait(txn.id, ids, req, req.deadlock_detect_depth)?;
            let wake_at = match (deadline, earliest_expiry) {
                (Some(d), Some(e)) => Some(d.min(e)),
                (d, e) => d.or(e),
            };
            match wake_at {
                Some(t) => {
                    stripe.released.wait_until(&mut locks, t);
                }
                None => stripe.released.wait(&mut locks),
            }
            self.waits.lock().remove(&txn.id);
        }
    }

    /// Releases `txn`'s lock on `key` in `cf`, if it holds one, and wakes the stripe's waiters.
    pub(crate) fn unlock(&self, txn: TransactionId, cf: u32, key: &[u8]) {
        let stripe = self.stripe(cf, key);
        let mut locks = stripe.locks.lock();
        let Some(map) = locks.get_mut(&cf) else {
            return;
        };
        let Some(info) = map.get_mut(key) else {
            return;
        };
        let before = info.holders.len();
        info.holders.retain(|h| h.id != txn);
        if info.holders.len() == before {
            return;
        }
        if info.holders.is_empty() {
            map.remove(key);
            if self.max_num_locks.is_some() {
                if let Some(n) = self.counts.lock().get_mut(&cf) {
                    *n = n.saturating_sub(1);
                }
            }
        }
        drop(locks);
        stripe.released.notify_all();
    }

    /// Counts a new lock in `cf` against `max_num_locks`.
    fn count_new_lock(&self, cf: u32) -> Result<()> {
        let Some(max) = self.max_num_locks else {
            return Ok(());
        };
        let mut counts = self.counts.lock();
        let n = counts.entry(cf).or_insert(0);
        if *n >= max {
            return Err(Error::Busy(format!(
                "lock limit: column family {cf} already holds max_num_locks = {max} locks"
            )));
        }
        *n += 1;
        Ok(())
    }

    /// Registers `txn` as waiting for `holders` and, with deadlock detection (`depth`),
    /// searches the wait-for graph for a cycle back to it (invariant 2).
    fn register_wait(
        &self,
        txn: TransactionId,
        holders: Vec<TransactionId>,
        req: &LockRequest<'_>,
        depth: Option<usize>,
    ) -> Result<()> {
        let mut waits = self.waits.lock();
        let Some(depth) = depth else {
            waits.insert(
                txn,
                Waiting {
                    for_ids: holders,
                    cf: req.cf,
                    key: req.key.to_vec(),
                    exclusive: req.exclusive,
                },
            );
            return Ok(());
        };
        // Breadth-first from the holders; `queue[i].1` is the index of the waiter that led there.
        let mut queue: Vec<(TransactionId, Option<usize>)> =
            holders.iter().map(|&h| (h, None)).collect();
        let mut visited: std::collections::HashSet<TransactionId> =
            holders.iter().copied().collect();
        let mut found = None;
        let mut limit_exceeded = false;
        let mut i = 0;
        while i < queue.len() {
            if i >= depth {
                limit_exceeded = true;
                break;
            }
            let (id, _) = queue[i];
            if id == txn {
                found = Some(i);
                break;
            }
            if let Some(w) = waits.get(&id) {
                for &next in &w.for_ids {
                    // A transaction met before needs no second visit (a cycle among others,
                    // waiting out their timeouts, must not make the search run to its depth).
                    if visited.insert(next) {
                        queue.push((next, Some(i)));
                    }
                }
            }
            i += 1;
        }
        if found.is_none() && !limit_exceeded {
            waits.insert(
                txn,
                Waiting {
                    for_ids: holders,
                    cf: req.cf,
                    key: req.key.to_vec(),
                    exclusive: req.exclusive,
                },
            );
            return Ok(());
        }
        let mut path = Vec::new();
        if let Some(mut at) = found {
            path.push(DeadlockInfo {
                txn_id: txn,
                cf_id: req.cf,
                exclusive: req.exclusive,
                waiting_key: req.key.to_vec(),
            });
            // Walk back from the cycle's end (`txn` again) to the first holder.
            let mut chain = Vec::new();
            while let Some(parent) = queue[at].1 {
                chain.push(queue[parent].0);
                at = parent;
            }
            for id in chain.into_iter().rev() {
                if let Some(w) = waits.get(&id) {
                    path.push(DeadlockInfo {
                        txn_id: id,
                        cf_id: w.cf,
                        exclusive: w.exclusive,
                        waiting_key: w.key.clone(),
                    });
                }
            }
        }
        drop(waits);
        let cycle = path.len();
        self.record_deadlock(DeadlockPath {
            path,
            limit_exceeded,
            deadlock_time: SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        });
        Err(Error::Deadlock(if limit_exceeded {
            format!("transaction {txn}: deadlock search gave up at deadlock_detect_depth = {depth}")
        } else {
            format!("transaction {txn} would close a cycle of {cycle} waiting transactions")
        }))
    }

    fn record_deadlock(&self, path: DeadlockPath) {
        if self.max_num_deadlocks == 0 {
            return;
        }
        let mut buf = self.deadlocks.lock();
        while buf.len() >= self.max_num_deadlocks {
            buf.pop_front();
        }
        buf.push_back(path);
    }

    /// The recorded deadlocks, oldest first.
    pub(crate) fn deadlock_info_buffer(&self) -> Vec<DeadlockPath> {
        self.deadlocks.lock().iter().cloned().collect()
    }

    /// Every waiting transaction with the holders it waits for, by id.
    pub(crate) fn waiting(&self) -> Vec<(TransactionId, Vec<TransactionId>)> {
        let mut out: Vec<_> = self
            .waits
            .lock()
            .iter()
            .map(|(&id, w)| (id, w.for_ids.clone()))
            .collect();
        out.sort();
        out
    }

    /// Every held lock: `(cf, key, exclusive, holder ids)` (RocksDB's `GetLockStatusData`).
    pub(crate) fn lock_status(&self) -> Vec<(u32, Vec<u8>, bool, Vec<TransactionId>)> {
        let mut out = Vec::new();
        for stripe in self.stripes.iter() {
            for (&cf, map) in stripe.locks.lock().iter() {
                for (key, info) in map {
                    out.push((
                        cf,
                        key.clone(),
                        info.exclusive,
                        info.holders.iter().map(|h| h.id).collect(),
                    ));
                }
            }
        }
        out.sort();
        out
    }
}
