//! The Rod2D model of `docs/rigid_cases.md` §1 and Drake's `Constraint2DSolverTest` fixture
//! (§1.4): builds acceleration-, velocity- and discrete-time problem data for a rod in the
//! vertical x–y plane above the half-space y ≤ 0. Data is owned here (dense matrices) and lent
//! to the solver as `ConstraintAccelProblemData` / `ConstraintVelProblemData` views.

use contact_solvers::rigid::{ConstraintAccelProblemData, ConstraintVelProblemData, InertiaSolve, Operator};
use nalgebra::{DMatrix, DVector, Matrix2};

pub const EPS: f64 = f64::EPSILON;
/// The ConstraintSolver tests' tolerance `eps_ = 100 eps`.
pub const EPS_: f64 = 100.0 * f64::EPSILON;
/// Time step of the "Discretized" tests.
pub const DT: f64 = 1e-4;
pub const G: f64 = -9.81;

/// How `solve_inertia` is handed to the solver (all three are exercised by the tests).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InertiaForm {
    /// `M⁻¹` as a dense matrix.
    Inverse,
    /// `M` as a dense matrix (the solver factors it).
    Matrix,
}

#[derive(Clone, Debug)]
pub struct Rod2D {
    /// (x, y, θ)
    pub q: [f64; 3],
    /// (ẋ, ẏ, θ̇)
    pub v: [f64; 3],
    pub mass: f64,
    pub inertia: f64,
    pub half_length: f64,
    pub mu_coulomb: f64,
    pub mu_static: f64,
}

impl Rod2D {
    /// Tests' rod: m = 2, J = 1, ℓ = 1, μ = 1000/1000, at rest at the origin.
    pub fn new(q: [f64; 3], v: [f64; 3]) -> Self {
        Self { q, v, mass: 2.0, inertia: 1.0, half_length: 1.0, mu_coulomb: 1000.0, mu_static: 1000.0 }
    }
    pub fn resting_horizontal() -> Self {
        Self::new([0.0, 0.0, 0.0], [0.0; 3])
    }
    pub fn upward_moving_horizontal() -> Self {
        Self::new([0.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    }
    pub fn sliding_impacting_horizontal(right: bool) -> Self {
        Self::new([0.0, 0.0, 0.0], [if right { 1.0 } else { -1.0 }, -1.0, 0.0])
    }
    pub fn sliding_impacting_vertical(right: bool) -> Self {
        Self::new([0.0, 0.0, std::f64::consts::FRAC_PI_2], [if right { 1.0 } else { -1.0 }, -1.0, 0.0])
    }
    pub fn resting_vertical() -> Self {
        Self::new([0.0, 1.0, std::f64::consts::FRAC_PI_2], [0.0; 3])
    }
    pub fn ballistic() -> Self {
        Self::new([0.0, 10.0, 0.0], [0.0; 3])
    }

    pub fn set_mu(&mut self, coulomb: f64, stat: f64) {
        assert!(stat >= coulomb);
        self.mu_coulomb = coulomb;
        self.mu_static = stat;
    }

    pub fn m_matrix(&self) -> DMatrix<f64> {
        DMatrix::from_diagonal(&DVector::from_vec(vec![self.mass, self.mass, self.inertia]))
    }
    pub fn m_inverse(&self) -> DMatrix<f64> {
        DMatrix::from_diagonal(&DVector::from_vec(vec![1.0 / self.mass, 1.0 / self.mass, 1.0 / self.inertia]))
    }
    /// `tau = (0, m g, 0)` (zero input).
    pub fn tau(&self) -> DVector<f64> {
        DVector::from_vec(vec![0.0, self.mass * G, 0.0])
    }

    /// Endpoints pa (k = −1) and pb (k = +1).
    pub fn endpoints(&self) -> [[f64; 2]; 2] {
        let (x, y, th) = (self.q[0], self.q[1], self.q[2]);
        let (c, s) = (th.cos(), th.sin());
        let l = self.half_length;
        [[x - c * l, y - s * l], [x + c * l, y + s * l]]
    }
    /// Contact points: endpoints with p_y ≤ 0, pa first.
    pub fn contact_points(&self) -> Vec<[f64; 2]> {
        self.endpoints().into_iter().filter(|p| p[1] <= 0.0).collect()
    }
    fn arm(&self, p: [f64; 2]) -> [f64; 2] {
        [p[0] - self.q[0], p[1] - self.q[1]]
    }
    /// Jacobian row of direction d at point p: `[d_x, d_y, r × d]`.
    pub fn row(&self, p: [f64; 2], d: [f64; 2]) -> [f64; 3] {
        let r = self.arm(p);
        [d[0], d[1], r[0] * d[1] - d[0] * r[1]]
    }
    /// Tangential slip velocity `ẋ − θ̇ r_y`.
    pub fn slip(&self, p: [f64; 2]) -> f64 {
        self.v[0] - self.v[2] * self.arm(p)[1]
    }
    fn kn(&self, p: [f64; 2]) -> f64 {
        -self.v[2] * self.v[2] * self.arm(p)[1]
    }
    fn kf(&self, p: [f64; 2]) -> f64 {
        -self.v[2] * self.v[2] * self.arm(p)[0]
    }
    /// `M v`.
    pub fn mv(&self) -> DVector<f64> {
        DVector::from_vec(vec![self.mass * self.v[0], self.mass * self.v[1], self.inertia * self.v[2]])
    }
}

/// Drake's contact duplication: the list followed, for each original contact in order, by
/// `dup` copies of it.
pub fn duplicate_contacts(points: &[[f64; 2]], dup: usize) -> Vec<[f64; 2]> {
    let mut out = points.to_vec();
    for p in points {
        for _ in 0..dup {
            out.push(*p);
        }
    }
    out
}

fn rows_to_matrix(rows: &[[f64; 3]]) -> DMatrix<f64> {
    DMatrix::from_fn(rows.len(), 3, |i, j| rows[i][j])
}

/// Repeats every row `k` times consecutively.
fn repeat_rows(m: &DMatrix<f64>, k: usize) -> DMatrix<f64> {
    DMatrix::from_fn(m.nrows() * k, m.ncols(), |i, j| m[(i / k, j)])
}

/// Owned acceleration-level data (Rod2D `CalcConstraintProblemData`, §1.1).
#[derive(Clone, Debug)]
pub struct AccelOwned {
    pub use_lcp: bool,
    pub sliding: Vec<usize>,
    pub non_sliding: Vec<usize>,
    pub r: Vec<usize>,
    pub mu_sliding: DVector<f64>,
    pub mu_non_sliding: DVector<f64>,
    /// N (nc×3), N − μQ (nc×3), F (nr×3), L (nu×3), G (nb×3).
    pub n: DMatrix<f64>,
    pub nmq: DMatrix<f64>,
    pub f: DMatrix<f64>,
    pub l: DMatrix<f64>,
    pub g: DMatrix<f64>,
    pub k_n: DVector<f64>,
    pub k_f: DVector<f64>,
    pub k_l: DVector<f64>,
    pub k_g: DVector<f64>,
    pub tau: DVector<f64>,
    pub minv: DMatrix<f64>,
}

impl AccelOwned {
    /// Rod2D's data for the given contact points and slip velocities.
    pub fn from_rod(rod: &Rod2D, points: &[[f64; 2]], slips: &[f64]) -> Self {
        let nc = points.len();
        let mut sliding = vec![];
        let mut non_sliding = vec![];
        for (i, &s) in slips.iter().enumerate() {
            if s.abs() < 100.0 * EPS { non_sliding.push(i) } else { sliding.push(i) }
        }
        let n_rows: Vec<[f64; 3]> = points.iter().map(|&p| rod.row(p, [0.0, 1.0])).collect();
        let n = rows_to_matrix(&n_rows);
        let f_rows: Vec<[f64; 3]> = non_sliding.iter().map(|&i| rod.row(points[i], [1.0, 0.0])).collect();
        let mut nmq = n.clone();
        for &c in &sliding {
            let s = slips[c].signum();
            let q = rod.row(points[c], [s, 0.0]);
            for j in 0..3 {
                nmq[(c, j)] -= rod.mu_coulomb * q[j];
            }
        }
        Self {
            use_lcp: true,
            mu_sliding: DVector::from_element(sliding.len(), rod.mu_coulomb),
            mu_non_sliding: DVector::from_element(non_sliding.len(), rod.mu_static),
            r: vec![1; non_sliding.len()],
            k_n: DVector::from_iterator(nc, points.iter().map(|&p| rod.kn(p))),
            k_f: DVector::from_iterator(non_sliding.len(), non_sliding.iter().map(|&i| rod.kf(points[i]))),
            sliding,
            non_sliding,
            n,
            nmq,
            f: rows_to_matrix(&f_rows),
            l: DMatrix::zeros(0, 3),
            g: DMatrix::zeros(0, 3),
            k_l: DVector::zeros(0),
            k_g: DVector::zeros(0),
            tau: rod.tau(),
            minv: rod.m_inverse(),
        }
    }

    /// Rod2D data for the rod's own contacts.
    pub fn rod(rod: &Rod2D) -> Self {
        let pts = rod.contact_points();
        let slips: Vec<f64> = pts.iter().map(|&p| rod.slip(p)).collect();
        Self::from_rod(rod, &pts, &slips)
    }

    /// The fixture's `CalcConstraintAccelProblemData(contact_dup, friction_dup)`.
    pub fn fixture(rod: &Rod2D, contact_dup: usize, friction_dup: usize) -> Self {
        let pts = duplicate_contacts(&rod.contact_points(), contact_dup);
        let slips: Vec<f64> = pts.iter().map(|&p| rod.slip(p)).collect();
        let mut d = Self::from_rod(rod, &pts, &slips);
        let k = friction_dup + 1;
        d.f = repeat_rows(&d.f, k);
        d.r = vec![k; d.non_sliding.len()];
        d.k_f = DVector::zeros(d.f.nrows());
        d
    }

    pub fn view(&self) -> ConstraintAccelProblemData<'_> {
        ConstraintAccelProblemData {
            use_complementarity_problem_solver: self.use_lcp,
            sliding_contacts: &self.sliding,
            non_sliding_contacts: &self.non_sliding,
            r: &self.r,
            mu_sliding: self.mu_sliding.as_view(),
            mu_non_sliding: self.mu_non_sliding.as_view(),
            g_mult: Operator::Matrix(self.g.as_view()),
            g_transpose_mult: Operator::TransposeOf(self.g.as_view()),
            k_g: self.k_g.as_view(),
            n_mult: Operator::Matrix(self.n.as_view()),
            n_minus_muq_transpose_mult: Operator::TransposeOf(self.nmq.as_view()),
            k_n: self.k_n.as_view(),
            f_mult: Operator::Matrix(self.f.as_view()),
            f_transpose_mult: Operator::TransposeOf(self.f.as_view()),
            k_f: self.k_f.as_view(),
            l_mult: Operator::Matrix(self.l.as_view()),
            l_transpose_mult: Operator::TransposeOf(self.l.as_view()),
            k_l: self.k_l.as_view(),
            tau: self.tau.as_view(),
            solve_inertia: InertiaSolve::Inverse(self.minv.as_view()),
        }
    }
}

/// Owned velocity-level data (Rod2D `CalcImpactProblemData`, §1.2).
#[derive(Clone, Debug)]
pub struct VelOwned {
    pub r: Vec<usize>,
    pub mu: DVector<f64>,
    pub n: DMatrix<f64>,
    pub f: DMatrix<f64>,
    pub l: DMatrix<f64>,
    pub g: DMatrix<f64>,
    pub k_n: DVector<f64>,
    pub k_f: DVector<f64>,
    pub k_l: DVector<f64>,
    pub k_g: DVector<f64>,
    pub gamma_n: DVector<f64>,
    pub gamma_f: DVector<f64>,
    pub gamma_e: DVector<f64>,
    pub gamma_l: DVector<f64>,
    pub mv: DVector<f64>,
    pub m: DMatrix<f64>,
    pub minv: DMatrix<f64>,
    pub inertia_form: InertiaForm,
}

impl VelOwned {
    pub fn from_rod(rod: &Rod2D, points: &[[f64; 2]]) -> Self {
        let nc = points.len();
        let n_rows: Vec<[f64; 3]> = points.iter().map(|&p| rod.row(p, [0.0, 1.0])).collect();
        let f_rows: Vec<[f64; 3]> = points.iter().map(|&p| rod.row(p, [1.0, 0.0])).collect();
        Self {
            r: vec![1; nc],
            mu: DVector::from_element(nc, rod.mu_coulomb),
            n: rows_to_matrix(&n_rows),
            f: rows_to_matrix(&f_rows),
            l: DMatrix::zeros(0, 3),
            g: DMatrix::zeros(0, 3),
            k_n: DVector::zeros(nc),
            k_f: DVector::zeros(nc),
            k_l: DVector::zeros(0),
            k_g: DVector::zeros(0),
            gamma_n: DVector::zeros(nc),
            gamma_f: DVector::zeros(nc),
            gamma_e: DVector::zeros(nc),
            gamma_l: DVector::zeros(0),
            mv: rod.mv(),
            m: rod.m_matrix(),
            minv: rod.m_inverse(),
            inertia_form: InertiaForm::Matrix,
        }
    }

    pub fn rod(rod: &Rod2D) -> Self {
        Self::from_rod(rod, &rod.contact_points())
    }

    /// The fixture's `CalcConstraintProblemDataForImpact(contact_dup, friction_dup)`.
    pub fn fixture(rod: &Rod2D, contact_dup: usize, friction_dup: usize) -> Self {
        let pts = duplicate_contacts(&rod.contact_points(), contact_dup);
        let mut d = Self::from_rod(rod, &pts);
        let k = friction_dup + 1;
        d.f = repeat_rows(&d.f, k);
        d.r = vec![k; pts.len()];
        d.k_f = DVector::zeros(d.f.nrows());
        d.gamma_f = DVector::zeros(d.f.nrows());
        d.gamma_e = DVector::zeros(pts.len());
        d
    }

    /// The fixture's `CalcDiscreteTimeProblemData(dt, contact_dup, friction_dup)`.
    pub fn discrete_fixture(rod: &Rod2D, dt: f64, contact_dup: usize, friction_dup: usize) -> Self {
        let mut d = Self::fixture(rod, contact_dup, friction_dup);
        d.gamma_n.fill(0.0);
        d.mv[1] += G * rod.mass * dt;
        d
    }

    /// Removes every contact (the "as limit" tests).
    pub fn remove_contacts(&mut self) {
        self.r.clear();
        self.mu = DVector::zeros(0);
        self.n = DMatrix::zeros(0, 3);
        self.f = DMatrix::zeros(0, 3);
        self.k_n = DVector::zeros(0);
        self.k_f = DVector::zeros(0);
        self.gamma_n = DVector::zeros(0);
        self.gamma_f = DVector::zeros(0);
        self.gamma_e = DVector::zeros(0);
    }

    pub fn view(&self) -> ConstraintVelProblemData<'_> {
        ConstraintVelProblemData {
            r: &self.r,
            mu: self.mu.as_view(),
            g_mult: Operator::Matrix(self.g.as_view()),
            g_transpose_mult: Operator::TransposeOf(self.g.as_view()),
            k_g: self.k_g.as_view(),
            n_mult: Operator::Matrix(self.n.as_view()),
            n_transpose_mult: Operator::TransposeOf(self.n.as_view()),
            k_n: self.k_n.as_view(),
            gamma_n: self.gamma_n.as_view(),
            f_mult: Operator::Matrix(self.f.as_view()),
            f_transpose_mult: Operator::TransposeOf(self.f.as_view()),
            k_f: self.k_f.as_view(),
            gamma_f: self.gamma_f.as_view(),
            gamma_e: self.gamma_e.as_view(),
            l_mult: Operator::Matrix(self.l.as_view()),
            l_transpose_mult: Operator::TransposeOf(self.l.as_view()),
            k_l: self.k_l.as_view(),
            gamma_l: self.gamma_l.as_view(),
            mv: self.mv.as_view(),
            solve_inertia: match self.inertia_form {
                InertiaForm::Matrix => InertiaSolve::Matrix(self.m.as_view()),
                InertiaForm::Inverse => InertiaSolve::Inverse(self.minv.as_view()),
            },
        }
    }
}

/// Non-sliding contact frame: normal +y, tangent +x (columns).
pub fn non_sliding_frame() -> Matrix2<f64> {
    Matrix2::new(0.0, 1.0, 1.0, 0.0)
}

/// Sliding contact frame for slip velocity `vs`: normal +y, tangent sign(vs)·x̂.
pub fn sliding_frame(vs: f64) -> Matrix2<f64> {
    let f = Matrix2::new(0.0, vs.signum(), 1.0, 0.0);
    // The fixture's own checks.
    assert!((f.column(0).dot(&nalgebra::Vector2::new(0.0, 1.0)) - 1.0).abs() < EPS);
    assert!((f.column(1).dot(&nalgebra::Vector2::new(1.0, 0.0)) - vs.signum()).abs() < EPS);
    f
}

pub fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}
