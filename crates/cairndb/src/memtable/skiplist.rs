//! A lock-free-read, concurrent-insert skiplist of internal keys in an arena.
//!
//! Who calls it: the memtable. Any number of threads may insert concurrently (each with its
//! own [`Splice`], or a shared one handed out under a lock); any number of threads may search
//! and iterate at the same time without taking any lock and without being blocked by writers.
//!
//! What it owns: the arena, and through it every node. Nodes are never removed or changed
//! after publication except for their tower links, so a pointer to a node stays valid for the
//! life of the list and a reader never needs a guard or an epoch.
//!
//! Insertion protocol (RocksDB's InlineSkipList with concurrent writes, written from the
//! algorithm): find the predecessor and successor at every level (the splice), build the node
//! with its links set to the successors, then link it bottom-up with one CAS per level on the
//! predecessor's link. A failed CAS means another writer linked something after the
//! predecessor at that level; the writer searches forward from the same predecessor (nodes
//! never move, so it is still smaller than the key) and retries. Linking level 0 is the
//! linearization point: from then on every reader that passes there sees the node.
//!
//! Memory orderings:
//! - Publication: the CAS that links a node is Release, every traversal load is Acquire, so a
//!   reader that obtains a node pointer sees the node's lengths, key, value and its link at that
//!   level as they were written before the CAS.
//! - A node's own links are stored Relaxed before it is linked (nothing can see them earlier).
//! - `max_height` is Relaxed: a reader that sees a stale smaller height starts lower, which is
//!   still correct; one that sees a larger height before any node is linked there finds null
//!   links in the head and descends.
//!
//! Insert cost at large sizes (the reason for this design). A search visits about
//! `log4(n)` levels and compares about 3.4 nodes per level (measured: 20 comparisons per random
//! insert at 4 Ki entries, 28 at 64 Ki; `insert_comparisons_scale_as_designed`). Going from a
//! 32 MiB to a 256 MiB memtable (≈ 220 Ki to 1.7 Mi entries of 16-byte keys and 100-byte values)
//! adds 1.5 levels, about 5 comparisons on top of about 31, so the comparison count grows by
//! ~17 %; the rest of the growth is cache misses on nodes no longer in cache, which no search
//! order avoids. What we do to keep each comparison and the number of them small:
//! - p = 1/4 (not 1/2): half the levels, fewer pointer chases, a third of the tower memory;
//!   about one more comparison per level.
//! - Each comparison first compares the node's cached 8-byte big-endian key prefix, stored in
//!   the node header next to the links just loaded; the full internal-key comparison runs only
//!   on a prefix tie (never, for db_bench's keys, whose first 8 bytes are the key number). The
//!   trade-off: 8 bytes per entry, and keys with long common prefixes (`user0000…`) gain nothing.
//! - A node already found not to be before the key at a higher level is not compared again
//!   when the search descends.
//! - The [`Splice`] remembers the search path of the previous insert of the same writer. A key
//!   right after the previous one (sequential keys, sorted batches) reuses it: 1 comparison per
//!   insert whatever the list size. Other keys pay one wasted comparison and search from the
//!   top ([`CLIMB_COMPARISONS`] explains the budget).
//! - Heights come from a per-thread xorshift generator and the arena's bump pointer is one
//!   `fetch_add`: no shared state besides the links themselves is written per insert.
//!
//! - While a node is compared, its successors on this level and the level below are
//!   prefetched (RocksDB's InlineSkipList does the same), so the next comparison's cache miss
//!   overlaps this one.
//!
//! Not done: per-core arena shards (see `arena.rs`).
//!
//! Invariants:
//! 1. At every level the linked nodes are in strictly increasing internal-key order; level `i`
//!    links a subset of level `i - 1`'s nodes.
//! 2. No two nodes have equal internal keys (an insert of an existing key fails).
//! 3. Every node reachable from the head is fully initialized (node invariant 1).

use std::cell::Cell;
#[cfg(not(loom))]
use std::collections::hash_map::RandomState;
#[cfg(not(loom))]
use std::hash::{BuildHasher, Hasher};

use std::cmp::Ordering;

use super::arena::Arena;
use super::node::{NodePtr, SearchKey};
use crate::comparator::KeyOrder;
use crate::util::sync::{AtomicUsize, Ordering as AtomicOrdering};

/// Highest tower. With p = 1/4, 16 levels serve 4^16 ≈ 4·10⁹ entries at full efficiency, far
/// beyond any memtable; unused levels cost nothing but the head's tower and splice slots.
pub const MAX_HEIGHT: usize = 16;

/// Successor comparisons `stale_levels` may spend climbing a splice before giving up on it and
/// searching from the top. Measured with `insert_comparisons_scale_as_designed` on random
/// 16-byte keys (fresh search: 20 comparisons per insert at 4 Ki entries, 28 at 64 Ki): a
/// budget of 3 cost about 3.5 extra comparisons per random insert, a budget of 1 about 1.5,
/// and sequential streams need only 1 (they append, or land right before `next[0]`). A key far
/// from the last one gains nothing from climbing, so we spend one comparison and stop.
const CLIMB_COMPARISONS: usize = 1;

/// A remembered search path: for each level below `height`, a node before the key of the last
/// insert (`prev`) and the node that followed it (`next`, `None` for the end of the list).
///
/// A splice is only a hint: it is re-validated before use, so a stale splice (other writers
/// inserted in between) costs comparisons, never correctness. It belongs to one list; using it
/// with another list resets it (checked through `owner`).
#[derive(Debug)]
pub(crate) struct Splice {
    owner: Option<NodePtr>,
    height: usize,
    prev: [Option<NodePtr>; MAX_HEIGHT + 1],
    next: [Option<NodePtr>; MAX_HEIGHT + 1],
}

impl Default for Splice {
    fn default() -> Self {
        Splice {
            owner: None,
            height: 0,
            prev: [None; MAX_HEIGHT + 1],
            next: [None; MAX_HEIGHT + 1],
        }
    }
}

/// The concurrent skiplist. See the module contract.
pub(crate) struct SkipList {
    arena: Arena,
    /// A node of height `MAX_HEIGHT` with an empty key; never compared.
    head: NodePtr,
    /// Height of the tallest tower ever linked (an upper bound: see the module's orderings).
    max_height: AtomicUsize,
    /// The order of the keys.
    order: KeyOrder,
}

impl std::fmt::Debug for SkipList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkipList")
            .field("max_height", &self.max_height.load(AtomicOrdering::Relaxed))
            .field("arena", &self.arena)
            .finish()
    }
}

impl SkipList {
    /// An empty list of keys in `order`, allocating from blocks of `block_size` bytes.
    pub(crate) fn new(block_size: usize, order: KeyOrder) -> Self {
        SkipList::with_huge_pages(block_size, 0, order)
    }

    /// As [`SkipList::new`], with the arena's blocks on huge pages of `huge_page_size` bytes
    /// (0: ordinary pages); see [`Arena::with_huge_pages`].
    pub(crate) fn with_huge_pages(
        block_size: usize,
        huge_page_size: usize,
        order: KeyOrder,
    ) -> Self {
        let arena = Arena::with_huge_pages(block_size, huge_page_size);
        let head = NodePtr::allocate(&arena, MAX_HEIGHT, b"", 0, b"");
        SkipList {
            arena,
            head,
            max_height: AtomicUsize::new(1),
            order,
        }
    }

    /// Bytes the list's arena has reserved.
    pub(crate) fn memory_usage(&self) -> usize {
        self.arena.memory_usage()
    }

    /// Inserts internal key `user_key ‖ trailer` with `value`, using and updating `splice`.
    /// Returns false, leaving the list unchanged, when that internal key is already present.
    /// Safe to call from many threads at once, each with its own splice.
    pub(crate) fn insert(
        &self,
        splice: &mut Splice,
        user_key: &[u8],
        trailer: u64,
        value: &[u8],
    ) -> bool {
        self.insert_with_height(splice, random_height(), user_key, trailer, value)
    }

    /// [`SkipList::insert`] with a tower of `height` links (1 to [`MAX_HEIGHT`]) instead of a
    /// random one, so that the loom models can choose which levels their inserts race on.
    pub(crate) fn insert_with_height(
        &self,
        splice: &mut Splice,
        height: usize,
        user_key: &[u8],
        trailer: u64,
        value: &[u8],
    ) -> bool {
        debug_assert!((1..=MAX_HEIGHT).contains(&height), "height {height}");
        let node = NodePtr::allocate(&self.arena, height, user_key, trailer, value);
        // SAFETY: the node is ours and fully written; the arena lives as long as `self`.
        let key = SearchKey::new(unsafe { node.key() }, &self.order);
        let max_height = self.raise_max_height(height);
        if splice.owner != Some(self.head) {
            *splice = Splice::default();
            splice.owner = Some(self.head);
        }
        let recompute = self.stale_levels(splice, &key, max_height);
        if recompute > 0 {
            self.recompute_splice(splice, &key, recompute);
        }
        if self.equals(splice.next[0], &key) {
            return false;
        }
        for level in 0..height {
            if !self.link_level(splice, node, &key, level) {
                return false;
            }
        }
        // The next key of a sequential stream comes after `node`: it is the new predecessor
        // at every level it was linked on; the successors stay valid upper bounds.
        for level in 0..height {
            splice.prev[level] = Some(node);
        }
        true
    }

    /// Links `node` at `level` between the splice's neighbours, retrying after lost races.
    /// Returns false only for a duplicate discovered at level 0 after a lost race.
    fn link_level(
        &self,
        splice: &mut Splice,
        node: NodePtr,
        key: &SearchKey<'_>,
        level: usize,
    ) -> bool {
        loop {
            let prev = splice.prev[level].expect("splice levels below height are set");
            // SAFETY: `node` was allocated with a height above `level` (we only link levels
            // below its height); `prev` is the head or a node linked at `level`, hence tall
            // enough; both live in our arena.
            unsafe {
                node.set_next_relaxed(level, splice.next[level]);
                if prev.cas_next(level, splice.next[level], node) {
                    return true;
                }
            }
            // Somebody linked a node after `prev` at this level; search on from `prev`, which
            // is still before our key (invariant 1, nodes never move).
            let (p, n) = self.find_splice_for_level(key, prev, None, level);
            splice.prev[level] = Some(p);
            splice.next[level] = n;
            if level == 0 && self.equals(n, key) {
                return false;
            }
        }
    }

    /// Raises `max_height` to at least `height`; returns the resulting height.
    fn raise_max_height(&self, height: usize) -> usize {
        let mut current = self.max_height.load(AtomicOrdering::Relaxed);
        while height > current {
            match self.max_height.compare_exchange_weak(
                current,
                height,
                AtomicOrdering::Relaxed,
                AtomicOrdering::Relaxed,
            ) {
                Ok(_) => return height,
                Err(seen) => current = seen,
            }
        }
        current
    }

    /// The number of low levels of `splice` that must be recomputed for `key`: 0 when level 0
    /// already brackets it tightly, `max_height` when nothing can be reused. Resets a splice
    /// that is lower than the list so that its top level is head..end.
    ///
    /// Only a key after the remembered path (after `prev[0]`, the last node this splice
    /// inserted) reuses it: then every `prev[i] <= prev[0]` is before the key for free and only
    /// successors need comparing (within [`CLIMB_COMPARISONS`]). A key before it costs one
    /// wasted comparison and a search from the top; checking predecessors level by level as
    /// well made random inserts about 15 % dearer.
    fn stale_levels(&self, splice: &mut Splice, key: &SearchKey<'_>, max_height: usize) -> usize {
        if splice.height < max_height {
            splice.prev[max_height] = Some(self.head);
            splice.next[max_height] = None;
            splice.height = max_height;
            return max_height;
        }
        let last = splice.prev[0].expect("set below height");
        if last != self.head && !self.is_before(Some(last), key) {
            return max_height;
        }
        let mut level = 0;
        let mut budget = CLIMB_COMPARISONS;
        while level < max_height {
            let prev = splice.prev[level].expect("set below height");
            let next = splice.next[level];
            // SAFETY: `prev` is the head or a node linked at `level` of this list.
            if unsafe { prev.next(level) } != next {
                // Others inserted between the remembered neighbours: try a wider level rather
                // than walk an unknown distance.
                level += 1;
            } else if self.is_before(next, key) {
                // The key is after the splice here: climb, skipping the levels that share this
                // successor, unless the key is evidently far away (then the top is cheaper).
                budget -= 1;
                if budget == 0 {
                    return max_height;
                }
                while level < max_height && splice.next[level] == next {
                    level += 1;
                }
            } else {
                break; // prev < key <= next, tightly: reuse this level and those above.
            }
        }
        level
    }

    /// Recomputes levels `0..top` of `splice` top-down, each starting from the level above.
    fn recompute_splice(&self, splice: &mut Splice, key: &SearchKey<'_>, top: usize) {
        for level in (0..top).rev() {
            let before = splice.prev[level + 1].expect("level above is set");
            let after = splice.next[level + 1];
            let (p, n) = self.find_splice_for_level(key, before, after, level);
            splice.prev[level] = Some(p);
            splice.next[level] = n;
        }
    }

    /// Walks `level` from `before` (known to be before `key`) to the last node before `key`,
    /// stopping early at `after` (known not to be before `key`, so not compared again).
    fn find_splice_for_level(
        &self,
        key: &SearchKey<'_>,
        mut before: NodePtr,
        after: Option<NodePtr>,
        level: usize,
    ) -> (NodePtr, Option<NodePtr>) {
        loop {
            // SAFETY: `before` is the head or linked at `level` (we reached it at this level or
            // above), so it has a link at `level`.
            let next = unsafe { before.next(level) };
            if let Some(n) = next.filter(|&n| Some(n) != after) {
                // While `n` is compared, fetch the nodes compared next: its successor on this
                // level, or (if the search descends at `n`'s predecessor) nothing new, and on
                // the level below, the node after `n` there (RocksDB's FindSpliceForLevel does
                // the same).
                // SAFETY: `n` was reached at `level`, so it is published and has links at
                // `level` and below.
                unsafe {
                    if let Some(nn) = n.next(level) {
                        nn.prefetch();
                    }
                    if level > 0 {
                        if let Some(nb) = n.next(level - 1) {
                            nb.prefetch();
                        }
                    }
                }
            }
            if next == after || !self.is_before(next, key) {
                return (before, next);
            }
            before = next.expect("is_before(None) is false");
        }
    }

    /// True when `node` exists and its key sorts before `key`.
    #[inline]
    fn is_before(&self, node: Option<NodePtr>, key: &SearchKey<'_>) -> bool {
        // SAFETY: nodes handed around by the list are published (or our own) and live in our
        // arena, which `&self` keeps alive.
        node.is_some_and(|n| unsafe { n.cmp(key) } == Ordering::Less)
    }

    #[inline]
    fn equals(&self, node: Option<NodePtr>, key: &SearchKey<'_>) -> bool {
        // SAFETY: as in `is_before`.
        node.is_some_and(|n| unsafe { n.cmp(key) } == Ordering::Equal)
    }

    /// The first node whose key is >= `target`, or `None`.
    pub(crate) fn seek(&self, target: &[u8]) -> Option<NodePtr> {
        let key = SearchKey::new(target, &self.order);
        let mut x = self.head;
        let mut level = self.max_height.load(AtomicOrdering::Relaxed) - 1;
        // A node found not before the key one level up; reaching it again needs no comparison.
        let mut known_not_before = None;
        loop {
            // SAFETY: `x` is the head or was reached at `level` or above.
            let next = unsafe { x.next(level) };
            if next != known_not_before {
                if let Some(n) = next {
                    // SAFETY: published node of our arena.
                    match unsafe { n.cmp(&key) } {
                        Ordering::Less => {
                            x = n;
                            continue;
                        }
                        Ordering::Equal => return next,
                        Ordering::Greater => {}
                    }
                }
            }
            if level == 0 {
                return next;
            }
            known_not_before = next;
            level -= 1;
        }
    }

    /// The last node whose key is < `target` (or <= `target` when `inclusive`), or `None`.
    pub(crate) fn seek_before(&self, target: &[u8], inclusive: bool) -> Option<NodePtr> {
        let key = SearchKey::new(target, &self.order);
        let limit = if inclusive {
            Ordering::Equal
        } else {
            Ordering::Less
        };
        let mut x = self.head;
        let mut level = self.max_height.load(AtomicOrdering::Relaxed) - 1;
        let mut known_not_before = None;
        loop {
            // SAFETY: `x` is the head or was reached at `level` or above.
            let next = unsafe { x.next(level) };
            if next != known_not_before {
                if let Some(n) = next {
                    // SAFETY: published node of our arena.
                    if unsafe { n.cmp(&key) } <= limit {
                        x = n;
                        continue;
                    }
                }
            }
            if level == 0 {
                return (x != self.head).then_some(x);
            }
            known_not_before = next;
            level -= 1;
        }
    }

    /// The first node, or `None` for an empty list.
    pub(crate) fn first(&self) -> Option<NodePtr> {
        // SAFETY: the head has MAX_HEIGHT links.
        unsafe { self.head.next(0) }
    }

    /// The last node, or `None` for an empty list.
    pub(crate) fn last(&self) -> Option<NodePtr> {
        let mut x = self.head;
        let mut level = self.max_height.load(AtomicOrdering::Relaxed) - 1;
        loop {
            // SAFETY: `x` is the head or was reached at `level` or above.
            match unsafe { x.next(level) } {
                Some(n) => x = n,
                None if level == 0 => return (x != self.head).then_some(x),
                None => level -= 1,
            }
        }
    }

    /// The node after `node` at level 0.
    ///
    /// # Safety
    /// `node` must belong to this list (returned by one of its methods).
    pub(crate) unsafe fn next(&self, node: NodePtr) -> Option<NodePtr> {
        // SAFETY: every node of the list has at least one level.
        unsafe { node.next(0) }
    }
}

#[cfg(not(loom))]
thread_local! {
    // xorshift64: a per-thread generator of tower heights, so drawing a height touches no
    // shared cache line. Seeded from std's per-thread random hasher keys; never zero.
    static HEIGHT_STATE: Cell<u64> = Cell::new(RandomState::new().build_hasher().finish() | 1);
}

/// Seeds this thread's tower heights, so that a test measuring the list's shape (comparison
/// counts) sees the same towers on every run.
#[cfg(all(test, not(loom)))]
fn seed_heights(seed: u64) {
    HEIGHT_STATE.with(|s| s.set(seed | 1));
}

/// Under loom the heights are a fixed sequence already.
#[cfg(all(test, loom))]
fn seed_heights(_seed: u64) {}

/// A tower height with P(height > h) = 4^-h, capped at [`MAX_HEIGHT`].
fn random_height() -> usize {
    #[cfg(not(loom))]
    use HEIGHT_STATE as STATE;
    // Under loom every execution of a model must take the same steps for the same schedule,
    // so each loom thread draws the same fixed sequence of heights.
    #[cfg(loom)]
    loom::thread_local! {
        static STATE: Cell<u64> = Cell::new(0x9e37_79b9_7f4a_7c15);
    }
    let r = STATE.with(|s| {
        let mut x = s.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        s.set(x);
        x
    });
    // Each pair of zero low bits (probability 1/4) adds a level.
    (1 + (r.trailing_zeros() / 2) as usize).min(MAX_HEIGHT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comparator::KeyOrder;
    use crate::memtable::node::counters;
    use crate::types::{make_internal_key, pack_trailer, ValueKind};

    fn ikey(user: &[u8], seq: u64) -> Vec<u8> {
        make_internal_key(user, seq, ValueKind::Put)
    }

    fn collect(list: &SkipList) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut n = list.first();
        while let Some(node) = n {
            // SAFETY: nodes of `list`, which is alive.
            out.push(unsafe { node.key() }.to_vec());
            // SAFETY: as above.
            n = unsafe { list.next(node) };
        }
        out
    }

    #[test]
    fn heights_follow_a_quarter_branching() {
        // Under Miri (which checks the unsafe code, slowly) fewer draws: 20 % and 30 % are
        // still 7 standard deviations from the mean 25 % at 4,000.
        let n = if cfg!(miri) { 4_000 } else { 100_000 };
        let tall = (0..n).filter(|_| random_height() >= 2).count();
        assert!(
            (n / 5..n * 3 / 10).contains(&tall),
            "{tall} of {n} have height >= 2"
        );
        assert!((0..n).all(|_| (1..=MAX_HEIGHT).contains(&random_height())));
    }

    #[test]
    fn inserts_in_any_order_come_out_sorted_and_duplicates_fail() {
        let list = SkipList::new(4096, KeyOrder::BYTEWISE);
        let mut splice = Splice::default();
        let mut expected = Vec::new();
        // Ascending, descending and scattered runs exercise every splice path.
        let keys: Vec<u32> = (0..300)
            .chain((300..600).rev())
            .chain((0..300).map(|i| 600 + (i * 7919) % 300))
            .collect();
        for k in keys {
            let user = k.to_be_bytes();
            assert!(list.insert(&mut splice, &user, pack_trailer(5, 2), b"v"));
            expected.push(ikey(&user, 5));
        }
        assert!(!list.insert(&mut splice, &7u32.to_be_bytes(), pack_trailer(5, 2), b"x"));
        assert!(!list.insert(
            &mut Splice::default(),
            &7u32.to_be_bytes(),
            pack_trailer(5, 2),
            b"x"
        ));
        expected.sort_by(|a, b| crate::test_util::compare_internal(a, b));
        assert_eq!(collect(&list), expected);
        let last = list.last().expect("non-empty");
        // SAFETY: node of `list`.
        assert_eq!(unsafe { last.key() }, &expected[expected.len() - 1][..]);
    }

    #[test]
    fn searches_find_neighbours() {
        let list = SkipList::new(4096, KeyOrder::BYTEWISE);
        let mut splice = Splice::default();
        for k in (0..100u32).map(|k| k * 2) {
            list.insert(&mut splice, &k.to_be_bytes(), pack_trailer(1, 2), b"");
        }
        let at = |n: Option<NodePtr>| {
            // SAFETY: nodes of `list`.
            n.map(|n| u32::from_be_bytes(unsafe { n.key() }[..4].try_into().expect("4")))
        };
        assert_eq!(at(list.seek(&ikey(&7u32.to_be_bytes(), 1))), Some(8));
        assert_eq!(at(list.seek(&ikey(&8u32.to_be_bytes(), 1))), Some(8));
        assert_eq!(at(list.seek(&ikey(&8u32.to_be_bytes(), 0))), Some(10));
        assert_eq!(at(list.seek(&ikey(&199u32.to_be_bytes(), 1))), None);
        assert_eq!(
            at(list.seek_before(&ikey(&8u32.to_be_bytes(), 1), false)),
            Some(6)
        );
        assert_eq!(
            at(list.seek_before(&ikey(&0u32.to_be_bytes(), 1), false)),
            None
        );
        assert_eq!(
            at(list.seek_before(&ikey(&8u32.to_be_bytes(), 1), true)),
            Some(8)
        );
        assert_eq!(at(list.last()), Some(198));
        assert_eq!(
            at(list.seek(b"")),
            Some(0),
            "short targets compare bytewise"
        );
    }

    #[test]
    fn a_splice_from_another_list_is_reset() {
        let a = SkipList::new(4096, KeyOrder::BYTEWISE);
        let b = SkipList::new(4096, KeyOrder::BYTEWISE);
        let mut splice = Splice::default();
        for k in 0..50u32 {
            assert!(a.insert(&mut splice, &k.to_be_bytes(), 1 << 8 | 2, b""));
            assert!(b.insert(&mut splice, &k.to_be_bytes(), 1 << 8 | 2, b""));
        }
        assert_eq!(collect(&a), collect(&b));
        assert_eq!(collect(&a).len(), 50);
    }

    /// Inserts `keys` with one splice; returns the comparisons per insert.
    fn comparisons_per_insert(list: &SkipList, splice: &mut Splice, keys: &[[u8; 16]]) -> f64 {
        counters::take();
        for k in keys {
            assert!(list.insert(splice, k, pack_trailer(1, 2), b"value"));
        }
        counters::take().0 as f64 / keys.len() as f64
    }

    fn random_keys(n: usize, seed: u64) -> Vec<[u8; 16]> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                let mut k = [0u8; 16];
                for half in k.chunks_mut(8) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    half.copy_from_slice(&x.to_be_bytes());
                }
                k
            })
            .collect()
    }

    /// The splice makes ascending inserts cost a constant number of comparisons, whatever the
    /// list's size; random inserts grow with log4 n only, and the prefix decides nearly every
    /// comparison of random 16-byte keys.
    ///
    /// Under Miri the same inserts run at a 64th of the sizes (Miri checks the unsafe code,
    /// not the cost), and the log4 growth of random inserts, only measurable on large lists, is
    /// not asserted.
    #[test]
    fn insert_comparisons_scale_as_designed() {
        // Fixed towers: with heights drawn afresh, one run in many hundreds exceeded the
        // random-insert bound below (34.9 against 19.7 comparisons).
        seed_heights(0x5eed_cafe);
        let d = if cfg!(miri) { 64 } else { 1 };
        let list = SkipList::new(1 << 20, KeyOrder::BYTEWISE);
        let mut splice = Splice::default();
        let seq: Vec<[u8; 16]> = (0..40_000 / d as u64)
            .map(|i| {
                let mut k = [0u8; 16];
                k[8..].copy_from_slice(&i.to_be_bytes()); // equal prefixes: full compares
                k
            })
            .collect();
        let early = comparisons_per_insert(&list, &mut splice, &seq[..2000 / d]);
        comparisons_per_insert(&list, &mut splice, &seq[2000 / d..38_000 / d]);
        let late = comparisons_per_insert(&list, &mut splice, &seq[38_000 / d..]);
        assert!(
            late < 4.0 && late < early + 1.0,
            "sequential: {early} then {late}"
        );

        let list = SkipList::new(1 << 20, KeyOrder::BYTEWISE);
        let mut splice = Splice::default();
        let keys = random_keys(64_000 / d, 42);
        comparisons_per_insert(&list, &mut splice, &keys[..3000 / d]);
        let small = comparisons_per_insert(&list, &mut splice, &keys[3000 / d..4000 / d]);
        comparisons_per_insert(&list, &mut splice, &keys[4000 / d..63_000 / d]);
        counters::take();
        let large = comparisons_per_insert(&list, &mut splice, &keys[63_000 / d..]);
        // log4(64k) / log4(4k) = 8 / 6: allow for the randomness of tower heights.
        if !cfg!(miri) {
            assert!(large / small < 1.7, "random: {small} at 4k, {large} at 64k");
        }

        counters::take();
        let list = SkipList::new(1 << 20, KeyOrder::BYTEWISE);
        for k in &keys[..20_000 / d] {
            list.insert(&mut splice, k, pack_trailer(1, 2), b"v");
        }
        let (all, full) = counters::take();
        let full_fraction = full as f64 / all as f64;
        assert!(
            full_fraction < 0.01,
            "prefix undecided in {full_fraction} of comparisons"
        );
    }
}
