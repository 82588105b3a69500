//! The solver: interior initialization (§3), Mehrotra predictor–corrector with Dojo's cone
//! search, violation backtracking and undercut logic (§4), the fixed-κ Newton mode (§7), results
//! and statistics. The workspace and the residual, which the engine iteration and the
//! sensitivities share, are in `iteration.rs`.

use crate::linalg::simd;
use crate::parallel::PoolSlot;
use nalgebra::DVectorView;

use super::form::{
    BlockForm, BlockWorkspace, DelassusForm, DelassusWorkspace, DenseForm, DenseWorkspace, Form,
};
use super::iteration::{
    IpmWorkspace, NewtonBuf, Viol, build_rhs, check_block_newton_solve, duality_pair, solve_newton,
    system_data,
};
use super::model::REG;
use super::newton::SystemData;
use super::{IpmData, IpmError, IpmOutcome, IpmParameters, IpmProblem, IpmStats};

mod engine;
pub(super) mod exact;
use engine::{WarmStart, iterate_engine};

/// Fraction-to-boundary step over all contacts, primal and dual separately (§4.1).
fn cone_search(ws: &IpmWorkspace, ds: &[f64], dg: &[f64], tau_ort: f64, tau_soc: f64) -> f64 {
    ws.largest_step(ds, dg, |m, x, dx| m.step(x, dx, tau_ort, tau_soc))
}

/// Dojo's interior-point contact solver (`docs/ipm.md`): second-order-cone (or impact, or
/// linearized) friction as a cone complementarity problem in impulses (N·s), solved by a
/// primal–dual Mehrotra predictor–corrector, with solution sensitivities (§7).
///
/// Results of the last solve stay in the solver and are read through accessors.
#[derive(Debug, Clone, Default)]
pub struct IpmSolver {
    params: IpmParameters,
    pub(crate) ws: IpmWorkspace,
    /// The data forms' own storage (the condensed matrix and `Jᵀ` of the dense form, the islands'
    /// matrices of the block form).
    pub(crate) dense: DenseWorkspace,
    pub(crate) blocks: BlockWorkspace,
    /// `W`'s blocks and the condensed matrix of the Delassus form.
    pub(crate) delassus: DelassusWorkspace,
    /// The caller's contact ids for the next solves ([`IpmSolver::set_contact_ids`]).
    contact_ids: Option<Vec<u64>>,
    /// The worker pool of block solves with `num_threads` ≥ 2 (`docs/performance.md` §8).
    pool: PoolSlot,
}

impl IpmSolver {
    /// A solver with the given parameters (validated).
    pub fn new(params: IpmParameters) -> Result<Self, IpmError> {
        params.validate()?;
        Ok(Self { params, ..Self::default() })
    }

    /// Sets the caller's contact ids for the following solves (`docs/ipm.md` §11.5): one `u64`
    /// per contact of the problems solved next, in the problem's contact order, unique within a
    /// problem, chosen by the caller (for example an engine's geom pair and the contact's index
    /// in it). With [`IpmParameters::warm_start`] an engine solve then starts every contact whose
    /// id the previous solve (with ids) had from that contact's previous solution, and the new
    /// ones from the central start: contacts that appear, vanish or change order between steps
    /// keep their own warm start. `None` clears them (warm start by position, as without ids).
    /// A solve fails with [`IpmError::DimensionMismatch`] when the ids' count is not the
    /// problem's contact count. Copied; nothing is allocated once grown.
    pub fn set_contact_ids(&mut self, ids: Option<&[u64]>) -> Result<(), IpmError> {
        match ids {
            None => self.contact_ids = None,
            Some(ids) => {
                // Grow before touching the previous ids: a refused reservation leaves them (or
                // their absence) as they were, as the error promises.
                let mut fresh = Vec::new();
                let v = self.contact_ids.as_mut().unwrap_or(&mut fresh);
                v.try_reserve(ids.len().saturating_sub(v.len()))
                    .map_err(|_| IpmError::Allocation { what: "contact ids", len: ids.len() })?;
                v.clear();
                v.extend_from_slice(ids);
                if self.contact_ids.is_none() {
                    self.contact_ids = Some(fresh);
                }
            }
        }
        Ok(())
    }

    /// The contact ids set by [`IpmSolver::set_contact_ids`], if any.
    pub fn contact_ids(&self) -> Option<&[u64]> {
        self.contact_ids.as_deref()
    }

    /// The current parameters.
    pub fn parameters(&self) -> &IpmParameters {
        &self.params
    }

    /// Replaces the parameters (validated; unchanged on error).
    pub fn set_parameters(&mut self, params: IpmParameters) -> Result<(), IpmError> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// Solves one step starting from `v = v0` (Dojo warm-starts velocities with the previous
    /// step's solution, which is this step's `v0`, §3 step 3).
    pub fn solve(&mut self, problem: &IpmProblem<'_>) -> Result<IpmOutcome, IpmError> {
        self.solve_impl(problem, None)
    }

    /// Solves one step starting from the velocity guess `v_guess` (n, m/s).
    pub fn solve_with_guess(
        &mut self,
        problem: &IpmProblem<'_>,
        v_guess: DVectorView<'_, f64>,
    ) -> Result<IpmOutcome, IpmError> {
        let n = problem.num_velocities();
        if v_guess.nrows() != n {
            return Err(IpmError::DimensionMismatch {
                what: "v_guess",
                expected_rows: n,
                expected_cols: 1,
                rows: v_guess.nrows(),
                cols: 1,
            });
        }
        if let Some(index) = v_guess.iter().position(|x| !x.is_finite()) {
            return Err(IpmError::NonFinite { what: "v_guess", index });
        }
        self.solve_impl(problem, Some(v_guess))
    }

    fn solve_impl(
        &mut self,
        p: &IpmProblem<'_>,
        guess: Option<DVectorView<'_, f64>>,
    ) -> Result<IpmOutcome, IpmError> {
        p.validate()?;
        let prm = self.params;
        let ids = self.contact_ids.as_deref();
        if let Some(ids) = ids
            && ids.len() != p.num_contacts()
        {
            return Err(IpmError::DimensionMismatch {
                what: "contact_ids",
                expected_rows: p.num_contacts(),
                expected_cols: 1,
                rows: ids.len(),
                cols: 1,
            });
        }
        match p.data {
            IpmData::Dense { m, jn, jt } => {
                let mut form = DenseForm::new(&mut self.dense, m, jn, jt);
                Ok(simd::dispatch_fn(
                    #[inline(always)]
                    || run(&mut self.ws, &prm, p, &mut form, guess, ids),
                ))
            }
            IpmData::Blocks(system) => {
                check_block_newton_solve(prm.newton_solve)?;
                let pool = self.pool.get(prm.num_threads, crate::linalg::grow_product_buffers);
                let mut form = BlockForm::new(&mut self.blocks, system, pool)?;
                Ok(simd::dispatch_fn(
                    #[inline(always)]
                    || run(&mut self.ws, &prm, p, &mut form, guess, ids),
                ))
            }
            IpmData::Delassus { w } => {
                check_block_newton_solve(prm.newton_solve)?;
                let mut form = DelassusForm::new(&mut self.delassus, w)?;
                Ok(simd::dispatch_fn(
                    #[inline(always)]
                    || run(&mut self.ws, &prm, p, &mut form, guess, ids),
                ))
            }
        }
    }

    fn check_solution(&self) -> Result<(), IpmError> {
        if self.ws.has_solution { Ok(()) } else { Err(IpmError::NoSolution) }
    }

    /// Statistics of the last solve.
    pub fn stats(&self) -> &IpmStats {
        &self.ws.stats
    }

    /// Generalized velocity `v` of the last solve (n, m/s or rad/s); empty before any solve.
    pub fn velocities(&self) -> &[f64] {
        if self.ws.has_solution { &self.ws.v[..self.ws.n] } else { &[] }
    }

    /// Local contact impulses of the last solve, N·s, 3 per contact: (normal, along t1, along
    /// t2). For the SOC model `(γ_n, ξ_1, ξ_2)`, for the linear model
    /// `(γ_n, β_3 − β_4, β_1 − β_2)`, for impact `(γ_n, 0, 0)`. Empty before any solve.
    pub fn impulses(&self) -> &[f64] {
        if self.ws.has_solution { &self.ws.impulses[..3 * self.ws.nc] } else { &[] }
    }

    /// Predicted next gaps `φ⁺ = φ + h J_n v` (m), nc. Empty before any solve.
    pub fn next_gaps(&self) -> &[f64] {
        if self.ws.has_solution { &self.ws.next_gaps[..self.ws.nc] } else { &[] }
    }

    /// Raw primal cone variables `γ` (model layout of `docs/ipm.md` §1.3, contact i at
    /// [`IpmSolver::contact_offset`]`(i)`), N·s. Empty before any solve.
    pub fn primal(&self) -> &[f64] {
        if self.ws.has_solution { &self.ws.g[..self.ws.k_total] } else { &[] }
    }

    /// Raw dual cone variables `s` (gap in m, η in m/s), same layout as [`IpmSolver::primal`].
    pub fn dual(&self) -> &[f64] {
        if self.ws.has_solution { &self.ws.s[..self.ws.k_total] } else { &[] }
    }

    /// Offset of contact `i`'s block in [`IpmSolver::primal`] / [`IpmSolver::dual`].
    pub fn contact_offset(&self, i: usize) -> Option<usize> {
        self.ws.offsets.get(i).copied().filter(|_| i < self.ws.nc)
    }

    /// `rvio` at the start of every iteration and after the last one (iterations + 1 entries).
    pub fn rvio_history(&self) -> &[f64] {
        &self.ws.rvio_history
    }

    /// `bvio` (raw complementarity ∞-norm) history, like [`IpmSolver::rvio_history`].
    pub fn bvio_history(&self) -> &[f64] {
        &self.ws.bvio_history
    }

    /// κ target chosen in every iteration (N·s·m).
    pub fn kappa_history(&self) -> &[f64] {
        &self.ws.kappa_history
    }

    /// Accepted step length of every iteration.
    pub fn alpha_history(&self) -> &[f64] {
        &self.ws.alpha_history
    }

    /// Grows the Newton factorization for `n` velocities and `nc` contacts of up to 6 cone
    /// entries each, so that the first solve of that size allocates less (the remaining buffers
    /// grow on the first solve; later solves of at most that size allocate nothing).
    pub fn reserve(&mut self, n: usize, nc: usize) {
        let ws = &mut self.ws;
        ws.models.reserve(nc);
        ws.offsets.reserve(nc);
        ws.mu.reserve(nc);
        self.dense.reserve(n, nc);
        ws.newton.reserve(self.params.newton_solve, n, nc, 6 * nc, 144 * nc);
    }

    pub(crate) fn require_solution(&self) -> Result<(), IpmError> {
        self.check_solution()
    }
}

/// One solve over the data form `form`: setup, start, the engine or Dojo's iteration, results.
/// Called in one SIMD dispatch (issue 29): the per-contact kernels of both iterations (cone
/// algebra, residual, the forms' `J v` and `Jᵀ f`, the closed-form solves) inline into one
/// function compiled for the best instruction set, where `f64::mul_add` is one instruction, instead
/// of one dispatch per contact and call. The same bits either way (`crate::linalg::simd`).
#[inline(always)]
fn run<F: Form>(
    ws: &mut IpmWorkspace,
    prm: &IpmParameters,
    p: &IpmProblem<'_>,
    form: &mut F,
    guess: Option<DVectorView<'_, f64>>,
    ids: Option<&[u64]>,
) -> IpmOutcome {
    let prm = *prm;
    let engine = !prm.uses_reference_iteration();
    let warm = prm.warm_start
        && ws.has_solution
        && ws.engine == engine
        && ws.models[..] == *p.models
        && ws.n == p.num_velocities();
    // Engine warm start by contact id when both this solve and the previous one have ids.
    let by_id = prm.warm_start && engine && ws.has_solution && ws.engine && ws.previous_has_ids;
    let start = match ids {
        Some(ids) if by_id => WarmStart::ById(ids),
        Some(_) => WarmStart::Cold,
        None if warm => WarmStart::ByPosition,
        None => WarmStart::Cold,
    };
    ws.has_solution = false;
    ws.sens.valid = false;
    ws.setup(p, prm.max_iter, prm.newton_solve, engine, engine && ids.is_some());
    ws.prepare_split(form.split());
    let (n, kt) = (ws.n, ws.k_total);
    let big = n + 2 * kt;

    // §3: velocities from the guess, contact variables from e (or the previous solution),
    // shifted into the cone interior.
    match guess {
        Some(vg) => ws.v[..n].copy_from_slice(vg.as_slice()),
        None => {
            for (x, &y) in ws.v[..n].iter_mut().zip(p.v0.as_slice()) {
                *x = y;
            }
        }
    }
    // Velocities the form solves directly (the block form's trees without contact).
    for (x, &t) in ws.v_free[..n].iter_mut().zip(p.tau.as_slice()) {
        *x = p.h * t;
    }
    let free_ok = form.start(p.v0.as_slice(), &ws.v_free[..n], &mut ws.v[..n]);
    if engine {
        let outcome = iterate_engine(ws, &prm, p, form, start);
        ws.previous_has_ids = ids.is_some();
        if let Some(ids) = ids {
            ws.previous.record(ids, &ws.models, &ws.offsets, &ws.s[..kt], &ws.g[..kt]);
        }
        finish(ws, p, form);
        return if free_ok { outcome } else { IpmOutcome::NonFiniteStep };
    }
    if !warm {
        ws.s[..kt].copy_from_slice(&ws.e[..kt]);
        ws.g[..kt].copy_from_slice(&ws.e[..kt]);
    }
    for (&m, &off) in ws.models.iter().zip(&ws.offsets) {
        let k = m.dim();
        m.shift(&mut ws.s[off..off + k], &mut ws.g[off..off + k]);
    }
    let total_degree: usize = ws.models.iter().map(|m| m.degree()).sum();

    let fixed = prm.fixed_kappa > 0.0;
    let kappa_fixed = prm.fixed_kappa;
    let mut viol = ws.residual_at(form, p, kappa_fixed, false);
    let measure = |v: &Viol| if fixed { v.cvio } else { v.bvio };
    ws.stats = IpmStats {
        rvio: viol.rvio,
        bvio: viol.bvio,
        kappa: if fixed { kappa_fixed } else { 0.0 },
        ..Default::default()
    };
    ws.rvio_history.push(viol.rvio);
    ws.bvio_history.push(viol.bvio);

    let mut undercut = prm.undercut;
    let mut no_progress = 0usize;
    let mut kappa_rhs = 0.0;
    // Fixed-κ mode: predictor–corrector with the κ floor at the fixed κ until the floor is
    // reached (pure Newton from the neutral start can stall at the cone boundary), then
    // Newton's method on r(w; κ) = 0, whose fixed point is the central-path point.
    let mut newton_phase = false;
    let mut outcome = IpmOutcome::MaxIterationsReached;
    for _ in 0..prm.max_iter {
        // Step 1: termination first. The 1e-6 slack on btol keeps a central-path point with
        // κ = btol (undercut = 1, §7 caveat) acceptable.
        if viol.rvio < prm.rtol && measure(&viol) < prm.btol * (1.0 + 1e-6) {
            outcome = IpmOutcome::Converged;
            break;
        }
        if !(viol.rvio.is_finite() && viol.bvio.is_finite()) {
            outcome = IpmOutcome::NonFiniteStep;
            break;
        }
        {
            let data = system_data!(ws);
            ws.newton.factor(prm.newton_solve, &data, form, &ws.s[..kt], &ws.g[..kt], REG);
        }
        let kappa_target;
        if fixed && newton_phase {
            // Newton on r(w; κ) = 0 (§7 fixed-κ mode, second phase).
            kappa_target = kappa_fixed;
            build_rhs(&ws.r[..big], &ws.e[..kt], n, kt, kappa_fixed, &mut ws.delta[..big]);
            solve_newton(ws, form, NewtonBuf::Delta);
        } else {
            // Step 2: predictor with κ_rhs (0, or the lagged target in Dojo mode).
            build_rhs(&ws.r[..big], &ws.e[..kt], n, kt, kappa_rhs, &mut ws.daff[..big]);
            solve_newton(ws, form, NewtonBuf::Affine);
            if !ws.daff[..big].iter().all(|x| x.is_finite()) {
                outcome = IpmOutcome::NonFiniteStep;
                break;
            }
            // Step 3: affine step length with τ = 0.95 on both cones.
            let (ds, dg) = ws.daff[n..big].split_at(kt);
            let alpha_aff = cone_search(ws, ds, dg, 0.95, 0.95);
            // Step 4: centering.
            let (nu, nu_aff) = if total_degree > 0 {
                let deg = total_degree as f64;
                let (at0, at) = duality_pair(&ws.s[..kt], &ws.g[..kt], ds, dg, alpha_aff);
                (at0 / deg, at / deg)
            } else {
                (0.0, 0.0)
            };
            let sigma = (nu_aff / (nu + 1e-20)).clamp(0.0, 1.0).powi(3);
            let floor = if fixed { kappa_fixed } else { prm.btol / undercut };
            kappa_target = (sigma * nu).max(floor);
            // Step 5: corrector right-hand side −(Δs_aff∘Δγ_aff) + κ e added to the
            // predictor's; same factorization.
            build_rhs(&ws.r[..big], &ws.e[..kt], n, kt, kappa_rhs, &mut ws.delta[..big]);
            {
                let (dsa, dga) = ws.daff[n..big].split_at(kt);
                let rc = &mut ws.delta[n..n + kt];
                let mut prod = [0.0; 6];
                for (&m, &off) in ws.models.iter().zip(&ws.offsets) {
                    let k = m.dim();
                    m.product(&dga[off..off + k], &dsa[off..off + k], &mut prod[..k]);
                    for l in 0..k {
                        rc[off + l] += -prod[l] + kappa_target * ws.e[off + l];
                    }
                }
            }
            solve_newton(ws, form, NewtonBuf::Delta);
        }
        if !ws.delta[..big].iter().all(|x| x.is_finite()) {
            outcome = IpmOutcome::NonFiniteStep;
            break;
        }
        // Step 6: fraction to the boundary.
        let m_now = measure(&viol);
        let tau = 0.95f64.max(1.0 - viol.rvio.max(m_now).powi(2));
        let (ds, dg) = ws.delta[n..big].split_at(kt);
        let alpha = cone_search(ws, ds, dg, tau, tau.min(0.95));
        // Step 7: backtracking on the violations; accept unless both got worse.
        let mut accepted = None;
        let mut cand = viol;
        let rvio_accept =
            if prm.rvio_floor_in_backtracking { viol.rvio.max(0.1 * prm.rtol) } else { viol.rvio };
        let mut step = alpha;
        for k in 0..prm.max_ls {
            step = alpha / f64::from(1u32 << k.min(31) as u32);
            for ((c, &x), &d) in ws.vc[..n].iter_mut().zip(&ws.v[..n]).zip(&ws.delta[..n]) {
                *c = x + step * d;
            }
            for ((c, &x), &d) in ws.sc[..kt].iter_mut().zip(&ws.s[..kt]).zip(&ws.delta[n..n + kt]) {
                *c = x + step * d;
            }
            for ((c, &x), &d) in ws.gc[..kt].iter_mut().zip(&ws.g[..kt]).zip(&ws.delta[n + kt..big]) {
                *c = x + step * d;
            }
            cand = ws.residual_at(form, p, kappa_fixed, true);
            if cand.rvio <= rvio_accept || measure(&cand) <= m_now {
                accepted = Some(step);
                break;
            }
        }
        if accepted.is_none() {
            ws.stats.line_search_exhausted += 1;
        }
        // Step 8: progress bookkeeping (inert with undercut = ∞).
        if !fixed {
            let progress = (cand.rvio >= prm.rtol && cand.rvio < 0.8 * viol.rvio)
                || (cand.bvio >= prm.btol && cand.bvio < 0.8 * viol.bvio);
            no_progress = if progress { no_progress.saturating_sub(1) } else { no_progress + 1 };
            if no_progress >= prm.no_progress_max {
                undercut *= prm.no_progress_undercut;
            }
        }
        // Step 9: commit.
        ws.commit_candidate();
        viol = cand;
        if prm.dojo_lagged_kappa && !fixed {
            kappa_rhs = kappa_target;
        }
        if fixed && kappa_target <= kappa_fixed {
            newton_phase = true;
        }
        ws.stats.iterations += 1;
        ws.stats.kappa = kappa_target;
        ws.stats.rvio = viol.rvio;
        ws.stats.bvio = viol.bvio;
        ws.kappa_history.push(kappa_target);
        ws.alpha_history.push(step);
        ws.rvio_history.push(viol.rvio);
        ws.bvio_history.push(viol.bvio);
    }
    finish(ws, p, form);
    if free_ok { outcome } else { IpmOutcome::NonFiniteStep }
}

/// Evaluates the results at the final iterate.
#[inline(always)]
fn finish<F: Form>(ws: &mut IpmWorkspace, p: &IpmProblem<'_>, form: &F) {
    let n = ws.n;
    for (i, (&m, &off)) in ws.models.iter().zip(&ws.offsets).enumerate() {
        let b = m.impulse(&ws.g[off..off + m.dim()]);
        ws.impulses[3 * i..3 * i + 3].copy_from_slice(&b);
        let un = form.contact_velocity(i, 1, &ws.v[..n])[0];
        ws.next_gaps[i] = p.phi[i] + p.h * un;
    }
    ws.has_solution = true;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipm::iteration::residual;
    use crate::ipm::{ContactModel, NewtonSolve};
    use nalgebra::{DMatrix, DVector};

    fn lcg(s: &mut u64) -> f64 {
        *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }

    struct Data {
        m: DMatrix<f64>,
        v0: DVector<f64>,
        tau: DVector<f64>,
        jn: DMatrix<f64>,
        jt: DMatrix<f64>,
        phi: DVector<f64>,
        mu: DVector<f64>,
        off: DVector<f64>,
        models: Vec<ContactModel>,
    }

    fn data(n: usize, nc: usize, seed: u64) -> Data {
        let mut s = seed;
        let a = DMatrix::from_fn(n, n, |_, _| lcg(&mut s));
        Data {
            m: &a * a.transpose() + DMatrix::identity(n, n),
            v0: DVector::from_fn(n, |_, _| lcg(&mut s)),
            tau: DVector::from_fn(n, |_, _| 10.0 * lcg(&mut s)),
            jn: DMatrix::from_fn(nc, n, |_, _| lcg(&mut s)),
            jt: DMatrix::from_fn(2 * nc, n, |_, _| lcg(&mut s)),
            phi: DVector::from_fn(nc, |_, _| 0.01 * lcg(&mut s)),
            mu: DVector::from_element(nc, 0.6),
            off: DVector::from_fn(2 * nc, |_, _| 0.1 * lcg(&mut s)),
            models: (0..nc)
                .map(|i| [ContactModel::Linear, ContactModel::SecondOrderCone, ContactModel::Impact][i % 3])
                .collect(),
        }
    }

    impl Data {
        fn problem(&self) -> IpmProblem<'_> {
            IpmProblem {
                data: IpmData::Dense { m: self.m.as_view(), jn: self.jn.as_view(), jt: self.jt.as_view() },
                v0: self.v0.as_view(),
                tau: self.tau.as_view(),
                h: 0.05,
                phi: self.phi.as_view(),
                mu: self.mu.as_view(),
                models: &self.models,
                vt_offset: Some(self.off.as_view()),
            }
        }
    }

    /// §9.A8 (Dojo's `test/jacobian.jl`): the Newton matrix equals the finite-difference
    /// derivative of the residual (δ = 1e-5) to < 1e-6, for both ways of solving it: solving
    /// `R x = (FD of r along d)` must give back `d`.
    #[test]
    fn newton_matrix_matches_finite_differences_of_the_residual() {
        for mode in [NewtonSolve::Condensed, NewtonSolve::Dense] {
            let d = data(7, 5, 3);
            let p = d.problem();
            let mut solver =
                IpmSolver::new(IpmParameters { max_iter: 3, newton_solve: mode, ..Default::default() })
                    .unwrap();
            solver.solve(&p).unwrap();
            let ws = &mut solver.ws;
            let mut form = DenseForm::new(&mut solver.dense, d.m.as_view(), d.jn.as_view(), d.jt.as_view());
            let (n, kt) = (ws.n, ws.k_total);
            let big = n + 2 * kt;
            let mut seed = 99;
            let dir: Vec<f64> = (0..big).map(|_| lcg(&mut seed)).collect();
            let eval = |ws: &mut IpmWorkspace, form: &DenseForm<'_, '_>, eps: f64| {
                let mut v = ws.v[..n].to_vec();
                let mut s = ws.s[..kt].to_vec();
                let mut g = ws.g[..kt].to_vec();
                for (x, dx) in v.iter_mut().chain(s.iter_mut()).chain(g.iter_mut()).zip(&dir) {
                    *x += eps * dx;
                }
                let mut r = vec![0.0; big];
                let mut scratch = vec![0.0; n];
                residual(
                    form,
                    &p,
                    &ws.phi_eff,
                    ws.gap_h,
                    &ws.models,
                    &ws.offsets,
                    &ws.mu,
                    &ws.e,
                    &v,
                    &s,
                    &g,
                    0.0,
                    &[],
                    &mut scratch,
                    &mut r,
                );
                r
            };
            let delta = 1e-5;
            let (rp, rm) = (eval(ws, &form, delta), eval(ws, &form, -delta));
            let mut f: Vec<f64> = rp.iter().zip(&rm).map(|(a, b)| (a - b) / (2.0 * delta)).collect();
            let data = system_data!(ws);
            ws.newton.factor(mode, &data, &mut form, &ws.s[..kt], &ws.g[..kt], 0.0);
            ws.newton.solve_in_place(&data, &mut form, &mut f);
            let err = f.iter().zip(&dir).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            assert!(err < 1e-6, "{mode:?}: {err:e}");
        }
    }

    #[test]
    fn condensed_and_dense_newton_give_the_same_iterates() {
        let d = data(9, 6, 5);
        let p = d.problem();
        for base in [IpmParameters::dojo(), IpmParameters::default()] {
            let prm = IpmParameters { btol: 1e-8, rtol: 1e-8, complementarity_tolerance: 1e-9, ..base };
            let mut a = IpmSolver::new(prm).unwrap();
            let mut b = IpmSolver::new(IpmParameters { newton_solve: NewtonSolve::Dense, ..prm }).unwrap();
            assert_eq!(a.solve(&p).unwrap(), IpmOutcome::Converged);
            assert_eq!(b.solve(&p).unwrap(), IpmOutcome::Converged);
            assert_eq!(a.stats().iterations, b.stats().iterations);
            for (x, y) in a.velocities().iter().zip(b.velocities()) {
                assert!((x - y).abs() < 1e-9, "{x} {y}");
            }
            for (x, y) in a.impulses().iter().zip(b.impulses()) {
                assert!((x - y).abs() < 1e-9, "{x} {y}");
            }
            assert_eq!(a.stats().boundary_hits, 0);
        }
    }

    #[test]
    fn without_contacts_one_newton_step_solves_the_momentum_equation() {
        let d = data(4, 0, 1);
        let p = d.problem();
        let mut s = IpmSolver::default();
        assert_eq!(s.solve(&p).unwrap(), IpmOutcome::Converged);
        assert_eq!(s.stats().iterations, 1);
        let v = DVector::from_column_slice(s.velocities());
        let r = &d.m * (&v - &d.v0) - 0.05 * &d.tau;
        // Exact up to Dojo's REG·I on the diagonal of M (§2.1): |r| ≈ 1e-10·|Δv|.
        assert!(r.amax() < 1e-9, "{}", r.amax());
        assert!(s.impulses().is_empty());
    }

    #[test]
    fn warm_start_reuses_the_previous_solution_and_converges_to_the_same_point() {
        let d = data(6, 4, 8);
        let p = d.problem();
        for base in [IpmParameters::dojo(), IpmParameters::default()] {
            let tight = IpmParameters { btol: 1e-9, rtol: 1e-9, complementarity_tolerance: 1e-8, ..base };
            let mut cold = IpmSolver::new(tight).unwrap();
            assert_eq!(cold.solve(&p).unwrap(), IpmOutcome::Converged, "cold {:?}", cold.stats());
            let mut warm = IpmSolver::new(IpmParameters { warm_start: true, ..tight }).unwrap();
            warm.solve(&p).unwrap();
            assert_eq!(warm.solve(&p).unwrap(), IpmOutcome::Converged);
            for (x, y) in cold.velocities().iter().zip(warm.velocities()) {
                assert!((x - y).abs() < 1e-6, "{x} {y}");
            }
        }
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let d = data(3, 2, 2);
        let mut s = IpmSolver::default();
        assert_eq!(s.velocities(), &[] as &[f64]);
        let mut p = d.problem();
        p.h = 0.0;
        assert!(matches!(s.solve(&p), Err(IpmError::OutOfRange { what: "h", .. })));
        let mut p = d.problem();
        let short = DVector::from_element(1, 0.5);
        p.mu = short.as_view();
        assert!(matches!(s.solve(&p), Err(IpmError::DimensionMismatch { what: "mu", .. })));
        let neg = DVector::from_element(2, -0.5);
        let mut p = d.problem();
        p.mu = neg.as_view();
        assert!(matches!(s.solve(&p), Err(IpmError::OutOfRange { what: "mu", .. })));
        let mut nan = d.tau.clone();
        nan[1] = f64::NAN;
        let mut p = d.problem();
        p.tau = nan.as_view();
        assert!(matches!(s.solve(&p), Err(IpmError::NonFinite { what: "tau", index: 1 })));
        let models = [ContactModel::Impact];
        let mut p = d.problem();
        p.models = &models;
        assert!(matches!(s.solve(&p), Err(IpmError::DimensionMismatch { what: "Jn", .. })));
        let g = DVector::from_element(2, 0.0);
        assert!(matches!(
            s.solve_with_guess(&d.problem(), g.as_view()),
            Err(IpmError::DimensionMismatch { what: "v_guess", .. })
        ));
        for bad in [
            IpmParameters { rtol: 0.0, ..Default::default() },
            IpmParameters { btol: f64::NAN, ..Default::default() },
            IpmParameters { max_ls: 0, ..Default::default() },
            IpmParameters { undercut: 0.0, ..Default::default() },
            IpmParameters { no_progress_undercut: 0.5, ..Default::default() },
            IpmParameters { fixed_kappa: -1.0, ..Default::default() },
        ] {
            assert!(IpmSolver::new(bad).is_err());
            assert!(s.set_parameters(bad).is_err());
        }
        assert_eq!(*s.parameters(), IpmParameters::default());
    }

    #[test]
    fn rvio_floor_in_backtracking_is_off_by_default_and_reaches_the_same_solution() {
        assert!(!IpmParameters::default().rvio_floor_in_backtracking);
        let d = data(9, 6, 5);
        let p = d.problem();
        let tight = IpmParameters { btol: 1e-9, rtol: 1e-9, ..IpmParameters::dojo() };
        let mut a = IpmSolver::new(tight).unwrap();
        let mut b = IpmSolver::new(IpmParameters { rvio_floor_in_backtracking: true, ..tight }).unwrap();
        assert_eq!(a.solve(&p).unwrap(), IpmOutcome::Converged);
        assert_eq!(b.solve(&p).unwrap(), IpmOutcome::Converged);
        for (x, y) in a.velocities().iter().zip(b.velocities()) {
            assert!((x - y).abs() < 1e-6, "{x} {y}");
        }
    }

    #[test]
    fn singular_mass_matrix_without_contacts_hits_the_iteration_limit() {
        let mut d = data(3, 0, 4);
        d.m.fill(0.0);
        let mut s = IpmSolver::new(IpmParameters::dojo()).unwrap();
        let out = s.solve(&d.problem()).unwrap();
        // M = 0: the momentum residual −hτ cannot change; REG·I keeps the steps finite, the
        // backtracking accepts the equal violation, and the solve runs out of iterations.
        assert_eq!(out, IpmOutcome::MaxIterationsReached);
        assert_eq!(s.stats().iterations, 50);
        assert!(s.velocities().iter().all(|x| x.is_finite()));
        // The engine iteration does not regularize M: the Newton step is not finite, the status
        // says so and the returned iterate is the start (v0), the best by merit.
        let mut s = IpmSolver::default();
        assert_eq!(s.solve(&d.problem()).unwrap(), IpmOutcome::NonFiniteStep);
        assert_eq!(s.velocities(), d.v0.as_slice());
        assert_eq!(IpmOutcome::NonFiniteStep.code(), 42);
        assert_eq!(IpmOutcome::Converged.code(), 0);
        assert_eq!(IpmOutcome::MaxIterationsReached.code(), 41);
    }
}
