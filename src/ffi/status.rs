//! Status codes (`docs/c_api.md` §2, "Status codes") and the FFI error type.
//!
//! The leaf of the C ABI: it imports nothing of `ffi`. Every other ffi module builds on it
//! (`status` <- [`super::message`] <- [`super::alloc`] <- ...), and each solver's
//! `From<…Outcome> for cts_status` and `From<…Error> for FfiError` live with that solver's
//! functions (`ffi/<solver>.rs`), so the chain runs one way.

use std::cell::RefCell;
use std::ffi::{CStr, c_char};
use std::fmt::{self, Write as _};

/// Result of every fallible function. `CTS_STATUS_OK` (0) is success; 1–99 are solver outcomes
/// (for TAMSI exactly Drake's `TamsiSolverResult` values); usage errors start at 100. In C this
/// is an `int32_t`: compare it with the enumerators, and pass any value to
/// `cts_status_string`.
#[allow(non_camel_case_types)]
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum cts_status {
    /// Success (TAMSI: Drake's `kSuccess`).
    Ok = 0,
    /// Drake's `kMaxIterationsReached`: the outputs hold the last iterate.
    MaxIterationsReached = 1,
    /// Drake's `kLinearSolverFailed`: the Newton matrix (one-way) or the mass matrix (no
    /// contact) could not be factored.
    LinearSolverFailed = 2,
    /// Drake's `kAlphaSolverFailed`: the limiter found no step (also where Drake would abort).
    AlphaSolverFailed = 3,
    /// A solve or getter of TAMSI, the rigid constraint solver, Baraff or the interior point would
    /// have returned a NaN or infinite output although its inputs passed validation (huge finite
    /// inputs whose products overflow, an ill-posed problem). The message names the output and its
    /// first non-finite entry. Where Drake reports success (TAMSI) this is a deliberate
    /// difference. A solve that ends with it keeps its results: getters of its finite outputs
    /// work, getters of the non-finite ones report this status too and write nothing.
    NonFiniteResult = 4,
    /// LCP (`cts_lcp_*`, outcomes 10..16; success is `CTS_STATUS_OK`): Lemke found no blocking
    /// variable for the entering column (ray termination; Drake returns false). z = 0.
    LcpRayTermination = 10,
    /// LCP: Moby Lemke's ratio test left no candidate ("zero tolerance too low"). z = 0.
    LcpZeroToleranceTooLow = 11,
    /// LCP: the pivot or iteration limit was reached (Moby Lemke min(1000, 50n), fast 2n,
    /// unrevised Lemke 50n). z = 0.
    LcpPivotLimit = 12,
    /// LCP: unrevised Lemke's cycling counter ran out of tied candidates. z = 0.
    LcpCyclingDetected = 13,
    /// LCP: an unrevised Lemke basis solve failed its residual check. z = 0.
    LcpLinearSolveFailed = 14,
    /// LCP: unrevised Lemke terminated on a point that `IsSolution` rejects. z = 0.
    LcpNotASolution = 15,
    /// LCP: a regularized algorithm tried every shift without an accepted solution; z is the
    /// last attempt's.
    LcpRegularizationFailed = 16,
    /// Rigid constraint solver (`cts_rigid_*`): the LCP was not solved to the acceptance test
    /// (Drake's "Unable to solve LCP- it may be unsolvable."; acceleration level and
    /// discretized problem). The packed forces are zeros; the LCP and its rejected z, w stay
    /// readable.
    RigidLcpUnsolvable = 17,
    /// Rigid constraint solver: the impact LCP and its progressive regularization both failed
    /// (Drake's "Progressively regularized LCP solve failed."). The packed impulses are zeros.
    RigidRegularizedLcpFailed = 18,
    /// A user callback (a `cts_rigid_operator_fn`) returned nonzero; the call that ran it was
    /// abandoned and produced no results (later callbacks of that call were not invoked).
    CallbackFailed = 19,
    /// Baraff pivoting (20..26; a verified solution is `CTS_STATUS_OK`, 20 is not used): the
    /// pivoting finished but the worst violation of the row conditions exceeds the tolerance
    /// (round-off in ill-conditioned problems, unresolved deferred or locked rows). The results
    /// are readable.
    BaraffInexact = 21,
    /// Baraff pivoting: no event limits the step while driving a row (the row is in
    /// `cts_baraff_stats.row`): with sliding friction the signature of an inconsistent (Painlevé)
    /// configuration, which needs a consistency impulse. The results hold the forces reached.
    BaraffUnboundedRay = 22,
    /// Baraff pivoting: the cycling safeguards gave up (zero-length pivots the deferral and
    /// locking rules did not break). The results hold the forces reached.
    BaraffCycling = 23,
    /// Baraff pivoting: the pivot cap (`cts_baraff_parameters.max_pivots`) was reached.
    BaraffPivotLimit = 24,
    /// Baraff impulses: the active-set impulse loop hit its iteration cap
    /// (`cts_baraff_parameters.max_impulse_iterations`); the results hold the last iterate.
    BaraffIterationLimit = 25,
    /// Baraff: solved after treating a sliding row as frictionless. Only the iterative variant
    /// of the Rust API returns it; no C function does (the code is reserved for it).
    BaraffFrictionlessFallback = 26,
    /// LCP (27..39): the algorithm reported success (Drake would return true) but z failed the
    /// residual test of `cts_lcp_solver_solve` (for a regularized algorithm: the z accepted for
    /// `M + 10^e I` does not solve the LCP with M). z and w are readable; the message names the
    /// failing entry and the bound.
    LcpResidualTestFailed = 27,
    /// LCP: the algorithm reported success but z or w = M z + q has a NaN or ±inf entry (e.g.
    /// "fast" on a singular principal block). Never OK, even with `drake_compatible_verdict`.
    LcpNonFiniteSolution = 28,
    /// Interior point (`cts_ipm_*`, codes 40..59; a converged solve returns `CTS_STATUS_OK`):
    /// `max_iter` iterations ran without convergence: the engine iteration's `tolerance` and
    /// `complementarity_tolerance` not met (the results hold the best iterate, `docs/ipm.md` §11),
    /// or with `dojo_compatible` `rtol` and `btol` not met (Dojo's "failed" status; the results
    /// hold the last iterate, a strictly interior point). Sensitivities can still be computed.
    IpmMaxIterationsReached = 41,
    /// Interior point: a Newton direction or residual was not finite (a singular or overflowing
    /// Newton matrix, e.g. a singular `M` along a direction no contact constrains). The results
    /// hold the last finite iterate.
    IpmNonFiniteStep = 42,
    /// Interior point, engine iteration: not converged, but the returned iterate (the best by
    /// merit) meets 100× the tolerances: scaled residual ≤ 100·`tolerance`, scaled
    /// complementarity ≤ 100·`complementarity_tolerance` (`docs/ipm.md` §11.2). Ends the
    /// iteration limit, a non-finite direction or the stall exit.
    IpmAlmostConverged = 43,
    /// Interior point, engine iteration: the stall exit (`stall_iterations`: no 10 % progress of
    /// the best merit, or steps below 1e-4) stopped the iteration far from the tolerances; the
    /// results hold the best iterate.
    IpmStalled = 44,
    /// A required pointer was NULL.
    NullPointer = 100,
    /// A value outside its domain (NaN or non-positive `dt`, `ld` below the row count, a bad
    /// parameter).
    InvalidArgument = 101,
    /// A length does not match the problem's sizes.
    DimensionMismatch = 102,
    /// A solve (or evaluation) was called before problem data was set.
    NoProblemData = 103,
    /// One-way data set on a two-way solver, or the reverse (Drake throws here).
    WrongCouplingScheme = 104,
    /// A result getter was called before any solve (or after the data changed).
    NoSolution = 105,
    /// A workspace sized by the caller's data could not be allocated (the system refused the
    /// memory). The message names the size; nothing was changed and the handle stays usable.
    /// Sizes that cannot exist at all (their byte count overflows) are
    /// `CTS_STATUS_INVALID_ARGUMENT`.
    AllocationFailed = 106,
    /// TAMSI sensitivities asked of a solve that has none: it did not converge (only a converged
    /// solve satisfies R(v) = 0, which implicit differentiation needs), or the Newton matrix at
    /// its solution is singular.
    NoSensitivities = 107,
    /// An internal panic was caught; the handle should be freed.
    Panic = 199,
}

thread_local! {
    /// The buffer [`FfiError::formatted`] writes messages into, handed back by the guard once the
    /// message is recorded ([`recycle_message`]), so a failing solve allocates only while it grows.
    static SCRATCH: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Gives a recorded message's storage back to [`FfiError::formatted`] (the larger buffer is
/// kept).
pub(crate) fn recycle_message(message: String) {
    let _ = SCRATCH.try_with(|b| {
        let mut b = b.borrow_mut();
        if message.capacity() > b.capacity() {
            *b = message;
        }
    });
}

/// A failed call: its status and the detail recorded for `*_last_error`.
#[derive(Debug, Clone, PartialEq)]
pub struct FfiError {
    /// The status returned to C.
    pub status: cts_status,
    /// Human-readable detail ("Jn: ld 3 < rows 4").
    pub message: String,
    /// The exported function the call failed in, written before the message when it is recorded
    /// (`"cts_lcp_solver_solve: ..."`, [`super::guard::prefix`]); `""` when not known yet.
    pub function: &'static str,
}

impl fmt::Display for FfiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.function.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.function, self.message)
        }
    }
}

impl std::error::Error for FfiError {}

impl FfiError {
    /// An error with the given status and message.
    pub fn new(status: cts_status, message: impl Into<String>) -> Self {
        Self { status, message: message.into(), function: "" }
    }

    /// An error whose message is formatted into this thread's reused message buffer (given back
    /// by the guard once recorded, [`recycle_message`]): once that buffer and the handle's error
    /// slot have grown, a
    /// solve that ends with a solver outcome (not converged, a failed residual test) records its
    /// detail without allocating (`docs/c_api.md` §1.3).
    pub fn formatted(status: cts_status, args: fmt::Arguments<'_>) -> Self {
        let mut message = SCRATCH.try_with(|b| std::mem::take(&mut *b.borrow_mut())).unwrap_or_default();
        message.clear();
        // Writing into a String cannot fail (only a Display impl can, and ours do not).
        let _ = message.write_fmt(args);
        Self { status, message, function: "" }
    }

    /// `name` was NULL.
    pub fn null(name: &str) -> Self {
        Self::new(cts_status::NullPointer, format!("{name} is NULL; expected a valid pointer"))
    }
}

/// Static, never-NULL text for any status value, unknown ones included. The pointer is valid for
/// the life of the process and must not be freed.
#[unsafe(no_mangle)]
pub extern "C" fn cts_status_string(status: i32) -> *const c_char {
    let text: &'static CStr = match status {
        0 => c"ok",
        1 => c"maximum number of iterations reached",
        2 => c"linear solver failed",
        3 => c"step-length limiter found no solution",
        4 => c"non-finite result (overflow or undefined)",
        10 => c"LCP: ray termination (no blocking variable)",
        11 => c"LCP: zero tolerance too low (ratio test found no candidate)",
        12 => c"LCP: pivot limit reached",
        13 => c"LCP: cycling detected",
        14 => c"LCP: basis solve failed its residual check",
        15 => c"LCP: terminated on a point that is not a solution",
        16 => c"LCP: every regularization shift failed",
        17 => c"rigid: unable to solve LCP, it may be unsolvable",
        18 => c"rigid: progressively regularized LCP solve failed",
        19 => c"a user callback reported failure",
        21 => c"Baraff: finished, violation above tolerance",
        22 => c"Baraff: unbounded ray (inconsistent configuration)",
        23 => c"Baraff: cycling safeguards exhausted",
        24 => c"Baraff: pivot limit reached",
        25 => c"Baraff: impulse iteration limit reached",
        26 => c"Baraff: solved after a frictionless fallback",
        27 => c"LCP: the solution failed the residual test",
        28 => c"LCP: the solution is not finite",
        41 => c"interior point: maximum number of iterations reached",
        42 => c"interior point: non-finite Newton step",
        43 => c"interior point: almost converged (within 100x the tolerances)",
        44 => c"interior point: stalled (no progress)",
        100 => c"null pointer",
        101 => c"invalid argument",
        102 => c"dimension mismatch",
        103 => c"no problem data",
        104 => c"wrong coupling scheme",
        105 => c"no solution",
        106 => c"allocation failed",
        107 => c"no sensitivities (the solve did not converge)",
        199 => c"internal panic (free the handle)",
        _ => c"unknown status",
    };
    text.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baraff::BaraffOutcome;
    use crate::ipm::IpmOutcome;
    use crate::lcp::LcpOutcome;
    use crate::rigid::RigidOutcome;
    use crate::tamsi::TamsiOutcome;

    /// `code(o)` is the C status `o` converts to, for every `o` of `outcomes`.
    fn check<O: Copy + std::fmt::Debug>(outcomes: &[O], code: fn(O) -> i32)
    where
        cts_status: From<O>,
    {
        for &o in outcomes {
            assert_eq!(code(o), cts_status::from(o) as i32, "{o:?}");
        }
    }

    /// Every Rust outcome's `code()` is the C status its conversion gives (issue 23 item 5).
    #[test]
    fn outcome_codes_are_the_c_statuses() {
        check(
            &[
                IpmOutcome::Converged,
                IpmOutcome::MaxIterationsReached,
                IpmOutcome::NonFiniteStep,
                IpmOutcome::AlmostConverged,
                IpmOutcome::Stalled,
            ],
            IpmOutcome::code,
        );
        check(
            &[RigidOutcome::Solved, RigidOutcome::LcpUnsolvable, RigidOutcome::RegularizedLcpFailed],
            RigidOutcome::code,
        );
        check(
            &[
                BaraffOutcome::Solved,
                BaraffOutcome::Inexact,
                BaraffOutcome::UnboundedRay { row: 3 },
                BaraffOutcome::Cycling,
                BaraffOutcome::PivotLimit,
                BaraffOutcome::IterationLimit,
                BaraffOutcome::FrictionlessFallback { row: 1 },
            ],
            |o| o.code(),
        );
        check(
            &[
                LcpOutcome::Solved,
                LcpOutcome::RayTermination,
                LcpOutcome::ZeroToleranceTooLow,
                LcpOutcome::PivotLimit,
                LcpOutcome::CyclingDetected,
                LcpOutcome::LinearSolveFailed,
                LcpOutcome::NotASolution,
                LcpOutcome::RegularizationFailed,
                LcpOutcome::ResidualTestFailed,
                LcpOutcome::NonFiniteSolution,
            ],
            LcpOutcome::code,
        );
        check(
            &[
                TamsiOutcome::Success,
                TamsiOutcome::MaxIterationsReached,
                TamsiOutcome::LinearSolverFailed,
                TamsiOutcome::AlphaSolverFailed,
            ],
            |o| o as i32,
        );
    }
}
