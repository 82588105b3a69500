//! What every LCP solver of [`crate::lcp`] shares: the problem view, the usage-error enum, the
//! outcome enum with its status codes, the tolerances of `docs/rigid.md` §8.1/§9.4 and the
//! numerical helpers of §8.6.

use nalgebra::{DMatrixView, DVectorView};

/// A linear complementarity problem `w = M z + q`, `z ≥ 0`, `w ≥ 0`, `zᵀw = 0`, borrowed.
///
/// `M` is `n×n`, column-major (any column stride, unit row stride); `q` has length `n`.
/// Unitless: the solvers never interpret the numbers.
#[derive(Debug, Clone, Copy)]
pub struct LcpProblem<'a> {
    m: DMatrixView<'a, f64>,
    q: DVectorView<'a, f64>,
}

impl<'a> LcpProblem<'a> {
    /// Checks that `M` is `n×n` with `n = q.len()` (Drake: `logic_error` "M's dimensions do not
    /// match that of q.").
    pub fn new(m: DMatrixView<'a, f64>, q: DVectorView<'a, f64>) -> Result<Self, LcpError> {
        if m.nrows() != q.len() || m.ncols() != q.len() {
            return Err(LcpError::DimensionMismatch { rows: m.nrows(), cols: m.ncols(), q: q.len() });
        }
        Ok(Self { m, q })
    }

    /// The matrix `M` (`n×n`, column-major).
    pub fn m(&self) -> DMatrixView<'a, f64> {
        self.m
    }

    /// The vector `q` (length `n`).
    pub fn q(&self) -> DVectorView<'a, f64> {
        self.q
    }

    /// Problem size `n`.
    pub fn dim(&self) -> usize {
        self.q.len()
    }
}

/// Usage errors of the LCP solvers (C ABI: status 101/102).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LcpError {
    /// `M` is not `n×n` with `n = q.len()`.
    #[error("M's dimensions ({rows}×{cols}) do not match that of q (length {q})")]
    DimensionMismatch {
        /// Rows of M.
        rows: usize,
        /// Columns of M.
        cols: usize,
        /// Length of q.
        q: usize,
    },
    /// A warm-start vector whose length is not `n`.
    #[error("warm-start z has length {got}, expected {expected}")]
    WarmStartLength {
        /// Given length.
        got: usize,
        /// Problem size.
        expected: usize,
    },
    /// A parameter outside its domain (the message names it).
    #[error("invalid parameter: {0}")]
    InvalidParameter(&'static str),
}

/// How an LCP solve ended. A returned value, not an error: the solver's `z()` then holds the
/// zero vector (Drake's convention, PR #6947) unless stated otherwise.
///
/// Status codes for the C ABI: `Solved` is `CTS_STATUS_OK` (0); the failures use the range
/// 10–19, inside the 4–99 range `docs/c_api.md` §2 reserves for solver outcomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum LcpOutcome {
    /// The solver returned `true` (for Moby's Lemke and Fast: the algorithm terminated; callers
    /// verify the solution, as Drake's do; the unrevised solver verifies it itself).
    Solved = 0,
    /// Lemke: no blocking variable for the entering column (ray termination, §8.2 step 5.4,
    /// §9.3 "unblocked").
    RayTermination = 10,
    /// Moby Lemke: the Harris ratio test left no candidate ("zero tolerance too low", §8.2 5.5).
    ZeroToleranceTooLow = 11,
    /// The pivot / iteration limit was reached (Moby Lemke: `min(1000, 50n)`, Fast: `2n`,
    /// unrevised: `50n`).
    PivotLimit = 12,
    /// Unrevised Lemke: its cycling counter ran out of tied candidates (§9.3 step 3).
    CyclingDetected = 13,
    /// Unrevised Lemke: a basis solve failed its residual check (§9.2).
    LinearSolveFailed = 14,
    /// Unrevised Lemke: the artificial variable left but `IsSolution` rejected the result
    /// (§9.4 step 7.3).
    NotASolution = 15,
    /// A regularized wrapper tried every shift without an accepted solution (§8.3 step 5).
    /// Moby's regularized wrappers leave the last attempt's `z` in place.
    RegularizationFailed = 16,
}

impl LcpOutcome {
    /// The C ABI status code (see the type's docs).
    pub fn code(self) -> i32 {
        self as i32
    }

    /// `true` for [`LcpOutcome::Solved`].
    pub fn is_solved(self) -> bool {
        self == LcpOutcome::Solved
    }

    /// A static description.
    pub fn message(self) -> &'static str {
        match self {
            LcpOutcome::Solved => "LCP solved",
            LcpOutcome::RayTermination => "LCP: ray termination (no blocking variable)",
            LcpOutcome::ZeroToleranceTooLow => "LCP: ratio test found no candidate (zero tolerance too low)",
            LcpOutcome::PivotLimit => "LCP: pivot limit reached",
            LcpOutcome::CyclingDetected => "LCP: cycling detected",
            LcpOutcome::LinearSolveFailed => "LCP: basis solve failed its residual check",
            LcpOutcome::NotASolution => "LCP: terminated on a point that is not a solution",
            LcpOutcome::RegularizationFailed => "LCP: every regularization shift failed",
        }
    }
}

/// IEEE double machine epsilon (`docs/rigid.md` §1).
pub(crate) const EPS: f64 = f64::EPSILON;

/// `max |Mᵢⱼ|` (NaN entries are skipped, as `std::max`-style comparisons skip them).
pub(crate) fn max_abs(m: &[f64]) -> f64 {
    m.iter().fold(0.0f64, |a, &x| if x.abs() > a { x.abs() } else { a })
}

/// Moby's zero tolerance `n · max|Mᵢⱼ| · 10 eps` (§8.1). `M` is column-major `n×n`.
pub fn moby_zero_tolerance(m: DMatrixView<'_, f64>) -> f64 {
    let mut mx = 0.0f64;
    for x in m.iter() {
        if x.abs() > mx {
            mx = x.abs();
        }
    }
    m.nrows() as f64 * mx * 10.0 * EPS
}

/// The unrevised solver's zero tolerance `n · max|Mᵢⱼ| · 2.2 eps` (§9.4 step 2).
pub fn unrevised_zero_tolerance(m: DMatrixView<'_, f64>) -> f64 {
    let mut mx = 0.0f64;
    for x in m.iter() {
        if x.abs() > mx {
            mx = x.abs();
        }
    }
    m.nrows() as f64 * mx * 2.2 * EPS
}

/// First index of the minimum with C++ semantics (§8.6): start at 0, replace only on a strict
/// `<` (a NaN at index 0 is never replaced; NaNs elsewhere never chosen). Empty → 0.
pub(crate) fn argmin(v: &[f64]) -> usize {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate().skip(1) {
        if x < v[best] {
            best = i;
        }
    }
    best
}

/// `w = M z + q` for column-major `n×n` `M` (IEEE propagation).
pub(crate) fn mat_vec_plus(m: &[f64], n: usize, z: &[f64], q: &[f64], w: &mut [f64]) {
    w[..n].copy_from_slice(&q[..n]);
    for (j, &zj) in z[..n].iter().enumerate() {
        let col = &m[j * n..(j + 1) * n];
        for (wi, &c) in w[..n].iter_mut().zip(col) {
            *wi += c * zj;
        }
    }
}

/// Copies a view into contiguous column-major storage (`ld = nrows`), growing `dst` if needed.
pub(crate) fn copy_matrix(src: DMatrixView<'_, f64>, dst: &mut Vec<f64>) {
    let (r, c) = src.shape();
    crate::linalg::grow(dst, r * c);
    for j in 0..c {
        dst[j * r..(j + 1) * r].copy_from_slice(src.column(j).as_slice());
    }
}

/// Unrevised Lemke's `IsSolution(M, q, z, tol)` (§9.6): `tol ≤ 0` means
/// `n · max|M| · 2.2 eps`. True iff `min z > −tol`, `min(Mz + q) > −tol` and
/// `|zᵀ(Mz + q)| < 10 · n · tol`. Dimension mismatches return `false`.
///
/// Allocation-free (rows of `M z + q` are formed one at a time).
pub fn is_solution(m: DMatrixView<'_, f64>, q: DVectorView<'_, f64>, z: &[f64], tol: f64) -> bool {
    let n = q.len();
    if m.nrows() != n || m.ncols() != n || z.len() != n {
        return false;
    }
    let tol = if tol <= 0.0 { unrevised_zero_tolerance(m) } else { tol };
    let mut min_w = f64::INFINITY;
    let mut dot = 0.0;
    for i in 0..n {
        // Eigen's order: (M z)ᵢ accumulated over the columns, then + qᵢ.
        let mut wi = 0.0;
        for (j, &zj) in z.iter().enumerate() {
            wi += m[(i, j)] * zj;
        }
        wi += q[i];
        if wi < min_w || wi.is_nan() {
            min_w = wi;
        }
        dot += z[i] * wi;
    }
    check_solution(z, min_w, dot, tol)
}

/// [`is_solution`] on contiguous column-major `m` (n×n) and `q`, with `w` as scratch (length n).
pub(crate) fn is_solution_slice(m: &[f64], q: &[f64], z: &[f64], tol: f64, w: &mut [f64]) -> bool {
    let n = q.len();
    let w = &mut w[..n];
    w.fill(0.0);
    for (j, &zj) in z[..n].iter().enumerate() {
        for (wi, &a) in w.iter_mut().zip(&m[j * n..(j + 1) * n]) {
            *wi += a * zj;
        }
    }
    let mut min_w = f64::INFINITY;
    let mut dot = 0.0;
    for i in 0..n {
        let wi = w[i] + q[i];
        if wi < min_w || wi.is_nan() {
            min_w = wi;
        }
        dot += z[i] * wi;
    }
    check_solution(z, min_w, dot, tol)
}

fn check_solution(z: &[f64], min_w: f64, dot: f64, tol: f64) -> bool {
    let n = z.len();
    if n == 0 {
        return true;
    }
    let min_z = z.iter().copied().fold(f64::INFINITY, |a, x| if x < a || x.is_nan() { x } else { a });
    min_z > -tol && min_w > -tol && dot.abs() < 10.0 * n as f64 * tol
}
