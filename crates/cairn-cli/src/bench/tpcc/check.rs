//! TPC-C's consistency conditions as sysbench-tpcc's `check` runs them (`tpcc_check.lua`:
//! conditions 1, 2, 3, 4, 5, 7, 8, 9, 10 and 12), per warehouse of every table set, read in one
//! snapshot.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use cairn_rows::schema::Value;
use cairn_rows::{Database, Direction, Fetch, Isolation, KvStore, RowTxn, Table};

use super::schema::{c, t};

/// A condition that does not hold: its number, the table set, the warehouse, and what differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The condition's number in the specification.
    pub condition: u32,
    /// The table set (1-based).
    pub set: usize,
    /// The warehouse.
    pub warehouse: i64,
    /// What differs.
    pub detail: String,
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or_default()
}

fn rows<S: KvStore>(
    txn: &mut RowTxn<'_, S>,
    table: &Table,
    index: usize,
    prefix: &[i64],
) -> cairn_rows::Result<Vec<Vec<Value>>> {
    let prefix: Vec<Value> = prefix.iter().map(|&i| Value::Int(i)).collect();
    let mut out = Vec::new();
    txn.scan_prefix(
        table,
        index,
        &prefix,
        Direction::Asc,
        Fetch::Rows,
        None,
        |r| {
            out.push(r);
            Ok(true)
        },
    )?;
    Ok(out)
}

/// Checks every warehouse of every set; returns the violations (none when consistent).
///
/// # Errors
/// The row layer's error.
pub fn check<S: KvStore>(
    db: &Database<S>,
    sets: &[Vec<Arc<Table>>],
    warehouses: i64,
) -> cairn_rows::Result<Vec<Violation>> {
    let mut txn = db.begin(Isolation::RepeatableRead)?;
    let mut out = Vec::new();
    for (s, tb) in sets.iter().enumerate() {
        for w in 1..=warehouses {
            let mut bad = |condition: u32, detail: String| {
                out.push(Violation {
                    condition,
                    set: s + 1,
                    warehouse: w,
                    detail,
                })
            };
            let warehouse = rows(&mut txn, &tb[t::WAREHOUSE], 0, &[w])?;
            let w_ytd = warehouse.first().map_or(0, |r| int(&r[c::W_YTD]));
            let districts = rows(&mut txn, &tb[t::DISTRICT], 0, &[w])?;
            let orders = rows(&mut txn, &tb[t::ORDERS], 0, &[w])?;
            let new_orders = rows(&mut txn, &tb[t::NEW_ORDERS], 0, &[w])?;
            let lines = rows(&mut txn, &tb[t::ORDER_LINE], 0, &[w])?;
            let history = rows(&mut txn, &tb[t::HISTORY], 2, &[w])?;
            let customers = rows(&mut txn, &tb[t::CUSTOMER], 0, &[w])?;
            let history_by_customer = rows(&mut txn, &tb[t::HISTORY], 1, &[w])?;

            // 1: W_YTD = sum(D_YTD).
            let d_ytd: i64 = districts.iter().map(|d| int(&d[c::D_YTD])).sum();
            if w_ytd != d_ytd {
                bad(1, format!("w_ytd {w_ytd} != sum(d_ytd) {d_ytd}"));
            }
            // Per district: max order, new-order ids, ol_cnt sums and line counts.
            let mut max_o: BTreeMap<i64, i64> = BTreeMap::new();
            let mut ol_cnt: BTreeMap<i64, i64> = BTreeMap::new();
            let mut carrier: HashMap<(i64, i64), bool> = HashMap::new();
            for o in &orders {
                let (d, id) = (int(&o[c::O_D_ID]), int(&o[c::O_ID]));
                let e = max_o.entry(d).or_insert(id);
                *e = (*e).max(id);
                *ol_cnt.entry(d).or_default() += int(&o[c::O_OL_CNT]);
                carrier.insert((d, id), !o[c::O_CARRIER_ID].is_null());
            }
            let mut nos: BTreeMap<i64, Vec<i64>> = BTreeMap::new();
            let mut no_set = BTreeSet::new();
            for no in &new_orders {
                let (d, id) = (int(&no[1]), int(&no[c::NO_O_ID]));
                nos.entry(d).or_default().push(id);
                no_set.insert((d, id));
            }
            let mut line_count: BTreeMap<i64, i64> = BTreeMap::new();
            for l in &lines {
                *line_count.entry(int(&l[c::OL_D_ID])).or_default() += 1;
            }
            for dist in &districts {
                let d = int(&dist[c::D_ID]);
                let next = int(&dist[c::D_NEXT_O_ID]);
                // 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) (where new orders remain).
                if let Some(ids) = nos.get(&d) {
                    let mno = ids.iter().copied().max().unwrap_or_default();
                    let mo = max_o.get(&d).copied().unwrap_or_default();
                    if next - 1 != mo || mo != mno {
                        bad(
                            2,
                            format!(
                                "district {d}: next-1 {} max(o) {mo} max(no) {mno}",
                                next - 1
                            ),
                        );
                    }
                    // 3: new-order ids are contiguous.
                    let min = ids.iter().copied().min().unwrap_or_default();
                    if mno - min + 1 != ids.len() as i64 {
                        bad(
                            3,
                            format!("district {d}: {} new orders in {min}..={mno}", ids.len()),
                        );
                    }
                }
                // 4: sum(O_OL_CNT) = number of order lines.
                let sum = ol_cnt.get(&d).copied().unwrap_or_default();
                let count = line_count.get(&d).copied().unwrap_or_default();
                if sum != count {
                    bad(
                        4,
                        format!("district {d}: sum(o_ol_cnt) {sum} != {count} lines"),
                    );
                }
            }
            // 5: an order has a new-order row exactly when it has no carrier.
            for (&(d, id), &has_carrier) in &carrier {
                if has_carrier == no_set.contains(&(d, id)) {
                    bad(5, format!("order {d}/{id}: carrier set {has_carrier}"));
                }
            }
            // 7: a line has a delivery date exactly when its order has a carrier.
            let mut delivered_sum: HashMap<i64, HashMap<i64, i64>> = HashMap::new();
            let customer_of: HashMap<(i64, i64), i64> = orders
                .iter()
                .map(|o| ((int(&o[c::O_D_ID]), int(&o[c::O_ID])), int(&o[c::O_C_ID])))
                .collect();
            for l in &lines {
                let key = (int(&l[c::OL_D_ID]), int(&l[c::OL_O_ID]));
                let has_carrier = carrier.get(&key).copied().unwrap_or(false);
                let delivered = !l[c::OL_DELIVERY_D].is_null();
                if has_carrier != delivered {
                    bad(
                        7,
                        format!("line of order {}/{}: delivered {delivered}", key.0, key.1),
                    );
                }
                if delivered {
                    if let Some(&cid) = customer_of.get(&key) {
                        *delivered_sum
                            .entry(key.0)
                            .or_default()
                            .entry(cid)
                            .or_default() += int(&l[c::OL_AMOUNT]);
                    }
                }
            }
            // 8: W_YTD = sum(H_AMOUNT) of the warehouse; 9: per district.
            let h_sum: i64 = history.iter().map(|h| int(&h[c::H_AMOUNT])).sum();
            if w_ytd != h_sum {
                bad(8, format!("w_ytd {w_ytd} != sum(h_amount) {h_sum}"));
            }
            let mut h_by_d: BTreeMap<i64, i64> = BTreeMap::new();
            for h in &history {
                *h_by_d.entry(int(&h[c::H_D_ID])).or_default() += int(&h[c::H_AMOUNT]);
            }
            for dist in &districts {
                let d = int(&dist[c::D_ID]);
                let (ytd, sum) = (int(&dist[c::D_YTD]), h_by_d.get(&d).copied().unwrap_or(0));
                if ytd != sum {
                    bad(
                        9,
                        format!("district {d}: d_ytd {ytd} != sum(h_amount) {sum}"),
                    );
                }
            }
            // 10 and 12, per customer.
            let mut paid: HashMap<(i64, i64), i64> = HashMap::new();
            for h in &history_by_customer {
                *paid
                    .entry((int(&h[c::H_C_D_ID]), int(&h[c::H_C_ID])))
                    .or_default() += int(&h[c::H_AMOUNT]);
            }
            for cu in &customers {
                let (d, id) = (int(&cu[c::C_D_ID]), int(&cu[c::C_ID]));
                let balance = int(&cu[c::C_BALANCE]);
                let delivered = delivered_sum.get(&d).and_then(|m| m.get(&id)).copied();
                // 10: C_BALANCE = delivered sum - sum(H_AMOUNT) (sysbench skips customers with
                // no delivered order, whose sum is NULL).
                if let Some(sm) = delivered {
                    let smh = paid.get(&(d, id)).copied().unwrap_or(0);
                    if balance != sm - smh {
                        bad(
                            10,
                            format!("customer {d}/{id}: balance {balance} != {sm} - {smh}"),
                        );
                    }
                }
                // 12: C_BALANCE + C_YTD_PAYMENT = delivered sum.
                let ytd = int(&cu[c::C_YTD_PAYMENT]);
                if let Some(sm) = delivered {
                    if balance + ytd != sm {
                        bad(
                            12,
                            format!("customer {d}/{id}: balance + ytd {} != {sm}", balance + ytd),
                        );
                    }
                }
            }
        }
    }
    txn.rollback()?;
    Ok(out)
}
