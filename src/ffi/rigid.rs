//! The rigid constraint-solver C API: Drake's `ConstraintSolver` with its
//! `ConstraintAccelProblemData` (forces) and `ConstraintVelProblemData` (impulses, and the
//! discretized time-stepping problem) behind one opaque handle (`docs/rigid.md`).
//!
//! The handle holds one acceleration-level and one velocity-level problem. Each is set in two
//! steps: `cts_rigid_solver_set_{accel,vel}_problem_data` (sizes, index lists, friction
//! coefficients, the `k*` and `γ` vectors, `tau` or `Mv`; every operator back to Drake's default,
//! the zero map), then each operator from a dense matrix or a C callback and `solve_inertia` from
//! `M`, `M⁻¹` or a callback. All of it is borrowed (Drake's rule) and read again at every solve or
//! compute call.

#![allow(non_snake_case)] // argument names follow Drake: kN, gammaN, Mv, ...

use std::cell::Cell;
use std::ffi::{c_char, c_void};

use super::alloc;
use super::guard::ErrorSlot;
use super::handle::{
    self, Call, Results, copy_matrix, copy_result, copy_vector, get_struct, impl_handle, read,
    set_parameters, with_mut,
};
use super::message::{self, Index, g};
use super::status::{FfiError, cts_status};
use super::view::{RawMatrix, RawVector, finite_input, finite_output, finite_output_matrix, output};
use crate::rigid::{
    ConstraintAccelProblemData, ConstraintSolver, ConstraintSolverParameters, ConstraintVelProblemData, Dims,
    InertiaSolve, Operator, RigidError, RigidOutcome,
};

/// A linear operator or inertia solve supplied by the caller: computes `out = A · in` for the
/// operator it was registered as (`in` has `n_in` doubles, `out` has `n_out` doubles and is
/// zero-filled before the call; either pointer is NULL when its length is 0). `user_data` is the
/// pointer given at registration, passed through untouched.
///
/// Return 0 on success. Any other value reports a failure: the library stops calling callbacks
/// for the rest of that call, discards what it computed, and the call returns
/// CTS_STATUS_CALLBACK_FAILED with the operator's name and the value in the handle's last error.
/// A callback that returns 0 but wrote a NaN or infinite entry to `out` counts as failed the
/// same way (the message names the entry).
///
/// Callbacks run inside solve and compute calls, on the calling thread. They must return
/// normally: they must not longjmp out of the library, throw a C++ exception through it, or call
/// any function on the same solver handle (other handles are fine). They must not keep `in` or
/// `out` after returning.
pub type cts_rigid_operator_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        r#in: *const f64,
        n_in: usize,
        out: *mut f64,
        n_out: usize,
    ) -> i32,
>;

/// Operator `N_mult`: `N·w`, nv → nc (contact normals, all contacts in index order). Matrix form:
/// N, nc×nv.
pub const CTS_RIGID_OPERATOR_N_MULT: i32 = 0;
/// Operator `N_transpose_mult` (velocity level only): `Nᵀ·f`, nc → nv. Matrix form: N itself,
/// nc×nv.
pub const CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT: i32 = 1;
/// Operator `N_minus_muQ_transpose_mult` (acceleration level only): `(N − μQ)ᵀ·f`, nc → nv, the
/// generalized force of normal-force magnitudes f including the sliding friction `−μ f` they
/// imply along each sliding contact's slip direction. Matrix form: `N − μQ`, nc×nv.
pub const CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT: i32 = 2;
/// Operator `F_mult`: `F·w`, nv → nr (friction spanning directions, grouped per contact;
/// acceleration level: non-sliding contacts only). Matrix form: F, nr×nv.
pub const CTS_RIGID_OPERATOR_F_MULT: i32 = 3;
/// Operator `F_transpose_mult`: `Fᵀ·f`, nr → nv. Matrix form: F itself, nr×nv.
pub const CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT: i32 = 4;
/// Operator `L_mult`: `L·w`, nv → nu (generic unilateral constraints). Matrix form: L, nu×nv.
pub const CTS_RIGID_OPERATOR_L_MULT: i32 = 5;
/// Operator `L_transpose_mult`: `Lᵀ·f`, nu → nv. Matrix form: L itself, nu×nv.
pub const CTS_RIGID_OPERATOR_L_TRANSPOSE_MULT: i32 = 6;
/// Operator `G_mult`: `G·w`, nv → nb (bilateral constraints). Matrix form: G, nb×nv.
pub const CTS_RIGID_OPERATOR_G_MULT: i32 = 7;
/// Operator `G_transpose_mult`: `Gᵀ·f`, nb → nv. Matrix form: G itself, nb×nv.
pub const CTS_RIGID_OPERATOR_G_TRANSPOSE_MULT: i32 = 8;
/// `solve_inertia`: `M⁻¹·b`, nv → nv (callbacks only; for matrices see
/// `cts_rigid_solver_set_accel_inertia_matrix`).
pub const CTS_RIGID_OPERATOR_SOLVE_INERTIA: i32 = 9;

/// Form of the matrix given to `cts_rigid_solver_set_*_inertia_matrix`: the generalized inertia
/// matrix M itself (symmetric positive definite; only its lower triangle is read; factored by
/// LDLᵀ at every solve or compute call).
pub const CTS_RIGID_INERTIA_MATRIX: i32 = 0;
/// Form of the matrix given to `cts_rigid_solver_set_*_inertia_matrix`: the inverse `M⁻¹`,
/// applied as a dense product.
pub const CTS_RIGID_INERTIA_INVERSE: i32 = 1;

const OPERATOR_NAMES: [&str; 10] = [
    "N_mult",
    "N_transpose_mult",
    "N_minus_muQ_transpose_mult",
    "F_mult",
    "F_transpose_mult",
    "L_mult",
    "L_transpose_mult",
    "G_mult",
    "G_transpose_mult",
    "solve_inertia",
];

/// Parameters of the rigid constraint solver: Drake-compatibility switches for the known defects
/// of Drake HEAD (`docs/rigid.md` §12). Each is 0 (default: the corrected behaviour) or 1
/// (Drake HEAD's numbers). Fill with `cts_rigid_parameters_default`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct cts_rigid_parameters {
    /// Q1: 1 builds the LCP's Delassus blocks with plain M⁻¹ even when there are bilateral
    /// constraints (Drake HEAD) instead of the constrained inverse inertia C. No effect when
    /// nb = 0.
    pub drake_inverse_inertia_blocks: i32,
    /// Q2: 1 makes the acceleration-level LCP's (fL, fN) block `L W Nᵀ` (Drake HEAD) instead of
    /// `L W (N − μQ)ᵀ`, dropping the sliding-friction term between limits and sliding contacts.
    pub drake_limit_row_transpose: i32,
    /// Q3: 1 adds γ twice in the discretized LCP (`h·block + (h+1)·γ`, `2γE`, Drake HEAD) instead
    /// of once (`h·block + γ`, Drake's documentation).
    pub drake_double_gamma: i32,
    /// Q4: 1 makes the acceleration level's "no force needed" exit return an empty force vector
    /// (Drake HEAD) instead of nc + nr + nu zeros.
    pub drake_empty_fast_exit: i32,
}

impl From<ConstraintSolverParameters> for cts_rigid_parameters {
    fn from(p: ConstraintSolverParameters) -> Self {
        Self {
            drake_inverse_inertia_blocks: i32::from(p.drake_inverse_inertia_blocks),
            drake_limit_row_transpose: i32::from(p.drake_limit_row_transpose),
            drake_double_gamma: i32::from(p.drake_double_gamma),
            drake_empty_fast_exit: i32::from(p.drake_empty_fast_exit),
        }
    }
}

use message::flag;

impl TryFrom<&cts_rigid_parameters> for ConstraintSolverParameters {
    type Error = FfiError;
    fn try_from(p: &cts_rigid_parameters) -> Result<Self, FfiError> {
        Ok(Self {
            drake_inverse_inertia_blocks: flag(
                "drake_inverse_inertia_blocks",
                p.drake_inverse_inertia_blocks,
            )?,
            drake_limit_row_transpose: flag("drake_limit_row_transpose", p.drake_limit_row_transpose)?,
            drake_double_gamma: flag("drake_double_gamma", p.drake_double_gamma)?,
            drake_empty_fast_exit: flag("drake_empty_fast_exit", p.drake_empty_fast_exit)?,
        })
    }
}

fn invalid(message: String) -> FfiError {
    FfiError::new(cts_status::InvalidArgument, message)
}

fn no_data(level: &str) -> FfiError {
    FfiError::new(
        cts_status::NoProblemData,
        format!("no {level} problem data: call cts_rigid_solver_set_{level}_problem_data first"),
    )
}

/// A borrowed contiguous index list (`const size_t *`), validated.
#[derive(Debug, Clone, Copy)]
struct RawIndex {
    ptr: *const usize,
    len: usize,
}

impl RawIndex {
    fn new(name: &str, ptr: *const usize, len: usize) -> Result<Self, FfiError> {
        if !alloc::addressable(len, std::mem::size_of::<usize>()) {
            return Err(alloc::too_large(&format!("{name} ({len} entries)"), "use fewer entries"));
        }
        if ptr.is_null() && len > 0 {
            return Err(message::null_with_len(name, len, "size_t entries"));
        }
        Ok(Self { ptr, len })
    }

    /// # Safety
    /// The caller's array must still be allocated (the borrowing rule).
    unsafe fn slice<'a>(&self) -> &'a [usize] {
        if self.len == 0 {
            &[]
        } else {
            // SAFETY: validated non-NULL with `len` readable entries, per the contract.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }
}

/// A registered C callback.
#[derive(Clone, Copy)]
struct Callback {
    f: unsafe extern "C" fn(*mut c_void, *const f64, usize, *mut f64, usize) -> i32,
    user_data: *mut c_void,
}

/// How one operator is given.
#[derive(Clone, Copy)]
enum OpSlot {
    /// Drake's default: the zero map.
    Zero,
    /// `y = J x`.
    Matrix(RawMatrix),
    /// `y = Jᵀ x`.
    TransposeOf(RawMatrix),
    Callback(Callback),
}

#[derive(Clone, Copy)]
enum InertiaSlot {
    Unset,
    Matrix(RawMatrix),
    Inverse(RawMatrix),
    Callback(Callback),
}

/// Sizes of a problem (§1).
#[derive(Debug, Clone, Copy)]
struct Sizes {
    nv: usize,
    nc: usize,
    nr: usize,
    nu: usize,
    nb: usize,
}

impl Sizes {
    /// Rows of the Jacobian behind operator `op` (its matrix form is rows×nv).
    fn rows(&self, op: i32) -> usize {
        match op {
            0..=2 => self.nc,
            3 | 4 => self.nr,
            5 | 6 => self.nu,
            _ => self.nb,
        }
    }
}

/// Operators and inertia of one level.
#[derive(Clone, Copy)]
struct Operators {
    /// Indexed by operator code 0..=8 (code 1 unused at the acceleration level, 2 at the
    /// velocity level).
    ops: [OpSlot; 9],
    inertia: InertiaSlot,
}

impl Operators {
    fn new() -> Self {
        Self { ops: [OpSlot::Zero; 9], inertia: InertiaSlot::Unset }
    }

    /// The registered callbacks, indexed by operator code (9 = solve_inertia).
    fn callbacks(&self) -> [Option<Callback>; 10] {
        std::array::from_fn(|i| match (i, self.ops.get(i)) {
            (_, Some(OpSlot::Callback(c))) => Some(*c),
            (9, _) => match self.inertia {
                InertiaSlot::Callback(c) => Some(c),
                _ => None,
            },
            _ => None,
        })
    }

    /// The operator `code` as a Rust operator, callbacks taken from `closures`.
    ///
    /// # Safety
    /// Borrowed matrices must still be valid (the borrowing rule).
    unsafe fn op<'a, F: Fn(&[f64], &mut [f64]) + 'a>(
        &self,
        code: usize,
        closures: &'a [F; 10],
    ) -> Operator<'a> {
        match self.ops[code] {
            OpSlot::Zero => Operator::Zero,
            // SAFETY: forwarded contract.
            OpSlot::Matrix(m) => Operator::Matrix(unsafe { m.view() }),
            // SAFETY: forwarded contract.
            OpSlot::TransposeOf(m) => Operator::TransposeOf(unsafe { m.view() }),
            OpSlot::Callback(_) => Operator::Callback(&closures[code]),
        }
    }

    /// # Safety
    /// As [`Operators::op`].
    unsafe fn inertia<'a, F: Fn(&[f64], &mut [f64]) + 'a>(&self, closures: &'a [F; 10]) -> InertiaSolve<'a> {
        match self.inertia {
            InertiaSlot::Unset => InertiaSolve::Unset,
            // SAFETY: forwarded contract.
            InertiaSlot::Matrix(m) => InertiaSolve::Matrix(unsafe { m.view() }),
            // SAFETY: forwarded contract.
            InertiaSlot::Inverse(m) => InertiaSolve::Inverse(unsafe { m.view() }),
            InertiaSlot::Callback(_) => InertiaSolve::Callback(&closures[9]),
        }
    }
}

/// Borrowed acceleration-level data (Drake's `ConstraintAccelProblemData`).
#[derive(Clone, Copy)]
struct AccelSlot {
    sizes: Sizes,
    use_lcp: bool,
    sliding: RawIndex,
    non_sliding: RawIndex,
    r: RawIndex,
    mu_sliding: RawVector,
    mu_non_sliding: RawVector,
    k_n: RawVector,
    k_f: RawVector,
    k_l: RawVector,
    k_g: RawVector,
    tau: RawVector,
    ops: Operators,
}

impl AccelSlot {
    /// The data as the Rust API's struct.
    ///
    /// # Safety
    /// The caller's arrays must still be valid (the borrowing rule).
    unsafe fn view<'a, F: Fn(&[f64], &mut [f64]) + 'a>(
        &self,
        cl: &'a [F; 10],
    ) -> ConstraintAccelProblemData<'a> {
        let o = &self.ops;
        // SAFETY: forwarded contract; every raw part was validated when set.
        unsafe {
            ConstraintAccelProblemData {
                use_complementarity_problem_solver: self.use_lcp,
                sliding_contacts: self.sliding.slice(),
                non_sliding_contacts: self.non_sliding.slice(),
                r: self.r.slice(),
                mu_sliding: self.mu_sliding.view(),
                mu_non_sliding: self.mu_non_sliding.view(),
                g_mult: o.op(7, cl),
                g_transpose_mult: o.op(8, cl),
                k_g: self.k_g.view(),
                n_mult: o.op(0, cl),
                n_minus_muq_transpose_mult: o.op(2, cl),
                k_n: self.k_n.view(),
                f_mult: o.op(3, cl),
                f_transpose_mult: o.op(4, cl),
                k_f: self.k_f.view(),
                l_mult: o.op(5, cl),
                l_transpose_mult: o.op(6, cl),
                k_l: self.k_l.view(),
                tau: self.tau.view(),
                solve_inertia: o.inertia(cl),
            }
        }
    }
}

/// Borrowed velocity-level data (Drake's `ConstraintVelProblemData`).
#[derive(Clone, Copy)]
struct VelSlot {
    sizes: Sizes,
    r: RawIndex,
    mu: RawVector,
    k_n: RawVector,
    gamma_n: RawVector,
    k_f: RawVector,
    gamma_f: RawVector,
    gamma_e: RawVector,
    k_l: RawVector,
    gamma_l: RawVector,
    k_g: RawVector,
    mv: RawVector,
    ops: Operators,
}

impl VelSlot {
    /// The data as the Rust API's struct.
    ///
    /// # Safety
    /// The caller's arrays must still be valid (the borrowing rule).
    unsafe fn view<'a, F: Fn(&[f64], &mut [f64]) + 'a>(
        &self,
        cl: &'a [F; 10],
    ) -> ConstraintVelProblemData<'a> {
        let o = &self.ops;
        // SAFETY: forwarded contract; every raw part was validated when set.
        unsafe {
            ConstraintVelProblemData {
                r: self.r.slice(),
                mu: self.mu.view(),
                g_mult: o.op(7, cl),
                g_transpose_mult: o.op(8, cl),
                k_g: self.k_g.view(),
                n_mult: o.op(0, cl),
                n_transpose_mult: o.op(1, cl),
                k_n: self.k_n.view(),
                gamma_n: self.gamma_n.view(),
                f_mult: o.op(3, cl),
                f_transpose_mult: o.op(4, cl),
                k_f: self.k_f.view(),
                gamma_f: self.gamma_f.view(),
                gamma_e: self.gamma_e.view(),
                l_mult: o.op(5, cl),
                l_transpose_mult: o.op(6, cl),
                k_l: self.k_l.view(),
                gamma_l: self.gamma_l.view(),
                mv: self.mv.view(),
                solve_inertia: o.inertia(cl),
            }
        }
    }
}

/// The first failing callback of a call.
#[derive(Debug, Clone, Copy)]
struct Failure {
    op: usize,
    kind: FailureKind,
}

/// How a callback failed.
#[derive(Debug, Clone, Copy)]
enum FailureKind {
    /// It returned this nonzero value.
    Returned(i32),
    /// It returned 0 but wrote a non-finite `out[index] = value`.
    NonFinite { index: usize, value: f64 },
}

/// The Rust closure behind a C callback: skips the call once a callback of this call failed
/// (the output stays zero), records the first failure: a nonzero return or a non-finite entry
/// written (O(n_out) per call, the size of what the callback wrote).
fn closure<'c>(
    cb: Option<Callback>,
    op: usize,
    failure: &'c Cell<Option<Failure>>,
) -> impl Fn(&[f64], &mut [f64]) + 'c {
    move |x: &[f64], y: &mut [f64]| {
        let Some(cb) = cb else { return };
        if failure.get().is_some() {
            y.fill(0.0);
            return;
        }
        let xp = if x.is_empty() { std::ptr::null() } else { x.as_ptr() };
        let yp = if y.is_empty() { std::ptr::null_mut() } else { y.as_mut_ptr() };
        // SAFETY: a C function registered by the caller with the documented signature; `xp`,
        // `yp` are valid for `x.len()`, `y.len()` doubles (or NULL when empty) during the call.
        let rc = unsafe { (cb.f)(cb.user_data, xp, x.len(), yp, y.len()) };
        let kind = if rc != 0 {
            Some(FailureKind::Returned(rc))
        } else {
            y.iter()
                .position(|v| !v.is_finite())
                .map(|index| FailureKind::NonFinite { index, value: y[index] })
        };
        if let Some(kind) = kind {
            failure.set(Some(Failure { op, kind }));
            y.fill(0.0);
        }
    }
}

fn callback_error(f: Failure) -> FfiError {
    let name = OPERATOR_NAMES[f.op];
    let what = match f.kind {
        FailureKind::Returned(code) => format!("the {name} callback returned {code} (expected 0)"),
        FailureKind::NonFinite { index, value } => format!(
            "the {name} callback returned 0 but wrote out[{index}] = {}, which is not finite (expected finite output)",
            g(value)
        ),
    };
    FfiError::new(cts_status::CallbackFailed, format!("{what}; the call was abandoned"))
}

/// Which level the results of the last solve belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Accel,
    Vel,
}

/// Opaque handle of Drake's rigid `ConstraintSolver`, with one acceleration-level and one
/// velocity-level problem (borrowed) and the results of the last solve. Workspaces only grow:
/// repeated solves of one size allocate nothing. Create with `cts_rigid_solver_new`, release with
/// `cts_rigid_solver_free`. Not thread-safe: one handle must not be used by two threads at once;
/// distinct handles are independent.
pub struct cts_rigid_solver {
    error: ErrorSlot,
    inner: RigidInner,
}

impl_handle!(cts_rigid_solver => RigidInner);

#[doc(hidden)]
pub struct RigidInner {
    solver: ConstraintSolver,
    accel: Option<AccelSlot>,
    vel: Option<VelSlot>,
    /// Packed forces of the last solve and the level they belong to (`None`: no results).
    cf: Vec<f64>,
    results: Option<Level>,
    /// Scratch for compute outputs (copied out only on success).
    out: Vec<f64>,
    /// Largest workspace (bytes) probed to be allocatable.
    checked: usize,
}

impl RigidInner {
    fn new(solver: ConstraintSolver) -> Self {
        Self { solver, accel: None, vel: None, cf: Vec::new(), results: None, out: Vec::new(), checked: 0 }
    }

    fn accel(&self) -> Result<AccelSlot, FfiError> {
        self.accel.ok_or_else(|| no_data("accel"))
    }

    fn vel(&self) -> Result<VelSlot, FfiError> {
        self.vel.ok_or_else(|| no_data("vel"))
    }

    /// The state of a clone (`cts_rigid_solver_clone`): parameters and workspace, no data and no
    /// results. The copy allocates as much as the original's workspace, at most the size probed
    /// for it.
    fn copy(&self) -> Result<Self, FfiError> {
        alloc::probe(Some(self.checked), 1, &mut 0, || "a copy of the workspace".into(), "")?;
        Ok(RigidInner { checked: self.checked, ..RigidInner::new(self.solver.clone()) })
    }

    /// Refuses problems whose workspace (inertia factorization, Delassus and `M⁻¹Jᵀ` blocks,
    /// the LCP and its solvers' factors: `ConstraintSolver::workspace_bound`) cannot be allocated,
    /// instead of letting the allocation abort the host. Probes only when the size grows. `n_lcp`
    /// is `None` when its sum overflowed.
    fn check_allocatable(&mut self, d: &Dims, n_lcp: Option<usize>) -> Result<(), FfiError> {
        let what = || {
            format!(
                "the workspace of nv = {}, nc = {}, nr = {}, nu = {}, nb = {} (LCP size {})",
                d.nv,
                d.nc,
                d.nr,
                d.nu,
                d.nb,
                n_lcp.map_or("overflows".to_string(), |n| n.to_string())
            )
        };
        let need = n_lcp.and_then(|n| ConstraintSolver::workspace_bound(d, n));
        alloc::probe_doubles(
            need,
            &mut self.checked,
            what,
            "it needs about nv² + nb² + nv·(nc + nr + nu + nb) + 12·n² doubles (n the LCP size)",
        )
    }

    /// [`Self::check_allocatable`] from the sizes alone, before any of the caller's data is read
    /// (issue 24: a problem whose workspace can never exist is refused at once, instead of after
    /// reading, e.g., 2³⁶ entries of kG). At the velocity level the LCP size is exact; at the
    /// acceleration level its lower bound nc + nr + nu (the non-sliding count is not known yet).
    fn check_sizes(&mut self, s: Sizes, vel: bool) -> Result<(), FfiError> {
        let d =
            Dims { nv: s.nv, nc: s.nc, ns: 0, nns: if vel { s.nc } else { 0 }, nr: s.nr, nu: s.nu, nb: s.nb };
        let n_lcp =
            if vel { vel_lcp_size(&d) } else { s.nc.checked_add(s.nr).and_then(|x| x.checked_add(s.nu)) };
        self.check_allocatable(&d, n_lcp)
    }

    /// The checks of a set call before its data is read: the sizes `s` (without friction
    /// directions), then `r` (`n` entries) and the sizes again with nr = Σ r.
    fn check_sizes_and_r(
        &mut self,
        s: Sizes,
        r: *const usize,
        n: usize,
        vel: bool,
    ) -> Result<(Sizes, RawIndex), FfiError> {
        self.check_sizes(s, vel)?;
        let r = RawIndex::new("r", r, n)?;
        // SAFETY: the set call's arrays are valid during the call (the contract).
        let nr = unsafe { sum_r(&r) }?;
        let s = Sizes { nr, ..s };
        self.check_sizes(s, vel)?;
        Ok((s, r))
    }

    /// Records the results of a solve that returned `outcome` (or failed).
    fn finish(
        &mut self,
        level: Level,
        result: Result<RigidOutcome, RigidError>,
        failure: Option<Failure>,
    ) -> Result<cts_status, FfiError> {
        self.results = None;
        if let Some(f) = failure {
            return Err(callback_error(f));
        }
        let outcome = result?;
        let cf = self.solver.cf();
        alloc::try_reserve(&mut self.cf, cf.len(), "the packed constraint forces")?;
        self.cf.clear();
        self.cf.extend_from_slice(cf);
        self.results = Some(level);
        let status = cts_status::from(outcome);
        if outcome == RigidOutcome::Solved {
            // The final check: OK only when every output is finite, the forces and the LCP the
            // getters expose (a huge γ or k can overflow MM or w while z stays finite).
            finite_output("cf (packed constraint forces)", &self.cf)?;
            finite_output_matrix("the LCP matrix MM", &self.solver.lcp_matrix())?;
            finite_output("the LCP vector qq", self.solver.lcp_vector())?;
            finite_output("the LCP solution z", self.solver.lcp_z())?;
            finite_output("the LCP slack w", self.solver.lcp_w())?;
            Ok(status)
        } else {
            let n = self.solver.lcp_size();
            let pivots = self.solver.num_pivots();
            Err(FfiError::formatted(
                status,
                format_args!("{} (LCP size {n}, {pivots} pivots)", outcome.message()),
            ))
        }
    }
}

/// Σ r with an overflow check.
///
/// # Safety
/// `r` valid for this call.
unsafe fn sum_r(r: &RawIndex) -> Result<usize, FfiError> {
    // SAFETY: forwarded contract.
    let s = unsafe { r.slice() };
    s.iter()
        .try_fold(0usize, |a, &x| a.checked_add(x))
        .ok_or_else(|| alloc::too_large("nr = the sum of r", "the sum of the entries of r must fit a size_t"))
}

/// An optional γ vector: NULL is Drake's empty vector (no regularization), otherwise `len`
/// doubles.
fn gamma(name: &str, ptr: *const f64, len: usize) -> Result<RawVector, FfiError> {
    RawVector::new(name, ptr, if ptr.is_null() { 0 } else { len })
}

/// Validates data whose operators are all set to their defaults, with a placeholder inertia
/// solve (sizes, index lists, γ signs).
fn noop(_: &[f64], _: &mut [f64]) {}

/// Size of the velocity-level LCP, 2nc + 2nr + nu (`None` when it overflows).
fn vel_lcp_size(d: &Dims) -> Option<usize> {
    d.nc.checked_add(d.nr)?.checked_mul(2)?.checked_add(d.nu)
}

/// Fills `*out` with the defaults: every Drake-compatibility switch 0 (the corrected behaviour).
/// NULL-safe (does nothing).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_parameters_default(out: *mut cts_rigid_parameters) {
    handle::write_default(out, || ConstraintSolverParameters::default().into())
}

/// Creates a constraint solver with default parameters and writes the handle to `*out` (only on
/// success).
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER (`out` is NULL; detail in
/// `cts_last_error_message()`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_new(out: *mut *mut cts_rigid_solver) -> cts_status {
    handle::new(out, "cts_rigid_solver_new", || Ok(RigidInner::new(ConstraintSolver::new())))
}

/// Releases a solver and ends the borrow of its problem data. NULL is a no-op; freeing a handle
/// twice is the caller's bug.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_free(solver: *mut cts_rigid_solver) {
    handle::free(solver)
}

/// Deep copy of a solver's parameters and workspace into a new handle `*out` (only on success),
/// e.g. for another thread. The copy has no problem data and no results.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER (`solver` or `out` NULL) or
/// CTS_STATUS_ALLOCATION_FAILED (the copy's workspace was refused); failures leave their detail
/// in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_clone(
    solver: *const cts_rigid_solver,
    out: *mut *mut cts_rigid_solver,
) -> cts_status {
    handle::clone(solver, out, "cts_rigid_solver_clone", RigidInner::copy)
}

/// Validates and sets the parameters (copied). Keeps problem data and results.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, or CTS_STATUS_INVALID_ARGUMENT (a switch other
/// than 0 or 1; nothing changed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_set_parameters(
    solver: *mut cts_rigid_solver,
    p: *const cts_rigid_parameters,
) -> cts_status {
    set_parameters(solver, "cts_rigid_solver_set_parameters", p, |h, p: ConstraintSolverParameters, _| {
        h.solver.set_parameters(p);
        Ok::<(), FfiError>(())
    })
}

/// Copies the current parameters into `*out`.
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_get_parameters(
    solver: *const cts_rigid_solver,
    out: *mut cts_rigid_parameters,
) -> cts_status {
    get_struct(solver, "cts_rigid_solver_get_parameters", out, |h| Ok((*h.solver.parameters()).into()))
}

/// Sets the acceleration-level problem (Drake's `ConstraintAccelProblemData`, forces), all but
/// its operators, which are reset to Drake's default (the zero map) with `solve_inertia` unset;
/// set them next with `cts_rigid_solver_set_accel_operator_matrix` / `_callback` and
/// `cts_rigid_solver_set_accel_inertia_matrix` (or the `CTS_RIGID_OPERATOR_SOLVE_INERTIA`
/// callback).
///
/// The problem: unknowns v̇ (nv), fN (nc = ns + nns), friction along the nr = Σ r spanning
/// directions of the non-sliding contacts, fL (nu), fG (nb);
/// `M v̇ = tau + (N − μQ)ᵀ fN + Fᵀ fF + Lᵀ fL + Gᵀ fG`, `G v̇ + kG = 0`,
/// `0 <= fN ⊥ N v̇ + kN >= 0`, `0 <= fL ⊥ L v̇ + kL >= 0`, friction in the linearized cone of
/// each non-sliding contact, the sliding contacts' friction `−μ fN` along their slip directions.
///
/// * `nv`: generalized velocities; `tau` (nv): generalized external force, N (N·m).
/// * `ns` sliding contacts: `sliding_contacts` (ns indices into 0..nc, strictly ascending),
///   `mu_sliding` (ns Coulomb coefficients, in that order).
/// * `nns` non-sliding contacts: `non_sliding_contacts` (nns indices, strictly ascending; the two
///   lists partition 0..nc), `mu_non_sliding` (nns static coefficients), `r` (nns spanning
///   directions per contact: 1 in 2-D, 2 for a 3-D friction pyramid).
/// * `kN` (nc, m/s²): `N v̇ + kN >= 0` (e.g. `Ṅ v`); `kF` (nr): `Ḟ v`.
/// * `nu` limits: `kL` (nu). `nb` bilateral constraints: `kG` (nb).
/// * `use_complementarity_problem_solver`: 1 (Drake's default) solves the LCP; 0 assumes every
///   constraint active and solves a linear system (fast; forces may come out negative).
///
/// A pointer may be NULL only when its length is 0. The arrays are **borrowed**: read now
/// (validation) and at every later solve or compute call that uses the acceleration-level data,
/// until the next call of this function or `cts_rigid_solver_free`; they must stay allocated,
/// and the index arrays unchanged. The `double` arrays may be updated in place between calls:
/// each solve reads and validates them again. Keeps the velocity-level data and the results.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_INVALID_ARGUMENT (index lists not
/// a strictly ascending partition of 0..nc, the flag not 0 or 1, sizes whose workspace cannot
/// exist); CTS_STATUS_ALLOCATION_FAILED (the workspace of these sizes was refused; sizes are
/// checked before any array is read); CTS_STATUS_DIMENSION_MISMATCH. On error the previous
/// acceleration-level data stays set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_set_accel_problem_data(
    solver: *mut cts_rigid_solver,
    nv: usize,
    ns: usize,
    sliding_contacts: *const usize,
    mu_sliding: *const f64,
    nns: usize,
    non_sliding_contacts: *const usize,
    mu_non_sliding: *const f64,
    r: *const usize,
    kN: *const f64,
    kF: *const f64,
    nu: usize,
    kL: *const f64,
    nb: usize,
    kG: *const f64,
    tau: *const f64,
    use_complementarity_problem_solver: i32,
) -> cts_status {
    with_mut(solver, "cts_rigid_solver_set_accel_problem_data", Call::Starts, |h| {
        let use_lcp = flag("use_complementarity_problem_solver", use_complementarity_problem_solver)?;
        let nc = ns
            .checked_add(nns)
            .ok_or_else(|| alloc::too_large("nc = ns + nns", "ns + nns must fit a size_t"))?;
        let (sizes, r) = h.check_sizes_and_r(Sizes { nv, nc, nr: 0, nu, nb }, r, nns, false)?;
        let nr = sizes.nr;
        let slot = AccelSlot {
            sizes,
            use_lcp,
            sliding: RawIndex::new("sliding_contacts", sliding_contacts, ns)?,
            non_sliding: RawIndex::new("non_sliding_contacts", non_sliding_contacts, nns)?,
            r,
            mu_sliding: RawVector::new("mu_sliding", mu_sliding, ns)?,
            mu_non_sliding: RawVector::new("mu_non_sliding", mu_non_sliding, nns)?,
            k_n: RawVector::new("kN", kN, nc)?,
            k_f: RawVector::new("kF", kF, nr)?,
            k_l: RawVector::new("kL", kL, nu)?,
            k_g: RawVector::new("kG", kG, nb)?,
            tau: RawVector::new("tau", tau, nv)?,
            ops: Operators::new(),
        };
        let f = noop;
        let cl: [_; 10] = std::array::from_fn(|_| f);
        // SAFETY: as above.
        let mut data = unsafe { slot.view(&cl) };
        data.solve_inertia = InertiaSolve::Callback(&cl[9]);
        data.validate()?;
        h.accel = Some(slot);
        Ok(cts_status::Ok)
    })
}

/// Sets the velocity-level problem (Drake's `ConstraintVelProblemData`: impulses for
/// `cts_rigid_solver_solve_impact_problem`, forces for
/// `cts_rigid_solver_solve_discretized_problem`), all but its operators, which are reset to
/// Drake's default (the zero map) with `solve_inertia` unset; set them next with
/// `cts_rigid_solver_set_vel_operator_matrix` / `_callback` and
/// `cts_rigid_solver_set_vel_inertia_matrix` (or the `CTS_RIGID_OPERATOR_SOLVE_INERTIA`
/// callback).
///
/// The impact problem: `M v⁺ = Mv + Nᵀ fN + Fᵀ fF + Lᵀ fL + Gᵀ fG`, `G v⁺ + kG = 0`,
/// `0 <= fN ⊥ N v⁺ + kN + γN∘fN >= 0`, friction in the linearized cone of every contact (with
/// γF, γE), `0 <= fL ⊥ L v⁺ + kL + γL∘fL >= 0`.
///
/// * `nv`: generalized velocities; `Mv` (nv): generalized momentum `M v⁻` before the impulses,
///   N·s (discretized problem: `M v(t) + h·(non-constraint forces)`).
/// * `nc` contacts: `r` (nc spanning directions per contact), `mu` (nc friction coefficients),
///   `kN` (nc, m/s: stabilization, restitution `e·N v⁻`), `gammaN` (nc, >= 0, or NULL for none).
/// * Friction (nr = Σ r): `kF` (nr), `gammaF` (nr, >= 0, or NULL), `gammaE` (nc, >= 0, or NULL).
/// * `nu` limits: `kL` (nu), `gammaL` (nu, >= 0, or NULL). `nb` bilateral: `kG` (nb).
///
/// A pointer may be NULL only when its length is 0 (the γ vectors: always). Borrowed as in
/// `cts_rigid_solver_set_accel_problem_data` (until the next call of this function or free);
/// keeps the acceleration-level data and the results.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_INVALID_ARGUMENT (a negative or NaN
/// γ, sizes whose workspace cannot exist); CTS_STATUS_ALLOCATION_FAILED (the workspace of these
/// sizes was refused; sizes are checked before any array is read); CTS_STATUS_DIMENSION_MISMATCH.
/// On error the previous velocity-level data stays set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_set_vel_problem_data(
    solver: *mut cts_rigid_solver,
    nv: usize,
    nc: usize,
    r: *const usize,
    mu: *const f64,
    kN: *const f64,
    gammaN: *const f64,
    kF: *const f64,
    gammaF: *const f64,
    gammaE: *const f64,
    nu: usize,
    kL: *const f64,
    gammaL: *const f64,
    nb: usize,
    kG: *const f64,
    Mv: *const f64,
) -> cts_status {
    with_mut(solver, "cts_rigid_solver_set_vel_problem_data", Call::Starts, |h| {
        let (sizes, r) = h.check_sizes_and_r(Sizes { nv, nc, nr: 0, nu, nb }, r, nc, true)?;
        let nr = sizes.nr;
        let slot = VelSlot {
            sizes,
            r,
            mu: RawVector::new("mu", mu, nc)?,
            k_n: RawVector::new("kN", kN, nc)?,
            gamma_n: gamma("gammaN", gammaN, nc)?,
            k_f: RawVector::new("kF", kF, nr)?,
            gamma_f: gamma("gammaF", gammaF, nr)?,
            gamma_e: gamma("gammaE", gammaE, nc)?,
            k_l: RawVector::new("kL", kL, nu)?,
            gamma_l: gamma("gammaL", gammaL, nu)?,
            k_g: RawVector::new("kG", kG, nb)?,
            mv: RawVector::new("Mv", Mv, nv)?,
            ops: Operators::new(),
        };
        let f = noop;
        let cl: [_; 10] = std::array::from_fn(|_| f);
        // SAFETY: as above.
        let mut data = unsafe { slot.view(&cl) };
        data.solve_inertia = InertiaSolve::Callback(&cl[9]);
        data.validate()?;
        h.vel = Some(slot);
        Ok(cts_status::Ok)
    })
}

/// Operator codes valid at a level (`accel`: N_minus_muQ_transpose_mult; else N_transpose_mult).
fn check_op(op: i32, accel: bool, allow_inertia: bool) -> Result<(), FfiError> {
    let wrong_n = if accel {
        CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT
    } else {
        CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT
    };
    if !(0..=9).contains(&op) {
        return Err(message::code("op", op, "a CTS_RIGID_OPERATOR_* value (0..9)"));
    }
    if op == wrong_n {
        let level = if accel {
            "the acceleration level (use N_MINUS_MUQ_TRANSPOSE_MULT)"
        } else {
            "the velocity level (use N_TRANSPOSE_MULT)"
        };
        return Err(invalid(format!("{} is not an operator of {level}", OPERATOR_NAMES[op as usize])));
    }
    if op == CTS_RIGID_OPERATOR_SOLVE_INERTIA && !allow_inertia {
        return Err(invalid(
            "solve_inertia takes a matrix through cts_rigid_solver_set_*_inertia_matrix".into(),
        ));
    }
    Ok(())
}

/// The Jacobian behind operator `op` (rows×nv): `y = J x` for the `*_mult` operators, `y = Jᵀ x`
/// for the transpose operators (codes 1, 2, 4, 6, 8).
fn op_matrix(sizes: &Sizes, op: i32, A: *const f64, ld_A: usize) -> Result<OpSlot, FfiError> {
    let name = OPERATOR_NAMES[op as usize];
    let m = RawMatrix::new(name, A, ld_A, sizes.rows(op), sizes.nv)?;
    // SAFETY: the set call's array is valid during the call (the contract); it is checked again
    // at every solve, since the values may change in place.
    unsafe { m.check_finite(name) }?;
    Ok(if matches!(op, 1 | 2 | 4 | 6 | 8) { OpSlot::TransposeOf(m) } else { OpSlot::Matrix(m) })
}

/// Sizes and operators of one level.
fn level_ops(h: &mut RigidInner, accel: bool) -> Result<(Sizes, &mut Operators), FfiError> {
    if accel {
        let slot = h.accel.as_mut().ok_or_else(|| no_data("accel"))?;
        Ok((slot.sizes, &mut slot.ops))
    } else {
        let slot = h.vel.as_mut().ok_or_else(|| no_data("vel"))?;
        Ok((slot.sizes, &mut slot.ops))
    }
}

/// The body of `cts_rigid_solver_set_{accel,vel}_operator_matrix` (`accel`: the level).
fn set_operator_matrix(
    solver: *mut cts_rigid_solver,
    function: &'static str,
    accel: bool,
    op: i32,
    A: *const f64,
    ld_A: usize,
) -> cts_status {
    with_mut(solver, function, Call::Keeps, |h| {
        check_op(op, accel, false)?;
        let (sizes, ops) = level_ops(h, accel)?;
        ops.ops[op as usize] = op_matrix(&sizes, op, A, ld_A)?;
        Ok(cts_status::Ok)
    })
}

/// The body of `cts_rigid_solver_set_{accel,vel}_operator_callback`.
fn set_operator_callback(
    solver: *mut cts_rigid_solver,
    function: &'static str,
    accel: bool,
    op: i32,
    f: cts_rigid_operator_fn,
    user_data: *mut c_void,
) -> cts_status {
    with_mut(solver, function, Call::Keeps, |h| {
        check_op(op, accel, true)?;
        let f = f.ok_or_else(|| FfiError::null("fn"))?;
        let (_, ops) = level_ops(h, accel)?;
        let cb = Callback { f, user_data };
        if op == CTS_RIGID_OPERATOR_SOLVE_INERTIA {
            ops.inertia = InertiaSlot::Callback(cb);
        } else {
            ops.ops[op as usize] = OpSlot::Callback(cb);
        }
        Ok(cts_status::Ok)
    })
}

/// The body of `cts_rigid_solver_set_{accel,vel}_inertia_matrix`.
fn set_inertia_matrix(
    solver: *mut cts_rigid_solver,
    function: &'static str,
    accel: bool,
    form: i32,
    A: *const f64,
    ld_A: usize,
) -> cts_status {
    with_mut(solver, function, Call::Keeps, |h| {
        let (sizes, ops) = level_ops(h, accel)?;
        let nv = sizes.nv;
        ops.inertia = match form {
            CTS_RIGID_INERTIA_MATRIX => InertiaSlot::Matrix(RawMatrix::new("M", A, ld_A, nv, nv)?),
            CTS_RIGID_INERTIA_INVERSE => InertiaSlot::Inverse(RawMatrix::new("M_inverse", A, ld_A, nv, nv)?),
            f => {
                return Err(message::code(
                    "form",
                    f,
                    "CTS_RIGID_INERTIA_MATRIX (0) or CTS_RIGID_INERTIA_INVERSE (1)",
                ));
            }
        };
        Ok(cts_status::Ok)
    })
}

/// Sets one operator of the acceleration-level problem from a dense column-major Jacobian `A`
/// (leading dimension `ld_A >= max(1, rows)`): for `op` = `CTS_RIGID_OPERATOR_N_MULT`,
/// `_N_MINUS_MUQ_TRANSPOSE_MULT`, `_F_MULT`, `_F_TRANSPOSE_MULT`, `_L_MULT`, `_L_TRANSPOSE_MULT`,
/// `_G_MULT` or `_G_TRANSPOSE_MULT`, `A` is the Jacobian itself — N (nc×nv), N − μQ (nc×nv),
/// F (nr×nv), L (nu×nv) or G (nb×nv) — applied as `A·x` by a `*_mult` operator and as `Aᵀ·x` by a
/// `*_transpose_mult` one (pass the same F to `F_MULT` and `F_TRANSPOSE_MULT`). `A` may be NULL
/// when it has no rows. Borrowed like the rest of the acceleration-level data.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_INVALID_ARGUMENT (`op` not an
/// acceleration-level operator — `CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT` is velocity-level,
/// `solve_inertia` goes through `cts_rigid_solver_set_accel_inertia_matrix` —, `ld_A`);
/// CTS_STATUS_NO_PROBLEM_DATA (no acceleration-level data set). On error nothing changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_set_accel_operator_matrix(
    solver: *mut cts_rigid_solver,
    op: i32,
    A: *const f64,
    ld_A: usize,
) -> cts_status {
    set_operator_matrix(solver, "cts_rigid_solver_set_accel_operator_matrix", true, op, A, ld_A)
}

/// Sets one operator of the acceleration-level problem, or `solve_inertia`
/// (`CTS_RIGID_OPERATOR_SOLVE_INERTIA`: `x = M⁻¹ b`, nv → nv), to the C callback `fn` with
/// `user_data` (see `cts_rigid_operator_fn` for its contract; input and output lengths are those
/// of the operator, e.g. `N_mult`: nv → nc, `N_minus_muQ_transpose_mult`: nc → nv). `fn` and
/// `user_data` must stay valid as long as the acceleration-level data.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER (`fn`); CTS_STATUS_INVALID_ARGUMENT (`op`);
/// CTS_STATUS_NO_PROBLEM_DATA. On error nothing changes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_set_accel_operator_callback(
    solver: *mut cts_rigid_solver,
    op: i32,
    r#fn: cts_rigid_operator_fn,
    user_data: *mut c_void,
) -> cts_status {
    set_operator_callback(solver, "cts_rigid_solver_set_accel_operator_callback", true, op, r#fn, user_data)
}

/// Sets `solve_inertia` of the acceleration-level problem from a dense nv×nv column-major matrix
/// (`ld_A >= max(1, nv)`): `form` = `CTS_RIGID_INERTIA_MATRIX` for M itself (SPD, lower
/// triangle read, factored at every solve or compute call; kg, kg·m²) or
/// `CTS_RIGID_INERTIA_INVERSE` for M⁻¹. Borrowed like the rest of the data.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_INVALID_ARGUMENT (`form`, `ld_A`);
/// CTS_STATUS_NO_PROBLEM_DATA. On error nothing changes. A matrix M that cannot be factored is
/// reported by the solve (CTS_STATUS_INVALID_ARGUMENT).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_set_accel_inertia_matrix(
    solver: *mut cts_rigid_solver,
    form: i32,
    A: *const f64,
    ld_A: usize,
) -> cts_status {
    set_inertia_matrix(solver, "cts_rigid_solver_set_accel_inertia_matrix", true, form, A, ld_A)
}

/// As `cts_rigid_solver_set_accel_operator_matrix`, for the velocity-level problem: `op` is one
/// of `CTS_RIGID_OPERATOR_N_MULT`, `_N_TRANSPOSE_MULT`, `_F_MULT`, `_F_TRANSPOSE_MULT`, `_L_MULT`,
/// `_L_TRANSPOSE_MULT`, `_G_MULT`, `_G_TRANSPOSE_MULT`; `A` is N (nc×nv), F (nr×nv), L (nu×nv)
/// or G (nb×nv). `CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT` is acceleration-level only.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_set_vel_operator_matrix(
    solver: *mut cts_rigid_solver,
    op: i32,
    A: *const f64,
    ld_A: usize,
) -> cts_status {
    set_operator_matrix(solver, "cts_rigid_solver_set_vel_operator_matrix", false, op, A, ld_A)
}

/// As `cts_rigid_solver_set_accel_operator_callback`, for the velocity-level problem (e.g.
/// `N_transpose_mult`: nc → nv).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_set_vel_operator_callback(
    solver: *mut cts_rigid_solver,
    op: i32,
    r#fn: cts_rigid_operator_fn,
    user_data: *mut c_void,
) -> cts_status {
    set_operator_callback(solver, "cts_rigid_solver_set_vel_operator_callback", false, op, r#fn, user_data)
}

/// As `cts_rigid_solver_set_accel_inertia_matrix`, for the velocity-level problem.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_set_vel_inertia_matrix(
    solver: *mut cts_rigid_solver,
    form: i32,
    A: *const f64,
    ld_A: usize,
) -> cts_status {
    set_inertia_matrix(solver, "cts_rigid_solver_set_vel_inertia_matrix", false, form, A, ld_A)
}

/// Drake's `SolveConstraintProblem`: contact, friction, limit and bilateral **forces** (N, N·m)
/// of the acceleration-level problem. On success `cts_rigid_solver_get_constraint_forces` gives
/// the packed `cf = [fN (nc) | fF (nr) | fL (nu) | fG (nb)]`: fN the normal force magnitudes in
/// contact order, fF the signed friction along each spanning direction of the non-sliding
/// contacts (sliding friction is `−μ·fN`, implied), fL the limit forces, fG the bilateral forces.
/// When no force is needed (nothing violated, nb = 0) cf is nc + nr + nu zeros (empty with the
/// `drake_empty_fast_exit` switch); with no constraints at all, empty.
///
/// Returns CTS_STATUS_OK or CTS_STATUS_RIGID_LCP_UNSOLVABLE (cf is zeros; the LCP, z and w stay
/// readable); CTS_STATUS_NON_FINITE_RESULT when the LCP was solved but cf, the LCP matrix or
/// vector, z or w has a NaN or infinite entry (huge finite data overflowed; the results stay, and
/// the getters of non-finite values report the same status and write nothing); or a usage error: CTS_STATUS_NULL_POINTER,
/// CTS_STATUS_NO_PROBLEM_DATA (no data, or `solve_inertia` not set), CTS_STATUS_INVALID_ARGUMENT
/// (data invalid now: a NaN or infinite entry in any vector or dense operator, a negative μ or γ,
/// a non-factorable M; or a workspace that cannot exist), CTS_STATUS_DIMENSION_MISMATCH,
/// CTS_STATUS_ALLOCATION_FAILED (the workspace, about nv² + nb² + nv·(nc + nr + nu + nb) + 12·n²
/// doubles, was refused; nothing changed); or CTS_STATUS_CALLBACK_FAILED (a callback returned
/// nonzero or wrote a non-finite value). Every solve first discards the previous results; after
/// an error other than CTS_STATUS_NON_FINITE_RESULT there are none (getters return
/// CTS_STATUS_NO_SOLUTION).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_solve_constraint_problem(
    solver: *mut cts_rigid_solver,
) -> cts_status {
    with_mut(solver, "cts_rigid_solver_solve_constraint_problem", Call::Starts, |h| {
        h.results = None;
        let slot = h.accel()?;
        h.check_sizes(slot.sizes, false)?;
        let failure = Cell::new(None);
        let cbs = slot.ops.callbacks();
        let cl: [_; 10] = std::array::from_fn(|i| closure(cbs[i], i, &failure));
        // SAFETY: the borrowing rule keeps the data valid for this call.
        let data = unsafe { slot.view(&cl) };
        let d = data.validate()?;
        let n = if data.use_complementarity_problem_solver {
            d.nr.checked_mul(2).and_then(|x| x.checked_add(d.nc)?.checked_add(d.nns)?.checked_add(d.nu))
        } else {
            d.nc.checked_add(d.nr).and_then(|x| x.checked_add(d.nu)?.checked_add(d.nb))
        };
        h.check_allocatable(&d, n)?;
        let result = h.solver.solve_constraint_problem(&data);
        h.finish(Level::Accel, result, failure.get())
    })
}

/// Drake's `SolveImpactProblem`: contact, friction, limit and bilateral **impulses** (N·s) of the
/// velocity-level problem, packed as `cf = [fN (nc) | fF (nr) | fL (nu) | fG (nb)]` (all contacts
/// have friction rows here). If the LCP is not solved to Drake's acceptance test it is solved
/// again with progressive regularization (`M + 10^e I`, e = −16 … 0), whose result is used
/// unverified (`cts_rigid_solver_regularization_used` tells). No impact (nothing approaching,
/// nb = 0): nc + nr + nu zeros.
///
/// Returns CTS_STATUS_OK or CTS_STATUS_RIGID_REGULARIZED_LCP_FAILED (cf zeros), or an error as for
/// `cts_rigid_solver_solve_constraint_problem` (for the velocity-level data).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_solve_impact_problem(solver: *mut cts_rigid_solver) -> cts_status {
    with_mut(solver, "cts_rigid_solver_solve_impact_problem", Call::Starts, |h| {
        h.results = None;
        let slot = h.vel()?;
        h.check_sizes(slot.sizes, true)?;
        let failure = Cell::new(None);
        let cbs = slot.ops.callbacks();
        let cl: [_; 10] = std::array::from_fn(|i| closure(cbs[i], i, &failure));
        // SAFETY: the borrowing rule keeps the data valid for this call.
        let data = unsafe { slot.view(&cl) };
        let d = data.validate()?;
        h.check_allocatable(&d, vel_lcp_size(&d))?;
        let result = h.solver.solve_impact_problem(&data);
        h.finish(Level::Vel, result, failure.get())
    })
}

/// The discretized (time-stepping) problem of the velocity-level data over a step `dt` (s,
/// finite, > 0), by the protocol of Drake's tests: `ConstructBaseDiscretizedTimeLcp`,
/// `UpdateDiscretizedTimeLcp(dt)` (constraint blocks scaled by dt, γ added once, or twice with
/// `drake_double_gamma`), a fresh `UnrevisedLemkeSolver` with its default tolerance, and
/// `PopulatePackedConstraintForcesFromLcpSolution(dt)`. Here `Mv = M v(t) + dt·(non-constraint
/// forces)` and `kN`, `kL` are the velocity-level constraint offsets for the step (e.g.
/// `erp·φ/dt`); cf holds **forces** (N) packed as for the impact problem, bilateral forces
/// included. Reduce dt and solve again when it fails (Drake's protocol).
///
/// Returns CTS_STATUS_OK or CTS_STATUS_RIGID_LCP_UNSOLVABLE (cf zeros), or an error as for
/// `cts_rigid_solver_solve_impact_problem`, CTS_STATUS_INVALID_ARGUMENT for `dt`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_solve_discretized_problem(
    solver: *mut cts_rigid_solver,
    dt: f64,
) -> cts_status {
    with_mut(solver, "cts_rigid_solver_solve_discretized_problem", Call::Starts, |h| {
        h.results = None;
        let slot = h.vel()?;
        h.check_sizes(slot.sizes, true)?;
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(message::domain("dt", g(dt), "finite and > 0 (s)"));
        }
        let failure = Cell::new(None);
        let cbs = slot.ops.callbacks();
        let cl: [_; 10] = std::array::from_fn(|i| closure(cbs[i], i, &failure));
        // SAFETY: the borrowing rule keeps the data valid for this call.
        let data = unsafe { slot.view(&cl) };
        let d = data.validate()?;
        h.check_allocatable(&d, vel_lcp_size(&d))?;
        let result = h.solver.solve_discretized(&data, dt);
        h.finish(Level::Vel, result, failure.get())
    })
}

/// Length of the packed constraint-force vector of the last solve (0 without results or for a
/// NULL handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_num_constraint_forces(s: *const cts_rigid_solver) -> usize {
    read(s, 0, |h| h.results.map_or(0, |_| h.cf.len()))
}

/// Copies the packed constraint forces of the last solve, `cf = [fN | fF | fL | fG]`
/// (acceleration level and discretized problem: N, N·m; impact problem: N·s), into `out`; `len`
/// must be `cts_rigid_solver_num_constraint_forces`.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_DIMENSION_MISMATCH (`len`),
/// CTS_STATUS_NO_SOLUTION (no completed solve), CTS_STATUS_NON_FINITE_RESULT (an entry is NaN or
/// infinite). Nothing is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_get_constraint_forces(
    s: *const cts_rigid_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_vector(s, "cts_rigid_solver_get_constraint_forces", "cf (packed constraint forces)", out, len, |h| {
        h.results().map(|_| &h.cf[..])
    })
}

/// Size n of the LCP of the last solve: nc + 2nr + nns + nu (acceleration level) or
/// 2nc + 2nr + nu (impact, discretized); 0 when no LCP was solved (a fast exit, the linear-system
/// path), without results or for a NULL handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_lcp_size(s: *const cts_rigid_solver) -> usize {
    read(s, 0, |h| h.results.map_or(0, |_| h.solver.lcp_size()))
}

/// Lemke pivots of the last solve's LCP (the total over the regularization attempts of an impact
/// solve); 0 without results or for a NULL handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_num_pivots(s: *const cts_rigid_solver) -> usize {
    read(s, 0, |h| h.results.map_or(0, |_| h.solver.num_pivots()))
}

/// 1 if the last impact solve needed the progressively regularized LCP (its impulses solve a
/// regularized LCP and are not re-verified, as in Drake), else 0 (also without results or for a
/// NULL handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_regularization_used(s: *const cts_rigid_solver) -> i32 {
    read(s, 0, |h| h.results.map_or(0, |_| i32::from(h.solver.regularization_used())))
}

/// Copies the last solve's LCP matrix MM (n×n, n = `cts_rigid_solver_lcp_size`; for the
/// discretized problem after the dt update) into `out`, column-major with leading dimension
/// `ld >= max(1, n)`; rows n..ld-1 are not touched. For inspection and debugging.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_INVALID_ARGUMENT (`ld`),
/// CTS_STATUS_NO_SOLUTION, CTS_STATUS_NON_FINITE_RESULT (an entry is NaN or infinite). Nothing
/// is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_get_lcp_matrix(
    s: *const cts_rigid_solver,
    out: *mut f64,
    ld: usize,
) -> cts_status {
    copy_matrix(s, "cts_rigid_solver_get_lcp_matrix", "the LCP matrix MM", out, ld, |h| {
        Ok(h.results()?.lcp_matrix())
    })
}

/// Copies the last solve's LCP vector qq (n doubles, `len` = `cts_rigid_solver_lcp_size`).
/// Statuses as for `cts_rigid_solver_get_constraint_forces`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_get_lcp_vector(
    s: *const cts_rigid_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_rigid_solver_get_lcp_vector", "the LCP vector qq", out, len, |r| r.lcp_vector())
}

/// Copies the last solve's LCP solution z (n doubles; after CTS_STATUS_RIGID_LCP_UNSOLVABLE the
/// rejected z). Variable order: acceleration level `[fN | fD⁺ | fD⁻ | λ | fL]` (λ: one per
/// non-sliding contact), velocity level `[fN | fD⁺ | fD⁻ | λ | fL]` (λ: one per contact).
/// Statuses as for `cts_rigid_solver_get_constraint_forces`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_get_lcp_z(
    s: *const cts_rigid_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_rigid_solver_get_lcp_z", "the LCP solution z", out, len, |r| r.lcp_z())
}

/// Copies the last solve's `w = MM z + qq` (n doubles). Statuses as for
/// `cts_rigid_solver_get_constraint_forces`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_get_lcp_w(
    s: *const cts_rigid_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_rigid_solver_get_lcp_w", "the LCP slack w", out, len, |r| r.lcp_w())
}

impl Results for RigidInner {
    type Solver = ConstraintSolver;
    fn results(&self) -> Result<&ConstraintSolver, FfiError> {
        self.results.map(|_| &self.solver).ok_or_else(|| {
            FfiError::new(cts_status::NoSolution, "no solution: no solve has completed on this handle")
        })
    }
}

/// Runs a post-processing computation on the data of one level: validates `cf` and `out`, runs
/// `body` into the scratch, copies the scratch to `out` only if nothing failed.
///
/// # Safety
/// `cf` NULL or `cf_len` readable doubles, `out` NULL or `len` writable doubles, the level's
/// borrowed data valid (the contract).
unsafe fn compute<B>(h: &mut RigidInner, args: ComputeArgs, body: B) -> Result<cts_status, FfiError>
where
    B: FnOnce(&mut ConstraintSolver, Data<'_>, &[f64], &mut [f64]) -> Result<(), crate::rigid::RigidError>,
{
    let ComputeArgs { accel, cf, cf_len, out, len } = args;
    let cf = RawVector::new("cf", cf, cf_len)?;
    // SAFETY: forwarded contract.
    unsafe { cf.check_finite("cf") }?;
    let failure = Cell::new(None);
    let (accel_slot, vel_slot) = if accel { (Some(h.accel()?), None) } else { (None, Some(h.vel()?)) };
    let sizes = accel_slot.map(|s| s.sizes).or(vel_slot.map(|s| s.sizes)).expect("one level is selected");
    let nv = sizes.nv;
    // SAFETY: forwarded contract.
    let out = unsafe { output("out", out, len, nv) }?;
    // The computation grows the inertia factorization (nv²) and the M⁻¹Jᵀ blocks.
    let d = Dims { nv, nc: sizes.nc, ns: 0, nns: sizes.nc, nr: sizes.nr, nu: sizes.nu, nb: sizes.nb };
    h.check_allocatable(&d, Some(0))?;
    alloc::try_reserve(&mut h.out, nv, "the output scratch (nv doubles)")?;
    let cbs =
        accel_slot.map(|s| s.ops).or(vel_slot.map(|s| s.ops)).unwrap_or_else(Operators::new).callbacks();
    let cl: [_; 10] = std::array::from_fn(|i| closure(cbs[i], i, &failure));
    // SAFETY: forwarded contract.
    let data = unsafe {
        match (accel_slot, vel_slot) {
            (Some(s), _) => Data::Accel(s.view(&cl)),
            (_, Some(s)) => Data::Vel(s.view(&cl)),
            _ => unreachable!("one level is selected"),
        }
    };
    if h.out.len() < nv {
        h.out.resize(nv, 0.0);
    }
    let RigidInner { solver, out: scratch, .. } = h;
    // SAFETY: forwarded contract.
    body(solver, data, unsafe { cf.slice() }, &mut scratch[..nv])?;
    if let Some(f) = failure.get() {
        return Err(callback_error(f));
    }
    finite_output("out", &scratch[..nv])?;
    out.copy_from_slice(&scratch[..nv]);
    Ok(cts_status::Ok)
}

/// The arguments of a `cts_rigid_solver_compute_*` call: the level (`accel`: the
/// acceleration-level data, else the velocity-level data), the packed `(cf, cf_len)` and the
/// output `(out, len)`.
#[derive(Clone, Copy)]
struct ComputeArgs {
    accel: bool,
    cf: *const f64,
    cf_len: usize,
    out: *mut f64,
    len: usize,
}

/// A `cts_rigid_solver_compute_*` call: [`compute`] on the handle inside [`with_mut`] (a
/// success keeps the last error).
///
/// # Safety
/// As [`compute`]; `solver` NULL or a live handle (the contract).
unsafe fn compute_call<B>(
    solver: *mut cts_rigid_solver,
    function: &'static str,
    args: ComputeArgs,
    body: B,
) -> cts_status
where
    B: FnOnce(&mut ConstraintSolver, Data<'_>, &[f64], &mut [f64]) -> Result<(), crate::rigid::RigidError>,
{
    with_mut(solver, function, Call::Keeps, |h| {
        // SAFETY: forwarded contract.
        unsafe { compute(h, args, body) }
    })
}

/// The data a post-processing computation runs on.
enum Data<'a> {
    Accel(ConstraintAccelProblemData<'a>),
    Vel(ConstraintVelProblemData<'a>),
}

impl<'a> Data<'a> {
    fn accel(&self) -> &ConstraintAccelProblemData<'a> {
        match self {
            Data::Accel(d) => d,
            Data::Vel(_) => unreachable!("acceleration-level computation"),
        }
    }
    fn vel(&self) -> &ConstraintVelProblemData<'a> {
        match self {
            Data::Vel(d) => d,
            Data::Accel(_) => unreachable!("velocity-level computation"),
        }
    }
}

/// Drake's `ComputeGeneralizedForceFromConstraintForces` (acceleration level): the generalized
/// force `(N − μQ)ᵀ fN + Fᵀ fF + Lᵀ fL + Gᵀ fG` (nv doubles, N or N·m) of the packed forces `cf`
/// (`cf_len` must be nc + nr + nu + nb) under the acceleration-level data, into `out` (`len` =
/// nv). Does not change the results of the last solve.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_PROBLEM_DATA (no data or no
/// `solve_inertia`), CTS_STATUS_DIMENSION_MISMATCH (`cf_len`, `len`), CTS_STATUS_INVALID_ARGUMENT
/// (a non-finite `cf`, data invalid now), CTS_STATUS_ALLOCATION_FAILED (the workspace, about
/// nv² + nb² + nv·(nc + nr + nu + nb) doubles, was refused), CTS_STATUS_CALLBACK_FAILED,
/// CTS_STATUS_NON_FINITE_RESULT (an entry of the result overflowed). Nothing is written on
/// error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_compute_generalized_force_from_constraint_forces(
    solver: *mut cts_rigid_solver,
    cf: *const f64,
    cf_len: usize,
    out: *mut f64,
    len: usize,
) -> cts_status {
    // SAFETY: forwarded contract.
    unsafe {
        compute_call(
            solver,
            "cts_rigid_solver_compute_generalized_force_from_constraint_forces",
            ComputeArgs { accel: true, cf, cf_len, out, len },
            |s, d, cf, o| s.compute_generalized_force_from_constraint_forces(d.accel(), cf, o),
        )
    }
}

/// Drake's `ComputeGeneralizedAccelerationFromConstraintForces` (acceleration level):
/// `M⁻¹ ·` the generalized force of `cf` (nv doubles, m/s² or rad/s²). Sizes and statuses as for
/// `cts_rigid_solver_compute_generalized_force_from_constraint_forces`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_compute_generalized_acceleration_from_constraint_forces(
    solver: *mut cts_rigid_solver,
    cf: *const f64,
    cf_len: usize,
    out: *mut f64,
    len: usize,
) -> cts_status {
    // SAFETY: forwarded contract.
    unsafe {
        compute_call(
            solver,
            "cts_rigid_solver_compute_generalized_acceleration_from_constraint_forces",
            ComputeArgs { accel: true, cf, cf_len, out, len },
            |s, d, cf, o| s.compute_generalized_acceleration_from_constraint_forces(d.accel(), cf, o),
        )
    }
}

/// Drake's `ComputeGeneralizedAcceleration` (acceleration level): `v̇ = M⁻¹·(generalized force
/// of cf) + M⁻¹·tau` (nv doubles, m/s² or rad/s²). Sizes and statuses as for
/// `cts_rigid_solver_compute_generalized_force_from_constraint_forces`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_compute_generalized_acceleration(
    solver: *mut cts_rigid_solver,
    cf: *const f64,
    cf_len: usize,
    out: *mut f64,
    len: usize,
) -> cts_status {
    // SAFETY: forwarded contract.
    unsafe {
        compute_call(
            solver,
            "cts_rigid_solver_compute_generalized_acceleration",
            ComputeArgs { accel: true, cf, cf_len, out, len },
            |s, d, cf, o| s.compute_generalized_acceleration(d.accel(), cf, o),
        )
    }
}

/// Drake's velocity-level `ComputeGeneralizedForceFromConstraintForces`: the generalized impulse
/// `Nᵀ fN + Fᵀ fF + Lᵀ fL + Gᵀ fG` (nv doubles, N·s; or N for the discretized problem's forces)
/// of `cf` under the velocity-level data; `cf_len` must be nc + nr + nu + nb, or 0 (then zeros,
/// as in Drake; `cf` may be NULL). Into `out` (`len` = nv). Statuses as for
/// `cts_rigid_solver_compute_generalized_force_from_constraint_forces` (for the velocity-level
/// data).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses(
    solver: *mut cts_rigid_solver,
    cf: *const f64,
    cf_len: usize,
    out: *mut f64,
    len: usize,
) -> cts_status {
    // SAFETY: forwarded contract.
    unsafe {
        compute_call(
            solver,
            "cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses",
            ComputeArgs { accel: false, cf, cf_len, out, len },
            |s, d, cf, o| s.compute_generalized_impulse_from_constraint_impulses(d.vel(), cf, o),
        )
    }
}

/// Drake's `ComputeGeneralizedVelocityChange`: `Δv = M⁻¹ ·` the generalized impulse of `cf`
/// (nv doubles, m/s or rad/s); the post-impact velocity is `M⁻¹ Mv + Δv`. Sizes and statuses as
/// for `cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_compute_generalized_velocity_change(
    solver: *mut cts_rigid_solver,
    cf: *const f64,
    cf_len: usize,
    out: *mut f64,
    len: usize,
) -> cts_status {
    // SAFETY: forwarded contract.
    unsafe {
        compute_call(
            solver,
            "cts_rigid_solver_compute_generalized_velocity_change",
            ComputeArgs { accel: false, cf, cf_len, out, len },
            |s, d, cf, o| s.compute_generalized_velocity_change(d.vel(), cf, o),
        )
    }
}

/// Drake's velocity-level `ComputeGeneralizedAcceleration(data, v, cf, dt)` for the discretized
/// problem's forces `cf`: `v_next = M⁻¹(Mv + dt·(generalized force of cf))` and
/// `out = (v_next − v)/dt` (nv doubles, m/s²). `v` (nv doubles) is the velocity at the start of
/// the step; `dt` (s) finite and > 0. Sizes and statuses as for
/// `cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses`, plus
/// CTS_STATUS_INVALID_ARGUMENT for `dt`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_compute_generalized_acceleration_discretized(
    solver: *mut cts_rigid_solver,
    v: *const f64,
    cf: *const f64,
    cf_len: usize,
    dt: f64,
    out: *mut f64,
    len: usize,
) -> cts_status {
    with_mut(solver, "cts_rigid_solver_compute_generalized_acceleration_discretized", Call::Keeps, |h| {
        let nv = h.vel()?.sizes.nv;
        let v = RawVector::new("v", v, nv)?;
        // SAFETY: forwarded contract.
        unsafe {
            let v = v.slice();
            finite_input("v", v)?;
            let args = ComputeArgs { accel: false, cf, cf_len, out, len };
            compute(h, args, |s, d, cf, o| {
                s.compute_generalized_acceleration_discretized(d.vel(), v, cf, dt, o)
            })
        }
    })
}

/// Detail of the last failing call on this handle (a usage error, an outcome or a failed
/// callback, e.g. "cts_rigid_solver_solve_impact_problem: the N_mult callback returned 3
/// (expected 0); the call was abandoned"), errno-style: a successful call leaves it unchanged (a
/// getter after a failed solve keeps the solve's detail); a failing call replaces it; the two
/// set-problem-data calls and the three solve calls clear it when they start, so it is "" after
/// they succeed. "" before any failure. Valid until the next call on the handle; never NULL (also
/// "" for a NULL handle); not to be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_rigid_solver_last_error(s: *const cts_rigid_solver) -> *const c_char {
    handle::last_error(s)
}

impl From<RigidOutcome> for cts_status {
    fn from(o: RigidOutcome) -> Self {
        match o {
            RigidOutcome::Solved => cts_status::Ok,
            RigidOutcome::LcpUnsolvable => cts_status::RigidLcpUnsolvable,
            RigidOutcome::RegularizedLcpFailed => cts_status::RigidRegularizedLcpFailed,
        }
    }
}

/// The one mapping from rigid constraint-solver usage errors to status codes and messages.
impl From<RigidError> for FfiError {
    fn from(e: RigidError) -> Self {
        let status = match e {
            RigidError::DimensionMismatch { what, expected, got } => {
                return message::length(what, got, expected);
            }
            RigidError::InvalidEntry { what, index: at, matrix, value, expected } => {
                return message::invalid_entry(what, Index::at(at, matrix), value, expected);
            }
            RigidError::OperatorShape { .. } => cts_status::DimensionMismatch,
            RigidError::MissingInertiaSolve | RigidError::NoDiscretizedLcp => cts_status::NoProblemData,
            RigidError::InvalidArgument(_)
            | RigidError::NotTwoDimensional
            | RigidError::NormalNotUnit
            | RigidError::TangentNotUnit
            | RigidError::NotOrthogonal => cts_status::InvalidArgument,
        };
        Self::new(status, e.to_string())
    }
}
