//! The read methods every reader has (databases of every kind and transactions): `get` and its
//! variants, `multi_get`, iterators and `snapshot`, written once over [`DBAccess`].
//!
//! They are inherent methods (as in rust-rocksdb, callers need no trait in scope), so each
//! reader's `impl` block expands this macro; the work is done by the `DBAccess` methods, which
//! each reader implements (a transaction reads its own writes over the database).
//!
//! [`DBAccess`]: crate::DBAccess

macro_rules! read_methods {
    () => {
        /// The value of `key`.
        pub fn get<K: AsRef<[u8]>>(&self, key: K) -> Result<Option<Vec<u8>>, $crate::Error> {
            self.get_opt(key, &$crate::ReadOptions::default())
        }

        /// The value of `key` in `cf`.
        pub fn get_cf<K: AsRef<[u8]>>(
            &self,
            cf: &impl $crate::AsColumnFamilyRef,
            key: K,
        ) -> Result<Option<Vec<u8>>, $crate::Error> {
            self.get_cf_opt(cf, key, &$crate::ReadOptions::default())
        }

        /// The value of `key`, without a copy.
        pub fn get_pinned<K: AsRef<[u8]>>(
            &self,
            key: K,
        ) -> Result<Option<$crate::DBPinnableSlice<'_>>, $crate::Error> {
            self.get_pinned_opt(key, &$crate::ReadOptions::default())
        }

        /// The value of `key`, without a copy, with read options.
        pub fn get_pinned_opt<K: AsRef<[u8]>>(
            &self,
            key: K,
            readopts: &$crate::ReadOptions,
        ) -> Result<Option<$crate::DBPinnableSlice<'_>>, $crate::Error> {
            self.get_pinned_at(None, key.as_ref(), readopts)
        }

        /// The value of `key` in `cf`, without a copy.
        pub fn get_pinned_cf<K: AsRef<[u8]>>(
            &self,
            cf: &impl $crate::AsColumnFamilyRef,
            key: K,
        ) -> Result<Option<$crate::DBPinnableSlice<'_>>, $crate::Error> {
            self.get_pinned_cf_opt(cf, key, &$crate::ReadOptions::default())
        }

        /// The value of `key` in `cf`, without a copy, with read options.
        pub fn get_pinned_cf_opt<K: AsRef<[u8]>>(
            &self,
            cf: &impl $crate::AsColumnFamilyRef,
            key: K,
            readopts: &$crate::ReadOptions,
        ) -> Result<Option<$crate::DBPinnableSlice<'_>>, $crate::Error> {
            self.get_pinned_at(Some(cf.cf()), key.as_ref(), readopts)
        }

        /// The values of `keys`.
        pub fn multi_get<K, I>(&self, keys: I) -> Vec<Result<Option<Vec<u8>>, $crate::Error>>
        where
            K: AsRef<[u8]>,
            I: IntoIterator<Item = K>,
        {
            self.multi_get_opt(keys, &$crate::ReadOptions::default())
        }

        /// The values of `keys`, each in its column family.
        pub fn multi_get_cf<'a, 'b: 'a, K, I, W>(
            &'a self,
            keys: I,
        ) -> Vec<Result<Option<Vec<u8>>, $crate::Error>>
        where
            K: AsRef<[u8]>,
            I: IntoIterator<Item = (&'b W, K)>,
            W: 'b + $crate::AsColumnFamilyRef,
        {
            self.multi_get_cf_opt(keys, &$crate::ReadOptions::default())
        }

        /// The value of `key`, with read options.
        pub fn get_opt<K: AsRef<[u8]>>(
            &self,
            key: K,
            readopts: &$crate::ReadOptions,
        ) -> Result<Option<Vec<u8>>, $crate::Error> {
            $crate::DBAccess::get_opt(self, key, readopts)
        }

        /// The value of `key` in `cf`, with read options.
        pub fn get_cf_opt<K: AsRef<[u8]>>(
            &self,
            cf: &impl $crate::AsColumnFamilyRef,
            key: K,
            readopts: &$crate::ReadOptions,
        ) -> Result<Option<Vec<u8>>, $crate::Error> {
            $crate::DBAccess::get_cf_opt(self, cf, key, readopts)
        }

        /// The values of `keys`, with read options.
        pub fn multi_get_opt<K, I>(
            &self,
            keys: I,
            readopts: &$crate::ReadOptions,
        ) -> Vec<Result<Option<Vec<u8>>, $crate::Error>>
        where
            K: AsRef<[u8]>,
            I: IntoIterator<Item = K>,
        {
            $crate::DBAccess::multi_get_opt(self, keys, readopts)
        }

        /// The values of `keys`, each in its column family, with read options.
        pub fn multi_get_cf_opt<'a, 'b: 'a, K, I, W>(
            &'a self,
            keys: I,
            readopts: &$crate::ReadOptions,
        ) -> Vec<Result<Option<Vec<u8>>, $crate::Error>>
        where
            K: AsRef<[u8]>,
            I: IntoIterator<Item = (&'b W, K)>,
            W: 'b + $crate::AsColumnFamilyRef,
        {
            $crate::DBAccess::multi_get_cf_opt(self, keys, readopts)
        }

        /// An iterator over the default column family.
        pub fn iterator<'a: 'b, 'b>(
            &'a self,
            mode: $crate::IteratorMode<'_>,
        ) -> $crate::DBIteratorWithThreadMode<'b, Self> {
            self.iterator_opt(mode, $crate::ReadOptions::default())
        }

        /// An iterator over the default column family, with read options.
        pub fn iterator_opt<'a: 'b, 'b>(
            &'a self,
            mode: $crate::IteratorMode<'_>,
            readopts: $crate::ReadOptions,
        ) -> $crate::DBIteratorWithThreadMode<'b, Self> {
            $crate::DBIteratorWithThreadMode::new(self.raw_iter(None, readopts), mode)
        }

        /// An iterator over `cf`, with read options.
        pub fn iterator_cf_opt<'a: 'b, 'b>(
            &'a self,
            cf: &impl $crate::AsColumnFamilyRef,
            readopts: $crate::ReadOptions,
            mode: $crate::IteratorMode<'_>,
        ) -> $crate::DBIteratorWithThreadMode<'b, Self> {
            $crate::DBIteratorWithThreadMode::new(self.raw_iter(Some(cf.cf()), readopts), mode)
        }

        /// An iterator over the default column family that ignores the prefix extractor.
        pub fn full_iterator<'a: 'b, 'b>(
            &'a self,
            mode: $crate::IteratorMode<'_>,
        ) -> $crate::DBIteratorWithThreadMode<'b, Self> {
            let mut opts = $crate::ReadOptions::default();
            opts.set_total_order_seek(true);
            self.iterator_opt(mode, opts)
        }

        /// An iterator over the keys of the default column family with `prefix`'s prefix.
        pub fn prefix_iterator<'a: 'b, 'b, P: AsRef<[u8]>>(
            &'a self,
            prefix: P,
        ) -> $crate::DBIteratorWithThreadMode<'b, Self> {
            let mut opts = $crate::ReadOptions::default();
            opts.set_prefix_same_as_start(true);
            self.iterator_opt(
                $crate::IteratorMode::From(prefix.as_ref(), $crate::Direction::Forward),
                opts,
            )
        }

        /// An iterator over `cf`.
        pub fn iterator_cf<'a: 'b, 'b>(
            &'a self,
            cf: &impl $crate::AsColumnFamilyRef,
            mode: $crate::IteratorMode<'_>,
        ) -> $crate::DBIteratorWithThreadMode<'b, Self> {
            self.iterator_cf_opt(cf, $crate::ReadOptions::default(), mode)
        }

        /// An iterator over `cf` that ignores the prefix extractor.
        pub fn full_iterator_cf<'a: 'b, 'b>(
            &'a self,
            cf: &impl $crate::AsColumnFamilyRef,
            mode: $crate::IteratorMode<'_>,
        ) -> $crate::DBIteratorWithThreadMode<'b, Self> {
            let mut opts = $crate::ReadOptions::default();
            opts.set_total_order_seek(true);
            self.iterator_cf_opt(cf, opts, mode)
        }

        /// An iterator over the keys of `cf` with `prefix`'s prefix.
        pub fn prefix_iterator_cf<'a, P: AsRef<[u8]>>(
            &'a self,
            cf: &impl $crate::AsColumnFamilyRef,
            prefix: P,
        ) -> $crate::DBIteratorWithThreadMode<'a, Self> {
            let mut opts = $crate::ReadOptions::default();
            opts.set_prefix_same_as_start(true);
            self.iterator_cf_opt(
                cf,
                opts,
                $crate::IteratorMode::From(prefix.as_ref(), $crate::Direction::Forward),
            )
        }

        /// A raw iterator over the default column family.
        pub fn raw_iterator<'a: 'b, 'b>(&'a self) -> $crate::DBRawIteratorWithThreadMode<'b, Self> {
            self.raw_iter(None, $crate::ReadOptions::default())
        }

        /// A raw iterator over `cf`.
        pub fn raw_iterator_cf<'a: 'b, 'b>(
            &'a self,
            cf: &impl $crate::AsColumnFamilyRef,
        ) -> $crate::DBRawIteratorWithThreadMode<'b, Self> {
            self.raw_iter(Some(cf.cf()), $crate::ReadOptions::default())
        }

        /// A raw iterator over the default column family, with read options.
        pub fn raw_iterator_opt<'a: 'b, 'b>(
            &'a self,
            readopts: $crate::ReadOptions,
        ) -> $crate::DBRawIteratorWithThreadMode<'b, Self> {
            self.raw_iter(None, readopts)
        }

        /// A raw iterator over `cf`, with read options.
        pub fn raw_iterator_cf_opt<'a: 'b, 'b>(
            &'a self,
            cf: &impl $crate::AsColumnFamilyRef,
            readopts: $crate::ReadOptions,
        ) -> $crate::DBRawIteratorWithThreadMode<'b, Self> {
            self.raw_iter(Some(cf.cf()), readopts)
        }

        /// A snapshot of the database.
        pub fn snapshot(&self) -> $crate::SnapshotWithThreadMode<'_, Self> {
            $crate::SnapshotWithThreadMode::new(self)
        }
    };
}

pub(crate) use read_methods;
