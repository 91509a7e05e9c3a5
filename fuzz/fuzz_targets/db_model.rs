//! The database against a `BTreeMap`: arbitrary bytes decode to operations (put, delete, range
//! deletion, batch, get, scan, flush, compaction, reopen, snapshot reads) on an in-memory file
//! system with the smallest memtables; every read must agree with the model, and nothing may
//! panic. Complements the `model` reliability suite, which draws its operations at random.
#![no_main]

use std::collections::BTreeMap;

use cairndb::batch::WriteBatch;
use cairndb::fs::MemFs;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;
use libfuzzer_sys::fuzz_target;

fn key(b: u8) -> Vec<u8> {
    vec![b'k', b % 64]
}

fn opts() -> Options {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.write_buffer_size = 64 << 10;
    o.cf.level0_file_num_compaction_trigger = 2;
    o.cf.target_file_size_base = 16 << 10;
    o
}

fuzz_target!(|data: &[u8]| {
    let fs = MemFs::new();
    let mut db = Db::open_with_fs(fs.shared(), "/db", opts()).expect("open");
    let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    let mut snap: Option<(cairndb::db::Snapshot, BTreeMap<Vec<u8>, Vec<u8>>)> = None;
    let w = WriteOptions::default();
    let r = ReadOptions::default();
    let mut i = 0;
    while i + 2 < data.len().min(3 * 400) {
        let (op, a, b) = (data[i], data[i + 1], data[i + 2]);
        i += 3;
        match op % 12 {
            0..=2 => {
                let v = vec![a; usize::from(b) * 16];
                db.put(&w, &key(a), &v).expect("put");
                model.insert(key(a), v);
            }
            3 => {
                db.delete(&w, &key(a)).expect("delete");
                model.remove(&key(a));
            }
            4 => {
                let (lo, hi) = (key(a % 64).min(key(b % 64)), key(a % 64).max(key(b % 64)));
                db.delete_range(&w, &lo, &hi).expect("delete_range");
                model.retain(|k, _| !(lo <= *k && *k < hi));
            }
            5 => {
                let mut batch = WriteBatch::new();
                batch.put(&key(a), &[b; 3]).expect("batch");
                batch.delete(&key(b)).expect("batch");
                db.write(&w, batch).expect("write");
                model.insert(key(a), vec![b; 3]);
                model.remove(&key(b));
            }
            6 => {
                let got = db.get(&r, &key(a)).expect("get");
                assert_eq!(got.as_ref(), model.get(&key(a)), "get {a}");
            }
            7 => {
                let mut it = db.iter(&r).expect("iter");
                it.seek(&key(a));
                let want: Vec<_> = model.range(key(a)..).take(usize::from(b % 8) + 1).collect();
                for (k, v) in want {
                    assert!(it.valid(), "scan ended early");
                    assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
                    it.next();
                }
                it.status().expect("scan");
            }
            8 => db.flush().expect("flush"),
            9 => db.compact_range(None, None).expect("compact"),
            10 => {
                snap = None;
                db.close().expect("close");
                db = Db::open_with_fs(fs.shared(), "/db", opts()).expect("reopen");
            }
            _ => match &snap {
                Some((s, m)) => {
                    let ro = ReadOptions {
                        snapshot: Some(s.sequence()),
                        ..ReadOptions::default()
                    };
                    let got = db.get(&ro, &key(a)).expect("snapshot get");
                    assert_eq!(got.as_ref(), m.get(&key(a)), "snapshot get {a}");
                }
                None => snap = Some((db.snapshot().expect("snapshot"), model.clone())),
            },
        }
    }
    let mut it = db.iter(&r).expect("iter");
    it.seek_to_first();
    for (k, v) in &model {
        assert!(it.valid(), "final scan ended early");
        assert_eq!((it.key(), it.value()), (k.as_slice(), v.as_slice()));
        it.next();
    }
    assert!(!it.valid(), "final scan has extra keys");
});
