//! The rigid constraint solver and the LCP solvers through the C ABI (`cts_rigid_*`,
//! `cts_lcp_*`), called exactly as C calls them, for the Rod2D data of `tests/support/rod2d.rs`.
//! Dense operators go in as copies padded with NaN rows below `rows` (`ld = rows + 2`), so every
//! solve also checks that padding is never read; callback operators are `extern "C"` functions
//! with a `user_data` pointing at the Jacobian.
#![allow(unsafe_code)]

use std::cell::Cell;
use std::ffi::{CStr, c_void};

use contact_solvers::ffi::cts_status;
use contact_solvers::ffi::lcp as cl;
use contact_solvers::ffi::rigid as cr;
use nalgebra::{DMatrix, DVector};

use crate::rod2d::{AccelOwned, InertiaForm, VelOwned};

/// How the operators are handed to the C API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Every Jacobian and the inertia as NaN-padded dense matrices.
    Dense,
    /// Every operator and `solve_inertia` as C callbacks.
    Callbacks,
}

/// What a callback computes: `y = A x` or `y = Aᵀ x`; `fail_with` makes it return that code.
pub struct OpCtx {
    pub a: DMatrix<f64>,
    pub transpose: bool,
    pub calls: Cell<usize>,
    pub fail_with: i32,
}

/// The C callback: `out = A·in` (or `Aᵀ·in`), written in plain loops.
unsafe extern "C" fn apply(ud: *mut c_void, x: *const f64, nx: usize, y: *mut f64, ny: usize) -> i32 {
    // SAFETY: `ud` is the `OpCtx` registered with the callback; x, y valid for nx, ny doubles.
    let ctx = unsafe { &*(ud as *const OpCtx) };
    ctx.calls.set(ctx.calls.get() + 1);
    if ctx.fail_with != 0 {
        return ctx.fail_with;
    }
    let (r, c) = ctx.a.shape();
    let (rows, cols) = if ctx.transpose { (c, r) } else { (r, c) };
    if nx != cols || ny != rows || (nx > 0 && x.is_null()) || (ny > 0 && y.is_null()) {
        return 99;
    }
    let x = if nx == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(x, nx) } };
    let y = if ny == 0 { &mut [][..] } else { unsafe { std::slice::from_raw_parts_mut(y, ny) } };
    for (i, yi) in y.iter_mut().enumerate() {
        let mut s = 0.0;
        for (k, &xk) in x.iter().enumerate() {
            s += if ctx.transpose { ctx.a[(k, i)] } else { ctx.a[(i, k)] } * xk;
        }
        *yi = s;
    }
    0
}

/// Copy of `m` with `pad` NaN rows below each column; returns (buffer, ld).
pub fn padded(m: &DMatrix<f64>, pad: usize) -> (Vec<f64>, usize) {
    let (r, c) = m.shape();
    let ld = r.max(1) + pad;
    let mut buf = vec![f64::NAN; ld * c.max(1)];
    for j in 0..c {
        for i in 0..r {
            buf[i + j * ld] = m[(i, j)];
        }
    }
    (buf, ld)
}

/// The handle's last error message (`h` is the handle of a live [`CRigid`]).
#[allow(clippy::not_unsafe_ptr_arg_deref, reason = "test helper, called with live handles only")]
pub fn last_error(h: *const cr::cts_rigid_solver) -> String {
    unsafe { CStr::from_ptr(cr::cts_rigid_solver_last_error(h)) }.to_string_lossy().into_owned()
}

/// A `cts_rigid_solver` handle with everything its borrowed operators point at.
pub struct CRigid {
    pub h: *mut cr::cts_rigid_solver,
    /// Padded matrices and callback contexts of the acceleration level ([0]) and the velocity
    /// level ([1]), alive until that level is set again.
    bufs: [Vec<Vec<f64>>; 2],
    // Boxed: the C side holds each context's address as `user_data`, so it must not move when
    // the vector grows.
    #[allow(clippy::vec_box)]
    pub ctxs: [Vec<Box<OpCtx>>; 2],
}

impl Drop for CRigid {
    fn drop(&mut self) {
        unsafe { cr::cts_rigid_solver_free(self.h) };
    }
}

fn ok(s: cts_status, h: *const cr::cts_rigid_solver) {
    assert_eq!(s, cts_status::Ok, "{}", last_error(h));
}

fn ptr(v: &[f64]) -> *const f64 {
    if v.is_empty() { std::ptr::null() } else { v.as_ptr() }
}

fn iptr(v: &[usize]) -> *const usize {
    if v.is_empty() { std::ptr::null() } else { v.as_ptr() }
}

impl CRigid {
    pub fn new(params: Option<cr::cts_rigid_parameters>) -> Self {
        let mut h = std::ptr::null_mut();
        assert_eq!(unsafe { cr::cts_rigid_solver_new(&mut h) }, cts_status::Ok);
        if let Some(p) = params {
            ok(unsafe { cr::cts_rigid_solver_set_parameters(h, &p) }, h);
        }
        Self { h, bufs: [Vec::new(), Vec::new()], ctxs: [Vec::new(), Vec::new()] }
    }

    fn matrix(&mut self, accel: bool, op: i32, a: &DMatrix<f64>) {
        let (buf, ld) = padded(a, 2);
        let p = if a.nrows() == 0 { std::ptr::null() } else { buf.as_ptr() };
        let s = unsafe {
            if accel {
                cr::cts_rigid_solver_set_accel_operator_matrix(self.h, op, p, ld)
            } else {
                cr::cts_rigid_solver_set_vel_operator_matrix(self.h, op, p, ld)
            }
        };
        ok(s, self.h);
        self.bufs[usize::from(!accel)].push(buf);
    }

    pub fn callback(&mut self, accel: bool, op: i32, a: &DMatrix<f64>, transpose: bool, fail_with: i32) {
        let ctx = Box::new(OpCtx { a: a.clone(), transpose, calls: Cell::new(0), fail_with });
        let ud = &*ctx as *const OpCtx as *mut c_void;
        let s = unsafe {
            if accel {
                cr::cts_rigid_solver_set_accel_operator_callback(self.h, op, Some(apply), ud)
            } else {
                cr::cts_rigid_solver_set_vel_operator_callback(self.h, op, Some(apply), ud)
            }
        };
        ok(s, self.h);
        self.ctxs[usize::from(!accel)].push(ctx);
    }

    fn inertia(&mut self, accel: bool, form: InertiaForm, m: &DMatrix<f64>, minv: &DMatrix<f64>) {
        let (code, a) = match form {
            InertiaForm::Matrix => (cr::CTS_RIGID_INERTIA_MATRIX, m),
            InertiaForm::Inverse => (cr::CTS_RIGID_INERTIA_INVERSE, minv),
        };
        let (buf, ld) = padded(a, 2);
        let s = unsafe {
            if accel {
                cr::cts_rigid_solver_set_accel_inertia_matrix(self.h, code, buf.as_ptr(), ld)
            } else {
                cr::cts_rigid_solver_set_vel_inertia_matrix(self.h, code, buf.as_ptr(), ld)
            }
        };
        ok(s, self.h);
        self.bufs[usize::from(!accel)].push(buf);
    }

    /// Sets the acceleration-level data of `d` (borrowed: `d` must not change or move until the
    /// next set call).
    pub fn set_accel(&mut self, d: &AccelOwned, form: Form) {
        self.bufs[0].clear();
        self.ctxs[0].clear();
        let s = unsafe {
            cr::cts_rigid_solver_set_accel_problem_data(
                self.h,
                d.tau.len(),
                d.sliding.len(),
                iptr(&d.sliding),
                ptr(d.mu_sliding.as_slice()),
                d.non_sliding.len(),
                iptr(&d.non_sliding),
                ptr(d.mu_non_sliding.as_slice()),
                iptr(&d.r),
                ptr(d.k_n.as_slice()),
                ptr(d.k_f.as_slice()),
                d.k_l.len(),
                ptr(d.k_l.as_slice()),
                d.k_g.len(),
                ptr(d.k_g.as_slice()),
                ptr(d.tau.as_slice()),
                i32::from(d.use_lcp),
            )
        };
        ok(s, self.h);
        let ops = [
            (cr::CTS_RIGID_OPERATOR_N_MULT, &d.n, false),
            (cr::CTS_RIGID_OPERATOR_N_MINUS_MUQ_TRANSPOSE_MULT, &d.nmq, true),
            (cr::CTS_RIGID_OPERATOR_F_MULT, &d.f, false),
            (cr::CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, &d.f, true),
            (cr::CTS_RIGID_OPERATOR_L_MULT, &d.l, false),
            (cr::CTS_RIGID_OPERATOR_L_TRANSPOSE_MULT, &d.l, true),
            (cr::CTS_RIGID_OPERATOR_G_MULT, &d.g, false),
            (cr::CTS_RIGID_OPERATOR_G_TRANSPOSE_MULT, &d.g, true),
        ];
        for (op, a, t) in ops {
            match form {
                Form::Dense => self.matrix(true, op, a),
                Form::Callbacks => self.callback(true, op, a, t, 0),
            }
        }
        match form {
            Form::Dense => self.inertia(true, InertiaForm::Inverse, &d.minv, &d.minv),
            Form::Callbacks => self.callback(true, cr::CTS_RIGID_OPERATOR_SOLVE_INERTIA, &d.minv, false, 0),
        }
    }

    /// Sets the velocity-level data of `d` (borrowed as in `set_accel`). Empty γ vectors go in
    /// as NULL.
    pub fn set_vel(&mut self, d: &VelOwned, form: Form) {
        self.bufs[1].clear();
        self.ctxs[1].clear();
        let s = unsafe {
            cr::cts_rigid_solver_set_vel_problem_data(
                self.h,
                d.mv.len(),
                d.mu.len(),
                iptr(&d.r),
                ptr(d.mu.as_slice()),
                ptr(d.k_n.as_slice()),
                ptr(d.gamma_n.as_slice()),
                ptr(d.k_f.as_slice()),
                ptr(d.gamma_f.as_slice()),
                ptr(d.gamma_e.as_slice()),
                d.k_l.len(),
                ptr(d.k_l.as_slice()),
                ptr(d.gamma_l.as_slice()),
                d.k_g.len(),
                ptr(d.k_g.as_slice()),
                ptr(d.mv.as_slice()),
            )
        };
        ok(s, self.h);
        let ops = [
            (cr::CTS_RIGID_OPERATOR_N_MULT, &d.n, false),
            (cr::CTS_RIGID_OPERATOR_N_TRANSPOSE_MULT, &d.n, true),
            (cr::CTS_RIGID_OPERATOR_F_MULT, &d.f, false),
            (cr::CTS_RIGID_OPERATOR_F_TRANSPOSE_MULT, &d.f, true),
            (cr::CTS_RIGID_OPERATOR_L_MULT, &d.l, false),
            (cr::CTS_RIGID_OPERATOR_L_TRANSPOSE_MULT, &d.l, true),
            (cr::CTS_RIGID_OPERATOR_G_MULT, &d.g, false),
            (cr::CTS_RIGID_OPERATOR_G_TRANSPOSE_MULT, &d.g, true),
        ];
        for (op, a, t) in ops {
            match form {
                Form::Dense => self.matrix(false, op, a),
                Form::Callbacks => self.callback(false, op, a, t, 0),
            }
        }
        match form {
            Form::Dense => self.inertia(false, d.inertia_form, &d.m, &d.minv),
            Form::Callbacks => self.callback(false, cr::CTS_RIGID_OPERATOR_SOLVE_INERTIA, &d.minv, false, 0),
        }
    }

    pub fn solve_constraint_problem(&mut self) -> cts_status {
        unsafe { cr::cts_rigid_solver_solve_constraint_problem(self.h) }
    }

    pub fn solve_impact_problem(&mut self) -> cts_status {
        unsafe { cr::cts_rigid_solver_solve_impact_problem(self.h) }
    }

    pub fn solve_discretized_problem(&mut self, dt: f64) -> cts_status {
        unsafe { cr::cts_rigid_solver_solve_discretized_problem(self.h, dt) }
    }

    pub fn cf(&self) -> Vec<f64> {
        let n = unsafe { cr::cts_rigid_solver_num_constraint_forces(self.h) };
        let mut out = vec![0.0; n];
        ok(unsafe { cr::cts_rigid_solver_get_constraint_forces(self.h, out.as_mut_ptr(), n) }, self.h);
        out
    }

    pub fn num_pivots(&self) -> usize {
        unsafe { cr::cts_rigid_solver_num_pivots(self.h) }
    }

    /// The last LCP: (MM, qq, z, w).
    pub fn lcp(&self) -> (DMatrix<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
        let n = unsafe { cr::cts_rigid_solver_lcp_size(self.h) };
        let ld = n + 1;
        let mut mm = vec![7.0; ld * n.max(1)];
        ok(unsafe { cr::cts_rigid_solver_get_lcp_matrix(self.h, mm.as_mut_ptr(), ld) }, self.h);
        for j in 0..n {
            assert_eq!(mm[n + j * ld], 7.0, "padding row written");
        }
        let m = DMatrix::from_fn(n, n, |i, j| mm[i + j * ld]);
        let get = |f: unsafe extern "C" fn(*const cr::cts_rigid_solver, *mut f64, usize) -> cts_status| {
            let mut v = vec![0.0; n];
            ok(unsafe { f(self.h, v.as_mut_ptr(), n) }, self.h);
            v
        };
        (
            m,
            get(cr::cts_rigid_solver_get_lcp_vector),
            get(cr::cts_rigid_solver_get_lcp_z),
            get(cr::cts_rigid_solver_get_lcp_w),
        )
    }

    fn post(
        &mut self,
        nv: usize,
        f: unsafe extern "C" fn(*mut cr::cts_rigid_solver, *const f64, usize, *mut f64, usize) -> cts_status,
        cf: &[f64],
    ) -> Vec<f64> {
        let mut out = vec![0.0; nv];
        ok(unsafe { f(self.h, ptr(cf), cf.len(), out.as_mut_ptr(), nv) }, self.h);
        out
    }

    /// `ComputeGeneralizedAcceleration(accel_data, cf)`.
    pub fn ga_accel(&mut self, nv: usize, cf: &[f64]) -> Vec<f64> {
        self.post(nv, cr::cts_rigid_solver_compute_generalized_acceleration, cf)
    }

    /// `ComputeGeneralizedForceFromConstraintForces(accel_data, cf)`.
    pub fn gf_accel(&mut self, nv: usize, cf: &[f64]) -> Vec<f64> {
        self.post(nv, cr::cts_rigid_solver_compute_generalized_force_from_constraint_forces, cf)
    }

    /// `ComputeGeneralizedAccelerationFromConstraintForces(accel_data, cf)`.
    pub fn ga_from_cf_accel(&mut self, nv: usize, cf: &[f64]) -> Vec<f64> {
        self.post(nv, cr::cts_rigid_solver_compute_generalized_acceleration_from_constraint_forces, cf)
    }

    /// `ComputeGeneralizedVelocityChange(vel_data, cf)`.
    pub fn dv(&mut self, nv: usize, cf: &[f64]) -> Vec<f64> {
        self.post(nv, cr::cts_rigid_solver_compute_generalized_velocity_change, cf)
    }

    /// `ComputeGeneralizedForceFromConstraintForces(vel_data, cf)`.
    pub fn gi_vel(&mut self, nv: usize, cf: &[f64]) -> Vec<f64> {
        self.post(nv, cr::cts_rigid_solver_compute_generalized_impulse_from_constraint_impulses, cf)
    }

    /// `ComputeGeneralizedAcceleration(vel_data, v, cf, dt)`.
    pub fn ga_disc(&mut self, v: &[f64], cf: &[f64], dt: f64) -> Vec<f64> {
        let nv = v.len();
        let mut out = vec![0.0; nv];
        let s = unsafe {
            cr::cts_rigid_solver_compute_generalized_acceleration_discretized(
                self.h,
                v.as_ptr(),
                ptr(cf),
                cf.len(),
                dt,
                out.as_mut_ptr(),
                nv,
            )
        };
        ok(s, self.h);
        out
    }
}

/// Drake HEAD's switches as C parameters.
pub fn drake_head() -> cr::cts_rigid_parameters {
    cr::cts_rigid_parameters {
        drake_inverse_inertia_blocks: 1,
        drake_limit_row_transpose: 1,
        drake_double_gamma: 1,
        drake_empty_fast_exit: 1,
    }
}

/// The default C parameters.
pub fn default_params() -> cr::cts_rigid_parameters {
    let mut p = drake_head();
    unsafe { cr::cts_rigid_parameters_default(&mut p) };
    p
}

/// A `cts_lcp_solver` handle.
pub struct CLcp(pub *mut cl::cts_lcp_solver);

impl Drop for CLcp {
    fn drop(&mut self) {
        unsafe { cl::cts_lcp_solver_free(self.0) };
    }
}

/// `cts_lcp_solver_get_z` / `_get_w`.
type Getter = unsafe extern "C" fn(*const cl::cts_lcp_solver, *mut f64, usize) -> cts_status;

/// Result of one C LCP solve.
#[derive(Debug, Clone, PartialEq)]
pub struct LcpRun {
    pub status: cts_status,
    pub z: Vec<f64>,
    pub w: Vec<f64>,
    pub pivots: usize,
}

impl CLcp {
    pub fn new() -> Self {
        let mut h = std::ptr::null_mut();
        assert_eq!(unsafe { cl::cts_lcp_solver_new(&mut h) }, cts_status::Ok);
        Self(h)
    }

    pub fn set_parameters(&mut self, p: &cl::cts_lcp_parameters) {
        assert_eq!(unsafe { cl::cts_lcp_solver_set_parameters(self.0, p) }, cts_status::Ok);
    }

    pub fn last_error(&self) -> String {
        unsafe { CStr::from_ptr(cl::cts_lcp_solver_last_error(self.0)) }.to_string_lossy().into_owned()
    }

    /// Solves with M copied into a NaN-padded buffer (`ld = n + 3`).
    pub fn solve(
        &mut self,
        algorithm: i32,
        m: &DMatrix<f64>,
        q: &DVector<f64>,
        z0: Option<&[f64]>,
    ) -> LcpRun {
        let n = q.len();
        let (buf, ld) = padded(m, 3);
        let z0 = z0.map_or(std::ptr::null(), |z| z.as_ptr());
        let mp = if n == 0 { std::ptr::null() } else { buf.as_ptr() };
        let status = unsafe { cl::cts_lcp_solver_solve(self.0, algorithm, n, mp, ld, ptr(q.as_slice()), z0) };
        assert!(
            (status == cts_status::Ok) == self.last_error().is_empty(),
            "status {status:?}, message '{}'",
            self.last_error()
        );
        assert_eq!(unsafe { cl::cts_lcp_solver_size(self.0) }, n);
        let mut z = vec![f64::NAN; n];
        let mut w = vec![f64::NAN; n];
        // z and w are copied even when not finite (only after a failed solve), with
        // NON_FINITE_RESULT instead of OK.
        for (get, out) in [(cl::cts_lcp_solver_get_z as Getter, &mut z), (cl::cts_lcp_solver_get_w, &mut w)] {
            let s = unsafe { get(self.0, out.as_mut_ptr(), n) };
            let finite = out.iter().all(|x| x.is_finite());
            let expected = if finite { cts_status::Ok } else { cts_status::NonFiniteResult };
            assert_eq!(s, expected, "getter status with z/w {out:?}");
            assert!(status != cts_status::Ok || finite, "OK solve with a non-finite z or w");
        }
        LcpRun { status, z, w, pivots: unsafe { cl::cts_lcp_solver_num_pivots(self.0) } }
    }
}
