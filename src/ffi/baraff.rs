//! The Baraff pivoting C API (`docs/baraff.md`, conventions of `docs/c_api.md`): Baraff's
//! contact-force algorithm as modified in Darwin2K behind an opaque handle.
//!
//! Shape of the API, as for TAMSI: problem data is **borrowed** by a set call and read again by
//! every later solve call; results stay in the handle and are copied out by getters.
//!
//! * Matrix interface (§1): `cts_baraff_solver_set_matrix_problem_data` with `A`, `b` and the rows.
//! * Model interface (§2): `cts_baraff_solver_set_model_problem_data` with `M`, `J`, the rows and
//!   `τ − c` (acceleration level) or `q̇` (velocity level), plus the optional
//!   `cts_baraff_solver_set_model_bias` (`J̇ q̇`), `cts_baraff_solver_set_model_sliding`
//!   (`N − μQ`) and `cts_baraff_solver_set_model_stabilization` (Baumgarte).
//! * Calls on the current data: `cts_baraff_solver_solve` (§3), `cts_baraff_solver_compute_impulses`
//!   (§8), `cts_baraff_solver_consistency_impulse` (§7), `cts_baraff_solver_needs_impulse`.
//!
//! The iterative variant (`computeForcesIter`, Rust `BaraffSolver::solve_forces_iter`) is not
//! exposed: its host interface hands problem data back to the solver from inside the solve, which
//! has no clean C form (a callback would have to re-enter the handle). A host runs the same
//! sequence itself with the calls above; it is spelled out on
//! `cts_baraff_solver_consistency_impulse`.

#![allow(non_snake_case)] // argument names follow the spec: A, M, J, Q, ld_A, ...

use std::ffi::c_char;

use super::alloc;
use super::guard::ErrorSlot;
use super::handle::{
    self, Call, Results, copy_matrix, copy_result, copy_vector, get_struct, impl_handle, read,
    saturating_i32, set_parameters, solved, with_mut, with_ref,
};
use super::message::{self, g};
use super::status::{FfiError, cts_status};
use super::view::{
    RawIntVector, RawMatrix, RawVector, finite_output, finite_output_matrix, finite_outputs, output,
};
use crate::baraff::{
    BaraffError, BaraffOutcome, BaraffParameters, BaraffSolver, CodedRows, Level, MatrixProblem,
    ModelProblem, ROW_BILATERAL, ROW_BOXED, ROW_FRICTION, ROW_NORMAL, RowKind, RowSet, Rows, Sliding,
    Stabilization,
};

/// Row kind code: bilateral row (joint, closure): free force, `a = 0`.
pub const CTS_BARAFF_ROW_BILATERAL: i32 = 0;
/// Row kind code: unilateral normal (contact, joint limit, tether): `f >= 0`, `a >= 0`, `f a = 0`.
pub const CTS_BARAFF_ROW_NORMAL: i32 = 1;
/// Row kind code: static friction along one tangent direction, `|f| <= mu f_normal` with
/// `f_normal` the force of the row's owning normal row (`normal[i]`, which must be a
/// `CTS_BARAFF_ROW_NORMAL` row) and `mu[i] >= 0`; interior: `a = 0`; at `+mu f_n`: `a <= 0`; at
/// `-mu f_n`: `a >= 0`.
pub const CTS_BARAFF_ROW_FRICTION: i32 = 2;
/// Row kind code: force-limited row (motor with a torque limit, joint friction),
/// `lo[i] <= f <= hi[i]` with `lo[i] <= 0 <= hi[i]` (either may be infinite); interior: `a = 0`;
/// at `hi`: `a <= 0`; at `lo`: `a >= 0`.
pub const CTS_BARAFF_ROW_BOXED: i32 = 3;

/// Row set code (`cts_baraff_solver_get_row_sets`): C, the row's acceleration condition holds as
/// an equality (clamped normal, bilateral, interior friction: sticking, boxed row between its
/// bounds).
pub const CTS_BARAFF_SET_CLAMPED: i32 = 0;
/// Row set code: NC, unilateral normal with zero force and `a >= 0` (separating or at rest).
pub const CTS_BARAFF_SET_SEPARATING: i32 = 1;
/// Row set code: S+, friction row at `+mu f_n` (so `a <= 0`: slipping in the negative direction),
/// or boxed row at `hi`.
pub const CTS_BARAFF_SET_AT_UPPER: i32 = 2;
/// Row set code: S-, friction row at `-mu f_n` (so `a >= 0`: slipping in the positive direction),
/// or boxed row at `lo`.
pub const CTS_BARAFF_SET_AT_LOWER: i32 = 3;
/// Row set code: R, a deferred row the final re-treatment left unresolved.
pub const CTS_BARAFF_SET_DEFERRED: i32 = 4;
/// Row set code: L+, friction or boxed row left locked at its upper bound.
pub const CTS_BARAFF_SET_LOCKED_UPPER: i32 = 5;
/// Row set code: L-, friction or boxed row left locked at its lower bound.
pub const CTS_BARAFF_SET_LOCKED_LOWER: i32 = 6;
/// Row set code: U, not treated (the solve stopped early: unbounded ray, cycling, pivot limit).
pub const CTS_BARAFF_SET_UNTREATED: i32 = 7;

/// Level of model problem data: acceleration level. `tau_or_qdot` is the generalized force
/// `τ − c(q, q̇)` (N or N·m), `b = J M⁻¹ (τ − c) + bias`; the unknowns are forces (N) and the
/// generalized result is `q̈ = M⁻¹ (τ − c + J_fᵀ f)`.
pub const CTS_BARAFF_LEVEL_ACCELERATION: i32 = 0;
/// Level of model problem data: velocity level. `tau_or_qdot` is the pre-impulse generalized
/// velocity `q̇` (m/s or rad/s), `b = J q̇ + bias`; the unknowns are impulses (N·s) and the
/// generalized result is `q̇⁺ = q̇ + M⁻¹ J_fᵀ p`.
pub const CTS_BARAFF_LEVEL_VELOCITY: i32 = 1;

const _: () = {
    assert!(CTS_BARAFF_ROW_BILATERAL == ROW_BILATERAL);
    assert!(CTS_BARAFF_ROW_NORMAL == ROW_NORMAL);
    assert!(CTS_BARAFF_ROW_FRICTION == ROW_FRICTION);
    assert!(CTS_BARAFF_ROW_BOXED == ROW_BOXED);
    assert!(CTS_BARAFF_SET_CLAMPED == RowSet::Clamped as i32);
    assert!(CTS_BARAFF_SET_SEPARATING == RowSet::Separating as i32);
    assert!(CTS_BARAFF_SET_AT_UPPER == RowSet::AtUpper as i32);
    assert!(CTS_BARAFF_SET_AT_LOWER == RowSet::AtLower as i32);
    assert!(CTS_BARAFF_SET_DEFERRED == RowSet::Deferred as i32);
    assert!(CTS_BARAFF_SET_LOCKED_UPPER == RowSet::LockedUpper as i32);
    assert!(CTS_BARAFF_SET_LOCKED_LOWER == RowSet::LockedLower as i32);
    assert!(CTS_BARAFF_SET_UNTREATED == RowSet::Untreated as i32);
};

/// Opaque Baraff pivoting solver handle: parameters, workspace, the borrowed problem data and
/// the results of the last solve call. Create with `cts_baraff_solver_new`, release with
/// `cts_baraff_solver_free`. Not thread-safe: one handle must not be used by two threads at once;
/// distinct handles are independent.
pub struct cts_baraff_solver {
    error: ErrorSlot,
    inner: Inner,
}

impl_handle!(cts_baraff_solver => Inner);

/// Parameters of the Baraff solver. Fill with `cts_baraff_parameters_default`, change fields,
/// pass to `cts_baraff_solver_set_parameters`, which validates them.
///
/// Tolerances are relative: with `s_b = max|b_i|` and `s_A = max|A_ii|`, accelerations (or
/// velocities) are compared with `tol·s_b`, changes of acceleration per unit force with
/// `tol·s_A`, forces with `tol·s_b/s_A`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cts_baraff_parameters {
    /// ε of the pivoting comparisons (goal reached, event candidacy, zero-length steps); default
    /// 1e-10; in (0, 1).
    pub epsilon: f64,
    /// A Schur pivot at or below `singular_tolerance·s_A` is singular: a driven row whose `Δa_d`
    /// is at or below it cannot join the clamped set by reaching its goal (other events may still
    /// exchange rows; nothing is deferred in advance), and the clamped-set solve drops an unknown
    /// whose R diagonal is at or below it (`docs/baraff.md` §3); default 1e-9; in [0, 1).
    pub singular_tolerance: f64,
    /// Verification tolerance: a solve whose worst relative violation is above it returns
    /// CTS_STATUS_BARAFF_INEXACT; default 1e-8; finite and > 0.
    pub tolerance: f64,
    /// Coefficient of restitution e of `cts_baraff_solver_compute_impulses`, applied to rows that
    /// were approaching at the start; default 0 (plastic); in [0, 1].
    pub restitution: f64,
    /// cDotTol of the impulse calls, m/s or rad/s (absolute): a normal row needs an impulse when
    /// `v < -cdot_tolerance`, a bilateral row when `|v| > cdot_tolerance`; default 1e-6; finite
    /// and >= 0.
    pub cdot_tolerance: f64,
    /// Pivot cap of one pivoting attempt (a solve makes two with `reverse_retry`); 0 selects
    /// 50·m + 50; default 0; >= 0.
    pub max_pivots: i32,
    /// Iteration cap of `cts_baraff_solver_compute_impulses`; 0 selects max(100, 4·m); default 0;
    /// >= 0.
    pub max_impulse_iterations: i32,
    /// 1: when a pivoting solve does not verify, solve once more with the friction rows driven in
    /// decreasing index order (with friction the order decides success); 0: one attempt only.
    /// Default 1; 0 or 1.
    pub reverse_retry: i32,
}

/// Statistics of the last solve call (`cts_baraff_solver_get_stats`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cts_baraff_stats {
    /// The status the solve call returned: CTS_STATUS_OK (verified solution) or one of the
    /// Baraff outcomes CTS_STATUS_BARAFF_INEXACT … CTS_STATUS_BARAFF_ITERATION_LIMIT.
    pub status: i32,
    /// For CTS_STATUS_BARAFF_UNBOUNDED_RAY the row being driven when the ray appeared; -1
    /// otherwise.
    pub row: i32,
    /// Pivots (steps) taken by the pivoting, over all drives, re-drives and both attempts (see
    /// `reverse_retry`; 0 for `cts_baraff_solver_compute_impulses`).
    pub pivots: i32,
    /// Active-set iterations of `cts_baraff_solver_compute_impulses` (0 for the other calls).
    pub iterations: i32,
    /// Worst violation of the row conditions, relative (acceleration or velocity violations
    /// divided by `max|b|`, force violations by `max|b| / max|A_ii|`).
    pub worst_violation: f64,
}

impl From<BaraffParameters> for cts_baraff_parameters {
    fn from(p: BaraffParameters) -> Self {
        Self {
            epsilon: p.epsilon,
            singular_tolerance: p.singular_tolerance,
            tolerance: p.tolerance,
            restitution: p.restitution,
            cdot_tolerance: p.cdot_tolerance,
            max_pivots: p.max_pivots,
            max_impulse_iterations: p.max_impulse_iterations,
            reverse_retry: p.reverse_retry,
        }
    }
}

impl TryFrom<&cts_baraff_parameters> for BaraffParameters {
    type Error = FfiError;
    fn try_from(p: &cts_baraff_parameters) -> Result<Self, FfiError> {
        let params = BaraffParameters {
            epsilon: p.epsilon,
            singular_tolerance: p.singular_tolerance,
            tolerance: p.tolerance,
            max_pivots: p.max_pivots,
            restitution: p.restitution,
            cdot_tolerance: p.cdot_tolerance,
            max_impulse_iterations: p.max_impulse_iterations,
            reverse_retry: p.reverse_retry,
            ..BaraffParameters::default()
        };
        params.validate()?;
        Ok(params)
    }
}

/// Borrowed row descriptions: kind codes and the parameter arrays the kinds need.
#[derive(Clone, Copy)]
struct RawRows {
    kind: RawIntVector,
    /// `m` entries when some row is friction, else empty (not read).
    normal: RawIntVector,
    mu: RawVector,
    /// `m` entries when some row is boxed, else empty (not read).
    lo: RawVector,
    hi: RawVector,
}

impl RawRows {
    /// Validates the pointers: `kind` (m) always; `normal`, `mu` (m) when some kind is friction;
    /// `lo`, `hi` (m) when some kind is boxed. The codes themselves are checked by
    /// [`Inner::check_rows`].
    fn new(
        m: usize,
        kind: *const i32,
        normal: *const i32,
        mu: *const f64,
        lo: *const f64,
        hi: *const f64,
    ) -> Result<Self, FfiError> {
        let kind = RawIntVector::new("kind", kind, m)?;
        // SAFETY: validated; read during the set call (the borrowing rule).
        let codes = unsafe { kind.slice() };
        let friction = if codes.contains(&ROW_FRICTION) { m } else { 0 };
        let boxed = if codes.contains(&ROW_BOXED) { m } else { 0 };
        Ok(Self {
            kind,
            normal: RawIntVector::new("normal", normal, friction)?,
            mu: RawVector::new("mu", mu, friction)?,
            lo: RawVector::new("lo", lo, boxed)?,
            hi: RawVector::new("hi", hi, boxed)?,
        })
    }

    /// The rows for the Rust API.
    ///
    /// # Safety
    /// The caller's arrays must still be allocated and unchanged (the borrowing rule).
    unsafe fn rows<'a>(&self) -> Rows<'a> {
        // SAFETY: forwarded contract; validated when set.
        unsafe {
            Rows::Coded(CodedRows {
                kind: self.kind.slice(),
                normal: self.normal.slice(),
                mu: self.mu.slice(),
                lo: self.lo.slice(),
                hi: self.hi.slice(),
            })
        }
    }
}

/// Borrowed Baumgarte stabilisation data.
#[derive(Clone, Copy)]
struct RawStabilization {
    kp: f64,
    kv: f64,
    position_error: RawVector,
    velocity_error: Option<RawVector>,
}

/// Borrowed model-interface data (§2).
#[derive(Clone, Copy)]
struct RawModel {
    n: usize,
    mass: RawMatrix,
    jacobian: RawMatrix,
    velocity_level: bool,
    tau_or_qdot: RawVector,
    bias: Option<RawVector>,
    sliding: Option<(RawMatrix, RawVector)>,
    stabilization: Option<RawStabilization>,
}

#[derive(Clone, Copy)]
enum RawProblem {
    Matrix { a: RawMatrix, b: RawVector },
    Model(RawModel),
}

/// Borrowed problem data, validated when set.
#[derive(Clone, Copy)]
struct ProblemData {
    m: usize,
    rows: RawRows,
    problem: RawProblem,
}

impl ProblemData {
    fn model(&self) -> Option<&RawModel> {
        match &self.problem {
            RawProblem::Model(model) => Some(model),
            RawProblem::Matrix { .. } => None,
        }
    }

    /// The model data as a problem of the Rust API.
    ///
    /// # Safety
    /// The caller's arrays must still be allocated and unchanged (the borrowing rule).
    unsafe fn model_problem<'a>(&self, model: &RawModel) -> ModelProblem<'a> {
        // SAFETY: forwarded contract; every part was validated when set.
        unsafe {
            let u = model.tau_or_qdot.view();
            ModelProblem {
                mass: model.mass.view(),
                jacobian: model.jacobian.view(),
                rows: self.rows.rows(),
                level: if model.velocity_level { Level::Velocity(u) } else { Level::Acceleration(u) },
                bias: model.bias.map(|b| b.view()),
                sliding: model.sliding.map(|(q, mu)| Sliding { slip_jacobian: q.view(), mu: mu.view() }),
                stabilization: model.stabilization.map(|s| Stabilization {
                    kp: s.kp,
                    kv: s.kv,
                    position_error: s.position_error.view(),
                    velocity_error: s.velocity_error.map(|v| v.view()),
                }),
            }
        }
    }
}

/// Which data the results of the last solve call belong to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Solved {
    Matrix,
    Model,
}

#[doc(hidden)]
pub struct Inner {
    solver: BaraffSolver,
    data: Option<ProblemData>,
    /// Results of a solve call of the current data (None before, after new data, after a usage
    /// error of a solve call).
    solved: Option<Solved>,
    /// Rows and coordinates the workspace has been grown for.
    reserved: (usize, usize),
    /// Scratch for validating rows at set time (grow-only).
    kinds: Vec<RowKind>,
}

impl Inner {
    fn new(solver: BaraffSolver) -> Self {
        Self { solver, data: None, solved: None, reserved: (0, 0), kinds: Vec::new() }
    }

    fn data(&self) -> Result<&ProblemData, FfiError> {
        self.data
            .as_ref()
            .ok_or_else(|| FfiError::new(cts_status::NoProblemData, "no problem data has been set"))
    }

    fn model_data(&self) -> Result<(ProblemData, RawModel), FfiError> {
        let data = *self.data()?;
        let model = *data.model().ok_or_else(|| {
            FfiError::new(
                cts_status::NoProblemData,
                "no model problem data has been set (the current data is a matrix problem)",
            )
        })?;
        Ok((data, model))
    }

    /// Grows the workspace for `m` rows and `n` coordinates, refusing sizes that cannot be
    /// allocated instead of letting the allocation abort the host.
    fn reserve(&mut self, m: usize, n: usize) -> Result<(), FfiError> {
        let (rm, rn) = self.reserved;
        if m <= rm && n <= rn {
            return Ok(());
        }
        let (m, n) = (m.max(rm), n.max(rn));
        check_allocatable(m, n)?;
        self.solver.reserve(m, n);
        self.kinds.reserve(m.saturating_sub(self.kinds.len()));
        self.reserved = (m, n);
        Ok(())
    }

    /// Decodes and validates the rows (kind codes, normal indices, μ, bounds).
    fn check_rows(&mut self, rows: &RawRows) -> Result<(), FfiError> {
        // SAFETY: the set call's arrays are valid during the call (the borrowing rule).
        let rows = unsafe { rows.rows() };
        rows.decode_into(&mut self.kinds)?;
        Ok(())
    }

    /// Keeps validated new data; the previous data and results are dropped only on success.
    fn set_data(&mut self, data: ProblemData) -> Result<cts_status, FfiError> {
        let n = data.model().map_or(0, |m| m.n);
        // The workspace first: decoding the rows already fills m entries of it.
        self.reserve(data.m, n)?;
        self.check_rows(&data.rows)?;
        self.data = Some(data);
        self.solved = None;
        Ok(cts_status::Ok)
    }

    /// Sets an optional part of the current model data (bias, sliding friction, stabilisation):
    /// checks that `len`, the length of the array `name`, is m, lets `add` fill the part in, and
    /// replaces the model data. Nothing changes on error.
    fn add_to_model(
        &mut self,
        name: &str,
        len: usize,
        add: impl FnOnce(&mut RawModel) -> Result<(), FfiError>,
    ) -> Result<cts_status, FfiError> {
        let (data, mut model) = self.model_data()?;
        if len != data.m {
            return Err(message::length(name, len, data.m));
        }
        add(&mut model)?;
        self.data = Some(ProblemData { problem: RawProblem::Model(model), ..data });
        self.solved = None;
        Ok(cts_status::Ok)
    }

    /// The status of a finished solve call: OK for a verified solution, else the outcome's code
    /// with a detail message for `last_error`.
    fn finish(&mut self, outcome: BaraffOutcome, kind: Solved) -> Result<cts_status, FfiError> {
        self.solved = Some(kind);
        let status = cts_status::from(outcome);
        if outcome.is_solved() {
            check_outputs(&self.solver)?;
            return Ok(status);
        }
        let stats = self.solver.stats();
        // Formatted into the reused message buffer: no allocation once grown.
        Err(FfiError::formatted(
            status,
            format_args!(
                "{} ({} pivots, {} iterations, worst relative violation {})",
                OutcomeDetail(outcome),
                stats.pivots,
                stats.iterations,
                g(stats.worst_violation)
            ),
        ))
    }

    /// The state of a clone (`cts_baraff_solver_clone`): parameters and workspace, no data and
    /// no results. The copy allocates as much as the original's reserved workspace.
    fn copy(&self) -> Result<Self, FfiError> {
        let (m, n) = self.reserved;
        check_allocatable(m, n)?;
        let mut inner = Inner::new(self.solver.clone());
        inner.reserved = self.reserved;
        inner.kinds.reserve(self.kinds.capacity());
        Ok(inner)
    }

    /// The results of a solve call on model data (the getters of the generalized results).
    fn model_results(&self) -> Result<&BaraffSolver, FfiError> {
        match self.solved {
            Some(Solved::Matrix) => Err(FfiError::new(
                cts_status::NoSolution,
                "no model result: the last solve was of matrix problem data",
            )),
            _ => self.results(),
        }
    }
}

/// What a Baraff outcome other than Solved means, as message text.
struct OutcomeDetail(BaraffOutcome);

impl std::fmt::Display for OutcomeDetail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            BaraffOutcome::UnboundedRay { row } => write!(f, "unbounded ray while driving row {row}"),
            BaraffOutcome::Inexact => f.write_str("finished, violation above the tolerance"),
            BaraffOutcome::Cycling => f.write_str("cycling safeguards exhausted"),
            BaraffOutcome::PivotLimit => f.write_str("pivot limit reached"),
            BaraffOutcome::IterationLimit => f.write_str("impulse iteration limit reached"),
            BaraffOutcome::FrictionlessFallback { row } => write!(f, "frictionless fallback at row {row}"),
            BaraffOutcome::Solved => Ok(()),
        }
    }
}

impl Results for Inner {
    type Solver = BaraffSolver;
    fn results(&self) -> Result<&BaraffSolver, FfiError> {
        solved(self.solved.map(|_| &self.solver))
    }
}

/// A getter of a vector of the last solve call on model data (`name` in messages), as
/// [`copy_result`].
fn copy_model_result(
    solver: *const cts_baraff_solver,
    function: &'static str,
    name: &str,
    out: *mut f64,
    len: usize,
    get: impl FnOnce(&BaraffSolver) -> &[f64],
) -> cts_status {
    copy_vector(solver, function, name, out, len, |h| h.model_results().map(get))
}

/// The workspace holds about 5m² + 2mn + n² doubles: refuse sizes that cannot be allocated.
/// The final check of a verified solve: every output finite (`CTS_STATUS_NON_FINITE_RESULT`
/// naming the first that is not). O(m² + n), once per solve call.
fn check_outputs(s: &BaraffSolver) -> Result<(), FfiError> {
    finite_outputs(&[
        ("forces", s.forces()),
        ("accelerations", s.accelerations()),
        ("generalized result", s.generalized()),
        ("generalized change", s.generalized_change()),
        ("sliding friction forces", s.sliding_friction_forces()),
        ("composed b", s.composed_b()),
    ])?;
    finite_output_matrix("composed matrix A", &s.composed_matrix())?;
    finite_output("worst_violation", std::slice::from_ref(&s.stats().worst_violation))
}

fn check_allocatable(m: usize, n: usize) -> Result<(), FfiError> {
    // The pivoting's m×m blocks, the composed J M⁻¹ Jᵀ and M⁻¹ Jᵀ, the factorization of M, and
    // O(m + n) vectors and row tables.
    let elements = (|| {
        let mm = m.checked_mul(m)?.checked_mul(5)?;
        let mn = m.checked_mul(n)?.checked_mul(2)?;
        let nn = n.checked_mul(n)?;
        mm.checked_add(mn)?.checked_add(nn)?.checked_add(m.checked_add(n)?.checked_mul(32)?)
    })();
    alloc::probe_doubles(
        elements,
        &mut 0,
        || {
            format!(
                "m = {m} rows, n = {n} coordinates: the workspace of 5·m² + 2·m·n + n² + 32·(m + n) doubles"
            )
        },
        "use fewer rows or coordinates",
    )
}

/// Fills `*out` with the defaults: epsilon 1e-10, singular_tolerance 1e-9, tolerance 1e-8,
/// restitution 0, cdot_tolerance 1e-6 m/s, max_pivots 0 (50·m + 50), max_impulse_iterations 0
/// (max(100, 4·m)), reverse_retry 1. NULL-safe (does nothing).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_parameters_default(out: *mut cts_baraff_parameters) {
    handle::write_default(out, || BaraffParameters::default().into())
}

/// Creates a solver with default parameters and an empty workspace (it grows to the problem
/// sizes it sees, or ahead of time with `cts_baraff_solver_reserve`) and writes the handle to
/// `*out` (only on success).
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER (`out` is NULL); failures leave their detail
/// in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_new(out: *mut *mut cts_baraff_solver) -> cts_status {
    handle::new(out, "cts_baraff_solver_new", || Ok(Inner::new(BaraffSolver::default())))
}

/// Releases a solver. NULL is a no-op; freeing a handle twice is the caller's bug. Ends the
/// borrow of the problem data.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_free(solver: *mut cts_baraff_solver) {
    handle::free(solver)
}

/// Deep copy of a solver's parameters and workspace into a new handle `*out` (only on success),
/// for use on another thread. The copy has no problem data and no results: set data before
/// solving.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER (`solver` or `out` NULL) or
/// CTS_STATUS_ALLOCATION_FAILED (the copy's workspace was refused); failures leave their detail
/// in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_clone(
    solver: *const cts_baraff_solver,
    out: *mut *mut cts_baraff_solver,
) -> cts_status {
    handle::clone(solver, out, "cts_baraff_solver_clone", Inner::copy)
}

/// Grows the workspace for problems of up to `m` rows and `n` generalized coordinates (n = 0 for
/// the matrix interface), so that no later set or solve call up to these sizes allocates. Set
/// calls grow it as needed anyway. Keeps the problem data and results.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_INVALID_ARGUMENT (sizes whose
/// workspace cannot exist) or CTS_STATUS_ALLOCATION_FAILED (the workspace, about
/// 5·m² + 2·m·n + n² doubles, was refused); nothing changed on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_reserve(
    solver: *mut cts_baraff_solver,
    m: usize,
    n: usize,
) -> cts_status {
    with_mut(solver, "cts_baraff_solver_reserve", Call::Keeps, |h| {
        h.reserve(m, n)?;
        Ok(cts_status::Ok)
    })
}

/// Validates and sets the parameters (copied); each field must lie in the domain documented on
/// `cts_baraff_parameters`. Keeps the problem data and results.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, or CTS_STATUS_INVALID_ARGUMENT (nothing
/// changed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_set_parameters(
    solver: *mut cts_baraff_solver,
    p: *const cts_baraff_parameters,
) -> cts_status {
    set_parameters(solver, "cts_baraff_solver_set_parameters", p, |h, p, _| h.solver.set_parameters(p))
}

/// Copies the current parameters into `*out`.
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_parameters(
    solver: *const cts_baraff_solver,
    out: *mut cts_baraff_parameters,
) -> cts_status {
    get_struct(solver, "cts_baraff_solver_get_parameters", out, |h| Ok((*h.solver.parameters()).into()))
}

/// Sets matrix problem data (§1): find the row forces `f` (m) with `a = A f + b` such that every
/// row's condition holds (see the CTS_BARAFF_ROW_* kinds).
///
/// * `A`: m×m, column-major with leading dimension `ld_A >= max(1, m)`: `A[i][j]` is the change
///   of `a_i` per unit `f_j` (m/s² per N at acceleration level, m/s per N·s at velocity level).
///   It need not be symmetric (sliding friction makes it `N M⁻¹ (N − μQ)ᵀ`). Finite.
/// * `b` (m): the row accelerations (or velocities) with every constraint force off. Finite.
/// * `kind` (m): one CTS_BARAFF_ROW_* code per row.
/// * `normal` (int32, m) and `mu` (m): for CTS_BARAFF_ROW_FRICTION rows, the index of the owning
///   normal row (a CTS_BARAFF_ROW_NORMAL row, 0-based) and μ_s (finite, >= 0). Read only when
///   some row is a friction row (then both must be non-NULL; entries of other rows are ignored);
///   otherwise they may be NULL.
/// * `lo`, `hi` (m): for CTS_BARAFF_ROW_BOXED rows, the bounds (`lo <= 0 <= hi`, may be
///   infinite, units of the row's force). Read only when some row is boxed; otherwise they may be
///   NULL.
///
/// m = 0 is allowed (NULL arrays). The arrays are **borrowed**: read now (the rows are validated
/// here) and by every later solve call; they must stay allocated and unchanged until the next
/// set call or `cts_baraff_solver_free`. Setting data drops the previous data and results.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER (a needed array is NULL);
/// CTS_STATUS_INVALID_ARGUMENT (`ld_A` below m, an unknown kind code, a friction row whose
/// `normal` index is out of range or not a normal row, μ negative or not finite, bounds that do
/// not contain 0, sizes whose workspace cannot exist); CTS_STATUS_ALLOCATION_FAILED (the
/// workspace for m rows was refused; checked before the rows are read). On error the previous
/// data stays set. Non-finite values in A or b are reported by the solve call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_set_matrix_problem_data(
    solver: *mut cts_baraff_solver,
    m: usize,
    A: *const f64,
    ld_A: usize,
    b: *const f64,
    kind: *const i32,
    normal: *const i32,
    mu: *const f64,
    lo: *const f64,
    hi: *const f64,
) -> cts_status {
    with_mut(solver, "cts_baraff_solver_set_matrix_problem_data", Call::Starts, |h| {
        let a = RawMatrix::new("A", A, ld_A, m, m)?;
        let b = RawVector::new("b", b, m)?;
        let rows = RawRows::new(m, kind, normal, mu, lo, hi)?;
        h.set_data(ProblemData { m, rows, problem: RawProblem::Matrix { a, b } })
    })
}

/// Sets model problem data (§2 `composeMatrices`) for an engine with
/// `M(q) q̈ + c(q, q̇) = τ + J_fᵀ f`: the solve calls build `A = J M⁻¹ J_fᵀ` and `b` themselves
/// (`J_f = J` unless `cts_baraff_solver_set_model_sliding` says otherwise) and also return the
/// generalized result.
///
/// * `M`: n×n mass matrix, symmetric positive definite (only its lower triangle is read),
///   column-major with `ld_M >= max(1, n)`; kg or kg·m². Several mechanisms: block diagonal.
/// * `J`: m×n constraint Jacobian, `ld_J >= max(1, m)`: row i gives row i's acceleration
///   `a_i = J_i q̈ + (J̇ q̇)_i` (velocity `v_i = J_i q̇`); positive is separating for normal rows.
/// * `level`: CTS_BARAFF_LEVEL_ACCELERATION (forces; `tau_or_qdot` = τ − c, N or N·m) or
///   CTS_BARAFF_LEVEL_VELOCITY (impulses; `tau_or_qdot` = pre-impulse q̇, m/s or rad/s).
/// * `tau_or_qdot` (n).
/// * `kind`, `normal`, `mu`, `lo`, `hi`: the rows, as for `cts_baraff_solver_set_matrix_problem_data`.
///
/// No bias, sliding friction or stabilisation: add them with the cts_baraff_solver_set_model_*
/// calls after this one. m = 0 and n = 0 are allowed (NULL arrays). The arrays are **borrowed**
/// until the next set call or `cts_baraff_solver_free`. Setting data drops the previous data
/// (with its bias, sliding and stabilisation) and results.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_INVALID_ARGUMENT (an `ld` below its
/// row count, `level` not one of the two codes, a row error as for the matrix interface, sizes
/// whose workspace cannot exist); CTS_STATUS_ALLOCATION_FAILED (the workspace for m rows and n
/// coordinates was refused; checked before the rows are read). On error the previous data stays
/// set. Non-finite values and a mass matrix that is not positive definite are reported by the
/// solve calls (CTS_STATUS_INVALID_ARGUMENT).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_set_model_problem_data(
    solver: *mut cts_baraff_solver,
    m: usize,
    n: usize,
    M: *const f64,
    ld_M: usize,
    J: *const f64,
    ld_J: usize,
    level: i32,
    tau_or_qdot: *const f64,
    kind: *const i32,
    normal: *const i32,
    mu: *const f64,
    lo: *const f64,
    hi: *const f64,
) -> cts_status {
    with_mut(solver, "cts_baraff_solver_set_model_problem_data", Call::Starts, |h| {
        let velocity_level = match level {
            CTS_BARAFF_LEVEL_ACCELERATION => false,
            CTS_BARAFF_LEVEL_VELOCITY => true,
            _ => {
                return Err(FfiError::new(
                    cts_status::InvalidArgument,
                    format!(
                        "level = {level} is not CTS_BARAFF_LEVEL_ACCELERATION (0) or CTS_BARAFF_LEVEL_VELOCITY (1)"
                    ),
                ));
            }
        };
        let model = RawModel {
            n,
            mass: RawMatrix::new("M", M, ld_M, n, n)?,
            jacobian: RawMatrix::new("J", J, ld_J, m, n)?,
            velocity_level,
            tau_or_qdot: RawVector::new("tau_or_qdot", tau_or_qdot, n)?,
            bias: None,
            sliding: None,
            stabilization: None,
        };
        let rows = RawRows::new(m, kind, normal, mu, lo, hi)?;
        h.set_data(ProblemData { m, rows, problem: RawProblem::Model(model) })
    })
}

/// Adds a bias to the current model data's `b` (m doubles, `len` must be m): the velocity-product
/// term `J̇ q̇` (centripetal terms of contact points, m/s²) at acceleration level, a restitution
/// shift or velocity target (m/s) at velocity level. Replaces a previous bias. Borrowed like the
/// model data, until the next set of model data (which removes it) or `cts_baraff_solver_free`.
/// Drops the results.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_NO_PROBLEM_DATA (no model data is
/// set); CTS_STATUS_DIMENSION_MISMATCH (`len`). On error nothing changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_set_model_bias(
    solver: *mut cts_baraff_solver,
    bias: *const f64,
    len: usize,
) -> cts_status {
    with_mut(solver, "cts_baraff_solver_set_model_bias", Call::Starts, |h| {
        h.add_to_model("bias", len, |model| {
            model.bias = Some(RawVector::new("bias", bias, len)?);
            Ok(())
        })
    })
}

/// Adds sliding (dynamic) friction to the current model data (§1, §5): the force of a sliding
/// contact's normal row acts along `n − μ_d v̂`, so that row's force direction becomes
/// `J_f,i = J_i − mu_d[i] Q_i` and `A = J M⁻¹ J_fᵀ` (not symmetric; can make the effective
/// normal mass negative: Painlevé).
///
/// * `Q`: m×n, `ld_Q >= max(1, m)`: row i is the tangential Jacobian along the unit slip
///   direction v̂ (relative velocity of body 1 w.r.t. body 2 at the contact) for a sliding
///   contact's normal row, zero for every other row.
/// * `mu_d` (m, `len` must be m): μ_d per row, finite and >= 0 (0 for rows that are not sliding
///   normals).
///
/// After a solve, `cts_baraff_solver_get_sliding_friction_forces` gives `−μ_d f` per row.
/// Replaces previous sliding data. Borrowed like the model data, until the next set of model data
/// (which removes it) or `cts_baraff_solver_free`. Drops the results.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_NO_PROBLEM_DATA (no model data);
/// CTS_STATUS_DIMENSION_MISMATCH (`len`); CTS_STATUS_INVALID_ARGUMENT (`ld_Q`). On error nothing
/// changes. Negative or non-finite μ_d and non-finite Q are reported by the solve calls.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_set_model_sliding(
    solver: *mut cts_baraff_solver,
    Q: *const f64,
    ld_Q: usize,
    mu_d: *const f64,
    len: usize,
) -> cts_status {
    with_mut(solver, "cts_baraff_solver_set_model_sliding", Call::Starts, |h| {
        h.add_to_model("mu_d", len, |model| {
            let q = RawMatrix::new("Q", Q, ld_Q, len, model.n)?;
            model.sliding = Some((q, RawVector::new("mu_d", mu_d, len)?));
            Ok(())
        })
    })
}

/// Adds Baumgarte drift stabilisation to the current model data (§2): `b_i += kp·C_i + kv·Ċ_i`,
/// so the solver drives `a_i = −kp C_i − kv Ċ_i` instead of 0 (the reported accelerations include
/// the term).
///
/// * `kp` (1/s²) and `kv` (1/s): finite gains.
/// * `position_error` (m doubles, `len` must be m): `C` per row (m or rad; 0 where none).
/// * `include_velocity`: 1 to add the velocity term with `velocity_error` (m doubles, `Ċ`);
///   0 to skip it (Darwin2K's `includeVel = false`, e.g. right after an impulse zeroed `Ċ`), and
///   then `velocity_error` is not read and may be NULL.
///
/// Replaces previous stabilisation data. Borrowed like the model data, until the next set of
/// model data (which removes it) or `cts_baraff_solver_free`. Drops the results.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_NO_PROBLEM_DATA (no model data);
/// CTS_STATUS_DIMENSION_MISMATCH (`len`); CTS_STATUS_INVALID_ARGUMENT (`kp` or `kv` not finite,
/// `include_velocity` not 0 or 1). On error nothing changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_set_model_stabilization(
    solver: *mut cts_baraff_solver,
    kp: f64,
    kv: f64,
    position_error: *const f64,
    include_velocity: i32,
    velocity_error: *const f64,
    len: usize,
) -> cts_status {
    with_mut(solver, "cts_baraff_solver_set_model_stabilization", Call::Starts, |h| {
        h.add_to_model("position_error", len, |model| {
            for (name, value) in [("kp", kp), ("kv", kv)] {
                if !value.is_finite() {
                    return Err(message::domain(name, g(value), "finite"));
                }
            }
            let velocity_error = match include_velocity {
                0 => None,
                1 => Some(RawVector::new("velocity_error", velocity_error, len)?),
                _ => return Err(message::code("include_velocity", include_velocity, "0 or 1")),
            };
            let position_error = RawVector::new("position_error", position_error, len)?;
            model.stabilization = Some(RawStabilization { kp, kv, position_error, velocity_error });
            Ok(())
        })
    })
}

/// `computeForces` (§3): Baraff's pivoting ("drive to zero") on the current data. With matrix
/// data it solves `a = A f + b`; with model data it first builds `A = J M⁻¹ J_fᵀ` and `b` (bias,
/// sliding and stabilisation included) and afterwards the generalized result (`q̈` at acceleration
/// level; at velocity level `q̇⁺`, the forces being impulses: the plastic-impact impulses, B6).
///
/// Rows are driven in a fixed order: bilateral rows first, then normal rows by most negative `a`,
/// then friction and boxed rows; results are deterministic.
///
/// Returns CTS_STATUS_OK (a verified solution) or a Baraff outcome, after which the results are
/// readable too: CTS_STATUS_BARAFF_INEXACT, CTS_STATUS_BARAFF_UNBOUNDED_RAY (inconsistent
/// configuration; see `cts_baraff_solver_consistency_impulse`), CTS_STATUS_BARAFF_CYCLING,
/// CTS_STATUS_BARAFF_PIVOT_LIMIT; `cts_baraff_solver_get_stats` tells more. Usage errors (no
/// results afterwards): CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_PROBLEM_DATA,
/// CTS_STATUS_INVALID_ARGUMENT (non-finite data, M not positive definite, negative μ_d).
/// CTS_STATUS_NON_FINITE_RESULT: the pivoting verified the row conditions but an output is NaN
/// or infinite (huge finite data overflowed); the results stay, and their getters report the
/// same status for non-finite values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_solve(solver: *mut cts_baraff_solver) -> cts_status {
    with_mut(solver, "cts_baraff_solver_solve", Call::Starts, |h| {
        h.solved = None;
        let data = *h.data()?;
        match data.problem {
            RawProblem::Matrix { a, b } => {
                // SAFETY: the borrowing rule keeps the problem data valid for this call.
                let problem = unsafe { MatrixProblem { a: a.view(), b: b.view(), rows: data.rows.rows() } };
                let outcome = h.solver.solve(&problem)?;
                h.finish(outcome, Solved::Matrix)
            }
            RawProblem::Model(model) => {
                // SAFETY: as above.
                let problem = unsafe { data.model_problem(&model) };
                let outcome = h.solver.solve_model(&problem)?;
                h.finish(outcome, Solved::Model)
            }
        }
    })
}

/// `computeImpulse` (§8): collision / velocity-correction impulses by the active-set loop, on
/// velocity-level model data with bilateral and normal rows only. Targets: `−e·v_i` for normal
/// rows approaching at the start (`v_i < −cdot_tolerance`, e = `restitution`), 0 for bilateral
/// rows and rows added later. Results: impulses (N·s) in `cts_baraff_solver_get_forces`,
/// post-impulse row velocities (m/s) in `cts_baraff_solver_get_accelerations`, `q̇⁺` in
/// `cts_baraff_solver_get_generalized_result`, `Δq̇ = M⁻¹ J_fᵀ p` in
/// `cts_baraff_solver_get_generalized_change`, active rows as CTS_BARAFF_SET_CLAMPED and the
/// others as CTS_BARAFF_SET_SEPARATING, the iteration count in the stats. The host applies `q̇⁺`.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_BARAFF_INEXACT or CTS_STATUS_BARAFF_ITERATION_LIMIT (results
/// readable); usage errors (no results): CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_PROBLEM_DATA (no
/// model data), CTS_STATUS_INVALID_ARGUMENT (acceleration-level data, a friction or boxed row,
/// non-finite data, M not positive definite).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_compute_impulses(solver: *mut cts_baraff_solver) -> cts_status {
    with_mut(solver, "cts_baraff_solver_compute_impulses", Call::Starts, |h| {
        h.solved = None;
        let (data, model) = h.model_data()?;
        // SAFETY: the borrowing rule keeps the problem data valid for this call.
        let problem = unsafe { data.model_problem(&model) };
        let outcome = h.solver.impulses_active_set(&problem)?;
        h.finish(outcome, Solved::Model)
    })
}

/// `computeConsistencyImpulse` (§7): the velocity-level pivoting solve of the current model data
/// (CTS_BARAFF_LEVEL_VELOCITY) with the contact whose normal row is `sticking_normal` treated as
/// sticking: that normal is driven first (clamped, so its impulse may grow from 0, when its
/// velocity is within ε of 0), then its friction rows are driven to zero tangential velocity
/// within `±μ_s p_n`, then all other rows in the usual order. `cts_baraff_solver_get_generalized_change`
/// gives `applyImpulse`'s `Δq̇ = M⁻¹ J_fᵀ p`; `cts_baraff_solver_get_generalized_result` gives
/// `q̇⁺`; impulses (N·s) and post-impulse row velocities (m/s) come from the force and
/// acceleration getters. If a friction bound saturates, the impulse is the maximal opposing one
/// and the slip is only reduced.
///
/// The iterative variant (Darwin2K's `computeForcesIter`) is the host's loop around this call:
/// 1. set the acceleration-level force problem (sliding contacts as normal rows with
///    `cts_baraff_solver_set_model_sliding`, `J̇ q̇` with `cts_baraff_solver_set_model_bias`) and
///    `cts_baraff_solver_solve`;
/// 2. on CTS_STATUS_BARAFF_UNBOUNDED_RAY (`cts_baraff_stats.row` is the row being driven): set
///    the velocity-level problem of every active constraint at the current q̇ with that row's
///    contact as sticking (its normal row plus its tangent rows as CTS_BARAFF_ROW_FRICTION rows
///    with μ_s) and call this function with that normal's index;
/// 3. if it returns CTS_STATUS_OK, add `Δq̇` to q̇, re-classify the contact (static once its slip
///    speed is below the host's threshold), recompose and go to 1, at most a few times (the Rust
///    API's default is 3);
/// 4. otherwise, or when the cap is reached, set that row's `mu_d` to 0 (frictionless at that
///    contact for this step, flag a warning) and solve again.
///
/// Returns CTS_STATUS_OK or a Baraff outcome (results readable) as `cts_baraff_solver_solve`;
/// usage errors (no results): CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_PROBLEM_DATA (no model
/// data), CTS_STATUS_INVALID_ARGUMENT (acceleration-level data, `sticking_normal` out of range or
/// not a CTS_BARAFF_ROW_NORMAL row, non-finite data, M not positive definite).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_consistency_impulse(
    solver: *mut cts_baraff_solver,
    sticking_normal: usize,
) -> cts_status {
    with_mut(solver, "cts_baraff_solver_consistency_impulse", Call::Starts, |h| {
        h.solved = None;
        let (data, model) = h.model_data()?;
        // SAFETY: the borrowing rule keeps the problem data valid for this call.
        let problem = unsafe { data.model_problem(&model) };
        let outcome = h.solver.consistency_impulse(&problem, sticking_normal)?;
        h.finish(outcome, Solved::Model)
    })
}

/// `needsImpulse` (§8) for the current velocity-level model data: writes 1 to `*out` when some
/// normal row approaches faster than `cdot_tolerance` (`v_i < −cdot_tolerance`) or some bilateral
/// row moves faster than it (`|v_i| > cdot_tolerance`), with `v = J q̇ + bias`; 0 otherwise.
/// Friction and boxed rows never need one. Does not change the results of the last solve.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_NO_PROBLEM_DATA (no model data);
/// CTS_STATUS_INVALID_ARGUMENT (acceleration-level data; a NaN or infinite entry in q̇, J or the
/// bias, named). `*out` is written only on success.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_needs_impulse(
    solver: *mut cts_baraff_solver,
    out: *mut i32,
) -> cts_status {
    with_mut(solver, "cts_baraff_solver_needs_impulse", Call::Keeps, |h| {
        if out.is_null() {
            return Err(FfiError::null("out"));
        }
        let (data, model) = h.model_data()?;
        // SAFETY: the borrowing rule keeps the problem data valid for this call.
        let problem = unsafe { data.model_problem(&model) };
        let needs = h.solver.needs_impulse(&problem)?;
        // SAFETY: non-NULL and writable (the contract).
        unsafe { *out = i32::from(needs) };
        Ok(cts_status::Ok)
    })
}

/// Copies the row forces `f` of the last solve call (m doubles; N, or N·s for impulses at
/// velocity level) into `out`; `len` must be m. For a friction row, `f` is its friction force
/// along the row's direction; results are readable after every Baraff outcome too.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_DIMENSION_MISMATCH (`len`),
/// CTS_STATUS_NO_SOLUTION (no solve call since the data was set, or it failed with a usage
/// error), CTS_STATUS_NON_FINITE_RESULT (an entry is NaN or infinite). Nothing is written on
/// error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_forces(
    solver: *const cts_baraff_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(solver, "cts_baraff_solver_get_forces", "forces", out, len, |r| r.forces())
}

/// Copies the row accelerations `a = A f + b` recomputed from the final forces (m doubles;
/// m/s² or rad/s²; after a velocity-level call, the post-impulse row velocities in m/s or rad/s;
/// with stabilisation they include the Baumgarte term). For a friction row, its tangential
/// acceleration. Statuses as for `cts_baraff_solver_get_forces`; `len` must be m.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_accelerations(
    solver: *const cts_baraff_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(solver, "cts_baraff_solver_get_accelerations", "accelerations", out, len, |r| {
        r.accelerations()
    })
}

/// Copies the set each row ended in (m `int32_t` CTS_BARAFF_SET_* codes) into `out`: e.g. a
/// friction row in CTS_BARAFF_SET_CLAMPED sticks, in CTS_BARAFF_SET_AT_LOWER / _AT_UPPER it is
/// saturated and the contact starts to slip; a normal row in CTS_BARAFF_SET_SEPARATING carries no
/// force. Statuses as for `cts_baraff_solver_get_forces`; `len` must be m.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_row_sets(
    solver: *const cts_baraff_solver,
    out: *mut i32,
    len: usize,
) -> cts_status {
    with_ref(solver, "cts_baraff_solver_get_row_sets", |h| {
        let sets = h.results()?.row_sets();
        // SAFETY: NULL or `len` writable int32_t (the contract).
        let out = unsafe { output("out", out, len, sets.len()) }?;
        for (o, s) in out.iter_mut().zip(sets) {
            *o = *s as i32;
        }
        Ok(cts_status::Ok)
    })
}

/// Copies the generalized result of the last solve call on model data (n doubles): at
/// acceleration level `q̈ = M⁻¹ (τ − c + J_fᵀ f)` (m/s² or rad/s²), at velocity level
/// `q̇⁺ = q̇ + M⁻¹ J_fᵀ p` (m/s or rad/s). `len` must be n.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_DIMENSION_MISMATCH,
/// CTS_STATUS_NO_SOLUTION (no solve call of the current data, or the data is a matrix problem),
/// CTS_STATUS_NON_FINITE_RESULT (an entry is NaN or infinite). Nothing is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_generalized_result(
    solver: *const cts_baraff_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_model_result(
        solver,
        "cts_baraff_solver_get_generalized_result",
        "generalized result",
        out,
        len,
        |r| r.generalized(),
    )
}

/// Copies the constraint part of the generalized result (n doubles): `M⁻¹ J_fᵀ f` (m/s² or
/// rad/s²), or at velocity level `applyImpulse`'s `Δq̇ = M⁻¹ J_fᵀ p` (m/s or rad/s), which the host
/// adds to its q̇. Statuses as for `cts_baraff_solver_get_generalized_result`; `len` must be n.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_generalized_change(
    solver: *const cts_baraff_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_model_result(
        solver,
        "cts_baraff_solver_get_generalized_change",
        "generalized change",
        out,
        len,
        |r| r.generalized_change(),
    )
}

/// Copies the sliding friction per row (m doubles) of the last solve call on model data (§5):
/// `−mu_d[i] f_i`, the friction force (N, or N·s) along row i's unit slip direction v̂; 0 for
/// rows that are not sliding (all 0 without `cts_baraff_solver_set_model_sliding`). Statuses as
/// for `cts_baraff_solver_get_generalized_result`; `len` must be m.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_sliding_friction_forces(
    solver: *const cts_baraff_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_model_result(
        solver,
        "cts_baraff_solver_get_sliding_friction_forces",
        "sliding friction forces",
        out,
        len,
        |r| r.sliding_friction_forces(),
    )
}

/// Copies `b` (m doubles) as composed by the last solve call on model data: `J M⁻¹ (τ − c)` or
/// `J q̇`, plus bias and stabilisation. Statuses as for `cts_baraff_solver_get_generalized_result`;
/// `len` must be m.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_composed_b(
    solver: *const cts_baraff_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_model_result(solver, "cts_baraff_solver_get_composed_b", "composed b", out, len, |r| r.composed_b())
}

/// Copies `A = J M⁻¹ J_fᵀ` (m×m) as composed by the last solve call on model data into `out`,
/// column-major with leading dimension `ld >= max(1, m)`; rows m..ld-1 are not written. (With
/// sliding friction a negative diagonal entry is the Painlevé signature.)
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_INVALID_ARGUMENT (`ld`),
/// CTS_STATUS_NO_SOLUTION (as for `cts_baraff_solver_get_generalized_result`),
/// CTS_STATUS_NON_FINITE_RESULT. Nothing is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_composed_matrix(
    solver: *const cts_baraff_solver,
    out: *mut f64,
    ld: usize,
) -> cts_status {
    copy_matrix(solver, "cts_baraff_solver_get_composed_matrix", "composed matrix A", out, ld, |h| {
        Ok(h.model_results()?.composed_matrix())
    })
}

/// Copies the statistics of the last solve call into `*out` (also after a Baraff outcome).
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_SOLUTION,
/// CTS_STATUS_NON_FINITE_RESULT (`worst_violation` is NaN or infinite).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_get_stats(
    solver: *const cts_baraff_solver,
    out: *mut cts_baraff_stats,
) -> cts_status {
    get_struct(solver, "cts_baraff_solver_get_stats", out, |h| {
        let stats = h.results()?.stats();
        finite_output("worst_violation", std::slice::from_ref(&stats.worst_violation))?;
        let row = match stats.outcome {
            BaraffOutcome::UnboundedRay { row } | BaraffOutcome::FrictionlessFallback { row } => {
                saturating_i32(row)
            }
            _ => -1,
        };
        Ok(cts_baraff_stats {
            status: cts_status::from(stats.outcome) as i32,
            row,
            pivots: saturating_i32(stats.pivots),
            iterations: saturating_i32(stats.iterations),
            worst_violation: stats.worst_violation,
        })
    })
}

/// Number of rows m of the current problem data (0 without data or for a NULL handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_num_rows(solver: *const cts_baraff_solver) -> usize {
    read(solver, 0, |h| h.data.as_ref().map_or(0, |d| d.m))
}

/// Number of generalized coordinates n of the current model data (0 for matrix data, without
/// data, or for a NULL handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_num_coordinates(solver: *const cts_baraff_solver) -> usize {
    read(solver, 0, |h| h.data.as_ref().and_then(|d| d.model()).map_or(0, |m| m.n))
}

/// Detail of the last failing call on this handle (a usage error or a Baraff outcome, e.g.
/// "cts_baraff_solver_solve: unbounded ray while driving row 0 (1 pivots, 0 iterations, worst
/// relative violation 1)"), errno-style: a successful call leaves it unchanged (a getter after a
/// failed solve keeps the solve's detail); a failing call replaces it; the set calls (problem
/// data, bias, sliding, stabilisation) and the solve calls (`_solve`, `_compute_impulses`,
/// `_consistency_impulse`) clear it when they start, so it is "" after they succeed. "" before
/// any failure. Valid until the next call on the handle; never NULL (also "" for a NULL handle);
/// not to be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_baraff_solver_last_error(solver: *const cts_baraff_solver) -> *const c_char {
    handle::last_error(solver)
}

impl From<BaraffOutcome> for cts_status {
    fn from(o: BaraffOutcome) -> Self {
        match o {
            BaraffOutcome::Solved => cts_status::Ok,
            BaraffOutcome::Inexact => cts_status::BaraffInexact,
            BaraffOutcome::UnboundedRay { .. } => cts_status::BaraffUnboundedRay,
            BaraffOutcome::Cycling => cts_status::BaraffCycling,
            BaraffOutcome::PivotLimit => cts_status::BaraffPivotLimit,
            BaraffOutcome::IterationLimit => cts_status::BaraffIterationLimit,
            BaraffOutcome::FrictionlessFallback { .. } => cts_status::BaraffFrictionlessFallback,
        }
    }
}

/// The one mapping from Baraff usage errors to status codes and messages.
impl From<BaraffError> for FfiError {
    fn from(e: BaraffError) -> Self {
        let status = match e {
            BaraffError::DimensionMismatch { what, expected, got } => {
                return Self::new(
                    cts_status::DimensionMismatch,
                    format!("{what}: got {got}, expected {expected}"),
                );
            }
            BaraffError::NonFinite { what, index, value } => {
                return Self::new(
                    cts_status::InvalidArgument,
                    format!(
                        "{what}: entry {index} (in column-major order) = {} is not finite: expected finite data (NaN and infinities are rejected)",
                        g(value)
                    ),
                );
            }
            BaraffError::InvalidParameter { name, value, domain } => {
                return message::domain(name, g(value), domain);
            }
            BaraffError::MassMatrixNotPositiveDefinite { column, pivot } => {
                return Self::new(
                    cts_status::InvalidArgument,
                    format!(
                        "M is not positive definite: pivot {} in column {column} of its Cholesky factorization; expected a symmetric positive definite mass matrix",
                        g(pivot)
                    ),
                );
            }
            BaraffError::UnknownRowKind { .. }
            | BaraffError::InvalidRow { .. }
            | BaraffError::UnsupportedRowKind { .. }
            | BaraffError::WrongLevel { .. } => cts_status::InvalidArgument,
        };
        Self::new(status, e.to_string())
    }
}
