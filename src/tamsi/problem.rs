//! Problem data: borrowed views of the caller's arrays (`docs/tamsi.md` §1.2).

use nalgebra::{DMatrixView, DVectorView};

use super::{CouplingScheme, TamsiError};
use crate::block_sparse::BlockSparseSystem;
use crate::linalg::first_not_finite_at_least;

/// The per-contact normal-force data of either scheme.
#[derive(Debug, Clone, Copy)]
pub enum NormalForceData<'a> {
    /// One-way: the normal forces `fn` (N, ≥ 0), one per contact, held fixed.
    OneWay {
        /// Normal force per contact, N.
        fn_: DVectorView<'a, f64>,
    },
    /// Two-way: `fn(vn) = (1 − d·vn)₊ · (fn0 − dt·k·vn)₊` per contact (§3).
    TwoWay {
        /// Undamped normal force at the previous step, N (for point contact `k·x⁰`).
        fn0: DVectorView<'a, f64>,
        /// Normal stiffness `k`, N/m.
        stiffness: DVectorView<'a, f64>,
        /// Hunt–Crossley dissipation `d`, s/m.
        dissipation: DVectorView<'a, f64>,
    },
}

/// How M and the contact Jacobians are given.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ProblemData<'a> {
    /// Dense M (nv×nv), Jn (nc×nv), Jt (2nc×nv).
    Dense { m: DMatrixView<'a, f64>, jn: DMatrixView<'a, f64>, jt: DMatrixView<'a, f64> },
    /// Block-sparse by trees (`docs/block_sparse.md`).
    Blocks(BlockSparseSystem<'a>),
}

/// One TAMSI problem: `M v = p* + dt·Jnᵀ fn + dt·Jtᵀ ft(v)`, borrowed from the caller.
///
/// The data come in one of two forms, solved by the same iteration (`docs/tamsi.md` §7,
/// `docs/block_sparse.md` §4):
/// * **dense** ([`one_way`](Self::one_way), [`two_way`](Self::two_way)): Drake's layout below;
///   results bit-identical to Drake's compiled solver below 64 velocities;
/// * **block-sparse** ([`one_way_blocks`](Self::one_way_blocks),
///   [`two_way_blocks`](Self::two_way_blocks)): M one block per tree, each contact's rows one block
///   per tree it touches ([`BlockSparseSystem`]); the Newton matrix is assembled and factored per
///   island. Same iteration, same limiter, same convergence test: the iterates equal the dense
///   path's to round-off, except on trees that no contact touches, which are solved exactly
///   (`M_t v_t = p*_t`) once instead of being stepped with the global step factor α (the two agree
///   whenever some iteration takes α = 1).
///
/// Dense matrices are column-major nalgebra views with unit row stride and any column stride (a
/// `DMatrix` gives one with `.as_view()`; a block of a larger matrix works too). The data is only
/// read. Sizes, with `nv` generalized velocities and `nc` contacts:
///
/// | field | size | meaning |
/// |---|---|---|
/// | `M` | nv×nv | mass matrix, kg (or kg·m² for angular coordinates); **symmetric**: the one-way scheme factors only its lower triangle, as Drake does |
/// | `Jn` | nc×nv | normal separation-velocity Jacobian: `vn = Jn v`, positive when bodies separate |
/// | `Jt` | 2nc×nv | tangential-velocity Jacobian: rows 2i and 2i+1 give contact i's in-plane velocity |
/// | `p_star` | nv | momentum without contact forces `M v⁰ + dt τ`, N·s |
/// | `mu` | nc | friction coefficient per contact (static = dynamic) |
#[derive(Debug, Clone, Copy)]
pub struct TamsiProblem<'a> {
    pub(crate) data: ProblemData<'a>,
    pub(crate) p_star: DVectorView<'a, f64>,
    pub(crate) mu: DVectorView<'a, f64>,
    pub(crate) normal: NormalForceData<'a>,
}

impl<'a> TamsiProblem<'a> {
    /// One-way coupled data (Drake `SetOneWayCoupledProblemData`): `nc = fn_.len()`, and every
    /// other size must agree with `nv = p_star.len()` and `nc`.
    pub fn one_way(
        m: DMatrixView<'a, f64>,
        jn: DMatrixView<'a, f64>,
        jt: DMatrixView<'a, f64>,
        p_star: DVectorView<'a, f64>,
        fn_: DVectorView<'a, f64>,
        mu: DVectorView<'a, f64>,
    ) -> Result<Self, TamsiError> {
        let nc = fn_.len();
        let data = ProblemData::Dense { m, jn, jt };
        let problem = Self { data, p_star, mu, normal: NormalForceData::OneWay { fn_ } };
        problem.check_sizes(nc)?;
        Ok(problem)
    }

    /// Two-way coupled data (Drake `SetTwoWayCoupledProblemData`): `nc = fn0.len()`, and every
    /// other size must agree with `nv = p_star.len()` and `nc`.
    #[allow(clippy::too_many_arguments)]
    pub fn two_way(
        m: DMatrixView<'a, f64>,
        jn: DMatrixView<'a, f64>,
        jt: DMatrixView<'a, f64>,
        p_star: DVectorView<'a, f64>,
        fn0: DVectorView<'a, f64>,
        stiffness: DVectorView<'a, f64>,
        dissipation: DVectorView<'a, f64>,
        mu: DVectorView<'a, f64>,
    ) -> Result<Self, TamsiError> {
        let nc = fn0.len();
        let data = ProblemData::Dense { m, jn, jt };
        let problem =
            Self { data, p_star, mu, normal: NormalForceData::TwoWay { fn0, stiffness, dissipation } };
        problem.check_sizes(nc)?;
        check_len("stiffness", stiffness.len(), nc)?;
        check_len("dissipation", dissipation.len(), nc)?;
        Ok(problem)
    }

    /// One-way coupled data in block-sparse form: `system` holds M and the contacts' Jacobian
    /// blocks (rows normal, tangent 1, tangent 2; [`BlockSparseSystem`]); `p_star` (nv), `fn_`
    /// and `mu` (nc) as in [`one_way`](Self::one_way), in the system's dof and contact order.
    pub fn one_way_blocks(
        system: BlockSparseSystem<'a>,
        p_star: DVectorView<'a, f64>,
        fn_: DVectorView<'a, f64>,
        mu: DVectorView<'a, f64>,
    ) -> Result<Self, TamsiError> {
        let problem =
            Self { data: ProblemData::Blocks(system), p_star, mu, normal: NormalForceData::OneWay { fn_ } };
        problem.check_sizes(system.num_contacts())?;
        check_len("fn", fn_.len(), system.num_contacts())?;
        Ok(problem)
    }

    /// Two-way coupled data in block-sparse form: `system` as in
    /// [`one_way_blocks`](Self::one_way_blocks); `p_star` (nv), `fn0`, `stiffness`, `dissipation`
    /// and `mu` (nc) as in [`two_way`](Self::two_way).
    pub fn two_way_blocks(
        system: BlockSparseSystem<'a>,
        p_star: DVectorView<'a, f64>,
        fn0: DVectorView<'a, f64>,
        stiffness: DVectorView<'a, f64>,
        dissipation: DVectorView<'a, f64>,
        mu: DVectorView<'a, f64>,
    ) -> Result<Self, TamsiError> {
        let normal = NormalForceData::TwoWay { fn0, stiffness, dissipation };
        let problem = Self { data: ProblemData::Blocks(system), p_star, mu, normal };
        let nc = system.num_contacts();
        problem.check_sizes(nc)?;
        for (what, v) in [("fn0", fn0), ("stiffness", stiffness), ("dissipation", dissipation)] {
            check_len(what, v.len(), nc)?;
        }
        Ok(problem)
    }

    fn check_sizes(&self, nc: usize) -> Result<(), TamsiError> {
        let nv = self.p_star.len();
        match &self.data {
            ProblemData::Dense { m, jn, jt } => {
                check_shape("M", m.shape(), (nv, nv))?;
                check_shape("Jn", jn.shape(), (nc, nv))?;
                check_shape("Jt", jt.shape(), (2 * nc, nv))?;
            }
            ProblemData::Blocks(system) => check_len("p_star", nv, system.num_velocities())?,
        }
        check_len("mu", self.mu.len(), nc)
    }

    /// Checks the data's values (Drake does not): every entry finite, and `mu`, `fn` (one-way),
    /// `fn0`, `stiffness` and `dissipation` (two-way) `>= 0` (`docs/tamsi.md` §1.2). Reports the
    /// first offending entry. The C API calls it when data is set; Rust callers that take data
    /// from outside should too, since a NaN or infinity makes the solver's outputs NaN. Costs one
    /// pass over the data. Block-sparse M and J were checked when their [`BlockSparseSystem`] was
    /// made, so for that form only the vectors are read.
    pub fn validate(&self) -> Result<(), TamsiError> {
        const FINITE: &str = "finite";
        const NON_NEGATIVE: &str = "finite and >= 0";
        if let ProblemData::Dense { m, jn, jt } = &self.data {
            check_matrix("M", m)?;
            check_matrix("Jn", jn)?;
            check_matrix("Jt", jt)?;
        }
        check_vector("p_star", &self.p_star, FINITE, f64::NEG_INFINITY)?;
        check_vector("mu", &self.mu, NON_NEGATIVE, 0.0)?;
        match &self.normal {
            NormalForceData::OneWay { fn_ } => check_vector("fn", fn_, NON_NEGATIVE, 0.0),
            NormalForceData::TwoWay { fn0, stiffness, dissipation } => {
                check_vector("fn0", fn0, NON_NEGATIVE, 0.0)?;
                check_vector("stiffness", stiffness, NON_NEGATIVE, 0.0)?;
                check_vector("dissipation", dissipation, NON_NEGATIVE, 0.0)
            }
        }
    }

    /// Number of generalized velocities.
    pub fn num_velocities(&self) -> usize {
        self.p_star.len()
    }

    /// Number of contacts.
    pub fn num_contacts(&self) -> usize {
        self.mu.len()
    }

    /// The coupling scheme of this data.
    pub fn coupling_scheme(&self) -> CouplingScheme {
        match self.normal {
            NormalForceData::OneWay { .. } => CouplingScheme::OneWay,
            NormalForceData::TwoWay { .. } => CouplingScheme::TwoWay,
        }
    }
}

/// The first entry of `v` that is not finite or is below `min` ([`first_not_finite_at_least`],
/// vectorized: through nalgebra's iterator and `position` the checks of one set call were 7 % of
/// a warm live-loop step on the 50-box pile, `docs/performance.md` §3 "The live loop").
fn check_vector(
    what: &'static str,
    v: &DVectorView<'_, f64>,
    expected: &'static str,
    min: f64,
) -> Result<(), TamsiError> {
    let s = v.as_slice();
    match first_not_finite_at_least(s, min) {
        None => Ok(()),
        Some(i) => {
            Err(TamsiError::InvalidEntry { what, index: (i, 0), matrix: false, value: s[i], expected })
        }
    }
}

/// The first entry of `m`, in column-major order, that is not finite.
fn check_matrix(what: &'static str, m: &DMatrixView<'_, f64>) -> Result<(), TamsiError> {
    for (c, column) in m.column_iter().enumerate() {
        if let Some(r) = column.iter().position(|x| !x.is_finite()) {
            let value = column[r];
            return Err(TamsiError::InvalidEntry {
                what,
                index: (r, c),
                matrix: true,
                value,
                expected: "finite",
            });
        }
    }
    Ok(())
}

fn check_shape(what: &'static str, got: (usize, usize), want: (usize, usize)) -> Result<(), TamsiError> {
    if got == want {
        Ok(())
    } else {
        Err(TamsiError::DimensionMismatch {
            what,
            rows: want.0,
            cols: want.1,
            got_rows: got.0,
            got_cols: got.1,
        })
    }
}

pub(crate) fn check_len(what: &'static str, got: usize, want: usize) -> Result<(), TamsiError> {
    check_shape(what, (got, 1), (want, 1))
}
