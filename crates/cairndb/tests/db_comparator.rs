//! Comparators through the public API (issue 16, item 1): a column family's keys in the order of
//! its `comparator`, on every read path (get, multi_get, iterators with bounds, both directions),
//! through flushes, compactions (subcompactions asked for), range deletions and reopen; for the
//! two built-in comparators and a user one. The name recorded in the MANIFEST refuses a reopen
//! with another comparator; option strings and OPTIONS files carry the built-in names; the
//! write path checks range deletions in the family's order; transactions and indexed batches
//! read their own writes in it.

mod common;

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use cairndb::batch::WriteBatch;
use cairndb::db::ColumnFamilyDescriptor;
use cairndb::fs::{FileSystem, MemFs};
use cairndb::options::{CfOptions, Options, ParseConfig, ReadOptions, WriteOptions};
use cairndb::{
    Comparator, Db, Error, KeyOrder, TransactionDb, TransactionDbOptions, TransactionOptions,
    WriteBatchWithIndex,
};
use common::DIR;
use proptest::prelude::*;

/// A user comparator: shorter keys first, then bytewise. Equal only for equal bytes.
struct ShortFirst;

impl Comparator for ShortFirst {
    fn name(&self) -> &str {
        "test.ShortFirst"
    }
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        a.len().cmp(&b.len()).then_with(|| a.cmp(b))
    }
}

fn short_first() -> KeyOrder {
    KeyOrder::custom(Arc::new(ShortFirst))
}

/// Small memtables and files so that a few hundred writes flush and compact; subcompactions
/// asked for (a comparator other than bytewise runs each compaction as one range).
fn opts(order: &KeyOrder) -> Options {
    let mut o = common::compaction_opts();
    o.cf.comparator = order.clone();
    o.db.max_subcompactions = 4;
    o
}

fn w() -> WriteOptions {
    WriteOptions::default()
}

fn r() -> ReadOptions {
    ReadOptions::default()
}

/// What the database must hold: a map, read in `order`.
struct Model {
    order: KeyOrder,
    map: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl Model {
    fn sorted(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut v: Vec<_> = self.map.clone().into_iter().collect();
        v.sort_by(|a, b| self.order.compare(&a.0, &b.0));
        v
    }

    fn delete_range(&mut self, begin: &[u8], end: &[u8]) {
        let o = &self.order;
        self.map
            .retain(|k, _| !(o.compare(begin, k).is_le() && o.compare(k, end).is_lt()));
    }
}

fn scan(db: &Db, ro: &ReadOptions, forward: bool) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = db.iter(ro).expect("iter");
    let mut out = Vec::new();
    if forward {
        it.seek_to_first();
    } else {
        it.seek_to_last();
    }
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        if forward {
            it.next();
        } else {
            it.prev();
        }
    }
    it.status().expect("scan");
    if !forward {
        out.reverse();
    }
    out
}

/// Every read path against the model.
fn check(db: &Db, m: &Model, probes: &[Vec<u8>]) {
    let want = m.sorted();
    assert_eq!(scan(db, &r(), true), want, "forward scan, {:?}", m.order);
    assert_eq!(scan(db, &r(), false), want, "backward scan, {:?}", m.order);
    let got = db.multi_get(&r(), probes).into_iter();
    for (p, g) in probes.iter().zip(got) {
        assert_eq!(
            g.expect("multi_get"),
            m.map.get(p).cloned(),
            "multi_get {p:?}"
        );
        assert_eq!(
            db.get(&r(), p).expect("get"),
            m.map.get(p).cloned(),
            "get {p:?}"
        );
    }
    let o = &m.order;
    let mut it = db.iter(&r()).expect("iter");
    for p in probes {
        it.seek(p);
        let first = want.iter().find(|(k, _)| o.compare(k, p).is_ge());
        assert_eq!(
            it.valid().then(|| it.key().to_vec()),
            first.map(|e| e.0.clone()),
            "seek {p:?}"
        );
        it.seek_for_prev(p);
        let last = want.iter().rev().find(|(k, _)| o.compare(k, p).is_le());
        assert_eq!(
            it.valid().then(|| it.key().to_vec()),
            last.map(|e| e.0.clone()),
            "seek_for_prev {p:?}"
        );
    }
    // Bounds compare in the family's order.
    if probes.len() >= 2 {
        let (a, b) = (&probes[0], &probes[probes.len() / 2]);
        let (lo, hi) = if o.compare(a, b).is_le() {
            (a, b)
        } else {
            (b, a)
        };
        let mut ro = r();
        ro.iterate_lower_bound = Some(lo.clone());
        ro.iterate_upper_bound = Some(hi.clone());
        let bounded: Vec<_> = want
            .iter()
            .filter(|(k, _)| o.compare(k, lo).is_ge() && o.compare(k, hi).is_lt())
            .cloned()
            .collect();
        assert_eq!(
            scan(db, &ro, true),
            bounded,
            "bounded forward {lo:?}..{hi:?}"
        );
        assert_eq!(
            scan(db, &ro, false),
            bounded,
            "bounded backward {lo:?}..{hi:?}"
        );
    }
}

#[derive(Debug, Clone)]
enum Op {
    Put(u16, u8),
    Delete(u16),
    DeleteRange(u16, u16),
    Flush,
    Compact,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (0u16..4000, any::<u8>()).prop_map(|(k, v)| Op::Put(k, v)),
        3 => (0u16..4000).prop_map(Op::Delete),
        1 => (0u16..4000, 0u16..4000).prop_map(|(a, b)| Op::DeleteRange(a, b)),
        1 => Just(Op::Flush),
        1 => Just(Op::Compact),
        1 => Just(Op::Reopen),
    ]
}

/// Keys of different lengths, so that the user comparator orders differently from bytewise.
fn key(k: u16) -> Vec<u8> {
    format!("k{}", u32::from(k) * 7 % 10_000).into_bytes()
}

/// Runs `ops` against the database and the model, checks every read path after them, after a
/// full compaction and after a reopen; returns the files per level the history left (before
/// the full compaction).
fn run(order: KeyOrder, ops: &[Op]) -> Vec<u64> {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let open = || Db::open_with_fs(Arc::clone(&fs), DIR, opts(&order)).expect("open");
    let mut db = open();
    let mut m = Model {
        order: order.clone(),
        map: BTreeMap::new(),
    };
    let value = |k: u16, v: u8| vec![v; usize::from(k % 197) + 1];
    for op in ops {
        match *op {
            Op::Put(k, v) => {
                db.put(&w(), &key(k), &value(k, v)).expect("put");
                m.map.insert(key(k), value(k, v));
            }
            Op::Delete(k) => {
                db.delete(&w(), &key(k)).expect("delete");
                m.map.remove(&key(k));
            }
            Op::DeleteRange(a, b) => {
                let (a, b) = (key(a), key(b));
                let (a, b) = if order.compare(&a, &b).is_le() {
                    (a, b)
                } else {
                    (b, a)
                };
                db.delete_range(&w(), &a, &b).expect("delete_range");
                m.delete_range(&a, &b);
            }
            Op::Flush => db.flush().expect("flush"),
            Op::Compact => db.compact_range(None, None).expect("compact"),
            Op::Reopen => {
                db.close().expect("close");
                db = open();
            }
        }
    }
    let probes: Vec<Vec<u8>> = (0..4000u16)
        .step_by(61)
        .map(key)
        .chain([Vec::new(), b"k".to_vec(), b"k5".to_vec(), b"\xff".to_vec()])
        .collect();
    check(&db, &m, &probes);
    let shape = (0..7)
        .map(|l| {
            let p = db.property(&format!("rocksdb.num-files-at-level{l}"));
            p.expect("known property").parse().expect("a number")
        })
        .collect();
    db.flush().expect("flush");
    db.compact_range(None, None).expect("compact");
    check(&db, &m, &probes);
    db.close().expect("close");
    let db = open();
    check(&db, &m, &probes);
    db.close().expect("close");
    shape
}

/// Enough writes to flush many memtables and compact into deeper levels.
fn long_history() -> Vec<Op> {
    let mut ops: Vec<Op> = (0..30_000u32)
        .map(|i| {
            let k = ((i * 7919) % 4000) as u16;
            match i % 50 {
                7 | 19 | 33 => Op::Delete(k),
                41 if i % 7 == 0 => Op::DeleteRange(k, k.saturating_add(40)),
                _ => Op::Put(k, (i % 251) as u8),
            }
        })
        .collect();
    ops.insert(15_000, Op::Reopen);
    ops
}

/// The long history must have compacted below L1, so that leveled compaction, its output
/// cuts and the level searches all ran in the order under test.
fn check_deep(shape: &[u64]) {
    assert!(
        shape[2..].iter().sum::<u64>() > 0,
        "files per level {shape:?}"
    );
}

#[test]
fn bytewise_reads_in_ascending_order() {
    check_deep(&run(KeyOrder::BYTEWISE, &long_history()));
}

#[test]
fn reverse_bytewise_reads_in_descending_order() {
    check_deep(&run(KeyOrder::REVERSE_BYTEWISE, &long_history()));
}

#[test]
fn a_user_comparator_orders_everything() {
    check_deep(&run(short_first(), &long_history()));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_histories_match_the_model_in_every_order(
        ops in prop::collection::vec(op(), 0..300),
        which in 0usize..3,
    ) {
        let order = [KeyOrder::BYTEWISE, KeyOrder::REVERSE_BYTEWISE, short_first()][which].clone();
        run(order, &ops);
    }
}

#[test]
fn a_reverse_family_scans_descending_beside_a_bytewise_default() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let mut o = common::opts();
    o.db.create_missing_column_families = true;
    let rev = CfOptions {
        comparator: KeyOrder::REVERSE_BYTEWISE,
        ..CfOptions::default()
    };
    let families = || vec![ColumnFamilyDescriptor::new("rev", rev.clone())];
    let db = Db::open_cf_with_fs(Arc::clone(&fs), DIR, o.clone(), families()).expect("open");
    let cf = db.column_family("rev").expect("rev");
    for k in [b"a", b"c", b"b"] {
        db.put(&w(), k, b"d").expect("put");
        db.put_cf(&w(), &cf, k, b"r").expect("put_cf");
    }
    let keys = |mut it: cairndb::DbIter| {
        it.seek_to_first();
        let mut out = Vec::new();
        while it.valid() {
            out.push(it.key().to_vec());
            it.next();
        }
        out
    };
    assert_eq!(keys(db.iter(&r()).expect("iter")), [b"a", b"b", b"c"]);
    assert_eq!(
        keys(db.iter_cf(&r(), &cf).expect("iter")),
        [b"c", b"b", b"a"]
    );
    db.close().expect("close");

    // The MANIFEST recorded each family's comparator: reopening the family with another is
    // refused, naming both.
    let plain = vec![ColumnFamilyDescriptor::new("rev", CfOptions::default())];
    let e = Db::open_cf_with_fs(Arc::clone(&fs), DIR, o.clone(), plain).expect_err("mismatch");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("rocksdb.ReverseBytewiseComparator") && msg.contains("leveldb.Bytewise"),
        "{msg}"
    );
    let mut other_default = o.clone();
    other_default.cf.comparator = KeyOrder::REVERSE_BYTEWISE;
    let e = Db::open_cf_with_fs(Arc::clone(&fs), DIR, other_default, families())
        .expect_err("default family mismatch");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    // Nothing was lost to the refused opens.
    let db = Db::open_cf_with_fs(Arc::clone(&fs), DIR, o, families()).expect("reopen");
    let cf = db.column_family("rev").expect("rev");
    assert_eq!(
        keys(db.iter_cf(&r(), &cf).expect("iter")),
        [b"c", b"b", b"a"]
    );
    db.close().expect("close");
}

#[test]
fn a_user_comparator_is_known_by_its_name() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let db = Db::open_with_fs(Arc::clone(&fs), DIR, opts(&short_first())).expect("open");
    db.put(&w(), b"bb", b"1").expect("put");
    db.flush().expect("flush");
    db.close().expect("close");
    let e = Db::open_with_fs(Arc::clone(&fs), DIR, opts(&KeyOrder::BYTEWISE)).expect_err("name");
    assert!(e.to_string().contains("test.ShortFirst"), "{e}");
    let db = Db::open_with_fs(fs, DIR, opts(&short_first())).expect("same name");
    assert_eq!(db.get(&r(), b"bb").expect("get"), Some(b"1".to_vec()));
    db.close().expect("close");
}

#[test]
fn option_strings_name_the_built_in_comparators() {
    let cf = CfOptions::from_options_string("comparator=rocksdb.ReverseBytewiseComparator")
        .expect("reverse");
    assert_eq!(cf.comparator, KeyOrder::REVERSE_BYTEWISE);
    let cf = CfOptions::from_options_string("comparator=leveldb.BytewiseComparator").expect("b");
    assert_eq!(cf.comparator, KeyOrder::BYTEWISE);
    let e = CfOptions::from_options_string("comparator=my.Comparator").expect_err("unknown");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    // A user comparator already set keeps its name through an options string (an OPTIONS file
    // written for it), and prints it.
    let mut cf = CfOptions {
        comparator: short_first(),
        ..CfOptions::default()
    };
    assert!(cf
        .to_options_string()
        .contains("comparator=test.ShortFirst"));
    cf.apply_options_string(
        "comparator=test.ShortFirst;write_buffer_size=1048576",
        &ParseConfig::default(),
    )
    .expect("same name");
    assert_eq!(cf.comparator.name(), "test.ShortFirst");
    let printed = CfOptions {
        comparator: KeyOrder::REVERSE_BYTEWISE,
        ..CfOptions::default()
    }
    .to_options_string();
    let back = CfOptions::from_options_string(&printed).expect("round trip");
    assert_eq!(back.comparator, KeyOrder::REVERSE_BYTEWISE);
}

#[test]
fn the_comparator_cannot_change_on_a_live_database() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let db = Db::open_with_fs(fs, DIR, opts(&KeyOrder::BYTEWISE)).expect("open");
    let e = db
        .set_options_default(&[("comparator", "rocksdb.ReverseBytewiseComparator")])
        .expect_err("not mutable");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    db.close().expect("close");
}

#[test]
fn range_deletions_are_checked_in_the_family_order() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let open = || Db::open_with_fs(Arc::clone(&fs), DIR, opts(&KeyOrder::REVERSE_BYTEWISE));
    let db = open().expect("open");
    for k in [b"a", b"b", b"c", b"d"] {
        db.put(&w(), k, b"v").expect("put");
    }
    // Descending: [c, a) holds c and b.
    db.delete_range(&w(), b"c", b"a").expect("descending range");
    // Ascending bounds are an inverted range here: refused before the WAL, nothing applied.
    let mut batch = WriteBatch::new();
    batch.put(b"e", b"v").expect("put");
    batch.delete_range(b"a", b"d").expect("the batch takes it");
    let e = db.write(&w(), batch).expect_err("inverted");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    assert!(e.to_string().contains("end key comes before"), "{e}");
    let e = db.delete_range(&w(), b"a", b"d").expect_err("inverted");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let live =
        |db: &Db| -> Vec<Vec<u8>> { scan(db, &r(), true).into_iter().map(|e| e.0).collect() };
    assert_eq!(live(&db), [b"d".to_vec(), b"a".to_vec()]);
    db.close().expect("close");
    let db = open().expect("reopen");
    assert_eq!(
        live(&db),
        [b"d".to_vec(), b"a".to_vec()],
        "the refused batch left no trace"
    );
    db.close().expect("close");
}

#[test]
fn indexed_batches_and_transactions_read_their_writes_in_the_family_order() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let db =
        Db::open_with_fs(Arc::clone(&fs), DIR, opts(&KeyOrder::REVERSE_BYTEWISE)).expect("open");
    for k in [b"b", b"d", b"f"] {
        db.put(&w(), k, b"base").expect("put");
    }
    let mut wb = WriteBatchWithIndex::with_comparator(KeyOrder::REVERSE_BYTEWISE);
    wb.put(b"e", b"batch").expect("put");
    wb.put(b"a", b"batch").expect("put");
    // [d, b) in descending order: d and c, not b.
    wb.delete_range(b"d", b"b").expect("descending range");
    assert!(matches!(
        wb.delete_range(b"b", b"d"),
        Err(Error::InvalidArgument(_))
    ));
    let mut it = wb.iter_with_base(&db, &r()).expect("iter");
    let mut got = Vec::new();
    it.seek_to_first();
    while it.valid() {
        got.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().expect("status");
    let want: Vec<(Vec<u8>, Vec<u8>)> = [
        (&b"f"[..], &b"base"[..]),
        (b"e", b"batch"),
        (b"b", b"base"),
        (b"a", b"batch"),
    ]
    .iter()
    .map(|(k, v)| (k.to_vec(), v.to_vec()))
    .collect();
    assert_eq!(got, want);
    it.seek(b"c");
    assert_eq!(
        it.key(),
        b"b",
        "seek lands on the first key at or after c, descending"
    );
    drop(it);
    db.close().expect("close");

    let mut o = opts(&KeyOrder::REVERSE_BYTEWISE);
    o.db.create_if_missing = false;
    let tdb = TransactionDb::open_cf_with_fs(fs, DIR, o, TransactionDbOptions::default(), vec![])
        .expect("open transaction db");
    let mut txn = tdb
        .begin_transaction(&w(), &TransactionOptions::default())
        .expect("begin");
    txn.put(b"c", b"txn").expect("put");
    let mut it = txn.iter(&r()).expect("iter");
    it.seek_to_last();
    let mut backward = Vec::new();
    while it.valid() {
        backward.push(it.key().to_vec());
        it.prev();
    }
    assert_eq!(
        backward,
        [b"b".to_vec(), b"c".to_vec(), b"d".to_vec(), b"f".to_vec()]
    );
    drop(it);
    txn.commit().expect("commit");
    tdb.close().expect("close");
}

#[test]
fn a_table_is_read_only_in_the_order_it_was_written_in() {
    use cairndb::sstable::{Table, TableBuilder, TableOptions};
    use cairndb::types::{make_internal_key, ValueKind};
    let fs = MemFs::new();
    let path = std::path::Path::new("/t.sst");
    let rev = TableOptions {
        comparator: KeyOrder::REVERSE_BYTEWISE,
        ..TableOptions::default()
    };
    let mut b = TableBuilder::new(fs.create(path).expect("create"), path, &rev).expect("builder");
    for k in [b"c", b"b", b"a"] {
        b.add(&make_internal_key(k, 1, ValueKind::Put), b"v")
            .expect("add");
    }
    let built = b.finish().expect("finish");
    assert_eq!(
        built.properties.comparator,
        "rocksdb.ReverseBytewiseComparator"
    );
    let file = fs.open_read(path).expect("open");
    let size = file.size().expect("size");
    let e = Table::open(Arc::clone(&file), path, size, &TableOptions::default())
        .expect_err("another order");
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    let t = Table::open(file, path, size, &rev).expect("same order");
    assert_eq!(
        t.get(&make_internal_key(b"b", 9, ValueKind::Put))
            .expect("get")
            .map(|e| e.value),
        Some(b"v".to_vec())
    );
}

/// A comparator that breaks its contract once `flipped` is set: the order of keys already in a
/// memtable changes under it.
struct Flipping {
    flipped: std::sync::atomic::AtomicBool,
}

impl Comparator for Flipping {
    fn name(&self) -> &str {
        "test.Flipping"
    }
    fn compare(&self, a: &[u8], b: &[u8]) -> Ordering {
        if self.flipped.load(std::sync::atomic::Ordering::Relaxed) {
            b.cmp(a)
        } else {
            a.cmp(b)
        }
    }
}

#[test]
fn a_comparator_that_breaks_its_contract_stops_the_database_instead_of_hanging_it() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let cmp = Arc::new(Flipping {
        flipped: std::sync::atomic::AtomicBool::new(false),
    });
    let mut o = opts(&KeyOrder::custom(Arc::clone(&cmp) as Arc<dyn Comparator>));
    o.cf.disable_auto_compactions = true;
    let db = Db::open_with_fs(fs, DIR, o).expect("open");
    for i in 0..100u32 {
        db.put(&w(), format!("k{i:03}").as_bytes(), b"v")
            .expect("put");
    }
    cmp.flipped
        .store(true, std::sync::atomic::Ordering::Relaxed);
    // The flush finds the memtable's keys out of the comparator's order: its job panics, and
    // the database stops with the reason instead of losing its flush thread.
    let e = db.flush().expect_err("the flush cannot succeed");
    assert!(e.to_string().contains("panicked"), "{e}");
    let e = db.put(&w(), b"x", b"v").expect_err("stopped");
    assert!(matches!(e, Error::Poisoned(_)), "{e}");
    db.close().expect("close");
}
