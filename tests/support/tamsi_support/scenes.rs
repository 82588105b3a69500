//! Drake's TAMSI test scenes (`docs/tamsi_cases.md` §2, §3), as owned column-major data.

use nalgebra::{DMatrix, DVector};

/// All the data of one TAMSI problem, owned.
#[derive(Debug, Clone)]
pub struct Scene {
    pub m: DMatrix<f64>,
    pub jn: DMatrix<f64>,
    pub jt: DMatrix<f64>,
    pub p_star: DVector<f64>,
    pub mu: DVector<f64>,
    /// One-way: the normal forces.
    pub fn_: Option<DVector<f64>>,
    /// Two-way: fn0, stiffness, dissipation.
    pub fn0: Option<DVector<f64>>,
    pub stiffness: Option<DVector<f64>>,
    pub dissipation: Option<DVector<f64>>,
    /// The guess Drake's test passes (v0).
    pub v0: DVector<f64>,
    pub dt: f64,
}

impl Scene {
    pub fn nv(&self) -> usize {
        self.p_star.len()
    }
    pub fn nc(&self) -> usize {
        self.mu.len()
    }
    pub fn problem(&self) -> contact_solvers::tamsi::TamsiProblem<'_> {
        use contact_solvers::tamsi::TamsiProblem;
        match &self.fn_ {
            Some(fn_) => TamsiProblem::one_way(
                self.m.as_view(),
                self.jn.as_view(),
                self.jt.as_view(),
                self.p_star.as_view(),
                fn_.as_view(),
                self.mu.as_view(),
            )
            .unwrap(),
            None => TamsiProblem::two_way(
                self.m.as_view(),
                self.jn.as_view(),
                self.jt.as_view(),
                self.p_star.as_view(),
                self.fn0.as_ref().unwrap().as_view(),
                self.stiffness.as_ref().unwrap().as_view(),
                self.dissipation.as_ref().unwrap().as_view(),
                self.mu.as_view(),
            )
            .unwrap(),
        }
    }
}

/// The pizza saver (§2.1): an equilateral triangle on three legs, in-plane motion, one-way.
/// `mz` is the applied moment (N·m) about the vertical axis; θ = π/5; dt = 1e-3.
pub fn pizza_saver(mz: f64) -> Scene {
    let (m, radius, g, mu) = (1.0, 1.0, 10.0, 0.5);
    let inertia = radius * radius * m;
    let dt = 1.0e-3;
    let theta = std::f64::consts::PI / 5.0;
    let (c, s) = (theta.cos(), theta.sin());
    let r_wb = nalgebra::Matrix2::new(c, s, -s, c);
    let half_sqrt3 = 3f64.sqrt() / 2.0;
    let legs = [
        nalgebra::Vector2::new(-half_sqrt3, -0.5),
        nalgebra::Vector2::new(half_sqrt3, -0.5),
        nalgebra::Vector2::new(0.0, 1.0),
    ];
    let mut jt = DMatrix::zeros(6, 3);
    for (i, leg) in legs.iter().enumerate() {
        let p = r_wb * (leg * radius);
        jt[(2 * i, 0)] = 1.0;
        jt[(2 * i, 2)] = -p.y;
        jt[(2 * i + 1, 1)] = 1.0;
        jt[(2 * i + 1, 2)] = p.x;
    }
    let mass = DMatrix::from_diagonal(&DVector::from_vec(vec![m, m, inertia]));
    let v0 = DVector::zeros(3);
    let tau = DVector::from_vec(vec![0.0, 0.0, mz]);
    let p_star = &mass * &v0 + dt * tau;
    Scene {
        m: mass,
        jn: DMatrix::zeros(3, 3),
        jt,
        p_star,
        mu: DVector::from_element(3, mu),
        fn_: Some(DVector::from_element(3, m * g / 3.0)),
        fn0: None,
        stiffness: None,
        dissipation: None,
        v0,
        dt,
    }
}

/// The pizza saver without contacts (§2.4): τ = (0, 0, 6).
pub fn pizza_saver_no_contact() -> Scene {
    let mut s = pizza_saver(6.0);
    s.jn = DMatrix::zeros(0, 3);
    s.jt = DMatrix::zeros(0, 3);
    s.mu = DVector::zeros(0);
    s.fn_ = Some(DVector::zeros(0));
    s
}

/// Constants of the rolling-cylinder fixture (§3.1).
pub struct Cylinder;
impl Cylinder {
    pub const MASS: f64 = 1.0;
    pub const RADIUS: f64 = 1.0;
    pub const GRAVITY: f64 = 9.0;
    pub const INERTIA: f64 = 1.0;
    pub const MU: f64 = 0.1;
    pub const PENETRATION_ALLOWANCE: f64 = 1.0e-6;
    pub const X_INITIAL: f64 = 1.0e-3;
    pub const H0: f64 = 0.5;
    pub const DT: f64 = 1.0e-3;

    pub fn stiffness() -> f64 {
        Self::MASS * Self::GRAVITY / Self::PENETRATION_ALLOWANCE
    }

    pub fn dissipation() -> f64 {
        let omega = (Self::stiffness() / Self::MASS).sqrt();
        let damping_ratio = 1.0;
        damping_ratio * (1.0 / omega) / Self::PENETRATION_ALLOWANCE
    }

    /// Penetration per contact, m.
    pub fn x0(nc: usize) -> f64 {
        Self::X_INITIAL / nc as f64
    }
}

/// The rolling cylinder (§3.1): falls from h0 = 0.5 m onto the ground with horizontal velocity
/// `vx0`, two-way coupled, the single contact replicated `nc` times.
pub fn rolling_cylinder(vx0: f64, nc: usize) -> Scene {
    let r = Cylinder::RADIUS;
    let mut jn = DMatrix::zeros(nc, 3);
    let mut jt = DMatrix::zeros(2 * nc, 3);
    for i in 0..nc {
        jn[(i, 1)] = 1.0;
        jt[(2 * i, 0)] = 1.0;
        jt[(2 * i, 2)] = r;
    }
    let m =
        DMatrix::from_diagonal(&DVector::from_vec(vec![Cylinder::MASS, Cylinder::MASS, Cylinder::INERTIA]));
    let vy0 = -(2.0 * Cylinder::GRAVITY * Cylinder::H0).sqrt();
    let v0 = DVector::from_vec(vec![vx0, vy0, 0.0]);
    let tau = DVector::from_vec(vec![0.0, -Cylinder::MASS * Cylinder::GRAVITY, 0.0]);
    let p_star = &m * &v0 + Cylinder::DT * tau;
    let k = Cylinder::stiffness();
    Scene {
        m,
        jn,
        jt,
        p_star,
        mu: DVector::from_element(nc, Cylinder::MU),
        fn_: None,
        fn0: Some(DVector::from_element(nc, k * Cylinder::x0(nc))),
        stiffness: Some(DVector::from_element(nc, k)),
        dissipation: Some(DVector::from_element(nc, Cylinder::dissipation())),
        v0,
        dt: Cylinder::DT,
    }
}
