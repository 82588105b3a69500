//! TAMSI on the MuJoCo engine scenes of `tests/data/engine_scenes.txt.gz` (box piles, a sliding
//! box, a stack, an arm in a pile): time per solve of the block-sparse path and of the dense path,
//! two-way, default parameters, the scene's touching contacts (phi < 0, MuJoCo's own contact set),
//! the scene's v0 as the guess. Each benchmark's name carries the iteration count and MuJoCo's own
//! constraint-solve time on the same state (from the scene file), so per-iteration times and
//! ratios follow from the medians. `CTS_ENGINE_DENSE=0` skips the dense path (slow at nv = 1200).

use contact_solvers::tamsi::{TamsiProblem, TamsiSolver};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

use support::engine_scenes;
use support::tamsi_blocks;

fn engine(c: &mut Criterion) {
    let dense_too = std::env::var("CTS_ENGINE_DENSE").map_or(true, |v| v != "0");
    let mut group = c.benchmark_group("tamsi_engine");
    group.sample_size(10);
    for s in engine_scenes::read_scenes() {
        let p = tamsi_blocks::from_scene_touching(&s);
        for blocks in [true, false] {
            if !blocks && !dense_too {
                continue;
            }
            let problem = if blocks {
                TamsiProblem::two_way_blocks(
                    p.system(),
                    p.p_star.as_view(),
                    p.fn0.as_view(),
                    p.stiffness.as_view(),
                    p.dissipation.as_view(),
                    p.mu.as_view(),
                )
            } else {
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
            }
            .unwrap();
            let mut solver = TamsiSolver::new(p.nv());
            solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
            let it = solver.iteration_stats().num_iterations;
            let form = if blocks { "block" } else { "dense" };
            let id = BenchmarkId::new(
                form,
                format!("{} nv{} nc{} it{} mujoco{:.1}us", s.name, p.nv(), p.nc(), it, s.mujoco_us),
            );
            group.bench_function(id, |b| {
                b.iter(|| solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
