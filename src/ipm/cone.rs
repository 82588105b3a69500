//! Orthant and second-order-cone algebra (`docs/ipm.md` §1.4, §3 step 2, §4.1).
//!
//! * Positive orthant `R^k_+`: product `(a∘b)_i = a_i b_i`, identity `1`.
//! * Second-order cone `Q³ = {(a_0, ā) : |ā| ≤ a_0}`: product `a∘b = (aᵀb, a_0 b̄ + b_0 ā)`,
//!   identity `(1, 0, 0)`, Jacobian of `a∘b` w.r.t. `b` = the arrow matrix `Arw(a)`.
//!
//! Every function works on plain slices so the solver can apply it to sub-blocks of its packed
//! iterate without copies.

/// `ε` of the second-order-cone step formula (§4.1).
const SOC_STEP_EPS: f64 = 1e-14;

/// Orthant product `out_i = a_i b_i`.
#[inline(always)]
pub(crate) fn orthant_product(a: &[f64], b: &[f64], out: &mut [f64]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = x * y;
    }
}

/// Second-order-cone product `out = (aᵀb, a_0 b̄ + b_0 ā)` (§1.4). Slices of length 3.
#[inline(always)]
pub(crate) fn soc_product(a: &[f64], b: &[f64], out: &mut [f64]) {
    let dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    out[1] = a[0] * b[1] + b[0] * a[1];
    out[2] = a[0] * b[2] + b[0] * a[2];
    out[0] = dot;
}

/// Writes the arrow matrix `Arw(a) = [[a_0, āᵀ], [ā, a_0 I]]` (the Jacobian of `a∘b` w.r.t. `b`,
/// §1.4) into rows `r0..r0+3`, columns `c0..c0+3` of the column-major matrix `m` with leading
/// dimension `ld`.
pub(crate) fn write_arrow(a: &[f64], m: &mut [f64], ld: usize, r0: usize, c0: usize) {
    let idx = |r: usize, c: usize| (r0 + r) + (c0 + c) * ld;
    m[idx(0, 0)] = a[0];
    m[idx(0, 1)] = a[1];
    m[idx(0, 2)] = a[2];
    m[idx(1, 0)] = a[1];
    m[idx(1, 1)] = a[0];
    m[idx(1, 2)] = 0.0;
    m[idx(2, 0)] = a[2];
    m[idx(2, 1)] = 0.0;
    m[idx(2, 2)] = a[0];
}

/// Largest step `α ≤ 1` keeping `λ + αΔ` a fraction `τ` inside the orthant (§4.1):
/// `min(1, min_{Δ_k < 0} −τ λ_k / Δ_k)`.
#[inline(always)]
pub(crate) fn orthant_step(lambda: &[f64], delta: &[f64], tau: f64) -> f64 {
    let mut alpha: f64 = 1.0;
    for (&l, &d) in lambda.iter().zip(delta) {
        if d < 0.0 {
            alpha = alpha.min(-tau * l / d);
        }
    }
    alpha
}

/// Largest step `α ≤ 1` for a second-order-cone block (CVXOPT's formula as given in §4.1, with
/// ε = 1e-14); with τ = 1 and ε = 0 it is the exact distance to the cone boundary.
pub(crate) fn soc_step(lambda: &[f64], delta: &[f64], tau: f64) -> f64 {
    soc_step_eps(lambda, delta, tau, 1e-25, SOC_STEP_EPS)
}

/// [`soc_step`] without Dojo's absolute constants (floor 1e-25 and ε = 1e-14 on quantities of
/// unit (variable)²), which dominate once the block is of order 1e-7 and let the step leave the
/// cone: the scale-invariant step of the engine iteration (`docs/ipm.md` §11). `λ` must be
/// strictly interior.
#[inline(always)]
pub(crate) fn soc_step_exact(lambda: &[f64], delta: &[f64], tau: f64) -> f64 {
    soc_step_eps(lambda, delta, tau, f64::MIN_POSITIVE, 0.0)
}

#[inline(always)]
fn soc_step_eps(lambda: &[f64], delta: &[f64], tau: f64, floor: f64, eps: f64) -> f64 {
    let one = |x: &[f64]| [[x[0]], [x[1]], [x[2]]];
    soc_step_lanes(&one(lambda), &one(delta), tau, floor, eps)[0]
}

/// Second-order-cone blocks handled side by side by the lane kernels ([`soc_step_lanes`],
/// [`nt_scaling_lanes`]): four, one per double of an AVX2 vector (issue 29,
/// `docs/performance.md` §3 "The interior point's cone algebra in vector lanes").
pub(crate) const LANES: usize = 4;

/// `[f(0), …, f(N − 1)]`: one operation of a lane kernel on every lane. Written stage by stage
/// into arrays, the lanes' operations are isomorphic and adjacent, so LLVM's SLP vectorizer puts
/// them in the lanes of one vector instruction (a division or square root of a vector costs
/// about what the scalar one does); every lane gets the operations of the scalar formula in the
/// same order, so the same bits (IEEE division and square root are correctly rounded either way).
#[inline(always)]
pub(crate) fn lanes<const N: usize>(f: impl FnMut(usize) -> f64) -> [f64; N] {
    core::array::from_fn(f)
}

/// [`soc_step_eps`] of `N` blocks side by side: `lambda[c][l]` is entry `c` of block `l`
/// (component-major); with `N = 1` it is the scalar step.
#[inline(always)]
pub(crate) fn soc_step_lanes<const N: usize>(
    lambda: &[[f64; N]; 3],
    delta: &[[f64; N]; 3],
    tau: f64,
    floor: f64,
    eps: f64,
) -> [f64; N] {
    let ([l0, l1, l2], [d0, d1, d2]) = (lambda, delta);
    let nu: [f64; N] = lanes(|i| (l0[i] * l0[i] - (l1[i] * l1[i] + l2[i] * l2[i])).max(floor) + eps);
    let zeta: [f64; N] = lanes(|i| l0[i] * d0[i] - (l1[i] * d1[i] + l2[i] * d2[i]) + eps);
    let rho_s: [f64; N] = lanes(|i| zeta[i] / nu[i]);
    let sq: [f64; N] = lanes(|i| nu[i].sqrt());
    let c: [f64; N] = lanes(|i| (zeta[i] / sq[i] + d0[i]) / (l0[i] / sq[i] + 1.0));
    let rv1: [f64; N] = lanes(|i| d1[i] / sq[i] - c[i] * l1[i] / nu[i]);
    let rv2: [f64; N] = lanes(|i| d2[i] / sq[i] - c[i] * l2[i] / nu[i]);
    let gap: [f64; N] = lanes(|i| (rv1[i] * rv1[i] + rv2[i] * rv2[i]).sqrt() - rho_s[i]);
    lanes(|i| {
        let step = (tau / gap[i]).min(1.0);
        if gap[i] > 0.0 { step } else { 1.0 }
    })
}

/// Interior shift of one orthant block of a primal–dual pair (§3 step 2): move both vectors
/// inside the orthant, then add `0.5·(ŝᵀγ̂)/(Σγ̂ + 1e-20)` to every entry of `s` and
/// `0.5·(ŝᵀγ̂)/(Σŝ + 1e-20)` to every entry of `γ`.
pub(crate) fn orthant_shift(s: &mut [f64], g: &mut [f64]) {
    let min_s = s.iter().copied().fold(f64::INFINITY, f64::min);
    let min_g = g.iter().copied().fold(f64::INFINITY, f64::min);
    let ds = (-1.5 * min_s).max(0.0);
    let dg = (-1.5 * min_g).max(0.0);
    let mut dot = 0.0;
    let (mut sum_s, mut sum_g) = (0.0, 0.0);
    for (x, y) in s.iter_mut().zip(g.iter_mut()) {
        *x += ds;
        *y += dg;
        dot += *x * *y;
        sum_s += *x;
        sum_g += *y;
    }
    let add_s = 0.5 * dot / (sum_g + 1e-20);
    let add_g = 0.5 * dot / (sum_s + 1e-20);
    for (x, y) in s.iter_mut().zip(g.iter_mut()) {
        *x += add_s;
        *y += add_g;
    }
}

/// Interior shift of one second-order-cone block pair (§3 step 2), identity `e = (1, 0, 0)`:
/// `δ = max(−1.5·(λ_0 − |λ̄|), 0)`, `λ̂ = λ + δe`, then
/// `s ← ŝ + [0.5·(ŝᵀγ̂)/(γ̂_0 + |γ̂̄| + 1e-20)]·e` and symmetrically for `γ`.
pub(crate) fn soc_shift(s: &mut [f64], g: &mut [f64]) {
    let margin = |x: &[f64]| x[0] - (x[1] * x[1] + x[2] * x[2]).sqrt();
    s[0] += (-1.5 * margin(s)).max(0.0);
    g[0] += (-1.5 * margin(g)).max(0.0);
    let dot = s[0] * g[0] + s[1] * g[1] + s[2] * g[2];
    let norm_s = s[0] + (s[1] * s[1] + s[2] * s[2]).sqrt();
    let norm_g = g[0] + (g[1] * g[1] + g[2] * g[2]).sqrt();
    s[0] += 0.5 * dot / (norm_g + 1e-20);
    g[0] += 0.5 * dot / (norm_s + 1e-20);
}

/// `λ_0 − |λ̄|` for a second-order-cone block: > 0 exactly in the interior.
#[inline(always)]
pub(crate) fn soc_margin(x: &[f64]) -> f64 {
    x[0] - (x[1] * x[1] + x[2] * x[2]).sqrt()
}

/// Nesterov–Todd scaling of one second-order-cone pair (`docs/ipm.md` §4.2, CVXOPT's recipe):
/// the symmetric positive-definite `W` with `W x = W⁻¹ y = λ` for the primal block `x` and the
/// dual block `y`, both strictly interior. Returns `(W, W⁻¹, λ)`, matrices 3×3 column-major
/// (symmetric). With `J = diag(1, −1, −1)`: `x̄ = x/√(xᵀJx)`, `ȳ = y/√(yᵀJy)`,
/// `γ = √((1 + x̄ᵀȳ)/2)`, `w̄ = (ȳ + J x̄)/(2γ)`, `v = (w̄ + e)/√(2(w̄_0 + 1))`,
/// `W = β(2vvᵀ − J)`, `W⁻¹ = β⁻¹(2Jv vᵀJ − J)`, `β = (yᵀJy / xᵀJx)^¼`.
#[inline(always)]
pub(crate) fn nt_scaling(x: &[f64], y: &[f64]) -> ([f64; 9], [f64; 9], [f64; 3]) {
    let one = |a: &[f64]| [[a[0]], [a[1]], [a[2]]];
    let (w, wi, l) = nt_scaling_lanes(&one(x), &one(y));
    (w.map(|e| e[0]), wi.map(|e| e[0]), l.map(|e| e[0]))
}

/// [`nt_scaling`] of `N` pairs side by side (component-major, as [`soc_step_lanes`]): entry `e`
/// of pair `l`'s `W` is `w[e][l]`. `W` and `W⁻¹` are symmetric in their bits too (an entry and its
/// mirror are the same product: `2·v_r` and `2·v_c` are exact, and a rounded product does not
/// depend on the order of its factors), so the lower triangle is copied from the upper one.
#[inline(always)]
#[allow(clippy::type_complexity)]
pub(crate) fn nt_scaling_lanes<const N: usize>(
    x: &[[f64; N]; 3],
    y: &[[f64; N]; 3],
) -> ([[f64; N]; 9], [[f64; N]; 9], [[f64; N]; 3]) {
    let det = |a: &[[f64; N]; 3]| -> [f64; N] {
        lanes(|i| (a[0][i] * a[0][i] - a[1][i] * a[1][i] - a[2][i] * a[2][i]).max(f64::MIN_POSITIVE))
    };
    let (dx, dy) = (det(x), det(y));
    let xn: [f64; N] = lanes(|i| dx[i].sqrt());
    let yn: [f64; N] = lanes(|i| dy[i].sqrt());
    let xb: [[f64; N]; 3] = core::array::from_fn(|c| lanes(|i| x[c][i] / xn[i]));
    let yb: [[f64; N]; 3] = core::array::from_fn(|c| lanes(|i| y[c][i] / yn[i]));
    let gamma: [f64; N] =
        lanes(|i| (0.5 * (1.0 + xb[0][i] * yb[0][i] + xb[1][i] * yb[1][i] + xb[2][i] * yb[2][i])).sqrt());
    let wb: [[f64; N]; 3] = [
        lanes(|i| (yb[0][i] + xb[0][i]) / (2.0 * gamma[i])),
        lanes(|i| (yb[1][i] - xb[1][i]) / (2.0 * gamma[i])),
        lanes(|i| (yb[2][i] - xb[2][i]) / (2.0 * gamma[i])),
    ];
    let c: [f64; N] = lanes(|i| (2.0 * (wb[0][i] + 1.0)).sqrt());
    let v: [[f64; N]; 3] =
        [lanes(|i| (wb[0][i] + 1.0) / c[i]), lanes(|i| wb[1][i] / c[i]), lanes(|i| wb[2][i] / c[i])];
    let beta: [f64; N] = lanes(|i| (yn[i] / xn[i]).sqrt());
    let jd = [1.0, -1.0, -1.0];
    let mut w = [[0.0; N]; 9];
    let mut wi = [[0.0; N]; 9];
    for col in 0..3 {
        for row in 0..=col {
            let j = if row == col { jd[row] } else { 0.0 };
            w[row + 3 * col] = lanes(|i| beta[i] * (2.0 * v[row][i] * v[col][i] - j));
            wi[row + 3 * col] = lanes(|i| (2.0 * jd[row] * v[row][i] * v[col][i] * jd[col] - j) / beta[i]);
            w[col + 3 * row] = w[row + 3 * col];
            wi[col + 3 * row] = wi[row + 3 * col];
        }
    }
    let lambda: [[f64; N]; 3] =
        core::array::from_fn(|row| lanes(|i| (0..3).map(|col| w[row + 3 * col][i] * x[col][i]).sum()));
    (w, wi, lambda)
}

/// `a = Arw(λ)⁻¹ c`, i.e. the Jordan quotient with `λ∘a = c`, for an interior `λ` of `Q³`:
/// `a_0 = (λ_0 c_0 − λ̄ᵀc̄)/(λ_0² − |λ̄|²)`, `ā = (c̄ − a_0 λ̄)/λ_0`.
#[inline(always)]
pub(crate) fn arrow_solve(lambda: &[f64], c: &[f64]) -> [f64; 3] {
    let det = lambda[0] * lambda[0] - lambda[1] * lambda[1] - lambda[2] * lambda[2];
    let a0 = (lambda[0] * c[0] - lambda[1] * c[1] - lambda[2] * c[2]) / det;
    [a0, (c[1] - a0 * lambda[1]) / lambda[0], (c[2] - a0 * lambda[2]) / lambda[0]]
}

/// `y = A x` for a 3×3 column-major `A`.
#[inline(always)]
pub(crate) fn mat3_vec(a: &[f64; 9], x: &[f64]) -> [f64; 3] {
    let mut y = [0.0; 3];
    for (row, yr) in y.iter_mut().enumerate() {
        *yr = a[row] * x[0] + a[row + 3] * x[1] + a[row + 6] * x[2];
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(s: &mut u64) -> f64 {
        *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    #[test]
    fn soc_product_and_arrow_agree() {
        let a = [2.0, 0.3, -0.7];
        let b = [1.5, -0.2, 0.4];
        let mut p = [0.0; 3];
        soc_product(&a, &b, &mut p);
        let mut m = [0.0; 9];
        write_arrow(&a, &mut m, 3, 0, 0);
        for r in 0..3 {
            let mv: f64 = (0..3).map(|c| m[r + 3 * c] * b[c]).sum();
            assert!((mv - p[r]).abs() < 1e-15);
        }
        // Identity and commutativity.
        soc_product(&[1.0, 0.0, 0.0], &b, &mut p);
        assert_eq!(p, b);
        let mut q = [0.0; 3];
        soc_product(&b, &a, &mut q);
        soc_product(&a, &b, &mut p);
        assert_eq!(p, q);
    }

    #[test]
    fn soc_step_is_exact_distance_to_the_boundary_for_tau_one() {
        // §4.1: with τ = 1 the formula matches bisection to ~1e-13 (ε = 1e-14 shifts it
        // negligibly for well-scaled points).
        let mut seed = 42;
        let mut worst: f64 = 0.0;
        let mut limited = 0;
        for _ in 0..2000 {
            let bar = [lcg(&mut seed), lcg(&mut seed)];
            let l0 = (bar[0] * bar[0] + bar[1] * bar[1]).sqrt() + 0.05 + lcg(&mut seed).abs();
            let lam = [l0, bar[0], bar[1]];
            let d = [3.0 * lcg(&mut seed), 3.0 * lcg(&mut seed), 3.0 * lcg(&mut seed)];
            let alpha = soc_step(&lam, &d, 1.0);
            let inside = |a: f64| {
                let x = [lam[0] + a * d[0], lam[1] + a * d[1], lam[2] + a * d[2]];
                soc_margin(&x) >= 0.0
            };
            let exact = if inside(1.0) {
                1.0
            } else {
                let (mut lo, mut hi) = (0.0, 1.0);
                for _ in 0..200 {
                    let mid = 0.5 * (lo + hi);
                    if inside(mid) { lo = mid } else { hi = mid }
                }
                limited += 1;
                lo
            };
            // Entirely inside for all α ≤ 1 is the only case where α = 1 may under-report the
            // (larger) true distance.
            worst = worst.max((alpha - exact).abs());
        }
        assert!(limited > 200, "the sample must exercise boundary-limited steps");
        assert!(worst < 1e-10, "max error {worst}");
    }

    #[test]
    fn orthant_step_fraction_to_boundary() {
        assert_eq!(orthant_step(&[1.0, 2.0], &[-4.0, 1.0], 0.95), 0.95 * 0.25);
        assert_eq!(orthant_step(&[1.0, 2.0], &[4.0, 1.0], 0.95), 1.0);
    }

    #[test]
    fn neutral_start_shifts_to_one_and_a_half() {
        // §3: from the neutral vector e both γ and s become 1.5·e.
        let (mut s, mut g) = ([1.0; 6], [1.0; 6]);
        orthant_shift(&mut s, &mut g);
        assert!(s.iter().chain(&g).all(|&x| (x - 1.5).abs() < 1e-15));
        let (mut s, mut g) = ([1.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        soc_shift(&mut s, &mut g);
        assert!((s[0] - 1.5).abs() < 1e-15 && (g[0] - 1.5).abs() < 1e-15);
        assert_eq!((s[1], s[2], g[1], g[2]), (0.0, 0.0, 0.0, 0.0));
        // A point outside is moved strictly inside.
        let (mut s, mut g) = ([-1.0, 2.0], [0.5, 0.5]);
        orthant_shift(&mut s, &mut g);
        assert!(s.iter().chain(&g).all(|&x| x > 0.0));
        let (mut s, mut g) = ([0.1, 1.0, 0.0], [1.0, 0.0, 0.0]);
        soc_shift(&mut s, &mut g);
        assert!(soc_margin(&s) > 0.0 && soc_margin(&g) > 0.0);
    }

    #[test]
    fn nesterov_todd_scaling_maps_both_blocks_to_the_same_point() {
        let mut seed = 7;
        for _ in 0..500 {
            let mut interior = |scale: f64| {
                let bar = [lcg(&mut seed), lcg(&mut seed)];
                let l0 = (bar[0] * bar[0] + bar[1] * bar[1]).sqrt() + 1e-3 + lcg(&mut seed).abs();
                [scale * l0, scale * bar[0], scale * bar[1]]
            };
            let x = interior(1e-3);
            let y = interior(10.0);
            let (w, wi, l) = nt_scaling(&x, &y);
            let wix = mat3_vec(&wi, &y);
            for k in 0..3 {
                assert!((l[k] - wix[k]).abs() <= 1e-9 * l[0], "{l:?} vs {wix:?}");
            }
            // W W⁻¹ = I and λᵀλ = xᵀy.
            for c in 0..3 {
                let col = mat3_vec(&w, &wi[3 * c..3 * c + 3]);
                for r in 0..3 {
                    let e = if r == c { 1.0 } else { 0.0 };
                    assert!((col[r] - e).abs() < 1e-9, "{col:?}");
                }
            }
            let xy = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
            assert!((l[0] * l[0] + l[1] * l[1] + l[2] * l[2] - xy).abs() <= 1e-9 * xy);
            assert!(soc_margin(&l) > 0.0);
            // Arw(λ)⁻¹ (λ∘a) = a.
            let a = [lcg(&mut seed), lcg(&mut seed), lcg(&mut seed)];
            let mut p = [0.0; 3];
            soc_product(&l, &a, &mut p);
            let back = arrow_solve(&l, &p);
            for k in 0..3 {
                assert!((back[k] - a[k]).abs() < 1e-6 * (1.0 + a[k].abs()), "{back:?} vs {a:?}");
            }
        }
    }
}
