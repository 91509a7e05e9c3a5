//! Reliability suite `crash_points` (docs/design/durability.md, D1-D3): the process "dies" at
//! the k-th mutating file-system operation of a scripted workload (every later mutating
//! operation fails), for every k. Workloads roll the WAL, flush, compact, create and drop column
//! families, and roll the MANIFEST (which swaps CURRENT). Reopening must find every acknowledged
//! write (D1) and a prefix of the history (D3); a power cut at the same instant, keeping only
//! synced data or a random part of the unsynced data with torn tails, must keep every
//! acknowledged synced write (D2).
//!
//! A crash point whose reopen fails, misses a write it must hold, holds more than a prefix or
//! panics counts as one of `failures`; the suite goes on and fails at the end. Floors: the points
//! run, and the checks that had acknowledged (`acked_checks`) and synced (`synced_checks`)
//! writes to find.
//!
//! The smoke run (`cargo test`) samples about 150 points per workload; the CI volume
//! (`scripts/reliability.sh`) takes every k.

mod common;

use std::sync::Arc;

use common::reliability::{Suite, Volume};

use cairndb::batch::WriteBatch;
use cairndb::db::ColumnFamilyDescriptor;
use cairndb::fs::{CrashOptions, FaultFs, FaultRule, FileSystem, MemFs};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;
use common::{opts, DIR};

const WRITES: u32 = 300;

/// Runs the workload on `fs` until a write fails; returns (acknowledged, acknowledged synced).
fn workload(db: &Db) -> (u32, u32) {
    let (mut acked, mut synced) = (0, 0);
    for i in 0..WRITES {
        let sync = i % 9 == 8;
        let w = WriteOptions {
            sync,
            ..WriteOptions::default()
        };
        if db.put(&w, &i.to_be_bytes(), &[5; 700]).is_err() {
            break;
        }
        acked = i + 1;
        if sync {
            synced = acked;
        }
        if i == WRITES / 2 && db.flush().is_err() {
            break;
        }
    }
    (acked, synced)
}

/// Checks that keys `0..n` are present for some `n >= at_least`, and no other.
fn check(db: &Db, at_least: u32, what: &str) {
    let r = ReadOptions::default();
    let mut n = 0;
    while n < WRITES && db.get(&r, &n.to_be_bytes()).expect("get").is_some() {
        n += 1;
    }
    assert!(
        n >= at_least,
        "{what}: {n} keys present, {at_least} acknowledged"
    );
    for i in n..WRITES {
        let v = db.get(&r, &i.to_be_bytes()).expect("get");
        assert!(v.is_none(), "{what}: key {i} present after a gap at {n}");
    }
}

/// One crash-point scenario: how to open, what to run, what must hold after a crash.
struct Scenario {
    name: &'static str,
    open: fn(Arc<dyn FileSystem>) -> cairndb::Result<Db>,
    /// Runs until a call fails; returns (acknowledged, acknowledged synced) writes.
    workload: fn(&Db) -> (u32, u32),
    /// Checks the reopened database given the writes that must be there.
    check: fn(&Db, u32, &str),
}

/// What the crash points of the suite found.
#[derive(Default)]
struct Counts {
    points: u64,
    /// Process-crash reopens that had to find at least one acknowledged write.
    acked_checks: u64,
    /// Power-cut reopens that had to find at least one synced write.
    synced_checks: u64,
    /// Crash points where a reopen failed, missed a write it must hold, held something other
    /// than a prefix, or panicked.
    failures: u64,
    first_failure: Option<String>,
}

/// Runs the scenario once without faults to count its mutating operations, then once per
/// sampled k with the process dying at the k-th: the directory as the process left it must
/// hold every acknowledged write, and a power cut at the same instant every synced one. A
/// failing point is counted and the next one runs.
fn crash_points(s: &Scenario, every_k: bool, seed: u64, suite: &Suite, c: &mut Counts) -> u64 {
    let clean = FaultFs::new(MemFs::new().shared(), 0);
    {
        let db = (s.open)(clean.shared()).expect("open");
        assert_eq!(
            (s.workload)(&db).0,
            WRITES,
            "{}: the clean run completes",
            s.name
        );
    }
    let total = clean.mutating_ops();
    assert!(total > 50, "{total}");
    let reopen = |mem: &MemFs, at_least: u32, what: &str| {
        let db = (s.open)(mem.shared()).unwrap_or_else(|e| panic!("{what}: {e}"));
        (s.check)(&db, at_least, what);
    };
    let mut points = 0;
    let step = if every_k { 1 } else { (total / 150).max(1) };
    for k in (1..=total).step_by(step as usize) {
        suite.progress();
        let point = common::reliability::catch(|| {
            let mem = MemFs::new();
            let fault = FaultFs::new(mem.shared(), k);
            fault.add_rule(FaultRule::halt_at_mutating(k));
            let (acked, synced) = match (s.open)(Arc::new(fault)) {
                Ok(db) => {
                    let (acked, synced) = (s.workload)(&db);
                    let power_cut = mem.crash_clone(CrashOptions::synced_only());
                    let torn = mem.crash_clone(CrashOptions::random(seed ^ k));
                    drop(db);
                    reopen(
                        &power_cut,
                        synced,
                        &format!("{}: power cut at op {k}", s.name),
                    );
                    reopen(
                        &torn,
                        synced,
                        &format!(
                            "{}: power cut with torn tails at op {k} (seed {:#x})",
                            s.name,
                            seed ^ k
                        ),
                    );
                    (acked, synced)
                }
                // The open itself died: nothing was acknowledged; the directory must still
                // open if CURRENT was written, or be creatable again.
                Err(_) => (0, 0),
            };
            reopen(&mem, acked, &format!("{}: process crash at op {k}", s.name));
            (acked, synced)
        });
        match point {
            Ok((acked, synced)) => {
                c.acked_checks += u64::from(acked > 0);
                c.synced_checks += u64::from(synced > 0);
            }
            Err(msg) => {
                c.failures += 1;
                c.first_failure.get_or_insert(msg);
            }
        }
        points += 1;
    }
    c.points += points;
    println!(
        "crash_points {}: {points} points of {total} mutating operations",
        s.name
    );
    points
}

fn open(fs: Arc<dyn FileSystem>) -> cairndb::Result<Db> {
    Db::open_with_fs(fs, DIR, opts())
}

fn single() -> Scenario {
    Scenario {
        name: "single",
        open,
        workload,
        check,
    }
}

/// Families for the multi-family workload: "b" flushes on its own, "c" comes and goes.
fn cf_opts() -> Options {
    let mut o = opts();
    o.db.create_missing_column_families = true;
    o
}

fn open_cf(fs: Arc<dyn FileSystem>) -> cairndb::Result<Db> {
    let families = vec![ColumnFamilyDescriptor::new("b", opts().cf)];
    Db::open_cf_with_fs(fs, DIR, cf_opts(), families)
}

/// Each write is one batch putting key i in "default" and "b"; midway "b" alone is flushed, a
/// family "c" is created, written and dropped. Returns (acknowledged, acknowledged synced).
fn cf_workload(db: &Db) -> (u32, u32) {
    let (mut acked, mut synced) = (0, 0);
    let Some(b) = db.column_family("b") else {
        return (0, 0);
    };
    for i in 0..WRITES {
        let sync = i % 9 == 8;
        let w = WriteOptions {
            sync,
            ..WriteOptions::default()
        };
        let mut batch = WriteBatch::new();
        batch.put(&i.to_be_bytes(), &[5; 400]).expect("batch");
        batch
            .put_cf(b.id(), &i.to_be_bytes(), &[6; 400])
            .expect("batch");
        if db.write(&w, batch).is_err() {
            break;
        }
        acked = i + 1;
        if sync {
            synced = acked;
        }
        let step = match i {
            100 => db.flush_cf(&b),
            150 => db
                .create_column_family("c", opts().cf)
                .and_then(|c| db.put_cf(&WriteOptions::default(), &c, b"x", &[1; 100])),
            200 => db
                .column_family("c")
                .map_or(Ok(()), |c| db.drop_column_family(&c)),
            _ => Ok(()),
        };
        if step.is_err() {
            break;
        }
    }
    (acked, synced)
}

/// Both families hold keys `0..n` for the same `n >= at_least` (batches are atomic across
/// families), and nothing else.
fn check_cf(db: &Db, at_least: u32, what: &str) {
    check(db, at_least, what);
    let b = db.column_family("b").expect("family b");
    let r = ReadOptions::default();
    for i in 0..WRITES {
        let in_default = db.get(&r, &i.to_be_bytes()).expect("get").is_some();
        let in_b = db.get_cf(&r, &b, &i.to_be_bytes()).expect("get").is_some();
        assert_eq!(in_b, in_default, "{what}: key {i} in one family only");
    }
}

fn with_column_families() -> Scenario {
    Scenario {
        name: "cf",
        open: open_cf,
        workload: cf_workload,
        check: check_cf,
    }
}

/// Options under which the workload compacts: L0 compacts at 2 files into small outputs.
fn compacting_opts() -> Options {
    let mut o = opts();
    o.cf.level0_file_num_compaction_trigger = 2;
    o.cf.target_file_size_base = 32 << 10;
    o.cf.max_bytes_for_level_base = 128 << 10;
    // The workload's values are runs of one byte: compressed, the tables would be too small
    // to compact.
    o.cf.compression = cairndb::CompressionType::None;
    o
}

/// Keys spread over the whole key space, flushed first, so that every later L0 file overlaps
/// older data and compactions merge instead of moving files. Five bytes long, so the checks,
/// which read the 4-byte keys, do not see them.
fn spread(db: &Db) -> cairndb::Result<()> {
    for i in (0..WRITES).step_by(5) {
        let mut k = i.to_be_bytes().to_vec();
        k.push(0xff);
        db.put(&WriteOptions::default(), &k, &[7; 700])?;
    }
    db.flush()
}

/// The single-family workload over spread keys, then a manual compaction of everything (its
/// outputs, MANIFEST edit and input deletions are among the crash points).
fn compacting_workload(db: &Db) -> (u32, u32) {
    if spread(db).is_err() {
        return (0, 0);
    }
    let r = workload(db);
    if r.0 == WRITES {
        let _ = db.compact_range(None, None);
    }
    r
}

fn open_compacting(fs: Arc<dyn FileSystem>) -> cairndb::Result<Db> {
    Db::open_with_fs(fs, DIR, compacting_opts())
}

/// The workload compacts (checked once, without faults).
fn assert_compacts() {
    let db = open_compacting(MemFs::new().shared()).expect("open");
    assert_eq!(compacting_workload(&db).0, WRITES);
    let stats = db.compaction_stats_cf(&db.default_column_family());
    let merged: u64 = stats.levels.iter().map(|l| l.files_written).sum();
    assert!(merged >= 2, "the workload compacts: {stats:?}");
}

fn with_compactions() -> Scenario {
    Scenario {
        name: "compaction",
        open: open_compacting,
        workload: compacting_workload,
        check,
    }
}

/// Options under which the MANIFEST rolls (a new MANIFEST, then CURRENT swapped) every few
/// edits, on top of the compacting workload.
fn open_manifest_roll(fs: Arc<dyn FileSystem>) -> cairndb::Result<Db> {
    let mut o = compacting_opts();
    o.db.max_manifest_file_size = 1024;
    Db::open_with_fs(fs, DIR, o)
}

/// Flushes every 15 writes (many small edits, so the MANIFEST rolls several times), compacting
/// in the background, then compacts everything. Returns (acknowledged, acknowledged synced).
fn manifest_workload(db: &Db) -> (u32, u32) {
    let (mut acked, mut synced) = (0, 0);
    for i in 0..WRITES {
        let sync = i % 9 == 8;
        let w = WriteOptions {
            sync,
            ..WriteOptions::default()
        };
        if db.put(&w, &i.to_be_bytes(), &[5; 100]).is_err() {
            return (acked, synced);
        }
        acked = i + 1;
        if sync {
            synced = acked;
        }
        if i % 15 == 14 {
            if db.flush().is_err() {
                return (acked, synced);
            }
            // A successful flush makes every earlier write durable (D2).
            synced = acked;
        }
    }
    let _ = db.compact_range(None, None);
    (acked, synced)
}

fn with_manifest_rolls() -> Scenario {
    Scenario {
        name: "manifest_roll",
        open: open_manifest_roll,
        workload: manifest_workload,
        check,
    }
}

/// The MANIFEST-rolling workload does roll it (checked once, without faults): CURRENT names a
/// newer MANIFEST after the workload than after the open.
fn assert_manifest_rolls() {
    let mem = MemFs::new();
    let db = open_manifest_roll(mem.shared()).expect("open");
    let dir = std::path::Path::new(DIR);
    let first = cairndb::version::read_current(&mem, dir).expect("CURRENT");
    assert_eq!(manifest_workload(&db).0, WRITES);
    let last = cairndb::version::read_current(&mem, dir).expect("CURRENT");
    assert!(last > first + 1, "the MANIFEST rolled: {first} -> {last}");
}

fn scenarios() -> Vec<Scenario> {
    vec![
        single(),
        with_column_families(),
        with_compactions(),
        with_manifest_rolls(),
    ]
}

fn suite(volume: Volume) {
    let every_k = volume == Volume::Full;
    // The count is scenarios; each covers every k (or ~150 sampled ones in the smoke run).
    let suite = Suite::new("crash_points", volume, 4);
    assert_compacts();
    assert_manifest_rolls();
    let all = scenarios();
    let mut i = 0usize;
    let mut c = Counts::default();
    let mut per = Vec::new();
    let workloads = suite.run(|seed| {
        let s = &all[i % all.len()];
        let n = crash_points(s, every_k, seed, &suite, &mut c);
        per.push(format!("{}={n}", s.name));
        i += 1;
    });
    println!("crash_points per workload: {}", per.join(" "));
    if let Some(f) = &c.first_failure {
        println!("first failure: {f}");
    }
    suite.finish(
        workloads,
        &[
            ("workloads", workloads),
            ("points", c.points),
            ("every_k", u64::from(every_k)),
            ("acked_checks", c.acked_checks),
            ("synced_checks", c.synced_checks),
            ("failures", c.failures),
        ],
        &["failures"],
        &[
            // The smoke run samples about 150 points per workload; the CI run takes them all.
            ("points", workloads * 140),
            // Most points die after the first acknowledged (and synced) writes.
            ("acked_checks", c.points / 2),
            ("synced_checks", c.points / 2),
        ],
    );
}

#[test]
fn crash_points_smoke() {
    suite(Volume::Smoke);
}

#[test]
#[ignore = "CI volume: run by scripts/reliability.sh"]
fn crash_points_full() {
    suite(Volume::Full);
}
