//! [`MobyLcpSolver`]: Drake's `MobyLcpSolver` (`docs/rigid.md` §8) — Lemke, its progressively
//! regularized wrapper, the "fast" principal pivoting solver and its regularized wrapper.

use super::fast::{FastWorkspace, fast};
use super::lemke::{LemkeSettings, LemkeVariant, LemkeWorkspace, lemke};
use super::problem::{LcpError, LcpOutcome, LcpProblem, copy_matrix, mat_vec_plus, moby_zero_tolerance};

/// Parameters of [`MobyLcpSolver`]. `Default` = Drake's defaults (automatic tolerances, Drake's
/// pivoting rules).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MobyLcpParameters {
    /// Lemke's pivot tolerance: a ratio-test candidate needs `dⱼ > pivot_tolerance`. `≤ 0`:
    /// automatic, `n · max(1, max|Mᵢⱼ|) · eps` (§8.1). Default −1.
    pub pivot_tolerance: f64,
    /// Zero tolerance. Lemke and the regularized wrappers: `≤ 0` means automatic,
    /// `n · max|Mᵢⱼ| · 10 eps`; Fast: `< 0` means automatic (0 is a valid tolerance there).
    /// Default −1.
    pub zero_tolerance: f64,
    /// Lemke's pivoting rules. Default [`LemkeVariant::Drake`].
    pub variant: LemkeVariant,
    /// Lemke's pivot limit; 0 = the variant's default (`min(1000, 50n)` for Drake's rules,
    /// `max(1000, 50n)` for the lexicographic rule). Default 0.
    pub max_pivots: usize,
    /// Lemke refactors its basis inverse after this many rank-1 updates; 0 = `max(2n, 50)`.
    /// Default 0.
    pub refactor_interval: usize,
}

impl Default for MobyLcpParameters {
    fn default() -> Self {
        Self {
            pivot_tolerance: -1.0,
            zero_tolerance: -1.0,
            variant: LemkeVariant::Drake,
            max_pivots: 0,
            refactor_interval: 0,
        }
    }
}

impl MobyLcpParameters {
    /// Rejects NaN tolerances.
    pub fn validate(&self) -> Result<(), LcpError> {
        if self.pivot_tolerance.is_nan() {
            return Err(LcpError::InvalidParameter("pivot_tolerance is NaN"));
        }
        if self.zero_tolerance.is_nan() {
            return Err(LcpError::InvalidParameter("zero_tolerance is NaN"));
        }
        Ok(())
    }
}

/// Shifts `10^e · I` tried by a regularized wrapper: `e = min_exp, min_exp + step_exp, …` while
/// `e < max_exp` (Drake's loop bound: `10^max_exp` itself is never tried, quirk Q6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegularizationSchedule {
    /// First exponent.
    pub min_exp: i32,
    /// Exponent increment, > 0.
    pub step_exp: i32,
    /// Exclusive upper bound of the exponent.
    pub max_exp: i32,
}

impl RegularizationSchedule {
    /// `SolveLcpLemkeRegularized`'s defaults: −20, 1, 1 (shifts 10⁻²⁰ … 10⁰).
    pub const LEMKE_DEFAULT: Self = Self { min_exp: -20, step_exp: 1, max_exp: 1 };
    /// `SolveLcpFastRegularized`'s defaults: −20, 4, 20 (shifts 10⁻²⁰, 10⁻¹⁶, …, 10¹⁶).
    pub const FAST_DEFAULT: Self = Self { min_exp: -20, step_exp: 4, max_exp: 20 };
    /// The impact solver's schedule (§6.4): −16, 1, 1.
    pub const IMPACT: Self = Self { min_exp: -16, step_exp: 1, max_exp: 1 };

    /// Requires `step_exp > 0`.
    pub fn validate(&self) -> Result<(), LcpError> {
        if self.step_exp <= 0 {
            return Err(LcpError::InvalidParameter("step_exp must be > 0"));
        }
        Ok(())
    }
}

/// Drake's `MobyLcpSolver`: solves `w = M z + q, 0 ≤ z ⊥ w ≥ 0` by Lemke's method or by
/// principal pivoting, optionally with progressive Tikhonov regularization.
///
/// Results stay in the solver: [`MobyLcpSolver::z`], [`MobyLcpSolver::w`] (`M z + q` with the
/// **unregularized** M), [`MobyLcpSolver::num_pivots`], [`MobyLcpSolver::outcome`]. Workspaces
/// only grow; repeated solves of one size allocate nothing.
///
/// No warm start for Lemke (Drake's is dead code, quirk Q5).
#[derive(Debug, Clone, Default)]
pub struct MobyLcpSolver {
    params: MobyLcpParameters,
    lemke_ws: LemkeWorkspace,
    fast_ws: FastWorkspace,
    /// Contiguous copies of M (column-major n×n) and q; M + 10ᵉI; a length-n scratch.
    m: Vec<f64>,
    q: Vec<f64>,
    m_shift: Vec<f64>,
    scratch: Vec<f64>,
    z: Vec<f64>,
    w: Vec<f64>,
    n: usize,
    pivots: usize,
    outcome: Option<LcpOutcome>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Method {
    Lemke,
    Fast,
}

impl MobyLcpSolver {
    /// A solver with Drake's default parameters.
    pub fn new() -> Self {
        Self::default()
    }

    /// A solver with the given (validated) parameters.
    pub fn with_parameters(params: MobyLcpParameters) -> Result<Self, LcpError> {
        params.validate()?;
        Ok(Self { params, ..Self::default() })
    }

    /// Current parameters.
    pub fn parameters(&self) -> &MobyLcpParameters {
        &self.params
    }

    /// Replaces the parameters (validated).
    pub fn set_parameters(&mut self, params: MobyLcpParameters) -> Result<(), LcpError> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// Grows every workspace for problems of size `n`.
    pub fn reserve(&mut self, n: usize) {
        self.lemke_ws.reserve(n);
        self.fast_ws.reserve(n);
        crate::linalg::grow(&mut self.m, n * n);
        crate::linalg::grow(&mut self.m_shift, n * n);
        crate::linalg::grow(&mut self.q, n);
        crate::linalg::grow(&mut self.scratch, n);
        crate::linalg::grow(&mut self.z, n);
        crate::linalg::grow(&mut self.w, n);
    }

    /// `ComputeZeroTolerance(M) = n · max|Mᵢⱼ| · 10 eps` (§8.1).
    pub fn compute_zero_tolerance(problem: &LcpProblem<'_>) -> f64 {
        moby_zero_tolerance(problem.m())
    }

    /// `z` of the last solve (length n; zeros after most failures).
    pub fn z(&self) -> &[f64] {
        &self.z[..self.n]
    }

    /// `w = M z + q` of the last solve, with the problem's (unregularized) M.
    pub fn w(&self) -> &[f64] {
        &self.w[..self.n]
    }

    /// Pivots (Lemke) or iterations (Fast) of the last solve; the regularized wrappers report
    /// the total over their attempts.
    pub fn num_pivots(&self) -> usize {
        self.pivots
    }

    /// Outcome of the last solve, `None` before the first.
    pub fn outcome(&self) -> Option<LcpOutcome> {
        self.outcome
    }

    /// Copies the problem into contiguous storage; returns n.
    fn begin(&mut self, problem: &LcpProblem<'_>) -> usize {
        let n = problem.dim();
        self.reserve(n);
        self.n = n;
        copy_matrix(problem.m(), &mut self.m);
        for (d, s) in self.q[..n].iter_mut().zip(problem.q().iter()) {
            *d = *s;
        }
        n
    }

    fn finish(&mut self, outcome: LcpOutcome, pivots: usize) -> LcpOutcome {
        let n = self.n;
        mat_vec_plus(&self.m[..n * n], n, &self.z[..n], &self.q[..n], &mut self.w[..n]);
        self.pivots = pivots;
        self.outcome = Some(outcome);
        outcome
    }

    fn settings(&self, zero_tol: f64) -> LemkeSettings {
        LemkeSettings {
            piv_tol: self.params.pivot_tolerance,
            zero_tol,
            variant: self.params.variant,
            max_pivots: self.params.max_pivots,
            refactor_interval: self.params.refactor_interval,
        }
    }

    /// Drake's `SolveLcpLemke` (§8.2) with this solver's tolerances and variant. `Solved` means
    /// the artificial variable left the basis; like Drake's callers, verify the solution if it
    /// matters.
    pub fn solve_lemke(&mut self, problem: &LcpProblem<'_>) -> LcpOutcome {
        let n = self.begin(problem);
        let s = self.settings(self.params.zero_tolerance);
        let (o, p) = lemke(&mut self.lemke_ws, &self.m[..n * n], &self.q[..n], &s, &mut self.z);
        self.finish(o, p)
    }

    /// Drake's `SolveLcpLemkeRegularized` (§8.3): plain Lemke first (accepted with non-strict
    /// checks), then `M + 10ᵉ I` for each exponent of `schedule` (strict checks), the zero
    /// tolerance computed once from the unregularized M. On failure `z` is what the last
    /// attempt left.
    pub fn solve_lemke_regularized(
        &mut self,
        problem: &LcpProblem<'_>,
        schedule: RegularizationSchedule,
    ) -> Result<LcpOutcome, LcpError> {
        schedule.validate()?;
        Ok(self.regularized(problem, schedule, Method::Lemke))
    }

    /// Drake's `SolveLcpFast` (§8.4), cold start.
    pub fn solve_fast(&mut self, problem: &LcpProblem<'_>) -> LcpOutcome {
        let n = self.begin(problem);
        let (o, p) = fast(
            &mut self.fast_ws,
            &self.m[..n * n],
            &self.q[..n],
            self.params.zero_tolerance,
            false,
            &mut self.z,
        );
        self.finish(o, p)
    }

    /// Drake's `SolveLcpFast` (§8.4) warm-started from `z0` (length n): index i starts basic
    /// (`zᵢ = 0`) iff `|z0ᵢ| < tol`.
    pub fn solve_fast_warm(&mut self, problem: &LcpProblem<'_>, z0: &[f64]) -> Result<LcpOutcome, LcpError> {
        if z0.len() != problem.dim() {
            return Err(LcpError::WarmStartLength { got: z0.len(), expected: problem.dim() });
        }
        let n = self.begin(problem);
        self.z[..n].copy_from_slice(z0);
        let (o, p) = fast(
            &mut self.fast_ws,
            &self.m[..n * n],
            &self.q[..n],
            self.params.zero_tolerance,
            true,
            &mut self.z,
        );
        Ok(self.finish(o, p))
    }

    /// Drake's `SolveLcpFastRegularized` (§8.5): as the Lemke wrapper, with Fast, and `z` passed
    /// on as the next attempt's warm start.
    pub fn solve_fast_regularized(
        &mut self,
        problem: &LcpProblem<'_>,
        schedule: RegularizationSchedule,
    ) -> Result<LcpOutcome, LcpError> {
        schedule.validate()?;
        Ok(self.regularized(problem, schedule, Method::Fast))
    }

    fn regularized(
        &mut self,
        problem: &LcpProblem<'_>,
        schedule: RegularizationSchedule,
        method: Method,
    ) -> LcpOutcome {
        let n = self.begin(problem);
        if n == 0 {
            return self.finish(LcpOutcome::Solved, 0);
        }
        let zt = self.params.zero_tolerance;
        let tol = if zt > 0.0 { zt } else { moby_zero_tolerance(problem.m()) };
        let s = self.settings(tol);
        let Self { lemke_ws, fast_ws, m, q, m_shift, scratch, z, .. } = self;
        let (m, q, z, scratch) = (&m[..n * n], &q[..n], &mut z[..n], &mut scratch[..n]);
        let (o, mut total) = match method {
            Method::Lemke => lemke(lemke_ws, m, q, &s, z),
            Method::Fast => fast(fast_ws, m, q, tol, false, z),
        };
        if o.is_solved() && accept(m, q, z, tol, false, scratch) {
            return self.finish(LcpOutcome::Solved, total);
        }
        let mut e = schedule.min_exp;
        while e < schedule.max_exp {
            let shift = 10f64.powf(e as f64);
            let ms = &mut m_shift[..n * n];
            ms.copy_from_slice(m);
            for i in 0..n {
                ms[i + i * n] += shift;
            }
            let (o, p) = match method {
                Method::Lemke => lemke(lemke_ws, ms, q, &s, z),
                Method::Fast => fast(fast_ws, ms, q, tol, true, z),
            };
            total += p;
            if o.is_solved() && accept(ms, q, z, tol, true, scratch) {
                return self.finish(LcpOutcome::Solved, total);
            }
            e = e.saturating_add(schedule.step_exp);
        }
        self.finish(LcpOutcome::RegularizationFailed, total)
    }
}

/// The regularized wrappers' acceptance test (§8.3 steps 3–4): `min z ≥ −tol`,
/// `min w ≥ −tol`, `min(z∘w) ≥ −tol`, `max(z∘w) < tol` (strict: `>` for the first three).
fn accept(m: &[f64], q: &[f64], z: &[f64], tol: f64, strict: bool, w: &mut [f64]) -> bool {
    let n = q.len();
    mat_vec_plus(m, n, z, q, w);
    let ge = |v: f64| if strict { v > -tol } else { v >= -tol };
    let mut max_zw = f64::NEG_INFINITY;
    for i in 0..n {
        let zw = z[i] * w[i];
        if !(ge(z[i]) && ge(w[i]) && ge(zw)) {
            return false;
        }
        if zw > max_zw {
            max_zw = zw;
        }
    }
    max_zw < tol
}
