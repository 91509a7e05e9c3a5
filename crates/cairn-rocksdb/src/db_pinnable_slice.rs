//! `DBPinnableSlice`: a value read without a copy (it pins the block it lives in).

use std::fmt;
use std::marker::PhantomData;
use std::ops::Deref;

/// A value from `get_pinned`, valid while the database lives.
pub struct DBPinnableSlice<'a> {
    pub(crate) inner: cairndb::PinnableValue,
    pub(crate) db: PhantomData<&'a ()>,
}

impl fmt::Debug for DBPinnableSlice<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("DBPinnableSlice")
            .field(&&*self.inner)
            .finish()
    }
}

impl AsRef<[u8]> for DBPinnableSlice<'_> {
    fn as_ref(&self) -> &[u8] {
        &self.inner
    }
}

impl Deref for DBPinnableSlice<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.inner
    }
}

/// A value owned by the caller (rust-rocksdb's `CSlice`, which frees RocksDB's allocation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CSlice(pub(crate) Vec<u8>);

impl AsRef<[u8]> for CSlice {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Deref for CSlice {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}
