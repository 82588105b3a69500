//! Lemke benchmarks (`docs/performance.md`, "Lemke against Drake and Siconos"):
//! * impact LCPs of random planar contact scenes, n = 10, 50, 200;
//! * the Siconos files of the performance table (`tests/data/siconos/lcp/`).
//!
//! Every algorithm of the LCP API: Moby Lemke (Drake's and the lexicographic rule), unrevised
//! Lemke, fast, and both regularized wrappers with their default schedules.
//!
//! Each case prints its pivot count once, so "pivots, µs" compare with the table.

use support::scene;

use std::hint::black_box;

use contact_solvers::lcp::{
    LcpProblem, LemkeVariant, MobyLcpParameters, MobyLcpSolver, RegularizationSchedule, UnrevisedLemkeSolver,
};
use contact_solvers::rigid::ConstraintSolver;
use criterion::{Criterion, criterion_group, criterion_main};
use nalgebra::{DMatrix, DVector};

fn lexico() -> MobyLcpSolver {
    MobyLcpSolver::with_parameters(MobyLcpParameters {
        variant: LemkeVariant::Lexicographic,
        ..Default::default()
    })
    .unwrap()
}

fn bench_problem(c: &mut Criterion, name: &str, m: &DMatrix<f64>, q: &DVector<f64>) {
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let mut moby = MobyLcpSolver::new();
    let mut lex = lexico();
    let mut unrevised = UnrevisedLemkeSolver::new();
    let o = moby.solve_lemke(&p);
    println!("{name}: n = {}, Moby Lemke {:?} in {} pivots", q.len(), o, moby.num_pivots());
    unrevised.clear_warm_start();
    let o = unrevised.solve(&p);
    println!("{name}: unrevised Lemke {:?} in {} pivots", o, unrevised.num_pivots());
    let o = lex.solve_lemke(&p);
    println!("{name}: lexicographic Lemke {:?} in {} pivots", o, lex.num_pivots());
    let mut g = c.benchmark_group(name);
    g.bench_function("moby_lemke", |b| b.iter(|| black_box(moby.solve_lemke(black_box(&p)))));
    g.bench_function("unrevised_lemke", |b| {
        b.iter(|| {
            // Cold start every time (Drake's timings are per cold solve).
            unrevised.clear_warm_start();
            black_box(unrevised.solve(black_box(&p)))
        })
    });
    g.bench_function("lexicographic_lemke", |b| b.iter(|| black_box(lex.solve_lemke(black_box(&p)))));
    let o = moby.solve_fast(&p);
    println!("{name}: fast {:?} in {} iterations", o, moby.num_pivots());
    g.bench_function("fast", |b| b.iter(|| black_box(moby.solve_fast(black_box(&p)))));
    let lemke_reg = RegularizationSchedule::LEMKE_DEFAULT;
    let o = moby.solve_lemke_regularized(&p, lemke_reg).unwrap();
    println!("{name}: regularized Lemke {:?} in {} pivots", o, moby.num_pivots());
    g.bench_function("lemke_regularized", |b| {
        b.iter(|| black_box(moby.solve_lemke_regularized(black_box(&p), lemke_reg)))
    });
    let fast_reg = RegularizationSchedule::FAST_DEFAULT;
    let o = moby.solve_fast_regularized(&p, fast_reg).unwrap();
    println!("{name}: regularized fast {:?} in {} iterations", o, moby.num_pivots());
    g.bench_function("fast_regularized", |b| {
        b.iter(|| black_box(moby.solve_fast_regularized(black_box(&p), fast_reg)))
    });
    g.finish();
}

fn random_contact_lcps(c: &mut Criterion) {
    for (n, bodies, nc, nu) in [(10, 2, 2, 2), (50, 8, 12, 2), (200, 40, 50, 0)] {
        let s = scene::Scene::new(bodies, nc, nu, 0);
        let mut cs = ConstraintSolver::new();
        cs.solve_impact_problem(&s.view()).unwrap();
        assert_eq!(cs.lcp_size(), n);
        let m = cs.lcp_matrix().into_owned();
        let q = DVector::from_column_slice(cs.lcp_vector());
        bench_problem(c, &format!("contact_lcp_n{n}"), &m, &q);
    }
}

fn read_siconos(name: &str) -> (DMatrix<f64>, DVector<f64>) {
    let path = format!("{}/tests/data/siconos/lcp/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let t: Vec<&str> = text.split_whitespace().collect();
    let n: usize = t[0].parse().unwrap();
    let v: Vec<f64> = t[6..6 + n * n + n].iter().map(|s| s.parse().unwrap()).collect();
    (DMatrix::from_column_slice(n, n, &v[..n * n]), DVector::from_column_slice(&v[n * n..]))
}

fn siconos_files(c: &mut Criterion) {
    for name in ["lcp_CPS_2", "lcp_enum_fails", "lcp_exp_murty2", "lcp_mmc", "lcp_tobenna"] {
        let (m, q) = read_siconos(&format!("{name}.dat"));
        bench_problem(c, name, &m, &q);
    }
}

criterion_group!(benches, siconos_files, random_contact_lcps);
criterion_main!(benches);
