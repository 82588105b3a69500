//! Cholesky factorization `A = L Lᵀ` of a symmetric positive definite matrix, in place, in owned
//! grow-only storage. Used for mass matrices (`docs/baraff.md` §2: one factorisation of `M`,
//! then `M⁻¹ J_fᵀ` column by column).
//!
//! Only the **lower triangle** of the input is read. Many right-hand sides at once
//! ([`Cholesky::solve_columns_in_place`]) go through faer's blocked triangular solves. Unlike [`super::Ldlt`] there is no pivoting
//! and no pseudo-inverse: a pivot that is not strictly positive (or not finite) is a failure,
//! because a mass matrix that is not positive definite is a usage error, not a numerical corner.

use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::{MatMut, MatRef, Par};
use nalgebra::DMatrixViewMut;

use super::Square;

/// The matrix is not (numerically) symmetric positive definite: the pivot of column `column`
/// was `pivot` (≤ 0 or not finite).
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
#[error("Cholesky factorization failed: pivot {pivot} of column {column} is not positive")]
pub struct CholeskyFailure {
    /// Column whose pivot failed.
    pub column: usize,
    /// The offending pivot `a_kk − Σ l_kj²`.
    pub pivot: f64,
}

/// Cholesky factorization `A = L Lᵀ` in owned, grow-only storage.
///
/// Usage: fill the lower triangle of [`Cholesky::matrix_mut`] (column-major, `n×n`), call
/// [`Cholesky::factor`], then [`Cholesky::solve_in_place`] as often as needed.
#[derive(Debug, Clone, Default)]
pub struct Cholesky {
    /// On input the matrix (lower triangle), after `factor` L in the lower triangle (diagonal
    /// included).
    m: Square,
}

impl Cholesky {
    /// An empty factorization with storage for `n×n` matrices.
    pub fn with_capacity(n: usize) -> Self {
        super::reserved(|f: &mut Self| f.reserve(n))
    }

    /// Makes sure `n×n` problems need no further allocation.
    pub fn reserve(&mut self, n: usize) {
        self.m.reserve(n);
    }

    /// Size of the current matrix.
    pub fn dim(&self) -> usize {
        self.m.n
    }

    /// The `n×n` column-major matrix to fill before [`Cholesky::factor`]; only its lower
    /// triangle is read. Its previous contents are unspecified.
    pub fn matrix_mut(&mut self, n: usize) -> DMatrixViewMut<'_, f64> {
        self.m.matrix_mut(n)
    }

    /// Factors the matrix last filled through [`Cholesky::matrix_mut`], in place
    /// (left-looking, column by column).
    pub fn factor(&mut self) -> Result<(), CholeskyFailure> {
        let n = self.m.n;
        let a = &mut self.m.a[..n * n];
        for k in 0..n {
            // Column k of L: a[k.., k] -= L[k.., 0..k] · L[k, 0..k]ᵀ.
            let (left, right) = a.split_at_mut(k * n);
            let col_k = &mut right[k..n];
            for j in 0..k {
                let lkj = left[j * n + k];
                if lkj != 0.0 {
                    for (dst, &l) in col_k.iter_mut().zip(&left[j * n + k..j * n + n]) {
                        *dst -= l * lkj;
                    }
                }
            }
            let pivot = col_k[0];
            // `!(pivot > 0)` also rejects NaN.
            if !(pivot > 0.0) || !pivot.is_finite() {
                return Err(CholeskyFailure { column: k, pivot });
            }
            let d = pivot.sqrt();
            col_k[0] = d;
            for x in &mut col_k[1..] {
                *x /= d;
            }
        }
        Ok(())
    }

    /// Solves `A x = b` in place with the factors. `b.len()` must be the matrix size.
    pub fn solve_in_place(&self, b: &mut [f64]) {
        let n = self.m.n;
        assert_eq!(b.len(), n, "Cholesky::solve_in_place: right-hand side length");
        let a = &self.m.a[..n * n];
        // L y = b, column oriented.
        for j in 0..n {
            let yj = b[j] / a[j + j * n];
            b[j] = yj;
            for (bi, &l) in b[j + 1..].iter_mut().zip(&a[j * n + j + 1..(j + 1) * n]) {
                *bi -= l * yj;
            }
        }
        // Lᵀ x = y, dot products with the columns of L.
        for j in (0..n).rev() {
            let mut dot = 0.0;
            for (&bi, &l) in b[j + 1..].iter().zip(&a[j * n + j + 1..(j + 1) * n]) {
                dot += l * bi;
            }
            b[j] = (b[j] - dot) / a[j + j * n];
        }
    }
}

impl Cholesky {
    /// Solves `A X = B` in place for `B` with `b.len() / n` columns stored column-major
    /// (leading dimension `n`), with blocked triangular solves (no allocation).
    pub fn solve_columns_in_place(&self, b: &mut [f64]) {
        let n = self.m.n;
        if n == 0 {
            return;
        }
        assert_eq!(b.len() % n, 0, "Cholesky::solve_columns_in_place: length is not a multiple of n");
        let k = b.len() / n;
        let l = MatRef::from_column_major_slice(&self.m.a[..n * n], n, n);
        let mut x = MatMut::from_column_major_slice_mut(b, n, k);
        // Only the lower triangle of `l` is read (faer's contract), and of `lᵀ` the upper one.
        solve_lower_triangular_in_place(l, x.as_mut(), Par::Seq);
        solve_upper_triangular_in_place(l.transpose(), x.as_mut(), Par::Seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::test_rng;
    use nalgebra::{DMatrix, DVector};

    #[test]
    fn solves_spd_systems_reading_only_the_lower_triangle() {
        for &n in &[0usize, 1, 2, 7, 40] {
            let b = test_rng::matrix(n, 3 + n as u64);
            let a = &b * b.transpose() + DMatrix::identity(n, n) * 0.5;
            let mut garbage = a.clone();
            for j in 1..n {
                for i in 0..j {
                    garbage[(i, j)] = f64::NAN;
                }
            }
            let mut f = Cholesky::with_capacity(1);
            f.matrix_mut(n).copy_from(&garbage);
            f.factor().unwrap();
            let x_true = DVector::from_fn(n, |i, _| 1.0 - 0.3 * i as f64);
            let mut x = (&a * &x_true).as_slice().to_vec();
            f.solve_in_place(&mut x);
            for (xi, ti) in x.iter().zip(x_true.iter()) {
                assert!((xi - ti).abs() < 1e-11 * (1.0 + ti.abs()), "n = {n}: {xi} vs {ti}");
            }
        }
    }

    #[test]
    fn many_right_hand_sides_match_one_at_a_time() {
        for &(n, k) in &[(1usize, 3usize), (5, 2), (70, 90)] {
            let b = test_rng::matrix(n, 11 + n as u64);
            let mut a = &b * b.transpose() + DMatrix::identity(n, n) * 0.5;
            // Garbage in the strictly upper triangle must not matter.
            for j in 1..n {
                for i in 0..j {
                    a[(i, j)] = 1e30;
                }
            }
            let mut f = Cholesky::default();
            f.matrix_mut(n).copy_from(&a);
            f.factor().unwrap();
            let rhs = test_rng::matrix(n.max(k), 5);
            let rhs = rhs.view((0, 0), (n, k)).into_owned();
            let mut all = rhs.as_slice().to_vec();
            f.solve_columns_in_place(&mut all);
            for c in 0..k {
                let mut one = rhs.column(c).iter().copied().collect::<Vec<_>>();
                f.solve_in_place(&mut one);
                for (x, y) in all[c * n..(c + 1) * n].iter().zip(&one) {
                    assert!((x - y).abs() < 1e-10 * (1.0 + y.abs()), "n = {n}: {x} vs {y}");
                }
            }
        }
    }

    #[test]
    fn rejects_indefinite_singular_and_nan_matrices() {
        let mut f = Cholesky::default();
        f.matrix_mut(2).copy_from(&DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]));
        let e = f.factor().unwrap_err();
        assert_eq!(e.column, 1);
        assert!((e.pivot + 3.0).abs() < 1e-15);
        f.matrix_mut(2).copy_from(&DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0]));
        assert_eq!(f.factor().unwrap_err().column, 1);
        f.matrix_mut(1).fill(f64::NAN);
        assert_eq!(f.factor().unwrap_err().column, 0);
        f.matrix_mut(1).fill(-2.0);
        assert_eq!(f.factor().unwrap_err().pivot, -2.0);
    }
}
