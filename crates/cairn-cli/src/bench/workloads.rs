//! db_bench's benchmarks run in order on one database: the run's state between steps, the
//! dispatch of each benchmark onto its threads (`drivers.rs` holds the per-thread loops), and
//! what is printed and recorded for each step.
//!
//! Seeds follow db_bench: every benchmark thread takes a fresh generator seeded with
//! `seed_base + n`, n counting benchmark threads of the run from 1 (`--threads` per step, one
//! more for readwhilewriting's writer; `flush`, `waitforcompaction`, `stats`, `levelstats` and
//! skipped fills take none, as in db_bench where they do not run on threads).
//!
//! As in db_bench, the database in `--db` is destroyed at the start unless `--use_existing_db`,
//! and the fills (`fillseq`, `fillbatch`, `fillrandom`, `filluniquerandom`, `fillsync`) start
//! from a fresh one; with `--use_existing_db` they are skipped. A directory that holds files but
//! no database (no `CURRENT`) is never deleted.
//!
//! Under each db_bench result line come the lines db_bench does not print (efficiency,
//! per-second throughput, latency percentiles; see `report.rs` and `metrics.rs`), and every step
//! is recorded for `--report_json` and `--report_dir`.
//!
//! `randomtransaction` (`randomtxn.rs`) on a transaction database is followed, as in db_bench,
//! by `RandomTransactionVerify`, whose line comes last in the step's block; the step's JSON
//! record says whether it passed (`verified`). Its keys are not db_bench's integer keys, so
//! its puts are not counted for write and space amplification.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use cairndb::options::RocksDbEnum;
use serde::Serialize;

use super::bluestore;
use super::device;
use super::drivers::{self, Ctx, KeyOrder};
use super::engine::{BenchEngine, BenchError, EngineOptions, Result, TransactionDbKind, WriteMode};
use super::generator::{unique_random_order, MAX_UNIQUE_RANDOM_NUM};
use super::keydist::KeyDist;
use super::metrics::{dir_bytes, Efficiency, KeyTracker, ProcSample};
use super::monitor::{Monitor, MonitorConfig};
use super::randomtxn;
use super::report::{LatencyPercentiles, OpKind, SeriesStats, Stats};
use super::threads::{run_threads, RateLimiter, Shared, StepStats, ThreadState};
use super::BenchArgs;

/// Every benchmark `cairn bench` runs.
pub const BENCHMARKS: &[&str] = &[
    "fillseq",
    "fillbatch",
    "fillrandom",
    "filluniquerandom",
    "fillsync",
    "overwrite",
    "updaterandom",
    "readrandom",
    "readmissing",
    "multireadrandom",
    "readseq",
    "readreverse",
    "seekrandom",
    "readwhilewriting",
    "seekrandomwhilewriting",
    "readrandomwriterandom",
    "deleterandom",
    "deleteseq",
    "randomtransaction",
    "bluestore_fill",
    "bluestore_write",
    "flush",
    "compact",
    "waitforcompaction",
    "stats",
    "levelstats",
];

/// Bytes a one-put batch's WAL record adds to its key and value (record header 7, batch header
/// 12, tag 1, two length varints), the size the device probe appends.
const WAL_RECORD_OVERHEAD: usize = 22;

/// The benchmarks that need a fresh database.
const FILLS: &[&str] = &[
    "fillseq",
    "fillbatch",
    "fillrandom",
    "filluniquerandom",
    "fillsync",
    "bluestore_fill",
];

/// One step's record, for `--report_json` and `--report_dir`.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// The benchmark.
    pub name: String,
    /// db_bench's result line, as printed.
    pub result_line: String,
    /// Threads whose results are merged (readwhilewriting: the readers).
    pub threads: usize,
    /// Operations done.
    pub ops: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Operations per wall-clock second.
    pub ops_per_sec: f64,
    /// Bytes moved (db_bench's MB/s numerator).
    pub bytes: u64,
    /// Latency percentiles per operation type.
    pub latency: Vec<(OpKind, LatencyPercentiles)>,
    /// Operations finished in each second of the step (the last may be partial).
    pub per_second: Vec<u64>,
    /// Statistics of the whole seconds of `per_second`.
    pub throughput: SeriesStats,
    /// Efficiency of the step.
    pub efficiency: Efficiency,
    /// readwhilewriting's background writer, reported apart as db_bench keeps it out of the
    /// result line.
    pub writer: Option<WriterReport>,
    /// randomtransaction on a transaction database: whether db_bench's check that every set's
    /// sum is equal passed (`RandomTransactionVerify`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// Synced write steps: the device's synced appends per second, probed in the database
    /// directory just before the step (`device.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_syncs_per_sec: Option<f64>,
    /// `--suite sysbench`: SQL statements run (sysbench's queries).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queries: Option<u64>,
    /// `--suite sysbench` and `tpcc`: transactions retried (sysbench) or abandoned (tpcc)
    /// after a lock timeout or deadlock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
    /// `--suite tpcc`: read and write system calls of the step (`/proc/self/io`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io_calls: Option<(u64, u64)>,
}

/// The background writer of readwhilewriting.
#[derive(Debug, Clone, Serialize)]
pub struct WriterReport {
    /// Puts done.
    pub ops: u64,
    /// Puts per wall-clock second.
    pub ops_per_sec: f64,
    /// Put latency percentiles.
    pub latency: Option<LatencyPercentiles>,
}

/// What a run produced: the steps, and the database's size at the end.
#[derive(Debug, Clone, Default)]
pub struct RunReport {
    /// Every step run, in order.
    pub steps: Vec<StepReport>,
    /// Bytes of the database directory at the end.
    pub final_db_bytes: u64,
    /// The engine's description.
    pub engine: String,
}

/// Splits and checks `--benchmarks`.
///
/// # Errors
/// [`BenchError::Usage`] naming an unknown benchmark.
pub fn benchmark_names(list: &str) -> Result<Vec<&str>> {
    let names: Vec<&str> = list
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if let Some(unknown) = names.iter().find(|n| !BENCHMARKS.contains(n)) {
        return Err(BenchError::Usage(format!(
            "benchmark {unknown:?} is not available: cairn bench runs {}",
            BENCHMARKS.join(", ")
        )));
    }
    Ok(names)
}

/// Runs every benchmark of `--benchmarks` in order on engine `E`, printing as it goes.
///
/// # Errors
/// [`BenchError::Usage`] for an unknown benchmark name (before anything runs) or flags a
/// benchmark cannot run with; the engine's error when an operation fails.
pub fn run<E: BenchEngine>(args: &BenchArgs, options: &EngineOptions) -> Result<RunReport> {
    let names = benchmark_names(&args.benchmarks)?;
    run_steps::<E>(args, options, &names, |line| println!("{line}"))
}

/// Runs `names` in order on engine `E` in a database opened per the flags, handing each printed
/// block to `out`.
///
/// # Errors
/// As [`run`].
pub fn run_steps<E: BenchEngine>(
    args: &BenchArgs,
    options: &EngineOptions,
    names: &[&str],
    mut out: impl FnMut(&str),
) -> Result<RunReport> {
    let tmp;
    let dir = match &args.db {
        Some(d) => d.clone(),
        None => {
            tmp = tempfile::Builder::new()
                .prefix("cairn-bench-")
                .tempdir()
                .map_err(|e| cairndb::Error::io("create temp dir", std::env::temp_dir(), e))?;
            tmp.path().join("db")
        }
    };
    let seed_base = if args.seed == 0 {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_micros() as u64);
        out(&format!("Set seed to {now} because --seed was 0"));
        now
    } else {
        args.seed
    };
    let mut run = Run::<E>::start(args, options, dir, seed_base)?;
    out(&header(args, options, &run.dir, run.engine()));
    for name in names {
        let text = run.execute(name)?;
        out(&text);
    }
    out(&run.summary());
    if args.statistics {
        out(&run.engine().statistics());
    }
    let mut report = RunReport {
        steps: std::mem::take(&mut run.steps),
        final_db_bytes: 0,
        engine: run.engine().describe(),
    };
    let dir = run.dir.clone();
    run.finish()?;
    report.final_db_bytes = dir_bytes(&dir);
    Ok(report)
}

/// State shared by the benchmarks of one run.
pub(super) struct Run<'a, E: BenchEngine> {
    args: &'a BenchArgs,
    options: &'a EngineOptions,
    dir: PathBuf,
    /// The open database; `None` only while a fill replaces it.
    engine: Option<E>,
    seed_base: u64,
    /// Benchmark threads started so far; the next is seeded with `seed_base + this + 1`.
    threads_started: u64,
    keys: KeyTracker,
    dist: KeyDist,
    steps: Vec<StepReport>,
}

/// Removes the database in `dir` for a fresh start, as db_bench's DestroyDB does; refuses a
/// non-empty directory that does not hold a database, so a mistyped --db loses nothing.
pub(super) fn destroy(dir: &Path) -> Result<()> {
    let Ok(mut entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    if entries.next().is_some() && !dir.join("CURRENT").exists() {
        return Err(BenchError::Usage(format!(
            "{} is not empty and holds no database; refusing to delete it for a fresh fill",
            dir.display()
        )));
    }
    std::fs::remove_dir_all(dir).map_err(|e| cairndb::Error::io("remove_dir_all", dir, e).into())
}

fn header<E: BenchEngine>(args: &BenchArgs, o: &EngineOptions, dir: &Path, engine: &E) -> String {
    let mut out = String::new();
    let mut println = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    println(format!("Engine:     {}", engine.describe()));
    println(format!("DB path:    [{}]", dir.display()));
    println(format!("Keys:       {} bytes each", args.key_size));
    println(format!(
        "Values:     {} bytes each ({} bytes after compression)",
        args.value_size,
        (args.value_size as f64 * args.compression_ratio) as usize
    ));
    println(format!("Entries:    {}", args.num));
    println(format!("Compression: {}", o.compression.rocksdb_name()));
    println(format!(
        "Writes:     sync={} disable_wal={} batch_size={}",
        args.sync, args.disable_wal, args.batch_size
    ));
    match o.transaction_db {
        TransactionDbKind::None => {}
        TransactionDbKind::Pessimistic => println(format!(
            "Transactions: {} (randomtransaction: sets={} lock_timeout={} ms set_snapshot={}{})",
            o.transaction_db.name(),
            args.transaction_sets,
            args.transaction_lock_timeout,
            args.transaction_set_snapshot,
            randomtxn::read_only_note(args)
        )),
        TransactionDbKind::Optimistic => println(format!(
            "Transactions: {} (randomtransaction: sets={}{})",
            o.transaction_db.name(),
            args.transaction_sets,
            randomtxn::read_only_note(args)
        )),
    }
    let cache = o
        .block_cache
        .map_or("none".to_string(), |(kind, capacity)| {
            format!("{capacity} bytes, {}", kind.name())
        });
    println(format!("Block cache: {cache}"));
    let bloom = o
        .bloom_bits_per_key
        .map_or("none".to_string(), |b| format!("{b} bits/key"));
    println(format!("Bloom filter: {bloom}"));
    let bytes_per_sync = o
        .bytes_per_sync
        .map_or("engine default".to_string(), |b| b.to_string());
    let rate_limiter = o.rate_limiter.map_or("none".to_string(), |r| {
        let mode = if r.bg_reads { "reads" } else { "writes" };
        let control = if r.backlog_control {
            ",backlog-controlled"
        } else {
            ""
        };
        format!(
            "{}B/s,refill={}us,{mode}{control}",
            r.bytes_per_sec, r.refill_period_us
        )
    });
    let options = [
        ("write_buffer_size", o.write_buffer_size.to_string()),
        (
            "max_write_buffer_number",
            o.max_write_buffer_number.to_string(),
        ),
        (
            "min_write_buffer_number_to_merge",
            o.min_write_buffer_number_to_merge.to_string(),
        ),
        ("block_size", o.block_size.to_string()),
        ("max_background_jobs", o.max_background_jobs.to_string()),
        ("max_subcompactions", o.max_subcompactions.to_string()),
        ("target_file_size_base", o.target_file_size_base.to_string()),
        (
            "target_file_size_multiplier",
            o.target_file_size_multiplier.to_string(),
        ),
        (
            "max_bytes_for_level_base",
            o.max_bytes_for_level_base.to_string(),
        ),
        (
            "max_bytes_for_level_multiplier",
            o.max_bytes_for_level_multiplier.to_string(),
        ),
        (
            "level_compaction_dynamic_level_bytes",
            o.level_compaction_dynamic_level_bytes.to_string(),
        ),
        ("num_levels", o.num_levels.to_string()),
        (
            "level0_file_num_compaction_trigger",
            o.level0_file_num_compaction_trigger.to_string(),
        ),
        (
            "level0_slowdown_writes_trigger",
            o.level0_slowdown_writes_trigger.to_string(),
        ),
        (
            "level0_stop_writes_trigger",
            o.level0_stop_writes_trigger.to_string(),
        ),
        (
            "soft_pending_compaction_bytes_limit",
            o.soft_pending_compaction_bytes_limit.to_string(),
        ),
        (
            "hard_pending_compaction_bytes_limit",
            o.hard_pending_compaction_bytes_limit.to_string(),
        ),
        ("delayed_write_rate", o.delayed_write_rate.to_string()),
        ("max_open_files", o.max_open_files.to_string()),
        ("bytes_per_sync", bytes_per_sync),
        ("recycle_log_file_num", o.recycle_log_file_num.to_string()),
        ("rate_limiter", rate_limiter),
        (
            "enable_pipelined_write",
            o.enable_pipelined_write.to_string(),
        ),
        (
            "compaction_cpu_priority",
            o.compaction_cpu_priority.rocksdb_name().to_string(),
        ),
        (
            "flush_cpu_priority",
            o.flush_cpu_priority.rocksdb_name().to_string(),
        ),
    ];
    let mut line = String::from("Options:   ");
    for (name, value) in options {
        let item = format!(" {name}={value}");
        if line.len() + item.len() > 100 {
            println(std::mem::replace(&mut line, String::from("           ")));
        }
        line.push_str(&item);
    }
    println(line);
    println("------------------------------------------------".to_string());
    out.pop();
    out
}

impl<'a, E: BenchEngine> Run<'a, E> {
    /// Opens the database in `dir`, destroyed first unless `--use_existing_db`.
    pub(super) fn start(
        args: &'a BenchArgs,
        options: &'a EngineOptions,
        dir: PathBuf,
        seed_base: u64,
    ) -> Result<Self> {
        let engine = if args.use_existing_db {
            E::open(&dir, options).map_err(|e| {
                e.context(format!(
                    "opening the existing database in {} (a database written by the other \
                     --engine cannot be opened; without --use_existing_db it is replaced)",
                    dir.display()
                ))
            })?
        } else {
            destroy(&dir)?;
            E::open(&dir, options)?
        };
        Ok(Run {
            args,
            options,
            dir,
            engine: Some(engine),
            seed_base,
            threads_started: 0,
            keys: KeyTracker::new(
                args.num,
                (args.key_size + args.value_size) as u64,
                args.use_existing_db,
            ),
            dist: KeyDist::parse(&args.key_dist, args.num, args.zipf_theta)?,
            steps: Vec::new(),
        })
    }

    /// Runs benchmark `name` and returns what it prints: db_bench's result line, the lines
    /// db_bench leaves out, and with `--histogram` db_bench's histogram blocks; or that it was
    /// skipped; or, for stats and levelstats, the engine's statistics.
    pub(super) fn execute(&mut self, name: &str) -> Result<String> {
        if FILLS.contains(&name) && self.args.use_existing_db {
            return Ok(format!("{name:<12} : skipped (--use_existing_db is true)"));
        }
        if name == "stats" || name == "levelstats" {
            return Ok(self.engine().stats_report(name));
        }
        if FILLS.contains(&name) {
            self.reopen_fresh()?;
        }
        let device = if self.syncs_every_write(name) {
            let entry = match name {
                "bluestore_fill" => bluestore::mean_fill_batch_bytes(),
                "bluestore_write" => bluestore::mean_write_batch_bytes(),
                _ => self.args.key_size + self.args.value_size,
            };
            let record = entry + WAL_RECORD_OVERHEAD;
            let probe =
                device::probe_sync_rate(&self.dir, record, device::PROBE_TIME, device::PROBE_SYNCS);
            Some(
                probe.map_err(|e| {
                    cairndb::Error::io("probe the device's sync rate", &self.dir, e)
                })?,
            )
        } else {
            None
        };
        let before = self.sample();
        let step = self
            .benchmark(name)
            .map_err(|e| e.context(name.to_string()))?;
        let after = self.sample();
        let mut report = self.step_report(name, &step, &before, &after);
        report.device_syncs_per_sec = device.map(|d| d.per_sec);
        let mut out = report.result_line.clone();
        for line in self.extra_lines(&report, &step) {
            out.push('\n');
            out.push_str(&line);
        }
        if let Some(d) = device {
            out.push('\n');
            out.push_str(&d.line(report.ops_per_sec));
        }
        if self.args.histogram {
            let blocks = step.merged.histogram_blocks();
            if !blocks.is_empty() {
                out.push('\n');
                out.push_str(blocks.trim_end());
            }
        }
        // db_bench's post-processing step, after the benchmark's report: the check of
        // randomtransaction, on transaction databases only (plain batches lose updates when
        // threads race, so db_bench checks nothing then).
        if name == "randomtransaction" && self.args.transaction_kind() != TransactionDbKind::None {
            let check = randomtxn::verify(
                self.engine(),
                self.args.transaction_sets,
                self.seed_base as u32,
            )
            .map_err(|e| e.context("RandomTransactionVerify"))?;
            for line in &check.lines {
                out.push('\n');
                out.push_str(line);
            }
            if !check.passed && !randomtxn::check_cannot_fail(self.args) {
                out.push('\n');
                out.push_str(randomtxn::OPTIMISTIC_RACE_NOTE);
            }
            report.verified = Some(check.passed);
        }
        self.steps.push(report);
        Ok(out)
    }

    fn sample(&self) -> ProcSample {
        ProcSample::now(self.engine().table_bytes_written(), self.keys.user_bytes())
    }

    /// The record of a step from its merged results and the process samples around it.
    fn step_report(
        &self,
        name: &str,
        step: &StepStats,
        before: &ProcSample,
        after: &ProcSample,
    ) -> StepReport {
        let s = &step.merged;
        let efficiency = Efficiency::between(
            before,
            after,
            s.done(),
            self.engine().write_amp_source(),
            dir_bytes(&self.dir),
            self.keys.live(),
        )
        .with_thread_cpu(s.cpu_seconds(), s.done());
        let writer = step.excluded.as_ref().map(|w| WriterReport {
            ops: w.done(),
            ops_per_sec: w.done() as f64 / w.elapsed_secs(),
            latency: w.percentiles().get(&OpKind::Write).copied(),
        });
        StepReport {
            name: name.to_string(),
            result_line: s.result_line(name),
            threads: step.threads - usize::from(step.excluded.is_some()),
            ops: s.done(),
            seconds: s.elapsed_secs(),
            ops_per_sec: s.done() as f64 / s.elapsed_secs(),
            bytes: s.bytes(),
            latency: s.percentiles().into_iter().collect(),
            per_second: s.per_second().to_vec(),
            throughput: SeriesStats::of(s.full_seconds()),
            efficiency,
            writer,
            verified: None,
            device_syncs_per_sec: None,
            queries: None,
            retries: None,
            io_calls: None,
        }
    }

    /// The lines printed under db_bench's result line.
    /// Whether step `name` syncs the WAL on every write: fillsync, and the write steps under
    /// `--sync`.
    fn syncs_every_write(&self, name: &str) -> bool {
        let writes = FILLS.contains(&name)
            || matches!(name, "overwrite" | "updaterandom" | "bluestore_write");
        name == "fillsync" || (self.args.sync && writes && !self.args.disable_wal)
    }

    fn extra_lines(&self, r: &StepReport, step: &StepStats) -> Vec<String> {
        let mut lines = vec![r.efficiency.line(r.ops), r.throughput.line()];
        lines.extend(step.merged.percentile_lines());
        if let (Some(w), Some(ws)) = (&r.writer, &step.excluded) {
            lines.push(format!(
                "  background writer (not in the result line, as db_bench): {} puts, {:.0} \
                 puts/s",
                w.ops, w.ops_per_sec
            ));
            lines.extend(
                ws.percentile_lines()
                    .into_iter()
                    .map(|l| l.replacen("  latency write", "  writer latency write", 1)),
            );
        }
        lines
    }

    /// Runs the next steps with `args` (the suite changes threads, sync and the write rate
    /// between steps; everything that shapes the database stays the same).
    pub(super) fn set_args(&mut self, args: &'a BenchArgs) {
        self.args = args;
    }

    /// The records of the steps run so far.
    pub(super) fn steps(&self) -> &[StepReport] {
        &self.steps
    }

    /// The database directory.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Closes the database.
    pub(super) fn finish(mut self) -> Result<()> {
        self.engine
            .take()
            .expect("open after the benchmarks")
            .close()
    }

    pub(super) fn engine(&self) -> &E {
        self.engine.as_ref().expect("open between benchmarks")
    }

    /// Replaces the database with a fresh, empty one.
    fn reopen_fresh(&mut self) -> Result<()> {
        if let Some(engine) = self.engine.take() {
            engine.close()?;
        }
        destroy(&self.dir)?;
        self.engine = Some(E::open(&self.dir, self.options)?);
        self.keys.clear();
        Ok(())
    }

    fn write_mode(&self) -> WriteMode {
        WriteMode {
            sync: self.args.sync,
            disable_wal: self.args.disable_wal,
        }
    }

    /// Runs `body` on `n` benchmark threads (seeded as db_bench seeds them) with a monitor for
    /// `--report_interval_seconds` and the progress line.
    fn on_threads<F>(
        &mut self,
        name: &str,
        n: usize,
        expected_ops: u64,
        body: F,
    ) -> Result<StepStats>
    where
        F: Fn(&Ctx<'_, E>, &mut ThreadState, &Shared) -> Result<()> + Sync,
    {
        let first_seed = self
            .seed_base
            .wrapping_add(self.threads_started)
            .wrapping_add(1);
        self.threads_started += n as u64;
        let args = self.args;
        let monitor = Monitor::start(MonitorConfig {
            report: (args.report_interval_seconds > 0)
                .then(|| (args.report_file.clone(), args.report_interval_seconds)),
            progress: Some((
                name.to_string(),
                if args.duration > 0 { 0 } else { expected_ops },
            )),
            stats_interval_seconds: args.stats_interval_seconds,
        })?;
        let limiter = (args.benchmark_write_rate_limit > 0)
            .then(|| Mutex::new(RateLimiter::new(args.benchmark_write_rate_limit)));
        let ctx = Ctx {
            engine: self.engine(),
            args,
            keys: &self.keys,
            mode: self.write_mode(),
            dist: &self.dist,
            write_limiter: limiter.as_ref(),
        };
        let counter = monitor.as_ref().map(|m| m.counter.clone());
        let result = run_threads(n, first_seed, counter, |t, shared| body(&ctx, t, shared));
        if let Some(m) = monitor {
            m.stop();
        }
        result
    }

    /// A step done once on the calling thread (flush, waitforcompaction: db_bench runs them
    /// outside its threads).
    fn single(&self, f: impl FnOnce(&E) -> Result<()>) -> Result<StepStats> {
        let mut stats = Stats::start();
        f(self.engine())?;
        stats.stop();
        Ok(StepStats {
            merged: stats,
            excluded: None,
            threads: 1,
        })
    }

    fn benchmark(&mut self, name: &str) -> Result<StepStats> {
        let args = self.args;
        let (num, batch, n) = (args.num, args.batch_size, args.threads as usize);
        match name {
            "fillseq" => self.write(name, KeyOrder::Sequential, num, batch, None),
            // db_bench's fillbatch: fillseq in batches of 1000.
            "fillbatch" => self.write(name, KeyOrder::Sequential, num, 1000, None),
            "fillrandom" | "overwrite" => self.write(name, KeyOrder::Random, num, batch, None),
            "filluniquerandom" => self.write(name, KeyOrder::UniqueRandom, num, batch, None),
            // db_bench's fillsync: synced random writes over a key space of num / 1000. It writes
            // --writes entries (default --num, not num / 1000: db_bench's DoWrite counts
            // writes_), and its "(N ops)" note shows the key space.
            "fillsync" => self.write(name, KeyOrder::Random, num / 1000, batch, Some(true)),
            "readrandom" => self.on_threads(name, n, args.reads() * n as u64, |c, t, _| {
                drivers::readrandom(c, t)
            }),
            "readmissing" => self.on_threads(name, n, args.reads() * n as u64, |c, t, _| {
                drivers::readmissing(c, t)
            }),
            "multireadrandom" => self.on_threads(name, n, args.reads() * n as u64, |c, t, _| {
                drivers::multireadrandom(c, t)
            }),
            "readseq" => self.on_threads(name, n, 0, |c, t, _| drivers::scan(c, t, true)),
            "readreverse" => self.on_threads(name, n, 0, |c, t, _| drivers::scan(c, t, false)),
            "seekrandom" => self.on_threads(name, n, args.reads() * n as u64, |c, t, _| {
                drivers::seekrandom(c, t)
            }),
            "deleterandom" => self.on_threads(name, n, args.deletes() * n as u64, |c, t, _| {
                drivers::delete(c, t, false)
            }),
            "deleteseq" => self.on_threads(name, n, args.deletes() * n as u64, |c, t, _| {
                drivers::delete(c, t, true)
            }),
            "readwhilewriting" => {
                // db_bench adds one thread, tid 0, the background writer.
                self.on_threads(name, n + 1, args.reads() * n as u64, |c, t, shared| {
                    if t.tid == 0 {
                        drivers::bg_writer(c, t, shared)
                    } else {
                        drivers::readrandom(c, t)
                    }
                })
            }
            "seekrandomwhilewriting" => {
                self.on_threads(name, n + 1, args.reads() * n as u64, |c, t, shared| {
                    if t.tid == 0 {
                        drivers::bg_writer(c, t, shared)
                    } else {
                        drivers::seekrandom(c, t)
                    }
                })
            }
            "readrandomwriterandom" => {
                let total = drivers::readwrites(args) * n as u64;
                self.on_threads(name, n, total, |c, t, _| {
                    drivers::readrandomwriterandom(c, t)
                })
            }
            "updaterandom" => {
                let total = drivers::readwrites(args) * n as u64;
                self.on_threads(name, n, total, |c, t, _| drivers::updaterandom(c, t))
            }
            "randomtransaction" => {
                let total = drivers::readwrites(args) * n as u64;
                self.on_threads(name, n, total, |c, t, _| randomtxn::randomtransaction(c, t))
            }
            "bluestore_fill" => {
                self.on_threads(name, n, num, |c, t, shared| bluestore::fill(c, t, shared))
            }
            "bluestore_write" => {
                let ops = args.writes();
                self.on_threads(name, n, ops * n as u64, |c, t, shared| {
                    bluestore::write(c, t, shared, ops)
                })
            }
            // db_bench's Compact runs on every thread; one compaction of the whole key range is
            // done here, but the threads' seeds are taken so later benchmarks draw as db_bench's.
            "compact" => {
                self.threads_started += n as u64;
                self.single(|e| e.compact())
            }
            "flush" => self.single(|e| e.flush()),
            "waitforcompaction" => self.single(|e| e.wait_for_compaction()),
            other => unreachable!("benchmark {other} passed the name check"),
        }
    }

    /// db_bench's `DoWrite` on `--threads` threads: each writes `--writes` entries (default
    /// `--num`; or for `--duration` seconds with random keys) in calls of `batch`.
    fn write(
        &mut self,
        name: &str,
        order: KeyOrder,
        key_space: u64,
        batch: u64,
        sync: Option<bool>,
    ) -> Result<StepStats> {
        let args = self.args;
        let writes = args.writes();
        let ops = if writes == 0 { key_space } else { writes };
        if order == KeyOrder::UniqueRandom && (ops > key_space || key_space > MAX_UNIQUE_RANDOM_NUM)
        {
            return Err(BenchError::Usage(format!(
                "filluniquerandom writes each key once: --writes ({ops}) must not exceed --num \
                 ({key_space}), and --num must be at most {MAX_UNIQUE_RANDOM_NUM}"
            )));
        }
        // Every thread shuffles with the same seed (db_bench seeds RandomShuffle with the seed
        // base), so one permutation serves them all.
        let permutation = if order == KeyOrder::UniqueRandom {
            unique_random_order(key_space, self.seed_base as u32)
        } else {
            Vec::new()
        };
        let n = args.threads as usize;
        let mode_sync = sync;
        self.on_threads(name, n, ops * n as u64, |c, t, _| {
            let sync_ctx;
            let c = match mode_sync {
                Some(sync) => {
                    sync_ctx = Ctx {
                        mode: WriteMode { sync, ..c.mode },
                        ..*c
                    };
                    &sync_ctx
                }
                None => c,
            };
            drivers::write(c, t, order, key_space, batch, ops, &permutation)
        })
    }

    /// Bytes and table files on disk, then the engine's own properties.
    pub(super) fn summary(&self) -> String {
        let (mut bytes, mut tables) = (0, 0);
        if let Ok(rd) = std::fs::read_dir(&self.dir) {
            for entry in rd.filter_map(|e| e.ok()) {
                if let Ok(m) = entry.metadata() {
                    bytes += m.len();
                }
                if entry.file_name().to_string_lossy().ends_with(".sst") {
                    tables += 1;
                }
            }
        }
        let mut out = String::from("------------------------------------------------\n");
        out.push_str(&format!(
            "Database:   {bytes} bytes on disk, {tables} table files"
        ));
        for (name, value) in self.engine().properties() {
            out.push_str(&format!("\n  {name}: {value}"));
        }
        out
    }
}

#[cfg(test)]
#[path = "workloads_tests.rs"]
mod tests;
