//! Drake `MobyLcpSolver::SolveLcpFast`: Drumwright's principal pivoting method for LCPs with
//! `M = P A Pᵀ` (A SPD) and few nonzero `z` (`docs/rigid.md` §8.4).
//!
//! Two sorted index sets: `nonbas` (z free, w = 0) and `bas` (z = 0). Each iteration solves
//! `M[nonbas, nonbas] zz = −q[nonbas]` with a partial-pivot LU that never refuses a singular
//! matrix (§8.6: singular solves give ±inf/NaN, and Drake's `testProblem4` passes only because
//! of that), then moves one index between the sets. Argmins follow §8.6 (strict `<`, NaN at
//! index 0 never replaced).
//!
//! Deliberate difference: the cold trivial exit reports 0 pivots (Drake leaves its counter at
//! the previous call's value). Sub-problems of 64 or more indices use the blocked LU of
//! [`PartialPivLu`], whose factors differ from Eigen's only on exactly singular matrices.

use crate::linalg::PartialPivLu;

use super::LcpOutcome;
use super::problem::{above_neg_tol, argmin};

/// Grow-only storage of the principal pivoting solver.
#[derive(Debug, Clone, Default)]
pub(crate) struct FastWorkspace {
    lu: PartialPivLu,
    nonbas: Vec<usize>,
    bas: Vec<usize>,
    zz: Vec<f64>,
    w: Vec<f64>,
    tmp: Vec<f64>,
}

impl FastWorkspace {
    pub(crate) fn reserve(&mut self, n: usize) {
        self.lu.reserve(n);
        for v in [&mut self.nonbas, &mut self.bas] {
            if v.capacity() < n + 1 {
                v.reserve(n + 1 - v.len());
            }
        }
        crate::linalg::grow(&mut self.zz, n);
        crate::linalg::grow(&mut self.w, n);
        crate::linalg::grow(&mut self.tmp, n);
    }
}

/// Runs `SolveLcpFast` on column-major `n×n` `m`, `q`. `warm`: use `z` (length n) as the warm
/// start (index i basic iff `|zᵢ| < tol`), else cold. Writes `z`; returns outcome (Drake's
/// verdict: success means the iteration ended, possibly on ±inf/NaN, §8.6), pivots (the
/// iteration counter `p` at the solution, `2n + 1` at the limit) and the zero tolerance used.
pub(crate) fn fast(
    ws: &mut FastWorkspace,
    m: &[f64],
    q: &[f64],
    zero_tol: f64,
    warm: bool,
    z: &mut [f64],
) -> (LcpOutcome, usize, f64) {
    let n = q.len();
    let tol = if zero_tol < 0.0 {
        n as f64 * super::problem::max_abs(&m[..n * n]) * 10.0 * super::problem::EPS
    } else {
        zero_tol
    };
    if n == 0 {
        return (LcpOutcome::Solved, 0, tol);
    }
    ws.reserve(n);
    ws.nonbas.clear();
    ws.bas.clear();
    if warm {
        for (i, &zi) in z[..n].iter().enumerate() {
            if zi.abs() < tol {
                ws.bas.push(i);
            } else {
                ws.nonbas.push(i);
            }
        }
    } else {
        let mi = argmin(q);
        if above_neg_tol(q[mi], tol) {
            z[..n].fill(0.0);
            return (LcpOutcome::Solved, 0, tol);
        }
        ws.nonbas.push(mi);
        ws.bas.extend((0..n).filter(|&i| i != mi));
    }

    for p in 1..=2 * n {
        let nb = ws.nonbas.len();
        // zz = M[nonbas, nonbas]⁻¹ (−q[nonbas]).
        {
            let mut a = ws.lu.matrix_mut(nb);
            for (jj, &j) in ws.nonbas.iter().enumerate() {
                for (ii, &i) in ws.nonbas.iter().enumerate() {
                    a[(ii, jj)] = m[i + j * n];
                }
            }
        }
        ws.lu.factor();
        let zz = &mut ws.zz[..nb];
        for (zi, &i) in zz.iter_mut().zip(&ws.nonbas) {
            *zi = -q[i];
        }
        ws.lu.solve_in_place(zz, &mut ws.tmp[..nb]);

        // w = M[bas, nonbas] zz + q[bas].
        let nw = ws.bas.len();
        let w = &mut ws.w[..nw];
        for (wi, &i) in w.iter_mut().zip(&ws.bas) {
            *wi = q[i];
        }
        for (jj, &j) in ws.nonbas.iter().enumerate() {
            let col = &m[j * n..(j + 1) * n];
            for (wi, &i) in w.iter_mut().zip(&ws.bas) {
                *wi += col[i] * zz[jj];
            }
        }
        let i_w = argmin(w);
        if nw == 0 || above_neg_tol(w[i_w], tol) {
            if nb > 0 && leave_nonbasic(zz, tol, &mut ws.nonbas, &mut ws.bas) {
                continue;
            }
            z[..n].fill(0.0);
            for (jj, &j) in ws.nonbas.iter().enumerate() {
                z[j] = zz[jj];
            }
            return (LcpOutcome::Solved, p, tol);
        }
        let idx = ws.bas.remove(i_w);
        ws.nonbas.push(idx);
        ws.nonbas.sort_unstable();
        if nb > 0 {
            // Drake quirk Q7: i_z indexes the old zz but removes from the re-sorted nonbas.
            leave_nonbasic(zz, tol, &mut ws.nonbas, &mut ws.bas);
        }
    }
    z[..n].fill(0.0);
    (LcpOutcome::PivotLimit, 2 * n + 1, tol)
}

/// Drake's exchange of `SolveLcpFast` (§8.4): when the most negative `zz` entry (the first of
/// equals, at position `i_z`) is below `−tol`, moves `nonbas[i_z]` to `bas` (kept sorted).
/// Whether it moved one. `zz` must not be empty.
fn leave_nonbasic(zz: &[f64], tol: f64, nonbas: &mut Vec<usize>, bas: &mut Vec<usize>) -> bool {
    let i_z = argmin(zz);
    if zz[i_z] < -tol {
        let idx = nonbas.remove(i_z);
        bas.push(idx);
        bas.sort_unstable();
        return true;
    }
    false
}
