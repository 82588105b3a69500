//! The Newton system `R(w)·Δ = f` of one iteration (`specs/ipm.md` §2), factored once and solved
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

use nalgebra::DMatrixView;

use super::{ContactModel, NewtonSolve};
use crate::linalg::{BlockDiagLu, PartialPivLu, grow};

/// What the Newton matrix depends on besides the cone variables.
pub(crate) struct SystemData<'a> {
    pub m: DMatrixView<'a, f64>,
    /// `Jᵀ`, column-major n×3nc: columns `3i, 3i+1, 3i+2` = normal, t1, t2 rows of contact i.
    pub jtr: &'a [f64],
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

/// Factorization of the Newton matrix in owned, grow-only storage.
#[derive(Debug, Clone, Default)]
pub(crate) struct NewtonSystem {
    mode: NewtonSolve,
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
        match mode {
            NewtonSolve::Condensed => self.lu.reserve(n),
            NewtonSolve::Dense => self.lu.reserve(big),
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
    pub fn factor(&mut self, mode: NewtonSolve, data: &SystemData<'_>, s: &[f64], g: &[f64], reg: f64) {
        self.mode = mode;
        match mode {
            NewtonSolve::Condensed => self.factor_condensed(data, s, g, reg),
            NewtonSolve::Dense => self.factor_dense(data, s, g, reg),
        }
        self.factored = true;
    }

    fn factor_condensed(&mut self, data: &SystemData<'_>, s: &[f64], g: &[f64], reg: f64) {
        let n = data.n;
        let jtr = data.jtr;
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
        let mut hm = self.lu.matrix_mut(n);
        hm.copy_from(&data.m);
        for j in 0..n {
            hm[(j, j)] += reg;
        }
        for (i, &model) in data.models.iter().enumerate() {
            let di = &self.d[9 * i..9 * i + 9];
            let c0 = &jtr[3 * i * n..(3 * i + 1) * n];
            if model == ContactModel::Impact {
                let d00 = di[0];
                for (c, &jc) in c0.iter().enumerate() {
                    if jc == 0.0 {
                        continue;
                    }
                    let mut colv = hm.column_mut(c);
                    let col = colv.as_mut_slice();
                    let p = d00 * jc;
                    for (x, &a) in col.iter_mut().zip(c0) {
                        *x += a * p;
                    }
                }
                continue;
            }
            let c1 = &jtr[(3 * i + 1) * n..(3 * i + 2) * n];
            let c2 = &jtr[(3 * i + 2) * n..(3 * i + 3) * n];
            for c in 0..n {
                let (j0, j1, j2) = (c0[c], c1[c], c2[c]);
                // Contact Jacobians of articulated bodies are sparse: skip the columns this
                // contact does not touch (the update is then O(n·nnz) instead of O(n²)).
                if j0 == 0.0 && j1 == 0.0 && j2 == 0.0 {
                    continue;
                }
                let mut colv = hm.column_mut(c);
                let col = colv.as_mut_slice();
                let p0 = di[0] * j0 + di[3] * j1 + di[6] * j2;
                let p1 = di[1] * j0 + di[4] * j1 + di[7] * j2;
                let p2 = di[2] * j0 + di[5] * j1 + di[8] * j2;
                for (((x, &a0), &a1), &a2) in col.iter_mut().zip(c0).zip(c1).zip(c2) {
                    *x += a0 * p0 + a1 * p1 + a2 * p2;
                }
            }
        }
        self.lu.factor();
    }

    fn factor_dense(&mut self, data: &SystemData<'_>, s: &[f64], g: &[f64], reg: f64) {
        let n = data.n;
        let kt = data.k_total;
        let big = n + 2 * kt;
        let jtr = data.jtr;
        let local = &mut self.local[..];
        let mut r = self.lu.matrix_mut(big);
        r.fill(0.0);
        r.view_mut((0, 0), (n, n)).copy_from(&data.m);
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

    /// Factors `M + reg·I` alone (no contact), for [`NewtonSystem::solve_mass_in_place`]: the
    /// engine iteration's free velocity `M⁻¹ p*` (`docs/ipm.md` §11). Invalidates the Newton
    /// factorization.
    pub fn factor_mass(&mut self, m: DMatrixView<'_, f64>, reg: f64) {
        let n = m.nrows();
        let mut hm = self.lu.matrix_mut(n);
        hm.copy_from(&m);
        for j in 0..n {
            hm[(j, j)] += reg;
        }
        self.lu.factor();
        self.factored = false;
    }

    /// Solves `(M + reg·I) x = b` in place after [`NewtonSystem::factor_mass`].
    pub fn solve_mass_in_place(&mut self, b: &mut [f64]) {
        self.lu.solve_in_place(b, &mut self.tmp);
    }

    /// Solves `R Δ = f` in place (`f.len()` = n + 2K) with the last factorization.
    pub fn solve_in_place(&mut self, data: &SystemData<'_>, f: &mut [f64]) {
        match self.mode {
            NewtonSolve::Dense => self.lu.solve_in_place(f, &mut self.tmp),
            NewtonSolve::Condensed => self.solve_condensed(data, f),
        }
    }

    fn solve_condensed(&mut self, data: &SystemData<'_>, f: &mut [f64]) {
        let n = data.n;
        let kt = data.k_total;
        let jtr = data.jtr;
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
            for a in 0..dirs {
                let da: f64 = (0..k).map(|j| model.impulse_map(a, j) * y[k + j]).sum();
                if da != 0.0 {
                    let col = &jtr[(3 * i + a) * n..(3 * i + a + 1) * n];
                    for (x, &c) in fv.iter_mut().zip(col) {
                        *x += c * da;
                    }
                }
            }
        }
        self.lu.solve_in_place(fv, &mut self.tmp);
        // Pass 2: with Δu_i = J_i Δv, y_i = K_i⁻¹ (f_c; f_e − F_i Δu_i) = z_i − Z_i Δu_i.
        for (i, (&model, &off)) in data.models.iter().zip(data.offsets).enumerate() {
            let k = model.dim();
            let dirs = if model == ContactModel::Impact { 1 } else { 3 };
            let y = &self.zr[2 * off..2 * off + 2 * k];
            fc[off..off + k].copy_from_slice(&y[..k]);
            fe[off..off + k].copy_from_slice(&y[k..]);
            for a in 0..dirs {
                let col = &jtr[(3 * i + a) * n..(3 * i + a + 1) * n];
                let da: f64 = col.iter().zip(fv.iter()).map(|(c, x)| c * x).sum();
                let za = &self.zf[6 * off + 2 * k * a..6 * off + 2 * k * (a + 1)];
                for (x, &z) in fc[off..off + k].iter_mut().chain(fe[off..off + k].iter_mut()).zip(za) {
                    *x -= z * da;
                }
            }
        }
    }
}
