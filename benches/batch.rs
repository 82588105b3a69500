//! Many worlds in one call (`cts_tamsi_solver_solve_batch`, `cts_ipm_solver_solve_batch`;
//! `docs/performance.md` §7): 256 independent worlds of nv 6–60 (random block problems of
//! `support::tamsi_blocks::random`, set as dense data through the C ABI), solved per iteration as
//! a loop of single C calls, as one batch on the calling thread and as one batch on 2 threads.
//! The figure is the loop's time over the 2-thread batch's (target >= 1.7 on 2 cores). Every
//! world starts from the same guess each iteration, so each iteration does the same work.

#![allow(unsafe_code)]

use std::ptr::null;

use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::ipm::*;
use contact_solvers::ffi::tamsi::*;
use criterion::{Criterion, criterion_group, criterion_main};
use support::batch_worlds::World;

const WORLDS: usize = 256;

/// Candidate `k`: 2–11 trees of 1–9 dofs, 2–13 contacts; the first 256 with 6 <= nv <= 60.
fn worlds() -> Vec<World> {
    let ws: Vec<World> = (0..)
        .map(|k: usize| World::random(7000 + k as u64, 2 + k % 10, 2 + (3 * k) % 12))
        .filter(|w| (6..=60).contains(&w.p.nv()))
        .take(WORLDS)
        .collect();
    let nv: Vec<usize> = ws.iter().map(|w| w.p.nv()).collect();
    eprintln!(
        "{WORLDS} worlds, nv {}..{} (mean {:.1})",
        nv.iter().min().unwrap(),
        nv.iter().max().unwrap(),
        nv.iter().sum::<usize>() as f64 / WORLDS as f64
    );
    ws
}

fn tamsi(c: &mut Criterion) {
    let ws = worlds();
    let handles: Vec<*mut cts_tamsi_solver> = ws.iter().map(World::tamsi_handle).collect();
    let dts: Vec<f64> = ws.iter().map(|w| w.p.dt).collect();
    let guesses: Vec<*const f64> = ws.iter().map(|w| w.p.v0.as_ptr()).collect();
    let nvs: Vec<usize> = ws.iter().map(|w| w.p.nv()).collect();
    let mut statuses = vec![cts_status::Panic; WORLDS];
    let batch = |threads: usize, statuses: &mut [cts_status]| unsafe {
        let s = cts_tamsi_solver_solve_batch(
            handles.as_ptr(),
            dts.as_ptr(),
            guesses.as_ptr(),
            nvs.as_ptr(),
            WORLDS,
            threads,
            statuses.as_mut_ptr(),
        );
        assert_eq!(s, cts_status::Ok);
    };
    batch(2, &mut statuses);
    let ok = statuses.iter().filter(|&&s| s == cts_status::Ok).count();
    eprintln!("TAMSI: {ok} of {WORLDS} worlds converge");
    let mut group = c.benchmark_group("batch_tamsi_256_worlds");
    group.sample_size(20);
    group.bench_function("loop_of_single_calls", |b| {
        b.iter(|| {
            for i in 0..WORLDS {
                unsafe { cts_tamsi_solver_solve_with_guess(handles[i], dts[i], guesses[i], nvs[i]) };
            }
        })
    });
    group.bench_function("batch_1_thread", |b| b.iter(|| batch(1, &mut statuses)));
    group.bench_function("batch_2_threads", |b| b.iter(|| batch(2, &mut statuses)));
    group.finish();
    for h in handles {
        unsafe { cts_tamsi_solver_free(h) };
    }
}

fn ipm(c: &mut Criterion) {
    let ws = worlds();
    let handles: Vec<*mut cts_ipm_solver> = ws.iter().map(World::ipm_handle).collect();
    let mut statuses = vec![cts_status::Panic; WORLDS];
    let batch = |threads: usize, statuses: &mut [cts_status]| unsafe {
        let s = cts_ipm_solver_solve_batch(
            handles.as_ptr(),
            null(),
            null(),
            WORLDS,
            threads,
            statuses.as_mut_ptr(),
        );
        assert_eq!(s, cts_status::Ok);
    };
    batch(2, &mut statuses);
    let ok = statuses.iter().filter(|&&s| s == cts_status::Ok).count();
    eprintln!("interior point: {ok} of {WORLDS} worlds converge");
    let mut group = c.benchmark_group("batch_ipm_256_worlds");
    group.sample_size(10);
    group.bench_function("loop_of_single_calls", |b| {
        b.iter(|| {
            for &h in &handles {
                unsafe { cts_ipm_solver_solve(h) };
            }
        })
    });
    group.bench_function("batch_2_threads", |b| b.iter(|| batch(2, &mut statuses)));
    group.finish();
    for h in handles {
        unsafe { cts_ipm_solver_free(h) };
    }
}

criterion_group!(benches, tamsi, ipm);
criterion_main!(benches);
