//! Reliability suite `bit_flips` (docs/design/durability.md, D4 and D5): one bit flipped in every
//! kind of file a database keeps: WAL, SST data blocks, filter, index, properties, metaindex and
//! footer, MANIFEST, CURRENT (and OPTIONS files when the engine writes them).
//!
//! For each flip, on a copy of a fixed template database:
//! - `cairndb::verify::verify_with_fs` must report a corruption naming the flipped file whenever
//!   the flipped byte is covered by a checksum (every SST byte, every WAL and MANIFEST byte but
//!   the zero padding at the end of a 32 KiB log block); `undetected` counts the misses;
//! - the database opened on the damaged copy (WAL recovery mode AbsoluteConsistency, so damage in
//!   the WAL is not taken for a torn tail) either refuses to open or answers every point read
//!   and the full scan rightly or with an error: `wrong_answers` counts anything else, including
//!   a key that went missing without an error;
//! - nothing panics: a flip whose verification, open or reads panic counts as one of `panics`.
//!
//! The suite goes on after a failing flip and fails at the end (the first failure is printed with
//! its flip seed). Floors: the flips covered by a checksum (verify must detect each), and the
//! flips whose database opened anyway and was read in full (`opened_and_read`), so that the
//! no-wrong-answer check ran on many damaged databases, not only on refused ones.
//!
//! CI volume: 10,000 flips.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use cairndb::fs::{FileSystem, MemFs};
use cairndb::options::{Options, ReadOptions, WalRecoveryMode, WriteOptions};
use cairndb::sstable::{Table, TableOptions, BLOCK_TRAILER_LEN, FOOTER_LEN};
use cairndb::{CompressionType, Db};
use common::reliability::{Suite, Volume};
use common::DIR;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const WAL_BLOCK: u64 = 32 * 1024;
const WAL_HEADER: u64 = 7;
/// The floor of flips whose database opened and was read, in percent of the flips.
const OPENED_AND_READ_FLOOR_PERCENT: u64 = 50;

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// The regions a flip can target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Region {
    Wal,
    SstData,
    SstFilter,
    SstIndex,
    /// Properties (and the range-deletion block, which sits between index and properties).
    SstProperties,
    SstMetaindex,
    SstFooter,
    Manifest,
    Current,
    Options,
}

const REGIONS: [Region; 10] = [
    Region::Wal,
    Region::SstData,
    Region::SstFilter,
    Region::SstIndex,
    Region::SstProperties,
    Region::SstMetaindex,
    Region::SstFooter,
    Region::Manifest,
    Region::Current,
    Region::Options,
];

/// A template database: its files and the byte ranges of each region.
struct Template {
    fs: MemFs,
    model: Model,
    opts: Options,
    /// Region -> (file, start, end) ranges.
    ranges: BTreeMap<Region, Vec<(PathBuf, u64, u64)>>,
}

fn options(variant: usize) -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.db.wal_recovery_mode = WalRecoveryMode::AbsoluteConsistency;
    o.cf.write_buffer_size = 64 << 10;
    o.cf.disable_auto_compactions = true;
    if variant == 1 {
        o.cf.compression = CompressionType::None;
        o.cf.table.block_size = 512;
    } else {
        o.cf.compression = CompressionType::Lz4;
    }
    o
}

/// Builds template `variant`: two flushed tables, one compacted into L1, and writes left in the
/// WAL; taken as a process crash leaves it (so the WAL keeps its records).
fn build(variant: usize) -> Template {
    let opts = options(variant);
    let fs = MemFs::new();
    let db = Db::open_with_fs(fs.shared(), DIR, opts.clone()).expect("open");
    let mut model = Model::new();
    let w = WriteOptions::default();
    let mut put = |db: &Db, i: u32, n: usize| {
        let k = format!("key{:05}", (i * 7919) % 1000).into_bytes();
        let v = format!("value{i}-").repeat(n).into_bytes();
        db.put(&w, &k, &v).expect("put");
        model.insert(k, v);
    };
    for i in 0..300 {
        put(&db, i, 8);
    }
    db.flush().expect("flush");
    for i in 300..600 {
        put(&db, i, 8);
    }
    db.flush().expect("flush");
    db.compact_range(None, None).expect("compact");
    for i in 600..800 {
        put(&db, i, 4);
    }
    db.flush().expect("flush");
    for i in 800..900 {
        put(&db, i, 20);
    }
    let fs = fs.process_crash_clone();
    drop(db);
    cairndb::verify::verify_with_fs(fs.shared(), Path::new(DIR)).expect("the template verifies");
    let ranges = regions(&fs);
    for r in &REGIONS[..9] {
        assert!(ranges.contains_key(r), "template {variant} has no {r:?}");
    }
    Template {
        fs,
        model,
        opts,
        ranges,
    }
}

/// Classifies every byte of the template's live files.
fn regions(fs: &MemFs) -> BTreeMap<Region, Vec<(PathBuf, u64, u64)>> {
    let mut out: BTreeMap<Region, Vec<(PathBuf, u64, u64)>> = BTreeMap::new();
    let mut add = |r: Region, p: &Path, a: u64, b: u64| {
        if b > a {
            out.entry(r).or_default().push((p.to_path_buf(), a, b));
        }
    };
    let dir = Path::new(DIR);
    for name in fs.list(dir).expect("list") {
        let path = dir.join(&name);
        let size = fs.size(&path).expect("size");
        if name.ends_with(".log") {
            add(Region::Wal, &path, 0, size);
        } else if name.starts_with("MANIFEST-") {
            add(Region::Manifest, &path, 0, size);
        } else if name == "CURRENT" {
            add(Region::Current, &path, 0, size);
        } else if name.starts_with("OPTIONS-") {
            add(Region::Options, &path, 0, size);
        } else if name.ends_with(".sst") {
            let file = fs.open_read(&path).expect("open");
            let t =
                Arc::new(Table::open(file, &path, size, &TableOptions::default()).expect("table"));
            let f = *t.footer();
            let trailer = BLOCK_TRAILER_LEN as u64;
            let mut data_end = 0;
            for (_, h) in t.index_entries().expect("index") {
                add(
                    Region::SstData,
                    &path,
                    h.offset,
                    h.offset + h.size + trailer,
                );
                data_end = h.offset + h.size + trailer;
            }
            add(Region::SstFilter, &path, data_end, f.index.offset);
            let index_end = f.index.offset + f.index.size + trailer;
            add(Region::SstIndex, &path, f.index.offset, index_end);
            add(Region::SstProperties, &path, index_end, f.metaindex.offset);
            add(
                Region::SstMetaindex,
                &path,
                f.metaindex.offset,
                size - FOOTER_LEN as u64,
            );
            add(Region::SstFooter, &path, size - FOOTER_LEN as u64, size);
        }
    }
    out
}

fn templates() -> &'static [Template; 2] {
    static T: OnceLock<[Template; 2]> = OnceLock::new();
    T.get_or_init(|| [build(0), build(1)])
}

/// True when the byte at `offset` of a log-format file (WAL, MANIFEST) is covered by a checksum:
/// everything but the zero padding a writer leaves when fewer than a header's bytes remain in a
/// 32 KiB block.
fn log_byte_checksummed(offset: u64) -> bool {
    offset % WAL_BLOCK < WAL_BLOCK - (WAL_HEADER - 1)
}

#[derive(Default)]
struct Counts {
    flips: u64,
    by_region: BTreeMap<Region, u64>,
    checksummed: u64,
    detected: u64,
    undetected: u64,
    open_refused: u64,
    /// Flips whose database opened and had every key read and the full scan run.
    opened_and_read: u64,
    read_errors: u64,
    panics: u64,
    wrong_answers: u64,
    first_failure: Option<String>,
}

fn flip(seed: u64, c: &mut Counts) {
    flip_in(seed, None, c);
}

/// As [`flip`], with the flip confined to region `only` when given.
fn flip_in(seed: u64, only: Option<Region>, c: &mut Counts) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let t = &templates()[rng.gen_range(0..2)];
    let regions: Vec<_> = t.ranges.keys().copied().collect();
    let drawn = regions[rng.gen_range(0..regions.len())];
    let region = only.unwrap_or(drawn);
    let ranges = &t.ranges[&region];
    let (path, a, b) = &ranges[rng.gen_range(0..ranges.len())];
    let offset = rng.gen_range(*a..*b);
    let bit = rng.gen_range(0..8);
    let fs = t.fs.process_crash_clone();
    fs.corrupt_byte(path, offset, |x| x ^ (1 << bit))
        .expect("flip");
    let what = format!(
        "flip {seed:#x}: {region:?} {} offset {offset} bit {bit}",
        path.display()
    );
    c.flips += 1;
    *c.by_region.entry(region).or_default() += 1;

    let checksummed = match region {
        Region::Current | Region::Options => false,
        Region::Wal | Region::Manifest => log_byte_checksummed(offset),
        _ => true,
    };
    let verdict = cairndb::verify::verify_with_fs(fs.shared(), Path::new(DIR));
    if checksummed {
        c.checksummed += 1;
        match &verdict {
            Err(e) if e.as_corruption().is_some_and(|x| x.file == *path) => c.detected += 1,
            other => {
                c.undetected += 1;
                if c.first_failure.is_none() {
                    c.first_failure = Some(format!("{what}: verify said {other:?}"));
                }
            }
        }
    }

    let db = match Db::open_with_fs(fs.shared(), DIR, t.opts.clone()) {
        Ok(db) => {
            if std::env::var_os("CAIRN_RELIABILITY_REPLAY").is_some() {
                println!(
                    "{what}: opened; verify said {verdict:?}; recovery {:?}",
                    db.recovery_report()
                );
            }
            db
        }
        Err(_) => {
            c.open_refused += 1;
            return;
        }
    };
    let r = ReadOptions::default();
    let mut wrong = Vec::new();
    for (k, v) in &t.model {
        match db.get(&r, k) {
            Ok(got) if got.as_ref() == Some(v) => {}
            Ok(got) => wrong.push(format!("get {k:?} returned {:?}", got.map(|g| g.len()))),
            Err(_) => c.read_errors += 1,
        }
    }
    if let Ok(mut it) = db.iter(&r) {
        let mut expected = t.model.iter();
        it.seek_to_first();
        while it.valid() {
            match expected.next() {
                Some((k, v)) if it.key() == k.as_slice() && it.value() == v.as_slice() => {}
                _ => {
                    wrong.push(format!("scan returned {:?}", it.key()));
                    break;
                }
            }
            it.next();
        }
        match it.status() {
            Ok(()) if wrong.is_empty() && expected.next().is_some() => {
                wrong.push("scan ended early without an error".into());
            }
            Ok(()) => {}
            Err(_) => c.read_errors += 1,
        }
    } else {
        c.read_errors += 1;
    }
    c.opened_and_read += 1;
    if !wrong.is_empty() {
        c.wrong_answers += 1;
        if c.first_failure.is_none() {
            let n = wrong.len();
            c.first_failure = Some(format!("{what}: {n} wrong answers, first: {}", wrong[0]));
        }
    }
}

fn suite(volume: Volume) {
    let suite = Suite::new("bit_flips", volume, 10_000);
    templates();
    let mut c = Counts::default();
    let cases = suite.run(|seed| {
        // A panic is counted (the flip's other counts stay as far as they got) and the suite
        // goes on.
        if let Err(msg) = common::reliability::catch(|| flip(seed, &mut c)) {
            c.panics += 1;
            c.first_failure
                .get_or_insert(format!("flip {seed:#x} panicked: {msg}"));
        }
    });
    if let Some(f) = &c.first_failure {
        println!("first failure: {f}");
    }
    let by_region: Vec<String> = c
        .by_region
        .iter()
        .map(|(r, n)| format!("{r:?}:{n}"))
        .collect();
    println!("bit_flips by region: {}", by_region.join(" "));
    let pct = if c.checksummed == 0 {
        0.0
    } else {
        100.0 * c.detected as f64 / c.checksummed as f64
    };
    println!("bit_flips detected {pct:.2}% of checksummed flips");
    suite.finish(
        cases,
        &[
            ("flips", c.flips),
            ("checksummed", c.checksummed),
            ("detected", c.detected),
            ("undetected", c.undetected),
            ("open_refused", c.open_refused),
            ("opened_and_read", c.opened_and_read),
            ("read_errors", c.read_errors),
            ("wrong_answers", c.wrong_answers),
            ("panics", c.panics),
        ],
        &["undetected", "wrong_answers", "panics"],
        &[
            // Seven of the ten regions are checksummed throughout.
            ("checksummed", cases / 2),
            (
                "opened_and_read",
                cases * OPENED_AND_READ_FLOOR_PERCENT / 100,
            ),
        ],
    );
}

#[test]
fn bit_flips_smoke() {
    suite(Volume::Smoke);
}

#[test]
#[ignore = "CI volume: run by scripts/reliability.sh"]
fn bit_flips_full() {
    suite(Volume::Full);
}

/// Regression (flip 0x2ca73e974b32c79c before OPTIONS files changed the templates): a flipped
/// bit in the MANIFEST's last, synced record was taken for a torn tail and its flush silently
/// dropped, losing 201 keys. Recovery now refuses when the WAL the older state needs was
/// already deleted. The seed no longer lands there, so 400 seeded flips are confined to the
/// MANIFEST, whose last record is among their targets.
#[test]
fn regression_flip_in_last_manifest_record_is_not_a_torn_tail() {
    let mut c = Counts::default();
    for seed in 0..400 {
        flip_in(0x2ca7_3e97_4b32_0000 + seed, Some(Region::Manifest), &mut c);
    }
    assert_eq!(c.by_region.get(&Region::Manifest), Some(&400));
    println!(
        "manifest flips: checksummed {} detected {} open_refused {}",
        c.checksummed, c.detected, c.open_refused
    );
    assert_eq!(c.wrong_answers, 0, "{:?}", c.first_failure);
    assert_eq!(c.undetected, 0, "{:?}", c.first_failure);
}
