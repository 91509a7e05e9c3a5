//! How many levels minimise write amplification.
//!
//! A tree whose largest level is `T` times the memtable (the *total fanout*: database size over
//! write buffer size) and that has `n` levels below the memtable grows by `w = T^(1/n)` per
//! level, and its total write amplification is `n·f(w)`, where `f` is what one level costs per
//! byte it receives ([`LevelCost`]). Writing `x = ln T / n` (so `w = e^x`), the total is
//! `ln T · f(e^x) / x`, so the best `x` does not depend on `T`: the best number of levels is
//! `ln T / x*` and the best growth factor `e^(x*)`, whatever the size of the database
//! (docs/design/lsm_math.md has the derivations).

use super::lambert;

/// What one level costs, in bytes written per byte it receives, as a function of its growth
/// factor `w`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelCost {
    /// `w`: some-to-some merges (RocksDB's leveled compaction merges a slice of a level into the
    /// `w` times larger overlapping slice of the next), counting the rewritten bytes of the
    /// next level.
    SomeToSome,
    /// `w + 1`: some-to-some merges, counting the incoming byte's own write as well.
    SomeToSomeWithOwnWrite,
    /// `(w + 1)/2`: all-to-all merges (a whole level merged into the next, which fills up from
    /// empty over `w` merges, the `k`-th rewriting `k` levels' worth), own write included.
    AllToAll,
    /// `(w − 1)/2`: all-to-all merges, counting only the rewrites of data already there.
    AllToAllRewritesOnly,
}

impl LevelCost {
    /// Bytes written per byte received by a level with growth factor `w`.
    pub fn per_level(self, w: f64) -> f64 {
        match self {
            LevelCost::SomeToSome => w,
            LevelCost::SomeToSomeWithOwnWrite => w + 1.0,
            LevelCost::AllToAll => (w + 1.0) / 2.0,
            LevelCost::AllToAllRewritesOnly => (w - 1.0) / 2.0,
        }
    }

    /// `x* = ln w*`, the log of the best growth factor, where `f(e^x)/x` is least; `None` when
    /// it has no minimum (`(w − 1)/2` falls towards `1/2` as `x → 0`: more levels always
    /// write less, and only reads bound their number).
    ///
    /// - `w`: `(x − 1)e^x = 0`, so `x* = 1` and `w* = e`.
    /// - `w + 1` and `(w + 1)/2` (a constant factor changes nothing): `(x − 1)e^x = 1`, that
    ///   is `(x − 1)e^(x − 1) = 1/e`, so `x* = 1 + W(1/e) ≈ 1.27846` and `w* ≈ 3.5911`.
    pub fn best_log_growth(self) -> Option<f64> {
        match self {
            LevelCost::SomeToSome => Some(1.0),
            LevelCost::SomeToSomeWithOwnWrite | LevelCost::AllToAll => {
                Some(1.0 + lambert::w0(1.0 / std::f64::consts::E).expect("in the domain"))
            }
            LevelCost::AllToAllRewritesOnly => None,
        }
    }
}

/// A number of levels, the growth factor it implies and the total write amplification.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelPlan {
    /// Levels below the memtable (fractional for [`continuous_optimum`]).
    pub levels: f64,
    /// Growth factor between adjacent levels, `T^(1/levels)`.
    pub growth: f64,
    /// Total write amplification, `levels · f(growth)`.
    pub write_amp: f64,
}

/// `T^(1/levels)`.
pub fn growth_factor(fanout: f64, levels: f64) -> f64 {
    fanout.powf(1.0 / levels)
}

/// Total write amplification of `levels` levels under `cost` for total fanout `fanout`.
pub fn write_amp(cost: LevelCost, fanout: f64, levels: f64) -> f64 {
    levels * cost.per_level(growth_factor(fanout, levels))
}

/// A tree sized from the bottom by a fixed `growth` (RocksDB's
/// `level_compaction_dynamic_level_bytes` with `max_bytes_for_level_multiplier`): as many full
/// levels of that growth as fit in `fanout`, and a first level that takes the rest
/// (`fanout / growth^(levels - 1)`, between 1 and `growth`). Its levels and total write
/// amplification, the sum of the levels' costs.
pub fn with_growth(cost: LevelCost, fanout: f64, growth: f64) -> LevelPlan {
    let levels = if fanout <= growth {
        1.0
    } else {
        // Rounded to absorb floating error (1000 at growth 10 is 3 full levels).
        (((fanout.ln() / growth.ln()) * 1e9).round() / 1e9).ceil()
    };
    let first = fanout.max(1.0) / growth.powf(levels - 1.0);
    LevelPlan {
        levels,
        growth,
        write_amp: (levels - 1.0) * cost.per_level(growth) + cost.per_level(first),
    }
}

/// The real-valued optimum, `levels = ln T / x*`; `None` when `cost` has none or `fanout ≤ 1`.
pub fn continuous_optimum(cost: LevelCost, fanout: f64) -> Option<LevelPlan> {
    let x = cost.best_log_growth()?;
    if fanout <= 1.0 || !fanout.is_finite() {
        return None;
    }
    let levels = fanout.ln() / x;
    Some(LevelPlan {
        levels,
        growth: x.exp(),
        write_amp: write_amp(cost, fanout, levels),
    })
}

/// The whole number of levels in `1..=max_levels` with the least total write amplification
/// (the fewest levels among equals). For a cost with a continuous optimum this is its floor or
/// its ceiling; for `(w − 1)/2` it is `max_levels`.
///
/// # Panics
/// If `max_levels` is 0.
pub fn best_levels(cost: LevelCost, fanout: f64, max_levels: u32) -> LevelPlan {
    assert!(max_levels > 0, "at least one level");
    let fanout = fanout.max(1.0);
    (1..=max_levels)
        .map(|n| {
            let levels = f64::from(n);
            LevelPlan {
                levels,
                growth: growth_factor(fanout, levels),
                write_amp: write_amp(cost, fanout, levels),
            }
        })
        .fold(None::<LevelPlan>, |best, p| match best {
            Some(b) if b.write_amp <= p.write_amp => Some(b),
            _ => Some(p),
        })
        .expect("at least one level")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ALL: [LevelCost; 4] = [
        LevelCost::SomeToSome,
        LevelCost::SomeToSomeWithOwnWrite,
        LevelCost::AllToAll,
        LevelCost::AllToAllRewritesOnly,
    ];

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    #[test]
    fn closed_forms() {
        let e = std::f64::consts::E;
        assert_eq!(LevelCost::SomeToSome.best_log_growth(), Some(1.0));
        let x = LevelCost::SomeToSomeWithOwnWrite.best_log_growth().unwrap();
        assert!(close(x, 1.278_464_542_761_074, 1e-12), "{x}");
        assert!(close(x.exp(), 3.591_121_476_668_622, 1e-12), "{}", x.exp());
        // At x*, e^x + 1 = x·e^x: the minimum total is w*·ln T.
        assert!(close(x.exp() + 1.0, x * x.exp(), 1e-12));
        for t in [10.0, 1024.0, 1e6] {
            let w = continuous_optimum(LevelCost::SomeToSome, t).unwrap();
            assert!(close(w.levels, f64::ln(t), 1e-12) && close(w.growth, e, 1e-12));
            assert!(close(w.write_amp, e * f64::ln(t), 1e-12));
            let w1 = continuous_optimum(LevelCost::SomeToSomeWithOwnWrite, t).unwrap();
            assert!(close(w1.levels, f64::ln(t) / 1.278_464_542_761_074, 1e-12));
            assert!(close(w1.write_amp, w1.growth * f64::ln(t), 1e-12));
            let half = continuous_optimum(LevelCost::AllToAll, t).unwrap();
            assert!(
                close(half.levels, w1.levels, 1e-12),
                "same optimum as w + 1"
            );
            assert!(close(half.write_amp, w1.write_amp / 2.0, 1e-12));
        }
        assert_eq!(
            continuous_optimum(LevelCost::AllToAllRewritesOnly, 1024.0),
            None
        );
        assert_eq!(continuous_optimum(LevelCost::SomeToSome, 1.0), None);
    }

    /// T = 1024: the `w` model wants 7 levels (w = 2.69, total 18.84), the `w + 1` model 5
    /// (w = 4, total 25).
    #[test]
    fn fanout_1024() {
        let p = best_levels(LevelCost::SomeToSome, 1024.0, 20);
        assert_eq!(p.levels, 7.0);
        assert!(close(p.write_amp, 18.84, 1e-3), "{p:?}");
        let p = best_levels(LevelCost::SomeToSomeWithOwnWrite, 1024.0, 20);
        assert_eq!(p.levels, 5.0);
        assert!(
            close(p.growth, 4.0, 1e-12) && close(p.write_amp, 25.0, 1e-12),
            "{p:?}"
        );
        let p = best_levels(LevelCost::AllToAllRewritesOnly, 1024.0, 20);
        assert_eq!(p.levels, 20.0, "more levels always write less");
    }

    /// 1000 at growth 10 is three full levels; 1024 adds a first level of growth 1.024.
    #[test]
    fn fixed_growth_from_the_bottom() {
        let p = with_growth(LevelCost::SomeToSome, 1000.0, 10.0);
        assert_eq!(p.levels, 3.0);
        assert!(close(p.write_amp, 30.0, 1e-9), "{p:?}");
        let p = with_growth(LevelCost::SomeToSomeWithOwnWrite, 1024.0, 10.0);
        assert_eq!(p.levels, 4.0);
        assert!(close(p.write_amp, 3.0 * 11.0 + 2.024, 1e-9), "{p:?}");
        assert_eq!(with_growth(LevelCost::SomeToSome, 5.0, 10.0).levels, 1.0);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// The whole-number optimum is no worse than any other count, and is the floor or the
        /// ceiling of the continuous optimum where there is one.
        #[test]
        fn integer_optimum(t in 2.0f64..1e9, max in 1u32..40, c in 0usize..4) {
            let cost = ALL[c];
            let best = best_levels(cost, t, max);
            for n in 1..=max {
                prop_assert!(best.write_amp <= write_amp(cost, t, f64::from(n)) + 1e-12);
            }
            if let Some(opt) = continuous_optimum(cost, t) {
                prop_assert!(opt.write_amp <= best.write_amp + 1e-9);
                if opt.levels.ceil() <= f64::from(max) {
                    let (lo, hi) = (opt.levels.floor().max(1.0), opt.levels.ceil().max(1.0));
                    prop_assert!(best.levels == lo || best.levels == hi,
                        "best {:?}, continuous {:?}", best, opt);
                }
            }
        }
    }
}
