//! Drake `solvers/test/moby_lcp_solver_test.cc`, every case (`docs/rigid_cases.md` §6).
//! Comparison tolerance 1e-6, absolute, element-wise (Drake's `CompareMatrices`).

use contact_solvers::lcp::{
    LcpError, LcpOutcome, LcpProblem, MobyLcpSolver, RegularizationSchedule, is_solution,
};
use nalgebra::{DMatrix, DVector};

const EPSILON: f64 = 1e-6;

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// Drake's RunBasicLcp.
fn run_basic_lcp(m: &DMatrix<f64>, q: &DVector<f64>, expected: &[f64], expect_fast_pass: bool) {
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = MobyLcpSolver::new();
    s.solve_fast(&p);
    let fast_z = s.z().to_vec();
    assert!(s.num_pivots() > 0, "fast pivots");
    let expected: Vec<f64> = if expected.is_empty() {
        assert!(expect_fast_pass);
        fast_z.clone()
    } else {
        expected.to_vec()
    };
    if expect_fast_pass {
        assert!(close(&fast_z, &expected, EPSILON), "fast z {fast_z:?} vs {expected:?}");
    } else {
        assert!(!close(&fast_z, &expected, EPSILON), "fast z must differ from {expected:?}");
    }
    let o = s.solve_lemke(&p);
    assert_eq!(o, LcpOutcome::Solved);
    assert!(close(s.z(), &expected, EPSILON), "lemke z {:?} vs {expected:?}", s.z());
    assert!(s.num_pivots() > 0, "lemke pivots");
}

/// Drake's RunRegularizedLcp.
fn run_regularized_lcp(
    m: &DMatrix<f64>,
    q: &DVector<f64>,
    expected: &[f64],
    expect_fast_pass: bool,
) -> Vec<f64> {
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = MobyLcpSolver::new();
    let o = s.solve_fast_regularized(&p, RegularizationSchedule::FAST_DEFAULT).unwrap();
    let fast_z = s.z().to_vec();
    let expected: Vec<f64> = if expected.is_empty() { fast_z.clone() } else { expected.to_vec() };
    if expect_fast_pass {
        assert_eq!(o, LcpOutcome::Solved);
        assert!(close(&fast_z, &expected, EPSILON), "fast-reg z {fast_z:?} vs {expected:?}");
    } else {
        assert!(!close(&fast_z, &expected, EPSILON), "fast-reg z must differ from {expected:?}");
    }
    s.solve_lemke_regularized(&p, RegularizationSchedule::LEMKE_DEFAULT).unwrap();
    assert!(close(s.z(), &expected, EPSILON), "lemke-reg z {:?} vs {expected:?}", s.z());
    fast_z
}

fn run_lcp(m: &DMatrix<f64>, q: &DVector<f64>, expected: &[f64], expect_fast_pass: bool) {
    run_basic_lcp(m, q, expected, expect_fast_pass);
    run_regularized_lcp(m, q, expected, expect_fast_pass);
}

#[test]
fn test_trivial() {
    let n = 9;
    let mut m = DMatrix::from_diagonal(&DVector::from_fn(n, |i, _| (i + 1) as f64));
    let q = DVector::from_element(n, -1.0);
    run_basic_lcp(&m, &q, &[], true);
    // [ref] Fast 9 iterations, Lemke 9 pivots; z = (1, 1/2, …, 1/9).
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = MobyLcpSolver::new();
    s.solve_fast(&p);
    assert_eq!(s.num_pivots(), 9);
    let ref_z: Vec<f64> = (1..=9).map(|i| 1.0 / i as f64).collect();
    assert!(close(s.z(), &ref_z, 1e-15));
    assert_eq!(s.solve_lemke(&p), LcpOutcome::Solved);
    assert_eq!(s.num_pivots(), 9);
    assert!(close(s.z(), &ref_z, 1e-15));

    m[(0, 8)] = 10.0;
    let fast_z = run_regularized_lcp(&m, &q, &[], true);
    let mut ref_z = ref_z;
    ref_z[0] = 0.0;
    assert!(close(&fast_z, &ref_z, 1e-12), "[ref] (0, 1/2, …, 1/9): {fast_z:?}");
}

fn problem1() -> (DMatrix<f64>, DVector<f64>) {
    let n = 16;
    let m = DMatrix::from_fn(n, n, |i, j| {
        if i == j {
            1.0
        } else if i < j {
            2.0
        } else {
            0.0
        }
    });
    (m, DVector::from_element(n, -1.0))
}

#[test]
fn test_problem1() {
    let (m, q) = problem1();
    let mut e16 = vec![0.0; 16];
    e16[15] = 1.0;
    run_lcp(&m, &q, &e16, false);
    // [ref] Fast fails (33 iterations, zeros); Lemke 31 pivots; Fast-regularized 0.5·e16.
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = MobyLcpSolver::new();
    assert_eq!(s.solve_fast(&p), LcpOutcome::PivotLimit);
    assert_eq!(s.num_pivots(), 33);
    assert!(s.z().iter().all(|&z| z == 0.0));
    assert_eq!(s.solve_lemke(&p), LcpOutcome::Solved);
    assert_eq!(s.num_pivots(), 31);
    s.solve_fast_regularized(&p, RegularizationSchedule::FAST_DEFAULT).unwrap();
    let half: Vec<f64> = e16.iter().map(|x| 0.5 * x).collect();
    assert!(close(s.z(), &half, 1e-12), "{:?}", s.z());
}

#[test]
fn test_problem2() {
    let m = DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0]);
    let q = DVector::from_vec(vec![-1.0, -1.0]);
    run_lcp(&m, &q, &[1.0, 0.0], true);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = MobyLcpSolver::new();
    s.solve_lemke(&p);
    assert_eq!(s.num_pivots(), 1, "[ref] 1 pivot");
    s.solve_fast(&p);
    assert_eq!(s.num_pivots(), 1, "[ref] 1 iteration");
}

#[test]
fn test_problem3() {
    let m = DMatrix::from_row_slice(3, 3, &[0.0, -1.0, 2.0, 2.0, 0.0, -2.0, -1.0, 1.0, 0.0]);
    let q = DVector::from_vec(vec![-3.0, 6.0, -1.0]);
    run_lcp(&m, &q, &[0.0, 1.0, 3.0], true);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = MobyLcpSolver::new();
    s.solve_lemke(&p);
    assert_eq!(s.num_pivots(), 4, "[ref] 4 pivots");
}

#[test]
fn test_problem4() {
    let m = DMatrix::from_row_slice(
        4,
        4,
        &[0.0, 0.0, 10.0, 20.0, 0.0, 0.0, 30.0, 15.0, 10.0, 20.0, 0.0, 0.0, 30.0, 15.0, 0.0, 0.0],
    );
    let q = DVector::from_element(4, -1.0);
    let expected = [1.0 / 90.0, 2.0 / 45.0, 1.0 / 90.0, 2.0 / 45.0];
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = MobyLcpSolver::new();
    s.solve_fast(&p);
    assert!(close(s.z(), &expected, EPSILON), "fast z {:?}", s.z());
    assert_eq!(s.num_pivots(), 5, "[ref] Fast: 5 iterations");
    let o = s.solve_lemke(&p);
    assert_ne!(o, LcpOutcome::Solved);
    assert_eq!(o, LcpOutcome::RayTermination, "[ref] ray termination at the first iteration");
    assert!(s.z().iter().all(|&z| z == 0.0));
}

#[test]
fn test_problem6() {
    let m = DMatrix::from_row_slice(
        4,
        4,
        &[11.0, 0.0, 10.0, -1.0, 0.0, 11.0, 10.0, -1.0, 10.0, 10.0, 21.0, -1.0, 1.0, 1.0, 1.0, 0.0],
    );
    for l in [1.0, 16.0] {
        let q = DVector::from_vec(vec![50.0, 50.0, l, -6.0]);
        let e = [(l + 16.0) / 13.0, (l + 16.0) / 13.0, 2.0 * (23.0 - l) / 13.0, (1286.0 - 9.0 * l) / 13.0];
        run_lcp(&m, &q, &e, true);
    }
    let q = DVector::from_vec(vec![50.0, 50.0, 100.0, -6.0]);
    run_lcp(&m, &q, &[3.0, 3.0, 0.0, 83.0], true);
}

#[test]
fn test_empty() {
    let m = DMatrix::<f64>::zeros(0, 0);
    let q = DVector::<f64>::zeros(0);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = MobyLcpSolver::new();
    assert_eq!(s.solve_fast(&p), LcpOutcome::Solved);
    assert_eq!(s.z().len(), 0);
    assert_eq!(s.solve_lemke(&p), LcpOutcome::Solved);
    assert_eq!(s.z().len(), 0);
    assert_eq!(s.solve_fast_regularized(&p, RegularizationSchedule::FAST_DEFAULT), Ok(LcpOutcome::Solved));
    assert_eq!(s.z().len(), 0);
    assert_eq!(s.solve_lemke_regularized(&p, RegularizationSchedule::LEMKE_DEFAULT), Ok(LcpOutcome::Solved));
    assert_eq!(s.z().len(), 0);
}

#[test]
fn test_failure() {
    let m = DMatrix::from_element(1, 1, -1.0);
    let q = DVector::from_element(1, -1.0);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = MobyLcpSolver::new();
    assert_ne!(s.solve_fast(&p), LcpOutcome::Solved);
    assert_eq!(s.z(), &[0.0]);
    assert!(!is_solution(m.as_view(), q.as_view(), s.z(), -1.0));
    assert_ne!(s.solve_lemke(&p), LcpOutcome::Solved);
    assert_eq!(s.z(), &[0.0]);
    assert!(!is_solution(m.as_view(), q.as_view(), s.z(), -1.0));
}

#[test]
fn dimension_mismatch_is_an_error() {
    let m = DMatrix::<f64>::zeros(3, 3);
    let q = DVector::<f64>::zeros(4);
    assert!(matches!(LcpProblem::new(m.as_view(), q.as_view()), Err(LcpError::DimensionMismatch { .. })));
    let bad = RegularizationSchedule { min_exp: 0, step_exp: 0, max_exp: 1 };
    let m = DMatrix::<f64>::identity(1, 1);
    let q = DVector::<f64>::zeros(1);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    assert!(MobyLcpSolver::new().solve_lemke_regularized(&p, bad).is_err());
}

#[test]
fn zero_tolerance_formula() {
    let m = DMatrix::from_row_slice(2, 2, &[1.0, -3.0, 0.5, 2.0]);
    let q = DVector::from_vec(vec![0.0, 0.0]);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    assert_eq!(MobyLcpSolver::compute_zero_tolerance(&p), 2.0 * 3.0 * 10.0 * f64::EPSILON);
}
