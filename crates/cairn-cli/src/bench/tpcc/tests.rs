//! The TPC-C consistency conditions hold after the load, after concurrent transactions, and
//! after a power cut in the middle of them (commits are synced: every acknowledged Payment's
//! history row survives). Small cardinalities keep the tests fast; the suite always loads
//! TPC-C's.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use cairn_rows::schema::TableDef;
use cairn_rows::{Bound, CairnStore, Database, DatabaseOptions, Direction, Fetch, Isolation};
use cairndb::fs::{CrashOptions, MemFs};

use super::txns::{Context, Kind, Outcome};
use super::*;

const SMALL: Sizes = Sizes {
    items: 500,
    districts: 3,
    customers: 60,
};
const WAREHOUSES: i64 = 2;
const SETS: usize = 2;

fn open(fs: &MemFs) -> Database<CairnStore> {
    let options = DatabaseOptions {
        engine_options: "write_buffer_size=262144".into(),
        sync: true,
    };
    let defs: Vec<TableDef> = definitions(SETS);
    Database::open_with(&defs, &options, |config| {
        CairnStore::open_with_fs(fs.shared(), Path::new("/tpcc"), config)
    })
    .expect("open")
}

fn context(db: &Database<CairnStore>, isolation: Isolation) -> Context {
    let cx = Context::new(table_sets(db, SETS), WAREHOUSES, SMALL, isolation);
    for (set, ids) in cx.history_ids.iter().enumerate() {
        ids.store(
            next_history_id(db, &cx.sets[set]).expect("history id"),
            Ordering::Relaxed,
        );
    }
    cx
}

fn assert_consistent(db: &Database<CairnStore>) {
    let violations = check::check(db, &table_sets(db, SETS), WAREHOUSES).expect("check");
    assert!(violations.is_empty(), "{violations:#?}");
}

fn history_rows(db: &Database<CairnStore>) -> usize {
    let mut n = 0;
    let mut txn = db.begin(Isolation::ReadCommitted).expect("begin");
    for set in table_sets(db, SETS) {
        txn.scan(
            &set[schema::t::HISTORY],
            0,
            &Bound::Unbounded,
            &Bound::Unbounded,
            Direction::Asc,
            Fetch::IndexOnly,
            None,
            |_| {
                n += 1;
                Ok(true)
            },
        )
        .expect("scan");
    }
    n
}

/// Runs transactions on `threads` threads until `stop`; each committed Payment is sent on
/// `paid`.
fn workers(
    db: &Database<CairnStore>,
    cx: &Context,
    threads: u64,
    per_thread: usize,
    stop: &AtomicBool,
    paid: &mpsc::Sender<()>,
) -> usize {
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|tid| {
                let paid = paid.clone();
                s.spawn(move || {
                    let mut r = random::Rand::new(1000 + tid);
                    let mut done = 0;
                    while done < per_thread && !stop.load(Ordering::Acquire) {
                        let kind = Kind::draw(&mut r);
                        match txns::run(db, cx, kind, &mut r) {
                            Ok(Outcome::Committed) => {
                                if kind == Kind::Payment {
                                    let _ = paid.send(());
                                }
                                done += 1;
                            }
                            Ok(Outcome::RolledBack) => done += 1,
                            Err(e) if e.is_retryable() => {}
                            Err(e) => panic!("{kind:?}: {e}"),
                        }
                    }
                    done
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker")).sum()
    })
}

#[test]
fn the_conditions_hold_after_load_and_after_concurrent_transactions() {
    for isolation in [Isolation::ReadCommitted, Isolation::RepeatableRead] {
        let fs = MemFs::new();
        let db = open(&fs);
        for (n, tables) in table_sets(&db, SETS).iter().enumerate() {
            load::load_set(&db, tables, WAREHOUSES, SMALL, n as u64).expect("load");
        }
        assert_consistent(&db);
        let cx = context(&db, isolation);
        let (tx, rx) = mpsc::channel();
        let stop = AtomicBool::new(false);
        let done = workers(&db, &cx, 3, 150, &stop, &tx);
        drop(tx);
        assert_eq!(done, 450);
        assert!(rx.iter().count() > 0, "payments ran");
        assert_consistent(&db);
        db.close().expect("close");
        assert_consistent(&open(&fs));
    }
}

#[test]
fn the_conditions_hold_after_a_power_cut_mid_run() {
    let fs = MemFs::new();
    let db = open(&fs);
    for (n, tables) in table_sets(&db, SETS).iter().enumerate() {
        load::load_set(&db, tables, WAREHOUSES, SMALL, 10 + n as u64).expect("load");
    }
    db.store().flush().expect("flush");
    let loaded_history = history_rows(&db);
    let cx = context(&db, Isolation::ReadCommitted);
    let (tx, rx) = mpsc::channel();
    let stop = AtomicBool::new(false);
    let crashed = std::thread::scope(|s| {
        let (dbr, cxr, stopr) = (&db, &cx, &stop);
        // The sender moves into the runner: if the workers stop early, the wait below ends.
        let runner = s.spawn(move || workers(dbr, cxr, 3, usize::MAX, stopr, &tx));
        // Wait for 100 acknowledged payments, cut the power while the workers keep going.
        let acked = rx.iter().take(100).count();
        let crashed = fs.crash_clone(CrashOptions::synced_only());
        stop.store(true, Ordering::Release);
        runner.join().expect("runner");
        (crashed, acked)
    });
    drop(db);
    let (crashed_fs, acked) = crashed;
    let db = open(&crashed_fs);
    assert_consistent(&db);
    assert!(
        history_rows(&db) >= loaded_history + acked,
        "an acknowledged payment was lost"
    );
}

#[test]
fn cache_sizes_are_percentages() {
    assert_eq!(cache_fractions("5%,100%").expect("ok"), vec![0.05, 1.0]);
    assert!(cache_fractions("5").is_err());
    assert!(cache_fractions("0%").is_err());
    assert_eq!(cache_fractions("").expect("ok"), Vec::<f64>::new());
}
