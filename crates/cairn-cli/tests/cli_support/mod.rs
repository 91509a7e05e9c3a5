//! Helpers shared by the end-to-end tests of the `cairn` binary (`cli.rs`, `admin_verbs.rs`):
//! run it, read what it printed, and assert success or a failure naming the reason.

// Each test file compiles this module on its own and uses part of it.
#![allow(dead_code)]

use std::process::{Command, Output};

/// Runs the `cairn` binary built for these tests with `args`.
pub fn cairn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .output()
        .expect("run cairn")
}

/// Standard output followed by standard error, lossily decoded.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs `cairn` with `args`, asserts it succeeded and returns its standard output.
pub fn ok(args: &[&str]) -> String {
    let out = cairn(args);
    assert!(out.status.success(), "{args:?}: {}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `cairn` with `args` and asserts it failed with output containing `want`.
pub fn fails(args: &[&str], want: &str) {
    let out = cairn(args);
    assert!(!out.status.success(), "{args:?} succeeded: {}", text(&out));
    assert!(text(&out).contains(want), "{args:?}: {}", text(&out));
}
