//! Parameters of the `ConstraintSolver`: the compatibility switches for Drake HEAD's known defects
//! (`docs/rigid.md` §12, quirks Q1–Q4).

/// Parameters of [`ConstraintSolver`](super::ConstraintSolver): where Drake HEAD has a known
/// defect (§12), the correct behaviour is the default and Drake's is selected by a compatibility
/// switch. `Default` = all switches off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ConstraintSolverParameters {
    /// Q1: build the Delassus blocks with plain `M⁻¹` even when there are bilateral
    /// constraints (Drake HEAD) instead of the constrained inverse inertia `C` (§4).
    pub drake_inverse_inertia_blocks: bool,
    /// Q2: acceleration-level LCP, (fL, ·) row block = transpose of the (·, fL) column block,
    /// which drops the sliding-friction term of `L W (N − μQ)ᵀ` (§5.3).
    pub drake_limit_row_transpose: bool,
    /// Q3: discretized LCP, γ added twice (`h·block + (h+1)·γ`, `2γE`) instead of once
    /// (`h·block + γ`) (§7.2).
    pub drake_double_gamma: bool,
    /// Q4: acceleration-level "no force needed" exit returns an empty force vector (Drake
    /// zeroes the caller's, usually empty, vector) instead of zeros of length nc + nr + nu.
    pub drake_empty_fast_exit: bool,
}

impl ConstraintSolverParameters {
    /// Every compatibility switch on: Drake HEAD's numbers.
    pub const DRAKE_HEAD: Self = Self {
        drake_inverse_inertia_blocks: true,
        drake_limit_row_transpose: true,
        drake_double_gamma: true,
        drake_empty_fast_exit: true,
    };
}
