//! Drake's TAMSI test cases (`specs/tamsi_cases.md`) through the Rust API: what Drake asserts,
//! and the reference values of Drake 1.51.1's compiled solver, with the file's tolerances.
// Reference values are quoted verbatim (%.17g) from the spec, for traceability.
#![allow(clippy::excessive_precision)]

mod tamsi_support;

use contact_solvers::tamsi::{TamsiOutcome, TamsiParameters, TamsiProblem, TamsiSolver, calc_alpha};
use nalgebra::{DMatrix, DVector, Matrix2, Vector2};
use tamsi_support::dual::{NormalLaw, residual_jacobian};
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

fn alpha(vt: Vector2<f64>, dvt: Vector2<f64>) -> Option<f64> {
    calc_alpha([vt.x, vt.y], [dvt.x, dvt.y], cos_min(), VS, RTOL)
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

#[test]
fn limiter_01_zero_v_and_zero_dv() {
    assert_alpha(alpha(Vector2::zeros(), Vector2::zeros()), 1.0);
}

#[test]
fn limiter_02_zero_v_to_within_stiction_region() {
    assert_alpha(alpha(Vector2::zeros(), Vector2::new(-0.5, 0.7) * VS), 1.0);
}

#[test]
fn limiter_03_zero_v_to_sliding_region() {
    let (vt, dvt) = (Vector2::zeros(), Vector2::new(0.3, -0.1));
    let a = assert_alpha(alpha(vt, dvt), 0.00015811388300841897);
    let v_alpha = vt + a * dvt;
    assert_vec_rel(v_alpha, dvt / dvt.norm() * VS / 2.0, K_TOL);
    assert_vec_rel(v_alpha, Vector2::new(4.743416490252569e-05, -1.5811388300841898e-05), K_TOL);
}

#[test]
fn limiter_04_sliding_region_to_zero() {
    let vt = Vector2::new(0.3, -0.1);
    let dvt = -vt;
    let a = assert_alpha(alpha(vt, dvt), 0.99984188611699154);
    let v_alpha = vt + a * dvt;
    assert_vec_rel(v_alpha, vt / vt.norm() * VS / 2.0, K_TOL);
    assert_vec_rel(v_alpha, Vector2::new(4.7434164902548925e-05, -1.581138830084039e-05), K_TOL);
}

#[test]
fn limiter_05_sliding_region_to_stiction_region() {
    let vt = Vector2::new(1.2, 0.4);
    let dvt = Vector2::new(-0.3, 0.45) * VS - vt;
    assert_eq!(dvt, Vector2::new(-1.2000299999999999, -0.399955));
    assert_alpha(alpha(vt, dvt), 1.0);
}

#[test]
fn limiter_06_within_stiction_region_to_sliding_region() {
    assert_alpha(alpha(Vector2::new(-0.5, 0.7) * VS, Vector2::new(0.9, -0.3)), 1.0);
}

#[test]
fn limiter_07_stiction_to_sliding() {
    let vt = Vector2::new(-0.5, 0.3) * VS * RTOL;
    let dvt = Vector2::new(0.3, 0.15);
    let a = assert_alpha(alpha(vt, dvt), 0.00014907119849998598);
    assert!((a - VS / (2.0 * dvt.norm())).abs() <= K_TOL);
}

#[test]
fn limiter_08_very_small_delta_v() {
    assert_alpha(alpha(Vector2::new(0.1, 0.05), Vector2::new(-0.5, 0.3) * VS * RTOL), 1.0);
}

#[test]
fn limiter_09_straight_cross_through_zero() {
    let vt = Vector2::new(0.1, 0.05);
    let dvt = Vector2::new(-0.3, -0.15);
    let a = assert_alpha(alpha(vt, dvt), 0.33318426213483338);
    let v_alpha = vt + a * dvt;
    assert_vec_rel(v_alpha, vt / vt.norm() * VS / 2.0, K_TOL);
    assert_vec_rel(v_alpha, Vector2::new(4.4721359549998452e-05, 2.2360679774999226e-05), K_TOL);
}

#[test]
fn limiter_10_cross_stiction_region_from_the_outside() {
    let target = Vector2::new(0.3, 0.2) * VS;
    let n = Vector2::new(target.y, -target.x).normalize();
    let vt = target + 0.5 * n;
    let v1 = target - 0.8 * n;
    let dvt = v1 - vt;
    let a = assert_alpha(alpha(vt, dvt), 0.38461538461538453);
    let v_alpha = vt + a * dvt;
    assert_vec_rel(v_alpha, target, K_TOL);
    assert_vec_rel(v_alpha, Vector2::new(3.0000000000030003e-05, 1.9999999999908979e-05), K_TOL);
}

#[test]
fn limiter_11_changes_within_the_sliding_region() {
    let vt = Vector2::new(-0.5, 0.7);
    let dvt = rotation(std::f64::consts::PI / 8.0) * vt - vt;
    assert_alpha(alpha(vt, dvt), 1.0);
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

#[test]
fn limiter_12_changes_within_the_sliding_region_large_theta() {
    let vt = Vector2::new(-0.5, 0.7);
    let dvt = rotation(std::f64::consts::PI / 3.0) * vt - vt;
    let a = assert_alpha(alpha(vt, dvt), 0.49999999999999989);
    assert_angle_is_theta_max(vt, dvt, a, 0.5235987755982987);
}

#[test]
fn limiter_13_changes_within_the_sliding_region_very_large_theta() {
    let vt = Vector2::new(-0.5, 0.7);
    let dvt = rotation(5.0 * std::f64::consts::PI / 6.0) * vt - vt;
    let a = assert_alpha(alpha(vt, dvt), 0.36602540378443882);
    assert_angle_is_theta_max(vt, dvt, a, 0.52359877559829959);
}

fn single_solution_data() -> (Vector2<f64>, Vector2<f64>) {
    let vt = Vector2::new(-0.5, 0.7);
    let dvt = -3.0 * (rotation(std::f64::consts::PI / 6.0) * vt);
    (vt, dvt)
}

#[test]
fn limiter_14_changes_within_the_sliding_region_single_solution() {
    let (vt, dvt) = single_solution_data();
    assert_rel("dvt", dvt.as_slice(), &[2.3490381056766578, -1.068653347947321], 1e-15);
    let a = assert_alpha(alpha(vt, dvt), 0.19245008972987529);
    assert_angle_is_theta_max(vt, dvt, a, 0.52359877559829915);
}

#[test]
fn limiter_15_quadratic_non_positive_1() {
    let (vt, mut dvt) = single_solution_data();
    dvt.y = f64::INFINITY;
    assert_eq!(alpha(vt, dvt), None);
}

#[test]
fn limiter_16_quadratic_non_positive_2() {
    let (mut vt, dvt) = single_solution_data();
    vt.y = f64::NAN;
    assert_eq!(alpha(vt, dvt), None);
}

// ------------------------------------------------------------------------------------------------
// Shared checks.

fn solve(solver: &mut TamsiSolver, scene: &Scene) -> TamsiOutcome {
    solver.solve_with_guess(&scene.problem(), scene.dt, scene.v0.as_view()).unwrap()
}

fn jacobian_at_solution(solver: &mut TamsiSolver, scene: &Scene) -> Vec<f64> {
    let nv = scene.nv();
    let v = DVector::from_column_slice(solver.generalized_velocities());
    let mut j = DMatrix::zeros(nv, nv);
    solver.calc_jacobian(&scene.problem(), scene.dt, v.as_view(), j.as_view_mut()).unwrap();
    j.as_slice().to_vec()
}

fn slip(vt: &[f64], i: usize) -> f64 {
    Vector2::new(vt[2 * i], vt[2 * i + 1]).norm()
}

// ------------------------------------------------------------------------------------------------
// §2 Pizza saver (one-way).

fn pizza_solver() -> TamsiSolver {
    let mut solver = TamsiSolver::new(3);
    solver
        .set_parameters(TamsiParameters {
            stiction_tolerance: 1.0e-6,
            relative_tolerance: 1.0e-4,
            ..TamsiParameters::default()
        })
        .unwrap();
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
fn check_pizza_jacobian(solver: &mut TamsiSolver, scene: &Scene) -> Vec<f64> {
    let j = jacobian_at_solution(solver, scene);
    let params = *solver.parameters();
    let v = solver.generalized_velocities().to_vec();
    let j_ad = residual_jacobian(
        scene,
        &v,
        scene.dt,
        params.stiction_tolerance,
        params.relative_tolerance,
        NormalLaw::Fn0,
    );
    // Drake: absolute, tol = rows·‖J_expected‖_F·eps.
    let tol = 3.0 * frobenius(&j_ad) * f64::EPSILON;
    assert_abs("J vs autodiff", &j, &j_ad, tol);
    j
}

#[test]
fn pizza_saver_small_applied_moment() {
    let scene = pizza_saver(3.0);
    let mut solver = pizza_solver();
    assert_eq!(solve(&mut solver, &scene), TamsiOutcome::Success);
    let stats = solver.iteration_stats().clone();
    let (vs, rtol) = (1.0e-6, 1.0e-4);

    // Drake asserts.
    assert!(stats.vt_residual() < rtol * vs);
    let tau_f = solver.generalized_friction_forces();
    assert!(tau_f[0].abs() <= K_TOL && tau_f[1].abs() <= K_TOL);
    assert!((tau_f[2] - (-3.0)).abs() <= 5e-4);
    let vt = solver.tangential_velocities();
    assert_eq!(vt.len(), 6);
    let slips = [slip(vt, 0), slip(vt, 1), slip(vt, 2)];
    assert!((slips[0] - slips[1]).abs() <= K_TOL && (slips[1] - slips[2]).abs() <= K_TOL);
    assert!(slips.iter().all(|&s| s < vs), "stiction");
    let v = solver.generalized_velocities();
    assert_eq!(v.len(), 3);
    assert!(v[0].abs() <= K_TOL && v[1].abs() <= K_TOL);

    // Reference values.
    assert_eq!(stats.num_iterations, 4);
    assert_residuals(
        &stats.residuals,
        &[5.1958926280752276e-07, 1.1127960070407821e-07, 5.6217785618702043e-09, 1.4421571455019692e-11],
    );
    assert_rel("v", v, &[1.6e-23, 9.7e-24, 3.6748636983595802e-07], REF_TOL);
    assert_rel(
        "vt",
        vt,
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
    assert_rel("vn", solver.normal_velocities(), &[0.0; 3], REF_TOL);
    assert_rel("fn", solver.normal_forces(), &[10.0 / 3.0; 3], REF_TOL);
    assert_rel(
        "ft",
        solver.friction_forces(),
        &[
            0.10451565899373869,
            0.99440007083967719,
            -0.91343355236907531,
            -0.40668681963798931,
            0.80891789337533648,
            -0.58771325120168794,
        ],
        REF_TOL,
    );
    let tau_ref = [-1.1e-16, -1.1e-16, -2.9996325132835278];
    assert_rel("tau_f", solver.generalized_friction_forces(), &tau_ref, REF_TOL);
    assert_rel("tau", solver.generalized_contact_forces(), &tau_ref, REF_TOL);

    let j = check_pizza_jacobian(&mut solver, &scene);
    let j_ref = [7244.8521922154487, 0.0, 0.0, 0.0, 7244.8521922154478, 0.0, 0.0, 0.0, 6326.1363016404166];
    assert_rel("J", &j, &j_ref, REF_TOL);
}

#[test]
fn pizza_saver_large_applied_moment() {
    let scene = pizza_saver(6.0);
    let mut solver = pizza_solver();
    assert_eq!(solve(&mut solver, &scene), TamsiOutcome::Success);
    let stats = solver.iteration_stats().clone();
    let (vs, rtol, dt, radius, inertia) = (1.0e-6, 1.0e-4, 1.0e-3, 1.0, 1.0);

    // Drake asserts.
    assert!(stats.vt_residual() < rtol * vs);
    let tau_f = solver.generalized_friction_forces();
    assert!(tau_f[0].abs() <= K_TOL && tau_f[1].abs() <= K_TOL);
    assert!((tau_f[2] - (-5.0)).abs() <= 1e-13);
    let vt = solver.tangential_velocities();
    let slips = [slip(vt, 0), slip(vt, 1), slip(vt, 2)];
    assert!((slips[0] - slips[1]).abs() <= K_TOL && (slips[1] - slips[2]).abs() <= K_TOL);
    assert!(slips.iter().all(|&s| s > vs), "sliding");
    let v = solver.generalized_velocities();
    assert!(v[0].abs() <= K_TOL && v[1].abs() <= K_TOL);
    let omega = dt * (6.0 - 5.0) / inertia;
    assert!((v[2] - omega).abs() <= K_TOL);
    for s in slips {
        assert!((s - radius * omega).abs() <= K_TOL);
    }

    // Reference values.
    assert_eq!(stats.num_iterations, 5);
    assert_residuals(
        &stats.residuals,
        &[
            1.0391785256150455e-06,
            7.7896188078425793e-07,
            0.0017301579144217098,
            7.4752740812706438e-08,
            1.19e-19,
        ],
    );
    assert_rel("v", v, &[-3.5e-21, 5.0e-20, 0.0010000000000000256], REF_TOL);
    assert_rel(
        "vt",
        vt,
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
    assert_rel(
        "ft",
        solver.friction_forces(),
        &[
            0.1742141054460882,
            1.6575364922804476,
            -1.5225757627376606,
            -0.67789440512633037,
            1.3483616572915724,
            -0.97964208715411716,
        ],
        REF_TOL,
    );
    let tau_ref = [0.0, 1.1e-16, -4.9999999999999751];
    assert_rel("tau_f", solver.generalized_friction_forces(), &tau_ref, REF_TOL);
    assert_rel("tau", solver.generalized_contact_forces(), &tau_ref, REF_TOL);

    let j = check_pizza_jacobian(&mut solver, &scene);
    let j_ref = [3.4999999999999485, 0.0, 0.0, 0.0, 3.499999999999948, 0.0, 0.0, 0.0, 1.0000000000000493];
    assert_rel("J", &j, &j_ref, REF_TOL);
}

#[test]
fn pizza_saver_no_contact_case() {
    let scene = pizza_saver_no_contact();
    let mut solver = TamsiSolver::new(3);
    assert_eq!(solve(&mut solver, &scene), TamsiOutcome::Success);
    let stats = solver.iteration_stats();
    assert_eq!(solver.generalized_friction_forces(), &[0.0, 0.0, 0.0], "exactly zero");
    assert_eq!(solver.generalized_contact_forces(), &[0.0, 0.0, 0.0]);
    assert_eq!(stats.vt_residual(), 0.0);
    assert_eq!(stats.num_iterations, 1);
    assert_eq!(stats.residuals, vec![0.0]);
    let v = solver.generalized_velocities();
    assert!(v[0].abs() <= K_TOL && v[1].abs() <= K_TOL);
    assert!((v[2] - 1e-3 * 6.0).abs() <= K_TOL);
    assert_rel("v", v, &[0.0, 0.0, 0.0060000000000000001], REF_TOL);
    assert!(solver.tangential_velocities().is_empty());
    assert!(solver.normal_velocities().is_empty());
    assert!(solver.normal_forces().is_empty());
    assert!(solver.friction_forces().is_empty());
}

// ------------------------------------------------------------------------------------------------
// §3 Rolling cylinder (two-way).

fn cylinder_solver() -> TamsiSolver {
    let mut solver = TamsiSolver::new(3);
    solver
        .set_parameters(TamsiParameters { stiction_tolerance: 1.0e-6, ..TamsiParameters::default() })
        .unwrap();
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

struct StictionReference {
    nc: usize,
    iterations: usize,
    v: [f64; 3],
    fn_: f64,
    ft0: f64,
    tau_f: [f64; 3],
    capacity: usize,
    residuals: &'static [f64],
}

const STICTION_REFERENCE: [StictionReference; 5] = [
    StictionReference {
        nc: 1,
        iterations: 8,
        v: [0.25000029405060681, 0.0019943295852104109, -0.24999970594939319],
        fn_: 3010.9943295852108,
        ft0: -249.99966554106297,
        tau_f: [-249.99966554106297, 0.0, -249.99966554106297],
        capacity: 128,
        residuals: &[
            0.34483656353839842,
            0.16467275087714314,
            1.4616256129493873e-10,
            5.7126223710111256e-10,
            5.5471350688227736e-09,
            6.4103197805555122e-08,
            1.7367121475852824e-08,
            3.6633449252925874e-10,
        ],
    },
    StictionReference {
        nc: 4,
        iterations: 10,
        v: [0.25000029405114066, 0.0019882909485522348, -0.24999970594885937],
        fn_: 752.7470727371383,
        ft0: -62.499857247424607,
        tau_f: [-249.99942898969843, 0.0, -249.99942898969843],
        capacity: 128,
        residuals: &[
            0.62791595611708395,
            0.31116874569731851,
            0.15362768401463758,
            1.6982024916536919e-10,
            5.1574692994840004e-10,
            2.049613893779957e-09,
            1.2965794737905724e-08,
            1.0295910492391753e-07,
            5.5626308581024881e-08,
            1.9181731255664967e-09,
        ],
    },
    StictionReference {
        nc: 16,
        iterations: 12,
        v: [0.2500002940557996, 0.0019637869781177738, -0.2499997059442004],
        fn_: 188.1852366861323,
        ft0: -15.624981603341778,
        tau_f: [-249.99970565346845, 0.0, -249.99970565346845],
        capacity: 128,
        residuals: &[
            1.2201790749199051,
            0.60636447152814721,
            0.30293228279503354,
            1.2036278223901493e-10,
            3.6774420812648746e-10,
            1.2589506645291502e-09,
            4.8016029118449027e-09,
            2.1267236449007368e-08,
            1.115790933556561e-07,
            1.9283994488459794e-07,
            2.0088424140490258e-08,
            1.2303767449622912e-10,
        ],
    },
    StictionReference {
        nc: 64,
        iterations: 14,
        v: [0.25000029407305446, 0.0018607067640692776, -0.24999970592694556],
        fn_: 47.044698543188602,
        ft0: -3.90624540512693,
        tau_f: [-249.99970592812326, 0.0, -249.99970592812326],
        capacity: 128,
        residuals: &[
            2.421837310398383,
            1.2037038823979853,
            0.60182238781724673,
            6.6826670111194239e-11,
            2.0704437453480147e-10,
            7.0779897693428924e-10,
            2.5912797451908456e-09,
            9.8855650156048932e-09,
            3.8412436636455686e-08,
            1.436858086052453e-07,
            3.457368339497535e-07,
            1.5856762986082823e-07,
            5.3033490619425946e-09,
            4.2985206959345064e-12,
        ],
    },
    StictionReference {
        nc: 256,
        iterations: 15,
        v: [0.25000029414650393, 0.0014220802731051429, -0.24999970585349607],
        fn_: 11.759461251067213,
        ft0: -0.97656135067251326,
        tau_f: [-249.99970577216303, 0.0, -249.99970577216303],
        capacity: 256,
        residuals: &[
            4.8343238335158407,
            2.402759679112398,
            1.2013754292852477,
            3.4348162280626201e-11,
            1.0690126512669777e-10,
            3.6657893266254388e-10,
            1.3435606686178717e-09,
            5.1174391602866326e-09,
            1.9776595488764251e-08,
            7.4951508915884891e-08,
            2.5337225897286529e-07,
            5.6823294422831316e-07,
            4.3941657414708501e-07,
            4.9718969791994364e-08,
            2.5044583803730976e-10,
        ],
    },
];

#[test]
fn rolling_cylinder_stiction_after_impact() {
    // One solver object across every nc, as Drake's test does.
    let mut solver = cylinder_solver();
    let r = Cylinder::RADIUS;
    for reference in &STICTION_REFERENCE {
        let nc = reference.nc;
        let scene = rolling_cylinder(0.5, nc);
        let outcome = solve(&mut solver, &scene);

        // Drake asserts.
        assert!(solver.contact_capacity() >= nc);
        assert_eq!(outcome, TamsiOutcome::Success, "nc = {nc}");
        let stats = solver.iteration_stats().clone();
        assert!(stats.vt_residual() < 1e-8);
        let tau_f = solver.generalized_friction_forces().to_vec();
        assert!(tau_f[1].abs() <= K_TOL);
        assert!((tau_f[2] - r * tau_f[0]).abs() <= K_TOL);
        let vt = solver.tangential_velocities().to_vec();
        assert_eq!(vt.len(), 2 * nc);
        for i in 0..nc {
            assert!(vt[2 * i + 1].abs() <= K_TOL);
            assert!(vt[2 * i].abs() < 1e-6);
        }
        let v = solver.generalized_velocities().to_vec();
        assert_eq!(v.len(), 3);
        assert!((v[0] + r * v[2]).abs() < 1e-6, "rolling");
        let j = jacobian_at_solution(&mut solver, &scene);
        let j_ad =
            residual_jacobian(&scene, &v, scene.dt, 1.0e-6, 1.0e-2, NormalLaw::X0 { x0: Cylinder::x0(nc) });
        assert_drake_relative("J vs autodiff", &j, &j_ad, 40.0 * f64::EPSILON);

        // Reference values.
        assert_eq!(stats.num_iterations, reference.iterations, "nc = {nc}");
        assert_eq!(solver.contact_capacity(), reference.capacity);
        assert_residuals(&stats.residuals, reference.residuals);
        assert_rel("v", &v, &reference.v, REF_TOL);
        assert_rel("fn", solver.normal_forces(), &vec![reference.fn_; nc], REF_TOL);
        let ft = solver.friction_forces();
        for i in 0..nc {
            assert_rel("ft[2i]", &[ft[2 * i]], &[reference.ft0], REF_TOL);
            assert_eq!(ft[2 * i + 1], 0.0);
            assert_eq!(vt[2 * i + 1], 0.0, "out-of-plane slip is exactly 0");
            assert_rel("vt[2i]", &[vt[2 * i]], &[v[0] + v[2]], REF_TOL);
        }
        assert!((vt[0] - 5.88e-7).abs() < 5e-10, "slip 5.88e-7 to the digits given, got {:e}", vt[0]);
        assert_rel("vn", solver.normal_velocities(), &vec![v[1]; nc], REF_TOL);
        assert_rel("tau_f", &tau_f, &reference.tau_f, REF_TOL);
        let tau = solver.generalized_contact_forces();
        let fn_sum: f64 = solver.normal_forces().iter().sum();
        assert_rel("tau", tau, &[tau_f[0], fn_sum, tau_f[2]], REF_TOL);
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

#[test]
fn rolling_cylinder_sliding_after_impact() {
    let scene = rolling_cylinder(0.7, 1);
    let mut solver = cylinder_solver();
    assert_eq!(solve(&mut solver, &scene), TamsiOutcome::Success);
    let stats = solver.iteration_stats().clone();
    let r = Cylinder::RADIUS;

    // Drake asserts.
    assert!(stats.vt_residual() < 1e-8);
    let tau_f = solver.generalized_friction_forces().to_vec();
    assert!(tau_f[1].abs() <= K_TOL);
    assert!((tau_f[2] - r * tau_f[0]).abs() <= K_TOL);
    let vt = solver.tangential_velocities().to_vec();
    assert_eq!(vt.len(), 2);
    assert!(vt[1].abs() <= K_TOL);
    assert!(vt[0] > 1e-6, "sliding");
    let v = solver.generalized_velocities().to_vec();
    assert!(v[2] < 0.0);
    assert!((v[0] + r * v[2] - vt[0]).abs() <= K_TOL);
    let j = jacobian_at_solution(&mut solver, &scene);
    let j_ad = residual_jacobian(&scene, &v, scene.dt, 1.0e-6, 1.0e-2, NormalLaw::Fn0);
    assert_abs("J vs autodiff", &j, &j_ad, 3.0 * frobenius(&j_ad) * f64::EPSILON);

    // Reference values.
    assert_eq!(stats.num_iterations, 8);
    assert_residuals(
        &stats.residuals,
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
    assert_rel("v", &v, &[0.39890056704148047, 0.0019943295852104109, -0.30109943295851949], REF_TOL);
    assert_rel("vn", solver.normal_velocities(), &[0.0019943295852104109], REF_TOL);
    assert_rel("vt", &vt, &[0.097801134082960983, 0.0], REF_TOL);
    assert_rel("fn", solver.normal_forces(), &[3010.9943295852108], REF_TOL);
    let ft = solver.friction_forces();
    assert_rel("ft", ft, &[-301.09943295851951, 0.0], REF_TOL);
    assert!((ft[0] - (-Cylinder::MU * solver.normal_forces()[0])).abs() <= 1e-12 * 301.1, "ft = -mu fn");
    assert_rel("tau_f", &tau_f, &[-301.09943295851951, 0.0, -301.09943295851951], REF_TOL);
    assert_rel(
        "tau",
        solver.generalized_contact_forces(),
        &[-301.09943295851951, 3010.9943295852108, -301.09943295851951],
        REF_TOL,
    );
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

// ------------------------------------------------------------------------------------------------
// §4 Empty world.

#[test]
fn empty_world() {
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
