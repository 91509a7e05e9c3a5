//! Model test of pessimistic transactions: random interleavings of several transactions (puts,
//! deletes, merges-free reads and `get_for_update`s, savepoints and rollbacks to them, snapshots,
//! commits, rollbacks, writes outside transactions, flushes) run on one thread against a model
//! of serial commits in commit order. Locks are taken without waiting (`lock_timeout = 0`), so
//! the model predicts every outcome exactly: a key locked by another transaction is `TimedOut`,
//! a key written after the transaction's snapshot is `Busy`, every read returns the model's value
//! (the latest committed, or the snapshot's, under the transaction's own writes), and the
//! database ends equal to the model. Several option sets; seeds are printed on failure.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use cairndb::fs::MemFs;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{Error, Transaction, TransactionDb, TransactionDbOptions, TransactionOptions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

type Key = Vec<u8>;
type Val = Option<Vec<u8>>;

/// The committed history: for each key, `(commit number, value)` in commit order.
#[derive(Default)]
struct Committed {
    history: BTreeMap<Key, Vec<(u64, Val)>>,
    commits: u64,
}

impl Committed {
    fn latest(&self, k: &[u8]) -> Val {
        self.at(k, u64::MAX)
    }

    fn at(&self, k: &[u8], point: u64) -> Val {
        self.history
            .get(k)
            .and_then(|h| h.iter().rev().find(|(c, _)| *c <= point))
            .and_then(|(_, v)| v.clone())
    }

    fn version(&self, k: &[u8]) -> u64 {
        self.history
            .get(k)
            .and_then(|h| h.last())
            .map_or(0, |(c, _)| *c)
    }

    fn commit(&mut self, writes: &BTreeMap<Key, Val>) {
        if writes.is_empty() {
            return;
        }
        self.commits += 1;
        for (k, v) in writes {
            self.history
                .entry(k.clone())
                .or_default()
                .push((self.commits, v.clone()));
        }
    }
}

#[derive(Clone, Default)]
struct TxnModel {
    writes: BTreeMap<Key, Val>,
    locks: BTreeSet<Key>,
    snapshot: Option<u64>,
}

struct Live<'db> {
    txn: Transaction<'db>,
    model: TxnModel,
    savepoints: Vec<TxnModel>,
}

struct Config {
    name: &'static str,
    write_buffer_size: usize,
    set_snapshot: bool,
    flushes: bool,
}

fn key(rng: &mut StdRng) -> Key {
    format!("k{:02}", rng.gen_range(0..24)).into_bytes()
}

/// Checks a lock outcome against the model: `Ok(true)` when the lock was newly granted.
fn expect_lock(result: &Result<(), Error>, others_hold: bool, conflict: bool, ctx: &str) -> bool {
    match (others_hold, conflict) {
        (true, _) => {
            assert!(
                matches!(result, Err(e) if e.is_timed_out()),
                "{ctx}: expected TimedOut, got {result:?}"
            );
            false
        }
        (false, true) => {
            assert!(
                matches!(result, Err(e) if e.is_busy()),
                "{ctx}: expected Busy, got {result:?}"
            );
            false
        }
        (false, false) => {
            assert!(result.is_ok(), "{ctx}: expected Ok, got {result:?}");
            true
        }
    }
}

fn run(seed: u64, cfg: &Config) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut o: Options = common::opts();
    o.cf.write_buffer_size = cfg.write_buffer_size;
    let db = TransactionDb::open_cf_with_fs(
        MemFs::new().shared(),
        common::DIR,
        o,
        TransactionDbOptions {
            default_lock_timeout: 0,
            ..TransactionDbOptions::default()
        },
        Vec::new(),
    )
    .expect("open");
    let w = WriteOptions::default();
    let txn_opts = TransactionOptions {
        lock_timeout: 0,
        set_snapshot: cfg.set_snapshot,
        ..TransactionOptions::default()
    };
    let mut committed = Committed::default();
    let mut live: Vec<Live<'_>> = Vec::new();
    let ctx = |step: usize, what: &str| format!("{} seed {seed} step {step}: {what}", cfg.name);
    for step in 0..400 {
        if live.len() < 4 && (live.is_empty() || rng.gen_bool(0.1)) {
            let txn = db.begin_transaction(&w, &txn_opts).expect("begin");
            let snapshot = cfg.set_snapshot.then_some(committed.commits);
            live.push(Live {
                txn,
                model: TxnModel {
                    snapshot,
                    ..TxnModel::default()
                },
                savepoints: Vec::new(),
            });
            continue;
        }
        let i = rng.gen_range(0..live.len());
        let others_hold = |live: &[Live<'_>], k: &[u8]| {
            live.iter()
                .enumerate()
                .any(|(j, l)| j != i && l.model.locks.contains(k))
        };
        match rng.gen_range(0..100) {
            // Writes.
            0..=34 => {
                let k = key(&mut rng);
                let held_elsewhere = others_hold(&live, &k);
                let l = &mut live[i];
                let new = !l.model.locks.contains(&k);
                let conflict = new && l.model.snapshot.is_some_and(|s| committed.version(&k) > s);
                let del = rng.gen_bool(0.3);
                let v = format!("s{seed}t{step}").into_bytes();
                let r = if del {
                    l.txn.delete(&k)
                } else {
                    l.txn.put(&k, &v)
                };
                let held = !new || expect_lock(&r, held_elsewhere, conflict, &ctx(step, "write"));
                if !new {
                    assert!(r.is_ok(), "{}: {r:?}", ctx(step, "write to a held key"));
                }
                if held {
                    l.model.locks.insert(k.clone());
                    l.model.writes.insert(k, (!del).then_some(v));
                }
            }
            // Reads: READ COMMITTED, at the snapshot, and for update.
            35..=59 => {
                let k = key(&mut rng);
                let held_elsewhere = others_hold(&live, &k);
                let l = &mut live[i];
                let mode = rng.gen_range(0..3);
                let own = l.model.writes.get(&k).cloned();
                let (got, expected) = match mode {
                    0 => (
                        l.txn.get(&ReadOptions::default(), &k),
                        own.unwrap_or_else(|| committed.latest(&k)),
                    ),
                    1 => {
                        let ro = ReadOptions {
                            snapshot: l.txn.snapshot(),
                            ..ReadOptions::default()
                        };
                        let base = match l.model.snapshot {
                            Some(p) => committed.at(&k, p),
                            None => committed.latest(&k),
                        };
                        (l.txn.get(&ro, &k), own.unwrap_or(base))
                    }
                    _ => {
                        let new = !l.model.locks.contains(&k);
                        let conflict =
                            new && l.model.snapshot.is_some_and(|s| committed.version(&k) > s);
                        let r = l.txn.get_for_update(&ReadOptions::default(), &k, true);
                        let unit = r.as_ref().map(|_| ()).map_err(Clone::clone);
                        let granted =
                            !new || expect_lock(&unit, held_elsewhere, conflict, &ctx(step, "gfu"));
                        if !granted {
                            continue;
                        }
                        l.model.locks.insert(k.clone());
                        (r, own.unwrap_or_else(|| committed.latest(&k)))
                    }
                };
                assert_eq!(got.expect("read"), expected, "{}", ctx(step, "read"));
            }
            60..=64 => {
                let l = &mut live[i];
                l.txn.set_savepoint().expect("savepoint");
                l.savepoints.push(l.model.clone());
            }
            65..=69 => {
                let l = &mut live[i];
                match l.savepoints.pop() {
                    Some(m) => {
                        l.txn
                            .rollback_to_savepoint()
                            .expect("rollback to savepoint");
                        l.model = m;
                    }
                    None => assert!(matches!(
                        l.txn.rollback_to_savepoint(),
                        Err(Error::NotFound(_))
                    )),
                }
            }
            70..=72 => {
                let l = &mut live[i];
                l.txn.set_snapshot().expect("snapshot");
                l.model.snapshot = Some(committed.commits);
            }
            73..=84 => {
                let mut l = live.swap_remove(i);
                l.txn.commit().expect("commit");
                committed.commit(&l.model.writes);
            }
            85..=89 => {
                let mut l = live.swap_remove(i);
                l.txn.rollback().expect("rollback");
            }
            90..=94 => {
                // A write outside any transaction locks its key too.
                let k = key(&mut rng);
                let v = format!("outside{step}").into_bytes();
                let r = db.put(&w, &k, &v);
                if others_hold(&live, &k) || live[i].model.locks.contains(&k) {
                    assert!(
                        matches!(&r, Err(e) if e.is_timed_out()),
                        "{}: {r:?}",
                        ctx(step, "outside write")
                    );
                } else {
                    r.expect("outside write");
                    committed.commit(&BTreeMap::from([(k, Some(v))]));
                }
            }
            _ => {
                if cfg.flushes {
                    db.db().flush().expect("flush");
                }
            }
        }
        // The lock table holds exactly the model's locks.
        let mut held: Vec<Key> = db.lock_status().into_iter().map(|l| l.key).collect();
        held.sort();
        let mut model: Vec<Key> = live
            .iter()
            .flat_map(|l| l.model.locks.iter().cloned())
            .collect();
        model.sort();
        assert_eq!(held, model, "{}", ctx(step, "lock table"));
    }
    for mut l in live.drain(..) {
        l.txn.commit().expect("final commit");
        committed.commit(&l.model.writes);
    }
    let expected: BTreeMap<Key, Vec<u8>> = committed
        .history
        .keys()
        .filter_map(|k| committed.latest(k).map(|v| (k.clone(), v)))
        .collect();
    assert_eq!(
        common::scan(db.db()),
        expected,
        "{} seed {seed}: final state",
        cfg.name
    );
}

#[test]
fn transactions_match_a_model_of_serial_commits() {
    let configs = [
        Config {
            name: "defaults",
            write_buffer_size: 64 << 20,
            set_snapshot: false,
            flushes: false,
        },
        Config {
            name: "snapshots",
            write_buffer_size: 64 << 20,
            set_snapshot: true,
            flushes: false,
        },
        Config {
            name: "snapshots+flushes",
            write_buffer_size: 64 << 10,
            set_snapshot: true,
            flushes: true,
        },
        Config {
            name: "small memtables",
            write_buffer_size: 64 << 10,
            set_snapshot: false,
            flushes: true,
        },
    ];
    for cfg in &configs {
        for seed in 0..60 {
            run(seed, cfg);
        }
    }
}
