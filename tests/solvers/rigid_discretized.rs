//! Discretized (time-stepping) LCP tests of Drake's `constraint_solver_test.cc`
//! (`docs/rigid_cases.md` §4), every case, through `construct_base_discretized_time_lcp`,
//! `update_discretized_time_lcp`, a fresh unrevised Lemke solve and
//! `populate_packed_constraint_forces_from_lcp_solution` (the fixture's
//! `SolveDiscretizationProblem`, §1.4), with corrected defaults and Drake HEAD's switches.

use contact_solvers::lcp::{LcpOutcome, LcpProblem, UnrevisedLemkeSolver};
use contact_solvers::rigid::{
    ConstraintSolver, ConstraintSolverParameters, Operator, RigidError, RigidOutcome,
    calc_contact_forces_in_contact_frames,
};
use nalgebra::{DMatrix, DVector, Matrix2};
use support::rod2d::*;

fn modes() -> [ConstraintSolverParameters; 2] {
    [ConstraintSolverParameters::default(), ConstraintSolverParameters::DRAKE_HEAD]
}

/// The fixture's `SolveDiscretizationProblem` with its assertions on zz and ww.
fn solve_view(
    s: &mut ConstraintSolver,
    v: &contact_solvers::rigid::ConstraintVelProblemData,
    dt: f64,
) -> Vec<f64> {
    s.construct_base_discretized_time_lcp(v).unwrap();
    s.update_discretized_time_lcp(v, dt).unwrap();
    let mm = s.lcp_matrix().into_owned();
    let qq = DVector::from_column_slice(s.lcp_vector());
    let n = qq.len();
    let tol = if n == 0 { 0.0 } else { n as f64 * mm.amax() * 2.2 * f64::EPSILON };
    let mut lemke = UnrevisedLemkeSolver::new();
    let p = LcpProblem::new(mm.as_view(), qq.as_view()).unwrap();
    assert_eq!(lemke.solve(&p), LcpOutcome::Solved);
    let zz = lemke.z().to_vec();
    if !zz.is_empty() {
        let ww = lemke.w();
        let nt = n as f64 * tol;
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert!(min(&zz) > -nt && min(ww) > -nt);
        let zw = zz.iter().zip(ww).map(|(a, b)| (a * b).abs()).fold(0.0, f64::max);
        assert!(zw < max(&zz).max(1.0) * max(ww).max(1.0) * nt);
    }
    s.populate_packed_constraint_forces_from_lcp_solution(v, &zz, dt).unwrap();
    let cf = s.cf().to_vec();
    // The convenience entry point gives the same forces.
    let mut s2 = ConstraintSolver::with_parameters(*s.parameters());
    assert_eq!(s2.solve_discretized(v, dt), Ok(RigidOutcome::Solved));
    assert_eq!(s2.cf(), &cf[..]);
    cf
}

fn solve(s: &mut ConstraintSolver, d: &VelOwned) -> Vec<f64> {
    solve_view(s, &d.view(), DT)
}

/// `ComputeGeneralizedAcceleration(vel_data, v0, cf, dt_)`.
fn ga(s: &mut ConstraintSolver, d: &VelOwned, v0: &[f64], cf: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; 3];
    s.compute_generalized_acceleration_discretized(&d.view(), v0, cf, DT, &mut out).unwrap();
    out
}

fn contact_forces(cf: &[f64], d: &VelOwned, frames: &[Matrix2<f64>]) -> Result<Vec<[f64; 2]>, RigidError> {
    let mut out = vec![[0.0; 2]; frames.len()];
    let v = d.view();
    calc_contact_forces_in_contact_frames(cf, &v, frames, &mut out).map(|_| out)
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// §4.1 SinglePointStickingBothSigns (part 2).
#[test]
fn single_point_sticking_discretized() {
    for params in modes() {
        for right in [true, false] {
            let mut rod = Rod2D::resting_vertical();
            rod.set_mu(15.0, 15.0);
            let hf = if right { 100.0 } else { -100.0 };
            for cd in 0..=2 {
                for fd in 0..=3 {
                    let n = cd + 1;
                    let mut d = VelOwned::discrete_fixture(&rod, DT, cd, fd);
                    d.mv[0] += hf * DT;
                    d.mv[2] += hf * rod.half_length * DT;
                    let nr: usize = d.r.iter().sum();
                    let mut s = ConstraintSolver::with_parameters(params);
                    d.k_n.fill(9.81 * DT);
                    assert!(norm(&solve(&mut s, &d)) < EPS);
                    for (kn, expect) in [(0.0, 0.0), (-9.81 * DT, 9.81)] {
                        d.k_n.fill(kn);
                        let cf = solve(&mut s, &d);
                        let tol = EPS_ * cf.len() as f64;
                        let cfs = contact_forces(&cf, &d, &vec![non_sliding_frame(); n]);
                        assert_eq!(cfs.is_ok(), fd == 0);
                        let fsum: f64 = cf[n..n + nr].iter().sum();
                        assert!((fsum + hf).abs() <= tol, "friction sum {fsum}");
                        let g = ga(&mut s, &d, &rod.v, &cf);
                        assert!((norm(&g) - expect).abs() <= tol, "{g:?}");
                        if cd == 0 && fd == 0 {
                            let f = if kn == 0.0 { 19.62 } else { 39.24 };
                            assert!(close(&cf, &[f, -hf], 1e-9), "[ref] {cf:?}");
                        }
                    }
                }
            }
        }
    }
}

/// §4.2 TwoPointNonSlidingToSlidingSign (part 2).
#[test]
fn two_point_non_sliding_to_sliding_discretized() {
    for params in modes() {
        for right in [true, false] {
            let mut rod = Rod2D::resting_horizontal();
            rod.set_mu(0.1, 0.1);
            let hf = if right { 100.0 } else { -100.0 };
            let ff_sign = if right { -1.0 } else { 1.0 };
            for cd in 0..=2 {
                for fd in 0..=3 {
                    let n = 2 * (cd + 1);
                    let mut d = VelOwned::discrete_fixture(&rod, DT, cd, fd);
                    d.mv[0] += hf * DT;
                    let mut s = ConstraintSolver::with_parameters(params);
                    d.k_n.fill(9.81 * DT);
                    assert!(norm(&solve(&mut s, &d)) < EPS);
                    for kn in [0.0, -9.81 * DT] {
                        d.k_n.fill(kn);
                        let cf = solve(&mut s, &d);
                        let tol = EPS_ * cf.len() as f64;
                        match contact_forces(&cf, &d, &vec![non_sliding_frame(); n]) {
                            Ok(cfs) => {
                                assert_eq!(fd, 0);
                                assert_eq!(cfs.len(), n);
                                let (mut st, mut sn) = (0.0, 0.0);
                                for f in &cfs {
                                    st += f[1];
                                    sn += f[0];
                                    if kn == 0.0 {
                                        assert!((ff_sign * st - 0.1 * sn).abs() <= tol, "{cfs:?}");
                                    }
                                }
                                assert!((ff_sign * st - 0.1 * sn).abs() <= tol);
                            }
                            Err(e) => assert!(fd > 0 && e == RigidError::NotTwoDimensional),
                        }
                        let g = ga(&mut s, &d, &rod.v, &cf);
                        assert!(if right { g[0] > 0.0 } else { -g[0] > 0.0 });
                        if kn != 0.0 {
                            assert!((g[1] - 9.81).abs() <= tol, "{g:?}");
                        }
                        if cd == 0 && fd == 0 && right {
                            let r = if kn == 0.0 {
                                [9.81, 9.81, -0.981, -0.981]
                            } else {
                                [19.62, 19.62, -1.962, -1.962]
                            };
                            assert!(close(&cf, &r, 1e-9), "[ref] {cf:?}");
                        }
                    }
                }
            }
        }
    }
}

/// §4.3 TwoPointSlidingTest / SinglePointSlidingTest (part 3).
#[test]
fn sliding_discretized() {
    for params in modes() {
        for upright in [false, true] {
            for right in [true, false] {
                let mut rod = if upright { Rod2D::resting_vertical() } else { Rod2D::resting_horizontal() };
                rod.v[0] = if right { 1.0 } else { -1.0 };
                rod.set_mu(0.0, rod.mu_static);
                let mut d = VelOwned::discrete_fixture(&rod, DT, 0, 0);
                let mut s = ConstraintSolver::with_parameters(params);
                d.k_n.fill(9.81 * DT);
                assert!(norm(&solve(&mut s, &d)) < EPS_);
                d.k_n.fill(0.0);
                let cf = solve(&mut s, &d);
                let frames: Vec<_> =
                    rod.contact_points().iter().map(|&p| sliding_frame(rod.slip(p))).collect();
                let cfs = contact_forces(&cf, &d, &frames).unwrap();
                assert_eq!(cfs.len(), frames.len());
                let sn: f64 = cfs.iter().map(|f| f[0]).sum();
                let st: f64 = cfs.iter().map(|f| f[1].abs()).sum();
                assert!((sn - 19.62).abs() <= EPS_ && st <= EPS_, "{cfs:?}");
                let r: &[f64] = if upright { &[19.62, 0.0] } else { &[9.81, 9.81, 0.0, 0.0] };
                assert!(close(&cf, r, 1e-9), "[ref] {cf:?}");
                d.k_n.fill(-9.81 * DT);
                let cf = solve(&mut s, &d);
                let g = ga(&mut s, &d, &rod.v, &cf);
                assert!((g[1] - 9.81).abs() <= EPS_, "{g:?}");
            }
        }
    }
}

/// §4.4 SinglePointSlidingPlusBilateralTest (part 3); bilateral as callbacks.
#[test]
fn sliding_plus_bilateral_discretized() {
    let g_mult = |v: &[f64], y: &mut [f64]| y[0] = v[2];
    let g_t = |f: &[f64], y: &mut [f64]| y[2] = f[0];
    for params in modes() {
        for right in [true, false] {
            let mut rod = Rod2D::resting_vertical();
            rod.set_mu(0.1, rod.mu_static);
            let mut d = VelOwned::discrete_fixture(&rod, DT, 0, 0);
            assert!(close(d.mv.as_slice(), &[0.0, -0.001962, 0.0], 1e-18));
            let sign = if right { 1.0 } else { -1.0 };
            d.mv[0] += sign * rod.mass;
            d.k_g = DVector::from_vec(vec![0.0]);
            let mut s = ConstraintSolver::with_parameters(params);
            for kg in [0.0, 1.0] {
                d.k_g[0] = kg;
                let mut v = d.view();
                v.g_mult = Operator::Callback(&g_mult);
                v.g_transpose_mult = Operator::Callback(&g_t);
                let cf = solve_view(&mut s, &v, DT);
                let tol = EPS_ * cf.len() as f64;
                let mut g = vec![0.0; 3];
                s.compute_generalized_acceleration_discretized(&v, &rod.v, &cf, DT, &mut g).unwrap();
                assert_eq!(cf.len(), 3);
                if kg == 0.0 {
                    assert!((cf[1] + cf[2]).abs() <= 10.0 * EPS, "{cf:?}");
                    let mut cfs = [[0.0; 2]];
                    calc_contact_forces_in_contact_frames(&cf, &v, &[non_sliding_frame()], &mut cfs).unwrap();
                    assert!((cfs[0][0] - 19.62).abs() <= EPS_);
                    assert!((cfs[0][1] - sign * (-19.62) * 0.1).abs() <= EPS_, "{cfs:?}");
                    assert!(g[2] < tol);
                    if right {
                        assert!(close(&cf, &[19.62, -1.962, 1.962], 1e-9), "[ref] {cf:?}");
                    }
                    if right && params == ConstraintSolverParameters::DRAKE_HEAD {
                        // [ref] Drake-faithful MM: quirk Q1 visible (F M⁻¹ Fᵀ = 1.5, not C's 0.5).
                        let mm = DMatrix::from_row_slice(
                            4,
                            4,
                            &[
                                5e-5, 0.0, 0.0, 0.0, 0.0, 1.5e-4, -1.5e-4, 1.0, 0.0, -1.5e-4, 1.5e-4, 1.0,
                                0.1, -1.0, -1.0, 0.0,
                            ],
                        );
                        assert!((s.lcp_matrix() - &mm).amax() < 1e-18, "{}", s.lcp_matrix());
                        assert!(
                            close(s.lcp_vector(), &[-9.81e-4, 1.0, -1.0, 0.0], 1e-15),
                            "{:?}",
                            s.lcp_vector()
                        );
                    }
                    if right && params == ConstraintSolverParameters::default() {
                        // Corrected: C = constrained inverse inertia, F C Fᵀ = 0.5.
                        assert!((s.lcp_matrix()[(1, 1)] - 0.5e-4).abs() < 1e-18);
                    }
                } else {
                    assert!((g[2] * DT + 1.0).abs() <= tol, "{g:?}");
                    if right {
                        assert!(
                            (cf[0] - 19.62).abs() < 1e-9
                                && cf[1].abs() < 1e-12
                                && (cf[2] + 10000.0).abs() < 1e-6,
                            "[ref] {cf:?}"
                        );
                    }
                }
            }
        }
    }
}

/// §4.4 [ref]: the Drake-faithful LCP's unrevised Lemke solution and pivots.
#[test]
fn sliding_plus_bilateral_discretized_lcp_reference() {
    let mm = DMatrix::from_row_slice(
        4,
        4,
        &[5e-5, 0.0, 0.0, 0.0, 0.0, 1.5e-4, -1.5e-4, 1.0, 0.0, -1.5e-4, 1.5e-4, 1.0, 0.1, -1.0, -1.0, 0.0],
    );
    let qq = DVector::from_vec(vec![-9.81e-4, 1.0, -1.0, 0.0]);
    let mut s = UnrevisedLemkeSolver::new();
    assert_eq!(s.solve(&LcpProblem::new(mm.as_view(), qq.as_view()).unwrap()), LcpOutcome::Solved);
    assert!(close(s.z(), &[19.62, 0.0, 1.962, 0.9997057], 1e-7), "{:?}", s.z());
    assert_eq!(s.num_pivots(), 3);
}

/// §4.5 OnePointPlusLimitTest (part 3).
#[test]
fn one_point_plus_limit_discretized() {
    for params in modes() {
        let mut rod = Rod2D::resting_horizontal();
        rod.v[0] = 1.0;
        rod.set_mu(0.1, rod.mu_static);
        let full = VelOwned::discrete_fixture(&rod, DT, 0, 0);
        let mut d = full.clone();
        d.mu = DVector::from_vec(vec![0.0]);
        d.r = vec![1];
        d.n = full.n.rows(0, 1).into_owned();
        d.f = full.f.rows(0, 1).into_owned();
        d.l = full.n.rows(1, 1).into_owned();
        for v in [
            &mut d.k_n,
            &mut d.k_f,
            &mut d.gamma_n,
            &mut d.gamma_f,
            &mut d.gamma_e,
            &mut d.k_l,
            &mut d.gamma_l,
        ] {
            *v = DVector::zeros(1);
        }
        let mut s = ConstraintSolver::with_parameters(params);
        for (k, expect) in [(9.81 * DT, None), (0.0, Some(0.0)), (-9.81 * DT, Some(9.81))] {
            d.k_n[0] = k;
            d.k_l[0] = k;
            let cf = solve(&mut s, &d);
            match expect {
                None => assert!(norm(&cf) < EPS_),
                Some(a) => {
                    assert_eq!(cf.len(), 3);
                    let g = ga(&mut s, &d, &rod.v, &cf);
                    assert!((g[1] - a).abs() <= EPS_, "{g:?}");
                    let f = if a == 0.0 { 9.81 } else { 19.62 };
                    assert!(close(&cf, &[f, 0.0, f], 1e-9), "[ref] {cf:?}");
                }
            }
        }
    }
}

/// §4.6 TwoPointAsLimitTest (part 3).
#[test]
fn two_point_as_limit_discretized() {
    for params in modes() {
        let rod = Rod2D::resting_horizontal();
        let mut d = VelOwned::discrete_fixture(&rod, DT, 0, 0);
        d.remove_contacts();
        d.l = DMatrix::from_row_slice(1, 3, &[0.0, 1.0, 0.0]);
        d.k_l = DVector::from_vec(vec![0.0]);
        d.gamma_l = DVector::from_vec(vec![0.0]);
        let mut s = ConstraintSolver::with_parameters(params);
        let cf = solve(&mut s, &d);
        assert_eq!(cf.len(), 1);
        assert!((cf[0] - 19.62).abs() <= EPS_, "{cf:?}");
        d.l = -d.l;
        d.mv = -d.mv;
        let cf = solve(&mut s, &d);
        assert!((cf[0] - 19.62).abs() <= EPS_, "{cf:?}");
        let g = ga(&mut s, &d, &rod.v, &cf);
        assert!(g[1].abs() <= EPS_, "{g:?}");
    }
}

/// `docs/rigid.md` §7.2, quirk Q3 (§12): γ once (`h·block + γ`) by default, Drake's doubled form
/// with the switch.
#[test]
fn discretized_gamma_once_or_doubled() {
    let mut rod = Rod2D::resting_horizontal();
    rod.set_mu(0.5, 0.5);
    let mut d = VelOwned::discrete_fixture(&rod, DT, 0, 0);
    d.gamma_n.fill(0.25);
    d.gamma_f.fill(0.125);
    d.gamma_e.fill(0.0625);
    d.k_n.fill(-1e-3);
    let h = 0.01;
    let mut base = ConstraintSolver::new();
    base.construct_base_discretized_time_lcp(&d.view()).unwrap();
    let m0 = base.lcp_matrix().into_owned();
    for (params, doubled) in
        [(ConstraintSolverParameters::default(), false), (ConstraintSolverParameters::DRAKE_HEAD, true)]
    {
        let mut s = ConstraintSolver::with_parameters(params);
        s.construct_base_discretized_time_lcp(&d.view()).unwrap();
        s.update_discretized_time_lcp(&d.view(), h).unwrap();
        let m = s.lcp_matrix();
        // fN diagonal: base (block + γN once) → h·block + γN, or h·block + (h+1)γN.
        let block = m0[(0, 0)] - 0.25;
        let g = if doubled { (h + 1.0) * 0.25 } else { 0.25 };
        assert!((m[(0, 0)] - (h * block + g)).abs() < 1e-15, "{} vs {}", m[(0, 0)], h * block + g);
        let fb = m0[(2, 2)] - 0.125;
        let gf = if doubled { (h + 1.0) * 0.125 } else { 0.125 };
        assert!((m[(2, 2)] - (h * fb + gf)).abs() < 1e-15);
        assert!((m[(4, 4)] - (h * fb + gf)).abs() < 1e-15);
        let ge = if doubled { 2.0 * 0.0625 } else { 0.0625 };
        assert!((m[(6, 6)] - ge).abs() < 1e-15);
        // μ entries are not scaled.
        assert_eq!(m[(6, 0)], 0.5);
        // Repeating the update with another h does not compound the scaling.
        s.update_discretized_time_lcp(&d.view(), h).unwrap();
        assert!((s.lcp_matrix()[(0, 0)] - (h * block + g)).abs() < 1e-15);
    }
    let mut s = ConstraintSolver::new();
    assert_eq!(s.update_discretized_time_lcp(&d.view(), h), Err(RigidError::NoDiscretizedLcp));
    s.construct_base_discretized_time_lcp(&d.view()).unwrap();
    assert!(matches!(s.update_discretized_time_lcp(&d.view(), 0.0), Err(RigidError::InvalidArgument(_))));
}
