//! Usage errors of the rigid constraint solver (`docs/rigid.md` §2, §10).

/// Usage errors of the rigid constraint solver (C ABI: 101 invalid argument, 102 dimension
/// mismatch).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RigidError {
    /// A length does not match the problem's sizes.
    #[error("{what} has length {got}, expected {expected}")]
    DimensionMismatch {
        /// What was wrong.
        what: &'static str,
        /// Expected length.
        expected: usize,
        /// Given length.
        got: usize,
    },
    /// A dense operator of the wrong shape.
    #[error("{name}: {rows}×{cols} matrix, expected {expected_rows}×{expected_cols}")]
    OperatorShape {
        /// Operator name (Drake's).
        name: &'static str,
        /// Rows given.
        rows: usize,
        /// Columns given.
        cols: usize,
        /// Rows expected.
        expected_rows: usize,
        /// Columns expected.
        expected_cols: usize,
    },
    /// An entry of the data outside its domain: NaN or infinite anywhere, a negative friction
    /// coefficient or regularization. Checked by the data's `validate` at every solve and
    /// compute call (Drake does not check).
    #[error("{what} entry {index:?} = {value} is outside its domain: expected {expected}")]
    InvalidEntry {
        /// Which argument.
        what: &'static str,
        /// Its first offending entry: `(i, 0)` for a vector, `(row, column)` for a matrix.
        index: (usize, usize),
        /// Whether `what` is a matrix.
        matrix: bool,
        /// The value.
        value: f64,
        /// The domain.
        expected: &'static str,
    },
    /// `solve_inertia` was not set.
    #[error("solve_inertia is not set")]
    MissingInertiaSolve,
    /// A value outside its domain (the message says which).
    #[error("invalid argument: {0}")]
    InvalidArgument(&'static str),
    /// `update`/`populate` of the discretized LCP without a matching
    /// `construct_base_discretized_time_lcp`.
    #[error("no discretized LCP constructed for this problem")]
    NoDiscretizedLcp,
    /// 2-D convenience function: `r` says the problem is not two-dimensional (Drake:
    /// "Problem data 'r' indicates contact problem is not two-dimensional").
    #[error("problem data 'r' indicates contact problem is not two-dimensional")]
    NotTwoDimensional,
    /// 2-D convenience function: a contact normal is not unit length.
    #[error("contact normal apparently not unit length")]
    NormalNotUnit,
    /// 2-D convenience function: a contact tangent is not unit length.
    #[error("contact tangent apparently not unit length")]
    TangentNotUnit,
    /// 2-D convenience function: normal and tangent insufficiently orthogonal.
    #[error("contact normal and tangent insufficiently orthogonal")]
    NotOrthogonal,
}
