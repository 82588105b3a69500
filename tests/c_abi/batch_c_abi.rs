//! Many worlds in one call (`cts_tamsi_solver_solve_batch`, `cts_ipm_solver_solve_batch`,
//! `docs/c_api.md` §1.10): on dense and block data, for 0, 1, 2 and 4 threads, a batch gives
//! every world the status, last error and results of calling its single solve in turn, bit for
//! bit; a failing world (no data, a NaN guess, a wrong length, an iteration limit) leaves the
//! others exact; NULL and duplicated handles, a count of 0 or 2^36 and NULL arrays give statuses.
#![allow(unsafe_code)]

use std::ffi::CStr;
use std::ptr::{NonNull, null, null_mut};

use contact_solvers::ffi::block_sparse::cts_block_sparse_data;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::ipm::*;
use contact_solvers::ffi::tamsi::*;
use support::batch_worlds::World;

const THREADS: [usize; 4] = [0, 1, 2, 4];

/// `n` worlds of different sizes (4–13 trees, 3–21 contacts).
fn worlds(n: usize) -> Vec<World> {
    (0..n).map(|k| World::random(100 + k as u64, 4 + k % 10, 3 + (2 * k) % 19)).collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

// ---------------------------------------------------------------------------------------------
// TAMSI
// ---------------------------------------------------------------------------------------------

struct Tamsi(*mut cts_tamsi_solver);

impl Drop for Tamsi {
    fn drop(&mut self) {
        unsafe { cts_tamsi_solver_free(self.0) }
    }
}

impl Tamsi {
    fn new(w: &World) -> Self {
        let mut h = null_mut();
        assert_eq!(unsafe { cts_tamsi_solver_new(w.p.nv(), &mut h) }, cts_status::Ok);
        Self(h)
    }

    /// Sets `w`'s two-way data, dense or in block form (`data` must outlive the solves).
    fn set(&self, w: &World, data: Option<&cts_block_sparse_data>) {
        assert_eq!(unsafe { w.set_tamsi(self.0, data) }, cts_status::Ok);
    }

    fn last_error(&self) -> String {
        unsafe { CStr::from_ptr(cts_tamsi_solver_last_error(self.0)) }.to_string_lossy().into_owned()
    }

    /// Everything a caller can read after a solve, as bits and text (NaN-safe equality).
    fn results(&self) -> (Vec<(i32, Vec<u64>)>, String) {
        let (nv, nc) =
            unsafe { (cts_tamsi_solver_num_velocities(self.0), cts_tamsi_solver_num_contacts(self.0)) };
        type Getter = unsafe extern "C" fn(*const cts_tamsi_solver, *mut f64, usize) -> cts_status;
        let getters: [(Getter, usize); 4] = [
            (cts_tamsi_solver_get_generalized_velocities, nv),
            (cts_tamsi_solver_get_normal_forces, nc),
            (cts_tamsi_solver_get_friction_forces, 2 * nc),
            (cts_tamsi_solver_get_generalized_contact_forces, nv),
        ];
        let mut out: Vec<(i32, Vec<u64>)> = getters
            .iter()
            .map(|&(get, n)| {
                let mut v = vec![0.0; n];
                let s = unsafe { get(self.0, v.as_mut_ptr(), n) };
                (s as i32, bits(&v))
            })
            .collect();
        let mut residuals = vec![0.0; 200];
        let mut count = 0;
        let s = unsafe { cts_tamsi_solver_get_residuals(self.0, residuals.as_mut_ptr(), 200, &mut count) };
        residuals.truncate(count.min(200));
        out.push((s as i32, bits(&residuals)));
        (out, self.last_error())
    }
}

/// Solves `handles` world by world with the single call, then a fresh copy of the same worlds
/// with one batch call on `threads` threads, and checks statuses, last errors and results.
fn tamsi_batch_equals_loop(
    ws: &[World],
    blocks: bool,
    threads: usize,
    guesses: &[Vec<f64>],
    dts: &[f64],
) -> Vec<cts_status> {
    let data: Vec<cts_block_sparse_data> = ws.iter().map(World::blocks).collect();
    let make = || {
        let hs: Vec<Tamsi> = ws.iter().map(Tamsi::new).collect();
        for (i, (h, w)) in hs.iter().zip(ws).enumerate() {
            h.set(w, blocks.then(|| &data[i]));
        }
        hs
    };
    let (single, batched) = (make(), make());
    let ptrs: Vec<*const f64> = guesses.iter().map(|g| g.as_ptr()).collect();
    let nvs: Vec<usize> = guesses.iter().map(Vec::len).collect();
    let want: Vec<cts_status> = single
        .iter()
        .enumerate()
        .map(|(i, h)| unsafe { cts_tamsi_solver_solve_with_guess(h.0, dts[i], ptrs[i], nvs[i]) })
        .collect();
    let handles: Vec<*mut cts_tamsi_solver> = batched.iter().map(|h| h.0).collect();
    let mut got = vec![cts_status::Panic; ws.len()];
    let s = unsafe {
        cts_tamsi_solver_solve_batch(
            handles.as_ptr(),
            dts.as_ptr(),
            ptrs.as_ptr(),
            nvs.as_ptr(),
            ws.len(),
            threads,
            got.as_mut_ptr(),
        )
    };
    assert_eq!(s, cts_status::Ok);
    assert_eq!(got, want, "blocks {blocks}, {threads} threads");
    for (i, (a, b)) in single.iter().zip(&batched).enumerate() {
        assert_eq!(a.results(), b.results(), "world {i}, blocks {blocks}, {threads} threads");
    }
    got
}

#[test]
fn tamsi_batch_is_the_loop_of_single_solves_bit_for_bit() {
    let ws = worlds(11);
    let guesses: Vec<Vec<f64>> = ws.iter().map(|w| w.p.v0.as_slice().to_vec()).collect();
    let dts: Vec<f64> = ws.iter().enumerate().map(|(i, w)| w.p.dt * (1.0 + 0.25 * (i % 3) as f64)).collect();
    for blocks in [false, true] {
        for threads in THREADS {
            let got = tamsi_batch_equals_loop(&ws, blocks, threads, &guesses, &dts);
            assert!(got.iter().all(|&s| s == cts_status::Ok), "{got:?}");
        }
    }
}

#[test]
fn tamsi_failing_worlds_leave_the_others_exact() {
    let ws = worlds(8);
    let mut guesses: Vec<Vec<f64>> = ws.iter().map(|w| w.p.v0.as_slice().to_vec()).collect();
    let mut dts: Vec<f64> = ws.iter().map(|w| w.p.dt).collect();
    guesses[1][0] = f64::NAN; // a NaN guess
    guesses[3].pop(); // a guess of the wrong length
    dts[5] = -1.0; // a bad time step
    for blocks in [false, true] {
        for threads in THREADS {
            let got = tamsi_batch_equals_loop(&ws, blocks, threads, &guesses, &dts);
            let expect_bad = [
                (1, cts_status::InvalidArgument),
                (3, cts_status::DimensionMismatch),
                (5, cts_status::InvalidArgument),
            ];
            for (i, s) in got.iter().enumerate() {
                let bad = expect_bad.iter().find(|(j, _)| *j == i).map(|&(_, s)| s);
                assert_eq!(*s, bad.unwrap_or(cts_status::Ok), "world {i}: {got:?}");
            }
        }
    }
}

#[test]
fn tamsi_null_duplicated_and_unset_handles_are_per_world_statuses() {
    let ws = worlds(5);
    let data: Vec<cts_block_sparse_data> = ws.iter().map(World::blocks).collect();
    let hs: Vec<Tamsi> = ws.iter().map(Tamsi::new).collect();
    for (i, h) in hs.iter().enumerate().skip(1) {
        h.set(&ws[i], Some(&data[i]));
    }
    let reference = Tamsi::new(&ws[4]);
    reference.set(&ws[4], Some(&data[4]));
    let g4 = ws[4].p.v0.as_slice().to_vec();
    assert_eq!(
        unsafe { cts_tamsi_solver_solve_with_guess(reference.0, ws[4].p.dt, g4.as_ptr(), g4.len()) },
        cts_status::Ok
    );
    // Worlds: hs[0] (no data), NULL, hs[2] twice, hs[3] (max_iterations 0), hs[4].
    let mut p = cts_tamsi_parameters {
        stiction_tolerance: 0.0,
        max_iterations: 0,
        relative_tolerance: 0.0,
        theta_max: 0.0,
        num_threads: 0,
    };
    unsafe { cts_tamsi_parameters_default(&mut p) };
    p.max_iterations = 0;
    assert_eq!(unsafe { cts_tamsi_solver_set_parameters(hs[3].0, &p) }, cts_status::Ok);
    let handles = [hs[0].0, null_mut(), hs[2].0, hs[3].0, hs[2].0, hs[4].0];
    let order = [0, 1, 2, 3, 2, 4];
    let guesses: Vec<Vec<f64>> = order.iter().map(|&k| ws[k].p.v0.as_slice().to_vec()).collect();
    let ptrs: Vec<*const f64> = guesses.iter().map(|g| g.as_ptr()).collect();
    let nvs: Vec<usize> = guesses.iter().map(Vec::len).collect();
    let dts: Vec<f64> = order.iter().map(|&k| ws[k].p.dt).collect();
    for threads in THREADS {
        let mut got = [cts_status::Panic; 6];
        let s = unsafe {
            cts_tamsi_solver_solve_batch(
                handles.as_ptr(),
                dts.as_ptr(),
                ptrs.as_ptr(),
                nvs.as_ptr(),
                6,
                threads,
                got.as_mut_ptr(),
            )
        };
        assert_eq!(s, cts_status::Ok);
        use cts_status::*;
        assert_eq!(
            got,
            [NoProblemData, NullPointer, InvalidArgument, MaxIterationsReached, InvalidArgument, Ok]
        );
        assert!(hs[0].last_error().contains("cts_tamsi_solver_solve_with_guess"), "{}", hs[0].last_error());
        let dup = hs[2].last_error();
        assert!(
            dup.starts_with("cts_tamsi_solver_solve_batch: solvers[4]: this handle appears 2 times"),
            "{dup}"
        );
        // A duplicated handle was not solved; the others are exactly the single call's.
        let mut v = vec![0.0; ws[2].p.nv()];
        assert_eq!(
            unsafe { cts_tamsi_solver_get_generalized_velocities(hs[2].0, v.as_mut_ptr(), v.len()) },
            NoSolution
        );
        assert_eq!(hs[4].results(), reference.results());
    }
    // The marks were reset: the same handles, once each, run in a later batch.
    let handles = [hs[2].0, hs[4].0];
    let (g2, g4) = (ws[2].p.v0.as_slice().to_vec(), ws[4].p.v0.as_slice().to_vec());
    let (ptrs, nvs, dts) = ([g2.as_ptr(), g4.as_ptr()], [g2.len(), g4.len()], [ws[2].p.dt, ws[4].p.dt]);
    let mut got = [cts_status::Panic; 2];
    let s = unsafe {
        cts_tamsi_solver_solve_batch(
            handles.as_ptr(),
            dts.as_ptr(),
            ptrs.as_ptr(),
            nvs.as_ptr(),
            2,
            2,
            got.as_mut_ptr(),
        )
    };
    assert_eq!((s, got), (cts_status::Ok, [cts_status::Ok; 2]));
}

#[test]
fn tamsi_batch_call_errors_write_nothing_and_read_nothing() {
    let last = || {
        unsafe { CStr::from_ptr(contact_solvers::ffi::guard::cts_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    };
    // count 0: nothing read, nothing written, even with NULL arrays.
    let s = unsafe { cts_tamsi_solver_solve_batch(null(), null(), null(), null(), 0, 4, null_mut()) };
    assert_eq!(s, cts_status::Ok);
    // count 2^36 with arrays that hold nothing: refused before any is read.
    let dangling = NonNull::<f64>::dangling().as_ptr();
    let mut status = cts_status::Panic;
    let s = unsafe {
        cts_tamsi_solver_solve_batch(
            NonNull::dangling().as_ptr(),
            dangling,
            NonNull::dangling().as_ptr(),
            NonNull::dangling().as_ptr(),
            1 << 36,
            2,
            &mut status,
        )
    };
    assert_eq!(s, cts_status::InvalidArgument);
    assert!(last().contains("count = 68719476736"), "{}", last());
    assert_eq!(status, cts_status::Panic, "nothing written");
    // Each NULL array with count > 0.
    let ws = worlds(1);
    let h = Tamsi::new(&ws[0]);
    let (hp, dt, g, nv) = ([h.0], [1e-3], [ws[0].p.v0.as_ptr()], [ws[0].p.nv()]);
    for (k, name) in ["solvers", "dts", "v_guesses", "nvs", "statuses"].iter().enumerate() {
        let mut out = [cts_status::Panic];
        let s = unsafe {
            cts_tamsi_solver_solve_batch(
                if k == 0 { null() } else { hp.as_ptr() },
                if k == 1 { null() } else { dt.as_ptr() },
                if k == 2 { null() } else { g.as_ptr() },
                if k == 3 { null() } else { nv.as_ptr() },
                1,
                2,
                if k == 4 { null_mut() } else { out.as_mut_ptr() },
            )
        };
        assert_eq!(s, cts_status::NullPointer, "{name}");
        assert!(last().starts_with(&format!("cts_tamsi_solver_solve_batch: {name} is NULL")), "{}", last());
        assert_eq!(out[0], cts_status::Panic, "nothing written");
    }
}

// ---------------------------------------------------------------------------------------------
// Interior point
// ---------------------------------------------------------------------------------------------

struct Ipm(*mut cts_ipm_solver);

impl Drop for Ipm {
    fn drop(&mut self) {
        unsafe { cts_ipm_solver_free(self.0) }
    }
}

impl Ipm {
    fn new() -> Self {
        let mut h = null_mut();
        assert_eq!(unsafe { cts_ipm_solver_new(&mut h) }, cts_status::Ok);
        Self(h)
    }

    fn set(&self, w: &World, data: Option<&cts_block_sparse_data>) {
        assert_eq!(unsafe { w.set_ipm(self.0, data) }, cts_status::Ok);
    }

    fn last_error(&self) -> String {
        unsafe { CStr::from_ptr(cts_ipm_solver_last_error(self.0)) }.to_string_lossy().into_owned()
    }

    fn results(&self, w: &World) -> (Vec<(i32, Vec<u64>)>, String, String) {
        let (n, nc) = (w.p.nv(), w.p.nc());
        type Getter = unsafe extern "C" fn(*const cts_ipm_solver, *mut f64, usize) -> cts_status;
        let getters: [(Getter, usize); 3] = [
            (cts_ipm_solver_get_generalized_velocities, n),
            (cts_ipm_solver_get_impulses, 3 * nc),
            (cts_ipm_solver_get_next_gaps, nc),
        ];
        let out = getters
            .iter()
            .map(|&(get, len)| {
                let mut v = vec![0.0; len];
                let s = unsafe { get(self.0, v.as_mut_ptr(), len) };
                (s as i32, bits(&v))
            })
            .collect();
        let mut stats = std::mem::MaybeUninit::<cts_ipm_stats>::zeroed();
        let s = unsafe { cts_ipm_solver_get_stats(self.0, stats.as_mut_ptr()) };
        let stats = format!("{s:?} {:?}", unsafe { stats.assume_init() });
        (out, stats, self.last_error())
    }
}

/// As `tamsi_batch_equals_loop`; `guesses` None: every world from its v0 (`cts_ipm_solver_solve`);
/// an empty guess: that world from its v0 (a NULL entry).
fn ipm_batch_equals_loop(
    ws: &[World],
    blocks: bool,
    threads: usize,
    guesses: Option<&[Vec<f64>]>,
) -> Vec<cts_status> {
    let data: Vec<cts_block_sparse_data> = ws.iter().map(World::blocks).collect();
    let make = || {
        let hs: Vec<Ipm> = ws.iter().map(|_| Ipm::new()).collect();
        for (i, (h, w)) in hs.iter().zip(ws).enumerate() {
            h.set(w, blocks.then(|| &data[i]));
        }
        hs
    };
    let (single, batched) = (make(), make());
    let ptrs: Option<Vec<*const f64>> =
        guesses.map(|g| g.iter().map(|g| if g.is_empty() { null() } else { g.as_ptr() }).collect());
    let ns: Option<Vec<usize>> = guesses.map(|g| g.iter().map(Vec::len).collect());
    let want: Vec<cts_status> = single
        .iter()
        .enumerate()
        .map(|(i, h)| unsafe {
            match &ptrs {
                Some(p) if !p[i].is_null() => {
                    cts_ipm_solver_solve_with_guess(h.0, p[i], ns.as_ref().unwrap()[i])
                }
                _ => cts_ipm_solver_solve(h.0),
            }
        })
        .collect();
    let handles: Vec<*mut cts_ipm_solver> = batched.iter().map(|h| h.0).collect();
    let mut got = vec![cts_status::Panic; ws.len()];
    let s = unsafe {
        cts_ipm_solver_solve_batch(
            handles.as_ptr(),
            ptrs.as_ref().map_or(null(), |p| p.as_ptr()),
            ns.as_ref().map_or(null(), |n| n.as_ptr()),
            ws.len(),
            threads,
            got.as_mut_ptr(),
        )
    };
    assert_eq!(s, cts_status::Ok);
    assert_eq!(got, want, "blocks {blocks}, {threads} threads");
    for (i, (a, b)) in single.iter().zip(&batched).enumerate() {
        assert_eq!(a.results(&ws[i]), b.results(&ws[i]), "world {i}, blocks {blocks}, {threads} threads");
    }
    got
}

#[test]
fn ipm_batch_is_the_loop_of_single_solves_bit_for_bit() {
    let ws = worlds(9);
    for blocks in [false, true] {
        for threads in THREADS {
            let got = ipm_batch_equals_loop(&ws, blocks, threads, None);
            let ok = got.iter().filter(|&&s| s == cts_status::Ok).count();
            assert!(ok >= 7, "most worlds converge: {got:?}");
        }
    }
}

#[test]
fn ipm_guesses_and_failing_worlds_leave_the_others_exact() {
    let ws = worlds(7);
    let mut guesses: Vec<Vec<f64>> = ws.iter().map(|w| w.p.v0.iter().map(|v| v + 0.01).collect()).collect();
    guesses[2] = Vec::new(); // NULL entry: from v0
    guesses[4][0] = f64::NAN;
    guesses[5].push(0.0); // wrong length
    for blocks in [false, true] {
        for threads in THREADS {
            let got = ipm_batch_equals_loop(&ws, blocks, threads, Some(&guesses));
            assert_eq!(got[4], cts_status::InvalidArgument);
            assert_eq!(got[5], cts_status::DimensionMismatch);
        }
    }
}

#[test]
fn ipm_null_duplicated_and_bad_calls_are_statuses() {
    let ws = worlds(3);
    let hs: Vec<Ipm> = ws.iter().map(|_| Ipm::new()).collect();
    for (h, w) in hs.iter().zip(&ws).skip(1) {
        h.set(w, None);
    }
    let handles = [hs[1].0, null_mut(), hs[0].0, hs[1].0, hs[2].0];
    for threads in THREADS {
        let mut got = [cts_status::Panic; 5];
        let s = unsafe {
            cts_ipm_solver_solve_batch(handles.as_ptr(), null(), null(), 5, threads, got.as_mut_ptr())
        };
        assert_eq!(s, cts_status::Ok);
        use cts_status::*;
        assert_eq!(got, [InvalidArgument, NullPointer, NoProblemData, InvalidArgument, Ok]);
        assert!(hs[1].last_error().contains("appears 2 times in the batch"), "{}", hs[1].last_error());
    }
    assert_eq!(
        unsafe { cts_ipm_solver_solve_batch(null(), null(), null(), 0, 0, null_mut()) },
        cts_status::Ok
    );
    let mut status = cts_status::Panic;
    let s = unsafe {
        cts_ipm_solver_solve_batch(NonNull::dangling().as_ptr(), null(), null(), 1 << 36, 4, &mut status)
    };
    assert_eq!((s, status), (cts_status::InvalidArgument, cts_status::Panic));
    // Guesses without their lengths.
    let g = [null::<f64>(); 1];
    let s = unsafe { cts_ipm_solver_solve_batch([hs[2].0].as_ptr(), g.as_ptr(), null(), 1, 0, &mut status) };
    assert_eq!((s, status), (cts_status::NullPointer, cts_status::Panic));
}
