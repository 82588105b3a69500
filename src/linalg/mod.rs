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
pub(crate) use padded::{LineAligned, PaddedMatrix};
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

/// Whether every entry of `x` is finite and at least `min` (`f64::NEG_INFINITY`: finite only),
/// for the checks of input and output arrays outside a solve's SIMD dispatch (a set call's
/// values, a solve's outputs): `position` with a branch per entry took 7 instructions per entry,
/// nalgebra's iterator 35 (`docs/performance.md` §3 "The live loop"). Callers locate the
/// offending entry only when this fails.
///
/// Eight independent lanes in the dispatch: the lanes' sums are finite when every entry is (a
/// non-finite entry makes its lane's sum infinite or NaN); only a sum that overflowed on finite
/// entries, or a failure, takes the exact test entry by entry. The lower bound is each lane's
/// smallest entry.
pub(crate) fn all_finite_at_least(x: &[f64], min: f64) -> bool {
    const L: usize = 8;
    simd::dispatch_fn(
        #[inline(always)]
        || {
            let (mut sum, mut lo) = ([0.0f64; L], [f64::INFINITY; L]);
            let chunks = x.chunks_exact(L);
            let rest = chunks.remainder();
            if min == f64::NEG_INFINITY {
                for c in chunks {
                    for k in 0..L {
                        sum[k] += c[k];
                    }
                }
            } else {
                for c in chunks {
                    for k in 0..L {
                        sum[k] += c[k];
                        lo[k] = if c[k] < lo[k] { c[k] } else { lo[k] };
                    }
                }
            }
            for (k, &v) in rest.iter().enumerate() {
                sum[k] += v;
                lo[k] = if v < lo[k] { v } else { lo[k] };
            }
            let finite = sum.iter().fold(0.0, |s, &v| s + v * 0.0) == 0.0;
            let low = lo.iter().fold(f64::INFINITY, |m, &v| if v < m { v } else { m });
            // NaN fails both comparisons; the exact test decides the rest.
            (finite && low >= min) || x.iter().all(|&v| v.is_finite() && v >= min)
        },
    )
}

/// Position of the first entry of `x` that is not finite or is below `min` (`f64::NEG_INFINITY`:
/// not finite), for the input and output checks that name the offending entry: every entry tested
/// at once by [`all_finite_at_least`], the position looked up only on failure.
pub(crate) fn first_not_finite_at_least(x: &[f64], min: f64) -> Option<usize> {
    if all_finite_at_least(x, min) { None } else { x.iter().position(|&v| !(v.is_finite() && v >= min)) }
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

#[cfg(test)]
mod finite_tests {
    use super::all_finite_at_least;

    #[test]
    fn all_finite_at_least_sees_every_bad_entry_anywhere() {
        let inf = f64::NEG_INFINITY;
        for len in [0, 1, 7, 8, 9, 16, 23, 64, 65] {
            let clean: Vec<f64> = (0..len).map(|i| i as f64 * 0.25 + 1e-300).collect();
            assert!(all_finite_at_least(&clean, inf) && all_finite_at_least(&clean, 0.0), "{len}");
            for at in 0..len {
                for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -f64::NAN] {
                    let mut x = clean.clone();
                    x[at] = bad;
                    assert!(
                        !all_finite_at_least(&x, inf) && !all_finite_at_least(&x, 0.0),
                        "{len} {at} {bad}"
                    );
                }
                let mut x = clean.clone();
                x[at] = -1e-300;
                assert!(all_finite_at_least(&x, inf) && !all_finite_at_least(&x, 0.0), "{len} {at}");
                x[at] = -0.0;
                assert!(all_finite_at_least(&x, 0.0), "{len} {at}: -0 >= 0");
            }
        }
        // Finite entries whose lane sums overflow are still finite (the exact test decides).
        let big = vec![f64::MAX; 24];
        assert!(all_finite_at_least(&big, inf) && all_finite_at_least(&big, 0.0));
        let mixed: Vec<f64> = (0..24).map(|i| if i % 2 == 0 { f64::MAX } else { -f64::MAX }).collect();
        assert!(all_finite_at_least(&mixed, inf) && !all_finite_at_least(&mixed, 0.0));
    }
}
