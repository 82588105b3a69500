//! Solver parameters (Drake `TamsiSolverParameters`, `docs/tamsi.md` §8).

use super::TamsiError;

/// Parameters of the TAMSI Newton iteration. Defaults are Drake's.
///
/// Unlike Drake, the values are validated when set ([`TamsiParameters::validate`]); the domains
/// are those of `docs/c_api.md` §3.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TamsiParameters {
    /// Stiction tolerance `vs`, in m/s, `> 0` and finite. Friction saturates at `μ·fn` once the
    /// slip speed reaches about `vs`; below it friction acts like a stiff viscous force.
    /// Default `1e-4`.
    pub stiction_tolerance: f64,
    /// Maximum number of Newton updates, in `[0, MAX_ITERATIONS]` (100 000: the residual
    /// history is reserved for all of them when the parameters are set, so a solve never
    /// allocates for it). Success needs at most `max_iterations − 1` updates, because
    /// convergence is tested at the top of the next iteration (§7.1). Default 100.
    pub max_iterations: usize,
    /// Relative tolerance `rtol`, dimensionless, in `(0, 1)`. The iteration converges when both
    /// `‖Δvt‖` and `‖Δvn‖` fall below `rtol·vs` (m/s); `rtol·vs` is also the soft-norm
    /// regularization of the slip speed and the "≈ 0" threshold of the limiter. Default `1e-2`.
    ///
    /// Together with `stiction_tolerance`: `rtol·vs ≥ MIN_SOFT_NORM_REGULARIZATION` (2⁻⁵¹¹ ≈
    /// 1.49e-154 m/s). The soft slip speed is `sqrt(‖vt‖² + (rtol·vs)²)`; below that bound
    /// `(rtol·vs)²` underflows to zero (or loses its precision as a subnormal), and a contact at
    /// exactly zero slip gets the direction `vt/slip = 0/0 = NaN` (with `vs = 1e-200`, say).
    pub relative_tolerance: f64,
    /// Largest change of direction of a contact's tangential velocity per iteration, in radians,
    /// in `(0, π/2)` (limiter Case VI). Default `π/3`.
    pub theta_max: f64,
    /// Threads of a solve on block-sparse data (`docs/performance.md` §8): 0 or 1 (the default)
    /// solves on the caller's thread; `n ≥ 2` splits the per-contact, per-tree and per-island
    /// work over the caller and `n − 1` worker threads that the solver object owns (started by
    /// the first such solve, kept until the count changes or the solver is dropped). The
    /// limiter's α and the convergence test stay global reductions in contact order, so the
    /// iterates and results are bit-identical to the sequential solve. Dense data ignores it. In
    /// `[0, MAX_THREADS]` (256).
    pub num_threads: usize,
}

impl Default for TamsiParameters {
    fn default() -> Self {
        Self {
            stiction_tolerance: 1.0e-4,
            max_iterations: 100,
            relative_tolerance: 1.0e-2,
            // Drake's `M_PI / 3` (1.0471975511965976), not the correctly rounded π/3 one ulp above.
            theta_max: std::f64::consts::PI / 3.0,
            num_threads: 0,
        }
    }
}

impl TamsiParameters {
    /// Largest accepted `max_iterations`.
    pub const MAX_ITERATIONS: usize = 100_000;

    /// Smallest accepted product `relative_tolerance · stiction_tolerance` (m/s): 2⁻⁵¹¹, the
    /// square root of the smallest normal double, so that `(rtol·vs)²` in the soft norm of the
    /// slip speed is a normal number (see [`TamsiParameters::relative_tolerance`]).
    pub const MIN_SOFT_NORM_REGULARIZATION: f64 = 1.4916681462400413e-154;

    /// Checks every field against its domain (`docs/c_api.md` §3.1).
    pub fn validate(&self) -> Result<(), TamsiError> {
        let vs = self.stiction_tolerance;
        if !(vs > 0.0 && vs.is_finite()) {
            return Err(TamsiError::InvalidParameter {
                name: "stiction_tolerance",
                value: vs,
                domain: "finite and > 0",
            });
        }
        let rtol = self.relative_tolerance;
        if !(rtol > 0.0 && rtol < 1.0) {
            return Err(TamsiError::InvalidParameter {
                name: "relative_tolerance",
                value: rtol,
                domain: "(0, 1)",
            });
        }
        if !(rtol * vs >= Self::MIN_SOFT_NORM_REGULARIZATION) {
            return Err(TamsiError::InvalidParameter {
                name: "relative_tolerance * stiction_tolerance",
                value: rtol * vs,
                domain: ">= 2^-511 = 1.4916681462400413e-154 m/s (below it the soft norm of the slip speed underflows and friction becomes NaN)",
            });
        }
        if self.max_iterations > Self::MAX_ITERATIONS {
            return Err(TamsiError::InvalidParameter {
                name: "max_iterations",
                value: self.max_iterations as f64,
                domain: "[0, 100000]",
            });
        }
        if self.num_threads > crate::parallel::MAX_THREADS {
            return Err(TamsiError::InvalidParameter {
                name: "num_threads",
                value: self.num_threads as f64,
                domain: "[0, 256]",
            });
        }
        let theta = self.theta_max;
        if !(theta > 0.0 && theta < std::f64::consts::FRAC_PI_2) {
            return Err(TamsiError::InvalidParameter {
                name: "theta_max",
                value: theta,
                domain: "(0, pi/2)",
            });
        }
        Ok(())
    }
}
