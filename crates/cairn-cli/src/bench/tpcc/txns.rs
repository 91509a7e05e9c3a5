//! The five transactions of sysbench-tpcc (`tpcc_run.lua`) on the row layer, statement by
//! statement; `SELECT ... FOR UPDATE` and every `UPDATE`'s read are `get_for_update`, joins
//! are nested-loop reads, `ORDER BY`/`LIMIT` come from index order. Each transaction draws its
//! table set, warehouse and district uniformly, as sysbench-tpcc does.
//!
//! Kept from sysbench-tpcc, where it departs from the specification: remote warehouses never
//! happen (its `other_ware` always returns the home warehouse, yet a "remote" order line still
//! sets `o_all_local = 0`), New-Order's 1% rollback uses the second-to-last line's item, the
//! stock rule is `s_quantity > qty`, `s_ytd`/`s_order_cnt`/`s_remote_cnt` and
//! `c_payment_cnt` are not updated, `ol_amount` is truncated to whole units, Payment's amount is
//! a whole number, the by-name pick is row `n / 2 + 1` of the ordered rows (one past the
//! specification's middle for even counts), Order-Status reads the lines of order `d_id`, and
//! Stock-Level counts distinct items of the last 20 orders whose stock is below the threshold.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use cairn_rows::schema::Value;
use cairn_rows::{Bound, Database, Direction, Fetch, Isolation, KvStore, RowTxn, Table};

use super::load::{now_micros, Sizes};
use super::random::{last_name, Rand};
use super::schema::{c, t};

type R<T> = cairn_rows::Result<T>;

/// The transaction types and their share of the mix (sysbench-tpcc draws 1..=23: 10, 10, 1,
/// 1, 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// New-Order.
    NewOrder,
    /// Payment.
    Payment,
    /// Order-Status.
    OrderStatus,
    /// Delivery.
    Delivery,
    /// Stock-Level.
    StockLevel,
}

impl Kind {
    /// All kinds, in report order.
    pub const ALL: [Kind; 5] = [
        Kind::NewOrder,
        Kind::Payment,
        Kind::OrderStatus,
        Kind::Delivery,
        Kind::StockLevel,
    ];

    /// sysbench-tpcc's draw.
    pub fn draw(r: &mut Rand) -> Kind {
        match r.uniform(1, 23) {
            1..=10 => Kind::NewOrder,
            11..=20 => Kind::Payment,
            21 => Kind::OrderStatus,
            22 => Kind::Delivery,
            _ => Kind::StockLevel,
        }
    }

    /// sysbench-tpcc's name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::NewOrder => "new_order",
            Kind::Payment => "payment",
            Kind::OrderStatus => "order_status",
            Kind::Delivery => "delivery",
            Kind::StockLevel => "stock_level",
        }
    }
}

/// What a transaction ended as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Committed.
    Committed,
    /// New-Order's deliberate rollback (an unused item).
    RolledBack,
}

/// What the transactions share.
#[derive(Debug)]
pub struct Context {
    /// The table sets, each in `schema::table_set` order.
    pub sets: Vec<Vec<Arc<Table>>>,
    /// Warehouses per set.
    pub warehouses: i64,
    /// Cardinalities.
    pub sizes: Sizes,
    /// The next history id of each set.
    pub history_ids: Vec<AtomicI64>,
    /// The transactions' isolation.
    pub isolation: Isolation,
}

impl Context {
    /// A context for `sets` loaded with `warehouses` warehouses of `sizes`.
    pub fn new(
        sets: Vec<Vec<Arc<Table>>>,
        warehouses: i64,
        sizes: Sizes,
        isolation: Isolation,
    ) -> Self {
        let first_history = warehouses * sizes.districts * sizes.customers + 1;
        let history_ids = sets.iter().map(|_| AtomicI64::new(first_history)).collect();
        Context {
            sets,
            warehouses,
            sizes,
            history_ids,
            isolation,
        }
    }
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or_default()
}

fn ints(v: &[i64]) -> Vec<Value> {
    v.iter().map(|&i| Value::Int(i)).collect()
}

fn exact(v: &[i64]) -> Bound {
    Bound::Included(ints(v))
}

/// Runs one transaction of `kind`.
///
/// # Errors
/// The row layer's error; [`cairn_rows::Error::Conflict`] when it lost a lock wait or a
/// deadlock (the caller rolls back and draws a new transaction, as sysbench does).
pub fn run<S: KvStore>(db: &Database<S>, cx: &Context, kind: Kind, r: &mut Rand) -> R<Outcome> {
    let set = r.uniform(1, cx.sets.len() as i64) as usize - 1;
    let tables = &cx.sets[set];
    let w = r.uniform(1, cx.warehouses);
    let mut txn = db.begin(cx.isolation)?;
    let outcome = match kind {
        Kind::NewOrder => new_order(&mut txn, tables, cx, w, r)?,
        Kind::Payment => payment(&mut txn, tables, cx, set, w, r)?,
        Kind::OrderStatus => order_status(&mut txn, tables, cx, w, r)?,
        Kind::Delivery => delivery(&mut txn, tables, cx, w, r)?,
        Kind::StockLevel => stock_level(&mut txn, tables, cx, w, r)?,
    };
    match outcome {
        Outcome::Committed => txn.commit()?,
        Outcome::RolledBack => txn.rollback()?,
    }
    Ok(outcome)
}

fn new_order<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    tb: &[Arc<Table>],
    cx: &Context,
    w: i64,
    r: &mut Rand,
) -> R<Outcome> {
    let d = r.uniform(1, cx.sizes.districts);
    let cid = r.nurand(1023, 1, cx.sizes.customers);
    let ol_cnt = r.uniform(5, 15);
    let rbk = r.uniform(1, 100);
    let mut lines = Vec::new();
    let mut all_local = 1;
    for i in 1..=ol_cnt {
        let mut item = r.nurand(8191, 1, cx.sizes.items);
        if i == ol_cnt - 1 && rbk == 1 {
            item = -1;
        }
        if r.uniform(1, 100) == 1 {
            all_local = 0;
        }
        lines.push((item, r.uniform(1, 10)));
    }
    let customer = txn
        .get(&tb[t::CUSTOMER], &ints(&[w, d, cid]))?
        .ok_or_else(|| missing("customer"))?;
    let warehouse = txn
        .get(&tb[t::WAREHOUSE], &ints(&[w]))?
        .ok_or_else(|| missing("warehouse"))?;
    let district = txn
        .get_for_update(&tb[t::DISTRICT], &ints(&[w, d]))?
        .ok_or_else(|| missing("district"))?;
    let o_id = int(&district[c::D_NEXT_O_ID]);
    let mut updated = district.clone();
    updated[c::D_NEXT_O_ID] = Value::Int(o_id + 1);
    txn.update(&tb[t::DISTRICT], &district, updated)?;
    txn.insert(
        &tb[t::ORDERS],
        vec![
            Value::Int(o_id),
            Value::Int(d),
            Value::Int(w),
            Value::Int(cid),
            Value::Int(now_micros()),
            Value::Null,
            Value::Int(ol_cnt),
            Value::Int(all_local),
        ],
    )?;
    txn.insert(&tb[t::NEW_ORDERS], ints(&[o_id, d, w]))?;
    // Tax and discount in hundredths.
    let (w_tax, d_tax, disc) = (
        int(&warehouse[c::W_TAX]),
        int(&district[c::D_TAX]),
        int(&customer[c::C_DISCOUNT]),
    );
    for (n, &(item, qty)) in lines.iter().enumerate() {
        let Some(it) = txn.get(&tb[t::ITEM], &ints(&[item]))? else {
            return Ok(Outcome::RolledBack);
        };
        let stock = txn
            .get_for_update(&tb[t::STOCK], &ints(&[w, item]))?
            .ok_or_else(|| missing("stock"))?;
        let s_qty = int(&stock[c::S_QUANTITY]);
        let new_qty = if s_qty > qty {
            s_qty - qty
        } else {
            s_qty - qty + 91
        };
        let dist_info = stock[c::S_DIST_01 + d as usize - 1].clone();
        let mut new_stock = stock.clone();
        new_stock[c::S_QUANTITY] = Value::Int(new_qty);
        txn.update(&tb[t::STOCK], &stock, new_stock)?;
        // qty * price * (1 + w_tax + d_tax) * (1 - discount), truncated to whole units.
        let price = int(&it[c::I_PRICE]) as f64 / 100.0;
        let amount = (qty as f64
            * price
            * (1.0 + (w_tax + d_tax) as f64 / 100.0)
            * (1.0 - disc as f64 / 100.0)) as i64;
        txn.insert(
            &tb[t::ORDER_LINE],
            vec![
                Value::Int(o_id),
                Value::Int(d),
                Value::Int(w),
                Value::Int(n as i64 + 1),
                Value::Int(item),
                Value::Int(w),
                Value::Null,
                Value::Int(qty),
                Value::Int(amount * 100),
                dist_info,
            ],
        )?;
    }
    Ok(Outcome::Committed)
}

fn missing(what: &str) -> cairn_rows::Error {
    cairn_rows::Error::Corrupt(format!("tpcc: a {what} row the load created is missing"))
}

/// Payment's and Order-Status's customer by last name: the ids ordered by first name, and
/// sysbench-tpcc's pick among them.
fn customer_by_name<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    tb: &[Arc<Table>],
    w: i64,
    d: i64,
    last: &[u8],
) -> R<Option<i64>> {
    let prefix = [Value::Int(w), Value::Int(d), Value::Bytes(last.to_vec())];
    let mut ids = Vec::new();
    txn.scan_prefix(
        &tb[t::CUSTOMER],
        1,
        &prefix,
        Direction::Asc,
        Fetch::IndexOnly,
        None,
        |row| {
            ids.push(int(&row[c::C_ID]));
            Ok(true)
        },
    )?;
    let mut n = ids.len();
    if n == 0 {
        return Ok(None);
    }
    if n > 1 && n % 2 == 1 {
        n += 1;
    }
    Ok(Some(ids[(n / 2).min(ids.len() - 1)]))
}

fn payment<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    tb: &[Arc<Table>],
    cx: &Context,
    set: usize,
    w: i64,
    r: &mut Rand,
) -> R<Outcome> {
    let d = r.uniform(1, cx.sizes.districts);
    let mut cid = r.nurand(1023, 1, cx.sizes.customers);
    let amount = r.uniform(1, 5000);
    let last = last_name(r.nurand(255, 0, 999));
    let by_name = r.uniform(1, 100) <= 60;
    let (c_w, c_d) = if r.uniform(1, 100) <= 85 {
        (w, d)
    } else {
        (w, r.uniform(1, cx.sizes.districts))
    };
    let cents = amount * 100;
    let warehouse = txn
        .get_for_update(&tb[t::WAREHOUSE], &ints(&[w]))?
        .ok_or_else(|| missing("warehouse"))?;
    let mut nw = warehouse.clone();
    nw[c::W_YTD] = Value::Int(int(&warehouse[c::W_YTD]) + cents);
    txn.update(&tb[t::WAREHOUSE], &warehouse, nw)?;
    let district = txn
        .get_for_update(&tb[t::DISTRICT], &ints(&[w, d]))?
        .ok_or_else(|| missing("district"))?;
    let mut nd = district.clone();
    nd[c::D_YTD] = Value::Int(int(&district[c::D_YTD]) + cents);
    txn.update(&tb[t::DISTRICT], &district, nd)?;
    if by_name {
        // No customer of that name in the district (possible in small test loads): the
        // customer drawn by id is used.
        if let Some(id) = customer_by_name(txn, tb, c_w, c_d, &last)? {
            cid = id;
        }
    }
    let customer = txn
        .get_for_update(&tb[t::CUSTOMER], &ints(&[c_w, c_d, cid]))?
        .ok_or_else(|| missing("customer"))?;
    let mut nc = customer.clone();
    nc[c::C_BALANCE] = Value::Int(int(&customer[c::C_BALANCE]) - cents);
    nc[c::C_YTD_PAYMENT] = Value::Int(int(&customer[c::C_YTD_PAYMENT]) + cents);
    if customer[c::C_CREDIT].as_bytes() == Some(b"BC") {
        let mut data = format!(
            "| {cid} {c_d} {c_w} {d} {w} ${amount} {}",
            now_micros() / 1_000_000
        )
        .into_bytes();
        data.extend_from_slice(customer[c::C_DATA].as_bytes().unwrap_or_default());
        data.truncate(500);
        nc[c::C_DATA] = Value::Bytes(data);
    }
    txn.update(&tb[t::CUSTOMER], &customer, nc)?;
    let name = |v: &Value| {
        let mut b = v.as_bytes().unwrap_or_default().to_vec();
        b.resize(10, b' ');
        b
    };
    let mut h_data = name(&warehouse[c::W_NAME]);
    h_data.push(b' ');
    h_data.extend(name(&district[c::D_NAME]));
    h_data.extend_from_slice(b"   ");
    h_data.truncate(24);
    let id = cx.history_ids[set].fetch_add(1, Ordering::Relaxed);
    txn.insert(
        &tb[t::HISTORY],
        vec![
            Value::Int(id),
            Value::Int(cid),
            Value::Int(c_d),
            Value::Int(c_w),
            Value::Int(d),
            Value::Int(w),
            Value::Int(now_micros()),
            Value::Int(cents),
            Value::Bytes(h_data),
        ],
    )?;
    Ok(Outcome::Committed)
}

fn order_status<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    tb: &[Arc<Table>],
    cx: &Context,
    w: i64,
    r: &mut Rand,
) -> R<Outcome> {
    let d = r.uniform(1, cx.sizes.districts);
    let mut cid = r.nurand(1023, 1, cx.sizes.customers);
    let last = last_name(r.nurand(255, 0, 999));
    if r.uniform(1, 100) <= 60 {
        if let Some(id) = customer_by_name(txn, tb, w, d, &last)? {
            cid = id;
        }
    }
    let customer = txn.get(&tb[t::CUSTOMER], &ints(&[w, d, cid]))?;
    std::hint::black_box(customer);
    // The customer's newest order: idx_orders (w, d, c, o) descending.
    let prefix = ints(&[w, d, cid]);
    let mut newest = None;
    txn.scan_prefix(
        &tb[t::ORDERS],
        1,
        &prefix,
        Direction::Desc,
        Fetch::Rows,
        Some(1),
        |row| {
            newest = Some(row);
            Ok(false)
        },
    )?;
    std::hint::black_box(newest);
    // As sysbench-tpcc: the lines of order `d_id`.
    let lines = ints(&[w, d, d]);
    let mut n = 0;
    txn.scan_prefix(
        &tb[t::ORDER_LINE],
        0,
        &lines,
        Direction::Asc,
        Fetch::Rows,
        None,
        |_| {
            n += 1;
            Ok(true)
        },
    )?;
    std::hint::black_box(n);
    Ok(Outcome::Committed)
}

fn delivery<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    tb: &[Arc<Table>],
    cx: &Context,
    w: i64,
    r: &mut Rand,
) -> R<Outcome> {
    let carrier = r.uniform(1, 10);
    for d in 1..=cx.sizes.districts {
        // SELECT no_o_id ... ORDER BY no_o_id LIMIT 1 FOR UPDATE.
        let prefix = ints(&[w, d]);
        let mut oldest = None;
        txn.scan_prefix(
            &tb[t::NEW_ORDERS],
            0,
            &prefix,
            Direction::Asc,
            Fetch::Rows,
            Some(1),
            |row| {
                oldest = Some(int(&row[c::NO_O_ID]));
                Ok(false)
            },
        )?;
        let Some(o) = oldest else { continue };
        // The lock; another delivery may have taken the order meanwhile.
        let Some(no) = txn.get_for_update(&tb[t::NEW_ORDERS], &ints(&[w, d, o]))? else {
            continue;
        };
        txn.delete(&tb[t::NEW_ORDERS], &no)?;
        let order = txn
            .get_for_update(&tb[t::ORDERS], &ints(&[w, d, o]))?
            .ok_or_else(|| missing("orders"))?;
        let cid = int(&order[c::O_C_ID]);
        let mut no2 = order.clone();
        no2[c::O_CARRIER_ID] = Value::Int(carrier);
        txn.update(&tb[t::ORDERS], &order, no2)?;
        let lines_of = ints(&[w, d, o]);
        let mut lines = Vec::new();
        txn.scan_prefix(
            &tb[t::ORDER_LINE],
            0,
            &lines_of,
            Direction::Asc,
            Fetch::Rows,
            None,
            |row| {
                lines.push(row);
                Ok(true)
            },
        )?;
        let now = now_micros();
        let mut sum = 0;
        for line in lines {
            sum += int(&line[c::OL_AMOUNT]);
            let mut nl = line.clone();
            nl[c::OL_DELIVERY_D] = Value::Int(now);
            txn.update(&tb[t::ORDER_LINE], &line, nl)?;
        }
        let customer = txn
            .get_for_update(&tb[t::CUSTOMER], &ints(&[w, d, cid]))?
            .ok_or_else(|| missing("customer"))?;
        let mut nc = customer.clone();
        nc[c::C_BALANCE] = Value::Int(int(&customer[c::C_BALANCE]) + sum);
        nc[c::C_DELIVERY_CNT] = Value::Int(int(&customer[c::C_DELIVERY_CNT]) + 1);
        txn.update(&tb[t::CUSTOMER], &customer, nc)?;
    }
    Ok(Outcome::Committed)
}

fn stock_level<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    tb: &[Arc<Table>],
    cx: &Context,
    w: i64,
    r: &mut Rand,
) -> R<Outcome> {
    let d = r.uniform(1, cx.sizes.districts);
    let level = r.uniform(10, 20);
    let district = txn
        .get(&tb[t::DISTRICT], &ints(&[w, d]))?
        .ok_or_else(|| missing("district"))?;
    let next = int(&district[c::D_NEXT_O_ID]);
    let lo = exact(&[w, d, next - 20]);
    let hi = Bound::Excluded(ints(&[w, d, next]));
    let mut items = Vec::new();
    txn.scan(
        &tb[t::ORDER_LINE],
        0,
        &lo,
        &hi,
        Direction::Asc,
        Fetch::Rows,
        None,
        |row| {
            items.push(int(&row[c::OL_I_ID]));
            Ok(true)
        },
    )?;
    items.sort_unstable();
    items.dedup();
    let keys: Vec<Vec<Value>> = items.iter().map(|&i| ints(&[w, i])).collect();
    let low = txn
        .multi_get(&tb[t::STOCK], &keys)?
        .into_iter()
        .flatten()
        .filter(|s| int(&s[c::S_QUANTITY]) < level)
        .count();
    std::hint::black_box(low);
    Ok(Outcome::Committed)
}
