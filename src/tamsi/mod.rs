//! TAMSI: Drake's `TamsiSolver` (formerly `ImplicitStribeckSolver`), exact to Drake for `f64`.
//!
//! Compliant normal contact and regularized Coulomb friction, discretized implicitly in the
//! velocities and solved by Newton–Raphson with the transition-aware line-search limiter
//! ("TALS"). One-way coupling takes the normal forces as given; two-way coupling makes them
//! follow a compliant Hunt–Crossley law of the normal velocity. The specification is
//! `docs/tamsi.md`; iteration counts, residual histories and solutions match Drake 1.51.1's
//! compiled solver on Drake's own test cases and the benchmark problems.
//!
//! ```
//! use contact_solvers::tamsi::{TamsiProblem, TamsiSolver, TamsiOutcome};
//! use nalgebra::{DMatrix, DVector};
//!
//! // A 1-kg puck sliding at 1 m/s on the ground (nv = 2: vx, vy), one contact, 10 N of normal
//! // force held fixed (one-way coupling), μ = 0.5, dt = 10 ms.
//! let m = DMatrix::<f64>::identity(2, 2);
//! let jn = DMatrix::from_row_slice(1, 2, &[0.0, 0.0]);
//! let jt = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, 1.0]);
//! let v0 = DVector::from_vec(vec![1.0, 0.0]);
//! let p_star = &m * &v0;
//! let fn_ = DVector::from_vec(vec![10.0]);
//! let mu = DVector::from_vec(vec![0.5]);
//! let problem = TamsiProblem::one_way(
//!     m.as_view(), jn.as_view(), jt.as_view(), p_star.as_view(), fn_.as_view(), mu.as_view(),
//! )?;
//! let mut solver = TamsiSolver::new(2);
//! assert_eq!(solver.solve_with_guess(&problem, 0.01, v0.as_view())?, TamsiOutcome::Success);
//! // Sliding friction μ·fn = 5 N decelerates it by 0.05 m/s in one step.
//! assert!((solver.generalized_velocities()[0] - 0.95).abs() < 1e-9);
//! # Ok::<(), contact_solvers::tamsi::TamsiError>(())
//! ```

mod contact_blocks;
mod error;
mod form;
mod friction;
mod iteration;
mod limiter;
mod newton_matrix;
mod normal;
mod outcome;
mod parameters;
mod problem;
mod scheme;
mod sensitivity;
mod solver;

pub use error::TamsiError;
pub use friction::{ContactFriction, regularized_friction, regularized_friction_derivative};
pub use limiter::calc_alpha;
pub use normal::normal_force;
pub use outcome::{TamsiIterationStats, TamsiOutcome};
pub use parameters::TamsiParameters;
pub use problem::{NormalForceData, TamsiProblem};
pub use scheme::{CouplingScheme, TamsiSensitivityOutput, TamsiSensitivityParameter};
pub use sensitivity::TamsiGradient;
pub use solver::{INITIAL_CONTACT_CAPACITY, TamsiSolver};
