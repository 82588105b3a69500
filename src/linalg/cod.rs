//! Complete orthogonal decomposition and its minimum-norm least-squares solve
//! (`docs/rigid.md` §3.1, Eigen's `CompleteOrthogonalDecomposition`).
//!
//! `A P = Q [T 0; 0 0] Z` for an `m×n` matrix `A`: a Householder QR with column pivoting (the
//! column of largest remaining norm first; first wins ties) gives `A P = Q [R₁₁ R₁₂; 0 R₂₂]`; the
//! numerical rank `r` counts the diagonal entries with `|rᵢᵢ| > eps · min(m, n) · maxⱼ |rⱼⱼ|`
//! (Eigen's default threshold); Householder reflections applied from the right then turn
//! `[R₁₁ R₁₂]` into `[T 0]`. [`Cod::solve`] returns the minimum-norm least-squares solution
//! `x = A⁺ b`, so rank-deficient systems (redundant bilateral constraints, duplicated contacts)
//! are solved, never refused.
//!
//! Storage is owned and grow-only; once grown, nothing here allocates.

use nalgebra::DMatrixViewMut;

use super::grow;

/// Complete orthogonal decomposition in owned, grow-only storage.
///
/// Usage: fill [`Cod::matrix_mut`] (column-major `m×n`), call [`Cod::factor`], then
/// [`Cod::solve`] as often as needed.
#[derive(Debug, Clone, Default)]
pub struct Cod {
    m: usize,
    n: usize,
    rank: usize,
    /// Column-major `m×n`: the matrix, then R (upper part, with T in its leading r×r block after
    /// the right reflections) and the Householder vectors (below the diagonal for Q, in rows
    /// `0..r`, columns `r..n` for Z).
    a: Vec<f64>,
    /// Householder coefficients of Q (min(m, n)) and of Z (r).
    h_coeffs: Vec<f64>,
    z_coeffs: Vec<f64>,
    /// Column j of `A P` is column `perm[j]` of A.
    perm: Vec<usize>,
    norms: Vec<f64>,
    tmp: Vec<f64>,
}

impl Cod {
    /// An empty decomposition with storage for `m×n` matrices.
    pub fn with_capacity(m: usize, n: usize) -> Self {
        super::reserved(|c: &mut Self| c.reserve(m, n))
    }

    /// Makes sure `m×n` problems need no further allocation.
    pub fn reserve(&mut self, m: usize, n: usize) {
        grow(&mut self.a, m * n);
        grow(&mut self.h_coeffs, m.min(n));
        grow(&mut self.z_coeffs, m.min(n));
        grow(&mut self.norms, n);
        grow(&mut self.tmp, m.max(n) + 1);
        if self.perm.len() < n {
            self.perm.resize(n, 0);
        }
    }

    /// Numerical rank found by the last [`Cod::factor`].
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// `(rows, cols)` of the current matrix.
    pub fn shape(&self) -> (usize, usize) {
        (self.m, self.n)
    }

    /// The `m×n` column-major matrix to fill before [`Cod::factor`]. Its previous contents are
    /// unspecified.
    pub fn matrix_mut(&mut self, m: usize, n: usize) -> DMatrixViewMut<'_, f64> {
        self.reserve(m, n);
        self.m = m;
        self.n = n;
        DMatrixViewMut::from_slice(&mut self.a[..m * n], m, n)
    }

    /// Factors the matrix last filled through [`Cod::matrix_mut`], in place. Never fails; a
    /// matrix with non-finite entries gives non-finite solutions.
    pub fn factor(&mut self) {
        let (m, n) = (self.m, self.n);
        let a = &mut self.a[..m * n];
        let size = m.min(n);
        let perm = &mut self.perm[..n];
        for (j, p) in perm.iter_mut().enumerate() {
            *p = j;
        }
        let mut max_pivot = 0.0f64;
        for k in 0..size {
            // Column of largest remaining norm (rows k..m); recomputed exactly (cheap at the sizes
            // this kernel serves, and free of downdating cancellation).
            let mut best = k;
            let mut best_norm = -1.0;
            for j in k..n {
                let s: f64 = a[j * m + k..(j + 1) * m].iter().map(|x| x * x).sum();
                self.norms[j] = s;
                if s > best_norm {
                    best_norm = s;
                    best = j;
                }
            }
            if best != k {
                for i in 0..m {
                    a.swap(i + k * m, i + best * m);
                }
                perm.swap(k, best);
            }
            let (tau, beta) = make_householder(&mut a[k * m + k..(k + 1) * m]);
            a[k * m + k] = beta;
            self.h_coeffs[k] = tau;
            max_pivot = max_pivot.max(beta.abs());
            // Apply H_k = I − τ v vᵀ (v₀ = 1) to the trailing columns.
            if tau != 0.0 {
                let (left, right) = a.split_at_mut((k + 1) * m);
                let v = &left[k * m + k + 1..(k + 1) * m];
                for col in right.chunks_exact_mut(m) {
                    let c = &mut col[k..];
                    let mut dot = c[0];
                    for (x, &vi) in c[1..].iter().zip(v) {
                        dot += x * vi;
                    }
                    let t = tau * dot;
                    c[0] -= t;
                    for (x, &vi) in c[1..].iter_mut().zip(v) {
                        *x -= t * vi;
                    }
                }
            }
        }
        let threshold = max_pivot * f64::EPSILON * size as f64;
        let rank = (0..size).filter(|&i| a[i + i * m].abs() > threshold).count();
        self.rank = rank;

        // Right reflections: for i = r−1 … 0 zero row i of R₁₂ against column i, acting on the
        // coordinates {i} ∪ {r..n} of rows 0..=i.
        if rank < n {
            let tail = n - rank;
            let x = &mut self.tmp[..=tail];
            for i in (0..rank).rev() {
                x[0] = a[i + i * m];
                for (t, xt) in x[1..].iter_mut().enumerate() {
                    *xt = a[i + (rank + t) * m];
                }
                let (tau, beta) = make_householder(x);
                self.z_coeffs[i] = tau;
                a[i + i * m] = beta;
                for t in 0..tail {
                    a[i + (rank + t) * m] = x[1 + t];
                }
                // Rows 0..i: row ← row · (I − τ v vᵀ), v = (1, x[1..]).
                if tau != 0.0 {
                    for k in 0..i {
                        let mut dot = a[k + i * m];
                        for t in 0..tail {
                            dot += a[k + (rank + t) * m] * x[1 + t];
                        }
                        let s = tau * dot;
                        a[k + i * m] -= s;
                        for t in 0..tail {
                            a[k + (rank + t) * m] -= s * x[1 + t];
                        }
                    }
                }
            }
        }
    }

    /// Minimum-norm least-squares solution `x = A⁺ b` (`b.len() == m`, `x.len() == n`).
    pub fn solve(&mut self, b: &[f64], x: &mut [f64]) {
        let (m, n, r) = (self.m, self.n, self.rank);
        assert_eq!(b.len(), m, "Cod::solve: right-hand side length");
        assert_eq!(x.len(), n, "Cod::solve: solution length");
        let a = &self.a[..m * n];
        let c = &mut self.tmp[..m];
        c.copy_from_slice(b);
        // c = Qᵀ b (only the first r entries are needed: reflectors 0..r).
        for k in 0..r.min(m) {
            let tau = self.h_coeffs[k];
            if tau == 0.0 {
                continue;
            }
            let v = &a[k * m + k + 1..(k + 1) * m];
            let mut dot = c[k];
            for (ci, &vi) in c[k + 1..].iter().zip(v) {
                dot += ci * vi;
            }
            let t = tau * dot;
            c[k] -= t;
            for (ci, &vi) in c[k + 1..].iter_mut().zip(v) {
                *ci -= t * vi;
            }
        }
        // y₁ = T⁻¹ c[0..r] (upper triangular), y = [y₁; 0].
        let y = &mut self.norms[..n];
        y.fill(0.0);
        for i in (0..r).rev() {
            let mut s = c[i];
            for j in i + 1..r {
                s -= a[i + j * m] * y[j];
            }
            y[i] = s / a[i + i * m];
        }
        // x_perm = Zᵀ y = P_{r−1} ⋯ P₀ y.
        if r < n {
            for i in 0..r {
                let tau = self.z_coeffs[i];
                if tau == 0.0 {
                    continue;
                }
                let mut dot = y[i];
                for t in r..n {
                    dot += a[i + t * m] * y[t];
                }
                let s = tau * dot;
                y[i] -= s;
                for t in r..n {
                    y[t] -= s * a[i + t * m];
                }
            }
        }
        for (j, &p) in self.perm[..n].iter().enumerate() {
            x[p] = y[j];
        }
    }
}

/// Householder reflection `H = I − τ v vᵀ` with `v₀ = 1` such that `H x = (β, 0, …, 0)`.
/// Stores `v[1..]` in `x[1..]`, returns `(τ, β)`. A tail of zeros gives `τ = 0`, `β = x₀`.
fn make_householder(x: &mut [f64]) -> (f64, f64) {
    let c0 = x[0];
    let tail_sq: f64 = x[1..].iter().map(|v| v * v).sum();
    if tail_sq <= f64::MIN_POSITIVE {
        for v in &mut x[1..] {
            *v = 0.0;
        }
        return (0.0, c0);
    }
    let mut beta = (c0 * c0 + tail_sq).sqrt();
    if c0 >= 0.0 {
        beta = -beta;
    }
    let scale = 1.0 / (c0 - beta);
    for v in &mut x[1..] {
        *v *= scale;
    }
    ((beta - c0) / beta, beta)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    fn solve(a: &DMatrix<f64>, b: &[f64]) -> (Vec<f64>, usize) {
        let (m, n) = a.shape();
        let mut c = Cod::with_capacity(m, n);
        c.matrix_mut(m, n).copy_from(a);
        c.factor();
        let mut x = vec![0.0; n];
        c.solve(b, &mut x);
        (x, c.rank())
    }

    #[test]
    fn full_rank_square_system() {
        let a = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.5, 1.0, 3.0, -1.0, 0.5, -1.0, 2.0]);
        let x_true = DVector::from_vec(vec![1.0, -2.0, 3.0]);
        let b = &a * &x_true;
        let (x, r) = solve(&a, b.as_slice());
        assert_eq!(r, 3);
        for (xi, ti) in x.iter().zip(x_true.iter()) {
            assert!((xi - ti).abs() < 1e-13);
        }
    }

    #[test]
    fn rank_deficient_gives_the_minimum_norm_solution() {
        // Duplicated constraint rows: [[1, 1], [1, 1]] x = (2, 2) → min-norm (1, 1).
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0]);
        let (x, r) = solve(&a, &[2.0, 2.0]);
        assert_eq!(r, 1);
        assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15, "{x:?}");
        // A rank-2 4×4 matrix against the pseudo-inverse from the SVD.
        let u = DMatrix::from_row_slice(4, 2, &[1.0, 0.0, 2.0, 1.0, 0.0, 3.0, -1.0, 1.0]);
        let v = DMatrix::from_row_slice(2, 4, &[1.0, 2.0, 0.0, -1.0, 0.5, 0.0, 1.0, 1.0]);
        let a = &u * &v;
        let b = [1.0, -2.0, 0.5, 3.0];
        let (x, r) = solve(&a, &b);
        assert_eq!(r, 2);
        let pinv = a.clone().pseudo_inverse(1e-12).unwrap();
        let x_ref = pinv * DVector::from_column_slice(&b);
        for (xi, ti) in x.iter().zip(x_ref.iter()) {
            assert!((xi - ti).abs() < 1e-12, "{x:?} vs {x_ref:?}");
        }
    }

    #[test]
    fn zero_matrix_and_rectangular() {
        let (x, r) = solve(&DMatrix::zeros(2, 2), &[1.0, 1.0]);
        assert_eq!((x, r), (vec![0.0, 0.0], 0));
        // Underdetermined 1×3: x = aᵀ b / |a|².
        let a = DMatrix::from_row_slice(1, 3, &[1.0, 2.0, 2.0]);
        let (x, r) = solve(&a, &[9.0]);
        assert_eq!(r, 1);
        for (xi, ti) in x.iter().zip([1.0, 2.0, 2.0]) {
            assert!((xi - ti).abs() < 1e-14);
        }
        // Overdetermined 3×1: least squares.
        let a = DMatrix::from_row_slice(3, 1, &[1.0, 1.0, 1.0]);
        let (x, _) = solve(&a, &[1.0, 2.0, 6.0]);
        assert!((x[0] - 3.0).abs() < 1e-14);
        let (x, r) = solve(&DMatrix::zeros(0, 0), &[]);
        assert_eq!((x.len(), r), (0, 0));
    }
}
