//! The database as the engine under test: db_bench's benchmarks run against a [`Db`] opened in
//! `--db` (or a temporary directory). As in db_bench, the fill benchmarks start from a fresh
//! database unless `--use_existing_db` is set; the others run on whatever the previous ones left.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use cairndb::cache::{Cache, CacheOptions};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{Db, Error, Result};

use super::generator::{key_from_int, Random64, ValueGenerator};
use super::report::Stats;
use super::BenchArgs;

/// State shared by the benchmarks of one run.
struct Run<'a> {
    args: &'a BenchArgs,
    dir: PathBuf,
    options: Options,
    db: Option<Db>,
    seed_base: u64,
    /// db_bench seeds each thread of each benchmark with `seed_base + a running count`.
    threads_started: u64,
    values: ValueGenerator,
}

/// Runs every benchmark of `--benchmarks` in order.
pub fn run(args: &BenchArgs) -> Result<()> {
    let tmp;
    let dir = match &args.db {
        Some(d) => d.clone(),
        None => {
            tmp = tempfile::Builder::new()
                .prefix("cairn-bench-")
                .tempdir()
                .map_err(|e| Error::io("create temp dir", std::env::temp_dir(), e))?;
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
    let options = options_from_flags(args)?;
    print_header(args, &options, &dir);
    let values = ValueGenerator::new(args.compression_ratio, args.value_size);
    let mut run = Run {
        args,
        dir,
        options,
        db: None,
        seed_base,
        threads_started: 0,
        values,
    };
    for name in args
        .benchmarks
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let stats = run.benchmark(name)?;
        println!("{}", stats.result_line(name));
        if args.histogram {
            println!("{}", stats.percentile_line());
        }
    }
    run.summary();
    if let Some(db) = run.db.take() {
        db.close()?;
    }
    Ok(())
}

/// Maps db_bench's flags onto the database's options.
fn options_from_flags(args: &BenchArgs) -> Result<Options> {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.write_buffer_size = args.write_buffer_size;
    o.cf.compression = args.compression()?;
    o.cf.table.block_size = args.block_size;
    o.cf.table.bloom_bits_per_key = args.bloom_bits;
    o.cf.table.block_cache = Some(Arc::new(Cache::new(CacheOptions::with_capacity(
        args.cache_size,
    ))));
    o.validate()?;
    Ok(o)
}

/// Removes the database in `dir` for a fresh fill, as db_bench's DestroyDB does; refuses a
/// non-empty directory that does not hold a database, so a mistyped --db loses nothing.
fn destroy(dir: &Path) -> Result<()> {
    let Ok(mut entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    if entries.next().is_some() && !dir.join("CURRENT").exists() {
        return Err(Error::InvalidArgument(format!(
            "{} is not empty and holds no database; refusing to delete it for a fresh fill",
            dir.display()
        )));
    }
    std::fs::remove_dir_all(dir).map_err(|e| Error::io("remove_dir_all", dir, e))
}

fn print_header(args: &BenchArgs, o: &Options, dir: &Path) {
    println!(
        "CairnDB:    database at {} (no compaction yet: flushes accumulate in L0)",
        dir.display()
    );
    println!("Keys:       {} bytes each", args.key_size);
    println!(
        "Values:     {} bytes each ({} bytes after compression)",
        args.value_size,
        (args.value_size as f64 * args.compression_ratio) as usize
    );
    println!("Entries:    {}", args.num);
    println!("Compression: {}", o.cf.compression.rocksdb_name());
    println!(
        "Write buffer: {} bytes, block size: {} bytes, bloom bits/key: {}",
        o.cf.write_buffer_size, o.cf.table.block_size, o.cf.table.bloom_bits_per_key
    );
    println!("------------------------------------------------");
}

impl Run<'_> {
    fn next_rng(&mut self) -> Random64 {
        self.threads_started += 1;
        Random64::new(self.seed_base.wrapping_add(self.threads_started))
    }

    /// The open database; a fill benchmark first replaces it with a fresh one.
    fn db(&mut self, fresh: bool) -> Result<&Db> {
        if fresh && !self.args.use_existing_db {
            if let Some(db) = self.db.take() {
                db.close()?;
            }
            destroy(&self.dir)?;
        }
        if self.db.is_none() {
            self.db = Some(Db::open(&self.dir, self.options.clone())?);
        }
        Ok(self.db.as_ref().expect("opened above"))
    }

    fn benchmark(&mut self, name: &str) -> Result<Stats> {
        match name {
            "fillseq" => self.write(name, true, false),
            "fillrandom" => self.write(name, true, true),
            "overwrite" => self.write(name, false, true),
            "readrandom" => self.readrandom(),
            "readseq" => self.scan(true),
            "readreverse" => self.scan(false),
            "seekrandom" => self.seekrandom(),
            "flush" => {
                let mut stats = Stats::start();
                self.db(false)?.flush()?;
                stats.stop();
                Ok(stats)
            }
            other => Err(Error::InvalidArgument(format!(
                "benchmark {other:?} is not available yet: cairn bench runs fillseq, fillrandom, \
                 overwrite, readrandom, readseq, readreverse, seekrandom and flush"
            ))),
        }
    }

    fn write(&mut self, name: &str, fresh: bool, random: bool) -> Result<Stats> {
        let (num, value_size) = (self.args.num, self.args.value_size);
        let wo = WriteOptions {
            sync: self.args.sync,
            disable_wal: self.args.disable_wal,
            ..WriteOptions::default()
        };
        let mut rng = self.next_rng();
        let mut key = vec![0u8; self.args.key_size];
        self.db(fresh)?;
        let Run { db, values, .. } = self;
        let db = db.as_ref().expect("opened");
        let mut stats = Stats::start();
        for i in 0..num {
            let t = Instant::now();
            key_from_int(if random { rng.next_u64() % num } else { i }, &mut key);
            db.put(&wo, &key, values.generate(value_size))
                .map_err(|e| e.context(format!("{name}: put")))?;
            stats.finished_op(t.elapsed(), (key.len() + value_size) as u64);
        }
        stats.stop();
        Ok(stats)
    }

    fn readrandom(&mut self) -> Result<Stats> {
        let mut rng = self.next_rng();
        let (num, reads) = (self.args.num, self.args.reads());
        let mut key = vec![0u8; self.args.key_size];
        let db = self.db(false)?;
        let ro = ReadOptions::default();
        let mut stats = Stats::start();
        let mut found = 0;
        for _ in 0..reads {
            let t = Instant::now();
            key_from_int(rng.next_u64() % num, &mut key);
            let bytes = db.get(&ro, &key)?.map_or(0, |v| {
                found += 1;
                key.len() + v.len()
            });
            stats.finished_op(t.elapsed(), bytes as u64);
        }
        stats.set_found(found, reads);
        stats.stop();
        Ok(stats)
    }

    fn scan(&mut self, forward: bool) -> Result<Stats> {
        let reads = self.args.reads();
        let mut it = self.db(false)?.iter(&ReadOptions::default())?;
        let mut stats = Stats::start();
        if forward {
            it.seek_to_first()
        } else {
            it.seek_to_last()
        }
        let mut n = 0;
        while it.valid() && n < reads {
            let t = Instant::now();
            let bytes = it.key().len() + it.value().len();
            if forward {
                it.next()
            } else {
                it.prev()
            }
            stats.finished_op(t.elapsed(), bytes as u64);
            n += 1;
        }
        it.status()?;
        stats.stop();
        Ok(stats)
    }

    fn seekrandom(&mut self) -> Result<Stats> {
        let mut rng = self.next_rng();
        let (num, reads, nexts) = (self.args.num, self.args.reads(), self.args.seek_nexts);
        let mut key = vec![0u8; self.args.key_size];
        let mut it = self.db(false)?.iter(&ReadOptions::default())?;
        let mut stats = Stats::start();
        let mut found = 0;
        for _ in 0..reads {
            let t = Instant::now();
            key_from_int(rng.next_u64() % num, &mut key);
            it.seek(&key);
            if it.valid() && it.key() == key.as_slice() {
                found += 1;
            }
            for _ in 0..nexts {
                if !it.valid() {
                    break;
                }
                it.next();
            }
            it.status()?;
            stats.finished_op(t.elapsed(), 0);
        }
        stats.set_found(found, reads);
        stats.stop();
        Ok(stats)
    }

    fn summary(&self) {
        let Some(db) = &self.db else { return };
        let bytes: u64 = std::fs::read_dir(&self.dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0);
        println!("------------------------------------------------");
        println!(
            "Database: {} bytes on disk, {} L0 files, {} immutable memtables, last sequence {}",
            bytes,
            db.num_l0_files(),
            db.num_immutable_memtables(),
            db.latest_sequence()
        );
        if let Some(cache) = &self.options.cf.table.block_cache {
            let s = cache.stats();
            println!(
                "Block cache: {} bytes used of {}, {} hits, {} misses",
                cache.usage(),
                cache.capacity(),
                s.hits,
                s.misses
            );
        }
    }
}
