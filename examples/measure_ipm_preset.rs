//! Development aid: the interior point's engine preset (`IpmParameters::engine()`,
//! `docs/ipm.md` §11.7) on the engine scenes, block form, one cold solve per scene from v0.
//! `cargo run --release --example measure_ipm_preset -- [files…]` (default: the three scene files
//! of `tests/data`) prints per scene the outcome, iterations, the largest predicted penetration
//! `−min(φ + h J_n v)` and the largest `h·R_n·γ_n`, then the counts and the mean.
//!
//! Environment: `BETA`, `COMPLIANCE`, `CORRECTORS`, `STALL`, `PROX`, `NM` (natural_map_tolerance), `MAX_ITER` override the
//! preset's fields; `MU=x` sets every friction coefficient; `DOUBLE=1` lists every contact twice;
//! `FILTER=substring` selects scenes; `DEFAULTS=1` starts from the defaults instead of the preset.
use contact_solvers::ipm::{IpmOutcome, IpmParameters, IpmSolver};
use nalgebra::DVector;

use support::engine_scenes::{self, Scene};
use support::ipm_blocks::IpmScene;

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|x| x.parse().ok())
}

fn main() {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        files = [engine_scenes::SCENES_PATH, engine_scenes::PILES_PATH, engine_scenes::STRESS_PATH]
            .iter()
            .map(|s| s.to_string())
            .collect();
    }
    let mut prm = if std::env::var_os("DEFAULTS").is_some() {
        IpmParameters::default()
    } else {
        IpmParameters::engine()
    };
    if let Some(x) = env("BETA") {
        prm.near_rigid_beta = x;
    }
    if let Some(x) = env("COMPLIANCE") {
        prm.normal_compliance = x;
    }
    if let Some(x) = env("CORRECTORS") {
        prm.centrality_correctors = x;
    }
    if let Some(x) = env("STALL") {
        prm.stall_iterations = x;
    }
    if let Some(x) = env("PROX") {
        prm.proximal_regularization = x;
    }
    if let Some(x) = env("NM") {
        prm.natural_map_tolerance = x;
    }
    if let Some(x) = env("MAX_ITER") {
        prm.max_iter = x;
    }
    let filter: String = env("FILTER").unwrap_or_default();
    println!("{prm:?}");
    let (mut count, mut conv, mut its, mut worst) = (0, 0, Vec::new(), 0);
    for file in &files {
        for mut sc in engine_scenes::read_scenes_file(file).into_iter().filter(|s| s.name.contains(&filter)) {
            modify(&mut sc);
            let scene = IpmScene::new(&sc);
            let mut solver = IpmSolver::new(prm).unwrap();
            let t = std::time::Instant::now();
            let out = solver.solve(&scene.problem(true)).unwrap();
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let st = *solver.stats();
            let v = DVector::from_column_slice(solver.velocities());
            let un = &scene.b.jn * &v;
            let imp = solver.impulses();
            let pen = (0..sc.nc()).map(|i| -(scene.phi[i] + scene.b.dt * un[i])).fold(0.0f64, f64::max);
            let finite = solver.velocities().iter().chain(imp).all(|x| x.is_finite());
            count += 1;
            if out == IpmOutcome::Converged {
                conv += 1;
                its.push(st.iterations);
            }
            worst = worst.max(st.iterations);
            if std::env::var_os("HISTORY").is_some() {
                let (r, b) = (solver.rvio_history(), solver.bvio_history());
                for (k, (kappa, alpha)) in
                    solver.kappa_history().iter().zip(solver.alpha_history()).enumerate()
                {
                    println!(
                        "  it {k:3} rvio {:9.2e} bvio {:9.2e} kappa {kappa:9.2e} alpha {alpha:9.2e}",
                        r[k + 1],
                        b[k + 1]
                    );
                }
                println!("  {st:?}");
                if sc.nc() <= 8 {
                    let (g, d) = (solver.primal(), solver.dual());
                    for i in 0..sc.nc() {
                        let o = solver.contact_offset(i).unwrap();
                        println!(
                            "  contact {i}: s {:?} g {:?} phi {:e}",
                            &d[o..o + 4],
                            &g[o..o + 4],
                            scene.phi[i]
                        );
                    }
                    println!("  v {:?}", solver.velocities());
                }
            }
            println!(
                "{:30} nc {:5} {:>16} it {:3} merit {:8.2e} pen {:8.4} mm  {:8.1} ms{}",
                sc.name,
                sc.nc(),
                format!("{out:?}"),
                st.iterations,
                st.merit,
                pen * 1e3,
                ms,
                if finite { "" } else { "  NON-FINITE" }
            );
        }
    }
    let mean = its.iter().sum::<usize>() as f64 / its.len().max(1) as f64;
    println!("converged {conv}/{count}, iterations of the converged: mean {mean:.2}, max of all {worst}");
}

fn modify(sc: &mut Scene) {
    if let Some(mu) = env::<f64>("MU") {
        for c in &mut sc.contacts {
            c.mu = mu;
        }
    }
    if std::env::var_os("DOUBLE").is_some() {
        let copy = sc.contacts.clone();
        sc.contacts.extend(copy);
        sc.name.push_str("+double");
    }
}
