//! Velocity-level `SolveImpactProblem` tests of Drake's `constraint_solver_test.cc`
//! (`docs/rigid_cases.md` §3), every case, with the corrected defaults and with Drake HEAD's
//! compatibility switches.

use contact_solvers::rigid::{
    ConstraintSolver, ConstraintSolverParameters, Operator, RigidError, RigidOutcome,
    calc_contact_forces_in_contact_frames,
};
use nalgebra::{DMatrix, DVector, Matrix2};
use support::rod2d::*;

fn modes() -> [ConstraintSolverParameters; 2] {
    [ConstraintSolverParameters::default(), ConstraintSolverParameters::DRAKE_HEAD]
}

fn solve(s: &mut ConstraintSolver, d: &VelOwned) -> Vec<f64> {
    assert_eq!(s.solve_impact_problem(&d.view()), Ok(RigidOutcome::Solved));
    s.cf().to_vec()
}

/// `ComputeGeneralizedVelocityChange`.
fn dgv(s: &mut ConstraintSolver, d: &VelOwned, cf: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; 3];
    s.compute_generalized_velocity_change(&d.view(), cf, &mut out).unwrap();
    out
}

/// `v0 = solve_inertia(Mv)`.
fn v0(d: &VelOwned) -> Vec<f64> {
    (&d.minv * &d.mv).as_slice().to_vec()
}

fn contact_forces(cf: &[f64], d: &VelOwned, frames: &[Matrix2<f64>]) -> Result<Vec<[f64; 2]>, RigidError> {
    let mut out = vec![[0.0; 2]; frames.len()];
    let v = d.view();
    calc_contact_forces_in_contact_frames(cf, &v, frames, &mut out).map(|_| out)
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// §3.1 TwoPointImpactNoTransitionToStictionTest.
#[test]
fn two_point_impact_no_transition_to_stiction() {
    for params in modes() {
        for right in [true, false] {
            let mut rod = Rod2D::sliding_impacting_horizontal(right);
            rod.set_mu(1e-4, rod.mu_static);
            let sign = if right { 1.0 } else { -1.0 };
            for cd in 0..=2 {
                for fd in 0..=3 {
                    let n = 2 * (cd + 1);
                    let frames = vec![non_sliding_frame(); n];
                    let mut d = VelOwned::fixture(&rod, cd, fd);
                    if fd % 2 == 1 {
                        d.inertia_form = InertiaForm::Inverse;
                    }
                    let v0 = v0(&d);
                    let mut s = ConstraintSolver::with_parameters(params);
                    d.k_n.fill(1.0);
                    assert!(norm(&solve(&mut s, &d)) < EPS);

                    d.k_n.fill(0.0);
                    let cf = solve(&mut s, &d);
                    let ff_sign = if right { -1.0 } else { 1.0 };
                    let cfs = contact_forces(&cf, &d, &frames);
                    if fd == 0 {
                        let cfs = cfs.unwrap();
                        assert_eq!(cfs.len(), n);
                        let (mut st, mut sn) = (0.0, 0.0);
                        for f in &cfs {
                            st += f[1];
                            sn += f[0];
                            assert!((ff_sign * st - 1e-4 * sn).abs() <= EPS_, "{cfs:?}");
                        }
                    } else {
                        assert_eq!(cfs, Err(RigidError::NotTwoDimensional));
                    }
                    let g = dgv(&mut s, &d, &cf);
                    assert!(sign * v0[0] + g[0] > 0.0);
                    if cd == 0 && fd == 0 && right {
                        assert!(close(&cf, &[1.0, 1.0, -1e-4, -1e-4], 1e-12), "[ref] {cf:?}");
                    }

                    d.k_n.fill(-1.0);
                    let cf = solve(&mut s, &d);
                    let cfs = contact_forces(&cf, &d, &frames);
                    if fd == 0 {
                        let cfs = cfs.unwrap();
                        let st: f64 = cfs.iter().map(|f| f[1].abs()).sum();
                        let sn: f64 = cfs.iter().map(|f| f[0]).sum();
                        assert!((st - 1e-4 * sn).abs() <= EPS_);
                    } else {
                        assert_eq!(cfs, Err(RigidError::NotTwoDimensional));
                    }
                    let g = dgv(&mut s, &d, &cf);
                    assert!(sign * v0[0] + g[0] > 0.0);
                    assert!(((v0[1] + g[1]) - (-v0[1])).abs() <= EPS_, "{g:?}");
                    if cd == 0 && fd == 0 && right {
                        assert!(close(&cf, &[2.0, 2.0, -2e-4, -2e-4], 1e-12), "[ref] {cf:?}");
                    }
                }
            }
        }
    }
}

/// §3.2 TwoPointImpactingAndStickingTest.
#[test]
fn two_point_impacting_and_sticking() {
    for params in modes() {
        for right in [true, false] {
            let mut rod = Rod2D::sliding_impacting_horizontal(right);
            rod.set_mu(15.0, rod.mu_static);
            for cd in 0..=2 {
                for fd in 0..=3 {
                    let n = 2 * (cd + 1);
                    let frames = vec![non_sliding_frame(); n];
                    let mut d = VelOwned::fixture(&rod, cd, fd);
                    let v0 = v0(&d);
                    let mut s = ConstraintSolver::with_parameters(params);
                    d.k_n.fill(1.0);
                    assert!(norm(&solve(&mut s, &d)) < EPS);

                    d.k_n.fill(0.0);
                    let cf = solve(&mut s, &d);
                    for f in &frames {
                        assert!((f.column(0) - nalgebra::Vector2::new(0.0, 1.0)).norm() < EPS);
                        assert!((f.column(1) - nalgebra::Vector2::new(1.0, 0.0)).norm() < EPS);
                    }
                    match contact_forces(&cf, &d, &frames) {
                        Ok(c) => assert!(fd == 0 && c.len() == n),
                        Err(e) => assert!(fd > 0 && e == RigidError::NotTwoDimensional),
                    }
                    let g = dgv(&mut s, &d, &cf);
                    let vn: Vec<f64> = (0..3).map(|i| v0[i] + g[i]).collect();
                    assert!(norm(&vn) < EPS_, "{vn:?}");
                    if cd == 0 && fd == 0 && right {
                        assert!(close(&cf, &[1.0, 1.0, -2.0, 0.0], 1e-12), "[ref] {cf:?}");
                        #[rustfmt::skip]
                        let mm = DMatrix::from_row_slice(8, 8, &[
                            1.5, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                            -0.5, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
                            0.0, 0.0, 0.5, 0.5, -0.5, -0.5, 1.0, 0.0,
                            0.0, 0.0, 0.5, 0.5, -0.5, -0.5, 0.0, 1.0,
                            0.0, 0.0, -0.5, -0.5, 0.5, 0.5, 1.0, 0.0,
                            0.0, 0.0, -0.5, -0.5, 0.5, 0.5, 0.0, 1.0,
                            15.0, 0.0, -1.0, 0.0, -1.0, 0.0, 0.0, 0.0,
                            0.0, 15.0, 0.0, -1.0, 0.0, -1.0, 0.0, 0.0]);
                        assert!((s.lcp_matrix() - &mm).amax() < 1e-15);
                        assert!(close(s.lcp_vector(), &[-1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 0.0, 0.0], 1e-15));
                        assert!(close(s.lcp_z(), &[1.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0], 1e-12));
                        assert_eq!(s.num_pivots(), 3);
                    }

                    d.k_n.fill(-1.0);
                    let cf = solve(&mut s, &d);
                    let g = dgv(&mut s, &d, &cf);
                    assert!(v0[0] + g[0] < EPS_);
                    assert!((v0[1] + g[1] - 1.0).abs() <= EPS_);
                    assert!(v0[2] + g[2] < EPS_);
                    if cd == 0 && fd == 0 && right {
                        assert!(close(&cf, &[2.0, 2.0, -2.0, 0.0], 1e-12), "[ref] {cf:?}");
                    }
                }
            }
        }
    }
}

/// §3.3 NoImpactImpliesNoImpulses.
#[test]
fn no_impact_implies_no_impulses() {
    for params in modes() {
        let rod = Rod2D::upward_moving_horizontal();
        for cd in 0..=2 {
            for fd in 0..=3 {
                let d = VelOwned::fixture(&rod, cd, fd);
                let mut s = ConstraintSolver::with_parameters(params);
                let cf = solve(&mut s, &d);
                assert!(norm(&cf) < EPS_);
                assert_eq!(cf.len(), d.n.nrows() + d.f.nrows(), "zeros(nc + nr)");
            }
        }
    }
}

/// §3.4 SinglePointSlidingImpactPlusBilateralTest; bilateral operators as callbacks.
#[test]
fn sliding_plus_bilateral_impact() {
    let g_mult = |v: &[f64], y: &mut [f64]| y[0] = v[2];
    let g_t = |f: &[f64], y: &mut [f64]| y[2] = f[0];
    for params in modes() {
        for right in [true, false] {
            let mut rod = Rod2D::sliding_impacting_vertical(right);
            rod.set_mu(0.1, rod.mu_static);
            let mut d = VelOwned::rod(&rod);
            let v0 = v0(&d);
            d.k_g = DVector::from_vec(vec![0.0]);
            let sign = if right { 1.0 } else { -1.0 };
            let mut s = ConstraintSolver::with_parameters(params);
            for kg in [0.0, 1.0] {
                d.k_g[0] = kg;
                let mut v = d.view();
                v.g_mult = Operator::Callback(&g_mult);
                v.g_transpose_mult = Operator::Callback(&g_t);
                assert_eq!(s.solve_impact_problem(&v), Ok(RigidOutcome::Solved));
                let cf = s.cf().to_vec();
                let tol = EPS_ * cf.len() as f64;
                let mut gv = vec![0.0; 3];
                s.compute_generalized_velocity_change(&v, &cf, &mut gv).unwrap();
                if kg == 0.0 {
                    let mut cfs = [[0.0; 2]];
                    calc_contact_forces_in_contact_frames(&cf, &v, &[non_sliding_frame()], &mut cfs).unwrap();
                    let (nc, nb) = (1, 1);
                    assert_eq!(cf.len(), 2 * nc + nb);
                    assert!((cfs[0][0] - 2.0).abs() <= EPS_);
                    assert!((cfs[0][1] - sign * (-2.0) * 0.1).abs() <= EPS_, "{cfs:?}");
                    assert!(v0[2] + gv[2] < tol);
                    let r = if right { [2.0, -0.2, 0.2] } else { [2.0, 0.2, -0.2] };
                    assert!(close(&cf, &r, 1e-12), "[ref] {cf:?}");
                } else {
                    assert!((v0[2] + gv[2] + 1.0).abs() <= tol, "{gv:?}");
                    let r = if right { [2.0, 0.0, -1.0] } else { [2.0, 0.2, -1.2] };
                    assert!(close(&cf, &r, 1e-12), "[ref] {cf:?}");
                }
            }
        }
    }
}

/// §3.5 ContactLimitCrossTermVel.
#[test]
fn contact_limit_cross_term_vel() {
    for params in modes() {
        let mut rod = Rod2D::sliding_impacting_horizontal(true);
        rod.set_mu(1.0, 1.0);
        let mut d = VelOwned::rod(&rod);
        d.mv[0] = 1.0;
        d.l = DMatrix::from_row_slice(1, 3, &[0.0, -1.0, 0.0]);
        d.k_l = DVector::from_vec(vec![0.0]);
        d.gamma_l = DVector::from_vec(vec![0.0]);
        let v0 = v0(&d);
        assert_eq!(v0, vec![0.5, -1.0, 0.0]);
        let mut s = ConstraintSolver::with_parameters(params);
        let cf = solve(&mut s, &d);
        assert_eq!(cf.len(), 2 * 2 + 1);
        let g = dgv(&mut s, &d, &cf);
        assert!((v0[0] + g[0]).abs() <= EPS_ && (v0[1] + g[1]).abs() <= EPS_, "{g:?}");
        assert!(close(&cf, &[1.0, 1.0, -1.0, 0.0, 0.0], 1e-12), "[ref] {cf:?}");
        #[rustfmt::skip]
        let mm = DMatrix::from_row_slice(9, 9, &[
            1.5, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.5,
            -0.5, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.5,
            0.0, 0.0, 0.5, 0.5, -0.5, -0.5, 1.0, 0.0, 0.0,
            0.0, 0.0, 0.5, 0.5, -0.5, -0.5, 0.0, 1.0, 0.0,
            0.0, 0.0, -0.5, -0.5, 0.5, 0.5, 1.0, 0.0, 0.0,
            0.0, 0.0, -0.5, -0.5, 0.5, 0.5, 0.0, 1.0, 0.0,
            1.0, 0.0, -1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 1.0, 0.0, -1.0, 0.0, -1.0, 0.0, 0.0, 0.0,
            -0.5, -0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5]);
        assert!((s.lcp_matrix() - &mm).amax() < 1e-15, "{}", s.lcp_matrix());
        assert!(close(s.lcp_vector(), &[-1.0, -1.0, 0.5, 0.5, -0.5, -0.5, 0.0, 0.0, 1.0], 1e-15));
        assert!(close(s.lcp_z(), &[1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], 1e-12));
        assert_eq!(s.num_pivots(), 3);
    }
}

/// §3.6 TwoPointImpactAsLimit.
#[test]
fn two_point_impact_as_limit() {
    for params in modes() {
        let rod = Rod2D::sliding_impacting_horizontal(true);
        let mut d = VelOwned::fixture(&rod, 0, 0);
        let mut v0 = v0(&d);
        assert_eq!(v0, vec![1.0, -1.0, 0.0]);
        d.remove_contacts();
        d.l = DMatrix::from_row_slice(1, 3, &[0.0, 1.0, 0.0]);
        d.k_l = DVector::from_vec(vec![0.0]);
        d.gamma_l = DVector::from_vec(vec![0.0]);
        let mut s = ConstraintSolver::with_parameters(params);
        let cf = solve(&mut s, &d);
        assert_eq!(cf.len(), 1);
        assert!((cf[0] - 2.0).abs() <= EPS_);
        d.l = -d.l;
        d.mv = -d.mv;
        v0.iter_mut().for_each(|x| *x = -*x);
        let cf = solve(&mut s, &d);
        assert!((cf[0] - 2.0).abs() <= EPS_);
        let g = dgv(&mut s, &d, &cf);
        assert!((v0[1] + g[1]).abs() <= EPS_);
        d.k_l[0] = (&d.l * DVector::from_vec(v0.clone()))[0];
        assert_eq!(d.k_l[0], -1.0);
        let cf = solve(&mut s, &d);
        assert_eq!(cf.len(), 1);
        assert!((cf[0] - 4.0).abs() <= EPS_, "{cf:?}");
    }
}

/// §3.7 BilateralOnly: no contacts, one bilateral constraint; the LCP is 0×0.
#[test]
fn bilateral_only() {
    let g_mult = |v: &[f64], y: &mut [f64]| y[0] = v[2];
    let g_t = |f: &[f64], y: &mut [f64]| y[2] = f[0];
    for params in modes() {
        let rod = Rod2D::ballistic();
        assert!(rod.contact_points().is_empty());
        let mut d = VelOwned::fixture(&rod, 0, 0);
        d.k_g = DVector::from_vec(vec![1.0]);
        let v = v0(&d);
        let mut view = d.view();
        view.g_mult = Operator::Callback(&g_mult);
        view.g_transpose_mult = Operator::Callback(&g_t);
        let mut s = ConstraintSolver::with_parameters(params);
        assert_eq!(s.solve_impact_problem(&view), Ok(RigidOutcome::Solved));
        let cf = s.cf().to_vec();
        let mut gv = vec![0.0; 3];
        s.compute_generalized_velocity_change(&view, &cf, &mut gv).unwrap();
        assert!((v[2] + gv[2] + 1.0).abs() <= EPS_ * cf.len() as f64);
        assert!(close(&cf, &[-1.0], 1e-14), "[ref] {cf:?}");
    }
}

/// `docs/rigid.md` §2.2 / §11: usage errors of the velocity level.
#[test]
fn usage_errors() {
    let rod = Rod2D::sliding_impacting_horizontal(true);
    let mut d = VelOwned::rod(&rod);
    let mut s = ConstraintSolver::new();
    d.r = vec![1];
    assert!(matches!(s.solve_impact_problem(&d.view()), Err(RigidError::DimensionMismatch { .. })));
    let mut d = VelOwned::rod(&rod);
    d.gamma_n[0] = -1.0;
    assert!(matches!(
        s.solve_impact_problem(&d.view()),
        Err(RigidError::InvalidEntry { what: "gammaN", index: (0, 0), value: -1.0, .. })
    ));
    let mut d = VelOwned::rod(&rod);
    d.mv[1] = f64::INFINITY;
    assert!(matches!(
        s.solve_impact_problem(&d.view()),
        Err(RigidError::InvalidEntry { what: "Mv", index: (1, 0), value: f64::INFINITY, .. })
    ));
    let mut d = VelOwned::rod(&rod);
    d.n[(1, 2)] = f64::NAN;
    assert!(matches!(
        s.solve_impact_problem(&d.view()),
        Err(RigidError::InvalidEntry { what: "N_mult", index: (1, 2), matrix: true, .. })
    ));
    let mut d = VelOwned::rod(&rod);
    d.gamma_n = DVector::zeros(0);
    assert_eq!(s.solve_impact_problem(&d.view()), Ok(RigidOutcome::Solved), "empty gamma = 0");
    let mut out = vec![0.0; 3];
    s.compute_generalized_velocity_change(&d.view(), &[], &mut out).unwrap();
    assert_eq!(out, vec![0.0; 3], "empty cf → zero impulse");
    assert!(matches!(
        s.compute_generalized_velocity_change(&d.view(), &[1.0], &mut out),
        Err(RigidError::DimensionMismatch { .. })
    ));
    let mut d = VelOwned::rod(&rod);
    d.n = DMatrix::zeros(2, 4);
    assert!(matches!(s.solve_impact_problem(&d.view()), Err(RigidError::OperatorShape { .. })));
}
