//! Development aid: solves one benchmark problem of `tests/data/tamsi_bench_cases.txt.gz` (or of
//! the file `CONTACT_SOLVERS_TAMSI_CASES` names) repeatedly (for profilers).
//! `cargo run --release --example profile_tamsi -- <nv> <repetitions>` prints the mean, median and
//! minimum time per solve; `CHECKSUM=1` prints a hash of the bits of every output instead (to check
//! that a change leaves results bit-identical).
use contact_solvers::tamsi::TamsiSolver;
use nalgebra::DVectorView;

use support::tamsi_support::bench_cases;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nv_wanted: usize = args.get(1).map_or(30, |s| s.parse().unwrap());
    let reps: usize = args.get(2).map_or(100, |s| s.parse().unwrap());
    let cases = bench_cases::load_for_benchmark();
    let case = cases.iter().find(|c| c.nv == nv_wanted).expect("no case with that nv");
    let (nv, nc) = (case.nv, case.nc);
    let vec = |k: &str| DVectorView::from_slice(case.get(k), case.get(k).len());
    let problem = case.problem();
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
    if std::env::var_os("CHECKSUM").is_some() {
        solver.solve_with_guess(&problem, case.dt, vec("guess")).unwrap();
        let mut h: u64 = 0;
        for x in [
            solver.generalized_velocities(),
            solver.normal_velocities(),
            solver.tangential_velocities(),
            solver.normal_forces(),
            solver.friction_forces(),
            solver.generalized_friction_forces(),
            solver.generalized_contact_forces(),
            &solver.iteration_stats().residuals[..],
        ]
        .iter()
        .flat_map(|s| s.iter())
        {
            h = h.rotate_left(7) ^ x.to_bits();
        }
        println!("nv {nv}: checksum {h:016x}");
        return;
    }
    // Each solve timed on its own: the minimum and the median resist the noise of a shared
    // machine better than the mean.
    let mut times = measured(reps, || {
        solver.solve_with_guess(&problem, case.dt, vec("guess")).unwrap();
    });
    let mean = times.iter().sum::<f64>() / reps as f64;
    times.sort_by(f64::total_cmp);
    println!(
        "nv {nv} nc {nc}: {} iterations, {mean:.2} us per solve (median {:.2}, min {:.2})",
        solver.iteration_stats().num_iterations,
        times[reps / 2],
        times[0]
    );
}

/// The timed solves, in a function of their own so that callgrind can collect them alone
/// (`--toggle-collect='*profile_tamsi*measured*'`, `docs/performance.md` §3).
#[inline(never)]
fn measured(reps: usize, mut solve: impl FnMut()) -> Vec<f64> {
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = std::time::Instant::now();
        solve();
        times.push(start.elapsed().as_secs_f64() * 1e6);
    }
    times
}
