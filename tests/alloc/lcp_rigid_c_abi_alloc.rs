//! Through the C ABI, a handle keeps its workspace: once it has grown to a problem's size,
//! repeated successful solves, getters and post-processing allocate nothing (`cts_lcp_*` with every
//! algorithm; `cts_rigid_*` at the acceleration level, for impacts and for the discretized
//! problem, with dense and callback operators). (Failing solves: `failing_c_solves_alloc`.) A
//! counting global allocator that sees only the measuring thread, so other tests may run meanwhile.
#![allow(unsafe_code)]

use support::rigid_c_support;

use crate::counting_alloc::allocations_during;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::lcp::*;
use contact_solvers::ffi::rigid::*;
use rigid_c_support::{CLcp, CRigid, Form};
use support::rod2d::{AccelOwned, DT, Rod2D, VelOwned};
use support::scene::Scene;

#[test]
fn repeated_c_solves_allocate_nothing() {
    assert!(
        allocations_during(|| drop(std::hint::black_box(vec![1u8; 16]))) > 0,
        "the counter sees allocations"
    );

    // LCP: an 80×80 symmetric positive definite LCP (every algorithm solves it), and the
    // impact LCP of a 10-body, 20-contact scene with the Lemke algorithms.
    let mut g = support::scene::Lcg::new(3);
    let a = nalgebra::DMatrix::from_fn(80, 80, |_, _| g.range(-1.0, 1.0));
    let spd = &a * a.transpose() + nalgebra::DMatrix::identity(80, 80);
    let q_spd: Vec<f64> = (0..80).map(|_| g.range(-1.0, 1.0)).collect();
    let scene = Scene::new(10, 20, 0, 0);
    let mut cs = contact_solvers::rigid::ConstraintSolver::new();
    cs.solve_impact_problem(&scene.view()).unwrap();
    let impact_mm = cs.lcp_matrix().into_owned();
    let impact_qq = cs.lcp_vector().to_vec();
    assert_eq!(impact_qq.len(), 80);
    let n = 80;
    let lcp = CLcp::new();
    let (mut z, mut w) = (vec![0.0; n], vec![0.0; n]);
    let spd_cases = [
        CTS_LCP_ALGORITHM_LEMKE,
        CTS_LCP_ALGORITHM_LEMKE_REGULARIZED,
        CTS_LCP_ALGORITHM_FAST,
        CTS_LCP_ALGORITHM_FAST_REGULARIZED,
        CTS_LCP_ALGORITHM_UNREVISED_LEMKE,
    ]
    .map(|alg| (alg, spd.as_slice(), &q_spd[..]));
    let impact_cases = [CTS_LCP_ALGORITHM_LEMKE, CTS_LCP_ALGORITHM_UNREVISED_LEMKE]
        .map(|alg| (alg, impact_mm.as_slice(), &impact_qq[..]));
    for (alg, mm, qq) in spd_cases.into_iter().chain(impact_cases) {
        let mut solve = || unsafe {
            let s = cts_lcp_solver_solve(lcp.0, alg, n, mm.as_ptr(), n, qq.as_ptr(), std::ptr::null());
            assert_eq!(s, cts_status::Ok, "algorithm {alg}");
            assert_eq!(cts_lcp_solver_get_z(lcp.0, z.as_mut_ptr(), n), cts_status::Ok);
            assert_eq!(cts_lcp_solver_get_w(lcp.0, w.as_mut_ptr(), n), cts_status::Ok);
        };
        solve();
        solve(); // the unrevised warm start refactors: faer sets up its kernels on first use
        assert_eq!(allocations_during(&mut solve), 0, "LCP algorithm {alg}");
    }

    // Rigid: acceleration level (LCP path), impact, discretized; dense and callbacks.
    let mut rod = Rod2D::resting_horizontal();
    rod.set_mu(0.0, 15.0);
    let mut accel = AccelOwned::fixture(&rod, 1, 1);
    accel.tau[0] += 100.0;
    let mut rod = Rod2D::sliding_impacting_horizontal(true);
    rod.set_mu(15.0, 15.0);
    let vel = VelOwned::fixture(&rod, 1, 1);
    for form in [Form::Dense, Form::Callbacks] {
        let mut h = CRigid::new(None);
        h.set_accel(&accel, form);
        h.set_vel(&vel, form);
        let (mut cf, mut out) = (vec![0.0; 64], [0.0; 3]);
        let mut run = |kind: usize| unsafe {
            let s = match kind {
                0 => cts_rigid_solver_solve_constraint_problem(h.h),
                1 => cts_rigid_solver_solve_impact_problem(h.h),
                _ => cts_rigid_solver_solve_discretized_problem(h.h, DT),
            };
            assert_eq!(s, cts_status::Ok, "{}", rigid_c_support::last_error(h.h));
            let len = cts_rigid_solver_num_constraint_forces(h.h);
            assert!(len > 0);
            assert_eq!(cts_rigid_solver_get_constraint_forces(h.h, cf.as_mut_ptr(), len), cts_status::Ok);
            let s = if kind == 0 {
                cts_rigid_solver_compute_generalized_acceleration(h.h, cf.as_ptr(), len, out.as_mut_ptr(), 3)
            } else {
                cts_rigid_solver_compute_generalized_velocity_change(
                    h.h,
                    cf.as_ptr(),
                    len,
                    out.as_mut_ptr(),
                    3,
                )
            };
            assert_eq!(s, cts_status::Ok);
        };
        for kind in 0..3 {
            run(kind);
            assert_eq!(allocations_during(|| run(kind)), 0, "rigid solve {kind} ({form:?})");
        }
    }
}
