//! db_bench's benchmarks, written once against [`BenchEngine`], so both engines run the same
//! operations on the same keys and values.
//!
//! Each driver follows its db_bench counterpart (`tools/db_bench_tool.cc`) in what it counts and
//! in the order it draws random numbers, so the same `--seed` gives the same keys as db_bench:
//! - Every benchmark that db_bench runs on a thread takes a fresh generator seeded with
//!   `seed_base + n`, n counting such benchmarks from 1 (`flush` and skipped fills take none).
//! - db_bench picks one of its databases with one draw per call (`SelectDB`) before the keys of
//!   that call, even when there is a single database: per read in readrandom, per batch in the
//!   random fills, overwrite, multireadrandom and the deletes. Those draws are made here too.
//! - Fills and overwrite write `--writes` entries (default `--num`) in calls of `--batch_size`;
//!   `writes / batch_size` calls, as db_bench's `Duration`.
//!
//! As in db_bench, the database in `--db` is destroyed at the start unless `--use_existing_db`,
//! and the fills (`fillseq`, `fillbatch`, `fillrandom`, `filluniquerandom`, `fillsync`) start
//! from a fresh one; with `--use_existing_db` they are skipped. A directory that holds files but
//! no database (no `CURRENT`) is never deleted.

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use super::engine::{
    BenchBatch, BenchEngine, BenchError, BenchIter, EngineOptions, Result, WriteMode,
};
use super::generator::{
    key_from_int, unique_random_order, Random64, ValueGenerator, MAX_UNIQUE_RANDOM_NUM,
};
use super::report::Stats;
use super::BenchArgs;

/// Every benchmark `cairn bench` runs.
const BENCHMARKS: &[&str] = &[
    "fillseq",
    "fillbatch",
    "fillrandom",
    "filluniquerandom",
    "fillsync",
    "overwrite",
    "readrandom",
    "multireadrandom",
    "readseq",
    "readreverse",
    "seekrandom",
    "deleterandom",
    "deleteseq",
    "flush",
    "compact",
    "waitforcompaction",
];

/// The benchmarks that need a fresh database.
const FILLS: &[&str] = &[
    "fillseq",
    "fillbatch",
    "fillrandom",
    "filluniquerandom",
    "fillsync",
];

/// How a write benchmark chooses keys (db_bench's `WriteMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyOrder {
    /// 0, 1, 2, ...
    Sequential,
    /// Uniform over the key space, with repeats.
    Random,
    /// A permutation of the key space.
    UniqueRandom,
}

/// db_bench's `KeyGenerator`.
struct KeyGen {
    order: KeyOrder,
    key_space: u64,
    next: u64,
    permutation: Vec<u64>,
}

impl KeyGen {
    fn new(order: KeyOrder, key_space: u64, seed_base: u64) -> Self {
        let permutation = match order {
            // db_bench shuffles with the seed base truncated to 32 bits.
            KeyOrder::UniqueRandom => unique_random_order(key_space, seed_base as u32),
            _ => Vec::new(),
        };
        KeyGen {
            order,
            key_space,
            next: 0,
            permutation,
        }
    }

    fn next(&mut self, rng: &mut Random64) -> u64 {
        match self.order {
            KeyOrder::Sequential => {
                self.next += 1;
                self.next - 1
            }
            KeyOrder::Random => rng.next_u64() % self.key_space,
            KeyOrder::UniqueRandom => {
                let k = self.permutation[self.next as usize];
                self.next += 1;
                k
            }
        }
    }
}

/// State shared by the benchmarks of one run.
struct Run<'a, E: BenchEngine> {
    args: &'a BenchArgs,
    options: &'a EngineOptions,
    dir: PathBuf,
    /// The open database; `None` only while a fill replaces it.
    engine: Option<E>,
    seed_base: u64,
    /// Benchmarks run on a thread so far; the next one is seeded with `seed_base + this + 1`.
    threads_started: u64,
}

/// Runs every benchmark of `--benchmarks` in order on engine `E`.
///
/// # Errors
/// [`BenchError::Usage`] for an unknown benchmark name (before anything runs) or flags a
/// benchmark cannot run with; the engine's error when an operation fails.
pub fn run<E: BenchEngine>(args: &BenchArgs, options: &EngineOptions) -> Result<()> {
    let names: Vec<&str> = args
        .benchmarks
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
        println!("Set seed to {now} because --seed was 0");
        now
    } else {
        args.seed
    };
    let mut run = Run::<E>::start(args, options, dir, seed_base)?;
    print_header(args, options, &run.dir, run.engine());
    for name in names {
        println!("{}", run.execute(name)?);
    }
    run.summary();
    run.finish()
}

/// Removes the database in `dir` for a fresh start, as db_bench's DestroyDB does; refuses a
/// non-empty directory that does not hold a database, so a mistyped --db loses nothing.
fn destroy(dir: &Path) -> Result<()> {
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

fn print_header<E: BenchEngine>(args: &BenchArgs, o: &EngineOptions, dir: &Path, engine: &E) {
    println!("Engine:     {}", engine.describe());
    println!("DB path:    [{}]", dir.display());
    println!("Keys:       {} bytes each", args.key_size);
    println!(
        "Values:     {} bytes each ({} bytes after compression)",
        args.value_size,
        (args.value_size as f64 * args.compression_ratio) as usize
    );
    println!("Entries:    {}", args.num);
    println!("Compression: {}", o.compression.rocksdb_name());
    println!(
        "Writes:     sync={} disable_wal={} batch_size={}",
        args.sync, args.disable_wal, args.batch_size
    );
    let cache = o
        .block_cache
        .map_or("none".to_string(), |(kind, capacity)| {
            format!("{capacity} bytes, {}", kind.name())
        });
    println!("Block cache: {cache}");
    let bloom = o
        .bloom_bits_per_key
        .map_or("none".to_string(), |b| format!("{b} bits/key"));
    println!("Bloom filter: {bloom}");
    let bytes_per_sync = o
        .bytes_per_sync
        .map_or("engine default".to_string(), |b| b.to_string());
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
        (
            "enable_pipelined_write",
            o.enable_pipelined_write.to_string(),
        ),
    ];
    let mut line = String::from("Options:   ");
    for (name, value) in options {
        let item = format!(" {name}={value}");
        if line.len() + item.len() > 100 {
            println!("{line}");
            line = String::from("           ");
        }
        line.push_str(&item);
    }
    println!("{line}");
    println!("------------------------------------------------");
}

impl<'a, E: BenchEngine> Run<'a, E> {
    /// Opens the database in `dir`, destroyed first unless `--use_existing_db`.
    fn start(
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
        })
    }

    /// Runs benchmark `name` and returns what it prints: db_bench's result line (and the
    /// percentiles with `--histogram`), or that it was skipped.
    fn execute(&mut self, name: &str) -> Result<String> {
        if FILLS.contains(&name) && self.args.use_existing_db {
            return Ok(format!("{name:<12} : skipped (--use_existing_db is true)"));
        }
        let stats = self
            .benchmark(name)
            .map_err(|e| e.context(name.to_string()))?;
        let mut out = stats.result_line(name);
        if self.args.histogram {
            out.push('\n');
            out.push_str(&stats.percentile_line());
        }
        Ok(out)
    }

    /// Closes the database.
    fn finish(mut self) -> Result<()> {
        self.engine
            .take()
            .expect("open after the benchmarks")
            .close()
    }

    fn next_rng(&mut self) -> Random64 {
        self.threads_started += 1;
        Random64::new(self.seed_base.wrapping_add(self.threads_started))
    }

    fn engine(&self) -> &E {
        self.engine.as_ref().expect("open between benchmarks")
    }

    /// Replaces the database with a fresh, empty one.
    fn reopen_fresh(&mut self) -> Result<()> {
        if let Some(engine) = self.engine.take() {
            engine.close()?;
        }
        destroy(&self.dir)?;
        self.engine = Some(E::open(&self.dir, self.options)?);
        Ok(())
    }

    fn write_mode(&self) -> WriteMode {
        WriteMode {
            sync: self.args.sync,
            disable_wal: self.args.disable_wal,
        }
    }

    fn benchmark(&mut self, name: &str) -> Result<Stats> {
        if FILLS.contains(&name) {
            self.reopen_fresh()?;
        }
        let (num, batch, mode) = (self.args.num, self.args.batch_size, self.write_mode());
        match name {
            "fillseq" => self.write(KeyOrder::Sequential, num, batch, mode),
            // db_bench's fillbatch: fillseq in batches of 1000.
            "fillbatch" => self.write(KeyOrder::Sequential, num, 1000, mode),
            "fillrandom" | "overwrite" => self.write(KeyOrder::Random, num, batch, mode),
            "filluniquerandom" => self.write(KeyOrder::UniqueRandom, num, batch, mode),
            // db_bench's fillsync: synced random writes over a key space of num / 1000. It writes
            // --writes entries (default --num, not num / 1000: db_bench's DoWrite counts
            // writes_), and its "(N ops)" note shows the key space.
            "fillsync" => {
                let mode = WriteMode { sync: true, ..mode };
                self.write(KeyOrder::Random, num / 1000, batch, mode)
            }
            "readrandom" => self.readrandom(),
            "multireadrandom" => self.multireadrandom(),
            "readseq" => self.scan(true),
            "readreverse" => self.scan(false),
            "seekrandom" => self.seekrandom(),
            "deleterandom" => self.delete(false),
            "deleteseq" => self.delete(true),
            "flush" => {
                let mut stats = Stats::start();
                self.engine().flush()?;
                stats.stop();
                Ok(stats)
            }
            "compact" => {
                let mut stats = Stats::start();
                self.engine().compact()?;
                stats.stop();
                Ok(stats)
            }
            "waitforcompaction" => {
                let mut stats = Stats::start();
                self.engine().wait_for_compaction()?;
                stats.stop();
                Ok(stats)
            }
            other => unreachable!("benchmark {other} passed the name check"),
        }
    }

    /// db_bench's `DoWrite`: `writes / batch` calls of `batch` puts each (a single put when
    /// `batch` is 1, as RocksDB's `Put` is a one-entry batch), keys from `key_space` in `order`.
    fn write(
        &mut self,
        order: KeyOrder,
        key_space: u64,
        batch: u64,
        mode: WriteMode,
    ) -> Result<Stats> {
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
        let mut rng = self.next_rng();
        let mut keys = KeyGen::new(order, key_space, self.seed_base);
        // db_bench builds a new value generator in each write benchmark.
        let mut values = ValueGenerator::new(args.compression_ratio, args.value_size);
        let engine = self.engine();
        let wo = engine.write_options(mode)?;
        let mut key = vec![0u8; args.key_size];
        let entry_bytes = (args.key_size + args.value_size) as u64;
        let calls = if key_space == 0 { 0 } else { ops / batch };
        let mut stats = Stats::start();
        if key_space != args.num {
            stats.add_message(&format!("({key_space} ops)"));
        }
        for _ in 0..calls {
            let t = Instant::now();
            if order != KeyOrder::Sequential {
                let _database = rng.next_u64();
            }
            if batch == 1 {
                key_from_int(keys.next(&mut rng), &mut key);
                engine.put(&wo, &key, values.generate(args.value_size))?;
            } else {
                let mut b = engine.new_batch();
                for _ in 0..batch {
                    key_from_int(keys.next(&mut rng), &mut key);
                    b.put(&key, values.generate(args.value_size))?;
                }
                engine.write(&wo, b)?;
            }
            stats.finished_ops(t.elapsed(), batch, batch * entry_bytes);
        }
        stats.stop();
        Ok(stats)
    }

    /// db_bench's `ReadRandom`: `reads` point lookups of uniformly random keys.
    fn readrandom(&mut self) -> Result<Stats> {
        let mut rng = self.next_rng();
        let (num, reads) = (self.args.num, self.args.reads());
        let mut key = vec![0u8; self.args.key_size];
        let engine = self.engine();
        let mut stats = Stats::start();
        let mut found = 0;
        for _ in 0..reads {
            let t = Instant::now();
            let _database = rng.next_u64();
            key_from_int(rng.next_u64() % num, &mut key);
            let bytes = engine.get(&key)?.map_or(0, |v| {
                found += 1;
                key.len() + v.as_ref().len()
            });
            stats.finished_op(t.elapsed(), bytes as u64);
        }
        stats.set_found(found, reads);
        stats.stop();
        Ok(stats)
    }

    /// db_bench's `MultiReadRandom`: `reads / batch_size` multi-gets of `batch_size` uniformly
    /// random keys each.
    fn multireadrandom(&mut self) -> Result<Stats> {
        let mut rng = self.next_rng();
        let (num, reads, batch) = (self.args.num, self.args.reads(), self.args.batch_size);
        let mut keys = vec![vec![0u8; self.args.key_size]; batch as usize];
        let engine = self.engine();
        let mut stats = Stats::start();
        let (mut found, mut read) = (0, 0);
        for _ in 0..reads / batch {
            let t = Instant::now();
            let _database = rng.next_u64();
            for key in &mut keys {
                key_from_int(rng.next_u64() % num, key);
            }
            let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
            let mut bytes = 0;
            for (key, value) in refs.iter().zip(engine.multi_get(&refs)?) {
                if let Some(v) = value {
                    found += 1;
                    bytes += key.len() + v.as_ref().len();
                }
            }
            read += batch;
            stats.finished_ops(t.elapsed(), batch, bytes as u64);
        }
        stats.set_found(found, read);
        stats.stop();
        Ok(stats)
    }

    /// db_bench's `ReadSequential` and `ReadReverse`: one iterator over at most `reads` entries.
    fn scan(&mut self, forward: bool) -> Result<Stats> {
        // Draws nothing, but db_bench runs it on a thread, which takes the next seed.
        let _rng = self.next_rng();
        let reads = self.args.reads();
        let mut stats = Stats::start();
        let mut it = self.engine().iter()?;
        if forward {
            it.seek_to_first();
        } else {
            it.seek_to_last();
        }
        let mut n = 0;
        while it.valid() && n < reads {
            let t = Instant::now();
            let bytes = it.key().len() + it.value().len();
            if forward {
                it.next();
            } else {
                it.prev();
            }
            stats.finished_op(t.elapsed(), bytes as u64);
            n += 1;
        }
        it.status()?;
        stats.stop();
        Ok(stats)
    }

    /// db_bench's `SeekRandom`: `reads` times, a new iterator seeks to a random key (found when
    /// it lands on that key) and steps `seek_nexts` times.
    fn seekrandom(&mut self) -> Result<Stats> {
        let mut rng = self.next_rng();
        let (num, reads, nexts) = (self.args.num, self.args.reads(), self.args.seek_nexts);
        let mut key = vec![0u8; self.args.key_size];
        let engine = self.engine();
        let mut stats = Stats::start();
        let mut found = 0;
        for _ in 0..reads {
            let t = Instant::now();
            key_from_int(rng.next_u64() % num, &mut key);
            let mut it = engine.iter()?;
            it.seek(&key);
            if it.valid() && it.key() == key.as_slice() {
                found += 1;
            }
            let mut bytes = 0;
            for _ in 0..nexts {
                if !it.valid() {
                    break;
                }
                bytes += it.key().len() + it.value().len();
                it.next();
            }
            it.status()?;
            drop(it);
            stats.finished_op(t.elapsed(), bytes as u64);
        }
        stats.set_found(found, reads);
        stats.stop();
        Ok(stats)
    }

    /// db_bench's `DoDelete`: `deletes / batch_size` calls deleting `batch_size` keys each,
    /// uniformly random or in order from 0.
    fn delete(&mut self, sequential: bool) -> Result<Stats> {
        let mut rng = self.next_rng();
        let (num, deletes, batch) = (self.args.num, self.args.deletes(), self.args.batch_size);
        let mode = self.write_mode();
        let mut key = vec![0u8; self.args.key_size];
        let engine = self.engine();
        let wo = engine.write_options(mode)?;
        let mut stats = Stats::start();
        let next_key = |i: u64, rng: &mut Random64| {
            if sequential {
                i
            } else {
                rng.next_u64() % num
            }
        };
        for call in 0..deletes / batch {
            let t = Instant::now();
            let _database = rng.next_u64();
            let first = call * batch;
            if batch == 1 {
                key_from_int(next_key(first, &mut rng), &mut key);
                engine.delete(&wo, &key)?;
            } else {
                let mut b = engine.new_batch();
                for i in first..first + batch {
                    key_from_int(next_key(i, &mut rng), &mut key);
                    b.delete(&key)?;
                }
                engine.write(&wo, b)?;
            }
            stats.finished_ops(t.elapsed(), batch, 0);
        }
        stats.stop();
        Ok(stats)
    }

    /// Bytes and table files on disk, then the engine's own properties.
    fn summary(&self) {
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
        println!("------------------------------------------------");
        println!("Database:   {bytes} bytes on disk, {tables} table files");
        for (name, value) in self.engine().properties() {
            println!("  {name}: {value}");
        }
    }
}

#[cfg(test)]
#[path = "workloads_tests.rs"]
mod tests;
