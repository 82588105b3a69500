//! Numerical core shared by every `ConstraintSolver` entry point: the inverse-inertia solve, the
//! MLCP → LCP reduction with bilateral constraints (`docs/rigid.md` §3), the Delassus block
//! builder (§4) and the assembly of the three LCPs (§5.3, §6.3) and of the linear system (§5.4).
//!
//! All storage is owned and grow-only (nothing allocates once grown).

use crate::linalg::{Cod, Ldlt, grow};

use super::RigidError;
use super::operator::{InertiaSolve, Operator};
use super::problem::{ConstraintAccelProblemData, ConstraintVelProblemData, Dims};

/// The operators of one problem, level-independent: `nt` is `(N − μQ)ᵀ` at the acceleration
/// level and `Nᵀ` at the velocity level.
pub(crate) struct Ops<'x, 'a> {
    pub d: Dims,
    pub n: &'x Operator<'a>,
    pub nt: &'x Operator<'a>,
    pub f: &'x Operator<'a>,
    pub ft: &'x Operator<'a>,
    pub l: &'x Operator<'a>,
    pub lt: &'x Operator<'a>,
    pub g: &'x Operator<'a>,
    pub gt: &'x Operator<'a>,
    pub inertia: &'x InertiaSolve<'a>,
}

impl<'x, 'a> Ops<'x, 'a> {
    pub(crate) fn accel(data: &'x ConstraintAccelProblemData<'a>, d: Dims) -> Self {
        Self {
            d,
            n: &data.n_mult,
            nt: &data.n_minus_muq_transpose_mult,
            f: &data.f_mult,
            ft: &data.f_transpose_mult,
            l: &data.l_mult,
            lt: &data.l_transpose_mult,
            g: &data.g_mult,
            gt: &data.g_transpose_mult,
            inertia: &data.solve_inertia,
        }
    }

    pub(crate) fn vel(data: &'x ConstraintVelProblemData<'a>, d: Dims) -> Self {
        Self {
            d,
            n: &data.n_mult,
            nt: &data.n_transpose_mult,
            f: &data.f_mult,
            ft: &data.f_transpose_mult,
            l: &data.l_mult,
            lt: &data.l_transpose_mult,
            g: &data.g_mult,
            gt: &data.g_transpose_mult,
            inertia: &data.solve_inertia,
        }
    }
}

/// Which inverse-inertia operator builds the Delassus blocks (§4, quirk Q1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockOperator {
    /// `C = fast_A_solve`, the constrained inverse inertia (correct).
    Constrained,
    /// Plain `M⁻¹` (Drake HEAD).
    InverseInertia,
}

/// Workspace of the reduction and assembly.
#[derive(Debug, Clone, Default)]
pub(crate) struct Engine {
    pub ldlt: Ldlt,
    /// Delassus matrix `G M⁻¹ Gᵀ` (nb×nb), factored.
    pub del: Cod,
    /// `M⁻¹ Gᵀ` (nv×nb, column-major).
    pub minv_gt: Vec<f64>,
    /// nb of the factored Delassus matrix.
    pub nb: usize,
    /// `P = W Jᵀ` blocks: W·(normal transpose) nv×nc, W·Fᵀ nv×nr, W·Lᵀ nv×nu.
    pub p_n: Vec<f64>,
    pub p_f: Vec<f64>,
    pub p_l: Vec<f64>,
    /// Column-major LCP matrix (n×n) and vector.
    pub mm: Vec<f64>,
    pub qq: Vec<f64>,
    pub n_lcp: usize,
    /// `a = [−p; kG]` and the free motion `x*` (§3.3).
    pub a: Vec<f64>,
    pub xstar: Vec<f64>,
    // Scratch.
    pub unit: Vec<f64>,
    pub t1: Vec<f64>,
    pub t2: Vec<f64>,
    pub t3: Vec<f64>,
    pub b1: Vec<f64>,
    pub b2: Vec<f64>,
    pub row: Vec<f64>,
}

impl Engine {
    /// Grows the scratch for sizes `d` and an LCP of size `n_lcp`.
    pub(crate) fn reserve(&mut self, d: &Dims, n_lcp: usize) {
        let nv = d.nv;
        let big = d.nc.max(d.nr).max(d.nu).max(d.nb).max(nv).max(n_lcp);
        grow(&mut self.minv_gt, nv * d.nb);
        grow(&mut self.p_n, nv * d.nc);
        grow(&mut self.p_f, nv * d.nr);
        grow(&mut self.p_l, nv * d.nu);
        grow(&mut self.mm, n_lcp * n_lcp);
        grow(&mut self.qq, n_lcp);
        grow(&mut self.a, nv + d.nb);
        grow(&mut self.xstar, nv);
        grow(&mut self.unit, big);
        grow(&mut self.t1, nv);
        grow(&mut self.t2, nv);
        grow(&mut self.t3, nv);
        grow(&mut self.b1, d.nb);
        grow(&mut self.b2, d.nb);
        grow(&mut self.row, big);
        self.del.reserve(d.nb, d.nb);
        self.ldlt.reserve(nv);
    }

    /// Validates / factors the inertia operator.
    pub(crate) fn prepare_inertia(&mut self, ops: &Ops) -> Result<(), RigidError> {
        ops.inertia.prepare(ops.d.nv, &mut self.ldlt)
    }

    /// `x = M⁻¹ b`.
    pub(crate) fn minv(&self, ops: &Ops, b: &[f64], x: &mut [f64]) {
        ops.inertia.apply(&self.ldlt, b, x);
    }

    /// §3.1: `M⁻¹Gᵀ` and the COD of `Del = G M⁻¹ Gᵀ` (only if nb > 0).
    pub(crate) fn build_mlcp(&mut self, ops: &Ops) {
        let (nv, nb) = (ops.d.nv, ops.d.nb);
        self.nb = nb;
        if nb == 0 {
            return;
        }
        let unit = &mut self.unit[..nb];
        unit.fill(0.0);
        for i in 0..nb {
            unit[i] = 1.0;
            ops.gt.apply(unit, &mut self.t1[..nv]);
            unit[i] = 0.0;
            ops.inertia.apply(&self.ldlt, &self.t1[..nv], &mut self.minv_gt[i * nv..(i + 1) * nv]);
        }
        let mut del = self.del.matrix_mut(nb, nb);
        for i in 0..nb {
            ops.g.apply(&self.minv_gt[i * nv..(i + 1) * nv], &mut self.b1[..nb]);
            for k in 0..nb {
                del[(k, i)] = self.b1[k];
            }
        }
        self.del.factor();
    }

    /// `A_solve` (§3.2): `[x_top; x_bot] = A⁻¹ [y; zb]` with `λ = Del⁺(zb − G M⁻¹y)`,
    /// `x_top = M⁻¹y + M⁻¹Gᵀλ`, `x_bot = λ`. Uses `t2`, `b1`, `b2` as scratch; `y` must not alias
    /// them.
    pub(crate) fn a_solve(&mut self, ops: &Ops, y: &[f64], zb: &[f64], x_top: &mut [f64], x_bot: &mut [f64]) {
        let (nv, nb) = (ops.d.nv, self.nb);
        ops.inertia.apply(&self.ldlt, y, x_top);
        if nb == 0 {
            return;
        }
        ops.g.apply(x_top, &mut self.b1[..nb]);
        for (b, &z) in self.b1[..nb].iter_mut().zip(zb) {
            *b = z - *b;
        }
        self.del.solve(&self.b1[..nb], &mut self.b2[..nb]);
        for (i, (xb, &l)) in x_bot[..nb].iter_mut().zip(&self.b2[..nb]).enumerate() {
            *xb = l;
            for (x, &c) in x_top.iter_mut().zip(&self.minv_gt[i * nv..(i + 1) * nv]) {
                *x += c * l;
            }
        }
    }

    /// `fast_A_solve` (§3.2): `C y = M⁻¹y − M⁻¹Gᵀ Del⁺ G M⁻¹ y`.
    pub(crate) fn fast_a_solve(&mut self, ops: &Ops, y: &[f64], x: &mut [f64]) {
        let nb = self.nb;
        ops.inertia.apply(&self.ldlt, y, x);
        if nb == 0 {
            return;
        }
        let nv = ops.d.nv;
        ops.g.apply(x, &mut self.b1[..nb]);
        self.del.solve(&self.b1[..nb], &mut self.b2[..nb]);
        for i in 0..nb {
            let l = self.b2[i];
            for (xi, &c) in x.iter_mut().zip(&self.minv_gt[i * nv..(i + 1) * nv]) {
                *xi -= c * l;
            }
        }
    }

    /// `a = [−p; kG]` and `x* = −(A_solve(a))_top` (§3.3).
    pub(crate) fn free_motion(&mut self, ops: &Ops, p: &[f64], k_g: &[f64]) {
        let (nv, nb) = (ops.d.nv, ops.d.nb);
        for (a, &pi) in self.a[..nv].iter_mut().zip(p) {
            *a = -pi;
        }
        self.a[nv..nv + nb].copy_from_slice(k_g);
        // Move the inputs/outputs out of `self` so `a_solve` can borrow it (no allocation).
        let mut y = std::mem::take(&mut self.t3);
        let mut zb = std::mem::take(&mut self.unit);
        let mut x = std::mem::take(&mut self.xstar);
        let mut bot = std::mem::take(&mut self.row);
        y[..nv].copy_from_slice(&self.a[..nv]);
        zb[..nb].copy_from_slice(&self.a[nv..nv + nb]);
        self.a_solve(ops, &y[..nv], &zb[..nb], &mut x[..nv], &mut bot[..nb]);
        for xi in &mut x[..nv] {
            *xi = -*xi;
        }
        self.t3 = y;
        self.unit = zb;
        self.xstar = x;
        self.row = bot;
    }

    /// `P[:, i] = W Jᵀ eᵢ` for `i < cols` (§4), into `dst` (nv×cols).
    fn build_p(&mut self, ops: &Ops, jt: &Operator, cols: usize, w: BlockOperator, dst: &mut [f64]) {
        let nv = ops.d.nv;
        let mut unit = std::mem::take(&mut self.unit);
        let mut t = std::mem::take(&mut self.t1);
        unit[..cols].fill(0.0);
        for i in 0..cols {
            unit[i] = 1.0;
            jt.apply(&unit[..cols], &mut t[..nv]);
            unit[i] = 0.0;
            let out = &mut dst[i * nv..(i + 1) * nv];
            match w {
                BlockOperator::Constrained => self.fast_a_solve(ops, &t[..nv], out),
                BlockOperator::InverseInertia => self.minv(ops, &t[..nv], out),
            }
        }
        self.unit = unit;
        self.t1 = t;
    }

    /// Builds `p_n`, `p_f`, `p_l` (W times the normal, friction and limit transposes).
    pub(crate) fn build_all_p(&mut self, ops: &Ops, w: BlockOperator) {
        let d = ops.d;
        let nv = d.nv;
        let mut p = std::mem::take(&mut self.p_n);
        self.build_p(ops, ops.nt, d.nc, w, &mut p[..nv * d.nc]);
        self.p_n = p;
        let mut p = std::mem::take(&mut self.p_f);
        self.build_p(ops, ops.ft, d.nr, w, &mut p[..nv * d.nr]);
        self.p_f = p;
        let mut p = std::mem::take(&mut self.p_l);
        self.build_p(ops, ops.lt, d.nu, w, &mut p[..nv * d.nu]);
        self.p_l = p;
    }

    /// Writes `sign · J P` (J: `rows` outputs, P: nv×cols) into the LCP matrix block at
    /// (`r0`, `c0`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn put_jp(
        &mut self,
        nv: usize,
        j: &Operator,
        rows: usize,
        which: PBlock,
        cols: usize,
        r0: usize,
        c0: usize,
        sign: f64,
    ) {
        let n = self.n_lcp;
        let p = match which {
            PBlock::N => &self.p_n,
            PBlock::F => &self.p_f,
            PBlock::L => &self.p_l,
        };
        for i in 0..cols {
            j.apply(&p[i * nv..(i + 1) * nv], &mut self.row[..rows]);
            let col = &mut self.mm[(c0 + i) * n..(c0 + i + 1) * n];
            for k in 0..rows {
                col[r0 + k] = sign * self.row[k];
            }
        }
    }

    /// Copies `sign · (block at (r, c), rows×cols)ᵀ` to (`r0`, `c0`) of the LCP matrix.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn put_transpose(
        &mut self,
        r: usize,
        c: usize,
        rows: usize,
        cols: usize,
        r0: usize,
        c0: usize,
        sign: f64,
    ) {
        let n = self.n_lcp;
        for i in 0..rows {
            for k in 0..cols {
                self.mm[(r0 + k) + (c0 + i) * n] = sign * self.mm[(r + i) + (c + k) * n];
            }
        }
    }

    /// `J x* + k` into `qq[off..off + rows]` times `sign`.
    pub(crate) fn put_jx(
        &mut self,
        nv: usize,
        j: &Operator,
        k: &nalgebra::DVectorView<f64>,
        rows: usize,
        off: usize,
        sign: f64,
    ) {
        j.apply(&self.xstar[..nv], &mut self.row[..rows]);
        for i in 0..rows {
            self.qq[off + i] = sign * (self.row[i] + k[i]);
        }
    }
}

/// Which `P = W Jᵀ` block a product uses.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PBlock {
    /// Normal (accel: `(N − μQ)ᵀ`, vel: `Nᵀ`).
    N,
    /// Friction `Fᵀ`.
    F,
    /// Limits `Lᵀ`.
    L,
}

/// Column offsets of the friction sum matrix E: contact i owns rows `off_i .. off_i + r[i]`.
pub(crate) fn for_each_e(r: &[usize], mut f: impl FnMut(usize, usize)) {
    let mut off = 0;
    for (i, &ri) in r.iter().enumerate() {
        for k in 0..ri {
            f(off + k, i);
        }
        off += ri;
    }
}
