//! Updatable QR factorization `A = Q R` (Q explicit and orthogonal, R upper triangular) of a
//! matrix that changes by one row or one column at a time, each change in O(k²) with Givens
//! rotations.
//!
//! Why: Baraff's pivoting method solves with the clamped-set submatrix `Acc` at every pivot, and
//! that set changes by one row and column per pivot (`docs/baraff.md` §3.4: "maintain a
//! factorisation of `Acc` with row/column insert/delete updates (O(|C|²) per pivot)"). `Acc` is
//! not symmetric once friction ties saturated rows to their normals, so a Cholesky/LDLᵀ update
//! does not apply; orthogonal updates stay stable whatever the pivot order, and a rank-deficient
//! `Acc` (redundant contacts) is solved with a pseudo-inverse of R's diagonal instead of failing
//! (the singular-tolerant solve of §6).
//!
//! The operations (rows and columns are positions in the factorization; the caller keeps the
//! meaning of each position):
//! * [`UpdatableQr::append_row`], [`UpdatableQr::append_column`]: border the matrix;
//! * [`UpdatableQr::remove_column`], [`UpdatableQr::remove_row`]: delete one (later positions
//!   shift down by one);
//! * [`UpdatableQr::solve`]: `x = R⁺ Qᵀ b` for a square matrix.
//!
//! Storage: Q and R are column-major with leading dimension = the reserved capacity, so no
//! change of size moves the whole storage. Once [`UpdatableQr::reserve`] has been called with
//! the largest size, nothing allocates.

use super::grow;

/// Updatable QR factorization (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct UpdatableQr {
    /// Capacity = leading dimension of `q` and `r`.
    ld: usize,
    rows: usize,
    cols: usize,
    /// `rows×rows` orthogonal factor, column-major, leading dimension `ld`.
    q: Vec<f64>,
    /// `rows×cols` upper-trapezoidal factor, column-major, leading dimension `ld`.
    r: Vec<f64>,
    /// Scratch of length `ld`.
    work: Vec<f64>,
}

/// Rotation `(c, s)` with `c·a + s·b = hypot(a, b)` and `−s·a + c·b = 0`.
#[inline]
fn givens(a: f64, b: f64) -> (f64, f64, f64) {
    if b == 0.0 {
        (1.0, 0.0, a)
    } else {
        let h = a.hypot(b);
        (a / h, b / h, h)
    }
}

/// `(x, y) ← (c x + s y, −s x + c y)` elementwise.
#[inline]
fn rotate(x: &mut [f64], y: &mut [f64], c: f64, s: f64) {
    for (xi, yi) in x.iter_mut().zip(y.iter_mut()) {
        let (u, v) = (*xi, *yi);
        *xi = c * u + s * v;
        *yi = c * v - s * u;
    }
}

impl UpdatableQr {
    /// An empty (0×0) factorization with storage for matrices up to `cap×cap`.
    pub fn with_capacity(cap: usize) -> Self {
        super::reserved(|f: &mut Self| f.reserve(cap))
    }

    /// Empties the factorization (0×0) and makes sure matrices up to `cap×cap` need no further
    /// allocation. The capacity never shrinks.
    pub fn reserve(&mut self, cap: usize) {
        self.rows = 0;
        self.cols = 0;
        if cap > self.ld {
            self.ld = cap;
            grow(&mut self.q, cap * cap);
            grow(&mut self.r, cap * cap);
            grow(&mut self.work, cap);
        }
    }

    /// Empties the factorization, keeping its capacity.
    pub fn clear(&mut self) {
        self.rows = 0;
        self.cols = 0;
    }

    /// Capacity (largest number of rows or columns without reallocation).
    pub fn capacity(&self) -> usize {
        self.ld
    }

    /// Number of rows of the factored matrix.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns of the factored matrix.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Diagonal entry `R[j, j]` (its magnitude is the distance of column j from the span of the
    /// columns before it).
    pub fn r_diag(&self, j: usize) -> f64 {
        self.r[j + j * self.ld]
    }

    /// Rotates rows `i` and `k` (`i < k`) of R over columns `from..cols`.
    fn rotate_r_rows(&mut self, i: usize, k: usize, from: usize, c: f64, s: f64) {
        let ld = self.ld;
        for j in from..self.cols {
            let u = self.r[i + j * ld];
            let v = self.r[k + j * ld];
            self.r[i + j * ld] = c * u + s * v;
            self.r[k + j * ld] = c * v - s * u;
        }
    }

    /// Applies the transpose of the same rotation to columns `i < k` of Q (so `Q R` is
    /// unchanged).
    fn rotate_q_cols(&mut self, i: usize, k: usize, c: f64, s: f64) {
        let (ld, n) = (self.ld, self.rows);
        let (left, right) = self.q.split_at_mut(k * ld);
        rotate(&mut left[i * ld..i * ld + n], &mut right[..n], c, s);
    }

    /// Appends a row `row` (length = current column count) at the bottom of the matrix.
    ///
    /// Panics if the capacity would be exceeded or `row` has the wrong length.
    pub fn append_row(&mut self, row: &[f64]) {
        assert_eq!(row.len(), self.cols, "UpdatableQr::append_row: row length");
        assert!(self.rows < self.ld, "UpdatableQr::append_row: capacity exceeded");
        let (ld, p) = (self.ld, self.rows);
        self.rows += 1;
        // Q ← diag(Q, 1).
        for j in 0..p {
            self.q[p + j * ld] = 0.0;
        }
        self.q[p * ld..p * ld + p + 1].fill(0.0);
        self.q[p + p * ld] = 1.0;
        for (j, &v) in row.iter().enumerate() {
            self.r[p + j * ld] = v;
        }
        // Zero the new row against the diagonal of R.
        for j in 0..self.cols.min(p) {
            let b = self.r[p + j * ld];
            if b != 0.0 {
                let (c, s, h) = givens(self.r[j + j * ld], b);
                self.r[j + j * ld] = h;
                self.r[p + j * ld] = 0.0;
                self.rotate_r_rows(j, p, j + 1, c, s);
                self.rotate_q_cols(j, p, c, s);
            }
        }
    }

    /// Appends a column `col` (length = current row count) at the right of the matrix.
    ///
    /// Panics if the capacity would be exceeded or `col` has the wrong length.
    pub fn append_column(&mut self, col: &[f64]) {
        assert_eq!(col.len(), self.rows, "UpdatableQr::append_column: column length");
        assert!(self.cols < self.ld, "UpdatableQr::append_column: capacity exceeded");
        let (ld, n, c0) = (self.ld, self.rows, self.cols);
        // w = Qᵀ col.
        for j in 0..n {
            let qj = &self.q[j * ld..j * ld + n];
            self.work[j] = qj.iter().zip(col).map(|(a, b)| a * b).sum();
        }
        // Zero w below position c0 (only when the matrix has more rows than columns + 1).
        for i in (c0 + 1..n).rev() {
            let b = self.work[i];
            if b != 0.0 {
                let (c, s, h) = givens(self.work[i - 1], b);
                self.work[i - 1] = h;
                self.work[i] = 0.0;
                // R rows i-1, i are zero in the existing columns (i - 1 ≥ c0).
                self.rotate_q_cols(i - 1, i, c, s);
            }
        }
        for i in 0..n {
            self.r[i + c0 * ld] = if i <= c0 { self.work[i] } else { 0.0 };
        }
        self.cols += 1;
    }

    /// Removes column `p`; later columns shift left.
    pub fn remove_column(&mut self, p: usize) {
        assert!(p < self.cols, "UpdatableQr::remove_column: index");
        let ld = self.ld;
        for j in p..self.cols - 1 {
            self.r.copy_within((j + 1) * ld..(j + 1) * ld + self.rows, j * ld);
        }
        self.cols -= 1;
        // R is upper Hessenberg from column p on: restore the triangle.
        self.restore_triangle(p);
    }

    /// Makes R upper triangular again when it is upper Hessenberg from column `from` on: one
    /// Givens rotation per nonzero subdiagonal entry, applied to R's rows and Q's columns.
    fn restore_triangle(&mut self, from: usize) {
        let ld = self.ld;
        for j in from..self.cols.min(self.rows.saturating_sub(1)) {
            let b = self.r[j + 1 + j * ld];
            if b != 0.0 {
                let (c, s, h) = givens(self.r[j + j * ld], b);
                self.r[j + j * ld] = h;
                self.r[j + 1 + j * ld] = 0.0;
                self.rotate_r_rows(j, j + 1, j + 1, c, s);
                self.rotate_q_cols(j, j + 1, c, s);
            }
        }
    }

    /// Removes row `p`; later rows shift up. Cheapest (and what the pivoting solver does) when
    /// the matrix has one more row than columns, e.g. right after [`UpdatableQr::remove_column`].
    pub fn remove_row(&mut self, p: usize) {
        assert!(p < self.rows, "UpdatableQr::remove_row: index");
        let (ld, n) = (self.ld, self.rows);
        // Rotate row p of Q into ±e₀ (bottom up); R becomes upper Hessenberg.
        for i in (1..n).rev() {
            let b = self.q[p + i * ld];
            if b != 0.0 {
                let (c, s, _) = givens(self.q[p + (i - 1) * ld], b);
                self.rotate_q_cols(i - 1, i, c, s);
                self.q[p + i * ld] = 0.0;
                self.rotate_r_rows(i - 1, i, i - 1, c, s);
            }
        }
        // Drop row p and column 0 of Q, row 0 of R.
        for j in 0..n - 1 {
            let src = (j + 1) * ld;
            let dst = j * ld;
            self.q.copy_within(src..src + p, dst);
            self.q.copy_within(src + p + 1..src + n, dst + p);
        }
        for j in 0..self.cols {
            self.r.copy_within(j * ld + 1..j * ld + n, j * ld);
        }
        self.rows -= 1;
        // With at least as many columns as rows, R is left upper Hessenberg: restore it.
        self.restore_triangle(0);
    }

    /// Solves the square system `A x = b`: `x = R⁺ Qᵀ b`, where an unknown whose `|R[j, j]| ≤
    /// tol` is set to 0 (a basic solution; exact for a consistent rank-deficient system whose
    /// deficient columns are the ones dropped). `b` and `x` have the matrix size. Returns the
    /// number of dropped unknowns.
    pub fn solve(&mut self, b: &[f64], x: &mut [f64], tol: f64) -> usize {
        let (ld, n) = (self.ld, self.rows);
        assert_eq!(self.rows, self.cols, "UpdatableQr::solve: matrix is not square");
        assert_eq!(b.len(), n, "UpdatableQr::solve: right-hand side length");
        assert_eq!(x.len(), n, "UpdatableQr::solve: solution length");
        for (j, xj) in x.iter_mut().enumerate() {
            let qj = &self.q[j * ld..j * ld + n];
            *xj = qj.iter().zip(b).map(|(a, b)| a * b).sum();
        }
        let mut dropped = 0;
        for j in (0..n).rev() {
            let d = self.r[j + j * ld];
            let xj = if d.abs() > tol {
                x[j] / d
            } else {
                dropped += 1;
                0.0
            };
            x[j] = xj;
            if xj != 0.0 {
                for (xi, &rij) in x[..j].iter_mut().zip(&self.r[j * ld..j * ld + j]) {
                    *xi -= rij * xj;
                }
            }
        }
        dropped
    }

    /// The product `Q R` as a dense column-major `rows×cols` array (for tests and debugging).
    pub fn reconstruct(&self, out: &mut [f64]) {
        let (ld, n, m) = (self.ld, self.rows, self.cols);
        assert_eq!(out.len(), n * m, "UpdatableQr::reconstruct: output length");
        out.fill(0.0);
        for j in 0..m {
            for k in 0..=j.min(n.saturating_sub(1)) {
                let rkj = self.r[k + j * ld];
                if rkj != 0.0 {
                    for i in 0..n {
                        out[i + j * n] += self.q[i + k * ld] * rkj;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        }
    }

    /// Reference dense matrix kept alongside the factorization.
    struct Dense {
        rows: Vec<Vec<f64>>,
    }

    impl Dense {
        fn ncols(&self) -> usize {
            self.rows.first().map_or(0, Vec::len)
        }
    }

    /// Removes row `p` from the factorization and from its reference.
    fn remove_row(qr: &mut UpdatableQr, d: &mut Dense, p: usize) {
        qr.remove_row(p);
        d.rows.remove(p);
    }

    /// Appends `col` to the factorization and to its reference.
    fn append_column(qr: &mut UpdatableQr, d: &mut Dense, col: &[f64]) {
        qr.append_column(col);
        for (r, &c) in d.rows.iter_mut().zip(col) {
            r.push(c);
        }
    }

    fn check(qr: &UpdatableQr, d: &Dense, tol: f64) {
        let (n, m) = (qr.rows(), qr.cols());
        assert_eq!(n, d.rows.len());
        if n > 0 {
            assert_eq!(m, d.ncols());
        }
        let mut out = vec![0.0; n * m];
        qr.reconstruct(&mut out);
        for i in 0..n {
            for j in 0..m {
                assert!((out[i + j * n] - d.rows[i][j]).abs() < tol, "A[{i},{j}]");
            }
        }
        // Q orthogonal, R upper trapezoidal.
        for a in 0..n {
            for b in 0..n {
                let dot: f64 = (0..n).map(|i| qr.q[i + a * qr.ld] * qr.q[i + b * qr.ld]).sum();
                let e = if a == b { 1.0 } else { 0.0 };
                assert!((dot - e).abs() < tol, "QᵀQ[{a},{b}] = {dot}");
            }
        }
        for j in 0..m {
            for i in j + 1..n {
                assert_eq!(qr.r[i + j * qr.ld], 0.0, "R[{i},{j}] below the diagonal");
            }
        }
    }

    #[test]
    fn random_insert_delete_sequences_keep_q_r_equal_to_the_matrix() {
        let mut rng = Rng(99);
        let cap = 12;
        let mut qr = UpdatableQr::with_capacity(cap);
        let mut d = Dense { rows: Vec::new() };
        // Grow to 8×8 by (row, column) pairs, then random symmetric-position changes, as the
        // pivoting solver uses it (remove column then row; append row then column).
        for step in 0..400 {
            let k = qr.cols();
            let grow = k == 0 || (k < cap && (step < 8 || rng.next() > 0.0));
            if grow {
                let row: Vec<f64> = (0..k).map(|_| rng.next()).collect();
                qr.append_row(&row);
                d.rows.push(row);
                check(&qr, &d, 1e-12);
                let col: Vec<f64> = (0..=k).map(|_| rng.next()).collect();
                append_column(&mut qr, &mut d, &col);
            } else {
                let pc = ((rng.next() + 0.5) * k as f64) as usize % k;
                let pr = ((rng.next() + 0.5) * k as f64) as usize % k;
                qr.remove_column(pc);
                for r in &mut d.rows {
                    r.remove(pc);
                }
                check(&qr, &d, 1e-12);
                remove_row(&mut qr, &mut d, pr);
            }
            check(&qr, &d, 1e-11);
        }
    }

    #[test]
    fn row_removal_with_a_square_or_wide_matrix_and_column_append_to_a_tall_one() {
        let mut rng = Rng(5);
        let mut qr = UpdatableQr::with_capacity(6);
        let mut d = Dense { rows: Vec::new() };
        // Build 5 rows × 0 cols, then add 3 columns (tall: rotations inside append_column).
        for _ in 0..5 {
            qr.append_row(&[]);
            d.rows.push(Vec::new());
        }
        for _ in 0..3 {
            let col: Vec<f64> = (0..5).map(|_| rng.next()).collect();
            append_column(&mut qr, &mut d, &col);
            check(&qr, &d, 1e-12);
        }
        // Make it square and then wide, removing rows from it.
        for _ in 0..3 {
            let col: Vec<f64> = (0..5).map(|_| rng.next()).collect();
            append_column(&mut qr, &mut d, &col);
        }
        check(&qr, &d, 1e-12);
        for p in [2usize, 0, 1] {
            remove_row(&mut qr, &mut d, p);
            check(&qr, &d, 1e-12);
        }
    }

    #[test]
    fn solve_matches_and_drops_a_dependent_column() {
        let mut rng = Rng(17);
        let n = 6;
        let a: Vec<Vec<f64>> = (0..n).map(|_| (0..n).map(|_| rng.next()).collect()).collect();
        let mut qr = UpdatableQr::with_capacity(n);
        for k in 0..n {
            qr.append_row(&a[k][..k]);
            let col: Vec<f64> = (0..=k).map(|i| a[i][k]).collect();
            qr.append_column(&col);
        }
        let x_true: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
        let b: Vec<f64> = (0..n).map(|i| (0..n).map(|j| a[i][j] * x_true[j]).sum()).collect();
        let mut x = vec![0.0; n];
        assert_eq!(qr.solve(&b, &mut x, 1e-12), 0);
        for (xi, ti) in x.iter().zip(&x_true) {
            assert!((xi - ti).abs() < 1e-10, "{xi} vs {ti}");
        }

        // Symmetric PSD, rank 2 (a Gram matrix of 3 vectors in the plane): a consistent
        // right-hand side is solved exactly with the dependent unknown set to 0.
        let v = [[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]];
        let g: Vec<Vec<f64>> =
            (0..3).map(|i| (0..3).map(|j| v[i][0] * v[j][0] + v[i][1] * v[j][1]).collect()).collect();
        let mut qr = UpdatableQr::with_capacity(3);
        for k in 0..3 {
            qr.append_row(&g[k][..k]);
            let col: Vec<f64> = (0..=k).map(|i| g[i][k]).collect();
            qr.append_column(&col);
        }
        assert!(qr.r_diag(2).abs() < 1e-14);
        let b = [1.0, 4.0, 3.0]; // = G (1, 1, 0)
        let mut x = [0.0; 3];
        assert_eq!(qr.solve(&b, &mut x, 1e-12), 1);
        assert_eq!(x[2], 0.0);
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12, "{x:?}");
    }
}
