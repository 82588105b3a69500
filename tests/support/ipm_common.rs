//! Shared helpers of the interior-point tests: the point-mass problems of `docs/ipm.md` §9.

use contact_solvers::ipm::{ContactModel, IpmData, IpmOutcome, IpmParameters, IpmProblem, IpmSolver};
use nalgebra::{DMatrix, DVector};

/// Dojo's reference iteration (the documented reference of the §9 cases) with the given absolute
/// tolerances, everything else at Dojo's defaults.
pub fn tol(btol: f64, rtol: f64) -> IpmParameters {
    IpmParameters { btol, rtol, ..IpmParameters::dojo() }
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
            data: IpmData::Dense { m: self.m.as_view(), jn: self.jn.as_view(), jt: self.jt.as_view() },
            v0: v0.as_view(),
            tau: tau.as_view(),
            h: self.h,
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

/// §9.A6's table (7 significant digits): for κ ∈ {1e-2, 1e-4, 1e-6} (N·s·m) and F ∈ {0.5, 0.9, 1.0,
/// 1.1, 1.5} (N), the fixed-κ central-path gap z⁺ (m) and its sensitivity dz⁺/dF (m/N).
pub const A6_TABLE: [(f64, [(f64, f64); 5]); 3] = [
    (
        1e-2,
        [
            (2.922144e-2, 4.605945e-3),
            (3.112673e-2, 4.920953e-3),
            (3.162278e-2, 5.000000e-3),
            (3.212673e-2, 5.079047e-3),
            (3.422144e-2, 5.394055e-3),
        ],
    ),
    (
        1e-4,
        [
            (1.531129e-3, 1.899132e-3),
            (2.701562e-3, 4.219131e-3),
            (3.162278e-3, 5.000000e-3),
            (3.701562e-3, 5.780869e-3),
            (6.531129e-3, 8.100868e-3),
        ],
    ),
    (
        1e-6,
        [
            (1.992063e-5, 3.952631e-5),
            (9.160798e-5, 7.742287e-4),
            (3.162278e-4, 5.000000e-3),
            (1.091608e-3, 9.225771e-3),
            (5.019921e-3, 9.960474e-3),
        ],
    ),
];
