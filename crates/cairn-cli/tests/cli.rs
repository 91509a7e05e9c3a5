//! End-to-end tests of the `cairn` binary: bench output on each engine, the key-value verbs, sst
//! dump and sst verify on real files.

mod cli_support;

use std::path::Path;
use std::process::Output;

use cli_support::{cairn, text};

/// Writes a table of 5,000 entries (`key000000`.. with 100-byte values) into `dir`.
fn build_table(dir: &Path) -> std::path::PathBuf {
    use cairndb::fs::{FileSystem, RealFs};
    use cairndb::sstable::{TableBuilder, TableOptions};
    use cairndb::types::{make_internal_key, ValueKind};
    let path = dir.join("000001.sst");
    let file = RealFs.create(&path).expect("create");
    let mut b = TableBuilder::new(file, &path, &TableOptions::default()).expect("builder");
    for i in 0..5000u64 {
        let key = make_internal_key(format!("key{i:06}").as_bytes(), i + 1, ValueKind::Put);
        b.add(&key, &[b'v'; 100]).expect("add");
    }
    b.finish().expect("finish");
    path
}

#[test]
fn bench_prints_db_bench_result_lines() {
    let out = cairn(&[
        "bench",
        "--benchmarks=fillseq,readrandom,readseq,readreverse,seekrandom,fillrandom,overwrite,flush,readrandom",
        "--num=2000",
        "--seed=1",
        "--histogram=1",
        "--compression_type=lz4",
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    for name in [
        "fillseq",
        "readrandom",
        "readseq",
        "readreverse",
        "seekrandom",
    ] {
        let line = t
            .lines()
            .find(|l| l.starts_with(&format!("{name:<12} :")))
            .unwrap_or_else(|| panic!("{name}: {t}"));
        assert!(
            line.contains("micros/op") && line.contains("ops/sec"),
            "{line}"
        );
    }
    assert!(
        t.contains("(2000 of 2000 found)"),
        "every key written is found: {t}"
    );
    assert!(t.contains("P99.9:"), "{t}");
}

#[test]
fn bench_rejects_unknown_flags_and_benchmarks_by_name() {
    let out = cairn(&["bench", "--no_such_flag=1"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("no_such_flag"), "{}", text(&out));
    let out = cairn(&["bench", "--benchmarks=fillseq,mixgraph", "--num=10"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("mixgraph"), "{}", text(&out));
    assert!(
        !text(&out).contains("fillseq      :"),
        "nothing runs before the names are checked: {}",
        text(&out)
    );
}

#[test]
fn sst_dump_shows_properties_index_and_entries() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sst = build_table(dir.path());
    let out = cairn(&["sst", "dump", sst.to_str().expect("path"), "--entries"]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("rocksdb.num.entries: 5000"), "{t}");
    assert!(t.contains("Index (separator key"), "{t}");
    assert_eq!(
        t.lines().filter(|l| l.contains(" kind:Put => ")).count(),
        5000,
        "every entry listed"
    );
}

#[test]
fn sst_verify_passes_then_names_the_corrupted_offset() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sst = build_table(dir.path());
    let path = sst.to_str().expect("path");
    let out = cairn(&["sst", "verify", path]);
    assert!(out.status.success(), "{}", text(&out));

    let mut bytes = std::fs::read(&sst).expect("read");
    bytes[10_000] ^= 0x10;
    std::fs::write(&sst, &bytes).expect("write");
    let out = cairn(&["sst", "verify", path]);
    let t = text(&out);
    assert!(!out.status.success(), "damage must fail verification: {t}");
    assert!(
        t.contains("CORRUPTION at offset") && t.contains("000001.sst"),
        "{t}"
    );
    // The reported offset is the start of the damaged block: at or before the flipped byte.
    let offset: u64 = t
        .split("CORRUPTION at offset ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .and_then(|n| n.trim().parse().ok())
        .expect("offset");
    assert!(
        offset <= 10_000 && 10_000 - offset < 8192,
        "offset {offset}"
    );
}

#[test]
fn bench_fill_refuses_to_wipe_a_directory_that_is_not_a_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let precious = dir.path().join("precious.txt");
    std::fs::write(&precious, b"keep me").expect("write");
    let db = format!("--db={}", dir.path().display());
    let out = cairn(&["bench", "--benchmarks=fillseq", "--num=10", &db]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("refusing"), "{}", text(&out));
    assert_eq!(std::fs::read(&precious).expect("still there"), b"keep me");
    // A database left by an earlier run is replaced by a fresh fill; --use_existing_db keeps it.
    let db_dir = dir.path().join("db");
    let db = format!("--db={}", db_dir.display());
    let out = cairn(&[
        "bench",
        "--benchmarks=fillseq",
        "--num=100",
        "--seed=3",
        &db,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let out = cairn(&[
        "bench",
        "--benchmarks=readrandom",
        "--num=100",
        "--seed=3",
        "--use_existing_db=1",
        &db,
    ]);
    assert!(text(&out).contains("(100 of 100 found)"), "{}", text(&out));
}

/// The result line of benchmark `name` (the first one, or the `nth` when a name repeats).
fn result_line(t: &str, name: &str, nth: usize) -> String {
    t.lines()
        .filter(|l| l.starts_with(&format!("{name:<12} :")))
        .nth(nth)
        .unwrap_or_else(|| panic!("no {name} line #{nth} in {t}"))
        .to_string()
}

/// What a result line says after its timing: bytes moved, found counts and notes, without the
/// MB/s rate (which depends on time).
#[cfg(feature = "rocksdb")]
fn counts(line: &str) -> String {
    let ops = line
        .split(" seconds ")
        .nth(1)
        .expect("db_bench result line");
    match ops.split_once("MB/s") {
        Some((before, after)) => {
            format!("{}{}", before.rsplit_once(';').expect("ops;").0, after)
        }
        None => ops.to_string(),
    }
}

#[cfg(feature = "rocksdb")]
const ENGINE_FLAGS: [&str; 7] = [
    "bench",
    "--benchmarks=filluniquerandom,readrandom,multireadrandom,deleterandom,readrandom,readseq,fillrandom,overwrite,seekrandom,deleteseq,readreverse",
    "--num=3000",
    "--reads=2000",
    "--deletes=1000",
    "--batch_size=7",
    "--seed=11",
];

#[test]
fn bench_runs_batches_multireads_unique_fills_and_deletes() {
    let out = cairn(&[
        "bench",
        "--benchmarks=filluniquerandom,readrandom,multireadrandom,deleterandom,readrandom,deleteseq,readseq",
        "--num=3000",
        "--reads=2000",
        "--deletes=1000",
        "--batch_size=7",
        "--seed=11",
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("Engine:     cairndb"), "{t}");
    // filluniquerandom writes each key at most once: 428 batches of 7 (db_bench stops when a
    // whole batch no longer fits), so 2996 of the 3000 keys; nearly every read finds a value.
    let l = result_line(&t, "filluniquerandom", 0);
    assert!(l.contains(" 2996 operations;"), "{l}");
    let l = result_line(&t, "multireadrandom", 0);
    assert!(l.contains(" 1995 operations;"), "285 calls of 7 keys: {l}");
    let found = |l: &str| -> u64 {
        l.rsplit_once('(')
            .and_then(|(_, r)| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("found count in {l}"))
    };
    let first = found(&result_line(&t, "readrandom", 0));
    assert!((1990..=2000).contains(&first), "{t}");
    assert!(found(&result_line(&t, "multireadrandom", 0)) >= 1985, "{t}");
    // deleterandom (142 batches of 7) removes keys, which the second readrandom misses; then
    // deleteseq removes keys 0..994, so at most 3000 - 994 entries remain for readseq.
    let l = result_line(&t, "deleterandom", 0);
    assert!(l.contains(" 994 operations;"), "{l}");
    assert!(found(&result_line(&t, "readrandom", 1)) < first, "{t}");
    let l = result_line(&t, "readseq", 0);
    let entries: u64 = l
        .split(" operations;")
        .next()
        .and_then(|p| p.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("operations");
    assert!(entries < 2006, "{l}");
}

#[cfg(not(feature = "rocksdb"))]
#[test]
fn bench_engine_rocksdb_needs_the_feature() {
    let out = cairn(&["bench", "--engine=rocksdb", "--num=10"]);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("--features rocksdb"),
        "says how to get RocksDB: {}",
        text(&out)
    );
    let out = cairn(&["bench", "--engine=leveldb", "--num=10"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("leveldb"), "{}", text(&out));
}

/// The same flags on both engines: the same operations and the same found counts.
#[cfg(feature = "rocksdb")]
#[test]
fn bench_engines_agree_on_every_count() {
    let mut lines = Vec::new();
    for engine in ["--engine=cairndb", "--engine=rocksdb"] {
        for batched in ["--multiread_batched=0", "--multiread_batched=1"] {
            let out = cairn(&[&ENGINE_FLAGS[..], &[engine, batched]].concat());
            let t = text(&out);
            assert!(out.status.success(), "{t}");
            let summary: Vec<String> = t
                .lines()
                .filter(|l| l.contains(" micros/op "))
                .map(|l| format!("{} {}", &l[..12], counts(l)))
                .collect();
            lines.push(summary);
        }
    }
    assert_eq!(lines[0].len(), 11);
    for other in &lines[1..] {
        assert_eq!(&lines[0], other);
    }
}

#[test]
fn bench_with_existing_db_skips_fills_and_reads_what_is_there() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = format!("--db={}", dir.path().join("db").display());
    let out = cairn(&[
        "bench",
        "--benchmarks=fillseq",
        "--num=500",
        "--seed=2",
        &db,
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let out = cairn(&[
        "bench",
        "--benchmarks=fillrandom,readseq",
        "--num=500",
        "--seed=2",
        "--use_existing_db",
        &db,
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(
        t.contains("fillrandom   : skipped (--use_existing_db is true)"),
        "{t}"
    );
    assert!(
        result_line(&t, "readseq", 0).contains(" 500 operations;"),
        "{t}"
    );
}

fn code(o: &Output) -> Option<i32> {
    o.status.code()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn kv_verbs_refuse_a_directory_without_a_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("nothing-here");
    let m = missing.to_str().expect("path");
    for args in [
        vec!["get", "--db", m, "k"],
        vec!["delete", "--db", m, "k"],
        vec!["scan", "--db", m],
    ] {
        let out = cairn(&args);
        assert_eq!(code(&out), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains("does not exist"), "{}", text(&out));
    }
    assert!(!missing.exists(), "nothing created");
    std::fs::write(dir.path().join("notes.txt"), b"not a database").expect("write");
    let d = dir.path().to_str().expect("path");
    let out = cairn(&["get", "--db", d, "k"]);
    assert_eq!(code(&out), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("holds no CairnDB database"),
        "{}",
        text(&out)
    );
}

#[test]
fn kv_put_get_delete_and_scan() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let db = path.to_str().expect("path");
    for (k, v) in [
        ("user:2", "Bob"),
        ("user:1", "Ada"),
        ("other:1", "x"),
        ("user:3", "Cy"),
    ] {
        let out = cairn(&["put", "--db", db, k, v]);
        assert!(out.status.success(), "{}", text(&out));
    }
    let out = cairn(&["get", "--db", db, "user:1"]);
    assert_eq!((code(&out), stdout(&out)), (Some(0), "Ada\n".to_string()));

    let out = cairn(&["get", "--db", db, "user:9"]);
    assert_eq!(code(&out), Some(1), "{}", text(&out));
    assert!(stdout(&out).is_empty());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not found"),
        "{}",
        text(&out)
    );

    let out = cairn(&["scan", "--db", db]);
    assert_eq!(
        stdout(&out),
        "other:1 => x\nuser:1 => Ada\nuser:2 => Bob\nuser:3 => Cy\n"
    );
    let out = cairn(&["scan", "--db", db, "--from", "user:", "--to", "user:3"]);
    assert_eq!(stdout(&out), "user:1 => Ada\nuser:2 => Bob\n");
    let out = cairn(&["scan", "--db", db, "--from", "user:2", "--limit", "1"]);
    assert_eq!(stdout(&out), "user:2 => Bob\n");
    let out = cairn(&["scan", "--db", db, "--from", "z", "--to", "a"]);
    assert_eq!(code(&out), Some(2), "{}", text(&out));

    let out = cairn(&["delete", "--db", db, "user:2"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(code(&cairn(&["get", "--db", db, "user:2"])), Some(1));
    let out = cairn(&["scan", "--db", db, "--from", "user:"]);
    assert_eq!(stdout(&out), "user:1 => Ada\nuser:3 => Cy\n");
}

#[test]
fn kv_hex_keys_and_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let db = path.to_str().expect("path");
    let out = cairn(&["put", "--db", db, "--hex", "00ff", "5c0a41"]);
    assert!(out.status.success(), "{}", text(&out));
    let out = cairn(&["get", "--db", db, "--hex", "00ff"]);
    assert_eq!(stdout(&out), "5c0a41\n");
    let out = cairn(&["scan", "--db", db, "--hex", "--from", "00", "--to", "01"]);
    assert_eq!(stdout(&out), "00ff => 5c0a41\n");
    // Without --hex, bytes a terminal cannot show are escaped.
    let out = cairn(&["scan", "--db", db]);
    assert_eq!(stdout(&out), "\\x00\\xff => \\\\\\x0aA\n");
    let out = cairn(&["put", "--db", db, "--hex", "0g", "00"]);
    assert_eq!(code(&out), Some(2));
    assert!(text(&out).contains("not hex"), "{}", text(&out));
}

#[test]
fn compact_and_stats_show_the_levels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let db_arg = db.to_str().expect("utf-8 path");
    for i in 0..20 {
        let key = format!("k{i:03}");
        assert!(cairn(&["put", "--db", db_arg, &key, "v"]).status.success());
    }
    let out = cairn(&["compact", "--db", db_arg]);
    assert!(out.status.success(), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("** Column family default **"), "{t}");
    // Everything was flushed and compacted out of L0 into the last level.
    assert!(!t.lines().any(|l| l.starts_with("L0 ")), "{t}");
    assert!(t.lines().any(|l| l.starts_with("L6 ")), "{t}");
    let out = cairn(&["stats", "--db", db_arg]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Pending compaction bytes"));
    let out = cairn(&["get", "--db", db_arg, "k007"]);
    assert_eq!(text(&out).trim(), "v");
    let missing = dir.path().join("nothing");
    let out = cairn(&["stats", "--db", missing.to_str().expect("utf-8")]);
    assert!(!out.status.success());
    assert!(text(&out).contains("no CairnDB database"), "{}", text(&out));
}

/// The MyRocks column-family string and database options (issue 14).
const MYROCKS: &str = "write_buffer_size=256m;target_file_size_base=32m;\
max_bytes_for_level_base=512m;max_write_buffer_number=4;level0_file_num_compaction_trigger=4;\
level0_slowdown_writes_trigger=20;level0_stop_writes_trigger=30;max_write_buffer_number=4;\
block_based_table_factory={cache_index_and_filter_blocks=1;filter_policy=bloomfilter:10:false;\
whole_key_filtering=0};level_compaction_dynamic_level_bytes=true;optimize_filters_for_hits=true;\
memtable_prefix_bloom_size_ratio=0.05;prefix_extractor=capped:12;\
compaction_pri=kMinOverlappingRatio;compression=kLZ4Compression;\
bottommost_compression=kLZ4Compression;compression_opts=-14:4:0;\
max_open_files=-1;max_background_jobs=8;max_total_wal_size=4G;\
bytes_per_sync=16777216;wal_bytes_per_sync=4194304;max_subcompactions=4;\
compaction_readahead_size=16m;table_cache_numshardbits=6;\
block_based_table_factory={block_size=16384}";

/// The values the MyRocks options leave in the OPTIONS file, as `cairn options` prints them.
const MYROCKS_VALUES: &[&str] = &[
    "write_buffer_size=268435456",
    "max_write_buffer_number=4",
    "level0_stop_writes_trigger=30",
    "compression_opts={level=4}",
    "prefix_extractor=rocksdb.CappedPrefix.12",
    "memtable_prefix_bloom_size_ratio=0.05",
    "optimize_filters_for_hits=true",
    "bytes_per_sync=16777216",
    "wal_bytes_per_sync=4194304",
    "max_subcompactions=4",
    "compaction_readahead_size=16777216",
    "table_cache_numshardbits=6",
    "max_background_jobs=8",
    "max_total_wal_size=4294967296",
    "block_size=16384",
    "cache_index_and_filter_blocks=true",
    "whole_key_filtering=false",
];

#[test]
fn bench_with_the_myrocks_options_string_and_then_options_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = dir.path().join("first");
    let out = cairn(&[
        "bench",
        "--benchmarks=fillseq,readrandom",
        "--num=300",
        "--seed=3",
        &format!("--db={}", first.display()),
        &format!("--options={MYROCKS}"),
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    assert!(t.contains("(300 of 300 found)"), "{t}");
    let out = cairn(&["options", &format!("--db={}", first.display())]);
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    for v in MYROCKS_VALUES {
        assert!(shown.contains(v), "cairn options shows {v}: {shown}");
    }
    // The OPTIONS file the first run left, given to a second run with --options_file.
    let file = std::fs::read_dir(&first)
        .expect("list")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("OPTIONS-"))
        })
        .max()
        .expect("an OPTIONS file");
    let second = dir.path().join("second");
    let out = cairn(&[
        "bench",
        "--benchmarks=fillseq,readseq",
        "--num=300",
        // A flag the file overrides, as in db_bench.
        "--write_buffer_size=1048576",
        &format!("--db={}", second.display()),
        &format!("--options_file={}", file.display()),
        "--options=max_background_jobs=3",
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let out = cairn(&["options", &format!("--db={}", second.display())]);
    let shown = text(&out);
    for v in MYROCKS_VALUES
        .iter()
        .filter(|v| !v.starts_with("max_background_jobs"))
    {
        assert!(shown.contains(v), "from the file: {v}: {shown}");
    }
    assert!(
        shown.contains("max_background_jobs=3"),
        "--options applies last: {shown}"
    );
}

#[test]
fn bench_options_errors_name_the_option() {
    let out = cairn(&[
        "bench",
        "--num=10",
        "--options=compression_opts=-14:4:0:16384",
    ]);
    assert!(!out.status.success());
    let t = text(&out);
    assert!(
        t.contains("--options") && t.contains("max_dict_bytes"),
        "{t}"
    );
    let out = cairn(&["bench", "--num=10", "--options_file=/nonexistent/OPTIONS-1"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("--options_file"), "{}", text(&out));
    let out = cairn(&["bench", "--help"]);
    let t = text(&out);
    assert!(
        t.contains("--options_file") && t.contains("CairnDB's addition"),
        "{t}"
    );
}

/// The number after `name:` in a result line's note (`( transactions:N aborts:M)`).
fn note_count(line: &str, name: &str) -> u64 {
    line.split(&format!("{name}:"))
        .nth(1)
        .and_then(|r| {
            r.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or_else(|| panic!("no {name}: in {line}"))
}

#[test]
fn bench_randomtransaction_runs_plain_pessimistic_and_optimistic_and_verifies() {
    let modes: [(&[&str], &str); 3] = [
        (&[], "( batches:300 )"),
        (&["--transaction_db"], "( transactions:300 aborts:0)"),
        (
            &["--optimistic_transaction_db"],
            "( transactions:300 aborts:0)",
        ),
    ];
    for (flags, note) in modes {
        let base = [
            "bench",
            "--benchmarks=fillrandom,randomtransaction,readrandom",
            "--num=50",
            "--writes=300",
            "--reads=100",
            "--seed=3",
            "--histogram=1",
        ];
        let out = cairn(&[&base[..], flags].concat());
        let t = text(&out);
        assert!(out.status.success(), "{flags:?}: {t}");
        let l = result_line(&t, "randomtransaction", 0);
        assert!(
            l.contains(" 300 operations;") && l.ends_with(note),
            "{flags:?}: {l}"
        );
        assert!(
            t.contains("Microseconds per op:"),
            "kOthers' histogram: {t}"
        );
        // The fill and the reads still run on the transaction database.
        assert!(
            result_line(&t, "readrandom", 0).ends_with("of 100 found)"),
            "{t}"
        );
        let verified = t.contains("\nRandomTransactionVerify Success.\n");
        assert_eq!(verified, !flags.is_empty(), "{flags:?}: {t}");
        assert!(!t.contains("FAILED"), "{t}");
        if !flags.is_empty() {
            assert!(
                t.contains("Transactions: "),
                "the header names the database: {t}"
            );
        }
    }
}

#[test]
fn bench_randomtransaction_on_threads_keeps_every_set_equal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let json = dir.path().join("r.json");
    let out = cairn(&[
        "bench",
        "--benchmarks=randomtransaction",
        "--transaction_db",
        "--transaction_set_snapshot",
        "--num=8",
        "--writes=500",
        "--threads=2",
        "--transaction_sets=3",
        "--transaction_lock_timeout=1",
        "--seed=5",
        &format!("--report_json={}", json.display()),
    ]);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let l = result_line(&t, "randomtransaction", 0);
    assert!(l.contains(" 1000 operations;"), "two threads of 500: {l}");
    assert_eq!(
        note_count(&l, "transactions"),
        500,
        "one thread's note: {l}"
    );
    assert!(note_count(&l, "aborts") <= 500, "{l}");
    assert!(t.contains("\nRandomTransactionVerify Success.\n"), "{t}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json")).expect("parse");
    assert_eq!(doc["steps"][0]["verified"], true, "{doc}");
    assert_eq!(doc["flags"]["transaction_db"], true, "{doc}");
}

#[test]
fn bench_randomtransaction_refuses_flags_it_cannot_honour() {
    let cases: [(&[&str], &str); 3] = [
        (
            &["--transaction_db", "--optimistic_transaction_db"],
            "cannot be combined",
        ),
        (&["--transaction_sleep=10"], "--transaction_sleep"),
        (&["--transaction_sets=0"], "--transaction_sets"),
    ];
    for (flags, want) in cases {
        let base = ["bench", "--benchmarks=randomtransaction", "--num=10"];
        let out = cairn(&[&base[..], flags].concat());
        let t = text(&out);
        assert!(!out.status.success(), "{flags:?} ran: {t}");
        assert!(t.contains(want), "{flags:?}: {t}");
        assert!(!t.contains("randomtransaction :"), "nothing ran: {t}");
    }
    // A transaction flag that has no effect on the database chosen is said so.
    let out = cairn(&[
        "bench",
        "--benchmarks=randomtransaction",
        "--num=10",
        "--optimistic_transaction_db",
        "--transaction_set_snapshot",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains("--transaction_set_snapshot applies to --transaction_db only"),
        "{}",
        text(&out)
    );
}

#[test]
fn bench_report_outputs_are_checked_before_anything_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("absent").join("r.json");
    let out = cairn(&[
        "bench",
        "--benchmarks=fillseq",
        "--num=100",
        &format!("--report_json={}", missing.display()),
    ]);
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(t.contains("does not exist"), "{t}");
    assert!(!t.contains("fillseq      :"), "nothing ran: {t}");
    // A --report_dir that does not exist yet is created, and its plots are written.
    let plots = dir.path().join("new").join("plots");
    let out = cairn(&[
        "bench",
        "--benchmarks=fillseq",
        "--num=100",
        &format!("--report_dir={}", plots.display()),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let names: Vec<String> = std::fs::read_dir(&plots)
        .expect("report dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|n| n.ends_with("fillseq-throughput.svg")),
        "{names:?}"
    );
}
