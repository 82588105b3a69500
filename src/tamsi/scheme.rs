//! The coupling scheme of a problem (`docs/tamsi.md` §1) and the problem data and results a
//! sensitivity is taken of (`docs/tamsi_sensitivities.md`): plain enums with their C codes. A leaf
//! (it imports nothing of the crate but [`crate::coded`]), so that the problem, the errors, the solver and the
//! sensitivities all name them without an import circle.

use std::fmt;

use crate::coded::coded_enum;

/// How normal forces are coupled to the velocities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CouplingScheme {
    /// Normal forces are given and held fixed (Drake Eq. 3).
    OneWay,
    /// Normal forces follow the compliant law `fn(vn)` (Drake Eq. 10).
    TwoWay,
}

impl fmt::Display for CouplingScheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CouplingScheme::OneWay => "one-way coupled",
            CouplingScheme::TwoWay => "two-way coupled",
        })
    }
}

coded_enum! {
    /// The problem data a sensitivity is taken with respect to (C: `CTS_TAMSI_SENSITIVITY_*`, the
    /// same codes). Column `j` of a sensitivity is the derivative with respect to entry `j` of the
    /// parameter; the other data are held fixed (in particular `p*` when `dt` changes).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum TamsiSensitivityParameter {
        /// `p*` (nv columns; N·s). `dv/dp* = J⁻¹`. Code 0.
        0 => PStar,
        /// One-way normal forces `fn` (nc columns; N). Code 1.
        1 => NormalForce,
        /// Two-way undamped normal forces `fn0` (nc columns; N). Code 2.
        2 => Fn0,
        /// Two-way stiffness `k` (nc columns; N/m). Code 3.
        3 => Stiffness,
        /// Two-way dissipation `d` (nc columns; s/m). Code 4.
        4 => Dissipation,
        /// Friction coefficients `μ` (nc columns; dimensionless). Code 5.
        5 => Mu,
        /// Time step `dt` (1 column; s), with `p*` held fixed: for `p* = M v⁰ + dt·τ` add
        /// `dv/dp* · τ`. Code 6.
        6 => TimeStep,
    }
    /// All parameters in code order.
    pub const ALL;
    /// The parameter with C code `code`, if any.
    pub fn from_code;
}

/// Number of parameters.
pub(super) const PARAMETERS: usize = TamsiSensitivityParameter::ALL.len();

impl TamsiSensitivityParameter {
    /// Whether this is problem data of `scheme` (`NormalForce` is one-way only; `Fn0`,
    /// `Stiffness` and `Dissipation` are two-way only).
    pub fn applies_to(self, scheme: CouplingScheme) -> bool {
        match self {
            Self::NormalForce => scheme == CouplingScheme::OneWay,
            Self::Fn0 | Self::Stiffness | Self::Dissipation => scheme == CouplingScheme::TwoWay,
            Self::PStar | Self::Mu | Self::TimeStep => true,
        }
    }

    /// Its number of entries (the columns of its sensitivities): nv, nc or 1.
    pub fn columns(self, nv: usize, nc: usize) -> usize {
        match self {
            Self::PStar => nv,
            Self::TimeStep => 1,
            _ => nc,
        }
    }

    /// Its name in the problem data.
    pub fn name(self) -> &'static str {
        match self {
            Self::PStar => "p_star",
            Self::NormalForce => "fn",
            Self::Fn0 => "fn0",
            Self::Stiffness => "stiffness",
            Self::Dissipation => "dissipation",
            Self::Mu => "mu",
            Self::TimeStep => "dt",
        }
    }
}

coded_enum! {
    /// A result whose sensitivities are available (C: one getter per output,
    /// `cts_tamsi_solver_get_{velocity,normal_force,friction_force}_sensitivity`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum TamsiSensitivityOutput {
        /// Generalized velocities `v` (nv rows; m/s or rad/s). Code 0.
        0 => Velocities,
        /// Normal forces `fn` (nc rows; N): the law `fn(vn)` two-way, the input one-way. Code 1.
        1 => NormalForces,
        /// Friction forces `ft` (2nc rows, two per contact; N). Code 2.
        2 => FrictionForces,
    }
    /// All outputs in code order.
    pub const ALL;
    /// The output with C code `code`, if any.
    pub fn from_code;
}

impl TamsiSensitivityOutput {
    /// Its number of entries (the rows of its sensitivities): nv, nc or 2nc.
    pub fn rows(self, nv: usize, nc: usize) -> usize {
        match self {
            Self::Velocities => nv,
            Self::NormalForces => nc,
            Self::FrictionForces => 2 * nc,
        }
    }
}
