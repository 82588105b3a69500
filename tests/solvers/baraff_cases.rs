//! Reference cases B1–B7 of `docs/baraff.md` §11 through the Rust API.
//!
//! Tolerances: values the spec prints with 6 decimals are checked to 1e-6 (its rounding);
//! values that are exact (9.81, −3, 4.905, …) to 1e-9; accelerations that must vanish to 1e-9.

use contact_solvers::baraff::{
    BaraffError, BaraffOutcome, BaraffParameters, BaraffSolver, CodedRows, ConsistencyHost, MatrixProblem,
    ModelProblem, ROW_FRICTION, ROW_NORMAL, RowKind, RowSet, Rows, Sliding,
};
use nalgebra::{DMatrix, DVector, dmatrix, dvector};

const G: f64 = 9.81;

fn close(got: f64, want: f64, tol: f64, what: &str) {
    assert!((got - want).abs() <= tol, "{what}: got {got}, want {want} (tol {tol})");
}

fn close_all(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        close(*g, *w, tol, &format!("{what}[{i}]"));
    }
}

fn solver() -> BaraffSolver {
    BaraffSolver::new(BaraffParameters::default()).unwrap()
}

fn solve_matrix(s: &mut BaraffSolver, a: &DMatrix<f64>, b: &DVector<f64>, rows: &[RowKind]) -> BaraffOutcome {
    s.solve(&MatrixProblem { a: a.as_view(), b: b.as_view(), rows: Rows::Kinds(rows) }).unwrap()
}

/// Planar rigid body (x, y, θ): normal (vertical) row `(0, 1, r_x)`, tangential (horizontal) row
/// `(1, 0, −r_y)` of a body point at offset `r` (§11).
fn normal_row(r: [f64; 2]) -> [f64; 3] {
    [0.0, 1.0, r[0]]
}
fn tangent_row(r: [f64; 2]) -> [f64; 3] {
    [1.0, 0.0, -r[1]]
}
fn jacobian(rows: &[[f64; 3]]) -> DMatrix<f64> {
    DMatrix::from_fn(rows.len(), 3, |i, j| rows[i][j])
}

// ---------------------------------------------------------------------------------------------
// B1: particle on the ground, μ_s = 0.5, m = 1, horizontal force F_x.

#[test]
fn b1_particle_static_friction() {
    let rows = [RowKind::Normal, RowKind::Friction { normal: 0, mu: 0.5 }];
    let a = DMatrix::identity(2, 2);
    let mut s = solver();
    // (F_x, f_n, f_t, a_t, set of the friction row)
    let table = [
        (3.0, 9.81, -3.0, 0.0, RowSet::Clamped),
        (6.0, 9.81, -4.905, 1.095, RowSet::AtLower),
        (-6.0, 9.81, 4.905, -1.095, RowSet::AtUpper),
    ];
    for (fx, fnn, ft, at, set) in table {
        let b = dvector![-G, fx];
        assert_eq!(solve_matrix(&mut s, &a, &b, &rows), BaraffOutcome::Solved, "F_x = {fx}");
        close_all(s.forces(), &[fnn, ft], 1e-9, &format!("B1 F_x = {fx} forces"));
        close_all(s.accelerations(), &[0.0, at], 1e-9, &format!("B1 F_x = {fx} accelerations"));
        assert_eq!(s.row_sets(), &[RowSet::Clamped, set], "F_x = {fx}");
        assert!(s.stats().worst_violation <= 1e-12);
    }
}

#[test]
fn b1_through_the_coded_rows_of_the_c_layer() {
    let a = DMatrix::identity(2, 2);
    let b = dvector![-G, 6.0];
    let mut s = solver();
    let kind = [ROW_NORMAL, ROW_FRICTION];
    let rows = Rows::Coded(CodedRows { kind: &kind, normal: &[-1, 0], mu: &[0.0, 0.5], lo: &[], hi: &[] });
    let out = s.solve(&MatrixProblem { a: a.as_view(), b: b.as_view(), rows }).unwrap();
    assert_eq!(out, BaraffOutcome::Solved);
    assert_eq!(out.code(), 0);
    close_all(s.forces(), &[9.81, -4.905], 1e-9, "coded B1 forces");
    assert_eq!(s.row_sets()[1] as i32, 3);
}

// ---------------------------------------------------------------------------------------------
// B2: particle on an incline, μ_s = 0.5, tangent down-slope.

#[test]
fn b2_incline_stick_and_slip() {
    let rows = [RowKind::Normal, RowKind::Friction { normal: 0, mu: 0.5 }];
    let a = DMatrix::identity(2, 2);
    let mut s = solver();
    for (deg, fnn, ft, at) in [(20.0f64, 9.218385, -3.355218, 0.0), (30.0, 8.495709, -4.247855, 0.657145)] {
        let th = deg.to_radians();
        let b = dvector![-G * th.cos(), G * th.sin()];
        assert_eq!(solve_matrix(&mut s, &a, &b, &rows), BaraffOutcome::Solved);
        close_all(s.forces(), &[fnn, ft], 1e-6, &format!("B2 θ = {deg}° forces"));
        close(s.accelerations()[0], 0.0, 1e-9, "B2 a_n");
        close(s.accelerations()[1], at, 1e-6, "B2 a_t");
        if deg == 30.0 {
            close(at, G * (th.sin() - 0.5 * th.cos()), 1e-6, "B2 a_t = g(sin θ − μ cos θ)");
            assert_eq!(s.row_sets()[1], RowSet::AtLower);
        } else {
            assert_eq!(s.row_sets()[1], RowSet::Clamped);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// B3: planar box 1 m × 0.5 m, m = 1, corner contacts at r = (∓0.5, −0.25).

const BOX_I: f64 = (1.0 + 0.25) / 12.0;
const LEFT: [f64; 2] = [-0.5, -0.25];
const RIGHT: [f64; 2] = [0.5, -0.25];

fn box_mass() -> DMatrix<f64> {
    DMatrix::from_diagonal(&dvector![1.0, 1.0, BOX_I])
}

#[test]
fn b3a_frictionless_box_on_two_corners() {
    let m = box_mass();
    let j = jacobian(&[normal_row(LEFT), normal_row(RIGHT)]);
    let tau = dvector![0.0, -G, 0.0];
    let rows = [RowKind::Normal, RowKind::Normal];
    let mut s = solver();
    let out = s
        .solve_model(&ModelProblem::forces(m.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view()))
        .unwrap();
    assert_eq!(out, BaraffOutcome::Solved);
    close(BOX_I, 0.104167, 1e-6, "I");
    let a = s.composed_matrix();
    close_all(a.iter().copied().collect::<Vec<_>>().as_slice(), &[3.4, -1.4, -1.4, 3.4], 1e-12, "B3a A");
    close_all(s.composed_b(), &[-G, -G], 1e-12, "B3a b");
    close_all(s.forces(), &[4.905, 4.905], 1e-9, "B3a f");
    close_all(s.accelerations(), &[0.0, 0.0], 1e-9, "B3a a");
    close_all(s.generalized(), &[0.0, 0.0, 0.0], 1e-9, "B3a q̈");
}

fn box_with_friction(push: f64) -> BaraffSolver {
    let m = box_mass();
    let j = jacobian(&[normal_row(LEFT), normal_row(RIGHT), tangent_row(LEFT), tangent_row(RIGHT)]);
    let tau = dvector![push, -G, 0.0];
    let rows = [
        RowKind::Normal,
        RowKind::Normal,
        RowKind::Friction { normal: 0, mu: 0.5 },
        RowKind::Friction { normal: 1, mu: 0.5 },
    ];
    let mut s = solver();
    let out = s
        .solve_model(&ModelProblem::forces(m.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view()))
        .unwrap();
    assert_eq!(out, BaraffOutcome::Solved, "push {push}");
    s
}

#[test]
fn b3b_box_pushed_2n_sticks_test_invariants_not_the_split() {
    let s = box_with_friction(2.0);
    let f = s.forces();
    close(f[0], 4.405, 1e-9, "N_L");
    close(f[1], 5.405, 1e-9, "N_R");
    close(f[1] - f[0], 1.0, 1e-9, "N_R − N_L = h_b F / w");
    close(f[0] + f[1], G, 1e-9, "N_L + N_R = m g");
    close(f[2] + f[3], -2.0, 1e-9, "T_L + T_R");
    assert!(f[2].abs() <= 0.5 * f[0] + 1e-12 && f[3].abs() <= 0.5 * f[1] + 1e-12, "cone: {f:?}");
    close_all(s.accelerations(), &[0.0; 4], 1e-9, "B3b a");
    assert_eq!(s.stats().pivots, 3);
}

#[test]
fn b3c_box_pushed_6n_slides_with_both_frictions_saturated() {
    let s = box_with_friction(6.0);
    close_all(s.forces(), &[3.67875, 6.13125, -1.839375, -3.065625], 1e-9, "B3c f");
    close_all(s.accelerations(), &[0.0, 0.0, 1.095, 1.095], 1e-9, "B3c a");
    assert_eq!(s.row_sets(), &[RowSet::Clamped, RowSet::Clamped, RowSet::AtLower, RowSet::AtLower]);
    assert_eq!(s.stats().pivots, 4);
}

#[test]
fn b3d_frictionless_box_lifted_at_the_right_corner() {
    let m = box_mass();
    let j = jacobian(&[normal_row(LEFT), normal_row(RIGHT)]);
    // 8 N upward at the right corner: torque r × F = r_x F_y = 4 N·m.
    let tau = dvector![0.0, -G + 8.0, RIGHT[0] * 8.0];
    let rows = [RowKind::Normal, RowKind::Normal];
    let mut s = solver();
    let out = s
        .solve_model(&ModelProblem::forces(m.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view()))
        .unwrap();
    assert_eq!(out, BaraffOutcome::Solved);
    close(s.forces()[0], 6.179412, 1e-6, "B3d left normal");
    assert_eq!(s.forces()[1], 0.0);
    close(s.accelerations()[0], 0.0, 1e-9, "B3d a_L");
    close(s.accelerations()[1], 8.738824, 1e-6, "B3d a_R");
    assert_eq!(s.row_sets(), &[RowSet::Clamped, RowSet::Separating]);
}

// ---------------------------------------------------------------------------------------------
// B4: dynamic friction, particle sliding +x, μ_d = 0.3.

#[test]
fn b4_sliding_particle_n_minus_mu_q() {
    let m = DMatrix::identity(2, 2);
    let j = dmatrix![0.0, 1.0];
    let q = dmatrix![1.0, 0.0]; // slip direction +x
    let mu = dvector![0.3];
    let tau = dvector![0.0, -G];
    let rows = [RowKind::Normal];
    let mut s = solver();
    let p = ModelProblem::forces(m.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view())
        .with_sliding(Sliding { slip_jacobian: q.as_view(), mu: mu.as_view() });
    assert_eq!(s.solve_model(&p).unwrap(), BaraffOutcome::Solved);
    close(s.composed_matrix()[(0, 0)], 1.0, 1e-12, "B4 A'");
    close(s.forces()[0], 9.81, 1e-9, "B4 f_n");
    // The friction force −μ_d f_n acts along x: it is the x part of J_fᵀ f = M q̈_constraint.
    close(s.generalized_change()[0], -2.943, 1e-9, "B4 friction force −μ_d f_n");
    close_all(s.sliding_friction_forces(), &[-2.943], 1e-9, "B4 reported friction −μ_d f_n along v̂");
    close_all(s.generalized(), &[-2.943, 0.0], 1e-9, "B4 q̈ (tangential acceleration −2.943)");
}

// ---------------------------------------------------------------------------------------------
// B5: Painlevé rod, length 1 (l = 0.5), m = 1, I = m l²/3 = 1/12, θ = 30°, lower-left end on the
// ground.

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

/// Force problem of the rod sliding with unit slip direction `slip` (±1 along x).
fn rod_sliding(s: &mut BaraffSolver, mu: f64, slip: f64) -> BaraffOutcome {
    let rod = rod();
    let j = jacobian(&[rod.jn]);
    let q = DMatrix::from_fn(1, 3, |_, k| slip * rod.jt[k]);
    let mu = dvector![mu];
    let tau = dvector![0.0, -G, 0.0];
    let rows = [RowKind::Normal];
    let p = ModelProblem::forces(rod.mass.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view())
        .with_sliding(Sliding { slip_jacobian: q.as_view(), mu: mu.as_view() });
    s.solve_model(&p).unwrap()
}

#[test]
fn b5_painleve_rod_unbounded_ray_and_its_consistent_neighbours() {
    let mut s = solver();
    // (μ_d, slip, A', outcome, f_n)
    let out = rod_sliding(&mut s, 3.0, -1.0);
    close(s.composed_matrix()[(0, 0)], -0.647114, 1e-6, "A' μ=3 left");
    close(s.composed_b()[0], -G, 1e-12, "b");
    assert_eq!(out, BaraffOutcome::UnboundedRay { row: 0 });
    assert_eq!(out.code(), 22);
    assert_eq!(s.forces(), &[0.0]);

    assert_eq!(rod_sliding(&mut s, 0.3, -1.0), BaraffOutcome::Solved);
    close(s.composed_matrix()[(0, 0)], 2.860289, 1e-6, "A' μ=0.3 left");
    close(s.forces()[0], 3.429724, 1e-6, "f_n μ=0.3 left");

    assert_eq!(rod_sliding(&mut s, 3.0, 1.0), BaraffOutcome::Solved);
    close(s.composed_matrix()[(0, 0)], 7.147114, 1e-6, "A' μ=3 right");
    close(s.forces()[0], 1.372582, 1e-6, "f_n μ=3 right");

    // A' = (1/m)(1 + 3cos²θ ∓ 3μ sinθ cosθ).
    let th = 30f64.to_radians();
    close(-0.647114, 1.0 + 3.0 * th.cos().powi(2) - 9.0 * th.sin() * th.cos(), 1e-6, "formula");
}

/// B5b: contact sliding left at v_t = −1 m/s (the rod translates), v_n = 0.
fn rod_consistency_impulse(s: &mut BaraffSolver) -> BaraffOutcome {
    let rod = rod();
    let j = jacobian(&[rod.jn, rod.jt]);
    let qdot = dvector![-1.0, 0.0, 0.0];
    let rows = [RowKind::Normal, RowKind::Friction { normal: 0, mu: 3.0 }];
    let p = ModelProblem::velocities(rod.mass.as_view(), j.as_view(), Rows::Kinds(&rows), qdot.as_view());
    s.consistency_impulse(&p, 0).unwrap()
}

#[test]
fn b5b_consistency_impulse_then_static_friction_forces() {
    let rod = rod();
    let mut s = solver();
    assert_eq!(rod_consistency_impulse(&mut s), BaraffOutcome::Solved);
    close_all(
        s.composed_matrix().iter().copied().collect::<Vec<_>>().as_slice(),
        &[3.25, -1.299038, -1.299038, 1.75],
        1e-6,
        "B5b K",
    );
    close_all(s.composed_b(), &[0.0, -1.0], 1e-12, "B5b pre-impulse velocities");
    let p = s.forces().to_vec();
    close_all(&p, &[0.324760, 0.812500], 1e-6, "B5b (P_n, P_t)");
    close(p[1] / p[0], 2.5019, 1e-4, "|P_t|/P_n");
    assert!(p[1] / p[0] <= 3.0);
    close_all(s.accelerations(), &[0.0, 0.0], 1e-9, "B5b post-impulse contact velocities");
    close_all(s.generalized(), &[-0.1875, 0.324760, 0.75], 1e-6, "B5b q̇⁺");

    // Post-impulse static-friction force problem with the velocity-product term.
    let omega = s.generalized()[2];
    let j = jacobian(&[rod.jn, rod.jt]);
    let tau = dvector![0.0, -G, 0.0];
    let rows = [RowKind::Normal, RowKind::Friction { normal: 0, mu: 3.0 }];
    // −ω² r projected on (n, t) = (y, x).
    let bias = dvector![-omega * omega * rod.r[1], -omega * omega * rod.r[0]];
    let p = ModelProblem::forces(rod.mass.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view())
        .with_bias(bias.as_view());
    assert_eq!(s.solve_model(&p).unwrap(), BaraffOutcome::Solved);
    close_all(s.composed_b(), &[-9.669375, 0.243570], 1e-6, "B5b b with J̇q̇");
    close_all(s.forces(), &[4.151250, 2.942321], 1e-6, "B5b f");
    close(s.forces()[1] / s.forces()[0], 0.709, 1e-3, "|f_t|/f_n");
    assert_eq!(s.row_sets(), &[RowSet::Clamped, RowSet::Clamped], "interior ⇒ stick");
    close_all(s.accelerations(), &[0.0, 0.0], 1e-9, "B5b a");

    // Forgetting the centripetal term gives the spec's "useful check" numbers.
    let p = ModelProblem::forces(rod.mass.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view());
    assert_eq!(s.solve_model(&p).unwrap(), BaraffOutcome::Solved);
    close_all(s.forces(), &[4.291875, 3.185891], 1e-6, "B5b f without J̇q̇");
}

/// The rod as an engine for the iterative variant: static below `vtol` slip speed, sliding
/// (N − μQ along the slip direction) above.
struct RodHost {
    rod: Rod,
    qdot: DVector<f64>,
    mu: f64,
    vtol: f64,
    tau: DVector<f64>,
    // Force-problem data, recomposed after every velocity change.
    j: DMatrix<f64>,
    rows: Vec<RowKind>,
    q: DMatrix<f64>,
    mu_d: DVector<f64>,
    bias: DVector<f64>,
    sliding: bool,
    // Consistency-problem data.
    jc: DMatrix<f64>,
    rows_c: Vec<RowKind>,
}

impl RodHost {
    fn new(mu: f64) -> Self {
        let rod = rod();
        let jc = jacobian(&[rod.jn, rod.jt]);
        let mut h = Self {
            rod,
            qdot: dvector![-1.0, 0.0, 0.0],
            mu,
            vtol: 1e-6,
            tau: dvector![0.0, -G, 0.0],
            j: DMatrix::zeros(0, 3),
            rows: Vec::new(),
            q: DMatrix::zeros(0, 3),
            mu_d: DVector::zeros(0),
            bias: DVector::zeros(0),
            sliding: false,
            jc,
            rows_c: vec![RowKind::Normal, RowKind::Friction { normal: 0, mu }],
        };
        h.recompose();
        h
    }

    fn recompose(&mut self) {
        let vt: f64 = (0..3).map(|k| self.rod.jt[k] * self.qdot[k]).sum();
        let w = self.qdot[2];
        let (rn, rt) = (-w * w * self.rod.r[1], -w * w * self.rod.r[0]);
        self.sliding = vt.abs() >= self.vtol;
        if self.sliding {
            self.j = jacobian(&[self.rod.jn]);
            self.rows = vec![RowKind::Normal];
            self.q = DMatrix::from_fn(1, 3, |_, k| vt.signum() * self.rod.jt[k]);
            self.mu_d = dvector![self.mu];
            self.bias = dvector![rn];
        } else {
            self.j = jacobian(&[self.rod.jn, self.rod.jt]);
            self.rows = vec![RowKind::Normal, RowKind::Friction { normal: 0, mu: self.mu }];
            self.q = DMatrix::zeros(2, 3);
            self.mu_d = DVector::zeros(2);
            self.bias = dvector![rn, rt];
        }
    }
}

impl ConsistencyHost for RodHost {
    fn force_problem(&self) -> ModelProblem<'_> {
        ModelProblem::forces(
            self.rod.mass.as_view(),
            self.j.as_view(),
            Rows::Kinds(&self.rows),
            self.tau.as_view(),
        )
        .with_bias(self.bias.as_view())
        .with_sliding(Sliding { slip_jacobian: self.q.as_view(), mu: self.mu_d.as_view() })
    }

    fn consistency_problem(&self, row: usize) -> (ModelProblem<'_>, usize) {
        assert_eq!(row, 0);
        (
            ModelProblem::velocities(
                self.rod.mass.as_view(),
                self.jc.as_view(),
                Rows::Kinds(&self.rows_c),
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

#[test]
fn b5_iterative_variant_applies_the_consistency_impulse_and_solves_with_static_friction() {
    let mut host = RodHost::new(3.0);
    assert!(host.sliding);
    let mut s = solver();
    let out = s.solve_forces_iter(&mut host).unwrap();
    assert_eq!(out, BaraffOutcome::Solved);
    assert_eq!(s.stats().consistency_impulses, 1);
    assert_eq!(s.stats().frictionless_rows, 0);
    assert!(!host.sliding, "the impulse stopped the slip");
    close_all(host.qdot.as_slice(), &[-0.1875, 0.324760, 0.75], 1e-6, "q̇⁺");
    close_all(s.forces(), &[4.151250, 2.942321], 1e-6, "forces after the impulse");
}

#[test]
fn b5_iterative_variant_falls_back_to_frictionless_without_impulses() {
    let mut host = RodHost::new(3.0);
    let mut s =
        BaraffSolver::new(BaraffParameters { max_consistency_impulses: 0, ..BaraffParameters::default() })
            .unwrap();
    let out = s.solve_forces_iter(&mut host).unwrap();
    assert_eq!(out, BaraffOutcome::FrictionlessFallback { row: 0 });
    assert_eq!(out.code(), 26);
    assert_eq!(s.stats().frictionless_rows, 1);
    assert!(host.sliding, "no impulse was applied");
    // Frictionless normal: A = 3.25, b = −9.81.
    close(s.forces()[0], G / 3.25, 1e-9, "frictionless f_n");
}

// ---------------------------------------------------------------------------------------------
// B6: impulse active set on the B3 box, both corners touching, q̇ = (0, −1, 2).

fn box_impulse_problem<'a>(
    m: &'a DMatrix<f64>,
    j: &'a DMatrix<f64>,
    qdot: &'a DVector<f64>,
    rows: &'a [RowKind],
) -> ModelProblem<'a> {
    ModelProblem::velocities(m.as_view(), j.as_view(), Rows::Kinds(rows), qdot.as_view())
}

#[test]
fn b6_impulse_active_set_adds_the_right_corner() {
    let m = box_mass();
    let j = jacobian(&[normal_row(LEFT), normal_row(RIGHT)]);
    let qdot = dvector![0.0, -1.0, 2.0];
    let rows = [RowKind::Normal, RowKind::Normal];
    let p = box_impulse_problem(&m, &j, &qdot, &rows);

    // Iteration 1 alone (cap 1): active {left}.
    let mut s =
        BaraffSolver::new(BaraffParameters { max_impulse_iterations: 1, ..BaraffParameters::default() })
            .unwrap();
    assert!(s.needs_impulse(&p).unwrap());
    assert_eq!(s.impulses_active_set(&p).unwrap(), BaraffOutcome::IterationLimit);
    close_all(s.composed_b(), &[-2.0, 0.0], 1e-12, "B6 v");
    close_all(s.forces(), &[0.588235, 0.0], 1e-6, "B6 iteration 1 p");
    close_all(s.accelerations(), &[0.0, -0.823529], 1e-6, "B6 iteration 1 v⁺");

    // The full loop: iteration 2 adds the right corner.
    let mut s = solver();
    assert_eq!(s.impulses_active_set(&p).unwrap(), BaraffOutcome::Solved);
    assert_eq!(s.stats().iterations, 2);
    close_all(s.forces(), &[0.708333, 0.291667], 1e-6, "B6 p");
    close_all(s.accelerations(), &[0.0, 0.0], 1e-9, "B6 v⁺");
    close_all(s.generalized(), &[0.0, 0.0, 0.0], 1e-9, "B6 q̇⁺");
    assert_eq!(s.row_sets(), &[RowSet::Clamped, RowSet::Clamped]);
    let qdot_after = DVector::from_column_slice(s.generalized());
    let p_after = box_impulse_problem(&m, &j, &qdot_after, &rows);
    assert!(!s.needs_impulse(&p_after).unwrap());

    // The §3 pivoting at velocity level (A = K, b = v) returns the same impulses.
    let p = box_impulse_problem(&m, &j, &qdot, &rows);
    assert_eq!(s.solve_model(&p).unwrap(), BaraffOutcome::Solved);
    close_all(s.forces(), &[0.708333, 0.291667], 1e-6, "B6 pivoting p");
    close_all(s.generalized(), &[0.0, 0.0, 0.0], 1e-9, "B6 pivoting q̇⁺");
}

#[test]
fn active_set_restitution_applies_to_rows_approaching_at_the_start() {
    // A particle falling at 2 m/s onto the ground with e = 0.5 bounces at 1 m/s.
    let m = DMatrix::from_diagonal(&dvector![2.0, 2.0]);
    let j = dmatrix![0.0, 1.0];
    let qdot = dvector![0.3, -2.0];
    let rows = [RowKind::Normal];
    let mut s =
        BaraffSolver::new(BaraffParameters { restitution: 0.5, ..BaraffParameters::default() }).unwrap();
    let p = ModelProblem::velocities(m.as_view(), j.as_view(), Rows::Kinds(&rows), qdot.as_view());
    assert_eq!(s.impulses_active_set(&p).unwrap(), BaraffOutcome::Solved);
    close(s.accelerations()[0], 1.0, 1e-12, "v⁺ = −e v");
    close(s.forces()[0], 2.0 * 3.0, 1e-12, "p = m Δv");
    close_all(s.generalized(), &[0.3, 1.0], 1e-12, "q̇⁺");
}

// ---------------------------------------------------------------------------------------------
// B7: rod of length 1, m = 1, I = 1/12, pinned at its left end (bilateral x, y), right end on
// the ground.

#[test]
fn b7_bilateral_pin_and_unilateral_contact() {
    let m = DMatrix::from_diagonal(&dvector![1.0, 1.0, 1.0 / 12.0]);
    let (pin, end) = ([-0.5, 0.0], [0.5, 0.0]);
    let j = jacobian(&[tangent_row(pin), normal_row(pin), normal_row(end)]);
    let tau = dvector![0.0, -G, 0.0];
    let rows = [RowKind::Bilateral, RowKind::Bilateral, RowKind::Normal];
    let mut s = solver();
    let out = s
        .solve_model(&ModelProblem::forces(m.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view()))
        .unwrap();
    assert_eq!(out, BaraffOutcome::Solved);
    close_all(s.forces(), &[0.0, 4.905, 4.905], 1e-9, "B7 (f_x, f_y, contact)");
    close_all(s.accelerations(), &[0.0, 0.0, 0.0], 1e-9, "B7 a");
    close_all(s.generalized(), &[0.0, 0.0, 0.0], 1e-9, "B7 q̈");
}

// ---------------------------------------------------------------------------------------------
// Beyond §11: boxed rows, drift stabilisation, usage errors.

#[test]
fn boxed_row_saturates_at_its_limit_and_stays_interior_below_it() {
    let a = dmatrix![2.0];
    let b = dvector![-10.0];
    let mut s = solver();
    // A motor holding a load that needs 5 N: within [−10, 10] it holds (a = 0).
    assert_eq!(
        solve_matrix(&mut s, &a, &b, &[RowKind::Boxed { lo: -10.0, hi: 10.0 }]),
        BaraffOutcome::Solved
    );
    close(s.forces()[0], 5.0, 1e-12, "interior");
    assert_eq!(s.row_sets(), &[RowSet::Clamped]);
    // Limited to 2 N it saturates at hi and the row accelerates (a = 2·2 − 10 = −6 ≤ 0).
    assert_eq!(solve_matrix(&mut s, &a, &b, &[RowKind::Boxed { lo: -10.0, hi: 2.0 }]), BaraffOutcome::Solved);
    close(s.forces()[0], 2.0, 1e-12, "at hi");
    close(s.accelerations()[0], -6.0, 1e-12, "a at hi");
    assert_eq!(s.row_sets(), &[RowSet::AtUpper]);
    // The other way, limited by lo.
    let b = dvector![10.0];
    assert_eq!(
        solve_matrix(&mut s, &a, &b, &[RowKind::Boxed { lo: -1.0, hi: f64::INFINITY }]),
        BaraffOutcome::Solved
    );
    close(s.forces()[0], -1.0, 1e-12, "at lo");
    assert_eq!(s.row_sets(), &[RowSet::AtLower]);
}

#[test]
fn baumgarte_stabilisation_shifts_b() {
    use contact_solvers::baraff::Stabilization;
    let m = DMatrix::identity(1, 1);
    let j = dmatrix![1.0];
    let tau = dvector![0.0];
    let c = dvector![0.01];
    let cd = dvector![0.2];
    let rows = [RowKind::Bilateral];
    let mut s = solver();
    let p = ModelProblem::forces(m.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view())
        .with_stabilization(Stabilization {
            kp: 100.0,
            kv: 20.0,
            position_error: c.as_view(),
            velocity_error: Some(cd.as_view()),
        });
    assert_eq!(s.solve_model(&p).unwrap(), BaraffOutcome::Solved);
    close(s.composed_b()[0], 100.0 * 0.01 + 20.0 * 0.2, 1e-12, "b");
    // The true acceleration is −kp C − kv Ċ.
    close(s.generalized()[0], -5.0, 1e-12, "q̈");
}

#[test]
fn usage_errors_are_errors_not_panics() {
    use contact_solvers::baraff::BaraffError;
    let mut s = solver();
    let a = DMatrix::identity(2, 2);
    let b = dvector![1.0];
    let rows = [RowKind::Normal, RowKind::Normal];
    let e = s.solve(&MatrixProblem { a: a.as_view(), b: b.as_view(), rows: Rows::Kinds(&rows) }).unwrap_err();
    assert!(matches!(e, BaraffError::DimensionMismatch { what: "b length", expected: 2, got: 1 }), "{e}");
    assert!(s.forces().is_empty());

    let b = dvector![1.0, f64::NAN];
    let e = s.solve(&MatrixProblem { a: a.as_view(), b: b.as_view(), rows: Rows::Kinds(&rows) }).unwrap_err();
    assert!(matches!(e, BaraffError::NonFinite { what: "b", index: 1, value } if value.is_nan()), "{e}");

    let b = dvector![1.0, 1.0];
    let bad = [RowKind::Bilateral, RowKind::Friction { normal: 0, mu: 0.5 }];
    let e = s.solve(&MatrixProblem { a: a.as_view(), b: b.as_view(), rows: Rows::Kinds(&bad) }).unwrap_err();
    assert!(matches!(e, BaraffError::InvalidRow { row: 1, .. }), "{e}");

    let m = dmatrix![1.0, 0.0; 0.0, -1.0];
    let j = DMatrix::identity(2, 2);
    let tau = dvector![0.0, 0.0];
    let e = s
        .solve_model(&ModelProblem::forces(m.as_view(), j.as_view(), Rows::Kinds(&rows), tau.as_view()))
        .unwrap_err();
    assert!(matches!(e, BaraffError::MassMatrixNotPositiveDefinite { column: 1, .. }), "{e}");

    let m = DMatrix::identity(2, 2);
    let e = s
        .impulses_active_set(&ModelProblem::forces(
            m.as_view(),
            j.as_view(),
            Rows::Kinds(&rows),
            tau.as_view(),
        ))
        .unwrap_err();
    assert!(matches!(e, BaraffError::WrongLevel { .. }), "{e}");
    let fr = [RowKind::Normal, RowKind::Friction { normal: 0, mu: 1.0 }];
    let e = s
        .impulses_active_set(&ModelProblem::velocities(
            m.as_view(),
            j.as_view(),
            Rows::Kinds(&fr),
            tau.as_view(),
        ))
        .unwrap_err();
    assert!(matches!(e, BaraffError::UnsupportedRowKind { row: 1, .. }), "{e}");
    let e = s
        .consistency_impulse(
            &ModelProblem::velocities(m.as_view(), j.as_view(), Rows::Kinds(&fr), tau.as_view()),
            1,
        )
        .unwrap_err();
    assert!(matches!(e, BaraffError::InvalidRow { row: 1, .. }), "{e}");
    assert!(BaraffSolver::new(BaraffParameters { tolerance: 0.0, ..BaraffParameters::default() }).is_err());
}

#[test]
fn empty_problems_solve_trivially() {
    let mut s = solver();
    let a = DMatrix::<f64>::zeros(0, 0);
    let b = DVector::<f64>::zeros(0);
    let out = s.solve(&MatrixProblem { a: a.as_view(), b: b.as_view(), rows: Rows::Kinds(&[]) }).unwrap();
    assert_eq!(out, BaraffOutcome::Solved);
    assert!(s.forces().is_empty());
    let m = DMatrix::identity(2, 2);
    let j = DMatrix::<f64>::zeros(0, 2);
    let tau = dvector![1.0, -2.0];
    let out = s
        .solve_model(&ModelProblem::forces(m.as_view(), j.as_view(), Rows::Kinds(&[]), tau.as_view()))
        .unwrap();
    assert_eq!(out, BaraffOutcome::Solved);
    close_all(s.generalized(), &[1.0, -2.0], 0.0, "free motion");
}

/// Issue 24: `needs_impulse` on non-finite data is an error naming the entry, not a silent
/// "no impulse" (`NaN < −tol` is false).
#[test]
fn needs_impulse_rejects_non_finite_data() {
    let m = box_mass();
    let rows = [RowKind::Normal, RowKind::Normal];
    let mut s = solver();
    let qdot = dvector![0.0, f64::NAN, 2.0];
    let j = jacobian(&[normal_row(LEFT), normal_row(RIGHT)]);
    let err = s.needs_impulse(&box_impulse_problem(&m, &j, &qdot, &rows)).unwrap_err();
    assert!(matches!(err, BaraffError::NonFinite { index: 1, .. }), "{err}");
    let qdot = dvector![0.0, -1.0, 2.0];
    let mut j = jacobian(&[normal_row(LEFT), normal_row(RIGHT)]);
    j[(1, 2)] = f64::INFINITY;
    let err = s.needs_impulse(&box_impulse_problem(&m, &j, &qdot, &rows)).unwrap_err();
    assert!(matches!(err, BaraffError::NonFinite { .. }), "{err}");
}
