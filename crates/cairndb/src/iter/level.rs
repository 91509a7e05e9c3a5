//! The level iterator: one sorted run of non-overlapping tables (a level L1+ of a version, or
//! the outputs of one compaction) as a single iterator that opens at most one table at a time,
//! lazily, when positioning or stepping reaches it.
//!
//! Who calls it: one thread at a time, as a child of a [`MergingIterator`](super::MergingIterator).
//! It owns the file list (shared `Arc`) and the one open table iterator; tables come from a
//! [`TableOpener`] (the table cache, in the DB), so that a read over a deep level with thousands
//! of files opens only the ones it touches.
//!
//! The file list is any [`SortedRun`]: an `Arc<[FileMetaData]>`, or (in the DB) a level of the
//! read's `Version` borrowed through its `Arc`, so that creating an iterator copies no file
//! metadata however many files the level holds (a user iterator is often created per seek).
//!
//! Invariants:
//! 1. `files` are sorted and disjoint: each file's `largest` sorts before the next file's
//!    `smallest` (internal-key order). The source guarantees it (a `Version` checks it when it is
//!    built); debug and `invariants` builds check it again at construction and panic on a
//!    violation. Release builds do not, so that constructing costs O(1), not O(files).
//! 2. When valid, `open` holds the iterator of file `open_index`, positioned at an entry; an
//!    exhausted file moves to the neighbouring file in the direction of travel, skipping empty
//!    ones.
//! 3. An error opening a table or reading it stops the iterator (`status()` returns it) until
//!    the next positioning call; no entry of a later file is returned first.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use super::merging::BoxedIterator;
use super::InternalIterator;
use crate::comparator::KeyOrder;
use crate::error::{Error, Result};
use crate::version::edit::FileMetaData;

/// Opens the iterator of one table file of a level (in the DB: through the table cache).
pub trait TableOpener: Send + Sync {
    /// An unpositioned iterator over the table `file`.
    ///
    /// # Errors
    /// I/O or corruption errors opening the table.
    fn open(&self, file: &FileMetaData) -> Result<BoxedIterator>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Reverse,
}

/// The files of one sorted run, in key order (module invariant 1), as a [`LevelIterator`] reads
/// them.
pub trait SortedRun: Send {
    /// The number of files.
    fn len(&self) -> usize;
    /// True when the run has no file.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// File `i`, for `i < len()`.
    fn file(&self, i: usize) -> &FileMetaData;
}

impl SortedRun for [FileMetaData] {
    fn len(&self) -> usize {
        <[FileMetaData]>::len(self)
    }
    fn file(&self, i: usize) -> &FileMetaData {
        &self[i]
    }
}

impl SortedRun for [Arc<FileMetaData>] {
    fn len(&self) -> usize {
        <[Arc<FileMetaData>]>::len(self)
    }
    fn file(&self, i: usize) -> &FileMetaData {
        &self[i]
    }
}

impl<R: SortedRun + Sync + ?Sized> SortedRun for Arc<R> {
    fn len(&self) -> usize {
        (**self).len()
    }
    fn file(&self, i: usize) -> &FileMetaData {
        (**self).file(i)
    }
}

/// Iterates the tables of one sorted run in order. See the module contract.
pub struct LevelIterator<R: SortedRun = Arc<[FileMetaData]>> {
    files: R,
    opener: Arc<dyn TableOpener>,
    /// The order of the files' user keys.
    order: KeyOrder,
    open_index: usize,
    open: Option<BoxedIterator>,
    err: Option<Error>,
}

impl<R: SortedRun> fmt::Debug for LevelIterator<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LevelIterator")
            .field("files", &self.files.len())
            .field("open_index", &self.open.as_ref().map(|_| self.open_index))
            .field("err", &self.err)
            .finish()
    }
}

impl<R: SortedRun> LevelIterator<R> {
    /// An unpositioned iterator over `files` of keys in `order`, opened through `opener`.
    ///
    /// # Panics
    /// In debug and `invariants` builds, if `files` are not sorted and disjoint by internal key
    /// (invariant 1).
    pub fn new(files: R, opener: Arc<dyn TableOpener>, order: KeyOrder) -> Self {
        #[cfg(any(debug_assertions, feature = "invariants"))]
        for i in 1..files.len() {
            let (a, b) = (files.file(i - 1), files.file(i));
            assert!(
                order.compare_internal(&a.largest, &b.smallest) == Ordering::Less,
                "LevelIterator: files {} and {} overlap or are out of order",
                a.number,
                b.number
            );
        }
        LevelIterator {
            files,
            opener,
            order,
            open_index: 0,
            open: None,
            err: None,
        }
    }

    /// Makes file `i` the open one (reusing it if it already is). False on error.
    fn open_file(&mut self, i: usize) -> bool {
        if self.open.is_some() && self.open_index == i {
            return true;
        }
        self.open = None;
        match self.opener.open(self.files.file(i)) {
            Ok(it) => {
                self.open = Some(it);
                self.open_index = i;
                true
            }
            Err(e) => {
                self.err = Some(e);
                false
            }
        }
    }

    /// Positions at file `i` with `position`, then moves across exhausted files in `dir`.
    fn position_at(&mut self, i: usize, dir: Direction, position: impl FnOnce(&mut BoxedIterator)) {
        self.err = None;
        if i >= self.files.len() || !self.open_file(i) {
            self.open = None;
            return;
        }
        if let Some(it) = self.open.as_mut() {
            position(it);
        }
        self.settle(dir);
    }

    /// Invariant 2: while the open table is exhausted without error, go to the neighbour in `dir`.
    fn settle(&mut self, dir: Direction) {
        loop {
            let Some(it) = self.open.as_ref() else { return };
            if it.valid() || it.status().is_err() {
                return;
            }
            let next = match dir {
                Direction::Forward => Some(self.open_index + 1).filter(|&i| i < self.files.len()),
                Direction::Reverse => self.open_index.checked_sub(1),
            };
            let Some(i) = next else {
                self.open = None;
                return;
            };
            if !self.open_file(i) {
                return;
            }
            if let Some(it) = self.open.as_mut() {
                match dir {
                    Direction::Forward => it.seek_to_first(),
                    Direction::Reverse => it.seek_to_last(),
                }
            }
        }
    }

    /// The first file whose largest key is >= `target` (`files.len()` if none).
    fn find_file(&self, target: &[u8]) -> usize {
        let (mut lo, mut hi) = (0, self.files.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self
                .order
                .compare_internal(&self.files.file(mid).largest, target)
                == Ordering::Less
            {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// The open table's iterator. Requires `valid()`, which is checked in debug builds only:
    /// `key` and `value` run once per entry of every scan, and an open table that is invalid
    /// answers empty slices rather than misbehaving.
    fn current(&self, call: &str) -> &BoxedIterator {
        debug_assert!(self.valid(), "LevelIterator::{call} on an invalid iterator");
        match self.open.as_ref() {
            Some(it) => it,
            None => panic!("LevelIterator::{call} on an invalid iterator"),
        }
    }
}

impl<R: SortedRun> InternalIterator for LevelIterator<R> {
    fn valid(&self) -> bool {
        self.err.is_none() && self.open.as_ref().is_some_and(|it| it.valid())
    }

    fn seek_to_first(&mut self) {
        self.position_at(0, Direction::Forward, |it| it.seek_to_first());
    }

    fn seek_to_last(&mut self) {
        let last = self.files.len().wrapping_sub(1);
        self.position_at(last, Direction::Reverse, |it| it.seek_to_last());
    }

    fn seek(&mut self, target: &[u8]) {
        let i = self.find_file(target);
        self.position_at(i, Direction::Forward, |it| it.seek(target));
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        // The file that could hold `target`; past every file's largest key, the last file.
        let i = self.find_file(target).min(self.files.len().wrapping_sub(1));
        self.position_at(i, Direction::Reverse, |it| it.seek_for_prev(target));
    }

    fn next(&mut self) {
        assert!(self.valid(), "LevelIterator::next on an invalid iterator");
        if let Some(it) = self.open.as_mut() {
            it.next();
        }
        self.settle(Direction::Forward);
    }

    fn prev(&mut self) {
        assert!(self.valid(), "LevelIterator::prev on an invalid iterator");
        if let Some(it) = self.open.as_mut() {
            it.prev();
        }
        self.settle(Direction::Reverse);
    }

    fn key(&self) -> &[u8] {
        self.current("key").key()
    }

    fn value(&self) -> &[u8] {
        self.current("value").value()
    }

    fn status(&self) -> Result<()> {
        if let Some(e) = &self.err {
            return Err(e.clone());
        }
        self.open.as_ref().map_or(Ok(()), |it| it.status())
    }
}
