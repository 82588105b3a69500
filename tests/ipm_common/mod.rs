//! Shared helpers of the interior-point tests: the point-mass problems of `specs/ipm.md` §9.
#![allow(dead_code)]

use contact_solvers::ipm::{ContactModel, IpmOutcome, IpmParameters, IpmProblem, IpmSolver};
use nalgebra::{DMatrix, DVector};

/// Parameters with the given tolerances, everything else at the defaults.
pub fn tol(btol: f64, rtol: f64) -> IpmParameters {
    IpmParameters { btol, rtol, ..Default::default() }
}

/// One point mass (3 dofs, contact point at the centre, ground z = 0, t1 = x, t2 = y, n = z).
pub struct PointMass {
    pub mass: f64,
    pub h: f64,
    pub g: f64,
    pub mu: f64,
    pub model: ContactModel,
    pub m: DMatrix<f64>,
    pub jn: DMatrix<f64>,
    pub jt: DMatrix<f64>,
}

impl PointMass {
    pub fn new(mass: f64, h: f64, g: f64, mu: f64, model: ContactModel) -> Self {
        let mut jt = DMatrix::zeros(2, 3);
        jt[(0, 0)] = 1.0;
        jt[(1, 1)] = 1.0;
        Self {
            mass,
            h,
            g,
            mu,
            model,
            m: DMatrix::identity(3, 3) * mass,
            jn: DMatrix::from_row_slice(1, 3, &[0.0, 0.0, 1.0]),
            jt,
        }
    }

    /// Solves one step from position `x` (z = gap) and velocity `v0` with an extra horizontal
    /// force `f` (N).
    pub fn step(&self, solver: &mut IpmSolver, x: &[f64; 3], v0: &[f64; 3], f: [f64; 2]) -> IpmOutcome {
        let v0 = DVector::from_column_slice(v0);
        let tau = DVector::from_column_slice(&[f[0], f[1], -self.mass * self.g]);
        let phi = DVector::from_element(1, x[2]);
        let mu = DVector::from_element(1, self.mu);
        let models = [self.model];
        let p = IpmProblem {
            m: self.m.as_view(),
            v0: v0.as_view(),
            tau: tau.as_view(),
            h: self.h,
            jn: self.jn.as_view(),
            jt: self.jt.as_view(),
            phi: phi.as_view(),
            mu: mu.as_view(),
            models: &models,
            vt_offset: None,
        };
        solver.solve(&p).expect("valid problem")
    }
}

/// Per-step record of a simulation.
#[derive(Debug, Clone)]
pub struct Trace {
    /// Normal impulse of step k (index k−1), N·s.
    pub gamma_n: Vec<f64>,
    /// Position after step k.
    pub x: Vec<[f64; 3]>,
    /// Velocity after step k.
    pub v: Vec<[f64; 3]>,
    pub iterations: Vec<usize>,
    pub failures: usize,
}

impl Trace {
    pub fn mean_iterations(&self) -> f64 {
        self.iterations.iter().sum::<usize>() as f64 / self.iterations.len() as f64
    }
    pub fn min_z(&self) -> f64 {
        self.x.iter().map(|x| x[2]).fold(f64::INFINITY, f64::min)
    }
}

/// Semi-implicit Euler with the solver: `v⁺` from the solve, `x⁺ = x + h v⁺`.
pub fn simulate(pm: &PointMass, params: IpmParameters, x0: [f64; 3], v0: [f64; 3], steps: usize) -> Trace {
    let mut solver = IpmSolver::new(params).unwrap();
    let (mut x, mut v) = (x0, v0);
    let mut t = Trace { gamma_n: vec![], x: vec![], v: vec![], iterations: vec![], failures: 0 };
    for _ in 0..steps {
        let out = pm.step(&mut solver, &x, &v, [0.0, 0.0]);
        if out != IpmOutcome::Converged {
            t.failures += 1;
        }
        let vn = solver.velocities();
        v = [vn[0], vn[1], vn[2]];
        for a in 0..3 {
            x[a] += pm.h * v[a];
        }
        t.gamma_n.push(solver.impulses()[0]);
        t.x.push(x);
        t.v.push(v);
        t.iterations.push(solver.stats().iterations);
    }
    t
}
