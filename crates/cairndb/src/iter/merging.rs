//! The merging iterator: several sorted children seen as one sorted sequence (memtables and
//! tables under a user iterator, compaction inputs under a compaction).
//!
//! Who calls it: one thread at a time (contract 7 of [`crate::iter`]); it owns its children.
//!
//! Selection: the current entry is found by a linear scan over the children (the smallest key
//! forwards, the largest backwards) instead of a binary heap. A read sees a handful of children
//! (active and immutable memtables, L0 files, one iterator per deeper level), and for fewer than
//! about sixteen a scan of contiguous `valid()` checks and key comparisons costs no more than heap
//! sifts while needing no per-direction heap rebuild on a direction change. A compaction merging
//! hundreds of L0 files would want a heap; only `find_smallest`/`find_largest` would change.
//!
//! Direction changes follow LevelDB: the current child is already at the current key; every other
//! child is re-sought to the entry just past (forwards) or just before (backwards) the current
//! key, so that each child again sits at its next candidate in the new direction.
//!
//! Invariants:
//! 1. When valid, `current` names a valid child whose key is the smallest (forward) or largest
//!    (reverse) among the valid children; ties go to the lowest index.
//! 2. Forward: every valid child's key is >= the current key; reverse: <= it. Together with
//!    invariant 3 this makes them the next candidates.
//! 3. Children hold disjoint key sets (an internal key lives in exactly one memtable or table);
//!    with duplicates, a direction change may skip one copy.
//! 4. When any child reports an error, the iterator is invalid and `status()` returns that child's
//!    error until the next positioning call, which repositions (and so clears) every child.

use std::cmp::Ordering;
use std::fmt;

use super::InternalIterator;
use crate::comparator::{EntryOrder, KeyOrder};
use crate::error::Result;

/// A boxed child iterator.
pub type BoxedIterator = Box<dyn InternalIterator + Send>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Reverse,
}

/// Several sorted iterators merged into one. See the module contract.
pub struct MergingIterator {
    children: Vec<BoxedIterator>,
    cmp: EntryOrder,
    current: Option<usize>,
    direction: Direction,
    /// The child whose error stopped the iterator (invariant 4).
    failed: Option<usize>,
}

impl fmt::Debug for MergingIterator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MergingIterator")
            .field("children", &self.children.len())
            .field("current", &self.current)
            .field("direction", &self.direction)
            .field("failed", &self.failed)
            .finish()
    }
}

impl MergingIterator {
    /// Merges `children`, whose keys are internal keys, in internal-key order with user keys in
    /// `order`.
    pub fn new(children: Vec<BoxedIterator>, order: KeyOrder) -> Self {
        Self::with_comparator(children, EntryOrder::Internal(order))
    }

    /// Merges `children` ordered by `cmp` (also for iterators over plain keys, e.g. in tests).
    pub fn with_comparator(children: Vec<BoxedIterator>, cmp: EntryOrder) -> Self {
        MergingIterator {
            children,
            cmp,
            current: None,
            direction: Direction::Forward,
            failed: None,
        }
    }

    /// Number of children.
    pub fn num_children(&self) -> usize {
        self.children.len()
    }

    /// Applies a positioning call to every child, then selects the current entry.
    fn position_all(&mut self, dir: Direction, f: impl Fn(&mut BoxedIterator)) {
        self.failed = None;
        self.direction = dir;
        for c in &mut self.children {
            f(c);
        }
        for i in 0..self.children.len() {
            self.check(i);
        }
        self.select();
    }

    /// Records child `i`'s error, if it has one (invariant 4).
    fn check(&mut self, i: usize) {
        let c = &self.children[i];
        if self.failed.is_none() && !c.valid() && c.status().is_err() {
            self.failed = Some(i);
        }
    }

    fn select(&mut self) {
        self.current = match (self.failed, self.direction) {
            (Some(_), _) => None,
            (None, Direction::Forward) => self.find(Ordering::Less),
            (None, Direction::Reverse) => self.find(Ordering::Greater),
        };
    }

    /// The valid child whose key compares `better` than every other (first one on ties).
    fn find(&self, better: Ordering) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, c) in self.children.iter().enumerate() {
            if !c.valid() {
                continue;
            }
            match best {
                Some(b) if self.cmp.compare(c.key(), self.children[b].key()) != better => {}
                _ => best = Some(i),
            }
        }
        best
    }

    fn current_index(&self, call: &str) -> usize {
        match self.current {
            Some(i) => i,
            None => panic!("MergingIterator::{call} on an invalid iterator"),
        }
    }

    /// Re-seeks every child but the current one to its next candidate in `dir` (module doc).
    fn switch_direction(&mut self, cur: usize, dir: Direction) {
        let key = self.children[cur].key().to_vec();
        let cmp = &self.cmp;
        for (i, c) in self.children.iter_mut().enumerate() {
            if i == cur {
                continue;
            }
            match dir {
                Direction::Forward => c.seek(&key),
                Direction::Reverse => c.seek_for_prev(&key),
            }
            if c.valid() && cmp.compare(c.key(), &key) == Ordering::Equal {
                match dir {
                    Direction::Forward => c.next(),
                    Direction::Reverse => c.prev(),
                }
            }
        }
        self.direction = dir;
        for i in 0..self.children.len() {
            self.check(i);
        }
    }

    /// Moves the current child one step in `dir` and selects the next entry.
    fn step(&mut self, dir: Direction, call: &str) {
        let cur = self.current_index(call);
        if self.direction != dir {
            self.switch_direction(cur, dir);
        }
        match dir {
            Direction::Forward => self.children[cur].next(),
            Direction::Reverse => self.children[cur].prev(),
        }
        self.check(cur);
        self.select();
    }
}

impl InternalIterator for MergingIterator {
    fn valid(&self) -> bool {
        self.current.is_some()
    }

    fn seek_to_first(&mut self) {
        self.position_all(Direction::Forward, |c| c.seek_to_first());
    }

    fn seek_to_last(&mut self) {
        self.position_all(Direction::Reverse, |c| c.seek_to_last());
    }

    fn seek(&mut self, target: &[u8]) {
        self.position_all(Direction::Forward, |c| c.seek(target));
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        self.position_all(Direction::Reverse, |c| c.seek_for_prev(target));
    }

    fn next(&mut self) {
        self.step(Direction::Forward, "next");
    }

    fn prev(&mut self) {
        self.step(Direction::Reverse, "prev");
    }

    fn key(&self) -> &[u8] {
        self.children[self.current_index("key")].key()
    }

    fn value(&self) -> &[u8] {
        self.children[self.current_index("value")].value()
    }

    fn status(&self) -> Result<()> {
        match self.failed {
            Some(i) => self.children[i].status(),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::VecIter;

    /// A child over plain keys (sorted bytewise), optionally failing at one index.
    fn boxed(keys: &[&str], fail_at: Option<usize>) -> BoxedIterator {
        let entries = keys.iter().map(|k| (k.as_bytes().to_vec(), Vec::new()));
        let it = VecIter::with_comparator(entries.collect(), EntryOrder::Bytewise);
        Box::new(match fail_at {
            Some(i) => it.failing_at(i),
            None => it,
        })
    }

    fn collect(it: &mut MergingIterator) -> Vec<String> {
        let mut out = Vec::new();
        while it.valid() {
            out.push(String::from_utf8(it.key().to_vec()).expect("utf8"));
            it.next();
        }
        out
    }

    #[test]
    fn merges_and_switches_direction() {
        let children = vec![
            boxed(&["a", "d", "g"], None),
            boxed(&["b", "e"], None),
            boxed(&[], None),
            boxed(&["c", "f", "h"], None),
        ];
        let mut it = MergingIterator::with_comparator(children, EntryOrder::Bytewise);
        it.seek_to_first();
        assert_eq!(collect(&mut it), ["a", "b", "c", "d", "e", "f", "g", "h"]);
        it.seek(b"d");
        it.next();
        assert_eq!(it.key(), b"e");
        it.prev();
        assert_eq!(it.key(), b"d");
        it.prev();
        assert_eq!(it.key(), b"c");
        it.next();
        assert_eq!(it.key(), b"d");
        it.seek_for_prev(b"ee");
        assert_eq!(it.key(), b"e");
        it.seek_to_last();
        assert_eq!(it.key(), b"h");
        assert!(it.status().is_ok());
    }

    #[test]
    fn child_error_invalidates() {
        let children = vec![
            boxed(&["a", "c", "e"], Some(2)),
            boxed(&["b", "d", "f"], None),
        ];
        let mut it = MergingIterator::with_comparator(children, EntryOrder::Bytewise);
        it.seek_to_first();
        // The damaged child stops the merge as soon as it moves onto the damage, even though the
        // other child still has entries that sort before it: they cannot be told apart.
        assert_eq!(collect(&mut it), ["a", "b", "c"]);
        let e = it.status().expect_err("error surfaces");
        assert!(e.is_corruption());
        it.seek(b"a");
        assert!(it.valid() && it.status().is_ok(), "positioning clears it");
        it.seek(b"e");
        assert!(
            !it.valid() && it.status().is_err(),
            "seek landing on damage"
        );
    }
}
