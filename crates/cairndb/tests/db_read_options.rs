//! `ReadOptions::fill_cache` and `ReadOptions::verify_checksums` on every read path of the
//! database: `get`, `multi_get` and iterators.
//!
//! - `fill_cache = false`: blocks read on a cache miss are not inserted (the block cache's usage
//!   does not grow); RocksDB's meaning.
//! - `verify_checksums = false`: the block checksum is not compared, so a flipped bit inside a
//!   value of an uncompressed block is returned as data (as RocksDB does), while damage to the
//!   block's structure is still `Corruption`; with the default (`true`) the same read fails.

mod common;

use std::path::Path;
use std::sync::Arc;

use cairndb::cache::CacheOptions;
use cairndb::fs::{FileSystem, MemFs};
use cairndb::options::{Options, ReadOptions, WriteOptions};
use cairndb::sstable::BlockCache;
use cairndb::{CompressionType, Db};
use common::{count, key, DIR};

fn value(i: u32) -> Vec<u8> {
    let mut v = format!("value-{i:06}-").into_bytes();
    v.resize(100, b'x');
    v
}

/// A database of 2,000 keys in one flushed table, uncompressed, with a block cache.
fn open_flushed(fs: &Arc<MemFs>) -> Db {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.compression = CompressionType::None;
    o.cf.disable_auto_compactions = true;
    o.cf.table.block_cache = Some(Arc::new(BlockCache::new(CacheOptions::with_capacity(
        32 << 20,
    ))));
    let db = Db::open_with_fs(fs.shared(), DIR, o).expect("open");
    for i in 0..2000 {
        db.put(&WriteOptions::default(), &key(i), &value(i))
            .expect("put");
    }
    db.flush().expect("flush");
    db
}

fn usage(db: &Db) -> u64 {
    db.property_int("rocksdb.block-cache-usage")
        .expect("block-cache-usage")
}

#[test]
fn fill_cache_false_leaves_the_block_cache_alone_for_get_multi_get_and_iterators() {
    let fs = Arc::new(MemFs::new());
    let db = open_flushed(&fs);
    let no_fill = ReadOptions {
        fill_cache: false,
        ..ReadOptions::default()
    };
    let before = usage(&db);
    assert_eq!(db.get(&no_fill, &key(10)).expect("get"), Some(value(10)));
    let keys: Vec<Vec<u8>> = (0..2000).step_by(97).map(key).collect();
    for r in db.multi_get(&no_fill, &keys) {
        assert!(r.expect("multi_get").is_some());
    }
    assert_eq!(count(&db, &no_fill), 2000);
    assert_eq!(
        usage(&db),
        before,
        "no read with fill_cache=false filled the cache"
    );
    db.get(&ReadOptions::default(), &key(10)).expect("get");
    assert!(usage(&db) > before, "a default get fills the cache");
    let after_get = usage(&db);
    db.multi_get(&ReadOptions::default(), &keys);
    assert!(
        usage(&db) > after_get,
        "a default multi_get fills the cache"
    );
}

#[test]
fn verify_checksums_false_skips_the_block_checksum_on_get_and_multi_get() {
    let fs = Arc::new(MemFs::new());
    let db = open_flushed(&fs);
    let sst = fs
        .list(Path::new(DIR))
        .expect("list")
        .into_iter()
        .find(|n| n.ends_with(".sst"))
        .expect("a table");
    let path = Path::new(DIR).join(sst);
    let file = fs.open_read(&path).expect("open");
    let mut bytes = vec![0; file.size().expect("size") as usize];
    file.read_exact_at(0, &mut bytes).expect("read");
    let at = bytes
        .windows(12)
        .position(|w| w == b"value-001234")
        .expect("value stored as is") as u64;
    fs.corrupt_byte(&path, at + 6, |b| b ^ 0x01).expect("flip");
    let unverified = ReadOptions {
        verify_checksums: false,
        ..ReadOptions::default()
    };
    let e = db
        .get(&ReadOptions::default(), &key(1234))
        .expect_err("checksum mismatch");
    assert!(e.is_corruption(), "{e}");
    let got = db
        .get(&unverified, &key(1234))
        .expect("get")
        .expect("found");
    assert_eq!(&got[..12], b"value-101234", "the damaged value, unverified");
    let got = db.multi_get(&unverified, &[key(1234)]);
    let got = got[0].as_ref().expect("multi_get").as_ref().expect("found");
    assert_eq!(&got[..12], b"value-101234");
    assert!(db.multi_get(&ReadOptions::default(), &[key(1234)])[0].is_err());
    // The unverified read did not put the block in the cache: the verified read still fails.
    assert!(db.get(&ReadOptions::default(), &key(1234)).is_err());
}
