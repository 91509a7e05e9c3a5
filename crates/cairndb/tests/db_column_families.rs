//! Column families against their contract: independent key spaces with their own options,
//! atomic batches across families, create/drop/list surviving reopen and power cuts, old WALs
//! released by idle families, and clear errors for misuse.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use cairndb::batch::WriteBatch;
use cairndb::db::{ColumnFamily, ColumnFamilyDescriptor};
use cairndb::fs::{CrashOptions, FileSystem, MemFs};
use cairndb::merge::UInt64AddOperator;
use cairndb::options::{CfOptions, Options, ReadOptions, WriteOptions};
use cairndb::{Db, Error};
use common::{scan_cf, DIR};
use proptest::prelude::*;

/// [`common::opts`], creating the families the tests name.
fn opts() -> Options {
    let mut o = common::opts();
    o.db.create_missing_column_families = true;
    o
}

/// "small" flushes often; "counters" folds merges.
fn families() -> Vec<ColumnFamilyDescriptor> {
    let small = CfOptions {
        write_buffer_size: 64 << 10,
        ..CfOptions::default()
    };
    let counters = CfOptions {
        merge_operator: Some(Arc::new(UInt64AddOperator)),
        write_buffer_size: 256 << 10,
        ..CfOptions::default()
    };
    vec![
        ColumnFamilyDescriptor::new("small", small),
        ColumnFamilyDescriptor::new("counters", counters),
    ]
}

fn open(fs: &Arc<dyn FileSystem>) -> Db {
    Db::open_cf_with_fs(Arc::clone(fs), DIR, opts(), families()).expect("open")
}

fn cf(db: &Db, name: &str) -> ColumnFamily {
    db.column_family(name).expect(name)
}

fn w() -> WriteOptions {
    WriteOptions::default()
}

fn r() -> ReadOptions {
    ReadOptions::default()
}

fn wal_numbers(fs: &Arc<dyn FileSystem>) -> Vec<u64> {
    let mut logs: Vec<u64> = fs
        .list(DIR.as_ref())
        .expect("list")
        .iter()
        .filter_map(|n| n.strip_suffix(".log").and_then(|s| s.parse().ok()))
        .collect();
    logs.sort_unstable();
    logs
}

#[test]
fn families_are_separate_key_spaces_that_survive_reopen() {
    let fs = MemFs::new().shared();
    let db = open(&fs);
    assert!(db.recovery_report().created);
    let names: Vec<String> = db
        .column_families()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    assert_eq!(names, ["default", "small", "counters"]);
    let (small, counters) = (cf(&db, "small"), cf(&db, "counters"));
    db.put(&w(), b"k", b"default").expect("put");
    db.put_cf(&w(), &small, b"k", b"small").expect("put");
    db.merge_cf(&w(), &counters, b"k", &5u64.to_le_bytes())
        .expect("merge");
    db.merge_cf(&w(), &counters, b"k", &7u64.to_le_bytes())
        .expect("merge");
    assert_eq!(db.get(&r(), b"k").expect("get"), Some(b"default".to_vec()));
    assert_eq!(
        db.get_cf(&r(), &small, b"k").expect("get"),
        Some(b"small".to_vec())
    );
    assert_eq!(
        db.get_cf(&r(), &counters, b"k").expect("get"),
        Some(12u64.to_le_bytes().to_vec())
    );
    // The default family has no merge operator: merges there are refused when written (as in
    // RocksDB), and nothing of the batch is applied.
    let mut mixed = WriteBatch::new();
    mixed.put(b"m0", b"v").expect("put");
    mixed.merge(b"m", &1u64.to_le_bytes()).expect("merge");
    assert!(matches!(
        db.write(&w(), mixed),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(db.get(&r(), b"m0").expect("get"), None);
    assert_eq!(db.get(&r(), b"m").expect("get"), None);
    db.flush_cf(&small).expect("flush one family");
    assert_eq!(db.num_l0_files_cf(&small), 1);
    assert_eq!(db.num_l0_files(), 0, "the default family was not flushed");
    drop(db);

    assert_eq!(
        Db::list_column_families_with_fs(Arc::clone(&fs), DIR).expect("list"),
        ["default", "small", "counters"]
    );
    let db = open(&fs);
    let (small, counters) = (cf(&db, "small"), cf(&db, "counters"));
    assert_eq!(db.get(&r(), b"k").expect("get"), Some(b"default".to_vec()));
    assert_eq!(
        db.get_cf(&r(), &small, b"k").expect("get"),
        Some(b"small".to_vec())
    );
    assert_eq!(
        db.get_cf(&r(), &counters, b"k").expect("get"),
        Some(12u64.to_le_bytes().to_vec())
    );
    assert_eq!(
        db.multi_get_cf(&r(), &small, &[&b"k"[..], b"absent"])
            .into_iter()
            .map(|x| x.expect("multi_get"))
            .collect::<Vec<_>>(),
        vec![Some(b"small".to_vec()), None]
    );
}

#[test]
fn a_family_opened_without_its_descriptor_gets_the_default_options() {
    let fs = MemFs::new().shared();
    drop(open(&fs));
    let mut o = opts();
    o.db.create_missing_column_families = false;
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, o).expect("open without descriptors");
    let counters = cf(&db, "counters");
    assert!(counters.options().merge_operator.is_none());
    db.put_cf(&w(), &counters, b"x", b"1").expect("put");
    assert_eq!(
        db.get_cf(&r(), &counters, b"x").expect("get"),
        Some(b"1".to_vec())
    );
}

#[test]
fn missing_families_are_an_error_unless_created() {
    let fs = MemFs::new().shared();
    let mut o = opts();
    o.db.create_missing_column_families = false;
    let e = Db::open_cf_with_fs(Arc::clone(&fs), DIR, o.clone(), families())
        .expect_err("missing families");
    assert!(
        matches!(&e, Error::InvalidArgument(m) if m.contains("small")),
        "{e}"
    );
    assert!(
        fs.list(DIR.as_ref()).map_or(true, |l| l.is_empty()),
        "nothing written when the open is refused"
    );
    drop(open(&fs));
    let extra = vec![ColumnFamilyDescriptor::new("extra", CfOptions::default())];
    let e = Db::open_cf_with_fs(Arc::clone(&fs), DIR, o, extra).expect_err("missing family");
    assert!(
        matches!(&e, Error::InvalidArgument(m) if m.contains("extra")),
        "{e}"
    );
    let twice = vec![
        ColumnFamilyDescriptor::new("small", CfOptions::default()),
        ColumnFamilyDescriptor::new("small", CfOptions::default()),
    ];
    assert!(matches!(
        Db::open_cf_with_fs(Arc::clone(&fs), DIR, opts(), twice),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(
        Db::list_column_families_with_fs(fs, DIR).expect("list"),
        ["default", "small", "counters"]
    );
}

#[test]
fn create_and_drop_are_durable_and_dropped_handles_fail() {
    let fs = MemFs::new().shared();
    let db = open(&fs);
    let logs = db
        .create_column_family("logs", CfOptions::default())
        .expect("create");
    assert!(matches!(
        db.create_column_family("logs", CfOptions::default()),
        Err(Error::InvalidArgument(_))
    ));
    db.put_cf(&w(), &logs, b"a", b"1").expect("put");
    db.flush_cf(&logs).expect("flush");
    db.put_cf(&w(), &logs, b"b", b"2").expect("put");
    let mut it = db.iter_cf(&r(), &logs).expect("iter before drop");
    db.drop_column_family(&logs).expect("drop");
    // An iterator opened before the drop still reads its snapshot of the family.
    it.seek_to_first();
    assert!(it.valid() && it.key() == b"a");
    drop(it);
    for e in [
        db.put_cf(&w(), &logs, b"c", b"3")
            .expect_err("put after drop"),
        db.get_cf(&r(), &logs, b"a").expect_err("get after drop"),
        db.iter_cf(&r(), &logs)
            .map(|_| ())
            .expect_err("iter after drop"),
        db.flush_cf(&logs).expect_err("flush after drop"),
        db.drop_column_family(&logs).expect_err("drop twice"),
    ] {
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }
    let default = db.default_column_family();
    assert!(matches!(
        db.drop_column_family(&default),
        Err(Error::InvalidArgument(_))
    ));
    // A batch naming the dropped family is refused whole, and the database stays writable.
    let mut b = WriteBatch::new();
    b.put(b"in-default", b"x").expect("batch");
    b.put_cf(logs.id(), b"in-dropped", b"y").expect("batch");
    assert!(matches!(db.write(&w(), b), Err(Error::InvalidArgument(_))));
    assert_eq!(db.get(&r(), b"in-default").expect("get"), None);
    db.put(&w(), b"after", b"ok").expect("still writable");
    drop(db);

    let db = open(&fs);
    assert!(
        db.column_family("logs").is_none(),
        "the drop survived reopen"
    );
    assert_eq!(db.get(&r(), b"after").expect("get"), Some(b"ok".to_vec()));
    // A new family with the old name starts empty, with a new id.
    let again = db
        .create_column_family("logs", CfOptions::default())
        .expect("create again");
    assert_ne!(again.id(), logs.id());
    assert!(scan_cf(&db, &r(), &again).is_empty());
}

#[test]
fn an_idle_family_does_not_pin_old_wals_but_a_busy_one_does() {
    let fs = MemFs::new().shared();
    let db = open(&fs);
    let small = cf(&db, "small");
    db.put_cf(&w(), &small, b"a", b"1").expect("put");
    let first_wal = *wal_numbers(&fs).last().expect("a WAL");
    db.flush_cf(&small).expect("flush");
    // "default" and "counters" hold nothing in memory: the flush raised their log numbers too.
    assert!(
        wal_numbers(&fs).iter().all(|&n| n > first_wal),
        "WAL {first_wal} should be deleted: {:?}",
        wal_numbers(&fs)
    );

    db.put(&w(), b"pinned", b"v").expect("put default");
    let pinning_wal = *wal_numbers(&fs).last().expect("a WAL");
    db.put_cf(&w(), &small, b"b", b"2").expect("put");
    db.flush_cf(&small).expect("flush");
    assert!(
        wal_numbers(&fs).contains(&pinning_wal),
        "the default family's unflushed write keeps WAL {pinning_wal}"
    );
    drop(db);
    let db = open(&fs);
    assert_eq!(db.get(&r(), b"pinned").expect("get"), Some(b"v".to_vec()));
    let small = cf(&db, "small");
    assert_eq!(
        scan_cf(&db, &r(), &small).len(),
        2,
        "flushed records are not replayed twice"
    );
    assert!(wal_numbers(&fs).iter().all(|&n| n > pinning_wal));
}

#[test]
fn power_cuts_keep_cross_family_batches_atomic() {
    for cut in [3usize, 17, 64, 150, 333] {
        let mem = MemFs::new();
        let fs = mem.shared();
        let db = open(&fs);
        let (small, counters) = (cf(&db, "small"), cf(&db, "counters"));
        let mut synced = 0;
        for i in 0..cut {
            let key = (i as u32).to_be_bytes();
            let mut b = WriteBatch::new();
            b.put(&key, &[7; 200]).expect("batch");
            b.put_cf(small.id(), &key, &[8; 300]).expect("batch");
            b.merge_cf(counters.id(), b"total", &1u64.to_le_bytes())
                .expect("batch");
            let sync = i % 7 == 6;
            db.write(
                &WriteOptions {
                    sync,
                    ..WriteOptions::default()
                },
                b,
            )
            .expect("write");
            if sync {
                synced = i + 1;
            }
        }
        let crashed = mem.crash_clone(CrashOptions::synced_only()).shared();
        drop(db);
        let db = open(&crashed);
        let (small, counters) = (cf(&db, "small"), cf(&db, "counters"));
        let default_keys: Vec<Vec<u8>> = scan_cf(&db, &r(), &db.default_column_family())
            .into_keys()
            .collect();
        let small_keys: Vec<Vec<u8>> = scan_cf(&db, &r(), &small).into_keys().collect();
        let n = default_keys.len();
        assert_eq!(default_keys, small_keys, "cut {cut}: batches split");
        assert!(
            n >= synced,
            "cut {cut}: {n} batches survive, {synced} synced"
        );
        for (i, k) in default_keys.iter().enumerate() {
            assert_eq!(k, &(i as u32).to_be_bytes(), "cut {cut}: not a prefix");
        }
        let total = db.get_cf(&r(), &counters, b"total").expect("get");
        let expected = (n > 0).then(|| (n as u64).to_le_bytes().to_vec());
        assert_eq!(total, expected, "cut {cut}: merge count");
    }
}

#[derive(Debug, Clone)]
enum Op {
    Put(usize, u8, usize),
    Delete(usize, u8),
    /// One batch putting the key in every family.
    PutAll(u8),
    FlushOne(usize),
    FlushAll,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0usize..3, any::<u8>(), 0usize..2500).prop_map(|(c, k, n)| Op::Put(c, k, n)),
        3 => (0usize..3, any::<u8>()).prop_map(|(c, k)| Op::Delete(c, k)),
        2 => any::<u8>().prop_map(Op::PutAll),
        1 => (0usize..3).prop_map(Op::FlushOne),
        1 => Just(Op::FlushAll),
        1 => Just(Op::Reopen),
    ]
}

const NAMES: [&str; 3] = ["default", "small", "counters"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// Random writes, batches, flushes and reopens over three families against one model per
    /// family.
    #[test]
    fn model(ops in proptest::collection::vec(op(), 1..200)) {
        let fs = MemFs::new().shared();
        let mut db = open(&fs);
        let mut models: Vec<BTreeMap<Vec<u8>, Vec<u8>>> = vec![BTreeMap::new(); 3];
        for (i, op) in ops.iter().enumerate() {
            let key = |k: u8| format!("key{k:03}").into_bytes();
            match *op {
                Op::Put(c, k, n) => {
                    let v = vec![(i % 251) as u8; n];
                    db.put_cf(&w(), &cf(&db, NAMES[c]), &key(k), &v).expect("put");
                    models[c].insert(key(k), v);
                }
                Op::Delete(c, k) => {
                    db.delete_cf(&w(), &cf(&db, NAMES[c]), &key(k)).expect("delete");
                    models[c].remove(&key(k));
                }
                Op::PutAll(k) => {
                    let mut b = WriteBatch::new();
                    for (c, name) in NAMES.iter().enumerate() {
                        let v = format!("{name}{i}").into_bytes();
                        b.put_cf(cf(&db, name).id(), &key(k), &v).expect("batch");
                        models[c].insert(key(k), v);
                    }
                    db.write(&w(), b).expect("write");
                }
                Op::FlushOne(c) => db.flush_cf(&cf(&db, NAMES[c])).expect("flush"),
                Op::FlushAll => db.flush().expect("flush"),
                Op::Reopen => {
                    db.close().expect("close");
                    db = open(&fs);
                }
            }
        }
        for (c, name) in NAMES.iter().enumerate() {
            prop_assert_eq!(&scan_cf(&db, &r(), &cf(&db, name)), &models[c], "family {}", name);
        }
        db.close().expect("close");
        let db = open(&fs);
        for (c, name) in NAMES.iter().enumerate() {
            let got = scan_cf(&db, &r(), &cf(&db, name));
            prop_assert_eq!(&got, &models[c], "family {} after reopen", name);
        }
    }
}

/// RocksDB's `max_total_wal_size`: with several families, one written once pins the oldest
/// WAL until the live WALs pass the limit; then every family with data in that WAL is flushed
/// and the WAL deleted. Without a limit (the automatic one is far above what is written here),
/// the WAL stays.
#[test]
fn max_total_wal_size_flushes_the_families_pinning_the_oldest_wal() {
    const LIMIT: u64 = 256 << 10;
    for limit in [LIMIT, 0] {
        let fs = MemFs::new().shared();
        let mut o = opts();
        o.cf.write_buffer_size = 64 << 20; // no flush by memtable size here
        o.db.max_total_wal_size = limit;
        let rare = CfOptions {
            write_buffer_size: 64 << 20,
            ..CfOptions::default()
        };
        let families = vec![ColumnFamilyDescriptor::new("rare", rare)];
        let db =
            Db::open_cf_with_fs(Arc::clone(&fs), DIR, o.clone(), families.clone()).expect("open");
        let rare = cf(&db, "rare");
        db.put_cf(&w(), &rare, b"once", b"1").expect("put");
        let first_wal = *wal_numbers(&fs).last().expect("a WAL");
        let value = vec![7u8; 1000];
        for i in 0..2000u32 {
            db.put(&w(), &i.to_be_bytes(), &value).expect("put");
        }
        db.wait_for_compactions().expect("wait");
        // Writes went on while flushes ran, so the live WAL may have passed the limit; the next
        // write finds it over and switches before it is appended.
        db.put(&w(), b"last", b"x").expect("put");
        db.wait_for_compactions().expect("wait");
        let rare_tables: usize = db.level_summary_cf(&rare).iter().map(|l| l.files).sum();
        let wals = wal_numbers(&fs);
        let wal_bytes: u64 = wals
            .iter()
            .map(|n| {
                fs.size(&Path::new(DIR).join(format!("{n:06}.log")))
                    .expect("size")
            })
            .sum();
        if limit == 0 {
            assert_eq!(rare_tables, 0, "no limit reached: nothing flushed");
            assert_eq!(wals, vec![first_wal], "the one WAL holds everything");
        } else {
            assert_eq!(
                rare_tables, 1,
                "the family pinning the oldest WAL was flushed"
            );
            assert!(
                wals.iter().all(|&n| n > first_wal),
                "WAL {first_wal} deleted: {wals:?}"
            );
            assert!(
                wal_bytes <= LIMIT + (16 << 10),
                "live WAL bytes {wal_bytes} stay near the limit {LIMIT}"
            );
        }
        drop(db);
        let db = Db::open_cf_with_fs(Arc::clone(&fs), DIR, o, families).expect("reopen");
        let rare = cf(&db, "rare");
        assert_eq!(
            db.get_cf(&r(), &rare, b"once").expect("get"),
            Some(b"1".to_vec())
        );
        for i in [0u32, 999, 1999] {
            assert_eq!(
                db.get(&r(), &i.to_be_bytes()).expect("get"),
                Some(value.clone())
            );
        }
    }
}
