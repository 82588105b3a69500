//! The six two-way problems of `tests/data/tamsi_bench_cases.txt.gz` (nv 6 to 300), solved
//! with Drake's result: same outcome and iteration count, same residual history, and v, vn, vt,
//! fn, ft, τ_f, τ within `1e-9·max(1, max|r|)` per vector (the file's README).

use support::tamsi_support;

use contact_solvers::tamsi::{TamsiOutcome, TamsiSolver};
use tamsi_support::bench_cases::{BenchCase, load};

#[track_caller]
fn assert_vector_close(case: &BenchCase, what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{}: {what} length", case.name);
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let err = got.iter().zip(want).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(err <= 1e-9 * scale, "{}: {what} max error {err:e} > 1e-9·{scale:e}", case.name);
}

fn solve_case(solver: &mut TamsiSolver, case: &BenchCase) -> TamsiOutcome {
    solver.solve_with_guess(&case.problem(), case.dt, case.vector("guess")).unwrap()
}

#[test]
fn bench_problems_reproduce_drakes_results() {
    let cases = load();
    assert_eq!(cases.len(), 6);
    for case in &cases {
        let mut solver = TamsiSolver::new(case.nv);
        solver.set_parameters(case.parameters()).unwrap();
        let outcome = solve_case(&mut solver, case);
        assert_eq!(outcome as i32, case.result, "{}: outcome", case.name);
        assert_eq!(case.check, outcome == TamsiOutcome::Success);
        let stats = solver.iteration_stats();
        assert_eq!(stats.num_iterations, case.num_iterations, "{}: iterations", case.name);
        assert_eq!(stats.residuals.len(), case.residuals.len());
        for (k, (a, b)) in stats.residuals.iter().zip(&case.residuals).enumerate() {
            let tol = (1e-6 * b.abs()).max(case.res_abs_tol);
            assert!((a - b).abs() <= tol, "{}: residual[{k}] {a:e} vs {b:e}", case.name);
        }
        assert_vector_close(case, "v", solver.generalized_velocities(), case.get("v"));
        assert_vector_close(case, "vn", solver.normal_velocities(), case.get("vn"));
        assert_vector_close(case, "vt", solver.tangential_velocities(), case.get("vt"));
        assert_vector_close(case, "fn", solver.normal_forces(), case.get("fn_out"));
        assert_vector_close(case, "ft", solver.friction_forces(), case.get("ft"));
        assert_vector_close(case, "tau_f", solver.generalized_friction_forces(), case.get("tau_f"));
        assert_vector_close(case, "tau", solver.generalized_contact_forces(), case.get("tau"));
    }
}

/// The same problems solved one after another on one solver per nv, twice: the second pass
/// reuses the grown workspace and must give bit-identical results.
#[test]
fn repeated_solves_are_deterministic() {
    for case in load().iter().take(4) {
        let mut solver = TamsiSolver::new(case.nv);
        solve_case(&mut solver, case);
        let first = solver.generalized_velocities().to_vec();
        solve_case(&mut solver, case);
        assert_eq!(solver.generalized_velocities(), &first[..], "{}", case.name);
    }
}
