//! `DB` (`DBWithThreadMode`): open, read, iterate, column families (writes in `db/write.rs`;
//! flushes, compaction, ingestion and properties in `db/maintenance.rs`).

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::RwLock;

use crate::call_options::{
    BottommostLevelCompaction, CompactOptions, FlushOptions, ReadOptions, WaitForCompactOptions,
    WriteOptions,
};
use crate::column_family::{BoundColumnFamily, ColumnFamily, ColumnFamilyTtl};
use crate::db_iterator::Cursor;
use crate::db_options::Options;
use crate::properties::CStrLike;
use crate::snapshot::SnapshotHandle;
use crate::{
    AsColumnFamilyRef, ColumnFamilyDescriptor, DBPinnableSlice, DBRawIteratorWithThreadMode, Error,
    WriteBatchWithTransaction, DEFAULT_COLUMN_FAMILY_NAME,
};

/// A database in the default thread mode: `SingleThreaded` (column families are created and
/// dropped through `&mut`), or `MultiThreaded` with the `multi-threaded-cf` feature.
pub type DB = DBWithThreadMode<crate::DefaultThreadMode>;

mod maintenance;
mod write;

/// The refusal of the user-defined-timestamp calls.
pub(crate) fn no_timestamps(call: &str) -> Error {
    Error::not_supported(format!("{call}: CairnDB has no user-defined timestamps"))
}

/// RocksDB's checks before an open: refused options and TTLs, and (unless the open is
/// read-only) every family the database has listed. Gives the file system, the options (the default family's from its descriptor, when
/// listed) and the other families' descriptors.
#[allow(clippy::type_complexity)]
fn prepare_open(
    opts: &Options,
    path: &Path,
    cfs: impl IntoIterator<Item = ColumnFamilyDescriptor>,
    all_families_listed: bool,
) -> Result<
    (
        Arc<dyn cairndb::fs::FileSystem>,
        cairndb::options::Options,
        Vec<cairndb::ColumnFamilyDescriptor>,
    ),
    Error,
> {
    let options = opts.checked()?;
    let fs = opts.file_system();
    let mut descriptors = Vec::new();
    let mut default_cf = None;
    for d in cfs {
        if d.ttl != ColumnFamilyTtl::SameAsDb && d.ttl != ColumnFamilyTtl::Disabled {
            return Err(Error::not_supported(format!(
                "column family {:?} with a TTL: CairnDB has no TTL database",
                d.name
            )));
        }
        let cf_opts = d.options.checked()?.cf;
        if d.name == DEFAULT_COLUMN_FAMILY_NAME {
            default_cf = Some(cf_opts);
        } else {
            descriptors.push(cairndb::ColumnFamilyDescriptor::new(d.name, cf_opts));
        }
    }
    let existing = if all_families_listed {
        cairndb::Db::list_column_families_with_fs(Arc::clone(&fs), path).ok()
    } else {
        None
    };
    if let Some(existing) = existing {
        let missing: Vec<_> = existing
            .iter()
            .filter(|n| {
                *n != DEFAULT_COLUMN_FAMILY_NAME && !descriptors.iter().any(|d| &d.name == *n)
            })
            .cloned()
            .collect();
        if !missing.is_empty() {
            return Err(Error::invalid(format!(
                "Column families not opened: {}",
                missing.join(", ")
            )));
        }
    }
    let mut options = options;
    if let Some(cf) = default_cf {
        options.cf = cf;
    }
    Ok((fs, options, descriptors))
}

/// The sizes of `ranges` in `cf`'s table files; 0 for each when they cannot be read.
fn approximate_sizes(
    db: &cairndb::Db,
    cf: &cairndb::ColumnFamily,
    ranges: &[crate::Range<'_>],
) -> Vec<u64> {
    let pairs: Vec<(&[u8], &[u8])> = ranges.iter().map(|r| (r.start_key, r.end_key)).collect();
    db.get_approximate_sizes_cf(cf, &pairs, cairndb::SizeApproximation::default())
        .unwrap_or_else(|_| vec![0; ranges.len()])
}

/// How a database shares its column-family handles between threads.
pub trait ThreadMode: Send + Sync {
    #[doc(hidden)]
    fn from_families(cfs: BTreeMap<String, cairndb::ColumnFamily>) -> Self;
}

/// Column families are created and dropped through `&mut DB`; `cf_handle` gives `&ColumnFamily`.
#[derive(Debug)]
pub struct SingleThreaded {
    cfs: BTreeMap<String, ColumnFamily>,
}

/// Column families are created and dropped through `&DB`; `cf_handle` gives
/// `Arc<BoundColumnFamily>`.
#[derive(Debug)]
pub struct MultiThreaded {
    cfs: RwLock<BTreeMap<String, cairndb::ColumnFamily>>,
}

impl ThreadMode for SingleThreaded {
    fn from_families(cfs: BTreeMap<String, cairndb::ColumnFamily>) -> Self {
        SingleThreaded {
            cfs: cfs
                .into_iter()
                .map(|(n, inner)| (n, ColumnFamily { inner }))
                .collect(),
        }
    }
}

impl ThreadMode for MultiThreaded {
    fn from_families(cfs: BTreeMap<String, cairndb::ColumnFamily>) -> Self {
        MultiThreaded {
            cfs: RwLock::new(cfs),
        }
    }
}

/// Reads shared by databases, snapshots and (later) transaction databases.
pub trait DBAccess {
    #[doc(hidden)]
    fn engine(&self) -> &cairndb::Db;

    #[doc(hidden)]
    fn take_snapshot(&self) -> SnapshotHandle {
        // A snapshot fails only on a closed database, and a `DB` closes when it is dropped.
        let snap = self
            .engine()
            .snapshot()
            .expect("a snapshot of an open database");
        SnapshotHandle {
            seq: Some(snap.sequence()),
            held: Some(Arc::new(snap)),
        }
    }

    #[doc(hidden)]
    fn raw_iter(
        &self,
        cf: Option<&cairndb::ColumnFamily>,
        readopts: ReadOptions,
    ) -> DBRawIteratorWithThreadMode<'_, Self>
    where
        Self: Sized,
    {
        let db = self.engine();
        let cf = cf.cloned();
        DBRawIteratorWithThreadMode::new(
            Box::new(move |o: &ReadOptions| {
                let o = o.checked()?;
                Ok(Cursor::Db(match &cf {
                    Some(cf) => db.iter_cf(o, cf)?,
                    None => db.iter(o)?,
                }))
            }),
            readopts,
        )
    }

    #[doc(hidden)]
    fn get_pinned_at(
        &self,
        cf: Option<&cairndb::ColumnFamily>,
        key: &[u8],
        readopts: &ReadOptions,
    ) -> Result<Option<DBPinnableSlice<'_>>, Error> {
        let o = readopts.checked()?;
        let db = self.engine();
        let v = match cf {
            Some(cf) => db.get_pinned_cf(o, cf, key)?,
            None => db.get_pinned(o, key)?,
        };
        Ok(v.map(|inner| DBPinnableSlice {
            inner,
            db: PhantomData,
        }))
    }

    /// The value of `key`.
    fn get_opt<K: AsRef<[u8]>>(
        &self,
        key: K,
        readopts: &ReadOptions,
    ) -> Result<Option<Vec<u8>>, Error> {
        Ok(self.engine().get(readopts.checked()?, key.as_ref())?)
    }

    /// The value of `key` in `cf`.
    fn get_cf_opt<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        readopts: &ReadOptions,
    ) -> Result<Option<Vec<u8>>, Error> {
        Ok(self
            .engine()
            .get_cf(readopts.checked()?, cf.cf(), key.as_ref())?)
    }

    /// The values of `keys`.
    fn multi_get_opt<K, I>(
        &self,
        keys: I,
        readopts: &ReadOptions,
    ) -> Vec<Result<Option<Vec<u8>>, Error>>
    where
        K: AsRef<[u8]>,
        I: IntoIterator<Item = K>,
    {
        keys.into_iter()
            .map(|k| self.get_opt(k, readopts))
            .collect()
    }

    /// The values of `keys`, each in its column family.
    fn multi_get_cf_opt<'b, K, I, W>(
        &self,
        keys_cf: I,
        readopts: &ReadOptions,
    ) -> Vec<Result<Option<Vec<u8>>, Error>>
    where
        K: AsRef<[u8]>,
        I: IntoIterator<Item = (&'b W, K)>,
        W: AsColumnFamilyRef + 'b,
    {
        keys_cf
            .into_iter()
            .map(|(cf, k)| self.get_cf_opt(cf, k, readopts))
            .collect()
    }
}

/// What a [`DBCommon`] is over: a plain database or an optimistic transaction database.
pub trait DBInner: Send + Sync + 'static {
    #[doc(hidden)]
    fn db(&self) -> &cairndb::Db;

    #[doc(hidden)]
    fn put_cf(
        &self,
        o: &cairndb::options::WriteOptions,
        cf: &cairndb::ColumnFamily,
        key: &[u8],
        value: &[u8],
    ) -> cairndb::Result<()> {
        self.db().put_cf(o, cf, key, value)
    }

    #[doc(hidden)]
    fn merge_cf(
        &self,
        o: &cairndb::options::WriteOptions,
        cf: &cairndb::ColumnFamily,
        key: &[u8],
        operand: &[u8],
    ) -> cairndb::Result<()> {
        self.db().merge_cf(o, cf, key, operand)
    }

    #[doc(hidden)]
    fn delete_cf(
        &self,
        o: &cairndb::options::WriteOptions,
        cf: &cairndb::ColumnFamily,
        key: &[u8],
    ) -> cairndb::Result<()> {
        self.db().delete_cf(o, cf, key)
    }

    #[doc(hidden)]
    fn single_delete_cf(
        &self,
        o: &cairndb::options::WriteOptions,
        cf: &cairndb::ColumnFamily,
        key: &[u8],
    ) -> cairndb::Result<()> {
        self.db().single_delete_cf(o, cf, key)
    }

    #[doc(hidden)]
    fn delete_range_cf(
        &self,
        o: &cairndb::options::WriteOptions,
        cf: &cairndb::ColumnFamily,
        begin: &[u8],
        end: &[u8],
    ) -> cairndb::Result<()> {
        self.db().delete_range_cf(o, cf, begin, end)
    }

    #[doc(hidden)]
    fn write(
        &self,
        o: &cairndb::options::WriteOptions,
        batch: cairndb::WriteBatch,
    ) -> cairndb::Result<()> {
        self.db().write(o, batch)
    }
}

/// The engine of a plain database.
#[derive(Debug)]
pub struct DBWithThreadModeInner {
    db: cairndb::Db,
}

impl DBInner for DBWithThreadModeInner {
    fn db(&self) -> &cairndb::Db {
        &self.db
    }
}

/// A plain database in a thread mode.
pub type DBWithThreadMode<T> = DBCommon<T, DBWithThreadModeInner>;

/// An open database (plain, or optimistic-transaction). Dropping it closes it (flushing
/// nothing: unflushed writes are in the WAL).
pub struct DBCommon<T: ThreadMode, I: DBInner> {
    /// Shared with flushes that the caller does not wait for.
    pub(crate) inner: Arc<I>,
    cfs: T,
    path: PathBuf,
    /// Flushes the caller did not wait for; dropping the database waits for them, so that the
    /// database is closed (and its LOCK released) when the drop returns.
    background: parking_lot::Mutex<Vec<std::thread::JoinHandle<()>>>,
}

impl<T: ThreadMode, I: DBInner> Drop for DBCommon<T, I> {
    fn drop(&mut self) {
        for h in self.background.get_mut().drain(..) {
            let _ = h.join();
        }
    }
}

impl<T: ThreadMode, I: DBInner> fmt::Debug for DBCommon<T, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RocksDB {{ path: {} }}", self.path.display())
    }
}

impl<T: ThreadMode, I: DBInner> DBAccess for DBCommon<T, I> {
    fn engine(&self) -> &cairndb::Db {
        self.inner.db()
    }
}

fn keys_of<S: AsRef<[u8]>, E: AsRef<[u8]>>(
    start: &Option<S>,
    end: &Option<E>,
) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    (
        start.as_ref().map(|s| s.as_ref().to_vec()),
        end.as_ref().map(|e| e.as_ref().to_vec()),
    )
}

impl<T: ThreadMode> DBWithThreadMode<T> {
    /// Opens (creating when missing) the database at `path` with default options.
    pub fn open_default<P: AsRef<Path>>(path: P) -> Result<Self, Error> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        Self::open(&opts, path)
    }

    /// Opens the database at `path` (its default column family; every other family it has
    /// must be listed, with the `open_cf` functions).
    pub fn open<P: AsRef<Path>>(opts: &Options, path: P) -> Result<Self, Error> {
        Self::open_cf_descriptors(opts, path, Vec::<ColumnFamilyDescriptor>::new())
    }

    /// Opens with column families named in `cfs`, each with `opts`.
    pub fn open_cf<P, I, N>(opts: &Options, path: P, cfs: I) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = N>,
        N: AsRef<str>,
    {
        let cfs = cfs
            .into_iter()
            .map(|name| ColumnFamilyDescriptor::new(name.as_ref(), opts.clone()));
        Self::open_cf_descriptors(opts, path, cfs)
    }

    /// Opens with column families, each with its options.
    pub fn open_cf_with_opts<P, I, N>(opts: &Options, path: P, cfs: I) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = (N, Options)>,
        N: AsRef<str>,
    {
        let cfs = cfs
            .into_iter()
            .map(|(name, o)| ColumnFamilyDescriptor::new(name.as_ref(), o));
        Self::open_cf_descriptors(opts, path, cfs)
    }

    /// Opens with column families given by descriptors. As in RocksDB, every family the
    /// database has must be listed (`Invalid argument` otherwise), and listed families it lacks
    /// are created only with `create_missing_column_families`.
    pub fn open_cf_descriptors<P, I>(opts: &Options, path: P, cfs: I) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = ColumnFamilyDescriptor>,
    {
        Self::open_with(opts, path, cfs, |fs, path, options, descriptors| {
            Ok(DBWithThreadModeInner {
                db: cairndb::Db::open_cf_with_fs(fs, path, options, descriptors)?,
            })
        })
    }
}

impl<T: ThreadMode, Inner: DBInner> DBCommon<T, Inner> {
    /// The open shared by every kind of database: RocksDB's checks of the descriptors and of
    /// the families the database has, then `open_engine`.
    pub(crate) fn open_with<P, I>(
        opts: &Options,
        path: P,
        cfs: I,
        open_engine: impl FnOnce(
            Arc<dyn cairndb::fs::FileSystem>,
            &Path,
            cairndb::options::Options,
            Vec<cairndb::ColumnFamilyDescriptor>,
        ) -> Result<Inner, Error>,
    ) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = ColumnFamilyDescriptor>,
    {
        let (fs, options, descriptors) = prepare_open(opts, path.as_ref(), cfs, true)?;
        let path = path.as_ref();
        let inner = open_engine(fs, path, options, descriptors)?;
        let cfs = inner
            .db()
            .column_families()
            .into_iter()
            .map(|cf| (cf.name().to_string(), cf))
            .collect();
        Ok(DBCommon {
            inner: Arc::new(inner),
            cfs: T::from_families(cfs),
            path: path.to_path_buf(),
            background: parking_lot::Mutex::new(Vec::new()),
        })
    }
}

impl<T: ThreadMode> DBWithThreadMode<T> {
    /// Opens the database read-only (RocksDB's `OpenForReadOnly`): it sees the database as it
    /// was at the open, takes no lock (a writer may hold the database), writes no file, and
    /// every write, flush, compaction or family change fails with `Not implemented`. With
    /// `error_if_log_file_exist`, the open fails (`Corruption`, as RocksDB's) when a live WAL
    /// exists. Families the database has need not be listed (as in RocksDB's read-only
    /// open); only the listed ones get handles.
    pub fn open_for_read_only<P: AsRef<Path>>(
        opts: &Options,
        path: P,
        error_if_log_file_exist: bool,
    ) -> Result<Self, Error> {
        Self::open_cf_descriptors_read_only(
            opts,
            path,
            Vec::<ColumnFamilyDescriptor>::new(),
            error_if_log_file_exist,
        )
    }

    /// [`Self::open_for_read_only`] with column families named in `cfs`, each with `opts`.
    pub fn open_cf_for_read_only<P, I, N>(
        opts: &Options,
        path: P,
        cfs: I,
        error_if_log_file_exist: bool,
    ) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = N>,
        N: AsRef<str>,
    {
        let cfs = cfs
            .into_iter()
            .map(|name| ColumnFamilyDescriptor::new(name.as_ref(), opts.clone()));
        Self::open_cf_descriptors_read_only(opts, path, cfs, error_if_log_file_exist)
    }

    /// [`Self::open_for_read_only`] with column families, each with its options.
    pub fn open_cf_descriptors_read_only<P, I>(
        opts: &Options,
        path: P,
        cfs: I,
        error_if_log_file_exist: bool,
    ) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = ColumnFamilyDescriptor>,
    {
        Self::open_limited(
            opts,
            path.as_ref(),
            cfs,
            |fs, path, options, descriptors| {
                cairndb::Db::open_cf_for_read_only_with_fs(
                    fs,
                    path,
                    options,
                    descriptors,
                    error_if_log_file_exist,
                )
            },
        )
    }

    /// The read-only and secondary opens: the families the database has need not all be
    /// listed (as in RocksDB), and only the listed ones (and the default) get handles.
    fn open_limited(
        opts: &Options,
        path: &Path,
        cfs: impl IntoIterator<Item = ColumnFamilyDescriptor>,
        open_engine: impl FnOnce(
            Arc<dyn cairndb::fs::FileSystem>,
            &Path,
            cairndb::options::Options,
            Vec<cairndb::ColumnFamilyDescriptor>,
        ) -> cairndb::Result<cairndb::Db>,
    ) -> Result<Self, Error> {
        let (fs, options, descriptors) = prepare_open(opts, path, cfs, false)?;
        let listed: Vec<String> = descriptors.iter().map(|d| d.name.clone()).collect();
        let db = open_engine(fs, path, options, descriptors)?;
        let cfs = db
            .column_families()
            .into_iter()
            .filter(|cf| {
                cf.name() == DEFAULT_COLUMN_FAMILY_NAME || listed.iter().any(|n| n == cf.name())
            })
            .map(|cf| (cf.name().to_string(), cf))
            .collect();
        Ok(DBCommon {
            inner: Arc::new(DBWithThreadModeInner { db }),
            cfs: T::from_families(cfs),
            path: path.to_path_buf(),
            background: parking_lot::Mutex::new(Vec::new()),
        })
    }

    /// Opens the database at `primary_path` as a secondary instance (RocksDB's
    /// `OpenAsSecondary`): a read-only handle whose info log goes to `secondary_path`, which
    /// follows the primary's writes when [`Self::try_catch_up_with_primary`] is called.
    pub fn open_as_secondary<P: AsRef<Path>>(
        opts: &Options,
        primary_path: P,
        secondary_path: P,
    ) -> Result<Self, Error> {
        Self::open_cf_descriptors_as_secondary(
            opts,
            primary_path,
            secondary_path,
            Vec::<ColumnFamilyDescriptor>::new(),
        )
    }

    /// [`Self::open_as_secondary`] with column families named in `cfs`, each with `opts`.
    pub fn open_cf_as_secondary<P, I, N>(
        opts: &Options,
        primary_path: P,
        secondary_path: P,
        cfs: I,
    ) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = N>,
        N: AsRef<str>,
    {
        let cfs = cfs
            .into_iter()
            .map(|name| ColumnFamilyDescriptor::new(name.as_ref(), opts.clone()));
        Self::open_cf_descriptors_as_secondary(opts, primary_path, secondary_path, cfs)
    }

    /// [`Self::open_as_secondary`] with column families, each with its options.
    pub fn open_cf_descriptors_as_secondary<P, I>(
        opts: &Options,
        primary_path: P,
        secondary_path: P,
        cfs: I,
    ) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = ColumnFamilyDescriptor>,
    {
        let secondary_path = secondary_path.as_ref().to_path_buf();
        Self::open_limited(
            opts,
            primary_path.as_ref(),
            cfs,
            |fs, path, options, descriptors| {
                cairndb::Db::open_cf_as_secondary_with_fs(
                    fs,
                    path,
                    &secondary_path,
                    options,
                    descriptors,
                )
            },
        )
    }

    /// Refused: CairnDB has no TTL database.
    pub fn open_with_ttl<P: AsRef<Path>>(
        _opts: &Options,
        _path: P,
        _ttl: std::time::Duration,
    ) -> Result<Self, Error> {
        Err(Error::not_supported(
            "open_with_ttl: CairnDB has no TTL database",
        ))
    }
}

impl<T: ThreadMode, Inner: DBInner> DBCommon<T, Inner> {
    /// Refused: CairnDB has no TTL database.
    pub fn open_cf_with_ttl<P, I, N>(
        _opts: &Options,
        _path: P,
        _cfs: I,
        _ttl: std::time::Duration,
    ) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = N>,
        N: AsRef<str>,
    {
        Err(Error::not_supported(
            "open_cf_with_ttl: CairnDB has no TTL database",
        ))
    }

    /// Refused: CairnDB has no TTL database.
    pub fn open_cf_descriptors_with_ttl<P, I>(
        _opts: &Options,
        _path: P,
        _cfs: I,
        _ttl: std::time::Duration,
    ) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = ColumnFamilyDescriptor>,
    {
        Err(Error::not_supported(
            "open_cf_descriptors_with_ttl: CairnDB has no TTL database",
        ))
    }

    /// The names of the column families of the database at `path`.
    pub fn list_cf<P: AsRef<Path>>(opts: &Options, path: P) -> Result<Vec<String>, Error> {
        Ok(cairndb::Db::list_column_families_with_fs(
            opts.file_system(),
            path.as_ref(),
        )?)
    }

    /// Deletes the database at `path` (RocksDB's `DestroyDB`).
    pub fn destroy<P: AsRef<Path>>(opts: &Options, path: P) -> Result<(), Error> {
        Ok(cairndb::Db::destroy_with_fs(opts.file_system(), path)?)
    }

    /// The directory the database was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }

    crate::read_methods::read_methods!();

    /// The live table files of every column family.
    pub fn live_files(&self) -> Result<Vec<crate::LiveFile>, Error> {
        crate::metadata::live_files(self.engine())
    }

    /// The default family's size and file count.
    pub fn get_column_family_metadata(&self) -> crate::ColumnFamilyMetaData {
        let db = self.engine();
        crate::metadata::family_metadata(db, &db.default_column_family())
    }

    /// `cf`'s size and file count.
    pub fn get_column_family_metadata_cf(
        &self,
        cf: &impl AsColumnFamilyRef,
    ) -> crate::ColumnFamilyMetaData {
        crate::metadata::family_metadata(self.engine(), cf.cf())
    }

    /// The approximate bytes of table files each range of the default family takes.
    /// RocksDB's binding has no error channel here; a range whose size cannot be read (a
    /// damaged index) gives 0, as RocksDB's leaves its slot unset.
    pub fn get_approximate_sizes(&self, ranges: &[crate::Range<'_>]) -> Vec<u64> {
        let db = self.engine();
        approximate_sizes(db, &db.default_column_family(), ranges)
    }

    /// [`DBCommon::get_approximate_sizes`] in `cf`.
    pub fn get_approximate_sizes_cf(
        &self,
        cf: &impl AsColumnFamilyRef,
        ranges: &[crate::Range<'_>],
    ) -> Vec<u64> {
        approximate_sizes(self.engine(), cf.cf(), ranges)
    }

    /// Whether `key` may exist in `cf`, with read options (CairnDB reads the key).
    pub fn key_may_exist_cf_opt<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        readopts: &ReadOptions,
    ) -> bool {
        !matches!(self.get_cf_opt(cf, key, readopts), Ok(None))
    }

    /// Whether `key` may exist in `cf`, and its value when found (CairnDB reads the key, so a
    /// key that exists always comes with its value).
    pub fn key_may_exist_cf_opt_value<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        readopts: &ReadOptions,
    ) -> (bool, Option<crate::CSlice>) {
        match self.get_cf_opt(cf, key, readopts) {
            Ok(Some(v)) => (true, Some(crate::CSlice(v))),
            Ok(None) => (false, None),
            Err(_) => (true, None),
        }
    }

    /// The values of `keys` in `cf`, without copies.
    pub fn batched_multi_get_cf<'a, K, I>(
        &self,
        cf: &impl AsColumnFamilyRef,
        keys: I,
        sorted_input: bool,
    ) -> Vec<Result<Option<DBPinnableSlice<'_>>, Error>>
    where
        K: AsRef<[u8]> + 'a + ?Sized,
        I: IntoIterator<Item = &'a K>,
    {
        self.batched_multi_get_cf_opt(cf, keys, sorted_input, &ReadOptions::default())
    }

    /// [`DBCommon::batched_multi_get_cf`] with read options. `sorted_input` is a hint CairnDB
    /// does not need: each key is looked up on its own.
    pub fn batched_multi_get_cf_opt<'a, K, I>(
        &self,
        cf: &impl AsColumnFamilyRef,
        keys: I,
        _sorted_input: bool,
        readopts: &ReadOptions,
    ) -> Vec<Result<Option<DBPinnableSlice<'_>>, Error>>
    where
        K: AsRef<[u8]> + 'a + ?Sized,
        I: IntoIterator<Item = &'a K>,
    {
        keys.into_iter()
            .map(|k| self.get_pinned_at(Some(cf.cf()), k.as_ref(), readopts))
            .collect()
    }

    /// Keeps obsolete files until as many [`DBCommon::enable_file_deletions`] calls.
    pub fn disable_file_deletions(&self) -> Result<(), Error> {
        Ok(self.engine().disable_file_deletions()?)
    }

    /// Undoes one [`DBCommon::disable_file_deletions`].
    pub fn enable_file_deletions(&self) -> Result<(), Error> {
        Ok(self.engine().enable_file_deletions()?)
    }

    /// The write batches that start after `seq_number`, from the WALs still in the directory
    /// (RocksDB's `GetUpdatesSince`). `NotFound` when `seq_number` was not written yet, or
    /// when the batches after it were flushed and their WALs deleted (CairnDB keeps no WAL
    /// archive).
    pub fn get_updates_since(&self, seq_number: u64) -> Result<crate::DBWALIterator, Error> {
        Ok(crate::DBWALIterator {
            inner: self.engine().get_updates_since(seq_number)?,
            start_seq_number: seq_number,
            error: None,
            done: false,
        })
    }

    /// Moves a secondary instance to the primary's current state (RocksDB's
    /// `TryCatchUpWithPrimary`); `Not implemented` on other databases.
    pub fn try_catch_up_with_primary(&self) -> Result<(), Error> {
        Ok(self.inner.db().try_catch_up_with_primary()?)
    }

    /// Refused: CairnDB cannot drop whole files of a key range yet.
    pub fn delete_file_in_range<K: AsRef<[u8]>>(&self, _from: K, _to: K) -> Result<(), Error> {
        Err(Error::not_supported(
            "delete_file_in_range: CairnDB cannot drop whole files of a range yet",
        ))
    }

    /// Refused, as [`DBCommon::delete_file_in_range`].
    pub fn delete_file_in_range_cf<K: AsRef<[u8]>>(
        &self,
        _cf: &impl AsColumnFamilyRef,
        _from: K,
        _to: K,
    ) -> Result<(), Error> {
        Err(Error::not_supported(
            "delete_file_in_range: CairnDB cannot drop whole files of a range yet",
        ))
    }

    /// Refused: CairnDB keeps no database identity (RocksDB's `IDENTITY` file and DB id).
    pub fn get_db_identity(&self) -> Result<Vec<u8>, Error> {
        Err(Error::not_supported(
            "get_db_identity: CairnDB keeps no database identity",
        ))
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn get_full_history_ts_low(&self, _cf: &impl AsColumnFamilyRef) -> Result<Vec<u8>, Error> {
        Err(no_timestamps("get_full_history_ts_low"))
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn increase_full_history_ts_low<S: AsRef<[u8]>>(
        &self,
        _cf: &impl AsColumnFamilyRef,
        _ts: S,
    ) -> Result<(), Error> {
        Err(no_timestamps("increase_full_history_ts_low"))
    }

    /// Whether `key` may exist (CairnDB answers exactly: it reads the key).
    pub fn key_may_exist<K: AsRef<[u8]>>(&self, key: K) -> bool {
        self.key_may_exist_opt(key, &ReadOptions::default())
    }

    /// Whether `key` may exist, with read options (an error answers "may exist").
    pub fn key_may_exist_opt<K: AsRef<[u8]>>(&self, key: K, readopts: &ReadOptions) -> bool {
        !matches!(self.get_opt(key, readopts), Ok(None))
    }

    /// Whether `key` may exist in `cf`.
    pub fn key_may_exist_cf<K: AsRef<[u8]>>(&self, cf: &impl AsColumnFamilyRef, key: K) -> bool {
        !matches!(self.get_cf_opt(cf, key, &ReadOptions::default()), Ok(None))
    }

    fn create_family(&self, name: &str, opts: &Options) -> Result<cairndb::ColumnFamily, Error> {
        Ok(self
            .engine()
            .create_column_family(name, opts.checked()?.cf)?)
    }
}

impl<Inner: DBInner> DBCommon<SingleThreaded, Inner> {
    /// Creates column family `name`.
    pub fn create_cf<N: AsRef<str>>(&mut self, name: N, opts: &Options) -> Result<(), Error> {
        let cf = self.create_family(name.as_ref(), opts)?;
        self.cfs
            .cfs
            .insert(name.as_ref().to_string(), ColumnFamily { inner: cf });
        Ok(())
    }

    /// Drops column family `name`.
    pub fn drop_cf(&mut self, name: &str) -> Result<(), Error> {
        let cf = self
            .cfs
            .cfs
            .get(name)
            .ok_or_else(|| Error::invalid(format!("Invalid column family: {name}")))?;
        self.engine().drop_column_family(&cf.inner)?;
        self.cfs.cfs.remove(name);
        Ok(())
    }

    /// The handle of column family `name`.
    pub fn cf_handle(&self, name: &str) -> Option<&ColumnFamily> {
        self.cfs.cfs.get(name)
    }
}

impl<Inner: DBInner> DBCommon<MultiThreaded, Inner> {
    /// Creates column family `name`.
    pub fn create_cf<N: AsRef<str>>(&self, name: N, opts: &Options) -> Result<(), Error> {
        let cf = self.create_family(name.as_ref(), opts)?;
        self.cfs.cfs.write().insert(name.as_ref().to_string(), cf);
        Ok(())
    }

    /// Drops column family `name`.
    pub fn drop_cf(&self, name: &str) -> Result<(), Error> {
        let cf = self
            .cfs
            .cfs
            .read()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::invalid(format!("Invalid column family: {name}")))?;
        self.engine().drop_column_family(&cf)?;
        self.cfs.cfs.write().remove(name);
        Ok(())
    }

    /// The handle of column family `name`.
    pub fn cf_handle(&self, name: &str) -> Option<Arc<BoundColumnFamily<'_>>> {
        self.cfs.cfs.read().get(name).map(|cf| {
            Arc::new(BoundColumnFamily {
                inner: cf.clone(),
                db: PhantomData,
            })
        })
    }
}
