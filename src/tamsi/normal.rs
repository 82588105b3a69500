//! Compliant normal-force law of the two-way scheme (`docs/tamsi.md` §3).

use crate::linalg::scalar::{positive_part, step};

/// Normal force `fn = (1 − d·vn)₊ · (fn0 − dt·k·vn)₊` (N) and its derivative
/// `g = dfn/dvn ≤ 0` (N·s/m) at normal velocity `vn` (m/s, positive when separating).
///
/// `fn0` is the undamped force at the previous step (N), `k` the stiffness (N/m), `d` the
/// Hunt–Crossley dissipation (s/m) and `dt` the time step (s). Positive parts are C++
/// `std::max(0, z)` (a NaN gives 0) and the step function has `H(0) = 1`, so at a kink the
/// one-sided derivative survives (§3, §9).
#[inline(always)]
pub fn normal_force(vn: f64, fn0: f64, k: f64, d: f64, dt: f64) -> (f64, f64) {
    let damping = 1.0 - d * vn;
    let spring = fn0 - dt * k * vn;
    let damping_pos = positive_part(damping);
    let spring_pos = positive_part(spring);
    let fn_ = damping_pos * spring_pos;
    let g = -(d * step(damping) * spring_pos + dt * k * damping_pos * step(spring));
    (fn_, g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn force_and_one_sided_derivative_at_kinks() {
        let (fn0, k, d, dt) = (9000.0, 9.0e6, 1.0 / 3.0, 1e-3);
        let (f, g) = normal_force(0.0, fn0, k, d, dt);
        assert_eq!(f, fn0);
        assert_eq!(g, -(d * fn0 + dt * k));
        // Damping factor exactly zero: H(0) = 1 keeps the d-term.
        let vn = 1.0 / d;
        let (f, g) = normal_force(vn, fn0, k, d, dt);
        assert_eq!(f, 0.0);
        assert_eq!(g, -d * positive_part(fn0 - dt * k * vn));
        // Separated: no force, no gradient.
        assert_eq!(normal_force(10.0, fn0, k, 0.0, dt), (0.0, -0.0));
        // NaN velocity: max(0, NaN) = 0 and H(NaN) = 0.
        let (f, g) = normal_force(f64::NAN, fn0, k, d, dt);
        assert_eq!((f, g), (0.0, -0.0));
    }
}
