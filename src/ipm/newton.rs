//! The Newton system `R(w)·Δ = f` of one iteration (`docs/ipm.md` §2), factored once and solved
//! for several right-hand sides (predictor, corrector, sensitivity columns).
//!
//! Vector layout (all right-hand sides and solutions): `[v (n) | s (K) | γ (K)]` for unknowns,
//! `[dynamics (n) | complementarity (K) | equalities (K)]` for residual rows, where contact i
//! occupies entries `off_i..off_i + k_i` of each K-block. The matrix (§2.1):
//!
//! ```text
//!            Δv                 Δs_i        Δγ_i
//! dyn   [ M + REG·I            0          −J_iᵀ Π_i ]
//! cmp_i [ 0                    C_s,i      C_γ,i     ]
//! eq_i  [ F_i J_i              E_s,i      E_γ,i     ]
//! ```
//!
//! with `J_i = [J_n,i; J_t,i]` (3×n), `Π_i` the local impulse map and `F_i` the velocity map of
//! the model (the gap row carries `h·J_n`, the momentum row `J_nᵀ`: the matrix is unsymmetric on
//! purpose, §1.2). Condensed solve (§2.2 (b)): with `K_i = [C_s C_γ; E_s E_γ]` and
//! `D_i = Π_i·[K_i⁻¹ (0; F_i)]_γ` (3×3), `(M + REG·I + Σ J_iᵀ D_i J_i)·Δv = f_v + Σ J_iᵀ d_i`,
//! then every contact back-substitutes locally.

use super::form::Form;
use super::{ContactModel, NewtonSolve};
use crate::linalg::simd::{self, Simd, WithSimd};
use crate::linalg::{BlockDiagLu, PartialPivLu, grow};

/// What the Newton matrix depends on besides the cone variables and the data form (M and J,
/// [`Form`]).
pub(crate) struct SystemData<'a> {
    pub h: f64,
    pub mu: &'a [f64],
    pub models: &'a [ContactModel],
    pub offsets: &'a [usize],
    pub n: usize,
    /// Total contact dimension K = Σ k_i.
    pub k_total: usize,
    /// Engine iteration (`docs/ipm.md` §11): Nesterov–Todd data per contact (21 numbers at
    /// `21·i`: `W`, `W⁻¹` column-major 3×3, then `λ`), used for the second-order-cone blocks.
    /// Empty: Dojo's arrow-matrix rows (§2.1).
    pub nt: &'a [f64],
}

/// Factorization of the Newton matrix in owned, grow-only storage: the contacts' local blocks
/// here, the condensed velocity matrix in the data form ([`Form::factor_condensed`]), or the full
/// matrix of [`NewtonSolve::Dense`] here (dense form only).
#[derive(Debug, Clone, Default)]
pub(crate) struct NewtonSystem {
    mode: NewtonSolve,
    /// The full Newton matrix of [`NewtonSolve::Dense`].
    lu: PartialPivLu,
    blocks: BlockDiagLu,
    /// 3×3 column-major `D_i` per contact.
    d: Vec<f64>,
    /// `Z_i = K_i⁻¹ (0; F_i)`, column-major 2k×3 per contact, at offset `6·off_i`.
    zf: Vec<f64>,
    /// Pass-1 local solutions `K_i⁻¹ (f_c; f_e)`, 2k per contact at offset `2·off_i`.
    zr: Vec<f64>,
    tmp: Vec<f64>,
    local: Vec<f64>,
    /// Whether a factorization is available and at which iterate it was computed.
    pub factored: bool,
}

/// Writes contact `i`'s local block: Nesterov–Todd rows when `data.nt` is set, Dojo's rows with
/// regularization `reg` otherwise.
fn write_local(data: &SystemData<'_>, i: usize, reg: f64, s: &[f64], g: &[f64], out: &mut [f64]) {
    let model = data.models[i];
    let off = data.offsets[i];
    let k = model.dim();
    let (si, gi) = (&s[off..off + k], &g[off..off + k]);
    if data.nt.is_empty() {
        model.write_local_block(data.mu[i], reg, si, gi, out);
    } else {
        let nt = &data.nt[21 * i..21 * i + 21];
        let w: &[f64; 9] = nt[..9].try_into().expect("9 entries");
        let wi: &[f64; 9] = nt[9..18].try_into().expect("9 entries");
        model.write_local_block_nt(data.mu[i], si, gi, w, wi, out);
    }
}

impl NewtonSystem {
    /// Makes sure a problem of these sizes needs no further allocation.
    pub fn reserve(&mut self, mode: NewtonSolve, n: usize, nc: usize, k_total: usize) {
        let big = n + 2 * k_total;
        if mode == NewtonSolve::Dense {
            self.lu.reserve(big);
        }
        self.blocks.reserve(nc, 4 * 36 * nc, 12 * nc);
        grow(&mut self.d, 9 * nc);
        grow(&mut self.zf, 6 * k_total);
        grow(&mut self.zr, 2 * k_total);
        grow(&mut self.tmp, big);
        grow(&mut self.local, 4 * 144);
    }

    /// Factors `R(w)` at the cone variables `s`, `g` (packed, layout of the module docs), with
    /// Dojo's regularization `reg` (= `REG` while iterating, 0 for the exact Jacobian).
    /// [`NewtonSolve::Dense`] needs a form with dense parts ([`Form::dense_parts`]); the caller
    /// checks that.
    pub fn factor<F: Form>(
        &mut self,
        mode: NewtonSolve,
        data: &SystemData<'_>,
        form: &mut F,
        s: &[f64],
        g: &[f64],
        reg: f64,
    ) {
        self.mode = mode;
        match mode {
            NewtonSolve::Condensed => self.factor_condensed(data, form, s, g, reg),
            NewtonSolve::Dense => self.factor_dense(data, form, s, g, reg),
        }
        self.factored = true;
    }

    fn factor_condensed<F: Form>(
        &mut self,
        data: &SystemData<'_>,
        form: &mut F,
        s: &[f64],
        g: &[f64],
        reg: f64,
    ) {
        self.blocks.clear();
        for (i, &model) in data.models.iter().enumerate() {
            let k = model.dim();
            let blk = self.blocks.push_block(2 * k);
            write_local(data, i, reg, s, g, blk);
        }
        self.blocks.factor();

        // D_i = Π_i [K_i⁻¹ (0; F_i)]_γ, one column per local velocity direction.
        let (local, rest) = self.local.split_at_mut(12);
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            let k = model.dim();
            let di = &mut self.d[9 * i..9 * i + 9];
            di.fill(0.0);
            let dirs = if model == ContactModel::Impact { 1 } else { 3 };
            for a in 0..dirs {
                let y = &mut local[..2 * k];
                y[..k].fill(0.0);
                for (e, ye) in y[k..].iter_mut().enumerate() {
                    *ye = model.velocity_map(data.h, e, a);
                }
                self.blocks.solve_block_in_place(i, y, rest);
                self.zf[6 * off + 2 * k * a..6 * off + 2 * k * (a + 1)].copy_from_slice(y);
                for r in 0..3 {
                    di[r + 3 * a] = (0..k).map(|j| model.impulse_map(r, j) * y[k + j]).sum();
                }
            }
        }

        // H = M + REG·I + Σ J_iᵀ D_i J_i (a rank-3 update per contact, rank 1 for impact).
        form.factor_condensed(reg, data.models, &self.d[..9 * data.models.len()]);
    }

    fn factor_dense<F: Form>(&mut self, data: &SystemData<'_>, form: &F, s: &[f64], g: &[f64], reg: f64) {
        let n = data.n;
        let kt = data.k_total;
        let big = n + 2 * kt;
        let (m, jtr) =
            form.dense_parts().expect("NewtonSolve::Dense needs the dense form (checked by the solver)");
        let local = &mut self.local[..];
        let mut r = self.lu.matrix_mut(big);
        r.fill(0.0);
        r.view_mut((0, 0), (n, n)).copy_from(&m);
        for j in 0..n {
            r[(j, j)] += reg;
        }
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            let k = model.dim();
            let cols = [
                &jtr[3 * i * n..(3 * i + 1) * n],
                &jtr[(3 * i + 1) * n..(3 * i + 2) * n],
                &jtr[(3 * i + 2) * n..(3 * i + 3) * n],
            ];
            // Momentum rows vs Δγ: −Jᵀ Π.
            for j in 0..k {
                for (a, col) in cols.iter().enumerate() {
                    let p = model.impulse_map(a, j);
                    if p != 0.0 {
                        for (row, &x) in col.iter().enumerate() {
                            r[(row, n + kt + off + j)] -= p * x;
                        }
                    }
                }
            }
            // Equality rows vs Δv: F J.
            for e in 0..k {
                for (a, col) in cols.iter().enumerate() {
                    let f = model.velocity_map(data.h, e, a);
                    if f != 0.0 {
                        for (c, &x) in col.iter().enumerate() {
                            r[(n + kt + off + e, c)] += f * x;
                        }
                    }
                }
            }
            // Local block.
            write_local(data, i, reg, s, g, local);
            let ld = 2 * k;
            for lc in 0..ld {
                let gc = if lc < k { n + off + lc } else { n + kt + off + lc - k };
                for lr in 0..ld {
                    let gr = if lr < k { n + off + lr } else { n + kt + off + lr - k };
                    r[(gr, gc)] = local[lr + lc * ld];
                }
            }
        }
        self.lu.factor();
    }

    /// Solves `R Δ = f` in place (`f.len()` = n + 2K) with the last factorization.
    pub fn solve_in_place<F: Form>(&mut self, data: &SystemData<'_>, form: &mut F, f: &mut [f64]) {
        match self.mode {
            NewtonSolve::Dense => self.lu.solve_in_place(f, &mut self.tmp),
            NewtonSolve::Condensed => self.solve_condensed(data, form, f),
        }
    }

    /// Runs [`Self::solve_condensed_body`] inside the SIMD dispatch: the per-contact kernels of
    /// the block form use `f64::mul_add`, one instruction there and a library call in the
    /// baseline build (same bits either way: both are the correctly rounded FMA).
    fn solve_condensed<F: Form>(&mut self, data: &SystemData<'_>, form: &mut F, f: &mut [f64]) {
        struct Op<'a, 'b, 'd, F> {
            sys: &'a mut NewtonSystem,
            data: &'b SystemData<'d>,
            form: &'a mut F,
            f: &'a mut [f64],
        }
        impl<F: Form> WithSimd for Op<'_, '_, '_, F> {
            type Output = ();
            #[inline(always)]
            fn with_simd<S: Simd>(self, _simd: S) {
                self.sys.solve_condensed_body(self.data, self.form, self.f);
            }
        }
        simd::dispatch(Op { sys: self, data, form, f });
    }

    #[inline(always)]
    fn solve_condensed_body<F: Form>(&mut self, data: &SystemData<'_>, form: &mut F, f: &mut [f64]) {
        let n = data.n;
        let kt = data.k_total;
        let (fv, fk) = f.split_at_mut(n);
        let (fc, fe) = fk.split_at_mut(kt);
        let rest = &mut self.local[..];
        // Pass 1: local solves z_i = K_i⁻¹ (f_c; f_e), folded into the velocity rows.
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            let k = model.dim();
            let y = &mut self.zr[2 * off..2 * off + 2 * k];
            // Sensitivity right-hand sides are mostly zero in the contact rows: nothing to fold.
            if fc[off..off + k].iter().chain(&fe[off..off + k]).all(|&x| x == 0.0) {
                y.fill(0.0);
                continue;
            }
            y[..k].copy_from_slice(&fc[off..off + k]);
            y[k..].copy_from_slice(&fe[off..off + k]);
            self.blocks.solve_block_in_place(i, y, rest);
            let dirs = if model == ContactModel::Impact { 1 } else { 3 };
            // fv += J_iᵀ d with d = Π_i y_γ (as −(−d), bit for bit the same sum).
            let mut neg = [0.0; 3];
            for (a, na) in neg.iter_mut().enumerate().take(dirs) {
                *na = -(0..k).map(|j| model.impulse_map(a, j) * y[k + j]).sum::<f64>();
            }
            form.sub_contact_impulse(i, dirs, &neg, fv);
        }
        form.solve_condensed(fv);
        // Pass 2: with Δu_i = J_i Δv, y_i = K_i⁻¹ (f_c; f_e − F_i Δu_i) = z_i − Z_i Δu_i.
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            let k = model.dim();
            let dirs = if model == ContactModel::Impact { 1 } else { 3 };
            let y = &self.zr[2 * off..2 * off + 2 * k];
            fc[off..off + k].copy_from_slice(&y[..k]);
            fe[off..off + k].copy_from_slice(&y[k..]);
            let du = form.contact_velocity(i, dirs, fv);
            for (a, &da) in du.iter().enumerate().take(dirs) {
                let za = &self.zf[6 * off + 2 * k * a..6 * off + 2 * k * (a + 1)];
                for (x, &z) in fc[off..off + k].iter_mut().chain(fe[off..off + k].iter_mut()).zip(za) {
                    *x -= z * da;
                }
            }
        }
    }
}
