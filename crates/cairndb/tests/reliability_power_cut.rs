//! Reliability suite `power_cut` (docs/design/durability.md, D1-D4): random workloads of atomic
//! batches on the crash-simulating file system, cut at a random instant, recovered, and checked
//! against the model.
//!
//! Every batch also writes the key `#seq` = its index, so the recovered `#seq` says which prefix
//! of the history the database claims to hold. A cycle checks:
//! - acknowledged synced writes lost: the prefix is shorter than the last batch written with
//!   `sync` (or covered by a later successful flush) before the cut (D2); for a process crash
//!   (the files as the process left them), shorter than the last acknowledged batch (D1);
//! - prefix violations: the whole recovered state is not exactly the model after that prefix (D3:
//!   a batch is all or nothing, and nothing later or earlier is missing or extra);
//! - wrong answers: a point read disagrees with the scan's answer for the same prefix (D4).
//!
//! Cuts mix: synced state only; random subsets of unsynced data; unsynced directory entries
//! (creations, renames, removals) kept or lost at random; torn tails of random garbage; and cuts
//! in the middle of a file-system operation (the k-th mutating operation and all later ones
//! fail, then the power goes). Workloads roll the WAL, flush, compact and roll the MANIFEST.
//! A third of the cycles write a second column family `b` too (keys `b:...` in the model),
//! batches spanning both families or, in phases, one of them (so `b` is often quiet when a flush
//! of the default family starts, and written while it runs), and flush one family alone at
//! times: a flush of one family
//! must not make its later writes durable while the other family's earlier ones, in the same
//! WALs, can still be lost.
//!
//! Every failure is counted and the suite goes on (the first is printed with its cycle seed). A
//! panic (a recovery that fails, a scan that errs) ends the suite at that cycle, so it prints no
//! count of them. Floors: cycles with batches made durable before the cut, the durable batches,
//! process crashes and cuts in the middle of an operation.
//!
//! CI volume: 10,000 cycles.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use cairndb::batch::WriteBatch;
use cairndb::db::ColumnFamilyDescriptor;
use cairndb::fs::{read_all, CrashOptions, FaultFs, FaultRule, FileSystem, MemFs};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{CompressionType, Db};
use common::reliability::{Suite, Volume};
use common::DIR;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const SEQ_KEY: &[u8] = b"#seq";
/// Model keys with this prefix live in column family `b` (without the prefix).
const CF_B: &[u8] = b"b:";
/// Floors: the cycles that had durable batches to lose, in percent of the cycles, and the
/// durable batches per cycle.
const CYCLES_WITH_DURABLE_FLOOR_PERCENT: u64 = 75;
const BATCHES_DURABLE_FLOOR_PER_CYCLE: u64 = 25;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;
type Batch = Vec<(Vec<u8>, Option<Vec<u8>>)>;

fn options(rng: &mut SmallRng) -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.write_buffer_size = 64 << 10;
    o.cf.compression = CompressionType::None;
    if rng.gen_bool(0.5) {
        o.cf.level0_file_num_compaction_trigger = 2;
        o.cf.target_file_size_base = 16 << 10;
        o.cf.max_bytes_for_level_base = 64 << 10;
    }
    if rng.gen_bool(0.3) {
        o.db.max_manifest_file_size = 1 << 10;
    }
    if rng.gen_bool(0.2) {
        o.db.max_total_wal_size = 96 << 10;
    }
    if rng.gen_bool(0.5) {
        // Recycled WALs: overwritten in place, old records past the new ones.
        o.db.recycle_log_file_num = rng.gen_range(1..=3);
    }
    o
}

/// The model after the first `n` batches.
fn model_after(batches: &[Batch], n: usize) -> Model {
    let mut m = Model::new();
    for b in &batches[..n] {
        for (k, v) in b {
            match v {
                Some(v) => m.insert(k.clone(), v.clone()),
                None => m.remove(k),
            };
        }
    }
    m
}

/// What the workload was told before the cut.
#[derive(Default)]
struct Told {
    /// Batches attempted (the last may have failed).
    attempted: usize,
    /// Batches acknowledged.
    acked: usize,
    /// Batches made durable: by a sync write or a flush that returned Ok.
    durable: usize,
}

/// Opens the database on `fs`, with family `b` (created if missing) when `two_cf`.
fn open(fs: Arc<dyn FileSystem>, opts: &Options, two_cf: bool) -> cairndb::Result<Db> {
    if !two_cf {
        return Db::open_with_fs(fs, DIR, opts.clone());
    }
    let mut o = opts.clone();
    o.db.create_missing_column_families = true;
    let b = ColumnFamilyDescriptor::new("b", o.cf.clone());
    Db::open_cf_with_fs(fs, DIR, o, vec![b])
}

/// Runs batches until `n` are done or a call fails.
fn workload(db: &Db, batches: &[Batch], rng: &mut SmallRng, told: &mut Told) {
    let family_b = db.column_family("b");
    for (i, b) in batches.iter().enumerate() {
        let mut batch = WriteBatch::new();
        for (k, v) in b {
            let (cf, k) = match (k.strip_prefix(CF_B), &family_b) {
                (Some(k), Some(fb)) => (fb.id(), k),
                _ => (0, k.as_slice()),
            };
            match v {
                Some(v) => batch.put_cf(cf, k, v).expect("batch put"),
                None => batch.delete_cf(cf, k).expect("batch delete"),
            }
        }
        let sync = rng.gen_ratio(1, 6);
        let w = WriteOptions {
            sync,
            ..WriteOptions::default()
        };
        told.attempted = i + 1;
        if db.write(&w, batch).is_err() {
            return;
        }
        told.acked = i + 1;
        if sync {
            told.durable = i + 1;
        }
        if let Some(fb) = family_b.as_ref().filter(|_| rng.gen_ratio(1, 40)) {
            // One family alone; what it makes durable is not counted.
            let cf = if rng.gen_bool(0.5) {
                db.default_column_family()
            } else {
                fb.clone()
            };
            if db.flush_cf(&cf).is_err() {
                return;
            }
        }
        if rng.gen_ratio(1, 60) {
            if db.flush().is_err() {
                return;
            }
            told.durable = i + 1;
        }
        if rng.gen_ratio(1, 150) && db.compact_range(None, None).is_err() {
            return;
        }
    }
}

fn gen_batches(rng: &mut SmallRng, two_cf: bool) -> Vec<Batch> {
    let n = rng.gen_range(1..=120);
    let big = rng.gen_ratio(1, 6);
    let keys = rng.gen_range(4..200u32);
    // Two families: phases of about ten batches write both, or one alone, so that a family is
    // often quiet (nothing in memory) when the other's flush starts and written during it.
    let mut phase = 0;
    (0..n)
        .map(|i| {
            if rng.gen_ratio(1, 10) {
                phase = rng.gen_range(0..3);
            }
            let mut b: Batch = (0..rng.gen_range(1..5))
                .map(|_| {
                    let key = match phase {
                        1 => rng.gen_range(0..keys) & !1,
                        2 => rng.gen_range(0..keys) | 1,
                        _ => rng.gen_range(0..keys),
                    };
                    let family = if two_cf && key % 2 == 1 { "b:" } else { "" };
                    let k = format!("{family}k{key:04}").into_bytes();
                    let v = rng.gen_ratio(5, 6).then(|| {
                        let len = if big {
                            rng.gen_range(500..6000)
                        } else {
                            rng.gen_range(0..300)
                        };
                        let mut v = format!("{i}:").into_bytes();
                        v.resize(len.max(v.len()), (i % 251) as u8);
                        v
                    });
                    (k, v)
                })
                .collect();
            b.push((
                SEQ_KEY.to_vec(),
                Some((i as u64 + 1).to_be_bytes().to_vec()),
            ));
            b
        })
        .collect()
}

#[derive(Default)]
struct Counts {
    cycles: u64,
    process_crashes: u64,
    mid_op_cuts: u64,
    batches: u64,
    /// Batches made durable (synced or flushed) before the cut: what the power-cut check
    /// requires to be there.
    batches_durable: u64,
    /// Cycles in which at least one acknowledged batch was durable before the cut.
    cycles_with_durable: u64,
    /// Cycles that reused a recycled WAL before the cut (`recycle_log_file_num`).
    cycles_with_wal_reuse: u64,
    acked_synced_lost: u64,
    acked_lost: u64,
    prefix_violations: u64,
    wrong_answers: u64,
    first_failure: Option<String>,
}

impl Counts {
    fn fail(&mut self, what: String) {
        if self.first_failure.is_none() {
            self.first_failure = Some(what);
        }
    }
}

/// Reopens `fs` and checks it against the history: `must_have` batches at least.
fn check(
    fs: &MemFs,
    opts: &Options,
    batches: &[Batch],
    told: &Told,
    must_have: usize,
    c: &mut Counts,
    what: &str,
) {
    // Without descriptors: family `b` opens if its creation survived the cut.
    let db = Db::open_with_fs(fs.shared(), DIR, opts.clone())
        .unwrap_or_else(|e| panic!("{what}: recovery failed: {e}"));
    let r = ReadOptions::default();
    let mut state = Model::new();
    let family_b = db.column_family("b");
    let families = [(db.default_column_family(), &b""[..])]
        .into_iter()
        .chain(family_b.clone().map(|fb| (fb, CF_B)));
    for (cf, prefix) in families {
        let mut it = db.iter_cf(&r, &cf).expect("iter");
        it.seek_to_first();
        while it.valid() {
            state.insert([prefix, it.key()].concat(), it.value().to_vec());
            it.next();
        }
        it.status()
            .unwrap_or_else(|e| panic!("{what}: scan failed: {e}"));
    }
    let n = match state.get(SEQ_KEY) {
        None => 0,
        Some(v) => {
            let b: [u8; 8] = v.as_slice().try_into().expect("8-byte #seq");
            u64::from_be_bytes(b) as usize
        }
    };
    if n < must_have {
        if must_have == told.acked {
            c.acked_lost += 1;
        } else {
            c.acked_synced_lost += 1;
        }
        c.fail(format!(
            "{what}: recovered a prefix of {n} batches, {must_have} were durable"
        ));
    }
    if n > told.attempted || state != model_after(batches, n) {
        c.prefix_violations += 1;
        c.fail(format!(
            "{what}: the state is not the history after {n} batches"
        ));
        return;
    }
    for k in batches.iter().flatten().map(|(k, _)| k).take(40) {
        let got = match (k.strip_prefix(CF_B), &family_b) {
            (Some(key), Some(fb)) => db.get_cf(&r, fb, key),
            (Some(_), None) => Ok(None),
            (None, _) => db.get(&r, k),
        }
        .unwrap_or_else(|e| panic!("{what}: get failed: {e}"));
        if got.as_ref() != state.get(k) {
            c.wrong_answers += 1;
            c.fail(format!("{what}: get {k:?} disagrees with the scan"));
        }
    }
}

fn crash_options(rng: &mut SmallRng) -> CrashOptions {
    let seed = rng.gen();
    match rng.gen_range(0..5) {
        0 => CrashOptions::synced_only(),
        1 => CrashOptions::random(seed),
        2 => CrashOptions {
            seed,
            unsynced_data_probability: 1.0,
            ..CrashOptions::default()
        },
        3 => CrashOptions {
            seed,
            unsynced_entry_probability: 0.5,
            ..CrashOptions::default()
        },
        _ => CrashOptions {
            seed,
            unsynced_data_probability: 1.0,
            torn_tail_probability: 1.0,
            unsynced_entry_probability: 0.3,
        },
    }
}

/// Whether the database's LOG records the reuse of a recycled WAL.
fn reused_a_wal(mem: &MemFs) -> bool {
    read_all(&*mem.shared(), &std::path::Path::new(DIR).join("LOG"))
        .is_ok_and(|log| log.windows(21).any(|w| w == b"from the recycle list"))
}

fn cycle(seed: u64, c: &mut Counts) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let opts = options(&mut rng);
    let two_cf = rng.gen_ratio(1, 3);
    let batches = gen_batches(&mut rng, two_cf);
    let mem = MemFs::new();
    let mut told = Told::default();
    let mid_op = rng.gen_ratio(1, 3);
    let crash = crash_options(&mut rng);
    let power_cut = if mid_op {
        // Die at the k-th mutating operation (every later one fails too), then lose power.
        let k = rng.gen_range(1..400);
        let fault = FaultFs::new(mem.shared(), seed);
        fault.add_rule(FaultRule::halt_at_mutating(k));
        let fs: Arc<dyn FileSystem> = Arc::new(fault);
        if let Ok(db) = open(fs, &opts, two_cf) {
            workload(&db, &batches, &mut rng, &mut told);
            c.cycles_with_wal_reuse += u64::from(reused_a_wal(&mem));
            let cut = mem.crash_clone(crash);
            let files = mem.process_crash_clone();
            drop(db);
            if rng.gen_bool(0.3) {
                // The process died there: the files as it left them keep every acknowledged
                // write (D1).
                c.process_crashes += 1;
                let what = format!("cycle {seed:#x} process crash at mutating op {k}");
                check(&files, &opts, &batches, &told, told.acked, c, &what);
            }
            cut
        } else {
            mem.crash_clone(crash)
        }
    } else {
        let db = open(mem.shared(), &opts, two_cf).expect("open");
        workload(&db, &batches, &mut rng, &mut told);
        c.cycles_with_wal_reuse += u64::from(reused_a_wal(&mem));
        // Power goes while the database is live (a flush or compaction may be running).
        let cut = mem.crash_clone(crash);
        if rng.gen_bool(0.3) {
            // A process crash at the same instant: the files as the process left them (every
            // byte handed to the file system, synced or not) keep every acknowledged write (D1).
            let files = mem.process_crash_clone();
            c.process_crashes += 1;
            let what = format!("cycle {seed:#x} process crash");
            check(&files, &opts, &batches, &told, told.acked, c, &what);
        }
        drop(db);
        cut
    };
    c.mid_op_cuts += u64::from(mid_op);
    let what = format!("cycle {seed:#x} power cut {crash:?}");
    // A cut before CURRENT was durable finds no database and creates an empty one.
    check(&power_cut, &opts, &batches, &told, told.durable, c, &what);
    c.cycles += 1;
    c.batches += told.acked as u64;
    c.batches_durable += told.durable as u64;
    c.cycles_with_durable += u64::from(told.durable > 0);
}

fn suite(volume: Volume) {
    let suite = Suite::new("power_cut", volume, 10_000);
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
            ("mid_op_cuts", c.mid_op_cuts),
            ("batches_acked", c.batches),
            ("batches_durable", c.batches_durable),
            ("cycles_with_durable", c.cycles_with_durable),
            ("cycles_with_wal_reuse", c.cycles_with_wal_reuse),
            ("acked_synced_lost", c.acked_synced_lost),
            ("acked_lost", c.acked_lost),
            ("prefix_violations", c.prefix_violations),
            ("wrong_answers", c.wrong_answers),
        ],
        &[
            "acked_synced_lost",
            "acked_lost",
            "prefix_violations",
            "wrong_answers",
        ],
        &[
            (
                "cycles_with_durable",
                cycles * CYCLES_WITH_DURABLE_FLOOR_PERCENT / 100,
            ),
            ("batches_durable", cycles * BATCHES_DURABLE_FLOOR_PER_CYCLE),
            ("process_crashes", cycles / 10),
            ("mid_op_cuts", cycles / 5),
            // Half the cycles recycle WALs; 22% of all reused one (10,000 cycles).
            ("cycles_with_wal_reuse", cycles / 10),
        ],
    );
}

#[test]
fn power_cut_smoke() {
    suite(Volume::Smoke);
}

#[test]
#[ignore = "CI volume: run by scripts/reliability.sh"]
fn power_cut_full() {
    suite(Volume::Full);
}
