//! A key-value loader written against the `rocksdb` crate's API: it loads keys in batches,
//! reads them back at random, scans them, and overwrites some, printing each phase's rate.
//! Usage: `dropin-kv PATH [KEYS]` (default 1,000,000 keys of 16 bytes with 100-byte values).
//! The database at PATH is destroyed first.

use std::error::Error;
use std::time::Instant;

use rocksdb::{DBCompressionType, IteratorMode, Options, WriteBatch, DB};

/// A bijective mix of `i` (splitmix64's finalizer), so keys are distinct and in random order.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn key(i: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&mix(i).to_be_bytes());
    k[8..].copy_from_slice(&i.to_be_bytes());
    k
}

/// 100 bytes, about half compressible: 50 bytes derived from `i`, then a repeated byte.
fn value(i: u64, version: u8) -> Vec<u8> {
    let mut v = Vec::with_capacity(100);
    let mut x = i ^ u64::from(version) << 56;
    while v.len() < 50 {
        x = mix(x);
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(50);
    v.resize(100, version);
    v
}

fn report(phase: &str, ops: u64, started: Instant) {
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{phase:<22} {ops:>9} ops in {secs:>7.3} s: {:>10.0} ops/s",
        ops as f64 / secs
    );
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: dropin-kv PATH [KEYS]")?;
    let n: u64 = match args.next() {
        Some(s) => s.parse()?,
        None => 1_000_000,
    };
    if n == 0 {
        return Err("KEYS must be at least 1".into());
    }
    let _ = DB::destroy(&Options::default(), &path);
    let mut opts = Options::default();
    opts.create_if_missing(true);
    opts.set_compression_type(DBCompressionType::Lz4);
    opts.set_write_buffer_size(64 << 20);
    let db = DB::open(&opts, &path)?;

    let started = Instant::now();
    let mut batch = WriteBatch::default();
    for i in 0..n {
        batch.put(key(i), value(i, 1));
        if batch.len() == 100 {
            db.write(std::mem::take(&mut batch))?;
        }
    }
    if !batch.is_empty() {
        db.write(batch)?;
    }
    report("load, batches of 100", n, started);

    let started = Instant::now();
    let mut found = 0u64;
    for j in 0..n {
        let i = mix(j ^ 0x5eed) % n;
        if db.get(key(i))?.is_some_and(|v| v == value(i, 1)) {
            found += 1;
        }
    }
    report("random get", n, started);
    if found != n {
        return Err(format!("{found} of {n} keys read back").into());
    }

    let started = Instant::now();
    let mut scanned = 0u64;
    for item in db.iterator(IteratorMode::Start) {
        let (k, _) = item?;
        scanned += 1;
        std::hint::black_box(k);
    }
    report("full scan", scanned, started);
    if scanned != n {
        return Err(format!("scanned {scanned} of {n} keys").into());
    }

    let started = Instant::now();
    for j in 0..n / 2 {
        let i = mix(j ^ 0xfeed) % n;
        db.put(key(i), value(i, 2))?;
    }
    report("random put", n / 2, started);
    Ok(())
}
