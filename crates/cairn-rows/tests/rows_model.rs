//! The row layer against a model (issue 16, item 3): random inserts, updates and deletes in
//! transactions on a table with a unique and two non-unique secondary indexes, one in a
//! reverse-ordered family and one covering; after every transaction the rows equal the model's,
//! duplicate keys are refused exactly when the model says so, scans in both directions over
//! every index return the model's order, every index entry points at a row and every row has its
//! entries; the same holds after flushes, reopen, and power cuts (synced commits survive them).

use std::collections::BTreeMap;
use std::path::Path;

use cairn_rows::check::check_table;
use cairn_rows::schema::{Column, ColumnType, IndexDef, TableDef, Value};
use cairn_rows::{
    Bound, CairnStore, Database, DatabaseOptions, Direction, Error, Fetch, Isolation, KvStore,
    Table,
};
use cairndb::fs::{CrashOptions, MemFs};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const ID: usize = 0;
const K: usize = 1;
const U: usize = 2;
const C: usize = 3;
const D: usize = 4;

fn table() -> TableDef {
    TableDef::new(
        "t",
        vec![
            Column::new("id", ColumnType::INT),
            Column::new("k", ColumnType::SMALLINT),
            Column::nullable("u", ColumnType::Varchar(12)),
            Column::new("c", ColumnType::Char(6)),
            Column::nullable("d", ColumnType::Double),
        ],
        &[ID],
    )
    .with_index(IndexDef::new("k_1", &[K], false).in_cf("rev:k"))
    .with_index(IndexDef::new("u_1", &[U], true))
    .with_index(
        IndexDef::new("kc", &[K, C], false)
            .in_cf("idx")
            .including(&[D]),
    )
}

fn open(fs: &MemFs) -> Database<CairnStore> {
    let options = DatabaseOptions {
        engine_options: "write_buffer_size=65536;level0_file_num_compaction_trigger=2".into(),
        sync: true,
    };
    Database::open_with(&[table()], &options, |config| {
        CairnStore::open_with_fs(fs.shared(), Path::new("/db"), config)
    })
    .expect("open")
}

fn random_row(rng: &mut SmallRng, id: i64) -> Vec<Value> {
    let u = if rng.gen_bool(0.3) {
        Value::Null
    } else {
        Value::Bytes(format!("u{}", rng.gen_range(0..60)).into_bytes())
    };
    let d = if rng.gen_bool(0.2) {
        Value::Null
    } else {
        Value::Double(f64::from(rng.gen_range(-50i32..50)) / 4.0)
    };
    vec![
        Value::Int(id),
        Value::Int(rng.gen_range(-5..5)),
        u,
        Value::Bytes(format!("c{}", rng.gen_range(0..4)).into_bytes()),
        d,
    ]
}

type Model = BTreeMap<i64, Vec<Value>>;

/// Would `row` repeat a unique key of the model (ignoring the row with id `except`)?
fn duplicates(model: &Model, row: &[Value], except: Option<i64>) -> bool {
    let id = row[ID].as_i64().expect("id");
    (Some(id) != except && model.contains_key(&id))
        || (!row[U].is_null()
            && model
                .iter()
                .any(|(i, r)| Some(*i) != except && r[U] == row[U]))
}

/// Runs one random transaction; returns the model after it.
fn random_txn<S: KvStore>(db: &Database<S>, t: &Table, model: &Model, rng: &mut SmallRng) -> Model {
    let mut next = model.clone();
    let mut txn = db.begin(Isolation::ReadCommitted).expect("begin");
    for _ in 0..rng.gen_range(1..5) {
        let op = rng.gen_range(0..10);
        let existing: Vec<i64> = next.keys().copied().collect();
        let result = if op < 5 || existing.is_empty() {
            let id = rng.gen_range(0..80);
            let row = random_row(rng, id);
            let dup = duplicates(&next, &row, None);
            let r = txn.insert(t, row.clone());
            assert_eq!(matches!(r, Err(Error::DuplicateKey { .. })), dup, "{r:?}");
            if r.is_ok() {
                next.insert(row[ID].as_i64().expect("id"), row);
            }
            r
        } else if op < 8 {
            let id = existing[rng.gen_range(0..existing.len())];
            let old = txn
                .get_for_update(t, &[Value::Int(id)])
                .expect("read")
                .expect("the model's row exists");
            assert_eq!(&old, &next[&id]);
            let new_id = if rng.gen_bool(0.2) {
                rng.gen_range(0..80)
            } else {
                id
            };
            let new = random_row(rng, new_id);
            let dup = duplicates(&next, &new, Some(id));
            let r = txn.update(t, &old, new.clone());
            assert_eq!(matches!(r, Err(Error::DuplicateKey { .. })), dup, "{r:?}");
            if r.is_ok() {
                next.remove(&id);
                next.insert(new_id, new);
            }
            r
        } else {
            let id = existing[rng.gen_range(0..existing.len())];
            let row = next.remove(&id).expect("exists");
            txn.delete(t, &row)
        };
        if result.is_err() {
            // A failed statement rolls the whole transaction back here.
            txn.rollback().expect("rollback");
            return model.clone();
        }
    }
    if rng.gen_bool(0.1) {
        txn.rollback().expect("rollback");
        return model.clone();
    }
    txn.commit().expect("commit");
    next
}

fn scan<S: KvStore>(
    db: &Database<S>,
    t: &Table,
    index: usize,
    lower: &Bound,
    upper: &Bound,
    direction: Direction,
) -> Vec<Vec<Value>> {
    let mut txn = db.begin(Isolation::ReadCommitted).expect("begin");
    let mut rows = Vec::new();
    txn.scan(t, index, lower, upper, direction, Fetch::Rows, None, |r| {
        rows.push(r);
        Ok(true)
    })
    .expect("scan");
    rows
}

fn sorted_by(model: &Model, key: impl Fn(&Vec<Value>) -> Vec<Value>) -> Vec<Vec<Value>> {
    let mut rows: Vec<Vec<Value>> = model.values().cloned().collect();
    rows.sort_by(|a, b| key(a).partial_cmp(&key(b)).expect("comparable"));
    rows
}

/// Everything the database answers equals the model.
fn verify<S: KvStore>(db: &Database<S>, model: &Model) {
    let t = db.table("t").expect("table");
    let report = check_table(db, &t).expect("consistent");
    assert_eq!(report.rows, model.len() as u64);
    let all: Vec<Vec<Value>> = model.values().cloned().collect();
    let (un, un2) = (Bound::Unbounded, Bound::Unbounded);
    assert_eq!(scan(db, &t, 0, &un, &un2, Direction::Asc), all);
    let mut rev = all.clone();
    rev.reverse();
    assert_eq!(scan(db, &t, 0, &un, &un2, Direction::Desc), rev);
    // k_1 (a reverse family): (k, id) ascending and descending, and a range k in [-2, 1].
    let by_k = sorted_by(model, |r| vec![r[K].clone(), r[ID].clone()]);
    assert_eq!(scan(db, &t, 1, &un, &un2, Direction::Asc), by_k);
    let mut by_k_desc = by_k.clone();
    by_k_desc.reverse();
    assert_eq!(scan(db, &t, 1, &un, &un2, Direction::Desc), by_k_desc);
    let lo = Bound::Included(vec![Value::Int(-2)]);
    let hi = Bound::Included(vec![Value::Int(1)]);
    let in_range: Vec<Vec<Value>> = by_k
        .iter()
        .filter(|r| (-2..=1).contains(&r[K].as_i64().expect("k")))
        .cloned()
        .collect();
    assert_eq!(scan(db, &t, 1, &lo, &hi, Direction::Asc), in_range);
    let mut in_range_desc = in_range.clone();
    in_range_desc.reverse();
    assert_eq!(scan(db, &t, 1, &lo, &hi, Direction::Desc), in_range_desc);
    // kc: k = 0 exactly, then k > 0 (an excluded lower bound).
    let by_kc = sorted_by(model, |r| vec![r[K].clone(), r[C].clone(), r[ID].clone()]);
    let zero = Bound::Included(vec![Value::Int(0)]);
    let k0: Vec<Vec<Value>> = by_kc
        .iter()
        .filter(|r| r[K] == Value::Int(0))
        .cloned()
        .collect();
    assert_eq!(scan(db, &t, 3, &zero, &zero, Direction::Asc), k0);
    let above: Vec<Vec<Value>> = by_kc
        .iter()
        .filter(|r| r[K].as_i64().expect("k") > 0)
        .cloned()
        .collect();
    let ex = Bound::Excluded(vec![Value::Int(0)]);
    assert_eq!(scan(db, &t, 3, &ex, &un, Direction::Asc), above);
    // Point reads, one by one and batched.
    let mut txn = db.begin(Isolation::ReadCommitted).expect("begin");
    let ids: Vec<Vec<Value>> = (0..80).map(|i| vec![Value::Int(i)]).collect();
    let got = txn.multi_get(&t, &ids).expect("multi_get");
    for (i, g) in got.iter().enumerate() {
        assert_eq!(g.as_ref(), model.get(&(i as i64)));
        assert_eq!(
            txn.get(&t, &ids[i]).expect("get").as_ref(),
            model.get(&(i as i64))
        );
    }
}

#[test]
fn random_dml_keeps_rows_and_indexes_equal_to_the_model() {
    for seed in 0..8u64 {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut fs = MemFs::new();
        let mut db = open(&fs);
        let mut model = Model::new();
        for step in 0..400 {
            let t = db.table("t").expect("table");
            model = random_txn(&db, &t, &model, &mut rng);
            if step % 50 == 49 {
                verify(&db, &model);
            }
            match rng.gen_range(0..40) {
                0 => db.store().flush().expect("flush"),
                1 => {
                    db.close().expect("close");
                    db = open(&fs);
                }
                2 => {
                    // A power cut: only synced data survives; every commit was synced.
                    let crashed = fs.crash_clone(CrashOptions::synced_only());
                    drop(db);
                    fs = crashed;
                    db = open(&fs);
                    verify(&db, &model);
                }
                _ => {}
            }
        }
        verify(&db, &model);
    }
}

#[test]
fn a_changed_definition_is_refused_at_open() {
    let fs = MemFs::new();
    let db = open(&fs);
    db.close().expect("close");
    let mut other = table();
    other.secondary.pop();
    let r = Database::open_with(&[other], &DatabaseOptions::default(), |config| {
        CairnStore::open_with_fs(fs.shared(), Path::new("/db"), config)
    });
    assert!(matches!(r, Err(Error::Schema(_))), "{r:?}");
    // The recorded definition still opens.
    open(&fs).close().expect("close");
}

#[test]
fn bad_rows_are_refused_and_change_nothing() {
    let fs = MemFs::new();
    let db = open(&fs);
    let t = db.table("t").expect("table");
    let mut txn = db.begin(Isolation::ReadCommitted).expect("begin");
    let mut row = random_row(&mut SmallRng::seed_from_u64(1), 1);
    row[K] = Value::Int(1 << 20); // SMALLINT overflow
    assert!(matches!(txn.insert(&t, row), Err(Error::BadValue(_))));
    assert!(matches!(
        txn.insert(&t, vec![Value::Int(1)]),
        Err(Error::BadValue(_))
    ));
    txn.commit().expect("commit");
    verify(&db, &Model::new());
}

#[test]
fn statistics_and_sizes_describe_the_indexes() {
    let fs = MemFs::new();
    let db = open(&fs);
    let t = db.table("t").expect("table");
    let mut rng = SmallRng::seed_from_u64(7);
    let mut model = Model::new();
    for id in 0..500 {
        let mut txn = db.begin(Isolation::ReadCommitted).expect("begin");
        let mut row = random_row(&mut rng, id);
        row[U] = Value::Null;
        txn.insert(&t, row.clone()).expect("insert");
        txn.commit().expect("commit");
        model.insert(id, row);
    }
    db.store().flush().expect("flush");
    db.store()
        .db()
        .compact_range_cf(
            &db.store().db().column_family("rev:k").expect("cf"),
            None,
            None,
        )
        .expect("compact");
    let pk = db
        .index_stats(&t, 0)
        .expect("stats")
        .expect("CairnDB has them");
    assert_eq!(pk.rows, 500);
    assert_eq!(pk.distinct, vec![500]);
    let k = db.index_stats(&t, 1).expect("stats").expect("stats");
    assert_eq!(k.rows, 500);
    let distinct_k = {
        let mut ks: Vec<i64> = model.values().map(|r| r[K].as_i64().expect("k")).collect();
        ks.sort_unstable();
        ks.dedup();
        ks.len() as u64
    };
    // One table after the compaction: exact cardinalities of k, then (k, id).
    assert_eq!(k.distinct, vec![distinct_k, 500]);
    let all = db
        .approximate_size(&t, 0, &Bound::Unbounded, &Bound::Unbounded)
        .expect("size")
        .expect("CairnDB has it");
    let some = db
        .approximate_size(
            &t,
            0,
            &Bound::Included(vec![Value::Int(0)]),
            &Bound::Excluded(vec![Value::Int(100)]),
        )
        .expect("size")
        .expect("size");
    assert!(all > 0 && some <= all, "{some} of {all}");
    let rev_all = db
        .approximate_size(&t, 1, &Bound::Unbounded, &Bound::Unbounded)
        .expect("size")
        .expect("size");
    assert!(rev_all > 0);
}

/// The same random transactions on RocksDB's TransactionDB through the same row layer (a
/// differential check of the row layer's engine contract; needs the `rocksdb` feature).
#[cfg(feature = "rocksdb")]
#[test]
fn rocksdb_under_the_same_row_layer_matches_the_model() {
    use cairn_rows::RocksStore;
    for seed in 0..4u64 {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = DatabaseOptions {
            engine_options: "write_buffer_size=65536;level0_file_num_compaction_trigger=2".into(),
            sync: false,
        };
        let open = || Database::<RocksStore>::open(dir.path(), &[table()], &options).expect("open");
        let mut db = open();
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut model = Model::new();
        for step in 0..400 {
            let t = db.table("t").expect("table");
            model = random_txn(&db, &t, &model, &mut rng);
            if step % 50 == 49 {
                verify(&db, &model);
            }
            match rng.gen_range(0..40) {
                0 => db.store().flush().expect("flush"),
                1 => {
                    db.close().expect("close");
                    db = open();
                }
                _ => {}
            }
        }
        verify(&db, &model);
    }
}

#[test]
fn bulk_load_fills_every_index_and_refuses_rows_out_of_order() {
    let fs = MemFs::new();
    let db = open(&fs);
    let t = db.table("t").expect("table");
    let mut rng = SmallRng::seed_from_u64(3);
    let mut model = Model::new();
    for id in 0..200 {
        let mut row = random_row(&mut rng, id);
        row[U] = Value::Bytes(format!("u{id}").into_bytes());
        model.insert(id, row);
    }
    // Out of order: refused, and nothing of it is loaded.
    let mut backwards = model.values().rev().cloned();
    let r = db.bulk_load(&t, 0, &mut backwards);
    assert!(matches!(r, Err(Error::BadValue(_))), "{r:?}");
    verify(&db, &Model::new());
    // Every index in its own order: the primary key ascending, k_1 (a reverse family) by
    // descending (k, id), u_1 and kc ascending.
    db.bulk_load(&t, 0, &mut model.values().cloned())
        .expect("pk");
    let mut by_k = sorted_by(&model, |r| vec![r[K].clone(), r[ID].clone()]);
    by_k.reverse();
    db.bulk_load(&t, 1, &mut by_k.into_iter()).expect("k_1");
    let by_u = sorted_by(&model, |r| vec![r[U].clone(), r[ID].clone()]);
    db.bulk_load(&t, 2, &mut by_u.into_iter()).expect("u_1");
    let by_kc = sorted_by(&model, |r| vec![r[K].clone(), r[C].clone(), r[ID].clone()]);
    db.bulk_load(&t, 3, &mut by_kc.into_iter()).expect("kc");
    verify(&db, &model);
    // Loaded rows take part in transactions like any other.
    let t = db.table("t").expect("table");
    let mut rng = SmallRng::seed_from_u64(4);
    for _ in 0..100 {
        model = random_txn(&db, &t, &model, &mut rng);
    }
    verify(&db, &model);
}
