//! `SstFileWriter`: writes a sorted table file outside any database, for
//! `DB::ingest_external_file`.

use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use parking_lot::Mutex;

use crate::{Error, Options};

/// Writes a table file from keys given in ascending order. It cannot outlive the options it
/// was created with (as rust-rocksdb's).
pub struct SstFileWriter<'a> {
    inner: Mutex<cairndb::SstFileWriter>,
    /// A refused setter of the options: every call fails with it.
    refused: Option<Error>,
    options: PhantomData<&'a Options>,
}

impl fmt::Debug for SstFileWriter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SstFileWriter").finish_non_exhaustive()
    }
}

impl<'a> SstFileWriter<'a> {
    /// A writer with the table options, comparator and compression of `opts`.
    pub fn create(opts: &'a Options) -> Self {
        let (inner, refused) = match opts.checked() {
            Ok(o) => (
                cairndb::SstFileWriter::for_family(opts.file_system(), &o.db, &o.cf),
                None,
            ),
            Err(e) => (
                cairndb::SstFileWriter::new(&cairndb::options::Options::default()),
                Some(e),
            ),
        };
        SstFileWriter {
            inner: Mutex::new(inner),
            refused,
            options: PhantomData,
        }
    }

    fn with<R>(
        &self,
        f: impl FnOnce(&mut cairndb::SstFileWriter) -> cairndb::Result<R>,
    ) -> Result<R, Error> {
        if let Some(e) = &self.refused {
            return Err(e.clone());
        }
        Ok(f(&mut self.inner.lock())?)
    }

    /// Starts the file at `path`.
    pub fn open<P: AsRef<Path>>(&'a self, path: P) -> Result<(), Error> {
        self.with(|w| w.open(path))
    }

    /// Completes the file (it must hold at least one entry).
    pub fn finish(&mut self) -> Result<(), Error> {
        self.with(|w| w.finish().map(drop))
    }

    /// The bytes written so far.
    pub fn file_size(&self) -> u64 {
        self.inner.lock().file_size()
    }

    /// Adds `key` with `value` (keys in ascending order, each once).
    pub fn put<K: AsRef<[u8]>, V: AsRef<[u8]>>(&mut self, key: K, value: V) -> Result<(), Error> {
        self.with(|w| w.put(key.as_ref(), value.as_ref()))
    }

    /// Adds a merge operand for `key`.
    pub fn merge<K: AsRef<[u8]>, V: AsRef<[u8]>>(&mut self, key: K, value: V) -> Result<(), Error> {
        self.with(|w| w.merge(key.as_ref(), value.as_ref()))
    }

    /// Adds a deletion of `key`.
    pub fn delete<K: AsRef<[u8]>>(&mut self, key: K) -> Result<(), Error> {
        self.with(|w| w.delete(key.as_ref()))
    }

    /// Adds a deletion of the keys in `[begin_key, end_key)`.
    pub fn delete_range<K: AsRef<[u8]>>(&mut self, begin_key: K, end_key: K) -> Result<(), Error> {
        self.with(|w| w.delete_range(begin_key.as_ref(), end_key.as_ref()))
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn put_with_ts<K: AsRef<[u8]>, V: AsRef<[u8]>, S: AsRef<[u8]>>(
        &mut self,
        _key: K,
        _ts: S,
        _value: V,
    ) -> Result<(), Error> {
        Err(crate::db::no_timestamps("SstFileWriter::put_with_ts"))
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn delete_with_ts<K: AsRef<[u8]>, S: AsRef<[u8]>>(
        &mut self,
        _key: K,
        _ts: S,
    ) -> Result<(), Error> {
        Err(crate::db::no_timestamps("SstFileWriter::delete_with_ts"))
    }
}
