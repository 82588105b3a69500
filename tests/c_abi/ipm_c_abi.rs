//! Acceptance cases of `docs/ipm.md` §9 through the C ABI (`cts_ipm_*`, called from Rust exactly
//! as C calls them, with padded leading dimensions whose padding is NaN): A1, A2 (with its
//! iteration fingerprint), A3/A4 and the A6 sensitivities, each against the spec's numbers and
//! tolerances and against the Rust API (same results to the last bit).
#![allow(unsafe_code)]

use support::ipm_common;

use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::ipm as c;
use contact_solvers::ipm::{
    ContactModel, IpmData, IpmOutcome, IpmParameters, IpmProblem, IpmSolver, NewtonSolve,
    SensitivityParameter,
};
use ipm_common::{PointMass, simulate, tol};
use nalgebra::{DMatrix, DVector};

const G: f64 = 9.81;
/// Rows of NaN padding below every matrix passed through the C ABI.
const PAD: usize = 2;

#[track_caller]
fn ok(status: cts_status) {
    assert_eq!(status, cts_status::Ok);
}

#[track_caller]
fn close(a: f64, b: f64, t: f64, what: &str) {
    assert!((a - b).abs() <= t, "{what}: {a} vs {b} (tolerance {t}, diff {:e})", (a - b).abs());
}

fn relerr(x: f64, y: f64) -> f64 {
    (x - y).abs() / y.abs()
}

/// A column-major copy of `m` with leading dimension `rows + PAD`, the padding rows NaN.
fn padded(m: &DMatrix<f64>) -> (Vec<f64>, usize) {
    let ld = m.nrows() + PAD;
    let mut out = vec![f64::NAN; ld * m.ncols()];
    for j in 0..m.ncols() {
        for i in 0..m.nrows() {
            out[i + j * ld] = m[(i, j)];
        }
    }
    (out, ld)
}

/// One step's problem, owned, in the layout of the Rust API.
struct Step {
    m: DMatrix<f64>,
    jn: DMatrix<f64>,
    jt: DMatrix<f64>,
    v0: DVector<f64>,
    tau: DVector<f64>,
    h: f64,
    phi: DVector<f64>,
    mu: DVector<f64>,
    models: Vec<ContactModel>,
}

impl Step {
    /// The point mass of §9 at position `x` (gap = z) with velocity `v0` and a horizontal force.
    fn point_mass(pm: &PointMass, x: [f64; 3], v0: [f64; 3], f: [f64; 2]) -> Self {
        Self {
            m: pm.m.clone(),
            jn: pm.jn.clone(),
            jt: pm.jt.clone(),
            v0: DVector::from_column_slice(&v0),
            tau: DVector::from_column_slice(&[f[0], f[1], -pm.mass * pm.g]),
            h: pm.h,
            phi: DVector::from_element(1, x[2]),
            mu: DVector::from_element(1, pm.mu),
            models: vec![pm.model],
        }
    }

    fn problem(&self) -> IpmProblem<'_> {
        IpmProblem {
            data: IpmData::Dense { m: self.m.as_view(), jn: self.jn.as_view(), jt: self.jt.as_view() },
            v0: self.v0.as_view(),
            tau: self.tau.as_view(),
            h: self.h,
            phi: self.phi.as_view(),
            mu: self.mu.as_view(),
            models: &self.models,
            vt_offset: None,
        }
    }
}

/// The C-ABI solver, used as a C program would use it. Keeps the borrowed (padded) arrays alive
/// until the next set call, as the contract requires.
struct CSolver {
    handle: *mut c::cts_ipm_solver,
    n: usize,
    nc: usize,
    kt: usize,
    borrowed: Vec<Vec<f64>>,
    _codes: Vec<i32>,
}

impl Drop for CSolver {
    fn drop(&mut self) {
        unsafe { c::cts_ipm_solver_free(self.handle) };
    }
}

impl CSolver {
    fn new(p: IpmParameters) -> Self {
        let mut handle = std::ptr::null_mut();
        ok(unsafe { c::cts_ipm_solver_new(&mut handle) });
        let mut cp = unsafe { std::mem::zeroed::<c::cts_ipm_parameters>() };
        unsafe { c::cts_ipm_parameters_default(&mut cp) };
        cp.rtol = p.rtol;
        cp.btol = p.btol;
        cp.max_iter = p.max_iter as i32;
        cp.max_ls = p.max_ls as i32;
        cp.undercut = p.undercut;
        cp.no_progress_max = p.no_progress_max as i32;
        cp.no_progress_undercut = p.no_progress_undercut;
        cp.dojo_lagged_kappa = i32::from(p.dojo_lagged_kappa);
        cp.fixed_kappa = p.fixed_kappa;
        cp.warm_start = i32::from(p.warm_start);
        cp.newton_solve = match p.newton_solve {
            NewtonSolve::Condensed => c::CTS_IPM_NEWTON_SOLVE_CONDENSED,
            NewtonSolve::Dense => c::CTS_IPM_NEWTON_SOLVE_DENSE,
        };
        cp.rvio_floor_in_backtracking = i32::from(p.rvio_floor_in_backtracking);
        cp.dojo_compatible = i32::from(p.dojo_compatible);
        cp.tolerance = p.tolerance;
        cp.complementarity_tolerance = p.complementarity_tolerance;
        cp.centrality_correctors = p.centrality_correctors as i32;
        cp.proximal_regularization = p.proximal_regularization;
        cp.normal_compliance = p.normal_compliance;
        cp.stall_iterations = p.stall_iterations as i32;
        ok(unsafe { c::cts_ipm_solver_set_parameters(handle, &cp) });
        Self { handle, n: 0, nc: 0, kt: 0, borrowed: vec![], _codes: vec![] }
    }

    /// Sets the step's data (padded copies) and solves; the status of the solve.
    fn solve(&mut self, s: &Step) -> cts_status {
        let (m, ld_m) = padded(&s.m);
        let (jn, ld_jn) = padded(&s.jn);
        let (jt, ld_jt) = padded(&s.jt);
        let codes: Vec<i32> = s
            .models
            .iter()
            .map(|m| match m {
                ContactModel::Impact => c::CTS_IPM_MODEL_IMPACT,
                ContactModel::SecondOrderCone => c::CTS_IPM_MODEL_SECOND_ORDER_CONE,
                ContactModel::Linear => c::CTS_IPM_MODEL_LINEAR,
            })
            .collect();
        let vectors: Vec<Vec<f64>> =
            [&s.v0, &s.tau, &s.phi, &s.mu].iter().map(|v| v.as_slice().to_vec()).collect();
        let (n, nc) = (s.m.nrows(), s.models.len());
        ok(unsafe {
            c::cts_ipm_solver_set_problem_data(
                self.handle,
                n,
                nc,
                m.as_ptr(),
                ld_m,
                jn.as_ptr(),
                ld_jn,
                jt.as_ptr(),
                ld_jt,
                vectors[0].as_ptr(),
                vectors[1].as_ptr(),
                s.h,
                vectors[2].as_ptr(),
                vectors[3].as_ptr(),
                codes.as_ptr(),
                std::ptr::null(),
                0,
            )
        });
        // The previous arrays may be released only now (the new set call ended their borrow).
        self.borrowed = vec![m, jn, jt];
        self.borrowed.extend(vectors);
        self._codes = codes;
        self.n = n;
        self.nc = nc;
        self.kt = unsafe { c::cts_ipm_solver_num_cone_variables(self.handle) };
        assert_eq!(self.kt, s.models.iter().map(|m| m.dim()).sum::<usize>());
        assert_eq!(unsafe { c::cts_ipm_solver_num_velocities(self.handle) }, n);
        assert_eq!(unsafe { c::cts_ipm_solver_num_contacts(self.handle) }, nc);
        unsafe { c::cts_ipm_solver_solve(self.handle) }
    }

    fn vector(
        &self,
        len: usize,
        get: unsafe extern "C" fn(*const c::cts_ipm_solver, *mut f64, usize) -> cts_status,
    ) -> Vec<f64> {
        let mut out = vec![f64::NAN; len];
        ok(unsafe { get(self.handle, out.as_mut_ptr(), len) });
        out
    }
    fn v(&self) -> Vec<f64> {
        self.vector(self.n, c::cts_ipm_solver_get_generalized_velocities)
    }
    fn impulses(&self) -> Vec<f64> {
        self.vector(3 * self.nc, c::cts_ipm_solver_get_impulses)
    }
    fn next_gaps(&self) -> Vec<f64> {
        self.vector(self.nc, c::cts_ipm_solver_get_next_gaps)
    }
    fn primal(&self) -> Vec<f64> {
        self.vector(self.kt, c::cts_ipm_solver_get_primal)
    }
    fn dual(&self) -> Vec<f64> {
        self.vector(self.kt, c::cts_ipm_solver_get_dual)
    }
    fn stats(&self) -> c::cts_ipm_stats {
        let mut s = unsafe { std::mem::zeroed::<c::cts_ipm_stats>() };
        ok(unsafe { c::cts_ipm_solver_get_stats(self.handle, &mut s) });
        s
    }
    fn history(
        &self,
        get: unsafe extern "C" fn(*const c::cts_ipm_solver, *mut f64, usize, *mut usize) -> cts_status,
    ) -> Vec<f64> {
        let mut count = 0;
        ok(unsafe { get(self.handle, std::ptr::null_mut(), 0, &mut count) });
        let mut out = vec![f64::NAN; count];
        ok(unsafe { get(self.handle, out.as_mut_ptr(), count, &mut count) });
        assert_eq!(out.len(), count);
        out
    }
    fn compute_sensitivities(&mut self) {
        ok(unsafe { c::cts_ipm_solver_compute_sensitivities(self.handle) });
    }
    /// (∂v/∂θ, ∂λ/∂θ) read with a padded leading dimension; checks the padding is untouched.
    fn sensitivity(&self, param: SensitivityParameter) -> (DMatrix<f64>, DMatrix<f64>) {
        let code = match param {
            SensitivityParameter::V0 => c::CTS_IPM_SENSITIVITY_V0,
            SensitivityParameter::Tau => c::CTS_IPM_SENSITIVITY_TAU,
            SensitivityParameter::Phi => c::CTS_IPM_SENSITIVITY_PHI,
            SensitivityParameter::Mu => c::CTS_IPM_SENSITIVITY_MU,
        };
        let cols = match param {
            SensitivityParameter::V0 | SensitivityParameter::Tau => self.n,
            _ => self.nc,
        };
        let read = |rows: usize, impulses: bool| {
            let ld = rows + PAD;
            let mut buf = vec![-7.0; ld * cols];
            let get = if impulses {
                c::cts_ipm_solver_get_impulse_sensitivity
            } else {
                c::cts_ipm_solver_get_velocity_sensitivity
            };
            ok(unsafe { get(self.handle, code, buf.as_mut_ptr(), ld, cols) });
            for j in 0..cols {
                assert!(buf[j * ld + rows..(j + 1) * ld].iter().all(|&x| x == -7.0), "padding written");
            }
            DMatrix::from_fn(rows, cols, |i, j| buf[i + j * ld])
        };
        (read(self.n, false), read(3 * self.nc, true))
    }
}

/// The C ABI and the Rust API return the same results, to the last bit.
#[track_caller]
fn assert_same_as_rust(cs: &CSolver, rs: &IpmSolver, outcome: IpmOutcome) {
    let status = cs.stats();
    assert_eq!(status.status, cts_status::from(outcome) as i32);
    assert_eq!(cs.v(), rs.velocities());
    assert_eq!(cs.impulses(), rs.impulses());
    assert_eq!(cs.next_gaps(), rs.next_gaps());
    assert_eq!(cs.primal(), rs.primal());
    assert_eq!(cs.dual(), rs.dual());
    let st = rs.stats();
    assert_eq!(status.iterations as usize, st.iterations);
    assert_eq!((status.rvio, status.bvio, status.kappa), (st.rvio, st.bvio, st.kappa));
    assert_eq!(status.line_search_exhausted as usize, st.line_search_exhausted);
    assert_eq!(status.boundary_hits as usize, st.boundary_hits);
    assert_eq!(cs.history(c::cts_ipm_solver_get_rvio_history), rs.rvio_history());
    assert_eq!(cs.history(c::cts_ipm_solver_get_bvio_history), rs.bvio_history());
    assert_eq!(cs.history(c::cts_ipm_solver_get_kappa_history), rs.kappa_history());
    assert_eq!(cs.history(c::cts_ipm_solver_get_alpha_history), rs.alpha_history());
}

/// A2: m = 1, h = 0.1, μ = 0.5, at rest on the ground, pushed with F (impulse h·F).
#[test]
fn a2_stick_and_slip_through_the_c_abi() {
    for mode in [NewtonSolve::Condensed, NewtonSolve::Dense] {
        for (f, vx, xi1) in [(3.0, 0.0, -0.3), (6.0, 0.1095, -0.4905)] {
            let params = IpmParameters { newton_solve: mode, ..tol(1e-8, 1e-8) };
            let pm = PointMass::new(1.0, 0.1, G, 0.5, ContactModel::SecondOrderCone);
            let step = Step::point_mass(&pm, [0.0; 3], [0.0; 3], [f, 0.0]);
            let mut cs = CSolver::new(params);
            ok(cs.solve(&step));
            // Exact: γn = m g h = 0.981, ξ0 = μ γn = 0.4905; stick v⁺ = 0, ξ1 = −0.3; slip
            // v⁺x = h (F − μ m g)/m = 0.1095, ξ1 = −0.4905, η0 = 0.1095. Tolerance 1e-6.
            let (v, imp, g, s) = (cs.v(), cs.impulses(), cs.primal(), cs.dual());
            close(v[0], vx, 1e-6, "v+_x");
            close(v[1], 0.0, 1e-6, "v+_y");
            close(v[2], 0.0, 1e-6, "v+_z");
            close(imp[0], 0.981, 1e-6, "gamma_n");
            close(imp[1], xi1, 1e-6, "xi_1");
            close(imp[2], 0.0, 1e-6, "xi_2");
            close(g[1], 0.4905, 1e-6, "xi_0");
            if f == 6.0 {
                close(s[1], 0.1095, 1e-6, "eta_0");
            }
            let stats = cs.stats();
            assert!(stats.iterations <= 15, "{} iterations", stats.iterations);
            // Re-implementation fingerprint at btol = rtol = 1e-8: 8 iterations.
            assert_eq!(stats.iterations, 8);
            let mut rs = IpmSolver::new(params).unwrap();
            let outcome = rs.solve(&step.problem()).unwrap();
            assert_same_as_rust(&cs, &rs, outcome);
        }
    }
}

#[test]
fn a2_iteration_fingerprint_through_the_c_abi() {
    // §9.A2, F = 3, btol = rtol = 1e-6: 6 iterations, the rvio/bvio histories (3 digits), κ targets
    // (2 digits), α in 0.95–0.98, γn = 0.9810008, ξ = (0.4905004, −0.2999979, 0).
    let pm = PointMass::new(1.0, 0.1, G, 0.5, ContactModel::SecondOrderCone);
    let mut cs = CSolver::new(tol(1e-6, 1e-6));
    ok(cs.solve(&Step::point_mass(&pm, [0.0; 3], [0.0; 3], [3.0, 0.0])));
    assert_eq!(cs.stats().iterations, 6);
    let rv = [1.50, 3.25e-2, 6.36e-4, 3.33e-5, 1.56e-6, 7.77e-8, 3.88e-9];
    let bv = [2.25, 3.12e-1, 3.07e-2, 3.34e-3, 1.76e-4, 8.79e-6, 4.39e-7];
    let kp = [7.5e-3, 1.1e-3, 1.3e-4, 2.7e-6, 1.7e-8, 6.6e-10];
    let (rh, bh, kh, ah) = (
        cs.history(c::cts_ipm_solver_get_rvio_history),
        cs.history(c::cts_ipm_solver_get_bvio_history),
        cs.history(c::cts_ipm_solver_get_kappa_history),
        cs.history(c::cts_ipm_solver_get_alpha_history),
    );
    assert_eq!((rh.len(), bh.len(), kh.len(), ah.len()), (7, 7, 6, 6));
    for i in 0..7 {
        assert!(relerr(rh[i], rv[i]) < 0.005, "rvio row {}: {:e} vs {:e}", i + 1, rh[i], rv[i]);
        assert!(relerr(bh[i], bv[i]) < 0.005, "bvio row {}: {:e} vs {:e}", i + 1, bh[i], bv[i]);
    }
    for i in 0..6 {
        assert!(relerr(kh[i], kp[i]) < 0.05, "kappa {}: {:e} vs {:e}", i + 1, kh[i], kp[i]);
        assert!((0.945..=0.985).contains(&ah[i]), "alpha {}: {}", i + 1, ah[i]);
    }
    let (g, imp) = (cs.primal(), cs.impulses());
    close(g[0], 0.9810008, 5e-8, "gamma_n");
    close(g[1], 0.4905004, 5e-8, "xi_0");
    close(imp[1], -0.2999979, 5e-8, "xi_1");
    assert_eq!(cs.stats().boundary_hits, 0);
}

/// Semi-implicit Euler of the point mass through the C ABI; (positions, velocities, normal
/// impulses) after every step.
fn simulate_c(
    pm: &PointMass,
    params: IpmParameters,
    x0: [f64; 3],
    v0: [f64; 3],
    steps: usize,
) -> ipm_common::Trace {
    let mut cs = CSolver::new(params);
    let (mut x, mut v) = (x0, v0);
    let mut t = ipm_common::Trace { gamma_n: vec![], x: vec![], v: vec![], iterations: vec![], failures: 0 };
    for _ in 0..steps {
        let status = cs.solve(&Step::point_mass(pm, x, v, [0.0, 0.0]));
        if status != cts_status::Ok {
            t.failures += 1;
        }
        let vn = cs.v();
        v = [vn[0], vn[1], vn[2]];
        for a in 0..3 {
            x[a] += pm.h * v[a];
        }
        t.gamma_n.push(cs.impulses()[0]);
        t.x.push(x);
        t.v.push(v);
        t.iterations.push(cs.stats().iterations as usize);
    }
    t
}

#[track_caller]
fn assert_same_trace(a: &ipm_common::Trace, b: &ipm_common::Trace) {
    assert_eq!(a.x, b.x);
    assert_eq!(a.v, b.v);
    assert_eq!(a.gamma_n, b.gamma_n);
    assert_eq!(a.iterations, b.iterations);
    assert_eq!(a.failures, b.failures);
}

#[test]
fn a3_a4_cone_slides_straight_pyramid_drifts_through_the_c_abi() {
    // A3/A4: m = 1, h = 0.01, μ = 0.25, on the ground with v0 = (4, 0.8, 0), 250 steps,
    // btol = rtol = 1e-6.
    let speed = |t: &ipm_common::Trace, k: usize| (t.v[k - 1][0].powi(2) + t.v[k - 1][1].powi(2)).sqrt();
    let pm = PointMass::new(1.0, 0.01, G, 0.25, ContactModel::SecondOrderCone);
    let t = simulate_c(&pm, tol(1e-6, 1e-6), [0.0; 3], [4.0, 0.8, 0.0], 250);
    let [x, y, _] = t.x[249];
    close(x, 3.306604, 1e-4, "A3 final x");
    close(y, 0.661321, 1e-4, "A3 final y");
    close(y.atan2(x), 0.2f64.atan(), 1e-6, "A3 heading");
    assert!(t.v[249].iter().all(|v| v.abs() < 1e-8), "A3 v_final {:?}", t.v[249]);
    assert!(speed(&t, 167) < 1e-3 && speed(&t, 166) > 1e-3, "A3 stops at step 167");
    assert_eq!(t.failures, 0);
    assert_same_trace(&t, &simulate(&pm, tol(1e-6, 1e-6), [0.0; 3], [4.0, 0.8, 0.0], 250));

    let pm = PointMass::new(1.0, 0.01, G, 0.25, ContactModel::Linear);
    let t = simulate_c(&pm, tol(1e-6, 1e-6), [0.0; 3], [4.0, 0.8, 0.0], 250);
    let [x, y, _] = t.x[249];
    close(x, 3.372484, 1e-4, "A4 final x");
    close(y, 1.300788, 1e-4, "A4 final y");
    close(y.atan2(x).to_degrees(), 21.09, 0.005, "A4 heading (deg)");
    assert!(speed(&t, 196) < 1e-3 && speed(&t, 195) > 1e-3, "A4 stops after 196 steps");
    assert_eq!(t.failures, 0);
    assert_same_trace(&t, &simulate(&pm, tol(1e-6, 1e-6), [0.0; 3], [4.0, 0.8, 0.0], 250));
}

#[test]
fn a1_drop_and_rest_through_the_c_abi() {
    // A1: m = 1, h = 0.01, from z = 1 at rest, μ = 0.5, 200 steps, btol = rtol = 1e-8.
    let pm = PointMass::new(1.0, 0.01, G, 0.5, ContactModel::SecondOrderCone);
    let t = simulate_c(&pm, tol(1e-8, 1e-8), [0.0, 0.0, 1.0], [0.0; 3], 200);
    close(t.gamma_n[44], 1.5335, 1e-3, "gamma_45");
    close(t.gamma_n[45], 2.9791, 1e-3, "gamma_46");
    for k in 50..=200 {
        close(t.gamma_n[k - 1], 0.0981, 1e-6, &format!("gamma_{k}"));
    }
    assert!(t.min_z() > -1e-8, "min z {}", t.min_z());
    assert!(t.v[199].iter().all(|v| v.abs() < 1e-8), "v_final {:?}", t.v[199]);
    assert_eq!(t.failures, 0);
    assert_same_trace(&t, &simulate(&pm, tol(1e-8, 1e-8), [0.0, 0.0, 1.0], [0.0; 3], 200));
}

/// The 1-D impact of A6 (m = 1, g = 1, h = 0.1, z0 = 0, v0 = 0, upward force F) as a step.
fn a6_step(f: f64, v0: f64, phi: f64) -> Step {
    Step {
        m: DMatrix::from_element(1, 1, 1.0),
        jn: DMatrix::from_element(1, 1, 1.0),
        jt: DMatrix::zeros(2, 1),
        v0: DVector::from_element(1, v0),
        tau: DVector::from_element(1, f - 1.0),
        h: 0.1,
        phi: DVector::from_element(1, phi),
        mu: DVector::from_element(1, 0.0),
        models: vec![ContactModel::Impact],
    }
}

fn fixed_kappa(kappa: f64, mode: NewtonSolve) -> IpmParameters {
    IpmParameters {
        rtol: 1e-14,
        btol: 1e-15,
        max_iter: 200,
        fixed_kappa: kappa,
        newton_solve: mode,
        ..Default::default()
    }
}

/// z⁺ = h·v of the fixed-κ solve through the C ABI.
fn a6_z(f: f64, v0: f64, phi: f64, params: IpmParameters) -> f64 {
    let mut cs = CSolver::new(params);
    ok(cs.solve(&a6_step(f, v0, phi)));
    0.1 * cs.v()[0]
}

#[test]
fn a6_sensitivities_through_the_c_abi() {
    // §9.A6: fixed-κ central-path solution m v = h(F − m g) + κ/(h v), z⁺ = h v,
    // dz⁺/dF = (h²/2m)[1 + h²(F − mg)/√(h⁴(F − mg)² + 4 m h κ)]; the table to 7 digits.
    let table = ipm_common::A6_TABLE;
    let (m, g, h) = (1.0f64, 1.0f64, 0.1f64);
    for mode in [NewtonSolve::Condensed, NewtonSolve::Dense] {
        for (kappa, row) in table {
            for (&f, &(z_tab, dz_tab)) in [0.5, 0.9, 1.0, 1.1, 1.5].iter().zip(&row) {
                let params = fixed_kappa(kappa, mode);
                let step = a6_step(f, 0.0, 0.0);
                let mut cs = CSolver::new(params);
                ok(cs.solve(&step));
                cs.compute_sensitivities();
                let z = h * cs.v()[0];
                let (dv_dtau, dl_dtau) = cs.sensitivity(SensitivityParameter::Tau);
                let dz = h * dv_dtau[(0, 0)];
                let a = h * h * (f - m * g);
                let root = (h.powi(4) * (f - m * g).powi(2) + 4.0 * m * h * kappa).sqrt();
                let z_exact = h * (a + root) / (2.0 * m * h);
                let dz_exact = h * h / (2.0 * m) * (1.0 + a / root);
                let what = format!("{mode:?} κ {kappa} F {f}");
                assert!(relerr(z, z_exact) < 1e-8, "{what}: z {z:e} vs {z_exact:e}");
                assert!(relerr(dz, dz_exact) < 1e-8, "{what}: dz/dF {dz:e} vs {dz_exact:e}");
                assert!(relerr(z, z_tab) < 1e-6, "{what}: z {z:e} vs table {z_tab:e}");
                assert!(relerr(dz, dz_tab) < 1e-6, "{what}: dz/dF {dz:e} vs table {dz_tab:e}");

                // IFT vs a central finite difference of the fixed-κ C solve (1e-6 relative).
                let d = 1e-6 * f;
                let fd = (a6_z(f + d, 0.0, 0.0, params) - a6_z(f - d, 0.0, 0.0, params)) / (2.0 * d);
                assert!(relerr(dz, fd) < 1e-6, "{what}: IFT {dz:e} vs FD {fd:e}");
                // The other parameters, from the same central-path equation
                // m (v − v0) − h τ − κ/(φ + h v) = 0 with D = m + κ h / s², s = φ + h v = z⁺:
                // ∂v/∂v0 = m / D, ∂v/∂φ = −(κ/s²) / D (and ∂v/∂τ = h / D as above).
                let big_d = m + kappa * h / (z_exact * z_exact);
                let (dv_dv0, _) = cs.sensitivity(SensitivityParameter::V0);
                let want = m / big_d;
                assert!(
                    relerr(dv_dv0[(0, 0)], want) < 1e-8,
                    "{what}: ∂v/∂v0 {:e} vs {want:e}",
                    dv_dv0[(0, 0)]
                );
                let (dv_dphi, dl_dphi) = cs.sensitivity(SensitivityParameter::Phi);
                let want = -(kappa / (z_exact * z_exact)) / big_d;
                assert!(
                    relerr(dv_dphi[(0, 0)], want) < 1e-8,
                    "{what}: ∂v/∂φ {:e} vs {want:e}",
                    dv_dphi[(0, 0)]
                );
                // Momentum balance: γ = m v − h(F − m g) ⇒ dγ/dF = m dv/dF − h, dγ/dφ = m dv/dφ.
                close(dl_dtau[(0, 0)], m * dv_dtau[(0, 0)] - h, 1e-12, "dγ/dF");
                close(dl_dphi[(0, 0)], m * dv_dphi[(0, 0)], 1e-12, "dγ/dφ");
                assert_eq!((dl_dtau.nrows(), dl_dtau[(1, 0)], dl_dtau[(2, 0)]), (3, 0.0, 0.0));
                let (dv_dmu, dl_dmu) = cs.sensitivity(SensitivityParameter::Mu);
                assert!(dv_dmu.iter().chain(dl_dmu.iter()).all(|&x| x == 0.0), "{what}: dμ");

                // The same numbers as the Rust API, to the last bit.
                let mut rs = IpmSolver::new(params).unwrap();
                let outcome = rs.solve(&step.problem()).unwrap();
                assert_eq!(outcome, IpmOutcome::Converged);
                rs.compute_sensitivities(&step.problem()).unwrap();
                assert_same_as_rust(&cs, &rs, outcome);
                for p in SensitivityParameter::ALL {
                    let (dv, dl) = cs.sensitivity(p);
                    assert_eq!(dv, rs.velocity_sensitivity(p).unwrap().clone_owned(), "{what}: ∂v/∂{p:?}");
                    assert_eq!(dl, rs.impulse_sensitivity(p).unwrap().clone_owned(), "{what}: ∂λ/∂{p:?}");
                }
            }
        }
    }
}

#[test]
fn sensitivities_of_a_sliding_contact_match_the_rust_api() {
    // A2's slip (F = 6) with both friction models, all four parameters, through the C ABI and the
    // Rust API: identical matrices; and the smoothed gradient of the sliding velocity with respect
    // to the push, ∂vx/∂τx ≈ h/m = 0.1 while sliding.
    for model in [ContactModel::SecondOrderCone, ContactModel::Linear] {
        let params = tol(1e-8, 1e-8);
        let pm = PointMass::new(1.0, 0.1, G, 0.5, model);
        let step = Step::point_mass(&pm, [0.0; 3], [0.0; 3], [6.0, 0.0]);
        let mut cs = CSolver::new(params);
        ok(cs.solve(&step));
        cs.compute_sensitivities();
        let mut rs = IpmSolver::new(params).unwrap();
        let outcome = rs.solve(&step.problem()).unwrap();
        rs.compute_sensitivities(&step.problem()).unwrap();
        assert_same_as_rust(&cs, &rs, outcome);
        for p in SensitivityParameter::ALL {
            let (dv, dl) = cs.sensitivity(p);
            assert_eq!(dv, rs.velocity_sensitivity(p).unwrap().clone_owned(), "{model:?} ∂v/∂{p:?}");
            assert_eq!(dl, rs.impulse_sensitivity(p).unwrap().clone_owned(), "{model:?} ∂λ/∂{p:?}");
        }
        let (dv_dtau, _) = cs.sensitivity(SensitivityParameter::Tau);
        close(dv_dtau[(0, 0)], 0.1, 1e-4, "sliding ∂vx/∂τx");
        // ∂vx/∂μ = −h g (friction grows with μ while sliding): −0.981.
        let (dv_dmu, _) = cs.sensitivity(SensitivityParameter::Mu);
        close(dv_dmu[(0, 0)], -0.981, 1e-4, "sliding ∂vx/∂μ");
    }
}

/// The engine iteration's options through the C ABI (`docs/ipm.md` §11.2–§11.5): the new
/// parameters round-trip and are validated, contact ids are checked before anything is read and
/// a count that does not match the problem fails the solve as a usage error with the results
/// kept, and the two new outcome statuses have their strings.
#[test]
fn engine_options_and_contact_ids_through_the_c_abi() {
    let pm = PointMass::new(1.0, 0.1, G, 0.5, ContactModel::SecondOrderCone);
    let step = Step::point_mass(&pm, [0.0; 3], [0.0; 3], [3.0, 0.0]);
    let params = IpmParameters {
        warm_start: true,
        normal_compliance: 0.1,
        centrality_correctors: 3,
        ..IpmParameters::default()
    };
    let mut cs = CSolver::new(params);
    let mut cp = unsafe { std::mem::zeroed::<c::cts_ipm_parameters>() };
    ok(unsafe { c::cts_ipm_solver_get_parameters(cs.handle, &mut cp) });
    assert_eq!((cp.centrality_correctors, cp.normal_compliance, cp.stall_iterations), (3, 0.1, 20));
    assert_eq!(cp.proximal_regularization, 1e-2);
    for bad in [
        c::cts_ipm_parameters { centrality_correctors: 11, ..cp },
        c::cts_ipm_parameters { centrality_correctors: -1, ..cp },
        c::cts_ipm_parameters { normal_compliance: f64::NAN, ..cp },
        c::cts_ipm_parameters { normal_compliance: -1.0, ..cp },
        c::cts_ipm_parameters { proximal_regularization: f64::INFINITY, ..cp },
        c::cts_ipm_parameters { stall_iterations: -1, ..cp },
    ] {
        assert_eq!(unsafe { c::cts_ipm_solver_set_parameters(cs.handle, &bad) }, cts_status::InvalidArgument);
    }

    let h = cs.handle;
    let ids = [42u64];
    assert_eq!(
        unsafe { c::cts_ipm_solver_set_contact_ids(std::ptr::null_mut(), ids.as_ptr(), 1) },
        cts_status::NullPointer
    );
    assert_eq!(unsafe { c::cts_ipm_solver_set_contact_ids(h, std::ptr::null(), 1) }, cts_status::NullPointer);
    assert_eq!(
        unsafe { c::cts_ipm_solver_set_contact_ids(h, ids.as_ptr(), usize::MAX) },
        cts_status::InvalidArgument
    );
    ok(unsafe { c::cts_ipm_solver_set_contact_ids(h, ids.as_ptr(), 1) });
    ok(cs.solve(&step));
    let first = cs.stats().iterations;
    // Warm start by id: the same contact under the same id.
    ok(unsafe { c::cts_ipm_solver_solve(h) });
    assert!(cs.stats().iterations <= first, "{} vs {first}", cs.stats().iterations);
    let v = cs.v();
    // Two ids for one contact: a usage error of the solve, the results kept.
    ok(unsafe { c::cts_ipm_solver_set_contact_ids(h, [1u64, 2].as_ptr(), 2) });
    assert_eq!(unsafe { c::cts_ipm_solver_solve(h) }, cts_status::DimensionMismatch);
    assert_eq!(cs.v(), v);
    // NULL with 0 clears them.
    ok(unsafe { c::cts_ipm_solver_set_contact_ids(h, std::ptr::null(), 0) });
    ok(unsafe { c::cts_ipm_solver_solve(h) });

    let text = |code: i32| {
        unsafe { std::ffi::CStr::from_ptr(contact_solvers::ffi::status::cts_status_string(code)) }
            .to_str()
            .unwrap()
            .to_owned()
    };
    assert!(text(43).contains("almost converged"), "{}", text(43));
    assert!(text(44).contains("stalled"), "{}", text(44));
    assert_eq!(cts_status::IpmAlmostConverged as i32, 43);
    assert_eq!(cts_status::IpmStalled as i32, 44);
}

/// `cts_ipm_parameters_engine` (issue 30, `docs/ipm.md` §11.7): the Rust preset field by field,
/// NULL refused with CTS_STATUS_NULL_POINTER, and a solver accepts it and reads it back.
#[test]
fn engine_preset_through_the_c_abi() {
    assert_eq!(unsafe { c::cts_ipm_parameters_engine(std::ptr::null_mut()) }, cts_status::NullPointer);
    let mut cp = unsafe { std::mem::zeroed::<c::cts_ipm_parameters>() };
    ok(unsafe { c::cts_ipm_parameters_engine(&mut cp) });
    assert_eq!(cp, c::cts_ipm_parameters::from(IpmParameters::engine()));
    assert_eq!((cp.near_rigid_beta, cp.natural_map_tolerance), (1.0, 0.0));
    let mut d = unsafe { std::mem::zeroed::<c::cts_ipm_parameters>() };
    unsafe { c::cts_ipm_parameters_default(&mut d) };
    assert_eq!((d.near_rigid_beta, d.natural_map_tolerance), (0.0, 1e-6));
    let mut handle = std::ptr::null_mut();
    ok(unsafe { c::cts_ipm_solver_new(&mut handle) });
    ok(unsafe { c::cts_ipm_solver_set_parameters(handle, &cp) });
    let mut back = unsafe { std::mem::zeroed::<c::cts_ipm_parameters>() };
    ok(unsafe { c::cts_ipm_solver_get_parameters(handle, &mut back) });
    assert_eq!(back, cp);
    cp.near_rigid_beta = -1.0;
    assert_eq!(unsafe { c::cts_ipm_solver_set_parameters(handle, &cp) }, cts_status::InvalidArgument);
    unsafe { c::cts_ipm_solver_free(handle) };
}
