//! Usage errors of the Baraff solver. Solver outcomes (unbounded ray, cycling, ...) are not
//! errors: they are [`super::BaraffOutcome`] values.

/// A usage error: the problem data or the parameters are invalid. Nothing was solved and the
/// previous results were discarded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BaraffError {
    /// A matrix or vector has the wrong size.
    #[error("{what}: expected {expected}, got {got}")]
    DimensionMismatch {
        /// Which argument and which dimension ("A rows", "b length", ...).
        what: &'static str,
        /// The size implied by the rest of the problem.
        expected: usize,
        /// The size passed.
        got: usize,
    },
    /// An input that must be finite holds NaN or ±∞.
    #[error("{what}: entry {index} (column-major) = {value} is not finite")]
    NonFinite {
        /// Which argument.
        what: &'static str,
        /// Position of the first non-finite entry (column-major for a matrix).
        index: usize,
        /// Its value.
        value: f64,
    },
    /// A row kind code (C interface) is not one of the `ROW_*` constants.
    #[error("row {row}: unknown row kind code {code}")]
    UnknownRowKind {
        /// Row index.
        row: usize,
        /// The code passed.
        code: i32,
    },
    /// A row's parameters are invalid (friction without a normal row, μ < 0, bounds that do not
    /// contain 0, ...).
    #[error("row {row}: {reason}")]
    InvalidRow {
        /// Row index.
        row: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// A parameter is out of its domain.
    #[error("parameter {name} = {value:e} is out of its domain: expected {domain}")]
    InvalidParameter {
        /// Field name in [`super::BaraffParameters`] or in the problem.
        name: &'static str,
        /// The value passed.
        value: f64,
        /// The domain.
        domain: &'static str,
    },
    /// The mass matrix is not symmetric positive definite.
    #[error("the mass matrix is not positive definite (pivot {pivot} of column {column})")]
    MassMatrixNotPositiveDefinite {
        /// Column whose Cholesky pivot failed.
        column: usize,
        /// The pivot.
        pivot: f64,
    },
    /// The call does not support this row kind (the active-set impulse loop of §8 takes
    /// bilateral and normal rows only).
    #[error("row {row}: row kind not supported by {call}")]
    UnsupportedRowKind {
        /// Row index.
        row: usize,
        /// The call.
        call: &'static str,
    },
    /// A velocity-level call got an acceleration-level problem or the reverse.
    #[error("{call} needs a {expected}-level problem")]
    WrongLevel {
        /// The call.
        call: &'static str,
        /// "velocity" or "acceleration".
        expected: &'static str,
    },
}
