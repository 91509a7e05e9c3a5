//! Writing the OPTIONS file of an open database (format and parsing: `options/file.rs`).

use std::path::PathBuf;

use std::sync::Arc;

use super::{Db, DbInner};
use crate::cache::CacheOptions;
use crate::error::Result;
use crate::options::file::options_file_numbers;
use crate::options::{CfOptions, OptionsFile};
use crate::sstable::BlockCache;

/// RocksDB's default block cache capacity (`BlockBasedTableOptions::block_cache` left null).
pub const DEFAULT_BLOCK_CACHE_BYTES: usize = 32 << 20;

/// `options` with a block cache of RocksDB's default capacity when
/// `cache_index_and_filter_blocks` asks for one and none is set: RocksDB always has a cache,
/// so an option string such as MyRocks' `cache_index_and_filter_blocks=1` relies on one being
/// there; without it the option would silently do nothing. Without that option CairnDB keeps
/// its default of no cache (reads go through the OS page cache).
pub(super) fn with_default_block_cache(mut options: CfOptions) -> CfOptions {
    if options.table.cache_index_and_filter_blocks && options.table.block_cache.is_none() {
        options.table.block_cache = Some(Arc::new(BlockCache::new(CacheOptions::with_capacity(
            DEFAULT_BLOCK_CACHE_BYTES,
        ))));
    }
    options
}

impl DbInner {
    /// The effective options: the database's and every live family's, default first.
    pub(super) fn options_file(&self) -> OptionsFile {
        let st = self.state.lock();
        OptionsFile {
            db: (*self.current_db_options()).clone(),
            families: st
                .cfs
                .values()
                .map(|c| (c.data.name.clone(), (*c.options).clone()))
                .collect(),
        }
    }
}

/// Writes `OPTIONS-NNNNNN` with the effective options under a fresh file number (numbers of
/// existing OPTIONS files are marked used first, so the newest file always has the highest
/// number, also after a crash that lost the MANIFEST's counter).
pub(super) fn write_options_file(inner: &DbInner) -> Result<PathBuf> {
    let file = inner.options_file();
    let number = {
        let mut st = inner.state.lock();
        if let Some(&max) = options_file_numbers(&*inner.fs, &inner.dir)?.last() {
            st.versions.mark_file_number_used(max);
        }
        st.versions.new_file_number()
    };
    file.write(&*inner.fs, &inner.dir, number)
}

impl DbInner {
    /// After a column family was created or dropped: logs `what` and rewrites the OPTIONS
    /// file, as RocksDB does. The change itself is already durable, so a failure to write the
    /// file is logged, not returned (the next open writes it again).
    pub(super) fn family_changed(&self, what: &str) {
        self.info_log.info(what);
        if let Err(e) = write_options_file(self) {
            self.info_log.log(
                crate::options::InfoLogLevel::Warn,
                &format!("writing the OPTIONS file after a column family change failed: {e}"),
            );
        }
    }
}

impl Db {
    /// The effective options of the database and its column families, as the OPTIONS file
    /// holds them.
    pub fn options_file(&self) -> OptionsFile {
        self.inner.options_file()
    }
}
