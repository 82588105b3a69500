//! Drake `solvers/test/unrevised_lemke_solver_test.cc`, every public case
//! (`docs/rigid_cases.md` §7; the private-function cases of §7.1 are unit tests in
//! `src/lcp/unrevised.rs`). Tolerance 5e-14 absolute, element-wise.

use contact_solvers::lcp::{LcpError, LcpOutcome, LcpProblem, UnrevisedLemkeSolver, is_solution};
use nalgebra::{DMatrix, DVector};

const EPSILON: f64 = 5e-14;

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

/// Drake's RunLCP: fresh solver, success, z ≈ expected, pivots > 0. Returns the pivots.
fn run_lcp(m: &DMatrix<f64>, q: &DVector<f64>, expected: &[f64]) -> usize {
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = UnrevisedLemkeSolver::new();
    assert_eq!(s.solve(&p), LcpOutcome::Solved);
    assert!(close(s.z(), expected, EPSILON), "z {:?} vs {expected:?}", s.z());
    assert!(s.num_pivots() > 0);
    s.num_pivots()
}

fn cycling() -> DMatrix<f64> {
    DMatrix::from_row_slice(3, 3, &[1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0])
}

#[test]
fn dimensional_mismatch() {
    let m = DMatrix::<f64>::zeros(3, 3);
    let q = DVector::<f64>::zeros(4);
    assert!(matches!(LcpProblem::new(m.as_view(), q.as_view()), Err(LcpError::DimensionMismatch { .. })));
    let m = DMatrix::<f64>::zeros(3, 4);
    assert!(matches!(LcpProblem::new(m.as_view(), q.as_view()), Err(LcpError::DimensionMismatch { .. })));
}

#[test]
fn test_cycling() {
    let q = DVector::from_element(3, -1.0);
    let pivots = run_lcp(&cycling(), &q, &[1.0 / 3.0; 3]);
    assert_eq!(pivots, 9, "[ref] 9 pivots");
    // [ref] Moby's Lemke fails on it.
    let mc = cycling();
    let p = LcpProblem::new(mc.as_view(), q.as_view()).unwrap();
    let mut moby = contact_solvers::lcp::MobyLcpSolver::new();
    assert_ne!(moby.solve_lemke(&p), LcpOutcome::Solved);
}

#[test]
fn test_simple() {
    let m = DMatrix::from_diagonal(&DVector::from_fn(9, |i, _| (i + 1) as f64));
    let q = DVector::from_element(9, -1.0);
    let e: Vec<f64> = (1..=9).map(|i| 1.0 / i as f64).collect();
    run_lcp(&m, &q, &e);
}

#[test]
fn test_psd() {
    let m = DMatrix::from_row_slice(2, 2, &[1.0, -1.0, -1.0, 1.0]);
    let q = DVector::from_vec(vec![1.0, -1.0]);
    run_lcp(&m, &q, &[0.0, 1.0]);
}

#[test]
fn test_problem1() {
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
    let q = DVector::from_element(n, -1.0);
    let mut e = vec![0.0; n];
    e[n - 1] = 1.0;
    run_lcp(&m, &q, &e);
}

#[test]
fn test_problem2() {
    let m = DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 1.0, 1.0]);
    let q = DVector::from_vec(vec![-1.0, -1.0]);
    run_lcp(&m, &q, &[1.0, 0.0]);
}

#[test]
fn test_problem3() {
    let m = DMatrix::from_row_slice(3, 3, &[0.0, -1.0, 2.0, 2.0, 0.0, -2.0, -1.0, 1.0, 0.0]);
    let q = DVector::from_vec(vec![-3.0, 6.0, -1.0]);
    run_lcp(&m, &q, &[0.0, 1.0, 3.0]);
}

#[test]
fn test_problem4() {
    let m = DMatrix::from_row_slice(
        4,
        4,
        &[0.0, 0.0, 10.0, 20.0, 0.0, 0.0, 30.0, 15.0, 10.0, 20.0, 0.0, 0.0, 30.0, 15.0, 0.0, 0.0],
    );
    let q = DVector::from_element(4, -1.0);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = UnrevisedLemkeSolver::new();
    let o = s.solve(&p);
    assert_ne!(o, LcpOutcome::Solved);
    assert_eq!(o, LcpOutcome::RayTermination, "[ref] unblocked after the first pivot");
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
        run_lcp(&m, &q, &e);
    }
    let q = DVector::from_vec(vec![50.0, 50.0, 100.0, -6.0]);
    run_lcp(&m, &q, &[3.0, 3.0, 0.0, 83.0]);
}

#[test]
fn test_empty() {
    let m = DMatrix::<f64>::zeros(0, 0);
    let q = DVector::<f64>::zeros(0);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = UnrevisedLemkeSolver::new();
    assert_eq!(s.solve(&p), LcpOutcome::Solved);
    assert_eq!(s.z().len(), 0);
}

#[test]
fn test_failure() {
    let m = DMatrix::from_element(1, 1, -1.0);
    let q = DVector::from_element(1, -1.0);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = UnrevisedLemkeSolver::new();
    assert_ne!(s.solve(&p), LcpOutcome::Solved);
    assert_eq!(s.z(), &[0.0]);
    assert!(!is_solution(m.as_view(), q.as_view(), s.z(), -1.0));
}

#[test]
fn test_solution_quality() {
    let m = DMatrix::from_element(1, 1, 1.0);
    let q = DVector::from_element(1, -1.0);
    let z = [1.0 - f64::EPSILON];
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    assert!(UnrevisedLemkeSolver::is_solution(&p, &z, -1.0));
    assert!(UnrevisedLemkeSolver::is_solution(&p, &z, 3e-16));
}

#[test]
fn zero_tolerance() {
    let eps = f64::EPSILON;
    let t = UnrevisedLemkeSolver::compute_zero_tolerance(DMatrix::from_element(1, 1, 1.0).as_view());
    assert!((t - eps).abs() <= 10.0 * eps);
    assert_eq!(t, 4.884981308350689e-16);
    let t = UnrevisedLemkeSolver::compute_zero_tolerance(DMatrix::from_element(1, 1, 1e10).as_view());
    assert!((t - 1e10 * eps).abs() <= 1e11 * eps);
    let t = UnrevisedLemkeSolver::compute_zero_tolerance(DMatrix::<f64>::identity(10, 10).as_view());
    assert!((t - 100.0 * eps).abs() <= 1000.0 * eps);
}

#[test]
fn warm_starting() {
    let m = cycling();
    let q = DVector::from_element(3, -1.0);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = UnrevisedLemkeSolver::new();
    assert_eq!(s.solve(&p), LcpOutcome::Solved);
    assert!(close(s.z(), &[1.0 / 3.0; 3], EPSILON));
    assert!(s.num_pivots() >= 1);
    let q2 = &q * 2.0;
    let p2 = LcpProblem::new(m.as_view(), q2.as_view()).unwrap();
    assert_eq!(s.solve(&p2), LcpOutcome::Solved);
    assert!(close(s.z(), &[2.0 / 3.0; 3], EPSILON), "{:?}", s.z());
    assert_eq!(s.num_pivots(), 1);
}

#[test]
fn trivial() {
    let m = DMatrix::<f64>::identity(3, 3);
    let q = DVector::from_element(3, 1.0);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = UnrevisedLemkeSolver::new();
    assert_eq!(s.solve(&p), LcpOutcome::Solved);
    assert_eq!(s.z(), &[0.0; 3]);
    assert_eq!(s.num_pivots(), 0);
}

/// pydrake `unrevised_lemke_solver_test.py` / `mobylcp_solver_test.py` (§8): M = I₃, q = 1 → 0.
#[test]
fn python_binding_case() {
    let m = DMatrix::<f64>::identity(3, 3);
    let q = DVector::from_element(3, 1.0);
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut s = contact_solvers::lcp::MobyLcpSolver::new();
    assert_eq!(
        s.solve_lemke_regularized(&p, contact_solvers::lcp::RegularizationSchedule::LEMKE_DEFAULT),
        Ok(LcpOutcome::Solved)
    );
    assert_eq!(s.z(), &[0.0; 3]);
}
