//! The engine-agnostic per-step problem (`docs/ipm.md` §1.2), with M and J dense or in the
//! block-sparse form of `docs/block_sparse.md`, or a contact-space problem by its Delassus matrix
//! (§11.10).

use nalgebra::{DMatrixView, DVectorView};

use super::{ContactModel, IpmError};
use crate::block_sparse::BlockSparseSystem;

/// How M and the contact Jacobians of an [`IpmProblem`] are given (or, for a contact-space
/// problem, its Delassus matrix).
#[derive(Debug, Clone, Copy)]
pub enum IpmData<'a> {
    /// Dense matrices (nalgebra views: column-major, unit row stride, any column stride).
    Dense {
        /// Mass matrix `M`, n×n (kg, kg·m², ...), SPD. Read in full (not only a triangle).
        m: DMatrixView<'a, f64>,
        /// Normal Jacobian `J_n`, nc×n: row i maps `v` to contact i's normal velocity (m/s),
        /// positive when the bodies separate.
        jn: DMatrixView<'a, f64>,
        /// Tangent Jacobian `J_t`, 2nc×n: rows `2i`, `2i+1` map `v` to contact i's velocity along
        /// its orthonormal tangents `t1`, `t2` (m/s). Ignored for [`ContactModel::Impact`]
        /// contacts (but must be finite).
        jt: DMatrixView<'a, f64>,
    },
    /// Block-sparse by trees (`docs/block_sparse.md`): M one SPD block per tree, each contact's
    /// rows (normal, tangent 1, tangent 2: the dense `J_n` row i and `J_t` rows 2i, 2i+1) one
    /// block per tree it touches. The condensed Newton matrix is assembled, factored and solved
    /// per island; trees that no contact touches get `v_t = v0_t + M_t⁻¹ h τ_t` once, exactly, and
    /// take no part in the iteration (`docs/ipm.md` §11). Impact contacts' tangent rows are
    /// ignored. Only [`super::NewtonSolve::Condensed`] applies.
    Blocks(BlockSparseSystem<'a>),
    /// Contact space (`docs/ipm.md` §11.10): the problem `u = W r + q` of Siconos and FCLIB,
    /// given by its Delassus matrix `W` alone. The velocities `v` of the problem are then the
    /// contacts' local velocities (n = 3nc; contact i's normal, tangent 1, tangent 2 at
    /// `3i..3i + 3`, m/s), `M = I`, `J = I`, and the momentum rows read `v = v0 + hτ + W r`:
    /// set `v0 = q` (the contact velocities without contact impulses) and `τ = 0`, or split `q`
    /// between them; `φ/h` and `vt_offset` are still added to the normal and tangential
    /// velocities. With `M = I` the engine's momentum scale equals its velocity scale, so its
    /// measures take one impulse unit for one velocity unit (Siconos' own measure of these
    /// problems). The condensed Newton matrix `I + W·blkdiag(D_i)` has `W`'s block pattern and is
    /// factored sparse when `W` is block-sparse. Only [`super::NewtonSolve::Condensed`] applies.
    Delassus {
        /// `W`, 3nc × 3nc (m/s per N·s), any square matrix (need not be symmetric); a 3×3 block
        /// whose entries are all 0 is not stored (the block pattern is read from the values).
        w: DMatrixView<'a, f64>,
    },
}

/// One time step's contact problem in generalized velocities (`docs/ipm.md` §1.2), borrowed.
///
/// Unknowns: the next generalized velocity `v` (n) and, per contact, impulses (N·s, not forces)
/// with their dual slacks. At the solution (κ → 0)
///
/// ```text
/// M (v − v0) − h τ − Σ_i [ J_n,iᵀ γ_n,i + J_t,iᵀ b_i ] = 0                (R1)
/// 0 ≤ φ_i + h J_n,i v  ⟂  γ_n,i ≥ 0                                        (G1)
/// b_i = −μ_i γ_n,i v_t/|v_t| when sliding, |b_i| ≤ μ_i γ_n,i when sticking (SOC model)
/// ```
///
/// with `v_t = J_t,i v (+ vt_offset_i)`. M and J come dense or block-sparse ([`IpmData`]); both
/// forms run the same iteration, and their iterates agree to round-off (the block form solves
/// trees without contact directly). Vectors are nalgebra views.
#[derive(Debug, Clone, Copy)]
pub struct IpmProblem<'a> {
    /// M and the contact Jacobians, dense or block-sparse.
    pub data: IpmData<'a>,
    /// Pre-step generalized velocity `v0`, n (m/s, rad/s).
    pub v0: DVectorView<'a, f64>,
    /// Generalized non-contact force `τ`, n (N, N·m): gravity, Coriolis, controls, springs.
    pub tau: DVectorView<'a, f64>,
    /// Time step `h` (s), finite and > 0.
    pub h: f64,
    /// Signed gap `φ_i` at the current configuration (m), nc; may be slightly negative.
    pub phi: DVectorView<'a, f64>,
    /// Friction coefficient `μ_i ≥ 0`, nc. Ignored for impact contacts.
    pub mu: DVectorView<'a, f64>,
    /// Contact model of every contact, nc.
    pub models: &'a [ContactModel],
    /// Optional tangential velocity offset `o`, 2nc (m/s), added to `J_t v` (moving surfaces,
    /// conveyor belts; also what maps Siconos' global problems `u = Hᵀv + w`). An extension of the
    /// spec's problem; `None` means zero.
    pub vt_offset: Option<DVectorView<'a, f64>>,
}

impl IpmProblem<'_> {
    /// Number of generalized velocities `n`.
    pub fn num_velocities(&self) -> usize {
        match &self.data {
            IpmData::Dense { m, .. } => m.nrows(),
            IpmData::Blocks(system) => system.num_velocities(),
            IpmData::Delassus { w } => w.nrows(),
        }
    }

    /// Number of contacts `nc`.
    pub fn num_contacts(&self) -> usize {
        self.models.len()
    }

    /// Checks sizes, finiteness and domains.
    pub fn validate(&self) -> Result<(), IpmError> {
        let n = self.num_velocities();
        let nc = self.models.len();
        let dims = |what, rows: usize, cols: usize, er: usize, ec: usize| {
            if rows == er && cols == ec {
                Ok(())
            } else {
                Err(IpmError::DimensionMismatch { what, expected_rows: er, expected_cols: ec, rows, cols })
            }
        };
        match &self.data {
            IpmData::Dense { m, jn, jt } => {
                dims("M", m.nrows(), m.ncols(), n, n)?;
                dims("Jn", jn.nrows(), jn.ncols(), nc, n)?;
                dims("Jt", jt.nrows(), jt.ncols(), 2 * nc, n)?;
            }
            // The system's own values were checked finite when it was built.
            IpmData::Blocks(system) => dims("models", nc, 1, system.num_contacts(), 1)?,
            IpmData::Delassus { w } => dims("W", w.nrows(), w.ncols(), 3 * nc, 3 * nc)?,
        }
        dims("v0", self.v0.nrows(), 1, n, 1)?;
        dims("tau", self.tau.nrows(), 1, n, 1)?;
        dims("phi", self.phi.nrows(), 1, nc, 1)?;
        dims("mu", self.mu.nrows(), 1, nc, 1)?;
        if let Some(o) = &self.vt_offset {
            dims("vt_offset", o.nrows(), 1, 2 * nc, 1)?;
        }
        // By columns as slices, each tested by one reduction, the index looked for only on
        // failure: nalgebra's strided iterator was 1 % of a 3-contact FC3D solve (issue 30 item 5).
        fn check(what: &'static str, base: usize, x: &[f64]) -> Result<(), IpmError> {
            if crate::linalg::all_finite(x) {
                return Ok(());
            }
            let r = x.iter().position(|v| !v.is_finite()).unwrap_or(0);
            Err(IpmError::NonFinite { what, index: base + r })
        }
        fn finite(what: &'static str, m: DMatrixView<'_, f64>) -> Result<(), IpmError> {
            let rows = m.nrows();
            for (c, col) in m.column_iter().enumerate() {
                check(what, c * rows, col.as_slice())?;
            }
            Ok(())
        }
        if let IpmData::Dense { m, jn, jt } = &self.data {
            finite("M", *m)?;
            finite("Jn", *jn)?;
            finite("Jt", *jt)?;
        }
        if let IpmData::Delassus { w } = &self.data {
            finite("W", *w)?;
        }
        check("v0", 0, self.v0.as_slice())?;
        check("tau", 0, self.tau.as_slice())?;
        check("phi", 0, self.phi.as_slice())?;
        check("mu", 0, self.mu.as_slice())?;
        if let Some(o) = &self.vt_offset {
            check("vt_offset", 0, o.as_slice())?;
        }
        if !(self.h > 0.0 && self.h.is_finite()) {
            return Err(IpmError::OutOfRange { what: "h", value: self.h, requirement: "finite, > 0" });
        }
        if let Some(&mu) = self.mu.iter().find(|&&x| x < 0.0) {
            return Err(IpmError::OutOfRange { what: "mu", value: mu, requirement: ">= 0" });
        }
        Ok(())
    }
}
