//! Reliability suite `transactions`: the bank test. Accounts start at 100 each; several threads
//! run transfers between random accounts as transactions (pessimistic with `get_for_update`,
//! with and without snapshots and deadlock detection, or optimistic with retries on `Busy`),
//! some synced; a reader thread checks at snapshots, through transactions' iterators and through
//! snapshot reads, that the total never changes; then the process crashes or the power goes
//! while they run, and the recovered database is checked.
//!
//! Every transfer also writes a marker key `t/<thread>/<n>` with its amount, so the recovered
//! database says which transfers it holds. Each transfer takes a ticket from a global counter
//! before its commit starts and another after its commit returned. A cycle counts:
//! - `total_mismatches`: a snapshot (during the run, or after recovery) whose balances do not add
//!   up to the initial total;
//! - `balance_mismatches`: a recovered balance that is not 100 plus the amounts of the recovered
//!   transfers that touched it (a transfer recovered in part, or a balance written without its
//!   transfer);
//! - `lost_acked`: after a process crash (the files as the process left them), a transfer whose
//!   commit returned before the crash is missing (D1);
//! - `lost_synced`: after a power cut, a synced transfer that returned before the cut is missing
//!   (D2);
//! - `prefix_violations`: a recovered transfer whose commit started after another transfer's
//!   commit had returned, while that other one is missing (the recovered state is a prefix of
//!   the commit order, D3).
//!
//! A panic (a recovery that fails) ends the suite at that cycle. Floors: transfers committed,
//! transfers recovered, reader checks, and conflicts met (lock timeouts, deadlocks, `Busy`), so
//! the suite is known to have exercised contention.
//!
//! CI volume: 1,000 cycles.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use cairndb::fs::{CrashOptions, FileSystem, MemFs};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{
    OptimisticTransactionDb, OptimisticTransactionDbOptions, OptimisticTransactionOptions,
    TransactionDb, TransactionDbOptions, TransactionOptions, WriteBatch,
};
use common::reliability::{Suite, Volume};
use common::DIR;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const INITIAL: i64 = 100;
const THREADS: usize = 3;

#[derive(Default)]
struct Counts {
    cycles: u64,
    transfers_committed: u64,
    transfers_synced: u64,
    transfers_recovered: u64,
    conflicts: u64,
    reader_checks: u64,
    total_mismatches: u64,
    balance_mismatches: u64,
    lost_acked: u64,
    lost_synced: u64,
    prefix_violations: u64,
    process_crashes: u64,
    power_cuts: u64,
    first_failure: Option<String>,
}

impl Counts {
    fn fail(&mut self, what: String) {
        if self.first_failure.is_none() {
            self.first_failure = Some(what);
        }
    }
}

/// A committed transfer as its thread saw it.
#[derive(Debug, Clone)]
struct Done {
    marker: Vec<u8>,
    start: u64,
    acked: u64,
    synced: bool,
}

fn account(i: usize) -> Vec<u8> {
    format!("acct{i:03}").into_bytes()
}

fn parse(v: &[u8]) -> i64 {
    std::str::from_utf8(v)
        .expect("utf8")
        .parse()
        .expect("number")
}

/// Which engine and which transaction options a cycle uses.
#[derive(Debug, Clone, Copy)]
enum Mode {
    Pessimistic {
        snapshot: bool,
        deadlock_detect: bool,
    },
    Optimistic,
}

enum Engine {
    P(Box<TransactionDb>),
    O(OptimisticTransactionDb),
}

impl Engine {
    fn db(&self) -> &cairndb::Db {
        match self {
            Engine::P(d) => d.db(),
            Engine::O(d) => d.db(),
        }
    }
}

fn options(rng: &mut SmallRng) -> Options {
    let mut o = common::opts();
    o.cf.write_buffer_size = 64 << 10;
    o.cf.level0_file_num_compaction_trigger = rng.gen_range(2..5);
    o.cf.target_file_size_base = 64 << 10;
    o.cf.max_bytes_for_level_base = 256 << 10;
    o
}

fn open(fs: Arc<dyn FileSystem>, opts: &Options, mode: Mode) -> Engine {
    match mode {
        Mode::Pessimistic { .. } => Engine::P(Box::new(
            TransactionDb::open_cf_with_fs(
                fs,
                DIR,
                opts.clone(),
                TransactionDbOptions::default(),
                Vec::new(),
            )
            .expect("open"),
        )),
        Mode::Optimistic => Engine::O(
            OptimisticTransactionDb::open_cf_with_fs(
                fs,
                DIR,
                opts.clone(),
                OptimisticTransactionDbOptions::default(),
                Vec::new(),
            )
            .expect("open"),
        ),
    }
}

/// One transfer of `amount` from `a` to `b`, with its marker; `Ok(false)` on a conflict.
fn transfer(
    engine: &Engine,
    mode: Mode,
    w: &WriteOptions,
    (a, b, amount): (usize, usize, i64),
    marker: &[u8],
    ticket: &AtomicU64,
) -> cairndb::Result<Option<(u64, u64)>> {
    let r = ReadOptions::default();
    let conflict = |e: &cairndb::Error| e.is_busy() || e.is_timed_out() || e.is_deadlock();
    match (engine, mode) {
        (
            Engine::P(db),
            Mode::Pessimistic {
                snapshot,
                deadlock_detect,
            },
        ) => {
            let opts = TransactionOptions {
                set_snapshot: snapshot,
                deadlock_detect,
                lock_timeout: if deadlock_detect { 60_000 } else { 20 },
                ..TransactionOptions::default()
            };
            let mut t = db.begin_transaction(w, &opts)?;
            let step = (|| {
                let va = parse(&t.get_for_update(&r, &account(a), true)?.expect("account"));
                let vb = parse(&t.get_for_update(&r, &account(b), true)?.expect("account"));
                t.put(&account(a), (va - amount).to_string().as_bytes())?;
                t.put(&account(b), (vb + amount).to_string().as_bytes())?;
                t.put(marker, format!("{a} {b} {amount}").as_bytes())
            })();
            match step {
                Ok(()) => {}
                Err(e) if conflict(&e) => {
                    t.rollback()?;
                    return Ok(None);
                }
                Err(e) => return Err(e),
            }
            let start = ticket.fetch_add(1, Ordering::SeqCst);
            t.commit()?;
            Ok(Some((start, ticket.fetch_add(1, Ordering::SeqCst))))
        }
        (Engine::O(db), _) => {
            let mut t = db.begin_transaction(w, &OptimisticTransactionOptions::default());
            let va = parse(&t.get_for_update(&r, &account(a))?.expect("account"));
            let vb = parse(&t.get_for_update(&r, &account(b))?.expect("account"));
            t.put(&account(a), (va - amount).to_string().as_bytes())?;
            t.put(&account(b), (vb + amount).to_string().as_bytes())?;
            t.put(marker, format!("{a} {b} {amount}").as_bytes())?;
            let start = ticket.fetch_add(1, Ordering::SeqCst);
            match t.commit() {
                Ok(()) => Ok(Some((start, ticket.fetch_add(1, Ordering::SeqCst)))),
                Err(e) if conflict(&e) => Ok(None),
                Err(e) => Err(e),
            }
        }
        _ => unreachable!("engine and mode agree"),
    }
}

/// The balances a snapshot (or the latest state) holds, summed; `None` on a read error.
fn total_at(db: &cairndb::Db, accounts: usize, snapshot: Option<u64>) -> i64 {
    let ro = ReadOptions {
        snapshot,
        ..ReadOptions::default()
    };
    (0..accounts)
        .map(|i| parse(&db.get(&ro, &account(i)).expect("get").expect("account")))
        .sum()
}

/// Checks a recovered database against what the threads were told.
fn check(
    files: &MemFs,
    opts: &Options,
    accounts: usize,
    done: &[Done],
    (cut_ticket, process_crash): (u64, bool),
    c: &mut Counts,
    what: &str,
) {
    let db = cairndb::Db::open_with_fs(files.shared(), DIR, opts.clone()).expect("recover");
    let r = ReadOptions::default();
    let all = common::scan(&db);
    if !all.contains_key(&account(0)) {
        // The cut came before the initial balances were durable: nothing else may be there.
        if all.keys().any(|k| k.starts_with(b"t/")) {
            c.balance_mismatches += 1;
            c.fail(format!("{what}: transfers without accounts"));
        }
        return;
    }
    let mut expected: BTreeMap<usize, i64> = (0..accounts).map(|i| (i, INITIAL)).collect();
    let mut present = 0;
    for (k, v) in all.range(b"t/".to_vec()..b"t0".to_vec()) {
        let _ = k;
        let text = std::str::from_utf8(v).expect("utf8");
        let parts: Vec<i64> = text.split(' ').map(|p| p.parse().expect("n")).collect();
        *expected.get_mut(&(parts[0] as usize)).expect("a") -= parts[2];
        *expected.get_mut(&(parts[1] as usize)).expect("b") += parts[2];
        present += 1;
    }
    c.transfers_recovered += present;
    for (i, want) in &expected {
        let got = parse(&db.get(&r, &account(*i)).expect("get").expect("account"));
        if got != *want {
            c.balance_mismatches += 1;
            c.fail(format!(
                "{what}: account {i} is {got}, its transfers say {want}"
            ));
        }
    }
    if total_at(&db, accounts, None) != INITIAL * accounts as i64 {
        c.total_mismatches += 1;
        c.fail(format!("{what}: the recovered total changed"));
    }
    let is_present = |d: &Done| all.contains_key(&d.marker);
    for d in done.iter().filter(|d| d.acked < cut_ticket) {
        if !is_present(d) {
            if process_crash {
                c.lost_acked += 1;
                c.fail(format!("{what}: acknowledged transfer {:?} lost", d.marker));
            } else if d.synced {
                c.lost_synced += 1;
                c.fail(format!("{what}: synced transfer {:?} lost", d.marker));
            }
        }
    }
    // D3: a recovered transfer implies every transfer acknowledged before it started.
    let earliest_missing_ack = done
        .iter()
        .filter(|d| !is_present(d))
        .map(|d| d.acked)
        .min();
    if let Some(missing) = earliest_missing_ack {
        if done.iter().any(|d| is_present(d) && d.start > missing) {
            c.prefix_violations += 1;
            c.fail(format!(
                "{what}: a transfer is recovered while an earlier one is missing"
            ));
        }
    }
    db.close().expect("close");
}

fn cycle(seed: u64, c: &mut Counts) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let opts = options(&mut rng);
    let mode = match rng.gen_range(0..4) {
        0 => Mode::Optimistic,
        m => Mode::Pessimistic {
            snapshot: m == 2,
            deadlock_detect: m == 3,
        },
    };
    let accounts = rng.gen_range(4..24);
    let per_thread = rng.gen_range(10..40);
    let cut_after = rng.gen_range(0..THREADS * per_thread);
    let mem = MemFs::new();
    let engine = open(mem.shared(), &opts, mode);
    let mut init = WriteBatch::new();
    for i in 0..accounts {
        init.put(&account(i), INITIAL.to_string().as_bytes())
            .expect("put");
    }
    engine
        .db()
        .write(
            &WriteOptions {
                sync: rng.gen_bool(0.5),
                ..WriteOptions::default()
            },
            init,
        )
        .expect("init");
    let ticket = AtomicU64::new(0);
    let finished = AtomicU64::new(0);
    let done: Mutex<Vec<Done>> = Mutex::new(Vec::new());
    let conflicts = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let reader_checks = AtomicU64::new(0);
    let reader_bad = AtomicU64::new(0);
    let crash = if rng.gen_bool(0.5) {
        None
    } else {
        Some(CrashOptions::random(rng.gen()))
    };
    let seeds: Vec<u64> = (0..THREADS).map(|_| rng.gen()).collect();
    let cut: Mutex<Option<(MemFs, u64)>> = Mutex::new(None);
    thread::scope(|s| {
        for (tid, &tseed) in seeds.iter().enumerate() {
            let (engine, ticket, done, conflicts, finished, cut, mem) =
                (&engine, &ticket, &done, &conflicts, &finished, &cut, &mem);
            s.spawn(move || {
                let mut rng = SmallRng::seed_from_u64(tseed);
                for n in 0..per_thread {
                    let a = rng.gen_range(0..accounts);
                    let b = (a + rng.gen_range(1..accounts)) % accounts;
                    let amount = rng.gen_range(1..20);
                    let synced = rng.gen_bool(0.2);
                    let w = WriteOptions {
                        sync: synced,
                        ..WriteOptions::default()
                    };
                    let marker = format!("t/{tid}/{n:04}").into_bytes();
                    loop {
                        match transfer(engine, mode, &w, (a, b, amount), &marker, ticket)
                            .expect("transfer")
                        {
                            Some((start, acked)) => {
                                done.lock().expect("done").push(Done {
                                    marker: marker.clone(),
                                    start,
                                    acked,
                                    synced,
                                });
                                break;
                            }
                            None => {
                                conflicts.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                    // The crash happens while the threads run, after `cut_after` transfers.
                    if finished.fetch_add(1, Ordering::SeqCst) as usize == cut_after {
                        let at = ticket.fetch_add(1, Ordering::SeqCst);
                        let files = match crash {
                            None => mem.process_crash_clone(),
                            Some(o) => mem.crash_clone(o),
                        };
                        *cut.lock().expect("cut") = Some((files, at));
                    }
                }
            });
        }
        let (engine, stop, reader_checks, reader_bad) =
            (&engine, &stop, &reader_checks, &reader_bad);
        let reader = s.spawn(move || {
            let db = engine.db();
            while !stop.load(Ordering::Acquire) {
                let snap = db.snapshot().expect("snapshot");
                if total_at(db, accounts, Some(snap.sequence())) != INITIAL * accounts as i64 {
                    reader_bad.fetch_add(1, Ordering::Relaxed);
                }
                // The same through a transaction's iterator at the snapshot.
                let ro = ReadOptions {
                    snapshot: Some(snap.sequence()),
                    ..ReadOptions::default()
                };
                let mut sum = 0;
                if let Engine::P(p) = engine {
                    let t = p
                        .begin_transaction(&WriteOptions::default(), &TransactionOptions::default())
                        .expect("begin");
                    let mut it = t.iter(&ro).expect("iter");
                    it.seek(b"acct");
                    while it.valid() && it.key().starts_with(b"acct") {
                        sum += parse(it.value());
                        it.next();
                    }
                    it.status().expect("iter status");
                    if sum != INITIAL * accounts as i64 {
                        reader_bad.fetch_add(1, Ordering::Relaxed);
                    }
                }
                reader_checks.fetch_add(1, Ordering::Relaxed);
            }
        });
        // Stop the reader once every writer is done (writers are the other spawned threads).
        while finished.load(Ordering::SeqCst) < (THREADS * per_thread) as u64 {
            thread::yield_now();
        }
        stop.store(true, Ordering::Release);
        reader.join().expect("reader");
    });
    let done = done.into_inner().expect("done");
    c.transfers_committed += done.len() as u64;
    c.transfers_synced += done.iter().filter(|d| d.synced).count() as u64;
    c.conflicts += conflicts.load(Ordering::Relaxed);
    c.reader_checks += reader_checks.load(Ordering::Relaxed);
    c.total_mismatches += reader_bad.load(Ordering::Relaxed);
    if reader_bad.load(Ordering::Relaxed) > 0 {
        c.fail(format!("cycle {seed:#x}: a snapshot saw a changed total"));
    }
    let live_total = total_at(engine.db(), accounts, None);
    if live_total != INITIAL * accounts as i64 {
        c.total_mismatches += 1;
        c.fail(format!("cycle {seed:#x}: the final total is {live_total}"));
    }
    let (files, cut_ticket) = cut.into_inner().expect("cut").expect("the crash happened");
    drop(engine);
    let what = format!("cycle {seed:#x} {mode:?} crash {crash:?}");
    match crash {
        None => c.process_crashes += 1,
        Some(_) => c.power_cuts += 1,
    }
    check(
        &files,
        &opts,
        accounts,
        &done,
        (cut_ticket, crash.is_none()),
        c,
        &what,
    );
    c.cycles += 1;
}

fn suite(volume: Volume) {
    let suite = Suite::new("transactions", volume, 1000);
    let mut c = Counts::default();
    let cycles = suite.run(|seed| cycle(seed, &mut c));
    if let Some(f) = &c.first_failure {
        println!("first failure: {f} (replay with CAIRN_RELIABILITY_REPLAY=<that cycle's seed>)");
    }
    suite.finish(
        cycles,
        &[
            ("cycles", c.cycles),
            ("process_crashes", c.process_crashes),
            ("power_cuts", c.power_cuts),
            ("transfers_committed", c.transfers_committed),
            ("transfers_synced", c.transfers_synced),
            ("transfers_recovered", c.transfers_recovered),
            ("conflicts", c.conflicts),
            ("reader_checks", c.reader_checks),
            ("total_mismatches", c.total_mismatches),
            ("balance_mismatches", c.balance_mismatches),
            ("lost_acked", c.lost_acked),
            ("lost_synced", c.lost_synced),
            ("prefix_violations", c.prefix_violations),
        ],
        &[
            "total_mismatches",
            "balance_mismatches",
            "lost_acked",
            "lost_synced",
            "prefix_violations",
        ],
        &[
            ("transfers_committed", cycles * 30),
            ("transfers_recovered", cycles * 5),
            ("reader_checks", cycles),
            ("conflicts", cycles / 10),
        ],
    );
}

#[test]
fn transactions_smoke() {
    suite(Volume::Smoke);
}

#[test]
#[ignore = "CI volume: run by scripts/reliability.sh"]
fn transactions_full() {
    suite(Volume::Full);
}
