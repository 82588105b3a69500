//! Parameters of the LCP solvers, with Drake's defaults (`docs/rigid.md` §8.1, §9.4): those of
//! [`MobyLcpSolver`](super::MobyLcpSolver) with its regularization schedules, and those of
//! [`UnrevisedLemkeSolver`](super::UnrevisedLemkeSolver).

use super::{DEFAULT_RESIDUAL_TOLERANCE, LcpError, LemkeVariant};

/// Parameters of [`MobyLcpSolver`](super::MobyLcpSolver). `Default` = Drake's defaults
/// (automatic tolerances, Drake's pivoting rules).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MobyLcpParameters {
    /// Lemke's pivot tolerance: a ratio-test candidate needs `dⱼ > pivot_tolerance`. `≤ 0`:
    /// automatic, `n · max(1, max|Mᵢⱼ|) · eps` (§8.1). Default −1.
    pub pivot_tolerance: f64,
    /// Zero tolerance. Lemke and the regularized wrappers: `≤ 0` means automatic,
    /// `n · max|Mᵢⱼ| · 10 eps`; Fast: `< 0` means automatic (0 is a valid tolerance there).
    /// Default −1.
    pub zero_tolerance: f64,
    /// Lemke's pivoting rules. Default [`LemkeVariant::Drake`].
    pub variant: LemkeVariant,
    /// Lemke's pivot limit; 0 = the variant's default ([`LemkeVariant::default_max_pivots`]:
    /// `min(1000, 50n)` for Drake's rules, `max(10000, 50n)` for the lexicographic rule).
    /// Default 0.
    pub max_pivots: usize,
    /// Lemke refactors its basis inverse after this many rank-1 updates; 0 = `max(2n, 50)`; 1 is
    /// Drake's arithmetic (a fresh LU at every pivot, O(n³) each). Default 0.
    pub refactor_interval: usize,
    /// Relative tolerance `τ` of the residual test ([`LcpResidual`](super::LcpResidual)) every
    /// returned z must pass to be `Solved`; `≤ 0` means [`DEFAULT_RESIDUAL_TOLERANCE`]. Default −1.
    pub residual_tolerance: f64,
    /// `true`: `Solved` whenever Drake's algorithm returns `true` (the artificial left the
    /// basis, "fast" terminated, the regularized wrapper's own acceptance test held) and z is
    /// finite, bit for bit Drake's verdict; `false` (default): `Solved` only when z also passes
    /// the residual test. [`MobyLcpSolver::drake_verdict`](super::MobyLcpSolver::drake_verdict)
    /// reports Drake's verdict either way.
    pub drake_compatible_verdict: bool,
}

impl Default for MobyLcpParameters {
    fn default() -> Self {
        Self {
            pivot_tolerance: -1.0,
            zero_tolerance: -1.0,
            variant: LemkeVariant::Drake,
            max_pivots: 0,
            refactor_interval: 0,
            residual_tolerance: -1.0,
            drake_compatible_verdict: false,
        }
    }
}

impl MobyLcpParameters {
    /// Rejects non-finite tolerances.
    pub fn validate(&self) -> Result<(), LcpError> {
        for (name, x) in [
            ("pivot_tolerance", self.pivot_tolerance),
            ("zero_tolerance", self.zero_tolerance),
            ("residual_tolerance", self.residual_tolerance),
        ] {
            if !x.is_finite() {
                return Err(LcpError::InvalidParameter(format!(
                    "{name} = {x}, expected a finite value (<= 0 means automatic)"
                )));
            }
        }
        Ok(())
    }

    /// The residual test's `τ` these parameters stand for.
    pub fn resolved_residual_tolerance(&self) -> f64 {
        if self.residual_tolerance > 0.0 { self.residual_tolerance } else { DEFAULT_RESIDUAL_TOLERANCE }
    }
}

/// Largest `|exponent|` of a regularization shift `10^e` (`10^±300` are finite and nonzero).
pub const MAX_REGULARIZATION_EXPONENT: i32 = 300;

/// Most shifts a regularization schedule may try (Drake's schedules try 21, 10 and 17).
pub const MAX_REGULARIZATION_ROUNDS: i32 = 100;

/// Shifts `10^e · I` tried by a regularized wrapper: `e = min_exp, min_exp + step_exp, …` while
/// `e < max_exp` (Drake's loop bound: `10^max_exp` itself is never tried, quirk Q6).
///
/// Bounds (so that no schedule runs without end, e.g. a 1×1 solve for minutes):
/// `|min_exp|, |max_exp| ≤ 300` ([`MAX_REGULARIZATION_EXPONENT`]), `step_exp ≥ 1`, and at most
/// 100 shifts ([`MAX_REGULARIZATION_ROUNDS`]: `⌈(max_exp − min_exp)/step_exp⌉ ≤ 100`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegularizationSchedule {
    /// First exponent.
    pub min_exp: i32,
    /// Exponent increment, > 0.
    pub step_exp: i32,
    /// Exclusive upper bound of the exponent.
    pub max_exp: i32,
}

impl RegularizationSchedule {
    /// `SolveLcpLemkeRegularized`'s defaults: −20, 1, 1 (shifts 10⁻²⁰ … 10⁰).
    pub const LEMKE_DEFAULT: Self = Self { min_exp: -20, step_exp: 1, max_exp: 1 };
    /// `SolveLcpFastRegularized`'s defaults: −20, 4, 20 (shifts 10⁻²⁰, 10⁻¹⁶, …, 10¹⁶).
    pub const FAST_DEFAULT: Self = Self { min_exp: -20, step_exp: 4, max_exp: 20 };
    /// The impact solver's schedule (§6.4): −16, 1, 1.
    pub const IMPACT: Self = Self { min_exp: -16, step_exp: 1, max_exp: 1 };

    /// Checks the bounds of the type's docs.
    pub fn validate(&self) -> Result<(), LcpError> {
        self.validate_as("")
    }

    /// [`RegularizationSchedule::validate`] with the field names prefixed (e.g. `"lemke_"`).
    pub fn validate_as(&self, prefix: &str) -> Result<(), LcpError> {
        let bad = |what: String| Err(LcpError::InvalidParameter(what));
        for (name, e) in [("min_exp", self.min_exp), ("max_exp", self.max_exp)] {
            if e.unsigned_abs() > MAX_REGULARIZATION_EXPONENT as u32 {
                return bad(format!(
                    "{prefix}{name} = {e}, expected |{prefix}{name}| <= {MAX_REGULARIZATION_EXPONENT}"
                ));
            }
        }
        if self.step_exp < 1 {
            return bad(format!("{prefix}step_exp = {}, expected >= 1", self.step_exp));
        }
        if self.rounds() > MAX_REGULARIZATION_ROUNDS {
            return bad(format!(
                "{prefix}min_exp = {}, {prefix}step_exp = {}, {prefix}max_exp = {} try {} shifts, expected at \
                 most {MAX_REGULARIZATION_ROUNDS}",
                self.min_exp,
                self.step_exp,
                self.max_exp,
                self.rounds()
            ));
        }
        Ok(())
    }

    /// Number of shifts tried, `⌈(max_exp − min_exp)/step_exp⌉` (0 when `min_exp ≥ max_exp`).
    /// Exponents must be within the bounds (no overflow: computed in i64).
    pub fn rounds(&self) -> i32 {
        let span = i64::from(self.max_exp) - i64::from(self.min_exp);
        if span <= 0 || self.step_exp < 1 {
            return 0;
        }
        let step = i64::from(self.step_exp);
        ((span + step - 1) / step).min(i64::from(i32::MAX)) as i32
    }
}

/// Parameters of [`UnrevisedLemkeSolver`](super::UnrevisedLemkeSolver). `Default` = Drake's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnrevisedLemkeParameters {
    /// Zero tolerance; `≤ 0` means automatic, `n · max|Mᵢⱼ| · 2.2 eps` (§9.4). Default −1.
    pub zero_tolerance: f64,
    /// The basis inverse is refactored after this many updates; 0 = `max(2n, 50)`. Default 0.
    pub refactor_interval: usize,
    /// Relative tolerance `τ` of the residual test ([`LcpResidual`](super::LcpResidual)); `≤ 0`
    /// means [`DEFAULT_RESIDUAL_TOLERANCE`]. Default −1.
    pub residual_tolerance: f64,
    /// `true`: `Solved` on Drake's verdict alone (`IsSolution`, and a finite z); `false`
    /// (default): z must also pass the residual test.
    pub drake_compatible_verdict: bool,
}

impl Default for UnrevisedLemkeParameters {
    fn default() -> Self {
        Self {
            zero_tolerance: -1.0,
            refactor_interval: 0,
            residual_tolerance: -1.0,
            drake_compatible_verdict: false,
        }
    }
}

impl UnrevisedLemkeParameters {
    /// Rejects non-finite tolerances.
    pub fn validate(&self) -> Result<(), super::LcpError> {
        for (name, x) in
            [("zero_tolerance", self.zero_tolerance), ("residual_tolerance", self.residual_tolerance)]
        {
            if !x.is_finite() {
                return Err(super::LcpError::InvalidParameter(format!(
                    "{name} = {x}, expected a finite value (<= 0 means automatic)"
                )));
            }
        }
        Ok(())
    }
}
