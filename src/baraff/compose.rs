//! `composeMatrices` (`docs/baraff.md` §2): `A = J M⁻¹ J_fᵀ` and `b` from an engine model, and
//! the generalized result `u + M⁻¹ J_fᵀ f` after the solve.
//!
//! `M` is factored once (Cholesky); the columns `W = M⁻¹ J_fᵀ` are kept for the final update
//! (`q̈` or `q̇⁺`) and for `applyImpulse`.

use faer::linalg::matmul::matmul;
use faer::{Accum, MatMut, MatRef, Par};

use super::problem::{check_dim, check_finite};
use super::{BaraffError, Level, ModelProblem};
use crate::linalg::Cholesky;

/// Composition workspace (grow-only).
#[derive(Debug, Clone, Default)]
pub(crate) struct Compose {
    chol: Cholesky,
    /// Generalized coordinates of the last composition.
    pub n: usize,
    m: usize,
    /// `J` (m×n, leading dimension m).
    j: Vec<f64>,
    /// `W = M⁻¹ J_fᵀ` (n×m, leading dimension n).
    w: Vec<f64>,
    /// `A` (m×m, leading dimension m).
    pub a: Vec<f64>,
    /// `b` (m).
    pub b: Vec<f64>,
    /// Unconstrained motion: `M⁻¹(τ − c)` or `q̇` (n).
    u: Vec<f64>,
    /// `W f` (n): the constraint part of the result.
    pub delta: Vec<f64>,
    /// `u + W f` (n): `q̈` or `q̇⁺`.
    pub result: Vec<f64>,
    /// `μ_d` used per row (m; 0 for rows that are not sliding or were made frictionless).
    mu_d: Vec<f64>,
    /// `−μ_d f` per row (m): the sliding friction force along the slip direction (§5).
    pub sliding_friction: Vec<f64>,
}

fn grow(v: &mut Vec<f64>, len: usize) {
    if v.len() < len {
        v.resize(len, 0.0);
    }
}

impl Compose {
    /// Makes sure `m` rows and `n` coordinates need no further allocation.
    pub fn reserve(&mut self, m: usize, n: usize) {
        self.chol.reserve(n);
        for (v, len) in [(&mut self.j, m * n), (&mut self.w, n * m), (&mut self.a, m * m)] {
            grow(v, len);
        }
        for v in [&mut self.b, &mut self.mu_d, &mut self.sliding_friction] {
            grow(v, m);
        }
        for v in [&mut self.u, &mut self.delta, &mut self.result] {
            grow(v, n);
        }
    }

    /// Validates `p` (m rows) and builds `A`, `b`. Rows listed in `frictionless` get `μ_d = 0`
    /// (the fallback of the iterative variant).
    pub fn compose(&mut self, p: &ModelProblem, m: usize, frictionless: &[usize]) -> Result<(), BaraffError> {
        let n = p.mass.nrows();
        check_dim("mass columns", n, p.mass.ncols())?;
        check_dim("jacobian rows", m, p.jacobian.nrows())?;
        check_dim("jacobian columns", n, p.jacobian.ncols())?;
        let level = match p.level {
            Level::Acceleration(v) | Level::Velocity(v) => v,
        };
        check_dim("generalized force/velocity length", n, level.len())?;
        check_finite("M (mass matrix)", p.mass.iter())?;
        check_finite("J (Jacobian)", p.jacobian.iter())?;
        check_finite("tau_or_qdot (generalized force or velocity)", level.iter())?;
        if let Some(bias) = p.bias {
            check_dim("bias length", m, bias.len())?;
            check_finite("bias", bias.iter())?;
        }
        if let Some(s) = p.sliding {
            check_dim("slip_jacobian rows", m, s.slip_jacobian.nrows())?;
            check_dim("slip_jacobian columns", n, s.slip_jacobian.ncols())?;
            check_dim("sliding mu length", m, s.mu.len())?;
            check_finite("slip_jacobian", s.slip_jacobian.iter())?;
            if let Some(&mu) = s.mu.iter().find(|&&mu| !(mu >= 0.0 && mu.is_finite())) {
                return Err(BaraffError::InvalidParameter {
                    name: "mu_d (sliding)",
                    value: mu,
                    domain: "finite and >= 0",
                });
            }
        }
        if let Some(s) = p.stabilization {
            for (name, v) in [("kp (stabilization)", s.kp), ("kv (stabilization)", s.kv)] {
                if !v.is_finite() {
                    return Err(BaraffError::InvalidParameter { name, value: v, domain: "finite" });
                }
            }
            check_dim("position_error length", m, s.position_error.len())?;
            check_finite("position_error", s.position_error.iter())?;
            if let Some(v) = s.velocity_error {
                check_dim("velocity_error length", m, v.len())?;
                check_finite("velocity_error", v.iter())?;
            }
        }

        self.reserve(m, n);
        self.n = n;
        self.m = m;
        let mut mm = self.chol.matrix_mut(n);
        for c in 0..n {
            for r in c..n {
                mm[(r, c)] = p.mass[(r, c)];
            }
        }
        self.chol
            .factor()
            .map_err(|e| BaraffError::MassMatrixNotPositiveDefinite { column: e.column, pivot: e.pivot })?;

        let j = &mut self.j[..m * n];
        for (k, col) in j.chunks_exact_mut(m.max(1)).enumerate().take(n) {
            col.copy_from_slice(p.jacobian.column(k).as_slice());
        }
        // W[:, i] = M⁻¹ J_f[i, :]ᵀ with J_f,i = J_i − μ_d,i Q_i (§1 "N − μQ").
        self.mu_d[..m].fill(0.0);
        let w = &mut self.w[..n * m];
        for i in 0..m {
            let wi = &mut w[i * n..(i + 1) * n];
            for (k, x) in wi.iter_mut().enumerate() {
                *x = j[i + k * m];
            }
            if let Some(s) = p.sliding {
                let mu = if frictionless.contains(&i) { 0.0 } else { s.mu[i] };
                self.mu_d[i] = mu;
                if mu != 0.0 {
                    for (k, x) in wi.iter_mut().enumerate() {
                        *x -= mu * s.slip_jacobian[(i, k)];
                    }
                }
            }
        }
        self.chol.solve_columns_in_place(w);
        // A = J W (faer's blocked matrix product, sequential, no allocation once warm).
        if m > 0 && n > 0 {
            let a = MatMut::from_column_major_slice_mut(&mut self.a[..m * m], m, m);
            let jr = MatRef::from_column_major_slice(&j[..], m, n);
            let wr = MatRef::from_column_major_slice(&w[..], n, m);
            matmul(a, Accum::Replace, jr, wr, 1.0, Par::Seq);
        } else {
            self.a[..m * m].fill(0.0);
        }
        // u, then b = J u + bias + kp C + kv Ċ.
        let u = &mut self.u[..n];
        u.copy_from_slice(level.as_slice());
        if matches!(p.level, Level::Acceleration(_)) {
            self.chol.solve_in_place(u);
        }
        let b = &mut self.b[..m];
        match p.bias {
            Some(bias) => b.copy_from_slice(bias.as_slice()),
            None => b.fill(0.0),
        }
        for (k, &uk) in u.iter().enumerate() {
            if uk != 0.0 {
                for (x, &y) in b.iter_mut().zip(&j[k * m..(k + 1) * m]) {
                    *x += uk * y;
                }
            }
        }
        if let Some(s) = p.stabilization {
            for (i, x) in b.iter_mut().enumerate() {
                *x += s.kp * s.position_error[i];
                if let Some(v) = s.velocity_error {
                    *x += s.kv * v[i];
                }
            }
        }
        Ok(())
    }

    /// `delta = W f`, `result = u + delta` (§2: `q̈ = M⁻¹(τ − c + J_fᵀ f)`; §7 `applyImpulse`:
    /// `q̇⁺ = q̇ + M⁻¹ J_fᵀ p`).
    pub fn finish(&mut self, f: &[f64]) {
        let (n, m) = (self.n, self.m);
        let delta = &mut self.delta[..n];
        delta.fill(0.0);
        for (i, &fi) in f[..m].iter().enumerate() {
            if fi != 0.0 {
                for (x, &y) in delta.iter_mut().zip(&self.w[i * n..(i + 1) * n]) {
                    *x += fi * y;
                }
            }
        }
        for ((r, &u), &d) in self.result[..n].iter_mut().zip(&self.u[..n]).zip(delta.iter()) {
            *r = u + d;
        }
        for ((x, &mu), &fi) in self.sliding_friction[..m].iter_mut().zip(&self.mu_d[..m]).zip(&f[..m]) {
            *x = -mu * fi;
        }
    }
}
