//! Helpers shared by the integration tests. Each `tests/*.rs` file is its own crate and takes
//! them with `mod common;`. A helper lives here when several test files used identical copies
//! of it; a test file keeps a helper of its own where its version differs on purpose (other
//! options, another key format the test's sizes depend on), and says so next to it.
//!
//! The harness of the reliability suites (seeds, volumes, the hang limit, the `RELIABILITY`
//! line) is [`reliability`].
//!
//! Every database opened with these helpers lives in [`DIR`], normally on a `MemFs`. Nothing here
//! keeps state between calls.

// Each test crate uses only some of the helpers.
#![allow(dead_code)]

pub mod reliability;

use std::collections::BTreeMap;

use cairndb::db::ColumnFamily;
use cairndb::options::{Options, ReadOptions};
use cairndb::{Db, DbIter};

/// The directory the tests' databases live in.
pub const DIR: &str = "/db";

/// Creates the database if it is missing, with a 64 KiB write buffer so that small workloads
/// flush; otherwise the defaults.
pub fn opts() -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.write_buffer_size = 64 << 10;
    o
}

/// [`opts`] without automatic compactions: only the test's flushes and manual compactions
/// change the shape of the tree.
pub fn opts_no_auto_compactions() -> Options {
    let mut o = opts();
    o.cf.disable_auto_compactions = true;
    o
}

/// [`opts`] for small trees that compact often: L0 compacts at 2 files, 64 KiB target files,
/// 256 KiB for the base level.
pub fn compaction_opts() -> Options {
    let mut o = opts();
    o.cf.level0_file_num_compaction_trigger = 2;
    o.cf.target_file_size_base = 64 << 10;
    o.cf.max_bytes_for_level_base = 256 << 10;
    o
}

/// Key `i`: `key` and six decimal digits, so that keys below a million sort as their numbers.
pub fn key(i: u32) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

/// Every entry a forward scan of the default column family sees at the default read options.
///
/// # Panics
/// When the iterator cannot be created or ends with an error.
pub fn scan(db: &Db) -> BTreeMap<Vec<u8>, Vec<u8>> {
    scan_at(db, &ReadOptions::default())
}

/// Every entry a forward scan of the default column family sees at `ro`. Panics as [`scan`].
pub fn scan_at(db: &Db, ro: &ReadOptions) -> BTreeMap<Vec<u8>, Vec<u8>> {
    forward(db.iter(ro).expect("iter"))
}

/// Every entry a forward scan of column family `cf` sees at `ro`. Panics as [`scan`].
pub fn scan_cf(db: &Db, ro: &ReadOptions, cf: &ColumnFamily) -> BTreeMap<Vec<u8>, Vec<u8>> {
    forward(db.iter_cf(ro, cf).expect("iter"))
}

/// [`scan_at`], checked against a backward scan by the same iterator: both directions must see
/// the same entries in the same order.
///
/// # Panics
/// As [`scan`], and when the two directions differ.
pub fn scan_both_ways(db: &Db, ro: &ReadOptions) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut it = db.iter(ro).expect("iter");
    let out = forward_from(&mut it);
    let mut back = Vec::new();
    it.seek_to_last();
    while it.valid() {
        back.push((it.key().to_vec(), it.value().to_vec()));
        it.prev();
    }
    it.status().expect("reverse scan status");
    back.reverse();
    assert_eq!(
        back,
        out.clone().into_iter().collect::<Vec<_>>(),
        "reverse scan differs"
    );
    out
}

/// How many entries a forward scan of the default column family sees at `ro`, without keeping
/// them. Panics as [`scan`].
pub fn count(db: &Db, ro: &ReadOptions) -> u64 {
    let mut it = db.iter(ro).expect("iter");
    let mut n = 0;
    it.seek_to_first();
    while it.valid() {
        n += 1;
        it.next();
    }
    it.status().expect("scan status");
    n
}

fn forward(mut it: DbIter) -> BTreeMap<Vec<u8>, Vec<u8>> {
    forward_from(&mut it)
}

/// Every entry from the first on; the iterator's status must be Ok at the end.
fn forward_from(it: &mut DbIter) -> BTreeMap<Vec<u8>, Vec<u8>> {
    let mut out = BTreeMap::new();
    it.seek_to_first();
    while it.valid() {
        out.insert(it.key().to_vec(), it.value().to_vec());
        it.next();
    }
    it.status().expect("scan status");
    out
}

/// The WAL file names in [`DIR`], oldest (lowest number) first.
pub fn wal_names(fs: &dyn cairndb::fs::FileSystem) -> Vec<String> {
    let mut logs: Vec<String> = fs
        .list(std::path::Path::new(DIR))
        .expect("list")
        .into_iter()
        .filter(|n| n.ends_with(".log"))
        .collect();
    logs.sort();
    logs
}

/// Makes every table create fail (EIO) from now on, so no flush or compaction finishes: the
/// memtables retired meanwhile stay, and so do their WALs.
pub fn fail_table_creates(fs: &cairndb::fs::FaultFs) {
    use cairndb::fs::{FaultKind, FaultRule, OpKind};
    fs.add_rule(FaultRule {
        path_contains: Some(".sst".into()),
        probability: 1.0,
        ..FaultRule::random(&[OpKind::Create], 0.0, FaultKind::Eio)
    });
}
