//! Property names for `DB::property_value` (RocksDB's `DB::Properties`), and [`CStrLike`], the
//! names the API takes.
//!
//! CairnDB answers the properties it lists in `cairndb::PROPERTY_NAMES`; for any other name
//! `property_value` gives `Ok(None)`, as RocksDB does for a name it does not know.

use std::borrow::Borrow;
use std::ffi::{CStr, CString};
use std::fmt;
use std::ops::Deref;

use crate::Error;

/// A name given as a string, a C string or a property name. A name with a NUL byte is an error.
pub trait CStrLike {
    #[doc(hidden)]
    fn into_name(self) -> Result<String, Error>;
}

fn checked(s: &str) -> Result<String, Error> {
    if s.contains('\0') {
        return Err(Error::invalid(format!(
            "{s:?} must not contain NUL (0x00) bytes"
        )));
    }
    Ok(s.to_string())
}

fn from_c(s: &CStr) -> Result<String, Error> {
    s.to_str()
        .map(str::to_string)
        .map_err(|_| Error::invalid(format!("{s:?} is not UTF-8")))
}

impl CStrLike for &str {
    fn into_name(self) -> Result<String, Error> {
        checked(self)
    }
}

impl CStrLike for &String {
    fn into_name(self) -> Result<String, Error> {
        checked(self)
    }
}

impl CStrLike for String {
    fn into_name(self) -> Result<String, Error> {
        checked(&self)
    }
}

impl CStrLike for &CStr {
    fn into_name(self) -> Result<String, Error> {
        from_c(self)
    }
}

impl CStrLike for CString {
    fn into_name(self) -> Result<String, Error> {
        from_c(&self)
    }
}

impl CStrLike for &CString {
    fn into_name(self) -> Result<String, Error> {
        from_c(self)
    }
}

impl CStrLike for &PropName {
    fn into_name(self) -> Result<String, Error> {
        from_c(&self.0)
    }
}

impl CStrLike for PropertyName {
    fn into_name(self) -> Result<String, Error> {
        from_c(&self.0)
    }
}

impl CStrLike for &PropertyName {
    fn into_name(self) -> Result<String, Error> {
        from_c(&self.0)
    }
}

/// A property's name: a `CStr` that is also a `str` (property names are ASCII).
#[repr(transparent)]
pub struct PropName(CStr);

impl PropName {
    const fn new(name: &'static CStr) -> &'static PropName {
        // SAFETY: `PropName` is a transparent wrapper of `CStr`, so the pointer casts between
        // them keep the (unsized) layout and the length metadata.
        unsafe { &*(name as *const CStr as *const PropName) }
    }

    /// The name as a C string.
    pub fn as_c_str(&self) -> &CStr {
        &self.0
    }

    /// The name as a string.
    pub fn as_str(&self) -> &str {
        // Every PropName is built here from an ASCII literal.
        self.0.to_str().unwrap_or_default()
    }
}

impl Deref for PropName {
    type Target = CStr;

    fn deref(&self) -> &CStr {
        &self.0
    }
}

impl AsRef<CStr> for PropName {
    fn as_ref(&self) -> &CStr {
        &self.0
    }
}

impl AsRef<str> for PropName {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl ToOwned for PropName {
    type Owned = PropertyName;

    fn to_owned(&self) -> PropertyName {
        PropertyName(self.0.to_owned())
    }
}

impl fmt::Display for PropName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_str().fmt(f)
    }
}

impl fmt::Debug for PropName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_str().fmt(f)
    }
}

impl PartialEq<str> for PropName {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<CStr> for PropName {
    fn eq(&self, other: &CStr) -> bool {
        self.0 == *other
    }
}

/// An owned property name (from `to_owned`, or the functions that build names per level).
#[derive(Clone, PartialEq, Eq)]
pub struct PropertyName(CString);

impl PropertyName {
    fn from_string(name: String) -> PropertyName {
        // Property names built here are ASCII without NUL bytes.
        PropertyName(CString::new(name).unwrap_or_default())
    }

    /// The name as a C string.
    pub fn into_c_string(self) -> CString {
        self.0
    }

    /// The name as a string.
    pub fn into_string(self) -> String {
        self.0.into_string().unwrap_or_default()
    }
}

impl Deref for PropertyName {
    type Target = PropName;

    fn deref(&self) -> &PropName {
        // SAFETY: as in `PropName::new`: a transparent wrapper of `CStr`.
        unsafe { &*(self.0.as_c_str() as *const CStr as *const PropName) }
    }
}

impl Borrow<PropName> for PropertyName {
    fn borrow(&self) -> &PropName {
        self
    }
}

impl AsRef<CStr> for PropertyName {
    fn as_ref(&self) -> &CStr {
        &self.0
    }
}

impl AsRef<str> for PropertyName {
    fn as_ref(&self) -> &str {
        self.0.to_str().unwrap_or_default()
    }
}

impl fmt::Display for PropertyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.deref().fmt(f)
    }
}

impl fmt::Debug for PropertyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.deref().fmt(f)
    }
}

impl PartialEq<String> for PropertyName {
    fn eq(&self, other: &String) -> bool {
        self.deref().as_str() == other
    }
}

/// `rocksdb.num-files-at-level<N>`.
pub fn num_files_at_level(level: usize) -> PropertyName {
    PropertyName::from_string(format!("rocksdb.num-files-at-level{level}"))
}

/// `rocksdb.compression-ratio-at-level<N>`.
pub fn compression_ratio_at_level(level: usize) -> PropertyName {
    PropertyName::from_string(format!("rocksdb.compression-ratio-at-level{level}"))
}

/// `rocksdb.aggregated-table-properties-at-level<N>`.
pub fn aggregated_table_properties_at_level(level: usize) -> PropertyName {
    PropertyName::from_string(format!(
        "rocksdb.aggregated-table-properties-at-level{level}"
    ))
}

/// `rocksdb.stats`.
pub const STATS: &PropName = PropName::new(c"rocksdb.stats");
/// `rocksdb.sstables`.
pub const SSTABLES: &PropName = PropName::new(c"rocksdb.sstables");
/// `rocksdb.CFSTATS`.
pub const CFSTATS: &PropName = PropName::new(c"rocksdb.CFSTATS");
/// `rocksdb.cfstats-no-file-histogram`.
pub const CFSTATS_NO_FILE_HISTOGRAM: &PropName =
    PropName::new(c"rocksdb.cfstats-no-file-histogram");
/// `rocksdb.cf-file-histogram`.
pub const CF_FILE_HISTOGRAM: &PropName = PropName::new(c"rocksdb.cf-file-histogram");
/// `rocksdb.dbstats`.
pub const DBSTATS: &PropName = PropName::new(c"rocksdb.dbstats");
/// `rocksdb.levelstats`.
pub const LEVELSTATS: &PropName = PropName::new(c"rocksdb.levelstats");
/// `rocksdb.num-immutable-mem-table`.
pub const NUM_IMMUTABLE_MEM_TABLE: &PropName = PropName::new(c"rocksdb.num-immutable-mem-table");
/// `rocksdb.num-immutable-mem-table-flushed`.
pub const NUM_IMMUTABLE_MEM_TABLE_FLUSHED: &PropName =
    PropName::new(c"rocksdb.num-immutable-mem-table-flushed");
/// `rocksdb.mem-table-flush-pending`.
pub const MEM_TABLE_FLUSH_PENDING: &PropName = PropName::new(c"rocksdb.mem-table-flush-pending");
/// `rocksdb.num-running-flushes`.
pub const NUM_RUNNING_FLUSHES: &PropName = PropName::new(c"rocksdb.num-running-flushes");
/// `rocksdb.compaction-pending`.
pub const COMPACTION_PENDING: &PropName = PropName::new(c"rocksdb.compaction-pending");
/// `rocksdb.num-running-compactions`.
pub const NUM_RUNNING_COMPACTIONS: &PropName = PropName::new(c"rocksdb.num-running-compactions");
/// `rocksdb.background-errors`.
pub const BACKGROUND_ERRORS: &PropName = PropName::new(c"rocksdb.background-errors");
/// `rocksdb.cur-size-active-mem-table`.
pub const CUR_SIZE_ACTIVE_MEM_TABLE: &PropName =
    PropName::new(c"rocksdb.cur-size-active-mem-table");
/// `rocksdb.cur-size-all-mem-tables`.
pub const CUR_SIZE_ALL_MEM_TABLES: &PropName = PropName::new(c"rocksdb.cur-size-all-mem-tables");
/// `rocksdb.size-all-mem-tables`.
pub const SIZE_ALL_MEM_TABLES: &PropName = PropName::new(c"rocksdb.size-all-mem-tables");
/// `rocksdb.num-entries-active-mem-table`.
pub const NUM_ENTRIES_ACTIVE_MEM_TABLE: &PropName =
    PropName::new(c"rocksdb.num-entries-active-mem-table");
/// `rocksdb.num-entries-imm-mem-tables`.
pub const NUM_ENTRIES_IMM_MEM_TABLES: &PropName =
    PropName::new(c"rocksdb.num-entries-imm-mem-tables");
/// `rocksdb.num-deletes-active-mem-table`.
pub const NUM_DELETES_ACTIVE_MEM_TABLE: &PropName =
    PropName::new(c"rocksdb.num-deletes-active-mem-table");
/// `rocksdb.num-deletes-imm-mem-tables`.
pub const NUM_DELETES_IMM_MEM_TABLES: &PropName =
    PropName::new(c"rocksdb.num-deletes-imm-mem-tables");
/// `rocksdb.estimate-num-keys`.
pub const ESTIMATE_NUM_KEYS: &PropName = PropName::new(c"rocksdb.estimate-num-keys");
/// `rocksdb.estimate-table-readers-mem`.
pub const ESTIMATE_TABLE_READERS_MEM: &PropName =
    PropName::new(c"rocksdb.estimate-table-readers-mem");
/// `rocksdb.is-file-deletions-enabled`.
pub const IS_FILE_DELETIONS_ENABLED: &PropName =
    PropName::new(c"rocksdb.is-file-deletions-enabled");
/// `rocksdb.num-snapshots`.
pub const NUM_SNAPSHOTS: &PropName = PropName::new(c"rocksdb.num-snapshots");
/// `rocksdb.oldest-snapshot-time`.
pub const OLDEST_SNAPSHOT_TIME: &PropName = PropName::new(c"rocksdb.oldest-snapshot-time");
/// `rocksdb.num-live-versions`.
pub const NUM_LIVE_VERSIONS: &PropName = PropName::new(c"rocksdb.num-live-versions");
/// `rocksdb.current-super-version-number`.
pub const CURRENT_SUPER_VERSION_NUMBER: &PropName =
    PropName::new(c"rocksdb.current-super-version-number");
/// `rocksdb.estimate-live-data-size`.
pub const ESTIMATE_LIVE_DATA_SIZE: &PropName = PropName::new(c"rocksdb.estimate-live-data-size");
/// `rocksdb.min-log-number-to-keep`.
pub const MIN_LOG_NUMBER_TO_KEEP: &PropName = PropName::new(c"rocksdb.min-log-number-to-keep");
/// `rocksdb.min-obsolete-sst-number-to-keep`.
pub const MIN_OBSOLETE_SST_NUMBER_TO_KEEP: &PropName =
    PropName::new(c"rocksdb.min-obsolete-sst-number-to-keep");
/// `rocksdb.total-sst-files-size`.
pub const TOTAL_SST_FILES_SIZE: &PropName = PropName::new(c"rocksdb.total-sst-files-size");
/// `rocksdb.live-sst-files-size`.
pub const LIVE_SST_FILES_SIZE: &PropName = PropName::new(c"rocksdb.live-sst-files-size");
/// `rocksdb.base-level`.
pub const BASE_LEVEL: &PropName = PropName::new(c"rocksdb.base-level");
/// `rocksdb.estimate-pending-compaction-bytes`.
pub const ESTIMATE_PENDING_COMPACTION_BYTES: &PropName =
    PropName::new(c"rocksdb.estimate-pending-compaction-bytes");
/// `rocksdb.aggregated-table-properties`.
pub const AGGREGATED_TABLE_PROPERTIES: &PropName =
    PropName::new(c"rocksdb.aggregated-table-properties");
/// `rocksdb.actual-delayed-write-rate`.
pub const ACTUAL_DELAYED_WRITE_RATE: &PropName =
    PropName::new(c"rocksdb.actual-delayed-write-rate");
/// `rocksdb.is-write-stopped`.
pub const IS_WRITE_STOPPED: &PropName = PropName::new(c"rocksdb.is-write-stopped");
/// `rocksdb.estimate-oldest-key-time`.
pub const ESTIMATE_OLDEST_KEY_TIME: &PropName = PropName::new(c"rocksdb.estimate-oldest-key-time");
/// `rocksdb.block-cache-capacity`.
pub const BLOCK_CACHE_CAPACITY: &PropName = PropName::new(c"rocksdb.block-cache-capacity");
/// `rocksdb.block-cache-usage`.
pub const BLOCK_CACHE_USAGE: &PropName = PropName::new(c"rocksdb.block-cache-usage");
/// `rocksdb.block-cache-pinned-usage`.
pub const BLOCK_CACHE_PINNED_USAGE: &PropName = PropName::new(c"rocksdb.block-cache-pinned-usage");
/// `rocksdb.options-statistics`.
pub const OPTIONS_STATISTICS: &PropName = PropName::new(c"rocksdb.options-statistics");
