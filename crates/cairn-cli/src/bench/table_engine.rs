//! The table format as the engine under test: one SST file built by `fillseq` and read through
//! the block cache by the read benchmarks. Replaced by the database once it exists.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use cairndb::cache::{Cache, CacheOptions};
use cairndb::fs::{FileSystem, RealFs};
use cairndb::iter::InternalIterator;
use cairndb::sstable::{Table, TableBuilder, TableOptions};
use cairndb::types::{append_internal_key, seek_key, user_key, ValueKind, MAX_SEQUENCE};
use cairndb::{Error, Result};

use super::generator::{key_from_int, Random64, ValueGenerator};
use super::report::Stats;
use super::BenchArgs;

/// State shared by the benchmarks of one run.
struct Run<'a> {
    args: &'a BenchArgs,
    dir: PathBuf,
    opts: TableOptions,
    table: Option<Arc<Table>>,
    seed_base: u64,
    /// db_bench seeds each thread of each benchmark with `seed_base + a running count`.
    threads_started: u64,
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
            tmp.path().to_path_buf()
        }
    };
    RealFs.create_dir_all(&dir)?;
    let seed_base = if args.seed == 0 {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_micros() as u64);
        println!("Set seed to {now} because --seed was 0");
        now
    } else {
        args.seed
    };
    let cache = Arc::new(Cache::new(CacheOptions::with_capacity(args.cache_size)));
    let opts = TableOptions {
        block_size: args.block_size,
        bloom_bits_per_key: args.bloom_bits,
        compression: args.compression()?,
        block_cache: Some(cache),
        ..TableOptions::default()
    };
    opts.validate()?;
    print_header(args, &opts);
    let mut run = Run {
        args,
        dir,
        opts,
        table: None,
        seed_base,
        threads_started: 0,
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
    Ok(())
}

fn print_header(args: &BenchArgs, opts: &TableOptions) {
    println!("CairnDB:    table-format engine (the database front is not built yet)");
    println!("Keys:       {} bytes each", args.key_size);
    println!(
        "Values:     {} bytes each ({} bytes after compression)",
        args.value_size,
        (args.value_size as f64 * args.compression_ratio) as usize
    );
    println!("Entries:    {}", args.num);
    println!("Compression: {}", opts.compression.rocksdb_name());
    println!(
        "Block size: {} bytes, bloom bits/key: {}",
        opts.block_size, opts.bloom_bits_per_key
    );
    println!("------------------------------------------------");
}

impl Run<'_> {
    fn next_rng(&mut self) -> Random64 {
        self.threads_started += 1;
        Random64::new(self.seed_base.wrapping_add(self.threads_started))
    }

    fn table(&self, name: &str) -> Result<Arc<Table>> {
        self.table.clone().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{name} needs a table: run fillseq first in --benchmarks"
            ))
        })
    }

    fn benchmark(&mut self, name: &str) -> Result<Stats> {
        match name {
            "fillseq" => self.fillseq(),
            "readrandom" => self.readrandom(name),
            "readseq" => self.scan(name, true),
            "readreverse" => self.scan(name, false),
            "seekrandom" => self.seekrandom(name),
            other => Err(Error::InvalidArgument(format!(
                "benchmark {other:?} is not available: the table-format engine runs fillseq, \
                 readrandom, readseq, readreverse and seekrandom; the rest needs the database"
            ))),
        }
    }

    fn fillseq(&mut self) -> Result<Stats> {
        let path = self.dir.join("000001.sst");
        let file = RealFs.create(&path)?;
        let mut builder = TableBuilder::new(file, &path, &self.opts)?;
        let mut values = ValueGenerator::new(self.args.compression_ratio, self.args.value_size);
        let mut key = vec![0u8; self.args.key_size];
        let mut ikey = Vec::with_capacity(key.len() + 8);
        let _ = self.next_rng();
        let mut stats = Stats::start();
        for i in 0..self.args.num {
            let t = Instant::now();
            key_from_int(i, &mut key);
            ikey.clear();
            append_internal_key(&mut ikey, &key, i + 1, ValueKind::Put as u8);
            builder.add(&ikey, values.generate(self.args.value_size))?;
            stats.finished_op(t.elapsed(), (key.len() + self.args.value_size) as u64);
        }
        builder.finish()?;
        stats.stop();
        self.table = Some(open_table(&path, &self.opts)?);
        Ok(stats)
    }

    fn readrandom(&mut self, name: &str) -> Result<Stats> {
        let table = self.table(name)?;
        let mut rng = self.next_rng();
        let (num, reads) = (self.args.num, self.args.reads());
        let mut key = vec![0u8; self.args.key_size];
        let mut stats = Stats::start();
        let mut found = 0;
        for _ in 0..reads {
            let t = Instant::now();
            key_from_int(rng.next_u64() % num, &mut key);
            let hit = table.get(&seek_key(&key, MAX_SEQUENCE))?;
            let bytes = hit.map_or(0, |e| {
                found += 1;
                key.len() + e.value.len()
            });
            stats.finished_op(t.elapsed(), bytes as u64);
        }
        stats.set_found(found, reads);
        stats.stop();
        Ok(stats)
    }

    fn scan(&mut self, name: &str, forward: bool) -> Result<Stats> {
        let table = self.table(name)?;
        let mut it = table.iter();
        let mut stats = Stats::start();
        if forward {
            it.seek_to_first()
        } else {
            it.seek_to_last()
        }
        let mut n = 0;
        while it.valid() && n < self.args.reads() {
            let t = Instant::now();
            let bytes = user_key(it.key()).len() + it.value().len();
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

    fn seekrandom(&mut self, name: &str) -> Result<Stats> {
        let table = self.table(name)?;
        let mut rng = self.next_rng();
        let (num, reads) = (self.args.num, self.args.reads());
        let mut key = vec![0u8; self.args.key_size];
        let mut it = table.iter();
        let mut stats = Stats::start();
        let mut found = 0;
        for _ in 0..reads {
            let t = Instant::now();
            key_from_int(rng.next_u64() % num, &mut key);
            it.seek(&seek_key(&key, MAX_SEQUENCE));
            if it.valid() && user_key(it.key()) == key.as_slice() {
                found += 1;
            }
            for _ in 0..self.args.seek_nexts {
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
        let Some(table) = &self.table else { return };
        let p = table.properties();
        let size = table.file_size();
        println!("------------------------------------------------");
        println!(
            "Table: {} entries, {} data blocks, {} bytes on disk ({:.1} bytes/entry; raw {:.1})",
            p.num_entries,
            p.num_data_blocks,
            size,
            size as f64 / p.num_entries.max(1) as f64,
            (p.raw_key_bytes + p.raw_value_bytes) as f64 / p.num_entries.max(1) as f64
        );
        if let Some(cache) = &self.opts.block_cache {
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

fn open_table(path: &Path, opts: &TableOptions) -> Result<Arc<Table>> {
    let size = RealFs.size(path)?;
    let file = RealFs.open_read(path)?;
    Ok(Arc::new(Table::open(file, path, size, opts)?))
}
