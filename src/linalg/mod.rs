//! Dense linear-algebra kernels shared by the solvers.
//!
//! Every factorization owns its storage, which grows but never shrinks: a caller assembles the
//! matrix in place through `matrix_mut(n)`, factors it, then solves as often as it needs. Once the
//! storage has reached a problem's size, nothing here allocates.
//!
//! * [`Ldlt`]: Eigen's `LDLT` (symmetric, diagonal pivoting, reads only the lower triangle) with
//!   its exact failure rules and pseudo-inverse solve (`specs/tamsi.md` §5.1).
//! * [`PartialPivLu`]: row partial-pivot LU that, like Eigen's `PartialPivLU`, never reports
//!   failure (`specs/tamsi.md` §5.2).
//! * [`Cod`]: complete orthogonal decomposition, minimum-norm least-squares solve
//!   (`specs/rigid.md` §3.1).
//! * [`BasisInverse`]: explicit basis inverse with rank-1 column-replacement updates, for the
//!   pivoting LCP solvers (`specs/rigid.md` §8–9).
//!
//! Storage is column-major, `n×n`, leading dimension `n`.

mod basis_inverse;
mod cod;
mod ldlt;
mod lu;

pub use basis_inverse::BasisInverse;
pub use cod::Cod;
pub use ldlt::{Ldlt, LdltFailure};
pub use lu::PartialPivLu;

/// Grows `v` to at least `len` elements (filled with zeros); never shrinks it.
pub(crate) fn grow(v: &mut Vec<f64>, len: usize) {
    if v.len() < len {
        v.resize(len, 0.0);
    }
}
