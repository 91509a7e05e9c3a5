//! Injected EIO and ENOSPC on every kind of file-system operation, at several points of a
//! workload with WAL rolls, flushes, range deletions and reads. For each: every read that
//! succeeds is right, the error reaches the caller (as a call's error or the background error),
//! and after reopening without faults every acknowledged write is there.

use std::collections::BTreeMap;

use cairndb::fs::{FaultFs, FaultKind, FaultRule, MemFs, OpKind};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;

const DIR: &str = "/db";
const WRITES: u32 = 240;

fn opts() -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.write_buffer_size = 64 << 10;
    o
}

fn key(i: u32) -> Vec<u8> {
    format!("key{i:05}").into_bytes()
}

fn value(i: u32) -> Vec<u8> {
    vec![(i % 251) as u8; 600]
}

/// What the caller was told.
#[derive(Default)]
struct Outcome {
    /// Keys whose put returned Ok and were not deleted by an acknowledged range deletion.
    acked: BTreeMap<Vec<u8>, Vec<u8>>,
    /// Keys whose put or deletion failed: present or absent, but never with a wrong value.
    uncertain: BTreeMap<Vec<u8>, Vec<u8>>,
    /// Some call returned an error, or the database reported a background error.
    saw_error: bool,
}

fn workload(db: &Db, out: &mut Outcome) {
    let r = ReadOptions::default();
    for i in 0..WRITES {
        let sync = i % 10 == 9;
        let w = WriteOptions {
            sync,
            ..WriteOptions::default()
        };
        match db.put(&w, &key(i), &value(i)) {
            Ok(()) => {
                out.acked.insert(key(i), value(i));
            }
            Err(_) => {
                out.saw_error = true;
                out.uncertain.insert(key(i), value(i));
            }
        }
        if i % 60 == 59 {
            // Deletes keys i-10 .. i-5.
            let (a, b) = (key(i - 10), key(i - 5));
            let doomed: Vec<Vec<u8>> = out
                .acked
                .range(a.clone()..b.clone())
                .map(|(k, _)| k.clone())
                .collect();
            match db.delete_range(&WriteOptions::default(), &a, &b) {
                Ok(()) => {
                    for k in doomed {
                        out.acked.remove(&k);
                        out.uncertain.remove(&k);
                    }
                }
                Err(_) => {
                    out.saw_error = true;
                    for k in doomed {
                        let v = out.acked.remove(&k).expect("acked");
                        out.uncertain.insert(k, v);
                    }
                }
            }
        }
        if i % 80 == 79 && db.flush().is_err() {
            out.saw_error = true;
        }
        if i % 7 == 0 {
            check_reads(db, &r, out, &format!("during the workload at write {i}"));
        }
        out.saw_error |= db.background_error().is_some() || db.background_error_count() > 0;
    }
}

/// Every successful read is right: acknowledged keys have their value (or the read fails),
/// uncertain keys have their value or none, and no other key exists.
fn check_reads(db: &Db, r: &ReadOptions, out: &mut Outcome, when: &str) {
    for i in (0..WRITES).step_by(3) {
        let k = key(i);
        match db.get(r, &k) {
            Ok(got) => {
                if let Some(v) = out.acked.get(&k) {
                    assert_eq!(got.as_ref(), Some(v), "{when}: acknowledged key {i}");
                } else if let Some(v) = out.uncertain.get(&k) {
                    assert!(got.is_none() || got.as_ref() == Some(v), "{when}: key {i}");
                } else {
                    assert!(got.is_none(), "{when}: key {i} was never acknowledged");
                }
            }
            Err(_) => out.saw_error = true,
        }
    }
}

fn run(op: OpKind, k: u64, kind: FaultKind) -> (bool, bool) {
    let mem = MemFs::new();
    let fault = FaultFs::new(mem.shared(), k);
    // The info log is best effort (db/info_log.rs): its failures are nobody's error.
    fault.add_rule(FaultRule::nth(op, k, kind).except_file("LOG"));
    let mut out = Outcome::default();
    match Db::open_with_fs(fault.shared(), DIR, opts()) {
        Ok(db) => {
            workload(&db, &mut out);
            // An iterator that cannot be created (a table fails to open) is an error seen.
            let mut it_ok = false;
            if let Ok(mut it) = db.iter(&ReadOptions::default()) {
                it.seek_to_first();
                while it.valid() {
                    let k = it.key().to_vec();
                    let expected = out.acked.get(&k).or_else(|| out.uncertain.get(&k));
                    assert_eq!(
                        Some(it.value()),
                        expected.map(Vec::as_slice),
                        "{op:?} #{k:?}"
                    );
                    it.next();
                }
                it_ok = it.status().is_ok();
            }
            out.saw_error |= !it_ok;
            out.saw_error |= db.close().is_err();
            // Counted after close: a background job may fail while close waits for it.
            out.saw_error |= db.background_error_count() > 0;
        }
        Err(_) => out.saw_error = true,
    }
    let injected = fault.injected() > 0;
    // Reopen without faults, as after a process restart: every acknowledged write is there.
    let db = Db::open_with_fs(mem.shared(), DIR, opts())
        .unwrap_or_else(|e| panic!("{op:?} #{k} {kind:?}: reopen failed: {e}"));
    let r = ReadOptions::default();
    for (key, v) in &out.acked {
        let got = db
            .get(&r, key)
            .unwrap_or_else(|e| panic!("{op:?} #{k} {kind:?}: get after reopen: {e}"));
        assert_eq!(got.as_ref(), Some(v), "{op:?} #{k} {kind:?}: lost {key:?}");
    }
    let mut check = Outcome {
        acked: out.acked.clone(),
        uncertain: out.uncertain.clone(),
        saw_error: false,
    };
    check_reads(
        &db,
        &r,
        &mut check,
        &format!("{op:?} #{k} {kind:?} after reopen"),
    );
    assert!(
        !check.saw_error,
        "{op:?} #{k} {kind:?}: reads fail after reopen"
    );
    (injected, out.saw_error)
}

#[test]
fn every_operation_kind_fails_cleanly() {
    // Deleting an obsolete file and listing the directory for it are best effort: a failure
    // leaves a file to be deleted later and is not the caller's business.
    let silent_ok = [OpKind::Remove, OpKind::Metadata];
    let mut cases = 0;
    let mut fired = 0;
    for op in [
        OpKind::Create,
        OpKind::Open,
        OpKind::Write,
        OpKind::Sync,
        OpKind::Read,
        OpKind::Rename,
        OpKind::Remove,
        OpKind::SyncDir,
        OpKind::Truncate,
        OpKind::Metadata,
    ] {
        for kind in [FaultKind::Eio, FaultKind::Enospc] {
            for k in [1, 2, 3, 5, 8, 13, 21, 34] {
                let (injected, saw_error) = run(op, k, kind);
                cases += 1;
                if injected {
                    fired += 1;
                    assert!(
                        saw_error || silent_ok.contains(&op),
                        "{op:?} #{k} {kind:?}: the fault fired but no caller saw an error"
                    );
                }
            }
        }
    }
    assert!(fired > cases / 2, "only {fired} of {cases} faults fired");
    println!("RELIABILITY faults cases={cases} fired={fired}");
}
