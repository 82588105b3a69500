//! Islands in parallel inside one solve (issue 31 item 1, `docs/performance.md` §7): TAMSI and the
//! interior point on block data return the same bits with 1, 2 and 4 threads as sequentially,
//! on the engine scenes of `tests/data` (piles of 10–26 islands, the stack of 5 and the 200-box
//! pile of one island) and on random problems with free trees, one-way and two-way.

use contact_solvers::ipm::{ContactModel, IpmData, IpmParameters, IpmProblem, IpmSolver};
use contact_solvers::tamsi::{TamsiParameters, TamsiProblem, TamsiSolver};
use nalgebra::DVector;

use support::engine_scenes;
use support::ipm_blocks::IpmScene;
use support::tamsi_blocks::{self, BlockProblem};

fn bits(x: &[f64]) -> Vec<u64> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// Everything a TAMSI solve returns, as bits.
fn tamsi_outputs(s: &TamsiSolver) -> Vec<Vec<u64>> {
    let stats = s.iteration_stats();
    vec![
        vec![stats.num_iterations as u64],
        bits(&stats.residuals),
        bits(s.generalized_velocities()),
        bits(s.normal_velocities()),
        bits(s.tangential_velocities()),
        bits(s.normal_forces()),
        bits(s.friction_forces()),
        bits(s.generalized_friction_forces()),
        bits(s.generalized_contact_forces()),
    ]
}

fn tamsi_solve(
    p: &BlockProblem,
    problem: &TamsiProblem<'_>,
    s: &mut TamsiSolver,
    threads: usize,
) -> Vec<Vec<u64>> {
    s.set_parameters(TamsiParameters { num_threads: threads, ..*s.parameters() }).unwrap();
    s.solve_with_guess(problem, p.dt, p.v0.as_view()).unwrap();
    tamsi_outputs(s)
}

fn two_way(p: &BlockProblem) -> TamsiProblem<'_> {
    TamsiProblem::two_way_blocks(
        p.system(),
        p.p_star.as_view(),
        p.fn0.as_view(),
        p.stiffness.as_view(),
        p.dissipation.as_view(),
        p.mu.as_view(),
    )
    .unwrap()
}

/// Sequential, then 2 and 4 threads on fresh solvers and on one solver whose pool is reused and
/// re-created.
fn check_tamsi(p: &BlockProblem, problem: &TamsiProblem<'_>) {
    let want = tamsi_solve(p, problem, &mut TamsiSolver::new(p.nv()), 0);
    assert!(want[0][0] > 0, "{}: the solve iterates", p.name);
    for threads in [1, 2, 4] {
        let got = tamsi_solve(p, problem, &mut TamsiSolver::new(p.nv()), threads);
        assert!(got == want, "{}: {threads} threads differ from the sequential solve", p.name);
    }
    let mut reused = TamsiSolver::new(p.nv());
    for threads in [2, 2, 4, 1, 2] {
        assert!(
            tamsi_solve(p, problem, &mut reused, threads) == want,
            "{}: reused, {threads} threads",
            p.name
        );
    }
}

#[test]
fn tamsi_engine_scenes_are_bit_identical_with_1_2_and_4_threads() {
    for s in engine_scenes::read_scenes() {
        let p = tamsi_blocks::from_scene_touching(&s);
        check_tamsi(&p, &two_way(&p));
    }
}

#[test]
fn tamsi_random_problems_with_free_trees_one_way_and_two_way() {
    // 600 contacts: the contact and tree phases run on the pool (from 128 contacts per thread)
    // unless one island carries most of the work (then the solve runs on one thread: the
    // solver's `MIN_ISLAND_GAIN`). Seeds 5 and 6 have fewer contacts than trees, so many
    // small islands: the fused phase runs on the pool for one-way problems too, and with 300
    // contacts the final evaluation by contact ranges.
    for (seed, ntree, nc) in
        [(1, 40, 60), (2, 120, 200), (3, 8, 5), (4, 300, 600), (5, 400, 300), (6, 200, 120)]
    {
        let p = tamsi_blocks::random(seed, ntree, nc);
        check_tamsi(&p, &two_way(&p));
        let one_way =
            TamsiProblem::one_way_blocks(p.system(), p.p_star.as_view(), p.fn0.as_view(), p.mu.as_view())
                .unwrap();
        check_tamsi(&p, &one_way);
    }
}

/// The solves that stop before convergence: out of iterations (the state is evaluated again at
/// the returned v) and a NaN in the guess (the limiter or the factorization fails, and the state
/// at v is returned). A threaded iteration runs as one pool phase by islands and leaves part of
/// the contact state in island order, so these outcomes return through other code than Success.
#[test]
fn tamsi_unconverged_and_failed_solves_are_bit_identical() {
    use contact_solvers::tamsi::TamsiOutcome;
    let scenes = engine_scenes::read_scenes();
    let scene = scenes.iter().find(|s| s.name == "pile50_seed1_t1.0").expect("pile50 t1.0");
    let p = tamsi_blocks::from_scene_touching(scene);
    let problem = two_way(&p);
    let mut nan_guess = p.v0.clone();
    nan_guess[7] = f64::NAN;
    for (max_iterations, guess, outcome) in [
        (3, &p.v0, TamsiOutcome::MaxIterationsReached),
        (1, &p.v0, TamsiOutcome::MaxIterationsReached),
        (100, &nan_guess, TamsiOutcome::AlphaSolverFailed),
    ] {
        let solve = |threads| {
            let mut s = TamsiSolver::new(p.nv());
            let params = TamsiParameters { num_threads: threads, max_iterations, ..*s.parameters() };
            s.set_parameters(params).unwrap();
            let got = s.solve_with_guess(&problem, p.dt, guess.as_view()).unwrap();
            assert_eq!(got, outcome, "{max_iterations} iterations, {threads} threads");
            // NaN payloads and signs follow the compiler's operand order, which differs between
            // call sites: every NaN compares as one value here.
            let canonical = |x: u64| if f64::from_bits(x).is_nan() { f64::NAN.to_bits() } else { x };
            tamsi_outputs(&s)
                .into_iter()
                .map(|o| o.into_iter().map(canonical).collect())
                .collect::<Vec<Vec<u64>>>()
        };
        let want = solve(0);
        if max_iterations == 100 {
            assert!(
                want[6].iter().any(|&x| f64::from_bits(x).is_nan()),
                "the NaN reaches the friction forces"
            );
        }
        for threads in [1, 2, 4] {
            let got = solve(threads);
            let first = (0..want.len()).find(|&k| got[k] != want[k]);
            assert!(
                first.is_none(),
                "{max_iterations} iterations: {threads} threads differ in output {first:?}"
            );
        }
    }
}

/// Everything an interior-point solve returns, as bits.
fn ipm_outputs(s: &IpmSolver) -> Vec<Vec<u64>> {
    let st = s.stats();
    vec![
        vec![st.iterations as u64, st.centrality_correctors as u64],
        bits(&[st.rvio, st.bvio, st.residual, st.complementarity, st.merit, st.kappa]),
        bits(s.velocities()),
        bits(s.impulses()),
        bits(s.next_gaps()),
        bits(s.primal()),
        bits(s.dual()),
        bits(s.rvio_history()),
        bits(s.bvio_history()),
        bits(s.kappa_history()),
        bits(s.alpha_history()),
    ]
}

/// Sequential, then 1, 2 and 4 threads on fresh solvers and on one solver whose pool is reused
/// and re-created: every output and history the same bits.
fn check_ipm(name: &str, problem: &IpmProblem<'_>, base: IpmParameters) {
    let solve = |solver: &mut IpmSolver, threads| {
        solver.set_parameters(IpmParameters { num_threads: threads, ..base }).unwrap();
        solver.solve(problem).unwrap();
        ipm_outputs(solver)
    };
    let want = solve(&mut IpmSolver::default(), 0);
    assert!(want[0][0] > 0, "{name}: the solve iterates");
    for threads in [1, 2, 4] {
        assert!(solve(&mut IpmSolver::default(), threads) == want, "{name}: {threads} threads");
    }
    let mut reused = IpmSolver::default();
    for threads in [2, 2, 4, 0, 2] {
        assert!(solve(&mut reused, threads) == want, "{name}: reused, {threads} threads");
    }
}

/// The interior point's per-contact and per-tree passes (residuals, Nesterov–Todd scaling, the
/// condensed solves' two passes, cone step searches, neighbourhood test, natural map) run on the
/// pool from 32 contacts per thread (`docs/performance.md` §8): the piles' 200–1400 contacts with
/// 2 and 4 threads, the stack's 29 sequentially; the island phases in every scene with 2 islands
/// or more.
#[test]
fn ipm_engine_scenes_are_bit_identical_with_1_2_and_4_threads() {
    for s in engine_scenes::read_scenes() {
        let scene = IpmScene::new(&s);
        let problem = scene.problem(true);
        for base in [IpmParameters::default(), IpmParameters::engine()] {
            check_ipm(&s.name, &problem, base);
        }
    }
}

/// Random problems with free trees, all three contact models (a linear-model contact keeps the
/// condensed solves' passes sequential, the other passes still split), tangential offsets, and
/// enough contacts for the passes to split with 4 threads.
#[test]
fn ipm_random_problems_with_free_trees_and_every_model() {
    for (seed, ntree, nc, linear) in [(11, 300, 200, false), (12, 200, 300, true), (13, 8, 5, false)] {
        let p = tamsi_blocks::random(seed, ntree, nc);
        let mut rng = tamsi_blocks::Lcg::new(seed + 100);
        let models: Vec<ContactModel> = (0..nc)
            .map(|i| match i % 7 {
                3 => ContactModel::Impact,
                5 if linear => ContactModel::Linear,
                _ => ContactModel::SecondOrderCone,
            })
            .collect();
        let phi = DVector::from_fn(nc, |_, _| rng.range(-1e-3, 2e-3));
        let offset = DVector::from_fn(2 * nc, |_, _| rng.range(-0.01, 0.01));
        let tau = (&p.p_star - &p.m * &p.v0) / p.dt;
        let problem = IpmProblem {
            data: IpmData::Blocks(p.system()),
            v0: p.v0.as_view(),
            tau: tau.as_view(),
            h: p.dt,
            phi: phi.as_view(),
            mu: p.mu.as_view(),
            models: &models,
            vt_offset: Some(offset.as_view()),
        };
        for base in [IpmParameters::default(), IpmParameters::engine()] {
            check_ipm(&p.name, &problem, base);
        }
    }
}

#[test]
fn num_threads_is_validated() {
    let p = TamsiParameters { num_threads: 257, ..Default::default() };
    assert!(p.validate().unwrap_err().to_string().contains("num_threads"));
    assert!(TamsiParameters { num_threads: 256, ..Default::default() }.validate().is_ok());
    let p = IpmParameters { num_threads: 257, ..Default::default() };
    assert!(p.validate().unwrap_err().to_string().contains("num_threads"));
    assert!(IpmSolver::new(IpmParameters { num_threads: 256, ..Default::default() }).is_ok());
}
