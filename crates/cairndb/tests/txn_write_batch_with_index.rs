//! `WriteBatchWithIndex`: what it reads back (alone, over the database, as an iterator merged
//! with the database's) must be what the database holds once the batch is committed.
//!
//! The differential test builds random database contents (some flushed to tables), a random
//! batch of puts, deletions, merges and range deletions over the same keys, reads everything
//! through the batch (one by one and batched), commits the batch, and reads everything again from the database: the
//! answers, the forward and backward scans, and random walks of seeks, `next`s and `prev`s must
//! match exactly.

mod common;

use std::sync::Arc;

use cairndb::fs::MemFs;
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::{BatchLookup, Db, StringAppendOperator, WriteBatchWithIndex};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn open() -> Db {
    let mut o = common::opts();
    o.cf.merge_operator = Some(Arc::new(StringAppendOperator::new(b",")));
    Db::open_with_fs(MemFs::new().shared(), common::DIR, o).expect("open")
}

fn k(i: u32) -> Vec<u8> {
    format!("k{i:03}").into_bytes()
}

/// A walk of the given steps; returns what the iterator showed after each.
fn walk<I: Cursor>(it: &mut I, steps: &[Step]) -> Vec<Option<(Vec<u8>, Vec<u8>)>> {
    let mut out = Vec::new();
    for s in steps {
        match s {
            Step::First => it.first(),
            Step::Last => it.last(),
            Step::Seek(t) => it.seek(t),
            Step::SeekForPrev(t) => it.seek_for_prev(t),
            Step::Next => {
                if it.valid() {
                    it.next()
                }
            }
            Step::Prev => {
                if it.valid() {
                    it.prev()
                }
            }
        }
        out.push(it.valid().then(|| it.entry()));
    }
    out
}

#[derive(Debug, Clone)]
enum Step {
    First,
    Last,
    Seek(Vec<u8>),
    SeekForPrev(Vec<u8>),
    Next,
    Prev,
}

/// The iterator operations the walk needs, over both iterator types.
trait Cursor {
    fn first(&mut self);
    fn last(&mut self);
    fn seek(&mut self, t: &[u8]);
    fn seek_for_prev(&mut self, t: &[u8]);
    fn next(&mut self);
    fn prev(&mut self);
    fn valid(&self) -> bool;
    fn entry(&self) -> (Vec<u8>, Vec<u8>);
}

macro_rules! cursor {
    ($t:ty) => {
        impl Cursor for $t {
            fn first(&mut self) {
                self.seek_to_first()
            }
            fn last(&mut self) {
                self.seek_to_last()
            }
            fn seek(&mut self, t: &[u8]) {
                <$t>::seek(self, t)
            }
            fn seek_for_prev(&mut self, t: &[u8]) {
                <$t>::seek_for_prev(self, t)
            }
            fn next(&mut self) {
                <$t>::next(self)
            }
            fn prev(&mut self) {
                <$t>::prev(self)
            }
            fn valid(&self) -> bool {
                <$t>::valid(self)
            }
            fn entry(&self) -> (Vec<u8>, Vec<u8>) {
                (self.key().to_vec(), self.value().to_vec())
            }
        }
    };
}
cursor!(cairndb::DbIter);
cursor!(cairndb::BaseDeltaIter<'_>);

fn random_steps(rng: &mut StdRng, n: usize) -> Vec<Step> {
    (0..n)
        .map(|_| match rng.gen_range(0..10) {
            0 => Step::First,
            1 => Step::Last,
            2 => Step::Seek(k(rng.gen_range(0..60))),
            3 => Step::SeekForPrev(k(rng.gen_range(0..60))),
            4..=6 => Step::Next,
            _ => Step::Prev,
        })
        .collect()
}

fn read_options(rng: &mut StdRng) -> ReadOptions {
    let mut ro = ReadOptions::default();
    if rng.gen_bool(0.3) {
        ro.iterate_lower_bound = Some(k(rng.gen_range(0..20)));
    }
    if rng.gen_bool(0.3) {
        ro.iterate_upper_bound = Some(k(rng.gen_range(30..60)));
    }
    ro
}

#[test]
fn batch_reads_match_the_database_after_commit() {
    for seed in 0..150u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let db = open();
        let w = WriteOptions::default();
        for round in 0..3 {
            for _ in 0..rng.gen_range(0..40) {
                let key = k(rng.gen_range(0..50));
                match rng.gen_range(0..6) {
                    0 => db.delete(&w, &key).expect("delete"),
                    1 => db.merge(&w, &key, b"m").expect("merge"),
                    _ => db
                        .put(&w, &key, format!("db{round}").as_bytes())
                        .expect("put"),
                }
            }
            if rng.gen_bool(0.5) {
                db.flush().expect("flush");
            }
        }
        let mut wb = WriteBatchWithIndex::new();
        for i in 0..rng.gen_range(0..40) {
            let key = k(rng.gen_range(0..50));
            match rng.gen_range(0..10) {
                0..=3 => wb.put(&key, format!("b{i}").as_bytes()).expect("put"),
                4 | 5 => wb.delete(&key).expect("delete"),
                6 | 7 => wb.merge(&key, format!("o{i}").as_bytes()).expect("merge"),
                _ => {
                    let a = rng.gen_range(0..50);
                    let b = a + rng.gen_range(0..8);
                    wb.delete_range(&k(a), &k(b)).expect("delete_range")
                }
            }
        }
        let ro = read_options(&mut rng);
        let steps = random_steps(&mut rng, 40);
        let keys: Vec<Vec<u8>> = (0..52).map(k).collect();
        let via_batch: Vec<Option<Vec<u8>>> = keys
            .iter()
            .map(|key| {
                wb.get_from_batch_and_db(&db, &ReadOptions::default(), key)
                    .expect("get")
            })
            .collect();
        // The batched read: any keys, in any order, repeated, answer as the single reads.
        let picks: Vec<usize> = (0..rng.gen_range(0..60))
            .map(|_| rng.gen_range(0..keys.len()))
            .collect();
        let picked: Vec<&[u8]> = picks.iter().map(|&i| keys[i].as_slice()).collect();
        let cf = db.default_column_family();
        let multi: Vec<Option<Vec<u8>>> = wb
            .multi_get_from_batch_and_db_cf(&db, &ReadOptions::default(), &cf, &picked)
            .into_iter()
            .map(|r| r.expect("multi_get"))
            .collect();
        let single: Vec<Option<Vec<u8>>> = picks.iter().map(|&i| via_batch[i].clone()).collect();
        assert_eq!(multi, single, "seed {seed}: multi_get_from_batch_and_db");
        let (batch_scan, batch_walk) = {
            let mut it = wb.iter_with_base(&db, &ro).expect("iter");
            let scan = full_scans(&mut it);
            let walked = walk(&mut it, &steps);
            it.status().expect("status");
            (scan, walked)
        };
        db.write(&w, wb.into_batch()).expect("commit");
        let via_db: Vec<Option<Vec<u8>>> = keys
            .iter()
            .map(|key| db.get(&ReadOptions::default(), key).expect("get"))
            .collect();
        assert_eq!(via_batch, via_db, "seed {seed}: point reads");
        let mut it = db.iter(&ro).expect("iter");
        assert_eq!(batch_scan, full_scans(&mut it), "seed {seed}: scans");
        assert_eq!(
            batch_walk,
            walk(&mut it, &steps),
            "seed {seed}: walk {steps:?}"
        );
    }
}

/// A forward scan followed by a backward scan.
fn full_scans<I: Cursor>(it: &mut I) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    it.first();
    while it.valid() {
        out.push(it.entry());
        it.next();
    }
    it.last();
    while it.valid() {
        out.push(it.entry());
        it.prev();
    }
    out
}

#[test]
fn get_from_batch_tells_value_deletion_absence_and_pending_merge_apart() {
    let db = open();
    let cf = db.default_column_family();
    let mut wb = WriteBatchWithIndex::new();
    wb.put(b"a", b"1").expect("put");
    wb.delete(b"b").expect("delete");
    wb.merge(b"c", b"x").expect("merge");
    wb.put(b"d", b"base").expect("put");
    wb.merge(b"d", b"more").expect("merge");
    wb.delete_range(b"r0", b"r9").expect("delete_range");
    assert_eq!(
        wb.get_from_batch(&cf, b"a").expect("a"),
        BatchLookup::Value(b"1".to_vec())
    );
    assert_eq!(
        wb.get_from_batch(&cf, b"b").expect("b"),
        BatchLookup::Deleted
    );
    assert_eq!(
        wb.get_from_batch(&cf, b"c").expect("c"),
        BatchLookup::MergeInProgress
    );
    assert_eq!(
        wb.get_from_batch(&cf, b"d").expect("d"),
        BatchLookup::Value(b"base,more".to_vec())
    );
    assert_eq!(
        wb.get_from_batch(&cf, b"r5").expect("r5"),
        BatchLookup::Deleted
    );
    assert_eq!(
        wb.get_from_batch(&cf, b"z").expect("z"),
        BatchLookup::NotFound
    );
    db.put(&WriteOptions::default(), b"c", b"db").expect("put");
    assert_eq!(
        wb.get_from_batch_and_db(&db, &ReadOptions::default(), b"c")
            .expect("c"),
        Some(b"db,x".to_vec())
    );
}

#[test]
fn savepoints_roll_the_index_back_with_the_batch() {
    let db = open();
    let cf = db.default_column_family();
    let mut wb = WriteBatchWithIndex::new();
    wb.put(b"a", b"1").expect("put");
    wb.set_savepoint();
    wb.put(b"a", b"2").expect("put");
    wb.delete_range(b"a", b"z").expect("delete_range");
    wb.put(b"b", b"3").expect("put");
    assert_eq!(
        wb.get_from_batch(&cf, b"a").expect("a"),
        BatchLookup::Deleted
    );
    wb.rollback_to_savepoint().expect("rollback");
    assert_eq!(wb.count(), 1);
    assert_eq!(
        wb.get_from_batch(&cf, b"a").expect("a"),
        BatchLookup::Value(b"1".to_vec())
    );
    assert_eq!(
        wb.get_from_batch(&cf, b"b").expect("b"),
        BatchLookup::NotFound
    );
    assert!(matches!(
        wb.rollback_to_savepoint(),
        Err(cairndb::Error::NotFound(_))
    ));
    assert_eq!(wb.count(), 1, "a refused rollback changes nothing");
}

#[test]
fn a_refused_write_changes_neither_batch_nor_index() {
    let db = open();
    let cf = db.default_column_family();
    let mut wb = WriteBatchWithIndex::new();
    wb.put(b"a", b"1").expect("put");
    assert!(wb.delete_range(b"z", b"a").is_err(), "begin after end");
    let huge = vec![0u8; 9 << 20];
    assert!(wb.put(&huge, b"v").is_err(), "key over 8 MiB");
    assert_eq!(wb.count(), 1);
    assert_eq!(
        wb.get_from_batch(&cf, b"a").expect("a"),
        BatchLookup::Value(b"1".to_vec())
    );
    assert_eq!(
        wb.get_from_batch(&cf, b"b").expect("b"),
        BatchLookup::NotFound
    );
}

#[test]
fn column_families_are_indexed_apart() {
    let mut o: Options = common::opts();
    o.cf.merge_operator = Some(Arc::new(StringAppendOperator::new(b",")));
    let db = Db::open_with_fs(MemFs::new().shared(), common::DIR, o).expect("open");
    let other = db
        .create_column_family("other", cairndb::options::CfOptions::default())
        .expect("cf");
    let mut wb = WriteBatchWithIndex::new();
    wb.put_cf(&other, b"k", b"in other").expect("put");
    wb.put(b"k", b"in default").expect("put");
    let r = ReadOptions::default();
    assert_eq!(
        wb.get_from_batch_and_db_cf(&db, &r, &other, b"k")
            .expect("get"),
        Some(b"in other".to_vec())
    );
    assert_eq!(
        wb.get_from_batch_and_db(&db, &r, b"k").expect("get"),
        Some(b"in default".to_vec())
    );
    db.write(&WriteOptions::default(), wb.into_batch())
        .expect("write");
    assert_eq!(
        db.get_cf(&r, &other, b"k").expect("get"),
        Some(b"in other".to_vec())
    );
}
