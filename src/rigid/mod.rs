//! Drake's rigid-contact `ConstraintSolver` (`docs/rigid.md`): contact, friction, generic
//! unilateral (limit) and bilateral constraints solved as LCPs at the acceleration level
//! (forces), the velocity level (impulses) and as a discretized time-stepping problem.
//!
//! * Problem data: [`ConstraintAccelProblemData`] (§2.1) and [`ConstraintVelProblemData`]
//!   (§2.2), every Jacobian an [`Operator`] (dense column-major matrix, its transpose, or a
//!   callback `Fn(&[f64], &mut [f64])` — the shape a C function pointer with `void *user_data`
//!   takes) and `solve_inertia` an [`InertiaSolve`].
//! * Solver: [`ConstraintSolver`] — [`ConstraintSolver::solve_constraint_problem`] (§5),
//!   [`ConstraintSolver::solve_impact_problem`] (§6), the discretized LCP
//!   (`construct_base_discretized_time_lcp`, `update_discretized_time_lcp`,
//!   `populate_packed_constraint_forces_from_lcp_solution`, `solve_discretized`; §7), and
//!   post-processing (generalized force, acceleration, velocity change; §5.5, §6.7).
//! * 2-D convenience: [`calc_contact_forces_in_contact_frames`] (§10).
//!
//! Output layout (§2.3): the packed vector `cf = [fN (nc) | fF (nr) | fL (nu) | fG (nb)]`.
//!
//! Drake quirks (§12): corrected by default, Drake's behaviour through
//! [`ConstraintSolverParameters`] (Q1–Q4). Reproduced as specified: Q5 (no Lemke warm start),
//! Q6 (regularization loop bound), Q7 (Fast's index quirk), Q8 (regularized impact result not
//! re-verified; reported by [`ConstraintSolver::regularization_used`]). Q10: the linear-system
//! path can return negative normal/limit forces by design.

mod data;
mod engine;
mod frames;
mod operator;
mod solver;

pub use data::{ConstraintAccelProblemData, ConstraintVelProblemData, Dims};
pub use frames::{ContactProblem, calc_contact_forces_in_contact_frames};
pub use operator::{InertiaSolve, Operator, OperatorFn};
pub use solver::{ConstraintSolver, ConstraintSolverParameters};

/// How a `ConstraintSolver` solve ended (a value, not an error). C status codes: `Solved` is
/// `CTS_STATUS_OK` (0); failures are `CTS_STATUS_RIGID_LCP_UNSOLVABLE` (17) and
/// `CTS_STATUS_RIGID_REGULARIZED_LCP_FAILED` (18), which [`RigidOutcome::code`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum RigidOutcome {
    /// Forces (impulses) are in [`ConstraintSolver::cf`].
    Solved = 0,
    /// The LCP was not solved to the acceptance test (Drake: "Unable to solve LCP- it may be
    /// unsolvable."); also a failed unrevised Lemke in `solve_discretized`.
    LcpUnsolvable = 17,
    /// The impact LCP failed and so did its progressive regularization (Drake:
    /// "Progressively regularized LCP solve failed.").
    RegularizedLcpFailed = 18,
}

impl RigidOutcome {
    /// The C ABI status code.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// A static description.
    pub fn message(self) -> &'static str {
        match self {
            RigidOutcome::Solved => "constraint problem solved",
            RigidOutcome::LcpUnsolvable => "Unable to solve LCP- it may be unsolvable.",
            RigidOutcome::RegularizedLcpFailed => "Progressively regularized LCP solve failed.",
        }
    }
}

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
