//! randomtransaction against the model engine and on CairnDB: db_bench's draws replayed, the
//! transactions' reads and writes, the check after the run, and the transaction flags.

use super::*;

/// One randomtransaction transaction as db_bench's draws decide it: its increment, its
/// `(set, key number)` pairs in visiting order, and whether it ends in a commit (not the 1 in 20
/// rollback).
type Drawn = (u64, Vec<(u64, u64)>, bool);

/// Replays the draws of a randomtransaction thread seeded `seed` that never aborts, in the
/// order of db_bench's `TransactionDBInsert` / `OptimisticTransactionDBInsert` / `DBInsert` and
/// `DoInsert`; the set order comes from the shuffle generator seeded as `randomtxn.rs` seeds it.
fn replay_transactions(
    seed: u64,
    kind: TransactionDbKind,
    set_snapshot: bool,
    transactions: usize,
    sets: u64,
    num: u64,
) -> Vec<Drawn> {
    let mut rng = Random64::new(seed);
    let mut order = rand_mt::Mt::new(rng.clone().next_u64() as u32);
    (0..transactions)
        .map(|_| {
            // TransactionDBInsert: `GetSnapshot() == nullptr || OneIn(2)`.
            if kind == TransactionDbKind::Pessimistic && set_snapshot {
                rng.one_in(2);
            }
            let incr = rng.next_u64() % 100 + 1;
            let keys = unique_random_order(sets, order.next_u32())
                .into_iter()
                .map(|set| {
                    let n = rng.next_u64() % num;
                    if kind != TransactionDbKind::None {
                        rng.one_in(2); // GetForUpdate or Get
                    }
                    (set, n)
                })
                .collect();
            let committed = match kind {
                TransactionDbKind::None => true,
                TransactionDbKind::Pessimistic => {
                    if !rng.one_in(10) {
                        rng.one_in(20); // the commit-time put of a prepared transaction
                    }
                    !rng.one_in(20)
                }
                TransactionDbKind::Optimistic => !rng.one_in(20),
            };
            (incr, keys, committed)
        })
        .collect()
}

/// The number after `name:` in a result line's note.
fn note_count(line: &str, name: &str) -> u64 {
    line.split(&format!("{name}:"))
        .nth(1)
        .and_then(|r| {
            r.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or_else(|| panic!("no {name}: in {line}"))
}

/// The operations of a result line.
fn operations(line: &str) -> u64 {
    line.split(" operations;")
        .next()
        .and_then(|p| p.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no operations in {line}"))
}

#[test]
fn randomtransaction_without_transactions_reads_then_writes_one_batch_per_transaction() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let flags = ["--num=10", "--reads=6", "--transaction_sets=3", "--seed=5"];
    let (lines, calls, _) = bench(&db, &flags, &["randomtransaction"]);
    // One thread, seeded 5 + 1: per transaction, a read of one key per set, then one batch.
    let drawn = replay_transactions(6, TransactionDbKind::None, false, 6, 3, 10);
    let mut values: HashMap<String, u64> = HashMap::new();
    let mut expected = Vec::new();
    for (incr, keys, _) in &drawn {
        let mut puts = Vec::new();
        for &(set, n) in keys {
            let key = format!("{:04}{n}", set + 1);
            expected.push(Call::GetText(key.clone()));
            let v = values.get(&key).copied().unwrap_or(0) + incr;
            puts.push((key, v.to_string()));
        }
        for (k, v) in &puts {
            values.insert(k.clone(), v.parse().expect("number"));
        }
        expected.push(Call::WriteText(puts, PLAIN));
    }
    assert_eq!(calls, expected);
    let l = line(&lines, "randomtransaction");
    assert!(l.ends_with("( batches:6 )"), "{l}");
    assert_eq!(operations(l), 6);
    assert!(l.contains(" MB/s "), "bytes of the puts are counted: {l}");
    assert!(
        !lines[0].contains("RandomTransactionVerify"),
        "db_bench verifies only transaction databases: {lines:?}"
    );
    // A single thread keeps every set's sum equal: the sum of the increments.
    let stored = STORED.with(|s| s.borrow()[&db].clone());
    let total: u64 = drawn.iter().map(|d| d.0).sum();
    for set in 1..=3 {
        let sum: u64 = stored
            .iter()
            .filter(|(k, _)| k.starts_with(format!("{set:04}").as_bytes()))
            .map(|(_, v)| text(v).parse::<u64>().expect("counter"))
            .sum();
        assert_eq!(sum, total, "set {set}");
    }
}

#[test]
fn randomtransaction_verify_reports_the_first_set_whose_sum_differs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = args(&[]).engine_options().expect("options");
    let engine = ModelEngine::open(&dir.path().join("db"), &options).expect("open");
    let write = |pairs: &[(&str, &str)]| {
        let mut b = engine.new_batch();
        for (k, v) in pairs {
            b.put(k.as_bytes(), v.as_bytes()).expect("put");
        }
        engine.write(&PLAIN, b).expect("write");
    };
    // Set 0: 5 + 2, set 1: 7, set 2: 3 + 4; "cat" is in no set.
    write(&[
        ("00011", "5"),
        ("000199", "2"),
        ("00023", "7"),
        ("00030", "3"),
        ("00039", "4"),
    ]);
    let v = randomtxn::verify(&engine, 3, 1).expect("verify");
    assert!(v.passed, "{v:?}");
    assert_eq!(v.lines, ["RandomTransactionVerify Success."]);
    assert_eq!(v.totals, [Some(7), Some(7), Some(7)]);
    // A fourth set with nothing in it sums to 0.
    let v = randomtxn::verify(&engine, 4, 1).expect("verify");
    assert!(!v.passed, "{v:?}");
    assert_eq!(v.lines.len(), 2, "{v:?}");
    assert!(
        v.lines[0].starts_with(
            "RandomTransactionVerify found inconsistent totals using pointlookup? 0 Set["
        ) && v.lines[0].ends_with(" at snapshot 0"),
        "{v:?}"
    );
    assert!(v.lines[0].contains(": 0"), "the empty set's sum: {v:?}");
    assert_eq!(v.lines[1], "RandomTransactionVerify FAILED!!");
    // A value no transaction writes fails the check.
    write(&[("00024", "0")]);
    let v = randomtxn::verify(&engine, 3, 1).expect("verify");
    assert!(!v.passed);
    assert_eq!(
        v.lines.last().map(String::as_str),
        Some("RandomTransactionVerify FAILED!!")
    );
    engine.close().expect("close");
}

/// Runs randomtransaction on CairnDB with `flags` and returns its printed block, the step's
/// record and every set's sum afterwards.
fn cairn_randomtransaction(flags: &[&str]) -> (String, StepReport, Vec<Option<u64>>) {
    use crate::bench::cairn_engine::CairnEngine;
    let dir = tempfile::tempdir().expect("tempdir");
    let args = args(flags);
    args.validate().expect("valid flags");
    let options = args.engine_options().expect("options");
    let mut run = Run::<CairnEngine>::start(&args, &options, dir.path().join("db"), args.seed)
        .expect("start");
    let block = run.execute("randomtransaction").expect("randomtransaction");
    let totals = randomtxn::verify(run.engine(), args.transaction_sets, 0)
        .expect("verify")
        .totals;
    let step = run.steps()[0].clone();
    run.finish().expect("close");
    (block, step, totals)
}

#[test]
fn randomtransaction_on_one_thread_commits_every_transaction_it_does_not_roll_back() {
    for (kind, flags) in [
        (TransactionDbKind::None, &[][..]),
        (TransactionDbKind::Pessimistic, &["--transaction_db"][..]),
        (
            TransactionDbKind::Pessimistic,
            &["--transaction_db", "--transaction_set_snapshot=1"][..],
        ),
        (
            TransactionDbKind::Optimistic,
            &["--optimistic_transaction_db"][..],
        ),
    ] {
        let common = [
            "--num=40",
            "--writes=300",
            "--transaction_sets=4",
            "--seed=21",
        ];
        let all: Vec<&str> = common.iter().chain(flags).copied().collect();
        let (block, step, totals) = cairn_randomtransaction(&all);
        let l = block.lines().next().expect("result line");
        assert!(l.starts_with("randomtransaction :"), "{block}");
        assert_eq!(operations(l), 300, "{block}");
        let set_snapshot = flags.contains(&"--transaction_set_snapshot=1");
        let drawn = replay_transactions(22, kind, set_snapshot, 300, 4, 40);
        let committed: u64 = drawn.iter().filter(|d| d.2).map(|d| d.0).sum();
        // Alone, nothing conflicts: every set sums to the increments of the commits.
        assert_eq!(totals, vec![Some(committed); 4], "{flags:?}: {block}");
        if kind == TransactionDbKind::None {
            assert!(l.ends_with("( batches:300 )"), "{block}");
            assert_eq!(step.verified, None);
            assert!(!block.contains("RandomTransactionVerify"), "{block}");
        } else {
            assert!(l.ends_with("( transactions:300 aborts:0)"), "{block}");
            assert!(drawn.iter().any(|d| !d.2), "some transactions roll back");
            assert_eq!(step.verified, Some(true));
            assert!(
                block.ends_with("\nRandomTransactionVerify Success."),
                "{block}"
            );
        }
        assert!(
            block.contains("  latency op (us): P50: "),
            "one latency sample per transaction, db_bench's kOthers: {block}"
        );
    }
}

#[test]
fn randomtransaction_on_threads_counts_aborts_and_keeps_the_sums_equal() {
    // Few keys and a short lock timeout: the threads conflict and time out often.
    let common = [
        "--num=6",
        "--reads=400",
        "--threads=3",
        "--transaction_sets=3",
        "--transaction_lock_timeout=1",
        "--seed=8",
    ];
    for flags in [
        &["--transaction_db"][..],
        &["--transaction_db", "--transaction_set_snapshot"][..],
    ] {
        let all: Vec<&str> = common.iter().chain(flags).copied().collect();
        let (block, step, totals) = cairn_randomtransaction(&all);
        let l = block.lines().next().expect("result line");
        // The note is the first thread's (db_bench keeps one thread's message).
        assert_eq!(operations(l), 3 * 400, "{block}");
        assert_eq!(note_count(l, "transactions"), 400, "{block}");
        assert!(note_count(l, "aborts") <= 400, "{block}");
        assert_eq!(step.verified, Some(true), "{block}");
        assert!(
            block.ends_with("\nRandomTransactionVerify Success."),
            "{block}"
        );
        assert!(
            totals.iter().all(|t| *t == totals[0] && t.is_some()),
            "{totals:?}"
        );
    }
    // Optimistic transactions as db_bench begins them check a key read with Get only from its
    // write on, so concurrent increments can be lost: the check may fail, and says why.
    let all: Vec<&str> = common
        .iter()
        .chain(&["--optimistic_transaction_db"])
        .copied()
        .collect();
    let (block, step, _) = cairn_randomtransaction(&all);
    let l = block.lines().next().expect("result line");
    assert_eq!(operations(l), 3 * 400, "{block}");
    assert_eq!(note_count(l, "transactions"), 400, "{block}");
    assert!(note_count(l, "aborts") <= 400, "{block}");
    match step.verified {
        Some(true) => assert!(
            block.ends_with("\nRandomTransactionVerify Success."),
            "{block}"
        ),
        Some(false) => assert!(
            block.contains("\nRandomTransactionVerify FAILED!!\n")
                && block.ends_with(randomtxn::OPTIMISTIC_RACE_NOTE),
            "{block}"
        ),
        None => panic!("not verified: {block}"),
    }
}

#[test]
fn transaction_flags_are_checked() {
    let err = args(&["--transaction_db", "--optimistic_transaction_db"])
        .validate()
        .expect_err("both kinds");
    assert!(
        err.to_string()
            .contains("--transaction_db and --optimistic_transaction_db"),
        "{err}"
    );
    let err = args(&["--transaction_sleep=5"])
        .validate()
        .expect_err("sleep");
    assert!(err.to_string().contains("--transaction_sleep"), "{err}");
    for sets in ["--transaction_sets=0", "--transaction_sets=10000"] {
        let err = Flags::try_parse_from(["bench", sets]).expect_err("sets out of range");
        assert!(err.to_string().contains("--transaction_sets"), "{err}");
    }
    let a = args(&["--transaction_sets=9999", "--transaction_lock_timeout=7"]);
    assert_eq!(a.transaction_sets, 9999);
    assert_eq!(a.txn_options().lock_timeout_ms, 7);
    assert_eq!(a.transaction_kind(), TransactionDbKind::None);
    assert_eq!(
        args(&["--transaction_db=true"]).transaction_kind(),
        TransactionDbKind::Pessimistic
    );
    assert_eq!(
        args(&["--optimistic_transaction_db=1"])
            .engine_options()
            .expect("options")
            .transaction_db,
        TransactionDbKind::Optimistic
    );
}

#[test]
fn randomtransaction_read_only_transactions_read_and_change_nothing() {
    use crate::bench::cairn_engine::CairnEngine;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let run_with = |flags: &[&str]| {
        let args = args(flags);
        args.validate().expect("valid flags");
        let options = args.engine_options().expect("options");
        let mut run =
            Run::<CairnEngine>::start(&args, &options, path.clone(), args.seed).expect("start");
        let block = run.execute("randomtransaction").expect("randomtransaction");
        let totals = randomtxn::verify(run.engine(), args.transaction_sets, 0)
            .expect("verify")
            .totals;
        run.finish().expect("close");
        (block, totals)
    };
    let common = ["--num=40", "--transaction_sets=3", "--seed=4"];
    let with =
        |extra: &[&'static str]| -> Vec<&str> { common.iter().chain(extra).copied().collect() };
    let (_, filled) = run_with(&with(&["--writes=200", "--transaction_db"]));
    assert!(
        filled.iter().all(|t| t.is_some_and(|n| n > 0)),
        "{filled:?}"
    );
    for db in ["--transaction_db", "--optimistic_transaction_db"] {
        for mode in [
            "--transaction_read_only=get",
            "--transaction_read_only=get_for_update",
        ] {
            let (block, totals) = run_with(&with(&["--reads=100", "--use_existing_db", db, mode]));
            assert!(
                block
                    .lines()
                    .next()
                    .expect("line")
                    .ends_with("( transactions:100 aborts:0)"),
                "{block}"
            );
            assert_eq!(totals, filled, "{db} {mode}: nothing written");
        }
    }
    let err = args(&["--transaction_read_only=get"])
        .validate()
        .expect_err("needs a transaction database");
    assert!(err.to_string().contains("--transaction_read_only"), "{err}");
}
