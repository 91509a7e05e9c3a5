//! User table-properties collectors and the planners' size questions (issue 16, item 3):
//! collectors see every entry that flushes, compactions and `SstFileWriter` write, in order, and
//! their properties come back with the live tables; a collector cannot shadow a built-in
//! property; `get_properties_of_tables_in_range_cf` picks the overlapping tables;
//! `get_approximate_sizes_cf` measures ranges in tables and memtables, in either order.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use cairndb::fs::{FileSystem, MemFs};
use cairndb::options::{Options, WriteOptions};
use cairndb::{
    CollectorContext, Db, EntryType, KeyOrder, Result, SequenceNumber, SizeApproximation,
    SstFileWriter, TablePropertiesCollector, TablePropertiesCollectorFactory,
};
use common::DIR;

/// Every entry collectors saw: key, kind, level of the table.
type Seen = Arc<Mutex<Vec<(Vec<u8>, EntryType, usize)>>>;

/// A key range `[start, limit)`.
type Range<'a> = (&'a [u8], &'a [u8]);

fn w() -> WriteOptions {
    WriteOptions::default()
}

/// Counts puts, deletes and range deletions, and the distinct 2-byte key prefixes, as MyRocks's
/// index statistics do per index number; records every key it sees, to check order.
struct Counting {
    puts: u64,
    deletes: u64,
    range_deletions: u64,
    prefixes: BTreeSet<Vec<u8>>,
    seen: Seen,
    level: usize,
}

impl TablePropertiesCollector for Counting {
    fn add_user_key(
        &mut self,
        key: &[u8],
        _value: &[u8],
        entry: EntryType,
        _seq: SequenceNumber,
        _file_size: u64,
    ) -> Result<()> {
        match entry {
            EntryType::Put => self.puts += 1,
            EntryType::Delete | EntryType::SingleDelete => self.deletes += 1,
            EntryType::RangeDeletion => self.range_deletions += 1,
            EntryType::Merge => {}
        }
        self.prefixes.insert(key[..2.min(key.len())].to_vec());
        self.seen
            .lock()
            .expect("lock")
            .push((key.to_vec(), entry, self.level));
        Ok(())
    }

    fn finish(&mut self) -> Result<Vec<(String, Vec<u8>)>> {
        Ok(vec![
            ("test.puts".into(), self.puts.to_string().into_bytes()),
            ("test.deletes".into(), self.deletes.to_string().into_bytes()),
            (
                "test.range_deletions".into(),
                self.range_deletions.to_string().into_bytes(),
            ),
            (
                "test.prefixes".into(),
                self.prefixes.len().to_string().into_bytes(),
            ),
        ])
    }

    fn name(&self) -> &str {
        "counting"
    }
}

#[derive(Default)]
struct CountingFactory {
    seen: Seen,
}

impl TablePropertiesCollectorFactory for CountingFactory {
    fn create(&self, context: CollectorContext) -> Box<dyn TablePropertiesCollector> {
        Box::new(Counting {
            puts: 0,
            deletes: 0,
            range_deletions: 0,
            prefixes: BTreeSet::new(),
            seen: Arc::clone(&self.seen),
            level: context.level_at_creation,
        })
    }

    fn name(&self) -> &str {
        "counting"
    }
}

fn opts_with(factory: Arc<dyn TablePropertiesCollectorFactory>) -> Options {
    let mut o = common::opts_no_auto_compactions();
    o.cf.table_properties_collector_factories = vec![factory];
    o
}

fn sum(db: &Db, name: &str) -> u64 {
    db.get_properties_of_all_tables()
        .expect("properties")
        .iter()
        .map(|t| {
            let v = t.properties.user_properties.get(name).expect(name);
            std::str::from_utf8(v)
                .expect("utf8")
                .parse::<u64>()
                .expect("number")
        })
        .sum()
}

fn open(fs: &Arc<dyn FileSystem>, o: Options) -> Db {
    Db::open_with_fs(Arc::clone(fs), DIR, o).expect("open")
}

#[test]
fn collectors_see_every_entry_of_flushes_and_compactions_in_order() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let factory = Arc::new(CountingFactory::default());
    let db = open(&fs, opts_with(factory.clone()));
    for i in 0..300u32 {
        let k = format!("{}{i:05}", ["aa", "bb", "cc"][i as usize % 3]);
        db.put(&w(), k.as_bytes(), b"v").expect("put");
    }
    db.delete(&w(), b"aa00000").expect("delete");
    db.delete_range(&w(), b"cc", b"cd").expect("delete_range");
    db.flush().expect("flush");
    // The flush drops what the memtable's own deletions cover: the 100 "cc" keys under the
    // range tombstone and the put of aa00000 under its delete.
    assert_eq!(sum(&db, "test.puts"), 199);
    assert_eq!(sum(&db, "test.deletes"), 1);
    assert_eq!(sum(&db, "test.range_deletions"), 1);
    assert_eq!(sum(&db, "test.prefixes"), 3);
    {
        let seen = factory.seen.lock().expect("lock");
        let points: Vec<&Vec<u8>> = seen
            .iter()
            .filter(|(_, e, _)| *e != EntryType::RangeDeletion)
            .map(|(k, _, _)| k)
            .collect();
        assert!(points.windows(2).all(|p| p[0] <= p[1]), "keys out of order");
        assert_eq!(
            seen.last().map(|(k, e, l)| (k.as_slice(), *e, *l)),
            Some((&b"cc"[..], EntryType::RangeDeletion, 0)),
            "range tombstones come after the point entries"
        );
    }
    factory.seen.lock().expect("lock").clear();

    // A second, overlapping table makes the full compaction merge (a lone table would move
    // down unchanged); at the bottom it drops the deletions, and the new table's collector sees
    // only what survives, at the output level.
    db.put(&w(), b"bb99999", b"v").expect("put");
    db.flush().expect("flush");
    factory.seen.lock().expect("lock").clear();
    db.compact_range(None, None).expect("compact");
    assert_eq!(sum(&db, "test.puts"), 200);
    assert_eq!(sum(&db, "test.deletes"), 0);
    assert_eq!(sum(&db, "test.range_deletions"), 0);
    assert_eq!(sum(&db, "test.prefixes"), 2);
    let seen = factory.seen.lock().expect("lock");
    assert!(!seen.is_empty() && seen.iter().all(|(_, _, l)| *l > 0));
    drop(seen);

    // The properties are in the files: they survive reopen without the collector.
    db.close().expect("close");
    let db = open(&fs, common::opts_no_auto_compactions());
    assert_eq!(sum(&db, "test.puts"), 200);
}

#[test]
fn sst_file_writer_runs_the_collectors_and_ingestion_keeps_their_properties() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let o = opts_with(Arc::new(CountingFactory::default()));
    let mut wr = SstFileWriter::for_family(Arc::clone(&fs), &o.db, &o.cf);
    wr.open("/ext.sst").expect("open");
    for i in 0..50u32 {
        wr.put(format!("k{i:03}").as_bytes(), b"x").expect("put");
    }
    wr.finish().expect("finish");
    let db = open(&fs, o);
    db.ingest_external_file(
        &["/ext.sst"],
        &cairndb::IngestExternalFileOptions::default(),
    )
    .expect("ingest");
    assert_eq!(sum(&db, "test.puts"), 50);
}

struct Shadowing;

impl TablePropertiesCollector for Shadowing {
    fn add_user_key(
        &mut self,
        _: &[u8],
        _: &[u8],
        _: EntryType,
        _: SequenceNumber,
        _: u64,
    ) -> Result<()> {
        Ok(())
    }

    fn finish(&mut self) -> Result<Vec<(String, Vec<u8>)>> {
        Ok(vec![("rocksdb.num.entries".into(), b"7".to_vec())])
    }

    fn name(&self) -> &str {
        "shadowing"
    }
}

struct ShadowingFactory;

impl TablePropertiesCollectorFactory for ShadowingFactory {
    fn create(&self, _: CollectorContext) -> Box<dyn TablePropertiesCollector> {
        Box::new(Shadowing)
    }

    fn name(&self) -> &str {
        "shadowing"
    }
}

#[test]
fn a_collector_cannot_shadow_a_built_in_property_and_nothing_is_lost() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let db = open(&fs, opts_with(Arc::new(ShadowingFactory)));
    db.put(&w(), b"k", b"v").expect("put");
    let e = db.flush().expect_err("the flush must fail");
    assert!(
        format!("{e}").contains("rocksdb.num.entries"),
        "unexpected error: {e}"
    );
    drop(db);
    // The write is still in the WAL: a reopen without the collector recovers it.
    let db = open(&fs, common::opts_no_auto_compactions());
    assert_eq!(
        db.get(&Default::default(), b"k").expect("get").as_deref(),
        Some(&b"v"[..])
    );
}

#[test]
fn tables_in_range_are_the_overlapping_ones() {
    let fs: Arc<dyn FileSystem> = MemFs::new().shared();
    let db = open(&fs, common::opts_no_auto_compactions());
    for (lo, hi) in [(b'a', b'c'), (b'e', b'g'), (b'x', b'z')] {
        for c in lo..=hi {
            db.put(&w(), &[c, b'1'], b"v").expect("put");
        }
        db.flush().expect("flush");
    }
    let names = |ranges: &[(&[u8], &[u8])]| {
        let cf = db.default_column_family();
        let mut v: Vec<u64> = db
            .get_properties_of_tables_in_range_cf(&cf, ranges)
            .expect("in range")
            .iter()
            .map(|t| t.properties.num_entries)
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(db.get_properties_of_all_tables().expect("all").len(), 3);
    assert_eq!(names(&[(b"b", b"d")]), vec![3]);
    assert_eq!(
        names(&[(b"c2", b"e")]),
        Vec::<u64>::new(),
        "limit is exclusive"
    );
    assert_eq!(names(&[(b"a", b"f"), (b"y", b"z")]), vec![3, 3, 3]);
}

fn approx(db: &Db, order_cf: &cairndb::ColumnFamily, r: (&[u8], &[u8]), mem: bool) -> u64 {
    db.get_approximate_sizes_cf(
        order_cf,
        &[r],
        SizeApproximation {
            include_files: !mem,
            include_memtables: mem,
        },
    )
    .expect("sizes")[0]
}

#[test]
fn approximate_sizes_follow_the_data_in_both_orders() {
    for reverse in [false, true] {
        let fs: Arc<dyn FileSystem> = MemFs::new().shared();
        let mut o = common::opts_no_auto_compactions();
        o.cf.write_buffer_size = 64 << 20;
        o.cf.compression = cairndb::CompressionType::None;
        if reverse {
            o.cf.comparator = KeyOrder::REVERSE_BYTEWISE;
        }
        let db = open(&fs, o);
        let cf = db.default_column_family();
        // 2,000 keys "a..." with 400-byte values, 200 keys "b..." with 100-byte values.
        for i in 0..2000u32 {
            db.put(&w(), format!("a{i:05}").as_bytes(), &[1u8; 400])
                .expect("put");
        }
        for i in 0..200u32 {
            db.put(&w(), format!("b{i:05}").as_bytes(), &[2u8; 100])
                .expect("put");
        }
        let (a, b): (Range<'_>, Range<'_>) = if reverse {
            ((b"a99999", b"a"), (b"b99999", b"b"))
        } else {
            ((b"a", b"a99999"), (b"b", b"b99999"))
        };
        let mem_a = approx(&db, &cf, a, true);
        let mem_b = approx(&db, &cf, b, true);
        assert!((2000 * 400..2000 * 450).contains(&mem_a), "{mem_a}");
        assert!((200 * 100..200 * 150).contains(&mem_b), "{mem_b}");
        assert_eq!(approx(&db, &cf, a, false), 0, "nothing in files yet");
        db.flush().expect("flush");
        assert_eq!(approx(&db, &cf, a, true), 0, "nothing in memtables now");
        let file_a = approx(&db, &cf, a, false);
        let file_b = approx(&db, &cf, b, false);
        // Exact to a data block (4 KiB) at each end.
        assert!(file_a.abs_diff(mem_a) < 3 * 4096, "{file_a} vs {mem_a}");
        assert!(file_b.abs_diff(mem_b) < 3 * 4096, "{file_b} vs {mem_b}");
        // A range in the wrong order, or empty, is 0; a range past the data is 0.
        assert_eq!(approx(&db, &cf, (a.1, a.0), false), 0);
        assert_eq!(approx(&db, &cf, (a.0, a.0), false), 0);
        let past: (&[u8], &[u8]) = if reverse { (b"0", b"") } else { (b"c", b"d") };
        assert_eq!(approx(&db, &cf, past, false), 0);
    }
}
