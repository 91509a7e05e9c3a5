//! sysbench's OLTP microbenchmarks as its Lua scripts define them (`oltp_common.lua` and the
//! scripts named after each test), one event (a transaction, or one autocommit statement) at a
//! time, on the row layer. Every SQL statement becomes the row operations MyRocks would run:
//!
//! | statement | row operations |
//! |---|---|
//! | `SELECT c FROM sbtest WHERE id=?` | a point read |
//! | `SELECT c ... WHERE id BETWEEN ? AND ?` | a primary-key scan of `--range_size` ids |
//! | `SELECT SUM(k) ...`, `... ORDER BY c`, `SELECT DISTINCT c ... ORDER BY c` | the same scan, then sum, sort, or sort and dedup |
//! | `UPDATE sbtest SET k=k+1 WHERE id=?` | a locking read, then an update (the `k` index changes) |
//! | `UPDATE sbtest SET c=? WHERE id=?` | a locking read, then an update (no index changes) |
//! | `DELETE FROM sbtest WHERE id=?` | a locking read, then a delete of the row and its entry |
//! | `INSERT INTO sbtest (id, k, c, pad) VALUES (...)` | an insert (a locking read of the id) |
//! | `SELECT id, k, c, pad FROM sbtest1 WHERE k IN (...)` | a `k_1` scan per point, then one `multi_get` of the rows |
//! | `SELECT COUNT(*) FROM sbtest` (the scan test) | a full primary-key scan |
//!
//! Which statements each test runs (sysbench's defaults): `point_select` 1 point select;
//! `read_only` 10 point selects and one of each range query in a transaction; `read_write` the
//! same, then an index update, a non-index update and a delete + insert of the same id, in a
//! transaction; `write_only` the writes of `read_write`; `update_index`, `update_non_index`,
//! `delete` one autocommit statement; `insert` one autocommit insert with a new
//! auto-increment id; `simple_ranges`, `sum_ranges`, `order_ranges`, `distinct_ranges` one
//! range query; `random_points` one `IN` list of `--random_points` values of `k`, drawn in the
//! thread's share of the key range (select_random_points.lua); `scan` one full scan of a table.
//! Tables are drawn uniformly per group of statements, as `oltp_common.lua` does.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use cairn_rows::schema::Value;
use cairn_rows::{Bound, Database, Direction, Fetch, Isolation, KvStore, RowTxn, Table};

use super::data::{c_value, pad_value, rand_id, C, ID, K};
use crate::bench::generator::Random64;

/// The tests, in the order `--sysbench_tests` defaults to (reads first, so that they see the
/// prepared tables; `delete` last, as it shrinks them).
pub const TESTS: &[&str] = &[
    "point_select",
    "random_points",
    "simple_ranges",
    "sum_ranges",
    "order_ranges",
    "distinct_ranges",
    "read_only",
    "scan",
    "update_index",
    "update_non_index",
    "read_write",
    "write_only",
    "insert",
    "delete",
];

/// What the events of a test share.
#[derive(Debug)]
pub struct Context {
    /// `sbtest1..`.
    pub tables: Vec<Arc<Table>>,
    /// `--table_size`.
    pub table_size: u64,
    /// `--range_size`.
    pub range_size: i64,
    /// `--random_points`.
    pub random_points: usize,
    /// `--threads`.
    pub threads: usize,
    /// The next auto-increment id of each table (`insert`).
    pub next_id: Vec<AtomicI64>,
    /// The transactions' isolation.
    pub isolation: Isolation,
}

type R<T> = cairn_rows::Result<T>;

impl Context {
    fn table(&self, rng: &mut Random64) -> &Table {
        &self.tables[rng.uniform(self.tables.len() as u64) as usize]
    }

    fn id(&self, rng: &mut Random64) -> i64 {
        rand_id(rng, self.table_size)
    }
}

/// Runs one event of `test` on thread `tid`; returns the statements (queries) it ran.
///
/// # Errors
/// The row layer's error; [`cairn_rows::Error::Conflict`] means the event should be retried.
pub fn event<S: KvStore>(
    test: &str,
    db: &Database<S>,
    cx: &Context,
    rng: &mut Random64,
    tid: usize,
) -> R<u64> {
    let mut txn = db.begin(cx.isolation)?;
    let queries = match test {
        "point_select" => point_selects(&mut txn, cx, rng, 1)?,
        "simple_ranges" | "sum_ranges" | "order_ranges" | "distinct_ranges" => {
            range(&mut txn, cx, rng, test)?
        }
        "read_only" => reads(&mut txn, cx, rng)?,
        "read_write" => reads(&mut txn, cx, rng)? + writes(&mut txn, cx, rng)?,
        "write_only" => writes(&mut txn, cx, rng)?,
        "update_index" => index_update(&mut txn, cx, rng)?,
        "update_non_index" => non_index_update(&mut txn, cx, rng)?,
        "delete" => {
            let t = cx.table(rng);
            let id = cx.id(rng);
            delete(&mut txn, t, id)?;
            1
        }
        "insert" => {
            let n = rng.uniform(cx.tables.len() as u64) as usize;
            let t = &cx.tables[n];
            let id = cx.next_id[n].fetch_add(1, Ordering::Relaxed);
            let row = vec![
                Value::Int(id),
                Value::Int(rand_id(rng, cx.table_size)),
                c_value(rng),
                pad_value(rng),
            ];
            txn.insert(t, row)?;
            1
        }
        "random_points" => random_points(&mut txn, cx, rng, tid)?,
        "scan" => {
            let t = cx.table(rng);
            let mut n = 0u64;
            txn.scan(
                t,
                0,
                &Bound::Unbounded,
                &Bound::Unbounded,
                Direction::Asc,
                Fetch::Rows,
                None,
                |_| {
                    n += 1;
                    Ok(true)
                },
            )?;
            std::hint::black_box(n);
            1
        }
        other => unreachable!("test {other} was checked against TESTS"),
    };
    txn.commit()?;
    Ok(queries)
}

fn point_selects<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    cx: &Context,
    rng: &mut Random64,
    n: u64,
) -> R<u64> {
    let t = cx.table(rng);
    for _ in 0..n {
        let id = cx.id(rng);
        let row = txn.get(t, &[Value::Int(id)])?;
        std::hint::black_box(row.map(|mut r| r.swap_remove(C)));
    }
    Ok(n)
}

/// One range query of kind `kind` over `--range_size` ids.
fn range<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    cx: &Context,
    rng: &mut Random64,
    kind: &str,
) -> R<u64> {
    let t = cx.table(rng);
    let id = cx.id(rng);
    let lo = Bound::Included(vec![Value::Int(id)]);
    let hi = Bound::Included(vec![Value::Int(id + cx.range_size - 1)]);
    let mut cs = Vec::new();
    let mut sum = 0i64;
    txn.scan(
        t,
        0,
        &lo,
        &hi,
        Direction::Asc,
        Fetch::Rows,
        None,
        |mut r| {
            sum += r[K].as_i64().unwrap_or_default();
            cs.push(r.swap_remove(C));
            Ok(true)
        },
    )?;
    match kind {
        "sum_ranges" => {
            std::hint::black_box(sum);
        }
        "order_ranges" => {
            cs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        }
        "distinct_ranges" => {
            cs.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
            cs.dedup();
        }
        _ => {}
    }
    std::hint::black_box(cs);
    Ok(1)
}

/// `oltp_read_only`'s statements: 10 point selects and one query of each range kind.
fn reads<S: KvStore>(txn: &mut RowTxn<'_, S>, cx: &Context, rng: &mut Random64) -> R<u64> {
    let mut q = point_selects(txn, cx, rng, 10)?;
    for kind in [
        "simple_ranges",
        "sum_ranges",
        "order_ranges",
        "distinct_ranges",
    ] {
        q += range(txn, cx, rng, kind)?;
    }
    Ok(q)
}

/// `oltp_write_only`'s statements: an index update, a non-index update, a delete and an insert
/// of the same id.
fn writes<S: KvStore>(txn: &mut RowTxn<'_, S>, cx: &Context, rng: &mut Random64) -> R<u64> {
    let mut q = index_update(txn, cx, rng)?;
    q += non_index_update(txn, cx, rng)?;
    let t = cx.table(rng);
    let id = cx.id(rng);
    let k = cx.id(rng);
    delete(txn, t, id)?;
    let row = vec![Value::Int(id), Value::Int(k), c_value(rng), pad_value(rng)];
    match txn.insert(t, row) {
        // The id was absent and another thread's event inserted it after this one's delete
        // found nothing: MySQL fails the statement the same way; the event goes on.
        Ok(()) | Err(cairn_rows::Error::DuplicateKey { .. }) => {}
        Err(e) => return Err(e),
    }
    Ok(q + 2)
}

fn index_update<S: KvStore>(txn: &mut RowTxn<'_, S>, cx: &Context, rng: &mut Random64) -> R<u64> {
    let t = cx.table(rng);
    let id = cx.id(rng);
    if let Some(old) = txn.get_for_update(t, &[Value::Int(id)])? {
        let mut new = old.clone();
        new[K] = Value::Int(old[K].as_i64().unwrap_or_default().wrapping_add(1));
        txn.update(t, &old, new)?;
    }
    Ok(1)
}

fn non_index_update<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    cx: &Context,
    rng: &mut Random64,
) -> R<u64> {
    let t = cx.table(rng);
    let id = cx.id(rng);
    let c = c_value(rng);
    if let Some(old) = txn.get_for_update(t, &[Value::Int(id)])? {
        let mut new = old.clone();
        new[C] = c;
        txn.update(t, &old, new)?;
    }
    Ok(1)
}

fn delete<S: KvStore>(txn: &mut RowTxn<'_, S>, t: &Table, id: i64) -> R<()> {
    if let Some(old) = txn.get_for_update(t, &[Value::Int(id)])? {
        txn.delete(t, &old)?;
    }
    Ok(())
}

/// `select_random_points.lua`: `SELECT id, k, c, pad FROM sbtest1 WHERE k IN (...)` with
/// `--random_points` values of `k` in this thread's share of `1..=table_size`.
fn random_points<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    cx: &Context,
    rng: &mut Random64,
    tid: usize,
) -> R<u64> {
    let t = &cx.tables[0];
    let share = (cx.table_size / cx.threads.max(1) as u64).max(1);
    let base = share * (tid % cx.threads.max(1)) as u64;
    let mut pks = Vec::new();
    for _ in 0..cx.random_points {
        let k = [Value::Int((base + rng.uniform(share + 1)) as i64)];
        txn.scan_prefix(t, 1, &k, Direction::Asc, Fetch::IndexOnly, None, |r| {
            pks.push(vec![r[ID].clone()]);
            Ok(true)
        })?;
    }
    let rows = txn.multi_get(t, &pks)?;
    std::hint::black_box(rows);
    Ok(1)
}
