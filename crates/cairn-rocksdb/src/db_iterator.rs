//! Iterators: the raw cursor (`DBRawIterator`) and the Rust iterator over it (`DBIterator`).

use std::fmt;
use std::marker::PhantomData;

use crate::{DBAccess, Error, ReadOptions};

/// A raw iterator over a database.
pub type DBRawIterator<'a> = DBRawIteratorWithThreadMode<'a, crate::DB>;

/// A cursor over a database's (or snapshot's, or column family's) keys, which cannot outlive
/// the database.
pub struct DBRawIteratorWithThreadMode<'a, D: DBAccess> {
    /// The engine's iterator, or why it could not be made (refused read options).
    inner: Result<Cursor, Error>,
    /// Makes the engine's iterator (again, for `refresh`).
    maker: Maker<'a>,
    /// The read options; they also keep their snapshot registered while the iterator lives.
    readopts: ReadOptions,
    db: PhantomData<&'a D>,
}

/// Makes an engine iterator from read options.
pub(crate) type Maker<'a> = Box<dyn Fn(&ReadOptions) -> Result<Cursor, Error> + 'a>;

/// The engine's iterators: over a database, or over a transaction's writes laid over it.
// An iterator is made once per scan and then moved little; boxing the larger variant would add
// an allocation per transaction iterator to save a few hundred bytes of stack per database one.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Cursor {
    Db(cairndb::DbIter),
    Txn(cairndb::OwnedBaseDeltaIter),
}

/// `$e` on the cursor as `$i`, whichever kind it is.
macro_rules! each {
    ($c:expr, $i:ident => $e:expr) => {
        match $c {
            Cursor::Db($i) => $e,
            Cursor::Txn($i) => $e,
        }
    };
}

impl<D: DBAccess> fmt::Debug for DBRawIteratorWithThreadMode<'_, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DBRawIterator")
            .field("valid", &self.valid())
            .finish()
    }
}

impl<'a, D: DBAccess> DBRawIteratorWithThreadMode<'a, D> {
    pub(crate) fn new(maker: Maker<'a>, readopts: ReadOptions) -> Self {
        DBRawIteratorWithThreadMode {
            inner: maker(&readopts),
            maker,
            readopts,
            db: PhantomData,
        }
    }

    /// Makes the iterator see the database as it is now (as RocksDB's `Refresh()`, it leaves
    /// the read options' snapshot behind); the iterator must be positioned again.
    pub fn refresh(&mut self) -> Result<(), Error> {
        self.readopts.inner.snapshot = None;
        self.readopts.snapshot = None;
        self.inner = (self.maker)(&self.readopts);
        self.inner.as_ref().map(|_| ()).map_err(Error::clone)
    }

    /// Whether the iterator is at an entry.
    pub fn valid(&self) -> bool {
        self.inner.as_ref().is_ok_and(|c| each!(c, i => i.valid()))
    }

    /// The error that stopped the iterator, if any.
    pub fn status(&self) -> Result<(), Error> {
        match &self.inner {
            Ok(c) => Ok(each!(c, i => i.status())?),
            Err(e) => Err(e.clone()),
        }
    }

    /// Moves to the first key.
    pub fn seek_to_first(&mut self) {
        if let Ok(c) = &mut self.inner {
            each!(c, i => i.seek_to_first());
        }
    }

    /// Moves to the last key.
    pub fn seek_to_last(&mut self) {
        if let Ok(c) = &mut self.inner {
            each!(c, i => i.seek_to_last());
        }
    }

    /// Moves to the first key at or after `key`.
    pub fn seek<K: AsRef<[u8]>>(&mut self, key: K) {
        if let Ok(c) = &mut self.inner {
            each!(c, i => i.seek(key.as_ref()));
        }
    }

    /// Moves to the last key at or before `key`.
    pub fn seek_for_prev<K: AsRef<[u8]>>(&mut self, key: K) {
        if let Ok(c) = &mut self.inner {
            each!(c, i => i.seek_for_prev(key.as_ref()));
        }
    }

    /// Moves to the next key (the iterator must be valid).
    pub fn next(&mut self) {
        if let Ok(c) = &mut self.inner {
            each!(c, i => if i.valid() {
                i.next();
            });
        }
    }

    /// Moves to the previous key (the iterator must be valid).
    pub fn prev(&mut self) {
        if let Ok(c) = &mut self.inner {
            each!(c, i => if i.valid() {
                i.prev();
            });
        }
    }

    /// The current key.
    pub fn key(&self) -> Option<&[u8]> {
        self.item().map(|(k, _)| k)
    }

    /// The current value.
    pub fn value(&self) -> Option<&[u8]> {
        self.item().map(|(_, v)| v)
    }

    /// The current key's timestamp: CairnDB has no user-defined timestamps, so it is empty at
    /// every entry (as RocksDB's for a family without them), and `None` when not at one.
    pub fn timestamp(&self) -> Option<&[u8]> {
        self.item().map(|_| &[][..])
    }

    /// The current key and value.
    pub fn item(&self) -> Option<(&[u8], &[u8])> {
        match &self.inner {
            Ok(c) => each!(c, i => i.valid().then(|| (i.key(), i.value()))),
            Err(_) => None,
        }
    }
}

/// An iterator over a database.
pub type DBIterator<'a> = DBIteratorWithThreadMode<'a, crate::DB>;

/// The direction of a [`DBIteratorWithThreadMode`].
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub enum Direction {
    /// Ascending keys.
    Forward,
    /// Descending keys.
    Reverse,
}

/// A key and a value.
pub type KVBytes = (Box<[u8]>, Box<[u8]>);

/// Where a [`DBIteratorWithThreadMode`] starts.
#[derive(Debug, Copy, Clone)]
pub enum IteratorMode<'a> {
    /// At the first key, ascending.
    Start,
    /// At the last key, descending.
    End,
    /// At a key, in a direction (forward: the first key at or after it; reverse: the last at
    /// or before it).
    From(&'a [u8], Direction),
}

/// An iterator of `Result<(key, value), Error>` over a database, which ends after an error.
pub struct DBIteratorWithThreadMode<'a, D: DBAccess> {
    raw: DBRawIteratorWithThreadMode<'a, D>,
    direction: Direction,
    done: bool,
}

impl<D: DBAccess> fmt::Debug for DBIteratorWithThreadMode<'_, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DBIterator")
            .field("direction", &self.direction)
            .field("done", &self.done)
            .finish()
    }
}

impl<'a, D: DBAccess> DBIteratorWithThreadMode<'a, D> {
    pub(crate) fn new(raw: DBRawIteratorWithThreadMode<'a, D>, mode: IteratorMode<'_>) -> Self {
        let mut it = DBIteratorWithThreadMode {
            raw,
            direction: Direction::Forward,
            done: false,
        };
        it.set_mode(mode);
        it
    }

    /// Moves the iterator to `mode`'s position and direction.
    pub fn set_mode(&mut self, mode: IteratorMode<'_>) {
        self.done = false;
        self.direction = match mode {
            IteratorMode::Start => {
                self.raw.seek_to_first();
                Direction::Forward
            }
            IteratorMode::End => {
                self.raw.seek_to_last();
                Direction::Reverse
            }
            IteratorMode::From(key, Direction::Forward) => {
                self.raw.seek(key);
                Direction::Forward
            }
            IteratorMode::From(key, Direction::Reverse) => {
                self.raw.seek_for_prev(key);
                Direction::Reverse
            }
        };
    }

    /// Makes the iterator see the database as it is now, and moves it to `mode`.
    pub fn refresh(&mut self, mode: IteratorMode<'_>) -> Result<(), Error> {
        self.raw.refresh()?;
        self.set_mode(mode);
        Ok(())
    }
}

impl<D: DBAccess> Iterator for DBIteratorWithThreadMode<'_, D> {
    type Item = Result<KVBytes, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self
            .raw
            .item()
            .map(|(k, v)| (Box::<[u8]>::from(k), Box::<[u8]>::from(v)));
        match item {
            Some(kv) => {
                match self.direction {
                    Direction::Forward => self.raw.next(),
                    Direction::Reverse => self.raw.prev(),
                }
                Some(Ok(kv))
            }
            None => {
                self.done = true;
                self.raw.status().err().map(Err)
            }
        }
    }
}

impl<D: DBAccess> std::iter::FusedIterator for DBIteratorWithThreadMode<'_, D> {}

impl<'a, D: DBAccess> From<DBIteratorWithThreadMode<'a, D>> for DBRawIteratorWithThreadMode<'a, D> {
    fn from(it: DBIteratorWithThreadMode<'a, D>) -> Self {
        it.raw
    }
}

/// The write batches since a sequence number (`get_updates_since`), each with its first
/// sequence number, in order: as rust-rocksdb's, the batches that start after the requested
/// sequence number (see `cairndb::WalUpdates` for what the engine keeps: the WALs still in the
/// directory, which it does not delete while the iterator lives).
#[derive(Debug)]
pub struct DBWALIterator {
    pub(crate) inner: cairndb::WalUpdates,
    pub(crate) start_seq_number: u64,
    /// The error that ended the iteration, if any.
    pub(crate) error: Option<Error>,
    pub(crate) done: bool,
}

impl DBWALIterator {
    /// Whether the iterator may yield more batches (false once it ended or failed).
    pub fn valid(&self) -> bool {
        !self.done
    }

    /// The error that ended the iterator, if any.
    pub fn status(&self) -> Result<(), Error> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

impl Iterator for DBWALIterator {
    type Item = Result<(u64, crate::WriteBatch), Error>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            match self.inner.next() {
                Some(Ok((seq, batch))) if seq > self.start_seq_number => {
                    return Some(Ok((seq, crate::WriteBatch::from_engine(batch))))
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    let e = Error::from(e);
                    self.done = true;
                    self.error = Some(e.clone());
                    return Some(Err(e));
                }
                None => self.done = true,
            }
        }
        None
    }
}
