//! Linear operators of the problem data (`docs/rigid.md` §2, §13): a Jacobian product is given
//! either as a dense column-major matrix or as a callback, so a C layer can plug in a function
//! pointer with `void *user_data` and simulators can keep their sparse or implicit Jacobians.

use nalgebra::DMatrixView;

use super::RigidError;
use crate::linalg::Ldlt;

/// A callback `y = A x`: called with the input `x` and an output `y` that the solver has sized
/// to the operator's output dimension and zero-filled.
pub type OperatorFn<'a> = dyn Fn(&[f64], &mut [f64]) + 'a;

/// One linear map of the problem data (`N_mult`, `F_transpose_mult`, …).
#[derive(Clone, Copy, Default)]
pub enum Operator<'a> {
    /// Drake's default operator: a non-transpose product returns an empty vector, a transpose
    /// product a zero vector of length nv (§2.1). Here: the zero map of whatever size the
    /// problem dimensions imply.
    #[default]
    Zero,
    /// `y = A x` with a dense column-major `A` of shape (output dim)×(input dim).
    Matrix(DMatrixView<'a, f64>),
    /// `y = Aᵀ x` with a dense column-major `A` of shape (input dim)×(output dim) (so the
    /// Jacobian itself serves both `J_mult` and `J_transpose_mult`).
    TransposeOf(DMatrixView<'a, f64>),
    /// `y = A x` computed by the caller.
    Callback(&'a OperatorFn<'a>),
}

/// The first entry of `m` (of its lower triangle with `lower`), in column-major order, that is
/// not finite.
fn check_matrix(name: &'static str, m: &DMatrixView<'_, f64>, lower: bool) -> Result<(), RigidError> {
    for (c, column) in m.column_iter().enumerate() {
        let first = if lower { c.min(column.len()) } else { 0 };
        if let Some(r) = column.iter().skip(first).position(|x| !x.is_finite()) {
            let r = r + first;
            return Err(RigidError::InvalidEntry {
                what: name,
                index: (r, c),
                matrix: true,
                value: column[r],
                expected: "finite",
            });
        }
    }
    Ok(())
}

impl std::fmt::Debug for Operator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Operator::Zero => write!(f, "Zero"),
            Operator::Matrix(m) => write!(f, "Matrix({}×{})", m.nrows(), m.ncols()),
            Operator::TransposeOf(m) => write!(f, "TransposeOf({}×{})", m.nrows(), m.ncols()),
            Operator::Callback(_) => write!(f, "Callback"),
        }
    }
}

impl<'a> Operator<'a> {
    /// Checks a dense operator's shape against `out × inp`.
    pub(crate) fn check(&self, name: &'static str, out: usize, inp: usize) -> Result<(), RigidError> {
        let (r, c) = match self {
            Operator::Matrix(m) => (m.nrows(), m.ncols()),
            Operator::TransposeOf(m) => (m.ncols(), m.nrows()),
            _ => return Ok(()),
        };
        if (r, c) != (out, inp) {
            return Err(RigidError::OperatorShape {
                name,
                rows: r,
                cols: c,
                expected_rows: out,
                expected_cols: inp,
            });
        }
        match self {
            Operator::Matrix(m) | Operator::TransposeOf(m) => check_matrix(name, m, false),
            _ => Ok(()),
        }
    }

    /// `y = A x` (`y` is overwritten; shapes were checked by [`Operator::check`]).
    pub(crate) fn apply(&self, x: &[f64], y: &mut [f64]) {
        match self {
            Operator::Zero => y.fill(0.0),
            Operator::Matrix(m) => {
                // Columns of a unit-row-stride view are contiguous slices.
                y.fill(0.0);
                for (j, &xj) in x.iter().enumerate() {
                    let col = m.column(j);
                    for (yi, &a) in y.iter_mut().zip(col.as_slice()) {
                        *yi += a * xj;
                    }
                }
            }
            Operator::TransposeOf(m) => {
                for (i, yi) in y.iter_mut().enumerate() {
                    let col = m.column(i);
                    let mut s = 0.0;
                    for (&a, &xk) in col.as_slice().iter().zip(x) {
                        s += a * xk;
                    }
                    *yi = s;
                }
            }
            Operator::Callback(f) => {
                y.fill(0.0);
                if !y.is_empty() || !x.is_empty() {
                    f(x, y);
                }
            }
        }
    }
}

/// How to apply the inverse of the generalized inertia matrix (`solve_inertia`, §2.1).
#[derive(Clone, Copy, Default)]
pub enum InertiaSolve<'a> {
    /// Not set: solving is a usage error (Drake: `solve_inertia` must be set).
    #[default]
    Unset,
    /// The inertia matrix `M` itself (nv×nv, symmetric positive definite, column-major; only
    /// its lower triangle is read). The solver factors it (LDLᵀ) once per call.
    Matrix(DMatrixView<'a, f64>),
    /// The inverse `M⁻¹` (nv×nv, column-major).
    Inverse(DMatrixView<'a, f64>),
    /// A callback `x = M⁻¹ b` (input b, output x, both length nv).
    Callback(&'a OperatorFn<'a>),
}

impl std::fmt::Debug for InertiaSolve<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InertiaSolve::Unset => write!(f, "Unset"),
            InertiaSolve::Matrix(m) => write!(f, "Matrix({}×{})", m.nrows(), m.ncols()),
            InertiaSolve::Inverse(m) => write!(f, "Inverse({}×{})", m.nrows(), m.ncols()),
            InertiaSolve::Callback(_) => write!(f, "Callback"),
        }
    }
}

impl<'a> InertiaSolve<'a> {
    /// Validates the shape and, for [`InertiaSolve::Matrix`], factors M into `ldlt`.
    pub(crate) fn prepare(&self, nv: usize, ldlt: &mut Ldlt) -> Result<(), RigidError> {
        match self {
            InertiaSolve::Unset => Err(RigidError::MissingInertiaSolve),
            InertiaSolve::Matrix(m) | InertiaSolve::Inverse(m) => {
                if m.shape() != (nv, nv) {
                    return Err(RigidError::OperatorShape {
                        name: "solve_inertia",
                        rows: m.nrows(),
                        cols: m.ncols(),
                        expected_rows: nv,
                        expected_cols: nv,
                    });
                }
                // Only M's lower triangle is read; M⁻¹ is read whole.
                check_matrix("solve_inertia", m, matches!(self, InertiaSolve::Matrix(_)))?;
                if let InertiaSolve::Matrix(m) = self {
                    ldlt.matrix_mut(nv).copy_from(m);
                    ldlt.factor().map_err(|_| {
                        RigidError::InvalidArgument("inertia matrix M is not factorable (LDLT failed)")
                    })?;
                }
                Ok(())
            }
            InertiaSolve::Callback(_) => Ok(()),
        }
    }

    /// `x = M⁻¹ b` (after [`InertiaSolve::prepare`]).
    pub(crate) fn apply(&self, ldlt: &Ldlt, b: &[f64], x: &mut [f64]) {
        match self {
            InertiaSolve::Unset => x.fill(0.0),
            InertiaSolve::Matrix(_) => {
                x.copy_from_slice(b);
                ldlt.solve_in_place(x);
            }
            InertiaSolve::Inverse(m) => Operator::Matrix(*m).apply(b, x),
            InertiaSolve::Callback(f) => {
                x.fill(0.0);
                if !x.is_empty() {
                    f(b, x);
                }
            }
        }
    }
}
