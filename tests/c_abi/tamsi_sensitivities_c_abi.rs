//! TAMSI sensitivities through the C ABI (`cts_tamsi_solver_compute_sensitivities`, the three
//! getters, `cts_tamsi_solver_vjp`), called from Rust exactly as C calls them: the same numbers
//! as the Rust API to the last bit, padded leading dimensions left untouched, NULL outputs
//! skipped, block-sparse data (`cts_tamsi_solver_set_*_coupled_block_problem_data`) like dense
//! data, and a status with a message for every misuse (`docs/tamsi_sensitivities.md` §6).
#![allow(unsafe_code)]

use support::tamsi_support;

use std::ffi::CStr;
use std::ptr::{null, null_mut};

use contact_solvers::ffi::block_sparse::cts_block_sparse_data;
use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::status::cts_status_string;
use contact_solvers::ffi::tamsi as c;
use contact_solvers::ffi::tamsi::sensitivity as cs;
use contact_solvers::tamsi::{
    TamsiOutcome, TamsiParameters, TamsiProblem, TamsiSensitivityOutput, TamsiSensitivityParameter,
    TamsiSolver,
};
use nalgebra::DVector;
use support::tamsi_blocks::{BlockProblem, random};
use tamsi_support::scenes::{Scene, pizza_saver, rolling_cylinder};

/// Rows of NaN padding below every matrix read through the C ABI.
const PAD: usize = 3;

struct Handle(*mut c::cts_tamsi_solver);

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { c::cts_tamsi_solver_free(self.0) };
    }
}

impl Handle {
    fn last_error(&self) -> String {
        unsafe { CStr::from_ptr(c::cts_tamsi_solver_last_error(self.0)) }.to_str().unwrap().to_owned()
    }
}

/// A handle with `s`'s data set (borrowed from `s`) and `params`.
fn handle(s: &Scene, params: &TamsiParameters) -> Handle {
    let (nv, nc) = (s.nv(), s.nc());
    let mut h = null_mut();
    unsafe {
        assert_eq!(c::cts_tamsi_solver_new(nv, &mut h), cts_status::Ok);
        let mut p = std::mem::zeroed();
        c::cts_tamsi_parameters_default(&mut p);
        p.stiction_tolerance = params.stiction_tolerance;
        p.relative_tolerance = params.relative_tolerance;
        p.max_iterations = params.max_iterations as i32;
        assert_eq!(c::cts_tamsi_solver_set_parameters(h, &p), cts_status::Ok);
        let (m, jn, jt) = (s.m.as_ptr(), s.jn.as_ptr(), s.jt.as_ptr());
        let (ld_jn, ld_jt) = (nc.max(1), (2 * nc).max(1));
        let status = match &s.fn_ {
            Some(fn_) => c::cts_tamsi_solver_set_one_way_coupled_problem_data(
                h,
                nc,
                m,
                nv,
                jn,
                ld_jn,
                jt,
                ld_jt,
                s.p_star.as_ptr(),
                fn_.as_ptr(),
                s.mu.as_ptr(),
            ),
            None => c::cts_tamsi_solver_set_two_way_coupled_problem_data(
                h,
                nc,
                m,
                nv,
                jn,
                ld_jn,
                jt,
                ld_jt,
                s.p_star.as_ptr(),
                s.fn0.as_ref().unwrap().as_ptr(),
                s.stiffness.as_ref().unwrap().as_ptr(),
                s.dissipation.as_ref().unwrap().as_ptr(),
                s.mu.as_ptr(),
            ),
        };
        assert_eq!(status, cts_status::Ok);
    }
    Handle(h)
}

/// The Rust API's solver on the same scene, solved, with sensitivities.
fn rust_solver(s: &Scene, params: &TamsiParameters) -> TamsiSolver {
    let mut solver = TamsiSolver::new(s.nv());
    solver.set_parameters(*params).unwrap();
    solver.solve_with_guess(&s.problem(), s.dt, s.v0.as_view()).unwrap();
    solver.compute_sensitivities(&s.problem()).unwrap();
    solver
}

type Getter = unsafe extern "C" fn(*const c::cts_tamsi_solver, i32, *mut f64, usize, usize) -> cts_status;

const GETTERS: [(TamsiSensitivityOutput, Getter); 3] = [
    (TamsiSensitivityOutput::Velocities, cs::cts_tamsi_solver_get_velocity_sensitivity),
    (TamsiSensitivityOutput::NormalForces, cs::cts_tamsi_solver_get_normal_force_sensitivity),
    (TamsiSensitivityOutput::FrictionForces, cs::cts_tamsi_solver_get_friction_force_sensitivity),
];

/// Every getter of every parameter of `s`'s scheme against the Rust API, bit for bit, with a
/// NaN-padded leading dimension.
fn check_getters(s: &Scene, params: &TamsiParameters) {
    let h = handle(s, params);
    let rust = rust_solver(s, params);
    let (nv, nc) = (s.nv(), s.nc());
    unsafe {
        assert_eq!(c::cts_tamsi_solver_solve_with_guess(h.0, s.dt, s.v0.as_ptr(), nv), cts_status::Ok);
        assert_eq!(cs::cts_tamsi_solver_compute_sensitivities(h.0), cts_status::Ok);
    }
    let scheme = s.problem().coupling_scheme();
    for p in TamsiSensitivityParameter::ALL {
        for (o, get) in GETTERS {
            let (rows, cols) = (o.rows(nv, nc), p.columns(nv, nc));
            let ld = rows + PAD;
            let mut out = vec![f64::NAN; ld * cols.max(1)];
            let status = unsafe { get(h.0, p as i32, out.as_mut_ptr(), ld, cols) };
            if !p.applies_to(scheme) {
                assert_eq!(status, cts_status::InvalidArgument, "{p:?}");
                assert!(h.last_error().contains("is not a parameter of"), "{}", h.last_error());
                assert!(out.iter().all(|x| x.is_nan()), "nothing written on error");
                continue;
            }
            assert_eq!(status, cts_status::Ok, "{p:?} {o:?}: {}", h.last_error());
            let want = rust.sensitivity(o, p).unwrap();
            for j in 0..cols {
                for r in 0..rows {
                    assert_eq!(out[j * ld + r].to_bits(), want[(r, j)].to_bits(), "{p:?} {o:?} ({r}, {j})");
                }
                assert!(out[j * ld + rows..(j + 1) * ld].iter().all(|x| x.is_nan()), "padding untouched");
            }
            // A wrong column count is refused.
            let status = unsafe { get(h.0, p as i32, out.as_mut_ptr(), ld, cols + 1) };
            assert_eq!(status, cts_status::DimensionMismatch);
        }
    }
}

#[test]
fn getters_return_the_rust_sensitivities() {
    let params = TamsiParameters { stiction_tolerance: 1e-3, relative_tolerance: 1e-4, ..Default::default() };
    check_getters(&pizza_saver(6.0), &params);
    check_getters(&pizza_saver(0.5), &params);
    check_getters(&rolling_cylinder(0.5, 3), &TamsiParameters::default());
    check_getters(&rolling_cylinder(0.7, 2), &TamsiParameters::default());
}

/// `cts_tamsi_solver_vjp` with every output, against the Rust API.
fn check_vjp(s: &Scene, params: &TamsiParameters) {
    let h = handle(s, params);
    let mut rust = rust_solver(s, params);
    let (nv, nc) = (s.nv(), s.nc());
    let g = DVector::from_fn(nv, |r, _| 1.0 + r as f64);
    let gfn = DVector::from_fn(nc, |r, _| 0.5 - r as f64);
    let gft = DVector::from_fn(2 * nc, |r, _| (r as f64).sin());
    let one_way = s.fn_.is_some();
    let mut out =
        [vec![f64::NAN; nv], vec![f64::NAN; nc], vec![f64::NAN; nc], vec![f64::NAN; nc], vec![f64::NAN; nc]];
    let mut dt = f64::NAN;
    unsafe {
        assert_eq!(c::cts_tamsi_solver_solve_with_guess(h.0, s.dt, s.v0.as_ptr(), nv), cts_status::Ok);
        let [p_star, normal, k, d, mu] = &mut out;
        let (k, d) = if one_way { (null_mut(), null_mut()) } else { (k.as_mut_ptr(), d.as_mut_ptr()) };
        let status = cs::cts_tamsi_solver_vjp(
            h.0,
            g.as_ptr(),
            nv,
            gfn.as_ptr(),
            gft.as_ptr(),
            nc,
            p_star.as_mut_ptr(),
            normal.as_mut_ptr(),
            k,
            d,
            mu.as_mut_ptr(),
            &mut dt,
        );
        assert_eq!(status, cts_status::Ok, "{}", h.last_error());
    }
    let grad = rust.vjp(&s.problem(), g.as_view(), Some(gfn.as_view()), Some(gft.as_view())).unwrap();
    use TamsiSensitivityParameter as P;
    let normal = if one_way { P::NormalForce } else { P::Fn0 };
    let mut pairs = vec![(P::PStar, &out[0]), (normal, &out[1]), (P::Mu, &out[4])];
    if !one_way {
        pairs.extend([(P::Stiffness, &out[2]), (P::Dissipation, &out[3])]);
    }
    for (p, got) in pairs {
        let want = grad.get(p).unwrap();
        assert_eq!(
            got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            want.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            "{p:?}"
        );
    }
    assert_eq!(dt.to_bits(), grad.dt().to_bits());

    // NULL force gradients are zeros; NULL outputs are skipped.
    let mut mu_only = vec![f64::NAN; nc];
    let status = unsafe {
        cs::cts_tamsi_solver_vjp(
            h.0,
            g.as_ptr(),
            nv,
            null(),
            null(),
            nc,
            null_mut(),
            null_mut(),
            null_mut(),
            null_mut(),
            mu_only.as_mut_ptr(),
            null_mut(),
        )
    };
    assert_eq!(status, cts_status::Ok);
    let want = rust.vjp(&s.problem(), g.as_view(), None, None).unwrap().mu().to_vec();
    assert_eq!(mu_only, want);
}

#[test]
fn vjp_returns_the_rust_gradient() {
    let params = TamsiParameters { stiction_tolerance: 1e-3, relative_tolerance: 1e-4, ..Default::default() };
    check_vjp(&pizza_saver(6.0), &params);
    check_vjp(&rolling_cylinder(0.5, 3), &TamsiParameters::default());
}

#[test]
fn misuse_gets_a_status_and_a_message() {
    let s = rolling_cylinder(0.7, 2);
    let (nv, nc) = (s.nv(), s.nc());
    let g = DVector::from_element(nv, 1.0);
    let mut out = vec![0.0; nv * nv];
    let vjp = |h: &Handle, g: &DVector<f64>, nv: usize, nc: usize, k: *mut f64| unsafe {
        let mut dt = 0.0;
        cs::cts_tamsi_solver_vjp(
            h.0,
            g.as_ptr(),
            nv,
            null(),
            null(),
            nc,
            null_mut(),
            null_mut(),
            k,
            null_mut(),
            null_mut(),
            &mut dt,
        )
    };
    unsafe {
        assert_eq!(cs::cts_tamsi_solver_compute_sensitivities(null_mut()), cts_status::NullPointer);
        let text = CStr::from_ptr(cts_status_string(107)).to_str().unwrap();
        assert_eq!(text, "no sensitivities (the solve did not converge)");

        // Before any solve.
        let h = handle(&s, &TamsiParameters::default());
        assert_eq!(cs::cts_tamsi_solver_compute_sensitivities(h.0), cts_status::NoSolution);
        assert_eq!(vjp(&h, &g, nv, nc, null_mut()), cts_status::NoSolution);

        // A solve that ran out of iterations has none.
        let h = handle(&s, &TamsiParameters { max_iterations: 2, ..Default::default() });
        let status = c::cts_tamsi_solver_solve_with_guess(h.0, s.dt, s.v0.as_ptr(), nv);
        assert_eq!(status, cts_status::MaxIterationsReached);
        assert_eq!(cs::cts_tamsi_solver_compute_sensitivities(h.0), cts_status::NoSensitivities);
        assert!(h.last_error().contains("did not converge (MaxIterationsReached)"), "{}", h.last_error());
        assert_eq!(vjp(&h, &g, nv, nc, null_mut()), cts_status::NoSensitivities);

        // Converged, but not computed yet; then wrong sizes, codes and gradients.
        let h = handle(&s, &TamsiParameters::default());
        assert_eq!(c::cts_tamsi_solver_solve_with_guess(h.0, s.dt, s.v0.as_ptr(), nv), cts_status::Ok);
        let get = cs::cts_tamsi_solver_get_velocity_sensitivity;
        assert_eq!(
            get(h.0, cs::CTS_TAMSI_SENSITIVITY_P_STAR, out.as_mut_ptr(), nv, nv),
            cts_status::NoSolution
        );
        assert!(h.last_error().contains("compute_sensitivities"), "{}", h.last_error());
        assert_eq!(cs::cts_tamsi_solver_compute_sensitivities(h.0), cts_status::Ok);
        assert_eq!(get(h.0, 7, out.as_mut_ptr(), nv, nv), cts_status::InvalidArgument);
        assert_eq!(
            get(h.0, cs::CTS_TAMSI_SENSITIVITY_P_STAR, out.as_mut_ptr(), nv - 1, nv),
            cts_status::InvalidArgument
        );
        assert_eq!(get(h.0, cs::CTS_TAMSI_SENSITIVITY_P_STAR, null_mut(), nv, nv), cts_status::NullPointer);
        assert_eq!(vjp(&h, &g, nv + 1, nc, null_mut()), cts_status::DimensionMismatch);
        assert_eq!(vjp(&h, &g, nv, nc + 1, null_mut()), cts_status::DimensionMismatch);
        let mut bad = g.clone();
        bad[1] = f64::INFINITY;
        assert_eq!(vjp(&h, &bad, nv, nc, null_mut()), cts_status::InvalidArgument);
        assert_eq!(h.last_error(), "cts_tamsi_solver_vjp: dl_dv[1] = inf is not finite");
        let mut k = vec![0.0; nc];
        assert_eq!(vjp(&h, &g, nv, nc, k.as_mut_ptr()), cts_status::Ok);

        // One-way data has no stiffness.
        let s1 = pizza_saver(6.0);
        let h1 = handle(&s1, &TamsiParameters::default());
        assert_eq!(c::cts_tamsi_solver_solve_with_guess(h1.0, s1.dt, s1.v0.as_ptr(), 3), cts_status::Ok);
        let g1 = DVector::from_element(3, 1.0);
        let mut k1 = vec![0.0; s1.nc()];
        assert_eq!(vjp(&h1, &g1, 3, s1.nc(), k1.as_mut_ptr()), cts_status::InvalidArgument);
        assert!(h1.last_error().contains("grad_stiffness must be NULL"), "{}", h1.last_error());

        // New data drops the solution and so the sensitivities.
        let status = c::cts_tamsi_solver_set_two_way_coupled_problem_data(
            h.0,
            nc,
            s.m.as_ptr(),
            nv,
            s.jn.as_ptr(),
            nc,
            s.jt.as_ptr(),
            2 * nc,
            s.p_star.as_ptr(),
            s.fn0.as_ref().unwrap().as_ptr(),
            s.stiffness.as_ref().unwrap().as_ptr(),
            s.dissipation.as_ref().unwrap().as_ptr(),
            s.mu.as_ptr(),
        );
        assert_eq!(status, cts_status::Ok);
        assert_eq!(
            get(h.0, cs::CTS_TAMSI_SENSITIVITY_P_STAR, out.as_mut_ptr(), nv, nv),
            cts_status::NoSolution
        );
    }
}

/// Block-sparse data set through the C ABI: `cts_tamsi_solver_coupling_scheme` names the scheme,
/// every getter returns the Rust API's block-form sensitivities bit for bit, and the VJP its
/// gradient, on random multi-tree problems of both schemes.
#[test]
fn block_data_sensitivities_equal_the_rust_block_api() {
    let params = TamsiParameters { stiction_tolerance: 1e-3, relative_tolerance: 1e-6, ..Default::default() };
    let mut compared = 0;
    for seed in 0..6u64 {
        let p = random(300 + seed, 3 + seed as usize, 2 + 2 * seed as usize);
        let (nv, nc) = (p.nv(), p.nc());
        let l = &p.layout;
        let tree_dofs: Vec<i32> = (0..l.num_trees()).map(|t| l.tree_dofs(t) as i32).collect();
        let contact_trees: Vec<i32> = (0..nc)
            .flat_map(|i| {
                let (a, b) = l.contact_trees(i);
                [a as i32, b.map_or(-1, |b| b as i32)]
            })
            .collect();
        let data = cts_block_sparse_data {
            num_trees: tree_dofs.len(),
            tree_dofs: tree_dofs.as_ptr(),
            M_len: p.m_packed.len(),
            M: p.m_packed.as_ptr(),
            num_contacts: nc,
            contact_trees: contact_trees.as_ptr(),
            J_len: p.j_packed.len(),
            J: p.j_packed.as_ptr(),
        };
        for two_way in [false, true] {
            let problem = rust_block_problem(&p, two_way);
            let mut rust = TamsiSolver::new(nv);
            rust.set_parameters(params).unwrap();
            if rust.solve_with_guess(&problem, p.dt, p.v0.as_view()).unwrap() != TamsiOutcome::Success {
                continue;
            }
            rust.compute_sensitivities(&problem).unwrap();
            let mut h = null_mut();
            unsafe {
                assert_eq!(c::cts_tamsi_solver_new(nv, &mut h), cts_status::Ok);
                let h = Handle(h);
                assert_eq!(cs::cts_tamsi_solver_coupling_scheme(h.0), cs::CTS_TAMSI_COUPLING_NONE);
                let mut cp = std::mem::zeroed();
                c::cts_tamsi_parameters_default(&mut cp);
                cp.stiction_tolerance = params.stiction_tolerance;
                cp.relative_tolerance = params.relative_tolerance;
                assert_eq!(c::cts_tamsi_solver_set_parameters(h.0, &cp), cts_status::Ok);
                let status = if two_way {
                    c::cts_tamsi_solver_set_two_way_coupled_block_problem_data(
                        h.0,
                        &data,
                        p.p_star.as_ptr(),
                        p.fn0.as_ptr(),
                        p.stiffness.as_ptr(),
                        p.dissipation.as_ptr(),
                        p.mu.as_ptr(),
                    )
                } else {
                    c::cts_tamsi_solver_set_one_way_coupled_block_problem_data(
                        h.0,
                        &data,
                        p.p_star.as_ptr(),
                        p.fn0.as_ptr(),
                        p.mu.as_ptr(),
                    )
                };
                assert_eq!(status, cts_status::Ok, "{}", h.last_error());
                let want_scheme =
                    if two_way { cs::CTS_TAMSI_COUPLING_TWO_WAY } else { cs::CTS_TAMSI_COUPLING_ONE_WAY };
                assert_eq!(cs::cts_tamsi_solver_coupling_scheme(h.0), want_scheme);
                assert_eq!(
                    c::cts_tamsi_solver_solve_with_guess(h.0, p.dt, p.v0.as_ptr(), nv),
                    cts_status::Ok
                );
                assert_eq!(
                    cs::cts_tamsi_solver_compute_sensitivities(h.0),
                    cts_status::Ok,
                    "{}",
                    h.last_error()
                );
                let scheme = problem.coupling_scheme();
                for q in TamsiSensitivityParameter::ALL.into_iter().filter(|q| q.applies_to(scheme)) {
                    for (o, get) in GETTERS {
                        let (rows, cols) = (o.rows(nv, nc), q.columns(nv, nc));
                        let mut out = vec![f64::NAN; rows.max(1) * cols];
                        assert_eq!(get(h.0, q as i32, out.as_mut_ptr(), rows.max(1), cols), cts_status::Ok);
                        let want = rust.sensitivity(o, q).unwrap();
                        for j in 0..cols {
                            for r in 0..rows {
                                let got = out[j * rows.max(1) + r];
                                assert_eq!(got.to_bits(), want[(r, j)].to_bits(), "{} {q:?} {o:?}", p.name);
                            }
                        }
                    }
                }
                let g = DVector::from_fn(nv, |r, _| (r as f64 * 0.3).cos());
                let mut grad_mu = vec![f64::NAN; nc];
                let mut grad_dt = f64::NAN;
                let status = cs::cts_tamsi_solver_vjp(
                    h.0,
                    g.as_ptr(),
                    nv,
                    null(),
                    null(),
                    nc,
                    null_mut(),
                    null_mut(),
                    null_mut(),
                    null_mut(),
                    grad_mu.as_mut_ptr(),
                    &mut grad_dt,
                );
                assert_eq!(status, cts_status::Ok, "{}", h.last_error());
                let want = rust.vjp(&problem, g.as_view(), None, None).unwrap();
                assert_eq!(grad_mu, want.mu(), "{}", p.name);
                assert_eq!(grad_dt.to_bits(), want.dt().to_bits());
            }
            compared += 1;
        }
    }
    assert!(compared >= 8, "{compared} problems converged");
}

/// `p` as a block-sparse problem of the Rust API (one-way takes fn0 as fn).
fn rust_block_problem(p: &BlockProblem, two_way: bool) -> TamsiProblem<'_> {
    if two_way {
        TamsiProblem::two_way_blocks(
            p.system(),
            p.p_star.as_view(),
            p.fn0.as_view(),
            p.stiffness.as_view(),
            p.dissipation.as_view(),
            p.mu.as_view(),
        )
    } else {
        TamsiProblem::one_way_blocks(p.system(), p.p_star.as_view(), p.fn0.as_view(), p.mu.as_view())
    }
    .unwrap()
}
