//! How a solve ended ([`IpmOutcome`], with its C status code) and the statistics of the last solve
//! ([`IpmStats`]).

use crate::coded::coded_enum;

coded_enum! {
    /// How a solve ended. Codes 40..59 are the interior-point solver's range of the C API's status
    /// codes (0..3 TAMSI, 100+ usage errors).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum IpmOutcome {
        /// Code 0 (`CTS_STATUS_OK`). Engine iteration (`docs/ipm.md` §11): scaled residual ≤ `tolerance` and scaled
        /// complementarity ≤ `complementarity_tolerance`. Dojo's iteration: `rvio < rtol` and
        /// `bvio < btol` (fixed-κ mode: `‖γ∘s − κe‖∞ < btol`).
        0 => Converged,
        /// Code 41: `max_iter` iterations done without meeting the tolerances; results hold the
        /// iterate of smallest merit (engine iteration) or the last iterate (Dojo's "failed" status,
        /// §4 step 1).
        41 => MaxIterationsReached,
        /// Code 42: a Newton direction was not finite (singular or overflowing system, e.g. a
        /// singular `M`); results hold the iterate of smallest merit (engine) or the last finite
        /// iterate (Dojo).
        42 => NonFiniteStep,
        /// Code 43 (engine iteration only): the returned iterate (the best by merit) does not meet
        /// the tolerances but meets 100× them: scaled residual ≤ 100·`tolerance` and scaled
        /// complementarity ≤ 100·`complementarity_tolerance` (`docs/ipm.md` §11.2). The iteration
        /// ended at `max_iter`, on a non-finite direction or by the stall exit.
        43 => AlmostConverged,
        /// Code 44 (engine iteration only): the stall exit (`stall_iterations`) stopped the
        /// iteration before `max_iter` far from the tolerances; results hold the best iterate.
        44 => Stalled,
    }
}

impl IpmOutcome {
    /// The C status code: 0 for [`IpmOutcome::Converged`], else 41..44.
    pub fn code(self) -> i32 {
        self as i32
    }

    /// Whether the tolerances were met.
    pub fn is_success(self) -> bool {
        self == Self::Converged
    }
}

/// Summary of the last solve.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct IpmStats {
    /// Newton steps taken (predictor–corrector iterations).
    pub iterations: usize,
    /// Final `rvio`: ∞-norm of the momentum and equality residuals.
    pub rvio: f64,
    /// Final `bvio`: ∞-norm of the raw complementarity products γ∘s.
    pub bvio: f64,
    /// Last κ target (N·s·m); the fixed κ in fixed-κ mode; 0 before any iteration.
    pub kappa: f64,
    /// Iterations whose backtracking found no acceptable candidate (the smallest was taken).
    pub line_search_exhausted: usize,
    /// Accepted iterates with a cone variable not strictly interior (should stay 0, §9.A7).
    pub boundary_hits: usize,
    /// Engine iteration (`docs/ipm.md` §11): scaled equality residual of the returned iterate,
    /// `max(‖r_dyn‖∞/P, ‖velocity rows‖∞/V, ‖μγ_n − ξ_0‖∞/P)`. Reference iteration: 0.
    pub residual: f64,
    /// Engine iteration: scaled complementarity of the returned iterate, `‖γ∘s‖∞/(P·V)`.
    /// Reference iteration: 0.
    pub complementarity: f64,
    /// Engine iteration: merit of the returned iterate,
    /// `max(residual/tolerance, complementarity/complementarity_tolerance,
    /// natural_map/natural_map_tolerance)` (the last term only with a tolerance > 0); ≤ 1 exactly
    /// when converged. Reference iteration: 0.
    pub merit: f64,
    /// Engine iteration: momentum scale `P` (N·s) of the problem (`docs/ipm.md` §11). Reference: 0.
    pub momentum_scale: f64,
    /// Engine iteration: velocity scale `V` (m/s) of the problem. Reference: 0.
    pub velocity_scale: f64,
    /// Engine iteration: Gondzio centrality correctors kept, over all iterations (§11.2).
    pub centrality_correctors: usize,
    /// Engine iteration: scaled natural-map error of the returned iterate (`docs/ipm.md` §11.8):
    /// `max_i ‖r̃_i − Π_K(r̃_i − (u_n + μ‖u_t‖, u_t))‖∞ / V` with the impulses in velocity units
    /// `r̃ = r·V/P`, over the second-order-cone and impact contacts. Reference iteration: 0.
    pub natural_map: f64,
}
