//! The interior-point C API (`cts_ipm_*`): Dojo's primal–dual interior-point contact solver with
//! second-order-cone friction and solution sensitivities (`docs/ipm.md`), behind an opaque
//! handle, with the conventions of `docs/c_api.md` and of the TAMSI API.
//!
//! One time step in generalized velocities: mass matrix `M` (n×n), pre-step velocity `v0`,
//! non-contact force `τ`, time step `h`, and per contact a gap `φ`, a normal row of `Jn`, two
//! tangent rows of `Jt`, a friction coefficient `μ` and a model kind. The unknowns are the next
//! velocity and the contact **impulses (N·s, not forces)**.

#![allow(non_snake_case)] // argument names follow the spec and the TAMSI API: M, Jn, Jt, ld_M, ...

use std::ffi::c_char;

use super::alloc;
use super::batch::{self, BatchMark, Batched};
use super::block_sparse::{RawBlockSparse, cts_block_sparse_data};
use super::guard::{ErrorSlot, guard};
use super::handle::{
    self, Call, Results, copy_history, copy_result, get_struct, impl_handle, read, saturating_i32,
    set_parameters, solved, with_mut, with_ref,
};
use super::message::{self, g};
use super::status::{FfiError, cts_status};
use super::view::{
    RawMatrix, RawVector, copy_out_matrix, finite_output, finite_output_matrix, finite_outputs, int_slice,
};
use crate::block_sparse::BlockSparseLayout;
use crate::ipm::{
    ContactModel, IpmData, IpmError, IpmOutcome, IpmParameters, IpmProblem, IpmSolver, NewtonSolve,
    SensitivityParameter,
};

/// Contact model kind (`models[i]`): frictionless impact; one complementarity pair
/// (normal impulse γn ⟂ next gap). `Jt` rows and `mu` of such a contact are ignored (but must be
/// finite).
pub const CTS_IPM_MODEL_IMPACT: i32 = 0;
/// Contact model kind: isotropic Coulomb friction on the second-order cone
/// `|(b1, b2)| <= mu·γn` (Dojo's "nonlinear" model), maximum dissipation. The primary model.
pub const CTS_IPM_MODEL_SECOND_ORDER_CONE: i32 = 1;
/// Contact model kind: Dojo's "linear" friction with four directions ±t1, ±t2; the friction set is
/// the L1 ball `|b1| + |b2| <= mu·γn` (a diamond), which makes sliding bodies drift sideways.
pub const CTS_IPM_MODEL_LINEAR: i32 = 2;

/// `cts_ipm_parameters::newton_solve`: eliminate every contact's small block and factor the
/// condensed n×n matrix (partial-pivot LU). The default; cost O(n²·nc + n³) per iteration.
pub const CTS_IPM_NEWTON_SOLVE_CONDENSED: i32 = 0;
/// `cts_ipm_parameters::newton_solve`: factor the whole unsymmetric Newton matrix of size
/// n + 2·Σk_i (partial-pivot LU). Reference path for small problems.
pub const CTS_IPM_NEWTON_SOLVE_DENSE: i32 = 1;

/// Sensitivity parameter θ = v0 (n columns): derivatives with respect to the pre-step velocity.
pub const CTS_IPM_SENSITIVITY_V0: i32 = 0;
/// Sensitivity parameter θ = τ (n columns): derivatives with respect to the generalized force
/// (N). For a momentum `p* = M v0 + h τ`, divide by h.
pub const CTS_IPM_SENSITIVITY_TAU: i32 = 1;
/// Sensitivity parameter θ = φ (nc columns): derivatives with respect to the gaps (m).
pub const CTS_IPM_SENSITIVITY_PHI: i32 = 2;
/// Sensitivity parameter θ = μ (nc columns): derivatives with respect to the friction
/// coefficients (zero columns for impact contacts).
pub const CTS_IPM_SENSITIVITY_MU: i32 = 3;

/// Opaque interior-point solver handle (Dojo's solver). Create with `cts_ipm_solver_new`,
/// release with `cts_ipm_solver_free`. Not thread-safe: one handle must not be used by two threads
/// at once; distinct handles are independent.
pub struct cts_ipm_solver {
    error: ErrorSlot,
    inner: Inner,
}

impl_handle!(cts_ipm_solver => Inner);

/// Interior-point parameters (Dojo's `SolverOptions` plus this library's extensions). Fill with
/// `cts_ipm_parameters_default`, change fields, pass to `cts_ipm_solver_set_parameters`, which
/// validates them. Booleans are int32_t 0 or 1.
///
/// Units: `rtol` bounds the ∞-norm of the equality residuals, which mix N·s (momentum rows), m
/// (gap rows) and m/s (tangential-velocity rows); `btol` bounds the ∞-norm of the complementarity
/// products γ∘s (N·s·m for the normal pair: a resting contact hovers at about btol/γn meters).
/// Dojo does not normalize them; use btol <= 1e-6 for accuracy work.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cts_ipm_parameters {
    /// Tolerance on rvio (∞-norm of the equality residuals); default 1e-6; finite, > 0.
    pub rtol: f64,
    /// Tolerance on bvio (∞-norm of the raw products γ∘s); default 1e-4; finite, > 0.
    pub btol: f64,
    /// Maximum number of Newton (predictor–corrector) iterations; default 100 (Dojo's code: 50);
    /// in [0, 100000] (the iteration histories are reserved for all of them).
    pub max_iter: i32,
    /// Maximum number of backtracking halvings per iteration; default 10; in [1, 1000].
    pub max_ls: i32,
    /// The κ floor is btol/undercut; default INFINITY (floor 0); > 0, INFINITY allowed (the paper
    /// uses 5; 1 makes the final κ equal btol, for smoothed gradients).
    pub undercut: f64,
    /// Iterations without progress before undercut is multiplied by no_progress_undercut;
    /// default 3; >= 0.
    pub no_progress_max: i32,
    /// Factor applied to undercut after no_progress_max iterations without progress; default
    /// 10; finite, >= 1.
    pub no_progress_undercut: f64,
    /// 1: Dojo's lagged-κ predictor (compatibility: the predictor uses the previous iteration's κ
    /// target); 0 (default): textbook Mehrotra predictor with κ = 0.
    pub dojo_lagged_kappa: i32,
    /// Fixed-κ mode for smooth gradients when > 0: the solve returns the central-path point of
    /// this κ (N·s·m), converging on rvio < rtol and ‖γ∘s − κe‖∞ < btol. Default 0 (off); finite,
    /// >= 0.
    pub fixed_kappa: f64,
    /// 1: start the cone variables from the previous solve's solution (then the interior shift)
    /// when the contact layout (n and the model kinds) is unchanged; 0 (default): from the neutral
    /// vector, as Dojo does. Velocities always start from v0 or the guess.
    pub warm_start: i32,
    /// How the Newton system is solved: CTS_IPM_NEWTON_SOLVE_CONDENSED (0, default) or
    /// CTS_IPM_NEWTON_SOLVE_DENSE (1).
    pub newton_solve: i32,
    /// 1: the backtracking counts a candidate's rvio as not worse while it stays at or below
    /// max(rvio, 0.1·rtol), so an iterate whose rvio sits at its round-off floor far below rtol
    /// is not reduced to the smallest step whenever centring raises the largest product (not
    /// Dojo behaviour; hard problems such as Siconos' Capsules converge in ~20 instead of ~100
    /// iterations); 0 (default): Dojo's rule.
    pub rvio_floor_in_backtracking: i32,
    /// 1: Dojo's reference iteration with the absolute tolerances rtol/btol and Dojo's verdict
    /// (the options max_ls … rvio_floor_in_backtracking apply to it only); 0 (default): the engine
    /// iteration (Nesterov–Todd scaled, velocity-level gap rows, scale-invariant convergence on
    /// tolerance/complementarity_tolerance, best iterate on failure). fixed_kappa > 0 always
    /// runs the reference iteration.
    pub dojo_compatible: i32,
    /// Engine iteration: relative tolerance of the equality residuals: ‖momentum residual‖∞ ≤
    /// tolerance·P, ‖velocity rows‖∞ ≤ tolerance·V, ‖μγn − ξ0‖∞ ≤ tolerance·P, with the momentum
    /// scale P (N·s) and velocity scale V (m/s) reported in cts_ipm_stats. Default 1e-8; finite,
    /// > 0.
    pub tolerance: f64,
    /// Engine iteration: relative tolerance of the complementarity, ‖γ∘s‖∞ ≤
    /// complementarity_tolerance·P·V (normal pair: impulse × predicted separating velocity).
    /// Default 1e-6; finite, > 0.
    pub complementarity_tolerance: f64,
    /// Engine iteration: Gondzio centrality correctors per iteration (extra right-hand sides on
    /// the same factorization that move lagging pairs' products towards the centring target;
    /// each kept only if it lengthens the step; docs/ipm.md §11.2). Default 2; in [0, 10].
    pub centrality_correctors: i32,
    /// Engine iteration: initial proximal regularization of the impulse block relative to V/P
    /// (1/kg), divided by 10 every iteration down to 1e-10·V/P; it changes the Newton direction,
    /// never the residual or the answer (docs/ipm.md §11.2). Default 1e-2; finite, >= 0.
    pub proximal_regularization: f64,
    /// Engine iteration: normal compliance relative to V/P (docs/ipm.md §11.3). 0 (default) is hard
    /// contact; c > 0 makes every gap row φ/h + Jn·v + Rn·γn − sn = 0 with Rn = c·V/P (1/kg): a
    /// contact carrying the impulse γn ends the step penetrated by h·Rn·γn (soft normal contact,
    /// friction stays exact Coulomb). 0.1 makes resting piles converge in ~10 iterations; finite,
    /// >= 0.
    pub normal_compliance: f64,
    /// Engine iteration: stop when the best merit has not fallen by 10 % for this many
    /// iterations, or the step stayed below 1e-4 on 3 iterations in a row; the best iterate is
    /// returned with CTS_STATUS_IPM_ALMOST_CONVERGED or CTS_STATUS_IPM_STALLED (docs/ipm.md §11.2).
    /// Default 20; in [0, 100000]; 0 turns the exit off.
    pub stall_iterations: i32,
    /// Engine iteration: near-rigid regularization β of every contact's normal row (docs/ipm.md
    /// §11.7; unitless). 0 (default) is hard contact; with β > 0 contact i's gap row gets the
    /// compliance Rn,i = β²/(4π²)·wi (1/kg), wi = Jn,i M⁻¹ Jn,iᵀ its normal Delassus diagonal: the
    /// contact is a spring whose period on its effective mass is β·h; at rest a body sinks
    /// (β·h/2π)²·g (0.25 µm at h = 1 ms, β = 1). Friction stays exact Coulomb.
    /// cts_ipm_parameters_engine sets 1. Finite, >= 0.
    pub near_rigid_beta: f64,
    /// Engine iteration: tolerance of the scaled natural-map error that CTS_STATUS_OK also
    /// requires (docs/ipm.md §11.8): max over contacts of ‖r̃ − Π_K(r̃ − (un + μ‖ut‖, ut))‖∞ ≤
    /// natural_map_tolerance·V with the impulses in velocity units r̃ = r·V/P. Default 1e-6;
    /// cts_ipm_parameters_engine sets 0 (off); finite, >= 0.
    pub natural_map_tolerance: f64,
    /// Threads of a solve on block-sparse data (docs/performance.md §8): 0 or 1 (default) solve
    /// on the calling thread; n >= 2 assembles, factors and solves the islands' Newton matrices on
    /// the caller and n - 1 worker threads the handle owns (started by the first such solve, kept
    /// until the count changes or the handle is freed; a handle is still used by one thread at a
    /// time). Results are bit-identical to the sequential solve. Dense data ignores it. In
    /// [0, 256].
    pub num_threads: i32,
}

/// Summary of the last solve.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cts_ipm_stats {
    /// The status the last solve returned: CTS_STATUS_OK, CTS_STATUS_IPM_MAX_ITERATIONS_REACHED,
    /// CTS_STATUS_IPM_NON_FINITE_STEP, CTS_STATUS_IPM_ALMOST_CONVERGED or CTS_STATUS_IPM_STALLED.
    pub status: i32,
    /// Newton (predictor–corrector) iterations taken.
    pub iterations: i32,
    /// Final rvio: ∞-norm of the momentum (N·s) and equality residuals.
    pub rvio: f64,
    /// Final bvio: ∞-norm of the raw complementarity products γ∘s.
    pub bvio: f64,
    /// Last κ target (N·s·m); the fixed κ in fixed-κ mode; 0 before any iteration.
    pub kappa: f64,
    /// Iterations whose backtracking accepted no candidate (the smallest step was taken).
    pub line_search_exhausted: i32,
    /// Accepted iterates with a cone variable not strictly interior (should stay 0).
    pub boundary_hits: i32,
    /// Engine iteration: scaled equality residual of the returned iterate,
    /// max(‖momentum residual‖∞/P, ‖velocity rows‖∞/V, ‖μγn − ξ0‖∞/P); 0 for Dojo's iteration.
    pub residual: f64,
    /// Engine iteration: scaled complementarity ‖γ∘s‖∞/(P·V) of the returned iterate; 0 for
    /// Dojo's iteration.
    pub complementarity: f64,
    /// Engine iteration: merit max(residual/tolerance, complementarity/complementarity_tolerance,
    /// natural_map/natural_map_tolerance, the last term only with natural_map_tolerance > 0) of
    /// the returned iterate (<= 1 exactly when converged; on failure the returned iterate is the
    /// one of smallest merit, the start included); 0 for Dojo's iteration.
    pub merit: f64,
    /// Engine iteration: the momentum scale P (N·s) of the problem; 0 for Dojo's iteration.
    pub momentum_scale: f64,
    /// Engine iteration: the velocity scale V (m/s) of the problem; 0 for Dojo's iteration.
    pub velocity_scale: f64,
    /// Engine iteration: Gondzio centrality correctors kept over all iterations; 0 for Dojo's
    /// iteration.
    pub centrality_correctors: i32,
    /// Engine iteration: scaled natural-map error of the returned iterate (docs/ipm.md §11.8),
    /// max over the contacts of ‖r̃ − Π_K(r̃ − (u_n + μ‖u_t‖, u_t))‖∞ / V with the impulses in
    /// velocity units r̃ = r·V/P (dimensionless; Siconos' FC3D error up to its normalization);
    /// computed at every setting, also when natural_map_tolerance is 0; 0 for Dojo's iteration.
    pub natural_map: f64,
}

impl From<IpmParameters> for cts_ipm_parameters {
    fn from(p: IpmParameters) -> Self {
        Self {
            rtol: p.rtol,
            btol: p.btol,
            max_iter: saturating_i32(p.max_iter),
            max_ls: saturating_i32(p.max_ls),
            undercut: p.undercut,
            no_progress_max: saturating_i32(p.no_progress_max),
            no_progress_undercut: p.no_progress_undercut,
            dojo_lagged_kappa: i32::from(p.dojo_lagged_kappa),
            fixed_kappa: p.fixed_kappa,
            warm_start: i32::from(p.warm_start),
            newton_solve: p.newton_solve as i32,
            rvio_floor_in_backtracking: i32::from(p.rvio_floor_in_backtracking),
            dojo_compatible: i32::from(p.dojo_compatible),
            tolerance: p.tolerance,
            complementarity_tolerance: p.complementarity_tolerance,
            centrality_correctors: saturating_i32(p.centrality_correctors),
            proximal_regularization: p.proximal_regularization,
            normal_compliance: p.normal_compliance,
            stall_iterations: saturating_i32(p.stall_iterations),
            near_rigid_beta: p.near_rigid_beta,
            natural_map_tolerance: p.natural_map_tolerance,
            num_threads: saturating_i32(p.num_threads),
        }
    }
}

impl TryFrom<&cts_ipm_parameters> for IpmParameters {
    type Error = FfiError;
    fn try_from(p: &cts_ipm_parameters) -> Result<Self, FfiError> {
        let invalid = |detail: String| FfiError::new(cts_status::InvalidArgument, detail);
        let count = |name: &str, x: i32| {
            usize::try_from(x).map_err(|_| invalid(format!("{name} = {x} must be >= 0")))
        };
        let flag = |name: &str, x: i32| match x {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(invalid(format!("{name} = {x} must be 0 or 1"))),
        };
        let newton_solve = NewtonSolve::from_code(p.newton_solve).ok_or_else(|| {
            invalid(format!(
                "newton_solve = {} is not CTS_IPM_NEWTON_SOLVE_CONDENSED (0) or CTS_IPM_NEWTON_SOLVE_DENSE (1)",
                p.newton_solve
            ))
        })?;
        let params = IpmParameters {
            rtol: p.rtol,
            btol: p.btol,
            max_iter: count("max_iter", p.max_iter)?,
            max_ls: count("max_ls", p.max_ls)?,
            undercut: p.undercut,
            no_progress_max: count("no_progress_max", p.no_progress_max)?,
            no_progress_undercut: p.no_progress_undercut,
            dojo_lagged_kappa: flag("dojo_lagged_kappa", p.dojo_lagged_kappa)?,
            fixed_kappa: p.fixed_kappa,
            warm_start: flag("warm_start", p.warm_start)?,
            newton_solve,
            rvio_floor_in_backtracking: flag("rvio_floor_in_backtracking", p.rvio_floor_in_backtracking)?,
            dojo_compatible: flag("dojo_compatible", p.dojo_compatible)?,
            tolerance: p.tolerance,
            complementarity_tolerance: p.complementarity_tolerance,
            centrality_correctors: count("centrality_correctors", p.centrality_correctors)?,
            proximal_regularization: p.proximal_regularization,
            normal_compliance: p.normal_compliance,
            stall_iterations: count("stall_iterations", p.stall_iterations)?,
            near_rigid_beta: p.near_rigid_beta,
            natural_map_tolerance: p.natural_map_tolerance,
            num_threads: count("num_threads", p.num_threads)?,
        };
        params.validate()?;
        Ok(params)
    }
}

/// How M and the Jacobians were given.
#[derive(Clone, Copy)]
enum Matrices {
    Dense {
        m: RawMatrix,
        jn: RawMatrix,
        jt: RawMatrix,
    },
    /// Block-sparse; the structure is kept in [`Inner::layout`].
    Blocks(RawBlockSparse),
}

/// Borrowed problem data, validated when set (the model kinds are converted and kept in
/// [`Inner::models`], a block structure in [`Inner::layout`]).
#[derive(Clone, Copy)]
struct ProblemData {
    n: usize,
    nc: usize,
    matrices: Matrices,
    v0: RawVector,
    tau: RawVector,
    h: f64,
    phi: RawVector,
    mu: RawVector,
    vt_offset: Option<RawVector>,
}

impl ProblemData {
    /// The data as a problem of the Rust API; block data on `layout`, its structure. With
    /// `scan`, block values are checked finite (at the set call); afterwards only their lengths
    /// (they were checked when set and are unchanged, the borrowing rule).
    ///
    /// # Safety
    /// The caller's arrays must still be allocated and unchanged (the borrowing rule).
    unsafe fn problem<'a>(
        &self,
        models: &'a [ContactModel],
        layout: &'a BlockSparseLayout,
        scan: bool,
    ) -> Result<IpmProblem<'a>, FfiError> {
        // SAFETY: forwarded contract; the raw parts were validated when set.
        let data = unsafe {
            match self.matrices {
                Matrices::Dense { m, jn, jt } => IpmData::Dense { m: m.view(), jn: jn.view(), jt: jt.view() },
                Matrices::Blocks(b) if scan => IpmData::Blocks(b.system(layout)?),
                Matrices::Blocks(b) => IpmData::Blocks(b.checked_system(layout)?),
            }
        };
        // SAFETY: as above.
        Ok(unsafe {
            IpmProblem {
                data,
                v0: self.v0.view(),
                tau: self.tau.view(),
                h: self.h,
                phi: self.phi.view(),
                mu: self.mu.view(),
                models,
                vt_offset: self.vt_offset.map(|o| o.view()),
            }
        })
    }

    /// The data's vectors and scalars (the matrices come separately): n velocities, nc contacts.
    #[allow(clippy::too_many_arguments)]
    fn new(
        n: usize,
        nc: usize,
        matrices: Matrices,
        v0: *const f64,
        tau: *const f64,
        h: f64,
        phi: *const f64,
        mu: *const f64,
        vt_offset: *const f64,
        vt_offset_len: usize,
    ) -> Result<Self, FfiError> {
        let two_nc = two_nc(nc)?;
        Ok(Self {
            n,
            nc,
            matrices,
            v0: RawVector::new("v0", v0, n)?,
            tau: RawVector::new("tau", tau, n)?,
            h,
            phi: RawVector::new("phi", phi, nc)?,
            mu: RawVector::new("mu", mu, nc)?,
            vt_offset: match vt_offset_len {
                0 => None,
                len if len == two_nc => Some(RawVector::new("vt_offset", vt_offset, len)?),
                len => {
                    return Err(FfiError::new(
                        cts_status::DimensionMismatch,
                        format!("vt_offset: length {len}, expected 0 (none) or 2nc = {two_nc}"),
                    ));
                }
            },
        })
    }

    /// Total number of cone variables K = Σ k_i (k = 1, 4, 6 for impact, cone, linear).
    fn cone_variables(models: &[ContactModel]) -> usize {
        models.iter().map(|m| m.dim()).sum()
    }
}

#[doc(hidden)]
pub struct Inner {
    solver: IpmSolver,
    /// The borrowed problem data of the last successful set call.
    data: Option<ProblemData>,
    /// The model kinds of `data` (converted from the caller's int32 codes at the set call).
    models: Vec<ContactModel>,
    /// Conversion buffer of the next set call (swapped in on success).
    models_scratch: Vec<ContactModel>,
    /// The structure of the current block-sparse data (valid while `data` holds block data).
    layout: BlockSparseLayout,
    /// Whether the solver holds the results of a solve of the current data.
    solved: bool,
    /// Status of that solve.
    last_status: cts_status,
    /// Whether sensitivities of that solve have been computed.
    sensitivities: bool,
    /// Largest workspaces (in doubles) known to be allocatable, for solves and sensitivities.
    probed_solve: usize,
    probed_sensitivities: usize,
    /// Occurrences in the batch being set up (`ffi/batch.rs`); zero outside a batch call.
    batch: BatchMark,
}

impl Batched for cts_ipm_solver {
    fn mark(inner: &mut Inner) -> &mut BatchMark {
        &mut inner.batch
    }
}

impl Inner {
    fn new(solver: IpmSolver) -> Self {
        Self {
            solver,
            data: None,
            models: Vec::new(),
            models_scratch: Vec::new(),
            layout: BlockSparseLayout::new(),
            solved: false,
            last_status: cts_status::Ok,
            sensitivities: false,
            probed_solve: 0,
            probed_sensitivities: 0,
            batch: BatchMark::default(),
        }
    }

    fn data(&self) -> Result<ProblemData, FfiError> {
        self.data.ok_or_else(|| FfiError::new(cts_status::NoProblemData, "no problem data has been set"))
    }

    /// Converts the model codes, validates `data` (on `self.layout` for block data) and keeps it;
    /// on error the previous data and results stay.
    /// Sizes before data (`docs/c_api.md` §1.11): probes the workspace of a solve of `n`
    /// velocities and `nc` contacts with at most 6 cone variables per contact, before any of the
    /// caller's arrays is read.
    fn check_sizes(&mut self, n: usize, nc: usize, blocks: bool) -> Result<(), FfiError> {
        let params = self.solver.parameters();
        let kt_max = nc.checked_mul(6);
        let need =
            kt_max.and_then(|kt| solve_workspace(n, nc, kt, params.max_iter, params.newton_solve, blocks));
        probe(&mut self.probed_solve, need, || solve_workspace_name(n, nc, kt_max.unwrap_or(usize::MAX)))
    }

    fn set(&mut self, data: ProblemData, models: *const i32) -> Result<cts_status, FfiError> {
        // SAFETY: NULL or nc readable int32_t during this call (the contract).
        let codes = unsafe { int_slice("models", models, data.nc) }?;
        // Sizes before copying anything: the solve's workspace, then room for the decoded model
        // codes.
        self.check_sizes(data.n, data.nc, matches!(data.matrices, Matrices::Blocks(_)))?;
        let scratch = &mut self.models_scratch;
        alloc::try_reserve(scratch, data.nc, "the contact model codes (nc entries)")?;
        scratch.clear();
        for (i, &code) in codes.iter().enumerate() {
            let model = ContactModel::from_code(code).ok_or_else(|| {
                FfiError::new(
                    cts_status::InvalidArgument,
                    format!(
                        "models[{i}] = {code} is not CTS_IPM_MODEL_IMPACT (0), \
                         CTS_IPM_MODEL_SECOND_ORDER_CONE (1) or CTS_IPM_MODEL_LINEAR (2)"
                    ),
                )
            })?;
            scratch.push(model);
        }
        // SAFETY: the set call's arrays are valid during the call (the borrowing rule).
        unsafe { data.problem(scratch, &self.layout, true) }?.validate()?;
        std::mem::swap(&mut self.models, &mut self.models_scratch);
        self.data = Some(data);
        self.solved = false;
        self.sensitivities = false;
        Ok(cts_status::Ok)
    }
}

impl Results for Inner {
    type Solver = IpmSolver;
    fn results(&self) -> Result<&IpmSolver, FfiError> {
        solved(self.solved.then_some(&self.solver))
    }
}

impl Inner {
    /// The state of a clone (`cts_ipm_solver_clone`): parameters and workspace, no data and no
    /// results. The copy allocates as much as the original's workspace, at most the sizes probed
    /// for it.
    fn copy(&self) -> Result<Self, FfiError> {
        let bytes = self.probed_solve.checked_add(self.probed_sensitivities);
        alloc::probe(bytes, 1, &mut 0, || "a copy of the workspace".into(), "")?;
        let mut inner = Inner::new(self.solver.clone());
        inner.probed_solve = self.probed_solve;
        inner.probed_sensitivities = self.probed_sensitivities;
        Ok(inner)
    }

    /// Solves the current data from `v0` or from `guess`.
    fn solve(&mut self, guess: Option<RawVector>) -> Result<cts_status, FfiError> {
        let data = self.data()?;
        let kt = ProblemData::cone_variables(&self.models);
        let max_iter = self.solver.parameters().max_iter;
        let mode = self.solver.parameters().newton_solve;
        let blocks = matches!(data.matrices, Matrices::Blocks(_));
        let need = solve_workspace(data.n, data.nc, kt, max_iter, mode, blocks);
        probe(&mut self.probed_solve, need, || solve_workspace_name(data.n, data.nc, kt))?;
        // SAFETY: the borrowing rule keeps the problem data and the guess valid for this call.
        let problem = unsafe { data.problem(&self.models, &self.layout, false) }?;
        let outcome = match guess {
            // SAFETY: as above.
            Some(g) => self.solver.solve_with_guess(&problem, unsafe { g.view() })?,
            None => self.solver.solve(&problem)?,
        };
        self.solved = true;
        self.sensitivities = false;
        let status = cts_status::from(outcome);
        self.last_status = status;
        if outcome == IpmOutcome::Converged {
            if let Err(e) = check_outputs(&self.solver) {
                self.last_status = e.status;
                return Err(e);
            }
            return Ok(status);
        }
        let stats = self.solver.stats();
        // Formatted into the reused message buffer: a solve that ends without converging (e.g.
        // AlmostConverged in a live loop) allocates nothing once grown.
        if self.solver.parameters().uses_reference_iteration() {
            Err(FfiError::formatted(
                status,
                format_args!(
                    "{outcome:?} after {} iterations (rvio = {}, bvio = {}); the results hold the last {}iterate",
                    stats.iterations,
                    g(stats.rvio),
                    g(stats.bvio),
                    if outcome == IpmOutcome::NonFiniteStep { "finite " } else { "" }
                ),
            ))
        } else {
            Err(FfiError::formatted(
                status,
                format_args!(
                    "{outcome:?} after {} iterations; the results hold the iterate of smallest merit {} \
                     (scaled residual {}, scaled complementarity {}; rvio = {}, bvio = {})",
                    stats.iterations,
                    g(stats.merit),
                    g(stats.residual),
                    g(stats.complementarity),
                    g(stats.rvio),
                    g(stats.bvio)
                ),
            ))
        }
    }
}

/// Doubles a solve of this size keeps in its workspace (an upper bound of the largest items:
/// Newton factorization, contact blocks, Jacobian copy, iteration vectors, histories); `None`
/// when not addressable. Block data has no dense M or Jacobian copy: its islands' matrices are
/// grown fallibly by the solver itself (an error, not an abort).
fn solve_workspace(
    n: usize,
    nc: usize,
    kt: usize,
    max_iter: usize,
    mode: NewtonSolve,
    blocks: bool,
) -> Option<usize> {
    let big = n.checked_add(kt.checked_mul(2)?)?;
    let lu = match (mode, blocks) {
        (_, true) => 0,
        (NewtonSolve::Condensed, false) => n.checked_mul(n)?,
        (NewtonSolve::Dense, false) => big.checked_mul(big)?,
    };
    let jacobian = if blocks { 0 } else { nc.checked_mul(3)?.checked_mul(n)? };
    let blocks = nc.checked_mul(182)?;
    let vectors = big.checked_mul(16)?;
    let histories = max_iter.checked_add(1)?.checked_mul(4)?;
    lu.checked_add(jacobian)?.checked_add(blocks)?.checked_add(vectors)?.checked_add(histories)
}

/// 2nc, the rows of Jt and the length of `vt_offset`, when nc·2 doubles are addressable.
fn two_nc(nc: usize) -> Result<usize, FfiError> {
    nc.checked_mul(2)
        .filter(|&n| alloc::addressable(n, 8))
        .ok_or_else(|| alloc::too_large(&format!("nc = {nc} (Jt has 2nc rows)"), "nc must be below 2^59"))
}

/// How a failed probe of [`solve_workspace`] names the workspace.
fn solve_workspace_name(n: usize, nc: usize, kt: usize) -> String {
    format!(
        "n = {n}, nc = {nc} ({kt} cone variables): the solve's workspace of about n² (condensed) or \
         (n + 2·{kt})² (dense) + 3·nc·n + 182·nc doubles (block data: without the n² and 3·nc·n terms)"
    )
}

/// Doubles the sensitivity matrices need: ∂v/∂θ (n × (2n + 2nc)) and ∂λ/∂θ (3nc × (2n + 2nc)).
fn sensitivity_workspace(n: usize, nc: usize) -> Option<usize> {
    let cols = n.checked_add(nc)?.checked_mul(2)?;
    n.checked_add(nc.checked_mul(3)?)?.checked_mul(cols)
}

/// The final check of a converged solve: every output finite (`CTS_STATUS_NON_FINITE_RESULT`
/// naming the first that is not). O(outputs + iterations), once per solve.
fn check_outputs(s: &IpmSolver) -> Result<(), FfiError> {
    finite_outputs(&[
        ("v (generalized velocities)", s.velocities()),
        ("impulses", s.impulses()),
        ("next gaps", s.next_gaps()),
        ("primal", s.primal()),
        ("dual", s.dual()),
        (STATS_NAME, &stats_values(s.stats())),
        ("rvio history", s.rvio_history()),
        ("bvio history", s.bvio_history()),
        ("kappa history", s.kappa_history()),
        ("alpha history", s.alpha_history()),
    ])
}

/// The floating-point fields of `cts_ipm_stats`, in the order [`STATS_NAME`] lists them.
fn stats_values(s: &crate::ipm::IpmStats) -> [f64; 9] {
    [
        s.rvio,
        s.bvio,
        s.kappa,
        s.residual,
        s.complementarity,
        s.merit,
        s.momentum_scale,
        s.velocity_scale,
        s.natural_map,
    ]
}

const STATS_NAME: &str = "stats (rvio, bvio, kappa, residual, complementarity, merit, momentum_scale, velocity_scale, \
     natural_map)";

/// Makes sure a workspace of `need` doubles can be allocated before the solver grows to it (an
/// allocation failure would abort the host), remembering the largest size that could (see
/// [`alloc::probe_doubles`]); `what` names the workspace in the message.
fn probe(probed: &mut usize, need: Option<usize>, what: impl FnOnce() -> String) -> Result<(), FfiError> {
    alloc::probe_doubles(need, probed, what, "use fewer velocities or contacts")
}

/// Fills `*out` with Dojo's code defaults: rtol 1e-6, btol 1e-4, max_iter 50, max_ls 10, undercut
/// INFINITY, no_progress_max 3, no_progress_undercut 10, dojo_lagged_kappa 0, fixed_kappa 0,
/// warm_start 0, newton_solve CTS_IPM_NEWTON_SOLVE_CONDENSED, rvio_floor_in_backtracking 0.
/// NULL-safe (does nothing).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_parameters_default(out: *mut cts_ipm_parameters) {
    handle::write_default(out, || IpmParameters::default().into())
}

/// Fills `*out` with the engine preset (docs/ipm.md §11.7; Rust `IpmParameters::engine()`): the
/// defaults with near_rigid_beta 1 (per-contact near-rigid normal regularization, exact Coulomb
/// friction), natural_map_tolerance 0 and centrality_correctors 0. For an engine's contact step;
/// the defaults stay exact hard contact. Returns CTS_STATUS_OK, or CTS_STATUS_NULL_POINTER when `out` is NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_parameters_engine(out: *mut cts_ipm_parameters) -> cts_status {
    guard(None, || {
        // SAFETY: NULL or a writable struct (the contract).
        let out = unsafe { out.as_mut() }.ok_or_else(|| FfiError::null("cts_ipm_parameters_engine: out"))?;
        *out = IpmParameters::engine().into();
        Ok(cts_status::Ok)
    })
}

/// Creates an interior-point solver with default parameters and writes the handle to `*out`
/// (only on success). Sizes come with the problem data; the workspace grows to the largest
/// problem solved and is reused (no allocation in later solves of at most that size).
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER (`out` is NULL); failures leave their detail
/// in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_new(out: *mut *mut cts_ipm_solver) -> cts_status {
    handle::new(out, "cts_ipm_solver_new", || Ok(Inner::new(IpmSolver::default())))
}

/// Releases a solver. NULL is a no-op; freeing a handle twice is the caller's bug. Ends the borrow
/// of the problem data.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_free(solver: *mut cts_ipm_solver) {
    handle::free(solver)
}

/// Deep copy of a solver's parameters and workspace into a new handle `*out` (only on success),
/// for use on another thread. The copy has no problem data and no results to read (set data
/// before solving); with `warm_start = 1` its first solve may start from the original's last
/// solution, as the original's next solve would.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER (`solver` or `out` NULL) or
/// CTS_STATUS_ALLOCATION_FAILED (the copy's workspace was refused); failures leave their detail in
/// `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_clone(
    solver: *const cts_ipm_solver,
    out: *mut *mut cts_ipm_solver,
) -> cts_status {
    handle::clone(solver, out, "cts_ipm_solver_clone", Inner::copy)
}

/// Validates and sets the parameters (copied): each field must lie in the domain documented on
/// `cts_ipm_parameters`. Keeps the problem data and the results of the last solve (they take
/// effect at the next solve or sensitivity computation).
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, or CTS_STATUS_INVALID_ARGUMENT (nothing
/// changed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_set_parameters(
    solver: *mut cts_ipm_solver,
    p: *const cts_ipm_parameters,
) -> cts_status {
    set_parameters(solver, "cts_ipm_solver_set_parameters", p, |h, p, _| h.solver.set_parameters(p))
}

/// Sets the caller's contact ids for the following solves (copied; docs/ipm.md §11.5):
/// `ids[i]` (any uint64_t chosen by the caller, unique within a problem, e.g. an engine's geom
/// pair and the contact's index in it) names contact i of the problem data solved next. With the
/// parameter warm_start = 1, an engine solve starts every contact whose id the previous solve
/// (with ids) had from that contact's previous solution, and new contacts from the central start,
/// so contacts that appear, vanish or change order between steps keep their own warm start.
/// `ids` = NULL (with `len` = 0) clears them: warm start by position, as without ids. The ids
/// stay until changed; a solve whose problem has a contact count other than `len` fails with
/// CTS_STATUS_DIMENSION_MISMATCH. Keeps the problem data and the last results.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER (`solver`, or `ids` with `len` > 0),
/// CTS_STATUS_INVALID_ARGUMENT (`len` too large to address) or CTS_STATUS_ALLOCATION_FAILED
/// (nothing changed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_set_contact_ids(
    solver: *mut cts_ipm_solver,
    ids: *const u64,
    len: usize,
) -> cts_status {
    with_mut(solver, "cts_ipm_solver_set_contact_ids", Call::Keeps, |h| {
        if ids.is_null() {
            if len > 0 {
                return Err(super::message::null_with_len("ids", len, "uint64_t ids"));
            }
            h.solver.set_contact_ids(None)?;
            return Ok(cts_status::Ok);
        }
        if !alloc::addressable(len, std::mem::size_of::<u64>()) {
            return Err(FfiError::new(
                cts_status::InvalidArgument,
                format!("len = {len} uint64_t ids cannot be addressed"),
            ));
        }
        // SAFETY: non-NULL with `len` readable uint64_t values, per the contract.
        let ids = unsafe { std::slice::from_raw_parts(ids, len) };
        h.solver.set_contact_ids(Some(ids))?;
        Ok(cts_status::Ok)
    })
}

/// Copies the current parameters into `*out`.
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_parameters(
    solver: *const cts_ipm_solver,
    out: *mut cts_ipm_parameters,
) -> cts_status {
    get_struct(solver, "cts_ipm_solver_get_parameters", out, |h| Ok((*h.solver.parameters()).into()))
}

/// Sets the problem of one time step (`docs/ipm.md` §1.2): find the next generalized velocity v
/// and the contact impulses with
///
/// ```text
/// M (v − v0) − h τ − Σ_i [ Jn_iᵀ γn_i + Jt_iᵀ b_i ] = 0
/// 0 <= φ_i + h Jn_i v  ⟂  γn_i >= 0
/// b_i = −μ_i γn_i vt_i/|vt_i| when sliding, |b_i| <= μ_i γn_i when sticking
/// ```
///
/// with vt_i = Jt_i v (+ vt_offset_i) (second-order cone; the linear model bounds |b1| + |b2|
/// instead; impact contacts have no friction). Impulses γn (normal) and b (friction) are in N·s.
///
/// Sizes (n velocities, nc contacts), each matrix column-major with leading dimension
/// `ld_* >= max(1, rows)`:
/// - `M` n×n, mass matrix (kg, kg·m²), symmetric positive definite, read in full;
/// - `Jn` nc×n: row i maps v to contact i's normal velocity (m/s, positive apart);
/// - `Jt` 2nc×n: rows 2i, 2i+1 map v to contact i's velocity along its orthonormal tangents t1,
///   t2 (m/s);
/// - `v0` n: pre-step velocity (m/s, rad/s); the solve starts from it;
/// - `tau` n: generalized non-contact force (N, N·m: gravity, Coriolis, controls);
/// - `h`: time step (s), finite and > 0;
/// - `phi` nc: signed gaps at the current configuration (m; may be slightly negative); the
///   predicted next gap is φ + h·Jn v;
/// - `mu` nc: friction coefficients, >= 0;
/// - `models` nc: CTS_IPM_MODEL_IMPACT, CTS_IPM_MODEL_SECOND_ORDER_CONE or CTS_IPM_MODEL_LINEAR;
/// - `vt_offset`, `vt_offset_len`: optional tangential velocity offset added to Jt v (moving
///   surfaces, conveyor belts), `vt_offset_len` = 2nc; or `vt_offset_len` = 0 (pointer may be
///   NULL) for none.
///
/// Every value must be finite. `nc = 0` is allowed, with NULL contact arrays; so is `n = 0`.
///
/// The arrays are **borrowed**: read now (validation) and by every later solve and sensitivity
/// computation; they must stay allocated and unchanged until the next set call or
/// `cts_ipm_solver_free`. (The model kinds are copied at this call.) Setting data drops the
/// previous results and sensitivities; with `warm_start = 1` the next solve can still start from
/// the previous solution.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER (a non-empty array is NULL);
/// CTS_STATUS_INVALID_ARGUMENT (an `ld` below its row count, a non-finite value, h <= 0, μ < 0,
/// an unknown model kind, sizes whose workspace cannot exist); CTS_STATUS_DIMENSION_MISMATCH
/// (`vt_offset_len` neither 0 nor 2nc); CTS_STATUS_ALLOCATION_FAILED (the solve's workspace for
/// these sizes was refused; probed before any of the data is copied). On error the previous data
/// and results stay set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_set_problem_data(
    solver: *mut cts_ipm_solver,
    n: usize,
    nc: usize,
    M: *const f64,
    ld_M: usize,
    Jn: *const f64,
    ld_Jn: usize,
    Jt: *const f64,
    ld_Jt: usize,
    v0: *const f64,
    tau: *const f64,
    h: f64,
    phi: *const f64,
    mu: *const f64,
    models: *const i32,
    vt_offset: *const f64,
    vt_offset_len: usize,
) -> cts_status {
    with_mut(solver, "cts_ipm_solver_set_problem_data", Call::Starts, |inner| {
        let two_nc = two_nc(nc)?;
        let matrices = Matrices::Dense {
            m: RawMatrix::new("M", M, ld_M, n, n)?,
            jn: RawMatrix::new("Jn", Jn, ld_Jn, nc, n)?,
            jt: RawMatrix::new("Jt", Jt, ld_Jt, two_nc, n)?,
        };
        let data = ProblemData::new(n, nc, matrices, v0, tau, h, phi, mu, vt_offset, vt_offset_len)?;
        inner.set(data, models)
    })
}

/// Sets the problem data with M and the contact Jacobians in **block-sparse form**
/// (`docs/block_sparse.md`; `*data`, see `cts_block_sparse_data`, the struct TAMSI's block setters
/// take): M one dense block per tree, each contact's rows (normal, tangent 1, tangent 2: the rows
/// `Jn` i, `Jt` 2i, 2i+1 of `cts_ipm_solver_set_problem_data`) one 3×n_t block per tree it
/// touches. n = the sum of `data->tree_dofs`, nc = `data->num_contacts`; `v0`, `tau` (n), `h`,
/// `phi`, `mu`, `models` (nc), `vt_offset` (0 or 2nc) as in `cts_ipm_solver_set_problem_data`.
///
/// The solve is the same iteration as on dense data (iterates equal to round-off), with the
/// condensed Newton matrix assembled, factored and solved per island of trees coupled by
/// contacts (sparse factorization for large islands); trees that no contact touches get
/// `v_t = v0_t + M_t⁻¹ h τ_t` directly. Requires `newton_solve = CTS_IPM_NEWTON_SOLVE_CONDENSED`
/// (a solve with the dense Newton matrix returns CTS_STATUS_INVALID_ARGUMENT). The arrays, those
/// of `*data` included, are **borrowed** as in `cts_ipm_solver_set_problem_data`.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER (`data` NULL, or a non-empty array NULL);
/// CTS_STATUS_INVALID_ARGUMENT (a tree with < 1 dof, a contact tree out of range, repeated or
/// both -1, a non-finite value, h <= 0, μ < 0, an unknown model kind, sizes beyond the address
/// space); CTS_STATUS_DIMENSION_MISMATCH (`data->M_len`, `data->J_len` or `vt_offset_len` not as
/// described); CTS_STATUS_ALLOCATION_FAILED (the structure's tables or the solve's workspace for
/// these sizes were refused; the message names the size). On error the previous data (dense or
/// block, with its structure) and results stay set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_set_block_problem_data(
    solver: *mut cts_ipm_solver,
    data: *const cts_block_sparse_data,
    v0: *const f64,
    tau: *const f64,
    h: f64,
    phi: *const f64,
    mu: *const f64,
    models: *const i32,
    vt_offset: *const f64,
    vt_offset_len: usize,
) -> cts_status {
    with_mut(solver, "cts_ipm_solver_set_block_problem_data", Call::Starts, |inner| {
        // SAFETY: NULL or a readable struct (the contract).
        let blocks = unsafe { RawBlockSparse::new(data) }?;
        // Sizes before the structure is read: n is at least num_trees (every tree has a dof).
        inner.check_sizes(blocks.num_trees(), blocks.num_contacts(), true)?;
        // SAFETY: the set call's arrays are valid during the call. A structure error leaves the
        // layout as it was.
        unsafe { blocks.set_layout(&mut inner.layout) }?;
        let (n, nc) = (inner.layout.num_velocities(), blocks.num_contacts());
        let set =
            ProblemData::new(n, nc, Matrices::Blocks(blocks), v0, tau, h, phi, mu, vt_offset, vt_offset_len)
                .and_then(|data| inner.set(data, models));
        if set.is_err() {
            inner.layout.restore_previous();
        }
        set
    })
}

/// Solves the current problem starting from v = v0 (Dojo warm-starts velocities with the previous
/// step's solution, which is this step's v0).
///
/// Returns CTS_STATUS_OK (converged: the engine iteration's scaled tolerances, or with
/// dojo_compatible rvio < rtol and bvio < btol) or a solver outcome:
/// CTS_STATUS_IPM_MAX_ITERATIONS_REACHED, CTS_STATUS_IPM_NON_FINITE_STEP,
/// CTS_STATUS_IPM_ALMOST_CONVERGED (the best iterate meets 100× the tolerances) or
/// CTS_STATUS_IPM_STALLED (the stall exit, far from the tolerances); the engine iteration's
/// results then hold its best iterate by merit, Dojo's the last (finite) iterate; after an outcome
/// every getter works and `cts_ipm_solver_last_error` has the final rvio and bvio. Usage errors
/// (nothing solved, previous results kept): CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_PROBLEM_DATA,
/// CTS_STATUS_INVALID_ARGUMENT (the borrowed data became non-finite, or the problem's workspace
/// cannot exist), CTS_STATUS_ALLOCATION_FAILED (the workspace was refused).
/// CTS_STATUS_NON_FINITE_RESULT: converged, but an output (velocities, impulses, gaps, primal,
/// dual, stats, histories) is NaN or infinite; the results stay, and their getters report the
/// same status for non-finite values (`cts_ipm_stats.status` holds it too).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_solve(solver: *mut cts_ipm_solver) -> cts_status {
    with_mut(solver, "cts_ipm_solver_solve", Call::Starts, |h| h.solve(None))
}

/// Solves the current problem starting from the velocity guess `v_guess` (`n` doubles, m/s or
/// rad/s; finite; `n` must equal the problem's n). Only the velocities are warm-started; the
/// cone variables start from the neutral vector (or, with `warm_start = 1`, from the previous
/// solution).
///
/// Returns as `cts_ipm_solver_solve`, plus CTS_STATUS_DIMENSION_MISMATCH (`n`) and
/// CTS_STATUS_INVALID_ARGUMENT (a non-finite guess).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_solve_with_guess(
    solver: *mut cts_ipm_solver,
    v_guess: *const f64,
    n: usize,
) -> cts_status {
    with_mut(solver, "cts_ipm_solver_solve_with_guess", Call::Starts, |h| {
        let guess = RawVector::new("v_guess", v_guess, n)?;
        h.solve(Some(guess))
    })
}

/// Many worlds in one call (`docs/c_api.md` §1.10): world `i` is exactly
/// `cts_ipm_solver_solve(solvers[i])` when `v_guesses` is NULL or `v_guesses[i]` is NULL, else
/// `cts_ipm_solver_solve_with_guess(solvers[i], v_guesses[i], ns[i])` (same status in
/// `statuses[i]`, same last error on the handle, bit-identical results, read afterwards with the
/// usual getters), whatever `num_threads`. Each handle must have its problem data set; the
/// worlds are independent and one failing world does not stop the others.
///
/// `solvers` and `statuses` are arrays of `count` elements; `v_guesses` and `ns` are both NULL
/// (every world from its v0) or both arrays of `count` elements. All may be NULL when `count` is
/// 0 (nothing is done). `num_threads` 0 or 1 solves in order on the calling thread; more uses
/// `min(num_threads, count, 256)` threads, spawned for this call and joined before it returns.
///
/// Per world: a NULL `solvers[i]` gives CTS_STATUS_NULL_POINTER; a handle that appears more than
/// once gives CTS_STATUS_INVALID_ARGUMENT to every world that names it (none of them is solved;
/// detail in its last error); any other world gets the single call's status.
///
/// Returns CTS_STATUS_OK when the call was valid (even if worlds failed: read `statuses`),
/// CTS_STATUS_INVALID_ARGUMENT (`count` above 2^32 - 1; nothing is read) or
/// CTS_STATUS_NULL_POINTER (`solvers`, `statuses`, or `ns` with `v_guesses` non-NULL, NULL while
/// `count > 0`); on those nothing is written and the detail is in `cts_last_error_message()`.
/// Allocates nothing besides the worker threads and the messages of failing worlds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_solve_batch(
    solvers: *const *mut cts_ipm_solver,
    v_guesses: *const *const f64,
    ns: *const usize,
    count: usize,
    num_threads: usize,
    statuses: *mut cts_status,
) -> cts_status {
    let required = [("ns", !v_guesses.is_null() && ns.is_null())];
    // SAFETY: the arrays hold `count` elements (the C contract, checked non-NULL by `run`).
    unsafe {
        batch::run("cts_ipm_solver_solve_batch", solvers, count, &required, num_threads, statuses, |s, i| {
            match v_guesses.is_null() {
                true => cts_ipm_solver_solve(s),
                false => match *v_guesses.add(i) {
                    g if g.is_null() => cts_ipm_solver_solve(s),
                    g => cts_ipm_solver_solve_with_guess(s, g, *ns.add(i)),
                },
            }
        })
    }
}

/// Copies the generalized velocities v (n doubles; m/s or rad/s) of the last solve into `out`;
/// `len` must be n.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_DIMENSION_MISMATCH (`len`),
/// CTS_STATUS_NO_SOLUTION (no solve since the data was set), CTS_STATUS_NON_FINITE_RESULT (an
/// entry is NaN or infinite). Nothing is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_generalized_velocities(
    s: *const cts_ipm_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_ipm_solver_get_generalized_velocities", "v", out, len, |r| r.velocities())
}

/// Copies the contact impulses of the last solve (3nc doubles, N·s — impulses over the step, not
/// forces): for contact i, entries 3i, 3i+1, 3i+2 = (normal γn, friction along t1, friction along
/// t2). Second-order cone: (γn, ξ1, ξ2); linear: (γn, β3 − β4, β1 − β2); impact: (γn, 0, 0).
/// Statuses as for `cts_ipm_solver_get_generalized_velocities`; `len` must be 3nc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_impulses(
    s: *const cts_ipm_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_ipm_solver_get_impulses", "impulses", out, len, |r| r.impulses())
}

/// Copies the predicted next gaps φ + h·Jn v (nc doubles; m).
/// Statuses as for `cts_ipm_solver_get_generalized_velocities`; `len` must be nc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_next_gaps(
    s: *const cts_ipm_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_ipm_solver_get_next_gaps", "next gaps", out, len, |r| r.next_gaps())
}

/// Number of cone variables K = Σ k_i of the current problem data, the length of the primal and
/// dual vectors (k_i = 1 impact, 4 second-order cone, 6 linear); 0 without data or for a NULL
/// handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_num_cone_variables(s: *const cts_ipm_solver) -> usize {
    read(s, 0, |h| if h.data.is_some() { ProblemData::cone_variables(&h.models) } else { 0 })
}

/// Copies the raw primal cone variables γ of the last solve (K doubles, see
/// `cts_ipm_solver_num_cone_variables`; contacts one after the other): impact (γn); second-order
/// cone (γn, ξ0, ξ1, ξ2) with ξ0 = μγn; linear (γn, ψ, β1, β2, β3, β4) with β1..β4 along +t2, −t2,
/// +t1, −t1. Impulses in N·s. Statuses as for `cts_ipm_solver_get_generalized_velocities`; `len`
/// must be K.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_primal(
    s: *const cts_ipm_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_ipm_solver_get_primal", "primal", out, len, |r| r.primal())
}

/// Copies the raw dual cone variables s of the last solve (K doubles, layout of
/// `cts_ipm_solver_get_primal`): impact (s_n: next gap, m); second-order cone (s_n, η0, η1, η2)
/// with η0 the slip speed and (η1, η2) the tangential velocity (m/s); linear (s_n, s_ψ, s_β1..4).
/// Statuses as for `cts_ipm_solver_get_generalized_velocities`; `len` must be K.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_dual(
    s: *const cts_ipm_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_ipm_solver_get_dual", "dual", out, len, |r| r.dual())
}

/// Copies the statistics of the last solve into `*out`.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_SOLUTION,
/// CTS_STATUS_NON_FINITE_RESULT (a floating-point field is NaN or infinite).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_stats(
    s: *const cts_ipm_solver,
    out: *mut cts_ipm_stats,
) -> cts_status {
    get_struct(s, "cts_ipm_solver_get_stats", out, |h| {
        let stats = h.results()?.stats();
        finite_output(STATS_NAME, &stats_values(stats))?;
        Ok(cts_ipm_stats {
            status: h.last_status as i32,
            iterations: saturating_i32(stats.iterations),
            rvio: stats.rvio,
            bvio: stats.bvio,
            kappa: stats.kappa,
            line_search_exhausted: saturating_i32(stats.line_search_exhausted),
            boundary_hits: saturating_i32(stats.boundary_hits),
            residual: stats.residual,
            complementarity: stats.complementarity,
            merit: stats.merit,
            momentum_scale: stats.momentum_scale,
            velocity_scale: stats.velocity_scale,
            centrality_correctors: saturating_i32(stats.centrality_correctors),
            natural_map: stats.natural_map,
        })
    })
}

/// The rvio history of the last solve: rvio at the start and after every iteration (iterations + 1
/// entries). Writes `min(len, count)` entries to `out` and the history's length to `*count`; `out`
/// may be NULL when `len` is 0 (to query the length).
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER (`count`, or `out` with `len > 0`),
/// CTS_STATUS_NO_SOLUTION, CTS_STATUS_NON_FINITE_RESULT (an entry to be written is not finite).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_rvio_history(
    s: *const cts_ipm_solver,
    out: *mut f64,
    len: usize,
    count: *mut usize,
) -> cts_status {
    copy_history(s, "cts_ipm_solver_get_rvio_history", "history", out, len, count, |r| r.rvio_history())
}

/// The bvio history (∞-norm of the raw products γ∘s; iterations + 1 entries). As
/// `cts_ipm_solver_get_rvio_history`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_bvio_history(
    s: *const cts_ipm_solver,
    out: *mut f64,
    len: usize,
    count: *mut usize,
) -> cts_status {
    copy_history(s, "cts_ipm_solver_get_bvio_history", "history", out, len, count, |r| r.bvio_history())
}

/// The κ target chosen in every iteration (N·s·m; iterations entries). As
/// `cts_ipm_solver_get_rvio_history`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_kappa_history(
    s: *const cts_ipm_solver,
    out: *mut f64,
    len: usize,
    count: *mut usize,
) -> cts_status {
    copy_history(s, "cts_ipm_solver_get_kappa_history", "history", out, len, count, |r| r.kappa_history())
}

/// The accepted step length α of every iteration (iterations entries). As
/// `cts_ipm_solver_get_rvio_history`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_alpha_history(
    s: *const cts_ipm_solver,
    out: *mut f64,
    len: usize,
    count: *mut usize,
) -> cts_status {
    copy_history(s, "cts_ipm_solver_get_alpha_history", "history", out, len, count, |r| r.alpha_history())
}

/// Computes the sensitivities of the last solve's solution with respect to v0, τ, φ and μ by
/// implicit differentiation (`docs/ipm.md` §7): one factorization of the exact Newton matrix at
/// the returned iterate, then 2n + 2nc back-substitutions. The iterate is an interior point
/// (κ > 0), so these are the *smoothed* contact gradients; for a chosen smoothing solve in
/// fixed-κ mode (`fixed_kappa > 0`) with tight rtol and btol. Also allowed after
/// CTS_STATUS_IPM_MAX_ITERATIONS_REACHED (derivatives at the last iterate). Read them with
/// `cts_ipm_solver_get_velocity_sensitivity` and `cts_ipm_solver_get_impulse_sensitivity`.
/// Reads the borrowed problem data.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_SOLUTION (no solve of the current
/// data), CTS_STATUS_INVALID_ARGUMENT (the data became non-finite, or the sensitivity matrices
/// cannot exist), CTS_STATUS_ALLOCATION_FAILED (they were refused), CTS_STATUS_NON_FINITE_RESULT
/// (a sensitivity entry is NaN or infinite, e.g. at a degenerate solution; the getters of that
/// matrix report the same).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_compute_sensitivities(solver: *mut cts_ipm_solver) -> cts_status {
    with_mut(solver, "cts_ipm_solver_compute_sensitivities", Call::Keeps, |h| {
        h.results()?;
        let data = h.data()?;
        probe(&mut h.probed_sensitivities, sensitivity_workspace(data.n, data.nc), || {
            format!(
                "n = {}, nc = {}: the sensitivities' workspace of (n + 3·nc)·2·(n + nc) doubles",
                data.n, data.nc
            )
        })?;
        h.sensitivities = false;
        // SAFETY: the borrowing rule keeps the problem data valid for this call.
        let problem = unsafe { data.problem(&h.models, &h.layout, false) }?;
        h.solver.compute_sensitivities(&problem)?;
        h.sensitivities = true;
        for param in [
            SensitivityParameter::V0,
            SensitivityParameter::Tau,
            SensitivityParameter::Phi,
            SensitivityParameter::Mu,
        ] {
            finite_output_matrix("velocity sensitivity", &h.solver.velocity_sensitivity(param)?)?;
            finite_output_matrix("impulse sensitivity", &h.solver.impulse_sensitivity(param)?)?;
        }
        Ok(cts_status::Ok)
    })
}

/// Copies one sensitivity matrix (rows × cols, column-major) into `(out, ld_out)`: the getters'
/// body, with `out` as C passed it (NULL or `ld_out*(cols-1)+rows` writable doubles).
fn copy_sensitivity(
    solver: *const cts_ipm_solver,
    function: &'static str,
    parameter: i32,
    out: *mut f64,
    ld_out: usize,
    cols: usize,
    impulses: bool,
) -> cts_status {
    with_ref(solver, function, |h| {
        let param = SensitivityParameter::from_code(parameter).ok_or_else(|| {
            FfiError::new(
                cts_status::InvalidArgument,
                format!(
                    "parameter = {parameter} is not CTS_IPM_SENSITIVITY_V0 (0), _TAU (1), _PHI (2) or _MU (3)"
                ),
            )
        })?;
        let solver = h.results()?;
        if !h.sensitivities {
            return Err(FfiError::new(
                cts_status::NoSolution,
                "no sensitivities: call cts_ipm_solver_compute_sensitivities after the solve",
            ));
        }
        let matrix =
            if impulses { solver.impulse_sensitivity(param)? } else { solver.velocity_sensitivity(param)? };
        let want = matrix.ncols();
        if cols != want {
            return Err(FfiError::new(
                cts_status::DimensionMismatch,
                format!("cols = {cols}, expected {want} for parameter {parameter}"),
            ));
        }
        let name = if impulses { "impulse sensitivity" } else { "velocity sensitivity" };
        // SAFETY: NULL or a writable buffer of the validated size (the contract).
        unsafe { copy_out_matrix(Some(name), out, ld_out, &matrix) }
    })
}

/// Copies ∂v/∂θ from the last `cts_ipm_solver_compute_sensitivities`: an n × cols column-major
/// matrix into `out` with leading dimension `ld_out >= max(1, n)` (rows n..ld_out−1 untouched).
/// `parameter` is CTS_IPM_SENSITIVITY_V0 or _TAU (cols = n) or _PHI or _MU (cols = nc); `cols`
/// must say so. Column j is the derivative of v (m/s) with respect to θ_j: dimensionless for v0,
/// (m/s)/N for τ, 1/s for φ, m/s for μ.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_INVALID_ARGUMENT (`parameter`,
/// `ld_out`), CTS_STATUS_DIMENSION_MISMATCH (`cols`), CTS_STATUS_NO_SOLUTION (no solve of the
/// current data, or no sensitivities computed since), CTS_STATUS_NON_FINITE_RESULT (an entry is
/// NaN or infinite). Nothing is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_velocity_sensitivity(
    s: *const cts_ipm_solver,
    parameter: i32,
    out: *mut f64,
    ld_out: usize,
    cols: usize,
) -> cts_status {
    copy_sensitivity(s, "cts_ipm_solver_get_velocity_sensitivity", parameter, out, ld_out, cols, false)
}

/// Copies ∂λ/∂θ, λ = the impulses of `cts_ipm_solver_get_impulses` (3 per contact: normal, t1,
/// t2; N·s): a 3nc × cols column-major matrix into `out` with leading dimension
/// `ld_out >= max(1, 3nc)` (rows 3nc..ld_out−1 untouched). `parameter` and `cols` as for
/// `cts_ipm_solver_get_velocity_sensitivity`. Units: N·s per unit of θ (kg for v0, s for τ, N·s/m
/// for φ, N·s for μ).
///
/// Returns as `cts_ipm_solver_get_velocity_sensitivity`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_get_impulse_sensitivity(
    s: *const cts_ipm_solver,
    parameter: i32,
    out: *mut f64,
    ld_out: usize,
    cols: usize,
) -> cts_status {
    copy_sensitivity(s, "cts_ipm_solver_get_impulse_sensitivity", parameter, out, ld_out, cols, true)
}

/// Number of generalized velocities n of the current problem data (0 without data or for a NULL
/// handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_num_velocities(s: *const cts_ipm_solver) -> usize {
    read(s, 0, |h| h.data.map_or(0, |d| d.n))
}

/// Number of contacts nc of the current problem data (0 without data or for a NULL handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_num_contacts(s: *const cts_ipm_solver) -> usize {
    read(s, 0, |h| h.data.map_or(0, |d| d.nc))
}

/// Detail of the last failing call on this handle (a usage error or a solver outcome, e.g.
/// "cts_ipm_solver_set_problem_data: Jn: ld 3 < max(1, rows 4): ..."), errno-style: a successful
/// call leaves it unchanged (a getter after a failed solve keeps the solve's detail); a failing
/// call replaces it; `cts_ipm_solver_set_problem_data` and the two solve calls clear it when they
/// start, so it is "" after they succeed. "" before any failure. Valid until the next call on the
/// handle; never NULL (also "" for a NULL handle); not to be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_ipm_solver_last_error(s: *const cts_ipm_solver) -> *const c_char {
    handle::last_error(s)
}

impl From<IpmOutcome> for cts_status {
    fn from(o: IpmOutcome) -> Self {
        match o {
            IpmOutcome::Converged => cts_status::Ok,
            IpmOutcome::MaxIterationsReached => cts_status::IpmMaxIterationsReached,
            IpmOutcome::NonFiniteStep => cts_status::IpmNonFiniteStep,
            IpmOutcome::AlmostConverged => cts_status::IpmAlmostConverged,
            IpmOutcome::Stalled => cts_status::IpmStalled,
        }
    }
}

/// The one mapping from interior-point usage errors to status codes and messages.
impl From<IpmError> for FfiError {
    fn from(e: IpmError) -> Self {
        match e {
            IpmError::DimensionMismatch { what, expected_rows, expected_cols, rows, cols } => {
                message::shape(what, (rows, cols), (expected_rows, expected_cols))
            }
            IpmError::NonFinite { what, index } => Self::new(
                cts_status::InvalidArgument,
                format!(
                    "{what}: entry {index} (column-major) is not finite: expected finite data (NaN and infinities are rejected)"
                ),
            ),
            IpmError::OutOfRange { what, value, requirement } => message::domain(what, g(value), requirement),
            e @ IpmError::NoSolution => Self::new(cts_status::NoSolution, e.to_string()),
            IpmError::Allocation { what, len } => alloc::entries_failed(what, len),
            IpmError::Blocks(b) => b.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_round_trip_and_validation() {
        let mut p = cts_ipm_parameters::from(IpmParameters::default());
        // SAFETY: a writable struct.
        unsafe { cts_ipm_parameters_default(&mut p) };
        assert_eq!(IpmParameters::try_from(&p).unwrap(), IpmParameters::default());
        for bad in [
            cts_ipm_parameters { warm_start: 2, ..p },
            cts_ipm_parameters { dojo_lagged_kappa: -1, ..p },
            cts_ipm_parameters { newton_solve: 2, ..p },
            cts_ipm_parameters { rvio_floor_in_backtracking: 2, ..p },
            cts_ipm_parameters { max_iter: -1, ..p },
            cts_ipm_parameters { max_ls: 0, ..p },
            cts_ipm_parameters { rtol: f64::NAN, ..p },
            cts_ipm_parameters { undercut: 0.0, ..p },
        ] {
            assert_eq!(IpmParameters::try_from(&bad).unwrap_err().status, cts_status::InvalidArgument);
        }
    }

    #[test]
    fn workspace_sizes_overflow_to_none() {
        assert!(solve_workspace(usize::MAX / 2, 1, 1, 50, NewtonSolve::Condensed, false).is_none());
        assert!(solve_workspace(3, 1, 4, usize::MAX, NewtonSolve::Dense, false).is_none());
        assert!(sensitivity_workspace(usize::MAX / 4, usize::MAX / 4).is_none());
        let mut probed = 0;
        let what = || "w".to_string();
        assert_eq!(probe(&mut probed, Some(1 << 60), what).unwrap_err().status, cts_status::InvalidArgument);
        assert_eq!(probed, 0);
        probe(&mut probed, Some(100), what).unwrap();
        assert_eq!(probed, 800, "bytes");
    }
}
