//! Positioning over either rep, and the memtable's [`InternalIterator`].
//!
//! Who calls it: [`MemTable::get`](super::MemTable::get) through [`Source`] directly, and any
//! thread holding a [`MemTableIter`]. An iterator is a single-threaded object (`Send`, used by
//! one thread at a time) over a shared memtable; it never blocks writers.
//!
//! What it sees: over the skiplist, the live list, so entries inserted while it moves may or
//! may not appear (each step observes every entry published before it; the DB filters by
//! sequence number, so a snapshot read is unaffected). Over the vector rep, the sorted snapshot
//! taken when the iterator was created.
//!
//! Invariants:
//! 1. `Pos::Node` holds a node of the iterated list; `Pos::Index` an index below the snapshot's
//!    length; anything else is `Pos::Invalid`.
//! 2. The iterator holds an `Arc` of its memtable, so every node it can reach outlives it.

use std::cmp::Ordering;
use std::sync::Arc;

use super::node::NodePtr;
use super::skiplist::SkipList;
use super::{MemTable, Rep};
use crate::comparator::KeyOrder;
use crate::error::Result;
use crate::iter::InternalIterator;

/// What a cursor walks: a live skiplist or a sorted snapshot of the vector rep.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    List(&'a SkipList),
    /// A vector rep's sorted snapshot, and the order it is sorted in.
    Sorted(&'a [NodePtr], &'a KeyOrder),
}

/// A cursor position within a [`Source`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pos {
    Invalid,
    Node(NodePtr),
    Index(usize),
}

impl<'a> Source<'a> {
    /// The entry at `pos`, if valid.
    pub(crate) fn node(self, pos: Pos) -> Option<NodePtr> {
        match (self, pos) {
            (_, Pos::Node(n)) => Some(n),
            (Source::Sorted(v, _), Pos::Index(i)) => v.get(i).copied(),
            _ => None,
        }
    }

    /// The key and value at `pos`, borrowed for the life of the source.
    pub(crate) fn entry(self, pos: Pos) -> Option<(&'a [u8], &'a [u8])> {
        // SAFETY: nodes reachable from a source live in an arena borrowed for 'a.
        self.node(pos).map(|n| unsafe { (n.key(), n.value()) })
    }

    pub(crate) fn first(self) -> Pos {
        match self {
            Source::List(l) => node_pos(l.first()),
            Source::Sorted(v, _) => index_pos(v, 0),
        }
    }

    pub(crate) fn last(self) -> Pos {
        match self {
            Source::List(l) => node_pos(l.last()),
            Source::Sorted(v, _) => v.len().checked_sub(1).map_or(Pos::Invalid, Pos::Index),
        }
    }

    /// The first entry >= `target`.
    pub(crate) fn seek(self, target: &[u8]) -> Pos {
        match self {
            Source::List(l) => node_pos(l.seek(target)),
            Source::Sorted(v, o) => index_pos(v, partition(v, o, target, Ordering::Less)),
        }
    }

    /// The last entry <= `target`.
    pub(crate) fn seek_for_prev(self, target: &[u8]) -> Pos {
        match self {
            Source::List(l) => node_pos(l.seek_before(target, true)),
            Source::Sorted(v, o) => before(partition(v, o, target, Ordering::Equal)),
        }
    }

    pub(crate) fn next(self, pos: Pos) -> Pos {
        match (self, pos) {
            // SAFETY: `n` belongs to `l` (invariant 1).
            (Source::List(l), Pos::Node(n)) => node_pos(unsafe { l.next(n) }),
            (Source::Sorted(v, _), Pos::Index(i)) => index_pos(v, i + 1),
            _ => panic!("next on an unpositioned memtable cursor"),
        }
    }

    /// The previous entry: a fresh O(log n) search for the last key before the current one,
    /// since nodes have no backward links (LevelDB does the same).
    pub(crate) fn prev(self, pos: Pos) -> Pos {
        match (self, pos) {
            // SAFETY: `n` belongs to `l`, which is alive for 'a.
            (Source::List(l), Pos::Node(n)) => node_pos(l.seek_before(unsafe { n.key() }, false)),
            (Source::Sorted(..), Pos::Index(i)) => before(i),
            _ => panic!("prev on an unpositioned memtable cursor"),
        }
    }
}

fn node_pos(n: Option<NodePtr>) -> Pos {
    n.map_or(Pos::Invalid, Pos::Node)
}

fn index_pos(v: &[NodePtr], i: usize) -> Pos {
    if i < v.len() {
        Pos::Index(i)
    } else {
        Pos::Invalid
    }
}

/// The position before index `i`.
fn before(i: usize) -> Pos {
    i.checked_sub(1).map_or(Pos::Invalid, Pos::Index)
}

/// Number of leading entries whose comparison with `target` is at most `upto`
/// (`Less`: entries < target; `Equal`: entries <= target).
fn partition(v: &[NodePtr], order: &KeyOrder, target: &[u8], upto: Ordering) -> usize {
    // SAFETY: the snapshot's nodes live in the rep's arena, alive while the slice is borrowed.
    v.partition_point(|n| order.compare_internal(unsafe { n.key() }, target) <= upto)
}

/// Which of the memtable's two sorted collections an iterator walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Table {
    Points,
    RangeDeletions,
}

/// An [`InternalIterator`] over a memtable's point entries or its range deletions.
/// Keys are internal keys; values are the stored values (the end key for range deletions).
/// It never fails: `status()` is always `Ok`.
pub struct MemTableIter {
    mem: Arc<MemTable>,
    table: Table,
    /// The vector rep's sorted snapshot, taken at creation; `None` for skiplists.
    sorted: Option<Arc<[NodePtr]>>,
    pos: Pos,
}

impl std::fmt::Debug for MemTableIter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the snapshot's pointers: there may be millions.
        f.debug_struct("MemTableIter")
            .field("table", &self.table)
            .field("snapshot_len", &self.sorted.as_ref().map(|s| s.len()))
            .field("pos", &self.pos)
            .finish()
    }
}

impl MemTableIter {
    pub(crate) fn new(mem: Arc<MemTable>, table: Table) -> Self {
        let sorted = match (&mem.points, table) {
            (Rep::Vector(v), Table::Points) => Some(v.snapshot()),
            _ => None,
        };
        MemTableIter {
            mem,
            table,
            sorted,
            pos: Pos::Invalid,
        }
    }

    fn source(&self) -> Source<'_> {
        if let Some(v) = &self.sorted {
            return Source::Sorted(v, &self.mem.order);
        }
        match (&self.mem.points, self.table) {
            (Rep::SkipList(l), Table::Points) => Source::List(l),
            (_, Table::RangeDeletions) => Source::List(&self.mem.range_dels),
            (Rep::Vector(_), Table::Points) => unreachable!("vector iterators hold a snapshot"),
        }
    }

    fn current(&self) -> (&[u8], &[u8]) {
        self.source()
            .entry(self.pos)
            .expect("key/value on an invalid memtable iterator")
    }
}

impl InternalIterator for MemTableIter {
    fn valid(&self) -> bool {
        self.pos != Pos::Invalid
    }

    fn seek_to_first(&mut self) {
        self.pos = self.source().first();
    }

    fn seek_to_last(&mut self) {
        self.pos = self.source().last();
    }

    fn seek(&mut self, target: &[u8]) {
        self.pos = self.source().seek(target);
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        self.pos = self.source().seek_for_prev(target);
    }

    fn next(&mut self) {
        self.pos = self.source().next(self.pos);
    }

    fn prev(&mut self) {
        self.pos = self.source().prev(self.pos);
    }

    fn key(&self) -> &[u8] {
        self.current().0
    }

    fn value(&self) -> &[u8] {
        self.current().1
    }

    fn status(&self) -> Result<()> {
        Ok(())
    }
}
