//! The TAMSI solver: workspace, Newton iteration and results (`specs/tamsi.md` §4, §5, §7).

use nalgebra::{DMatrixView, DMatrixViewMut, DVectorView, DVectorViewMut};

use super::contact_blocks::{BLOCK, ContactBlocks, mul_columns, try_grow};
use super::friction::ContactFriction;
use super::newton_matrix::{NewtonMatrix, UpdateCoefficients};
use super::normal::normal_force;
use super::problem::{NormalForceData, check_len};
use super::{CouplingScheme, TamsiError, TamsiOutcome, TamsiParameters, TamsiProblem, calc_alpha};
use crate::linalg::scalar::{cxx_max, cxx_min};
use crate::linalg::simd::{self, Simd, WithSimd};
use crate::linalg::{BLOCKED_MIN_DIM, Ldlt, PartialPivLu};

/// Contacts the workspace has room for before any problem is seen (Drake's initial capacity).
pub const INITIAL_CONTACT_CAPACITY: usize = 128;

/// Statistics of the last solve (Drake `TamsiSolverIterationStats`, §8).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TamsiIterationStats {
    /// Newton updates performed.
    pub num_iterations: usize,
    /// `‖Δvt‖₂` of the full (un-limited) Newton step, one per update, m/s. Despite Drake's name
    /// these are not norms of the residual R. The no-contact path records `[0.0]`.
    pub residuals: Vec<f64>,
}

impl TamsiIterationStats {
    /// Last entry of [`residuals`](Self::residuals), m/s; NaN when there is none (where Drake's
    /// behaviour is undefined).
    pub fn vt_residual(&self) -> f64 {
        self.residuals.last().copied().unwrap_or(f64::NAN)
    }

    fn reset(&mut self) {
        self.num_iterations = 0;
        self.residuals.clear();
    }
}

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
/// guess when `max_iterations = 0`), where Drake leaves some stale (`specs/c_api.md`).
#[derive(Debug)]
pub struct TamsiSolver {
    nv: usize,
    params: TamsiParameters,
    cos_theta_max: f64,
    scheme: Option<CouplingScheme>,
    ws: Workspace,
    results: Results,
    stats: TamsiIterationStats,
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
        }
    }
}

/// Per-contact iteration state. Arrays have room for `capacity` contacts.
#[derive(Debug, Clone, Default)]
struct ContactState {
    capacity: usize,
    vn: Vec<f64>,
    vt: Vec<f64>,
    fn_: Vec<f64>,
    /// `dfn/dvn` per contact (0 in the one-way scheme).
    g: Vec<f64>,
    friction: Vec<ContactFriction>,
    dvn: Vec<f64>,
    dvt: Vec<f64>,
    blocks: ContactBlocks,
    /// Whether the per-iteration products use fused multiply-adds: two-way problems from
    /// `BLOCKED_MIN_DIM` velocities up, whose Newton matrix goes to the blocked LU and so differs
    /// from Eigen's in round-off anyway. Everywhere else Eigen's rounding, and so Drake's bits.
    fused: bool,
}

/// Iteration state.
#[derive(Debug, Clone)]
struct Workspace {
    contacts: ContactState,
    v: Vec<f64>,
    /// `−R`, then the Newton step Δv.
    rhs: Vec<f64>,
    tmp: Vec<f64>,
    /// Two scratch vectors of nv rounded up to a multiple of `BLOCK` (`Jnᵀ fn` and `Jtᵀ ft`).
    tmp2: Vec<f64>,
    /// Newton-matrix assembly of the current problem.
    newton: NewtonMatrix,
    ldlt: Ldlt,
    lu: PartialPivLu,
}

/// Outputs of the last solve, all evaluated at its returned `v`.
#[derive(Debug, Clone, Default)]
struct Results {
    outcome: Option<TamsiOutcome>,
    nc: usize,
    v: Vec<f64>,
    vn: Vec<f64>,
    vt: Vec<f64>,
    fn_: Vec<f64>,
    ft: Vec<f64>,
    tau_f: Vec<f64>,
    tau: Vec<f64>,
}

impl Workspace {
    fn new(nv: usize, capacity: usize) -> Self {
        let mut contacts = ContactState::default();
        // Infallible as before: the capacity is one an earlier solve already allocated (or 128).
        contacts.reserve(capacity).expect("contact capacity already allocated once");
        Self {
            contacts,
            v: vec![0.0; nv],
            rhs: vec![0.0; nv],
            tmp: vec![0.0; nv],
            tmp2: vec![0.0; 2 * nv.div_ceil(BLOCK) * BLOCK],
            newton: NewtonMatrix::default(),
            ldlt: Ldlt::with_capacity(nv),
            lu: PartialPivLu::with_capacity(nv),
        }
    }

    /// `rhs = −R`, with `R = M v − p* − dt·Jnᵀ fn − dt·Jtᵀ ft` (§4) evaluated left to right as
    /// Drake's Eigen expression is, so that rounding follows Drake's.
    #[inline(always)]
    fn negative_residual<S: Simd>(&mut self, simd: S, problem: &TamsiProblem<'_>, dt: f64) {
        let nv = self.v.len();
        let half = self.tmp2.len() / 2;
        let (tau_n, tau_t) = self.tmp2.split_at_mut(half);
        self.contacts.generalized_forces(simd, tau_n, tau_t);
        // M v, column by column.
        mul_dense(simd, self.contacts.fused, &mut self.rhs[..nv], &problem.m, &self.v);
        for (((r, &p), &tn), &tt) in
            self.rhs.iter_mut().zip(problem.p_star.as_slice()).zip(tau_n.iter()).zip(tau_t.iter())
        {
            *r = -(((*r - p) - dt * tn) - dt * tt);
        }
    }

    /// Sets up the contact data of `problem` for solves with time step `dt` (growing the
    /// storage fallibly: an allocation failure is an error, the iteration has not started).
    fn prepare(&mut self, problem: &TamsiProblem<'_>, dt: f64) -> Result<(), TamsiError> {
        let nc = problem.num_contacts();
        let blocks = &mut self.contacts.blocks;
        blocks.prepare(&problem.jt, &problem.jn)?;
        self.newton.prepare(blocks, self.v.len(), nc, dt)?;
        self.contacts.fused =
            problem.coupling_scheme() == CouplingScheme::TwoWay && self.v.len() >= BLOCKED_MIN_DIM;
        Ok(())
    }
}

/// `out = m·v` column by column (see `mul_columns`), fused or in Eigen's rounding.
#[inline(always)]
fn mul_dense<S: Simd>(simd: S, fused: bool, out: &mut [f64], m: &DMatrixView<'_, f64>, v: &[f64]) {
    if fused {
        mul_columns::<S, true>(simd, out, m, v);
    } else {
        mul_columns::<S, false>(simd, out, m, v);
    }
}

impl ContactState {
    /// Room for `nc` contacts; an allocation failure is an error (the capacity stays).
    fn reserve(&mut self, nc: usize) -> Result<(), TamsiError> {
        if nc <= self.capacity {
            return Ok(());
        }
        let what = "TAMSI per-contact state";
        let two_nc = nc.checked_mul(2).ok_or(TamsiError::TooLarge { what: "nc", limit: usize::MAX / 2 })?;
        for v in [&mut self.vn, &mut self.fn_, &mut self.g, &mut self.dvn] {
            try_grow(v, nc, 0.0, what)?;
        }
        for v in [&mut self.vt, &mut self.dvt] {
            try_grow(v, two_nc, 0.0, what)?;
        }
        try_grow(&mut self.friction, nc, ContactFriction::default(), what)?;
        self.capacity = nc;
        Ok(())
    }

    /// vn, vt, fn (and its derivative g) and friction of every contact at velocities `v`
    /// (§7.1 steps 1.1–1.3).
    #[inline(always)]
    fn evaluate<S: Simd>(
        &mut self,
        simd: S,
        problem: &TamsiProblem<'_>,
        v: &[f64],
        dt: f64,
        vs: f64,
        eps_v: f64,
    ) {
        let nc = problem.num_contacts();
        mul_dense(simd, self.fused, &mut self.vt[..2 * nc], &problem.jt, v);
        mul_dense(simd, self.fused, &mut self.vn[..nc], &problem.jn, v);
        let mu = problem.mu.as_slice();
        for i in 0..nc {
            let (vt0, vt1, vn) = (self.vt[2 * i], self.vt[2 * i + 1], self.vn[i]);
            let (fn_, g) = match &problem.normal {
                NormalForceData::OneWay { fn_ } => (fn_[i], 0.0),
                NormalForceData::TwoWay { fn0, stiffness, dissipation } => {
                    normal_force(vn, fn0[i], stiffness[i], dissipation[i], dt)
                }
            };
            self.fn_[i] = fn_;
            self.g[i] = g;
            self.friction[i] = ContactFriction::evaluate([vt0, vt1], fn_, mu[i], vs, eps_v);
        }
    }

    /// `tau_n = Jnᵀ fn` and `tau_t = Jtᵀ ft` at the current state; both have room for the column
    /// blocks (length ≥ nv rounded up to a multiple of `BLOCK`).
    #[inline(always)]
    fn generalized_forces<S: Simd>(&self, simd: S, tau_n: &mut [f64], tau_t: &mut [f64]) {
        tau_n.fill(0.0);
        tau_t.fill(0.0);
        self.blocks.add_transposed(simd, tau_t, tau_n, |i| {
            let ft = self.friction[i].ft;
            (ft[0], ft[1], self.fn_[i])
        });
    }

    /// Writes the Newton matrix `J` at the current state into `j` (column-major nv×nv, leading
    /// dimension nv). `newton` must have been prepared for the problem. The coupling column of
    /// `Cᵢ` exists only in the two-way scheme (§4).
    #[inline(always)]
    fn assemble_newton_matrix<S: Simd>(
        &self,
        simd: S,
        problem: &TamsiProblem<'_>,
        newton: &mut NewtonMatrix,
        j: &mut [f64],
    ) {
        let two_way = problem.coupling_scheme() == CouplingScheme::TwoWay;
        let coefficients = |i: usize| {
            let fr = &self.friction[i];
            let coupling = if two_way {
                let g = self.g[i];
                [fr.mu_reg * fr.t_hat[0] * g, fr.mu_reg * fr.t_hat[1] * g, -g]
            } else {
                [0.0; 3]
            };
            UpdateCoefficients { d: fr.gradient_block(self.fn_[i]), coupling }
        };
        newton.assemble(simd, j, &problem.m, &self.blocks, two_way, self.fused, coefficients);
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
            ws: Workspace::new(nv, INITIAL_CONTACT_CAPACITY),
            results: Results::default(),
            stats: TamsiIterationStats::default(),
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
            let capacity = self.ws.contacts.capacity;
            self.ws = Workspace::new(nv, capacity);
            self.nv = nv;
        }
        self.scheme = None;
        self.results = Results::default();
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
        self.ws.contacts.capacity
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

    /// Grows every per-contact array a solve (or, with `evaluation`, an evaluation at a given
    /// `v`) of `problem` with time step `dt` uses, fallibly, and prepares the contact data. An
    /// allocation failure is an error before anything was computed; the per-iteration code
    /// never allocates.
    fn reserve_contacts(
        &mut self,
        problem: &TamsiProblem<'_>,
        dt: f64,
        evaluation: bool,
    ) -> Result<(), TamsiError> {
        let nc = problem.num_contacts();
        self.ws.contacts.reserve(nc)?;
        if !evaluation {
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
        if evaluation || nc > 0 {
            self.ws.prepare(problem, dt)?;
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
        let nv = problem.num_velocities();
        if nv != self.nv {
            return Err(TamsiError::DimensionMismatch {
                what: "p_star",
                rows: self.nv,
                cols: 1,
                got_rows: nv,
                got_cols: 1,
            });
        }
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

        self.reserve_contacts(problem, dt, false)?;
        self.stats.reset();
        self.ws.v.copy_from_slice(v_guess.as_slice());
        struct Solve<'a, 'p> {
            solver: &'a mut TamsiSolver,
            problem: &'a TamsiProblem<'p>,
            dt: f64,
        }
        impl WithSimd for Solve<'_, '_> {
            type Output = TamsiOutcome;
            #[inline(always)]
            fn with_simd<S: Simd>(self, simd: S) -> TamsiOutcome {
                let Self { solver, problem, dt } = self;
                let outcome = if problem.num_contacts() == 0 {
                    solver.solve_without_contact(problem)
                } else {
                    solver.newton(simd, problem, dt)
                };
                // The iteration ends right after evaluating the contacts at the returned v,
                // except when it runs out of iterations (v was updated since).
                let evaluated = outcome != TamsiOutcome::MaxIterationsReached;
                solver.store_results(simd, problem, dt, outcome, evaluated);
                outcome
            }
        }
        Ok(simd::dispatch(Solve { solver: self, problem, dt }))
    }

    /// No-contact path (§7.2): `v = M⁻¹ p*` through the LDLT of M, checked (Drake does not check).
    fn solve_without_contact(&mut self, problem: &TamsiProblem<'_>) -> TamsiOutcome {
        let nv = self.nv;
        self.ws.ldlt.matrix_mut(nv).copy_from(&problem.m);
        let factored = self.ws.ldlt.factor();
        self.ws.v.copy_from_slice(problem.p_star.as_slice());
        self.ws.ldlt.solve_in_place(&mut self.ws.v);
        self.stats.num_iterations = 1;
        self.stats.residuals.push(0.0);
        if factored.is_ok() { TamsiOutcome::Success } else { TamsiOutcome::LinearSolverFailed }
    }

    /// The Newton iteration in Drake's exact order (§7.1), starting from `self.ws.v`; runs in the
    /// best instruction set available (see [`crate::linalg::simd`]).
    #[inline(always)]
    fn newton<S: Simd>(&mut self, simd: S, problem: &TamsiProblem<'_>, dt: f64) -> TamsiOutcome {
        let nv = self.nv;
        let nc = problem.num_contacts();
        let vs = self.params.stiction_tolerance;
        let rtol = self.params.relative_tolerance;
        let tolerance = rtol * vs;
        let two_way = problem.coupling_scheme() == CouplingScheme::TwoWay;
        // No convergence is possible before one update.
        let mut vt_err = 2.0 * tolerance;
        let mut vn_err = 2.0 * tolerance;

        for _ in 0..self.params.max_iterations {
            let ws = &mut self.ws;
            ws.contacts.evaluate(simd, problem, &ws.v, dt, vs, tolerance);
            if cxx_max(vt_err, vn_err) < tolerance {
                return TamsiOutcome::Success;
            }

            ws.negative_residual(simd, problem, dt);
            let contacts = &mut ws.contacts;
            if two_way {
                contacts.assemble_newton_matrix(simd, problem, &mut ws.newton, ws.lu.storage_mut(nv));
                ws.lu.factor();
                ws.lu.solve_in_place(&mut ws.rhs, &mut ws.tmp);
            } else {
                contacts.assemble_newton_matrix(simd, problem, &mut ws.newton, ws.ldlt.storage_mut(nv));
                // Drake solves first and checks the factorization afterwards.
                let factored = ws.ldlt.factor();
                ws.ldlt.solve_in_place(&mut ws.rhs);
                if factored.is_err() {
                    return TamsiOutcome::LinearSolverFailed;
                }
            }
            let dv = &ws.rhs;

            // Errors of the full (un-limited) step.
            mul_dense(simd, contacts.fused, &mut contacts.dvt[..2 * nc], &problem.jt, dv);
            mul_dense(simd, contacts.fused, &mut contacts.dvn[..nc], &problem.jn, dv);
            let (mut dvt2, mut dvn2) = (0.0, 0.0);
            for i in 0..nc {
                let (a, b, c) = (contacts.dvt[2 * i], contacts.dvt[2 * i + 1], contacts.dvn[i]);
                dvt2 += a * a + b * b;
                dvn2 += c * c;
            }
            vt_err = dvt2.sqrt();
            vn_err = dvn2.sqrt();

            let mut alpha = 1.0;
            for i in 0..nc {
                let vt = [contacts.vt[2 * i], contacts.vt[2 * i + 1]];
                let dvt = [contacts.dvt[2 * i], contacts.dvt[2 * i + 1]];
                match calc_alpha(vt, dvt, self.cos_theta_max, vs, rtol) {
                    Some(a) => alpha = cxx_min(alpha, a),
                    None => return TamsiOutcome::AlphaSolverFailed,
                }
            }
            // Drake aborts the process here; non-finite data can cause it.
            if !(alpha > 0.0 && alpha <= 1.0) {
                return TamsiOutcome::AlphaSolverFailed;
            }
            for (v, &d) in ws.v.iter_mut().zip(dv.iter()) {
                *v += alpha * d;
            }
            self.stats.num_iterations += 1;
            self.stats.residuals.push(vt_err);
        }
        TamsiOutcome::MaxIterationsReached
    }

    /// Evaluates every output at `self.ws.v` and keeps it (the C API's rule for all outcomes; on
    /// success these are the values Drake reports). With `evaluated`, the contact state already
    /// is at `self.ws.v` (the last step of the iteration evaluated it there, with the same
    /// arithmetic) and is not evaluated again.
    #[inline(always)]
    fn store_results<S: Simd>(
        &mut self,
        simd: S,
        problem: &TamsiProblem<'_>,
        dt: f64,
        outcome: TamsiOutcome,
        evaluated: bool,
    ) {
        let nv = self.nv;
        let nc = problem.num_contacts();
        let vs = self.params.stiction_tolerance;
        let eps_v = self.params.relative_tolerance * vs;
        let r = &mut self.results;
        r.outcome = Some(outcome);
        r.nc = nc;
        r.v.copy_from_slice(&self.ws.v);
        for v in [&mut r.vn, &mut r.fn_] {
            v.resize(nc, 0.0);
        }
        for v in [&mut r.vt, &mut r.ft] {
            v.resize(2 * nc, 0.0);
        }
        r.tau_f.fill(0.0);
        r.tau.fill(0.0);
        if nc == 0 {
            return;
        }
        let ws = &mut self.ws;
        let contacts = &mut ws.contacts;
        if !evaluated {
            contacts.evaluate(simd, problem, &ws.v, dt, vs, eps_v);
        }
        r.vn.copy_from_slice(&contacts.vn[..nc]);
        r.vt.copy_from_slice(&contacts.vt[..2 * nc]);
        r.fn_.copy_from_slice(&contacts.fn_[..nc]);
        for (i, ft) in r.ft.chunks_exact_mut(2).enumerate() {
            ft.copy_from_slice(&contacts.friction[i].ft);
        }
        // tau_f = Jtᵀ ft; tau = tau_f + Jnᵀ fn.
        let half = ws.tmp2.len() / 2;
        let (tau_n, tau_t) = ws.tmp2.split_at_mut(half);
        contacts.generalized_forces(simd, tau_n, tau_t);
        r.tau_f.copy_from_slice(&tau_t[..nv]);
        for ((t, &f), &n) in r.tau.iter_mut().zip(&r.tau_f).zip(tau_n.iter()) {
            *t = f + n;
        }
    }

    /// The Newton matrix `J = ∂R/∂v` (§4) of `problem` at velocities `v` (nv, m/s) with time step
    /// `dt` (s), written into `out` (nv×nv, column-major, any column stride). A debug entry point:
    /// Drake's tests compare this with automatic differentiation of the residual. Does not change
    /// the results of the last solve.
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
        struct Assemble<'a, 'p> {
            solver: &'a mut TamsiSolver,
            problem: &'a TamsiProblem<'p>,
            dt: f64,
        }
        impl WithSimd for Assemble<'_, '_> {
            type Output = ();
            #[inline(always)]
            fn with_simd<S: Simd>(self, simd: S) {
                self.solver.evaluate_at_v(simd, self.problem, self.dt);
                let ws = &mut self.solver.ws;
                let j = ws.lu.storage_mut(ws.v.len());
                ws.contacts.assemble_newton_matrix(simd, self.problem, &mut ws.newton, j);
            }
        }
        simd::dispatch(Assemble { solver: self, problem, dt });
        let j = self.ws.lu.storage_mut(nv);
        for (c, src) in j.chunks_exact(nv).enumerate() {
            out.column_mut(c).as_mut_slice().copy_from_slice(src);
        }
        Ok(())
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
        struct Residual<'a, 'p> {
            solver: &'a mut TamsiSolver,
            problem: &'a TamsiProblem<'p>,
            dt: f64,
        }
        impl WithSimd for Residual<'_, '_> {
            type Output = ();
            #[inline(always)]
            fn with_simd<S: Simd>(self, simd: S) {
                self.solver.evaluate_at_v(simd, self.problem, self.dt);
                self.solver.ws.negative_residual(simd, self.problem, self.dt)
            }
        }
        simd::dispatch(Residual { solver: self, problem, dt });
        for (o, &r) in out.iter_mut().zip(&self.ws.rhs) {
            *o = -r;
        }
        Ok(())
    }

    /// Evaluates the contact quantities at `self.ws.v` (after [`Self::prepare_evaluation`]).
    #[inline(always)]
    fn evaluate_at_v<S: Simd>(&mut self, simd: S, problem: &TamsiProblem<'_>, dt: f64) {
        let vs = self.params.stiction_tolerance;
        let ws = &mut self.ws;
        ws.contacts.evaluate(simd, problem, &ws.v, dt, vs, self.params.relative_tolerance * vs);
    }

    /// Validates a problem, `dt` and `v` for an evaluation at `v` and prepares the contact data;
    /// [`Self::evaluate_at_v`] then evaluates the contacts.
    fn prepare_evaluation(
        &mut self,
        problem: &TamsiProblem<'_>,
        dt: f64,
        v: DVectorView<'_, f64>,
    ) -> Result<(), TamsiError> {
        let nv = self.nv;
        if problem.num_velocities() != nv {
            return Err(TamsiError::DimensionMismatch {
                what: "p_star",
                rows: nv,
                cols: 1,
                got_rows: problem.num_velocities(),
                got_cols: 1,
            });
        }
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(TamsiError::InvalidTimeStep(dt));
        }
        check_len("v", v.len(), nv)?;
        self.reserve_contacts(problem, dt, true)?;
        self.ws.v.copy_from_slice(v.as_slice());
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
