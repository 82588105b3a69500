//! `SolveImpactProblem` on a random planar scene with 20 contacts (10 bodies, nv = 30, impact
//! LCP n = 80), and the discretized (time-stepping) path on the same scene.

use support::scene;

use std::hint::black_box;

use contact_solvers::rigid::{ConstraintSolver, ConstraintSolverParameters};
use criterion::{Criterion, criterion_group, criterion_main};

fn impact_20_contacts(c: &mut Criterion) {
    let s = scene::Scene::new(10, 20, 0, 0);
    let v = s.view();
    let mut g = c.benchmark_group("impact_20_contacts");
    for (name, params) in [
        ("corrected", ConstraintSolverParameters::default()),
        ("drake_head", ConstraintSolverParameters::DRAKE_HEAD),
    ] {
        let mut cs = ConstraintSolver::with_parameters(params);
        let o = cs.solve_impact_problem(&v).unwrap();
        println!(
            "impact_20_contacts/{name}: {o:?}, LCP n = {}, {} pivots, regularized: {}",
            cs.lcp_size(),
            cs.num_pivots(),
            cs.regularization_used()
        );
        g.bench_function(name, |b| b.iter(|| black_box(cs.solve_impact_problem(black_box(&v)))));
    }
    let mut cs = ConstraintSolver::new();
    let o = cs.solve_discretized(&v, 1e-2).unwrap();
    println!("impact_20_contacts/discretized: {o:?}, LCP n = {}, {} pivots", cs.lcp_size(), cs.num_pivots());
    g.bench_function("discretized_dt_1e-2", |b| {
        b.iter(|| black_box(cs.solve_discretized(black_box(&v), 1e-2)))
    });
    g.finish();
}

criterion_group!(benches, impact_20_contacts);
criterion_main!(benches);
