//! Solver parameters: a flat struct of scalars (the C layer copies it as is). `Default` gives the
//! spec's defaults; [`BaraffParameters::validate`] is called whenever parameters are set.

use super::BaraffError;

/// Parameters of [`super::BaraffSolver`].
///
/// Tolerances are **relative** (`docs/baraff.md` §12): with `s_b = max|b_i|` (the scale of the
/// accelerations, or of the velocities at velocity level) and `s_A = max|A_ii|`, accelerations
/// are compared with `tol·s_b`, changes of acceleration per unit force with `tol·s_A`, forces with
/// `tol·s_b/s_A`, and force changes per unit driven force with `tol`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaraffParameters {
    /// ε of the pivoting comparisons (§3: goal reached, event candidacy, zero-length steps).
    /// Default 1e-10 (myPhysicsLab's `SMALL_POSITIVE`, here relative). Must be in (0, 1).
    pub epsilon: f64,
    /// A Schur pivot (the `Δa_d` of the row being driven, and R's diagonal in the clamped-set
    /// solve) at or below `singular_tolerance·s_A` is singular (§6): the row cannot join the
    /// clamped set by reaching its goal, and the clamped-set solve drops that unknown. Default
    /// 1e-9. Must be in [0, 1).
    pub singular_tolerance: f64,
    /// Verification tolerance (§3.6): `Solved` when the worst relative violation is at most this,
    /// `Inexact` otherwise. Default 1e-8. Must be positive.
    pub tolerance: f64,
    /// Global pivot cap; 0 selects `50·m + 50` (§6). Must be ≥ 0.
    pub max_pivots: i32,
    /// Coefficient of restitution `e` of the active-set impulse loop (§8), applied only to rows
    /// that were approaching at the start. Default 0 (plastic). Must be in [0, 1].
    pub restitution: f64,
    /// `cDotTol` (m/s or rad/s, absolute) of the active-set impulse loop (§8): a unilateral row
    /// needs an impulse when `v < −cdot_tolerance`, a bilateral one when `|v| > cdot_tolerance`.
    /// Default 1e-6. Must be ≥ 0.
    pub cdot_tolerance: f64,
    /// Iteration cap of the active-set impulse loop (§8); 0 selects `max(100, 4·m)`.
    pub max_impulse_iterations: i32,
    /// Consistency impulses the iterative variant (§7) may apply before it falls back to
    /// frictionless rows. Default 3. Must be ≥ 0.
    pub max_consistency_impulses: i32,
    /// 1: when a pivoting solve does not verify, solve once more with the friction rows driven
    /// in decreasing index order (an extension of the spec: with friction the order decides
    /// success, §3.2; on the §10 stress problems it removes most failures that are not genuine
    /// inconsistencies). 0: one attempt, the spec's order only. Default 1.
    pub reverse_retry: i32,
}

impl Default for BaraffParameters {
    fn default() -> Self {
        Self {
            epsilon: 1e-10,
            singular_tolerance: 1e-9,
            tolerance: 1e-8,
            max_pivots: 0,
            restitution: 0.0,
            cdot_tolerance: 1e-6,
            max_impulse_iterations: 0,
            max_consistency_impulses: 3,
            reverse_retry: 1,
        }
    }
}

impl BaraffParameters {
    /// Checks every field's domain (see the field docs).
    pub fn validate(&self) -> Result<(), BaraffError> {
        let bad = |name, value: f64, domain| Err(BaraffError::InvalidParameter { name, value, domain });
        if !(self.epsilon > 0.0 && self.epsilon < 1.0) {
            return bad("epsilon", self.epsilon, "(0, 1)");
        }
        if !(self.singular_tolerance >= 0.0 && self.singular_tolerance < 1.0) {
            return bad("singular_tolerance", self.singular_tolerance, "[0, 1)");
        }
        if !(self.tolerance > 0.0 && self.tolerance.is_finite()) {
            return bad("tolerance", self.tolerance, "finite and > 0");
        }
        if self.max_pivots < 0 {
            return bad("max_pivots", self.max_pivots as f64, ">= 0 (0: 50·m + 50)");
        }
        if !(0.0..=1.0).contains(&self.restitution) {
            return bad("restitution", self.restitution, "[0, 1]");
        }
        if !(self.cdot_tolerance >= 0.0 && self.cdot_tolerance.is_finite()) {
            return bad("cdot_tolerance", self.cdot_tolerance, "finite and >= 0");
        }
        if self.max_impulse_iterations < 0 {
            return bad(
                "max_impulse_iterations",
                self.max_impulse_iterations as f64,
                ">= 0 (0: max(100, 4·m))",
            );
        }
        if self.max_consistency_impulses < 0 {
            return bad("max_consistency_impulses", self.max_consistency_impulses as f64, ">= 0");
        }
        if !(0..=1).contains(&self.reverse_retry) {
            return bad("reverse_retry", self.reverse_retry as f64, "0 or 1");
        }
        Ok(())
    }

    /// The pivot cap for `m` rows.
    pub fn pivot_cap(&self, m: usize) -> usize {
        if self.max_pivots > 0 { self.max_pivots as usize } else { 50 * m + 50 }
    }

    /// The §8 iteration cap for `m` rows.
    pub fn impulse_iteration_cap(&self, m: usize) -> usize {
        if self.max_impulse_iterations > 0 { self.max_impulse_iterations as usize } else { (4 * m).max(100) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_are_named() {
        let p = BaraffParameters::default();
        p.validate().unwrap();
        assert_eq!(p.pivot_cap(10), 550);
        assert_eq!(p.impulse_iteration_cap(10), 100);
        assert_eq!(p.impulse_iteration_cap(40), 160);
        let cases: [(BaraffParameters, &str); 7] = [
            (BaraffParameters { reverse_retry: 2, ..p }, "reverse_retry"),
            (BaraffParameters { epsilon: 0.0, ..p }, "epsilon"),
            (BaraffParameters { singular_tolerance: f64::NAN, ..p }, "singular_tolerance"),
            (BaraffParameters { tolerance: -1.0, ..p }, "tolerance"),
            (BaraffParameters { max_pivots: -1, ..p }, "max_pivots"),
            (BaraffParameters { restitution: 1.5, ..p }, "restitution"),
            (BaraffParameters { max_consistency_impulses: -2, ..p }, "max_consistency_impulses"),
        ];
        for (q, name) in cases {
            match q.validate() {
                Err(BaraffError::InvalidParameter { name: n, .. }) => assert_eq!(n, name),
                r => panic!("{name}: {r:?}"),
            }
        }
    }
}
