//! TAMSI time per solve on the six problems of `tests/data/tamsi_bench_cases.txt.gz`, measured
//! as `docs/performance.md` §1 describes Drake's measurement: one solver per problem, data set
//! once, then `solve_with_guess(dt, v0)` repeated from the same guess. Drake's figures (µs per
//! solve) are in that section; compare medians. `CONTACT_SOLVERS_TAMSI_CASES=<file>` times the
//! problems of another `TAMSI_CASES 1` file instead (plain or `.gz`).

use contact_solvers::tamsi::TamsiSolver;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use nalgebra::DVectorView;

use support::tamsi_support::bench_cases;

fn tamsi(c: &mut Criterion) {
    let mut group = c.benchmark_group("tamsi_solve");
    for case in bench_cases::load_for_benchmark() {
        let (nv, nc) = (case.nv, case.nc);
        let vec = |k: &str| DVectorView::from_slice(case.get(k), case.get(k).len());
        let problem = case.problem();
        let mut solver = TamsiSolver::new(nv);
        solver.set_parameters(case.parameters()).unwrap();
        let guess = vec("guess");
        for _ in 0..3 {
            solver.solve_with_guess(&problem, case.dt, guess).unwrap();
        }
        assert_eq!(solver.iteration_stats().num_iterations, case.num_iterations);
        group.bench_function(BenchmarkId::new(format!("nv{nv}_nc{nc}"), case.num_iterations), |b| {
            b.iter(|| solver.solve_with_guess(&problem, case.dt, guess).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, tamsi);
criterion_main!(benches);
