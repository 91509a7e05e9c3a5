//! The Lambert W function: `W(x)` is the `w` with `w·e^w = x`. The principal branch `W₀` is
//! defined for `x ≥ −1/e` and takes values `≥ −1`.

/// `−1/e`, the smallest argument of the principal branch.
pub const MIN_ARG: f64 = -0.367_879_441_171_442_33;

/// `W₀(x)`, the principal branch; `None` for `x < −1/e` or NaN. Relative error about 1e-12,
/// except close to `−1/e`, where W is ill-conditioned (its slope is infinite) and the error is
/// about the square root of the argument's rounding error.
///
/// Halley's iteration from an initial guess that is a series at the branch point near `−1/e`,
/// `ln(1 + x)` for moderate `x` and `ln x − ln ln x` for large `x`.
pub fn w0(x: f64) -> Option<f64> {
    if x.is_nan() || x < MIN_ARG {
        return None;
    }
    if x == 0.0 {
        return Some(0.0);
    }
    if x.is_infinite() {
        return Some(f64::INFINITY);
    }
    let mut w = if x < -0.25 {
        // W near the branch point: −1 + p − p²/3, p = √(2(e·x + 1)).
        let p = (2.0 * (std::f64::consts::E * x + 1.0)).max(0.0).sqrt();
        -1.0 + p - p * p / 3.0
    } else if x < 3.0 {
        x.ln_1p() * 0.9
    } else {
        let l = x.ln();
        l - l.ln()
    };
    for _ in 0..64 {
        let e = w.exp();
        let f = w * e - x;
        if f == 0.0 {
            break;
        }
        let wp1 = w + 1.0;
        if wp1 == 0.0 {
            break; // at the branch point: w = −1 exactly
        }
        let step = f / (e * wp1 - (w + 2.0) * f / (2.0 * wp1));
        let next = w - step;
        if !next.is_finite() {
            break;
        }
        let done = (next - w).abs() <= 4.0 * f64::EPSILON * next.abs().max(1.0);
        w = next;
        if done {
            break;
        }
    }
    Some(w.max(-1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn known_values() {
        let cases: [(f64, f64); 8] = [
            (0.0, 0.0),
            (1.0, 0.567_143_290_409_783_8), // the omega constant
            (1.0 / std::f64::consts::E, 0.278_464_542_761_073_8),
            (std::f64::consts::E, 1.0),
            (MIN_ARG, -1.0),
            (-0.3, -0.489_402_227_180_214_5),
            (10.0, 1.745_528_002_740_699_5),
            (1e6, 11.383_358_086_140_053),
        ];
        for (x, want) in cases {
            let got = w0(x).unwrap();
            let tolerance = if x < -0.36 {
                1e-7
            } else {
                1e-12 * want.abs().max(1.0)
            };
            assert!(
                (got - want).abs() < tolerance,
                "W({x}) = {got}, want {want}"
            );
        }
        assert_eq!(w0(MIN_ARG - 1e-9), None);
        assert_eq!(w0(f64::NAN), None);
    }

    #[test]
    fn one_over_e_to_twelve_digits() {
        let w = w0(1.0 / std::f64::consts::E).unwrap();
        assert!((w - 0.278_464_542_761_073_8).abs() < 1e-12, "{w}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// W(x)·e^W(x) = x, and W is the principal branch (≥ −1).
        #[test]
        fn inverts_w_exp_w(x in -0.3678f64..1e9) {
            let w = w0(x).unwrap();
            prop_assert!(w >= -1.0);
            let back = w * w.exp();
            prop_assert!((back - x).abs() <= 1e-9 * x.abs().max(1e-3), "W({}) = {}, back {}", x, w, back);
        }
    }
}
