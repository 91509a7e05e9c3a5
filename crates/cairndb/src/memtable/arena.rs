//! A concurrent bump allocator for memtable entries.
//!
//! Who calls it: the skiplist and the vector rep, from any number of writer threads at once
//! (`allocate` takes `&self`). Readers never call it; they only read memory it handed out.
//!
//! What it owns: every block it allocated, freed together when the arena is dropped. Nothing is
//! freed earlier, which is what makes raw pointers into the arena valid for the arena's whole
//! life (the skiplist relies on it: nodes are never unlinked).
//!
//! Design: blocks of `block_size` bytes (default 1 MiB). The current block is published through
//! an `AtomicPtr`; a writer bumps the block's `used` counter with one `fetch_add` and owns the
//! range it reserved, so the common path takes no lock. When a reservation runs past the end of
//! the block, the writer takes the `blocks` mutex and installs a new block (once per
//! `block_size` bytes, so the lock is cold). Requests larger than a quarter block get a block of
//! their own, allocated under the mutex, so a huge value wastes no tail of a shared block and
//! cannot be refused. The tail of a retired block (less than the request that overflowed it) is
//! wasted; with 1 MiB blocks and ~150-byte entries that is about 0.01 %.
//!
//! We considered per-core shards as RocksDB's ConcurrentArena has: they avoid the shared
//! `fetch_add` cache line under many writers, but with the 2–4 writers a commit group has in
//! practice the contention is small next to the skiplist's own CAS traffic, and shards add a
//! per-shard tail waste and an indirection on every allocation.
//!
//! Invariants:
//! 1. Every returned pointer is 8-byte aligned, points at `size` bytes no other call received,
//!    and stays valid (never moved, never freed) until the arena is dropped.
//! 2. `memory_usage()` is the sum of the sizes of all blocks allocated so far (what the process
//!    actually reserved), plus the arena's own bookkeeping; it only grows.

use crate::util::sync::{AtomicPtr, AtomicUsize, Mutex, Ordering};
use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// Default size of a shared block.
pub const DEFAULT_BLOCK_SIZE: usize = 1 << 20;

/// Smallest block size accepted (smaller requests are rounded up).
const MIN_BLOCK_SIZE: usize = 4096;

/// Alignment of every allocation.
pub const ALIGN: usize = 8;

/// Blocks start on cache-line boundaries so that the first node does not straddle two lines.
const BLOCK_ALIGN: usize = 64;

/// One contiguous allocation, carved up by bumping `used`.
struct Block {
    ptr: NonNull<u8>,
    size: usize,
    align: usize,
    /// Bytes reserved so far. May exceed `size` after a failed reservation (the block is then
    /// full and gets replaced); never wraps since every request is far below `usize::MAX / 2`
    /// and each thread overshoots at most once per block.
    used: AtomicUsize,
}

impl Block {
    /// A block of `size` bytes aligned to `align`. With `huge`, the kernel is asked to back it
    /// with transparent huge pages (`align` is then the huge page size).
    fn new(size: usize, align: usize, huge: bool) -> Box<Block> {
        let layout = Layout::from_size_align(size, align).expect("block layout");
        // SAFETY: `layout` has a non-zero size (callers pass at least MIN_BLOCK_SIZE or a
        // non-empty request rounded up to ALIGN).
        let raw = unsafe { alloc::alloc(layout) };
        let ptr = NonNull::new(raw).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        if huge {
            advise_huge_pages(ptr, size);
        }
        Box::new(Block {
            ptr,
            size,
            align,
            used: AtomicUsize::new(0),
        })
    }

    /// Reserves `size` bytes, or returns `None` when the block is full.
    fn try_reserve(&self, size: usize) -> Option<NonNull<u8>> {
        // Relaxed: the counter only partitions the block between writers; the bytes themselves
        // are published by the skiplist's Release CAS, not by this counter.
        let start = self.used.fetch_add(size, Ordering::Relaxed);
        if start.checked_add(size)? > self.size {
            return None;
        }
        // SAFETY: `start + size <= self.size`, so the offset stays inside the allocation.
        Some(unsafe { NonNull::new_unchecked(self.ptr.as_ptr().add(start)) })
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        let layout = Layout::from_size_align(self.size, self.align).expect("block layout");
        // SAFETY: `ptr` came from `alloc::alloc` with exactly this layout and is freed once.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) };
    }
}

/// A concurrent bump allocator. See the module contract.
pub struct Arena {
    /// The block shared allocations come from; null until the first allocation. Points at one
    /// of `blocks`, so it stays valid until the arena drops.
    current: AtomicPtr<Block>,
    /// Every block, owned: each came from `Box::into_raw` and is freed by `Drop`. Locked only to
    /// add a block. Raw pointers, not `Box`es: moving a `Box` (into the vector, or when the
    /// vector grows) asserts that it is the only way to its block, which would invalidate the
    /// pointer in `current` that other threads read the block through (Miri's Stacked Borrows
    /// reports exactly that).
    blocks: Mutex<Vec<NonNull<Block>>>,
    block_size: usize,
    /// Non-zero: shared blocks are aligned to this size and backed by transparent huge pages.
    huge_page_size: usize,
    memory_usage: AtomicUsize,
}

// SAFETY: the raw pointers inside point at blocks the arena owns (and frees only in `Drop`); handing out disjoint ranges is
// synchronized by the atomic `used` counters and the `blocks` mutex, so sharing the arena
// between threads is sound. What callers write into their ranges is their own business.
unsafe impl Send for Arena {}
// SAFETY: as above; every `&self` method is thread-safe.
unsafe impl Sync for Arena {}

impl std::fmt::Debug for Arena {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Arena")
            .field("block_size", &self.block_size)
            .field("memory_usage", &self.memory_usage())
            .finish()
    }
}

impl Arena {
    /// An empty arena whose shared blocks are `block_size` bytes (at least 4 KiB). No memory is
    /// allocated until the first request.
    pub fn new(block_size: usize) -> Self {
        Arena::with_huge_pages(block_size, 0)
    }

    /// As [`Arena::new`]; with a non-zero `huge_page_size` (a power of two, e.g. 2 MiB) every
    /// shared block is a multiple of it, aligned to it, and advised to the kernel as
    /// huge-page memory (`MADV_HUGEPAGE`; RocksDB's `memtable_huge_page_size`). A large
    /// memtable's random inserts then miss the TLB far less often: 256 MiB is 65,536 4 KiB
    /// pages but 128 huge pages. Where the kernel has no transparent huge pages the advice is
    /// ignored and the arena works as without it.
    pub fn with_huge_pages(block_size: usize, huge_page_size: usize) -> Self {
        let huge_page_size = if huge_page_size.is_power_of_two() {
            huge_page_size
        } else {
            0
        };
        let mut block_size = block_size.max(MIN_BLOCK_SIZE).next_multiple_of(ALIGN);
        if huge_page_size > 0 {
            block_size = block_size.next_multiple_of(huge_page_size);
        }
        Arena {
            current: AtomicPtr::new(std::ptr::null_mut()),
            blocks: Mutex::new(Vec::new()),
            block_size,
            huge_page_size,
            memory_usage: AtomicUsize::new(std::mem::size_of::<Arena>()),
        }
    }

    /// Bytes reserved from the allocator so far (all blocks plus bookkeeping).
    pub fn memory_usage(&self) -> usize {
        self.memory_usage.load(Ordering::Relaxed)
    }

    /// Returns `size` bytes, 8-byte aligned, uninitialized, valid until the arena drops.
    ///
    /// # Panics
    /// If `size` is 0 or above `isize::MAX / 2`; aborts (as `Vec` does) when the system
    /// allocator fails.
    pub fn allocate(&self, size: usize) -> NonNull<u8> {
        assert!(
            size > 0 && size <= isize::MAX as usize / 2,
            "bad arena request {size}"
        );
        let size = size.next_multiple_of(ALIGN);
        if size > self.block_size / 4 {
            return self.allocate_dedicated(size);
        }
        loop {
            // Acquire pairs with the Release store in `replace_block`, so the Block's fields
            // are initialized when we read them.
            let cur = self.current.load(Ordering::Acquire);
            // SAFETY: a non-null `current` points at a block owned by `self.blocks`, never
            // freed before `self` drops.
            if let Some(block) = unsafe { cur.as_ref() } {
                if let Some(p) = block.try_reserve(size) {
                    return p;
                }
            }
            self.replace_block(cur);
        }
    }

    /// Installs a fresh shared block unless another thread already replaced `seen`.
    fn replace_block(&self, seen: *mut Block) {
        let mut blocks = self.blocks.lock();
        if self.current.load(Ordering::Relaxed) != seen {
            return; // somebody else installed one while we waited for the lock
        }
        let block = if self.huge_page_size > 0 {
            Block::new(self.block_size, self.huge_page_size, true)
        } else {
            Block::new(self.block_size, BLOCK_ALIGN, false)
        };
        let ptr = NonNull::new(Box::into_raw(block)).expect("a Box is never null");
        blocks.push(ptr);
        self.account(self.block_size);
        self.current.store(ptr.as_ptr(), Ordering::Release);
    }

    fn allocate_dedicated(&self, size: usize) -> NonNull<u8> {
        let block = Block::new(size, BLOCK_ALIGN, false);
        block.used.store(size, Ordering::Relaxed);
        let p = block.ptr;
        let owned = NonNull::new(Box::into_raw(block)).expect("a Box is never null");
        self.blocks.lock().push(owned);
        self.account(size);
        p
    }

    fn account(&self, block_bytes: usize) {
        let overhead = std::mem::size_of::<Block>() + std::mem::size_of::<NonNull<Block>>();
        self.memory_usage
            .fetch_add(block_bytes + overhead, Ordering::Relaxed);
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for block in self.blocks.get_mut().drain(..) {
            // SAFETY: every pointer in `blocks` came from `Box::into_raw` and is freed only here;
            // `&mut self` means no thread still reads through `current` or an allocation.
            drop(unsafe { Box::from_raw(block.as_ptr()) });
        }
    }
}

/// Asks the kernel to back `[ptr, ptr + size)` with transparent huge pages. Advice only: a
/// kernel without them (or another OS) leaves ordinary pages, which is correct, just slower.
/// Not under Miri, which cannot call `madvise` (the advice changes no contents anyway).
#[cfg(all(target_os = "linux", not(miri)))]
fn advise_huge_pages(ptr: NonNull<u8>, size: usize) {
    // SAFETY: the range is one live allocation of ours; MADV_HUGEPAGE changes only how the
    // kernel backs it, never its contents or validity. The result is ignored on purpose.
    unsafe {
        libc::madvise(ptr.as_ptr().cast(), size, libc::MADV_HUGEPAGE);
    }
}

#[cfg(any(not(target_os = "linux"), miri))]
fn advise_huge_pages(_ptr: NonNull<u8>, _size: usize) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn huge_page_blocks_are_aligned_to_and_sized_by_the_page() {
        let huge = 2 << 20;
        let arena = Arena::with_huge_pages(1 << 20, huge);
        let base = arena.memory_usage();
        let first = arena.allocate(100).as_ptr() as usize;
        assert_eq!(first % huge, 0, "the block starts on a huge page");
        assert_eq!(arena.memory_usage() - base, huge + block_overhead());
        // Fill the block: the next shared block is again one aligned huge page.
        let mut last = first;
        while last - first < huge - 1024 {
            last = arena.allocate(512).as_ptr() as usize;
        }
        let next = arena.allocate(1024).as_ptr() as usize;
        assert_eq!(next % huge, 0);
        // A size that is not a power of two disables the feature instead of misaligning.
        let plain = Arena::with_huge_pages(4096, 3 << 20);
        let before = plain.memory_usage();
        plain.allocate(8);
        assert_eq!(plain.memory_usage() - before, 4096 + block_overhead());
    }

    fn block_overhead() -> usize {
        std::mem::size_of::<Block>() + std::mem::size_of::<NonNull<Block>>()
    }

    #[test]
    fn allocations_are_aligned_disjoint_and_counted() {
        let arena = Arena::new(4096);
        let base = arena.memory_usage();
        let mut ranges = Vec::new();
        for size in [1usize, 7, 8, 9, 100, 1000, 1024, 1025, 5000, 3] {
            let p = arena.allocate(size).as_ptr() as usize;
            assert_eq!(p % ALIGN, 0);
            ranges.push((p, p + size));
        }
        ranges.sort_unstable();
        for w in ranges.windows(2) {
            assert!(w[0].1 <= w[1].0, "overlap {w:?}");
        }
        // 1025 and 5000 exceed a quarter block and got dedicated blocks.
        assert!(arena.memory_usage() >= base + 4096 + 1032 + 5000);
    }

    /// An allocation's address, sent back from the thread that wrote it.
    struct Sent(NonNull<u8>);
    // SAFETY: the test reads through it only after joining the thread that wrote the bytes.
    unsafe impl Send for Sent {}

    #[test]
    fn concurrent_allocations_never_overlap() {
        let arena = Arena::new(4096);
        let all: Vec<Vec<Sent>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|t| {
                    let arena = &arena;
                    s.spawn(move || {
                        (0..2000)
                            .map(|i| {
                                let p = arena.allocate(8 + (i + t) % 64 * 8);
                                // SAFETY: we own the reserved range of at least 8 bytes.
                                unsafe {
                                    p.as_ptr().cast::<u64>().write((t * 1_000_000 + i) as u64)
                                };
                                Sent(p)
                            })
                            .collect()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("join"))
                .collect()
        });
        let mut seen = HashSet::new();
        for (t, ptrs) in all.iter().enumerate() {
            for (i, p) in ptrs.iter().enumerate() {
                assert!(
                    seen.insert(p.0.as_ptr() as usize),
                    "address handed out twice"
                );
                // SAFETY: the arena is alive and the value was written by thread `t`, which
                // was joined (happens-before).
                let v = unsafe { p.0.as_ptr().cast::<u64>().read() };
                assert_eq!(v, (t * 1_000_000 + i) as u64, "value overwritten");
            }
        }
    }
}
