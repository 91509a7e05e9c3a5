//! The nine tables of sysbench-tpcc (`tpcc_common.lua`) and their indexes, one set per
//! `--tables` suffix, as MySQL types on the row layer: `TINY` is `TINYINT`, `DT` is `DATETIME`,
//! `DECIMAL(p,s)` a scaled integer (cents for money), `TEXT` (`c_data`, at most 500
//! characters here) a `VARCHAR(500)`. `history` has sysbench-tpcc's `--force_pk=1` key (an
//! auto-increment id), the hidden key MyRocks would add otherwise. Every index is in the
//! `default` column family, as MyRocks places indexes without a `COMMENT`.

use cairn_rows::schema::{Column, ColumnType, IndexDef, TableDef};

/// `DECIMAL(p, s)`.
const fn dec(precision: u8, scale: u8) -> ColumnType {
    ColumnType::Decimal { precision, scale }
}

fn vc(n: u32) -> ColumnType {
    ColumnType::Varchar(n)
}

fn ch(n: u16) -> ColumnType {
    ColumnType::Char(n)
}

const TINY: ColumnType = ColumnType::TINYINT;
const SMALL: ColumnType = ColumnType::SMALLINT;
const INT: ColumnType = ColumnType::INT;

fn col(name: &str, ty: ColumnType) -> Column {
    Column::nullable(name, ty)
}

fn key(name: &str, ty: ColumnType) -> Column {
    Column::new(name, ty)
}

/// Positions of the columns the transactions use, per table.
pub mod c {
    /// warehouse.
    pub const W_NAME: usize = 1;
    /// warehouse.
    pub const W_TAX: usize = 7;
    /// warehouse.
    pub const W_YTD: usize = 8;
    /// district.
    pub const D_ID: usize = 0;
    /// district.
    pub const D_NAME: usize = 2;
    /// district.
    pub const D_TAX: usize = 8;
    /// district.
    pub const D_YTD: usize = 9;
    /// district.
    pub const D_NEXT_O_ID: usize = 10;
    /// customer.
    pub const C_ID: usize = 0;
    /// customer.
    pub const C_D_ID: usize = 1;
    /// customer.
    pub const C_CREDIT: usize = 13;
    /// customer.
    pub const C_DISCOUNT: usize = 15;
    /// customer.
    pub const C_BALANCE: usize = 16;
    /// customer.
    pub const C_YTD_PAYMENT: usize = 17;
    /// customer.
    pub const C_DELIVERY_CNT: usize = 19;
    /// customer.
    pub const C_DATA: usize = 20;
    /// history.
    pub const H_C_ID: usize = 1;
    /// history.
    pub const H_C_D_ID: usize = 2;
    /// history.
    pub const H_D_ID: usize = 4;
    /// history.
    pub const H_AMOUNT: usize = 7;
    /// orders.
    pub const O_ID: usize = 0;
    /// orders.
    pub const O_D_ID: usize = 1;
    /// orders.
    pub const O_C_ID: usize = 3;
    /// orders.
    pub const O_CARRIER_ID: usize = 5;
    /// orders.
    pub const O_OL_CNT: usize = 6;
    /// new_orders.
    pub const NO_O_ID: usize = 0;
    /// order_line.
    pub const OL_O_ID: usize = 0;
    /// order_line.
    pub const OL_D_ID: usize = 1;
    /// order_line.
    pub const OL_I_ID: usize = 4;
    /// order_line.
    pub const OL_DELIVERY_D: usize = 6;
    /// order_line.
    pub const OL_AMOUNT: usize = 8;
    /// stock.
    pub const S_QUANTITY: usize = 2;
    /// stock: `s_dist_01` (`s_dist_DD` is `S_DIST_01 + DD - 1`).
    pub const S_DIST_01: usize = 3;
    /// item.
    pub const I_PRICE: usize = 3;
}

/// The tables of set `n`, in this order: warehouse, district, customer, history, orders,
/// new_orders, order_line, stock, item.
pub fn table_set(n: usize) -> Vec<TableDef> {
    let addr = |p: &str| {
        vec![
            col(&format!("{p}_street_1"), vc(20)),
            col(&format!("{p}_street_2"), vc(20)),
            col(&format!("{p}_city"), vc(20)),
            col(&format!("{p}_state"), ch(2)),
            col(&format!("{p}_zip"), ch(9)),
        ]
    };
    let mut warehouse = vec![key("w_id", SMALL), col("w_name", vc(10))];
    warehouse.extend(addr("w"));
    warehouse.extend([col("w_tax", dec(4, 2)), col("w_ytd", dec(12, 2))]);
    let mut district = vec![
        key("d_id", TINY),
        key("d_w_id", SMALL),
        col("d_name", vc(10)),
    ];
    district.extend(addr("d"));
    district.extend([
        col("d_tax", dec(4, 2)),
        col("d_ytd", dec(12, 2)),
        col("d_next_o_id", INT),
    ]);
    let mut customer = vec![
        key("c_id", INT),
        key("c_d_id", TINY),
        key("c_w_id", SMALL),
        col("c_first", vc(16)),
        col("c_middle", ch(2)),
        col("c_last", vc(16)),
    ];
    customer.extend(addr("c"));
    customer.extend([
        col("c_phone", ch(16)),
        col("c_since", ColumnType::Datetime),
        col("c_credit", ch(2)),
        col("c_credit_lim", ColumnType::BIGINT),
        col("c_discount", dec(4, 2)),
        col("c_balance", dec(12, 2)),
        col("c_ytd_payment", dec(12, 2)),
        col("c_payment_cnt", SMALL),
        col("c_delivery_cnt", SMALL),
        col("c_data", vc(500)),
    ]);
    let history = vec![
        key("id", ColumnType::BIGINT),
        col("h_c_id", INT),
        col("h_c_d_id", TINY),
        col("h_c_w_id", SMALL),
        col("h_d_id", TINY),
        col("h_w_id", SMALL),
        col("h_date", ColumnType::Datetime),
        col("h_amount", dec(6, 2)),
        col("h_data", vc(24)),
    ];
    let orders = vec![
        key("o_id", INT),
        key("o_d_id", TINY),
        key("o_w_id", SMALL),
        col("o_c_id", INT),
        col("o_entry_d", ColumnType::Datetime),
        col("o_carrier_id", TINY),
        col("o_ol_cnt", TINY),
        col("o_all_local", TINY),
    ];
    let new_orders = vec![
        key("no_o_id", INT),
        key("no_d_id", TINY),
        key("no_w_id", SMALL),
    ];
    let order_line = vec![
        key("ol_o_id", INT),
        key("ol_d_id", TINY),
        key("ol_w_id", SMALL),
        key("ol_number", TINY),
        col("ol_i_id", INT),
        col("ol_supply_w_id", SMALL),
        col("ol_delivery_d", ColumnType::Datetime),
        col("ol_quantity", TINY),
        col("ol_amount", dec(6, 2)),
        col("ol_dist_info", ch(24)),
    ];
    let mut stock = vec![
        key("s_i_id", INT),
        key("s_w_id", SMALL),
        col("s_quantity", SMALL),
    ];
    stock.extend((1..=10).map(|d| col(&format!("s_dist_{d:02}"), ch(24))));
    stock.extend([
        col("s_ytd", dec(8, 0)),
        col("s_order_cnt", SMALL),
        col("s_remote_cnt", SMALL),
        col("s_data", vc(50)),
    ]);
    let item = vec![
        key("i_id", INT),
        col("i_im_id", INT),
        col("i_name", vc(24)),
        col("i_price", dec(5, 2)),
        col("i_data", vc(50)),
    ];
    vec![
        TableDef::new(&format!("warehouse{n}"), warehouse, &[0]),
        TableDef::new(&format!("district{n}"), district, &[1, 0]),
        TableDef::new(&format!("customer{n}"), customer, &[2, 1, 0]).with_index(IndexDef::new(
            &format!("idx_customer{n}"),
            &[2, 1, 5, 3],
            false,
        )),
        TableDef::new(&format!("history{n}"), history, &[0])
            .with_index(IndexDef::new(
                &format!("fkey_history_1{n}"),
                &[3, 2, 1],
                false,
            ))
            .with_index(IndexDef::new(&format!("fkey_history_2{n}"), &[5, 4], false)),
        TableDef::new(&format!("orders{n}"), orders, &[2, 1, 0]).with_index(IndexDef::new(
            &format!("idx_orders{n}"),
            &[2, 1, 3, 0],
            false,
        )),
        TableDef::new(&format!("new_orders{n}"), new_orders, &[2, 1, 0]),
        TableDef::new(&format!("order_line{n}"), order_line, &[2, 1, 0, 3]).with_index(
            IndexDef::new(&format!("fkey_order_line_2{n}"), &[5, 4], false),
        ),
        TableDef::new(&format!("stock{n}"), stock, &[1, 0]).with_index(IndexDef::new(
            &format!("fkey_stock_2{n}"),
            &[0],
            false,
        )),
        TableDef::new(&format!("item{n}"), item, &[0]),
    ]
}

/// Positions of the tables in a set.
pub mod t {
    /// warehouse.
    pub const WAREHOUSE: usize = 0;
    /// district.
    pub const DISTRICT: usize = 1;
    /// customer.
    pub const CUSTOMER: usize = 2;
    /// history.
    pub const HISTORY: usize = 3;
    /// orders.
    pub const ORDERS: usize = 4;
    /// new_orders.
    pub const NEW_ORDERS: usize = 5;
    /// order_line.
    pub const ORDER_LINE: usize = 6;
    /// stock.
    pub const STOCK: usize = 7;
    /// item.
    pub const ITEM: usize = 8;
}
