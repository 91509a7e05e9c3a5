//! End-to-end tests of the `cairn` binary: bench output, sst dump and sst verify on real files.

use std::path::Path;
use std::process::{Command, Output};

fn cairn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .output()
        .expect("run cairn")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

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
    let out = cairn(&["bench", "--benchmarks=fillseq,multireadrandom", "--num=10"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("multireadrandom"), "{}", text(&out));
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
