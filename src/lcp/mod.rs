//! Linear complementarity problem solvers: Drake's `MobyLcpSolver` and `UnrevisedLemkeSolver`
//! (`docs/rigid.md` §8–9).
//!
//! Problem: find `z` with `w = M z + q`, `z ≥ 0`, `w ≥ 0`, `zᵀw = 0` ([`LcpProblem`]: `M`
//! column-major `n×n`, `q` length n; unitless).
//!
//! | solver | method | reference |
//! |---|---|---|
//! | [`MobyLcpSolver::solve_lemke`] | Lemke, covering vector `indicator(q < 0)`, Harris ratio test ([`LemkeVariant::Drake`]), or lexicographic anti-cycling Lemke ([`LemkeVariant::Lexicographic`]) | §8.2 |
//! | [`MobyLcpSolver::solve_lemke_regularized`] | Lemke on `M + 10ᵉ I` for growing e | §8.3 |
//! | [`MobyLcpSolver::solve_fast`] | Drumwright's principal pivoting | §8.4 |
//! | [`MobyLcpSolver::solve_fast_regularized`] | principal pivoting on `M + 10ᵉ I`, warm-started | §8.5 |
//! | [`UnrevisedLemkeSolver::solve`] | Lemke on index sets, all-ones covering vector, cycling-avoiding ties, warm start | §9 |
//!
//! Both Lemke implementations keep the basis inverse and update it by one rank-1 column
//! replacement per pivot (O(n²) per pivot, [`crate::linalg::BasisInverse`]) where Drake
//! refactors (O(n³)); pivot rules, tolerances and pivot counting are Drake's. Decisions that
//! hinge on the last bits are taken on a refined direction, and the final basis is factored
//! afresh, so the answers are as accurate as Drake's refactoring gives (see `lemke.rs`).
//!
//! **Truthful outcomes.** Every algorithm's [`LcpOutcome::Solved`] means the returned z passed
//! the residual test [`LcpResidual`] (`z ≥ −tol`, `w = M z + q ≥ −tol`, `|zᵢ wᵢ|` small, with
//! `tol = τ · n · max(‖q‖∞, max|Mᵢⱼ| · max(1, ‖z‖∞))`, τ = 1e-11 by default). Where Drake
//! returns `true` on a z that fails it, the outcome is [`LcpOutcome::ResidualTestFailed`] or
//! [`LcpOutcome::NonFiniteSolution`] and z stays readable; Drake's own verdict is
//! `drake_verdict()`, and the parameter `drake_compatible_verdict` makes it the outcome (a
//! non-finite z is never `Solved`). Problem data must be finite ([`LcpProblem::new`]).
//!
//! Outcomes are values ([`LcpOutcome`], C status codes 0, 10–16 and 27–28); usage errors are
//! [`LcpError`]. Results stay in the solver and are read with `z()`, `w()`, `num_pivots()`.
//!
//! Files: `solver.rs` holds [`MobyLcpSolver`] (over `lemke.rs` and `fast.rs`);
//! [`UnrevisedLemkeSolver`]'s methods are its algorithm, so it lives in its own `unrevised.rs`.

mod error;
mod fast;
mod lemke;
mod outcome;
mod parameters;
mod problem;
mod solver;
mod unrevised;

pub use error::LcpError;
pub use lemke::LemkeVariant;
pub use outcome::LcpOutcome;
pub use parameters::{
    MAX_REGULARIZATION_EXPONENT, MAX_REGULARIZATION_ROUNDS, MobyLcpParameters, RegularizationSchedule,
    UnrevisedLemkeParameters,
};
pub use problem::{
    DEFAULT_RESIDUAL_TOLERANCE, LcpProblem, LcpResidual, is_solution, moby_pivot_tolerance,
    moby_zero_tolerance, residual_test, unrevised_zero_tolerance,
};
pub use solver::MobyLcpSolver;
pub use unrevised::UnrevisedLemkeSolver;
