//! Regularized Coulomb friction per contact (`docs/tamsi.md` §2).

/// Friction-coefficient function `μ_reg(x)` (Drake `RegularizedFriction`, §2.2): `μ·x·(2 − x)`
/// below `x = 1`, `μ` from there on. `x` is the dimensionless slip `s/vs`.
#[inline]
pub fn regularized_friction(x: f64, mu: f64) -> f64 {
    if x >= 1.0 { mu } else { mu * x * (2.0 - x) }
}

/// Its derivative `dμ_reg/dx` (Drake `RegularizedFrictionDerivative`, §2.2): `2μ(1 − x)` below
/// `x = 1`, 0 from there on.
#[inline]
pub fn regularized_friction_derivative(x: f64, mu: f64) -> f64 {
    if x >= 1.0 { 0.0 } else { mu * 2.0 * (1.0 - x) }
}

/// The friction state of one contact at a tangential velocity `w` (§2.1–§2.3).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ContactFriction {
    /// Soft slip speed `s = sqrt(wᵀw + εv²)`, m/s.
    pub slip: f64,
    /// Soft slip direction `t̂ = w/s` (`‖t̂‖ < 1`).
    pub t_hat: [f64; 2],
    /// `μ_reg(s/vs)`.
    pub mu_reg: f64,
    /// `dμ_reg/ds = μ_reg'(x)/vs`, s/m (Drake's `dmudv`).
    pub dmu_ds: f64,
    /// Friction force `ft = −μ_reg·t̂·fn`, N.
    pub ft: [f64; 2],
}

impl ContactFriction {
    /// Evaluates friction at tangential velocity `w` (m/s) under normal force `fn_` (N), with
    /// stiction tolerance `vs` (m/s) and soft-norm regularization `eps_v = rtol·vs` (m/s).
    #[inline(always)]
    pub fn evaluate(w: [f64; 2], fn_: f64, mu: f64, vs: f64, eps_v: f64) -> Self {
        let slip = (w[0] * w[0] + w[1] * w[1] + eps_v * eps_v).sqrt();
        let t_hat = [w[0] / slip, w[1] / slip];
        let x = slip / vs;
        let mu_reg = regularized_friction(x, mu);
        let dmu_ds = regularized_friction_derivative(x, mu) / vs;
        let ft = [-mu_reg * t_hat[0] * fn_, -mu_reg * t_hat[1] * fn_];
        Self { slip, t_hat, mu_reg, dmu_ds, ft }
    }

    /// The symmetric 2×2 block `D = −∂ft/∂w = fn·[(μ_reg/s)(I − t̂t̂ᵀ) + (dμ/ds) t̂t̂ᵀ]` (§2.4),
    /// returned as `[D00, D01, D11]` (`D10 = D01`), in N·s/m.
    #[inline(always)]
    pub fn gradient_block(&self, fn_: f64) -> [f64; 3] {
        let [t0, t1] = self.t_hat;
        let a = self.mu_reg / self.slip;
        let b = self.dmu_ds;
        [
            fn_ * (a * (1.0 - t0 * t0) + b * t0 * t0),
            fn_ * (-a * t0 * t1 + b * t0 * t1),
            fn_ * (a * (1.0 - t1 * t1) + b * t1 * t1),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regularized_friction_is_c1_at_one_and_saturates() {
        assert_eq!(regularized_friction(1.0, 0.5), 0.5);
        assert_eq!(regularized_friction(2.0, 0.5), 0.5);
        assert_eq!(regularized_friction(0.5, 0.5), 0.5 * 0.5 * 1.5);
        assert_eq!(regularized_friction_derivative(0.0, 0.5), 1.0);
        assert_eq!(regularized_friction_derivative(1.0, 0.5), 0.0);
        assert!((regularized_friction(1.0 - 1e-8, 0.5) - 0.5).abs() < 1e-15);
    }

    #[test]
    fn gradient_block_matches_finite_differences_of_the_force() {
        let (fn_, mu, vs, eps_v) = (3.0, 0.4, 1e-2, 1e-4);
        for w in [[3e-3, -1e-3], [0.5, 0.2], [-2e-5, 7e-5]] {
            let d = ContactFriction::evaluate(w, fn_, mu, vs, eps_v).gradient_block(fn_);
            let h = 1e-9;
            let mut num = [[0.0; 2]; 2];
            for k in 0..2 {
                let (mut wp, mut wm) = (w, w);
                wp[k] += h;
                wm[k] -= h;
                let fp = ContactFriction::evaluate(wp, fn_, mu, vs, eps_v).ft;
                let fm = ContactFriction::evaluate(wm, fn_, mu, vs, eps_v).ft;
                for r in 0..2 {
                    num[r][k] = -(fp[r] - fm[r]) / (2.0 * h);
                }
            }
            let scale = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for (got, want) in [(d[0], num[0][0]), (d[1], num[0][1]), (d[1], num[1][0]), (d[2], num[1][1])] {
                assert!((got - want).abs() < 1e-5 * scale, "{got} vs {want} at {w:?}");
            }
        }
    }
}
