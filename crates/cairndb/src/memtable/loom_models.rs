//! Loom models of the lock-free code, run on the real code (docs/design/durability.md,
//! "Concurrency models").
//!
//! [loom](https://docs.rs/loom) runs each model under every thread interleaving up to a
//! preemption bound, and lets each load return any value the C11 memory model allows for the
//! orderings used. The skiplist, its arena and nodes, and the published sequence number take
//! their atomics from `crate::util::sync`, which are loom's in a `--cfg loom` build; so these
//! models run `SkipList::insert_with_height`, `seek`, `seek_before`, `first`, `next` and `last`,
//! `insert_batch` and `MemTable::get`, and `PublishedSequence::publish`/`load` as the engine
//! runs them. A weakened ordering in `memtable/skiplist.rs`, `node.rs`, `arena.rs` or
//! `db/sequence.rs` makes a model fail: a reader then reaches a node whose links' creation does
//! not happen before its load (loom: "Causality violation: Concurrent load and mut accesses"),
//! or loads a published sequence number whose entries it cannot find. With `cas_next` made
//! `Relaxed`, both models fail at once.
//!
//! Limits. Only loom's atomics, mutex and thread-locals are tracked: a node's key and value bytes
//! are plain arena memory that loom cannot see, so a torn payload is caught through the node's
//! links, which `NodePtr::allocate` creates together with the bytes (not through the bytes
//! themselves; ThreadSanitizer checks those, see `tests.rs`). Tower heights are fixed (explicit in the skiplist model, a fixed per-thread
//! sequence in a loom build for the memtable's inserts) so that every execution of a schedule
//! takes the same steps. The commit leader's queue (`DbState`'s `leader_active` and the lock
//! around sequence assignment in `db/write.rs`) is restated here with a loom mutex, because
//! `lead` needs a whole database; the memtable insert and the publication it orders are the
//! real ones. The restated order is the one without pipelined writes; the pipelined publication
//! queue (`db/publish_queue.rs`) is not modelled here (see `docs/design/durability.md`).
//!
//! How to run (a normal build does not compile this module):
//!
//! ```text
//! RUSTFLAGS="--cfg loom" cargo test -p cairndb --lib loom_             # bound 2
//! RUSTFLAGS="--cfg loom" cargo test -p cairndb --lib loom_ -- --ignored --nocapture  # bound 3
//! ```
//!
//! The second is the reliability suite `scripts/reliability.sh concurrency_models`. Every
//! figure of its `RELIABILITY` line is counted; a model stops at its first failing schedule (loom
//! panics with that schedule), so the line has no failure count: the run fails instead.

use std::sync::atomic::{AtomicUsize as StdAtomicUsize, Ordering::Relaxed as StdRelaxed};

use loom::sync::{Arc, Condvar, Mutex};
use loom::thread;

use super::node::NodePtr;
use super::skiplist::{SkipList, Splice};
use super::{insert_batch, MemGet, MemTable, MemTableOptions};
use crate::batch::WriteBatch;
use crate::db::sequence::PublishedSequence;
use crate::types::{make_internal_key, pack_trailer, ValueKind};

/// Runs `f` under loom at `preemption_bound`; returns how many executions loom explored.
fn explore<F>(preemption_bound: usize, f: F) -> usize
where
    F: Fn() + Sync + Send + 'static,
{
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(preemption_bound);
    let executions = std::sync::Arc::new(StdAtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&executions);
    builder.check(move || {
        counter.fetch_add(1, StdRelaxed);
        f();
    });
    executions.load(StdRelaxed)
}

/// The user key of model key `k`.
fn user_key(k: u64) -> [u8; 8] {
    k.to_be_bytes()
}

/// (model key, sequence number) of a node.
fn decode(node: NodePtr) -> (u64, u64) {
    // SAFETY: every node handed to this function belongs to a list the caller keeps alive.
    let ikey = unsafe { node.key() };
    let (user, trailer) = ikey.split_at(ikey.len() - 8);
    let key = u64::from_be_bytes(user.try_into().expect("8-byte model keys"));
    let trailer = u64::from_le_bytes(trailer.try_into().expect("8-byte trailer"));
    (key, trailer >> 8)
}

/// Inserts model key `k` at sequence `seq` with a tower of `height`, through the real insert.
fn insert(list: &SkipList, k: u64, seq: u64, height: usize) {
    let trailer = pack_trailer(seq, ValueKind::Put as u8);
    assert!(list.insert_with_height(&mut Splice::default(), height, &user_key(k), trailer, b"v"));
}

/// Level-0 iteration (`first`, `next`): every entry, in list order.
fn entries(list: &SkipList) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut n = list.first();
    while let Some(node) = n {
        out.push(decode(node));
        // SAFETY: `node` came from `list`.
        n = unsafe { list.next(node) };
    }
    out
}

/// The checks a reader makes on one pass: level-0 iteration strictly increasing (skiplist
/// invariant 1), each key seen found again by `seek` from the top and bracketed by
/// `seek_before`, and `last` no earlier than the last key seen (a node reachable at level 0
/// stays reachable through every level above). Returns what the pass saw.
fn check_reader_view(list: &SkipList, checks: &StdAtomicUsize) -> Vec<(u64, u64)> {
    let seen = entries(list);
    assert!(
        seen.windows(2).all(|w| w[0].0 < w[1].0),
        "level-0 iteration out of order: {seen:?}"
    );
    for &(k, seq) in &seen {
        let target = make_internal_key(&user_key(k), seq, ValueKind::Put);
        let found = list.seek(&target).map(decode);
        assert_eq!(
            found,
            Some((k, seq)),
            "key {k} seen by iteration, lost by seek"
        );
        let at_or_before = list.seek_before(&target, true).map(decode);
        assert_eq!(at_or_before, Some((k, seq)), "key {k} lost by seek_before");
        checks.fetch_add(1, StdRelaxed);
    }
    if let Some(&(k, _)) = seen.last() {
        let last = list
            .last()
            .map(decode)
            .expect("a non-empty list has a last node");
        assert!(last.0 >= k, "last() {last:?} before the last key seen {k}");
    }
    seen
}

/// Counts of one model run.
#[derive(Debug, Clone, Copy)]
struct ModelRun {
    /// Executions (schedules) loom explored.
    schedules: usize,
    /// Keys a reader checked, over all executions.
    reader_checks: usize,
}

/// The real skiplist: two inserters race for the same predecessors (the head, before the
/// pre-linked key 30, on both levels of a two-level list) while a reader iterates twice, seeks
/// and takes the last node.
fn skiplist_model(preemption_bound: usize) -> ModelRun {
    let checks = std::sync::Arc::new(StdAtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&checks);
    let schedules = explore(preemption_bound, move || {
        let checks = std::sync::Arc::clone(&counted);
        let list = Arc::new(SkipList::new(4096, crate::comparator::KeyOrder::BYTEWISE));
        insert(&list, 30, 1, 2);
        let writers: Vec<_> = [(10u64, 2usize), (20, 1)]
            .into_iter()
            .enumerate()
            .map(|(i, (key, height))| {
                let list = Arc::clone(&list);
                thread::spawn(move || insert(&list, key, 2 + i as u64, height))
            })
            .collect();
        let reader = {
            let list = Arc::clone(&list);
            let checks = std::sync::Arc::clone(&checks);
            thread::spawn(move || {
                let first = check_reader_view(&list, &checks);
                assert!(
                    first.iter().any(|&(k, _)| k == 30),
                    "pre-linked key lost: {first:?}"
                );
                // A later pass never loses what an earlier one saw.
                let second = check_reader_view(&list, &checks);
                for e in &first {
                    assert!(second.contains(e), "{e:?} seen, then gone: {second:?}");
                }
            })
        };
        for w in writers {
            w.join().expect("writer");
        }
        reader.join().expect("reader");
        // Every insert is visible once its writer is joined, at level 0 and through seek.
        let all: Vec<u64> = check_reader_view(&list, &checks)
            .iter()
            .map(|e| e.0)
            .collect();
        assert_eq!(all, [10, 20, 30]);
    });
    ModelRun {
        schedules,
        reader_checks: checks.load(StdRelaxed),
    }
}

/// The part of `DbState` the commit pipeline's leader protocol uses.
struct Leader {
    active: bool,
    /// The versions' `last_sequence`: the last sequence number assigned.
    last_sequence: u64,
}

/// The commit pipeline around the real memtable and the real published sequence number.
struct Pipeline {
    state: Mutex<Leader>,
    cond: Condvar,
    published: PublishedSequence,
    mem: MemTable,
}

/// Keys per batch: each writer commits one batch of this many puts.
const BATCH: u64 = 2;

/// Model keys the writers put: writer `w` puts `10 + 10w` and `30 + 10w`, so the two batches
/// interleave in key order.
const KEYS: [u64; 4] = [10, 20, 30, 40];

impl Pipeline {
    /// `commit` + `lead` (db/write.rs) for a group of one: under the lock, wait for the leader
    /// slot and take the next sequence numbers; insert the batch with the lock released
    /// (`insert_batch`, as `lead` does); under the lock again, record and publish.
    fn commit(&self, keys: &[u64]) {
        let mut st = self.state.lock().expect("state");
        while st.active {
            st = self.cond.wait(st).expect("state");
        }
        st.active = true;
        let first = st.last_sequence + 1;
        drop(st);
        let mut batch = WriteBatch::new();
        for &k in keys {
            batch.put(&user_key(k), b"v").expect("small put");
        }
        batch.set_sequence(first);
        insert_batch(&batch, |_| Ok(Some(&self.mem))).expect("memtable insert");
        let mut st = self.state.lock().expect("state");
        let last = first + keys.len() as u64 - 1;
        st.last_sequence = last;
        self.published.publish(last);
        st.active = false;
        self.cond.notify_all();
    }

    /// `begin_read` + `MemTable::get` at the snapshot for every key: the snapshot and the
    /// sequence numbers of the entries visible at it.
    fn read(&self, checks: &StdAtomicUsize) -> (u64, Vec<u64>) {
        let snapshot = self.published.load();
        let mut seqs = Vec::new();
        for k in KEYS {
            match self.mem.get(&user_key(k), snapshot) {
                Some(MemGet::Value { seq, .. }) => seqs.push(seq),
                None => {}
                Some(other) => panic!("key {k}: unexpected {other:?}"),
            }
            checks.fetch_add(1, StdRelaxed);
        }
        seqs.sort_unstable();
        (snapshot, seqs)
    }
}

/// Two writers commit a two-key batch each through the real memtable and publication while a
/// reader takes two snapshots and reads every key at each.
fn sequence_model(preemption_bound: usize) -> ModelRun {
    let checks = std::sync::Arc::new(StdAtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&checks);
    let schedules = explore(preemption_bound, move || {
        let checks = std::sync::Arc::clone(&counted);
        let p = Arc::new(Pipeline {
            state: Mutex::new(Leader {
                active: false,
                last_sequence: 0,
            }),
            cond: Condvar::new(),
            published: PublishedSequence::new(0),
            mem: MemTable::new(MemTableOptions {
                arena_block_size: 4096,
                ..MemTableOptions::default()
            }),
        });
        let writers: Vec<_> = (0..2u64)
            .map(|w| {
                let p = Arc::clone(&p);
                thread::spawn(move || p.commit(&[10 + 10 * w, 30 + 10 * w]))
            })
            .collect();
        let reader = {
            let p = Arc::clone(&p);
            let checks = std::sync::Arc::clone(&checks);
            thread::spawn(move || {
                let mut last_snapshot = 0;
                for _ in 0..2 {
                    let (s, seqs) = p.read(&checks);
                    assert!(
                        s >= last_snapshot,
                        "publication went back: {last_snapshot} -> {s}"
                    );
                    assert_eq!(s % BATCH, 0, "published sequence {s} splits a batch");
                    // Sequences are dense and published only after their batch is inserted,
                    // so a snapshot sees exactly sequences 1..=s: whole batches, nothing later.
                    assert_eq!(seqs, (1..=s).collect::<Vec<_>>(), "snapshot {s}");
                    last_snapshot = s;
                }
            })
        };
        for w in writers {
            w.join().expect("writer");
        }
        reader.join().expect("reader");
        let (s, seqs) = p.read(&checks);
        assert_eq!(s, 2 * BATCH);
        assert_eq!(seqs, [1, 2, 3, 4]);
    });
    ModelRun {
        schedules,
        reader_checks: checks.load(StdRelaxed),
    }
}

/// Preemption bound of the plain `loom_` tests: seconds each.
const TEST_BOUND: usize = 2;

#[test]
fn loom_skiplist_concurrent_inserts_and_readers() {
    let run = skiplist_model(TEST_BOUND);
    assert!(run.schedules > 1 && run.reader_checks > 0, "{run:?}");
}

#[test]
fn loom_sequence_publication_is_all_or_nothing_and_monotonic() {
    let run = sequence_model(TEST_BOUND);
    assert!(run.schedules > 1 && run.reader_checks > 0, "{run:?}");
}

/// The reliability suite: both models at bound 3 (4 with `CAIRN_RELIABILITY_SCALE` >= 10),
/// printing the `RELIABILITY` line. Floors: each model explored more than one schedule and its
/// readers checked keys (a model whose threads never overlapped would explore one).
#[test]
#[ignore = "reliability suite; run by scripts/reliability.sh concurrency_models"]
fn loom_reliability_concurrency_models() {
    let scale: usize = std::env::var("CAIRN_RELIABILITY_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let bound = if scale >= 10 { 4 } else { 3 };
    // Ends the harness's `test ... ` line so the RELIABILITY line starts a line of its own.
    println!("concurrency_models: loom on the real skiplist and publication, bound {bound}");
    let start = std::time::Instant::now();
    let skiplist = skiplist_model(bound);
    let sequence = sequence_model(bound);
    let secs = start.elapsed().as_secs_f64();
    let schedules = skiplist.schedules + sequence.schedules;
    println!(
        "RELIABILITY concurrency_models skiplist_schedules={} skiplist_reader_checks={} \
         sequence_schedules={} sequence_reader_checks={} floor_skiplist_schedules>=2 \
         floor_skiplist_reader_checks>=1 floor_sequence_schedules>=2 \
         floor_sequence_reader_checks>=1 seed=exhaustive preemption_bound={bound} \
         schedules_per_sec={:.0} secs={secs:.1}",
        skiplist.schedules,
        skiplist.reader_checks,
        sequence.schedules,
        sequence.reader_checks,
        schedules as f64 / secs.max(1e-9),
    );
    for (name, run) in [("skiplist", skiplist), ("sequence", sequence)] {
        assert!(
            run.schedules > 1,
            "{name}: loom explored {} schedules",
            run.schedules
        );
        assert!(run.reader_checks > 0, "{name}: no reader checked a key");
    }
}
