//! Development aid: the interior point at default parameters on the engine scenes of
//! `tests/data/engine_scenes.txt.gz`, block-sparse form (with `DENSE=1` dense), repeated solves
//! from the scene's v0.
//! `cargo run --release --example profile_ipm_engine -- [scene-name-substring] [repetitions]`
//! prints per scene: converged or not, iterations, the final scaled residual and complementarity,
//! the median thread CPU time per solve beside MuJoCo's time on the same state, and their ratio.
//! `HISTORY=1` also prints each iteration's rvio, bvio, κ and step length.
use contact_solvers::block_sparse::Islands;
use contact_solvers::ipm::{IpmOutcome, IpmParameters, IpmSolver};

use support::engine_scenes;
use support::ipm_blocks;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let filter = args.get(1).cloned().unwrap_or_default();
    let reps: usize = args.get(2).map_or(21, |s| s.parse().unwrap());
    let blocks = std::env::var_os("DENSE").is_none();
    println!(
        "{:26} {:>4} {:>4} {:>7} {:>9} {:>3} {:>9} {:>9} {:>11} {:>10} {:>7}",
        "scene",
        "nv",
        "nc",
        "islands",
        "converged",
        "it",
        "residual",
        "compl",
        "us/solve",
        "MuJoCo us",
        "ratio"
    );
    for s in engine_scenes::read_scenes().into_iter().filter(|s| s.name.contains(&filter)) {
        let scene = ipm_blocks::IpmScene::new(&s);
        let problem = scene.problem(blocks);
        let mut islands = Islands::new();
        islands.partition(&scene.b.layout).unwrap();
        let mut params = IpmParameters::default();
        if let Some(c) = std::env::var("COMPLIANCE").ok().and_then(|x| x.parse().ok()) {
            params.normal_compliance = c;
        }
        let mut solver = IpmSolver::new(params).unwrap();
        let t = thread_cpu_us();
        let outcome = solver.solve(&problem).unwrap();
        let first = thread_cpu_us() - t;
        // At most ~3 s of repetitions per scene (the dense form at nv = 1200 takes seconds).
        let n = reps.min((3e6 / first.max(1.0)) as usize).max(1);
        let mut times = Vec::with_capacity(n);
        for _ in 0..n {
            let t = thread_cpu_us();
            solver.solve(&problem).unwrap();
            times.push(thread_cpu_us() - t);
        }
        times.sort_by(f64::total_cmp);
        let med = times[n / 2];
        let st = solver.stats();
        println!(
            "{:26} {:4} {:4} {:7} {:>9} {:3} {:9.2e} {:9.2e} {:11.1} {:10.1} {:7.2}",
            s.name,
            scene.b.nv(),
            scene.b.nc(),
            islands.count(),
            if outcome == IpmOutcome::Converged { "yes".to_string() } else { format!("{outcome:?}") },
            st.iterations,
            st.residual,
            st.complementarity,
            med,
            s.mujoco_us,
            med / s.mujoco_us
        );
        if std::env::var_os("HISTORY").is_some() {
            let (r, b) = (solver.rvio_history(), solver.bvio_history());
            for (k, (kappa, alpha)) in solver.kappa_history().iter().zip(solver.alpha_history()).enumerate() {
                println!(
                    "  it {k:3} rvio {:9.2e} bvio {:9.2e} kappa {kappa:9.2e} alpha {alpha:9.2e}",
                    r[k], b[k]
                );
            }
            // The pairs with the largest complementarity products at the returned iterate
            // (normal: s_n γ_n; cone: η·ξ), beside the mean.
            let (g, d) = (solver.primal(), solver.dual());
            let mut prods: Vec<(f64, f64, usize)> = (0..scene.b.nc())
                .map(|i| {
                    let o = solver.contact_offset(i).unwrap();
                    let cone: f64 = (1..4).map(|j| g[o + j] * d[o + j]).sum();
                    (g[o] * d[o], cone, i)
                })
                .collect();
            let mean = prods.iter().map(|p| p.0 + p.1).sum::<f64>() / (2 * prods.len()) as f64;
            prods.sort_by(|a, b| (b.0.max(b.1)).total_cmp(&a.0.max(a.1)));
            println!(
                "  line searches exhausted {}, boundary hits {}; mean product {mean:9.2e}; largest:",
                st.line_search_exhausted, st.boundary_hits
            );
            for &(pn, pc, i) in prods.iter().take(6) {
                let o = solver.contact_offset(i).unwrap();
                println!(
                    "    contact {i:4} phi {:9.2e} normal {pn:9.2e} (s {:9.2e} g {:9.2e}) cone {pc:9.2e} (eta {:9.2e} {:9.2e} {:9.2e}, xi {:9.2e} {:9.2e} {:9.2e})",
                    scene.phi[i],
                    d[o],
                    g[o],
                    d[o + 1],
                    d[o + 2],
                    d[o + 3],
                    g[o + 1],
                    g[o + 2],
                    g[o + 3]
                );
            }
        }
    }
}

/// CPU time of the calling thread, µs (as MuJoCo's reference times were taken: unaffected by the
/// other jobs of a shared machine, except through caches).
fn thread_cpu_us() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e6 + ts.tv_nsec as f64 * 1e-3
}
