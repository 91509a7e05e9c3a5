//! The table cache: open [`Table`]s by file number, bounded by `max_open_files`.
//!
//! Readers and compactions ask [`TableCache::get_table`] for a table file; the cache opens it on
//! first use (footer, index and filter read and checked by [`Table::open`]) and keeps it open
//! until it is evicted to respect the capacity or [`TableCache::evict`]ed because the file became
//! obsolete.
//!
//! # Contract
//! - Callers: any thread; every method takes `&self` and `TableCache` is `Send + Sync`.
//! - Ownership: the cache holds one `Arc<Table>` per resident file; callers get clones. An evicted
//!   table stays open for as long as a caller holds its `Arc`, so eviction never invalidates a
//!   reader; the file handle closes when the last clone drops.
//! - Storage: the sharded [`Cache`] of `cache/`, LRU policy, each table charged 1, so the
//!   capacity is a number of tables and a hit takes only its shard's lock. The number of shards
//!   is `2^table_cache_numshardbits` when that option is set ([`TableCache::with_shard_bits`]),
//!   else automatic: shards of at least 16 tables, at most 64. As in RocksDB, the capacity is
//!   divided evenly between the shards, so many shards and a small capacity evict early.
//! - Opening: a table is opened outside every cache lock. Concurrent misses on the *same* file
//!   are collapsed: the first takes a per-file open lock, the others wait on it and then find the
//!   table in the cache. Misses on different files open in parallel. (Alternatives: opening under
//!   one global lock serializes all opens behind slow I/O; opening without coordination makes N
//!   threads read the same footer, index and filter N times after a cold start.)
//! - Errors are not cached: the next call tries to open the file again.
//!
//! # Invariants
//! 1. At most `capacity` tables are resident (the cache evicts the least recently used; handles
//!    are released before `get_table` returns, so nothing pins an entry).
//! 2. A file number maps to at most one resident table, opened from
//!    `dir/table_file_name(number)`.
//! 3. Every error names the file: corruption carries its path (from [`Table::open`]), other
//!    errors are wrapped with the file name.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::cache::{Cache, CacheKey, CacheOptions, CachePolicy};
use crate::error::Result;
use crate::fs::FileSystem;
use crate::sstable::{Table, TableOptions};
use crate::version::filenames::table_file_name;

/// Shards hold at least this many tables, so that uneven hashing of file numbers does not evict
/// tables long before the total capacity is reached.
const MIN_TABLES_PER_SHARD: usize = 16;
/// Most shard bits (64 shards, RocksDB's `table_cache_numshardbits` default).
const MAX_SHARD_BITS: u8 = 6;

/// Counters of table-cache activity since creation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableCacheStats {
    /// Requests answered by a table already open (including ones that waited for another
    /// thread's open of the same file).
    pub hits: u64,
    /// Requests that opened the file.
    pub misses: u64,
    /// Tables evicted to respect the capacity (not counting [`TableCache::evict`]).
    pub evictions: u64,
}

/// Open tables of one database directory. See the module documentation.
#[derive(Debug)]
pub struct TableCache {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    options: TableOptions,
    capacity: Option<usize>,
    tables: Cache<Arc<Table>>,
    /// Per-file locks of opens in progress; an entry lives only while its file is being opened.
    opening: Mutex<HashMap<u64, Arc<Mutex<()>>>>,
    hits: AtomicU64,
    misses: AtomicU64,
    /// Opt-in statistics the tables count block cache hits and misses in.
    statistics: Option<Arc<crate::statistics::Statistics>>,
    /// Bytes held by the tables this cache opened that are still alive, resident or not
    /// (`Table::count_memory_in`).
    readers_memory: Arc<AtomicUsize>,
}

impl TableCache {
    /// A cache of tables in `dir`, opened through `fs` with `options` (its block cache and prefix
    /// extractor are the ones readers use). `capacity` is the most tables kept open; `None` for
    /// no limit (RocksDB's `max_open_files = -1`; see `DbOptions::table_cache_capacity`).
    /// A capacity of 0 is raised to 1.
    pub fn new(
        fs: Arc<dyn FileSystem>,
        dir: impl Into<PathBuf>,
        options: TableOptions,
        capacity: Option<usize>,
    ) -> TableCache {
        let capacity = capacity.map(|c| c.max(1));
        let tables = tables_cache(capacity, shard_bits(capacity));
        TableCache {
            fs,
            dir: dir.into(),
            options,
            capacity,
            tables,
            opening: Mutex::new(HashMap::new()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            statistics: None,
            readers_memory: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// This cache (still empty) with `2^bits` shards instead of the automatic choice; `None`
    /// keeps the automatic choice. RocksDB's `table_cache_numshardbits`. Bits above
    /// [`crate::cache::MAX_SHARD_BITS`] are clamped to it (`DbOptions::validate` refuses them).
    #[must_use]
    pub fn with_shard_bits(mut self, bits: Option<u8>) -> Self {
        if let Some(bits) = bits {
            self.tables = tables_cache(self.capacity, bits);
        }
        self
    }

    /// Number of shards the open tables are spread over.
    pub fn shard_count(&self) -> usize {
        self.tables.shard_count()
    }

    /// This cache with tables that count block cache hits and misses in `statistics`.
    #[must_use]
    pub fn with_statistics(
        mut self,
        statistics: Option<Arc<crate::statistics::Statistics>>,
    ) -> Self {
        self.statistics = statistics;
        self
    }

    /// The table of file `file_number`, which is `file_size` bytes long (as the version records
    /// it), opening it if it is not open.
    ///
    /// # Errors
    /// [`Error::Corruption`](crate::Error::Corruption) naming the file when its footer, index,
    /// filter or properties are damaged; [`Error::Io`](crate::Error::Io) when it cannot be
    /// opened or read; other errors of [`Table::open`], wrapped with the file name.
    pub fn get_table(&self, file_number: u64, file_size: u64) -> Result<Arc<Table>> {
        let key = cache_key(file_number);
        if let Some(table) = self.lookup(&key) {
            return Ok(table);
        }
        let lock = self.open_lock(file_number);
        let guard = lock.lock();
        // Another thread may have opened the file while this one waited for the lock.
        let result = match self.lookup(&key) {
            Some(table) => Ok(table),
            None => self.open_and_insert(key, file_number, file_size),
        };
        drop(guard);
        self.release_open_lock(file_number, &lock);
        result
    }

    /// Closes the table of `file_number` once no reader holds it, e.g. because compaction made
    /// the file obsolete. Readers holding its `Arc` keep using it.
    pub fn evict(&self, file_number: u64) {
        self.tables.erase(&cache_key(file_number));
    }

    /// Bytes held outside the block cache by the tables this cache opened and that are still
    /// open, including evicted ones a reader still holds (RocksDB's
    /// `estimate-table-readers-mem`; see `Table::memory_usage`).
    pub fn readers_memory(&self) -> usize {
        self.readers_memory.load(Ordering::Relaxed)
    }

    /// Number of tables resident in the cache.
    pub fn len(&self) -> usize {
        self.tables.entry_count()
    }

    /// True when no table is resident.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most tables kept open; `None` for no limit.
    pub fn capacity(&self) -> Option<usize> {
        self.capacity
    }

    /// Hit, miss and eviction counters (relaxed: exact once the cache is quiet).
    pub fn stats(&self) -> TableCacheStats {
        TableCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.tables.stats().evictions,
        }
    }

    /// The path of table file `file_number`.
    pub fn table_path(&self, file_number: u64) -> PathBuf {
        self.dir.join(table_file_name(file_number))
    }

    /// The resident table under `key`, counting a hit. The cache handle is dropped at once: the
    /// `Arc` keeps the table alive, and an unpinned entry stays evictable (invariant 1).
    fn lookup(&self, key: &CacheKey) -> Option<Arc<Table>> {
        let handle = self.tables.lookup(key)?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(Arc::clone(handle.value()))
    }

    fn open_and_insert(
        &self,
        key: CacheKey,
        file_number: u64,
        file_size: u64,
    ) -> Result<Arc<Table>> {
        self.misses.fetch_add(1, Ordering::Relaxed);
        let path = self.table_path(file_number);
        let table = Arc::new(self.open(&path, file_size)?);
        // Without a strict capacity limit an insert always succeeds; an error would only mean the
        // table is not cached, and the caller can still use it.
        let _ = self.tables.insert(key, Arc::clone(&table), 1);
        Ok(table)
    }

    fn open(&self, path: &Path, file_size: u64) -> Result<Table> {
        let wrap = |e: crate::Error| {
            if e.is_corruption() {
                e.in_file(path)
            } else {
                e.context(format!("opening table {}", path.display()))
            }
        };
        let file = self.fs.open_read(path).map_err(wrap)?;
        let mut table = Table::open(file, path, file_size, &self.options).map_err(wrap)?;
        table.set_statistics(self.statistics.clone());
        table.count_memory_in(Arc::clone(&self.readers_memory));
        Ok(table)
    }

    /// The lock that serializes opens of `file_number`, created if no open is in progress.
    fn open_lock(&self, file_number: u64) -> Arc<Mutex<()>> {
        let mut opening = self.opening.lock();
        Arc::clone(opening.entry(file_number).or_default())
    }

    /// Drops the per-file lock entry once its last user is done, so the map holds only opens in
    /// progress. Holders: the map itself and every caller between `open_lock` and here.
    fn release_open_lock(&self, file_number: u64, lock: &Arc<Mutex<()>>) {
        let mut opening = self.opening.lock();
        let last_user = Arc::strong_count(lock) == 2;
        if last_user
            && opening
                .get(&file_number)
                .is_some_and(|l| Arc::ptr_eq(l, lock))
        {
            opening.remove(&file_number);
        }
    }
}

/// The cache key of a table: file numbers are unique in a database, the offset is unused.
fn cache_key(file_number: u64) -> CacheKey {
    CacheKey {
        file_id: file_number,
        offset: 0,
    }
}

/// The LRU cache of open tables: `capacity` tables (`None`: no limit) over `2^bits` shards.
fn tables_cache(capacity: Option<usize>, bits: u8) -> Cache<Arc<Table>> {
    Cache::new(CacheOptions {
        capacity_bytes: capacity.unwrap_or(usize::MAX),
        shard_bits: Some(bits),
        policy: CachePolicy::Lru,
        strict_capacity_limit: false,
    })
}

/// Shards of at least [`MIN_TABLES_PER_SHARD`] tables, at most 2^[`MAX_SHARD_BITS`] of them.
fn shard_bits(capacity: Option<usize>) -> u8 {
    let Some(capacity) = capacity else {
        return MAX_SHARD_BITS;
    };
    let mut bits = 0;
    while bits < MAX_SHARD_BITS && capacity >> (bits + 1) >= MIN_TABLES_PER_SHARD {
        bits += 1;
    }
    bits
}

#[cfg(test)]
mod tests {
    #[test]
    fn shard_bits_set_the_number_of_shards() {
        let fs = memfs();
        let auto = cache(&fs, Some(40));
        assert_eq!(
            auto.shard_count(),
            2,
            "automatic: shards of at least 16 tables"
        );
        let six = cache(&fs, Some(40)).with_shard_bits(Some(6));
        assert_eq!(six.shard_count(), 64);
        assert_eq!(six.capacity(), Some(40));
        let unlimited = cache(&fs, None).with_shard_bits(Some(3));
        assert_eq!(unlimited.shard_count(), 8);
        // The tables still open and stay resident.
        for n in 1..=30 {
            let size = write_table(&fs, n);
            unlimited.get_table(n, size).expect("open");
        }
        assert_eq!(unlimited.len(), 30);
        assert_eq!(unlimited.stats().evictions, 0);
    }

    use std::sync::Barrier;
    use std::thread;

    use super::*;
    use crate::fs::MemFs;
    use crate::sstable::TableBuilder;
    use crate::types::{make_internal_key, seek_key, ValueKind};

    const DIR: &str = "/db";

    fn memfs() -> Arc<MemFs> {
        let fs = Arc::new(MemFs::new());
        fs.create_dir_all(Path::new(DIR)).expect("mkdir");
        fs
    }

    /// Writes table `number` holding `key{number}` and returns its size.
    fn write_table(fs: &MemFs, number: u64) -> u64 {
        let path = Path::new(DIR).join(table_file_name(number));
        let file = fs.create(&path).expect("create");
        let mut b = TableBuilder::new(file, &path, &TableOptions::default()).expect("builder");
        let key = format!("key{number}");
        b.add(&make_internal_key(key.as_bytes(), 1, ValueKind::Put), b"v")
            .expect("add");
        b.finish().expect("finish").file_size
    }

    fn cache(fs: &Arc<MemFs>, capacity: Option<usize>) -> TableCache {
        let fs: Arc<dyn FileSystem> = Arc::clone(fs) as Arc<dyn FileSystem>;
        TableCache::new(fs, DIR, TableOptions::default(), capacity)
    }

    #[test]
    fn opens_once_then_hits() {
        let fs = memfs();
        let size = write_table(&fs, 7);
        let tc = cache(&fs, Some(10));
        let a = tc.get_table(7, size).expect("open");
        let b = tc.get_table(7, size).expect("hit");
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(tc.stats().misses, 1);
        assert_eq!(tc.stats().hits, 1);
        assert_eq!(tc.len(), 1);
        let found = a.get(&seek_key(b"key7", 5)).expect("get");
        assert_eq!(found.map(|e| e.value), Some(b"v".to_vec()));
    }

    #[test]
    fn bounded_by_capacity_least_recently_used_first() {
        let fs = memfs();
        let sizes: Vec<u64> = (1..=3).map(|n| write_table(&fs, n)).collect();
        let tc = cache(&fs, Some(2));
        tc.get_table(1, sizes[0]).expect("1");
        tc.get_table(2, sizes[1]).expect("2");
        tc.get_table(1, sizes[0]).expect("touch 1");
        tc.get_table(3, sizes[2]).expect("3 evicts 2");
        assert_eq!(tc.len(), 2);
        assert_eq!(tc.stats().evictions, 1);
        let before = tc.stats().misses;
        tc.get_table(1, sizes[0]).expect("1 is still open");
        assert_eq!(tc.stats().misses, before);
        tc.get_table(2, sizes[1]).expect("2 is reopened");
        assert_eq!(tc.stats().misses, before + 1);
        assert!(tc.len() <= 2);
    }

    #[test]
    fn many_tables_stay_within_capacity() {
        let fs = memfs();
        let tc = cache(&fs, Some(40));
        for n in 1..=200 {
            let size = write_table(&fs, n);
            tc.get_table(n, size).expect("open");
            assert!(tc.len() <= 40, "{} tables open", tc.len());
        }
        assert_eq!(tc.stats().misses, 200);
    }

    #[test]
    fn evicted_table_stays_usable_by_its_holder() {
        let fs = memfs();
        let size = write_table(&fs, 3);
        let tc = cache(&fs, None);
        let held = tc.get_table(3, size).expect("open");
        tc.evict(3);
        assert!(tc.is_empty());
        assert!(held.get(&seek_key(b"key3", 5)).expect("get").is_some());
        let again = tc.get_table(3, size).expect("reopen");
        assert!(!Arc::ptr_eq(&held, &again), "evict closed the cache's copy");
        assert_eq!(tc.stats().misses, 2);
    }

    #[test]
    fn concurrent_gets_open_each_file_once() {
        let fs = memfs();
        let sizes: Vec<u64> = (1..=8).map(|n| write_table(&fs, n)).collect();
        let tc = Arc::new(cache(&fs, None));
        let barrier = Arc::new(Barrier::new(4));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let (tc, barrier, sizes) = (Arc::clone(&tc), Arc::clone(&barrier), sizes.clone());
                thread::spawn(move || {
                    barrier.wait();
                    for i in 0..400 {
                        let n = (i + t) % 8 + 1;
                        let table = tc.get_table(n as u64, sizes[n - 1]).expect("get");
                        assert_eq!(table.file_size(), sizes[n - 1]);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
        let stats = tc.stats();
        assert_eq!(stats.misses, 8, "each file opened exactly once");
        assert_eq!(stats.hits + stats.misses, 1600);
        assert!(tc.opening.lock().is_empty(), "no open lock left behind");
    }

    #[test]
    fn concurrent_gets_with_eviction_pressure() {
        let fs = memfs();
        let sizes: Vec<u64> = (1..=32).map(|n| write_table(&fs, n)).collect();
        let tc = Arc::new(cache(&fs, Some(4)));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let (tc, sizes) = (Arc::clone(&tc), sizes.clone());
                thread::spawn(move || {
                    for i in 0..300 {
                        let n = (i * 7 + t * 3) % 32 + 1;
                        tc.get_table(n as u64, sizes[n - 1]).expect("get");
                        if i % 50 == 0 {
                            tc.evict(n as u64);
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
        assert!(tc.len() <= 4);
        assert!(tc.opening.lock().is_empty());
    }

    #[test]
    fn corrupt_file_is_corruption_naming_the_file() {
        let fs = memfs();
        let size = write_table(&fs, 9);
        let path = Path::new(DIR).join(table_file_name(9));
        let mut bytes = crate::fs::read_all(&*fs, &path).expect("read");
        let last = bytes.len() - 20;
        bytes[last] ^= 0x5a;
        let mut f = fs.create(&path).expect("rewrite");
        f.append(&bytes).expect("append");
        f.sync().expect("sync");
        let tc = cache(&fs, Some(10));
        let err = tc.get_table(9, size).expect_err("damaged footer");
        assert!(err.is_corruption(), "{err}");
        let c = err.as_corruption().expect("details");
        assert!(c.file.ends_with("000009.sst"), "{}", c.file.display());
        assert!(tc.is_empty(), "errors are not cached");
        // A garbage file that is too short for a footer.
        let path = Path::new(DIR).join(table_file_name(10));
        let mut f = fs.create(&path).expect("create");
        f.append(b"not a table").expect("append");
        f.sync().expect("sync");
        let err = tc.get_table(10, 11).expect_err("garbage");
        assert!(
            err.is_corruption() && err.to_string().contains("000010.sst"),
            "{err}"
        );
    }

    #[test]
    fn missing_file_names_it_and_is_retried() {
        let fs = memfs();
        let tc = cache(&fs, Some(10));
        let err = tc.get_table(12, 100).expect_err("missing");
        assert!(!err.is_corruption());
        assert!(err.to_string().contains("000012.sst"), "{err}");
        let size = write_table(&fs, 12);
        tc.get_table(12, size).expect("opens once the file exists");
    }

    #[test]
    fn shard_count_keeps_shards_useful() {
        assert_eq!(shard_bits(Some(1)), 0);
        assert_eq!(shard_bits(Some(31)), 0);
        assert_eq!(shard_bits(Some(32)), 1);
        assert_eq!(shard_bits(Some(1 << 20)), MAX_SHARD_BITS);
        assert_eq!(shard_bits(None), MAX_SHARD_BITS);
        let fs = memfs();
        assert_eq!(cache(&fs, Some(0)).capacity(), Some(1));
    }
}
