//! Solver parameters: the engine iteration's relative tolerances (the defaults, `docs/ipm.md`
//! §11) and Dojo's options with the defaults of its code (§4 table, §7, §10 item 7) for the
//! reference iteration.

use super::IpmError;
use crate::coded::coded_enum;

coded_enum! {
    /// How the Newton system of every iteration is solved (`docs/ipm.md` §2.2).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum NewtonSolve {
        /// Option (b), code 0: eliminate every contact's small local block (partial-pivot LU of
        /// 2k×2k, k = 1/4/6) and factor the condensed `n×n` matrix `M + REG·I + Σ J_iᵀ D_i J_i` with a
        /// partial-pivot LU. Cost per iteration O(n²·nc + n³).
        #[default]
        0 => Condensed,
        /// Option (a), code 1: assemble the whole unsymmetric Newton matrix (size `n + 2·Σk`) and
        /// factor it with a partial-pivot LU. Reference path; only sensible for small problems.
        1 => Dense,
    }
    /// The variant with C code `code`, if any.
    pub fn from_code;
}

/// Parameters of [`super::IpmSolver`]. Plain scalars so a C struct of `double`/`int32_t` can
/// carry them (booleans as 0/1 flags).
///
/// Two iterations share the solver (`docs/ipm.md` §11):
/// * **engine** (the default, `dojo_compatible = false`, `fixed_kappa = 0`): Nesterov–Todd
///   scaled Mehrotra predictor–corrector on the velocity-level formulation, scaled start,
///   neighbourhood safeguard, convergence on the scale-invariant measures with `tolerance` and
///   `complementarity_tolerance`, best iterate returned on failure;
/// * **Dojo's reference** (`dojo_compatible = true`, or `fixed_kappa > 0`): the algorithm of
///   §3–§4 exactly, with the absolute tolerances `rtol`/`btol` and the options `max_ls`,
///   `undercut`, `no_progress_*`, `dojo_lagged_kappa`, `rvio_floor_in_backtracking`, which the
///   engine iteration ignores.
///
/// Units of the reference tolerances: `rtol` applies to the ∞-norm of the equality residuals,
/// which mix N·s (momentum rows), m (gap rows) and m/s (tangential-velocity rows); `btol` to the
/// ∞-norm of the raw complementarity products γ∘s (N·s·m for the normal pair, N·s·m/s for
/// friction). Dojo does no normalization (§5): with `btol = 1e-4` a resting body hovers at
/// ≈ btol/γ_n.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IpmParameters {
    /// Runs Dojo's reference iteration (§3–§4) with the absolute tolerances `rtol`/`btol` and
    /// Dojo's verdict, instead of the engine iteration. Default false.
    pub dojo_compatible: bool,
    /// Engine iteration: relative tolerance of the equality residuals (`docs/ipm.md` §11):
    /// `‖r_dyn‖∞ ≤ tol·P`, `‖velocity rows‖∞ ≤ tol·V`, `‖μγ_n − ξ_0‖∞ ≤ tol·P` with the momentum
    /// scale `P` and the velocity scale `V` of the problem. Default 1e-8; finite, > 0.
    pub tolerance: f64,
    /// Engine iteration: relative tolerance of the complementarity, `‖γ∘s‖∞ ≤ tol·P·V` (normal
    /// pair: impulse × predicted separating velocity `s_n = φ/h + J_n v`; friction pair: SOC
    /// product of impulse and velocity). Default 1e-6: a contact carrying the impulse γ_n may
    /// separate at up to 1e-6·P·V/γ_n m/s. Finite, > 0.
    pub complementarity_tolerance: f64,
    /// Reference iteration: tolerance on `rvio` (∞-norm of the equality residuals). Default
    /// 1e-6. Must be > 0.
    pub rtol: f64,
    /// Reference iteration: tolerance on `bvio` (∞-norm of the raw products γ∘s). Default 1e-4.
    /// Must be > 0.
    pub btol: f64,
    /// Maximum number of Newton iterations. Default 100 (the engine iteration's resting piles
    /// need up to ~60); [`IpmParameters::dojo`] sets Dojo's 50. At most
    /// [`IpmParameters::MAX_ITER_LIMIT`] (100 000): the iteration histories are reserved for all
    /// of them.
    pub max_iter: usize,
    /// Maximum number of backtracking steps (halvings) per iteration (engine iteration: of the
    /// neighbourhood safeguard). Default 10. Must be in `[1, MAX_LS_LIMIT]` (1000: the step
    /// `α/2^k` underflows to 0 near k = 1075, so more halvings only spin).
    pub max_ls: usize,
    /// The κ floor is `btol/undercut`. Default ∞ (floor 0). Must be > 0 (∞ allowed); the paper
    /// uses 5, gradient users 1 (§7).
    pub undercut: f64,
    /// Iterations without progress before `undercut` is multiplied by
    /// `no_progress_undercut`. Default 3.
    pub no_progress_max: usize,
    /// Factor applied to `undercut` after `no_progress_max` iterations without progress.
    /// Default 10. Must be ≥ 1.
    pub no_progress_undercut: f64,
    /// Dojo compatibility flag (§4 step 2): the predictor uses the previous iteration's κ
    /// target (Dojo's lagged residual) instead of κ = 0. Default false (textbook Mehrotra).
    pub dojo_lagged_kappa: bool,
    /// Fixed-κ mode for smooth gradients (§7), always on Dojo's formulation (reference
    /// iteration): when > 0, Newton's method on `r(w; κ) = 0` with this
    /// κ (N·s·m) instead of the predictor–corrector; termination on `rvio < rtol` and
    /// `‖γ∘s − κe‖∞ < btol`. Default 0 (off). Must be finite and ≥ 0.
    pub fixed_kappa: f64,
    /// Optional warm start of the contact variables (not Dojo behaviour, §3): when true and the
    /// previous solve had the same contact layout, start `(s, γ)` from its solution followed by
    /// the interior shift, instead of from the neutral vector. Default false.
    pub warm_start: bool,
    /// How the Newton system is solved. Default [`NewtonSolve::Condensed`].
    pub newton_solve: NewtonSolve,
    /// Not Dojo behaviour (§4 step 7 compares the candidate's `rvio` with the current one): when
    /// true, the backtracking counts a candidate's `rvio` as not worse while it stays at or below
    /// `max(rvio, 0.1·rtol)`. Without it, an iterate whose `rvio` sits at its round-off floor far
    /// below `rtol` accepts only steps that lower `bvio`; when the centring direction raises the
    /// largest product, every halving is rejected and the smallest step `α/2^(max_ls−1)` is taken,
    /// iteration after iteration (Siconos' `Capsules-i101-404`: 80 such iterations, 105 in all;
    /// 22 with this option). Default false. C: `cts_ipm_parameters::rvio_floor_in_backtracking`.
    pub rvio_floor_in_backtracking: bool,
    /// Engine iteration: Gondzio centrality correctors per iteration (`docs/ipm.md` §11.2): after
    /// Mehrotra's corrector, up to this many extra right-hand sides on the same factorization
    /// move every pair's product at a trial step into `[0.1·κ, 10·κ]`; a corrector is kept only
    /// if it lengthens the step by at least 0.01. Default 2 (`engine()`: 0); at most 10; 0 turns
    /// them off.
    pub centrality_correctors: usize,
    /// Engine iteration: initial proximal regularization of the impulse block, relative to the
    /// problem's `V/P` (1/kg) (`docs/ipm.md` §11.2): the Newton matrix's velocity-unit equality
    /// rows get `+δ_k` on the diagonal of their impulses, `δ_k = max(δ·10^-k, 1e-10)·V/P` at
    /// iteration k. It changes the direction, never the residual or the answer. Default 1e-2;
    /// finite, ≥ 0 (0 turns it off).
    pub proximal_regularization: f64,
    /// Engine iteration: normal compliance, relative to `V/P` (`docs/ipm.md` §11.3). 0 (the
    /// default) is hard contact. With `c > 0` every gap row reads `φ/h + J_n v + R_n γ_n − s_n = 0`
    /// with `R_n = c·V/P` (1/kg): a contact carrying the impulse γ_n ends the step penetrated by
    /// `h·R_n·γ_n`, a linear spring of stiffness `1/(h²R_n)`. This changes the problem (soft
    /// normal contact, friction stays exact Coulomb) and makes resting piles converge in ~10
    /// iterations (0.1 measured; §11.3); finite, ≥ 0.
    pub normal_compliance: f64,
    /// Engine iteration: stop early when the best merit has not fallen by 10 % for this many
    /// iterations, or when the step was below 1e-4 on 3 iterations in a row (`docs/ipm.md`
    /// §11.2); the best iterate is returned with [`super::IpmOutcome::AlmostConverged`] or
    /// [`super::IpmOutcome::Stalled`]. Default 20; 0 turns the exit off.
    pub stall_iterations: usize,
    /// Engine iteration: the near-rigid regularization of every contact's normal row, β
    /// (unitless; `docs/ipm.md` §11.7). 0 (the default) is hard contact. With β > 0 contact i's gap
    /// row gets the compliance `R_n,i = β²/(4π²)·w_i` (1/kg), `w_i = J_n,i M⁻¹ J_n,iᵀ` its normal
    /// Delassus diagonal (from the per-tree M blocks, O(contacts)): the contact acts as a spring
    /// whose period on its effective mass `1/w_i` is `β·h`, so only motion faster than β time steps
    /// is softened. At rest a contact whose load F (N) would accelerate its effective mass by
    /// `a = w_i·F` (m/s²; `a ≈ g` for a body resting on its own contacts) penetrates by
    /// `(β·h/2π)²·a`: 0.25 µm under g at h = 1 ms, β = 1. Adds to `normal_compliance`; friction
    /// stays exact Coulomb. [`IpmParameters::engine`] sets 1. Finite, ≥ 0.
    pub near_rigid_beta: f64,
    /// Engine iteration: tolerance of the scaled natural-map error (`docs/ipm.md` §11.8),
    /// `max_i ‖r̃_i − Π_K(r̃_i − (u_n + μ‖u_t‖, u_t))‖∞ ≤ tol·V` with the impulses in velocity units
    /// `r̃ = r·V/P` (second-order-cone and impact contacts; at the engine preset `u_n` includes the
    /// compliance `R γ_n`). `Converged` requires it besides `tolerance` and
    /// `complementarity_tolerance`. Default 1e-6; 0 turns the test off. Finite, ≥ 0.
    pub natural_map_tolerance: f64,
    /// Threads of a solve on block-sparse data (`docs/performance.md` §8): 0 or 1 (the default)
    /// solves on the caller's thread; `n ≥ 2` assembles, factors and solves the islands' condensed
    /// Newton matrices on the caller and `n − 1` worker threads that the solver object owns
    /// (started by the first such solve, kept until the count changes or the solver is dropped).
    /// Step lengths and residual norms stay reductions in a fixed order, so the results are
    /// bit-identical to the sequential solve. Dense data ignores it. In `[0, 256]`.
    pub num_threads: usize,
}

impl Default for IpmParameters {
    fn default() -> Self {
        Self {
            dojo_compatible: false,
            tolerance: 1e-8,
            complementarity_tolerance: 1e-6,
            rtol: 1e-6,
            btol: 1e-4,
            max_iter: 100,
            max_ls: 10,
            undercut: f64::INFINITY,
            no_progress_max: 3,
            no_progress_undercut: 10.0,
            dojo_lagged_kappa: false,
            fixed_kappa: 0.0,
            warm_start: false,
            newton_solve: NewtonSolve::Condensed,
            rvio_floor_in_backtracking: false,
            centrality_correctors: 2,
            proximal_regularization: 1e-2,
            normal_compliance: 0.0,
            stall_iterations: 20,
            near_rigid_beta: 0.0,
            natural_map_tolerance: 1e-6,
            num_threads: 0,
        }
    }
}

impl IpmParameters {
    /// Largest accepted `max_iter`.
    pub const MAX_ITER_LIMIT: usize = 100_000;
    /// Largest accepted `max_ls`.
    pub const MAX_LS_LIMIT: usize = 1000;
    /// Largest accepted `centrality_correctors`.
    pub const MAX_CORRECTORS: usize = 10;

    /// Dojo's reference iteration with Dojo's code defaults (§4 table): `rtol` 1e-6, `btol` 1e-4,
    /// `max_iter` 50.
    pub fn dojo() -> Self {
        Self { dojo_compatible: true, max_iter: 50, ..Self::default() }
    }

    /// The engine preset (`docs/ipm.md` §11.7): the engine iteration with the near-rigid
    /// regularization of every contact's normal row (`near_rigid_beta` = 1: contact oscillations
    /// faster than one time step are not resolved) and an exact Coulomb cone, without the
    /// natural-map test of the defaults (§11.8: it would cost 4 iterations on average on the engine
    /// states). `Converged` then means the regularized problem's residuals are met (§11.7 says what
    /// that is physically). No Gondzio correctors (`centrality_correctors` = 0): on the 70 engine
    /// states they save 1.5 iterations on average but cost more instructions than they save
    /// (§11.7, issue 29).
    pub fn engine() -> Self {
        Self { near_rigid_beta: 1.0, natural_map_tolerance: 0.0, centrality_correctors: 0, ..Self::default() }
    }

    /// The tight setting (`docs/ipm.md` §11.9): the engine iteration solved to the accuracy of
    /// Siconos' FC3D solvers. `Converged` requires the scaled natural-map error (§11.8) and the
    /// scaled equality residuals ≤ 1e-10 (the complementarity test stays at the defaults' 1e-6: a
    /// natural map of 1e-10 already bounds every product). Because `natural_map_tolerance ≤
    /// tolerance`, the solve also tries exact candidates ([`IpmParameters::tries_exact_candidates`]):
    /// a problem whose contacts all separate costs the factorization of M alone, one whose first
    /// guess (approaching contacts stick) is right one more, and during the iteration the modes of
    /// the iterate give a candidate that ends the solve once it passes the convergence test. One
    /// solve, continued from its own iterate; nothing restarts. `max_iter` 200.
    pub fn tight() -> Self {
        Self { tolerance: 1e-10, natural_map_tolerance: 1e-10, max_iter: 200, ..Self::default() }
    }

    /// Whether the engine iteration tries the exact candidates of §11.9 (an active-set solve of
    /// the contacts' modes, accepted only if it passes the convergence test): when the natural map
    /// is asked at least as tightly as the residuals (`0 < natural_map_tolerance ≤ tolerance`, as
    /// in [`IpmParameters::tight`]; not at the defaults or the engine preset), on hard contact
    /// without the linearized cone.
    pub fn tries_exact_candidates(&self) -> bool {
        !self.uses_reference_iteration()
            && self.natural_map_tolerance > 0.0
            && self.natural_map_tolerance <= self.tolerance
    }

    /// Whether the solve runs Dojo's reference iteration (`dojo_compatible` or fixed-κ mode).
    pub fn uses_reference_iteration(&self) -> bool {
        self.dojo_compatible || self.fixed_kappa > 0.0
    }

    /// Checks every field's domain.
    pub fn validate(&self) -> Result<(), IpmError> {
        let check = |what, value: f64, ok: bool, requirement| {
            if ok { Ok(()) } else { Err(IpmError::OutOfRange { what, value, requirement }) }
        };
        check(
            "tolerance",
            self.tolerance,
            self.tolerance > 0.0 && self.tolerance.is_finite(),
            "finite, > 0",
        )?;
        check(
            "complementarity_tolerance",
            self.complementarity_tolerance,
            self.complementarity_tolerance > 0.0 && self.complementarity_tolerance.is_finite(),
            "finite, > 0",
        )?;
        check("rtol", self.rtol, self.rtol > 0.0 && self.rtol.is_finite(), "finite, > 0")?;
        check("btol", self.btol, self.btol > 0.0 && self.btol.is_finite(), "finite, > 0")?;
        check("max_iter", self.max_iter as f64, self.max_iter <= Self::MAX_ITER_LIMIT, "[0, 100000]")?;
        check("max_ls", self.max_ls as f64, (1..=Self::MAX_LS_LIMIT).contains(&self.max_ls), "[1, 1000]")?;
        check("undercut", self.undercut, self.undercut > 0.0, "> 0 (infinity allowed)")?;
        check(
            "no_progress_undercut",
            self.no_progress_undercut,
            self.no_progress_undercut >= 1.0 && self.no_progress_undercut.is_finite(),
            "finite, >= 1",
        )?;
        check(
            "centrality_correctors",
            self.centrality_correctors as f64,
            self.centrality_correctors <= Self::MAX_CORRECTORS,
            "[0, 10]",
        )?;
        check(
            "proximal_regularization",
            self.proximal_regularization,
            self.proximal_regularization >= 0.0 && self.proximal_regularization.is_finite(),
            "finite, >= 0",
        )?;
        check(
            "normal_compliance",
            self.normal_compliance,
            self.normal_compliance >= 0.0 && self.normal_compliance.is_finite(),
            "finite, >= 0",
        )?;
        check(
            "stall_iterations",
            self.stall_iterations as f64,
            self.stall_iterations <= Self::MAX_ITER_LIMIT,
            "[0, 100000]",
        )?;
        check(
            "natural_map_tolerance",
            self.natural_map_tolerance,
            self.natural_map_tolerance >= 0.0 && self.natural_map_tolerance.is_finite(),
            "finite, >= 0",
        )?;
        check(
            "near_rigid_beta",
            self.near_rigid_beta,
            self.near_rigid_beta >= 0.0 && self.near_rigid_beta.is_finite(),
            "finite, >= 0",
        )?;
        check(
            "num_threads",
            self.num_threads as f64,
            self.num_threads <= crate::parallel::MAX_THREADS,
            "[0, 256]",
        )?;
        check(
            "fixed_kappa",
            self.fixed_kappa,
            self.fixed_kappa >= 0.0 && self.fixed_kappa.is_finite(),
            "finite, >= 0",
        )?;
        Ok(())
    }
}
