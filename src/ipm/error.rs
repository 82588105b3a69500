//! Usage errors of the interior-point solver (bad problem data or parameters). Solver outcomes
//! (converged, iteration limit, ...) are not errors: see [`super::IpmOutcome`].

/// A usage error: the call was rejected before any numerics and nothing was written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IpmError {
    /// A matrix or vector does not have the size the problem implies.
    #[error("{what}: expected {expected_rows}x{expected_cols}, got {rows}x{cols}")]
    DimensionMismatch {
        /// Which argument.
        what: &'static str,
        /// Rows it should have.
        expected_rows: usize,
        /// Columns it should have.
        expected_cols: usize,
        /// Rows it has.
        rows: usize,
        /// Columns it has.
        cols: usize,
    },
    /// A value is NaN or infinite where a finite number is required.
    #[error("{what}: non-finite entry at index {index}")]
    NonFinite {
        /// Which argument.
        what: &'static str,
        /// Column-major index of the first offending entry.
        index: usize,
    },
    /// A value is outside its domain (negative μ, non-positive time step, ...).
    #[error("{what}: {value} is out of range ({requirement})")]
    OutOfRange {
        /// Which argument or parameter.
        what: &'static str,
        /// The offending value.
        value: f64,
        /// What is required.
        requirement: &'static str,
    },
    /// A result accessor or the sensitivity computation was called before any solve, or after a
    /// solve of a different problem size.
    #[error("no solution of a problem of this size is available; call solve first")]
    NoSolution,
    /// Storage the caller's sizes ask for could not be allocated.
    #[error("{what}: could not allocate {len} entries")]
    Allocation {
        /// What was to be stored.
        what: &'static str,
        /// How many entries.
        len: usize,
    },
    /// Block-sparse data that cannot be used, or storage for its islands that could not be
    /// allocated (`docs/block_sparse.md`).
    #[error("block-sparse data: {0}")]
    Blocks(#[from] crate::block_sparse::BlockSparseError),
}
