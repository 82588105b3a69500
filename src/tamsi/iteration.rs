//! The state a [`TamsiSolver`](super::TamsiSolver) keeps, which the solve (`solver.rs`) and the
//! sensitivities (`sensitivity.rs`) both use: the Newton iteration's state (per-contact state,
//! velocities, scratch), the data forms bound to their workspaces ([`run_in_form`]), and the
//! sensitivities' grow-only storage (`docs/tamsi.md` §7, `docs/tamsi_sensitivities.md`).

use super::contact_blocks::try_grow as grow;
use super::form::{
    BlockForm, BlockWorkspace, ContactOutputs, DenseForm, DenseWorkspace, Form, FusedOutputs, StepLimiter,
    update_coefficients,
};
use super::friction::ContactFriction;
use super::newton_matrix::UpdateCoefficients;
use super::normal::normal_force;
use super::problem::{NormalForceData, ProblemData};
use super::scheme::PARAMETERS;
use super::{CouplingScheme, TamsiError, TamsiProblem};
use crate::linalg::simd::{self, Simd, WithSimd};
use crate::parallel::PoolSlot;

/// Per-contact iteration state. Arrays have room for `capacity` contacts.
#[derive(Debug, Clone, Default)]
pub(super) struct ContactState {
    pub(super) capacity: usize,
    pub(super) vn: Vec<f64>,
    pub(super) vt: Vec<f64>,
    pub(super) fn_: Vec<f64>,
    /// `dfn/dvn` per contact (0 in the one-way scheme).
    pub(super) g: Vec<f64>,
    pub(super) friction: Vec<ContactFriction>,
    pub(super) dvn: Vec<f64>,
    pub(super) dvt: Vec<f64>,
    /// The limiter's α over all contacts (§7.1 step 4), written by a fused iteration only
    /// (`None`: some contact's factor failed).
    pub(super) fused_alpha: Option<f64>,
}

/// Iteration state.
#[derive(Debug, Clone)]
pub(super) struct Workspace {
    pub(super) iter: IterationState,
    /// The data-form-dependent parts: one grows only when its form is used.
    dense: DenseWorkspace,
    block: BlockWorkspace,
    /// The solver's worker pool (block data with `num_threads` ≥ 2) and the thread count asked
    /// for (`TamsiParameters::num_threads`).
    pool: PoolSlot,
    pub(super) threads: usize,
}

/// The form-independent state of the Newton iteration.
#[derive(Debug, Clone)]
pub(super) struct IterationState {
    pub(super) contacts: ContactState,
    pub(super) v: Vec<f64>,
    /// `−R`, then the Newton step Δv.
    pub(super) rhs: Vec<f64>,
    pub(super) tmp: Vec<f64>,
    /// Two scratch vectors of the forms' force length (`Jnᵀ fn` and `Jtᵀ ft`).
    pub(super) tmp2: Vec<f64>,
}

impl Workspace {
    /// A workspace for `nv` velocities with room for `capacity` contacts (allocation failure of
    /// the per-contact part is an error; the O(nv²) factorizations are probed by the C API).
    pub(super) fn new(nv: usize, capacity: usize) -> Result<Self, TamsiError> {
        let mut contacts = ContactState::default();
        contacts.reserve(capacity)?;
        let force_len = DenseForm::force_len(nv).max(BlockForm::force_len(nv));
        Ok(Self {
            iter: IterationState {
                contacts,
                v: vec![0.0; nv],
                rhs: vec![0.0; nv],
                tmp: vec![0.0; nv],
                tmp2: vec![0.0; 2 * force_len],
            },
            dense: DenseWorkspace::new(nv),
            block: BlockWorkspace::default(),
            pool: PoolSlot::default(),
            threads: 0,
        })
    }
}

impl IterationState {
    /// `rhs = −R`, with `R = M v − p* − dt·Jnᵀ fn − dt·Jtᵀ ft` (§4) evaluated left to right as
    /// Drake's Eigen expression is, so that rounding follows Drake's.
    #[inline(always)]
    pub(super) fn negative_residual<S: Simd, F: Form>(&mut self, simd: S, form: &F, p_star: &[f64], dt: f64) {
        let half = self.tmp2.len() / 2;
        let (tau_n, tau_t) = self.tmp2.split_at_mut(half);
        let c = &self.contacts;
        let forces = |i: usize| {
            let ft = c.friction[i].ft;
            (ft[0], ft[1], c.fn_[i])
        };
        form.negative_residual(simd, &self.v, p_star, dt, &mut self.rhs, tau_n, tau_t, forces);
    }
}

impl ContactState {
    /// Room for `nc` contacts; an allocation failure is an error (the capacity stays).
    pub(super) fn reserve(&mut self, nc: usize) -> Result<(), TamsiError> {
        if nc <= self.capacity {
            return Ok(());
        }
        let what = "TAMSI per-contact state";
        let two_nc = nc.checked_mul(2).ok_or(TamsiError::AllocationFailed {
            what,
            elements: usize::MAX,
            element_size: 8,
        })?;
        for v in [&mut self.vn, &mut self.fn_, &mut self.g, &mut self.dvn] {
            grow(v, nc, 0.0, what)?;
        }
        for v in [&mut self.vt, &mut self.dvt] {
            grow(v, two_nc, 0.0, what)?;
        }
        grow(&mut self.friction, nc, ContactFriction::default(), what)?;
        self.capacity = nc;
        Ok(())
    }

    /// vn, vt, fn (and its derivative g) and friction of every contact at velocities `v`
    /// (§7.1 steps 1.1–1.3).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn evaluate<S: Simd, F: Form>(
        &mut self,
        simd: S,
        form: &F,
        problem: &TamsiProblem<'_>,
        v: &[f64],
        dt: f64,
        vs: f64,
        eps_v: f64,
    ) {
        let nc = problem.num_contacts();
        let per_contact = per_contact(problem, dt, vs, eps_v);
        let out = ContactOutputs {
            vt: &mut self.vt[..2 * nc],
            vn: &mut self.vn[..nc],
            fn_: &mut self.fn_[..nc],
            g: &mut self.g[..nc],
            friction: &mut self.friction[..nc],
        };
        form.evaluate_contacts(simd, v, nc, out, &per_contact);
    }
}

impl IterationState {
    /// One Newton iteration's work at `v` (§7.1): the contacts at `v`, `rhs = −R(v)`, the Newton
    /// step `rhs = Δv` and the step's contact velocities `dvt`, `dvn`, one step after the other,
    /// or in one pool phase by islands when the form has it ([`Form::fused_iteration`], the same
    /// operations on every number). Returns `(factored, fused)`: after a fused iteration only
    /// `vt`, `dvt` and `dvn` of the contact state are current (evaluate again before reading the
    /// rest); after a failed factorization `dvt` and `dvn` are not.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn step<S: Simd, F: Form>(
        &mut self,
        simd: S,
        form: &mut F,
        problem: &TamsiProblem<'_>,
        dt: f64,
        vs: f64,
        eps_v: f64,
        limiter: &impl StepLimiter,
    ) -> (bool, bool) {
        let nc = problem.num_contacts();
        let two_way = problem.coupling_scheme() == CouplingScheme::TwoWay;
        let p_star = problem.p_star.as_slice();
        {
            let per_contact = per_contact(problem, dt, vs, eps_v);
            let c = &mut self.contacts;
            let out = FusedOutputs {
                vt: &mut c.vt[..2 * nc],
                dvt: &mut c.dvt[..2 * nc],
                dvn: &mut c.dvn[..nc],
                alpha: &mut c.fused_alpha,
            };
            if let Some(factored) = form.fused_iteration(
                simd,
                &self.v,
                p_star,
                two_way,
                &per_contact,
                limiter,
                &mut self.rhs,
                out,
            ) {
                return (factored, true);
            }
        }
        self.contacts.evaluate(simd, form, problem, &self.v, dt, vs, eps_v);
        self.negative_residual(simd, form, p_star, dt);
        let contacts = &mut self.contacts;
        let factored = form.newton_step(
            simd,
            two_way,
            #[inline(always)]
            |i| contacts.coefficients(i, two_way),
            &mut self.rhs,
            &mut self.tmp,
        );
        if factored {
            form.contact_velocities(simd, &self.rhs, &mut contacts.dvt[..2 * nc], &mut contacts.dvn[..nc]);
        }
        (factored, false)
    }
}

/// One contact's normal force, its derivative and friction from `(i, [vt0, vt1], vn)` (§7.1
/// steps 1.2–1.3; a [`PerContact`](super::form::PerContact)), inlined into the dispatch wherever
/// it is called.
#[inline(always)]
fn per_contact<'a>(
    problem: &'a TamsiProblem<'_>,
    dt: f64,
    vs: f64,
    eps_v: f64,
) -> impl Fn(usize, [f64; 2], f64) -> (f64, f64, ContactFriction) + Sync + 'a {
    // Plain slices: nalgebra's `Index` on a view is an out-of-line call per read, four per
    // contact per iteration (issue 29, the live loop's warm steps).
    let mu = problem.mu.as_slice();
    let normal = match &problem.normal {
        NormalForceData::OneWay { fn_ } => (fn_.as_slice(), None),
        NormalForceData::TwoWay { fn0, stiffness, dissipation } => {
            (fn0.as_slice(), Some((stiffness.as_slice(), dissipation.as_slice())))
        }
    };
    #[inline(always)]
    move |i: usize, [vt0, vt1]: [f64; 2], vn: f64| {
        let (fn_, g) = match normal {
            (fn_, None) => (fn_[i], 0.0),
            (fn0, Some((stiffness, dissipation))) => {
                normal_force(vn, fn0[i], stiffness[i], dissipation[i], dt)
            }
        };
        (fn_, g, ContactFriction::evaluate([vt0, vt1], fn_, mu[i], vs, eps_v))
    }
}

impl ContactState {
    /// `tau_n = Jnᵀ fn` and `tau_t = Jtᵀ ft` at the current state; both have the form's force
    /// length.
    #[inline(always)]
    pub(super) fn generalized_forces<S: Simd, F: Form>(
        &self,
        simd: S,
        form: &F,
        tau_n: &mut [f64],
        tau_t: &mut [f64],
    ) {
        form.generalized_forces(simd, tau_n, tau_t, |i| {
            let ft = self.friction[i].ft;
            (ft[0], ft[1], self.fn_[i])
        });
    }

    /// Contact i's coefficients `Cᵢ` of the Newton matrix at the current state (§4): the friction
    /// gradient block and, in the two-way scheme only, the coupling column.
    #[inline(always)]
    pub(super) fn coefficients(&self, i: usize, two_way: bool) -> UpdateCoefficients {
        update_coefficients(&self.friction[i], self.fn_[i], self.g[i], two_way)
    }
}

/// An operation on one problem that runs with the problem's data form bound to its workspace,
/// inside the best instruction set (see [`run_in_form`]).
pub(super) trait FormOp {
    type Output;
    fn run<S: Simd, F: Form>(self, simd: S, form: F, iter: &mut IterationState) -> Self::Output;
}

/// Runs `op` in the best instruction set available (see [`crate::linalg::simd`]) with the form of
/// `problem` bound to its workspace: one match per call, then the code is generic over the form.
pub(super) fn run_in_form<Op: FormOp>(ws: &mut Workspace, problem: &TamsiProblem<'_>, op: Op) -> Op::Output {
    struct Dispatch<'a, 'p, Op> {
        ws: &'a mut Workspace,
        data: ProblemData<'p>,
        op: Op,
    }
    impl<Op: FormOp> WithSimd for Dispatch<'_, '_, Op> {
        type Output = Op::Output;
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) -> Op::Output {
            let Workspace { iter, dense, block, pool, threads } = self.ws;
            match self.data {
                ProblemData::Dense { m, jn, jt } => {
                    self.op.run(simd, DenseForm { ws: dense, m, jn, jt }, iter)
                }
                ProblemData::Blocks(system) => {
                    let pool = pool.get(*threads, crate::linalg::grow_product_buffers);
                    self.op.run(simd, BlockForm { ws: block, system, pool }, iter)
                }
            }
        }
    }
    simd::dispatch(Dispatch { ws, data: problem.data, op })
}

/// What one contact contributes to `∂R/∂θ`, `∂R/∂v` and the force derivatives at the solution.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ContactPartials {
    /// `μ_reg·t̂`: `∂ft/∂fn = −μ_reg·t̂` (§4).
    pub(super) mu_t: [f64; 2],
    /// The soft slip direction `t̂` (§2.1).
    pub(super) t_hat: [f64; 2],
    /// `μ_reg(x)/μ · fn`: `∂ft/∂μ = −(μ_reg/μ)·fn·t̂`, N.
    pub(super) rho_fn: f64,
    pub(super) fn_: f64,
    pub(super) ft: [f64; 2],
    /// `dfn/dvn` (0 one-way), N·s/m.
    pub(super) g: f64,
    /// `D = −∂ft/∂vt` at fixed fn as `[D00, D01, D11]`, N·s/m (§2.4).
    pub(super) d: [f64; 3],
    /// `[∂fn/∂fn0, ∂fn/∂k, ∂fn/∂d, ∂fn/∂dt]` at fixed vn (two-way; 0 one-way).
    pub(super) explicit: [f64; 4],
}

/// Identity of dense problem data: the addresses and column strides of M, Jn and Jt.
type DenseKey = [usize; 6];

/// The [`DenseKey`] of `problem`, `None` for block-sparse data.
pub(super) fn dense_key(problem: &TamsiProblem<'_>) -> Option<DenseKey> {
    match &problem.data {
        ProblemData::Dense { m, jn, jt } => Some([
            m.as_ptr() as usize,
            m.strides().1,
            jn.as_ptr() as usize,
            jn.strides().1,
            jt.as_ptr() as usize,
            jt.strides().1,
        ]),
        ProblemData::Blocks(_) => None,
    }
}

/// Sensitivity state and grow-only storage of a [`TamsiSolver`](super::TamsiSolver).
#[derive(Debug, Clone, Default)]
pub(super) struct Sensitivities {
    /// The dense form's workspace (blocked Jacobian rows, assembly lists) was prepared by the
    /// last solve for the arrays with this key, and nothing prepared it since.
    pub(super) prepared: Option<DenseKey>,
    /// The workspace holds J factored at the last solve's solution, in the dense (`false`) or
    /// the block (`true`) form.
    pub(super) factored: Option<bool>,
    /// The full Jacobians of the last solve are in `jacobians`.
    pub(super) computed: bool,
    pub(super) scheme: Option<CouplingScheme>,
    pub(super) nv: usize,
    pub(super) nc: usize,
    /// `[parameter][output]`: rows(output) × columns(parameter), column-major.
    pub(super) jacobians: [[Vec<f64>; 3]; PARAMETERS],
    /// `∂L/∂θ` of the last vector–Jacobian product, per parameter.
    pub(super) gradient: [Vec<f64>; PARAMETERS],
    pub(super) partials: Vec<ContactPartials>,
    /// A right-hand side, then its solution (the form's force length).
    pub(super) col: Vec<f64>,
    pub(super) tmp: Vec<f64>,
    /// Contact velocities of `col`: `J_t col` (2nc) and `J_n col` (nc).
    pub(super) col_vt: Vec<f64>,
    pub(super) col_vn: Vec<f64>,
    /// Force changes of one normal-force column before scaling (nc and 2nc); `∂L/∂fn` through ft.
    pub(super) unit_fn: Vec<f64>,
    pub(super) unit_ft: Vec<f64>,
    pub(super) gbar_fn: Vec<f64>,
}

impl Sensitivities {
    /// Forgets everything of the last solve (a new solve, a resize).
    pub(super) fn invalidate(&mut self) {
        self.prepared = None;
        self.factored = None;
        self.computed = false;
    }

    /// Records that a solve of `problem` prepared the form's workspace.
    pub(super) fn solved(&mut self, problem: &TamsiProblem<'_>) {
        self.prepared = dense_key(problem);
    }

    /// Forgets the factorization and the preparation (an evaluation reused the form's storage).
    pub(super) fn invalidate_factorization(&mut self) {
        self.prepared = None;
        self.factored = None;
    }
}
