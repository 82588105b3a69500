//! One interface over the two ways users reach TAMSI, so each Drake case runs through both: the
//! Rust API and the C ABI (the `extern "C"` functions of `include/contact_solvers.h`, called
//! exactly as C would call them).
#![allow(unsafe_code)]

use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::tamsi as c;
use contact_solvers::tamsi::{TamsiOutcome, TamsiParameters, TamsiSolver, calc_alpha};
use nalgebra::{DMatrix, DVector};

use super::scenes::Scene;

/// What the Drake cases need from a solver.
pub trait Backend {
    const NAME: &'static str;
    fn new(nv: usize) -> Self;
    fn set_parameters(&mut self, p: TamsiParameters);
    /// Sets the scene's data and solves from its guess; the outcome as Drake's enum value.
    fn solve(&mut self, scene: &Scene) -> i32;
    fn v(&self) -> Vec<f64>;
    fn vn(&self) -> Vec<f64>;
    fn vt(&self) -> Vec<f64>;
    fn fn_(&self) -> Vec<f64>;
    fn ft(&self) -> Vec<f64>;
    fn tau_f(&self) -> Vec<f64>;
    fn tau(&self) -> Vec<f64>;
    fn num_iterations(&self) -> usize;
    fn residuals(&self) -> Vec<f64>;
    fn vt_residual(&self) -> f64;
    /// J at `v` for the scene last solved (column-major nv×nv).
    fn jacobian(&mut self, scene: &Scene, v: &[f64]) -> Vec<f64>;
    /// Workspace capacity in contacts, where the backend exposes it.
    fn contact_capacity(&self) -> Option<usize>;
    fn calc_alpha(vt: [f64; 2], dvt: [f64; 2], cos_theta_max: f64, vs: f64, rtol: f64) -> Option<f64>;
}

pub struct RustApi(TamsiSolver);

impl Backend for RustApi {
    const NAME: &'static str = "Rust API";
    fn new(nv: usize) -> Self {
        Self(TamsiSolver::new(nv))
    }
    fn set_parameters(&mut self, p: TamsiParameters) {
        self.0.set_parameters(p).unwrap();
    }
    fn solve(&mut self, scene: &Scene) -> i32 {
        self.0.solve_with_guess(&scene.problem(), scene.dt, scene.v0.as_view()).unwrap() as i32
    }
    fn v(&self) -> Vec<f64> {
        self.0.generalized_velocities().to_vec()
    }
    fn vn(&self) -> Vec<f64> {
        self.0.normal_velocities().to_vec()
    }
    fn vt(&self) -> Vec<f64> {
        self.0.tangential_velocities().to_vec()
    }
    fn fn_(&self) -> Vec<f64> {
        self.0.normal_forces().to_vec()
    }
    fn ft(&self) -> Vec<f64> {
        self.0.friction_forces().to_vec()
    }
    fn tau_f(&self) -> Vec<f64> {
        self.0.generalized_friction_forces().to_vec()
    }
    fn tau(&self) -> Vec<f64> {
        self.0.generalized_contact_forces().to_vec()
    }
    fn num_iterations(&self) -> usize {
        self.0.iteration_stats().num_iterations
    }
    fn residuals(&self) -> Vec<f64> {
        self.0.iteration_stats().residuals.clone()
    }
    fn vt_residual(&self) -> f64 {
        self.0.iteration_stats().vt_residual()
    }
    fn jacobian(&mut self, scene: &Scene, v: &[f64]) -> Vec<f64> {
        let nv = scene.nv();
        let mut j = DMatrix::zeros(nv, nv);
        let v = DVector::from_column_slice(v);
        self.0.calc_jacobian(&scene.problem(), scene.dt, v.as_view(), j.as_view_mut()).unwrap();
        j.as_slice().to_vec()
    }
    fn contact_capacity(&self) -> Option<usize> {
        Some(self.0.contact_capacity())
    }
    fn calc_alpha(vt: [f64; 2], dvt: [f64; 2], cos_theta_max: f64, vs: f64, rtol: f64) -> Option<f64> {
        calc_alpha(vt, dvt, cos_theta_max, vs, rtol)
    }
}

/// The C ABI, used as a C program would use it.
pub struct CAbi {
    handle: *mut c::cts_tamsi_solver,
    nv: usize,
    nc: usize,
}

impl Drop for CAbi {
    fn drop(&mut self) {
        unsafe { c::cts_tamsi_solver_free(self.handle) };
    }
}

#[track_caller]
fn ok(status: cts_status) {
    assert_eq!(status, cts_status::Ok);
}

impl CAbi {
    fn vector(
        &self,
        len: usize,
        get: unsafe extern "C" fn(*const c::cts_tamsi_solver, *mut f64, usize) -> cts_status,
    ) -> Vec<f64> {
        let mut out = vec![f64::NAN; len];
        ok(unsafe { get(self.handle, out.as_mut_ptr(), len) });
        out
    }
}

impl Backend for CAbi {
    const NAME: &'static str = "C ABI";
    fn new(nv: usize) -> Self {
        let mut handle = std::ptr::null_mut();
        ok(unsafe { c::cts_tamsi_solver_new(nv, &mut handle) });
        assert!(!handle.is_null());
        Self { handle, nv, nc: 0 }
    }
    fn set_parameters(&mut self, p: TamsiParameters) {
        let mut cp = c::cts_tamsi_parameters {
            stiction_tolerance: 0.0,
            max_iterations: 0,
            relative_tolerance: 0.0,
            theta_max: 0.0,
            num_threads: 0,
        };
        unsafe { c::cts_tamsi_parameters_default(&mut cp) };
        cp.stiction_tolerance = p.stiction_tolerance;
        cp.max_iterations = p.max_iterations as i32;
        cp.relative_tolerance = p.relative_tolerance;
        cp.theta_max = p.theta_max;
        cp.num_threads = p.num_threads as i32;
        ok(unsafe { c::cts_tamsi_solver_set_parameters(self.handle, &cp) });
    }
    fn solve(&mut self, scene: &Scene) -> i32 {
        let (nv, nc) = (scene.nv(), scene.nc());
        self.nc = nc;
        let ld = |m: &DMatrix<f64>| m.nrows().max(1);
        let status = unsafe {
            match &scene.fn_ {
                Some(fn_) => c::cts_tamsi_solver_set_one_way_coupled_problem_data(
                    self.handle,
                    nc,
                    scene.m.as_ptr(),
                    ld(&scene.m),
                    scene.jn.as_ptr(),
                    ld(&scene.jn),
                    scene.jt.as_ptr(),
                    ld(&scene.jt),
                    scene.p_star.as_ptr(),
                    fn_.as_ptr(),
                    scene.mu.as_ptr(),
                ),
                None => c::cts_tamsi_solver_set_two_way_coupled_problem_data(
                    self.handle,
                    nc,
                    scene.m.as_ptr(),
                    ld(&scene.m),
                    scene.jn.as_ptr(),
                    ld(&scene.jn),
                    scene.jt.as_ptr(),
                    ld(&scene.jt),
                    scene.p_star.as_ptr(),
                    scene.fn0.as_ref().unwrap().as_ptr(),
                    scene.stiffness.as_ref().unwrap().as_ptr(),
                    scene.dissipation.as_ref().unwrap().as_ptr(),
                    scene.mu.as_ptr(),
                ),
            }
        };
        ok(status);
        assert_eq!(unsafe { c::cts_tamsi_solver_num_contacts(self.handle) }, nc);
        assert_eq!(unsafe { c::cts_tamsi_solver_num_velocities(self.handle) }, nv);
        let status =
            unsafe { c::cts_tamsi_solver_solve_with_guess(self.handle, scene.dt, scene.v0.as_ptr(), nv) };
        let code = status as i32;
        assert!((0..=3).contains(&code), "solve returned {status:?}");
        code
    }
    fn v(&self) -> Vec<f64> {
        self.vector(self.nv, c::cts_tamsi_solver_get_generalized_velocities)
    }
    fn vn(&self) -> Vec<f64> {
        self.vector(self.nc, c::cts_tamsi_solver_get_normal_velocities)
    }
    fn vt(&self) -> Vec<f64> {
        self.vector(2 * self.nc, c::cts_tamsi_solver_get_tangential_velocities)
    }
    fn fn_(&self) -> Vec<f64> {
        self.vector(self.nc, c::cts_tamsi_solver_get_normal_forces)
    }
    fn ft(&self) -> Vec<f64> {
        self.vector(2 * self.nc, c::cts_tamsi_solver_get_friction_forces)
    }
    fn tau_f(&self) -> Vec<f64> {
        self.vector(self.nv, c::cts_tamsi_solver_get_generalized_friction_forces)
    }
    fn tau(&self) -> Vec<f64> {
        self.vector(self.nv, c::cts_tamsi_solver_get_generalized_contact_forces)
    }
    fn num_iterations(&self) -> usize {
        let mut stats = c::cts_tamsi_iteration_stats { num_iterations: -1, vt_residual: 0.0 };
        ok(unsafe { c::cts_tamsi_solver_get_iteration_stats(self.handle, &mut stats) });
        stats.num_iterations as usize
    }
    fn residuals(&self) -> Vec<f64> {
        let mut count = usize::MAX;
        ok(unsafe { c::cts_tamsi_solver_get_residuals(self.handle, std::ptr::null_mut(), 0, &mut count) });
        let mut out = vec![f64::NAN; count];
        let mut count2 = 0;
        ok(unsafe { c::cts_tamsi_solver_get_residuals(self.handle, out.as_mut_ptr(), count, &mut count2) });
        assert_eq!(count2, count);
        out
    }
    fn vt_residual(&self) -> f64 {
        let mut stats = c::cts_tamsi_iteration_stats { num_iterations: -1, vt_residual: 0.0 };
        ok(unsafe { c::cts_tamsi_solver_get_iteration_stats(self.handle, &mut stats) });
        stats.vt_residual
    }
    fn jacobian(&mut self, scene: &Scene, v: &[f64]) -> Vec<f64> {
        let nv = scene.nv();
        // A leading dimension larger than nv, padded with NaN that must stay untouched.
        let ld = nv + 2;
        let mut buf = vec![f64::NAN; ld * nv];
        ok(unsafe {
            c::cts_tamsi_solver_calc_jacobian(self.handle, scene.dt, v.as_ptr(), nv, buf.as_mut_ptr(), ld)
        });
        let mut j = Vec::with_capacity(nv * nv);
        for c in 0..nv {
            j.extend_from_slice(&buf[c * ld..c * ld + nv]);
            assert!(buf[c * ld + nv..(c + 1) * ld].iter().all(|x| x.is_nan()), "padding rows written");
        }
        j
    }
    fn contact_capacity(&self) -> Option<usize> {
        Some(unsafe { c::cts_tamsi_solver_contact_capacity(self.handle) })
    }
    fn calc_alpha(vt: [f64; 2], dvt: [f64; 2], cos_theta_max: f64, vs: f64, rtol: f64) -> Option<f64> {
        let mut alpha = f64::NAN;
        let status = unsafe {
            c::cts_tamsi_calc_alpha(vt.as_ptr(), dvt.as_ptr(), cos_theta_max, vs, rtol, &mut alpha)
        };
        match status {
            cts_status::Ok => Some(alpha),
            cts_status::AlphaSolverFailed => {
                assert!(alpha.is_nan(), "alpha_out written on failure");
                None
            }
            other => panic!("cts_tamsi_calc_alpha returned {other:?}"),
        }
    }
}

/// Drake's outcome value for success.
pub const SUCCESS: i32 = TamsiOutcome::Success as i32;
