//! The BlueStore workload: the key-value traffic of Ceph's BlueStore object store under small
//! random writes to objects (benchmarks `bluestore_fill` and `bluestore_write`, run by
//! `--suite bluestore`).
//!
//! BlueStore keeps an OSD's metadata in RocksDB under one-letter prefixes: `O` objects, `b` the
//! allocation bitmap, `L` deferred writes, `T` statistics. An object's onode (`O`...`o`, a few
//! hundred bytes to a few KiB) is followed by the shards of its extent map (`O`...`x`). A small
//! write changes the onode and one shard, flips bits of the allocation bitmap, updates the pool
//! statistics and, being below the deferred-write threshold, puts its data into a deferred
//! record that a later transaction removes once the data is in place. Each transaction is one
//! batch, synced by BlueStore's kv_sync thread.
//!
//! What is modelled (a 4 MiB RBD object, 4 KiB allocation unit, ~500-byte extent-map shards):
//! - `--num` objects. Object `i` has an onode of [256, 4096) bytes and [`SHARDS`] extent shards
//!   of [200, 600) bytes, sizes fixed by `i`, and owns [`BITMAP_KEYS_PER_OBJECT`] bitmap keys
//!   of 16 bytes (128 blocks of 4 KiB each).
//! - `bluestore_fill` (a fresh database): one batch per object with its onode, shards and bitmap
//!   keys (the first batch also the statistics key); thread `t` of `n` writes the objects
//!   `i ≡ t (mod n)`.
//! - `bluestore_write`: each operation is one batch of: the onode of a uniformly random object
//!   (rewritten at its size), one of its shards, one random bitmap key, the statistics key, a
//!   deferred record of 4 KiB plus 64 bytes, and the delete of the thread's deferred record
//!   [`DEFERRED_DEPTH`] operations back. `--writes` operations per thread (`--num` when unset),
//!   or `--duration` seconds; synced under `--sync`; paced by `--benchmark_write_rate_limit`.
//!   When the loop ends the thread removes its remaining deferred records in one more batch,
//!   not counted as an operation.
//! - Keys and values have the sizes above: `--key_size`, `--value_size`, `--batch_size` and
//!   `--key_dist` do not apply, and `cairn bench` refuses them with these benchmarks
//!   ([`refused_flags`]); `--compression_ratio` shapes the values.
//! - Every batch is recorded with [`super::metrics::KeyTracker::sized`]: its key and value bytes
//!   (the denominator of write-amp) and its change to the live data (space-amp). The live data
//!   counts as exact only when `bluestore_fill` ran earlier in the same run.
//!
//! Not modelled: omap (`M`) keys, onode reads (BlueStore serves them from its own cache), and
//! the merge operator BlueStore uses for bitmap updates (these are puts of the whole key).

use std::time::Instant;

use super::drivers::Ctx;
use super::engine::{BenchBatch, BenchEngine, Result};
use super::generator::ValueGenerator;
use super::report::OpKind;
use super::threads::{OpBudget, Shared, ThreadState};

/// Extent-map shards per object.
pub const SHARDS: u64 = 4;
/// Allocation bitmap keys per object: 4 MiB in keys of 128 blocks of 4 KiB.
pub const BITMAP_KEYS_PER_OBJECT: u64 = 8;
/// Deferred records a thread keeps before removing its oldest (the deferred queue's depth).
pub const DEFERRED_DEPTH: u64 = 32;
/// A bitmap key's value: 128 bits.
const BITMAP_VALUE: usize = 16;
/// The pool statistics value (`store_statfs_t`).
const STAT_VALUE: usize = 88;
/// A deferred record: 4 KiB of data and the transaction around it.
const DEFERRED_VALUE: usize = 4096 + 64;
const ONODE_SIZES: (u64, u64) = (256, 4096);
const SHARD_SIZES: (u64, u64) = (200, 600);
const POOL: u64 = 1;
/// An RBD image's data object name, before the object number.
const OBJECT_NAME: &[u8] = b"rbd_data.5e1a6b8b4567.";
/// Bytes of an object key before its type byte (prefix, pool, hash, name, `!`, snapshot).
const OBJECT_PREFIX_LEN: usize = 1 + 8 + 4 + OBJECT_NAME.len() + 16 + 1 + 8;
/// Bytes of a deferred key (`L` + sequence).
const DEFERRED_KEY_LEN: usize = 9;

/// SplitMix64's finaliser: a fixed, well-spread function of `x`.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn in_range(x: u64, (lo, hi): (u64, u64)) -> usize {
    (lo + x % (hi - lo)) as usize
}

/// Object `i`'s onode size.
pub fn onode_size(i: u64) -> usize {
    in_range(mix(i), ONODE_SIZES)
}

/// The size of shard `s` of object `i`.
pub fn shard_size(i: u64, s: u64) -> usize {
    in_range(mix(i ^ ((s + 1) << 56)), SHARD_SIZES)
}

/// Object `i`'s key up to its type byte: `O`, pool, the bit-reversed hash BlueStore sorts
/// objects by, the name, `!`, and the head snapshot.
fn object_prefix(i: u64, out: &mut Vec<u8>) {
    out.clear();
    out.push(b'O');
    out.extend_from_slice(&POOL.to_be_bytes());
    out.extend_from_slice(&(mix(i) as u32).reverse_bits().to_be_bytes());
    out.extend_from_slice(OBJECT_NAME);
    out.extend_from_slice(format!("{i:016x}").as_bytes());
    out.push(b'!');
    out.extend_from_slice(&u64::MAX.to_be_bytes());
}

/// Object `i`'s onode key.
pub fn onode_key(i: u64, out: &mut Vec<u8>) {
    object_prefix(i, out);
    out.push(b'o');
}

/// The key of shard `s` of object `i`'s extent map: the object, the shard's offset, `x`.
pub fn shard_key(i: u64, s: u64, out: &mut Vec<u8>) {
    object_prefix(i, out);
    out.extend_from_slice(&((s << 20) as u32).to_be_bytes());
    out.push(b'x');
}

/// Bitmap key `g`: `b` and the device offset of its first block.
pub fn bitmap_key(g: u64, out: &mut Vec<u8>) {
    out.clear();
    out.push(b'b');
    out.extend_from_slice(&(g * 128 * 4096).to_be_bytes());
}

/// The pool statistics key.
pub fn stat_key(out: &mut Vec<u8>) {
    out.clear();
    out.push(b'T');
    out.extend_from_slice(&POOL.to_be_bytes());
}

/// Deferred record `seq`'s key.
pub fn deferred_key(seq: u64, out: &mut Vec<u8>) {
    out.clear();
    out.push(b'L');
    out.extend_from_slice(&seq.to_be_bytes());
}

/// The flags that the bluestore benchmarks refuse when changed from their defaults: their keys
/// and values have sizes of their own.
pub fn refused_flags(args: &super::BenchArgs) -> Vec<&'static str> {
    use super::{DEFAULT_BATCH_SIZE, DEFAULT_KEY_DIST, DEFAULT_KEY_SIZE, DEFAULT_VALUE_SIZE};
    [
        ("--key_size", args.key_size != DEFAULT_KEY_SIZE),
        ("--value_size", args.value_size != DEFAULT_VALUE_SIZE),
        ("--batch_size", args.batch_size != DEFAULT_BATCH_SIZE),
        ("--key_dist", args.key_dist != DEFAULT_KEY_DIST),
    ]
    .into_iter()
    .filter_map(|(flag, changed)| changed.then_some(flag))
    .collect()
}

/// The middle of a size range.
fn mean((lo, hi): (u64, u64)) -> usize {
    ((lo + hi) / 2) as usize
}

/// The mean key and value bytes of a `bluestore_fill` batch (for the device sync probe).
pub fn mean_fill_batch_bytes() -> usize {
    (OBJECT_PREFIX_LEN + 1 + mean(ONODE_SIZES))
        + SHARDS as usize * (OBJECT_PREFIX_LEN + 5 + mean(SHARD_SIZES))
        + BITMAP_KEYS_PER_OBJECT as usize * (9 + BITMAP_VALUE)
}

/// The mean key and value bytes of a `bluestore_write` batch (for the device sync probe).
pub fn mean_write_batch_bytes() -> usize {
    (OBJECT_PREFIX_LEN + 1 + mean(ONODE_SIZES))
        + (OBJECT_PREFIX_LEN + 5 + mean(SHARD_SIZES))
        + (9 + BITMAP_VALUE)
        + (9 + STAT_VALUE)
        + (DEFERRED_KEY_LEN + DEFERRED_VALUE)
        + DEFERRED_KEY_LEN
}

/// A batch that counts its key and value bytes.
struct Txn<B> {
    batch: B,
    bytes: u64,
    entries: i64,
}

impl<B: BenchBatch> Txn<B> {
    fn new(batch: B) -> Self {
        Txn {
            batch,
            bytes: 0,
            entries: 0,
        }
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.bytes += (key.len() + value.len()) as u64;
        self.entries += 1;
        self.batch.put(key, value)
    }

    fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.bytes += key.len() as u64;
        self.batch.delete(key)
    }
}

/// `bluestore_fill` on one thread: the objects `i ≡ tid (mod threads)`, one batch each.
///
/// # Errors
/// The engine's write error.
pub fn fill<E: BenchEngine>(ctx: &Ctx<'_, E>, t: &mut ThreadState, shared: &Shared) -> Result<()> {
    let engine = ctx.engine;
    let wo = engine.write_options(ctx.mode)?;
    let mut values = ValueGenerator::new(ctx.args.compression_ratio, DEFERRED_VALUE);
    let mut key = Vec::with_capacity(OBJECT_PREFIX_LEN + 8);
    let mut i = t.tid as u64;
    while i < ctx.args.num {
        let started = Instant::now();
        let mut txn = Txn::new(engine.new_batch());
        onode_key(i, &mut key);
        txn.put(&key, values.generate(onode_size(i)))?;
        for s in 0..SHARDS {
            shard_key(i, s, &mut key);
            txn.put(&key, values.generate(shard_size(i, s)))?;
        }
        for g in i * BITMAP_KEYS_PER_OBJECT..(i + 1) * BITMAP_KEYS_PER_OBJECT {
            bitmap_key(g, &mut key);
            txn.put(&key, values.generate(BITMAP_VALUE))?;
        }
        if i == 0 {
            stat_key(&mut key);
            txn.put(&key, values.generate(STAT_VALUE))?;
        }
        let (bytes, entries) = (txn.bytes, txn.entries);
        engine.write(&wo, txn.batch)?;
        ctx.keys.sized(bytes, entries, bytes as i64);
        t.stats.finished_ops(OpKind::Write, started, 1, bytes);
        ctx.limit_writes(bytes);
        i += shared.threads as u64;
    }
    Ok(())
}

/// `bluestore_write` on one thread: `--writes` (or `--num`) transactions, or `--duration`
/// seconds of them, then the removal of the thread's remaining deferred records.
///
/// # Errors
/// The engine's write error.
pub fn write<E: BenchEngine>(
    ctx: &Ctx<'_, E>,
    t: &mut ThreadState,
    shared: &Shared,
    ops: u64,
) -> Result<()> {
    let engine = ctx.engine;
    let wo = engine.write_options(ctx.mode)?;
    let mut values = ValueGenerator::new(ctx.args.compression_ratio, DEFERRED_VALUE);
    let mut key = Vec::with_capacity(OBJECT_PREFIX_LEN + 8);
    let objects = ctx.args.num.max(1);
    // Deferred sequences are unique across threads: thread t uses t, t + n, t + 2n, ...
    let threads = shared.threads as u64;
    let seq = |local: u64| t.tid as u64 + threads * local;
    let deferred_bytes = (DEFERRED_KEY_LEN + DEFERRED_VALUE) as i64;
    if ctx.keys.live().keys == 0 {
        // No fill in this run: what the database holds besides these records is unknown.
        ctx.keys.mark_inexact();
    }
    let mut budget = OpBudget::new(ctx.args.duration, ops);
    let mut written = 0u64;
    while !budget.done(1) {
        let started = Instant::now();
        let i = t.rng.next_u64() % objects;
        let s = t.rng.next_u64() % SHARDS;
        let g = t.rng.next_u64() % (objects * BITMAP_KEYS_PER_OBJECT);
        let mut txn = Txn::new(engine.new_batch());
        onode_key(i, &mut key);
        txn.put(&key, values.generate(onode_size(i)))?;
        shard_key(i, s, &mut key);
        txn.put(&key, values.generate(shard_size(i, s)))?;
        bitmap_key(g, &mut key);
        txn.put(&key, values.generate(BITMAP_VALUE))?;
        stat_key(&mut key);
        txn.put(&key, values.generate(STAT_VALUE))?;
        deferred_key(seq(written), &mut key);
        txn.put(&key, values.generate(DEFERRED_VALUE))?;
        let mut live = (1, deferred_bytes);
        if written >= DEFERRED_DEPTH {
            deferred_key(seq(written - DEFERRED_DEPTH), &mut key);
            txn.delete(&key)?;
            live = (0, 0);
        }
        let bytes = txn.bytes;
        engine.write(&wo, txn.batch)?;
        ctx.keys.sized(bytes, live.0, live.1);
        t.stats.finished_ops(OpKind::Write, started, 1, bytes);
        ctx.limit_writes(bytes);
        written += 1;
    }
    // The deferred queue drains: the records still pending are removed.
    let pending = written.saturating_sub(DEFERRED_DEPTH)..written;
    if !pending.is_empty() {
        let n = pending.end - pending.start;
        let mut txn = Txn::new(engine.new_batch());
        for local in pending {
            deferred_key(seq(local), &mut key);
            txn.delete(&key)?;
        }
        let bytes = txn.bytes;
        engine.write(&wo, txn.batch)?;
        ctx.keys
            .sized(bytes, -(n as i64), -(n as i64) * deferred_bytes);
    }
    Ok(())
}
