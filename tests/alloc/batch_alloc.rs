//! A batch solve (`cts_tamsi_solver_solve_batch`, `cts_ipm_solver_solve_batch`,
//! `docs/c_api.md` §1.10) on the calling thread (`num_threads` 0 or 1) allocates nothing once
//! every handle has grown: the duplicate check uses a counter in each handle, not a copy of the
//! array. (With 2 threads or more, spawning the workers allocates their stacks and join handles;
//! the worlds themselves allocate nothing, as the single solves they are.)
#![allow(unsafe_code)]

use std::ptr::{null, null_mut};

use crate::counting_alloc::allocations_during;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::ipm::*;
use contact_solvers::ffi::tamsi::*;
use nalgebra::DVector;
use support::tamsi_blocks::{BlockProblem, random};

fn worlds() -> Vec<BlockProblem> {
    (0..12).map(|k| random(300 + k as u64, 3 + k % 8, 2 + (5 * k) % 11)).collect()
}

#[test]
fn tamsi_batch_on_the_calling_thread_allocates_nothing_once_grown() {
    let ws = worlds();
    let structures: Vec<_> = ws.iter().map(BlockProblem::c_structure).collect();
    let data: Vec<_> = ws.iter().zip(&structures).map(|(p, c)| c.data(p)).collect();
    let handles: Vec<*mut cts_tamsi_solver> = ws
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut h = null_mut();
            unsafe {
                assert_eq!(cts_tamsi_solver_new(p.nv(), &mut h), cts_status::Ok);
                let s = cts_tamsi_solver_set_two_way_coupled_block_problem_data(
                    h,
                    &data[i],
                    p.p_star.as_ptr(),
                    p.fn0.as_ptr(),
                    p.stiffness.as_ptr(),
                    p.dissipation.as_ptr(),
                    p.mu.as_ptr(),
                );
                assert_eq!(s, cts_status::Ok);
            }
            h
        })
        .collect();
    let dts: Vec<f64> = ws.iter().map(|p| p.dt).collect();
    let guesses: Vec<*const f64> = ws.iter().map(|p| p.v0.as_ptr()).collect();
    let nvs: Vec<usize> = ws.iter().map(BlockProblem::nv).collect();
    let mut statuses = vec![cts_status::Panic; ws.len()];
    let mut run = |threads| unsafe {
        cts_tamsi_solver_solve_batch(
            handles.as_ptr(),
            dts.as_ptr(),
            guesses.as_ptr(),
            nvs.as_ptr(),
            ws.len(),
            threads,
            statuses.as_mut_ptr(),
        )
    };
    assert_eq!(run(1), cts_status::Ok);
    for threads in [0, 1] {
        let mut s = cts_status::Panic;
        assert_eq!(allocations_during(|| s = run(threads)), 0, "{threads} threads");
        assert_eq!(s, cts_status::Ok);
    }
    assert!(statuses.iter().all(|&s| s == cts_status::Ok), "{statuses:?}");
    for h in handles {
        unsafe { cts_tamsi_solver_free(h) };
    }
}

#[test]
fn ipm_batch_on_the_calling_thread_allocates_nothing_once_grown() {
    let ws = worlds();
    let extra: Vec<(DVector<f64>, DVector<f64>, Vec<i32>)> = ws
        .iter()
        .map(|p| {
            let tau = DVector::from_fn(p.nv(), |i, _| -9.81 * (1.0 + (i % 3) as f64));
            let phi = DVector::from_fn(p.nc(), |i, _| 1e-3 * ((i % 4) as f64 - 1.0));
            (tau, phi, vec![CTS_IPM_MODEL_SECOND_ORDER_CONE; p.nc()])
        })
        .collect();
    let handles: Vec<*mut cts_ipm_solver> = ws
        .iter()
        .zip(&extra)
        .map(|(p, (tau, phi, models))| {
            let mut h = null_mut();
            unsafe {
                assert_eq!(cts_ipm_solver_new(&mut h), cts_status::Ok);
                let (n, nc) = (p.nv(), p.nc());
                let s = cts_ipm_solver_set_problem_data(
                    h,
                    n,
                    nc,
                    p.m.as_ptr(),
                    n,
                    p.jn.as_ptr(),
                    nc.max(1),
                    p.jt.as_ptr(),
                    (2 * nc).max(1),
                    p.v0.as_ptr(),
                    tau.as_ptr(),
                    p.dt,
                    phi.as_ptr(),
                    p.mu.as_ptr(),
                    models.as_ptr(),
                    null(),
                    0,
                );
                assert_eq!(s, cts_status::Ok);
            }
            h
        })
        .collect();
    // A world that ends with an outcome other than OK records a message (an allocation): time
    // the worlds that converge.
    let mut statuses = vec![cts_status::Panic; ws.len()];
    let s = unsafe {
        cts_ipm_solver_solve_batch(handles.as_ptr(), null(), null(), ws.len(), 0, statuses.as_mut_ptr())
    };
    assert_eq!(s, cts_status::Ok);
    let converged: Vec<*mut cts_ipm_solver> =
        handles.iter().zip(&statuses).filter(|&(_, &s)| s == cts_status::Ok).map(|(&h, _)| h).collect();
    assert!(converged.len() >= 10, "{statuses:?}");
    let mut statuses = vec![cts_status::Panic; converged.len()];
    let mut run = |threads| unsafe {
        cts_ipm_solver_solve_batch(
            converged.as_ptr(),
            null(),
            null(),
            converged.len(),
            threads,
            statuses.as_mut_ptr(),
        )
    };
    assert_eq!(run(1), cts_status::Ok);
    for threads in [0, 1] {
        let mut s = cts_status::Panic;
        assert_eq!(allocations_during(|| s = run(threads)), 0, "{threads} threads");
        assert_eq!(s, cts_status::Ok);
    }
    assert!(statuses.iter().all(|&s| s == cts_status::Ok), "{statuses:?}");
    for h in handles {
        unsafe { cts_ipm_solver_free(h) };
    }
}
