//! Islands in parallel inside one solve (issue 31 item 1, `docs/performance.md` §7): TAMSI (block
//! form, two-way, the scene's touching contacts, as `tamsi_engine.rs`) and the interior point
//! (block form, default parameters, all the scene's contacts, as `ipm_engine.rs`) on the engine
//! scenes of `tests/data/engine_scenes.txt.gz`, with 1 and 2 threads (`num_threads`). Each
//! benchmark's name carries the scene's island count, its largest island (dofs) and the
//! iteration count; the results of both thread counts are the same bits
//! (`tests/solvers/parallel_islands.rs`).
//!
//! Run: `cargo bench --bench parallel_islands -- --warm-up-time 1 --measurement-time 3`; a
//! scene filter (`pile50`) narrows it.

use contact_solvers::block_sparse::{BlockSparseLayout, Islands};
use contact_solvers::ipm::{IpmParameters, IpmSolver};
use contact_solvers::tamsi::{TamsiParameters, TamsiProblem, TamsiSolver};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

use support::engine_scenes;
use support::ipm_blocks::IpmScene;
use support::tamsi_blocks;

/// The scenes of issue 31: the 50-box pile falling, landing and resting, the arm in a pile, the
/// 100-box pile landing and resting, the 200-box pile resting (one island).
const SCENES: &[&str] = &[
    "pile50_seed1_t0.3",
    "pile50_seed1_t1.0",
    "pile50_seed1_t3.0",
    "arm7_pile30_seed1_t1.0",
    "pile100_seed1_t1.0",
    "pile100_seed1_t3.0",
    "pile200_seed1_t3.0",
];

/// "islands N largest D" of a layout.
fn islands(layout: &BlockSparseLayout) -> String {
    let mut islands = Islands::new();
    islands.partition(layout).unwrap();
    let largest = (0..islands.count()).map(|k| islands.dofs(k)).max().unwrap_or(0);
    format!("islands{} largest{largest}", islands.count())
}

fn tamsi(c: &mut Criterion) {
    let mut group = c.benchmark_group("tamsi_threads");
    group.sample_size(10);
    for name in SCENES {
        let p = tamsi_blocks::from_scene_touching(&engine_scenes::scene(name));
        let problem = TamsiProblem::two_way_blocks(
            p.system(),
            p.p_star.as_view(),
            p.fn0.as_view(),
            p.stiffness.as_view(),
            p.dissipation.as_view(),
            p.mu.as_view(),
        )
        .unwrap();
        for threads in [1, 2] {
            let mut solver = TamsiSolver::new(p.nv());
            solver.set_parameters(TamsiParameters { num_threads: threads, ..Default::default() }).unwrap();
            solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
            let it = solver.iteration_stats().num_iterations;
            let id = BenchmarkId::new(
                format!("threads{threads}"),
                format!("{name} nv{} nc{} {} it{it}", p.nv(), p.nc(), islands(&p.layout)),
            );
            group.bench_function(id, |b| {
                b.iter(|| solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap())
            });
        }
    }
    group.finish();
}

fn ipm(c: &mut Criterion) {
    let mut group = c.benchmark_group("ipm_threads");
    group.sample_size(10);
    for name in SCENES {
        let scene = IpmScene::new(&engine_scenes::scene(name));
        let problem = scene.problem(true);
        for threads in [1, 2] {
            let mut solver =
                IpmSolver::new(IpmParameters { num_threads: threads, ..Default::default() }).unwrap();
            solver.solve(&problem).unwrap();
            let it = solver.stats().iterations;
            let id = BenchmarkId::new(
                format!("threads{threads}"),
                format!("{name} nv{} nc{} {} it{it}", scene.b.nv(), scene.b.nc(), islands(&scene.b.layout)),
            );
            group.bench_function(id, |b| b.iter(|| solver.solve(&problem).unwrap()));
        }
    }
    group.finish();
}

criterion_group!(benches, tamsi, ipm);
criterion_main!(benches);
