//! What every LCP solver of [`crate::lcp`] shares: the problem view, the residual test every
//! answer passes before it is called solved, the tolerances of `docs/rigid.md` §8.1/§9.4 and the
//! numerical helpers of §8.6.

use std::fmt;

use nalgebra::{DMatrixView, DVectorView};

use super::{LcpError, LcpOutcome};

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
    /// match that of q.") and that every entry of `M` and `q` is finite (a NaN or ±inf would only
    /// poison the answer: [`LcpError::NonFinite`] names the first one, `q` before `M`).
    pub fn new(m: DMatrixView<'a, f64>, q: DVectorView<'a, f64>) -> Result<Self, LcpError> {
        if m.nrows() != q.len() || m.ncols() != q.len() {
            return Err(LcpError::DimensionMismatch { rows: m.nrows(), cols: m.ncols(), q: q.len() });
        }
        if let Some(i) = q.iter().position(|x| !x.is_finite()) {
            return Err(LcpError::NonFinite { argument: "q", row: i, col: None, value: q[i] });
        }
        for (j, col) in m.column_iter().enumerate() {
            if let Some(i) = col.iter().position(|x| !x.is_finite()) {
                return Err(LcpError::NonFinite { argument: "M", row: i, col: Some(j), value: col[i] });
            }
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

/// IEEE double machine epsilon (`docs/rigid.md` §1).
pub(crate) const EPS: f64 = f64::EPSILON;

/// `max |Mᵢⱼ|` (NaN entries are skipped, as `std::max`-style comparisons skip them).
pub(crate) fn max_abs<'a>(m: impl IntoIterator<Item = &'a f64>) -> f64 {
    m.into_iter().fold(0.0f64, |a, &x| if x.abs() > a { x.abs() } else { a })
}

/// Moby's zero tolerance `n · max|Mᵢⱼ| · 10 eps` (§8.1). `M` is column-major `n×n`.
pub fn moby_zero_tolerance(m: DMatrixView<'_, f64>) -> f64 {
    m.nrows() as f64 * max_abs(m.iter()) * 10.0 * EPS
}

/// Moby Lemke's automatic pivot tolerance `n · max(1, max|Mᵢⱼ|) · eps` (§8.1).
pub fn moby_pivot_tolerance(m: DMatrixView<'_, f64>) -> f64 {
    m.nrows() as f64 * max_abs(m.iter()).max(1.0) * EPS
}

/// The unrevised solver's zero tolerance `n · max|Mᵢⱼ| · 2.2 eps` (§9.4 step 2).
pub fn unrevised_zero_tolerance(m: DMatrixView<'_, f64>) -> f64 {
    m.nrows() as f64 * max_abs(m.iter()) * 2.2 * EPS
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

/// [`copy_matrix`], returning `max |Mᵢⱼ|` of the copy ([`max_abs`]'s semantics).
pub(crate) fn copy_matrix_max_abs(src: DMatrixView<'_, f64>, dst: &mut Vec<f64>) -> f64 {
    copy_matrix(src, dst);
    let (r, c) = src.shape();
    max_abs(&dst[..r * c])
}

/// Unrevised Lemke's `IsSolution(M, q, z, tol)` (§9.6): `tol ≤ 0` means
/// `n · max|M| · 2.2 eps`. True iff `min z > −tol`, `min(Mz + q) > −tol` and
/// `|zᵀ(Mz + q)| < 10 · n · tol`; with a zero tolerance (`M = 0`) an exact zero passes each test
/// (`docs/rigid.md` §8.1). Dimension mismatches return `false`.
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
    above_neg_tol(min_z, tol) && above_neg_tol(min_w, tol) && below_tol(dot.abs(), 10.0 * n as f64 * tol)
}

/// Drake's strict `x > −tol` ("not negative" against a zero tolerance), except that an exact zero
/// passes a zero tolerance: the computed tolerances are 0 for `M = 0` (`n · max|Mᵢⱼ| · c · eps`),
/// and `0 > −0` is false, which made z = 0 or wᵢ = 0 "negative" (`docs/rigid.md` §8.1). With a
/// positive tolerance this is Drake's comparison unchanged.
pub(crate) fn above_neg_tol(x: f64, tol: f64) -> bool {
    x > -tol || (x == 0.0 && tol == 0.0)
}

/// Drake's strict `x < tol`, with the same exception as [`above_neg_tol`] for `x = tol = 0`.
fn below_tol(x: f64, tol: f64) -> bool {
    x < tol || (x == 0.0 && tol == 0.0)
}

/// Default relative tolerance `τ` of the residual test ([`LcpResidual`]): `1e-11`.
///
/// Measured (tests `lcp_truth`): on Siconos' files and 327 seeded contact LCPs (n = 4…200) the
/// answers of the unshifted algorithms come within 2.5e-6 of the bound (violations below
/// `3e-17 · n · s`), so a correct answer passes with a margin of about 10⁵ for round-off in
/// ill-conditioned problems; the failures the test exists for (residuals of 1e-3 after a
/// regularization, `±1e39`, inf, NaN) miss it by orders of magnitude. A regularized answer passes
/// when its shift moved `w` by less than `tol`.
pub const DEFAULT_RESIDUAL_TOLERANCE: f64 = 1e-11;

/// The residual test every LCP answer passes before a solver calls it solved, and its figures
/// (`docs/rigid.md` §8.7).
///
/// For the returned `z` and `w = M z + q` (recomputed with the problem's **unregularized** `M`,
/// column by column in double precision):
///
/// ```text
/// sᵢ  = max(‖q‖∞, ‖M‖max, maxⱼ |Mᵢⱼ zⱼ|)        the largest term of row i of w
/// tolᵢ = τ · n · sᵢ                              τ = residual_tolerance (default 1e-11)
/// s   = max(‖q‖∞, ‖M‖max · max(1, ‖z‖∞))      ‖M‖max = max |Mᵢⱼ|, ‖v‖∞ = max |vᵢ|
/// tol = τ · n · s                               the scale of z's round-off
/// pass ⇔ z and w finite, min zᵢ ≥ −tol, wᵢ ≥ −tolᵢ for every i,
///        |zᵢ wᵢ| ≤ tolᵢ · ‖z‖∞ + tol · |wᵢ| for every i
/// ```
///
/// `sᵢ` is the size of the largest term that enters `wᵢ`, the scale of its round-off, with the
/// problem's own size for z of size 1 as a floor (the unitless convention of Drake's zero
/// tolerances): an entry of z that does not enter row i does not enter `sᵢ`, so an answer that
/// runs off along a ray (‖z‖∞ ≈ 1e11 while the rows of w it leaves negative have O(1) terms)
/// fails. `n` covers the accumulation over a row.
/// z is checked against the scale of the whole problem (its round-off comes from a solve with
/// all of M). Complementarity per entry: a basic `zᵢ` may carry a `wᵢ` of size `tolᵢ`, a basic
/// `wᵢ` a `zᵢ` of size `tol`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LcpResidual {
    /// The absolute tolerance of z, `tol = τ · n · s` (0 for n = 0).
    pub tolerance: f64,
    /// Index and value of the smallest `zᵢ` (`(0, +inf)` for n = 0).
    pub min_z: (usize, f64),
    /// Index and value of the smallest `wᵢ`.
    pub min_w: (usize, f64),
    /// The entry of w furthest below its row's bound: `(i, wᵢ, tolᵢ)` maximizing `−wᵢ − tolᵢ`
    /// (`(0, +inf, 0)` for n = 0).
    pub worst_w: (usize, f64, f64),
    /// Index and value of `|zᵢ wᵢ|` for the entry furthest above its bound (`(0, 0)` for n = 0).
    pub max_zw: (usize, f64),
    /// That entry's bound `tolᵢ · ‖z‖∞ + tol · |wᵢ|`.
    pub complementarity_bound: f64,
    /// The first NaN or ±inf entry: `("z" or "w", index, value)`.
    pub non_finite: Option<(&'static str, usize, f64)>,
}

impl Default for LcpResidual {
    /// The figures of the empty problem (which passes).
    fn default() -> Self {
        Self {
            tolerance: 0.0,
            min_z: (0, f64::INFINITY),
            min_w: (0, f64::INFINITY),
            worst_w: (0, f64::INFINITY, 0.0),
            max_zw: (0, 0.0),
            complementarity_bound: 0.0,
            non_finite: None,
        }
    }
}

impl LcpResidual {
    /// Evaluates the test on `z` with `w = M z + q` already computed (all slices of length n),
    /// `m` contiguous column-major n×n and the relative tolerance `tau`. Allocation-free.
    pub(crate) fn evaluate(m: &[f64], q: &[f64], z: &[f64], w: &[f64], tau: f64) -> Self {
        let n = q.len();
        Self::evaluate_with(n, |i, j| m[j * n + i], q, z, w, tau)
    }

    /// [`Self::evaluate`] with `M` given entry by entry (`m(i, j) = Mᵢⱼ`).
    fn evaluate_with(
        n: usize,
        m: impl Fn(usize, usize) -> f64,
        q: &[f64],
        z: &[f64],
        w: &[f64],
        tau: f64,
    ) -> Self {
        let mut r = Self::default();
        if n == 0 {
            return r;
        }
        let (mut max_q, mut max_z, mut max_m) = (0.0f64, 0.0f64, 0.0f64);
        for i in 0..n {
            let (zi, wi) = (z[i], w[i]);
            if r.non_finite.is_none() {
                if !zi.is_finite() {
                    r.non_finite = Some(("z", i, zi));
                } else if !wi.is_finite() {
                    r.non_finite = Some(("w", i, wi));
                }
            }
            max_q = max_q.max(q[i].abs());
            max_z = max_z.max(zi.abs());
            // Strict `<` keeps the first index; NaN never becomes the minimum (it is reported
            // through `non_finite`).
            if zi < r.min_z.1 {
                r.min_z = (i, zi);
            }
            if wi < r.min_w.1 {
                r.min_w = (i, wi);
            }
        }
        for j in 0..n {
            for i in 0..n {
                max_m = max_m.max(m(i, j).abs());
            }
        }
        let s = max_q.max(max_m * max_z.max(1.0));
        r.tolerance = tau * n as f64 * s;
        // Each row's scale is at least the problem's own size with z of size 1 (the unitless
        // convention of Drake's zero tolerances), never the size of z itself.
        let floor = max_q.max(max_m);
        let (mut worst_w, mut worst_zw) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
        for i in 0..n {
            let si = (0..n).fold(floor, |a, j| a.max((m(i, j) * z[j]).abs()));
            let tol_i = tau * n as f64 * si;
            let (zi, wi) = (z[i], w[i]);
            // `>` keeps the first index; a NaN excess is reported through `non_finite`.
            let excess = -wi - tol_i;
            if excess > worst_w {
                worst_w = excess;
                r.worst_w = (i, wi, tol_i);
            }
            let bound = tol_i * max_z + r.tolerance * wi.abs();
            let zw = (zi * wi).abs();
            if zw - bound > worst_zw {
                worst_zw = zw - bound;
                r.max_zw = (i, zw);
                r.complementarity_bound = bound;
            }
        }
        r
    }

    /// Whether z passed the test.
    pub fn passed(&self) -> bool {
        self.non_finite.is_none()
            && self.min_z.1 >= -self.tolerance
            && self.worst_w.1 >= -self.worst_w.2
            && self.max_zw.1 <= self.complementarity_bound
    }

    /// What failed, for messages: the first non-finite entry, else the worst violated condition
    /// with its index and bound; `None` when the test passed. (Allocates; [`Self::write_violation`]
    /// writes the same text without.)
    pub fn violation(&self) -> Option<String> {
        let mut s = String::new();
        matches!(self.write_violation(&mut s), Ok(true)).then_some(s)
    }

    /// Writes [`Self::violation`]'s text into `out`, nothing when the test passed; whether it
    /// wrote.
    pub fn write_violation<W: fmt::Write>(&self, out: &mut W) -> Result<bool, fmt::Error> {
        if let Some((v, i, x)) = self.non_finite {
            write!(out, "{v}[{i}] = {x} is not finite")?;
            return Ok(true);
        }
        let tol = self.tolerance;
        if self.min_z.1 < -tol {
            write!(out, "z[{}] = {:e} < -tol = {:e}", self.min_z.0, self.min_z.1, -tol)?;
            return Ok(true);
        }
        let (i, wi, tol_i) = self.worst_w;
        if wi < -tol_i {
            write!(out, "w[{i}] = {wi:e} < -tol[{i}] = {:e} (row {i}'s terms)", -tol_i)?;
            return Ok(true);
        }
        if self.max_zw.1 > self.complementarity_bound {
            let i = self.max_zw.0;
            write!(out, "|z[{i}] w[{i}]| = {:e} > {:e}", self.max_zw.1, self.complementarity_bound)?;
            return Ok(true);
        }
        Ok(false)
    }
}

/// The residual test ([`LcpResidual`]) of `z` for a problem, with relative tolerance `tau`
/// (`≤ 0`: [`DEFAULT_RESIDUAL_TOLERANCE`]). Allocates `w` (length n).
pub fn residual_test(problem: &LcpProblem<'_>, z: &[f64], tau: f64) -> Result<LcpResidual, LcpError> {
    let n = problem.dim();
    if z.len() != n {
        return Err(LcpError::SolutionLength { got: z.len(), expected: n });
    }
    let tau = if tau > 0.0 { tau } else { DEFAULT_RESIDUAL_TOLERANCE };
    let (m, q) = (problem.m(), problem.q());
    let mut w = vec![0.0; n];
    for i in 0..n {
        w[i] = q[i];
    }
    for (j, &zj) in z.iter().enumerate() {
        for (i, wi) in w.iter_mut().enumerate() {
            *wi += m[(i, j)] * zj;
        }
    }
    Ok(LcpResidual::evaluate_with(n, |i, j| m[(i, j)], q.as_slice(), z, &w, tau))
}

/// What a solver returns for an answer whose algorithm reported success: `Solved` when z passed
/// the residual test (or, with `drake_verdict` compatibility, whenever it is finite),
/// `NonFiniteSolution` for a NaN/inf, else `ResidualTestFailed`. Other outcomes pass through.
pub(crate) fn verdict(drake: LcpOutcome, residual: &LcpResidual, drake_compatible: bool) -> LcpOutcome {
    if !drake.is_solved() {
        drake
    } else if residual.non_finite.is_some() {
        LcpOutcome::NonFiniteSolution
    } else if drake_compatible || residual.passed() {
        LcpOutcome::Solved
    } else {
        LcpOutcome::ResidualTestFailed
    }
}
