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

/// Partial derivatives of the normal force `fn = (1 − d·vn)₊ · (fn0 − dt·k·vn)₊` with respect to
/// its data at fixed `vn` (the explicit terms of the sensitivities, `docs/tamsi_sensitivities.md`
/// §2): `[∂fn/∂fn0, ∂fn/∂k, ∂fn/∂d, ∂fn/∂dt]`, in 1, m, N·m/s and N/s. The step function has
/// `H(0) = 1`, as in the Newton matrix's `dfn/dvn` ([`normal_force`]): at a kink the derivative of
/// the branch in contact is returned.
#[inline(always)]
pub(crate) fn normal_force_partials(vn: f64, fn0: f64, k: f64, d: f64, dt: f64) -> [f64; 4] {
    let damping = 1.0 - d * vn;
    let spring = fn0 - dt * k * vn;
    // ∂(fn0 − dt·k·vn)₊/∂fn0 = H(spring); the other spring partials are multiples of it.
    let spring_slope = positive_part(damping) * step(spring);
    [
        spring_slope,
        -dt * vn * spring_slope,
        -vn * step(damping) * positive_part(spring),
        -k * vn * spring_slope,
    ]
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

    #[test]
    fn partials_match_finite_differences_and_take_the_contact_branch_at_kinks() {
        let (vn, fn0, k, d, dt) = (-0.02, 12.0, 3e3, 0.7, 1e-2);
        let p = normal_force_partials(vn, fn0, k, d, dt);
        let f = |fn0: f64, k: f64, d: f64, dt: f64| normal_force(vn, fn0, k, d, dt).0;
        let h = 1e-6;
        let fd = [
            (f(fn0 + h, k, d, dt) - f(fn0 - h, k, d, dt)) / (2.0 * h),
            (f(fn0, k + h * k, d, dt) - f(fn0, k - h * k, d, dt)) / (2.0 * h * k),
            (f(fn0, k, d + h, dt) - f(fn0, k, d - h, dt)) / (2.0 * h),
            (f(fn0, k, d, dt + h * dt) - f(fn0, k, d, dt - h * dt)) / (2.0 * h * dt),
        ];
        for (a, b) in p.iter().zip(fd) {
            assert!((a - b).abs() <= 1e-8 * b.abs(), "{a} vs {b}");
        }
        // Spring factor exactly 0 (dt·k·vn = fn0): fn = 0, the partials are the in-contact ones.
        let (vn, fn0, k, d, dt) = (0.125, 1.0, 1024.0, 0.5, 0.0078125);
        assert_eq!(normal_force(vn, fn0, k, d, dt).0, 0.0);
        let p = normal_force_partials(vn, fn0, k, d, dt);
        let damping = 1.0 - d * vn;
        assert_eq!(p, [damping, -dt * vn * damping, -0.0, -k * vn * damping]);
        // Damping factor exactly 0: ∂fn/∂d keeps its term, the spring partials vanish.
        let (vn, d) = (0.0625, 16.0);
        let p = normal_force_partials(vn, 5.0, 1024.0, d, 0.0078125);
        assert_eq!(p, [0.0, -0.0, -vn * (5.0 - 0.0078125 * 1024.0 * vn), -0.0]);
    }
}
