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

use super::cone::{self, LANES};
use super::form::{Form, PartScratch};
use super::model::{by_model, visit_runs};
use super::{ContactModel, NewtonSolve};
use crate::linalg::simd::{self, Simd, WithSimd};
use crate::linalg::{BlockDiagLu, PartialPivLu, grow};
use crate::parallel::Parts;

/// Layout of the closed-form elimination's numbers per contact
/// ([`NewtonSystem::factor_closed_form`]): `a`, γ_n, the normal and tangential shifts, μ, `q`
/// (2), `B` (2×2 column-major), `W` (3×3 column-major), row 0 of `W⁻¹` (3).
const A: usize = 0;
const GN: usize = 1;
const SHIFT_N: usize = 2;
const SHIFT_T: usize = 3;
const MU: usize = 4;
const Q: usize = 5;
const B: usize = 7;
const W: usize = 11;
const WI0: usize = 20;
const CLOSED: usize = 23;

/// Length of `NewtonSystem::local`: a 2k×2k local block for the largest cone (k = 6).
const LOCAL: usize = 144;

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
    /// Engine iteration: added to the derivative of every velocity-unit equality row by its own
    /// impulse in the Newton matrix only: the proximal term δ_k (1/kg) on the gap and tangential
    /// rows, `normal` = δ_k + R_n on the gap row (R_n the normal compliance, which is also in the
    /// residual) (`docs/ipm.md` §11.2–§11.3). Both 0 for Dojo's iteration.
    pub shift_normal: f64,
    /// The tangential rows' share: δ_k.
    pub shift_tangent: f64,
    /// Per-contact normal compliance `R_n,i` (1/kg) of the gap rows, in the residual and here
    /// (`docs/ipm.md` §11.3, §11.7), for both row kinds (the sensitivities factor Dojo's rows at an
    /// engine solution). Empty: hard contact.
    pub compliance: &'a [f64],
    /// The parallel passes' cone-variable offsets of the form's contact split
    /// (`IpmWorkspace::kcuts`; unused without a split).
    pub kcuts: &'a [usize],
}

impl SystemData<'_> {
    /// Contact i's normal compliance (0 for hard contact).
    #[inline]
    fn compliance_of(&self, i: usize) -> f64 {
        self.compliance.get(i).copied().unwrap_or(0.0)
    }
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
    /// [`NewtonSystem::factor_closed_form`]: [`CLOSED`] numbers per contact.
    closed: Vec<f64>,
    /// The contact's block in `blocks` (contacts eliminated by the generic LU), or `usize::MAX`.
    block_of: Vec<usize>,
    /// Whether the last condensed factorization used the closed form.
    closed_form: bool,
    /// Whether it has no linear-model contact (then its solves can run split, see
    /// [`NewtonSystem::splits`]).
    closed_form_only: bool,
    /// Pass 1 of a split solve: per contact the force `f = −b` folded into the velocity rows
    /// and whether it is folded (1) or skipped (0), 4 numbers per contact.
    fold: Vec<f64>,
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
        if !data.compliance.is_empty() {
            model.add_equality_shift(data.compliance_of(i), 0.0, out);
        }
    } else {
        let nt = &data.nt[21 * i..21 * i + 21];
        let w: &[f64; 9] = nt[..9].try_into().expect("9 entries");
        let wi: &[f64; 9] = nt[9..18].try_into().expect("9 entries");
        model.write_local_block_nt(data.mu[i], si, gi, w, wi, out);
        model.add_equality_shift(data.shift_normal + data.compliance_of(i), data.shift_tangent, out);
    }
}

impl NewtonSystem {
    /// Makes sure a problem of these sizes needs no further allocation: `n` velocities, `nc`
    /// contacts of `k_total` cone entries, whose local blocks (2k×2k per contact) hold
    /// `block_entries` = Σ (2k)² numbers. Sized to the problem, not to the largest model (six
    /// entries per contact): a fresh solver of a small problem zero-fills only what it uses
    /// (`docs/performance.md` §4).
    pub fn reserve(&mut self, mode: NewtonSolve, n: usize, nc: usize, k_total: usize, block_entries: usize) {
        let big = n + 2 * k_total;
        if mode == NewtonSolve::Dense {
            self.lu.reserve(big);
        }
        self.blocks.reserve(nc, block_entries, 2 * k_total);
        grow(&mut self.d, 9 * nc);
        grow(&mut self.zf, 6 * k_total);
        grow(&mut self.zr, 2 * k_total);
        grow(&mut self.tmp, big);
        // One local block of the largest model (12×12, `factor_dense`), which also covers the
        // 12 + 12 of a right-hand side and its solve's scratch.
        grow(&mut self.local, LOCAL);
        grow(&mut self.closed, CLOSED * nc);
        grow(&mut self.fold, 4 * nc);
        if self.block_of.capacity() < nc {
            self.block_of.reserve(nc - self.block_of.len());
        }
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
            // Engine iteration: second-order-cone and impact contacts eliminated in closed form.
            NewtonSolve::Condensed if !data.nt.is_empty() => self.factor_closed_form(data, form, s, g),
            NewtonSolve::Condensed => {
                self.closed_form = false;
                self.factor_condensed(data, form, s, g, reg)
            }
            NewtonSolve::Dense => self.factor_dense(data, form, s, g, reg),
        }
        self.factored = true;
    }

    /// The engine iteration's condensed factorization (`docs/ipm.md` §11.4). Second-order-cone
    /// and impact contacts are eliminated in closed form instead of by an 8×8 (2×2) LU: with
    /// the Nesterov–Todd rows `W⁻¹Δη + WΔξ = r_c`, `G = W²`, `a = 1/(s_n/γ_n + σ_n)`,
    /// `B = (G_tt + σ_t I)⁻¹` and `q = B G_t0` (σ_n, σ_t: the equality rows' shifts), a velocity
    /// change `u = J_i Δv` changes the impulse by `b = d − D u` with
    /// `D = [[a, 0], [−μ a q, B]]`. Linear-model contacts take the generic LU of
    /// [`Self::factor_condensed`].
    fn factor_closed_form<F: Form>(&mut self, data: &SystemData<'_>, form: &mut F, s: &[f64], g: &[f64]) {
        self.closed_form = true;
        self.blocks.clear();
        self.block_of.clear();
        let nc = data.models.len();
        self.closed_form_only = data.models.iter().all(|&m| m != ContactModel::Linear);
        match form.split().filter(|sp| self.closed_form_only && data.kcuts.len() == sp.parts() + 1) {
            Some(sp) => {
                // The contacts' eliminations on the pool's participants, contact by contact as below.
                self.block_of.resize(nc, usize::MAX);
                let cuts = sp.contacts();
                let (d, closed) =
                    (Parts::new(&mut self.d, cuts, 9), Parts::new(&mut self.closed, cuts, CLOSED));
                sp.run(
                    #[inline(always)]
                    |q| {
                        let (d, closed) = (d.take(q), closed.take(q));
                        for i in cuts[q]..cuts[q + 1] {
                            let j = i - cuts[q];
                            let di = &mut d[9 * j..9 * j + 9];
                            eliminate(data, i, s, g, di, &mut closed[CLOSED * j..CLOSED * (j + 1)]);
                        }
                    },
                );
            }
            None => {
                // Runs of second-order-cone contacts side by side (issue 29).
                let (d, closed, blocks, block_of) =
                    (&mut self.d, &mut self.closed, &mut self.blocks, &mut self.block_of);
                visit_runs(
                    data.models,
                    data.offsets,
                    #[inline(always)]
                    |i, run| {
                        if run.is_some() {
                            let d = &mut d[9 * i..9 * (i + LANES)];
                            eliminate_run(data, i, s, g, d, &mut closed[CLOSED * i..CLOSED * (i + LANES)]);
                            block_of.extend([usize::MAX; LANES]);
                            return true;
                        }
                        let model = data.models[i];
                        let di = &mut d[9 * i..9 * i + 9];
                        if model == ContactModel::Linear {
                            di.fill(0.0);
                            block_of.push(blocks.num_blocks());
                            write_local(data, i, 0.0, s, g, blocks.push_block(2 * model.dim()));
                        } else {
                            block_of.push(usize::MAX);
                            eliminate(data, i, s, g, di, &mut closed[CLOSED * i..CLOSED * (i + 1)]);
                        }
                        true
                    },
                );
            }
        }
        self.blocks.factor();
        // Linear-model contacts: D_i and Z_i from their LU, as in `factor_condensed`.
        let (local, rest) = self.local.split_at_mut(12);
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            if model != ContactModel::Linear {
                continue;
            }
            let k = model.dim();
            let di = &mut self.d[9 * i..9 * i + 9];
            for a in 0..3 {
                let y = &mut local[..2 * k];
                y[..k].fill(0.0);
                for (e, ye) in y[k..].iter_mut().enumerate() {
                    *ye = model.velocity_map(data.h, e, a);
                }
                self.blocks.solve_block_in_place(self.block_of[i], y, rest);
                self.zf[6 * off + 2 * k * a..6 * off + 2 * k * (a + 1)].copy_from_slice(y);
                for r in 0..3 {
                    di[r + 3 * a] = (0..k).map(|j| model.impulse_map(r, j) * y[k + j]).sum();
                }
            }
        }
        form.factor_condensed(0.0, data.models, &self.d[..9 * data.models.len()]);
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
                if self.sys.splits(self.data, self.form) {
                    // No per-contact hooks and no partial results.
                    let (data, form, f) = (self.data, self.form, self.f);
                    self.sys.solve_split(data, form, f, None, [0.0; 8], |_, _, _| {}, |_, _, _, _| {});
                } else if self.sys.closed_form {
                    self.sys.solve_closed_form_body(self.data, self.form, self.f);
                } else {
                    self.sys.solve_condensed_body(self.data, self.form, self.f);
                }
            }
        }
        simd::dispatch(Op { sys: self, data, form, f });
    }

    /// Solve with [`Self::factor_closed_form`]'s factorization. The back-substitution takes the
    /// slacks from the equality rows (`Δs_n = u_n + σ_nΔγ_n − r_e1`, `Δη̄ = u_t + σ_tΔξ̄ − r_e3`)
    /// so that every step changes the equality residual by exactly (1 − α), and `Δη_0` from the
    /// cone's row 0.
    #[inline(always)]
    fn solve_closed_form_body<F: Form>(&mut self, data: &SystemData<'_>, form: &mut F, f: &mut [f64]) {
        let (fv, fc, fe) = split_rhs(data, f);
        // Pass 1: d_i, folded into the velocity rows as fv += J_iᵀ d_i. Each contact's body
        // compiled per model (`by_model`).
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            by_model(
                model,
                #[inline(always)]
                |model| {
                    let k = model.dim();
                    if self.zero_contact_rows(off, k, fc, fe) {
                        return;
                    }
                    if model == ContactModel::Linear {
                        let block = self.block_of[i];
                        self.fold_local_solve(block, i, model, off, (&*fc, &*fe), form, fv);
                        return;
                    }
                    let y = &mut self.zr[2 * off..2 * off + 2 * k];
                    let c = &self.closed[CLOSED * i..CLOSED * (i + 1)];
                    let (b, dirs) = closed_form_fold(c, model, &fc[off..off + k], &fe[off..off + k], y);
                    form.sub_contact_impulse(i, dirs, &b, fv);
                },
            );
        }
        form.solve_condensed(fv);
        // Pass 2: the contacts' steps from Δu_i = J_i Δv.
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            by_model(
                model,
                #[inline(always)]
                |model| {
                    if model == ContactModel::Linear {
                        self.local_step(i, model, off, (&mut *fc, &mut *fe), form, fv);
                        return;
                    }
                    let k = model.dim();
                    let c = &self.closed[CLOSED * i..CLOSED * (i + 1)];
                    let du = form.contact_velocity(i, if model == ContactModel::Impact { 1 } else { 3 }, fv);
                    let y = &self.zr[2 * off..2 * off + 2 * k];
                    closed_form_step(c, model, y, du, &mut fc[off..off + k], &mut fe[off..off + k]);
                },
            );
        }
    }

    /// Whether the solves of the last factorization can run on the participants of `form`'s
    /// split ([`Self::solve_split`]): closed form, no linear-model contact, a split whose offsets
    /// `data.kcuts` were recorded.
    #[inline(always)]
    pub fn splits<F: Form>(&self, data: &SystemData<'_>, form: &F) -> bool {
        self.mode == NewtonSolve::Condensed
            && self.closed_form
            && self.closed_form_only
            && form.split().is_some_and(|sp| data.kcuts.len() == sp.parts() + 1)
    }

    /// [`Self::solve_closed_form_body`] on the participants of `form`'s split
    /// (`docs/performance.md` §8; only when [`Self::splits`]): pass 1 by ranges of contacts (each
    /// contact's local solution and the force it folds into the velocity rows), the fold by
    /// ranges of trees (each tree's contacts in increasing order: entry by entry the sequential
    /// sum), the islands' solves (the form's own parallel phase), pass 2 by ranges of contacts.
    /// Every value gets the operations of the sequential solve in the same order.
    ///
    /// `pre(i, fc_i, fe_i)` runs for contact i before its pass 1 (to write its right-hand side
    /// rows); `post(i, fc_i, fe_i, acc)` after its pass 2 with its rows of the step, `acc` its
    /// part's slot of `part` (set to `init` first; a scratch slot without `part`), which the
    /// caller combines in part order.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn solve_split<F: Form>(
        &mut self,
        data: &SystemData<'_>,
        form: &mut F,
        f: &mut [f64],
        part: Option<&mut PartScratch>,
        init: [f64; 8],
        pre: impl Fn(usize, &mut [f64], &mut [f64]) + Sync,
        post: impl Fn(usize, &[f64], &[f64], &mut [f64; 8]) + Sync,
    ) {
        let (fv, fc, fe) = split_rhs(data, f);
        let (models, offsets, kc) = (data.models, data.offsets, data.kcuts);
        {
            let sp = form.split().expect("NewtonSystem::solve_split without a split");
            let (cuts, trees, dofs) = (sp.contacts(), sp.trees(), sp.dofs());
            let (fcp, fep) = (Parts::new(&mut *fc, kc, 1), Parts::new(&mut *fe, kc, 1));
            let zr = Parts::new(&mut self.zr, kc, 2);
            let fold = Parts::new(&mut self.fold, cuts, 4);
            let closed = &self.closed;
            sp.run(
                #[inline(always)]
                |q| {
                    let (fc, fe, zr, fold) = (fcp.take(q), fep.take(q), zr.take(q), fold.take(q));
                    for i in cuts[q]..cuts[q + 1] {
                        by_model(
                            models[i],
                            #[inline(always)]
                            |model| {
                                let k = model.dim();
                                let o = offsets[i] - kc[q];
                                let (fc, fe) = (&mut fc[o..o + k], &mut fe[o..o + k]);
                                pre(i, fc, fe);
                                let y = &mut zr[2 * o..2 * o + 2 * k];
                                let fi = &mut fold[4 * (i - cuts[q])..4 * (i - cuts[q]) + 4];
                                if all_zero(fc, fe) {
                                    y.fill(0.0);
                                    fi[3] = 0.0;
                                    return;
                                }
                                let c = &closed[CLOSED * i..CLOSED * (i + 1)];
                                let (b, dirs) = closed_form_fold(c, model, fc, fe, y);
                                // The force of `Form::sub_contact_impulse(i, dirs, b)`.
                                fi[..3].copy_from_slice(&[-b[0], -b[1], -b[2]]);
                                fi[dirs..3].fill(0.0);
                                fi[3] = 1.0;
                            },
                        );
                    }
                },
            );
            let fvp = Parts::new(&mut *fv, dofs, 1);
            let fold = &self.fold;
            sp.run(
                #[inline(always)]
                |q| {
                    let fv = fvp.take(q);
                    for t in trees[q]..trees[q + 1] {
                        let r = sp.tree_range(t);
                        sp.add_tree_forces(
                            t,
                            #[inline(always)]
                            |i| {
                                (fold[4 * i + 3] != 0.0)
                                    .then(|| [fold[4 * i], fold[4 * i + 1], fold[4 * i + 2]])
                            },
                            &mut fv[r.start - dofs[q]..r.end - dofs[q]],
                        );
                    }
                },
            );
        }
        form.solve_condensed(fv);
        let form = &*form;
        let sp = form.split().expect("NewtonSystem::solve_split without a split");
        let cuts = sp.contacts();
        let (fcp, fep) = (Parts::new(fc, kc, 1), Parts::new(fe, kc, 1));
        let (fv, zr, closed) = (&*fv, &self.zr, &self.closed);
        let slots = part.map(|part| part.slots(sp.parts()));
        sp.run(
            #[inline(always)]
            |q| {
                let (fc, fe) = (fcp.take(q), fep.take(q));
                let mut unused = init;
                let acc = match &slots {
                    Some(slots) => &mut slots.take(q)[0],
                    None => &mut unused,
                };
                *acc = init;
                for i in cuts[q]..cuts[q + 1] {
                    by_model(
                        models[i],
                        #[inline(always)]
                        |model| {
                            let (off, k) = (offsets[i], model.dim());
                            let o = off - kc[q];
                            let (fc, fe) = (&mut fc[o..o + k], &mut fe[o..o + k]);
                            let c = &closed[CLOSED * i..CLOSED * (i + 1)];
                            let dirs = if model == ContactModel::Impact { 1 } else { 3 };
                            let du = form.contact_velocity(i, dirs, fv);
                            closed_form_step(c, model, &zr[2 * off..2 * off + 2 * k], du, fc, fe);
                            post(i, fc, fe, acc);
                        },
                    );
                }
            },
        );
    }

    #[inline(always)]
    fn solve_condensed_body<F: Form>(&mut self, data: &SystemData<'_>, form: &mut F, f: &mut [f64]) {
        let (fv, fc, fe) = split_rhs(data, f);
        // Pass 1: local solves z_i = K_i⁻¹ (f_c; f_e), folded into the velocity rows.
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            if !self.zero_contact_rows(off, model.dim(), fc, fe) {
                self.fold_local_solve(i, i, model, off, (&*fc, &*fe), form, fv);
            }
        }
        form.solve_condensed(fv);
        // Pass 2: with Δu_i = J_i Δv, y_i = K_i⁻¹ (f_c; f_e − F_i Δu_i) = z_i − Z_i Δu_i.
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            self.local_step(i, model, off, (&mut *fc, &mut *fe), form, fv);
        }
    }

    /// Whether contact rows `off..off + k` of the right-hand side are all zero (sensitivity
    /// right-hand sides mostly are): then the contact's local solve in `zr` is zero and there is
    /// nothing to fold into the velocity rows.
    #[inline(always)]
    fn zero_contact_rows(&mut self, off: usize, k: usize, fc: &[f64], fe: &[f64]) -> bool {
        let zero = all_zero(&fc[off..off + k], &fe[off..off + k]);
        if zero {
            self.zr[2 * off..2 * off + 2 * k].fill(0.0);
        }
        zero
    }

    /// Pass 1 of a solve for a contact with its own local factorization (block `block` of
    /// `blocks`): `z_i = K_i⁻¹ (f_c; f_e)` into `zr`, folded into the velocity rows as
    /// `fv += J_iᵀ d` with `d = Π_i z_γ` (as −(−d), bit for bit the same sum).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn fold_local_solve<F: Form>(
        &mut self,
        block: usize,
        i: usize,
        model: ContactModel,
        off: usize,
        (fc, fe): (&[f64], &[f64]),
        form: &mut F,
        fv: &mut [f64],
    ) {
        let k = model.dim();
        let y = &mut self.zr[2 * off..2 * off + 2 * k];
        y[..k].copy_from_slice(&fc[off..off + k]);
        y[k..].copy_from_slice(&fe[off..off + k]);
        self.blocks.solve_block_in_place(block, y, &mut self.local[..]);
        let dirs = if model == ContactModel::Impact { 1 } else { 3 };
        let mut neg = [0.0; 3];
        for (a, na) in neg.iter_mut().enumerate().take(dirs) {
            *na = -(0..k).map(|j| model.impulse_map(a, j) * y[k + j]).sum::<f64>();
        }
        form.sub_contact_impulse(i, dirs, &neg, fv);
    }

    /// Pass 2 for the contacts of [`Self::fold_local_solve`]: with `Δu_i = J_i Δv`, the contact's
    /// rows of the step `y_i = K_i⁻¹ (f_c; f_e − F_i Δu_i) = z_i − Z_i Δu_i`.
    #[inline(always)]
    fn local_step<F: Form>(
        &self,
        i: usize,
        model: ContactModel,
        off: usize,
        (fc, fe): (&mut [f64], &mut [f64]),
        form: &mut F,
        fv: &[f64],
    ) {
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

/// Whether every entry of a contact's cone rows `fc` and equality rows `fe` is zero: two plain
/// loops, which unroll where the contact's size is a constant (`by_model`), rather than a chained
/// iterator (issue 29).
#[inline(always)]
fn all_zero(fc: &[f64], fe: &[f64]) -> bool {
    fc.iter().all(|&x| x == 0.0) && fe.iter().all(|&x| x == 0.0)
}

/// The right-hand side (or solution) `f` of length n + 2K split into its velocity rows, its
/// cone rows and its equality rows.
#[inline(always)]
fn split_rhs<'f>(data: &SystemData<'_>, f: &'f mut [f64]) -> (&'f mut [f64], &'f mut [f64], &'f mut [f64]) {
    let (fv, fk) = f.split_at_mut(data.n);
    let (fc, fe) = fk.split_at_mut(data.k_total);
    (fv, fc, fe)
}

/// Contact i's closed-form elimination ([`NewtonSystem::factor_closed_form`], second-order-cone
/// and impact contacts): its numbers into `c` ([`CLOSED`]) and its `D_i` into `di` (3×3
/// column-major, every entry written).
#[inline(always)]
fn eliminate(data: &SystemData<'_>, i: usize, s: &[f64], g: &[f64], di: &mut [f64], c: &mut [f64]) {
    eliminate_normal(data, i, s, g, di, c);
    if data.models[i] == ContactModel::SecondOrderCone {
        let nt = &data.nt[21 * i..21 * i + 21];
        let (b, q) = tangent_elimination(nt[..9].try_into().expect("9 entries"), nt[9], data.shift_tangent);
        eliminate_tangent(data, i, b, q, di, c);
    }
}

/// [`eliminate`] of the [`cone::LANES`] second-order-cone contacts `i..`: `d` and `c` hold their
/// `D_i` (9 numbers each, every entry written) and numbers ([`CLOSED`] each) contact after
/// contact; their tangent eliminations side by side ([`tangent_elimination_lanes`], the same
/// bits).
#[inline(always)]
fn eliminate_run(data: &SystemData<'_>, i: usize, s: &[f64], g: &[f64], d: &mut [f64], c: &mut [f64]) {
    let nt = |l: usize| &data.nt[21 * (i + l)..21 * (i + l) + 21];
    let w: [[f64; LANES]; 3] = core::array::from_fn(|e| cone::lanes(|l| nt(l)[e]));
    let (b, q) = tangent_elimination_lanes(&w, &cone::lanes(|l| nt(l)[9]), data.shift_tangent);
    for (l, (di, cl)) in d.chunks_exact_mut(9).zip(c.chunks_exact_mut(CLOSED)).take(LANES).enumerate() {
        eliminate_normal(data, i + l, s, g, di, cl);
        eliminate_tangent(data, i + l, b.map(|x| x[l]), q.map(|x| x[l]), di, cl);
    }
}

/// The normal part of [`eliminate`]: `a = 1/(s_n/γ_n + shift)`; writes all of `di` (`D_i` of an
/// impact contact; the tangent part fills in a second-order-cone contact's), instead of a
/// `memset` call per contact or run (issue 29).
#[inline(always)]
fn eliminate_normal(data: &SystemData<'_>, i: usize, s: &[f64], g: &[f64], di: &mut [f64], c: &mut [f64]) {
    let off = data.offsets[i];
    let sn_shift = data.shift_normal + data.compliance_of(i);
    let a = 1.0 / (s[off] / g[off] + sn_shift);
    c[A] = a;
    c[GN] = g[off];
    c[SHIFT_N] = sn_shift;
    c[SHIFT_T] = data.shift_tangent;
    di[..9].copy_from_slice(&[a, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
}

/// The tangent part of [`eliminate`] for a second-order-cone contact, from its
/// [`tangent_elimination`] `(b, q)`.
#[inline(always)]
fn eliminate_tangent(
    data: &SystemData<'_>,
    i: usize,
    b: [f64; 4],
    q: [f64; 2],
    di: &mut [f64],
    c: &mut [f64],
) {
    let nt = &data.nt[21 * i..21 * i + 21];
    let (w, wi) = (&nt[..9], &nt[9..18]);
    let (mu, a) = (data.mu[i], c[A]);
    c[MU] = mu;
    c[Q..Q + 2].copy_from_slice(&q);
    c[B..B + 4].copy_from_slice(&b);
    c[W..W + 9].copy_from_slice(w);
    // Row 0 of W⁻¹, for Δη_0 from the cone's row 0.
    c[WI0] = wi[0];
    c[WI0 + 1] = wi[3];
    c[WI0 + 2] = wi[6];
    di[1] = -mu * a * q[0];
    di[2] = -mu * a * q[1];
    di[4] = b[0];
    di[5] = b[1];
    di[7] = b[2];
    di[8] = b[3];
}

/// Pass 1 of a closed-form solve for one second-order-cone or impact contact: its local
/// solution into `y` (2k) from its right-hand side rows `fc`, `fe` (k each) and its numbers `c`;
/// returns the impulse `b` and direction count to subtract as `J_iᵀ b` from the velocity rows.
#[inline(always)]
fn closed_form_fold(
    c: &[f64],
    model: ContactModel,
    fc: &[f64],
    fe: &[f64],
    y: &mut [f64],
) -> ([f64; 3], usize) {
    if model == ContactModel::Impact {
        let dn = c[A] * (fe[0] + fc[0] / c[GN]);
        y[0] = dn;
        return ([-dn, 0.0, 0.0], 1);
    }
    let (a, mu, q, b, w) = (c[A], c[MU], &c[Q..Q + 2], &c[B..B + 4], &c[W..W + 9]);
    let rc = &fc[1..4];
    let wr = [
        w[0] * rc[0] + w[3] * rc[1] + w[6] * rc[2],
        w[1] * rc[0] + w[4] * rc[1] + w[7] * rc[2],
        w[2] * rc[0] + w[5] * rc[1] + w[8] * rc[2],
    ];
    let dn = a * (fe[0] + fc[0] / c[GN]);
    let ct = [fe[2] + wr[1], fe[3] + wr[2]];
    let re2 = fe[1] - mu * dn;
    let dt0 = b[0] * ct[0] + b[2] * ct[1] + q[0] * re2;
    let dt1 = b[1] * ct[0] + b[3] * ct[1] + q[1] * re2;
    y[0] = dn;
    y[1] = dt0;
    y[2] = dt1;
    y[3..6].copy_from_slice(&wr);
    ([-dn, -dt0, -dt1], 3)
}

/// Pass 2 of a closed-form solve for one second-order-cone or impact contact: its rows of the
/// step into `fc`, `fe` (k each, overwriting the right-hand side) from `Δu_i = J_i Δv` (`du`), its
/// pass-1 solution `y` and its numbers `c`.
#[inline(always)]
fn closed_form_step(c: &[f64], model: ContactModel, y: &[f64], du: [f64; 3], fc: &mut [f64], fe: &mut [f64]) {
    if model == ContactModel::Impact {
        let dgn = y[0] - c[A] * du[0];
        fc[0] = du[0] + c[SHIFT_N] * dgn - fe[0];
        fe[0] = dgn;
        return;
    }
    let (a, mu, q, b, w) = (c[A], c[MU], &c[Q..Q + 2], &c[B..B + 4], &c[W..W + 9]);
    let dgn = y[0] - a * du[0];
    let dx1 = y[1] + mu * a * q[0] * du[0] - (b[0] * du[1] + b[2] * du[2]);
    let dx2 = y[2] + mu * a * q[1] * du[0] - (b[1] * du[1] + b[3] * du[2]);
    let dx0 = mu * dgn - fe[1];
    let dsn = du[0] + c[SHIFT_N] * dgn - fe[0];
    let de1 = du[1] + c[SHIFT_T] * dx1 - fe[2];
    let de2 = du[2] + c[SHIFT_T] * dx2 - fe[3];
    let wdx0 = w[0] * dx0 + w[3] * dx1 + w[6] * dx2;
    let de0 = (fc[1] - wdx0 - c[WI0 + 1] * de1 - c[WI0 + 2] * de2) / c[WI0];
    fc[0] = dsn;
    fc[1] = de0;
    fc[2] = de1;
    fc[3] = de2;
    fe[0] = dgn;
    fe[1] = dx0;
    fe[2] = dx1;
    fe[3] = dx2;
}

/// `B = (G_tt + σ I)⁻¹` (2×2, column-major) and `q = B G_t0` of one second-order-cone pair with
/// `G = W²` (`docs/ipm.md` §11.4), from `W = β(2vvᵀ − J)` in closed form. Forming `W·W` squares
/// `W`'s condition number, which near the cone's boundary loses every digit of `B` and `q` (the
/// engine iteration then stalled at a complementarity of ~2e-6 on Siconos' Rover files). With
/// `β² = W_00/W⁻¹_00`, `2v_0² − 1 = √(W_00·W⁻¹_00)` and `v_t = W_t0/(2βv_0)`:
/// `G_tt = β²(I + c v_t v_tᵀ)` with `c = 8v_0²`, `G_t0 = 4β²v_0(2v_0² − 1) v_t`, so by
/// Sherman–Morrison, with `d = β² + σ + β²c|v_t|²` (every term positive, no cancellation),
/// `B = (I − β²c v_t v_tᵀ/d)/(β² + σ)` and `q = 4β²v_0(2v_0² − 1) v_t/d`.
fn tangent_elimination(w: &[f64; 9], wi00: f64, shift: f64) -> ([f64; 4], [f64; 2]) {
    let (b, q) = tangent_elimination_lanes(&[[w[0]], [w[1]], [w[2]]], &[wi00], shift);
    (b.map(|x| x[0]), q.map(|x| x[0]))
}

/// [`tangent_elimination`] of `N` pairs side by side (`w[e][l]`: entry `e` of column 0 of pair
/// `l`'s `W`), each lane the operations of the scalar formula (`cone::lanes`).
#[inline(always)]
fn tangent_elimination_lanes<const N: usize>(
    w: &[[f64; N]; 3],
    wi00: &[f64; N],
    shift: f64,
) -> ([[f64; N]; 4], [[f64; N]; 2]) {
    let beta2: [f64; N] = cone::lanes(|i| w[0][i] / wi00[i]);
    let t: [f64; N] = cone::lanes(|i| (w[0][i] * wi00[i]).sqrt());
    let v0: [f64; N] = cone::lanes(|i| (0.5 * (1.0 + t[i])).sqrt());
    let scale: [f64; N] = cone::lanes(|i| 1.0 / (2.0 * beta2[i].sqrt() * v0[i]));
    let vt: [[f64; N]; 2] = [cone::lanes(|i| w[1][i] * scale[i]), cone::lanes(|i| w[2][i] * scale[i])];
    let c: [f64; N] = cone::lanes(|i| 8.0 * beta2[i] * v0[i] * v0[i]);
    let d: [f64; N] = cone::lanes(|i| beta2[i] + shift + c[i] * (vt[0][i] * vt[0][i] + vt[1][i] * vt[1][i]));
    let inv: [f64; N] = cone::lanes(|i| 1.0 / (beta2[i] + shift));
    let off: [f64; N] = cone::lanes(|i| -inv[i] * c[i] * vt[0][i] * vt[1][i] / d[i]);
    let b = [
        cone::lanes(|i| inv[i] * (1.0 - c[i] * vt[0][i] * vt[0][i] / d[i])),
        off,
        off,
        cone::lanes(|i| inv[i] * (1.0 - c[i] * vt[1][i] * vt[1][i] / d[i])),
    ];
    let f: [f64; N] = cone::lanes(|i| 4.0 * beta2[i] * v0[i] * t[i] / d[i]);
    (b, [cone::lanes(|i| f[i] * vt[0][i]), cone::lanes(|i| f[i] * vt[1][i])])
}

#[cfg(test)]
mod tests {
    use super::tangent_elimination;
    use crate::ipm::cone::nt_scaling;

    /// The closed form equals `(G_tt + σI)⁻¹` and `B G_t0` computed from `G = W·W` where that is
    /// well conditioned.
    #[test]
    fn tangent_elimination_equals_the_explicit_inverse() {
        for (x, y, shift) in [
            ([1.0, 0.3, -0.2], [2.0, -0.5, 0.7], 0.0),
            ([3.0, 1.0, 2.0], [1.5, 0.2, 0.1], 0.3),
            ([1.0, 0.0, 0.0], [1.0, 0.0, 0.0], 1e-3),
            ([0.7, 0.5, -0.45], [4.0, 3.0, 2.5], 0.0),
        ] {
            let (w, wi, _) = nt_scaling(&x, &y);
            let mut g = [0.0; 9];
            for col in 0..3 {
                for row in 0..3 {
                    g[row + 3 * col] = (0..3).map(|k| w[row + 3 * k] * w[k + 3 * col]).sum();
                }
            }
            let (g11, g21, g12, g22) = (g[4] + shift, g[5], g[7], g[8] + shift);
            let det = g11 * g22 - g12 * g21;
            let b_ref = [g22 / det, -g21 / det, -g12 / det, g11 / det];
            let q_ref = [b_ref[0] * g[1] + b_ref[2] * g[2], b_ref[1] * g[1] + b_ref[3] * g[2]];
            let (b, q) = tangent_elimination(&w, wi[0], shift);
            for (a, r) in b.iter().zip(&b_ref).chain(q.iter().zip(&q_ref)) {
                assert!((a - r).abs() <= 1e-12 * (1.0 + r.abs()), "{b:?} {q:?} vs {b_ref:?} {q_ref:?}");
            }
        }
    }
}
