//! `cairn ldb` and `cairn sst_dump`: RocksDB's command lines and the output lines scripts parse.

use std::path::Path;
use std::process::{Command, Output};

fn cairn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .output()
        .expect("run cairn")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("utf-8")
}

fn ldb(db: &Path, args: &[&str]) -> Output {
    let flag = format!("--db={}", db.display());
    let mut all = vec!["ldb", flag.as_str()];
    all.extend_from_slice(args);
    cairn(&all)
}

#[test]
fn ldb_commands_print_what_ldb_prints() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    assert_eq!(
        stdout(&ldb(&db, &["--create_if_missing", "put", "apple", "red"])),
        "OK\n"
    );
    assert_eq!(
        stdout(&ldb(
            &db,
            &["batchput", "banana", "yellow", "cherry", "dark"]
        )),
        "OK\n"
    );
    assert_eq!(stdout(&ldb(&db, &["get", "apple"])), "red\n");
    assert_eq!(stdout(&ldb(&db, &["get", "nope"])), "Key not found\n");
    assert_eq!(
        stdout(&ldb(&db, &["scan"])),
        "apple ==> red\nbanana ==> yellow\ncherry ==> dark\n"
    );
    assert_eq!(
        stdout(&ldb(
            &db,
            &["scan", "--from=b", "--max_keys=1", "--no_value"]
        )),
        "banana\n"
    );
    assert_eq!(
        stdout(&ldb(&db, &["--hex", "get", "0x6170706C65"])),
        "0x726564\n"
    );
    assert_eq!(
        stdout(&ldb(&db, &["--key_hex", "scan", "--to=0x62"])),
        "0x6170706C65 ==> red\n"
    );
    assert_eq!(
        stdout(&ldb(&db, &["dump", "--to=c"])),
        "apple ==> red\nbanana ==> yellow\nKeys in range: 2\n"
    );
    assert_eq!(
        stdout(&ldb(&db, &["dump", "--count_only"])),
        "Keys in range: 3\n"
    );
    assert_eq!(stdout(&ldb(&db, &["delete", "apple"])), "OK\n");
    assert_eq!(stdout(&ldb(&db, &["deleterange", "b", "c"])), "OK\n");
    assert_eq!(stdout(&ldb(&db, &["scan"])), "cherry ==> dark\n");
    assert_eq!(
        stdout(&ldb(&db, &["list_column_families"])),
        format!("Column families in {}: \n{{default}}\n", db.display())
    );
    stdout(&ldb(&db, &["compact"]));
    let cp = dir.path().join("cp");
    let cp_flag = format!("--checkpoint_dir={}", cp.display());
    assert_eq!(stdout(&ldb(&db, &["checkpoint", &cp_flag])), "OK\n");
    assert_eq!(stdout(&ldb(&cp, &["get", "cherry"])), "dark\n");
    // Unknown commands and options are refused, naming them; errors exit 1 with "Failed: ".
    for bad in [&["idump"][..], &["scan", "--bogus=1"], &["get"]] {
        let out = ldb(&db, bad);
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("Failed: "));
    }
    assert_eq!(
        ldb(&dir.path().join("missing"), &["get", "k"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn sst_dump_scans_verifies_and_shows_properties() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    stdout(&ldb(
        &db,
        &["--create_if_missing", "batchput", "a", "1", "b", "2"],
    ));
    stdout(&ldb(&db, &["delete", "a"]));
    stdout(&ldb(&db, &["compact"]));
    let file = format!("--file={}", db.display());
    let scan = stdout(&cairn(&["sst_dump", &file, "--command=scan"]));
    let lines: Vec<&str> = scan.lines().collect();
    assert!(lines[0].starts_with("Process ") && lines[0].ends_with(".sst"));
    assert_eq!(
        lines[1..],
        [
            "Sst file format: block-based",
            "from [] to []",
            "'b' seq:2, type:1 => 2"
        ]
    );
    let hexed = stdout(&cairn(&[
        "sst_dump",
        &file,
        "--command=scan",
        "--output_hex",
    ]));
    assert!(hexed.ends_with("'62' seq:2, type:1 => 32\n"), "{hexed}");
    let verify = stdout(&cairn(&[
        "sst_dump",
        &file,
        "--command=verify",
        "--show_properties",
    ]));
    assert!(verify.contains("The file is ok\nTable Properties:\n------------------------------\n"));
    assert!(verify.contains("Raw user collected properties\n"));
    // A damaged table: verify reports it on stderr and exits non-zero.
    let sst = std::fs::read_dir(&db)
        .expect("list")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == "sst"))
        .expect("a table");
    let mut bytes = std::fs::read(&sst).expect("read");
    bytes[10] ^= 0xff;
    std::fs::write(&sst, bytes).expect("write");
    let out = cairn(&[
        "sst_dump",
        &format!("--file={}", sst.display()),
        "--command=verify",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is corrupted"));
    let out = cairn(&["sst_dump", &file, "--command=recompress"]);
    assert!(!out.status.success(), "an unprovided command is refused");
}

#[test]
fn the_readme_example_runs() {
    // The `ldb` block of the README's Tools section, each line run with this build's binary in
    // a fresh directory instead of /tmp/ldb-demo.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README");
    let block = readme
        .split("```sh")
        .find(|b| b.contains("ldb --db=/tmp/ldb-demo"))
        .and_then(|b| b.split("```").next())
        .expect("the README's ldb example");
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("ldb-demo");
    let mut outputs = Vec::new();
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let args: Vec<String> = line
            .strip_prefix("cargo run -q -p cairn-cli -- ")
            .expect("each line runs cairn")
            .replace("/tmp/ldb-demo", &db.to_string_lossy())
            .split_whitespace()
            .map(String::from)
            .collect();
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        outputs.push(stdout(&cairn(&refs)));
    }
    assert_eq!(outputs.len(), 4);
    assert_eq!(outputs[0], "OK\n");
    assert_eq!(outputs[1], "0x62616E616E61 ==> 0x79656C6C6F77\n");
    assert!(outputs[3].contains("'apple' seq:1, type:1 => red\n'banana' seq:2, type:1 => yellow\n"));
}

#[test]
fn non_ascii_hex_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    stdout(&ldb(&db, &["--create_if_missing", "put", "k", "v"]));
    let out = ldb(&db, &["--hex", "get", "0xaé1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("Failed: "));
}
