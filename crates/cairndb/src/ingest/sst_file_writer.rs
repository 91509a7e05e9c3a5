//! [`SstFileWriter`]: builds a table file outside any database, for bulk loading (RocksDB's
//! `SstFileWriter`; MyRocks bulk-loads tables and indexes this way).
//!
//! Who calls it: a user thread, one writer per file. The file is an ordinary table of the
//! column family's format and comparator (`docs/format/sstable.md`) whose entries all carry
//! sequence number 0; ingestion gives them their place in the database's history.
//!
//! Invariants:
//! 1. Point entries (`put`, `merge`, `delete`) are added in strictly increasing key order of the
//!    column family's comparator; a key out of order, or repeated, is `InvalidArgument` and
//!    changes nothing. Range deletions come in any order (the table sorts them).
//! 2. A call after an error, or after [`SstFileWriter::finish`], is refused.
//! 3. [`SstFileWriter::finish`] syncs the file; a writer dropped unfinished, or that failed,
//!    deletes what it wrote, as RocksDB's does.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::fs::{FileSystem, RealFs};
use crate::options::{CfOptions, DbOptions, Options};
use crate::sstable::{TableBuilder, TableOptions};
use crate::types::{make_internal_key, ValueKind};

/// What [`SstFileWriter::finish`] reports about the file (RocksDB's `ExternalSstFileInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalSstFileInfo {
    /// Where the file is.
    pub file_path: PathBuf,
    /// The smallest user key of a point entry or range deletion (empty for an empty file).
    pub smallest_key: Vec<u8>,
    /// The largest user key of a point entry, or the largest range deletion end (exclusive).
    pub largest_key: Vec<u8>,
    /// The file's size in bytes.
    pub file_size: u64,
    /// Point entries written.
    pub num_entries: u64,
    /// Range deletions written.
    pub num_range_del_entries: u64,
    /// The sequence number the entries carry: 0 until ingestion assigns one.
    pub sequence_number: u64,
}

/// Builds one table file for [`Db::ingest_external_file`](crate::Db::ingest_external_file).
/// See the module contract.
///
/// ```
/// use cairndb::options::Options;
/// use cairndb::SstFileWriter;
///
/// # fn main() -> cairndb::Result<()> {
/// let dir = tempfile::tempdir().expect("temporary directory");
/// let path = dir.path().join("bulk.sst");
/// let mut w = SstFileWriter::new(&Options::default());
/// w.open(&path)?;
/// w.put(b"apple", b"red")?;
/// w.put(b"banana", b"yellow")?;
/// let info = w.finish()?;
/// assert_eq!((info.num_entries, &info.largest_key[..]), (2, &b"banana"[..]));
/// # Ok(())
/// # }
/// ```
pub struct SstFileWriter {
    fs: Arc<dyn FileSystem>,
    options: TableOptions,
    order: KeyOrder,
    state: State,
}

enum State {
    /// No file open; `finished` is the size of the last file finished, if any.
    Idle {
        finished: u64,
    },
    Open {
        path: PathBuf,
        builder: Box<TableBuilder>,
        /// The last point key added.
        last: Option<Vec<u8>>,
        smallest: Option<Vec<u8>>,
        largest: Option<Vec<u8>>,
        entries: u64,
        range_dels: u64,
    },
    Failed,
}

impl std::fmt::Debug for SstFileWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = match &self.state {
            State::Idle { .. } => "idle",
            State::Open { .. } => "open",
            State::Failed => "failed",
        };
        f.debug_struct("SstFileWriter")
            .field("order", &self.order)
            .field("state", &state)
            .finish()
    }
}

impl SstFileWriter {
    /// A writer of tables for a database opened with `options` (its default column family's
    /// comparator, table options and compression), on the real file system.
    pub fn new(options: &Options) -> Self {
        Self::for_family(RealFs::shared(), &options.db, &options.cf)
    }

    /// A writer of tables for the column family of options `cf`, on file system `fs`.
    pub fn for_family(fs: Arc<dyn FileSystem>, db: &DbOptions, cf: &CfOptions) -> Self {
        let options = cf.table_options_for_output(db, 0, false);
        SstFileWriter {
            fs,
            order: cf.comparator.clone(),
            options,
            state: State::Idle { finished: 0 },
        }
    }

    /// Creates the file at `path` (which must not exist) and starts a table in it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a file is already open or the options do not validate;
    /// I/O errors creating the file (an existing file is an error, not overwritten).
    pub fn open(&mut self, path: impl AsRef<Path>) -> Result<()> {
        if !matches!(self.state, State::Idle { .. }) {
            return Err(Error::InvalidArgument(
                "SstFileWriter::open: a file is already open".into(),
            ));
        }
        let path = path.as_ref().to_path_buf();
        if self.fs.exists(&path)? {
            return Err(Error::InvalidArgument(format!(
                "SstFileWriter::open: {} exists",
                path.display()
            )));
        }
        let file = self.fs.create(&path)?;
        let builder = match TableBuilder::new(file, &path, &self.options) {
            Ok(b) => Box::new(b),
            Err(e) => {
                let _ = self.fs.remove(&path);
                return Err(e);
            }
        };
        self.state = State::Open {
            path,
            builder,
            last: None,
            smallest: None,
            largest: None,
            entries: 0,
            range_dels: 0,
        };
        Ok(())
    }

    /// Adds `key` -> `value`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when no file is open or `key` does not sort after the previous
    /// point key; an I/O error from the file (the writer is then failed).
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.add(key, ValueKind::Put, value)
    }

    /// Adds merge operand `value` for `key`.
    ///
    /// # Errors
    /// As [`SstFileWriter::put`].
    pub fn merge(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        self.add(key, ValueKind::Merge, value)
    }

    /// Adds a deletion of `key`.
    ///
    /// # Errors
    /// As [`SstFileWriter::put`].
    pub fn delete(&mut self, key: &[u8]) -> Result<()> {
        self.add(key, ValueKind::Delete, &[])
    }

    /// Adds a deletion of every key in `[begin, end)` (in any order relative to other calls).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when no file is open or `begin` sorts after `end`; as
    /// [`SstFileWriter::put`].
    pub fn delete_range(&mut self, begin: &[u8], end: &[u8]) -> Result<()> {
        let order = self.order.clone();
        let State::Open {
            builder,
            smallest,
            largest,
            range_dels,
            ..
        } = &mut self.state
        else {
            return Err(not_open());
        };
        if order.compare(begin, end).is_gt() {
            return Err(Error::InvalidArgument(
                "SstFileWriter::delete_range: the end key comes before the begin key".into(),
            ));
        }
        if begin == end {
            return Ok(());
        }
        builder.add_range_deletion(begin, end, 0)?;
        widen(&order, smallest, largest, begin, end);
        *range_dels += 1;
        Ok(())
    }

    /// Bytes written so far (RocksDB's `FileSize`): while a file is open, its data blocks (not
    /// yet the index, filter and properties); after `finish`, the finished file's size.
    pub fn file_size(&self) -> u64 {
        match &self.state {
            State::Open { builder, .. } => builder.estimated_file_size(),
            State::Idle { finished } => *finished,
            State::Failed => 0,
        }
    }

    /// Writes the index, filter, properties and footer, syncs the file and reports it. The
    /// writer is then idle and may open another file.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when no file is open or nothing was added (RocksDB refuses
    /// empty files too); I/O errors, after which the file is deleted.
    pub fn finish(&mut self) -> Result<ExternalSstFileInfo> {
        let state = std::mem::replace(&mut self.state, State::Idle { finished: 0 });
        let State::Open {
            path,
            builder,
            smallest,
            largest,
            entries,
            range_dels,
            ..
        } = state
        else {
            self.state = state;
            return Err(not_open());
        };
        let (Some(smallest), Some(largest)) = (smallest, largest) else {
            drop(builder);
            let _ = self.fs.remove(&path);
            return Err(Error::InvalidArgument(
                "SstFileWriter::finish: no entries were added".into(),
            ));
        };
        let built = match builder.finish() {
            Ok(b) => b,
            Err(e) => {
                let _ = self.fs.remove(&path);
                return Err(e);
            }
        };
        self.state = State::Idle {
            finished: built.file_size,
        };
        Ok(ExternalSstFileInfo {
            file_path: path,
            smallest_key: smallest,
            largest_key: largest,
            file_size: built.file_size,
            num_entries: entries,
            num_range_del_entries: range_dels,
            sequence_number: 0,
        })
    }

    fn add(&mut self, key: &[u8], kind: ValueKind, value: &[u8]) -> Result<()> {
        let order = self.order.clone();
        let State::Open {
            builder,
            last,
            smallest,
            largest,
            entries,
            ..
        } = &mut self.state
        else {
            return Err(not_open());
        };
        if last
            .as_deref()
            .is_some_and(|l| order.compare(l, key).is_ge())
        {
            return Err(Error::InvalidArgument(format!(
                "SstFileWriter: keys must be added in strictly increasing order ({} comparator); \
                 {key:02x?} after {:02x?}",
                order.name(),
                last.as_deref().unwrap_or_default()
            )));
        }
        let ikey = make_internal_key(key, 0, kind);
        if let Err(e) = builder.add(&ikey, value) {
            if !matches!(e, Error::InvalidArgument(_)) {
                self.fail();
            }
            return Err(e);
        }
        widen(&order, smallest, largest, key, key);
        *last = Some(key.to_vec());
        *entries += 1;
        Ok(())
    }

    /// An I/O error: the partial file goes, further calls are refused.
    fn fail(&mut self) {
        if let State::Open { path, .. } = std::mem::replace(&mut self.state, State::Failed) {
            let _ = self.fs.remove(&path);
        }
    }
}

impl Drop for SstFileWriter {
    /// A file never finished is deleted (invariant 3).
    fn drop(&mut self) {
        if let State::Open { path, .. } =
            std::mem::replace(&mut self.state, State::Idle { finished: 0 })
        {
            let _ = self.fs.remove(&path);
        }
    }
}

fn not_open() -> Error {
    Error::InvalidArgument("SstFileWriter: no file is open (call open first)".into())
}

/// Widens `[smallest, largest]` to hold `lo` and `hi` (user keys in `order`).
fn widen(
    order: &KeyOrder,
    smallest: &mut Option<Vec<u8>>,
    largest: &mut Option<Vec<u8>>,
    lo: &[u8],
    hi: &[u8],
) {
    if smallest
        .as_deref()
        .is_none_or(|s| order.compare(lo, s).is_lt())
    {
        *smallest = Some(lo.to_vec());
    }
    if largest
        .as_deref()
        .is_none_or(|l| order.compare(hi, l).is_gt())
    {
        *largest = Some(hi.to_vec());
    }
}
