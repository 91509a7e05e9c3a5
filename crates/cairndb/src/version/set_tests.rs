//! Tests of the version set: round trips through recovery (with MANIFEST rolls), crashes at every
//! mutating file-system operation of a scripted workload, injected I/O errors, damaged
//! MANIFESTs, and live/obsolete file decisions.

use crate::comparator::KeyOrder;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::filenames::{log_file_name, manifest_file_name, table_file_name};
use super::*;
use crate::error::{Error, Result};
use crate::fs::{CrashOptions, FaultFs, FaultKind, FaultRule, FileSystem, MemFs, OpKind};
use crate::test_util::file_meta;
use crate::types::{make_internal_key, user_key, ValueKind};
use crate::util::coding::{put_length_prefixed, put_varint32};

const DIR: &str = "/db";

fn dir() -> &'static Path {
    Path::new(DIR)
}

fn opts(max_manifest_file_size: u64) -> VersionSetOptions {
    VersionSetOptions {
        max_manifest_file_size,
        // Rolls soon after the size limit, so the workloads roll several times.
        max_manifest_space_amp_pct: 100,
        ..VersionSetOptions::default()
    }
}

fn meta(number: u64, lo: &[u8], hi: &[u8], seqs: (u64, u64)) -> FileMetaData {
    FileMetaData {
        creation_time: Some(number * 3),
        ..file_meta(number, lo, hi, 1000 + number, seqs)
    }
}

fn check_all(set: &VersionSet) {
    for cf in set.column_families() {
        let v = set.current(cf.id).expect("live family has a version");
        v.check_invariants().expect("invariants");
    }
}

/// A flush of column family `cf`: one new L0 file, a new log number and last sequence.
fn flush_edit(set: &mut VersionSet, i: u64) -> (VersionEdit, PendingOutput) {
    let out = set.new_pending_output();
    let seq = set.last_sequence();
    let lo = format!("k{:03}", i * 7 % 100);
    let hi = format!("k{:03}", i * 7 % 100 + 20);
    let mut e = VersionEdit::default();
    e.add_file(
        0,
        meta(
            out.number(),
            lo.as_bytes(),
            hi.as_bytes(),
            (seq + 1, seq + 10),
        ),
    );
    e.log_number = Some(out.number());
    e.last_sequence = Some(seq + 10);
    (e, out)
}

fn flush(set: &mut VersionSet, cf: u32, i: u64) -> Result<()> {
    let (e, _guard) = flush_edit(set, i);
    set.log_and_apply(vec![(cf, e)])
}

/// A compaction of family `cf`: L0 and L1 into one L1 file, or (odd `i`) a trivial move of
/// L1 to an empty L2; a flush when there is nothing to compact.
fn compact(set: &mut VersionSet, cf: u32, i: u64) -> Result<()> {
    let v = set.current(cf).expect("family");
    if v.num_files(0) + v.num_files(1) == 0 {
        return flush(set, cf, i);
    }
    let mut e = VersionEdit::default();
    if i % 2 == 1 && v.num_files(1) > 0 && v.num_files(2) == 0 {
        for f in v.files(1) {
            e.delete_file(1, f.number);
            e.add_file(2, FileMetaData::clone(f));
        }
        // As a round-robin compaction would: the level's next start (persisted advisory state
        // that every recovery must bring back, compared through the dump).
        e.set_compact_cursor(
            1,
            make_internal_key(format!("c{i}").as_bytes(), i, ValueKind::Put),
        );
        return set.log_and_apply(vec![(cf, e)]);
    }
    let inputs: Vec<_> = (0..2)
        .flat_map(|l| v.files(l).iter().map(move |f| (l, f)))
        .collect();
    let lo = inputs
        .iter()
        .map(|(_, f)| user_key(&f.smallest))
        .min()
        .expect("inputs");
    let hi = inputs
        .iter()
        .map(|(_, f)| user_key(&f.largest))
        .max()
        .expect("inputs");
    let s0 = inputs
        .iter()
        .map(|(_, f)| f.smallest_seqno)
        .min()
        .expect("inputs");
    let s1 = inputs
        .iter()
        .map(|(_, f)| f.largest_seqno)
        .max()
        .expect("inputs");
    let out = set.new_pending_output();
    for (l, f) in &inputs {
        e.delete_file(*l as u8, f.number);
    }
    e.add_file(1, meta(out.number(), lo, hi, (s0, s1)));
    set.log_and_apply(vec![(cf, e)])
}

/// Step `i` of the scripted workload: flushes, compactions, family creation and drop, an
/// atomic flush of two families. Deterministic given the state, so a run that fails at step
/// `j` went through the same states as a fault-free run up to `j`.
fn step(set: &mut VersionSet, i: u64) -> Result<()> {
    let cfs = set.column_families();
    let pick = cfs[i as usize % cfs.len()].id;
    match i % 10 {
        3 => {
            let log = set.next_file_number();
            // The log number makes the name unique even when a step index repeats.
            set.create_cf(&format!("cf{i}-{log}"), log, KeyOrder::BYTEWISE)
                .map(|_| ())
        }
        7 if i % 20 == 7 && cfs.len() > 1 => set.drop_cf(cfs[cfs.len() - 1].id),
        5 | 9 => compact(set, pick, i),
        8 if cfs.len() > 1 => {
            let (a, _ga) = flush_edit(set, i);
            let (b, _gb) = flush_edit(set, i + 1);
            set.log_and_apply(vec![(cfs[0].id, a), (cfs[1].id, b)])
        }
        _ => flush(set, pick, i),
    }
}

const STEPS: u64 = 40;
/// Small enough that the workload rolls the MANIFEST several times.
const TINY_MANIFEST: u64 = 700;

/// The fault-free run: the dump and next file number after create and after each step.
struct Reference {
    dumps: Vec<String>,
    nexts: Vec<u64>,
    rolls: usize,
}

fn reference() -> Reference {
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(TINY_MANIFEST)).expect("create");
    let mut r = Reference {
        dumps: vec![set.dump()],
        nexts: vec![set.next_file_number()],
        rolls: 0,
    };
    for i in 0..STEPS {
        let manifest = set.manifest_number();
        step(&mut set, i).unwrap_or_else(|e| panic!("step {i}: {e}"));
        check_all(&set);
        r.rolls += usize::from(set.manifest_number() != manifest);
        r.dumps.push(set.dump());
        r.nexts.push(set.next_file_number());
    }
    r
}

fn recover(fs: Arc<dyn FileSystem>, max: u64) -> Result<(VersionSet, RecoveryReport)> {
    VersionSet::recover(fs, dir(), opts(max))
}

#[test]
fn round_trip_through_recovery_with_manifest_rolls() {
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(TINY_MANIFEST)).expect("create");
    let first_manifest = set.manifest_number();
    for i in 0..STEPS {
        step(&mut set, i).unwrap_or_else(|e| panic!("step {i}: {e}"));
        check_all(&set);
    }
    assert_ne!(set.manifest_number(), first_manifest, "the MANIFEST rolled");
    let before = set.dump();
    let next = set.next_file_number();
    let current = set.manifest_number();
    drop(set);

    let (mut set, report) = recover(mem.shared(), TINY_MANIFEST).expect("recover");
    assert_eq!(set.dump(), before);
    assert!(set.next_file_number() >= next);
    assert_eq!(report.manifest_number, current);
    assert!(report.torn_tail.is_none());
    check_all(&set);

    // The first change after recovery goes to a new MANIFEST; recovering again sees it.
    flush(&mut set, DEFAULT_CF_ID, 1000).expect("flush after recovery");
    assert_ne!(set.manifest_number(), current);
    let after = set.dump();
    drop(set);
    let (set, _) = recover(mem.shared(), 1 << 30).expect("recover again");
    assert_eq!(set.dump(), after);
}

#[test]
fn reference_workload_covers_every_kind_of_change() {
    let r = reference();
    assert!(r.rolls >= 3, "the MANIFEST rolled {} times", r.rolls);
    let last = r.dumps.last().expect("dumps");
    assert!(last.contains("L1 compact_cursor"), "cursors: {last}");
    assert!(
        last.contains("\"cf13-") && last.contains("\"cf33-"),
        "created: {last}"
    );
    assert!(
        !last.contains("\"cf3-") && !last.contains("\"cf23-"),
        "dropped: {last}"
    );
    assert!(
        last.contains("L1 ") && last.contains("L2 "),
        "compactions and moves: {last}"
    );
}

/// Crashes at the k-th mutating operation for every k; the recovered state must be the state
/// after the acknowledged steps, or after the one step in flight.
#[test]
fn crash_at_every_mutating_operation_recovers_a_prefix() {
    let r = reference();
    let (mut in_flight_kept, mut torn_tails) = (0, 0);
    let mut k = 1;
    loop {
        let mem = MemFs::new();
        let fs = FaultFs::new(mem.shared(), k);
        fs.add_rule(FaultRule::halt_at_mutating(k));
        let (created, acked) = run_until_failure(fs.shared());
        for seed in 0..4 {
            let crash = match seed {
                0 => CrashOptions::synced_only(),
                s => CrashOptions::random(k * 10 + s),
            };
            let after = mem.crash_clone(crash);
            let outcome = check_crash(&after, created, acked, &r, (k, seed));
            in_flight_kept += usize::from(outcome.in_flight_kept);
            torn_tails += usize::from(outcome.torn_tail);
        }
        if fs.injected() == 0 {
            assert_eq!(acked, STEPS as usize);
            break;
        }
        k += 1;
    }
    assert!(k > 100, "the workload has many crash points ({k})");
    assert!(
        in_flight_kept > 0 && torn_tails > 0,
        "both kinds of outcome were seen"
    );
    // Every check above stops the test at its first failure, so no failure count is printed.
    println!(
        "RELIABILITY version_set_crash_points points={k} steps={STEPS} rolls={} \
         in_flight_kept={in_flight_kept} torn_tails={torn_tails}",
        r.rolls
    );
}

/// Runs create and the workload until the first error: (created, steps acknowledged).
fn run_until_failure(fs: Arc<dyn FileSystem>) -> (bool, usize) {
    let Ok(mut set) = VersionSet::create(fs, dir(), opts(TINY_MANIFEST)) else {
        return (false, 0);
    };
    for i in 0..STEPS {
        if step(&mut set, i).is_err() {
            assert!(set.is_poisoned(), "an I/O failure poisons the set");
            return (true, i as usize);
        }
    }
    (true, STEPS as usize)
}

#[derive(Default)]
struct CrashOutcome {
    /// The step in flight at the crash survived (it was durable but not acknowledged).
    in_flight_kept: bool,
    /// Recovery found a torn MANIFEST tail.
    torn_tail: bool,
}

fn check_crash(
    after: &MemFs,
    created: bool,
    acked: usize,
    r: &Reference,
    (k, seed): (u64, u64),
) -> CrashOutcome {
    let (mut set, report) = match recover(after.shared(), TINY_MANIFEST) {
        Ok(r) => r,
        Err(e) if !created && e.is_io() => return CrashOutcome::default(),
        Err(e) => panic!("crash at op {k} (seed {seed}): recovery failed: {e}"),
    };
    let got = set.dump();
    let in_flight_kept = r.dumps.get(acked + 1) == Some(&got);
    let ok = got == r.dumps[acked] || in_flight_kept;
    assert!(
        ok,
        "crash at op {k} (seed {seed}), {acked} steps acked:\n{got}"
    );
    let n = if in_flight_kept { acked + 1 } else { acked };
    assert!(set.next_file_number() >= r.nexts[n], "crash at op {k}");
    check_all(&set);
    // The recovered database accepts changes and they survive another reopen.
    flush(&mut set, DEFAULT_CF_ID, 2000).unwrap_or_else(|e| panic!("op {k}: {e}"));
    let expected = set.dump();
    drop(set);
    let (set, _) = recover(after.shared(), TINY_MANIFEST).expect("second recovery");
    assert_eq!(set.dump(), expected, "crash at op {k}");
    CrashOutcome {
        in_flight_kept,
        torn_tail: report.torn_tail.is_some(),
    }
}

#[test]
fn failed_manifest_sync_leaves_state_unchanged_and_poisons() {
    for kind in [FaultKind::Eio, FaultKind::Enospc] {
        let mem = MemFs::new();
        let fs = FaultFs::new(mem.shared(), 7);
        let mut set = VersionSet::create(fs.shared(), dir(), opts(1 << 30)).expect("create");
        for i in 0..5 {
            step(&mut set, i).expect("step");
        }
        let before = set.dump();
        let version = set.current(DEFAULT_CF_ID).expect("default");
        let op = if kind == FaultKind::Eio {
            OpKind::Sync
        } else {
            OpKind::Write
        };
        fs.add_rule(FaultRule::nth(op, 1, kind).on_paths("MANIFEST"));
        let err = flush(&mut set, DEFAULT_CF_ID, 5).expect_err("injected fault");
        assert_eq!(
            err.raw_os_error(),
            Some(if kind == FaultKind::Eio {
                libc::EIO
            } else {
                libc::ENOSPC
            })
        );
        assert_eq!(set.dump(), before, "nothing installed");
        let now = set.current(DEFAULT_CF_ID).expect("default");
        assert!(Arc::ptr_eq(&now, &version));
        assert!(set.is_poisoned());
        fs.clear_rules();
        let again = flush(&mut set, DEFAULT_CF_ID, 6).expect_err("poisoned");
        assert!(matches!(again, Error::Poisoned(_)), "{again}");
        assert!(set
            .obsolete_files(&mem.list(dir()).expect("list"))
            .is_empty());
        drop(set);
        let (set, _) = recover(mem.shared(), 1 << 30).expect("reopen");
        assert!(!set.is_poisoned());
    }
}

#[test]
fn inconsistent_edit_is_refused_without_writing() {
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(1 << 30)).expect("create");
    flush(&mut set, DEFAULT_CF_ID, 1).expect("flush");
    let before = (set.dump(), set.manifest_size());
    let mut missing = VersionEdit::default();
    missing.delete_file(0, 999);
    let mut twice = VersionEdit::default();
    let f = set.current(0).expect("default").files(0)[0].clone();
    twice.add_file(3, FileMetaData::clone(&f));
    let group = vec![(0, VersionEdit::default()), (42, VersionEdit::default())];
    for edits in [vec![(0, missing)], vec![(0, twice)], group] {
        let err = set.log_and_apply(edits).expect_err("inconsistent");
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    }
    assert!(matches!(set.drop_cf(0), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        set.create_cf("default", 1, KeyOrder::BYTEWISE),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!((set.dump(), set.manifest_size()), before);
    assert!(!set.is_poisoned());
    flush(&mut set, DEFAULT_CF_ID, 2).expect("still usable");
}

#[test]
fn create_refuses_an_existing_database() {
    let mem = MemFs::new();
    VersionSet::create(mem.shared(), dir(), opts(1 << 30)).expect("create");
    let err = VersionSet::create(mem.shared(), dir(), opts(1 << 30)).expect_err("exists");
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    let bad = VersionSetOptions {
        num_levels: 0,
        ..VersionSetOptions::default()
    };
    assert!(VersionSet::create(MemFs::new().shared(), dir(), bad).is_err());
}

fn manifest_path(set: &VersionSet) -> PathBuf {
    dir().join(manifest_file_name(set.manifest_number()))
}

/// A database with a few flushes, left for recovery; returns the MANIFEST path and its dump.
fn small_db(mem: &MemFs) -> (PathBuf, String) {
    let mut set = VersionSet::create(mem.shared(), dir(), opts(1 << 30)).expect("create");
    for i in 0..4 {
        flush(&mut set, DEFAULT_CF_ID, i).expect("flush");
    }
    (manifest_path(&set), set.dump())
}

#[test]
fn torn_manifest_tail_is_tolerated_and_never_appended_to() {
    let mem = MemFs::new();
    let (path, _) = small_db(&mem);
    let size = mem.size(&path).expect("size");
    mem.truncate(&path, size - 3).expect("tear the last record");
    let (mut set, report) = recover(mem.shared(), 1 << 30).expect("recover");
    let torn = report.torn_tail.expect("torn tail reported");
    assert_eq!(torn.file, path);
    assert_eq!(
        set.current(0).expect("default").num_files(0),
        3,
        "the torn flush is dropped"
    );
    let torn_manifest = set.manifest_number();
    flush(&mut set, DEFAULT_CF_ID, 9).expect("flush");
    assert_ne!(
        set.manifest_number(),
        torn_manifest,
        "a new MANIFEST, not an append"
    );
    assert_eq!(
        mem.size(&path).expect("size"),
        size - 3,
        "the torn MANIFEST is untouched"
    );
    let expected = set.dump();
    let obsolete = set.obsolete_files(&mem.list(dir()).expect("list"));
    assert!(
        obsolete.contains(&manifest_file_name(torn_manifest)),
        "{obsolete:?}"
    );
    drop(set);
    let (set, report) = recover(mem.shared(), 1 << 30).expect("recover again");
    assert!(report.torn_tail.is_none());
    assert_eq!(set.dump(), expected);
}

#[test]
fn damaged_manifest_is_corruption_naming_file_and_offset() {
    let mem = MemFs::new();
    let (path, _) = small_db(&mem);
    let size = mem.size(&path).expect("size");
    mem.corrupt_byte(&path, size / 2, |b| b ^ 0x40)
        .expect("flip");
    let err = recover(mem.shared(), 1 << 30).expect_err("damaged");
    let c = err
        .as_corruption()
        .unwrap_or_else(|| panic!("not corruption: {err}"));
    assert_eq!(c.file, path);
    assert!(c.offset <= size / 2);
}

/// Writes a MANIFEST by hand (what a buggy or foreign writer could leave) and points CURRENT
/// at it.
fn hand_written(mem: &MemFs, edits: &[VersionEdit]) -> PathBuf {
    mem.create_dir_all(dir()).expect("dir");
    let mut w = ManifestWriter::create(mem, dir(), 1).expect("create");
    for e in edits {
        w.add_edit(e).expect("add");
    }
    w.sync().expect("sync");
    set_current(mem, dir(), 1).expect("CURRENT");
    w.path().to_path_buf()
}

fn base_edit() -> VersionEdit {
    VersionEdit {
        comparator: Some(BYTEWISE_COMPARATOR.into()),
        next_file_number: Some(10),
        last_sequence: Some(5),
        ..VersionEdit::default()
    }
}

#[test]
fn inconsistent_manifest_is_corruption_at_the_edit() {
    let mem = MemFs::new();
    let mut bad = VersionEdit::default();
    bad.delete_file(1, 7);
    let path = hand_written(&mem, &[base_edit(), bad]);
    let err = recover(mem.shared(), 1 << 30).expect_err("inconsistent");
    let c = err
        .as_corruption()
        .unwrap_or_else(|| panic!("not corruption: {err}"));
    assert_eq!(c.file, path);
    assert!(c.offset > 0, "the offset of the second record");
    assert!(c.message.contains("file 7"), "{}", c.message);
}

#[test]
fn manifest_checks_on_recovery() {
    // No counters at all.
    let mem = MemFs::new();
    hand_written(&mem, &[VersionEdit::default()]);
    assert!(recover(mem.shared(), 1 << 30).unwrap_err().is_corruption());
    // A newer format.
    let mem = MemFs::new();
    let newer = VersionEdit {
        format_version: Some(FORMAT_VERSION + 1),
        ..base_edit()
    };
    hand_written(&mem, &[newer]);
    let err = recover(mem.shared(), 1 << 30).expect_err("newer");
    assert!(matches!(err.root(), Error::NotSupported(_)), "{err}");
    // Another comparator.
    let mem = MemFs::new();
    let other = VersionEdit {
        comparator: Some("reverse".into()),
        ..base_edit()
    };
    hand_written(&mem, &[other]);
    assert!(matches!(
        recover(mem.shared(), 1 << 30),
        Err(Error::InvalidArgument(_))
    ));
    // CURRENT naming a missing MANIFEST.
    let mem = MemFs::new();
    hand_written(&mem, &[base_edit()]);
    set_current(&mem, dir(), 5).expect("CURRENT");
    assert!(recover(mem.shared(), 1 << 30).unwrap_err().is_corruption());
}

#[test]
fn recovery_raises_next_file_number_past_every_number_seen() {
    let mem = MemFs::new();
    let mut e = base_edit();
    e.add_file(0, meta(50, b"a", b"b", (1, 2)));
    e.log_number = Some(60);
    hand_written(&mem, &[e]);
    let (mut set, _) = recover(mem.shared(), 1 << 30).expect("recover");
    assert_eq!(set.next_file_number(), 61);
    set.mark_file_number_used(70);
    assert_eq!(set.new_file_number(), 71);
}

#[test]
fn files_held_by_a_reader_stay_live() {
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(1 << 30)).expect("create");
    flush(&mut set, 0, 1).expect("flush");
    flush(&mut set, 0, 2).expect("flush");
    let reader = set.current(0).expect("default");
    let old: Vec<u64> = reader.all_files().map(|(_, f)| f.number).collect();
    compact(&mut set, 0, 3).expect("compact");
    let new = set.current(0).expect("default").files(1)[0].number;
    let listing: Vec<String> = old
        .iter()
        .chain([new].iter())
        .map(|&n| table_file_name(n))
        .collect();
    assert!(
        set.obsolete_files(&listing).is_empty(),
        "held by the reader"
    );
    for n in &old {
        assert!(set.live_files().contains(n));
    }
    drop(reader);
    let obsolete = set.obsolete_files(&listing);
    let want: Vec<String> = old.iter().map(|&n| table_file_name(n)).collect();
    assert_eq!(obsolete, want);
    assert!(!set.live_files().contains(&old[0]));
}

#[test]
fn dropped_family_files_live_while_held() {
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(1 << 30)).expect("create");
    let id = set
        .create_cf("extra", 1, KeyOrder::BYTEWISE)
        .expect("create cf");
    flush(&mut set, id, 1).expect("flush");
    let reader = set.current(id).expect("extra");
    let n = reader.files(0)[0].number;
    set.drop_cf(id).expect("drop");
    assert!(set.current(id).is_none());
    assert!(set.live_files().contains(&n));
    drop(reader);
    assert!(!set.live_files().contains(&n));
    assert_eq!(
        set.obsolete_files(&[table_file_name(n)]),
        vec![table_file_name(n)]
    );
}

#[test]
fn obsolete_file_rules() {
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(1 << 30)).expect("create");
    let pending = set.new_pending_output();
    let (e, guard) = flush_edit(&mut set, 1);
    let flushed = guard.number();
    set.log_and_apply(vec![(0, e)]).expect("flush");
    drop(guard);
    let min_log = set.min_log_number_to_keep();
    assert_eq!(min_log, flushed, "the flush recorded its log number");
    let names = [
        table_file_name(flushed),
        table_file_name(pending.number()),
        table_file_name(min_log + 100),
        log_file_name(min_log - 1),
        log_file_name(min_log),
        manifest_file_name(set.manifest_number()),
        manifest_file_name(set.manifest_number() + 1000),
        "CURRENT".into(),
        "LOCK".into(),
        "LOG".into(),
        "OPTIONS-000005".into(),
        "CURRENT.dbtmp".into(),
        "notes.txt".into(),
        "42.sst".into(),
    ];
    let listing: Vec<String> = names.to_vec();
    let obsolete = set.obsolete_files(&listing);
    let want = vec![
        table_file_name(min_log + 100),
        log_file_name(min_log - 1),
        manifest_file_name(set.manifest_number() + 1000),
        "CURRENT.dbtmp".to_string(),
    ];
    assert_eq!(obsolete, want);
    let pending_name = table_file_name(pending.number());
    drop(pending);
    assert!(
        set.obsolete_files(&listing).contains(&pending_name),
        "unprotected once dropped"
    );
}

#[test]
fn manifest_roll_makes_the_old_manifest_obsolete() {
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(TINY_MANIFEST)).expect("create");
    let first = set.manifest_number();
    let mut i = 0;
    while set.manifest_number() == first {
        flush(&mut set, 0, i).expect("flush");
        i += 1;
        assert!(i < 100, "the MANIFEST never rolled");
    }
    assert!(set.manifest_size() > 0);
    let listing = mem.list(dir()).expect("list");
    let obsolete = set.obsolete_files(&listing);
    assert_eq!(obsolete, vec![manifest_file_name(first)]);
    assert_eq!(
        read_current(&mem, dir()).expect("CURRENT"),
        set.manifest_number()
    );
}

#[test]
fn thread_contract_holds_in_types() {
    fn send<T: Send>() {}
    fn send_sync<T: Send + Sync>() {}
    // The set moves into the database's mutex; versions and guards cross threads freely.
    send::<VersionSet>();
    send_sync::<Version>();
    send_sync::<PendingOutput>();
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Random sequences of workload steps, with reopens in between: every recovery reproduces
    /// the state exactly, and the reopened set keeps working.
    #[test]
    fn random_steps_with_reopens_round_trip(
        steps in proptest::collection::vec((0u64..1000, proptest::bool::weighted(0.1)), 1..60),
        max_manifest in 300u64..3000,
    ) {
        let mem = MemFs::new();
        let mut set = VersionSet::create(mem.shared(), dir(), opts(max_manifest)).expect("create");
        for (i, reopen) in steps {
            step(&mut set, i).unwrap_or_else(|e| panic!("step {i}: {e}"));
            check_all(&set);
            if reopen {
                let before = set.dump();
                drop(set);
                set = recover(mem.shared(), max_manifest).expect("recover").0;
                proptest::prop_assert_eq!(set.dump(), before);
            }
        }
        let before = set.dump();
        drop(set);
        let (set, _) = recover(mem.shared(), max_manifest).expect("recover");
        proptest::prop_assert_eq!(set.dump(), before);
    }
}

#[test]
fn files_beyond_num_levels_are_invalid_argument_on_recovery() {
    let mem = MemFs::new();
    let mut e = base_edit();
    e.add_file(5, meta(3, b"a", b"b", (1, 2)));
    hand_written(&mem, &[e]);
    let few = VersionSetOptions {
        num_levels: 3,
        ..VersionSetOptions::default()
    };
    let err = VersionSet::recover(mem.shared(), dir(), few).expect_err("too few levels");
    assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    let (set, _) = recover(mem.shared(), 1 << 30).expect("default levels");
    assert_eq!(set.current(0).expect("default").level_of(3), Some(5));
}

#[test]
fn fields_owned_by_the_set_are_refused() {
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(1 << 30)).expect("create");
    let format = VersionEdit {
        format_version: Some(FORMAT_VERSION),
        ..VersionEdit::default()
    };
    let group = VersionEdit {
        atomic_group_remaining: Some(0),
        ..VersionEdit::default()
    };
    for e in [format, group] {
        let err = set.log_and_apply(vec![(0, e)]).expect_err("refused");
        assert!(matches!(err, Error::InvalidArgument(_)), "{err}");
    }
    assert!(!set.is_poisoned());
}

/// A change written while its caller's lock is released (db/install.rs): counters advanced
/// meanwhile survive the install, a second change is refused until the first finishes, and no
/// file is listed obsolete in between (a rolled MANIFEST exists before the set knows it).
#[test]
fn change_in_flight_keeps_counters_refuses_a_second_and_hides_obsolete_files() {
    for max_manifest in [1 << 30, 1] {
        let mem = MemFs::new();
        let fs: Arc<dyn FileSystem> = mem.shared();
        let mut set = VersionSet::create(Arc::clone(&fs), dir(), opts(max_manifest)).unwrap();
        flush(&mut set, 0, 1).unwrap();
        let (edit, guard) = flush_edit(&mut set, 2);
        let before_seq = set.last_sequence();
        let mut pending = set.begin_apply(vec![(0, edit)]).unwrap().expect("a change");
        assert!(set.apply_in_flight());
        // Meanwhile: a WAL number is handed out and writers advance the sequence.
        let wal = set.new_file_number();
        set.set_last_sequence(before_seq + 1000);
        let (second, _g2) = flush_edit(&mut set, 3);
        let refused = set.begin_apply(vec![(0, second)]).unwrap_err();
        assert!(matches!(refused, Error::InvalidArgument(_)), "{refused:?}");
        let listing = fs.list(dir()).unwrap();
        assert!(set.obsolete_files(&listing).is_empty(), "{listing:?}");
        let written = pending.write();
        set.finish_apply(pending, written).unwrap();
        drop(guard);
        assert!(!set.apply_in_flight());
        assert!(
            set.next_file_number() > wal,
            "the WAL's number is never handed out again"
        );
        assert_eq!(set.last_sequence(), before_seq + 1000);
        assert_eq!(set.current(0).unwrap().num_files(0), 2);
        // Durable: recovery sees both flushed files.
        drop(set);
        let (recovered, _) = recover(Arc::clone(&fs), max_manifest).unwrap();
        assert_eq!(recovered.current(0).unwrap().num_files(0), 2);
        check_all(&recovered);
    }
}

/// A failed write of a change begun unlocked leaves the state as it was and poisons the set.
#[test]
fn failed_write_of_a_change_in_flight_poisons_and_keeps_state() {
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(1 << 30)).unwrap();
    flush(&mut set, 0, 1).unwrap();
    let dump = set.dump();
    let (edit, _guard) = flush_edit(&mut set, 2);
    let pending = set.begin_apply(vec![(0, edit)]).unwrap().expect("a change");
    let failed = Err(Error::io(
        "sync",
        "MANIFEST",
        std::io::Error::other("injected"),
    ));
    assert!(set.finish_apply(pending, failed).is_err());
    assert!(set.is_poisoned());
    assert!(!set.apply_in_flight());
    assert_eq!(set.dump(), dump);
}

#[test]
fn compact_cursors_survive_recovery_and_manifest_rolls() {
    let key = |k: &[u8], seq| make_internal_key(k, seq, ValueKind::Put);
    let mem = MemFs::new();
    let mut set = VersionSet::create(mem.shared(), dir(), opts(1 << 30)).expect("create");
    flush(&mut set, DEFAULT_CF_ID, 1).expect("flush");
    let mut e = VersionEdit::default();
    e.set_compact_cursor(1, key(b"m", 3));
    e.set_compact_cursor(2, key(b"d", 4));
    set.log_and_apply(vec![(DEFAULT_CF_ID, e)])
        .expect("cursors");
    let v = set.current(DEFAULT_CF_ID).expect("default");
    assert_eq!(v.compact_cursor(1), Some(&key(b"m", 3)[..]));
    // A later edit replaces one level's cursor and carries the other.
    let mut e = VersionEdit::default();
    e.set_compact_cursor(1, key(b"p", 5));
    set.log_and_apply(vec![(DEFAULT_CF_ID, e)]).expect("cursor");
    flush(&mut set, DEFAULT_CF_ID, 2).expect("flush");
    let expect = |set: &VersionSet| {
        let v = set.current(DEFAULT_CF_ID).expect("default");
        assert_eq!(v.compact_cursor(1), Some(&key(b"p", 5)[..]));
        assert_eq!(v.compact_cursor(2), Some(&key(b"d", 4)[..]));
        assert_eq!(v.compact_cursor(3), None);
    };
    expect(&set);
    drop(set);
    // Replayed from the edits.
    let (mut set, _) = recover(mem.shared(), 1 << 30).expect("recover");
    expect(&set);
    // The first change after recovery writes a new MANIFEST whose snapshot holds the cursors.
    let before = set.manifest_number();
    flush(&mut set, DEFAULT_CF_ID, 3).expect("flush");
    assert_ne!(set.manifest_number(), before);
    drop(set);
    let (set, _) = recover(mem.shared(), 1 << 30).expect("recover from the snapshot");
    expect(&set);
}

#[test]
fn a_cursor_beyond_num_levels_is_dropped_on_recovery() {
    let mem = MemFs::new();
    let mut e = base_edit();
    e.set_compact_cursor(9, make_internal_key(b"k", 1, ValueKind::Put));
    e.set_compact_cursor(2, make_internal_key(b"j", 1, ValueKind::Put));
    hand_written(&mem, &[e]);
    let (set, _) = recover(mem.shared(), 1 << 30).expect("advisory state beyond the levels");
    let v = set.current(DEFAULT_CF_ID).expect("default");
    assert_eq!(v.num_levels(), DEFAULT_NUM_LEVELS);
    assert!(v.compact_cursor(2).is_some());
}

#[test]
fn a_damaged_cursor_record_is_corruption_naming_the_manifest() {
    let mem = MemFs::new();
    mem.create_dir_all(dir()).expect("dir");
    // A cursor whose key is shorter than an internal key trailer, in a well-framed record.
    let mut bytes = base_edit().encoded();
    put_varint32(&mut bytes, 14 | SAFE_IGNORE_MASK);
    let mut p = Vec::new();
    put_varint32(&mut p, 1);
    put_length_prefixed(&mut p, b"short");
    put_length_prefixed(&mut bytes, &p);
    let file = mem
        .create(&dir().join(manifest_file_name(1)))
        .expect("create");
    let mut w = crate::wal::LogWriter::new(file, 1, 0);
    w.add_record(&bytes).expect("add");
    w.sync().expect("sync");
    set_current(&mem, dir(), 1).expect("CURRENT");
    let err = recover(mem.shared(), 1 << 30).expect_err("damaged cursor");
    let c = err
        .as_corruption()
        .unwrap_or_else(|| panic!("not corruption: {err}"));
    assert_eq!(c.file, dir().join(manifest_file_name(1)));
    assert!(c.message.contains("compact cursor"), "{}", c.message);
}
