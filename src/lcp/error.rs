//! Usage errors of the LCP solvers. Outcomes of a solve are not errors: see `outcome.rs`.

/// Usage errors of the LCP solvers (C ABI: status 101/102).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LcpError {
    /// `M` is not `n×n` with `n = q.len()`.
    #[error("M's dimensions ({rows}×{cols}) do not match that of q (length {q})")]
    DimensionMismatch {
        /// Rows of M.
        rows: usize,
        /// Columns of M.
        cols: usize,
        /// Length of q.
        q: usize,
    },
    /// A warm-start vector whose length is not `n`.
    #[error("warm-start z has length {got}, expected {expected}")]
    WarmStartLength {
        /// Given length.
        got: usize,
        /// Problem size.
        expected: usize,
    },
    /// A solution vector (e.g. for [`residual_test`](super::residual_test)) whose length is not `n`.
    #[error("z has length {got}, expected {expected}")]
    SolutionLength {
        /// Given length.
        got: usize,
        /// Problem size.
        expected: usize,
    },
    /// A parameter outside its domain (the message names it, its value and the domain).
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// A NaN or ±inf entry in the problem data (C ABI: `CTS_STATUS_INVALID_ARGUMENT`).
    #[error("{argument}{} = {value}, expected a finite value", index(*row, *col))]
    NonFinite {
        /// `"M"` or `"q"`.
        argument: &'static str,
        /// Row of the entry.
        row: usize,
        /// Column of the entry (`None` for a vector).
        col: Option<usize>,
        /// The entry.
        value: f64,
    },
}

fn index(row: usize, col: Option<usize>) -> String {
    match col {
        Some(c) => format!("[{row}, {c}]"),
        None => format!("[{row}]"),
    }
}
