//! `DB`'s writes: put, merge, delete, single delete, range deletion and batches (with and
//! without the WAL), and the timestamped forms, which are refused.

use super::*;

impl<T: ThreadMode, Inner: DBInner> DBCommon<T, Inner> {
    /// Refused: CairnDB has no user-defined timestamps.
    pub fn put_with_ts<K: AsRef<[u8]>, V: AsRef<[u8]>, S: AsRef<[u8]>>(
        &self,
        _key: K,
        _ts: S,
        _value: V,
    ) -> Result<(), Error> {
        Err(no_timestamps("put_with_ts"))
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn put_cf_with_ts<K: AsRef<[u8]>, V: AsRef<[u8]>, S: AsRef<[u8]>>(
        &self,
        _cf: &impl AsColumnFamilyRef,
        _key: K,
        _ts: S,
        _value: V,
    ) -> Result<(), Error> {
        Err(no_timestamps("put_cf_with_ts"))
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn delete_with_ts<K: AsRef<[u8]>, S: AsRef<[u8]>>(
        &self,
        _key: K,
        _ts: S,
    ) -> Result<(), Error> {
        Err(no_timestamps("delete_with_ts"))
    }

    /// Refused: CairnDB has no user-defined timestamps.
    pub fn delete_cf_with_ts<K: AsRef<[u8]>, S: AsRef<[u8]>>(
        &self,
        _cf: &impl AsColumnFamilyRef,
        _key: K,
        _ts: S,
    ) -> Result<(), Error> {
        Err(no_timestamps("delete_cf_with_ts"))
    }

    fn write_with(
        &self,
        writeopts: &WriteOptions,
        f: impl FnOnce(&Inner, &cairndb::options::WriteOptions) -> cairndb::Result<()>,
    ) -> Result<(), Error> {
        let o = writeopts.checked()?;
        Ok(f(&self.inner, o)?)
    }

    /// Sets `key` to `value`.
    pub fn put<K: AsRef<[u8]>, V: AsRef<[u8]>>(&self, key: K, value: V) -> Result<(), Error> {
        self.put_opt(key, value, &WriteOptions::default())
    }

    /// Sets `key` to `value`, with write options.
    pub fn put_opt<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        key: K,
        value: V,
        writeopts: &WriteOptions,
    ) -> Result<(), Error> {
        self.write_with(writeopts, |db, o| {
            db.put_cf(
                o,
                &db.db().default_column_family(),
                key.as_ref(),
                value.as_ref(),
            )
        })
    }

    /// Sets `key` to `value` in `cf`.
    pub fn put_cf<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        value: V,
    ) -> Result<(), Error> {
        self.put_cf_opt(cf, key, value, &WriteOptions::default())
    }

    /// Sets `key` to `value` in `cf`, with write options.
    pub fn put_cf_opt<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        value: V,
        writeopts: &WriteOptions,
    ) -> Result<(), Error> {
        self.write_with(writeopts, |db, o| {
            db.put_cf(o, cf.cf(), key.as_ref(), value.as_ref())
        })
    }

    /// Adds a merge operand for `key`.
    pub fn merge<K: AsRef<[u8]>, V: AsRef<[u8]>>(&self, key: K, value: V) -> Result<(), Error> {
        self.merge_opt(key, value, &WriteOptions::default())
    }

    /// Adds a merge operand for `key`, with write options.
    pub fn merge_opt<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        key: K,
        value: V,
        writeopts: &WriteOptions,
    ) -> Result<(), Error> {
        self.write_with(writeopts, |db, o| {
            db.merge_cf(
                o,
                &db.db().default_column_family(),
                key.as_ref(),
                value.as_ref(),
            )
        })
    }

    /// Adds a merge operand for `key` in `cf`.
    pub fn merge_cf<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        value: V,
    ) -> Result<(), Error> {
        self.merge_cf_opt(cf, key, value, &WriteOptions::default())
    }

    /// Adds a merge operand for `key` in `cf`, with write options.
    pub fn merge_cf_opt<K: AsRef<[u8]>, V: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        value: V,
        writeopts: &WriteOptions,
    ) -> Result<(), Error> {
        self.write_with(writeopts, |db, o| {
            db.merge_cf(o, cf.cf(), key.as_ref(), value.as_ref())
        })
    }

    /// Deletes `key`.
    pub fn delete<K: AsRef<[u8]>>(&self, key: K) -> Result<(), Error> {
        self.delete_opt(key, &WriteOptions::default())
    }

    /// Deletes `key`, with write options.
    pub fn delete_opt<K: AsRef<[u8]>>(
        &self,
        key: K,
        writeopts: &WriteOptions,
    ) -> Result<(), Error> {
        self.write_with(writeopts, |db, o| {
            db.delete_cf(o, &db.db().default_column_family(), key.as_ref())
        })
    }

    /// Deletes `key` in `cf`.
    pub fn delete_cf<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
    ) -> Result<(), Error> {
        self.delete_cf_opt(cf, key, &WriteOptions::default())
    }

    /// Deletes `key` in `cf`, with write options.
    pub fn delete_cf_opt<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
        writeopts: &WriteOptions,
    ) -> Result<(), Error> {
        self.write_with(writeopts, |db, o| db.delete_cf(o, cf.cf(), key.as_ref()))
    }

    /// Deletes the single put of `key` (RocksDB's `SingleDelete`).
    pub fn single_delete<K: AsRef<[u8]>>(&self, key: K) -> Result<(), Error> {
        self.write_with(&WriteOptions::default(), |db, o| {
            db.single_delete_cf(o, &db.db().default_column_family(), key.as_ref())
        })
    }

    /// Deletes the single put of `key` in `cf`.
    pub fn single_delete_cf<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        key: K,
    ) -> Result<(), Error> {
        self.write_with(&WriteOptions::default(), |db, o| {
            db.single_delete_cf(o, cf.cf(), key.as_ref())
        })
    }

    /// Deletes the keys of `cf` in `[from, to)`.
    pub fn delete_range_cf<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        from: K,
        to: K,
    ) -> Result<(), Error> {
        self.delete_range_cf_opt(cf, from, to, &WriteOptions::default())
    }

    /// Deletes the keys of `cf` in `[from, to)`, with write options.
    pub fn delete_range_cf_opt<K: AsRef<[u8]>>(
        &self,
        cf: &impl AsColumnFamilyRef,
        from: K,
        to: K,
        writeopts: &WriteOptions,
    ) -> Result<(), Error> {
        self.write_with(writeopts, |db, o| {
            db.delete_range_cf(o, cf.cf(), from.as_ref(), to.as_ref())
        })
    }

    /// Applies `batch` atomically.
    pub fn write<const TX: bool>(&self, batch: WriteBatchWithTransaction<TX>) -> Result<(), Error> {
        self.write_opt(batch, &WriteOptions::default())
    }

    /// Applies `batch` atomically, with write options.
    pub fn write_opt<const TX: bool>(
        &self,
        batch: WriteBatchWithTransaction<TX>,
        writeopts: &WriteOptions,
    ) -> Result<(), Error> {
        batch.checked()?;
        self.write_with(writeopts, |db, o| db.write(o, batch.inner))
    }

    /// Applies `batch` atomically, without the WAL.
    pub fn write_without_wal<const TX: bool>(
        &self,
        batch: WriteBatchWithTransaction<TX>,
    ) -> Result<(), Error> {
        let mut o = WriteOptions::default();
        o.disable_wal(true);
        self.write_opt(batch, &o)
    }
}
