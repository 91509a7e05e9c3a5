//! `Db::get_pinned` (RocksDB's `Get` into a `PinnableSlice`): the same answers as `Db::get`, a
//! value found in a table is borrowed from its block rather than copied, and a pinned value
//! keeps its bytes while the database overwrites, flushes and compacts the key away.

mod common;

use std::sync::Arc;

use cairndb::cache::CacheOptions;
use cairndb::fs::MemFs;
use cairndb::options::{ReadOptions, WriteOptions};
use cairndb::sstable::BlockCache;
use cairndb::Db;
use common::{key, opts_no_auto_compactions, DIR};

#[test]
fn pinned_reads_answer_as_get_and_borrow_table_values() {
    let db =
        Db::open_with_fs(MemFs::new().shared(), DIR, opts_no_auto_compactions()).expect("open");
    let (w, r) = (WriteOptions::default(), ReadOptions::default());
    for k in 0..300u32 {
        db.put(&w, &key(k), format!("table-{k}").as_bytes())
            .expect("put");
    }
    db.flush().expect("flush");
    for k in (0..300u32).step_by(3) {
        db.put(&w, &key(k), format!("mem-{k}").as_bytes())
            .expect("put");
    }
    for k in (1..300u32).step_by(7) {
        db.delete(&w, &key(k)).expect("delete");
    }
    for k in 0..320u32 {
        let pinned = db.get_pinned(&r, &key(k)).expect("get_pinned");
        let copied = db.get(&r, &key(k)).expect("get");
        assert_eq!(pinned.as_deref(), copied.as_deref(), "key {k}");
        if let Some(v) = pinned {
            // Memtable values are copied; values read from the table are pinned.
            assert_eq!(v.is_pinned(), v.starts_with(b"table-"), "key {k}: {v:?}");
            assert_eq!(v.into_vec(), copied.expect("present"));
        }
    }
}

#[test]
fn a_pinned_value_outlives_overwrite_flush_and_compaction() {
    let fs = MemFs::new().shared();
    let cache = Arc::new(BlockCache::new(CacheOptions::with_capacity(1 << 20)));
    let mut o = opts_no_auto_compactions();
    o.cf.table.block_cache = Some(Arc::clone(&cache));
    let db = Db::open_with_fs(fs, DIR, o).expect("open");
    let (w, r) = (WriteOptions::default(), ReadOptions::default());
    db.put(&w, &key(1), b"first").expect("put");
    db.flush().expect("flush");
    let pinned = db.get_pinned(&r, &key(1)).expect("get").expect("present");
    assert!(pinned.is_pinned());
    assert!(cache.pinned_usage() > 0, "the value's block is pinned");
    db.put(&w, &key(1), b"second").expect("put");
    db.flush().expect("flush");
    db.compact_range(None, None).expect("compact");
    assert_eq!(
        db.get(&r, &key(1)).expect("get").as_deref(),
        Some(&b"second"[..])
    );
    assert_eq!(&*pinned, b"first");
    drop(pinned);
    assert_eq!(
        cache.pinned_usage(),
        0,
        "dropping the value releases its block"
    );
}
