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

mod engine;
mod error;
mod frames;
mod operator;
mod outcome;
mod parameters;
mod problem;
mod solver;

pub use error::RigidError;
pub use frames::{ContactProblem, calc_contact_forces_in_contact_frames};
pub use operator::{InertiaSolve, Operator, OperatorFn};
pub use outcome::RigidOutcome;
pub use parameters::ConstraintSolverParameters;
pub use problem::{ConstraintAccelProblemData, ConstraintVelProblemData, Dims};
pub use solver::ConstraintSolver;
