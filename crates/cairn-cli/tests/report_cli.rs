//! `cairn report`: several `cairn bench --report_json` runs merged into one page with charts
//! and the ratio table; bad input is refused with a message naming the file.

mod cli_support;

use cli_support::{cairn, text};

/// Runs a small fillrandom + readrandom into `json`.
fn bench_run(dir: &std::path::Path, json: &std::path::Path, seed: &str) {
    let out = cairn(&[
        "bench",
        "--benchmarks=fillrandom,readrandom",
        "--num=2000",
        &format!("--seed={seed}"),
        &format!("--db={}", dir.join("db").display()),
        &format!("--report_json={}", json.display()),
    ]);
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn report_merges_runs_into_charts_and_a_ratio_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut files = Vec::new();
    for (i, engine) in ["cairndb", "other", "cairndb", "other"].iter().enumerate() {
        let json = dir.path().join(format!("run{i}.json"));
        bench_run(dir.path(), &json, &format!("{}", i + 1));
        // The second engine is this same run relabelled: the page only needs two names.
        let doc = std::fs::read_to_string(&json).expect("read");
        let doc = doc.replacen(
            "\"engine\": \"cairndb",
            &format!("\"engine\": \"{engine}"),
            1,
        );
        std::fs::write(&json, doc).expect("write");
        files.push(json.display().to_string());
    }
    let out_dir = dir.path().join("report");
    let mut argv = vec!["report".to_string()];
    argv.extend(files);
    argv.push(format!("--out={}", out_dir.display()));
    let argv: Vec<&str> = argv.iter().map(String::as_str).collect();
    let out = cairn(&argv);
    assert!(out.status.success(), "{}", text(&out));
    let page = std::fs::read_to_string(out_dir.join("index.html")).expect("index.html");
    for label in ["cairndb #1", "other #1", "cairndb #2", "other #2"] {
        assert!(page.contains(label), "{label} missing");
    }
    assert!(
        page.contains("<h3>cairndb against other</h3>"),
        "ratio table"
    );
    // One row per step, each with two per-round ratios.
    for step in ["fillrandom", "readrandom"] {
        let row = page
            .lines()
            .find(|l| l.starts_with(&format!("<tr><td>{step}</td>")))
            .unwrap_or_else(|| panic!("no {step} row"));
        assert_eq!(row.matches("<td>").count(), 11, "{row}");
    }
    // Six charts per step, inlined and as files, none of them a drawing error.
    assert_eq!(page.matches("<svg").count(), 12);
    assert!(!page.contains("chart not drawn"));
    let svgs = std::fs::read_dir(&out_dir)
        .expect("dir")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "svg"))
        })
        .count();
    assert_eq!(svgs, 12);
}

#[test]
fn report_refuses_a_file_that_is_not_a_bench_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"hello\": 1}").expect("write");
    let out = cairn(&[
        "report",
        bad.to_str().expect("utf-8"),
        &format!("--out={}", dir.path().join("out").display()),
    ]);
    let t = text(&out);
    assert!(!out.status.success(), "{t}");
    assert!(
        t.contains("bad.json is not a `cairn bench --report_json` report"),
        "{t}"
    );
    let missing = dir.path().join("missing.json");
    let out = cairn(&[
        "report",
        missing.to_str().expect("utf-8"),
        "--out",
        dir.path().join("out").to_str().expect("utf-8"),
    ]);
    assert!(text(&out).contains("cannot read"), "{}", text(&out));
}
