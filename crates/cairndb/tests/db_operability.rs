//! Operability: properties under RocksDB's names checked against known workloads, the OPTIONS
//! file written at open and parsed back (and every error path of its parser), and checkpoints,
//! also under concurrent writes.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cairndb::cache::CacheOptions;
use cairndb::db::ColumnFamilyDescriptor;
use cairndb::fs::{FileSystem, MemFs, RealFs};
use cairndb::options::{CfOptions, Options, OptionsFile, ParseConfig, ReadOptions, WriteOptions};
use cairndb::sstable::BlockCache;
use cairndb::{Db, Error};
use common::{key, opts_no_auto_compactions, scan, DIR};

fn put_range(db: &Db, range: std::ops::Range<u32>) {
    let w = WriteOptions::default();
    for i in range {
        db.put(&w, &key(i), format!("value{i}").as_bytes())
            .expect("put");
    }
}

fn sst_bytes_in_dir(fs: &dyn FileSystem, dir: &Path) -> u64 {
    fs.list(dir)
        .expect("list")
        .iter()
        .filter(|n| n.ends_with(".sst"))
        .map(|n| fs.size(&dir.join(n)).expect("size"))
        .sum()
}

// ---------------------------------------------------------------------------------------------
// Properties.

#[test]
fn file_counts_sizes_and_key_estimates_follow_the_workload() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts_no_auto_compactions()).expect("open");
    assert_eq!(
        db.property("rocksdb.num-files-at-level0").as_deref(),
        Some("0")
    );
    assert_eq!(db.property_int("rocksdb.estimate-num-keys"), Some(0));
    put_range(&db, 0..100);
    assert_eq!(db.property_int("rocksdb.estimate-num-keys"), Some(100));
    assert!(db.property_int("rocksdb.cur-size-all-mem-tables").unwrap() > 0);
    assert_eq!(
        db.property_int("rocksdb.num-entries-active-mem-table"),
        Some(100)
    );
    for batch in 1..=3u32 {
        put_range(&db, batch * 100..batch * 100 + 100);
        db.flush().expect("flush");
        assert_eq!(
            db.property_int("rocksdb.num-files-at-level0"),
            Some(u64::from(batch))
        );
    }
    assert_eq!(db.property_int("rocksdb.estimate-num-keys"), Some(400));
    assert_eq!(
        db.property_int("rocksdb.num-entries-active-mem-table"),
        Some(0)
    );
    let live = db.property_int("rocksdb.live-sst-files-size").unwrap();
    assert_eq!(live, sst_bytes_in_dir(&*fs, Path::new(DIR)));
    assert_eq!(db.property_int("rocksdb.total-sst-files-size"), Some(live));
    // The same names under CairnDB's prefix.
    assert_eq!(db.property_int("cairndb.live-sst-files-size"), Some(live));
    db.compact_range(None, None).expect("compact");
    assert_eq!(db.property_int("rocksdb.num-files-at-level0"), Some(0));
    let last = (1..7)
        .map(|l| {
            db.property_int(&format!("rocksdb.num-files-at-level{l}"))
                .unwrap()
        })
        .sum::<u64>();
    assert!(last >= 1, "compaction output is below L0");
    // Deletions in a table hide one older entry each in the estimate.
    let w = WriteOptions::default();
    for i in 0..50 {
        db.delete(&w, &key(i)).expect("delete");
    }
    db.flush().expect("flush");
    assert_eq!(
        db.property_int("rocksdb.estimate-num-keys"),
        Some(400 + 50 - 100)
    );
    db.close().expect("close");
}

#[test]
fn unknown_names_and_levels_past_the_tree_have_no_value() {
    let db =
        Db::open_with_fs(MemFs::new().shared(), DIR, opts_no_auto_compactions()).expect("open");
    assert_eq!(db.property("rocksdb.no-such-property"), None);
    assert_eq!(db.property("stats"), None, "a prefix is required");
    assert_eq!(db.property("leveldb.stats"), None);
    assert_eq!(db.property("rocksdb.num-files-at-level7"), None);
    assert_eq!(db.property("rocksdb.num-files-at-level"), None);
    assert_eq!(db.property("rocksdb.num-files-at-level-1"), None);
    assert_eq!(db.property("rocksdb.num-files-at-levelx"), None);
    assert_eq!(db.property_int("rocksdb.stats"), None);
    // No block cache configured: no usage to report.
    assert_eq!(db.property("rocksdb.block-cache-usage"), None);
    db.close().expect("close");
}

#[test]
fn block_cache_usage_grows_with_reads() {
    let mut o = opts_no_auto_compactions();
    let cache = Arc::new(BlockCache::new(CacheOptions::with_capacity(8 << 20)));
    o.cf.table.block_cache = Some(cache);
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    put_range(&db, 0..500);
    db.flush().expect("flush");
    let before = db.property_int("rocksdb.block-cache-usage").unwrap();
    assert_eq!(scan(&db).len(), 500);
    let after = db.property_int("rocksdb.block-cache-usage").unwrap();
    assert!(after > before, "usage {before} -> {after}");
    assert_eq!(
        db.property_int("rocksdb.block-cache-capacity"),
        Some(8 << 20)
    );
    db.close().expect("close");
}

/// `estimate-table-readers-mem` counts the open tables' index and filter blocks when the tables
/// hold them, much less when they live in the block cache, and gives the bytes back when the
/// tables are retired and closed.
#[test]
fn table_readers_memory_follows_open_tables() {
    let readers = |db: &Db| {
        db.property_int("rocksdb.estimate-table-readers-mem")
            .unwrap()
    };
    let mut held = 0;
    for in_cache in [false, true] {
        let mut o = opts_no_auto_compactions();
        o.cf.table.block_cache = Some(Arc::new(BlockCache::new(CacheOptions::with_capacity(
            8 << 20,
        ))));
        o.cf.table.cache_index_and_filter_blocks = in_cache;
        let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
        assert_eq!(readers(&db), 0, "no table open yet");
        for part in 0..3 {
            put_range(&db, part * 2000..(part + 1) * 2000);
            db.flush().expect("flush");
        }
        assert_eq!(scan(&db).len(), 6000, "every table opened by the scan");
        let three = readers(&db);
        assert!(three > 0);
        if in_cache {
            assert!(
                three < held,
                "index and filter in the cache: {three} >= {held}"
            );
        } else {
            held = three;
        }
        // Deleting everything and compacting retires every table: their bytes come back.
        db.delete_range(&WriteOptions::default(), &key(0), &key(6000))
            .expect("delete_range");
        db.compact_range(None, None).expect("compact");
        assert_eq!(scan(&db).len(), 0);
        // The retired tables are closed when their files are purged, at the latest by the next
        // install: a flush of one key, whose small table is then the only one open.
        put_range(&db, 0..1);
        db.flush().expect("flush");
        assert_eq!(scan(&db).len(), 1);
        let small = readers(&db);
        assert!(
            small > 0 && small * 2 < three,
            "retired tables closed: {three} -> {small}"
        );
        db.close().expect("close");
    }
}

#[test]
fn stats_show_the_compaction_table_and_cumulative_lines() {
    let db =
        Db::open_with_fs(MemFs::new().shared(), DIR, opts_no_auto_compactions()).expect("open");
    let w = WriteOptions::default();
    for i in 0..10 {
        db.put(&w, &key(i), b"v").expect("put");
    }
    let sync = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    db.put(&sync, &key(10), b"v").expect("put");
    db.flush().expect("flush");
    put_range(&db, 0..11);
    db.flush().expect("flush");
    db.compact_range(None, None).expect("compact");
    let stats = db.property("rocksdb.stats").expect("stats");
    assert!(
        stats.contains("** Compaction Stats [default] **"),
        "{stats}"
    );
    let header = stats
        .lines()
        .find(|l| l.starts_with("Level "))
        .expect("header");
    for col in [
        "Files",
        "Size",
        "Score",
        "Read(GB)",
        "Rn(GB)",
        "Rnp1(GB)",
        "Write(GB)",
        "Wnew(GB)",
        "Moved(GB)",
        "W-Amp",
        "Rd(MB/s)",
        "Wr(MB/s)",
        "Comp(sec)",
        "CompMergeCPU(sec)",
        "Comp(cnt)",
        "Avg(sec)",
        "KeyIn",
        "KeyDrop",
    ] {
        assert!(header.contains(col), "{col} missing from {header}");
    }
    // Two flushes into L0, one compaction out of it; 22 entries in, 11 dropped (overwrites).
    let row = |name: &str| -> Vec<String> {
        stats
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no {name} row in {stats}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    let sum = row("Sum ");
    let comp_count: u64 = sum[17].parse().expect("Comp(cnt)");
    assert_eq!(comp_count, 3, "2 flushes + 1 compaction: {sum:?}");
    assert_eq!(sum[19], "22", "KeyIn");
    assert_eq!(sum[20], "11", "KeyDrop");
    assert!(stats.contains("** DB Stats **"));
    assert!(!stats.contains("-0.0"), "no negative zeros: {stats}");
    assert!(
        stats.contains(
            "Cumulative writes: 22 writes, 22 keys, 22 commit groups, 1.0 writes per commit group"
        ),
        "{stats}"
    );
    assert!(
        stats.contains("Cumulative WAL: 22 writes, 1 syncs, 22.00 writes per sync"),
        "{stats}"
    );
    assert!(stats.contains("Cumulative stall: 00:00:00.000 H:M:S, 0.0 percent"));
    assert!(stats.contains("Interval writes: 22 writes"));
    assert!(stats.contains("Estimated pending compaction bytes: 0"));
    let levels = db.property("rocksdb.levelstats").expect("levelstats");
    assert!(levels.starts_with("Level Files Size(MB)\n--------------------\n"));
    assert!(levels.contains("  0        0 "), "{levels}");
    assert_eq!(
        db.property_int("rocksdb.estimate-pending-compaction-bytes"),
        Some(0)
    );
    db.close().expect("close");
}

#[test]
fn properties_of_a_column_family_are_its_own() {
    let fs = MemFs::new().shared();
    let mut o = opts_no_auto_compactions();
    o.db.create_missing_column_families = true;
    let db = Db::open_cf_with_fs(
        Arc::clone(&fs),
        DIR,
        o.clone(),
        vec![ColumnFamilyDescriptor::new("other", o.cf.clone())],
    )
    .expect("open");
    let other = db.column_family("other").expect("cf");
    db.put_cf(&WriteOptions::default(), &other, b"a", b"1")
        .expect("put");
    db.flush_cf(&other).expect("flush");
    assert_eq!(
        db.property_cf(&other, "rocksdb.num-files-at-level0")
            .as_deref(),
        Some("1")
    );
    assert_eq!(
        db.property("rocksdb.num-files-at-level0").as_deref(),
        Some("0")
    );
    // Creating and dropping families rewrites the OPTIONS file.
    let created = db
        .create_column_family("third", CfOptions::default())
        .expect("create");
    let fs2 = Arc::clone(&fs);
    let latest = || {
        let p = OptionsFile::latest(&*fs2, Path::new(DIR)).unwrap().unwrap();
        OptionsFile::load(&*fs2, &p, &ParseConfig::default())
            .unwrap()
            .0
    };
    assert!(latest().family("third").is_some());
    db.drop_column_family(&created).expect("drop");
    assert!(latest().family("third").is_none());
    assert!(latest().family("other").is_some());
    let stats = db.property_cf(&other, "rocksdb.cfstats").expect("cfstats");
    assert!(stats.contains("** Compaction Stats [other] **"));
    db.drop_column_family(&other).expect("drop");
    assert_eq!(db.property_cf(&other, "rocksdb.num-files-at-level0"), None);
    db.close().expect("close");
}

// ---------------------------------------------------------------------------------------------
// OPTIONS files.

fn options_files(fs: &dyn FileSystem) -> Vec<String> {
    let mut v: Vec<String> = fs
        .list(Path::new(DIR))
        .expect("list")
        .into_iter()
        .filter(|n| n.starts_with("OPTIONS-"))
        .collect();
    v.sort();
    v
}

#[test]
fn each_open_writes_an_options_file_and_two_are_kept() {
    let fs = MemFs::new().shared();
    let mut o = opts_no_auto_compactions();
    o.cf.apply_options_string(
        "write_buffer_size=1m;compression=kZSTD;block_based_table_factory={block_size=8k}",
        &ParseConfig::default(),
    )
    .expect("parse");
    let mut seen = Vec::new();
    for round in 0..3 {
        let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
        db.close().expect("close");
        let files = options_files(&*fs);
        assert_eq!(files.len(), (round + 1).min(2), "{files:?}");
        let latest = OptionsFile::latest(&*fs, Path::new(DIR))
            .expect("latest")
            .expect("some");
        assert_eq!(
            latest.file_name().unwrap().to_str().unwrap(),
            files.last().unwrap()
        );
        assert!(!seen.contains(&latest), "a new file each open");
        seen.push(latest.clone());
        let (file, warnings) =
            OptionsFile::load(&*fs, &latest, &ParseConfig::default()).expect("parse back");
        assert!(warnings.is_empty());
        let back = file.to_options();
        assert_eq!(back.db.to_options_string(), o.db.to_options_string());
        assert_eq!(back.cf.to_options_string(), o.cf.to_options_string());
        assert_eq!(back.cf.write_buffer_size, 1 << 20);
        assert_eq!(back.cf.table.block_size, 8 << 10);
    }
}

#[test]
fn options_file_round_trips_every_family_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let mut o = opts_no_auto_compactions();
    o.db.create_missing_column_families = true;
    let mut other = CfOptions::from_options_string(
        "prefix_extractor=capped:12;memtable_prefix_bloom_size_ratio=0.05;\
         block_based_table_factory={whole_key_filtering=0;filter_policy=bloomfilter:10:false};\
         compaction_pri=kMinOverlappingRatio;compression_opts={level=7}",
    )
    .expect("parse");
    other.write_buffer_size = 128 << 10;
    let db = Db::open_cf(
        &path,
        o.clone(),
        vec![ColumnFamilyDescriptor::new("weird \"name\"", other.clone())],
    )
    .expect("open");
    let expected = db.options_file();
    db.close().expect("close");
    let latest = OptionsFile::latest(&*RealFs::shared(), &path)
        .expect("list")
        .expect("file");
    let text = std::fs::read_to_string(&latest).expect("read");
    assert!(text.contains("[DBOptions]"));
    assert!(text.contains("[CFOptions \"default\"]"));
    assert!(text.contains("[TableOptions/BlockBasedTable \"weird \\\"name\\\"\"]"));
    let (file, _) = OptionsFile::parse(&text, &ParseConfig::default()).expect("parse");
    assert_eq!(file.families.len(), expected.families.len());
    for ((n1, a), (n2, b)) in file.families.iter().zip(&expected.families) {
        assert_eq!(n1, n2);
        assert_eq!(a.to_options_string(), b.to_options_string());
    }
    let back = file.family("weird \"name\"").expect("family");
    assert_eq!(
        back.prefix_extractor.as_ref().map(|p| p.name()),
        Some("rocksdb.CappedPrefix.12")
    );
    assert!(!back.table.whole_key_filtering);
    assert_eq!(back.table.zstd_level, 7);
    // Options::from_file: the database and default-family options.
    let from = Options::from_file(&latest).expect("from_file");
    assert_eq!(from.cf.to_options_string(), o.cf.to_options_string());
    assert_eq!(from.db.to_options_string(), expected.db.to_options_string());
}

#[test]
fn options_file_parse_errors_name_the_line() {
    let strict = ParseConfig::default();
    let cases: &[(&str, &str)] = &[
        (
            "write_buffer_size=1\n",
            "line 1: an option outside any section",
        ),
        ("[DBOptions]\nnot a pair\n", "line 2: expected name=value"),
        ("[Bogus]\n", "line 1: unknown section"),
        ("[DBOptions\n", "line 1: malformed section"),
        ("[CFOptions]\n", "line 1: unknown section"),
        ("[CFOptions default]\n", "line 1: expected a quoted name"),
        ("[CFOptions \"a\"b\"]\n", "line 1: unescaped quote"),
        ("[CFOptions \"a\\\"]\n", "line 1: dangling escape"),
        (
            "[TableOptions/BlockBasedTable \"default\"]\nblock_size=1\n",
            "line 1: table options for column family \"default\" before its CFOptions",
        ),
        (
            "[CFOptions \"x\"]\n[CFOptions \"x\"]\n",
            "line 2: column family \"x\" has two CFOptions sections",
        ),
        (
            "[DBOptions]\n\nno_such_option=1\n",
            "line 3: option no_such_option: unknown",
        ),
        (
            "[DBOptions]\nmax_open_files=abc\n",
            "line 2: option max_open_files",
        ),
        (
            "[CFOptions \"default\"]\n[TableOptions/BlockBasedTable \"default\"]\nnope=1\n",
            "line 3: option block_based_table_factory.nope: unknown",
        ),
    ];
    for (text, want) in cases {
        match OptionsFile::parse(text, &strict) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains(want), "{text:?}: {m}"),
            other => panic!("{text:?}: expected an error containing {want:?}, got {other:?}"),
        }
    }
    // Unknown names are warnings when asked; bad values are still errors.
    let lenient = ParseConfig {
        ignore_unknown_options: true,
    };
    let text = "[Version]\n  rocksdb_version=9.0\n[DBOptions]\n  no_such_option=1\n  \
                max_background_jobs=4\n[CFOptions \"default\"]\n  statistics=x\n";
    let (file, warnings) = OptionsFile::parse(text, &lenient).expect("lenient");
    assert_eq!(file.db.max_background_jobs, 4);
    let names: Vec<&str> = warnings.iter().map(|w| w.option.as_str()).collect();
    assert_eq!(names, ["no_such_option", "statistics"]);
    assert!(OptionsFile::parse("[DBOptions]\nmax_open_files=abc\n", &lenient).is_err());
    // Not UTF-8.
    let fs = MemFs::new().shared();
    fs.create_dir_all(Path::new(DIR)).unwrap();
    let p = Path::new(DIR).join("OPTIONS-000001");
    let mut f = fs.create(&p).unwrap();
    f.append(&[0xff, 0xfe]).unwrap();
    f.sync().unwrap();
    drop(f);
    assert!(matches!(
        OptionsFile::load(&*fs, &p, &strict),
        Err(Error::InvalidArgument(_))
    ));
}

// ---------------------------------------------------------------------------------------------
// Checkpoints.

#[test]
fn checkpoint_opens_with_identical_data() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let db = Db::open(&path, opts_no_auto_compactions()).expect("open");
    put_range(&db, 0..300);
    db.flush().expect("flush");
    put_range(&db, 200..400);
    let w = WriteOptions {
        disable_wal: true,
        ..WriteOptions::default()
    };
    db.put(&w, b"unlogged", b"x").expect("put");
    let expected = scan(&db);
    let out = dir.path().join("cp");
    let report = db.checkpoint(&out).expect("checkpoint");
    assert!(report.tables_linked + report.tables_copied >= 2);
    assert!(!dir.path().join("cp.tmp").exists());
    // Writes after the checkpoint are not in it.
    put_range(&db, 1000..1010);
    assert!(matches!(
        db.checkpoint(&out),
        Err(Error::InvalidArgument(_))
    ));
    db.close().expect("close");
    let cp = Db::open(&out, opts_no_auto_compactions()).expect("open checkpoint");
    assert_eq!(scan(&cp), expected);
    cp.close().expect("close");
    // The source is unchanged by the checkpoint and still opens.
    let db = Db::open(&path, opts_no_auto_compactions()).expect("reopen");
    assert_eq!(scan(&db).len(), expected.len() + 10);
}

/// `log_size_for_flush` (RocksDB's parameter): below it the memtables are not flushed, their
/// data reaches the checkpoint in the WAL copies, and unlogged writes since the last flush are
/// missing from it; at or above it the checkpoint flushes first, as the plain one does.
#[test]
fn checkpoint_with_log_size_flushes_only_past_the_threshold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let db = Db::open(&path, opts_no_auto_compactions()).expect("open");
    put_range(&db, 0..300);
    db.flush().expect("flush");
    put_range(&db, 200..400);
    let logged = scan(&db);
    let w = WriteOptions {
        disable_wal: true,
        ..WriteOptions::default()
    };
    db.put(&w, b"unlogged", b"x").expect("put");
    let tables = |db: &Db| db.level_files_cf(&db.default_column_family())[0].len();
    assert_eq!(tables(&db), 1);

    let small = dir.path().join("cp-no-flush");
    let report = db
        .checkpoint_with_log_size(&small, u64::MAX)
        .expect("checkpoint");
    assert_eq!(tables(&db), 1, "no flush below the threshold");
    assert!(report.wals_copied >= 1);
    let cp = Db::open(&small, opts_no_auto_compactions()).expect("open checkpoint");
    assert_eq!(
        scan(&cp),
        logged,
        "the WAL copy holds the memtable's logged writes"
    );
    drop(cp);

    let flushed = dir.path().join("cp-flush");
    db.checkpoint_with_log_size(&flushed, 1)
        .expect("checkpoint");
    assert_eq!(
        tables(&db),
        2,
        "the WALs hold more than 1 byte: flushed first"
    );
    let cp = Db::open(&flushed, opts_no_auto_compactions()).expect("open checkpoint");
    assert_eq!(
        scan(&cp),
        scan(&db),
        "the unlogged write is in the flushed table"
    );
}

#[test]
fn checkpoint_under_concurrent_writes_holds_a_prefix() {
    for round in 0..5 {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        let mut o = opts_no_auto_compactions();
        o.cf.disable_auto_compactions = false;
        o.cf.level0_file_num_compaction_trigger = 2;
        let db = Arc::new(Db::open(&path, o.clone()).expect("open"));
        let acked = Arc::new(AtomicU64::new(0));
        let writer = {
            let (db, acked) = (Arc::clone(&db), Arc::clone(&acked));
            std::thread::spawn(move || {
                let w = WriteOptions::default();
                for i in 0..6000u32 {
                    let value = vec![b'v'; 40 + (i % 50) as usize];
                    db.put(&w, &key(i), &value).expect("put");
                    acked.store(u64::from(i) + 1, Ordering::Release);
                }
            })
        };
        while acked.load(Ordering::Acquire) < 1500 {
            std::thread::yield_now();
        }
        let before = acked.load(Ordering::Acquire);
        let out = dir.path().join("cp");
        db.checkpoint(&out).expect("checkpoint");
        writer.join().expect("writer");
        Arc::try_unwrap(db)
            .expect("one handle")
            .close()
            .expect("close");
        let cp = Db::open(&out, o).expect("open checkpoint");
        let got = scan(&cp);
        let n = got.len() as u64;
        assert!(
            n >= before,
            "round {round}: {n} keys, {before} acknowledged before"
        );
        for (i, (k, _)) in got.iter().enumerate() {
            assert_eq!(k, &key(i as u32), "round {round}: not a prefix at {i}");
        }
        cp.close().expect("close");
    }
}

// ---------------------------------------------------------------------------------------------
// The MyRocks option string: every part parses and takes effect.

const MYROCKS: &str = "write_buffer_size=256m;target_file_size_base=32m;\
    max_bytes_for_level_base=512m;max_write_buffer_number=4;\
    level0_file_num_compaction_trigger=4;level0_slowdown_writes_trigger=20;\
    level0_stop_writes_trigger=30;block_based_table_factory={cache_index_and_filter_blocks=1;\
    filter_policy=bloomfilter:10:false;whole_key_filtering=0};\
    level_compaction_dynamic_level_bytes=true;optimize_filters_for_hits=true;\
    memtable_prefix_bloom_size_ratio=0.05;prefix_extractor=capped:12;\
    compaction_pri=kMinOverlappingRatio;compression=kLZ4Compression;\
    bottommost_compression=kLZ4Compression";

fn table_properties(
    fs: &Arc<dyn FileSystem>,
    number: u64,
    size: u64,
) -> cairndb::sstable::TableProperties {
    let path = Path::new(DIR).join(format!("{number:06}.sst"));
    let file = fs.open_read(&path).expect("open table");
    cairndb::sstable::Table::open(file, &path, size, &Default::default())
        .expect("table")
        .properties()
        .clone()
}

#[test]
fn myrocks_option_string_parses_and_every_part_takes_effect() {
    use cairndb::types::CompressionType;
    let mut o = Options::from_options_string(MYROCKS).expect("parse");
    o.db.create_if_missing = true;
    o.validate().expect("valid");
    assert_eq!(o.cf.write_buffer_size, 256 << 20);
    assert_eq!(o.cf.target_file_size_base, 32 << 20);
    assert_eq!(o.cf.max_bytes_for_level_base, 512 << 20);
    assert_eq!(o.cf.max_write_buffer_number, 4);
    assert_eq!(
        (
            o.cf.level0_file_num_compaction_trigger,
            o.cf.level0_slowdown_writes_trigger,
            o.cf.level0_stop_writes_trigger
        ),
        (4, 20, 30)
    );
    assert!(o.cf.level_compaction_dynamic_level_bytes && o.cf.optimize_filters_for_hits);
    assert_eq!(o.cf.memtable_prefix_bloom_size_ratio, 0.05);
    assert_eq!(o.cf.compression, CompressionType::Lz4);
    assert_eq!(o.cf.bottommost_compression, Some(CompressionType::Lz4));
    assert!(o.cf.table.cache_index_and_filter_blocks && !o.cf.table.whole_key_filtering);
    assert_eq!(o.cf.table.bloom_bits_per_key, 10.0);

    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o).expect("open");
    // The effective options are what the string said (the OPTIONS file records them).
    let eff = db.options_file();
    assert_eq!(eff.family("default").unwrap().write_buffer_size, 256 << 20);
    // Keys with a 12-byte prefix shared by 10 keys each.
    let w = WriteOptions::default();
    for p in 0..50u32 {
        for s in 0..10u32 {
            let k = format!("prefix{p:06}-suffix{s:03}");
            db.put(&w, k.as_bytes(), &[b'x'; 100]).expect("put");
        }
    }
    db.flush().expect("flush");
    let levels = db.level_files_cf(&db.default_column_family());
    let l0 = &levels[0][0];
    let props = table_properties(&fs, l0.number, l0.size);
    // capped:12 and whole_key_filtering=0: a prefix-only filter; LZ4 compression.
    assert_eq!(props.prefix_extractor, "rocksdb.CappedPrefix.12");
    assert!(!props.whole_key_filtering);
    assert!(props.filter_bytes > 0, "L0 has a filter");
    assert_eq!(props.compression, CompressionType::Lz4);
    // cache_index_and_filter_blocks=1 with no cache given: RocksDB's default cache is created
    // and the index and filter blocks are charged to it.
    let ro = ReadOptions::default();
    assert!(db
        .get(&ro, b"prefix000007-suffix003")
        .expect("get")
        .is_some());
    assert_eq!(
        db.property_int("rocksdb.block-cache-capacity"),
        Some(32 << 20)
    );
    assert!(db.property_int("rocksdb.block-cache-usage").unwrap() > 0);
    // A prefix absent from the table is answered by the prefix filter.
    assert!(db
        .get(&ro, b"prefix999999-suffix000")
        .expect("get")
        .is_none());
    // memtable_prefix_bloom_size_ratio with capped:12: lookups of absent prefixes skip the
    // memtable search, present ones pass.
    db.put(&w, b"prefix777777-a", b"v").expect("put");
    let useful = |db: &Db| {
        db.property_int("rocksdb.memtable-prefix-bloom-useful")
            .unwrap()
    };
    let before = useful(&db);
    for p in 0..20u32 {
        let k = format!("absent{p:06}-x");
        assert!(db.get(&ro, k.as_bytes()).expect("get").is_none());
    }
    assert!(useful(&db) - before >= 15, "{} of 20", useful(&db) - before);
    assert_eq!(
        db.get(&ro, b"prefix777777-a").expect("get").as_deref(),
        Some(&b"v"[..])
    );
    assert!(
        db.property_int("rocksdb.memtable-prefix-bloom-passed")
            .unwrap()
            >= 1
    );
    // optimize_filters_for_hits: tables a compaction writes to the last level have no filter
    // (an overlapping write makes the compaction merge rather than move the L0 table, which
    // would keep its filter, as in RocksDB).
    db.put(&w, b"prefix000010-suffix000", b"new").expect("put");
    db.compact_range(None, None).expect("compact");
    let levels = db.level_files_cf(&db.default_column_family());
    let last = levels
        .iter()
        .rposition(|l| !l.is_empty())
        .expect("a non-empty level");
    assert!(last > 0);
    for f in &levels[last] {
        let p = table_properties(&fs, f.number, f.size);
        assert_eq!(
            p.filter_bytes, 0,
            "bottommost table {} has no filter",
            f.number
        );
        assert_eq!(
            p.compression,
            CompressionType::Lz4,
            "bottommost_compression"
        );
    }
    assert_eq!(scan(&db).len(), 501);
    db.close().expect("close");
}

#[test]
fn unknown_options_fail_by_default_and_warn_when_ignored() {
    let with_unknown = format!("{MYROCKS};statistics=1;no_such_thing=3");
    match Options::from_options_string(&with_unknown) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("statistics"), "{m}"),
        other => panic!("expected an error, got {other:?}"),
    }
    let mut o = Options::default();
    let warnings = o
        .apply_options_string(
            &with_unknown,
            &ParseConfig {
                ignore_unknown_options: true,
            },
        )
        .expect("lenient");
    let names: Vec<&str> = warnings.iter().map(|w| w.option.as_str()).collect();
    assert_eq!(names, ["statistics", "no_such_thing"]);
    assert_eq!(
        o.cf.write_buffer_size,
        256 << 20,
        "the known parts still apply"
    );
}

// ---------------------------------------------------------------------------------------------
// The info log.

fn read_text(fs: &dyn FileSystem, path: &Path) -> String {
    String::from_utf8(cairndb::fs::read_all(fs, path).expect("read")).expect("utf-8")
}

fn old_logs(fs: &dyn FileSystem) -> Vec<String> {
    fs.list(Path::new(DIR))
        .expect("list")
        .into_iter()
        .filter(|n| n.starts_with("LOG.old."))
        .collect()
}

#[test]
fn log_records_options_flushes_and_compactions() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts_no_auto_compactions()).expect("open");
    put_range(&db, 0..100);
    db.flush().expect("flush");
    put_range(&db, 50..150);
    db.flush().expect("flush");
    db.compact_range(None, None).expect("compact");
    let log = read_text(&*fs, &Path::new(DIR).join("LOG"));
    assert!(log.contains("[HEADER] CairnDB version"), "{log}");
    assert!(
        log.contains("[DBOptions]") && log.contains("write_buffer_size=65536"),
        "{log}"
    );
    assert!(log.contains("[INFO] Recovered: created true"), "{log}");
    assert_eq!(log.matches("] Flush: table #").count(), 2, "{log}");
    let comp = log
        .lines()
        .find(|l| l.contains("[default] Compaction"))
        .expect("a compaction line");
    assert!(comp.contains("inputs L0: ["), "{comp}");
    assert!(comp.contains("write-amp"), "{comp}");
    assert!(comp.contains("200 keys in, 50 dropped"), "{comp}");
    // Every line starts with a timestamp.
    for line in log.lines() {
        let ts = line.split(' ').next().unwrap();
        assert_eq!(ts.len(), 26, "{line}");
        assert_eq!(&ts[4..5], "/", "{line}");
    }
    db.close().expect("close");
}

#[test]
fn log_rotates_at_open_and_by_size_keeping_the_newest() {
    let fs = MemFs::new().shared();
    let mut o = opts_no_auto_compactions();
    o.db.keep_log_file_num = 2;
    for _ in 0..4 {
        let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
        db.close().expect("close");
    }
    assert_eq!(old_logs(&*fs).len(), 2, "{:?}", old_logs(&*fs));
    // By size: every open logs the options (several KB), past a 1 KiB limit.
    o.db.max_log_file_size = 1024;
    o.db.keep_log_file_num = 3;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open");
    for i in 0..10u32 {
        put_range(&db, i * 10..i * 10 + 10);
        db.flush().expect("flush");
    }
    db.close().expect("close");
    assert_eq!(old_logs(&*fs).len(), 3);
    let current = read_text(&*fs, &Path::new(DIR).join("LOG"));
    assert!(current.len() < 1024 + 512, "rotated once past the limit");
}

/// The dumps are awaited with a LOG-write hook, not a clock (a dumper that never dumps leaves
/// the test waiting, a hang). It waits for the second dump after the writes: the dumper starts
/// a new interval after writing a dump, so the interval is new once the next dump is written.
#[test]
fn statistics_are_dumped_to_the_log_every_period() {
    let mem = MemFs::new();
    let fs = cairndb::fs::FaultFs::new(mem.shared(), 1);
    let mut o = opts_no_auto_compactions();
    o.db.stats_dump_period_sec = 1;
    let db = Db::open_with_fs(fs.shared(), DIR, o).expect("open");
    put_range(&db, 0..10);
    // Dumps repeat every second; the ones after the writes show them.
    let (tx, rx) = std::sync::mpsc::channel();
    on_log_lines(
        &fs,
        mem.shared(),
        Path::new(DIR).join("LOG"),
        ("Cumulative writes: 10 writes", 2),
        tx,
        "dumped",
    );
    assert_eq!(rx.recv(), Ok("dumped"));
    let log = read_text(&*mem.shared(), &Path::new(DIR).join("LOG"));
    assert!(log.contains("------- DUMPING STATS -------"), "{log}");
    assert!(log.contains("** DB Stats **"), "{log}");
    assert!(log.contains("** Compaction Stats [default] **"), "{log}");
    // After a dump, the interval lines restart from it.
    let stats = db.property("rocksdb.dbstats").unwrap();
    assert!(stats.contains("Interval writes: 0 writes"), "{stats}");
    db.close().expect("close");
}

#[test]
fn a_failing_log_never_fails_the_database() {
    use cairndb::fs::{FaultFs, FaultKind, FaultRule, OpKind};
    for op in [OpKind::Create, OpKind::Write, OpKind::Rename] {
        let mem = MemFs::new();
        let fault = FaultFs::new(mem.shared(), 7);
        let mut rule = FaultRule::random(&[op], 1.0, FaultKind::Eio).on_paths("LOG");
        rule.sticky = true;
        fault.add_rule(rule);
        let fs = fault.shared();
        for _ in 0..2 {
            let db =
                Db::open_with_fs(Arc::clone(&fs), DIR, opts_no_auto_compactions()).expect("open");
            put_range(&db, 0..200);
            db.flush().expect("flush");
            assert_eq!(scan(&db).len(), 200);
            assert_eq!(db.background_error_count(), 0);
            db.close().expect("close");
        }
        assert!(fault.injected() > 0, "{op:?}: the LOG fault fired");
    }
}

/// Arms `fs` so that `tx` receives `event` once the file at `log`, read through `files` (the
/// file system under `fs`), contains `needle` `times` times: the hook re-arms itself after
/// every write to a LOG until then.
fn on_log_lines(
    fs: &cairndb::fs::FaultFs,
    files: Arc<dyn FileSystem>,
    log: std::path::PathBuf,
    (needle, times): (&'static str, usize),
    tx: std::sync::mpsc::Sender<&'static str>,
    event: &'static str,
) {
    let again = fs.clone();
    fs.after_next(cairndb::fs::OpKind::Write, "LOG", move || {
        let text = cairndb::fs::read_all(&*files, &log).unwrap_or_default();
        if String::from_utf8_lossy(&text).matches(needle).count() >= times {
            let _ = tx.send(event);
        } else {
            on_log_lines(&again, files, log, (needle, times), tx, event);
        }
    });
}

/// Found by `checkpoint_under_concurrent_writes_holds_a_prefix` (1 run in ~20): a checkpoint
/// cut taken while a compaction's MANIFEST write was under way copied the MANIFEST with that
/// edit but linked the tables of the version before it, so the checkpoint named tables it did
/// not hold. The cut now waits for the MANIFEST change to finish.
///
/// The compaction is held after its MANIFEST sync, before it installs the edit, until the first
/// of two events, with no timing involved: the checkpoint logs that it waits for the MANIFEST
/// change (the fix), or the checkpoint returns (the bug: its cut was taken in the middle).
#[test]
fn a_checkpoint_taken_during_a_manifest_write_holds_every_table_it_names() {
    use cairndb::fs::{FaultFs, OpKind};
    use std::sync::mpsc;

    let dir = tempfile::tempdir().expect("tempdir");
    let (path, out) = (dir.path().join("db"), dir.path().join("cp"));
    let fs = FaultFs::new(RealFs::shared(), 1);
    let db =
        Arc::new(Db::open_with_fs(fs.shared(), &path, opts_no_auto_compactions()).expect("open"));
    put_range(&db, 0..2000);
    db.flush().expect("flush");
    put_range(&db, 1000..3000);
    db.flush().expect("flush");
    let expected = scan(&db);
    let checkpoint = Arc::new(parking_lot::Mutex::new(None));
    let first_event = Arc::new(parking_lot::Mutex::new(None));
    {
        // Once the compaction below has synced its MANIFEST edit, and before it installs it,
        // another thread takes a checkpoint; the compaction goes on at the first event.
        let (db, checkpoint, first_event) = (
            Arc::clone(&db),
            Arc::clone(&checkpoint),
            Arc::clone(&first_event),
        );
        let (watch, log) = (fs.clone(), path.join("LOG"));
        fs.after_next(OpKind::Sync, "MANIFEST", move || {
            let (event_tx, event_rx) = mpsc::channel();
            on_log_lines(
                &watch,
                RealFs::shared(),
                log,
                ("checkpoint: waiting for the MANIFEST change", 1),
                event_tx.clone(),
                "checkpoint waits",
            );
            let taker = std::thread::spawn(move || {
                let r = db.checkpoint(out);
                let _ = event_tx.send("checkpoint returned");
                r
            });
            *checkpoint.lock() = Some(taker);
            *first_event.lock() = event_rx.recv().ok();
        });
    }
    db.compact_range(None, None).expect("compact");
    assert!(
        first_event.lock().is_some(),
        "the compaction wrote the MANIFEST"
    );
    let taker = checkpoint.lock().take().expect("checkpoint thread");
    taker
        .join()
        .expect("checkpoint thread")
        .expect("checkpoint");
    assert_eq!(
        *first_event.lock(),
        Some("checkpoint waits"),
        "the checkpoint's cut was taken while a MANIFEST change was in flight"
    );
    let cp = Db::open(dir.path().join("cp"), opts_no_auto_compactions()).expect("open checkpoint");
    assert_eq!(scan(&cp), expected);
}

#[test]
fn destroy_deletes_a_closed_database_and_refuses_an_open_one() {
    let fs: Arc<dyn FileSystem> = Arc::new(MemFs::new());
    let dir = Path::new(DIR);
    // A directory that does not exist is already destroyed.
    Db::destroy_with_fs(fs.clone(), dir).expect("missing directory");

    let db = Db::open_with_fs(fs.clone(), dir, common::opts()).expect("open");
    put_range(&db, 0..2000);
    db.flush().expect("flush");
    assert!(Db::destroy_with_fs(fs.clone(), dir).is_err_and(|e| e.is_lock_held()));
    assert_eq!(scan(&db).len(), 2000, "a refused destroy deletes nothing");
    db.close().expect("close");
    drop(db);

    Db::destroy_with_fs(fs.clone(), dir).expect("destroy");
    assert!(
        !fs.exists(dir).expect("exists"),
        "the empty directory goes too"
    );
    let mut o = common::opts();
    o.db.create_if_missing = false;
    assert!(
        Db::open_with_fs(fs.clone(), dir, o).is_err(),
        "nothing left to open"
    );

    // Files the engine did not name stay, and so does their directory.
    let db = Db::open_with_fs(fs.clone(), dir, common::opts()).expect("open");
    put_range(&db, 0..10);
    db.close().expect("close");
    drop(db);
    let mut f = fs.create(&dir.join("notes.txt")).expect("create");
    f.append(b"mine").expect("append");
    f.sync().expect("sync");
    drop(f);
    Db::destroy_with_fs(fs.clone(), dir).expect("destroy");
    assert_eq!(fs.list(dir).expect("list"), vec!["notes.txt".to_string()]);
}

#[test]
fn destroy_goes_on_past_a_failed_delete_and_removes_wals_and_current_first() {
    use cairndb::fs::{FaultFs, FaultKind, FaultRule, OpKind};
    let mem: Arc<dyn FileSystem> = Arc::new(MemFs::new());
    let fault = Arc::new(FaultFs::new(mem.clone(), 1));
    let dir = Path::new(DIR);
    let db = Db::open_with_fs(fault.clone(), dir, common::opts()).expect("open");
    put_range(&db, 0..2000);
    db.flush().expect("flush");
    put_range(&db, 2000..2100); // in the WAL only
    db.close().expect("close");
    drop(db);
    fault.add_rule(FaultRule {
        path_contains: Some(".sst".into()),
        probability: 1.0,
        ..FaultRule::random(&[OpKind::Remove], 0.0, FaultKind::Eio)
    });
    assert!(
        Db::destroy_with_fs(fault.clone(), dir).is_err(),
        "the failed delete is reported"
    );
    let left = mem.list(dir).expect("list");
    assert!(
        left.iter().all(|n| n.ends_with(".sst")),
        "only the undeletable tables stay: {left:?}"
    );
    assert!(left.iter().any(|n| n.ends_with(".sst")));
    // A database created over the remains replays no old WAL.
    let db = Db::open_with_fs(mem.clone(), dir, common::opts()).expect("create");
    assert!(scan(&db).is_empty());
}

/// The calling thread's perf context counts the blocks its reads take from the table files
/// and from the block cache, and nothing while its level is `Disable`.
#[test]
fn perf_context_counts_this_threads_block_reads() {
    use cairndb::perf_context::{self, PerfLevel, PerfMetric};
    let mut o = opts_no_auto_compactions();
    o.cf.table.block_cache = Some(Arc::new(BlockCache::new(CacheOptions::with_capacity(
        8 << 20,
    ))));
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    put_range(&db, 0..500);
    db.flush().expect("flush");
    let r = ReadOptions::default();
    // The first read opens the table (footer, properties, index and filter blocks) and reads a
    // data block.
    perf_context::reset();
    db.get(&r, &key(7)).expect("get").expect("found");
    assert!(perf_context::get(PerfMetric::BlockReadCount) >= 2);
    assert!(perf_context::get(PerfMetric::BlockReadByte) > 0);
    // The same data block again: from the cache.
    perf_context::reset();
    db.get(&r, &key(8)).expect("get").expect("found");
    assert_eq!(perf_context::get(PerfMetric::BlockReadCount), 0);
    assert_eq!(perf_context::get(PerfMetric::BlockCacheHitCount), 1);
    // Another data block: one read.
    db.get(&r, &key(499)).expect("get").expect("found");
    assert_eq!(perf_context::get(PerfMetric::BlockReadCount), 1);
    assert_eq!(perf_context::get(PerfMetric::BlockCacheHitCount), 1);
    perf_context::set_perf_level(PerfLevel::Disable);
    db.get(&r, &key(8)).expect("get").expect("found");
    assert_eq!(perf_context::get(PerfMetric::BlockCacheHitCount), 1);
    perf_context::set_perf_level(PerfLevel::EnableCount);
    db.close().expect("close");
}

/// While file deletions are disabled, tables that compaction makes obsolete stay in the
/// directory; the last enable deletes them, and an enable without a disable does nothing.
#[test]
fn file_deletions_pause_until_the_last_enable() {
    let mem = MemFs::new();
    let fs = mem.shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts_no_auto_compactions()).expect("open");
    let tables = |fs: &Arc<dyn FileSystem>| {
        let mut t: Vec<String> = fs
            .list(Path::new(DIR))
            .expect("list")
            .into_iter()
            .filter(|n| n.ends_with(".sst"))
            .collect();
        t.sort();
        t
    };
    db.enable_file_deletions().expect("enable without a pause");
    // Two overlapping tables, so that compaction rewrites them (it moves a lone table).
    for _ in 0..2 {
        put_range(&db, 0..100);
        db.flush().expect("flush");
    }
    let flushed = tables(&fs);
    assert_eq!(flushed.len(), 2);
    db.disable_file_deletions().expect("disable");
    db.disable_file_deletions().expect("disable twice");
    db.compact_range(None, None).expect("compact");
    // A read moves this thread's cached view to the new version: the flushed tables are then
    // referenced by no version, obsolete.
    assert_eq!(scan(&db).len(), 100);
    assert!(
        flushed.iter().all(|t| tables(&fs).contains(t)),
        "obsolete tables kept while paused"
    );
    db.enable_file_deletions().expect("enable once");
    assert!(
        flushed.iter().all(|t| tables(&fs).contains(t)),
        "still paused"
    );
    db.enable_file_deletions().expect("enable twice");
    assert!(
        flushed.iter().all(|t| !tables(&fs).contains(t)),
        "deleted when the last pause ended: {:?}",
        tables(&fs)
    );
    assert_eq!(scan(&db).len(), 100);
    db.close().expect("close");
}
