//! The three contact models and their local blocks (`docs/ipm.md` §1.3, §2.1).
//!
//! Every contact owns a primal vector `γ` and a dual vector `s` of the same length `k`
//! (1, 4 or 6) and sees the generalized velocity only through its local velocity
//! `u = (J_n v, J_t1 v + o_1, J_t2 v + o_2)` (o = optional tangential offset). It applies the local
//! impulse `b = Π γ = (normal, t1, t2)` (N·s) to the dynamics through `Jᵀ b`.
//!
//! | model | `γ` | `s` | equalities (= 0) |
//! |---|---|---|---|
//! | Impact | `(γ_n)` | `(s_n)` | `φ + h u_n − s_n` |
//! | SOC | `(γ_n, ξ_0, ξ_1, ξ_2)` | `(s_n, η_0, η_1, η_2)` | `φ + h u_n − s_n`, `μγ_n − ξ_0`, `u_t1 − η_1`, `u_t2 − η_2` |
//! | Linear | `(γ_n, ψ, β_1..β_4)` | `(s_n, s_ψ, s_β1..s_β4)` | `φ + h u_n − s_n`, `μγ_n − Σβ − s_ψ`, `P u_t + ψ·1 − s_β` |
//!
//! with the pyramid directions `P` = rows `(0,1), (0,−1), (1,0), (−1,0)` (β1↔+t2, β2↔−t2,
//! β3↔+t1, β4↔−t1).

use super::cone;
use crate::coded::coded_enum;

/// The offsets of contacts `i..i + LANES` when all of them are second-order-cone contacts: a run
/// for the lane kernels of the engine iteration (`cone::LANES`, issue 29).
#[inline(always)]
fn soc_run(models: &[ContactModel], offsets: &[usize], i: usize) -> Option<[usize; cone::LANES]> {
    let run = models.get(i..i + cone::LANES)?;
    run.iter().all(|&m| m == ContactModel::SecondOrderCone).then(|| core::array::from_fn(|l| offsets[i + l]))
}

/// Visits contacts `0..models.len()` in order: every run of [`cone::LANES`] second-order-cone
/// contacts ([`soc_run`]) by `visit(i, Some(offsets))`, every other contact by `visit(i, None)`;
/// stops at the first call that returns false, and returns whether none did. Mark the closure
/// `#[inline(always)]`: only then is it compiled into the caller's SIMD dispatch.
#[inline(always)]
pub(crate) fn visit_runs(
    models: &[ContactModel],
    offsets: &[usize],
    mut visit: impl FnMut(usize, Option<[usize; cone::LANES]>) -> bool,
) -> bool {
    let mut i = 0;
    while i < models.len() {
        let run = soc_run(models, offsets, i);
        if !visit(i, run) {
            return false;
        }
        i += if run.is_some() { cone::LANES } else { 1 };
    }
    true
}

/// `f(m)` with `m` a constant in each arm: inlined (mark `f` `#[inline(always)]`), the caller's
/// per-contact body is compiled once per model, so that `m.dim()` and the model's branches fold
/// and its loops over the contact's entries unroll (issue 29: the engine iteration's passes over
/// the contacts spent a fifth of their instructions on slice bounds and on the model's `match`).
/// The same operations on the same values as `f(m)`.
#[inline(always)]
pub(crate) fn by_model<R>(m: ContactModel, f: impl FnOnce(ContactModel) -> R) -> R {
    match m {
        ContactModel::SecondOrderCone => f(ContactModel::SecondOrderCone),
        ContactModel::Impact => f(ContactModel::Impact),
        ContactModel::Linear => f(ContactModel::Linear),
    }
}

/// Regularization `REG` that Dojo adds inside the Newton matrix only (§2.1): to the cone
/// variables of the complementarity Jacobian and to the diagonal of `M`.
pub(crate) const REG: f64 = 1e-10;

coded_enum! {
    /// Contact model of one contact (§1.3). The integer codes are the ones the C API will use.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum ContactModel {
        /// Frictionless impact: one orthant pair (code 0).
        0 => Impact,
        /// Second-order-cone (nonlinear, isotropic Coulomb) friction: one orthant pair and one `Q³`
        /// pair (code 1). The primary model.
        #[default]
        1 => SecondOrderCone,
        /// Four-direction linearized ("pyramid", in fact an L1 diamond) friction: six orthant pairs
        /// (code 2).
        2 => Linear,
    }
    /// The model with C code `code` (0 impact, 1 second-order cone, 2 linear), if any.
    pub fn from_code;
}

impl ContactModel {
    /// Length `k` of the contact's primal (and of its dual) vector.
    #[inline(always)]
    pub fn dim(self) -> usize {
        match self {
            Self::Impact => 1,
            Self::SecondOrderCone => 4,
            Self::Linear => 6,
        }
    }

    /// Cone degree (§1.3): 1, 2 (orthant + SOC), 6.
    #[inline(always)]
    pub fn degree(self) -> usize {
        match self {
            Self::Impact => 1,
            Self::SecondOrderCone => 2,
            Self::Linear => 6,
        }
    }

    /// Number of leading orthant entries; the rest (SOC model only) is one `Q³` block.
    #[inline(always)]
    pub(crate) fn orthant_len(self) -> usize {
        match self {
            Self::Impact => 1,
            Self::SecondOrderCone => 1,
            Self::Linear => 6,
        }
    }

    /// Writes the neutral vector `e` (§1.3).
    pub(crate) fn neutral(self, e: &mut [f64]) {
        e.fill(0.0);
        let no = self.orthant_len();
        e[..no].fill(1.0);
        if self == Self::SecondOrderCone {
            e[1] = 1.0;
        }
    }

    /// Cone product `out = γ∘s` (orthant part elementwise, SOC part with the cone product).
    #[inline(always)]
    pub(crate) fn product(self, g: &[f64], s: &[f64], out: &mut [f64]) {
        let no = self.orthant_len();
        cone::orthant_product(&g[..no], &s[..no], &mut out[..no]);
        if self == Self::SecondOrderCone {
            cone::soc_product(&g[1..4], &s[1..4], &mut out[1..4]);
        }
    }

    /// Interior shift of the contact's pair (§3 step 2).
    pub(crate) fn shift(self, s: &mut [f64], g: &mut [f64]) {
        let no = self.orthant_len();
        cone::orthant_shift(&mut s[..no], &mut g[..no]);
        if self == Self::SecondOrderCone {
            cone::soc_shift(&mut s[1..4], &mut g[1..4]);
        }
    }

    /// Largest fraction-to-boundary step for `λ + αΔ` of this contact's primal or dual vector
    /// (§4.1): orthant part with `tau_ort`, SOC part with `tau_soc`.
    pub(crate) fn step(self, lambda: &[f64], delta: &[f64], tau_ort: f64, tau_soc: f64) -> f64 {
        let no = self.orthant_len();
        let mut a = cone::orthant_step(&lambda[..no], &delta[..no], tau_ort);
        if self == Self::SecondOrderCone {
            a = a.min(cone::soc_step(&lambda[1..4], &delta[1..4], tau_soc));
        }
        a
    }

    /// [`ContactModel::step`] with the scale-invariant second-order-cone step
    /// ([`cone::soc_step_exact`]) of the engine iteration.
    #[inline(always)]
    pub(crate) fn step_exact(self, lambda: &[f64], delta: &[f64], tau: f64) -> f64 {
        let no = self.orthant_len();
        let mut a = cone::orthant_step(&lambda[..no], &delta[..no], tau);
        if self == Self::SecondOrderCone {
            a = a.min(cone::soc_step_exact(&lambda[1..4], &delta[1..4], tau));
        }
        a
    }

    /// Whether `λ` is strictly inside the contact's cone.
    #[inline(always)]
    pub(crate) fn is_interior(self, lambda: &[f64]) -> bool {
        let no = self.orthant_len();
        lambda[..no].iter().all(|&x| x > 0.0)
            && (self != Self::SecondOrderCone || cone::soc_margin(&lambda[1..4]) > 0.0)
    }

    /// Local impulse `b = Π γ` = (normal, t1, t2) in N·s.
    #[inline(always)]
    pub(crate) fn impulse(self, g: &[f64]) -> [f64; 3] {
        match self {
            Self::Impact => [g[0], 0.0, 0.0],
            Self::SecondOrderCone => [g[0], g[2], g[3]],
            Self::Linear => [g[0], g[4] - g[5], g[2] - g[3]],
        }
    }

    /// `Π` as a 3×k matrix: entry (a, j) = ∂b_a/∂γ_j.
    pub(crate) fn impulse_map(self, a: usize, j: usize) -> f64 {
        match (self, a, j) {
            (_, 0, 0) => 1.0,
            (Self::SecondOrderCone, 1, 2) | (Self::SecondOrderCone, 2, 3) => 1.0,
            (Self::Linear, 1, 4) | (Self::Linear, 2, 2) => 1.0,
            (Self::Linear, 1, 5) | (Self::Linear, 2, 3) => -1.0,
            _ => 0.0,
        }
    }

    /// `F` as a k×3 matrix: entry (e, a) = ∂(equality e)/∂u_a (the velocity enters the gap row
    /// through `h·J_n`, §1.2 (G1), and the friction rows through `J_t`).
    pub(crate) fn velocity_map(self, h: f64, e: usize, a: usize) -> f64 {
        match (self, e, a) {
            (_, 0, 0) => h,
            (Self::SecondOrderCone, 2, 1) | (Self::SecondOrderCone, 3, 2) => 1.0,
            (Self::Linear, 2, 2) | (Self::Linear, 4, 1) => 1.0,
            (Self::Linear, 3, 2) | (Self::Linear, 5, 1) => -1.0,
            _ => 0.0,
        }
    }

    /// Equality residual `r_eq` (§1.3) for local velocity `u` (with offsets), gap `phi` (m),
    /// time step `h`, friction coefficient `mu`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn equality_residual(
        self,
        u: &[f64; 3],
        phi: f64,
        h: f64,
        mu: f64,
        s: &[f64],
        g: &[f64],
        out: &mut [f64],
    ) {
        out[0] = phi + h * u[0] - s[0];
        match self {
            Self::Impact => {}
            Self::SecondOrderCone => {
                out[1] = mu * g[0] - g[1];
                out[2] = u[1] - s[2];
                out[3] = u[2] - s[3];
            }
            Self::Linear => {
                out[1] = mu * g[0] - (g[2] + g[3] + g[4] + g[5]) - s[1];
                out[2] = u[2] + g[1] - s[2];
                out[3] = -u[2] + g[1] - s[3];
                out[4] = u[1] + g[1] - s[4];
                out[5] = -u[1] + g[1] - s[5];
            }
        }
    }

    /// Writes the local Newton block `K` (2k×2k, column-major, leading dimension `2k`): rows
    /// `[complementarity (k); equalities (k)]`, columns `[Δs (k) | Δγ (k)]` (§2.1), with
    /// `γ̃ = γ + reg·e`, `s̃ = s + reg·e` in the complementarity rows (`reg` = [`REG`] in the
    /// solver, 0 for the exact Jacobian of the sensitivities).
    pub(crate) fn write_local_block(self, mu: f64, reg: f64, s: &[f64], g: &[f64], out: &mut [f64]) {
        let k = self.dim();
        let ld = 2 * k;
        out[..ld * ld].fill(0.0);
        let at = |r: usize, c: usize| r + c * ld;
        // Complementarity rows: ∂(γ∘s)/∂s = diag(γ̃) / Arw(ξ̃), ∂/∂γ = diag(s̃) / Arw(η̃).
        let no = self.orthant_len();
        for j in 0..no {
            out[at(j, j)] = g[j] + reg;
            out[at(j, k + j)] = s[j] + reg;
        }
        if self == Self::SecondOrderCone {
            let gt = [g[1] + reg, g[2], g[3]];
            let st = [s[1] + reg, s[2], s[3]];
            cone::write_arrow(&gt, out, ld, 1, 1);
            cone::write_arrow(&st, out, ld, 1, k + 1);
        }
        // Equality rows.
        out[at(k, 0)] = -1.0;
        match self {
            Self::Impact => {}
            Self::SecondOrderCone => {
                out[at(k + 1, k)] = mu;
                out[at(k + 1, k + 1)] = -1.0;
                out[at(k + 2, 2)] = -1.0;
                out[at(k + 3, 3)] = -1.0;
            }
            Self::Linear => {
                out[at(k + 1, k)] = mu;
                for j in 2..6 {
                    out[at(k + 1, k + j)] = -1.0;
                }
                out[at(k + 1, 1)] = -1.0;
                for e in 2..6 {
                    out[at(k + e, k + 1)] = 1.0;
                    out[at(k + e, e)] = -1.0;
                }
            }
        }
    }
}

impl ContactModel {
    /// Adds `normal` to the derivative of the gap row by γ_n and `tangent` to the derivatives of
    /// the tangential rows by their impulses (ξ̄, or β for the linear model) in a local block
    /// (`docs/ipm.md` §11.2–§11.3: proximal regularization and normal compliance). The impulse-unit
    /// rows (`μγ_n − ξ_0`, the linear model's ψ row) are left alone.
    pub(crate) fn add_equality_shift(self, normal: f64, tangent: f64, out: &mut [f64]) {
        let k = self.dim();
        let ld = 2 * k;
        let at = |r: usize, c: usize| r + c * ld;
        out[at(k, k)] += normal;
        match self {
            Self::Impact => {}
            Self::SecondOrderCone => {
                out[at(k + 2, k + 2)] += tangent;
                out[at(k + 3, k + 3)] += tangent;
            }
            Self::Linear => {
                for e in 2..6 {
                    out[at(k + e, k + e)] += tangent;
                }
            }
        }
    }

    /// The local block of the engine iteration (`docs/ipm.md` §11): as
    /// [`ContactModel::write_local_block`] without regularization, except that the second-order-cone
    /// complementarity rows are the Nesterov–Todd linearization `W⁻¹Δη + WΔξ = Arw(λ)⁻¹(…)`
    /// (`w`, `wi` = `W`, `W⁻¹` of [`cone::nt_scaling`]`(ξ, η)`) instead of the arrow-matrix rows
    /// `Arw(ξ)Δη + Arw(η)Δξ`. The orthant rows are unchanged (for a scalar pair the two
    /// linearizations give the same direction).
    pub(crate) fn write_local_block_nt(
        self,
        mu: f64,
        s: &[f64],
        g: &[f64],
        w: &[f64; 9],
        wi: &[f64; 9],
        out: &mut [f64],
    ) {
        self.write_local_block(mu, 0.0, s, g, out);
        if self == Self::SecondOrderCone {
            let (k, ld) = (4, 8);
            for c in 0..3 {
                for r in 0..3 {
                    out[(1 + r) + (1 + c) * ld] = wi[r + 3 * c];
                    out[(1 + r) + (k + 1 + c) * ld] = w[r + 3 * c];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The local block must be the derivative of (γ∘s, r_eq) w.r.t. (s, γ): check by finite
    /// differences for every model (REG aside).
    #[test]
    fn local_block_is_the_jacobian_of_the_local_residual() {
        for model in [ContactModel::Impact, ContactModel::SecondOrderCone, ContactModel::Linear] {
            let k = model.dim();
            let s0: Vec<f64> = (0..k).map(|i| 1.3 + 0.1 * i as f64).collect();
            let g0: Vec<f64> = (0..k).map(|i| 0.9 - 0.05 * i as f64).collect();
            let (mu, phi, h, u) = (0.4, 0.02, 0.01, [0.3, -0.2, 0.5]);
            let eval = |s: &[f64], g: &[f64]| {
                let mut out = vec![0.0; 2 * k];
                model.product(g, s, &mut out[..k]);
                model.equality_residual(&u, phi, h, mu, s, g, &mut out[k..]);
                out
            };
            let mut kb = vec![0.0; 4 * k * k];
            model.write_local_block(mu, 0.0, &s0, &g0, &mut kb);
            let d = 1e-6;
            for c in 0..2 * k {
                let (mut sp, mut gp, mut sm, mut gm) = (s0.clone(), g0.clone(), s0.clone(), g0.clone());
                if c < k {
                    sp[c] += d;
                    sm[c] -= d;
                } else {
                    gp[c - k] += d;
                    gm[c - k] -= d;
                }
                let (fp, fm) = (eval(&sp, &gp), eval(&sm, &gm));
                for r in 0..2 * k {
                    let fd = (fp[r] - fm[r]) / (2.0 * d);
                    assert!(
                        (fd - kb[r + c * 2 * k]).abs() < 1e-8,
                        "{model:?} ({r},{c}): {fd} vs {}",
                        kb[r + c * 2 * k]
                    );
                }
            }
            // Velocity map: derivative of r_eq w.r.t. u.
            for a in 0..3 {
                let mut up = u;
                up[a] += 1.0;
                let mut r0 = vec![0.0; k];
                let mut r1 = vec![0.0; k];
                model.equality_residual(&u, phi, h, mu, &s0, &g0, &mut r0);
                model.equality_residual(&up, phi, h, mu, &s0, &g0, &mut r1);
                for e in 0..k {
                    assert!((r1[e] - r0[e] - model.velocity_map(h, e, a)).abs() < 1e-12);
                }
            }
            // Impulse map.
            let b = model.impulse(&g0);
            for (a, &ba) in b.iter().enumerate() {
                let lin: f64 = (0..k).map(|j| model.impulse_map(a, j) * g0[j]).sum();
                assert!((lin - ba).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn codes_round_trip() {
        for m in [ContactModel::Impact, ContactModel::SecondOrderCone, ContactModel::Linear] {
            assert_eq!(ContactModel::from_code(m as i32), Some(m));
        }
        assert_eq!(ContactModel::from_code(3), None);
    }
}
