//! [`ConstraintSolver`]: Drake's `ConstraintSolver<double>` (`docs/rigid.md` §3–§7).

use nalgebra::{DMatrixView, DVectorView};

use crate::lcp::{
    LcpProblem, MobyLcpParameters, MobyLcpSolver, RegularizationSchedule, UnrevisedLemkeSolver,
};
use crate::linalg::{Cod, grow};

use super::engine::{BlockOperator, Engine, Ops, PBlock, for_each_e};
use super::problem::{ConstraintAccelProblemData, ConstraintVelProblemData, Dims};
use super::{ConstraintSolverParameters, RigidError, RigidOutcome};

/// Drake's `ConstraintSolver<double>`: rigid contact, friction, limits and bilateral
/// constraints as LCPs (or a linear system) built from [`ConstraintAccelProblemData`] /
/// [`ConstraintVelProblemData`].
///
/// Results stay in the solver: the packed constraint forces [`ConstraintSolver::cf`]
/// (`[fN | fF | fL | fG]`, §2.3), the LCP it solved ([`ConstraintSolver::lcp_matrix`],
/// [`ConstraintSolver::lcp_vector`], [`ConstraintSolver::lcp_z`]), pivots and flags. All
/// storage only grows; repeated solves of one size allocate nothing (with dense or
/// non-allocating callback operators).
#[derive(Debug, Clone, Default)]
pub struct ConstraintSolver {
    params: ConstraintSolverParameters,
    eng: Engine,
    lin: Cod,
    lcp: MobyLcpSolver,
    unrevised: UnrevisedLemkeSolver,
    cf: Vec<f64>,
    cf_len: usize,
    z: Vec<f64>,
    w: Vec<f64>,
    pivots: usize,
    regularized: bool,
    outcome: Option<RigidOutcome>,
    /// Discretized problem (§7): dims at construction, whether an LCP exists, the base blocks
    /// (without γ) and `h`.
    disc_dims: Option<Dims>,
    mm_base: Vec<f64>,
    scratch: Vec<f64>,
    out_nv: Vec<f64>,
}

impl ConstraintSolver {
    /// A solver with the default (corrected) behaviour.
    pub fn new() -> Self {
        Self::default()
    }

    /// A solver with the given parameters.
    pub fn with_parameters(params: ConstraintSolverParameters) -> Self {
        Self { params, ..Self::default() }
    }

    /// An upper bound, in doubles, of the storage a solve or compute call on a problem of sizes
    /// `d` with an LCP (or linear system) of size `n_lcp` grows the solver to: the inertia
    /// factorization (nv²), the Delassus matrix (nb²), the `M⁻¹Jᵀ` blocks (nv·(nb + nc + nr + nu)),
    /// at most 12 n×n matrices (the LCP matrix and its copies, the LCP solvers' basis factors)
    /// and O(n + nv + nb + nc + nr + nu) vectors. `None` when it overflows. A layer that takes
    /// sizes from outside (the C API) checks that this much can be allocated before solving, since
    /// the solver's own growth cannot fail gracefully.
    pub fn workspace_bound(d: &Dims, n_lcp: usize) -> Option<usize> {
        let cons = d.nc.checked_add(d.nr)?.checked_add(d.nu)?.checked_add(d.nb)?;
        let square = |x: usize| x.checked_mul(x);
        let vectors = n_lcp.checked_add(d.nv)?.checked_add(cons)?.checked_mul(64)?;
        square(d.nv)?
            .checked_add(square(d.nb)?)?
            .checked_add(d.nv.checked_mul(cons)?)?
            .checked_add(square(n_lcp)?.checked_mul(12)?)?
            .checked_add(vectors)
    }

    /// Current parameters.
    pub fn parameters(&self) -> &ConstraintSolverParameters {
        &self.params
    }

    /// Replaces the parameters.
    pub fn set_parameters(&mut self, params: ConstraintSolverParameters) {
        self.params = params;
    }

    /// Packed constraint forces of the last solve (§2.3): `[fN (nc) | fF (nr) | fL (nu) |
    /// fG (nb)]`. Acceleration level: forces (N); velocity level: impulses (N·s);
    /// discretized: forces. Empty when Drake returns an empty vector (no constraints at all).
    pub fn cf(&self) -> &[f64] {
        &self.cf[..self.cf_len]
    }

    /// Outcome of the last solve, `None` before the first.
    pub fn outcome(&self) -> Option<RigidOutcome> {
        self.outcome
    }

    /// Size of the last LCP (0 when a fast exit or the linear path was taken).
    pub fn lcp_size(&self) -> usize {
        self.eng.n_lcp
    }

    /// The last LCP matrix (column-major n×n; for the discretized problem, after
    /// [`ConstraintSolver::update_discretized_time_lcp`]).
    pub fn lcp_matrix(&self) -> DMatrixView<'_, f64> {
        let n = self.eng.n_lcp;
        DMatrixView::from_slice(&self.eng.mm[..n * n], n, n)
    }

    /// The last LCP vector `qq` (length n).
    pub fn lcp_vector(&self) -> &[f64] {
        &self.eng.qq[..self.eng.n_lcp]
    }

    /// The LCP solution `z` of the last solve (length n; the last attempt's on failure).
    pub fn lcp_z(&self) -> &[f64] {
        &self.z[..self.eng.n_lcp]
    }

    /// `w = MM z + qq` of the last solve.
    pub fn lcp_w(&self) -> &[f64] {
        &self.w[..self.eng.n_lcp]
    }

    /// Lemke pivots of the last LCP solve (total over regularization attempts).
    pub fn num_pivots(&self) -> usize {
        self.pivots
    }

    /// Whether the last impact solve needed the progressively regularized LCP (§6.4); its
    /// result is then a solution of a regularized LCP and is not re-verified (quirk Q8).
    pub fn regularization_used(&self) -> bool {
        self.regularized
    }

    fn block_operator(&self) -> BlockOperator {
        if self.params.drake_inverse_inertia_blocks {
            BlockOperator::InverseInertia
        } else {
            BlockOperator::Constrained
        }
    }

    /// Starts a solve of data of sizes `d`: resets the regularization flag, the pivot count and
    /// the LCP size of the last solve. `true` when there is nothing to solve (no contacts, limits
    /// or bilateral rows: Drake's fast exit, §5.2 step 3, §6), with `cf` then empty.
    fn start(&mut self, d: &Dims) -> bool {
        self.regularized = false;
        self.pivots = 0;
        self.eng.n_lcp = 0;
        let nothing = d.nc == 0 && d.nu == 0 && d.nb == 0;
        if nothing {
            self.set_cf_len(0);
        }
        nothing
    }

    fn set_cf_len(&mut self, len: usize) {
        grow(&mut self.cf, len);
        self.cf_len = len;
        self.cf[..len].fill(0.0);
    }

    fn finish(&mut self, o: RigidOutcome) -> Result<RigidOutcome, RigidError> {
        self.outcome = Some(o);
        Ok(o)
    }

    // ------------------------------------------------------------------------------------
    // Acceleration level (§5).

    /// Drake's `SolveConstraintProblem` (§5): contact, friction, limit and bilateral forces at
    /// the acceleration level. On [`RigidOutcome::Solved`], [`ConstraintSolver::cf`] holds
    /// `[fN | fF | fL | fG]` (N); on [`RigidOutcome::LcpUnsolvable`] it holds zeros and the
    /// LCP, its rejected `z` and `w` stay readable.
    pub fn solve_constraint_problem(
        &mut self,
        data: &ConstraintAccelProblemData<'_>,
    ) -> Result<RigidOutcome, RigidError> {
        let d = data.validate()?;
        // Fast exit 1 (§5.2 step 3).
        if self.start(&d) {
            return self.finish(RigidOutcome::Solved);
        }
        let ops = Ops::accel(data, d);
        let n_lcp = if data.use_complementarity_problem_solver { d.nc + 2 * d.nr + d.nns + d.nu } else { 0 };
        self.eng.reserve(&d, n_lcp);
        grow(&mut self.scratch, d.nv.max(d.nc).max(d.nu));
        self.eng.prepare_inertia(&ops)?;

        // Fast exit 2: tau alone violates nothing (§5.2 step 4; exact comparisons).
        if d.nb == 0 && self.no_violation(&ops, data.tau, data.k_n, data.k_l) {
            let len = if self.params.drake_empty_fast_exit { 0 } else { d.nc + d.nr + d.nu };
            self.set_cf_len(len);
            return self.finish(RigidOutcome::Solved);
        }

        self.eng.build_mlcp(&ops);
        let tau = copy_into(&mut self.out_nv, data.tau);
        let kg = copy_tail(&mut self.scratch, data.k_g);
        self.eng.free_motion(&ops, &self.out_nv[..tau], &self.scratch[..kg]);
        self.set_cf_len(d.cf_len());
        self.eng.build_all_p(&ops, self.block_operator());

        if data.use_complementarity_problem_solver {
            self.assemble_accel_lcp(&ops, data);
            let accepted = self.solve_lcp_checked();
            if !accepted {
                return self.finish(RigidOutcome::LcpUnsolvable);
            }
            let (nc, nr, nns, nu) = (d.nc, d.nr, d.nns, d.nu);
            for i in 0..nc {
                self.cf[i] = self.z[i];
            }
            for i in 0..nr {
                self.cf[nc + i] = self.z[nc + i] - self.z[nc + nr + i];
            }
            for i in 0..nu {
                self.cf[nc + nr + i] = self.z[nc + 2 * nr + nns + i];
            }
        } else {
            self.solve_accel_linear_system(&ops, data);
        }
        if d.nb > 0 {
            self.recover_bilateral(&ops, 1.0);
        }
        self.finish(RigidOutcome::Solved)
    }

    /// `(nc = 0 or min(N M⁻¹p + kN) ≥ 0) and (nu = 0 or min(L M⁻¹p + kL) ≥ 0)`.
    fn no_violation(
        &mut self,
        ops: &Ops,
        p: DVectorView<f64>,
        k_n: DVectorView<f64>,
        k_l: DVectorView<f64>,
    ) -> bool {
        let d = ops.d;
        let nv = d.nv;
        let len = copy_into(&mut self.out_nv, p);
        let mut a0 = std::mem::take(&mut self.eng.t1);
        self.eng.minv(ops, &self.out_nv[..len], &mut a0[..nv]);
        let mut ok = true;
        let row = &mut self.scratch;
        if d.nc > 0 {
            ops.n.apply(&a0[..nv], &mut row[..d.nc]);
            ok &= (0..d.nc).all(|i| row[i] + k_n[i] >= 0.0);
        }
        if ok && d.nu > 0 {
            ops.l.apply(&a0[..nv], &mut row[..d.nu]);
            ok &= (0..d.nu).all(|i| row[i] + k_l[i] >= 0.0);
        }
        self.eng.t1 = a0;
        ok
    }

    /// The acceleration-level LCP matrix and vector (§5.3).
    fn assemble_accel_lcp(&mut self, ops: &Ops, data: &ConstraintAccelProblemData) {
        let d = ops.d;
        let (nv, nc, nr, nns, nu) = (d.nv, d.nc, d.nr, d.nns, d.nu);
        let n = nc + 2 * nr + nns + nu;
        let (o_p, o_m, o_lam, o_l) = (nc, nc + nr, nc + 2 * nr, nc + 2 * nr + nns);
        let e = &mut self.eng;
        e.n_lcp = n;
        e.mm[..n * n].fill(0.0);
        // Column block fN (A = (N − μQ)ᵀ).
        e.put_jp(nv, ops.n, nc, PBlock::N, nc, 0, 0, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::N, nc, o_p, 0, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::N, nc, o_m, 0, -1.0);
        // Column blocks fD⁺, fD⁻.
        e.put_jp(nv, ops.n, nc, PBlock::F, nr, 0, o_p, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::F, nr, o_p, o_p, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::F, nr, o_m, o_p, -1.0);
        e.put_jp(nv, ops.n, nc, PBlock::F, nr, 0, o_m, -1.0);
        e.put_jp(nv, ops.f, nr, PBlock::F, nr, o_p, o_m, -1.0);
        e.put_jp(nv, ops.f, nr, PBlock::F, nr, o_m, o_m, 1.0);
        // Column block fL.
        e.put_jp(nv, ops.n, nc, PBlock::L, nu, 0, o_l, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::L, nu, o_p, o_l, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::L, nu, o_m, o_l, -1.0);
        e.put_jp(nv, ops.l, nu, PBlock::L, nu, o_l, o_l, 1.0);
        // Row block fL.
        if self.params.drake_limit_row_transpose {
            // Q2: rows oL.. of columns 0..oL = transpose of rows 0..oL of columns oL...
            e.put_transpose(0, o_l, o_l, nu, o_l, 0, 1.0);
        } else {
            e.put_jp(nv, ops.l, nu, PBlock::N, nc, o_l, 0, 1.0);
            e.put_jp(nv, ops.l, nu, PBlock::F, nr, o_l, o_p, 1.0);
            e.put_jp(nv, ops.l, nu, PBlock::F, nr, o_l, o_m, -1.0);
        }
        // E (fD± rows, λ columns), −Eᵀ (λ rows, fD± columns), U (λ rows, fN columns).
        for_each_e(data.r, |row, c| {
            e.mm[(o_p + row) + (o_lam + c) * n] = 1.0;
            e.mm[(o_m + row) + (o_lam + c) * n] = 1.0;
            e.mm[(o_lam + c) + (o_p + row) * n] = -1.0;
            e.mm[(o_lam + c) + (o_m + row) * n] = -1.0;
        });
        for (i, &c) in data.non_sliding_contacts.iter().enumerate() {
            e.mm[(o_lam + i) + c * n] = data.mu_non_sliding[i];
        }
        // qq = [N x* + kN; F x* + kF; −(F x* + kF); 0; L x* + kL].
        e.qq[..n].fill(0.0);
        e.put_jx(nv, ops.n, &data.k_n, nc, 0, 1.0);
        e.put_jx(nv, ops.f, &data.k_f, nr, o_p, 1.0);
        e.put_jx(nv, ops.f, &data.k_f, nr, o_m, -1.0);
        e.put_jx(nv, ops.l, &data.k_l, nu, o_l, 1.0);
    }

    /// Moby Lemke with `ComputeZeroTolerance(MM)`, then Drake's acceptance test (§5.3 steps
    /// 1–3) on Drake's verdict (the LCP solver's residual test is not this solver's criterion).
    /// Leaves z, w and the pivots in the solver. A non-finite LCP (from non-finite problem data),
    /// or one so large that its zero tolerance overflows, is not solved: z = 0.
    fn solve_lcp_checked(&mut self) -> bool {
        let n = self.eng.n_lcp;
        let mm = DMatrixView::from_slice(&self.eng.mm[..n * n], n, n);
        let qq = DVectorView::from_slice(&self.eng.qq[..n], n);
        let tol = crate::lcp::moby_zero_tolerance(mm);
        let (true, Ok(problem)) = (tol.is_finite(), LcpProblem::new(mm, qq)) else {
            self.zero_lcp_result();
            return false;
        };
        let params = MobyLcpParameters { zero_tolerance: tol, ..MobyLcpParameters::default() };
        self.lcp.set_parameters(params).expect("finite tolerance");
        self.lcp.solve_lemke(&problem);
        self.copy_lcp_result();
        let np = self.pivots.max(1);
        self.lcp.drake_verdict() && accept_lcp(&self.z[..n], &self.w[..n], n as f64 * np as f64 * tol)
    }

    /// z = 0, w = qq, no pivots: the result of an LCP that was not attempted.
    fn zero_lcp_result(&mut self) {
        let n = self.eng.n_lcp;
        grow(&mut self.z, n);
        grow(&mut self.w, n);
        self.z[..n].fill(0.0);
        self.w[..n].copy_from_slice(&self.eng.qq[..n]);
        self.pivots = 0;
    }

    fn copy_lcp_result(&mut self) {
        let n = self.eng.n_lcp;
        grow(&mut self.z, n);
        grow(&mut self.w, n);
        self.z[..n].copy_from_slice(self.lcp.z());
        self.w[..n].copy_from_slice(self.lcp.w());
        self.pivots = self.lcp.num_pivots();
    }

    /// §5.4: every constraint active, minimum-norm least-squares solve.
    fn solve_accel_linear_system(&mut self, ops: &Ops, data: &ConstraintAccelProblemData) {
        let d = ops.d;
        let (nv, nc, nr, nu) = (d.nv, d.nc, d.nr, d.nu);
        let m = nc + nr + nu;
        // Assemble in the engine's LCP storage (n_lcp = m), then copy into the COD.
        let e = &mut self.eng;
        e.reserve(&d, m);
        e.n_lcp = m;
        e.put_jp(nv, ops.n, nc, PBlock::N, nc, 0, 0, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::N, nc, nc, 0, 1.0);
        e.put_jp(nv, ops.l, nu, PBlock::N, nc, nc + nr, 0, 1.0);
        e.put_jp(nv, ops.n, nc, PBlock::F, nr, 0, nc, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::F, nr, nc, nc, 1.0);
        e.put_jp(nv, ops.n, nc, PBlock::L, nu, 0, nc + nr, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::L, nu, nc, nc + nr, 1.0);
        e.put_jp(nv, ops.l, nu, PBlock::L, nu, nc + nr, nc + nr, 1.0);
        // (fL, fF) = (F W Lᵀ)ᵀ.
        e.put_transpose(nc, nc + nr, nr, nu, nc + nr, nc, 1.0);
        e.put_jx(nv, ops.n, &data.k_n, nc, 0, -1.0);
        e.put_jx(nv, ops.f, &data.k_f, nr, nc, -1.0);
        e.put_jx(nv, ops.l, &data.k_l, nu, nc + nr, -1.0);
        self.lin.matrix_mut(m, m).copy_from(&DMatrixView::from_slice(&e.mm[..m * m], m, m));
        self.lin.factor();
        self.lin.solve(&e.qq[..m], &mut self.cf[..m]);
        // The linear path leaves no LCP behind.
        e.n_lcp = 0;
    }

    /// §3.4: `fG = −(A_solve(a + [−s·g; 0]))_bottom / s` with `g` the generalized force of
    /// `cf[0..nc+nr+nu)`.
    fn recover_bilateral(&mut self, ops: &Ops, s: f64) {
        let d = ops.d;
        let (nv, nb) = (d.nv, d.nb);
        let off = d.nc + d.nr + d.nu;
        let mut g = std::mem::take(&mut self.out_nv);
        grow(&mut g, nv);
        self.generalized_force_into(ops, false, &mut g[..nv]);
        let e = &mut self.eng;
        let mut y = std::mem::take(&mut e.t3);
        let mut zb = std::mem::take(&mut e.unit);
        let mut top = std::mem::take(&mut e.t2);
        for i in 0..nv {
            y[i] = e.a[i] - s * g[i];
        }
        zb[..nb].copy_from_slice(&e.a[nv..nv + nb]);
        let mut bot = std::mem::take(&mut e.row);
        e.a_solve(ops, &y[..nv], &zb[..nb], &mut top[..nv], &mut bot[..nb]);
        for (c, &b) in self.cf[off..off + nb].iter_mut().zip(&bot[..nb]) {
            *c = -b / s;
        }
        e.t3 = y;
        e.unit = zb;
        e.t2 = top;
        e.row = bot;
        self.out_nv = g;
    }

    /// `out = ntᵀ fN + Fᵀ fF + Lᵀ fL (+ Gᵀ fG if `with_g`)` from `self.cf`.
    fn generalized_force_into(&mut self, ops: &Ops, with_g: bool, out: &mut [f64]) {
        let d = ops.d;
        let nv = d.nv;
        grow(&mut self.scratch, nv);
        out.fill(0.0);
        let mut off = 0;
        for (op, len) in
            [(ops.nt, d.nc), (ops.ft, d.nr), (ops.lt, d.nu), (ops.gt, if with_g { d.nb } else { 0 })]
        {
            if len > 0 {
                op.apply(&self.cf[off..off + len], &mut self.scratch[..nv]);
                for (o, &s) in out.iter_mut().zip(&self.scratch[..nv]) {
                    *o += s;
                }
            }
            off += len;
        }
    }

    // ------------------------------------------------------------------------------------
    // Velocity level (§6) and the discretized problem (§7).

    /// Builds the impact LCP of §6.3 with γ added once (`with_gamma`) or without γ.
    fn assemble_vel_lcp(&mut self, ops: &Ops, data: &ConstraintVelProblemData, with_gamma: bool) {
        let d = ops.d;
        let (nv, nc, nr, nu) = (d.nv, d.nc, d.nr, d.nu);
        let n = 2 * nc + 2 * nr + nu;
        let (o_p, o_m, o_lam, o_l) = (nc, nc + nr, nc + 2 * nr, 2 * nc + 2 * nr);
        let e = &mut self.eng;
        e.n_lcp = n;
        e.mm[..n * n].fill(0.0);
        // Row block fN.
        e.put_jp(nv, ops.n, nc, PBlock::N, nc, 0, 0, 1.0);
        e.put_jp(nv, ops.n, nc, PBlock::F, nr, 0, o_p, 1.0);
        e.put_jp(nv, ops.n, nc, PBlock::F, nr, 0, o_m, -1.0);
        e.put_jp(nv, ops.n, nc, PBlock::L, nu, 0, o_l, 1.0);
        // Row blocks fD±.
        e.put_transpose(0, o_p, nc, nr, o_p, 0, 1.0);
        e.put_transpose(0, o_p, nc, nr, o_m, 0, -1.0);
        e.put_jp(nv, ops.f, nr, PBlock::F, nr, o_p, o_p, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::F, nr, o_p, o_m, -1.0);
        e.put_jp(nv, ops.f, nr, PBlock::F, nr, o_m, o_p, -1.0);
        e.put_jp(nv, ops.f, nr, PBlock::F, nr, o_m, o_m, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::L, nu, o_p, o_l, 1.0);
        e.put_jp(nv, ops.f, nr, PBlock::L, nu, o_m, o_l, -1.0);
        // Row block fL.
        e.put_transpose(0, o_l, nc, nu, o_l, 0, 1.0);
        e.put_transpose(o_p, o_l, nr, nu, o_l, o_p, 1.0);
        e.put_transpose(o_p, o_l, nr, nu, o_l, o_m, -1.0);
        e.put_jp(nv, ops.l, nu, PBlock::L, nu, o_l, o_l, 1.0);
        // E, −Eᵀ, diag(μ).
        for_each_e(data.r, |row, c| {
            e.mm[(o_p + row) + (o_lam + c) * n] = 1.0;
            e.mm[(o_m + row) + (o_lam + c) * n] = 1.0;
            e.mm[(o_lam + c) + (o_p + row) * n] = -1.0;
            e.mm[(o_lam + c) + (o_m + row) * n] = -1.0;
        });
        for i in 0..nc {
            e.mm[(o_lam + i) + i * n] = data.mu[i];
        }
        if with_gamma {
            add_gamma(&mut e.mm, n, data, d, 1.0, 1.0);
        }
        fill_vel_qq(e, ops, data);
    }

    /// Drake's `SolveImpactProblem` (§6): impulses at the velocity level. On
    /// [`RigidOutcome::Solved`], [`ConstraintSolver::cf`] holds `[fN | fF | fL | fG]` (N·s).
    pub fn solve_impact_problem(
        &mut self,
        data: &ConstraintVelProblemData<'_>,
    ) -> Result<RigidOutcome, RigidError> {
        let d = data.validate()?;
        if self.start(&d) {
            return self.finish(RigidOutcome::Solved);
        }
        let ops = Ops::vel(data, d);
        let n = 2 * d.nc + 2 * d.nr + d.nu;
        self.eng.reserve(&d, n);
        grow(&mut self.scratch, d.nv.max(d.nc).max(d.nu));
        self.eng.prepare_inertia(&ops)?;
        if d.nb == 0 && self.no_violation(&ops, data.mv, data.k_n, data.k_l) {
            self.set_cf_len(d.nc + d.nr + d.nu);
            return self.finish(RigidOutcome::Solved);
        }
        self.set_cf_len(d.cf_len());
        self.eng.build_mlcp(&ops);
        let len = copy_into(&mut self.out_nv, data.mv);
        let kg = copy_tail(&mut self.scratch, data.k_g);
        self.eng.free_motion(&ops, &self.out_nv[..len], &self.scratch[..kg]);
        self.eng.build_all_p(&ops, self.block_operator());
        self.assemble_vel_lcp(&ops, data, true);

        if !self.solve_lcp_checked() {
            // §6.4 step 3: progressive regularization, result not re-verified (Q8).
            let n = self.eng.n_lcp;
            let mm = DMatrixView::from_slice(&self.eng.mm[..n * n], n, n);
            let qq = DVectorView::from_slice(&self.eng.qq[..n], n);
            let first = self.pivots;
            // Drake's verdict: the wrapper's own acceptance test, not re-verified (Q8).
            let accepted = match LcpProblem::new(mm, qq) {
                Ok(problem) => {
                    self.lcp
                        .solve_lemke_regularized(&problem, RegularizationSchedule::IMPACT)
                        .expect("valid schedule");
                    self.copy_lcp_result();
                    self.lcp.drake_verdict()
                }
                Err(_) => false,
            };
            self.pivots += first;
            if !accepted {
                self.cf[..self.cf_len].fill(0.0);
                return self.finish(RigidOutcome::RegularizedLcpFailed);
            }
            self.regularized = true;
        }
        self.unpack_vel(&ops, 1.0, false);
        self.finish(RigidOutcome::Solved)
    }

    /// §6.6: cf from the LCP solution in `self.z` (or zeros if `empty_z`), then fG by §3.4.
    fn unpack_vel(&mut self, ops: &Ops, dt: f64, empty_z: bool) {
        let d = ops.d;
        let (nc, nr, nu) = (d.nc, d.nr, d.nu);
        self.cf[..self.cf_len].fill(0.0);
        if !empty_z {
            for i in 0..nc {
                self.cf[i] = self.z[i];
            }
            for i in 0..nr {
                self.cf[nc + i] = self.z[nc + i] - self.z[nc + nr + i];
            }
            for i in 0..nu {
                self.cf[nc + nr + i] = self.z[2 * nc + 2 * nr + i];
            }
        }
        if d.nb > 0 {
            self.recover_bilateral(ops, dt);
        }
    }

    /// Drake's `ConstructBaseDiscretizedTimeLcp` (§7.1): builds the solve operators, `a`, `x*`
    /// and the impact LCP (γ once). No LCP (size 0) when there are no constraints or nothing
    /// is violated. Then set the h-dependent `kN`/`kL` and call
    /// [`ConstraintSolver::update_discretized_time_lcp`].
    pub fn construct_base_discretized_time_lcp(
        &mut self,
        data: &ConstraintVelProblemData<'_>,
    ) -> Result<(), RigidError> {
        let d = data.validate()?;
        self.disc_dims = Some(d);
        self.eng.n_lcp = 0;
        let ops = Ops::vel(data, d);
        let n = 2 * d.nc + 2 * d.nr + d.nu;
        self.eng.reserve(&d, n);
        grow(&mut self.mm_base, n * n);
        grow(&mut self.scratch, d.nv.max(d.nc).max(d.nu));
        self.eng.prepare_inertia(&ops)?;
        self.eng.build_mlcp(&ops);
        let len = copy_into(&mut self.out_nv, data.mv);
        let kg = copy_tail(&mut self.scratch, data.k_g);
        self.eng.free_motion(&ops, &self.out_nv[..len], &self.scratch[..kg]);
        if d.nc == 0 && d.nu == 0 && d.nb == 0 {
            return Ok(());
        }
        if d.nb == 0 && self.no_violation(&ops, data.mv, data.k_n, data.k_l) {
            return Ok(());
        }
        self.eng.build_all_p(&ops, self.block_operator());
        // Keep the blocks without γ for the update, and expose MM with γ once.
        self.assemble_vel_lcp(&ops, data, false);
        self.mm_base[..n * n].copy_from_slice(&self.eng.mm[..n * n]);
        add_gamma(&mut self.eng.mm, n, data, d, 1.0, 1.0);
        Ok(())
    }

    /// Drake's `UpdateDiscretizedTimeLcp` (§7.2) for step `h` (s, > 0): rebuilds `a`, `x*` and
    /// qq from the current data, scales the constraint blocks by h and adds γ once
    /// (`h·block + γ`; Drake's doubled γ with
    /// [`ConstraintSolverParameters::drake_double_gamma`]). Can be repeated with another h (the
    /// unscaled blocks are kept).
    pub fn update_discretized_time_lcp(
        &mut self,
        data: &ConstraintVelProblemData<'_>,
        h: f64,
    ) -> Result<(), RigidError> {
        let d = data.validate()?;
        if h.is_nan() || h <= 0.0 || h.is_infinite() {
            return Err(RigidError::InvalidArgument("time step h must be finite and > 0"));
        }
        let Some(d0) = self.disc_dims else {
            return Err(RigidError::NoDiscretizedLcp);
        };
        if d0 != d {
            return Err(RigidError::DimensionMismatch {
                what: "problem size changed since construct_base_discretized_time_lcp",
                expected: d0.cf_len(),
                got: d.cf_len(),
            });
        }
        let ops = Ops::vel(data, d);
        self.eng.prepare_inertia(&ops)?;
        if d.nb > 0 {
            self.eng.build_mlcp(&ops);
        }
        let len = copy_into(&mut self.out_nv, data.mv);
        let kg = copy_tail(&mut self.scratch, data.k_g);
        self.eng.free_motion(&ops, &self.out_nv[..len], &self.scratch[..kg]);
        let n = self.eng.n_lcp;
        if n == 0 {
            return Ok(());
        }
        let (nc, nr) = (d.nc, d.nr);
        let k = nc + 2 * nr;
        let o_l = 2 * nc + 2 * nr;
        let mm = &mut self.eng.mm;
        mm[..n * n].copy_from_slice(&self.mm_base[..n * n]);
        for j in 0..n {
            let jin = j < k || j >= o_l;
            if !jin {
                continue;
            }
            for i in 0..n {
                if i < k || i >= o_l {
                    mm[i + j * n] *= h;
                }
            }
        }
        let (scaled, lam) = if self.params.drake_double_gamma { (h + 1.0, 2.0) } else { (1.0, 1.0) };
        add_gamma(mm, n, data, d, scaled, lam);
        fill_vel_qq(&mut self.eng, &ops, data);
        Ok(())
    }

    /// Drake's `PopulatePackedConstraintForcesFromLcpSolution` (§7.3) with the solve operators
    /// of the last construct/update: `z` is the LCP solution (length [`Self::lcp_size`], or
    /// empty), `dt` the step (s, > 0). Forces go to [`ConstraintSolver::cf`].
    pub fn populate_packed_constraint_forces_from_lcp_solution(
        &mut self,
        data: &ConstraintVelProblemData<'_>,
        z: &[f64],
        dt: f64,
    ) -> Result<(), RigidError> {
        let d = data.validate()?;
        if dt.is_nan() || dt <= 0.0 || dt.is_infinite() {
            return Err(RigidError::InvalidArgument("dt must be finite and > 0"));
        }
        if self.disc_dims != Some(d) {
            return Err(RigidError::NoDiscretizedLcp);
        }
        let n = 2 * d.nc + 2 * d.nr + d.nu;
        if !z.is_empty() && z.len() != n {
            return Err(RigidError::DimensionMismatch { what: "LCP solution z", expected: n, got: z.len() });
        }
        let ops = Ops::vel(data, d);
        self.eng.prepare_inertia(&ops)?;
        grow(&mut self.z, n);
        self.z[..z.len()].copy_from_slice(z);
        self.set_cf_len(d.cf_len());
        self.unpack_vel(&ops, dt, z.is_empty());
        Ok(())
    }

    /// The discretized protocol of Drake's test fixture (`docs/rigid_cases.md` §1.4): construct,
    /// update with `dt`, a fresh unrevised Lemke solve with its default tolerance, populate.
    /// On [`RigidOutcome::Solved`], [`ConstraintSolver::cf`] holds forces (N).
    pub fn solve_discretized(
        &mut self,
        data: &ConstraintVelProblemData<'_>,
        dt: f64,
    ) -> Result<RigidOutcome, RigidError> {
        self.construct_base_discretized_time_lcp(data)?;
        self.update_discretized_time_lcp(data, dt)?;
        let n = self.eng.n_lcp;
        self.regularized = false;
        let mm = DMatrixView::from_slice(&self.eng.mm[..n * n], n, n);
        let qq = DVectorView::from_slice(&self.eng.qq[..n], n);
        let solved = match LcpProblem::new(mm, qq) {
            Ok(problem) => {
                self.unrevised.clear_warm_start();
                self.unrevised.solve(&problem);
                grow(&mut self.z, n);
                grow(&mut self.w, n);
                self.z[..n].copy_from_slice(self.unrevised.z());
                self.w[..n].copy_from_slice(self.unrevised.w());
                self.pivots = self.unrevised.num_pivots();
                // Drake's verdict (`IsSolution`), the criterion of Drake's protocol.
                self.unrevised.drake_verdict()
            }
            Err(_) => {
                self.zero_lcp_result();
                false
            }
        };
        if !solved {
            let d = data.dims();
            self.set_cf_len(d.cf_len());
            return self.finish(RigidOutcome::LcpUnsolvable);
        }
        let ops = Ops::vel(data, data.dims());
        self.set_cf_len(ops.d.cf_len());
        self.unpack_vel(&ops, dt, n == 0);
        self.finish(RigidOutcome::Solved)
    }

    // ------------------------------------------------------------------------------------
    // Post-processing (§5.5, §6.7).

    fn load_cf(&mut self, cf: &[f64]) {
        grow(&mut self.cf, cf.len());
        self.cf[..cf.len()].copy_from_slice(cf);
        self.cf_len = cf.len();
    }

    /// `(N−μQ)ᵀfN + FᵀfF + LᵀfL + GᵀfG` (§5.5) into `out` (length nv). `cf` must have length
    /// nc + nr + nu + nb. Overwrites [`ConstraintSolver::cf`] with `cf`.
    pub fn compute_generalized_force_from_constraint_forces(
        &mut self,
        data: &ConstraintAccelProblemData<'_>,
        cf: &[f64],
        out: &mut [f64],
    ) -> Result<(), RigidError> {
        let d = data.validate()?;
        check(d.cf_len(), cf.len(), "cf (packed constraint forces, nc + nr + nu + nb)")?;
        check(d.nv, out.len(), "output (length nv)")?;
        self.generalized_force_of(&Ops::accel(data, d), cf, out);
        Ok(())
    }

    /// `M⁻¹ ·` the generalized force of `cf` (§5.5) into `out` (length nv, m/s²).
    pub fn compute_generalized_acceleration_from_constraint_forces(
        &mut self,
        data: &ConstraintAccelProblemData<'_>,
        cf: &[f64],
        out: &mut [f64],
    ) -> Result<(), RigidError> {
        self.compute_generalized_force_from_constraint_forces(data, cf, out)?;
        self.apply_minv_in_place(&Ops::accel(data, data.dims()), out)
    }

    /// `M⁻¹·(generalized force of cf) + M⁻¹·tau` (§5.5) into `out` (length nv, m/s²).
    pub fn compute_generalized_acceleration(
        &mut self,
        data: &ConstraintAccelProblemData<'_>,
        cf: &[f64],
        out: &mut [f64],
    ) -> Result<(), RigidError> {
        self.compute_generalized_acceleration_from_constraint_forces(data, cf, out)?;
        let d = data.dims();
        let ops = Ops::accel(data, d);
        let len = copy_into(&mut self.out_nv, data.tau);
        let mut t = std::mem::take(&mut self.eng.t2);
        self.eng.minv(&ops, &self.out_nv[..len], &mut t[..d.nv]);
        for (o, &x) in out.iter_mut().zip(&t[..d.nv]) {
            *o += x;
        }
        self.eng.t2 = t;
        Ok(())
    }

    /// Loads `cf` and writes its generalized force (or impulse) under `ops` into `out` (§5.5,
    /// §6.7).
    fn generalized_force_of(&mut self, ops: &Ops, cf: &[f64], out: &mut [f64]) {
        self.eng.reserve(&ops.d, 0);
        self.load_cf(cf);
        self.generalized_force_into(ops, true, out);
    }

    fn apply_minv_in_place(&mut self, ops: &Ops, out: &mut [f64]) -> Result<(), RigidError> {
        let nv = ops.d.nv;
        self.eng.prepare_inertia(ops)?;
        grow(&mut self.out_nv, nv);
        self.out_nv[..nv].copy_from_slice(out);
        self.eng.minv(ops, &self.out_nv[..nv], out);
        Ok(())
    }

    /// `NᵀfN + FᵀfF + LᵀfL + GᵀfG` (§6.7) into `out` (length nv, N·s). An empty `cf` gives
    /// zeros; otherwise it must have length nc + nr + nu + nb.
    pub fn compute_generalized_impulse_from_constraint_impulses(
        &mut self,
        data: &ConstraintVelProblemData<'_>,
        cf: &[f64],
        out: &mut [f64],
    ) -> Result<(), RigidError> {
        let d = data.validate()?;
        check(d.nv, out.len(), "output (length nv)")?;
        if cf.is_empty() {
            out.fill(0.0);
            return Ok(());
        }
        check(d.cf_len(), cf.len(), "cf (packed constraint impulses, nc + nr + nu + nb)")?;
        self.generalized_force_of(&Ops::vel(data, d), cf, out);
        Ok(())
    }

    /// `Δv = M⁻¹ ·` the generalized impulse of `cf` (§6.7) into `out` (length nv, m/s); the new
    /// velocity is `M⁻¹Mv + Δv`. (Also Drake's velocity-level
    /// `ComputeGeneralizedAccelerationFromConstraintForces` when `cf` holds forces.)
    pub fn compute_generalized_velocity_change(
        &mut self,
        data: &ConstraintVelProblemData<'_>,
        cf: &[f64],
        out: &mut [f64],
    ) -> Result<(), RigidError> {
        self.compute_generalized_impulse_from_constraint_impulses(data, cf, out)?;
        self.apply_minv_in_place(&Ops::vel(data, data.dims()), out)
    }

    /// Drake's `ComputeGeneralizedAcceleration(vel_data, v, cf, dt)` (§6.7): with `cf` the
    /// discretized problem's forces, `v_next = M⁻¹(Mv + dt·gf)` and `out = (v_next − v)/dt`
    /// (length nv, m/s²). `dt` (s) must be > 0.
    pub fn compute_generalized_acceleration_discretized(
        &mut self,
        data: &ConstraintVelProblemData<'_>,
        v: &[f64],
        cf: &[f64],
        dt: f64,
        out: &mut [f64],
    ) -> Result<(), RigidError> {
        let d = data.validate()?;
        if dt.is_nan() || dt <= 0.0 || dt.is_infinite() {
            return Err(RigidError::InvalidArgument("dt must be finite and > 0"));
        }
        check(d.nv, v.len(), "v (nv)")?;
        self.compute_generalized_impulse_from_constraint_impulses(data, cf, out)?;
        for (o, &p) in out.iter_mut().zip(data.mv.iter()) {
            *o = p + dt * *o;
        }
        let ops = Ops::vel(data, d);
        self.apply_minv_in_place(&ops, out)?;
        for (o, &vi) in out.iter_mut().zip(v) {
            *o = (*o - vi) / dt;
        }
        Ok(())
    }
}

fn check(expected: usize, got: usize, what: &'static str) -> Result<(), RigidError> {
    if expected != got {
        return Err(RigidError::DimensionMismatch { what, expected, got });
    }
    Ok(())
}

/// Copies a vector view into `buf` (grown); returns its length.
fn copy_into(buf: &mut Vec<f64>, v: DVectorView<f64>) -> usize {
    grow(buf, v.len());
    for (b, x) in buf.iter_mut().zip(v.iter()) {
        *b = *x;
    }
    v.len()
}

/// Same as [`copy_into`] (separate name for readability at call sites that copy kG).
fn copy_tail(buf: &mut Vec<f64>, v: DVectorView<f64>) -> usize {
    copy_into(buf, v)
}

/// The ConstraintSolver's acceptance test (§5.3 step 3) with `T = n · max(1, pivots) · tol`.
fn accept_lcp(z: &[f64], w: &[f64], t: f64) -> bool {
    if z.is_empty() {
        return true;
    }
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(min(z) >= -t && min(w) >= -t) {
        return false;
    }
    let zw = z.iter().zip(w).map(|(a, b)| (a * b).abs()).fold(0.0, f64::max);
    zw <= max(z).max(1.0) * max(w).max(1.0) * t
}

/// Adds γ to the diagonals (§6.3): `scaled·γN`, `scaled·γF` (both fD blocks), `lam·γE`,
/// `scaled·γL`. Empty γ vectors are zero.
fn add_gamma(mm: &mut [f64], n: usize, data: &ConstraintVelProblemData, d: Dims, scaled: f64, lam: f64) {
    let (nc, nr) = (d.nc, d.nr);
    let (o_p, o_m, o_lam, o_l) = (nc, nc + nr, nc + 2 * nr, 2 * nc + 2 * nr);
    let mut add = |i: usize, g: f64| mm[i + i * n] += g;
    for (i, &g) in data.gamma_n.iter().enumerate() {
        add(i, scaled * g);
    }
    for (i, &g) in data.gamma_f.iter().enumerate() {
        add(o_p + i, scaled * g);
        add(o_m + i, scaled * g);
    }
    for (i, &g) in data.gamma_e.iter().enumerate() {
        add(o_lam + i, lam * g);
    }
    for (i, &g) in data.gamma_l.iter().enumerate() {
        add(o_l + i, scaled * g);
    }
}

/// qq of the impact / discretized LCP: `[N x* + kN; F x* + kF; −(F x* + kF); 0; L x* + kL]`.
fn fill_vel_qq(e: &mut Engine, ops: &Ops, data: &ConstraintVelProblemData) {
    let d = ops.d;
    let (nv, nc, nr, nu) = (d.nv, d.nc, d.nr, d.nu);
    let n = e.n_lcp;
    e.qq[..n].fill(0.0);
    e.put_jx(nv, ops.n, &data.k_n, nc, 0, 1.0);
    e.put_jx(nv, ops.f, &data.k_f, nr, nc, 1.0);
    e.put_jx(nv, ops.f, &data.k_f, nr, nc + nr, -1.0);
    e.put_jx(nv, ops.l, &data.k_l, nu, 2 * nc + 2 * nr, 1.0);
}
