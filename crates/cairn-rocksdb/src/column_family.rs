//! Column families: descriptors for the opens, and the handles reads and writes name.

use std::marker::PhantomData;
use std::sync::Arc;

use crate::db_options::Options;

/// The name of the column family every database has.
pub const DEFAULT_COLUMN_FAMILY_NAME: &str = "default";

/// A column family's name and options, for the opens that list families.
#[derive(Debug)]
pub struct ColumnFamilyDescriptor {
    pub(crate) name: String,
    pub(crate) options: Options,
    pub(crate) ttl: ColumnFamilyTtl,
}

impl ColumnFamilyDescriptor {
    /// A descriptor whose TTL follows the database's ([`ColumnFamilyTtl::SameAsDb`]).
    pub fn new<S: Into<String>>(name: S, options: Options) -> Self {
        Self::new_with_ttl(name, options, ColumnFamilyTtl::SameAsDb)
    }

    /// A descriptor with its own TTL.
    pub fn new_with_ttl<S: Into<String>>(name: S, options: Options, ttl: ColumnFamilyTtl) -> Self {
        ColumnFamilyDescriptor {
            name: name.into(),
            options,
            ttl,
        }
    }

    /// Sets the TTL.
    pub fn set_ttl(&mut self, ttl: ColumnFamilyTtl) {
        self.ttl = ttl;
    }

    /// The family's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The family's TTL.
    pub fn ttl(&self) -> ColumnFamilyTtl {
        self.ttl
    }
}

/// The time-to-live of a column family's entries (RocksDB's `DBWithTTL`). CairnDB has no TTL
/// database: opens given a TTL other than `Disabled` (or `SameAsDb` without a database TTL) fail
/// with `Not implemented`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ColumnFamilyTtl {
    /// The database's TTL.
    #[default]
    SameAsDb,
    /// Entries expire this long after they were written.
    Duration(std::time::Duration),
    /// Entries never expire.
    Disabled,
}

/// A column family's handle, owned by a single-threaded database.
#[derive(Debug)]
pub struct ColumnFamily {
    pub(crate) inner: cairndb::ColumnFamily,
}

/// A column family's handle, bound to the lifetime of a multi-threaded database.
#[derive(Debug)]
pub struct BoundColumnFamily<'a> {
    pub(crate) inner: cairndb::ColumnFamily,
    pub(crate) db: PhantomData<&'a ()>,
}

/// What `cf_handle` gives in the default (single-threaded) mode.
pub type ColumnFamilyRef<'a> = &'a ColumnFamily;

/// Something that names a column family: [`ColumnFamily`], `&ColumnFamily` or
/// `Arc<BoundColumnFamily>`.
pub trait AsColumnFamilyRef {
    #[doc(hidden)]
    fn cf(&self) -> &cairndb::ColumnFamily;
}

impl AsColumnFamilyRef for ColumnFamily {
    fn cf(&self) -> &cairndb::ColumnFamily {
        &self.inner
    }
}

impl AsColumnFamilyRef for &ColumnFamily {
    fn cf(&self) -> &cairndb::ColumnFamily {
        &self.inner
    }
}

impl AsColumnFamilyRef for Arc<BoundColumnFamily<'_>> {
    fn cf(&self) -> &cairndb::ColumnFamily {
        &self.inner
    }
}

/// A family handle made inside the crate (for calls that take `&impl AsColumnFamilyRef`).
pub(crate) struct Handle(pub(crate) cairndb::ColumnFamily);

impl AsColumnFamilyRef for Handle {
    fn cf(&self) -> &cairndb::ColumnFamily {
        &self.0
    }
}
