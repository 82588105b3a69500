//! Rod2D time-stepping tests that exercise the solver end to end (`docs/rigid_cases.md` §5):
//! `Rod2DDiscretizedTest.RodGoesToRest` (1000 impact solves with CFM/ERP regularization) and
//! the one-step `Rod2DCrossValidationTest` cases, with their reference values.

use contact_solvers::rigid::{ConstraintSolver, RigidOutcome};
use nalgebra::{DMatrix, DVector};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
use support::rod2d::{G, VelOwned};

/// Rod2D in discretized mode: m = 2, J = 1, ℓ = 1.
struct Sim {
    q: [f64; 3],
    v: [f64; 3],
    mu: f64,
    h: f64,
    cfm: f64,
    erp: f64,
    input: [f64; 3],
    solver: ConstraintSolver,
}

impl Sim {
    fn new(q: [f64; 3], v: [f64; 3], mu: f64, h: f64, stiffness: f64, damping: f64) -> Self {
        // cfm = 1/(k h + b), erp = h k/(k h + b) (§5.1 step 1).
        let cfm = 1.0 / (stiffness * h + damping);
        let erp = h * stiffness / (stiffness * h + damping);
        Self { q, v, mu, h, cfm, erp, input: [0.0; 3], solver: ConstraintSolver::new() }
    }

    /// One `CalcDiscreteUpdate` (§5.1 steps 2–5).
    fn step(&mut self) {
        let (m, j, l, h) = (2.0, 1.0, 1.0, self.h);
        let (x, y, th) = (self.q[0], self.q[1], self.q[2]);
        let (pa, pb) = ([x - th.cos() * l, y - th.sin() * l], [x + th.cos() * l, y + th.sin() * l]);
        let n = DMatrix::from_row_slice(2, 3, &[0.0, 1.0, pa[0] - x, 0.0, 1.0, pb[0] - x]);
        let f = DMatrix::from_row_slice(2, 3, &[1.0, 0.0, -(pa[1] - y), 1.0, 0.0, -(pb[1] - y)]);
        let tau = [self.input[0], m * G + self.input[1], self.input[2]];
        let v = [self.v[0] + h * tau[0] / m, self.v[1] + h * tau[1] / m, self.v[2] + h * tau[2] / j];
        let mm = DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, j]));
        let d = VelOwned {
            r: vec![1, 1],
            mu: DVector::from_element(2, self.mu),
            n,
            f,
            l: DMatrix::zeros(0, 3),
            g: DMatrix::zeros(0, 3),
            k_n: DVector::from_vec(vec![self.erp * pa[1] / h, self.erp * pb[1] / h]),
            k_f: DVector::zeros(2),
            k_l: DVector::zeros(0),
            k_g: DVector::zeros(0),
            gamma_n: DVector::from_element(2, self.cfm),
            gamma_f: DVector::from_element(2, self.cfm),
            gamma_e: DVector::from_element(2, self.cfm),
            gamma_l: DVector::zeros(0),
            mv: DVector::from_vec(vec![m * v[0], m * v[1], j * v[2]]),
            minv: mm.clone().try_inverse().unwrap(),
            m: mm,
            inertia_form: support::rod2d::InertiaForm::Inverse,
        };
        assert_eq!(self.solver.solve_impact_problem(&d.view()), Ok(RigidOutcome::Solved));
        let cf = self.solver.cf().to_vec();
        let mut dv = [0.0; 3];
        self.solver.compute_generalized_velocity_change(&d.view(), &cf, &mut dv).unwrap();
        for i in 0..3 {
            self.v[i] = v[i] + dv[i];
            self.q[i] += h * self.v[i];
        }
    }
}

/// §5.1 Rod2DDiscretizedTest.RodGoesToRest.
#[test]
fn rod_goes_to_rest() {
    let s2 = std::f64::consts::FRAC_1_SQRT_2;
    // k = 10000, α = 1: b = α·1.5·k·x_c·ℓ with x_c = 1e-3 → 15.
    let mut sim =
        Sim::new([-s2, s2, 3.0 * FRAC_PI_4], [1.0, 0.0, 0.0], 1000.0, 1e-2, 10000.0, 1.5 * 10000.0 * 1e-3);
    assert_eq!(sim.cfm, 1.0 / 115.0);
    for _ in 0..1000 {
        sim.step();
    }
    let th = sim.q[2];
    assert!(th.abs() < 1e-6 || (th - PI).abs() < 1e-6, "θ = {th}");
    assert!(sim.v[2].abs() < 1e-6, "θ̇ = {}", sim.v[2]);
    // [ref] θ − π below 1e-9, θ̇ ≈ 1e-14, x ≈ −1.00679446340525, y ≈ −9.81e-6.
    assert!((th - PI).abs() < 1e-9, "[ref] θ − π = {}", th - PI);
    assert!(sim.v[2].abs() < 1e-12, "[ref] θ̇ = {}", sim.v[2]);
    assert!((sim.q[0] + 1.00679446340525).abs() < 1e-9, "[ref] x = {}", sim.q[0]);
    assert!((sim.q[1] + 9.81e-6).abs() < 1e-9, "[ref] y = {}", sim.q[1]);
}

/// §5.2 Rod2DCrossValidationTest.OneStepSolutionSliding (h = 0.1, cfm = eps, erp = 1).
#[test]
fn one_step_solution_sliding() {
    let h = 0.1;
    let k = 1.0 / (f64::EPSILON * h);
    let s2 = std::f64::consts::FRAC_1_SQRT_2;
    let mut sim = Sim::new([s2, s2, FRAC_PI_4], [-1.0, 0.0, 0.0], 0.01, h, k, 0.0);
    assert_eq!(sim.erp, 1.0);
    sim.step();
    let (q, v) = (sim.q, sim.v);
    for (a, b) in q.iter().zip([0.60760, 0.65830, 0.71638]) {
        assert!((a - b).abs() < 1e-5, "[ref] q = {q:?}");
    }
    for (a, b) in v.iter().zip([-0.99507, -0.48804, -0.69019]) {
        assert!((a - b).abs() < 1e-5, "[ref] v = {v:?}");
    }
}

/// §5.2 Rod2DCrossValidationTest.OneStepSolutionSticking (μ = 100, input (1, 0, ℓ)).
#[test]
fn one_step_solution_sticking() {
    let h = 0.1;
    let k = 1.0 / (f64::EPSILON * h);
    let mut sim = Sim::new([0.0, 1.0, FRAC_PI_2], [0.0; 3], 100.0, h, k, 0.0);
    sim.input = [1.0, 0.0, 1.0];
    sim.step();
    assert!(
        sim.q[0].abs() < 1e-15 && (sim.q[1] - 1.0).abs() < 1e-15 && (sim.q[2] - FRAC_PI_2).abs() < 1e-15,
        "[ref] q = {:?}",
        sim.q
    );
    assert!(support::rod2d::norm(&sim.v) < 1e-15, "[ref] v = {:?}", sim.v);
}
