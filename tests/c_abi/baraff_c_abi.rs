//! Reference cases B1–B7 of `docs/baraff.md` §11 through the C ABI (`cts_baraff_*`, called
//! exactly as C calls them), checked against the spec's numbers with its tolerances and against
//! the Rust API (the same computation: results must be bit-identical).
//!
//! Tolerances as in `tests/solvers/baraff_cases.rs`: 6-decimal spec values to 1e-6, exact values to
//! 1e-9, vanishing accelerations to 1e-9.
#![allow(unsafe_code)]

use std::ffi::CStr;
use std::ptr::{null, null_mut};

use contact_solvers::baraff::{
    BaraffOutcome, BaraffParameters, BaraffSolver, ConsistencyHost, MatrixProblem, ModelProblem, RowKind,
    Rows, Sliding, Stabilization,
};
use contact_solvers::ffi::baraff as c;
use contact_solvers::ffi::cts_status;
use nalgebra::{DMatrix, DVector, dmatrix, dvector};

const G: f64 = 9.81;

#[track_caller]
fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want} (tol {tol})");
}

#[track_caller]
fn close_all(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        close(*g, *w, tol, &format!("{what}[{i}]"));
    }
}

/// Rows in the C encoding. Parameter arrays are empty (passed as NULL) when no row needs them.
struct CRows {
    kind: Vec<i32>,
    normal: Vec<i32>,
    mu: Vec<f64>,
    lo: Vec<f64>,
    hi: Vec<f64>,
}

impl CRows {
    fn new(rows: &[RowKind]) -> Self {
        let friction = rows.iter().any(|r| matches!(r, RowKind::Friction { .. }));
        let boxed = rows.iter().any(|r| matches!(r, RowKind::Boxed { .. }));
        let mut s =
            Self { kind: Vec::new(), normal: Vec::new(), mu: Vec::new(), lo: Vec::new(), hi: Vec::new() };
        for r in rows {
            s.kind.push(r.code());
            let (n, mu, lo, hi) = match *r {
                RowKind::Friction { normal, mu } => (normal as i32, mu, 0.0, 0.0),
                RowKind::Boxed { lo, hi } => (-1, 0.0, lo, hi),
                _ => (-1, 0.0, 0.0, 0.0),
            };
            if friction {
                s.normal.push(n);
                s.mu.push(mu);
            }
            if boxed {
                s.lo.push(lo);
                s.hi.push(hi);
            }
        }
        s
    }
}

fn ptr<T>(v: &[T]) -> *const T {
    if v.is_empty() { null() } else { v.as_ptr() }
}

fn ld(m: &DMatrix<f64>) -> usize {
    m.nrows().max(1)
}

/// The C ABI, used as a C program uses it. Problem data must outlive the solves (borrowed).
struct CSolver(*mut c::cts_baraff_solver);

impl Drop for CSolver {
    fn drop(&mut self) {
        unsafe { c::cts_baraff_solver_free(self.0) };
    }
}

#[track_caller]
fn ok(status: cts_status) {
    assert_eq!(status, cts_status::Ok);
}

impl CSolver {
    fn new() -> Self {
        let mut h = null_mut();
        ok(unsafe { c::cts_baraff_solver_new(&mut h) });
        Self(h)
    }

    fn with_params(f: impl FnOnce(&mut c::cts_baraff_parameters)) -> Self {
        let s = Self::new();
        let mut p = std::mem::MaybeUninit::<c::cts_baraff_parameters>::uninit();
        let mut p = unsafe {
            c::cts_baraff_parameters_default(p.as_mut_ptr());
            p.assume_init()
        };
        f(&mut p);
        ok(unsafe { c::cts_baraff_solver_set_parameters(s.0, &p) });
        s
    }

    fn m(&self) -> usize {
        unsafe { c::cts_baraff_solver_num_rows(self.0) }
    }

    fn n(&self) -> usize {
        unsafe { c::cts_baraff_solver_num_coordinates(self.0) }
    }

    fn set_matrix(&mut self, a: &DMatrix<f64>, b: &DVector<f64>, rows: &CRows) {
        let m = b.len();
        ok(unsafe {
            c::cts_baraff_solver_set_matrix_problem_data(
                self.0,
                m,
                a.as_ptr(),
                ld(a),
                b.as_ptr(),
                ptr(&rows.kind),
                ptr(&rows.normal),
                ptr(&rows.mu),
                ptr(&rows.lo),
                ptr(&rows.hi),
            )
        });
        assert_eq!((self.m(), self.n()), (m, 0));
    }

    fn set_model(
        &mut self,
        mass: &DMatrix<f64>,
        j: &DMatrix<f64>,
        level: i32,
        u: &DVector<f64>,
        rows: &CRows,
    ) {
        let (m, n) = (j.nrows(), mass.nrows());
        ok(unsafe {
            c::cts_baraff_solver_set_model_problem_data(
                self.0,
                m,
                n,
                mass.as_ptr(),
                ld(mass),
                j.as_ptr(),
                ld(j),
                level,
                u.as_ptr(),
                ptr(&rows.kind),
                ptr(&rows.normal),
                ptr(&rows.mu),
                ptr(&rows.lo),
                ptr(&rows.hi),
            )
        });
        assert_eq!((self.m(), self.n()), (m, n));
    }

    fn set_bias(&mut self, bias: &DVector<f64>) {
        ok(unsafe { c::cts_baraff_solver_set_model_bias(self.0, bias.as_ptr(), bias.len()) });
    }

    fn set_sliding(&mut self, q: &DMatrix<f64>, mu: &DVector<f64>) {
        ok(unsafe {
            c::cts_baraff_solver_set_model_sliding(self.0, q.as_ptr(), ld(q), mu.as_ptr(), mu.len())
        });
    }

    /// A solve call's status as an i32, with the message checked: empty on OK, else non-empty.
    fn status(&self, status: cts_status) -> i32 {
        let msg =
            unsafe { CStr::from_ptr(c::cts_baraff_solver_last_error(self.0)) }.to_str().unwrap().to_string();
        assert_eq!(msg.is_empty(), status == cts_status::Ok, "{status:?}: '{msg}'");
        assert!((status as i32) < 100, "usage error {status:?}: {msg}");
        status as i32
    }

    fn solve(&mut self) -> i32 {
        self.status(unsafe { c::cts_baraff_solver_solve(self.0) })
    }

    fn compute_impulses(&mut self) -> i32 {
        self.status(unsafe { c::cts_baraff_solver_compute_impulses(self.0) })
    }

    fn consistency_impulse(&mut self, normal: usize) -> i32 {
        self.status(unsafe { c::cts_baraff_solver_consistency_impulse(self.0, normal) })
    }

    fn needs_impulse(&mut self) -> bool {
        let mut out = -1;
        ok(unsafe { c::cts_baraff_solver_needs_impulse(self.0, &mut out) });
        assert!(out == 0 || out == 1);
        out == 1
    }

    fn vector(
        &self,
        len: usize,
        get: unsafe extern "C" fn(*const c::cts_baraff_solver, *mut f64, usize) -> cts_status,
    ) -> Vec<f64> {
        let mut out = vec![f64::NAN; len];
        ok(unsafe { get(self.0, out.as_mut_ptr(), len) });
        out
    }

    fn forces(&self) -> Vec<f64> {
        self.vector(self.m(), c::cts_baraff_solver_get_forces)
    }
    fn accelerations(&self) -> Vec<f64> {
        self.vector(self.m(), c::cts_baraff_solver_get_accelerations)
    }
    fn generalized(&self) -> Vec<f64> {
        self.vector(self.n(), c::cts_baraff_solver_get_generalized_result)
    }
    fn generalized_change(&self) -> Vec<f64> {
        self.vector(self.n(), c::cts_baraff_solver_get_generalized_change)
    }
    fn sliding_friction(&self) -> Vec<f64> {
        self.vector(self.m(), c::cts_baraff_solver_get_sliding_friction_forces)
    }
    fn composed_b(&self) -> Vec<f64> {
        self.vector(self.m(), c::cts_baraff_solver_get_composed_b)
    }
    fn composed_matrix(&self) -> Vec<f64> {
        let m = self.m();
        let mut out = vec![f64::NAN; m * m];
        ok(unsafe { c::cts_baraff_solver_get_composed_matrix(self.0, out.as_mut_ptr(), m.max(1)) });
        out
    }
    fn sets(&self) -> Vec<i32> {
        let m = self.m();
        let mut out = vec![-1; m];
        ok(unsafe { c::cts_baraff_solver_get_row_sets(self.0, out.as_mut_ptr(), m) });
        out
    }
    fn stats(&self) -> c::cts_baraff_stats {
        let mut s = c::cts_baraff_stats {
            status: -1,
            row: -2,
            pivots: -1,
            iterations: -1,
            worst_violation: f64::NAN,
        };
        ok(unsafe { c::cts_baraff_solver_get_stats(self.0, &mut s) });
        s
    }

    /// Every result equals the Rust API's, bit for bit; model results only after a model solve.
    #[track_caller]
    fn assert_same_as(&self, r: &BaraffSolver, model: bool) {
        assert_eq!(self.forces(), r.forces(), "forces");
        assert_eq!(self.accelerations(), r.accelerations(), "accelerations");
        let sets: Vec<i32> = r.row_sets().iter().map(|s| *s as i32).collect();
        assert_eq!(self.sets(), sets, "row sets");
        let st = self.stats();
        let rs = r.stats();
        assert_eq!(st.status, cts_status::from(rs.outcome) as i32);
        assert_eq!(st.row, rs.outcome.row().map_or(-1, |r| r as i32));
        assert_eq!(st.pivots as usize, rs.pivots);
        assert_eq!(st.iterations as usize, rs.iterations);
        assert_eq!(st.worst_violation.to_bits(), rs.worst_violation.to_bits());
        if model {
            assert_eq!(self.generalized(), r.generalized(), "generalized");
            assert_eq!(self.generalized_change(), r.generalized_change(), "generalized change");
            assert_eq!(self.sliding_friction(), r.sliding_friction_forces(), "sliding friction");
            assert_eq!(self.composed_b(), r.composed_b(), "composed b");
            assert_eq!(self.composed_matrix(), r.composed_matrix().iter().copied().collect::<Vec<_>>(), "A");
        } else {
            let mut x = [7.0];
            let s = unsafe { c::cts_baraff_solver_get_generalized_result(self.0, x.as_mut_ptr(), 0) };
            assert_eq!(s, cts_status::NoSolution, "model results after a matrix solve");
        }
    }
}

fn rust() -> BaraffSolver {
    BaraffSolver::new(BaraffParameters::default()).unwrap()
}

const SOLVED: i32 = 0;
const UNBOUNDED: i32 = 22;
const ITERATION_LIMIT: i32 = 25;
const CLAMPED: i32 = c::CTS_BARAFF_SET_CLAMPED;
const SEPARATING: i32 = c::CTS_BARAFF_SET_SEPARATING;
const AT_UPPER: i32 = c::CTS_BARAFF_SET_AT_UPPER;
const AT_LOWER: i32 = c::CTS_BARAFF_SET_AT_LOWER;
const ACC: i32 = c::CTS_BARAFF_LEVEL_ACCELERATION;
const VEL: i32 = c::CTS_BARAFF_LEVEL_VELOCITY;

/// Solves a matrix problem through both APIs and checks that they agree.
fn matrix_case(a: &DMatrix<f64>, b: &DVector<f64>, rows: &[RowKind]) -> (CSolver, BaraffSolver, i32) {
    let mut r = rust();
    let outcome =
        r.solve(&MatrixProblem { a: a.as_view(), b: b.as_view(), rows: Rows::Kinds(rows) }).unwrap();
    let mut cs = CSolver::new();
    let crows = CRows::new(rows);
    cs.set_matrix(a, b, &crows);
    let status = cs.solve();
    assert_eq!(status, cts_status::from(outcome) as i32);
    cs.assert_same_as(&r, false);
    (cs, r, status)
}

fn normal_row(r: [f64; 2]) -> [f64; 3] {
    [0.0, 1.0, r[0]]
}
fn tangent_row(r: [f64; 2]) -> [f64; 3] {
    [1.0, 0.0, -r[1]]
}
fn jacobian(rows: &[[f64; 3]]) -> DMatrix<f64> {
    DMatrix::from_fn(rows.len(), 3, |i, j| rows[i][j])
}

#[test]
fn b1_particle_static_friction_matrix_interface() {
    let rows = [RowKind::Normal, RowKind::Friction { normal: 0, mu: 0.5 }];
    let a = DMatrix::identity(2, 2);
    for (fx, fnn, ft, at, set) in [
        (3.0, 9.81, -3.0, 0.0, CLAMPED),
        (6.0, 9.81, -4.905, 1.095, AT_LOWER),
        (-6.0, 9.81, 4.905, -1.095, AT_UPPER),
    ] {
        let b = dvector![-G, fx];
        let (cs, _, status) = matrix_case(&a, &b, &rows);
        assert_eq!(status, SOLVED, "F_x = {fx}");
        close_all(&cs.forces(), &[fnn, ft], 1e-9, "B1 forces");
        close_all(&cs.accelerations(), &[0.0, at], 1e-9, "B1 accelerations");
        assert_eq!(cs.sets(), [CLAMPED, set]);
        assert!(cs.stats().worst_violation <= 1e-12);
    }
}

#[test]
fn b2_incline_matrix_interface() {
    let rows = [RowKind::Normal, RowKind::Friction { normal: 0, mu: 0.5 }];
    let a = DMatrix::identity(2, 2);
    for (deg, fnn, ft, at, set) in
        [(20.0f64, 9.218385, -3.355218, 0.0, CLAMPED), (30.0, 8.495709, -4.247855, 0.657145, AT_LOWER)]
    {
        let th = deg.to_radians();
        let b = dvector![-G * th.cos(), G * th.sin()];
        let (cs, _, status) = matrix_case(&a, &b, &rows);
        assert_eq!(status, SOLVED);
        close_all(&cs.forces(), &[fnn, ft], 1e-6, "B2 forces");
        close(cs.accelerations()[1], at, 1e-6, "B2 a_t");
        close(cs.accelerations()[0], 0.0, 1e-9, "B2 a_n");
        assert_eq!(cs.sets()[1], set);
    }
}

const BOX_I: f64 = (1.0 + 0.25) / 12.0;
const LEFT: [f64; 2] = [-0.5, -0.25];
const RIGHT: [f64; 2] = [0.5, -0.25];

/// Solves an acceleration-level model problem through both APIs.
fn model_case(mass: &DMatrix<f64>, j: &DMatrix<f64>, tau: &DVector<f64>, rows: &[RowKind]) -> (CSolver, i32) {
    let mut r = rust();
    let outcome = r
        .solve_model(&ModelProblem::forces(mass.as_view(), j.as_view(), Rows::Kinds(rows), tau.as_view()))
        .unwrap();
    let mut cs = CSolver::new();
    let crows = CRows::new(rows);
    cs.set_model(mass, j, ACC, tau, &crows);
    let status = cs.solve();
    assert_eq!(status, cts_status::from(outcome) as i32);
    cs.assert_same_as(&r, true);
    (cs, status)
}

#[test]
fn b3_box_model_interface() {
    let mass = DMatrix::from_diagonal(&dvector![1.0, 1.0, BOX_I]);
    // B3a frictionless.
    let j = jacobian(&[normal_row(LEFT), normal_row(RIGHT)]);
    let (cs, status) = model_case(&mass, &j, &dvector![0.0, -G, 0.0], &[RowKind::Normal, RowKind::Normal]);
    assert_eq!(status, SOLVED);
    close_all(&cs.composed_matrix(), &[3.4, -1.4, -1.4, 3.4], 1e-12, "B3a A");
    close_all(&cs.composed_b(), &[-G, -G], 1e-12, "B3a b");
    close_all(&cs.forces(), &[4.905, 4.905], 1e-9, "B3a f");
    close_all(&cs.generalized(), &[0.0; 3], 1e-9, "B3a q̈");

    // B3b/B3c with friction.
    let jf = jacobian(&[normal_row(LEFT), normal_row(RIGHT), tangent_row(LEFT), tangent_row(RIGHT)]);
    let rows = [
        RowKind::Normal,
        RowKind::Normal,
        RowKind::Friction { normal: 0, mu: 0.5 },
        RowKind::Friction { normal: 1, mu: 0.5 },
    ];
    let (cs, status) = model_case(&mass, &jf, &dvector![2.0, -G, 0.0], &rows);
    assert_eq!(status, SOLVED);
    let f = cs.forces();
    close(f[0], 4.405, 1e-9, "B3b N_L");
    close(f[1], 5.405, 1e-9, "B3b N_R");
    close(f[2] + f[3], -2.0, 1e-9, "B3b T_L + T_R");
    close_all(&cs.accelerations(), &[0.0; 4], 1e-9, "B3b a");
    assert_eq!(cs.stats().pivots, 3);

    let (cs, status) = model_case(&mass, &jf, &dvector![6.0, -G, 0.0], &rows);
    assert_eq!(status, SOLVED);
    close_all(&cs.forces(), &[3.67875, 6.13125, -1.839375, -3.065625], 1e-9, "B3c f");
    close_all(&cs.accelerations(), &[0.0, 0.0, 1.095, 1.095], 1e-9, "B3c a");
    assert_eq!(cs.sets(), [CLAMPED, CLAMPED, AT_LOWER, AT_LOWER]);
    assert_eq!(cs.stats().pivots, 4);

    // B3d lifted right corner.
    let (cs, status) =
        model_case(&mass, &j, &dvector![0.0, -G + 8.0, RIGHT[0] * 8.0], &[RowKind::Normal, RowKind::Normal]);
    assert_eq!(status, SOLVED);
    close(cs.forces()[0], 6.179412, 1e-6, "B3d left");
    assert_eq!(cs.forces()[1], 0.0);
    close(cs.accelerations()[1], 8.738824, 1e-6, "B3d a_R");
    assert_eq!(cs.sets(), [CLAMPED, SEPARATING]);
}

#[test]
fn b4_sliding_particle_model_interface() {
    let mass = DMatrix::identity(2, 2);
    let j = dmatrix![0.0, 1.0];
    let q = dmatrix![1.0, 0.0];
    let mu = dvector![0.3];
    let tau = dvector![0.0, -G];
    let rows = [RowKind::Normal];
    let mut r = rust();
    r.solve_model(
        &ModelProblem::forces(mass.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view())
            .with_sliding(Sliding { slip_jacobian: q.as_view(), mu: mu.as_view() }),
    )
    .unwrap();
    let mut cs = CSolver::new();
    let crows = CRows::new(&rows); // borrowed: must outlive the solves
    cs.set_model(&mass, &j, ACC, &tau, &crows);
    cs.set_sliding(&q, &mu);
    assert_eq!(cs.solve(), SOLVED);
    cs.assert_same_as(&r, true);
    close(cs.composed_matrix()[0], 1.0, 1e-12, "B4 A'");
    close(cs.forces()[0], 9.81, 1e-9, "B4 f_n");
    close_all(&cs.sliding_friction(), &[-2.943], 1e-9, "B4 −μ_d f_n");
    close_all(&cs.generalized(), &[-2.943, 0.0], 1e-9, "B4 q̈");
}

struct Rod {
    mass: DMatrix<f64>,
    jn: [f64; 3],
    jt: [f64; 3],
    r: [f64; 2],
}

fn rod() -> Rod {
    let th = 30f64.to_radians();
    let r = [-0.5 * th.cos(), -0.5 * th.sin()];
    Rod {
        mass: DMatrix::from_diagonal(&dvector![1.0, 1.0, 1.0 / 12.0]),
        jn: normal_row(r),
        jt: tangent_row(r),
        r,
    }
}

#[test]
fn b5_painleve_rod_unbounded_ray_through_c() {
    let rod = rod();
    let j = jacobian(&[rod.jn]);
    let tau = dvector![0.0, -G, 0.0];
    let rows = [RowKind::Normal];
    // (μ_d, slip, A', status, f_n)
    for (mu_d, slip, a_eff, status, f_n) in [
        (3.0, -1.0, -0.647114, UNBOUNDED, 0.0),
        (0.3, -1.0, 2.860289, SOLVED, 3.429724),
        (3.0, 1.0, 7.147114, SOLVED, 1.372582),
    ] {
        let q = DMatrix::from_fn(1, 3, |_, k| slip * rod.jt[k]);
        let mu = dvector![mu_d];
        let mut r = rust();
        let outcome = r
            .solve_model(
                &ModelProblem::forces(rod.mass.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view())
                    .with_sliding(Sliding { slip_jacobian: q.as_view(), mu: mu.as_view() }),
            )
            .unwrap();
        let mut cs = CSolver::new();
        let crows = CRows::new(&rows); // borrowed: must outlive the solves
        cs.set_model(&rod.mass, &j, ACC, &tau, &crows);
        cs.set_sliding(&q, &mu);
        assert_eq!(cs.solve(), status, "μ_d {mu_d} slip {slip}");
        // The detail is that of the last call on the handle (the getters below clear it).
        let msg =
            unsafe { CStr::from_ptr(c::cts_baraff_solver_last_error(cs.0)) }.to_str().unwrap().to_string();
        assert_eq!(status, cts_status::from(outcome) as i32);
        cs.assert_same_as(&r, true);
        close(cs.composed_matrix()[0], a_eff, 1e-6, "A'");
        close_all(&cs.composed_b(), &[-G], 1e-12, "b");
        close(cs.forces()[0], f_n, 1e-6, "f_n");
        assert_eq!(msg.is_empty(), status == SOLVED);
        if status == UNBOUNDED {
            let st = cs.stats();
            assert_eq!((st.status, st.row), (22, 0));
            assert_eq!(cs.forces(), [0.0]);
            assert!(msg.starts_with("cts_baraff_solver_solve: unbounded ray while driving row 0"), "{msg}");
        }
    }
}

/// B5b through C: the consistency impulse, then the static-friction force problem with J̇q̇.
#[test]
fn b5b_consistency_impulse_then_forces_through_c() {
    let rod = rod();
    let j = jacobian(&[rod.jn, rod.jt]);
    let qdot = dvector![-1.0, 0.0, 0.0];
    let rows = [RowKind::Normal, RowKind::Friction { normal: 0, mu: 3.0 }];
    let crows = CRows::new(&rows);

    let mut r = rust();
    let p = ModelProblem::velocities(rod.mass.as_view(), j.as_view(), Rows::Kinds(&rows), qdot.as_view());
    assert_eq!(r.consistency_impulse(&p, 0).unwrap(), BaraffOutcome::Solved);

    let mut cs = CSolver::new();
    cs.set_model(&rod.mass, &j, VEL, &qdot, &crows);
    assert_eq!(cs.consistency_impulse(0), SOLVED);
    cs.assert_same_as(&r, true);
    close_all(&cs.composed_matrix(), &[3.25, -1.299038, -1.299038, 1.75], 1e-6, "K");
    close_all(&cs.composed_b(), &[0.0, -1.0], 1e-12, "pre-impulse velocities");
    let p = cs.forces();
    close_all(&p, &[0.324760, 0.812500], 1e-6, "(P_n, P_t)");
    close(p[1] / p[0], 2.5019, 1e-4, "|P_t|/P_n");
    close_all(&cs.accelerations(), &[0.0, 0.0], 1e-9, "post-impulse contact velocities");
    let qdot_plus = cs.generalized();
    close_all(&qdot_plus, &[-0.1875, 0.324760, 0.75], 1e-6, "q̇⁺");
    let dq = cs.generalized_change();
    close_all(&dq, &[0.8125, 0.324760, 0.75], 1e-6, "Δq̇");

    // Not a normal row, or out of range: usage errors, and no results afterwards.
    assert_eq!(unsafe { c::cts_baraff_solver_consistency_impulse(cs.0, 1) }, cts_status::InvalidArgument);
    assert_eq!(unsafe { c::cts_baraff_solver_consistency_impulse(cs.0, 7) }, cts_status::InvalidArgument);
    let mut x = [0.0; 2];
    assert_eq!(unsafe { c::cts_baraff_solver_get_forces(cs.0, x.as_mut_ptr(), 2) }, cts_status::NoSolution);

    // The force problem after the impulse, with the velocity-product term −ω² r.
    let omega = qdot_plus[2];
    let tau = dvector![0.0, -G, 0.0];
    let bias = dvector![-omega * omega * rod.r[1], -omega * omega * rod.r[0]];
    cs.set_model(&rod.mass, &j, ACC, &tau, &crows);
    cs.set_bias(&bias);
    assert_eq!(cs.solve(), SOLVED);
    let mut r = rust();
    r.solve_model(
        &ModelProblem::forces(rod.mass.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view())
            .with_bias(bias.as_view()),
    )
    .unwrap();
    cs.assert_same_as(&r, true);
    close_all(&cs.composed_b(), &[-9.669375, 0.243570], 1e-6, "b with J̇q̇");
    close_all(&cs.forces(), &[4.151250, 2.942321], 1e-6, "f");
    assert_eq!(cs.sets(), [CLAMPED, CLAMPED]);
    close_all(&cs.accelerations(), &[0.0, 0.0], 1e-9, "a");

    // A new set call removes the bias: the spec's "forgotten centripetal term" numbers.
    cs.set_model(&rod.mass, &j, ACC, &tau, &crows);
    assert_eq!(cs.solve(), SOLVED);
    close_all(&cs.forces(), &[4.291875, 3.185891], 1e-6, "f without J̇q̇");
}

/// The host-driven sequence documented on `cts_baraff_solver_consistency_impulse` gives what the
/// Rust API's iterative variant gives (B5: one impulse, then static friction).
#[test]
fn b5_host_sequence_through_c_matches_the_iterative_variant() {
    // The Rust API's iterative variant.
    struct Host {
        rod: Rod,
        qdot: DVector<f64>,
        j1: DMatrix<f64>,
        j2: DMatrix<f64>,
        q: DMatrix<f64>,
        mu: DVector<f64>,
        tau: DVector<f64>,
        bias: DVector<f64>,
        sliding: bool,
        rows1: [RowKind; 1],
        rows2: [RowKind; 2],
    }
    impl Host {
        fn recompose(&mut self) {
            let vt: f64 = (0..3).map(|k| self.rod.jt[k] * self.qdot[k]).sum();
            let w = self.qdot[2];
            self.sliding = vt.abs() >= 1e-6;
            self.q = DMatrix::from_fn(1, 3, |_, k| vt.signum() * self.rod.jt[k]);
            self.bias = if self.sliding {
                dvector![-w * w * self.rod.r[1]]
            } else {
                dvector![-w * w * self.rod.r[1], -w * w * self.rod.r[0]]
            };
        }
    }
    impl ConsistencyHost for Host {
        fn force_problem(&self) -> ModelProblem<'_> {
            if self.sliding {
                ModelProblem::forces(
                    self.rod.mass.as_view(),
                    self.j1.as_view(),
                    Rows::Kinds(&self.rows1),
                    self.tau.as_view(),
                )
                .with_bias(self.bias.as_view())
                .with_sliding(Sliding { slip_jacobian: self.q.as_view(), mu: self.mu.as_view() })
            } else {
                ModelProblem::forces(
                    self.rod.mass.as_view(),
                    self.j2.as_view(),
                    Rows::Kinds(&self.rows2),
                    self.tau.as_view(),
                )
                .with_bias(self.bias.as_view())
            }
        }
        fn consistency_problem(&self, _row: usize) -> (ModelProblem<'_>, usize) {
            (
                ModelProblem::velocities(
                    self.rod.mass.as_view(),
                    self.j2.as_view(),
                    Rows::Kinds(&self.rows2),
                    self.qdot.as_view(),
                ),
                0,
            )
        }
        fn apply_velocity_change(&mut self, dqdot: &[f64]) {
            for (q, d) in self.qdot.iter_mut().zip(dqdot) {
                *q += d;
            }
            self.recompose();
        }
    }
    let r0 = rod();
    let mut host = Host {
        j1: jacobian(&[r0.jn]),
        j2: jacobian(&[r0.jn, r0.jt]),
        rod: r0,
        qdot: dvector![-1.0, 0.0, 0.0],
        q: DMatrix::zeros(1, 3),
        mu: dvector![3.0],
        tau: dvector![0.0, -G, 0.0],
        bias: DVector::zeros(1),
        sliding: true,
        rows1: [RowKind::Normal],
        rows2: [RowKind::Normal, RowKind::Friction { normal: 0, mu: 3.0 }],
    };
    host.recompose();
    let mut r = rust();
    assert_eq!(r.solve_forces_iter(&mut host).unwrap(), BaraffOutcome::Solved);
    assert_eq!(r.stats().consistency_impulses, 1);

    // The same through C, driven by the host.
    let rod = rod();
    let (j1, j2) = (jacobian(&[rod.jn]), jacobian(&[rod.jn, rod.jt]));
    let (rows1, rows2) = (CRows::new(&[RowKind::Normal]), CRows::new(&host.rows2));
    let tau = dvector![0.0, -G, 0.0];
    let mut qdot = dvector![-1.0, 0.0, 0.0];
    let q = DMatrix::from_fn(1, 3, |_, k| -rod.jt[k]);
    let mu = dvector![3.0];
    let bias1 = dvector![0.0];
    let mut cs = CSolver::new();
    cs.set_model(&rod.mass, &j1, ACC, &tau, &rows1);
    cs.set_bias(&bias1);
    cs.set_sliding(&q, &mu);
    assert_eq!(cs.solve(), UNBOUNDED);
    assert_eq!(cs.stats().row, 0);
    cs.set_model(&rod.mass, &j2, VEL, &qdot, &rows2);
    assert_eq!(cs.consistency_impulse(0), SOLVED);
    for (q, d) in qdot.iter_mut().zip(cs.generalized_change()) {
        *q += d;
    }
    let vt: f64 = (0..3).map(|k| rod.jt[k] * qdot[k]).sum();
    assert!(vt.abs() < 1e-6, "the impulse stopped the slip: {vt}");
    let w = qdot[2];
    let bias2 = dvector![-w * w * rod.r[1], -w * w * rod.r[0]];
    cs.set_model(&rod.mass, &j2, ACC, &tau, &rows2);
    cs.set_bias(&bias2);
    assert_eq!(cs.solve(), SOLVED);
    assert_eq!(qdot.as_slice(), host.qdot.as_slice(), "q̇ after the impulse");
    assert_eq!(cs.forces(), r.forces(), "forces after the impulse");
    close_all(&cs.forces(), &[4.151250, 2.942321], 1e-6, "forces after the impulse");
}

#[test]
fn b6_impulses_active_set_through_c() {
    let mass = DMatrix::from_diagonal(&dvector![1.0, 1.0, BOX_I]);
    let j = jacobian(&[normal_row(LEFT), normal_row(RIGHT)]);
    let qdot = dvector![0.0, -1.0, 2.0];
    let rows = [RowKind::Normal, RowKind::Normal];
    let crows = CRows::new(&rows);
    let p = ModelProblem::velocities(mass.as_view(), j.as_view(), Rows::Kinds(&rows), qdot.as_view());

    // Iteration 1 only.
    let mut r =
        BaraffSolver::new(BaraffParameters { max_impulse_iterations: 1, ..BaraffParameters::default() })
            .unwrap();
    r.impulses_active_set(&p).unwrap();
    let mut cs = CSolver::with_params(|p| p.max_impulse_iterations = 1);
    cs.set_model(&mass, &j, VEL, &qdot, &crows);
    assert!(cs.needs_impulse());
    assert_eq!(cs.compute_impulses(), ITERATION_LIMIT);
    cs.assert_same_as(&r, true);
    close_all(&cs.composed_b(), &[-2.0, 0.0], 1e-12, "v");
    close_all(&cs.forces(), &[0.588235, 0.0], 1e-6, "iteration 1 p");
    close_all(&cs.accelerations(), &[0.0, -0.823529], 1e-6, "iteration 1 v⁺");
    assert_eq!(cs.stats().iterations, 1);

    // The full loop.
    let mut r = rust();
    r.impulses_active_set(&p).unwrap();
    let mut cs = CSolver::new();
    cs.set_model(&mass, &j, VEL, &qdot, &crows);
    assert_eq!(cs.compute_impulses(), SOLVED);
    cs.assert_same_as(&r, true);
    assert_eq!(cs.stats().iterations, 2);
    close_all(&cs.forces(), &[0.708333, 0.291667], 1e-6, "p");
    close_all(&cs.accelerations(), &[0.0, 0.0], 1e-9, "v⁺");
    let after = DVector::from_vec(cs.generalized());
    close_all(after.as_slice(), &[0.0, 0.0, 0.0], 1e-9, "q̇⁺");
    assert_eq!(cs.sets(), [CLAMPED, CLAMPED]);

    // The §3 pivoting at velocity level gives the same impulses.
    assert_eq!(cs.solve(), SOLVED);
    close_all(&cs.forces(), &[0.708333, 0.291667], 1e-6, "pivoting p");

    // needs_impulse after the impulse: no.
    cs.set_model(&mass, &j, VEL, &after, &crows);
    assert!(!cs.needs_impulse());
}

#[test]
fn restitution_parameter_reaches_the_impulse_loop() {
    let mass = DMatrix::from_diagonal(&dvector![2.0, 2.0]);
    let j = dmatrix![0.0, 1.0];
    let qdot = dvector![0.3, -2.0];
    let mut cs = CSolver::with_params(|p| p.restitution = 0.5);
    let crows = CRows::new(&[RowKind::Normal]); // borrowed: must outlive the solves
    cs.set_model(&mass, &j, VEL, &qdot, &crows);
    assert_eq!(cs.compute_impulses(), SOLVED);
    close(cs.accelerations()[0], 1.0, 1e-12, "v⁺ = −e v");
    close(cs.forces()[0], 6.0, 1e-12, "p = m Δv");
    close_all(&cs.generalized(), &[0.3, 1.0], 1e-12, "q̇⁺");
}

#[test]
fn b7_bilateral_pin_and_contact_through_c() {
    let mass = DMatrix::from_diagonal(&dvector![1.0, 1.0, 1.0 / 12.0]);
    let (pin, end) = ([-0.5, 0.0], [0.5, 0.0]);
    let j = jacobian(&[tangent_row(pin), normal_row(pin), normal_row(end)]);
    let (cs, status) = model_case(
        &mass,
        &j,
        &dvector![0.0, -G, 0.0],
        &[RowKind::Bilateral, RowKind::Bilateral, RowKind::Normal],
    );
    assert_eq!(status, SOLVED);
    close_all(&cs.forces(), &[0.0, 4.905, 4.905], 1e-9, "B7 (f_x, f_y, contact)");
    close_all(&cs.accelerations(), &[0.0; 3], 1e-9, "B7 a");
    close_all(&cs.generalized(), &[0.0; 3], 1e-9, "B7 q̈");
}

#[test]
fn boxed_rows_through_c() {
    let a = dmatrix![2.0];
    let (cs, _, status) = matrix_case(&a, &dvector![-10.0], &[RowKind::Boxed { lo: -10.0, hi: 2.0 }]);
    assert_eq!(status, SOLVED);
    close(cs.forces()[0], 2.0, 1e-12, "at hi");
    close(cs.accelerations()[0], -6.0, 1e-12, "a at hi");
    assert_eq!(cs.sets(), [AT_UPPER]);
    let (cs, _, _) = matrix_case(&a, &dvector![10.0], &[RowKind::Boxed { lo: -1.0, hi: f64::INFINITY }]);
    close(cs.forces()[0], -1.0, 1e-12, "at lo");
    assert_eq!(cs.sets(), [AT_LOWER]);
    let (cs, _, _) = matrix_case(&a, &dvector![-10.0], &[RowKind::Boxed { lo: -10.0, hi: 10.0 }]);
    close(cs.forces()[0], 5.0, 1e-12, "interior");
    assert_eq!(cs.sets(), [CLAMPED]);
}

#[test]
fn stabilization_through_c() {
    let mass = DMatrix::identity(1, 1);
    let j = dmatrix![1.0];
    let tau = dvector![0.0];
    let cpos = dvector![0.01];
    let cvel = dvector![0.2];
    let rows = [RowKind::Bilateral];
    for include_velocity in [1, 0] {
        let mut r = rust();
        let stab = Stabilization {
            kp: 100.0,
            kv: 20.0,
            position_error: cpos.as_view(),
            velocity_error: (include_velocity == 1).then(|| cvel.as_view()),
        };
        r.solve_model(
            &ModelProblem::forces(mass.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view())
                .with_stabilization(stab),
        )
        .unwrap();
        let mut cs = CSolver::new();
        let crows = CRows::new(&rows); // borrowed: must outlive the solves
        cs.set_model(&mass, &j, ACC, &tau, &crows);
        let vel = if include_velocity == 1 { cvel.as_ptr() } else { null() };
        ok(unsafe {
            c::cts_baraff_solver_set_model_stabilization(
                cs.0,
                100.0,
                20.0,
                cpos.as_ptr(),
                include_velocity,
                vel,
                1,
            )
        });
        assert_eq!(cs.solve(), SOLVED);
        cs.assert_same_as(&r, true);
        let want = if include_velocity == 1 { 5.0 } else { 1.0 };
        close(cs.composed_b()[0], want, 1e-12, "b");
        close(cs.generalized()[0], -want, 1e-12, "q̈ = −kp C − kv Ċ");
    }
}

#[test]
fn parameters_round_trip_and_reach_the_solver() {
    let cs = CSolver::with_params(|p| {
        p.max_pivots = 1;
        p.reverse_retry = 0;
    });
    let mut got = std::mem::MaybeUninit::<c::cts_baraff_parameters>::uninit();
    ok(unsafe { c::cts_baraff_solver_get_parameters(cs.0, got.as_mut_ptr()) });
    let got = unsafe { got.assume_init() };
    let want =
        c::cts_baraff_parameters { max_pivots: 1, reverse_retry: 0, ..BaraffParameters::default().into() };
    assert_eq!(got, want);
    // B3c needs 4 pivots: a cap of 1 stops it (status 24, rows left untreated).
    let mut cs = cs;
    let mass = DMatrix::from_diagonal(&dvector![1.0, 1.0, BOX_I]);
    let jf = jacobian(&[normal_row(LEFT), normal_row(RIGHT), tangent_row(LEFT), tangent_row(RIGHT)]);
    let rows = CRows::new(&[
        RowKind::Normal,
        RowKind::Normal,
        RowKind::Friction { normal: 0, mu: 0.5 },
        RowKind::Friction { normal: 1, mu: 0.5 },
    ]);
    let tau = dvector![6.0, -G, 0.0];
    cs.set_model(&mass, &jf, ACC, &tau, &rows);
    assert_eq!(cs.solve(), 24);
    assert_eq!(cs.stats().status, 24);
    assert!(cs.sets().contains(&c::CTS_BARAFF_SET_UNTREATED), "{:?}", cs.sets());
}

#[test]
fn clone_keeps_parameters_but_not_data() {
    let cs = CSolver::with_params(|p| p.tolerance = 1e-6);
    let mut copy = null_mut();
    ok(unsafe { c::cts_baraff_solver_clone(cs.0, &mut copy) });
    let copy = CSolver(copy);
    let mut p = std::mem::MaybeUninit::<c::cts_baraff_parameters>::uninit();
    ok(unsafe { c::cts_baraff_solver_get_parameters(copy.0, p.as_mut_ptr()) });
    assert_eq!(unsafe { p.assume_init() }.tolerance, 1e-6);
    assert_eq!(unsafe { c::cts_baraff_solver_solve(copy.0) }, cts_status::NoProblemData);
}
