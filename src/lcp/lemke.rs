//! Lemke's complementary pivoting in Drake `MobyLcpSolver`'s revised form (`docs/rigid.md`
//! §8.2), with the basis inverse updated from pivot to pivot instead of refactored.
//!
//! Variables: `z₀…z_{n−1}` are 0…n−1, `w₀…w_{n−1}` are n…2n−1, the artificial `t` is 2n. The
//! basis matrix `B` has one column per basic variable (`zⱼ → M[:, j]`, `wᵢ → −eᵢ`, `t → d`, the
//! covering vector) and `B x = −q` holds for the basic values `x`, i.e. `w = M z + d t + q`.
//! Moby refactors `B` at every pivot; here `B⁻¹` is kept explicitly ([`BasisInverse`]) and
//! refactored every `max(2n, 50)` pivots, so a pivot costs O(n²) instead of O(n³). `x` is updated
//! incrementally as in Drake.
//!
//! Keeping Drake's pivot path. The ratio test compares `xⱼ/dⱼ` with `θ = min (xⱼ + tol)/dⱼ`,
//! and in degenerate problems (duplicated contacts, stacked boxes) candidates tie with `θ` up to
//! far less than the round-off of an updated inverse (a Harris window of 4.5e-13 relative
//! against ratio errors of 6e-13 on a 4-unknown rod problem): the updated `d` then dropped the
//! artificial from the tie set and the path wandered off (6 pivots and a rejected answer where
//! refactoring takes 4). So `x` and `d` are made as accurate as a fresh factorization's where a
//! decision hinges on them:
//! * at every refactorization `x` is recomputed from the new factors, and right after one `d`
//!   comes from the LU solve, not the explicit inverse;
//! * when another candidate's ratio lies within `1e-9` (relative) of `θ` (a tie), the chosen
//!   pivot is below `1e-9 ‖d‖∞`, or the test finds no pivot, `x` and `d` get one step of
//!   iterative refinement against the exact basis columns (`x += B⁻¹ (−q − B x)`,
//!   `d += B⁻¹ (a − B d)`, O(n²)) and the test is run again;
//! * if the tiny pivot moved by more than 1% in the refinement (round-off, a zero of the exact
//!   `d`) and the inverse has had n/2 updates since its last factorization, or there is still no
//!   pivot (the solve would end), the basis is refactored and the test is run on `x` and `d` from
//!   the fresh factors.
//!
//! With `refactor_interval = 1` every `d` comes from a fresh LU and `x` is updated incrementally:
//! Drake's arithmetic, O(n³) per pivot, and its decisions are taken as they come. The default
//! takes the same path on the box towers and Rod2D cases of the tests; on 11 of 299 random
//! contact LCPs (n = 10…103) the paths differ where Drake's own decisions are decided by
//! round-off (ratios that tie to 1e-9 in an ill-conditioned basis, pivots of 1e-12): both end
//! alike on 5, the default solves 4 on which Drake's arithmetic ends on a ray, the reverse on 2.
//!
//! Accuracy of the answer. When the artificial leaves, `x` gets steps of iterative refinement
//! against the exact final basis (`x += B⁻¹ (−q − B x)` with the updated inverse, O(n²) each)
//! while they halve the residual, and if the residual is still above `n · eps` times the data's
//! scale, `x = −B⁻¹ q` from a fresh LU of the final basis with one refinement step (kept if its
//! residual is the smaller). So `w = M z + q` is at round-off level even after hundreds of
//! updates (the incrementally updated `x` left `min w = −9.2e-11` on a 200-unknown box tower where
//! refactoring gives `2e-14`), at the cost of about one pivot, and at most one factorization.
//!
//! Two variants share the kernel:
//! * [`LemkeVariant::Drake`]: Moby's rules verbatim — covering vector `indicator(q < 0)`, the
//!   Harris two-pass ratio test with "artificial first, else first slot", `min(1000, 50n)`
//!   pivots, no anti-cycling;
//! * [`LemkeVariant::Lexicographic`]: the textbook lexicographic Lemke (Cottle, Pang & Stone
//!   §4.4) — covering vector of ones, ties of the Harris test broken by the lexicographic
//!   minimum of the rows of `B⁻¹` scaled by the pivot column (which cannot cycle), at most
//!   `max(10000, 50n)` pivots (it cannot cycle, so the cap only bounds time: Siconos' cap is
//!   10000, enough for Murty's exponential problems up to n = 13, which need `2ⁿ − 1`; `50n`,
//!   Drake's unrevised cap, takes over for n > 200). It is this crate's answer to the problems
//!   on which Drake's rule cycles (e.g. Siconos' `lcp_tobenna`).

use crate::coded::coded_enum;
use crate::linalg::{BasisInverse, PartialPivLu};

use super::LcpOutcome;
use super::problem::{EPS, argmin};

coded_enum! {
    /// Which pivoting rules [`crate::lcp::MobyLcpSolver`]'s Lemke follows.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
    pub enum LemkeVariant {
        /// Drake `MobyLcpSolver::SolveLcpLemke` (§8.2): Drake's pivot path.
        #[default]
        0 => Drake,
        /// Lexicographic (anti-cycling) Lemke with an all-ones covering vector.
        1 => Lexicographic,
    }
}

impl LemkeVariant {
    /// The variant's default pivot limit for a problem of size `n`: `min(1000, 50n)` (Drake's)
    /// or `max(10000, 50n)` (lexicographic, see the module docs).
    pub fn default_max_pivots(self, n: usize) -> usize {
        match self {
            LemkeVariant::Drake => n.saturating_mul(50).min(1000),
            LemkeVariant::Lexicographic => n.saturating_mul(50).max(10_000),
        }
    }
}

/// Grow-only storage of one Lemke solve.
#[derive(Debug, Clone, Default)]
pub(crate) struct LemkeWorkspace {
    binv: BasisInverse,
    /// Fresh factorization of the final basis.
    lu: PartialPivLu,
    x: Vec<f64>,
    d: Vec<f64>,
    /// The entering column `a` (B d = a) and scratch for residuals and corrections.
    a: Vec<f64>,
    r: Vec<f64>,
    dx: Vec<f64>,
    tmp: Vec<f64>,
    cover: Vec<f64>,
    bas: Vec<usize>,
    cand: Vec<usize>,
}

impl LemkeWorkspace {
    pub(crate) fn reserve(&mut self, n: usize) {
        self.binv.reserve(n);
        self.lu.reserve(n);
        for v in
            [&mut self.x, &mut self.d, &mut self.a, &mut self.r, &mut self.dx, &mut self.tmp, &mut self.cover]
        {
            crate::linalg::grow(v, n);
        }
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
    /// `max |Mᵢⱼ|` of the matrix of the run if the caller knows it, else negative.
    pub max_m: f64,
}

/// How one Lemke run ended: the outcome (Drake's verdict), the pivot count (Drake's counter
/// semantics: the loop index at the successful check, `max_iter` on the limit) and the
/// tolerances it used.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LemkeRun {
    pub outcome: LcpOutcome,
    pub pivots: usize,
    pub piv_tol: f64,
    pub zero_tol: f64,
}

/// Lexicographic variant: entries of `d` below this fraction of `‖d‖∞` are round-off, not
/// pivots.
const LEXICO_RELATIVE_PIVOT: f64 = 1e-9;

/// Relative window around `θ` inside which a ratio's membership of the tie set is decided on a
/// refined `d` (see the module docs).
const TIE_WINDOW: f64 = 1e-9;

/// Runs Lemke on the column-major `n×n` `m` and `q`; writes `z` (length n, zero on failure).
pub(crate) fn lemke(
    ws: &mut LemkeWorkspace,
    m: &[f64],
    q: &[f64],
    s: &LemkeSettings,
    z: &mut [f64],
) -> LemkeRun {
    let n = q.len();
    z[..n].fill(0.0);
    let max_m = if s.max_m >= 0.0 { s.max_m } else { super::problem::max_abs(&m[..n * n]) };
    let piv_tol = if s.piv_tol > 0.0 { s.piv_tol } else { n as f64 * max_m.max(1.0) * EPS };
    let zero_tol = if s.zero_tol > 0.0 { s.zero_tol } else { n as f64 * max_m * 10.0 * EPS };
    let mut run = LemkeRun { outcome: LcpOutcome::Solved, pivots: 0, piv_tol, zero_tol };
    if n == 0 {
        return run;
    }
    ws.reserve(n);
    let lexico = s.variant == LemkeVariant::Lexicographic;
    let max_iter = if s.max_pivots == 0 { s.variant.default_max_pivots(n) } else { s.max_pivots };
    let refactor_every = if s.refactor_interval == 0 { (2 * n).max(50) } else { s.refactor_interval };

    // Trivial: z = 0 solves it (§8.2 step 2).
    let min_q = q.iter().copied().fold(f64::INFINITY, |a, x| if x < a { x } else { a });
    if super::problem::above_neg_tol(min_q, zero_tol) {
        return run;
    }

    let t = 2 * n;
    let LemkeWorkspace { binv, lu, x, d, a, r, dx, tmp, cover, bas, cand } = ws;
    let (x, d, a, r, dx, tmp) =
        (&mut x[..n], &mut d[..n], &mut a[..n], &mut r[..n], &mut dx[..n], &mut tmp[..n]);
    let cover = &mut cover[..n];
    let bas = &mut bas[..n];
    x.copy_from_slice(q);
    for (i, b) in bas.iter_mut().enumerate() {
        *b = n + i;
    }
    binv.set_scaled_identity(n, -1.0);
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
    binv.replace_column(lv, d);

    let basis = Basis { m, cover, n, max_m };
    for k in 0..max_iter {
        if leaving == t {
            let bas = &*bas;
            basis.refine_final(binv, lu, q, bas, x, r, dx, tmp);
            for (j, &b) in bas.iter().enumerate() {
                if b < n {
                    z[b] = x[j];
                }
            }
            run.pivots = k;
            return run;
        }
        if binv.updates() >= refactor_every {
            refactor(binv, &basis, bas);
            if refactor_every > 1 {
                // x afresh from the new factors: the incremental x drifts with every update.
                // (Refactoring at every pivot is Drake's arithmetic, which keeps x incremental.)
                for (ti, &qi) in tmp.iter_mut().zip(q) {
                    *ti = -qi;
                }
                binv.solve_factored(tmp, x);
            }
        }
        // Entering = complement of the variable that left; its column a; d = B⁻¹ a (for
        // a = −eᵢ a column of the inverse).
        let entering = if leaving < n {
            a.fill(0.0);
            a[leaving] = -1.0;
            if !binv.solve_factored(a, d) {
                for (di, &c) in d.iter_mut().zip(binv.column(leaving)) {
                    *di = -c;
                }
            }
            n + leaving
        } else {
            a.copy_from_slice(&m[(leaving - n) * n..(leaving - n + 1) * n]);
            if !binv.solve_factored(a, d) {
                binv.solve(a, d);
            }
            leaving - n
        };

        // Harris two-pass ratio test (§8.2 steps 5.4–5.6). Where the decision is within the
        // updated inverse's round-off it is taken again on refined x and d (stage 1), and where
        // it still rests on a round-off-sized pivot or ends the solve, on x and d from a fresh
        // factorization (stage 2, Drake's arithmetic).
        let mut stage = 0;
        let mut tiny_before = (usize::MAX, 0.0);
        let slot = loop {
            let piv_tol = if lexico {
                let dmax = d.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                piv_tol.max(LEXICO_RELATIVE_PIVOT * dmax)
            } else {
                piv_tol
            };
            let mut slot = usize::MAX;
            let mut near = false;
            cand.clear();
            let (theta, dmax) = harris_theta(x, d, piv_tol, zero_tol);
            if let Some((theta, arg)) = theta {
                let window = TIE_WINDOW * theta.abs();
                let (lo, hi) = (theta - window, theta + window);
                for j in 0..n {
                    if d[j] > piv_tol {
                        let ratio = x[j] / d[j];
                        if ratio <= hi {
                            if ratio <= theta {
                                if bas[j] == t {
                                    slot = j;
                                }
                                cand.push(j);
                            }
                            // The entry that sets θ is a candidate whatever its round-off; another
                            // one within the window of θ is in or out by round-off.
                            near |= j != arg && ratio >= lo;
                        }
                    }
                }
            }
            if slot == usize::MAX && !cand.is_empty() {
                slot = if lexico && cand.len() > 1 { lexicographic_min(binv, d, cand, n) } else { cand[0] };
            }
            let tiny_pivot = slot != usize::MAX && d[slot].abs() < TIE_WINDOW * dmax;
            let ends = slot == usize::MAX;
            // A tiny pivot that refinement moved by more than 1% is round-off (a zero of the
            // exact d), not a pivot: decide on fresh factors.
            let unstable = tiny_pivot
                && (slot != tiny_before.0 || (d[slot] - tiny_before.1).abs() > 1e-2 * d[slot].abs());
            // Refactoring at every pivot is Drake's arithmetic: its decisions are taken as is.
            // Fresh factors for an unstable pivot only when the inverse has aged (n/2 updates,
            // about the cost of the refactorization): a young one is as good, and degenerate
            // cycling would otherwise refactor at every other pivot.
            let escalate = refactor_every > 1
                && match stage {
                    0 => near || tiny_pivot || ends,
                    1 => (unstable && binv.updates() >= (n / 2).max(1)) || ends,
                    _ => false,
                };
            if tiny_pivot {
                tiny_before = (slot, d[slot]);
            }
            if !escalate {
                if ends {
                    z[..n].fill(0.0);
                    // No entry above the pivot tolerance: a ray (§8.2 5.4); candidates but none
                    // in the second pass: "zero tolerance too low" (5.5).
                    run.outcome = if theta.is_none() {
                        LcpOutcome::RayTermination
                    } else {
                        LcpOutcome::ZeroToleranceTooLow
                    };
                    run.pivots = k;
                    return run;
                }
                break slot;
            }
            stage += 1;
            if stage == 1 {
                basis.refine(binv, bas, q, a, x, d, r, dx);
            } else {
                refactor(binv, &basis, bas);
                for (ti, &qi) in tmp.iter_mut().zip(q) {
                    *ti = -qi;
                }
                binv.solve_factored(tmp, x);
                binv.solve_factored(a, d);
            }
        };

        leaving = bas[slot];
        let rho = x[slot] / d[slot];
        for (xi, &di) in x.iter_mut().zip(d.iter()) {
            *xi -= rho * di;
        }
        x[slot] = rho;
        binv.replace_column(slot, d);
        bas[slot] = entering;
    }
    z[..n].fill(0.0);
    run.outcome = LcpOutcome::PivotLimit;
    run.pivots = max_iter;
    run
}

/// `θ = min (xⱼ + tol)/dⱼ` over `dⱼ > piv_tol` and the first index attaining it (`None` when no
/// entry qualifies: a ray), and `max |dⱼ|`.
fn harris_theta(x: &[f64], d: &[f64], piv_tol: f64, zero_tol: f64) -> (Option<(f64, usize)>, f64) {
    let mut theta = f64::INFINITY;
    let mut arg = usize::MAX;
    let mut any = false;
    let mut dmax = 0.0f64;
    for (j, (&xj, &dj)) in x.iter().zip(d).enumerate() {
        dmax = dmax.max(dj.abs());
        if dj > piv_tol {
            any = true;
            let r = (xj + zero_tol) / dj;
            if r < theta {
                theta = r;
                arg = j;
            }
        }
    }
    (any.then_some((theta, arg)), dmax)
}

/// The columns of the basis matrix: `zⱼ → M[:, j]`, `wᵢ → −eᵢ`, `t → cover`.
struct Basis<'a> {
    m: &'a [f64],
    cover: &'a [f64],
    n: usize,
    /// `max |Mᵢⱼ|`.
    max_m: f64,
}

impl Basis<'_> {
    /// `r = c − B y` for the basic variables `bas`.
    fn residual(&self, bas: &[usize], y: &[f64], c: &[f64], r: &mut [f64]) {
        let n = self.n;
        r.copy_from_slice(c);
        for (&v, &yj) in bas.iter().zip(y) {
            if v < n {
                for (ri, &mi) in r.iter_mut().zip(&self.m[v * n..(v + 1) * n]) {
                    *ri -= mi * yj;
                }
            } else if v < 2 * n {
                r[v - n] += yj;
            } else {
                for (ri, &ci) in r.iter_mut().zip(self.cover) {
                    *ri -= ci * yj;
                }
            }
        }
    }

    /// Fills `b` (n×n) with the basis matrix.
    fn fill(&self, bas: &[usize], b: &mut [f64]) {
        let n = self.n;
        for (j, &v) in bas.iter().enumerate() {
            self.column(v, &mut b[j * n..(j + 1) * n]);
        }
    }

    /// Writes the column of variable `v` (length n) into `col`: column `v` of M for `z_v`, `−e_v`
    /// for `w_v`, the covering vector for the artificial.
    fn column(&self, v: usize, col: &mut [f64]) {
        let n = self.n;
        if v < n {
            col.copy_from_slice(&self.m[v * n..(v + 1) * n]);
        } else if v < 2 * n {
            col.fill(0.0);
            col[v - n] = -1.0;
        } else {
            col.copy_from_slice(self.cover);
        }
    }

    /// One step of iterative refinement of the basic values `x` (`B x = −q`) and of the
    /// direction `d` (`B d = a`) with the current inverse, so that the ratios `xⱼ/dⱼ` are as
    /// accurate as a fresh factorization's.
    #[allow(clippy::too_many_arguments)]
    fn refine(
        &self,
        binv: &BasisInverse,
        bas: &[usize],
        q: &[f64],
        a: &[f64],
        x: &mut [f64],
        d: &mut [f64],
        r: &mut [f64],
        e: &mut [f64],
    ) {
        for (ei, &qi) in e.iter_mut().zip(q) {
            *ei = -qi;
        }
        self.residual(bas, x, e, r);
        binv.solve(r, e);
        for (xi, &c) in x.iter_mut().zip(e.iter()) {
            *xi += c;
        }
        self.residual(bas, d, a, r);
        binv.solve(r, e);
        for (di, &c) in d.iter_mut().zip(e.iter()) {
            *di += c;
        }
    }

    /// `‖−q − B y‖∞` into `r` (as the residual) and returned; NaN counts as infinite.
    fn residual_norm(&self, bas: &[usize], q: &[f64], y: &[f64], r: &mut [f64], tmp: &mut [f64]) -> f64 {
        for (ti, &qi) in tmp.iter_mut().zip(q) {
            *ti = -qi;
        }
        self.residual(bas, y, tmp, r);
        r.iter().fold(0.0f64, |a, v| if v.abs() > a || v.is_nan() { v.abs() } else { a })
    }

    /// Makes the final basic values accurate (`B x = −q` to round-off): unless the residual
    /// `‖−q − B x‖∞` is already below `eps · max(‖q‖∞, max(1, max|M|) · ‖x‖∞)`, steps of iterative
    /// refinement with the updated inverse (O(n²) each, at most 3) while each halves it, which
    /// brings it to the round-off of its own evaluation; if it is still above
    /// `n · eps · max(‖q‖∞, max(1, max|M|) · ‖x‖∞)`, `x` from a fresh LU of the final basis with one
    /// refinement step (O(n³), kept only if its residual is the smaller).
    #[allow(clippy::too_many_arguments)]
    fn refine_final(
        &self,
        binv: &BasisInverse,
        lu: &mut PartialPivLu,
        q: &[f64],
        bas: &[usize],
        x: &mut [f64],
        r: &mut [f64],
        xs: &mut [f64],
        tmp: &mut [f64],
    ) {
        let n = self.n;
        let inf_norm = |v: &[f64]| v.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let scale = |x: &[f64]| inf_norm(q).max(self.max_m.max(1.0) * inf_norm(x));
        let mut res = self.residual_norm(bas, q, x, r, tmp);
        for _ in 0..3 {
            // At the round-off of the residual's own evaluation there is nothing to refine.
            if res <= EPS * scale(x) {
                return;
            }
            binv.solve(r, xs);
            for (si, &xi) in xs.iter_mut().zip(x.iter()) {
                *si += xi;
            }
            let refined = self.residual_norm(bas, q, xs, r, tmp);
            if !(refined < res) {
                break;
            }
            x.copy_from_slice(xs);
            let halved = refined < 0.5 * res;
            res = refined;
            if !halved {
                break;
            }
        }
        if res <= n as f64 * EPS * scale(x) {
            return;
        }
        self.fill(bas, lu.storage_mut(n));
        lu.factor();
        for (si, &qi) in xs.iter_mut().zip(q) {
            *si = -qi;
        }
        lu.solve_in_place(xs, tmp);
        // r = −q − B xs, then xs += B⁻¹ r.
        self.residual_norm(bas, q, xs, r, tmp);
        lu.solve_in_place(r, tmp);
        for (si, &e) in xs.iter_mut().zip(r.iter()) {
            *si += e;
        }
        let fresh = self.residual_norm(bas, q, xs, r, tmp);
        if fresh < res && xs.iter().all(|v| v.is_finite()) {
            x.copy_from_slice(xs);
        }
    }
}

/// Rebuilds `B` from the basic variables and recomputes `B⁻¹` from scratch.
fn refactor(binv: &mut BasisInverse, basis: &Basis<'_>, bas: &[usize]) {
    let mut b = binv.matrix_mut(basis.n);
    for (j, &v) in bas.iter().enumerate() {
        basis.column(v, b.column_mut(j).as_mut_slice());
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
