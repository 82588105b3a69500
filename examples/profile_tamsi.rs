//! Development aid: solves one benchmark problem repeatedly (for profilers).
//! `cargo run --release --example profile_tamsi -- <nv> <repetitions>`
use contact_solvers::tamsi::{TamsiProblem, TamsiSolver};
use nalgebra::{DMatrixView, DVectorView};

#[path = "../tests/tamsi_support/bench_cases.rs"]
#[allow(dead_code)]
mod bench_cases;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nv_wanted: usize = args.get(1).map_or(30, |s| s.parse().unwrap());
    let reps: usize = args.get(2).map_or(100, |s| s.parse().unwrap());
    let cases = bench_cases::load();
    let case = cases.iter().find(|c| c.nv == nv_wanted).expect("no case with that nv");
    let (nv, nc) = (case.nv, case.nc);
    let vec = |k: &str| DVectorView::from_slice(case.get(k), case.get(k).len());
    let problem = TamsiProblem::two_way(
        DMatrixView::from_slice(case.get("M"), nv, nv),
        DMatrixView::from_slice(case.get("Jn"), nc, nv),
        DMatrixView::from_slice(case.get("Jt"), 2 * nc, nv),
        vec("p_star"),
        vec("fn0"),
        vec("stiffness"),
        vec("dissipation"),
        vec("mu"),
    )
    .unwrap();
    let mut solver = TamsiSolver::new(nv);
    if std::env::var_os("PROFILE_JACOBIAN").is_some() {
        let mut j = nalgebra::DMatrix::zeros(nv, nv);
        let start = std::time::Instant::now();
        for _ in 0..reps {
            solver.calc_jacobian(&problem, case.dt, vec("guess"), j.as_view_mut()).unwrap();
        }
        let per = start.elapsed().as_secs_f64() / reps as f64;
        println!("nv {nv} nc {nc}: calc_jacobian {:.2} us", per * 1e6);
        return;
    }
    let start = std::time::Instant::now();
    for _ in 0..reps {
        solver.solve_with_guess(&problem, case.dt, vec("guess")).unwrap();
    }
    let per = start.elapsed().as_secs_f64() / reps as f64;
    println!(
        "nv {nv} nc {nc}: {} iterations, {:.2} us per solve",
        solver.iteration_stats().num_iterations,
        per * 1e6
    );
}
