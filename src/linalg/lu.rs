//! Partial-pivot LU, `P A = L U`, that never reports failure (`specs/tamsi.md` §5.2, Eigen's
//! `PartialPivLU`).
//!
//! An exactly singular matrix is factored anyway; the solve then divides by zero and returns
//! non-finite values, which is what Drake's two-way TAMSI relies on (the NaN flows on into the
//! limiter).
//!
//! Two kernels, one contract:
//! * below [`BLOCKED_MIN_DIM`] the textbook unblocked right-looking elimination in Eigen's order
//!   (the pivot is the first largest |entry|; a zero pivot column is left unscaled, as Eigen
//!   does), compiled inside the AVX2 dispatch;
//! * from [`BLOCKED_MIN_DIM`] up, faer's recursive blocked LU (matrix-multiply updates, runtime
//!   SIMD dispatch), which is 2–4× faster than any unblocked LU at n ≥ 100 and allocates nothing
//!   with a preallocated scratch stack. On a zero pivot column it scales by 1/0, so its factors
//!   hold inf/NaN where Eigen's hold zeros; the solve is non-finite in both cases.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor as faer_lu;
use faer::{MatMut, Par, Spec};
use nalgebra::DMatrixViewMut;

use super::grow;
use super::simd::{Simd, WithSimd};

/// Size from which the blocked kernel is used (measured crossover on the project's machine kind:
/// faer is slower below ~50 and faster above ~60).
pub const BLOCKED_MIN_DIM: usize = 64;

/// Partial-pivot LU factorization in owned, grow-only storage.
///
/// Usage: fill [`PartialPivLu::matrix_mut`] (column-major `n×n`), call
/// [`PartialPivLu::factor`], then [`PartialPivLu::solve_in_place`].
pub struct PartialPivLu {
    n: usize,
    /// Column-major `n×n`: the matrix, then the factors (unit-lower L below the diagonal, U on and
    /// above it).
    lu: Vec<f64>,
    /// Row i of `P A` is row `perm[i]` of A.
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
    /// Scratch stack of the blocked kernel, sized for `stack_dim`.
    stack: MemBuffer,
    stack_dim: usize,
}

impl std::fmt::Debug for PartialPivLu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartialPivLu")
            .field("n", &self.n)
            .field("perm", &&self.perm[..self.n])
            .finish_non_exhaustive()
    }
}

impl Default for PartialPivLu {
    fn default() -> Self {
        Self::with_capacity(0)
    }
}

impl Clone for PartialPivLu {
    fn clone(&self) -> Self {
        let mut c = Self::with_capacity(self.stack_dim.max(self.n));
        c.n = self.n;
        c.lu.clone_from(&self.lu);
        c.perm.clone_from(&self.perm);
        c.perm_inv.clone_from(&self.perm_inv);
        c
    }
}

impl PartialPivLu {
    /// An empty factorization with storage for `n×n` matrices.
    pub fn with_capacity(n: usize) -> Self {
        let mut f = Self {
            n: 0,
            lu: Vec::new(),
            perm: Vec::new(),
            perm_inv: Vec::new(),
            stack: MemBuffer::new(faer::dyn_stack::StackReq::EMPTY),
            stack_dim: 0,
        };
        f.reserve(n);
        f
    }

    /// Makes sure `n×n` problems need no further allocation.
    pub fn reserve(&mut self, n: usize) {
        grow(&mut self.lu, n * n);
        if self.perm.len() < n {
            self.perm.resize(n, 0);
            self.perm_inv.resize(n, 0);
        }
        if n >= BLOCKED_MIN_DIM && n > self.stack_dim {
            self.stack =
                MemBuffer::new(faer_lu::lu_in_place_scratch::<usize, f64>(n, n, Par::Seq, Spec::default()));
            self.stack_dim = n;
        }
    }

    /// [`reserve`](Self::reserve) that reports allocation failure instead of aborting.
    pub fn try_reserve(&mut self, n: usize) -> Result<(), super::AllocationFailed> {
        super::try_grow(&mut self.lu, super::square(n)?, 0.0)?;
        super::try_grow(&mut self.perm, n, 0)?;
        super::try_grow(&mut self.perm_inv, n, 0)?;
        self.reserve(n);
        Ok(())
    }

    /// The current `n×n` storage (the matrix before [`factor`](Self::factor), the factors after),
    /// column-major with leading dimension `n`.
    pub fn storage(&self) -> &[f64] {
        &self.lu[..self.n * self.n]
    }

    /// Size of the current matrix.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// The `n×n` column-major matrix to fill before [`PartialPivLu::factor`]. Its previous
    /// contents are unspecified. Allocates only when `n` exceeds every size seen before.
    pub fn matrix_mut(&mut self, n: usize) -> DMatrixViewMut<'_, f64> {
        self.reserve(n);
        self.n = n;
        DMatrixViewMut::from_slice(&mut self.lu[..n * n], n, n)
    }

    /// The same storage as [`PartialPivLu::matrix_mut`] as a column-major slice of length `n·n`
    /// (leading dimension `n`), for kernels that work on raw columns.
    pub fn storage_mut(&mut self, n: usize) -> &mut [f64] {
        self.reserve(n);
        self.n = n;
        &mut self.lu[..n * n]
    }

    /// Factors the matrix last filled through [`PartialPivLu::matrix_mut`], in place. Never
    /// fails (see the module docs for singular matrices).
    pub fn factor(&mut self) {
        let n = self.n;
        if n >= BLOCKED_MIN_DIM {
            let a = MatMut::from_column_major_slice_mut(&mut self.lu[..n * n], n, n);
            faer_lu::lu_in_place(
                a,
                &mut self.perm[..n],
                &mut self.perm_inv[..n],
                Par::Seq,
                MemStack::new(&mut self.stack),
                Spec::default(),
            );
        } else {
            factor_small_in_place(&mut self.lu[..n * n], &mut self.perm[..n], n);
        }
    }

    /// Solves `A x = b` in place with the factors. `b.len()` must be the matrix size. `tmp` is
    /// scratch of at least the same length (the row permutation is applied out of place).
    pub fn solve_in_place(&self, b: &mut [f64], tmp: &mut [f64]) {
        super::simd::dispatch(Solve { lu: self, b, tmp })
    }

    #[inline(always)]
    fn solve_kernel(&self, b: &mut [f64], tmp: &mut [f64]) {
        let n = self.n;
        assert_eq!(b.len(), n, "PartialPivLu::solve_in_place: right-hand side length");
        let tmp = &mut tmp[..n];
        let lu = &self.lu[..n * n];
        for (t, &p) in tmp.iter_mut().zip(&self.perm[..n]) {
            *t = b[p];
        }
        // L y = P b, unit lower, column oriented.
        for j in 0..n {
            let yj = tmp[j];
            for (yi, &l) in tmp[j + 1..].iter_mut().zip(&lu[j * n + j + 1..(j + 1) * n]) {
                *yi -= l * yj;
            }
        }
        // U x = y, column oriented.
        for j in (0..n).rev() {
            let xj = tmp[j] / lu[j + j * n];
            tmp[j] = xj;
            for (yi, &u) in tmp[..j].iter_mut().zip(&lu[j * n..j * n + j]) {
                *yi -= u * xj;
            }
        }
        b.copy_from_slice(tmp);
    }
}

/// Factors a small `n×n` column-major matrix in place with the unblocked kernel, writing the row
/// permutation (`perm[i]` = original row of row i of `P A`). For callers that manage their own
/// storage, e.g. many small blocks.
pub(crate) fn factor_small_in_place(a: &mut [f64], perm: &mut [usize], n: usize) {
    super::simd::dispatch(FactorUnblocked { a, perm, n });
}

struct FactorUnblocked<'a> {
    a: &'a mut [f64],
    perm: &'a mut [usize],
    n: usize,
}

impl WithSimd for FactorUnblocked<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        factor_unblocked(self.a, self.perm, self.n)
    }
}

struct Solve<'a> {
    lu: &'a PartialPivLu,
    b: &'a mut [f64],
    tmp: &'a mut [f64],
}

impl WithSimd for Solve<'_> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) {
        self.lu.solve_kernel(self.b, self.tmp)
    }
}

/// Step `k` of the elimination on a column that has received all earlier updates: pick the first
/// largest |entry| at or below the diagonal (NaN never wins), swap whole rows, scale the
/// sub-column by the pivot; a zero pivot column is left as it is (Eigen).
#[inline(always)]
fn pivot_and_scale(a: &mut [f64], perm: &mut [usize], n: usize, k: usize) {
    let col = &a[k * n..(k + 1) * n];
    let mut p = k;
    let mut best = col[k].abs();
    for (i, &x) in col.iter().enumerate().skip(k + 1) {
        let v = x.abs();
        if v > best {
            best = v;
            p = i;
        }
    }
    if best != 0.0 {
        if p != k {
            for j in 0..n {
                a.swap(k + j * n, p + j * n);
            }
            perm.swap(k, p);
        }
        let pivot = a[k + k * n];
        for x in &mut a[k * n + k + 1..(k + 1) * n] {
            *x /= pivot;
        }
    }
}

/// Right-looking LU with row partial pivoting in Eigen's order, one step at a time: pivot and
/// scale column k, then a rank-1 update of the trailing block. Every entry receives its updates
/// `a[r][c] -= l[r][j]·u[j][c]` one by one in increasing `j`.
///
/// (A panel-delayed variant with the same bits, 4 steps per pass over a column, measured slower
/// than this loop at every n below [`BLOCKED_MIN_DIM`] inside the AVX2 dispatch.)
#[inline(always)]
fn factor_unblocked(a: &mut [f64], perm: &mut [usize], n: usize) {
    for (i, p) in perm.iter_mut().enumerate() {
        *p = i;
    }
    for k in 0..n {
        pivot_and_scale(a, perm, n, k);
        // Rank-1 update of the trailing block: A22 -= l_k u_kᵀ.
        let (left, right) = a.split_at_mut((k + 1) * n);
        let l = &left[k * n + k + 1..(k + 1) * n];
        for col in right.chunks_exact_mut(n) {
            let u = col[k];
            for (x, &li) in col[k + 1..].iter_mut().zip(l) {
                *x -= li * u;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    fn test_matrix(n: usize, seed: u64) -> DMatrix<f64> {
        let mut s = seed;
        DMatrix::from_fn(n, n, |_, _| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        })
    }

    #[test]
    fn both_kernels_solve_random_systems() {
        for &n in &[0usize, 1, 2, 5, 17, 63, 64, 65, 130] {
            let a = test_matrix(n, n as u64 + 1);
            let x_true: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
            let b = &a * nalgebra::DVector::from_column_slice(&x_true);
            let mut f = PartialPivLu::with_capacity(n);
            f.matrix_mut(n).copy_from(&a);
            f.factor();
            let mut x = b.as_slice().to_vec();
            let mut tmp = vec![0.0; n];
            f.solve_in_place(&mut x, &mut tmp);
            for (xi, ti) in x.iter().zip(&x_true) {
                assert!((xi - ti).abs() < 1e-10, "n = {n}: {xi} vs {ti}");
            }
        }
    }

    #[test]
    fn singular_matrix_factors_and_solves_to_non_finite() {
        for &n in &[3usize, 80] {
            let mut a = test_matrix(n, 7);
            a.column_mut(1).fill(0.0);
            let mut f = PartialPivLu::with_capacity(n);
            f.matrix_mut(n).copy_from(&a);
            f.factor();
            let mut x = vec![1.0; n];
            let mut tmp = vec![0.0; n];
            f.solve_in_place(&mut x, &mut tmp);
            assert!(x.iter().any(|v| !v.is_finite()), "n = {n}");
        }
    }
}
