//! Dense linear-algebra kernels shared by the solvers.
//!
//! Every factorization owns its storage, which grows but never shrinks: a caller assembles the
//! matrix in place through `matrix_mut(n)`, factors it, then solves as often as it needs. Once the
//! storage has reached a problem's size, nothing here allocates.
//!
//! * [`Ldlt`]: Eigen's `LDLT` (symmetric, diagonal pivoting, reads only the lower triangle) with
//!   its exact failure rules and pseudo-inverse solve (`docs/tamsi.md` §5.1).
//! * [`PartialPivLu`]: row partial-pivot LU that, like Eigen's `PartialPivLU`, never reports
//!   failure (`docs/tamsi.md` §5.2).
//! * [`BlockDiagLu`]: partial-pivot LU of many small dense blocks stored back to back (the
//!   interior-point solver's per-contact Newton blocks, `docs/ipm.md` §2.2).
//! * [`BlockSparseLu`], [`BlockSparseLdlt`]: sparse LU / LDLᵀ of a matrix made of dense blocks
//!   on a block pattern (the Newton matrix of a large contact island), symbolic analysis once
//!   per pattern, values assembled in place, pivoting inside supernodes.
//! * [`Cholesky`]: `L Lᵀ` of a symmetric positive definite matrix (mass matrices), failing on a
//!   non-positive pivot (`docs/baraff.md` §2).
//! * [`UpdatableQr`]: QR with O(k²) row/column insert and delete (Givens), for active-set
//!   pivoting on a changing square submatrix (`docs/baraff.md` §3.4).
//! * [`Cod`]: complete orthogonal decomposition, minimum-norm least-squares solve
//!   (`docs/rigid.md` §3.1).
//! * [`BasisInverse`]: explicit basis inverse with rank-1 column-replacement updates, for the
//!   pivoting LCP solvers (`docs/rigid.md` §8–9).
//!
//! * `PaddedMatrix`: a copy of a small matrix with columns padded to whole vectors, for
//!   products repeated many times per solve.
//! * [`scalar`]: `std::max`/`std::min` with C++ NaN semantics, positive part, step function.
//! * [`simd`]: runtime dispatch to AVX2 for kernels built for baseline x86-64.
//!
//! Storage is column-major, `n×n`, leading dimension `n`.

mod basis_inverse;
mod block_lu;
mod cholesky;
mod cod;
mod ldlt;
mod lu;
mod padded;
mod qr_update;
pub mod scalar;
pub mod simd;
mod sparse;
mod square;

pub use basis_inverse::BasisInverse;
pub use block_lu::BlockDiagLu;
pub use cholesky::{Cholesky, CholeskyFailure};
pub use cod::Cod;
pub use ldlt::{Ldlt, LdltFailure};
pub use lu::{BLOCKED_MIN_DIM, PartialPivLu, padded_dim};
pub(crate) use padded::PaddedMatrix;
pub use qr_update::UpdatableQr;
pub(crate) use sparse::grow_product_buffers;
pub use sparse::{
    BLOCK_SPARSE_MIN_DIM, BlockSparseLdlt, BlockSparseLu, BlockSparseStats, BlockViewMut, Reuse, SparseError,
};
pub(crate) use square::Square;

/// The tests' pseudo-random numbers: one 64-bit LCG, uniform in [−0.5, 0.5), so that the
/// factorizations' tests draw their matrices the same way.
#[cfg(test)]
pub(crate) mod test_rng {
    use nalgebra::DMatrix;

    /// The next number of the stream whose state is `s`.
    pub(crate) fn next(s: &mut u64) -> f64 {
        *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((*s >> 11) as f64 / (1u64 << 53) as f64) - 0.5
    }

    /// An `n×n` matrix filled in column-major order from the stream seeded with `seed`.
    pub(crate) fn matrix(n: usize, seed: u64) -> DMatrix<f64> {
        let mut s = seed;
        DMatrix::from_fn(n, n, |_, _| next(&mut s))
    }
}

/// A kernel's `with_capacity`: its default value, grown by `reserve`.
pub(crate) fn reserved<T: Default>(reserve: impl FnOnce(&mut T)) -> T {
    let mut t = T::default();
    reserve(&mut t);
    t
}

/// Whether every entry is finite, testing all of them: a fold the compiler vectorizes, where the
/// short-circuiting `all` tests one entry per branch (the same answer; the data is finite but on
/// failure). As `all` it was 2.5 % of a 3-contact FC3D solve's instructions (issues 29, 30).
/// `#[inline(always)]`: it runs inside its caller's SIMD dispatch.
#[inline(always)]
pub(crate) fn all_finite(x: &[f64]) -> bool {
    x.iter().fold(true, |ok, v| ok & v.is_finite())
}

/// Grows `v` to at least `len` elements (filled with zeros); never shrinks it.
pub(crate) fn grow(v: &mut Vec<f64>, len: usize) {
    if v.len() < len {
        v.resize(len, 0.0);
    }
}

/// Storage for a factorization could not be allocated (or its size overflows `usize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AllocationFailed;

/// [`grow`] that reports allocation failure instead of aborting.
pub(crate) fn try_grow<T: Clone>(v: &mut Vec<T>, len: usize, fill: T) -> Result<(), AllocationFailed> {
    if v.len() < len {
        v.try_reserve_exact(len - v.len()).map_err(|_| AllocationFailed)?;
        v.resize(len, fill);
    }
    Ok(())
}

/// `n·n`, or [`AllocationFailed`] when it overflows.
pub(crate) fn square(n: usize) -> Result<usize, AllocationFailed> {
    n.checked_mul(n).ok_or(AllocationFailed)
}
