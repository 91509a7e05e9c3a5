//! `--suite sysbench`: sysbench's OLTP microbenchmarks (`oltp_*.lua`, `select_random_*.lua`)
//! on the MyRocks-style row layer (`cairn-rows`), so that CairnDB and RocksDB run the same
//! tables, indexes and statements and a comparison measures the engine alone.
//!
//! - [`data`]: the `sbtest` tables and how `prepare` loads them (bulk load, as MyRocks);
//! - [`events`]: the tests and the row operations each statement becomes.
//!
//! A run: prepare `--tables` tables of `--table_size` rows on a fresh database, then each test
//! of `--sysbench_tests` in turn on `--threads` threads for `--time` seconds. A transaction that
//! loses a lock wait or a deadlock is rolled back and retried; retries are counted. Per test
//! the report gives transactions and queries per second, transaction latency (p50, p95, p99,
//! max), the per-second transactions with their coefficient of variation, and CPU µs and device
//! KB read and written per transaction; a table of every test closes the run.
//!
//! Engine options: the db_bench flags that shape the engine (`--write_buffer_size`,
//! `--max_write_buffer_number`, `--max_background_jobs`, `--target_file_size_base`,
//! `--max_bytes_for_level_base`, `--level_compaction_dynamic_level_bytes`,
//! `--compression_type`, `--block_size`, `--bloom_bits`, `--cache_size`) become one RocksDB
//! option string, followed by `--options`, given to both engines alike; `--sync` syncs every
//! commit (MyRocks's `rocksdb_flush_log_at_trx_commit=1`).

mod data;
mod events;

use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use cairn_rows::schema::TableDef;
use cairn_rows::{Database, DatabaseOptions, Isolation, KvStore};

use super::engine::{BenchError, Compression, Result};
use super::metrics::{dir_bytes, Efficiency, Live, ProcSample};
use super::report::{OpKind, SeriesStats};
use super::threads::{run_threads, StepStats};
use super::workloads::{RunReport, StepReport};
use super::{BenchArgs, EngineKind};

pub use events::TESTS;

/// The transaction isolation of `--transaction_isolation`.
pub(super) fn isolation(args: &BenchArgs) -> Result<Isolation> {
    match args.transaction_isolation.as_str() {
        "READ-COMMITTED" | "read-committed" => Ok(Isolation::ReadCommitted),
        "REPEATABLE-READ" | "repeatable-read" => Ok(Isolation::RepeatableRead),
        other => Err(BenchError::Usage(format!(
            "--transaction_isolation={other}: use READ-COMMITTED or REPEATABLE-READ"
        ))),
    }
}

/// The tests of `--sysbench_tests`, checked.
///
/// # Errors
/// [`BenchError::Usage`] for an unknown test, or a flag out of range.
pub fn plan(args: &BenchArgs) -> Result<Vec<&'static str>> {
    let usage = |m: String| Err(BenchError::Usage(m));
    let mut tests = Vec::new();
    for name in args.sysbench_tests.split(',').filter(|s| !s.is_empty()) {
        match TESTS.iter().find(|t| **t == name) {
            Some(t) => tests.push(*t),
            None => {
                return usage(format!(
                    "unknown sysbench test {name:?} (tests: {})",
                    TESTS.join(", ")
                ))
            }
        }
    }
    if tests.is_empty() {
        return usage("--sysbench_tests names no test".into());
    }
    if args.tables == 0 || args.table_size == 0 || args.time == 0 || args.range_size == 0 {
        return usage("--tables, --table_size, --time and --range_size must be at least 1".into());
    }
    if args.table_size > i32::MAX as u64 / 2 {
        return usage("--table_size must fit sysbench's INTEGER id column".into());
    }
    if args.cache_size == 0 {
        return usage(
            "--suite sysbench needs a block cache (--cache_size above 0): RocksDB's option \
             string has no way to say none that CairnDB shares"
                .into(),
        );
    }
    isolation(args)?;
    Ok(tests)
}

/// The engine settings of this run that the row-layer suites' option string does not carry,
/// by their `EngineOptions` names: flags set apart from their defaults that these suites would
/// otherwise ignore (an option is honoured or refused). Settings the string lacks go in
/// `--options`.
///
/// # Errors
/// The flags' own errors ([`BenchArgs::engine_options`]).
pub fn settings_not_carried(args: &BenchArgs) -> Result<Vec<String>> {
    #[derive(clap::Parser)]
    struct Defaults {
        #[command(flatten)]
        bench: BenchArgs,
    }
    let mut base = <Defaults as clap::Parser>::try_parse_from(["cairn"])
        .map_err(|e| BenchError::Usage(e.to_string()))?
        .bench;
    // What `engine_options_with_cache` carries.
    base.write_buffer_size = args.write_buffer_size;
    base.max_write_buffer_number = args.max_write_buffer_number;
    base.max_background_jobs = args.max_background_jobs;
    base.target_file_size_base = args.target_file_size_base;
    base.max_bytes_for_level_base = args.max_bytes_for_level_base;
    base.level_compaction_dynamic_level_bytes = args.level_compaction_dynamic_level_bytes;
    base.compression_type.clone_from(&args.compression_type);
    base.block_size = args.block_size;
    base.bloom_bits = args.bloom_bits;
    base.cache_size = args.cache_size;
    base.options.clone_from(&args.options);
    let ours = debug_fields(&args.engine_options()?);
    let carried = debug_fields(&base.engine_options()?);
    Ok(ours
        .into_iter()
        .zip(carried)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.0)
        .collect())
}

/// The top-level `(name, value)` fields of a struct's pretty `Debug` rendering (a nested value's
/// lines stay with its field), so that a new engine setting is covered without a list.
fn debug_fields(o: &impl std::fmt::Debug) -> Vec<(String, String)> {
    let text = format!("{o:#?}");
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in text.lines().skip(1) {
        let top = line
            .strip_prefix("    ")
            .filter(|rest| !rest.starts_with(' '))
            .and_then(|rest| rest.split_once(": "));
        match (top, fields.last_mut()) {
            (Some((name, value)), _) => fields.push((name.to_string(), value.to_string())),
            (None, Some(last)) => last.1.push_str(line),
            (None, None) => {}
        }
    }
    fields
}

/// Refuses a run of the row-layer suite `suite` that sets an engine flag its option string does
/// not carry ([`settings_not_carried`]).
///
/// # Errors
/// [`BenchError::Usage`] naming the settings and the flags that are carried.
pub fn check_settings_carried(args: &BenchArgs, suite: &str) -> Result<()> {
    let dropped = settings_not_carried(args)?;
    if dropped.is_empty() {
        return Ok(());
    }
    Err(BenchError::Usage(format!(
        "--suite {suite} gives both engines one option string of --write_buffer_size, \
         --max_write_buffer_number, --max_background_jobs, --target_file_size_base, \
         --max_bytes_for_level_base, --level_compaction_dynamic_level_bytes, --compression_type, \
         --block_size, --bloom_bits, --cache_size and --options; the flags setting {} would be \
         ignored (options a RocksDB option string knows go in --options; the others cannot be \
         set for this suite)",
        dropped.join(", ")
    )))
}

/// The RocksDB option string both engines get (module documentation).
pub fn engine_options(args: &BenchArgs) -> Result<String> {
    engine_options_with_cache(args, args.cache_size)
}

/// [`engine_options`] with a block cache of `cache` bytes instead of `--cache_size`.
pub(super) fn engine_options_with_cache(args: &BenchArgs, cache: usize) -> Result<String> {
    let compression = Compression::parse(&args.compression_type)?.rocksdb_name();
    let mut table = format!("block_size={};block_cache={cache}", args.block_size);
    if args.bloom_bits > 0.0 {
        table.push_str(&format!(
            ";filter_policy=bloomfilter:{}:false",
            args.bloom_bits
        ));
    }
    let mut s = format!(
        "write_buffer_size={};max_write_buffer_number={};max_background_jobs={};\
         target_file_size_base={};max_bytes_for_level_base={};\
         level_compaction_dynamic_level_bytes={};compression={compression};\
         block_based_table_factory={{{table}}}",
        args.write_buffer_size,
        args.max_write_buffer_number,
        args.max_background_jobs,
        args.target_file_size_base,
        args.max_bytes_for_level_base,
        args.level_compaction_dynamic_level_bytes,
    );
    if let Some(extra) = &args.options {
        s.push(';');
        s.push_str(extra);
    }
    Ok(s)
}

/// Runs the suite on the engine `--engine` names.
///
/// # Errors
/// [`BenchError::Usage`] for flags it cannot run with; the engine's or row layer's error.
pub fn run(args: &BenchArgs) -> Result<RunReport> {
    match args.engine {
        EngineKind::Cairndb => run_on::<cairn_rows::CairnStore>(args),
        #[cfg(feature = "rocksdb")]
        EngineKind::Rocksdb => run_on::<cairn_rows::RocksStore>(args),
        #[cfg(not(feature = "rocksdb"))]
        EngineKind::Rocksdb => Err(BenchError::Usage(
            "--engine rocksdb: this cairn was built without RocksDB; rebuild with \
             `cargo build --release -p cairn-cli --features rocksdb`"
                .to_string(),
        )),
    }
}

fn run_on<S: KvStore>(args: &BenchArgs) -> Result<RunReport> {
    let tests = plan(args)?;
    let (dir, temporary) = super::suite::database_dir(args);
    super::workloads::destroy(&dir)?;
    let defs: Vec<TableDef> = (1..=args.tables).map(data::table_def).collect();
    let options = DatabaseOptions {
        engine_options: engine_options(args)?,
        sync: args.sync,
    };
    let db = Database::<S>::open(&dir, &defs, &options)?;
    let engine = db.store().describe();
    println!(
        "Suite sysbench on {engine}: {} tables x {} rows, {} threads, {} s per test, {}",
        args.tables, args.table_size, args.threads, args.time, args.transaction_isolation
    );
    println!("Engine options: {}", options.engine_options);
    let seed = super::suite::seed_base(args);
    let mut steps = vec![prepare(&db, args, &dir, seed)?];
    let cx = events::Context {
        tables: db.tables().to_vec(),
        table_size: args.table_size,
        range_size: args.range_size as i64,
        random_points: args.random_points,
        threads: args.threads.max(1) as usize,
        next_id: (0..args.tables)
            .map(|_| AtomicI64::new(args.table_size as i64 + 1))
            .collect(),
        isolation: isolation(args)?,
    };
    for (n, test) in tests.iter().enumerate() {
        let step = run_test(
            &db,
            &cx,
            test,
            args,
            &dir,
            seed.wrapping_add(1000 * n as u64),
        )?;
        steps.push(step);
    }
    let final_db_bytes = dir_bytes(&dir);
    db.close()?;
    println!("------------------------------------------------");
    println!("{}", table(&steps[1..]));
    println!(
        "data size: {:.1} MB after prepare, {:.1} MB at the end",
        steps[0].efficiency.db_bytes as f64 / 1_048_576.0,
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

/// Loads every table; the step's operations are rows.
fn prepare<S: KvStore>(
    db: &Database<S>,
    args: &BenchArgs,
    dir: &Path,
    seed: u64,
) -> Result<StepReport> {
    let before = ProcSample::now(None, 0);
    let start = Instant::now();
    for (n, t) in db.tables().iter().enumerate() {
        data::load(db, t, args.table_size, seed.wrapping_add(n as u64))?;
    }
    db.store().flush()?;
    let seconds = start.elapsed().as_secs_f64();
    let after = ProcSample::now(None, 0);
    let rows = args.tables as u64 * args.table_size;
    let efficiency = efficiency(&before, &after, rows, dir);
    let line = format!(
        "prepare: {rows} rows in {seconds:.1} s ({:.0} rows/s), data {:.1} MB",
        rows as f64 / seconds.max(1e-9),
        efficiency.db_bytes as f64 / 1_048_576.0
    );
    println!("{line}");
    Ok(load_step("prepare", line, rows, seconds, efficiency))
}

/// The efficiency of a row-layer step: the process between `before` and `after` for `ops`
/// operations (live keys are not tracked through the row layer).
pub(super) fn efficiency(
    before: &ProcSample,
    after: &ProcSample,
    ops: u64,
    dir: &Path,
) -> Efficiency {
    let live = Live {
        keys: 0,
        bytes: 0,
        exact: false,
    };
    Efficiency::between(before, after, ops, "not measured", dir_bytes(dir), live)
}

/// Runs `test` for `--time` seconds on `--threads` threads.
fn run_test<S: KvStore>(
    db: &Database<S>,
    cx: &events::Context,
    test: &str,
    args: &BenchArgs,
    dir: &Path,
    seed: u64,
) -> Result<StepReport> {
    let queries = AtomicU64::new(0);
    let retries = AtomicU64::new(0);
    let time = Duration::from_secs(args.time);
    let before = ProcSample::now(None, 0);
    let step = run_threads(args.threads.max(1) as usize, seed, None, |ts, _| {
        let start = Instant::now();
        while start.elapsed() < time {
            let t0 = Instant::now();
            loop {
                match events::event(test, db, cx, &mut ts.rng, ts.tid) {
                    Ok(q) => {
                        queries.fetch_add(q, Ordering::Relaxed);
                        break;
                    }
                    Err(e) if e.is_retryable() => {
                        retries.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(e) => return Err(BenchError::from(e).context(format!("sysbench {test}"))),
                }
            }
            ts.stats.finished_op(OpKind::Others, t0, 0);
        }
        Ok(())
    })?;
    let after = ProcSample::now(None, 0);
    let s = &step.merged;
    let txns = s.done();
    let seconds = s.elapsed_secs();
    let queries = queries.load(Ordering::Relaxed);
    let retries = retries.load(Ordering::Relaxed);
    let efficiency = efficiency(&before, &after, txns, dir).with_thread_cpu(s.cpu_seconds(), txns);
    let result_line = format!(
        "{test}: transactions {txns} ({:.2} per sec.), queries {queries} ({:.2} per sec.), \
         retries {retries}",
        txns as f64 / seconds,
        queries as f64 / seconds
    );
    let mut report = transaction_step(test, result_line, &step, efficiency);
    report.queries = Some(queries);
    report.retries = Some(retries);
    print_step(&format!("sysbench {test}"), &report);
    Ok(report)
}

/// The record of a load (both row-layer suites): `ops` rows (or 0) in `seconds`.
pub(super) fn load_step(
    name: &str,
    result_line: String,
    ops: u64,
    seconds: f64,
    efficiency: Efficiency,
) -> StepReport {
    StepReport {
        name: name.to_string(),
        result_line,
        threads: 1,
        ops,
        seconds,
        ops_per_sec: ops as f64 / seconds.max(1e-9),
        bytes: 0,
        latency: Vec::new(),
        per_second: Vec::new(),
        throughput: SeriesStats::of(&[]),
        efficiency,
        writer: None,
        verified: None,
        device_syncs_per_sec: None,
        queries: None,
        retries: None,
        io_calls: None,
    }
}

/// The record of a timed transaction step (both row-layer suites) from its threads' merged
/// results; the suite fills in its own counters.
pub(super) fn transaction_step(
    name: &str,
    result_line: String,
    step: &StepStats,
    efficiency: Efficiency,
) -> StepReport {
    let s = &step.merged;
    StepReport {
        threads: step.threads,
        latency: s.percentiles().into_iter().collect(),
        per_second: s.per_second().to_vec(),
        throughput: SeriesStats::of(s.full_seconds()),
        ..load_step(name, result_line, s.done(), s.elapsed_secs(), efficiency)
    }
}

/// Prints a transaction step (both row-layer suites): its title, result line, latency
/// percentiles, per-second throughput, and CPU, device bytes and (when measured) system calls
/// per transaction.
pub(super) fn print_step(title: &str, r: &StepReport) {
    println!("== {title} ==");
    println!("{}", r.result_line);
    if let Some((_, l)) = r.latency.first() {
        println!(
            "  latency (ms): p50 {:.3} p95 {:.3} p99 {:.3} max {:.3}",
            l.p50_us / 1e3,
            l.p95_us / 1e3,
            l.p99_us / 1e3,
            l.max_us / 1e3
        );
    }
    println!("{}", r.throughput.line());
    let e = &r.efficiency;
    let n = r.ops.max(1) as f64;
    let kb = |b: Option<u64>| {
        b.map_or("n/a".to_string(), |b| {
            format!("{:.2}", b as f64 / 1024.0 / n)
        })
    };
    let cpu = e
        .cpu_us_per_op
        .map_or("n/a".to_string(), |c| format!("{c:.1}"));
    let calls = r.io_calls.map_or(String::new(), |(rc, wc)| {
        format!(
            ", read calls {:.2}, write calls {:.2}",
            rc as f64 / n,
            wc as f64 / n
        )
    });
    println!(
        "  per transaction: cpu {cpu} us, device read {} KB, written {} KB{calls}",
        kb(e.device_read_bytes),
        kb(e.device_write_bytes)
    );
}

/// The closing table.
fn table(steps: &[StepReport]) -> String {
    let mut out = format!(
        "{:<17} {:>10} {:>10} {:>8} {:>8} {:>8} {:>9} {:>6} {:>8} {:>8} {:>8} {:>7}\n{}\n",
        "test",
        "tps",
        "qps",
        "p50 ms",
        "p95 ms",
        "p99 ms",
        "max ms",
        "CV",
        "KBr/txn",
        "KBw/txn",
        "cpu us",
        "retries",
        "-".repeat(114)
    );
    let f = |v: Option<f64>, d: usize| v.map_or("n/a".to_string(), |v| format!("{v:.d$}"));
    for r in steps {
        let l = r.latency.first().map(|(_, l)| *l);
        let n = r.ops.max(1) as f64;
        let e = &r.efficiency;
        out.push_str(&format!(
            "{:<17} {:>10.1} {:>10.1} {:>8} {:>8} {:>8} {:>9} {:>6.3} {:>8} {:>8} {:>8} {:>7}\n",
            r.name,
            r.ops_per_sec,
            r.queries.unwrap_or(0) as f64 / r.seconds.max(1e-9),
            f(l.map(|l| l.p50_us / 1e3), 3),
            f(l.map(|l| l.p95_us / 1e3), 3),
            f(l.map(|l| l.p99_us / 1e3), 3),
            f(l.map(|l| l.max_us / 1e3), 2),
            r.throughput.cv,
            f(e.device_read_bytes.map(|b| b as f64 / 1024.0 / n), 2),
            f(e.device_write_bytes.map(|b| b as f64 / 1024.0 / n), 2),
            f(e.cpu_us_per_op, 1),
            r.retries.unwrap_or(0),
        ));
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::suite::tests::flags;

    #[test]
    fn plan_checks_tests_and_flags() {
        let ok = flags(&["bench", "--suite=sysbench"]);
        assert_eq!(plan(&ok).expect("plan"), TESTS);
        let some = flags(&[
            "bench",
            "--suite=sysbench",
            "--sysbench_tests=read_write,insert",
        ]);
        assert_eq!(plan(&some).expect("plan"), ["read_write", "insert"]);
        let bad = |argv: &[&str]| plan(&flags(argv)).expect_err("refused").to_string();
        assert!(bad(&["bench", "--sysbench_tests=oltp_nope"]).contains("unknown sysbench test"));
        assert!(bad(&["bench", "--tables=0"]).contains("at least 1"));
        assert!(bad(&["bench", "--cache_size=0"]).contains("block cache"));
        assert!(bad(&["bench", "--transaction_isolation=SERIALIZABLE"]).contains("READ-COMMITTED"));
    }

    #[test]
    fn settings_the_option_string_does_not_carry_are_named() {
        let none = flags(&[
            "bench",
            "--suite=sysbench",
            "--write_buffer_size=1048576",
            "--compression_type=lz4",
            "--options=max_open_files=100",
        ]);
        assert!(settings_not_carried(&none).expect("checked").is_empty());
        let some = flags(&[
            "bench",
            "--suite=sysbench",
            "--compaction_cpu_priority=low",
            "--open_files=100",
            "--rate_limiter_bytes_per_sec=1048576",
        ]);
        assert_eq!(
            settings_not_carried(&some).expect("checked"),
            ["max_open_files", "rate_limiter", "compaction_cpu_priority"]
        );
    }

    #[test]
    fn engine_options_carry_the_flags_and_options_last() {
        let args = flags(&[
            "bench",
            "--write_buffer_size=1048576",
            "--compression_type=lz4",
            "--cache_size=8388608",
            "--bloom_bits=10",
            "--options=max_background_jobs=4",
        ]);
        let s = engine_options(&args).expect("options");
        assert!(s.starts_with("write_buffer_size=1048576;"), "{s}");
        assert!(s.contains("compression=kLZ4Compression"), "{s}");
        assert!(
            s.contains(
                "block_based_table_factory={block_size=4096;block_cache=8388608;\
             filter_policy=bloomfilter:10:false}"
            ),
            "{s}"
        );
        assert!(s.ends_with(";max_background_jobs=4"), "{s}");
        // CairnDB parses it, and the parse sets what the flags say.
        let o = cairndb::options::Options::from_options_string(&s).expect("parses");
        assert_eq!(o.cf.write_buffer_size, 1 << 20);
        assert_eq!(o.db.max_background_jobs, 4);
        assert_eq!(
            o.cf.table.block_cache.as_ref().map(|c| c.capacity()),
            Some(8 << 20)
        );
    }

    /// A whole small run on CairnDB: every test runs, and the tables stay consistent.
    #[test]
    fn a_small_run_of_every_test_leaves_consistent_tables() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db_dir = dir.path().join("db");
        let db_arg = format!("--db={}", db_dir.display());
        let args = flags(&[
            "bench",
            "--suite=sysbench",
            "--tables=2",
            "--table_size=300",
            "--time=1",
            "--threads=2",
            "--random_points=20",
            "--cache_size=1048576",
            &db_arg,
        ]);
        let report = run(&args).expect("run");
        assert_eq!(report.steps.len(), 1 + TESTS.len());
        assert_eq!(report.steps[0].ops, 600);
        for s in &report.steps[1..] {
            assert!(s.ops > 0, "{} ran no transaction", s.name);
        }
        let defs: Vec<TableDef> = (1..=2).map(data::table_def).collect();
        let db =
            Database::<cairn_rows::CairnStore>::open(&db_dir, &defs, &DatabaseOptions::default())
                .expect("reopen");
        for t in db.tables() {
            cairn_rows::check::check_table(&db, t).expect("consistent");
        }
    }
}
