//! Baraff's pivoting contact-force algorithm as modified in Darwin2K's `constraintSolver`
//! (`docs/baraff.md`): contact forces with static (per-direction) and dynamic (`N − μQ`)
//! friction, bilateral and force-limited rows, collision impulses by an active set, the
//! consistency impulse for unbounded rays, and the iterative variant that applies it.
//!
//! # Entry points ([`BaraffSolver`])
//!
//! | call | spec | problem |
//! |---|---|---|
//! | [`BaraffSolver::solve`] | §3 `computeForces` | `A`, `b`, rows ([`MatrixProblem`]) |
//! | [`BaraffSolver::solve_model`] | §2 `composeMatrices` + §3 | `M`, `J`, rows, `τ − c` or `q̇` ([`ModelProblem`]) |
//! | [`BaraffSolver::consistency_impulse`] | §7 `computeConsistencyImpulse` | velocity-level [`ModelProblem`] + sticking contact |
//! | [`BaraffSolver::impulses_active_set`] | §8 `computeImpulse` | velocity-level [`ModelProblem`], bilateral/normal rows |
//! | [`BaraffSolver::solve_forces_iter`] | §7 `computeForcesIter` | a [`ConsistencyHost`] |
//!
//! Results stay in the solver and are read by accessors: [`BaraffSolver::forces`],
//! [`BaraffSolver::accelerations`], [`BaraffSolver::row_sets`], [`BaraffSolver::generalized`],
//! [`BaraffSolver::generalized_change`], [`BaraffSolver::sliding_friction_forces`],
//! [`BaraffSolver::composed_matrix`], [`BaraffSolver::composed_b`], [`BaraffSolver::stats`].
//!
//! # Row kinds ([`RowKind`], C codes `ROW_*`)
//!
//! | kind | code | force | acceleration |
//! |---|---|---|---|
//! | bilateral | 0 | free | `a = 0` |
//! | normal | 1 | `f ≥ 0` | `a ≥ 0`, `f a = 0` |
//! | friction {normal, μ} | 2 | `|f| ≤ μ f_normal` | interior ⇒ 0; `+μf_n` ⇒ `a ≤ 0`; `−μf_n` ⇒ `a ≥ 0` |
//! | boxed {lo, hi} | 3 | `lo ≤ f ≤ hi` | interior ⇒ 0; `hi` ⇒ `a ≤ 0`; `lo` ⇒ `a ≥ 0` |
//!
//! # Outcomes ([`BaraffOutcome`], C status codes 20..26)
//!
//! 20 solved, 21 inexact, 22 unbounded ray, 23 cycling, 24 pivot limit, 25 impulse iteration
//! limit, 26 solved after a frictionless fallback. Usage errors are [`BaraffError`]s.
//!
//! # Units and layouts
//!
//! SI units. Matrices are column-major nalgebra views (unit row stride, any column stride).
//! Forces in N (or N·m for angular rows), accelerations in m/s² (rad/s²); at velocity level
//! impulses in N·s and velocities in m/s. Rows are whatever the caller's Jacobian rows are: a
//! row's force is the multiplier of that row.
//!
//! # Allocation
//!
//! Every buffer is grow-only: once a solver has seen a problem size (or [`BaraffSolver::reserve`]
//! was called), solving problems up to that size allocates nothing.

mod compose;
mod error;
mod impulse;
mod iter;
mod outcome;
mod parameters;
mod pivot;
mod problem;
mod rows;
mod solver;
mod verify;

pub use error::BaraffError;
pub use iter::ConsistencyHost;
pub use outcome::{
    BARAFF_CYCLING, BARAFF_FRICTIONLESS_FALLBACK, BARAFF_INEXACT, BARAFF_ITERATION_LIMIT, BARAFF_PIVOT_LIMIT,
    BARAFF_SOLVED, BARAFF_UNBOUNDED_RAY, BaraffOutcome, BaraffStats, RowSet,
};
pub use parameters::BaraffParameters;
pub use problem::{Level, MatrixProblem, ModelProblem, Sliding, Stabilization};
pub use rows::{CodedRows, ROW_BILATERAL, ROW_BOXED, ROW_FRICTION, ROW_NORMAL, RowKind, Rows};
pub use solver::BaraffSolver;
