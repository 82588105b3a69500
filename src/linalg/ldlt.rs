//! Eigen-compatible `LDLT`: `Pᵀ L D Lᵀ P = A` for symmetric `A`, with symmetric diagonal pivoting
//! (`docs/tamsi.md` §5.1).
//!
//! What makes it Eigen's and not just any LDLᵀ:
//! * only the **lower triangle** of the input is read;
//! * step k brings the largest |diagonal| of the trailing block to position k (first index wins
//!   ties; a NaN never wins a comparison), no 2×2 pivots;
//! * the left-looking update order of Eigen's unblocked algorithm;
//! * the failure rules (a "numerical issue"): the first pivot is not valid and some strictly-lower
//!   entry is nonzero; a zero pivot with a nonzero sub-column; a zero pivot followed later by a
//!   valid one. A pivot is valid when `|d| > 0`. Size ≤ 1 always succeeds;
//! * the solve uses the pseudo-inverse of D: a component with `|d_i| ≤ DBL_MIN` becomes 0.

use nalgebra::DMatrixViewMut;

use super::simd::{Simd, WithSimd};
use super::{Square, grow};

/// The factorization met one of Eigen's `NumericalIssue` conditions (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "LDLT factorization failed (Eigen NumericalIssue): zero pivot with a nonzero sub-column, or a zero pivot followed by a nonzero one"
)]
pub struct LdltFailure;

/// Eigen-compatible LDLᵀ factorization with diagonal pivoting, factored in place in owned,
/// grow-only storage.
///
/// Usage: fill the lower triangle of [`Ldlt::matrix_mut`] (column-major, `n×n`), call
/// [`Ldlt::factor`], then [`Ldlt::solve_in_place`] as often as needed.
#[derive(Debug, Clone, Default)]
pub struct Ldlt {
    /// On input the matrix (lower triangle), after `factor` the strictly lower part holds L (unit
    /// diagonal implied) and the diagonal holds D.
    m: Square,
    /// Step k swapped rows/columns k and `transpositions[k]` (k ≤ transpositions[k]).
    transpositions: Vec<usize>,
    temp: Vec<f64>,
}

impl Ldlt {
    /// An empty factorization with storage for `n×n` matrices.
    pub fn with_capacity(n: usize) -> Self {
        super::reserved(|f: &mut Self| f.reserve(n))
    }

    /// Makes sure `n×n` problems need no further allocation.
    pub fn reserve(&mut self, n: usize) {
        self.m.reserve(n);
        grow(&mut self.temp, n);
        if self.transpositions.len() < n {
            self.transpositions.resize(n, 0);
        }
    }

    /// [`reserve`](Self::reserve) that reports allocation failure instead of aborting.
    pub fn try_reserve(&mut self, n: usize) -> Result<(), super::AllocationFailed> {
        self.m.try_reserve(n)?;
        super::try_grow(&mut self.temp, n, 0.0)?;
        super::try_grow(&mut self.transpositions, n, 0)?;
        Ok(())
    }

    /// The current `n×n` storage (the matrix before [`factor`](Self::factor), the factors after),
    /// column-major with leading dimension `n`.
    pub fn storage(&self) -> &[f64] {
        self.m.storage()
    }

    /// Size of the current matrix.
    pub fn dim(&self) -> usize {
        self.m.n
    }

    /// The `n×n` column-major matrix to fill before [`Ldlt::factor`]; only its lower triangle is
    /// read. Its previous contents are unspecified. Allocates only when `n` exceeds every size
    /// seen before.
    pub fn matrix_mut(&mut self, n: usize) -> DMatrixViewMut<'_, f64> {
        self.reserve(n);
        self.m.matrix_mut(n)
    }

    /// The same storage as [`Ldlt::matrix_mut`] as a column-major slice of length `n·n`
    /// (leading dimension `n`), for kernels that work on raw columns.
    pub fn storage_mut(&mut self, n: usize) -> &mut [f64] {
        self.reserve(n);
        self.m.storage_mut(n)
    }

    /// Factors the matrix last filled through [`Ldlt::matrix_mut`], in place.
    ///
    /// On `Err` the factors are still usable by [`Ldlt::solve_in_place`] (Drake solves first and
    /// checks afterwards), but the result is not meaningful.
    pub fn factor(&mut self) -> Result<(), LdltFailure> {
        super::simd::dispatch(Factor(self))
    }

    #[inline(always)]
    fn factor_kernel(&mut self) -> Result<(), LdltFailure> {
        let n = self.m.n;
        let a = &mut self.m.a[..n * n];
        let t = &mut self.transpositions[..n];
        let temp = &mut self.temp[..n];
        for (k, tk) in t.iter_mut().enumerate() {
            *tk = k;
        }
        if n <= 1 {
            return Ok(());
        }

        let mut ok = true;
        let mut found_zero_pivot = false;
        for k in 0..n {
            let p = largest_diagonal(a, n, k, n);
            t[k] = p;
            if p != k {
                swap_symmetric_lower(a, n, k, p);
            }

            // Left-looking update of column k with the already factored columns 0..k.
            if k > 0 {
                for j in 0..k {
                    temp[j] = a[j + j * n] * a[k + j * n];
                }
                let mut dot = 0.0;
                for j in 0..k {
                    dot += a[k + j * n] * temp[j];
                }
                a[k + k * n] -= dot;
                let (left, right) = a.split_at_mut(k * n);
                let col_k = &mut right[k + 1..n];
                for (j, &c) in temp[..k].iter().enumerate() {
                    let col_j = &left[j * n + k + 1..j * n + n];
                    for (dst, &l) in col_k.iter_mut().zip(col_j) {
                        *dst -= l * c;
                    }
                }
            }

            let akk = a[k + k * n];
            let pivot_is_valid = akk.abs() > 0.0;
            let sub = k + 1 + k * n..(k + 1) * n;
            if k == 0 && !pivot_is_valid {
                // The largest |diagonal| is not valid, so no pivot is and no swap happened
                // (`t` is the identity): nothing to factor. Success only if the strictly lower
                // triangle is zero as well (rule 1).
                let lower_is_zero = (0..n).all(|j| a[j * n + j + 1..(j + 1) * n].iter().all(|&x| x == 0.0));
                return if lower_is_zero { Ok(()) } else { Err(LdltFailure) };
            }
            if pivot_is_valid {
                for x in &mut a[sub] {
                    *x /= akk;
                }
            } else {
                ok = ok && a[sub].iter().all(|&x| x == 0.0);
            }
            if found_zero_pivot && pivot_is_valid {
                ok = false;
            } else if !pivot_is_valid {
                found_zero_pivot = true;
            }
        }
        if ok { Ok(()) } else { Err(LdltFailure) }
    }

    /// Solves `A x = b` in place with the factors: `x = Pᵀ L⁻ᵀ D⁺ L⁻¹ P b`, where `D⁺` maps every
    /// `|d_i| ≤ DBL_MIN` to 0 (Eigen's pseudo-inverse of D). `b.len()` must be the matrix size.
    pub fn solve_in_place(&self, b: &mut [f64]) {
        super::simd::dispatch(Solve(self, b))
    }

    #[inline(always)]
    fn solve_kernel(&self, b: &mut [f64]) {
        let n = self.m.n;
        assert_eq!(b.len(), n, "Ldlt::solve_in_place: right-hand side length");
        let a = &self.m.a[..n * n];
        let t = &self.transpositions[..n];
        for (k, &p) in t.iter().enumerate() {
            b.swap(k, p);
        }
        // L y = P b (unit lower, column oriented).
        for j in 0..n {
            let bj = b[j];
            for (bi, &l) in b[j + 1..].iter_mut().zip(&a[j * n + j + 1..(j + 1) * n]) {
                *bi -= l * bj;
            }
        }
        for (i, bi) in b.iter_mut().enumerate() {
            let d = a[i + i * n];
            if d.abs() > f64::MIN_POSITIVE {
                *bi /= d;
            } else {
                *bi = 0.0;
            }
        }
        // Lᵀ x = y (row oriented through the columns of L).
        for j in (0..n).rev() {
            let mut dot = 0.0;
            for (&bi, &l) in b[j + 1..].iter().zip(&a[j * n + j + 1..(j + 1) * n]) {
                dot += l * bi;
            }
            b[j] -= dot;
        }
        for (k, &p) in t.iter().enumerate().rev() {
            b.swap(k, p);
        }
    }
}

impl Ldlt {
    /// Solves `Aᵀ x = b` in place: the factored matrix is the symmetric one whose lower triangle
    /// was given, so this is [`solve_in_place`](Self::solve_in_place) (kept for callers that are
    /// generic over the factorization, e.g. adjoint solves).
    pub fn solve_transposed_in_place(&self, b: &mut [f64]) {
        self.solve_in_place(b)
    }
}

struct Factor<'a>(&'a mut Ldlt);

impl WithSimd for Factor<'_> {
    type Output = Result<(), LdltFailure>;
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) -> Self::Output {
        self.0.factor_kernel()
    }
}

struct Solve<'a>(&'a Ldlt, &'a mut [f64]);

impl WithSimd for Solve<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        self.0.solve_kernel(self.1)
    }
}

/// Symmetric swap of rows/columns `k < p` of a matrix stored in its lower triangle
/// (column-major, `n×n`): the permuted matrix's lower triangle is written in place.
fn swap_symmetric_lower(a: &mut [f64], n: usize, k: usize, p: usize) {
    // Rows k and p, columns 0..k.
    for j in 0..k {
        a.swap(k + j * n, p + j * n);
    }
    // Columns k and p, rows p+1..n.
    for i in p + 1..n {
        a.swap(i + k * n, i + p * n);
    }
    a.swap(k + k * n, p + p * n);
    // The block between: (i, k) ↔ (p, i) for k < i < p.
    for i in k + 1..p {
        a.swap(i + k * n, p + i * n);
    }
}

/// The index in `k..end` of the largest |diagonal| `|a[i + i·ld]|` of a column-major matrix with
/// leading dimension `ld`: the pivot of symmetric diagonal pivoting. The first maximum wins and NaN
/// never compares greater (Eigen's max-coefficient visitor), so the dense and the supernodal
/// LDLᵀ pivot alike.
#[inline(always)]
pub(crate) fn largest_diagonal(a: &[f64], ld: usize, k: usize, end: usize) -> usize {
    let mut p = k;
    let mut best = a[k + k * ld].abs();
    for i in k + 1..end {
        let v = a[i + i * ld].abs();
        if v > best {
            best = v;
            p = i;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    fn factor(a: &DMatrix<f64>) -> (Ldlt, Result<(), LdltFailure>) {
        let n = a.nrows();
        let mut f = Ldlt::with_capacity(n);
        f.matrix_mut(n).copy_from(a);
        let r = f.factor();
        (f, r)
    }

    fn solve(f: &Ldlt, b: &[f64]) -> Vec<f64> {
        let mut x = b.to_vec();
        f.solve_in_place(&mut x);
        x
    }

    #[test]
    fn solves_spd_and_indefinite_systems_reading_only_the_lower_triangle() {
        let mut s = 12345u64;
        let mut rnd = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        };
        for &n in &[2usize, 3, 8, 25] {
            let b = DMatrix::from_fn(n, n, |_, _| rnd());
            let spd = &b * b.transpose() + DMatrix::identity(n, n) * 0.1;
            let mut indefinite = spd.clone();
            indefinite[(0, 0)] = -3.0;
            for a in [spd, indefinite] {
                let mut garbage = a.clone();
                for j in 1..n {
                    for i in 0..j {
                        garbage[(i, j)] = f64::NAN;
                    }
                }
                let (f, r) = factor(&garbage);
                assert_eq!(r, Ok(()));
                let x_true = DVector::from_fn(n, |i, _| 1.0 + i as f64);
                let rhs = &a * &x_true;
                let x = solve(&f, rhs.as_slice());
                for (xi, ti) in x.iter().zip(x_true.iter()) {
                    assert!((xi - ti).abs() < 1e-9 * ti.abs(), "{xi} vs {ti}");
                }
            }
        }
    }

    #[test]
    fn size_zero_and_one_always_succeed() {
        assert_eq!(factor(&DMatrix::zeros(0, 0)).1, Ok(()));
        let (f, r) = factor(&DMatrix::from_element(1, 1, 0.0));
        assert_eq!(r, Ok(()));
        assert_eq!(solve(&f, &[3.0]), vec![0.0], "pseudo-inverse of a zero pivot");
        let (f, r) = factor(&DMatrix::from_element(1, 1, 4.0));
        assert_eq!(r, Ok(()));
        assert_eq!(solve(&f, &[2.0]), vec![0.5]);
    }

    #[test]
    fn rule_1_zero_diagonal_fails_only_with_a_nonzero_lower_entry() {
        assert_eq!(factor(&DMatrix::zeros(3, 3)).1, Ok(()));
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 1.0, 0.0]);
        assert_eq!(factor(&a).1, Err(LdltFailure));
        // Upper entries are never read.
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, 0.0, 0.0]);
        assert_eq!(factor(&a).1, Ok(()));
    }

    #[test]
    fn rule_2_zero_pivot_with_nonzero_subcolumn_fails() {
        // After the first step (pivot 1 at index 0) the trailing block is [[0, 1], [1, 0]]:
        // the next pivot is 0 with a nonzero entry below it.
        let a = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0]);
        assert_eq!(factor(&a).1, Err(LdltFailure));
    }

    #[test]
    fn rule_3_zero_pivot_followed_by_a_valid_pivot_fails() {
        // Pivots are chosen on the not-yet-updated diagonal (Eigen's left-looking order):
        // step 0 takes a00 = 1, step 1 takes a11 = 1, which the update turns into 0 with a zero
        // sub-column; step 2's pivot 0.5 is valid, so the factorization fails.
        let a = DMatrix::from_row_slice(3, 3, &[1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.5]);
        assert_eq!(factor(&a).1, Err(LdltFailure));
        // The same singularity as the last pivot is accepted.
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0]);
        let (f, r) = factor(&a);
        assert_eq!(r, Ok(()));
        assert_eq!(solve(&f, &[2.0, 2.0]), vec![2.0, 0.0], "pseudo-inverse solve");
    }

    #[test]
    fn nan_entries_fail() {
        let a = DMatrix::from_row_slice(2, 2, &[f64::NAN, 0.0, f64::NAN, 1.0]);
        assert_eq!(factor(&a).1, Err(LdltFailure));
    }
}
