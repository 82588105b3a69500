//! How a `ConstraintSolver` solve ended (`docs/rigid.md` §5, §6), with its C status code.

use crate::coded::coded_enum;

coded_enum! {
    /// How a `ConstraintSolver` solve ended (a value, not an error). C status codes: `Solved` is
    /// `CTS_STATUS_OK` (0); failures are `CTS_STATUS_RIGID_LCP_UNSOLVABLE` (17) and
    /// `CTS_STATUS_RIGID_REGULARIZED_LCP_FAILED` (18), which [`RigidOutcome::code`] returns.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum RigidOutcome {
        /// Forces (impulses) are in [`ConstraintSolver::cf`](super::ConstraintSolver::cf).
        0 => Solved,
        /// The LCP was not solved to the acceptance test (Drake: "Unable to solve LCP- it may be
        /// unsolvable."); also a failed unrevised Lemke in `solve_discretized`.
        17 => LcpUnsolvable,
        /// The impact LCP failed and so did its progressive regularization (Drake:
        /// "Progressively regularized LCP solve failed.").
        18 => RegularizedLcpFailed,
    }
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
