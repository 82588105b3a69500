//! Lemke's complementary pivoting in Drake `MobyLcpSolver`'s revised form (`docs/rigid.md`
//! §8.2), with the basis inverse updated from pivot to pivot instead of refactored.
//!
//! Variables: `z₀…z_{n−1}` are 0…n−1, `w₀…w_{n−1}` are n…2n−1, the artificial `t` is 2n. The
//! basis matrix `B` has one column per basic variable (`zⱼ → M[:, j]`, `wᵢ → −eᵢ`, `t → d`, the
//! covering vector) and `B x = −q` holds for the basic values `x`, i.e. `w = M z + d t + q`.
//! Moby refactors `B` at every pivot; here `B⁻¹` is kept explicitly ([`BasisInverse`]) and
//! refactored every `max(2n, 50)` pivots, so a pivot costs O(n²) instead of O(n³) and the pivot
//! path is Drake's up to round-off. `x` is updated incrementally as in Drake.
//!
//! Two variants share the kernel:
//! * [`LemkeVariant::Drake`]: Moby's rules verbatim — covering vector `indicator(q < 0)`, the
//!   Harris two-pass ratio test with "artificial first, else first slot", `min(1000, 50n)`
//!   pivots, no anti-cycling;
//! * [`LemkeVariant::Lexicographic`]: the textbook lexicographic Lemke (Cottle, Pang & Stone
//!   §4.4) — covering vector of ones, ties of the Harris test broken by the lexicographic
//!   minimum of the rows of `B⁻¹` scaled by the pivot column (which cannot cycle), at most
//!   `max(1000, 50n)` pivots. It is this crate's answer to the problems on which Drake's rule
//!   cycles (e.g. Siconos' `lcp_tobenna`).

use crate::linalg::BasisInverse;

use super::problem::{EPS, LcpOutcome, argmin};

/// Which pivoting rules [`crate::lcp::MobyLcpSolver`]'s Lemke follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(i32)]
pub enum LemkeVariant {
    /// Drake `MobyLcpSolver::SolveLcpLemke` (§8.2): Drake's pivot path.
    #[default]
    Drake = 0,
    /// Lexicographic (anti-cycling) Lemke with an all-ones covering vector.
    Lexicographic = 1,
}

/// Grow-only storage of one Lemke solve.
#[derive(Debug, Clone, Default)]
pub(crate) struct LemkeWorkspace {
    binv: BasisInverse,
    x: Vec<f64>,
    d: Vec<f64>,
    cover: Vec<f64>,
    bas: Vec<usize>,
    cand: Vec<usize>,
}

impl LemkeWorkspace {
    pub(crate) fn reserve(&mut self, n: usize) {
        self.binv.reserve(n);
        crate::linalg::grow(&mut self.x, n);
        crate::linalg::grow(&mut self.d, n);
        crate::linalg::grow(&mut self.cover, n);
        if self.bas.len() < n {
            self.bas.resize(n, 0);
        }
        if self.cand.capacity() < n {
            self.cand.reserve(n - self.cand.len());
        }
    }
}

/// Settings of one Lemke run (already resolved: tolerances may still be ≤ 0 = automatic).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LemkeSettings {
    pub piv_tol: f64,
    pub zero_tol: f64,
    pub variant: LemkeVariant,
    /// 0 = the variant's default.
    pub max_pivots: usize,
    /// 0 = `max(2n, 50)`.
    pub refactor_interval: usize,
}

/// Runs Lemke on the column-major `n×n` `m` and `q`; writes `z` (length n, zero on failure).
/// Returns the outcome and the pivot count (Drake's counter semantics: the loop index at the
/// successful check, `max_iter` on the limit).
pub(crate) fn lemke(
    ws: &mut LemkeWorkspace,
    m: &[f64],
    q: &[f64],
    s: &LemkeSettings,
    z: &mut [f64],
) -> (LcpOutcome, usize) {
    let n = q.len();
    z[..n].fill(0.0);
    if n == 0 {
        return (LcpOutcome::Solved, 0);
    }
    ws.reserve(n);
    let max_m = super::problem::max_abs(&m[..n * n]);
    let piv_tol = if s.piv_tol > 0.0 { s.piv_tol } else { n as f64 * max_m.max(1.0) * EPS };
    let zero_tol = if s.zero_tol > 0.0 { s.zero_tol } else { n as f64 * max_m * 10.0 * EPS };
    let lexico = s.variant == LemkeVariant::Lexicographic;
    let max_iter = match (s.max_pivots, lexico) {
        (0, false) => (50 * n).min(1000),
        (0, true) => (50 * n).max(1000),
        (k, _) => k,
    };
    let refactor_every = if s.refactor_interval == 0 { (2 * n).max(50) } else { s.refactor_interval };

    // Trivial: z = 0 solves it (§8.2 step 2).
    let min_q = q.iter().copied().fold(f64::INFINITY, |a, x| if x < a { x } else { a });
    if min_q > -zero_tol {
        return (LcpOutcome::Solved, 0);
    }

    let t = 2 * n;
    let x = &mut ws.x[..n];
    let d = &mut ws.d[..n];
    let cover = &mut ws.cover[..n];
    let bas = &mut ws.bas[..n];
    x.copy_from_slice(q);
    for (i, b) in bas.iter_mut().enumerate() {
        *b = n + i;
    }
    ws.binv.set_scaled_identity(n, -1.0);
    for (c, &qi) in cover.iter_mut().zip(q) {
        *c = if lexico || qi < 0.0 { 1.0 } else { 0.0 };
    }

    // The artificial enters in the slot of the most negative x (§8.2 step 4). Lexicographic:
    // among exact ties the largest index, the lexicographic minimum of (q, I).
    let lv = if lexico {
        let mut best = 0;
        for i in 1..n {
            if x[i] <= x[best] {
                best = i;
            }
        }
        best
    } else {
        argmin(x)
    };
    let tval = -x[lv];
    let mut leaving = bas[lv];
    bas[lv] = t;
    for (xi, &c) in x.iter_mut().zip(cover.iter()) {
        *xi += tval * c;
    }
    x[lv] = tval;
    // B = −I, so B⁻¹ d = −d.
    for (di, &c) in d.iter_mut().zip(cover.iter()) {
        *di = -c;
    }
    ws.binv.replace_column(lv, d);

    for k in 0..max_iter {
        if leaving == t {
            for (j, &b) in bas.iter().enumerate() {
                if b < n {
                    z[b] = x[j];
                }
            }
            return (LcpOutcome::Solved, k);
        }
        if ws.binv.updates() >= refactor_every {
            refactor(&mut ws.binv, m, cover, bas, n);
        }
        // Entering = complement of the variable that left; d = B⁻¹ · (its column).
        let entering = if leaving < n {
            for (di, &c) in d.iter_mut().zip(ws.binv.column(leaving)) {
                *di = -c;
            }
            n + leaving
        } else {
            let j = leaving - n;
            ws.binv.solve(&m[j * n..(j + 1) * n], d);
            j
        };

        // Harris two-pass ratio test (§8.2 steps 5.4–5.6).
        let mut theta = f64::INFINITY;
        let mut any = false;
        for j in 0..n {
            if d[j] > piv_tol {
                any = true;
                let r = (x[j] + zero_tol) / d[j];
                if r < theta {
                    theta = r;
                }
            }
        }
        if !any {
            z[..n].fill(0.0);
            return (LcpOutcome::RayTermination, k);
        }
        ws.cand.clear();
        let mut slot = usize::MAX;
        for j in 0..n {
            if d[j] > piv_tol && x[j] / d[j] <= theta {
                if bas[j] == t {
                    slot = j;
                }
                ws.cand.push(j);
            }
        }
        if ws.cand.is_empty() {
            z[..n].fill(0.0);
            return (LcpOutcome::ZeroToleranceTooLow, k);
        }
        if slot == usize::MAX {
            slot = if lexico && ws.cand.len() > 1 {
                lexicographic_min(&ws.binv, d, &ws.cand, n)
            } else {
                ws.cand[0]
            };
        }

        leaving = bas[slot];
        let rho = x[slot] / d[slot];
        for (xi, &di) in x.iter_mut().zip(d.iter()) {
            *xi -= rho * di;
        }
        x[slot] = rho;
        ws.binv.replace_column(slot, d);
        bas[slot] = entering;
    }
    z[..n].fill(0.0);
    (LcpOutcome::PivotLimit, max_iter)
}

/// Rebuilds `B` from the basic variables and recomputes `B⁻¹` from scratch.
fn refactor(binv: &mut BasisInverse, m: &[f64], cover: &[f64], bas: &[usize], n: usize) {
    let mut b = binv.matrix_mut(n);
    for (j, &v) in bas.iter().enumerate() {
        let mut col = b.column_mut(j);
        if v < n {
            col.copy_from_slice(&m[v * n..(v + 1) * n]);
        } else if v < 2 * n {
            col.fill(0.0);
            col[v - n] = -1.0;
        } else {
            col.copy_from_slice(cover);
        }
    }
    // B is nonsingular by construction (every pivot exceeded the pivot tolerance); a
    // non-finite inverse would surface as a ray termination on the next ratio test.
    let _ = binv.factor();
}

/// Slot among `cand` whose row of `−B⁻¹ / dⱼ` is lexicographically smallest (rows of the
/// standard-form basis inverse `B_std⁻¹ = −B⁻¹`).
fn lexicographic_min(binv: &BasisInverse, d: &[f64], cand: &[usize], n: usize) -> usize {
    let mut best = cand[0];
    for &j in &cand[1..] {
        for k in 0..n {
            let a = -binv.get(j, k) / d[j];
            let b = -binv.get(best, k) / d[best];
            let scale = 1e-11 * a.abs().max(b.abs()).max(1.0);
            if a < b - scale {
                best = j;
                break;
            }
            if b < a - scale {
                break;
            }
        }
    }
    best
}
