//! The interior point on the MuJoCo engine scenes of `tests/data/engine_scenes.txt.gz` (box piles,
//! a sliding box, a stack, an arm in a pile): time per solve at default parameters (the engine
//! iteration, `docs/ipm.md` §11), all the scene's contacts with their gaps, second-order cones,
//! from the scene's v0; block-sparse form and (unless `CTS_ENGINE_DENSE=0`) dense form. Each
//! benchmark's name carries the outcome, the iteration count and MuJoCo's own constraint-solve
//! time on the same state (from the scene file), so per-iteration times and ratios follow from
//! the medians. The dense form at nv = 1200 takes seconds per solve. The group `block-compliance0.1`
//! runs the block form with the `normal_compliance = 0.1` option (`docs/ipm.md` §11.3).
//!
//! Run: `cargo bench --bench ipm_engine -- --warm-up-time 1 --measurement-time 3`.

use contact_solvers::ipm::{IpmOutcome, IpmParameters, IpmSolver};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

use support::engine_scenes;
use support::ipm_blocks;

fn engine(c: &mut Criterion) {
    let dense_too = std::env::var("CTS_ENGINE_DENSE").map_or(true, |v| v != "0");
    let mut group = c.benchmark_group("ipm_engine");
    group.sample_size(10);
    for s in engine_scenes::read_scenes() {
        let scene = ipm_blocks::IpmScene::new(&s);
        for (blocks, compliance) in [(true, 0.0), (false, 0.0), (true, 0.1)] {
            if !blocks && !dense_too {
                continue;
            }
            let problem = scene.problem(blocks);
            let params = IpmParameters { normal_compliance: compliance, ..IpmParameters::default() };
            let mut solver = IpmSolver::new(params).unwrap();
            let outcome = solver.solve(&problem).unwrap();
            let it = solver.stats().iterations;
            let verdict =
                if outcome == IpmOutcome::Converged { "ok".to_string() } else { format!("{outcome:?}") };
            let form = match (blocks, compliance > 0.0) {
                (true, false) => "block",
                (false, _) => "dense",
                (true, true) => "block-compliance0.1",
            };
            let id = BenchmarkId::new(
                form,
                format!(
                    "{} nv{} nc{} {verdict} it{} mujoco{:.1}us",
                    s.name,
                    scene.b.nv(),
                    scene.b.nc(),
                    it,
                    s.mujoco_us
                ),
            );
            group.bench_function(id, |b| b.iter(|| solver.solve(&problem).unwrap()));
        }
    }
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
