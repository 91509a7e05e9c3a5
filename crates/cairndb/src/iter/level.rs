//! The level iterator: one sorted run of non-overlapping tables (a level L1+ of a version, or
//! the outputs of one compaction) as a single iterator that opens at most one table at a time,
//! lazily, when positioning or stepping reaches it.
//!
//! Who calls it: one thread at a time, as a child of a [`MergingIterator`](super::MergingIterator).
//! It owns the file list (shared `Arc`) and the one open table iterator; tables come from a
//! [`TableOpener`] (the table cache, in the DB), so that a read over a deep level with thousands
//! of files opens only the ones it touches.
//!
//! Invariants:
//! 1. `files` are sorted and disjoint: each file's `largest` sorts before the next file's
//!    `smallest` (internal-key order). The constructor checks it and panics on a violation (a bug
//!    in the version set).
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
use crate::error::{Error, Result};
use crate::types::compare_internal;
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

/// Iterates the tables of one sorted run in order. See the module contract.
pub struct LevelIterator {
    files: Arc<[FileMetaData]>,
    opener: Arc<dyn TableOpener>,
    open_index: usize,
    open: Option<BoxedIterator>,
    err: Option<Error>,
}

impl fmt::Debug for LevelIterator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LevelIterator")
            .field("files", &self.files.len())
            .field("open_index", &self.open.as_ref().map(|_| self.open_index))
            .field("err", &self.err)
            .finish()
    }
}

impl LevelIterator {
    /// An unpositioned iterator over `files`, opened through `opener`.
    ///
    /// # Panics
    /// If `files` are not sorted and disjoint by internal key (invariant 1).
    pub fn new(files: Arc<[FileMetaData]>, opener: Arc<dyn TableOpener>) -> Self {
        for w in files.windows(2) {
            assert!(
                compare_internal(&w[0].largest, &w[1].smallest) == Ordering::Less,
                "LevelIterator: files {} and {} overlap or are out of order",
                w[0].number,
                w[1].number
            );
        }
        LevelIterator {
            files,
            opener,
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
        match self.opener.open(&self.files[i]) {
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
        self.files
            .partition_point(|f| compare_internal(&f.largest, target) == Ordering::Less)
    }

    fn current(&self, call: &str) -> &BoxedIterator {
        match self.open.as_ref() {
            Some(it) if it.valid() => it,
            _ => panic!("LevelIterator::{call} on an invalid iterator"),
        }
    }
}

impl InternalIterator for LevelIterator {
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
