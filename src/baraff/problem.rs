//! Problem data, borrowed for the duration of a call: nalgebra views (column-major, unit row
//! stride, any column stride) and row descriptions.

use nalgebra::{DMatrixView, DVectorView};

use super::{BaraffError, Rows};

/// The matrix interface (§1, §12 `baraff_forces`): `a = A f + b`.
#[derive(Debug, Clone, Copy)]
pub struct MatrixProblem<'a> {
    /// `A` (m×m, column-major): `A[i][j]` = change of `a_i` per unit `f_j` (m/s² per N at
    /// acceleration level, m/s per N·s at velocity level). Need not be symmetric (sliding
    /// friction makes it `N M⁻¹ (N − μQ)ᵀ`).
    pub a: DMatrixView<'a, f64>,
    /// `b` (m): row accelerations (velocities) with every constraint force off.
    pub b: DVectorView<'a, f64>,
    /// Row kinds (m).
    pub rows: Rows<'a>,
}

/// What the unconstrained motion of a [`ModelProblem`] is given by, which also fixes the level.
#[derive(Debug, Clone, Copy)]
pub enum Level<'a> {
    /// Acceleration level (forces): the generalized force `τ − c(q, q̇)` (n, N or N·m). Then
    /// `b = J M⁻¹ (τ − c) + bias`, and the solve yields `q̈ = M⁻¹(τ − c + J_fᵀ f)`.
    Acceleration(DVectorView<'a, f64>),
    /// Velocity level (impulses): the pre-impulse generalized velocities `q̇` (n). Then
    /// `b = J q̇ + bias`, and the solve yields `q̇⁺ = q̇ + M⁻¹ J_fᵀ p`.
    Velocity(DVectorView<'a, f64>),
}

/// Sliding (dynamic) friction (§1, §5): the force of a sliding contact's normal unknown acts
/// along `n − μ_d v̂`, so its force-direction row is `J_f,i = J_i − μ_d,i Q_i`.
#[derive(Debug, Clone, Copy)]
pub struct Sliding<'a> {
    /// `Q` (m×n): row i = tangential Jacobian along the unit slip direction `v̂` (relative
    /// velocity of body 1 w.r.t. body 2 at the contact) for a sliding contact's normal row, zero
    /// for every other row.
    pub slip_jacobian: DMatrixView<'a, f64>,
    /// `μ_d` per row (m, ≥ 0; 0 for rows that are not sliding normals).
    pub mu: DVectorView<'a, f64>,
}

/// Baumgarte drift stabilisation (§2, inferred from Darwin2K's `kp`, `kv`, `correctDrift`):
/// `b_i += kp·C_i + kv·Ċ_i`, so the solver drives `a_i = −kp C_i − kv Ċ_i` instead of 0 (the
/// reported accelerations include the term).
#[derive(Debug, Clone, Copy)]
pub struct Stabilization<'a> {
    /// Position gain (1/s²).
    pub kp: f64,
    /// Velocity gain (1/s).
    pub kv: f64,
    /// Position errors `C` (m, one per row; 0 where none).
    pub position_error: DVectorView<'a, f64>,
    /// Velocity errors `Ċ` (m); `None` skips the velocity term (`includeVel = false`, e.g.
    /// right after an impulse zeroed `Ċ`).
    pub velocity_error: Option<DVectorView<'a, f64>>,
}

/// The model interface (§2 `composeMatrices`, §12 `baraff_from_model`) for an engine with
/// `M(q) q̈ + c(q, q̇) = τ + Jᵀ_f f`: the solver builds `A = J M⁻¹ J_fᵀ` and `b`.
///
/// Several mechanisms: pass a block-diagonal `M` and stacked Jacobians (rows that share no
/// mechanism get zero coupling). Dense only.
#[derive(Debug, Clone, Copy)]
pub struct ModelProblem<'a> {
    /// `M` (n×n, symmetric positive definite; only its lower triangle is read).
    pub mass: DMatrixView<'a, f64>,
    /// Constraint Jacobian `J` (m×n): `a = J q̈ + J̇ q̇` (velocity level: `v = J q̇`).
    pub jacobian: DMatrixView<'a, f64>,
    /// Row kinds (m).
    pub rows: Rows<'a>,
    /// Unconstrained motion and level.
    pub level: Level<'a>,
    /// Added to `b` (m): the velocity-product term `J̇ q̇` (centripetal terms of contact points)
    /// at acceleration level, a restitution shift or target at velocity level. `None` = 0.
    pub bias: Option<DVectorView<'a, f64>>,
    /// Sliding friction (`N − μQ` columns). `None` = no sliding contact.
    pub sliding: Option<Sliding<'a>>,
    /// Drift stabilisation. `None` = none.
    pub stabilization: Option<Stabilization<'a>>,
}

impl<'a> ModelProblem<'a> {
    /// An acceleration-level problem with generalized force `tau_minus_c = τ − c` and no bias,
    /// sliding or stabilisation.
    pub fn forces(
        mass: DMatrixView<'a, f64>,
        jacobian: DMatrixView<'a, f64>,
        rows: Rows<'a>,
        tau_minus_c: DVectorView<'a, f64>,
    ) -> Self {
        Self {
            mass,
            jacobian,
            rows,
            level: Level::Acceleration(tau_minus_c),
            bias: None,
            sliding: None,
            stabilization: None,
        }
    }

    /// A velocity-level problem at generalized velocities `qdot`.
    pub fn velocities(
        mass: DMatrixView<'a, f64>,
        jacobian: DMatrixView<'a, f64>,
        rows: Rows<'a>,
        qdot: DVectorView<'a, f64>,
    ) -> Self {
        Self {
            mass,
            jacobian,
            rows,
            level: Level::Velocity(qdot),
            bias: None,
            sliding: None,
            stabilization: None,
        }
    }

    /// Sets the bias term (m).
    pub fn with_bias(mut self, bias: DVectorView<'a, f64>) -> Self {
        self.bias = Some(bias);
        self
    }

    /// Sets the sliding-friction data.
    pub fn with_sliding(mut self, sliding: Sliding<'a>) -> Self {
        self.sliding = Some(sliding);
        self
    }

    /// Sets the drift stabilisation.
    pub fn with_stabilization(mut self, stabilization: Stabilization<'a>) -> Self {
        self.stabilization = Some(stabilization);
        self
    }
}

pub(crate) fn check_dim(what: &'static str, expected: usize, got: usize) -> Result<(), BaraffError> {
    if expected == got { Ok(()) } else { Err(BaraffError::DimensionMismatch { what, expected, got }) }
}

pub(crate) fn check_finite<'b, I: IntoIterator<Item = &'b f64>>(
    what: &'static str,
    it: I,
) -> Result<(), BaraffError> {
    match it.into_iter().enumerate().find(|(_, x)| !x.is_finite()) {
        None => Ok(()),
        Some((index, &value)) => Err(BaraffError::NonFinite { what, index, value }),
    }
}
