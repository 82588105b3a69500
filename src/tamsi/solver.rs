//! The TAMSI solver: the solver type, the Newton iteration and its results (`docs/tamsi.md` §4,
//! §5, §7). The iteration's state, which the sensitivities share, is in `iteration.rs`.

use nalgebra::{DMatrixViewMut, DVectorView, DVectorViewMut};

use super::form::Form;
use super::iteration::{FormOp, IterationState, Sensitivities, Workspace, run_in_form};
use super::problem::check_len;
use super::{
    CouplingScheme, TamsiError, TamsiIterationStats, TamsiOutcome, TamsiParameters, TamsiProblem, calc_alpha,
};
use crate::linalg::scalar::{cxx_max, cxx_min};
use crate::linalg::simd::Simd;

/// Contacts the workspace has room for before any problem is seen (Drake's initial capacity).
pub const INITIAL_CONTACT_CAPACITY: usize = 128;

/// Drake's `TamsiSolver` for `f64`: compliant contact with regularized friction, solved by Newton
/// iterations with the transition-aware limiter.
///
/// Each solve finds the next-step generalized velocities `v` (m/s, rad/s) of
/// `M v = p* + dt·Jnᵀ fn + dt·Jtᵀ ft(v)`, with normal forces either given (one-way) or following
/// the compliant law `fn(vn)` (two-way); see [`TamsiProblem`]. Forces are in N (not impulses).
///
/// The solver is built for one number of generalized velocities `nv` and any number of contacts;
/// its workspace grows to the largest problem seen and never shrinks, so repeated solves of
/// problems of the same size allocate nothing. Once used with one coupling scheme it refuses the
/// other until it is [resized](Self::resize) or cloned (Drake's rule).
///
/// After every solve, whatever its outcome, all outputs are evaluated at the returned `v` (at the
/// guess when `max_iterations = 0`), where Drake leaves some stale (`docs/c_api.md` §3.3).
#[derive(Debug)]
pub struct TamsiSolver {
    pub(super) nv: usize,
    pub(super) params: TamsiParameters,
    cos_theta_max: f64,
    scheme: Option<CouplingScheme>,
    pub(super) ws: Workspace,
    pub(super) results: Results,
    stats: TamsiIterationStats,
    /// Sensitivities of the last solve (`sensitivity.rs`).
    pub(super) sens: Sensitivities,
}

impl Clone for TamsiSolver {
    /// Deep copy of parameters, workspace and last results. Like Drake's `Clone()`, the copy is
    /// not bound to a coupling scheme.
    fn clone(&self) -> Self {
        Self {
            nv: self.nv,
            params: self.params,
            cos_theta_max: self.cos_theta_max,
            scheme: None,
            ws: self.ws.clone(),
            results: self.results.clone(),
            stats: self.stats.clone(),
            sens: self.sens.clone(),
        }
    }
}

/// Outputs of the last solve, all evaluated at its returned `v`.
#[derive(Debug, Clone, Default)]
pub(super) struct Results {
    pub(super) outcome: Option<TamsiOutcome>,
    pub(super) nc: usize,
    /// Time step of the last solve, s.
    pub(super) dt: f64,
    pub(super) v: Vec<f64>,
    vn: Vec<f64>,
    vt: Vec<f64>,
    fn_: Vec<f64>,
    ft: Vec<f64>,
    tau_f: Vec<f64>,
    tau: Vec<f64>,
}

/// One solve (§7): setup, the no-contact path or the Newton iteration, then the results.
struct SolveOp<'a, 'p> {
    problem: &'a TamsiProblem<'p>,
    dt: f64,
    params: &'a TamsiParameters,
    cos_theta_max: f64,
    stats: &'a mut TamsiIterationStats,
    results: &'a mut Results,
}

impl FormOp for SolveOp<'_, '_> {
    type Output = Result<TamsiOutcome, TamsiError>;

    #[inline(always)]
    fn run<S: Simd, F: Form>(self, simd: S, mut form: F, it: &mut IterationState) -> Self::Output {
        let Self { problem, dt, params, cos_theta_max, stats, results } = self;
        let nc = problem.num_contacts();
        let two_way = problem.coupling_scheme() == CouplingScheme::TwoWay;
        form.prepare(nc, dt, two_way)?;
        // `evaluated`: the contacts are already evaluated at the returned v (the iteration ends
        // right after evaluating them, except when it runs out of iterations).
        let (outcome, evaluated) = if nc == 0 {
            // §7.2: v = M⁻¹ p*, checked (Drake does not check).
            let factored = form.solve_without_contact(problem.p_star.as_slice(), &mut it.v);
            stats.num_iterations = 1;
            stats.residuals.push(0.0);
            (if factored { TamsiOutcome::Success } else { TamsiOutcome::LinearSolverFailed }, true)
        } else if !form.start(problem.p_star.as_slice(), &mut it.v) {
            (TamsiOutcome::LinearSolverFailed, false)
        } else {
            let outcome = newton(simd, &mut form, it, problem, dt, params, cos_theta_max, stats);
            (outcome, outcome != TamsiOutcome::MaxIterationsReached)
        };
        store_results(simd, &form, it, problem, dt, params, outcome, evaluated, results);
        Ok(outcome)
    }
}

/// The Newton iteration in Drake's exact order (§7.1), starting from `it.v`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn newton<S: Simd, F: Form>(
    simd: S,
    form: &mut F,
    it: &mut IterationState,
    problem: &TamsiProblem<'_>,
    dt: f64,
    params: &TamsiParameters,
    cos_theta_max: f64,
    stats: &mut TamsiIterationStats,
) -> TamsiOutcome {
    let nc = problem.num_contacts();
    let vs = params.stiction_tolerance;
    let rtol = params.relative_tolerance;
    let tolerance = rtol * vs;
    // No convergence is possible before one update.
    let mut vt_err = 2.0 * tolerance;
    let mut vn_err = 2.0 * tolerance;

    for _ in 0..params.max_iterations {
        // Drake evaluates the contacts at v, then tests the errors of the last step: known
        // before, so a converged iterate is only evaluated (the state returned at v).
        if cxx_max(vt_err, vn_err) < tolerance {
            it.contacts.evaluate(simd, form, problem, &it.v, dt, vs, tolerance);
            return TamsiOutcome::Success;
        }
        // The contacts at v, −R(v), the Newton step Δv and J Δv (one pool phase on islands,
        // which also evaluates each contact's limiter factor).
        let limiter = {
            #[inline(always)]
            |vt, dvt| calc_alpha(vt, dvt, cos_theta_max, vs, rtol)
        };
        let (factored, fused) = it.step(simd, form, problem, dt, vs, tolerance, &limiter);
        // A failure returns the contact state at v: a fused iteration left only vt current.
        // Inlined: a closure compiled outside the SIMD dispatch calls libm's `fma` (whose NaNs
        // differ from the instruction's: `parallel_islands.rs`, a NaN guess).
        let fail = {
            #[inline(always)]
            |it: &mut IterationState, outcome| {
                if fused {
                    it.contacts.evaluate(simd, &*form, problem, &it.v, dt, vs, tolerance);
                }
                outcome
            }
        };
        if !factored {
            return fail(it, TamsiOutcome::LinearSolverFailed);
        }
        let contacts = &it.contacts;

        // Errors of the full (un-limited) step.
        let (mut dvt2, mut dvn2) = (0.0, 0.0);
        for i in 0..nc {
            let (a, b, c) = (contacts.dvt[2 * i], contacts.dvt[2 * i + 1], contacts.dvn[i]);
            dvt2 += a * a + b * b;
            dvn2 += c * c;
        }
        vt_err = dvt2.sqrt();
        vn_err = dvn2.sqrt();

        // Drake's α: the minimum in contact order (a fused iteration computed it by chunks of
        // islands, the same value: `FusedOutputs`).
        let mut alpha = 1.0;
        if fused {
            match contacts.fused_alpha {
                Some(a) => alpha = a,
                None => return fail(it, TamsiOutcome::AlphaSolverFailed),
            }
        } else {
            for i in 0..nc {
                let vt = [contacts.vt[2 * i], contacts.vt[2 * i + 1]];
                match limiter(vt, [contacts.dvt[2 * i], contacts.dvt[2 * i + 1]]) {
                    Some(a) => alpha = cxx_min(alpha, a),
                    None => return fail(it, TamsiOutcome::AlphaSolverFailed),
                }
            }
        }
        // Drake aborts the process here; non-finite data can cause it.
        if !(alpha > 0.0 && alpha <= 1.0) {
            return fail(it, TamsiOutcome::AlphaSolverFailed);
        }
        let IterationState { v, rhs: dv, .. } = it;
        for (v, &d) in v.iter_mut().zip(dv.iter()) {
            *v += alpha * d;
        }
        stats.num_iterations += 1;
        stats.residuals.push(vt_err);
    }
    TamsiOutcome::MaxIterationsReached
}

/// Evaluates every output at `it.v` and keeps it (the C API's rule for all outcomes; on success
/// these are the values Drake reports). With `evaluated`, the contact state already is at `it.v`
/// (the last step of the iteration evaluated it there, with the same arithmetic) and is not
/// evaluated again.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn store_results<S: Simd, F: Form>(
    simd: S,
    form: &F,
    it: &mut IterationState,
    problem: &TamsiProblem<'_>,
    dt: f64,
    params: &TamsiParameters,
    outcome: TamsiOutcome,
    evaluated: bool,
    r: &mut Results,
) {
    let nv = it.v.len();
    let nc = problem.num_contacts();
    let vs = params.stiction_tolerance;
    let eps_v = params.relative_tolerance * vs;
    r.outcome = Some(outcome);
    r.nc = nc;
    r.dt = dt;
    r.v.copy_from_slice(&it.v);
    for v in [&mut r.vn, &mut r.fn_] {
        v.resize(nc, 0.0);
    }
    for v in [&mut r.vt, &mut r.ft] {
        v.resize(2 * nc, 0.0);
    }
    if nc == 0 {
        r.tau_f.fill(0.0);
        r.tau.fill(0.0);
        return;
    }
    let contacts = &mut it.contacts;
    if !evaluated {
        contacts.evaluate(simd, form, problem, &it.v, dt, vs, eps_v);
    }
    r.vn.copy_from_slice(&contacts.vn[..nc]);
    r.vt.copy_from_slice(&contacts.vt[..2 * nc]);
    r.fn_.copy_from_slice(&contacts.fn_[..nc]);
    for (i, ft) in r.ft.chunks_exact_mut(2).enumerate() {
        ft.copy_from_slice(&contacts.friction[i].ft);
    }
    // tau_f = Jtᵀ ft; tau = tau_f + Jnᵀ fn.
    let half = it.tmp2.len() / 2;
    let (tau_n, tau_t) = it.tmp2.split_at_mut(half);
    contacts.generalized_forces(simd, form, tau_n, tau_t);
    r.tau_f.copy_from_slice(&tau_t[..nv]);
    for ((t, &f), &n) in r.tau.iter_mut().zip(&r.tau_f).zip(tau_n.iter()) {
        *t = f + n;
    }
}

/// What [`TamsiSolver::calc_jacobian`] and [`TamsiSolver::calc_residual`] evaluate at `v`.
enum Evaluation<'o, 'm> {
    /// `−R(v)` into the workspace's `rhs`.
    Residual,
    /// The Newton matrix into the caller's matrix.
    Jacobian(&'o mut DMatrixViewMut<'m, f64>),
}

/// Evaluates the contacts at `it.v`, then the residual or the Newton matrix there.
struct EvaluateOp<'a, 'p, 'o, 'm> {
    problem: &'a TamsiProblem<'p>,
    dt: f64,
    params: &'a TamsiParameters,
    what: Evaluation<'o, 'm>,
}

impl FormOp for EvaluateOp<'_, '_, '_, '_> {
    type Output = Result<(), TamsiError>;

    #[inline(always)]
    fn run<S: Simd, F: Form>(self, simd: S, mut form: F, it: &mut IterationState) -> Self::Output {
        let Self { problem, dt, params, what } = self;
        let two_way = problem.coupling_scheme() == CouplingScheme::TwoWay;
        form.prepare(problem.num_contacts(), dt, two_way)?;
        let vs = params.stiction_tolerance;
        it.contacts.evaluate(simd, &form, problem, &it.v, dt, vs, params.relative_tolerance * vs);
        match what {
            Evaluation::Residual => it.negative_residual(simd, &form, problem.p_star.as_slice(), dt),
            Evaluation::Jacobian(out) => {
                let contacts = &it.contacts;
                form.write_newton_matrix(simd, two_way, |i| contacts.coefficients(i, two_way), out)?;
            }
        }
        Ok(())
    }
}

impl TamsiSolver {
    /// A solver for `nv` generalized velocities (0 is allowed), with default parameters.
    pub fn new(nv: usize) -> Self {
        let params = TamsiParameters::default();
        let mut s = Self {
            nv,
            params,
            cos_theta_max: params.theta_max.cos(),
            scheme: None,
            // 128 contacts' state, a few kB: allocated as every Vec is.
            ws: Workspace::new(nv, INITIAL_CONTACT_CAPACITY).expect("the initial contact capacity is small"),
            results: Results::default(),
            stats: TamsiIterationStats::default(),
            sens: Sensitivities::default(),
        };
        s.reserve_history();
        s.results.v.resize(nv, 0.0);
        s.results.tau_f.resize(nv, 0.0);
        s.results.tau.resize(nv, 0.0);
        s
    }

    /// Changes the number of generalized velocities (Drake `ResizeIfNeeded`). Drops the last
    /// results and the coupling-scheme binding. `nv` must be > 0.
    pub fn resize(&mut self, nv: usize) -> Result<(), TamsiError> {
        if nv == 0 {
            return Err(TamsiError::InvalidSize);
        }
        if nv != self.nv {
            let capacity = self.ws.iter.contacts.capacity;
            self.ws = Workspace::new(nv, capacity)?;
            self.ws.threads = self.params.num_threads;
            self.nv = nv;
        }
        self.scheme = None;
        self.results = Results::default();
        self.sens.invalidate();
        for v in [&mut self.results.v, &mut self.results.tau_f, &mut self.results.tau] {
            v.resize(nv, 0.0);
        }
        self.stats.reset();
        Ok(())
    }

    /// Number of generalized velocities.
    pub fn num_velocities(&self) -> usize {
        self.nv
    }

    /// Contacts the workspace holds without reallocating (starts at 128; grows to the largest
    /// `nc` seen).
    pub fn contact_capacity(&self) -> usize {
        self.ws.iter.contacts.capacity
    }

    /// Doubles a solve of `nc` contacts on `nv` velocities grows its workspace to, at least
    /// (`blocks`: block-sparse data, whose per-island storage is not counted), computed from the
    /// sizes alone: the per-contact state and results (21·nc), and for dense data the padded
    /// copies of Jn and Jt, the blocked contact rows and the Newton matrix's contact rows (about
    /// 9·nc·nv). Saturates at `usize::MAX` when the count overflows. Layers that accept data
    /// before solving (the C API's setters) probe it before they read any array: a problem whose
    /// workspace could never be allocated is refused at once (`docs/c_api.md` §1.11).
    ///
    /// Errors: [`TamsiError::TooLarge`] when dense data has more contact column blocks
    /// (nc·⌈nv/4⌉) than the workspace's 32-bit indices address, which no solve could handle.
    pub fn solve_workspace(nv: usize, nc: usize, blocks: bool) -> Result<usize, TamsiError> {
        // ContactState: vn, fn, g, dvn, vt, dvt (8 per contact), the limiter factor (2) and the
        // friction state; Results: vn, fn, vt, ft (6 per contact).
        let per_contact = 16 + std::mem::size_of::<super::friction::ContactFriction>() / 8;
        let state = nc.saturating_mul(per_contact);
        if blocks {
            return Ok(state);
        }
        let column_blocks = nv.div_ceil(super::contact_blocks::BLOCK);
        if nc.checked_mul(column_blocks).is_none_or(|cells| cells >= u32::MAX as usize) {
            return Err(TamsiError::TooLarge {
                what: "contact column blocks nc·ceil(nv/4)",
                limit: u32::MAX as usize - 1,
            });
        }
        // Padded Jt and Jn (3·nc rows), blocked rows (BLOCK_LEN per contact and column block),
        // Newton-matrix contact rows (3 per contact and velocity).
        let dense = nc
            .saturating_mul(3)
            .saturating_mul(nv)
            .saturating_add(nc.saturating_mul(column_blocks).saturating_mul(super::contact_blocks::BLOCK_LEN))
            .saturating_add(nc.saturating_mul(3).saturating_mul(nv));
        Ok(state.saturating_add(dense))
    }

    /// The current parameters.
    pub fn parameters(&self) -> &TamsiParameters {
        &self.params
    }

    /// Validates and sets the parameters (Drake `set_solver_parameters`, which does not
    /// validate); caches `cos(theta_max)`.
    pub fn set_parameters(&mut self, params: TamsiParameters) -> Result<(), TamsiError> {
        params.validate()?;
        self.params = params;
        self.ws.threads = params.num_threads;
        self.cos_theta_max = params.theta_max.cos();
        self.reserve_history();
        Ok(())
    }

    /// Room for a full residual history (`max_iterations` is bounded by
    /// [`TamsiParameters::MAX_ITERATIONS`], 800 kB at most), so no solve allocates for it.
    fn reserve_history(&mut self) {
        let want = self.params.max_iterations;
        let r = &mut self.stats.residuals;
        r.reserve(want.saturating_sub(r.len()));
    }

    /// Grows the per-contact arrays a solve (`results`: and its results) of `nc` contacts uses,
    /// fallibly: an allocation failure is an error before anything was computed, and the
    /// iteration itself never allocates.
    fn reserve_contacts(&mut self, nc: usize, results: bool) -> Result<(), TamsiError> {
        self.ws.iter.contacts.reserve(nc)?;
        if results {
            let r = &mut self.results;
            let two_nc = 2 * nc; // `reserve` checked it
            for (v, len) in [(&mut r.vn, nc), (&mut r.fn_, nc), (&mut r.vt, two_nc), (&mut r.ft, two_nc)] {
                if v.capacity() < len {
                    let failed = || TamsiError::AllocationFailed {
                        what: "TAMSI results",
                        elements: len,
                        element_size: 8,
                    };
                    v.try_reserve_exact(len - v.len()).map_err(|_| failed())?;
                }
            }
        }
        Ok(())
    }

    /// The coupling scheme the solver is bound to, if any.
    pub fn coupling_scheme(&self) -> Option<CouplingScheme> {
        self.scheme
    }

    /// Checks that `problem` fits this solver (its `nv`, its coupling scheme) and binds the
    /// solver to the problem's scheme. [`solve_with_guess`](Self::solve_with_guess) does this
    /// itself; layers that accept problem data before solving (the C API's setters) call it when
    /// the data is set, as Drake's setters do.
    pub fn bind_problem(&mut self, problem: &TamsiProblem<'_>) -> Result<(), TamsiError> {
        check_len("p_star", problem.num_velocities(), self.nv)?;
        let scheme = problem.coupling_scheme();
        match self.scheme {
            Some(bound) if bound != scheme => {
                Err(TamsiError::WrongCouplingScheme { solver: bound, data: scheme })
            }
            _ => {
                self.scheme = Some(scheme);
                Ok(())
            }
        }
    }

    /// Solves the problem starting from `v_guess` (nv, m/s; normally the previous velocities) with
    /// time step `dt` (s, finite and > 0). Drake's `SolveWithGuess`.
    ///
    /// Returns the outcome; every accessor then reads values evaluated at the returned `v`. A
    /// usage error changes nothing.
    pub fn solve_with_guess(
        &mut self,
        problem: &TamsiProblem<'_>,
        dt: f64,
        v_guess: DVectorView<'_, f64>,
    ) -> Result<TamsiOutcome, TamsiError> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(TamsiError::InvalidTimeStep(dt));
        }
        check_len("v_guess", v_guess.len(), self.nv)?;
        self.bind_problem(problem)?;

        self.reserve_contacts(problem.num_contacts(), true)?;
        self.stats.reset();
        self.sens.invalidate();
        self.ws.iter.v.copy_from_slice(v_guess.as_slice());
        let TamsiSolver { params, cos_theta_max, ws, results, stats, .. } = self;
        let op = SolveOp { problem, dt, params, cos_theta_max: *cos_theta_max, stats, results };
        let outcome = run_in_form(ws, problem, op)?;
        self.sens.solved(problem);
        Ok(outcome)
    }

    /// The Newton matrix `J = ∂R/∂v` (§4) of `problem` at velocities `v` (nv, m/s) with time step
    /// `dt` (s), written into `out` (nv×nv, column-major, any column stride). A debug entry point:
    /// Drake's tests compare this with automatic differentiation of the residual. Does not change
    /// the results of the last solve. For block-sparse data the matrix is block diagonal by
    /// islands, and a tree that no contact touches has its M block.
    pub fn calc_jacobian(
        &mut self,
        problem: &TamsiProblem<'_>,
        dt: f64,
        v: DVectorView<'_, f64>,
        mut out: DMatrixViewMut<'_, f64>,
    ) -> Result<(), TamsiError> {
        let nv = self.nv;
        if out.shape() != (nv, nv) {
            let (got_rows, got_cols) = out.shape();
            return Err(TamsiError::DimensionMismatch { what: "J", rows: nv, cols: nv, got_rows, got_cols });
        }
        self.prepare_evaluation(problem, dt, v)?;
        if nv == 0 {
            return Ok(());
        }
        let op = EvaluateOp { problem, dt, params: &self.params, what: Evaluation::Jacobian(&mut out) };
        run_in_form(&mut self.ws, problem, op)
    }

    /// The residual `R(v) = M v − p* − dt·Jnᵀ fn(v) − dt·Jtᵀ ft(v)` (§4) of `problem` at `v`
    /// (nv, m/s) with time step `dt` (s), written into `out` (nv, N·s). An extension of Drake's
    /// API for checking [`calc_jacobian`](Self::calc_jacobian) and for diagnostics; it does not
    /// change the results of the last solve.
    pub fn calc_residual(
        &mut self,
        problem: &TamsiProblem<'_>,
        dt: f64,
        v: DVectorView<'_, f64>,
        mut out: DVectorViewMut<'_, f64>,
    ) -> Result<(), TamsiError> {
        self.prepare_evaluation(problem, dt, v)?;
        check_len("out", out.len(), self.nv)?;
        let op = EvaluateOp { problem, dt, params: &self.params, what: Evaluation::Residual };
        run_in_form(&mut self.ws, problem, op)?;
        for (o, &r) in out.iter_mut().zip(&self.ws.iter.rhs) {
            *o = -r;
        }
        Ok(())
    }

    /// Validates a problem, `dt` and `v` for an evaluation at `v`.
    fn prepare_evaluation(
        &mut self,
        problem: &TamsiProblem<'_>,
        dt: f64,
        v: DVectorView<'_, f64>,
    ) -> Result<(), TamsiError> {
        let nv = self.nv;
        check_len("p_star", problem.num_velocities(), nv)?;
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(TamsiError::InvalidTimeStep(dt));
        }
        check_len("v", v.len(), nv)?;
        // An evaluation prepares the form again (and the Jacobian overwrites the factorization's
        // storage): a factorization kept for sensitivities is gone.
        self.sens.invalidate_factorization();
        self.reserve_contacts(problem.num_contacts(), false)?;
        self.ws.iter.v.copy_from_slice(v.as_slice());
        Ok(())
    }

    /// Outcome of the last solve, `None` before any (or after [`resize`](Self::resize)).
    pub fn last_outcome(&self) -> Option<TamsiOutcome> {
        self.results.outcome
    }

    /// Number of contacts of the last solve.
    pub fn num_contacts(&self) -> usize {
        self.results.nc
    }

    /// Generalized velocities `v` of the last solve (nv; m/s or rad/s).
    pub fn generalized_velocities(&self) -> &[f64] {
        &self.results.v
    }

    /// Normal velocities `vn = Jn v` (nc; m/s, positive when separating).
    pub fn normal_velocities(&self) -> &[f64] {
        &self.results.vn
    }

    /// Tangential velocities `vt = Jt v` (2nc, two per contact; m/s).
    pub fn tangential_velocities(&self) -> &[f64] {
        &self.results.vt
    }

    /// Normal forces (nc; N): the input (one-way) or the compliant law at `v` (two-way).
    pub fn normal_forces(&self) -> &[f64] {
        &self.results.fn_
    }

    /// Friction forces `ft` (2nc, two per contact; N).
    pub fn friction_forces(&self) -> &[f64] {
        &self.results.ft
    }

    /// Generalized friction forces `τ_f = Jtᵀ ft` (nv; N or N·m).
    pub fn generalized_friction_forces(&self) -> &[f64] {
        &self.results.tau_f
    }

    /// Generalized contact forces `τ = Jtᵀ ft + Jnᵀ fn` (nv; N or N·m).
    pub fn generalized_contact_forces(&self) -> &[f64] {
        &self.results.tau
    }

    /// Statistics of the last solve.
    pub fn iteration_stats(&self) -> &TamsiIterationStats {
        &self.stats
    }
}
