//! The memtable's prefix Bloom filter (RocksDB's `memtable_prefix_bloom_size_ratio`): a point
//! lookup whose key's prefix was never inserted skips the skiplist search.
//!
//! Contract: `add` and `may_contain` run from any thread at once (bits are set with relaxed
//! `fetch_or`; a reader racing an insert may miss the new bits, which is fine because the entry
//! itself is published after its bits — `MemTable::insert` adds the prefix first). A key outside
//! the extractor's domain is always "may contain". No false negatives: every prefix added
//! answers true.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::sstable::PrefixExtractor;

/// Probes per prefix: about 1% false positives at 10 bits per prefix.
const PROBES: u64 = 6;

/// A concurrent Bloom filter over key prefixes. See the module contract.
#[derive(Debug)]
pub struct PrefixBloom {
    extractor: Arc<dyn PrefixExtractor>,
    words: Box<[AtomicU64]>,
    /// Lookups the filter answered "absent" (RocksDB's `BLOOM_MEMTABLE_MISS`).
    useful: AtomicU64,
    /// Lookups it let through (`BLOOM_MEMTABLE_HIT`).
    passed: AtomicU64,
}

impl PrefixBloom {
    /// A filter of `bytes` bytes (at least 8) over the prefixes `extractor` takes.
    pub fn new(extractor: Arc<dyn PrefixExtractor>, bytes: usize) -> PrefixBloom {
        let n = (bytes / 8).max(1);
        PrefixBloom {
            extractor,
            words: (0..n).map(|_| AtomicU64::new(0)).collect(),
            useful: AtomicU64::new(0),
            passed: AtomicU64::new(0),
        }
    }

    /// The bit positions of `prefix`, by double hashing.
    fn bits(&self, prefix: &[u8]) -> impl Iterator<Item = (usize, u64)> {
        let h = xxhash_rust::xxh3::xxh3_64(prefix);
        let (h1, h2) = (h & 0xffff_ffff, (h >> 32) | 1);
        let nbits = self.words.len() as u64 * 64;
        (0..PROBES).map(move |i| {
            let bit = h1.wrapping_add(i.wrapping_mul(h2)) % nbits;
            ((bit / 64) as usize, 1u64 << (bit % 64))
        })
    }

    /// Records the prefix of `user_key` (nothing when it is out of domain).
    pub fn add(&self, user_key: &[u8]) {
        if let Some(p) = self.extractor.prefix(user_key) {
            for (w, mask) in self.bits(p) {
                self.words[w].fetch_or(mask, Ordering::Relaxed);
            }
        }
    }

    /// False only when no key with `user_key`'s prefix was added.
    pub fn may_contain(&self, user_key: &[u8]) -> bool {
        let Some(p) = self.extractor.prefix(user_key) else {
            return true;
        };
        let hit = self
            .bits(p)
            .all(|(w, mask)| self.words[w].load(Ordering::Relaxed) & mask != 0);
        let counter = if hit { &self.passed } else { &self.useful };
        counter.fetch_add(1, Ordering::Relaxed);
        hit
    }

    /// `(useful, passed)`: lookups answered "absent", lookups let through.
    pub fn stats(&self) -> (u64, u64) {
        (
            self.useful.load(Ordering::Relaxed),
            self.passed.load(Ordering::Relaxed),
        )
    }

    /// Bytes of the bit array.
    pub fn size_bytes(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sstable::CappedPrefix;

    #[test]
    // Safe code only; Miri's step checks the memtable's unsafe code (38 s of it went here).
    #[cfg_attr(miri, ignore)]
    fn no_false_negatives_and_absent_prefixes_mostly_rejected() {
        let b = PrefixBloom::new(Arc::new(CappedPrefix::new(4)), 4096);
        for i in 0..1000u32 {
            b.add(format!("{i:04}-suffix").as_bytes());
        }
        for i in 0..1000u32 {
            assert!(b.may_contain(format!("{i:04}-other").as_bytes()));
        }
        let rejected = (0..1000u32)
            .filter(|i| !b.may_contain(format!("x{i:03}-k").as_bytes()))
            .count();
        assert!(
            rejected > 900,
            "{rejected} of 1000 absent prefixes rejected"
        );
        let (useful, passed) = b.stats();
        assert_eq!(useful as usize, rejected);
        assert_eq!(passed as usize, 2000 - rejected);
    }
}
