//! What a column family's tables hold, for planners: the properties of its live tables
//! (RocksDB's `GetPropertiesOfAllTables` and `GetPropertiesOfTablesInRange`, user collectors'
//! properties included) and the approximate bytes a key range takes (`GetApproximateSizes`).
//! MyRocks reads both for its optimizer: index cardinalities from the collectors, and the size
//! of an index range to cost a scan.
//!
//! # Contract
//! - Any thread. Each call works on the family's current read view (its version and memtables
//!   at the call), opening tables through the table cache; nothing is locked while tables are
//!   read.
//! - Ranges are `[start, limit)` in the family's comparator order; a range whose start is not
//!   before its limit is empty (0 bytes, no tables).
//! - A table's contribution to an approximate size is the distance between the data blocks
//!   where `start` and `limit` fall (its index block's offsets), so the answer is exact to a data
//!   block per table and per end of the range. Memtables, when asked for, are measured exactly:
//!   their entries in the range are walked and their key and value bytes summed, which costs
//!   time in proportion to those entries.

use std::cmp::Ordering;
use std::sync::Arc;

use super::{ColumnFamily, Db};
use crate::comparator::KeyOrder;
use crate::error::Result;
use crate::iter::InternalIterator;
use crate::sstable::TableProperties;
use crate::types::{seek_key, user_key, MAX_SEQUENCE};
use crate::version::FileMetaData;

/// What [`Db::get_approximate_sizes_cf`] counts (RocksDB's `SizeApproximationOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SizeApproximation {
    /// Count the bytes of the range in the table files. Default true.
    pub include_files: bool,
    /// Count the key and value bytes of the range's entries in the memtables. Default false.
    pub include_memtables: bool,
}

impl Default for SizeApproximation {
    fn default() -> Self {
        SizeApproximation {
            include_files: true,
            include_memtables: false,
        }
    }
}

/// The properties of one live table, as [`Db::get_properties_of_all_tables_cf`] returns them.
#[derive(Debug, Clone)]
pub struct LiveTableProperties {
    /// The table's file name (`NNNNNN.sst`).
    pub file_name: String,
    /// Its level.
    pub level: usize,
    /// Its properties, user collectors' included (`user_properties`).
    pub properties: TableProperties,
}

impl Db {
    /// The properties of every live table of the default column family.
    ///
    /// # Errors
    /// As [`Db::get_properties_of_all_tables_cf`].
    pub fn get_properties_of_all_tables(&self) -> Result<Vec<LiveTableProperties>> {
        self.get_properties_of_all_tables_cf(&self.default_column_family())
    }

    /// The properties of every live table of `cf` (RocksDB's `GetPropertiesOfAllTables`), by
    /// level then key order.
    ///
    /// # Errors
    /// A dropped family; an error opening a table (I/O, `Corruption`).
    pub fn get_properties_of_all_tables_cf(
        &self,
        cf: &ColumnFamily,
    ) -> Result<Vec<LiveTableProperties>> {
        self.tables_in_ranges(cf, None)
    }

    /// The properties of the live tables of `cf` whose keys overlap any of `ranges` (RocksDB's
    /// `GetPropertiesOfTablesInRange`), each table once.
    ///
    /// # Errors
    /// As [`Db::get_properties_of_all_tables_cf`].
    pub fn get_properties_of_tables_in_range_cf(
        &self,
        cf: &ColumnFamily,
        ranges: &[(&[u8], &[u8])],
    ) -> Result<Vec<LiveTableProperties>> {
        self.tables_in_ranges(cf, Some(ranges))
    }

    /// The false positives a point lookup of an absent key is expected to pay in `cf` (reads
    /// of a data block its filters let through), predicted from the live tables' filter bits:
    /// every L0 table's rate, plus per level below the entry-weighted mean rate of its tables
    /// (a lookup probes the one table whose range holds the key; keys spread evenly). A table's
    /// rate is the cache-local filter's at its bits per key (`lsm_math::monkey::cache_local_fpr`),
    /// 1 without a filter. CairnDB's own; what `optimize_filters` minimises
    /// (docs/design/lsm_math.md). Also the property `cairndb.filter-false-positives-per-lookup`.
    ///
    /// # Errors
    /// As [`Db::get_properties_of_all_tables_cf`].
    pub fn expected_filter_false_positives_cf(&self, cf: &ColumnFamily) -> Result<f64> {
        let tables = self.get_properties_of_all_tables_cf(cf)?;
        let rate = |t: &LiveTableProperties| {
            if t.properties.filter_bytes == 0 {
                1.0
            } else {
                crate::lsm_math::monkey::cache_local_fpr(t.properties.bloom_bits_per_key)
            }
        };
        let levels = tables.iter().map(|t| t.level).max().map_or(0, |l| l + 1);
        let mut expected = 0.0;
        for level in 0..levels {
            let on: Vec<&LiveTableProperties> =
                tables.iter().filter(|t| t.level == level).collect();
            if level == 0 {
                expected += on.iter().map(|t| rate(t)).sum::<f64>();
                continue;
            }
            let entries: f64 = on.iter().map(|t| t.properties.num_entries as f64).sum();
            if entries > 0.0 {
                expected += on
                    .iter()
                    .map(|t| t.properties.num_entries as f64 * rate(t))
                    .sum::<f64>()
                    / entries;
            }
        }
        Ok(expected)
    }

    fn tables_in_ranges(
        &self,
        cf: &ColumnFamily,
        ranges: Option<&[(&[u8], &[u8])]>,
    ) -> Result<Vec<LiveTableProperties>> {
        cf.data.check_live()?;
        let view = cf.data.read_view();
        let order = view.version.order().clone();
        let mut out = Vec::new();
        for (level, f) in view.version.all_files() {
            let wanted = ranges.is_none_or(|rs| {
                rs.iter()
                    .any(|(start, limit)| file_overlaps(&order, f, start, limit))
            });
            if !wanted {
                continue;
            }
            let table = cf.data.table_cache.get_table(f.number, f.size)?;
            out.push(LiveTableProperties {
                file_name: format!("{:06}.sst", f.number),
                level,
                properties: table.properties().clone(),
            });
        }
        Ok(out)
    }

    /// The approximate bytes each of `ranges` (`[start, limit)`) takes in `cf` (RocksDB's
    /// `GetApproximateSizes`): in its tables and, when asked, its memtables. See the module
    /// contract for how exact it is.
    ///
    /// # Errors
    /// A dropped family; an error reading a table's index (I/O, `Corruption`).
    pub fn get_approximate_sizes_cf(
        &self,
        cf: &ColumnFamily,
        ranges: &[(&[u8], &[u8])],
        what: SizeApproximation,
    ) -> Result<Vec<u64>> {
        cf.data.check_live()?;
        let view = cf.data.read_view();
        let order = view.version.order().clone();
        let mut sizes = Vec::with_capacity(ranges.len());
        for &(start, limit) in ranges {
            if order.compare(start, limit) != Ordering::Less {
                sizes.push(0);
                continue;
            }
            let mut bytes = 0u64;
            if what.include_files {
                for (_, f) in view.version.all_files() {
                    if !file_overlaps(&order, f, start, limit) {
                        continue;
                    }
                    let table = cf.data.table_cache.get_table(f.number, f.size)?;
                    let from = table.approximate_offset_of(&seek_key(start, MAX_SEQUENCE))?;
                    let to = table.approximate_offset_of(&seek_key(limit, MAX_SEQUENCE))?;
                    bytes += to.saturating_sub(from);
                }
            }
            if what.include_memtables {
                for m in std::iter::once(&view.mem).chain(view.imms.iter()) {
                    let mut it = m.iter();
                    it.seek(&seek_key(start, MAX_SEQUENCE));
                    while it.valid() && order.compare(user_key(it.key()), limit) == Ordering::Less {
                        bytes += (it.key().len() + it.value().len()) as u64;
                        it.next();
                    }
                }
            }
            sizes.push(bytes);
        }
        Ok(sizes)
    }
}

/// True when `f`'s user keys meet `[start, limit)`.
fn file_overlaps(order: &KeyOrder, f: &Arc<FileMetaData>, start: &[u8], limit: &[u8]) -> bool {
    order.compare(user_key(&f.largest), start) != Ordering::Less
        && order.compare(user_key(&f.smallest), limit) == Ordering::Less
}
