//! Reliability suite `faults` (docs/design/durability.md, D5 and D6): injected EIO and ENOSPC on
//! every kind of file-system operation (read, write, fsync, directory fsync, open, create,
//! rename, remove, truncate, metadata), at every k-th operation of each kind and at random, during
//! a workload with WAL rolls, flushes, compactions, range deletions and reads. Each run counts,
//! and the suite goes on to the next run and fails at the end when any count is not zero:
//! - `wrong_answers`: a read that succeeded (a get, or the final scan) returned a wrong value;
//! - `unreported_faults`: a fault fired and every call returned Ok and no background error was
//!   recorded (faults on best-effort operations, obsolete-file removal and listing, are counted
//!   apart as `best_effort_unreported`);
//! - `silent_losses`: after reopening without faults, an acknowledged write is missing or wrong;
//! - `reopen_failures`: the reopen without faults, or a read after it, failed;
//! - `panics`: a run panicked; `hangs`: a run gave no result within half the hang limit (its
//!   thread is left behind and the suite goes on).
//!
//! Floors: faults that fired (a third of the runs: high k of rare kinds do not occur in the
//! workload), successful reads checked during the workloads, and acknowledged writes verified
//! after the reopens.
//!
//! D6: transient ENOSPC/EIO in a flush or a compaction is retried by the engine, and writes go on
//! without a reopen once the fault clears (`d6_*` counters, with floors: all 6 flush faults and
//! all 4 compaction faults retried). The D6 checks stop at their first failure (an assertion),
//! so they print no failure count.
//!
//! CI volume: 2,000 runs (every k in 1..=K per kind and fault, then random runs).

mod common;

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::Duration;

use cairndb::fs::{FaultFs, FaultKind, FaultRule, MemFs, OpKind};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;
use common::reliability::{Suite, Volume};
use common::DIR;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const WRITES: u32 = 240;
/// Floors per run (a fault often ends a workload early, so these are far below a clean run's
/// 2,900 reads and 210 acknowledged writes).
const READS_FLOOR_PER_RUN: u64 = 200;
const ACKED_FLOOR_PER_RUN: u64 = 20;

/// [`common::compaction_opts`] with smaller tables (32 KiB) and base level (64 KiB), so that
/// each run's few hundred writes reach several levels.
fn opts() -> Options {
    let mut o = common::compaction_opts();
    o.cf.target_file_size_base = 32 << 10;
    o.cf.max_bytes_for_level_base = 64 << 10;
    o
}

/// Five digits, not [`common::key`]'s six: the key length sets the table sizes, and so which
/// flushes and compactions the injected faults hit.
fn key(i: u32) -> Vec<u8> {
    format!("key{i:05}").into_bytes()
}

fn value(i: u32) -> Vec<u8> {
    vec![(i % 251) as u8; 600]
}

/// What the caller was told, and what the checks found.
#[derive(Default)]
struct Outcome {
    /// Keys whose put returned Ok and were not deleted by an acknowledged range deletion.
    acked: BTreeMap<Vec<u8>, Vec<u8>>,
    /// Keys whose put or deletion failed: present or absent, but never with a wrong value.
    uncertain: BTreeMap<Vec<u8>, Vec<u8>>,
    /// Some call returned an error, or the database reported a background error.
    saw_error: bool,
    /// Reads that succeeded and were checked.
    reads_checked: u64,
    /// Reads that succeeded with a wrong answer (the first few described).
    wrong_answers: u64,
    first_wrong: Option<String>,
}

impl Outcome {
    fn wrong(&mut self, what: String) {
        self.wrong_answers += 1;
        self.first_wrong.get_or_insert(what);
    }
}

fn workload(db: &Db, out: &mut Outcome) {
    let r = ReadOptions::default();
    for i in 0..WRITES {
        let sync = i % 10 == 9;
        let w = WriteOptions {
            sync,
            ..WriteOptions::default()
        };
        match db.put(&w, &key(i), &value(i)) {
            Ok(()) => {
                out.acked.insert(key(i), value(i));
            }
            Err(_) => {
                out.saw_error = true;
                out.uncertain.insert(key(i), value(i));
            }
        }
        if i % 60 == 59 {
            // Deletes keys i-10 .. i-5.
            let (a, b) = (key(i - 10), key(i - 5));
            let doomed: Vec<Vec<u8>> = out
                .acked
                .range(a.clone()..b.clone())
                .map(|(k, _)| k.clone())
                .collect();
            match db.delete_range(&WriteOptions::default(), &a, &b) {
                Ok(()) => {
                    for k in doomed {
                        out.acked.remove(&k);
                        out.uncertain.remove(&k);
                    }
                }
                Err(_) => {
                    out.saw_error = true;
                    for k in doomed {
                        let v = out.acked.remove(&k).expect("acked");
                        out.uncertain.insert(k, v);
                    }
                }
            }
        }
        if i % 80 == 79 && db.flush().is_err() {
            out.saw_error = true;
        }
        if i % 7 == 0 {
            check_reads(db, &r, out, &format!("during the workload at write {i}"));
        }
        out.saw_error |= db.background_error().is_some() || db.background_error_count() > 0;
    }
}

/// Every successful read is right: acknowledged keys have their value (or the read fails),
/// uncertain keys have their value or none, and no other key exists. Counts the reads checked
/// and the wrong answers.
fn check_reads(db: &Db, r: &ReadOptions, out: &mut Outcome, when: &str) {
    for i in (0..WRITES).step_by(3) {
        let k = key(i);
        match db.get(r, &k) {
            Ok(got) => {
                out.reads_checked += 1;
                let right = if let Some(v) = out.acked.get(&k) {
                    got.as_ref() == Some(v)
                } else if let Some(v) = out.uncertain.get(&k) {
                    got.is_none() || got.as_ref() == Some(v)
                } else {
                    got.is_none()
                };
                if !right {
                    let len = got.map(|g| g.len());
                    out.wrong(format!("{when}: key {i} read as {len:?} bytes"));
                }
            }
            Err(_) => out.saw_error = true,
        }
    }
}

/// What one run found.
#[derive(Default)]
struct RunResult {
    /// A fault fired.
    injected: bool,
    /// Some caller saw an error.
    saw_error: bool,
    reads_checked: u64,
    wrong_answers: u64,
    /// Acknowledged writes found after the reopen without faults.
    acked_verified: u64,
    /// Acknowledged writes missing or wrong after it.
    silent_losses: u64,
    /// The reopen, or a read after it, failed.
    reopen_failed: bool,
    /// The first failure of the run, described.
    failure: Option<String>,
}

/// One run with `rules` injected; `name` names it in failures.
fn run(name: &str, seed: u64, rules: Vec<FaultRule>) -> RunResult {
    let mem = MemFs::new();
    let fault = FaultFs::new(mem.shared(), seed);
    for r in rules {
        fault.add_rule(r);
    }
    let mut out = Outcome::default();
    match Db::open_with_fs(fault.shared(), DIR, opts()) {
        Ok(db) => {
            workload(&db, &mut out);
            // An iterator that cannot be created (a table fails to open) is an error seen.
            let mut it_ok = false;
            if let Ok(mut it) = db.iter(&ReadOptions::default()) {
                it.seek_to_first();
                let mut wrong = None;
                while it.valid() {
                    let k = it.key().to_vec();
                    let expected = out.acked.get(&k).or_else(|| out.uncertain.get(&k));
                    if Some(it.value()) != expected.map(Vec::as_slice) && wrong.is_none() {
                        wrong = Some(format!("{name}: the scan's value of {k:?}"));
                    }
                    it.next();
                }
                it_ok = it.status().is_ok();
                if it_ok {
                    out.reads_checked += 1;
                    if let Some(w) = wrong {
                        out.wrong(w);
                    }
                }
            }
            out.saw_error |= !it_ok;
            out.saw_error |= db.close().is_err();
            // Counted after close: a background job may fail while close waits for it.
            out.saw_error |= db.background_error_count() > 0;
        }
        Err(_) => out.saw_error = true,
    }
    let mut res = RunResult {
        injected: fault.injected() > 0,
        saw_error: out.saw_error,
        reads_checked: out.reads_checked,
        wrong_answers: out.wrong_answers,
        failure: out.first_wrong.take().map(|w| format!("{name}: {w}")),
        ..RunResult::default()
    };
    // Reopen without faults, as after a process restart: every acknowledged write is there.
    let db = match Db::open_with_fs(mem.shared(), DIR, opts()) {
        Ok(db) => db,
        Err(e) => {
            res.reopen_failed = true;
            res.failure
                .get_or_insert(format!("{name}: reopen failed: {e}"));
            return res;
        }
    };
    let r = ReadOptions::default();
    for (key, v) in &out.acked {
        match db.get(&r, key) {
            Ok(got) if got.as_ref() == Some(v) => res.acked_verified += 1,
            Ok(_) => {
                res.silent_losses += 1;
                res.failure
                    .get_or_insert(format!("{name}: silent loss of acknowledged {key:?}"));
            }
            Err(e) => {
                res.reopen_failed = true;
                res.failure
                    .get_or_insert(format!("{name}: get after reopen: {e}"));
            }
        }
    }
    let mut check = Outcome {
        acked: out.acked.clone(),
        uncertain: out.uncertain.clone(),
        ..Outcome::default()
    };
    check_reads(&db, &r, &mut check, &format!("{name} after reopen"));
    res.reads_checked += check.reads_checked;
    res.wrong_answers += check.wrong_answers;
    if let Some(w) = check.first_wrong {
        res.failure.get_or_insert(w);
    }
    if check.saw_error {
        res.reopen_failed = true;
        res.failure
            .get_or_insert(format!("{name}: reads fail after reopen"));
    }
    res
}

const KINDS: [OpKind; 10] = [
    OpKind::Create,
    OpKind::Open,
    OpKind::Write,
    OpKind::Sync,
    OpKind::Read,
    OpKind::Rename,
    OpKind::Remove,
    OpKind::SyncDir,
    OpKind::Truncate,
    OpKind::Metadata,
];

/// Deleting an obsolete file and listing the directory for it are best effort: a failure leaves
/// a file to be deleted later and is not the caller's business.
const SILENT_OK: [OpKind; 2] = [OpKind::Remove, OpKind::Metadata];

/// How a run on its own thread ended.
enum Ended<T> {
    Done(T),
    Panicked(String),
    /// No result within half the hang limit; the thread is left behind.
    Hung,
}

/// Runs `f` on its own thread: a run that gives no result within half the hang limit (many
/// thousand times longer than a run takes) is a hang. Half, so that the suite's watchdog, which
/// ends the whole process, does not fire first.
fn on_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Ended<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(common::reliability::catch(f));
    });
    match rx.recv_timeout(common::reliability::hang_limit() / 2) {
        Ok(Ok(v)) => Ended::Done(v),
        Ok(Err(msg)) => Ended::Panicked(msg),
        Err(_) => Ended::Hung,
    }
}

#[derive(Default)]
struct Counts {
    runs: u64,
    every_k_runs: u64,
    random_runs: u64,
    fired: u64,
    unreported_faults: u64,
    best_effort_unreported: u64,
    reads_checked: u64,
    wrong_answers: u64,
    acked_verified: u64,
    silent_losses: u64,
    reopen_failures: u64,
    panics: u64,
    hangs: u64,
    first_failure: Option<String>,
}

impl Counts {
    fn fail(&mut self, what: String) {
        self.first_failure.get_or_insert(what);
    }
}

/// Run `i` of the suite: the first `every_k` runs walk (kind, fault, k) for every k; the rest
/// inject random faults of random kinds at random rates.
fn one_run(i: u64, seed: u64, every_k: u64, max_k: u64, c: &mut Counts) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (name, rules, silent_ok) = if i < every_k {
        let op = KINDS[(i / (2 * max_k)) as usize % KINDS.len()];
        let kind = if (i / max_k) % 2 == 0 {
            FaultKind::Eio
        } else {
            FaultKind::Enospc
        };
        let k = i % max_k + 1;
        c.every_k_runs += 1;
        (
            format!("{op:?} #{k} {kind:?} (seed {seed:#x})"),
            vec![FaultRule::nth(op, k, kind).except_file("LOG")],
            SILENT_OK.contains(&op),
        )
    } else {
        // Best-effort kinds are drawn apart from the others, so that a fault that fired can be
        // told to be one whose error the caller must see.
        let pool: Vec<OpKind> = if rng.gen_ratio(1, 5) {
            SILENT_OK.to_vec()
        } else {
            KINDS
                .iter()
                .copied()
                .filter(|k| !SILENT_OK.contains(k))
                .collect()
        };
        let n = rng.gen_range(1..=3);
        let ops: Vec<OpKind> = (0..n).map(|_| pool[rng.gen_range(0..pool.len())]).collect();
        let kind = if rng.gen_bool(0.5) {
            FaultKind::Eio
        } else {
            FaultKind::Enospc
        };
        let p = [0.005, 0.02, 0.1][rng.gen_range(0..3)];
        c.random_runs += 1;
        let silent = ops.iter().all(|o| SILENT_OK.contains(o));
        (
            format!("random {ops:?} p={p} {kind:?} seed {seed:#x}"),
            vec![FaultRule::random(&ops, p, kind).except_file("LOG")],
            silent,
        )
    };
    let what = name.clone();
    c.runs += 1;
    let r = match on_thread(move || run(&name, seed, rules)) {
        Ended::Done(r) => r,
        Ended::Panicked(msg) => {
            c.panics += 1;
            c.fail(format!("run {i} ({what}) panicked: {msg}"));
            return;
        }
        Ended::Hung => {
            c.hangs += 1;
            c.fail(format!("run {i} ({what}) hung"));
            return;
        }
    };
    c.reads_checked += r.reads_checked;
    c.wrong_answers += r.wrong_answers;
    c.acked_verified += r.acked_verified;
    c.silent_losses += r.silent_losses;
    c.reopen_failures += u64::from(r.reopen_failed);
    if let Some(f) = r.failure {
        c.fail(format!("run {i}: {f}"));
    }
    if r.injected {
        c.fired += 1;
        if !r.saw_error {
            if silent_ok {
                c.best_effort_unreported += 1;
            } else {
                c.unreported_faults += 1;
                c.fail(format!(
                    "run {i} ({what}): a fault fired but no caller saw an error"
                ));
            }
        }
    }
}

#[derive(Default)]
struct D6 {
    flush_faults: u64,
    flush_retried_by_engine: u64,
    compaction_faults: u64,
    compaction_retried_by_engine: u64,
}

/// Waits until `done()` holds, checking every 20 ms: the engine retries failed background work
/// on its own after a pause, and has no call that waits for that retry (the poll only waits;
/// the condition, not the time, decides). A retry that never comes is a hang, which the suite's
/// watchdog reports.
fn eventually(mut done: impl FnMut() -> bool) {
    while !done() {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// D6: the first `op` on a table file fails once with `kind`, during a flush and then during a
/// compaction. Without any further call to flush or compact, the engine retries on its own: the
/// memtable gets flushed and L0 gets compacted, and writes go on without a reopen.
fn d6(kind: FaultKind, op: OpKind, d: &mut D6) {
    let mem = MemFs::new();
    let fault = FaultFs::new(mem.shared(), 7);
    let mut o = opts();
    o.cf.level0_file_num_compaction_trigger = 4;
    let db = Db::open_with_fs(fault.shared(), DIR, o).expect("open");
    let w = WriteOptions::default();
    fault.add_rule(FaultRule::nth(op, 1, kind).on_paths(".sst"));
    // Round r writes keys 4i + r, so that every table overlaps every other and compactions
    // merge rather than move files.
    for i in 0..40 {
        db.put(&w, &key(4 * i), &value(4 * i)).expect("put");
    }
    let first = db.flush();
    assert!(
        fault.injected() == 1,
        "D6 {kind:?} {op:?}: the flush fault fired"
    );
    assert!(
        first.is_err(),
        "D6 {kind:?} {op:?}: the failed flush reports its error"
    );
    d.flush_faults += 1;
    fault.clear_rules();
    db.put(&w, &key(1000), &value(1000))
        .expect("D6: writes go on after a failed flush");
    // The engine must retry the flush: without it this waits until the hang limit.
    eventually(|| db.num_immutable_memtables() == 0 && db.num_l0_files() == 1);
    d.flush_retried_by_engine += 1;
    if op == OpKind::Write {
        // How many appends a table takes is the builder's business; the Create and Sync runs
        // cover compaction outputs.
        return;
    }
    // Three more tables make four and start the background compaction. The fault is armed for
    // the second table create (or sync) from now: the first is the fourth flush's, the second
    // the compaction output's.
    for round in 1..4 {
        for i in 0..40 {
            let n = 4 * i + round;
            db.put(&w, &key(n), &value(n)).expect("put");
        }
        if round == 3 {
            fault.add_rule(FaultRule::nth(op, 2, kind).on_paths(".sst"));
        }
        db.flush().expect("flush");
    }
    eventually(|| fault.injected() == 2);
    fault.clear_rules();
    d.compaction_faults += 1;
    // The engine must retry (the flush and) the compaction.
    eventually(|| db.num_l0_files() == 0 && db.num_immutable_memtables() == 0);
    d.compaction_retried_by_engine += 1;
    db.put(&w, &key(2000), &value(2000))
        .expect("D6: writes go on after a failed compaction");
    let r = ReadOptions::default();
    for n in 0..160 {
        assert_eq!(
            db.get(&r, &key(n)).expect("get"),
            Some(value(n)),
            "D6: key {n}"
        );
    }
    assert!(
        db.background_error_count() > 0,
        "D6: the failure was recorded"
    );
}

fn suite(volume: Volume) {
    let suite = Suite::new("faults", volume, 2000);
    // Every k in 1..=MAX_K for each kind and fault: 10 x 2 x 40 = 800 runs at CI volume.
    let max_k = if suite.min_count >= 2000 { 40 } else { 2 };
    let every_k = (KINDS.len() as u64 * 2 * max_k).min(suite.min_count);
    let mut c = Counts::default();
    let mut i = 0;
    // A replayed case is a random run: every-k runs are named by their kind, fault and k.
    let replay = suite.is_replay();
    let runs = suite.run(|seed| {
        let index = if replay { u64::MAX } else { i };
        one_run(index, seed, every_k, max_k, &mut c);
        i += 1;
    });
    if let Some(f) = &c.first_failure {
        println!("first failure: {f}");
    }
    let mut d = D6::default();
    for kind in [FaultKind::Enospc, FaultKind::Eio] {
        for op in [OpKind::Create, OpKind::Write, OpKind::Sync] {
            suite.progress();
            let local = match on_thread(move || {
                let mut local = D6::default();
                d6(kind, op, &mut local);
                local
            }) {
                Ended::Done(local) => local,
                Ended::Panicked(msg) => panic!("D6 {kind:?} {op:?}: {msg}"),
                Ended::Hung => panic!("D6 {kind:?} {op:?}: HANG (the engine never retried)"),
            };
            d.flush_faults += local.flush_faults;
            d.flush_retried_by_engine += local.flush_retried_by_engine;
            d.compaction_faults += local.compaction_faults;
            d.compaction_retried_by_engine += local.compaction_retried_by_engine;
        }
    }
    suite.finish(
        runs,
        &[
            ("runs", c.runs),
            ("every_k_runs", c.every_k_runs),
            ("random_runs", c.random_runs),
            ("faults_fired", c.fired),
            ("reads_checked", c.reads_checked),
            ("acked_verified", c.acked_verified),
            ("unreported_faults", c.unreported_faults),
            ("best_effort_unreported", c.best_effort_unreported),
            ("silent_losses", c.silent_losses),
            ("wrong_answers", c.wrong_answers),
            ("reopen_failures", c.reopen_failures),
            ("panics", c.panics),
            ("hangs", c.hangs),
            ("d6_flush_faults", d.flush_faults),
            ("d6_flush_retried_by_engine", d.flush_retried_by_engine),
            ("d6_compaction_faults", d.compaction_faults),
            (
                "d6_compaction_retried_by_engine",
                d.compaction_retried_by_engine,
            ),
        ],
        &[
            "unreported_faults",
            "silent_losses",
            "wrong_answers",
            "reopen_failures",
            "panics",
            "hangs",
        ],
        &[
            // High k of rare kinds (a rename, a truncate) do not occur in the workload.
            ("faults_fired", runs / 3),
            ("reads_checked", runs * READS_FLOOR_PER_RUN),
            ("acked_verified", runs * ACKED_FLOOR_PER_RUN),
            ("d6_flush_retried_by_engine", 6),
            ("d6_compaction_retried_by_engine", 4),
        ],
    );
}

#[test]
fn faults_smoke() {
    suite(Volume::Smoke);
}

#[test]
#[ignore = "CI volume: run by scripts/reliability.sh"]
fn faults_full() {
    suite(Volume::Full);
}
