//! Sensitivities (`docs/ipm.md` §7): the closed-form central-path reference of §9.A6, and
//! implicit differentiation against central finite differences of the solve on random problems
//! (also §9.A8's "Jacobians vs finite differences < 1e-6").

use support::ipm_common;

use contact_solvers::ipm::{
    ContactModel, IpmData, IpmOutcome, IpmParameters, IpmProblem, IpmSolver, NewtonSolve,
    SensitivityParameter,
};
use nalgebra::{DMatrix, DVector};

/// The 1-D impact problem of A6: m = 1, g = 1, h = 0.1, z0 = 0, v0 = 0, upward force F.
fn a6_solve(f: f64, kappa: f64, params: IpmParameters) -> (f64, f64, IpmOutcome) {
    let m = DMatrix::from_element(1, 1, 1.0);
    let v0 = DVector::from_element(1, 0.0);
    let tau = DVector::from_element(1, f - 1.0);
    let jn = DMatrix::from_element(1, 1, 1.0);
    let jt = DMatrix::zeros(2, 1);
    let phi = DVector::from_element(1, 0.0);
    let mu = DVector::from_element(1, 0.0);
    let models = [ContactModel::Impact];
    let h = 0.1;
    let p = IpmProblem {
        data: IpmData::Dense { m: m.as_view(), jn: jn.as_view(), jt: jt.as_view() },
        v0: v0.as_view(),
        tau: tau.as_view(),
        h,
        phi: phi.as_view(),
        mu: mu.as_view(),
        models: &models,
        vt_offset: None,
    };
    let mut s = IpmSolver::new(IpmParameters { fixed_kappa: kappa, ..params }).unwrap();
    let out = s.solve(&p).unwrap();
    s.compute_sensitivities(&p).unwrap();
    let dv_dtau = s.velocity_sensitivity(SensitivityParameter::Tau).unwrap()[(0, 0)];
    (h * s.velocities()[0], h * dv_dtau, out)
}

fn tight() -> IpmParameters {
    IpmParameters { rtol: 1e-14, btol: 1e-15, max_iter: 200, ..IpmParameters::dojo() }
}

#[test]
fn a6_fixed_kappa_matches_the_central_path_closed_form() {
    let (m, g, h) = (1.0f64, 1.0f64, 0.1f64);
    let table = ipm_common::A6_TABLE;
    for mode in [NewtonSolve::Condensed, NewtonSolve::Dense] {
        for (kappa, row) in table {
            for (&f, &(z_tab, dz_tab)) in [0.5, 0.9, 1.0, 1.1, 1.5].iter().zip(&row) {
                let (z, dz, out) = a6_solve(f, kappa, IpmParameters { newton_solve: mode, ..tight() });
                assert_eq!(out, IpmOutcome::Converged, "κ {kappa} F {f}");
                // Closed form (§9.A6).
                let a = h * h * (f - m * g);
                let root = (h.powi(4) * (f - m * g).powi(2) + 4.0 * m * h * kappa).sqrt();
                let z_exact = h * (a + root) / (2.0 * m * h);
                let dz_exact = h * h / (2.0 * m) * (1.0 + a / root);
                let relerr = |x: f64, y: f64| (x - y).abs() / y.abs();
                assert!(relerr(z, z_exact) < 1e-8, "κ {kappa} F {f}: z {z:e} vs {z_exact:e}");
                assert!(relerr(dz, dz_exact) < 1e-8, "κ {kappa} F {f}: dz/dF {dz:e} vs {dz_exact:e}");
                // The printed table (7 significant digits).
                assert!(relerr(z, z_tab) < 1e-6, "κ {kappa} F {f}: z {z:e} vs table {z_tab:e}");
                assert!(relerr(dz, dz_tab) < 1e-6, "κ {kappa} F {f}: dz {dz:e} vs table {dz_tab:e}");
                // IFT vs a central finite difference of the fixed-κ solve.
                let d = 1e-6 * f;
                let (zp, _, _) = a6_solve(f + d, kappa, tight());
                let (zm, _, _) = a6_solve(f - d, kappa, tight());
                let fd = (zp - zm) / (2.0 * d);
                assert!(relerr(dz, fd) < 1e-6, "κ {kappa} F {f}: IFT {dz:e} vs FD {fd:e}");
            }
        }
    }
}

#[test]
fn a6_solver_at_tolerance_gradient_is_half_at_the_threshold() {
    // Soft check of §9.A6 (undercut = 1, rtol = 1e-10): the smoothed gradient at F = 1 is
    // ≈ h²/2 = 0.005 for impact, whatever btol.
    for btol in [1e-4, 1e-6, 1e-8] {
        let p = IpmParameters { undercut: 1.0, rtol: 1e-10, btol, ..IpmParameters::dojo() };
        let (_, dz, out) = a6_solve(1.0, 0.0, p);
        assert_eq!(out, IpmOutcome::Converged, "btol {btol}");
        assert!((dz - 0.005).abs() < 1e-4, "btol {btol}: dz/dF {dz}");
    }
}

/// A random problem: n dofs, nc contacts of mixed models, M SPD, contacts near the surface.
struct Random {
    m: DMatrix<f64>,
    v0: DVector<f64>,
    tau: DVector<f64>,
    jn: DMatrix<f64>,
    jt: DMatrix<f64>,
    phi: DVector<f64>,
    mu: DVector<f64>,
    models: Vec<ContactModel>,
    h: f64,
}

fn lcg(s: &mut u64) -> f64 {
    *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
}

impl Random {
    fn new(n: usize, nc: usize, seed: u64) -> Self {
        let mut s = seed;
        let a = DMatrix::from_fn(n, n, |_, _| lcg(&mut s));
        let m = &a * a.transpose() + DMatrix::identity(n, n) * (n as f64);
        let models = (0..nc)
            .map(|i| [ContactModel::SecondOrderCone, ContactModel::Linear, ContactModel::Impact][i % 3])
            .collect();
        let h = 0.01;
        Self {
            v0: DVector::from_fn(n, |_, _| lcg(&mut s)),
            tau: DVector::from_fn(n, |_, _| 20.0 * lcg(&mut s)),
            jn: DMatrix::from_fn(nc, n, |_, _| lcg(&mut s)),
            jt: DMatrix::from_fn(2 * nc, n, |_, _| lcg(&mut s)),
            phi: DVector::from_fn(nc, |_, _| 0.005 * lcg(&mut s)),
            mu: DVector::from_fn(nc, |_, _| 0.5 + 0.4 * lcg(&mut s)),
            m,
            models,
            h,
        }
    }

    fn problem(&self) -> IpmProblem<'_> {
        IpmProblem {
            data: IpmData::Dense { m: self.m.as_view(), jn: self.jn.as_view(), jt: self.jt.as_view() },
            v0: self.v0.as_view(),
            tau: self.tau.as_view(),
            h: self.h,
            phi: self.phi.as_view(),
            mu: self.mu.as_view(),
            models: &self.models,
            vt_offset: None,
        }
    }

    /// (v, impulses) of a tight fixed-κ solve.
    fn solve(&self, params: IpmParameters) -> (Vec<f64>, Vec<f64>) {
        let mut s = IpmSolver::new(params).unwrap();
        let out = s.solve(&self.problem()).unwrap();
        assert_eq!(
            out,
            IpmOutcome::Converged,
            "{:?} {:?} {:?}",
            s.stats(),
            s.rvio_history(),
            s.bvio_history()
        );
        (s.velocities().to_vec(), s.impulses().to_vec())
    }

    fn param_mut(&mut self, p: SensitivityParameter, j: usize) -> &mut f64 {
        match p {
            SensitivityParameter::V0 => &mut self.v0[j],
            SensitivityParameter::Tau => &mut self.tau[j],
            SensitivityParameter::Phi => &mut self.phi[j],
            SensitivityParameter::Mu => &mut self.mu[j],
        }
    }
}

#[test]
fn ift_matches_central_finite_differences_on_random_problems() {
    for (seed, n, nc) in [(1u64, 6usize, 3usize), (2, 9, 5), (3, 12, 6)] {
        for mode in [NewtonSolve::Condensed, NewtonSolve::Dense] {
            let params = IpmParameters {
                fixed_kappa: 1e-3,
                rtol: 1e-13,
                btol: 1e-13,
                max_iter: 200,
                newton_solve: mode,
                ..Default::default()
            };
            let mut r = Random::new(n, nc, seed);
            let mut s = IpmSolver::new(params).unwrap();
            let out = s.solve(&r.problem()).unwrap();
            assert_eq!(
                out,
                IpmOutcome::Converged,
                "{:?} {:?} {:?}",
                s.stats(),
                s.rvio_history(),
                s.bvio_history()
            );
            s.compute_sensitivities(&r.problem()).unwrap();
            let mut worst: f64 = 0.0;
            for param in SensitivityParameter::ALL {
                let dv = s.velocity_sensitivity(param).unwrap().clone_owned();
                let dl = s.impulse_sensitivity(param).unwrap().clone_owned();
                let cols = if matches!(param, SensitivityParameter::V0 | SensitivityParameter::Tau) {
                    n
                } else {
                    nc
                };
                assert_eq!((dv.nrows(), dv.ncols(), dl.nrows(), dl.ncols()), (n, cols, 3 * nc, cols));
                for j in 0..cols {
                    let x0 = *r.param_mut(param, j);
                    let d = 1e-6 * x0.abs().max(1e-2);
                    *r.param_mut(param, j) = x0 + d;
                    let (vp, lp) = r.solve(params);
                    *r.param_mut(param, j) = x0 - d;
                    let (vm, lm) = r.solve(params);
                    *r.param_mut(param, j) = x0;
                    let scale_v = dv.column(j).amax().max(1e-3);
                    let scale_l = dl.column(j).amax().max(1e-3);
                    for i in 0..n {
                        let fd = (vp[i] - vm[i]) / (2.0 * d);
                        let e = (fd - dv[(i, j)]).abs() / scale_v;
                        worst = worst.max(e);
                        assert!(
                            e < 1e-6,
                            "seed {seed} {mode:?} {param:?} col {j} v[{i}]: IFT {} FD {fd}",
                            dv[(i, j)]
                        );
                    }
                    for i in 0..3 * nc {
                        let fd = (lp[i] - lm[i]) / (2.0 * d);
                        let e = (fd - dl[(i, j)]).abs() / scale_l;
                        worst = worst.max(e);
                        assert!(
                            e < 1e-6,
                            "seed {seed} {mode:?} {param:?} col {j} λ[{i}]: IFT {} FD {fd}",
                            dl[(i, j)]
                        );
                    }
                }
            }
            eprintln!("seed {seed} n {n} nc {nc} {mode:?}: worst relative IFT/FD mismatch {worst:e}");
        }
    }
}

#[test]
fn sensitivity_accessors_require_a_computation() {
    let r = Random::new(4, 2, 9);
    let mut s = IpmSolver::default();
    assert!(s.velocity_sensitivity(SensitivityParameter::Tau).is_err());
    assert!(s.compute_sensitivities(&r.problem()).is_err());
    s.solve(&r.problem()).unwrap();
    assert!(s.impulse_sensitivity(SensitivityParameter::Mu).is_err());
    s.compute_sensitivities(&r.problem()).unwrap();
    assert!(s.impulse_sensitivity(SensitivityParameter::Mu).is_ok());
}
