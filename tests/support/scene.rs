//! A deterministic random planar contact scene (test and benchmark support): `bodies` rigid
//! bodies in the plane (3 dof each), `nc` point contacts each between a body and the ground or
//! between two bodies, with random unit normals and moment arms, one friction direction per
//! contact (2-D, r = 1), `nu` random unilateral limits, bodies moving toward their contacts.
//! Owned dense data, lent as a `ConstraintVelProblemData`.

use contact_solvers::rigid::{ConstraintVelProblemData, InertiaSolve, Operator};
use nalgebra::{DMatrix, DVector};

pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(2862933555777941757).wrapping_add(3037000493))
    }
    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next()
    }
}

pub struct Scene {
    pub r: Vec<usize>,
    pub mu: DVector<f64>,
    pub n: DMatrix<f64>,
    pub f: DMatrix<f64>,
    pub l: DMatrix<f64>,
    pub k_n: DVector<f64>,
    pub k_f: DVector<f64>,
    pub k_l: DVector<f64>,
    pub gamma_n: DVector<f64>,
    pub mv: DVector<f64>,
    pub minv: DMatrix<f64>,
}

impl Scene {
    pub fn new(bodies: usize, nc: usize, nu: usize, seed: u64) -> Self {
        let nv = 3 * bodies;
        let mut g = Lcg::new(seed);
        let mut n = DMatrix::zeros(nc, nv);
        let mut f = DMatrix::zeros(nc, nv);
        for c in 0..nc {
            let a = (g.next() * bodies as f64) as usize;
            let b = if g.next() < 0.5 {
                None
            } else {
                Some((a + 1 + (g.next() * (bodies - 1) as f64) as usize) % bodies)
            };
            let ang = g.range(-0.4, 0.4);
            let (nx, ny) = (ang.sin(), ang.cos());
            let (tx, ty) = (ny, -nx);
            for (body, sign) in [(Some(a), 1.0), (b, -1.0)] {
                let Some(body) = body else { continue };
                let (rx, ry) = (g.range(-0.5, 0.5), g.range(-0.5, 0.5));
                n[(c, 3 * body)] += sign * nx;
                n[(c, 3 * body + 1)] += sign * ny;
                n[(c, 3 * body + 2)] += sign * (rx * ny - nx * ry);
                f[(c, 3 * body)] += sign * tx;
                f[(c, 3 * body + 1)] += sign * ty;
                f[(c, 3 * body + 2)] += sign * (rx * ty - tx * ry);
            }
        }
        let l = DMatrix::from_fn(nu, nv, |_, _| g.range(-1.0, 1.0));
        let masses: Vec<f64> = (0..bodies).map(|_| g.range(1.0, 3.0)).collect();
        let inert: Vec<f64> = (0..bodies).map(|_| g.range(0.1, 0.5)).collect();
        let minv = DMatrix::from_fn(nv, nv, |i, j| {
            if i != j {
                0.0
            } else if i % 3 == 2 {
                1.0 / inert[i / 3]
            } else {
                1.0 / masses[i / 3]
            }
        });
        let v =
            DVector::from_fn(nv, |i, _| if i % 3 == 1 { g.range(-2.0, -0.5) } else { g.range(-1.0, 1.0) });
        let m = minv.clone().try_inverse().unwrap();
        Self {
            r: vec![1; nc],
            mu: DVector::from_fn(nc, |_, _| g.range(0.2, 1.0)),
            n,
            f,
            l,
            k_n: DVector::zeros(nc),
            k_f: DVector::zeros(nc),
            k_l: DVector::from_fn(nu, |_, _| g.range(-0.5, 0.0)),
            gamma_n: DVector::from_element(nc, 1e-6),
            mv: m * v,
            minv,
        }
    }

    pub fn view(&self) -> ConstraintVelProblemData<'_> {
        ConstraintVelProblemData {
            r: &self.r,
            mu: self.mu.as_view(),
            n_mult: Operator::Matrix(self.n.as_view()),
            n_transpose_mult: Operator::TransposeOf(self.n.as_view()),
            k_n: self.k_n.as_view(),
            gamma_n: self.gamma_n.as_view(),
            f_mult: Operator::Matrix(self.f.as_view()),
            f_transpose_mult: Operator::TransposeOf(self.f.as_view()),
            k_f: self.k_f.as_view(),
            l_mult: Operator::Matrix(self.l.as_view()),
            l_transpose_mult: Operator::TransposeOf(self.l.as_view()),
            k_l: self.k_l.as_view(),
            mv: self.mv.as_view(),
            solve_inertia: InertiaSolve::Inverse(self.minv.as_view()),
            ..ConstraintVelProblemData::default()
        }
    }
}
