//! The storage of a square factorization done in place: the column-major `n×n` matrix it is
//! given, then its factors, in a buffer that only grows (nothing allocated once grown).

use nalgebra::DMatrixViewMut;

use super::{AllocationFailed, grow, square, try_grow};

/// Column-major `n×n` storage with leading dimension `n`, grow-only: the matrix before the
/// factorization, its factors after ([`super::Cholesky`], [`super::Ldlt`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct Square {
    /// Size of the current matrix.
    pub n: usize,
    /// At least `n·n` entries; the first `n·n` are the matrix.
    pub a: Vec<f64>,
}

impl Square {
    /// Makes sure `n×n` matrices need no further allocation.
    pub fn reserve(&mut self, n: usize) {
        grow(&mut self.a, n * n);
    }

    /// [`reserve`](Self::reserve) that reports allocation failure instead of aborting.
    pub fn try_reserve(&mut self, n: usize) -> Result<(), AllocationFailed> {
        try_grow(&mut self.a, square(n)?, 0.0)
    }

    /// The current matrix (or factors), column-major `n×n`.
    pub fn storage(&self) -> &[f64] {
        &self.a[..self.n * self.n]
    }

    /// Makes the current size `n` (growing the buffer if needed) and returns the `n·n` entries to
    /// fill; their previous contents are unspecified.
    pub fn storage_mut(&mut self, n: usize) -> &mut [f64] {
        self.reserve(n);
        self.n = n;
        &mut self.a[..n * n]
    }

    /// As [`storage_mut`](Self::storage_mut), viewed as the `n×n` matrix.
    pub fn matrix_mut(&mut self, n: usize) -> DMatrixViewMut<'_, f64> {
        DMatrixViewMut::from_slice(self.storage_mut(n), n, n)
    }
}
