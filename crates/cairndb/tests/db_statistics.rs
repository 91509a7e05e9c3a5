//! Opt-in statistics (`DbOptions::statistics`): each ticker family counted on known workloads,
//! and the printed format.

mod common;

use std::sync::Arc;

use cairndb::cache::CacheOptions;
use cairndb::fs::MemFs;
use cairndb::options::{HistogramType, Options, ReadOptions, Statistics, Ticker, WriteOptions};
use cairndb::sstable::BlockCache;
use cairndb::Db;
use common::{key, DIR};

fn open(stats: &Arc<Statistics>, cache: bool) -> Db {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    o.cf.disable_auto_compactions = true;
    o.db.statistics = Some(Arc::clone(stats));
    if cache {
        o.cf.table.block_cache = Some(Arc::new(BlockCache::new(CacheOptions::with_capacity(
            8 << 20,
        ))));
        o.cf.table.cache_index_and_filter_blocks = true;
    }
    Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open")
}

#[test]
fn writes_count_keys_bytes_and_the_wal() {
    let stats = Arc::new(Statistics::new());
    let db = open(&stats, false);
    for i in 0..10 {
        db.put(&WriteOptions::default(), &key(i), b"0123456789")
            .expect("put");
    }
    let sync = WriteOptions {
        sync: true,
        ..WriteOptions::default()
    };
    db.put(&sync, &key(10), b"x").expect("put");
    assert_eq!(stats.get_ticker_count(Ticker::NumberKeysWritten), 11);
    assert!(stats.get_ticker_count(Ticker::BytesWritten) > 11 * 10);
    assert_eq!(
        stats.get_ticker_count(Ticker::WalFileBytes),
        stats.get_ticker_count(Ticker::BytesWritten)
    );
    assert_eq!(stats.get_ticker_count(Ticker::WalFileSynced), 1);
    assert_eq!(stats.histogram_data(HistogramType::DbWrite).count, 11);
    assert_eq!(stats.histogram_data(HistogramType::WalFileSync).count, 1);
    assert_eq!(
        stats.get_ticker_count(Ticker::WriteDoneBySelf)
            + stats.get_ticker_count(Ticker::WriteDoneByOther),
        11
    );
}

#[test]
fn gets_count_keys_read_memtable_hits_and_bloom_answers() {
    let stats = Arc::new(Statistics::new());
    let db = open(&stats, true);
    let r = ReadOptions::default();
    for i in 0..100 {
        db.put(&WriteOptions::default(), &key(i), b"value")
            .expect("put");
    }
    for i in 0..10 {
        assert!(db.get(&r, &key(i)).expect("get").is_some());
    }
    assert_eq!(stats.get_ticker_count(Ticker::NumberKeysRead), 10);
    assert_eq!(stats.get_ticker_count(Ticker::BytesRead), 50);
    assert_eq!(stats.get_ticker_count(Ticker::MemtableHit), 10);
    assert_eq!(stats.histogram_data(HistogramType::DbGet).count, 10);
    db.flush().expect("flush");
    assert!(stats.get_ticker_count(Ticker::FlushWriteBytes) > 0);
    stats.reset();
    // Present keys: the filter lets them through and the table has them.
    for i in 0..20 {
        assert!(db.get(&r, &key(i)).expect("get").is_some());
    }
    assert_eq!(stats.get_ticker_count(Ticker::MemtableMiss), 20);
    assert_eq!(stats.get_ticker_count(Ticker::BloomFilterFullPositive), 20);
    assert_eq!(
        stats.get_ticker_count(Ticker::BloomFilterFullTruePositive),
        20
    );
    assert_eq!(stats.get_ticker_count(Ticker::GetHitL0), 20);
    assert!(stats.get_ticker_count(Ticker::BlockCacheDataHit) > 0);
    assert_eq!(
        stats.get_ticker_count(Ticker::BlockCacheHit)
            + stats.get_ticker_count(Ticker::BlockCacheMiss),
        stats.get_ticker_count(Ticker::BlockCacheDataHit)
            + stats.get_ticker_count(Ticker::BlockCacheDataMiss)
            + stats.get_ticker_count(Ticker::BlockCacheIndexHit)
            + stats.get_ticker_count(Ticker::BlockCacheIndexMiss)
            + stats.get_ticker_count(Ticker::BlockCacheFilterHit)
            + stats.get_ticker_count(Ticker::BlockCacheFilterMiss)
    );
    // Absent keys inside the table's key range: the Bloom filter answers almost all of them.
    for i in 0..100 {
        let absent = format!("key{i:06}x");
        assert!(db.get(&r, absent.as_bytes()).expect("get").is_none());
    }
    assert!(stats.get_ticker_count(Ticker::BloomFilterUseful) >= 90);
    assert_eq!(stats.get_ticker_count(Ticker::NumberKeysRead), 120);
}

#[test]
fn seeks_and_compactions_are_counted_and_printed() {
    let stats = Arc::new(Statistics::new());
    let db = open(&stats, false);
    for round in 0..2 {
        for i in 0..50 {
            db.put(
                &WriteOptions::default(),
                &key(i),
                format!("v{round}").as_bytes(),
            )
            .expect("put");
        }
        db.flush().expect("flush");
    }
    let mut it = db.iter(&ReadOptions::default()).expect("iter");
    it.seek(&key(10));
    it.seek_to_first();
    it.seek_to_last();
    assert_eq!(stats.get_ticker_count(Ticker::NumberDbSeek), 3);
    assert_eq!(stats.histogram_data(HistogramType::DbSeek).count, 3);
    drop(it);
    db.compact_range(None, None).expect("compact");
    assert!(stats.get_ticker_count(Ticker::CompactReadBytes) > 0);
    assert!(stats.get_ticker_count(Ticker::CompactWriteBytes) > 0);
    assert!(stats.histogram_data(HistogramType::CompactionTime).count >= 1);
    let text = stats.to_string();
    assert!(
        text.contains("rocksdb.number.db.seek COUNT : 3\n"),
        "{text}"
    );
    assert!(text.contains("rocksdb.db.seek.micros P50 : "), "{text}");
    assert!(text.contains(" COUNT : 3 SUM : "), "{text}");
}

#[test]
fn without_statistics_nothing_is_collected() {
    let mut o = Options::default();
    o.db.create_if_missing = true;
    let db = Db::open_with_fs(MemFs::new().shared(), DIR, o).expect("open");
    db.put(&WriteOptions::default(), b"k", b"v").expect("put");
    assert!(db
        .get(&ReadOptions::default(), b"k")
        .expect("get")
        .is_some());
}
