//! Numeric factorization and solves on a [`Symbolic`] layout (see the module docs of
//! `linalg::sparse` for the method and the pivoting rules).

use faer::dyn_stack::MemStack;
use faer::linalg::lu::partial_pivoting::factor as faer_lu;
use faer::linalg::matmul::matmul;
use faer::linalg::matmul::triangular::{self as tri_matmul, BlockStructure};
use faer::linalg::triangular_solve as tri;
use faer::reborrow::IntoConst;
use faer::{Accum, MatMut, MatRef, Par, Spec};

use super::Engine;
use super::shared::{Kind, SparseError};
use super::symbolic::Symbolic;
use crate::linalg::ldlt::largest_diagonal;
use crate::linalg::simd::{self, Simd, WithSimd};

/// Diagonal blocks from this width on are factored by faer's blocked LU (as the dense
/// [`PartialPivLu`](crate::linalg::PartialPivLu) does).
const BLOCKED_MIN_W: usize = crate::linalg::BLOCKED_MIN_DIM;

impl Engine {
    pub(super) fn factor(&mut self) -> Result<(), SparseError> {
        self.factored = false;
        self.symbolic()?;
        simd::dispatch(Factor(self))?;
        self.factored = true;
        Ok(())
    }

    pub(super) fn solve_in_place(&mut self, rhs: &mut [f64]) -> Result<(), SparseError> {
        if !self.factored {
            return Err(SparseError::NotFactored);
        }
        let n = self.cache[0].n;
        if rhs.len() != n {
            return Err(SparseError::RhsLength { expected: n, got: rhs.len() });
        }
        simd::dispatch(Solve { e: self, rhs });
        Ok(())
    }

    /// `Aᵀ x = rhs` with the factors of `A` (LDLᵀ: `A` is symmetric, the same solve).
    pub(super) fn solve_transposed_in_place(&mut self, rhs: &mut [f64]) -> Result<(), SparseError> {
        if self.kind == Kind::Ldlt {
            return self.solve_in_place(rhs);
        }
        if !self.factored {
            return Err(SparseError::NotFactored);
        }
        let n = self.cache[0].n;
        if rhs.len() != n {
            return Err(SparseError::RhsLength { expected: n, got: rhs.len() });
        }
        simd::dispatch(SolveTransposed { e: self, rhs });
        Ok(())
    }
}

struct Factor<'a>(&'a mut Engine);

impl WithSimd for Factor<'_> {
    type Output = Result<(), SparseError>;
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) -> Self::Output {
        let e = self.0;
        let s = &e.cache[0];
        scan(s, &e.lval, &e.uval, &mut e.colmax, &mut e.work)?;
        let (nsn, kind) = (s.n_supernodes(), s.kind);
        // Pivot threshold relative to the column's largest entry (module docs).
        let tol = s.n as f64 * f64::EPSILON;
        for sn in 0..nsn {
            match kind {
                Kind::Lu => factor_lu_supernode(e, sn, tol)?,
                Kind::Ldlt => factor_ldlt_supernode(e, sn, tol)?,
            }
        }
        Ok(())
    }
}

/// Checks that every stored (read) value is finite and computes each column's largest |entry|
/// (for LDLᵀ, of the symmetric matrix: the lower triangle's rows count for their columns too).
#[inline(always)]
fn scan(
    s: &Symbolic,
    lval: &[f64],
    uval: &[f64],
    colmax: &mut [f64],
    rowmax: &mut [f64],
) -> Result<(), SparseError> {
    let colmax = &mut colmax[..s.n];
    colmax.fill(0.0);
    let sym = s.kind == Kind::Ldlt;
    for sn in 0..s.n_supernodes() {
        let (c0, w) = (s.sn_col[sn], s.sn_col[sn + 1] - s.sn_col[sn]);
        let rows = &s.row_idx[s.row_ptr[sn]..s.row_ptr[sn + 1]];
        let ld = w + rows.len();
        let panel = &lval[s.l_ptr[sn]..s.l_ptr[sn + 1]];
        let rowmax = &mut rowmax[..ld];
        if sym {
            rowmax.fill(0.0);
        }
        for j in 0..w {
            let start = if sym { j } else { 0 };
            let col = &panel[j * ld + start..(j + 1) * ld];
            if sym {
                for (&v, rm) in col.iter().zip(&mut rowmax[start..]) {
                    *rm = rm.max(v.abs());
                }
            }
            let Some(m) = abs_max(col) else {
                let i = start + col.iter().position(|v| !v.is_finite()).unwrap_or(0);
                let row = if i < w { c0 + i } else { rows[i - w] };
                return Err(SparseError::NonFinite { row: s.scalar_perm[row], col: s.scalar_perm[c0 + j] });
            };
            colmax[c0 + j] = colmax[c0 + j].max(m);
        }
        if sym {
            // By symmetry, entry (i, j) of the lower triangle is also in column i.
            for (c, &m) in colmax[c0..c0 + w].iter_mut().zip(&rowmax[..w]) {
                *c = c.max(m);
            }
            for (&row, &m) in rows.iter().zip(&rowmax[w..]) {
                colmax[row] = colmax[row].max(m);
            }
        } else {
            let upanel = &uval[s.u_ptr[sn]..s.u_ptr[sn + 1]];
            for (c, col) in upanel.chunks_exact(w.max(1)).enumerate().take(rows.len()) {
                let m = if let Ok(col) = <&[f64; 6]>::try_from(col) { abs_max(col) } else { abs_max(col) };
                let Some(m) = m else {
                    let i = col.iter().position(|v| !v.is_finite()).unwrap_or(0);
                    return Err(SparseError::NonFinite {
                        row: s.scalar_perm[c0 + i],
                        col: s.scalar_perm[rows[c]],
                    });
                };
                colmax[rows[c]] = colmax[rows[c]].max(m);
            }
        }
    }
    Ok(())
}

/// The largest |v| of `xs` (0 when empty), `None` when some value is NaN or infinite. Computed
/// on the bits: the IEEE patterns of non-negative doubles order as the integers they are, and the
/// patterns of ±∞ and NaN are the largest, so one integer maximum (which vectorizes, unlike a
/// chain of float operations) gives both the maximum and the finiteness test. The maximum is
/// the one the float comparisons gave, so the pivot tests decide the same (issue 29,
/// `docs/performance.md` §3 "Third pass").
#[inline(always)]
fn abs_max(xs: &[f64]) -> Option<f64> {
    const MAGNITUDE: u64 = !(1 << 63);
    const INFINITY: i64 = 0x7ff0_0000_0000_0000;
    let m = xs.iter().fold(0i64, |m, &v| m.max((v.to_bits() & MAGNITUDE) as i64));
    (m < INFINITY).then(|| f64::from_bits(m as u64))
}

/// One supernode of the LU: `P D = L11 U11`, `U12 = L11⁻¹ P A12`, `L21 = A21 U11⁻¹`, then the
/// ancestors get `−L21·U12`.
#[inline(always)]
fn factor_lu_supernode(e: &mut Engine, sn: usize, tol: f64) -> Result<(), SparseError> {
    let s = &e.cache[0];
    let (c0, w) = (s.sn_col[sn], s.sn_col[sn + 1] - s.sn_col[sn]);
    let r = s.row_ptr[sn + 1] - s.row_ptr[sn];
    let ld = w + r;
    let panel = &mut e.lval[s.l_ptr[sn]..s.l_ptr[sn + 1]];
    let perm = &mut e.piv[c0..c0 + w];

    // Diagonal block.
    if w >= BLOCKED_MIN_W {
        let d = MatMut::from_column_major_slice_with_stride_mut(&mut panel[..], ld, w, ld).subrows_mut(0, w);
        let perm_inv = &mut e.piv_inv[..w];
        faer_lu::lu_in_place(d, perm, perm_inv, Par::Seq, MemStack::new(&mut e.stack), Spec::default());
    } else {
        // One free body's block (most supernodes of a pile), or two to six of them merged by the
        // relaxed amalgamation (the root supernodes of the piles' islands: `lu_unblocked` on
        // them was 10 % of a TAMSI iteration on pile50 t1.0, issue 29, `docs/performance.md` §3
        // seventh pass).
        macro_rules! widths {
            ($($n:literal)*) => {
                match w {
                    $($n => lu_fixed::<$n>(panel, ld, perm),)*
                    _ => lu_unblocked(panel, ld, w, perm),
                }
            };
        }
        widths!(6 12 18 24 30 36);
    }
    for k in 0..w {
        let u = panel[k + k * ld];
        if !(u.abs() > tol * e.colmax[c0 + k]) {
            return Err(SparseError::Singular { col: s.scalar_perm[c0 + k], pivot: u });
        }
    }
    if r == 0 {
        return Ok(());
    }

    // U12 = L11⁻¹ P A12.
    let upanel = &mut e.uval[s.u_ptr[sn]..s.u_ptr[sn + 1]];
    let seg = &mut e.seg[..w];
    for col in upanel.chunks_exact_mut(w) {
        for (x, &p) in seg.iter_mut().zip(perm.iter()) {
            *x = col[p];
        }
        col.copy_from_slice(seg);
    }
    let panel_mat = MatMut::from_column_major_slice_with_stride_mut(panel, ld, w, ld);
    let (d, mut l21) = panel_mat.split_at_row_mut(w);
    let d = d.into_const();
    let mut u12 = MatMut::from_column_major_slice_mut(upanel, w, r);
    tri::solve_unit_lower_triangular_in_place(d, u12.as_mut(), Par::Seq);
    // L21 = A21 U11⁻¹, i.e. U11ᵀ L21ᵀ = A21ᵀ.
    tri::solve_lower_triangular_in_place(d.transpose(), l21.as_mut().transpose_mut(), Par::Seq);

    // W = L21·U12, scattered into the ancestors.
    let work = MatMut::from_column_major_slice_mut(&mut e.work[..r * r], r, r);
    matmul(work, Accum::Replace, l21.into_const(), u12.into_const(), 1.0, Par::Seq);
    scatter(s, sn, &e.work[..r * r], r, &mut e.lval, &mut e.uval);
    Ok(())
}

/// One supernode of the LDLᵀ: `P D Pᵀ = L11 D11 L11ᵀ` and `L21` in one right-looking pass over
/// the panel, then the ancestors get `−L21·D11·L21ᵀ` (lower triangle).
#[inline(always)]
fn factor_ldlt_supernode(e: &mut Engine, sn: usize, tol: f64) -> Result<(), SparseError> {
    let s = &e.cache[0];
    let (c0, w) = (s.sn_col[sn], s.sn_col[sn + 1] - s.sn_col[sn]);
    let r = s.row_ptr[sn + 1] - s.row_ptr[sn];
    let ld = w + r;
    let panel = &mut e.lval[s.l_ptr[sn]..s.l_ptr[sn + 1]];
    let perm = &mut e.piv[c0..c0 + w];
    // Narrow supernodes: the rows below go through the same rank-1 updates; wide ones get them
    // from one triangular solve afterwards.
    let narrow = w < LDLT_PANEL_W;
    ldlt_panel(panel, ld, w, if narrow { ld } else { w }, perm);
    for k in 0..w {
        let d = panel[k + k * ld];
        if !(d.abs() > tol * e.colmax[c0 + perm[k]]) {
            return Err(SparseError::Singular { col: s.scalar_perm[c0 + perm[k]], pivot: d });
        }
    }
    if r == 0 {
        return Ok(());
    }
    // T = L21·D11 (= A21 Pᵀ L11⁻ᵀ), then L21 = T·D11⁻¹ and W = L21·Tᵀ (lower triangle).
    let t = &mut e.work2[..r * w];
    if narrow {
        for (k, tcol) in t.chunks_exact_mut(r).enumerate() {
            let d = panel[k + k * ld];
            for (x, &l) in tcol.iter_mut().zip(&panel[k * ld + w..(k + 1) * ld]) {
                *x = l * d;
            }
        }
    } else {
        let panel_mat = MatMut::from_column_major_slice_with_stride_mut(&mut panel[..], ld, w, ld);
        let (l11, a21) = panel_mat.split_at_row_mut(w);
        tri::solve_unit_lower_triangular_in_place(l11.into_const(), a21.transpose_mut(), Par::Seq);
        for (k, tcol) in t.chunks_exact_mut(r).enumerate() {
            let inv = 1.0 / panel[k + k * ld];
            for (x, l) in tcol.iter_mut().zip(&mut panel[k * ld + w..(k + 1) * ld]) {
                *x = *l;
                *l *= inv;
            }
        }
    }
    let l21 = MatRef::from_column_major_slice_with_stride(&panel[w..], r, w, ld);
    let tmat = MatRef::from_column_major_slice(t, r, w);
    let work = MatMut::from_column_major_slice_mut(&mut e.work[..r * r], r, r);
    tri_matmul::matmul(
        work,
        BlockStructure::TriangularLower,
        Accum::Replace,
        l21,
        BlockStructure::Rectangular,
        tmat.transpose(),
        BlockStructure::Rectangular,
        1.0,
        Par::Seq,
    );
    scatter(s, sn, &e.work[..r * r], r, &mut e.lval, &mut e.uval);
    Ok(())
}

/// Subtracts the update `w` (`r × r`, column-major) of supernode `sn` from its destinations.
#[inline(always)]
fn scatter(s: &Symbolic, sn: usize, w: &[f64], r: usize, lval: &mut [f64], uval: &mut [f64]) {
    for g in &s.groups[s.group_ptr[sn]..s.group_ptr[sn + 1]] {
        for run in &s.runs[g.run_start..g.run_end] {
            let dst = if run.upper_panel { &mut *uval } else { &mut *lval };
            for c in 0..g.ncols {
                let src = &w[run.src_row + (g.src_col + c) * r..][..run.nrows];
                let d = &mut dst[run.dst + c * run.ld..][..run.nrows];
                for (x, &y) in d.iter_mut().zip(src) {
                    *x -= y;
                }
            }
        }
    }
}

/// Unblocked LU with row partial pivoting of the `w × w` block at the top of a panel with leading
/// dimension `ld` (rows below the block are not touched). `perm[i]` is the original local row of
/// row i. A zero pivot column is left unscaled (the caller's pivot test rejects it).
#[inline(always)]
fn lu_unblocked(a: &mut [f64], ld: usize, w: usize, perm: &mut [usize]) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..w {
        let col = &a[k * ld..k * ld + w];
        let mut p = k;
        let mut best = col[k].abs();
        for (i, &x) in col.iter().enumerate().skip(k + 1) {
            if x.abs() > best {
                best = x.abs();
                p = i;
            }
        }
        if best != 0.0 {
            if p != k {
                for j in 0..w {
                    a.swap(k + j * ld, p + j * ld);
                }
                perm.swap(k, p);
            }
            let inv = 1.0 / a[k + k * ld];
            for x in &mut a[k * ld + k + 1..k * ld + w] {
                *x *= inv;
            }
        }
        let (left, right) = a.split_at_mut((k + 1) * ld);
        let l = &left[k * ld + k + 1..k * ld + w];
        for col in right.chunks_mut(ld).take(w - k - 1) {
            let u = col[k];
            for (x, &li) in col[k + 1..w].iter_mut().zip(l) {
                *x -= li * u;
            }
        }
    }
}

/// [`lu_unblocked`] of an `N × N` block (issue 29: 6, a free body's block, is most supernodes of
/// a pile; 12–36, two to six free bodies, the amalgamated root supernodes of the piles' islands):
/// the block is copied into a local array, factored with every loop bound a constant (at 6 every
/// loop unrolled), and copied back. The same operations in the same order, so the same factors
/// bit for bit (`tests::fixed_widths_match_the_generic_kernels_bit_for_bit`). At 12–36 it takes
/// about a quarter fewer instructions than [`lu_unblocked`]; a variant on whole 4-row chunks (the rows
/// above each step's next chunk boundary one at a time) took 6 % more than this one
/// (`docs/performance.md` §3 seventh pass).
#[inline(always)]
fn lu_fixed<const N: usize>(a: &mut [f64], ld: usize, perm: &mut [usize]) {
    let mut m = [[0.0f64; N]; N];
    for (j, col) in m.iter_mut().enumerate() {
        *col = a[j * ld..j * ld + N].try_into().unwrap();
    }
    let mut pv: [usize; N] = std::array::from_fn(|i| i);
    for k in 0..N {
        let mut p = k;
        let mut best = m[k][k].abs();
        for (i, &x) in m[k].iter().enumerate().skip(k + 1) {
            if x.abs() > best {
                best = x.abs();
                p = i;
            }
        }
        if best != 0.0 {
            if p != k {
                for col in &mut m {
                    col.swap(k, p);
                }
                pv.swap(k, p);
            }
            let inv = 1.0 / m[k][k];
            for x in &mut m[k][k + 1..] {
                *x *= inv;
            }
        }
        let l = m[k];
        for col in &mut m[k + 1..] {
            let u = col[k];
            for i in k + 1..N {
                col[i] -= l[i] * u;
            }
        }
    }
    for (j, col) in m.iter().enumerate() {
        a[j * ld..j * ld + N].copy_from_slice(col);
    }
    perm[..N].copy_from_slice(&pv);
}

/// Supernodes from this width on compute L21 with a triangular solve after the diagonal block
/// (BLAS-3) instead of inside its rank-1 updates.
const LDLT_PANEL_W: usize = 32;

/// Right-looking LDLᵀ of a `(w + r) × w` panel (lower triangle of the `w × w` diagonal block,
/// then `r` rows below) with symmetric diagonal pivoting inside the diagonal block: step k takes
/// the largest |diagonal| of the trailing block (first index on ties, NaN never wins). Rows
/// `0..rows` get the eliminations (`rows = w + r`: all; `rows = w`: the diagonal block only, the
/// rows below are then only permuted). After it, the diagonal holds D, the strictly lower part
/// L11 (unit diagonal implied) and the eliminated rows below L21, all in the pivoted column
/// order; `perm[i]` is the original local index of position i.
#[inline(always)]
fn ldlt_panel(a: &mut [f64], ld: usize, w: usize, rows: usize, perm: &mut [usize]) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..w {
        let p = largest_diagonal(a, ld, k, w);
        if p != k {
            swap_symmetric(a, ld, w, k, p);
            perm.swap(k, p);
        }
        let d = a[k + k * ld];
        if d == 0.0 {
            // Left as it is; the caller's pivot test rejects it.
            continue;
        }
        let (left, right) = a.split_at_mut((k + 1) * ld);
        let colk = &left[k * ld..];
        for (jj, colj) in right.chunks_mut(ld).take(w - k - 1).enumerate() {
            let j = k + 1 + jj;
            let t = colk[j] / d;
            for (x, &l) in colj[j..rows].iter_mut().zip(&colk[j..rows]) {
                *x -= l * t;
            }
        }
        let inv = 1.0 / d;
        for x in &mut a[k * ld + k + 1..k * ld + rows] {
            *x *= inv;
        }
    }
}

/// Exchanges positions k < p of the symmetric matrix stored in the lower triangle of the panel's
/// diagonal block, together with the already factored rows (columns < k) and the rows below the
/// diagonal block.
#[inline(always)]
fn swap_symmetric(a: &mut [f64], ld: usize, w: usize, k: usize, p: usize) {
    a.swap(k + k * ld, p + p * ld);
    for j in 0..k {
        a.swap(k + j * ld, p + j * ld);
    }
    for i in k + 1..p {
        a.swap(i + k * ld, p + i * ld);
    }
    for i in p + 1..ld {
        a.swap(i + k * ld, i + p * ld);
    }
    let _ = w;
}

struct Solve<'a> {
    e: &'a mut Engine,
    rhs: &'a mut [f64],
}

impl WithSimd for Solve<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        let Solve { e, rhs } = self;
        let s = &e.cache[0];
        let n = s.n;
        let x = &mut e.x[..n];
        for (xi, &p) in x.iter_mut().zip(&s.scalar_perm) {
            *xi = rhs[p];
        }
        let seg = &mut e.seg;
        let nsn = s.n_supernodes();
        // Forward: x ← L⁻¹ P x, supernode by supernode.
        for sn in 0..nsn {
            let (c0, w) = (s.sn_col[sn], s.sn_col[sn + 1] - s.sn_col[sn]);
            let rows = &s.row_idx[s.row_ptr[sn]..s.row_ptr[sn + 1]];
            let panel = &e.lval[s.l_ptr[sn]..s.l_ptr[sn + 1]];
            let perm = &e.piv[c0..c0 + w];
            // Widths of one to four free bodies as constants (the amalgamated root supernodes
            // of the piles' islands, `docs/performance.md` §3 seventh pass).
            match w {
                6 => forward_supernode::<6>(panel, perm, rows, c0, x, &mut e.work),
                12 => forward_supernode::<12>(panel, perm, rows, c0, x, &mut e.work),
                18 => forward_supernode::<18>(panel, perm, rows, c0, x, &mut e.work),
                24 => forward_supernode::<24>(panel, perm, rows, c0, x, &mut e.work),
                _ => forward_supernode::<0>(panel, perm, rows, c0, x, &mut e.work),
            }
        }
        match s.kind {
            Kind::Lu => {
                // Backward: x ← U⁻¹ x.
                for sn in (0..nsn).rev() {
                    let (c0, w) = (s.sn_col[sn], s.sn_col[sn + 1] - s.sn_col[sn]);
                    let rows = &s.row_idx[s.row_ptr[sn]..s.row_ptr[sn + 1]];
                    let panel = &e.lval[s.l_ptr[sn]..s.l_ptr[sn + 1]];
                    let upanel = &e.uval[s.u_ptr[sn]..s.u_ptr[sn + 1]];
                    macro_rules! fixed {
                        ($n:literal) => {{
                            let mut y: [f64; $n] = x[c0..c0 + $n].try_into().unwrap();
                            backward_supernode::<$n>(panel, upanel, rows, x, &mut y);
                            x[c0..c0 + $n].copy_from_slice(&y);
                        }};
                    }
                    if w == 6 {
                        fixed!(6);
                    } else if w == 12 {
                        fixed!(12);
                    } else if w == 18 {
                        fixed!(18);
                    } else if w == 24 {
                        fixed!(24);
                    } else {
                        let seg = &mut seg[..w];
                        seg.copy_from_slice(&x[c0..c0 + w]);
                        backward_supernode::<0>(panel, upanel, rows, x, seg);
                        x[c0..c0 + w].copy_from_slice(seg);
                    }
                }
            }
            Kind::Ldlt => {
                // x ← D⁻¹ x, then x ← Pᵀ L⁻ᵀ x.
                for sn in 0..nsn {
                    let (c0, w) = (s.sn_col[sn], s.sn_col[sn + 1] - s.sn_col[sn]);
                    let ld = w + s.row_ptr[sn + 1] - s.row_ptr[sn];
                    let panel = &e.lval[s.l_ptr[sn]..s.l_ptr[sn + 1]];
                    for j in 0..w {
                        x[c0 + j] /= panel[j + j * ld];
                    }
                }
                lower_transposed_backward(s, &e.lval, &e.piv, x, seg);
            }
        }
        for (xi, &p) in x.iter().zip(&s.scalar_perm) {
            rhs[p] = *xi;
        }
    }
}

/// The forward step of one supernode (columns `c0..c0 + w`, `w = N` when `N > 0`, else
/// `perm.len()`): `y = L11⁻¹ P x_s` into `x_s`, then `x_rows −= L21·y`. The rows below are
/// gathered into `t` (scratch of at least w + r values), updated column by column of L21 (contiguous,
/// so vectorized) and put back: each entry gets `x −= l_j·y_j` in increasing j, the operations of
/// the indexed loop it replaces (the same bits; issue 29, `docs/performance.md` §3 "Fourth
/// pass").
#[inline(always)]
fn forward_supernode<const N: usize>(
    panel: &[f64],
    perm: &[usize],
    rows: &[usize],
    c0: usize,
    x: &mut [f64],
    t: &mut [f64],
) {
    let w = if N > 0 { N } else { perm.len() };
    let r = rows.len();
    let ld = w + r;
    let panel = &panel[..ld * w];
    // The segment in registers for a fixed width, else at the front of the scratch.
    let mut fixed = [0.0; N];
    let (seg, t) = if N > 0 { (&mut fixed[..], t) } else { t.split_at_mut(w) };
    for (y, &p) in seg.iter_mut().zip(&perm[..w]) {
        *y = x[c0 + p];
    }
    for j in 0..w {
        let yj = seg[j];
        for (y, &l) in seg[j + 1..].iter_mut().zip(&panel[j * ld + j + 1..j * ld + w]) {
            *y -= l * yj;
        }
    }
    x[c0..c0 + w].copy_from_slice(seg);
    if r == 0 {
        return;
    }
    let t = &mut t[..r];
    for (t, &row) in t.iter_mut().zip(rows) {
        *t = x[row];
    }
    for (j, &yj) in seg.iter().enumerate() {
        for (t, &l) in t.iter_mut().zip(&panel[j * ld + w..(j + 1) * ld]) {
            *t -= l * yj;
        }
    }
    for (&t, &row) in t.iter().zip(rows) {
        x[row] = t;
    }
}

/// The backward step of one LU supernode on its segment `seg` (a copy of `x_s`, `w = N` when
/// `N > 0`, else `seg.len()`): `seg −= U12·x_rows` row by row, then `seg ← U11⁻¹ seg`.
#[inline(always)]
fn backward_supernode<const N: usize>(
    panel: &[f64],
    upanel: &[f64],
    rows: &[usize],
    x: &[f64],
    seg: &mut [f64],
) {
    let w = if N > 0 { N } else { seg.len() };
    let seg = &mut seg[..w];
    let ld = w + rows.len();
    for (&row, ucol) in rows.iter().zip(upanel.chunks_exact(w)) {
        let xr = x[row];
        for (y, &u) in seg.iter_mut().zip(ucol) {
            *y -= u * xr;
        }
    }
    for j in (0..w).rev() {
        let yj = seg[j] / panel[j + j * ld];
        seg[j] = yj;
        for (y, &u) in seg[..j].iter_mut().zip(&panel[j * ld..j * ld + j]) {
            *y -= u * yj;
        }
    }
}

/// `Aᵀ x = rhs` for the LU: the solve is `A⁻¹ = Qᵀ U⁻¹ F Q` with `Q` the scalar permutation and
/// `F = F_last ⋯ F_0` the forward steps (`F_s`: pivot rows inside supernode s, `L11⁻¹`, then
/// subtract `L21·` from the rows below), so `A⁻ᵀ = Qᵀ Fᵀ U⁻ᵀ Q`: `Uᵀ` forward supernode by
/// supernode, then each `F_sᵀ = Pᵀ L11⁻ᵀ [I, −L21ᵀ]` in reverse order.
struct SolveTransposed<'a> {
    e: &'a mut Engine,
    rhs: &'a mut [f64],
}

impl WithSimd for SolveTransposed<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        let SolveTransposed { e, rhs } = self;
        let s = &e.cache[0];
        let n = s.n;
        let x = &mut e.x[..n];
        for (xi, &p) in x.iter_mut().zip(&s.scalar_perm) {
            *xi = rhs[p];
        }
        let seg = &mut e.seg;
        let nsn = s.n_supernodes();
        // Uᵀ z = x: U11ᵀ (lower) on the supernode, then push U12ᵀ·z to the later rows.
        for sn in 0..nsn {
            let (c0, w) = (s.sn_col[sn], s.sn_col[sn + 1] - s.sn_col[sn]);
            let rows = &s.row_idx[s.row_ptr[sn]..s.row_ptr[sn + 1]];
            let ld = w + rows.len();
            let panel = &e.lval[s.l_ptr[sn]..s.l_ptr[sn + 1]];
            let upanel = &e.uval[s.u_ptr[sn]..s.u_ptr[sn + 1]];
            let seg = &mut seg[..w];
            seg.copy_from_slice(&x[c0..c0 + w]);
            for j in 0..w {
                let mut acc = seg[j];
                for (&u, &y) in panel[j * ld..j * ld + j].iter().zip(&seg[..j]) {
                    acc -= u * y;
                }
                seg[j] = acc / panel[j + j * ld];
            }
            x[c0..c0 + w].copy_from_slice(seg);
            for (&row, ucol) in rows.iter().zip(upanel.chunks_exact(w)) {
                let mut acc = 0.0;
                for (&u, &y) in ucol.iter().zip(seg.iter()) {
                    acc += u * y;
                }
                x[row] -= acc;
            }
        }
        // Fᵀ: supernodes in reverse.
        lower_transposed_backward(s, &e.lval, &e.piv, x, seg);
        for (xi, &p) in x.iter().zip(&s.scalar_perm) {
            rhs[p] = *xi;
        }
    }
}

/// `x ← Pᵀ L⁻ᵀ x` with the unit-lower factor of every supernode (both kinds store it in `lval`),
/// supernodes in reverse: `x_s ← P_sᵀ L11⁻ᵀ (x_s − L21ᵀ x_rows)`. The second half of the LDLᵀ solve
/// and of the LU's transposed solve.
#[inline(always)]
fn lower_transposed_backward(s: &Symbolic, lval: &[f64], piv: &[usize], x: &mut [f64], seg: &mut [f64]) {
    for sn in (0..s.n_supernodes()).rev() {
        let (c0, w) = (s.sn_col[sn], s.sn_col[sn + 1] - s.sn_col[sn]);
        let rows = &s.row_idx[s.row_ptr[sn]..s.row_ptr[sn + 1]];
        let ld = w + rows.len();
        let panel = &lval[s.l_ptr[sn]..s.l_ptr[sn + 1]];
        let perm = &piv[c0..c0 + w];
        let seg = &mut seg[..w];
        for (j, y) in seg.iter_mut().enumerate() {
            let mut acc = x[c0 + j];
            for (&row, &l) in rows.iter().zip(&panel[j * ld + w..(j + 1) * ld]) {
                acc -= l * x[row];
            }
            *y = acc;
        }
        for j in (0..w).rev() {
            let mut acc = seg[j];
            for (i, &l) in panel[j * ld + j + 1..j * ld + w].iter().enumerate() {
                acc -= l * seg[j + 1 + i];
            }
            seg[j] = acc;
        }
        for (&y, &p) in seg.iter().zip(perm) {
            x[c0 + p] = y;
        }
    }
}

/// Grows this thread's buffers of faer's matrix products (the packing memory of its x86 kernels,
/// a thread-local allocated at a thread's first product above the small-product size) with one
/// 17×17×17 product. A worker pool calls it on each of its threads when it starts
/// (`crate::parallel::WorkerPool::with_thread_start`), so that no solve allocates it later on
/// whichever thread first multiplies large blocks (`docs/performance.md` §8).
pub(crate) fn grow_product_buffers() {
    const N: usize = 17;
    let a = [1.0f64; N * N];
    let mut c = [0.0f64; N * N];
    let a = MatRef::from_column_major_slice(&a, N, N);
    let c = MatMut::from_column_major_slice_mut(&mut c, N, N);
    matmul(c, Accum::Replace, a, a, 1.0, Par::Seq);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic values in [-1, 1) (a linear congruential generator).
    fn values(len: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..len)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
            })
            .collect()
    }

    fn bits(xs: &[f64]) -> Vec<u64> {
        xs.iter().map(|x| x.to_bits()).collect()
    }

    /// The constant-width kernels give the generic ones' bits: `lu_fixed::<N>` against
    /// `lu_unblocked` (diagonally dominant blocks, and blocks whose small diagonal makes every
    /// step pivot), `forward_supernode::<N>` and `backward_supernode::<N>` against `N = 0`, on a
    /// panel with rows below the diagonal block (which the LU must leave as they are).
    #[test]
    fn fixed_widths_match_the_generic_kernels_bit_for_bit() {
        fn check<const N: usize>() {
            let r = 7;
            let ld = N + r;
            for (seed, diagonal) in [(1, 4.0 * N as f64), (2, 1e-3)] {
                let mut a = values(ld * N, seed + N as u64);
                for j in 0..N {
                    a[j + j * ld] = diagonal * (1.0 + a[j + j * ld].abs());
                }
                let (mut fixed, mut generic) = (a.clone(), a.clone());
                let (mut pf, mut pg) = (vec![0; N], vec![0; N]);
                lu_fixed::<N>(&mut fixed, ld, &mut pf);
                lu_unblocked(&mut generic, ld, N, &mut pg);
                assert_eq!(pf, pg, "N = {N}: pivots");
                assert_eq!(bits(&fixed), bits(&generic), "N = {N}: factors");
                assert_eq!(bits(&fixed[N..ld]), bits(&a[N..ld]), "N = {N}: rows below untouched");
                if diagonal < 1.0 {
                    assert_ne!(pf, (0..N).collect::<Vec<_>>(), "N = {N}: the pivoting case pivots");
                }
                // The solve steps on these factors: x has the N columns and r rows below.
                let rows: Vec<usize> = (N..N + r).collect();
                let upanel = values(N * r, seed + 100);
                let x0 = values(N + r, seed + 200);
                let (mut xf, mut xg) = (x0.clone(), x0.clone());
                let mut t = vec![0.0; ld];
                forward_supernode::<N>(&fixed, &pf, &rows, 0, &mut xf, &mut t);
                forward_supernode::<0>(&fixed, &pf, &rows, 0, &mut xg, &mut t);
                assert_eq!(bits(&xf), bits(&xg), "N = {N}: forward step");
                let mut yf: [f64; N] = xf[..N].try_into().unwrap();
                let mut yg = xg[..N].to_vec();
                backward_supernode::<N>(&fixed, &upanel, &rows, &xf, &mut yf);
                backward_supernode::<0>(&fixed, &upanel, &rows, &xg, &mut yg);
                assert_eq!(bits(&yf), bits(&yg), "N = {N}: backward step");
            }
        }
        check::<6>();
        check::<12>();
        check::<18>();
        check::<24>();
        check::<30>();
        check::<36>();
    }
}
