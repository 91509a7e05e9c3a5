//! The key distribution of random reads and read-writes (`--key_dist`). db_bench has no zipfian
//! choice for readrandom (its `--key_dist_a/b` shape only mixgraph, and `--read_random_exp_range`
//! is exponential), so `cairn bench` adds `--key_dist=zipfian` with `--zipf_theta`.
//!
//! Both distributions make exactly one draw from the thread's generator per key, so the draws
//! that follow (db_bench's database choice, the next key) stay where db_bench has them, and
//! `--key_dist=uniform` (the default) gives db_bench's keys: `draw % num`.
//!
//! Zipfian is YCSB's scrambled zipfian: a rank from Gray et al.'s generator ("Quickly generating
//! billion-record synthetic databases", SIGMOD 1994) with exponent `theta`, then hashed (FNV-1a
//! 64) onto the key space, so the hot keys are spread over the key space instead of being its
//! first keys (which would give them an unrealistic locality in the tree).

use super::engine::{BenchError, Result};
use super::generator::Random64;

/// How random keys are chosen.
#[derive(Debug, Clone)]
pub enum KeyDist {
    /// Uniform over `0..num` (db_bench's).
    Uniform {
        /// The key space.
        num: u64,
    },
    /// Scrambled zipfian over `0..num`.
    Zipfian(Zipfian),
}

/// Gray et al.'s zipfian generator over ranks `0..n`, with its constants precomputed.
#[derive(Debug, Clone)]
pub struct Zipfian {
    n: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
}

impl Zipfian {
    /// A generator over `n` ranks with exponent `theta` in (0, 1). Computing zeta(n) takes
    /// O(n) time once.
    ///
    /// # Errors
    /// [`BenchError::Usage`] for a `theta` outside (0, 1).
    pub fn new(n: u64, theta: f64) -> Result<Self> {
        if !(theta > 0.0 && theta < 1.0) {
            return Err(BenchError::Usage(format!(
                "--zipf_theta={theta} must be between 0 and 1 (exclusive); YCSB uses 0.99"
            )));
        }
        let zetan: f64 = (1..=n).map(|i| 1.0 / (i as f64).powf(theta)).sum();
        let zeta2 = 1.0 + 0.5f64.powf(theta);
        let eta = (1.0 - (2.0 / n as f64).powf(1.0 - theta)) / (1.0 - zeta2 / zetan);
        Ok(Zipfian {
            n,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta,
        })
    }

    /// The rank for a uniform `u` in [0, 1): 0 is the most frequent.
    pub fn rank(&self, u: f64) -> u64 {
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1.min(self.n - 1);
        }
        let r = (self.n as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        r.min(self.n - 1)
    }
}

/// FNV-1a 64 of the rank's little-endian bytes (YCSB's `fnvhash64`).
fn fnv1a64(v: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in v.to_le_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl KeyDist {
    /// Parses `--key_dist` for a key space of `num`.
    ///
    /// # Errors
    /// [`BenchError::Usage`] for an unknown distribution or a bad theta.
    pub fn parse(name: &str, num: u64, theta: f64) -> Result<Self> {
        match name {
            "uniform" => Ok(KeyDist::Uniform { num }),
            "zipfian" | "zipf" => Ok(KeyDist::Zipfian(Zipfian::new(num, theta)?)),
            other => Err(BenchError::Usage(format!(
                "unknown --key_dist {other:?} (use uniform or zipfian)"
            ))),
        }
    }

    /// The next key index, from one draw of `rng`.
    pub fn next(&self, rng: &mut Random64) -> u64 {
        let draw = rng.next_u64();
        match self {
            KeyDist::Uniform { num } => draw % num,
            KeyDist::Zipfian(z) => {
                let u = (draw >> 11) as f64 / (1u64 << 53) as f64;
                fnv1a64(z.rank(u)) % z.n
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_is_db_bench_modulo() {
        let d = KeyDist::parse("uniform", 1000, 0.99).expect("parse");
        let (mut a, mut b) = (Random64::new(7), Random64::new(7));
        for _ in 0..100 {
            assert_eq!(d.next(&mut a), b.next_u64() % 1000);
        }
    }

    #[test]
    fn zipfian_is_skewed_and_in_range() {
        let z = Zipfian::new(10_000, 0.99).expect("zipf");
        assert_eq!(z.rank(0.0), 0);
        assert!(z.rank(0.999_999) < 10_000);
        let d = KeyDist::Zipfian(z);
        let mut rng = Random64::new(1);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..100_000 {
            let k = d.next(&mut rng);
            assert!(k < 10_000);
            *counts.entry(k).or_insert(0u32) += 1;
        }
        // Under theta 0.99 over 10,000 keys the hottest key takes about 10% of draws; uniform
        // would give each about 0.01%.
        let hottest = counts.values().copied().max().expect("counts");
        assert!(hottest > 5_000, "{hottest}");
        assert!(counts.len() < 10_000);
        assert!(KeyDist::parse("zipfian", 10, 1.5).is_err());
        assert!(KeyDist::parse("pareto", 10, 0.5).is_err());
    }
}
