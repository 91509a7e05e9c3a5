//! Builds one entries block (data, index, properties or metaindex): keys with shared-prefix
//! compression and a restart array. Spec: `docs/format/sstable.md`, section "Entries block".
//!
//! Owned by one table builder on one thread. The caller adds keys in the order of the comparator
//! the block will be read with; the builder does not compare keys (it cannot know the order).
//!
//! Invariants:
//! 1. Every `restart_interval`-th entry (starting with the first) is a restart point: it stores its
//!    key whole (`shared == 0`) and its offset is in the restart array.
//! 2. The restart array is never empty: an empty block has the single restart offset 0.
//! 3. All offsets fit in 32 bits (asserted: the table builder bounds entry and block sizes far
//!    below that).

use crate::util::coding::{put_fixed32, put_varint32};

/// Accumulates the entries of one block.
#[derive(Debug, Clone)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    /// Entries since the last restart point.
    since_restart: usize,
    restart_interval: usize,
    last_key: Vec<u8>,
    entries: usize,
}

impl BlockBuilder {
    /// A builder that starts a restart point every `restart_interval` entries.
    ///
    /// # Panics
    /// If `restart_interval` is 0 (options are validated before a builder exists).
    pub fn new(restart_interval: usize) -> Self {
        assert!(restart_interval >= 1, "restart interval must be at least 1");
        BlockBuilder {
            buf: Vec::new(),
            restarts: vec![0],
            since_restart: 0,
            restart_interval,
            last_key: Vec::new(),
            entries: 0,
        }
    }

    /// Appends an entry. Requires `key` to sort after the previous key in the block's order.
    ///
    /// # Panics
    /// If the block would pass 4 GiB (offsets are 32-bit).
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        let shared = if self.since_restart < self.restart_interval {
            common_prefix_len(&self.last_key, key)
        } else {
            self.restarts.push(offset32(self.buf.len()));
            self.since_restart = 0;
            0
        };
        let unshared = &key[shared..];
        put_varint32(&mut self.buf, offset32(shared));
        put_varint32(&mut self.buf, offset32(unshared.len()));
        put_varint32(&mut self.buf, offset32(value.len()));
        self.buf.extend_from_slice(unshared);
        self.buf.extend_from_slice(value);
        // The restart array must stay addressable with 32-bit offsets.
        offset32(self.buf.len());
        self.last_key.truncate(shared);
        self.last_key.extend_from_slice(unshared);
        self.since_restart += 1;
        self.entries += 1;
    }

    /// The block's size if it were finished now.
    pub fn size_estimate(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
    }

    /// True when no entry was added since creation or the last [`reset`](Self::reset).
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Number of entries added.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Appends the restart array and returns the finished block. Call [`reset`](Self::reset)
    /// before adding to it again.
    pub fn finish(&mut self) -> &[u8] {
        for &r in &self.restarts {
            put_fixed32(&mut self.buf, r);
        }
        put_fixed32(&mut self.buf, offset32(self.restarts.len()));
        &self.buf
    }

    /// Empties the builder, keeping its allocations.
    pub fn reset(&mut self) {
        self.buf.clear();
        self.restarts.clear();
        self.restarts.push(0);
        self.since_restart = 0;
        self.last_key.clear();
        self.entries = 0;
    }
}

fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn offset32(n: usize) -> u32 {
    u32::try_from(n).expect("block offsets fit in 32 bits")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::coding::decode_fixed32;

    #[test]
    fn empty_block_has_one_restart() {
        let mut b = BlockBuilder::new(16);
        assert!(b.is_empty());
        assert_eq!(b.finish(), &[0, 0, 0, 0, 1, 0, 0, 0]);
    }

    #[test]
    fn prefix_compression_and_restarts() {
        let mut b = BlockBuilder::new(2);
        b.add(b"apple", b"1");
        b.add(b"apricot", b"2");
        b.add(b"banana", b"3");
        let est = b.size_estimate();
        let block = b.finish().to_vec();
        assert_eq!(block.len(), est);
        // Entry 2 shares "ap" with entry 1.
        assert_eq!(&block[9..12], &[2, 5, 1]);
        let n = decode_fixed32(&block[block.len() - 4..]);
        assert_eq!(n, 2, "restarts at entries 0 and 2");
        let second = decode_fixed32(&block[block.len() - 8..]) as usize;
        assert_eq!(
            &block[second..second + 3],
            &[0, 6, 1],
            "restart stores the whole key"
        );
    }
}
