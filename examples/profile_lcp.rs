//! Repeats one cold LCP solve, for profilers (callgrind, perf):
//! `cargo run --release --example profile_lcp -- <problem> <algorithm> <reps>` with `<problem>` a
//! file of `tests/data/siconos/lcp` or `contact10`, `contact50`, `contact200` (the impact LCPs of
//! the `lcp` benchmark), and `<algorithm>` one of `unrevised` (default), `lemke`,
//! `lexicographic`, `fast`, `regularized` (Lemke's regularized wrapper, default schedule).

use support::scene;

use contact_solvers::lcp::{
    LcpProblem, LemkeVariant, MobyLcpParameters, MobyLcpSolver, RegularizationSchedule, UnrevisedLemkeSolver,
};
use contact_solvers::rigid::ConstraintSolver;
use nalgebra::{DMatrix, DVector};

/// The benchmark's impact LCPs of random planar scenes.
fn contact_lcp(n: usize) -> (DMatrix<f64>, DVector<f64>) {
    let (bodies, nc, nu) = match n {
        10 => (2, 2, 2),
        50 => (8, 12, 2),
        _ => (40, 50, 0),
    };
    let s = scene::Scene::new(bodies, nc, nu, 0);
    let mut cs = ConstraintSolver::new();
    cs.solve_impact_problem(&s.view()).unwrap();
    (cs.lcp_matrix().into_owned(), DVector::from_column_slice(cs.lcp_vector()))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map(String::as_str).unwrap_or("lcp_exp_murty2.dat");
    let algorithm = args.get(2).map(String::as_str).unwrap_or("unrevised");
    let reps: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(10000);
    let (m, q) = if let Some(n) = name.strip_prefix("contact") {
        contact_lcp(n.parse().unwrap())
    } else {
        let path = format!("{}/tests/data/siconos/lcp/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let t: Vec<&str> = text.split_whitespace().collect();
        let n: usize = t[0].parse().unwrap();
        let v: Vec<f64> = t[6..6 + n * n + n].iter().map(|s| s.parse().unwrap()).collect();
        (DMatrix::from_column_slice(n, n, &v[..n * n]), DVector::from_column_slice(&v[n * n..]))
    };
    let p = LcpProblem::new(m.as_view(), q.as_view()).unwrap();
    let variant =
        if algorithm == "lexicographic" { LemkeVariant::Lexicographic } else { LemkeVariant::Drake };
    let mut moby =
        MobyLcpSolver::with_parameters(MobyLcpParameters { variant, ..Default::default() }).unwrap();
    let mut s = UnrevisedLemkeSolver::new();
    let start = std::time::Instant::now();
    for _ in 0..reps {
        let o = match algorithm {
            "lemke" | "lexicographic" => moby.solve_lemke(std::hint::black_box(&p)),
            "fast" => moby.solve_fast(std::hint::black_box(&p)),
            "regularized" => moby
                .solve_lemke_regularized(std::hint::black_box(&p), RegularizationSchedule::LEMKE_DEFAULT)
                .unwrap(),
            _ => {
                s.clear_warm_start();
                s.solve(std::hint::black_box(&p))
            }
        };
        std::hint::black_box(o);
    }
    let us = start.elapsed().as_secs_f64() * 1e6 / reps as f64;
    let pivots = if algorithm == "unrevised" { s.num_pivots() } else { moby.num_pivots() };
    println!("{name} {algorithm}: {pivots} pivots, {us:.3} µs/solve");
}
