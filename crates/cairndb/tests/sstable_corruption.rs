//! Damage to a table file is reported as Corruption (naming the file), never returned as data and
//! never a panic: one bit flipped at every byte of small tables (with a range-deletion block), a
//! dense sample of a larger one, truncation at every length, and footers of versions this build
//! does not read.

use std::path::Path;
use std::sync::Arc;

use cairndb::cache::CacheOptions;
use cairndb::fs::{FileSystem, MemFs};
use cairndb::iter::InternalIterator;
use cairndb::sstable::{
    BlockCache, Footer, Table, TableBuilder, TableEntry, TableOptions, FOOTER_LEN,
};
use cairndb::types::{
    make_internal_key, seek_key, user_key, RangeTombstone, ValueKind, MAX_SEQUENCE,
};
use cairndb::util::checksum::ChecksumType;
use cairndb::{CompressionType, Error};

type Model = Vec<(Vec<u8>, Vec<u8>)>;

const PATH: &str = "/000001.sst";

fn model(n: u32, value_len: usize) -> Model {
    (0..n)
        .map(|i| {
            let key = make_internal_key(
                format!("user-{i:06}").as_bytes(),
                u64::from(i) + 1,
                ValueKind::Put,
            );
            let value =
                format!("value {i} ").repeat(value_len / 8 + 1).into_bytes()[..value_len].to_vec();
            (key, value)
        })
        .collect()
}

/// The range tombstones every test table carries (in stored order), enough for a range-deletion
/// block of several restart intervals.
fn tombstones() -> Vec<RangeTombstone> {
    (0..20u32)
        .map(|i| {
            RangeTombstone::new(
                format!("user-{:06}", i * 3).as_bytes(),
                format!("user-{:06}x", i * 3 + 1).as_bytes(),
                1000 + u64::from(i),
            )
        })
        .collect()
}

fn build(fs: &MemFs, model: &Model, opts: &TableOptions) -> Vec<u8> {
    let path = Path::new(PATH);
    let mut b = TableBuilder::new(fs.create(path).expect("create"), path, opts).expect("builder");
    for t in tombstones().iter().rev() {
        b.add_range_deletion(&t.begin, &t.end, t.seq)
            .expect("range deletion");
    }
    for (k, v) in model {
        b.add(k, v).expect("add");
    }
    b.finish().expect("finish");
    cairndb::fs::read_all(fs, path).expect("read back")
}

fn open(fs: &MemFs, opts: &TableOptions) -> cairndb::Result<Arc<Table>> {
    let path = Path::new(PATH);
    let file = fs.open_read(path)?;
    let size = file.size()?;
    Table::open(file, path, size, opts).map(Arc::new)
}

/// Every error must be a corruption naming the file.
fn expect_corruption(e: &Error, what: &str) {
    let c = e
        .as_corruption()
        .unwrap_or_else(|| panic!("{what}: not a corruption: {e}"));
    assert_eq!(c.file, Path::new(PATH), "{what}: {e}");
}

/// Opens, scans both ways, looks up every key (and absent keys): each answer is either exactly
/// right or a Corruption error. Returns true when some damage was reported.
fn check_damaged(fs: &MemFs, model: &Model, opts: &TableOptions, at: u64) -> bool {
    let what = format!("flip at byte {at}");
    let table = match open(fs, opts) {
        Ok(t) => t,
        Err(e) => {
            expect_corruption(&e, &what);
            return true;
        }
    };
    // Tombstones are decoded at open: an open table has them all, exactly.
    assert_eq!(&table.range_deletions()[..], &tombstones()[..], "{what}");
    let mut detected = false;
    let mut it = table.iter();
    let mut n = 0;
    it.seek_to_first();
    while it.valid() {
        assert!(n < model.len(), "{what}: extra entry");
        assert_eq!(
            (it.key(), it.value()),
            (&model[n].0[..], &model[n].1[..]),
            "{what}: wrong entry {n}"
        );
        n += 1;
        it.next();
    }
    match it.status() {
        Err(e) => {
            expect_corruption(&e, &what);
            detected = true;
        }
        Ok(()) => assert_eq!(n, model.len(), "{what}: scan ended early without an error"),
    }
    let mut n = model.len();
    it.seek_to_last();
    while it.valid() {
        n -= 1;
        assert_eq!(
            (it.key(), it.value()),
            (&model[n].0[..], &model[n].1[..]),
            "{what}: wrong entry {n} backwards"
        );
        it.prev();
    }
    match it.status() {
        Err(e) => {
            expect_corruption(&e, &what);
            detected = true;
        }
        Ok(()) => assert_eq!(n, 0, "{what}: backward scan ended early without an error"),
    }
    for (k, v) in model {
        match table.get(k) {
            Ok(got) => assert_eq!(
                got,
                Some(TableEntry {
                    key: k.clone(),
                    value: v.clone()
                }),
                "{what}"
            ),
            Err(e) => {
                expect_corruption(&e, &what);
                detected = true;
            }
        }
    }
    let keys: Vec<&[u8]> = model.iter().map(|(k, _)| user_key(k)).collect();
    for (((k, v), got), single) in model
        .iter()
        .zip(table.multi_get(&keys, MAX_SEQUENCE))
        .zip(keys.iter().map(|k| table.get_pinned(k, MAX_SEQUENCE)))
    {
        for got in [got, single] {
            match got {
                Ok(Some(g)) => assert_eq!((g.key(), g.value()), (&k[..], &v[..]), "{what}"),
                Ok(None) => panic!("{what}: present key not found"),
                Err(e) => {
                    expect_corruption(&e, &what);
                    detected = true;
                }
            }
        }
    }
    for absent in [
        seek_key(b"user-", 5),
        seek_key(b"user-000003x", 5),
        seek_key(b"zzz", 5),
    ] {
        match table.get(&absent) {
            Ok(got) => assert_eq!(got, None, "{what}: absent key found"),
            Err(e) => {
                expect_corruption(&e, &what);
                detected = true;
            }
        }
    }
    match table.verify_checksums() {
        Err(e) => {
            expect_corruption(&e, &what);
            true
        }
        Ok(()) => detected,
    }
}

/// Flips one bit (a different bit position for successive bytes) at each offset in `offsets` and
/// checks the table; returns the offsets whose damage went undetected by every check.
fn flip_each(
    fs: &MemFs,
    model: &Model,
    opts: &TableOptions,
    offsets: impl Iterator<Item = u64>,
) -> Vec<u64> {
    let path = Path::new(PATH);
    let mut undetected = Vec::new();
    for at in offsets {
        let bit = 1u8 << (at % 8);
        fs.corrupt_byte(path, at, |b| b ^ bit).expect("corrupt");
        if !check_damaged(fs, model, opts, at) {
            undetected.push(at);
        }
        fs.corrupt_byte(path, at, |b| b ^ bit).expect("restore");
    }
    undetected
}

fn small_table_options() -> Vec<TableOptions> {
    let base = TableOptions {
        block_size: 256,
        bytes_per_sync: 0,
        ..TableOptions::default()
    };
    vec![
        TableOptions {
            compression: CompressionType::None,
            checksum: ChecksumType::Crc32c,
            ..base.clone()
        },
        TableOptions {
            compression: CompressionType::Lz4,
            ..base.clone()
        },
        TableOptions {
            compression: CompressionType::Zstd,
            block_restart_interval: 4,
            ..base.clone()
        },
        TableOptions {
            compression: CompressionType::Snappy,
            ..base.clone()
        },
        TableOptions {
            block_cache: Some(Arc::new(BlockCache::new(CacheOptions::with_capacity(
                1 << 20,
            )))),
            cache_index_and_filter_blocks: true,
            ..base
        },
    ]
}

#[test]
fn every_bit_flip_in_small_tables_is_detected() {
    let model = model(60, 40);
    for opts in small_table_options() {
        let fs = MemFs::new();
        let bytes = build(&fs, &model, &opts);
        let t = open(&fs, &opts).expect("intact table opens");
        assert!(t.properties().num_data_blocks >= 5, "several data blocks");
        assert!(bytes.len() < 8192, "a few KB: {}", bytes.len());
        let undetected = flip_each(&fs, &model, &opts, 0..bytes.len() as u64);
        assert!(
            undetected.is_empty(),
            "{:?}: undetected flips at {undetected:?}",
            opts.compression
        );
    }
}

#[test]
fn dense_sample_of_a_larger_table_is_detected() {
    let model = model(5000, 100);
    let opts = TableOptions {
        compression: CompressionType::Lz4,
        ..TableOptions::default()
    };
    let fs = MemFs::new();
    let bytes = build(&fs, &model, &opts);
    let len = bytes.len() as u64;
    // Every 997th byte of the data, and every byte of the last 2 KB (filter tail, index, meta).
    let sample = (0..len).step_by(997).chain(len.saturating_sub(2048)..len);
    let undetected = flip_each(&fs, &model, &opts, sample);
    assert!(undetected.is_empty(), "undetected flips at {undetected:?}");
}

#[test]
fn truncation_at_every_length_fails_cleanly() {
    let model = model(60, 40);
    let opts = TableOptions {
        block_size: 256,
        ..TableOptions::default()
    };
    let fs = MemFs::new();
    let bytes = build(&fs, &model, &opts);
    let path = Path::new(PATH);
    for len in 0..bytes.len() {
        let fs = MemFs::new();
        let mut f = fs.create(path).expect("create");
        f.append(&bytes[..len]).expect("append");
        drop(f);
        let e = open(&fs, &opts).expect_err("truncated table must not open");
        expect_corruption(&e, &format!("truncated to {len}"));
    }
}

#[test]
fn newer_and_older_format_versions_are_not_supported() {
    let opts = TableOptions::default();
    for (version, what) in [
        (cairndb::sstable::FORMAT_VERSION + 1, "newer"),
        (1, "version 1"),
    ] {
        let fs = MemFs::new();
        let bytes = build(&fs, &model(10, 10), &opts);
        let at = (bytes.len() - FOOTER_LEN) as u64;
        let mut footer =
            Footer::decode(&bytes[at as usize..], Path::new(PATH), at).expect("footer");
        footer.format_version = version;
        for (i, b) in footer.encode().into_iter().enumerate() {
            fs.corrupt_byte(Path::new(PATH), at + i as u64, |_| b)
                .expect("patch");
        }
        let e = open(&fs, &opts).expect_err(what);
        assert!(
            matches!(&e, Error::NotSupported(m) if m.contains(&format!("version {version}"))),
            "{what}: {e}"
        );
    }
}

#[test]
fn corruption_names_block_offset() {
    let model = model(60, 40);
    let opts = TableOptions {
        block_size: 256,
        compression: CompressionType::None,
        ..TableOptions::default()
    };
    let fs = MemFs::new();
    build(&fs, &model, &opts);
    let table = open(&fs, &opts).expect("open");
    // Damage a byte inside the third data block: the error names that block's offset.
    let third = table
        .approximate_offset_of(&model[model.len() / 2].0)
        .expect("offset");
    fs.corrupt_byte(Path::new(PATH), third + 3, |b| b ^ 0x10)
        .expect("corrupt");
    let table = open(&fs, &opts).expect("data damage does not prevent open");
    let e = table.verify_checksums().expect_err("damage");
    let c = e.as_corruption().expect("corruption");
    assert_eq!(c.offset, third, "{e}");
    assert!(c.expected_checksum.is_some(), "{e}");
}
