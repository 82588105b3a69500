//! The transition-aware line-search limiter ("TALS", Drake `internal::TalsLimiter::CalcAlpha`,
//! `docs/tamsi.md` §6).
//!
//! Newton steps on regularized friction go wrong in predictable ways: gradients vanish near zero
//! slip and the friction force turns sharply around it. Per contact, the limiter looks at the
//! tangential velocity `v` and its full Newton update `dv` and returns the fraction `α ∈ (0, 1]`
//! of the step to take, or "no solution". The solver takes the smallest α over all contacts.

/// Step factor for one contact, or `None` when the limiter has no solution (Drake's `nullopt`,
/// which the solver reports as [`TamsiOutcome::AlphaSolverFailed`](super::TamsiOutcome)).
///
/// * `vt`: the contact's tangential velocity, m/s;
/// * `dvt`: its full Newton update `(Jt Δv)_i`, m/s;
/// * `cos_theta_max`: cosine of the largest allowed change of direction per iteration;
/// * `stiction_tolerance` (`vs`, m/s) and `relative_tolerance` (`rtol`): as in
///   [`TamsiParameters`](super::TamsiParameters).
///
/// The cases are evaluated in Drake's order with its strict inequalities; norms are true
/// Euclidean norms. A NaN speed falls through to the sliding branch and ends in `None`.
#[inline(always)]
pub fn calc_alpha(
    vt: [f64; 2],
    dvt: [f64; 2],
    cos_theta_max: f64,
    stiction_tolerance: f64,
    relative_tolerance: f64,
) -> Option<f64> {
    let vs = stiction_tolerance;
    let rtol = relative_tolerance;
    let eps_v = vs * rtol;
    let dot = |a: [f64; 2], b: [f64; 2]| a[0] * b[0] + a[1] * b[1];

    // Case I: negligible update.
    let dv_norm2 = dot(dvt, dvt);
    if dv_norm2 < eps_v * eps_v {
        return Some(1.0);
    }

    let v1 = [vt[0] + dvt[0], vt[1] + dvt[1]];
    let v_norm = dot(vt, vt).sqrt();
    let v1_norm = dot(v1, v1).sqrt();
    let x = v_norm / vs;
    let x1 = v1_norm / vs;
    let dv_norm = dv_norm2.sqrt();

    // Case II: from (almost) zero into the sliding region, where gradients at the origin are
    // weak: land at about vs/2 along dv.
    if x < rtol && x1 > 1.0 {
        return Some(vs / (2.0 * dv_norm));
    }
    // Case III: from sliding to (almost) exactly zero: stop at about vs/2 on the incoming side.
    if x > 1.0 && x1 < rtol {
        return Some(1.0 - vs / (2.0 * dv_norm));
    }
    // Inside the stiction region gradients are strong: any step is fine.
    if x < 1.0 {
        return Some(1.0);
    }

    // Sliding (x ≥ 1, or x is NaN).
    // Case IV: landing inside the stiction region.
    if x1 < 1.0 {
        return Some(1.0);
    }
    // Case V: the segment from v to v1 may cross the stiction circle.
    let v_dot_dv = dot(vt, dvt);
    if v_dot_dv < 0.0 {
        let alpha_star = -v_dot_dv / dv_norm2;
        if alpha_star < 1.0 {
            let v_alpha = [vt[0] + alpha_star * dvt[0], vt[1] + alpha_star * dvt[1]];
            let v_alpha_norm = dot(v_alpha, v_alpha).sqrt();
            if v_alpha_norm < eps_v {
                // Passes (almost) through zero: back off vs/2 before the origin.
                return Some(alpha_star - vs / (2.0 * dv_norm));
            } else if v_alpha_norm < vs {
                // The closest point to the origin lies inside the stiction region.
                return Some(alpha_star);
            }
        }
    }

    // Case VI: change entirely in the sliding region; limit the change of direction to θmax.
    let cos1 = dot(vt, v1) / (v_norm * v1_norm);
    if cos1 > cos_theta_max {
        return Some(1.0);
    }
    // cos θmax = v·(v + α dv)/(‖v‖‖v + α dv‖), squared: a α² + b α + c = 0 (dimensionless).
    let xdx = v_dot_dv / (vs * vs);
    let dx = dv_norm / vs;
    let x2 = x * x;
    let c2 = cos_theta_max * cos_theta_max;
    let a = x2 * dx * dx * c2 - xdx * xdx;
    let b = 2.0 * x2 * xdx * (c2 - 1.0);
    let c = x2 * x2 * (c2 - 1.0);
    smallest_positive_root(a, b, c)
}

/// Root rule of Case VI (Drake `SolveQuadraticForTheSmallestPositiveRoot`, §6): the linear
/// solution when `|a| < ε_machine`; otherwise the numerically stable roots `q/a` and `c/q`, the
/// smaller if both are positive, else the larger. `None` when the discriminant is not positive
/// (NaN included) or when neither root is positive (where Drake aborts the process).
fn smallest_positive_root(a: f64, b: f64, c: f64) -> Option<f64> {
    use crate::linalg::scalar::{cxx_max, cxx_min};
    if a.abs() < f64::EPSILON {
        return Some(-c / b);
    }
    let delta = b * b - 4.0 * a * c;
    if !(delta > 0.0) {
        return None;
    }
    let sigma = if b > 0.0 { 1.0 } else { -1.0 };
    let q = -0.5 * (b + sigma * delta.sqrt());
    let alpha1 = q / a;
    let alpha2 = c / q;
    match (alpha1 > 0.0, alpha2 > 0.0) {
        (true, true) => Some(cxx_min(alpha1, alpha2)),
        (false, false) => None,
        _ => Some(cxx_max(alpha1, alpha2)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_rule_branches() {
        // Linear branch.
        assert_eq!(smallest_positive_root(0.0, 2.0, -1.0), Some(0.5));
        // Two positive roots (x-1)(x-2): the smaller.
        assert_eq!(smallest_positive_root(1.0, -3.0, 2.0), Some(1.0));
        // Roots of opposite sign (x-1)(x+2): the positive one.
        assert_eq!(smallest_positive_root(1.0, 1.0, -2.0), Some(1.0));
        // Both negative (x+1)(x+2): no solution (Drake aborts here).
        assert_eq!(smallest_positive_root(1.0, 3.0, 2.0), None);
        // No real root, and NaN.
        assert_eq!(smallest_positive_root(1.0, 0.0, 1.0), None);
        assert_eq!(smallest_positive_root(f64::NAN, 1.0, 1.0), None);
    }
}
