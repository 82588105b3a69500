//! Development aid: TAMSI on the engine scenes of `tests/data/engine_scenes.txt.gz`, block-sparse
//! and (with `DENSE=1`) dense, two-way, repeated solves from the scene's v0.
//! `cargo run --release --example profile_engine -- [scene-name-substring] [repetitions]` prints
//! iterations, islands and the median time per solve beside MuJoCo's time on the same state.
use contact_solvers::block_sparse::Islands;
use contact_solvers::tamsi::{TamsiProblem, TamsiSolver};

use support::engine_scenes;
use support::tamsi_blocks;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let filter = args.get(1).cloned().unwrap_or_default();
    let reps: usize = args.get(2).map_or(50, |s| s.parse().unwrap());
    let dense = std::env::var_os("DENSE").is_some();
    for s in engine_scenes::read_scenes().into_iter().filter(|s| s.name.contains(&filter)) {
        if std::env::var_os("ISLANDS").is_some() {
            islands_experiment(&s, reps);
            continue;
        }
        let p = if std::env::var_os("ALL_CONTACTS").is_some() {
            tamsi_blocks::from_scene(&s)
        } else {
            tamsi_blocks::from_scene_touching(&s)
        };
        let system = p.system();
        let problem = if dense {
            TamsiProblem::two_way(
                p.m.as_view(),
                p.jn.as_view(),
                p.jt.as_view(),
                p.p_star.as_view(),
                p.fn0.as_view(),
                p.stiffness.as_view(),
                p.dissipation.as_view(),
                p.mu.as_view(),
            )
        } else {
            TamsiProblem::two_way_blocks(
                system,
                p.p_star.as_view(),
                p.fn0.as_view(),
                p.stiffness.as_view(),
                p.dissipation.as_view(),
                p.mu.as_view(),
            )
        }
        .unwrap();
        let mut islands = Islands::new();
        islands.partition(&p.layout).unwrap();
        let largest = (0..islands.count()).map(|k| islands.dofs(k)).max().unwrap_or(0);
        let mut solver = TamsiSolver::new(p.nv());
        solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t = thread_cpu_us();
            solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
            times.push(thread_cpu_us() - t);
        }
        times.sort_by(f64::total_cmp);
        let med = times[reps / 2];
        eprintln!("min solve {:.1} us", times[0]);
        let iters = solver.iteration_stats().num_iterations;
        println!(
            "{:26} nv {:4} nc {:4} islands {:2} (largest {:4} dofs) free {:3}: {:3} it, {:9.1} us/solve {:8.2} us/it, MuJoCo {:8.1} us ({:.2}x)",
            s.name,
            p.nv(),
            p.nc(),
            islands.count(),
            largest,
            islands.free_trees().len(),
            iters,
            med,
            med / iters.max(1) as f64,
            s.mujoco_us,
            med / s.mujoco_us
        );
    }
}

/// Experiment: the scene split into its islands, each solved as its own problem (own α and
/// convergence test); prints the iterations per island and the summed time.
#[allow(dead_code)]
fn islands_experiment(s: &engine_scenes::Scene, reps: usize) {
    let p = tamsi_blocks::from_scene_touching(s);
    let mut islands = Islands::new();
    islands.partition(&p.layout).unwrap();
    let mut subs = Vec::new();
    for k in 0..islands.count() {
        let mut sub = s.clone();
        let trees: Vec<usize> = islands.trees(k).iter().map(|&t| t as usize).collect();
        let local = |t: usize| trees.iter().position(|&u| u == t).unwrap();
        let mut first = 0;
        sub.trees = trees
            .iter()
            .map(|&t| {
                let n = s.trees[t].1;
                first += n;
                (first - n, n)
            })
            .collect();
        sub.nv = first;
        sub.m_blocks = trees.iter().map(|&t| s.m_blocks[t].clone()).collect();
        let gather = |x: &[f64]| {
            trees
                .iter()
                .flat_map(|&t| {
                    let (f, n) = s.trees[t];
                    x[f..f + n].to_vec()
                })
                .collect::<Vec<_>>()
        };
        sub.v0 = gather(&s.v0);
        sub.tau = gather(&s.tau);
        let touching: Vec<_> = s.contacts.iter().filter(|c| c.phi < 0.0).cloned().collect();
        sub.contacts = islands
            .contacts(k)
            .iter()
            .map(|&i| {
                let mut c = touching[i as usize].clone();
                c.tree_a = local(c.tree_a);
                c.tree_b = c.tree_b.map(local);
                c
            })
            .collect();
        subs.push(tamsi_blocks::from_scene(&sub));
    }
    let mut total = 0.0;
    let mut its = Vec::new();
    for p in &subs {
        let problem = TamsiProblem::two_way_blocks(
            p.system(),
            p.p_star.as_view(),
            p.fn0.as_view(),
            p.stiffness.as_view(),
            p.dissipation.as_view(),
            p.mu.as_view(),
        )
        .unwrap();
        let mut solver = TamsiSolver::new(p.nv());
        solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
        let t = std::time::Instant::now();
        for _ in 0..reps {
            solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
        }
        total += t.elapsed().as_secs_f64() * 1e6 / reps as f64;
        its.push((p.nv(), solver.iteration_stats().num_iterations));
    }
    println!(
        "{:26} islands solved independently: {:9.1} us/solve; (dofs, iterations) {:?}",
        s.name, total, its
    );
}

/// CPU time of the calling thread, µs (as MuJoCo's reference times were taken: unaffected by the
/// other jobs of a shared machine, except through caches).
fn thread_cpu_us() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e6 + ts.tv_nsec as f64 * 1e-3
}
