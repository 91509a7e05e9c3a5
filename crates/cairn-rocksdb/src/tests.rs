//! The facade's own tests: what rust-rocksdb's tests do not check (refusals, the open's family
//! check, batch refusals, lifetimes of snapshots held by read options).

use crate::{
    ColumnFamilyDescriptor, DBCompressionType, ErrorKind, IteratorMode, MemtableFactory, Options,
    ReadOptions, WriteBatch, DB,
};

fn open_opts() -> Options {
    let mut o = Options::default();
    o.create_if_missing(true);
    o
}

#[test]
fn refused_setters_fail_the_open_and_name_the_setter() {
    let dir = tempfile::tempdir().unwrap();
    let mut o = open_opts();
    o.set_compression_type(DBCompressionType::Zlib);
    let e = DB::open(&o, dir.path()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotSupported);
    assert!(e.to_string().contains("set_compression_type(Zlib)"), "{e}");

    let mut o = open_opts();
    o.set_memtable_factory(MemtableFactory::Vector);
    let e = DB::open(&o, dir.path()).unwrap_err();
    assert!(
        e.to_string().contains("set_memtable_factory(Vector)"),
        "{e}"
    );
    // Nothing was created by the refused opens.
    assert!(!dir.path().join("CURRENT").exists());
}

#[test]
fn refused_read_options_fail_the_read() {
    let dir = tempfile::tempdir().unwrap();
    let db = DB::open(&open_opts(), dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    let mut r = ReadOptions::default();
    r.set_tailing(true);
    assert_eq!(
        db.get_opt(b"k", &r).unwrap_err().kind(),
        ErrorKind::NotSupported
    );
    let mut it = db.iterator_opt(IteratorMode::Start, r);
    assert_eq!(
        it.next().unwrap().unwrap_err().kind(),
        ErrorKind::NotSupported
    );
    assert!(it.next().is_none());
}

#[test]
fn every_family_must_be_listed_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let o = open_opts();
    {
        // `create_cf` takes `&mut self` unless DB is multi-threaded.
        #[cfg_attr(feature = "multi-threaded-cf", allow(unused_mut))]
        let mut db = DB::open(&o, dir.path()).unwrap();
        db.create_cf("a", &Options::default()).unwrap();
    }
    let e = DB::open(&o, dir.path()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.to_string().contains("Column families not opened: a"),
        "{e}"
    );
    let db = DB::open_cf_descriptors(
        &o,
        dir.path(),
        [ColumnFamilyDescriptor::new("a", Options::default())],
    )
    .unwrap();
    assert!(db.cf_handle("a").is_some());
}

#[test]
fn a_refused_record_fails_the_whole_batch() {
    let dir = tempfile::tempdir().unwrap();
    let db = DB::open(&open_opts(), dir.path()).unwrap();
    let mut b = WriteBatch::default();
    b.put(b"ok", b"1");
    b.put(vec![0u8; 9 << 20], b"key over the size limit");
    assert_eq!(b.len(), 1);
    assert!(db.write(b).is_err());
    assert_eq!(db.get(b"ok").unwrap(), None);
}

#[test]
fn read_options_keep_their_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let db = DB::open(&open_opts(), dir.path()).unwrap();
    db.put(b"k", b"old").unwrap();
    let mut r = ReadOptions::default();
    {
        let snap = db.snapshot();
        r.set_snapshot(&snap);
    }
    db.put(b"k", b"new").unwrap();
    db.flush().unwrap();
    db.compact_range(None::<&[u8]>, None::<&[u8]>);
    // The snapshot was dropped, but the read options still hold it registered, so compaction
    // kept the old version.
    assert_eq!(db.get_opt(b"k", &r).unwrap(), Some(b"old".to_vec()));
}

#[test]
fn transactions_read_their_writes_and_commit_atomically() {
    use crate::{OptimisticTransactionDB, TransactionDB};
    let dir = tempfile::tempdir().unwrap();
    let db: TransactionDB = TransactionDB::open_default(dir.path()).unwrap();
    db.put(b"a", b"1").unwrap();
    let txn = db.transaction();
    txn.put(b"b", b"2").unwrap();
    assert_eq!(txn.get(b"b").unwrap(), Some(b"2".to_vec()));
    assert_eq!(db.get(b"b").unwrap(), None, "invisible before commit");
    let keys: Vec<_> = txn
        .iterator(IteratorMode::Start)
        .map(|kv| kv.unwrap().0)
        .collect();
    assert_eq!(keys, [&b"a"[..], b"b"].map(Box::from));
    txn.commit().unwrap();
    assert_eq!(db.get(b"b").unwrap(), Some(b"2".to_vec()));
    // A single deletion outside a transaction cannot lock its key: refused.
    assert_eq!(
        db.single_delete(b"a").unwrap_err().kind(),
        ErrorKind::NotSupported
    );
    drop(db);

    let dir = tempfile::tempdir().unwrap();
    let db: OptimisticTransactionDB = OptimisticTransactionDB::open_default(dir.path()).unwrap();
    let txn = db.transaction();
    txn.get_for_update(b"k", true).unwrap();
    db.put(b"k", b"theirs").unwrap();
    txn.put(b"k", b"mine").unwrap();
    assert_eq!(txn.commit().unwrap_err().kind(), ErrorKind::Busy);
    assert_eq!(db.get(b"k").unwrap(), Some(b"theirs".to_vec()));
}

#[test]
fn a_checkpoint_opens_with_every_acknowledged_write() {
    let dir = tempfile::tempdir().unwrap();
    let db = DB::open(&open_opts(), dir.path().join("db")).unwrap();
    db.put(b"k", b"v").unwrap();
    let cp = crate::checkpoint::Checkpoint::new(&db).unwrap();
    cp.create_checkpoint(dir.path().join("cp")).unwrap();
    // Below log_size_for_flush the memtable is not flushed: the write is in the WAL copy.
    cp.create_checkpoint_with_log_size(dir.path().join("cp2"), 1 << 20)
        .unwrap();
    for name in ["cp", "cp2"] {
        let copy = DB::open(&Options::default(), dir.path().join(name)).unwrap();
        assert_eq!(copy.get(b"k").unwrap(), Some(b"v".to_vec()));
    }
}

#[test]
fn statistics_levels_and_tickers_through_the_options() {
    use crate::statistics::{Histogram, StatsLevel, Ticker};
    let dir = tempfile::tempdir().unwrap();
    let mut o = open_opts();
    o.enable_statistics();
    o.set_statistics_level(StatsLevel::ExceptHistogramOrTimers);
    let db = DB::open(&o, dir.path()).unwrap();
    db.put(b"k", b"v").unwrap();
    assert!(o.get_ticker_count(Ticker::BytesWritten) > 0);
    assert_eq!(o.get_histogram_data(Histogram::DbWrite).count(), 0);
    o.set_statistics_level(StatsLevel::All);
    db.put(b"k", b"v").unwrap();
    assert_eq!(o.get_histogram_data(Histogram::DbWrite).count(), 1);
}

#[test]
fn memory_usage_counts_memtables_table_readers_and_caches_once() {
    use crate::perf::MemoryUsageBuilder;
    use crate::{BlockBasedOptions, Cache};
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new_lru_cache(8 << 20);
    let mut table = BlockBasedOptions::default();
    table.set_block_cache(&cache);
    let mut o = open_opts();
    o.set_block_based_table_factory(&table);
    let db = DB::open(&o, dir.path()).unwrap();
    // More than one arena block (the memtable's allocation unit) of entries.
    for i in 0..20_000u32 {
        db.put(format!("key{i:05}"), [b'v'; 100]).unwrap();
    }
    let before = {
        let mut b = MemoryUsageBuilder::new().unwrap();
        b.add_db(&db);
        b.build().unwrap()
    };
    assert!(before.approximate_mem_table_unflushed() > 2_000_000);
    assert_eq!(before.approximate_mem_table_readers_total(), 0);
    db.flush().unwrap();
    assert_eq!(db.get(b"key00001").unwrap(), Some(vec![b'v'; 100]));
    let mut b = MemoryUsageBuilder::new().unwrap();
    b.add_db(&db);
    b.add_cache(&cache);
    let after = b.build().unwrap();
    assert!(after.approximate_mem_table_unflushed() < before.approximate_mem_table_unflushed());
    assert!(after.approximate_mem_table_readers_total() > 0);
    // The database's cache and the one added are the same cache: counted once.
    assert_eq!(after.approximate_cache_total(), cache.get_usage() as u64);
    assert!(after.approximate_cache_total() > 0);
}

#[test]
fn live_files_metadata_sizes_and_the_perf_context() {
    use crate::perf::{set_perf_stats, PerfStatsLevel};
    use crate::{PerfContext, PerfMetric, Range};
    let dir = tempfile::tempdir().unwrap();
    let db = DB::open(&open_opts(), dir.path()).unwrap();
    for i in 0..1000u32 {
        db.put(format!("k{i:04}"), [b'v'; 64]).unwrap();
    }
    db.delete(b"k0001").unwrap();
    db.flush().unwrap();
    let files = db.live_files().unwrap();
    assert_eq!(files.len(), 1);
    let f = &files[0];
    assert_eq!(f.column_family_name, "default");
    assert!(
        f.name.starts_with('/') && f.name.ends_with(".sst"),
        "{}",
        f.name
    );
    assert_eq!(
        (f.start_key.as_deref(), f.end_key.as_deref()),
        (Some(&b"k0000"[..]), Some(&b"k0999"[..]))
    );
    // The deletion shadows its put in the memtable: 999 puts and the deletion reach the table.
    assert_eq!((f.num_entries, f.num_deletions), (1000, 1));
    let meta = db.get_column_family_metadata();
    assert_eq!((meta.name.as_str(), meta.file_count), ("default", 1));
    assert_eq!(meta.size, f.size as u64);
    let sizes = db.get_approximate_sizes(&[Range::new(b"k0000", b"k0500"), Range::new(b"x", b"y")]);
    assert!(sizes[0] > 0 && sizes[1] == 0, "{sizes:?}");

    let mut ctx = PerfContext::default();
    ctx.reset();
    db.get(b"k0500").unwrap();
    assert!(ctx.metric(PerfMetric::BlockReadCount) > 0);
    set_perf_stats(PerfStatsLevel::Disable);
    ctx.reset();
    db.get(b"k0700").unwrap();
    assert_eq!(ctx.metric(PerfMetric::BlockReadCount), 0);
    set_perf_stats(PerfStatsLevel::EnableCount);
}

#[test]
fn env_settings_count_when_the_database_opens_and_batch_refusals_roll_back() {
    use crate::Env;
    let dir = tempfile::tempdir().unwrap();
    let mut env = Env::new().unwrap();
    let mut o = open_opts();
    o.set_env(&env);
    // Changed after set_env: the open still sees it (the Env is shared, as RocksDB's).
    env.set_background_threads(4);
    let e = DB::open(&o, dir.path()).unwrap_err();
    assert!(e.to_string().contains("set_background_threads(4)"), "{e}");

    let db = DB::open(&open_opts(), dir.path()).unwrap();
    let mut b = WriteBatch::default();
    b.put(b"a", b"1");
    b.set_save_point();
    b.put(vec![0u8; 9 << 20], b"refused");
    b.rollback_to_save_point().unwrap();
    db.write(b).unwrap();
    assert_eq!(db.get(b"a").unwrap(), Some(b"1".to_vec()));
    let mut b = WriteBatch::default();
    b.set_save_point();
    b.put(vec![0u8; 9 << 20], b"refused");
    b.pop_save_point().unwrap();
    assert!(db.write(b).is_err(), "kept once its save point is popped");
}
