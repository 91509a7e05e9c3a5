//! The per-thread loops of db_bench's benchmarks, written once against [`BenchEngine`]. Each
//! runs on one benchmark thread ([`ThreadState`]) and follows its db_bench counterpart
//! (`tools/db_bench_tool.cc`) in what it counts and in the order it draws random numbers:
//! - db_bench picks one of its databases with one draw per call (`SelectDB`) before the keys of
//!   that call, even when there is a single database: per read in readrandom, per batch in the
//!   random fills, overwrite, multireadrandom and the deletes, per operation in
//!   readrandomwriterandom, updaterandom and the background writer. Those draws are made here.
//! - Loops are bounded by an [`OpBudget`] (db_bench's `Duration`): `--duration` seconds where
//!   db_bench honours it (random writes, random reads, seeks, multi-reads, deleterandom,
//!   readrandomwriterandom, updaterandom), else a count.
//! - Every put and delete is recorded in the run's [`KeyTracker`] (for space amplification).

use std::sync::Mutex;
use std::time::Instant;

use super::engine::{BenchBatch, BenchEngine, BenchIter, Result, WriteMode};
use super::generator::{key_from_int, Random64, ValueGenerator};
use super::keydist::KeyDist;
use super::metrics::KeyTracker;
use super::report::OpKind;
use super::threads::{OpBudget, RateLimiter, Shared, ThreadState};
use super::BenchArgs;

/// How a write benchmark chooses keys (db_bench's `WriteMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOrder {
    /// 0, 1, 2, ...
    Sequential,
    /// Uniform over the key space, with repeats.
    Random,
    /// A permutation of the key space.
    UniqueRandom,
}

/// What every thread of a step shares.
#[derive(Debug)]
pub struct Ctx<'a, E> {
    /// The database.
    pub engine: &'a E,
    /// The flags.
    pub args: &'a BenchArgs,
    /// Live keys and puts of the run.
    pub keys: &'a KeyTracker,
    /// Durability of the step's writes.
    pub mode: WriteMode,
    /// The key distribution of random reads and read-writes (`--key_dist`).
    pub dist: &'a KeyDist,
    /// db_bench's shared write rate limiter (`--benchmark_write_rate_limit`), used by the
    /// random writes and updaterandom; the background writer has its own.
    pub write_limiter: Option<&'a Mutex<RateLimiter>>,
}

impl<E: BenchEngine> Ctx<'_, E> {
    fn entry_bytes(&self) -> u64 {
        (self.args.key_size + self.args.value_size) as u64
    }

    /// Waits as `--benchmark_write_rate_limit` says before `bytes` more are written.
    pub(super) fn limit_writes(&self, bytes: u64) {
        if let Some(l) = self.write_limiter {
            l.lock().expect("rate limiter lock").request(bytes);
        }
    }
}

/// db_bench's `KeyGenerator` over one thread's generator.
struct KeyGen<'p> {
    order: KeyOrder,
    key_space: u64,
    next: u64,
    permutation: &'p [u64],
}

impl KeyGen<'_> {
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

/// db_bench's `DoWrite`: calls of `batch` puts each (a single put when `batch` is 1, as
/// RocksDB's `Put` is a one-entry batch), keys from `key_space` in `order`; `ops` entries in all,
/// or for `--duration` seconds for random keys. `permutation` is filluniquerandom's key order.
pub fn write<E: BenchEngine>(
    ctx: &Ctx<'_, E>,
    t: &mut ThreadState,
    order: KeyOrder,
    key_space: u64,
    batch: u64,
    ops: u64,
    permutation: &[u64],
) -> Result<()> {
    let args = ctx.args;
    let duration = if order == KeyOrder::Random {
        args.duration
    } else {
        0
    };
    let mut budget = OpBudget::new(duration, if key_space == 0 { 0 } else { ops });
    let mut keys = KeyGen {
        order,
        key_space,
        next: 0,
        permutation,
    };
    // db_bench builds a new value generator in each write benchmark, per thread.
    let mut values = ValueGenerator::new(args.compression_ratio, args.value_size);
    let engine = ctx.engine;
    let wo = engine.write_options(ctx.mode)?;
    let mut key = vec![0u8; args.key_size];
    let entry_bytes = ctx.entry_bytes();
    if key_space != args.num {
        t.stats.add_message(&format!("({key_space} ops)"));
    }
    while !budget.done(batch) {
        let started = Instant::now();
        if order != KeyOrder::Sequential {
            let _database = t.rng.next_u64();
        }
        if batch == 1 {
            let k = keys.next(&mut t.rng);
            key_from_int(k, &mut key);
            engine.put(&wo, &key, values.generate(args.value_size))?;
            ctx.keys.put(k);
        } else {
            let mut b = engine.new_batch();
            for _ in 0..batch {
                let k = keys.next(&mut t.rng);
                key_from_int(k, &mut key);
                b.put(&key, values.generate(args.value_size))?;
                ctx.keys.put(k);
            }
            engine.write(&wo, b)?;
        }
        // db_bench hides the limiter's sleep from the latency: the sample ends before it.
        t.stats
            .finished_ops(OpKind::Write, started, batch, batch * entry_bytes);
        ctx.limit_writes(batch * entry_bytes);
    }
    Ok(())
}

/// db_bench's `ReadRandom`: `--reads` point lookups (or `--duration` seconds) of random keys.
pub fn readrandom<E: BenchEngine>(ctx: &Ctx<'_, E>, t: &mut ThreadState) -> Result<()> {
    read_random_keys(ctx, t, ctx.args.key_size)
}

/// db_bench's `readmissing`: `readrandom` with keys one byte longer than the stored ones (the
/// same leading bytes and a pad byte), so every read misses but falls between stored keys,
/// and a lookup probes every level's filter. (db_bench lengthens the key for the benchmarks
/// that follow as well; here it is this benchmark's keys only.)
pub fn readmissing<E: BenchEngine>(ctx: &Ctx<'_, E>, t: &mut ThreadState) -> Result<()> {
    read_random_keys(ctx, t, ctx.args.key_size + 1)
}

fn read_random_keys<E: BenchEngine>(
    ctx: &Ctx<'_, E>,
    t: &mut ThreadState,
    key_size: usize,
) -> Result<()> {
    let reads = ctx.args.reads();
    let mut budget = OpBudget::new(ctx.args.duration, reads);
    let mut key = vec![0u8; key_size];
    let (mut found, mut read) = (0, 0);
    while !budget.done(1) {
        let started = Instant::now();
        let _database = t.rng.next_u64();
        key_from_int(ctx.dist.next(&mut t.rng), &mut key);
        let bytes = ctx.engine.get(&key)?.map_or(0, |v| {
            found += 1;
            key.len() + v.as_ref().len()
        });
        read += 1;
        t.stats.finished_op(OpKind::Read, started, bytes as u64);
    }
    t.stats.set_found(found, read);
    Ok(())
}

/// db_bench's `MultiReadRandom`: multi-gets of `--batch_size` random keys, `--reads` keys in
/// all (or for `--duration` seconds).
pub fn multireadrandom<E: BenchEngine>(ctx: &Ctx<'_, E>, t: &mut ThreadState) -> Result<()> {
    let (reads, batch) = (ctx.args.reads(), ctx.args.batch_size);
    let mut budget = OpBudget::new(ctx.args.duration, reads);
    let mut keys = vec![vec![0u8; ctx.args.key_size]; batch as usize];
    let (mut found, mut read) = (0, 0);
    while !budget.done(batch) {
        let started = Instant::now();
        let _database = t.rng.next_u64();
        for key in &mut keys {
            key_from_int(ctx.dist.next(&mut t.rng), key);
        }
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let mut bytes = 0;
        for (key, value) in refs.iter().zip(ctx.engine.multi_get(&refs)?) {
            if let Some(v) = value {
                found += 1;
                bytes += key.len() + v.as_ref().len();
            }
        }
        read += batch;
        t.stats
            .finished_ops(OpKind::Read, started, batch, bytes as u64);
    }
    t.stats.set_found(found, read);
    Ok(())
}

/// db_bench's `ReadSequential` and `ReadReverse`: one iterator over at most `--reads` entries.
pub fn scan<E: BenchEngine>(ctx: &Ctx<'_, E>, t: &mut ThreadState, forward: bool) -> Result<()> {
    let reads = ctx.args.reads();
    let mut it = ctx.engine.iter()?;
    if forward {
        it.seek_to_first();
    } else {
        it.seek_to_last();
    }
    let mut n = 0;
    while it.valid() && n < reads {
        let started = Instant::now();
        let bytes = it.key().len() + it.value().len();
        if forward {
            it.next();
        } else {
            it.prev();
        }
        t.stats.finished_op(OpKind::Read, started, bytes as u64);
        n += 1;
    }
    it.status()
}

/// db_bench's `SeekRandom`: `--reads` times (or for `--duration` seconds), a new iterator seeks
/// to a random key (found when it lands on that key) and steps `--seek_nexts` times.
pub fn seekrandom<E: BenchEngine>(ctx: &Ctx<'_, E>, t: &mut ThreadState) -> Result<()> {
    let (reads, nexts) = (ctx.args.reads(), ctx.args.seek_nexts);
    let mut budget = OpBudget::new(ctx.args.duration, reads);
    let mut key = vec![0u8; ctx.args.key_size];
    let (mut found, mut read) = (0, 0);
    while !budget.done(1) {
        let started = Instant::now();
        key_from_int(ctx.dist.next(&mut t.rng), &mut key);
        let mut it = ctx.engine.iter()?;
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
        read += 1;
        t.stats.finished_op(OpKind::Seek, started, bytes as u64);
    }
    t.stats.set_found(found, read);
    Ok(())
}

/// db_bench's `DoDelete`: calls deleting `--batch_size` keys each, `--deletes` keys in all,
/// uniformly random (for `--duration` seconds when set) or in order from 0.
pub fn delete<E: BenchEngine>(
    ctx: &Ctx<'_, E>,
    t: &mut ThreadState,
    sequential: bool,
) -> Result<()> {
    let (num, batch) = (ctx.args.num, ctx.args.batch_size);
    let duration = if sequential { 0 } else { ctx.args.duration };
    let mut budget = OpBudget::new(duration, ctx.args.deletes());
    let mut key = vec![0u8; ctx.args.key_size];
    let wo = ctx.engine.write_options(ctx.mode)?;
    let mut i = 0;
    while !budget.done(batch) {
        let started = Instant::now();
        let _database = t.rng.next_u64();
        let mut b = (batch > 1).then(|| ctx.engine.new_batch());
        for _ in 0..batch {
            let k = if sequential {
                i
            } else {
                t.rng.next_u64() % num
            };
            i += 1;
            key_from_int(k, &mut key);
            match &mut b {
                Some(b) => b.delete(&key)?,
                None => ctx.engine.delete(&wo, &key)?,
            }
            ctx.keys.delete(k);
        }
        if let Some(b) = b {
            ctx.engine.write(&wo, b)?;
        }
        t.stats.finished_ops(OpKind::Delete, started, batch, 0);
    }
    Ok(())
}

/// db_bench's `readwrites_`: `--num` when neither --reads nor --writes is set, else the larger.
pub fn readwrites(args: &BenchArgs) -> u64 {
    if args.writes < 0 && args.reads < 0 {
        args.num
    } else {
        args.writes.max(args.reads).max(0) as u64
    }
}

/// db_bench's `ReadRandomWriteRandom`: random keys, in rounds of `--readwritepercent` gets then
/// `100 - readwritepercent` puts, `readwrites` operations (or `--duration` seconds).
pub fn readrandomwriterandom<E: BenchEngine>(ctx: &Ctx<'_, E>, t: &mut ThreadState) -> Result<()> {
    let args = ctx.args;
    let total = readwrites(args);
    let mut budget = OpBudget::new(args.duration, total);
    let mut values = ValueGenerator::new(args.compression_ratio, args.value_size);
    let wo = ctx.engine.write_options(ctx.mode)?;
    let mut key = vec![0u8; args.key_size];
    let (mut get_weight, mut put_weight) = (0u32, 0u32);
    let (mut reads, mut writes, mut found) = (0u64, 0u64, 0u64);
    while !budget.done(1) {
        let started = Instant::now();
        let _database = t.rng.next_u64();
        let k = ctx.dist.next(&mut t.rng);
        key_from_int(k, &mut key);
        if get_weight == 0 && put_weight == 0 {
            get_weight = args.readwritepercent;
            put_weight = 100 - get_weight;
        }
        if get_weight > 0 {
            if ctx.engine.get(&key)?.is_some() {
                found += 1;
            }
            get_weight -= 1;
            reads += 1;
            t.stats.finished_op(OpKind::Read, started, 0);
        } else if put_weight > 0 {
            ctx.engine
                .put(&wo, &key, values.generate(args.value_size))?;
            ctx.keys.put(k);
            put_weight -= 1;
            writes += 1;
            t.stats.finished_op(OpKind::Write, started, 0);
        }
    }
    t.stats.add_message(&format!(
        "( reads:{reads} writes:{writes} total:{total} found:{found})"
    ));
    Ok(())
}

/// db_bench's `UpdateRandom`: read-modify-write of random keys (a get, then a put of a new
/// value), `readwrites` times (or `--duration` seconds).
pub fn updaterandom<E: BenchEngine>(ctx: &Ctx<'_, E>, t: &mut ThreadState) -> Result<()> {
    let args = ctx.args;
    let total = readwrites(args);
    let mut budget = OpBudget::new(args.duration, total);
    let mut values = ValueGenerator::new(args.compression_ratio, args.value_size);
    let wo = ctx.engine.write_options(ctx.mode)?;
    let mut key = vec![0u8; args.key_size];
    let (mut found, mut bytes) = (0u64, 0u64);
    while !budget.done(1) {
        let started = Instant::now();
        let _database = t.rng.next_u64();
        let k = ctx.dist.next(&mut t.rng);
        key_from_int(k, &mut key);
        let old = ctx.engine.get(&key)?.map_or(0, |v| v.as_ref().len());
        if old > 0 {
            found += 1;
            bytes += (key.len() + old) as u64;
        }
        ctx.limit_writes((key.len() + old) as u64);
        ctx.engine
            .put(&wo, &key, values.generate(args.value_size))?;
        ctx.keys.put(k);
        bytes += ctx.entry_bytes();
        t.stats.finished_op(OpKind::Update, started, 0);
    }
    t.stats.add_bytes(bytes);
    t.stats
        .add_message(&format!("( updates:{total} found:{found})"));
    Ok(())
}

/// db_bench's `BGWriter`: random puts over `--num` keys until every other thread of the step
/// has finished, at most `--benchmark_write_rate_limit` bytes per second when set. Its results
/// are kept out of the step's merged results (reported apart).
pub fn bg_writer<E: BenchEngine>(
    ctx: &Ctx<'_, E>,
    t: &mut ThreadState,
    shared: &Shared,
) -> Result<()> {
    t.exclude_from_merge = true;
    let args = ctx.args;
    let mut values = ValueGenerator::new(args.compression_ratio, args.value_size);
    let mut limiter = (args.benchmark_write_rate_limit > 0)
        .then(|| RateLimiter::new(args.benchmark_write_rate_limit));
    let wo = ctx.engine.write_options(ctx.mode)?;
    let mut key = vec![0u8; args.key_size];
    let mut bytes = 0;
    loop {
        let started = Instant::now();
        let _database = t.rng.next_u64();
        if shared.others_done() {
            break;
        }
        let k = t.rng.next_u64() % args.num;
        key_from_int(k, &mut key);
        ctx.engine
            .put(&wo, &key, values.generate(args.value_size))?;
        ctx.keys.put(k);
        bytes += ctx.entry_bytes();
        t.stats.finished_op(OpKind::Write, started, 0);
        if let Some(l) = &mut limiter {
            l.request(ctx.entry_bytes());
        }
    }
    t.stats.add_bytes(bytes);
    Ok(())
}
