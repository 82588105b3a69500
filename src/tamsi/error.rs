//! Usage errors (`docs/tamsi.md` §10). Solver outcomes are not errors: see `outcome.rs`.

use super::outcome::TamsiOutcome;
use super::scheme::CouplingScheme;
use crate::block_sparse::BlockSparseError;

/// A usage error: the call did nothing (where Drake throws or aborts, `docs/tamsi.md` §10).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TamsiError {
    /// A matrix or vector does not have the size the problem implies.
    #[error("{what}: {got_rows}x{got_cols}, expected {rows}x{cols}")]
    DimensionMismatch {
        /// Which argument.
        what: &'static str,
        /// Expected rows (length for a vector).
        rows: usize,
        /// Expected columns (1 for a vector).
        cols: usize,
        /// Actual rows.
        got_rows: usize,
        /// Actual columns.
        got_cols: usize,
    },
    /// A parameter outside its domain.
    #[error("{name} = {value} is outside its domain {domain}")]
    InvalidParameter {
        /// Field name.
        name: &'static str,
        /// Offending value.
        value: f64,
        /// The accepted domain.
        domain: &'static str,
    },
    /// The time step must be finite and positive.
    #[error("dt = {0} must be finite and > 0")]
    InvalidTimeStep(f64),
    /// `resize` needs at least one generalized velocity (Drake's `ResizeIfNeeded` throws).
    #[error("resize: nv must be > 0")]
    InvalidSize,
    /// An entry of the problem data outside its domain (NaN or infinite anywhere; a negative
    /// friction coefficient, normal force, stiffness or dissipation). Found by
    /// [`TamsiProblem::validate`](super::TamsiProblem::validate).
    #[error("{what} entry {index:?} = {value} is outside its domain: expected {expected}")]
    InvalidEntry {
        /// Which argument.
        what: &'static str,
        /// Its first offending entry: `(i, 0)` for a vector, `(row, column)` for a matrix.
        index: (usize, usize),
        /// Whether `what` is a matrix (the index is a (row, column) pair).
        matrix: bool,
        /// The offending value.
        value: f64,
        /// The domain.
        expected: &'static str,
    },
    /// A workspace sized by the problem could not be allocated: the system refused the memory
    /// (nothing was solved; the solver stays usable).
    #[error("{what}: allocating {elements} elements of {element_size} bytes failed")]
    AllocationFailed {
        /// Which workspace.
        what: &'static str,
        /// Elements requested.
        elements: usize,
        /// Bytes per element.
        element_size: usize,
    },
    /// The problem is larger than the workspace's 32-bit block indices can address.
    #[error("{what}: more than the supported maximum of {limit}")]
    TooLarge {
        /// What was counted.
        what: &'static str,
        /// The largest supported count.
        limit: usize,
    },
    /// Problem data of one coupling scheme given to a solver that was used with the other
    /// (Drake throws; a solver keeps its scheme until it is resized or cloned).
    #[error("the solver is {solver}; it cannot take {data} problem data")]
    WrongCouplingScheme {
        /// The solver's scheme.
        solver: CouplingScheme,
        /// The scheme of the rejected data.
        data: CouplingScheme,
    },
    /// Block-sparse data that cannot be used, or workspace for it that cannot be allocated.
    #[error(transparent)]
    BlockSparse(#[from] BlockSparseError),
    // ---- Sensitivities (`docs/tamsi_sensitivities.md`).
    /// The last solve has no sensitivities: it did not converge (`outcome`), or there was none
    /// (`None`). Implicit differentiation needs `R(v) = 0` at the returned velocities.
    #[error("no sensitivities: {}", no_sensitivities_reason(.outcome))]
    NoSensitivities {
        /// Outcome of the last solve, `None` when there was no solve.
        outcome: Option<TamsiOutcome>,
    },
    /// The Newton matrix at the solution could not be factored or gave non-finite derivatives
    /// (a singular matrix, or problem data that are no longer finite).
    #[error(
        "no sensitivities: the Newton matrix at the solution is singular (or the problem data are not finite)"
    )]
    SingularNewtonMatrix,
    /// A sensitivity was read before `compute_sensitivities` ran for the last solve.
    #[error("no sensitivities computed for the last solve: call compute_sensitivities first")]
    SensitivitiesNotComputed,
    /// A parameter that is not problem data of the scheme (`fn` is one-way only; `fn0`,
    /// `stiffness`, `dissipation` two-way only).
    #[error("{} is not a parameter of {scheme} problems", .parameter.name())]
    NotASensitivityParameter {
        /// The parameter asked for.
        parameter: super::TamsiSensitivityParameter,
        /// The scheme of the last solve.
        scheme: CouplingScheme,
    },
    /// A NaN or infinite entry in a gradient given to a vector–Jacobian product.
    #[error("{what}[{index}] = {value} is not finite")]
    NonFiniteGradient {
        /// Which argument.
        what: &'static str,
        /// Index of its first non-finite entry.
        index: usize,
        /// The value.
        value: f64,
    },
    /// The sensitivity storage could not be allocated.
    #[error("cannot allocate {elements} doubles for the sensitivities")]
    SensitivityAllocation {
        /// Number of doubles asked for (`usize::MAX` when the count overflows).
        elements: usize,
    },
}

fn no_sensitivities_reason(outcome: &Option<TamsiOutcome>) -> String {
    match outcome {
        None => "no solve since the problem or the solver changed".into(),
        Some(o) => format!("the last solve did not converge ({o:?}); only a converged solve has them"),
    }
}
