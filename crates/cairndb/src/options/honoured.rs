//! A check that every option field is read by the engine: a field that only `options/` touches
//! (parsed, validated, printed to the OPTIONS file) is an option accepted and ignored, which is a
//! defect however harmless it looks.
//!
//! The check is textual: the field names come from the `Debug` output of each options struct
//! (so a new field is covered without anyone listing it), and each must appear as a field access
//! (`.name` not followed by `(`) in a source file of the crate outside `src/options/` and outside
//! test files, or be read by an accessor method in `options/` (such as
//! `DbOptions::table_cache_capacity` for `max_open_files`) that the engine calls outside
//! `options/`. Parsing, printing and validation do not count as reads. It cannot prove an option
//! takes effect (the tests of each option do that); it catches the option nothing reads.

#![cfg(test)]

use std::path::{Path, PathBuf};

use super::{CfOptions, DbOptions, ReadOptions, WriteOptions};
use crate::sstable::TableOptions;

/// Field names in a `Debug` rendering (`name: value`), nested structs included.
fn field_names(debug: &str) -> Vec<String> {
    let bytes = debug.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_lowercase() && (i == 0 || !is_ident(bytes[i - 1])) {
            let start = i;
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            if debug[i..].starts_with(": ") {
                names.push(debug[start..i].to_string());
            }
        } else {
            i += 1;
        }
    }
    names.sort();
    names.dedup();
    names
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Every `.rs` file under `dir`, skipping `options/` and test files.
fn engine_sources(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "options" {
                engine_sources(&path, out);
            }
        } else if name.ends_with(".rs") && !name.contains("tests") && !name.contains("test_") {
            let text = std::fs::read_to_string(&path).expect("read source");
            out.push((path, text));
        }
    }
}

/// True when `text` reads field `name`: `.name` followed by neither an identifier character
/// nor `(` (a method call of the same name is not a read of the field).
fn reads_field(text: &str, name: &str) -> bool {
    let needle = format!(".{name}");
    text.match_indices(&needle).any(|(at, _)| {
        let next = text.as_bytes().get(at + needle.len()).copied();
        !matches!(next, Some(b) if is_ident(b) || b == b'(')
    })
}

/// The accessor methods of `options/` (not parsing, printing or validation), each with its body:
/// every `fn` of those files up to the next `fn`.
fn option_accessors(options_dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for file in ["db.rs", "cf.rs", "read_write.rs", "mod.rs"] {
        let text = std::fs::read_to_string(options_dir.join(file)).expect("read options source");
        for chunk in text.split("fn ").skip(1) {
            let name: String = chunk
                .bytes()
                .take_while(|b| is_ident(*b))
                .map(char::from)
                .collect();
            let not_a_read = name.starts_with("validate")
                || name.starts_with("check")
                || name.contains("string")
                || name == "fmt"
                || name == "default";
            if !name.is_empty() && !not_a_read {
                out.push((name, chunk.to_string()));
            }
        }
    }
    out
}

#[test]
fn every_option_field_is_read_outside_options() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut sources = Vec::new();
    engine_sources(&src, &mut sources);
    assert!(sources.len() > 50, "found {} source files", sources.len());
    // Accessors of options/ that the engine calls.
    let used_accessors: Vec<(String, String)> = option_accessors(&src.join("options"))
        .into_iter()
        .filter(|(name, _)| {
            let call = format!(".{name}(");
            sources.iter().any(|(_, text)| text.contains(&call))
        })
        .collect();
    let structs = [
        ("DbOptions", format!("{:?}", DbOptions::default())),
        ("CfOptions", format!("{:?}", CfOptions::default())),
        ("TableOptions", format!("{:?}", TableOptions::default())),
        ("ReadOptions", format!("{:?}", ReadOptions::default())),
        ("WriteOptions", format!("{:?}", WriteOptions::default())),
    ];
    let mut unread = Vec::new();
    let mut checked = 0;
    for (owner, debug) in &structs {
        for name in field_names(debug) {
            checked += 1;
            let read_outside = sources.iter().any(|(_, text)| reads_field(text, &name));
            let read_by_accessor = used_accessors
                .iter()
                .any(|(_, body)| reads_field(body, &name));
            if !read_outside && !read_by_accessor {
                unread.push(format!("{owner}.{name}"));
            }
        }
    }
    assert!(checked > 80, "only {checked} option fields found");
    assert!(
        unread.is_empty(),
        "option fields that nothing outside options/ reads (accepted and ignored): {unread:?}"
    );
}

#[test]
fn the_check_sees_fields_and_their_reads() {
    assert_eq!(
        field_names("A { alpha: 1, beta: B { gamma_2: None, alpha: 2 } }"),
        ["alpha", "beta", "gamma_2"]
    );
    assert!(reads_field("if o.paranoid_checks {", "paranoid_checks"));
    assert!(!reads_field("o.paranoid_checks_extra", "paranoid_checks"));
    assert!(!reads_field("t.verify_checksums()", "verify_checksums"));
}
