//! [`BaraffSolver`]: the parameters, the grow-only workspace and the results of the last call,
//! and the entry points of the module's table (`docs/baraff.md` §2, §3, §7, §8).

use nalgebra::DMatrixView;

use super::compose::Compose;
use super::impulse::ActiveSet;
use super::pivot::{Core, CoreInput};
use super::problem::{check_dim, check_finite};
use super::{
    BaraffError, BaraffOutcome, BaraffParameters, BaraffStats, Level, MatrixProblem, ModelProblem, RowKind,
    RowSet,
};

/// Baraff pivoting solver: parameters, workspace and the results of the last call.
#[derive(Debug, Clone, Default)]
pub struct BaraffSolver {
    pub(super) params: BaraffParameters,
    kinds: Vec<RowKind>,
    core: Core,
    compose: Compose,
    active: ActiveSet,
    /// Rows made frictionless by the iterative variant's fallback.
    pub(super) frictionless: Vec<usize>,
    pub(super) stats: BaraffStats,
    /// Rows of the last successful call (0 before any, or after an error).
    m: usize,
    /// Length of the generalized results (0 after a matrix solve).
    n: usize,
    /// The last call composed `A` and `b` from a model.
    composed: bool,
}

impl BaraffSolver {
    /// A solver with validated parameters.
    pub fn new(params: BaraffParameters) -> Result<Self, BaraffError> {
        params.validate()?;
        Ok(Self { params, ..Self::default() })
    }

    /// The parameters.
    pub fn parameters(&self) -> &BaraffParameters {
        &self.params
    }

    /// Validates and sets the parameters.
    pub fn set_parameters(&mut self, params: BaraffParameters) -> Result<(), BaraffError> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// Grows the workspace for `m` rows and `n` generalized coordinates, so that no later call
    /// up to that size allocates.
    pub fn reserve(&mut self, m: usize, n: usize) {
        if self.kinds.capacity() < m {
            self.kinds.reserve(m - self.kinds.len());
        }
        if self.frictionless.capacity() < m {
            self.frictionless.reserve(m - self.frictionless.len());
        }
        self.core.reserve(m);
        self.compose.reserve(m, n);
        self.active.reserve(m);
    }

    /// §3 on the matrix interface: finds `f` with `a = A f + b` satisfying every row's
    /// conditions. Returns the outcome (also in [`BaraffSolver::stats`]); usage errors leave no
    /// results.
    pub fn solve(&mut self, problem: &MatrixProblem) -> Result<BaraffOutcome, BaraffError> {
        self.clear_results();
        let m = problem.rows.len();
        check_dim("A rows", m, problem.a.nrows())?;
        check_dim("A columns", m, problem.a.ncols())?;
        check_dim("b length", m, problem.b.len())?;
        check_finite("A", problem.a.iter())?;
        check_finite("b", problem.b.iter())?;
        problem.rows.decode_into(&mut self.kinds)?;
        let inp = CoreInput { a: problem.a, b: problem.b.as_slice(), rows: &self.kinds, sticking: None };
        let (outcome, worst) = self.core.run(&inp, &self.params);
        Ok(self.record_pivoting(outcome, worst, m))
    }

    /// Forgets the results of the last solve (a usage error then leaves none).
    fn clear_results(&mut self) {
        self.m = 0;
        self.n = 0;
        self.composed = false;
    }

    /// Records a finished pivoting solve (§3) of `m` rows: its stats and its size. Returns
    /// `outcome`.
    fn record_pivoting(&mut self, outcome: BaraffOutcome, worst: f64, m: usize) -> BaraffOutcome {
        self.stats = BaraffStats {
            outcome,
            pivots: self.core.pivots,
            worst_violation: worst,
            ..BaraffStats::default()
        };
        self.m = m;
        outcome
    }

    /// Computes the generalized result of a finished model solve of `m` rows (§2) and marks the
    /// composed `A` and `b` readable.
    fn finish_model(&mut self, m: usize) {
        self.compose.finish(&self.core.f[..m]);
        self.n = self.compose.n;
        self.composed = true;
    }

    /// §2 + §3 on the model interface: builds `A = J M⁻¹ J_fᵀ` and `b` (see [`ModelProblem`]),
    /// solves, and computes the generalized result ([`BaraffSolver::generalized`]): `q̈` at
    /// acceleration level, `q̇⁺` at velocity level (there the forces are impulses and the §3
    /// pivoting gives the plastic-impact impulses, B6).
    pub fn solve_model(&mut self, problem: &ModelProblem) -> Result<BaraffOutcome, BaraffError> {
        self.model_solve(problem, None, false)
    }

    /// `computeConsistencyImpulse` (§7): the velocity-level pivoting solve with the contact whose
    /// normal row is `sticking_normal` treated as sticking: that normal is processed first and
    /// clamped (its impulse may grow from 0) when its velocity is within ε of 0, then its friction
    /// rows are driven to zero tangential velocity within `±μ p_n`, then all other rows in the
    /// usual order. [`BaraffSolver::generalized_change`] is `applyImpulse`'s `Δq̇ = M⁻¹ J_fᵀ p`.
    pub fn consistency_impulse(
        &mut self,
        problem: &ModelProblem,
        sticking_normal: usize,
    ) -> Result<BaraffOutcome, BaraffError> {
        self.clear_results();
        if !matches!(problem.level, Level::Velocity(_)) {
            return Err(BaraffError::WrongLevel { call: "consistency_impulse", expected: "velocity" });
        }
        problem.rows.decode_into(&mut self.kinds)?;
        if self.kinds.get(sticking_normal) != Some(&RowKind::Normal) {
            return Err(BaraffError::InvalidRow {
                row: sticking_normal,
                reason: "sticking contact: not a normal row",
            });
        }
        self.model_solve(problem, Some(sticking_normal), false)
    }

    /// Shared body of the model calls. `use_frictionless`: apply the iterative variant's
    /// fallback rows.
    pub(super) fn model_solve(
        &mut self,
        problem: &ModelProblem,
        sticking: Option<usize>,
        use_frictionless: bool,
    ) -> Result<BaraffOutcome, BaraffError> {
        self.clear_results();
        let m = problem.rows.len();
        problem.rows.decode_into(&mut self.kinds)?;
        let fallback: &[usize] = if use_frictionless { &self.frictionless } else { &[] };
        self.compose.compose(problem, m, fallback)?;
        let inp = CoreInput {
            a: DMatrixView::from_slice(&self.compose.a[..m * m], m, m),
            b: &self.compose.b[..m],
            rows: &self.kinds,
            sticking,
        };
        let (outcome, worst) = self.core.run(&inp, &self.params);
        self.finish_model(m);
        Ok(self.record_pivoting(outcome, worst, m))
    }

    /// `computeImpulse` (§8): collision / velocity-correction impulses by the active-set loop
    /// (see the `impulse` module docs), on a velocity-level problem with bilateral and normal
    /// rows only. [`BaraffParameters::restitution`], [`BaraffParameters::cdot_tolerance`] and
    /// [`BaraffParameters::max_impulse_iterations`] apply. Results: impulses in
    /// [`BaraffSolver::forces`], post-impulse row velocities in [`BaraffSolver::accelerations`],
    /// `q̇⁺` in [`BaraffSolver::generalized`], active rows as [`RowSet::Clamped`].
    pub fn impulses_active_set(&mut self, problem: &ModelProblem) -> Result<BaraffOutcome, BaraffError> {
        self.clear_results();
        if !matches!(problem.level, Level::Velocity(_)) {
            return Err(BaraffError::WrongLevel { call: "impulses_active_set", expected: "velocity" });
        }
        let m = problem.rows.len();
        problem.rows.decode_into(&mut self.kinds)?;
        if let Some(row) = self.kinds.iter().position(|k| !matches!(k, RowKind::Bilateral | RowKind::Normal))
        {
            return Err(BaraffError::UnsupportedRowKind { row, call: "impulses_active_set" });
        }
        self.compose.compose(problem, m, &[])?;
        self.core.reserve(m);
        self.core.set_rows(m);
        let k = DMatrixView::from_slice(&self.compose.a[..m * m], m, m);
        let r = self.active.run(
            k,
            &self.compose.b[..m],
            &self.kinds,
            &self.params,
            &mut self.core.f[..m],
            &mut self.core.a[..m],
            &mut self.core.sets[..m],
        );
        self.finish_model(m);
        self.stats = BaraffStats {
            outcome: r.outcome,
            iterations: r.iterations,
            worst_violation: r.worst,
            ..BaraffStats::default()
        };
        self.m = m;
        Ok(r.outcome)
    }

    /// `needsImpulse` (§8, inferred) for a velocity-level problem: some normal row approaches
    /// faster than [`BaraffParameters::cdot_tolerance`] or some bilateral row moves faster than it
    /// (`v = J q̇ + bias`). Friction and boxed rows never need one.
    pub fn needs_impulse(&mut self, problem: &ModelProblem) -> Result<bool, BaraffError> {
        let Level::Velocity(qdot) = problem.level else {
            return Err(BaraffError::WrongLevel { call: "needs_impulse", expected: "velocity" });
        };
        let m = problem.rows.len();
        let n = qdot.len();
        check_dim("jacobian rows", m, problem.jacobian.nrows())?;
        check_dim("jacobian columns", n, problem.jacobian.ncols())?;
        if let Some(bias) = problem.bias {
            check_dim("bias length", m, bias.len())?;
        }
        // A NaN velocity compares false against the tolerance and would read "no impulse".
        check_finite("qdot", qdot.iter())?;
        check_finite("jacobian", problem.jacobian.iter())?;
        if let Some(bias) = problem.bias {
            check_finite("bias", bias.iter())?;
        }
        problem.rows.decode_into(&mut self.kinds)?;
        let tol = self.params.cdot_tolerance;
        for (i, k) in self.kinds.iter().enumerate() {
            let jq: f64 = (0..n).map(|k| problem.jacobian[(i, k)] * qdot[k]).sum();
            let v = jq + problem.bias.map_or(0.0, |b| b[i]);
            let needs = match k {
                RowKind::Normal => v < -tol,
                RowKind::Bilateral => v.abs() > tol,
                _ => false,
            };
            if needs {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Row forces `f` (m; N, or N·s after a velocity-level call) of the last call; empty after
    /// a usage error.
    pub fn forces(&self) -> &[f64] {
        &self.core.f[..self.m]
    }

    /// Row accelerations `a = A f + b` recomputed from the final forces (m; m/s², or post-impulse
    /// row velocities in m/s after a velocity-level call). With stabilisation they include the
    /// Baumgarte term (§2).
    pub fn accelerations(&self) -> &[f64] {
        &self.core.a[..self.m]
    }

    /// The set each row ended in (m). `RowSet as i32` gives the C codes.
    pub fn row_sets(&self) -> &[RowSet] {
        &self.core.sets[..self.m]
    }

    /// Generalized result of the last model call (n): `q̈ = M⁻¹(τ − c + J_fᵀ f)` at acceleration
    /// level, `q̇⁺ = q̇ + M⁻¹ J_fᵀ p` at velocity level. Empty after a matrix solve.
    pub fn generalized(&self) -> &[f64] {
        &self.compose.result[..self.n]
    }

    /// Sliding friction per row (m) after a model call with [`Sliding`] data (§5): `−μ_d f`, the
    /// friction force (N, or N·s) along the row's unit slip direction `v̂` (0 for rows that are
    /// not sliding, or that the iterative variant made frictionless). Empty after a matrix solve.
    pub fn sliding_friction_forces(&self) -> &[f64] {
        &self.compose.sliding_friction[..if self.composed { self.m } else { 0 }]
    }

    /// Constraint part of [`BaraffSolver::generalized`] (n): `M⁻¹ J_fᵀ f` (`applyImpulse`'s
    /// `Δq̇` after a velocity-level call). Empty after a matrix solve.
    pub fn generalized_change(&self) -> &[f64] {
        &self.compose.delta[..self.n]
    }

    /// `A = J M⁻¹ J_fᵀ` (m×m, column-major) composed by the last model call (§2); 0×0 after a
    /// matrix solve.
    pub fn composed_matrix(&self) -> DMatrixView<'_, f64> {
        let m = if self.composed { self.m } else { 0 };
        DMatrixView::from_slice(&self.compose.a[..m * m], m, m)
    }

    /// `b` (m) composed by the last model call (§2, bias and stabilisation included); empty
    /// after a matrix solve.
    pub fn composed_b(&self) -> &[f64] {
        &self.compose.b[..if self.composed { self.m } else { 0 }]
    }

    /// Statistics and outcome of the last call.
    pub fn stats(&self) -> &BaraffStats {
        &self.stats
    }
}
