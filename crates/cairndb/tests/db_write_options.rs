//! Write-path options that change what the engine does, each against the behaviour RocksDB
//! users rely on: `min_write_buffer_number_to_merge` (flushes merge immutable memtables into one
//! L0 table), `paranoid_checks` (open checks live files; background corruption stops writes)
//! `allow_concurrent_memtable_write` (group members insert their own batches) and the wait
//! policy of queued writers (`enable_write_thread_adaptive_yield`, `write_thread_*_yield_usec`).

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use cairndb::fs::MemFs;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::Db;
use common::{opts_no_auto_compactions, scan, DIR};

fn entries_in_active_memtable(db: &Db) -> u64 {
    db.property_int("rocksdb.num-entries-active-mem-table")
        .expect("property")
}

fn merge_opts(min: u32) -> Options {
    let mut o = opts_no_auto_compactions();
    o.cf.max_write_buffer_number = 3;
    o.cf.min_write_buffer_number_to_merge = min;
    o
}

// ---------------------------------------------------------------------------------------------
// min_write_buffer_number_to_merge

/// With `min_write_buffer_number_to_merge = 2`, six memtable switches make three L0 tables (the
/// background flush waits for two immutable memtables and writes them as one), and the data,
/// overwrites and deletions spread over the memtables read back right, before and after reopen.
#[test]
fn merged_flushes_halve_the_l0_files_and_keep_the_data() {
    let fs = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, merge_opts(2)).expect("open");
    let w = WriteOptions::default();
    let mut model = BTreeMap::new();
    let mut switches = 0;
    let mut i = 0u64;
    while switches < 6 {
        // Keys repeat every 700 writes, so later memtables overwrite and delete the keys of
        // earlier ones; every seventh write is a deletion.
        let key = format!("key{:05}", (i * 7919) % 700).into_bytes();
        if i % 7 == 3 {
            db.delete(&w, &key).expect("delete");
            model.remove(&key);
        } else {
            let value = format!("value-{i}-{}", "x".repeat(100)).into_bytes();
            db.put(&w, &key, &value).expect("put");
            model.insert(key, value);
        }
        // This write went into a fresh memtable: the one before it switched.
        if i > 0 && entries_in_active_memtable(&db) == 1 {
            switches += 1;
        }
        i += 1;
    }
    // The six retired memtables are flushed in pairs (three is never queued: with
    // max_write_buffer_number = 3 a writer waits for the pair's flush).
    db.wait_for_compactions().expect("wait");
    assert_eq!(db.num_immutable_memtables(), 0);
    assert_eq!(db.num_l0_files(), 3, "six memtables merged two by two");
    assert_eq!(scan(&db), model);
    for (k, v) in &model {
        assert_eq!(
            db.get(&ReadOptions::default(), k).expect("get"),
            Some(v.clone())
        );
    }
    // A deleted key reads as missing, not as an older version from an earlier memtable.
    let deleted = (0..700u64)
        .map(|k| format!("key{k:05}").into_bytes())
        .find(|k| !model.contains_key(k))
        .expect("some key ends deleted");
    assert_eq!(
        db.get(&ReadOptions::default(), &deleted).expect("get"),
        None
    );
    db.close().expect("close");
    let db = Db::open_with_fs(fs, DIR, merge_opts(2)).expect("reopen");
    assert_eq!(scan(&db), model);
}

/// Puts `key = v1` and fills the memtable with a large value so that the next write switches.
fn put_then_fill(db: &Db, key: &[u8], value: &[u8]) {
    let w = WriteOptions::default();
    db.put(&w, key, value).expect("put");
    db.put(&w, b"filler", &vec![b'f'; 70 << 10])
        .expect("filler");
}

/// A merged flush drops a version hidden by a newer memtable's entry when no snapshot needs it,
/// and keeps it for a snapshot taken between the two writes.
#[test]
fn merged_flush_drops_shadowed_versions_unless_a_snapshot_needs_them() {
    for with_snapshot in [false, true] {
        let db = Db::open_with_fs(MemFs::new().shared(), DIR, merge_opts(2)).expect("open");
        put_then_fill(&db, b"k", b"v1");
        let snapshot = with_snapshot.then(|| db.snapshot().expect("snapshot"));
        // Switches the full memtable: one immutable memtable, not enough to flush.
        db.put(&WriteOptions::default(), b"k", b"v2").expect("put");
        assert_eq!(db.num_immutable_memtables(), 1);
        assert_eq!(
            db.num_l0_files(),
            0,
            "one immutable memtable waits for a second"
        );
        // A manual flush writes both memtables into one table.
        db.flush().expect("flush");
        assert_eq!(db.num_l0_files(), 1, "two memtables, one table");
        // k@v2, filler, and k@v1 only while the snapshot needs it.
        let expected = if with_snapshot { 3 } else { 2 };
        assert_eq!(
            db.property_int("rocksdb.estimate-num-keys"),
            Some(expected),
            "with_snapshot={with_snapshot}"
        );
        assert_eq!(
            db.get(&ReadOptions::default(), b"k").expect("get"),
            Some(b"v2".to_vec())
        );
        if let Some(s) = &snapshot {
            let at = ReadOptions {
                snapshot: Some(s.sequence()),
                ..ReadOptions::default()
            };
            assert_eq!(db.get(&at, b"k").expect("get"), Some(b"v1".to_vec()));
        }
    }
}

/// A manual flush (and `compact_range`, which flushes first) writes a single immutable
/// memtable at once, without waiting for a second one.
#[test]
fn manual_flush_does_not_wait_for_the_minimum() {
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, merge_opts(2)).expect("open");
    db.put(&WriteOptions::default(), b"a", b"1").expect("put");
    db.flush().expect("flush");
    assert_eq!(db.num_l0_files(), 1);
    assert_eq!(db.num_immutable_memtables(), 0);
    assert_eq!(
        db.get(&ReadOptions::default(), b"a").expect("get"),
        Some(b"1".to_vec())
    );
}

/// With several column families, a family whose single immutable memtable waits for a second
/// one while the live WALs pass `max_total_wal_size` is flushed anyway (RocksDB's
/// `FlushRequested` from `SwitchWAL`), so it does not pin the oldest WAL for ever.
#[test]
fn wal_size_limit_flushes_a_lone_immutable_memtable() {
    let mut o = merge_opts(2);
    o.db.max_total_wal_size = 200 << 10;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o.clone()).expect("open");
    let other = db
        .create_column_family("other", opts_no_auto_compactions().cf)
        .expect("create");
    let w = WriteOptions::default();
    put_then_fill(&db, b"k", b"v1");
    // Switches the default family's full memtable: one immutable memtable, not due.
    db.put(&w, b"k", b"v2").expect("put");
    assert_eq!(db.num_immutable_memtables(), 1);
    // The other family's writes grow the live WALs past the limit.
    for i in 0..3_000u32 {
        let key = format!("o{i:06}");
        db.put_cf(&w, &other, key.as_bytes(), &[b'o'; 100])
            .expect("put_cf");
    }
    db.wait_for_compactions().expect("wait");
    assert!(
        db.num_l0_files() >= 1,
        "the lone immutable memtable was flushed for the WAL limit"
    );
    assert_eq!(
        db.get(&ReadOptions::default(), b"k").expect("get"),
        Some(b"v2".to_vec())
    );
}

// ---------------------------------------------------------------------------------------------
// allow_concurrent_memtable_write

/// Eight threads write interleaved batches (puts, overwrites, deletions, some synced) with
/// concurrent memtable writes on and off, pipelined writes on and off (64 KiB memtables, so
/// memtables are retired and flushed while pipelined groups insert), and with each way a
/// queued writer can wait (spin, yield and park; no yielding; park at once): all end with the same contents, which are the
/// contents every thread's last batches imply, before and after reopen.
#[test]
fn concurrent_memtable_writes_give_the_same_contents_as_leader_inserts() {
    let mut results = Vec::new();
    // (allow_concurrent_memtable_write, enable_write_thread_adaptive_yield, max yield µs,
    // enable_pipelined_write)
    let configs = [
        (true, true, 100, true),
        (false, true, 100, true),
        (true, false, 100, true),
        (true, true, 0, true),
        (false, false, 0, true),
        (true, true, 100, false),
        (false, true, 100, false),
    ];
    for (concurrent, adaptive, max_yield, pipelined) in configs {
        let mut o = opts_no_auto_compactions();
        o.db.enable_pipelined_write = pipelined;
        o.db.allow_concurrent_memtable_write = concurrent;
        o.db.enable_write_thread_adaptive_yield = adaptive;
        o.db.write_thread_max_yield_usec = max_yield;
        let fs = MemFs::new().shared();
        let db = Arc::new(Db::open_with_fs(Arc::clone(&fs), DIR, o.clone()).expect("open"));
        let threads: Vec<_> = (0..8u32)
            .map(|t| {
                let db = Arc::clone(&db);
                std::thread::spawn(move || {
                    for i in 0..400u32 {
                        let mut b = cairndb::batch::WriteBatch::new();
                        // Each thread owns its keys, so the final state does not depend on
                        // the interleaving.
                        b.put(
                            format!("t{t}-k{:03}", i % 50).as_bytes(),
                            format!("{i}").as_bytes(),
                        )
                        .expect("put");
                        b.put(format!("t{t}-last").as_bytes(), format!("{i}").as_bytes())
                            .expect("put");
                        if i % 5 == 0 {
                            b.delete(format!("t{t}-k{:03}", (i + 7) % 50).as_bytes())
                                .expect("delete");
                        }
                        let w = WriteOptions {
                            sync: i % 37 == 0,
                            ..WriteOptions::default()
                        };
                        db.write(&w, b).expect("write");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("writer");
        }
        let contents = scan(&db);
        let db = Arc::into_inner(db).expect("one handle");
        db.close().expect("close");
        let db = Db::open_with_fs(fs, DIR, o).expect("reopen");
        assert_eq!(
            scan(&db),
            contents,
            "concurrent={concurrent} adaptive={adaptive} max_yield={max_yield} \
             pipelined={pipelined}"
        );
        results.push(contents);
    }
    // The model: each thread's writes applied in its own order.
    let mut model = BTreeMap::new();
    for t in 0..8u32 {
        for i in 0..400u32 {
            let v = format!("{i}").into_bytes();
            model.insert(format!("t{t}-k{:03}", i % 50).into_bytes(), v.clone());
            model.insert(format!("t{t}-last").into_bytes(), v);
            if i % 5 == 0 {
                model.remove(format!("t{t}-k{:03}", (i + 7) % 50).as_bytes());
            }
        }
    }
    for (contents, config) in results.iter().zip(configs) {
        assert_eq!(contents, &model, "{config:?}");
    }
}

/// The wait-policy options parse, reach the options a database reports, and out-of-range
/// values are refused by name.
#[test]
fn write_thread_wait_options_parse_and_bad_values_are_refused() {
    let o = cairndb::options::DbOptions::from_options_string(
        "enable_write_thread_adaptive_yield=false;write_thread_max_yield_usec=50;\
         write_thread_slow_yield_usec=7",
    )
    .expect("parse");
    assert!(!o.enable_write_thread_adaptive_yield);
    assert_eq!(o.write_thread_max_yield_usec, 50);
    assert_eq!(o.write_thread_slow_yield_usec, 7);
    let mut bad = opts_no_auto_compactions();
    bad.db.write_thread_max_yield_usec = 5_000_000;
    let e = Db::open_with_fs(MemFs::new().shared(), DIR, bad).expect_err("out of range");
    assert!(
        format!("{e}").contains("write_thread_max_yield_usec"),
        "{e}"
    );
}

/// The option parses both ways and is written to the OPTIONS file.
#[test]
fn allow_concurrent_memtable_write_parses_both_values() {
    for v in ["true", "false"] {
        let o = cairndb::options::DbOptions::from_options_string(&format!(
            "allow_concurrent_memtable_write={v}"
        ))
        .expect("parse");
        assert_eq!(o.allow_concurrent_memtable_write, v == "true");
    }
}

// ---------------------------------------------------------------------------------------------
// paranoid_checks

/// Writes two overlapping L0 tables (the same keys, values `1` then `2`) and closes; returns
/// the table files' paths, in creation order.
fn two_tables(fs: &Arc<dyn cairndb::fs::FileSystem>, o: &Options) -> Vec<std::path::PathBuf> {
    let db = Db::open_with_fs(Arc::clone(fs), DIR, o.clone()).expect("open");
    let w = WriteOptions::default();
    for value in [b'1', b'2'] {
        for i in 0..200u32 {
            db.put(&w, format!("k{i:04}").as_bytes(), &[value; 64])
                .expect("put");
        }
        db.flush().expect("flush");
    }
    db.close().expect("close");
    let mut tables: Vec<_> = fs
        .list(std::path::Path::new(DIR))
        .expect("list")
        .into_iter()
        .filter(|n| n.ends_with(".sst"))
        .collect();
    tables.sort();
    assert_eq!(tables.len(), 2);
    tables
        .iter()
        .map(|n| std::path::Path::new(DIR).join(n))
        .collect()
}

fn paranoid(on: bool) -> Options {
    let mut o = opts_no_auto_compactions();
    o.db.paranoid_checks = on;
    o
}

/// Replaces `path` with `bytes`.
fn rewrite(fs: &Arc<dyn cairndb::fs::FileSystem>, path: &std::path::Path, bytes: &[u8]) {
    let mut f = fs.create(path).expect("create");
    f.append(bytes).expect("append");
    f.sync().expect("sync");
}

/// With `paranoid_checks`, open refuses a database whose live table is missing or has another
/// size than the MANIFEST recorded, with a Corruption naming the file; without it, open
/// proceeds and reads of the damaged table fail instead of answering wrongly.
#[test]
fn paranoid_open_checks_every_live_file() {
    for damage in ["missing", "truncated"] {
        let fs = MemFs::new().shared();
        let tables = two_tables(&fs, &paranoid(true));
        // The newer table: every read of its keys must consult it.
        let victim = &tables[1];
        if damage == "missing" {
            fs.remove(victim).expect("remove");
        } else {
            let bytes = cairndb::fs::read_all(&*fs, victim).expect("read");
            rewrite(&fs, victim, &bytes[..bytes.len() - 1]);
        }
        let e = Db::open_with_fs(Arc::clone(&fs), DIR, paranoid(true)).expect_err(damage);
        assert!(e.is_corruption(), "{damage}: {e}");
        let named = e.as_corruption().map(|c| c.file.clone());
        assert_eq!(named.as_ref(), Some(victim), "{damage}: {e}");
        // RocksDB opens without the check; the damage shows when the table is read.
        let db = Db::open_with_fs(Arc::clone(&fs), DIR, paranoid(false)).expect(damage);
        assert!(
            db.get(&ReadOptions::default(), b"k0001").is_err(),
            "{damage}: a read of the damaged table fails"
        );
    }
}

/// With `paranoid_checks`, a compaction that reads a corrupt block stops writes (they return
/// `Poisoned` until reopen); without it, the compaction fails and writes go on.
#[test]
fn paranoid_background_corruption_stops_writes() {
    for on in [true, false] {
        let fs = MemFs::new().shared();
        let tables = two_tables(&fs, &paranoid(on));
        // One flipped byte inside the first data block: the size stays right, so open passes.
        let mut bytes = cairndb::fs::read_all(&*fs, &tables[0]).expect("read");
        bytes[20] ^= 0x40;
        rewrite(&fs, &tables[0], &bytes);
        let db = Db::open_with_fs(Arc::clone(&fs), DIR, paranoid(on)).expect("open");
        let e = db.compact_range(None, None).expect_err("corrupt input");
        assert!(e.is_corruption(), "paranoid={on}: {e}");
        let w = db.put(&WriteOptions::default(), b"after", b"1");
        if on {
            assert!(
                matches!(w, Err(cairndb::Error::Poisoned(_))),
                "paranoid: writes stop: {w:?}"
            );
        } else {
            w.expect("without paranoid_checks writes go on");
        }
    }
}
