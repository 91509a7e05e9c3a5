//! Format stability: a database written by an earlier build must open and read back in this one
//! (STYLE.md habit 13; fjall keeps its `test_fixture` directories the same way).
//!
//! `tests/fixtures/v1_db/` is a small database written by the build of November 2026 (format
//! versions of docs/format/*.md as of then): three column families (no compression, LZ4, and LZ4
//! with Zstandard for the bottommost level), each with one table compacted to a lower level and
//! two tables in L0, point and range deletions in tables and in the WAL, an OPTIONS file, and a
//! WAL holding writes that were never flushed (among them one batch across all three families).
//! `opens_and_reads_back_every_key` copies it to a temporary directory, opens it, and checks
//! every key ever written, and a full scan of each family, against the contents recomputed from
//! [`history`], the function that also wrote it.
//!
//! Regenerating is for a new format version only, never to make this test pass: a failure here
//! means the current build cannot read what an earlier one wrote. To add a fixture for a new
//! format version, keep `v1_db` and this history as they are, and add a `v2_db` with its own
//! generator. The generator of `v1_db`:
//!
//! ```text
//! cargo test -p cairndb --test format_fixture -- --ignored write_v1_fixture
//! ```
//!
//! It writes into `tests/fixtures/v1_db/` (replacing it) and removes the `LOG` and `LOCK` files,
//! which carry no data.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cairndb::batch::WriteBatch;
use cairndb::db::{ColumnFamily, ColumnFamilyDescriptor};
use cairndb::options::{CfOptions, Options, ReadOptions, WriteOptions};
use cairndb::{CompressionType, Db};
use common::scan_cf;

/// The fixture's column families, with the compression each one's tables were written with.
const FAMILIES: [&str; 3] = ["default", "lz4", "zstd"];

/// One step of the fixture's history, applied in order; `cf` indexes [`FAMILIES`].
#[derive(Debug, Clone)]
enum Step {
    Put(usize, Vec<u8>, Vec<u8>),
    Delete(usize, Vec<u8>),
    DeleteRange(usize, Vec<u8>, Vec<u8>),
    /// One atomic batch of puts and deletes, across families.
    Batch(Vec<Step>),
    /// Flush the family's memtable into an L0 table.
    Flush(usize),
    /// Compact the whole family down to its last level.
    Compact(usize),
}

/// The fixture's keys, as written into the committed database: never [`common::key`], whose
/// format may change.
fn key(cf: usize, k: u32) -> Vec<u8> {
    format!("{}-key{k:05}", FAMILIES[cf]).into_bytes()
}

/// A compressible value of varying length, different for each (phase, key).
fn value(phase: u32, k: u32) -> Vec<u8> {
    let unit = format!("p{phase}k{k}|");
    unit.repeat(1 + (k % 9) as usize).into_bytes()
}

/// The whole history of the fixture. Never change it: the checked-in fixture was written from
/// it, and the test recomputes the expected contents from it.
fn history() -> Vec<Step> {
    let mut h = Vec::new();
    for cf in 0..FAMILIES.len() {
        // A table compacted below L0.
        for k in 0..150 {
            h.push(Step::Put(cf, key(cf, k), value(1, k)));
        }
        h.push(Step::Flush(cf));
        h.push(Step::Compact(cf));
        // An L0 table with overwrites, point deletions and a range deletion over the lower one.
        for k in (0..150).step_by(3) {
            h.push(Step::Put(cf, key(cf, k), value(2, k)));
        }
        for k in (0..150).step_by(5) {
            h.push(Step::Delete(cf, key(cf, k)));
        }
        h.push(Step::DeleteRange(cf, key(cf, 100), key(cf, 120)));
        h.push(Step::Flush(cf));
        // A second, newer L0 table: new keys, and keys written again after their deletion.
        for k in 150..200 {
            h.push(Step::Put(cf, key(cf, k), value(3, k)));
        }
        for k in (100..120).step_by(4) {
            h.push(Step::Put(cf, key(cf, k), value(3, k)));
        }
        h.push(Step::Flush(cf));
        // Only in the WAL: more puts, deletions and a range deletion.
        for k in 200..240 {
            h.push(Step::Put(cf, key(cf, k), value(4, k)));
        }
        h.push(Step::Delete(cf, key(cf, 151)));
        h.push(Step::DeleteRange(cf, key(cf, 40), key(cf, 50)));
        h.push(Step::Put(cf, key(cf, 45), value(4, 45)));
    }
    // One unflushed batch across every family.
    let batch = (0..FAMILIES.len())
        .flat_map(|cf| {
            [
                Step::Put(cf, key(cf, 7), value(5, 7)),
                Step::Delete(cf, key(cf, 8)),
                Step::Put(cf, key(cf, 300), value(5, 300)),
            ]
        })
        .collect();
    h.push(Step::Batch(batch));
    h
}

/// Each family's contents after `history`: a model of puts, deletions and range deletions.
fn expected() -> Vec<BTreeMap<Vec<u8>, Vec<u8>>> {
    fn apply(models: &mut [BTreeMap<Vec<u8>, Vec<u8>>], step: &Step) {
        match step {
            Step::Put(cf, k, v) => {
                models[*cf].insert(k.clone(), v.clone());
            }
            Step::Delete(cf, k) => {
                models[*cf].remove(k);
            }
            Step::DeleteRange(cf, b, e) => models[*cf].retain(|k, _| k < b || k >= e),
            Step::Batch(steps) => steps.iter().for_each(|s| apply(models, s)),
            Step::Flush(_) | Step::Compact(_) => {}
        }
    }
    let mut models = vec![BTreeMap::new(); FAMILIES.len()];
    for step in history() {
        apply(&mut models, &step);
    }
    models
}

/// Every key the history writes, per family (the keys whose absence is checked too).
fn keys_written() -> Vec<Vec<Vec<u8>>> {
    fn collect(out: &mut [Vec<Vec<u8>>], step: &Step) {
        match step {
            Step::Put(cf, k, _) | Step::Delete(cf, k) => out[*cf].push(k.clone()),
            Step::DeleteRange(cf, b, e) => out[*cf].extend([b.clone(), e.clone()]),
            Step::Batch(steps) => steps.iter().for_each(|s| collect(out, s)),
            Step::Flush(_) | Step::Compact(_) => {}
        }
    }
    let mut out = vec![Vec::new(); FAMILIES.len()];
    for step in history() {
        collect(&mut out, &step);
    }
    for keys in &mut out {
        keys.sort();
        keys.dedup();
    }
    out
}

fn options() -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.db.create_missing_column_families = true;
    // The layout (which tables sit where) is the history's, not the compaction picker's.
    o.cf.disable_auto_compactions = true;
    o
}

fn descriptors() -> Vec<ColumnFamilyDescriptor> {
    let cf = |compression, bottommost| CfOptions {
        compression,
        bottommost_compression: bottommost,
        disable_auto_compactions: true,
        ..CfOptions::default()
    };
    vec![
        ColumnFamilyDescriptor::new(FAMILIES[0], cf(CompressionType::None, None)),
        ColumnFamilyDescriptor::new(FAMILIES[1], cf(CompressionType::Lz4, None)),
        ColumnFamilyDescriptor::new(
            FAMILIES[2],
            cf(CompressionType::Lz4, Some(CompressionType::Zstd)),
        ),
    ]
}

fn handles(db: &Db) -> Vec<ColumnFamily> {
    FAMILIES
        .iter()
        .map(|name| db.column_family(name).expect(name))
        .collect()
}

fn add_to_batch(b: &mut WriteBatch, cfs: &[ColumnFamily], step: &Step) {
    match step {
        Step::Put(cf, k, v) => b.put_cf(cfs[*cf].id(), k, v).expect("put"),
        Step::Delete(cf, k) => b.delete_cf(cfs[*cf].id(), k).expect("delete"),
        Step::DeleteRange(cf, begin, end) => b
            .delete_range_cf(cfs[*cf].id(), begin, end)
            .expect("delete_range"),
        other => panic!("not a batch step: {other:?}"),
    }
}

/// Writes the fixture into `dir` (which must not hold a database).
fn write_fixture(dir: &Path) {
    let db = Db::open_cf(dir, options(), descriptors()).expect("create");
    let cfs = handles(&db);
    let w = WriteOptions::default();
    for step in history() {
        match &step {
            Step::Flush(cf) => db.flush_cf(&cfs[*cf]).expect("flush"),
            Step::Compact(cf) => db.compact_range_cf(&cfs[*cf], None, None).expect("compact"),
            Step::Batch(steps) => {
                let mut b = WriteBatch::new();
                for s in steps {
                    add_to_batch(&mut b, &cfs, s);
                }
                db.write(&w, b).expect("batch");
            }
            single => {
                let mut b = WriteBatch::new();
                add_to_batch(&mut b, &cfs, single);
                db.write(&w, b).expect("write");
            }
        }
    }
    // Closing leaves the unflushed writes in the WAL.
    db.close().expect("close");
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1_db")
}

/// Files that carry no data and are left out of the fixture.
fn is_incidental(name: &str) -> bool {
    name == "LOCK" || name.starts_with("LOG")
}

#[test]
#[ignore = "writes tests/fixtures/v1_db; run only to create a fixture (see the header)"]
fn write_v1_fixture() {
    let dir = fixture_dir();
    if dir.exists() {
        std::fs::remove_dir_all(&dir).expect("remove the old fixture");
    }
    write_fixture(&dir);
    for entry in std::fs::read_dir(&dir).expect("list") {
        let entry = entry.expect("entry");
        if is_incidental(&entry.file_name().to_string_lossy()) {
            std::fs::remove_file(entry.path()).expect("remove");
        }
    }
}

fn file_names(dir: &Path) -> Vec<(String, u64)> {
    let mut names: Vec<(String, u64)> = std::fs::read_dir(dir)
        .expect("the fixture directory is checked in")
        .map(|e| {
            let e = e.expect("entry");
            let len = e.metadata().expect("metadata").len();
            (e.file_name().to_string_lossy().into_owned(), len)
        })
        .collect();
    names.sort();
    names
}

#[test]
fn opens_and_reads_back_every_key() {
    let fixture = fixture_dir();
    let files = file_names(&fixture);
    // The fixture holds what its header says (so that it keeps testing those formats).
    let has = |suffix: &str| files.iter().any(|(n, len)| n.ends_with(suffix) && *len > 0);
    assert!(
        has(".sst") && has(".log") && files.iter().any(|(n, _)| n.starts_with("OPTIONS-")),
        "fixture files: {files:?}"
    );
    assert!(files.iter().any(|(n, _)| n == "CURRENT"), "{files:?}");

    let tmp = tempfile::tempdir().expect("tempdir");
    for (name, _) in &files {
        std::fs::copy(fixture.join(name), tmp.path().join(name)).expect("copy");
    }
    let mut o = options();
    o.db.create_if_missing = false;
    o.db.create_missing_column_families = false;
    let db = Db::open_cf(tmp.path(), o, descriptors()).expect("the v1 fixture opens");
    let cfs = handles(&db);
    let r = ReadOptions::default();
    for (i, cf) in cfs.iter().enumerate() {
        // The layout: tables in L0 and below it (WAL recovery may add one to L0).
        let at = |level: usize| {
            db.property_int_cf(cf, &format!("rocksdb.num-files-at-level{level}"))
                .expect("num-files-at-level")
        };
        let below_l0: u64 = (1..7).map(at).sum();
        assert!(
            at(0) >= 2 && below_l0 >= 1,
            "{}: L0 {} below {below_l0}",
            FAMILIES[i],
            at(0)
        );
    }

    let expected = expected();
    let written = keys_written();
    let mut checked = 0;
    for (i, cf) in cfs.iter().enumerate() {
        for k in &written[i] {
            let got = db.get_cf(&r, cf, k).expect("get");
            assert_eq!(
                got.as_deref(),
                expected[i].get(k).map(Vec::as_slice),
                "{} key {}",
                FAMILIES[i],
                String::from_utf8_lossy(k)
            );
            checked += 1;
        }
        assert_eq!(
            scan_cf(&db, &r, cf),
            expected[i],
            "{}: full scan",
            FAMILIES[i]
        );
        assert!(!expected[i].is_empty());
    }
    assert!(checked > 3 * 240, "checked {checked} keys");
    db.close().expect("close");
}
