//! Dojo's primal–dual interior-point contact solver with second-order-cone friction, and the
//! sensitivities of its solution (`docs/ipm.md`).
//!
//! One time step of a rigid-body simulation is stated in generalized velocities
//! ([`IpmProblem`], §1.2): mass matrix `M`, pre-step velocity `v0`, force `τ`, time step `h`, and
//! per contact a signed gap `φ`, a normal row `J_n`, two tangent rows `J_t`, a friction
//! coefficient `μ` and a [`ContactModel`] (impact, second-order cone, linear pyramid). The
//! unknowns are the next velocity and the contact **impulses (N·s, not forces)**; the
//! predicted gap is `φ + h J_n v`.
//!
//! [`IpmSolver`] runs, by default, the **engine iteration** (`docs/ipm.md` §11): the same
//! problem with the gap row at velocity level, Nesterov–Todd scaled second-order-cone pairs, a
//! centred start and convergence tests scaled by the problem's momentum and velocity scales, the
//! best iterate by merit returned on failure. With [`IpmParameters::dojo_compatible`] (or fixed-κ
//! mode) it runs Dojo's algorithm exactly (§3–§4): reset of the cone variables to the
//! neutral vector and interior shift, Mehrotra predictor–corrector (textbook κ = 0 predictor by
//! default, Dojo's lagged κ behind [`IpmParameters::dojo_lagged_kappa`]), cone-aware
//! fraction-to-boundary, violation backtracking (accept unless both measures got worse),
//! undercut/no-progress logic, termination on `rvio < rtol` and `bvio < btol`. The Newton system
//! is solved dense or condensed onto the velocities ([`NewtonSolve`], §2.2); one factorization
//! serves predictor and corrector. [`IpmParameters::fixed_kappa`] switches to a fixed-κ Newton
//! solve (central-path point) for smooth gradients, and
//! [`IpmSolver::compute_sensitivities`] differentiates the solution w.r.t. `v0`, `τ`, `φ`, `μ`
//! by the implicit-function theorem (§7).
//!
//! ## Outcome codes ([`IpmOutcome::code`] = the C status)
//!
//! | code | outcome |
//! |---|---|
//! | 0 | [`IpmOutcome::Converged`] (engine: scaled residual ≤ `tolerance`, scaled complementarity ≤ `complementarity_tolerance`) |
//! | 41 | [`IpmOutcome::MaxIterationsReached`] (engine: the iterate of smallest merit; Dojo: the last iterate) |
//! | 42 | [`IpmOutcome::NonFiniteStep`] (engine: the iterate of smallest merit; Dojo: the last finite iterate) |
//! | 43 | [`IpmOutcome::AlmostConverged`] (engine: the best iterate is within 100× the tolerances, `docs/ipm.md` §11.2) |
//! | 44 | [`IpmOutcome::Stalled`] (engine: the stall exit, far from the tolerances) |
//!
//! ## Deliberate differences from Dojo
//!
//! * Constant Jacobians and the first-order gap prediction (G1) instead of Dojo's nonlinear
//!   maximal-coordinate gap (§1.2).
//! * Convergence test on `bvio < btol·(1 + 1e-6)` instead of `bvio < btol`: identical except
//!   at a central-path point with κ = btol (undercut = 1), which Dojo can never accept (§7
//!   caveat).
//! * Optional tangential velocity offset, optional warm start of the cone variables, fixed-κ
//!   mode, optional `rtol` floor in the backtracking's residual comparison
//!   ([`IpmParameters::rvio_floor_in_backtracking`]) (none of them on by default).

mod cone;
mod error;
mod form;
mod iteration;
mod model;
mod newton;
mod outcome;
mod parameters;
mod problem;
mod regularization;
mod sensitivity;
mod solver;

pub use error::IpmError;
pub use iteration::IpmWorkspace;
pub use model::ContactModel;
pub use outcome::{IpmOutcome, IpmStats};
pub use parameters::{IpmParameters, NewtonSolve};
pub use problem::{IpmData, IpmProblem};
pub use sensitivity::SensitivityParameter;
pub use solver::IpmSolver;
