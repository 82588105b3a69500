//! Drake's `ConstraintSolver` through the C ABI (`cts_rigid_*`), on a representative subset of
//! `docs/rigid_cases.md` §2–§4 with Drake's assertions and tolerances (`eps_ = 100 eps`) and
//! the spec's reference values: acceleration level (LCP and linear-system paths, sliding,
//! bilateral, limits), impacts, the discretized problem. Every case runs with dense operators
//! (NaN-padded, so padding is never read) and with C callbacks: the dense form is bit-identical
//! to the Rust API, the callback form agrees to round-off.
#![allow(unsafe_code)]

use support::rigid_c_support;

use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::rigid::*;
use contact_solvers::rigid::{ConstraintSolver, ConstraintSolverParameters, RigidOutcome};
use nalgebra::{DMatrix, DVector};
use rigid_c_support::{CRigid, Form, default_params, drake_head, last_error};
use support::rod2d::*;

const FORMS: [Form; 2] = [Form::Dense, Form::Callbacks];

fn modes() -> [(cts_rigid_parameters, ConstraintSolverParameters); 2] {
    [
        (default_params(), ConstraintSolverParameters::default()),
        (drake_head(), ConstraintSolverParameters::DRAKE_HEAD),
    ]
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// Dense: bit-identical to the Rust API; callbacks: equal to round-off.
#[track_caller]
fn same(form: Form, c: &[f64], rust: &[f64]) {
    assert_eq!(c.len(), rust.len(), "{c:?} vs {rust:?}");
    for (a, b) in c.iter().zip(rust) {
        match form {
            Form::Dense => assert_eq!(a.to_bits(), b.to_bits(), "{c:?} vs {rust:?}"),
            Form::Callbacks => assert!((a - b).abs() <= 1e-13 * b.abs().max(1.0), "{c:?} vs {rust:?}"),
        }
    }
}

/// An acceleration-level solve through C and through the Rust API: (cf, generalized
/// acceleration), checked against each other.
fn accel(h: &mut CRigid, rust: &mut ConstraintSolver, d: &AccelOwned, form: Form) -> (Vec<f64>, Vec<f64>) {
    h.set_accel(d, form);
    assert_eq!(h.solve_constraint_problem(), cts_status::Ok, "{}", last_error(h.h));
    let cf = h.cf();
    assert_eq!(rust.solve_constraint_problem(&d.view()), Ok(RigidOutcome::Solved));
    let rcf = rust.cf().to_vec();
    if cf.is_empty() && rust.parameters().drake_empty_fast_exit {
        // Quirk Q4: Drake's empty fast-exit vector cannot be post-processed (Drake throws).
        same(form, &cf, &rcf);
        return (cf, vec![]);
    }
    let ga = h.ga_accel(d.tau.len(), &cf);
    let mut rga = vec![0.0; d.tau.len()];
    rust.compute_generalized_acceleration(&d.view(), &rcf, &mut rga).unwrap();
    same(form, &cf, &rcf);
    same(form, &ga, &rga);
    assert_eq!(h.num_pivots(), rust.num_pivots());
    (cf, ga)
}

/// An impact solve: (cf, generalized velocity change).
fn impact(h: &mut CRigid, rust: &mut ConstraintSolver, d: &VelOwned, form: Form) -> (Vec<f64>, Vec<f64>) {
    h.set_vel(d, form);
    assert_eq!(h.solve_impact_problem(), cts_status::Ok, "{}", last_error(h.h));
    let cf = h.cf();
    let dv = h.dv(d.mv.len(), &cf);
    assert_eq!(rust.solve_impact_problem(&d.view()), Ok(RigidOutcome::Solved));
    let rcf = rust.cf().to_vec();
    let mut rdv = vec![0.0; d.mv.len()];
    rust.compute_generalized_velocity_change(&d.view(), &rcf, &mut rdv).unwrap();
    same(form, &cf, &rcf);
    same(form, &dv, &rdv);
    assert_eq!(h.num_pivots(), rust.num_pivots());
    (cf, dv)
}

/// A discretized solve over `dt`: (cf, generalized acceleration from `v0`).
fn discretized(
    h: &mut CRigid,
    rust: &mut ConstraintSolver,
    d: &VelOwned,
    v0: &[f64],
    form: Form,
) -> (Vec<f64>, Vec<f64>) {
    h.set_vel(d, form);
    assert_eq!(h.solve_discretized_problem(DT), cts_status::Ok, "{}", last_error(h.h));
    let cf = h.cf();
    let ga = h.ga_disc(v0, &cf, DT);
    assert_eq!(rust.solve_discretized(&d.view(), DT), Ok(RigidOutcome::Solved));
    let rcf = rust.cf().to_vec();
    let mut rga = vec![0.0; v0.len()];
    rust.compute_generalized_acceleration_discretized(&d.view(), v0, &rcf, DT, &mut rga).unwrap();
    same(form, &cf, &rcf);
    same(form, &ga, &rga);
    (cf, ga)
}

/// §2.1 SinglePointSticking (right, left; every duplication), Drake's assertions, and the
/// [ref] LCP of case 2 (MM, qq, z in 4 pivots).
#[test]
fn accel_single_point_sticking() {
    for (cp, rp) in modes() {
        for form in FORMS {
            for right in [true, false] {
                let mut rod = Rod2D::resting_vertical();
                rod.set_mu(15.0, 15.0);
                let hf = if right { 100.0 } else { -100.0 };
                for cd in 0..=2 {
                    for fd in 0..=3 {
                        let n = cd + 1;
                        let mut d = AccelOwned::fixture(&rod, cd, fd);
                        d.tau[0] += hf;
                        d.tau[2] += hf * rod.half_length;
                        let nr: usize = d.r.iter().sum();
                        let (mut h, mut rust) =
                            (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
                        d.k_n.fill(9.81);
                        let (cf, _) = accel(&mut h, &mut rust, &d, form);
                        assert!(norm(&cf) < EPS, "{cf:?}");
                        for (kn, g_norm) in [(0.0, 0.0), (-9.81, 9.81)] {
                            d.k_n.fill(kn);
                            let (cf, ga) = accel(&mut h, &mut rust, &d, form);
                            let tol = EPS_ * cf.len() as f64;
                            if fd == 0 {
                                let fsum: f64 = cf[n..n + nr].iter().sum();
                                assert!((fsum + hf).abs() <= tol, "friction sum {fsum}");
                            }
                            assert!((norm(&ga) - g_norm).abs() <= tol, "ga {ga:?}");
                            if cd == 0 && fd == 0 {
                                let f = if kn == 0.0 { 19.62 } else { 39.24 };
                                assert!(close(&cf, &[f, -hf], 1e-12), "[ref] {cf:?}");
                            }
                            if cd == 0 && fd == 0 && right && kn == 0.0 {
                                let (mm, qq, z, w) = h.lcp();
                                #[rustfmt::skip]
                                let want = DMatrix::from_row_slice(4, 4, &[
                                    0.5, 0.0, 0.0, 0.0,
                                    0.0, 1.5, -1.5, 1.0,
                                    0.0, -1.5, 1.5, 1.0,
                                    15.0, -1.0, -1.0, 0.0]);
                                assert!((mm.clone() - want).amax() < 1e-15, "{mm}");
                                assert!(close(&qq, &[-9.81, 150.0, -150.0, 0.0], 1e-12), "{qq:?}");
                                assert!(close(&z, &[19.62, 0.0, 100.0, 0.0], 1e-12), "{z:?}");
                                let w_ref = mm * DVector::from_vec(z) + DVector::from_vec(qq);
                                assert!(close(&w, w_ref.as_slice(), 1e-12));
                                assert_eq!(h.num_pivots(), 4);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// §2.2 TwoPointSticking, LCP and linear-system paths (no duplication): Σ normal = mg,
/// Σ tangent = −hf, ga = 0 / 9.81; [ref] cf, and the 8×8 LCP solved by Moby Lemke in 9 pivots.
#[test]
fn accel_two_point_sticking_lcp_and_linear() {
    for (cp, rp) in modes() {
        for form in FORMS {
            for use_lcp in [true, false] {
                let mut rod = Rod2D::resting_horizontal();
                rod.set_mu(0.0, 15.0);
                let mut d = AccelOwned::fixture(&rod, 0, 0);
                d.use_lcp = use_lcp;
                d.tau[0] += 100.0;
                let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
                for (kn, f, g_norm) in [(0.0, 9.81, 0.0), (-9.81, 19.62, 9.81)] {
                    d.k_n.fill(kn);
                    let (cf, ga) = accel(&mut h, &mut rust, &d, form);
                    let tol = EPS_ * cf.len() as f64;
                    assert!((cf[0] + cf[1] - 2.0 * f).abs() <= tol);
                    assert!((cf[2] + cf[3] + 100.0).abs() <= tol, "{cf:?}");
                    assert!((norm(&ga) - g_norm).abs() <= tol, "{ga:?}");
                    let r = if use_lcp { [f, f, -100.0, 0.0] } else { [f, f, -50.0, -50.0] };
                    assert!(close(&cf, &r, 1e-12), "[ref] {cf:?}");
                    let n_lcp = unsafe { cts_rigid_solver_lcp_size(h.h) };
                    assert_eq!(n_lcp, if use_lcp { 8 } else { 0 });
                    if use_lcp && kn == 0.0 {
                        let (mm, qq, z, _) = h.lcp();
                        assert_eq!(mm[(6, 0)], 15.0);
                        assert_eq!(mm[(2, 6)], 1.0);
                        assert!(close(&qq, &[-9.81, -9.81, 50.0, 50.0, -50.0, -50.0, 0.0, 0.0], 1e-12));
                        assert!(close(&z, &[9.81, 9.81, 0.0, 0.0, 100.0, 0.0, 0.0, 0.0], 1e-12), "{z:?}");
                        assert_eq!(h.num_pivots(), 9);
                    }
                }
            }
        }
    }
}

/// §2.5 SlidingPlusBilateral with G as an operator (dense or callback): cf = (19.62, ±1.962),
/// then kG = 1 makes the rotational acceleration −1.
#[test]
fn accel_sliding_plus_bilateral() {
    for (cp, rp) in modes() {
        for form in FORMS {
            for right in [true, false] {
                for use_lcp in [true, false] {
                    let mut rod = Rod2D::resting_vertical();
                    rod.v[0] = if right { 1.0 } else { -1.0 };
                    rod.set_mu(0.1, rod.mu_static);
                    let mut d = AccelOwned::rod(&rod);
                    assert_eq!(d.sliding, vec![0]);
                    d.use_lcp = use_lcp;
                    d.g = DMatrix::from_row_slice(1, 3, &[0.0, 0.0, 1.0]);
                    d.k_g = DVector::from_vec(vec![0.0]);
                    let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
                    let (cf, ga) = accel(&mut h, &mut rust, &d, form);
                    assert_eq!(cf.len(), 2);
                    assert!((cf[0] - 19.62).abs() <= EPS_);
                    assert!(ga[2] < EPS_ * 2.0);
                    let r = if right { 1.962 } else { -1.962 };
                    assert!(close(&cf, &[19.62, r], 1e-12), "[ref] {cf:?}");
                    d.k_g[0] = 1.0;
                    let (cf, ga) = accel(&mut h, &mut rust, &d, form);
                    assert!((ga[2] + 1.0).abs() <= EPS_ * 2.0, "{ga:?}");
                    let r = if right { 0.962 } else { -2.962 };
                    assert!(close(&cf, &[19.62, r], 1e-12), "[ref] {cf:?}");
                }
            }
        }
    }
}

/// §2.8 ContactLimitCrossTermAccel: LCP cf = (9.81, 9.81, −1, 0, 0); the linear system's
/// min-norm answer has a negative limit force (6.54, 6.54, −0.5, −0.5, −6.54); both stop the rod.
/// Also the three acceleration-level post-processing functions on that cf.
#[test]
fn accel_contact_limit_cross_term() {
    for (cp, rp) in modes() {
        for form in FORMS {
            for use_lcp in [true, false] {
                let mut rod = Rod2D::resting_horizontal();
                rod.set_mu(0.0, 1.0);
                let mut d = AccelOwned::rod(&rod);
                d.use_lcp = use_lcp;
                d.tau[0] = 1.0;
                d.l = DMatrix::from_row_slice(1, 3, &[0.0, -1.0, 0.0]);
                d.k_l = DVector::from_vec(vec![0.0]);
                let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
                let (cf, ga) = accel(&mut h, &mut rust, &d, form);
                assert_eq!(cf.len(), 5);
                assert!(ga[0].abs() <= EPS_ && ga[1].abs() <= EPS_, "{ga:?}");
                let r = if use_lcp {
                    [9.81, 9.81, -1.0, 0.0, 0.0]
                } else {
                    [19.62 / 3.0, 19.62 / 3.0, -0.5, -0.5, -19.62 / 3.0]
                };
                assert!(close(&cf, &r, 1e-12), "[ref] {cf:?}");
                // Generalized force = −tau (the rod does not move); its acceleration = −M⁻¹tau.
                let gf = h.gf_accel(3, &cf);
                assert!(close(&gf, &[-1.0, 19.62, 0.0], 1e-12), "{gf:?}");
                let gac = h.ga_from_cf_accel(3, &cf);
                assert!(close(&gac, &[-0.5, 9.81, 0.0], 1e-12), "{gac:?}");
            }
        }
    }
}

/// §2.10 TwoPointPulledUpward (fast exit) and §2.9 TwoPointAsLimit (no contacts, one limit).
#[test]
fn accel_pulled_upward_and_limit_only() {
    for (cp, rp) in modes() {
        for form in FORMS {
            for (cd, fd) in [(0, 0), (2, 3)] {
                let mut d = AccelOwned::fixture(&Rod2D::resting_horizontal(), cd, fd);
                d.tau[1] += 100.0;
                let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
                let (cf, _) = accel(&mut h, &mut rust, &d, form);
                assert!(norm(&cf) < EPS_);
                // Q4: Drake HEAD returns an empty vector, the corrected default nc + nr + nu zeros.
                let nr: usize = d.r.iter().sum();
                let want = if rp.drake_empty_fast_exit { 0 } else { d.n.nrows() + nr };
                assert_eq!(cf.len(), want);
            }
            let mut d = AccelOwned::rod(&Rod2D::resting_horizontal());
            d.sliding.clear();
            d.non_sliding.clear();
            d.r.clear();
            d.mu_sliding = DVector::zeros(0);
            d.mu_non_sliding = DVector::zeros(0);
            d.n = DMatrix::zeros(0, 3);
            d.nmq = DMatrix::zeros(0, 3);
            d.f = DMatrix::zeros(0, 3);
            d.k_n = DVector::zeros(0);
            d.k_f = DVector::zeros(0);
            d.l = DMatrix::from_row_slice(1, 3, &[0.0, 1.0, 0.0]);
            d.k_l = DVector::from_vec(vec![0.0]);
            let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
            let (cf, _) = accel(&mut h, &mut rust, &d, form);
            assert_eq!(cf.len(), 1);
            assert!((cf[0] - 19.62).abs() <= EPS_);
            d.l = -d.l.clone();
            d.tau = -d.tau.clone();
            let (cf, ga) = accel(&mut h, &mut rust, &d, form);
            assert!((cf[0] - 19.62).abs() <= EPS_ && ga[1].abs() <= EPS_);
        }
    }
}

/// §3.1 TwoPointImpactNoTransitionToStiction and §3.2 TwoPointImpactingAndSticking (right and
/// left, every duplication): cone saturation per contact, the rod stopped, [ref] cf and the
/// §3.2 LCP (z in 3 pivots).
#[test]
fn impact_two_point() {
    for (cp, rp) in modes() {
        for form in FORMS {
            for right in [true, false] {
                let sign = if right { 1.0 } else { -1.0 };
                for (mu, sticks) in [(1e-4, false), (15.0, true)] {
                    let mut rod = Rod2D::sliding_impacting_horizontal(right);
                    rod.set_mu(mu, rod.mu_static.max(mu));
                    for (cd, fd) in [(0, 0), (1, 0), (2, 0), (1, 2), (2, 3)] {
                        let n = 2 * (cd + 1);
                        let mut d = VelOwned::fixture(&rod, cd, fd);
                        let v0 = [sign, -1.0, 0.0];
                        let (mut h, mut rust) =
                            (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
                        d.k_n.fill(1.0);
                        let (cf, _) = impact(&mut h, &mut rust, &d, form);
                        assert!(norm(&cf) < EPS);
                        d.k_n.fill(0.0);
                        let (cf, dv) = impact(&mut h, &mut rust, &d, form);
                        let vp: Vec<f64> = (0..3).map(|i| v0[i] + dv[i]).collect();
                        if sticks {
                            assert!(norm(&vp) < EPS_, "{vp:?}");
                            if cd == 0 && fd == 0 && right {
                                assert!(close(&cf, &[1.0, 1.0, -2.0, 0.0], 1e-12), "[ref] {cf:?}");
                                let (_, qq, z, _) = h.lcp();
                                assert!(close(&qq, &[-1.0, -1.0, 1.0, 1.0, -1.0, -1.0, 0.0, 0.0], 1e-15));
                                assert!(close(&z, &[1.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0], 1e-12), "{z:?}");
                                assert_eq!(h.num_pivots(), 3);
                            }
                        } else {
                            assert!(sign * v0[0] + dv[0] > 0.0);
                            if fd == 0 {
                                // Every prefix of the contact list saturates its own cone.
                                let (mut sn, mut st) = (0.0, 0.0);
                                for i in 0..n {
                                    sn += cf[i];
                                    st += cf[n + i];
                                    assert!((-sign * st - 1e-4 * sn).abs() <= EPS_, "{cf:?}");
                                }
                            }
                            if cd == 0 && fd == 0 {
                                let r = [1.0, 1.0, -sign * 1e-4, -sign * 1e-4];
                                assert!(close(&cf, &r, 1e-12), "[ref] {cf:?}");
                            }
                        }
                        assert_eq!(unsafe { cts_rigid_solver_regularization_used(h.h) }, 0);
                    }
                }
            }
        }
    }
}

/// §3.4 SlidingPlusBilateralImpact, §3.5 ContactLimitCrossTermVel (its 9×9 LCP), §3.7
/// BilateralOnly, §3.3 NoImpactImpliesNoImpulses.
#[test]
fn impact_bilateral_limit_and_no_impact() {
    for (cp, rp) in modes() {
        for form in FORMS {
            for right in [true, false] {
                let mut rod = Rod2D::sliding_impacting_vertical(right);
                rod.set_mu(0.1, rod.mu_static);
                let mut d = VelOwned::rod(&rod);
                d.g = DMatrix::from_row_slice(1, 3, &[0.0, 0.0, 1.0]);
                d.k_g = DVector::from_vec(vec![0.0]);
                let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
                let (cf, dv) = impact(&mut h, &mut rust, &d, form);
                assert_eq!(cf.len(), 3);
                assert!((cf[0] - 2.0).abs() <= EPS_);
                let sign = if right { 1.0 } else { -1.0 };
                assert!((cf[1] - sign * -0.2).abs() <= EPS_, "{cf:?}");
                assert!(dv[2] < EPS_ * 3.0);
                d.k_g[0] = 1.0;
                let (cf, dv) = impact(&mut h, &mut rust, &d, form);
                assert!((dv[2] + 1.0).abs() <= EPS_ * 3.0, "{dv:?}");
                let r = if right { [2.0, 0.0, -1.0] } else { [2.0, 0.2, -1.2] };
                assert!(close(&cf, &r, 1e-12), "[ref] {cf:?}");
            }

            let mut rod = Rod2D::sliding_impacting_horizontal(true);
            rod.set_mu(1.0, 1.0);
            let mut d = VelOwned::rod(&rod);
            d.mv[0] = 1.0;
            d.l = DMatrix::from_row_slice(1, 3, &[0.0, -1.0, 0.0]);
            d.k_l = DVector::from_vec(vec![0.0]);
            d.gamma_l = DVector::from_vec(vec![0.0]);
            let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
            let (cf, dv) = impact(&mut h, &mut rust, &d, form);
            assert!((0.5 + dv[0]).abs() <= EPS_ && (-1.0 + dv[1]).abs() <= EPS_, "{dv:?}");
            assert!(close(&cf, &[1.0, 1.0, -1.0, 0.0, 0.0], 1e-12), "[ref] {cf:?}");
            let (mm, qq, z, _) = h.lcp();
            assert_eq!(mm.shape(), (9, 9));
            assert_eq!((mm[(0, 8)], mm[(8, 0)], mm[(8, 8)], mm[(6, 0)]), (-0.5, -0.5, 0.5, 1.0));
            assert!(close(&qq, &[-1.0, -1.0, 0.5, 0.5, -0.5, -0.5, 0.0, 0.0, 1.0], 1e-15));
            assert!(close(&z, &[1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], 1e-12));
            assert_eq!(h.num_pivots(), 3);
            // The velocity-level generalized impulse of that cf: Nᵀ fN + Fᵀ fF + Lᵀ fL.
            let gi = h.gi_vel(3, &cf);
            assert!(close(&gi, &[-1.0, 2.0, 0.0], 1e-12), "{gi:?}");
            assert_eq!(h.gi_vel(3, &[]), vec![0.0; 3], "Drake: an empty cf gives zeros");

            let mut d = VelOwned::fixture(&Rod2D::ballistic(), 0, 0);
            d.g = DMatrix::from_row_slice(1, 3, &[0.0, 0.0, 1.0]);
            d.k_g = DVector::from_vec(vec![1.0]);
            let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
            let (cf, dv) = impact(&mut h, &mut rust, &d, form);
            assert!((dv[2] + 1.0).abs() <= EPS_);
            assert!(close(&cf, &[-1.0], 1e-14), "[ref] {cf:?}");

            let d = VelOwned::fixture(&Rod2D::upward_moving_horizontal(), 2, 3);
            let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
            let (cf, _) = impact(&mut h, &mut rust, &d, form);
            assert!(norm(&cf) < EPS_);
            assert_eq!(cf.len(), 6 + 6 * 4);
        }
    }
}

/// §4.1 SinglePointStickingDiscretized (no duplication): [ref] (19.62, ∓100), ga = 0 / 9.81;
/// §4.4 SlidingPlusBilateralDiscretized with Drake HEAD's LCP (quirk Q1 visible) and z in 3
/// pivots; §4.6 TwoPointAsLimitDiscretized.
#[test]
fn discretized_cases() {
    for (cp, rp) in modes() {
        for form in FORMS {
            for right in [true, false] {
                let mut rod = Rod2D::resting_vertical();
                rod.set_mu(15.0, 15.0);
                let hf = if right { 100.0 } else { -100.0 };
                let mut d = VelOwned::discrete_fixture(&rod, DT, 0, 0);
                d.mv[0] += hf * DT;
                d.mv[2] += hf * DT;
                let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
                d.k_n.fill(9.81 * DT);
                let (cf, _) = discretized(&mut h, &mut rust, &d, &rod.v, form);
                assert!(norm(&cf) < EPS);
                for (kn, fn_, g_norm) in [(0.0, 19.62, 0.0), (-9.81 * DT, 39.24, 9.81)] {
                    d.k_n.fill(kn);
                    let (cf, ga) = discretized(&mut h, &mut rust, &d, &rod.v, form);
                    let tol = EPS_ * cf.len() as f64;
                    assert!((cf[1] + hf).abs() <= tol, "{cf:?}");
                    assert!((norm(&ga) - g_norm).abs() <= tol, "{ga:?}");
                    assert!(close(&cf, &[fn_, -hf], 1e-9), "[ref] {cf:?}");
                }

                let mut rod = Rod2D::resting_vertical();
                rod.set_mu(0.1, rod.mu_static);
                let sign = if right { 1.0 } else { -1.0 };
                let mut d = VelOwned::discrete_fixture(&rod, DT, 0, 0);
                d.mv[0] += sign * rod.mass;
                d.g = DMatrix::from_row_slice(1, 3, &[0.0, 0.0, 1.0]);
                d.k_g = DVector::from_vec(vec![0.0]);
                let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
                let (cf, ga) = discretized(&mut h, &mut rust, &d, &rod.v, form);
                assert_eq!(cf.len(), 3);
                assert!((cf[1] + cf[2]).abs() <= 10.0 * EPS, "{cf:?}");
                assert!((cf[0] - 19.62).abs() <= EPS_);
                assert!((cf[1] - sign * -1.962).abs() <= EPS_, "{cf:?}");
                assert!(ga[2] < EPS_ * 3.0);
                if right && rp == ConstraintSolverParameters::DRAKE_HEAD {
                    let (mm, qq, z, _) = h.lcp();
                    #[rustfmt::skip]
                    let want = DMatrix::from_row_slice(4, 4, &[
                        5e-5, 0.0, 0.0, 0.0,
                        0.0, 1.5e-4, -1.5e-4, 1.0,
                        0.0, -1.5e-4, 1.5e-4, 1.0,
                        0.1, -1.0, -1.0, 0.0]);
                    assert!((mm.clone() - want).amax() < 1e-18, "{mm}");
                    assert!(close(&qq, &[-9.81e-4, 1.0, -1.0, 0.0], 1e-15), "{qq:?}");
                    assert!(close(&z, &[19.62, 0.0, 1.962, 0.9997057], 1e-7), "{z:?}");
                    assert_eq!(h.num_pivots(), 3);
                }
                d.k_g[0] = 1.0;
                let (_, ga) = discretized(&mut h, &mut rust, &d, &rod.v, form);
                assert!((ga[2] * DT + 1.0).abs() <= EPS_ * 3.0, "{ga:?}");
            }

            let mut d = VelOwned::discrete_fixture(&Rod2D::resting_horizontal(), DT, 0, 0);
            d.remove_contacts();
            d.l = DMatrix::from_row_slice(1, 3, &[0.0, 1.0, 0.0]);
            d.k_l = DVector::from_vec(vec![0.0]);
            d.gamma_l = DVector::from_vec(vec![0.0]);
            let (mut h, mut rust) = (CRigid::new(Some(cp)), ConstraintSolver::with_parameters(rp));
            let (cf, _) = discretized(&mut h, &mut rust, &d, &[0.0; 3], form);
            assert_eq!(cf.len(), 1);
            assert!((cf[0] - 19.62).abs() <= EPS_, "{cf:?}");
        }
    }
}

/// Dense Jacobians with a `solve_inertia` callback (the common mix: dense constraints, the
/// simulator's own M⁻¹), and M given as M itself instead of M⁻¹: same forces.
#[test]
fn mixed_operator_forms() {
    let mut rod = Rod2D::sliding_impacting_horizontal(true);
    rod.set_mu(15.0, 15.0);
    let d = VelOwned::fixture(&rod, 0, 0);
    let mut rust = ConstraintSolver::new();
    let (cf_ref, _) = impact(&mut CRigid::new(None), &mut rust, &d, Form::Dense);
    let mut h = CRigid::new(None);
    h.set_vel(&d, Form::Dense);
    h.callback(false, CTS_RIGID_OPERATOR_SOLVE_INERTIA, &d.minv, false, 0);
    assert_eq!(h.solve_impact_problem(), cts_status::Ok);
    let cf = h.cf();
    assert!(close(&cf, &cf_ref, 1e-14), "{cf:?} vs {cf_ref:?}");
    assert!(h.ctxs[1].last().unwrap().calls.get() > 0, "the inertia callback was used");
    let mut d2 = d.clone();
    d2.inertia_form = InertiaForm::Inverse;
    let mut h = CRigid::new(None);
    h.set_vel(&d2, Form::Dense);
    assert_eq!(h.solve_impact_problem(), cts_status::Ok);
    assert!(close(&h.cf(), &cf_ref, 1e-14));
}

/// A callback that returns nonzero: the solve returns CTS_STATUS_CALLBACK_FAILED naming the
/// operator and the code, no later callback runs, no results remain; a compute call fails the
/// same way and writes nothing.
#[test]
fn failing_callback() {
    let mut rod = Rod2D::sliding_impacting_horizontal(true);
    rod.set_mu(15.0, 15.0);
    let d = VelOwned::fixture(&rod, 0, 0);
    let mut h = CRigid::new(None);
    h.set_vel(&d, Form::Dense);
    assert_eq!(h.solve_impact_problem(), cts_status::Ok);
    let cf = h.cf();
    h.callback(false, CTS_RIGID_OPERATOR_N_MULT, &d.n, false, 7);
    h.callback(false, CTS_RIGID_OPERATOR_F_MULT, &d.f, false, 0);
    assert_eq!(h.solve_impact_problem(), cts_status::CallbackFailed);
    let msg = last_error(h.h);
    assert!(msg.contains("N_mult callback returned 7"), "{msg}");
    assert_eq!(h.ctxs[1][0].calls.get(), 1, "the failing callback ran once");
    assert_eq!(h.ctxs[1][1].calls.get(), 0, "no callback runs after a failure");
    assert_eq!(unsafe { cts_rigid_solver_num_constraint_forces(h.h) }, 0);
    let mut out = [123.0; 4];
    let s = unsafe { cts_rigid_solver_get_constraint_forces(h.h, out.as_mut_ptr(), 4) };
    assert_eq!(s, cts_status::NoSolution);
    assert_eq!(out, [123.0; 4]);
    // Post-processing uses N_transpose_mult: make that one fail.
    let mut h = CRigid::new(None);
    h.set_vel(&d, Form::Dense);
    h.callback(false, CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, &d.n, true, -2);
    let mut dv = [123.0; 3];
    let s = unsafe {
        cts_rigid_solver_compute_generalized_velocity_change(h.h, cf.as_ptr(), cf.len(), dv.as_mut_ptr(), 3)
    };
    assert_eq!(s, cts_status::CallbackFailed);
    assert!(last_error(h.h).contains("N_transpose_mult callback returned -2"));
    assert_eq!(dv, [123.0; 3]);
}

/// Out of order and invalid uses: statuses and messages (the C contract test covers the rest).
#[test]
fn usage_errors() {
    let d = VelOwned::fixture(&Rod2D::sliding_impacting_horizontal(true), 0, 0);
    let mut h = CRigid::new(None);
    assert_eq!(h.solve_impact_problem(), cts_status::NoProblemData);
    assert!(last_error(h.h).contains("no vel problem data"), "{}", last_error(h.h));
    assert_eq!(h.solve_constraint_problem(), cts_status::NoProblemData);
    h.set_vel(&d, Form::Dense);
    // Velocity-level data has no N_minus_muQ_transpose_mult.
    let s = unsafe {
        cts_rigid_solver_set_vel_operator_matrix(
            h.h,
            CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT,
            d.n.as_ptr(),
            2,
        )
    };
    assert_eq!(s, cts_status::InvalidArgument);
    // Negative γ.
    let bad = [-1.0, 0.0];
    let s = unsafe {
        cts_rigid_solver_set_vel_problem_data(
            h.h,
            3,
            2,
            d.r.as_ptr(),
            d.mu.as_ptr(),
            d.k_n.as_ptr(),
            bad.as_ptr(),
            d.k_f.as_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            std::ptr::null(),
            0,
            std::ptr::null(),
            d.mv.as_ptr(),
        )
    };
    assert_eq!(s, cts_status::InvalidArgument);
    assert!(last_error(h.h).contains("gamma"), "{}", last_error(h.h));
    // The earlier data is still set and solves.
    assert_eq!(h.solve_impact_problem(), cts_status::Ok);
    assert_eq!(unsafe { cts_rigid_solver_solve_discretized_problem(h.h, 0.0) }, cts_status::InvalidArgument);
    assert_eq!(unsafe { cts_rigid_solver_num_constraint_forces(h.h) }, 0, "a failed solve leaves no results");
}

/// Issue 24, item 4: a problem whose workspace can never be allocated is refused from its sizes,
/// before any of its data is read. Backed by a read-only zero mapping of the stated length (no
/// memory behind it until read), nb = 2³⁶ bilateral constraints (512 GiB of kG; the workspace
/// needs nb² doubles, which cannot exist) was accepted and the solve read it all for minutes.
/// nb = 2²⁸ (2 GiB of kG; nb² doubles = 2⁵⁹ bytes, addressable but refused) is
/// ALLOCATION_FAILED. Each call returns in well under a second.
#[test]
fn sizes_are_checked_before_data_is_read() {
    let null = std::ptr::null::<f64>();
    for (nb, status) in
        [(1usize << 36, cts_status::InvalidArgument), (1usize << 28, cts_status::AllocationFailed)]
    {
        let Some(map) = crate::sizes_before_data::ZeroMap::doubles(nb) else { continue };
        let kg = map.f64();
        let mut h: *mut cts_rigid_solver = std::ptr::null_mut();
        let start = std::time::Instant::now();
        // SAFETY: valid handle and arrays of the stated lengths (kG: the mapping).
        unsafe {
            assert_eq!(cts_rigid_solver_new(&mut h), cts_status::Ok);
            let s = cts_rigid_solver_set_vel_problem_data(
                h,
                0,
                0,
                std::ptr::null(),
                null,
                null,
                null,
                null,
                null,
                null,
                0,
                null,
                null,
                nb,
                kg,
                null,
            );
            assert_eq!(s, status, "vel, nb = {nb}: {}", last_error(h));
            assert!(
                last_error(h).contains("is too large") || last_error(h).contains("failed"),
                "{}",
                last_error(h)
            );
            let s = cts_rigid_solver_set_accel_problem_data(
                h,
                0,
                0,
                std::ptr::null(),
                null,
                0,
                std::ptr::null(),
                null,
                std::ptr::null(),
                null,
                null,
                0,
                null,
                nb,
                kg,
                null,
                0,
            );
            assert_eq!(s, status, "accel, nb = {nb}: {}", last_error(h));
            // Nothing was set: the solves report no data.
            assert_eq!(cts_rigid_solver_solve_impact_problem(h), cts_status::NoProblemData);
            cts_rigid_solver_free(h);
        }
        assert!(start.elapsed().as_secs_f64() < 1.0, "nb = {nb}: {:?}", start.elapsed());
    }
}
