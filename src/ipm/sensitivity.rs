//! Sensitivities of the solution by implicit differentiation (`docs/ipm.md` §7):
//! `∂w*/∂θ = −R(w*)⁻¹ ∂r/∂θ`, one back-substitution per parameter column with the Newton matrix
//! factored once at the returned iterate.
//!
//! Because the returned iterate is an interior point (κ > 0), these are the *smoothed* contact
//! gradients of the paper; for a chosen smoothing use the fixed-κ mode
//! ([`super::IpmParameters::fixed_kappa`]) with tight `rtol`/`btol`.

use nalgebra::DMatrixView;

use super::form::{BlockForm, DelassusForm, DenseForm, Form};
use super::iteration::{IpmWorkspace, check_block_newton_solve, system_data};
use super::newton::SystemData;
use super::{ContactModel, IpmData, IpmError, IpmProblem, IpmSolver, NewtonSolve};
use crate::coded::coded_enum;
use crate::linalg::grow;

coded_enum! {
    /// The problem data a sensitivity is taken with respect to.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum SensitivityParameter {
        /// Pre-step velocity `v0` (n columns; `∂r_dyn/∂v0 = −M`). Code 0.
        0 => V0,
        /// Generalized force `τ` (n columns; `∂r_dyn/∂τ = −h·I`). For the momentum `p* = M v0 + hτ`
        /// divide by `h`. Code 1.
        1 => Tau,
        /// Gaps `φ` (nc columns; `∂r_gap,i/∂φ_i = 1`). Code 2.
        2 => Phi,
        /// Friction coefficients `μ` (nc columns; `∂r_cone,i/∂μ_i = γ_n,i`, zero for impact
        /// contacts). Code 3.
        3 => Mu,
    }
    /// All parameters in code order.
    pub const ALL;
    /// The parameter with C code `code`, if any.
    pub fn from_code;
}

impl IpmSolver {
    /// Computes `∂v/∂θ` and `∂λ/∂θ` (λ = the local impulses of [`IpmSolver::impulses`], N·s) at
    /// the last solution for θ ∈ {v0, τ, φ, μ} (`docs/ipm.md` §7). `problem` must be the problem
    /// of the last solve. Factors the Newton matrix once at the solution, then solves
    /// `2n + 2nc` right-hand sides. Read the results with [`IpmSolver::velocity_sensitivity`]
    /// and [`IpmSolver::impulse_sensitivity`].
    pub fn compute_sensitivities(&mut self, problem: &IpmProblem<'_>) -> Result<(), IpmError> {
        problem.validate()?;
        self.require_solution()?;
        let mode = self.parameters().newton_solve;
        let ws = &self.ws;
        if problem.num_velocities() != ws.n || ws.models[..] != *problem.models {
            return Err(IpmError::NoSolution);
        }
        match problem.data {
            IpmData::Dense { m, jn, jt } => {
                let mut form = DenseForm::new(&mut self.dense, m, jn, jt);
                sensitivities(&mut self.ws, problem, &mut form, mode);
            }
            IpmData::Blocks(system) => {
                check_block_newton_solve(mode)?;
                let mut form = BlockForm::new(&mut self.blocks, system, None)?;
                sensitivities(&mut self.ws, problem, &mut form, mode);
            }
            IpmData::Delassus { w } => {
                check_block_newton_solve(mode)?;
                let mut form = DelassusForm::new(&mut self.delassus, w)?;
                sensitivities(&mut self.ws, problem, &mut form, mode);
            }
        }
        Ok(())
    }

    /// `∂v/∂θ` (column-major, n × cols with cols = n for v0/τ, nc for φ/μ) from the last
    /// [`IpmSolver::compute_sensitivities`]. Units: (m/s)/(unit of θ).
    pub fn velocity_sensitivity(
        &self,
        param: SensitivityParameter,
    ) -> Result<DMatrixView<'_, f64>, IpmError> {
        let s = &self.ws.sens;
        if !s.valid {
            return Err(IpmError::NoSolution);
        }
        let (q, n) = (param as usize, self.ws.n);
        Ok(DMatrixView::from_slice(&s.dv[q][..n * s.cols[q]], n, s.cols[q]))
    }

    /// `∂λ/∂θ` (column-major, 3nc × cols), λ = (normal, t1, t2) impulse per contact (N·s).
    pub fn impulse_sensitivity(&self, param: SensitivityParameter) -> Result<DMatrixView<'_, f64>, IpmError> {
        let s = &self.ws.sens;
        if !s.valid {
            return Err(IpmError::NoSolution);
        }
        let (q, m) = (param as usize, 3 * self.ws.nc);
        Ok(DMatrixView::from_slice(&s.dl[q][..m * s.cols[q]], m, s.cols[q]))
    }
}

/// The sensitivity columns at the last solution over the data form `form` (see
/// [`IpmSolver::compute_sensitivities`]).
fn sensitivities<F: Form>(ws: &mut IpmWorkspace, problem: &IpmProblem<'_>, form: &mut F, mode: NewtonSolve) {
    let (n, nc, kt) = (ws.n, ws.nc, ws.k_total);
    let big = n + 2 * kt;
    {
        let data = system_data!(ws);
        // The exact Jacobian (no REG): the IFT needs ∂r/∂w itself.
        ws.newton.factor(mode, &data, form, &ws.s[..kt], &ws.g[..kt], 0.0);
    }
    let sens = &mut ws.sens;
    sens.valid = false;
    grow(&mut sens.rhs, big);
    sens.cols = [n, n, nc, nc];
    for (q, &c) in sens.cols.iter().enumerate() {
        grow(&mut sens.dv[q], n * c);
        grow(&mut sens.dl[q], 3 * nc * c);
    }
    for param in SensitivityParameter::ALL {
        let q = param as usize;
        for j in 0..sens.cols[q] {
            // rhs = −∂r/∂θ_j (IFT).
            let rhs = &mut sens.rhs[..big];
            rhs.fill(0.0);
            match param {
                SensitivityParameter::V0 => {
                    // Column j of M: M·e_j.
                    let unit = &mut ws.v_free[..n];
                    unit.fill(0.0);
                    unit[j] = 1.0;
                    form.add_mass_product(unit, &mut rhs[..n]);
                }
                SensitivityParameter::Tau => rhs[j] = problem.h,
                // The gap row carries φ·phi_scale (1 in Dojo's formulation, 1/h in the
                // engine's velocity-level one).
                SensitivityParameter::Phi => rhs[n + kt + ws.offsets[j]] = -ws.phi_scale,
                SensitivityParameter::Mu => {
                    if ws.models[j] != ContactModel::Impact {
                        rhs[n + kt + ws.offsets[j] + 1] = -ws.g[ws.offsets[j]];
                    }
                }
            }
            ws.p_star[..n].copy_from_slice(&rhs[..n]);
            {
                let data = system_data!(ws);
                ws.newton.solve_in_place(&data, form, rhs);
            }
            // Velocities without contact (the block form's free trees): Δv_t = M_t⁻¹ rhs_t.
            form.solve_direct(&mut ws.p_star[..n], &mut rhs[..n]);
            sens.dv[q][j * n..(j + 1) * n].copy_from_slice(&rhs[..n]);
            let dg = &rhs[n + kt..big];
            let dl = &mut sens.dl[q][j * 3 * nc..(j + 1) * 3 * nc];
            for (i, (&m, &off)) in ws.models.iter().zip(&ws.offsets).enumerate() {
                let b = m.impulse(&dg[off..off + m.dim()]);
                dl[3 * i..3 * i + 3].copy_from_slice(&b);
            }
        }
    }
    sens.valid = true;
}
