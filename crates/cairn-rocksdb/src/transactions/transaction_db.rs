//! `TransactionDB`: a database whose transactions lock the keys they write.

use std::path::Path;

use crate::db::{DBCommon, DBInner};
use crate::{
    ColumnFamilyDescriptor, Error, Options, SingleThreaded, ThreadMode, Transaction, WriteOptions,
};

use super::{TransactionDBOptions, TransactionOptions};

/// The engine of a pessimistic transaction database. Writes outside transactions lock their
/// keys too (waiting up to `default_lock_timeout`).
#[derive(Debug)]
pub struct TransactionDBInner {
    pub(crate) db: cairndb::TransactionDb,
}

fn not_in_transaction_db(call: &str) -> cairndb::Error {
    cairndb::Error::NotSupported(format!(
        "{call} on a TransactionDB: it could not lock the keys it deletes (RocksDB's \
         TransactionDB has no such call either)"
    ))
}

impl DBInner for TransactionDBInner {
    fn db(&self) -> &cairndb::Db {
        self.db.db()
    }

    fn put_cf(
        &self,
        o: &cairndb::options::WriteOptions,
        cf: &cairndb::ColumnFamily,
        key: &[u8],
        value: &[u8],
    ) -> cairndb::Result<()> {
        self.db.put_cf(o, cf, key, value)
    }

    fn merge_cf(
        &self,
        o: &cairndb::options::WriteOptions,
        cf: &cairndb::ColumnFamily,
        key: &[u8],
        operand: &[u8],
    ) -> cairndb::Result<()> {
        self.db.merge_cf(o, cf, key, operand)
    }

    fn delete_cf(
        &self,
        o: &cairndb::options::WriteOptions,
        cf: &cairndb::ColumnFamily,
        key: &[u8],
    ) -> cairndb::Result<()> {
        self.db.delete_cf(o, cf, key)
    }

    fn single_delete_cf(
        &self,
        _o: &cairndb::options::WriteOptions,
        _cf: &cairndb::ColumnFamily,
        _key: &[u8],
    ) -> cairndb::Result<()> {
        Err(not_in_transaction_db("single_delete"))
    }

    fn delete_range_cf(
        &self,
        _o: &cairndb::options::WriteOptions,
        _cf: &cairndb::ColumnFamily,
        _begin: &[u8],
        _end: &[u8],
    ) -> cairndb::Result<()> {
        Err(not_in_transaction_db("delete_range"))
    }

    fn write(
        &self,
        o: &cairndb::options::WriteOptions,
        batch: cairndb::WriteBatch,
    ) -> cairndb::Result<()> {
        self.db.write(o, batch)
    }
}

/// A database with pessimistic transactions; the reads, iterators, flushes, properties and
/// column-family calls of [`crate::DB`] work on it too.
pub type TransactionDB<T = SingleThreaded> = DBCommon<T, TransactionDBInner>;

impl<T: ThreadMode> TransactionDB<T> {
    /// Opens (creating when missing) the database at `path` with default options.
    pub fn open_default<P: AsRef<Path>>(path: P) -> Result<Self, Error> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        Self::open(&opts, &TransactionDBOptions::default(), path)
    }

    /// Opens the database at `path`.
    pub fn open<P: AsRef<Path>>(
        opts: &Options,
        txn_db_opts: &TransactionDBOptions,
        path: P,
    ) -> Result<Self, Error> {
        Self::open_cf_descriptors(opts, txn_db_opts, path, Vec::new())
    }

    /// Opens with column families named in `cfs`, each with `opts`.
    pub fn open_cf<P, I, N>(
        opts: &Options,
        txn_db_opts: &TransactionDBOptions,
        path: P,
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
        Self::open_cf_descriptors(opts, txn_db_opts, path, cfs)
    }

    /// Opens with column families given by descriptors.
    pub fn open_cf_descriptors<P, I>(
        opts: &Options,
        txn_db_opts: &TransactionDBOptions,
        path: P,
        cfs: I,
    ) -> Result<Self, Error>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = ColumnFamilyDescriptor>,
    {
        let txn_opts = txn_db_opts.inner.clone();
        Self::open_with(opts, path, cfs, |fs, path, options, descriptors| {
            Ok(TransactionDBInner {
                db: cairndb::TransactionDb::open_cf_with_fs(
                    fs,
                    path,
                    options,
                    txn_opts,
                    descriptors,
                )?,
            })
        })
    }

    /// Begins a transaction with default options.
    pub fn transaction(&self) -> Transaction<'_, Self> {
        self.transaction_opt(&WriteOptions::default(), &TransactionOptions::default())
    }

    /// Begins a transaction. When it cannot begin (refused write options), every operation of
    /// the transaction fails with the reason.
    pub fn transaction_opt<'a>(
        &'a self,
        write_opts: &WriteOptions,
        txn_opts: &TransactionOptions,
    ) -> Transaction<'a, Self> {
        let begun = write_opts
            .checked()
            .and_then(|o| Ok(self.inner.db.begin_transaction(o, &txn_opts.inner)?));
        match begun {
            Ok(t) => Transaction::pessimistic(self, t),
            Err(e) => Transaction::failed(self, e),
        }
    }

    /// The transactions recovered in the prepared state (after a crash between prepare and
    /// commit); commit or roll back each.
    pub fn prepared_transactions(&self) -> Vec<Transaction<'_, Self>> {
        self.inner
            .db
            .get_all_prepared_transactions()
            .into_iter()
            .map(|t| Transaction::pessimistic(self, t))
            .collect()
    }
}
