//! How a solve ended (Drake `TamsiSolverResult`) and the statistics of the last solve (Drake
//! `TamsiSolverIterationStats`, `docs/tamsi.md` §8).

use crate::coded::coded_enum;

coded_enum! {
    /// How a solve ended (Drake `TamsiSolverResult`, same numeric values). These are results, not
    /// errors: on every outcome the solver's outputs are evaluated at the returned velocities.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum TamsiOutcome {
        /// Converged: `max(‖Δvt‖, ‖Δvn‖) < rtol·vs` (Drake `kSuccess`).
        0 => Success,
        /// `max_iterations` Newton updates done without meeting the tolerance; the velocities are
        /// the last iterate (Drake `kMaxIterationsReached`).
        1 => MaxIterationsReached,
        /// The one-way Newton matrix could not be factored (Eigen LDLT `NumericalIssue`), or on the
        /// no-contact path the mass matrix could not (a check Drake does not make). The velocities
        /// are the iterate at which it happened (Drake `kLinearSolverFailed`).
        2 => LinearSolverFailed,
        /// The transition-aware limiter found no step for some contact, or the step factor left
        /// `(0, 1]` (where Drake aborts the process). The velocities are the iterate at which it
        /// happened (Drake `kAlphaSolverFailed`).
        3 => AlphaSolverFailed,
    }
}

impl TamsiOutcome {
    /// `true` for [`TamsiOutcome::Success`].
    pub fn is_success(self) -> bool {
        self == TamsiOutcome::Success
    }
}

/// Statistics of the last solve (Drake `TamsiSolverIterationStats`, §8).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TamsiIterationStats {
    /// Newton updates performed.
    pub num_iterations: usize,
    /// `‖Δvt‖₂` of the full (un-limited) Newton step, one per update, m/s. Despite Drake's name
    /// these are not norms of the residual R. The no-contact path records `[0.0]`.
    pub residuals: Vec<f64>,
}

impl TamsiIterationStats {
    /// Last entry of [`residuals`](Self::residuals), m/s; NaN when there is none (where Drake's
    /// behaviour is undefined).
    pub fn vt_residual(&self) -> f64 {
        self.residuals.last().copied().unwrap_or(f64::NAN)
    }

    pub(super) fn reset(&mut self) {
        self.num_iterations = 0;
        self.residuals.clear();
    }
}
