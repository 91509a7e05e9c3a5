//! The cache-local Bloom filter of a table: building it and probing it. Spec:
//! `docs/format/sstable.md`, section "Filter block".
//!
//! The table builder owns one [`FilterBuilder`]; readers probe a [`FilterView`] over a cached or
//! table-owned filter block from any thread.
//!
//! Design: every key is hashed once (XXH3-64). The upper 32 bits pick one 64-byte line (512 bits)
//! by multiply-shift range reduction; the lower 32 bits, multiplied by an odd constant once per
//! probe, give each probe's bit (the top 9 bits of the product). All probes of a key therefore
//! touch a single cache line: one memory miss per lookup instead of one per probe, for a slightly
//! higher false-positive rate than a classic Bloom filter of the same size ([`theoretical_fpr`]).
//!
//! Invariants:
//! 1. No false negatives: every key added is reported as possibly present.
//! 2. A parsed filter has at least one line, 1..=[`MAX_PROBES`] probes, known flags, and exactly
//!    `64 * lines + 8` bytes, so probing never indexes out of range.

use std::sync::Arc;

use super::prefix::PrefixExtractor;
use crate::error::{Error, Result};
use crate::util::coding::{decode_fixed32, put_fixed32};

/// Bytes per filter line: one cache line.
pub const LINE_BYTES: usize = 64;
/// Bits per filter line.
pub const LINE_BITS: u32 = (LINE_BYTES * 8) as u32;
/// The most probes a filter may use.
pub const MAX_PROBES: u8 = 24;
/// The filter-layout byte of this design; other values are reserved.
const FORMAT_CACHE_LOCAL_BLOOM: u8 = 1;
const META_LEN: usize = 8;
/// Flag: whole user keys were added.
pub const FLAG_WHOLE_KEY: u8 = 1;
/// Flag: prefixes of user keys were added.
pub const FLAG_PREFIX: u8 = 2;
/// Multiplier that remixes the probe hash: odd, so every step is a bijection on 32 bits; the
/// golden-ratio constant spreads the top bits well.
const PROBE_MULTIPLIER: u32 = 0x9e37_79b9;

/// The name recorded in table properties for this filter.
pub const FILTER_POLICY_NAME: &str = "cairndb.CacheLocalBloom";

/// The 64-bit hash of a filter key.
#[inline]
pub fn filter_hash(key: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(key)
}

/// The expected false-positive rate of this design with `keys_per_line` keys per 512-bit line on
/// average and `probes` probes. The number of keys in a line is Poisson distributed; a line with
/// `j` keys has `j * probes` bits set at random (with repetition), and a probe of an absent key
/// succeeds if all its `probes` bits are set.
pub fn theoretical_fpr(keys_per_line: f64, probes: u32) -> f64 {
    let lambda = keys_per_line.max(1e-9);
    let miss_one = 1.0 - 1.0 / f64::from(LINE_BITS);
    let last = (lambda + 12.0 * lambda.sqrt() + 30.0).ceil() as u32;
    let mut ln_pmf = -lambda; // ln P(j = 0)
    let mut sum = 0.0;
    for j in 0..=last {
        if j > 0 {
            ln_pmf += lambda.ln() - f64::from(j).ln();
        }
        let set = 1.0 - miss_one.powf(f64::from(j) * f64::from(probes));
        sum += ln_pmf.exp() * set.powi(probes as i32);
    }
    sum
}

/// The fewest probes whose [`theoretical_fpr`] at `bits_per_key` is within 1% of the best
/// achievable: near the optimum the curve is flat, and every probe costs time on every lookup.
pub fn choose_num_probes(bits_per_key: f64) -> u8 {
    let keys_per_line = f64::from(LINE_BITS) / bits_per_key;
    let rates: Vec<f64> = (1..=MAX_PROBES)
        .map(|k| theoretical_fpr(keys_per_line, u32::from(k)))
        .collect();
    let best = rates.iter().copied().fold(f64::INFINITY, f64::min);
    let k = rates.iter().position(|&r| r <= best * 1.01).unwrap_or(0);
    k as u8 + 1
}

/// The classic Bloom filter's rate with `bits_per_key` and `probes`, for comparison.
pub fn standard_bloom_fpr(bits_per_key: f64, probes: u32) -> f64 {
    (1.0 - (-f64::from(probes) / bits_per_key).exp()).powi(probes as i32)
}

/// Collects the hashes of a table's keys and builds its filter block.
#[derive(Debug)]
pub struct FilterBuilder {
    bits_per_key: f64,
    num_probes: u8,
    whole_key: bool,
    prefix: Option<Arc<dyn PrefixExtractor>>,
    hashes: Vec<u64>,
    last_whole: Option<u64>,
    last_prefix: Option<u64>,
}

impl FilterBuilder {
    /// A builder adding whole keys and/or prefixes (by `prefix`) at `bits_per_key`.
    ///
    /// # Panics
    /// If `bits_per_key` is not finite and positive (options are validated first).
    pub fn new(
        bits_per_key: f64,
        whole_key: bool,
        prefix: Option<Arc<dyn PrefixExtractor>>,
    ) -> Self {
        assert!(
            bits_per_key.is_finite() && bits_per_key > 0.0,
            "bits per key must be positive"
        );
        FilterBuilder {
            bits_per_key,
            num_probes: choose_num_probes(bits_per_key),
            whole_key,
            prefix,
            hashes: Vec::new(),
            last_whole: None,
            last_prefix: None,
        }
    }

    /// Adds a user key (and its prefix). Keys arrive in sorted order, so repeats of a key or a
    /// prefix are consecutive and are added once.
    pub fn add_user_key(&mut self, user_key: &[u8]) {
        if self.whole_key {
            push_distinct(
                &mut self.hashes,
                &mut self.last_whole,
                filter_hash(user_key),
            );
        }
        if let Some(p) = self.prefix.as_ref().and_then(|x| x.prefix(user_key)) {
            push_distinct(&mut self.hashes, &mut self.last_prefix, filter_hash(p));
        }
    }

    /// The probes per key this builder uses.
    pub fn num_probes(&self) -> u8 {
        self.num_probes
    }

    /// The filter block, or `None` when no key was added (then the table has no filter).
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        if self.hashes.is_empty() {
            return None;
        }
        let bits = self.hashes.len() as f64 * self.bits_per_key;
        let lines =
            ((bits / f64::from(LINE_BITS)).ceil() as u64).clamp(1, u64::from(u32::MAX)) as u32;
        let mut out = vec![0u8; lines as usize * LINE_BYTES];
        for &h in &self.hashes {
            for bit in probe_bits(h, lines, self.num_probes) {
                out[bit >> 3] |= 1 << (bit & 7);
            }
        }
        let flags = if self.whole_key { FLAG_WHOLE_KEY } else { 0 }
            | if self.prefix.is_some() {
                FLAG_PREFIX
            } else {
                0
            };
        out.extend_from_slice(&[FORMAT_CACHE_LOCAL_BLOOM, self.num_probes, flags, 0]);
        put_fixed32(&mut out, lines);
        self.hashes.clear();
        Some(out)
    }
}

fn push_distinct(hashes: &mut Vec<u64>, last: &mut Option<u64>, h: u64) {
    if *last != Some(h) {
        hashes.push(h);
        *last = Some(h);
    }
}

/// The bit positions (from the start of the filter) that key hash `h` probes.
#[inline]
fn probe_bits(h: u64, lines: u32, probes: u8) -> impl Iterator<Item = usize> {
    let line = ((h >> 32) * u64::from(lines)) >> 32;
    let base = line as usize * LINE_BYTES * 8;
    let mut x = h as u32;
    (0..probes).map(move |_| {
        x = x.wrapping_mul(PROBE_MULTIPLIER);
        base + (x >> (32 - 9)) as usize
    })
}

/// The parsed trailer of a filter block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterMeta {
    lines: u32,
    probes: u8,
    flags: u8,
}

impl FilterMeta {
    /// Checks a filter block's layout (module invariant 2).
    ///
    /// # Errors
    /// [`Error::Corruption`] (anonymous) when any field is out of range or the length disagrees.
    pub fn parse(block: &[u8]) -> Result<FilterMeta> {
        let bad = |msg: &str| Err(Error::corruption("", 0, format!("filter block: {msg}")));
        let Some(meta_at) = block.len().checked_sub(META_LEN) else {
            return bad("too short");
        };
        let m = &block[meta_at..];
        let (format, probes, flags, reserved) = (m[0], m[1], m[2], m[3]);
        let lines = decode_fixed32(&m[4..]);
        if format != FORMAT_CACHE_LOCAL_BLOOM {
            return bad("unknown filter format");
        }
        if probes == 0
            || probes > MAX_PROBES
            || flags & !(FLAG_WHOLE_KEY | FLAG_PREFIX) != 0
            || reserved != 0
        {
            return bad("bad probe count or flags");
        }
        if lines == 0 || (lines as usize).checked_mul(LINE_BYTES) != Some(meta_at) {
            return bad("length does not match the line count");
        }
        Ok(FilterMeta {
            lines,
            probes,
            flags,
        })
    }
}

/// A filter block ready for probing.
#[derive(Debug, Clone, Copy)]
pub struct FilterView<'a> {
    meta: FilterMeta,
    bits: &'a [u8],
}

impl<'a> FilterView<'a> {
    /// A view of `block`, whose layout `meta` was parsed from it.
    pub fn new(meta: FilterMeta, block: &'a [u8]) -> Self {
        FilterView { meta, bits: block }
    }

    /// True when whole user keys were added.
    pub fn has_whole_keys(&self) -> bool {
        self.meta.flags & FLAG_WHOLE_KEY != 0
    }

    /// True when prefixes were added.
    pub fn has_prefixes(&self) -> bool {
        self.meta.flags & FLAG_PREFIX != 0
    }

    /// Probes per key.
    pub fn num_probes(&self) -> u8 {
        self.meta.probes
    }

    /// Number of 64-byte lines.
    pub fn num_lines(&self) -> u32 {
        self.meta.lines
    }

    /// False only if `key` was certainly not added.
    #[inline]
    pub fn may_contain(&self, key: &[u8]) -> bool {
        self.may_contain_hash(filter_hash(key))
    }

    /// [`may_contain`](Self::may_contain) for a precomputed [`filter_hash`].
    #[inline]
    pub fn may_contain_hash(&self, h: u64) -> bool {
        probe_bits(h, self.meta.lines, self.meta.probes).all(|bit| {
            self.bits
                .get(bit >> 3)
                .is_some_and(|b| b & (1 << (bit & 7)) != 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sstable::prefix::FixedPrefix;

    fn build(keys: &[Vec<u8>], bpk: f64) -> Vec<u8> {
        let mut b = FilterBuilder::new(bpk, true, None);
        keys.iter().for_each(|k| b.add_user_key(k));
        b.finish().expect("keys were added")
    }

    #[test]
    fn no_false_negatives_and_layout() {
        let keys: Vec<Vec<u8>> = (0..5000u32)
            .map(|i| format!("key{i:08}").into_bytes())
            .collect();
        let block = build(&keys, 10.0);
        let meta = FilterMeta::parse(&block).expect("parse");
        let f = FilterView::new(meta, &block);
        assert!(keys.iter().all(|k| f.may_contain(k)));
        assert_eq!(block.len(), f.num_lines() as usize * 64 + 8);
        assert_eq!(f.num_lines(), (5000.0f64 * 10.0 / 512.0).ceil() as u32);
        assert!(f.has_whole_keys() && !f.has_prefixes());
    }

    #[test]
    fn probe_choice_is_sensible() {
        assert_eq!(choose_num_probes(10.0), 6);
        assert!(choose_num_probes(1.0) <= 2);
        assert!(choose_num_probes(20.0) > choose_num_probes(10.0));
        // The blocked design costs a little over the classic filter, never less.
        let blocked = theoretical_fpr(51.2, 6);
        let classic = standard_bloom_fpr(10.0, 6);
        assert!(
            blocked > classic && blocked < classic * 1.5,
            "{blocked} vs {classic}"
        );
    }

    #[test]
    fn prefixes_and_empty() {
        let mut b = FilterBuilder::new(10.0, false, Some(Arc::new(FixedPrefix::new(3))));
        assert!(FilterBuilder::new(10.0, true, None).finish().is_none());
        b.add_user_key(b"abc1");
        b.add_user_key(b"abc2");
        b.add_user_key(b"x"); // out of domain: nothing added
        let block = b.finish().expect("one prefix");
        let f = FilterView::new(FilterMeta::parse(&block).expect("parse"), &block);
        assert!(f.may_contain(b"abc") && f.has_prefixes() && !f.has_whole_keys());
    }

    #[test]
    fn malformed_meta_is_corruption() {
        let block = build(&[b"a".to_vec()], 10.0);
        for i in block.len() - 8..block.len() {
            for bit in 0..8 {
                let mut b = block.clone();
                b[i] ^= 1 << bit;
                if let Ok(m) = FilterMeta::parse(&b) {
                    // Only a different, still valid probe count or flag combination can parse.
                    assert_ne!(m, FilterMeta::parse(&block).expect("orig"));
                }
            }
        }
        assert!(FilterMeta::parse(&[1, 2, 3]).is_err());
        assert!(FilterMeta::parse(&block[1..]).is_err());
    }
}
