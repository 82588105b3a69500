//! The solves' hot paths run inside the SIMD dispatch (issue 29, `docs/performance.md` §3
//! "Second pass"): a repeated solve makes no call to the C library's `fma` when the dispatch
//! runs its FMA version. A kernel compiled outside the dispatch turns each `f64::mul_add` into
//! such a call (the one-thread island phase did: 2× the instructions of a TAMSI iteration),
//! which `counting_fma` counts.

use crate::counting_alloc::POOL_TESTS;
use crate::counting_fma::{dispatch_has_fma, fma_calls_during};
use contact_solvers::ipm::{IpmOutcome, IpmParameters, IpmSolver};
use contact_solvers::tamsi::{TamsiParameters, TamsiProblem, TamsiSolver};
use support::engine_scenes::scene;
use support::ipm_blocks::IpmScene;
use support::tamsi_blocks::from_scene_touching;

/// pile50 t1.0: sparse and dense islands; stack5: one 30-dof sparse island; arm7: a 7-dof tree
/// (not a free body) among free bodies.
const SCENES: [&str; 3] = ["pile50_seed1_t1.0", "stack5_jitter_seed1_t1.0", "arm7_pile30_seed1_t1.0"];

#[test]
fn counter_sees_fma_outside_the_dispatch() {
    // This test crate is compiled for the baseline x86-64 (no FMA): `mul_add` here is a call.
    let (a, b, c) = std::hint::black_box((1.5f64, 2.0f64, 0.25f64));
    let mut r = 0.0;
    let calls = fma_calls_during(|| r = a.mul_add(b, c));
    assert_eq!(r, 3.25);
    if cfg!(all(target_arch = "x86_64", not(target_feature = "fma"))) {
        assert_eq!(calls, 1, "the counting fma replaces libm's");
    }
}

#[test]
fn block_tamsi_solves_call_no_fma() {
    if !dispatch_has_fma() {
        eprintln!("skipped: the CPU has no AVX2 + FMA, the dispatch runs the baseline version");
        return;
    }
    // Pools are created here: no other test's pool measurement may see their workers allocate.
    let _pool_tests = POOL_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    for name in SCENES {
        let p = from_scene_touching(&scene(name));
        let problem = p.two_way();
        let one_way =
            TamsiProblem::one_way_blocks(p.system(), p.p_star.as_view(), p.fn0.as_view(), p.mu.as_view())
                .expect("valid one-way block problem");
        // Two-way: LU islands; one-way: LDLᵀ islands. One thread (the default) and two.
        for (scheme, problem) in [("two-way", &problem), ("one-way", &one_way)] {
            for threads in [1, 2] {
                let mut solver = TamsiSolver::new(p.nv());
                solver
                    .set_parameters(TamsiParameters { num_threads: threads, ..Default::default() })
                    .unwrap();
                solver.solve_with_guess(problem, p.dt, p.v0.as_view()).unwrap();
                let calls = fma_calls_during(|| {
                    solver.solve_with_guess(problem, p.dt, p.v0.as_view()).unwrap();
                });
                assert_eq!(calls, 0, "{name} {scheme} {threads} thread(s): calls to libm's fma in a solve");
            }
        }
    }
}

/// The interior point's block solve at the engine preset, likewise. Failed before
/// `ipm::solver::engine::scales` (the per-solve Delassus diagonals, `J_i v` through
/// `ContactRows::velocity`) was inlined into the dispatch: 19 740 calls to `fma` in a solve of
/// pile50 t1.0 (`docs/performance.md` §3 "Third pass").
#[test]
fn block_ipm_solves_call_no_fma() {
    if !dispatch_has_fma() {
        eprintln!("skipped: the CPU has no AVX2 + FMA, the dispatch runs the baseline version");
        return;
    }
    // With 2 threads the per-contact and per-tree passes and the island phases run on the pool
    // (pile50 and the arm: from 32 contacts per thread); this thread runs its share of each.
    for (name, threads) in SCENES.iter().flat_map(|&n| [(n, 0), (n, 2)]) {
        let sc = IpmScene::new(&scene(name));
        let problem = sc.problem(true);
        let mut s =
            IpmSolver::new(IpmParameters { num_threads: threads, ..IpmParameters::engine() }).unwrap();
        assert_eq!(s.solve(&problem).unwrap(), IpmOutcome::Converged, "{name}");
        let calls = fma_calls_during(|| {
            s.solve(&problem).unwrap();
        });
        assert_eq!(calls, 0, "{name}, {threads} threads: calls to libm's fma in an interior-point solve");
    }
}
