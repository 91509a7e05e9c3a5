//! Populating the tables as sysbench-tpcc's `prepare` does (`tpcc_common.lua`), through the
//! engine's bulk load (MyRocks's bulk load): per table set the items, then per warehouse its
//! warehouse, districts, customers, history, orders, stock, new orders and order lines, every
//! index loaded in its key order; the stock index by item, which spans warehouses, once at the
//! end of each set.
//!
//! Values follow sysbench-tpcc, not the specification: most text columns are one random letter
//! repeated, names are `item-…`/`data-…`, `ol_quantity` is 5, dates are the load's "now".

use std::sync::Arc;

use cairn_rows::schema::Value;
use cairn_rows::{Database, KvStore, Table};

use super::random::{last_name, Rand};
use super::schema::t;

/// Cardinalities. The suite always uses [`Sizes::SPEC`]; tests load smaller databases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Items (`MAXITEMS`, 100,000), also the stock rows per warehouse.
    pub items: i64,
    /// Districts per warehouse (10).
    pub districts: i64,
    /// Customers per district (3,000), also the orders per district.
    pub customers: i64,
}

impl Sizes {
    /// TPC-C's (and sysbench-tpcc's).
    pub const SPEC: Sizes = Sizes {
        items: 100_000,
        districts: 10,
        customers: 3_000,
    };

    /// The first order id still undelivered at load (2101 of 3000).
    pub fn first_new_order(self) -> i64 {
        self.customers * 7 / 10 + 1
    }
}

/// The current time in microseconds since the epoch (`NOW()`).
pub fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

fn text(b: Vec<u8>) -> Value {
    Value::Bytes(b)
}

fn prefixed(prefix: &str, mut rest: Vec<u8>) -> Value {
    let mut b = prefix.as_bytes().to_vec();
    b.append(&mut rest);
    Value::Bytes(b)
}

/// Name and address columns: `name-@@@@@`, `street1-` + 10 letters, ..., `zip-#####`.
fn name_and_address(r: &mut Rand) -> Vec<Value> {
    vec![
        prefixed("name-", r.letters(5)),
        prefixed("street1-", r.letters(10)),
        prefixed("street2-", r.letters(10)),
        prefixed("city-", r.letters(10)),
        text(r.letters(2)),
        prefixed("zip-", r.digits(5)),
    ]
}

fn address(r: &mut Rand) -> Vec<Value> {
    name_and_address(r).split_off(1)
}

/// Money in cents from a double.
fn cents(v: f64) -> Value {
    Value::Int((v * 100.0) as i64)
}

/// Sorts `rows` into index `index`'s order and loads them.
fn load_index<S: KvStore>(
    db: &Database<S>,
    table: &Table,
    index: usize,
    rows: &mut [Vec<Value>],
) -> cairn_rows::Result<()> {
    let ix = &table.indexes[index];
    let cols = &table.def.columns;
    rows.sort_by_cached_key(|r| ix.key(cols, r));
    if ix.reverse {
        rows.reverse();
    }
    db.bulk_load(table, index, &mut rows.iter().cloned())
}

/// Loads every index of `table` from `rows`.
fn load_all<S: KvStore>(
    db: &Database<S>,
    table: &Table,
    rows: &mut [Vec<Value>],
) -> cairn_rows::Result<()> {
    for index in 0..table.indexes.len() {
        load_index(db, table, index, rows)?;
    }
    Ok(())
}

/// Loads table set `set` (its nine tables, in `tables`) with `warehouses` warehouses.
///
/// # Errors
/// The row layer's error.
pub fn load_set<S: KvStore>(
    db: &Database<S>,
    tables: &[Arc<Table>],
    warehouses: i64,
    sizes: Sizes,
    seed: u64,
) -> cairn_rows::Result<()> {
    let mut r = Rand::new(seed);
    let now = Value::Int(now_micros());
    let mut items: Vec<Vec<Value>> = (1..=sizes.items)
        .map(|i| {
            let im = r.uniform(1, 10_000);
            let price = r.double() * 100.0 + 1.0;
            let mut name = format!("item-{im}-{price:.6}-").into_bytes();
            name.extend(r.letters(5));
            name.truncate(24);
            let mut data = b"data-".to_vec();
            data.extend_from_slice(&name);
            data.push(b'-');
            data.extend(r.letters(5));
            data.truncate(50);
            vec![
                Value::Int(i),
                Value::Int(im),
                text(name),
                cents(price),
                text(data),
            ]
        })
        .collect();
    load_all(db, &tables[t::ITEM], &mut items)?;
    drop(items);
    let mut stock_by_item: Vec<Vec<Value>> = Vec::new();
    let mut history_id = 1i64;
    for w in 1..=warehouses {
        let wv = Value::Int(w);
        let mut row = vec![wv.clone()];
        row.extend(name_and_address(&mut r));
        // 300,000 and 30,000 at TPC-C's sizes: $10 of history per customer.
        row.extend([
            cents(r.double() * 0.2),
            Value::Int(sizes.districts * sizes.customers * 10 * 100),
        ]);
        load_all(db, &tables[t::WAREHOUSE], &mut [row])?;

        let mut districts: Vec<Vec<Value>> = (1..=sizes.districts)
            .map(|d| {
                let mut row = vec![Value::Int(d), wv.clone()];
                row.extend(name_and_address(&mut r));
                row.extend([
                    cents(r.double() * 0.2),
                    Value::Int(sizes.customers * 10 * 100),
                    Value::Int(sizes.customers + 1),
                ]);
                row
            })
            .collect();
        load_all(db, &tables[t::DISTRICT], &mut districts)?;

        let mut customers = Vec::new();
        let mut history = Vec::new();
        for d in 1..=sizes.districts {
            for c in 1..=sizes.customers {
                let last = if c <= 1000 {
                    last_name(c - 1)
                } else {
                    last_name(r.nurand(255, 0, 999))
                };
                let first_len = r.uniform(2, 10) as usize;
                let mut row = vec![
                    Value::Int(c),
                    Value::Int(d),
                    wv.clone(),
                    prefixed("first-", r.letters(first_len)),
                    text(b"OE".to_vec()),
                    text(last),
                ];
                row.extend(address(&mut r));
                let credit = if r.uniform(1, 100) > 10 { "GC" } else { "BC" };
                let data_len = r.uniform(300, 500) as usize;
                row.extend([
                    text(r.digits(16)),
                    now.clone(),
                    text(credit.as_bytes().to_vec()),
                    Value::Int(50_000),
                    cents(r.double() * 0.5),
                    Value::Int(-10 * 100),
                    Value::Int(10 * 100),
                    Value::Int(1),
                    Value::Int(0),
                    text(r.repeated(data_len)),
                ]);
                customers.push(row);
                let h_len = r.uniform(12, 24) as usize;
                history.push(vec![
                    Value::Int(history_id),
                    Value::Int(c),
                    Value::Int(d),
                    wv.clone(),
                    Value::Int(d),
                    wv.clone(),
                    now.clone(),
                    Value::Int(10 * 100),
                    text(r.repeated(h_len)),
                ]);
                history_id += 1;
            }
        }
        load_all(db, &tables[t::CUSTOMER], &mut customers)?;
        drop(customers);
        load_all(db, &tables[t::HISTORY], &mut history)?;
        drop(history);

        // One permutation of the customers for every district of the warehouse, as
        // sysbench-tpcc draws it.
        let mut perm: Vec<i64> = (1..=sizes.customers).collect();
        for i in (1..perm.len()).rev() {
            let j = r.uniform(0, i as i64) as usize;
            perm.swap(i, j);
        }
        let first_new = sizes.first_new_order();
        let mut orders = Vec::new();
        let mut new_orders = Vec::new();
        let mut lines = Vec::new();
        for d in 1..=sizes.districts {
            for o in 1..=sizes.customers {
                let delivered = o < first_new;
                let ol_cnt = r.uniform(5, 15);
                orders.push(vec![
                    Value::Int(o),
                    Value::Int(d),
                    wv.clone(),
                    Value::Int(perm[(o - 1) as usize]),
                    now.clone(),
                    if delivered {
                        Value::Int(r.uniform(1, 10))
                    } else {
                        Value::Null
                    },
                    Value::Int(ol_cnt),
                    Value::Int(1),
                ]);
                if !delivered {
                    new_orders.push(vec![Value::Int(o), Value::Int(d), wv.clone()]);
                }
                for n in 1..=ol_cnt {
                    let amount = if delivered {
                        Value::Int(0)
                    } else {
                        cents(r.double() * 9999.99)
                    };
                    lines.push(vec![
                        Value::Int(o),
                        Value::Int(d),
                        wv.clone(),
                        Value::Int(n),
                        Value::Int(r.uniform(1, sizes.items)),
                        wv.clone(),
                        if delivered { now.clone() } else { Value::Null },
                        Value::Int(5),
                        amount,
                        text(r.repeated(24)),
                    ]);
                }
            }
        }
        load_all(db, &tables[t::ORDERS], &mut orders)?;
        drop(orders);

        let mut stock: Vec<Vec<Value>> = (1..=sizes.items)
            .map(|i| {
                let mut row = vec![Value::Int(i), wv.clone(), Value::Int(r.uniform(10, 100))];
                row.extend((0..10).map(|_| text(r.repeated(24))));
                let data_len = r.uniform(26, 50) as usize;
                row.extend([
                    Value::Int(0),
                    Value::Int(0),
                    Value::Int(0),
                    text(r.repeated(data_len)),
                ]);
                row
            })
            .collect();
        load_index(db, &tables[t::STOCK], 0, &mut stock)?;
        // The stock index leads with the item: loaded for all warehouses at the end.
        stock_by_item.extend(stock.into_iter().map(|row| {
            let mut key = vec![Value::Null; row.len()];
            key[0] = row[0].clone();
            key[1] = row[1].clone();
            key
        }));
        load_all(db, &tables[t::NEW_ORDERS], &mut new_orders)?;
        load_all(db, &tables[t::ORDER_LINE], &mut lines)?;
    }
    load_index(db, &tables[t::STOCK], 1, &mut stock_by_item)?;
    Ok(())
}
