//! Tests of the reliability suites' harness (`common::reliability`): a `RELIABILITY` line whose
//! checks name unknown fields, miss a floor or count a violation must fail the suite. They live
//! in their own test crate so that they run once, not in every test crate that includes
//! `common`.

mod common;

use common::reliability::{Suite, Volume};

#[test]
#[should_panic(expected = "is not one of the fields")]
fn an_unknown_must_be_zero_name_panics() {
    let s = Suite::new("harness", Volume::Smoke, 1);
    s.finish(
        1,
        &[("lost", 0), ("checks", 5)],
        &["lsot"],
        &[("checks", 1)],
    );
}

#[test]
#[should_panic(expected = "is not one of the fields")]
fn an_unknown_floor_name_panics() {
    let s = Suite::new("harness", Volume::Smoke, 1);
    s.finish(
        1,
        &[("lost", 0), ("checks", 5)],
        &["lost"],
        &[("chekcs", 1)],
    );
}

#[test]
#[should_panic(expected = "below its floor")]
fn a_floor_not_reached_fails() {
    let s = Suite::new("harness", Volume::Smoke, 1);
    s.finish(
        1,
        &[("lost", 0), ("checks", 5)],
        &["lost"],
        &[("checks", 6)],
    );
}

#[test]
#[should_panic(expected = "must be 0")]
fn a_nonzero_violation_fails() {
    let s = Suite::new("harness", Volume::Smoke, 1);
    s.finish(
        1,
        &[("lost", 1), ("checks", 5)],
        &["lost"],
        &[("checks", 1)],
    );
}

#[test]
fn floors_reached_pass() {
    let s = Suite::new("harness", Volume::Smoke, 1);
    s.finish(
        1,
        &[("lost", 0), ("checks", 5)],
        &["lost"],
        &[("checks", 5)],
    );
}
