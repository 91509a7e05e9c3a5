//! The layout of one memtable entry in the arena, and the cheap key comparison.
//!
//! ```text
//!   tower (height × 8 bytes)
//! +-------------+-----+----------+---------------+--------------+-----------------+-------+
//! | next[h-1]   | ... | next[0]  | varint32 klen | internal key | varint32 vlen   | value |
//! +-------------+-----+----------+---------------+--------------+-----------------+-------+
//!                                ^ NodePtr points here
//! ```
//!
//! The tower sits *below* the data (RocksDB's InlineSkipList does the same), so the key starts
//! right after its length whatever the height, and a vector-rep entry is simply a node of
//! height 0. The lengths are varints, as in RocksDB's memtable entries: for keys and values
//! under 128 bytes the two take 2 bytes, where two `u32`s took 8 and, with the allocation
//! rounded to 8 bytes, made a 16-byte key and 100-byte value entry 8 bytes (6%) longer, so a
//! memtable held fewer entries and flushed more often per byte written.
//! A node's *prefix* is the first 8 bytes of its user key, big-endian, zero-padded: comparing two
//! such integers orders keys exactly as a bytewise comparison of those bytes would (a shorter key
//! pads with zeros, and a key that is a proper prefix of another sorts first either way), so most
//! comparisons during a search are one integer compare on the node's first cache line, with no
//! call into `memcmp`. Only equal prefixes fall back to the full internal-key comparison. The
//! prefix is read from the key's first 8 bytes (an internal key has at least its 8-byte trailer)
//! and masked to the user key's length, not stored: storing it cost 8 bytes per entry, about 5%
//! of a 100-byte entry, and so 5% more flushes per byte written (`write_buffer_size` counts
//! arena bytes, as in RocksDB).
//!
//! Who calls it: the skiplist and the vector rep, which own the arena the nodes live in.
//!
//! Invariants:
//! 1. A node is fully written (lengths, key, value, tower initialized to null) before any other
//!    thread can obtain its pointer; after publication only the tower links change, atomically.
//! 2. A `NodePtr` is only dereferenced while the arena that holds it is alive; all accesses go
//!    through raw pointers derived from the arena block, never through a `&Node` spanning the
//!    first byte alone, so reading the key, value and tower stays within the block's provenance.

use super::arena::Arena;
use crate::comparator::KeyOrder;
use crate::types::TRAILER_LEN;
use crate::util::coding::varint_len;
use crate::util::sync::{AtomicPtr, Ordering as AtomicOrdering};
use std::cmp::Ordering;
use std::ptr::{self, NonNull};

/// The first byte of a node's data (its key length); the tower is below it. Opaque: a node is
/// read through byte offsets from its pointer.
#[repr(C)]
pub(crate) struct Node {
    _first: u8,
}

const LINK_LEN: usize = std::mem::size_of::<AtomicPtr<Node>>();

/// A pointer to a published (or being-built) node. Copyable; carries no lifetime, so every
/// method that reads through it is `unsafe` and requires the arena to be alive.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct NodePtr(NonNull<Node>);

// SAFETY: a NodePtr is an address into an arena. The bytes it reaches are immutable after
// publication except the tower links, which are atomics; so sending or sharing the pointer
// between threads is sound. Liveness is the holder's obligation (every deref is `unsafe`).
unsafe impl Send for NodePtr {}
// SAFETY: as above.
unsafe impl Sync for NodePtr {}

/// The first 8 bytes of `user_key` as a big-endian integer, zero-padded.
#[inline]
pub(crate) fn key_prefix(user_key: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = user_key.len().min(8);
    b[..n].copy_from_slice(&user_key[..n]);
    u64::from_be_bytes(b)
}

impl NodePtr {
    /// Allocates and fills a node of `height` links for internal key `user_key ‖ trailer`.
    /// The node is unpublished: only the caller holds the pointer.
    ///
    /// # Panics
    /// If the internal key or the value does not fit in 32 bits (callers enforce far smaller
    /// limits).
    pub(crate) fn allocate(
        arena: &Arena,
        height: usize,
        user_key: &[u8],
        trailer: u64,
        value: &[u8],
    ) -> NodePtr {
        let key_len = u32::try_from(user_key.len() + TRAILER_LEN).expect("key fits u32");
        let value_len = u32::try_from(value.len()).expect("value fits u32");
        let tower = height * LINK_LEN;
        let size = tower
            + varint_len(u64::from(key_len))
            + key_len as usize
            + varint_len(u64::from(value_len))
            + value.len();
        let base = arena.allocate(size).as_ptr();
        // SAFETY: `base` points at `size` fresh bytes owned by us, 8-byte aligned (arena
        // invariant 1); `tower` is a multiple of 8, so every link is aligned. All writes stay
        // inside the allocation: links below the node pointer, then the two lengths and the
        // bytes they measure, `size` bytes in all.
        unsafe {
            let node = base.add(tower);
            for level in 0..height {
                let link = node.sub((level + 1) * LINK_LEN);
                link.cast::<AtomicPtr<Node>>()
                    .write(AtomicPtr::new(ptr::null_mut()));
            }
            let mut at = node.add(write_varint(node, key_len));
            ptr::copy_nonoverlapping(user_key.as_ptr(), at, user_key.len());
            at = at.add(user_key.len());
            ptr::copy_nonoverlapping(trailer.to_le_bytes().as_ptr(), at, TRAILER_LEN);
            at = at.add(TRAILER_LEN);
            at = at.add(write_varint(at, value_len));
            ptr::copy_nonoverlapping(value.as_ptr(), at, value.len());
            NodePtr(NonNull::new_unchecked(node.cast::<Node>()))
        }
    }

    /// Wraps a pointer loaded from a link.
    #[inline]
    fn from_raw(p: *mut Node) -> Option<NodePtr> {
        NonNull::new(p).map(NodePtr)
    }

    #[inline]
    fn as_raw(self) -> *mut Node {
        self.0.as_ptr()
    }

    /// The node's internal key.
    ///
    /// # Safety
    /// The arena holding the node must outlive `'a`, and the node must have been fully written
    /// (it was published, or the caller built it).
    #[inline]
    pub(crate) unsafe fn key<'a>(self) -> &'a [u8] {
        // SAFETY: per the caller's contract the key's length and the bytes it counts are
        // initialized and live for 'a.
        unsafe {
            let p = self.as_raw().cast::<u8>();
            let (len, n) = read_varint(p);
            std::slice::from_raw_parts(p.add(n), len)
        }
    }

    /// The node's value.
    ///
    /// # Safety
    /// As [`NodePtr::key`].
    #[inline]
    pub(crate) unsafe fn value<'a>(self) -> &'a [u8] {
        // SAFETY: as in `key`; the value's length and the value follow the key inside the
        // same allocation.
        unsafe {
            let p = self.as_raw().cast::<u8>();
            let (key_len, n) = read_varint(p);
            let at = p.add(n + key_len);
            let (len, m) = read_varint(at);
            std::slice::from_raw_parts(at.add(m), len)
        }
    }

    /// The link at `level`.
    ///
    /// # Safety
    /// The node must be alive for `'a` and have been allocated with a height above `level`.
    #[inline]
    unsafe fn link<'a>(self, level: usize) -> &'a AtomicPtr<Node> {
        // SAFETY: the caller guarantees `level < height`, so the link lies inside the node's
        // allocation, below the data, and was initialized by `allocate`.
        unsafe {
            &*self
                .as_raw()
                .cast::<u8>()
                .sub((level + 1) * LINK_LEN)
                .cast::<AtomicPtr<Node>>()
        }
    }

    /// The successor at `level`, with Acquire ordering: it pairs with the Release CAS that
    /// published the successor, so its lengths, key and value are visible to us.
    ///
    /// # Safety
    /// As [`NodePtr::link`].
    #[inline]
    pub(crate) unsafe fn next(self, level: usize) -> Option<NodePtr> {
        // SAFETY: forwarded contract.
        let link = unsafe { self.link(level) };
        NodePtr::from_raw(link.load(AtomicOrdering::Acquire))
    }

    /// Starts loading this node's first cache line (key length, start of the key, lowest link)
    /// into the cache, so a comparison a few instructions later does not wait for memory.
    #[inline]
    pub(crate) fn prefetch(self) {
        crate::util::prefetch::prefetch(self.as_raw());
    }

    /// Sets the link at `level` of an *unpublished* node. Relaxed is enough: the Release CAS
    /// that publishes this node at `level` orders this store before any reader's Acquire load
    /// of the pointer to the node.
    ///
    /// # Safety
    /// As [`NodePtr::link`].
    #[inline]
    pub(crate) unsafe fn set_next_relaxed(self, level: usize, next: Option<NodePtr>) {
        // SAFETY: forwarded contract.
        let link = unsafe { self.link(level) };
        link.store(raw(next), AtomicOrdering::Relaxed);
    }

    /// Replaces the successor at `level` by `new` if it is still `expected`. Release on success
    /// publishes `new` (its contents and its own link at `level`) to readers; on failure the
    /// caller re-reads the list with Acquire loads, so Relaxed suffices there.
    ///
    /// # Safety
    /// As [`NodePtr::link`].
    #[inline]
    pub(crate) unsafe fn cas_next(
        self,
        level: usize,
        expected: Option<NodePtr>,
        new: NodePtr,
    ) -> bool {
        // SAFETY: forwarded contract.
        let link = unsafe { self.link(level) };
        link.compare_exchange(
            raw(expected),
            new.as_raw(),
            AtomicOrdering::Release,
            AtomicOrdering::Relaxed,
        )
        .is_ok()
    }

    /// The node's prefix ([`key_prefix`] of its user key), from the first 8 bytes of its key.
    ///
    /// # Safety
    /// As [`NodePtr::key`].
    #[inline]
    unsafe fn prefix(self) -> u64 {
        // SAFETY: per the caller's contract the key and its length are initialized and alive;
        // the internal key is at least `TRAILER_LEN` (8) bytes, so 8 bytes can be read.
        let (word, user_len) = unsafe {
            let p = self.as_raw().cast::<u8>();
            let (key_len, n) = read_varint(p);
            let first = p.add(n).cast::<[u8; 8]>();
            (
                u64::from_be_bytes(first.read_unaligned()),
                key_len - TRAILER_LEN,
            )
        };
        if user_len >= 8 {
            word
        } else {
            // Keep the user key's bytes; the trailer's become the zero padding.
            word & !(u64::MAX >> (user_len * 8))
        }
    }

    /// Compares this node's key with `target`.
    ///
    /// # Safety
    /// As [`NodePtr::key`].
    #[inline]
    pub(crate) unsafe fn cmp(self, target: &SearchKey<'_>) -> Ordering {
        #[cfg(test)]
        counters::COMPARISONS.with(|c| c.set(c.get() + 1));
        if target.prefixes != Prefixes::Off {
            // SAFETY: forwarded contract.
            let prefix = unsafe { self.prefix() };
            if prefix != target.prefix {
                return match target.prefixes {
                    Prefixes::Ascending => prefix.cmp(&target.prefix),
                    _ => target.prefix.cmp(&prefix),
                };
            }
        }
        #[cfg(test)]
        counters::FULL_COMPARISONS.with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded contract.
        target
            .order
            .compare_internal(unsafe { self.key() }, target.ikey)
    }
}

/// Writes `v` as a varint32 at `p` and returns its length (1 to 5 bytes).
///
/// # Safety
/// `p` must be valid for writing `varint_len(v)` bytes.
#[inline]
unsafe fn write_varint(p: *mut u8, mut v: u32) -> usize {
    let mut n = 0;
    while v >= 0x80 {
        // SAFETY: the caller sized the space with `varint_len`; this byte is within it.
        unsafe { p.add(n).write(v as u8 | 0x80) };
        v >>= 7;
        n += 1;
    }
    // SAFETY: as above, the last byte.
    unsafe { p.add(n).write(v as u8) };
    n + 1
}

/// Reads a varint32 written by [`write_varint`] at `p`: (value, its length in bytes).
///
/// # Safety
/// `p` must point at a complete varint written by `write_varint`.
#[inline(always)]
unsafe fn read_varint(p: *const u8) -> (usize, usize) {
    // SAFETY: the caller's contract: every byte up to the one without the high bit is ours.
    unsafe {
        let b = p.read();
        if b < 0x80 {
            return (b as usize, 1);
        }
        let mut v = (b & 0x7f) as usize;
        let mut n = 1;
        loop {
            let b = p.add(n).read();
            v |= ((b & 0x7f) as usize) << (7 * n);
            n += 1;
            if b < 0x80 {
                return (v, n);
            }
        }
    }
}

#[inline]
fn raw(p: Option<NodePtr>) -> *mut Node {
    p.map_or(ptr::null_mut(), NodePtr::as_raw)
}

/// How the integer prefixes of user keys relate to the list's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prefixes {
    /// Bytewise: different prefixes order as the integers do.
    Ascending,
    /// Reverse bytewise: different prefixes order opposite to the integers.
    Descending,
    /// A user comparator, or a target shorter than a trailer (only damaged or synthetic input,
    /// which `compare_internal` orders bytewise as whole strings): no shortcut.
    Off,
}

/// A search target: an internal key with its prefix computed once per search, and the order of
/// the list searched.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SearchKey<'a> {
    ikey: &'a [u8],
    prefix: u64,
    prefixes: Prefixes,
    order: &'a KeyOrder,
}

impl<'a> SearchKey<'a> {
    /// A target for internal key `ikey` in a list ordered by `order`.
    #[inline]
    pub(crate) fn new(ikey: &'a [u8], order: &'a KeyOrder) -> Self {
        let prefixes = if ikey.len() < TRAILER_LEN {
            Prefixes::Off
        } else if order.is_bytewise() {
            Prefixes::Ascending
        } else if order.is_reverse_bytewise() {
            Prefixes::Descending
        } else {
            Prefixes::Off
        };
        let prefix = if prefixes == Prefixes::Off {
            0
        } else {
            key_prefix(&ikey[..ikey.len() - TRAILER_LEN])
        };
        SearchKey {
            ikey,
            prefix,
            prefixes,
            order,
        }
    }
}

/// Per-thread comparison counters, so tests can check how search cost scales.
#[cfg(test)]
pub(crate) mod counters {
    use std::cell::Cell;

    thread_local! {
        /// Node comparisons of any kind.
        pub(crate) static COMPARISONS: Cell<u64> = const { Cell::new(0) };
        /// Comparisons the prefix could not decide.
        pub(crate) static FULL_COMPARISONS: Cell<u64> = const { Cell::new(0) };
    }

    /// (comparisons, full comparisons) on this thread since the last call.
    pub(crate) fn take() -> (u64, u64) {
        (
            COMPARISONS.with(|c| c.replace(0)),
            FULL_COMPARISONS.with(|c| c.replace(0)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{make_internal_key, ValueKind};
    use proptest::prelude::*;

    proptest! {
        // Fewer cases under Miri, which checks the unsafe reads rather than the comparison.
        #![proptest_config(ProptestConfig::with_cases(if cfg!(miri) { 16 } else { 256 }))]

        /// The prefix shortcut never disagrees with the full comparison, in either built-in
        /// order.
        #[test]
        fn prefix_order_agrees_with_the_full_comparison(
            a in proptest::collection::vec(0u8..4, 0..12),
            b in proptest::collection::vec(0u8..4, 0..12),
            sa in 0u64..4, sb in 0u64..4,
            reverse: bool,
        ) {
            let order = if reverse { KeyOrder::REVERSE_BYTEWISE } else { KeyOrder::BYTEWISE };
            let arena = Arena::new(4096);
            let node = NodePtr::allocate(&arena, 1, &a, crate::types::pack_trailer(sa, 2), b"v");
            let target = make_internal_key(&b, sb, ValueKind::Put);
            let full = order.compare_internal(&make_internal_key(&a, sa, ValueKind::Put), &target);
            // SAFETY: the arena is alive and we built the node.
            let fast = unsafe { node.cmp(&SearchKey::new(&target, &order)) };
            prop_assert_eq!(fast, full);
            // SAFETY: as above.
            prop_assert_eq!(unsafe { node.value() }, b"v");
        }
    }

    /// Keys and values whose lengths take one, two and three varint bytes read back whole.
    #[test]
    fn lengths_of_every_varint_size_round_trip() {
        let arena = Arena::new(1 << 20);
        for (klen, vlen) in [
            (0, 0),
            (119, 127),
            (120, 128),
            (300, 16_383),
            (16_400, 70_000),
        ] {
            let user_key: Vec<u8> = (0..klen).map(|i| (i % 251) as u8).collect();
            let value: Vec<u8> = (0..vlen).map(|i| (i % 241) as u8).collect();
            let trailer = crate::types::pack_trailer(7, 1);
            for height in [0, 1, 5] {
                let node = NodePtr::allocate(&arena, height, &user_key, trailer, &value);
                let mut ikey = user_key.clone();
                ikey.extend_from_slice(&trailer.to_le_bytes());
                // SAFETY: the arena is alive and we built the node.
                unsafe {
                    assert_eq!(node.key(), &ikey[..], "key {klen} value {vlen}");
                    assert_eq!(node.value(), &value[..], "key {klen} value {vlen}");
                    assert_eq!(node.prefix(), key_prefix(&user_key));
                }
            }
        }
    }
}
