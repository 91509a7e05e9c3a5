//! sysbench-tpcc's random inputs: uniform integers and doubles, its string templates, TPC-C's
//! last names and `NURand`.
//!
//! As in sysbench-tpcc (`tpcc_common.lua`), `NURand`'s constant `C` is drawn anew on every call
//! (its initialisation guard never holds in Lua), which makes the skew much milder than the
//! specification's fixed `C`; this suite keeps that so that its figures compare with runs of
//! sysbench-tpcc.

use crate::bench::generator::Random64;

/// A thread's random source with sysbench's helpers.
#[derive(Debug)]
pub struct Rand(pub Random64);

/// The syllables of TPC-C last names.
const SYLLABLES: [&str; 10] = [
    "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
];

impl Rand {
    /// A generator seeded `seed`.
    pub fn new(seed: u64) -> Self {
        Rand(Random64::new(seed))
    }

    /// `sysbench.rand.uniform(a, b)`: an integer in `a..=b`.
    pub fn uniform(&mut self, a: i64, b: i64) -> i64 {
        a + self.0.uniform((b - a + 1) as u64) as i64
    }

    /// `sysbench.rand.uniform_double()`: a value in `[0, 1)`.
    pub fn double(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `NURand(A, x, y)` with `C` drawn from `0..=A` on each call (module documentation).
    pub fn nurand(&mut self, a: i64, x: i64, y: i64) -> i64 {
        let c = self.uniform(0, a);
        (((self.uniform(0, a) | self.uniform(x, y)) + c) % (y - x + 1)) + x
    }

    /// `n` random lowercase letters (`@` in sysbench's templates).
    pub fn letters(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| b'a' + self.0.uniform(26) as u8).collect()
    }

    /// `n` random digits (`#`).
    pub fn digits(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| b'0' + self.0.uniform(10) as u8).collect()
    }

    /// `string.rep(rand.string("@"), n)`: one random letter repeated `n` times.
    pub fn repeated(&mut self, n: usize) -> Vec<u8> {
        vec![b'a' + self.0.uniform(26) as u8; n]
    }
}

/// TPC-C's last name of `num` (0..=999): the syllables of its three digits.
pub fn last_name(num: i64) -> Vec<u8> {
    let n = num.clamp(0, 999) as usize;
    [n / 100, (n / 10) % 10, n % 10]
        .iter()
        .flat_map(|&d| SYLLABLES[d].bytes())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_names_and_ranges() {
        assert_eq!(last_name(0), b"BARBARBAR");
        assert_eq!(last_name(371), b"PRICALLYOUGHT");
        assert_eq!(last_name(999), b"EINGEINGEING");
        let mut r = Rand::new(1);
        for _ in 0..10_000 {
            let v = r.nurand(1023, 1, 3000);
            assert!((1..=3000).contains(&v));
            let u = r.uniform(5, 15);
            assert!((5..=15).contains(&u));
            let d = r.double();
            assert!((0.0..1.0).contains(&d));
        }
    }
}
