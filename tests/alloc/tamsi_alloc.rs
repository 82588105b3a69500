//! A solve allocates nothing once the workspace has grown to the problem's size: a counting
//! global allocator watches the second solve of each problem (and `calc_jacobian`, and the
//! sensitivities: `compute_sensitivities`, `vjp` and the getters).

use support::tamsi_support;

use crate::counting_alloc::{POOL_TESTS, allocations_during, allocations_with_workers_during};
use contact_solvers::tamsi::{
    TamsiOutcome, TamsiParameters, TamsiProblem, TamsiSensitivityOutput, TamsiSensitivityParameter,
    TamsiSolver,
};
use nalgebra::{DMatrix, DMatrixView, DVector, DVectorView};
use tamsi_support::scenes::{Scene, pizza_saver, pizza_saver_no_contact, rolling_cylinder};

fn second_solve_allocations(solver: &mut TamsiSolver, scene: &Scene) -> usize {
    let problem = scene.problem();
    solver.solve_with_guess(&problem, scene.dt, scene.v0.as_view()).unwrap();
    allocations_during(|| {
        solver.solve_with_guess(&problem, scene.dt, scene.v0.as_view()).unwrap();
    })
}

#[test]
fn solves_do_not_allocate_once_grown() {
    // The counter works.
    assert!(allocations_during(|| drop(vec![1u8; 16])) > 0);

    let mut one_way = TamsiSolver::new(3);
    one_way
        .set_parameters(TamsiParameters {
            stiction_tolerance: 1e-6,
            relative_tolerance: 1e-4,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(second_solve_allocations(&mut one_way, &pizza_saver(6.0)), 0, "one-way");

    let mut no_contact = TamsiSolver::new(3);
    assert_eq!(second_solve_allocations(&mut no_contact, &pizza_saver_no_contact()), 0, "no contact");

    // Two-way with 64 contacts (within the initial capacity) and 256 (beyond it: the first
    // solve grows the workspace, the second does not allocate).
    let mut two_way = TamsiSolver::new(3);
    two_way.set_parameters(TamsiParameters { stiction_tolerance: 1e-6, ..Default::default() }).unwrap();
    for nc in [64, 256] {
        assert_eq!(
            second_solve_allocations(&mut two_way, &rolling_cylinder(0.5, nc)),
            0,
            "two-way nc = {nc}"
        );
    }

    // calc_jacobian, once grown.
    let scene = rolling_cylinder(0.7, 4);
    let mut j = DMatrix::zeros(3, 3);
    let problem = scene.problem();
    two_way.calc_jacobian(&problem, scene.dt, scene.v0.as_view(), j.as_view_mut()).unwrap();
    let n = allocations_during(|| {
        two_way.calc_jacobian(&problem, scene.dt, scene.v0.as_view(), j.as_view_mut()).unwrap();
    });
    assert_eq!(n, 0, "calc_jacobian");
}

#[test]
fn large_problem_solve_does_not_allocate() {
    // nv = 300 goes through the blocked LU (faer) with its preallocated stack.
    let cases = tamsi_support::bench_cases::load();
    let case = cases.iter().find(|c| c.nv == 300).expect("nv = 300 case");
    let (nv, nc) = (case.nv, case.nc);
    let m = DMatrixView::from_slice(case.get("M"), nv, nv);
    let jn = DMatrixView::from_slice(case.get("Jn"), nc, nv);
    let jt = DMatrixView::from_slice(case.get("Jt"), 2 * nc, nv);
    let v = |k: &str| DVectorView::from_slice(case.get(k), case.get(k).len());
    let problem =
        TamsiProblem::two_way(m, jn, jt, v("p_star"), v("fn0"), v("stiffness"), v("dissipation"), v("mu"))
            .unwrap();
    let mut solver = TamsiSolver::new(nv);
    solver.solve_with_guess(&problem, case.dt, v("guess")).unwrap();
    let n = allocations_during(|| {
        solver.solve_with_guess(&problem, case.dt, v("guess")).unwrap();
    });
    assert_eq!(n, 0);
}

/// Solve, full Jacobians, two vector–Jacobian products and every getter of `problem`, after one
/// round that grew the storage: the allocations of the second round.
fn sensitivity_round_allocations(
    solver: &mut TamsiSolver,
    problem: &TamsiProblem<'_>,
    dt: f64,
    guess: &DVector<f64>,
) -> usize {
    let nv = problem.num_velocities();
    let nc = problem.num_contacts();
    let g = [
        DVector::from_element(nv, 1.0),
        DVector::from_element(nc, 0.5),
        DVector::from_element(2 * nc, -0.25),
    ];
    let round = |solver: &mut TamsiSolver| {
        assert_eq!(solver.solve_with_guess(problem, dt, guess.as_view()).unwrap(), TamsiOutcome::Success);
        solver.compute_sensitivities(problem).unwrap();
        let mut sum = 0.0;
        for p in
            TamsiSensitivityParameter::ALL.into_iter().filter(|p| p.applies_to(problem.coupling_scheme()))
        {
            for o in TamsiSensitivityOutput::ALL {
                sum += solver.sensitivity(o, p).unwrap().sum();
            }
        }
        sum += solver.vjp(problem, g[0].as_view(), None, None).unwrap().dt();
        sum +=
            solver.vjp(problem, g[0].as_view(), Some(g[1].as_view()), Some(g[2].as_view())).unwrap().mu()[0];
        assert!(sum.is_finite());
    };
    round(solver);
    allocations_during(|| round(solver))
}

#[test]
fn sensitivities_do_not_allocate_once_grown() {
    let scene = pizza_saver(6.0);
    let mut one_way = TamsiSolver::new(3);
    let n = sensitivity_round_allocations(&mut one_way, &scene.problem(), scene.dt, &scene.v0);
    assert_eq!(n, 0, "one-way");

    let scene = rolling_cylinder(0.5, 4);
    let mut two_way = TamsiSolver::new(3);
    two_way.set_parameters(TamsiParameters { stiction_tolerance: 1e-6, ..Default::default() }).unwrap();
    let n = sensitivity_round_allocations(&mut two_way, &scene.problem(), scene.dt, &scene.v0);
    assert_eq!(n, 0, "two-way");

    // Block-sparse, with islands and free trees; the second problem has an island large enough
    // for the sparse factorization (its transposed solve included).
    for (seed, nc) in [(3, 10), (700, 24)] {
        let p = support::tamsi_blocks::random(seed, 12, nc);
        let problem = TamsiProblem::two_way_blocks(
            p.system(),
            p.p_star.as_view(),
            p.fn0.as_view(),
            p.stiffness.as_view(),
            p.dissipation.as_view(),
            p.mu.as_view(),
        )
        .unwrap();
        let mut block = TamsiSolver::new(p.nv());
        let n = sensitivity_round_allocations(&mut block, &problem, p.dt, &p.v0);
        assert_eq!(n, 0, "block-sparse two-way, {}", p.name);
    }
}

/// The threaded path (issue 31 item 1): block solves with 2 and 4 threads allocate nothing once
/// the workspace and the pool have grown, on this thread and on the pool's workers; the pool is
/// created by the first solve only. Also: a worker's allocation is counted.
#[test]
fn threaded_block_solves_do_not_allocate_once_grown() {
    let _pool_tests = POOL_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let pool = contact_solvers::parallel::WorkerPool::new(2).unwrap();
    let counted = allocations_with_workers_during(|| {
        // The caller's chunks sleep, so the worker takes the others; only the worker allocates.
        pool.run(64, &|_| {
            if std::thread::current().name().is_some_and(|n| n.starts_with("contact-solvers-")) {
                drop(std::hint::black_box(vec![1u8; 16]));
            } else {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        })
    });
    assert!(counted > 0, "a worker's allocation is counted");
    drop(pool);

    // pile100 t3.0 has a 576-dof island, factored with faer's blocked products: their per-thread
    // packing buffers are grown on every thread of the pool when it starts, so which thread
    // first factors that island does not matter. With one dominant island pile100 t3.0 now runs
    // on the calling thread alone (docs/performance.md §8, second pass); pile100 t1.0 (largest
    // island about half the cost) keeps supernodal islands on the pool.
    for name in [
        "pile50_seed1_t1.0",
        "arm7_pile30_seed1_t1.0",
        "stack5_jitter_seed1_t1.0",
        "pile100_seed1_t1.0",
        "pile100_seed1_t3.0",
    ] {
        let p = support::tamsi_blocks::from_scene_touching(&support::engine_scenes::scene(name));
        let problem = TamsiProblem::two_way_blocks(
            p.system(),
            p.p_star.as_view(),
            p.fn0.as_view(),
            p.stiffness.as_view(),
            p.dissipation.as_view(),
            p.mu.as_view(),
        )
        .unwrap();
        for threads in [2, 4] {
            let mut solver = TamsiSolver::new(p.nv());
            solver.set_parameters(TamsiParameters { num_threads: threads, ..Default::default() }).unwrap();
            let first = allocations_with_workers_during(|| {
                solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap();
            });
            assert!(first > 0, "{name}: the first solve grows the workspace and starts the pool");
            let v = solver.generalized_velocities().to_vec();
            // From the second solve on, nothing: each chunk of islands goes to whichever thread
            // claims it, so five solves see the large islands on different threads.
            let repeated = allocations_with_workers_during(|| {
                for _ in 0..5 {
                    assert_eq!(
                        solver.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap(),
                        TamsiOutcome::Success
                    );
                }
            });
            assert_eq!(repeated, 0, "{name}, {threads} threads: allocations in repeated solves");
            assert_eq!(solver.generalized_velocities(), &v[..], "{name}: same answer");
        }
    }
}
