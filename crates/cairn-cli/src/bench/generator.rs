//! Keys and values generated exactly as db_bench generates them, so that the same flags give the
//! same key order, the same found ratios and the same value compressibility on both engines.
//!
//! - Keys: `GenerateKeyFromInt`: the integer's low `min(key_size, 8)` bytes big-endian, padded
//!   with ASCII '0' to `key_size`.
//! - Random key indexes: `std::mt19937_64` seeded with `seed_base + thread id`, modulo `num`.
//! - Unique random key indexes (filluniquerandom): `0..num` shuffled by RocksDB's
//!   `RandomShuffle`, i.e. `std::shuffle` with `std::mt19937(seed_base as u32)`, reproduced as
//!   libstdc++ implements it (checked against GCC 12's), see [`unique_random_order`].
//! - Values: `RandomGenerator`: a 1 MiB pool of 100-byte pieces, each a random binary string of
//!   `100 * compression_ratio` bytes repeated to 100 bytes (LevelDB's Park–Miller `Random(301)`),
//!   handed out as consecutive slices of `value_size` bytes.

use rand_mt::{Mt, Mt64};

/// db_bench's `Random`: the Park–Miller minimal standard generator (LevelDB `util/random.h`).
#[derive(Debug, Clone)]
pub struct ParkMiller {
    seed: u32,
}

impl ParkMiller {
    const M: u32 = 2_147_483_647;
    const A: u64 = 16_807;

    /// Seeds like LevelDB: the seed is masked to 31 bits; 0 and M become 1.
    pub fn new(seed: u32) -> Self {
        let s = seed & Self::M;
        ParkMiller {
            seed: if s == 0 || s == Self::M { 1 } else { s },
        }
    }

    /// The next value in `1..M`.
    pub fn next_u32(&mut self) -> u32 {
        let product = u64::from(self.seed) * Self::A;
        let mut s = ((product >> 31) + (product & u64::from(Self::M))) as u32;
        if s > Self::M {
            s -= Self::M;
        }
        self.seed = s;
        s
    }

    /// Uniform in `0..n`. Requires `n > 0`.
    pub fn uniform(&mut self, n: u32) -> u32 {
        self.next_u32() % n
    }
}

/// db_bench's per-thread `Random64` (`std::mt19937_64`).
#[derive(Debug, Clone)]
pub struct Random64(Mt64);

impl Random64 {
    /// Seeds like `ThreadState(index, my_seed)`: `seed_base + my_seed`.
    pub fn new(seed: u64) -> Self {
        Random64(Mt64::new(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// RocksDB's `Random64::Uniform(n)`: `std::uniform_int_distribution<uint64_t>(0, n - 1)`
    /// over the generator, as libstdc++ (GCC 11 and later) computes it for a 64-bit generator:
    /// Lemire's multiply-and-reject with a 128-bit product (`_S_nd`). Requires `n > 0`.
    pub fn uniform(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let mut product = u128::from(self.next_u64()) * u128::from(n);
        let mut low = product as u64;
        if low < n {
            let threshold = n.wrapping_neg() % n;
            while low < threshold {
                product = u128::from(self.next_u64()) * u128::from(n);
                low = product as u64;
            }
        }
        (product >> 64) as u64
    }

    /// RocksDB's `Random64::OneIn(n)`: `uniform(n) == 0`. Requires `n > 0`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.uniform(n) == 0
    }
}

/// The largest `num` [`unique_random_order`] accepts: every draw of its shuffle then fits the
/// 32-bit generator's range, the only case the reproduction covers (and 2^32 keys would not fit in
/// memory as db_bench holds them anyway).
pub const MAX_UNIQUE_RANDOM_NUM: u64 = u32::MAX as u64;

/// db_bench's filluniquerandom key order: `0..num` shuffled by `RandomShuffle(first, last, seed)`
/// (`std::mt19937 rng(seed); std::shuffle(first, last, rng)`) as libstdc++ implements
/// `std::shuffle`: when `num * num` fits the generator's 32-bit range, two swap positions come
/// from one draw (`__gen_two_uniform_ints`); otherwise one draw per position. Requires
/// `num <= MAX_UNIQUE_RANDOM_NUM`.
pub fn unique_random_order(num: u64, seed: u32) -> Vec<u64> {
    assert!(
        num <= MAX_UNIQUE_RANDOM_NUM,
        "unique_random_order: num {num} too large"
    );
    let mut v: Vec<u64> = (0..num).collect();
    if num == 0 {
        return v;
    }
    let mut g = Mt::new(seed);
    if u64::from(u32::MAX) / num >= num {
        let mut i = 1;
        // An even count leaves an odd number of elements to swap: the first is done alone.
        if num % 2 == 0 {
            let j = uniform_mt19937(&mut g, 1);
            v.swap(i, j as usize);
            i += 1;
        }
        while i < v.len() {
            let b0 = i as u64 + 1;
            let x = uniform_mt19937(&mut g, b0 * (b0 + 1) - 1);
            v.swap(i, (x / (b0 + 1)) as usize);
            v.swap(i + 1, (x % (b0 + 1)) as usize);
            i += 2;
        }
    } else {
        for i in 1..v.len() {
            let j = uniform_mt19937(&mut g, i as u64);
            v.swap(i, j as usize);
        }
    }
    v
}

/// libstdc++'s `uniform_int_distribution<unsigned long>{0, max}(mt19937)` for `max` below the
/// generator's range: Lemire's multiply-and-reject with a 64-bit product (`_S_nd`). Requires
/// `max < u32::MAX`.
fn uniform_mt19937(g: &mut Mt, max: u64) -> u64 {
    debug_assert!(max < u64::from(u32::MAX));
    let range = (max + 1) as u32;
    let mut product = u64::from(g.next_u32()) * u64::from(range);
    let mut low = product as u32;
    if low < range {
        let threshold = range.wrapping_neg() % range;
        while low < threshold {
            product = u64::from(g.next_u32()) * u64::from(range);
            low = product as u32;
        }
    }
    product >> 32
}

/// Writes db_bench's key for integer `v` into `key` (whose length is the key size).
pub fn key_from_int(v: u64, key: &mut [u8]) {
    let fill = key.len().min(8);
    for (i, b) in key[..fill].iter_mut().enumerate() {
        *b = (v >> ((fill - i - 1) * 8)) as u8;
    }
    key[fill..].fill(b'0');
}

/// db_bench's value generator (`RandomGenerator` with fixed value sizes).
#[derive(Debug, Clone)]
pub struct ValueGenerator {
    data: Vec<u8>,
    pos: usize,
    rnd: ParkMiller,
}

impl ValueGenerator {
    /// A pool of at least 1 MiB (or `value_size`) whose 100-byte pieces compress to about
    /// `compression_ratio` of their size.
    pub fn new(compression_ratio: f64, value_size: usize) -> Self {
        let mut rnd = ParkMiller::new(301);
        let mut data = Vec::new();
        let raw = ((100.0 * compression_ratio) as usize).max(1);
        while data.len() < value_size.max(1 << 20) {
            // CHAR_MAX is 127 where char is signed (x86), as in db_bench's RandomBinaryString.
            let piece: Vec<u8> = (0..raw).map(|_| rnd.uniform(127) as u8).collect();
            let start = data.len();
            while data.len() - start < 100 {
                data.extend_from_slice(&piece);
            }
            data.truncate(start + 100);
        }
        ValueGenerator { data, pos: 0, rnd }
    }

    /// The next value of `len` bytes. Requires `len <= 1 MiB` or the size given at construction.
    pub fn generate(&mut self, len: usize) -> &[u8] {
        // db_bench draws once per value for --same_value_percentage (default 0) before choosing.
        let _ = self.rnd.uniform(100);
        if self.pos + len > self.data.len() {
            self.pos = 0;
        }
        self.pos += len;
        &self.data[self.pos - len..self.pos]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_db_bench_layout() {
        let mut k = [0u8; 16];
        key_from_int(0x0102_0304, &mut k);
        assert_eq!(&k, b"\0\0\0\0\x01\x02\x03\x0400000000");
        let mut short = [0u8; 4];
        key_from_int(0x0102_0304, &mut short);
        assert_eq!(&short, &[1, 2, 3, 4]);
    }

    #[test]
    fn park_miller_matches_reference_sequence() {
        // First outputs of the minimal standard generator from seed 1: 16807, 282475249.
        let mut r = ParkMiller::new(1);
        assert_eq!(r.next_u32(), 16_807);
        assert_eq!(r.next_u32(), 282_475_249);
        assert_eq!(ParkMiller::new(0).seed, 1);
    }

    #[test]
    fn mt64_matches_std_mt19937_64() {
        // The C++ standard requires the 10000th output of default-seeded mt19937_64 (seed 5489).
        let mut r = Random64::new(5489);
        let v = (0..10_000).map(|_| r.next_u64()).last();
        assert_eq!(v, Some(9_981_545_732_273_789_042));
    }

    /// Reference outputs of `std::uniform_int_distribution<uint64_t>(0, n - 1)` over
    /// `std::mt19937_64 g(42)` (RocksDB's `Random64::Uniform`), compiled with GCC 12 /
    /// libstdc++: three rounds over the bounds below, then the generator's next output.
    #[test]
    fn uniform_matches_libstdcxx_uniform_int_distribution() {
        let bounds = [2, 10, 20, 3, 100, 7, 1 << 63, 0xFFFF_FFFF_FFFF_FFF1];
        let expected: [u64; 24] = [
            1,
            6,
            15,
            0,
            90,
            0,
            5_299_475_676_119_306_768,
            6_878_563_960_102_566_138,
            0,
            3,
            0,
            1,
            68,
            4,
            7_623_575_904_737_143_654,
            17_445_057_953_250_372_377,
            1,
            4,
            0,
            0,
            74,
            1,
            3_922_284_076_844_483_212,
            1_845_540_734_139_632_327,
        ];
        let mut r = Random64::new(42);
        let got: Vec<u64> = (0..3)
            .flat_map(|_| bounds.to_vec())
            .map(|n| r.uniform(n))
            .collect();
        assert_eq!(got, expected);
        assert_eq!(r.next_u64(), 2_654_745_661_507_182_789);
        let mut r = Random64::new(7);
        assert_eq!((0..1000).filter(|_| r.one_in(2)).count(), 514);
    }

    /// Reference outputs of `std::mt19937 rng(seed); std::shuffle(v.begin(), v.end(), rng)` on
    /// `v = 0..num` (a `std::vector<uint64_t>`), compiled with GCC 12 / libstdc++: the first
    /// eight elements and the last. 20000, 20001 and 65535 take the two-positions-per-draw path
    /// (even and odd counts), 65536 and up one draw per position.
    #[test]
    fn unique_random_order_matches_libstdcxx_shuffle() {
        let cases: [(u64, u32, [u64; 8], u64); 6] = [
            (
                20_000,
                1,
                [16735, 14268, 19570, 5108, 4345, 14452, 6390, 19482],
                18494,
            ),
            (
                20_001,
                42,
                [16419, 10373, 14830, 16855, 18641, 4655, 11454, 15986],
                531,
            ),
            (
                65_535,
                9,
                [56339, 37136, 18050, 63398, 64731, 26927, 3067, 65369],
                9274,
            ),
            (
                65_536,
                9,
                [39437, 53659, 60244, 20923, 38668, 24919, 51729, 49575],
                37472,
            ),
            (
                100_000,
                1,
                [94617, 96639, 65840, 9893, 92127, 19725, 82443, 96367],
                84826,
            ),
            (
                1_000_000,
                1_234_567,
                [667912, 661151, 750323, 252667, 7633, 594075, 878802, 385246],
                505133,
            ),
        ];
        for (num, seed, first, last) in cases {
            let v = unique_random_order(num, seed);
            assert_eq!(v[..8], first, "num {num} seed {seed}");
            assert_eq!(v[v.len() - 1], last, "num {num} seed {seed}");
            let mut sorted = v.clone();
            sorted.sort_unstable();
            assert!(
                sorted.iter().copied().eq(0..num),
                "a permutation of 0..{num}"
            );
        }
        assert_eq!(unique_random_order(5, 3), [3, 4, 0, 2, 1]);
        assert_eq!(unique_random_order(2, 7), [1, 0]);
        assert_eq!(unique_random_order(1, 7), [0]);
        assert!(unique_random_order(0, 7).is_empty());
    }

    #[test]
    fn values_repeat_their_random_half() {
        let mut g = ValueGenerator::new(0.5, 100);
        let v = g.generate(100).to_vec();
        assert_eq!(v[..50], v[50..]);
        assert_ne!(g.generate(100), &v[..]);
    }
}
