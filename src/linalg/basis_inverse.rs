//! Explicit inverse of a simplex-style basis matrix, updated column by column.
//!
//! Pivoting LCP solvers (Lemke, `docs/rigid.md` §8.2 and §9) replace one column of an `n×n`
//! basis matrix `B` per pivot and then need `B⁻¹·a` for the next entering column. Drake's Moby
//! Lemke refactors `B` at every pivot (O(n³)); this kernel keeps `B⁻¹` explicitly and applies the
//! rank-1 product-form update of a column replacement (O(n²)):
//!
//! ```text
//! B' = B + (a − B eₛ) eₛᵀ,   d = B⁻¹ a,   B'⁻¹ = B⁻¹ − (d − eₛ)(eₛᵀ B⁻¹) / dₛ
//! ```
//!
//! Round-off accumulates with the number of updates, so the caller refactors from scratch
//! ([`BasisInverse::matrix_mut`] + [`BasisInverse::factor`]) every so many updates; the solvers
//! do it every `max(2n, 50)` pivots and whenever a residual check asks for it.
//!
//! Storage is column-major `n×n`, owned and grow-only: once grown, nothing here allocates.

use nalgebra::DMatrixViewMut;

use super::simd::{Simd, WithSimd};
use super::{PartialPivLu, grow};

/// Explicit basis inverse with rank-1 column-replacement updates.
#[derive(Debug, Clone, Default)]
pub struct BasisInverse {
    n: usize,
    /// Column-major `n×n` B⁻¹.
    inv: Vec<f64>,
    /// Factorization used to (re)compute `inv` from `B`.
    lu: PartialPivLu,
    tmp: Vec<f64>,
    /// Row `s` of B⁻¹ during an update.
    row: Vec<f64>,
    updates: usize,
    /// `lu` holds the factors of the current `B` (a successful [`BasisInverse::factor`] and no
    /// update since).
    factored: bool,
}

impl BasisInverse {
    /// An empty kernel with storage for `n×n` bases.
    pub fn with_capacity(n: usize) -> Self {
        super::reserved(|b: &mut Self| b.reserve(n))
    }

    /// Makes sure `n×n` bases need no further allocation.
    pub fn reserve(&mut self, n: usize) {
        grow(&mut self.inv, n * n);
        for v in [&mut self.tmp, &mut self.row] {
            grow(v, n);
        }
        self.lu.reserve(n);
    }

    /// Size of the current basis.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// Number of column replacements since the last [`BasisInverse::factor`] or
    /// [`BasisInverse::set_identity`].
    pub fn updates(&self) -> usize {
        self.updates
    }

    /// Sets `B = s·I` (so `B⁻¹ = I/s`) for an `n×n` basis; `s` must be nonzero.
    pub fn set_scaled_identity(&mut self, n: usize, s: f64) {
        self.reserve(n);
        self.n = n;
        let inv = &mut self.inv[..n * n];
        inv.fill(0.0);
        for i in 0..n {
            inv[i + i * n] = 1.0 / s;
        }
        self.updates = 0;
        self.factored = false;
    }

    /// Sets `B = I`.
    pub fn set_identity(&mut self, n: usize) {
        self.set_scaled_identity(n, 1.0);
    }

    /// The `n×n` column-major basis matrix `B` to fill before [`BasisInverse::factor`]. Its
    /// previous contents are unspecified.
    pub fn matrix_mut(&mut self, n: usize) -> DMatrixViewMut<'_, f64> {
        self.reserve(n);
        self.n = n;
        self.lu.matrix_mut(n)
    }

    /// Recomputes `B⁻¹` from the matrix last filled through [`BasisInverse::matrix_mut`] (partial
    /// pivot LU, then one solve per unit vector). Returns `false` when the inverse is not finite
    /// (an exactly singular `B`); the inverse is then meaningless.
    pub fn factor(&mut self) -> bool {
        let n = self.n;
        self.lu.factor();
        let inv = &mut self.inv[..n * n];
        inv.fill(0.0);
        let mut finite = true;
        for j in 0..n {
            let col = &mut inv[j * n..(j + 1) * n];
            col[j] = 1.0;
            self.lu.solve_in_place(col, &mut self.tmp[..n]);
            finite &= col.iter().all(|x| x.is_finite());
        }
        self.updates = 0;
        self.factored = finite;
        finite
    }

    /// `x = B⁻¹ a` by the LU factors of the last [`BasisInverse::factor`] (a backward-stable
    /// solve, more accurate than the product with the explicit inverse), if no column was
    /// replaced since; returns `false` (and leaves `x` unspecified) otherwise.
    pub fn solve_factored(&mut self, a: &[f64], x: &mut [f64]) -> bool {
        if !self.factored {
            return false;
        }
        let n = self.n;
        x[..n].copy_from_slice(&a[..n]);
        self.lu.solve_in_place(&mut x[..n], &mut self.tmp[..n]);
        true
    }

    /// `x = B⁻¹ a`. `a` and `x` have length `n`. Runs in AVX2 when the CPU has it
    /// ([`super::simd`]; bit-identical results).
    pub fn solve(&self, a: &[f64], x: &mut [f64]) {
        super::simd::dispatch(SolveOp { inv: &self.inv, n: self.n, a, x })
    }

    /// Column `j` of `B⁻¹` (i.e. `B⁻¹ eⱼ`).
    pub fn column(&self, j: usize) -> &[f64] {
        let n = self.n;
        &self.inv[j * n..(j + 1) * n]
    }

    /// Entry `(i, j)` of `B⁻¹`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.inv[i + j * self.n]
    }

    /// Replaces column `s` of `B` by a new column `a`, given `d = B⁻¹ a` (as returned by
    /// [`BasisInverse::solve`]). `d[s]` must be nonzero (the pivot).
    pub fn replace_column(&mut self, s: usize, d: &[f64]) {
        let n = self.n;
        super::simd::dispatch(ReplaceOp { inv: &mut self.inv[..n * n], row: &mut self.row[..n], n, s, d });
        self.updates += 1;
        self.factored = false;
    }
}

struct SolveOp<'a> {
    inv: &'a [f64],
    n: usize,
    a: &'a [f64],
    x: &'a mut [f64],
}

impl WithSimd for SolveOp<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        let n = self.n;
        let x = &mut self.x[..n];
        x.fill(0.0);
        // Column-oriented product: x += B⁻¹[:, j] a_j (IEEE propagation, 0·inf = NaN as in a
        // dense product).
        for (j, &aj) in self.a[..n].iter().enumerate() {
            let col = &self.inv[j * n..(j + 1) * n];
            for (xi, &c) in x.iter_mut().zip(col) {
                *xi += c * aj;
            }
        }
    }
}

struct ReplaceOp<'a> {
    inv: &'a mut [f64],
    row: &'a mut [f64],
    n: usize,
    s: usize,
    d: &'a [f64],
}

impl WithSimd for ReplaceOp<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        let (n, s, d) = (self.n, self.s, self.d);
        let ds = d[s];
        for (j, r) in self.row.iter_mut().enumerate() {
            *r = self.inv[s + j * n] / ds;
        }
        for (j, &r) in self.row.iter().enumerate() {
            if r == 0.0 {
                continue;
            }
            let col = &mut self.inv[j * n..(j + 1) * n];
            for (c, &di) in col.iter_mut().zip(&d[..n]) {
                *c -= r * di;
            }
            col[s] = r;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_rng;
    use nalgebra::{DMatrix, DVector};

    #[test]
    fn updates_track_the_true_inverse() {
        let n = 7;
        let mut s = 99u64;
        let mut b = DMatrix::<f64>::identity(n, n) * -1.0;
        let mut k = BasisInverse::with_capacity(n);
        k.set_scaled_identity(n, -1.0);
        let mut d = vec![0.0; n];
        for step in 0..40 {
            let slot = step % n;
            let a: Vec<f64> =
                (0..n).map(|i| test_rng::next(&mut s) + if i == slot { 2.0 } else { 0.0 }).collect();
            k.solve(&a, &mut d);
            k.replace_column(slot, &d);
            b.set_column(slot, &DVector::from_column_slice(&a));
            let inv = DMatrix::from_column_slice(n, n, &k.inv[..n * n]);
            let err = (&b * &inv - DMatrix::identity(n, n)).abs().max();
            assert!(err < 1e-10, "step {step}: ‖B B⁻¹ − I‖max = {err}");
        }
        assert_eq!(k.updates(), 40);
        // Refactor from scratch gives the same inverse.
        k.matrix_mut(n).copy_from(&b);
        assert!(k.factor());
        assert_eq!(k.updates(), 0);
        let inv = DMatrix::from_column_slice(n, n, &k.inv[..n * n]);
        assert!((&b * &inv - DMatrix::identity(n, n)).abs().max() < 1e-12);
        // Right after a factorization the LU solve is available, and agrees with B⁻¹ a.
        let a: Vec<f64> = (0..n).map(|_| test_rng::next(&mut s)).collect();
        let (mut x, mut y) = (vec![0.0; n], vec![0.0; n]);
        assert!(k.solve_factored(&a, &mut x));
        k.solve(&a, &mut y);
        let r = &b * DVector::from_column_slice(&x) - DVector::from_column_slice(&a);
        assert!(r.amax() < 1e-13, "{r}");
        assert!(x.iter().zip(&y).all(|(p, q)| (p - q).abs() < 1e-12));
        // ... and not after an update.
        k.replace_column(0, &x);
        assert!(!k.solve_factored(&a, &mut x));
    }

    #[test]
    fn singular_basis_is_reported() {
        let mut k = BasisInverse::default();
        let mut m = k.matrix_mut(2);
        m.copy_from(&DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 4.0]));
        assert!(!k.factor());
        k.set_identity(2);
        assert_eq!(k.column(1), &[0.0, 1.0]);
        assert_eq!(k.get(0, 0), 1.0);
    }
}
