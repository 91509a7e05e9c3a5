//! `cairn verify --db DIR`: exit 0 on a clean database; on a flipped byte, a non-zero exit
//! naming the damaged file and the offset.

use std::process::Command;

fn cairn() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cairn"))
}

#[test]
fn verify_passes_a_clean_database_and_names_the_damage() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    let out = cairn()
        .arg("stress")
        .arg("--db")
        .arg(&db)
        .args(["--threads", "2", "--keys", "2000", "--ops", "2000"])
        .args([
            "--write-buffer-size",
            "65536",
            "--flush-every",
            "400",
            "--compact-every",
            "0",
        ])
        .output()
        .expect("run stress");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let ok = cairn()
        .arg("verify")
        .arg("--db")
        .arg(&db)
        .output()
        .expect("verify");
    let text = String::from_utf8_lossy(&ok.stdout);
    assert!(
        ok.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert!(text.contains("no corruption"), "{text}");

    let sst = std::fs::read_dir(&db)
        .expect("list")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "sst"))
        .expect("a table");
    let mut bytes = std::fs::read(&sst).expect("read");
    bytes[200] ^= 0x04;
    std::fs::write(&sst, bytes).expect("write");
    let bad = cairn()
        .arg("verify")
        .arg("--db")
        .arg(&db)
        .output()
        .expect("verify");
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success(), "damage found");
    assert!(err.contains(&sst.display().to_string()), "{err}");
    assert!(err.contains("offset"), "{err}");
}

#[test]
fn verify_of_a_missing_database_fails_clearly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = cairn()
        .arg("verify")
        .arg("--db")
        .arg(dir.path().join("none"))
        .output()
        .expect("verify");
    assert!(!out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
}
