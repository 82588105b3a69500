//! Forward-mode automatic differentiation of the TAMSI residual, written independently of the
//! library from `docs/tamsi.md` §1–§4, for Drake's Jacobian checks (Drake differentiates its
//! residual with `AutoDiffXd`).

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::scenes::Scene;

/// A value and one directional derivative.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dual {
    pub v: f64,
    pub d: f64,
}

impl Dual {
    pub fn constant(v: f64) -> Self {
        Self { v, d: 0.0 }
    }
    pub fn sqrt(self) -> Self {
        let s = self.v.sqrt();
        Self { v: s, d: self.d / (2.0 * s) }
    }
    /// `std::max(0, x)` as AutoDiff evaluates it: the constant 0 unless `0 < x`.
    pub fn positive_part(self) -> Self {
        if 0.0 < self.v { self } else { Self::constant(0.0) }
    }
}

impl Add for Dual {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Self { v: self.v + o.v, d: self.d + o.d }
    }
}
impl Sub for Dual {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Self { v: self.v - o.v, d: self.d - o.d }
    }
}
impl Mul for Dual {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Self { v: self.v * o.v, d: self.d * o.v + self.v * o.d }
    }
}
impl Div for Dual {
    type Output = Self;
    fn div(self, o: Self) -> Self {
        Self { v: self.v / o.v, d: (self.d * o.v - self.v * o.d) / (o.v * o.v) }
    }
}
impl Neg for Dual {
    type Output = Self;
    fn neg(self) -> Self {
        Self { v: -self.v, d: -self.d }
    }
}
impl Mul<Dual> for f64 {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual { v: self * o.v, d: self * o.d }
    }
}

/// How the two-way normal force is written in the residual.
#[derive(Debug, Clone, Copy)]
pub enum NormalLaw {
    /// `fn = (1 − d·vn)₊ (fn0 − dt·k·vn)₊` (the solver's form).
    Fn0,
    /// `fn = k (1 − d·vn)₊ (x0 − dt·vn)₊` with `x0 = fn0/k` given explicitly (Drake's test for
    /// StictionAfterImpact).
    X0 { x0: f64 },
}

/// Residual `R(v)` of §4 with dual numbers.
pub fn residual(scene: &Scene, v: &[Dual], dt: f64, vs: f64, rtol: f64, law: NormalLaw) -> Vec<Dual> {
    let (nv, nc) = (scene.nv(), scene.nc());
    let eps_v = rtol * vs;
    let row = |m: &nalgebra::DMatrix<f64>, r: usize| -> Dual {
        let mut acc = Dual::constant(0.0);
        for c in 0..nv {
            acc = acc + m[(r, c)] * v[c];
        }
        acc
    };
    let mut r: Vec<Dual> = (0..nv).map(|i| row(&scene.m, i) - Dual::constant(scene.p_star[i])).collect();
    for i in 0..nc {
        let vn = row(&scene.jn, i);
        let w = [row(&scene.jt, 2 * i), row(&scene.jt, 2 * i + 1)];
        let fn_ = match (&scene.fn_, law) {
            (Some(f), _) => Dual::constant(f[i]),
            (None, NormalLaw::Fn0) => {
                let (fn0, k, d) = (
                    scene.fn0.as_ref().unwrap()[i],
                    scene.stiffness.as_ref().unwrap()[i],
                    scene.dissipation.as_ref().unwrap()[i],
                );
                (Dual::constant(1.0) - d * vn).positive_part()
                    * (Dual::constant(fn0) - (dt * k) * vn).positive_part()
            }
            (None, NormalLaw::X0 { x0 }) => {
                let (k, d) = (scene.stiffness.as_ref().unwrap()[i], scene.dissipation.as_ref().unwrap()[i]);
                k * ((Dual::constant(1.0) - d * vn).positive_part()
                    * (Dual::constant(x0) - dt * vn).positive_part())
            }
        };
        let s = (w[0] * w[0] + w[1] * w[1] + Dual::constant(eps_v * eps_v)).sqrt();
        let t_hat = [w[0] / s, w[1] / s];
        let x = s / Dual::constant(vs);
        let mu = scene.mu[i];
        let mu_reg = if x.v >= 1.0 { Dual::constant(mu) } else { mu * x * (Dual::constant(2.0) - x) };
        let ft = [-(mu_reg * t_hat[0] * fn_), -(mu_reg * t_hat[1] * fn_)];
        for (c, rc) in r.iter_mut().enumerate() {
            let tau =
                scene.jn[(i, c)] * fn_ + scene.jt[(2 * i, c)] * ft[0] + scene.jt[(2 * i + 1, c)] * ft[1];
            *rc = *rc - dt * tau;
        }
    }
    r
}

/// `∂R/∂v` at `v` by forward differentiation, column-major nv×nv.
pub fn residual_jacobian(scene: &Scene, v: &[f64], dt: f64, vs: f64, rtol: f64, law: NormalLaw) -> Vec<f64> {
    let nv = scene.nv();
    let mut j = vec![0.0; nv * nv];
    for dir in 0..nv {
        let vd: Vec<Dual> = (0..nv).map(|k| Dual { v: v[k], d: if k == dir { 1.0 } else { 0.0 } }).collect();
        for (i, ri) in residual(scene, &vd, dt, vs, rtol, law).iter().enumerate() {
            j[i + dir * nv] = ri.d;
        }
    }
    j
}
