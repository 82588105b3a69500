//! [`UnrevisedLemkeSolver`]: Drake's `UnrevisedLemkeSolver<double>` (`docs/rigid.md` §9) —
//! Lemke's method on index sets with the all-ones covering vector, "artificial first" and
//! cycling-avoiding tie-breaking, a per-pivot residual check, and warm starting from the
//! previous call's final index sets.
//!
//! Representation. Drake recomputes the principal pivoting transform from the index sets at
//! every pivot by factoring `M̃_αβ` (`M̃ = [M | 1]`). Mathematically `dep = q′ + M′·indep` is the
//! basic solution of `[I | −M̃] (w; z̃) = q` for the basis `B` formed by the columns of the
//! dependent variables (`wₖ → eₖ`, `zⱼ → −M̃[:, j]`): `q′ = B⁻¹ q` and the driving column is
//! `M′ = −B⁻¹ a_driving`. This solver keeps `B⁻¹` explicitly and updates it by one rank-1 column
//! replacement per pivot ([`BasisInverse`], O(n²) instead of Drake's O(|α|³)), refactoring
//! every `max(2n, 50)` pivots. Drake's decisions depend on the last bits in degenerate problems
//! (its tolerance is `n·max|M|·2.2 eps`, absolute), so the pivot falls back to **Drake's own
//! arithmetic** — the partial-pivot LU of `M̃_αβ`, products in Eigen's order — whenever
//! * the inverse's `q′` fails Drake's residual check `‖M̃_αβ q′_β + q_α‖₂ ≤ zero_tol` after one
//!   step of iterative refinement (the inverse is then rebuilt),
//! * the ratio test has a second candidate within the inverse's round-off window of the
//!   minimum, or a column entry sits at the `−tol` threshold (near-ties: exact ties of
//!   duplicated contacts must stay exact ties, as in Drake),
//! * the reconstructed solution is rejected by `IsSolution` (the final z is recomputed as Drake
//!   computes it).
//!
//! Index sets, ratio test, tie-breaking and pivot counting are Drake's, so the pivot path is
//! Drake's wherever it is not round-off sensitive. (Siconos' massively degenerate
//! `lcp_tobenna`, on which Drake stops at its 2000-pivot cap, fails here too, but earlier: its
//! path is round-off sensitive.)
//!
//! Variables are coded `wₖ = 2k`, `zₖ = 2k + 1` (the artificial is `z_n = 2n + 1`), which is
//! exactly Drake's ordering (by index, `w` before `z` on equal index).

use nalgebra::DMatrixView;

use crate::linalg::BasisInverse;

use super::problem::{
    DEFAULT_RESIDUAL_TOLERANCE, EPS, LcpProblem, LcpResidual, copy_matrix, is_solution, is_solution_slice,
    mat_vec_plus, max_abs, verdict,
};
use super::{LcpOutcome, UnrevisedLemkeParameters};

const NONE: usize = usize::MAX;

/// Drake's `UnrevisedLemkeSolver<double>`.
///
/// Keeps the final index sets of a solve; the next solve of the same size starts by trying
/// them (warm start, §9.4 step 5). Results stay in the solver: [`UnrevisedLemkeSolver::z`],
/// [`UnrevisedLemkeSolver::w`], [`UnrevisedLemkeSolver::num_pivots`],
/// [`UnrevisedLemkeSolver::outcome`].
#[derive(Debug, Clone, Default)]
pub struct UnrevisedLemkeSolver {
    params: UnrevisedLemkeParameters,
    n: usize,
    /// Size of the problem whose index sets `dep`/`indep` hold (warm start), if any.
    prev_n: Option<usize>,
    dep: Vec<usize>,
    indep: Vec<usize>,
    /// Variable code → position in `indep` (`NONE` when dependent).
    pos: Vec<usize>,
    binv: BasisInverse,
    refactor_every: usize,
    /// Set when the inverse failed its check: the pivot uses Drake's block LU and the inverse
    /// is rebuilt at the next pivot.
    block_mode: bool,
    need_refactor: bool,
    block_count: usize,
    /// Drake's block computation: LU of M̃_αβ, α (row indices), β (z index, dep position).
    blu: crate::linalg::PartialPivLu,
    alpha: Vec<usize>,
    beta: Vec<(usize, usize)>,
    xb: Vec<f64>,
    tb: Vec<f64>,
    /// Contiguous M (column-major n×n) and q.
    m: Vec<f64>,
    q: Vec<f64>,
    qp: Vec<f64>,
    col: Vec<f64>,
    ratios: Vec<f64>,
    resid: Vec<f64>,
    cand: Vec<usize>,
    /// Cycling map (§9.3): keys are bitsets of the independent set, `words` u64 each.
    words: usize,
    key: Vec<u64>,
    keys: Vec<u64>,
    counts: Vec<usize>,
    z: Vec<f64>,
    w: Vec<f64>,
    pivots: usize,
    outcome: Option<LcpOutcome>,
    drake_verdict: bool,
    residual: LcpResidual,
    used_zero_tolerance: f64,
}

impl UnrevisedLemkeSolver {
    /// A solver with Drake's defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// A solver with the given (validated) parameters.
    pub fn with_parameters(params: UnrevisedLemkeParameters) -> Result<Self, super::LcpError> {
        params.validate()?;
        Ok(Self { params, ..Self::default() })
    }

    /// Current parameters.
    pub fn parameters(&self) -> &UnrevisedLemkeParameters {
        &self.params
    }

    /// Replaces the parameters (validated). Keeps the warm-start index sets.
    pub fn set_parameters(&mut self, params: UnrevisedLemkeParameters) -> Result<(), super::LcpError> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    /// `ComputeZeroTolerance(M) = n · max|Mᵢⱼ| · 2.2 eps` (§9.4 step 2).
    pub fn compute_zero_tolerance(m: DMatrixView<'_, f64>) -> f64 {
        super::problem::unrevised_zero_tolerance(m)
    }

    /// `IsSolution(M, q, z, tol)` (§9.6); `tol ≤ 0` means [`Self::compute_zero_tolerance`].
    pub fn is_solution(problem: &LcpProblem<'_>, z: &[f64], tol: f64) -> bool {
        is_solution(problem.m(), problem.q(), z, tol)
    }

    /// Forgets the warm-start index sets.
    pub fn clear_warm_start(&mut self) {
        self.prev_n = None;
    }

    /// Grows every workspace for problems of size `n`.
    pub fn reserve(&mut self, n: usize) {
        crate::linalg::grow(&mut self.m, n * n);
        let vectors = [
            &mut self.q,
            &mut self.qp,
            &mut self.col,
            &mut self.ratios,
            &mut self.resid,
            &mut self.z,
            &mut self.w,
            &mut self.xb,
            &mut self.tb,
        ];
        for v in vectors {
            crate::linalg::grow(v, n);
        }
        self.binv.reserve(n);
        self.blu.reserve(n);
        if self.alpha.capacity() < n {
            self.alpha.reserve(n);
            self.beta.reserve(n);
        }
        if self.dep.len() < n {
            self.dep.resize(n, 0);
        }
        if self.indep.len() < n + 1 {
            self.indep.resize(n + 1, 0);
        }
        if self.pos.len() < 2 * n + 2 {
            self.pos.resize(2 * n + 2, NONE);
        }
        if self.cand.capacity() < n {
            self.cand.reserve(n);
        }
        let words = (2 * n + 2).div_ceil(64);
        if self.key.len() < words {
            self.key.resize(words, 0);
        }
    }

    /// `z` of the last solve (length n; zeros on failure).
    pub fn z(&self) -> &[f64] {
        &self.z[..self.n]
    }

    /// `w = M z + q` of the last solve.
    pub fn w(&self) -> &[f64] {
        &self.w[..self.n]
    }

    /// Pivots of the last solve that used Drake's block-LU arithmetic (see the module docs).
    pub fn block_pivots(&self) -> usize {
        self.block_count
    }

    /// Pivots of the last solve (0 for the trivial solution, 1 for an accepted warm start).
    pub fn num_pivots(&self) -> usize {
        self.pivots
    }

    /// Outcome of the last solve, `None` before the first.
    pub fn outcome(&self) -> Option<LcpOutcome> {
        self.outcome
    }

    /// Drake's own verdict on the last solve (the artificial left and `IsSolution` held),
    /// whether or not z passed the residual test. `false` before the first solve.
    pub fn drake_verdict(&self) -> bool {
        self.drake_verdict
    }

    /// The residual test ([`LcpResidual`]) of the last solve's z.
    pub fn residual(&self) -> &LcpResidual {
        &self.residual
    }

    /// The zero tolerance of the last solve (the resolved automatic value
    /// `n · max|Mᵢⱼ| · 2.2 eps` unless one was set); 0 before the first solve.
    pub fn zero_tolerance_used(&self) -> f64 {
        self.used_zero_tolerance
    }

    /// Drake's `SolveLcpLemke(M, q, &z, &num_pivots, zero_tol)` (§9.4) with this solver's
    /// zero tolerance. Drake's verdict is that the result passed `IsSolution`; `Solved` also
    /// requires the residual test ([`LcpResidual`]) unless `drake_compatible_verdict`.
    pub fn solve(&mut self, problem: &LcpProblem<'_>) -> LcpOutcome {
        let n = problem.dim();
        self.reserve(n);
        self.n = n;
        copy_matrix(problem.m(), &mut self.m);
        for (d, s) in self.q[..n].iter_mut().zip(problem.q().iter()) {
            *d = *s;
        }
        self.block_count = 0;
        let max_m = max_abs(&self.m[..n * n]);
        self.used_zero_tolerance = if self.params.zero_tolerance > 0.0 {
            self.params.zero_tolerance
        } else {
            n as f64 * max_m * 2.2 * EPS
        };
        let (o, p) = self.run();
        if !o.is_solved() {
            self.z[..n].fill(0.0);
        }
        mat_vec_plus(&self.m[..n * n], n, &self.z[..n], &self.q[..n], &mut self.w[..n]);
        let tau = if self.params.residual_tolerance > 0.0 {
            self.params.residual_tolerance
        } else {
            DEFAULT_RESIDUAL_TOLERANCE
        };
        self.residual =
            LcpResidual::evaluate(&self.m[..n * n], &self.q[..n], &self.z[..n], &self.w[..n], tau);
        self.drake_verdict = o.is_solved();
        let o = verdict(o, &self.residual, self.params.drake_compatible_verdict);
        self.pivots = p;
        self.outcome = Some(o);
        o
    }

    fn run(&mut self) -> (LcpOutcome, usize) {
        let n = self.n;
        self.z[..n].fill(0.0);
        if n == 0 {
            return (LcpOutcome::Solved, 0);
        }
        let default_tol = n as f64 * super::problem::max_abs(&self.m[..n * n]) * 2.2 * EPS;
        let tol = if self.params.zero_tolerance > 0.0 { self.params.zero_tolerance } else { default_tol };
        self.refactor_every =
            if self.params.refactor_interval == 0 { (2 * n).max(50) } else { self.params.refactor_interval };
        let min_q = self.q[..n].iter().copied().fold(f64::INFINITY, |a, x| if x < a { x } else { a });
        if super::problem::above_neg_tol(min_q, tol) {
            return (LcpOutcome::Solved, 0);
        }
        self.words = (2 * n + 2).div_ceil(64);
        self.keys.clear();
        self.counts.clear();

        // Warm start from the previous call's index sets (§9.4 step 5).
        if self.prev_n == Some(n) && self.pos[2 * n + 1] != NONE {
            self.need_refactor = true;
            if self.reconstruct(tol, tol, 1).0.is_solved() {
                return (LcpOutcome::Solved, 1);
            }
            self.z[..n].fill(0.0);
        }

        // Initial state (§9.1) and the artificial's entry (§9.4 step 6).
        self.prev_n = Some(n);
        self.pos[..2 * n + 2].fill(NONE);
        self.key[..self.words].fill(0);
        for i in 0..n {
            self.dep[i] = 2 * i;
            self.indep[i] = 2 * i + 1;
            self.pos[2 * i + 1] = i;
            self.set_key_bit(2 * i + 1, true);
        }
        self.indep[n] = 2 * n + 1;
        self.pos[2 * n + 1] = n;
        self.set_key_bit(2 * n + 1, true);
        self.binv.set_identity(n);
        self.need_refactor = false;
        self.col[..n].copy_from_slice(&self.q[..n]);
        self.ratios[..n].copy_from_slice(&self.q[..n]);
        let b = match self.find_blocking_index(tol) {
            Ok(b) => b,
            Err(o) => return (o, 0),
        };
        // B = I: B⁻¹ (−1) = −1 is the artificial's column.
        self.col[..n].fill(-1.0);
        self.swap(b, n);
        let mut d = b;

        let max_pivots = 50 * n;
        let mut pivots = 0;
        loop {
            pivots += 1;
            if pivots >= max_pivots {
                break;
            }
            if !self.compute_qp(tol) {
                return (LcpOutcome::LinearSolveFailed, pivots);
            }
            self.driving_column(d);
            for i in 0..n {
                self.ratios[i] = -self.qp[i] / self.col[i];
            }
            if !self.block_mode && self.near_tie(tol) {
                // The ratio test is about to decide between values that differ by less than
                // the inverse's round-off: decide with Drake's own arithmetic instead.
                self.block_mode = true;
                if !self.block_qp(tol) {
                    return (LcpOutcome::LinearSolveFailed, pivots);
                }
                self.driving_column(d);
                for i in 0..n {
                    self.ratios[i] = -self.qp[i] / self.col[i];
                }
            }
            let b = match self.find_blocking_index(tol) {
                Ok(b) => b,
                Err(o) => return (o, pivots),
            };

            // The basis gains the driving variable's column a: B⁻¹a = −M′.
            for c in &mut self.col[..n] {
                *c = -*c;
            }
            let leaving = self.dep[b];
            self.swap(b, d);
            if leaving == 2 * n + 1 {
                return self.reconstruct(tol, default_tol, pivots);
            }
            d = self.pos[leaving ^ 1];
        }
        (LcpOutcome::PivotLimit, max_pivots)
    }

    /// `ConstructLemkeSolution` (§9.5) then `IsSolution(M, q, z, check_tol)`: first from the
    /// updated inverse (refined), and if that z is rejected, once more with Drake's own block
    /// LU of `M̃_αβ`, whose round-off is Drake's (the acceptance test's absolute tolerance can
    /// be below one ulp of the solution's terms, so the last bits decide).
    fn reconstruct(&mut self, tol: f64, check_tol: f64, pivots: usize) -> (LcpOutcome, usize) {
        let n = self.n;
        let ok = self.compute_qp(tol);
        if ok {
            if !self.block_mode {
                self.refine_qp();
            }
            self.extract_z();
            if is_solution_slice(&self.m[..n * n], &self.q[..n], &self.z[..n], check_tol, &mut self.w) {
                return (LcpOutcome::Solved, pivots);
            }
        }
        if self.block_mode || !self.block_qp(tol) {
            return (if ok { LcpOutcome::NotASolution } else { LcpOutcome::LinearSolveFailed }, pivots);
        }
        self.need_refactor = true;
        self.extract_z();
        if is_solution_slice(&self.m[..n * n], &self.q[..n], &self.z[..n], check_tol, &mut self.w) {
            (LcpOutcome::Solved, pivots)
        } else {
            (LcpOutcome::NotASolution, pivots)
        }
    }

    /// z from the dependent z-variables (index < n) and q′.
    fn extract_z(&mut self) {
        let n = self.n;
        self.z[..n].fill(0.0);
        for (p, &v) in self.dep[..n].iter().enumerate() {
            if v & 1 == 1 && v / 2 < n {
                self.z[v / 2] = self.qp[p];
            }
        }
    }

    fn set_key_bit(&mut self, v: usize, on: bool) {
        let (wd, bit) = (v / 64, 1u64 << (v % 64));
        if on {
            self.key[wd] |= bit;
        } else {
            self.key[wd] &= !bit;
        }
    }

    /// Swaps `dep[b]` and `indep[d]`; `self.col` must hold `B⁻¹ a` for the entering variable's
    /// column `a`.
    fn swap(&mut self, b: usize, d: usize) {
        let out = self.dep[b];
        let inn = self.indep[d];
        self.dep[b] = inn;
        self.indep[d] = out;
        self.pos[out] = d;
        self.pos[inn] = NONE;
        self.set_key_bit(out, true);
        self.set_key_bit(inn, false);
        let n = self.n;
        self.binv.replace_column(b, &self.col[..n]);
    }

    /// Recomputes `B⁻¹` from the dependent variables' columns.
    fn refactor(&mut self) -> bool {
        let n = self.n;
        let mut bm = self.binv.matrix_mut(n);
        for (p, &v) in self.dep[..n].iter().enumerate() {
            let mut c = bm.column_mut(p);
            let k = v / 2;
            if v & 1 == 0 {
                c.fill(0.0);
                c[k] = 1.0;
            } else if k < n {
                for (ci, &mi) in c.iter_mut().zip(&self.m[k * n..(k + 1) * n]) {
                    *ci = -mi;
                }
            } else {
                c.fill(-1.0);
            }
        }
        self.binv.factor()
    }

    /// `q′ = B⁻¹ q` with Drake's residual check `‖M̃_αβ q′_β + q_α‖₂ ≤ tol` (§9.2); on a failed
    /// check of an updated inverse, refactors once and checks again.
    fn compute_qp(&mut self, tol: f64) -> bool {
        self.block_mode = false;
        let mut inverse_ok = true;
        if self.need_refactor || self.binv.updates() >= self.refactor_every {
            self.need_refactor = false;
            inverse_ok = self.refactor();
        }
        if inverse_ok {
            if self.qp_with_check(tol) && self.qp_finite() {
                return true;
            }
            // A product with an explicit inverse is not backward stable: refine once (O(n²)).
            if self.refine_and_check(tol) && self.qp_finite() {
                return true;
            }
        }
        // Drake's own computation for this pivot: LU of M̃_αβ (§9.2). Its residual check then
        // decides exactly as Drake's does; the inverse is rebuilt at the next pivot.
        self.need_refactor = true;
        self.block_mode = true;
        self.block_qp(tol)
    }

    fn qp_finite(&self) -> bool {
        self.qp[..self.n].iter().all(|x| x.is_finite())
    }

    /// Drake's `LemkePivot` q′ (§9.2): `q′[β′] = −M̃_αβ⁻¹ q_α` (partial-pivot LU that never
    /// refuses a singular block), `q′[ᾱ′] = M̃_ᾱβ q′[β′] + q_ᾱ`, and the residual check
    /// `‖M̃_αβ q′[β′] + q_α‖₂ ≤ tol` (a NaN norm passes, as `norm > tol` is false in Drake).
    /// Leaves the LU of `M̃_αβ` for [`Self::block_driving_column`].
    fn block_qp(&mut self, tol: f64) -> bool {
        let n = self.n;
        self.block_count += 1;
        self.alpha.clear();
        self.beta.clear();
        for k in 0..n {
            if self.pos[2 * k] != NONE {
                self.alpha.push(k);
            }
        }
        for (p, &v) in self.dep[..n].iter().enumerate() {
            if v & 1 == 1 {
                self.beta.push((v / 2, p));
            }
        }
        self.beta.sort_unstable();
        let na = self.alpha.len();
        debug_assert_eq!(na, self.beta.len());
        let m = &self.m;
        let mt = |i: usize, j: usize| if j < n { m[i + j * n] } else { 1.0 };
        {
            let mut a = self.blu.matrix_mut(na);
            for (jj, &(j, _)) in self.beta.iter().enumerate() {
                for (ii, &i) in self.alpha.iter().enumerate() {
                    a[(ii, jj)] = mt(i, j);
                }
            }
        }
        self.blu.factor();
        let x = &mut self.xb[..na];
        for (xi, &i) in x.iter_mut().zip(&self.alpha) {
            *xi = -self.q[i];
        }
        self.blu.solve_in_place(x, &mut self.tb[..na]);
        // Eigen's order: the product M̃_αβ q′ column by column, then + q_α.
        let r = &mut self.resid[..na];
        r.fill(0.0);
        for (jj, &(j, _)) in self.beta.iter().enumerate() {
            for (ri, &i) in r.iter_mut().zip(&self.alpha) {
                *ri += mt(i, j) * x[jj];
            }
        }
        let mut sq = 0.0;
        for (ri, &i) in r.iter().zip(&self.alpha) {
            let v = ri + self.q[i];
            sq += v * v;
        }
        // Eigen's order: M̃_ᾱβ q′[β′] first, then + q_ᾱ.
        scatter(&self.beta, &self.dep[..n], &mt, x, &mut self.qp, |i, s| s + self.q[i]);
        // Drake fails only on `norm > tol`: a NaN norm passes.
        let norm = sq.sqrt();
        norm <= tol || norm.is_nan()
    }

    /// Drake's driving column (§9.2) with the LU left by [`Self::block_qp`].
    fn block_driving_column(&mut self, d: usize) {
        let n = self.n;
        let v = self.indep[d];
        let na = self.alpha.len();
        let m = &self.m;
        let mt = |i: usize, j: usize| if j < n { m[i + j * n] } else { 1.0 };
        let x = &mut self.xb[..na];
        let k = v / 2;
        let w_driving = v & 1 == 0;
        if w_driving {
            // γ = position of k within α.
            x.fill(0.0);
            if let Ok(g) = self.alpha.binary_search(&k) {
                x[g] = 1.0;
            }
        } else {
            for (xi, &i) in x.iter_mut().zip(&self.alpha) {
                *xi = -mt(i, k);
            }
        }
        self.blu.solve_in_place(x, &mut self.tb[..na]);
        scatter(
            &self.beta,
            &self.dep[..n],
            &mt,
            x,
            &mut self.col,
            |i, s| if w_driving { s } else { mt(i, k) + s },
        );
    }

    fn refine_and_check(&mut self, tol: f64) -> bool {
        self.refine_qp();
        self.residual_ok(tol)
    }

    fn qp_with_check(&mut self, tol: f64) -> bool {
        let n = self.n;
        self.binv.solve(&self.q[..n], &mut self.qp[..n]);
        self.residual_ok(tol)
    }

    fn residual_ok(&mut self, tol: f64) -> bool {
        let n = self.n;
        // Residual on the rows α (w-variables that are independent): r = M̃_αβ q′_β + q_α.
        let r = &mut self.resid[..n];
        r.copy_from_slice(&self.q[..n]);
        for (p, &v) in self.dep[..n].iter().enumerate() {
            if v & 1 == 0 {
                continue;
            }
            let k = v / 2;
            let x = self.qp[p];
            if k < n {
                let col = &self.m[k * n..(k + 1) * n];
                for (ri, &mi) in r.iter_mut().zip(col) {
                    *ri += mi * x;
                }
            } else {
                for ri in r.iter_mut() {
                    *ri += x;
                }
            }
        }
        let mut sq = 0.0;
        for (i, &ri) in r.iter().enumerate() {
            if self.pos[2 * i] != NONE {
                sq += ri * ri;
            }
        }
        // Drake fails only on `norm > tol`, so a NaN norm passes here as it does in Drake; a NaN
        // q′ is then caught by the ratio test.
        let norm = sq.sqrt();
        norm <= tol || norm.is_nan()
    }

    /// One step of iterative refinement of `q′` against the exact basis columns:
    /// `q′ += B⁻¹ (q − B q′)`. Used where the result is returned (reconstruction, warm start), so
    /// the returned z is as accurate as Drake's freshly factored solve.
    fn refine_qp(&mut self) {
        let n = self.n;
        let r = &mut self.resid[..n];
        r.copy_from_slice(&self.q[..n]);
        for (p, &v) in self.dep[..n].iter().enumerate() {
            let x = self.qp[p];
            let k = v / 2;
            if v & 1 == 0 {
                r[k] -= x;
            } else if k < n {
                for (ri, &mi) in r.iter_mut().zip(&self.m[k * n..(k + 1) * n]) {
                    *ri += mi * x;
                }
            } else {
                for ri in r.iter_mut() {
                    *ri += x;
                }
            }
        }
        self.binv.solve(&self.resid[..n], &mut self.ratios[..n]);
        for (q, &d) in self.qp[..n].iter_mut().zip(&self.ratios[..n]) {
            *q += d;
        }
    }

    /// `self.col = M′` for the driving variable `indep[d]` (§9.2).
    fn driving_column(&mut self, d: usize) {
        if self.block_mode {
            self.block_driving_column(d);
            return;
        }
        let n = self.n;
        let v = self.indep[d];
        let k = v / 2;
        if v & 1 == 0 {
            for (c, &b) in self.col[..n].iter_mut().zip(self.binv.column(k)) {
                *c = -b;
            }
        } else if k < n {
            self.binv.solve(&self.m[k * n..(k + 1) * n], &mut self.col[..n]);
        } else {
            // Column of ones: the row sums of B⁻¹.
            let c = &mut self.col[..n];
            c.fill(0.0);
            for j in 0..n {
                for (ci, &b) in c.iter_mut().zip(self.binv.column(j)) {
                    *ci += b;
                }
            }
        }
    }

    /// Whether a second blocking candidate lies within the round-off window of the smallest
    /// ratio, or an entry of the column sits at the `−tol` threshold: then the choice could
    /// depend on the last bits, and the pivot is recomputed with Drake's block LU.
    fn near_tie(&self, tol: f64) -> bool {
        let n = self.n;
        let (col, ratios) = (&self.col[..n], &self.ratios[..n]);
        let col_scale = col.iter().fold(0.0f64, |a, c| a.max(c.abs()));
        let col_window = 1e-12 * col_scale;
        let mut best = NONE;
        let mut min_ratio = f64::INFINITY;
        for i in 0..n {
            if (col[i] + tol).abs() <= col_window {
                return true;
            }
            if col[i] < -tol && (best == NONE || ratios[i] < min_ratio) {
                best = i;
                min_ratio = ratios[i];
            }
        }
        if best == NONE {
            return false;
        }
        // Drake ties i with the minimum iff ratioᵢ < min + tol in its arithmetic; ours may be
        // off by the inverse's round-off, taken as 1e-9 relative plus 10·tol absolute.
        // The artificial well inside the tie set wins whatever else ties (Drake picks it first).
        let art = 2 * n + 1;
        if (0..n).any(|i| self.dep[i] == art && col[i] < -tol && ratios[i] <= min_ratio + 0.5 * tol) {
            return false;
        }
        let window = 11.0 * tol + 1e-9 * min_ratio.abs();
        (0..n).any(|i| i != best && col[i] < -tol && ratios[i] < min_ratio + window)
    }

    /// `FindBlockingIndex(tol, col, ratios)` (§9.3) on `self.col`, `self.ratios`.
    fn find_blocking_index(&mut self, tol: f64) -> Result<usize, LcpOutcome> {
        let n = self.n;
        let (col, ratios) = (&self.col[..n], &self.ratios[..n]);
        let mut best = NONE;
        let mut min_ratio = f64::INFINITY;
        for i in 0..n {
            if col[i] < -tol && (best == NONE || ratios[i] < min_ratio) {
                best = i;
                min_ratio = ratios[i];
            }
        }
        if best == NONE {
            return Err(LcpOutcome::RayTermination);
        }
        self.cand.clear();
        for i in 0..n {
            if col[i] < -tol && ratios[i] < min_ratio + tol {
                if self.dep[i] == 2 * n + 1 {
                    return Ok(i);
                }
                self.cand.push(i);
            }
        }
        if self.cand.len() > 1 {
            let w = self.words;
            let key = &self.key[..w];
            let slot = self.keys.chunks_exact(w).position(|k| k == key);
            let c = slot.map_or(0, |s| self.counts[s]);
            if c >= self.cand.len() {
                return Err(LcpOutcome::CyclingDetected);
            }
            match slot {
                Some(s) => self.counts[s] = c + 1,
                None => {
                    self.keys.extend_from_slice(key);
                    self.counts.push(c + 1);
                }
            }
            return Ok(self.cand[c]);
        }
        Ok(best)
    }
}

/// Writes a block solve's `x` (one entry per β column, §9.2) into the dependent variables:
/// `out[p] = x[jj]` for each `(_, p) = beta[jj]`, and for each dependent `w` (an even code
/// `dep[p] = 2i`) `out[p] = then(i, s)` with `s = Σ_jj M̃(i, β_jj)·x[jj]` summed in Eigen's order.
fn scatter(
    beta: &[(usize, usize)],
    dep: &[usize],
    mt: &impl Fn(usize, usize) -> f64,
    x: &[f64],
    out: &mut [f64],
    then: impl Fn(usize, f64) -> f64,
) {
    for (jj, &(_, p)) in beta.iter().enumerate() {
        out[p] = x[jj];
    }
    for (p, &v) in dep.iter().enumerate() {
        if v & 1 == 0 {
            let i = v / 2;
            let mut s = 0.0;
            for (jj, &(j, _)) in beta.iter().enumerate() {
                s += mt(i, j) * x[jj];
            }
            out[p] = then(i, s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    const W: fn(usize) -> usize = |k| 2 * k;
    const Z: fn(usize) -> usize = |k| 2 * k + 1;

    /// Cottle et al. example 4.4.7 (docs/docs/rigid_cases.md §7.1 fixture), lists set by hand.
    fn fixture(dep: [usize; 3], indep: [usize; 4]) -> UnrevisedLemkeSolver {
        let m = DMatrix::from_row_slice(3, 3, &[0.0, -1.0, 2.0, 2.0, 0.0, -2.0, -1.0, 1.0, 0.0]);
        let q = DVector::from_vec(vec![-3.0, 6.0, -1.0]);
        let mut s = UnrevisedLemkeSolver::new();
        s.reserve(3);
        s.n = 3;
        s.words = 1;
        s.refactor_every = 50;
        copy_matrix(m.as_view(), &mut s.m);
        s.q[..3].copy_from_slice(q.as_slice());
        s.dep[..3].copy_from_slice(&dep);
        s.indep[..4].copy_from_slice(&indep);
        s.pos[..8].fill(NONE);
        for (p, &v) in indep.iter().enumerate() {
            s.pos[v] = p;
            s.set_key_bit(v, true);
        }
        assert!(s.refactor());
        s
    }

    fn tol() -> f64 {
        3.0 * 2.0 * 2.2 * EPS
    }

    #[test]
    fn lemke_pivot_case_1() {
        let mut s = fixture([Z(3), W(1), W(2)], [Z(0), Z(1), Z(2), W(0)]);
        assert!(s.compute_qp(tol()));
        assert_eq!(&s.qp[..3], &[3.0, 9.0, 2.0]);
        s.driving_column(0);
        assert_eq!(&s.col[..3], &[0.0, 2.0, -1.0]);
    }

    #[test]
    fn lemke_pivot_case_2() {
        let mut s = fixture([Z(3), W(0), Z(2)], [W(1), W(2), Z(2), Z(0)]);
        // (The fixture's indep list repeats z2 as in Drake's test; only dep matters here.)
        assert!(s.compute_qp(tol()));
        for (a, b) in s.qp[..3].iter().zip([1.0, 5.0, 3.5]) {
            assert!((a - b).abs() < 1e-14, "q′ {:?}", &s.qp[..3]);
        }
        s.driving_column(0);
        for (a, b) in s.col[..3].iter().zip([0.0, -1.0, -0.5]) {
            assert!((a - b).abs() < 1e-14, "M′ {:?}", &s.col[..3]);
        }
    }

    #[test]
    fn lemke_pivot_case_3_and_construct_solution() {
        let mut s = fixture([Z(1), W(0), Z(2)], [W(1), W(2), Z(3), Z(0)]);
        assert!(s.compute_qp(tol()));
        for (a, b) in s.qp[..3].iter().zip([1.0, 2.0, 3.0]) {
            assert!((a - b).abs() < 1e-14);
        }
        s.extract_z();
        for (a, b) in s.z[..3].iter().zip([0.0, 1.0, 3.0]) {
            assert!((a - b).abs() < 1e-14, "z {:?}", &s.z[..3]);
        }
    }

    #[test]
    fn find_blocking_index_cases() {
        let mut s = fixture([W(0), W(1), W(2)], [Z(0), Z(1), Z(2), Z(3)]);
        s.col[..3].copy_from_slice(&[-3.0, 6.0, 1.0]);
        s.ratios[..3].copy_from_slice(&[-3.0, 6.0, 1.0]);
        assert_eq!(s.find_blocking_index(tol()), Ok(0));
        s.col[..3].copy_from_slice(&[0.0, 2.0, -1.0]);
        s.ratios[..3].copy_from_slice(&[f64::INFINITY, 4.5, -2.0]);
        assert_eq!(s.find_blocking_index(tol()), Ok(2));
        s.col[..3].copy_from_slice(&[0.0, 2.0, 1.0]);
        assert_eq!(s.find_blocking_index(tol()), Err(LcpOutcome::RayTermination));
    }

    #[test]
    fn find_blocking_index_cycling() {
        let mut s = fixture([W(0), W(1), W(2)], [Z(0), Z(1), Z(2), Z(3)]);
        for expected in [Ok(0), Ok(1), Err(LcpOutcome::CyclingDetected)] {
            s.col[..3].copy_from_slice(&[-3.0, -3.0, 1.0]);
            s.ratios[..3].copy_from_slice(&[-3.0, -3.0, 1.0]);
            assert_eq!(s.find_blocking_index(tol()), expected);
        }
    }

    #[test]
    fn complement_lookup() {
        // FindComplementIndex: on the initial lists the complement of w1 (z1) is at indep 1.
        let s = fixture([W(0), W(1), W(2)], [Z(0), Z(1), Z(2), Z(3)]);
        assert_eq!(s.pos[W(1) ^ 1], 1);
    }
}
