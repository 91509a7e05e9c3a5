//! End-to-end tests of the admin verbs on real databases: stats (RocksDB's Compaction Stats
//! table and properties), lsm, options, checkpoint, manifest dump, wal dump, `--options` on the
//! verbs that open a database, and `--help` with an example on every verb.

mod cli_support;

use std::path::Path;

use cli_support::{cairn, fails, ok, text};

/// A database with 20 keys: 10 flushed and compacted into a table, 10 more in the WAL.
fn make_db(dir: &Path) -> String {
    let db = dir.join("db").to_str().expect("utf-8").to_string();
    for i in 0..10 {
        ok(&["put", "--db", &db, &format!("k{i:03}"), "v"]);
    }
    ok(&["compact", "--db", &db]);
    for i in 10..20 {
        ok(&["put", "--db", &db, &format!("k{i:03}"), "w"]);
    }
    db
}

#[test]
fn stats_print_the_compaction_table_and_properties() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = make_db(dir.path());
    let t = ok(&["stats", "--db", &db]);
    assert!(t.contains("** Compaction Stats [default] **"), "{t}");
    assert!(t.contains("Rnp1(GB) Write(GB)"), "{t}");
    assert!(t.contains("** DB Stats **"), "{t}");
    assert!(t.contains("Cumulative writes:"), "{t}");
    assert!(t.contains("Pending compaction bytes"), "{t}");
    // The 10 keys of the WAL were flushed at open: 20 keys in all.
    let n = ok(&[
        "stats",
        "--db",
        &db,
        "--property",
        "rocksdb.estimate-num-keys",
    ]);
    assert_eq!(n.trim(), "20");
    // Each `put` opened the database and flushed the previous one's WAL: one table per key,
    // moved to the last level by `compact`.
    let n = ok(&[
        "stats",
        "--db",
        &db,
        "--property",
        "cairndb.num-files-at-level6",
    ]);
    assert!(n.trim().parse::<u64>().expect("a number") >= 9, "{n}");
    fails(
        &["stats", "--db", &db, "--property", "rocksdb.nope"],
        "unknown property",
    );
}

#[test]
fn lsm_lists_files_with_key_ranges() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = make_db(dir.path());
    let t = ok(&["lsm", "--db", &db]);
    assert!(t.contains("** Column family default **"), "{t}");
    let l6 = t.lines().find(|l| l.starts_with("L6:")).expect("L6 line");
    assert!(l6.ends_with(" bytes"), "{t}");
    let file_line = t
        .lines()
        .find(|l| l.contains("['k000' @ "))
        .expect("the table holding k000");
    assert!(
        file_line.trim_start().starts_with('0') && file_line.contains(".sst"),
        "{t}"
    );
    assert!(file_line.contains(": Put]"), "{t}");
    assert!(t.lines().any(|l| l.starts_with("L0: ")), "{t}");
}

#[test]
fn options_prints_the_options_file_that_parses_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let d = db.to_str().unwrap();
    ok(&[
        "put",
        "--db",
        d,
        "--options",
        "write_buffer_size=1m;num_levels=5",
        "k",
        "v",
    ]);
    let t = ok(&["options", "--db", d]);
    assert!(t.contains("[DBOptions]"), "{t}");
    assert!(t.contains("[CFOptions \"default\"]"), "{t}");
    assert!(t.contains("  write_buffer_size=1048576"), "{t}");
    assert!(t.contains("  num_levels=5"), "{t}");
    assert!(
        t.contains("[TableOptions/BlockBasedTable \"default\"]"),
        "{t}"
    );
    let body: String = t.lines().skip(1).map(|l| format!("{l}\n")).collect();
    let (file, _) =
        cairndb::options::OptionsFile::parse(&body, &Default::default()).expect("parses back");
    assert_eq!(file.family("default").unwrap().write_buffer_size, 1 << 20);
    fails(
        &["options", "--db", dir.path().to_str().unwrap()],
        "no CairnDB database",
    );
}

#[test]
fn checkpoint_copies_a_database_that_opens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = make_db(dir.path());
    let cp = dir.path().join("cp");
    let c = cp.to_str().unwrap();
    let t = ok(&["checkpoint", "--db", &db, c]);
    assert!(t.contains("tables linked"), "{t}");
    ok(&["put", "--db", &db, "after", "x"]);
    let scan = ok(&["scan", "--db", c]);
    assert_eq!(scan.lines().count(), 20, "{scan}");
    assert!(!scan.contains("after"));
    fails(&["checkpoint", "--db", &db, c], "already exists");
}

#[test]
fn manifest_and_wal_dumps_show_the_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = make_db(dir.path());
    let t = ok(&["manifest", "dump", &db]);
    assert!(
        t.contains("add column family \"default\"") || t.contains("cf 0"),
        "{t}"
    );
    assert!(t.contains("add L6 "), "{t}");
    assert!(t.lines().last().unwrap().ends_with(" edits"), "{t}");
    // A WAL written by puts after the last open: find the newest .log file.
    let mut logs: Vec<_> = std::fs::read_dir(&db)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    // Each `put` opens the database, which flushes what the previous one left in its WAL, so
    // the newest WAL holds the last put only.
    let wal = logs.last().expect("a WAL").to_str().unwrap().to_string();
    let t = ok(&["wal", "dump", &wal, "--values"]);
    assert!(t.contains("cf 0 Put 'k019' => 'w'"), "{t}");
    // The put's record and the seal close wrote (an empty batch, docs/format/wal.md).
    assert!(t.contains("2 records, 1 entries"), "{t}");
    fails(
        &["wal", "dump", &format!("{db}/CURRENT")],
        "not named as a Log file",
    );
    fails(&["manifest", "dump", &wal], "not named as a Manifest file");
    // Damage in the middle of a WAL fails the dump after naming its offset.
    let mut bytes = std::fs::read(&wal).unwrap();
    bytes[10] ^= 0xff;
    std::fs::write(&wal, &bytes).unwrap();
    let out = cairn(&["wal", "dump", &wal]);
    assert!(text(&out).contains("at offset 0"), "{}", text(&out));
}

#[test]
fn every_verb_that_opens_a_database_takes_options() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = make_db(dir.path());
    let good =
        "write_buffer_size=256m;block_based_table_factory={filter_policy=bloomfilter:10:false}";
    let cp = dir.path().join("cp2");
    let verbs: Vec<Vec<&str>> = vec![
        vec!["get", "--db", &db, "k001"],
        vec!["put", "--db", &db, "x", "y"],
        vec!["delete", "--db", &db, "x"],
        vec!["scan", "--db", &db, "--limit", "1"],
        vec!["stats", "--db", &db],
        vec!["lsm", "--db", &db],
        vec!["compact", "--db", &db],
        vec!["checkpoint", "--db", &db, cp.to_str().unwrap()],
    ];
    for v in &verbs {
        let mut args = v.clone();
        args.extend(["--options", good]);
        ok(&args);
    }
    for v in &verbs[..7] {
        let mut args = v.clone();
        args.extend(["--options", "write_buffer_size=lots"]);
        fails(&args, "--options: option write_buffer_size");
        let mut args = v.clone();
        args.extend(["--options", "no_such_option=1"]);
        fails(&args, "no_such_option");
        let mut args = v.clone();
        args.extend(["--options", "no_such_option=1", "--ignore-unknown-options"]);
        let out = cairn(&args);
        assert!(out.status.success(), "{args:?}: {}", text(&out));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("warning: option no_such_option ignored"),
            "{}",
            text(&out)
        );
    }
}

#[test]
fn every_verb_has_help_with_an_example() {
    for verb in [
        vec!["get"],
        vec!["put"],
        vec!["delete"],
        vec!["scan"],
        vec!["stats"],
        vec!["lsm"],
        vec!["compact"],
        vec!["checkpoint"],
        vec!["options"],
        vec!["manifest", "dump"],
        vec!["wal", "dump"],
        vec!["sst", "dump"],
        vec!["sst", "verify"],
    ] {
        let mut args = verb.clone();
        args.push("--help");
        let t = ok(&args);
        assert!(t.contains("Example: cairn "), "{verb:?}: {t}");
    }
}
