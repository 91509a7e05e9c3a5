//! Dynamic options (`Db::set_options`, `Db::set_db_options`): each option takes effect for the
//! next decision, immutable and unknown names are rejected without partial change, the OPTIONS
//! file and the LOG record the change, and writes keep going while options change.

mod common;

use std::path::Path;
use std::sync::Arc;

use cairndb::fs::{read_all, FileSystem, MemFs};
use cairndb::options::{
    CompactionStyle, Options, OptionsFile, ParseConfig, RateLimiter, WriteOptions,
};
use cairndb::{Db, Error};
use common::{count, DIR};

/// Not [`common::opts_no_auto_compactions`]: a 1 MiB write buffer, so that the tests that shrink
/// it at run time (to 64 KiB) see the change.
fn opts() -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.write_buffer_size = 1 << 20;
    o.cf.disable_auto_compactions = true;
    o
}

fn put_range(db: &Db, range: std::ops::Range<u32>, value_len: usize) {
    let w = WriteOptions::default();
    let value = vec![b'v'; value_len];
    for i in range {
        db.put(&w, format!("key{i:08}").as_bytes(), &value)
            .expect("put");
    }
}

fn l0_files(db: &Db) -> u64 {
    db.property_int("rocksdb.num-files-at-level0")
        .expect("property")
}

fn newest_options(fs: &dyn FileSystem) -> OptionsFile {
    let path = OptionsFile::latest(fs, Path::new(DIR))
        .expect("list")
        .expect("an OPTIONS file");
    OptionsFile::load(fs, &path, &ParseConfig::default())
        .expect("parse")
        .0
}

fn log_text(fs: &dyn FileSystem) -> String {
    String::from_utf8(read_all(fs, &Path::new(DIR).join("LOG")).expect("LOG")).expect("utf8")
}

#[test]
fn shrinking_write_buffer_size_makes_more_flushes() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    // 200 KiB fits the 1 MiB memtable: no flush.
    put_range(&db, 0..200, 1000);
    db.wait_for_compactions().expect("wait");
    assert_eq!(l0_files(&db), 0);
    db.set_options_default(&[("write_buffer_size", "64k")])
        .expect("set");
    assert_eq!(
        db.default_column_family().options().write_buffer_size,
        64 << 10
    );
    put_range(&db, 200..600, 1000);
    db.wait_for_compactions().expect("wait");
    assert!(l0_files(&db) >= 3, "{} L0 files", l0_files(&db));
}

#[test]
fn disable_auto_compactions_stops_and_restarts_compactions() {
    let fs = MemFs::new().shared();
    let mut o = opts();
    o.cf.write_buffer_size = 64 << 10;
    o.cf.level0_file_num_compaction_trigger = 2;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o).expect("open");
    for round in 0..4 {
        put_range(&db, round * 100..round * 100 + 100, 1000);
        db.flush().expect("flush");
    }
    db.wait_for_compactions().expect("wait");
    let before = l0_files(&db);
    assert!(before >= 4, "compactions are off: {before} L0 files");
    db.set_options_default(&[("disable_auto_compactions", "false")])
        .expect("set");
    db.wait_for_compactions().expect("wait");
    assert!(l0_files(&db) < 2, "{} L0 files", l0_files(&db));
    db.set_options_default(&[("disable_auto_compactions", "1")])
        .expect("set");
    for round in 4..8 {
        put_range(&db, round * 100..round * 100 + 100, 1000);
        db.flush().expect("flush");
    }
    db.wait_for_compactions().expect("wait");
    assert!(l0_files(&db) >= 4, "{} L0 files", l0_files(&db));
}

#[test]
fn raising_the_l0_trigger_changes_picking() {
    let fs = MemFs::new().shared();
    let mut o = opts();
    o.cf.level0_file_num_compaction_trigger = 2;
    o.cf.disable_auto_compactions = false;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o).expect("open");
    db.set_options_default(&[("level0_file_num_compaction_trigger", "10")])
        .expect("set");
    // Overlapping files (the same keys each round), so a compaction must merge them.
    for _ in 0..4 {
        put_range(&db, 0..100, 100);
        db.flush().expect("flush");
    }
    db.wait_for_compactions().expect("wait");
    assert_eq!(l0_files(&db), 4, "a trigger of 10 leaves 4 L0 files");
    db.set_options_default(&[("level0_file_num_compaction_trigger", "4")])
        .expect("set");
    db.wait_for_compactions().expect("wait");
    let levels = db.property("rocksdb.levelstats").unwrap_or_default();
    assert_eq!(l0_files(&db), 0, "a trigger of 4 compacts them: {levels}");
}

#[test]
fn immutable_and_unknown_names_are_rejected_and_change_nothing() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    let before = newest_options(&*fs);
    let cf = db.default_column_family();
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[("write_buffer_size", "4m"), ("num_levels", "3")],
            "num_levels",
        ),
        (
            &[("write_buffer_size", "4m"), ("no_such_option", "1")],
            "no_such_option",
        ),
        (
            &[
                ("write_buffer_size", "4m"),
                ("max_write_buffer_number", "x"),
            ],
            "max_write_buffer_number",
        ),
        (
            &[
                ("write_buffer_size", "4m"),
                ("level0_file_num_compaction_trigger", "0"),
            ],
            "level0",
        ),
    ];
    for (pairs, named) in cases {
        match db.set_options(&cf, pairs) {
            Err(Error::InvalidArgument(m)) => assert!(m.contains(named), "{m}"),
            other => panic!("{pairs:?}: {other:?}"),
        }
        assert_eq!(cf.options().write_buffer_size, 1 << 20, "nothing changed");
    }
    match db.set_options(&cf, &[("num_levels", "3")]) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("not a mutable option"), "{m}"),
        other => panic!("{other:?}"),
    }
    match db.set_db_options(&[("delayed_write_rate", "1m"), ("max_open_files", "10")]) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("max_open_files"), "{m}"),
        other => panic!("{other:?}"),
    }
    match db.set_db_options(&[("rate_limiter_bytes_per_sec", "1000")]) {
        Err(Error::InvalidArgument(m)) => assert!(m.contains("no rate limiter"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        newest_options(&*fs).render(),
        before.render(),
        "no new OPTIONS file content"
    );
    assert_eq!(
        db.options_file().db.delayed_write_rate,
        before.db.delayed_write_rate
    );
}

#[test]
fn options_file_and_log_record_a_change_and_it_survives_reopen_from_the_file() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts()).expect("open");
    db.set_options_default(&[
        ("write_buffer_size", "2m"),
        ("max_bytes_for_level_base", "32m"),
        ("target_file_size_base", "8m"),
        ("compression", "kZSTD"),
        ("compression_opts", "{level=5}"),
        ("ttl", "3600"),
        ("periodic_compaction_seconds", "7200"),
        ("soft_pending_compaction_bytes_limit", "1g"),
        ("hard_pending_compaction_bytes_limit", "2g"),
    ])
    .expect("set");
    db.set_db_options(&[("delayed_write_rate", "4m"), ("stats_dump_period_sec", "0")])
        .expect("set db");
    let file = newest_options(&*fs);
    let cf = file.family("default").expect("default");
    assert_eq!(cf.write_buffer_size, 2 << 20);
    assert_eq!(cf.max_bytes_for_level_base, 32 << 20);
    assert_eq!(cf.target_file_size_base, 8 << 20);
    assert_eq!(cf.table.zstd_level, 5);
    assert_eq!((cf.ttl, cf.periodic_compaction_seconds), (3600, 7200));
    assert_eq!(cf.hard_pending_compaction_bytes_limit, 2 << 30);
    assert_eq!(file.db.delayed_write_rate, 4 << 20);
    assert_eq!(file.db.stats_dump_period_sec, 0);
    assert_eq!(
        file.render(),
        db.options_file().render(),
        "the file holds the options in force"
    );
    let log = log_text(&*fs);
    assert!(
        log.contains("SetOptions() on column family [default]: write_buffer_size=2m"),
        "{log}"
    );
    assert!(
        log.contains("SetDBOptions(): delayed_write_rate=4m"),
        "{log}"
    );
    // Reopening with the file's options gives the changed options.
    db.close().expect("close");
    let mut o = file.to_options();
    o.db.create_if_missing = false;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o).expect("reopen");
    assert_eq!(
        db.default_column_family().options().write_buffer_size,
        2 << 20
    );
}

#[test]
fn the_rate_limiter_rate_changes() {
    let fs = MemFs::new().shared();
    let mut o = opts();
    let limiter = Arc::new(RateLimiter::with_rate(1 << 20).expect("limiter"));
    o.db.rate_limiter = Some(Arc::clone(&limiter));
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o).expect("open");
    db.set_db_options(&[("rate_limiter_bytes_per_sec", "8m")])
        .expect("set");
    assert_eq!(limiter.bytes_per_second(), 8 << 20);
}

#[test]
fn lowering_the_stop_trigger_stalls_writes_and_logs_it() {
    let fs = MemFs::new().shared();
    let mut o = opts();
    // FIFO compaction under its size limit never compacts, so L0 files stay while automatic
    // compactions are on (with them off, L0 files do not stall writes: RocksDB's rule).
    o.cf.compaction_style = CompactionStyle::Fifo;
    o.cf.disable_auto_compactions = false;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o).expect("open");
    for round in 0..3 {
        put_range(&db, round * 100..round * 100 + 100, 100);
        db.flush().expect("flush");
    }
    assert_eq!(l0_files(&db), 3);
    let w = WriteOptions {
        no_slowdown: true,
        ..WriteOptions::default()
    };
    db.put(&w, b"k", b"v").expect("no stall yet");
    db.set_options_default(&[
        ("level0_file_num_compaction_trigger", "1"),
        ("level0_slowdown_writes_trigger", "1"),
        ("level0_stop_writes_trigger", "2"),
    ])
    .expect("set");
    assert!(matches!(db.put(&w, b"k", b"v"), Err(Error::Busy(_))));
    let log = log_text(&*fs);
    assert!(
        log.contains("[default] Stopping writes because we have 3 level-0 files"),
        "{log}"
    );
    db.set_options_default(&[
        ("level0_stop_writes_trigger", "36"),
        ("level0_slowdown_writes_trigger", "20"),
    ])
    .expect("set");
    db.put(&w, b"k", b"v").expect("the stall is lifted");
    assert!(log_text(&*fs).contains("Write stall cleared"));
}

#[test]
fn concurrent_writes_while_options_change() {
    for _ in 0..20 {
        let fs = MemFs::new().shared();
        let mut o = opts();
        o.cf.write_buffer_size = 64 << 10;
        o.cf.disable_auto_compactions = false;
        let db = Arc::new(Db::open_with_fs(Arc::clone(&fs), DIR, o).expect("open"));
        let writers: Vec<_> = (0..2u32)
            .map(|t| {
                let db = Arc::clone(&db);
                std::thread::spawn(move || {
                    put_range(&db, t * 10_000..t * 10_000 + 1500, 200);
                })
            })
            .collect();
        let sizes = ["64k", "256k", "128k", "64k"];
        for i in 0..12 {
            db.set_options_default(&[
                ("write_buffer_size", sizes[i % sizes.len()]),
                (
                    "level0_file_num_compaction_trigger",
                    if i % 2 == 0 { "2" } else { "6" },
                ),
                ("target_file_size_base", "64k"),
            ])
            .expect("set");
            db.set_db_options(&[("delayed_write_rate", if i % 2 == 0 { "1m" } else { "64m" })])
                .expect("set db");
        }
        for w in writers {
            w.join().expect("writer");
        }
        db.wait_for_compactions().expect("wait");
        for t in 0..2u32 {
            for i in [t * 10_000, t * 10_000 + 1499] {
                let k = format!("key{i:08}");
                assert!(db
                    .get(&Default::default(), k.as_bytes())
                    .expect("get")
                    .is_some());
            }
        }
        assert_eq!(count(&db, &Default::default()), 3000);
        db.close().expect("close");
    }
}

/// Setting nothing is an error, as in RocksDB, for family and database options alike.
#[test]
fn an_empty_change_is_refused() {
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, opts()).expect("open");
    let cf = db.default_column_family();
    assert!(matches!(
        db.set_options(&cf, &[]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        db.set_db_options(&[]),
        Err(Error::InvalidArgument(_))
    ));
    db.set_options(&cf, &[("disable_auto_compactions", "true")])
        .expect("a change");
}
