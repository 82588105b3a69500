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
use support::batch_worlds::World;

fn worlds() -> Vec<World> {
    (0..12).map(|k| World::random(300 + k as u64, 3 + k % 8, 2 + (5 * k) % 11)).collect()
}

/// Runs `batch(threads)` once to grow, then checks that `num_threads` 0 and 1 allocate nothing
/// and leave every world OK.
fn allocates_nothing_once_grown(
    mut batch: impl FnMut(usize) -> cts_status,
    statuses: impl Fn() -> Vec<cts_status>,
) {
    assert_eq!(batch(1), cts_status::Ok);
    for threads in [0, 1] {
        let mut s = cts_status::Panic;
        assert_eq!(allocations_during(|| s = batch(threads)), 0, "{threads} threads");
        assert_eq!(s, cts_status::Ok);
    }
    let st = statuses();
    assert!(st.iter().all(|&s| s == cts_status::Ok), "{st:?}");
}

#[test]
fn tamsi_batch_on_the_calling_thread_allocates_nothing_once_grown() {
    let ws = worlds();
    let data: Vec<_> = ws.iter().map(World::blocks).collect();
    let handles: Vec<*mut cts_tamsi_solver> = ws
        .iter()
        .zip(&data)
        .map(|(w, d)| {
            let mut h = null_mut();
            assert_eq!(unsafe { cts_tamsi_solver_new(w.p.nv(), &mut h) }, cts_status::Ok);
            assert_eq!(unsafe { w.set_tamsi(h, Some(d)) }, cts_status::Ok);
            h
        })
        .collect();
    let dts: Vec<f64> = ws.iter().map(|w| w.p.dt).collect();
    let guesses: Vec<*const f64> = ws.iter().map(|w| w.p.v0.as_ptr()).collect();
    let nvs: Vec<usize> = ws.iter().map(|w| w.p.nv()).collect();
    let statuses = std::cell::RefCell::new(vec![cts_status::Panic; ws.len()]);
    allocates_nothing_once_grown(
        |threads| unsafe {
            let (h, d, g, n) = (handles.as_ptr(), dts.as_ptr(), guesses.as_ptr(), nvs.as_ptr());
            cts_tamsi_solver_solve_batch(h, d, g, n, ws.len(), threads, statuses.borrow_mut().as_mut_ptr())
        },
        || statuses.borrow().clone(),
    );
    for h in handles {
        unsafe { cts_tamsi_solver_free(h) };
    }
}

#[test]
fn ipm_batch_on_the_calling_thread_allocates_nothing_once_grown() {
    let ws = worlds();
    let handles: Vec<*mut cts_ipm_solver> = ws.iter().map(World::ipm_handle).collect();
    // A world that ends with an outcome other than OK records a message (an allocation): time
    // the worlds that converge.
    let mut first = vec![cts_status::Panic; ws.len()];
    let s = unsafe {
        cts_ipm_solver_solve_batch(handles.as_ptr(), null(), null(), ws.len(), 0, first.as_mut_ptr())
    };
    assert_eq!(s, cts_status::Ok);
    let converged: Vec<*mut cts_ipm_solver> =
        handles.iter().zip(&first).filter(|&(_, &s)| s == cts_status::Ok).map(|(&h, _)| h).collect();
    assert!(converged.len() >= 10, "{first:?}");
    let statuses = std::cell::RefCell::new(vec![cts_status::Panic; converged.len()]);
    allocates_nothing_once_grown(
        |threads| unsafe {
            let out = statuses.borrow_mut().as_mut_ptr();
            cts_ipm_solver_solve_batch(converged.as_ptr(), null(), null(), converged.len(), threads, out)
        },
        || statuses.borrow().clone(),
    );
    for h in handles {
        unsafe { cts_ipm_solver_free(h) };
    }
}
