//! Cache prefetch hints: start loading memory that the next steps will read, so that
//! independent cache misses overlap instead of waiting for one another.
//!
//! A prefetch is only a hint: it never faults, has no effect a program can observe besides
//! timing, and is a no-op on targets without one. Any address is acceptable.

/// Bytes in one CPU cache line, the unit a prefetch loads.
pub(crate) const CACHE_LINE: usize = 64;

/// Hints that the cache line holding `p` will be read soon.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is a hint: it never faults and has no architectural effect, so any
    // address is acceptable.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Hints that the first `max_lines` cache lines of `region` will be read soon.
#[inline]
pub(crate) fn prefetch_region(region: &[u8], max_lines: usize) {
    let ptr = region.as_ptr();
    // Line-aligned starts, so a region that begins mid-line costs no extra prefetch.
    let first = ptr as usize & !(CACHE_LINE - 1);
    let end = ptr as usize + region.len();
    let mut line = first;
    let mut left = max_lines;
    while line < end && left > 0 {
        prefetch(line as *const u8);
        line += CACHE_LINE;
        left -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetching_any_region_or_address_is_harmless() {
        let data = vec![7u8; 1000];
        prefetch_region(&data, 4);
        prefetch_region(&data[3..500], usize::MAX);
        prefetch_region(&[], 10);
        prefetch(std::ptr::null::<u8>());
        assert!(data.iter().all(|&b| b == 7));
    }
}
