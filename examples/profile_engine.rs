//! Development aid: TAMSI on the engine scenes of `tests/data/engine_scenes.txt.gz`, block-sparse
//! and (with `DENSE=1`) dense, two-way, repeated solves from the scene's v0.
//! `cargo run --release --example profile_engine -- [scene-name-substring] [repetitions]` prints
//! iterations, islands and the median time per solve beside MuJoCo's time on the same state.
use contact_solvers::block_sparse::Islands;
use contact_solvers::tamsi::{TamsiProblem, TamsiSolver};

#[path = "../tests/support/engine_scenes.rs"]
mod engine_scenes;
#[path = "../tests/support/tamsi_blocks.rs"]
mod tamsi_blocks;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let filter = args.get(1).cloned().unwrap_or_default();
    let reps: usize = args.get(2).map_or(50, |s| s.parse().unwrap());
    let dense = std::env::var_os("DENSE").is_some();
    for s in engine_scenes::read_scenes().into_iter().filter(|s| s.name.contains(&filter)) {
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
            let t = std::time::Instant::now();
            solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
            times.push(t.elapsed().as_secs_f64() * 1e6);
        }
        times.sort_by(f64::total_cmp);
        let med = times[reps / 2];
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
