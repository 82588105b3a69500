//! [`MobyLcpSolver`]: Drake's `MobyLcpSolver` (`docs/rigid.md` §8) — Lemke, its progressively
//! regularized wrapper, the "fast" principal pivoting solver and its regularized wrapper.

use super::fast::{FastWorkspace, fast};
use super::lemke::{LemkeRun, LemkeSettings, LemkeWorkspace, lemke};
use super::problem::{
    LcpProblem, LcpResidual, copy_matrix_max_abs, mat_vec_plus, moby_zero_tolerance, verdict,
};
use super::{LcpError, LcpOutcome, MobyLcpParameters, RegularizationSchedule};

/// Drake's `MobyLcpSolver`: solves `w = M z + q, 0 ≤ z ⊥ w ≥ 0` by Lemke's method or by
/// principal pivoting, optionally with progressive Tikhonov regularization.
///
/// Results stay in the solver: [`MobyLcpSolver::z`], [`MobyLcpSolver::w`] (`M z + q` with the
/// **unregularized** M), [`MobyLcpSolver::num_pivots`], [`MobyLcpSolver::outcome`], and what the
/// solve decided on: [`MobyLcpSolver::drake_verdict`], [`MobyLcpSolver::residual`],
/// [`MobyLcpSolver::regularization_exponent`], the tolerances used. Workspaces only grow;
/// repeated solves of one size allocate nothing.
///
/// Every algorithm's `Solved` means the returned z passed the residual test ([`LcpResidual`]);
/// where Drake returns `true` on a z that fails it, the outcome is
/// [`LcpOutcome::ResidualTestFailed`] (or [`LcpOutcome::NonFiniteSolution`]) with z readable.
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
    /// Drake's verdict, the residual test's figures, the accepted shift's exponent and the
    /// tolerances of the last solve.
    drake_verdict: bool,
    residual: LcpResidual,
    regularization: Option<i32>,
    used_pivot_tolerance: f64,
    used_zero_tolerance: f64,
    /// `max |Mᵢⱼ|` of the problem.
    max_m: f64,
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

    /// Drake's own verdict on the last solve: `true` where Drake's method returns `true` (the
    /// artificial left the basis; "fast" terminated; a regularized wrapper's acceptance test
    /// held), whether or not z passed the residual test. `false` before the first solve.
    pub fn drake_verdict(&self) -> bool {
        self.drake_verdict
    }

    /// The residual test ([`LcpResidual`]) of the last solve's z, with the unregularized M.
    pub fn residual(&self) -> &LcpResidual {
        &self.residual
    }

    /// The exponent `e` of the shift `10^e I` whose solution a regularized wrapper accepted;
    /// `None` when the unshifted problem's was accepted, nothing was accepted, or the last solve
    /// was not regularized.
    pub fn regularization_exponent(&self) -> Option<i32> {
        self.regularization
    }

    /// The accepted shift `10^e` (0 when [`MobyLcpSolver::regularization_exponent`] is `None`).
    pub fn regularization(&self) -> f64 {
        self.regularization.map_or(0.0, |e| 10f64.powf(f64::from(e)))
    }

    /// Lemke's pivot tolerance in the last solve (the resolved automatic value
    /// `n · max(1, max|Mᵢⱼ|) · eps`, of the accepted attempt's matrix for the regularized
    /// wrapper); NaN after a "fast" solve, which has none.
    pub fn pivot_tolerance_used(&self) -> f64 {
        self.used_pivot_tolerance
    }

    /// The zero tolerance of the last solve (the resolved automatic value).
    pub fn zero_tolerance_used(&self) -> f64 {
        self.used_zero_tolerance
    }

    /// Copies the problem into contiguous storage; returns n.
    fn begin(&mut self, problem: &LcpProblem<'_>) -> usize {
        let n = problem.dim();
        self.reserve(n);
        self.n = n;
        self.max_m = copy_matrix_max_abs(problem.m(), &mut self.m);
        for (d, s) in self.q[..n].iter_mut().zip(problem.q().iter()) {
            *d = *s;
        }
        self.regularization = None;
        self.used_pivot_tolerance = f64::NAN;
        self.used_zero_tolerance = f64::NAN;
        n
    }

    /// Records the results of a solve whose method said `drake` and returns the outcome: `w`,
    /// the residual test on z with the unregularized M, and the verdict.
    fn finish(&mut self, drake: LcpOutcome, pivots: usize) -> LcpOutcome {
        let n = self.n;
        mat_vec_plus(&self.m[..n * n], n, &self.z[..n], &self.q[..n], &mut self.w[..n]);
        self.residual = LcpResidual::evaluate(
            &self.m[..n * n],
            &self.q[..n],
            &self.z[..n],
            &self.w[..n],
            self.params.resolved_residual_tolerance(),
        );
        self.drake_verdict = drake.is_solved();
        let outcome = verdict(drake, &self.residual, self.params.drake_compatible_verdict);
        self.pivots = pivots;
        self.outcome = Some(outcome);
        outcome
    }

    fn record_lemke(&mut self, run: &LemkeRun) {
        self.used_pivot_tolerance = run.piv_tol;
        self.used_zero_tolerance = run.zero_tol;
    }

    fn settings(&self, zero_tol: f64) -> LemkeSettings {
        LemkeSettings {
            piv_tol: self.params.pivot_tolerance,
            zero_tol,
            variant: self.params.variant,
            max_pivots: self.params.max_pivots,
            refactor_interval: self.params.refactor_interval,
            max_m: self.max_m,
        }
    }

    /// Drake's `SolveLcpLemke` (§8.2) with this solver's tolerances and variant. Drake's
    /// verdict is that the artificial variable left the basis; `Solved` also requires the
    /// residual test (unless `drake_compatible_verdict`).
    pub fn solve_lemke(&mut self, problem: &LcpProblem<'_>) -> LcpOutcome {
        let n = self.begin(problem);
        let s = self.settings(self.params.zero_tolerance);
        let run = lemke(&mut self.lemke_ws, &self.m[..n * n], &self.q[..n], &s, &mut self.z);
        self.record_lemke(&run);
        self.finish(run.outcome, run.pivots)
    }

    /// Drake's `SolveLcpLemkeRegularized` (§8.3): plain Lemke first (accepted with non-strict
    /// checks), then `M + 10ᵉ I` for each exponent of `schedule` (strict checks), the zero
    /// tolerance computed once from the unregularized M. On failure `z` is what the last
    /// attempt left. An accepted z is then put to the residual test with the unregularized M:
    /// a solution of a shifted problem that does not solve the given one is
    /// [`LcpOutcome::ResidualTestFailed`] (its exponent in
    /// [`MobyLcpSolver::regularization_exponent`]), after a second pass over plain Lemke and the
    /// smaller shifts in Drake's arithmetic found no answer that passes (`docs/rigid.md` §8.3).
    pub fn solve_lemke_regularized(
        &mut self,
        problem: &LcpProblem<'_>,
        schedule: RegularizationSchedule,
    ) -> Result<LcpOutcome, LcpError> {
        schedule.validate()?;
        Ok(self.regularized(problem, schedule, Method::Lemke))
    }

    /// Drake's `SolveLcpFast` (§8.4), cold start. Drake's verdict is that the iteration ended
    /// (it may end on ±inf or NaN after singular sub-solves, §8.6); `Solved` also requires the
    /// residual test.
    pub fn solve_fast(&mut self, problem: &LcpProblem<'_>) -> LcpOutcome {
        let n = self.begin(problem);
        self.run_fast(n, false)
    }

    /// Drake's `SolveLcpFast` (§8.4) warm-started from `z0` (length n): index i starts basic
    /// (`zᵢ = 0`) iff `|z0ᵢ| < tol`.
    pub fn solve_fast_warm(&mut self, problem: &LcpProblem<'_>, z0: &[f64]) -> Result<LcpOutcome, LcpError> {
        if z0.len() != problem.dim() {
            return Err(LcpError::WarmStartLength { got: z0.len(), expected: problem.dim() });
        }
        if let Some(i) = z0.iter().position(|x| !x.is_finite()) {
            return Err(LcpError::NonFinite { argument: "z0", row: i, col: None, value: z0[i] });
        }
        let n = self.begin(problem);
        self.z[..n].copy_from_slice(z0);
        Ok(self.run_fast(n, true))
    }

    /// Drake's `SolveLcpFast` (§8.4) on the loaded problem of size `n`, from the z in place when
    /// `warm`.
    fn run_fast(&mut self, n: usize, warm: bool) -> LcpOutcome {
        let m = &self.m[..n * n];
        let (o, p, tol) =
            fast(&mut self.fast_ws, m, &self.q[..n], self.params.zero_tolerance, warm, &mut self.z);
        self.used_zero_tolerance = tol;
        self.finish(o, p)
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
        // ComputeZeroTolerance of the unregularized M (§8.3 step 2): n · max|Mᵢⱼ| · 10 eps.
        let tol = if zt > 0.0 { zt } else { n as f64 * self.max_m * 10.0 * super::problem::EPS };
        self.used_zero_tolerance = tol;
        let (accepted, mut total) = self.regularized_pass(schedule, method, tol, false);
        let outcome = self.finish_regularized(accepted, total);
        // Whether the answer is verified, by the residual test whatever the verdict flag says
        // (the flag changes the verdict, never the path).
        let verified = |s: &Self, accepted: Option<Option<i32>>| {
            accepted.is_some() && s.residual.non_finite.is_none() && s.residual.passed()
        };
        // Issue 33, item 5: on degenerate contact LCPs the shifts 10⁻¹⁶…10⁻⁸ put pivots of the
        // shift's size on the zero diagonal of the friction-cone rows, where the updated basis
        // inverse decides ties and tiny pivots by round-off the other way from Drake's fresh
        // factorizations: its attempts ended on rays, the pivot limit or bases the acceptance
        // test rejects where Drake's path is accepted at 10⁻¹⁴, and the wrapper went on to 10⁻⁵
        // (a z that fails the residual test for M, status 27, after 4000–5300 pivots). So when
        // the wrapper accepted a shift whose answer fails the residual test, the schedule is run
        // again in Drake's arithmetic (a fresh LU at every pivot, `refactor_interval = 1`), and
        // a verified answer of that pass is returned. Only shifts below the accepted one are
        // tried again (a larger shift moves the answer further from M's). When no attempt was
        // accepted at all, the problem is one Drake's path fails on too (e.g. one without a
        // solution): not retried. The pivot count is the total of both passes.
        let retry = method == Method::Lemke && self.params.refactor_interval != 1;
        if accepted.is_none() || verified(self, accepted) || !retry {
            return outcome;
        }
        let below = match accepted {
            Some(Some(e)) => RegularizationSchedule { max_exp: e, ..schedule },
            _ => RegularizationSchedule { max_exp: schedule.min_exp, ..schedule },
        };
        let (retried, pivots) = self.regularized_pass(below, method, tol, true);
        total += pivots;
        let second = self.finish_regularized(retried, total);
        if verified(self, retried) {
            return second;
        }
        // Neither pass passed the residual test, but the first accepted an attempt (status 27,
        // a z Drake's verdict accepts): that one is the answer, as without the second pass.
        // Lemke starts from z = 0, so running its attempt again reproduces it.
        let e = accepted.flatten();
        let (_, pivots) = self.regularized_attempt(method, tol, e, false);
        self.finish_regularized(accepted, total + pivots)
    }

    /// Records the result of a regularized wrapper: `accepted` is `None` when every attempt
    /// failed, `Some(None)` for the unshifted problem, `Some(Some(e))` for the shift 10ᵉ.
    fn finish_regularized(&mut self, accepted: Option<Option<i32>>, total: usize) -> LcpOutcome {
        match accepted {
            Some(e) => {
                let o = self.finish(LcpOutcome::Solved, total);
                self.regularization = e;
                o
            }
            None => self.finish(LcpOutcome::RegularizationFailed, total),
        }
    }

    /// One pass of a regularized wrapper (§8.3 steps 3–5) with the zero tolerance `tol`:
    /// the unshifted problem, then `M + 10ᵉ I` along `schedule` until an attempt is accepted.
    /// Returns the accepted attempt (see [`Self::finish_regularized`]) and the pivots of all.
    fn regularized_pass(
        &mut self,
        schedule: RegularizationSchedule,
        method: Method,
        tol: f64,
        drake_arithmetic: bool,
    ) -> (Option<Option<i32>>, usize) {
        let (accepted, mut total) = self.regularized_attempt(method, tol, None, drake_arithmetic);
        if accepted {
            return (Some(None), total);
        }
        let mut e = schedule.min_exp;
        // The schedule is validated (|e| <= 300, at most 100 rounds), so e never overflows.
        while e < schedule.max_exp {
            let (accepted, pivots) = self.regularized_attempt(method, tol, Some(e), drake_arithmetic);
            total += pivots;
            if accepted {
                return (Some(Some(e)), total);
            }
            e += schedule.step_exp;
        }
        (None, total)
    }

    /// One attempt of a regularized wrapper on `M` (`shift` `None`) or `M + 10ᵉ I`, accepted by
    /// §8.3's test (strict for a shifted matrix); `drake_arithmetic`: Lemke refactors at every
    /// pivot whatever `refactor_interval` says. Fast starts from the z left by the previous
    /// attempt (§8.5). Returns whether it was accepted and its pivots.
    fn regularized_attempt(
        &mut self,
        method: Method,
        tol: f64,
        shift: Option<i32>,
        drake_arithmetic: bool,
    ) -> (bool, usize) {
        let n = self.n;
        let mut s = self.settings(tol);
        if drake_arithmetic {
            s.refactor_interval = 1;
        }
        let Self { lemke_ws, fast_ws, m, q, m_shift, scratch, z, used_pivot_tolerance, .. } = self;
        let (q, z, scratch) = (&q[..n], &mut z[..n], &mut scratch[..n]);
        let ws_m = match shift {
            None => &m[..n * n],
            Some(e) => {
                let ms = &mut m_shift[..n * n];
                ms.copy_from_slice(&m[..n * n]);
                let shift = 10f64.powf(f64::from(e));
                for i in 0..n {
                    ms[i + i * n] += shift;
                }
                ms
            }
        };
        let shifted = shift.is_some();
        let (o, pivots) = match method {
            Method::Lemke => {
                // A shifted matrix has its own max |Mᵢⱼ|.
                let s = LemkeSettings { max_m: if shifted { -1.0 } else { s.max_m }, ..s };
                let run = lemke(lemke_ws, ws_m, q, &s, z);
                *used_pivot_tolerance = run.piv_tol;
                (run.outcome, run.pivots)
            }
            Method::Fast => {
                let (o, p, _) = fast(fast_ws, ws_m, q, tol, shifted, z);
                *used_pivot_tolerance = f64::NAN;
                (o, p)
            }
        };
        (o.is_solved() && accept(ws_m, q, z, tol, shifted, scratch), pivots)
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
