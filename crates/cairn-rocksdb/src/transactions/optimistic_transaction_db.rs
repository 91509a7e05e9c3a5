//! `OptimisticTransactionDB`: a database whose transactions check for conflicts at commit.

use crate::db::{DBCommon, DBInner};
use crate::{
    ColumnFamilyDescriptor, Error, Options, SingleThreaded, ThreadMode, Transaction, WriteOptions,
};

use super::OptimisticTransactionOptions;

/// The engine of an optimistic transaction database.
#[derive(Debug)]
pub struct OptimisticTransactionDBInner {
    pub(crate) db: cairndb::OptimisticTransactionDb,
}

impl DBInner for OptimisticTransactionDBInner {
    fn db(&self) -> &cairndb::Db {
        self.db.db()
    }
}

/// A database with optimistic transactions; every method of [`crate::DB`] works on it too.
pub type OptimisticTransactionDB<T = SingleThreaded> = DBCommon<T, OptimisticTransactionDBInner>;

impl<T: ThreadMode> OptimisticTransactionDB<T> {
    /// Opens (creating when missing) the database at `path` with default options.
    pub fn open_default<P: AsRef<std::path::Path>>(path: P) -> Result<Self, Error> {
        let mut opts = Options::default();
        opts.create_if_missing(true);
        Self::open(&opts, path)
    }

    /// Opens the database at `path`.
    pub fn open<P: AsRef<std::path::Path>>(opts: &Options, path: P) -> Result<Self, Error> {
        Self::open_cf_descriptors(opts, path, Vec::new())
    }

    /// Opens with column families named in `cfs`, each with `opts`.
    pub fn open_cf<P, I, N>(opts: &Options, path: P, cfs: I) -> Result<Self, Error>
    where
        P: AsRef<std::path::Path>,
        I: IntoIterator<Item = N>,
        N: AsRef<str>,
    {
        let cfs = cfs
            .into_iter()
            .map(|name| ColumnFamilyDescriptor::new(name.as_ref(), opts.clone()));
        Self::open_cf_descriptors(opts, path, cfs)
    }

    /// Opens with column families given by descriptors.
    pub fn open_cf_descriptors<P, I>(opts: &Options, path: P, cfs: I) -> Result<Self, Error>
    where
        P: AsRef<std::path::Path>,
        I: IntoIterator<Item = ColumnFamilyDescriptor>,
    {
        Self::open_with(opts, path, cfs, |fs, path, options, descriptors| {
            Ok(OptimisticTransactionDBInner {
                db: cairndb::OptimisticTransactionDb::open_cf_with_fs(
                    fs,
                    path,
                    options,
                    cairndb::OptimisticTransactionDbOptions::default(),
                    descriptors,
                )?,
            })
        })
    }

    /// Begins a transaction with default options.
    pub fn transaction(&self) -> Transaction<'_, Self> {
        self.transaction_opt(
            &WriteOptions::default(),
            &OptimisticTransactionOptions::default(),
        )
    }

    /// Begins a transaction. Refused write options make every operation of the transaction
    /// fail with the refusal.
    pub fn transaction_opt(
        &self,
        write_opts: &WriteOptions,
        otxn_opts: &OptimisticTransactionOptions,
    ) -> Transaction<'_, Self> {
        match write_opts.checked() {
            Ok(o) => {
                Transaction::optimistic(self, self.inner.db.begin_transaction(o, &otxn_opts.inner))
            }
            Err(e) => Transaction::failed(self, e),
        }
    }
}
