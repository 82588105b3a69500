//! Sensitivities of a converged TAMSI solution by implicit differentiation
//! (`docs/tamsi_sensitivities.md`).
//!
//! At the returned velocities the residual vanishes, `R(v; θ) = 0` (`docs/tamsi.md` §4), so
//! `dv/dθ = −J⁻¹ ∂R/∂θ` with `J = ∂R/∂v` assembled and factored **at that v** (the iteration's
//! last factorization was at the previous iterate). The full Jacobians take one solve with J per
//! parameter column; a vector–Jacobian product takes one solve with Jᵀ for every parameter at
//! once. The contact forces follow from `dv/dθ` by the chain rule through the force laws
//! (§2.3, §3). Everything runs through the data form's operations (`form.rs`), so the dense and
//! the block-sparse forms share this code.

use nalgebra::{DMatrixView, DVectorView};

use super::form::Form;
use super::friction::regularized_friction;
use super::iteration::{
    ContactPartials, ContactState, FormOp, IterationState, Sensitivities, dense_key, run_in_form,
};
use super::normal::normal_force_partials;
use super::problem::{NormalForceData, ProblemData, check_len};
use super::scheme::PARAMETERS;
use super::{
    CouplingScheme, TamsiError, TamsiOutcome, TamsiProblem, TamsiSensitivityOutput,
    TamsiSensitivityParameter, TamsiSolver,
};
use crate::linalg::simd::Simd;

/// The gradient `∂L/∂θ` of a vector–Jacobian product ([`TamsiSolver::vjp`]), one slice per
/// parameter of the solve's scheme, in the parameter's layout and in (unit of L)/(unit of θ).
#[derive(Debug, Clone, Copy)]
pub struct TamsiGradient<'a> {
    scheme: CouplingScheme,
    grad: &'a [Vec<f64>; PARAMETERS],
    nv: usize,
    nc: usize,
}

impl<'a> TamsiGradient<'a> {
    /// `∂L/∂θ` for `parameter` (nv, nc or 1 entries), `None` when it is not data of the scheme.
    pub fn get(&self, parameter: TamsiSensitivityParameter) -> Option<&'a [f64]> {
        parameter
            .applies_to(self.scheme)
            .then(|| &self.grad[parameter as usize][..parameter.columns(self.nv, self.nc)])
    }

    /// `∂L/∂p*` (nv).
    pub fn p_star(&self) -> &'a [f64] {
        &self.grad[TamsiSensitivityParameter::PStar as usize][..self.nv]
    }

    /// `∂L/∂μ` (nc).
    pub fn mu(&self) -> &'a [f64] {
        &self.grad[TamsiSensitivityParameter::Mu as usize][..self.nc]
    }

    /// `∂L/∂dt` (at fixed `p*`).
    pub fn dt(&self) -> f64 {
        self.grad[TamsiSensitivityParameter::TimeStep as usize][0]
    }
}

impl ContactPartials {
    /// `ft` derivative from a tangential-velocity change `w`, a total normal-force change `dfn`
    /// and an explicit term `e`: `−D w − μ_reg t̂ dfn + e`.
    #[inline(always)]
    fn friction_change(&self, w: [f64; 2], dfn: f64, e: [f64; 2]) -> [f64; 2] {
        let [d00, d01, d11] = self.d;
        [
            -(d00 * w[0] + d01 * w[1]) - self.mu_t[0] * dfn + e[0],
            -(d01 * w[0] + d11 * w[1]) - self.mu_t[1] * dfn + e[1],
        ]
    }
}

/// Grows `v` to `len` zeros, reporting allocation failure.
fn grow(v: &mut Vec<f64>, len: usize) -> Result<(), TamsiError> {
    crate::linalg::try_grow(v, len, 0.0).map_err(|_| TamsiError::SensitivityAllocation { elements: len })
}

/// `a·b`, or an allocation error when it overflows.
fn product(a: usize, b: usize) -> Result<usize, TamsiError> {
    a.checked_mul(b).ok_or(TamsiError::SensitivityAllocation { elements: usize::MAX })
}

impl Sensitivities {
    /// Scratch for one evaluation of `nv` velocities and `nc` contacts with force length
    /// `force_len`, plus the full Jacobians with `full`.
    fn reserve(
        &mut self,
        nv: usize,
        nc: usize,
        force_len: usize,
        scheme: CouplingScheme,
        full: bool,
    ) -> Result<(), TamsiError> {
        let two_nc = product(2, nc)?;
        grow(&mut self.col, force_len.max(nv))?;
        grow(&mut self.tmp, force_len.max(nv))?;
        grow(&mut self.col_vt, two_nc)?;
        grow(&mut self.col_vn, nc)?;
        grow(&mut self.unit_fn, nc)?;
        grow(&mut self.unit_ft, two_nc)?;
        grow(&mut self.gbar_fn, nc)?;
        if self.partials.len() < nc {
            self.partials
                .try_reserve_exact(nc - self.partials.len())
                .map_err(|_| TamsiError::SensitivityAllocation { elements: nc })?;
            self.partials.resize(nc, ContactPartials::default());
        }
        for p in TamsiSensitivityParameter::ALL.into_iter().filter(|p| p.applies_to(scheme)) {
            let cols = p.columns(nv, nc);
            grow(&mut self.gradient[p as usize], cols)?;
            if full {
                for o in TamsiSensitivityOutput::ALL {
                    grow(&mut self.jacobians[p as usize][o as usize], product(o.rows(nv, nc), cols)?)?;
                }
            }
        }
        Ok(())
    }

    /// The per-contact partials at the contact state `c` (evaluated at the solution).
    #[inline(always)]
    fn fill_partials(&mut self, c: &ContactState, problem: &TamsiProblem<'_>, dt: f64, vs: f64) {
        let nc = problem.num_contacts();
        let mu = problem.mu.as_slice();
        for (i, p) in self.partials[..nc].iter_mut().enumerate() {
            let fr = &c.friction[i];
            let fn_ = c.fn_[i];
            let explicit = match &problem.normal {
                NormalForceData::OneWay { .. } => [0.0; 4],
                NormalForceData::TwoWay { fn0, stiffness, dissipation } => {
                    normal_force_partials(c.vn[i], fn0[i], stiffness[i], dissipation[i], dt)
                }
            };
            // μ_reg is linear in μ: μ_reg/μ = μ_reg(x) at μ = 1 (no division by a zero μ).
            let rho = regularized_friction(fr.slip / vs, 1.0);
            debug_assert!(mu[i] == 0.0 || (rho * mu[i] - fr.mu_reg).abs() <= 1e-12 * fr.mu_reg.abs());
            *p = ContactPartials {
                mu_t: [fr.mu_reg * fr.t_hat[0], fr.mu_reg * fr.t_hat[1]],
                t_hat: fr.t_hat,
                rho_fn: rho * fn_,
                fn_,
                ft: fr.ft,
                g: c.g[i],
                d: fr.gradient_block(fn_),
                explicit,
            };
        }
    }
}

/// What a [`SensitivityOp`] computes once J is factored at the solution.
enum Task<'g> {
    /// Every full Jacobian.
    Jacobians,
    /// `∂L/∂θ` for `dL/dv` (nv) and optional `dL/dfn` (nc) and `dL/dft` (2nc).
    Vjp { dl_dv: &'g [f64], dl_dfn: Option<&'g [f64]>, dl_dft: Option<&'g [f64]> },
}

/// Evaluates the contacts at the solution `v`, factors J there (unless the workspace already
/// holds that factorization) and runs the task.
struct SensitivityOp<'a, 'p, 'g> {
    problem: &'a TamsiProblem<'p>,
    dt: f64,
    vs: f64,
    eps_v: f64,
    v: &'a [f64],
    sens: &'a mut Sensitivities,
    task: Task<'g>,
}

impl FormOp for SensitivityOp<'_, '_, '_> {
    type Output = Result<(), TamsiError>;

    #[inline(always)]
    fn run<S: Simd, F: Form>(self, simd: S, mut form: F, it: &mut IterationState) -> Self::Output {
        let Self { problem, dt, vs, eps_v, v, sens, task } = self;
        let nc = problem.num_contacts();
        let two_way = problem.coupling_scheme() == CouplingScheme::TwoWay;
        let blocks = matches!(problem.data, ProblemData::Blocks(_));
        let reuse = sens.factored == Some(blocks);
        // The dense preparation (O(nc·nv) copies and the assembly's lists) made by the solve of
        // the same arrays is still in place unless an evaluation ran since.
        let prepared = sens.prepared.is_some() && sens.prepared == dense_key(problem);
        if !reuse {
            sens.factored = None;
        }
        match (prepared, reuse) {
            (true, _) => {}
            (false, true) => form.prepare_products()?,
            (false, false) => form.prepare(nc, dt, two_way)?,
        }
        it.v.copy_from_slice(v);
        it.contacts.evaluate(simd, &form, problem, v, dt, vs, eps_v);
        sens.fill_partials(&it.contacts, problem, dt, vs);
        if !reuse {
            let contacts = &it.contacts;
            if !form.factor_newton_matrix(simd, two_way, |i| contacts.coefficients(i, two_way)) {
                return Err(TamsiError::SingularNewtonMatrix);
            }
            sens.factored = Some(blocks);
        }
        let finite = match task {
            Task::Jacobians => sens.jacobians(simd, &mut form, problem, dt),
            Task::Vjp { dl_dv, dl_dfn, dl_dft } => {
                sens.vjp(simd, &mut form, problem, dt, dl_dv, dl_dfn, dl_dft)
            }
        };
        if finite { Ok(()) } else { Err(TamsiError::SingularNewtonMatrix) }
    }
}

impl Sensitivities {
    /// Every full Jacobian (`docs/tamsi_sensitivities.md` §3): one solve with J per column.
    /// Returns whether every value is finite.
    #[inline(always)]
    fn jacobians<S: Simd, F: Form>(
        &mut self,
        simd: S,
        form: &mut F,
        problem: &TamsiProblem<'_>,
        h: f64,
    ) -> bool {
        use TamsiSensitivityParameter as P;
        let (nv, nc) = (self.nv, self.nc);
        let two_way = problem.coupling_scheme() == CouplingScheme::TwoWay;
        let force_len = F::force_len(nv);

        // p*: −∂R/∂p* = I.
        for j in 0..nv {
            self.col[..force_len].fill(0.0);
            self.col[j] = 1.0;
            form.solve_factored(two_way, &mut self.col[..nv], &mut self.tmp);
            self.forces_of_column(simd, form, |_, _| 0.0, |_, _| [0.0; 2]);
            self.copy_column(P::PStar, j, 1.0);
        }

        for j in 0..nc {
            let p = self.partials[j];
            // A unit change of fn_j: −∂R/∂fn_j = h·(Jn_jᵀ − μ_reg Jt_jᵀ t̂_j) (§4).
            self.col[..force_len].fill(0.0);
            form.add_contact_force(j, (-h * p.mu_t[0], -h * p.mu_t[1], h), &mut self.col);
            form.solve_factored(two_way, &mut self.col[..nv], &mut self.tmp);
            self.forces_of_column(simd, form, |i, _| if i == j { 1.0 } else { 0.0 }, |_, _| [0.0; 2]);
            if two_way {
                // fn0, k and d act through fn_j only: the unit column times ∂fn_j/∂θ_j.
                let [e_fn0, e_k, e_d, _] = p.explicit;
                for (q, e) in [(P::Fn0, e_fn0), (P::Stiffness, e_k), (P::Dissipation, e_d)] {
                    self.copy_column(q, j, e);
                }
            } else {
                self.copy_column(P::NormalForce, j, 1.0);
            }

            // μ_j: −∂R/∂μ_j = h·Jt_jᵀ ∂ft_j/∂μ_j, ∂ft_j/∂μ_j = −(μ_reg/μ)·fn·t̂_j.
            let dft_dmu = [-p.rho_fn * p.t_hat[0], -p.rho_fn * p.t_hat[1]];
            self.col[..force_len].fill(0.0);
            form.add_contact_force(j, (h * dft_dmu[0], h * dft_dmu[1], 0.0), &mut self.col);
            form.solve_factored(two_way, &mut self.col[..nv], &mut self.tmp);
            self.forces_of_column(simd, form, |_, _| 0.0, |i, _| if i == j { dft_dmu } else { [0.0; 2] });
            self.copy_column(P::Mu, j, 1.0);
        }

        // dt: −∂R/∂dt = Jnᵀ fn + Jtᵀ ft + Σᵢ h·(Jn_iᵀ − μ_reg Jt_iᵀ t̂_i)·∂fn_i/∂dt.
        self.col[..force_len].fill(0.0);
        for (i, p) in self.partials[..nc].iter().enumerate() {
            let dfn = h * p.explicit[3];
            let f = (p.ft[0] - p.mu_t[0] * dfn, p.ft[1] - p.mu_t[1] * dfn, p.fn_ + dfn);
            form.add_contact_force(i, f, &mut self.col);
        }
        form.solve_factored(two_way, &mut self.col[..nv], &mut self.tmp);
        self.forces_of_column(simd, form, |_, p| p.explicit[3], |_, _| [0.0; 2]);
        self.copy_column(P::TimeStep, 0, 1.0);

        self.computed = true;
        let scheme = problem.coupling_scheme();
        P::ALL.iter().filter(|p| p.applies_to(scheme)).all(|&p| {
            TamsiSensitivityOutput::ALL.iter().all(|&o| {
                let len = o.rows(nv, nc) * p.columns(nv, nc);
                self.jacobians[p as usize][o as usize][..len].iter().all(|x| x.is_finite())
            })
        })
    }

    /// The force changes of the velocity change in `col` into `unit_fn` and `unit_ft`, with
    /// explicit terms `explicit_fn(i, partials_i)` (normal) and `explicit_ft(i, partials_i)`
    /// (friction, besides the change through fn).
    #[inline(always)]
    fn forces_of_column<S: Simd, F: Form>(
        &mut self,
        simd: S,
        form: &F,
        explicit_fn: impl Fn(usize, &ContactPartials) -> f64,
        explicit_ft: impl Fn(usize, &ContactPartials) -> [f64; 2],
    ) {
        let (nv, nc) = (self.nv, self.nc);
        form.contact_velocities(simd, &self.col[..nv], &mut self.col_vt[..2 * nc], &mut self.col_vn[..nc]);
        for (i, p) in self.partials[..nc].iter().enumerate() {
            // Two-way fn changes with vn (g = 0 one-way); ft with vt and with fn (§4).
            let dfn = p.g * self.col_vn[i] + explicit_fn(i, p);
            let w = [self.col_vt[2 * i], self.col_vt[2 * i + 1]];
            let dft = p.friction_change(w, dfn, explicit_ft(i, p));
            self.unit_fn[i] = dfn;
            self.unit_ft[2 * i..2 * i + 2].copy_from_slice(&dft);
        }
    }

    /// Column `j` of parameter `q` = `scale` × (`col`, `unit_fn`, `unit_ft`).
    #[inline(always)]
    fn copy_column(&mut self, q: TamsiSensitivityParameter, j: usize, scale: f64) {
        let (nv, nc) = (self.nv, self.nc);
        let sources: [&[f64]; 3] = [&self.col[..nv], &self.unit_fn[..nc], &self.unit_ft[..2 * nc]];
        for (o, src) in TamsiSensitivityOutput::ALL.into_iter().zip(sources) {
            let rows = o.rows(nv, nc);
            let dst = &mut self.jacobians[q as usize][o as usize][j * rows..(j + 1) * rows];
            for (d, &s) in dst.iter_mut().zip(src) {
                *d = scale * s;
            }
        }
    }

    /// `∂L/∂θ` for every θ with one solve with Jᵀ (`docs/tamsi_sensitivities.md` §4). Returns
    /// whether every value is finite.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn vjp<S: Simd, F: Form>(
        &mut self,
        simd: S,
        form: &mut F,
        problem: &TamsiProblem<'_>,
        h: f64,
        dl_dv: &[f64],
        dl_dfn: Option<&[f64]>,
        dl_dft: Option<&[f64]>,
    ) -> bool {
        use TamsiSensitivityParameter as P;
        let (nv, nc) = (self.nv, self.nc);
        let two_way = problem.coupling_scheme() == CouplingScheme::TwoWay;
        let force_len = F::force_len(nv);

        // Through the force laws, L depends on v by ĝ = dL/dv − Jtᵀ D dL/dft + Jnᵀ g ḡ, with
        // ḡ = dL/dfn − μ_reg t̂·dL/dft the total weight of fn (ft depends on fn).
        self.col[..force_len].fill(0.0);
        for i in 0..nc {
            let p = &self.partials[i];
            let gft = dl_dft.map_or([0.0; 2], |g| [g[2 * i], g[2 * i + 1]]);
            let gbar = dl_dfn.map_or(0.0, |g| g[i]) - (p.mu_t[0] * gft[0] + p.mu_t[1] * gft[1]);
            self.gbar_fn[i] = gbar;
            let [d00, d01, d11] = p.d;
            let f = (-(d00 * gft[0] + d01 * gft[1]), -(d01 * gft[0] + d11 * gft[1]), p.g * gbar);
            if f != (0.0, 0.0, 0.0) {
                form.add_contact_force(i, f, &mut self.col);
            }
        }
        for (c, &g) in self.col[..nv].iter_mut().zip(dl_dv) {
            *c += g;
        }
        // λ = J⁻ᵀ ĝ; then ∂L/∂θ = λᵀ(−∂R/∂θ) + the explicit terms.
        form.solve_factored_transposed(two_way, &mut self.col[..nv], &mut self.tmp);
        form.contact_velocities(simd, &self.col[..nv], &mut self.col_vt[..2 * nc], &mut self.col_vn[..nc]);
        let Self { gradient, partials, col, col_vt, col_vn, gbar_fn, .. } = self;
        gradient[P::PStar as usize][..nv].copy_from_slice(&col[..nv]);
        let mut dl_dt = 0.0;
        for i in 0..nc {
            let p = &partials[i];
            let (ut, un) = ([col_vt[2 * i], col_vt[2 * i + 1]], col_vn[i]);
            // ∂L/∂fn_i as a free parameter: λᵀ h (Jn_iᵀ − μ_reg Jt_iᵀ t̂_i) + ḡ_i.
            let a = h * (un - (p.mu_t[0] * ut[0] + p.mu_t[1] * ut[1])) + gbar_fn[i];
            if two_way {
                gradient[P::Fn0 as usize][i] = a * p.explicit[0];
                gradient[P::Stiffness as usize][i] = a * p.explicit[1];
                gradient[P::Dissipation as usize][i] = a * p.explicit[2];
            } else {
                gradient[P::NormalForce as usize][i] = a;
            }
            let gft = dl_dft.map_or([0.0; 2], |g| [g[2 * i], g[2 * i + 1]]);
            let t_ut = p.t_hat[0] * ut[0] + p.t_hat[1] * ut[1];
            let t_gft = p.t_hat[0] * gft[0] + p.t_hat[1] * gft[1];
            gradient[P::Mu as usize][i] = -p.rho_fn * (h * t_ut + t_gft);
            dl_dt += p.fn_ * un + p.ft[0] * ut[0] + p.ft[1] * ut[1] + a * p.explicit[3];
        }
        gradient[P::TimeStep as usize][0] = dl_dt;
        let scheme = problem.coupling_scheme();
        P::ALL
            .iter()
            .filter(|p| p.applies_to(scheme))
            .all(|&p| gradient[p as usize][..p.columns(nv, nc)].iter().all(|x| x.is_finite()))
    }
}

impl TamsiSolver {
    /// Checks that the last solve converged and that `problem` has its sizes and scheme; returns
    /// its number of contacts.
    fn check_sensitivity_problem(&self, problem: &TamsiProblem<'_>) -> Result<usize, TamsiError> {
        match self.results.outcome {
            Some(TamsiOutcome::Success) => {}
            outcome => return Err(TamsiError::NoSensitivities { outcome }),
        }
        let (nv, nc) = (self.nv, self.results.nc);
        check_len("p_star", problem.num_velocities(), nv)?;
        check_len("mu", problem.num_contacts(), nc)?;
        let scheme = problem.coupling_scheme();
        match self.coupling_scheme() {
            Some(s) if s != scheme => Err(TamsiError::WrongCouplingScheme { solver: s, data: scheme }),
            _ => Ok(nc),
        }
    }

    /// Runs `task` at the last solution of `problem`.
    fn run_sensitivity_task(&mut self, problem: &TamsiProblem<'_>, task: Task<'_>) -> Result<(), TamsiError> {
        let vs = self.params.stiction_tolerance;
        let op = SensitivityOp {
            problem,
            dt: self.results.dt,
            vs,
            eps_v: self.params.relative_tolerance * vs,
            v: &self.results.v,
            sens: &mut self.sens,
            task,
        };
        run_in_form(&mut self.ws, problem, op)
    }

    /// Computes the full Jacobians of the last solve's results with respect to every parameter of
    /// its scheme (`docs/tamsi_sensitivities.md`): J is assembled and factored at the returned
    /// velocities, then solved once per parameter column (nv + 2nc + 1 solves one-way, the same
    /// two-way: fn0, k and d share theirs). Read them with [`sensitivity`](Self::sensitivity).
    ///
    /// `problem` must be the data of the last solve, unchanged (its sizes and scheme are
    /// checked). Storage: `(nv + 3nc)·(nv + 2nc + 1)` doubles one-way, `(nv + 3nc)·(nv + 4nc + 1)`
    /// two-way, grown once and kept.
    ///
    /// Errors: [`TamsiError::NoSensitivities`] when the last solve did not converge (or there was
    /// none); [`TamsiError::SingularNewtonMatrix`] when J at the solution cannot be factored or
    /// the result is not finite; size and scheme mismatches; [`TamsiError::SensitivityAllocation`].
    pub fn compute_sensitivities(&mut self, problem: &TamsiProblem<'_>) -> Result<(), TamsiError> {
        let nc = self.check_sensitivity_problem(problem)?;
        let (nv, scheme) = (self.nv, problem.coupling_scheme());
        let force_len = match problem.data {
            ProblemData::Dense { .. } => super::form::DenseForm::force_len(nv),
            ProblemData::Blocks(_) => super::form::BlockForm::force_len(nv),
        };
        let sens = &mut self.sens;
        sens.computed = false;
        sens.reserve(nv, nc, force_len, scheme, true)?;
        (sens.nv, sens.nc, sens.scheme) = (nv, nc, Some(scheme));
        self.run_sensitivity_task(problem, Task::Jacobians).inspect_err(|_| self.sens.computed = false)
    }

    /// The sensitivity `∂output/∂parameter` from the last
    /// [`compute_sensitivities`](Self::compute_sensitivities): rows(output) × columns(parameter),
    /// column-major (rows nv, nc or 2nc; columns nv, nc or 1). Column j is the derivative of the
    /// output with respect to entry j of the parameter, in (unit of output)/(unit of parameter);
    /// units and layouts in `docs/tamsi_sensitivities.md` §5.
    pub fn sensitivity(
        &self,
        output: TamsiSensitivityOutput,
        parameter: TamsiSensitivityParameter,
    ) -> Result<DMatrixView<'_, f64>, TamsiError> {
        let s = &self.sens;
        let scheme = match s.scheme {
            Some(scheme) if s.computed => scheme,
            _ => return Err(TamsiError::SensitivitiesNotComputed),
        };
        if !parameter.applies_to(scheme) {
            return Err(TamsiError::NotASensitivityParameter { parameter, scheme });
        }
        let (rows, cols) = (output.rows(s.nv, s.nc), parameter.columns(s.nv, s.nc));
        let data = &s.jacobians[parameter as usize][output as usize][..rows * cols];
        Ok(DMatrixView::from_slice(data, rows, cols))
    }

    /// `∂v/∂θ` (nv × columns): [`sensitivity`](Self::sensitivity) of the velocities.
    pub fn velocity_sensitivity(
        &self,
        parameter: TamsiSensitivityParameter,
    ) -> Result<DMatrixView<'_, f64>, TamsiError> {
        self.sensitivity(TamsiSensitivityOutput::Velocities, parameter)
    }

    /// `∂fn/∂θ` (nc × columns): [`sensitivity`](Self::sensitivity) of the normal forces.
    pub fn normal_force_sensitivity(
        &self,
        parameter: TamsiSensitivityParameter,
    ) -> Result<DMatrixView<'_, f64>, TamsiError> {
        self.sensitivity(TamsiSensitivityOutput::NormalForces, parameter)
    }

    /// `∂ft/∂θ` (2nc × columns): [`sensitivity`](Self::sensitivity) of the friction forces.
    pub fn friction_force_sensitivity(
        &self,
        parameter: TamsiSensitivityParameter,
    ) -> Result<DMatrixView<'_, f64>, TamsiError> {
        self.sensitivity(TamsiSensitivityOutput::FrictionForces, parameter)
    }

    /// Vector–Jacobian product at the last solve's solution: for a scalar L of the results with
    /// gradients `dl_dv` (nv), and optionally `dl_dfn` (nc) and `dl_dft` (2nc; `None` = 0),
    /// returns `∂L/∂θ = dl_dvᵀ ∂v/∂θ + dl_dfnᵀ ∂fn/∂θ + dl_dftᵀ ∂ft/∂θ` for every parameter θ of
    /// the scheme at once (`docs/tamsi_sensitivities.md` §4).
    ///
    /// Costs one solve with Jᵀ and a few products; the first product after a solve also assembles
    /// and factors J at the solution, which later products and
    /// [`compute_sensitivities`](Self::compute_sensitivities) share (until the next solve or
    /// evaluation). `problem` must be the data of the last solve. Nothing is allocated once the
    /// storage has grown. Errors as for `compute_sensitivities`, and
    /// [`TamsiError::NonFiniteGradient`] for a non-finite entry of the given gradients.
    pub fn vjp(
        &mut self,
        problem: &TamsiProblem<'_>,
        dl_dv: DVectorView<'_, f64>,
        dl_dfn: Option<DVectorView<'_, f64>>,
        dl_dft: Option<DVectorView<'_, f64>>,
    ) -> Result<TamsiGradient<'_>, TamsiError> {
        let nc = self.check_sensitivity_problem(problem)?;
        let (nv, scheme) = (self.nv, problem.coupling_scheme());
        let inputs = [("dl_dv", Some(dl_dv), nv), ("dl_dfn", dl_dfn, nc), ("dl_dft", dl_dft, 2 * nc)];
        for (what, g, len) in inputs {
            let Some(g) = g else { continue };
            super::problem::check_len(what, g.len(), len)?;
            if let Some((index, &value)) = g.iter().enumerate().find(|(_, x)| !x.is_finite()) {
                return Err(TamsiError::NonFiniteGradient { what, index, value });
            }
        }
        let force_len = match problem.data {
            ProblemData::Dense { .. } => super::form::DenseForm::force_len(nv),
            ProblemData::Blocks(_) => super::form::BlockForm::force_len(nv),
        };
        let sens = &mut self.sens;
        sens.reserve(nv, nc, force_len, scheme, false)?;
        if sens.scheme != Some(scheme) || sens.nv != nv || sens.nc != nc {
            sens.computed = false;
        }
        (sens.nv, sens.nc, sens.scheme) = (nv, nc, Some(scheme));
        let task = Task::Vjp {
            dl_dv: dl_dv.as_slice(),
            dl_dfn: dl_dfn.as_ref().map(|g| g.as_slice()),
            dl_dft: dl_dft.as_ref().map(|g| g.as_slice()),
        };
        self.run_sensitivity_task(problem, task)?;
        Ok(TamsiGradient { scheme, grad: &self.sens.gradient, nv, nc })
    }
}
