//! `computeImpulse` (`docs/baraff.md` §8): collision / velocity-correction impulses by an active
//! set that adds rows as needed. Bilateral and unilateral normal rows only (the frictionless /
//! bilateral core of §8).
//!
//! 1. Targets `v*_i = −e·v_i` for unilateral rows approaching at the start (`v_i < −cDotTol`),
//!    0 for every other row (bilateral rows, rows added later).
//! 2. Active set: all bilateral rows and the approaching unilateral rows.
//! 3. Solve `K_SS p_S = v*_S − v_S`, `p = 0` elsewhere, `v⁺ = v + K p`.
//! 4. If an active unilateral row has `p_i < −tol`, remove the most negative one and go to 3;
//! 5. else if an inactive unilateral row has `v⁺_i < −tol`, add the most negative one and go
//!    to 3;
//! 6. else done.
//!
//! `K_SS` changes by one row and column per iteration: it is kept as an [`UpdatableQr`]
//! (singular-tolerant, since redundant contacts make `K_SS` singular).

use nalgebra::DMatrixView;

use super::verify::Scales;
use super::{BaraffOutcome, BaraffParameters, RowKind, RowSet};
use crate::linalg::UpdatableQr;

/// Active-set workspace (grow-only).
#[derive(Debug, Clone, Default)]
pub(crate) struct ActiveSet {
    qr: UpdatableQr,
    /// Active rows, in factorization order (rows and columns alike).
    active: Vec<usize>,
    is_active: Vec<bool>,
    target: Vec<f64>,
    rhs: Vec<f64>,
    x: Vec<f64>,
    vbuf: Vec<f64>,
}

/// Result of the loop.
pub(crate) struct ActiveSetResult {
    pub outcome: BaraffOutcome,
    pub iterations: usize,
    pub worst: f64,
}

impl ActiveSet {
    /// Makes sure `m` rows need no further allocation.
    pub fn reserve(&mut self, m: usize) {
        if self.qr.capacity() < m {
            self.qr.reserve(m);
        }
        if self.active.capacity() < m {
            self.active.reserve(m - self.active.len());
        }
        if self.is_active.len() < m {
            self.is_active.resize(m, false);
        }
        for v in [&mut self.target, &mut self.rhs, &mut self.x, &mut self.vbuf] {
            if v.len() < m {
                v.resize(m, 0.0);
            }
        }
    }

    fn add(&mut self, i: usize, k: DMatrixView<f64>) {
        let n = self.active.len();
        for c in 0..n {
            self.vbuf[c] = k[(i, self.active[c])];
        }
        self.qr.append_row(&self.vbuf[..n]);
        self.active.push(i);
        for r in 0..=n {
            self.vbuf[r] = k[(self.active[r], i)];
        }
        self.qr.append_column(&self.vbuf[..=n]);
        self.is_active[i] = true;
    }

    fn remove(&mut self, i: usize) {
        if let Some(p) = self.active.iter().position(|&x| x == i) {
            self.qr.remove_column(p);
            self.qr.remove_row(p);
            self.active.remove(p);
        }
        self.is_active[i] = false;
    }

    /// Runs the loop on `K` (m×m) and pre-impulse row velocities `v`; writes the impulses to `p`
    /// and the post-impulse velocities to `v_plus`, the sets to `sets` (active → `Clamped`,
    /// inactive → `Separating`).
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        k: DMatrixView<f64>,
        v: &[f64],
        rows: &[RowKind],
        params: &BaraffParameters,
        p: &mut [f64],
        v_plus: &mut [f64],
        sets: &mut [RowSet],
    ) -> ActiveSetResult {
        let m = rows.len();
        self.reserve(m);
        self.qr.clear();
        self.active.clear();
        self.is_active[..m].fill(false);
        let sb = v.iter().fold(0.0f64, |s, x| s.max(x.abs()));
        let sk = (0..m).fold(0.0f64, |s, i| s.max(k[(i, i)].abs()));
        let scales = Scales { b: if sb > 0.0 { sb } else { 1.0 }, a: if sk > 0.0 { sk } else { 1.0 } };
        let tol_v = params.tolerance * scales.b;
        let tol_p = params.tolerance * scales.f();
        let piv = params.singular_tolerance * scales.a;

        for i in 0..m {
            let approaching = rows[i] == RowKind::Normal && v[i] < -params.cdot_tolerance;
            self.target[i] = if approaching { -params.restitution * v[i] } else { 0.0 };
            if approaching || rows[i] == RowKind::Bilateral {
                self.add(i, k);
            }
        }

        let cap = params.impulse_iteration_cap(m);
        let mut iterations = 0;
        let mut outcome = BaraffOutcome::IterationLimit;
        while iterations < cap {
            iterations += 1;
            let n = self.active.len();
            for r in 0..n {
                let i = self.active[r];
                self.rhs[r] = self.target[i] - v[i];
            }
            self.qr.solve(&self.rhs[..n], &mut self.x[..n], piv);
            p[..m].fill(0.0);
            for r in 0..n {
                p[self.active[r]] = self.x[r];
            }
            v_plus[..m].copy_from_slice(v);
            for (j, &pj) in p[..m].iter().enumerate() {
                if pj != 0.0 {
                    for (x, &y) in v_plus[..m].iter_mut().zip(k.column(j).as_slice()) {
                        *x += pj * y;
                    }
                }
            }
            // Step 4: the most negative active unilateral impulse.
            let mut worst_p = None::<usize>;
            for &i in &self.active {
                if rows[i] == RowKind::Normal && p[i] < -tol_p && worst_p.is_none_or(|j| p[i] < p[j]) {
                    worst_p = Some(i);
                }
            }
            // Step 5: the most negative inactive unilateral velocity.
            let mut worst_v = None::<usize>;
            if worst_p.is_none() {
                for i in 0..m {
                    if !self.is_active[i]
                        && rows[i] == RowKind::Normal
                        && v_plus[i] < -tol_v
                        && worst_v.is_none_or(|j| v_plus[i] < v_plus[j])
                    {
                        worst_v = Some(i);
                    }
                }
            }
            match (worst_p, worst_v) {
                (None, None) => {
                    outcome = BaraffOutcome::Solved;
                    break;
                }
                _ if iterations == cap => break,
                (Some(i), _) => self.remove(i),
                (None, Some(i)) => self.add(i, k),
            }
        }

        // Verification: active rows at their target, unilateral impulses ≥ 0, inactive
        // unilateral rows not approaching.
        let mut worst: f64 = 0.0;
        for i in 0..m {
            sets[i] = if self.is_active[i] { RowSet::Clamped } else { RowSet::Separating };
            let (vf, vv) = if self.is_active[i] {
                let vf = if rows[i] == RowKind::Normal { (-p[i]).max(0.0) } else { 0.0 };
                (vf, (v_plus[i] - self.target[i]).abs())
            } else {
                (0.0, (-v_plus[i]).max(0.0))
            };
            let r = (vf / scales.f()).max(vv / scales.b);
            worst = if r.is_finite() { worst.max(r) } else { f64::INFINITY };
        }
        if outcome == BaraffOutcome::Solved && worst > params.tolerance {
            outcome = BaraffOutcome::Inexact;
        }
        ActiveSetResult { outcome, iterations, worst }
    }
}
