//! The TAMSI C API (`docs/c_api.md` §3): Drake's `TamsiSolver` behind an opaque handle.

#![allow(non_snake_case)] // argument names follow Drake and docs/c_api.md §3: M, Jn, Jt, ld_M, ...

use std::ffi::c_char;

use nalgebra::{DMatrixViewMut, Dyn, U1};

use super::alloc::{self, DOUBLE};
use super::batch::{self, BatchMark, Batched};
use super::block_sparse::{RawBlockSparse, cts_block_sparse_data};
use super::guard::{ErrorSlot, guard, prefix};
use super::handle::{
    self, Call, Results, copy_history, copy_result, get_struct, impl_handle, read, saturating_i32,
    set_parameters, solved, with_mut,
};
use super::message::{self, Index, g};
use super::status::{FfiError, cts_status};
use super::view::{RawMatrix, RawVector, finite_output, finite_outputs, output_matrix};
use crate::block_sparse::{BlockSparseLayout, BlockSparseSystem};
use crate::tamsi::{
    CouplingScheme, TamsiError, TamsiOutcome, TamsiParameters, TamsiProblem, TamsiSolver, calc_alpha,
};

// Sensitivities of a converged solve (`cts_tamsi_solver_compute_sensitivities`, the getters, the
// vector–Jacobian product): `tamsi/sensitivity.rs`.
pub mod sensitivity;

/// Opaque TAMSI solver handle (Drake's `TamsiSolver`). Create with `cts_tamsi_solver_new`,
/// release with `cts_tamsi_solver_free`. Not thread-safe: one handle must not be used by two
/// threads at once; distinct handles are independent.
pub struct cts_tamsi_solver {
    error: ErrorSlot,
    inner: Inner,
}

impl_handle!(cts_tamsi_solver => Inner);

#[doc(hidden)]
pub struct Inner {
    solver: TamsiSolver,
    /// The borrowed problem data of the last successful set call.
    data: Option<ProblemData>,
    /// Whether the outputs hold the results of a solve of the current data.
    solved: bool,
    /// Scratch of `cts_tamsi_solver_calc_jacobian` (nv² doubles once used).
    jacobian: Vec<f64>,
    /// The structure of the current block-sparse data (valid while `data` holds block data).
    /// A new structure is validated into the layout's spare tables and swapped in; when a later
    /// check of the set call fails, the previous structure is swapped back, so a failed set keeps
    /// the previous data usable. Its storage only grows.
    layout: BlockSparseLayout,
    /// Largest solve workspace (bytes) probed to be allocatable by a set call.
    probed: usize,
    /// Occurrences in the batch being set up (`ffi/batch.rs`); zero outside a batch call.
    batch: BatchMark,
}

impl Inner {
    fn new(solver: TamsiSolver) -> Self {
        Self {
            solver,
            data: None,
            solved: false,
            jacobian: Vec::new(),
            layout: BlockSparseLayout::new(),
            probed: 0,
            batch: BatchMark::default(),
        }
    }

    /// Sizes before data (`docs/c_api.md` §1.11, issue 33): refuses `nc` contacts whose solve
    /// could never be addressed (INVALID_ARGUMENT) or whose workspace the system refuses now
    /// (ALLOCATION_FAILED), from the sizes alone, before a set call reads any array. Without it
    /// a set call with nc = 2³³ scanned terabytes of data for minutes and only then accepted it.
    fn check_sizes(&mut self, nc: usize, blocks: bool) -> Result<(), FfiError> {
        let nv = self.solver.num_velocities();
        let need = TamsiSolver::solve_workspace(nv, nc, blocks)?;
        let what = || format!("nv = {nv}, nc = {nc}: the solve's workspace of {need} doubles");
        let limit = "it needs about 21·nc doubles, plus 9·nc·nv for dense data";
        alloc::probe_doubles(Some(need), &mut self.probed, what, limit)
    }
}

impl Batched for cts_tamsi_solver {
    fn mark(inner: &mut Inner) -> &mut BatchMark {
        &mut inner.batch
    }
}

/// TAMSI parameters (Drake's `TamsiSolverParameters`). Fill with
/// `cts_tamsi_parameters_default`, change fields, pass to `cts_tamsi_solver_set_parameters`,
/// which validates them.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cts_tamsi_parameters {
    /// Stiction tolerance vs, m/s; default 1e-4; must be finite and > 0.
    pub stiction_tolerance: f64,
    /// Maximum number of Newton updates; default 100; in [0, 100000] (the residual history is
    /// reserved for all of them, so a solve never allocates for it).
    pub max_iterations: i32,
    /// Relative tolerance rtol (convergence at rtol·vs m/s); default 1e-2; in (0, 1). Also
    /// `relative_tolerance·stiction_tolerance >= 2^-511 ≈ 1.49e-154` m/s: the soft norm of the
    /// slip speed, `sqrt(|vt|² + (rtol·vs)²)`, needs `(rtol·vs)²` to be a normal double, or a
    /// contact at exactly zero slip gets the direction 0/0 = NaN.
    pub relative_tolerance: f64,
    /// Largest change of direction of a contact's slip per iteration, rad; default pi/3;
    /// in (0, pi/2).
    pub theta_max: f64,
    /// Threads of a solve on block-sparse data (docs/performance.md §8): 0 or 1 (default) solve
    /// on the calling thread; n >= 2 splits the per-contact, per-tree and per-island work over the
    /// caller and n - 1 worker threads the handle owns (started by the first such solve, kept
    /// until the count changes or the handle is freed; a handle is still used by one thread at a
    /// time). The limiter's alpha and the convergence test stay global, so iterations and results
    /// are bit-identical to the sequential solve. Dense data ignores it. In [0, 256].
    pub num_threads: i32,
}

/// Statistics of the last solve (Drake's `TamsiSolverIterationStats`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cts_tamsi_iteration_stats {
    /// Newton updates performed in the last solve.
    pub num_iterations: i32,
    /// Last entry of the ‖Δvt‖ history, m/s; NaN when the history is empty.
    pub vt_residual: f64,
}

impl From<TamsiParameters> for cts_tamsi_parameters {
    fn from(p: TamsiParameters) -> Self {
        Self {
            stiction_tolerance: p.stiction_tolerance,
            max_iterations: saturating_i32(p.max_iterations),
            relative_tolerance: p.relative_tolerance,
            theta_max: p.theta_max,
            num_threads: saturating_i32(p.num_threads),
        }
    }
}

impl TryFrom<&cts_tamsi_parameters> for TamsiParameters {
    type Error = FfiError;
    fn try_from(p: &cts_tamsi_parameters) -> Result<Self, FfiError> {
        let max_iterations = usize::try_from(p.max_iterations)
            .map_err(|_| message::domain("max_iterations", p.max_iterations, "[0, 100000]"))?;
        let num_threads = usize::try_from(p.num_threads)
            .map_err(|_| message::domain("num_threads", p.num_threads, "[0, 256]"))?;
        let params = TamsiParameters {
            stiction_tolerance: p.stiction_tolerance,
            max_iterations,
            relative_tolerance: p.relative_tolerance,
            theta_max: p.theta_max,
            num_threads,
        };
        params.validate()?;
        Ok(params)
    }
}

/// Borrowed normal-force data of either scheme.
#[derive(Clone, Copy)]
enum NormalData {
    OneWay { fn_: RawVector },
    TwoWay { fn0: RawVector, stiffness: RawVector, dissipation: RawVector },
}

impl NormalData {
    /// One-way data: `fn` (nc doubles).
    fn one_way(r#fn: *const f64, nc: usize) -> Result<Self, FfiError> {
        Ok(Self::OneWay { fn_: RawVector::new("fn", r#fn, nc)? })
    }

    /// Two-way data: `fn0`, `stiffness` and `dissipation` (nc doubles each, checked in that
    /// order).
    fn two_way(
        fn0: *const f64,
        stiffness: *const f64,
        dissipation: *const f64,
        nc: usize,
    ) -> Result<Self, FfiError> {
        Ok(Self::TwoWay {
            fn0: RawVector::new("fn0", fn0, nc)?,
            stiffness: RawVector::new("stiffness", stiffness, nc)?,
            dissipation: RawVector::new("dissipation", dissipation, nc)?,
        })
    }

    fn scheme(&self) -> CouplingScheme {
        match self {
            Self::OneWay { .. } => CouplingScheme::OneWay,
            Self::TwoWay { .. } => CouplingScheme::TwoWay,
        }
    }
}

/// Borrowed M and contact Jacobians in either form, validated when set.
#[derive(Clone, Copy)]
enum Matrices {
    /// Dense M (nv×nv), Jn (nc×nv), Jt (2nc×nv).
    Dense { m: RawMatrix, jn: RawMatrix, jt: RawMatrix },
    /// Block-sparse by trees; the structure is the handle's `layout`.
    Blocks(RawBlockSparse),
}

/// Borrowed problem data, validated when set.
#[derive(Clone, Copy)]
struct ProblemData {
    nc: usize,
    matrices: Matrices,
    p_star: RawVector,
    mu: RawVector,
    normal: NormalData,
}

impl ProblemData {
    /// Validates the raw parts: `matrices` are `(M, ld_M), (Jn, ld_Jn), (Jt, ld_Jt)`.
    fn new(
        nv: usize,
        nc: usize,
        matrices: [(*const f64, usize); 3],
        p_star: *const f64,
        mu: *const f64,
        normal: NormalData,
    ) -> Result<Self, FfiError> {
        let two_nc = nc.checked_mul(2).filter(|&n| alloc::addressable(n, DOUBLE)).ok_or_else(|| {
            alloc::too_large(&format!("nc = {nc} (Jt has 2nc rows)"), "nc must be below 2^59")
        })?;
        let [(M, ld_M), (Jn, ld_Jn), (Jt, ld_Jt)] = matrices;
        let m = RawMatrix::new("M", M, ld_M, nv, nv)?;
        let jn = RawMatrix::new("Jn", Jn, ld_Jn, nc, nv)?;
        let jt = RawMatrix::new("Jt", Jt, ld_Jt, two_nc, nv)?;
        Ok(Self {
            nc,
            matrices: Matrices::Dense { m, jn, jt },
            p_star: RawVector::new("p_star", p_star, nv)?,
            mu: RawVector::new("mu", mu, nc)?,
            normal,
        })
    }

    /// NULL-checks block-sparse data (its structure and values are validated by
    /// [`Inner::set_block_data`]).
    fn blocks(
        nv: usize,
        blocks: RawBlockSparse,
        p_star: *const f64,
        mu: *const f64,
        normal: NormalData,
    ) -> Result<Self, FfiError> {
        let nc = blocks.num_contacts();
        Ok(Self {
            nc,
            matrices: Matrices::Blocks(blocks),
            p_star: RawVector::new("p_star", p_star, nv)?,
            mu: RawVector::new("mu", mu, nc)?,
            normal,
        })
    }

    /// The data as a problem of the Rust API; block-sparse data on `layout`, its structure. The
    /// values of block data are not scanned again (they were checked when set).
    ///
    /// # Safety
    /// The caller's arrays must still be allocated and unchanged (the borrowing rule).
    unsafe fn problem<'a>(&self, layout: &'a BlockSparseLayout) -> Result<TamsiProblem<'a>, FfiError> {
        // SAFETY: forwarded contract; the raw parts were validated when set.
        let system = match self.matrices {
            Matrices::Dense { .. } => None,
            Matrices::Blocks(b) => Some(unsafe { b.checked_system(layout) }?),
        };
        // SAFETY: as above.
        unsafe { self.problem_with(system) }
    }

    /// The data as a problem, with `system` the block-sparse M and J when the data has that form.
    ///
    /// # Safety
    /// As [`problem`](Self::problem).
    unsafe fn problem_with<'a>(
        &self,
        system: Option<BlockSparseSystem<'a>>,
    ) -> Result<TamsiProblem<'a>, FfiError> {
        // SAFETY: forwarded contract; the raw parts were validated when set.
        unsafe {
            let (p_star, mu) = (self.p_star.view(), self.mu.view());
            Ok(match (self.matrices, system, self.normal) {
                (Matrices::Dense { m, jn, jt }, _, NormalData::OneWay { fn_ }) => {
                    TamsiProblem::one_way(m.view(), jn.view(), jt.view(), p_star, fn_.view(), mu)?
                }
                (Matrices::Dense { m, jn, jt }, _, NormalData::TwoWay { fn0, stiffness, dissipation }) => {
                    TamsiProblem::two_way(
                        m.view(),
                        jn.view(),
                        jt.view(),
                        p_star,
                        fn0.view(),
                        stiffness.view(),
                        dissipation.view(),
                        mu,
                    )?
                }
                (Matrices::Blocks(_), Some(system), NormalData::OneWay { fn_ }) => {
                    TamsiProblem::one_way_blocks(system, p_star, fn_.view(), mu)?
                }
                (Matrices::Blocks(_), Some(system), NormalData::TwoWay { fn0, stiffness, dissipation }) => {
                    TamsiProblem::two_way_blocks(
                        system,
                        p_star,
                        fn0.view(),
                        stiffness.view(),
                        dissipation.view(),
                        mu,
                    )?
                }
                (Matrices::Blocks(_), None, _) => unreachable!("block data is viewed with its system"),
            })
        }
    }
}

impl Inner {
    fn data(&self) -> Result<&ProblemData, FfiError> {
        self.data
            .as_ref()
            .ok_or_else(|| FfiError::new(cts_status::NoProblemData, "no problem data has been set"))
    }

    /// The dense setters: the normal-force data (already read, so its errors come first), then
    /// M, Jn, Jt (`matrices`), `p_star` and `mu`, the sizes, then [`set_data`](Self::set_data).
    fn set_dense(
        &mut self,
        nc: usize,
        matrices: [(*const f64, usize); 3],
        p_star: *const f64,
        mu: *const f64,
        normal: Result<NormalData, FfiError>,
    ) -> Result<cts_status, FfiError> {
        let data = ProblemData::new(self.solver.num_velocities(), nc, matrices, p_star, mu, normal?)?;
        self.check_sizes(nc, false)?;
        self.set_data(data)
    }

    /// The block setters: the structure `*data`, the normal-force data of its nc (`normal`),
    /// `p_star` and `mu`, the sizes, then [`set_block_data`](Self::set_block_data).
    ///
    /// # Safety
    /// `data` NULL or a readable struct (the contract).
    unsafe fn set_blocks(
        &mut self,
        data: *const cts_block_sparse_data,
        p_star: *const f64,
        mu: *const f64,
        normal: impl FnOnce(usize) -> Result<NormalData, FfiError>,
    ) -> Result<cts_status, FfiError> {
        // SAFETY: forwarded contract.
        let blocks = unsafe { RawBlockSparse::new(data) }?;
        let nc = blocks.num_contacts();
        let data = ProblemData::blocks(self.solver.num_velocities(), blocks, p_star, mu, normal(nc)?)?;
        self.check_sizes(nc, true)?;
        self.set_block_data(data)
    }

    /// Checks (sizes, then every value: finite; mu, fn, fn0, stiffness, dissipation >= 0) and
    /// binds new data, then keeps it (the previous data and results are dropped only on success).
    fn set_data(&mut self, data: ProblemData) -> Result<cts_status, FfiError> {
        // SAFETY: the set call's arrays are valid during the call (the borrowing rule).
        let problem = unsafe { data.problem(&self.layout) }?;
        check_and_bind_problem(&mut self.solver, &problem)?;
        self.data = Some(data);
        self.solved = false;
        Ok(cts_status::Ok)
    }

    /// Checks block-sparse data — structure, sizes, values (finite M, J, p*; mu and the
    /// normal-force data >= 0) — and binds it, then keeps it with its structure. On any error the
    /// previous data, structure and results stay as they were.
    fn set_block_data(&mut self, data: ProblemData) -> Result<cts_status, FfiError> {
        let Matrices::Blocks(blocks) = data.matrices else { unreachable!("set_block_data takes block data") };
        // SAFETY: the set call's arrays are valid during the call (the borrowing rule). A
        // structure error leaves the layout as it was.
        unsafe { blocks.set_layout(&mut self.layout) }?;
        let checked = self.check_and_bind(&data, blocks);
        if checked.is_err() {
            self.layout.restore_previous();
        }
        checked?;
        self.data = Some(data);
        self.solved = false;
        Ok(cts_status::Ok)
    }

    /// The checks of [`set_block_data`](Self::set_block_data) after the structure: the trees'
    /// dofs against nv, the lengths and values of M and J, then [`check_and_bind_problem`].
    fn check_and_bind(&mut self, data: &ProblemData, blocks: RawBlockSparse) -> Result<(), FfiError> {
        let (nv, trees_nv) = (self.solver.num_velocities(), self.layout.num_velocities());
        if trees_nv != nv {
            return Err(FfiError::new(
                cts_status::DimensionMismatch,
                format!(
                    "data->tree_dofs: the {} trees have {trees_nv} dofs in all, expected the solver's nv = {nv}",
                    self.layout.num_trees()
                ),
            ));
        }
        // The scheme before the values of M and J, as for dense data.
        check_scheme(&self.solver, data.normal.scheme())?;
        // SAFETY: the set call's arrays are valid during the call (the borrowing rule).
        let problem = unsafe { data.problem_with(Some(blocks.system(&self.layout)?)) }?;
        check_and_bind_problem(&mut self.solver, &problem)
    }
}

impl Results for Inner {
    type Solver = TamsiSolver;
    fn results(&self) -> Result<&TamsiSolver, FfiError> {
        solved(self.solved.then_some(&self.solver))
    }
}

/// The last checks of a set call, dense or block-sparse: the coupling scheme first (a wrong call
/// reports WRONG_COUPLING_SCHEME whatever its values), then the values, then the binding. A
/// rejected call leaves `solver` as it was.
fn check_and_bind_problem(solver: &mut TamsiSolver, problem: &TamsiProblem<'_>) -> Result<(), FfiError> {
    check_scheme(solver, problem.coupling_scheme())?;
    problem.validate()?;
    solver.bind_problem(problem)?;
    Ok(())
}

/// WRONG_COUPLING_SCHEME when `solver` is bound to the other scheme than `scheme`.
fn check_scheme(solver: &TamsiSolver, scheme: CouplingScheme) -> Result<(), FfiError> {
    match solver.coupling_scheme() {
        Some(bound) if bound != scheme => {
            Err(TamsiError::WrongCouplingScheme { solver: bound, data: scheme }.into())
        }
        _ => Ok(()),
    }
}

/// Fills `*out` with Drake's defaults: stiction_tolerance 1e-4 m/s, max_iterations 100,
/// relative_tolerance 1e-2, theta_max pi/3 rad. NULL-safe (does nothing).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_parameters_default(out: *mut cts_tamsi_parameters) {
    handle::write_default(out, || TamsiParameters::default().into())
}

/// Creates a solver for `nv` generalized velocities (0 is allowed) with default parameters and
/// writes the handle to `*out` (only on success).
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER if `out` is NULL; CTS_STATUS_INVALID_ARGUMENT
/// if the workspace of about 4·nv² doubles cannot exist (nv above 536870911 on a 64-bit
/// system); CTS_STATUS_ALLOCATION_FAILED if the system refuses it. Failures leave their detail
/// in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_new(nv: usize, out: *mut *mut cts_tamsi_solver) -> cts_status {
    handle::new(out, "cts_tamsi_solver_new", || {
        check_allocatable(nv).map(|()| Inner::new(TamsiSolver::new(nv)))
    })
}

/// The workspace holds a few nv×nv matrices (the two factorizations' storage, the padded copy of
/// M, scratch): probe 4·nv² doubles before building it, so an impossible or refused size is a
/// status, not an abort.
fn check_allocatable(nv: usize) -> Result<(), FfiError> {
    // The largest nv with 4·nv²·8 <= isize::MAX.
    const MAX_NV: usize = 536_870_911;
    let elements = nv.checked_mul(nv).and_then(|n| n.checked_mul(4));
    let what = || format!("nv = {nv}: the workspace of 4·nv² doubles");
    alloc::probe_doubles(elements, &mut 0, what, &format!("nv must be at most {MAX_NV}"))
}

/// Releases a solver. NULL is a no-op; freeing a handle twice is the caller's bug. Ends the
/// borrow of the problem data.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_free(solver: *mut cts_tamsi_solver) {
    handle::free(solver)
}

/// Deep copy of a solver's parameters and workspace into a new handle `*out` (only on
/// success), for use on another thread. The copy has no problem data and no results: set data
/// before solving.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER (`solver` or `out` NULL) or
/// CTS_STATUS_ALLOCATION_FAILED (the copy's workspace was refused); failures leave their detail
/// in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_clone(
    solver: *const cts_tamsi_solver,
    out: *mut *mut cts_tamsi_solver,
) -> cts_status {
    // The copy allocates as much as the original: its nv² matrices at least.
    handle::clone(solver, out, "cts_tamsi_solver_clone", |h| {
        check_allocatable(h.solver.num_velocities()).map(|()| Inner::new(h.solver.clone()))
    })
}

/// Changes the number of generalized velocities to `nv` (> 0), as Drake's `ResizeIfNeeded`.
/// Drops the problem data (ending its borrow), the results and the coupling-scheme binding.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_INVALID_ARGUMENT (nv = 0, or a
/// workspace that cannot exist) or CTS_STATUS_ALLOCATION_FAILED (refused by the system; the
/// solver is unchanged).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_resize(solver: *mut cts_tamsi_solver, nv: usize) -> cts_status {
    with_mut(solver, "cts_tamsi_solver_resize", Call::Starts, |h| {
        check_allocatable(nv)?;
        h.solver.resize(nv)?;
        h.data = None;
        h.solved = false;
        Ok(cts_status::Ok)
    })
}

/// Validates and sets the parameters (copied). Drake does not validate; here each field must lie
/// in the domain documented on `cts_tamsi_parameters`. Keeps the problem data and results.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, or CTS_STATUS_INVALID_ARGUMENT (nothing
/// changed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_set_parameters(
    solver: *mut cts_tamsi_solver,
    p: *const cts_tamsi_parameters,
) -> cts_status {
    set_parameters(solver, "cts_tamsi_solver_set_parameters", p, |h, p, _| h.solver.set_parameters(p))
}

/// Copies the current parameters into `*out`.
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_parameters(
    solver: *const cts_tamsi_solver,
    out: *mut cts_tamsi_parameters,
) -> cts_status {
    get_struct(solver, "cts_tamsi_solver_get_parameters", out, |h| Ok((*h.solver.parameters()).into()))
}

/// Sets one-way coupled problem data (Drake's `SetOneWayCoupledProblemData`, Eq. 3):
/// `M v = p* + dt·Jnᵀ fn + dt·Jtᵀ ft(v)` with the normal forces `fn` held fixed.
///
/// With nv the solver's size and `nc` contacts: `M` nv×nv (kg, symmetric: only its lower
/// triangle enters the Newton matrix), `Jn` nc×nv (separation velocity, positive apart), `Jt`
/// 2nc×nv (rows 2i, 2i+1: contact i's tangential velocity), each column-major with leading
/// dimension `ld_* >= max(1, rows)`; `p_star` nv (N·s), `fn` nc (N, >= 0), `mu` nc.
/// `nc = 0` is allowed, with NULL contact arrays.
///
/// The arrays are **borrowed**: read now (validation) and by every later solve; they must stay
/// allocated and unchanged until the next set call, `cts_tamsi_solver_resize` or
/// `cts_tamsi_solver_free`. Setting data drops the previous results.
///
/// Sizes before data: nv and nc are checked before any array is read (`docs/c_api.md` §1.11):
/// nc·ceil(nv/4) must stay below 2^32 − 1 (the solve's contact block indices), and the solve's
/// workspace (about 21·nc + 9·nc·nv doubles) is probed.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER (a non-empty array is NULL);
/// CTS_STATUS_INVALID_ARGUMENT (an `ld` below its row count; sizes no solve could address; a NaN
/// or infinite entry anywhere; `mu` or `fn` negative; the message names the argument and its
/// first bad entry); CTS_STATUS_WRONG_COUPLING_SCHEME (the solver was used with two-way data;
/// resize or clone it first); CTS_STATUS_ALLOCATION_FAILED (the solve's workspace was refused).
/// On error the previous data stays set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_set_one_way_coupled_problem_data(
    solver: *mut cts_tamsi_solver,
    nc: usize,
    M: *const f64,
    ld_M: usize,
    Jn: *const f64,
    ld_Jn: usize,
    Jt: *const f64,
    ld_Jt: usize,
    p_star: *const f64,
    r#fn: *const f64,
    mu: *const f64,
) -> cts_status {
    with_mut(solver, "cts_tamsi_solver_set_one_way_coupled_problem_data", Call::Starts, |h| {
        h.set_dense(nc, [(M, ld_M), (Jn, ld_Jn), (Jt, ld_Jt)], p_star, mu, NormalData::one_way(r#fn, nc))
    })
}

/// Sets two-way coupled problem data (Drake's `SetTwoWayCoupledProblemData`, Eq. 10, final
/// form): `M v = p* + dt·Jnᵀ fn(v) + dt·Jtᵀ ft(v)` with
/// `fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊` per contact.
///
/// Sizes and layout as for the one-way call; `fn0` nc (N, the undamped normal force at the
/// previous step, k·penetration for point contact), `stiffness` nc (k, N/m), `dissipation` nc
/// (d, Hunt–Crossley, s/m), `mu` nc. Borrowed under the same rule.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_INVALID_ARGUMENT (an `ld` below
/// its row count; sizes no solve could address, checked before any array is read as for the
/// one-way call; a NaN or infinite entry; `fn0`, `stiffness`, `dissipation` or `mu` negative);
/// CTS_STATUS_WRONG_COUPLING_SCHEME (the solver was used with one-way data);
/// CTS_STATUS_ALLOCATION_FAILED (the solve's workspace was refused). On error the previous data
/// stays set.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_set_two_way_coupled_problem_data(
    solver: *mut cts_tamsi_solver,
    nc: usize,
    M: *const f64,
    ld_M: usize,
    Jn: *const f64,
    ld_Jn: usize,
    Jt: *const f64,
    ld_Jt: usize,
    p_star: *const f64,
    fn0: *const f64,
    stiffness: *const f64,
    dissipation: *const f64,
    mu: *const f64,
) -> cts_status {
    with_mut(solver, "cts_tamsi_solver_set_two_way_coupled_problem_data", Call::Starts, |h| {
        let normal = NormalData::two_way(fn0, stiffness, dissipation, nc);
        h.set_dense(nc, [(M, ld_M), (Jn, ld_Jn), (Jt, ld_Jt)], p_star, mu, normal)
    })
}

/// Sets one-way coupled problem data in **block-sparse form** (`docs/block_sparse.md`):
/// `M v = p* + dt·Jnᵀ fn + dt·Jtᵀ ft(v)` with the normal forces `fn` held fixed, where M and the
/// contact Jacobians are given per tree (`*data`, see `cts_block_sparse_data`): M one dense block
/// per tree, each contact's rows (normal, tangent 1, tangent 2) one 3×n_t block per tree it
/// touches. The trees' dofs must add up to the solver's nv; nc = `data->num_contacts`.
///
/// `p_star` nv (N·s, in the trees' dof order), `fn` nc (N, >= 0), `mu` nc (>= 0). The Newton
/// matrix is assembled, factored and solved per island (connected trees and contacts); the
/// iteration, limiter and convergence test are those of the dense setters, so the results agree
/// with the dense path's to round-off and take the same number of iterations. Deliberate
/// difference: a tree no contact touches is solved exactly (`M_t v_t = p*_t`) once, where the
/// dense path steps it with the global step factor (the two agree once an iteration takes α = 1).
///
/// `*data` is copied; the arrays it points to, `p_star`, `fn` and `mu` are **borrowed** (read now
/// and by every later solve; they must stay allocated and unchanged until the next set call,
/// `cts_tamsi_solver_resize` or `cts_tamsi_solver_free`). Setting data drops the previous
/// results. All getters, `cts_tamsi_solver_solve_with_guess` and `cts_tamsi_solver_calc_jacobian`
/// work on block data as on dense data.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER (`data`, or an array whose length is not 0);
/// CTS_STATUS_DIMENSION_MISMATCH (`data->M_len` or `data->J_len` not what the structure implies,
/// or tree dofs not adding up to nv); CTS_STATUS_INVALID_ARGUMENT (a tree with fewer than 1 dof;
/// a contact tree index outside -1..num_trees-1, a contact listing the same tree twice or with
/// both sides -1; a NaN or infinite value in M, J or p_star; `fn` or `mu` negative or not
/// finite); CTS_STATUS_WRONG_COUPLING_SCHEME (the solver was used with two-way data; checked
/// before the values); CTS_STATUS_ALLOCATION_FAILED (the solve's per-contact workspace, about
/// 21·nc doubles, probed before any array is read, or the structure's tables could not be
/// allocated; the message names the size). The message
/// names the argument, its first bad entry, the value and what was expected. On error the
/// previous data (dense or block, with its structure) stays set and usable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_set_one_way_coupled_block_problem_data(
    solver: *mut cts_tamsi_solver,
    data: *const cts_block_sparse_data,
    p_star: *const f64,
    r#fn: *const f64,
    mu: *const f64,
) -> cts_status {
    with_mut(solver, "cts_tamsi_solver_set_one_way_coupled_block_problem_data", Call::Starts, |h| {
        // SAFETY: NULL or a readable struct (the contract).
        unsafe { h.set_blocks(data, p_star, mu, |nc| NormalData::one_way(r#fn, nc)) }
    })
}

/// Sets two-way coupled problem data in **block-sparse form**: as
/// `cts_tamsi_solver_set_two_way_coupled_problem_data` (`fn(vn) = (1 − d·vn)₊ (fn0 − dt·k·vn)₊`
/// per contact) with M and the contact Jacobians given per tree as for
/// `cts_tamsi_solver_set_one_way_coupled_block_problem_data`.
///
/// `p_star` nv (N·s); `fn0` nc (N, >= 0: the undamped normal force at the previous step,
/// k·penetration for point contact), `stiffness` nc (k, N/m, >= 0), `dissipation` nc (d,
/// Hunt–Crossley, s/m, >= 0), `mu` nc (>= 0), nc = `data->num_contacts`. Borrowed under the same
/// rule; the same deliberate difference for trees without contact.
///
/// Returns CTS_STATUS_OK; CTS_STATUS_NULL_POINTER; CTS_STATUS_DIMENSION_MISMATCH;
/// CTS_STATUS_INVALID_ARGUMENT (as for the one-way call, with `fn0`, `stiffness`,
/// `dissipation`, `mu` required finite and >= 0); CTS_STATUS_WRONG_COUPLING_SCHEME (the solver
/// was used with one-way data; checked before the values); CTS_STATUS_ALLOCATION_FAILED. On
/// error the previous data stays set and usable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_set_two_way_coupled_block_problem_data(
    solver: *mut cts_tamsi_solver,
    data: *const cts_block_sparse_data,
    p_star: *const f64,
    fn0: *const f64,
    stiffness: *const f64,
    dissipation: *const f64,
    mu: *const f64,
) -> cts_status {
    with_mut(solver, "cts_tamsi_solver_set_two_way_coupled_block_problem_data", Call::Starts, |h| {
        let normal = |nc| NormalData::two_way(fn0, stiffness, dissipation, nc);
        // SAFETY: NULL or a readable struct (the contract).
        unsafe { h.set_blocks(data, p_star, mu, normal) }
    })
}

/// Drake's `SolveWithGuess`: solves the current problem from `v_guess` (nv doubles, m/s or
/// rad/s; normally the previous velocities) with time step `dt` (s, finite and > 0).
///
/// Returns CTS_STATUS_OK (converged) or a solver outcome: CTS_STATUS_MAX_ITERATIONS_REACHED,
/// CTS_STATUS_LINEAR_SOLVER_FAILED, CTS_STATUS_ALPHA_SOLVER_FAILED. After any of these, every
/// getter returns values evaluated at the returned v (Drake leaves some stale).
/// CTS_STATUS_NON_FINITE_RESULT: the iteration converged but an output is NaN or infinite
/// (products of huge finite data overflowed; the message names the output); Drake reports
/// success here, this is a deliberate difference. The results are kept, but getters of a
/// non-finite output return the same status and write nothing.
/// Usage errors (nothing solved, previous results kept): CTS_STATUS_NULL_POINTER,
/// CTS_STATUS_NO_PROBLEM_DATA, CTS_STATUS_DIMENSION_MISMATCH (`nv` differs from the solver's),
/// CTS_STATUS_INVALID_ARGUMENT (`dt`, a non-finite `v_guess`), CTS_STATUS_ALLOCATION_FAILED
/// (the per-contact workspace for a larger nc than before could not be allocated).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_solve_with_guess(
    solver: *mut cts_tamsi_solver,
    dt: f64,
    v_guess: *const f64,
    nv: usize,
) -> cts_status {
    with_mut(solver, "cts_tamsi_solver_solve_with_guess", Call::Starts, |h| {
        let data = *h.data()?;
        let want = h.solver.num_velocities();
        if nv != want {
            return Err(message::length("v_guess", nv, format!("the solver's nv = {want}")));
        }
        let guess = RawVector::new("v_guess", v_guess, nv)?;
        // SAFETY: the borrowing rule keeps the problem data and the guess valid for this call.
        let (problem, guess) = unsafe {
            guess.check_finite("v_guess")?;
            (data.problem(&h.layout)?, guess.view())
        };
        let outcome = h.solver.solve_with_guess(&problem, dt, guess)?;
        h.solved = true;
        let status = cts_status::from(outcome);
        if outcome == TamsiOutcome::Success {
            check_outputs(&h.solver)?;
            Ok(status)
        } else {
            let stats = h.solver.iteration_stats();
            // Formatted into the reused message buffer: no allocation once grown.
            Err(FfiError::formatted(
                status,
                format_args!(
                    "{outcome:?} after {} Newton updates (last ||dvt|| = {} m/s)",
                    stats.num_iterations,
                    g(stats.vt_residual())
                ),
            ))
        }
    })
}

/// Many worlds in one call (`docs/c_api.md` §1.10): world `i` is exactly
/// `cts_tamsi_solver_solve_with_guess(solvers[i], dts[i], v_guesses[i], nvs[i])` (same status in
/// `statuses[i]`, same last error on the handle, bit-identical results, read afterwards with the
/// usual getters), whatever `num_threads`. Each handle must have its problem data set; the
/// worlds are independent and one failing world does not stop the others.
///
/// `solvers`, `dts` (s), `v_guesses` (each NULL only where its `nvs[i]` is 0, as in the single
/// call), `nvs` and `statuses` are arrays of `count` elements; they may be NULL when `count` is
/// 0 (nothing is done). `num_threads` 0 or 1 solves in order on the calling thread; more uses
/// `min(num_threads, count, 256)` threads, spawned for this call and joined before it returns.
///
/// Per world: a NULL `solvers[i]` gives CTS_STATUS_NULL_POINTER; a handle that appears more than
/// once gives CTS_STATUS_INVALID_ARGUMENT to every world that names it (none of them is solved;
/// detail in its last error); any other world gets the single call's status.
///
/// Returns CTS_STATUS_OK when the call was valid (even if worlds failed: read `statuses`),
/// CTS_STATUS_INVALID_ARGUMENT (`count` above 2^32 - 1; nothing is read) or
/// CTS_STATUS_NULL_POINTER (an array NULL while `count > 0`); on those nothing is written and
/// the detail is in `cts_last_error_message()`. Allocates nothing besides the worker threads
/// and the messages of failing worlds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_solve_batch(
    solvers: *const *mut cts_tamsi_solver,
    dts: *const f64,
    v_guesses: *const *const f64,
    nvs: *const usize,
    count: usize,
    num_threads: usize,
    statuses: *mut cts_status,
) -> cts_status {
    let required = [("dts", dts.is_null()), ("v_guesses", v_guesses.is_null()), ("nvs", nvs.is_null())];
    // SAFETY: the arrays hold `count` elements (the C contract, checked non-NULL by `run`).
    unsafe {
        batch::run(
            "cts_tamsi_solver_solve_batch",
            solvers,
            count,
            &required,
            num_threads,
            statuses,
            |s, i| cts_tamsi_solver_solve_with_guess(s, *dts.add(i), *v_guesses.add(i), *nvs.add(i)),
        )
    }
}

/// The final check of a successful solve: every output finite (`CTS_STATUS_NON_FINITE_RESULT`
/// naming the first that is not). O(outputs), once per solve.
fn check_outputs(s: &TamsiSolver) -> Result<(), FfiError> {
    finite_outputs(&[
        ("v", s.generalized_velocities()),
        ("vn", s.normal_velocities()),
        ("vt", s.tangential_velocities()),
        ("fn", s.normal_forces()),
        ("ft", s.friction_forces()),
        ("tau_f", s.generalized_friction_forces()),
        ("tau", s.generalized_contact_forces()),
        ("residuals", &s.iteration_stats().residuals),
    ])
}

/// Copies the generalized velocities v (nv doubles; m/s or rad/s) of the last solve into `out`;
/// `len` must be nv.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_DIMENSION_MISMATCH (`len`),
/// CTS_STATUS_NO_SOLUTION (no solve since the data was set), CTS_STATUS_NON_FINITE_RESULT (an
/// entry is NaN or infinite: the last solve did not end with CTS_STATUS_OK). Nothing is written
/// on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_generalized_velocities(
    s: *const cts_tamsi_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_tamsi_solver_get_generalized_velocities", "v", out, len, |r| {
        r.generalized_velocities()
    })
}

/// Copies the normal velocities vn = Jn v (nc doubles; m/s, positive when separating).
/// Statuses as for `cts_tamsi_solver_get_generalized_velocities`; `len` must be nc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_normal_velocities(
    s: *const cts_tamsi_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_tamsi_solver_get_normal_velocities", "vn", out, len, |r| r.normal_velocities())
}

/// Copies the tangential velocities vt = Jt v (2nc doubles, two per contact; m/s).
/// Statuses as for `cts_tamsi_solver_get_generalized_velocities`; `len` must be 2nc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_tangential_velocities(
    s: *const cts_tamsi_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_tamsi_solver_get_tangential_velocities", "vt", out, len, |r| {
        r.tangential_velocities()
    })
}

/// Copies the normal forces fn (nc doubles; N): the input (one-way) or the compliant law at v
/// (two-way). Statuses as for `cts_tamsi_solver_get_generalized_velocities`; `len` must be nc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_normal_forces(
    s: *const cts_tamsi_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_tamsi_solver_get_normal_forces", "fn", out, len, |r| r.normal_forces())
}

/// Copies the friction forces ft (2nc doubles, two per contact; N).
/// Statuses as for `cts_tamsi_solver_get_generalized_velocities`; `len` must be 2nc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_friction_forces(
    s: *const cts_tamsi_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_tamsi_solver_get_friction_forces", "ft", out, len, |r| r.friction_forces())
}

/// Copies the generalized friction forces τ_f = Jtᵀ ft (nv doubles; N or N·m).
/// Statuses as for `cts_tamsi_solver_get_generalized_velocities`; `len` must be nv.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_generalized_friction_forces(
    s: *const cts_tamsi_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_tamsi_solver_get_generalized_friction_forces", "tau_f", out, len, |r| {
        r.generalized_friction_forces()
    })
}

/// Copies the generalized contact forces τ = Jtᵀ ft + Jnᵀ fn (nv doubles; N or N·m; forces,
/// not impulses). Statuses as for `cts_tamsi_solver_get_generalized_velocities`; `len` must be
/// nv.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_generalized_contact_forces(
    s: *const cts_tamsi_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_result(s, "cts_tamsi_solver_get_generalized_contact_forces", "tau", out, len, |r| {
        r.generalized_contact_forces()
    })
}

/// Copies the statistics of the last solve into `*out`.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_SOLUTION,
/// CTS_STATUS_NON_FINITE_RESULT (the last residual is NaN or infinite).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_iteration_stats(
    s: *const cts_tamsi_solver,
    out: *mut cts_tamsi_iteration_stats,
) -> cts_status {
    get_struct(s, "cts_tamsi_solver_get_iteration_stats", out, |h| {
        let stats = h.results()?.iteration_stats();
        // NaN is the documented value of an empty history; a non-finite entry is not.
        finite_output("residuals", stats.residuals.last().map(std::slice::from_ref).unwrap_or(&[]))?;
        Ok(cts_tamsi_iteration_stats {
            num_iterations: saturating_i32(stats.num_iterations),
            vt_residual: stats.vt_residual(),
        })
    })
}

/// The ‖Δvt‖ history of the last solve (m/s, one entry per Newton update): writes
/// `min(len, count)` entries to `out` and the history's length to `*count`. `out` may be NULL
/// when `len` is 0 (to query the length).
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER (`count`, or `out` with `len > 0`),
/// CTS_STATUS_NO_SOLUTION, CTS_STATUS_NON_FINITE_RESULT (an entry to be written is not finite).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_get_residuals(
    s: *const cts_tamsi_solver,
    out: *mut f64,
    len: usize,
    count: *mut usize,
) -> cts_status {
    copy_history(s, "cts_tamsi_solver_get_residuals", "residuals", out, len, count, |r| {
        &r.iteration_stats().residuals
    })
}

/// Number of generalized velocities of the solver (0 for a NULL handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_num_velocities(s: *const cts_tamsi_solver) -> usize {
    read(s, 0, |h| h.solver.num_velocities())
}

/// Number of contacts of the current problem data (0 without data or for a NULL handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_num_contacts(s: *const cts_tamsi_solver) -> usize {
    read(s, 0, |h| h.data.as_ref().map_or(0, |d| d.nc))
}

/// Contacts the solver's per-contact workspace holds (Drake's workspace capacity, which its
/// tests read): 128 from creation, then the largest `nc` solved so far, kept by
/// `cts_tamsi_solver_resize`; a solve with at most this many contacts allocates nothing. It grows
/// at the solve that first needs it (Drake: at the set call). 0 for a NULL handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_contact_capacity(s: *const cts_tamsi_solver) -> usize {
    read(s, 0, |h| h.solver.contact_capacity())
}

/// Detail of the last failing call on this handle (a usage error or a solver outcome, e.g.
/// "cts_tamsi_solver_solve_with_guess: v_guess has length 3, expected the solver's nv = 2"),
/// errno-style: a successful call leaves it unchanged (a getter after a failed solve keeps the
/// solve's detail); a failing call replaces it; a call that starts anew (the two set calls,
/// `cts_tamsi_solver_solve_with_guess`, `cts_tamsi_solver_resize`) clears it first, so it is ""
/// after such a call succeeds. "" before any failure. Valid until the next call on the handle;
/// never NULL (also "" for a NULL handle); not to be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_last_error(s: *const cts_tamsi_solver) -> *const c_char {
    handle::last_error(s)
}

/// Drake's `internal::TalsLimiter::CalcAlpha` for one contact: the step factor α in (0, 1] for
/// tangential velocity `vt` (2 doubles, m/s) and its Newton update `dvt` (2 doubles, m/s), with
/// `cos_theta_max` in (0, 1), `stiction_tolerance` (m/s, finite > 0) and `relative_tolerance` in
/// (0, 1). Writes `*alpha_out` on success only.
///
/// Returns CTS_STATUS_OK with `*alpha_out` in (0, 1]; CTS_STATUS_ALPHA_SOLVER_FAILED when the
/// limiter has no solution (Drake's nullopt), when an entry of `vt` or `dvt` is NaN or infinite,
/// or when their products overflow so that the step factor would leave (0, 1];
/// CTS_STATUS_NULL_POINTER; CTS_STATUS_INVALID_ARGUMENT (a scalar outside its domain, as for
/// `cts_tamsi_parameters`). Failures leave their detail in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_calc_alpha(
    vt: *const f64,
    dvt: *const f64,
    cos_theta_max: f64,
    stiction_tolerance: f64,
    relative_tolerance: f64,
    alpha_out: *mut f64,
) -> cts_status {
    guard(None, || {
        let function = "cts_tamsi_calc_alpha";
        let body = || {
            // SAFETY: NULL or 2 readable doubles each (the contract).
            let vt = unsafe { RawVector::new("vt", vt, 2)?.slice() };
            // SAFETY: as above.
            let dvt = unsafe { RawVector::new("dvt", dvt, 2)?.slice() };
            if alpha_out.is_null() {
                return Err(FfiError::null("alpha_out"));
            }
            if !(cos_theta_max > 0.0 && cos_theta_max < 1.0) {
                return Err(message::domain("cos_theta_max", g(cos_theta_max), "(0, 1)"));
            }
            let params =
                TamsiParameters { stiction_tolerance, relative_tolerance, ..TamsiParameters::default() };
            params.validate()?;
            let failed = |why: String| FfiError::new(cts_status::AlphaSolverFailed, why);
            for (name, v) in [("vt", vt), ("dvt", dvt)] {
                if let Some(i) = v.iter().position(|x| !x.is_finite()) {
                    return Err(failed(format!(
                        "{name}[{i}] = {} is not finite: the limiter has no solution",
                        g(v[i])
                    )));
                }
            }
            let alpha = calc_alpha(
                [vt[0], vt[1]],
                [dvt[0], dvt[1]],
                cos_theta_max,
                stiction_tolerance,
                relative_tolerance,
            )
            .ok_or_else(|| failed("the limiter has no solution (Drake's nullopt)".into()))?;
            // Overflowing products (|vt|² or |dvt|² above 1.8e308) can put α outside (0, 1];
            // the solver treats that as a failed limiter too.
            if !(alpha > 0.0 && alpha <= 1.0) {
                return Err(failed(format!(
                    "the step factor {} is outside (0, 1] (|vt| or |dvt| overflows in the limiter's arithmetic)",
                    g(alpha)
                )));
            }
            // SAFETY: non-NULL and writable (the contract).
            unsafe { *alpha_out = alpha };
            Ok(cts_status::Ok)
        };
        body().map_err(|e| prefix(function, e))
    })
}

/// The Newton Jacobian J = ∂R/∂v of the current problem at velocities `v` (nv doubles) with time
/// step `dt` (s, finite and > 0), written into `J_out` (nv×nv, column-major, leading dimension
/// `ld_J >= max(1, nv)`; rows nv..ld_J untouched). A debug entry point (Drake's tests compare it
/// with automatic differentiation). Does not change the results of the last solve.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_PROBLEM_DATA,
/// CTS_STATUS_DIMENSION_MISMATCH (`nv`), CTS_STATUS_INVALID_ARGUMENT (`dt`, `ld_J`, a non-finite
/// `v`), CTS_STATUS_ALLOCATION_FAILED (the per-contact workspace), CTS_STATUS_NON_FINITE_RESULT
/// (an entry of J overflowed). Nothing is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_tamsi_solver_calc_jacobian(
    solver: *mut cts_tamsi_solver,
    dt: f64,
    v: *const f64,
    nv: usize,
    J_out: *mut f64,
    ld_J: usize,
) -> cts_status {
    with_mut(solver, "cts_tamsi_solver_calc_jacobian", Call::Keeps, |h| {
        let n = h.solver.num_velocities();
        if nv != n {
            return Err(message::length("v", nv, format!("the solver's nv = {n}")));
        }
        let v = RawVector::new("v", v, nv)?;
        let data = *h.data()?;
        // SAFETY: NULL-checked output of the validated size (the contract).
        let out = unsafe { output_matrix("J_out", J_out, ld_J, n, n) }?;
        // SAFETY: the borrowing rule keeps the problem data and `v` valid for this call.
        let (problem, v) = unsafe {
            v.check_finite("v")?;
            (data.problem(&h.layout)?, v.view())
        };
        // Into the handle's scratch first: nothing reaches `J_out` unless every entry is finite.
        let scratch = &mut h.jacobian;
        let elements = n.checked_mul(n).ok_or_else(|| alloc::too_large("J (nv²)", "nv is too large"))?;
        alloc::try_reserve(scratch, elements, "J (nv² doubles)")?;
        scratch.resize(elements, 0.0);
        let j = DMatrixViewMut::from_slice_with_strides_generic(
            &mut scratch[..],
            Dyn(n),
            Dyn(n),
            U1,
            Dyn(n.max(1)),
        );
        h.solver.calc_jacobian(&problem, dt, v, j)?;
        finite_output("J", scratch)?;
        for (c, column) in scratch.chunks_exact(n.max(1)).enumerate().take(n) {
            out[c * ld_J..c * ld_J + n].copy_from_slice(column);
        }
        Ok(cts_status::Ok)
    })
}

impl From<TamsiOutcome> for cts_status {
    fn from(o: TamsiOutcome) -> Self {
        match o {
            TamsiOutcome::Success => cts_status::Ok,
            TamsiOutcome::MaxIterationsReached => cts_status::MaxIterationsReached,
            TamsiOutcome::LinearSolverFailed => cts_status::LinearSolverFailed,
            TamsiOutcome::AlphaSolverFailed => cts_status::AlphaSolverFailed,
        }
    }
}

/// The one mapping from TAMSI usage errors to status codes and messages.
impl From<TamsiError> for FfiError {
    fn from(e: TamsiError) -> Self {
        match e {
            TamsiError::DimensionMismatch { what, rows, cols, got_rows, got_cols } => {
                message::shape(what, (got_rows, got_cols), (rows, cols))
            }
            TamsiError::InvalidParameter { name, value, domain } => message::domain(name, g(value), domain),
            TamsiError::InvalidTimeStep(dt) => message::domain("dt", g(dt), "finite and > 0 (s)"),
            TamsiError::InvalidSize => message::domain("nv", 0, "nv > 0 (resize needs a velocity)"),
            TamsiError::InvalidEntry { what, index: at, matrix, value, expected } => {
                message::invalid_entry(what, Index::at(at, matrix), value, expected)
            }
            TamsiError::AllocationFailed { what, elements, element_size } => {
                alloc::failed(what, elements, element_size)
            }
            TamsiError::TooLarge { what, limit } => Self::new(
                cts_status::InvalidArgument,
                format!(
                    "the problem is too large: {what} exceeds {limit}, the most the solver's 32-bit block indices address"
                ),
            ),
            e @ TamsiError::WrongCouplingScheme { .. } => {
                Self::new(cts_status::WrongCouplingScheme, e.to_string())
            }
            TamsiError::BlockSparse(e) => e.into(),
            e @ (TamsiError::NoSensitivities { .. } | TamsiError::SingularNewtonMatrix) => {
                Self::new(cts_status::NoSensitivities, e.to_string())
            }
            e @ TamsiError::SensitivitiesNotComputed => Self::new(cts_status::NoSolution, e.to_string()),
            e @ (TamsiError::NotASensitivityParameter { .. } | TamsiError::NonFiniteGradient { .. }) => {
                Self::new(cts_status::InvalidArgument, e.to_string())
            }
            TamsiError::SensitivityAllocation { elements }
                if !alloc::addressable(elements, alloc::DOUBLE) =>
            {
                alloc::too_large("the TAMSI sensitivities", "fewer velocities or contacts would fit")
            }
            TamsiError::SensitivityAllocation { elements } => {
                alloc::failed("TAMSI sensitivities", elements, alloc::DOUBLE)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_failure_reports_and_keeps_previous_state() {
        let mut h: *mut cts_tamsi_solver = std::ptr::null_mut();
        // SAFETY: test of the C API with valid arguments.
        unsafe {
            assert_eq!(cts_tamsi_solver_new(1, &mut h), cts_status::Ok);
            let m = [1.0];
            let status = cts_tamsi_solver_set_one_way_coupled_problem_data(
                h,
                1,
                m.as_ptr(),
                1,
                std::ptr::null(),
                1,
                m.as_ptr(),
                2,
                m.as_ptr(),
                m.as_ptr(),
                m.as_ptr(),
            );
            assert_eq!(status, cts_status::NullPointer);
            let msg = std::ffi::CStr::from_ptr(cts_tamsi_solver_last_error(h)).to_str().unwrap();
            assert_eq!(
                msg,
                "cts_tamsi_solver_set_one_way_coupled_problem_data: Jn is NULL, but it must point to 1 doubles \
                 (1x1, ld 1) (NULL is allowed only when that count is 0)"
            );
            assert_eq!(cts_tamsi_solver_num_contacts(h), 0);
            cts_tamsi_solver_free(h);
        }
    }
}
