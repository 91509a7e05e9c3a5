//! Index statistics gathered while the engine writes tables, as MyRocks's
//! `Rdb_tbl_prop_coll` gathers them for its optimizer: for every index number met in a table,
//! the rows (puts), deletions, key and value bytes, and the number of distinct prefixes of 1, 2,
//! ... key columns (cardinalities). A table's statistics are stored in its properties as
//! `cairn.index.<number>` (JSON); [`IndexStats::merge`] adds the tables' up, which counts a
//! prefix that spans several tables once per table, as MyRocks does.
//!
//! Keys of an index the collector has no layout for (the dictionary's, or an index of a table
//! not opened this time) are counted without cardinalities.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, RwLock};

use cairndb::{
    CollectorContext, EntryType, SequenceNumber, TablePropertiesCollector,
    TablePropertiesCollectorFactory,
};
use serde::{Deserialize, Serialize};

use crate::keycode;
use crate::schema::Column;

/// The property name prefix.
pub const PROPERTY_PREFIX: &str = "cairn.index.";

/// The key columns of an index, to find where each column ends in a key.
#[derive(Debug, Clone)]
pub struct IndexLayout {
    /// Key columns in key order.
    pub columns: Vec<Column>,
}

/// Statistics of one index in one or more tables.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexStats {
    /// Entries written (puts).
    pub rows: u64,
    /// Deletions.
    pub deletes: u64,
    /// Key and value bytes of the puts.
    pub data_bytes: u64,
    /// `distinct[k]`: distinct values of the first `k + 1` key columns among the puts.
    pub distinct: Vec<u64>,
}

impl IndexStats {
    /// Adds `other` (another table's statistics of the same index).
    pub fn merge(&mut self, other: &IndexStats) {
        self.rows += other.rows;
        self.deletes += other.deletes;
        self.data_bytes += other.data_bytes;
        if self.distinct.len() < other.distinct.len() {
            self.distinct.resize(other.distinct.len(), 0);
        }
        for (a, b) in self.distinct.iter_mut().zip(&other.distinct) {
            *a += b;
        }
    }

    /// The statistics of index `id` in a table's user properties, if it has any.
    pub fn from_properties(props: &BTreeMap<String, Vec<u8>>, id: u32) -> Option<IndexStats> {
        let v = props.get(&format!("{PROPERTY_PREFIX}{id}"))?;
        serde_json::from_slice(v).ok()
    }
}

/// Creates an [`IndexStatsCollector`] for every table; knows the layouts of the open indexes.
#[derive(Debug, Default)]
pub struct IndexStatsFactory {
    /// Replaced whole on `register` (at open), so that each table's collector takes a
    /// reference to the current map instead of copying it.
    layouts: RwLock<Arc<HashMap<u32, Arc<IndexLayout>>>>,
}

impl IndexStatsFactory {
    /// Records the layout of index `id`.
    pub fn register(&self, id: u32, layout: IndexLayout) {
        let mut layouts = self.layouts.write().expect("layouts lock");
        Arc::make_mut(&mut layouts).insert(id, Arc::new(layout));
    }
}

impl TablePropertiesCollectorFactory for IndexStatsFactory {
    fn create(&self, _: CollectorContext) -> Box<dyn TablePropertiesCollector> {
        Box::new(IndexStatsCollector {
            layouts: Arc::clone(&self.layouts.read().expect("layouts lock")),
            stats: BTreeMap::new(),
            current: None,
        })
    }

    fn name(&self) -> &str {
        "cairn_rows.IndexStats"
    }
}

/// Where the previous put of the current index ended each key column.
#[derive(Debug)]
struct Current {
    id: u32,
    layout: Option<Arc<IndexLayout>>,
    last_key: Vec<u8>,
    /// End offsets of each key column in `last_key`.
    ends: Vec<usize>,
}

/// The collector of one table. See the module documentation.
#[derive(Debug)]
pub struct IndexStatsCollector {
    layouts: Arc<HashMap<u32, Arc<IndexLayout>>>,
    stats: BTreeMap<u32, IndexStats>,
    current: Option<Current>,
}

/// End offsets of each key column of `key` (after the 4-byte number); stops at the first
/// column that does not decode.
fn column_ends(layout: &IndexLayout, key: &[u8]) -> Vec<usize> {
    let mut ends = Vec::with_capacity(layout.columns.len());
    let mut rest = &key[4..];
    for col in &layout.columns {
        if keycode::get_key_column(&mut rest, col).is_err() {
            break;
        }
        ends.push(key.len() - rest.len());
    }
    ends
}

impl TablePropertiesCollector for IndexStatsCollector {
    fn add_user_key(
        &mut self,
        key: &[u8],
        value: &[u8],
        entry: EntryType,
        _seq: SequenceNumber,
        _file_size: u64,
    ) -> cairndb::Result<()> {
        let Ok(id) = keycode::index_id(key) else {
            return Ok(());
        };
        let stats = self.stats.entry(id).or_default();
        match entry {
            EntryType::Put => {}
            EntryType::Delete | EntryType::SingleDelete => {
                stats.deletes += 1;
                return Ok(());
            }
            EntryType::Merge | EntryType::RangeDeletion => return Ok(()),
        }
        stats.rows += 1;
        stats.data_bytes += (key.len() + value.len()) as u64;
        if self.current.as_ref().is_none_or(|c| c.id != id) {
            self.current = Some(Current {
                id,
                layout: self.layouts.get(&id).cloned(),
                last_key: Vec::new(),
                ends: Vec::new(),
            });
        }
        let cur = self.current.as_mut().expect("set above");
        let Some(layout) = &cur.layout else {
            return Ok(());
        };
        let ends = column_ends(layout, key);
        if stats.distinct.len() < ends.len() {
            stats.distinct.resize(ends.len(), 0);
        }
        // The first column prefix that differs from the previous key, and every longer one,
        // is a new distinct value.
        let first_new = (0..ends.len())
            .find(|&k| {
                cur.ends
                    .get(k)
                    .is_none_or(|&e| key[..ends[k]] != cur.last_key[..e])
            })
            .unwrap_or(ends.len());
        for d in &mut stats.distinct[first_new..ends.len()] {
            *d += 1;
        }
        cur.last_key.clear();
        cur.last_key.extend_from_slice(key);
        cur.ends = ends;
        Ok(())
    }

    fn finish(&mut self) -> cairndb::Result<Vec<(String, Vec<u8>)>> {
        Ok(self
            .stats
            .iter()
            .map(|(id, s)| {
                let v = serde_json::to_vec(s).expect("statistics serialize");
                (format!("{PROPERTY_PREFIX}{id}"), v)
            })
            .collect())
    }

    fn name(&self) -> &str {
        "cairn_rows.IndexStats"
    }
}
