//! Cost of TAMSI sensitivities (`docs/tamsi_sensitivities.md` §7) beside the cost of the solve,
//! on the six problems of the TAMSI benchmark file (`tests/support/tamsi_support/bench_cases.rs`),
//! all two-way, default parameters, one solver per problem:
//!
//! * `solve`: `solve_with_guess(dt, v0)` (as `benches/tamsi.rs`);
//! * `vjp`: the first vector–Jacobian product after a solve (assembles and factors J at the
//!   solution, one solve with Jᵀ), timed alone after an untimed solve;
//! * `vjp_again`: a further product with the factorization kept (one solve with Jᵀ);
//! * `jacobians`: `compute_sensitivities` after a solve (the factorization and nv + 2nc + 1
//!   solves with J), timed alone after an untimed solve.

use std::hint::black_box;
use std::time::{Duration, Instant};

use contact_solvers::tamsi::TamsiSolver;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::{DVector, DVectorView};

use support::tamsi_support::bench_cases;

fn sensitivities(c: &mut Criterion) {
    let mut group = c.benchmark_group("tamsi_sensitivities");
    for case in bench_cases::load() {
        let (nv, nc) = (case.nv, case.nc);
        let vec = |k: &str| DVectorView::from_slice(case.get(k), case.get(k).len());
        let problem = case.problem();
        let mut solver = TamsiSolver::new(nv);
        solver.set_parameters(case.parameters()).unwrap();
        let guess = vec("guess");
        // dL/dv of L = ½‖v‖² and dL/dft of ½‖ft‖²: a typical loss of the results.
        let solve = |s: &mut TamsiSolver| s.solve_with_guess(&problem, case.dt, guess).unwrap();
        solve(&mut solver);
        let g = DVector::from_column_slice(solver.generalized_velocities());
        let gft = DVector::from_column_slice(solver.friction_forces());
        solver.compute_sensitivities(&problem).unwrap();
        solver.vjp(&problem, g.as_view(), None, Some(gft.as_view())).unwrap();
        let name = format!("nv{nv}_nc{nc}");

        group.bench_function(BenchmarkId::new("solve", &name), |b| b.iter(|| solve(&mut solver)));
        group.bench_function(BenchmarkId::new("vjp", &name), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    solve(&mut solver);
                    let t = Instant::now();
                    black_box(solver.vjp(&problem, g.as_view(), None, Some(gft.as_view())).unwrap().dt());
                    total += t.elapsed();
                }
                total
            })
        });
        group.bench_function(BenchmarkId::new("vjp_again", &name), |b| {
            solve(&mut solver);
            solver.vjp(&problem, g.as_view(), None, Some(gft.as_view())).unwrap();
            b.iter(|| black_box(solver.vjp(&problem, g.as_view(), None, Some(gft.as_view())).unwrap().dt()))
        });
        group.bench_function(BenchmarkId::new("jacobians", &name), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    solve(&mut solver);
                    let t = Instant::now();
                    solver.compute_sensitivities(&problem).unwrap();
                    total += t.elapsed();
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, sensitivities);
criterion_main!(benches);
