//! # contact_solvers
//!
//! Contact solvers for rigid-body simulation, each faithful to the reference implementation users
//! already trust, as a Rust library and behind one opaque-handle C ABI
//! (`include/contact_solvers.h`, generated from [`ffi`]).
//!
//! | module | solver | reference |
//! |---|---|---|
//! | [`tamsi`] | compliant contact with regularized friction, Newton with the transition-aware limiter | Drake `TamsiSolver` |
//! | [`ipm`] | second-order-cone friction as a cone complementarity problem in impulses, Mehrotra predictor–corrector, solution sensitivities | Dojo |
//! | [`baraff`] | Baraff's pivoting contact forces (static and dynamic friction, bilateral and boxed rows), active-set impulses, consistency impulse | Baraff 1994 as modified in Darwin2K's `constraintSolver` |
//! | [`ffi`] | the C ABI (`include/contact_solvers.h`) over all solvers | `docs/c_api.md` |
//! | [`lcp`] | LCP solvers: Lemke (Moby, regularized, lexicographic), principal pivoting, unrevised Lemke | Drake `MobyLcpSolver`, `UnrevisedLemkeSolver` |
//! | [`rigid`] | rigid contact/friction/limit/bilateral constraint forces and impulses as LCPs, discretized time stepping | Drake `ConstraintSolver` |
//! | [`block_sparse`] | the block-sparse (per-tree) form of (M, J) and its islands, which TAMSI and the interior point take for large problems | MuJoCo trees, Drake SAP cliques |
//! | [`linalg`] | the dense kernels the solvers share (Eigen-compatible LDLᵀ, partial-pivot LU) and a block-sparse supernodal LU / LDLᵀ for large islands | Eigen; supernodal factorization |
//! | [`parallel`] | the worker pool a solver object owns for islands in parallel (`num_threads`) | – |
//!
//! ## Conventions (all modules)
//!
//! * Dense matrices are **column-major** (Eigen's, Fortran's, Julia's and MATLAB's layout) and are
//!   passed as nalgebra views ([`nalgebra::DMatrixView`]: unit row stride, any column stride, so a
//!   block of a larger matrix can be passed without a copy). Vectors are contiguous.
//! * SI units: velocities in m/s (or rad/s for angular coordinates), forces in N, time in s.
//! * Problem data is borrowed for the duration of a call; results stay in the solver's workspace
//!   and are read through accessors. Workspaces only grow, so repeated solves of problems of the
//!   same size allocate nothing.
//! * Usage errors are `thiserror` enums; solver outcomes (converged, iteration limit, …) are
//!   returned values, never errors.
//!
//! The only `unsafe` code of the crate lives in [`ffi`], the C ABI layer, and in [`parallel`]'s
//! worker pool (a borrowed job on long-lived threads, disjoint parts of a slice).

#![deny(unsafe_code)]
// `!(x > 0.0)` is true for NaN; the reference implementations rely on exactly that, so the
// negated comparisons are deliberate.
#![allow(clippy::neg_cmp_op_on_partial_ord)]
#![warn(missing_docs)]

pub mod baraff;
pub mod block_sparse;
mod coded;
pub mod ffi;
pub mod ipm;
pub mod lcp;
pub mod linalg;
pub mod parallel;
pub mod rigid;
pub mod tamsi;
