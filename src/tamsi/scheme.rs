//! The coupling scheme of a problem (`docs/tamsi.md` §1) and the problem data and results a
//! sensitivity is taken of (`docs/tamsi_sensitivities.md`): plain enums with their C codes. A leaf
//! (it imports nothing of the crate), so that the problem, the errors, the solver and the
//! sensitivities all name them without an import circle.

use std::fmt;

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

/// The problem data a sensitivity is taken with respect to (C: `CTS_TAMSI_SENSITIVITY_*`, the
/// same codes). Column `j` of a sensitivity is the derivative with respect to entry `j` of the
/// parameter; the other data are held fixed (in particular `p*` when `dt` changes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum TamsiSensitivityParameter {
    /// `p*` (nv columns; N·s). `dv/dp* = J⁻¹`. Code 0.
    PStar = 0,
    /// One-way normal forces `fn` (nc columns; N). Code 1.
    NormalForce = 1,
    /// Two-way undamped normal forces `fn0` (nc columns; N). Code 2.
    Fn0 = 2,
    /// Two-way stiffness `k` (nc columns; N/m). Code 3.
    Stiffness = 3,
    /// Two-way dissipation `d` (nc columns; s/m). Code 4.
    Dissipation = 4,
    /// Friction coefficients `μ` (nc columns; dimensionless). Code 5.
    Mu = 5,
    /// Time step `dt` (1 column; s), with `p*` held fixed: for `p* = M v⁰ + dt·τ` add
    /// `dv/dp* · τ`. Code 6.
    TimeStep = 6,
}

/// Number of parameters.
pub(super) const PARAMETERS: usize = 7;

impl TamsiSensitivityParameter {
    /// All parameters in code order.
    pub const ALL: [Self; PARAMETERS] = [
        Self::PStar,
        Self::NormalForce,
        Self::Fn0,
        Self::Stiffness,
        Self::Dissipation,
        Self::Mu,
        Self::TimeStep,
    ];

    /// The parameter with C code `code`, if any.
    pub fn from_code(code: i32) -> Option<Self> {
        Self::ALL.get(usize::try_from(code).ok()?).copied()
    }

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

/// A result whose sensitivities are available (C: one getter per output,
/// `cts_tamsi_solver_get_{velocity,normal_force,friction_force}_sensitivity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum TamsiSensitivityOutput {
    /// Generalized velocities `v` (nv rows; m/s or rad/s). Code 0.
    Velocities = 0,
    /// Normal forces `fn` (nc rows; N): the law `fn(vn)` two-way, the input one-way. Code 1.
    NormalForces = 1,
    /// Friction forces `ft` (2nc rows, two per contact; N). Code 2.
    FrictionForces = 2,
}

impl TamsiSensitivityOutput {
    /// All outputs in code order.
    pub const ALL: [Self; 3] = [Self::Velocities, Self::NormalForces, Self::FrictionForces];

    /// The output with C code `code`, if any.
    pub fn from_code(code: i32) -> Option<Self> {
        Self::ALL.get(usize::try_from(code).ok()?).copied()
    }

    /// Its number of entries (the rows of its sensitivities): nv, nc or 2nc.
    pub fn rows(self, nv: usize, nc: usize) -> usize {
        match self {
            Self::Velocities => nv,
            Self::NormalForces => nc,
            Self::FrictionForces => 2 * nc,
        }
    }
}
