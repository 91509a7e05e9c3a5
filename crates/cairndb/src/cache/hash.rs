//! Hashing of cache keys: one hash picks the shard, another indexes the shard's table.
//!
//! Contract: pure functions and a stateless hasher; callable from any thread.
//!
//! Invariants:
//! 1. [`shard_hash`] depends only on the key's 16 bytes, so a key always maps to the same shard.
//! 2. The shard choice and the in-shard table hash are computed by different functions, so the
//!    keys of one shard (which share their top hash bits) still spread over the whole table.

use std::hash::{BuildHasherDefault, Hasher};

use super::CacheKey;

/// XXH3 of the key's 16 little-endian bytes; its top bits choose the shard.
pub(super) fn shard_hash(key: &CacheKey) -> u64 {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&key.file_id.to_le_bytes());
    bytes[8..].copy_from_slice(&key.offset.to_le_bytes());
    xxhash_rust::xxh3::xxh3_64(&bytes)
}

/// The shard of `key` among `1 << shard_bits` shards.
pub(super) fn shard_index(key: &CacheKey, shard_bits: u8) -> usize {
    if shard_bits == 0 {
        0
    } else {
        (shard_hash(key) >> (64 - u32::from(shard_bits))) as usize
    }
}

/// Odd 64-bit constant (the golden ratio) for multiplicative mixing.
const MIX: u64 = 0x9e37_79b9_7f4a_7c15;

/// Multiplies in 128 bits and folds the halves: every input bit reaches every output bit.
fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

/// A fast hasher for the derived `Hash` of [`CacheKey`] (two `write_u64` calls).
///
/// Not resistant to adversarial keys; cache keys are chosen by the engine, not by users.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        // Only reached if `CacheKey`'s fields change type; keep it correct, not fast.
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = folded_multiply(self.0 ^ word, MIX).rotate_left(23);
    }

    fn finish(&self) -> u64 {
        folded_multiply(self.0, MIX)
    }
}

/// The `BuildHasher` of the shard tables.
pub(super) type BuildKeyHasher = BuildHasherDefault<KeyHasher>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn shards_are_used_evenly() {
        let bits = 4;
        let mut counts = [0usize; 16];
        for file_id in 1..=8u64 {
            for block in 0..1000u64 {
                counts[shard_index(
                    &CacheKey {
                        file_id,
                        offset: block * 4096,
                    },
                    bits,
                )] += 1;
            }
        }
        // 8000 keys over 16 shards: 500 expected each; a broken hash puts most in a few shards.
        assert!(
            counts.iter().all(|&c| (350..650).contains(&c)),
            "{counts:?}"
        );
    }

    #[test]
    fn table_hash_separates_fields() {
        let build = BuildKeyHasher::default();
        let hash = |file_id, offset| build.hash_one(CacheKey { file_id, offset });
        assert_ne!(hash(1, 2), hash(2, 1));
        assert_ne!(hash(0, 0), hash(0, 4096));
        assert_eq!(hash(7, 8192), hash(7, 8192));
    }
}
