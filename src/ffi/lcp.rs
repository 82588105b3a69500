//! The LCP C API: Drake's `MobyLcpSolver` (Lemke, regularized Lemke, "fast" principal pivoting,
//! regularized fast) and `UnrevisedLemkeSolver` behind one opaque handle (`docs/rigid.md`
//! §8–§9).
//!
//! Problem: find `z` with `w = M z + q`, `z ≥ 0`, `w ≥ 0`, `zᵀw = 0`; `M` dense column-major
//! `n×n` with a leading dimension, `q` length n, all finite. The problem is read only during the
//! solve call (nothing is borrowed beyond it); results stay in the handle and are copied out by
//! getters.
//!
//! `CTS_STATUS_OK` from a solve means z passed the residual test of `cts_lcp_solver_solve`'s
//! docs, for every algorithm; Drake's own verdict is in `cts_lcp_solve_info` and, with
//! `drake_compatible_verdict = 1`, decides the status.

#![allow(non_snake_case)] // argument names follow Drake: M, ld_M

use std::ffi::c_char;
use std::fmt;

use super::alloc;
use super::guard::{ErrorSlot, guard, prefix};
use super::handle::{self, Call, get_struct, impl_handle, read, set_parameters, with_mut, with_ref};
use super::status::{FfiError, cts_status};
use super::view::{RawMatrix, RawVector, finite_output, output};
use crate::lcp::{
    LcpError, LcpOutcome, LcpProblem, LcpResidual, LemkeVariant, MobyLcpParameters, MobyLcpSolver,
    RegularizationSchedule, UnrevisedLemkeParameters, UnrevisedLemkeSolver, is_solution, moby_zero_tolerance,
    unrevised_zero_tolerance,
};

/// Algorithm of `cts_lcp_solver_solve`: Drake's `MobyLcpSolver::SolveLcpLemke` (covering vector
/// indicator(q < 0), Harris ratio test, at most min(1000, 50n) pivots with Drake's rule). Drake's
/// verdict is that the artificial variable left the basis; OK also requires the residual test.
pub const CTS_LCP_ALGORITHM_LEMKE: i32 = 0;
/// Algorithm: Drake's `SolveLcpLemkeRegularized`: plain Lemke, then Lemke on `M + 10^e I` for
/// `e = lemke_min_exp, lemke_min_exp + lemke_step_exp, …` while `e < lemke_max_exp`, each result
/// checked by Drake's test (`min z`, `min w`, `min z∘w` ≥ −tol, `max z∘w` < tol, with the shifted
/// M); the accepted z must then pass the residual test with the given M (a solution of the
/// shifted problem only is CTS_STATUS_LCP_RESIDUAL_TEST_FAILED). Before returning that status,
/// plain Lemke and the shifts below the accepted one are tried again in Drake's arithmetic (a
/// fresh LU at every pivot; unless `refactor_interval` is already 1), and an answer that passes
/// the residual test is returned (`docs/rigid.md` §8.3). `w` is reported with the
/// unregularized M; the accepted exponent is in `cts_lcp_solve_info`.
pub const CTS_LCP_ALGORITHM_LEMKE_REGULARIZED: i32 = 1;
/// Algorithm: Drake's `SolveLcpFast`, Drumwright's principal pivoting method for `M = P A Pᵀ`
/// with A positive definite (at most 2n iterations). The only algorithm with a warm start (`z0`).
/// Its singular sub-solves can end on ±inf/NaN, which Drake calls success: here that is
/// CTS_STATUS_LCP_NON_FINITE_SOLUTION.
pub const CTS_LCP_ALGORITHM_FAST: i32 = 2;
/// Algorithm: Drake's `SolveLcpFastRegularized`: as `CTS_LCP_ALGORITHM_LEMKE_REGULARIZED` with the
/// fast solver and the `fast_*_exp` schedule; each attempt is warm-started from the previous one.
pub const CTS_LCP_ALGORITHM_FAST_REGULARIZED: i32 = 3;
/// Algorithm: Drake's `UnrevisedLemkeSolver::SolveLcpLemke`: Lemke on index sets with the
/// all-ones covering vector, cycling-avoiding tie-breaking, at most 50n pivots, result verified
/// (`IsSolution`). Warm start: a later solve of the same size first tries the final index sets
/// of the previous unrevised solve on this handle (1 pivot when they solve it).
pub const CTS_LCP_ALGORITHM_UNREVISED_LEMKE: i32 = 4;

/// `cts_lcp_parameters.lemke_variant`: Drake's pivoting rules (Drake's pivot path).
pub const CTS_LCP_LEMKE_VARIANT_DRAKE: i32 = 0;
/// `cts_lcp_parameters.lemke_variant`: lexicographic (anti-cycling) Lemke with an all-ones
/// covering vector and at most max(10000, 50n) pivots (it cannot cycle; the cap only bounds the
/// time: Murty's exponential problems need 2^n − 1 pivots, 1023 for n = 10): solves problems on
/// which Drake's rule cycles.
pub const CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC: i32 = 1;

/// Parameters of the LCP solvers. Fill with `cts_lcp_parameters_default` (Drake's defaults),
/// change fields, pass to `cts_lcp_solver_set_parameters`, which validates them. LCPs are
/// unitless: tolerances are in the units of `q`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cts_lcp_parameters {
    /// Lemke (Moby) pivot tolerance: a ratio-test candidate needs a pivot-column entry above it.
    /// `<= 0` (default −1): automatic, `n · max(1, max|Mᵢⱼ|) · eps`. Must be finite.
    pub pivot_tolerance: f64,
    /// Zero tolerance of every algorithm. Default −1 (automatic): Moby algorithms
    /// `n · max|Mᵢⱼ| · 10 eps` (`<= 0` means automatic, except for `CTS_LCP_ALGORITHM_FAST`, where
    /// only `< 0` does and 0 is a valid tolerance); unrevised Lemke `n · max|Mᵢⱼ| · 2.2 eps`
    /// (`<= 0` means automatic). Must be finite.
    pub zero_tolerance: f64,
    /// Moby Lemke's pivoting rules: `CTS_LCP_LEMKE_VARIANT_DRAKE` (default) or
    /// `CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC`.
    pub lemke_variant: i32,
    /// Moby Lemke's pivot limit, `>= 0`; 0 (default) = the variant's own: min(1000, 50n)
    /// (Drake's rule) or max(10000, 50n) (lexicographic). Not used by the other algorithms.
    pub max_pivots: i32,
    /// The Lemke solvers refactor their basis inverse after this many rank-1 updates, `>= 0`;
    /// 0 (default) = max(2n, 50). 1 gives Moby Lemke Drake's arithmetic (a fresh LU at every
    /// pivot, O(n³) each).
    pub refactor_interval: i32,
    /// `CTS_LCP_ALGORITHM_LEMKE_REGULARIZED`: first exponent of the shift `10^e`; default −20.
    /// Both schedules: `|min_exp|, |max_exp| <= 300`, `step_exp >= 1`, and at most 100 shifts
    /// (`ceil((max_exp − min_exp) / step_exp) <= 100`), so no schedule runs without end.
    pub lemke_min_exp: i32,
    /// Exponent increment, `>= 1`; default 1.
    pub lemke_step_exp: i32,
    /// Exclusive upper bound of the exponent (Drake's loop: `10^max_exp` itself is never tried);
    /// default 1, i.e. shifts 1e-20 … 1e0.
    pub lemke_max_exp: i32,
    /// `CTS_LCP_ALGORITHM_FAST_REGULARIZED`: first exponent; default −20.
    pub fast_min_exp: i32,
    /// Exponent increment, `>= 1`; default 4.
    pub fast_step_exp: i32,
    /// Exclusive upper bound of the exponent; default 20, i.e. shifts 1e-20, 1e-16, …, 1e16.
    pub fast_max_exp: i32,
    /// 0 (default): CTS_STATUS_OK only when z passes the residual test (see
    /// `cts_lcp_solver_solve`). 1: Drake's verdict decides, bit for bit (the artificial left the
    /// basis; "fast" terminated; the regularized wrappers' own acceptance test; unrevised Lemke's
    /// `IsSolution`), except that a non-finite z is never OK. Other values are invalid.
    pub drake_compatible_verdict: i32,
    /// Relative tolerance τ of the residual test (see `cts_lcp_solver_solve`); `<= 0` (default
    /// −1): 1e-11. Must be finite.
    pub residual_tolerance: f64,
}

impl Default for cts_lcp_parameters {
    fn default() -> Self {
        let m = MobyLcpParameters::default();
        let (l, f) = (RegularizationSchedule::LEMKE_DEFAULT, RegularizationSchedule::FAST_DEFAULT);
        Self {
            pivot_tolerance: m.pivot_tolerance,
            zero_tolerance: m.zero_tolerance,
            lemke_variant: CTS_LCP_LEMKE_VARIANT_DRAKE,
            max_pivots: 0,
            refactor_interval: 0,
            lemke_min_exp: l.min_exp,
            lemke_step_exp: l.step_exp,
            lemke_max_exp: l.max_exp,
            fast_min_exp: f.min_exp,
            fast_step_exp: f.step_exp,
            fast_max_exp: f.max_exp,
            drake_compatible_verdict: 0,
            residual_tolerance: m.residual_tolerance,
        }
    }
}

/// The validated Rust form of `cts_lcp_parameters`.
#[derive(Debug, Clone, Copy)]
struct Parameters {
    moby: MobyLcpParameters,
    unrevised: UnrevisedLemkeParameters,
    lemke: RegularizationSchedule,
    fast: RegularizationSchedule,
}

fn invalid(message: String) -> FfiError {
    FfiError::new(cts_status::InvalidArgument, message)
}

impl TryFrom<&cts_lcp_parameters> for Parameters {
    type Error = FfiError;
    fn try_from(p: &cts_lcp_parameters) -> Result<Self, FfiError> {
        let variant = match p.lemke_variant {
            CTS_LCP_LEMKE_VARIANT_DRAKE => LemkeVariant::Drake,
            CTS_LCP_LEMKE_VARIANT_LEXICOGRAPHIC => LemkeVariant::Lexicographic,
            v => return Err(invalid(format!("lemke_variant = {v} is not a CTS_LCP_LEMKE_VARIANT_* value"))),
        };
        let count = |name: &str, v: i32| {
            usize::try_from(v).map_err(|_| invalid(format!("{name} = {v} must be >= 0")))
        };
        let max_pivots = count("max_pivots", p.max_pivots)?;
        let refactor_interval = count("refactor_interval", p.refactor_interval)?;
        let drake_compatible_verdict = match p.drake_compatible_verdict {
            0 => false,
            1 => true,
            v => return Err(invalid(format!("drake_compatible_verdict = {v}, expected 0 or 1"))),
        };
        let schedule = |name: &str, min_exp: i32, step_exp: i32, max_exp: i32| {
            let s = RegularizationSchedule { min_exp, step_exp, max_exp };
            s.validate_as(name)?;
            Ok::<_, FfiError>(s)
        };
        let params = Self {
            moby: MobyLcpParameters {
                pivot_tolerance: p.pivot_tolerance,
                zero_tolerance: p.zero_tolerance,
                variant,
                max_pivots,
                refactor_interval,
                residual_tolerance: p.residual_tolerance,
                drake_compatible_verdict,
            },
            unrevised: UnrevisedLemkeParameters {
                zero_tolerance: p.zero_tolerance,
                refactor_interval,
                residual_tolerance: p.residual_tolerance,
                drake_compatible_verdict,
            },
            lemke: schedule("lemke_", p.lemke_min_exp, p.lemke_step_exp, p.lemke_max_exp)?,
            fast: schedule("fast_", p.fast_min_exp, p.fast_step_exp, p.fast_max_exp)?,
        };
        params.moby.validate()?;
        params.unrevised.validate()?;
        Ok(params)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Lemke,
    LemkeRegularized,
    Fast,
    FastRegularized,
    Unrevised,
}

impl Algorithm {
    fn code(self) -> i32 {
        match self {
            Algorithm::Lemke => CTS_LCP_ALGORITHM_LEMKE,
            Algorithm::LemkeRegularized => CTS_LCP_ALGORITHM_LEMKE_REGULARIZED,
            Algorithm::Fast => CTS_LCP_ALGORITHM_FAST,
            Algorithm::FastRegularized => CTS_LCP_ALGORITHM_FAST_REGULARIZED,
            Algorithm::Unrevised => CTS_LCP_ALGORITHM_UNREVISED_LEMKE,
        }
    }

    fn from_code(code: i32) -> Result<Self, FfiError> {
        Ok(match code {
            CTS_LCP_ALGORITHM_LEMKE => Algorithm::Lemke,
            CTS_LCP_ALGORITHM_LEMKE_REGULARIZED => Algorithm::LemkeRegularized,
            CTS_LCP_ALGORITHM_FAST => Algorithm::Fast,
            CTS_LCP_ALGORITHM_FAST_REGULARIZED => Algorithm::FastRegularized,
            CTS_LCP_ALGORITHM_UNREVISED_LEMKE => Algorithm::Unrevised,
            a => return Err(invalid(format!("algorithm = {a} is not a CTS_LCP_ALGORITHM_* value"))),
        })
    }
}

/// Opaque LCP solver handle: Drake's `MobyLcpSolver` and `UnrevisedLemkeSolver` with their
/// workspaces, which only grow (repeated solves of one size allocate nothing). Create with
/// `cts_lcp_solver_new`, release with `cts_lcp_solver_free`. Not thread-safe: one handle must
/// not be used by two threads at once; distinct handles are independent.
pub struct cts_lcp_solver {
    error: ErrorSlot,
    inner: LcpInner,
}

impl_handle!(cts_lcp_solver => LcpInner);

#[derive(Clone)]
#[doc(hidden)]
pub struct LcpInner {
    moby: MobyLcpSolver,
    unrevised: UnrevisedLemkeSolver,
    c_params: cts_lcp_parameters,
    params: Parameters,
    /// The algorithm of the last completed solve (its solver holds the results).
    last: Option<Algorithm>,
    /// Largest n whose workspace size was checked to be allocatable.
    checked_n: usize,
}

impl LcpInner {
    fn new() -> Self {
        let c_params = cts_lcp_parameters::default();
        let params = Parameters::try_from(&c_params).expect("the defaults are valid");
        Self {
            moby: MobyLcpSolver::new(),
            unrevised: UnrevisedLemkeSolver::new(),
            c_params,
            params,
            last: None,
            checked_n: 0,
        }
    }

    /// What the last solve decided on (see `cts_lcp_solve_info`).
    fn info(&self) -> Result<cts_lcp_solve_info, FfiError> {
        let (residual, drake, tolerances, regularization) = match self.last {
            None => {
                return Err(FfiError::new(
                    cts_status::NoSolution,
                    "no solution: call cts_lcp_solver_solve first",
                ));
            }
            Some(Algorithm::Unrevised) => {
                let u = &self.unrevised;
                (*u.residual(), u.drake_verdict(), (f64::NAN, u.zero_tolerance_used()), None)
            }
            Some(_) => {
                let m = &self.moby;
                (
                    *m.residual(),
                    m.drake_verdict(),
                    (m.pivot_tolerance_used(), m.zero_tolerance_used()),
                    m.regularization_exponent(),
                )
            }
        };
        Ok(cts_lcp_solve_info {
            algorithm: self.last.map_or(-1, Algorithm::code),
            drake_verdict: i32::from(drake),
            residual_test_passed: i32::from(residual.passed()),
            regularized: i32::from(regularization.is_some()),
            regularization_exponent: regularization.unwrap_or(0),
            regularization: regularization.map_or(0.0, |e| 10f64.powf(f64::from(e))),
            pivot_tolerance: tolerances.0,
            zero_tolerance: tolerances.1,
            residual_tolerance: residual.tolerance,
            min_z: residual.min_z.1,
            min_w: residual.min_w.1,
            max_complementarity: residual.max_zw.1,
            complementarity_bound: residual.complementarity_bound,
        })
    }

    /// The residual figures and the accepted exponent of the last solve.
    fn residual(&self) -> (LcpResidual, Option<i32>) {
        match self.last {
            Some(Algorithm::Unrevised) => (*self.unrevised.residual(), None),
            _ => (*self.moby.residual(), self.moby.regularization_exponent()),
        }
    }

    /// z, w and pivots of the last solve.
    fn results(&self) -> Result<(&[f64], &[f64], usize), FfiError> {
        match self.last {
            None => {
                Err(FfiError::new(cts_status::NoSolution, "no solution: call cts_lcp_solver_solve first"))
            }
            Some(Algorithm::Unrevised) => {
                Ok((self.unrevised.z(), self.unrevised.w(), self.unrevised.num_pivots()))
            }
            Some(_) => Ok((self.moby.z(), self.moby.w(), self.moby.num_pivots())),
        }
    }

    /// The workspaces hold a few n×n matrices: refuse sizes that cannot be allocated instead of
    /// letting the allocation abort the host. Probes only when n grows.
    fn check_allocatable(&mut self, n: usize) -> Result<(), FfiError> {
        if n <= self.checked_n {
            return Ok(());
        }
        let elements = n.checked_mul(n).and_then(|x| x.checked_mul(4));
        let what = || format!("n = {n}: the LCP workspaces of 4·n² doubles");
        alloc::probe_doubles(elements, &mut 0, what, "n must be below 2^29")?;
        self.checked_n = n;
        Ok(())
    }
}

/// Fills `*out` with Drake's defaults: pivot_tolerance −1 and zero_tolerance −1 (automatic),
/// lemke_variant `CTS_LCP_LEMKE_VARIANT_DRAKE`, max_pivots 0 and refactor_interval 0 (automatic),
/// Lemke regularization exponents −20, 1, 1, fast regularization exponents −20, 4, 20,
/// drake_compatible_verdict 0 (OK requires the residual test), residual_tolerance −1 (1e-11).
/// NULL-safe (does nothing).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_parameters_default(out: *mut cts_lcp_parameters) {
    handle::write_default(out, cts_lcp_parameters::default)
}

/// Creates an LCP solver with default parameters and writes the handle to `*out` (only on
/// success). The solver takes any problem size; its workspace grows with the largest problem.
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER (`out` is NULL; detail in
/// `cts_last_error_message()`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_new(out: *mut *mut cts_lcp_solver) -> cts_status {
    handle::new(out, "cts_lcp_solver_new", || Ok(LcpInner::new()))
}

/// Releases a solver. NULL is a no-op; freeing a handle twice is the caller's bug.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_free(solver: *mut cts_lcp_solver) {
    handle::free(solver)
}

/// Deep copy of a solver into a new handle `*out` (only on success), e.g. for another thread:
/// parameters, workspace, the results of the last solve and the unrevised solver's warm-start
/// index sets.
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER (`solver` or `out` NULL); failures leave
/// their detail in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_clone(
    solver: *const cts_lcp_solver,
    out: *mut *mut cts_lcp_solver,
) -> cts_status {
    handle::clone(solver, out, "cts_lcp_solver_clone", |h| Ok(h.clone()))
}

/// Validates and sets the parameters (copied). Keeps the results of the last solve.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, or CTS_STATUS_INVALID_ARGUMENT (a field outside
/// the domain documented on `cts_lcp_parameters`; nothing changed).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_set_parameters(
    solver: *mut cts_lcp_solver,
    p: *const cts_lcp_parameters,
) -> cts_status {
    set_parameters(solver, "cts_lcp_solver_set_parameters", p, |h, params: Parameters, p| {
        h.moby.set_parameters(params.moby)?;
        h.unrevised.set_parameters(params.unrevised)?;
        h.params = params;
        h.c_params = *p;
        Ok::<(), FfiError>(())
    })
}

/// Copies the current parameters into `*out`.
///
/// Returns CTS_STATUS_OK or CTS_STATUS_NULL_POINTER.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_get_parameters(
    solver: *const cts_lcp_solver,
    out: *mut cts_lcp_parameters,
) -> cts_status {
    get_struct(solver, "cts_lcp_solver_get_parameters", out, |h| Ok(h.c_params))
}

/// Solves the LCP `w = M z + q, z >= 0, w >= 0, zᵀw = 0` with `algorithm` (a
/// `CTS_LCP_ALGORITHM_*` value) and the solver's parameters.
///
/// `M` is n×n, column-major with leading dimension `ld_M >= max(1, n)` (rows n..ld_M-1 are never
/// read); `q` has n entries; `n = 0` is allowed (NULL arrays; the empty solution). `z0` is NULL
/// (cold start) or, for `CTS_LCP_ALGORITHM_FAST` only, n doubles to warm-start from (index i
/// starts with `zᵢ = 0` iff `|z0ᵢ| < tol`). The arrays are read during this call only; nothing is
/// borrowed afterwards. Unitless.
///
/// **Residual test.** With the returned z and w = M z + q (the given M, column by column):
/// `s = max(‖q‖∞, max|Mᵢⱼ| · max(1, ‖z‖∞))`, `tol = τ · n · s` (τ = `residual_tolerance`,
/// default 1e-11; ‖v‖∞ = max |vᵢ|); z passes iff z and w are finite, `min zᵢ >= −tol`,
/// `min wᵢ >= −tol` and `max |zᵢ wᵢ| <= tol · max(‖z‖∞, ‖w‖∞)`. The figures are in
/// `cts_lcp_solve_info`.
///
/// Returns CTS_STATUS_OK when the algorithm reports success (Drake's verdict) **and** z passed
/// the residual test, for every algorithm (with `drake_compatible_verdict = 1`: Drake's verdict
/// and a finite z). Outcomes: CTS_STATUS_LCP_RAY_TERMINATION,
/// CTS_STATUS_LCP_ZERO_TOLERANCE_TOO_LOW, CTS_STATUS_LCP_PIVOT_LIMIT,
/// CTS_STATUS_LCP_CYCLING_DETECTED, CTS_STATUS_LCP_LINEAR_SOLVE_FAILED,
/// CTS_STATUS_LCP_NOT_A_SOLUTION, CTS_STATUS_LCP_REGULARIZATION_FAILED (Drake's failures: z = 0;
/// the regularized wrappers: the last attempt's z), CTS_STATUS_LCP_RESIDUAL_TEST_FAILED and
/// CTS_STATUS_LCP_NON_FINITE_SOLUTION (Drake would return true; z and w are the algorithm's, the
/// message names the failing entry and the bound). The pivot count is kept in every case. Usage
/// errors (nothing solved, previous results kept): CTS_STATUS_NULL_POINTER,
/// CTS_STATUS_INVALID_ARGUMENT (unknown algorithm, `ld_M`, a NaN or ±inf entry of M, q or z0 —
/// the message names it, e.g. "M[2, 3] = NaN" —, a warm start for an algorithm without one, a
/// size too large to allocate).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_solve(
    solver: *mut cts_lcp_solver,
    algorithm: i32,
    n: usize,
    M: *const f64,
    ld_M: usize,
    q: *const f64,
    z0: *const f64,
) -> cts_status {
    with_mut(solver, "cts_lcp_solver_solve", Call::Starts, |h| {
        let alg = Algorithm::from_code(algorithm)?;
        let m = RawMatrix::new("M", M, ld_M, n, n)?;
        let q = RawVector::new("q", q, n)?;
        let z0 = if z0.is_null() {
            None
        } else if alg == Algorithm::Fast {
            Some(RawVector::new("z0", z0, n)?)
        } else {
            return Err(invalid("z0: only CTS_LCP_ALGORITHM_FAST takes a warm start; pass NULL".into()));
        };
        h.check_allocatable(n)?;
        // SAFETY: the arrays are valid for this call (the contract).
        let (m, q) = unsafe { (m.view(), q.view()) };
        let problem = LcpProblem::new(m, q)?;
        let p = h.params;
        let outcome = match alg {
            Algorithm::Lemke => h.moby.solve_lemke(&problem),
            Algorithm::LemkeRegularized => h.moby.solve_lemke_regularized(&problem, p.lemke)?,
            Algorithm::Fast => match z0 {
                // SAFETY: as above.
                Some(z0) => h.moby.solve_fast_warm(&problem, unsafe { z0.slice() })?,
                None => h.moby.solve_fast(&problem),
            },
            Algorithm::FastRegularized => h.moby.solve_fast_regularized(&problem, p.fast)?,
            Algorithm::Unrevised => h.unrevised.solve(&problem),
        };
        h.last = Some(alg);
        let status = cts_status::from(outcome);
        if outcome.is_solved() {
            return Ok(status);
        }
        let pivots = h.results()?.2;
        // Formatted into the reused message buffer: a failing solve allocates nothing once grown.
        if matches!(outcome, LcpOutcome::ResidualTestFailed | LcpOutcome::NonFiniteSolution) {
            let (residual, regularization) = h.residual();
            return Err(FfiError::formatted(
                status,
                format_args!(
                    "{}: {} (n = {n}, {pivots} pivots{})",
                    outcome.message(),
                    Violation(&residual),
                    Regularized(regularization)
                ),
            ));
        }
        Err(FfiError::formatted(status, format_args!("{} (n = {n}, {pivots} pivots)", outcome.message())))
    })
}

/// The residual test's violation as message text (nothing when it passed).
struct Violation<'a>(&'a LcpResidual);

impl fmt::Display for Violation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.write_violation(f).map(|_| ())
    }
}

/// `, accepted for M + 1eE I` when the solve was accepted on a regularized matrix.
struct Regularized(Option<i32>);

impl fmt::Display for Regularized {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(e) => write!(f, ", accepted for M + 1e{e} I"),
            None => Ok(()),
        }
    }
}

/// Copies z or w of the last solve: the getters' body, with `out` as C passed it (NULL or `len`
/// writable doubles). Unlike the other solvers' getters it copies a non-finite result too.
fn copy_solution(
    solver: *const cts_lcp_solver,
    function: &'static str,
    out: *mut f64,
    len: usize,
    pick_w: bool,
) -> cts_status {
    with_ref(solver, function, |h| {
        let (z, w, _) = h.results()?;
        let values = if pick_w { w } else { z };
        // SAFETY: NULL or `len` writable doubles (the contract).
        let out = unsafe { output("out", out, len, values.len()) }?;
        out.copy_from_slice(values);
        // A failed solve's z (e.g. CTS_STATUS_LCP_NON_FINITE_SOLUTION) stays readable, but a
        // getter never says OK to a non-finite value (`docs/c_api.md` §1.4).
        finite_output(if pick_w { "w" } else { "z" }, values)?;
        Ok(cts_status::Ok)
    })
}

/// Copies z (n doubles) of the last solve into `out`; `len` must be n (`cts_lcp_solver_size`).
/// After an outcome other than CTS_STATUS_OK, z is Drake's failure value (see
/// `cts_lcp_solver_solve`).
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_DIMENSION_MISMATCH (`len`),
/// CTS_STATUS_NO_SOLUTION (no solve yet), CTS_STATUS_NON_FINITE_RESULT (z has a NaN or ±inf
/// entry, which only a failed solve leaves: z is copied all the same, the message names the
/// first such entry). Nothing else is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_get_z(
    s: *const cts_lcp_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_solution(s, "cts_lcp_solver_get_z", out, len, false)
}

/// Copies w = M z + q (n doubles, with the problem's unregularized M) of the last solve into
/// `out`; `len` must be n. Statuses as for `cts_lcp_solver_get_z`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_get_w(
    s: *const cts_lcp_solver,
    out: *mut f64,
    len: usize,
) -> cts_status {
    copy_solution(s, "cts_lcp_solver_get_w", out, len, true)
}

/// What the last solve of a `cts_lcp_solver` decided on (`cts_lcp_solver_get_solve_info`). The
/// residual figures are those of the returned z with the given (unregularized) M.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct cts_lcp_solve_info {
    /// The `CTS_LCP_ALGORITHM_*` of the last solve.
    pub algorithm: i32,
    /// 1 where Drake's method returns true (the artificial left the basis; "fast" terminated;
    /// a regularized wrapper's own acceptance test held; unrevised Lemke's `IsSolution`), else 0,
    /// whatever the residual test said.
    pub drake_verdict: i32,
    /// 1 when z passed the residual test (`cts_lcp_solver_solve`), else 0.
    pub residual_test_passed: i32,
    /// Regularized algorithms: 1 when the z accepted (by Drake's test) solves the shifted
    /// `M + 10^e I`, e below; 0 when the unshifted problem's z was accepted, nothing was accepted,
    /// or the algorithm is not regularized.
    pub regularized: i32,
    /// The accepted exponent e (0 unless `regularized`).
    pub regularization_exponent: i32,
    /// The accepted shift `10^e` (0 unless `regularized`).
    pub regularization: f64,
    /// Moby Lemke's pivot tolerance used (the automatic value `n · max(1, max|Mᵢⱼ|) · eps`
    /// unless set; for the regularized wrapper, of the last attempt's matrix); NaN for the fast
    /// and unrevised algorithms, which have none.
    pub pivot_tolerance: f64,
    /// The zero tolerance used (the automatic value unless set).
    pub zero_tolerance: f64,
    /// The residual test's absolute tolerance of z, `tol = τ · n · s` (`docs/rigid.md` §8.7; each
    /// row i of w has its own, `τ · n · sᵢ`).
    pub residual_tolerance: f64,
    /// `min zᵢ` (+inf for n = 0).
    pub min_z: f64,
    /// `min wᵢ`, w = M z + q (+inf for n = 0).
    pub min_w: f64,
    /// `|zᵢ wᵢ|` of the entry furthest above its bound.
    pub max_complementarity: f64,
    /// That entry's bound `τ · n · sᵢ · ‖z‖∞ + tol · |wᵢ|`.
    pub complementarity_bound: f64,
}

/// Copies what the last solve decided on into `*out`: Drake's verdict, the residual test's
/// figures, the accepted regularization and the tolerances used (see `cts_lcp_solve_info`).
/// Kept after an outcome other than CTS_STATUS_OK, like z.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_NO_SOLUTION (no solve yet).
/// Nothing is written on error.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_get_solve_info(
    solver: *const cts_lcp_solver,
    out: *mut cts_lcp_solve_info,
) -> cts_status {
    get_struct(solver, "cts_lcp_solver_get_solve_info", out, LcpInner::info)
}

/// Pivots of the last solve (Drake's `get_num_pivots` / `num_pivots`): Lemke pivots, fast
/// iterations, or the total over the attempts of a regularized algorithm; 0 for a trivial
/// solution, 1 for an accepted unrevised warm start. 0 before any solve or for a NULL handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_num_pivots(s: *const cts_lcp_solver) -> usize {
    read(s, 0, |h| h.results().map_or(0, |r| r.2))
}

/// Size n of the last solved problem (0 before any solve or for a NULL handle).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_size(s: *const cts_lcp_solver) -> usize {
    read(s, 0, |h| h.results().map_or(0, |r| r.0.len()))
}

/// Detail of the last failing call on this handle (a usage error or an outcome, e.g.
/// "cts_lcp_solver_solve: LCP: ray termination (no blocking variable) (n = 1, 1 pivots)"),
/// errno-style: a successful call leaves it unchanged (a getter after a failed solve keeps the
/// solve's detail); a failing call replaces it; `cts_lcp_solver_solve` clears it when it starts,
/// so it is "" after a successful solve. "" before any failure. Valid until the next call on the
/// handle; never NULL (also "" for a NULL handle); not to be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_solver_last_error(s: *const cts_lcp_solver) -> *const c_char {
    handle::last_error(s)
}

/// Drake's `ComputeZeroTolerance(M)` of the algorithm's solver: `n · max|Mᵢⱼ| · 10 eps` for the
/// Moby algorithms, `n · max|Mᵢⱼ| · 2.2 eps` for `CTS_LCP_ALGORITHM_UNREVISED_LEMKE`. `M` is n×n
/// column-major with `ld_M >= max(1, n)`. Writes `*out` on success only.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_INVALID_ARGUMENT (algorithm,
/// `ld_M`); failures leave their detail in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_compute_zero_tolerance(
    algorithm: i32,
    n: usize,
    M: *const f64,
    ld_M: usize,
    out: *mut f64,
) -> cts_status {
    guard(None, || {
        let name = "cts_lcp_compute_zero_tolerance";
        let alg = Algorithm::from_code(algorithm).map_err(|e| prefix(name, e))?;
        let m = RawMatrix::new("M", M, ld_M, n, n).map_err(|e| prefix(name, e))?;
        if out.is_null() {
            return Err(prefix(name, FfiError::null("out")));
        }
        // SAFETY: validated, valid for this call (the contract).
        let m = unsafe { m.view() };
        let tol =
            if alg == Algorithm::Unrevised { unrevised_zero_tolerance(m) } else { moby_zero_tolerance(m) };
        // SAFETY: non-NULL and writable (the contract).
        unsafe { *out = tol };
        Ok(cts_status::Ok)
    })
}

/// Drake's `UnrevisedLemkeSolver::IsSolution(M, q, z, zero_tol)`: `*out = 1` iff
/// `min z > −tol`, `min(Mz + q) > −tol` and `|zᵀ(Mz + q)| < 10 · n · tol`, else 0; `zero_tol <= 0`
/// means `n · max|Mᵢⱼ| · 2.2 eps`; with a zero tolerance (M = 0) an exact zero passes each test.
/// `M` n×n column-major (`ld_M >= max(1, n)`), `q` and `z` n doubles each. Writes `*out` on
/// success only.
///
/// Returns CTS_STATUS_OK, CTS_STATUS_NULL_POINTER, CTS_STATUS_INVALID_ARGUMENT (`ld_M`, NaN
/// `zero_tol`); failures leave their detail in `cts_last_error_message()`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cts_lcp_is_solution(
    n: usize,
    M: *const f64,
    ld_M: usize,
    q: *const f64,
    z: *const f64,
    zero_tol: f64,
    out: *mut i32,
) -> cts_status {
    guard(None, || {
        let name = "cts_lcp_is_solution";
        let m = RawMatrix::new("M", M, ld_M, n, n).map_err(|e| prefix(name, e))?;
        let q = RawVector::new("q", q, n).map_err(|e| prefix(name, e))?;
        let z = RawVector::new("z", z, n).map_err(|e| prefix(name, e))?;
        if out.is_null() {
            return Err(prefix(name, FfiError::null("out")));
        }
        if zero_tol.is_nan() {
            return Err(prefix(name, invalid("zero_tol is NaN".into())));
        }
        // SAFETY: validated, valid for this call (the contract).
        let ok = unsafe { is_solution(m.view(), q.view(), z.slice(), zero_tol) };
        // SAFETY: non-NULL and writable (the contract).
        unsafe { *out = i32::from(ok) };
        Ok(cts_status::Ok)
    })
}

impl From<LcpOutcome> for cts_status {
    fn from(o: LcpOutcome) -> Self {
        match o {
            LcpOutcome::Solved => cts_status::Ok,
            LcpOutcome::RayTermination => cts_status::LcpRayTermination,
            LcpOutcome::ZeroToleranceTooLow => cts_status::LcpZeroToleranceTooLow,
            LcpOutcome::PivotLimit => cts_status::LcpPivotLimit,
            LcpOutcome::CyclingDetected => cts_status::LcpCyclingDetected,
            LcpOutcome::LinearSolveFailed => cts_status::LcpLinearSolveFailed,
            LcpOutcome::NotASolution => cts_status::LcpNotASolution,
            LcpOutcome::RegularizationFailed => cts_status::LcpRegularizationFailed,
            LcpOutcome::ResidualTestFailed => cts_status::LcpResidualTestFailed,
            LcpOutcome::NonFiniteSolution => cts_status::LcpNonFiniteSolution,
        }
    }
}

/// The one mapping from LCP usage errors to status codes.
impl From<LcpError> for FfiError {
    fn from(e: LcpError) -> Self {
        let status = match e {
            LcpError::DimensionMismatch { .. }
            | LcpError::WarmStartLength { .. }
            | LcpError::SolutionLength { .. } => cts_status::DimensionMismatch,
            LcpError::InvalidParameter(_) | LcpError::NonFinite { .. } => cts_status::InvalidArgument,
        };
        Self::new(status, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_message_and_status() {
        let mut h: *mut cts_lcp_solver = std::ptr::null_mut();
        // SAFETY: test of the C API with valid arguments.
        unsafe {
            assert_eq!(cts_lcp_solver_new(&mut h), cts_status::Ok);
            let (m, q) = ([-1.0], [-1.0]);
            let s = cts_lcp_solver_solve(
                h,
                CTS_LCP_ALGORITHM_LEMKE,
                1,
                m.as_ptr(),
                1,
                q.as_ptr(),
                std::ptr::null(),
            );
            assert_eq!(s, cts_status::LcpRayTermination);
            let msg = std::ffi::CStr::from_ptr(cts_lcp_solver_last_error(h)).to_str().unwrap();
            assert!(msg.starts_with("cts_lcp_solver_solve: LCP: ray termination"), "{msg}");
            let mut z = [7.0];
            assert_eq!(cts_lcp_solver_get_z(h, z.as_mut_ptr(), 1), cts_status::Ok);
            assert_eq!(z, [0.0]);
            cts_lcp_solver_free(h);
        }
    }
}
