//! Table properties: what a table holds and the options that built it, stored as a sorted
//! name → value block. Spec: `docs/format/sstable.md`, section "Properties block".
//!
//! The table builder fills a [`TableProperties`] while it writes and encodes it last; the reader
//! decodes it at open. Plain data, no threads.
//!
//! Invariants:
//! 1. Integers are varint64 values, `bloom_bits_per_key` is the fixed64 of its IEEE-754 bits, names
//!    and the compression are UTF-8 strings.
//! 2. A known name with a malformed value is corruption. Unknown names are kept, bytes untouched, in
//!    [`TableProperties::user_properties`] and written back, so a newer writer's properties survive
//!    tools that rewrite them.

use std::collections::BTreeMap;

use super::block::{Block, BlockIter, BlockRef};
use super::block_builder::BlockBuilder;
use crate::comparator::EntryOrder;
use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use crate::types::CompressionType;
use crate::util::checksum::ChecksumType;
use crate::util::coding::{get_varint64, put_varint64};

/// Everything recorded about a table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TableProperties {
    /// Entries of every kind: point entries plus range tombstones (RocksDB counts both); the data
    /// blocks hold `num_entries - num_range_deletions`.
    pub num_entries: u64,
    /// Deletions: `Delete` and `SingleDelete` entries and range tombstones.
    pub num_deletions: u64,
    /// Range tombstones, the entries of the range-deletion block (also counted in
    /// `num_deletions` and `num_entries`).
    pub num_range_deletions: u64,
    /// `Merge` entries.
    pub num_merge_operands: u64,
    /// Sum of internal-key lengths (user key + 8-byte trailer), before prefix compression;
    /// tombstones count their begin keys.
    pub raw_key_bytes: u64,
    /// Sum of value lengths, before compression; tombstones count their end keys.
    pub raw_value_bytes: u64,
    /// Bytes of data blocks on disk, trailers included.
    pub data_bytes: u64,
    /// Bytes of the index block on disk, trailer included.
    pub index_bytes: u64,
    /// Bytes of the filter block on disk, trailer included; 0 without a filter.
    pub filter_bytes: u64,
    /// Number of data blocks.
    pub num_data_blocks: u64,
    /// Smallest sequence number of any entry or tombstone (0 in an empty table).
    pub smallest_seqno: u64,
    /// Largest sequence number of any entry or tombstone (0 in an empty table).
    pub largest_seqno: u64,
    /// The compression the builder was asked to use (a block may still be stored uncompressed).
    pub compression: CompressionType,
    /// The checksum function of the blocks.
    pub checksum: ChecksumType,
    /// The filter's policy name; empty without a filter.
    pub filter_policy: String,
    /// Bits per key the filter was built with (0 without a filter).
    pub bloom_bits_per_key: f64,
    /// Whether whole user keys are in the filter.
    pub whole_key_filtering: bool,
    /// The prefix extractor's name; empty without one.
    pub prefix_extractor: String,
    /// The comparator's name; empty in tables written before it was recorded (all bytewise).
    pub comparator: String,
    /// Target data-block size in bytes.
    pub block_size: u64,
    /// Restart interval of data blocks.
    pub block_restart_interval: u64,
    /// Restart interval of the index block.
    pub index_restart_interval: u64,
    /// When the table was built, in seconds since the Unix epoch.
    pub creation_time: u64,
    /// The format version of the file.
    pub format_version: u64,
    /// Properties with names this build does not know, kept as stored.
    pub user_properties: BTreeMap<String, Vec<u8>>,
}

/// How one property's value is encoded; the table below drives both directions.
enum Field {
    U64(fn(&TableProperties) -> u64, fn(&mut TableProperties, u64)),
    Str(
        fn(&TableProperties) -> String,
        fn(&mut TableProperties, &str) -> bool,
    ),
    F64(fn(&TableProperties) -> f64, fn(&mut TableProperties, f64)),
}

/// Every known property, sorted by name (the block's order).
const FIELDS: &[(&str, Field)] = &[
    (
        "cairndb.block.restart.interval",
        Field::U64(
            |p| p.block_restart_interval,
            |p, v| p.block_restart_interval = v,
        ),
    ),
    (
        "cairndb.block.size",
        Field::U64(|p| p.block_size, |p, v| p.block_size = v),
    ),
    (
        "cairndb.bloom.bits.per.key",
        Field::F64(|p| p.bloom_bits_per_key, |p, v| p.bloom_bits_per_key = v),
    ),
    (
        "cairndb.checksum.type",
        Field::U64(|p| p.checksum as u64, set_checksum),
    ),
    (
        "cairndb.index.restart.interval",
        Field::U64(
            |p| p.index_restart_interval,
            |p, v| p.index_restart_interval = v,
        ),
    ),
    (
        "cairndb.largest.seqno",
        Field::U64(|p| p.largest_seqno, |p, v| p.largest_seqno = v),
    ),
    (
        "cairndb.smallest.seqno",
        Field::U64(|p| p.smallest_seqno, |p, v| p.smallest_seqno = v),
    ),
    (
        "cairndb.whole.key.filtering",
        Field::U64(
            |p| u64::from(p.whole_key_filtering),
            |p, v| p.whole_key_filtering = v != 0,
        ),
    ),
    (
        "rocksdb.comparator",
        Field::Str(
            |p| p.comparator.clone(),
            |p, s| {
                p.comparator = s.to_string();
                true
            },
        ),
    ),
    (
        "rocksdb.compression",
        Field::Str(
            |p| p.compression.rocksdb_name().to_string(),
            set_compression,
        ),
    ),
    (
        "rocksdb.creation.time",
        Field::U64(|p| p.creation_time, |p, v| p.creation_time = v),
    ),
    (
        "rocksdb.data.size",
        Field::U64(|p| p.data_bytes, |p, v| p.data_bytes = v),
    ),
    (
        "rocksdb.deleted.keys",
        Field::U64(|p| p.num_deletions, |p, v| p.num_deletions = v),
    ),
    (
        "rocksdb.filter.policy",
        Field::Str(
            |p| p.filter_policy.clone(),
            |p, s| {
                p.filter_policy = s.to_string();
                true
            },
        ),
    ),
    (
        "rocksdb.filter.size",
        Field::U64(|p| p.filter_bytes, |p, v| p.filter_bytes = v),
    ),
    (
        "rocksdb.format.version",
        Field::U64(|p| p.format_version, |p, v| p.format_version = v),
    ),
    (
        "rocksdb.index.size",
        Field::U64(|p| p.index_bytes, |p, v| p.index_bytes = v),
    ),
    (
        "rocksdb.merge.operands",
        Field::U64(|p| p.num_merge_operands, |p, v| p.num_merge_operands = v),
    ),
    (
        "rocksdb.num.data.blocks",
        Field::U64(|p| p.num_data_blocks, |p, v| p.num_data_blocks = v),
    ),
    (
        "rocksdb.num.entries",
        Field::U64(|p| p.num_entries, |p, v| p.num_entries = v),
    ),
    (
        "rocksdb.num.range-deletions",
        Field::U64(|p| p.num_range_deletions, |p, v| p.num_range_deletions = v),
    ),
    (
        "rocksdb.prefix.extractor.name",
        Field::Str(
            |p| p.prefix_extractor.clone(),
            |p, s| {
                p.prefix_extractor = s.to_string();
                true
            },
        ),
    ),
    (
        "rocksdb.raw.key.size",
        Field::U64(|p| p.raw_key_bytes, |p, v| p.raw_key_bytes = v),
    ),
    (
        "rocksdb.raw.value.size",
        Field::U64(|p| p.raw_value_bytes, |p, v| p.raw_value_bytes = v),
    ),
];

/// Out-of-range checksum codes are caught by the caller's check of the decoded value.
fn set_checksum(p: &mut TableProperties, v: u64) {
    p.checksum = u8::try_from(v)
        .ok()
        .and_then(ChecksumType::from_u8)
        .unwrap_or_default();
}

fn set_compression(p: &mut TableProperties, s: &str) -> bool {
    match CompressionType::parse(s) {
        Ok(c) => {
            p.compression = c;
            true
        }
        Err(_) => false,
    }
}

impl TableProperties {
    /// True for a name the table format stores itself; user properties cannot use it.
    pub fn is_built_in(name: &str) -> bool {
        FIELDS.iter().any(|(n, _)| *n == name)
    }

    /// Every property as a (name, printable value) pair: the known ones by name, then the
    /// properties this build does not know. For tools (`cairn sst dump`).
    pub fn to_display_pairs(&self) -> Vec<(String, String)> {
        let known = FIELDS.iter().map(|(name, field)| {
            let value = match field {
                Field::U64(get, _) => get(self).to_string(),
                Field::Str(get, _) => get(self),
                Field::F64(get, _) => get(self).to_string(),
            };
            (name.to_string(), value)
        });
        let unknown = self
            .user_properties
            .iter()
            .map(|(k, v)| (k.clone(), v.escape_ascii().to_string()));
        known.chain(unknown).collect()
    }

    /// The properties block contents (uncompressed).
    pub fn encode(&self) -> Vec<u8> {
        let mut all: BTreeMap<&str, Vec<u8>> = self
            .user_properties
            .iter()
            .map(|(k, v)| (k.as_str(), v.clone()))
            .collect();
        for (name, field) in FIELDS {
            all.insert(name, encode_field(self, field));
        }
        let mut b = BlockBuilder::new(1);
        for (k, v) in &all {
            b.add(k.as_bytes(), v);
        }
        b.finish().to_vec()
    }

    /// Decodes a parsed properties block.
    ///
    /// # Errors
    /// [`Error::Corruption`] (anonymous, offset inside the block) when an entry is malformed, a known
    /// property has a malformed value, or a name is not UTF-8.
    pub fn decode(block: BlockRef) -> Result<TableProperties> {
        let mut props = TableProperties::default();
        let mut it = BlockIter::new(block, EntryOrder::Bytewise)?;
        it.seek_to_first();
        while it.valid() {
            let name = std::str::from_utf8(it.key())
                .map_err(|_| Error::corruption("", 0, "property name is not UTF-8"))?;
            decode_one(&mut props, name, it.value())?;
            it.next();
        }
        it.status()?;
        Ok(props)
    }

    /// Decodes properties from raw, uncompressed block contents (for tools and tests).
    ///
    /// # Errors
    /// As [`TableProperties::decode`].
    pub fn decode_contents(contents: Vec<u8>) -> Result<TableProperties> {
        Self::decode(Block::parse(contents, super::block::BlockKind::Properties)?.into())
    }
}

fn encode_field(p: &TableProperties, field: &Field) -> Vec<u8> {
    let mut v = Vec::new();
    match field {
        Field::U64(get, _) => put_varint64(&mut v, get(p)),
        Field::Str(get, _) => v.extend_from_slice(get(p).as_bytes()),
        Field::F64(get, _) => v.extend_from_slice(&get(p).to_bits().to_le_bytes()),
    }
    v
}

fn decode_one(p: &mut TableProperties, name: &str, value: &[u8]) -> Result<()> {
    let bad = || Error::corruption("", 0, format!("malformed value of property {name}"));
    let Ok(i) = FIELDS.binary_search_by(|(n, _)| n.cmp(&name)) else {
        p.user_properties.insert(name.to_string(), value.to_vec());
        return Ok(());
    };
    match &FIELDS[i].1 {
        Field::U64(_, set) => {
            let (v, n) = get_varint64(value).ok_or_else(bad)?;
            let valid =
                n == value.len() && (name != "cairndb.checksum.type" || checksum_code_ok(v));
            if !valid {
                return Err(bad());
            }
            set(p, v);
        }
        Field::Str(_, set) => {
            let s = std::str::from_utf8(value).map_err(|_| bad())?;
            if !set(p, s) {
                return Err(bad());
            }
        }
        Field::F64(_, set) => {
            let bits: [u8; 8] = value.try_into().map_err(|_| bad())?;
            set(p, f64::from_le_bytes(bits));
        }
    }
    Ok(())
}

fn checksum_code_ok(v: u64) -> bool {
    u8::try_from(v)
        .ok()
        .and_then(ChecksumType::from_u8)
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> TableProperties {
        let mut p = TableProperties {
            num_entries: 10,
            num_deletions: 3,
            num_range_deletions: 1,
            num_merge_operands: 2,
            raw_key_bytes: 240,
            raw_value_bytes: 1000,
            data_bytes: 900,
            comparator: "leveldb.BytewiseComparator".into(),
            index_bytes: 40,
            filter_bytes: 72,
            num_data_blocks: 2,
            smallest_seqno: 5,
            largest_seqno: 99,
            compression: CompressionType::Zstd,
            checksum: ChecksumType::Crc32c,
            filter_policy: FILTER_NAME.to_string(),
            bloom_bits_per_key: 9.5,
            whole_key_filtering: true,
            prefix_extractor: "rocksdb.FixedPrefix.4".into(),
            block_size: 4096,
            block_restart_interval: 16,
            index_restart_interval: 1,
            creation_time: 1_700_000_000,
            format_version: 1,
            user_properties: BTreeMap::new(),
        };
        p.user_properties.insert("zz.unknown".into(), vec![1, 2, 3]);
        p.user_properties.insert("aa.unknown".into(), vec![]);
        p
    }

    const FILTER_NAME: &str = super::super::filter::FILTER_POLICY_NAME;

    #[test]
    fn fields_are_sorted() {
        assert!(FIELDS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn round_trip_keeps_unknown_properties() {
        let p = sample();
        let decoded = TableProperties::decode_contents(p.encode()).expect("decode");
        assert_eq!(decoded, p);
    }

    #[test]
    fn malformed_known_value_is_corruption() {
        let mut b = BlockBuilder::new(1);
        b.add(b"rocksdb.num.entries", &[0x80]); // incomplete varint
        assert!(TableProperties::decode_contents(b.finish().to_vec())
            .expect_err("bad")
            .is_corruption());
        let mut b = BlockBuilder::new(1);
        b.add(b"cairndb.checksum.type", &[9]);
        assert!(TableProperties::decode_contents(b.finish().to_vec()).is_err());
        let mut b = BlockBuilder::new(1);
        b.add(b"rocksdb.compression", b"kZlibCompression");
        assert!(TableProperties::decode_contents(b.finish().to_vec()).is_err());
    }
}
