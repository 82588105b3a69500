//! Outcomes of a solve (returned values, not errors) with their C status codes, per-row set
//! membership, and the statistics of the last solve (`docs/baraff.md` §12).
//!
//! Status codes are the C statuses: 0 (`CTS_STATUS_OK`) for a verified solution, 21..26 for the
//! other outcomes (the C API reserves 100+ for usage errors).

use crate::coded::coded_enum;

/// [`BaraffOutcome::Solved`]: every condition of §3.6 holds within the tolerance
/// (`CTS_STATUS_OK`).
pub const BARAFF_SOLVED: i32 = 0;
/// [`BaraffOutcome::Inexact`]: the algorithm finished but the worst violation exceeds the
/// tolerance (round-off in ill-conditioned problems, unresolved deferred/locked rows).
pub const BARAFF_INEXACT: i32 = 21;
/// [`BaraffOutcome::UnboundedRay`]: no event limits the step while driving a row (§7): with
/// sliding friction the signature of an inconsistent (Painlevé) configuration.
pub const BARAFF_UNBOUNDED_RAY: i32 = 22;
/// [`BaraffOutcome::Cycling`]: the cycling safeguards of §6 gave up (re-drive cap of locked and
/// deferred rows exceeded, or a run of zero-length pivots that the safeguards did not break).
pub const BARAFF_CYCLING: i32 = 23;
/// [`BaraffOutcome::PivotLimit`]: the global pivot cap was reached.
pub const BARAFF_PIVOT_LIMIT: i32 = 24;
/// [`BaraffOutcome::IterationLimit`]: the active-set impulse loop (§8) hit its iteration cap.
pub const BARAFF_ITERATION_LIMIT: i32 = 25;
/// [`BaraffOutcome::FrictionlessFallback`]: the iterative variant (§7) solved the forces only
/// after treating a sliding row as frictionless.
pub const BARAFF_FRICTIONLESS_FALLBACK: i32 = 26;

/// How a solve ended. Every variant leaves the current forces and accelerations readable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaraffOutcome {
    /// Code 0 (`CTS_STATUS_OK`): verified solution.
    Solved,
    /// Code 21: finished, worst violation above the tolerance.
    Inexact,
    /// Code 22: unbounded ray while driving `row`; the forces are those reached so far.
    UnboundedRay {
        /// The row being driven.
        row: usize,
    },
    /// Code 23: cycling safeguards exhausted.
    Cycling,
    /// Code 24: pivot cap reached.
    PivotLimit,
    /// Code 25: impulse active-set iteration cap reached (§8).
    IterationLimit,
    /// Code 26: iterative variant (§7) fell back to frictionless at `row` (and possibly more
    /// rows, see [`super::BaraffStats::frictionless_rows`]); the forces are verified.
    FrictionlessFallback {
        /// The first row made frictionless.
        row: usize,
    },
}

impl BaraffOutcome {
    /// The C status code (20..39).
    pub fn code(&self) -> i32 {
        match self {
            Self::Solved => BARAFF_SOLVED,
            Self::Inexact => BARAFF_INEXACT,
            Self::UnboundedRay { .. } => BARAFF_UNBOUNDED_RAY,
            Self::Cycling => BARAFF_CYCLING,
            Self::PivotLimit => BARAFF_PIVOT_LIMIT,
            Self::IterationLimit => BARAFF_ITERATION_LIMIT,
            Self::FrictionlessFallback { .. } => BARAFF_FRICTIONLESS_FALLBACK,
        }
    }

    /// True for [`BaraffOutcome::Solved`] only.
    pub fn is_solved(&self) -> bool {
        matches!(self, Self::Solved)
    }

    /// The row an unbounded ray or a fallback refers to.
    pub fn row(&self) -> Option<usize> {
        match self {
            Self::UnboundedRay { row } | Self::FrictionlessFallback { row } => Some(*row),
            _ => None,
        }
    }

    /// A static description of a status code; unknown codes get a generic text.
    pub fn describe(code: i32) -> &'static str {
        match code {
            BARAFF_SOLVED => "Baraff: solved",
            BARAFF_INEXACT => "Baraff: finished, violation above tolerance",
            BARAFF_UNBOUNDED_RAY => "Baraff: unbounded ray (inconsistent configuration)",
            BARAFF_CYCLING => "Baraff: cycling safeguards exhausted",
            BARAFF_PIVOT_LIMIT => "Baraff: pivot limit reached",
            BARAFF_ITERATION_LIMIT => "Baraff: impulse iteration limit reached",
            BARAFF_FRICTIONLESS_FALLBACK => "Baraff: solved after a frictionless fallback",
            _ => "Baraff: unknown status code",
        }
    }
}

coded_enum! {
    /// Which set a row ended in (§3.1). `repr(i32)`: the C layer copies these codes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum RowSet {
        /// `C`: acceleration condition held as an equality (interior friction, clamped normal,
        /// bilateral, boxed row strictly between its bounds).
        0 => Clamped,
        /// `NC`: unilateral normal with zero force and `a ≥ 0`.
        1 => Separating,
        /// `S+`: friction row at `+μ f_n` (so `a ≤ 0`), or boxed row at `hi`.
        2 => AtUpper,
        /// `S−`: friction row at `−μ f_n` (so `a ≥ 0`), or boxed row at `lo`.
        3 => AtLower,
        /// `R`: deferred row (force held fixed, or for friction at a fixed share of its normal's)
        /// that the final re-treatment left unresolved (§6).
        4 => Deferred,
        /// `L+`: friction/boxed row left locked at its upper bound (§6).
        5 => LockedUpper,
        /// `L−`: friction/boxed row left locked at its lower bound (§6).
        6 => LockedLower,
        /// `U`: not treated (the solve stopped early).
        #[default]
        7 => Untreated,
    }
}

/// Statistics of the last solve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BaraffStats {
    /// How it ended.
    pub outcome: BaraffOutcome,
    /// Pivots (steps) taken, over all drives and re-drives (and over all attempts of the
    /// iterative variant).
    pub pivots: usize,
    /// Worst violation of the §3.6 conditions, relative: acceleration (or velocity) violations
    /// divided by `max|b|`, force violations by `max|b| / max|A_ii|`.
    pub worst_violation: f64,
    /// Active-set iterations (§8 impulse loop only; 0 otherwise).
    pub iterations: usize,
    /// Consistency impulses applied by the iterative variant (§7; 0 otherwise).
    pub consistency_impulses: usize,
    /// Rows made frictionless by the iterative variant's fallback (0 otherwise).
    pub frictionless_rows: usize,
}

impl Default for BaraffStats {
    fn default() -> Self {
        Self {
            outcome: BaraffOutcome::Solved,
            pivots: 0,
            worst_violation: 0.0,
            iterations: 0,
            consistency_impulses: 0,
            frictionless_rows: 0,
        }
    }
}
