//! The six two-way problems of `tests/data/tamsi_bench_cases.txt.gz` (nv 6 to 300), solved
//! with Drake's result: same outcome and iteration count, same residual history, and v, vn, vt,
//! fn, ft, τ_f, τ within `1e-9·max(1, max|r|)` per vector (the file's README).

mod tamsi_support;

use contact_solvers::tamsi::{TamsiOutcome, TamsiParameters, TamsiProblem, TamsiSolver};
use nalgebra::{DMatrixView, DVectorView};
use tamsi_support::bench_cases::{BenchCase, load};

fn matrix<'a>(data: &'a [f64], rows: usize, cols: usize) -> DMatrixView<'a, f64> {
    DMatrixView::from_slice(data, rows, cols)
}

fn vector(data: &[f64]) -> DVectorView<'_, f64> {
    DVectorView::from_slice(data, data.len())
}

#[track_caller]
fn assert_vector_close(case: &BenchCase, what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{}: {what} length", case.name);
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let err = got.iter().zip(want).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!(err <= 1e-9 * scale, "{}: {what} max error {err:e} > 1e-9·{scale:e}", case.name);
}

fn solve_case(solver: &mut TamsiSolver, case: &BenchCase) -> TamsiOutcome {
    let (nv, nc) = (case.nv, case.nc);
    let problem = match case.scheme {
        1 => TamsiProblem::one_way(
            matrix(case.get("M"), nv, nv),
            matrix(case.get("Jn"), nc, nv),
            matrix(case.get("Jt"), 2 * nc, nv),
            vector(case.get("p_star")),
            vector(case.get("fn")),
            vector(case.get("mu")),
        ),
        _ => TamsiProblem::two_way(
            matrix(case.get("M"), nv, nv),
            matrix(case.get("Jn"), nc, nv),
            matrix(case.get("Jt"), 2 * nc, nv),
            vector(case.get("p_star")),
            vector(case.get("fn0")),
            vector(case.get("stiffness")),
            vector(case.get("dissipation")),
            vector(case.get("mu")),
        ),
    }
    .unwrap();
    solver.solve_with_guess(&problem, case.dt, vector(case.get("guess"))).unwrap()
}

#[test]
fn bench_problems_reproduce_drakes_results() {
    let cases = load();
    assert_eq!(cases.len(), 6);
    for case in &cases {
        let mut solver = TamsiSolver::new(case.nv);
        solver
            .set_parameters(TamsiParameters {
                stiction_tolerance: case.stiction_tolerance,
                max_iterations: case.max_iterations,
                relative_tolerance: case.relative_tolerance,
                theta_max: case.theta_max,
            })
            .unwrap();
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
