//! Through the C ABI, a solve that ends with a solver outcome other than OK (TAMSI's iteration
//! limit, the interior point's, Lemke's ray termination) records its detail in the handle's
//! error slot without allocating once the slot and the thread's message buffer have grown
//! (`docs/c_api.md` §1.5): an engine whose steps sometimes fail to converge allocates nothing in
//! them. The detail is still the full message. A counting global allocator watches this thread.
#![allow(unsafe_code)]

use std::ffi::CStr;

use crate::counting_alloc::allocations_during;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::ipm::*;
use contact_solvers::ffi::lcp::*;
use contact_solvers::ffi::tamsi::*;
use support::batch_worlds::World;

/// Runs `solve` three times (the first grows the workspace, the slot and the message buffer) and
/// returns the allocations of the third.
fn third_run_allocations(mut solve: impl FnMut()) -> usize {
    solve();
    solve();
    allocations_during(&mut solve)
}

#[test]
fn failing_c_solves_record_their_detail_without_allocating() {
    assert!(allocations_during(|| drop(std::hint::black_box(vec![1u8; 16]))) > 0, "the counter works");
    let w = World::random(7003, 5, 8);
    let nv = w.p.nv();

    // TAMSI: one Newton update allowed.
    let h = w.tamsi_handle();
    let mut p = std::mem::MaybeUninit::<cts_tamsi_parameters>::uninit();
    unsafe { cts_tamsi_parameters_default(p.as_mut_ptr()) };
    let mut p = unsafe { p.assume_init() };
    p.max_iterations = 1;
    assert_eq!(unsafe { cts_tamsi_solver_set_parameters(h, &p) }, cts_status::Ok);
    let solve = || {
        let s = unsafe { cts_tamsi_solver_solve_with_guess(h, w.p.dt, w.p.v0.as_ptr(), nv) };
        assert_eq!(s, cts_status::MaxIterationsReached);
    };
    assert_eq!(third_run_allocations(solve), 0, "TAMSI at its iteration limit");
    let message = unsafe { CStr::from_ptr(cts_tamsi_solver_last_error(h)) }.to_str().unwrap();
    assert!(
        message.starts_with("cts_tamsi_solver_solve_with_guess: MaxIterationsReached after 1 Newton updates"),
        "{message}"
    );
    unsafe { cts_tamsi_solver_free(h) };

    // The interior point: one iteration allowed.
    let h = w.ipm_handle();
    let mut p = std::mem::MaybeUninit::<cts_ipm_parameters>::uninit();
    unsafe { cts_ipm_parameters_default(p.as_mut_ptr()) };
    let mut p = unsafe { p.assume_init() };
    p.max_iter = 1;
    assert_eq!(unsafe { cts_ipm_solver_set_parameters(h, &p) }, cts_status::Ok);
    let mut status = cts_status::Ok;
    let solve = || status = unsafe { cts_ipm_solver_solve(h) };
    assert_eq!(third_run_allocations(solve), 0, "interior point at its iteration limit");
    assert_ne!(status, cts_status::Ok);
    let message = unsafe { CStr::from_ptr(cts_ipm_solver_last_error(h)) }.to_str().unwrap();
    assert!(
        message.starts_with("cts_ipm_solver_solve: ") && message.contains("after 1 iterations"),
        "{message}"
    );
    unsafe { cts_ipm_solver_free(h) };

    // Lemke on an LCP without a solution (M = -I, q = -1): ray termination.
    let mut h = std::ptr::null_mut();
    assert_eq!(unsafe { cts_lcp_solver_new(&mut h) }, cts_status::Ok);
    let (m, q) = ([-1.0, 0.0, 0.0, -1.0], [-1.0, -1.0]);
    let mut status = cts_status::Ok;
    let solve = || {
        status = unsafe {
            cts_lcp_solver_solve(h, CTS_LCP_ALGORITHM_LEMKE, 2, m.as_ptr(), 2, q.as_ptr(), std::ptr::null())
        }
    };
    assert_eq!(third_run_allocations(solve), 0, "Lemke without a solution");
    assert_ne!(status, cts_status::Ok);
    let message = unsafe { CStr::from_ptr(cts_lcp_solver_last_error(h)) }.to_str().unwrap();
    assert!(message.starts_with("cts_lcp_solver_solve: ") && message.contains("(n = 2, "), "{message}");
    unsafe { cts_lcp_solver_free(h) };
}
