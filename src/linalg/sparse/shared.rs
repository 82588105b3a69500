//! What the symbolic analysis (`symbolic.rs`), the numeric factorization (`numeric.rs`) and the
//! factorization types (`mod.rs`) share: the kind of factorization, the error, fallible growth.

/// Which factorization an analysis is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `P A = L U`, row exchanges inside supernodes.
    Lu,
    /// `P A Pᵀ = L D Lᵀ`, symmetric exchanges inside supernodes; only the lower triangle is read.
    Ldlt,
}

/// Errors of the block-sparse factorizations.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SparseError {
    /// The block sizes or pairs are invalid (zero-size block, index out of range, self pair,
    /// size overflow).
    #[error("invalid block pattern: {0}")]
    InvalidPattern(String),
    /// Allocation failed (or a size would overflow).
    #[error("out of memory for the block-sparse factorization")]
    OutOfMemory,
    /// No pattern has been analysed yet.
    #[error("no block pattern analysed")]
    NotAnalyzed,
    /// Block (a, b) is not in the current pattern.
    #[error("block ({a}, {b}) is not in the block pattern")]
    NotInPattern {
        /// Row block.
        a: usize,
        /// Column block.
        b: usize,
    },
    /// An assembled value is NaN or infinite (original scalar row and column).
    #[error("non-finite matrix entry at ({row}, {col})")]
    NonFinite {
        /// Scalar row.
        row: usize,
        /// Scalar column.
        col: usize,
    },
    /// A pivot is zero or negligible against its column (original scalar column); see the
    /// module docs.
    #[error("matrix singular to working precision at column {col} (pivot {pivot:e})")]
    Singular {
        /// Scalar column of the pivot.
        col: usize,
        /// The pivot's value.
        pivot: f64,
    },
    /// `solve_in_place` before a successful `factor`.
    #[error("no factorization to solve with")]
    NotFactored,
    /// The right-hand side does not have the matrix size.
    #[error("right-hand side has length {got}, the matrix has size {expected}")]
    RhsLength {
        /// The matrix size.
        expected: usize,
        /// The right-hand side's length.
        got: usize,
    },
}

/// Grows `v` to at least `len` elements filled with `value`, fallibly; never shrinks it.
pub(super) fn try_grow<T: Clone>(v: &mut Vec<T>, len: usize, value: T) -> Result<(), SparseError> {
    if v.len() < len {
        v.try_reserve(len - v.len()).map_err(|_| SparseError::OutOfMemory)?;
        v.resize(len, value);
    }
    Ok(())
}

/// A vector of `len` copies of `value`, fallibly.
pub(super) fn try_filled<T: Clone>(len: usize, value: T) -> Result<Vec<T>, SparseError> {
    let mut v = Vec::new();
    try_grow(&mut v, len, value)?;
    Ok(v)
}
