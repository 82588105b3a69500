//! The solver: interior initialization (§3), Mehrotra predictor–corrector with Dojo's cone
//! search, violation backtracking and undercut logic (§4), the fixed-κ Newton mode (§7), results
//! and statistics.

use nalgebra::DVectorView;

use super::form::{BlockForm, BlockWorkspace, DenseForm, DenseWorkspace, Form};
use super::model::REG;
use super::newton::{NewtonSystem, SystemData};
use super::sensitivity::Sensitivities;
use super::{ContactModel, IpmData, IpmError, IpmParameters, IpmProblem, NewtonSolve};
use crate::linalg::grow;

mod engine;
use engine::{WarmStart, iterate_engine};

/// How a solve ended. Codes 40..59 are the interior-point solver's range of the C API's status
/// codes (0..3 TAMSI, 100+ usage errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum IpmOutcome {
    /// Code 0 (`CTS_STATUS_OK`). Engine iteration (`docs/ipm.md` §11): scaled residual ≤ `tolerance` and scaled
    /// complementarity ≤ `complementarity_tolerance`. Dojo's iteration: `rvio < rtol` and
    /// `bvio < btol` (fixed-κ mode: `‖γ∘s − κe‖∞ < btol`).
    Converged = 0,
    /// Code 41: `max_iter` iterations done without meeting the tolerances; results hold the
    /// iterate of smallest merit (engine iteration) or the last iterate (Dojo's "failed" status,
    /// §4 step 1).
    MaxIterationsReached = 41,
    /// Code 42: a Newton direction was not finite (singular or overflowing system, e.g. a
    /// singular `M`); results hold the iterate of smallest merit (engine) or the last finite
    /// iterate (Dojo).
    NonFiniteStep = 42,
    /// Code 43 (engine iteration only): the returned iterate (the best by merit) does not meet
    /// the tolerances but meets 100× them: scaled residual ≤ 100·`tolerance` and scaled
    /// complementarity ≤ 100·`complementarity_tolerance` (`docs/ipm.md` §11.2). The iteration
    /// ended at `max_iter`, on a non-finite direction or by the stall exit.
    AlmostConverged = 43,
    /// Code 44 (engine iteration only): the stall exit (`stall_iterations`) stopped the
    /// iteration before `max_iter` far from the tolerances; results hold the best iterate.
    Stalled = 44,
}

impl IpmOutcome {
    /// The C status code: 0 for [`IpmOutcome::Converged`], else 41..44.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// Whether the tolerances were met.
    pub fn is_success(self) -> bool {
        self == Self::Converged
    }
}

/// Summary of the last solve.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct IpmStats {
    /// Newton steps taken (predictor–corrector iterations).
    pub iterations: usize,
    /// Final `rvio`: ∞-norm of the momentum and equality residuals.
    pub rvio: f64,
    /// Final `bvio`: ∞-norm of the raw complementarity products γ∘s.
    pub bvio: f64,
    /// Last κ target (N·s·m); the fixed κ in fixed-κ mode; 0 before any iteration.
    pub kappa: f64,
    /// Iterations whose backtracking found no acceptable candidate (the smallest was taken).
    pub line_search_exhausted: usize,
    /// Accepted iterates with a cone variable not strictly interior (should stay 0, §9.A7).
    pub boundary_hits: usize,
    /// Engine iteration (`docs/ipm.md` §11): scaled equality residual of the returned iterate,
    /// `max(‖r_dyn‖∞/P, ‖velocity rows‖∞/V, ‖μγ_n − ξ_0‖∞/P)`. Reference iteration: 0.
    pub residual: f64,
    /// Engine iteration: scaled complementarity of the returned iterate, `‖γ∘s‖∞/(P·V)`.
    /// Reference iteration: 0.
    pub complementarity: f64,
    /// Engine iteration: merit of the returned iterate,
    /// `max(residual/tolerance, complementarity/complementarity_tolerance,
    /// natural_map/natural_map_tolerance)` (the last term only with a tolerance > 0); ≤ 1 exactly
    /// when converged. Reference iteration: 0.
    pub merit: f64,
    /// Engine iteration: momentum scale `P` (N·s) of the problem (`docs/ipm.md` §11). Reference: 0.
    pub momentum_scale: f64,
    /// Engine iteration: velocity scale `V` (m/s) of the problem. Reference: 0.
    pub velocity_scale: f64,
    /// Engine iteration: Gondzio centrality correctors kept, over all iterations (§11.2).
    pub centrality_correctors: usize,
    /// Engine iteration: scaled natural-map error of the returned iterate (`docs/ipm.md` §11.8):
    /// `max_i ‖r̃_i − Π_K(r̃_i − (u_n + μ‖u_t‖, u_t))‖∞ / V` with the impulses in velocity units
    /// `r̃ = r·V/P`, over the second-order-cone and impact contacts. Reference iteration: 0.
    pub natural_map: f64,
}

/// Grow-only storage of the solver: problem layout, iterate, residuals, Newton factorization,
/// results, histories and sensitivities.
#[derive(Debug, Clone, Default)]
pub struct IpmWorkspace {
    pub(crate) n: usize,
    pub(crate) nc: usize,
    pub(crate) k_total: usize,
    pub(crate) models: Vec<ContactModel>,
    pub(crate) offsets: Vec<usize>,
    pub(crate) mu: Vec<f64>,
    pub(crate) v: Vec<f64>,
    pub(crate) s: Vec<f64>,
    pub(crate) g: Vec<f64>,
    vc: Vec<f64>,
    sc: Vec<f64>,
    gc: Vec<f64>,
    /// Residual `[r_dyn | γ∘s (raw) | r_eq]` at the iterate and at the candidate.
    r: Vec<f64>,
    rc: Vec<f64>,
    daff: Vec<f64>,
    delta: Vec<f64>,
    scratch: Vec<f64>,
    e: Vec<f64>,
    pub(crate) newton: NewtonSystem,
    /// Local impulses (normal, t1, t2) per contact, N·s.
    impulses: Vec<f64>,
    next_gaps: Vec<f64>,
    rvio_history: Vec<f64>,
    bvio_history: Vec<f64>,
    kappa_history: Vec<f64>,
    alpha_history: Vec<f64>,
    pub(crate) stats: IpmStats,
    /// The last engine solve's cone variables by contact id, for the next warm start.
    previous: PreviousSolution,
    /// Whether the last engine solve had contact ids (`previous` holds its solution).
    previous_has_ids: bool,
    pub(crate) has_solution: bool,
    pub(crate) sens: Sensitivities,
    /// Gap row `φ_i·phi_scale + gap_h·J_n,i v − s_n,i`: Dojo's `(1, h)` (gap in m) in the reference
    /// iteration, `(1/h, 1)` (separating velocity in m/s) in the engine iteration.
    pub(crate) phi_scale: f64,
    pub(crate) gap_h: f64,
    pub(crate) phi_eff: Vec<f64>,
    /// Normal compliance `R_n,i` (1/kg) per contact of the engine iteration (§11.3, §11.7): the
    /// gap rows read `φ/h + J_n v + R_n,i γ_n − s_n`. Empty for hard contact and for Dojo's
    /// iteration; capacity nc once set up.
    pub(crate) compliance: Vec<f64>,
    /// Whether the last setup was for the engine iteration (warm start needs the same units).
    pub(crate) engine: bool,
    /// `p* = M v0 + hτ`, then the free velocity `M⁻¹p*` (engine scales).
    pub(crate) p_star: Vec<f64>,
    pub(crate) v_free: Vec<f64>,
    /// Nesterov–Todd data per contact (21 numbers, see `SystemData::nt`).
    nt: Vec<f64>,
    best_v: Vec<f64>,
    best_s: Vec<f64>,
    best_g: Vec<f64>,
}

/// The cone variables of the last engine solve that had contact ids (`docs/ipm.md` §11.5),
/// grow-only.
#[derive(Debug, Clone, Default)]
struct PreviousSolution {
    ids: Vec<u64>,
    /// Contact indices sorted by id.
    order: Vec<usize>,
    models: Vec<ContactModel>,
    offsets: Vec<usize>,
    s: Vec<f64>,
    g: Vec<f64>,
}

impl PreviousSolution {
    /// Records the solution `(s, g)` of contacts `ids`.
    fn record(&mut self, ids: &[u64], models: &[ContactModel], offsets: &[usize], s: &[f64], g: &[f64]) {
        self.ids.clear();
        self.ids.extend_from_slice(ids);
        self.order.clear();
        self.order.extend(0..ids.len());
        let key = &self.ids;
        self.order.sort_unstable_by_key(|&j| key[j]);
        self.models.clear();
        self.models.extend_from_slice(models);
        self.offsets.clear();
        self.offsets.extend_from_slice(offsets);
        self.s.clear();
        self.s.extend_from_slice(s);
        self.g.clear();
        self.g.extend_from_slice(g);
    }

    /// Grows the storage for `nc` contacts of total dimension `k` (so that recording allocates
    /// nothing once grown).
    fn reserve(&mut self, nc: usize, k: usize) {
        fn at_least<T>(v: &mut Vec<T>, n: usize) {
            v.reserve(n.saturating_sub(v.len()));
        }
        at_least(&mut self.ids, nc);
        at_least(&mut self.order, nc);
        at_least(&mut self.models, nc);
        at_least(&mut self.offsets, nc);
        at_least(&mut self.s, k);
        at_least(&mut self.g, k);
    }
}

/// Violation measures of one point.
#[derive(Debug, Clone, Copy)]
struct Viol {
    rvio: f64,
    bvio: f64,
    /// ∞-norm of γ∘s − κe (fixed-κ mode).
    cvio: f64,
    /// Parts of `rvio`: momentum rows (N·s), velocity-unit equality rows (gap rows in the
    /// engine's units, tangential rows), impulse-unit rows (`μγ_n − ξ_0`, linear model's ψ row).
    dyn_norm: f64,
    vel_norm: f64,
    imp_norm: f64,
}

impl Viol {
    const NAN: Self = Self {
        rvio: f64::NAN,
        bvio: f64::NAN,
        cvio: f64::NAN,
        dyn_norm: f64::NAN,
        vel_norm: f64::NAN,
        imp_norm: f64::NAN,
    };
}

impl IpmWorkspace {
    /// Records the problem's layout and grows every buffer to its size.
    fn setup(&mut self, p: &IpmProblem<'_>, max_iter: usize, mode: super::NewtonSolve, engine: bool) {
        let n = p.num_velocities();
        let nc = p.num_contacts();
        self.n = n;
        self.nc = nc;
        self.engine = engine;
        self.compliance.clear();
        if self.compliance.capacity() < nc {
            self.compliance.reserve(nc);
        }
        (self.phi_scale, self.gap_h) = if engine { (1.0 / p.h, 1.0) } else { (1.0, p.h) };
        self.phi_eff.clear();
        self.phi_eff.extend(p.phi.iter().map(|&x| x * self.phi_scale));
        grow(&mut self.nt, 21 * nc);
        self.models.clear();
        self.models.extend_from_slice(p.models);
        self.offsets.clear();
        let mut k = 0;
        for m in p.models {
            self.offsets.push(k);
            k += m.dim();
        }
        self.k_total = k;
        self.mu.clear();
        self.mu.extend(p.mu.iter().copied());
        let big = n + 2 * k;
        for buf in [&mut self.v, &mut self.vc, &mut self.p_star, &mut self.v_free, &mut self.best_v] {
            grow(buf, n);
        }
        for buf in [
            &mut self.s,
            &mut self.g,
            &mut self.sc,
            &mut self.gc,
            &mut self.e,
            &mut self.best_s,
            &mut self.best_g,
        ] {
            grow(buf, k);
        }
        for buf in [&mut self.r, &mut self.rc, &mut self.daff, &mut self.delta, &mut self.scratch] {
            grow(buf, big);
        }
        grow(&mut self.impulses, 3 * nc);
        grow(&mut self.next_gaps, nc);
        for h in
            [&mut self.rvio_history, &mut self.bvio_history, &mut self.kappa_history, &mut self.alpha_history]
        {
            h.clear();
            if h.capacity() < max_iter + 1 {
                h.reserve(max_iter + 1);
            }
        }
        for (i, m) in p.models.iter().enumerate() {
            let off = self.offsets[i];
            m.neutral(&mut self.e[off..off + m.dim()]);
        }
        self.newton.reserve(mode, n, nc, k);
        if engine {
            self.previous.reserve(nc, k);
        }
        self.newton.factored = false;
    }
}

/// The Newton system's data from the workspace's fields (a macro so the borrows stay disjoint
/// from `ws.newton` and the iterate buffers).
macro_rules! system_data {
    ($ws:expr) => {
        system_data!($ws, &[])
    };
    ($ws:expr, $nt:expr) => {
        SystemData {
            h: $ws.gap_h,
            mu: &$ws.mu,
            models: &$ws.models,
            offsets: &$ws.offsets,
            n: $ws.n,
            k_total: $ws.k_total,
            nt: $nt,
            shift_normal: 0.0,
            shift_tangent: 0.0,
            compliance: &$ws.compliance,
        }
    };
}
pub(crate) use system_data;

/// Evaluates `r = [M(v − v0) − hτ − Jᵀb | γ∘s | r_eq]` (raw products in the middle block) and the
/// violation measures (§4) with κ for the centred measure.
#[allow(clippy::too_many_arguments)]
fn residual<F: Form>(
    form: &F,
    p: &IpmProblem<'_>,
    phi: &[f64],
    gap_h: f64,
    models: &[ContactModel],
    offsets: &[usize],
    mu: &[f64],
    e: &[f64],
    v: &[f64],
    s: &[f64],
    g: &[f64],
    kappa: f64,
    compliance: &[f64],
    dv: &mut [f64],
    r: &mut [f64],
) -> Viol {
    let n = v.len();
    let kt = s.len();
    let (rd, rk) = r.split_at_mut(n);
    let (rc, re) = rk.split_at_mut(kt);
    for ((d, &x), &x0) in dv.iter_mut().zip(v).zip(p.v0.iter()) {
        *d = x - x0;
    }
    for (x, &t) in rd.iter_mut().zip(p.tau.iter()) {
        *x = -p.h * t;
    }
    form.add_mass_product(dv, rd);
    let mut nan = false;
    let mut bvio: f64 = 0.0;
    let mut cvio: f64 = 0.0;
    let mut vel_norm: f64 = 0.0;
    let mut imp_norm: f64 = 0.0;
    for (i, (&model, &off)) in models.iter().zip(offsets).enumerate() {
        let k = model.dim();
        let (si, gi) = (&s[off..off + k], &g[off..off + k]);
        let dirs = if model == ContactModel::Impact { 1 } else { 3 };
        let mut u = form.contact_velocity(i, dirs, v);
        if let Some(o) = &p.vt_offset {
            for (a, ua) in u.iter_mut().enumerate().take(dirs).skip(1) {
                *ua += o[2 * i + a - 1];
            }
        }
        let b = model.impulse(gi);
        form.sub_contact_impulse(i, dirs, &b, rd);
        model.equality_residual(&u, phi[i], gap_h, mu[i], si, gi, &mut re[off..off + k]);
        if let Some(&c) = compliance.get(i) {
            re[off] += c * gi[0];
        }
        model.product(gi, si, &mut rc[off..off + k]);
        for j in off..off + k {
            nan |= rc[j].is_nan() || re[j].is_nan();
            bvio = bvio.max(rc[j].abs());
            cvio = cvio.max((rc[j] - kappa * e[j]).abs());
            // Row 1 of the friction models is in impulse units (μγ_n − ξ_0, μγ_n − Σβ − s_ψ).
            if j == off + 1 {
                imp_norm = imp_norm.max(re[j].abs());
            } else {
                vel_norm = vel_norm.max(re[j].abs());
            }
        }
    }
    let mut dyn_norm: f64 = 0.0;
    for &x in rd.iter() {
        nan |= x.is_nan();
        dyn_norm = dyn_norm.max(x.abs());
    }
    if nan {
        return Viol::NAN;
    }
    Viol { rvio: dyn_norm.max(vel_norm).max(imp_norm), bvio, cvio, dyn_norm, vel_norm, imp_norm }
}

impl IpmWorkspace {
    /// [`residual`] at the current iterate (v, s, g) into `r`, or with `candidate` at the line
    /// search's candidate (vc, sc, gc) into `rc`, with `scratch` as the momentum buffer.
    fn residual_at<F: Form>(&mut self, form: &F, p: &IpmProblem<'_>, kappa: f64, candidate: bool) -> Viol {
        let (n, kt) = (self.n, self.k_total);
        let big = n + 2 * kt;
        let (v, s, g, r) = if candidate {
            (&self.vc, &self.sc, &self.gc, &mut self.rc)
        } else {
            (&self.v, &self.s, &self.g, &mut self.r)
        };
        residual(
            form,
            p,
            &self.phi_eff,
            self.gap_h,
            &self.models,
            &self.offsets,
            &self.mu,
            &self.e,
            &v[..n],
            &s[..kt],
            &g[..kt],
            kappa,
            &self.compliance,
            &mut self.scratch[..n],
            &mut r[..big],
        )
    }
}

/// Fraction-to-boundary step over all contacts, primal and dual separately (§4.1).
#[allow(clippy::too_many_arguments)]
fn cone_search(
    models: &[ContactModel],
    offsets: &[usize],
    s: &[f64],
    g: &[f64],
    ds: &[f64],
    dg: &[f64],
    tau_ort: f64,
    tau_soc: f64,
) -> f64 {
    let mut alpha: f64 = 1.0;
    for (&model, &off) in models.iter().zip(offsets) {
        let k = model.dim();
        let r = off..off + k;
        alpha = alpha.min(model.step(&s[r.clone()], &ds[r.clone()], tau_ort, tau_soc));
        alpha = alpha.min(model.step(&g[r.clone()], &dg[r], tau_ort, tau_soc));
    }
    alpha
}

/// `Σ sᵀγ` over contacts for the point `(s + α ds, γ + α dg)`.
fn duality(s: &[f64], g: &[f64], ds: &[f64], dg: &[f64], alpha: f64) -> f64 {
    s.iter()
        .zip(g)
        .zip(ds.iter().zip(dg))
        .map(|((&s, &g), (&ds, &dg))| (s + alpha * ds) * (g + alpha * dg))
        .sum()
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
    /// The caller's contact ids for the next solves ([`IpmSolver::set_contact_ids`]).
    contact_ids: Option<Vec<u64>>,
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
                let v = self.contact_ids.get_or_insert_with(Vec::new);
                v.clear();
                v.try_reserve(ids.len())
                    .map_err(|_| IpmError::Allocation { what: "contact ids", len: ids.len() })?;
                v.extend_from_slice(ids);
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
                Ok(run(&mut self.ws, &prm, p, &mut form, guess, ids))
            }
            IpmData::Blocks(system) => {
                check_block_newton_solve(prm.newton_solve)?;
                let mut form = BlockForm::new(&mut self.blocks, system)?;
                Ok(run(&mut self.ws, &prm, p, &mut form, guess, ids))
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
        ws.newton.reserve(self.params.newton_solve, n, nc, 6 * nc);
    }

    pub(crate) fn require_solution(&self) -> Result<(), IpmError> {
        self.check_solution()
    }
}

/// One solve over the data form `form`: setup, start, the engine or Dojo's iteration, results.
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
    ws.setup(p, prm.max_iter, prm.newton_solve, engine);
    let (n, kt) = (ws.n, ws.k_total);
    let big = n + 2 * kt;

    // §3: velocities from the guess, contact variables from e (or the previous solution),
    // shifted into the cone interior.
    match guess {
        Some(vg) => ws.v[..n].copy_from_slice(vg.as_slice()),
        None => {
            for (x, &y) in ws.v[..n].iter_mut().zip(p.v0.iter()) {
                *x = y;
            }
        }
    }
    // Velocities the form solves directly (the block form's trees without contact).
    for (x, &t) in ws.v_free[..n].iter_mut().zip(p.tau.iter()) {
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
            let alpha_aff =
                cone_search(&ws.models, &ws.offsets, &ws.s[..kt], &ws.g[..kt], ds, dg, 0.95, 0.95);
            // Step 4: centering.
            let (nu, nu_aff) = if total_degree > 0 {
                let deg = total_degree as f64;
                (
                    duality(&ws.s[..kt], &ws.g[..kt], ds, dg, 0.0) / deg,
                    duality(&ws.s[..kt], &ws.g[..kt], ds, dg, alpha_aff) / deg,
                )
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
        let alpha =
            cone_search(&ws.models, &ws.offsets, &ws.s[..kt], &ws.g[..kt], ds, dg, tau, tau.min(0.95));
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
        std::mem::swap(&mut ws.v, &mut ws.vc);
        std::mem::swap(&mut ws.s, &mut ws.sc);
        std::mem::swap(&mut ws.g, &mut ws.gc);
        std::mem::swap(&mut ws.r, &mut ws.rc);
        viol = cand;
        if !ws.models.iter().zip(&ws.offsets).all(|(&m, &off)| {
            let k = m.dim();
            m.is_interior(&ws.s[off..off + k]) && m.is_interior(&ws.g[off..off + k])
        }) {
            ws.stats.boundary_hits += 1;
        }
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

/// The block form has no full Newton matrix ([`NewtonSolve::Dense`] assembles the dense one).
pub(crate) fn check_block_newton_solve(mode: NewtonSolve) -> Result<(), IpmError> {
    match mode {
        NewtonSolve::Condensed => Ok(()),
        NewtonSolve::Dense => Err(IpmError::OutOfRange {
            what: "newton_solve",
            value: NewtonSolve::Dense as i32 as f64,
            requirement: "Condensed (0) for block-sparse data",
        }),
    }
}

#[derive(Clone, Copy)]
enum NewtonBuf {
    Affine,
    Delta,
}

/// Solves the Newton system for the right-hand side held in `daff` or `delta`, in place.
fn solve_newton<F: Form>(ws: &mut IpmWorkspace, form: &mut F, which: NewtonBuf) {
    let big = ws.n + 2 * ws.k_total;
    let data = system_data!(ws);
    let buf = match which {
        NewtonBuf::Affine => &mut ws.daff[..big],
        NewtonBuf::Delta => &mut ws.delta[..big],
    };
    ws.newton.solve_in_place(&data, form, buf);
}

/// `out = −r` with the complementarity block `−(γ∘s − κe)`.
fn build_rhs(r: &[f64], e: &[f64], n: usize, kt: usize, kappa: f64, out: &mut [f64]) {
    for (o, &x) in out.iter_mut().zip(r) {
        *o = -x;
    }
    for (o, &ej) in out[n..n + kt].iter_mut().zip(e) {
        *o += kappa * ej;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ipm::NewtonSolve;
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
