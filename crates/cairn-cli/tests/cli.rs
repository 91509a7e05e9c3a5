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

/// Runs a small fillseq into `dir` and returns the path of the table it wrote.
fn build_table(dir: &Path) -> std::path::PathBuf {
    let db = dir.to_str().expect("utf-8 path");
    let out = cairn(&[
        "bench",
        "--benchmarks=fillseq",
        "--num=5000",
        "--seed=7",
        &format!("--db={db}"),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    dir.join("000001.sst")
}

#[test]
fn bench_prints_db_bench_result_lines() {
    let out = cairn(&[
        "bench",
        "--benchmarks=fillseq,readrandom,readseq,readreverse,seekrandom",
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
    let out = cairn(&["bench", "--benchmarks=fillseq,overwrite", "--num=10"]);
    assert!(!out.status.success());
    assert!(text(&out).contains("overwrite"), "{}", text(&out));
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
