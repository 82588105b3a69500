//! How an LCP solve ended, with its C status code.

use crate::coded::coded_enum;

coded_enum! {
    /// How an LCP solve ended. A returned value, not an error: the solver's `z()` then holds the
    /// zero vector (Drake's convention, PR #6947) unless stated otherwise.
    ///
    /// Status codes for the C ABI: `Solved` is `CTS_STATUS_OK` (0); the failures use the ranges
    /// 10–16 (Drake's failures) and 27–28 (answers that fail this crate's check), inside the 4–99
    /// range `docs/c_api.md` reserves for solver outcomes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum LcpOutcome {
        /// The algorithm reported success **and** the returned z passed the residual test
        /// ([`LcpResidual`](super::LcpResidual)); with `drake_compatible_verdict` set, only the former (Drake's verdict)
        /// and a finite z.
        0 => Solved,
        /// Lemke: no blocking variable for the entering column (ray termination, §8.2 step 5.4,
        /// §9.3 "unblocked").
        10 => RayTermination,
        /// Moby Lemke: the Harris ratio test left no candidate ("zero tolerance too low", §8.2 5.5).
        11 => ZeroToleranceTooLow,
        /// The pivot / iteration limit was reached (Moby Lemke: `min(1000, 50n)`, Fast: `2n`,
        /// unrevised: `50n`).
        12 => PivotLimit,
        /// Unrevised Lemke: its cycling counter ran out of tied candidates (§9.3 step 3).
        13 => CyclingDetected,
        /// Unrevised Lemke: a basis solve failed its residual check (§9.2).
        14 => LinearSolveFailed,
        /// Unrevised Lemke: the artificial variable left but `IsSolution` rejected the result
        /// (§9.4 step 7.3).
        15 => NotASolution,
        /// A regularized wrapper tried every shift without an accepted solution (§8.3 step 5).
        /// Moby's regularized wrappers leave the last attempt's `z` in place.
        16 => RegularizationFailed,
        /// The algorithm reported success (Drake would return `true`) but the returned z failed the
        /// residual test ([`LcpResidual`](super::LcpResidual)); z and w stay readable. A regularized wrapper returns it
        /// when the z it accepted for `M + 10ᵉ I` is not a solution of the LCP with `M`.
        27 => ResidualTestFailed,
        /// The algorithm reported success but z (or `w = M z + q`) has a NaN or ±inf entry (e.g.
        /// "fast" on a singular principal block). Never `Solved`, whatever the verdict flag; z and w
        /// stay readable.
        28 => NonFiniteSolution,
    }
}

impl LcpOutcome {
    /// The C ABI status code (see the type's docs).
    pub fn code(self) -> i32 {
        self as i32
    }

    /// `true` for [`LcpOutcome::Solved`].
    pub fn is_solved(self) -> bool {
        self == LcpOutcome::Solved
    }

    /// A static description.
    pub fn message(self) -> &'static str {
        match self {
            LcpOutcome::Solved => "LCP solved",
            LcpOutcome::RayTermination => "LCP: ray termination (no blocking variable)",
            LcpOutcome::ZeroToleranceTooLow => "LCP: ratio test found no candidate (zero tolerance too low)",
            LcpOutcome::PivotLimit => "LCP: pivot limit reached",
            LcpOutcome::CyclingDetected => "LCP: cycling detected",
            LcpOutcome::LinearSolveFailed => "LCP: basis solve failed its residual check",
            LcpOutcome::NotASolution => "LCP: terminated on a point that is not a solution",
            LcpOutcome::RegularizationFailed => "LCP: every regularization shift failed",
            LcpOutcome::ResidualTestFailed => "LCP: the solution failed the residual test",
            LcpOutcome::NonFiniteSolution => "LCP: the solution is not finite",
        }
    }
}
