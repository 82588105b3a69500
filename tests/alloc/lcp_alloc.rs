//! A counting global allocator: once a solver's workspace has grown to a problem's size,
//! repeating the solve allocates nothing (DESIGN.md: "No allocation inside a solve once the
//! workspace has grown"). The counter sees only the measuring thread, so other tests may run meanwhile.

use crate::counting_alloc::allocations_during;
use contact_solvers::lcp::{
    LcpProblem, LemkeVariant, MobyLcpParameters, MobyLcpSolver, RegularizationSchedule, UnrevisedLemkeSolver,
};
use contact_solvers::rigid::{ConstraintSolver, ConstraintSolverParameters, Operator, RigidOutcome};
use nalgebra::{DMatrix, DVector};
use support::rod2d::{AccelOwned, Rod2D};
use support::scene::Scene;

#[test]
fn repeated_solves_allocate_nothing() {
    // The counter sees allocations.
    assert!(allocations_during(|| drop(std::hint::black_box(vec![1u8; 16]))) > 0);
    // A first solve of a bigger problem does allocate (the workspace grows).
    let big = Scene::new(12, 24, 0, 1);
    assert!(allocations_during(|| drop(ConstraintSolver::new().solve_impact_problem(&big.view()))) > 0);

    // LCP solvers on an impact LCP of a 20-contact scene (n = 80) and on a degenerate LCP.
    let scene = Scene::new(10, 20, 0, 0);
    let mut cs = ConstraintSolver::new();
    assert_eq!(cs.solve_impact_problem(&scene.view()), Ok(RigidOutcome::Solved));
    let mm = cs.lcp_matrix().into_owned();
    let qq = DVector::from_column_slice(cs.lcp_vector());
    let p = LcpProblem::new(mm.as_view(), qq.as_view()).unwrap();
    let cyc = DMatrix::from_row_slice(3, 3, &[1.0, 2.0, 0.0, 0.0, 1.0, 2.0, 2.0, 0.0, 1.0]);
    let q3 = DVector::from_element(3, -1.0);
    let p3 = LcpProblem::new(cyc.as_view(), q3.as_view()).unwrap();

    let mut moby = MobyLcpSolver::new();
    let mut lex = MobyLcpSolver::with_parameters(MobyLcpParameters {
        variant: LemkeVariant::Lexicographic,
        ..Default::default()
    })
    .unwrap();
    let mut unrevised = UnrevisedLemkeSolver::new();
    let mut all = || {
        moby.solve_lemke(&p);
        moby.solve_lemke_regularized(&p, RegularizationSchedule::LEMKE_DEFAULT).unwrap();
        moby.solve_fast(&p);
        moby.solve_fast_regularized(&p3, RegularizationSchedule::FAST_DEFAULT).unwrap();
        lex.solve_lemke(&p);
        unrevised.clear_warm_start();
        unrevised.solve(&p);
        unrevised.clear_warm_start();
        unrevised.solve(&p3);
    };
    all();
    assert_eq!(allocations_during(&mut all), 0, "LCP solvers");

    // ConstraintSolver: impact, discretized and post-processing with dense operators.
    let mut cs = ConstraintSolver::new();
    let v = scene.view();
    let mut out = vec![0.0; scene.mv.len()];
    let mut cf = vec![0.0; 0];
    let mut impact = |cf: &mut Vec<f64>| {
        assert_eq!(cs.solve_impact_problem(&v), Ok(RigidOutcome::Solved));
        if cf.len() != cs.cf().len() {
            cf.resize(cs.cf().len(), 0.0);
        }
        cf.copy_from_slice(cs.cf());
        cs.compute_generalized_velocity_change(&v, cf, &mut out).unwrap();
        // Solvability is not the point here (a random scene); the full path runs either way.
        cs.solve_discretized(&v, 1e-3).unwrap();
    };
    impact(&mut cf);
    assert_eq!(allocations_during(|| impact(&mut cf)), 0, "impact + discretized");

    // Acceleration level with a bilateral constraint given as callbacks, both block operators.
    let mut rod = Rod2D::resting_vertical();
    rod.v[0] = 1.0;
    rod.set_mu(0.1, rod.mu_static);
    let mut d = AccelOwned::rod(&rod);
    d.k_g = DVector::from_vec(vec![0.5]);
    let gm = |w: &[f64], y: &mut [f64]| y[0] = w[2];
    let gt = |f: &[f64], y: &mut [f64]| y[2] = f[0];
    let mut view = d.view();
    view.g_mult = Operator::Callback(&gm);
    view.g_transpose_mult = Operator::Callback(&gt);
    for params in [ConstraintSolverParameters::default(), ConstraintSolverParameters::DRAKE_HEAD] {
        let mut cs = ConstraintSolver::with_parameters(params);
        let mut ga = [0.0; 3];
        let mut cf = [0.0; 2];
        let mut accel = || {
            assert_eq!(cs.solve_constraint_problem(&view), Ok(RigidOutcome::Solved));
            cf.copy_from_slice(cs.cf());
            cs.compute_generalized_acceleration(&view, &cf, &mut ga).unwrap();
        };
        accel();
        assert_eq!(allocations_during(&mut accel), 0, "acceleration level");
    }
}
