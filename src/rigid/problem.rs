//! The two problem-data structures of Drake's `ConstraintSolver` (`docs/rigid.md` §2):
//! acceleration level ([`ConstraintAccelProblemData`], forces) and velocity level
//! ([`ConstraintVelProblemData`], impulses, also the discretized time-stepping problem).
//!
//! Sizes are implied as in Drake: `nv = tau.len()` / `Mv.len()`, `nb = kG.len()`,
//! `nu = kL.len()`, `nc = ns + nns` (accel) / `mu.len()` (vel), `nr = Σ r`. Every field is
//! borrowed; vectors are nalgebra views (contiguous), index lists plain slices.

use nalgebra::DVectorView;

use super::RigidError;
use super::operator::{InertiaSolve, Operator};

fn empty() -> DVectorView<'static, f64> {
    DVectorView::from_slice(&[], 0)
}

/// Acceleration-level (force) problem data: Drake's `ConstraintAccelProblemData` (§2.1).
///
/// Units: accelerations in m/s² (rad/s²), forces in N (N·m); `tau` is a generalized force.
/// Jacobians map generalized velocities (length nv) to constraint space.
#[derive(Debug, Clone, Copy)]
pub struct ConstraintAccelProblemData<'a> {
    /// `true` (default): solve the LCP. `false`: assume every constraint active and solve a
    /// linear system (§5.4; forces may come out negative, friction is not bounded).
    pub use_complementarity_problem_solver: bool,
    /// Indices (into 0..nc, ascending) of the sliding contacts.
    pub sliding_contacts: &'a [usize],
    /// Indices (ascending) of the non-sliding contacts. Together with `sliding_contacts` every
    /// contact index 0..nc appears exactly once.
    pub non_sliding_contacts: &'a [usize],
    /// Friction spanning directions per non-sliding contact (length nns; 2-D: all 1).
    pub r: &'a [usize],
    /// Coulomb (dynamic) coefficients of the sliding contacts (length ns, unitless).
    pub mu_sliding: DVectorView<'a, f64>,
    /// Static coefficients of the non-sliding contacts (length nns, unitless).
    pub mu_non_sliding: DVectorView<'a, f64>,
    /// `G·w` (nv → nb).
    pub g_mult: Operator<'a>,
    /// `Gᵀ·f` (nb → nv).
    pub g_transpose_mult: Operator<'a>,
    /// Bilateral constraint `G v̇ + kG = 0`; its length defines nb.
    pub k_g: DVectorView<'a, f64>,
    /// `N·w` (nv → nc), all contacts in index order.
    pub n_mult: Operator<'a>,
    /// `(N − μQ)ᵀ·f` (nc → nv): normal forces plus the sliding friction they imply.
    pub n_minus_muq_transpose_mult: Operator<'a>,
    /// Non-penetration `0 ≤ N v̇ + kN ⊥ fN ≥ 0` (length nc).
    pub k_n: DVectorView<'a, f64>,
    /// `F·w` (nv → nr), non-sliding contacts only, grouped per contact.
    pub f_mult: Operator<'a>,
    /// `Fᵀ·f` (nr → nv).
    pub f_transpose_mult: Operator<'a>,
    /// `Ḟ·v` (length nr).
    pub k_f: DVectorView<'a, f64>,
    /// `L·w` (nv → nu).
    pub l_mult: Operator<'a>,
    /// `Lᵀ·f` (nu → nv).
    pub l_transpose_mult: Operator<'a>,
    /// Unilateral `0 ≤ L v̇ + kL ⊥ fL ≥ 0`; its length defines nu.
    pub k_l: DVectorView<'a, f64>,
    /// Generalized external force (length nv, defines nv).
    pub tau: DVectorView<'a, f64>,
    /// `M⁻¹·b`.
    pub solve_inertia: InertiaSolve<'a>,
}

impl Default for ConstraintAccelProblemData<'_> {
    fn default() -> Self {
        Self {
            use_complementarity_problem_solver: true,
            sliding_contacts: &[],
            non_sliding_contacts: &[],
            r: &[],
            mu_sliding: empty(),
            mu_non_sliding: empty(),
            g_mult: Operator::Zero,
            g_transpose_mult: Operator::Zero,
            k_g: empty(),
            n_mult: Operator::Zero,
            n_minus_muq_transpose_mult: Operator::Zero,
            k_n: empty(),
            f_mult: Operator::Zero,
            f_transpose_mult: Operator::Zero,
            k_f: empty(),
            l_mult: Operator::Zero,
            l_transpose_mult: Operator::Zero,
            k_l: empty(),
            tau: empty(),
            solve_inertia: InertiaSolve::Unset,
        }
    }
}

/// Problem sizes (§1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dims {
    /// Generalized velocities.
    pub nv: usize,
    /// Contacts.
    pub nc: usize,
    /// Sliding contacts (accel level; 0 at velocity level).
    pub ns: usize,
    /// Contacts with friction variables (accel: non-sliding; vel: all).
    pub nns: usize,
    /// Friction spanning directions `Σ r`.
    pub nr: usize,
    /// Generic unilateral constraints.
    pub nu: usize,
    /// Bilateral constraints.
    pub nb: usize,
}

impl Dims {
    /// Length of the packed constraint-force vector `[fN | fF | fL | fG]` (§2.3).
    pub fn cf_len(&self) -> usize {
        self.nc + self.nr + self.nu + self.nb
    }
}

const FINITE: &str = "finite";
const NON_NEGATIVE: &str = "finite and >= 0";

/// The first entry of `v` that is not finite (or, with `non_negative`, is negative).
pub(crate) fn check_values(what: &'static str, v: &[f64], non_negative: bool) -> Result<(), RigidError> {
    let min = if non_negative { 0.0 } else { f64::NEG_INFINITY };
    match v.iter().position(|&x| !(x.is_finite() && x >= min)) {
        None => Ok(()),
        Some(i) => Err(RigidError::InvalidEntry {
            what,
            index: (i, 0),
            matrix: false,
            value: v[i],
            expected: if non_negative { NON_NEGATIVE } else { FINITE },
        }),
    }
}

fn check_len(what: &'static str, got: usize, expected: usize) -> Result<(), RigidError> {
    if got != expected {
        return Err(RigidError::DimensionMismatch { what, expected, got });
    }
    Ok(())
}

impl<'a> ConstraintAccelProblemData<'a> {
    /// Default data (Drake's constructor): every operator the zero map, every vector empty,
    /// `solve_inertia` unset, the LCP path selected.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sizes implied by the data.
    pub fn dims(&self) -> Dims {
        let ns = self.sliding_contacts.len();
        let nns = self.non_sliding_contacts.len();
        Dims {
            nv: self.tau.len(),
            nc: ns + nns,
            ns,
            nns,
            nr: self.r.iter().sum(),
            nu: self.k_l.len(),
            nb: self.k_g.len(),
        }
    }

    /// Checks every size and index list (Drake asserts these in its test fixture or leaves them
    /// undefined); returns the sizes.
    pub fn validate(&self) -> Result<Dims, RigidError> {
        let d = self.dims();
        check_len("r (one entry per non-sliding contact)", self.r.len(), d.nns)?;
        check_len("mu_sliding", self.mu_sliding.len(), d.ns)?;
        check_len("mu_non_sliding", self.mu_non_sliding.len(), d.nns)?;
        check_len("kN", self.k_n.len(), d.nc)?;
        check_len("kF", self.k_f.len(), d.nr)?;
        check_contact_partition(self.sliding_contacts, self.non_sliding_contacts, d.nc)?;
        check_values("mu_sliding", self.mu_sliding.as_slice(), true)?;
        check_values("mu_non_sliding", self.mu_non_sliding.as_slice(), true)?;
        check_values("kN", self.k_n.as_slice(), false)?;
        check_values("kF", self.k_f.as_slice(), false)?;
        check_values("kL", self.k_l.as_slice(), false)?;
        check_values("kG", self.k_g.as_slice(), false)?;
        check_values("tau", self.tau.as_slice(), false)?;
        self.n_mult.check("N_mult", d.nc, d.nv)?;
        self.n_minus_muq_transpose_mult.check("N_minus_muQ_transpose_mult", d.nv, d.nc)?;
        self.f_mult.check("F_mult", d.nr, d.nv)?;
        self.f_transpose_mult.check("F_transpose_mult", d.nv, d.nr)?;
        self.l_mult.check("L_mult", d.nu, d.nv)?;
        self.l_transpose_mult.check("L_transpose_mult", d.nv, d.nu)?;
        self.g_mult.check("G_mult", d.nb, d.nv)?;
        self.g_transpose_mult.check("G_transpose_mult", d.nv, d.nb)?;
        if matches!(self.solve_inertia, InertiaSolve::Unset) {
            return Err(RigidError::MissingInertiaSolve);
        }
        Ok(d)
    }
}

fn check_contact_partition(sliding: &[usize], non_sliding: &[usize], nc: usize) -> Result<(), RigidError> {
    for list in [sliding, non_sliding] {
        if list.windows(2).any(|w| w[0] >= w[1]) {
            return Err(RigidError::InvalidArgument("contact index lists must be strictly ascending"));
        }
    }
    // Sorted and disjoint with nc entries in total, all < nc: a partition of 0..nc.
    let (mut i, mut j) = (0, 0);
    for k in 0..nc {
        if i < sliding.len() && sliding[i] == k {
            i += 1;
        } else if j < non_sliding.len() && non_sliding[j] == k {
            j += 1;
        } else {
            return Err(RigidError::InvalidArgument(
                "sliding and non-sliding contact indices must partition 0..nc",
            ));
        }
    }
    Ok(())
}

/// Velocity-level (impulse) problem data: Drake's `ConstraintVelProblemData` (§2.2). Also the
/// input of the discretized time-stepping LCP (§7), where the unknowns are forces.
///
/// Units: velocities in m/s (rad/s), impulses in N·s (N·m·s); `Mv` is a generalized momentum.
#[derive(Debug, Clone, Copy)]
pub struct ConstraintVelProblemData<'a> {
    /// Friction spanning directions per contact (length nc).
    pub r: &'a [usize],
    /// Friction coefficient per contact (unitless); its length defines nc.
    pub mu: DVectorView<'a, f64>,
    /// `G·w` (nv → nb).
    pub g_mult: Operator<'a>,
    /// `Gᵀ·f` (nb → nv).
    pub g_transpose_mult: Operator<'a>,
    /// Bilateral `G v⁺ + kG = 0`; its length defines nb.
    pub k_g: DVectorView<'a, f64>,
    /// `N·w` (nv → nc).
    pub n_mult: Operator<'a>,
    /// `Nᵀ·f` (nc → nv).
    pub n_transpose_mult: Operator<'a>,
    /// `0 ≤ N v⁺ + kN ⊥ fN ≥ 0` (length nc; stabilization / restitution, §6.5).
    pub k_n: DVectorView<'a, f64>,
    /// Regularization (CFM) on the fN diagonal: empty (= 0) or length nc, entries ≥ 0.
    pub gamma_n: DVectorView<'a, f64>,
    /// `F·w` (nv → nr), all contacts, grouped per contact.
    pub f_mult: Operator<'a>,
    /// `Fᵀ·f` (nr → nv).
    pub f_transpose_mult: Operator<'a>,
    /// `Ḟ·v`-like term (length nr).
    pub k_f: DVectorView<'a, f64>,
    /// Regularization on both fD⁺ and fD⁻ diagonals: empty or length nr, ≥ 0.
    pub gamma_f: DVectorView<'a, f64>,
    /// Regularization on the λ (friction cone) diagonal: empty or length nc, ≥ 0.
    pub gamma_e: DVectorView<'a, f64>,
    /// `L·w` (nv → nu).
    pub l_mult: Operator<'a>,
    /// `Lᵀ·f` (nu → nv).
    pub l_transpose_mult: Operator<'a>,
    /// `0 ≤ L v⁺ + kL ⊥ fL ≥ 0`; its length defines nu.
    pub k_l: DVectorView<'a, f64>,
    /// Regularization on the fL diagonal: empty or length nu, ≥ 0.
    pub gamma_l: DVectorView<'a, f64>,
    /// Generalized momentum `M v⁻` before the impulses (length nv, defines nv).
    pub mv: DVectorView<'a, f64>,
    /// `M⁻¹·b`.
    pub solve_inertia: InertiaSolve<'a>,
}

impl Default for ConstraintVelProblemData<'_> {
    fn default() -> Self {
        Self {
            r: &[],
            mu: empty(),
            g_mult: Operator::Zero,
            g_transpose_mult: Operator::Zero,
            k_g: empty(),
            n_mult: Operator::Zero,
            n_transpose_mult: Operator::Zero,
            k_n: empty(),
            gamma_n: empty(),
            f_mult: Operator::Zero,
            f_transpose_mult: Operator::Zero,
            k_f: empty(),
            gamma_f: empty(),
            gamma_e: empty(),
            l_mult: Operator::Zero,
            l_transpose_mult: Operator::Zero,
            k_l: empty(),
            gamma_l: empty(),
            mv: empty(),
            solve_inertia: InertiaSolve::Unset,
        }
    }
}

impl<'a> ConstraintVelProblemData<'a> {
    /// Default data (Drake's constructor / `Reinitialize`).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sizes implied by the data.
    pub fn dims(&self) -> Dims {
        let nc = self.mu.len();
        Dims {
            nv: self.mv.len(),
            nc,
            ns: 0,
            nns: nc,
            nr: self.r.iter().sum(),
            nu: self.k_l.len(),
            nb: self.k_g.len(),
        }
    }

    /// Checks sizes, the γ vectors (empty or right length, all ≥ 0) and operator shapes.
    pub fn validate(&self) -> Result<Dims, RigidError> {
        let d = self.dims();
        if self.r.len() != d.nc {
            return Err(RigidError::DimensionMismatch {
                what: "r (number of elements in 'r' does not match number of elements in 'mu')",
                expected: d.nc,
                got: self.r.len(),
            });
        }
        check_len("kN", self.k_n.len(), d.nc)?;
        check_len("kF", self.k_f.len(), d.nr)?;
        for (what, g, len) in [
            ("gammaN", &self.gamma_n, d.nc),
            ("gammaF", &self.gamma_f, d.nr),
            ("gammaE", &self.gamma_e, d.nc),
            ("gammaL", &self.gamma_l, d.nu),
        ] {
            if !g.is_empty() {
                check_len(what, g.len(), len)?;
            }
            // Regularization (gamma) entries must be finite and >= 0.
            check_values(what, g.as_slice(), true)?;
        }
        check_values("mu", self.mu.as_slice(), true)?;
        check_values("kN", self.k_n.as_slice(), false)?;
        check_values("kF", self.k_f.as_slice(), false)?;
        check_values("kL", self.k_l.as_slice(), false)?;
        check_values("kG", self.k_g.as_slice(), false)?;
        check_values("Mv", self.mv.as_slice(), false)?;
        self.n_mult.check("N_mult", d.nc, d.nv)?;
        self.n_transpose_mult.check("N_transpose_mult", d.nv, d.nc)?;
        self.f_mult.check("F_mult", d.nr, d.nv)?;
        self.f_transpose_mult.check("F_transpose_mult", d.nv, d.nr)?;
        self.l_mult.check("L_mult", d.nu, d.nv)?;
        self.l_transpose_mult.check("L_transpose_mult", d.nv, d.nu)?;
        self.g_mult.check("G_mult", d.nb, d.nv)?;
        self.g_transpose_mult.check("G_transpose_mult", d.nv, d.nb)?;
        if matches!(self.solve_inertia, InertiaSolve::Unset) {
            return Err(RigidError::MissingInertiaSolve);
        }
        Ok(d)
    }
}
