//! Column families: the handle users hold, the per-family data readers share, and creating,
//! dropping and listing families.
//!
//! A family's identity never changes after it is created; its mutable options change only by
//! `Db::set_options` (`dynamic_options.rs`), which swaps [`CfData::current`] and
//! `CfState::options` together under the state lock. Its memtables live in `DbState::cfs`
//! (under the state lock) and its read view in [`CfData::view`]. Handles are
//! cheap clones of an `Arc<CfData>`; a handle to a dropped family returns `InvalidArgument`
//! from every call.
//!
//! Invariants:
//! 1. Creating and dropping a family are durable (one MANIFEST edit, synced) before the family
//!    appears in or leaves `DbState::cfs`.
//! 2. A new family's log number is the current WAL, so replaying older WALs skips it; a dropped
//!    family's records in the WALs are skipped by replay, and its tables become obsolete once no
//!    reader holds one of its versions.
//! 3. Nothing switches a memtable, takes the WAL, flushes or drops while a commit leader is
//!    active; create and drop wait for the leader like flush does.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use super::open::new_memtable;
use super::{CfState, Db, DbInner, ReadView};
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RealFs};
use crate::options::CfOptions;
use crate::table_cache::TableCache;
use crate::version::{column_family_names, VersionSet, DEFAULT_CF_NAME};

/// A column family to open: its name and options (RocksDB's `ColumnFamilyDescriptor`).
#[derive(Debug, Clone)]
pub struct ColumnFamilyDescriptor {
    /// The family's name.
    pub name: String,
    /// Its options.
    pub options: CfOptions,
}

impl ColumnFamilyDescriptor {
    /// A descriptor for `name` with `options`.
    pub fn new(name: impl Into<String>, options: CfOptions) -> Self {
        ColumnFamilyDescriptor {
            name: name.into(),
            options,
        }
    }
}

/// What every reader and writer of one family shares.
pub(super) struct CfData {
    pub(super) id: u32,
    pub(super) name: String,
    /// The options the family was opened or created with. Authoritative for the options that
    /// never change while it is open (comparator, merge operator, prefix extractor, table
    /// options); the mutable ones (`options::MUTABLE_CF_OPTIONS`) must be read from
    /// [`CfData::current_options`] or `CfState::options`.
    pub(super) options: CfOptions,
    /// The options in force: swapped whole by `Db::set_options`. A job takes one snapshot when
    /// it starts and keeps it to its end.
    pub(super) current: Mutex<Arc<CfOptions>>,
    pub(super) table_cache: TableCache,
    pub(super) view: Mutex<Arc<ReadView>>,
    pub(super) dropped: AtomicBool,
}

impl CfData {
    pub(super) fn new(
        id: u32,
        name: &str,
        options: CfOptions,
        table_cache: TableCache,
        view: ReadView,
    ) -> CfData {
        CfData {
            id,
            name: name.to_string(),
            current: Mutex::new(Arc::new(options.clone())),
            options,
            table_cache,
            view: Mutex::new(Arc::new(view)),
            dropped: AtomicBool::new(false),
        }
    }

    /// A snapshot of the options in force.
    pub(super) fn current_options(&self) -> Arc<CfOptions> {
        Arc::clone(&self.current.lock())
    }

    pub(super) fn read_view(&self) -> Arc<ReadView> {
        Arc::clone(&self.view.lock())
    }

    pub(super) fn check_live(&self) -> Result<()> {
        if self.dropped.load(Ordering::Acquire) {
            return Err(Error::InvalidArgument(format!(
                "column family {:?} was dropped",
                self.name
            )));
        }
        Ok(())
    }
}

/// A handle to a column family. Cheap to clone and to keep; calls through the handle of a
/// dropped family return [`Error::InvalidArgument`].
///
/// ```
/// use cairndb::options::{CfOptions, Options, ReadOptions, WriteOptions};
/// use cairndb::Db;
///
/// # fn main() -> cairndb::Result<()> {
/// # let dir = tempfile::tempdir().expect("temporary directory");
/// # let mut options = Options::default();
/// # options.db.create_if_missing = true;
/// let db = Db::open(dir.path(), options)?;
/// let index = db.create_column_family("index", CfOptions::default())?;
/// db.put_cf(&WriteOptions::default(), &index, b"k", b"v")?;
/// assert_eq!(db.get(&ReadOptions::default(), b"k")?, None); // not in the default family
/// assert_eq!(db.get_cf(&ReadOptions::default(), &index, b"k")?.as_deref(), Some(&b"v"[..]));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ColumnFamily {
    pub(super) data: Arc<CfData>,
}

impl std::fmt::Debug for ColumnFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnFamily")
            .field("id", &self.data.id)
            .field("name", &self.data.name)
            .finish()
    }
}

impl ColumnFamily {
    /// The family's name.
    pub fn name(&self) -> &str {
        &self.data.name
    }

    /// The family's id, as [`WriteBatch::put_cf`](crate::batch::WriteBatch::put_cf) takes it.
    pub fn id(&self) -> u32 {
        self.data.id
    }

    /// The options in force: those the family was opened or created with, changed by every
    /// successful [`Db::set_options`].
    pub fn options(&self) -> Arc<CfOptions> {
        self.data.current_options()
    }
}

impl Db {
    /// The names of the column families of the database in `path`, read from its MANIFEST
    /// without opening it (RocksDB's `DB::ListColumnFamilies`).
    ///
    /// # Errors
    /// [`Error::NotFound`]-like I/O errors when there is no database; Corruption of the
    /// MANIFEST or CURRENT.
    pub fn list_column_families(path: impl AsRef<Path>) -> Result<Vec<String>> {
        Db::list_column_families_with_fs(RealFs::shared(), path)
    }

    /// As [`Db::list_column_families`] on `fs`.
    ///
    /// # Errors
    /// As [`Db::list_column_families`].
    pub fn list_column_families_with_fs(
        fs: Arc<dyn FileSystem>,
        path: impl AsRef<Path>,
    ) -> Result<Vec<String>> {
        column_family_names(&*fs, path.as_ref())
    }

    /// The default column family.
    pub fn default_column_family(&self) -> ColumnFamily {
        ColumnFamily {
            data: Arc::clone(&self.inner.default_cf),
        }
    }

    /// The live column family called `name`.
    pub fn column_family(&self, name: &str) -> Option<ColumnFamily> {
        let st = self.inner.state.lock();
        st.cfs
            .values()
            .find(|c| c.data.name == name)
            .map(|c| ColumnFamily {
                data: Arc::clone(&c.data),
            })
    }

    /// Every live column family, by id (the default first).
    pub fn column_families(&self) -> Vec<ColumnFamily> {
        let st = self.inner.state.lock();
        st.cfs
            .values()
            .map(|c| ColumnFamily {
                data: Arc::clone(&c.data),
            })
            .collect()
    }

    /// Creates column family `name` with `options` (durably, invariant 1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for invalid options or a name in use; [`Error::Closed`];
    /// MANIFEST I/O errors.
    pub fn create_column_family(&self, name: &str, options: CfOptions) -> Result<ColumnFamily> {
        options.validate()?;
        if name.is_empty() {
            return Err(Error::InvalidArgument(
                "a column family name must not be empty".into(),
            ));
        }
        let inner = &self.inner;
        inner.refuse_if_read_only("create_column_family")?;
        let _call = inner.begin_call()?;
        let mut st = inner.state.lock();
        inner.check_open()?;
        // A MANIFEST change in flight (db/install.rs) must finish before this one begins.
        while st.leader_active || st.versions.apply_in_flight() {
            inner.cond.wait(&mut st);
        }
        let log_number = st.wal_number;
        let id = st
            .versions
            .create_cf(name, log_number, options.comparator.clone())?;
        let data = Arc::new(inner.new_cf_data(&st.versions, id, name, options));
        let mem = data.read_view().mem.clone();
        st.cfs.insert(
            id,
            CfState {
                options: data.current_options(),
                data: Arc::clone(&data),
                mem,
                imms: Default::default(),
                running: Default::default(),
                stats: Default::default(),
                last_allocated: 0,
            },
        );
        drop(st);
        inner.family_changed(&format!("created column family {name:?} (id {id})"));
        Ok(ColumnFamily { data })
    }

    /// Drops column family `cf` (durably, invariant 1). Its data is gone for every later read;
    /// iterators already open keep reading their snapshot of it. The default family cannot be
    /// dropped.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for the default family or one already dropped;
    /// [`Error::Closed`]; MANIFEST I/O errors.
    pub fn drop_column_family(&self, cf: &ColumnFamily) -> Result<()> {
        let inner = &self.inner;
        if cf.data.name == DEFAULT_CF_NAME && cf.data.id == 0 {
            return Err(Error::InvalidArgument(
                "the default column family cannot be dropped".into(),
            ));
        }
        inner.refuse_if_read_only("drop_column_family")?;
        let _call = inner.begin_call()?;
        let mut st = inner.state.lock();
        inner.check_open()?;
        // A running flush of this family would otherwise install an edit for a family that no
        // longer exists.
        while st.leader_active
            || st.versions.apply_in_flight()
            || st.flushing
            || st
                .cfs
                .get(&cf.data.id)
                .is_some_and(|c| !c.running.is_empty())
        {
            inner.cond.wait(&mut st);
        }
        cf.data.check_live()?;
        st.versions.drop_cf(cf.data.id)?;
        cf.data.dropped.store(true, Ordering::Release);
        st.cfs.remove(&cf.data.id);
        inner.delete_obsolete_files(&mut st);
        inner.cond.notify_all();
        drop(st);
        inner.family_changed(&format!("dropped column family {:?}", cf.data.name));
        Ok(())
    }
}

impl DbInner {
    /// The shared data of family `id` with an empty memtable and its current version.
    pub(super) fn new_cf_data(
        &self,
        versions: &VersionSet,
        id: u32,
        name: &str,
        options: CfOptions,
    ) -> CfData {
        new_cf_data(
            &self.fs,
            &self.dir,
            &self.options.db,
            versions,
            id,
            name,
            options,
        )
    }
}

/// As [`DbInner::new_cf_data`], before the database exists (at open).
pub(super) fn new_cf_data(
    fs: &Arc<dyn FileSystem>,
    dir: &Path,
    db: &crate::options::DbOptions,
    versions: &VersionSet,
    id: u32,
    name: &str,
    options: CfOptions,
) -> CfData {
    let options = super::options_file::with_default_block_cache(options);
    let table_cache = TableCache::new(
        Arc::clone(fs),
        dir,
        options.table_options_for_reads(),
        db.table_cache_capacity(),
    )
    .with_shard_bits(db.table_cache_shard_bits())
    .with_statistics(db.statistics.clone());
    let version = versions.current(id).expect("a live column family");
    let view = ReadView {
        mem: new_memtable(&options),
        imms: Vec::new(),
        tables: super::view_tables::ViewTables::new(&version, table_cache.capacity().is_none()),
        version,
        table_tombstones: std::sync::OnceLock::new(),
    };
    CfData::new(id, name, options, table_cache, view)
}
