//! Drake's TAMSI test cases (`docs/tamsi_cases.md`): what Drake asserts, and the reference values
//! of Drake 1.51.1's compiled solver, with the file's tolerances. Every case runs twice: through
//! the Rust API and through the C ABI (`include/contact_solvers.h`).
// Reference values are quoted verbatim (%.17g) from the spec, for traceability.
#![allow(clippy::excessive_precision)]
#![allow(unsafe_code)] // the C ABI cases call the extern "C" functions

use support::tamsi_support;

use contact_solvers::tamsi::{TamsiOutcome, TamsiParameters, TamsiProblem, TamsiSolver};
use nalgebra::{DMatrix, DVector, Matrix2, Vector2};
use tamsi_support::backend::{Backend, CAbi, RustApi, SUCCESS};
use tamsi_support::dual::{NormalLaw, residual_jacobian};
use tamsi_support::reference::{
    PIZZA_LARGE_MOMENT, PIZZA_NO_CONTACT, PIZZA_SMALL_MOMENT, SLIDING_AFTER_IMPACT, STICTION_REFERENCE,
    SolveReference,
};
use tamsi_support::scenes::{Cylinder, Scene, pizza_saver, pizza_saver_no_contact, rolling_cylinder};
use tamsi_support::{K_TOL, assert_abs, assert_drake_relative, assert_rel, assert_residuals, frobenius};

const REF_TOL: f64 = 1e-12;

// ------------------------------------------------------------------------------------------------
// §1 Limiter unit tests (fixture DirectionLimiter): vs = 1e-4, θmax = π/6, rtol = 0.01.

const VS: f64 = 1.0e-4;
const RTOL: f64 = 0.01;

fn cos_min() -> f64 {
    (std::f64::consts::PI / 6.0).cos()
}

fn alpha<B: Backend>(vt: Vector2<f64>, dvt: Vector2<f64>) -> Option<f64> {
    B::calc_alpha([vt.x, vt.y], [dvt.x, dvt.y], cos_min(), VS, RTOL)
}

fn rotation(theta: f64) -> Matrix2<f64> {
    Matrix2::new(theta.cos(), -theta.sin(), theta.sin(), theta.cos())
}

#[track_caller]
fn assert_alpha(got: Option<f64>, reference: f64) -> f64 {
    let a = got.expect("limiter returned no solution");
    assert!((a - reference).abs() <= K_TOL, "alpha {a:.17e}, reference {reference:.17e}");
    a
}

#[track_caller]
fn assert_vec_rel(got: Vector2<f64>, want: Vector2<f64>, tol: f64) {
    assert_drake_relative("v_alpha", got.as_slice(), want.as_slice(), tol);
}

fn limiter_01_zero_v_and_zero_dv<B: Backend>() {
    assert_alpha(alpha::<B>(Vector2::zeros(), Vector2::zeros()), 1.0);
}

#[test]
fn limiter_01_zero_v_and_zero_dv_rust_api() {
    limiter_01_zero_v_and_zero_dv::<RustApi>();
}

#[test]
fn limiter_01_zero_v_and_zero_dv_c_abi() {
    limiter_01_zero_v_and_zero_dv::<CAbi>();
}

fn limiter_02_zero_v_to_within_stiction_region<B: Backend>() {
    assert_alpha(alpha::<B>(Vector2::zeros(), Vector2::new(-0.5, 0.7) * VS), 1.0);
}

#[test]
fn limiter_02_zero_v_to_within_stiction_region_rust_api() {
    limiter_02_zero_v_to_within_stiction_region::<RustApi>();
}

#[test]
fn limiter_02_zero_v_to_within_stiction_region_c_abi() {
    limiter_02_zero_v_to_within_stiction_region::<CAbi>();
}

fn limiter_03_zero_v_to_sliding_region<B: Backend>() {
    let (vt, dvt) = (Vector2::zeros(), Vector2::new(0.3, -0.1));
    let a = assert_alpha(alpha::<B>(vt, dvt), 0.00015811388300841897);
    let v_alpha = vt + a * dvt;
    assert_vec_rel(v_alpha, dvt / dvt.norm() * VS / 2.0, K_TOL);
    assert_vec_rel(v_alpha, Vector2::new(4.743416490252569e-05, -1.5811388300841898e-05), K_TOL);
}

#[test]
fn limiter_03_zero_v_to_sliding_region_rust_api() {
    limiter_03_zero_v_to_sliding_region::<RustApi>();
}

#[test]
fn limiter_03_zero_v_to_sliding_region_c_abi() {
    limiter_03_zero_v_to_sliding_region::<CAbi>();
}

fn limiter_04_sliding_region_to_zero<B: Backend>() {
    let vt = Vector2::new(0.3, -0.1);
    let dvt = -vt;
    let a = assert_alpha(alpha::<B>(vt, dvt), 0.99984188611699154);
    let v_alpha = vt + a * dvt;
    assert_vec_rel(v_alpha, vt / vt.norm() * VS / 2.0, K_TOL);
    assert_vec_rel(v_alpha, Vector2::new(4.7434164902548925e-05, -1.581138830084039e-05), K_TOL);
}

#[test]
fn limiter_04_sliding_region_to_zero_rust_api() {
    limiter_04_sliding_region_to_zero::<RustApi>();
}

#[test]
fn limiter_04_sliding_region_to_zero_c_abi() {
    limiter_04_sliding_region_to_zero::<CAbi>();
}

fn limiter_05_sliding_region_to_stiction_region<B: Backend>() {
    let vt = Vector2::new(1.2, 0.4);
    let dvt = Vector2::new(-0.3, 0.45) * VS - vt;
    assert_eq!(dvt, Vector2::new(-1.2000299999999999, -0.399955));
    assert_alpha(alpha::<B>(vt, dvt), 1.0);
}

#[test]
fn limiter_05_sliding_region_to_stiction_region_rust_api() {
    limiter_05_sliding_region_to_stiction_region::<RustApi>();
}

#[test]
fn limiter_05_sliding_region_to_stiction_region_c_abi() {
    limiter_05_sliding_region_to_stiction_region::<CAbi>();
}

fn limiter_06_within_stiction_region_to_sliding_region<B: Backend>() {
    assert_alpha(alpha::<B>(Vector2::new(-0.5, 0.7) * VS, Vector2::new(0.9, -0.3)), 1.0);
}

#[test]
fn limiter_06_within_stiction_region_to_sliding_region_rust_api() {
    limiter_06_within_stiction_region_to_sliding_region::<RustApi>();
}

#[test]
fn limiter_06_within_stiction_region_to_sliding_region_c_abi() {
    limiter_06_within_stiction_region_to_sliding_region::<CAbi>();
}

fn limiter_07_stiction_to_sliding<B: Backend>() {
    let vt = Vector2::new(-0.5, 0.3) * VS * RTOL;
    let dvt = Vector2::new(0.3, 0.15);
    let a = assert_alpha(alpha::<B>(vt, dvt), 0.00014907119849998598);
    assert!((a - VS / (2.0 * dvt.norm())).abs() <= K_TOL);
}

#[test]
fn limiter_07_stiction_to_sliding_rust_api() {
    limiter_07_stiction_to_sliding::<RustApi>();
}

#[test]
fn limiter_07_stiction_to_sliding_c_abi() {
    limiter_07_stiction_to_sliding::<CAbi>();
}

fn limiter_08_very_small_delta_v<B: Backend>() {
    assert_alpha(alpha::<B>(Vector2::new(0.1, 0.05), Vector2::new(-0.5, 0.3) * VS * RTOL), 1.0);
}

#[test]
fn limiter_08_very_small_delta_v_rust_api() {
    limiter_08_very_small_delta_v::<RustApi>();
}

#[test]
fn limiter_08_very_small_delta_v_c_abi() {
    limiter_08_very_small_delta_v::<CAbi>();
}

fn limiter_09_straight_cross_through_zero<B: Backend>() {
    let vt = Vector2::new(0.1, 0.05);
    let dvt = Vector2::new(-0.3, -0.15);
    let a = assert_alpha(alpha::<B>(vt, dvt), 0.33318426213483338);
    let v_alpha = vt + a * dvt;
    assert_vec_rel(v_alpha, vt / vt.norm() * VS / 2.0, K_TOL);
    assert_vec_rel(v_alpha, Vector2::new(4.4721359549998452e-05, 2.2360679774999226e-05), K_TOL);
}

#[test]
fn limiter_09_straight_cross_through_zero_rust_api() {
    limiter_09_straight_cross_through_zero::<RustApi>();
}

#[test]
fn limiter_09_straight_cross_through_zero_c_abi() {
    limiter_09_straight_cross_through_zero::<CAbi>();
}

fn limiter_10_cross_stiction_region_from_the_outside<B: Backend>() {
    let target = Vector2::new(0.3, 0.2) * VS;
    let n = Vector2::new(target.y, -target.x).normalize();
    let vt = target + 0.5 * n;
    let v1 = target - 0.8 * n;
    let dvt = v1 - vt;
    let a = assert_alpha(alpha::<B>(vt, dvt), 0.38461538461538453);
    let v_alpha = vt + a * dvt;
    assert_vec_rel(v_alpha, target, K_TOL);
    assert_vec_rel(v_alpha, Vector2::new(3.0000000000030003e-05, 1.9999999999908979e-05), K_TOL);
}

#[test]
fn limiter_10_cross_stiction_region_from_the_outside_rust_api() {
    limiter_10_cross_stiction_region_from_the_outside::<RustApi>();
}

#[test]
fn limiter_10_cross_stiction_region_from_the_outside_c_abi() {
    limiter_10_cross_stiction_region_from_the_outside::<CAbi>();
}

fn limiter_11_changes_within_the_sliding_region<B: Backend>() {
    let vt = Vector2::new(-0.5, 0.7);
    let dvt = rotation(std::f64::consts::PI / 8.0) * vt - vt;
    assert_alpha(alpha::<B>(vt, dvt), 1.0);
}

#[test]
fn limiter_11_changes_within_the_sliding_region_rust_api() {
    limiter_11_changes_within_the_sliding_region::<RustApi>();
}

#[test]
fn limiter_11_changes_within_the_sliding_region_c_abi() {
    limiter_11_changes_within_the_sliding_region::<CAbi>();
}

#[track_caller]
fn assert_angle_is_theta_max(vt: Vector2<f64>, dvt: Vector2<f64>, a: f64, reference_theta: f64) {
    let v_alpha = vt + a * dvt;
    let theta = (vt.dot(&v_alpha) / (vt.norm() * v_alpha.norm())).acos();
    assert!((theta - std::f64::consts::PI / 6.0).abs() <= K_TOL, "theta {theta:.17e}");
    assert!(
        (theta - reference_theta).abs() <= K_TOL,
        "theta {theta:.17e} vs reference {reference_theta:.17e}"
    );
}

fn limiter_12_changes_within_the_sliding_region_large_theta<B: Backend>() {
    let vt = Vector2::new(-0.5, 0.7);
    let dvt = rotation(std::f64::consts::PI / 3.0) * vt - vt;
    let a = assert_alpha(alpha::<B>(vt, dvt), 0.49999999999999989);
    assert_angle_is_theta_max(vt, dvt, a, 0.5235987755982987);
}

#[test]
fn limiter_12_changes_within_the_sliding_region_large_theta_rust_api() {
    limiter_12_changes_within_the_sliding_region_large_theta::<RustApi>();
}

#[test]
fn limiter_12_changes_within_the_sliding_region_large_theta_c_abi() {
    limiter_12_changes_within_the_sliding_region_large_theta::<CAbi>();
}

fn limiter_13_changes_within_the_sliding_region_very_large_theta<B: Backend>() {
    let vt = Vector2::new(-0.5, 0.7);
    let dvt = rotation(5.0 * std::f64::consts::PI / 6.0) * vt - vt;
    let a = assert_alpha(alpha::<B>(vt, dvt), 0.36602540378443882);
    assert_angle_is_theta_max(vt, dvt, a, 0.52359877559829959);
}

#[test]
fn limiter_13_changes_within_the_sliding_region_very_large_theta_rust_api() {
    limiter_13_changes_within_the_sliding_region_very_large_theta::<RustApi>();
}

#[test]
fn limiter_13_changes_within_the_sliding_region_very_large_theta_c_abi() {
    limiter_13_changes_within_the_sliding_region_very_large_theta::<CAbi>();
}

fn single_solution_data() -> (Vector2<f64>, Vector2<f64>) {
    let vt = Vector2::new(-0.5, 0.7);
    let dvt = -3.0 * (rotation(std::f64::consts::PI / 6.0) * vt);
    (vt, dvt)
}

fn limiter_14_changes_within_the_sliding_region_single_solution<B: Backend>() {
    let (vt, dvt) = single_solution_data();
    assert_rel("dvt", dvt.as_slice(), &[2.3490381056766578, -1.068653347947321], 1e-15);
    let a = assert_alpha(alpha::<B>(vt, dvt), 0.19245008972987529);
    assert_angle_is_theta_max(vt, dvt, a, 0.52359877559829915);
}

#[test]
fn limiter_14_changes_within_the_sliding_region_single_solution_rust_api() {
    limiter_14_changes_within_the_sliding_region_single_solution::<RustApi>();
}

#[test]
fn limiter_14_changes_within_the_sliding_region_single_solution_c_abi() {
    limiter_14_changes_within_the_sliding_region_single_solution::<CAbi>();
}

fn limiter_15_quadratic_non_positive_1<B: Backend>() {
    let (vt, mut dvt) = single_solution_data();
    dvt.y = f64::INFINITY;
    assert_eq!(alpha::<B>(vt, dvt), None);
}

#[test]
fn limiter_15_quadratic_non_positive_1_rust_api() {
    limiter_15_quadratic_non_positive_1::<RustApi>();
}

#[test]
fn limiter_15_quadratic_non_positive_1_c_abi() {
    limiter_15_quadratic_non_positive_1::<CAbi>();
}

fn limiter_16_quadratic_non_positive_2<B: Backend>() {
    let (mut vt, dvt) = single_solution_data();
    vt.y = f64::NAN;
    assert_eq!(alpha::<B>(vt, dvt), None);
}

#[test]
fn limiter_16_quadratic_non_positive_2_rust_api() {
    limiter_16_quadratic_non_positive_2::<RustApi>();
}

#[test]
fn limiter_16_quadratic_non_positive_2_c_abi() {
    limiter_16_quadratic_non_positive_2::<CAbi>();
}

// ------------------------------------------------------------------------------------------------
// Shared checks.

fn slip(vt: &[f64], i: usize) -> f64 {
    Vector2::new(vt[2 * i], vt[2 * i + 1]).norm()
}

/// The final state against a reference (`|a − b| ≤ 1e-12·max(1, |b|)`).
#[track_caller]
fn assert_solve_reference<B: Backend>(solver: &B, reference: &SolveReference) {
    assert_eq!(solver.num_iterations(), reference.iterations);
    assert_rel("v", &solver.v(), reference.v, REF_TOL);
    assert_rel("fn", &solver.fn_(), reference.fn_, REF_TOL);
    assert_rel("ft", &solver.ft(), reference.ft, REF_TOL);
    assert_rel("tau_f", &solver.tau_f(), reference.tau_f, REF_TOL);
    assert_rel("tau", &solver.tau(), reference.tau, REF_TOL);
}

/// Instantiates a generic case for both backends.
macro_rules! both_backends {
    ($case:ident) => {
        mod $case {
            use super::*;
            #[test]
            fn rust_api() {
                super::$case::<RustApi>();
            }
            #[test]
            fn c_abi() {
                super::$case::<CAbi>();
            }
        }
    };
}

// ------------------------------------------------------------------------------------------------
// §2 Pizza saver (one-way).

fn pizza_solver<B: Backend>() -> B {
    let mut solver = B::new(3);
    solver.set_parameters(TamsiParameters {
        stiction_tolerance: 1.0e-6,
        relative_tolerance: 1.0e-4,
        ..TamsiParameters::default()
    });
    solver
}

#[test]
fn pizza_saver_jacobian_matches_the_scene_of_the_spec() {
    let scene = pizza_saver(3.0);
    let want = DMatrix::from_row_slice(
        6,
        3,
        &[
            1.0,
            0.0,
            -0.10452846326765342, //
            0.0,
            1.0,
            -0.99452189536827329, //
            1.0,
            0.0,
            0.91354545764260087, //
            0.0,
            1.0,
            0.40673664307580015, //
            1.0,
            0.0,
            -0.80901699437494745, //
            0.0,
            1.0,
            0.58778525229247314,
        ],
    );
    assert_abs("Jt", scene.jt.as_slice(), want.as_slice(), 2.0 * f64::EPSILON);
    assert_eq!(scene.p_star.as_slice(), &[0.0, 0.0, 0.003]);
    assert_eq!(scene.fn_.as_ref().unwrap()[0], 3.3333333333333335);
}

#[track_caller]
fn check_pizza_jacobian<B: Backend>(solver: &mut B, scene: &Scene) -> Vec<f64> {
    let v = solver.v();
    let j = solver.jacobian(scene, &v);
    let j_ad = residual_jacobian(scene, &v, scene.dt, 1.0e-6, 1.0e-4, NormalLaw::Fn0);
    // Drake: absolute, tol = rows·‖J_expected‖_F·eps.
    let tol = 3.0 * frobenius(&j_ad) * f64::EPSILON;
    assert_abs("J vs autodiff", &j, &j_ad, tol);
    j
}

fn pizza_saver_small_applied_moment<B: Backend>() {
    let scene = pizza_saver(3.0);
    let mut solver = pizza_solver::<B>();
    assert_eq!(solver.solve(&scene), SUCCESS);
    let (vs, rtol) = (1.0e-6, 1.0e-4);

    // Drake asserts.
    assert!(solver.vt_residual() < rtol * vs);
    let tau_f = solver.tau_f();
    assert!(tau_f[0].abs() <= K_TOL && tau_f[1].abs() <= K_TOL);
    assert!((tau_f[2] - (-3.0)).abs() <= 5e-4);
    let vt = solver.vt();
    assert_eq!(vt.len(), 6);
    let slips = [slip(&vt, 0), slip(&vt, 1), slip(&vt, 2)];
    assert!((slips[0] - slips[1]).abs() <= K_TOL && (slips[1] - slips[2]).abs() <= K_TOL);
    assert!(slips.iter().all(|&s| s < vs), "stiction");
    let v = solver.v();
    assert_eq!(v.len(), 3);
    assert!(v[0].abs() <= K_TOL && v[1].abs() <= K_TOL);

    // Reference values.
    assert_solve_reference(&solver, &PIZZA_SMALL_MOMENT);
    assert_residuals(
        &solver.residuals(),
        &[5.1958926280752276e-07, 1.1127960070407821e-07, 5.6217785618702043e-09, 1.4421571455019692e-11],
    );
    assert_rel(
        "vt",
        &vt,
        &[
            -3.841278551076122e-08,
            -3.6547324105126324e-07,
            3.3571550390920833e-07,
            1.4947017244318954e-07,
            -2.9730271839844711e-07,
            2.1600306860807366e-07,
        ],
        REF_TOL,
    );
    for s in slips {
        assert!((s - 3.6748636983595802e-07).abs() <= REF_TOL);
    }
    assert_rel("vn", &solver.vn(), &[0.0; 3], REF_TOL);

    let j = check_pizza_jacobian(&mut solver, &scene);
    let j_ref = [7244.8521922154487, 0.0, 0.0, 0.0, 7244.8521922154478, 0.0, 0.0, 0.0, 6326.1363016404166];
    assert_rel("J", &j, &j_ref, REF_TOL);
}
both_backends!(pizza_saver_small_applied_moment);

fn pizza_saver_large_applied_moment<B: Backend>() {
    let scene = pizza_saver(6.0);
    let mut solver = pizza_solver::<B>();
    assert_eq!(solver.solve(&scene), SUCCESS);
    let (vs, rtol, dt, radius, inertia) = (1.0e-6, 1.0e-4, 1.0e-3, 1.0, 1.0);

    // Drake asserts.
    assert!(solver.vt_residual() < rtol * vs);
    let tau_f = solver.tau_f();
    assert!(tau_f[0].abs() <= K_TOL && tau_f[1].abs() <= K_TOL);
    assert!((tau_f[2] - (-5.0)).abs() <= 1e-13);
    let vt = solver.vt();
    let slips = [slip(&vt, 0), slip(&vt, 1), slip(&vt, 2)];
    assert!((slips[0] - slips[1]).abs() <= K_TOL && (slips[1] - slips[2]).abs() <= K_TOL);
    assert!(slips.iter().all(|&s| s > vs), "sliding");
    let v = solver.v();
    assert!(v[0].abs() <= K_TOL && v[1].abs() <= K_TOL);
    let omega = dt * (6.0 - 5.0) / inertia;
    assert!((v[2] - omega).abs() <= K_TOL);
    for s in slips {
        assert!((s - radius * omega).abs() <= K_TOL);
    }

    // Reference values.
    assert_solve_reference(&solver, &PIZZA_LARGE_MOMENT);
    assert_residuals(
        &solver.residuals(),
        &[
            1.0391785256150455e-06,
            7.7896188078425793e-07,
            0.0017301579144217098,
            7.4752740812706438e-08,
            1.19e-19,
        ],
    );
    assert_rel(
        "vt",
        &vt,
        &[
            -0.00010452846326765609,
            -0.00099452189536829876,
            0.0009135454576426243,
            0.00040673664307581064,
            -0.00080901699437496818,
            0.00058778525229248818,
        ],
        REF_TOL,
    );

    let j = check_pizza_jacobian(&mut solver, &scene);
    let j_ref = [3.4999999999999485, 0.0, 0.0, 0.0, 3.499999999999948, 0.0, 0.0, 0.0, 1.0000000000000493];
    assert_rel("J", &j, &j_ref, REF_TOL);
}
both_backends!(pizza_saver_large_applied_moment);

fn pizza_saver_no_contact_case<B: Backend>() {
    let scene = pizza_saver_no_contact();
    let mut solver = B::new(3);
    assert_eq!(solver.solve(&scene), SUCCESS);
    assert_eq!(solver.tau_f(), vec![0.0, 0.0, 0.0], "exactly zero");
    assert_eq!(solver.tau(), vec![0.0, 0.0, 0.0]);
    assert_eq!(solver.vt_residual(), 0.0);
    assert_eq!(solver.num_iterations(), 1);
    assert_eq!(solver.residuals(), vec![0.0]);
    let v = solver.v();
    assert!(v[0].abs() <= K_TOL && v[1].abs() <= K_TOL);
    assert!((v[2] - 1e-3 * 6.0).abs() <= K_TOL);
    assert_solve_reference(&solver, &PIZZA_NO_CONTACT);
    assert!(solver.vt().is_empty());
    assert!(solver.vn().is_empty());
    assert!(solver.fn_().is_empty());
    assert!(solver.ft().is_empty());
}
both_backends!(pizza_saver_no_contact_case);

// ------------------------------------------------------------------------------------------------
// §3 Rolling cylinder (two-way).

fn cylinder_solver<B: Backend>() -> B {
    let mut solver = B::new(3);
    solver.set_parameters(TamsiParameters { stiction_tolerance: 1.0e-6, ..TamsiParameters::default() });
    solver
}

#[test]
fn rolling_cylinder_fixture_constants() {
    assert_eq!(Cylinder::stiffness(), 9.0e6);
    assert_eq!(Cylinder::dissipation(), 333.33333333333331);
    let scene = rolling_cylinder(0.5, 1);
    assert_eq!(scene.p_star.as_slice(), &[0.5, -3.009, 0.0]);
    assert_eq!(scene.fn0.as_ref().unwrap()[0], 9000.0);
    assert_eq!(rolling_cylinder(0.7, 1).p_star[0], 0.69999999999999996);
}

fn rolling_cylinder_stiction_after_impact<B: Backend>() {
    // One solver object across every nc, as Drake's test does.
    let mut solver = cylinder_solver::<B>();
    let r = Cylinder::RADIUS;
    for reference in &STICTION_REFERENCE {
        let nc = reference.nc;
        let scene = rolling_cylinder(0.5, nc);
        let outcome = solver.solve(&scene);

        // Drake asserts.
        if let Some(capacity) = solver.contact_capacity() {
            assert!(capacity >= nc);
            assert_eq!(capacity, reference.capacity);
        }
        assert_eq!(outcome, SUCCESS, "nc = {nc}");
        assert!(solver.vt_residual() < 1e-8);
        let tau_f = solver.tau_f();
        assert!(tau_f[1].abs() <= K_TOL);
        assert!((tau_f[2] - r * tau_f[0]).abs() <= K_TOL);
        let vt = solver.vt();
        assert_eq!(vt.len(), 2 * nc);
        for i in 0..nc {
            assert!(vt[2 * i + 1].abs() <= K_TOL);
            assert!(vt[2 * i].abs() < 1e-6);
        }
        let v = solver.v();
        assert_eq!(v.len(), 3);
        assert!((v[0] + r * v[2]).abs() < 1e-6, "rolling");
        let j = solver.jacobian(&scene, &v);
        let j_ad =
            residual_jacobian(&scene, &v, scene.dt, 1.0e-6, 1.0e-2, NormalLaw::X0 { x0: Cylinder::x0(nc) });
        assert_drake_relative("J vs autodiff", &j, &j_ad, 40.0 * f64::EPSILON);

        // Reference values.
        assert_eq!(solver.num_iterations(), reference.iterations, "nc = {nc}");
        assert_residuals(&solver.residuals(), reference.residuals);
        assert_rel("v", &v, &reference.v, REF_TOL);
        assert_rel("fn", &solver.fn_(), &vec![reference.fn_; nc], REF_TOL);
        let ft = solver.ft();
        for i in 0..nc {
            assert_rel("ft[2i]", &[ft[2 * i]], &[reference.ft0], REF_TOL);
            assert_eq!(ft[2 * i + 1], 0.0);
            assert_eq!(vt[2 * i + 1], 0.0, "out-of-plane slip is exactly 0");
            assert_rel("vt[2i]", &[vt[2 * i]], &[v[0] + v[2]], REF_TOL);
        }
        assert!((vt[0] - 5.88e-7).abs() < 5e-10, "slip 5.88e-7 to the digits given, got {:e}", vt[0]);
        assert_rel("vn", &solver.vn(), &vec![v[1]; nc], REF_TOL);
        assert_rel("tau_f", &tau_f, &reference.tau_f, REF_TOL);
        let tau = solver.tau();
        let fn_sum: f64 = solver.fn_().iter().sum();
        assert_rel("tau", &tau, &[tau_f[0], fn_sum, tau_f[2]], REF_TOL);
        if nc == 1 {
            assert_rel("vt[0]", &[vt[0]], &[5.8810121361663192e-07], REF_TOL);
            assert_rel("tau[1]", &[tau[1]], &[3010.9943295852108], REF_TOL);
            let j_ref = [
                248045.97833295623,
                0.0,
                248044.97833295623,
                -248.84055604999674,
                2998.0340224887377,
                -248.84055604999674,
                248044.97833295623,
                0.0,
                248045.97833295623,
            ];
            assert_rel("J", &j, &j_ref, REF_TOL);
        }
        if nc == 4 {
            let j_ref = [
                248044.83792094336,
                0.0,
                248043.83792094336,
                -248.11406614075287,
                2989.2810172347463,
                -248.11406614075287,
                248043.83792094336,
                0.0,
                248044.83792094336,
            ];
            assert_rel("J", &j, &j_ref, REF_TOL);
        }
    }
}

both_backends!(rolling_cylinder_stiction_after_impact);

fn rolling_cylinder_sliding_after_impact<B: Backend>() {
    let scene = rolling_cylinder(0.7, 1);
    let mut solver = cylinder_solver::<B>();
    assert_eq!(solver.solve(&scene), SUCCESS);
    let r = Cylinder::RADIUS;

    // Drake asserts.
    assert!(solver.vt_residual() < 1e-8);
    let tau_f = solver.tau_f();
    assert!(tau_f[1].abs() <= K_TOL);
    assert!((tau_f[2] - r * tau_f[0]).abs() <= K_TOL);
    let vt = solver.vt();
    assert_eq!(vt.len(), 2);
    assert!(vt[1].abs() <= K_TOL);
    assert!(vt[0] > 1e-6, "sliding");
    let v = solver.v();
    assert!(v[2] < 0.0);
    assert!((v[0] + r * v[2] - vt[0]).abs() <= K_TOL);
    let j = solver.jacobian(&scene, &v);
    let j_ad = residual_jacobian(&scene, &v, scene.dt, 1.0e-6, 1.0e-2, NormalLaw::Fn0);
    assert_abs("J vs autodiff", &j, &j_ad, 3.0 * frobenius(&j_ad) * f64::EPSILON);

    // Reference values.
    assert_solve_reference(&solver, &SLIDING_AFTER_IMPACT);
    assert_residuals(
        &solver.residuals(),
        &[
            0.34483656353910791,
            0.16467275088357411,
            0.070388716414639299,
            0.020266532242870585,
            0.0020140104079915092,
            2.0290369010289556e-05,
            2.0598452002087442e-09,
            8.79e-17,
        ],
    );
    assert_rel("vn", &solver.vn(), &[0.0019943295852104109], REF_TOL);
    assert_rel("vt", &vt, &[0.097801134082960983, 0.0], REF_TOL);
    let ft = solver.ft();
    assert!((ft[0] - (-Cylinder::MU * solver.fn_()[0])).abs() <= 1e-12 * 301.1, "ft = -mu fn");
    let j_ref = [
        1.0000000000000322,
        0.0,
        3e-14,
        -299.70340224887224,
        2998.0340224887377,
        -299.70340224887224,
        3e-14,
        0.0,
        1.0000000000000322,
    ];
    assert_rel("J", &j, &j_ref, REF_TOL);
}

both_backends!(rolling_cylinder_sliding_after_impact);

// ------------------------------------------------------------------------------------------------
// §4 Empty world.

#[test]
fn empty_world_rust_api() {
    let mut solver = TamsiSolver::new(0);
    let (m, jn, jt) = (DMatrix::<f64>::zeros(0, 0), DMatrix::<f64>::zeros(0, 0), DMatrix::<f64>::zeros(0, 0));
    let e = DVector::<f64>::zeros(0);
    let problem = TamsiProblem::two_way(
        m.as_view(),
        jn.as_view(),
        jt.as_view(),
        e.as_view(),
        e.as_view(),
        e.as_view(),
        e.as_view(),
        e.as_view(),
    )
    .expect("Drake asserts no exception");
    assert_eq!(solver.solve_with_guess(&problem, 1e-3, e.as_view()).unwrap(), TamsiOutcome::Success);
    assert_eq!(solver.iteration_stats().num_iterations, 1);
    assert_eq!(solver.iteration_stats().residuals, vec![0.0]);
    for out in [
        solver.generalized_velocities(),
        solver.normal_velocities(),
        solver.tangential_velocities(),
        solver.normal_forces(),
        solver.friction_forces(),
        solver.generalized_friction_forces(),
        solver.generalized_contact_forces(),
    ] {
        assert!(out.is_empty());
    }
}

#[test]
#[allow(unsafe_code)]
fn empty_world_c_abi() {
    use contact_solvers::ffi::cts_status;
    use contact_solvers::ffi::tamsi as c;
    let null = std::ptr::null::<f64>();
    unsafe {
        let mut h = std::ptr::null_mut();
        assert_eq!(c::cts_tamsi_solver_new(0, &mut h), cts_status::Ok);
        // nc = 0 and nv = 0: every array may be NULL.
        let status = c::cts_tamsi_solver_set_two_way_coupled_problem_data(
            h, 0, null, 1, null, 1, null, 1, null, null, null, null, null,
        );
        assert_eq!(status, cts_status::Ok, "Drake asserts no exception");
        assert_eq!(c::cts_tamsi_solver_solve_with_guess(h, 1e-3, null, 0), cts_status::Ok);
        let mut stats = c::cts_tamsi_iteration_stats { num_iterations: -1, vt_residual: -1.0 };
        assert_eq!(c::cts_tamsi_solver_get_iteration_stats(h, &mut stats), cts_status::Ok);
        assert_eq!((stats.num_iterations, stats.vt_residual), (1, 0.0));
        assert_eq!(
            c::cts_tamsi_solver_get_generalized_velocities(h, std::ptr::null_mut(), 0),
            cts_status::Ok
        );
        assert_eq!(c::cts_tamsi_solver_get_normal_forces(h, std::ptr::null_mut(), 0), cts_status::Ok);
        c::cts_tamsi_solver_free(h);
    }
}
