//! `--suite tpcc`: a TPC-C-like workload as Percona's sysbench-tpcc runs it, on the row layer
//! (`cairn-rows`), on either engine.
//!
//! - [`schema`]: the nine tables and their indexes, per table set;
//! - [`load`]: the population (bulk load, as MyRocks);
//! - [`random`]: sysbench-tpcc's random inputs;
//! - [`txns`]: the five transactions and the mix;
//! - [`check`]: the consistency conditions.
//!
//! A run: load `--tables` table sets of `--warehouses` warehouses on a fresh database, run the
//! mix on `--threads` threads for `--time` seconds, then check the consistency conditions (a
//! violation fails the run: the engine lost or reordered a committed write). With
//! `--cache_sizes=5%,10%,...` the mix runs again for each block-cache size, given as a share of
//! the loaded data's size, each on a fresh load of the same data. A transaction that
//! loses a lock wait or a deadlock is rolled back and counted, and the thread draws the next
//! transaction (sysbench's restart on ignored errors); New-Order's deliberate 1% rollbacks are
//! counted apart. Reported: transactions per second and tpmC (New-Orders per minute), latency,
//! per-second CoV and seconds below half the median, CPU µs and device KB read and written
//! per transaction, read and write system calls per transaction (block-cache misses reach the
//! file through reads), and the database size.

mod check;
mod load;
mod random;
mod schema;
mod txns;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cairn_rows::schema::TableDef;
use cairn_rows::{Database, DatabaseOptions, KvStore, Table};

use super::engine::{BenchError, Result};
use super::metrics::{dir_bytes, io_syscalls, ProcSample};
use super::report::OpKind;
use super::threads::run_threads;
use super::workloads::{RunReport, StepReport};
use super::{BenchArgs, EngineKind};

pub use load::Sizes;

/// The cache sizes of `--cache_sizes`, as fractions of the data size.
///
/// # Errors
/// [`BenchError::Usage`] for a value that is not a percentage in `(0, 1000]`.
pub fn cache_fractions(list: &str) -> Result<Vec<f64>> {
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.trim()
                .strip_suffix('%')
                .and_then(|p| p.parse::<f64>().ok())
                .filter(|p| *p > 0.0 && *p <= 1000.0)
                .map(|p| p / 100.0)
                .ok_or_else(|| {
                    BenchError::Usage(format!(
                        "--cache_sizes: {s:?} is not a percentage of the data size, e.g. 25%"
                    ))
                })
        })
        .collect()
}

/// Checks the suite's flags.
///
/// # Errors
/// [`BenchError::Usage`] naming the flag.
pub fn validate(args: &BenchArgs) -> Result<()> {
    if args.warehouses == 0 || args.warehouses > 1000 || args.tables == 0 || args.time == 0 {
        return Err(BenchError::Usage(
            "--warehouses (1..=1000), --tables and --time must be at least 1".into(),
        ));
    }
    cache_fractions(&args.cache_sizes)?;
    super::sysbench::isolation(args)?;
    if args.cache_size == 0 {
        return Err(BenchError::Usage(
            "--suite tpcc needs a block cache (--cache_size above 0)".into(),
        ));
    }
    Ok(())
}

/// Runs the suite on the engine `--engine` names.
///
/// # Errors
/// [`BenchError::Usage`] for flags it cannot run with; [`BenchError::Inconsistent`] when a
/// consistency condition fails; the engine's or row layer's error.
pub fn run(args: &BenchArgs) -> Result<RunReport> {
    match args.engine {
        EngineKind::Cairndb => run_on::<cairn_rows::CairnStore>(args, Sizes::SPEC),
        #[cfg(feature = "rocksdb")]
        EngineKind::Rocksdb => run_on::<cairn_rows::RocksStore>(args, Sizes::SPEC),
        #[cfg(not(feature = "rocksdb"))]
        EngineKind::Rocksdb => Err(BenchError::Usage(
            "--engine rocksdb: this cairn was built without RocksDB; rebuild with \
             `cargo build --release -p cairn-cli --features rocksdb`"
                .to_string(),
        )),
    }
}

fn definitions(sets: usize) -> Vec<TableDef> {
    (1..=sets).flat_map(schema::table_set).collect()
}

fn table_sets<S: KvStore>(db: &Database<S>, sets: usize) -> Vec<Vec<Arc<Table>>> {
    db.tables()
        .chunks(9)
        .take(sets)
        .map(<[_]>::to_vec)
        .collect()
}

fn run_on<S: KvStore>(args: &BenchArgs, sizes: Sizes) -> Result<RunReport> {
    validate(args)?;
    let (dir, temporary) = super::suite::database_dir(args);
    super::workloads::destroy(&dir)?;
    let defs = definitions(args.tables);
    let options = |cache: usize| -> Result<DatabaseOptions> {
        Ok(DatabaseOptions {
            engine_options: super::sysbench::engine_options_with_cache(args, cache)?,
            sync: args.sync,
        })
    };
    let seed = super::suite::seed_base(args);
    let db = Database::<S>::open(&dir, &defs, &options(args.cache_size)?)?;
    let engine = db.store().describe();
    println!(
        "Suite tpcc on {engine}: {} warehouses x {} table sets, {} threads, {} s, {}",
        args.warehouses, args.tables, args.threads, args.time, args.transaction_isolation
    );
    let mut steps = vec![prepare(&db, args, sizes, &dir, seed)?];
    let data_bytes = steps[0].efficiency.db_bytes;
    let mut rows = Vec::new();
    let step = mix(&db, args, sizes, &dir, seed ^ 0x5eed, "tpcc")?;
    rows.push((args.cache_size, step.clone()));
    steps.push(step);
    consistent(&db, args)?;
    let mut db = Some(db);
    for (n, f) in cache_fractions(&args.cache_sizes)?.into_iter().enumerate() {
        // Each cache size runs on a fresh load of the same data, so that every run of the
        // sweep starts from the same database (a run on the previous one would also see its
        // growth and compaction debt).
        if let Some(open) = db.take() {
            open.close()?;
        }
        super::workloads::destroy(&dir)?;
        let cache = ((data_bytes as f64 * f) as usize).max(1 << 20);
        let fresh = Database::<S>::open(&dir, &defs, &options(cache)?)?;
        steps.push(prepare(&fresh, args, sizes, &dir, seed)?);
        let name = format!("tpcc cache {:.0}%", f * 100.0);
        let step = mix(
            &fresh,
            args,
            sizes,
            &dir,
            seed ^ 0x5eed ^ (n as u64 + 7),
            &name,
        )?;
        rows.push((cache, step.clone()));
        steps.push(step);
        consistent(&fresh, args)?;
        db = Some(fresh);
    }
    let db = db.expect("a database is open");
    let final_db_bytes = dir_bytes(&dir);
    db.close()?;
    println!("------------------------------------------------");
    println!("{}", table(&rows));
    println!(
        "data size: {:.1} MB after load, {:.1} MB at the end",
        data_bytes as f64 / 1_048_576.0,
        final_db_bytes as f64 / 1_048_576.0
    );
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(RunReport {
        steps,
        final_db_bytes,
        engine,
    })
}

fn consistent<S: KvStore>(db: &Database<S>, args: &BenchArgs) -> Result<()> {
    let sets = table_sets(db, args.tables);
    let violations = check::check(db, &sets, args.warehouses as i64)?;
    if violations.is_empty() {
        println!(
            "consistency: conditions 1, 2, 3, 4, 5, 7, 8, 9, 10, 12 hold on {} warehouses x {} sets",
            args.warehouses, args.tables
        );
        return Ok(());
    }
    for v in violations.iter().take(20) {
        println!(
            "consistency: condition {} FAILED in set {} warehouse {}: {}",
            v.condition, v.set, v.warehouse, v.detail
        );
    }
    Err(BenchError::Inconsistent(format!(
        "{} TPC-C consistency violations",
        violations.len()
    )))
}

/// Loads every table set.
fn prepare<S: KvStore>(
    db: &Database<S>,
    args: &BenchArgs,
    sizes: Sizes,
    dir: &Path,
    seed: u64,
) -> Result<StepReport> {
    let before = ProcSample::now(None, 0);
    let start = Instant::now();
    let sets = table_sets(db, args.tables);
    for (n, tables) in sets.iter().enumerate() {
        load::load_set(
            db,
            tables,
            args.warehouses as i64,
            sizes,
            seed.wrapping_add(n as u64),
        )?;
    }
    db.store().flush()?;
    let seconds = start.elapsed().as_secs_f64();
    let after = ProcSample::now(None, 0);
    let efficiency = super::sysbench::efficiency(&before, &after, 1, dir);
    let line = format!(
        "load: {} warehouses x {} sets in {seconds:.1} s, data {:.1} MB",
        args.warehouses,
        args.tables,
        efficiency.db_bytes as f64 / 1_048_576.0
    );
    println!("{line}");
    Ok(super::sysbench::load_step(
        "tpcc load",
        line,
        0,
        seconds,
        efficiency,
    ))
}

/// Runs the mix for `--time` seconds on `--threads` threads.
fn mix<S: KvStore>(
    db: &Database<S>,
    args: &BenchArgs,
    sizes: Sizes,
    dir: &Path,
    seed: u64,
    name: &str,
) -> Result<StepReport> {
    let cx = txns::Context::new(
        table_sets(db, args.tables),
        args.warehouses as i64,
        sizes,
        super::sysbench::isolation(args)?,
    );
    // History ids continue after what earlier runs inserted.
    for (set, ids) in cx.history_ids.iter().enumerate() {
        ids.store(next_history_id(db, &cx.sets[set])?, Ordering::Relaxed);
    }
    let per_kind: Vec<AtomicU64> = txns::Kind::ALL.iter().map(|_| AtomicU64::new(0)).collect();
    let rollbacks = AtomicU64::new(0);
    let retries = AtomicU64::new(0);
    let time = Duration::from_secs(args.time);
    let before = ProcSample::now(None, 0);
    let calls_before = io_syscalls();
    let step = run_threads(args.threads.max(1) as usize, seed, None, |ts, _| {
        let mut r = random::Rand::new(ts.rng.next_u64());
        let start = Instant::now();
        while start.elapsed() < time {
            let kind = txns::Kind::draw(&mut r);
            let t0 = Instant::now();
            match txns::run(db, &cx, kind, &mut r) {
                Ok(outcome) => {
                    if outcome == txns::Outcome::RolledBack {
                        rollbacks.fetch_add(1, Ordering::Relaxed);
                    }
                    per_kind[kind as usize].fetch_add(1, Ordering::Relaxed);
                    ts.stats.finished_op(OpKind::Others, t0, 0);
                }
                Err(e) if e.is_retryable() => {
                    retries.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => return Err(BenchError::from(e).context(format!("tpcc {}", kind.name()))),
            }
        }
        Ok(())
    })?;
    let after = ProcSample::now(None, 0);
    let calls = io_syscalls()
        .zip(calls_before)
        .map(|(a, b)| (a.0 - b.0, a.1 - b.1));
    let s = &step.merged;
    let txns_done = s.done();
    let seconds = s.elapsed_secs();
    let new_orders = per_kind[txns::Kind::NewOrder as usize].load(Ordering::Relaxed);
    let efficiency = super::sysbench::efficiency(&before, &after, txns_done, dir)
        .with_thread_cpu(s.cpu_seconds(), txns_done);
    let mix: Vec<String> = txns::Kind::ALL
        .iter()
        .map(|k| {
            format!(
                "{} {}",
                k.name(),
                per_kind[*k as usize].load(Ordering::Relaxed)
            )
        })
        .collect();
    let retries = retries.load(Ordering::Relaxed);
    let result_line = format!(
        "{name}: transactions {txns_done} ({:.2} per sec.), tpmC {:.0}, {}, new_order rollbacks {}, \
         retries (deadlocks, lock timeouts) {retries}",
        txns_done as f64 / seconds,
        new_orders as f64 * 60.0 / seconds,
        mix.join(", "),
        rollbacks.load(Ordering::Relaxed),
    );
    let mut report = super::sysbench::transaction_step(name, result_line, &step, efficiency);
    report.retries = Some(retries);
    report.io_calls = calls;
    super::sysbench::print_step(name, &report);
    Ok(report)
}

/// The first unused history id of a set: one past the largest.
fn next_history_id<S: KvStore>(db: &Database<S>, tables: &[Arc<Table>]) -> Result<i64> {
    let mut txn = db.begin(cairn_rows::Isolation::ReadCommitted)?;
    let mut last = 0;
    txn.scan(
        &tables[schema::t::HISTORY],
        0,
        &cairn_rows::Bound::Unbounded,
        &cairn_rows::Bound::Unbounded,
        cairn_rows::Direction::Desc,
        cairn_rows::Fetch::IndexOnly,
        Some(1),
        |row| {
            last = row[0].as_i64().unwrap_or_default();
            Ok(false)
        },
    )?;
    txn.rollback()?;
    Ok(last + 1)
}

/// The closing table: one row per run of the mix (the MyRocks study's columns).
fn table(rows: &[(usize, StepReport)]) -> String {
    let mut out = format!(
        "{:<18} {:>9} {:>9} {:>8} {:>8} {:>7} {:>6} {:>9} {:>9} {:>7} {:>7} {:>8}\n{}\n",
        "run",
        "cache MB",
        "tps",
        "p95 ms",
        "p99 ms",
        "CV",
        "<half",
        "KBr/s",
        "KBw/s",
        "r/txn",
        "w/txn",
        "cpu us",
        "-".repeat(112)
    );
    for (cache, r) in rows {
        let e = &r.efficiency;
        let l = r.latency.first().map(|(_, l)| *l);
        let per_s = |b: Option<u64>| {
            b.map_or("n/a".to_string(), |b| {
                format!("{:.0}", b as f64 / 1024.0 / r.seconds.max(1e-9))
            })
        };
        let n = r.ops.max(1) as f64;
        out.push_str(&format!(
            "{:<18} {:>9.1} {:>9.1} {:>8} {:>8} {:>7.3} {:>6} {:>9} {:>9} {:>7} {:>7} {:>8}\n",
            r.name,
            *cache as f64 / 1_048_576.0,
            r.ops_per_sec,
            l.map_or("n/a".into(), |l| format!("{:.2}", l.p95_us / 1e3)),
            l.map_or("n/a".into(), |l| format!("{:.2}", l.p99_us / 1e3)),
            r.throughput.cv,
            r.throughput.seconds_below_half_median,
            per_s(e.device_read_bytes),
            per_s(e.device_write_bytes),
            r.io_calls
                .map_or("n/a".into(), |c| format!("{:.1}", c.0 as f64 / n)),
            r.io_calls
                .map_or("n/a".into(), |c| format!("{:.1}", c.1 as f64 / n)),
            e.cpu_us_per_op.map_or("n/a".into(), |c| format!("{c:.0}")),
        ));
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests;
