//! Filter bits per run (Monkey: Dayan, Athanassoulis and Idreos, SIGMOD 2017).
//!
//! A lookup of a key that is not there probes one filter per run it reaches (every level of a
//! leveled tree) and reads a block for each false positive, so it costs `R = Σ p(bⱼ)` reads,
//! where run `j` has `nⱼ` keys and `bⱼ` bits per key, and `p` is the filter's false-positive
//! rate. The same memory, `M = Σ nⱼ·bⱼ`, spread evenly gives every run the same rate; Monkey
//! spreads it so that `R` is least. With the ideal Bloom filter, `p(b) = e^(−b·ln²2)`, the
//! Lagrange condition makes each run's rate proportional to its size, `pⱼ ∝ nⱼ`, which in bits
//! is [`ideal`]'s closed form: a run ten times smaller gets `ln 10 / ln²2 ≈ 4.79` more bits per
//! key. [`allocate`] does the same for any rate curve, such as CairnDB's cache-local filter
//! ([`cache_local_fpr`]): the curve is sampled ([`RateCurve`]) and replaced by its lower convex
//! hull, and the hull's segments go to runs in the order of false positives removed per bit
//! spent (a fractional knapsack, optimal on the hull).

use std::sync::OnceLock;

use crate::sstable::{choose_num_probes, theoretical_fpr, FILTER_LINE_BITS};

/// `ln²2`: bits per key per unit of `−ln p` in an ideal Bloom filter.
pub const LN2_SQUARED: f64 = std::f64::consts::LN_2 * std::f64::consts::LN_2;

/// The ideal Bloom filter's false-positive rate at `bits` per key (with the best number of
/// probes, real-valued): `e^(−bits·ln²2)`.
pub fn ideal_fpr(bits: f64) -> f64 {
    (-bits.max(0.0) * LN2_SQUARED).exp()
}

/// CairnDB's filter's rate at `bits` per key (1 at 0 bits): the cache-local filter with the
/// number of probes the table builder chooses for those bits.
pub fn cache_local_fpr(bits: f64) -> f64 {
    if bits <= 0.0 {
        return 1.0;
    }
    let probes = choose_num_probes(bits);
    theoretical_fpr(f64::from(FILTER_LINE_BITS) / bits, u32::from(probes)).min(1.0)
}

/// Expected false positives of a lookup that probes every run once: `Σ fpr(bⱼ)`.
pub fn expected_false_positives(bits: &[f64], fpr: impl Fn(f64) -> f64) -> f64 {
    bits.iter().map(|&b| fpr(b)).sum()
}

/// Monkey's closed form for the ideal filter: bits per key for runs of `keys[j]` keys sharing
/// `total_bits`, `bⱼ = M'/N' + (H' − ln nⱼ)/ln²2` with `H' = Σ nₖ ln nₖ / N'` over the runs
/// that get bits (a run whose share would be negative gets none, and the rest is solved again
/// without it). Runs with no keys get none.
pub fn ideal(keys: &[f64], total_bits: f64) -> Vec<f64> {
    let mut bits = vec![0.0; keys.len()];
    let mut active: Vec<usize> = (0..keys.len()).filter(|&j| keys[j] > 0.0).collect();
    while !active.is_empty() {
        let n: f64 = active.iter().map(|&j| keys[j]).sum();
        let h: f64 = active.iter().map(|&j| keys[j] * keys[j].ln()).sum::<f64>() / n;
        let base = total_bits.max(0.0) / n;
        for &j in &active {
            bits[j] = base + (h - keys[j].ln()) / LN2_SQUARED;
        }
        let before = active.len();
        active.retain(|&j| bits[j] > 0.0);
        if active.len() == before {
            break;
        }
        for b in bits.iter_mut() {
            if *b < 0.0 {
                *b = 0.0;
            }
        }
    }
    bits
}

/// A false-positive rate curve sampled every `step` bits per key from 0 to `max_bits`, kept as
/// its lower convex hull (the rates reachable by mixing two sampled settings across a run's
/// keys). Convexity is what makes handing out bits greedily optimal; a curve that is flat at
/// first (one bit per key removes almost nothing) would otherwise stall a greedy allocation.
#[derive(Debug, Clone)]
pub struct RateCurve {
    step: f64,
    /// Hull vertices `(bits, rate)`, bits increasing, rates decreasing.
    hull: Vec<(f64, f64)>,
}

impl RateCurve {
    /// Samples `fpr` at `0, step, 2·step, …, max_bits`.
    ///
    /// # Panics
    /// If `step` or `max_bits` is not positive.
    pub fn sample(max_bits: f64, step: f64, fpr: impl Fn(f64) -> f64) -> Self {
        assert!(step > 0.0 && max_bits > 0.0, "a positive step and range");
        let n = (max_bits / step).round() as usize;
        let mut hull: Vec<(f64, f64)> = Vec::new();
        for i in 0..=n {
            let b = i as f64 * step;
            let p = fpr(b);
            // Lower hull (Andrew's monotone chain): drop the last vertex while it lies on or
            // above the line from the one before it to the new point.
            while hull.len() >= 2 {
                let (b1, p1) = hull[hull.len() - 2];
                let (b2, p2) = hull[hull.len() - 1];
                if (p2 - p1) * (b - b1) >= (p - p1) * (b2 - b1) {
                    hull.pop();
                } else {
                    break;
                }
            }
            hull.push((b, p));
        }
        // Past the lowest rate more bits remove nothing.
        let lowest = hull
            .iter()
            .enumerate()
            .min_by(|a, b| a.1 .1.total_cmp(&b.1 .1))
            .map_or(0, |(i, _)| i);
        hull.truncate(lowest + 1);
        RateCurve { step, hull }
    }

    /// The sampling step, bits per key.
    pub fn step(&self) -> f64 {
        self.step
    }
}

/// Bits per key for runs of `keys[j]` keys sharing `total_bits`, minimising the expected false
/// positives on `curve`'s hull. Each run's hull segments (a vertex to the next) are taken in
/// the order of rate removed per bit spent, `slope / nⱼ`, whole while they fit. A segment that
/// does not fit is taken in part, rounded down to the curve's step, and that run gets no more;
/// the others go on until nothing fits. The result never spends more than `total_bits`; every
/// run but those taken in part sits on a hull vertex, so on a curve that is its own hull the
/// result is within one step per run of the optimum.
pub fn allocate(keys: &[f64], total_bits: f64, curve: &RateCurve) -> Vec<f64> {
    let mut bits = vec![0.0; keys.len()];
    let mut closed = vec![false; keys.len()];
    let mut left = total_bits.max(0.0);
    // (ratio, run, segment): every segment of every run with keys.
    let mut segments: Vec<(f64, usize, usize)> = Vec::new();
    for (j, &n) in keys.iter().enumerate() {
        if n <= 0.0 {
            continue;
        }
        for k in 0..curve.hull.len().saturating_sub(1) {
            let ((b0, p0), (b1, p1)) = (curve.hull[k], curve.hull[k + 1]);
            segments.push(((p0 - p1) / (b1 - b0) / n, j, k));
        }
    }
    // Convex hull: a run's segments come in order of decreasing ratio, so this order also gives
    // each run its segments in turn (ties broken by segment index to keep it so).
    segments.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)));
    for (_, j, k) in segments {
        if closed[j] {
            continue;
        }
        let width = curve.hull[k + 1].0 - curve.hull[k].0;
        let cost = keys[j] * width;
        if cost <= left {
            bits[j] = curve.hull[k + 1].0;
            left -= cost;
        } else {
            let part = (((left / keys[j]) / curve.step).floor() * curve.step).min(width);
            bits[j] = curve.hull[k].0 + part;
            left -= keys[j] * part;
            closed[j] = true;
        }
    }
    bits
}

/// [`cache_local_fpr`] sampled every 0.05 bits per key up to 40 (past about 30 bits a
/// line-local filter gains almost nothing), computed once.
pub fn cache_local_curve() -> &'static RateCurve {
    static CURVE: OnceLock<RateCurve> = OnceLock::new();
    CURVE.get_or_init(|| RateCurve::sample(40.0, 0.05, cache_local_fpr))
}

/// Most L0 runs [`leveled_tree`] models: past this many, L0 is assumed to hold this many (an
/// L0 compaction trigger of millions, as bulk loads set, would otherwise make millions of runs).
pub const MAX_L0_RUNS: usize = 64;

/// Filter bits per key for a leveled tree on CairnDB's filter: `l0_runs` L0 runs (at most
/// [`MAX_L0_RUNS`]) of `l0_keys` keys each, then one run per entry of `levels` (keys; entries
/// of 0 are not runs and get the deepest run's bits), sharing `bits_per_key` times their keys.
/// Returns L0's bits (the least any L0 run got) and each level's. Bits below 1 per key become
/// 0 (no filter), as the table builder takes 0 or 1..=100.
pub fn leveled_tree(
    l0_runs: usize,
    l0_keys: f64,
    levels: &[f64],
    bits_per_key: f64,
) -> (f64, Vec<f64>) {
    let l0_runs = l0_runs.clamp(1, MAX_L0_RUNS);
    let mut keys = vec![l0_keys; l0_runs];
    let runs: Vec<usize> = (0..levels.len()).filter(|&l| levels[l] > 0.0).collect();
    keys.extend(runs.iter().map(|&l| levels[l]));
    let bits = allocate(
        &keys,
        bits_per_key * keys.iter().sum::<f64>(),
        cache_local_curve(),
    );
    let usable = |b: f64| if b < 1.0 { 0.0 } else { b.min(100.0) };
    let l0 = usable(
        bits[..l0_runs]
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min),
    );
    let mut by_level = vec![f64::NAN; levels.len()];
    for (i, &l) in runs.iter().enumerate() {
        by_level[l] = usable(bits[l0_runs + i]);
    }
    let deepest = runs.last().map_or(l0, |&l| by_level[l]);
    for b in &mut by_level {
        if b.is_nan() {
            *b = deepest;
        }
    }
    (l0, by_level)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Runs of 1, 10, 100 and 1,000 keys at 10 bits per key on average: Monkey gives 23.85,
    /// 19.05, 14.26 and 9.47 bits per key and 0.01175 expected false positives, against
    /// 0.0328 (2.8 times as many) with 10 bits everywhere.
    #[test]
    fn closed_form_vector() {
        let keys = [1.0, 10.0, 100.0, 1000.0];
        let total = 10.0 * keys.iter().sum::<f64>();
        let bits = ideal(&keys, total);
        for (got, want) in bits.iter().zip([23.85, 19.05, 14.26, 9.47]) {
            assert!((got - want).abs() < 0.005, "{bits:?}");
        }
        let spent: f64 = bits.iter().zip(&keys).map(|(b, n)| b * n).sum();
        assert!((spent - total).abs() < 1e-6 * total);
        let r = expected_false_positives(&bits, ideal_fpr);
        let uniform = expected_false_positives(&[10.0; 4], ideal_fpr);
        assert!((r - 0.01175).abs() < 0.00001, "{r}");
        assert!((uniform - 0.0328).abs() < 0.0001, "{uniform}");
        // Rates proportional to sizes.
        let rates: Vec<f64> = bits.iter().map(|&b| ideal_fpr(b)).collect();
        for j in 1..4 {
            assert!((rates[j] / rates[j - 1] - 10.0).abs() < 1e-9, "{rates:?}");
        }
    }

    #[test]
    fn small_budgets_starve_the_smallest_share() {
        // With 0.3 bits per key on average, the formula would give the largest run a negative
        // share: it gets none, and the rest is re-solved.
        let keys = [1.0, 10.0, 100.0, 1000.0];
        let total = 0.3 * keys.iter().sum::<f64>();
        let bits = ideal(&keys, total);
        assert_eq!(bits[3], 0.0, "{bits:?}");
        assert!(bits[..3].iter().all(|&b| b > 0.0), "{bits:?}");
        let spent: f64 = bits.iter().zip(&keys).map(|(b, n)| b * n).sum();
        assert!((spent - total).abs() < 1e-6, "{spent}");
    }

    /// On the ideal curve the allocation reproduces the closed form.
    #[test]
    fn hull_allocation_matches_the_closed_form() {
        let keys = [1.0, 10.0, 100.0, 1000.0];
        let total = 10.0 * keys.iter().sum::<f64>();
        let curve = RateCurve::sample(60.0, 0.01, ideal_fpr);
        let got = allocate(&keys, total, &curve);
        let exact = ideal(&keys, total);
        // Within a step or two of the closed form; the smaller runs may get more, as the bits
        // left when the largest run's next step no longer fits go to them.
        for (g, e) in got.iter().zip(&exact) {
            assert!(
                *g >= e - 0.02 && *g < e + 0.2,
                "allocated {got:?}, exact {exact:?}"
            );
        }
        assert!(
            (got[3] - exact[3]).abs() < 0.02,
            "allocated {got:?}, exact {exact:?}"
        );
        let (r, best) = (
            expected_false_positives(&got, ideal_fpr),
            expected_false_positives(&exact, ideal_fpr),
        );
        // One 0.01-bit step on the largest run, which carries 90% of the false positives,
        // moves the total by 0.3%.
        assert!(
            r >= best * (1.0 - 1e-9) && r <= best * 1.005,
            "{r} against {best}"
        );
    }

    /// A curve that is flat at first gets bits anyway: its hull skips the flat start.
    #[test]
    fn a_flat_start_does_not_stall_the_allocation() {
        let keys = [1000.0, 1000.0];
        let curve = RateCurve::sample(40.0, 0.05, cache_local_fpr);
        let got = allocate(&keys, 10.0 * 2000.0, &curve);
        assert!(got.iter().all(|&b| b > 5.0), "{got:?}");
    }

    #[test]
    fn cache_local_curve_is_a_rate() {
        assert_eq!(cache_local_fpr(0.0), 1.0);
        let mut last = 1.0;
        for b in 1..=30 {
            let p = cache_local_fpr(f64::from(b));
            assert!(p > 0.0 && p <= last, "{b} bits: {p} after {last}");
            last = p;
        }
        // Close to the ideal filter at 10 bits per key, worse at 20 (cache locality).
        assert!(cache_local_fpr(10.0) < 0.02 && cache_local_fpr(10.0) > ideal_fpr(10.0));
        assert!(cache_local_fpr(20.0) > 2.0 * ideal_fpr(20.0));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// At equal memory (what it spent, spread evenly), the allocation expects no more false
        /// positives than the same bits per key everywhere (0.1% allowed for the runs that
        /// stop between two hull vertices), on either curve, and never spends more than it
        /// has.
        #[test]
        fn never_worse_than_uniform(
            keys in prop::collection::vec(1.0f64..1e6, 1..7),
            per_key in 1.0f64..20.0,
            local in any::<bool>(),
        ) {
            let step = 0.05;
            let fpr = |b: f64| if local { cache_local_fpr(b) } else { ideal_fpr(b) };
            let curve = RateCurve::sample(40.0, step, fpr);
            let total: f64 = per_key * keys.iter().sum::<f64>();
            let bits = allocate(&keys, total, &curve);
            let spent: f64 = bits.iter().zip(&keys).map(|(b, n)| b * n).sum();
            prop_assert!(spent <= total * (1.0 + 1e-9));
            let uniform = spent / keys.iter().sum::<f64>();
            let r = expected_false_positives(&bits, fpr);
            let u = expected_false_positives(&vec![uniform; keys.len()], fpr);
            prop_assert!(r <= u * 1.001, "monkey {} > uniform {} ({:?})", r, u, bits);
        }
    }
}
