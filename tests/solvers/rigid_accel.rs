//! Acceleration-level `SolveConstraintProblem` tests of Drake's `constraint_solver_test.cc`
//! (`docs/rigid_cases.md` §2), every case, through the Rust API. Each test runs with the
//! corrected defaults and with every Drake-compatibility switch on (`DRAKE_HEAD`); Drake's
//! assertions hold in both (`docs/rigid_cases.md`, preamble).

use contact_solvers::rigid::{
    ConstraintSolver, ConstraintSolverParameters, Operator, RigidError, RigidOutcome,
    calc_contact_forces_in_contact_frames,
};
use nalgebra::{DMatrix, DVector, Matrix2};
use support::rod2d::*;

fn modes() -> [ConstraintSolverParameters; 2] {
    [ConstraintSolverParameters::default(), ConstraintSolverParameters::DRAKE_HEAD]
}

fn solve(s: &mut ConstraintSolver, d: &AccelOwned) -> Vec<f64> {
    assert_eq!(s.solve_constraint_problem(&d.view()), Ok(RigidOutcome::Solved));
    s.cf().to_vec()
}

fn ga(s: &mut ConstraintSolver, d: &AccelOwned, cf: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; 3];
    s.compute_generalized_acceleration(&d.view(), cf, &mut out).unwrap();
    out
}

fn contact_forces(cf: &[f64], d: &AccelOwned, frames: &[Matrix2<f64>]) -> Result<Vec<[f64; 2]>, RigidError> {
    let mut out = vec![[0.0; 2]; frames.len()];
    let v = d.view();
    calc_contact_forces_in_contact_frames(cf, &v, frames, &mut out).map(|_| out)
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// §2.1 SinglePointStickingBothSigns (part 1).
#[test]
fn single_point_sticking_both_signs() {
    for params in modes() {
        for right in [true, false] {
            let mut rod = Rod2D::resting_vertical();
            rod.set_mu(15.0, 15.0);
            let hf = if right { 100.0 } else { -100.0 };
            for cd in 0..=2 {
                for fd in 0..=3 {
                    let n = cd + 1;
                    let mut d = AccelOwned::fixture(&rod, cd, fd);
                    assert!(d.sliding.is_empty());
                    d.tau[0] += hf;
                    d.tau[2] += hf * rod.half_length;
                    let mut s = ConstraintSolver::with_parameters(params);
                    let nr: usize = d.r.iter().sum();
                    let frames = vec![non_sliding_frame(); n];

                    d.k_n.fill(9.81);
                    let cf = solve(&mut s, &d);
                    assert!(norm(&cf) < EPS);

                    for (kn, expect_ga) in [(0.0, 0.0), (-9.81, 9.81)] {
                        d.k_n.fill(kn);
                        let cf = solve(&mut s, &d);
                        let tol = EPS_ * cf.len() as f64;
                        let cfs = contact_forces(&cf, &d, &frames);
                        if fd == 0 {
                            assert_eq!(cfs.unwrap().len(), n);
                        } else {
                            assert_eq!(cfs, Err(RigidError::NotTwoDimensional));
                        }
                        let fsum: f64 = cf[n..n + nr].iter().sum();
                        assert!((fsum + hf).abs() <= tol, "friction sum {fsum}");
                        let g = ga(&mut s, &d, &cf);
                        assert!((norm(&g) - expect_ga).abs() <= tol, "ga {g:?}");
                        if cd == 0 && fd == 0 {
                            let fn_ref = if kn == 0.0 { 19.62 } else { 39.24 };
                            assert!(close(&cf, &[fn_ref, -hf], 1e-12), "[ref] {cf:?}");
                        }
                    }
                }
            }
        }
    }
}

/// §2.1 [ref]: the accel LCP of case 2 (right, no dup) and Moby's 4 pivots.
#[test]
fn single_point_sticking_lcp_reference() {
    let mut rod = Rod2D::resting_vertical();
    rod.set_mu(15.0, 15.0);
    let mut d = AccelOwned::fixture(&rod, 0, 0);
    d.tau[0] += 100.0;
    d.tau[2] += 100.0;
    d.k_n.fill(0.0);
    let mut s = ConstraintSolver::new();
    solve(&mut s, &d);
    let mm = DMatrix::from_row_slice(
        4,
        4,
        &[0.5, 0.0, 0.0, 0.0, 0.0, 1.5, -1.5, 1.0, 0.0, -1.5, 1.5, 1.0, 15.0, -1.0, -1.0, 0.0],
    );
    assert!((s.lcp_matrix() - &mm).amax() < 1e-15, "{}", s.lcp_matrix());
    assert!(close(s.lcp_vector(), &[-9.81, 150.0, -150.0, 0.0], 1e-12), "{:?}", s.lcp_vector());
    assert!(close(s.lcp_z(), &[19.62, 0.0, 100.0, 0.0], 1e-12));
    assert_eq!(s.num_pivots(), 4);
}

/// §2.2 TwoPointStickingSign.
#[test]
fn two_point_sticking_sign() {
    for params in modes() {
        for right in [true, false] {
            for use_lcp in [true, false] {
                let mut rod = Rod2D::resting_horizontal();
                rod.set_mu(0.0, 15.0);
                let hf = if right { 100.0 } else { -100.0 };
                for cd in 0..=2 {
                    for fd in 0..=3 {
                        let n = 2 * (cd + 1);
                        let mut d = AccelOwned::fixture(&rod, cd, fd);
                        assert!(d.sliding.is_empty());
                        d.use_lcp = use_lcp;
                        d.tau[0] += hf;
                        let nr: usize = d.r.iter().sum();
                        let mut s = ConstraintSolver::with_parameters(params);
                        let frames = vec![non_sliding_frame(); n];
                        d.k_n.fill(9.81);
                        assert!(norm(&solve(&mut s, &d)) < EPS);
                        for (kn, expect_ga) in [(0.0, 0.0), (-9.81, 9.81)] {
                            d.k_n.fill(kn);
                            let cf = solve(&mut s, &d);
                            let tol = EPS_ * cf.len() as f64;
                            let cfs = contact_forces(&cf, &d, &frames);
                            if fd == 0 {
                                let cfs = cfs.unwrap();
                                assert_eq!(cfs.len(), n);
                                if kn == 0.0 {
                                    let sn: f64 = cfs.iter().map(|f| f[0]).sum();
                                    let st: f64 = cfs.iter().map(|f| f[1]).sum();
                                    assert!((sn - 19.62).abs() <= tol, "Σ normal {sn}");
                                    assert!((st + hf).abs() <= tol, "Σ tangent {st}");
                                }
                            } else {
                                assert_eq!(cfs, Err(RigidError::NotTwoDimensional));
                            }
                            let fsum: f64 = cf[n..n + nr].iter().sum();
                            assert!((fsum + hf).abs() <= tol, "friction sum {fsum}");
                            let g = ga(&mut s, &d, &cf);
                            assert!((norm(&g) - expect_ga).abs() <= tol, "ga {g:?}");
                            if cd == 0 && fd == 0 && right {
                                let f = if kn == 0.0 { 9.81 } else { 19.62 };
                                let r = if use_lcp { [f, f, -100.0, 0.0] } else { [f, f, -50.0, -50.0] };
                                assert!(close(&cf, &r, 1e-12), "[ref] {cf:?}");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// §2.2 [ref]: the accel LCP of case 2 (right, no dup), zero tolerance and 9 pivots.
#[test]
fn two_point_sticking_lcp_reference() {
    let mut rod = Rod2D::resting_horizontal();
    rod.set_mu(0.0, 15.0);
    let mut d = AccelOwned::fixture(&rod, 0, 0);
    d.tau[0] += 100.0;
    d.k_n.fill(0.0);
    let mut s = ConstraintSolver::new();
    solve(&mut s, &d);
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
    assert!(close(s.lcp_vector(), &[-9.81, -9.81, 50.0, 50.0, -50.0, -50.0, 0.0, 0.0], 1e-12));
    let tol = contact_solvers::lcp::moby_zero_tolerance(s.lcp_matrix());
    assert!((tol - 2.664535e-13).abs() < 1e-19, "{tol}");
    assert!(close(s.lcp_z(), &[9.81, 9.81, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0], 1e-12));
    assert_eq!(s.num_pivots(), 9);
}

/// §2.3 TwoPointNonSlidingToSlidingSign (part 1).
#[test]
fn two_point_non_sliding_to_sliding_sign() {
    for params in modes() {
        for right in [true, false] {
            let mut rod = Rod2D::resting_horizontal();
            rod.set_mu(0.0, 0.1);
            let hf = if right { 100.0 } else { -100.0 };
            for cd in 0..=2 {
                for fd in 0..=3 {
                    let n = 2 * (cd + 1);
                    let mut d = AccelOwned::fixture(&rod, cd, fd);
                    d.tau[0] += hf;
                    let mut s = ConstraintSolver::with_parameters(params);
                    let frames = vec![non_sliding_frame(); n];
                    d.k_n.fill(9.81);
                    assert!(norm(&solve(&mut s, &d)) < EPS);
                    for kn in [0.0, -9.81] {
                        d.k_n.fill(kn);
                        let cf = solve(&mut s, &d);
                        let tol = EPS_ * cf.len() as f64;
                        let cfs = contact_forces(&cf, &d, &frames);
                        if fd == 0 {
                            assert!(d.sliding.is_empty());
                            let cfs = cfs.unwrap();
                            assert_eq!(cfs.len(), n);
                            let sn: f64 = cfs.iter().map(|f| f[0]).sum();
                            let st: f64 = cfs.iter().map(|f| f[1].abs()).sum();
                            assert!((st - 0.1 * sn).abs() <= tol, "cone {st} vs {sn}");
                        } else {
                            assert_eq!(cfs, Err(RigidError::NotTwoDimensional));
                        }
                        let g = ga(&mut s, &d, &cf);
                        assert!(if right { g[0] > 0.0 } else { -g[0] > 0.0 }, "{g:?}");
                        if kn != 0.0 {
                            assert!((g[1] - 9.81).abs() <= tol, "{g:?}");
                        }
                        if cd == 0 && fd == 0 && right {
                            let r = if kn == 0.0 {
                                [9.81, 9.81, -0.981, -0.981]
                            } else {
                                [19.62, 19.62, -1.962, -1.962]
                            };
                            assert!(close(&cf, &r, 1e-12), "[ref] {cf:?}");
                        }
                    }
                }
            }
        }
    }
}

/// §2.4 TwoPointSlidingTest / SinglePointSlidingTest (part 1).
#[test]
fn sliding_tests() {
    for params in modes() {
        for upright in [false, true] {
            for right in [true, false] {
                for use_lcp in [true, false] {
                    let mut rod =
                        if upright { Rod2D::resting_vertical() } else { Rod2D::resting_horizontal() };
                    rod.v[0] = if right { 1.0 } else { -1.0 };
                    rod.set_mu(0.0, rod.mu_static);
                    let mut d = AccelOwned::rod(&rod);
                    d.use_lcp = use_lcp;
                    let mut s = ConstraintSolver::with_parameters(params);
                    d.k_n.fill(9.81);
                    assert!(norm(&solve(&mut s, &d)) < EPS_);
                    d.k_n.fill(0.0);
                    let cf = solve(&mut s, &d);
                    let pts = rod.contact_points();
                    let mut frames = vec![sliding_frame(rod.slip(pts[0]))];
                    if !upright {
                        frames.push(sliding_frame(rod.slip(pts[pts.len() - 1])));
                    }
                    let cfs = contact_forces(&cf, &d, &frames).unwrap();
                    assert_eq!(cfs.len(), frames.len());
                    assert!(d.non_sliding.is_empty());
                    assert_eq!(cf.len(), d.sliding.len());
                    let sn: f64 = cfs.iter().map(|f| f[0]).sum();
                    let st: f64 = cfs.iter().map(|f| f[1].abs()).sum();
                    assert!((sn - 19.62).abs() <= EPS_ && st.abs() <= EPS_, "{cfs:?}");
                    let r: &[f64] = if upright { &[19.62] } else { &[9.81, 9.81] };
                    assert!(close(&cf, r, 1e-12), "[ref] {cf:?}");
                    d.k_n.fill(-9.81);
                    let cf = solve(&mut s, &d);
                    let g = ga(&mut s, &d, &cf);
                    assert!((g[1] - 9.81).abs() <= EPS_, "{g:?}");
                }
            }
        }
    }
}

/// §2.5 SinglePointSlidingPlusBilateralTest (part 1); the bilateral operators are callbacks.
#[test]
fn sliding_plus_bilateral() {
    let g_mult = |v: &[f64], y: &mut [f64]| y[0] = v[2];
    let g_t = |f: &[f64], y: &mut [f64]| y[2] = f[0];
    for params in modes() {
        for right in [true, false] {
            for use_lcp in [true, false] {
                let mut rod = Rod2D::resting_vertical();
                rod.v[0] = if right { 1.0 } else { -1.0 };
                rod.set_mu(0.1, rod.mu_static);
                let mut d = AccelOwned::rod(&rod);
                d.use_lcp = use_lcp;
                d.k_g = DVector::from_vec(vec![0.0]);
                let mut s = ConstraintSolver::with_parameters(params);
                for (kg, ref_cf) in [
                    (0.0, if right { [19.62, 1.962] } else { [19.62, -1.962] }),
                    (1.0, if right { [19.62, 0.962] } else { [19.62, -2.962] }),
                ] {
                    d.k_g[0] = kg;
                    let mut v = d.view();
                    v.g_mult = Operator::Callback(&g_mult);
                    v.g_transpose_mult = Operator::Callback(&g_t);
                    assert_eq!(s.solve_constraint_problem(&v), Ok(RigidOutcome::Solved));
                    let cf = s.cf().to_vec();
                    let tol = EPS_ * cf.len() as f64;
                    let mut g = vec![0.0; 3];
                    s.compute_generalized_acceleration(&v, &cf, &mut g).unwrap();
                    if kg == 0.0 {
                        let frames = [sliding_frame(rod.slip(rod.contact_points()[0]))];
                        let mut cfs = [[0.0; 2]];
                        calc_contact_forces_in_contact_frames(&cf, &v, &frames, &mut cfs).unwrap();
                        assert!(d.non_sliding.is_empty());
                        assert_eq!(cf.len(), 2);
                        assert!((cfs[0][0] - 19.62).abs() <= EPS_);
                        assert!(cfs[0][1] < 0.0);
                        assert!((cfs[0][1] + 1.962).abs() <= EPS_, "{cfs:?}");
                        assert!(g[2] < tol);
                    } else {
                        assert!((g[2] + 1.0).abs() <= tol, "{g:?}");
                    }
                    assert!(close(&cf, &ref_cf, 1e-12), "[ref] {cf:?}");
                }
            }
        }
    }
}

/// §2.6 OnePointPlusLimitTest (part 1).
#[test]
fn one_point_plus_limit() {
    for params in modes() {
        for use_lcp in [true, false] {
            let mut rod = Rod2D::resting_horizontal();
            rod.v[0] = 1.0;
            rod.set_mu(0.1, rod.mu_static);
            let full = AccelOwned::rod(&rod);
            assert_eq!(full.n, DMatrix::from_row_slice(2, 3, &[0.0, 1.0, -1.0, 0.0, 1.0, 1.0]));
            assert_eq!(
                full.nmq.transpose(),
                DMatrix::from_row_slice(3, 2, &[-0.1, -0.1, 1.0, 1.0, -1.0, 1.0])
            );
            let mut d = full.clone();
            d.use_lcp = use_lcp;
            d.sliding = vec![0];
            d.non_sliding = vec![];
            d.mu_sliding = DVector::from_vec(vec![0.1]);
            d.n = full.n.rows(0, 1).into_owned();
            d.nmq = full.nmq.rows(0, 1).into_owned();
            d.l = full.n.rows(1, 1).into_owned();
            let mut s = ConstraintSolver::with_parameters(params);
            for (k, expect) in [(9.81, None), (0.0, Some(0.0)), (-9.81, Some(9.81))] {
                d.k_n = DVector::from_vec(vec![k]);
                d.k_l = DVector::from_vec(vec![k]);
                let cf = solve(&mut s, &d);
                match expect {
                    None => assert!(norm(&cf) < EPS_),
                    Some(a) => {
                        assert_eq!(cf.len(), 2);
                        let g = ga(&mut s, &d, &cf);
                        assert!((g[1] - a).abs() <= EPS_, "{g:?}");
                        let f = if a == 0.0 { 9.81 } else { 19.62 };
                        assert!(close(&cf, &[f, f], 1e-12), "[ref] {cf:?}");
                    }
                }
            }
        }
    }
}

/// §2.7 TwoPointContactCrossTermsTest.
#[test]
fn two_point_contact_cross_terms() {
    for params in modes() {
        for use_lcp in [true, false] {
            let mut rod = Rod2D::resting_horizontal();
            rod.set_mu(0.1, 1.0);
            let pts = rod.contact_points();
            let mut slips: Vec<f64> = pts.iter().map(|&p| rod.slip(p)).collect();
            slips[0] = 1.0;
            let mut d = AccelOwned::from_rod(&rod, &pts, &slips);
            d.use_lcp = use_lcp;
            let mut s = ConstraintSolver::with_parameters(params);
            let cf = solve(&mut s, &d);
            assert_eq!(cf.len(), d.sliding.len() + 2 * d.non_sliding.len());
            let g = ga(&mut s, &d, &cf);
            assert!(g[0].abs() <= EPS_, "{g:?}");
            assert!(close(&cf, &[9.81, 9.81, 0.981], 1e-12), "[ref] {cf:?}");
            if use_lcp {
                #[rustfmt::skip]
                let mm = DMatrix::from_row_slice(5, 5, &[
                    1.5, -0.5, 0.0, 0.0, 0.0,
                    -0.5, 1.5, 0.0, 0.0, 0.0,
                    -0.05, 0.0, 0.5, -0.5, 1.0,
                    0.05, 0.0, -0.5, 0.5, 1.0,
                    0.0, 1.0, -1.0, -1.0, 0.0]);
                assert!((s.lcp_matrix() - &mm).amax() < 1e-15, "{}", s.lcp_matrix());
                assert!(close(s.lcp_vector(), &[-9.81, -9.81, 0.0, 0.0, 0.0], 1e-12));
                assert!(close(s.lcp_z(), &[9.81, 9.81, 0.981, 0.0, 0.0], 1e-12));
                assert_eq!(s.num_pivots(), 3);
            }
        }
    }
}

/// §2.8 ContactLimitCrossTermAccelTest.
#[test]
fn contact_limit_cross_term_accel() {
    for params in modes() {
        for use_lcp in [true, false] {
            let mut rod = Rod2D::resting_horizontal();
            rod.set_mu(0.0, 1.0);
            let mut d = AccelOwned::rod(&rod);
            d.use_lcp = use_lcp;
            d.tau[0] = 1.0;
            d.l = DMatrix::from_row_slice(1, 3, &[0.0, -1.0, 0.0]);
            d.k_l = DVector::from_vec(vec![0.0]);
            let mut s = ConstraintSolver::with_parameters(params);
            let cf = solve(&mut s, &d);
            assert_eq!(cf.len(), 2 * d.non_sliding.len() + 1);
            let g = ga(&mut s, &d, &cf);
            assert!(g[0].abs() <= EPS_ && g[1].abs() <= EPS_, "{g:?}");
            if use_lcp {
                assert!(close(&cf, &[9.81, 9.81, -1.0, 0.0, 0.0], 1e-12), "[ref] {cf:?}");
            } else {
                let r = [19.62 / 3.0, 19.62 / 3.0, -0.5, -0.5, -19.62 / 3.0];
                assert!(close(&cf, &r, 1e-12), "[ref] {cf:?}");
            }
        }
    }
}

/// §2.9 TwoPointAsLimitTest (part 1).
#[test]
fn two_point_as_limit() {
    for params in modes() {
        for use_lcp in [true, false] {
            let rod = Rod2D::resting_horizontal();
            let mut d = AccelOwned::fixture(&rod, 0, 0);
            d.use_lcp = use_lcp;
            d.sliding.clear();
            d.non_sliding.clear();
            d.mu_sliding = DVector::zeros(0);
            d.mu_non_sliding = DVector::zeros(0);
            d.r.clear();
            d.n = DMatrix::zeros(0, 3);
            d.nmq = DMatrix::zeros(0, 3);
            d.f = DMatrix::zeros(0, 3);
            d.k_n = DVector::zeros(0);
            d.k_f = DVector::zeros(0);
            d.l = DMatrix::from_row_slice(1, 3, &[0.0, 1.0, 0.0]);
            d.k_l = DVector::from_vec(vec![0.0]);
            let mut s = ConstraintSolver::with_parameters(params);
            let cf = solve(&mut s, &d);
            assert_eq!(cf.len(), 1);
            assert!((cf[0] - 19.62).abs() <= EPS_);
            d.l = -d.l;
            d.tau = -d.tau;
            let cf = solve(&mut s, &d);
            assert_eq!(cf.len(), 1);
            assert!((cf[0] - 19.62).abs() <= EPS_);
            let g = ga(&mut s, &d, &cf);
            assert!(g[1].abs() <= EPS_);
        }
    }
}

/// §2.10 TwoPointPulledUpward.
#[test]
fn two_point_pulled_upward() {
    for params in modes() {
        let rod = Rod2D::resting_horizontal();
        for cd in 0..=2 {
            for fd in 0..=3 {
                let mut d = AccelOwned::fixture(&rod, cd, fd);
                d.tau[1] += 100.0;
                let mut s = ConstraintSolver::with_parameters(params);
                let cf = solve(&mut s, &d);
                assert!(norm(&cf) < EPS_);
                if params == ConstraintSolverParameters::default() {
                    assert_eq!(
                        cf.len(),
                        d.n.nrows() + d.f.nrows(),
                        "Q4 corrected: zeros of length nc + nr + nu"
                    );
                } else {
                    assert!(cf.is_empty(), "Q4 Drake: empty");
                }
            }
        }
    }
}

/// Usage errors: wrong cf length in post-processing, unset inertia, bad index lists.
#[test]
fn usage_errors() {
    let rod = Rod2D::resting_horizontal();
    let d = AccelOwned::rod(&rod);
    let mut s = ConstraintSolver::new();
    let mut out = vec![0.0; 3];
    assert!(matches!(
        s.compute_generalized_acceleration(&d.view(), &[1.0], &mut out),
        Err(RigidError::DimensionMismatch { .. })
    ));
    let mut v = d.view();
    v.solve_inertia = contact_solvers::rigid::InertiaSolve::Unset;
    assert_eq!(s.solve_constraint_problem(&v), Err(RigidError::MissingInertiaSolve));
    let mut bad = d.clone();
    bad.non_sliding = vec![1, 0];
    assert!(matches!(s.solve_constraint_problem(&bad.view()), Err(RigidError::InvalidArgument(_))));
    let mut bad = d.clone();
    bad.k_n = DVector::zeros(1);
    assert!(matches!(s.solve_constraint_problem(&bad.view()), Err(RigidError::DimensionMismatch { .. })));
}
