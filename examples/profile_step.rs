//! Development aid (issue 29): one engine step on the scenes of `tests/data/engine_scenes.txt.gz`,
//! cold from each scene's v0, for profiling under callgrind and for a quick per-iteration time.
//!
//! `cargo run --release --example profile_step -- <mode> [scene-name-substring] [repetitions]`
//!
//! * `tamsi`: block-form TAMSI, two-way, the scene's touching contacts (phi < 0), as
//!   `benches/tamsi_engine.rs`;
//! * `tamsi_c`: the same through the C ABI, set + solve every repetition (the setter's share);
//! * `ipm`: the interior point, block form, `normal_compliance = 0.1`, every contact with its gap,
//!   as `benches/ipm_engine.rs` (group `block-compliance0.1`);
//! * `ipm_engine`: the same at the engine preset (`IpmParameters::engine()`);
//! * `tamsi_live`: the live loop's warm steps (`docs/performance.md` §3 "The live loop"): the
//!   matching scenes, in file order, are consecutive states of one loop (`tools/live_steps.py`
//!   writes them; `CTS_SCENES_FILE` names the file); each repetition sets the next state through
//!   the C ABI and solves it from its v0 (the previous step's solution), cycling through them,
//!   as `mujoco_bridge.c` does. Prints the set call's and the solve's medians apart. With
//!   `CTS_EVICT_KB=<n>` each measured step is preceded (untimed) by a write pass over n kB of
//!   other memory, as MuJoCo's own step runs between ours in the live loop and leaves our data
//!   out of the caches (`docs/performance.md` §3 "The live loop, evening pass").
//!
//! With `THREADS=<n>` the `tamsi` mode solves with `TamsiParameters::num_threads = n`, the
//! interior-point modes with `IpmParameters::num_threads = n` (islands in parallel,
//! `docs/performance.md` §8; profile the threads apart with callgrind's `--separate-threads=yes`).
//!
//! With `FINGERPRINT=1` the `tamsi` and interior-point modes also print a hash of the bits of the
//! returned velocities and forces (TAMSI: v, fn, ft; the interior point: v and the impulses), to
//! check that a change keeps the iterates bit for bit.
//!
//! After one solve that grows the workspaces, `measured` runs the repetitions: profile it alone
//! with `valgrind --tool=callgrind --toggle-collect='*profile_step*measured*' …`. Prints per
//! scene the iterations, the median thread CPU time per solve and per iteration, and MuJoCo's cold
//! per-iteration time (`tests/data/README.md`).
#![allow(unsafe_code)]

use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::tamsi::*;
use contact_solvers::ipm::{IpmParameters, IpmSolver};
use contact_solvers::tamsi::TamsiSolver;

use support::engine_scenes::{self, Scene};
use support::ipm_blocks::IpmScene;
use support::tamsi_blocks;

/// MuJoCo's cold solve (µs) and cold Newton iterations per scene, as measured with the engine
/// scenes ("cold µs" and "Newton iters warm/cold"; `tests/data/README.md`).
fn mujoco_cold(name: &str) -> Option<(f64, usize)> {
    let table = [
        ("pile50_seed1_t0.3", 57.49, 7),
        ("pile50_seed1_t1.0", 109.3, 7),
        ("pile50_seed1_t3.0", 102.9, 4),
        ("pile100_seed1_t1.0", 527.8, 8),
        ("pile100_seed1_t3.0", 1763.0, 5),
        ("pile200_seed1_t3.0", 36435.0, 5),
        ("slide_box_v2.0_t0.001", 1.686, 2),
        ("stack5_jitter_seed1_t1.0", 10.20, 1),
        ("arm7_pile30_seed1_t1.0", 47.07, 4),
    ];
    table.iter().find(|t| t.0 == name).map(|t| (t.1, t.2))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mode = args.get(1).cloned().unwrap_or_else(|| "tamsi".into());
    let filter = args.get(2).cloned().unwrap_or_default();
    let reps: usize = args.get(3).map_or(50, |s| s.parse().unwrap());
    if mode == "tamsi_live" {
        let scenes: Vec<Scene> =
            engine_scenes::read_scenes().into_iter().filter(|s| s.name.contains(&filter)).collect();
        return tamsi_live(&scenes, reps);
    }
    for s in engine_scenes::read_scenes().into_iter().filter(|s| s.name.contains(&filter)) {
        let (its, times) = match mode.as_str() {
            "tamsi" => tamsi(&s, reps),
            "tamsi_c" => tamsi_c(&s, reps),
            "ipm" => ipm(&s, reps, IpmParameters { normal_compliance: 0.1, ..IpmParameters::default() }),
            "ipm_engine" => ipm(&s, reps, IpmParameters::engine()),
            _ => panic!("mode: tamsi, tamsi_c, tamsi_live, ipm or ipm_engine"),
        };
        let med = median(times);
        let per_it = med / its.max(1) as f64;
        let mj = mujoco_cold(&s.name).map_or(f64::NAN, |(us, it)| us / it.max(1) as f64);
        println!(
            "{mode:8} {:26} {:3} it {:10.1} us/solve {:8.2} us/it  MuJoCo cold {:8.2} us/it  ratio {:5.2}",
            s.name,
            its,
            med,
            per_it,
            mj,
            per_it / mj
        );
    }
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

fn tamsi(s: &Scene, reps: usize) -> (usize, Vec<f64>) {
    let p = tamsi_blocks::from_scene_touching(s);
    let problem = p.two_way();
    if std::env::var_os("ISLANDS").is_some() {
        let mut islands = contact_solvers::block_sparse::Islands::new();
        islands.partition(&p.layout).unwrap();
        let sizes: Vec<(usize, usize)> =
            (0..islands.count()).map(|k| (islands.dofs(k), islands.contacts(k).len())).collect();
        eprintln!(
            "{}: nc {} free trees {}, islands (dofs, contacts) {sizes:?}",
            s.name,
            p.nc(),
            islands.free_trees().len()
        );
        // The largest island's share of the islands' cost (`MIN_ISLAND_GAIN`, `tamsi/form.rs`).
        use contact_solvers::block_sparse::{BlockNewtonMatrix, Factorization, IslandCost};
        let mut newton = BlockNewtonMatrix::new();
        newton.prepare(&p.system(), Factorization::Lu).unwrap();
        newton.prepare_parallel_with(&p.system(), 8, &IslandCost::TAMSI_FUSED).unwrap();
        eprintln!("{}: largest island share {:.3}", s.name, newton.largest_island_share());
        // Per island, the terms of the chunk cost weights (`BlockNewtonMatrix::prepare_parallel`):
        // dofs, contacts, trees, Σ over contacts of (n_a + n_b)².
        for k in 0..islands.count() {
            let assembly: usize = islands
                .contacts(k)
                .iter()
                .map(|&i| {
                    let (a, b) = p.layout.contact_trees(i as usize);
                    let n = p.layout.tree_dofs(a) + b.map_or(0, |b| p.layout.tree_dofs(b));
                    n * n
                })
                .sum();
            eprintln!(
                "island {} {} {} {} {assembly}",
                s.name,
                islands.dofs(k),
                islands.contacts(k).len(),
                islands.trees(k).len()
            );
        }
    }
    let mut solver = TamsiSolver::new(p.nv());
    let num_threads = std::env::var("THREADS").map_or(0, |s| s.parse().expect("THREADS: a count"));
    let params = contact_solvers::tamsi::TamsiParameters { num_threads, ..*solver.parameters() };
    solver.set_parameters(params).unwrap();
    solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
    if std::env::var_os("FINGERPRINT").is_some() {
        let out = solver.generalized_velocities().iter();
        let out = out.chain(solver.normal_forces()).chain(solver.friction_forces());
        println!(
            "fingerprint {:26} {:3} it {:016x}",
            s.name,
            solver.iteration_stats().num_iterations,
            fnv(out)
        );
    }
    let times = measured(reps, &mut || {
        solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
    });
    (solver.iteration_stats().num_iterations, times)
}

fn tamsi_c(s: &Scene, reps: usize) -> (usize, Vec<f64>) {
    let p = tamsi_blocks::from_scene_touching(s);
    let nv = p.nv();
    let structure = p.c_structure();
    let data = structure.data(&p);
    let mut h = std::ptr::null_mut();
    // SAFETY: every pointer is valid for the lengths passed; `h` is freed below.
    unsafe {
        assert_eq!(cts_tamsi_solver_new(nv, &mut h), cts_status::Ok);
        let mut step = || {
            let st = cts_tamsi_solver_set_two_way_coupled_block_problem_data(
                h,
                &data,
                p.p_star.as_ptr(),
                p.fn0.as_ptr(),
                p.stiffness.as_ptr(),
                p.dissipation.as_ptr(),
                p.mu.as_ptr(),
            );
            assert_eq!(st, cts_status::Ok);
            assert_eq!(cts_tamsi_solver_solve_with_guess(h, p.dt, p.v0.as_ptr(), nv), cts_status::Ok);
        };
        step();
        step();
        let times = measured(reps, &mut step);
        let mut st = cts_tamsi_iteration_stats { num_iterations: 0, vt_residual: 0.0 };
        assert_eq!(cts_tamsi_solver_get_iteration_stats(h, &mut st), cts_status::Ok);
        cts_tamsi_solver_free(h);
        (st.num_iterations as usize, times)
    }
}

/// The `tamsi_live` mode: one solver steps through `scenes` in turn, each set through the C ABI
/// (two-way block data, the scene's touching contacts) and solved from its v0.
fn tamsi_live(scenes: &[Scene], reps: usize) {
    let problems: Vec<_> = scenes.iter().map(tamsi_blocks::from_scene_touching).collect();
    let structures: Vec<_> = problems.iter().map(|p| p.c_structure()).collect();
    let data: Vec<_> = problems.iter().zip(&structures).map(|(p, s)| s.data(p)).collect();
    let nv = problems.first().expect("no scene matches").nv();
    let mut h = std::ptr::null_mut();
    let (mut set_us, mut solve_us, mut its) = (Vec::new(), Vec::new(), 0);
    let evict_kb: usize = std::env::var("CTS_EVICT_KB").map_or(0, |s| s.parse().expect("CTS_EVICT_KB: kB"));
    let mut other = vec![0u64; evict_kb * 128];
    // SAFETY: every pointer is valid for the lengths passed and outlives the solver; `h` is freed
    // below.
    unsafe {
        assert_eq!(cts_tamsi_solver_new(nv, &mut h), cts_status::Ok);
        let mut step = |k: usize, times: Option<(&mut Vec<f64>, &mut Vec<f64>)>| {
            let p = &problems[k];
            if times.is_some() {
                for x in other.iter_mut() {
                    *x = std::hint::black_box(x.wrapping_add(1));
                }
            }
            let t0 = thread_cpu_us();
            let st = cts_tamsi_solver_set_two_way_coupled_block_problem_data(
                h,
                &data[k],
                p.p_star.as_ptr(),
                p.fn0.as_ptr(),
                p.stiffness.as_ptr(),
                p.dissipation.as_ptr(),
                p.mu.as_ptr(),
            );
            let t1 = thread_cpu_us();
            assert_eq!(st, cts_status::Ok);
            let st = cts_tamsi_solver_solve_with_guess(h, p.dt, p.v0.as_ptr(), nv);
            let t2 = thread_cpu_us();
            assert_eq!(st, cts_status::Ok, "{}", p.name);
            if let Some((set, solve)) = times {
                set.push(t1 - t0);
                solve.push(t2 - t1);
            }
        };
        // One pass grows the workspaces (and prints the fingerprints), then the measured steps.
        for k in 0..problems.len() {
            step(k, None);
            let mut st = cts_tamsi_iteration_stats { num_iterations: 0, vt_residual: 0.0 };
            assert_eq!(cts_tamsi_solver_get_iteration_stats(h, &mut st), cts_status::Ok);
            its += st.num_iterations as usize;
            if std::env::var_os("FINGERPRINT").is_some() {
                let mut out = vec![0.0; nv + 3 * problems[k].nc()];
                let (v, rest) = out.split_at_mut(nv);
                let (fn_, ft) = rest.split_at_mut(problems[k].nc());
                assert_eq!(
                    cts_tamsi_solver_get_generalized_velocities(h, v.as_mut_ptr(), nv),
                    cts_status::Ok
                );
                assert_eq!(
                    cts_tamsi_solver_get_normal_forces(h, fn_.as_mut_ptr(), fn_.len()),
                    cts_status::Ok
                );
                assert_eq!(
                    cts_tamsi_solver_get_friction_forces(h, ft.as_mut_ptr(), ft.len()),
                    cts_status::Ok
                );
                println!(
                    "fingerprint {:30} {:3} it {:016x}",
                    scenes[k].name,
                    st.num_iterations,
                    fnv(out.iter())
                );
            }
        }
        live_measured(reps, &mut |r| step(r % problems.len(), Some((&mut set_us, &mut solve_us))));
        cts_tamsi_solver_free(h);
    }
    let (set, solve) = (median(set_us), median(solve_us));
    println!(
        "tamsi_live {} states ({}..), {:.2} it/step: set {set:8.2} us  solve {solve:8.2} us  set+solve {:8.2} us",
        scenes.len(),
        scenes[0].name,
        its as f64 / scenes.len() as f64,
        set + solve
    );
}

/// The live steps' repetitions. Not inlined: callgrind's collection is toggled on this function.
#[inline(never)]
fn live_measured(reps: usize, step: &mut dyn FnMut(usize)) {
    for r in 0..reps {
        step(r);
    }
}

fn ipm(s: &Scene, reps: usize, params: IpmParameters) -> (usize, Vec<f64>) {
    let scene = IpmScene::new(s);
    let problem = scene.problem(true);
    let num_threads = std::env::var("THREADS").map_or(0, |s| s.parse().expect("THREADS: a count"));
    let mut solver = IpmSolver::new(IpmParameters { num_threads, ..params }).unwrap();
    solver.solve(&problem).unwrap();
    if std::env::var_os("FINGERPRINT").is_some() {
        let h = fnv(solver.velocities().iter().chain(solver.impulses().iter()));
        println!("fingerprint {:26} {:3} it {h:016x}", s.name, solver.stats().iterations);
    }
    let times = measured(reps, &mut || {
        solver.solve(&problem).unwrap();
    });
    (solver.stats().iterations, times)
}

/// FNV-1a over the bits of `xs`.
fn fnv<'a>(xs: impl Iterator<Item = &'a f64>) -> u64 {
    xs.fold(0xcbf29ce484222325, |h, x| (h ^ x.to_bits()).wrapping_mul(0x100000001b3))
}

/// The repetitions, each timed (thread CPU time, µs). Not inlined: callgrind's collection is
/// toggled on this function.
#[inline(never)]
fn measured(reps: usize, step: &mut dyn FnMut()) -> Vec<f64> {
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = thread_cpu_us();
        step();
        times.push(thread_cpu_us() - t);
    }
    times
}

/// CPU time of the calling thread, µs.
fn thread_cpu_us() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e6 + ts.tv_nsec as f64 * 1e-3
}
